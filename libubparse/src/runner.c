/* Scenario runner core (runner.h): batched sending with deadlines and faults, reception, the
 * time-ordered merge of both directions into the audit session and the capture, findings. */
#include "runner_int.h"
#include "rw_internal.h"

#include <errno.h>
#include <stdio.h>

#define NS 1000000000ull
#define REC_MAX (65536 + 256)

/* ---------------------------------------------------------------- packet FIFO */
int pring_init(pring *q, uint32_t entries, uint64_t bytes)
{
    memset(q, 0, sizeof *q);
    if (!entries) return 0;
    q->e = calloc(entries, sizeof *q->e);
    q->buf = malloc(bytes);
    q->ecap = entries;
    q->bcap = bytes;
    return q->e && q->buf ? 0 : -1;
}

void pring_free(pring *q)
{
    free(q->e);
    free(q->buf);
    memset(q, 0, sizeof *q);
}

pent *pring_push(pring *q, const uint8_t *d, uint32_t len)
{
    if (!q->ecap || q->ecount == q->ecap || len > q->bcap) return NULL;
    uint64_t pos = q->btail, phys = pos % q->bcap;
    if (phys + len > q->bcap) pos += q->bcap - phys; /* does not fit before the end: wrap */
    if (pos + len - q->bhead > q->bcap) return NULL;
    if (q->ecount == 0) q->bhead = pos;
    pent *e = &q->e[(q->ehead + q->ecount) % q->ecap];
    memset(e, 0, sizeof *e);
    e->pos = pos;
    e->len = len;
    memcpy(q->buf + pos % q->bcap, d, len);
    q->btail = pos + len;
    q->ecount++;
    return e;
}

void pring_pop(pring *q)
{
    if (!q->ecount) return;
    q->ehead = (q->ehead + 1) % q->ecap;
    q->ecount--;
    q->bhead = q->ecount ? q->e[q->ehead].pos : q->btail;
}

/* ---------------------------------------------------------------- setup */
void ub_runner_cfg_default(ub_runner_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->batch = 64;
    c->rx_queue = 4096;
    c->within_ns = 10000000;
    c->tol_abs_ns = 1000000;
    c->watermark_ns = 50000;
}

int ub_runner_add_rules(ub_ruleset *rs, char *err, size_t errlen)
{
    static const ub_rule rules[] = {
        { 0, UB_SC_MISMATCH, "scenario", UB_SEV_ERROR, "scenario @expect (docs/replay.md)",
          "answers came within the window but none matched the expectation (content)",
          "frame of the first answer that did not match; frames: request, answer; message: expected filter and actual packet" },
        { 0, UB_SC_TIMING, "scenario", UB_SEV_ERROR, "scenario @expect within/at, tolerance (docs/replay.md)",
          "the expected answer came outside its time window (timing)",
          "frame of the answer; frames: request, answer; values: latency ns, window ns, tolerance ns" },
        { 0, UB_SC_NOANSWER, "scenario", UB_SEV_ERROR, "scenario @expect (docs/replay.md)",
          "no answer within the window (unmet expectation)",
          "frame of the request; values: window ns, waited ns" },
        { 0, UB_SC_UNEXPECTED, "scenario", UB_SEV_ERROR, "scenario @expect-none (docs/replay.md)",
          "an answer that the scenario excluded arrived", "frame of the answer; frames: request, answer" },
        { 0, UB_SC_SCRIPT, "scenario", UB_SEV_ERROR, "scenario @check, Lua fail() (docs/replay.md)",
          "a scenario check failed", "message of the check; frames the script cited" },
        { 0, UB_SC_SENDFAIL, "scenario", UB_SEV_WARN, "ubreplay sending (docs/replay.md)",
          "packets could not be sent (socket errors after retries): answers to them cannot be judged",
          "values: packets failed, first errno" },
    };
    for (unsigned i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (!ub_ruleset_find(rs, rules[i].id) && ub_ruleset_add(rs, &rules[i], err, errlen) < 0) return -1;
    return 0;
}

int rn_fail(ub_runner *r, const char *fmt, const char *a)
{
    snprintf(r->err, sizeof r->err, fmt, a ? a : "");
    return -1;
}

const char *ub_runner_error(const ub_runner *r) { return r->err; }
uint64_t rn_now(ub_runner *r) { return r->x.now(r->x.ctx); }
uint64_t ub_runner_now(const ub_runner *r) { return r->x.now(r->x.ctx); }
uint64_t ub_runner_start(const ub_runner *r) { return r->start; }
ub_entry ub_runner_entry(const ub_runner *r) { return r->x.entry; }
ub_entry ub_runner_record_entry(const ub_runner *r) { return r->rec_entry; }
uint64_t ub_runner_last_seq(const ub_runner *r) { return r->last_seq; }
uint64_t ub_runner_last_send_time(const ub_runner *r) { return r->last_send; }

static ub_rw_out out_for_entry(ub_entry e)
{
    switch (e) {
    case UB_ENTRY_TPH: return UB_RW_OUT_TPH;
    case UB_ENTRY_ETH: return UB_RW_OUT_ETH;
    case UB_ENTRY_CFGPH: return UB_RW_OUT_CFGPH;
    default: return UB_RW_OUT_RAW;
    }
}

/* ---------------------------------------------------------------- auto_ack */
#define ACKBUF 16384
static void ack_out(void *ctx, const ub_peer_out *o)
{
    ub_runner *r = ctx;
    if (o->kind != UB_PEER_OUT_ACK || r->nack >= 64 || r->ackused + o->len > ACKBUF) return; /* acks only */
    memcpy(r->ackbuf + r->ackused, o->data, o->len);
    r->acklen[r->nack++] = o->len;
    r->ackused += o->len;
}

static bool init_acker(ub_runner *r, char *err, size_t errlen)
{
    ub_peer_cfg pc;
    ub_peer_cfg_default(&pc);
    pc.opts = &r->o;
    r->aview = malloc(sizeof *r->aview);
    r->ackbuf = malloc(ACKBUF);
    if (!r->aview || !r->ackbuf) { snprintf(err, errlen, "out of memory"); return false; }
    ub_view_init(r->aview);
    r->acker = ub_peer_new(&pc, ack_out, r, err, errlen);
    return r->acker != NULL;
}

static int send_acks(ub_runner *r);
static int send_resends(ub_runner *r);

/* ---------------------------------------------------------------- resend (go-back-N for our data) */
typedef struct rtph_vals { uint64_t op, psn, stpn, dtpn, rspst; } rtph_vals;
static bool rtph_of(const ub_view *v, rtph_vals *o)
{
    int k = ub_view_find(v, UB_H_RTPH, 0);
    if (k < 0) return false;
    const ub_layer *l = &v->layer[k];
    const ub_hdr *h = l->hdr;
    ub_val x;
    memset(o, 0, sizeof *o);
    for (unsigned i = 0; i < h->nfields; i++) { /* rows by name: the layout stays in net.c */
        const char *n = strrchr(h->fields[i].abbrev, '.') + 1;
        uint64_t *dst = strcmp(n, "tpopcode") == 0 ? &o->op : strcmp(n, "psn") == 0 ? &o->psn
                      : strcmp(n, "srctpn") == 0 ? &o->stpn : strcmp(n, "dsttpn") == 0 ? &o->dtpn
                      : strcmp(n, "rspst") == 0 ? &o->rspst : NULL;
        if (dst && ub_field_value(l, &h->fields[i], &x) == 0) *dst = x.u;
    }
    return true;
}

/* keep a sent RTP data packet */
static void rtx_keep(ub_runner *r, const uint8_t *d, uint32_t len)
{
    rtph_vals t;
    ub_decode(r->rview, &r->o, r->x.entry, d, len);
    if (!rtph_of(r->rview, &t) || t.op != 1) return;
    pent *e;
    while (!(e = pring_push(&r->rtx, d, len))) {
        if (!r->rtx.ecount) return;
        pring_pop(&r->rtx);
    }
    e->ts_real = t.stpn << 24 | t.dtpn;
    e->ts_mono = t.psn;
}

/* a received packet: a TPNAK for our data asks for a resend */
static void rtx_check(ub_runner *r, const ub_view *v)
{
    rtph_vals t;
    if (!rtph_of(v, &t) || (t.op != 2 && t.op != 3) || t.rspst != 3 || r->nnak >= 16) return;
    r->nak[r->nnak].stpn = (uint32_t)t.dtpn; /* our data: SrcTPN = the NAK's DstTPN */
    r->nak[r->nnak].dtpn = (uint32_t)t.stpn;
    r->nak[r->nnak].psn = (uint32_t)t.psn;
    r->nnak++;
    r->st.naks++;
}
static int enqueue(ub_runner *r, const uint8_t *p, uint32_t len, uint64_t deadline, uint8_t port);

ub_runner *ub_runner_new(const ub_runner_cfg *cfg, const ub_xport *x, char *err, size_t errlen)
{
    ub_runner *r = calloc(1, sizeof *r);
    if (!r) { snprintf(err, errlen, "out of memory"); return NULL; }
    r->c = *cfg;
    if (cfg->opts) r->o = *cfg->opts;
    else ub_opts_default(&r->o);
    r->c.opts = &r->o;
    r->x = *x;
    r->rec_entry = ub_entry_for_linktype(&r->o, x->linktype);
    if (!r->c.batch) r->c.batch = 64;
    if (r->c.batch > UB_IO_MAX_BATCH) r->c.batch = UB_IO_MAX_BATCH;
    r->batch = r->c.batch;
    if (!r->c.within_ns) r->c.within_ns = 10000000;
    if (!r->c.watermark_ns) r->c.watermark_ns = 50000;
    r->merge = r->c.audit || r->c.save;
    r->rng = cfg->seed ^ 0x243F6A8885A308D3ull;
    r->txcap = (uint64_t)r->batch * 2048 + REC_MAX;
    r->q = calloc(r->batch, sizeof *r->q);
    r->tx = calloc(r->batch, sizeof *r->tx);
    r->txbuf = malloc(r->txcap);
    r->cvbuf = malloc(REC_MAX);
    r->recbuf = malloc(REC_MAX);
    r->gbuf = malloc(REC_MAX);
    r->view = malloc(sizeof *r->view);
    r->gview = malloc(sizeof *r->gview);
    bool ok = r->q && r->tx && r->txbuf && r->cvbuf && r->recbuf && r->gbuf && r->view && r->gview;
    if (ok && r->c.rx_queue && x->rx) ok = pring_init(&r->rxq, r->c.rx_queue, (uint64_t)r->c.rx_queue * 1024 + REC_MAX) == 0;
    if (ok && r->merge)
        ok = pring_init(&r->ms, 65536, 64ull << 20) == 0 && pring_init(&r->mr, 65536, 64ull << 20) == 0 &&
             (r->s2f = calloc(S2F, sizeof *r->s2f)) != NULL;
    if (!ok) {
        ub_runner_free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ub_view_init(r->view);
    ub_view_init(r->gview);
    if (cfg->auto_ack && x->rx && !init_acker(r, err, errlen)) {
        ub_runner_free(r);
        return NULL;
    }
    if (cfg->resend && x->rx) {
        r->rview = malloc(sizeof *r->rview);
        if (!r->rview || pring_init(&r->rtx, 4096, 8u << 20) < 0) {
            ub_runner_free(r);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        ub_view_init(r->rview);
        if (!r->aview) {
            r->aview = malloc(sizeof *r->aview);
            if (!r->aview) { ub_runner_free(r); snprintf(err, errlen, "out of memory"); return NULL; }
            ub_view_init(r->aview);
        }
    }
    r->rw = cfg->rw;
    r->start = r->last_send = r->last_poll = rn_now(r);
    r->drained_real = x->mono_to_real(x->ctx, r->start);
    ub_lathist_init(&r->st.lateness);
    return r;
}

void ub_runner_free(ub_runner *r)
{
    if (!r) return;
    for (unsigned i = 0; i < r->nheld; i++) free(r->held[i].data);
    for (unsigned i = 0; i < r->npend; i++) free(r->pend[i].message);
    free(r->held);
    free(r->pend);
    free(r->s2f);
    ub_peer_free(r->acker);
    free(r->aview);
    free(r->rview);
    pring_free(&r->rtx);
    free(r->ackbuf);
    if (r->own_rw) ub_rw_free(r->rw);
    free(r->q);
    free(r->tx);
    free(r->txbuf);
    free(r->cvbuf);
    free(r->recbuf);
    free(r->gbuf);
    free(r->view);
    free(r->gview);
    pring_free(&r->rxq);
    pring_free(&r->ms);
    pring_free(&r->mr);
    free(r->ftext);
    ub_filter_free(r->fcomp);
    free(r);
}

bool rn_cap(ub_runner *r)
{
    if (r->capped) return true;
    if (r->c.max_packets && r->st.sent + r->st.failed + r->nq >= r->c.max_packets) r->capped = true;
    if (r->c.max_duration_ns && rn_now(r) - r->start >= r->c.max_duration_ns) r->capped = true;
    if (r->capped) r->st.capped = true;
    return r->capped;
}

/* ---------------------------------------------------------------- the merged stream */
static pring *oldest(ub_runner *r);
static void emit_one(ub_runner *r, pring *m);

static void record_packet(ub_runner *r, pring *m, const uint8_t *d, uint32_t len, uint8_t dir, const ub_io_addr *src,
                          const ub_io_addr *dst, uint64_t ts_real, uint64_t seq)
{
    long n = r->x.record(r->x.ctx, d, len, dir, src, dst, r->recbuf, REC_MAX);
    if (n < 0) return;
    pent *e;
    while (!(e = pring_push(m, r->recbuf, (uint32_t)n))) { /* full: the oldest goes without the watermark */
        pring *o = oldest(r);
        if (!o) return;
        emit_one(r, o);
    }
    e->dir = dir;
    e->ts_real = ts_real;
    e->seq = seq;
}

static void resolve_pending(ub_runner *r, uint64_t seq, uint64_t frame, bool final)
{
    for (unsigned i = 0; i < r->npend;) {
        pfind *p = &r->pend[i];
        bool done = true;
        for (unsigned k = 0; k < p->nseq; k++) {
            if (p->seqs[k] == seq && !p->frames[k]) p->frames[k] = frame;
            if (!p->frames[k]) done = false;
        }
        if (!done && !final) { i++; continue; }
        p->f.nframes = 0;
        for (unsigned k = 0; k < p->nseq; k++)
            if (p->frames[k]) p->f.frames[p->f.nframes++] = p->frames[k];
        if (!p->f.frame && p->f.nframes) p->f.frame = p->f.frames[p->f.nframes - 1];
        p->f.message = p->message;
        if (r->c.audit) ub_audit_add_finding(r->c.audit, &p->f);
        free(p->message);
        r->pend[i] = r->pend[--r->npend];
    }
}

/* the frame of the main packet of a pending finding: the last cited one (the answer), else the request */
static void emit_one(ub_runner *r, pring *m)
{
    pent *e = pring_at(m, 0);
    const uint8_t *d = pring_data(m, e);
    uint64_t frame = ++r->frame;
    r->st.recorded++;
    if (r->c.audit) {
        ub_decode(r->view, &r->o, r->rec_entry, d, e->len);
        ub_pktinfo pi = { frame, e->ts_real, r->c.save_if, e->dir };
        ub_audit_packet(r->c.audit, r->view, &pi);
    }
    if (r->c.save) ub_capw_write(r->c.save, r->c.save_if, e->ts_real, d, e->len, e->dir);
    uint64_t seq = e->seq;
    pring_pop(m);
    r->s2f[seq % S2F][0] = seq;
    r->s2f[seq % S2F][1] = frame;
    if (r->npend) resolve_pending(r, seq, frame, false);
}

/* the oldest record of the two queues (ties: the sent one first), NULL if both are empty */
static pring *oldest(ub_runner *r)
{
    pent *a = r->ms.ecount ? pring_at(&r->ms, 0) : NULL, *b = r->mr.ecount ? pring_at(&r->mr, 0) : NULL;
    if (!a && !b) return NULL;
    return !b || (a && a->ts_real <= b->ts_real) ? &r->ms : &r->mr;
}

void rn_emit(ub_runner *r, bool all)
{
    if (!r->merge) return;
    uint64_t now_real = r->x.mono_to_real(r->x.ctx, rn_now(r));
    uint64_t wm = r->x.rx ? (r->drained_real < now_real ? r->drained_real : now_real) : now_real;
    wm = wm > r->c.watermark_ns ? wm - r->c.watermark_ns : 0;
    pring *m;
    while ((m = oldest(r)) && (all || pring_at(m, 0)->ts_real < wm)) emit_one(r, m);
}

/* ---------------------------------------------------------------- receiving */
static void on_rx(ub_runner *r, const ub_io_rx *p)
{
    uint64_t seq = ++r->seq;
    r->st.received++;
    r->st.rx_bytes += p->len;
    uint64_t mono = r->x.real_to_mono(r->x.ctx, p->ts_ns);
    if (r->merge) record_packet(r, &r->mr, p->data, p->len, UB_DIR_IN, &p->from, &p->to, p->ts_ns, seq);
    if (r->acker || r->rtx.ecap) { /* the requester's transport layer */
        ub_decode(r->aview, &r->o, r->x.entry, p->data, p->len);
        if (r->rtx.ecap) rtx_check(r, r->aview);
        if (r->acker) { /* acks for the peer's RTP data */
            ub_peer_pktinfo pi = { mono, 0 };
            ub_peer_packet(r->acker, r->aview, &pi);
        }
    }
    if (!r->rxq.ecap) return;
    long n = r->x.record(r->x.ctx, p->data, p->len, UB_DIR_IN, &p->from, &p->to, r->recbuf, REC_MAX);
    if (n < 0) return;
    pent *e;
    while (!(e = pring_push(&r->rxq, r->recbuf, (uint32_t)n))) {
        if (!r->rxq.ecount) return;
        if (!pring_at(&r->rxq, 0)->consumed) r->st.rx_evicted++;
        pring_pop(&r->rxq);
    }
    e->dir = UB_DIR_IN;
    e->ts_real = p->ts_ns;
    e->ts_mono = mono;
    e->seq = seq;
    /* consumed answers at the head free their space */
    while (r->rxq.ecount && pring_at(&r->rxq, 0)->consumed) pring_pop(&r->rxq);
}

int rn_pump(ub_runner *r, uint64_t until)
{
    if (!r->x.rx) {
        if (until) r->x.sleep_until(r->x.ctx, until);
        rn_emit(r, false);
        return 0;
    }
    unsigned max = sizeof r->rxb / sizeof r->rxb[0];
    int got = 0;
    for (;;) {
        uint64_t t0 = rn_now(r);
        int n = r->x.recv(r->x.ctx, r->rxb, max, got ? 0 : until);
        if (n < 0) return rn_fail(r, "receive: %s", r->x.error(r->x.ctx));
        for (int i = 0; i < n; i++) on_rx(r, &r->rxb[i]);
        got += n;
        if ((unsigned)n < max) {
            r->drained_real = r->x.mono_to_real(r->x.ctx, t0);
            break;
        }
    }
    r->last_poll = rn_now(r);
    rn_emit(r, false);
    if (r->nack && !r->in_pump && send_acks(r) < 0) return -1;
    if (r->nnak && !r->in_pump && send_resends(r) < 0) return -1;
    return got;
}

/* ---------------------------------------------------------------- sending */
static int flush_q(ub_runner *r)
{
    if (!r->nq) return 0;
    for (unsigned i = 0; i < r->nq; i++) {
        memset(&r->tx[i], 0, sizeof r->tx[i]);
        r->tx[i].data = r->txbuf + r->q[i].pos;
        r->tx[i].len = r->q[i].len;
        r->tx[i].port = r->q[i].port;
    }
    uint64_t t0 = rn_now(r);
    uint64_t t0r = r->x.mono_to_real(r->x.ctx, t0);
    int n = r->x.send(r->x.ctx, r->tx, r->nq);
    if (n < 0) { r->nq = 0; r->txused = 0; return rn_fail(r, "send: %s", r->x.error(r->x.ctx)); }
    r->st.send_calls++;
    uint64_t t1 = rn_now(r);
    for (unsigned i = 0; i < r->nq; i++) {
        const ub_io_tx *t = &r->tx[i];
        const qtx *q = &r->q[i];
        /* lateness: the kernel had the packet at the latest when the call returned */
        uint64_t sent = t->err ? t1 : (t->ts_ns ? r->x.real_to_mono(r->x.ctx, t->ts_ns) : t1);
        if (sent < t0) sent = t0;
        if (t->err) {
            r->st.failed++;
        } else {
            r->st.sent++;
            r->st.sent_port1 += t->port == 1;
            r->st.bytes += t->len;
            if (!r->st.first_send) r->st.first_send = t0;
            r->st.last_send = sent;
            if (!q->ack) {
                r->last_send = t0; /* the reference of expect(): answers can come before the call returns */
                r->last_seq = q->seq;
            }
            if (q->deadline) {
                uint64_t late = sent > q->deadline ? sent - q->deadline : 0;
                ub_lathist_add(&r->st.lateness, late);
                if (late) r->st.late_packets++;
            }
            if (r->rtx.ecap && !q->rtx) rtx_keep(r, t->data, t->len);
            /* sent packets enter the stream at the time of the call: before any answer to them */
            if (r->merge) record_packet(r, &r->ms, t->data, t->len, UB_DIR_OUT, NULL, NULL, t0r, q->seq);
        }
        if (r->c.on_sent) r->c.on_sent(r->c.on_sent_ctx, q->deadline, sent, t->err, t->len);
    }
    r->nq = 0;
    r->txused = 0;
    if (r->x.rx && (r->merge || r->rxq.ecap) && t1 - r->last_poll > 200000) rn_pump(r, 0);
    else if (r->merge && !r->x.rx) rn_emit(r, false);
    return 0;
}

int ub_runner_flush(ub_runner *r) { return flush_q(r); }

static int send_resends(ub_runner *r)
{
    r->in_pump = true;
    int rc = 0;
    unsigned n = r->nnak;
    r->nnak = 0;
    for (unsigned k = 0; k < n && rc == 0; k++) {
        uint64_t key = (uint64_t)r->nak[k].stpn << 24 | r->nak[k].dtpn;
        for (uint32_t i = 0; i < r->rtx.ecount && rc == 0; i++) {
            pent *e = pring_at(&r->rtx, i);
            uint32_t d = ((uint32_t)e->ts_mono - r->nak[k].psn) & 0xFFFFFF;
            if ((uint64_t)e->ts_real != key || d >= 0x800000) continue; /* other channel, or before the NAK */
            /* a copy: the kept bytes may move while the batch fills */
            uint8_t *c = malloc(e->len);
            if (!c) { rc = rn_fail(r, "out of memory%s", NULL); break; }
            memcpy(c, pring_data(&r->rtx, e), e->len);
            rc = enqueue(r, c, e->len, 0, 0);
            if (rc == 0) r->q[r->nq - 1].rtx = true;
            free(c);
            r->st.resent++;
        }
    }
    if (rc == 0) rc = flush_q(r);
    r->in_pump = false;
    return rc;
}

static int send_acks(ub_runner *r)
{
    r->in_pump = true; /* a flush below may poll again: its acks wait for the next round */
    uint32_t off = 0, n = r->nack;
    uint8_t tmp[ACKBUF];
    memcpy(tmp, r->ackbuf, r->ackused);
    uint32_t lens[64];
    memcpy(lens, r->acklen, n * sizeof lens[0]);
    r->nack = 0;
    r->ackused = 0;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        rc = enqueue(r, tmp + off, lens[i], 0, 0);
        off += lens[i];
        r->st.acks_sent++;
    }
    if (rc == 0) rc = flush_q(r);
    r->in_pump = false;
    return rc;
}

static int enqueue(ub_runner *r, const uint8_t *p, uint32_t len, uint64_t deadline, uint8_t port)
{
    if (r->nq == r->batch || r->txused + len > r->txcap)
        if (flush_q(r) < 0) return -1;
    if (len > r->txcap) return rn_fail(r, "packet too long%s", NULL);
    qtx *q = &r->q[r->nq++];
    q->deadline = deadline;
    q->seq = ++r->seq;
    q->pos = r->txused;
    q->len = len;
    q->ack = r->in_pump;
    q->rtx = false;
    q->port = port;
    memcpy(r->txbuf + r->txused, p, len);
    r->txused += len;
    return 0;
}

/* a packet due now: held packets waiting for it count down */
static int queue_due(ub_runner *r, const uint8_t *p, uint32_t len, uint64_t deadline, uint8_t port)
{
    if (enqueue(r, p, len, deadline, port) < 0) return -1;
    for (unsigned i = 0; i < r->nheld;) {
        hold *h = &r->held[i];
        if (--h->left == 0) {
            int rc = enqueue(r, h->data, h->len, h->deadline, h->port);
            free(h->data);
            r->held[i] = r->held[--r->nheld];
            if (rc < 0) return -1;
        } else {
            i++;
        }
    }
    return 0;
}

int rn_release(ub_runner *r)
{
    while (r->nheld) {
        hold *h = &r->held[0];
        int rc = enqueue(r, h->data, h->len, h->deadline, h->port);
        free(h->data);
        memmove(r->held, r->held + 1, (r->nheld - 1) * sizeof *r->held);
        r->nheld--;
        if (rc < 0) return -1;
    }
    return flush_q(r);
}

int ub_runner_send(ub_runner *r, const uint8_t *p, uint32_t len, ub_entry entry, const ub_send_opt *opt)
{
    static const ub_send_opt none;
    if (!opt) opt = &none;
    if (rn_cap(r)) return 1;
    if (entry == UB_ENTRY_STREAM) entry = UB_ENTRY_FLIT;
    /* the transport's framing */
    if (entry != r->x.entry) {
        if (!r->rw) {
            ub_rw_cfg c;
            ub_rw_cfg_default(&c);
            c.opts = &r->o;
            c.out = (uint8_t)out_for_entry(r->x.entry);
            c.raw_entry = (uint8_t)r->x.entry;
            r->rw = ub_rw_new(&c, r->err, sizeof r->err);
            if (!r->rw) return -1;
            r->own_rw = true;
        }
        ub_rw_result res;
        long n = ub_rw_packet(r->rw, entry, p, len, r->cvbuf, REC_MAX, &res);
        if (res.status != UB_RW_SEND || res.out_entry != r->x.entry) {
            r->st.unconvertible++;
            snprintf(r->err, sizeof r->err, "cannot send this packet on the output: %s",
                     res.reason ? res.reason : "framing differs");
            return -1;
        }
        r->st.converted++;
        p = r->cvbuf;
        len = (uint32_t)n;
    }
    if (len > r->x.mtu) return rn_fail(r, "packet longer than the output's MTU%s", NULL);
    uint8_t *cp = NULL;
    if (opt->fault == UB_FAULT_CORRUPT && len) {
        if (p != r->cvbuf) { memcpy(r->cvbuf, p, len); p = r->cvbuf; }
        uint32_t off = opt->corrupt_off;
        if (off == UINT32_MAX) {
            uint64_t z = (r->rng += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            off = (uint32_t)((z ^ (z >> 31)) % len);
        }
        if (off >= len) return rn_fail(r, "corrupt offset beyond the packet%s", NULL);
        r->cvbuf[off] ^= opt->corrupt_xor ? opt->corrupt_xor : 0xFF;
        r->st.corrupted++;
    }
    if (opt->fault == UB_FAULT_DROP) { r->st.dropped++; return 0; }
    uint64_t at = opt->at;
    uint64_t now = rn_now(r);
    if (at > now) { /* due later: what is queued goes out now, then wait (receiving) until `at` */
        if (flush_q(r) < 0) return -1;
        if (r->x.rx && (r->merge || r->rxq.ecap) && at - now > 200000) {
            if (rn_pump(r, at - 100000) < 0) return -1;
        }
        r->x.sleep_until(r->x.ctx, at);
        if (rn_cap(r)) return 1;
    }
    if (opt->fault == UB_FAULT_REORDER) {
        if (r->nheld == r->capheld) {
            unsigned nc = r->capheld ? r->capheld * 2 : 8;
            hold *nh = realloc(r->held, nc * sizeof *nh);
            if (!nh) return rn_fail(r, "out of memory%s", NULL);
            r->held = nh;
            r->capheld = nc;
        }
        cp = malloc(len ? len : 1);
        if (!cp) return rn_fail(r, "out of memory%s", NULL);
        memcpy(cp, p, len);
        r->held[r->nheld++] = (hold){ cp, len, opt->reorder ? opt->reorder : 1, at, opt->port };
        r->st.reordered++;
        return 0;
    }
    if (queue_due(r, p, len, at, opt->port) < 0) return -1;
    if (opt->fault == UB_FAULT_DUP) {
        if (enqueue(r, p, len, at, opt->port) < 0) return -1;
        r->st.duplicated++;
    }
    /* on schedule: out at once; behind schedule (or no deadline): batched */
    if (at > now && flush_q(r) < 0) return -1;
    return 0;
}

/* ---------------------------------------------------------------- waiting, findings, end */
int ub_runner_wait_until(ub_runner *r, uint64_t t)
{
    if (rn_release(r) < 0) return -1;
    for (;;) {
        uint64_t now = rn_now(r);
        if (now >= t) break;
        if (rn_cap(r)) return 1;
        if (rn_pump(r, t) < 0) return -1;
    }
    return 0;
}

int ub_runner_sleep(ub_runner *r, uint64_t ns) { return ub_runner_wait_until(r, rn_now(r) + ns); }

int rn_add_finding(ub_runner *r, const char *rule_id, int severity, const char *detail, const char *message,
                   uint32_t line, const uint64_t *seqs, unsigned nseq, const int64_t *values, unsigned nvalues)
{
    const ub_rule *rule = r->c.rules ? ub_ruleset_find(r->c.rules, rule_id) : NULL;
    if (!rule) return r->c.rules ? rn_fail(r, "unknown rule %s", rule_id) : 0;
    if (r->npend == r->cappend) {
        unsigned nc = r->cappend ? r->cappend * 2 : 8;
        pfind *np = realloc(r->pend, nc * sizeof *np);
        if (!np) return rn_fail(r, "out of memory%s", NULL);
        r->pend = np;
        r->cappend = nc;
    }
    pfind *p = &r->pend[r->npend];
    memset(p, 0, sizeof *p);
    p->f.rule = rule->idx;
    p->f.severity = (uint8_t)(severity >= 0 ? severity : rule->severity);
    p->f.detail = detail;
    p->f.key = "scenario";
    snprintf(p->f.keytext, sizeof p->f.keytext, "%s", r->c.src_uri ? r->c.src_uri : "scenario");
    p->f.src_uri = r->c.src_uri;
    p->f.src_line = line;
    for (unsigned i = 0; i < nvalues && i < 4; i++) p->f.values[p->f.nvalues++] = values[i];
    for (unsigned i = 0; i < nseq && p->nseq < UB_FINDING_FRAMES; i++) {
        if (!seqs[i]) continue;
        p->seqs[p->nseq] = seqs[i];
        if (r->s2f && r->s2f[seqs[i] % S2F][0] == seqs[i]) p->frames[p->nseq] = r->s2f[seqs[i] % S2F][1]; /* already out */
        p->nseq++;
    }
    p->message = message ? strdup(message) : NULL;
    bool waiting = false;
    for (unsigned k = 0; k < p->nseq; k++) waiting |= !p->frames[k];
    if (!r->merge || !waiting) { /* nothing to wait for */
        p->f.nframes = 0;
        for (unsigned k = 0; k < p->nseq; k++)
            if (p->frames[k]) p->f.frames[p->f.nframes++] = p->frames[k];
        if (p->f.nframes) p->f.frame = p->f.frames[p->f.nframes - 1];
        p->f.message = p->message;
        if (r->c.audit) ub_audit_add_finding(r->c.audit, &p->f);
        free(p->message);
        return 0;
    }
    r->npend++;
    return 0;
}

int ub_runner_finding(ub_runner *r, const char *rule_id, int severity, const char *message, uint32_t src_line,
                      const uint64_t *seqs, unsigned nseqs)
{
    return rn_add_finding(r, rule_id, severity, NULL, message, src_line, seqs, nseqs, NULL, 0);
}

int ub_runner_finish(ub_runner *r, uint64_t drain_ns)
{
    int rc = rn_release(r);
    if (rc == 0 && r->x.rx && drain_ns) {
        uint64_t t = rn_now(r) + drain_ns;
        while (rn_now(r) < t && (rc = rn_pump(r, t)) >= 0) {}
        rc = rc < 0 ? -1 : 0;
    }
    rn_emit(r, true);
    if (r->npend) resolve_pending(r, 0, 0, true);
    if (r->st.failed && r->c.rules) {
        char msg[160];
        snprintf(msg, sizeof msg, "%llu packets could not be sent", (unsigned long long)r->st.failed);
        int64_t v[1] = { (int64_t)r->st.failed };
        rn_add_finding(r, UB_SC_SENDFAIL, -1, "packets could not be sent", msg, 0, NULL, 0, v, 1);
    }
    return rc;
}

void ub_runner_get_stats(const ub_runner *r, ub_runner_stats *st)
{
    *st = r->st;
    if (r->x.stats) {
        ub_io_stats io;
        r->x.stats(r->x.ctx, &io);
        st->retries = io.tx_retries;
    }
}
