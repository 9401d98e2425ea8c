/* ub.analysis.* for display filters outside Wireshark (filter.h ub_fan_scan): one pass of the
 * state engine over a capture collects, per frame, what the plugin's analysis shows
 * (dissector/packet-ub-analysis.c): TP channel index, TP sequence flags and expected PSN,
 * request/response and data/ack pairs with latency, findings (rule, severity, related frames).
 * The whole capture is analysed before filtering, as `tshark -2`: a request knows its response.
 * Memory: a few words per frame plus the matches and findings. */
#include "internal.h"
#include "filter_int.h"

#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/expert.h"
#include "ubparse/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fan_m { uint64_t frame; size_t seq; ub_fan_match m; } fan_m;
typedef struct fan_f { uint64_t frame; size_t seq; uint32_t seen; uint16_t rule; uint8_t sev, grp, nrel; uint32_t rel[UB_FINDING_FRAMES]; } fan_f;

#define CH_KEY 44
typedef struct chslot { uint8_t len; uint8_t key[CH_KEY]; uint32_t idx; } chslot;

struct ub_fan_table {
    ub_fan *fr;              /* [nfr] by frame - 1 */
    uint64_t nfr, capfr;
    fan_m *m;
    size_t nm, capm;
    fan_f *f;
    size_t nf, capf;
    ub_fan_match *marr;      /* final arrays */
    uint16_t *rarr;
    uint8_t *sarr, *garr;
    uint32_t *relarr, *fsarr;
    uint8_t *fnarr;
    uint32_t cur;            /* the frame being read (UINT32_MAX: the end), ub_fan_match.seen */
    chslot *ch;              /* TP channels: open addressing */
    size_t capch, nch;
    struct { const ub_hdr *h; const ub_field *f[2]; } rk[16]; /* ch_rows */
    unsigned nrk;
    bool oom;
};

static ub_fan *fr_get(ub_fan_table *t, uint64_t frame)
{
    if (!frame || frame > UINT32_MAX) return NULL;
    if (frame > t->capfr) {
        uint64_t nc = t->capfr ? t->capfr : 1024;
        while (nc < frame) nc *= 2;
        ub_fan *n = realloc(t->fr, nc * sizeof *n);
        if (!n) { t->oom = true; return NULL; }
        memset(n + t->capfr, 0, (nc - t->capfr) * sizeof *n);
        t->fr = n;
        t->capfr = nc;
    }
    if (frame > t->nfr) t->nfr = frame;
    return &t->fr[frame - 1];
}


static void on_match(void *ctx, const ub_match *m)
{
    ub_fan_table *t = ctx;
    if (!m->req_frame || !m->rsp_frame || m->req_frame > UINT32_MAX || m->rsp_frame > UINT32_MAX) return;
    if (!ub_grow((void **)&t->m, &t->capm, t->nm + 1, sizeof *t->m)) { t->oom = true; return; }
    t->m[t->nm] = (fan_m){ m->req_frame, t->nm, { (uint32_t)m->rsp_frame, m->kind, 0, m->latency_ns, t->cur } };
    t->nm++;
    if (!ub_grow((void **)&t->m, &t->capm, t->nm + 1, sizeof *t->m)) { t->oom = true; return; }
    t->m[t->nm] = (fan_m){ m->rsp_frame, t->nm, { (uint32_t)m->req_frame, m->kind, 1, m->latency_ns, t->cur } };
    t->nm++;
}

static void on_finding(void *ctx, const ub_finding *f)
{
    ub_fan_table *t = ctx;
    if (!f->frame || f->frame > UINT32_MAX || !ub_rule_get(f->rule)) return;
    if (!ub_grow((void **)&t->f, &t->capf, t->nf + 1, sizeof *t->f)) { t->oom = true; return; }
    fan_f *x = &t->f[t->nf++];
    memset(x, 0, sizeof *x);
    x->frame = f->frame;
    x->rule = f->rule;
    x->seq = t->nf - 1; /* the engine's order within a frame (the plugin's) */
    x->seen = t->cur;
    x->sev = f->severity <= UB_SEV_ERROR ? f->severity : UB_SEV_ERROR;
    x->grp = (uint8_t)ub_finding_group(f);
    for (unsigned i = 0; i < f->nframes && i < UB_FINDING_FRAMES; i++)
        if (f->frames[i] && f->frames[i] <= UINT32_MAX) x->rel[x->nrel++] = (uint32_t)f->frames[i];
}

static void on_note(void *ctx, const ub_pkt_note *n)
{
    ub_fan *a = fr_get(ctx, n->frame);
    if (!a) return;
    a->tp_flags |= n->tp_flags;
    a->expected_psn = n->expected_psn;
}

/* one end of a TP channel: address kind, address bytes, TPN (the plugin's an_channel) */
static unsigned ep_put(uint8_t *o, unsigned kind, const ub_val *a, const ub_field *f, uint32_t tpn)
{
    unsigned n = 0;
    o[n++] = (uint8_t)kind;
    if (f->type == UB_FT_UINT) {
        unsigned nb = (f->bits + 7) / 8;
        if (nb > 8) nb = 8;
        o[n++] = (uint8_t)nb;
        for (unsigned k = 0; k < nb; k++) o[n++] = (uint8_t)(a->u >> (8 * (nb - 1 - k)));
    } else {
        unsigned nb = a->nbytes > 16 ? 16 : a->nbytes;
        o[n++] = (uint8_t)nb;
        if (a->bytes) memcpy(o + n, a->bytes, nb);
        n += nb;
    }
    o[n++] = (uint8_t)(tpn >> 16);
    o[n++] = (uint8_t)(tpn >> 8);
    o[n++] = (uint8_t)tpn;
    return n;
}

/* the rows a channel is keyed on, per table (format variants are tables of their own): the first row of
 * each name, looked up once per table the capture shows instead of by name on every packet */
static const char *const ch_names[3][2] = { { "ub.nth.scna", "ub.nth.dcna" }, { "ub.ipv4.src", "ub.ipv4.dst" },
                                            { "ub.ipv6.src", "ub.ipv6.dst" } };
static const char *const ch_tpn[2] = { "ub.rtph.srctpn", "ub.rtph.dsttpn" };

static const ub_field *row_named(const ub_hdr *h, const char *name)
{
    for (unsigned i = 0; i < h->nfields; i++)
        if (strcmp(h->fields[i].abbrev, name) == 0) return &h->fields[i];
    return NULL;
}

static const ub_field *const *ch_rows(ub_fan_table *t, const ub_hdr *h, const char *const names[2])
{
    unsigned i = 0;
    while (i < t->nrk && t->rk[i].h != h) i++;
    if (i == t->nrk) {
        if (i == sizeof t->rk / sizeof t->rk[0]) i = 0; /* full (never with today's tables): reuse */
        else t->nrk++;
        t->rk[i].h = h;
        for (unsigned k = 0; k < 2; k++) t->rk[i].f[k] = row_named(h, names[k]);
    }
    return t->rk[i].f;
}

static bool field_of(const ub_layer *l, const ub_field *f, ub_val *v)
{
    return f && ub_field_value(l, f, v) == 0;
}

static uint32_t channel(ub_fan_table *t, const ub_view *v)
{
    const ub_layer *nth = NULL, *ip = NULL, *rtph = NULL;
    bool tph = false;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr) continue;
        switch (l->hdr->id) {
        case UB_H_NTH16: case UB_H_NTH24: if (!nth) nth = l; break;
        case UB_H_IPV4: case UB_H_IPV6: if (!ip) ip = l; break;
        case UB_H_RTPH: if (!tph) rtph = l; tph = true; break;
        case UB_H_UTPH: case UB_H_CTPH: tph = true; break;
        default: break;
        }
    }
    if (!rtph) return 0;
    const ub_layer *al = nth ? nth : ip;
    if (!al) return 0;
    const ub_field *const *an = ch_rows(t, al->hdr, ch_names[nth ? 0 : al->hdr->id == UB_H_IPV4 ? 1 : 2]);
    const ub_field *fs = an[0], *fd = an[1], *const *tn = ch_rows(t, rtph->hdr, ch_tpn);
    ub_val s, d, st, dt;
    if (!field_of(al, fs, &s) || !field_of(al, fd, &d) || !field_of(rtph, tn[0], &st) || !field_of(rtph, tn[1], &dt))
        return 0;
    unsigned kind = nth ? 1 : al->hdr->id == UB_H_IPV4 ? 4 : 6;
    uint8_t e1[22], e2[22], key[CH_KEY];
    unsigned n1 = ep_put(e1, kind, &s, fs, (uint32_t)st.u), n2 = ep_put(e2, kind, &d, fd, (uint32_t)dt.u);
    int c = memcmp(e1, e2, n1 < n2 ? n1 : n2);
    if (c == 0) c = (int)n1 - (int)n2;
    memset(key, 0, sizeof key);
    if (c <= 0) { memcpy(key, e1, n1); memcpy(key + n1, e2, n2); }
    else { memcpy(key, e2, n2); memcpy(key + n2, e1, n1); }
    unsigned len = n1 + n2;
    if (2 * (t->nch + 1) > t->capch) {
        size_t nc = t->capch ? t->capch * 2 : 64;
        chslot *n = calloc(nc, sizeof *n);
        if (!n) { t->oom = true; return 0; }
        for (size_t i = 0; i < t->capch; i++) {
            if (!t->ch[i].idx) continue;
            uint32_t h = 2166136261u;
            for (unsigned k = 0; k < t->ch[i].len; k++) h = (h ^ t->ch[i].key[k]) * 16777619u;
            size_t j = h & (nc - 1);
            while (n[j].idx) j = (j + 1) & (nc - 1);
            n[j] = t->ch[i];
        }
        free(t->ch);
        t->ch = n;
        t->capch = nc;
    }
    uint32_t h = 2166136261u;
    for (unsigned k = 0; k < len; k++) h = (h ^ key[k]) * 16777619u;
    size_t j = h & (t->capch - 1);
    while (t->ch[j].idx) {
        if (t->ch[j].len == len && memcmp(t->ch[j].key, key, len) == 0) return t->ch[j].idx;
        j = (j + 1) & (t->capch - 1);
    }
    t->ch[j].len = (uint8_t)len;
    memcpy(t->ch[j].key, key, len);
    t->ch[j].idx = (uint32_t)++t->nch;
    return t->ch[j].idx;
}

typedef struct scan {
    ub_fan_table *t;
    ub_state *st;
    const ub_opts *o;
    ub_view *v;
} scan;

bool ub_fan_engine_unit(ub_state *st, ub_view *v, const ub_opts *o, const ub_rec *r, const uint8_t *unit, uint32_t len,
                        ub_entry entry, unsigned flags)
{
    uint32_t wire = ub_unit_wire(r, unit, len);
    ub_decode_wire(v, o, entry, unit, len, wire);
    ub_unit_errors(v, flags, len);
    if (!ub_view_ub(v)) return false;
    ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
    ub_state_packet(st, v, &pi);
    return true;
}

static void scan_unit(void *ctx, const ub_rec *r, const uint8_t *unit, uint32_t len, ub_entry entry, unsigned flags)
{
    scan *s = ctx;
    s->t->cur = r->frame < UINT32_MAX ? (uint32_t)r->frame : UINT32_MAX - 1;
    if (!ub_fan_engine_unit(s->st, s->v, s->o, r, unit, len, entry, flags) || (flags & UB_UNIT_PARTIAL)) return;
    uint32_t c = channel(s->t, s->v);
    ub_fan *a = c ? fr_get(s->t, r->frame) : NULL;
    if (a && !a->tp_channel) a->tp_channel = c;
}

/* ub.stream.* of a raw flit-stream record; continued_in: the frame completing the unit open at the
 * end, kept at the frame where that unit started until finalize */
static void stream_rec(ub_fan_table *t, const ub_units *u, uint64_t frame)
{
    ub_units_rinfo ri;
    if (!ub_units_rec_info(u, frame, &ri)) return;
    ub_fan *a = fr_get(t, frame);
    if (!a) return;
    a->st_units = ri.units;
    a->st_started_in = ri.started_in != frame ? ri.started_in : 0;
    a->st_open = ri.tail_open;
    a->st_open_bytes = ri.open_bytes;
    a->st_open_since = ri.open_since;
    if (ri.units && ri.started_in) {
        ub_fan *s = fr_get(t, ri.started_in);
        if (s && !s->st_continued_in) s->st_continued_in = (uint32_t)frame;
    }
}

static int cmp_m(const void *x, const void *y)
{
    const fan_m *a = x, *b = y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq; /* the engine's order within a frame (the plugin's) */
}
static int cmp_f(const void *x, const void *y)
{
    const fan_f *a = x, *b = y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* sort the collected pairs and findings by frame and point each frame at its slice */
static bool finalize(ub_fan_table *t)
{
    if (t->nm) qsort(t->m, t->nm, sizeof *t->m, cmp_m);
    if (t->nf) qsort(t->f, t->nf, sizeof *t->f, cmp_f);
    for (uint64_t i = 0; i < t->nfr; i++) { /* continued_in: the completion kept at the unit's first frame */
        ub_fan *a = &t->fr[i];
        if (a->st_open && a->st_open_since && a->st_open_since != i + 1 && a->st_open_since <= t->nfr)
            a->st_continued_in = t->fr[a->st_open_since - 1].st_continued_in;
        else if (!a->st_open)
            a->st_continued_in = 0;
    }
    size_t nrel = 0;
    for (size_t i = 0; i < t->nf; i++) nrel += t->f[i].nrel;
    t->marr = malloc((t->nm ? t->nm : 1) * sizeof *t->marr);
    t->rarr = malloc((t->nf ? t->nf : 1) * sizeof *t->rarr);
    t->sarr = malloc(t->nf ? t->nf : 1);
    t->garr = malloc(t->nf ? t->nf : 1);
    t->relarr = malloc((nrel ? nrel : 1) * sizeof *t->relarr);
    t->fsarr = malloc((t->nf ? t->nf : 1) * sizeof *t->fsarr);
    t->fnarr = malloc(t->nf ? t->nf : 1);
    if (!t->marr || !t->rarr || !t->sarr || !t->garr || !t->relarr || !t->fsarr || !t->fnarr) return false;
    for (size_t i = 0; i < t->nm;) {
        ub_fan *a = fr_get(t, t->m[i].frame);
        if (!a) return false;
        a->match = &t->marr[i];
        size_t j = i;
        for (; j < t->nm && t->m[j].frame == t->m[i].frame && j - i < UINT16_MAX; j++) t->marr[j] = t->m[j].m;
        a->nmatch = (uint16_t)(j - i);
        i = j;
    }
    size_t ro = 0;
    for (size_t i = 0; i < t->nf;) {
        ub_fan *a = fr_get(t, t->f[i].frame);
        if (!a) return false;
        a->rule = &t->rarr[i];
        a->sev = &t->sarr[i];
        a->grp = &t->garr[i];
        a->rel = &t->relarr[ro];
        a->fseen = &t->fsarr[i];
        a->fnrel = &t->fnarr[i];
        size_t j = i;
        for (; j < t->nf && t->f[j].frame == t->f[i].frame && j - i < UINT16_MAX; j++) {
            t->rarr[j] = t->f[j].rule;
            t->sarr[j] = t->f[j].sev;
            t->garr[j] = t->f[j].grp;
            t->fsarr[j] = t->f[j].seen;
            t->fnarr[j] = t->f[j].nrel;
            for (unsigned k = 0; k < t->f[j].nrel && a->nrel < UINT16_MAX; k++) t->relarr[ro++] = t->f[j].rel[k], a->nrel++;
        }
        a->nfind = (uint16_t)(j - i);
        i = j;
    }
    return true;
}

ub_fan_table *ub_fan_scan(const char *path, const ub_opts *o, const ub_state_cfg *cfg, char *err, size_t errlen)
{
    ub_capfile *cf = ub_cap_open(path, err, errlen);
    if (!cf) return NULL;
    ub_fan_table *t = calloc(1, sizeof *t);
    scan s = { t, NULL, o, calloc(1, sizeof(ub_view)) };
    ub_state_cfg c;
    if (cfg) c = *cfg;
    else ub_state_cfg_default(&c);
    ub_units *u = ub_units_new(o, 0);
    bool ok = t && s.v && u && (s.st = ub_state_new(&c, on_finding, t)) != NULL;
    if (ok) {
        ub_state_set_match_cb(s.st, on_match, t);
        ub_state_set_note_cb(s.st, on_note, t);
        ub_rec r;
        int rc;
        while ((rc = ub_cap_next(cf, &r)) == 1 && !t->oom) {
            ub_units_record(u, &r, scan_unit, &s);
            stream_rec(t, u, r.frame);
        }
        ub_units_flush(u, scan_unit, &s);
        t->cur = UINT32_MAX; /* what the end of the capture judges: no frame of a one-pass read shows it */
        ub_state_finish(s.st);
        if (rc < 0 && errlen) snprintf(err, errlen, "%s", ub_cap_error(cf)); /* the records before it stand */
        if (ok && (t->oom || !finalize(t))) {
            snprintf(err, errlen, "out of memory analysing the capture");
            ok = false;
        }
    } else if (errlen) {
        snprintf(err, errlen, "out of memory");
    }
    if (s.st) ub_state_free(s.st);
    ub_units_free(u);
    free(s.v);
    ub_cap_close(cf);
    if (!ok) {
        ub_fan_free(t);
        return NULL;
    }
    return t;
}

ub_filter_pkt ub_fpkt_next(ub_fpkt_seq *seq, const ub_capfile *cf, const ub_rec *r, const ub_fan_table *fan)
{
    if (!seq->started) seq->t0 = seq->prev = r->ts_ns, seq->started = true;
    ub_filter_pkt pk = { r->frame, r->origlen, r->caplen, true, r->ts_ns, seq->t0, seq->prev, ub_cap_is_pcapng(cf),
                         r->ifindex, r->dir, ub_fan_get(fan, r->frame), r->data, r->caplen, 0, NULL, NULL };
    pk.ncomments = ub_cap_comments(cf, &pk.comment, &pk.comment_len); /* frame.comment */
    seq->prev = r->ts_ns;
    return pk;
}

const ub_fan *ub_fan_get(const ub_fan_table *t, uint64_t frame)
{
    if (!t || !frame || frame > t->nfr) return NULL;
    return &t->fr[frame - 1];
}

void ub_fan_free(ub_fan_table *t)
{
    if (!t) return;
    free(t->fr);
    free(t->m);
    free(t->f);
    free(t->marr);
    free(t->rarr);
    free(t->sarr);
    free(t->garr);
    free(t->relarr);
    free(t->fsarr);
    free(t->fnarr);
    free(t->ch);
    free(t);
}
