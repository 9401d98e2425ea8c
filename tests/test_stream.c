/* Raw flit stream (LINKTYPE_USER2, digest §2.9, R-47): delimiting DLLDPs/DLLCBs across records. */
#include "ubtest.h"
#include "internal.h"
#include <stdlib.h>

static ub_view V;
static ub_opts O;

#define MAXU 64
typedef struct unit {
    uint8_t b[512 * 20];
    uint32_t len, flags;
    bool in_rec; /* pointer was inside the record being fed (zero-copy) */
} unit;
typedef struct sink {
    unit u[MAXU];
    int n;
    const uint8_t *rec;
    uint32_t rec_len;
} sink;
static sink S, W; /* got, want */

static void on_unit(void *ctx, const uint8_t *p, uint32_t len, uint32_t flags)
{
    sink *s = ctx;
    if (s->n >= MAXU) return;
    unit *u = &s->u[s->n++];
    u->len = len <= sizeof u->b ? len : (uint32_t)sizeof u->b;
    memcpy(u->b, p, u->len);
    u->flags = flags;
    u->in_rec = s->rec && p >= s->rec && p + len <= s->rec + s->rec_len;
}

static void want(const uint8_t *p, uint32_t len)
{
    unit *u = &W.u[W.n++];
    memcpy(u->b, p, len);
    u->len = len;
}

static uint32_t rng = 777;
static uint8_t rnd8(void)
{
    rng = rng * 1103515245u + 12345u;
    return (uint8_t)(rng >> 16);
}

static uint32_t mk_cb(const ub_opts *o, uint8_t *blk, const char *lch, unsigned flits)
{
    memset(blk, 0, flits * 20);
    ub_hex(lch, blk, 4);
    ub_frame_dllcb(o, blk, flits);
    return flits * 20;
}

static uint32_t mk_dlldp(const ub_opts *o, uint8_t *out, unsigned len, uint8_t cfg)
{
    static uint8_t pkt[10240];
    for (unsigned i = 0; i < len; i++) pkt[i] = rnd8();
    uint8_t lph[4] = { 0x00, cfg, 0x00, 0x00 };
    long n = ub_frame_dlldp(o, lph, pkt, len, false, out, 512 * 20);
    return n > 0 ? (uint32_t)n : 0;
}

static bool same_units(const sink *a, const sink *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (a->u[i].len != b->u[i].len || memcmp(a->u[i].b, b->u[i].b, a->u[i].len) != 0) return false;
    return true;
}

/* feed `st` as records cut at the flit offsets in cuts[] (ascending, excluding 0 and the end) */
static void feed_cuts(const ub_opts *o, const uint8_t *st, uint32_t len, const uint32_t *cuts, int ncuts,
                      ub_stream *s)
{
    ub_stream_init(s, o);
    S.n = 0;
    uint32_t prev = 0;
    for (int i = 0; i <= ncuts; i++) {
        uint32_t end = i < ncuts ? cuts[i] : len;
        S.rec = st + prev;
        S.rec_len = end - prev;
        ub_stream_feed(s, st + prev, end - prev, on_unit, &S);
        prev = end;
    }
    S.rec = NULL;
    ub_stream_flush(s, on_unit, &S);
}

static unsigned dll_errs(const ub_view *v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < v->nerrs; i++) {
        unsigned h = v->err[i].hdr;
        n += h == UB_H_NONE || (h >= UB_H_LPH && h <= UB_H_LNA);
    }
    return n;
}

static uint8_t ST[4096 * 20];
static ub_stream STR;

/* A stream with: Null, DLLDP A (5 flits) with a Retry_Idle inside its 3rd flit slot (CRC mode only),
 * Crd_Ack, DLLDP B (1000 B, 51 flits) with an Init Block between its two DLLDBs, Param_Exchg (5),
 * DLLDP C (1 flit). */
static uint32_t build_stream(const ub_opts *o, bool retry_inside)
{
    static uint8_t a[512 * 20], b[512 * 20], c[20], t[32 * 20];
    uint32_t n = 0, k;
    W.n = 0;
    k = mk_cb(o, t, "02 00 00 00", 1);
    memcpy(ST + n, t, k); n += k; want(t, k);
    uint32_t la = mk_dlldp(o, a, 88, 0x09);
    CHECK_EQ(la, 100);
    if (retry_inside) {
        memcpy(ST + n, a, 40); n += 40;
        k = mk_cb(o, t, "02 00 10 00", 1);
        memcpy(ST + n, t, k); n += k; want(t, k);
        memcpy(ST + n, a + 40, 60); n += 60;
    } else {
        memcpy(ST + n, a, la); n += la;
    }
    want(a, la);
    k = mk_cb(o, t, "06 00 24 81", 2);
    memcpy(ST + n, t, k); n += k; want(t, k);
    uint32_t lb = mk_dlldp(o, b, 1000, 0x06);
    CHECK_EQ(lb, 1020);
    memcpy(ST + n, b, 640); n += 640;
    k = mk_cb(o, t, "12 00 c8 00", 5);
    memcpy(ST + n, t, k); n += k; want(t, k);
    memcpy(ST + n, b + 640, lb - 640); n += lb - 640;
    want(b, lb);
    k = mk_cb(o, t, "12 00 30 00", 5);
    memcpy(ST + n, t, k); n += k; want(t, k);
    uint32_t lc = mk_dlldp(o, c, 12, 0x09);
    CHECK_EQ(lc, 20);
    memcpy(ST + n, c, lc); n += lc; want(c, lc);
    return n;
}

static void check_every_split(const ub_opts *o, bool retry_inside)
{
    uint32_t len = build_stream(o, retry_inside);
    uint32_t nfl = len / 20;
    /* one record: every unit emitted, undisturbed ones zero-copy */
    feed_cuts(o, ST, len, NULL, 0, &STR);
    CHECK(same_units(&S, &W));
    CHECK_EQ(STR.resyncs, 0);
    CHECK_EQ(STR.units, (uint64_t)W.n);
    for (int i = 0; i < S.n; i++) {
        CHECK_EQ(S.u[i].flags, 0);
        /* DLLDP B (interrupted by the Init Block) and DLLDP A (interrupted by Retry_Idle) are copied */
        bool interrupted = S.u[i].len == 1020 || (retry_inside && S.u[i].len == 100 && S.u[i].b[1] == 0x09);
        CHECK_EQ(S.u[i].in_rec, !interrupted);
    }
    /* every unit decodes cleanly as a USER0 record */
    for (int i = 0; i < S.n; i++) {
        ub_decode(&V, o, UB_ENTRY_FLIT, S.u[i].b, S.u[i].len);
        CHECK_EQ(dll_errs(&V), 0);
    }
    /* every single split point */
    int bad = 0, badflags = 0;
    for (uint32_t k = 1; k < nfl; k++) {
        uint32_t cut = k * 20;
        feed_cuts(o, ST, len, &cut, 1, &STR);
        bad += !same_units(&S, &W) || STR.resyncs != 0;
        for (int i = 0; i < S.n; i++) badflags += (S.u[i].flags & UB_UNIT_PARTIAL) != 0;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(badflags, 0);
    /* every pair of split points */
    bad = 0;
    for (uint32_t k1 = 1; k1 < nfl; k1 += 1) {
        for (uint32_t k2 = k1 + 1; k2 < nfl; k2 += 3) {
            uint32_t cuts[2] = { k1 * 20, k2 * 20 };
            feed_cuts(o, ST, len, cuts, 2, &STR);
            bad += !same_units(&S, &W) || STR.resyncs != 0;
        }
    }
    CHECK_EQ(bad, 0);
    /* one flit per record */
    {
        static uint32_t cuts[4096];
        for (uint32_t k = 1; k < nfl; k++) cuts[k - 1] = k * 20;
        feed_cuts(o, ST, len, cuts, (int)nfl - 1, &STR);
        CHECK(same_units(&S, &W));
        int spanned = 0;
        for (int i = 0; i < S.n; i++) spanned += (S.u[i].flags & UB_UNIT_SPANNED) != 0;
        /* multi-flit units: DLLDP A, Crd_Ack, Init, DLLDP B, Param_Exchg */
        CHECK_EQ(spanned, 5);
    }
    /* random record sizes */
    bad = 0;
    for (int rep = 0; rep < 200; rep++) {
        static uint32_t cuts[4096];
        int nc = 0;
        uint32_t k = 0;
        for (;;) {
            k += 1 + rnd8() % 9;
            if (k >= nfl) break;
            cuts[nc++] = k * 20;
        }
        feed_cuts(o, ST, len, cuts, nc, &STR);
        bad += !same_units(&S, &W);
    }
    CHECK_EQ(bad, 0);
}

static void test_resync(void)
{
    uint32_t len = build_stream(&O, false);
    /* garbage flit (CFG 1) between units */
    static uint8_t g[sizeof ST];
    memcpy(g, ST, 20);
    memset(g + 20, 0, 20);
    g[21] = 0x01;
    memcpy(g + 40, ST + 20, len - 20);
    feed_cuts(&O, g, len + 20, NULL, 0, &STR);
    CHECK(same_units(&S, &W));
    CHECK_EQ(STR.resyncs, 1);

    /* stream cut inside DLLDP B: flush emits the partial DLLDP */
    uint32_t cut_at = 20 + 100 + 40 + 640 + 100 + 200; /* Null, A, Crd_Ack, B block 0, Init, 10 flits of B */
    feed_cuts(&O, ST, cut_at, NULL, 0, &STR);
    CHECK_EQ(S.n, 5);
    if (S.n == 5) {
        CHECK_EQ(S.u[4].flags, UB_UNIT_PARTIAL);
        CHECK_EQ(S.u[4].len, 640 + 200);
        ub_decode(&V, &O, UB_ENTRY_FLIT, S.u[4].b, S.u[4].len);
        bool lenerr = false;
        for (unsigned i = 0; i < V.nerrs; i++) lenerr |= V.err[i].code == UB_E_LENGTH;
        CHECK(lenerr);
    }
    /* cut inside the Init Block that sits inside DLLDP B: both partial */
    cut_at = 20 + 100 + 40 + 640 + 60;
    feed_cuts(&O, ST, cut_at, NULL, 0, &STR);
    CHECK_EQ(S.n, 5);
    if (S.n == 5) {
        CHECK_EQ(S.u[3].flags, UB_UNIT_PARTIAL);
        CHECK_EQ(S.u[4].flags, UB_UNIT_PARTIAL);
        CHECK_EQ(S.u[3].len + S.u[4].len, 640 + 60);
    }
    /* partial flit at a record end is dropped and counted */
    ub_stream_init(&STR, &O);
    S.n = 0;
    ub_stream_feed(&STR, ST, 30, on_unit, &S);
    CHECK_EQ(S.n, 1);
    CHECK_EQ(STR.resyncs, 1);

    /* an open DLLCB is held in buf (have counts it) and completes in the next record */
    {
        static uint8_t cb2[40];
        mk_cb(&O, cb2, "06 00 24 81", 2);
        ub_stream_init(&STR, &O);
        S.n = 0;
        ub_stream_feed(&STR, cb2, 20, on_unit, &S);
        CHECK_EQ(S.n, 0);
        CHECK_EQ(STR.have, 20);
        ub_stream_feed(&STR, cb2 + 20, 20, on_unit, &S);
        CHECK_EQ(S.n, 1);
        CHECK_EQ(STR.have, 0);
        CHECK_EQ(STR.need, 0);
        if (S.n == 1) {
            CHECK_EQ(S.u[0].flags, UB_UNIT_SPANNED);
            CHECK(memcmp(S.u[0].b, cb2, 40) == 0);
        }
    }

    /* Retry_Ack inside a block: the partial block is dropped, the replay is delimited */
    static uint8_t a[100], t[20], r[20];
    static uint8_t st[400];
    uint32_t n = 0;
    mk_dlldp(&O, a, 88, 0x09);
    mk_cb(&O, t, "02 00 10 00", 1);
    mk_cb(&O, r, "02 00 12 00", 1);
    memcpy(st + n, a, 40); n += 40;
    memcpy(st + n, t, 20); n += 20;
    memcpy(st + n, r, 20); n += 20;
    memcpy(st + n, r, 20); n += 20;
    memcpy(st + n, a, 100); n += 100;
    for (uint32_t k = 0; k <= n / 20; k++) {
        uint32_t cut = k * 20;
        feed_cuts(&O, st, n, &cut, (k > 0 && k < n / 20) ? 1 : 0, &STR);
        CHECK_EQ(S.n, 4);
        if (S.n == 4) {
            CHECK_EQ(S.u[0].len, 20);
            CHECK(memcmp(S.u[0].b, t, 20) == 0);
            CHECK(memcmp(S.u[1].b, r, 20) == 0);
            CHECK(memcmp(S.u[2].b, r, 20) == 0);
            CHECK_EQ(S.u[3].len, 100);
            CHECK(memcmp(S.u[3].b, a, 100) == 0);
        }
        CHECK_EQ(STR.resyncs, 1);
    }

    /* hostile: random flits never crash and never emit more bytes than fed */
    static uint8_t rnd[300 * 20];
    for (int rep = 0; rep < 300; rep++) {
        uint32_t nf = 1 + rnd8() % 300;
        for (uint32_t i = 0; i < nf * 20; i++) rnd[i] = rnd8();
        for (uint32_t i = 0; i < nf; i++) {
            uint8_t sel = rnd8() & 3;
            if (sel == 0) rnd[i * 20 + 1] &= 0xF0;                           /* LCH */
            else if (sel == 1) rnd[i * 20 + 1] = (uint8_t)((rnd[i * 20 + 1] & 0xF0) | 6); /* LPH/LBH */
        }
        ub_stream_init(&STR, &O);
        S.n = 0;
        uint32_t pos = 0;
        while (pos < nf * 20) {
            uint32_t k = (1 + rnd8() % 40) * 20;
            if (k > nf * 20 - pos) k = nf * 20 - pos;
            S.rec = rnd + pos;
            S.rec_len = k;
            ub_stream_feed(&STR, rnd + pos, k, on_unit, &S);
            pos += k;
        }
        ub_stream_flush(&STR, on_unit, &S);
        uint64_t tot = 0;
        for (int i = 0; i < S.n; i++) tot += S.u[i].len;
        if (S.n < MAXU) CHECK(tot <= nf * 20);
    }
}

int main(void)
{
    ub_opts_default(&O);
    check_every_split(&O, true);
    ub_opts on = O;
    on.crc_mode = false;
    check_every_split(&on, false);
    test_resync();
    return ub_test_finish();
}
