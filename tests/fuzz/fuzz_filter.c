/* libFuzzer harness for the display-filter compiler and matcher (filter.c): the input is an expression;
 * whatever compiles is matched against views of every kind (DLLDP, DLLCB, UBoE, not UB, truncated), with
 * and without frame numbers, and against all of them as one frame (ub_filter_acc); a rejected one must
 * say where (column within the expression).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibubparse/include -Ilibubparse/src \
 *         libubparse/src/[a-z]*.c tests/fuzz/fuzz_filter.c -o build-fuzz/fuzz_filter -lpcre2-8
 * Regression: tests/test_fuzz_replay.c replays tests/fuzz/filter_corpus/ (UB_FUZZ_REPLAY). */
#include "ubparse/filter.h"
#include "ubparse/ubparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FZF_VIEWS 8
static ub_view *fzf_v[FZF_VIEWS];
static uint8_t fzf_rec[FZF_VIEWS][2048];
static unsigned fzf_n;

static void fzf_add(const char *text, uint32_t cut)
{
    ub_opts o;
    ub_opts_default(&o);
    char err[256];
    ub_entry e;
    long n = ub_build_text(text, &o, fzf_rec[fzf_n], sizeof fzf_rec[0], &e, err, sizeof err);
    if (n <= 0) abort(); /* the sample texts are valid */
    ub_view *v = calloc(1, sizeof *v);
    if (!v) abort();
    ub_decode(v, &o, e, fzf_rec[fzf_n], cut && cut < (uint32_t)n ? cut : (uint32_t)n);
    fzf_v[fzf_n++] = v;
}

static void fzf_init(void)
{
    if (fzf_n) return;
    fzf_add("flit\nlph vl=1\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ini_tassn=1\n"
            "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64", 0);
    fzf_add("flit\nlch clength=1 ctrl=2 sub_ctrl=4\ndllcb_crd_ack t=1 sd=1 crd_num_vl0=5", 0);
    fzf_add("eth\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp srcport=1\n"
            "rtph tpopcode=1 last=1 srctpn=1 dsttpn=2 psn=7 tpmsn=1\nbtah taopcode=Read ini_tassn=3 ini_rc_id=1\n"
            "maetah address=0x1000 tokenid=1 length=64", 0);
    fzf_add("eth icrc=none\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2 protocol=6\n"
            "tcp srcport=1 dstport=80 data_offset=5", 0);
    fzf_add("pkt\nlph vl=0\nnthip npi_id=1\nipv6 src=fd000000000000000000000000000001 dst=fd000000000000000000000000000002\n"
            "udp\nrtph tpopcode=5 srctpn=2 dsttpn=1 psn=4\nsaetph bitmapsize=0 maxrcvpsn=6", 0);
    fzf_add("pkt\nlph\nnth16 scna=0x0102 dcna=0x0304 nlp=1\nupih16 upi=0x7fff\nenumpad\n"
            "scanhdr r=1 hops=2 step=0\nscanpdu_req version=1 cmd=0 opcode=1 msn=9", 0);
    fzf_add("flit bcrc=bad\nlph vl=1\nnth16 scna=0x0102 dcna=0x0304\natah_c taopcode=TAACK ini_tassn=1", 37);
}

int fz_filter_one(const uint8_t *data, size_t size);
int fz_filter_one(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    fzf_init();
    char *expr = malloc(size + 1);
    if (!expr) return 0;
    memcpy(expr, data, size);
    expr[size] = '\0';
    char err[512];
    ub_filter *f = ub_filter_compile(expr, err, sizeof err);
    if (!f) {
        if (!memchr(err, 0, sizeof err)) abort();
        size_t col = ub_filter_err_column(err);
        if (col > strlen(expr) + 1) abort(); /* the caret points into (or just past) the expression */
    } else {
        for (unsigned i = 0; i < fzf_n; i++) {
            bool a = ub_filter_match(f, fzf_v[i]);
            bool b = ub_filter_match_frame(f, fzf_v[i], i + 1, fzf_v[i]->rec_len);
            (void)a;
            (void)b;
        }
        /* all views as the units of one frame (a flit-stream record): the values of every view together */
        ub_filter_acc *acc = ub_filter_acc_new(f);
        if (acc) {
            ub_filter_pkt pk = { .frame = 3, .len = 200, .caplen = 200, .has_time = true, .ts_ns = 5, .t0_ns = 9, .prev_ns = 2 };
            for (unsigned i = 0; i < fzf_n; i++) ub_filter_acc_add(acc, fzf_v[i], &pk);
            (void)ub_filter_acc_match(acc, &pk);
            ub_filter_acc_reset(acc);
            ub_filter_acc_add(acc, fzf_v[0], &pk);
            (void)ub_filter_acc_match(acc, &pk);
            ub_filter_acc_free(acc);
        }
        ub_filter_free(f);
    }
    /* the same text with a smaller error buffer: still terminated */
    char small[8];
    ub_filter *g = ub_filter_compile(expr, small, sizeof small);
    if (!g && !memchr(small, 0, sizeof small)) abort();
    ub_filter_free(g);
    free(expr);
    return 0;
}

#ifndef UB_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_filter_one(data, size); }
#endif
