/* libFuzzer harness for the protocol-state engine (state.c, st_dll.c, st_tp.c, st_ta.c): one input is a
 * whole capture — a sequence of records, each decoded and fed in order — so the fuzzer explores packet
 * sequences (retry sets, PSN gaps, SACK bitmaps, transaction matching, table eviction), not only bytes.
 *
 * Input: byte 0 = configuration (bit 0 ns-3-UB profile, bit 1 Non-CRC mode, bit 2 tiny tables (eviction),
 * bits 3-4 layer subset, bit 5 expect_taack, bit 6 gaps_are_notes, bit 7 a 1 ms response timeout); then
 * records: [selector][length lo][length hi][time step] + length bytes (cut at the end of the input).
 * selector bits 0-2 = entry point (FLIT PKT STREAM ETH RAWIP SLL CFGPH TPH), bits 3-4 = direction,
 * bit 5 = interface 1, bit 6 = decode only the first half of the bytes on the wire (a snapshot cut).
 * Raw flit stream records go through one ub_stream per (interface, direction), as ubdump does; IP
 * records (ETH, RAWIP, SLL) through one IP reassembly table (ipfrag.c), as ub_units does. The view
 * has a header-stack template cache (ub_view_new_tmpl, new for each input), as ubdump's and the audit's:
 * a stack met again is filled from its template and the engine reads its memoized layer dispatch.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ilibubparse/include -Ilibubparse/src \
 *         libubparse/src/[a-z]*.c tests/fuzz/fuzz_state.c -o build-fuzz/fuzz_state -lpcre2-8
 * Regression: tests/test_fuzz_replay.c replays tests/fuzz/state_corpus/ (UB_FUZZ_REPLAY). */
#include "internal.h" /* ub_ipfrag_*: the reassembly ub_units does */
#include "ubparse/audit.h" /* ub_units_lost */
#include "ubparse/capfile.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fzs_ctx {
    ub_state *st;
    ub_view *v;
    const ub_opts *o;
    ub_pktinfo pi;
    unsigned long findings;
} fzs_ctx;

static void fzs_finding(void *ctx, const ub_finding *f)
{
    fzs_ctx *c = ctx;
    c->findings++;
    /* every finding names a rule of the catalogue and carries at most UB_FINDING_FRAMES frames */
    if (!ub_rule_get(f->rule) || f->nframes > UB_FINDING_FRAMES || f->nvalues > 4 || f->severity > UB_SEV_ERROR)
        abort();
    if (memchr(f->keytext, 0, sizeof f->keytext) == NULL) abort();
}

static void fzs_match(void *ctx, const ub_match *m) { (void)ctx; (void)m; }
static void fzs_note(void *ctx, const ub_pkt_note *n) { (void)ctx; (void)n; }

/* a datagram given up: its fields are what was collected, the addresses printed */
static void fzs_lost(void *ctx, const ub_units_lost *l)
{
    (void)ctx;
    if (!l->fragments || l->first_frame > l->last_frame || (l->ver != 4 && l->ver != 6) || !memchr(l->src, 0, sizeof l->src) ||
        !memchr(l->dst, 0, sizeof l->dst))
        abort();
}

static void fzs_unit(void *ctx, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    fzs_ctx *c = ctx;
    (void)flags;
    ub_decode(c->v, c->o, UB_ENTRY_FLIT, unit, len);
    ub_state_packet(c->st, c->v, &c->pi);
}

static const ub_entry fzs_entries[8] = { UB_ENTRY_FLIT, UB_ENTRY_PKT,   UB_ENTRY_STREAM, UB_ENTRY_ETH,
                                         UB_ENTRY_RAWIP, UB_ENTRY_SLL, UB_ENTRY_CFGPH, UB_ENTRY_TPH };

int fz_state_one(const uint8_t *data, size_t size);
int fz_state_one(const uint8_t *data, size_t size)
{
    static ub_stream streams[8];
    if (size < 1 || size > (1u << 20)) return 0;
    uint8_t cfgb = data[0];
    ub_opts o;
    ub_opts_default(&o);
    o.profile = (cfgb & 1) ? UB_PROFILE_NS3UB : UB_PROFILE_SPEC;
    o.crc_mode = !(cfgb & 2);
    ub_state_cfg sc;
    ub_state_cfg_default(&sc);
    if (cfgb & 4) sc.max_links = sc.max_channels = sc.max_transactions = sc.max_mgmt = 4;
    static const unsigned layer_sets[4] = { UB_ST_ALL, UB_ST_DLL | UB_ST_DECODE, UB_ST_TP | UB_ST_NW, UB_ST_TA | UB_ST_MG };
    sc.layers = layer_sets[(cfgb >> 3) & 3];
    sc.expect_taack = (cfgb & 0x20) != 0;
    sc.gaps_are_notes = (cfgb & 0x40) != 0;
    if (cfgb & 0x80) sc.response_timeout_ns = 1000000;
    fzs_ctx c;
    memset(&c, 0, sizeof c);
    ub_view *v = ub_view_new_tmpl();
    if (!v) return 0;
    c.st = ub_state_new(&sc, fzs_finding, &c);
    if (!c.st) {
        free(v);
        return 0;
    }
    ub_state_set_match_cb(c.st, fzs_match, &c);
    ub_state_set_note_cb(c.st, fzs_note, &c);
    c.v = v;
    c.o = &o;
    ub_ipfrag *frag = ub_ipfrag_new(cfgb & 4 ? 2 : 0); /* tiny: datagrams given up for newer ones */
    if (frag) ub_ipfrag_on_lost(frag, &o, fzs_lost, NULL);
    for (unsigned i = 0; i < 8; i++) ub_stream_init(&streams[i], &o);
    size_t off = 1;
    uint64_t frame = 0, ts = 1000000000ull;
    while (off + 4 <= size) {
        uint8_t sel = data[off];
        uint32_t len = (uint32_t)data[off + 1] | (uint32_t)data[off + 2] << 8;
        ts += (uint64_t)data[off + 3] * 1000u * ((sel & 0x80) ? 1000u : 1u); /* µs or ms steps */
        off += 4;
        if (len > size - off) len = (uint32_t)(size - off);
        const uint8_t *rec = data + off;
        off += len;
        ub_entry e = fzs_entries[sel & 7];
        uint8_t dir = (uint8_t)((sel >> 3) & 3);
        uint32_t ifx = (sel >> 5) & 1;
        c.pi = (ub_pktinfo){ ++frame, ts, ifx, dir <= UB_DIR_OUT ? dir : UB_DIR_UNKNOWN };
        if (e == UB_ENTRY_STREAM) {
            ub_stream_feed(&streams[ifx * 4 + dir], rec, len, fzs_unit, &c);
            continue;
        }
        uint32_t cap = (sel & 0x40) ? len / 2 : len;
        const uint8_t *whole;
        uint32_t wl;
        if (frag && cap == len && (e == UB_ENTRY_ETH || e == UB_ENTRY_RAWIP || e == UB_ENTRY_SLL) &&
            ub_ipfrag_add(frag, frame, e, rec, len, &whole, &wl) == 2) {
            ub_decode_wire(v, &o, e, whole, wl, wl);
            ub_unit_errors(v, UB_UNIT_REASSEMBLED, wl);
        } else {
            ub_decode_wire(v, &o, e, rec, cap, len);
        }
        ub_state_packet(c.st, v, &c.pi);
    }
    for (unsigned i = 0; i < 8; i++) ub_stream_flush(&streams[i], fzs_unit, &c);
    if (frag) ub_ipfrag_flush(frag);
    ub_state_finish(c.st);
    ub_state_free(c.st);
    ub_ipfrag_free(frag);
    free(v);
    return 0;
}

#ifndef UB_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_state_one(data, size); }
#endif
