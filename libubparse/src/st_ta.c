/* State-engine module "ta": transaction-layer (digest §10.4) and management (§10.5) rules, with
 * the checker defaults of §10.6 a, b, b′, b″, d, e, f.
 *
 * State (all bounded, see init_ta):
 *   tx  outstanding transactions that must be answered, key (initiator, target, RC, INI_TASSN)
 *   mg  outstanding management exchanges, key (initiator, target, MSN) [+ GUID before CNAs exist]
 *   rc  per (initiator, target, RC): newest TASSN/MSN sent (§10.6 f), "a TAACK was received"
 *       (§10.6 a), counters of outstanding writes/ordered requests (TA-06/TA-09) and a ring of the
 *       last RING requests that are answered, take no response, or wait for a TAACK that the
 *       service mode may never send (duplicate/unexpected responses, TA-12 retries)
 *   ch  per RTP channel: a PSN memo that drops TP retransmissions before the transaction layer
 *       (§10.6 b), the multi-packet operation in progress (TA-08) and the last CRING requests
 *       (transport-carried responses in TPACK/TPNAK RSPST, §10.6 a).
 * Addresses: SCNA/DCNA or IP source/destination plus SEID/DEID; responses carry them swapped.
 * UPI is not part of any key. Never keyed on the TP channel (slices may travel on any channel). */
#include "st_ta_int.h"
#include "sumfmt.h"

#include <stdio.h>
#include <stdlib.h>

/* ================================================================ small helpers */
static int32_t psn_diff(uint32_t a, uint32_t b) { return (int32_t)((a - b) << 8) >> 8; } /* mod 2^24 */
static bool is_atomic(unsigned op) { return op >= 0x07 && op <= 0x0F; }
static bool is_write(unsigned op) { return op == 0x03 || op == 0x04 || op == 0x05 || op == 0x14 || op == 0x17 || op == 0x18; }
static bool is_send(unsigned op) { return op <= 0x01; }
/* §7.4, TA-01: the response type of a request */
static unsigned want_rsp(unsigned op) { return op == 0x06 ? 0x12 : is_atomic(op) ? 0x13 : 0x11; }
/* content of a packet: identifies DLL replays in flit captures (§10.6 d). The block CRC (or the
 * ICRC) already covers every byte; without either, the TAH and payload heads are hashed. 0 for
 * other entry points, where a replay cannot appear and identical copies are real duplicates. */
static uint64_t wmix(uint64_t h, uint64_t v);
static uint64_t head_word(const ub_layer *l, uint32_t o)
{
    uint64_t w = 0;
    if (l && o < l->len) memcpy(&w, l->data + o, l->len - o < 8 ? l->len - o : 8);
    return w;
}
uint32_t ub_ta_pkt_hash(const ub_pkt *p, const ub_layer *from)
{
    if (!from || !flit_entry(p)) return 0;
    uint64_t h = wmix(p->v->pkt_len, p->payload_len);
    if (p->cut) { /* cut by the snapshot length, no CRC captured: the bytes present */
        for (uint32_t o = 0; o + 8 <= p->v->pkt_len; o += 8) {
            uint64_t w;
            memcpy(&w, p->v->pkt + o, 8);
            h = wmix(h, w);
        }
        return (uint32_t)(h ^ (h >> 32)) | 1u;
    }
    if (p->bcrc) h = wmix(h, head_word(p->bcrc, 0));
    if (p->icrc) h = wmix(h, head_word(p->icrc, 0));
    if (!p->bcrc && !p->icrc)
        for (uint32_t o = 0; o < 16; o += 8) h = wmix(wmix(h, head_word(from, o)), head_word(p->payload, o));
    return (uint32_t)(h ^ (h >> 32)) | 1u;
}
/* a compact ATAH decoded where the TAACK has 8 bytes (R-25 picks the format per CFG): the response
 * really is full format; a full ATAH cut to 4 bytes is a compact one */
static bool rsp_compact(const ub_pkt *p, unsigned op)
{
    const ub_layer *a = p->atah;
    bool c = a->hdr->id == UB_H_ATAH_C;
    if (op != 0x11) return c;
    if (!c) return a->len == 4;
    const ub_layer *next = a + 1;
    const ub_layer *end = &p->v->layer[p->v->nlayers];
    if (next < end && next->hdr->id == UB_H_DATA && next->data == a->data + 4 && next->len == 4) return false;
    return true;
}

/* ---------------------------------------------------------------- keys */
/* The endpoints (addresses of any length + EIDs [+ GUID]) are folded into one 64-bit word with a
 * word-wise mixer, so the table keys stay short (13/15 bytes) and cheap to hash. A fold collision
 * (probability ~2^-64 per pair of endpoint sets) would merge two keys. */
static uint64_t wmix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}
static uint64_t addr_fold(uint64_t h, const ub_addr *a)
{
    uint64_t w0, w1;
    ub_addr_words(a, &w0, &w1);
    return wmix(wmix(wmix(h, a->len > 16 ? 16 : a->len), w0), w1);
}
/* kind(1) + endpoint fold(8) + rck(4); + 2 bytes sequence number for the exchange keys. The fold of
 * the last two endpoint sets is remembered (m->epm): a capture's packets come in runs of one pair,
 * and a compare costs less than the fold's eight mixes; the key is the same either way. */
void ub_ta_rc_key(mod_ta *m, ub_key *k, uint8_t kind, const ub_addr *ia, uint64_t ie, const ub_addr *ta, uint64_t te,
                  uint32_t rck, uint64_t extra)
{
    struct ta_epmemo *e = NULL;
    for (unsigned i = 0; i < 2 && !e; i++) {
        struct ta_epmemo *x = &m->epm[i];
        if (x->ok && x->kind == kind && x->ie == ie && x->te == te && x->extra == extra && ub_addr_same(&x->ia, ia) &&
            ub_addr_same(&x->ta, ta))
            e = x;
    }
    if (!e) {
        e = &m->epm[m->epm_next];
        m->epm_next ^= 1u;
        e->ia = *ia;
        e->ta = *ta;
        e->ie = ie;
        e->te = te;
        e->extra = extra;
        e->kind = kind;
        e->ok = 1;
        e->fold = wmix(wmix(wmix(addr_fold(addr_fold(kind, ia), ta), ie), te), extra);
    }
    k->len = 0;
    ub_key_add(k, &kind, 1);
    ub_key_u64(k, e->fold);
    ub_key_add(k, &rck, 4);
}
void ub_ta_key_sn(ub_key *k, const ub_key *rk, uint16_t sn)
{
    *k = *rk;
    ub_key_add(k, &sn, 2);
}
static void key_prefix(ub_key *rk, const ub_key *k)
{
    *rk = *k;
    rk->len = (uint8_t)(k->len >= 2 ? k->len - 2 : 0);
}

void ub_ta_kt_ep(kt_t *k, const ub_addr *ia, const ub_addr *ta, const char *what, uint32_t rck, unsigned sn)
{
    k->ia = ia;
    k->ta = ta;
    k->what = what;
    k->rck = rck;
    k->sn = sn;
    k->text[0] = 0;
}
/* at most max bytes of a ("%.<max>s") */
static void put_max(ub_sbuf *s, const char *a, size_t max)
{
    size_t l = 0;
    while (l < max && a[l]) l++;
    ub_sb_put(s, a, l);
}
/* "%.47s" of the text, or "%.47s>%.47s[ rc 0x%x] %.8s %u", cut to n - 1 bytes (appenders, no printf:
 * the plugin keeps every finding's text) */
static void kt_fmt(const kt_t *k, char *b, size_t n)
{
    ub_sbuf s = { b, n, 0 };
    if (!k->ia) put_max(&s, k->text, 47);
    else {
        char x[48], y[48];
        ub_addr_str(k->ia, x, sizeof x);
        ub_addr_str(k->ta, y, sizeof y);
        put_max(&s, x, 47);
        ub_sb_chr(&s, '>');
        put_max(&s, y, 47);
        if (k->rck < RCK_COMPACT) {
            ub_sb_lit(&s, " rc 0x");
            ub_sb_hex(&s, k->rck, 0);
        }
        ub_sb_chr(&s, ' ');
        put_max(&s, k->what, 8);
        ub_sb_chr(&s, ' ');
        ub_sb_u64(&s, k->sn);
    }
    ub_sb_end(&s);
}

/* ---------------------------------------------------------------- findings */
void ub_ta_emit(mod_ta *m, unsigned rule, int sev, uint64_t frame, uint64_t f1, uint64_t f2, int64_t v0, int64_t v1,
                 unsigned nv, const char *detail, const char *key, const kt_t *kt)
{
    uint64_t fr[2] = { f1, f2 };
    int64_t v[2] = { v0, v1 };
    char buf[64];
    if (kt && !ub_st_want_text(m->s, rule, frame)) kt = NULL; /* only counted: no text */
    if (kt) kt_fmt(kt, buf, sizeof buf);
    ub_st_emit(m->s, rule, sev, frame, fr, 2, v, nv, detail, key, kt ? buf : NULL);
}

/* ================================================================ per-RC memo */
rc_ent *ub_ta_rc_get(mod_ta *m, const ub_key *rk)
{
    return (rc_ent *)ub_tbl_get(&m->rc, rk, NULL);
}
void ub_ta_rc_sent(rc_ent *rc, uint16_t sn)
{
    if (!rc->has_newest || sn_newer(sn, rc->newest)) rc->newest = sn;
    rc->has_newest = 1;
}
ring_ent *ub_ta_ring_find(rc_ent *rc, uint16_t sn)
{
    if (!rc || !rc->rcnt[sn % RING]) return NULL;
    /* newest first: from the head down to 0, then from the end down to the head */
    for (unsigned i = rc->rhead % RING; i-- > 0;)
        if (rc->ring[i].sn == sn && rc->ring[i].req_frame) return &rc->ring[i];
    for (unsigned i = RING; i-- > rc->rhead % RING;)
        if (rc->ring[i].sn == sn && rc->ring[i].req_frame) return &rc->ring[i];
    return NULL;
}
ring_ent *ub_ta_ring_push(rc_ent *rc, uint16_t sn)
{
    ring_ent *e = &rc->ring[rc->rhead];
    if (rc->rfill < RING) rc->rfill++;
    else rc->rcnt[e->sn % RING]--; /* the entry overwritten */
    rc->rhead = (uint8_t)((rc->rhead + 1) % RING);
    memset(e, 0, sizeof *e);
    e->sn = sn;
    rc->rcnt[sn % RING]++;
    return e;
}

static void tx_evict(void *mv, ub_tent *e)
{
    mod_ta *m = (mod_ta *)mv;
    tx_ent *t = (tx_ent *)((uint8_t *)e + sizeof(ub_tent));
    ub_key rk;
    key_prefix(&rk, &e->key);
    rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rk);
    if (rc && (t->flags & TXF_WRITE) && rc->out_writes) rc->out_writes--;
    if (rc && (t->flags & TXF_ORDERED) && rc->out_ordered) rc->out_ordered--;
}

/* ================================================================ RTP channel memo */
/* true if this PSN was already seen on the channel (TP retransmission, §10.6 b) */
static bool ch_seen(ch_ent *c, uint32_t psn)
{
    psn &= 0xFFFFFFu;
    int32_t d = c->valid ? psn_diff(psn, c->high) : 0;
    if (!c->valid || d <= -(1 << 20)) { /* first packet, or a new channel instance (new initial PSN) */
        c->valid = 1;
        c->high = psn;
        c->bm[0] = 1;
        c->bm[1] = 0;
        c->open = 0;
        return false;
    }
    if (d > 0) {
        if (d >= 128) c->bm[0] = c->bm[1] = 0;
        else if (d >= 64) { c->bm[1] = c->bm[0] << (d - 64); c->bm[0] = 0; }
        else { c->bm[1] = (c->bm[1] << d) | (c->bm[0] >> (64 - d)); c->bm[0] <<= d; }
        c->bm[0] |= 1;
        c->high = psn;
        return false;
    }
    uint32_t back = (uint32_t)-d;
    if (back >= 128) return true; /* older than the memo: taken as a retransmission */
    uint64_t bit = 1ull << (back & 63);
    uint64_t *w = &c->bm[back >> 6];
    if (*w & bit) return true;
    *w |= bit; /* first copy arriving late (reordering) */
    return false;
}
static void ch_push_req(ch_ent *c, const ub_pkt *p, uint32_t rck, uint16_t tassn, uint32_t psn)
{
    for (unsigned i = 0; i < CRING; i++)
        if (c->req[i].used && c->req[i].tassn == tassn && c->req[i].rck == rck && c->req[i].seid == p->seid) {
            c->req[i].psn = psn; /* later packet of the same operation */
            return;
        }
    ch_req *r = &c->req[c->rhead];
    c->rhead = (uint8_t)((c->rhead + 1) % CRING);
    r->seid = p->seid;
    r->deid = p->deid;
    r->psn = psn;
    r->rck = rck;
    r->tassn = tassn;
    r->used = 1;
}
static void ch_key(ub_key *k, const ub_addr *src, const ub_addr *dst, uint32_t stpn, uint32_t dtpn)
{
    uint8_t kind = 'C';
    k->len = 0;
    ub_key_add(k, &kind, 1);
    ub_key_u64(k, addr_fold(addr_fold(kind, src), dst));
    ub_key_add(k, &stpn, 4);
    ub_key_add(k, &dtpn, 4);
}

/* ================================================================ transactions: answering */
typedef struct rsp_info {
    unsigned op;        /* 0x11..0x13, or 0 for a transport-carried status */
    bool compact;       /* format of the response */
    unsigned rspst, rspinfo, status;
    bool abnormal_retry, failed;
    uint32_t hash;
} rsp_info;

/* RSPST 001 (RNR): RSPINFO is RNR_Timer, valid 0..19 (Table 7-3, Table 6-2); kept + 1 (0: no RNR) */
static uint8_t rnr_code(const rsp_info *r) { return !r->compact && r->rspst == 1 && r->rspinfo <= 19 ? (uint8_t)(r->rspinfo + 1) : 0; }

static void rsp_status(rsp_info *r)
{
    r->abnormal_retry = !r->compact && (r->rspst == 1 || r->rspst == 2);
    r->failed = r->compact ? r->status == 1 : r->rspst == 3;
}

/* checks common to every request-response pair (TA-01, TA-02, Table 7-3) */
static void pair_checks(mod_ta *m, const ub_pkt *p, const rsp_info *r, unsigned req_op, bool req_compact,
                        uint64_t req_frame, const kt_t *kt)
{
    if (r->op && req_compact != r->compact)
        ub_ta_emit(m, UB_R_TA_FORMAT, -1, p->pi->frame, req_frame, 0, req_compact, r->compact, 2,
             req_compact ? "compact request answered in full format" : "full-format request answered in compact format",
             "transaction", kt);
    if (r->op && want_rsp(req_op) != r->op)
        ub_ta_emit(m, UB_R_TA_WRONG_TYPE, -1, p->pi->frame, req_frame, 0, req_op, r->op, 2,
             req_op == 0x06 ? "Read answered with something else than a Read_response"
             : is_atomic(req_op) ? "Atomic answered with something else than an Atomic_response"
                                 : "Write/Send answered with something else than a TAACK",
             "transaction", kt);
    if (r->abnormal_retry || r->failed)
        ub_ta_emit(m, UB_R_TA_ERROR_STATUS, -1, p->pi->frame, req_frame, 0, r->compact ? r->status : r->rspst,
             r->compact ? 0 : r->rspinfo, 2,
             r->compact ? "compact response Status = fail"
             : r->rspst == 1 ? "RNR" : r->rspst == 2 ? "Page Fault" : "Completer Error",
             "transaction", kt);
}

void ub_ta_send_match(mod_ta *m, uint64_t req_frame, uint64_t req_ts, uint64_t rsp_frame, uint64_t rsp_ts,
                       uint8_t kind, uint16_t opcode)
{
    ub_match mt = { req_frame, rsp_frame, rsp_ts > req_ts ? rsp_ts - req_ts : 0, kind, opcode, req_ts, rsp_ts };
    ub_st_match(m->s, &mt);
}

/* Answer the outstanding transaction t (key tk). Returns false if the response is not complete
 * yet (multi-packet Read_response). */
static bool tx_answer(mod_ta *m, const ub_pkt *p, const ub_key *tk, tx_ent *t, const rsp_info *r, const kt_t *kt)
{
    bool first = !(t->flags & TXF_RSP_OPEN); /* later packets of a Read_response: checked once */
    if (first) pair_checks(m, p, r, t->op, t->flags & TXF_COMPACT, t->frame, kt);
    bool bad = r->abnormal_retry || r->failed;
    if (first && r->op && r->op != 0x11 && !r->compact && (r->rspst == 0 || r->rspst == 5) && r->rspinfo)
        ub_ta_emit(m, UB_R_TA_AGGREGATION, -1, p->pi->frame, t->frame, 0, t->tassn, r->rspinfo, 2,
             "aggregation count in a Read/Atomic response (only TAACKs aggregate)", "transaction", kt);
    if (r->op == 0x12 || r->op == 0x13) {
        /* payload bytes, without TAIDETAH/OFSTETAH the decoder could not know about */
        uint32_t extra = ((t->flags & TXF_TAID) && !p->taidetah ? 4u : 0u) +
                         (r->op == 0x12 && (t->flags & TXF_OFST) && !p->ofstetah ? 4u : 0u);
        uint32_t bytes = p->payload_len > extra ? p->payload_len - extra : 0;
        if (r->op == 0x12 && t->op == 0x06) {
            bool last = p->rtph ? p->sum.rt_last : true;
            if (first) { t->rsp_frame = p->pi->frame; t->rsp_ts = p->pi->ts_ns; }
            t->rsp_bytes += bytes;
            t->rsp_bad |= p->malformed || p->cut; /* payload of a damaged or cut packet: no length verdict */
            if (!last) { /* §7.4.2.2: a Read_response may span TP packets, all with the Read's TASSN */
                t->flags |= TXF_RSP_OPEN;
                t->rsp_hash = r->hash;
                return false;
            }
            bool cm = t->flags & TXF_COMPACT;
            if (!bad && !t->rsp_bad && t->rsp_bytes != t->exp_len)
                ub_ta_emit(m, UB_R_TA_LENGTH, cm ? UB_SEV_WARN : -1, p->pi->frame, t->frame, 0, t->rsp_bytes, t->exp_len, 2,
                     cm ? "Read_response payload differs from the Read's compact MAETAH.Length (R-24)"
                        : "Read_response payload differs from the Read's MAETAH.Length",
                     "transaction", kt);
        } else if (r->op == 0x13 && is_atomic(t->op) && !bad && !p->malformed && !p->cut) {
            uint32_t want = t->op == 0x09 ? 0 : t->exp_len; /* TA-10: Atomic_store returns no data */
            if (bytes != want)
                ub_ta_emit(m, UB_R_TA_ATOMIC, (t->flags & TXF_COMPACT) ? UB_SEV_WARN : -1, p->pi->frame, t->frame, 0, bytes, want, 2,
                     t->op == 0x09 ? "Atomic_store response carries a payload" : "Atomic_response payload differs from the operand length",
                     "transaction", kt);
        }
    }
    uint64_t rsp_frame = (t->flags & TXF_RSP_OPEN) ? t->rsp_frame : p->pi->frame;
    uint64_t rsp_ts = (t->flags & TXF_RSP_OPEN) ? t->rsp_ts : p->pi->ts_ns;
    ub_ta_send_match(m, t->frame, t->ts, rsp_frame, rsp_ts, 0, t->op);
    tx_ent c = *t;
    ub_tbl_remove(&m->tx, t);
    ub_key rk;
    key_prefix(&rk, tk);
    rc_ent *rc = ub_ta_rc_get(m, &rk);
    if (!rc) return true;
    if ((c.flags & TXF_WRITE) && rc->out_writes) rc->out_writes--;
    if ((c.flags & TXF_ORDERED) && rc->out_ordered) rc->out_ordered--;
    if ((c.flags & TXF_ALLOC) && rc->alloc_pending && rc->alloc_tassn == c.tassn) rc->alloc_pending = 0;
    if (r->op == 0x11) rc->taack_seen = 1;
    ring_ent *e = ub_ta_ring_push(rc, c.tassn);
    e->op = c.op;
    e->flags = (uint8_t)(R_ANSWERED | (r->abnormal_retry ? R_RETRYABLE : 0) | (r->failed ? R_FAILED : 0) |
                         ((c.flags & TXF_COMPACT) ? R_COMPACT : 0));
    e->req_frame = c.frame;
    e->req_ts = c.ts;
    e->rsp_frame = rsp_frame;
    e->rsp_ts = rsp_ts;
    e->rnr = rnr_code(r);
    e->req_hash = c.req_hash;
    e->rsp_hash = r->hash;
    return true;
}

/* answer a request remembered in the ring (Write/Send waiting for an optional TAACK) */
static void ring_answer(mod_ta *m, const ub_pkt *p, rc_ent *rc, ring_ent *e, const rsp_info *r, const kt_t *kt)
{
    pair_checks(m, p, r, e->op, e->flags & R_COMPACT, e->req_frame, kt);
    ub_ta_send_match(m, e->req_frame, e->req_ts, p->pi->frame, p->pi->ts_ns, 0, e->op);
    e->flags = (uint8_t)((e->flags & ~R_SPEC) | R_ANSWERED | (r->abnormal_retry ? R_RETRYABLE : 0) | (r->failed ? R_FAILED : 0));
    e->rsp_frame = p->pi->frame;
    e->rsp_ts = p->pi->ts_ns;
    e->rnr = rnr_code(r);
    e->rsp_hash = r->hash;
    if (r->op == 0x11) rc->taack_seen = 1;
}

/* a response whose request is not outstanding: duplicate, unexpected or unsolicited (§10.6 f) */
static void rsp_orphan(mod_ta *m, const ub_pkt *p, const ub_key *rks, unsigned nrk, uint16_t tassn, const rsp_info *r,
                       const kt_t *kt)
{
    for (unsigned i = 0; i < nrk; i++) {
        rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rks[i]);
        ring_ent *e = ub_ta_ring_find(rc, tassn);
        if (!e) continue;
        if (!(e->flags & R_ANSWERED)) {
            if (e->flags & R_NONE) {
                ub_ta_emit(m, UB_R_TA_UNEXPECTED, -1, p->pi->frame, e->req_frame, 0, e->op, r->op, 2,
                     "response to a request that takes none (No_TAACK = 1, UTP, Prefetch_tgt, Management)", "transaction", kt);
                e->flags |= R_ANSWERED;
                e->rsp_frame = p->pi->frame;
                e->rsp_hash = r->hash;
            } else {
                ring_answer(m, p, rc, e, r, kt);
            }
            return;
        }
        if (flit_entry(p) && e->rsp_hash == r->hash) return; /* DLL replay of the response (§10.6 d) */
        bool abn = e->flags & (R_RETRYABLE | R_FAILED);
        ub_ta_emit(m, UB_R_TA_DUP_RESPONSE, abn ? UB_SEV_NOTE : -1, p->pi->frame, e->req_frame, e->rsp_frame, tassn, 0, 1,
             abn ? "second response after an abnormal first response (no Retry = 1 request seen)" : "request answered more than once",
             "transaction", kt);
        return;
    }
    /* §10.6 f (1): ahead of the newest TASSN the requester sent to that target → error */
    for (unsigned i = 0; i < nrk; i++) {
        rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rks[i]);
        if (!rc || !rc->has_newest) continue;
        if (sn_newer(tassn, rc->newest)) {
            ub_ta_emit(m, UB_R_TA_UNSOLICITED, UB_SEV_ERROR, p->pi->frame, 0, 0, tassn, rc->newest, 2,
                 "response for a TASSN the requester has not sent yet", "transaction", kt);
            return;
        }
        break;
    }
    ub_ta_emit(m, UB_R_TA_UNSOLICITED, -1, p->pi->frame, 0, 0, tassn, 0, 1, "response without its request in the capture",
         "transaction", kt);
}

/* ================================================================ transactions: requests */
static void ta_request(mod_ta *m, const ub_pkt *p, ch_ent *ch)
{
    ub_state *s = m->s;
    const ub_layer *b = p->btah;
    const ub_pktsum *u = &p->sum; /* the BTAH's values (pktsum.h) */
    unsigned op = u->bt_op;
    if (op == 0x02 || op == 0x16 || op > 0x18 || (op >= 0x10 && op <= 0x13)) return; /* reserved: decode finding */
    bool compact = b->hdr->id == UB_H_BTAH_C;
    uint16_t tassn = u->bt_tassn;
    unsigned rctype = compact ? 0 : u->bt_rctype;
    uint32_t rcid = compact ? 0 : u->bt_rcid;
    uint32_t rck = compact ? RCK_COMPACT : rctype == 2 ? RCK_SCID : rcid;
    bool notaack = !compact && u->bt_notaack; /* I-34 alternative: TAK_EN polarity unknown → 0 */
    unsigned odr = compact ? 0 : u->bt_odr & 3u;
    bool retry = !compact && u->bt_retry, alloc = !compact && u->bt_alloc;
    bool last = p->rtph ? p->sum.rt_last : p->utph ? fget(&m->ut_last, p->utph) : true;
    uint32_t psn = p->sum.rt_psn; /* 0 without an RTPH */
    uint32_t h = ub_ta_pkt_hash(p, b);
    uint64_t frame = p->pi->frame, ts = p->pi->ts_ns;
    ub_key rk, tk;
    ub_ta_rc_key(m, &rk, 'T', &p->src, p->seid, &p->dst, p->deid, rck, 0);
    ub_ta_key_sn(&tk, &rk, tassn);
    kt_t kt[1];
    ub_ta_kt_ep(kt, &p->src, &p->dst, "TASSN", rck, tassn);

    /* address / offset of this packet (TA-08): kept per RTP channel only */
    uint64_t addr = ch && p->maetah ? fget(&m->ma_addr, p->maetah) : 0;
    uint32_t off = ch && p->ofstetah ? (uint32_t)fget(&m->of_off, p->ofstetah) : 0;

    /* packets after the first of a multi-packet operation on an RTP channel (same TASSN) */
    if (ch && ch->open && ch->tassn == tassn && ch->rck == rck) {
        if (ch->has_addr && p->maetah && addr != ch->next_addr)
            ub_ta_emit(m, UB_R_TA_CONTINUITY, -1, frame, ch->last_frame, 0, (int64_t)addr, (int64_t)ch->next_addr, 2,
                 "MAETAH.Address is not the previous packet's address + its payload (TP MTU)", "transaction", kt);
        if (ch->has_off && p->ofstetah && off != ch->next_off)
            ub_ta_emit(m, UB_R_TA_CONTINUITY, -1, frame, ch->last_frame, 0, off, ch->next_off, 2,
                 "OFSTETAH.Offset does not advance by the KB count of the previous packet", "transaction", kt);
        ch->next_addr = addr + p->payload_len;
        ch->next_off = off + p->payload_len / 1024u;
        /* ns-3-UB models no addresses (MAETAH.Address always 0): nothing to check there */
        ch->has_addr = p->maetah != NULL && !p->cut && !(addr == 0 && ub_pf(p->v->opts, UB_PF_NO_ADDRESS));
        ch->has_off = p->ofstetah != NULL && !p->cut; /* a cut packet's payload length is not known */
        ch->last_frame = frame;
        ch->open = !last;
        tx_ent *t = (tx_ent *)ub_tbl_find(&m->tx, &tk);
        if (t) {
            t->last_ts = ts;
            t->req_hash = h;
            if (op == 0x05 || op == 0x04 || op == 0x01) t->op = (uint8_t)op; /* last packet names the operation */
        }
        ch_push_req(ch, p, rck, tassn, psn);
        return;
    }

    /* R-25 picks compact for this CFG but the opcode forces a full BTAH: the response may come back
     * (or be decoded) in compact form, without INI_RC_ID; remember the RC per pair (TA-02) */
    int cfg = p->cfg >= 0 && p->cfg < 16 ? p->cfg : 0;
    if (!compact && p->v->opts && p->v->opts->tah_fmt[cfg] == UB_TAH_COMPACT) {
        ub_key ck;
        ub_ta_rc_key(m, &ck, 'T', &p->src, p->seid, &p->dst, p->deid, RCK_COMPACT, 0);
        rc_ent *cr = ub_ta_rc_get(m, &ck);
        if (cr) { cr->last_full_rck = rck; cr->has_full = 1; }
    }
    rc_ent *rc = ub_ta_rc_get(m, &rk); /* after the memo: an insert may move rc entries */
    if (!rc) return;
    /* §10.6 a: which requests need a response */
    int need;
    if (p->tp_kind == UB_TP_UTP || op == 0x15) need = NEED_NONE;
    else if (op == 0x06 || is_atomic(op)) need = NEED_YES;
    else if (notaack && (is_write(op) || is_send(op))) need = NEED_NONE;
    else if (is_send(op) || (is_write(op) && p->tp_kind == UB_TP_RTP))
        need = (s->cfg.expect_taack || rc->taack_seen) ? NEED_YES : NEED_SPEC;
    else need = NEED_YES; /* Write family over CTP (No_TAACK = 0, compact) or TP Bypass */
    ring_ent *prev = ub_ta_ring_find(rc, tassn);
    bool prev_open = prev && !(prev->flags & R_ANSWERED);
    if (prev_open && flit_entry(p) && prev->req_hash == h) return; /* DLL replay (§10.6 d) */

    /* same key already outstanding (for a request that needs a response: found by the insert) */
    bool created = false;
    tx_ent *t = need == NEED_YES ? (tx_ent *)ub_tbl_get(&m->tx, &tk, &created) : (tx_ent *)ub_tbl_find(&m->tx, &tk);
    if (need == NEED_YES && !t) return;
    if (t && !created) {
        if (flit_entry(p) && t->req_hash == h) return; /* DLL replay (§10.6 d) */
        if (!retry)
            ub_ta_emit(m, UB_R_TA_SLICING, -1, frame, t->frame, 0, tassn, op, 2,
                 p->tp_kind == UB_TP_RTP ? "a second request with the TASSN of an outstanding request"
                                         : "one packet per TASSN under CTP / TP Bypass",
                 "transaction", kt);
        t->last_ts = ts; /* a Retry = 1 copy of an unanswered request re-arms the timeout */
        t->req_hash = h;
        return;
    }
    /* single-packet rules: Last = 0 on an operation that must fit one packet */
    if (!last) {
        if (is_atomic(op))
            ub_ta_emit(m, UB_R_TA_ATOMIC, -1, frame, 0, 0, op, tassn, 2, "Atomic spans more than one packet (single packet only)",
                 "transaction", kt);
        else if (op == 0x14 || op == 0x18)
            ub_ta_emit(m, UB_R_TA_BE, -1, frame, 0, 0, op, tassn, 2, "Write_with_be / Writeback_with_be spans more than one packet",
                 "transaction", kt);
        else if (op == 0x06 || op == 0x17 || op == 0x15)
            ub_ta_emit(m, UB_R_TA_SLICING, -1, frame, 0, 0, tassn, op, 2, "single-packet request spans more than one packet",
                 "transaction", kt);
        else if (p->utph)
            ub_ta_emit(m, UB_R_TA_BE, -1, frame, 0, 0, op, tassn, 2, "UNO (UTP) transaction larger than one TP packet (TA-11)",
                 "transaction", kt);
    }
    /* TA_LENGTH: MAETAH.Length vs the payload of a single-packet Write */
    if (last && is_write(op) && !p->malformed && !p->cut && ub_fh_has(&m->ma_len, p->maetah)) {
        uint64_t l = fget(&m->ma_len, p->maetah);
        bool cm = p->maetah->hdr->id == UB_H_MAETAH_C;
        uint64_t want = cm ? (64ull << l) : l; /* compact Length = 64 B << code */
        if (want != p->payload_len) /* a check on the reconstructed compact layout is a warning */
            ub_ta_emit(m, UB_R_TA_LENGTH, cm ? UB_SEV_WARN : -1, frame, 0, 0, p->payload_len, (int64_t)want, 2,
                 cm ? "payload of a single-packet Write differs from the compact MAETAH.Length (64 B << Length, R-24)"
                    : "payload of a single-packet Write differs from MAETAH.Length",
                 "transaction", kt);
    }
    if (ch) { /* start of an operation on this channel */
        ch->open = !last;
        ch->tassn = tassn;
        ch->rck = rck;
        ch->has_addr = p->maetah != NULL && !p->cut && !(addr == 0 && ub_pf(p->v->opts, UB_PF_NO_ADDRESS));
        ch->has_off = p->ofstetah != NULL && !p->cut; /* a cut packet's payload length is not known */
        ch->next_addr = addr + p->payload_len;
        ch->next_off = off + p->payload_len / 1024u;
        ch->last_frame = frame;
    }

    if (prev_open && !retry && p->tp_kind != UB_TP_RTP)
        ub_ta_emit(m, UB_R_TA_SLICING, -1, frame, prev->req_frame, 0, tassn, op, 2, "one packet per TASSN under CTP / TP Bypass",
             "transaction", kt);
    /* TA-12: Retry = 1 only after RNR / Page Fault; never an Atomic after it failed */
    if (retry && prev && (prev->flags & R_ANSWERED) && !(prev->flags & R_RETRYABLE))
        ub_ta_emit(m, UB_R_TA_RETRY, -1, frame, prev->req_frame, 0, tassn, op, 2,
             (prev->flags & R_FAILED) && is_atomic(op) ? "Atomic retransmitted after a failed Atomic_response"
             : (prev->flags & R_FAILED)                ? "Retry = 1 after a failed (not RNR / Page Fault) response"
                                                       : "Retry = 1 but the earlier copy was answered normally",
             "transaction", kt);
    /* TA-12 / Table 7-3: after an RNR response the retry waits RNR_Timeout = 2 µs · 2^RNR_Timer (UB-TA-019) */
    if (retry && prev && (prev->flags & R_ANSWERED) && prev->rnr && ts >= prev->rsp_ts) {
        uint64_t timeout = 2000ull << (prev->rnr - 1), waited = ts - prev->rsp_ts;
        if (waited < timeout)
            ub_ta_emit(m, UB_R_TA_RNR_EARLY, -1, frame, prev->rsp_frame, prev->req_frame, (int64_t)waited, (int64_t)timeout, 2,
                 "retried before the RNR_Timeout of the RNR response elapsed", "transaction", kt);
    }
    ub_ta_rc_sent(rc, tassn);

    bool ordered = !compact && (odr == 1 || odr == 2) && rctype != 2;
    /* TA-09: Write_with_notify / Write_with_immediate before the TAACKs of earlier Writes */
    if ((op == 0x05 || op == 0x04) && rc->out_writes) {
        uint64_t cite = 0;
        for (unsigned d = 1; d <= 64 && !cite; d++) {
            ub_key k2;
            ub_ta_key_sn(&k2, &rk, (uint16_t)(tassn - d));
            tx_ent *w = (tx_ent *)ub_tbl_find(&m->tx, &k2);
            if (w && (w->flags & TXF_WRITE)) cite = w->frame;
        }
        ub_ta_emit(m, UB_R_TA_NOTIFY_ORDER, -1, frame, cite, 0, op, tassn, 2,
             "notify/immediate Write sent before the TAACKs of earlier Writes (allowed only in ROT/ROL)", "transaction", kt);
    }
    /* TA-06 (observable part): an SO request before the responses of earlier RO/SO requests */
    if (ordered && odr == 2 && rc->out_ordered) {
        uint64_t cite = 0;
        for (unsigned d = 1; d <= 64 && !cite; d++) {
            ub_key k2;
            ub_ta_key_sn(&k2, &rk, (uint16_t)(tassn - d));
            tx_ent *w = (tx_ent *)ub_tbl_find(&m->tx, &k2);
            if (w && (w->flags & TXF_ORDERED)) cite = w->frame;
        }
        ub_ta_emit(m, UB_R_TA_ORDER, -1, frame, cite, 0, op, tassn, 2,
             "ODR = SO request sent before earlier RO/SO requests were answered (ROI)", "transaction", kt);
    }

    if (need == NEED_YES) { /* t was inserted above (an eviction there leaves rc valid: other table) */
        memset(t, 0, sizeof *t);
        t->frame = frame;
        t->ts = t->last_ts = ts;
        t->tassn = tassn;
        t->op = (uint8_t)op;
        t->rcid = rcid;
        t->req_hash = h;
        t->flags = (uint8_t)((compact ? TXF_COMPACT : 0) | (p->taidetah ? TXF_TAID : 0) | (p->ofstetah ? TXF_OFST : 0));
        if (p->maetah && (op == 0x06 || is_atomic(op))) {
            uint64_t l = fget(&m->ma_len, p->maetah);
            t->exp_len = (uint32_t)(p->maetah->hdr->id == UB_H_MAETAH_C ? (64ull << (l & 7)) : l);
        }
        if (is_write(op)) { t->flags |= TXF_WRITE; rc->out_writes++; }
        if (ordered) { t->flags |= TXF_ORDERED; rc->out_ordered++; }
        if (alloc) {
            t->flags |= TXF_ALLOC;
            if (!rc->alloc_pending) { rc->alloc_pending = 1; rc->alloc_tassn = tassn; }
        }
    } else {
        ring_ent *e = ub_ta_ring_push(rc, tassn);
        e->op = (uint8_t)op;
        e->flags = (uint8_t)((need == NEED_NONE ? R_NONE : R_SPEC) | (compact ? R_COMPACT : 0));
        e->req_frame = frame;
        e->req_ts = ts;
        e->req_hash = h;
    }
    if (ch && need != NEED_NONE) ch_push_req(ch, p, rck, tassn, psn);
}

/* ================================================================ transactions: responses */
static void ta_response(mod_ta *m, const ub_pkt *p)
{
    const ub_layer *a = p->atah;
    unsigned op = (unsigned)fget(&m->at_op, a);
    if (op < 0x11 || op > 0x13) return;
    rsp_info r = { .op = op };
    r.compact = rsp_compact(p, op);
    ub_layer full; /* an 8-byte TAACK that R-25 decoded as compact + 4 bytes: read it as the full ATAH */
    if (a->hdr->id == UB_H_ATAH_C && !r.compact) {
        full = *a;
        full.hdr = ub_hdr_get(UB_H_ATAH);
        full.len = 8;
        a = &full;
    }
    bool have_full = (a->hdr->id == UB_H_ATAH || a->hdr->id == UB_H_BTAH) && a->len >= 8; /* RC fields readable */
    uint16_t tassn = (uint16_t)fget(&m->at_tassn, a);
    uint32_t rcid = have_full ? (uint32_t)fget(&m->at_rcid, a) : 0;
    if (have_full) {
        r.rspst = (unsigned)fget(&m->at_rspst, a);
        r.rspinfo = (unsigned)fget(&m->at_rspinfo, a);
    } else if (a->hdr->id == UB_H_ATAH_C) {
        r.status = (unsigned)fget(&m->at_status, a);
    }
    rsp_status(&r);
    r.hash = ub_ta_pkt_hash(p, a);
    bool sv = have_full && fget(&m->at_sv, a);
    /* responses carry the addresses swapped: initiator = destination */
    /* keys tried in turn: the echoed INI_RC_ID, the SCID form of INI_RC_Type 10 requests (I-38), and
     * the compact form (also a format mismatch); the last two are built only when needed */
    ub_key rks[3];
    unsigned nrk = have_full ? 3 : 1, built = 1;
    ub_ta_rc_key(m, &rks[0], 'T', &p->dst, p->deid, &p->src, p->seid, have_full ? rcid : RCK_COMPACT, 0);
    if (!have_full) { /* compact: also the RC of the pair's last full-format request (TA-02) */
        rc_ent *cr = (rc_ent *)ub_tbl_find(&m->rc, &rks[0]);
        if (cr && cr->has_full) ub_ta_rc_key(m, &rks[nrk++], 'T', &p->dst, p->deid, &p->src, p->seid, cr->last_full_rck, 0);
        built = nrk;
    }
#define RKS_ALL()                                                                              \
    do {                                                                                       \
        if (built < nrk) {                                                                     \
            ub_ta_rc_key(m, &rks[1], 'T', &p->dst, p->deid, &p->src, p->seid, RCK_SCID, 0);             \
            ub_ta_rc_key(m, &rks[2], 'T', &p->dst, p->deid, &p->src, p->seid, RCK_COMPACT, 0);          \
            built = nrk;                                                                       \
        }                                                                                      \
    } while (0)
    kt_t kt[1];
    ub_ta_kt_ep(kt, &p->dst, &p->src, sv ? "SCID" : "TASSN", have_full ? rcid : RCK_COMPACT, tassn);

    if (sv) { /* §10.6 b′: SV = 1 carries the allocated SCID; answers the oldest Alloc = 1 request */
        rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rks[0]);
        if (rc && rc->alloc_pending) {
            ub_key tk;
            ub_ta_key_sn(&tk, &rks[0], rc->alloc_tassn);
            tx_ent *t = (tx_ent *)ub_tbl_find(&m->tx, &tk);
            if (t) { tx_answer(m, p, &tk, t, &r, kt); return; }
        }
        ub_ta_emit(m, UB_R_TA_UNSOLICITED, -1, p->pi->frame, 0, 0, tassn, 0, 1,
             "SV = 1 response without an outstanding Alloc = 1 request in the capture", "transaction", kt);
        return;
    }

    tx_ent *t = NULL;
    ub_key tk;
    unsigned used = 0;
    for (unsigned i = 0; i < nrk && !t; i++) {
        if (i == 1) RKS_ALL();
        ub_ta_key_sn(&tk, &rks[i], tassn);
        t = (tx_ent *)ub_tbl_find(&m->tx, &tk);
        used = i;
    }
    if (t) {
        if ((t->flags & TXF_RSP_OPEN) && flit_entry(p) && t->rsp_hash == r.hash) return; /* DLL replay */
        tx_answer(m, p, &tk, t, &r, kt);
    } else {
        used = 0;
        RKS_ALL();
        rsp_orphan(m, p, rks, nrk, tassn, &r, kt);
        if (op == 0x11) { /* §10.6 a: that RC receives TAACKs */
            rc_ent *rc = ub_ta_rc_get(m, &rks[0]);
            if (rc) rc->taack_seen = 1;
        }
    }

    /* §10.6 b″: TAACK with RSPST 000/101 and RSPINFO = k also answers TASSN N+1 .. N+k */
    if (op == 0x11 && !r.compact && have_full && (r.rspst == 0 || r.rspst == 5) && r.rspinfo) {
        unsigned unseen = 0;
        RKS_ALL();
        rsp_info ra = r;
        ra.rspinfo = 0;
        for (unsigned j = 1; j <= r.rspinfo; j++) {
            uint16_t sn = (uint16_t)(tassn + j);
            bool done = false;
            for (unsigned i = 0; i < nrk && !done; i++) {
                unsigned ki = (used + i) % nrk;
                ub_key k2;
                ub_ta_key_sn(&k2, &rks[ki], sn);
                tx_ent *w = (tx_ent *)ub_tbl_find(&m->tx, &k2);
                if (w) {
                    done = true;
                    if (w->op == 0x06 || is_atomic(w->op))
                        ub_ta_emit(m, UB_R_TA_AGGREGATION, UB_SEV_WARN, p->pi->frame, w->frame, 0, sn, r.rspinfo, 2,
                             "aggregated TAACK covers an outstanding Read/Atomic", "transaction", kt);
                    else
                        tx_answer(m, p, &k2, w, &ra, kt);
                    continue;
                }
                rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rks[ki]);
                ring_ent *e = ub_ta_ring_find(rc, sn);
                if (e) {
                    done = true;
                    if (!(e->flags & R_ANSWERED) && (e->flags & R_SPEC)) ring_answer(m, p, rc, e, &ra, kt);
                }
            }
            if (!done) unseen++;
        }
        if (unseen)
            ub_ta_emit(m, UB_R_TA_AGGREGATION, UB_SEV_NOTE, p->pi->frame, 0, 0, tassn, r.rspinfo, 2,
                 "aggregated TAACK covers TASSNs not seen in the capture", "transaction", kt);
    }
#undef RKS_ALL
}

/* RTPH acks carrying a transaction status (§10.6 a; Table 6-2): RSPST 001/010, 011 with RSPINFO != 0, 101 */
static void tp_ack(mod_ta *m, const ub_pkt *p)
{
    unsigned st = p->sum.rt_rspst, info = p->sum.rt_rspinfo;
    if (!(st == 1 || st == 2 || (st == 3 && info) || st == 5)) return;
    uint32_t P = p->sum.rt_psn;
    ub_key ck;
    ch_key(&ck, &p->dst, &p->src, p->sum.rt_dtpn, p->sum.rt_stpn);
    ch_ent *ch = (ch_ent *)ub_tbl_find(&m->ch, &ck);
    if (!ch) return;
    rsp_info r = { 0 };
    r.rspst = st;
    r.rspinfo = info;
    r.abnormal_retry = st == 1 || st == 2 || (st == 5 && info == 0);
    r.failed = st == 3 || (st == 5 && info == 1);
    /* 101: cumulative, every Write/Send up to PSN; 001/010/011: the request at PSN (or PSN + 1) */
    int pick = -1;
    if (st != 5) {
        for (unsigned i = 0; i < CRING; i++)
            if (ch->req[i].used && psn_diff(ch->req[i].psn, P) == 0) pick = (int)i;
        if (pick < 0)
            for (unsigned i = 0; i < CRING; i++)
                if (ch->req[i].used && psn_diff(ch->req[i].psn, P) == 1) pick = (int)i;
        if (pick < 0) return;
    }
    for (unsigned i = 0; i < CRING; i++) {
        ch_req q = ch->req[i];
        if (!q.used) continue;
        if (st == 5 ? psn_diff(q.psn, P) > 0 : (int)i != pick) continue;
        ub_key rk, tk;
        ub_ta_rc_key(m, &rk, 'T', &p->dst, q.seid, &p->src, q.deid, q.rck, 0);
        ub_ta_key_sn(&tk, &rk, q.tassn);
        kt_t kt[1];
        ub_ta_kt_ep(kt, &p->dst, &p->src, "TASSN", q.rck, q.tassn);
        tx_ent *t = (tx_ent *)ub_tbl_find(&m->tx, &tk);
        if (t) {
            if (st == 5 && (t->op == 0x06 || is_atomic(t->op))) continue; /* TAACK passthrough: not for Read/Atomic */
            if (r.abnormal_retry || r.failed)
                ub_ta_emit(m, UB_R_TA_ERROR_STATUS, -1, p->pi->frame, t->frame, 0, st, info, 2,
                     "transport ack carries an abnormal transaction status", "transaction", kt);
            rsp_info rr = r;
            rr.abnormal_retry = rr.failed = false; /* reported above */
            bool ab = r.abnormal_retry, fl = r.failed;
            tx_answer(m, p, &tk, t, &rr, kt);
            rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rk);
            ring_ent *e = ub_ta_ring_find(rc, q.tassn);
            if (e) e->flags = (uint8_t)(e->flags | (ab ? R_RETRYABLE : 0) | (fl ? R_FAILED : 0));
        } else {
            rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rk);
            ring_ent *e = ub_ta_ring_find(rc, q.tassn);
            if (!e || (e->flags & R_ANSWERED) || !(e->flags & R_SPEC)) continue;
            if (r.abnormal_retry || r.failed)
                ub_ta_emit(m, UB_R_TA_ERROR_STATUS, -1, p->pi->frame, e->req_frame, 0, st, info, 2,
                     "transport ack carries an abnormal transaction status", "transaction", kt);
            rsp_info rr = r;
            rr.abnormal_retry = rr.failed = false;
            ring_answer(m, p, rc, e, &rr, kt);
            e->flags = (uint8_t)(e->flags | (r.abnormal_retry ? R_RETRYABLE : 0) | (r.failed ? R_FAILED : 0));
        }
        ch->req[i].used = 0;
    }
}

/* ================================================================ module entry points */
static void packet_ta(void *mv, ub_state *s, const ub_pkt *p)
{
    mod_ta *m = (mod_ta *)mv;
    if (p->crc_bad) return; /* §10.6 d: no TP/TA state from a packet that failed its CRC */
    if (!p->btah && !p->atah && !p->scanpdu && !p->rtph) return;
    for (unsigned i = 0; i < p->v->nerrs && i < UB_MAX_ERRS; i++)
        if (p->v->err[i].code == UB_E_ERROR_FLAG) return; /* §10.6 d: DLL credit/ack state only */
    m->frame = p->pi->frame;
    ch_ent *ch = NULL;
    if (p->rtph && m->ta_on) {
        unsigned top = p->sum.rt_op;
        if (top == 2 || top == 3 || top == 5 || top == 6) {
            tp_ack(m, p);
            goto out;
        }
        if (top == 4 || top == 8) goto out; /* ns-3-UB NAK, CNP: no transaction layer */
        if (top == 1 && (p->sum.fl & UB_PS_RTPH_PSN)) {
            ub_key ck;
            ch_key(&ck, &p->src, &p->dst, p->sum.rt_stpn, p->sum.rt_dtpn);
            ch = (ch_ent *)ub_tbl_get(&m->ch, &ck, NULL);
            if (ch && ch_seen(ch, p->sum.rt_psn)) goto out; /* TP retransmission (§10.6 b) */
        }
    }
    if (p->cut && ((p->btah && (p->btah->flags & UB_LF_TRUNC)) || (p->atah && (p->atah->flags & UB_LF_TRUNC))))
        goto out; /* its TAH cut by the snapshot length: the fields that key it may be missing */
    if (p->btah) {
        if (!(p->sum.fl & UB_PS_BT_TASSN)) goto out; /* truncated */
        unsigned op = p->sum.bt_op;
        if (op == 0x10) {
            if (m->mg_on && p->mgmtetah) ub_mg_config(m, p);
        } else if (m->ta_on) {
            ta_request(m, p, ch);
        }
    } else if (p->atah) {
        if (m->ta_on && ub_fh_has(&m->at_tassn, p->atah)) ta_response(m, p);
    } else if (p->scanpdu && p->scanhdr && m->mg_on) {
        ub_mg_scan(m, p);
    }
out:
    s->stats.transactions = m->tx.count;
    s->stats.mgmt = m->mg.count;
}

static int cmp_frame(const void *a, const void *b)
{
    uint64_t x = **(const uint64_t *const *)a, y = **(const uint64_t *const *)b;
    return x < y ? -1 : x > y;
}

/* §10.6 e: what is still outstanding; error/warning only when the capture went on for the timeout */
static void finish_ta(void *mv, ub_state *s)
{
    mod_ta *m = (mod_ta *)mv;
    uint64_t T = s->cfg.response_timeout_ns, end = s->last_ts;
    m->frame = 0;
    for (int tbl = 0; tbl < 2; tbl++) {
        ub_tbl *t = tbl == 0 ? &m->tx : &m->mg;
        if (!t->mem || !t->count) continue;
        /* report in frame order (the first member of both entry types is the request frame) */
        uint64_t **v = (uint64_t **)malloc(sizeof *v * t->count);
        if (!v) continue;
        uint32_t it = 0, n = 0;
        void *d;
        while ((d = ub_tbl_next(t, &it)) && n < t->count) v[n++] = (uint64_t *)d;
        qsort(v, n, sizeof *v, cmp_frame);
        for (uint32_t i = 0; i < n; i++) {
            kt_t kt[1] = { { 0 } };
            if (tbl == 0) {
                const tx_ent *x = (const tx_ent *)v[i];
                bool late = end >= x->last_ts + T;
                bool compact = x->flags & TXF_COMPACT;
                if (compact) snprintf(kt->text, sizeof kt->text, "TASSN %u", x->tassn);
                else snprintf(kt->text, sizeof kt->text, "rc 0x%x TASSN %u", x->rcid, x->tassn);
                ub_ta_emit(m, UB_R_TA_NO_RESPONSE, late ? -1 : UB_SEV_NOTE, x->frame, 0, 0, x->op, x->tassn, 2,
                     (x->flags & TXF_RSP_OPEN) ? "Read_response never completed (no last packet)"
                     : late                    ? "request never answered"
                                               : "no response yet when the capture ended (less than the response timeout later)",
                     "transaction", kt);
            } else {
                const mg_ent *x = (const mg_ent *)v[i];
                bool late = end >= x->last_ts + T;
                snprintf(kt->text, sizeof kt->text, "MSN %u", x->msn);
                if (x->need == MN_REG)
                    ub_ta_emit(m, UB_R_MG_EVENTS, late ? -1 : UB_SEV_NOTE, x->frame, 0, 0, x->code >> 4, x->code & 15, 2,
                         late ? "Entity (De)Registration never answered" : "Entity (De)Registration not answered yet when the capture ended",
                         "management", kt);
                else
                    ub_ta_emit(m, UB_R_MG_NO_RESPONSE, late ? -1 : UB_SEV_NOTE, x->frame, 0, 0, x->msn,
                         x->kind == 'S' ? x->code : x->code >> 4, 2,
                         x->kind == 'S' ? (late ? "enumeration request never answered" : "enumeration request not answered yet when the capture ended")
                                        : (late ? "management request never answered" : "management request not answered yet when the capture ended"),
                         "management", kt);
            }
        }
        free(v);
    }
}

static size_t size_ta(const ub_state_cfg *c)
{
    (void)c;
    return sizeof(mod_ta);
}

static void fini_ta(void *mv)
{
    mod_ta *m = (mod_ta *)mv;
    ub_tbl_free(&m->tx);
    ub_tbl_free(&m->mg);
    ub_tbl_free(&m->rc);
    ub_tbl_free(&m->ch);
}

static int init_ta(void *mv, ub_state *s)
{
    mod_ta *m = (mod_ta *)mv;
    m->s = s;
    m->ta_on = (s->cfg.layers & UB_ST_TA) != 0;
    m->mg_on = (s->cfg.layers & UB_ST_MG) != 0;
    uint32_t nrc = s->cfg.max_transactions / 16u;
    if (nrc < 256) nrc = 256;
    if (ub_tbl_init(&m->rc, "transaction requesters", nrc, sizeof(rc_ent))) goto fail;
    ub_st_table(s, UB_TBL_REQUESTERS, &m->rc,
                "transaction requesters evicted: their TASSN/MSN order and answered-request memo restarted");
    if (m->ta_on) {
        if (ub_tbl_init(&m->tx, "transactions", s->cfg.max_transactions, sizeof(tx_ent))) goto fail;
        if (ub_tbl_init(&m->ch, "TA channel memo", s->cfg.max_channels, sizeof(ch_ent))) goto fail;
        m->tx.on_evict = tx_evict;
        m->tx.mod = m;
        ub_st_table(s, UB_TBL_TRANSACTIONS, &m->tx,
                    "outstanding transactions evicted before they were answered or timed out (never judged)");
        ub_st_table(s, UB_TBL_TA_CHANNELS, &m->ch, "RTP retransmission memo of the transaction layer evicted");
    }
    if (m->mg_on) {
        if (ub_tbl_init(&m->mg, "management", s->cfg.max_mgmt, sizeof(mg_ent))) goto fail;
        ub_st_table(s, UB_TBL_MGMT, &m->mg,
                    "outstanding management exchanges evicted before they were answered or timed out (never judged)");
    }
    static const struct { size_t off; const char *name; } fh[] = {
#define FH(f, n) { offsetof(mod_ta, f), n }
        FH(bt_tassn, "ub.btah.ini_tassn"), FH(bt_rcid, "ub.btah.ini_rc_id"),
        FH(at_op, "ub.atah.taopcode"), FH(at_sv, "ub.atah.sv"), FH(at_tassn, "ub.atah.ini_tassn"),
        FH(at_rspst, "ub.atah.rspst"), FH(at_rspinfo, "ub.atah.rspinfo"), FH(at_rcid, "ub.atah.ini_rc_id"),
        FH(at_status, "ub.atah.status"),
        FH(ma_addr, "ub.maetah.address"), FH(ma_len, "ub.maetah.length"), FH(of_off, "ub.ofstetah.offset"),
        FH(ut_last, "ub.utph.last"),
        FH(mg_sub, "ub.mgmtetah.sub_code"), FH(mg_code, "ub.mgmtetah.code"), FH(mg_rsp, "ub.mgmtetah.rsp"),
        FH(mg_status, "ub.mgmtetah.status"), FH(mg_len, "ub.mgmtetah.pdu_length"),
        FH(sh_type, "ub.scanhdr.type"), FH(sh_hops, "ub.scanhdr.hops"), FH(sh_fpath, "ub.scanhdr.forward_path"),
        FH(sh_rpath, "ub.scanhdr.return_path"), FH(sc_cmd, "ub.scan.cmd"), FH(sc_slice, "ub.scan.slice_id"),
        FH(sc_status, "ub.scan.status"), FH(sc_msgq, "ub.scan.msgq_id"), FH(sc_msn, "ub.scan.msn"),
        FH(sc_guid, "ub.scan.guid"), FH(tlv_slice, "ub.slice_info.slice_id"),
#undef FH
    };
    for (size_t i = 0; i < sizeof fh / sizeof fh[0]; i++) ub_st_fh_init(s, (ub_fh *)((uint8_t *)m + fh[i].off), fh[i].name);
    /* a response carried in a BTAH (a profile's dialect, ns-3-UB D12: state.c hands it over as p->atah) */
    ub_st_fh_add(s, &m->at_op, "ub.btah.taopcode");
    ub_st_fh_add(s, &m->at_tassn, "ub.btah.ini_tassn");
    ub_st_fh_add(s, &m->at_rcid, "ub.btah.ini_rc_id");
    return 0;
fail: /* the engine frees the module memory but does not call fini after a failed init */
    fini_ta(m);
    return -1;
}

const ub_st_module ub_st_mod_ta = { "ta", UB_ST_TA | UB_ST_MG, size_ta, init_ta, packet_ta, finish_ta, fini_ta, 0 };
