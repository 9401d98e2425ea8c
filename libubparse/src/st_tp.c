/* State-engine module: network (digest §10.2) and transport (§10.3) rules.
 *
 * TP channel state is kept per data direction: data travels sender -> receiver with (SrcTPN,
 * DstTPN) = (sender TPN, receiver TPN); its acks travel back with the addresses and TPNs swapped.
 * Both are keyed as (sender address, receiver address, sender TPN, receiver TPN), so data and acks
 * meet in one entry (§10.3, §10.6 "Address"). EIDs are not part of the key: transport acks carry
 * no EIDH (§4.9 of the digest), so a key with EIDs could never pair data with its acks.
 *
 * Per channel: the PSN space on the reliable-transport core (rt_seq.c, profile rt_ub_rtp: the highest
 * PSN sent, the cumulative ack, up to RT_GAPS open PSN gaps (§10.6 c), the last TPNAK / TPSACK and a
 * ring of the last RT_RING_N PSNs with first-copy frame and time, A / Last flags and the capture points
 * that saw it), and here the UB parts: TPMSN framing, CFG / network header of data and acks,
 * CETPH Ack_Seq, RNR / Fake. A second small table keeps per address pair what kind of traffic was
 * seen (ack direction captured? only UTP/CTP data?).
 *
 * Capture points: a PSN seen again on another pcapng interface is the same packet at another
 * point of the path, not a retransmission; it is used for the FECN path rule (NW-02) only.
 *
 * Not checked (a capture cannot show it): the receiver's out-of-order window W (TP-04), RTO values
 * (TP-08), the TP MTU of non-last packets (TP-09; not on the wire), CC negotiation, CAQM C counts
 * and CNP ECN vs FECN (TP-14; depend on marks set past the capture point), FECN along a path with a
 * single capture point (NW-02). */
#include "rt_core.h"
#include "sumfmt.h"

#include <stdio.h>

#define PSN_MASK 0xFFFFFFu
#define UPI_UBFM 0x7FFFu        /* App. B.3 Table B-2, §10.4.3.1: UPI reserved for UBFM */

/* RTPH TPOpcode[6:0] (Table 6-2) */
enum { OP_UTP = 0x0, OP_DATA = 0x1, OP_ACK = 0x2, OP_ACK_CC = 0x3, OP_SACK = 0x5, OP_SACK_CC = 0x6, OP_CNP = 0x8 };
/* RSPST (Table 6-2, digest §4.5) */
enum { RSP_OK = 0, RSP_RNR = 1, RSP_PAGE_FAULT = 2, RSP_COMPLETER_ERR = 3, RSP_TA_RESPONSE = 5 };

/* once-per-channel findings */
enum { RP_ACK_CFG = 1, RP_MODE_ACKS = 2, RP_PAIR = 8 };
/* pair flags */
enum { PR_RTP = 1, PR_OTHER = 2, PR_ACKS = 4, PR_RT_ORDER = 8 };

typedef struct tp_chan {
    rt_seq q;           /* the PSN space (rt_core.h) */
    ub_addr src, dst;   /* data sender, data receiver */
    uint32_t stpn, dtpn;
    uint8_t msn_valid, msn_open, rnr_seen, ack_seq_valid, reported;
    uint32_t msn, ack_seq;
    uint32_t data_sig, ack_sig; /* CFG and network header of the first data packet / ack (NW-07) */
    uint64_t data_frame;        /* first data packet */
} tp_chan;

typedef struct tp_pair {
    uint8_t flags;        /* PR_* */
    uint64_t other_frame; /* first UTP/CTP data packet */
} tp_pair;

typedef struct mod_tp {
    ub_tbl chan, pair;
    bool other_valid;             /* cache: the address pair last marked PR_OTHER */
    ub_addr other_src, other_dst;
    ub_fh f_cnp_ecn, f_cnp_loc;
    ub_fh f_utp_op, f_ctp_op;
    ub_fh f_sae_maxrcv, f_sae_bitmap, f_ack_seq;
    ub_fh f_mgmt, f_scan_r, f_mg_rsp, f_mg_code;
    /* the keytexts of the channels of the latest findings (a channel's findings come in runs; the Wireshark
     * plugin keeps every finding with its text): the first 63 characters, as ub_st_emit keeps them */
    struct tp_ktc { ub_addr src, dst; uint32_t stpn, dtpn; uint8_t ok; char kt[64]; } ktc[4];
    unsigned ktc_next;
} mod_tp;

/* a channel and its module, for the core's keytext callback (rt_ctx.obj) */
typedef struct tp_kref { mod_tp *m; const tp_chan *c; } tp_kref;

/* ================================================================ helpers */
static inline uint32_t psn_add(uint32_t a, int32_t d) { return rt_add(&rt_ub_rtp, a, d); }
/* a − b mod 2^24 as a signed distance in [−8M, 8M) */
static inline int32_t psn_diff(uint32_t a, uint32_t b) { return rt_diff(&rt_ub_rtp, a, b); }

static bool rule_on(const ub_state *s, unsigned rule)
{
    if (rule >= UB_R_NW_NLP && rule <= UB_R_NW_UPI) return (s->cfg.layers & UB_ST_NW) != 0;
    if ((rule >= UB_R_TP_HEADER && rule <= UB_R_TP_UNACKED) || rule == UB_R_TP_CNP) return (s->cfg.layers & UB_ST_TP) != 0;
    return true;
}

/* snprintf(buf, n, "%s->%s TPN 0x%x->0x%x", src, dst, stpn, dtpn) of the addresses' ub_addr_str
 * texts, without printf (every finding about a channel formats one) */
static void chan_keytext_fmt(const tp_chan *c, char *buf, size_t n)
{
    char a[48];
    ub_sbuf s = { buf, n, 0 };
    ub_addr_str(&c->src, a, sizeof a);
    ub_sb_str(&s, a);
    ub_sb_lit(&s, "->");
    ub_addr_str(&c->dst, a, sizeof a);
    ub_sb_str(&s, a);
    ub_sb_lit(&s, " TPN 0x");
    ub_sb_hex(&s, c->stpn, 1);
    ub_sb_lit(&s, "->0x");
    ub_sb_hex(&s, c->dtpn, 1);
    ub_sb_end(&s);
}

/* chan_keytext_fmt's text (its first 63 characters: all that ub_st_emit keeps), from the cache when one of
 * the latest findings was about a channel with the same addresses and TPNs (the text is theirs alone) */
static void chan_keytext_m(mod_tp *m, const tp_chan *c, char *buf, size_t n)
{
    struct tp_ktc *e;
    for (unsigned i = 0; i < 4; i++) {
        e = &m->ktc[i];
        if (e->ok && e->stpn == c->stpn && e->dtpn == c->dtpn && ub_addr_same(&e->src, &c->src) && ub_addr_same(&e->dst, &c->dst)) {
            size_t l = strnlen(e->kt, sizeof e->kt - 1);
            if (l >= n) l = n ? n - 1 : 0;
            if (n) { memcpy(buf, e->kt, l); buf[l] = 0; }
            return;
        }
    }
    chan_keytext_fmt(c, buf, n);
    e = &m->ktc[m->ktc_next++ & 3];
    e->src = c->src;
    e->dst = c->dst;
    e->stpn = c->stpn;
    e->dtpn = c->dtpn;
    size_t l = n ? strnlen(buf, n - 1) : 0;
    if (l > sizeof e->kt - 1) l = sizeof e->kt - 1;
    memcpy(e->kt, buf, l);
    e->kt[l] = 0;
    e->ok = n >= sizeof e->kt; /* a shorter buffer may have cut the text */
}

static void chan_keytext(const void *obj, char *buf, size_t n)
{
    const tp_kref *r = obj;
    chan_keytext_m(r->m, r->c, buf, n);
}

/* emit a finding about channel c (NULL: none); other = related frame (0 none) */
static void emit(mod_tp *m, ub_state *s, unsigned rule, int sev, const tp_chan *c, uint64_t frame, uint64_t other, int64_t v0,
                 int64_t v1, unsigned nv, const char *detail)
{
    if (!rule_on(s, rule)) return;
    char kt[160]; /* ub_st_emit keeps the first 63 characters */
    int64_t v[2] = { v0, v1 };
    bool text = c && ub_st_want_text(s, rule, frame);
    if (text) chan_keytext_m(m, c, kt, sizeof kt);
    ub_st_emit(s, rule, sev, frame, &other, other ? 1 : 0, v, nv, detail, c ? "TP channel" : NULL, text ? kt : NULL);
}

static void note(ub_state *s, const ub_pkt *p, uint32_t flags, uint32_t expected)
{
    if (!flags) return;
    ub_pkt_note n = { p->pi->frame, flags, expected & PSN_MASK };
    ub_st_note(s, &n);
}

static bool fh_bytes(const ub_fh *fh, const ub_layer *l, ub_val *v)
{
    if (!l) return false;
    for (unsigned i = 0; i < fh->n; i++)
        if (fh->h[i] == l->hdr) return ub_field_value(l, fh->f[i], v) == 0;
    return false;
}

/* LPH RT[0] = 1: per-packet load balancing (Table 5-7) — this capture point may see one path only */
static bool per_packet_lb(const mod_tp *m, const ub_pkt *p) { (void)m; return p->lph && (p->sum.lph_rt & 1); }

/* §5.3.5.1: FECN 00 not markable, 10 none, 01 light, 11 heavy -> level 1..4 (0 = no FECN CCI) */
static uint8_t fecn_level(const mod_tp *m, const ub_pkt *p)
{
    if (!p->cci || (p->cci->hdr->id != UB_H_CCI_FECN && p->cci->hdr->id != UB_H_CCI_FECN_RTT)) return 0;
    static const uint8_t lvl[4] = { 1, 3, 2, 4 };
    (void)m;
    return lvl[p->sum.cci_fecn & 3]; /* the CCI's FECN (pktsum.h) */
}

/* signature of the network framing of a packet: CFG and NTH/IP header (NW-07); 0 without a CFG
 * (UBoE, SLL without LPH, UDP payload): such records come from another capture point, not compared */
static uint32_t net_sig(const ub_pkt *p)
{
    unsigned h = p->nth ? p->nth->hdr->id : p->ip ? p->ip->hdr->id : 0;
    return p->cfg < 0 ? 0 : (uint32_t)(uint8_t)(p->cfg + 1) << 16 | h;
}

static tp_chan *chan_get(mod_tp *m, ub_state *s, const ub_addr *snd, const ub_addr *rcv, uint32_t stpn,
                         uint32_t dtpn)
{
    ub_key k;
    k.len = 0;
    ub_key_addr(&k, snd);
    ub_key_addr(&k, rcv);
    uint8_t t[6] = { (uint8_t)(stpn >> 16), (uint8_t)(stpn >> 8), (uint8_t)stpn,
                     (uint8_t)(dtpn >> 16), (uint8_t)(dtpn >> 8), (uint8_t)dtpn };
    ub_key_add(&k, t, sizeof t);
    bool created;
    tp_chan *c = ub_tbl_get(&m->chan, &k, &created);
    if (c && created) {
        c->src = *snd;
        c->dst = *rcv;
        c->stpn = stpn;
        c->dtpn = dtpn;
    }
    s->stats.channels = m->chan.count;
    s->stats.evicted_channels = m->chan.evicted;
    return c;
}

static tp_pair *pair_lookup(mod_tp *m, const ub_addr *snd, const ub_addr *rcv, bool create)
{
    ub_key k;
    k.len = 0;
    ub_key_addr(&k, snd);
    ub_key_addr(&k, rcv);
    if (!create) return ub_tbl_find(&m->pair, &k);
    return ub_tbl_get(&m->pair, &k, NULL);
}

/* the core's context for a call about channel c */
static rt_ctx chan_ctx(ub_state *s, const tp_kref *r, const ub_pkt *p, bool as_note)
{
    rt_ctx x = { s, &rt_ub_rtp, p, (s->cfg.layers & UB_ST_TP) != 0, as_note, chan_keytext, r, "TP channel" };
    return x;
}

/* ================================================================ data packets */
static tp_chan *tp_data(mod_tp *m, ub_state *s, const ub_pkt *p)
{
    const ub_pktsum *u = &p->sum; /* the RTPH's values (pktsum.h) */
    uint32_t stpn = u->rt_stpn, dtpn = u->rt_dtpn;
    uint32_t psn = u->rt_psn;
    bool last = u->rt_last != 0, areq = u->rt_a != 0, fake = u->rt_f != 0;
    uint32_t tpmsn = u->rt_tpmsn;
    tp_chan *c = chan_get(m, s, &p->src, &p->dst, stpn, dtpn);
    if (!c) return NULL;
    uint64_t fr = p->pi->frame;
    uint8_t fecn = fecn_level(m, p);

    if (!c->data_sig && net_sig(p)) {
        c->data_sig = net_sig(p);
        c->data_frame = fr;
        if (c->ack_sig && c->ack_sig != c->data_sig && !(c->reported & RP_ACK_CFG)) {
            c->reported |= RP_ACK_CFG;
            emit(m, s, UB_R_NW_ACK_CFG, -1, c, fr, 0, (int64_t)(c->ack_sig >> 16) - 1, p->cfg, 2,
                 "transport acks of this channel used another CFG / network header than its data (§6.2)");
        }
    }
    /* TP-11: a Fake packet only after an ack reporting RNR / transaction resource shortage (§8.2.7.3) */
    if (fake && !c->rnr_seen)
        emit(m, s, UB_R_TP_ACK_REQUIRED, -1, c, fr, 0, psn, 0, 1, "Fake packet (F = 1) without a preceding RNR / resource-shortage ack");

    /* TP-02 .. TP-07 on the core: new PSN, gap, window, resend, reordering, NAK replay, TPSACK */
    tp_kref r = { m, c };
    rt_ctx x = chan_ctx(s, &r, p, s->cfg.gaps_are_notes || per_packet_lb(m, p));
    rt_dres res;
    int kind = rt_seq_data(&x, &c->q, psn, (uint8_t)((areq ? RT_SL_A : 0) | (last ? RT_SL_LAST : 0)), fecn, &res);
    if (kind == RT_COPY) {
        /* the same packet at another capture point: NW-02, FECN only rises along the path */
        const rt_slot *sl = res.copy;
        if (sl->aux >= 2 && fecn >= 1 && fecn < sl->aux)
            emit(m, s, UB_R_NW_CCI, -1, c, fr, sl->frame, fecn - 1, sl->aux - 1, 2,
                 "FECN lower than at an earlier capture point of the same packet (§5.3.5.2)");
        return c;
    }
    /* TP-09 / R-19: packets of one operation share TPMSN, +1 per operation */
    if (kind == RT_NEW && !fake) {
        int32_t d = res.d;
        bool gap = d > 1;
        if (c->msn_valid) {
            uint32_t exp = c->msn_open ? c->msn : psn_add(c->msn, 1);
            int32_t dm = psn_diff(tpmsn, c->msn);
            if (!gap && tpmsn != exp)
                emit(m, s, UB_R_TP_FRAMING, -1, c, fr, 0, tpmsn, exp, 2,
                     c->msn_open ? "TPMSN changed inside an operation (previous packet not Last)"
                                 : "TPMSN does not follow the previous operation's by 1");
            else if (gap && (dm < 0 || dm > d))
                emit(m, s, UB_R_TP_FRAMING, -1, c, fr, 0, tpmsn, exp, 2, "TPMSN moved by more than the packets missing before it");
        }
        c->msn = tpmsn;
        c->msn_open = !last;
        c->msn_valid = 1;
    }
    note(s, p, res.flags, res.expected);
    return c;
}

/* ================================================================ acks (TPACK, TPNAK, TPSACK, -CC) */
static unsigned sack_order(const ub_pkt *p)
{
    const ub_opts *o = p->v->opts;
    if (!o) return 0;
    return ub_pf(o, UB_PF_SACK_LSB) ? 2 : o->bitmap_order;
}

static void tp_ack(mod_tp *m, ub_state *s, const ub_pkt *p, unsigned op, bool nak_op)
{
    const ub_pktsum *u = &p->sum; /* the RTPH's values (pktsum.h) */
    /* the ack travels receiver -> sender: swap to the data direction */
    uint32_t stpn = u->rt_dtpn, dtpn = u->rt_stpn;
    uint32_t psn = u->rt_psn;
    unsigned rspst = u->rt_rspst, rspinfo = u->rt_rspinfo;
    bool sack = op == OP_SACK || op == OP_SACK_CC, cc = op == OP_ACK_CC || op == OP_SACK_CC;
    bool nak = nak_op || (!sack && rspst == RSP_COMPLETER_ERR && rspinfo == 0); /* TPNAK: RSPST 011, PSN Error */
    uint32_t maxrcv = p->saetph ? (uint32_t)ub_fh_get(&m->f_sae_maxrcv, p->saetph) : 0;
    tp_chan *c = chan_get(m, s, &p->dst, &p->src, stpn, dtpn);
    if (!c) return;
    uint64_t fr = p->pi->frame;

    /* the same ack at another capture point: ignore */
    uint64_t sig = (uint64_t)op | (uint64_t)rspst << 8 | (uint64_t)rspinfo << 11 | (uint64_t)psn << 16 | (uint64_t)maxrcv << 40;
    if (rt_seq_ack_copy(&c->q, sig, rt_ifbit(p))) return;

    tp_pair *pr = pair_lookup(m, &p->dst, &p->src, true);
    if (pr) pr->flags |= PR_ACKS;

    /* NW-07: same CFG / network header as the data */
    if (!c->ack_sig) c->ack_sig = net_sig(p);
    if (c->data_sig && net_sig(p) && net_sig(p) != c->data_sig && !(c->reported & RP_ACK_CFG)) {
        c->reported |= RP_ACK_CFG;
        emit(m, s, UB_R_NW_ACK_CFG, -1, c, fr, c->data_frame, p->cfg, (int64_t)(c->data_sig >> 16) - 1, 2,
             "transport ack uses another CFG / network header than the data of its channel (§6.2)");
    }
    /* TP-13 (heuristic, note): ack for a channel without RTP data between addresses that carried only UTP/CTP data */
    if (!c->q.have_data && pr && (pr->flags & (PR_OTHER | PR_RTP)) == PR_OTHER && !(c->reported & RP_MODE_ACKS)) {
        c->reported |= RP_MODE_ACKS;
        emit(m, s, UB_R_TP_MODE_ACKS, UB_SEV_NOTE, c, fr, pr->other_frame, 0, 0, 0,
             "transport ack between addresses that carried only UTP/CTP data in the capture (the channel's data may predate it)");
    }
    /* TP-14: CETPH Ack_Seq is cumulative */
    if (cc && p->cetph && p->cetph->hdr->id != UB_H_CETPH_CNP && ub_fh_has(&m->f_ack_seq, p->cetph)) {
        uint32_t as = (uint32_t)ub_fh_get(&m->f_ack_seq, p->cetph);
        if (c->ack_seq_valid && ((as - c->ack_seq) & 0x80000000u)) /* mod 2^32 */
            emit(m, s, UB_R_TP_CC, -1, c, fr, 0, as, c->ack_seq, 2, "CETPH Ack_Seq decreased");
        else c->ack_seq = as;
        c->ack_seq_valid = 1;
    }
    /* transaction-layer resource shortage carried by the ack: Fake packets may follow (§8.2.7.3) */
    if (!sack && (rspst == RSP_RNR || rspst == RSP_PAGE_FAULT || (rspst == RSP_TA_RESPONSE && rspinfo != 2))) c->rnr_seen = 1;

    /* TP-05 .. TP-07 on the core: cumulative PSN (TPACK/TPSACK: EPSN − 1; TPNAK: EPSN), TPSACK BitMap */
    ub_val bm;
    rt_bitmap b, *bp = NULL;
    if (sack && p->saetph && !(p->saetph->flags & UB_LF_TRUNC) /* (cut by the snapshot length: BitMap not all there) */ &&
        fh_bytes(&m->f_sae_bitmap, p->saetph, &bm) && ub_fh_has(&m->f_sae_maxrcv, p->saetph)) {
        b = (rt_bitmap){ bm.bytes, bm.nbytes, sack_order(p), maxrcv };
        bp = &b;
    }
    tp_kref r = { m, c };
    rt_ctx x = chan_ctx(s, &r, p, per_packet_lb(m, p) || s->cfg.gaps_are_notes);
    uint32_t flags = rt_seq_ack(&x, &c->q, psn, nak, sack, rspst == RSP_OK, op, bp);
    note(s, p, flags, nak ? psn : psn_add(psn, 1));
}

/* ================================================================ network-layer per-packet rules */
static void nw_packet(mod_tp *m, ub_state *s, const ub_pkt *p)
{
    /* MG-06 / NW-09 (§10.4.3.1 items 2 and 6): commands issued by UBFM carry NTH.Mgmt = 1 and UPIH16
     * 0x7FFF (reserved for UBFM), commands issued by a User carry Mgmt = 0 and the User's UPI.
     * Commands = enumeration requests (Scan Header R = 1) and configuration-management requests
     * (MGMTETAH RSP = 0) other than the event reports (Code 000 Error, 001 Link Change), which nodes
     * send to UBFM or a User. Responses and events are not covered by the rule. */
    if (p->cfg == 6 && p->nth && p->upi != UINT32_MAX && (p->scanhdr || p->mgmtetah)) {
        bool req = p->scanhdr ? ub_fh_get(&m->f_scan_r, p->scanhdr) == 1 : ub_fh_get(&m->f_mg_rsp, p->mgmtetah) == 0;
        bool event = !p->scanhdr && ub_fh_get(&m->f_mg_code, p->mgmtetah) <= 1;
        bool upih16 = false;
        for (unsigned i = 0; i < p->v->nlayers && !upih16; i++) upih16 = p->v->layer[i].hdr->id == UB_H_UPIH16;
        if (req && upih16) {
            unsigned mg = (unsigned)ub_fh_get(&m->f_mgmt, p->nth);
            if (mg == 1 && p->upi != UPI_UBFM)
                emit(m, s, UB_R_NW_UPI, -1, NULL, p->pi->frame, 0, p->upi, mg, 2,
                     "command with Mgmt = 1 (issued by UBFM) but a UPI other than 0x7FFF");
            else if (mg == 0 && p->upi == UPI_UBFM && !event)
                emit(m, s, UB_R_NW_UPI, -1, NULL, p->pi->frame, 0, p->upi, mg, 2,
                     "command with UPI 0x7FFF (reserved for UBFM) but Mgmt = 0");
        }
    }
    /* NW-06 (Table 7-14, §7.3.2.2 item 2): ordered requests over CTP / TP Bypass need one path */
    if (p->btah && per_packet_lb(m, p) && (p->tp_kind == UB_TP_CTP || (p->tp_kind == UB_TP_NONE && p->cfg == 9)) &&
        (p->sum.fl & UB_PS_BT_ODR)) {
        unsigned odr = p->sum.bt_odr & 3u; /* the BTAH's ODR (pktsum.h) */
        if (odr == 1 || odr == 2) {
            tp_pair *pr = pair_lookup(m, &p->src, &p->dst, true);
            if (pr && !(pr->flags & PR_RT_ORDER)) {
                pr->flags |= PR_RT_ORDER;
                emit(m, s, UB_R_NW_RT_ORDER, -1, NULL, p->pi->frame, 0, odr, 1, 2,
                     "ordered request (ODR RO/SO) over CTP/TP Bypass with per-packet routing RT[0] = 1 "
                     "(reported once per address pair; ROI/ROT may legitimately use RT[0] = 1)");
            }
        }
    }
}

/* ================================================================ module entry points */
static size_t size_tp(const ub_state_cfg *c)
{
    (void)c;
    return sizeof(mod_tp);
}

static int init_tp(void *mv, ub_state *s)
{
    mod_tp *m = mv;
    static const ub_st_tbldef tbls[] = {
        { UB_TBL_CHANNELS, offsetof(mod_tp, chan), sizeof(tp_chan), "TP channels evicted: their PSN and acknowledgement state restarted" },
        { UB_TBL_TP_PAIRS, offsetof(mod_tp, pair), sizeof(tp_pair), "TP address pairs evicted: their channel association restarted" },
    };
    if (ub_st_tables(s, m, tbls, 2, s->cfg.max_channels ? s->cfg.max_channels : 1) != 0) return -1;
    ub_st_fh_init(s, &m->f_cnp_ecn, "ub.cetph.ecn");
    ub_st_fh_init(s, &m->f_cnp_loc, "ub.cetph.loc");
    ub_st_fh_init(s, &m->f_utp_op, "ub.utph.tpopcode");
    ub_st_fh_init(s, &m->f_ctp_op, "ub.ctph.tpopcode");
    ub_st_fh_init(s, &m->f_sae_maxrcv, "ub.saetph.maxrcvpsn");
    ub_st_fh_init(s, &m->f_sae_bitmap, "ub.saetph.bitmap");
    ub_st_fh_init(s, &m->f_ack_seq, "ub.cetph.ack_seq");
    ub_st_fh_init(s, &m->f_mgmt, "ub.nth.mgmt");
    ub_st_fh_init(s, &m->f_scan_r, "ub.scanhdr.r");
    ub_st_fh_init(s, &m->f_mg_rsp, "ub.mgmtetah.rsp");
    ub_st_fh_init(s, &m->f_mg_code, "ub.mgmtetah.code");
    return 0;
}

static void packet_tp(void *mv, ub_state *s, const ub_pkt *p)
{
    mod_tp *m = mv;
    if (p->crc_bad) return; /* §10.6 d: no TP state from a packet that failed its CRC */
    nw_packet(m, s, p);
    if (p->cetph && p->cetph->hdr->id == UB_H_CETPH_CNP && ub_fh_has(&m->f_cnp_ecn, p->cetph)) { /* DCQCN at work */
        char kt[128] = "";
        if (ub_st_want_text(s, UB_R_TP_CNP, p->pi->frame)) {
            size_t n = ub_addr_str(&p->dst, kt, sizeof kt);
            snprintf(kt + n, sizeof kt - n, " <- ");
            n = strlen(kt);
            ub_addr_str(&p->src, kt + n, sizeof kt - n);
        }
        int64_t v[2] = { (int64_t)ub_fh_get(&m->f_cnp_ecn, p->cetph), (int64_t)ub_fh_get(&m->f_cnp_loc, p->cetph) };
        if (rule_on(s, UB_R_TP_CNP))
            ub_st_emit(s, UB_R_TP_CNP, -1, p->pi->frame, NULL, 0, v, 2, "CNP: the data sender is asked to slow down",
                       "data sender <- CNP sender", kt);
    }
    if (p->rtph) {
        if (p->rtph->len < 16 || !(p->sum.fl & UB_PS_RTPH_TPMSN)) return; /* truncated RTPH: no state */
        unsigned op = p->sum.rt_op;
        if (op == OP_DATA) {
            tp_chan *c = tp_data(m, s, p);
            if (c && !(c->reported & RP_PAIR)) {
                tp_pair *pr = pair_lookup(m, &p->src, &p->dst, true);
                if (pr) pr->flags |= PR_RTP;
                c->reported |= RP_PAIR;
            }
        } else if (op == OP_ACK || op == OP_ACK_CC || op == OP_SACK || op == OP_SACK_CC) {
            tp_ack(m, s, p, op, false);
        } else if (op == 0x4 && p->v->opts && ub_pf(p->v->opts, UB_PF_TPOP4_NAK)) {
            tp_ack(m, s, p, OP_ACK, true); /* ns-3-UB D14: opcode 4 = TPNAK */
        }
        /* CNP (0x8) carries no PSN state */
    } else if ((p->utph && ub_fh_has(&m->f_utp_op, p->utph)) ||
               (p->ctph && ub_fh_has(&m->f_ctp_op, p->ctph) && ub_fh_get(&m->f_ctp_op, p->ctph) == 0)) {
        /* UTP / CTP data: no TPN, only the address pair is known (TP-13 heuristic). The last pair
         * marked is cached so that a CTP flow costs no table lookup per packet. */
        if (m->other_valid && m->other_src.len == p->src.len && m->other_dst.len == p->dst.len &&
            memcmp(m->other_src.b, p->src.b, p->src.len) == 0 && memcmp(m->other_dst.b, p->dst.b, p->dst.len) == 0)
            return;
        tp_pair *pr = pair_lookup(m, &p->src, &p->dst, true);
        if (pr && !(pr->flags & PR_OTHER)) {
            pr->flags |= PR_OTHER;
            pr->other_frame = p->pi->frame;
        }
        m->other_src = p->src;
        m->other_dst = p->dst;
        m->other_valid = true;
    }
}

static void finish_tp(void *mv, ub_state *s)
{
    mod_tp *m = mv;
    uint32_t it = 0;
    tp_chan *c;
    while ((c = ub_tbl_next(&m->chan, &it)) != NULL) {
        tp_kref r = { m, c };
        rt_ctx x = chan_ctx(s, &r, NULL, false);
        rt_seq_finish_open(&x, &c->q); /* TP-02 gaps, TP-06 TPNAK not answered */
        if (!c->q.have_data) continue;
        /* acks of this channel visible at all? (one-direction captures stay silent) */
        bool acks = c->q.ack_valid;
        if (!acks) {
            tp_pair *pr = pair_lookup(m, &c->src, &c->dst, false);
            acks = pr && (pr->flags & PR_ACKS);
        }
        if (acks) rt_seq_finish_unacked(&x, &c->q); /* TP-02 / §10.6 e unacknowledged data, TP-11 A = 1 */
    }
}

static void fini_tp(void *mv)
{
    mod_tp *m = mv;
    ub_tbl_free(&m->chan);
    ub_tbl_free(&m->pair);
}

const ub_st_module ub_st_mod_tp = { "tp", UB_ST_TP | UB_ST_NW, size_tp, init_tp, packet_tp, finish_tp, fini_tp, 0 };
