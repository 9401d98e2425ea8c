/* Replays the fuzzing corpora under ctest (ASan/UBSan in the sanitizer build), so every input that
 * once crashed stays a regression test: tests/fuzz/corpus/ files through the decoder harness
 * (tests/fuzz_decode.c: every entry point, both CRC modes, all option sets, printers, stream), and
 * tests/fuzz/capfile_corpus/ files through the capture-file harness (tests/fuzz/fuzz_capfile.c).
 * Every prefix of each decoder input is replayed as well (truncation is the commonest damage). */
#define UB_FUZZ_REPLAY 1
#include "fuzz_decode.c"
#include "fuzz/fuzz_capfile.c"
#include "ubtest.h"

#include <dirent.h>
#include <stdlib.h>

static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t), bool prefixes)
{
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "cannot open %s\n", dir); return 0; }
    int n = 0;
    struct dirent *e;
    static uint8_t buf[1 << 20];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        unsigned long before = fz_violations;
        /* a heap copy of exactly len bytes, so ASan catches reads past the input */
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, buf, len);
        fn(p, len);
        if (prefixes)
            for (size_t k = 0; k < len; k++) {
                uint8_t *q = malloc(k ? k : 1);
                memcpy(q, buf, k);
                fn(q, k);
                free(q);
            }
        free(p);
        if (fz_violations != before) fprintf(stderr, "  ... in %s\n", path);
        n++;
    }
    closedir(d);
    return n;
}

int main(void)
{
    int nd = replay_dir(UB_SOURCE_DIR "/tests/fuzz/corpus", fz_decode_one, true);
    int nc = replay_dir(UB_SOURCE_DIR "/tests/fuzz/capfile_corpus", fz_capfile_one, false);
    printf("replayed %d decoder inputs (with all prefixes), %d capture files\n", nd, nc);
    CHECK(nd >= 10);
    CHECK(nc >= 3);
    CHECK_EQ(fz_violations, 0);
    if (fz_cap_path[0]) remove(fz_cap_path);
    return ub_test_finish();
}
