/* Display-filter compiler and matcher (filter.h).
 *
 * The compiler is a recursive-descent parser (depth bounded by UB_FILTER_MAX_DEPTH) that emits a
 * flat program for an accumulator machine while it parses — no syntax tree:
 *   TEST i   acc = tests[i](packet)
 *   JF L     if (!acc) goto L          (a && b: a; JF end; b; end:)
 *   JT L     if (acc) goto L           (a || b: a; JT end; b; end:)
 *   NOT      acc = !acc
 * so matching is one loop without recursion. Every field name is resolved at compile time to the
 * (header table, field row) pairs that define it, and every string literal to a number (value
 * name, error code) or a byte string. */
#include "ubparse/filter.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_FIELD, K_HDR, K_ERROR, K_FRAME_NUM, K_FRAME_LEN, K_UB };
enum { OP_EXISTS, OP_EQ, OP_NE, OP_ANY_NE, OP_ALL_EQ, OP_LT, OP_LE, OP_GT, OP_GE };
enum { CM_NEVER = 0, CM_NUM, CM_BYTES }; /* how one candidate compares with the literal */

#define LIT_MAX 64

typedef struct ftest {
    uint8_t kind, op;
    uint16_t nc;          /* candidates */
    const ub_hdr **h;     /* [nc] */
    const ub_field **f;   /* [nc] */
    uint8_t *cmode;       /* [nc] CM_* */
    uint64_t *num;        /* [nc] literal as a number for that candidate */
    uint64_t lit;         /* K_ERROR: error code; K_FRAME_*: the number */
    uint8_t bytes[LIT_MAX];
    uint32_t nbytes;
} ftest;

enum { I_TEST, I_JF, I_JT, I_NOT };
typedef struct finsn {
    uint8_t op;
    uint32_t arg;
} finsn;

struct ub_filter {
    finsn *code;
    uint32_t ncode, capcode;
    ftest *tests;
    uint32_t ntests, captests;
};

/* ================================================================ lexer */
enum { T_END, T_LP, T_RP, T_NOT, T_AND, T_OR, T_CMP, T_WORD, T_STR, T_BAD };

typedef struct tok {
    int t;
    int op;           /* T_CMP: OP_* */
    size_t pos, len;  /* in the expression */
} tok;

typedef struct parser {
    const char *s;
    size_t n, i;
    tok cur;
    ub_filter *f;
    char *err;
    size_t errlen;
    bool failed;
    unsigned depth;
} parser;

static void perr(parser *p, size_t pos, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = true;
    if (!p->err || !p->errlen) return;
    int w = snprintf(p->err, p->errlen, "column %zu: ", pos + 1);
    if (w < 0 || (size_t)w >= p->errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + w, p->errlen - (size_t)w, fmt, ap);
    va_end(ap);
}

static bool is_word_ch(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == ':' || c == '-';
}

static bool word_is(const parser *p, const tok *t, const char *kw)
{
    size_t l = strlen(kw);
    return t->len == l && memcmp(p->s + t->pos, kw, l) == 0;
}

static void next(parser *p)
{
    const char *s = p->s;
    while (p->i < p->n && (s[p->i] == ' ' || s[p->i] == '\t' || s[p->i] == '\n' || s[p->i] == '\r')) p->i++;
    tok *t = &p->cur;
    t->pos = p->i;
    t->len = 0;
    t->op = 0;
    if (p->i >= p->n) { t->t = T_END; return; }
    char c = s[p->i];
    char d = p->i + 1 < p->n ? s[p->i + 1] : 0;
    char e = p->i + 2 < p->n ? s[p->i + 2] : 0;
#define TK(tt, l) do { t->t = (tt); t->len = (l); p->i += (l); return; } while (0)
#define OPK(o, l) do { t->op = (o); TK(T_CMP, l); } while (0)
    switch (c) {
    case '(': TK(T_LP, 1);
    case ')': TK(T_RP, 1);
    case '&': if (d == '&') TK(T_AND, 2); TK(T_BAD, 1);
    case '|': if (d == '|') TK(T_OR, 2); TK(T_BAD, 1);
    case '=':
        if (d == '=' && e == '=') OPK(OP_ALL_EQ, 3);
        if (d == '=') OPK(OP_EQ, 2);
        TK(T_BAD, 1);
    case '!':
        if (d == '=' && e == '=') OPK(OP_ANY_NE, 3);
        if (d == '=') OPK(OP_NE, 2);
        TK(T_NOT, 1);
    case '~': if (d == '=') OPK(OP_ANY_NE, 2); TK(T_BAD, 1);
    case '<': if (d == '=') OPK(OP_LE, 2); OPK(OP_LT, 1);
    case '>': if (d == '=') OPK(OP_GE, 2); OPK(OP_GT, 1);
    case '"': {
        size_t j = p->i + 1;
        while (j < p->n && s[j] != '"') {
            if (s[j] == '\\' && j + 1 < p->n) j++;
            j++;
        }
        if (j >= p->n) TK(T_BAD, p->n - p->i);
        TK(T_STR, j + 1 - p->i);
    }
    default: break;
    }
    if (!is_word_ch((unsigned char)c)) TK(T_BAD, 1);
    size_t j = p->i;
    while (j < p->n && is_word_ch((unsigned char)s[j])) j++;
    t->t = T_WORD;
    t->len = j - p->i;
    p->i = j;
    static const struct { const char *w; int t, op; } kw[] = {
        { "and", T_AND, 0 }, { "or", T_OR, 0 }, { "not", T_NOT, 0 }, { "eq", T_CMP, OP_EQ },
        { "ne", T_CMP, OP_NE }, { "lt", T_CMP, OP_LT }, { "le", T_CMP, OP_LE }, { "gt", T_CMP, OP_GT },
        { "ge", T_CMP, OP_GE }, { "all_eq", T_CMP, OP_ALL_EQ }, { "any_ne", T_CMP, OP_ANY_NE },
    };
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (word_is(p, t, kw[k].w)) { t->t = kw[k].t; t->op = kw[k].op; return; }
#undef TK
#undef OPK
}

/* ================================================================ program building */
static uint32_t emit(parser *p, uint8_t op, uint32_t arg)
{
    ub_filter *f = p->f;
    if (p->failed) return 0;
    if (f->ncode == f->capcode) {
        uint32_t nc = f->capcode ? f->capcode * 2 : 32;
        finsn *c = realloc(f->code, nc * sizeof *c);
        if (!c) { perr(p, p->cur.pos, "out of memory"); return 0; }
        f->code = c;
        f->capcode = nc;
    }
    f->code[f->ncode].op = op;
    f->code[f->ncode].arg = arg;
    return f->ncode++;
}

static ftest *new_test(parser *p)
{
    ub_filter *f = p->f;
    if (f->ntests == f->captests) {
        uint32_t nc = f->captests ? f->captests * 2 : 8;
        ftest *t = realloc(f->tests, nc * sizeof *t);
        if (!t) { perr(p, p->cur.pos, "out of memory"); return NULL; }
        f->tests = t;
        f->captests = nc;
    }
    ftest *t = &f->tests[f->ntests++];
    memset(t, 0, sizeof *t);
    return t;
}

static void free_test(ftest *t)
{
    free(t->h);
    free(t->f);
    free(t->cmode);
    free(t->num);
}

/* ================================================================ literals */
typedef struct lit {
    bool is_str;
    bool num_ok, bytes_ok;
    uint64_t num;
    uint8_t bytes[LIT_MAX];
    uint32_t nbytes;
    char str[256]; /* unescaped string literal (truncated) */
    bool str_long;
} lit;

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool parse_word_lit(const char *w, size_t n, lit *L)
{
    memset(L, 0, sizeof *L);
    if (n == 4 && memcmp(w, "true", 4) == 0) { L->num_ok = true; L->num = 1; return true; }
    if (n == 5 && memcmp(w, "false", 5) == 0) { L->num_ok = true; return true; }
    /* decimal */
    size_t i = 0;
    while (i < n && w[i] >= '0' && w[i] <= '9') i++;
    if (i == n && n > 0) {
        uint64_t v = 0;
        for (size_t k = 0; k < n; k++) {
            unsigned dg = (unsigned)(w[k] - '0');
            if (v > (UINT64_MAX - dg) / 10) return false;
            v = v * 10 + dg;
        }
        L->num_ok = true;
        L->num = v;
        /* dotted IPv4 handled below; a plain decimal is a number only */
        return true;
    }
    /* 0x hex: number and byte string */
    if (n > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        size_t nd = n - 2;
        for (size_t k = 2; k < n; k++)
            if (hexval(w[k]) < 0) return false;
        uint64_t v = 0;
        size_t sig = 0;
        for (size_t k = 2; k < n; k++) {
            if (sig || w[k] != '0') sig++;
            v = v << 4 | (uint64_t)hexval(w[k]);
        }
        if (sig <= 16) { L->num_ok = true; L->num = v; }
        size_t nb = (nd + 1) / 2;
        if (nb <= LIT_MAX) {
            size_t k = 2;
            unsigned b = 0;
            if (nd % 2) { L->bytes[b++] = (uint8_t)hexval(w[k]); k++; }
            for (; k + 1 < n && b < nb; k += 2) L->bytes[b++] = (uint8_t)(hexval(w[k]) << 4 | hexval(w[k + 1]));
            L->nbytes = (uint32_t)nb;
            L->bytes_ok = true;
        }
        return L->num_ok || L->bytes_ok;
    }
    /* dotted IPv4 */
    {
        unsigned parts = 0, val = 0, digits = 0;
        bool ok = true;
        uint8_t b[4];
        for (size_t k = 0; k <= n && ok; k++) {
            if (k == n || w[k] == '.') {
                if (!digits || val > 255 || parts >= 4) ok = false;
                else b[parts++] = (uint8_t)val;
                val = 0;
                digits = 0;
            } else if (w[k] >= '0' && w[k] <= '9' && digits < 3) {
                val = val * 10 + (unsigned)(w[k] - '0');
                digits++;
            } else {
                ok = false;
            }
        }
        if (ok && parts == 4) {
            memcpy(L->bytes, b, 4);
            L->nbytes = 4;
            L->bytes_ok = true;
            L->num_ok = true;
            L->num = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
            return true;
        }
    }
    /* byte string: hex pairs separated by ':', '.' or '-' (aa:bb:cc), at least one separator */
    {
        size_t k = 0;
        uint32_t nb = 0;
        bool ok = true, sep_seen = false;
        while (k < n && ok) {
            if (k + 1 < n && hexval(w[k]) >= 0 && hexval(w[k + 1]) >= 0 && nb < LIT_MAX) {
                L->bytes[nb++] = (uint8_t)(hexval(w[k]) << 4 | hexval(w[k + 1]));
                k += 2;
                if (k < n) {
                    if (w[k] == ':' || w[k] == '.' || w[k] == '-') { sep_seen = true; k++; if (k == n) ok = false; }
                    else ok = false;
                }
            } else {
                ok = false;
            }
        }
        if (ok && sep_seen && nb) {
            L->nbytes = nb;
            L->bytes_ok = true;
            if (nb <= 8) {
                L->num_ok = true;
                for (uint32_t q = 0; q < nb; q++) L->num = L->num << 8 | L->bytes[q];
            }
            return true;
        }
        memset(L->bytes, 0, sizeof L->bytes);
    }
    /* IPv6 */
    if (memchr(w, ':', n) && n < 64) {
        char buf[64];
        memcpy(buf, w, n);
        buf[n] = 0;
        uint8_t a6[16];
        if (inet_pton(AF_INET6, buf, a6) == 1) {
            memcpy(L->bytes, a6, 16);
            L->nbytes = 16;
            L->bytes_ok = true;
            return true;
        }
    }
    return false;
}

static void parse_str_lit(const char *s, size_t n, lit *L)
{
    /* s[0] and s[n-1] are the quotes */
    memset(L, 0, sizeof *L);
    L->is_str = true;
    size_t o = 0;
    for (size_t k = 1; k + 1 < n; k++) {
        char c = s[k];
        if (c == '\\' && k + 2 < n) {
            c = s[++k];
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
        }
        if (o + 1 < sizeof L->str) L->str[o++] = c;
        else L->str_long = true;
        if (L->nbytes < LIT_MAX) L->bytes[L->nbytes++] = (uint8_t)c;
    }
    L->str[o] = 0;
    L->bytes_ok = L->nbytes <= LIT_MAX && o == L->nbytes;
}

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
        if (x != y) return false;
    }
    return *a == *b;
}

/* the value of name in vals (exact match first, then case-insensitive) */
static bool vname_value(const ub_vname *vals, const char *name, uint64_t *out)
{
    if (!vals) return false;
    for (const ub_vname *v = vals; v->name; v++)
        if (strcmp(v->name, name) == 0) { *out = v->value; return true; }
    for (const ub_vname *v = vals; v->name; v++)
        if (ieq(v->name, name)) { *out = v->value; return true; }
    return false;
}

static bool is_bytes_field(const ub_field *f)
{
    /* compared as byte strings: anything wider than 8 bytes or of variable length */
    if (f->flags & UB_FF_VIRTUAL) return false;
    if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) return false;
    return f->bits == 0 || f->bits > 64;
}

/* ================================================================ parser */
static void parse_or(parser *p);

static void make_field_test(parser *p, const tok *ft, const char *name)
{
    ftest *t = new_test(p);
    if (!t) return;
    uint32_t ti = p->f->ntests - 1;
    if (strcmp(name, "ub.error") == 0) t->kind = K_ERROR;
    else if (strcmp(name, "frame.number") == 0) t->kind = K_FRAME_NUM;
    else if (strcmp(name, "frame.len") == 0) t->kind = K_FRAME_LEN;
    else if (strcmp(name, "ub") == 0) t->kind = K_UB;
    else {
        size_t n = ub_field_find(name, NULL, NULL, 0);
        if (n == 0) { perr(p, ft->pos, "unknown field '%s' (ubdump -G fields lists them)", name); return; }
        if (n > 4096) n = 4096;
        t->h = calloc(n, sizeof *t->h);
        t->f = calloc(n, sizeof *t->f);
        t->cmode = calloc(n, 1);
        t->num = calloc(n, sizeof *t->num);
        if (!t->h || !t->f || !t->cmode || !t->num) { perr(p, ft->pos, "out of memory"); return; }
        t->nc = (uint16_t)ub_field_find(name, t->h, t->f, n);
        if (t->nc > n) t->nc = (uint16_t)n;
        t->kind = t->f[0] ? K_FIELD : K_HDR;
    }
    emit(p, I_TEST, ti);
    next(p);
    if (p->cur.t != T_CMP) { t->op = OP_EXISTS; return; }
    /* comparison */
    tok opt = p->cur;
    t->op = (uint8_t)opt.op;
    next(p);
    tok lt = p->cur;
    if (lt.t != T_WORD && lt.t != T_STR) {
        perr(p, lt.pos, lt.t == T_END ? "missing value after the comparison operator" : "expected a value after the comparison operator");
        return;
    }
    lit L;
    if (lt.t == T_STR) parse_str_lit(p->s + lt.pos, lt.len, &L);
    else if (!parse_word_lit(p->s + lt.pos, lt.len, &L)) {
        if (lt.len > 3 && memcmp(p->s + lt.pos, "ub.", 3) == 0)
            perr(p, lt.pos, "comparing two fields is not supported; compare with a literal");
        else
            perr(p, lt.pos, "'%.*s' is not a number, byte string or address (value names go in quotes: \"%.*s\")",
                 (int)(lt.len > 64 ? 64 : lt.len), p->s + lt.pos, (int)(lt.len > 64 ? 64 : lt.len), p->s + lt.pos);
        return;
    }
    next(p);
    switch (t->kind) {
    case K_HDR:
        perr(p, opt.pos, "'%s' is a header: it can only be tested for presence", name);
        return;
    case K_UB:
        perr(p, opt.pos, "'ub' can only be tested for presence");
        return;
    case K_ERROR: {
        if (!L.is_str) { perr(p, lt.pos, "ub.error compares with a quoted error name, e.g. ub.error == \"bcrc_bad\""); return; }
        if (t->op != OP_EQ && t->op != OP_NE && t->op != OP_ANY_NE && t->op != OP_ALL_EQ) {
            perr(p, opt.pos, "ub.error supports ==, !=, === and !== only");
            return;
        }
        for (unsigned c = 1; c < UB_E__COUNT; c++) {
            const ub_err_info *ei = ub_err_get(c);
            if (ei && ei->name && ieq(ei->name, L.str)) { t->lit = c; return; }
        }
        perr(p, lt.pos, "unknown error name \"%s\" (ubdump -G errors lists them)", L.str);
        return;
    }
    case K_FRAME_NUM:
    case K_FRAME_LEN:
        if (!L.num_ok || L.is_str) { perr(p, lt.pos, "%s compares with a number", name); return; }
        t->lit = L.num;
        return;
    default: break;
    }
    /* schema field: decide per candidate how to compare */
    bool any = false, names_tried = false;
    const ub_field *named_example = NULL;
    for (unsigned k = 0; k < t->nc; k++) {
        const ub_field *f = t->f[k];
        t->cmode[k] = CM_NEVER;
        if (L.is_str) {
            if (!is_bytes_field(f) && f->type != UB_FT_IPV4 && f->type != UB_FT_MAC) {
                names_tried = true;
                if (f->vals) named_example = f;
                uint64_t v;
                if (vname_value(f->vals, L.str, &v)) { t->cmode[k] = CM_NUM; t->num[k] = v; any = true; }
            } else if (L.bytes_ok) {
                t->cmode[k] = CM_BYTES;
                any = true;
            }
        } else if (is_bytes_field(f)) {
            if (L.bytes_ok) { t->cmode[k] = CM_BYTES; any = true; }
        } else if (L.num_ok) {
            t->cmode[k] = CM_NUM;
            t->num[k] = L.num;
            any = true;
        }
    }
    if (L.bytes_ok) {
        memcpy(t->bytes, L.bytes, L.nbytes);
        t->nbytes = L.nbytes;
    }
    if (any) return;
    if (L.is_str && names_tried) {
        if (!named_example) {
            perr(p, lt.pos, "field '%s' has no value names: compare it with a number", name);
        } else {
            char known[160];
            size_t o = 0;
            known[0] = 0;
            unsigned cnt = 0;
            for (const ub_vname *v = named_example->vals; v->name && o + 40 < sizeof known; v++, cnt++)
                o += (size_t)snprintf(known + o, sizeof known - o, "%s\"%s\"", cnt ? ", " : "", v->name);
            perr(p, lt.pos, "\"%s\" is not a value name of '%s' (e.g. %s%s)", L.str, name, known,
                 named_example->vals[cnt].name ? ", ..." : "");
        }
    } else {
        perr(p, lt.pos, "cannot compare field '%s' with this value (%s)", name,
             is_bytes_field(t->f[0]) ? "it is a byte string: write aa:bb:cc..." : "expected a number");
    }
}

static void parse_primary(parser *p)
{
    tok t = p->cur;
    switch (t.t) {
    case T_LP: {
        if (++p->depth > UB_FILTER_MAX_DEPTH) { perr(p, t.pos, "expression nested too deeply"); return; }
        next(p);
        if (p->cur.t == T_RP) { perr(p, p->cur.pos, "empty parentheses"); return; }
        parse_or(p);
        if (p->failed) return;
        if (p->cur.t != T_RP) { perr(p, p->cur.pos, p->cur.t == T_END ? "missing ')'" : "expected ')'"); return; }
        p->depth--;
        next(p);
        return;
    }
    case T_WORD: {
        char name[128];
        if (t.len >= sizeof name) { perr(p, t.pos, "field name too long"); return; }
        memcpy(name, p->s + t.pos, t.len);
        name[t.len] = 0;
        lit L;
        if (parse_word_lit(name, t.len, &L) && !(t.len > 3 && memcmp(name, "ub.", 3) == 0)) {
            perr(p, t.pos, "expected a field name, found the value '%s'", name);
            return;
        }
        make_field_test(p, &t, name);
        return;
    }
    case T_END: perr(p, t.pos, "unexpected end of the expression: expected a field name or '('"); return;
    case T_RP: perr(p, t.pos, "unexpected ')'"); return;
    case T_STR: perr(p, t.pos, "a quoted value must follow a field and a comparison operator"); return;
    case T_CMP: perr(p, t.pos, "comparison operator without a field before it"); return;
    case T_AND: case T_OR: perr(p, t.pos, "'%.*s' without an operand before it", (int)t.len, p->s + t.pos); return;
    default: perr(p, t.pos, "unexpected character '%c'", p->s[t.pos]); return;
    }
}

static void parse_not(parser *p)
{
    unsigned nots = 0;
    while (p->cur.t == T_NOT) {
        if (++nots > UB_FILTER_MAX_DEPTH) { perr(p, p->cur.pos, "too many negations"); return; }
        next(p);
    }
    parse_primary(p);
    if (nots & 1) emit(p, I_NOT, 0);
}

static void parse_and(parser *p)
{
    uint32_t fix[64];
    unsigned nfix = 0;
    parse_not(p);
    while (!p->failed && p->cur.t == T_AND) {
        uint32_t j = emit(p, I_JF, 0);
        if (nfix < 64) fix[nfix++] = j;
        else { /* patch the earlier ones to this jump, which chains to the end */
            for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = j;
            nfix = 0;
            fix[nfix++] = j;
        }
        next(p);
        parse_not(p);
    }
    if (p->failed) return;
    for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = p->f->ncode;
}

static void parse_or(parser *p)
{
    uint32_t fix[64];
    unsigned nfix = 0;
    parse_and(p);
    while (!p->failed && p->cur.t == T_OR) {
        uint32_t j = emit(p, I_JT, 0);
        if (nfix < 64) fix[nfix++] = j;
        else {
            for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = j;
            nfix = 0;
            fix[nfix++] = j;
        }
        next(p);
        parse_and(p);
    }
    if (p->failed) return;
    for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = p->f->ncode;
}

void ub_filter_free(ub_filter *f)
{
    if (!f) return;
    for (uint32_t i = 0; i < f->ntests; i++) free_test(&f->tests[i]);
    free(f->tests);
    free(f->code);
    free(f);
}

ub_filter *ub_filter_compile(const char *expr, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    parser P;
    memset(&P, 0, sizeof P);
    P.err = err;
    P.errlen = errlen;
    if (!expr) { perr(&P, 0, "no expression"); return NULL; }
    P.s = expr;
    P.n = strlen(expr);
    if (P.n > UB_FILTER_MAX_LEN) { perr(&P, UB_FILTER_MAX_LEN, "expression longer than %d characters", UB_FILTER_MAX_LEN); return NULL; }
    P.f = calloc(1, sizeof *P.f);
    if (!P.f) { perr(&P, 0, "out of memory"); return NULL; }
    next(&P);
    if (P.cur.t == T_END) perr(&P, 0, "empty filter expression");
    else parse_or(&P);
    if (!P.failed && P.cur.t != T_END) {
        tok t = P.cur;
        if (t.t == T_CMP) perr(&P, t.pos, "comparison operator after a complete test (compare a field with a value)");
        else if (t.t == T_RP) perr(&P, t.pos, "unbalanced ')'");
        else if (t.t == T_BAD && P.s[t.pos] == '"') perr(&P, t.pos, "unterminated string");
        else if (t.t == T_BAD && (P.s[t.pos] == '&' || P.s[t.pos] == '|'))
            perr(&P, t.pos, "use '%c%c'", P.s[t.pos], P.s[t.pos]);
        else if (t.t == T_BAD && P.s[t.pos] == '=') perr(&P, t.pos, "use '==' to compare");
        else perr(&P, t.pos, "expected '&&', '||' or the end of the expression, found '%.*s'",
                  (int)(t.len > 32 ? 32 : t.len ? t.len : 1), P.s + t.pos);
    }
    if (P.failed) {
        ub_filter_free(P.f);
        return NULL;
    }
    return P.f;
}

size_t ub_filter_err_column(const char *err)
{
    if (!err || strncmp(err, "column ", 7) != 0) return 0;
    return (size_t)strtoul(err + 7, NULL, 10);
}

/* ================================================================ matching */
static bool cmp_num(unsigned op, uint64_t a, uint64_t b)
{
    switch (op) {
    case OP_EQ: case OP_ALL_EQ: return a == b;
    case OP_NE: case OP_ANY_NE: return a != b;
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    default: return false;
    }
}

static bool cmp_bytes(unsigned op, const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb)
{
    uint32_t m = na < nb ? na : nb;
    int c = m ? memcmp(a, b, m) : 0;
    if (c == 0) c = na < nb ? -1 : na > nb ? 1 : 0;
    switch (op) {
    case OP_EQ: case OP_ALL_EQ: return c == 0;
    case OP_NE: case OP_ANY_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    default: return false;
    }
}

/* ALL-quantified operators: true iff the field occurs and every occurrence satisfies it */
static bool op_is_all(unsigned op) { return op == OP_NE || op == OP_ALL_EQ; }

static bool run_test(const ftest *t, const ub_view *v, uint64_t frame, uint32_t len)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    /* a record that is not UB has no ub.* fields (as in Wireshark, where UB does not dissect it) */
    bool foreign = (t->kind == K_FIELD || t->kind == K_HDR) && t->nc && ub_hdr_foreign(t->h[0]); /* infiniband.*, sue.*, pcieflit.* */
    if (!ub_view_ub(v) && t->kind != K_FRAME_NUM && t->kind != K_FRAME_LEN && !foreign) return false;
    switch (t->kind) {
    case K_UB:
        return true;
    case K_FRAME_NUM:
    case K_FRAME_LEN: {
        uint64_t x = t->kind == K_FRAME_NUM ? frame : len;
        if (t->kind == K_FRAME_NUM && frame == 0) return false;
        if (t->op == OP_EXISTS) return true;
        return cmp_num(t->op, x, t->lit);
    }
    case K_ERROR: {
        unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
        if (t->op == OP_EXISTS) return ne > 0;
        if (ne == 0) return false;
        bool all = op_is_all(t->op);
        for (unsigned i = 0; i < ne; i++) {
            bool r = cmp_num(t->op, v->err[i].code, t->lit);
            if (all && !r) return false;
            if (!all && r) return true;
        }
        return all;
    }
    case K_HDR:
        for (unsigned i = 0; i < nl; i++)
            for (unsigned k = 0; k < t->nc; k++)
                if (v->layer[i].hdr == t->h[k]) return true;
        return false;
    default: break;
    }
    bool all = op_is_all(t->op), seen = false;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        for (unsigned k = 0; k < t->nc; k++) {
            if (l->hdr != t->h[k]) continue;
            ub_val val;
            if (ub_field_value(l, t->f[k], &val) != 0) break;
            if (t->op == OP_EXISTS) return true;
            seen = true;
            bool r;
            switch (t->cmode[k]) {
            case CM_NUM: /* integers; IPv4/MAC (<= 8 bytes) as big-endian numbers */
                r = cmp_num(t->op, val.u, t->num[k]);
                break;
            case CM_BYTES:
                r = cmp_bytes(t->op, val.bytes, val.nbytes, t->bytes, t->nbytes);
                break;
            default:
                r = t->op == OP_NE || t->op == OP_ANY_NE; /* literal means nothing for this variant */
                break;
            }
            if (all && !r) return false;
            if (!all && r) return true;
            break;
        }
    }
    return all && seen;
}

bool ub_filter_match_frame(const ub_filter *f, const ub_view *v, uint64_t frame, uint32_t len)
{
    if (!f || !v) return false;
    bool acc = false;
    for (uint32_t pc = 0; pc < f->ncode;) {
        const finsn *in = &f->code[pc];
        switch (in->op) {
        case I_TEST: acc = run_test(&f->tests[in->arg], v, frame, len); pc++; break;
        case I_JF: pc = acc ? pc + 1 : in->arg; break;
        case I_JT: pc = acc ? in->arg : pc + 1; break;
        case I_NOT: acc = !acc; pc++; break;
        default: pc++; break;
        }
    }
    return acc;
}

bool ub_filter_match(const ub_filter *f, const ub_view *v) { return ub_filter_match_frame(f, v, 0, 0); }
