/* Replays the fuzzing corpora under ctest (ASan/UBSan in the sanitizer build), so every input that
 * once crashed stays a regression test: tests/fuzz/corpus/ files through the decoder harness
 * (tests/fuzz_decode.c: every entry point, both CRC modes, all option sets, printers, stream),
 * tests/fuzz/capfile_corpus/ through the capture-file harness, state_corpus/ through the state-engine
 * harness (packet sequences), filter_corpus/ through the display-filter harness and build_corpus/
 * through the builder harness (tests/fuzz/fuzz_*.c). Every prefix of each hand-named decoder input is
 * replayed as well (truncation is the commonest damage); inputs named by their hash (what `scripts/fuzz.sh
 * merge` adds) are replayed whole. */
#define UB_FUZZ_REPLAY 1
#include "fuzz_decode.c"
#include "fuzz/fuzz_capfile.c"
#include "fuzz/fuzz_state.c"
#include "fuzz/fuzz_filter.c"
#include "fuzz/fuzz_build.c"
#include "ubtest.h"

#include <dirent.h>
#include <stdlib.h>

/* libFuzzer names the inputs it keeps by their SHA-1 (40 hex digits), extract/mkseed by FNV (16) */
static bool hash_name(const char *n)
{
    size_t l = strlen(n);
    if (l != 40 && l != 16) return false;
    for (size_t i = 0; i < l; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f'))) return false;
    return true;
}

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
        if (prefixes && !hash_name(e->d_name))
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
    int ns = replay_dir(UB_SOURCE_DIR "/tests/fuzz/state_corpus", fz_state_one, false);
    int nf = replay_dir(UB_SOURCE_DIR "/tests/fuzz/filter_corpus", fz_filter_one, false);
    int nb = replay_dir(UB_SOURCE_DIR "/tests/fuzz/build_corpus", fz_build_one, false);
    printf("replayed %d decoder inputs (hand-named ones with all prefixes), %d capture files, %d packet sequences, "
           "%d filters, %d builder texts\n", nd, nc, ns, nf, nb);
    CHECK(nd >= 10);
    CHECK(nc >= 3);
    CHECK(ns >= 10);
    CHECK(nf >= 10);
    CHECK(nb >= 10);
    CHECK_EQ(fz_violations, 0);
    if (fz_cap_path[0]) remove(fz_cap_path);
    return ub_test_finish();
}
