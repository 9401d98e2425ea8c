/* Helpers for unit tests that call module decoders directly with a hand-built ub_dec
 * (initialised as core.c ub_decode does). Shared by test_mgmt.c, test_cfg5.c, test_urpc.c. */
#ifndef UB_DECODER_TEST_H
#define UB_DECODER_TEST_H
#include "internal.h"
#include "ubtest.h"

static inline void td_init(ub_dec *d, ub_view *v, const ub_opts *o, const uint8_t *p, uint32_t len)
{
    memset(v, 0, sizeof *v);
    v->rec = p;
    v->rec_len = len;
    v->cfg = -1;
    v->pkt_off = UINT32_MAX;
    memset(d, 0, sizeof *d);
    d->v = v;
    d->o = o;
    d->p = p;
    d->len = len;
    d->cfg = -1;
    d->tph_off = UINT32_MAX;
}

/* value of field `name` (short name) in layer li; ~0 if absent */
static inline uint64_t td_lv(const ub_view *v, int li, const char *name)
{
    if (li < 0 || li >= v->nlayers) return ~0ull;
    const ub_layer *l = &v->layer[li];
    int i = ub_field_index(l->hdr, name);
    ub_val x;
    if (i < 0 || ub_field_value(l, &l->hdr->fields[i], &x) != 0) return ~0ull;
    return x.u;
}

/* formatted value of field `name` in layer li */
static inline __attribute__((unused)) const char *td_fmt(const ub_view *v, int li, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    if (li < 0 || li >= v->nlayers) return buf;
    const ub_layer *l = &v->layer[li];
    int i = ub_field_index(l->hdr, name);
    ub_val x;
    if (i < 0 || ub_field_value(l, &l->hdr->fields[i], &x) != 0) return buf;
    ub_format_value(&l->hdr->fields[i], &x, false, buf, n);
    return buf;
}

static inline uint64_t td_get(const ub_view *v, const char *abbrev)
{
    uint64_t u = ~0ull;
    if (ub_view_get(v, abbrev, &u) != 0) return ~0ull;
    return u;
}

static inline int td_nerr(const ub_view *v, unsigned code)
{
    int n = 0;
    for (unsigned i = 0; i < v->nerrs; i++) n += v->err[i].code == code;
    return n;
}

/* print the view's errors (debug aid on failure) */
static inline void td_dump_errs(const ub_view *v, const char *tag)
{
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        fprintf(stderr, "  [%s] err %s hdr %u off %u actual %llu expected %llu %s\n", tag, ei ? ei->name : "?",
                v->err[i].hdr, v->err[i].off, (unsigned long long)v->err[i].actual,
                (unsigned long long)v->err[i].expected, v->err[i].what ? v->err[i].what : "");
    }
}
#define CHECK_NOERR(v, tag) do { CHECK_EQ((v)->nerrs, 0); if ((v)->nerrs) td_dump_errs((v), (tag)); } while (0)
#endif
