/* Rewrite edits (include/ubparse/rewrite.h): --set through the schema rows, value maps, per-flow
 * PSN/TASSN renumbering, seeded fuzzing. Every read and write goes through ub_field_value /
 * ub_field_write on the rows that ub_field_find resolves: no field layout is written here. */
#include "rw_internal.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static int rfail(char *err, size_t errlen, const char *fmt, const char *a)
{
    if (errlen) snprintf(err, errlen, fmt, a ? a : "");
    return -1;
}

int rw_fh_init(rw_fh *h, const char *abbrev)
{
    size_t n = ub_field_find(abbrev, h->h, h->f, RW_FH_MAX);
    h->n = n > RW_FH_MAX ? RW_FH_MAX : (unsigned)n;
    for (unsigned k = 0; k < h->n; k++)
        if (!h->f[k]) return -1; /* a header name, not a field */
    return h->n ? 0 : -1;
}

int rw_fh_get(const rw_fh *h, const ub_view *v, ub_val *out)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_field *f = rw_fh_row(h, &v->layer[i]);
        if (f && ub_field_value(&v->layer[i], f, out) == 0) return 0;
    }
    return -1;
}

uint64_t rw_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint16_t rw_ip_csum(const uint8_t *p, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2) s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1) s += (uint32_t)p[n - 1] << 8;
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

/* ---------------------------------------------------------------- configuration */
static const char *const map_kinds[RW_MAP__COUNT] = { "cna", "eid", "ip", "tpn", "upi" };
/* which schema fields carry a value of each kind (names only; layouts come from the tables) */
static const char *const map_fields[RW_MAP__COUNT][8] = {
    [RW_MAP_CNA] = { "ub.nth.scna", "ub.nth.dcna", "ub.errmsg.scna", "ub.linkchg.scna", "ub.entreg.cna", "ub.scan.cna" },
    [RW_MAP_EID] = { "ub.eidh.seid", "ub.eidh.deid", "ub.entreg.eid", "ub.entdereg.eid", "ub.bicreate.eid", "ub.cfgcpl.eid" },
    [RW_MAP_IP] = { "ub.ipv4.src", "ub.ipv4.dst", "ub.ipv6.src", "ub.ipv6.dst" },
    [RW_MAP_TPN] = { "ub.rtph.srctpn", "ub.rtph.dsttpn" },
    [RW_MAP_UPI] = { "ub.upih.upi", "ub.entreg.upi", "ub.bicreate.upi" },
};

void ub_rw_cfg_default(ub_rw_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->out = UB_RW_OUT_SAME;
    c->raw_entry = UB_ENTRY_FLIT;
    c->crc = UB_RW_CRC_FIX;
    c->on_bad = UB_RW_BAD_PASS;
    c->max_flows = 65536;
    memset(c->dmac, 0xFF, 6);
    c->smac[0] = 0x02;
    c->smac[5] = 0x01;
    c->npi = 1;
}

static int flows_init(rw_flows *f, uint32_t max)
{
    uint32_t cap = 16;
    while (cap < max + max / 3 && cap < (1u << 30)) cap <<= 1;
    f->t = calloc(cap, sizeof *f->t);
    f->cap = cap;
    f->used = 0;
    return f->t ? 0 : -1;
}

ub_rw *ub_rw_new(const ub_rw_cfg *c, char *err, size_t errlen)
{
    ub_rw *rw = calloc(1, sizeof *rw);
    if (!rw) { rfail(err, errlen, "out of memory%s", NULL); return NULL; }
    rw->c = *c;
    if (c->opts) rw->o = *c->opts;
    else ub_opts_default(&rw->o);
    rw->c.opts = &rw->o;
    if (!rw->c.max_flows) rw->c.max_flows = 65536;
    rw->rng = c->seed ^ 0x5DEECE66Dull;
    rw->v = malloc(sizeof *rw->v);
    rw->v2 = malloc(sizeof *rw->v2);
    rw->w = malloc(RW_BUF);
    rw->cbuf = malloc(RW_BUF);
    if (!rw->v || !rw->v2 || !rw->w || !rw->cbuf) {
        ub_rw_free(rw);
        rfail(err, errlen, "out of memory%s", NULL);
        return NULL;
    }
    ub_view_init(rw->v);
    ub_view_init(rw->v2);
    for (unsigned k = 0; k < RW_MAP__COUNT; k++)
        for (unsigned i = 0; i < 8 && map_fields[k][i]; i++)
            if (rw_fh_init(&rw->maph[k][rw->nmaph[k]], map_fields[k][i]) == 0) rw->nmaph[k]++;
    if (c->unique_per_loop && (flows_init(&rw->fpsn, rw->c.max_flows) < 0 || flows_init(&rw->ftassn, rw->c.max_flows) < 0)) {
        ub_rw_free(rw);
        rfail(err, errlen, "out of memory%s", NULL);
        return NULL;
    }
    rw_fh_init(&rw->h_scna, "ub.nth.scna");
    rw_fh_init(&rw->h_dcna, "ub.nth.dcna");
    rw_fh_init(&rw->h_ip4s, "ub.ipv4.src");
    rw_fh_init(&rw->h_ip4d, "ub.ipv4.dst");
    rw_fh_init(&rw->h_ip6s, "ub.ipv6.src");
    rw_fh_init(&rw->h_ip6d, "ub.ipv6.dst");
    rw_fh_init(&rw->h_srctpn, "ub.rtph.srctpn");
    rw_fh_init(&rw->h_dsttpn, "ub.rtph.dsttpn");
    rw_fh_init(&rw->h_psn, "ub.rtph.psn");
    rw_fh_init(&rw->h_tpop, "ub.rtph.tpopcode");
    rw_fh_init(&rw->h_maxrcv, "ub.saetph.maxrcvpsn");
    rw_fh_init(&rw->h_tassn_b, "ub.btah.ini_tassn");
    rw_fh_init(&rw->h_tassn_a, "ub.atah.ini_tassn");
    rw_fix_handles(rw);
    return rw;
}

void ub_rw_free(ub_rw *rw)
{
    if (!rw) return;
    free(rw->sets);
    free(rw->maps);
    free(rw->fuzz);
    free(rw->cnaip);
    free(rw->fpsn.t);
    free(rw->ftassn.t);
    free(rw->v);
    free(rw->v2);
    free(rw->w);
    free(rw->cbuf);
    free(rw);
}

static void *grow(void *p, unsigned *cap, unsigned n, size_t el)
{
    if (n < *cap) return p;
    unsigned nc = *cap ? *cap * 2 : 8;
    void *q = realloc(p, (size_t)nc * el);
    if (q) *cap = nc;
    return q;
}

int ub_rw_add_set(ub_rw *rw, const char *assign, char *err, size_t errlen)
{
    const char *eq = strchr(assign, '=');
    char name[128];
    if (!eq || eq == assign || (size_t)(eq - assign) >= sizeof name)
        return rfail(err, errlen, "--set wants ub.<header>.<field>=VALUE: %s", assign);
    memcpy(name, assign, (size_t)(eq - assign));
    name[eq - assign] = '\0';
    rw_set s;
    memset(&s, 0, sizeof s);
    if (rw_fh_init(&s.fh, name) < 0) return rfail(err, errlen, "unknown field %s (ubdump -G fields lists them)", name);
    if (strlen(eq + 1) >= sizeof s.text) return rfail(err, errlen, "value too long: %s", assign);
    strcpy(s.text, eq + 1);
    /* the value must make sense for at least one table that defines the field */
    bool ok = false;
    for (unsigned k = 0; k < s.fh.n; k++) {
        ub_val v;
        uint8_t buf[64];
        if (s.fh.f[k]->flags & UB_FF_VIRTUAL)
            return rfail(err, errlen, "%s is computed by the decoder and cannot be set", name);
        if (ub_field_parse(s.fh.f[k], s.text, &v, buf, sizeof buf) == 0) ok = true;
    }
    if (!ok) return rfail(err, errlen, "bad value for %s", assign);
    rw_set *ns = grow(rw->sets, &rw->capsets, rw->nsets, sizeof *rw->sets);
    if (!ns) return rfail(err, errlen, "out of memory%s", NULL);
    rw->sets = ns;
    rw->sets[rw->nsets++] = s;
    return 0;
}

static int parse_rwval(const char *t, rw_val *v)
{
    memset(v, 0, sizeof *v);
    char *e;
    if (!*t) return -1;
    errno = 0;
    unsigned long long u = strtoull(t, &e, 0);
    if (*e == '\0' && errno == 0 && isdigit((unsigned char)t[0])) {
        v->is_int = true;
        v->u = u;
        return 0;
    }
    if (inet_pton(AF_INET, t, v->b) == 1) { v->nb = 4; return 0; }
    if (inet_pton(AF_INET6, t, v->b) == 1) { v->nb = 16; return 0; }
    /* hex bytes */
    const char *s = t;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    int hi = -1;
    for (; *s; s++) {
        int c = (unsigned char)*s, d;
        if (isdigit(c)) d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else if (c == ':' || c == '-' || c == '.') continue;
        else return -1;
        if (hi < 0) hi = d;
        else {
            if (v->nb >= 16) return -1;
            v->b[v->nb++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    return hi < 0 && v->nb ? 0 : -1;
}

static int add_map_pair(ub_rw *rw, unsigned kind, const char *pair, char *err, size_t errlen)
{
    char a[128], b[128];
    const char *eq = strchr(pair, '=');
    if (!eq || (size_t)(eq - pair) >= sizeof a || strlen(eq + 1) >= sizeof b)
        return rfail(err, errlen, "map entries are OLD=NEW: %s", pair);
    memcpy(a, pair, (size_t)(eq - pair));
    a[eq - pair] = '\0';
    strcpy(b, eq + 1);
    rw_map m;
    m.kind = (uint8_t)kind;
    if (parse_rwval(a, &m.from) < 0 || parse_rwval(b, &m.to) < 0)
        return rfail(err, errlen, "bad map value in %s", pair);
    if (m.from.is_int != m.to.is_int || (!m.from.is_int && m.from.nb != m.to.nb))
        return rfail(err, errlen, "both sides of a map entry must be of one kind and size: %s", pair);
    rw_map *nm = grow(rw->maps, &rw->capmaps, rw->nmaps, sizeof *rw->maps);
    if (!nm) return rfail(err, errlen, "out of memory%s", NULL);
    rw->maps = nm;
    rw->maps[rw->nmaps++] = m;
    return 0;
}

static int kind_index(const char *kind)
{
    for (unsigned k = 0; k < RW_MAP__COUNT; k++)
        if (strcmp(kind, map_kinds[k]) == 0) return (int)k;
    return -1;
}

int ub_rw_add_map(ub_rw *rw, const char *kind, const char *pairs, char *err, size_t errlen)
{
    int k = kind_index(kind);
    if (k < 0) return rfail(err, errlen, "unknown map kind %s (cna, eid, ip, tpn, upi)", kind);
    char buf[4096];
    if (strlen(pairs) >= sizeof buf) return rfail(err, errlen, "map list too long%s", NULL);
    strcpy(buf, pairs);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (add_map_pair(rw, (unsigned)k, t, err, errlen) < 0) return -1;
    return 0;
}

int ub_rw_load_maps(ub_rw *rw, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    unsigned lno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lno++;
        char *h = strchr(line, '#');
        if (h) *h = '\0';
        char kind[32], a[128], b[128], extra[8];
        int n = sscanf(line, "%31s %127s %127s %7s", kind, a, b, extra);
        if (n <= 0) continue;
        char e2[256], pair[260];
        snprintf(pair, sizeof pair, "%s=%s", a, b);
        if (n != 3) { snprintf(e2, sizeof e2, "expected KIND OLD NEW"); rc = -1; }
        else if (strcmp(kind, "cna-ip") == 0) rc = ub_rw_add_cna_ip(rw, pair, e2, sizeof e2);
        else rc = ub_rw_add_map(rw, kind, pair, e2, sizeof e2);
        if (rc < 0 && errlen) snprintf(err, errlen, "%s:%u: %s", path, lno, e2);
    }
    fclose(f);
    return rc;
}

int ub_rw_add_cna_ip(ub_rw *rw, const char *pairs, char *err, size_t errlen)
{
    char buf[4096];
    if (strlen(pairs) >= sizeof buf) return rfail(err, errlen, "list too long%s", NULL);
    strcpy(buf, pairs);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq) return rfail(err, errlen, "CNA=IP expected: %s", t);
        *eq = '\0';
        rw_val a, ip;
        if (parse_rwval(t, &a) < 0 || !a.is_int || parse_rwval(eq + 1, &ip) < 0 || ip.is_int || (ip.nb != 4 && ip.nb != 16))
            return rfail(err, errlen, "CNA=IP expected (IPv4 or IPv6 address): %s", t);
        if (rw->ncnaip && rw->cnaip[0].family != (ip.nb == 4 ? 4 : 6))
            return rfail(err, errlen, "all CNA -> IP entries must use one IP version: %s", eq + 1);
        rw_cnaip *n = grow(rw->cnaip, &rw->capcnaip, rw->ncnaip, sizeof *rw->cnaip);
        if (!n) return rfail(err, errlen, "out of memory%s", NULL);
        rw->cnaip = n;
        rw_cnaip *e = &rw->cnaip[rw->ncnaip++];
        e->cna = a.u;
        memcpy(e->ip, ip.b, ip.nb);
        e->family = ip.nb == 4 ? 4 : 6;
    }
    return 0;
}

int ub_rw_renumber(ub_rw *rw, const char *what, const char *spec, char *err, size_t errlen)
{
    int mode;
    uint64_t base = 0;
    if (strcmp(spec, "random") == 0) mode = 2;
    else if (strcmp(spec, "keep") == 0) mode = 3;
    else {
        char *e;
        errno = 0;
        base = strtoull(spec, &e, 0);
        if (!*spec || *e || errno) return rfail(err, errlen, "initial value N, random or keep expected: %s", spec);
        mode = 1;
    }
    rw_flows *f;
    if (strcmp(what, "psn") == 0) {
        if (base >> 24) return rfail(err, errlen, "PSNs are 24 bits: %s", spec);
        rw->renum_psn = mode;
        rw->psn_base = (uint32_t)base;
        f = &rw->fpsn;
    } else if (strcmp(what, "tassn") == 0) {
        if (base >> 16) return rfail(err, errlen, "TASSNs are 16 bits: %s", spec);
        rw->renum_tassn = mode;
        rw->tassn_base = (uint32_t)base;
        f = &rw->ftassn;
    } else {
        return rfail(err, errlen, "renumber psn or tassn, not %s", what);
    }
    if (!f->t && flows_init(f, rw->c.max_flows) < 0) return rfail(err, errlen, "out of memory%s", NULL);
    return 0;
}

int ub_rw_add_fuzz(ub_rw *rw, const char *spec, char *err, size_t errlen)
{
    char name[128];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n == 0 || n >= sizeof name) return rfail(err, errlen, "--fuzz FIELD[:PROBABILITY]: %s", spec);
    memcpy(name, spec, n);
    name[n] = '\0';
    rw_fuzz z;
    memset(&z, 0, sizeof z);
    if (rw_fh_init(&z.fh, name) < 0) return rfail(err, errlen, "unknown field %s", name);
    for (unsigned k = 0; k < z.fh.n; k++)
        if (z.fh.f[k]->flags & UB_FF_VIRTUAL) return rfail(err, errlen, "%s is computed and cannot be fuzzed", name);
    z.threshold = UINT64_MAX;
    if (colon) {
        char *e;
        double p = strtod(colon + 1, &e);
        if (*e || !(p >= 0 && p <= 1)) return rfail(err, errlen, "probability 0..1 expected: %s", spec);
        z.threshold = p >= 1 ? UINT64_MAX : (uint64_t)(p * 18446744073709551616.0);
    }
    rw_fuzz *nz = grow(rw->fuzz, &rw->capfuzz, rw->nfuzz, sizeof *rw->fuzz);
    if (!nz) return rfail(err, errlen, "out of memory%s", NULL);
    rw->fuzz = nz;
    rw->fuzz[rw->nfuzz++] = z;
    return 0;
}

void ub_rw_loop(ub_rw *rw, unsigned loop)
{
    if (loop >= 1 && rw->loop == 0) { /* freeze the per-loop span of every flow seen in loop 0 */
        rw_flows *fs[2] = { &rw->fpsn, &rw->ftassn };
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; fs[k]->t && i < fs[k]->cap; i++)
                if (fs[k]->t[i].key) fs[k]->t[i].span = fs[k]->t[i].maxd + 1;
    }
    rw->loop = loop;
}

bool ub_rw_has_edits(const ub_rw *rw);
bool ub_rw_has_edits(const ub_rw *rw)
{
    /* unique_per_loop learns every flow's span in the first loop: packets are decoded from the start */
    return rw->nsets || rw->nmaps || rw->nfuzz || rw->renum_psn || rw->renum_tassn || rw->c.unique_per_loop;
}

void ub_rw_get_stats(const ub_rw *rw, ub_rw_stats *st) { *st = rw->st; }

/* ---------------------------------------------------------------- edits */
static bool val_eq(const ub_val *a, const ub_val *b)
{
    if (a->bytes || b->bytes)
        return a->bytes && b->bytes && a->nbytes == b->nbytes && memcmp(a->bytes, b->bytes, a->nbytes) == 0;
    return a->u == b->u;
}

/* write v into field f of layer l (inside w); returns 1 if the value changed, 0 same, -1 failed */
static int put(uint8_t *w, uint32_t wlen, const ub_layer *l, const ub_field *f, const ub_val *v)
{
    long off = rw_off(l, w, wlen);
    if (off < 0) return -1;
    ub_val old;
    if (ub_field_value(l, f, &old) < 0) return -1;
    uint8_t save[64];
    ub_val oc = old;
    if (old.bytes && old.nbytes <= sizeof save) { memcpy(save, old.bytes, old.nbytes); oc.bytes = save; }
    if (ub_field_write(w + off, l->len, f, v) < 0) return -1;
    ub_val now;
    ub_field_value(l, f, &now);
    return val_eq(&oc, &now) ? 0 : 1;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 0x100000001B3ull; }
    return h;
}

/* hash of one endpoint address of the packet (NTH CNA or IP), src when which == 0 */
static uint64_t addr_hash(const ub_rw *rw, const ub_view *v, int which, uint64_t h)
{
    ub_val a;
    if (rw_fh_get(which ? &rw->h_dcna : &rw->h_scna, v, &a) == 0) return fnv(h, &a.u, sizeof a.u);
    if (rw_fh_get(which ? &rw->h_ip4d : &rw->h_ip4s, v, &a) == 0 ||
        rw_fh_get(which ? &rw->h_ip6d : &rw->h_ip6s, v, &a) == 0)
        return fnv(h, a.bytes, a.nbytes);
    return fnv(h, "?", 1);
}

static rw_flow *flow_get(ub_rw *rw, rw_flows *f, uint64_t key, uint32_t value, uint32_t mask, int mode, uint32_t base)
{
    if (!key) key = 1;
    uint32_t i = (uint32_t)(key ^ (key >> 32)) & (f->cap - 1);
    for (;; i = (i + 1) & (f->cap - 1)) {
        rw_flow *e = &f->t[i];
        if (e->key == key) return e;
        if (e->key) continue;
        if (f->used >= rw->c.max_flows) { rw->st.flows_full++; return NULL; }
        f->used++;
        e->key = key;
        e->first = value;
        uint64_t s = rw->c.seed ^ key;
        e->base = mode == 2 ? (uint32_t)rw_splitmix(&s) & mask : mode == 3 ? value : base & mask;
        return e;
    }
}

static uint32_t renum(ub_rw *rw, rw_flow *e, uint32_t value, uint32_t mask)
{
    uint32_t d = (value - e->first) & mask;
    if (rw->loop == 0 && d <= (mask >> 1) && d > e->maxd) e->maxd = d;
    uint64_t loop_off = rw->c.unique_per_loop ? (uint64_t)rw->loop * e->span : 0;
    return (uint32_t)((e->base + d + loop_off) & mask);
}

static unsigned edit_psn(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen)
{
    ub_val op, psn;
    int li = -1;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl && li < 0; i++)
        if (rw_fh_row(&rw->h_psn, &v->layer[i])) li = (int)i;
    if (li < 0) return 0;
    const ub_layer *t = &v->layer[li];
    if (ub_field_value(t, rw_fh_row(&rw->h_tpop, t), &op) < 0 || ub_field_value(t, rw_fh_row(&rw->h_psn, t), &psn) < 0)
        return 0;
    bool data = op.u == 0x1, ack = op.u == 0x2 || op.u == 0x3 || op.u == 0x5 || op.u == 0x6;
    if (!data && !ack) return 0;
    ub_val st, dt;
    if (rw_fh_get(&rw->h_srctpn, v, &st) < 0 || rw_fh_get(&rw->h_dsttpn, v, &dt) < 0) return 0;
    /* acks carry PSNs of the data flow in the other direction: key them by that flow */
    uint64_t h = fnv(0xCBF29CE484222325ull, "P", 1);
    h = addr_hash(rw, v, ack ? 1 : 0, h);
    h = addr_hash(rw, v, ack ? 0 : 1, h);
    uint64_t a = ack ? dt.u : st.u, b = ack ? st.u : dt.u;
    h = fnv(fnv(h, &a, sizeof a), &b, sizeof b);
    const uint32_t mask = 0xFFFFFF;
    rw_flow *e = flow_get(rw, &rw->fpsn, h, (uint32_t)psn.u, mask, rw->renum_psn ? rw->renum_psn : 3, rw->psn_base);
    if (!e) return 0;
    unsigned changed = 0;
    ub_val nv = { .u = renum(rw, e, (uint32_t)psn.u, mask) };
    if (put(w, wlen, t, rw_fh_row(&rw->h_psn, t), &nv) > 0) changed = 1;
    for (unsigned i = (unsigned)li + 1; i < nl; i++) { /* TPSACK MaxRcvPSN: same flow, same transform */
        const ub_field *f = rw_fh_row(&rw->h_maxrcv, &v->layer[i]);
        ub_val mv;
        if (f && ub_field_value(&v->layer[i], f, &mv) == 0) {
            uint32_t d = ((uint32_t)mv.u - e->first) & mask;
            ub_val m2 = { .u = (e->base + d + (rw->c.unique_per_loop ? (uint64_t)rw->loop * e->span : 0)) & mask };
            if (put(w, wlen, &v->layer[i], f, &m2) > 0) changed = 1;
        }
    }
    rw->st.psn_renumbered += changed;
    return changed;
}

static unsigned edit_tassn(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        const ub_field *f = rw_fh_row(&rw->h_tassn_b, l);
        bool rsp = false;
        if (!f) { f = rw_fh_row(&rw->h_tassn_a, l); rsp = f != NULL; }
        if (!f) continue;
        ub_val tv;
        if (ub_field_value(l, f, &tv) < 0) return 0;
        /* a response carries the TASSN of its request: key both by (initiator, target) */
        uint64_t h = fnv(0xCBF29CE484222325ull, "T", 1);
        h = addr_hash(rw, v, rsp ? 1 : 0, h);
        h = addr_hash(rw, v, rsp ? 0 : 1, h);
        uint32_t mask = f->bits >= 32 ? 0xFFFFFFFFu : (1u << f->bits) - 1;
        rw_flow *e = flow_get(rw, &rw->ftassn, h, (uint32_t)tv.u, mask, rw->renum_tassn ? rw->renum_tassn : 3,
                              rw->tassn_base);
        if (!e) return 0;
        ub_val nv = { .u = renum(rw, e, (uint32_t)tv.u, mask) };
        unsigned changed = put(w, wlen, l, f, &nv) > 0;
        rw->st.tassn_renumbered += changed;
        return changed;
    }
    return 0;
}

static bool map_match(const rw_map *m, const ub_field *f, const ub_val *v)
{
    if (f->type == UB_FT_UINT) return m->from.is_int && m->from.u == v->u;
    return !m->from.is_int && v->bytes && v->nbytes == m->from.nb && memcmp(v->bytes, m->from.b, m->from.nb) == 0;
}

static unsigned edit_maps(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers, changed = 0;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        for (unsigned k = 0; k < RW_MAP__COUNT; k++) {
            for (unsigned j = 0; j < rw->nmaph[k]; j++) {
                const ub_field *f = rw_fh_row(&rw->maph[k][j], l);
                ub_val cur;
                if (!f || ub_field_value(l, f, &cur) < 0) continue;
                for (unsigned m = 0; m < rw->nmaps; m++) {
                    const rw_map *mp = &rw->maps[m];
                    if (mp->kind != k || !map_match(mp, f, &cur)) continue;
                    ub_val nv = { .u = mp->to.u };
                    if (!mp->to.is_int) { nv.bytes = mp->to.b; nv.nbytes = mp->to.nb; }
                    if (put(w, wlen, l, f, &nv) > 0) { rw->st.mapped[k]++; changed = 1; }
                    break;
                }
            }
        }
    }
    return changed;
}

static unsigned edit_sets(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers, changed = 0;
    for (unsigned s = 0; s < rw->nsets; s++) {
        for (unsigned i = 0; i < nl; i++) {
            const ub_layer *l = &v->layer[i];
            const ub_field *f = rw_fh_row(&rw->sets[s].fh, l);
            if (!f) continue;
            ub_val nv;
            uint8_t buf[64];
            if (ub_field_parse(f, rw->sets[s].text, &nv, buf, sizeof buf) < 0) continue;
            if (put(w, wlen, l, f, &nv) > 0) { rw->st.fields_set++; changed = 1; }
        }
    }
    return changed;
}

static unsigned edit_fuzz(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers, changed = 0;
    for (unsigned z = 0; z < rw->nfuzz; z++) {
        for (unsigned i = 0; i < nl; i++) {
            const ub_layer *l = &v->layer[i];
            const ub_field *f = rw_fh_row(&rw->fuzz[z].fh, l);
            ub_val cur;
            if (!f || ub_field_value(l, f, &cur) < 0) continue;
            if (rw->fuzz[z].threshold != UINT64_MAX && rw_splitmix(&rw->rng) >= rw->fuzz[z].threshold) continue;
            ub_val nv;
            memset(&nv, 0, sizeof nv);
            uint8_t buf[256];
            if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) {
                uint64_t r = rw_splitmix(&rw->rng);
                unsigned bits = f->bits + ((f->flags & UB_FF_X64) ? 6 : 0);
                nv.u = bits >= 64 ? r : r & ((1ull << bits) - 1);
                if (f->flags & UB_FF_X64) nv.u &= ~0x3Full;
            } else {
                uint32_t n = cur.nbytes > sizeof buf ? (uint32_t)sizeof buf : cur.nbytes;
                for (uint32_t b = 0; b < n; b++) buf[b] = (uint8_t)rw_splitmix(&rw->rng);
                nv.bytes = buf;
                nv.nbytes = n;
                if (n < cur.nbytes) continue;
            }
            if (put(w, wlen, l, f, &nv) > 0) { rw->st.fuzzed++; changed = 1; }
        }
    }
    return changed;
}

uint32_t rw_edit(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen)
{
    uint32_t fl = 0;
    /* each edit reads the layers of the one decode: edits change values, never the layout */
    if (rw->nsets && edit_sets(rw, v, w, wlen)) fl |= UB_RWF_MODIFIED;
    if (rw->nmaps && edit_maps(rw, v, w, wlen)) fl |= UB_RWF_MODIFIED;
    if ((rw->renum_psn || rw->c.unique_per_loop) && rw->fpsn.t && edit_psn(rw, v, w, wlen)) fl |= UB_RWF_MODIFIED;
    if ((rw->renum_tassn || rw->c.unique_per_loop) && rw->ftassn.t && edit_tassn(rw, v, w, wlen)) fl |= UB_RWF_MODIFIED;
    if (rw->nfuzz && edit_fuzz(rw, v, w, wlen)) fl |= UB_RWF_MODIFIED | UB_RWF_FUZZED;
    return fl;
}

bool rw_view_bad(const ub_view *v)
{
    if (v->kind == UB_KIND_NONE || v->kind == UB_KIND_OTHER) return true;
    for (unsigned i = 0; i < v->nerrs && i < UB_MAX_ERRS; i++) {
        const ub_err_info *e = ub_err_get(v->err[i].code);
        if (v->err[i].code == UB_E_LINKTYPE) return true;
        if (e && e->group == UB_EG_MALFORMED && e->severity == UB_SEV_ERROR) return true;
    }
    return false;
}
