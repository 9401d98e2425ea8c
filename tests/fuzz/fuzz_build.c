/* libFuzzer harness for the packet builder (build.c): the input is builder text (docs/builder.md). It is
 * built with ub_build_text and, line by line, through the incremental API (ub_builder_reset / header /
 * set / set_u64 / set_bytes / finish, the path of responders and Lua); whatever is built is decoded with
 * its entry point under the decoder harness's view invariants (tests/fuzz_decode.c fz_view).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibubparse/include -Ilibubparse/src \
 *         libubparse/src/[a-z]*.c tests/fuzz/fuzz_build.c -o build-fuzz/fuzz_build -lpcre2-8
 * Regression: tests/test_fuzz_replay.c replays tests/fuzz/build_corpus/ (UB_FUZZ_REPLAY). */
#ifndef UB_FUZZ_REPLAY
#define UB_FUZZ_DECODE_LIB 1
#include "../fuzz_decode.c"
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static uint8_t fzb_out[65536];

static void fzb_decode(ub_entry e, long n, const ub_opts *o)
{
    static ub_view v;
    if (n <= 0) return;
    if (e == UB_ENTRY_STREAM || e == UB_ENTRY_NONE) e = UB_ENTRY_FLIT;
    ub_decode(&v, o, e, fzb_out, (uint32_t)n);
    fz_view(NULL, &v, fzb_out, (uint32_t)n);
}

/* value text -> the typed setters where it reads as one (the text parser takes the string form) */
static void fzb_set(ub_builder *b, char *k, char *val, unsigned how)
{
    char *end;
    unsigned long long u = strtoull(val, &end, 0);
    if (how == 1 && *val && !*end) {
        ub_builder_set_u64(b, k, u);
        return;
    }
    if (how == 2 && strncmp(k, "hex", 3) == 0) {
        uint8_t bytes[512];
        size_t n = 0;
        for (char *p = val; p[0] && p[1] && n < sizeof bytes; p += 2) {
            if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1])) break;
            char h[3] = { p[0], p[1], 0 };
            bytes[n++] = (uint8_t)strtoul(h, NULL, 16);
        }
        ub_builder_set_bytes(b, "data", bytes, n);
        return;
    }
    ub_builder_set(b, k, val);
}

int fz_build_one(const uint8_t *data, size_t size);
int fz_build_one(const uint8_t *data, size_t size)
{
    if (size > 16384) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ub_opts o;
    ub_opts_default(&o);
    if (size && (data[0] & 1)) o.crc_mode = false;
    char err[256];
    ub_entry e = UB_ENTRY_NONE;
    long n = ub_build_text(text, &o, fzb_out, sizeof fzb_out, &e, err, sizeof err);
    if (n < 0 && !memchr(err, 0, sizeof err)) abort();
    if (n > (long)sizeof fzb_out) abort();
    fzb_decode(e, n, &o);
    /* a tiny output buffer: fails cleanly */
    (void)ub_build_text(text, &o, fzb_out, 7, &e, err, 8);

    /* the incremental API, one line at a time */
    ub_builder *b = ub_builder_new(&o);
    if (b) {
        unsigned how = size ? data[size - 1] % 3u : 0;
        bool started = false;
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            char *hash = strchr(line, '#');
            if (hash) *hash = '\0';
            if (!started) {
                if (ub_builder_reset(b, line) != 0 && !ub_builder_error(b)) abort();
                started = true;
                continue;
            }
            char *s2 = NULL;
            char *key = strtok_r(line, " \t", &s2);
            if (!key) continue;
            ub_builder_header(b, key);
            for (char *kv = strtok_r(NULL, " \t", &s2); kv; kv = strtok_r(NULL, " \t", &s2)) {
                char *eq = strchr(kv, '=');
                if (!eq) {
                    ub_builder_set(b, kv, "");
                    continue;
                }
                *eq = '\0';
                fzb_set(b, kv, eq + 1, how);
            }
        }
        ub_entry e2 = UB_ENTRY_NONE;
        long n2 = ub_builder_finish(b, fzb_out, sizeof fzb_out, &e2);
        if (n2 < 0 && !ub_builder_error(b)) abort();
        fzb_decode(e2, n2, &o);
        ub_builder_free(b);
    }
    free(text);
    return 0;
}

#ifndef UB_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_build_one(data, size); }
#endif
