/* State engine, packet extraction (state.c, ub_state_extract): the layers of interest are placed through
 * a table per header id without a branch per layer. Checked against the plain per-layer rules they
 * implement (the last layer of each kind; the first IP, UDP and payload; the last bad BCRC else the
 * first; crc_bad from any bad BCRC/ICRC; payload_len the sum of the payload layers' wire lengths)
 * on hand-made layer sequences and on every unit of the bundled captures. The layer-dispatch memo
 * (ub_xplan, by ub_view.tid) gives the same packet, byte for byte, as the extraction without it. */
#include "pktship.h"
#include "ubparse/capfile.h"
#include "ubtest.h"

#include <stdlib.h>

/* the rules, layer by layer (the extraction before the table) */
typedef struct ref {
    const ub_layer *lph, *lch, *dllcb, *lna, *bcrc, *end, *nth, *nthip, *ip, *udp, *icrc, *rtph, *utph, *ctph, *cetph,
        *saetph, *btah, *atah, *maetah, *mtetah, *udetah, *taidetah, *ofstetah, *immetah, *ntfetah, *beetah, *tvetah,
        *mgmtetah, *scanhdr, *scan_rpath, *scanpdu, *payload, *cci;
    bool crc_bad;
    uint8_t nb;
    uint32_t payload_len;
} ref;

static void ref_extract(const ub_view *v, ref *p)
{
    memset(p, 0, sizeof *p);
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        if (l->flags & UB_LF_QUOTED) continue; /* the datagram an ICMP error quotes: not a packet of this link */
        switch (l->hdr->id) {
        case UB_H_LPH: p->lph = l; break;
        case UB_H_LCH: p->lch = l; break;
        case UB_H_BCRC:
            if (!p->bcrc || l->status == UB_CK_BAD) p->bcrc = l;
            if (l->status == UB_CK_BAD) p->crc_bad = true;
            break;
        case UB_H_END: p->end = l; break;
        case UB_H_LNA: p->lna = l; break;
        case UB_H_NTH16: case UB_H_NTH24: p->nth = l; break;
        case UB_H_NTHIP: p->nthip = l; break;
        case UB_H_CCI_CAQM: case UB_H_CCI_FECN: case UB_H_CCI_FECN_RTT: case UB_H_CCI_RSVD: p->cci = l; break;
        case UB_H_IPV4: case UB_H_IPV6: if (!p->ip) p->ip = l; break;
        case UB_H_UDP: if (!p->udp) p->udp = l; break;
        case UB_H_ICRC:
            p->icrc = l;
            if (l->status == UB_CK_BAD) p->crc_bad = true;
            break;
        case UB_H_RTPH: p->rtph = l; break;
        case UB_H_UTPH: p->utph = l; break;
        case UB_H_CTPH: p->ctph = l; break;
        case UB_H_CETPH_LDCP: case UB_H_CETPH_CAQM: case UB_H_CETPH_CNP: p->cetph = l; break;
        case UB_H_SAETPH: p->saetph = l; break;
        case UB_H_BTAH: case UB_H_BTAH_C: case UB_H_BTAH_ALT: p->btah = l; break;
        case UB_H_ATAH: case UB_H_ATAH_C: p->atah = l; break;
        case UB_H_MAETAH: case UB_H_MAETAH_C: p->maetah = l; break;
        case UB_H_MTETAH: p->mtetah = l; break;
        case UB_H_UDETAH: p->udetah = l; break;
        case UB_H_TAIDETAH: p->taidetah = l; break;
        case UB_H_OFSTETAH: p->ofstetah = l; break;
        case UB_H_IMMETAH: p->immetah = l; break;
        case UB_H_NTFETAH: p->ntfetah = l; break;
        case UB_H_BEETAH: p->beetah = l; break;
        case UB_H_TVETAH: p->tvetah = l; break;
        case UB_H_MGMTETAH: p->mgmtetah = l; break;
        case UB_H_SCANHDR: p->scanhdr = l; break;
        case UB_H_SCAN_RPATH: p->scan_rpath = l; break;
        case UB_H_SCANPDU_REQ: case UB_H_SCANPDU_RSP: p->scanpdu = l; break;
        case UB_H_IB_BTH: case UB_H_SUE_RH: p->nb = 1; break;
        case UB_H_PAYLOAD: case UB_H_ATOMIC_OPS: if (!p->payload) p->payload = l; p->payload_len += l->wlen; break;
        default:
            if (l->hdr->id >= UB_H_DLLCB_NULL && l->hdr->id <= UB_H_DLLCB_RSVD) p->dllcb = l;
        }
    }
}

static unsigned compared, addrs;

/* the address as ub_field_value gives it (the handle's field in layer l's table) */
static void ref_addr(const ub_layer *l, const char *abbrev, ub_addr *a)
{
    const ub_hdr *h[8];
    const ub_field *f[8];
    size_t n = ub_field_find(abbrev, h, f, 8);
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < n; i++) {
        ub_val v;
        if (h[i] != l->hdr || !f[i] || ub_field_value(l, f[i], &v) != 0) continue;
        if (f[i]->type == UB_FT_UINT) {
            a->len = (uint8_t)((f[i]->bits + 7) / 8);
            for (unsigned k = 0; k < a->len; k++) a->b[k] = (uint8_t)(v.u >> (8 * (a->len - 1 - k)));
        } else {
            a->len = (uint8_t)(v.nbytes > 16 ? 16 : v.nbytes);
            memcpy(a->b, v.bytes, a->len);
        }
        return;
    }
}
/* an EID as ub_field_value gives it (byte strings folded as state.c does) */
static uint64_t ref_eid(const ub_layer *l, const char *abbrev)
{
    const ub_hdr *h[8];
    const ub_field *f[8];
    size_t n = ub_field_find(abbrev, h, f, 8);
    for (size_t i = 0; i < n; i++) {
        ub_val v;
        if (h[i] != l->hdr || !f[i]) continue;
        if (ub_field_value(l, f[i], &v) != 0) return 0;
        if (f[i]->type == UB_FT_UINT) return v.u;
        uint64_t x = 0;
        for (uint32_t k = 0; k < v.nbytes; k++) x = x * 131 + v.bytes[k];
        return x;
    }
    return 0;
}
static unsigned eids;
static void check_addr(const ub_addr *got, const ub_addr *want)
{
    CHECK_EQ(got->len, want->len);
    CHECK(memcmp(got->b, want->b, want->len) == 0);
    addrs++;
}

/* every layer pointer of ub_pkt (before the BTAH/ATAH answer rule of ub_state_extract moves them) */
static void compare(ub_state *s, const ub_view *v)
{
    ref r;
    ub_pkt p;
    ub_pktinfo pi = { 1, 0, 0, 0 };
    ref_extract(v, &r);
    ub_state_extract(s, NULL, v, &pi, &p);
#define SAME(m) CHECK(p.m == r.m)
    SAME(lph); SAME(lch); SAME(dllcb); SAME(lna); SAME(bcrc); SAME(end); SAME(nth); SAME(nthip); SAME(ip);
    SAME(udp); SAME(icrc); SAME(rtph); SAME(utph); SAME(ctph); SAME(cetph); SAME(saetph); SAME(maetah);
    SAME(mtetah); SAME(udetah); SAME(taidetah); SAME(ofstetah); SAME(immetah); SAME(ntfetah); SAME(beetah);
    SAME(tvetah); SAME(mgmtetah); SAME(scanhdr); SAME(scan_rpath); SAME(scanpdu); SAME(payload); SAME(cci);
    SAME(crc_bad); SAME(nb); SAME(payload_len);
#undef SAME
    /* the endpoint addresses: the NTH's CNAs, else the first IP header's (IPv6: 16 bytes) */
    if (r.nth || r.ip) {
        const bool v4 = r.ip && r.ip->hdr->id == UB_H_IPV4;
        ub_addr a;
        ref_addr(r.nth ? r.nth : r.ip, r.nth ? "ub.nth.scna" : v4 ? "ub.ipv4.src" : "ub.ipv6.src", &a);
        check_addr(&p.src, &a);
        ref_addr(r.nth ? r.nth : r.ip, r.nth ? "ub.nth.dcna" : v4 ? "ub.ipv4.dst" : "ub.ipv6.dst", &a);
        check_addr(&p.dst, &a);
    } else {
        CHECK(p.src.len == 0 && p.dst.len == 0);
    }
    const ub_layer *eidh = NULL;
    for (unsigned i = 0; i < v->nlayers; i++)
        if (v->layer[i].hdr->id == UB_H_EIDH40 || v->layer[i].hdr->id == UB_H_EIDH256) eidh = &v->layer[i];
    CHECK_EQ(p.seid, eidh ? ref_eid(eidh, "ub.eidh.seid") : 0);
    CHECK_EQ(p.deid, eidh ? ref_eid(eidh, "ub.eidh.deid") : 0);
    eids += eidh != NULL;
    /* a BTAH stays unless it answers (ns-3-UB D12) or follows a transport ack (D13) */
    if (r.btah && !(r.rtph && p.sum.rt_op >= 2)) CHECK(p.btah == r.btah || p.atah == r.btah);
    if (!r.btah) CHECK(p.btah == NULL);
    compared++;
}

/* a hand-made sequence of headers: ids, checksum status (B = bad), wire lengths */
static void synth(ub_state *s, ub_view *v, const unsigned *ids, const char *st, const uint32_t *wlen, unsigned n)
{
    static const uint8_t zero[64];
    ub_view_init(v);
    v->nlayers = (uint16_t)n;
    for (unsigned i = 0; i < n; i++) {
        ub_layer *l = &v->layer[i];
        memset(l, 0, sizeof *l);
        l->hdr = ub_hdr_get(ids[i]);
        l->data = zero;
        l->len = 0;
        l->status = st[i] == 'B' ? UB_CK_BAD : st[i] == 'G' ? UB_CK_GOOD : UB_CK_NOT_PRESENT;
        l->wlen = wlen ? wlen[i] : 0;
    }
    compare(s, v);
}

int main(void)
{
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    ub_state *s = ub_state_new(&c, NULL, NULL);
    CHECK(s != NULL);
    if (!s) return ub_test_finish();
    ub_view *v = malloc(sizeof *v);
    ub_pkt p;
    ub_pktinfo pi = { 1, 0, 0, 0 };

    /* several BCRCs: the first while all are good, else the last bad one; any bad one marks the packet */
    {
        unsigned ids[] = { UB_H_BCRC, UB_H_BCRC, UB_H_BCRC, UB_H_BCRC };
        synth(s, v, ids, "GBGB", NULL, 4);
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.bcrc == &v->layer[3]);
        CHECK_EQ(p.crc_bad, 1);
        synth(s, v, ids, "GBGG", NULL, 4);
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.bcrc == &v->layer[1]);
        synth(s, v, ids, "GGGG", NULL, 4);
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.bcrc == &v->layer[0]);
        CHECK_EQ(p.crc_bad, 0);
    }
    /* the first IP and UDP (tunnels), the last ICRC, payload and atomic operands summed, the first kept */
    {
        unsigned ids[] = { UB_H_IPV4, UB_H_UDP, UB_H_IPV6, UB_H_UDP, UB_H_ATOMIC_OPS, UB_H_PAYLOAD, UB_H_ICRC, UB_H_ICRC };
        uint32_t wl[] = { 20, 8, 40, 8, 16, 1000, 4, 4 };
        synth(s, v, ids, "--------", wl, 8);
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.ip == &v->layer[0]);
        CHECK(p.udp == &v->layer[1]);
        CHECK(p.payload == &v->layer[4]);
        CHECK_EQ(p.payload_len, 1016);
        CHECK(p.icrc == &v->layer[7]);
        CHECK_EQ(p.crc_bad, 0);
        synth(s, v, ids, "------BG", wl, 8); /* an earlier bad ICRC still marks the packet */
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.icrc == &v->layer[7]);
        CHECK_EQ(p.crc_bad, 1);
        synth(s, v, ids, "-------B", wl, 8); /* the last ICRC, bad */
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.icrc == &v->layer[7]);
        CHECK_EQ(p.crc_bad, 1);
    }
    /* neighbour headers, DLLCBs (the range and LNA), headers of no interest (status BAD = 0 is their default) */
    {
        unsigned ids[] = { UB_H_ETH, UB_H_IB_BTH, UB_H_DLLCB_NULL, UB_H_LNA, UB_H_DLLCB_RSVD, UB_H_FLITPAD, UB_H_UPIH16 };
        synth(s, v, ids, "BBBBBBB", NULL, 7);
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK_EQ(p.nb, 1);
        CHECK(p.dllcb == &v->layer[4]);
        CHECK(p.lna == &v->layer[3]);
        CHECK_EQ(p.crc_bad, 0);
        CHECK(p.bcrc == NULL && p.icrc == NULL && p.ip == NULL && p.payload == NULL);
        unsigned none[] = { UB_H_ETH };
        synth(s, v, none, "-", NULL, 0); /* no layers at all */
        ub_state_extract(s, NULL, v, &pi, &p);
        CHECK(p.lph == NULL && p.cci == NULL && p.nb == 0 && p.payload_len == 0 && p.upi == UINT32_MAX);
    }

    /* every unit of the bundled captures */
    static const char *const caps[] = { "cfg3_ipv4", "cfg3_plain_ip", "cfg5_netctl", "cfg6_enum", "cfg6_mgmt", "cfg7_rtp", "cfg9_coherent",
                                        "dllcb", "malformed", "multiblock", "stream", "uboe", "urpc", "rocev2_rc",
                                        "sue_std", "pcie_flit", "audit_rtp_lossy", "audit_credit", "audit_mgmt",
                                        "audit_txn_clean", "mixed_eth", "cip", "noncrc", "icmp_ub" };
    ub_opts o;
    ub_opts_default(&o);
    unsigned before = compared;
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/captures/%s.pcapng", UB_SOURCE_DIR, caps[k]);
        ub_capfile *cf = ub_cap_open(path, err, sizeof err);
        CHECK(cf != NULL);
        if (!cf) continue;
        ub_rec r;
        while (ub_cap_next(cf, &r) == 1) {
            ub_decode(v, &o, ub_entry_for_linktype(&o, r.linktype), r.data, r.caplen);
            compare(s, v);
        }
        ub_cap_close(cf);
    }
    CHECK(compared - before > 250);

    /* ICMP errors quoting UB datagrams (icmp_ub): the quotes' UB headers are no packet's (frames 2, 4,
     * 6, 8: the error's own IP, no TP or TA header), the datagrams on the wire (1, 5) are */
    {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/captures/icmp_ub.pcapng", UB_SOURCE_DIR);
        ub_capfile *cf = ub_cap_open(path, err, sizeof err);
        CHECK(cf != NULL);
        ub_rec r;
        unsigned quoted = 0, own = 0;
        while (cf && ub_cap_next(cf, &r) == 1) {
            ub_decode(v, &o, ub_entry_for_linktype(&o, r.linktype), r.data, r.caplen);
            ub_pkt p;
            ub_state_extract(s, NULL, v, &pi, &p);
            const bool q = (v->neigh & UB_VN_QUOTED_UB) != 0;
            CHECK_EQ(q, r.frame == 2 || r.frame == 4 || r.frame == 6 || r.frame == 8);
            if (q) {
                CHECK(p.rtph == NULL && p.utph == NULL && p.btah == NULL && p.maetah == NULL && p.payload == NULL);
                CHECK(p.ip == &v->layer[r.frame == 8 ? 2 : 1] && p.udp == NULL); /* the error's IP (after a tag in 8) */
                quoted++;
            } else if (r.frame == 1 || r.frame == 5) {
                CHECK(p.btah != NULL && (r.frame == 1 ? p.rtph != NULL : p.utph != NULL) && p.udp != NULL);
                own++;
            }
        }
        if (cf) ub_cap_close(cf);
        CHECK_EQ(quoted, 4);
        CHECK_EQ(own, 2);
    }

    /* the memo: views filled from a template (ub_view.tid), each capture read twice (the second pass
     * meets its stacks again), extracted with and without it; the packets must be equal byte for byte */
    ub_view *tv = ub_view_new_tmpl();
    ub_xplan *xp = calloc(UB_XP_SETS, sizeof *xp);
    CHECK(tv && xp);
    unsigned tids = 0, memo = 0, same = 0, all = 0;
    for (size_t k = 0; tv && xp && k < sizeof caps / sizeof caps[0]; k++) {
        for (int pass = 0; pass < 2; pass++) {
            char path[1024], err[256];
            snprintf(path, sizeof path, "%s/captures/%s.pcapng", UB_SOURCE_DIR, caps[k]);
            ub_capfile *cf = ub_cap_open(path, err, sizeof err);
            if (!cf) continue;
            ub_rec r;
            while (ub_cap_next(cf, &r) == 1) {
                ub_decode(tv, &o, ub_entry_for_linktype(&o, r.linktype), r.data, r.caplen);
                bool known = false; /* the memo holds this stack already: the extraction below reads it */
                for (unsigned i = 0; tv->tid && i < UB_XP_SETS; i++) known |= xp[i].tid == tv->tid;
                ub_pkt a, b;
                ub_state_extract(s, xp, tv, &pi, &a);
                ub_state_extract(s, NULL, tv, &pi, &b);
                same += memcmp(&a, &b, sizeof a) == 0;
                all++;
                tids += tv->tid != 0;
                memo += known;
                compare(s, tv);
            }
            ub_cap_close(cf);
        }
    }
    CHECK_EQ(same, all);
    CHECK(tids > 200 && memo > 80);
    printf("memo: %u of %u packets from a template, %u through the memo, %u equal\n", tids, all, memo, same);
    free(xp);
    free(tv);
    CHECK(addrs > 200);
    CHECK(eids > 0);
    printf("%u packets compared, %u addresses, %u EIDHs\n", compared, addrs, eids);
    free(v);
    ub_state_free(s);
    return ub_test_finish();
}
