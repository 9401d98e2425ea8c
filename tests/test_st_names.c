/* The state engine's shared field-name index (st_names.c): every row name of every schema table
 * (the registry and the profile tables) resolves to the same (header, row) pairs, in the same order,
 * as ub_field_find; header names and unknown names resolve to none; engines made with a shared index
 * and with their own hold the same handles. */
#include "st_internal.h"
#include "ubtest.h"

/* ub_field_find's rows (header entries dropped), at most 16, as the engine's lookups take them */
static unsigned rows_of(const char *name, const ub_hdr **h, const ub_field **f)
{
    const ub_hdr *hh[64];
    const ub_field *ff[64];
    size_t n = ub_field_find(name, hh, ff, 64);
    unsigned k = 0;
    for (size_t i = 0; i < n && i < 64 && k < 16; i++)
        if (ff[i]) h[k] = hh[i], f[k++] = ff[i];
    return k;
}

static unsigned same_as_find(const ub_st_names *x, const char *name)
{
    const ub_hdr *h1[16], *h2[16];
    const ub_field *f1[16], *f2[16];
    unsigned n1 = ub_st_names_find(x, name, h1, f1, 16), n2 = rows_of(name, h2, f2);
    CHECK_EQ(n1, n2);
    bool same = n1 == n2;
    for (unsigned i = 0; same && i < n1; i++) same = h1[i] == h2[i] && f1[i] == f2[i];
    if (!same) fprintf(stderr, "name %s: the index answers differently\n", name);
    CHECK(same);
    return n1;
}

static bool fh_same(const ub_fh *a, const ub_fh *b)
{
    if (a->n != b->n || a->nfast != b->nfast) return false;
    for (unsigned i = 0; i < a->n; i++)
        if (a->h[i] != b->h[i] || a->f[i] != b->f[i]) return false;
    return memcmp(a->rd, b->rd, sizeof a->rd[0] * a->nfast) == 0;
}

int main(void)
{
    ub_st_names *x = ub_st_names_new();
    CHECK(x != NULL);
    if (!x) return ub_test_finish();
    unsigned rows = 0, multi = 0, top = UB_H__COUNT + ub_hdr_variant_count();
    for (unsigned id = 1; id < top; id++) {
        const ub_hdr *h = id < UB_H__COUNT ? ub_hdr_get(id) : ub_hdr_variant(id - UB_H__COUNT + 1);
        if (!h) continue;
        char own[96];
        snprintf(own, sizeof own, "%s%s", ub_hdr_ns(h), h->abbrev);
        same_as_find(x, own); /* the header's own name: its rows are not answered */
        for (unsigned i = 0; i < h->nfields; i++) {
            if (!h->fields[i].abbrev) continue;
            unsigned n = same_as_find(x, h->fields[i].abbrev);
            rows++;
            multi += n > 1;
        }
    }
    CHECK(rows > 500);  /* every table was walked */
    CHECK(multi > 10);  /* format variants share names: several answers, in ub_field_find's order */
    const ub_hdr *h[16];
    const ub_field *f[16];
    CHECK_EQ(ub_st_names_find(x, "ub.nosuch", h, f, 16), 0);
    CHECK_EQ(ub_st_names_find(x, "ub.rtph.ps", h, f, 16), 0);   /* a prefix of a name */
    CHECK_EQ(ub_st_names_find(x, "ub.rtph.psnx", h, f, 16), 0); /* a name and more */
    CHECK_EQ(ub_st_names_find(x, "", h, f, 16), 0);
    CHECK_EQ(ub_st_names_find(x, "ub.btah", h, f, 16), 0);      /* a header */
    unsigned n = ub_st_names_find(x, "ub.rtph.psn", h, f, 16);
    CHECK_EQ(n, 2); /* the RTPH and its profile table */
    if (n) {
        CHECK_EQ(h[0]->id, UB_H_RTPH);
        CHECK_STR(f[0]->abbrev, "ub.rtph.psn");
    }
    CHECK_EQ(ub_st_names_find(x, "ub.rtph.psn", h, f, 0), 0);  /* max 0: nothing written */
    CHECK_EQ(same_as_find(x, "infiniband.reth.va"), 2);        /* one name in the RETH and the AtomicETH */

    /* an engine with the shared index and one that builds its own: the same handles */
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    ub_state *a = ub_state_new_names(&c, NULL, NULL, x), *b = ub_state_new(&c, NULL, NULL);
    CHECK(a && b);
    if (a && b) {
        CHECK(fh_same(&a->f_rt_psn, &b->f_rt_psn));
        CHECK(fh_same(&a->f_ip_src, &b->f_ip_src));
        CHECK(fh_same(&a->f_bt_op, &b->f_bt_op));
        CHECK(a->f_ip_src.n >= 2); /* ipv4 and ipv6 tables */
        CHECK_EQ(a->f_rt_psn.n, 2);
        CHECK_EQ(a->rows_rtph.nvar, b->rows_rtph.nvar);
        CHECK(a->rows_rtph.nvar >= 1);
        for (unsigned i = 0; i < a->rows_rtph.nvar; i++)
            CHECK(a->rows_rtph.var[i].h == b->rows_rtph.var[i].h && a->rows_rtph.var[i].lmin == b->rows_rtph.var[i].lmin &&
                  a->rows_rtph.var[i].need == b->rows_rtph.var[i].need);
        CHECK(a->names == NULL && b->names == NULL); /* only the start-up reads the index */
    }
    ub_state_free(a);
    ub_state_free(b);
    ub_st_names_free(x);
    return ub_test_finish();
}
