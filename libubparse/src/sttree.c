/* -z ub,tree: the plugin's stats tree "UnifiedBus/Packet counts" (dissector/packet-ub-analysis.c,
 * ub_stats_init / ub_stats_packet) with Wireshark 4.0's stats_tree arithmetic (epan/stats_tree.c:
 * counters, rate per ms over the tapped span, percent of the parent, burst rate over a 100 ms window
 * in 5 ms buckets — the preference defaults) and its plain-text layout (stats_tree_format_as_str).
 * Nodes are created on their first tick, as tshark's; one allocation per node array growth. */
#include "internal.h"
#include "fh.h"
#include "ubparse/iostat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BURST_RES 5.0    /* ms, prefs.st_burst_resolution */
#define BURST_WIN 100.0  /* ms, prefs.st_burst_windowlen */
#define NBUCKET 32       /* > BURST_WIN / BURST_RES + 1: the live window never needs more */
#define NAME_MAX_ 96

typedef struct bucket {
    double no, start;
    int count;
} bucket;

typedef struct stnode {
    char name[NAME_MAX_];
    int parent;        /* index, -1: the root child */
    unsigned counter;
    size_t seq;
    bucket b[NBUCKET]; /* the burst window, oldest first (stats_tree.c's bh..bt list) */
    unsigned nb;
    int bcount, max_burst;
    double burst_time;
} stnode;

enum { P_PKTS, P_CFG, P_TAOP_REQ, P_TAOP_RSP, P_TPOP, P_DLLCB, P_MGMT, P__N };
static const char *const pivot_name[P__N] = { "UB packets", "CFG", "TAOpcode (requests, BTAH)",
                                              "TAOpcode (responses, ATAH)", "TPOpcode", "DLLCB type",
                                              "Management Code (MGMTETAH)" };

/* -z ub,tree,FILTER: a frame's ticks wait until the filter has seen all its views */
typedef struct stick { int64_t rel_ns; int pivot; char name[NAME_MAX_]; } stick; /* pivot -1: a view's start */

struct ub_sttree {
    ub_filter *f;
    ub_filter_acc *acc;
    stick *st;
    size_t nst, capst;
    stnode *n;
    size_t nn, cap;
    bool oom, any;
    double start, now; /* ms since the first frame: the first and the latest tapped view */
    fh taop_b, taop_a, tpop, mgcode;
};

static void node_init(stnode *x, const char *name, int parent, size_t seq)
{
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->parent = parent;
    x->seq = seq;
    x->nb = 1; /* stats_tree.c starts every list with a zeroed bucket */
    x->burst_time = -1.0;
}

ub_sttree *ub_sttree_new(void)
{
    ub_sttree *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->cap = 64;
    if (!(t->n = malloc(t->cap * sizeof *t->n))) {
        free(t);
        return NULL;
    }
    for (int i = 0; i < P__N; i++) node_init(&t->n[i], pivot_name[i], i ? P_PKTS : -1, (size_t)i);
    t->nn = P__N;
    fh_init(&t->taop_b, "ub.btah.taopcode");
    fh_init(&t->taop_a, "ub.atah.taopcode");
    fh_init_tpop(&t->tpop);
    fh_init(&t->mgcode, "ub.mgmtetah.code");
    return t;
}

void ub_sttree_free(ub_sttree *t)
{
    if (!t) return;
    ub_filter_free(t->f);
    ub_filter_acc_free(t->acc);
    free(t->st);
    free(t->n);
    free(t);
}

/* stats_tree.c update_burst_calc() */
static void burst(stnode *x, double now)
{
    double cur = floor(now / BURST_RES), win = BURST_WIN / BURST_RES;
    bucket *b = x->b;
    if (cur > b[x->nb - 1].no) {
        if (x->nb == NBUCKET) return; /* cannot happen: the window is trimmed below */
        b[x->nb++] = (bucket){ cur, now, 1 };
        x->bcount += 1;
        while (cur >= b[0].no + win) {
            x->bcount -= b[0].count;
            memmove(b, b + 1, (x->nb - 1) * sizeof *b);
            x->nb--;
        }
    } else if (cur < b[0].no) {
        if (cur + win > b[x->nb - 1].no && x->nb < NBUCKET) {
            memmove(b + 1, b, x->nb * sizeof *b);
            b[0] = (bucket){ cur, now, 1 };
            x->nb++;
            x->bcount += 1;
        }
    } else {
        unsigned i = x->nb - 1;
        while (cur < b[i].no) i--;
        if (cur == b[i].no) {
            b[i].count += 1;
            if (b[i].start > now) b[i].start = now;
        } else if (x->nb < NBUCKET) {
            memmove(b + i + 2, b + i + 1, (x->nb - i - 1) * sizeof *b);
            b[i + 1] = (bucket){ cur, now, 1 };
            x->nb++;
        }
        x->bcount += 1;
    }
    if (x->bcount > x->max_burst) {
        x->max_burst = x->bcount;
        x->burst_time = b[0].start;
    }
}

static void tick(ub_sttree *t, size_t i)
{
    t->n[i].counter++;
    burst(&t->n[i], t->now);
}

/* stats_tree_tick_pivot(): the pivot and its child named name (created on first use) */
static void tick_pivot(ub_sttree *t, int pivot, const char *name)
{
    tick(t, (size_t)pivot);
    size_t i;
    for (i = P__N; i < t->nn; i++)
        if (t->n[i].parent == pivot && strcmp(t->n[i].name, name) == 0) break;
    if (i == t->nn) {
        if (t->nn == t->cap) {
            stnode *n = realloc(t->n, t->cap * 2 * sizeof *n);
            if (!n) { t->oom = true; return; }
            t->n = n;
            t->cap *= 2;
        }
        node_init(&t->n[t->nn], name, pivot, t->nn);
        t->nn++;
    }
    tick(t, i);
}

static void tick_val(ub_sttree_tick_fn fn, void *ctx, unsigned pivot, const ub_vname *vals, uint64_t v, bool hex)
{
    const char *nm = vals ? ub_vname_lookup(vals, v) : NULL;
    char b[NAME_MAX_];
    if (hex) snprintf(b, sizeof b, "0x%02x %s", (unsigned)v, nm ? nm : "");
    else snprintf(b, sizeof b, "%u %s", (unsigned)v, nm ? nm : "");
    size_t n = strlen(b);
    while (n && (b[n - 1] == ' ' || b[n - 1] == '\t')) b[--n] = 0; /* g_strchomp */
    fn(ctx, pivot, b);
}

const char *ub_sttree_pivot_name(unsigned pivot) { return pivot < P__N ? pivot_name[pivot] : NULL; }

void ub_sttree_ticks(const ub_sttree *t, const ub_view *v, ub_sttree_tick_fn fn, void *ctx)
{
    char b[32];
    if (v->cfg >= 0 && v->cfg <= 15) snprintf(b, sizeof b, "CFG %d", v->cfg);
    else snprintf(b, sizeof b, "unknown");
    fn(ctx, P_CFG, b);
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr) continue;
        unsigned id = l->hdr->id;
        ub_val val;
        if (id == UB_H_BTAH || id == UB_H_BTAH_C || id == UB_H_BTAH_ALT) {
            if (fh_get(&t->taop_b, l, &val) == 0) tick_val(fn, ctx, P_TAOP_REQ, fh_vals_for(&t->taop_b, l), val.u & 0xFF, true);
        } else if (id == UB_H_ATAH || id == UB_H_ATAH_C) {
            if (fh_get(&t->taop_a, l, &val) == 0) tick_val(fn, ctx, P_TAOP_RSP, fh_vals_for(&t->taop_a, l), val.u & 0xFF, true);
        } else if (id == UB_H_RTPH || id == UB_H_UTPH || id == UB_H_CTPH) {
            if (fh_get(&t->tpop, l, &val) == 0) tick_val(fn, ctx, P_TPOP, fh_vals_for(&t->tpop, l), val.u & 0xFF, true);
        } else if (id == UB_H_MGMTETAH) {
            const ub_vname *vn = NULL;
            for (size_t k = 0; k < t->mgcode.n && !vn; k++) vn = t->mgcode.f[k] ? t->mgcode.f[k]->vals : NULL;
            if (fh_get(&t->mgcode, l, &val) == 0) tick_val(fn, ctx, P_MGMT, vn, val.u & 7, false);
        } else if (id >= UB_H_DLLCB_NULL && id <= UB_H_DLLCB_RSVD) {
            fn(ctx, P_DLLCB, l->hdr->name ? l->hdr->name : l->hdr->key);
        }
    }
}

static void tick_cb(void *ctx, unsigned pivot, const char *name) { tick_pivot(ctx, (int)pivot, name); }

static void view_start(ub_sttree *t, int64_t rel_ns)
{
    /* nstime_to_msec() of the time since the first frame */
    int64_t s = rel_ns / 1000000000, ns = rel_ns % 1000000000;
    t->now = (double)s * 1000 + (double)ns / 1000000;
    if (!t->any) t->start = t->now;
    t->any = true;
    tick(t, P_PKTS);
}

void ub_sttree_view(ub_sttree *t, const ub_view *v, int64_t rel_ns)
{
    if (!t || !v || !ub_view_ub(v)) return;
    view_start(t, rel_ns);
    ub_sttree_ticks(t, v, tick_cb, t);
}

ub_sttree *ub_sttree_new_filtered(const char *expr, char *err, size_t errlen)
{
    ub_sttree *t = ub_sttree_new();
    if (!t || !(t->f = ub_filter_compile(expr, err, errlen)) || !(t->acc = ub_filter_acc_new(t->f))) {
        if (!t || t->f) snprintf(err, errlen, "out of memory");
        ub_sttree_free(t);
        return NULL;
    }
    return t;
}

bool ub_sttree_uses_analysis(const ub_sttree *t) { return t && ub_filter_uses_analysis(t->f); }
bool ub_sttree_uses_frame(const ub_sttree *t) { return t && ub_filter_uses_frame(t->f); }

static void stage(ub_sttree *t, int64_t rel_ns, int pivot, const char *name)
{
    if (!ub_grow((void **)&t->st, &t->capst, t->nst, sizeof *t->st)) { t->oom = true; return; }
    stick *x = &t->st[t->nst++];
    x->rel_ns = rel_ns;
    x->pivot = pivot;
    snprintf(x->name, sizeof x->name, "%s", name);
}
static void stage_cb(void *ctx, unsigned pivot, const char *name)
{
    ub_sttree *t = ctx;
    stage(t, t->nst ? t->st[t->nst - 1].rel_ns : 0, (int)pivot, name);
}

void ub_sttree_view_pkt(ub_sttree *t, const ub_view *v, const ub_filter_pkt *pk, int64_t rel_ns)
{
    if (!t || !t->f) { ub_sttree_view(t, v, rel_ns); return; }
    if (!v || !ub_view_ub(v)) return;
    ub_filter_acc_add(t->acc, v, pk);
    stage(t, rel_ns, -1, "");
    ub_sttree_ticks(t, v, stage_cb, t);
}

void ub_sttree_frame(ub_sttree *t, const ub_filter_pkt *pk)
{
    if (!t || !t->f) return;
    if (t->nst && ub_filter_acc_match(t->acc, pk))
        for (size_t i = 0; i < t->nst; i++) {
            if (t->st[i].pivot < 0) view_start(t, t->st[i].rel_ns);
            else tick_pivot(t, t->st[i].pivot, t->st[i].name);
        }
    t->nst = 0;
    ub_filter_acc_reset(t->acc);
}

/* stats_tree_sort_compare() for the default sort: count, descending, ties by name (case-sensitive) */
static int cmp_node(const void *x, const void *y)
{
    const stnode *a = *(const stnode *const *)x, *b = *(const stnode *const *)y;
    int r = a->counter != b->counter ? (a->counter < b->counter ? -1 : 1) : strcmp(a->name, b->name);
    if (!r) r = a->seq < b->seq ? 1 : a->seq > b->seq ? -1 : 0;
    return -r;
}

static void print_node(const ub_sttree *t, size_t i, unsigned indent, int maxlen, FILE *o)
{
    const stnode *x = &t->n[i];
    double elapsed = t->now - t->start;
    char rate[32] = "", pct[32] = "", br[32] = "-", bt[32] = "-";
    if (elapsed != 0) snprintf(rate, sizeof rate, "%.4f", (double)(float)x->counter / elapsed);
    if (x->parent < 0) snprintf(pct, sizeof pct, "100%%");
    else if (t->n[x->parent].counter) snprintf(pct, sizeof pct, "%.2f%%", x->counter * 100.0 / t->n[x->parent].counter);
    if (x->max_burst) {
        snprintf(br, sizeof br, "%.4f", (double)x->max_burst / BURST_WIN);
        snprintf(bt, sizeof bt, "%.3f", x->burst_time / 1000.0);
    }
    fprintf(o, "%*s%-*s", (int)indent, "", maxlen - (int)indent, x->name);
    fprintf(o, " %-13u %-13s %-13s %-13s %-13s %-13s %-13s %-13s\n", x->counter, "", "", "", rate, pct, br, bt);
}

/* the children of node p (sorted), depth first */
static void print_children(const ub_sttree *t, int p, unsigned indent, int maxlen, FILE *o, const stnode **idx)
{
    size_t k = 0;
    for (size_t i = 0; i < t->nn; i++)
        if (t->n[i].parent == p) idx[k++] = &t->n[i];
    qsort(idx, k, sizeof *idx, cmp_node);
    for (size_t j = 0; j < k; j++) {
        size_t i = (size_t)(idx[j] - t->n);
        print_node(t, i, indent, maxlen, o);
        print_children(t, (int)i, indent + 1, maxlen, o, idx + k);
    }
}

void ub_sttree_print(const ub_sttree *t, FILE *o)
{
    if (!t) return;
    /* stats_tree_branch_max_namelen(): the root ("Packet counts") and each node at its depth + 1 */
    int maxlen = (int)strlen("Packet counts");
    for (size_t i = 0; i < t->nn; i++) {
        int d = 1;
        for (int p = t->n[i].parent; p >= 0; p = t->n[p].parent) d++;
        int len = (int)strlen(t->n[i].name) + d;
        if (len > maxlen) maxlen = len;
    }
    static const char *const col[] = { "Count", "Average", "Min Val", "Max Val", "Rate (ms)", "Percent",
                                       "Burst Rate", "Burst Start" };
    int seplen = maxlen + 8 * 14;
    char sep[512];
    if (seplen >= (int)sizeof sep) seplen = (int)sizeof sep - 1;
    memset(sep, '=', (size_t)seplen);
    sep[seplen] = 0;
    fprintf(o, "\n%s\nUnifiedBus/Packet counts:\n%-*s", sep, maxlen, "Topic / Item");
    for (int c = 0; c < 8; c++) fprintf(o, " %-13s", col[c]);
    memset(sep, '-', (size_t)seplen);
    fprintf(o, "\n%s\n", sep);
    const stnode **idx = malloc((t->nn + 1) * sizeof *idx); /* the children of each level on the path */
    if (idx) print_children(t, -1, 0, maxlen, o, idx);
    free(idx);
    fprintf(o, "\n%s\n", sep);
}
