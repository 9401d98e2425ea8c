/* Threaded audit sessions (cfg.jobs = N > 1): a pipeline. The feeding thread reads; decoding is
 * spread over every thread by batches (ub_shards_unit: raw units; any idle worker claims the oldest
 * undecoded batch, the feeder, when decoded batches fall behind, the newest); N - 1 worker threads
 * run the engines in capture order. A thread with nothing to do polls a while before it sleeps. A batch lives in a ring slot that every worker reads. Decoding a unit
 * also does all the per-packet work that needs no engine state: it keeps the view's used part and
 * netbuf bytes in chunks that never move and extracts the packet as the rules see it (ub_pkt,
 * pktship.h) once, next to it; each engine reads that entry in place (no copy, no second
 * extraction: what stays sequential per engine is its modules' state work). Entries carry the set of
 * workers they are for (the link engine sees every packet, a pair engine those of its endpoint
 * pairs), the others skip them. Handoffs are per batch (one lock, one
 * wake-up for a few hundred packets), never per packet. Front ends that decode themselves feed views
 * (ub_shards_send) into the same ring. At the end the pair engines get the capture's end clock (a
 * tick) so their §10.6 e timeouts are judged against the same end as one engine's. audit.c chooses
 * the engines (see start()). */
#include "audit_int.h"
#include "pktship.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One entry of a batch: rechdr, then (mode) the payload, 8-byte aligned:
 *   M_PKT   (decoded raw units) the packet as the engines read it, in place: pktent (the packet
 *           info and the extracted ub_pkt), the view's window (its fields up to layer[nlayers], or
 *           up to err[nerrs] when it has errors: the rest of a ub_view is never read by an engine),
 *           the used netbuf bytes; every pointer final (chunks never move), nothing copied again
 *   M_VIEW  (views fed by ub_shards_send) the decoded view: vhdr, the record bytes, the layers, the
 *           errors, the used netbuf bytes (the worker rebuilds the view and relocates its pointers)
 *   M_REC   the record bytes only (re-decoded in the worker): used when a view points outside
 *           its record and netbuf, which the decoder never does today
 *   M_TICK  end-of-capture clock (no payload) */
enum { M_VIEW = 0, M_REC = 1, M_TICK = 2, M_RAW = 3 /* an undecoded unit (record bytes) */, M_PKT = 4 };
typedef struct {
    uint64_t dest;         /* bit i: worker i */
    uint64_t seq, frame, ts;
    uint32_t ifindex, len; /* len: record bytes */
    uint8_t dir, entry, uflags, mode;
    uint32_t pay;          /* payload bytes after this header (multiple of 8) */
    uint32_t wire;         /* length on the wire (ub_decode_wire) */
    uint32_t flags;        /* 0 (reserved) */
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

/* The ring: batch k lives in slot k % RING; the feeder may fill batch k once every worker has
 * finished batch k - RING. A batch of views closes at 128 KiB, a batch of raw units at 32 KiB
 * (~250 packets, ~160 KiB once decoded): ~4,000 packets in flight (8 slots were 5-12 % slower with
 * two threads on a 2-vCPU VM: bench/README.md, eleventh round) */
#define RING 16u
#define BATCH_BYTES (128u * 1024u)
#define RAW_BATCH_BYTES (32u * 1024u)
typedef struct {
    uint8_t *p;
    size_t cap, used;
} buf;
typedef struct {
    ub_pktinfo pi;
    ub_pkt p; /* p.v: the window that follows, p.pi: pi */
} pktent;
/* A decoded raw batch's entries live in chunks that never move (entries point into themselves);
 * each chunk has room for a whole ub_view past its last entry, so every window lies in memory.
 * Chunks hold CHUNK_BYTES of entries, more when one entry needs it (an M_REC entry of a record
 * longer than that; an M_PKT entry never copies its record and always fits). */
#define CHUNK_BYTES (256u * 1024u)
typedef struct chunk {
    struct chunk *next;
    size_t used, cap; /* cap: bytes of entries */
    uint64_t data[];  /* cap + sizeof(ub_view) bytes */
} chunk;
enum { SL_FILLING, SL_FILLED /* raw, to decode */, SL_CLAIMED /* being decoded */, SL_READY };
typedef struct {
    buf in;  /* raw units (M_RAW, M_TICK) */
    buf out; /* entries the engines read (views fed, M_VIEW) */
    chunk *ck; /* entries of the decoded raw units: the first nck chunks (kept for reuse) */
    unsigned nck;
    int state;
    bool raw;
} slot;

typedef struct {
    ub_view *dv; /* decoding view */
    ub_xplan *xp; /* its extraction's layer-dispatch memo (UB_XP_SETS) */
    ub_unit_counts cnt;
} decoder;

typedef struct worker {
    _Alignas(64) pthread_t th; /* a cache line of its own: each thread writes its engine's and its decoder's counters */
    bool started;
    struct ub_shards *S;
    unsigned id;
    ub_eng e;
    ub_view *v;    /* the engine's view, rebuilt from the entries */
    decoder d;
    uint64_t tail; /* next batch to read (under S->mu) */
    bool fed;      /* entries may be for it (else it only decodes: its engine gets nothing) */
} worker;

struct ub_shards {
    const ub_opts *o;
    const ub_state *xs;  /* extraction: worker 0's engine state, whose field handles (fixed at
                          * ub_state_new, never written again) every decoding thread reads */
    worker *w;
    unsigned n;
    uint64_t tickmask;   /* workers that get the end-of-capture tick */
    uint64_t allbits;    /* routing of decoded raw units: these workers get every packet, */
    unsigned pair0, npair, pairw; /* and one of npair groups of pairw workers from pair0 on, by ub_state_pair_hash */
    pthread_mutex_t mu;
    pthread_cond_t cv_data, cv_space;
    uint64_t head;       /* batches published (under mu) */
    uint64_t next_dec;   /* no undecoded batch below (under mu) */
    unsigned nfilled;    /* batches waiting to be decoded (under mu) */
    uint64_t min_tail;   /* feeder's cached minimum of the workers' tails */
    bool done, wait_space, oom;
    unsigned wait_data;
    bool poll;           /* more than one CPU: threads poll before they sleep (fixed at start) */
    unsigned spin;       /* pause rounds a thread polls `ver` before it sleeps (under mu) */
    _Atomic uint64_t ver; /* bumped (under mu) at every change a waiting thread waits for: a batch
                          * published or decoded, a worker's tail, the end */
    slot ring[RING];
    slot *fill;          /* feeder: batch `head` being filled, NULL when none */
    decoder fd;          /* the feeder's decoder (it helps when decoding falls behind) */
};

#define SPIN_ROUNDS 1000u /* at most ~30-40 us of pause on current x86 cores */
#define SPIN_MIN 16u
#define LOCK_ROUNDS 64u
#define AL8(x) (((size_t)(x) + 7u) & ~(size_t)7u)

/* under S->mu: something a waiting thread may be waiting for changed */
static inline void bump(ub_shards *S)
{
    atomic_store_explicit(&S->ver, atomic_load_explicit(&S->ver, memory_order_relaxed) + 1, memory_order_release);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* take S->mu; held by another thread, try again a few rounds before sleeping on it (every critical
 * section here is a few hundred instructions: a thread whose poll just saw the other's change would
 * otherwise sleep on the mutex the other still holds, two more context switches) */
static void lock_mu(ub_shards *S)
{
    for (unsigned i = 0; i < LOCK_ROUNDS && S->poll; i++) {
        if (pthread_mutex_trylock(&S->mu) == 0) return;
        cpu_relax();
    }
    pthread_mutex_lock(&S->mu);
}

/* with S->mu held, nothing to do: release it and poll for a change a while (a batch lasts tens of
 * microseconds: the other thread's next step is usually that close, and a futex sleep and wake-up
 * cost both threads more than that, in a VM far more), take it again; true when something changed
 * (look again), false: sleep on the condition variable (S->mu held all along since the last look).
 * The polling adapts: it halves after a poll that saw nothing (the other threads are not running:
 * a loaded machine) and doubles after one that did, up to SPIN_ROUNDS */
static bool spin_wait(ub_shards *S)
{
    if (!S->poll) return false;
    const uint64_t v0 = atomic_load_explicit(&S->ver, memory_order_relaxed);
    const unsigned n = S->spin;
    pthread_mutex_unlock(&S->mu);
    bool moved = false;
    for (unsigned i = 0; i < n && !moved; i++) {
        cpu_relax();
        moved = atomic_load_explicit(&S->ver, memory_order_relaxed) != v0;
    }
    lock_mu(S);
    if (moved) S->spin = n * 2 < SPIN_ROUNDS ? n * 2 : SPIN_ROUNDS;
    else S->spin = n / 2 > SPIN_MIN ? n / 2 : SPIN_MIN;
    return moved || atomic_load_explicit(&S->ver, memory_order_relaxed) != v0;
}

/* grow b to hold `need` more bytes; false when out of memory */
static bool buf_grow(buf *b, size_t need)
{
    size_t nc = b->cap ? b->cap : 64u * 1024u;
    while (nc < b->used + need) nc *= 2;
    uint8_t *np = realloc(b->p, nc);
    if (!np) return false;
    b->p = np;
    b->cap = nc;
    return true;
}

/* room for `need` more bytes in b (grown as needed); NULL when out of memory */
static inline uint8_t *buf_room(buf *b, size_t need)
{
    if (b->used + need > b->cap && !buf_grow(b, need)) return NULL;
    uint8_t *p = b->p + b->used;
    b->used += need;
    return p;
}

static uint64_t min_tail(const ub_shards *S)
{
    uint64_t m = UINT64_MAX;
    for (unsigned i = 0; i < S->n; i++)
        if (S->w[i].started && S->w[i].tail < m) m = S->w[i].tail;
    return m == UINT64_MAX ? S->head : m;
}

static void decode_slot(ub_shards *S, decoder *d, slot *b);

/* under S->mu: claim an undecoded batch, or NULL. Workers take the oldest (the one their engines
 * need next), the feeder the newest: a worker whose next batch is still raw decodes it itself (its
 * entries stay in its core's cache) instead of sleeping until the feeder's decode of it ends */
static slot *claim(ub_shards *S, bool newest)
{
    if (!S->nfilled) return NULL;
    while (S->next_dec < S->head && S->ring[S->next_dec % RING].state != SL_FILLED) S->next_dec++;
    if (S->next_dec == S->head) return NULL;
    uint64_t k = S->next_dec;
    if (newest)
        for (k = S->head - 1; S->ring[k % RING].state != SL_FILLED; k--) continue; /* stops at next_dec */
    else
        S->next_dec++;
    slot *b = &S->ring[k % RING];
    b->state = SL_CLAIMED;
    S->nfilled--;
    return b;
}

/* with S->mu held: wake the threads asleep on cv after releasing mu (so they do not wake into a held
 * mutex and sleep again on it), S->mu held again on return */
static void wake(ub_shards *S, pthread_cond_t *cv, bool all)
{
    pthread_mutex_unlock(&S->mu);
    if (all) pthread_cond_broadcast(cv);
    else pthread_cond_signal(cv);
    lock_mu(S);
}

/* called with S->mu held, returns with it held: decode b, mark it ready, wake the engines */
static void decode_claimed(ub_shards *S, decoder *d, slot *b)
{
    pthread_mutex_unlock(&S->mu);
    decode_slot(S, d, b);
    lock_mu(S);
    b->state = SL_READY;
    bump(S);
    if (S->wait_data) wake(S, &S->cv_data, true);
}

/* feeder: publish the batch being filled; then decode batches itself while two or more wait */
static void publish(ub_shards *S)
{
    slot *b = S->fill;
    S->fill = NULL;
    lock_mu(S);
    b->state = b->raw ? SL_FILLED : SL_READY;
    S->nfilled += b->raw;
    S->head++;
    bump(S);
    if (S->wait_data) wake(S, &S->cv_data, true);
    slot *c;
    while (S->nfilled >= 2 && (c = claim(S, true))) decode_claimed(S, &S->fd, c);
    pthread_mutex_unlock(&S->mu);
}

/* feeder: start batch `head` (until every worker is done with the batch that used its slot, the
 * feeder decodes waiting batches, or waits) */
static slot *acquire(ub_shards *S, bool raw)
{
    if (S->head >= S->min_tail + RING) {
        lock_mu(S);
        while (S->head >= (S->min_tail = min_tail(S)) + RING) {
            slot *c = claim(S, true);
            if (c) {
                decode_claimed(S, &S->fd, c);
                continue;
            }
            if (spin_wait(S)) continue;
            S->wait_space = true;
            pthread_cond_wait(&S->cv_space, &S->mu);
        }
        S->wait_space = false;
        pthread_mutex_unlock(&S->mu);
    }
    slot *b = &S->ring[S->head % RING];
    b->state = SL_FILLING;
    b->raw = raw;
    b->in.used = b->out.used = 0;
    return b;
}

/* feeder: room for one entry of `pay` payload bytes in the current batch (raw: its input); NULL when
 * out of memory */
static uint8_t *reserve(ub_shards *S, size_t pay, bool raw)
{
    size_t need = sizeof(rechdr) + pay;
    if (S->fill && S->fill->raw != raw && (S->fill->in.used || S->fill->out.used)) publish(S);
    if (S->fill) {
        buf *f = S->fill->raw ? &S->fill->in : &S->fill->out;
        if (f->used && f->used + need > (raw ? RAW_BATCH_BYTES : BATCH_BYTES)) publish(S);
    }
    if (!S->fill) S->fill = acquire(S, raw);
    S->fill->raw = raw;
    return buf_room(raw ? &S->fill->in : &S->fill->out, need);
}

static bool in_range(const void *p, uintptr_t base, size_t n)
{
    uintptr_t u = (uintptr_t)p;
    return u - base <= n; /* unsigned: below base wraps to a large value */
}

/* the partial-unit error of a raw flit stream (re-added when a worker decodes the record again) */
/* where v's pointers go: false when one is outside its record and netbuf (or past the netbuf);
 * else *netlen = the netbuf bytes they use (0: all in the record) */
static bool view_span(const ub_view *v, unsigned nl, size_t *netlen)
{
    uintptr_t rb = (uintptr_t)v->rec, nb = (uintptr_t)v->netbuf;
    size_t n = 0;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (in_range(l->data, rb, v->rec_len)) continue;
        if (!in_range(l->data, nb, UB_MAX_NETPKT)) return false;
        size_t end = (size_t)((uintptr_t)l->data - nb) + l->len;
        if (end > n) n = end;
    }
    if (v->pkt && !in_range(v->pkt, rb, v->rec_len)) {
        if (!in_range(v->pkt, nb, UB_MAX_NETPKT)) return false;
        size_t end = (size_t)((uintptr_t)v->pkt - nb) + v->pkt_len;
        if (end > n) n = end;
    }
    *netlen = n;
    return n <= UB_MAX_NETPKT;
}

/* one decoded view as an entry of the feeder's batch (M_VIEW, or M_REC) */
static int put_view(ub_shards *S, uint64_t dest, const ub_view *v, const ub_pktinfo *pi, uint64_t seq)
{
    rechdr h = { dest, seq, pi->frame, pi->ts_ns, pi->ifindex, v->rec_len, pi->dir, v->entry, 0, M_VIEW, 0, v->wire_len, 0 };
    uintptr_t rb = (uintptr_t)v->rec, nb = (uintptr_t)v->netbuf;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    size_t netlen = 0;
    bool ok = view_span(v, nl, &netlen);
    if (!ok) {
        h.mode = M_REC;
        h.flags = 0;
        h.uflags = ub_unit_flags_of(v);
        h.pay = (uint32_t)AL8(h.len);
        uint8_t *p = reserve(S, h.pay, false);
        if (!p) return -1;
        memcpy(p, &h, sizeof h);
        memcpy(p + sizeof h, v->rec, h.len);
        return 0;
    }
    size_t reclen = AL8(h.len);
    size_t pay = AL8(sizeof(vhdr)) + reclen + nl * sizeof(ub_layer) + ne * sizeof(ub_err) + AL8(netlen);
    h.pay = (uint32_t)AL8(pay);
    uint8_t *p = reserve(S, h.pay, false);
    if (!p) return -1;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    vhdr *vh = (vhdr *)p; /* entries are 8-byte aligned (malloc'ed buffers, AL8 sizes) */
    vh->orig_rec = rb;
    vh->orig_net = nb;
    vh->nl = nl;
    vh->ne = ne;
    vh->netlen = (uint32_t)netlen;
    vh->pad = 0;
    memcpy(vh->prefix, v, sizeof vh->prefix);
    p += AL8(sizeof(vhdr));
    if (reclen) memcpy(p, v->rec, h.len);
    p += reclen;
    memcpy(p, v->layer, nl * sizeof(ub_layer));
    p += nl * sizeof(ub_layer);
    if (ne) memcpy(p, v->err, ne * sizeof(ub_err));
    p += ne * sizeof(ub_err);
    if (netlen) memcpy(p, v->netbuf, netlen);
    return 0;
}

int ub_shards_send(ub_shards *S, uint64_t dest, const ub_view *v, const ub_pktinfo *pi, uint64_t seq)
{
    return put_view(S, dest, v, pi, seq);
}

int ub_shards_unit(ub_shards *S, ub_entry entry, const uint8_t *data, uint32_t len, uint32_t wire, unsigned unit_flags,
                   const ub_pktinfo *pi, uint64_t seq)
{
    rechdr h = { 0, seq, pi->frame, pi->ts_ns, pi->ifindex, len, pi->dir, (uint8_t)entry, (uint8_t)unit_flags, M_RAW,
                 (uint32_t)AL8(len), wire, 0 };
    size_t need = sizeof h + h.pay;
    buf *f = S->fill && S->fill->raw ? &S->fill->in : NULL;
    uint8_t *p;
    if (f && f->used && f->used + need <= RAW_BATCH_BYTES && f->used + need <= f->cap) { /* fast path of reserve() */
        p = f->p + f->used;
        f->used += need;
    } else if (!(p = reserve(S, h.pay, true))) {
        return -1;
    }
    memcpy(p, &h, sizeof h);
    memcpy(p + sizeof h, data, len);
    return 0;
}

/* the unit counted: the layers' IB BTH, SUE RH, PCIe flit are v->neigh's bits (set by the decoder from
 * the layers kept: no pass over them here) */
_Static_assert(UB_VN_IB == 1 && UB_VN_SUE == 2 && UB_VN_PCIE == 4 && UB_VN_QUOTED_UB == 8, "ub_unit_count reads ub_view.neigh's bits");
static inline void count_unit(ub_unit_counts *c, const ub_view *v)
{
    const unsigned seen = v->neigh;
    c->units++;
    if (ub_view_ub(v)) c->ub++;
    else c->other++;
    c->ib += seen & 1u;
    c->sue += seen >> 1 & 1u;
    c->pcie += seen >> 2 & 1u;
    c->quoted_ub += seen >> 3 & 1u;
    if (v->opts && v->opts->profile == UB_PROFILE_SPEC) ub_sniff_view(&c->sniff, v);
}

void ub_unit_count(ub_unit_counts *c, const ub_view *v) { count_unit(c, v); }

static void decode_unit(ub_view *v, const ub_opts *o, const rechdr *h, const uint8_t *d)
{
    ub_decode_wire(v, o, (ub_entry)h->entry, d, h->len, h->wire);
    ub_unit_errors(v, h->uflags, h->len);
}

/* room for an entry of `need` bytes in the decoded batch b, *cur its chunk in use (NULL before the
 * first); NULL when out of memory */
static uint8_t *chunk_next(slot *b, chunk **cur, size_t need);
static inline uint8_t *chunk_room(slot *b, chunk **cur, size_t need)
{
    chunk *c = *cur;
    if (__builtin_expect(!c || c->used + need > c->cap, 0)) return chunk_next(b, cur, need);
    uint8_t *p = (uint8_t *)c->data + c->used;
    c->used += need;
    return p;
}

/* chunk_room when *cur is full (or none yet): the next chunk */
static __attribute__((noinline)) uint8_t *chunk_next(slot *b, chunk **cur, size_t need)
{
    chunk **nx = *cur ? &(*cur)->next : &b->ck;
    if (*nx && (*nx)->cap < need) { /* too small for this entry (not in use: the chunks after *cur) */
        chunk *after = (*nx)->next;
        free(*nx);
        *nx = after;
    }
    if (!*nx || (*nx)->cap < need) {
        size_t cap = need > CHUNK_BYTES ? need : CHUNK_BYTES;
        chunk *n = malloc(sizeof(chunk) + cap + sizeof(ub_view));
        if (!n) return NULL;
        n->next = *nx;
        n->cap = cap;
        *nx = n;
    }
    chunk *c = *cur = *nx;
    c->used = need;
    b->nck++;
    return (uint8_t *)c->data;
}

/* the decoded unit as an M_PKT entry: its view's window, its netbuf bytes, the packet extracted
 * from the window (M_REC, the record to decode again, when a pointer leaves record and netbuf) */
static int put_pkt(ub_shards *S, ub_xplan *xp, slot *b, chunk **cur, const rechdr *rh, uint64_t dest, const ub_view *v, bool inrec)
{
    rechdr h = *rh;
    h.dest = dest;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    size_t netlen = 0;
    if (!inrec && !view_span(v, nl, &netlen)) {
        h.mode = M_REC;
        h.uflags = ub_unit_flags_of(v);
        h.pay = (uint32_t)AL8(h.len);
        uint8_t *p = chunk_room(b, cur, sizeof h + h.pay);
        if (!p) return -1;
        memcpy(p, &h, sizeof h);
        memcpy(p + sizeof h, v->rec, h.len);
        return 0;
    }
    size_t head = offsetof(ub_view, layer) + nl * sizeof(ub_layer);
    size_t win = ne ? offsetof(ub_view, err) + ne * sizeof(ub_err) : head;
    h.mode = M_PKT;
    h.pay = (uint32_t)(AL8(sizeof(pktent)) + AL8(win) + AL8(netlen));
    uint8_t *p = chunk_room(b, cur, sizeof h + h.pay);
    if (!p) return -1;
    memcpy(p, &h, sizeof h);
    pktent *pe = (pktent *)(p + sizeof h);
    ub_view *wv = (ub_view *)((uint8_t *)pe + AL8(sizeof(pktent)));
    memcpy(wv, v, head);
    if (ne) memcpy(wv->err, v->err, ne * sizeof(ub_err));
    if (netlen) { /* the pointers into the netbuf: to its copy */
        uint8_t *net = (uint8_t *)wv + AL8(win);
        uintptr_t rb = (uintptr_t)v->rec, nb = (uintptr_t)v->netbuf;
        memcpy(net, v->netbuf, netlen);
        for (unsigned i = 0; i < nl; i++)
            if (!in_range(wv->layer[i].data, rb, v->rec_len)) wv->layer[i].data = net + ((uintptr_t)wv->layer[i].data - nb);
        if (wv->pkt && !in_range(wv->pkt, rb, v->rec_len)) wv->pkt = net + ((uintptr_t)wv->pkt - nb);
    }
    pe->pi = (ub_pktinfo){ h.frame, h.ts, h.ifindex, h.dir };
    ub_state_extract(S->xs, xp, wv, &pe->pi, &pe->p);
    return 0;
}

/* decode a raw batch into its chunks (any thread, the batch claimed) */
/* (never inlined: bench/threads.sh reads its inclusive instructions for the pipeline bound) */
__attribute__((noinline)) static void decode_slot(ub_shards *S, decoder *d, slot *b)
{
    chunk *cur = NULL;
    b->nck = 0;
    bool oom = false;
    for (size_t o = 0; o < b->in.used;) {
        const rechdr *h = (const rechdr *)(b->in.p + o);
        const uint8_t *data = b->in.p + o + sizeof *h;
        o += sizeof *h + h->pay;
        if (h->mode != M_RAW) { /* the tick: as it is */
            uint8_t *p = chunk_room(b, &cur, sizeof *h + h->pay);
            if (p) memcpy(p, h, sizeof *h + h->pay);
            else oom = true;
            continue;
        }
        const ub_view *v = d->dv;
        decode_unit(d->dv, S->o, h, data);
        /* is every pointer in the record? (put_pkt then needs no view_span) The decoder points layers
         * into the netbuf only when it points the network packet there too (a multi-block DLLDP:
         * dll.c dec_payload, tmpl.c), so with the packet in the record or none every layer is in the
         * record: no pass over them (~70 instructions a unit; checked below when assertions are on) */
        const uintptr_t rb = (uintptr_t)v->rec, rl = v->rec_len;
        const bool out = v->pkt && (uintptr_t)v->pkt - rb > rl;
#ifndef NDEBUG
        for (unsigned i = 0; !out && i < v->nlayers && i < UB_MAX_LAYERS; i++) assert((uintptr_t)v->layer[i].data - rb <= rl);
#endif
        count_unit(&d->cnt, v);
        uint64_t dest = S->allbits;
        if (S->npair) /* link-only traffic (hash 0) goes to pair engine 0 */
            dest |= ((1ull << S->pairw) - 1) << (S->pair0 + S->pairw * (unsigned)(S->npair > 1 ? ub_state_pair_hash(d->dv) % S->npair : 0));
        if (put_pkt(S, d->xp, b, &cur, h, dest, v, !out) != 0) oom = true;
    }
    if (oom) {
        lock_mu(S);
        S->oom = true;
        pthread_mutex_unlock(&S->mu);
    }
}

static const uint8_t *reloc(const uint8_t *p, const vhdr *vh, uint32_t rec_len, const uint8_t *rec, const uint8_t *net)
{
    if (!p) return NULL;
    if (in_range(p, (uintptr_t)vh->orig_rec, rec_len)) return rec + ((uintptr_t)p - (uintptr_t)vh->orig_rec);
    return net + ((uintptr_t)p - (uintptr_t)vh->orig_net);
}

/* rebuild a view shipped by put_view (worker thread) */
static void view_receive(ub_view *v, const ub_opts *o, const rechdr *h, const uint8_t *p)
{
    const vhdr *vh = (const vhdr *)p;
    p += AL8(sizeof(vhdr));
    const uint8_t *rec = p;
    p += AL8(h->len);
    memcpy(v, vh->prefix, sizeof vh->prefix);
    memcpy(v->layer, p, vh->nl * sizeof(ub_layer));
    p += vh->nl * sizeof(ub_layer);
    if (vh->ne) memcpy(v->err, p, vh->ne * sizeof(ub_err));
    p += vh->ne * sizeof(ub_err);
    if (vh->netlen) memcpy(v->netbuf, p, vh->netlen);
    v->opts = o;
    v->rec = rec;
    v->pkt = reloc(v->pkt, vh, h->len, rec, v->netbuf);
    for (unsigned i = 0; i < vh->nl; i++) v->layer[i].data = reloc(v->layer[i].data, vh, h->len, rec, v->netbuf);
}

/* the end-of-capture clock: an empty packet carrying the capture's last timestamp, so the engine
 * judges §10.6 e timeouts against the same end as a one-engine session (modules ignore packets
 * without layers) */
static void tick(worker *w, const ub_pktinfo *pi, uint64_t seq)
{
    static const uint8_t none[1];
    ub_view *v = w->v;
    memset(v, 0, offsetof(ub_view, layer));
    v->rec = none;
    v->entry = UB_ENTRY_NONE;
    v->kind = UB_KIND_NONE;
    v->cfg = -1;
    v->opts = w->S->o;
    v->pkt_off = UINT32_MAX;
    ub_eng_packet(&w->e, v, pi, seq);
}

/* ub_eng_packet of a packet extracted by the decoding stage */
static void eng_packet_pkt(ub_eng *e, const ub_pkt *p, uint64_t seq)
{
    e->cur_pkt = seq;
    e->cur_frame = p->pi->frame;
    e->cur_flags = 0;
    ub_state_packet_pkt(e->st, p);
    if (e->tp) ub_tps_add(e->tp, p->v, e->cur_flags, p->pi->frame, p->pi->ts_ns);
}

static void run_entries(worker *w, const uint8_t *at, size_t used)
{
    const uint64_t me = 1ull << w->id;
    for (size_t o = 0; o < used;) {
        const rechdr *h = (const rechdr *)(at + o);
        const uint8_t *d = at + o + sizeof *h;
        o += sizeof *h + h->pay;
        if (!(h->dest & me)) continue;
        if (h->mode == M_PKT) { /* in place */
            eng_packet_pkt(&w->e, &((const pktent *)d)->p, h->seq);
            continue;
        }
        ub_pktinfo pi = { h->frame, h->ts, h->ifindex, h->dir };
        if (h->mode == M_TICK) {
            tick(w, &pi, h->seq);
            continue;
        }
        if (h->mode == M_VIEW) view_receive(w->v, w->S->o, h, d);
        else decode_unit(w->v, w->S->o, h, d);
        ub_eng_packet(&w->e, w->v, &pi, h->seq);
    }
}

static void run_batch(worker *w, const slot *b)
{
    if (!b->raw) {
        run_entries(w, b->out.p, b->out.used);
        return;
    }
    const chunk *c = b->ck;
    for (unsigned k = 0; k < b->nck; k++, c = c->next) run_entries(w, (const uint8_t *)c->data, c->used);
}

/* a worker: its engine's next batches when they are decoded, else the oldest undecoded batch */
static void *worker_main(void *arg)
{
    worker *w = arg;
    ub_shards *S = w->S;
    lock_mu(S);
    for (;;) {
        uint64_t upto = w->tail;
        while (upto < S->head && S->ring[upto % RING].state == SL_READY) upto++;
        if (upto > w->tail) {
            pthread_mutex_unlock(&S->mu);
            for (uint64_t k = w->tail; w->fed && k < upto; k++) run_batch(w, &S->ring[k % RING]);
            lock_mu(S);
            w->tail = upto;
            bump(S);
            if (S->wait_space) wake(S, &S->cv_space, false);
            continue;
        }
        slot *c = claim(S, false);
        if (c) {
            decode_claimed(S, &w->d, c);
            continue;
        }
        if (S->done && w->tail == S->head) break;
        if (spin_wait(S)) continue;
        S->wait_data++;
        pthread_cond_wait(&S->cv_data, &S->mu);
        S->wait_data--;
    }
    pthread_mutex_unlock(&S->mu);
    ub_eng_finish(&w->e);
    return NULL;
}

static int decoder_init(decoder *d)
{
    memset(&d->cnt, 0, sizeof d->cnt);
    if (!(d->dv = ub_view_new_tmpl())) return -1;
    if (!(d->xp = calloc(UB_XP_SETS, sizeof *d->xp))) return -1;
    return 0;
}

ub_shards *ub_shards_start(ub_audit *a, const ub_opts *o, unsigned n, const ub_shard_spec *spec, uint64_t allbits,
                           unsigned pair0, unsigned npair, unsigned pairw)
{
    if (n == 0 || n > 64) return NULL;
    ub_shards *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->o = o;
    S->n = n;
    S->allbits = allbits;
    S->pair0 = pair0;
    S->npair = npair;
    S->pairw = pairw;
    pthread_mutex_init(&S->mu, NULL);
    atomic_init(&S->ver, 0);
    S->poll = sysconf(_SC_NPROCESSORS_ONLN) > 1;
    S->spin = SPIN_ROUNDS;
    pthread_cond_init(&S->cv_data, NULL);
    pthread_cond_init(&S->cv_space, NULL);
    _Static_assert(sizeof(ub_unit_counts) == 13 * sizeof(uint64_t), "ub_unit_counts: uint64_t counters only (counts_add)");
    if (!(S->w = aligned_alloc(_Alignof(worker), n * sizeof *S->w))) goto fail;
    memset(S->w, 0, n * sizeof *S->w);
    if (decoder_init(&S->fd) != 0) goto fail;
    for (unsigned i = 0; i < n; i++) {
        worker *w = &S->w[i];
        w->S = S;
        w->id = i;
        if (spec[i].tick) S->tickmask |= 1ull << i;
        w->fed = (allbits >> i & 1u) || spec[i].tick || (i >= pair0 && i - pair0 < (uint64_t)npair * pairw);
        if (!(w->v = malloc(sizeof *w->v)) || decoder_init(&w->d) != 0) goto fail;
        ub_view_init(w->v);
        if (ub_eng_init(a, &w->e, spec[i].layers, spec[i].phase, false) != 0) goto fail;
    }
    S->xs = S->w[0].e.st;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&S->w[i].th, NULL, worker_main, &S->w[i]) != 0) goto fail;
        S->w[i].started = true;
    }
    return S;
fail:
    ub_shards_stop(S, false, 0, 0);
    ub_shards_free(S);
    return NULL;
}

int ub_shards_stop(ub_shards *S, bool tick_end, uint64_t last_frame, uint64_t max_ts)
{
    int rc = 0;
    if (!S || S->done) return 0;
    bool any = false;
    for (unsigned i = 0; S->w && i < S->n; i++) any |= S->w[i].started;
    if (any && tick_end && S->tickmask) {
        rechdr t = { S->tickmask, UINT64_MAX - 1, last_frame, max_ts, 0, 0, UB_DIR_UNKNOWN, UB_ENTRY_NONE, 0, M_TICK, 0, 0, 0 };
        uint8_t *p = reserve(S, 0, S->fill && S->fill->raw);
        if (p) memcpy(p, &t, sizeof t);
        else rc = -1;
    }
    if (S->fill && (S->fill->in.used || S->fill->out.used)) publish(S);
    S->fill = NULL;
    lock_mu(S);
    S->done = true;
    bump(S);
    pthread_cond_broadcast(&S->cv_data);
    pthread_mutex_unlock(&S->mu);
    for (unsigned i = 0; S->w && i < S->n; i++)
        if (S->w[i].started) {
            pthread_join(S->w[i].th, NULL);
            S->w[i].started = false;
        }
    return rc || S->oom ? -1 : 0;
}

unsigned ub_shards_count(const ub_shards *S) { return S ? S->n : 0; }
ub_eng *ub_shards_eng(ub_shards *S, unsigned i) { return S && i < S->n ? &S->w[i].e : NULL; }

/* ub_unit_counts (ub_sniff included) is uint64_t counters only */
static void counts_add(ub_unit_counts *a, const ub_unit_counts *b)
{
    uint64_t x[sizeof *a / sizeof(uint64_t)], y[sizeof *a / sizeof(uint64_t)];
    memcpy(x, a, sizeof x);
    memcpy(y, b, sizeof y);
    for (size_t i = 0; i < sizeof x / sizeof *x; i++) x[i] += y[i];
    memcpy(a, x, sizeof x);
}

void ub_shards_counts(const ub_shards *S, ub_unit_counts *c)
{
    if (!S) return;
    counts_add(c, &S->fd.cnt);
    for (unsigned i = 0; S->w && i < S->n; i++) counts_add(c, &S->w[i].d.cnt);
}

void ub_shards_free(ub_shards *S)
{
    if (!S) return;
    for (unsigned i = 0; S->w && i < S->n; i++) {
        ub_eng_free(&S->w[i].e);
        free(S->w[i].v);
        free(S->w[i].d.dv);
        free(S->w[i].d.xp);
    }
    free(S->fd.dv);
    free(S->fd.xp);
    for (unsigned k = 0; k < RING; k++) {
        for (chunk *c = S->ring[k].ck, *nx; c; c = nx) {
            nx = c->next;
            free(c);
        }
        free(S->ring[k].in.p);
        free(S->ring[k].out.p);
    }
    free(S->w);
    pthread_mutex_destroy(&S->mu);
    pthread_cond_destroy(&S->cv_data);
    pthread_cond_destroy(&S->cv_space);
    free(S);
}
