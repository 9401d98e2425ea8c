/* IP reassembly (ipfrag.c, used by ub_units): a datagram cut into fragments comes back byte for byte as
 * the sender's packet (IPv4: lengths, fragment bits and checksum; IPv6: the fragment header gone),
 * in or out of order, with duplicates, through VLAN tags; what is not collected (no fragment, cut by the
 * snapshot length, past 64 KiB, a middle piece not of whole 8-byte blocks); the bound on open datagrams;
 * and through ub_units, the unit flag and the ip_fragmented error on a UB datagram. */
#include "internal.h"
#include "ubparse/audit.h"
#include "ubtest.h"

#include <stdlib.h>
#include <string.h>

static uint16_t csum(const uint8_t *h, unsigned n)
{
    uint32_t s = 0;
    for (unsigned i = 0; i + 1 < n; i += 2) s += (uint32_t)h[i] << 8 | h[i + 1];
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

/* Ethernet (+ a VLAN tag when tag) + IPv4 (DF as df) + data of n bytes + a 4-byte trailer */
static uint32_t frame4(uint8_t *f, bool tag, bool df, uint16_t id, uint32_t n, bool trailer)
{
    uint32_t o = 12;
    memset(f, 0, 12);
    f[0] = 2; f[6] = 2; f[11] = 1;
    if (tag) { f[o++] = 0x81; f[o++] = 0; f[o++] = 0; f[o++] = 100; }
    f[o++] = 0x08; f[o++] = 0x00;
    uint8_t *ip = f + o;
    memset(ip, 0, 20);
    ip[0] = 0x45; ip[2] = (uint8_t)((20 + n) >> 8); ip[3] = (uint8_t)(20 + n); ip[4] = (uint8_t)(id >> 8); ip[5] = (uint8_t)id;
    ip[6] = df ? 0x40 : 0; ip[8] = 64; ip[9] = 17;
    ip[12] = 192; ip[13] = 168; ip[14] = 1; ip[15] = 1; ip[16] = 192; ip[17] = 168; ip[18] = 1; ip[19] = 2;
    uint16_t c = csum(ip, 20);
    ip[10] = (uint8_t)(c >> 8); ip[11] = (uint8_t)c;
    for (uint32_t i = 0; i < n; i++) ip[20 + i] = (uint8_t)(i * 7 + 3);
    uint32_t len = o + 20 + n;
    if (trailer) { memcpy(f + len, "\xDE\xAD\xBE\xEF", 4); len += 4; }
    return len;
}

/* the fragment of whole frame f (IP at ip) with data [a, b): header copied, lengths, MF, offset, checksum */
static uint32_t frag4(uint8_t *out, const uint8_t *f, uint32_t flen, uint32_t ip, uint32_t a, uint32_t b, bool last)
{
    const uint8_t *h = f + ip;
    uint32_t tot = (uint32_t)h[2] << 8 | h[3];
    memcpy(out, f, ip + 20);
    uint8_t *g = out + ip;
    g[2] = (uint8_t)((20 + b - a) >> 8); g[3] = (uint8_t)(20 + b - a);
    g[6] = (uint8_t)((h[6] & 0x40) | (last ? 0 : 0x20) | (a / 8) >> 8); g[7] = (uint8_t)(a / 8);
    g[10] = g[11] = 0;
    uint16_t c = csum(g, 20);
    g[10] = (uint8_t)(c >> 8); g[11] = (uint8_t)c;
    memcpy(g + 20, h + 20 + a, b - a);
    uint32_t len = ip + 20 + (b - a);
    if (last) { memcpy(out + len, f + ip + tot, flen - ip - tot); len += flen - ip - tot; }
    return len;
}

/* the datagrams given up, as ub_ipfrag_on_lost reports them */
typedef struct { ub_units_lost l[8]; unsigned n; } lostlog;
static void on_lost(void *ctx, const ub_units_lost *l)
{
    lostlog *g = ctx;
    if (g->n < 8) g->l[g->n] = *l;
    g->n++;
}

static void test_v4(void)
{
    static uint8_t f[2048], p[3][2048];
    uint32_t fl = frame4(f, true, false, 0x1234, 300, true);
    uint32_t l0 = frag4(p[0], f, fl, 18, 0, 128, false), l1 = frag4(p[1], f, fl, 18, 128, 256, false),
             l2 = frag4(p[2], f, fl, 18, 256, 300, true);
    ub_ipfrag *t = ub_ipfrag_new(0);
    const uint8_t *o = NULL;
    uint32_t ol = 0;
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, f, fl, &o, &ol), 0); /* whole: not a fragment */
    /* last first, a duplicate, then the rest */
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[2], l2, &o, &ol), 1);
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[0], l0, &o, &ol), 1);
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[0], l0, &o, &ol), 1);
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[1], l1, &o, &ol), 2);
    CHECK_EQ(ol, fl);
    CHECK(o && memcmp(o, f, fl) == 0); /* the sender's frame, the trailer after the last fragment kept */
    /* the datagram is done: its fragments start a new one */
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[1], l1, &o, &ol), 1);
    /* cut by the snapshot length: not collected */
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[0], l0 - 1, &o, &ol), 0);
    /* a middle piece of 100 bytes (not whole blocks): not collected */
    uint32_t lm = frag4(p[2], f, fl, 18, 0, 100, false);
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[2], lm, &o, &ol), 0);
    /* an offset that would end past 64 KiB: not collected */
    memcpy(p[2], p[1], l1);
    p[2][18 + 6] = 0x1F; p[2][18 + 7] = 0xFF; /* offset 8191 x 8 */
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_ETH, p[2], l1, &o, &ol), 0);
    CHECK_EQ(ub_ipfrag_dropped(t), 0);
    ub_ipfrag_free(t);

    /* at most 2 open: a third datagram gives up the least recently used one, and says so */
    t = ub_ipfrag_new(2);
    ub_opts uo;
    ub_opts_default(&uo);
    lostlog lg = { .n = 0 };
    ub_ipfrag_on_lost(t, &uo, on_lost, &lg);
    uint8_t g[3][2048], q[3][2][2048];
    uint32_t gl[3], ql[3][2];
    for (int k = 0; k < 3; k++) {
        gl[k] = frame4(g[k], false, true, (uint16_t)(100 + k), 64, false);
        if (k == 0) { g[k][14 + 20 + 2] = 0x12; g[k][14 + 20 + 3] = 0xB8; } /* its UDP destination port: 4792 */
        ql[k][0] = frag4(q[k][0], g[k], gl[k], 14, 0, 32, false);
        ql[k][1] = frag4(q[k][1], g[k], gl[k], 14, 32, 64, true);
        CHECK_EQ(ub_ipfrag_add(t, (uint64_t)k + 1, UB_ENTRY_ETH, q[k][0], ql[k][0], &o, &ol), 1); /* frames 1 2 3 */
    }
    CHECK_EQ(ub_ipfrag_dropped(t), 1);
    CHECK_EQ(lg.n, 1); /* the first datagram, to the UB port, given up for the third */
    CHECK(lg.l[0].evicted && lg.l[0].ub);
    CHECK_EQ(lg.l[0].first_frame, 1);
    CHECK_EQ(lg.l[0].last_frame, 1);
    CHECK_EQ(lg.l[0].fragments, 1);
    CHECK_EQ(lg.l[0].bytes, 32);
    CHECK_EQ(lg.l[0].ident, 100);
    CHECK_EQ(lg.l[0].ver, 4);
    CHECK_EQ(lg.l[0].proto, 17);
    CHECK(strcmp(lg.l[0].src, "192.168.1.1") == 0 && strcmp(lg.l[0].dst, "192.168.1.2") == 0);
    CHECK_EQ(ub_ipfrag_add(t, 4, UB_ENTRY_ETH, q[0][1], ql[0][1], &o, &ol), 1); /* its first piece was given up */
    CHECK_EQ(lg.n, 2); /* ... and the second datagram with it (not to a UB port) */
    CHECK(lg.l[1].evicted && !lg.l[1].ub);
    CHECK_EQ(lg.l[1].first_frame, 2);
    CHECK_EQ(lg.l[1].ident, 101);
    CHECK_EQ(ub_ipfrag_add(t, 5, UB_ENTRY_ETH, q[2][1], ql[2][1], &o, &ol), 2);
    CHECK_EQ(ol, gl[2]);
    CHECK(memcmp(o, g[2], gl[2]) == 0); /* DF kept as the fragments had it */
    CHECK_EQ(lg.n, 2); /* a datagram made whole is not given up */
    /* the end: the one still open (the first datagram's last piece, its first never seen) */
    ub_ipfrag_flush(t);
    CHECK_EQ(lg.n, 3);
    CHECK(!lg.l[2].evicted && !lg.l[2].ub);
    CHECK_EQ(lg.l[2].first_frame, 0);
    CHECK_EQ(lg.l[2].last_frame, 4);
    CHECK_EQ(lg.l[2].bytes, 32);
    CHECK_EQ(ub_ipfrag_lost(t), 3);
    ub_ipfrag_flush(t); /* nothing left */
    CHECK_EQ(lg.n, 3);
    ub_ipfrag_free(t);
}

static void test_v6(void)
{
    /* raw IPv6 + UDP-like data of 96 bytes; its fragments carry a fragment header after the IPv6 header */
    uint8_t w[40 + 96], fr[2][256];
    memset(w, 0, sizeof w);
    w[0] = 0x60; w[5] = 96; w[6] = 17; w[7] = 64; w[8] = 0xfd; w[23] = 1; w[24] = 0xfd; w[39] = 2;
    for (int i = 0; i < 96; i++) w[40 + i] = (uint8_t)(i ^ 0x5a);
    uint32_t fl[2];
    for (int k = 0; k < 2; k++) {
        uint32_t a = k ? 48 : 0, b = k ? 96 : 48;
        memcpy(fr[k], w, 40);
        fr[k][4] = 0; fr[k][5] = (uint8_t)(8 + b - a); fr[k][6] = 44;
        uint8_t fh[8] = { 17, 0, (uint8_t)(a >> 8), (uint8_t)((a & 0xF8) | (k ? 0 : 1)), 0, 0, 0, 9 };
        memcpy(fr[k] + 40, fh, 8);
        memcpy(fr[k] + 48, w + 40 + a, b - a);
        fl[k] = 48 + b - a;
    }
    ub_ipfrag *t = ub_ipfrag_new(0);
    const uint8_t *o = NULL;
    uint32_t ol = 0;
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_RAWIP, w, sizeof w, &o, &ol), 0);
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_RAWIP, fr[1], fl[1], &o, &ol), 1);
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_RAWIP, fr[0], fl[0], &o, &ol), 2);
    CHECK_EQ(ol, sizeof w);
    CHECK(o && memcmp(o, w, sizeof w) == 0);
    /* an atomic fragment (offset 0, M 0, RFC 6946) is whole */
    fr[0][43] = 0;
    CHECK_EQ(ub_ipfrag_add(t, 0, UB_ENTRY_RAWIP, fr[0], fl[0], &o, &ol), 0);
    ub_ipfrag_free(t);
}

/* through ub_units: the completing record is one unit flagged UB_UNIT_REASSEMBLED; off, every record is its own */
typedef struct { unsigned n, flags[8]; uint32_t len[8]; } seen;
static void unit_fn(void *ctx, const ub_rec *r, const uint8_t *unit, uint32_t len, ub_entry e, unsigned flags)
{
    seen *s = ctx;
    (void)r; (void)unit; (void)e;
    if (s->n < 8) { s->flags[s->n] = flags; s->len[s->n] = len; }
    s->n++;
}

static void test_units(void)
{
    static uint8_t f[2048], p[2][2048];
    uint32_t fl = frame4(f, false, true, 7, 200, false);
    uint32_t l0 = frag4(p[0], f, fl, 14, 0, 104, false), l1 = frag4(p[1], f, fl, 14, 104, 200, true);
    ub_opts o;
    ub_opts_default(&o);
    CHECK(o.ip_defrag);
    for (int on = 1; on >= 0; on--) {
        ub_units *u = ub_units_new(&o, 0);
        if (!on) ub_units_defrag(u, false);
        seen s = { 0 };
        ub_rec r = { .data = p[0], .caplen = l0, .origlen = l0, .linktype = 1, .frame = 1 };
        ub_units_record(u, &r, unit_fn, &s);
        r = (ub_rec){ .data = p[1], .caplen = l1, .origlen = l1, .linktype = 1, .frame = 2 };
        ub_units_record(u, &r, unit_fn, &s);
        CHECK_EQ(s.n, 2);
        CHECK_EQ(s.flags[0], 0);
        CHECK_EQ(s.flags[1], on ? UB_UNIT_REASSEMBLED : 0);
        CHECK_EQ(s.len[1], on ? fl : l1);
        ub_units_free(u);
    }
    /* a UB datagram whose last fragment never comes: given up at the end (ub_units_flush), and in an
     * audit UB-NW-003 at its first fragment's frame */
    {
        uint8_t d0[2048];
        memcpy(d0, p[0], l0);
        d0[14 + 20 + 2] = 0x12; d0[14 + 20 + 3] = 0xB8; /* UDP destination port 4792 */
        ub_units *u = ub_units_new(&o, 0);
        lostlog lg = { .n = 0 };
        ub_units_on_lost(u, on_lost, &lg);
        seen s = { 0 };
        ub_rec r = { .data = d0, .caplen = l0, .origlen = l0, .linktype = 1, .frame = 5 };
        ub_units_record(u, &r, unit_fn, &s);
        r.frame = 6; /* a copy of it: the finding stays at the first */
        ub_units_record(u, &r, unit_fn, &s);
        CHECK_EQ(s.n, 2); /* each fragment is its own unit */
        CHECK_EQ(lg.n, 0);
        ub_units_flush(u, unit_fn, &s);
        CHECK_EQ(lg.n, 1);
        CHECK(lg.l[0].ub && !lg.l[0].evicted);
        CHECK_EQ(lg.l[0].first_frame, 5);
        CHECK_EQ(lg.l[0].last_frame, 6);
        CHECK_EQ(lg.l[0].fragments, 2);
        CHECK_EQ(lg.l[0].bytes, 208);
        CHECK_EQ(ub_units_defrag_lost(u), 1);
        ub_units_free(u);
        char err[128];
        ub_audit_cfg ac;
        ub_audit_cfg_default(&ac);
        ub_audit *a = ub_audit_new(&ac, err, sizeof err);
        CHECK(a != NULL);
        ub_audit_ip_lost(a, &lg.l[0]);
        lg.l[0].ub = false; /* not to a UB port: nothing */
        ub_audit_ip_lost(a, &lg.l[0]);
        CHECK_EQ(ub_audit_finish(a), 0);
        const ub_rule *nw3 = ub_rule_by_id("UB-NW-003");
        const unsigned ri = (unsigned)(nw3 - ub_rule_get(0));
        CHECK_EQ(ub_collect_rule_total(ub_audit_findings(a), ri), 1);
        unsigned ne = 0;
        const ub_finding *fe = ub_collect_examples(ub_audit_findings(a), ri, &ne);
        CHECK(ne == 1 && fe && fe[0].frame == 5 && fe[0].values[0] == 2 && fe[0].values[1] == 208);
        CHECK(fe && fe[0].nframes == 1 && fe[0].frames[0] == 6);
        CHECK(fe && strcmp(fe[0].keytext, "192.168.1.1->192.168.1.2 ID 0x7") == 0);
        ub_audit_free(a);
    }
    /* the error on a UB datagram, at its IP header; none on another */
    ub_view *v = ub_view_new_tmpl();
    uint8_t d[2048];
    memcpy(d, f, fl);
    d[14 + 20 + 2] = 0x12; d[14 + 20 + 3] = 0xB8; /* UDP destination port 4792 */
    ub_decode(v, &o, UB_ENTRY_ETH, d, fl);
    unsigned before = v->nerrs;
    ub_unit_errors(v, UB_UNIT_REASSEMBLED, fl);
    CHECK_EQ(v->nerrs, before + (ub_view_ub(v) ? 1u : 0u));
    CHECK(ub_view_ub(v));
    CHECK_EQ(v->err[v->nerrs - 1].code, UB_E_IP_FRAGMENTED);
    CHECK_EQ(v->err[v->nerrs - 1].off, 14);
    CHECK_EQ(ub_unit_flags_of(v), UB_UNIT_REASSEMBLED);
    ub_decode(v, &o, UB_ENTRY_ETH, f, fl); /* port 0: not UB */
    before = v->nerrs;
    ub_unit_errors(v, UB_UNIT_REASSEMBLED, fl);
    CHECK_EQ(v->nerrs, before);
    free(v);
}

int main(void)
{
    test_v4();
    test_v6();
    test_units();
    return ub_test_finish();
}
