/* -z conv,ub and -z endpoints,ub (iostat.h): the plugin's UB conversation and endpoint tables
 * (dissector/packet-ub-analysis.c, tap "ub"): per UB view, its network addresses — the CNAs of the
 * first NTH, else the first IP header (CFG 3/4, or UBoE's outer IP) — one frame and the view's bytes.
 * -z conv,ub_eid / endpoints,ub_eid (tap "ub_eid"): the same for the SEID/DEID of the first EIDH. */
#include "ubparse/iostat.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MAX 48
typedef struct conv {
    char a[ADDR_MAX], b[ADDR_MAX]; /* a: source of the first packet */
    uint64_t fab, bab, fba, bba;    /* frames / bytes a->b, b->a */
    uint64_t start, end;
} conv;
typedef struct endp {
    char a[ADDR_MAX];
    uint64_t ftx, btx, frx, brx;
} endp;

struct ub_conv {
    conv *c;
    size_t nc, capc;
    endp *e;
    size_t ne, cape;
    bool oom;
    bool eid; /* tap "ub_eid": the EIDH's SEID/DEID pairs */
};

ub_conv *ub_conv_new(void) { return calloc(1, sizeof(ub_conv)); }
ub_conv *ub_conv_new_eid(void)
{
    ub_conv *c = calloc(1, sizeof(ub_conv));
    if (c) c->eid = true;
    return c;
}

void ub_conv_free(ub_conv *c)
{
    if (!c) return;
    free(c->c);
    free(c->e);
    free(c);
}

static void fmt_addr(const ub_layer *l, const ub_field *f, const ub_val *v, char *o, size_t n)
{
    (void)l;
    if (f->type == UB_FT_UINT && f->bits == 20) {
        snprintf(o, n, "0x%05llx", (unsigned long long)v->u); /* 20-bit EID, as the plugin's AT_UB_EID */
    } else if (f->type == UB_FT_UINT) {
        unsigned nb = (f->bits + 7) / 8;
        snprintf(o, n, "0x%0*llx", (int)(nb * 2), (unsigned long long)v->u);
    } else if (v->bytes && v->nbytes == 4) {
        inet_ntop(AF_INET, v->bytes, o, (socklen_t)n);
    } else if (v->bytes && v->nbytes == 16) {
        ub_ipv6_format(v->bytes, o, n);
    } else {
        o[0] = 0;
    }
}

static bool row(const ub_layer *l, const char *name, char *o, size_t n)
{
    for (unsigned i = 0; i < l->hdr->nfields; i++) {
        const ub_field *f = &l->hdr->fields[i];
        ub_val v;
        if (strcmp(f->abbrev, name) != 0) continue;
        if (ub_field_value(l, f, &v) != 0) return false;
        fmt_addr(l, f, &v, o, n);
        return o[0] != 0;
    }
    return false;
}

static endp *ep_get(ub_conv *c, const char *a)
{
    for (size_t i = 0; i < c->ne; i++)
        if (strcmp(c->e[i].a, a) == 0) return &c->e[i];
    if (c->ne == c->cape) {
        size_t nc = c->cape ? c->cape * 2 : 16;
        endp *e = realloc(c->e, nc * sizeof *e);
        if (!e) { c->oom = true; return NULL; }
        c->e = e;
        c->cape = nc;
    }
    endp *e = &c->e[c->ne++];
    memset(e, 0, sizeof *e);
    snprintf(e->a, sizeof e->a, "%s", a);
    return e;
}

void ub_conv_view(ub_conv *c, const ub_view *v, uint32_t bytes, uint64_t rel_ns)
{
    if (!c || !v || !ub_view_ub(v)) return;
    const ub_layer *nth = NULL, *ip = NULL, *eidh = NULL;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr ? l->hdr->id : 0;
        if ((id == UB_H_NTH16 || id == UB_H_NTH24) && !nth) nth = l;
        if ((id == UB_H_IPV4 || id == UB_H_IPV6) && !ip) ip = l;
        if ((id == UB_H_EIDH40 || id == UB_H_EIDH256) && !eidh) eidh = l;
    }
    char s[ADDR_MAX], d[ADDR_MAX];
    if (c->eid) {
        if (!eidh || !row(eidh, "ub.eidh.seid", s, sizeof s) || !row(eidh, "ub.eidh.deid", d, sizeof d)) return;
    } else if (nth) {
        if (!row(nth, "ub.nth.scna", s, sizeof s) || !row(nth, "ub.nth.dcna", d, sizeof d)) return;
    } else if (ip) {
        bool v4 = ip->hdr->id == UB_H_IPV4;
        if (!row(ip, v4 ? "ub.ipv4.src" : "ub.ipv6.src", s, sizeof s) || !row(ip, v4 ? "ub.ipv4.dst" : "ub.ipv6.dst", d, sizeof d))
            return;
    } else {
        return;
    }
    conv *x = NULL;
    bool fwd = true;
    for (size_t i = 0; i < c->nc && !x; i++) {
        if (strcmp(c->c[i].a, s) == 0 && strcmp(c->c[i].b, d) == 0) x = &c->c[i];
        else if (strcmp(c->c[i].a, d) == 0 && strcmp(c->c[i].b, s) == 0) { x = &c->c[i]; fwd = false; }
    }
    if (!x) {
        if (c->nc == c->capc) {
            size_t nc = c->capc ? c->capc * 2 : 16;
            conv *n = realloc(c->c, nc * sizeof *n);
            if (!n) { c->oom = true; return; }
            c->c = n;
            c->capc = nc;
        }
        x = &c->c[c->nc++];
        memset(x, 0, sizeof *x);
        snprintf(x->a, sizeof x->a, "%s", s);
        snprintf(x->b, sizeof x->b, "%s", d);
        x->start = rel_ns;
    }
    if (fwd) { x->fab++; x->bab += bytes; }
    else { x->fba++; x->bba += bytes; }
    if (rel_ns > x->end) x->end = rel_ns;
    endp *e = ep_get(c, s);
    if (e) { e->ftx++; e->btx += bytes; }
    e = ep_get(c, d);
    if (e) { e->frx++; e->brx += bytes; }
}

static int cmp_conv(const void *x, const void *y)
{
    const conv *a = x, *b = y;
    uint64_t fa = a->fab + a->fba, fb = b->fab + b->fba;
    if (fa != fb) return fa > fb ? -1 : 1;
    return a < b ? -1 : a > b; /* first seen first */
}
static int cmp_ep(const void *x, const void *y)
{
    const endp *a = x, *b = y;
    uint64_t fa = a->ftx + a->frx, fb = b->ftx + b->frx;
    if (fa != fb) return fa > fb ? -1 : 1;
    return a < b ? -1 : a > b;
}

void ub_conv_print(ub_conv *c, FILE *o, bool endpoints)
{
    if (!c) return;
    static const char eq[] = "================================================================================";
    if (endpoints) {
        if (c->ne) qsort(c->e, c->ne, sizeof *c->e, cmp_ep);
        fprintf(o, "%s\nUB %sEndpoints\nFilter:<No Filter>\n", eq, c->eid ? "EID " : "");
        fprintf(o, "                       |  Packets  | |  Bytes  | | Tx Packets | | Tx Bytes | | Rx Packets | | Rx Bytes |\n");
        for (size_t i = 0; i < c->ne; i++) {
            const endp *e = &c->e[i];
            fprintf(o, "%-20s   %11llu   %11llu   %11llu   %11llu   %11llu   %11llu\n", e->a,
                    (unsigned long long)(e->ftx + e->frx), (unsigned long long)(e->btx + e->brx),
                    (unsigned long long)e->ftx, (unsigned long long)e->btx, (unsigned long long)e->frx,
                    (unsigned long long)e->brx);
        }
        fprintf(o, "%s\n", eq);
        return;
    }
    if (c->nc) qsort(c->c, c->nc, sizeof *c->c, cmp_conv);
    fprintf(o, "%s\nUB %sConversations\nFilter:<No Filter>\n", eq, c->eid ? "EID " : "");
    fprintf(o, "                                               |       <-      | |       ->      | |     Total     |    Relative    |   Duration   |\n");
    fprintf(o, "                                               | Frames  Bytes | | Frames  Bytes | | Frames  Bytes |      Start     |              |\n");
    for (size_t i = 0; i < c->nc; i++) {
        const conv *x = &c->c[i];
        uint64_t d = (x->end - x->start + 50000u) / 100000u; /* 0.1 ms, rounded as tshark's %.4f */
        fprintf(o, "%-20s <-> %-20s %6llu %llu bytes %6llu %llu bytes %6llu %llu bytes %6llu.%09llu %9llu.%04llu\n", x->a,
                x->b, (unsigned long long)x->fba, (unsigned long long)x->bba, (unsigned long long)x->fab,
                (unsigned long long)x->bab, (unsigned long long)(x->fab + x->fba), (unsigned long long)(x->bab + x->bba),
                (unsigned long long)(x->start / 1000000000u), (unsigned long long)(x->start % 1000000000u),
                (unsigned long long)(d / 10000u), (unsigned long long)(d % 10000u));
    }
    fprintf(o, "%s\n", eq);
}
