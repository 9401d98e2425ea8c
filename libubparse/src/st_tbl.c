/* The state engine's bounded tables (st_internal.h, ub_tbl): open addressing in Robin Hood order, one
 * 64-bit hash per key, lazily grown to the size that holds the cap, approximate LRU eviction beyond it. */
#include "st_internal.h"

#include <stdlib.h>

static uint32_t pow2_at_least(uint32_t v)
{
    uint32_t p = 16;
    while (p < v && p < (1u << 30)) p <<= 1;
    return p;
}

/* one 64-bit hash of a key, eight bytes at a time */
static UB_FH_INLINE uint64_t key_hash(const ub_key *k)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ k->len, w;
    unsigned n = k->len > UB_KEY_MAX ? UB_KEY_MAX : k->len, i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n > 8 && n < 16) { /* the TA keys (13/15 bytes): the loop below unrolled, same value */
        memcpy(&w, k->b, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
        memcpy(&w, k->b + 8, 8);
        w &= ~0ull >> (64u - 8u * (n - 8));
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
        n = 0;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, k->b + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    if (i < n) { /* the last 1-7 bytes as a little-endian word (i <= 48: 8 bytes of b[] are there) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&w, k->b + i, 8);
        w &= ~0ull >> (64u - 8u * (n - i));
#else
        w = 0;
        for (unsigned j = n; j-- > i;) w = w << 8 | k->b[j];
#endif
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* the one slot of a table with no memory yet (cap 1): unused, so lookups miss without a test of their
 * own; the first insert grows the table (tbl_grow) to its first real size. Never written. */
static const ub_tent tbl_none;
#define TBL_NONE ((uint8_t *)(uintptr_t)&tbl_none)

/* cap slots + 2 scratch entries, every one unused. Only `used` is read before an entry is written whole
 * (tbl_insert clears the new entry, tbl_place copies it): small tables clear that byte, not all of them;
 * large ones come as fresh zero pages from calloc, untouched until entries land there. */
static uint8_t *tbl_alloc(uint32_t cap, uint32_t esize)
{
    size_t n = (size_t)cap + 2;
    if (n * esize >= 128u * 1024u) return calloc(n, esize);
    uint8_t *m = malloc(n * esize);
    if (m)
        for (size_t i = 0; i < n; i++) ((ub_tent *)(m + i * esize))->used = 0;
    return m;
}

int ub_tbl_init(ub_tbl *t, const char *name, uint32_t max_entries, size_t data_size)
{
    memset(t, 0, sizeof *t);
    t->name = name;
    if (max_entries == 0) max_entries = 1;
    t->max = max_entries;
    t->full_cap = pow2_at_least(max_entries + max_entries / 3 + 1); /* max_entries fit at <= 3/4 load */
    t->cap = 1;
    t->mem = TBL_NONE; /* the slots with the first entry: a table never used holds no memory */
    t->esize = (uint32_t)((sizeof(ub_tent) + data_size + 7u) & ~7u);
    return 0;
}
void ub_tbl_free(ub_tbl *t)
{
    if (t->mem != TBL_NONE) free(t->mem);
    free(t->order);
    t->mem = NULL;
    t->mru[0] = t->mru[1] = NULL;
    t->order = NULL;
}
size_t ub_tbl_bytes(const ub_tbl *t) { return t->mem && t->mem != TBL_NONE ? ((size_t)t->cap + 2) * t->esize : 0; }

static ub_tent *slot(const ub_tbl *t, uint32_t i) { return (ub_tent *)(t->mem + (size_t)i * t->esize); }

/* equal keys: word compares of the used bytes (both keys hold UB_KEY_MAX bytes) */
static UB_FH_INLINE bool key_eq(const ub_key *a, const ub_key *b)
{
    unsigned n = a->len, i = 0;
    if (n != b->len) return false;
    if (n > UB_KEY_MAX) n = UB_KEY_MAX;
    uint64_t x, y;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n > 8 && n < 16) { /* the TA keys (13/15 bytes): first word, then the masked rest */
        uint64_t x1, y1;
        memcpy(&x, a->b, 8);
        memcpy(&y, b->b, 8);
        memcpy(&x1, a->b + 8, 8);
        memcpy(&y1, b->b + 8, 8);
        return ((x ^ y) | ((x1 ^ y1) & ~0ull >> (64u - 8u * (n - 8)))) == 0;
    }
#endif
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, a->b + i, 8);
        memcpy(&y, b->b + i, 8);
        if (x != y) return false;
    }
    if (i == n) return true;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&x, a->b + i, 8); /* the last 1-7 bytes (i <= 48: 8 bytes of b[] are there) */
    memcpy(&y, b->b + i, 8);
    return ((x ^ y) & ~0ull >> (64u - 8u * (n - i))) == 0;
#else
    return memcmp(a->b + i, b->b + i, n - i) == 0;
#endif
}

/* the canonical order of entries: hash, then key bytes */
static int ent_cmp(const ub_tent *a, const ub_tent *b)
{
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    unsigned n = a->key.len < b->key.len ? a->key.len : b->key.len;
    int c = memcmp(a->key.b, b->key.b, n);
    return c ? c : (int)a->key.len - (int)b->key.len;
}

/* Robin Hood insert of a copy of *src (not in the table; a free slot exists); returns where it landed */
static ub_tent *tbl_place(ub_tbl *t, const ub_tent *src)
{
    uint32_t mask = t->cap - 1, es = t->esize;
    ub_tent *cur = slot(t, t->cap), *spare = slot(t, t->cap + 1), *placed = NULL;
    if (cur != src) memcpy(cur, src, es);
    uint32_t dist = 0;
    for (uint32_t i = (uint32_t)cur->hash & mask;; i = (i + 1) & mask, dist++) {
        ub_tent *e = slot(t, i);
        if (!e->used) {
            memcpy(e, cur, es);
            return placed ? placed : e;
        }
        uint32_t ed = (i - (uint32_t)e->hash) & mask;
        if (ed < dist || (ed == dist && ent_cmp(cur, e) < 0)) { /* cur sorts first: it takes the slot */
            memcpy(spare, e, es);
            memcpy(e, cur, es);
            ub_tent *x = cur;
            cur = spare;
            spare = x;
            if (!placed) placed = e;
            dist = ed;
        }
    }
}

/* double the slots (up to full_cap; to full_cap at once when `full`) and re-place every entry */
static int tbl_grow(ub_tbl *t, bool full)
{
    uint32_t ncap = full ? t->full_cap : t->cap * 2, ocap = t->cap;
    if (t->mem == TBL_NONE && !full) ncap = t->full_cap < UB_TBL_CAP0 ? t->full_cap : UB_TBL_CAP0; /* the first entry */
    uint8_t *om = t->mem, *nm = tbl_alloc(ncap, t->esize);
    if (!nm) return -1;
    t->mru[0] = t->mru[1] = NULL;
    t->mem = nm;
    t->cap = ncap;
    for (uint32_t i = 0; i < ocap; i++) {
        const ub_tent *e = (const ub_tent *)(om + (size_t)i * t->esize);
        if (e->used) tbl_place(t, e);
    }
    if (om != TBL_NONE) free(om);
    return 0;
}

static void tbl_remove_slot(ub_tbl *t, uint32_t i)
{
    uint32_t mask = t->cap - 1;
    slot(t, i)->used = 0;
    t->count--;
    t->mru[0] = t->mru[1] = NULL;
    /* backward shift: pull the rest of the run one slot towards its home */
    for (;;) {
        uint32_t j = (i + 1) & mask;
        ub_tent *e = slot(t, j);
        if (!e->used || (((uint32_t)j - (uint32_t)e->hash) & mask) == 0) break;
        memcpy(slot(t, i), e, t->esize);
        e->used = 0;
        i = j;
    }
}

static UB_FH_INLINE ub_tent *tbl_probe(ub_tbl *t, const ub_key *k, uint64_t h)
{
    uint32_t mask = t->cap - 1;
    for (uint32_t i = (uint32_t)h & mask, dist = 0;; i = (i + 1) & mask, dist++) {
        ub_tent *e = slot(t, i);
        if (!e->used || ((i - (uint32_t)e->hash) & mask) < dist) return NULL; /* it would sit here */
        if (e->hash == h && key_eq(&e->key, k)) return e;
    }
}

/* the entry of key k: one of the last two found if it is k's (no hash), else by probing (*h: k's hash);
 * NULL: none (*h set) */
static UB_FH_INLINE ub_tent *tbl_lookup(ub_tbl *t, const ub_key *k, uint64_t *h)
{
    ub_tent *e = t->mru[0];
    if (e && key_eq(&e->key, k)) return e;
    e = t->mru[1];
    if (e && key_eq(&e->key, k)) {
        t->mru[1] = t->mru[0];
        t->mru[0] = e;
        return e;
    }
    *h = key_hash(k);
    e = tbl_probe(t, k, *h);
    if (e) t->mru[1] = t->mru[0], t->mru[0] = e;
    return e;
}

void *ub_tbl_find(ub_tbl *t, const ub_key *k)
{
    uint64_t h;
    ub_tent *e = tbl_lookup(t, k, &h);
    if (!e) return NULL;
    e->last = ++t->tick;
    return (uint8_t *)e + sizeof(ub_tent);
}

/* ub_tbl_get of a key the table does not hold (out of line: the hit path stays small) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void *tbl_insert(ub_tbl *t, const ub_key *k, uint64_t h, bool *created)
{
    ub_tent *e;
    if (created) *created = false;
    if (t->count + 1 > t->max) {
        /* evicting happens at full size only, so that it never depends on how the table grew */
        if (t->cap < t->full_cap && tbl_grow(t, true) != 0) return NULL;
        uint32_t mask = t->cap - 1;
        /* evict the least recently used entry among a window of probe positions */
        uint32_t best = UINT32_MAX;
        uint64_t best_last = UINT64_MAX;
        for (uint32_t n = 0, i = (uint32_t)h & mask; n < 64; n++, i = (i + 7919u) & mask) {
            ub_tent *x = slot(t, i);
            if (x->used && x->last < best_last) { best_last = x->last; best = i; }
        }
        if (best == UINT32_MAX) return NULL;
        if (t->on_evict) t->on_evict(t->mod, slot(t, best));
        tbl_remove_slot(t, best);
        t->evicted++;
        uint64_t fr = t->frame_now ? *t->frame_now : 0;
        if (!t->first_evict) t->first_evict = fr;
        t->last_evict = fr;
    } else if ((uint64_t)(t->count + 1) * 4 > (uint64_t)t->cap * 3 && t->cap < t->full_cap) {
        if (tbl_grow(t, false) != 0) return NULL;
    }
    ub_tent *n = slot(t, t->cap); /* scratch: the new entry, placed by tbl_place */
    memset(n, 0, t->esize);
    n->used = 1;
    n->hash = h;
    n->key = *k;
    n->last = ++t->tick;
    e = tbl_place(t, n);
    t->mru[1] = t->mru[0]; /* moved by tbl_place perhaps, but still a used slot: the key compare decides */
    t->mru[0] = e;
    t->count++;
    if (t->count > t->peak) t->peak = t->count;
    if (created) *created = true;
    return (uint8_t *)e + sizeof(ub_tent);
}

void *ub_tbl_get(ub_tbl *t, const ub_key *k, bool *created)
{
    uint64_t h;
    ub_tent *e = tbl_lookup(t, k, &h);
    if (!e) return tbl_insert(t, k, h, created);
    if (created) *created = false;
    e->last = ++t->tick;
    return (uint8_t *)e + sizeof(ub_tent);
}

void ub_tbl_remove(ub_tbl *t, void *data)
{
    ub_tent *e = ub_tbl_hdr(data);
    uint32_t i = (uint32_t)(((uint8_t *)e - t->mem) / t->esize);
    tbl_remove_slot(t, i);
}

static int ent_pcmp(const void *a, const void *b) { return ent_cmp(*(ub_tent *const *)a, *(ub_tent *const *)b); }

void *ub_tbl_next(ub_tbl *t, uint32_t *it)
{
    if (*it == 0) { /* collect and sort the entries: an order independent of the table's size */
        free(t->order);
        t->order = t->count ? malloc(sizeof *t->order * t->count) : NULL;
        if (!t->order) return NULL;
        uint32_t n = 0;
        for (uint32_t i = 0; i < t->cap && n < t->count; i++)
            if (slot(t, i)->used) t->order[n++] = slot(t, i);
        qsort(t->order, n, sizeof *t->order, ent_pcmp);
    }
    if (!t->order || *it >= t->count) {
        free(t->order);
        t->order = NULL;
        return NULL;
    }
    return (uint8_t *)t->order[(*it)++] + sizeof(ub_tent);
}

