/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The full tracker of the reliable-transport core (rt_core.h): one sender's PSN space with the gaps
 * the capture missed (digest §10.6 c), a ring of recent PSNs (first copy, ack-required, capture points),
 * cumulative and selective acks, NAK loss episodes, the loss and RNR timers and the IB AETH MSN. UB RTP
 * (st_tp.c, rt_ub_rtp), IB RC and SUE TYPE1 (st_neigh.c, rt_ib_rc, rt_sue_type1) run on it; the rules
 * cited are the UB ones (TP-02 .. TP-07, TP-11), each profile maps them to its own. */
#include "rt_core.h"

#include <stdio.h>

static void emit(const rt_ctx *x, unsigned rule, int sev, uint64_t frame, uint64_t other, int64_t v0, int64_t v1,
                 unsigned nv, const char *detail)
{
    if (!x->on || rule >= UB_R__COUNT) return;
    char kt[160]; /* ub_st_emit keeps the first 63 characters */
    int64_t v[2] = { v0, v1 };
    bool text = x->keytext && ub_st_want_text(x->s, rule, frame);
    if (text) x->keytext(x->obj, kt, sizeof kt);
    ub_st_emit(x->s, rule, sev, frame, &other, other ? 1 : 0, v, nv, detail, x->keytext ? x->keyname : NULL, text ? kt : NULL);
}

/* §10.6 e: error only when the capture went on for the timeout after the event, else note */
static int late_sev(const ub_state *s, uint64_t ts, int sev)
{
    return s->last_ts >= ts && s->last_ts - ts >= s->cfg.response_timeout_ns ? sev : UB_SEV_NOTE;
}

/* ---------------------------------------------------------------- ring of recent PSNs */
static rt_slot *ring_get(rt_seq *q, uint32_t psn)
{
    rt_slot *sl = &q->ring[psn % RT_RING_N];
    return (sl->flags & RT_SL_VALID) && sl->psn == psn ? sl : NULL;
}
static void ring_put(uint32_t mod, rt_seq *q, uint32_t psn, const ub_pkt *p, uint8_t flags, uint8_t aux)
{
    rt_slot *sl = &q->ring[psn % RT_RING_N];
    if ((sl->flags & RT_SL_VALID) && rt_diff_m(mod, psn, sl->psn) < 0) return; /* keep the newer PSN */
    sl->frame = p->pi->frame;
    sl->ts = p->pi->ts_ns;
    sl->psn = psn;
    sl->ifmask = rt_ifbit(p);
    sl->flags = (uint8_t)(flags | RT_SL_VALID);
    sl->aux = aux;
}

/* ---------------------------------------------------------------- PSN gaps (§10.6 c) */
static int gap_find(uint32_t mod, const rt_seq *q, uint32_t psn)
{
    for (unsigned i = 0; i < q->ngaps; i++) {
        int32_t d = rt_diff_m(mod, psn, q->gap[i].lo);
        if (d >= 0 && (uint32_t)d < q->gap[i].n) return (int)i;
    }
    return -1;
}
static void gap_del(rt_seq *q, unsigned i) { q->gap[i] = q->gap[--q->ngaps]; }
/* remove one PSN from gap i (splitting it; if no slot is free the upper part is no longer tracked) */
static void gap_take(uint32_t mod, rt_seq *q, unsigned i, uint32_t psn)
{
    rt_gap *g = &q->gap[i];
    uint32_t off = (uint32_t)rt_diff_m(mod, psn, g->lo);
    if (off == 0) { g->lo = rt_add_m(mod, g->lo, 1); g->n--; }
    else if (off == g->n - 1) g->n--;
    else {
        uint32_t upper = g->n - off - 1;
        g->n = off;
        if (q->ngaps < RT_GAPS) {
            rt_gap *u = &q->gap[q->ngaps++];
            *u = *g;
            u->lo = rt_add_m(mod, psn, 1);
            u->n = upper;
        }
    }
    if (q->gap[i].n == 0) gap_del(q, i);
}
static void gap_open(rt_seq *q, uint32_t lo, uint32_t n, const ub_pkt *p, bool as_note)
{
    if (q->ngaps >= RT_GAPS) return; /* too many open gaps: this one is not tracked */
    rt_gap *g = &q->gap[q->ngaps++];
    g->lo = lo;
    g->n = n;
    g->frame_after = p->pi->frame;
    g->ts_after = p->pi->ts_ns;
    g->fb_epoch = q->fb_epoch;
    g->note = as_note;
}
/* a cumulative ack up to cum proves the gap PSNs <= cum were sent: gap acknowledged */
static void gap_ack(const rt_ctx *x, rt_seq *q, uint32_t cum)
{
    const uint32_t mod = x->pf->modulus;
    for (unsigned i = 0; i < q->ngaps;) {
        rt_gap *g = &q->gap[i];
        int32_t d = rt_diff_m(mod, cum, g->lo);
        if (d < 0) { i++; continue; }
        uint32_t k = (uint32_t)d + 1 < g->n ? (uint32_t)d + 1 : g->n;
        emit(x, x->pf->r_gap_acked, g->note ? UB_SEV_NOTE : -1, g->frame_after, x->p->pi->frame, g->lo, k, 2,
             x->pf->txt[RT_T_GAP_ACKED]);
        g->lo = rt_add_m(mod, g->lo, (int32_t)k);
        g->n -= k;
        if (g->n == 0) gap_del(q, i);
        else i++;
    }
}

/* ---------------------------------------------------------------- loss timer */
/* restart: an ack advanced, a resend came, or data starts with nothing outstanding */
static inline void timer_restart(rt_seq *q, uint64_t now)
{
    q->progress_ts = now;
    q->timer_reported = 0;
}
/* Loss timer (capture time): acks of the flow are visible, PSNs are outstanding, and neither an ack
 * advanced nor a resend came for longer than the timeout (§10.6 e default, --loss-timeout) */
static void timer_fire(const rt_ctx *x, rt_seq *q, uint64_t now)
{
    const uint32_t mod = x->pf->modulus;
    if (rt_diff_m(mod, q->hi, q->acked) <= 0) return;
    q->timer_reported = 1;
    uint32_t una = rt_add_m(mod, q->acked, 1);
    const rt_slot *sl = ring_get(q, una);
    emit(x, x->pf->r_loss_timer, -1, x->p->pi->frame, sl ? sl->frame : 0, una, (int64_t)((now - q->progress_ts) / 1000), 2,
         x->pf->txt[RT_T_LOSS_TIMER]);
}
static inline void timer_check(const rt_ctx *x, rt_seq *q)
{
    uint64_t now = x->p->pi->ts_ns;
    uint64_t t = x->s->cfg.loss_timeout_ns;
    if (now > q->progress_ts + t && t && !q->timer_reported && q->ack_valid && x->s->cfg.response_timeout_ns) /* 0: off */
        timer_fire(x, q, now);
}

/* ================================================================ data */
/* the first resend after a NAK: an RNR NAK's timer must have elapsed (IBTA §9.7.5.2.8) */
static void nak_resend(const rt_ctx *x, rt_seq *q)
{
    uint64_t now = x->p->pi->ts_ns, waited = now - q->nak_ts;
    if (q->rnr_wait_ns && now >= q->nak_ts && waited < q->rnr_wait_ns)
        emit(x, x->pf->r_rnr, -1, x->p->pi->frame, q->nak_frame, (int64_t)(waited / 1000), (int64_t)(q->rnr_wait_ns / 1000), 2,
             "resent before the RNR NAK's timer elapsed");
    q->nak_pending = 0;
    q->rnr_wait_ns = 0;
}

int rt_seq_data(const rt_ctx *x, rt_seq *q, uint32_t psn, uint8_t slflags, uint8_t aux, rt_dres *r)
{
    const rt_profile *pf = x->pf;
    const uint32_t mod = pf->modulus;
    const ub_pkt *p = x->p;
    uint64_t fr = p->pi->frame;
    bool may_skip = slflags & RT_DF_SKIP;
    slflags &= (uint8_t)~RT_DF_SKIP;
    if (!q->have_data) {
        q->have_data = 1;
        q->first_psn = psn;
        q->hi = rt_add_m(mod, psn, -1);
        if (q->ack_valid && rt_diff_m(mod, psn, q->acked) <= 0) { /* data acknowledged before the capture started */
            q->hi = q->acked;
            q->first_psn = rt_add_m(mod, q->acked, 1);
        }
    }
    if (!q->ack_valid || rt_diff_m(mod, q->hi, q->acked) <= 0) timer_restart(q, p->pi->ts_ns); /* nothing outstanding */
    uint32_t flags = 0;
    int32_t d = rt_diff_m(mod, psn, q->hi);
    r->expected = rt_add_m(mod, q->hi, 1);
    r->d = d;
    r->copy = NULL;
    if (d > 0) {
        /* ---- a new PSN (TP-02) */
        if (d > 1 && !may_skip) {
            gap_open(q, rt_add_m(mod, q->hi, 1), (uint32_t)d - 1, p, x->as_note);
            flags |= UB_TPF_LOST_BEFORE;
        }
        /* a NAK naming the next PSN (nothing lost yet): this is its resend; with nak_next, new data
         * instead of the NAK's PSN breaks go-back-N */
        if (q->nak_pending && (psn == q->nak_psn || pf->nak_next)) {
            if (psn != q->nak_psn) emit(x, pf->r_nak_replay, -1, fr, q->nak_frame, psn, q->nak_psn, 2, pf->txt[RT_T_NAK_START]);
            nak_resend(x, q);
        }
        /* TP-03: PSNs outstanding (UB: highest PSN sent − lowest not acknowledged < 8M) <= window; before the
         * first ack, counted from the first PSN captured (win_first) or not judged */
        if (q->ack_valid || pf->win_first) {
            uint32_t out = (psn - (q->ack_valid ? q->acked : rt_add_m(mod, q->first_psn, -1))) & (mod - 1);
            if (out > pf->window) {
                if (!q->win_reported)
                    emit(x, pf->r_window, -1, fr, 0, out - pf->win_bias, pf->window - pf->win_bias, 2, pf->txt[RT_T_WINDOW]);
                q->win_reported = 1;
            } else q->win_reported = 0;
        }
        q->hi = psn;
        ring_put(mod, q, psn, p, slflags, aux);
        q->prev_retx = 0;
        q->prev_psn = psn;
        r->flags = flags;
        timer_check(x, q);
        return RT_NEW;
    }
    /* ---- a PSN at or below the highest sent */
    int g = gap_find(mod, q, psn);
    bool before_capture = rt_diff_m(mod, psn, q->first_psn) < 0, resend = true;
    if (g >= 0) {
        rt_gap *gp = &q->gap[g];
        bool recovery = gp->fb_epoch != q->fb_epoch                        /* NAK / selective ack since the gap */
                        || (q->prev_retx && psn == rt_add_m(mod, q->prev_psn, 1)) /* go-back-N run */
                        || p->pi->ts_ns >= gp->ts_after + pf->min_rto_ns;    /* timeout retransmission */
        if (recovery) {
            flags |= UB_TPF_RETRANSMISSION;
            emit(x, pf->r_gap_filled, -1, fr, 0, psn, 0, 1, pf->txt[RT_T_GAP_FILLED]);
        } else {
            resend = false;
            flags |= UB_TPF_OUT_OF_ORDER;
            emit(x, pf->r_ooo, x->as_note ? UB_SEV_NOTE : -1, fr, 0, psn, q->hi, 2, pf->txt[RT_T_OOO]);
        }
        gap_take(mod, q, (unsigned)g, psn);
        ring_put(mod, q, psn, p, slflags, aux);
    } else {
        rt_slot *sl = before_capture ? NULL : ring_get(q, psn);
        if (sl && !(sl->ifmask & rt_ifbit(p))) { /* the same packet at another capture point */
            sl->ifmask |= rt_ifbit(p);
            r->copy = sl;
            r->flags = 0;
            return RT_COPY;
        }
        flags |= UB_TPF_RETRANSMISSION;
        if (q->ack_valid && rt_diff_m(mod, psn, q->acked) <= 0) flags |= UB_TPF_DUPLICATE;
        emit(x, pf->r_retrans, -1, fr, sl ? sl->frame : 0, psn, 0, 1, pf->txt[before_capture ? RT_T_RETX_EARLY : RT_T_RETX]);
        /* TP-07: the sender resends only PSNs whose selective-ack bit is 0 */
        if (q->sack_valid) {
            int32_t ds = rt_diff_m(mod, psn, q->sack_psn);
            if (ds > 0 && ds < q->sack_nbits && (q->sack_bits[ds / 8] >> (ds % 8) & 1))
                emit(x, pf->r_sack, -1, fr, q->sack_frame, psn, q->sack_psn, 2, pf->txt[RT_T_SACK_RETX]);
        }
    }
    /* TP-06: after NAK(P) the resends start at P */
    if (resend && q->nak_pending) {
        if (psn != q->nak_psn) emit(x, pf->r_nak_replay, -1, fr, q->nak_frame, psn, q->nak_psn, 2, pf->txt[RT_T_NAK_START]);
        nak_resend(x, q);
    }
    q->prev_retx = resend;
    q->prev_psn = psn;
    r->flags = flags;
    if (resend) timer_restart(q, p->pi->ts_ns); /* the sender's timer is working */
    else timer_check(x, q);
    return RT_OLD;
}

/* ================================================================ acks */
bool rt_bit(const rt_bitmap *bm, uint32_t i)
{
    uint32_t nb = bm->nbytes * 8;
    if (i >= nb) return false;
    if (bm->order == 0) return (bm->b[(nb - 1 - i) / 8] >> (i % 8)) & 1; /* R-18 default: BitMap[0] = last byte bit 0 */
    if (bm->order == 2) return (bm->b[i / 8] >> (i % 8)) & 1;            /* ns-3-UB: byte i/8, bit i%8 (LSB first) */
    return (bm->b[i / 8] >> (7 - i % 8)) & 1;                             /* R-18 alternative: first bit on the wire */
}

/* the bitmap in logical order (bit i of the result = BitMap[i] = byte i/8, bit i%8) into lg */
static void bm_logical(const rt_bitmap *bm, uint8_t *lg)
{
    for (uint32_t j = 0; j < bm->nbytes; j++) {
        uint8_t v = bm->order == 0 ? bm->b[bm->nbytes - 1 - j] : bm->b[j];
        if (bm->order == 1) { /* first bit on the wire = BitMap[0]: reverse the bits */
            v = (uint8_t)((v & 0xF0) >> 4 | (v & 0x0F) << 4);
            v = (uint8_t)((v & 0xCC) >> 2 | (v & 0x33) << 2);
            v = (uint8_t)((v & 0xAA) >> 1 | (v & 0x55) << 1);
        }
        lg[j] = v;
    }
}
static inline bool lbit(const uint8_t *lg, uint32_t nbits, uint32_t i) { return i < nbits && (lg[i >> 3] >> (i & 7) & 1); }

#define RT_BM_MAX 128 /* bytes of a selective-ack bitmap judged (SAETPH: at most 1024 bits) */
static void sack_bitmap(const rt_ctx *x, rt_seq *q, uint32_t psn, const rt_bitmap *bm)
{
    const rt_profile *pf = x->pf;
    const uint32_t mod = pf->modulus;
    uint8_t lg[RT_BM_MAX];
    uint32_t maxrcv = bm->maxrcv, nbytes = bm->nbytes < RT_BM_MAX ? bm->nbytes : RT_BM_MAX, nbits = nbytes * 8;
    bm_logical(&(rt_bitmap){ bm->b + (bm->order == 0 ? bm->nbytes - nbytes : 0), nbytes, bm->order, maxrcv }, lg);
    uint64_t fr = x->p->pi->frame;
    const char *bad = NULL;
    /* highest bit set */
    int32_t top = -1;
    for (uint32_t j = nbytes; j-- > 0;)
        if (lg[j]) { top = (int32_t)(j * 8 + 31 - (unsigned)__builtin_clz(lg[j])); break; }
    int32_t dmax = rt_diff_m(mod, maxrcv, psn);
    if (nbits && !lbit(lg, nbits, 0)) bad = pf->txt[RT_T_SACK_B0];
    else if (dmax < 0) bad = pf->txt[RT_T_SACK_MAXLOW];
    else if (q->maxrcv_valid && rt_diff_m(mod, maxrcv, q->maxrcv) < 0) bad = pf->txt[RT_T_SACK_MAXDEC];
    else if (q->have_data && rt_diff_m(mod, maxrcv, q->hi) > 0) bad = pf->txt[RT_T_SACK_MAXHI];
    else if (top > dmax) bad = pf->txt[RT_T_SACK_TOP];
    else if ((uint32_t)dmax < nbits && !lbit(lg, nbits, (uint32_t)dmax)) bad = pf->txt[RT_T_SACK_MAXBIT];
    if (bad) emit(x, pf->r_sack, -1, fr, 0, psn, maxrcv, 2, bad);
    if (!q->maxrcv_valid || rt_diff_m(mod, maxrcv, q->maxrcv) > 0) q->maxrcv = maxrcv;
    q->maxrcv_valid = 1;
    /* gap PSNs marked received were sent: acknowledged but never captured */
    if (q->ngaps) {
        rt_gap snap[RT_GAPS];
        unsigned ns = q->ngaps;
        memcpy(snap, q->gap, sizeof snap);
        for (unsigned i = 0; i < ns; i++) {
            int32_t b0 = rt_diff_m(mod, snap[i].lo, psn);
            int64_t from = b0 > 1 ? b0 : 1, to = (int64_t)b0 + snap[i].n; /* bitmap indexes [from, to) */
            if (to > (int64_t)nbits) to = nbits;
            uint32_t first = 0, k = 0;
            for (int64_t j = from; j < to; j++)
                if (lbit(lg, nbits, (uint32_t)j)) {
                    if (!k) first = rt_add_m(mod, psn, (int32_t)j);
                    k++;
                }
            if (k)
                emit(x, pf->r_gap_acked, snap[i].note ? UB_SEV_NOTE : -1, snap[i].frame_after, fr, first, k, 2, pf->txt[RT_T_SACK_GAP]);
        }
        for (uint32_t j = 1; j < nbits && q->ngaps; j++) {
            if (!lbit(lg, nbits, j)) continue;
            uint32_t pj = rt_add_m(mod, psn, (int32_t)j);
            int gi = gap_find(mod, q, pj);
            if (gi >= 0) gap_take(mod, q, (unsigned)gi, pj);
        }
    }
    /* keep the bitmap (logical order) for the retransmission check */
    q->sack_valid = 1;
    q->sack_psn = psn;
    q->sack_frame = fr;
    q->sack_nbits = (uint16_t)(nbits < RT_SACK_BITS ? nbits : RT_SACK_BITS);
    memset(q->sack_bits, 0, sizeof q->sack_bits);
    memcpy(q->sack_bits, lg, q->sack_nbits / 8u);
}

uint32_t rt_seq_ack(const rt_ctx *x, rt_seq *q, uint32_t psn, bool nak, bool sack, bool plain, unsigned match_op,
                    const rt_bitmap *bm)
{
    const rt_profile *pf = x->pf;
    const uint32_t mod = pf->modulus;
    const ub_pkt *p = x->p;
    uint64_t fr = p->pi->frame;
    int sev_psn = x->as_note ? UB_SEV_NOTE : -1;
    timer_check(x, q);
    /* TP-05: cumulative PSN (ACK / selective ack: the PSN; NAK: PSN − 1) */
    uint32_t cum = nak ? rt_add_m(mod, psn, -1) : psn, flags = 0;
    if (nak) flags |= UB_TPF_NAK;
    if (sack) flags |= UB_TPF_SACK;
    bool advance = !q->ack_valid;
    if (q->ack_valid) {
        int32_t d = rt_diff_m(mod, cum, q->acked);
        if (d < 0)
            emit(x, pf->r_ack_psn, sev_psn, fr, q->ack_frame, cum, q->acked, 2, pf->txt[RT_T_ACK_BACK]);
        else if (d == 0 && !nak && !sack && plain) {
            flags |= UB_TPF_DUP_ACK;
            emit(x, pf->r_dup_ack, -1, fr, 0, cum, 0, 1, pf->txt[RT_T_DUP_ACK]);
        }
        advance = d > 0;
    }
    if (q->have_data && rt_diff_m(mod, cum, q->hi) > 0) {
        /* §10.6 f(3): an ack beyond the highest PSN sent on a flow whose data is in the capture */
        emit(x, pf->r_ack_psn, sev_psn, fr, 0, cum, q->hi, 2, pf->txt[RT_T_ACK_BEYOND]);
        if (!pf->ack_resync) return flags; /* discarded by the sender: not judged further */
        q->hi = cum; /* resync: the PSNs up to it were sent, not captured */
    }
    if (advance) {
        gap_ack(x, q, cum);
        /* data <-> first ack covering it (A = 1 or the last packet of an operation) */
        for (unsigned i = 0; i < RT_RING_N && pf->matches; i++) {
            rt_slot *sl = &q->ring[i];
            if ((sl->flags & (RT_SL_VALID | RT_SL_MATCHED)) != RT_SL_VALID || !(sl->flags & (RT_SL_A | RT_SL_LAST))) continue;
            if (rt_diff_m(mod, sl->psn, cum) > 0 || (q->ack_valid && rt_diff_m(mod, sl->psn, q->acked) <= 0)) continue;
            sl->flags |= RT_SL_MATCHED;
            /* kind 2; opcode = the ack's */
            ub_match mt = { sl->frame, fr, p->pi->ts_ns >= sl->ts ? p->pi->ts_ns - sl->ts : 0, 2, (uint16_t)match_op, sl->ts,
                            p->pi->ts_ns };
            ub_st_match(x->s, &mt);
        }
        q->acked = cum;
        q->ack_frame = fr;
        q->ack_valid = 1;
        timer_restart(q, p->pi->ts_ns);
        if (q->nak_pending && rt_diff_m(mod, cum, q->nak_psn) >= 0) q->nak_pending = 0;
    }
    if (nak) {
        /* TP-06: at most one NAK per loss episode */
        if (q->nak_pending && q->nak_psn == psn)
            emit(x, pf->r_nak_replay, -1, fr, q->nak_frame, psn, 0, 1, pf->txt[RT_T_NAK_TWICE]);
        else {
            q->nak_pending = q->have_data ? 1 : 0;
            q->nak_psn = psn;
            q->nak_frame = fr;
            q->nak_ts = p->pi->ts_ns;
            q->rnr_wait_ns = 0; /* rt_seq_rnr sets it for an RNR NAK */
        }
        q->fb_epoch++;
    }
    if (sack) {
        if (bm) sack_bitmap(x, q, psn, bm);
        q->fb_epoch++;
    }
    return flags;
}

/* ================================================================ message sequence (IB AETH MSN) */
void rt_msn(const rt_ctx *x, rt_msn_st *m, uint32_t cum_psn, uint32_t msn, bool judged)
{
    const uint32_t mod = x->pf->modulus;
    msn &= 0xFFFFFF; /* 24-bit MSN */
    if (m->valid) {
        uint32_t dm = (msn - m->msn) & 0xFFFFFF;
        int32_t dp = rt_diff_m(mod, cum_psn, m->psn);
        if (dm >= 0x800000)
            emit(x, x->pf->r_msn, -1, x->p->pi->frame, 0, msn, m->msn, 2, "MSN went backwards");
        else if (judged && m->psn_valid && dp >= 0 && dm > (uint32_t)dp)
            emit(x, x->pf->r_msn, -1, x->p->pi->frame, 0, msn, m->msn, 2,
                 "MSN advanced by more than the PSNs acknowledged since the previous ack");
    }
    m->msn = msn;
    m->valid = 1;
    if (judged) {
        m->psn = cum_psn;
        m->psn_valid = 1;
    }
}

/* ================================================================ end of capture */
void rt_seq_finish_open(const rt_ctx *x, rt_seq *q)
{
    const rt_profile *pf = x->pf;
    /* TP-02 / §10.6 c: gaps neither filled nor acknowledged */
    for (unsigned i = 0; i < q->ngaps; i++) {
        const rt_gap *g = &q->gap[i];
        emit(x, pf->r_lost, g->note ? UB_SEV_NOTE : late_sev(x->s, g->ts_after, -1), g->frame_after, 0, g->lo, g->n, 2,
             pf->txt[RT_T_LOST]);
    }
    /* TP-06: NAK never followed by a resend */
    if (q->nak_pending)
        emit(x, pf->r_nak_replay, late_sev(x->s, q->nak_ts, -1), q->nak_frame, 0, q->nak_psn, 0, 1, pf->txt[RT_T_NAK_OPEN]);
}

void rt_seq_finish_unacked(const rt_ctx *x, rt_seq *q)
{
    const rt_profile *pf = x->pf;
    const uint32_t mod = pf->modulus;
    if (q->ack_valid && rt_diff_m(mod, q->hi, q->acked) <= 0) return;
    /* the oldest unacknowledged packet still in the ring */
    const rt_slot *old = NULL;
    for (unsigned i = 0; i < RT_RING_N; i++) {
        const rt_slot *sl = &q->ring[i];
        if (!(sl->flags & RT_SL_VALID) || (q->ack_valid && rt_diff_m(mod, sl->psn, q->acked) <= 0)) continue;
        if (!old || rt_diff_m(mod, sl->psn, old->psn) < 0) old = sl;
    }
    if (old) emit(x, pf->r_data_unacked, late_sev(x->s, old->ts, -1), old->frame, 0, old->psn, 0, 1, pf->txt[RT_T_UNACKED]);
    /* TP-11: A = 1 packets not covered by any ack */
    for (unsigned i = 0; i < RT_RING_N; i++) {
        const rt_slot *sl = &q->ring[i];
        if ((sl->flags & (RT_SL_VALID | RT_SL_A)) != (RT_SL_VALID | RT_SL_A)) continue;
        if (q->ack_valid && rt_diff_m(mod, sl->psn, q->acked) <= 0) continue;
        emit(x, pf->r_ack_req, late_sev(x->s, sl->ts, -1), sl->frame, 0, sl->psn, 0, 1, pf->txt[RT_T_ACK_REQ]);
    }
}
