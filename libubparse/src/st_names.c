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
} nm_ent;

struct ub_st_names {
    uint32_t n, mask;
    nm_ent *e;      /* in ub_field_find's order: the registry by header id, then the profile tables; rows in order */
    uint32_t *slot; /* entry index + 1, 0: empty. Linear probing without removal: equal names (one home
                     * slot) lie along the probe sequence in insertion order, i.e. ub_field_find's */
};

static uint32_t name_hash(const char *s, uint32_t *len)
{
    size_t n = strlen(s), i = 0;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    for (w = 0; i < n; i++) w = w << 8 | (uint8_t)s[i];
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
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
    while (cap < 2 * rows && cap < (1u << 30)) cap <<= 1; /* <= 1/2 load */
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
            uint32_t j = e->hash & x->mask;
            while (x->slot[j]) j = (j + 1) & x->mask;
            x->slot[j] = ++x->n;
        }
    }
    return x;
}

void ub_st_names_free(ub_st_names *x) { free(x); }

unsigned ub_st_names_find(const ub_st_names *x, const char *abbrev, const ub_hdr **h, const ub_field **f, unsigned max)
{
    uint32_t len, hash = name_hash(abbrev, &len), n = 0;
    for (uint32_t j = hash & x->mask; x->slot[j] && n < max; j = (j + 1) & x->mask) {
        const nm_ent *e = &x->e[x->slot[j] - 1];
        if (e->hash != hash || e->len != len || memcmp(e->name, abbrev, len) != 0) continue;
        h[n] = e->h;
        f[n++] = e->f;
    }
    return n;
}
