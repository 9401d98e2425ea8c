/* ubdump -w: the selected records as pcapng through libubparse's writer (capfile.h), keeping the
 * source's interfaces (link type, snaplen, name, description, timestamp resolution), direction flags,
 * original lengths and every comment (ubdump_out.h). */
#include "ubdump_out.h"

#include "ubparse/audit.h"

#include <stdlib.h>

struct ubx_writer {
    ub_capw *w;
    uint32_t section; /* source section whose interfaces are mapped */
    uint32_t base;    /* writer index of that section's interface 0 */
    uint32_t synced;  /* interfaces of that section already added */
    uint32_t nifs;    /* interfaces in the writer */
};

ubx_writer *ubx_writer_open(const char *path, char *err, size_t errlen)
{
    ubx_writer *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->w = ub_capw_open(path, true, UB_CAPW_NO_IF, err, errlen);
    if (!x->w) {
        free(x);
        return NULL;
    }
    return x;
}

/* add the source interfaces read so far (IDBs may come after the first packets) */
static int sync_ifs(ubx_writer *x, const ub_capfile *cf)
{
    uint32_t sec = ub_cap_section(cf);
    if (sec != x->section) { /* a new section: its interfaces follow the previous ones */
        x->section = sec;
        x->base = x->nifs;
        x->synced = 0;
    }
    for (uint32_t n = ub_cap_nifs(cf); x->synced < n; x->synced++) {
        ub_cap_ifinfo ii;
        if (ub_cap_ifinfo_get(cf, x->synced, &ii) != 0) return -1;
        if (ub_capw_add_if_info(x->w, &ii) < 0) return -1; /* link type, snaplen, name, description, if_tsresol */
        x->nifs++;
    }
    return 0;
}

int ubx_writer_rec(ubx_writer *x, const ub_capfile *cf, const ub_rec *r)
{
    if (sync_ifs(x, cf) != 0) return -1;
    const char *c[16];
    uint32_t cl[16], n = ub_cap_ncomments(cf);
    if (n > 16) n = 16;
    for (uint32_t i = 0; i < n; i++) c[i] = ub_cap_comment_n(cf, i, &cl[i]);
    return ub_capw_write_rec_n(x->w, x->base + r->ifindex, r, c, cl, n);
}

int ubx_writer_close(ubx_writer *x, const ub_capfile *cf)
{
    if (!x) return 0;
    int rc = cf ? sync_ifs(x, cf) : 0;
    if (ub_capw_close(x->w) != 0) rc = -1;
    free(x);
    return rc;
}

/* --write-cited ------------------------------------------------------------------------------ */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static bool has_frame(const uint64_t *f, size_t n, uint64_t v) { return bsearch(&v, f, n, sizeof *f, cmp_u64) != NULL; }

long ubx_write_cited(const char *in, const char *out, const ub_collect *c, char *err, size_t errlen)
{
    /* the frames of every example the report keeps: where it was detected and its related frames */
    const ub_ruleset *rs = ub_collect_ruleset(c);
    unsigned nr = rs ? ub_ruleset_count(rs) : ub_rule_count();
    size_t n = 0, cap = 0;
    uint64_t *fr = NULL;
    for (unsigned i = 0; i < nr; i++) {
        unsigned ne = 0;
        const ub_finding *ex = ub_collect_examples(c, i, &ne);
        for (unsigned k = 0; ex && k < ne; k++) {
            for (unsigned j = 0; j <= ex[k].nframes && j <= UB_FINDING_FRAMES; j++) {
                uint64_t f = j == 0 ? ex[k].frame : ex[k].frames[j - 1];
                if (!f) continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 256;
                    uint64_t *p = realloc(fr, cap * sizeof *p);
                    if (!p) { free(fr); snprintf(err, errlen, "out of memory"); return -1; }
                    fr = p;
                }
                fr[n++] = f;
            }
        }
    }
    if (n) qsort(fr, n, sizeof *fr, cmp_u64);
    ub_capfile *cf = ub_cap_open(in, err, errlen);
    ubx_writer *w = cf ? ubx_writer_open(out, err, errlen) : NULL;
    long written = -1;
    if (w) {
        ub_rec r;
        int rc;
        written = 0;
        while ((rc = ub_cap_next(cf, &r)) == 1) {
            if (!has_frame(fr, n, r.frame)) continue;
            if (ubx_writer_rec(w, cf, &r) != 0) { rc = -2; break; }
            written++;
        }
        if (rc == -1) snprintf(err, errlen, "%s: %s", in, ub_cap_error(cf));
        if (rc == -2) snprintf(err, errlen, "%s: write error", out);
        if (ubx_writer_close(w, cf) != 0 && rc >= 0) { snprintf(err, errlen, "%s: write error", out); rc = -2; }
        if (rc < 0) written = -1;
    }
    ub_cap_close(cf);
    free(fr);
    return written;
}
