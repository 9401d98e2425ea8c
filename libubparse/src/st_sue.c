/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SUE / RC Link limits of document 004 beyond the reliable-transport core (st_neigh.c): CNP spacing
 * under CNP MERGE (§12.8, SUE-TP-008) and the bank/VC consistency of TYPE1 requests (§12.3.4, §12.5,
 * §12.9; SUE-TP-009). Not UB. docs/neighbours.md, docs/rules.md.
 *
 * CNP MERGE: with the function on, a CNP for a QPID seen again within TIMER_THR is filtered, so two CNPs
 * for one QP closer than TIMER_THR (-o sue.cnp_merge_us; 0 = merge off, not checked) mean the merge did
 * not work or the threshold differs. A CNP's QP is its RH Dest_QP, per (sender, receiver).
 * Banks: TYPE1 requests go to bank SRC_QPID[1:0] = DEST_QPID[1:0], and each bank is one physical flow
 * with its own VC/priority (VLAN PRI, else the AFH Traffic Class, else the IPv4 DSCP): per (sender,
 * receiver) a bank keeps one VC and no two banks share one. */
#include "st_internal.h"

typedef struct sue_pair {
    uint8_t vc_set;       /* bit b: bank b's VC known */
    uint8_t vc[4];
    uint64_t vc_frame[4]; /* where bank b's VC was first seen */
} sue_pair;
typedef struct sue_cnp {
    uint64_t ts_ns, frame;
} sue_cnp;

typedef struct mod_sue {
    ub_tbl pairs, cnps; /* made at the first SUE packet, bounded by --max-channels (UB_TBL_SUE_*) */
    uint8_t ready;      /* 0 not yet, 1 made, 2 could not be made */
    ub_fh op, qp, pcp, tc, dscp, km, et_eth, et_vlan;
} mod_sue;

static size_t size_sue(const ub_state_cfg *c)
{
    (void)c;
    return sizeof(mod_sue);
}

static int init_sue(void *mv, ub_state *s)
{
    mod_sue *m = mv;
    (void)s;
    ub_st_fh_init(s, &m->op, "sue.rh.opcode");
    ub_st_fh_init(s, &m->qp, "sue.rh.dest_qp");
    ub_st_fh_init(s, &m->pcp, "ub.vlan.pcp");
    ub_st_fh_init(s, &m->tc, "sue.afh.tc");
    ub_st_fh_init(s, &m->dscp, "ub.ipv4.dscp");
    ub_st_fh_init(s, &m->km, "sue.afh.key_words.m");
    ub_st_fh_init(s, &m->et_eth, "ub.eth.type");
    ub_st_fh_init(s, &m->et_vlan, "ub.vlan.type");
    return 0;
}

/* the tables, at the first SUE packet: evictions are UB-ST-001 findings and make the audit INCOMPLETE;
 * the JSON evictions keys sue_pairs / sue_cnps appear when the capture had SUE traffic */
static bool tables(mod_sue *m, ub_state *s)
{
    static const ub_st_tbldef tbls[] = {
        { UB_TBL_SUE_PAIRS, offsetof(mod_sue, pairs), sizeof(sue_pair),
          "SUE (sender, receiver) pairs evicted: the VC of their banks restarted (SUE-TP-009)" },
        { UB_TBL_SUE_CNPS, offsetof(mod_sue, cnps), sizeof(sue_cnp),
          "SUE CNP QPs evicted: the time of their last CNP was forgotten (SUE-TP-008)" },
    };
    if (!m->ready) m->ready = ub_st_tables(s, m, tbls, 2, s->cfg.max_channels ? s->cfg.max_channels : 1) == 0 ? 1 : 2;
    return m->ready == 1;
}

static void fini_sue(void *mv)
{
    mod_sue *m = mv;
    if (m->ready != 1) return;
    ub_tbl_free(&m->pairs);
    ub_tbl_free(&m->cnps);
}

/* (sender, receiver): the IP addresses, else the 12 Ethernet address bytes (AFH framing) */
static void pair_key(ub_key *k, char tag, const ub_pkt *p)
{
    memset(k, 0, sizeof *k);
    ub_key_add(k, &tag, 1);
    ub_key_addr(k, &p->src);
    ub_key_addr(k, &p->dst);
    int e = ub_view_find(p->v, UB_H_ETH, 0);
    if (!p->src.len && e >= 0 && p->v->layer[e].len >= 12) ub_key_add(k, p->v->layer[e].data, 12);
}

/* the last layer of id in the view, NULL none */
static const ub_layer *last(const ub_view *v, unsigned id)
{
    const ub_layer *l = NULL;
    for (int i = ub_view_find(v, id, 0); i >= 0; i = ub_view_find(v, id, i + 1)) l = &v->layer[i];
    return l;
}

static void packet_sue(void *mv, ub_state *s, const ub_pkt *p)
{
    mod_sue *m = mv;
    const ub_layer *r = p->crc_bad || !p->nb ? NULL : last(p->v, UB_H_SUE_RH); /* nb: an RH (or IB BTH) is there */
    if (!r || !tables(m, s)) return;
    const ub_opts *o = p->v->opts;
    unsigned op = (unsigned)ub_fh_get(&m->op, r);
    uint32_t qp = (uint32_t)ub_fh_get(&m->qp, r);
    ub_key k;
    if (op == 2) { /* CNP: §12.8 CNP MERGE */
        if (!o || !o->sue_cnp_merge_us) return;
        pair_key(&k, 'C', p);
        ub_key_u64(&k, qp);
        bool created = false;
        sue_cnp *c = ub_tbl_get(&m->cnps, &k, &created);
        if (!c) return;
        uint64_t thr = (uint64_t)o->sue_cnp_merge_us * 1000u, gap = p->pi->ts_ns - c->ts_ns;
        if (!created && p->pi->ts_ns >= c->ts_ns && gap <= thr)
            ub_st_emit2(s, UB_R_SUE_CNP_GAP, -1, p, c->frame, (int64_t)gap, (int64_t)thr, "CNP for the same QP within TIMER_THR");
        c->ts_ns = p->pi->ts_ns;
        c->frame = p->pi->frame;
        return;
    }
    if (op != 0) return;
    /* TYPE1 requests only: TYPE2 (multicast) has its own flow */
    const ub_layer *a = last(p->v, UB_H_SUE_AFH2), *vl = last(p->v, UB_H_VLAN);
    uint64_t et = vl ? ub_fh_get(&m->et_vlan, vl) : ub_fh_get(&m->et_eth, last(p->v, UB_H_ETH));
    if ((a && ub_fh_get(&m->km, a)) || (o && o->sue_ethertype[1] && et == o->sue_ethertype[1])) return;
    const ub_layer *t = last(p->v, UB_H_SUE_AFH2);
    if (!t) t = last(p->v, UB_H_SUE_AFH1);
    unsigned vc;
    if (vl) vc = (unsigned)ub_fh_get(&m->pcp, vl);
    else if (t) vc = (unsigned)ub_fh_get(&m->tc, t);
    else if (p->ip && p->ip->hdr->id == UB_H_IPV4) vc = (unsigned)ub_fh_get(&m->dscp, p->ip);
    else return; /* no priority field in the frame */
    pair_key(&k, 'B', p);
    sue_pair *pr = ub_tbl_get(&m->pairs, &k, NULL);
    if (!pr) return;
    unsigned bank = qp & 3u;
    if (pr->vc_set & (1u << bank)) {
        if (pr->vc[bank] != vc)
            ub_st_emit2(s, UB_R_SUE_BANK_VC, -1, p, pr->vc_frame[bank], bank, vc, "a bank's requests on a second VC (first: related frame)");
        return;
    }
    for (unsigned b = 0; b < 4; b++)
        if (b != bank && (pr->vc_set & (1u << b)) && pr->vc[b] == vc)
            ub_st_emit2(s, UB_R_SUE_BANK_VC, -1, p, pr->vc_frame[b], bank, vc, "two banks share one VC (the other bank: related frame)");
    pr->vc_set |= (uint8_t)(1u << bank);
    pr->vc[bank] = (uint8_t)vc;
    pr->vc_frame[bank] = p->pi->frame;
}

static void finish_sue(void *mv, ub_state *s)
{
    (void)mv;
    (void)s;
}

const ub_st_module ub_st_mod_sue = { "SUE limits", UB_ST_TP, size_sue, init_sue, packet_sue, finish_sue, fini_sue, UB_MOD_NB };
