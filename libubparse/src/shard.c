/* Sharded audit sessions (cfg.jobs > 1): worker threads, each with its own engine, fed by the
 * session's thread. Pair shards run the network/transport/transaction/management layers on the
 * packets of their endpoint pairs (ub_state_pair_hash % N; link-only traffic to shard 0); the link
 * engine (data link + decode findings) sees every packet, in the feeding thread or in a thread of its
 * own. Packets travel as copies of the decoded view (record bytes, layers, errors, netbuf; pointers
 * relocated on arrival: no second decode) in batches through small bounded queues. At the end the
 * pair shards get the capture's end clock (a tick) so their §10.6 e timeouts are judged against the
 * same end as one engine's. */
#include "audit_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One entry of a shard batch: rechdr, then (mode) the payload, 8-byte aligned:
 *   M_VIEW  the decoded view: vhdr, the record bytes, the layers, the errors, the used netbuf bytes
 *           (the worker rebuilds the view and relocates its pointers: no second decode)
 *   M_REC   the record bytes only (re-decoded in the worker): used when a view points outside
 *           its record and netbuf, which the decoder never does today
 *   M_TICK  end-of-capture clock (no payload) */
enum { M_VIEW = 0, M_REC = 1, M_TICK = 2 };
typedef struct {
    uint64_t seq, frame, ts;
    uint32_t ifindex, len; /* len: record bytes */
    uint8_t dir, entry, uflags, mode;
    uint32_t pay;          /* payload bytes after this header (multiple of 8) */
} rechdr;
typedef struct {
    uint64_t orig_rec, orig_net;
    uint32_t nl, ne, netlen, pad;
    uint8_t prefix[offsetof(ub_view, layer)]; /* the view's scalar fields as decoded */
} vhdr;
/* view_receive() relocates the prefix's pointers (rec, opts, pkt): a new field before layer[]
 * must be handled there (this trips when one is appended after errs_dropped) */
_Static_assert(offsetof(ub_view, errs_dropped) + sizeof(uint16_t) + _Alignof(ub_layer) > offsetof(ub_view, layer),
               "ub_view gained a field before layer[]: update view_receive()");
typedef struct batch {
    uint8_t *buf;
    size_t cap, used;
    struct batch *next;
} batch;
#define SHQ 4
#define BATCH_BYTES (256u * 1024u)
typedef struct shard {
    pthread_t th;
    bool started;
    const ub_opts *o;
    ub_eng e;
    ub_view *v;
    pthread_mutex_t mu;
    pthread_cond_t cv_data, cv_space;
    batch *q[SHQ];
    unsigned qh, qn, nbatches;
    bool done;
    batch *freel;
    batch *fill; /* main thread only */
} shard;

struct ub_shards {
    shard *sh;
    unsigned n, jobs;
};

static batch *batch_get(shard *s)
{
    pthread_mutex_lock(&s->mu);
    while (!s->freel && s->nbatches >= SHQ + 2) pthread_cond_wait(&s->cv_space, &s->mu);
    batch *b = s->freel;
    if (b) s->freel = b->next;
    else s->nbatches++;
    pthread_mutex_unlock(&s->mu);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) return NULL;
        b->buf = malloc(BATCH_BYTES);
        if (!b->buf) { free(b); return NULL; }
        b->cap = BATCH_BYTES;
    }
    b->used = 0;
    b->next = NULL;
    return b;
}
static void batch_push(shard *s, batch *b)
{
    pthread_mutex_lock(&s->mu);
    while (s->qn == SHQ) pthread_cond_wait(&s->cv_space, &s->mu);
    s->q[(s->qh + s->qn) % SHQ] = b;
    s->qn++;
    pthread_cond_signal(&s->cv_data);
    pthread_mutex_unlock(&s->mu);
}
#define AL8(x) (((size_t)(x) + 7u) & ~(size_t)7u)
/* room for one entry of `pay` payload bytes in the shard's current batch; NULL when out of memory */
static uint8_t *shard_reserve(shard *s, size_t pay)
{
    size_t need = sizeof(rechdr) + pay;
    if (s->fill && s->fill->used + need > s->fill->cap && s->fill->used) {
        batch_push(s, s->fill);
        s->fill = NULL;
    }
    if (!s->fill && !(s->fill = batch_get(s))) return NULL;
    if (need > s->fill->cap) {
        uint8_t *nb = realloc(s->fill->buf, need);
        if (!nb) return NULL;
        s->fill->buf = nb;
        s->fill->cap = need;
    }
    uint8_t *p = s->fill->buf + s->fill->used;
    s->fill->used += need;
    return p;
}

static bool in_range(const void *p, uintptr_t base, size_t n)
{
    uintptr_t u = (uintptr_t)p;
    return u >= base && u - base <= n;
}

/* hand one decoded packet to a shard (main thread) */
static int shard_send(shard *s, const ub_view *v, rechdr h, const uint8_t *rec)
{
    uintptr_t rb = (uintptr_t)v->rec, nb = (uintptr_t)v->netbuf;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    size_t netlen = 0;
    bool ok = v->rec == rec && v->rec_len == h.len;
    for (unsigned i = 0; i < nl && ok; i++) {
        const ub_layer *l = &v->layer[i];
        if (in_range(l->data, rb, v->rec_len)) continue;
        if (in_range(l->data, nb, UB_MAX_NETPKT)) {
            size_t end = (size_t)((uintptr_t)l->data - nb) + l->len;
            if (end > netlen) netlen = end;
        } else {
            ok = false;
        }
    }
    if (ok && v->pkt && !in_range(v->pkt, rb, v->rec_len)) {
        if (in_range(v->pkt, nb, UB_MAX_NETPKT)) {
            size_t end = (size_t)((uintptr_t)v->pkt - nb) + v->pkt_len;
            if (end > netlen) netlen = end;
        } else {
            ok = false;
        }
    }
    if (netlen > UB_MAX_NETPKT) ok = false;
    if (!ok) {
        h.mode = M_REC;
        h.pay = (uint32_t)AL8(h.len);
        uint8_t *p = shard_reserve(s, h.pay);
        if (!p) return -1;
        memcpy(p, &h, sizeof h);
        memcpy(p + sizeof h, rec, h.len);
        return 0;
    }
    h.mode = M_VIEW;
    size_t pay = AL8(sizeof(vhdr)) + AL8(h.len) + nl * sizeof(ub_layer) + ne * sizeof(ub_err) + AL8(netlen);
    h.pay = (uint32_t)AL8(pay);
    uint8_t *p = shard_reserve(s, h.pay);
    if (!p) return -1;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    vhdr vh;
    vh.orig_rec = rb;
    vh.orig_net = nb;
    vh.nl = nl;
    vh.ne = ne;
    vh.netlen = (uint32_t)netlen;
    vh.pad = 0;
    memcpy(vh.prefix, v, sizeof vh.prefix);
    memcpy(p, &vh, sizeof vh);
    p += AL8(sizeof(vhdr));
    memcpy(p, rec, h.len);
    p += AL8(h.len);
    memcpy(p, v->layer, nl * sizeof(ub_layer));
    p += nl * sizeof(ub_layer);
    memcpy(p, v->err, ne * sizeof(ub_err));
    p += ne * sizeof(ub_err);
    memcpy(p, v->netbuf, netlen);
    return 0;
}

static const uint8_t *reloc(const uint8_t *p, const vhdr *vh, uint32_t rec_len, const uint8_t *rec, const uint8_t *net)
{
    if (!p) return NULL;
    if (in_range(p, (uintptr_t)vh->orig_rec, rec_len)) return rec + ((uintptr_t)p - (uintptr_t)vh->orig_rec);
    return net + ((uintptr_t)p - (uintptr_t)vh->orig_net);
}

/* rebuild a view shipped by shard_send (worker thread) */
static void view_receive(ub_view *v, const ub_opts *o, const rechdr *h, const uint8_t *p)
{
    vhdr vh;
    memcpy(&vh, p, sizeof vh);
    p += AL8(sizeof(vhdr));
    const uint8_t *rec = p;
    p += AL8(h->len);
    memcpy(v, vh.prefix, sizeof vh.prefix);
    memcpy(v->layer, p, vh.nl * sizeof(ub_layer));
    p += vh.nl * sizeof(ub_layer);
    memcpy(v->err, p, vh.ne * sizeof(ub_err));
    p += vh.ne * sizeof(ub_err);
    memcpy(v->netbuf, p, vh.netlen);
    v->opts = o;
    v->rec = rec;
    v->pkt = reloc(v->pkt, &vh, h->len, rec, v->netbuf);
    for (unsigned i = 0; i < vh.nl; i++) v->layer[i].data = reloc(v->layer[i].data, &vh, h->len, rec, v->netbuf);
}

static void *shard_main(void *arg)
{
    shard *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->qn == 0 && !s->done) pthread_cond_wait(&s->cv_data, &s->mu);
        if (s->qn == 0) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        batch *b = s->q[s->qh];
        s->qh = (s->qh + 1) % SHQ;
        s->qn--;
        pthread_cond_signal(&s->cv_space);
        pthread_mutex_unlock(&s->mu);
        for (size_t o = 0; o < b->used;) {
            rechdr h;
            memcpy(&h, b->buf + o, sizeof h);
            const uint8_t *d = b->buf + o + sizeof h;
            o += sizeof h + h.pay;
            ub_pktinfo pi = { h.frame, h.ts, h.ifindex, h.dir };
            if (h.mode == M_TICK) {
                /* end-of-capture clock: an empty packet carrying the capture's last timestamp, so the
                 * engine judges §10.6 e timeouts against the same end as a -j 1 engine (modules ignore
                 * packets without layers) */
                static const uint8_t none[1];
                ub_view *v = s->v;
                memset(v, 0, offsetof(ub_view, layer));
                v->rec = none;
                v->entry = UB_ENTRY_NONE;
                v->kind = UB_KIND_NONE;
                v->cfg = -1;
                v->opts = s->o;
                v->pkt_off = UINT32_MAX;
                ub_eng_packet(&s->e, v, &pi, h.seq);
                continue;
            }
            if (h.mode == M_VIEW) {
                view_receive(s->v, s->o, &h, d);
            } else {
                ub_decode(s->v, s->o, (ub_entry)h.entry, d, h.len);
                if (h.uflags & UB_UNIT_PARTIAL)
                    ub_error_rec(s->v, UB_E_STREAM, UB_H_NONE, 0, h.len, 0, "incomplete unit at the end of the stream");
            }
            ub_eng_packet(&s->e, s->v, &pi, h.seq);
        }
        pthread_mutex_lock(&s->mu);
        b->next = s->freel;
        s->freel = b;
        pthread_cond_signal(&s->cv_space);
        pthread_mutex_unlock(&s->mu);
    }
    ub_eng_finish(&s->e);
    return NULL;
}

ub_shards *ub_shards_start(ub_audit *a, const ub_opts *o, unsigned jobs, bool link_engine)
{
    ub_shards *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->jobs = jobs;
    S->n = jobs + (link_engine ? 1 : 0);
    S->sh = calloc(S->n, sizeof *S->sh);
    if (!S->sh) {
        free(S);
        return NULL;
    }
    for (unsigned i = 0; i < S->n; i++) {
        pthread_mutex_init(&S->sh[i].mu, NULL);
        pthread_cond_init(&S->sh[i].cv_data, NULL);
        pthread_cond_init(&S->sh[i].cv_space, NULL);
    }
    for (unsigned i = 0; i < S->n; i++) {
        shard *s = &S->sh[i];
        bool link = i == jobs;
        s->o = o;
        s->v = malloc(sizeof *s->v);
        if (s->v) ub_view_init(s->v);
        if (!s->v || ub_eng_init(a, &s->e, link ? UB_ST_DLL | UB_ST_DECODE : UB_ST_NW | UB_ST_TP | UB_ST_TA | UB_ST_MG,
                                 link ? UB_PHASE_LINK : UB_PHASE_PAIR, false) != 0)
            goto fail;
        if (pthread_create(&s->th, NULL, shard_main, s) != 0) goto fail;
        s->started = true;
    }
    return S;
fail:
    ub_shards_stop(S, false, 0, 0);
    ub_shards_free(S);
    return NULL;
}

/* the partial-unit error of a raw flit stream (re-added when a worker decodes the record again) */
static bool has_partial_error(const ub_view *v)
{
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    for (unsigned i = 0; i < ne; i++)
        if (v->err[i].code == UB_E_STREAM && v->err[i].hdr == UB_H_NONE && v->err[i].off == 0) return true;
    return false;
}

int ub_shards_send(ub_shards *S, unsigned i, const ub_view *v, const ub_pktinfo *pi, uint64_t seq)
{
    if (i >= S->n) return -1;
    rechdr rh = { seq, pi->frame, pi->ts_ns, pi->ifindex, v->rec_len, pi->dir, v->entry,
                  (uint8_t)(has_partial_error(v) ? UB_UNIT_PARTIAL : 0), M_VIEW, 0 };
    return shard_send(&S->sh[i], v, rh, v->rec);
}

static void batch_free(batch *b)
{
    free(b->buf);
    free(b);
}

int ub_shards_stop(ub_shards *S, bool tick, uint64_t last_frame, uint64_t max_ts)
{
    int rc = 0;
    if (!S) return 0;
    for (unsigned i = 0; i < S->n; i++) {
        shard *s = &S->sh[i];
        if (!s->started) continue;
        if (tick && i < S->jobs) { /* the link shard has seen every packet */
            rechdr t = { UINT64_MAX - 1, last_frame, max_ts, 0, 0, UB_DIR_UNKNOWN, UB_ENTRY_NONE, 0, M_TICK, 0 };
            uint8_t *p = shard_reserve(s, 0);
            if (p) memcpy(p, &t, sizeof t);
            else rc = -1;
        }
        if (s->fill && s->fill->used) {
            batch_push(s, s->fill);
        } else if (s->fill) {
            pthread_mutex_lock(&s->mu);
            s->fill->next = s->freel;
            s->freel = s->fill;
            pthread_mutex_unlock(&s->mu);
        }
        s->fill = NULL;
        pthread_mutex_lock(&s->mu);
        s->done = true;
        pthread_cond_signal(&s->cv_data);
        pthread_mutex_unlock(&s->mu);
    }
    for (unsigned i = 0; i < S->n; i++)
        if (S->sh[i].started) {
            pthread_join(S->sh[i].th, NULL);
            S->sh[i].started = false;
        }
    return rc;
}

unsigned ub_shards_count(const ub_shards *S) { return S ? S->n : 0; }
ub_eng *ub_shards_eng(ub_shards *S, unsigned i) { return S && i < S->n ? &S->sh[i].e : NULL; }

void ub_shards_free(ub_shards *S)
{
    if (!S) return;
    for (unsigned i = 0; i < S->n; i++) {
        shard *s = &S->sh[i];
        while (s->freel) {
            batch *b = s->freel;
            s->freel = b->next;
            batch_free(b);
        }
        for (unsigned k = 0; k < s->qn; k++) batch_free(s->q[(s->qh + k) % SHQ]);
        if (s->fill) batch_free(s->fill);
        ub_eng_free(&s->e);
        free(s->v);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv_data);
        pthread_cond_destroy(&s->cv_space);
    }
    free(S->sh);
    free(S);
}
