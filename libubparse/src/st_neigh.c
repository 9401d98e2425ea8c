/* SPDX-License-Identifier: GPL-2.0-or-later */
/* State-engine module for the neighbouring interconnects (docs/neighbours.md), on the reliable-transport
 * core (rt_core.h): IB RC over RoCEv2 (also inside UB CFG 3/4) and SUE TYPE1 (UDP or AFH framing) on the
 * full tracker (rt_seq.c, as UB RTP), PCIe flit links on the light tracker (rt_core.c: mod 1023). None of
 * this is UB; the rules are IB-RC-*, SUE-TP-*, PCIE-FL-* (rules.h).
 *
 * Flows: a data direction is (sender address, receiver address, the receiver's QP). Acks travel back
 * addressed to the sender's QP, which the capture cannot relate to the receiver's QP without the
 * connection setup: an ack is taken for the flow of the newest data sent between the same two
 * addresses (one active QP per address pair and direction is assumed). PCIe flit links: one flow per
 * capture direction (pcapng EPB direction, else interface); an Ack/Nak acknowledges the other one. */
#include "rt_core.h"

#include <stdio.h>
#include <stddef.h>

enum { NB_IB = 1, NB_SUE = 2, NB_FLIT = 3 };
typedef struct nb_flow {
    union {
        rt_seq q;  /* IB, SUE: the full tracker */
        rt_flow f; /* PCIe flits: the light tracker */
    };
    rt_msn_st msn; /* IB AETH MSN */
    uint16_t run_nak; /* PCIe: command << 10 | number of this direction's previous flit if a Nak (a Nak run) */
    uint8_t proto;
    char key[112];
} nb_flow;
typedef struct nb_pair {
    uint32_t qp;      /* receiver QP of the newest data between the two addresses */
    bool read_open;   /* IB: the newest request was an RDMA Read (it may take several PSNs) */
} nb_pair;

typedef struct mod_nb {
    ub_tbl flows, pairs; /* allocated at the first neighbour packet (tables(): counted like UB state) */
    uint8_t ready;       /* 1 tables made, 2 could not be made */
    ub_fh bth_op, bth_psn, bth_qp, bth_a, aeth_op, aeth_val, aeth_msn, bth_se, bth_m, bth_fecn, bth_becn;
    ub_fh rh_op, rh_psn, rh_qp, rh_fack, rh_syn;
    ub_fh fl_usage, fl_cmd, fl_seq;
} mod_nb;

static size_t size_nb(const ub_state_cfg *c)
{
    (void)c;
    return sizeof(mod_nb);
}

static int init_nb(void *mv, ub_state *s)
{
    mod_nb *m = mv;
    (void)s;
    ub_st_fh_init(s, &m->bth_op, "infiniband.bth.opcode");
    ub_st_fh_init(s, &m->bth_psn, "infiniband.bth.psn");
    ub_st_fh_init(s, &m->bth_qp, "infiniband.bth.destqp");
    ub_st_fh_init(s, &m->bth_a, "infiniband.bth.a");
    ub_st_fh_init(s, &m->bth_se, "infiniband.bth.se");
    ub_st_fh_init(s, &m->bth_m, "infiniband.bth.m");
    ub_st_fh_init(s, &m->bth_fecn, "infiniband.bth.fecn");
    ub_st_fh_init(s, &m->bth_becn, "infiniband.bth.becn");
    ub_st_fh_init(s, &m->aeth_op, "infiniband.aeth.syndrome.opcode");
    ub_st_fh_init(s, &m->aeth_val, "infiniband.aeth.syndrome.value");
    ub_st_fh_init(s, &m->aeth_msn, "infiniband.aeth.msn");
    ub_st_fh_init(s, &m->rh_op, "sue.rh.opcode");
    ub_st_fh_init(s, &m->rh_psn, "sue.rh.psn");
    ub_st_fh_init(s, &m->rh_qp, "sue.rh.dest_qp");
    ub_st_fh_init(s, &m->rh_fack, "sue.rh.fack");
    ub_st_fh_init(s, &m->rh_syn, "sue.rh.aeth_syndrome");
    ub_st_fh_init(s, &m->fl_usage, "pcieflit.flit.usage");
    ub_st_fh_init(s, &m->fl_cmd, "pcieflit.flit.replay_cmd");
    ub_st_fh_init(s, &m->fl_seq, "pcieflit.flit.seq");
    return 0;
}

static void fini_nb(void *mv)
{
    mod_nb *m = mv;
    if (m->ready != 1) return;
    ub_tbl_free(&m->flows);
    ub_tbl_free(&m->pairs);
}

/* the flow tables, made at the first neighbour packet and bounded like the TP channels: their
 * evictions are UB-ST-001 findings and make the audit INCOMPLETE (ub_st_table) */
static bool tables(mod_nb *m, ub_state *s)
{
    static const ub_st_tbldef d[] = {
        { UB_TBL_NB_FLOWS, offsetof(mod_nb, flows), sizeof(nb_flow),
          "neighbour flows evicted: their sequence and acknowledgement state restarted" },
        { UB_TBL_NB_PAIRS, offsetof(mod_nb, pairs), sizeof(nb_pair),
          "neighbour address pairs evicted: their acks could no longer be related to a flow" },
    };
    if (m->ready) return m->ready == 1;
    m->ready = ub_st_tables(s, m, d, 2, s->cfg.max_channels ? s->cfg.max_channels : 1) == 0 ? 1 : 2;
    return m->ready == 1;
}

static const ub_layer *layer(const ub_pkt *p, unsigned id)
{
    int i = ub_view_find(p->v, id, 0);
    return i < 0 ? NULL : &p->v->layer[i];
}

/* addresses: the IP addresses, else the AFH ones (document 004 §12.3.1): GEN2_16b the 16-bit Dest/Source
 * Addr, GEN1 with TC in SA the low 40 bits of both, else the 48-bit MAC addresses */
static void addrs(const ub_pkt *p, ub_addr *src, ub_addr *dst)
{
    *src = p->src;
    *dst = p->dst;
    const ub_layer *e;
    if ((src->len && dst->len) || !(e = layer(p, UB_H_ETH)) || e->len < 12) return;
    unsigned skip = layer(p, UB_H_SUE_AFH2) ? 4 : layer(p, UB_H_SUE_AFH1) ? 1 : 0;
    dst->len = src->len = (uint8_t)(6 - skip);
    memcpy(dst->b, e->data + skip, 6 - skip);
    memcpy(src->b, e->data + 6 + skip, 6 - skip);
}
static void addr_text(const ub_addr *a, char *buf, size_t n)
{
    if (a->len > 0 && a->len <= 6 && a->len != 4) { /* AFH / MAC addresses (4: IPv4) */
        size_t w = 0;
        for (unsigned i = 0; i < a->len && w + 3 < n; i++) w += (size_t)snprintf(buf + w, n - w, "%s%02x", i ? ":" : "", a->b[i]);
        return;
    }
    ub_addr_str(a, buf, n);
}

static void nb_key(ub_key *k, char tag, unsigned proto, const ub_addr *a, const ub_addr *b)
{
    uint8_t t[2] = { (uint8_t)tag, (uint8_t)proto };
    memset(k, 0, sizeof *k);
    ub_key_add(k, t, 2);
    ub_key_addr(k, a);
    ub_key_addr(k, b);
}
static nb_flow *flow(mod_nb *m, unsigned proto, const ub_addr *a, const ub_addr *b, uint32_t qp)
{
    ub_key k;
    nb_key(&k, 'F', proto, a, b);
    ub_key_u64(&k, qp);
    bool created = false;
    nb_flow *f = ub_tbl_get(&m->flows, &k, &created);
    if (f && created) {
        char sa[48], sb[48];
        addr_text(a, sa, sizeof sa);
        addr_text(b, sb, sizeof sb);
        f->proto = (uint8_t)proto;
        if (proto == NB_FLIT) snprintf(f->key, sizeof f->key, "PCIe flits %s", qp == 2 ? "out (sent)" : qp == 1 ? "in (received)" : "of interface 2+");
        else snprintf(f->key, sizeof f->key, "%s %.40s→%.40s QP 0x%x", proto == NB_IB ? "RC" : "SUE", sa, sb, qp);
    }
    return f;
}
static nb_pair *pair(mod_nb *m, unsigned proto, const ub_addr *a, const ub_addr *b, bool make)
{
    ub_key k;
    nb_key(&k, 'P', proto, a, b);
    return make ? ub_tbl_get(&m->pairs, &k, NULL) : ub_tbl_find(&m->pairs, &k);
}

/* the flow an ack from `from` to `to` acknowledges: data sent to -> from */
static nb_flow *ack_flow(mod_nb *m, unsigned proto, const ub_addr *from, const ub_addr *to)
{
    nb_pair *pr = pair(m, proto, to, from, false);
    return pr ? flow(m, proto, to, from, pr->qp) : NULL;
}

static const rt_profile *profile(unsigned proto) { return proto == NB_IB ? &rt_ib_rc : proto == NB_SUE ? &rt_sue_type1 : &rt_pcie_flit; }
static void flow_keytext(const void *obj, char *buf, size_t n) { snprintf(buf, n, "%s", ((const nb_flow *)obj)->key); }
/* the full tracker's context for a call about flow f (p NULL: end of capture) */
static rt_ctx flow_ctx(ub_state *s, const nb_flow *f, const ub_pkt *p)
{
    rt_ctx x = { s, profile(f->proto), p, true, s->cfg.gaps_are_notes, flow_keytext, f, "flow" };
    return x;
}
/* an ack of flow f: cumulative through psn (nak: resend from psn); judged: its PSN lies in
 * [last ack, newest sent] */
static bool seq_ack(ub_state *s, nb_flow *f, const ub_pkt *p, uint32_t psn, bool nak, uint64_t sig)
{
    rt_seq *q = &f->q;
    if (rt_seq_ack_copy(q, sig, rt_ifbit(p))) return false; /* the same ack at another capture point */
    rt_ctx x = flow_ctx(s, f, p);
    uint32_t cum = nak ? rt_add(x.pf, psn, -1) : psn;
    bool judged = q->have_data && rt_diff(x.pf, cum, q->hi) <= 0 && (!q->ack_valid || rt_diff(x.pf, cum, q->acked) >= 0);
    rt_seq_ack(&x, q, psn, nak, false, true, 0, NULL);
    return judged;
}

static void note(ub_state *s, unsigned rule, const ub_pkt *p, int64_t v0, int64_t v1, const char *detail, const nb_flow *f)
{
    int64_t v[2] = { v0, v1 };
    ub_st_emit(s, rule, -1, p->pi->frame, NULL, 0, v, 2, detail, "flow", f ? f->key : NULL);
}

static void pkt_ib(mod_nb *m, ub_state *s, const ub_pkt *p, const ub_layer *b)
{
    unsigned op = (unsigned)ub_fh_get(&m->bth_op, b), o = op & 0x1F;
    uint32_t psn = (uint32_t)ub_fh_get(&m->bth_psn, b), qp = (uint32_t)ub_fh_get(&m->bth_qp, b);
    if (op >> 5 != 0) return; /* RC only: UC/UD are unreliable, CNP is congestion control */
    ub_addr src, dst;
    addrs(p, &src, &dst);
    if (o <= 0x0C || o == 0x13 || o == 0x14 || o == 0x16 || o == 0x17) { /* requests */
        nb_pair *pr = pair(m, NB_IB, &src, &dst, true);
        bool skip = pr && pr->read_open && pr->qp == qp;
        nb_flow *f = flow(m, NB_IB, &src, &dst, qp);
        if (pr) {
            pr->qp = qp;
            pr->read_open = o == 0x0C;
        }
        bool areq = ub_fh_get(&m->bth_a, b) != 0;
        if (p->v->opts && p->v->opts->ib_engine) { /* document 002 Table 3.1: SE=1, M=0, FECN=BECN=0, AckReq=1 */
            uint64_t se = ub_fh_get(&m->bth_se, b), mig = ub_fh_get(&m->bth_m, b);
            uint64_t cn = ub_fh_get(&m->bth_fecn, b) | ub_fh_get(&m->bth_becn, b);
            if (!se || mig || cn || !areq) {
                int64_t v[4] = { (int64_t)se, (int64_t)mig, (int64_t)cn, areq };
                ub_st_emit(s, UB_R_IB_ENGINE, -1, p->pi->frame, NULL, 0, v, 4, "RDMA-engine profile invariant broken", "flow", f ? f->key : NULL);
            }
            areq = true; /* every request packet is acknowledged (document 002 §3.4.1.1.3.2.1) */
        }
        if (f) {
            rt_ctx x = flow_ctx(s, f, p);
            rt_dres r;
            rt_seq_data(&x, &f->q, psn, (uint8_t)((areq ? RT_SL_A : 0) | (skip ? RT_DF_SKIP : 0)), 0, &r);
        }
        return;
    }
    const ub_layer *a = layer(p, UB_H_IB_AETH);
    if (!a) return; /* Read Response Middle: no acknowledgement */
    nb_flow *f = ack_flow(m, NB_IB, &src, &dst);
    if (!f) return;
    unsigned sop = (unsigned)ub_fh_get(&m->aeth_op, a), val = (unsigned)ub_fh_get(&m->aeth_val, a);
    uint32_t msn = (uint32_t)ub_fh_get(&m->aeth_msn, a);
    uint64_t sig = (uint64_t)psn | (uint64_t)(sop << 5 | val) << 24 | (uint64_t)msn << 32;
    bool judged = false; /* the ack's PSN was judged valid: its MSN is checked against it */
    if (sop == 0) {
        judged = seq_ack(s, f, p, psn, false, sig);
    } else if (sop == 1 || (sop == 3 && val == 0)) { /* RNR NAK (after its timer), PSN sequence error: resend from the PSN */
        note(s, UB_R_IB_NAK, p, psn, (int64_t)(sop << 5 | val), sop == 1 ? "RNR NAK" : "NAK: PSN sequence error", f);
        judged = seq_ack(s, f, p, psn, true, sig);
        rt_seq_rnr(&f->q, sop == 1 ? rt_ib_rnr_ns(val) : 0); /* IB-RC-010 */
        psn = rt_add(&rt_ib_rc, psn, -1); /* acknowledged through the PSN before */
    } else if (sop == 3) { /* invalid request, remote access / operational error: no replay */
        static const char *const why[4] = { "", "NAK: invalid request", "NAK: remote access error", "NAK: remote operational error" };
        note(s, UB_R_IB_NAK, p, psn, (int64_t)(sop << 5 | val), val < 4 ? why[val] : "NAK: reserved code", f);
    }
    rt_ctx x = flow_ctx(s, f, p);
    rt_msn(&x, &f->msn, psn, msn, judged); /* IB-RC-011 */
}

static void pkt_sue(mod_nb *m, ub_state *s, const ub_pkt *p, const ub_layer *r)
{
    unsigned op = (unsigned)ub_fh_get(&m->rh_op, r);
    uint32_t psn = (uint32_t)ub_fh_get(&m->rh_psn, r), qp = (uint32_t)ub_fh_get(&m->rh_qp, r);
    ub_addr src, dst;
    addrs(p, &src, &dst);
    const ub_layer *e = layer(p, UB_H_ETH); /* TYPE2 (multicast, unreliable): not audited */
    for (unsigned i = 0; i < p->v->nlayers && i < UB_MAX_LAYERS; i++) /* the last tag's EtherType, else Ethernet's */
        if (p->v->layer[i].hdr && ub_hdr_tag(p->v->layer[i].hdr->id)) e = &p->v->layer[i];
    int ti = e ? ub_field_index(e->hdr, "type") : -1;
    if (ti >= 0 && p->v->opts && p->v->opts->sue_ethertype[1] && ub_lget(e, (unsigned)ti) == p->v->opts->sue_ethertype[1]) return;
    if (op == 0) {
        nb_pair *pr = pair(m, NB_SUE, &src, &dst, true);
        if (pr) pr->qp = qp;
        nb_flow *f = flow(m, NB_SUE, &src, &dst, qp);
        if (f) {
            rt_ctx x = flow_ctx(s, f, p);
            rt_dres res;
            rt_seq_data(&x, &f->q, psn, ub_fh_get(&m->rh_fack, r) != 0 ? RT_SL_A : 0, 0, &res);
        }
        return;
    }
    if (op != 1) return; /* CNP, reserved */
    nb_flow *f = ack_flow(m, NB_SUE, &src, &dst);
    if (!f) return;
    unsigned syn = (unsigned)ub_fh_get(&m->rh_syn, r), k = syn >> 5;
    uint64_t sig = (uint64_t)psn | (uint64_t)syn << 24;
    if (k == 3 || k == 1) { /* provisional: the IB AETH syndrome without its MSB */
        note(s, UB_R_SUE_NAK, p, psn, syn, k == 1 ? "RNR NAK" : "NAK", f);
        seq_ack(s, f, p, psn, true, sig);
        /* SUE-TP-025: the RNR time in [4:0] as IBTA Table 45 (-o sue.rnr_encoding=ib, provisional; off: not judged) */
        bool ib = !p->v->opts || p->v->opts->sue_rnr_encoding == 0;
        rt_seq_rnr(&f->q, k == 1 && ib ? rt_ib_rnr_ns(syn & 31) : 0);
    } else {
        seq_ack(s, f, p, psn, false, sig);
    }
}

static void pkt_flits(mod_nb *m, ub_state *s, const ub_pkt *p)
{
    static const ub_addr none = { 0 };
    unsigned dir = p->pi->dir ? p->pi->dir : p->pi->ifindex + 1, peer = p->pi->dir ? 3 - dir : (dir == 1 ? 2 : 1);
    for (int i = ub_view_find(p->v, UB_H_PCIEFLIT, 0); i >= 0; i = ub_view_find(p->v, UB_H_PCIEFLIT, i + 1)) {
        const ub_layer *l = &p->v->layer[i];
        unsigned usage = (unsigned)ub_fh_get(&m->fl_usage, l), cmd = (unsigned)ub_fh_get(&m->fl_cmd, l);
        uint32_t seq = (uint32_t)ub_fh_get(&m->fl_seq, l);
        if (usage == 0 && cmd == 0 && seq == 0) continue; /* IDLE */
        nb_flow *f = flow(m, NB_FLIT, &none, &none, dir);
        if (!f) return;
        if (usage == 1) { /* a Payload flit: its own number is explicit (command 00) or implied */
            if (cmd == 0) rt_data(s, &rt_pcie_flit, &f->f, seq, p, f->key);
            else if (f->f.started) rt_data(s, &rt_pcie_flit, &f->f, rt_psn(&rt_pcie_flit, f->f.next), p, f->key);
        }
        /* the Naks of a run (NAK_SCHEDULED, at least 3) ask for one replay: the later ones may arrive after it began */
        uint16_t nk = cmd >= 2 && seq ? (uint16_t)(cmd << 10 | (seq & 1023)) : 0;
        bool rerun = nk && f->run_nak == nk;
        f->run_nak = nk;
        if (cmd == 0 || seq == 0) continue; /* Ack/Nak with sequence number 0 are ignored */
        nb_flow *g = flow(m, NB_FLIT, &none, &none, peer);
        if (!g) return;
        f = flow(m, NB_FLIT, &none, &none, dir); /* the insert may have moved entries */
        if (cmd == 1) {
            rt_ack(s, &rt_pcie_flit, &g->f, seq, p, g->key);
        } else {
            note(s, UB_R_FL_NAK, p, seq, cmd, cmd == 2 ? "Standard Nak: replay every unacknowledged flit" : "Selective Nak: replay one flit", g);
            if (!rerun) rt_nak(s, &rt_pcie_flit, &g->f, rt_psn(&rt_pcie_flit, rt_idx(&rt_pcie_flit, seq) + 1), p, g->key);
        }
    }
}

static void packet_nb(void *mv, ub_state *s, const ub_pkt *p)
{
    mod_nb *m = mv;
    const ub_layer *l;
    if (p->crc_bad || (!p->nb && p->v->entry != UB_ENTRY_PCIEFLIT)) return;
    if ((l = layer(p, UB_H_IB_BTH))) {
        if (tables(m, s)) pkt_ib(m, s, p, l);
    } else if ((l = layer(p, UB_H_SUE_RH))) {
        if (tables(m, s)) pkt_sue(m, s, p, l);
    } else if (p->v->entry == UB_ENTRY_PCIEFLIT && tables(m, s)) {
        pkt_flits(m, s, p);
    }
}

static void finish_nb(void *mv, ub_state *s)
{
    mod_nb *m = mv;
    uint32_t it = 0;
    nb_flow *f;
    if (m->ready != 1) return;
    while ((f = ub_tbl_next(&m->flows, &it)) != NULL) {
        if (f->proto == NB_FLIT) continue; /* the light tracker judges at each packet */
        rt_ctx x = flow_ctx(s, f, NULL);
        rt_seq_finish_open(&x, &f->q);     /* gaps never filled nor acked (IB-RC-001, SUE-TP-001), NAK never answered */
        rt_seq_finish_unacked(&x, &f->q);  /* AckReq / Fack requests never acknowledged (IB-RC-005, SUE-TP-005) */
    }
}

const ub_st_module ub_st_mod_nb = { "neighbours", UB_ST_TP, size_nb, init_nb, packet_nb, finish_nb, fini_nb,
                                    UB_MOD_NB | UB_MOD_FL };
