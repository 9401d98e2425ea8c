/* The state engine's field-name index (st_internal.h, ub_st_names): every schema row by name in one
 * open-addressing hash table, built once per audit session and read by every engine it creates
 * (ub_state_new_names), so that the ~200 handle lookups of an engine's start-up neither scan every
 * row (ub_field_find) nor sort the ~1,000 names per engine. Read-only once built: engines on other
 * threads may share it. Answers as ub_field_find does for row names, in its order. */
#include "st_internal.h"

#include <stdlib.h>

typedef struct nm_ent {
    const char *name;
    const ub_hdr *h;
    const ub_field *f;
    uint32_t hash, len;
    uint32_t next, tail; /* entry index + 1 of the next row of the same name (0: none); tail: of the last (first entry) */
} nm_ent;

struct ub_st_names {
    uint32_t n, mask;
    nm_ent *e;      /* in ub_field_find's order: the registry by header id, then the profile tables; rows in order */
    uint32_t *slot; /* index + 1 of the first entry of a name, 0: empty (linear probing, one slot per distinct
                     * name: the format variants' copies of a name are chained, in ub_field_find's order) */
};

/* the length and three words (first, middle, last) of names of 8 bytes and more, the bytes of shorter
 * ones: names that differ elsewhere only share a hash (the lookup compares the whole name) */
static uint32_t name_hash(const char *s, uint32_t *len)
{
    size_t n = strlen(s);
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w = 0;
    if (n >= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        memcpy(&w, s + n / 2 - 4, 8);
        h = (h ^ (h >> 29) ^ w) * 0xc4ceb9fe1a85ec53ull;
        memcpy(&w, s + n - 8, 8);
    } else {
        for (size_t i = 0; i < n; i++) w = w << 8 | (uint8_t)s[i];
    }
    h = (h ^ (h >> 29) ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 33; /* the high bits into the low ones that pick the slot */
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    *len = (uint32_t)n;
    return (uint32_t)h;
}

ub_st_names *ub_st_names_new(void)
{
    unsigned top = UB_H__COUNT + ub_hdr_variant_count();
    size_t rows = 0;
    for (unsigned id = 1; id < top; id++) {
        const ub_hdr *h = id < UB_H__COUNT ? ub_registry[id] : ub_hdr_variant(id - UB_H__COUNT + 1);
        if (h) rows += h->nfields;
    }
    uint32_t cap = 16;
    while (cap < rows + rows / 2 && cap < (1u << 30)) cap <<= 1; /* <= 2/3 load */
    ub_st_names *x = malloc(sizeof *x + (rows ? rows : 1) * sizeof(nm_ent) + (size_t)cap * sizeof(uint32_t));
    if (!x) return NULL;
    x->e = (nm_ent *)(x + 1);
    x->slot = (uint32_t *)(x->e + (rows ? rows : 1));
    x->mask = cap - 1;
    x->n = 0;
    memset(x->slot, 0, (size_t)cap * sizeof(uint32_t));
    for (unsigned id = 1; id < top; id++) { /* the registry, then the profile tables (ub_field_find) */
        const ub_hdr *h = id < UB_H__COUNT ? ub_registry[id] : ub_hdr_variant(id - UB_H__COUNT + 1);
        if (!h) continue;
        const char *ns = ub_hdr_ns(h);
        size_t nl = strlen(ns), own = nl + strlen(h->abbrev);
        for (unsigned i = 0; i < h->nfields; i++) {
            const char *nm = h->fields[i].abbrev;
            if (!nm) continue;
            nm_ent *e = &x->e[x->n];
            e->hash = name_hash(nm, &e->len);
            /* a name that is the header's own: ub_field_find answers the header, not its rows */
            if (e->len == own && memcmp(nm, ns, nl) == 0 && strcmp(nm + nl, h->abbrev) == 0) continue;
            e->name = nm;
            e->h = h;
            e->f = &h->fields[i];
            e->next = 0;
            uint32_t idx = ++x->n, j = e->hash & x->mask;
            for (; x->slot[j]; j = (j + 1) & x->mask) {
                nm_ent *first = &x->e[x->slot[j] - 1];
                if (first->hash == e->hash && first->len == e->len && (first->name == nm || memcmp(first->name, nm, e->len) == 0)) break;
            }
            if (x->slot[j]) { /* a name seen before: after its last row */
                nm_ent *first = &x->e[x->slot[j] - 1];
                x->e[first->tail - 1].next = idx;
                first->tail = idx;
            } else {
                x->slot[j] = idx;
                e->tail = idx;
            }
        }
    }
    return x;
}

void ub_st_names_free(ub_st_names *x) { free(x); }

unsigned ub_st_names_find(const ub_st_names *x, const char *abbrev, const ub_hdr **h, const ub_field **f, unsigned max)
{
    uint32_t len, hash = name_hash(abbrev, &len), n = 0;
    for (uint32_t j = hash & x->mask; x->slot[j]; j = (j + 1) & x->mask) {
        const nm_ent *e = &x->e[x->slot[j] - 1];
        if (e->hash != hash || e->len != len || memcmp(e->name, abbrev, len) != 0) continue;
        for (; n < max; e = &x->e[e->next - 1]) {
            h[n] = e->h;
            f[n++] = e->f;
            if (!e->next) break;
        }
        break;
    }
    return n;
}
