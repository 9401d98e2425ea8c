/* -z conv,ub and -z endpoints,ub (iostat.h): the plugin's UB conversation and endpoint tables
 * (dissector/packet-ub-analysis.c, tap "ub"): per UB view, its network addresses — the CNAs of the
 * first NTH, else the first IP header (CFG 3/4, or UBoE's outer IP) — one frame and the view's bytes.
 * -z conv,ub_eid / endpoints,ub_eid (tap "ub_eid"): the same for the SEID/DEID of the first EIDH.
 * -z conv,ub_tp / endpoints,ub_tp (tap "ub_tp"): the TP endpoints (ub_view_tp_endpoints).
 * -z conv|endpoints,eth|ip|ipv6|tcp|udp: Wireshark's own taps of the headers outside UB, one count per
 * such header (ws_pairs), the frame's bytes; TCP/UDP conversation ends are "address:port".
 * Printed in the layout of tshark 4.0's ui/cli/tap-iousers.c and tap-endpoints.c. Rows are found
 * through a hash index (a UBoE capture spreads its flows over many UDP source ports). */
#include "internal.h"
#include "ubparse/iostat.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MAX 48
#define KEY_MAX (ADDR_MAX + 12) /* "address:port" */
typedef struct conv {
    char a[KEY_MAX], b[KEY_MAX]; /* a: source of the first packet */
    size_t seq;                     /* first seen: the order of ties */
    uint64_t fab, bab, fba, bba;    /* frames / bytes a->b, b->a */
    uint64_t start, end;
} conv;
typedef struct endp {
    char a[ADDR_MAX];
    uint32_t port; /* tcp/udp endpoints: the port (0 in the other tables) */
    size_t seq;
    uint64_t ftx, btx, frx, brx;
} endp;

typedef struct pair {
    char s[ADDR_MAX], d[ADDR_MAX];
    uint32_t sp, dp;
} pair;

/* open addressing over row numbers + 1 (0: empty), a power of two at most half full */
typedef struct hidx {
    uint32_t *slot;
    size_t cap;
} hidx;

struct ub_conv {
    conv *c;
    size_t nc, capc;
    endp *e;
    size_t ne, cape;
    hidx hc, he; /* conversations by their unordered ends, endpoints by address and port */
    bool oom;
    bool eid; /* tap "ub_eid": the EIDH's SEID/DEID pairs */
    bool tp;  /* tap "ub_tp": TP endpoints */
    uint8_t ws; /* a Wireshark tap of the headers outside UB: WS_* (0: a UB table) */
    ub_filter *f;  /* -z conv,ub,FILTER: tshark's tap filter; its text in the header */
    char *ftext;
    ub_filter_acc *acc; /* the frame's views (the filter judges the whole frame) */
    struct stage { struct pair p; uint32_t bytes; uint64_t rel; } *st; /* its views' rows */
    size_t nst, capst;
};

ub_conv *ub_conv_new(void) { return calloc(1, sizeof(ub_conv)); }
ub_conv *ub_conv_new_eid(void)
{
    ub_conv *c = calloc(1, sizeof(ub_conv));
    if (c) c->eid = true;
    return c;
}
ub_conv *ub_conv_new_tp(void)
{
    ub_conv *c = calloc(1, sizeof(ub_conv));
    if (c) c->tp = true;
    return c;
}
/* Wireshark's own conversation taps (eth, ip, ipv6, tcp, udp): per header its dissector shows */
enum { WS_NONE, WS_ETH, WS_IP, WS_IPV6, WS_TCP, WS_UDP };
static const struct {
    const char *tap, *title;
    unsigned hdr;
    const char *src, *dst, *sport, *dport;
} wst[] = {
    [WS_ETH] = { "eth", "Ethernet", UB_H_ETH, "ub.eth.src", "ub.eth.dst", NULL, NULL },
    [WS_IP] = { "ip", "IPv4", UB_H_IPV4, "ub.ipv4.src", "ub.ipv4.dst", NULL, NULL },
    [WS_IPV6] = { "ipv6", "IPv6", UB_H_IPV6, "ub.ipv6.src", "ub.ipv6.dst", NULL, NULL },
    [WS_TCP] = { "tcp", "TCP", UB_H_TCP, NULL, NULL, "ub.tcp.srcport", "ub.tcp.dstport" },
    [WS_UDP] = { "udp", "UDP", UB_H_UDP, NULL, NULL, "ub.udp.srcport", "ub.udp.dstport" },
};

ub_conv *ub_conv_new_kind(unsigned kind)
{
    if (kind >= UB_CONV_ETH && kind < UB_CONV__N) {
        ub_conv *c = calloc(1, sizeof(ub_conv));
        if (c) c->ws = (uint8_t)(WS_ETH + (kind - UB_CONV_ETH));
        return c;
    }
    return kind == UB_CONV_TP ? ub_conv_new_tp() : kind == UB_CONV_EID ? ub_conv_new_eid() : ub_conv_new();
}

int ub_conv_parse(const char *z, unsigned *kind, bool *endpoints)
{
    const char *f;
    return ub_conv_parse_filter(z, kind, endpoints, &f) == 0 && !f ? 0 : -1;
}

int ub_conv_parse_filter(const char *z, unsigned *kind, bool *endpoints, const char **filter)
{
    static const char *const tap[UB_CONV__N] = { "ub", "ub_eid", "ub_tp", "eth", "ip", "ipv6", "tcp", "udp" };
    const char *t = strncmp(z, "conv,", 5) == 0 ? z + 5 : strncmp(z, "endpoints,", 10) == 0 ? z + 10 : NULL;
    for (unsigned k = 0; t && k < UB_CONV__N; k++) {
        size_t n = strlen(tap[k]);
        if (strncmp(t, tap[k], n) != 0 || (t[n] && t[n] != ',')) continue;
        *kind = k;
        *endpoints = z[0] == 'e';
        *filter = t[n] ? t + n + 1 : NULL;
        return 0;
    }
    return -1;
}

ub_conv *ub_conv_new_filtered(unsigned kind, const char *expr, char *err, size_t errlen)
{
    ub_conv *c = ub_conv_new_kind(kind);
    if (!c || !(c->ftext = strdup(expr)) || !(c->f = ub_filter_compile(expr, err, errlen)) ||
        !(c->acc = ub_filter_acc_new(c->f))) {
        if (c && (!c->ftext || c->f)) snprintf(err, errlen, "out of memory");
        ub_conv_free(c);
        return NULL;
    }
    return c;
}

bool ub_conv_uses_analysis(const ub_conv *c) { return c && ub_filter_uses_analysis(c->f); }
bool ub_conv_uses_frame(const ub_conv *c) { return c && ub_filter_uses_frame(c->f); }



void ub_conv_free(ub_conv *c)
{
    if (!c) return;
    free(c->c);
    free(c->e);
    free(c->hc.slot);
    free(c->he.slot);
    ub_filter_free(c->f);
    ub_filter_acc_free(c->acc);
    free(c->ftext);
    free(c->st);
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
    } else if (f->type == UB_FT_MAC) { /* Ethernet, as Wireshark's AT_ETHER: aa:bb:cc:dd:ee:ff */
        ub_format_value(f, v, false, o, n);
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
    const ub_field *f = ub_layer_row(l, name);
    ub_val v;
    if (!f || ub_field_value(l, f, &v) != 0) return false;
    fmt_addr(l, f, &v, o, n);
    return o[0] != 0;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
    return h;
}
/* a conversation's hash: the same for both orders of its ends */
static uint64_t pair_hash(const char *a, const char *b)
{
    return strcmp(a, b) <= 0 ? str_hash(str_hash(0xcbf29ce484222325ull, a) * 31u, b)
                             : str_hash(str_hash(0xcbf29ce484222325ull, b) * 31u, a);
}
static uint64_t ep_hash(const char *a, uint32_t port) { return str_hash(0xcbf29ce484222325ull, a) ^ port * 0x9e3779b97f4a7c15ull; }

/* the slot of the row `eq` accepts, or the empty slot where it goes; NULL: no index (out of memory) */
static uint32_t *hidx_find(const hidx *x, uint64_t h, bool (*eq)(const ub_conv *, size_t, const void *), const ub_conv *c,
                           const void *key)
{
    if (!x->cap) return NULL;
    for (size_t i = (size_t)h & (x->cap - 1);; i = (i + 1) & (x->cap - 1))
        if (!x->slot[i] || eq(c, x->slot[i] - 1, key)) return &x->slot[i];
}
/* room for one more row (n rows in): doubles, re-inserting rows by rehash(c, row) */
static bool hidx_room(hidx *x, size_t n, uint64_t (*rehash)(const ub_conv *, size_t), const ub_conv *c)
{
    if (2 * (n + 1) <= x->cap) return true;
    size_t cap = x->cap ? 2 * x->cap : 64;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s || n >= UINT32_MAX - 1) { free(s); return false; }
    for (size_t r = 0; r < n; r++) {
        size_t i = (size_t)rehash(c, r) & (cap - 1);
        while (s[i]) i = (i + 1) & (cap - 1);
        s[i] = (uint32_t)(r + 1);
    }
    free(x->slot);
    x->slot = s;
    x->cap = cap;
    return true;
}
struct ep_key { const char *a; uint32_t port; };
static bool ep_eq(const ub_conv *c, size_t r, const void *k)
{
    const struct ep_key *q = k;
    return c->e[r].port == q->port && strcmp(c->e[r].a, q->a) == 0;
}
static uint64_t ep_rehash(const ub_conv *c, size_t r) { return ep_hash(c->e[r].a, c->e[r].port); }
struct cv_key { const char *s, *d; };
static bool cv_eq(const ub_conv *c, size_t r, const void *k)
{
    const struct cv_key *q = k;
    const conv *x = &c->c[r];
    return (strcmp(x->a, q->s) == 0 && strcmp(x->b, q->d) == 0) || (strcmp(x->a, q->d) == 0 && strcmp(x->b, q->s) == 0);
}
static uint64_t cv_rehash(const ub_conv *c, size_t r) { return pair_hash(c->c[r].a, c->c[r].b); }

static endp *ep_get(ub_conv *c, const char *a, uint32_t port)
{
    struct ep_key k = { a, port };
    uint64_t h = ep_hash(a, port);
    if (!hidx_room(&c->he, c->ne, ep_rehash, c)) { c->oom = true; return NULL; }
    uint32_t *slot = hidx_find(&c->he, h, ep_eq, c, &k);
    if (*slot) return &c->e[*slot - 1];
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
    e->port = port;
    e->seq = c->ne - 1;
    *slot = (uint32_t)c->ne;
    return e;
}

/* the view's network addresses (NTH CNAs, else the first IP header not a tunnel's) and its first TPH */
static bool net_addrs(const ub_view *v, char *s, char *d, size_t n, const ub_layer **tph)
{
    const ub_layer *nth = NULL, *ip = NULL;
    if (tph) *tph = NULL;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr ? l->hdr->id : 0;
        if ((id == UB_H_NTH16 || id == UB_H_NTH24) && !nth) nth = l;
        if ((id == UB_H_IPV4 || id == UB_H_IPV6) && !ip && !(l->flags & UB_LF_OUTER)) ip = l; /* not a tunnel's */
        if ((id == UB_H_RTPH || id == UB_H_UTPH || id == UB_H_CTPH) && tph && !*tph) *tph = l;
    }
    if (nth) return row(nth, "ub.nth.scna", s, n) && row(nth, "ub.nth.dcna", d, n);
    if (!ip) return false;
    bool v4 = ip->hdr->id == UB_H_IPV4;
    return row(ip, v4 ? "ub.ipv4.src" : "ub.ipv6.src", s, n) && row(ip, v4 ? "ub.ipv4.dst" : "ub.ipv6.dst", d, n);
}


bool ub_view_tp_endpoints(const ub_view *v, char *src, char *dst, size_t n)
{
    char s[ADDR_MAX], d[ADDR_MAX];
    const ub_layer *tph;
    if (!v || !ub_view_ub(v) || !net_addrs(v, s, d, sizeof s, &tph) || !tph) return false;
    if (tph->hdr->id == UB_H_RTPH) { /* RTP: "address:0xTPN" */
        uint64_t st, dt;
        if (!ub_layer_u(tph, "ub.rtph.srctpn", &st) || !ub_layer_u(tph, "ub.rtph.dsttpn", &dt)) return false;
        snprintf(src, n, "%s:0x%llx", s, (unsigned long long)st);
        snprintf(dst, n, "%s:0x%llx", d, (unsigned long long)dt);
    } else { /* UTP/CTP: "address (UTP)" */
        const char *k = tph->hdr->id == UB_H_UTPH ? "UTP" : "CTP";
        snprintf(src, n, "%s (%s)", s, k);
        snprintf(dst, n, "%s (%s)", d, k);
    }
    return true;
}

/* the pairs a Wireshark tap counts in v: one per header of its kind that Wireshark's own dissectors
 * show (filter.h ub_ws_layers; tunnels count each), TCP/UDP with the addresses of the
 * IP header before them */
#define MAX_PAIRS 8
static unsigned ws_pairs(const ub_conv *c, const ub_view *v, pair *out)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers, n = 0;
    ub_ws_layers wl;
    ub_ws_layers_of(v, &wl);
    const ub_layer *ip = NULL;
    for (unsigned i = 0; i < nl && n < MAX_PAIRS; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr || !ub_ws_layers_has(&wl, i) || (l->flags & UB_LF_QUOTED)) continue; /* Wireshark taps no quoted datagram */
        unsigned id = l->hdr->id;
        if (id == UB_H_IPV4 || id == UB_H_IPV6) ip = l;
        if (id != wst[c->ws].hdr) continue;
        pair *p = &out[n];
        uint64_t sp = 0, dp = 0;
        if (wst[c->ws].src) {
            if (!row(l, wst[c->ws].src, p->s, ADDR_MAX) || !row(l, wst[c->ws].dst, p->d, ADDR_MAX)) continue;
        } else {
            bool v4 = ip && ip->hdr->id == UB_H_IPV4;
            if (!ip || !row(ip, v4 ? "ub.ipv4.src" : "ub.ipv6.src", p->s, ADDR_MAX) ||
                !row(ip, v4 ? "ub.ipv4.dst" : "ub.ipv6.dst", p->d, ADDR_MAX) || !ub_layer_u(l, wst[c->ws].sport, &sp) ||
                !ub_layer_u(l, wst[c->ws].dport, &dp))
                continue;
        }
        p->sp = (uint32_t)sp;
        p->dp = (uint32_t)dp;
        n++;
    }
    return n;
}

/* the pair of addresses a view counts for in a UB table */
static bool view_addrs(const ub_conv *c, const ub_view *v, char *s, char *d)
{
    if (!v || !ub_view_ub(v)) return false;
    if (c->tp) {
        if (!ub_view_tp_endpoints(v, s, d, ADDR_MAX)) return false;
    } else if (c->eid) {
        const ub_layer *eidh = NULL;
        unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
        for (unsigned i = 0; i < nl && !eidh; i++) {
            unsigned id = v->layer[i].hdr ? v->layer[i].hdr->id : 0;
            if (id == UB_H_EIDH40 || id == UB_H_EIDH256) eidh = &v->layer[i];
        }
        if (!eidh || !row(eidh, "ub.eidh.seid", s, ADDR_MAX) || !row(eidh, "ub.eidh.deid", d, ADDR_MAX)) return false;
    } else if (!net_addrs(v, s, d, ADDR_MAX, NULL)) {
        return false;
    }
    return true;
}

/* sp, dp: the ports of a tcp/udp pair (the conversation's ends are "address:port"), else 0 */
static void count(ub_conv *c, const char *s, const char *d, uint32_t sp, uint32_t dp, uint32_t bytes, uint64_t rel_ns)
{
    char sk[KEY_MAX], dk[KEY_MAX];
    if (c->ws == WS_TCP || c->ws == WS_UDP) {
        snprintf(sk, sizeof sk, "%s:%u", s, sp);
        snprintf(dk, sizeof dk, "%s:%u", d, dp);
    } else {
        snprintf(sk, sizeof sk, "%s", s);
        snprintf(dk, sizeof dk, "%s", d);
    }
    conv *x = NULL;
    bool fwd = true;
    struct cv_key k = { sk, dk };
    if (!hidx_room(&c->hc, c->nc, cv_rehash, c)) { c->oom = true; return; }
    uint32_t *slot = hidx_find(&c->hc, pair_hash(sk, dk), cv_eq, c, &k);
    if (*slot) {
        x = &c->c[*slot - 1];
        fwd = strcmp(x->a, sk) == 0 && strcmp(x->b, dk) == 0;
    } else {
        if (c->nc == c->capc) {
            size_t nc = c->capc ? c->capc * 2 : 16;
            conv *n = realloc(c->c, nc * sizeof *n);
            if (!n) { c->oom = true; return; }
            c->c = n;
            c->capc = nc;
        }
        x = &c->c[c->nc++];
        memset(x, 0, sizeof *x);
        snprintf(x->a, sizeof x->a, "%s", sk);
        snprintf(x->b, sizeof x->b, "%s", dk);
        x->seq = c->nc - 1;
        x->start = rel_ns;
        *slot = (uint32_t)c->nc;
    }
    if (fwd) { x->fab++; x->bab += bytes; }
    else { x->fba++; x->bba += bytes; }
    if (rel_ns > x->end) x->end = rel_ns;
    else if (rel_ns < x->start) x->start = rel_ns;
    endp *e = ep_get(c, s, sp);
    if (e) { e->ftx++; e->btx += bytes; }
    e = ep_get(c, d, dp);
    if (e) { e->frx++; e->brx += bytes; }
}

/* the pairs of v this table counts (a UB table: at most one) */
static unsigned view_pairs(const ub_conv *c, const ub_view *v, pair *out)
{
    if (!v) return 0;
    if (c->ws) return ws_pairs(c, v, out);
    out->sp = out->dp = 0;
    return view_addrs(c, v, out->s, out->d) ? 1u : 0u;
}

void ub_conv_view(ub_conv *c, const ub_view *v, uint32_t bytes, uint64_t rel_ns)
{
    pair p[MAX_PAIRS];
    unsigned n = c ? view_pairs(c, v, p) : 0;
    for (unsigned i = 0; i < n; i++) count(c, p[i].s, p[i].d, p[i].sp, p[i].dp, bytes, rel_ns);
}

void ub_conv_view_pkt(ub_conv *c, const ub_view *v, const ub_filter_pkt *pk, uint32_t bytes, uint64_t rel_ns)
{
    if (!c->f) { ub_conv_view(c, v, bytes, rel_ns); return; }
    ub_filter_acc_add(c->acc, v, pk);
    pair p[MAX_PAIRS];
    for (unsigned i = 0, n = view_pairs(c, v, p); i < n; i++) {
        if (!ub_grow((void **)&c->st, &c->capst, c->nst, sizeof *c->st)) { c->oom = true; return; }
        struct stage *x = &c->st[c->nst++];
        x->p = p[i];
        x->bytes = bytes;
        x->rel = rel_ns;
    }
}

void ub_conv_frame(ub_conv *c, const ub_filter_pkt *pk)
{
    if (!c->f) return;
    if (c->nst && ub_filter_acc_match(c->acc, pk))
        for (size_t i = 0; i < c->nst; i++)
            count(c, c->st[i].p.s, c->st[i].p.d, c->st[i].p.sp, c->st[i].p.dp, c->st[i].bytes, c->st[i].rel);
    c->nst = 0;
    ub_filter_acc_reset(c->acc);
}

static int cmp_conv(const void *x, const void *y)
{
    const conv *a = x, *b = y;
    uint64_t fa = a->fab + a->fba, fb = b->fab + b->fba;
    if (fa != fb) return fa > fb ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq; /* first seen first */
}
static int cmp_ep(const void *x, const void *y)
{
    const endp *a = x, *b = y;
    uint64_t fa = a->ftx + a->frx, fb = b->ftx + b->frx;
    if (fa != fb) return fa > fb ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* wsutil's format_size(n, FORMAT_SIZE_UNIT_BYTES, FORMAT_SIZE_PREFIX_SI) of Wireshark 4.0 */
static const char *fmt_size(uint64_t n, char *o, size_t len)
{
    static const char pfx[] = "kMGT";
    uint64_t v = n;
    int p = -1;
    for (int i = 3; i >= 0 && p < 0; i--) {
        uint64_t d = n;
        for (int k = 0; k <= i; k++) d /= 1000u;
        if (d >= 10) { p = i; v = d; }
    }
    if (p < 0) snprintf(o, len, "%llu bytes", (unsigned long long)n);
    else snprintf(o, len, "%llu %cB", (unsigned long long)v, pfx[p]);
    return o;
}

/* the table's title: "UB TP Conversations", ..., Wireshark's "IPv4 Endpoints" */
static const char *title(const ub_conv *c) { return c->ws ? wst[c->ws].title : c->tp ? "UB TP" : c->eid ? "UB EID" : "UB"; }

void ub_conv_print(ub_conv *c, FILE *o, bool endpoints)
{
    if (!c) return;
    bool ports = c->ws == WS_TCP || c->ws == WS_UDP;
    static const char eq[] = "================================================================================";
    if (endpoints) {
        if (c->ne) qsort(c->e, c->ne, sizeof *c->e, cmp_ep);
        free(c->he.slot); /* rows moved: the index is rebuilt if more packets come */
        c->he = (hidx){ NULL, 0 };
        fprintf(o, "%s\n%s Endpoints\nFilter:%s\n", eq, title(c), c->ftext ? c->ftext : "<No Filter>");
        fprintf(o, "                       |%s  Packets  | |  Bytes  | | Tx Packets | | Tx Bytes | | Rx Packets | | Rx Bytes |\n",
                ports ? "  Port  ||" : "");
        for (size_t i = 0; i < c->ne; i++) {
            const endp *e = &c->e[i];
            if (ports) fprintf(o, "%-20s%11u     ", e->a, (unsigned)e->port);
            else fprintf(o, "%-20s      ", e->a);
            fprintf(o, "%6llu     %9llu     %6llu       %9llu      %6llu       %9llu   \n",
                    (unsigned long long)(e->ftx + e->frx), (unsigned long long)(e->btx + e->brx),
                    (unsigned long long)e->ftx, (unsigned long long)e->btx, (unsigned long long)e->frx,
                    (unsigned long long)e->brx);
        }
        fprintf(o, "%s\n", eq);
        return;
    }
    if (c->nc) qsort(c->c, c->nc, sizeof *c->c, cmp_conv);
    free(c->hc.slot);
    c->hc = (hidx){ NULL, 0 };
    int w = ports ? 26 : 20; /* "address:port" ends are wider */
    fprintf(o, "%s\n%s Conversations\nFilter:%s\n", eq, title(c), c->ftext ? c->ftext : "<No Filter>");
    fprintf(o, "%*s|       <-      | |       ->      | |     Total     |    Relative    |   Duration   |\n", 2 * w + 7, "");
    fprintf(o, "%*s| Frames  Bytes | | Frames  Bytes | | Frames  Bytes |      Start     |              |\n", 2 * w + 7, "");
    for (size_t i = 0; i < c->nc; i++) {
        const conv *x = &c->c[i];
        char b1[32], b2[32], b3[32];
        /* nstime_to_sec() of the start and stop times, as tshark's %14.9f and %12.4f */
        double t0 = (double)(x->start / 1000000000u) + (double)(x->start % 1000000000u) / 1e9;
        double t1 = (double)(x->end / 1000000000u) + (double)(x->end % 1000000000u) / 1e9;
        fprintf(o, "%-*s <-> %-*s  %6llu %-9s  %6llu %-9s  %6llu %-9s  %14.9f   %12.4f\n", w, x->a, w, x->b,
                (unsigned long long)x->fba, fmt_size(x->bba, b1, sizeof b1), (unsigned long long)x->fab,
                fmt_size(x->bab, b2, sizeof b2), (unsigned long long)(x->fab + x->fba),
                fmt_size(x->bab + x->bba, b3, sizeof b3), t0, t1 - t0);
    }
    fprintf(o, "%s\n", eq);
}
