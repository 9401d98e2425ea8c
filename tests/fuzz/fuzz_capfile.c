/* libFuzzer harness for the capture-file reader (libubparse/src/capfile.c): the input is written
 * to a temporary file and read to the end; every record's bytes are touched so that ASan sees any
 * out-of-bounds pointer. Built and run by scripts/test.sh; tests/test_fuzz_replay.c replays
 * tests/fuzz/capfile_corpus/ through fz_capfile_one() under ctest. */
#include "ubparse/capfile.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char fz_cap_path[64];

int fz_capfile_one(const uint8_t *data, size_t size);
int fz_capfile_one(const uint8_t *data, size_t size)
{
    const char *path = fz_cap_path;
    if (!fz_cap_path[0]) snprintf(fz_cap_path, sizeof fz_cap_path, "/tmp/ub_fuzz_capfile_%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    if (size) fwrite(data, 1, size, f);
    fclose(f);
    char err[256];
    ub_capfile *c = ub_cap_open(path, err, sizeof err);
    if (!c) {
        if (!err[0]) __builtin_trap(); /* a failed open always says why */
        return 0;
    }
    (void)ub_cap_linktype(c);
    (void)ub_cap_is_pcapng(c);
    ub_rec r;
    int rc;
    unsigned sum = 0;
    uint64_t frame = 0;
    while ((rc = ub_cap_next(c, &r)) == 1) {
        /* frame numbers grow; by more than one after pcapng blocks Wireshark counts as frames without a
         * packet (custom, journal, Sysdig: capfile.c ng_is_frame) */
        if (r.frame <= frame || r.caplen > 262144 || r.dir > 2) __builtin_trap();
        frame = r.frame;
        for (uint32_t i = 0; i < r.caplen; i++) sum += r.data[i];
        uint32_t fl;
        /* the flags word and the direction agree (bits 0-1: 1 in, 2 out) */
        if (ub_cap_flags(c, &fl) ? (fl & 3u) != (r.dir == UB_DIR_IN ? 1u : r.dir == UB_DIR_OUT ? 2u : fl & 3u) : fl != 0 || r.dir != UB_DIR_UNKNOWN)
            __builtin_trap();
        for (uint32_t i = 0; i < ub_cap_ncomments(c); i++) {
            uint32_t len;
            const char *cm = ub_cap_comment_n(c, i, &len);
            for (uint32_t k = 0; cm && k < len; k++) sum += (uint8_t)cm[k];
        }
    }
    if (rc < 0 && !ub_cap_error(c)[0]) __builtin_trap();
    if (ub_cap_next(c, &r) != rc) __builtin_trap(); /* end and error are sticky */
    if (sum == 0xFFFFFFFFu) fputc(0, stderr);      /* keep the reads */
    ub_cap_close(c);
    return 0;
}

#ifndef UB_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_capfile_one(data, size); }
#endif
