/* Display-filter compiler and matcher (filter.h).
 *
 * The compiler is a recursive-descent parser (depth bounded by UB_FILTER_MAX_DEPTH) that emits a
 * flat program for an accumulator machine while it parses — no syntax tree:
 *   TEST i   acc = tests[i](packet)
 *   JF L     if (!acc) goto L          (a && b: a; JF end; b; end:)
 *   JT L     if (acc) goto L           (a || b: a; JT end; b; end:)
 *   NOT      acc = !acc
 *   PUSH     push acc                  (a ^^ b: a; PUSH; b; XOR)
 *   XOR      acc = pop ^ acc
 * so matching (filter_match.c) is one loop without recursion: `f in {a b}` compiles to
 * f == a || f == b. Every field name is resolved at compile time to the (header table, field row)
 * pairs that define it (Wireshark's outer-header names, ub.cna and ub.eid to their schema rows),
 * and every string literal to a number (value name, error code, rule) or a byte string. A test
 * with functions, arithmetic or a field on both sides is one TEST of its own (K_GEN) whose two
 * sides filter_expr.c parses into value trees (filter_gen.c evaluates them). */
#include "filter_parse.h"

#include "ubparse/anfields.h"
#include "ubparse/expert.h"
#include "ubparse/state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ lexer */
void ub_fp_err(parser *p, size_t pos, const char *fmt, ...)
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
           c == ':' || c == '-' || c == '/';
}

bool ub_fp_word_is(const parser *p, const tok *t, const char *kw)
{
    size_t l = strlen(kw);
    return t->len == l && memcmp(p->s + t->pos, kw, l) == 0;
}

void ub_fp_next(parser *p)
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
    case '[': TK(T_LB, 1);
    case ']': TK(T_RB, 1);
    case '{': TK(T_LBR, 1);
    case '}': TK(T_RBR, 1);
    case ',': TK(T_COMMA, 1);
    case '+': case '*': case '%': t->op = c; TK(T_ARITH, 1);
    case '\'': { /* a character constant: 'a', '\n', '\x41', '\101' */
        size_t j = p->i + 1;
        while (j < p->n && s[j] != '\'') {
            if (s[j] == '\\' && j + 1 < p->n) j++;
            j++;
        }
        if (j >= p->n) TK(T_BAD, p->n - p->i);
        TK(T_CHR, j + 1 - p->i);
    }
    case '^': if (d == '^') TK(T_XOR, 2); TK(T_BAD, 1);
    case '&': if (d == '&') TK(T_AND, 2); TK(T_BITAND, 1);
    case '|': if (d == '|') TK(T_OR, 2); TK(T_BAD, 1);
    case '=':
        if (d == '=' && e == '=') OPK(OP_ALL_EQ, 3);
        if (d == '=') OPK(OP_EQ, 2);
        TK(T_BAD, 1);
    case '!':
        if (d == '=' && e == '=') OPK(OP_ANY_NE, 3);
        if (d == '=') OPK(OP_NE, 2);
        TK(T_NOT, 1);
    case '~': if (d == '=') OPK(OP_ANY_NE, 2); OPK(OP_MATCHES, 1);
    case '<': if (d == '=') OPK(OP_LE, 2); OPK(OP_LT, 1);
    case '>': if (d == '=') OPK(OP_GE, 2); OPK(OP_GT, 1);
    case 'r': /* Wireshark 4.0's raw string r"..." (ub_lit_str keeps its backslashes) */
    case 'R':
        if (d != '"') break;
        /* fall through */
    case '"': {
        size_t j = p->i + 1 + (c != '"');
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
        { "xor", T_XOR, 0 }, { "in", T_IN, 0 }, { "contains", T_CMP, OP_CONTAINS }, { "matches", T_CMP, OP_MATCHES },
        { "bitwise_and", T_BITAND, 0 },
    };
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (ub_fp_word_is(p, t, kw[k].w)) { t->t = kw[k].t; t->op = kw[k].op; return; }
#undef TK
#undef OPK
}

/* ================================================================ program building */
uint32_t ub_fp_emit(parser *p, uint8_t op, uint32_t arg)
{
    ub_filter *f = p->f;
    if (p->failed) return 0;
    if (f->ncode == f->capcode) {
        uint32_t nc = f->capcode ? f->capcode * 2 : 32;
        finsn *c = realloc(f->code, nc * sizeof *c);
        if (!c) { ub_fp_err(p, p->cur.pos, "out of memory"); return 0; }
        f->code = c;
        f->capcode = nc;
    }
    f->code[f->ncode].op = op;
    f->code[f->ncode].arg = arg;
    return f->ncode++;
}

/* a forward jump to the end of the current and/or/in chain, patched by the caller; when more than 64
 * are pending, the earlier ones are pointed at this one, which chains to the end */
static void emit_jump(parser *p, uint8_t op, uint32_t fix[64], unsigned *nfix)
{
    uint32_t j = ub_fp_emit(p, op, 0);
    if (p->failed) return;
    if (*nfix < 64) {
        fix[(*nfix)++] = j;
        return;
    }
    for (unsigned k = 0; k < *nfix; k++) p->f->code[fix[k]].arg = j;
    *nfix = 0;
    fix[(*nfix)++] = j;
}

ftest *ub_fp_new_test(parser *p)
{
    ub_filter *f = p->f;
    if (f->ntests == f->captests) {
        uint32_t nc = f->captests ? f->captests * 2 : 8;
        ftest *t = realloc(f->tests, nc * sizeof *t);
        if (!t) { ub_fp_err(p, p->cur.pos, "out of memory"); return NULL; }
        f->tests = t;
        f->captests = nc;
    }
    ftest *t = &f->tests[f->ntests++];
    memset(t, 0, sizeof *t);
    t->quant = p->quant;
    return t;
}

void ub_fp_free_test(ftest *t)
{
    free(t->h);
    free(t->f);
    free(t->grp);
    free(t->cmode);
    free(t->num);
    ub_re_free(t->re);
}

/* ================================================================ literals (filter_lit.c) */
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

/* ================================================================ parser */
static void parse_or(parser *p);

static bool is_bytes_field(const ub_field *f)
{
    /* compared as byte strings: anything wider than 8 bytes or of variable length */
    if (f->flags & UB_FF_VIRTUAL) return false;
    if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) return false;
    return f->bits == 0 || f->bits > 64;
}

/* byte-like for slices and contains (Wireshark: bytes, GUID, IPv6, Ethernet; IPv4 slices only) */
bool ub_fp_sliceable(const ub_field *f, bool for_contains)
{
    if (f->flags & UB_FF_VIRTUAL) return false;
    if (f->type == UB_FT_IPV4) return !for_contains;
    return is_bytes_field(f) || f->type == UB_FT_MAC;
}

/* ---------------------------------------------------------------- names */
/* the plugin's frame.* names; ub.analysis.* / ub.stream.* are anfields.h's table (af_test) and the TP
 * flags expert.h's (ub_tp_flag_info) */
static const struct pname {
    const char *name;
    uint8_t kind, an;
    uint32_t flag;
} p_names[] = {
    { "ub.error", K_ERROR, 0, 0 }, { "ub", K_UB, 0, 0 }, { "frame", K_FRAME, 0, 0 },
    { "frame.number", K_FRAME_NUM, 0, 0 }, { "frame.len", K_FRAME_LEN, 0, 0 }, { "frame.cap_len", K_FRAME_CAPLEN, 0, 0 },
    { "frame.interface_id", K_FRAME_IFID, 0, 0 }, { "frame.p2p_dir", K_FRAME_DIR, 0, 0 },
    { "frame.time_epoch", K_FRAME_TEPOCH, 0, 0 }, { "frame.time_relative", K_FRAME_TREL, 0, 0 },
    { "frame.time_delta", K_FRAME_TDELTA, 0, 0 }, { "frame.protocols", K_PROTOS, 0, 0 },
    { "frame.comment", K_COMMENT, 0, 0 },
};

/* what a test of an anfields.h row reads: kind, an */
static const uint8_t af_test[UB_AF__COUNT][2] = {
    [UB_AF_ANALYSIS] = { K_AN, AN_PRESENT }, [UB_AF_TP_CHANNEL] = { K_AN, AN_TP_CHANNEL },
    [UB_AF_EXPECTED_PSN] = { K_AN, AN_EXPECTED_PSN }, [UB_AF_RESPONSE_IN] = { K_AN, AN_RESPONSE_IN },
    [UB_AF_REQUEST_IN] = { K_AN, AN_REQUEST_IN }, [UB_AF_ACKED_IN] = { K_AN, AN_ACKED_IN },
    [UB_AF_ACKS_FRAME] = { K_AN, AN_ACKS_FRAME }, [UB_AF_LATENCY] = { K_AN, AN_LATENCY },
    [UB_AF_RULE] = { K_AN, AN_RULE }, [UB_AF_RELATED] = { K_AN, AN_RELATED },
    [UB_AF_TP_SRC] = { K_TPEP, TPEP_SRC }, [UB_AF_TP_DST] = { K_TPEP, TPEP_DST },
    [UB_AF_TP_ENDPOINT] = { K_TPEP, TPEP_ANY },
    [UB_AF_STREAM_UNIT] = { K_AN, AN_ST_UNIT }, [UB_AF_STREAM_STARTED_IN] = { K_AN, AN_ST_STARTED_IN },
    [UB_AF_STREAM_CONTINUED_IN] = { K_AN, AN_ST_CONTINUED_IN }, [UB_AF_STREAM_OPEN_BYTES] = { K_AN, AN_ST_OPEN_BYTES },
    [UB_AF_FINDING] = { K_AN, AN_FINDING }, /* the plugin's expert item of every finding */
};

/* name is an analysis field (anfields.h) or TP flag (expert.h): set kind, an, an_flag */
static bool an_name(const char *name, ftest *t)
{
    const ub_anfield *af = ub_anfield_find(name);
    if (af) {
        t->kind = af_test[af->id][0];
        t->an = af_test[af->id][1];
        return true;
    }
    if (strncmp(name, "ub.analysis.", 12) != 0) return false;
    const ub_tp_flag_info *fi;
    for (unsigned i = 0; (fi = ub_tp_flag_info_get(i)) != NULL; i++)
        if (strcmp(fi->name, name + 12) == 0) {
            t->kind = K_AN;
            t->an = AN_FLAG;
            t->an_flag = fi->bit;
            return true;
        }
    return false;
}

bool ub_fp_kind_time(const ftest *t)
{
    return t->kind == K_FRAME_TEPOCH || t->kind == K_FRAME_TREL || t->kind == K_FRAME_TDELTA ||
           (t->kind == K_AN && t->an == AN_LATENCY);
}
bool ub_fp_kind_num(const ftest *t)
{
    return (t->kind >= K_FRAME_NUM && t->kind <= K_FRAME_DIR) ||
           (t->kind == K_AN && t->an != AN_LATENCY && t->an != AN_RULE && t->an != AN_PRESENT && t->an != AN_FLAG &&
            t->an != AN_FINDING);
}

/* append the rows of abbrev (only tables with id only_hdr when non-zero) as name group grp */
static bool add_rows(parser *p, ftest *t, const char *abbrev, uint8_t grp, unsigned only_hdr)
{
    size_t n = ub_field_find(abbrev, NULL, NULL, 0);
    if (n == 0) return false;
    if (n > 1024) n = 1024;
    size_t cap = (size_t)t->nc + n;
    const ub_hdr **h = realloc(t->h, cap * sizeof *h);
    if (h) t->h = h;
    const ub_field **f = realloc(t->f, cap * sizeof *f);
    if (f) t->f = f;
    uint8_t *g = realloc(t->grp, cap);
    if (g) t->grp = g;
    uint8_t *cm = realloc(t->cmode, cap);
    if (cm) t->cmode = cm;
    uint64_t *num = realloc(t->num, cap * sizeof *num);
    if (num) t->num = num;
    if (!h || !f || !g || !cm || !num) { ub_fp_err(p, p->cur.pos, "out of memory"); return false; }
    size_t base = t->nc, got = ub_field_find(abbrev, t->h + base, t->f + base, n);
    if (got > n) got = n;
    for (size_t k = 0; k < got && t->nc < 4096; k++) {
        const ub_hdr *hh = t->h[base + k];
        const ub_field *ff = t->f[base + k];
        if (only_hdr && hh->id != only_hdr) continue;
        t->h[t->nc] = hh;
        t->f[t->nc] = ff;
        t->grp[t->nc] = grp;
        t->cmode[t->nc] = CM_NEVER;
        t->num[t->nc] = 0;
        t->nc++;
    }
    return true;
}

/* resolve a name into test t; false (with the error set) if unknown */
bool ub_fp_resolve(parser *p, ftest *t, const char *name, size_t pos)
{
    for (size_t i = 0; i < sizeof p_names / sizeof p_names[0]; i++)
        if (strcmp(name, p_names[i].name) == 0) {
            t->kind = p_names[i].kind;
            t->an = p_names[i].an;
            t->an_flag = p_names[i].flag;
            if (t->kind == K_AN) p->f->uses_an = true;
            if (t->kind == K_FRAME_TEPOCH || t->kind == K_FRAME_TREL || t->kind == K_FRAME_TDELTA) p->f->uses_time = true;
            if ((t->kind >= K_FRAME && t->kind <= K_FRAME_TDELTA) || t->kind == K_PROTOS || t->kind == K_COMMENT) p->f->uses_frame = true;
            return true;
        }
    if (an_name(name, t)) {
        if (t->kind == K_AN) p->f->uses_an = true;
        return true;
    }
    if (strncmp(name, "ub.err.", 7) == 0) { /* the plugin's expert items per decode error: presence */
        for (unsigned c = 1; c < UB_E__COUNT; c++) {
            const ub_err_info *ei = ub_err_get(c);
            if (!ei || !ei->name || strcmp(ei->name, name + 7) != 0) continue;
            t->kind = K_ERROR;
            t->an = 1; /* one error code: t->lit */
            t->lit = c;
            return true;
        }
    }
    bool ok = false;
    if (strcmp(name, "ub.cna") == 0) { /* hidden plugin field: both CNAs of the NTH */
        ok = add_rows(p, t, "ub.nth.scna", 0, 0) && add_rows(p, t, "ub.nth.dcna", 1, 0);
    } else if (strcmp(name, "ub.eid") == 0) { /* both compact (20-bit) EIDs */
        ok = add_rows(p, t, "ub.eidh.seid", 0, UB_H_EIDH40) && add_rows(p, t, "ub.eidh.deid", 1, UB_H_EIDH40);
    } else if (strncmp(name, "ub.", 3) == 0) {
        ok = add_rows(p, t, name, 0, 0);
    } else {
        /* Wireshark's outer-header names (wsnames.c), a name with two rows matches either; every entry
         * of the name (ip.version: IPv4's and IPv6's row) */
        const ub_wsname *wn[4];
        size_t nws = ub_ws_find(name, wn, 4);
        bool ws = false;
        for (size_t i = 0; i < nws && !p->failed; i++) {
            if (wn[i]->flags & UB_WS_NOFILTER) continue;
            t->outer = 1;
            t->scale = wn[i]->scale;
            t->wscond = wn[i]->flags & (UB_WS_LEN | UB_WS_TYPE);
            ok = (!ws || ok) && add_rows(p, t, wn[i]->ub[0], 0, 0) && (!wn[i]->ub[1] || add_rows(p, t, wn[i]->ub[1], 1, 0));
            ws = true;
        }
        if (!ok && !p->failed) { /* a neighbouring protocol's own names: infiniband.*, sue.*, pcieflit.* */
            const ub_hdr *fh[1];
            const ub_field *ff[1];
            if (ub_field_find(name, fh, ff, 1) && ub_hdr_foreign(fh[0])) ok = add_rows(p, t, name, 0, 0);
        }
    }
    if (p->failed) return false;
    int pt;
    if ((pt = ub_ws_ptoken(name)) >= 0) { /* llc, stp, lldp, ...: in frame.protocols (as Wireshark: its dissector ran) */
        t->kind = K_PTOKEN;
        t->lit = (uint64_t)pt;
        t->outer = 1;
        p->f->uses_frame = true;
        return true;
    }
    if (!ok || t->nc == 0) {
        ub_fp_err(p, pos, "unknown field '%s' (ubdump -G fields lists them)", name);
        return false;
    }
    t->kind = t->f[0] ? K_FIELD : K_HDR;
    return true;
}

/* [i] [i:n] [i-j] [i:] [:n] [-n:] after a name */
bool ub_fp_slice(parser *p, ftest *t)
{
    size_t lb = p->cur.pos;
    ub_fp_next(p);
    tok w = p->cur;
    const char *s = p->s + w.pos;
    size_t n = w.len;
    if (w.t == T_CMP && w.op == OP_MATCHES) { ub_fp_err(p, w.pos, "bad slice"); return false; }
    if (w.t != T_WORD) { ub_fp_err(p, w.pos, "expected a range like [0:2], [1] or [2-4] after '['"); return false; }
    long a = 0, b = -1;
    bool have_a = false, colon = false, dash = false;
    size_t k = 0;
    bool neg = false;
    if (k < n && s[k] == '-') { neg = true; k++; }
    while (k < n && s[k] >= '0' && s[k] <= '9' && a < 100000) { a = a * 10 + (s[k] - '0'); k++; have_a = true; }
    if (neg) { if (!have_a) { ub_fp_err(p, w.pos, "bad slice offset"); return false; } a = -a; }
    if (k < n && s[k] == ':') colon = true, k++;
    else if (k < n && s[k] == '-' && have_a) dash = true, k++;
    if (k < n) {
        b = 0;
        while (k < n && s[k] >= '0' && s[k] <= '9' && b < 100000) { b = b * 10 + (s[k] - '0'); k++; }
    }
    if (k != n || (!have_a && !colon) || (dash && (b < 0 || a < 0 || b < a))) {
        ub_fp_err(p, w.pos, "bad slice '%.*s' (use [i], [i:n], [i-j], [i:] or [:n])", (int)(n > 32 ? 32 : n), s);
        return false;
    }
    t->slice = 1;
    t->sl_from = (int32_t)a;
    if (dash) t->sl_count = (int32_t)(b - a + 1);
    else if (colon) t->sl_count = b < 0 ? -1 : (int32_t)b;
    else t->sl_count = 1;
    ub_fp_next(p);
    if (p->cur.t != T_RB) { ub_fp_err(p, p->cur.pos, "missing ']' of the slice opened at column %zu", lb + 1); return false; }
    ub_fp_next(p);
    return true;
}

/* tshark refuses an integer literal above the maximum of the field's FT_UINTn (ub_field_ws_bytes):
 * false (with its message) when v exceeds it for every candidate of the name */
static bool lit_fits(parser *p, const ftest *t, const char *ls, size_t ln, size_t pos, uint64_t v, const char *name)
{
    uint64_t max = 0;
    bool named = false;
    for (unsigned k = 0; k < t->nc; k++) {
        const ub_field *f = t->f[k];
        unsigned nb = f->type == UB_FT_UINT && !(f->flags & UB_FF_SIGNED) ? ub_field_ws_bytes(f) : 0;
        if (!nb) return true;
        uint64_t m = nb >= 8 ? UINT64_MAX : (1ull << (8 * nb)) - 1u;
        if (m > max) max = m;
        if (f->vals) named = true;
    }
    if (v <= max) return true;
    int w = (int)(ln > 64 ? 64 : ln);
    if (named) ub_fp_err(p, pos, "\"%.*s\" cannot be found among the possible values for %s.", w, ls, name);
    else ub_fp_err(p, pos, "\"%.*s\" too big for this field, maximum %llu.", w, ls, (unsigned long long)max);
    return false;
}

/* a character constant 'c' as a number (Wireshark 4.0: the escapes of strings, one byte) */
bool ub_fp_chr(parser *p, const tok *lt, lit *L)
{
    char q[16];
    size_t in = lt->len - 2;
    if (lt->len < 3 || in + 2 > sizeof q) { ub_fp_err(p, lt->pos, "%.*s is not a valid character constant", (int)(lt->len > 16 ? 16 : lt->len), p->s + lt->pos); return false; }
    q[0] = '"';
    memcpy(q + 1, p->s + lt->pos + 1, in);
    q[in + 1] = '"';
    ub_lit_str(q, in + 2, L);
    if (L->esc_err >= 0 || L->nstr != 1) {
        ub_fp_err(p, lt->pos, "%.*s is not a valid character constant", (int)(lt->len > 16 ? 16 : lt->len), p->s + lt->pos);
        return false;
    }
    uint8_t c = (uint8_t)L->str[0];
    memset(L, 0, sizeof *L);
    L->num_ok = true;
    L->num = c;
    L->bytes_ok = true; /* against a byte string: that byte */
    L->bytes[0] = c;
    L->nbytes = 1;
    L->prefix = -1;
    L->esc_err = -1;
    return true;
}

/* compile the literal token lt for test t with operator op (OP_RANGE: lt is "lo..hi") */
static void bind_lit(parser *p, ftest *t, int op, const tok *opt, const tok *lt, const char *name)
{
    t->op = (uint8_t)op;
    t->prefix = -1;
    bool strop = op == OP_CONTAINS || op == OP_MATCHES;
    const char *ls = p->s + lt->pos;
    size_t ln = lt->len;
    if (op == OP_RANGE) {
        const char *dd = NULL;
        for (size_t k = 0; k + 1 < ln; k++)
            if (ls[k] == '.' && ls[k + 1] == '.') { dd = ls + k; break; }
        lit A, B;
        int64_t x, y;
        if (t->kind == K_FIELD || ub_fp_kind_num(t)) {
            if (dd && ub_lit_word(ls, (size_t)(dd - ls), &A) && ub_lit_word(dd + 2, ln - (size_t)(dd - ls) - 2, &B) &&
                A.num_ok && B.num_ok) {
                if (t->kind == K_FIELD && !t->slice &&
                    (!lit_fits(p, t, ls, (size_t)(dd - ls), lt->pos, A.num, name) ||
                     !lit_fits(p, t, dd + 2, ln - (size_t)(dd - ls) - 2, lt->pos + (size_t)(dd + 2 - ls), B.num, name)))
                    return;
                t->lit = A.num;
                t->hi = B.num;
                if (t->kind == K_FIELD)
                    for (unsigned k = 0; k < t->nc; k++)
                        if (!is_bytes_field(t->f[k]) && !t->slice) { t->cmode[k] = CM_NUM; t->num[k] = A.num; }
                return;
            }
        } else if (ub_fp_kind_time(t)) {
            if (dd && ub_lit_secs(ls, (size_t)(dd - ls), &x) && ub_lit_secs(dd + 2, ln - (size_t)(dd - ls) - 2, &y)) {
                t->lit = (uint64_t)x;
                t->hi = (uint64_t)y;
                return;
            }
        }
        ub_fp_err(p, lt->pos, "a range in a set is two numbers: lo..hi");
        return;
    }
    lit L;
    if (lt->t == T_CHR) {
        if (!ub_fp_chr(p, lt, &L)) return;
        if (ub_fp_kind_time(t)) { ub_fp_err(p, lt->pos, "%s compares with seconds, e.g. 0.25", name); return; }
    } else if (lt->t == T_STR) {
        ub_lit_str(ls, ln, &L);
        if (L.esc_err >= 0) { /* Wireshark's messages */
            static const char *const what[] = { "is not a valid character escape sequence", "is larger than 255",
                                                "is not a valid universal character name" };
            ub_fp_err(p, lt->pos + (size_t)L.esc_err, "%.*s %s", L.esc_len, ls + L.esc_err, what[L.esc_kind]);
            return;
        }
    }
    else if (ub_fp_kind_time(t)) {
        int64_t ns;
        if (!ub_lit_secs(ls, ln, &ns)) { ub_fp_err(p, lt->pos, "%s compares with seconds, e.g. 0.25", name); return; }
        t->lit = (uint64_t)ns;
        goto time_ops;
    } else if (!ub_lit_word(ls, ln, &L)) {
        if (ln > 3 && memcmp(ls, "ub.", 3) == 0)
            ub_fp_err(p, lt->pos, "unknown field '%.*s' (ubdump -G fields lists them)", (int)(ln > 64 ? 64 : ln), ls);
        else
            ub_fp_err(p, lt->pos, "'%.*s' is not a number, byte string or address (value names go in quotes: \"%.*s\")",
                 (int)(ln > 64 ? 64 : ln), ls, (int)(ln > 64 ? 64 : ln), ls);
        return;
    }
    if (op == OP_MATCHES) {
        if (!L.is_str) { ub_fp_err(p, lt->pos, "matches needs a quoted regular expression"); return; }
        if (L.str_long) { ub_fp_err(p, lt->pos, "regular expression too long"); return; }
        char m[200];
        size_t off = 0;
        if (!(t->re = ub_re_compile((const uint8_t *)L.str, L.nstr, m, sizeof m, &off))) { /* filter_re.c */
            ub_fp_err(p, lt->pos, "bad regular expression: %s (at character %zu of the pattern)", m, off);
            return;
        }
    }
    if (L.bytes_ok) {
        memcpy(t->bytes, L.bytes, L.nbytes);
        t->nbytes = L.nbytes;
    }
    switch (t->kind) {
    case K_HDR:
    case K_UB:
    case K_PTOKEN:
        ub_fp_err(p, opt->pos, "'%s' is a %s: it can only be tested for presence", name, t->kind == K_PTOKEN ? "protocol" : "header");
        return;
    case K_FRAME:
        if (!t->slice && !strop) { ub_fp_err(p, opt->pos, "'frame' compares as bytes: slice it (frame[0:2]) or use contains"); return; }
        if (op != OP_MATCHES && !L.bytes_ok) { ub_fp_err(p, lt->pos, "expected a byte string like aa:bb:cc"); return; }
        return;
    case K_ERROR: {
        if (t->an) { ub_fp_err(p, opt->pos, "'%s' is an expert item: it can only be tested for presence", name); return; }
        if (!L.is_str) { ub_fp_err(p, lt->pos, "ub.error compares with a quoted error name, e.g. ub.error == \"bcrc_bad\""); return; }
        if (op != OP_EQ && op != OP_NE && op != OP_ANY_NE && op != OP_ALL_EQ) {
            ub_fp_err(p, opt->pos, "ub.error supports ==, !=, === and !== only");
            return;
        }
        for (unsigned c = 1; c < UB_E__COUNT; c++) {
            const ub_err_info *ei = ub_err_get(c);
            if (ei && ei->name && ieq(ei->name, L.str)) { t->lit = c; return; }
        }
        ub_fp_err(p, lt->pos, "unknown error name \"%s\" (ubdump -G errors lists them)", L.str);
        return;
    }
    case K_PROTOS: case K_TPEP: case K_COMMENT: /* string fields: frame.protocols, ub.analysis.tp_src/tp_dst/tp_endpoint, frame.comment */
        if (op == OP_MATCHES) return;
        if (!L.is_str && !t->slice && ln <= sizeof t->bytes) { /* an unquoted value is its text, as in Wireshark */
            memcpy(t->bytes, ls, ln);
            t->nbytes = (uint32_t)ln;
            return;
        }
        if (!L.bytes_ok || (!L.is_str && !t->slice)) { /* a slice of frame.protocols compares with bytes too (65:74:68) */
            ub_fp_err(p, lt->pos, "%s compares with a quoted string, e.g. \"%s\"", name,
                      t->kind == K_PROTOS ? "eth:ethertype:ip:udp:ub" : t->kind == K_COMMENT ? "a comment" : "0x000001:0x10");
            return;
        }
        if (op == OP_BITAND || op == OP_RANGE) { ub_fp_err(p, opt->pos, "%s is a string", name); return; }
        return;
    case K_AN:
        if (t->an == AN_RULE) {
            if (op == OP_MATCHES) return;
            if (!L.is_str) { ub_fp_err(p, lt->pos, "ub.analysis.rule compares with a quoted rule id, e.g. \"UB-TP-002\""); return; }
            if (op == OP_CONTAINS) return;
            const ub_rule *r = ub_rule_by_id(L.str);
            if (!r) {
                for (unsigned i = 0; i < ub_rule_count() && !r; i++)
                    if (ub_rule_get(i) && ieq(ub_rule_get(i)->id, L.str)) r = ub_rule_get(i);
            }
            if (!r) { ub_fp_err(p, lt->pos, "unknown rule \"%s\" (ubdump -G rules lists them)", L.str); return; }
            if (op != OP_EQ && op != OP_NE && op != OP_ANY_NE && op != OP_ALL_EQ) {
                ub_fp_err(p, opt->pos, "ub.analysis.rule supports ==, !=, contains and matches");
                return;
            }
            t->lit = r->idx;
            t->nbytes = 0;
            return;
        }
        if (!ub_fp_kind_num(t)) { ub_fp_err(p, opt->pos, "'%s' can only be tested for presence", name); return; }
        /* fall through */
    case K_FRAME_NUM: case K_FRAME_LEN: case K_FRAME_CAPLEN: case K_FRAME_IFID: case K_FRAME_DIR:
        if (strop || !L.num_ok || L.is_str) { ub_fp_err(p, lt->pos, "%s compares with a number", name); return; }
        if (t->kind != K_FRAME_DIR && L.num > UINT32_MAX) { /* FT_UINT32, as tshark */
            ub_fp_err(p, lt->pos, "\"%.*s\" too big for this field, maximum 4294967295.", (int)(ln > 64 ? 64 : ln), ls);
            return;
        }
        t->lit = L.num;
        return;
    case K_FRAME_TEPOCH: case K_FRAME_TREL: case K_FRAME_TDELTA:
    time_ops:
        if (strop) { ub_fp_err(p, opt->pos, "%s compares with seconds", name); return; }
        return;
    default: break;
    }
    /* schema field: decide per candidate how to compare */
    if (L.prefix >= 0) {
        if (op != OP_EQ && op != OP_NE && op != OP_ANY_NE && op != OP_ALL_EQ) {
            ub_fp_err(p, opt->pos, "an address/prefix compares with == or != only");
            return;
        }
        t->prefix = (int16_t)L.prefix;
    }
    bool any = false, names_tried = false;
    const ub_field *named_example = NULL;
    for (unsigned k = 0; k < t->nc; k++) {
        const ub_field *f = t->f[k];
        t->cmode[k] = CM_NEVER;
        if (t->slice || strop) {
            if (ub_fp_sliceable(f, strop) && (L.bytes_ok || op == OP_MATCHES)) { t->cmode[k] = CM_BYTES; any = true; }
        } else if (t->has_mask) {
            if (!is_bytes_field(f) && f->type != UB_FT_MAC && L.num_ok && !L.is_str) {
                t->cmode[k] = CM_NUM;
                t->num[k] = L.num;
                any = true;
            }
        } else if (L.is_str) {
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
            if (L.bytes_ok && (L.prefix < 0 || f->type == UB_FT_IPV6)) { t->cmode[k] = CM_BYTES; any = true; }
        } else if (L.prefix >= 0) {
            if (f->type == UB_FT_IPV4 && L.nbytes == 4) { t->cmode[k] = CM_NUM; t->num[k] = L.num; any = true; }
        } else if (L.num_ok) {
            if (!lit_fits(p, t, ls, ln, lt->pos, L.num, name)) return;
            t->cmode[k] = CM_NUM;
            t->num[k] = L.num;
            any = true;
        }
    }
    if (any) return;
    if (t->slice || strop) {
        if (!ub_fp_sliceable(t->f[0], strop))
            ub_fp_err(p, t->slice ? opt->pos : opt->pos, "'%s' is %s: it cannot be %s", name,
                 t->f[0]->type == UB_FT_IPV4 ? "an IPv4 address" : "a number",
                 t->slice ? "sliced" : op == OP_CONTAINS ? "searched with contains" : "matched with a regex");
        else
            ub_fp_err(p, lt->pos, "expected a byte string like aa:bb:cc");
        return;
    }
    if (L.is_str && names_tried) {
        if (!named_example) {
            ub_fp_err(p, lt->pos, "field '%s' has no value names: compare it with a number", name);
        } else {
            char known[160];
            size_t o = 0;
            known[0] = 0;
            unsigned cnt = 0;
            for (const ub_vname *v = named_example->vals; v->name && o + 40 < sizeof known; v++, cnt++)
                o += (size_t)snprintf(known + o, sizeof known - o, "%s\"%s\"", cnt ? ", " : "", v->name);
            ub_fp_err(p, lt->pos, "\"%s\" is not a value name of '%s' (e.g. %s%s)", L.str, name, known,
                 named_example->vals[cnt].name ? ", ..." : "");
        }
    } else {
        ub_fp_err(p, lt->pos, "cannot compare field '%s' with this value (%s)", name,
             is_bytes_field(t->f[0]) ? "it is a byte string: write aa:bb:cc..." : "expected a number");
    }
}

uint32_t ub_fp_copy_test(parser *p, uint32_t ti)
{
    ftest *u = ub_fp_new_test(p);
    if (!u) return 0;
    const ftest *c = &p->f->tests[ti]; /* (after ub_fp_new_test: the array may have moved) */
    uint32_t ui = p->f->ntests - 1;
    u->kind = c->kind;
    u->an = c->an;
    u->an_flag = c->an_flag;
    u->outer = c->outer;
    u->slice = c->slice;
    u->sl_from = c->sl_from;
    u->sl_count = c->sl_count;
    u->has_mask = c->has_mask;
    u->mask = c->mask;
    u->prefix = -1;
    if (c->nc) {
        u->h = malloc(c->nc * sizeof *u->h);
        u->f = malloc(c->nc * sizeof *u->f);
        u->grp = malloc(c->nc);
        u->cmode = calloc(c->nc, 1);
        u->num = calloc(c->nc, sizeof *u->num);
        if (!u->h || !u->f || !u->grp || !u->cmode || !u->num) { ub_fp_err(p, p->cur.pos, "out of memory"); return 0; }
        memcpy(u->h, c->h, c->nc * sizeof *u->h);
        memcpy(u->f, c->f, c->nc * sizeof *u->f);
        memcpy(u->grp, c->grp, c->nc);
        u->nc = c->nc;
    }
    return ui;
}

/* A test on a name: presence, comparison, `in {set}` / `not in {set}`, `& mask`, slices. */
static void make_field_test(parser *p, const tok *ft, const char *name)
{
    ftest *t = ub_fp_new_test(p);
    if (!t) return;
    uint32_t ti = p->f->ntests - 1;
    if (!ub_fp_resolve(p, t, name, ft->pos)) return;
    ub_fp_next(p);
    if (p->cur.t == T_LB) {
        t = &p->f->tests[ti];
        if (t->kind != K_FIELD && t->kind != K_FRAME && t->kind != K_PROTOS && t->kind != K_COMMENT) {
            ub_fp_err(p, p->cur.pos, "'%s' cannot be sliced (slices apply to byte strings, strings, addresses and frame)", name);
            return;
        }
        if (t->kind == K_FIELD && !ub_fp_sliceable(t->f[0], false)) {
            ub_fp_err(p, p->cur.pos, "'%s' is a number: it cannot be sliced", name);
            return;
        }
        if (!ub_fp_slice(p, t)) return;
    }
    if (p->cur.t == T_BITAND) {
        t = &p->f->tests[ti];
        tok at = p->cur, mt;
        ub_fp_next(p);
        mt = p->cur;
        lit M;
        bool num = mt.t == T_WORD && ub_lit_word(p->s + mt.pos, mt.len, &M) && M.num_ok;
        if (!num && (mt.t == T_WORD || mt.t == T_LP || mt.t == T_NOT)) { ub_fp_err(p, at.pos, "use '&&'"); return; }
        if (t->kind != K_FIELD || t->slice) { ub_fp_err(p, at.pos, "'&' (bitwise and) applies to integer fields"); return; }
        if (!num) {
            ub_fp_err(p, mt.pos, "expected a number (a bit mask) after '&'");
            return;
        }
        t->has_mask = 1;
        t->mask = M.num;
        ub_fp_next(p);
        if (p->cur.t != T_CMP) {
            t->op = OP_BITAND;
            for (unsigned k = 0; k < t->nc; k++)
                t->cmode[k] = (is_bytes_field(t->f[k]) || t->f[k]->type == UB_FT_MAC) ? CM_NEVER : CM_NUM;
            ub_fp_emit(p, I_TEST, ti);
            return;
        }
    }
    bool notin = false; /* Wireshark 4.0's "f not in {...}" (also "!in"): !(f in {...}) */
    if (p->cur.t == T_NOT) {
        tok nt = p->cur;
        size_t ni = p->i;
        ub_fp_next(p);
        notin = p->cur.t == T_IN;
        if (!notin) { /* not an operator of this test: the caller reports it */
            p->cur = nt;
            p->i = ni;
        }
    }
    if (p->cur.t == T_IN) {
        /* f in {a, b, lo..hi, g}: f == a || f == b || lo <= f <= hi || f == g (g: a field or function);
         * the elements separated by commas, as Wireshark 4.0 requires. "not in" is !(f in {...}) whatever
         * "any" / "all" said, as Wireshark 4.0 compiles it */
        size_t inpos = p->cur.pos;
        if (notin) p->f->tests[ti].quant = 0;
        const uint8_t saved_quant = p->quant;
        if (notin) p->quant = 0;
        if (p->f->tests[ti].slice) { /* as Wireshark 4.0 */
            ub_fp_err(p, inpos, "only a field may be tested for membership in a set, not a slice (use == and ||)");
            return;
        }
        ub_fp_next(p);
        if (p->cur.t != T_LBR) { ub_fp_err(p, p->cur.pos, "expected '{' after 'in'"); return; }
        ub_fp_next(p);
        uint32_t fix[64];
        unsigned nfix = 0, nel = 0;
        tok opt = { T_CMP, OP_EQ, inpos, 2 };
        for (;;) {
            if (p->cur.t == T_RBR) break;
            if (nel) {
                if (p->cur.t != T_COMMA) {
                    ub_fp_err(p, p->cur.pos, p->cur.t == T_END ? "missing '}'" : "expected ',' or '}' after a set element");
                    return;
                }
                ub_fp_next(p);
                if (p->cur.t == T_RBR || p->cur.t == T_COMMA) {
                    ub_fp_err(p, p->cur.pos, "expected a value after ',' in the set");
                    return;
                }
            }
            tok lt = p->cur;
            if (nel) emit_jump(p, I_JT, fix, &nfix);
            if (ub_fp_gen_in_elem(p, ti, inpos)) { /* a field or a function: filter_expr.c */
                if (p->failed) return;
                nel++;
                continue;
            }
            if (lt.t != T_WORD && lt.t != T_STR && lt.t != T_CHR) {
                ub_fp_err(p, lt.pos, lt.t == T_END ? "missing '}'" : "expected a value or '}' in the set");
                return;
            }
            bool range = false;
            if (lt.t == T_WORD)
                for (size_t k = 0; k + 1 < lt.len; k++)
                    if (p->s[lt.pos + k] == '.' && p->s[lt.pos + k + 1] == '.') range = true;
            ftest *u = &p->f->tests[ti];
            if (nel) { /* another test on the same name (and slice) */
                uint32_t ui = ub_fp_copy_test(p, ti);
                if (p->failed) return;
                u = &p->f->tests[ui];
                ub_fp_emit(p, I_TEST, ui);
            } else {
                ub_fp_emit(p, I_TEST, ti);
            }
            bind_lit(p, u, range ? OP_RANGE : OP_EQ, &opt, &lt, name);
            if (p->failed) return;
            nel++;
            ub_fp_next(p);
        }
        p->quant = saved_quant;
        if (!nel) { ub_fp_err(p, p->cur.pos, "empty set"); return; }
        ub_fp_next(p);
        for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = p->f->ncode;
        if (notin) ub_fp_emit(p, I_NOT, 0); /* the elements' jumps land here */
        return;
    }
    ub_fp_emit(p, I_TEST, ti);
    t = &p->f->tests[ti];
    if (p->cur.t != T_CMP) {
        if (t->has_mask) return;
        if (t->slice) { ub_fp_err(p, p->cur.pos, "a slice must be compared with a value"); return; }
        t->op = OP_EXISTS;
        return;
    }
    /* comparison */
    tok opt = p->cur;
    ub_fp_next(p);
    tok lt = p->cur;
    if (lt.t == T_BAD && p->s[lt.pos] == '$') {
        ub_fp_err(p, lt.pos, "field references ${...} name the packet selected in Wireshark's window; there is none here");
        return;
    }
    if (lt.t != T_WORD && lt.t != T_STR && lt.t != T_CHR) {
        ub_fp_err(p, lt.pos, lt.t == T_END ? "missing value after the comparison operator" : "expected a value after the comparison operator");
        return;
    }
    bind_lit(p, &p->f->tests[ti], opt.op, &opt, &lt, name);
    if (p->failed) return;
    ub_fp_next(p);
}

static void parse_primary(parser *p)
{
    tok t = p->cur;
    switch (t.t) {
    case T_LP: {
        if (++p->depth > UB_FILTER_MAX_DEPTH) { ub_fp_err(p, t.pos, "expression nested too deeply"); return; }
        ub_fp_next(p);
        if (p->cur.t == T_RP) { ub_fp_err(p, p->cur.pos, "empty parentheses"); return; }
        parse_or(p);
        if (p->failed) return;
        if (p->cur.t != T_RP) { ub_fp_err(p, p->cur.pos, p->cur.t == T_END ? "missing ')'" : "expected ')'"); return; }
        p->depth--;
        ub_fp_next(p);
        return;
    }
    case T_WORD: {
        char name[128];
        if (t.len >= sizeof name) { ub_fp_err(p, t.pos, "field name too long"); return; }
        memcpy(name, p->s + t.pos, t.len);
        name[t.len] = 0;
        uint8_t quant = 0; /* Wireshark 4.0: "any" / "all" before a field compared with a value */
        if (strcmp(name, "any") == 0 || strcmp(name, "all") == 0) {
            quant = name[1] == 'n' ? Q_ANY : Q_ALL;
            ub_fp_next(p);
            t = p->cur;
            if (t.t != T_WORD || t.len >= sizeof name) {
                ub_fp_err(p, t.pos, "'%s' must be followed by a field compared with a value", quant == Q_ANY ? "any" : "all");
                return;
            }
            memcpy(name, p->s + t.pos, t.len);
            name[t.len] = 0;
            if (ub_fp_gen_ahead(p)) {
                ub_fp_err(p, t.pos, "'%s' applies to a field compared with a value, not to functions or arithmetic",
                          quant == Q_ANY ? "any" : "all");
                return;
            }
            const uint32_t ti = p->f->ntests;
            p->quant = quant;
            make_field_test(p, &t, name);
            p->quant = 0;
            if (p->failed) return;
            if (p->f->tests[ti].op == OP_EXISTS) {
                ub_fp_err(p, t.pos, "'%s' needs a comparison after the field", quant == Q_ANY ? "any" : "all");
                return;
            }
            return;
        }
        if (ub_fp_gen_ahead(p)) { /* functions, arithmetic, field against field (filter_expr.c) */
            ub_fp_gen_test(p);
            return;
        }
        lit L;
        if (ub_lit_word(name, t.len, &L) && !(t.len > 3 && memcmp(name, "ub.", 3) == 0)) {
            ub_fp_err(p, t.pos, "expected a field name, found the value '%s'", name);
            return;
        }
        make_field_test(p, &t, name);
        return;
    }
    case T_END: ub_fp_err(p, t.pos, "unexpected end of the expression: expected a field name or '('"); return;
    case T_RP: ub_fp_err(p, t.pos, "unexpected ')'"); return;
    case T_STR: ub_fp_err(p, t.pos, "a quoted value must follow a field and a comparison operator"); return;
    case T_CMP: ub_fp_err(p, t.pos, "comparison operator without a field before it"); return;
    case T_IN: ub_fp_err(p, t.pos, "'in' must follow a field name"); return;
    case T_LBR: ub_fp_gen_test(p); return; /* { arithmetic } (filter_expr.c) */
    case T_LB: ub_fp_err(p, t.pos, "'[' must follow a field (a slice)"); return;
    case T_AND: case T_OR: case T_XOR: ub_fp_err(p, t.pos, "'%.*s' without an operand before it", (int)t.len, p->s + t.pos); return;
    default: ub_fp_err(p, t.pos, "unexpected character '%c'", p->s[t.pos]); return;
    }
}

static void parse_not(parser *p)
{
    unsigned nots = 0;
    while (p->cur.t == T_NOT) {
        if (++nots > UB_FILTER_MAX_DEPTH) { ub_fp_err(p, p->cur.pos, "too many negations"); return; }
        ub_fp_next(p);
    }
    parse_primary(p);
    if (nots & 1) ub_fp_emit(p, I_NOT, 0);
}

static void parse_and(parser *p)
{
    uint32_t fix[64];
    unsigned nfix = 0;
    parse_not(p);
    while (!p->failed && p->cur.t == T_AND) {
        emit_jump(p, I_JF, fix, &nfix);
        ub_fp_next(p);
        parse_not(p);
    }
    if (p->failed) return;
    for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = p->f->ncode;
}

/* a ^^ b: a; PUSH; b; XOR (between || and && as in Wireshark 4.2) */
static void parse_xor(parser *p)
{
    parse_and(p);
    while (!p->failed && p->cur.t == T_XOR) {
        ub_fp_emit(p, I_PUSH, 0);
        ub_fp_next(p);
        parse_and(p);
        ub_fp_emit(p, I_XOR, 0);
    }
}

static void parse_or(parser *p)
{
    uint32_t fix[64];
    unsigned nfix = 0;
    parse_xor(p);
    while (!p->failed && p->cur.t == T_OR) {
        emit_jump(p, I_JT, fix, &nfix);
        ub_fp_next(p);
        parse_xor(p);
    }
    if (p->failed) return;
    for (unsigned k = 0; k < nfix; k++) p->f->code[fix[k]].arg = p->f->ncode;
}

void ub_filter_free(ub_filter *f)
{
    if (!f) return;
    for (uint32_t i = 0; i < f->ntests; i++) ub_fp_free_test(&f->tests[i]);
    for (uint32_t i = 0; i < f->nnodes; i++) free(f->nodes[i].b);
    free(f->nodes);
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
    if (!expr) { ub_fp_err(&P, 0, "no expression"); return NULL; }
    P.s = expr;
    P.n = strlen(expr);
    if (P.n > UB_FILTER_MAX_LEN) { ub_fp_err(&P, UB_FILTER_MAX_LEN, "expression longer than %d characters", UB_FILTER_MAX_LEN); return NULL; }
    P.f = calloc(1, sizeof *P.f);
    if (!P.f) { ub_fp_err(&P, 0, "out of memory"); return NULL; }
    ub_fp_next(&P);
    if (P.cur.t == T_END) ub_fp_err(&P, 0, "empty filter expression");
    else parse_or(&P);
    if (!P.failed && P.cur.t != T_END) {
        tok t = P.cur;
        if (t.t == T_CMP) ub_fp_err(&P, t.pos, "comparison operator after a complete test (compare a field with a value)");
        else if (t.t == T_RP) ub_fp_err(&P, t.pos, "unbalanced ')'");
        else if (t.t == T_BAD && P.s[t.pos] == '"') ub_fp_err(&P, t.pos, "unterminated string");
        else if (t.t == T_BAD && (P.s[t.pos] == '&' || P.s[t.pos] == '|'))
            ub_fp_err(&P, t.pos, "use '%c%c'", P.s[t.pos], P.s[t.pos]);
        else if (t.t == T_BAD && P.s[t.pos] == '=') ub_fp_err(&P, t.pos, "use '==' to compare");
        else if (t.t == T_BITAND) ub_fp_err(&P, t.pos, "'&' (bitwise and) must follow an integer field; logical and is '&&'");
        else if (t.t == T_IN) ub_fp_err(&P, t.pos, "'in' must follow a field name");
        else ub_fp_err(&P, t.pos, "expected '&&', '||' or the end of the expression, found '%.*s'",
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


bool ub_filter_uses_analysis(const ub_filter *f) { return f && f->uses_an; }
bool ub_filter_uses_frame(const ub_filter *f) { return f && f->uses_frame; }

ub_filter *ub_filter_compile_live(const char *expr, char *err, size_t errlen)
{
    ub_filter *f = ub_filter_compile(expr, err, errlen);
    if (!f || (!f->uses_an && !f->uses_time)) return f;
    snprintf(err, errlen, "%s", f->uses_an ? "ub.analysis.* needs the state engine's pass over the whole capture "
                                               "(ubdump -Y); not available in this filter"
                                             : "frame.time_* fields are not available in this filter (ubdump -Y has them)");
    ub_filter_free(f);
    return NULL;
}
