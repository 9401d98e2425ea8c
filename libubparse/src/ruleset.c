/* Rule sets: the built-in catalogue (rules.h, ub_rule_get) plus rules registered at run time (Lua
 * ub.rule{...}, scenario expectations). Built-in rules keep their indexes; added rules follow and are
 * allocated one by one, so a pointer from ub_ruleset_get() stays valid while rules are added. */
#include "ubparse/audit.h"

#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#define RULESET_MAX 65535u /* ub_finding.rule is 16 bits */
#define RULE_ID_MAX 64u

struct ub_ruleset {
    ub_rule **added;
    unsigned n, cap;
};

ub_ruleset *ub_ruleset_new(void) { return calloc(1, sizeof(ub_ruleset)); }

static void rule_free(ub_rule *r)
{
    if (!r) return;
    free((char *)r->id);
    free((char *)r->layer);
    free((char *)r->spec);
    free((char *)r->title);
    free((char *)r->evidence);
    free(r);
}

void ub_ruleset_free(ub_ruleset *rs)
{
    if (!rs) return;
    for (unsigned i = 0; i < rs->n; i++) rule_free(rs->added[i]);
    free(rs->added);
    free(rs);
}

unsigned ub_ruleset_count(const ub_ruleset *rs) { return ub_rule_count() + (rs ? rs->n : 0); }

const ub_rule *ub_ruleset_get(const ub_ruleset *rs, unsigned idx)
{
    unsigned nb = ub_rule_count();
    if (idx < nb) return ub_rule_get(idx);
    if (!rs || idx - nb >= rs->n) return NULL;
    return rs->added[idx - nb];
}

const ub_rule *ub_ruleset_find(const ub_ruleset *rs, const char *id)
{
    if (!id) return NULL;
    const ub_rule *r = ub_rule_by_id(id);
    if (r) return r;
    for (unsigned i = 0; rs && i < rs->n; i++)
        if (strcmp(rs->added[i]->id, id) == 0) return rs->added[i];
    return NULL;
}

static char *dup_or(const char *s, const char *dflt)
{
    const char *v = s && *s ? s : dflt;
    size_t n = strlen(v) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, v, n);
    return d;
}

static int fail(char *err, size_t errlen, const char *msg, const char *id)
{
    if (err && errlen) snprintf(err, errlen, msg, id ? id : "");
    return -1;
}

int ub_ruleset_add(ub_ruleset *rs, const ub_rule *r, char *err, size_t errlen)
{
    if (!rs || !r) return fail(err, errlen, "no rule set or rule%s", NULL);
    const char *id = r->id;
    if (!id || !*id) return fail(err, errlen, "rule id is empty%s", NULL);
    size_t len = strlen(id);
    if (len > RULE_ID_MAX) return fail(err, errlen, "rule id '%.64s...' is longer than 64 characters", id);
    for (const char *p = id; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return fail(err, errlen, "rule id '%s': only letters, digits, '_', '.' and '-' are allowed", id);
    }
    if (ub_ruleset_find(rs, id)) return fail(err, errlen, "rule id '%s' is already defined", id);
    if (r->severity > UB_SEV_ERROR) return fail(err, errlen, "rule '%s': severity must be note, warning or error", id);
    if (ub_ruleset_count(rs) >= RULESET_MAX) return fail(err, errlen, "rule '%s': too many rules", id);
    if (rs->n == rs->cap) {
        unsigned nc = rs->cap ? rs->cap * 2 : 16;
        ub_rule **na = realloc(rs->added, nc * sizeof *na);
        if (!na) return fail(err, errlen, "rule '%s': out of memory", id);
        rs->added = na;
        rs->cap = nc;
    }
    ub_rule *c = calloc(1, sizeof *c);
    if (!c) return fail(err, errlen, "rule '%s': out of memory", id);
    c->idx = (uint16_t)ub_ruleset_count(rs);
    c->severity = r->severity;
    c->id = dup_or(id, "");
    c->layer = dup_or(r->layer, "script");
    c->spec = dup_or(r->spec, "");
    c->title = dup_or(r->title, id);
    c->evidence = dup_or(r->evidence, "");
    if (!c->id || !c->layer || !c->spec || !c->title || !c->evidence) {
        rule_free(c);
        return fail(err, errlen, "rule '%s': out of memory", id);
    }
    rs->added[rs->n++] = c;
    return c->idx;
}
