/* A field name resolved once to the header tables that define it (ub_field_find), read per layer.
 * Internal to libubparse (stats.c, sttree.c). */
#ifndef UB_FH_H
#define UB_FH_H

#include "ubparse/ubparse.h"

#define MAX_MATCH 16

typedef struct {
    size_t n;
    const ub_hdr *h[MAX_MATCH];
    const ub_field *f[MAX_MATCH];
} fh;

static inline void fh_init(fh *h, const char *name)
{
    h->n = ub_field_find(name, h->h, h->f, MAX_MATCH);
    if (h->n > MAX_MATCH) h->n = MAX_MATCH;
}
/* the TPOpcode of RTPH/UTPH/CTPH in one handle */
static inline void fh_init_tpop(fh *h)
{
    fh t;
    fh_init(h, "ub.rtph.tpopcode");
    const char *more[] = { "ub.utph.tpopcode", "ub.ctph.tpopcode" };
    for (int i = 0; i < 2; i++) {
        fh_init(&t, more[i]);
        for (size_t k = 0; k < t.n && h->n < MAX_MATCH; k++) {
            h->h[h->n] = t.h[k];
            h->f[h->n++] = t.f[k];
        }
    }
}
/* value of the field in layer l: 0 found */
static inline int fh_get(const fh *h, const ub_layer *l, ub_val *out)
{
    for (size_t k = 0; k < h->n; k++)
        if (h->f[k] && l->hdr == h->h[k]) return ub_field_value(l, h->f[k], out);
    return -1;
}
static inline const ub_vname *fh_vals(const fh *h) { return h->n && h->f[0] ? h->f[0]->vals : NULL; }
/* the value names of the field in layer l's header */
static inline const ub_vname *fh_vals_for(const fh *h, const ub_layer *l)
{
    for (size_t k = 0; k < h->n; k++)
        if (h->f[k] && l->hdr == h->h[k]) return h->f[k]->vals;
    return NULL;
}

#endif
