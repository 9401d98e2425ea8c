/* Finding collector: exact counts per rule and severity, plus the first K findings of each rule in a
 * deterministic order — (frame, rule, emitting packet, engine class, emission order) — so that sharded
 * runs (several engines, merged) keep exactly the examples one engine keeps. Kept findings own copies
 * of their strings (detail, key, message, source file): a script's strings may not outlive the call. */
#include "audit_int.h"
#include "ubparse/audit.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t pkt, seq;
    uint8_t phase;
    char *strs; /* one allocation holding the copied strings of the kept finding */
} ckey;

typedef struct {
    uint64_t count[3];
    ub_finding *ex; /* [K], report order */
    ckey *key;      /* [K] */
    uint32_t nex;
} cgroup;

struct ub_collect {
    const ub_ruleset *rs;
    unsigned K;
    cgroup *g;
    unsigned ng;
    uint64_t dropped; /* findings of a rule index the rule set does not know */
};

ub_collect *ub_collect_new(const ub_ruleset *rs, unsigned examples)
{
    ub_collect *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->rs = rs;
    c->K = examples;
    c->ng = ub_rule_count();
    c->g = calloc(c->ng ? c->ng : 1, sizeof *c->g);
    if (!c->g) {
        free(c);
        return NULL;
    }
    return c;
}

void ub_collect_free(ub_collect *c)
{
    if (!c) return;
    for (unsigned r = 0; r < c->ng; r++) {
        cgroup *g = &c->g[r];
        for (uint32_t i = 0; i < g->nex; i++) free(g->key[i].strs);
        free(g->ex);
        free(g->key);
    }
    free(c->g);
    free(c);
}

/* the group of rule r, growing the table for rules added to the rule set after creation */
static cgroup *group(ub_collect *c, unsigned r)
{
    if (r < c->ng) return &c->g[r];
    if (r >= ub_ruleset_count(c->rs)) return NULL;
    unsigned n = ub_ruleset_count(c->rs);
    cgroup *ng = realloc(c->g, n * sizeof *ng);
    if (!ng) return NULL;
    memset(ng + c->ng, 0, (n - c->ng) * sizeof *ng);
    c->g = ng;
    c->ng = n;
    return &c->g[r];
}

static int key_cmp(const ub_finding *fa, const ckey *a, const ub_finding *fb, const ckey *b)
{
    if (fa->frame != fb->frame) return fa->frame < fb->frame ? -1 : 1;
    if (fa->rule != fb->rule) return fa->rule < fb->rule ? -1 : 1;
    if (a->pkt != b->pkt) return a->pkt < b->pkt ? -1 : 1;
    if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

/* copy the finding's strings into one allocation; false when out of memory */
static bool own_strings(ub_finding *f, ckey *k)
{
    const char **s[4] = { &f->detail, &f->key, &f->message, &f->src_uri };
    size_t len[4], total = 0;
    for (int i = 0; i < 4; i++) {
        len[i] = *s[i] ? strlen(*s[i]) + 1 : 0;
        total += len[i];
    }
    k->strs = NULL;
    if (!total) return true;
    char *p = malloc(total);
    if (!p) return false;
    k->strs = p;
    for (int i = 0; i < 4; i++) {
        if (!len[i]) continue;
        memcpy(p, *s[i], len[i]);
        *s[i] = p;
        p += len[i];
    }
    return true;
}

static void add_keyed(ub_collect *c, const ub_finding *f, const ckey *kin, bool count)
{
    cgroup *g = group(c, f->rule);
    if (!g) {
        c->dropped++;
        return;
    }
    if (count) g->count[f->severity > 2 ? 2 : f->severity]++;
    if (c->K == 0 || (g->nex == c->K && key_cmp(f, kin, &g->ex[g->nex - 1], &g->key[g->nex - 1]) >= 0)) return;
    if (!g->ex) {
        g->ex = malloc(c->K * sizeof *g->ex);
        g->key = malloc(c->K * sizeof *g->key);
        if (!g->ex || !g->key) {
            free(g->ex);
            free(g->key);
            g->ex = NULL;
            g->key = NULL;
            return;
        }
    }
    ub_finding nf = *f;
    ckey nk = *kin;
    if (!own_strings(&nf, &nk)) return;
    if (nf.severity > 2) nf.severity = 2;
    uint32_t i;
    if (g->nex == c->K) { /* the last one is displaced */
        free(g->key[c->K - 1].strs);
        i = c->K - 1;
    } else {
        i = g->nex++;
    }
    while (i > 0 && key_cmp(&nf, &nk, &g->ex[i - 1], &g->key[i - 1]) < 0) {
        g->ex[i] = g->ex[i - 1];
        g->key[i] = g->key[i - 1];
        i--;
    }
    g->ex[i] = nf;
    g->key[i] = nk;
}

void ub_collect_add(ub_collect *c, const ub_finding *f, uint64_t pkt_seq, uint8_t phase, uint64_t seq)
{
    if (!c || !f) return;
    ckey k = { pkt_seq, seq, phase, NULL };
    if (f->rule < c->ng) { /* a finding only counted reads rule, severity and frame: nothing is copied */
        cgroup *g = &c->g[f->rule];
        if (c->K == 0 || (g->nex == c->K && key_cmp(f, &k, &g->ex[g->nex - 1], &g->key[g->nex - 1]) >= 0)) {
            g->count[f->severity > 2 ? 2 : f->severity]++;
            return;
        }
    }
    add_keyed(c, f, &k, true);
}

void ub_collect_count_only(ub_collect *c, unsigned rule, unsigned sev)
{
    if (c && rule < c->ng) c->g[rule].count[sev > 2 ? 2 : sev]++;
}

uint64_t ub_collect_keep_bound(const ub_collect *c, unsigned rule)
{
    if (!c || rule >= c->ng) return UINT64_MAX;
    if (c->K == 0) return 0;
    const cgroup *g = &c->g[rule];
    return g->nex < c->K ? UINT64_MAX : g->ex[g->nex - 1].frame; /* key_cmp: the frame first */
}

bool ub_collect_would_keep(const ub_collect *c, unsigned rule, uint64_t frame, uint64_t pkt_seq, uint8_t phase,
                           uint64_t seq)
{
    if (!c) return false;
    if (rule >= c->ng) return true; /* a rule added later: add_keyed decides */
    const cgroup *g = &c->g[rule];
    if (c->K == 0) return false;
    if (g->nex < c->K) return true;
    ub_finding f;
    f.frame = frame;
    f.rule = (uint16_t)rule;
    ckey k = { pkt_seq, seq, phase, NULL };
    return key_cmp(&f, &k, &g->ex[g->nex - 1], &g->key[g->nex - 1]) < 0;
}

int ub_collect_merge(ub_collect *dst, const ub_collect *src)
{
    if (!dst || !src) return -1;
    for (unsigned r = 0; r < src->ng; r++) {
        const cgroup *g = &src->g[r];
        if (!g->count[0] && !g->count[1] && !g->count[2]) continue;
        cgroup *d = group(dst, r);
        if (!d) {
            dst->dropped += g->count[0] + g->count[1] + g->count[2];
            continue;
        }
        for (uint32_t i = 0; i < g->nex; i++) add_keyed(dst, &g->ex[i], &g->key[i], false);
        d = &dst->g[r]; /* (the table does not move in add_keyed: the group exists) */
        for (int k = 0; k < 3; k++) d->count[k] += g->count[k];
    }
    dst->dropped += src->dropped;
    return 0;
}

uint64_t ub_collect_count(const ub_collect *c, unsigned rule, unsigned sev)
{
    if (!c || rule >= c->ng || sev > 2) return 0;
    return c->g[rule].count[sev];
}

uint64_t ub_collect_rule_total(const ub_collect *c, unsigned rule)
{
    if (!c || rule >= c->ng) return 0;
    const cgroup *g = &c->g[rule];
    return g->count[0] + g->count[1] + g->count[2];
}

const ub_finding *ub_collect_examples(const ub_collect *c, unsigned rule, unsigned *n)
{
    if (n) *n = 0;
    if (!c || rule >= c->ng) return NULL;
    if (n) *n = c->g[rule].nex;
    return c->g[rule].ex;
}

const ub_ruleset *ub_collect_ruleset(const ub_collect *c) { return c ? c->rs : NULL; }
unsigned ub_collect_examples_max(const ub_collect *c) { return c ? c->K : 0; }
uint64_t ub_collect_dropped(const ub_collect *c) { return c ? c->dropped : 0; }
