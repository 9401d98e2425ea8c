/* libFuzzer harness for the decoder: every input is decoded with every entry point, both CRC
 * modes and three option sets (defaults, then the R-nn alternatives), printed as summary / tree /
 * JSON to /dev/null, every field of every layer is read and formatted, and the input is fed to
 * the raw flit stream delimiter (whole, then split in two). View invariants (layers inside their
 * buffer, counts in range, known codes) are checked after every decode.
 *
 * Fuzzing (scripts/test.sh does this when clang is installed):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibubparse/include -Ilibubparse/src \
 *         libubparse/src/[a-z]*.c tests/fuzz_decode.c -o build-fuzz/fuzz_decode -lpcre2-8
 *   build-fuzz/fuzz_decode -max_total_time=60 -max_len=12000 build-fuzz/corpus tests/fuzz/corpus
 * Regression: tests/test_fuzz_replay.c includes this file (UB_FUZZ_REPLAY) and replays every
 * file of tests/fuzz/corpus/ under ctest; put crashing inputs there once fixed. */
#include "ubparse/ubparse.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Invariant violations: abort under libFuzzer, counted by the replay test. */
static unsigned long fz_violations;
static unsigned long fz_unregistered[UB_H__COUNT];
static void fz_bad(const char *what, unsigned long a, unsigned long b)
{
    fz_violations++;
    fprintf(stderr, "fuzz_decode: invariant violated: %s (%lu, %lu)\n", what, a, b);
#ifndef UB_FUZZ_REPLAY
    abort();
#endif
}

static bool fz_inside(const uint8_t *p, uint32_t n, const uint8_t *base, size_t blen)
{
    /* compare as integers: the layer may point into the record or into v->netbuf */
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    return a >= b && a - b <= blen && n <= blen - (a - b);
}

/* out == NULL: invariants and summary only (formatting and printers run for the default options) */
static void fz_view(FILE *out, const ub_view *v, const uint8_t *rec, uint32_t len)
{
    static char buf[4096];
    if (v->nlayers > UB_MAX_LAYERS) fz_bad("nlayers", v->nlayers, UB_MAX_LAYERS);
    if (v->nerrs > UB_MAX_ERRS) fz_bad("nerrs", v->nerrs, UB_MAX_ERRS);
    if (v->rec != rec || v->rec_len != len) fz_bad("rec", v->rec_len, len);
    if (v->pkt && !fz_inside(v->pkt, v->pkt_len, rec, len) && !fz_inside(v->pkt, v->pkt_len, v->netbuf, sizeof v->netbuf))
        fz_bad("pkt outside record and netbuf", v->pkt_len, len);
    unsigned nl = v->nlayers <= UB_MAX_LAYERS ? v->nlayers : UB_MAX_LAYERS;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr) { fz_bad("layer without header", i, 0); continue; }
        if (l->hdr->id >= UB_H__COUNT) fz_bad("layer header id", i, l->hdr->id);
        else if (l->hdr->vidx ? ub_hdr_variant(l->hdr->vidx) != l->hdr || l->hdr->nfields != ub_hdr_get(l->hdr->id)->nfields
                              : ub_hdr_get(l->hdr->id) != l->hdr)
            fz_bad("layer table is neither the registered one nor a profile table of its id", i, l->hdr->id);
        if (l->hdr->id < UB_H__COUNT && !l->hdr->vidx && ub_hdr_get(l->hdr->id) != l->hdr && !fz_unregistered[l->hdr->id]++)
            /* not fatal: a table outside the registry has no Wireshark fields (reported once) */
            fprintf(stderr, "fuzz_decode: note: layer table \"%s\" is not the registered table of id %u\n",
                    l->hdr->key ? l->hdr->key : "?", (unsigned)l->hdr->id);
        if (l->len && !fz_inside(l->data, l->len, rec, len) && !fz_inside(l->data, l->len, v->netbuf, sizeof v->netbuf))
            fz_bad("layer outside record and netbuf", i, l->len);
        if (l->wlen < l->len || (l->wlen > l->len && !(l->flags & UB_LF_TRUNC))) fz_bad("layer wire length", i, l->wlen);
        for (unsigned k = 0; k < l->hdr->nfields; k++) {
            const ub_field *f = &l->hdr->fields[k];
            ub_val val;
            if (ub_field_value(l, f, &val) == 0) {
                if (val.nbytes && !fz_inside(val.bytes, val.nbytes, l->data, l->len))
                    fz_bad("field bytes outside layer", i, k);
                if (out) {
                    ub_format_value(f, &val, true, buf, sizeof buf);
                    ub_format_value(f, &val, false, buf, 5);
                }
            }
        }
    }
    unsigned ne = v->nerrs <= UB_MAX_ERRS ? v->nerrs : UB_MAX_ERRS;
    for (unsigned i = 0; i < ne; i++) {
        if (v->err[i].code == UB_E_NONE || v->err[i].code >= UB_E__COUNT || !ub_err_get(v->err[i].code))
            fz_bad("error code", i, v->err[i].code);
        if (v->err[i].hdr >= UB_H__COUNT) fz_bad("error header id", i, v->err[i].hdr);
    }
    ub_summary(v, buf, sizeof buf);
    ub_summary(v, buf, 7); /* truncated output must stay terminated */
    if (!memchr(buf, 0, 7)) fz_bad("summary not terminated", 7, 0);
    ub_error_names(v, buf, sizeof buf);
    ub_error_names(v, buf, 3);
    (void)ub_view_worst(v);
    if (out) {
        uint64_t u;
        (void)ub_view_get(v, "ub.btah.taopcode", &u);
        (void)ub_view_get(v, "ub.lph.cfg", &u);
        ub_print_tree(out, v);
        ub_print_json(out, v);
    }
}

typedef struct fz_stream_ctx {
    FILE *out;
    const ub_opts *o;
    ub_view *v;
} fz_stream_ctx;

static void fz_unit(void *vctx, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    fz_stream_ctx *x = vctx;
    (void)flags;
    ub_decode(x->v, x->o, UB_ENTRY_FLIT, unit, len);
    fz_view(x->out, x->v, unit, len);
}

static void fz_opts(ub_opts *o, int set, bool crc)
{
    ub_opts_default(o);
    o->crc_mode = crc;
    if (set == 1) { /* every R-nn alternative */
        o->bcrc_variant = 1;
        for (int i = 0; i < 16; i++) o->tah_fmt[i] = (uint8_t)!o->tah_fmt[i];
        o->read_ext4 = 1;
        o->btah_variant = 1;
        o->scan_packing = 1;
        o->vdm_variant = 1;
        o->init_variant = 1;
        o->cetph_variant = 1;
        o->bitmap_order = 1;
        o->icv_len = 16;
        o->cip_decode_inner = true;
        o->urpc_heuristic = true;
        o->icrc_enum = 1;
        o->udp4791 = 2;          /* neighbours: every UDP 4791 payload as SUE, RH Dest_QP byte first, */
        o->sue_rh_order = 1;     /* AFH_GEN1 without TC, an ICRC after the SUE payload */
        o->sue_afh = 1;
        o->sue_tc_in_sa = false;
        o->sue_icrc = true;
    } else if (set == 2) { /* the remaining choices and edge values */
        for (int i = 0; i < 16; i++) o->tah_fmt[i] = (uint8_t)(i & 1);
        o->read_ext4 = 2;
        o->init_variant = 2;
        o->icrc_enum = 2;
        o->icv_len = 0;
        o->cip_decode_inner = true;
        o->urpc_heuristic = true;
        o->udp_port = 0;
        o->udp4791 = 1;          /* every UDP 4791 payload as RoCEv2, AFH_GEN2 forced */
        o->sue_afh = 2;
        o->sue_ethertype[0] = 0x0800; /* even IPv4 frames as SUE AFH */
    } else if (set == 3) { /* the ns-3-UB dialect, more UB ports, no heuristic */
        o->profile = UB_PROFILE_NS3UB;
        o->udp_heuristic = false;
        o->udp_more[0] = 5000;
        o->udp_more[1] = 0;
        o->n_udp_more = 2;
    }
}

static const ub_entry fz_entries[] = { UB_ENTRY_FLIT, UB_ENTRY_PKT,   UB_ENTRY_SLL,   UB_ENTRY_SLL2,
                                       UB_ENTRY_ETH,  UB_ENTRY_RAWIP, UB_ENTRY_CFGPH, UB_ENTRY_TPH,
                                       UB_ENTRY_PCIEFLIT, UB_ENTRY_IP, UB_ENTRY_NULL };

int fz_decode_one(const uint8_t *data, size_t size);
int fz_decode_one(const uint8_t *data, size_t size)
{
    static ub_view v, sv;
    static ub_stream s;
    static FILE *out;
    if (!out) out = fopen("/dev/null", "w");
    if (!out) return 0;
    if (size > 65536) return 0;
    uint32_t len = (uint32_t)size;
    static ub_sniff sn;
    for (int set = 0; set < 4; set++) {
        for (int crc = 1; crc >= 0; crc--) {
            ub_opts o;
            fz_opts(&o, set, crc != 0);
            for (size_t e = 0; e < sizeof fz_entries / sizeof fz_entries[0]; e++) {
                ub_decode(&v, &o, fz_entries[e], data, len);
                fz_view(set == 0 ? out : NULL, &v, data, len);
                ub_sniff_view(&sn, &v);
                if (set >= 2 && len) { /* the same record cut by a snapshot length */
                    uint32_t cap = len > 1 ? data[len - 1] % len : 0;
                    ub_decode_wire(&v, &o, fz_entries[e], data, cap, len + (set == 3 ? data[0] : 0u));
                    fz_view(NULL, &v, data, cap);
                }
            }
            if (len) {
                ub_ip_claim(&v, &o, data, len, len);
                fz_view(NULL, &v, data, len);
            }
            if (set == 0) {
                ub_entry le = ub_entry_for_linktype(&o, len ? data[0] : 0);
                if (le != UB_ENTRY_STREAM && le != UB_ENTRY_NONE) {
                    ub_decode(&v, &o, le, data, len);
                    fz_view(out, &v, data, len);
                }
            }
            /* raw flit stream: whole record, then the same bytes in two records */
            fz_stream_ctx x = { set == 0 ? out : NULL, &o, &sv };
            ub_stream_init(&s, &o);
            ub_stream_feed(&s, data, len, fz_unit, &x);
            ub_stream_flush(&s, fz_unit, &x);
            if (len > 1) {
                uint32_t cut = (uint32_t)(data[0] * 20u) % len;
                ub_stream_init(&s, &o);
                ub_stream_feed(&s, data, cut, fz_unit, &x);
                ub_stream_feed(&s, data + cut, len - cut, fz_unit, &x);
                ub_stream_flush(&s, fz_unit, &x);
            }
        }
    }
    char msg[256];
    (void)ub_sniff_verdict(&sn, msg, sizeof msg);
    (void)ub_sniff_verdict(&sn, msg, 3);
    return 0;
}

#if !defined(UB_FUZZ_REPLAY) && !defined(UB_FUZZ_DECODE_LIB) /* other harnesses include this file for fz_view */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_decode_one(data, size); }
#endif
