/* Statistics of an audit session, printed after the run like tshark -z (ubdump -z):
 *   ub,cfg   packets per CFG, header table, TAOpcode, TPOpcode, DLLCB type, management Code (every packet)
 *   ub,tp    per TP channel direction: packets, bytes, the engine's per-packet analysis flags
 *   ub,latency transaction response times per request TAOpcode    } from the engine's request/response
 *   ub,mgmt  management response times per Code                     } matches (state.h ub_match)
 * Counters are per engine and merged at the end; the latency sample and the channel rows are chosen
 * independently of arrival order, so sharded sessions (-j N) print what one engine prints. */
#include "audit_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fh.h"
#include "internal.h"

/* -z ub,cfg: counted in the main thread over every decoded packet */
struct ub_zcfg {
    uint64_t cfg_pkts[17], cfg_bytes[17]; /* index CFG + 1 (0 = unknown) */
    uint64_t hdr[UB_H__COUNT];
    uint64_t taop_req[256], taop_rsp[256], tpop[256], ctpop[4], mgcode[8], scanop[256];
    uint64_t errors[UB_E__COUNT];
    uint64_t ub;   /* UB packets counted (records that are not UB are not: issue #9) */
    fh f_taop_b, f_taop_a, f_tpop, f_ctpop, f_mgcode, f_scanop;
};

/* latency: exact count/min/max/sum and log2 histogram, median/p99 from a bounded sample. The sample
 * keeps the matches with the K smallest hash(request frame, response frame): a uniform sample that
 * does not depend on arrival order, so -j N gives the same numbers as -j 1 (exact while count <= K). */
#define LAT_K 4096u
typedef struct {
    uint64_t h, lat;
} lsamp;
typedef struct {
    uint64_t count, min, max, sum;
    uint64_t hist[64];
    lsamp *s;
    uint32_t ns, cap;
} latst;

#define LAT_GROUPS 3 /* 0 transactions by TAOpcode, 1 management by Code, 2 transport acks */
struct ub_latset {
    latst *g[LAT_GROUPS][256];
};

/* -z ub,tp: per TP channel (direction, addresses, TPNs); bounded, the rest in one "other" row */
#define TP_MAX 4096u
#define TP_SLOTS 8192u
typedef struct {
    uint8_t used, kind, slen, dlen;
    uint8_t src[16], dst[16];
    uint32_t stpn, dtpn; /* UINT32_MAX: none (UTP/CTP) */
    uint64_t first, pkts, bytes, data, ctrl;
    uint64_t fl[7]; /* ub_tp_flags bits */
    uint64_t last, first_ts, last_ts; /* last frame, capture times of the first and last packet */
} tpch;
struct ub_tpstats {
    tpch *t; /* TP_SLOTS */
    uint32_t n;
    tpch other;
    fh f_scna, f_dcna, f_ip4s, f_ip4d, f_ip6s, f_ip6d, f_stpn, f_dtpn, f_tpop;
};

/* ================================================================ -z ub,cfg */
ub_zcfg *ub_zcfg_new(void)
{
    ub_zcfg *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    fh_init(&c->f_taop_b, "ub.btah.taopcode");
    fh_init(&c->f_taop_a, "ub.atah.taopcode");
    fh_init(&c->f_mgcode, "ub.mgmtetah.code");
    fh_init(&c->f_scanop, "ub.scan.opcode");
    fh_init_tpop(&c->f_tpop);
    fh_init(&c->f_ctpop, "ub.ctph.tpopcode");
    return c;
}
void ub_zcfg_free(ub_zcfg *c) { free(c); }

void ub_zcfg_add(ub_zcfg *c, const ub_view *v, uint32_t len)
{
    if (!ub_view_ub(v)) return; /* not UB: not a UB statistic (as the Wireshark tap) */
    c->ub++;
    int ci = v->cfg >= 0 && v->cfg <= 15 ? v->cfg + 1 : 0;
    c->cfg_pkts[ci]++;
    c->cfg_bytes[ci] += len;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        if (id < UB_H__COUNT) c->hdr[id]++;
        ub_val val;
        if (id == UB_H_BTAH || id == UB_H_BTAH_C || id == UB_H_BTAH_ALT) {
            if (fh_get(&c->f_taop_b, l, &val) == 0) c->taop_req[val.u & 0xFF]++;
        } else if (id == UB_H_ATAH || id == UB_H_ATAH_C) {
            if (fh_get(&c->f_taop_a, l, &val) == 0) c->taop_rsp[val.u & 0xFF]++;
        } else if (id == UB_H_RTPH || id == UB_H_UTPH) {
            if (fh_get(&c->f_tpop, l, &val) == 0) c->tpop[val.u & 0xFF]++;
        } else if (id == UB_H_CTPH) { /* its own opcodes: 0 CTP data, 1 CNP (not RTP/UTP 0/1) */
            if (fh_get(&c->f_ctpop, l, &val) == 0) c->ctpop[val.u & 3]++;
        } else if (id == UB_H_MGMTETAH) {
            if (fh_get(&c->f_mgcode, l, &val) == 0) c->mgcode[val.u & 7]++;
        } else if (id == UB_H_SCANPDU_REQ || id == UB_H_SCANPDU_RSP) {
            if (fh_get(&c->f_scanop, l, &val) == 0) c->scanop[val.u & 0xFF]++;
        }
    }
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    for (unsigned i = 0; i < ne; i++)
        if (v->err[i].code < UB_E__COUNT) c->errors[v->err[i].code]++;
}

static void z_rule(FILE *f) { fputs("===================================================================\n", f); }

static void print_counts(FILE *f, const char *title, const uint64_t *cnt, unsigned n, const ub_vname *vals, bool hex)
{
    bool any = false;
    for (unsigned i = 0; i < n; i++) any |= cnt[i] != 0;
    if (!any) return;
    fprintf(f, "%s\n", title);
    for (unsigned i = 0; i < n; i++) {
        if (!cnt[i]) continue;
        const char *nm = vals ? ub_vname_lookup(vals, i) : NULL;
        char lab[96];
        if (hex) snprintf(lab, sizeof lab, "0x%02x %s", i, nm ? nm : "");
        else snprintf(lab, sizeof lab, "%u %s", i, nm ? nm : "");
        fprintf(f, "  %-44s %12" PRIu64 "\n", lab, cnt[i]);
    }
}

void ub_zcfg_print(const ub_zcfg *c, FILE *f, uint64_t records, uint64_t packets)
{
    z_rule(f);
    (void)packets;
    fprintf(f, "UB packet counts (-z ub,cfg): %" PRIu64 " records, %" PRIu64 " packets\n", records, c->ub);
    fprintf(f, "CFG                                               packets        bytes\n");
    for (int i = 0; i < 17; i++) {
        if (!c->cfg_pkts[i]) continue;
        char lab[16];
        if (i == 0) snprintf(lab, sizeof lab, "unknown");
        else snprintf(lab, sizeof lab, "CFG %d", i - 1);
        fprintf(f, "  %-44s %12" PRIu64 " %12" PRIu64 "\n", lab, c->cfg_pkts[i], c->cfg_bytes[i]);
    }
    fprintf(f, "Header (layer)\n");
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        if (!c->hdr[id]) continue;
        const ub_hdr *h = ub_hdr_get(id);
        char lab[96];
        snprintf(lab, sizeof lab, "%s (%s%s)", h ? h->key : "?", h ? ub_hdr_ns(h) : "", h ? h->abbrev : "?");
        fprintf(f, "  %-44s %12" PRIu64 "\n", lab, c->hdr[id]);
    }
    print_counts(f, "TAOpcode (requests, BTAH)", c->taop_req, 256, fh_vals(&c->f_taop_b), true);
    print_counts(f, "TAOpcode (responses, ATAH)", c->taop_rsp, 256, fh_vals(&c->f_taop_a), true);
    print_counts(f, "TPOpcode", c->tpop, 256, fh_vals(&c->f_tpop), true);
    {
        bool rtp = false;
        for (unsigned i = 0; i < 256; i++) rtp |= c->tpop[i] != 0;
        if (!rtp && (c->ctpop[0] | c->ctpop[1] | c->ctpop[2] | c->ctpop[3])) fprintf(f, "TPOpcode\n");
        for (unsigned i = 0; i < 4; i++) { /* CTPH rows in the same section, named as CTP (tshark: the same) */
            if (!c->ctpop[i]) continue;
            const char *nm = ub_vname_lookup(fh_vals(&c->f_ctpop), i);
            char lab[96];
            snprintf(lab, sizeof lab, "0x%02x %s", i, nm ? nm : "");
            fprintf(f, "  %-44s %12" PRIu64 "\n", lab, c->ctpop[i]);
        }
    }
    {
        bool any = false;
        for (unsigned id = UB_H_DLLCB_NULL; id <= UB_H_DLLCB_RSVD; id++) any |= c->hdr[id] != 0;
        if (any) {
            fprintf(f, "DLLCB type\n");
            for (unsigned id = UB_H_DLLCB_NULL; id <= UB_H_DLLCB_RSVD; id++) {
                const ub_hdr *h = ub_hdr_get(id);
                if (c->hdr[id]) fprintf(f, "  %-44s %12" PRIu64 "\n", h ? h->name : "?", c->hdr[id]);
            }
        }
    }
    print_counts(f, "Management Code (MGMTETAH)", c->mgcode, 8, fh_vals(&c->f_mgcode), false);
    print_counts(f, "Scan PDU opcode", c->scanop, 256, fh_vals(&c->f_scanop), true);
    {
        bool any = false;
        for (unsigned e = 1; e < UB_E__COUNT; e++) any |= c->errors[e] != 0;
        if (any) {
            fprintf(f, "Decode errors (ub.error)\n");
            for (unsigned e = 1; e < UB_E__COUNT; e++) {
                const ub_err_info *ei = ub_err_get(e);
                if (c->errors[e]) fprintf(f, "  %-44s %12" PRIu64 "\n", ei ? ei->name : "?", c->errors[e]);
            }
        }
    }
    z_rule(f);
}

/* ================================================================ latency statistics */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}
static bool ls_less(const lsamp *a, const lsamp *b) { return a->h < b->h || (a->h == b->h && a->lat < b->lat); }
/* bottom-K by (h, lat): a max-heap of the K smallest */
static void lat_sample(latst *L, lsamp x)
{
    if (L->ns < LAT_K) {
        if (L->ns == L->cap) {
            uint32_t nc = L->cap ? L->cap * 2 : 64;
            if (nc > LAT_K) nc = LAT_K;
            lsamp *s = realloc(L->s, nc * sizeof *s);
            if (!s) return;
            L->s = s;
            L->cap = nc;
        }
        uint32_t i = L->ns++;
        while (i > 0) {
            uint32_t p = (i - 1) / 2;
            if (!ls_less(&L->s[p], &x)) break;
            L->s[i] = L->s[p];
            i = p;
        }
        L->s[i] = x;
        return;
    }
    if (!ls_less(&x, &L->s[0])) return;
    uint32_t i = 0, n = L->ns;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ls_less(&L->s[c], &L->s[c + 1])) c++;
        if (!ls_less(&x, &L->s[c])) break;
        L->s[i] = L->s[c];
        i = c;
    }
    L->s[i] = x;
}
static unsigned lat_bucket(uint64_t ns)
{
    unsigned b = 0;
    while (ns > 1 && b < 63) { ns >>= 1; b++; }
    return b; /* [2^b, 2^(b+1)) ns; bucket 0 also holds 0 */
}
static latst *lat_get(ub_latset *s, unsigned g, unsigned k)
{
    if (g >= LAT_GROUPS) return NULL;
    k &= 0xFF;
    if (!s->g[g][k]) s->g[g][k] = calloc(1, sizeof(latst));
    return s->g[g][k];
}
static void lat_add_raw(latst *L, uint64_t lat, uint64_t h)
{
    if (L->count == 0 || lat < L->min) L->min = lat;
    if (lat > L->max) L->max = lat;
    L->count++;
    L->sum = L->sum + lat < L->sum ? UINT64_MAX : L->sum + lat;
    L->hist[lat_bucket(lat)]++;
    lat_sample(L, (lsamp){ h, lat });
}
ub_latset *ub_lat_new(void) { return calloc(1, sizeof(ub_latset)); }

void ub_lat_add(ub_latset *s, const ub_match *m)
{
    unsigned g = m->kind, k = m->opcode & 0xFF;
    if (g == 1) k = (m->opcode >> 8) & 0xFF; /* 2: the ack TPOpcode (rows of -z ub,srt, srt_ws.c) */
    if (g >= LAT_GROUPS) return;
    latst *L = lat_get(s, g, k);
    if (L) lat_add_raw(L, m->latency_ns, mix64(m->req_frame * 0x9e3779b97f4a7c15ull ^ mix64(m->rsp_frame + g)));
}

static void lat_merge_one(latst *L, const latst *x)
{
    if (L->count == 0 || x->min < L->min) L->min = x->min;
    if (x->max > L->max) L->max = x->max;
    L->count += x->count;
    L->sum = L->sum + x->sum < L->sum ? UINT64_MAX : L->sum + x->sum;
    for (int b = 0; b < 64; b++) L->hist[b] += x->hist[b];
    for (uint32_t i = 0; i < x->ns; i++) lat_sample(L, x->s[i]);
}
void ub_lat_merge(ub_latset *d, const ub_latset *s)
{
    for (unsigned g = 0; g < LAT_GROUPS; g++)
        for (unsigned k = 0; k < 256; k++) {
            const latst *x = s->g[g][k];
            if (!x || !x->count) continue;
            latst *L = lat_get(d, g, k);
            if (L) lat_merge_one(L, x);
        }
}
bool ub_lat_row(const ub_latset *s, unsigned g, unsigned k, uint64_t *count, uint64_t *min, uint64_t *max, uint64_t *sum)
{
    const latst *L = s && g < LAT_GROUPS && k < 256 ? s->g[g][k] : NULL;
    if (!L || !L->count) return false;
    *count = L->count;
    *min = L->min;
    *max = L->max;
    *sum = L->sum;
    return true;
}
void ub_lat_free(ub_latset *s)
{
    if (!s) return;
    for (unsigned g = 0; g < LAT_GROUPS; g++)
        for (unsigned k = 0; k < 256; k++)
            if (s->g[g][k]) { free(s->g[g][k]->s); free(s->g[g][k]); s->g[g][k] = NULL; }
    free(s);
}
static int u64cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}
static void fmt_ns(char *b, size_t n, uint64_t ns)
{
    if (ns < 1000) snprintf(b, n, "%" PRIu64 " ns", ns);
    else if (ns < 1000000) snprintf(b, n, "%.3g us", (double)ns / 1e3);
    else if (ns < 1000000000) snprintf(b, n, "%.3g ms", (double)ns / 1e6);
    else snprintf(b, n, "%.4g s", (double)ns / 1e9);
}
static void print_lat(FILE *f, const char *label, const latst *L)
{
    uint64_t *v = malloc((L->ns ? L->ns : 1) * sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < L->ns; i++) v[i] = L->s[i].lat;
    qsort(v, L->ns, sizeof *v, u64cmp);
    /* nearest rank on the sample (exact while count <= LAT_K) */
    uint64_t med = L->ns ? v[(L->ns - 1) / 2] : 0;
    uint32_t r99 = L->ns ? (uint32_t)((L->ns * 99u + 99u) / 100u) : 1;
    uint64_t p99 = L->ns ? v[(r99 ? r99 : 1) - 1] : 0;
    free(v);
    char smin[24], smed[24], s99[24], smax[24], savg[24];
    fmt_ns(smin, sizeof smin, L->min);
    fmt_ns(smed, sizeof smed, med);
    fmt_ns(s99, sizeof s99, p99);
    fmt_ns(smax, sizeof smax, L->max);
    fmt_ns(savg, sizeof savg, L->count ? L->sum / L->count : 0);
    fprintf(f, "%-28s %9" PRIu64 " %11s %11s %11s %11s %11s%s\n", label, L->count, smin, smed, s99, smax, savg,
            L->count > LAT_K ? "  (median/p99 from a sample)" : "");
    unsigned lo = 64, hi = 0;
    uint64_t peak = 0;
    for (unsigned b = 0; b < 64; b++)
        if (L->hist[b]) { if (b < lo) lo = b; hi = b; if (L->hist[b] > peak) peak = L->hist[b]; }
    for (unsigned b = lo; b <= hi && b < 64; b++) {
        char x0[24], x1[24], bar[41];
        fmt_ns(x0, sizeof x0, b ? 1ull << b : 0);
        fmt_ns(x1, sizeof x1, b < 63 ? 1ull << (b + 1) : UINT64_MAX);
        unsigned w = peak ? (unsigned)((L->hist[b] * 40 + peak - 1) / peak) : 0;
        memset(bar, '#', w);
        bar[w] = 0;
        fprintf(f, "    [%9s, %9s) %9" PRIu64 " %s\n", x0, x1, L->hist[b], bar);
    }
}
void ub_lat_print(const ub_latset *s, FILE *f, unsigned g)
{
    fh taop, mgcode;
    fh_init(&taop, "ub.btah.taopcode");
    fh_init(&mgcode, "ub.mgmtetah.code");
    z_rule(f);
    if (g == 0) fprintf(f, "UB transaction response times (-z ub,latency): request -> response per request TAOpcode\n");
    else fprintf(f, "UB management response times (-z ub,mgmt): request -> response per Code\n");
    fprintf(f, "%-28s %9s %11s %11s %11s %11s %11s\n", "", "count", "min", "median", "p99", "max", "mean");
    bool any = false;
    for (unsigned k = 0; k < 256; k++) {
        const latst *L = s->g[g][k];
        if (!L || !L->count) continue;
        any = true;
        const char *nm = ub_vname_lookup(g == 0 ? fh_vals(&taop) : fh_vals(&mgcode), k);
        char lab[64];
        if (g == 1 && k >= 8) /* enumeration matches: 0x80 | (8 + CMD) << 8 (state.h) */
            snprintf(lab, sizeof lab, "enumeration CMD %u (0x%02x)", k - 8, k);
        else
            snprintf(lab, sizeof lab, "%s (0x%02x)", nm ? nm : "?", k);
        print_lat(f, lab, L);
    }
    if (!any) fprintf(f, "  (no request/response pairs)\n");
    fprintf(f, "median and p99: nearest rank over a sample of up to %u pairs per row (exact below that)\n", LAT_K);
    z_rule(f);
}

/* ================================================================ TP channels */
static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}
static bool tp_key(const ub_tpstats *a, const ub_view *v, tpch *k, uint64_t *hash)
{
    memset(k, 0, sizeof *k);
    k->stpn = k->dtpn = UINT32_MAX;
    const ub_layer *tl = NULL;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        ub_val s, d;
        if (l->flags & UB_LF_QUOTED) break; /* an ICMP error's quoted datagram: no channel of this link (Wireshark taps none) */
        if (!k->slen && (id == UB_H_NTH16 || id == UB_H_NTH24)) {
            if (fh_get(&a->f_scna, l, &s) == 0 && fh_get(&a->f_dcna, l, &d) == 0) {
                unsigned n = id == UB_H_NTH16 ? 2 : 3;
                for (unsigned q = 0; q < n; q++) {
                    k->src[q] = (uint8_t)(s.u >> (8 * (n - 1 - q)));
                    k->dst[q] = (uint8_t)(d.u >> (8 * (n - 1 - q)));
                }
                k->slen = k->dlen = (uint8_t)n;
            }
        } else if (!k->slen && (id == UB_H_IPV4 || id == UB_H_IPV6) && !(l->flags & UB_LF_OUTER)) { /* not a tunnel's */
            const fh *fs = id == UB_H_IPV4 ? &a->f_ip4s : &a->f_ip6s, *fd = id == UB_H_IPV4 ? &a->f_ip4d : &a->f_ip6d;
            if (fh_get(fs, l, &s) == 0 && fh_get(fd, l, &d) == 0 && s.nbytes <= 16 && d.nbytes <= 16) {
                memcpy(k->src, s.bytes, s.nbytes);
                memcpy(k->dst, d.bytes, d.nbytes);
                k->slen = (uint8_t)s.nbytes;
                k->dlen = (uint8_t)d.nbytes;
            }
        } else if (!tl && (id == UB_H_RTPH || id == UB_H_UTPH || id == UB_H_CTPH)) {
            tl = l;
            k->kind = id == UB_H_RTPH ? 1 : id == UB_H_UTPH ? 2 : 3;
            if (fh_get(&a->f_stpn, l, &s) == 0) k->stpn = (uint32_t)s.u;
            if (fh_get(&a->f_dtpn, l, &d) == 0) k->dtpn = (uint32_t)d.u;
        }
    }
    if (!tl) return false;
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(&k->kind, 1, h);
    h = fnv(&k->slen, 1, h);
    h = fnv(k->src, k->slen, h);
    h = fnv(&k->dlen, 1, h);
    h = fnv(k->dst, k->dlen, h);
    h = fnv((const uint8_t *)&k->stpn, 4, h);
    h = fnv((const uint8_t *)&k->dtpn, 4, h);
    *hash = mix64(h);
    return true;
}
static bool tp_same(const tpch *x, const tpch *k)
{
    return x->kind == k->kind && x->slen == k->slen && x->dlen == k->dlen && x->stpn == k->stpn && x->dtpn == k->dtpn &&
           memcmp(x->src, k->src, k->slen) == 0 && memcmp(x->dst, k->dst, k->dlen) == 0;
}
static void tp_count(tpch *c, const ub_view *v, uint32_t flags, uint64_t frame, uint64_t ts, bool data)
{
    if (!c->pkts) {
        c->first = frame;
        c->first_ts = ts;
    }
    c->last = frame;
    c->last_ts = ts;
    c->pkts++;
    c->bytes += v->rec_len;
    if (data) c->data++;
    else c->ctrl++;
    for (int b = 0; b < 7; b++)
        if (flags & (1u << b)) c->fl[b]++;
}
static tpch *tp_slot(ub_tpstats *t, const tpch *k, uint64_t h, bool insert)
{
    for (uint32_t i = (uint32_t)h & (TP_SLOTS - 1);; i = (i + 1) & (TP_SLOTS - 1)) {
        tpch *c = &t->t[i];
        if (!c->used) {
            if (!insert || t->n >= TP_MAX) return NULL;
            *c = *k;
            c->used = 1;
            c->pkts = c->bytes = c->data = c->ctrl = c->last = c->first_ts = c->last_ts = 0;
            memset(c->fl, 0, sizeof c->fl);
            t->n++;
            return c;
        }
        if (tp_same(c, k)) return c;
    }
}
ub_tpstats *ub_tps_new(void)
{
    ub_tpstats *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->t = calloc(TP_SLOTS, sizeof(tpch));
    if (!t->t) {
        free(t);
        return NULL;
    }
    fh_init(&t->f_scna, "ub.nth.scna");
    fh_init(&t->f_dcna, "ub.nth.dcna");
    fh_init(&t->f_ip4s, "ub.ipv4.src");
    fh_init(&t->f_ip4d, "ub.ipv4.dst");
    fh_init(&t->f_ip6s, "ub.ipv6.src");
    fh_init(&t->f_ip6d, "ub.ipv6.dst");
    fh_init(&t->f_stpn, "ub.rtph.srctpn");
    fh_init(&t->f_dtpn, "ub.rtph.dsttpn");
    fh_init_tpop(&t->f_tpop);
    return t;
}
void ub_tps_free(ub_tpstats *t)
{
    if (!t) return;
    free(t->t);
    free(t);
}

void ub_tps_add(ub_tpstats *t, const ub_view *v, uint32_t flags, uint64_t frame, uint64_t ts)
{
    tpch k;
    uint64_t h;
    const ub_tpstats *a = t;
    if (!t->t || !tp_key(a, v, &k, &h)) return;
    ub_val op;
    bool data = false;
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++)
        if (fh_get(&a->f_tpop, &v->layer[i], &op) == 0) { /* CTPH: 0 data, 1 CNP; RTPH/UTPH: 0 UTP, 1 RTP data */
            data = v->layer[i].hdr->id == UB_H_CTPH ? op.u == 0 : op.u == 0 || op.u == 1;
            break;
        }
    tpch *c = tp_slot(t, &k, h, true);
    tp_count(c ? c : &t->other, v, flags, frame, ts, data);
    if (!c && !t->other.first) t->other.first = frame;
}
static int tpch_cmp(const void *x, const void *y)
{
    const tpch *a = x, *b = y;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    int c = memcmp(a->src, b->src, 16);
    if (c) return c;
    c = memcmp(a->dst, b->dst, 16);
    if (c) return c;
    if (a->stpn != b->stpn) return a->stpn < b->stpn ? -1 : 1;
    if (a->dtpn != b->dtpn) return a->dtpn < b->dtpn ? -1 : 1;
    return 0;
}
static void addr_txt(char *b, size_t n, const uint8_t *p, unsigned len)
{
    if (len == 4 && n > 16) b[ub_ipv4_dec(b, p)] = '\0';
    else if (len == 16) ub_ipv6_format(p, b, n);
    else {
        size_t o = (size_t)snprintf(b, n, "0x");
        for (unsigned i = 0; i < len && o + 3 < n; i++) o += (size_t)snprintf(b + o, n - o, "%02x", p[i]);
        if (!len) snprintf(b, n, "-");
    }
}
/* the merged rows: all engines' channels, sorted by first frame; the first TP_MAX rows are the ones
 * a single engine would have kept, the rest joins "other" (so -j N prints what -j 1 prints).
 * Returns the rows (caller frees; NULL when out of memory) and their number in *np. */
static tpch *tps_merge(ub_tpstats *const *all, unsigned nst, uint32_t *np, tpch *other_out)
{
    uint32_t total = 0;
    for (unsigned s = 0; s < nst; s++) total += all[s]->n;
    tpch *rows = malloc((total ? total : 1) * sizeof *rows);
    tpch other;
    memset(&other, 0, sizeof other);
    uint32_t n = 0;
    for (unsigned s = 0; s < nst; s++) {
        if (all[s]->t)
            for (uint32_t i = 0; i < TP_SLOTS; i++)
                if (all[s]->t[i].used && rows) rows[n++] = all[s]->t[i];
        tpch *o = &all[s]->other;
        if (o->pkts) {
            if (!other.first || (o->first && o->first < other.first)) other.first = o->first;
            other.pkts += o->pkts; other.bytes += o->bytes; other.data += o->data; other.ctrl += o->ctrl;
            for (int b = 0; b < 7; b++) other.fl[b] += o->fl[b];
        }
    }
    if (rows) qsort(rows, n, sizeof *rows, tpch_cmp);
    for (uint32_t i = TP_MAX; i < n; i++) {
        other.pkts += rows[i].pkts; other.bytes += rows[i].bytes; other.data += rows[i].data; other.ctrl += rows[i].ctrl;
        for (int b = 0; b < 7; b++) other.fl[b] += rows[i].fl[b];
    }
    if (n > TP_MAX) n = TP_MAX;
    *np = n;
    *other_out = other;
    return rows;
}

void ub_tps_print(ub_tpstats *const *all, unsigned nst, const ub_latset *lat, FILE *f)
{
    uint32_t n = 0;
    tpch other;
    tpch *rows = tps_merge(all, nst, &n, &other);
    z_rule(f);
    fprintf(f, "UB transport channels (-z ub,tp): %u channel directions%s\n", n, other.pkts ? " (+ other)" : "");
    fprintf(f, "%-44s %9s %11s %8s %8s %7s %7s %7s %7s %7s %7s %7s\n", "channel (src:SrcTPN -> dst:DstTPN)", "packets",
            "bytes", "data", "acks", "retx", "ooo", "lost", "dup", "dupack", "nak", "sack");
    static const char *kn[] = { "?", "RTP", "UTP", "CTP" };
    for (uint32_t i = 0; i <= n; i++) {
        const tpch *c = i < n ? &rows[i] : &other;
        if (i == n && !other.pkts) break;
        char lab[160], s[48], d[48];
        if (i < n) {
            addr_txt(s, sizeof s, c->src, c->slen);
            addr_txt(d, sizeof d, c->dst, c->dlen);
            if (c->stpn != UINT32_MAX)
                snprintf(lab, sizeof lab, "%s %s:0x%x -> %s:0x%x", kn[c->kind & 3], s, c->stpn, d, c->dtpn);
            else
                snprintf(lab, sizeof lab, "%s %s -> %s", kn[c->kind & 3], s, d);
        } else {
            snprintf(lab, sizeof lab, "(other channels beyond %u)", TP_MAX);
        }
        fprintf(f, "%-44s %9" PRIu64 " %11" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
                   " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 "\n",
                lab, c->pkts, c->bytes, c->data, c->ctrl, c->fl[0], c->fl[1], c->fl[2], c->fl[6], c->fl[3], c->fl[4],
                c->fl[5]);
    }
    fprintf(f, "retx: retransmissions, ooo: out of order, lost: a PSN gap precedes the packet, dup: duplicate data\n");
    latst acks = { 0 }; /* the ack rows of every TPOpcode in one (the sample is order independent) */
    for (unsigned k = 0; k < 256; k++)
        if (lat->g[2][k] && lat->g[2][k]->count) lat_merge_one(&acks, lat->g[2][k]);
    if (acks.count) {
        fprintf(f, "%-28s %9s %11s %11s %11s %11s %11s\n", "", "count", "min", "median", "p99", "max", "mean");
        print_lat(f, "data -> transport ack", &acks);
    }
    free(acks.s);
    z_rule(f);
    free(rows);
}


/* The rows of ub_tps_print for programs (audit.h ub_audit_tp_channels); "other" is left out. */
size_t ub_tps_each(ub_tpstats *const *all, unsigned nst, ub_tp_channel_cb cb, void *ctx)
{
    uint32_t n = 0;
    tpch other;
    tpch *rows = tps_merge(all, nst, &n, &other);
    if (!rows) return 0;
    static const char *kn[] = { "?", "RTP", "UTP", "CTP" };
    for (uint32_t i = 0; i < n; i++) {
        const tpch *c = &rows[i];
        ub_tp_channel r;
        memset(&r, 0, sizeof r);
        r.transport = kn[c->kind & 3];
        addr_txt(r.src, sizeof r.src, c->src, c->slen);
        addr_txt(r.dst, sizeof r.dst, c->dst, c->dlen);
        r.src_tpn = c->stpn;
        r.dst_tpn = c->dtpn;
        r.packets = c->pkts;
        r.bytes = c->bytes;
        r.data = c->data;
        r.acks = c->ctrl;
        r.retransmissions = c->fl[0];
        r.out_of_order = c->fl[1];
        r.gaps = c->fl[2];
        r.dup_acks = c->fl[3];
        r.naks = c->fl[4];
        r.sacks = c->fl[5];
        r.duplicates = c->fl[6];
        r.first_frame = c->first;
        r.last_frame = c->last;
        r.first_ts_ns = c->first_ts;
        r.last_ts_ns = c->last_ts;
        if (cb) cb(ctx, &r);
    }
    free(rows);
    return n;
}

/* ================================================================ match opcodes by name */
unsigned ub_match_code(const ub_match *m)
{
    if (m->kind != 1) return m->opcode;
    unsigned code = (unsigned)m->opcode >> 8;
    return code >= 8 ? code - 8 : code; /* enumeration: 0x80 | (8 + CMD) << 8 (state.h) */
}

const char *ub_match_opname(const ub_match *m, char *buf, size_t n)
{
    const char *fld = m->kind == 0 ? "ub.btah.taopcode" : m->kind == 2 ? "ub.rtph.tpopcode"
                      : ((unsigned)m->opcode >> 8) >= 8 ? "ub.scan.cmd" : "ub.mgmtetah.code";
    unsigned code = ub_match_code(m);
    fh h;
    fh_init(&h, fld);
    const char *nm = ub_vname_lookup(fh_vals(&h), code);
    if (nm) return nm;
    snprintf(buf, n, "0x%02x", code);
    return buf;
}
