/* Records -> decodable units. Every record is one unit, except raw flit streams (LINKTYPE_USER2),
 * which are delimited across records per (interface, direction) — the same key the Wireshark plugin
 * uses: any 32-bit interface id, unknown / outbound / inbound directions apart. Stream state (about
 * 10 KB each) is allocated when a stream first appears; at most max_streams are open: beyond that the
 * least recently used one is flushed (its incomplete unit reported as partial) and reused, counted. */
#include "internal.h"
#include "ubparse/audit.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t key; /* interface << 2 | direction rank */
    uint64_t last;
    ub_stream *s;
    uint32_t open_since; /* frame where the unit being collected started, 0 at a boundary */
} ustream;

struct ub_units {
    const ub_opts *o;
    unsigned max;
    ustream *v; /* sorted by key */
    unsigned n, cap, hint;
    uint64_t tick, evicted;
    ub_rec last; /* the last stream record (data = NULL): units flushed at the end cite it */
    uint32_t lt_cached;  /* linktype -> entry point of the previous record */
    ub_entry e_cached;
    bool have_cached;
    bool defrag;         /* IP reassembly (ub_opts.ip_defrag, ub_units_defrag) */
    uint8_t path;        /* of the cached entry point: PATH_* */
    ub_ipfrag *frag;     /* created with the first record that may hold IP */
    ub_units_lost_fn lost_fn; /* its datagrams given up (ub_units_on_lost) */
    void *lost_ctx;
    /* the call in progress */
    const ub_rec *cur;
    ub_unit_fn fn;
    void *ctx;
    int nunits;
    bool first_cb;       /* no unit of the record yet */
    ustream *cur_s;
    uint64_t ri_frame;   /* ri: the last stream record */
    ub_units_rinfo ri;
};

ub_units *ub_units_new(const ub_opts *o, unsigned max_streams)
{
    ub_units *u = calloc(1, sizeof *u);
    if (!u) return NULL;
    u->o = o;
    u->max = max_streams ? max_streams : 4096;
    u->defrag = o->ip_defrag;
    return u;
}

void ub_units_defrag(ub_units *u, bool on)
{
    u->defrag = on;
    u->have_cached = false;
}

void ub_units_free(ub_units *u)
{
    if (!u) return;
    for (unsigned i = 0; i < u->n; i++) free(u->v[i].s);
    free(u->v);
    ub_ipfrag_free(u->frag);
    free(u);
}

uint64_t ub_units_evicted(const ub_units *u) { return u ? u->evicted : 0; }
unsigned ub_units_streams(const ub_units *u) { return u ? u->n : 0; }

/* flush order at the end: interface, then unknown, outbound, inbound */
static uint64_t stream_key(const ub_rec *r)
{
    unsigned d = r->dir == UB_DIR_IN ? 2u : r->dir == UB_DIR_OUT ? 1u : 0u;
    return (uint64_t)r->ifindex << 2 | d;
}

enum { PATH_ONE = 0, PATH_STREAM = 1, PATH_IP = 2 }; /* one record one unit; a raw flit stream; IP reassembly */

static void unit_cb(void *ctx, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    ub_units *u = ctx;
    u->nunits++;
    if (u->first_cb && u->cur_s && u->cur_s->open_since) { /* the unit collected across records completes */
        u->ri.started_in = u->cur_s->open_since;
        u->cur_s->open_since = 0;
    }
    u->first_cb = false;
    u->fn(u->ctx, u->cur, unit, len, UB_ENTRY_FLIT, flags);
}

/* index of the stream with this key, or where it belongs (*found = false) */
static unsigned find(const ub_units *u, uint64_t key, bool *found)
{
    if (u->hint < u->n && u->v[u->hint].key == key) {
        *found = true;
        return u->hint;
    }
    unsigned lo = 0, hi = u->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (u->v[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    *found = lo < u->n && u->v[lo].key == key;
    return lo;
}

static ub_stream *stream_for(ub_units *u, const ub_rec *r)
{
    uint64_t key = stream_key(r);
    bool found;
    unsigned i = find(u, key, &found);
    if (found) {
        u->hint = i;
        u->v[i].last = ++u->tick;
        return u->v[i].s;
    }
    ub_stream *s = NULL;
    if (u->n >= u->max) { /* bounded: flush and reuse the least recently used stream */
        unsigned lru = 0;
        for (unsigned k = 1; k < u->n; k++)
            if (u->v[k].last < u->v[lru].last) lru = k;
        s = u->v[lru].s;
        ub_stream_flush(s, unit_cb, u);
        u->evicted++;
        memmove(&u->v[lru], &u->v[lru + 1], (u->n - lru - 1) * sizeof *u->v);
        u->n--;
        i = find(u, key, &found);
    } else {
        if (u->n == u->cap) {
            unsigned nc = u->cap ? u->cap * 2 : 8;
            if (nc > u->max) nc = u->max;
            ustream *nv = realloc(u->v, nc * sizeof *nv);
            if (!nv) return NULL;
            u->v = nv;
            u->cap = nc;
        }
        s = malloc(sizeof *s);
        if (!s) return NULL;
    }
    ub_stream_init(s, u->o);
    memmove(&u->v[i + 1], &u->v[i], (u->n - i) * sizeof *u->v);
    u->v[i] = (ustream){ key, ++u->tick, s, 0 };
    u->n++;
    u->hint = i;
    return s;
}

/* kept out of line: the common path (one record, one unit) stays a few instructions */
__attribute__((noinline)) static int record_stream(ub_units *u, const ub_rec *r, ub_unit_fn fn, void *ctx)
{
    u->last = *r;
    u->last.data = NULL;
    u->cur = r;
    u->fn = fn;
    u->ctx = ctx;
    u->nunits = 0;
    ub_stream *s = stream_for(u, r);
    if (!s) { /* out of memory: the record is passed on alone, marked partial */
        fn(ctx, r, r->data, r->caplen, UB_ENTRY_FLIT, UB_UNIT_PARTIAL);
        return 1;
    }
    /* ub.stream.*: as the plugin's stream_first_pass (dissector/packet-ub.c) */
    ustream *us = &u->v[u->hint];
    memset(&u->ri, 0, sizeof u->ri);
    u->ri_frame = r->frame;
    u->cur_s = us;
    u->first_cb = true;
    uint32_t before = s->have;
    ub_stream_feed(s, r->data, r->caplen, unit_cb, u);
    if (u->first_cb && us->open_since) u->ri.started_in = us->open_since; /* all of it in the open unit */
    if (s->have > 0) {
        uint32_t pend = s->have;
        if (u->first_cb && before <= pend) pend -= before;
        u->ri.tail_open = true;
        u->ri.open_bytes = pend > r->caplen ? r->caplen : pend;
        if (!us->open_since) us->open_since = r->frame <= UINT32_MAX ? (uint32_t)r->frame : 0;
        u->ri.open_since = us->open_since;
    }
    u->ri.units = (uint32_t)u->nunits;
    u->cur_s = NULL;
    u->first_cb = false;
    return u->nunits;
}

int ub_units_rec_info(const ub_units *u, uint64_t frame, ub_units_rinfo *ri)
{
    if (!u || !frame || u->ri_frame != frame) return 0;
    *ri = u->ri;
    return 1;
}

/* a record that may hold an IP fragment: its datagram whole when it completes one (ipfrag.c) */
__attribute__((noinline)) static int record_ip(ub_units *u, const ub_rec *r, uint32_t len, ub_unit_fn fn, void *ctx)
{
    const uint8_t *whole;
    uint32_t wl;
    if (!u->frag && (u->frag = ub_ipfrag_new(0))) ub_ipfrag_on_lost(u->frag, u->o, u->lost_fn, u->lost_ctx);
    if (u->frag && ub_ipfrag_add(u->frag, r->frame, u->e_cached, r->data, len, &whole, &wl) == 2) {
        fn(ctx, r, whole, wl, u->e_cached, UB_UNIT_REASSEMBLED);
        return 1;
    }
    fn(ctx, r, r->data, len, u->e_cached, 0);
    return 1;
}

int ub_units_record(ub_units *u, const ub_rec *r, ub_unit_fn fn, void *ctx)
{
    if (r->linktype != u->lt_cached || !u->have_cached) {
        u->e_cached = ub_entry_for_linktype(u->o, r->linktype);
        u->lt_cached = r->linktype;
        u->have_cached = true;
        const ub_entry e = u->e_cached;
        u->path = e == UB_ENTRY_STREAM ? PATH_STREAM
                : u->defrag && (e == UB_ENTRY_ETH || e == UB_ENTRY_RAWIP || e == UB_ENTRY_IP || e == UB_ENTRY_SLL ||
                                e == UB_ENTRY_SLL2 || e == UB_ENTRY_NULL) ? PATH_IP : PATH_ONE;
    }
    /* an Ethernet frame captured with its FCS: the frame before it */
    const uint32_t len = __builtin_expect(r->fcslen != 0, 0) ? ub_rec_frame_caplen(r) : r->caplen;
    if (u->path) return u->path == PATH_STREAM ? record_stream(u, r, fn, ctx) : record_ip(u, r, len, fn, ctx);
    fn(ctx, r, r->data, len, u->e_cached, 0); /* one record, one unit */
    return 1;
}

uint64_t ub_units_defrag_dropped(const ub_units *u) { return u ? ub_ipfrag_dropped(u->frag) : 0; }
uint64_t ub_units_defrag_lost(const ub_units *u) { return u ? ub_ipfrag_lost(u->frag) : 0; }

void ub_units_on_lost(ub_units *u, ub_units_lost_fn fn, void *ctx)
{
    u->lost_fn = fn;
    u->lost_ctx = ctx;
    if (u->frag) ub_ipfrag_on_lost(u->frag, u->o, fn, ctx);
}

int ub_units_flush(ub_units *u, ub_unit_fn fn, void *ctx)
{
    u->cur = &u->last;
    u->fn = fn;
    u->ctx = ctx;
    u->nunits = 0;
    for (unsigned i = 0; i < u->n; i++) ub_stream_flush(u->v[i].s, unit_cb, u);
    if (u->frag) ub_ipfrag_flush(u->frag);
    return u->nunits;
}
