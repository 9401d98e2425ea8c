/* Test helper: run the state engine over a capture file (or over records built in memory) and
 * collect its findings as "RULE-ID@FRAME" strings, in emission order. */
#ifndef UB_AUDIT_UTIL_H
#define UB_AUDIT_UTIL_H

#include "ubparse/capfile.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct au_findings {
    unsigned n;
    char item[4096][48];
    ub_finding f[4096];
} au_findings;

static void au_cb(void *ctx, const ub_finding *f)
{
    au_findings *a = (au_findings *)ctx;
    if (a->n >= 4096) return;
    const ub_rule *r = ub_rule_get(f->rule);
    snprintf(a->item[a->n], sizeof a->item[0], "%s@%llu", r ? r->id : "?", (unsigned long long)f->frame);
    a->f[a->n] = *f;
    a->n++;
}

/* does the list contain RULE@FRAME (frame 0 = any frame)? */
static inline int au_has(const au_findings *a, const char *rule, unsigned long long frame)
{
    char want[48];
    snprintf(want, sizeof want, "%s@%llu", rule, frame);
    for (unsigned i = 0; i < a->n; i++) {
        if (frame == 0 ? strncmp(a->item[i], rule, strlen(rule)) == 0 && a->item[i][strlen(rule)] == '@'
                       : strcmp(a->item[i], want) == 0)
            return 1;
    }
    return 0;
}
static inline unsigned au_count(const au_findings *a, const char *rule)
{
    unsigned c = 0;
    size_t l = strlen(rule);
    for (unsigned i = 0; i < a->n; i++)
        if (strncmp(a->item[i], rule, l) == 0 && a->item[i][l] == '@') c++;
    return c;
}
static inline void au_dump(const au_findings *a, const char *title)
{
    fprintf(stderr, "%s: %u findings:", title, a->n);
    for (unsigned i = 0; i < a->n; i++) fprintf(stderr, " %s", a->item[i]);
    fputc('\n', stderr);
}

typedef struct { ub_state *st; ub_view *v; const ub_opts *o; const ub_rec *r; } au_ctx;
static void au_unit(void *ctx, const uint8_t *u, uint32_t n, uint32_t flags)
{
    au_ctx *c = (au_ctx *)ctx;
    (void)flags;
    ub_decode(c->v, c->o, UB_ENTRY_FLIT, u, n);
    ub_pktinfo pi = { c->r->frame, c->r->ts_ns, c->r->ifindex, c->r->dir };
    ub_state_packet(c->st, c->v, &pi);
}

/* Audit a capture file with options o and engine configuration cfg (NULL = defaults). 0 on success. */
static inline int au_run_file(const char *path, const ub_opts *o, const ub_state_cfg *cfg, au_findings *out)
{
    char err[256];
    memset(out, 0, sizeof *out);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    if (!cf) { fprintf(stderr, "%s: %s\n", path, err); return -1; }
    ub_state_cfg c;
    if (cfg) c = *cfg; else ub_state_cfg_default(&c);
    ub_state *st = ub_state_new(&c, au_cb, out);
    ub_view *v = (ub_view *)calloc(1, sizeof *v);
    static ub_stream streams[4];
    for (int i = 0; i < 4; i++) ub_stream_init(&streams[i], o);
    ub_rec r;
    au_ctx ctx = { st, v, o, &r };
    while (ub_cap_next(cf, &r) == 1) {
        ub_entry e = ub_entry_for_linktype(o, r.linktype);
        if (e == UB_ENTRY_STREAM) {
            ub_stream_feed(&streams[(r.ifindex & 1) * 2 + (r.dir == UB_DIR_IN)], r.data, r.caplen, au_unit, &ctx);
            continue;
        }
        ub_decode(v, o, e, r.data, r.caplen);
        ub_pktinfo pi = { r.frame, r.ts_ns, r.ifindex, r.dir };
        ub_state_packet(st, v, &pi);
    }
    ub_state_finish(st);
    ub_state_free(st);
    free(v);
    ub_cap_close(cf);
    return 0;
}

#endif
