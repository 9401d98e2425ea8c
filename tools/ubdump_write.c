/* ubdump -w: the selected records as pcapng through libubparse's writer (capfile.h), keeping the
 * source's interfaces, direction flags, original lengths and comments (ubdump_out.h). */
#include "ubdump_out.h"

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
        if (ub_capw_add_if(x->w, ii.linktype, ii.name && *ii.name ? ii.name : NULL) < 0) return -1;
        x->nifs++;
    }
    return 0;
}

int ubx_writer_rec(ubx_writer *x, const ub_capfile *cf, const ub_rec *r)
{
    if (sync_ifs(x, cf) != 0) return -1;
    uint32_t clen = 0;
    const char *c = ub_cap_comment(cf, &clen);
    return ub_capw_write_rec(x->w, x->base + r->ifindex, r, c, clen);
}

int ubx_writer_close(ubx_writer *x, const ub_capfile *cf)
{
    if (!x) return 0;
    int rc = cf ? sync_ifs(x, cf) : 0;
    if (ub_capw_close(x->w) != 0) rc = -1;
    free(x);
    return rc;
}
