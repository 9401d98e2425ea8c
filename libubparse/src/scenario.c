/* Text scenarios (runner.h): the builder's language with @send/@expect/@wait/@repeat/@set/@check/@log,
 * parsed once (every builder block and filter is checked with its variables set to 0, errors at
 * FILE:LINE) and interpreted on the runner. */
#include "runner_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

enum { S_SEND, S_EXPECT, S_WAIT, S_REPEAT, S_END, S_SET, S_CHECK, S_LOG };

#define MAX_CAPT 8
#define MAX_VARS 256

typedef struct stmt {
    uint8_t kind;
    uint32_t line;
    char *text;          /* SEND builder text, EXPECT filter, SET/CHECK/REPEAT expression, LOG text */
    char *aux;           /* SET/REPEAT variable name, CHECK message */
    /* SEND */
    uint8_t fault;
    uint32_t corrupt_off;
    uint8_t corrupt_xor;
    unsigned reorder;
    uint64_t at, after;
    bool has_at, has_after;
    char *count;         /* expression */
    /* EXPECT / WAIT */
    uint64_t within, at_ns, ns;
    int64_t tol;
    double tolpct;
    bool none;
    char *label;
    unsigned ncap;
    char *cap_name[MAX_CAPT], *cap_field[MAX_CAPT];
    /* REPEAT: index of the matching END (and END: of its REPEAT) */
    unsigned match;
    /* SEND: file line of each line of the builder block (errors of the builder name them) */
    uint32_t *blines;
    unsigned nblines;
} stmt;

struct ub_scenario {
    char *uri;
    ub_opts o;
    stmt *s;
    unsigned n, cap;
    /* @scenario */
    char entry[16];
    uint64_t within, tol, grace;
    double tolpct;
    bool has_within, has_tol, has_tolpct, has_grace, keep_going, has_auto_ack, auto_ack;
    /* variables */
    char *vname[MAX_VARS];
    uint64_t vval[MAX_VARS];
    unsigned nv;
};

/* ---------------------------------------------------------------- variables and expressions */
static int var_find(const ub_scenario *s, const char *n, size_t len)
{
    for (unsigned i = 0; i < s->nv; i++)
        if (strlen(s->vname[i]) == len && strncmp(s->vname[i], n, len) == 0) return (int)i;
    return -1;
}

int ub_scenario_set_var(ub_scenario *s, const char *name, uint64_t v)
{
    int i = var_find(s, name, strlen(name));
    if (i < 0) {
        if (s->nv >= MAX_VARS) return -1;
        s->vname[s->nv] = strdup(name);
        if (!s->vname[s->nv]) return -1;
        i = (int)s->nv++;
    }
    s->vval[i] = v;
    return 0;
}

typedef struct ev {
    const ub_scenario *s;
    const char *p;
    bool zero_vars;      /* parse-time check: every variable is 0 */
    char err[160];
} ev;

static void skipws(ev *e) { while (*e->p == ' ' || *e->p == '\t') e->p++; }
static bool eat(ev *e, const char *tok)
{
    skipws(e);
    size_t n = strlen(tok);
    if (strncmp(e->p, tok, n) != 0) return false;
    /* '<' must not eat "<<" or "<=", '&' not "&&", ... */
    if (n == 1 && (e->p[1] == tok[0] || e->p[1] == '=') && strchr("<>&|=!", tok[0])) return false;
    e->p += n;
    return true;
}

static uint64_t ex_lor(ev *e);
static uint64_t ex_primary(ev *e)
{
    skipws(e);
    if (*e->p == '(' || (e->p[0] == '$' && e->p[1] == '{')) { /* ${...} is a parenthesis in expressions */
        bool brace = *e->p == '$';
        e->p += brace ? 2 : 1;
        uint64_t v = ex_lor(e);
        if (!eat(e, brace ? "}" : ")") && !e->err[0]) snprintf(e->err, sizeof e->err, "'%s' expected", brace ? "}" : ")");
        return v;
    }
    if (isdigit((unsigned char)*e->p)) {
        char *end;
        errno = 0;
        uint64_t v = strtoull(e->p, &end, 0);
        if (errno && !e->err[0]) snprintf(e->err, sizeof e->err, "number out of range");
        e->p = end;
        return v;
    }
    if (isalpha((unsigned char)*e->p) || *e->p == '_') {
        const char *b = e->p;
        while (isalnum((unsigned char)*e->p) || *e->p == '_') e->p++;
        if (e->zero_vars) return 0;
        int i = var_find(e->s, b, (size_t)(e->p - b));
        if (i < 0) {
            if (!e->err[0]) snprintf(e->err, sizeof e->err, "undefined variable %.*s", (int)(e->p - b), b);
            return 0;
        }
        return e->s->vval[i];
    }
    if (!e->err[0]) snprintf(e->err, sizeof e->err, "value expected at \"%.20s\"", e->p);
    return 0;
}
static uint64_t ex_unary(ev *e)
{
    if (eat(e, "-")) return (uint64_t)0 - ex_unary(e);
    if (eat(e, "~")) return ~ex_unary(e);
    if (eat(e, "!")) return !ex_unary(e);
    return ex_primary(e);
}
static uint64_t ex_mul(ev *e)
{
    uint64_t v = ex_unary(e);
    for (;;) {
        if (eat(e, "*")) v *= ex_unary(e);
        else if (eat(e, "/") || eat(e, "%")) {
            bool mod = e->p[-1] == '%';
            uint64_t d = ex_unary(e);
            if (!d) { if (!e->err[0] && !e->zero_vars) snprintf(e->err, sizeof e->err, "division by zero"); return 0; }
            v = mod ? v % d : v / d;
        } else return v;
    }
}
static uint64_t ex_add(ev *e)
{
    uint64_t v = ex_mul(e);
    for (;;) {
        if (eat(e, "+")) v += ex_mul(e);
        else if (eat(e, "-")) v -= ex_mul(e);
        else return v;
    }
}
static uint64_t ex_shift(ev *e)
{
    uint64_t v = ex_add(e);
    for (;;) {
        if (eat(e, "<<")) { uint64_t k = ex_add(e); v = k >= 64 ? 0 : v << k; }
        else if (eat(e, ">>")) { uint64_t k = ex_add(e); v = k >= 64 ? 0 : v >> k; }
        else return v;
    }
}
static uint64_t ex_rel(ev *e)
{
    uint64_t v = ex_shift(e);
    for (;;) {
        if (eat(e, "<=")) v = v <= ex_shift(e);
        else if (eat(e, ">=")) v = v >= ex_shift(e);
        else if (eat(e, "<")) v = v < ex_shift(e);
        else if (eat(e, ">")) v = v > ex_shift(e);
        else return v;
    }
}
static uint64_t ex_eq(ev *e)
{
    uint64_t v = ex_rel(e);
    for (;;) {
        if (eat(e, "==")) v = v == ex_rel(e);
        else if (eat(e, "!=")) v = v != ex_rel(e);
        else return v;
    }
}
static uint64_t ex_band(ev *e) { uint64_t v = ex_eq(e); while (eat(e, "&")) v &= ex_eq(e); return v; }
static uint64_t ex_bxor(ev *e) { uint64_t v = ex_band(e); while (eat(e, "^")) v ^= ex_band(e); return v; }
static uint64_t ex_bor(ev *e) { uint64_t v = ex_bxor(e); while (eat(e, "|")) v |= ex_bxor(e); return v; }
static uint64_t ex_land(ev *e)
{
    uint64_t v = ex_bor(e);
    while (eat(e, "&&")) { uint64_t w = ex_bor(e); v = v && w; }
    return v;
}
static uint64_t ex_lor(ev *e)
{
    uint64_t v = ex_land(e);
    while (eat(e, "||")) { uint64_t w = ex_land(e); v = v || w; }
    return v;
}

/* evaluate a whole expression: 0, or -1 with a message */
static int eval(const ub_scenario *s, const char *text, bool zero, uint64_t *out, char *err, size_t errlen)
{
    ev e = { s, text, zero, "" };
    *out = ex_lor(&e);
    skipws(&e);
    if (!e.err[0] && *e.p) snprintf(e.err, sizeof e.err, "unexpected \"%.20s\"", e.p);
    if (e.err[0]) { snprintf(err, errlen, "expression \"%s\": %s", text, e.err); return -1; }
    return 0;
}

/* ${EXPR} and ${EXPR:x} substituted (decimal / 0x hex); NULL with a message on error (caller frees) */
static char *subst(const ub_scenario *s, const char *text, bool zero, char *err, size_t errlen)
{
    size_t cap = strlen(text) + 64, n = 0;
    char *out = malloc(cap);
    if (!out) { snprintf(err, errlen, "out of memory"); return NULL; }
    for (const char *p = text; *p;) {
        if (p[0] == '$' && p[1] == '{') {
            const char *end = strchr(p + 2, '}');
            if (!end) { snprintf(err, errlen, "unterminated ${"); free(out); return NULL; }
            char expr[256];
            size_t el = (size_t)(end - p - 2);
            if (el >= sizeof expr) { snprintf(err, errlen, "expression too long"); free(out); return NULL; }
            memcpy(expr, p + 2, el);
            expr[el] = '\0';
            bool hex = el > 2 && strcmp(expr + el - 2, ":x") == 0;
            if (hex) expr[el - 2] = '\0';
            uint64_t v;
            if (eval(s, expr, zero, &v, err, errlen) < 0) { free(out); return NULL; }
            char num[32];
            int k = snprintf(num, sizeof num, hex ? "0x%llx" : "%llu", (unsigned long long)v);
            if (n + (size_t)k + 1 > cap) {
                cap = (cap + (size_t)k) * 2;
                char *no = realloc(out, cap);
                if (!no) { free(out); snprintf(err, errlen, "out of memory"); return NULL; }
                out = no;
            }
            memcpy(out + n, num, (size_t)k);
            n += (size_t)k;
            p = end + 1;
            continue;
        }
        if (n + 2 > cap) {
            cap *= 2;
            char *no = realloc(out, cap);
            if (!no) { free(out); snprintf(err, errlen, "out of memory"); return NULL; }
            out = no;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
    return out;
}

/* ---------------------------------------------------------------- parsing */
static const char *const entries[] = { "flit", "pkt", "stream", "sll", "sll2", "cfgph", "eth", "rawip", "tph", NULL };

/* Is the first line of a block an entry line ("eth", "flit icrc=be")? "eth" is also the Ethernet
 * header table: a line with field assignments is a header line. */
static bool starts_with_entry(const char *t)
{
    while (*t == ' ' || *t == '\t' || *t == '\n') t++;
    size_t ll = strcspn(t, "\n");
    char line[256];
    if (ll >= sizeof line) return false;
    memcpy(line, t, ll);
    line[ll] = '\0';
    char *save = NULL, *w = strtok_r(line, " \t", &save);
    bool is_entry = false;
    for (int i = 0; w && entries[i]; i++) is_entry |= strcmp(w, entries[i]) == 0;
    if (!is_entry) return false;
    while ((w = strtok_r(NULL, " \t", &save)))
        if (strncmp(w, "icrc=", 5) != 0 && strncmp(w, "bcrc=", 5) != 0 && strncmp(w, "error_flag=", 11) != 0) return false;
    return true;
}

static int perr(char *err, size_t errlen, const ub_scenario *s, uint32_t line, const char *fmt, const char *a)
{
    char m[400];
    snprintf(m, sizeof m, fmt, a ? a : "");
    snprintf(err, errlen, "%s:%u: %s", s->uri, line, m);
    return -1;
}

static stmt *add(ub_scenario *s, uint8_t kind, uint32_t line)
{
    if (s->n == s->cap) {
        unsigned nc = s->cap ? s->cap * 2 : 32;
        stmt *ns = realloc(s->s, nc * sizeof *ns);
        if (!ns) return NULL;
        s->s = ns;
        s->cap = nc;
    }
    stmt *t = &s->s[s->n++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->line = line;
    t->tol = -1;
    t->tolpct = -1;
    return t;
}

static int dur(const char *v, uint64_t *ns) { return ub_parse_duration(v, ns); }

/* "line N: message" of the builder -> the file line of that line of the block */
static uint32_t block_line(const stmt *t, const char *builder_err, bool entry_added, const char **msg)
{
    unsigned bl = 0;
    int off = 0;
    *msg = builder_err;
    if (sscanf(builder_err, "line %u: %n", &bl, &off) == 1 && off > 0) {
        *msg = builder_err + off;
        if (entry_added) bl = bl > 1 ? bl - 1 : 1;
        if (bl >= 1 && bl <= t->nblines) return t->blines[bl - 1];
        if (t->nblines) return t->blines[t->nblines - 1];
    }
    return t->line;
}

/* check a builder block: variables 0, the scenario's entry or (unknown) any of the common ones */
static int check_build(ub_scenario *s, const stmt *t, char *err, size_t errlen)
{
    char e2[256];
    char *txt = subst(s, t->text, true, e2, sizeof e2);
    if (!txt) return perr(err, errlen, s, t->line, "%s", e2);
    uint8_t *buf = malloc(70000);
    int rc = -1;
    if (!buf) { free(txt); return perr(err, errlen, s, t->line, "out of memory%s", NULL); }
    const char *try_entries[] = { s->entry[0] ? s->entry : "tph", "eth", "flit", "pkt", "cfgph" };
    unsigned ntry = starts_with_entry(txt) ? 1 : s->entry[0] ? 1 : 5;
    char first[256] = "";
    for (unsigned i = 0; i < ntry && rc < 0; i++) {
        size_t l = strlen(txt) + 32;
        char *full = malloc(l);
        if (!full) break;
        if (starts_with_entry(txt)) snprintf(full, l, "%s", txt);
        else snprintf(full, l, "%s\n%s", try_entries[i], txt);
        ub_entry en;
        if (ub_build_text(full, &s->o, buf, 70000, &en, e2, sizeof e2) >= 0) rc = 0;
        else if (!first[0]) snprintf(first, sizeof first, "%s", e2);
        free(full);
    }
    free(buf);
    free(txt);
    if (rc < 0) {
        const char *m;
        uint32_t ln = block_line(t, first, !starts_with_entry(t->text), &m);
        return perr(err, errlen, s, ln, "%s", m);
    }
    return 0;
}

static int check_filter(ub_scenario *s, const stmt *t, char *err, size_t errlen)
{
    char e2[256];
    char *f = subst(s, t->text, true, e2, sizeof e2);
    if (!f) return perr(err, errlen, s, t->line, "%s", e2);
    ub_filter *c = ub_filter_compile_live(f, e2, sizeof e2);
    free(f);
    if (!c) return perr(err, errlen, s, t->line, "filter: %s", e2);
    ub_filter_free(c);
    return 0;
}

static int parse_send_opts(ub_scenario *s, stmt *t, char *opts, char *err, size_t errlen)
{
    char *save = NULL;
    for (char *tok = strtok_r(opts, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (strncmp(tok, "fault=", 6) == 0) {
            char *v = tok + 6, *c1 = strchr(v, ':');
            if (c1) *c1++ = '\0';
            if (strcmp(v, "drop") == 0) t->fault = UB_FAULT_DROP;
            else if (strcmp(v, "dup") == 0) t->fault = UB_FAULT_DUP;
            else if (strcmp(v, "reorder") == 0) {
                t->fault = UB_FAULT_REORDER;
                t->reorder = c1 ? (unsigned)strtoul(c1, NULL, 0) : 1;
                if (!t->reorder) return perr(err, errlen, s, t->line, "reorder:N needs N >= 1%s", NULL);
            } else if (strcmp(v, "corrupt") == 0) {
                t->fault = UB_FAULT_CORRUPT;
                t->corrupt_off = UINT32_MAX;
                t->corrupt_xor = 0xFF;
                if (c1) {
                    char *c2 = strchr(c1, ':');
                    if (c2) *c2++ = '\0';
                    char *e;
                    unsigned long off = strtoul(c1, &e, 0);
                    if (*e || off > 65535) return perr(err, errlen, s, t->line, "corrupt:OFFSET[:MASK]: bad offset %s", c1);
                    t->corrupt_off = (uint32_t)off;
                    if (c2) {
                        unsigned long m = strtoul(c2, &e, 0);
                        if (*e || m == 0 || m > 255) return perr(err, errlen, s, t->line, "corrupt mask 1..255: %s", c2);
                        t->corrupt_xor = (uint8_t)m;
                    }
                }
            } else {
                return perr(err, errlen, s, t->line, "unknown fault %s (drop, corrupt[:OFF[:MASK]], reorder[:N], dup)", v);
            }
        } else if (strncmp(tok, "at=", 3) == 0) {
            if (dur(tok + 3, &t->at) < 0) return perr(err, errlen, s, t->line, "bad time %s", tok + 3);
            t->has_at = true;
        } else if (strncmp(tok, "after=", 6) == 0) {
            if (dur(tok + 6, &t->after) < 0) return perr(err, errlen, s, t->line, "bad time %s", tok + 6);
            t->has_after = true;
        } else if (strncmp(tok, "count=", 6) == 0) {
            t->count = strdup(tok + 6);
            uint64_t v;
            char e2[200];
            if (eval(s, t->count, true, &v, e2, sizeof e2) < 0) return perr(err, errlen, s, t->line, "%s", e2);
        } else {
            return perr(err, errlen, s, t->line, "unknown @send option %s (fault=, at=, after=, count=)", tok);
        }
    }
    return 0;
}

/* "@expect FILTER [within=T|at=T] [tol=T] [tolpct=P] [label=WORD] [capture N=FIELD ...]": options are
 * the trailing key=value words with known keys; the filter is what precedes them */
static int parse_expect(ub_scenario *s, stmt *t, char *rest, char *err, size_t errlen)
{
    char *cap = NULL;
    for (char *p = rest; (p = strstr(p, "capture")); p += 7) {
        bool wb = (p == rest || isspace((unsigned char)p[-1])) && (p[7] == ' ' || p[7] == '\t');
        if (wb) cap = p;
    }
    if (cap) {
        *cap = '\0';
        char *save = NULL;
        for (char *tok = strtok_r(cap + 8, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            char *eq = strchr(tok, '=');
            if (!eq || eq == tok || t->ncap >= MAX_CAPT)
                return perr(err, errlen, s, t->line, "capture NAME=FIELD expected: %s", tok);
            *eq = '\0';
            const ub_hdr *hh[4];
            const ub_field *ff[4];
            if (ub_field_find(eq + 1, hh, ff, 4) == 0 || !ff[0])
                return perr(err, errlen, s, t->line, "capture: unknown field %s", eq + 1);
            t->cap_name[t->ncap] = strdup(tok);
            t->cap_field[t->ncap] = strdup(eq + 1);
            t->ncap++;
        }
    }
    /* trailing options */
    for (;;) {
        size_t n = strlen(rest);
        while (n && isspace((unsigned char)rest[n - 1])) rest[--n] = '\0';
        char *w = rest + n;
        while (w > rest && !isspace((unsigned char)w[-1])) w--;
        char *eq = strchr(w, '=');
        if (!eq || w == rest) break;
        size_t kl = (size_t)(eq - w);
        const char *v = eq + 1;
        if (kl == 6 && strncmp(w, "within", 6) == 0) {
            if (dur(v, &t->within) < 0 || !t->within) return perr(err, errlen, s, t->line, "bad within= %s", v);
        } else if (kl == 2 && strncmp(w, "at", 2) == 0) {
            if (dur(v, &t->at_ns) < 0 || !t->at_ns) return perr(err, errlen, s, t->line, "bad at= %s", v);
        } else if (kl == 3 && strncmp(w, "tol", 3) == 0) {
            uint64_t ns;
            if (dur(v, &ns) < 0) return perr(err, errlen, s, t->line, "bad tol= %s", v);
            t->tol = (int64_t)ns;
        } else if (kl == 6 && strncmp(w, "tolpct", 6) == 0) {
            char *e;
            t->tolpct = strtod(v, &e);
            if (*e || t->tolpct < 0) return perr(err, errlen, s, t->line, "bad tolpct= %s", v);
        } else if (kl == 5 && strncmp(w, "label", 5) == 0) {
            t->label = strdup(v);
        } else {
            break; /* part of the filter (e.g. "a==1" written without spaces) */
        }
        *w = '\0';
    }
    if (t->within && t->at_ns) return perr(err, errlen, s, t->line, "within= and at= exclude each other%s", NULL);
    if (t->none && t->at_ns) return perr(err, errlen, s, t->line, "@expect-none takes within=, not at=%s", NULL);
    while (isspace((unsigned char)*rest)) rest++;
    if (!*rest) return perr(err, errlen, s, t->line, "@expect needs a display filter%s", NULL);
    t->text = strdup(rest);
    return check_filter(s, t, err, errlen);
}

static int parse_scenario_line(ub_scenario *s, uint32_t line, char *opts, char *err, size_t errlen)
{
    char *save = NULL;
    for (char *tok = strtok_r(opts, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) return perr(err, errlen, s, line, "@scenario KEY=VALUE expected: %s", tok);
        *eq++ = '\0';
        if (strcmp(tok, "entry") == 0) {
            bool ok = false;
            for (int i = 0; entries[i]; i++) ok |= strcmp(eq, entries[i]) == 0;
            if (!ok) return perr(err, errlen, s, line, "unknown entry %s", eq);
            snprintf(s->entry, sizeof s->entry, "%s", eq);
        } else if (strcmp(tok, "within") == 0) {
            if (dur(eq, &s->within) < 0 || !s->within) return perr(err, errlen, s, line, "bad within= %s", eq);
            s->has_within = true;
        } else if (strcmp(tok, "tol") == 0) {
            if (dur(eq, &s->tol) < 0) return perr(err, errlen, s, line, "bad tol= %s", eq);
            s->has_tol = true;
        } else if (strcmp(tok, "tolpct") == 0) {
            char *e;
            s->tolpct = strtod(eq, &e);
            if (*e || s->tolpct < 0) return perr(err, errlen, s, line, "bad tolpct= %s", eq);
            s->has_tolpct = true;
        } else if (strcmp(tok, "grace") == 0) {
            if (dur(eq, &s->grace) < 0) return perr(err, errlen, s, line, "bad grace= %s", eq);
            s->has_grace = true;
        } else if (strcmp(tok, "keep_going") == 0) {
            s->keep_going = strcmp(eq, "0") != 0;
        } else if (strcmp(tok, "auto_ack") == 0) {
            s->has_auto_ack = true;
            s->auto_ack = strcmp(eq, "0") != 0;
        } else {
            return perr(err, errlen, s, line, "unknown @scenario option %s", tok);
        }
    }
    return 0;
}

static bool is_name(const char *n)
{
    if (!isalpha((unsigned char)*n) && *n != '_') return false;
    for (; *n; n++)
        if (!isalnum((unsigned char)*n) && *n != '_') return false;
    return true;
}

ub_scenario *ub_scenario_parse(const char *text, const char *uri, const ub_opts *o, char *err, size_t errlen)
{
    ub_scenario *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
    s->uri = strdup(uri ? uri : "scenario");
    if (o) s->o = *o;
    else ub_opts_default(&s->o);
    unsigned stack[64], depth = 0;
    stmt *open_send = NULL;
    size_t blen = 0, bcap = 0;
    char *body = NULL;
    uint32_t line = 0;
    const char *p = text;
    int rc = 0;
    while (rc == 0 && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *l = malloc(n + 1);
        if (!l) { rc = perr(err, errlen, s, line, "out of memory%s", NULL); break; }
        memcpy(l, p, n);
        l[n] = '\0';
        p += n + (nl ? 1 : 0);
        line++;
        char *hash = strchr(l, '#');
        if (hash) *hash = '\0';
        char *t = l;
        while (isspace((unsigned char)*t)) t++;
        size_t tl = strlen(t);
        while (tl && isspace((unsigned char)t[tl - 1])) t[--tl] = '\0';
        if (!*t) { free(l); continue; }
        if (*t != '@') {
            if (!open_send) { rc = perr(err, errlen, s, line, "builder line outside @send: %s", t); free(l); break; }
            if (blen + tl + 2 > bcap) {
                bcap = (blen + tl + 2) * 2;
                char *nb = realloc(body, bcap);
                if (!nb) { free(l); rc = perr(err, errlen, s, line, "out of memory%s", NULL); break; }
                body = nb;
            }
            memcpy(body + blen, t, tl);
            blen += tl;
            body[blen++] = '\n';
            body[blen] = '\0';
            uint32_t *nbl = realloc(open_send->blines, (open_send->nblines + 1) * sizeof *nbl);
            if (!nbl) { free(l); rc = perr(err, errlen, s, line, "out of memory%s", NULL); break; }
            open_send->blines = nbl;
            open_send->blines[open_send->nblines++] = line;
            free(l);
            continue;
        }
        /* a directive closes the open @send block */
        if (open_send) {
            if (!body || !blen) { rc = perr(err, errlen, s, open_send->line, "@send without a packet description%s", NULL); free(l); break; }
            open_send->text = strdup(body);
            blen = 0;
            rc = check_build(s, open_send, err, errlen);
            open_send = NULL;
            if (rc) { free(l); break; }
        }
        char *sp = t;
        while (*sp && !isspace((unsigned char)*sp)) sp++;
        char *rest = sp;
        if (*sp) *rest++ = '\0';
        while (isspace((unsigned char)*rest)) rest++;
        stmt *st = NULL;
        bool need_st = true; /* the directive adds a statement (allocation checked below) */
        if (strcmp(t, "@send") == 0) {
            st = add(s, S_SEND, line);
            if (st) { rc = parse_send_opts(s, st, rest, err, errlen); open_send = st; }
        } else if (strcmp(t, "@expect") == 0 || strcmp(t, "@expect-none") == 0) {
            st = add(s, S_EXPECT, line);
            if (st) { st->none = t[7] == '-'; rc = parse_expect(s, st, rest, err, errlen); }
            if (!rc && st && st->none && !st->within) rc = perr(err, errlen, s, line, "@expect-none needs within=T%s", NULL);
        } else if (strcmp(t, "@wait") == 0) {
            st = add(s, S_WAIT, line);
            if (st && dur(rest, &st->ns) < 0) rc = perr(err, errlen, s, line, "@wait DURATION (e.g. 5ms): %s", rest);
        } else if (strcmp(t, "@repeat") == 0) {
            st = add(s, S_REPEAT, line);
            char cnt[256] = "", var[64] = "", extra[8];
            int k = sscanf(rest, "%255s %63s %7s", cnt, var, extra);
            uint64_t v;
            char e2[200];
            if (st && (k < 1 || k > 2)) rc = perr(err, errlen, s, line, "@repeat N [VAR]%s", NULL);
            else if (st && eval(s, cnt, true, &v, e2, sizeof e2) < 0) rc = perr(err, errlen, s, line, "%s", e2);
            else if (st && k == 2 && !is_name(var)) rc = perr(err, errlen, s, line, "bad variable name %s", var);
            else if (st) {
                st->text = strdup(cnt);
                st->aux = k == 2 ? strdup(var) : NULL;
                if (depth >= 64) rc = perr(err, errlen, s, line, "@repeat nested too deeply%s", NULL);
                else stack[depth++] = s->n - 1;
            }
        } else if (strcmp(t, "@end") == 0) {
            st = add(s, S_END, line);
            if (st && !depth) rc = perr(err, errlen, s, line, "@end without @repeat%s", NULL);
            else if (st) {
                unsigned rp = stack[--depth];
                s->s[rp].match = s->n - 1;
                st->match = rp;
            }
        } else if (strcmp(t, "@set") == 0) {
            st = add(s, S_SET, line);
            char *eq = strchr(rest, '=');
            if (st && (!eq || eq == rest)) rc = perr(err, errlen, s, line, "@set NAME=EXPR%s", NULL);
            else if (st) {
                *eq = '\0';
                char *nm = rest;
                size_t nl2 = strlen(nm);
                while (nl2 && isspace((unsigned char)nm[nl2 - 1])) nm[--nl2] = '\0';
                uint64_t v;
                char e2[200];
                if (!is_name(nm)) rc = perr(err, errlen, s, line, "bad variable name %s", nm);
                else if (eval(s, eq + 1, true, &v, e2, sizeof e2) < 0) rc = perr(err, errlen, s, line, "%s", e2);
                else { st->aux = strdup(nm); st->text = strdup(eq + 1); }
            }
        } else if (strcmp(t, "@check") == 0) {
            st = add(s, S_CHECK, line);
            /* EXPR up to a quoted or plain message: "@check psn == 5 the PSN" -> the first token run
             * that parses; simplest: message after " -- " */
            char *msg = strstr(rest, " -- ");
            if (msg) { *msg = '\0'; msg += 4; }
            uint64_t v;
            char e2[200];
            if (st && !*rest) rc = perr(err, errlen, s, line, "@check EXPR [-- MESSAGE]%s", NULL);
            else if (st && eval(s, rest, true, &v, e2, sizeof e2) < 0) rc = perr(err, errlen, s, line, "%s", e2);
            else if (st) { st->text = strdup(rest); st->aux = msg ? strdup(msg) : NULL; }
        } else if (strcmp(t, "@log") == 0) {
            st = add(s, S_LOG, line);
            if (st) st->text = strdup(rest);
        } else if (strcmp(t, "@scenario") == 0) {
            rc = parse_scenario_line(s, line, rest, err, errlen);
            need_st = false;
        } else {
            rc = perr(err, errlen, s, line, "unknown directive %s (@send @expect @expect-none @wait @repeat @end @set @check @log @scenario)", t);
            need_st = false;
        }
        if (need_st && !st && !rc) rc = perr(err, errlen, s, line, "out of memory%s", NULL);
        free(l);
    }
    if (rc == 0 && open_send) {
        if (!blen) rc = perr(err, errlen, s, open_send->line, "@send without a packet description%s", NULL);
        else {
            open_send->text = strdup(body);
            rc = check_build(s, open_send, err, errlen);
        }
    }
    if (rc == 0 && depth) rc = perr(err, errlen, s, s->s[stack[depth - 1]].line, "@repeat without @end%s", NULL);
    free(body);
    if (rc) { ub_scenario_free(s); return NULL; }
    return s;
}

ub_scenario *ub_scenario_load(const char *path, const ub_opts *o, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return NULL; }
    size_t cap = 1 << 16, n = 0, k;
    char *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; }
            buf = nb;
        }
    }
    if (f != stdin) fclose(f);
    if (!buf) { snprintf(err, errlen, "out of memory"); return NULL; }
    buf[n] = '\0';
    ub_scenario *s = ub_scenario_parse(buf, path, o, err, errlen);
    free(buf);
    return s;
}

void ub_scenario_free(ub_scenario *s)
{
    if (!s) return;
    for (unsigned i = 0; i < s->n; i++) {
        stmt *t = &s->s[i];
        free(t->text);
        free(t->aux);
        free(t->count);
        free(t->label);
        free(t->blines);
        for (unsigned k = 0; k < t->ncap; k++) { free(t->cap_name[k]); free(t->cap_field[k]); }
    }
    for (unsigned i = 0; i < s->nv; i++) free(s->vname[i]);
    free(s->s);
    free(s->uri);
    free(s);
}

void ub_scenario_set_keep_going(ub_scenario *s, bool on) { s->keep_going = on; }

void ub_scenario_apply_defaults(const ub_scenario *s, ub_runner_cfg *c)
{
    if (s->has_within) c->within_ns = s->within;
    if (s->has_tol) c->tol_abs_ns = s->tol;
    if (s->has_tolpct) c->tol_pct = s->tolpct;
    if (s->has_grace) c->late_grace_ns = s->grace;
    if (s->has_auto_ack) c->auto_ack = s->auto_ack;
    c->src_uri = s->uri;
}

/* ---------------------------------------------------------------- running */
typedef struct run {
    ub_scenario *s;
    ub_runner *r;
    FILE *log;
    char *err;
    size_t errlen;
    uint8_t *pkt;
    int failed;
    uint64_t t0, last;
} run;

static int rerr(run *x, uint32_t line, const char *fmt, const char *a)
{
    char m[400];
    snprintf(m, sizeof m, fmt, a ? a : "");
    snprintf(x->err, x->errlen, "%s:%u: %s", x->s->uri, line, m);
    return 2;
}

static int do_send(run *x, const stmt *t)
{
    char e2[300];
    char *txt = subst(x->s, t->text, false, e2, sizeof e2);
    if (!txt) return rerr(x, t->line, "%s", e2);
    size_t l = strlen(txt) + 32;
    char *full = malloc(l);
    if (!full) { free(txt); return rerr(x, t->line, "out of memory%s", NULL); }
    if (starts_with_entry(txt)) snprintf(full, l, "%s", txt);
    else {
        const char *en = x->s->entry[0] ? x->s->entry : NULL;
        static const char *const names[] = { [UB_ENTRY_FLIT] = "flit", [UB_ENTRY_PKT] = "pkt", [UB_ENTRY_STREAM] = "flit",
                                             [UB_ENTRY_SLL] = "sll", [UB_ENTRY_SLL2] = "sll2", [UB_ENTRY_ETH] = "eth",
                                             [UB_ENTRY_RAWIP] = "rawip", [UB_ENTRY_CFGPH] = "cfgph", [UB_ENTRY_TPH] = "tph" };
        if (!en) en = x->r->x.entry < sizeof names / sizeof names[0] && names[x->r->x.entry] ? names[x->r->x.entry] : "tph";
        snprintf(full, l, "%s\n%s", en, txt);
    }
    free(txt);
    ub_entry en;
    long n = ub_build_text(full, &x->s->o, x->pkt, 70000, &en, e2, sizeof e2);
    free(full);
    if (n < 0) {
        const char *m;
        uint32_t ln = block_line(t, e2, !starts_with_entry(t->text), &m);
        return rerr(x, ln, "building the packet: %s", m);
    }
    uint64_t count = 1;
    if (t->count && eval(x->s, t->count, false, &count, e2, sizeof e2) < 0) return rerr(x, t->line, "%s", e2);
    for (uint64_t i = 0; i < count; i++) {
        ub_send_opt o = { .fault = t->fault, .corrupt_off = t->corrupt_off, .corrupt_xor = t->corrupt_xor,
                          .reorder = t->reorder, .src_line = t->line };
        if (t->has_at) o.at = x->t0 + t->at;
        else if (t->has_after) o.at = x->last + t->after;
        int rc = ub_runner_send(x->r, x->pkt, (uint32_t)n, en, &o);
        if (rc < 0) return rerr(x, t->line, "%s", ub_runner_error(x->r));
        if (rc > 0) return 3;
        x->last = o.at ? o.at : ub_runner_now(x->r);
    }
    return 0;
}

static int do_expect(run *x, const stmt *t)
{
    char e2[300];
    char *f = subst(x->s, t->text, false, e2, sizeof e2);
    if (!f) return rerr(x, t->line, "%s", e2);
    ub_expect e = { .filter = f, .within_ns = t->within, .at_ns = t->at_ns, .tol_abs_ns = t->tol, .tol_pct = t->tolpct,
                    .none = t->none, .src_line = t->line, .label = t->label };
    ub_got g;
    int st = ub_runner_expect(x->r, &e, &g);
    free(f);
    if (st == UB_EXP_ERROR) return rerr(x, t->line, "%s", ub_runner_error(x->r));
    if (x->log) {
        char w[32];
        ub_format_duration(g.latency_ns, w, sizeof w);
        fprintf(x->log, "%s:%u: expect %s: %s%s%s\n", x->s->uri, t->line, ub_expect_status_name(st),
                st == UB_EXP_OK && !t->none ? "after " : "", st == UB_EXP_OK && !t->none ? w : "", "");
    }
    if (st != UB_EXP_OK) { x->failed = 1; return 1; }
    for (unsigned k = 0; k < t->ncap; k++) {
        uint64_t v;
        if (!g.view || ub_view_get(g.view, t->cap_field[k], &v) < 0) {
            char m[300];
            snprintf(m, sizeof m, "the matched packet has no %s to capture into %s", t->cap_field[k], t->cap_name[k]);
            uint64_t seq = g.seq;
            ub_runner_finding(x->r, UB_SC_MISMATCH, -1, m, t->line, &seq, 1);
            x->failed = 1;
            return 1;
        }
        if (ub_scenario_set_var(x->s, t->cap_name[k], v) < 0) return rerr(x, t->line, "too many variables%s", NULL);
    }
    return 0;
}

static int exec(run *x, unsigned from, unsigned to)
{
    char e2[300];
    for (unsigned i = from; i < to; i++) {
        const stmt *t = &x->s->s[i];
        int rc = 0;
        switch (t->kind) {
        case S_SEND: rc = do_send(x, t); break;
        case S_EXPECT: rc = do_expect(x, t); break;
        case S_WAIT:
            rc = ub_runner_sleep(x->r, t->ns);
            if (rc < 0) return rerr(x, t->line, "%s", ub_runner_error(x->r));
            if (rc > 0) return 3;
            break;
        case S_SET: {
            uint64_t v;
            if (eval(x->s, t->text, false, &v, e2, sizeof e2) < 0) return rerr(x, t->line, "%s", e2);
            if (ub_scenario_set_var(x->s, t->aux, v) < 0) return rerr(x, t->line, "too many variables%s", NULL);
            break;
        }
        case S_CHECK: {
            uint64_t v;
            if (eval(x->s, t->text, false, &v, e2, sizeof e2) < 0) return rerr(x, t->line, "%s", e2);
            if (!v) {
                char m[400];
                snprintf(m, sizeof m, "check failed: %s%s%s", t->text, t->aux ? ": " : "", t->aux ? t->aux : "");
                uint64_t seq = ub_runner_last_seq(x->r);
                ub_runner_finding(x->r, UB_SC_SCRIPT, -1, m, t->line, &seq, seq ? 1 : 0);
                x->failed = 1;
                rc = 1;
            }
            break;
        }
        case S_LOG:
            if (x->log) {
                char *m = subst(x->s, t->text, false, e2, sizeof e2);
                if (!m) return rerr(x, t->line, "%s", e2);
                fprintf(x->log, "%s:%u: %s\n", x->s->uri, t->line, m);
                free(m);
            }
            break;
        case S_REPEAT: {
            uint64_t n;
            if (eval(x->s, t->text, false, &n, e2, sizeof e2) < 0) return rerr(x, t->line, "%s", e2);
            for (uint64_t k = 0; k < n; k++) {
                if (t->aux && ub_scenario_set_var(x->s, t->aux, k) < 0) return rerr(x, t->line, "too many variables%s", NULL);
                rc = exec(x, i + 1, t->match);
                if (rc == 1 && x->s->keep_going) rc = 0;
                if (rc) return rc;
            }
            i = t->match; /* continue after @end */
            break;
        }
        case S_END:
            break;
        }
        if (rc == 1 && x->s->keep_going) rc = 0;
        if (rc) return rc;
    }
    return 0;
}

int ub_scenario_run(ub_scenario *s, ub_runner *r, FILE *log, char *err, size_t errlen)
{
    run x = { s, r, log, err, errlen, malloc(70000), 0, ub_runner_now(r), ub_runner_now(r) };
    if (errlen) err[0] = '\0';
    if (!x.pkt) { snprintf(err, errlen, "out of memory"); return 2; }
    int rc = exec(&x, 0, s->n);
    free(x.pkt);
    if (rc == 2 || rc == 3) return rc;
    return x.failed ? 1 : 0;
}
