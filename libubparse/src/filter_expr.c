/* Display filters: Wireshark 4.0's value expressions, parsed — functions, arithmetic and a field
 * compared with a field (filter_gen.c evaluates them). Each side of the comparison becomes a tree of
 * gnode (f->nodes, by index: the array grows while parsing); each field in it is a test of its own
 * (tests[src]) that only yields values and is never run as a test. */
#include "filter_parse.h"

#include <stdlib.h>
#include <string.h>

static const char *const fn_names[] = { [FN_LEN] = "len", [FN_COUNT] = "count", [FN_UPPER] = "upper", [FN_LOWER] = "lower",
                                        [FN_STRING] = "string", [FN_ABS] = "abs", [FN_MAX] = "max", [FN_MIN] = "min" };

/* the function a word names when '(' follows it, else -1 */
static int fn_of(const parser *p, const tok *t)
{
    if (t->t != T_WORD) return -1;
    size_t j = t->pos + t->len;
    while (j < p->n && (p->s[j] == ' ' || p->s[j] == '\t')) j++;
    if (j >= p->n || p->s[j] != '(') return -1;
    for (int k = 0; k < (int)(sizeof fn_names / sizeof fn_names[0]); k++)
        if (ub_fp_word_is(p, t, fn_names[k])) return k;
    return -1;
}

/* + - * / % at the current token (after an operand), else 0; "-1" there is '-' and then 1 */
static int arith_op(const parser *p)
{
    if (p->cur.t == T_ARITH) return p->cur.op;
    if (p->cur.t != T_WORD) return 0;
    char c = p->s[p->cur.pos];
    if (c == '-' || (c == '/' && p->cur.len == 1)) return c;
    return 0;
}

/* past the operator arith_op() saw (only its '-' when the word goes on) */
static void arith_skip(parser *p)
{
    if (p->cur.t == T_WORD && p->cur.len > 1) p->i = p->cur.pos + 1;
    ub_fp_next(p);
}

static uint32_t g_node(parser *p, uint8_t g, size_t pos)
{
    ub_filter *f = p->f;
    if (p->failed) return 0;
    if (f->nnodes == f->capnodes) {
        uint32_t nc = f->capnodes ? f->capnodes * 2 : 8;
        gnode *n = realloc(f->nodes, nc * sizeof *n);
        if (!n) { ub_fp_err(p, pos, "out of memory"); return 0; }
        f->nodes = n;
        f->capnodes = nc;
    }
    gnode *n = &f->nodes[f->nnodes];
    memset(n, 0, sizeof *n);
    n->g = g;
    n->depth = 1;
    n->tpos = (uint32_t)pos;
    return f->nnodes++;
}

/* node ni's depth from its children's; false (with the error) past GEN_DEPTH */
static bool g_depth(parser *p, uint32_t ni)
{
    gnode *n = &p->f->nodes[ni];
    unsigned na = n->g == G_FN ? n->nargs : n->g == G_NEG ? 1 : n->g >= G_ADD ? 2 : 0, d = 0;
    for (unsigned k = 0; k < na; k++)
        if (p->f->nodes[n->a[k]].depth > d) d = p->f->nodes[n->a[k]].depth;
    n->depth = (uint8_t)(d + 1);
    if (d + 1 <= GEN_DEPTH) return true;
    ub_fp_err(p, n->tpos, "expression too complex (more than %d levels of functions and arithmetic)", GEN_DEPTH);
    return false;
}

/* the type a test's values have (filter_match.c ub_ftest_values) */
static uint8_t src_vt(const ftest *t)
{
    switch (t->kind) {
    case K_FIELD: return t->slice ? VT_BYTES : ub_field_vt(t->f[0]);
    case K_FRAME: return VT_BYTES;
    case K_FRAME_DIR: return VT_INT;
    case K_TPEP: return VT_STR;
    case K_PROTOS: case K_COMMENT: return t->slice ? VT_BYTES : VT_STR; /* a slice of a string is bytes, as in Wireshark */
    case K_ERROR: return t->an ? VT_NONE : VT_UINT;
    case K_AN: return t->an == AN_RULE ? VT_STR : t->an == AN_LATENCY ? VT_TIME : ub_fp_kind_num(t) ? VT_UINT : VT_NONE;
    default: return ub_fp_kind_time(t) ? VT_TIME : ub_fp_kind_num(t) ? VT_UINT : VT_NONE;
    }
}

static bool is_num_vt(uint8_t vt) { return vt == VT_UINT || vt == VT_INT || vt == VT_TIME; }

/* a literal node takes the type want (VT_NONE: what it reads as); false with the error set */
static bool lit_type(parser *p, uint32_t ni, uint8_t want)
{
    gnode *n = &p->f->nodes[ni];
    if (n->vt != VT_NONE) return true; /* typed already */
    tok lt = { n->fn, 0, n->tpos, n->tlen };
    const char *ls = p->s + lt.pos;
    lit L;
    int64_t ns;
    if (want == VT_TIME && lt.t == T_WORD && ub_lit_secs(ls, lt.len, &ns)) {
        n->vt = VT_TIME;
        n->u = (uint64_t)ns;
        n->nb = 0;
        return true;
    }
    if (lt.t == T_CHR) {
        if (!ub_fp_chr(p, &lt, &L)) return false;
    } else if (lt.t == T_STR) {
        ub_lit_str(ls, lt.len, &L);
        if (L.esc_err >= 0) { ub_fp_err(p, lt.pos + (size_t)L.esc_err, "%.*s is not a valid escape", L.esc_len, ls + L.esc_err); return false; }
    } else if (!ub_lit_word(ls, lt.len, &L)) {
        ub_fp_err(p, lt.pos, "'%.*s' is neither a field nor a value", (int)(lt.len > 64 ? 64 : lt.len), ls);
        return false;
    }
    if (want == VT_NONE) want = L.is_str ? VT_STR : L.num_ok ? VT_UINT : VT_BYTES;
    if (want == VT_STR || want == VT_BYTES) { /* a string against a byte string: its bytes */
        bool str = want == VT_STR || L.is_str;
        if (str && !L.is_str) { ub_fp_err(p, lt.pos, "expected a quoted string"); return false; }
        if (str && L.str_long) { ub_fp_err(p, lt.pos, "string too long"); return false; }
        if (!str && (!L.bytes_ok || L.prefix >= 0)) { ub_fp_err(p, lt.pos, "expected a byte string like aa:bb:cc or an address"); return false; }
        n->nb = str ? L.nstr : L.nbytes;
        n->b = malloc(n->nb ? n->nb : 1);
        if (!n->b) { ub_fp_err(p, lt.pos, "out of memory"); return false; }
        memcpy(n->b, str ? (const uint8_t *)L.str : L.bytes, n->nb);
        n->vt = want;
        n->u = 0;
        return true;
    }
    if (!L.num_ok || L.is_str || want == VT_TIME) {
        ub_fp_err(p, lt.pos, want == VT_TIME ? "expected seconds, e.g. 0.25" : "expected a number");
        return false;
    }
    n->vt = want == VT_NONE ? VT_UINT : want;
    n->u = L.num;
    n->nb = 0;
    return true;
}

/* the size in bytes of node ni's numbers as Wireshark types them (its field's; arithmetic: its left
 * operand's), 0 when not known */
static unsigned g_ws(const parser *p, uint32_t ni, unsigned depth)
{
    const gnode *n = &p->f->nodes[ni];
    if (depth > UB_FILTER_MAX_DEPTH + GEN_DEPTH) return 0;
    if (n->g == G_SRC) {
        const ftest *t = &p->f->tests[n->src];
        if (t->kind == K_FIELD) return ub_field_vt(t->f[0]) == VT_UINT && !(t->f[0]->flags & UB_FF_SIGNED) ? ub_field_ws_bytes(t->f[0]) : 0;
        return src_vt(t) == VT_UINT ? 4 : 0;
    }
    if (n->g == G_FN) return n->fn == FN_LEN || n->fn == FN_COUNT ? 4 : g_ws(p, n->a[0], depth + 1);
    return n->g >= G_ADD ? g_ws(p, n->a[0], depth + 1) : 0;
}

/* a literal number against a side of ws bytes: tshark's "too big for this field" */
static bool g_fits(parser *p, uint32_t lit_ni, unsigned ws)
{
    const gnode *n = &p->f->nodes[lit_ni];
    if (n->g != G_LIT || n->vt != VT_UINT || !ws || ws >= 8) return true;
    uint64_t max = (1ull << (8 * ws)) - 1u;
    if (n->u <= max) return true;
    ub_fp_err(p, n->tpos, "\"%.*s\" too big for this field, maximum %llu.", (int)(n->tlen > 64 ? 64 : n->tlen), p->s + n->tpos,
         (unsigned long long)max);
    return false;
}

/* the type of node ni (literals typed by want); VT_NONE with the error set on a type error */
static uint8_t g_type(parser *p, uint32_t ni, uint8_t want)
{
    gnode *n = &p->f->nodes[ni];
    size_t pos = n->tpos;
    if (n->g == G_LIT) return lit_type(p, ni, want) ? p->f->nodes[ni].vt : VT_NONE;
    if (n->vt != VT_NONE) return n->vt;
    uint8_t vt = VT_NONE;
    switch (n->g) {
    case G_SRC: return src_vt(&p->f->tests[n->src]); /* VT_NONE: a header or flag (count(), len() only) */
    case G_NEG:
        vt = g_type(p, n->a[0], want == VT_TIME ? VT_TIME : VT_INT);
        if (p->failed) return VT_NONE;
        if (!is_num_vt(vt)) { ub_fp_err(p, pos, "'-' applies to numbers"); return VT_NONE; }
        vt = vt == VT_UINT ? VT_INT : vt;
        break;
    case G_FN: {
        const char *fname = fn_names[n->fn];
        if (n->fn == FN_MAX || n->fn == FN_MIN) {
            for (unsigned k = 0; k < n->nargs; k++) { /* every argument of the first typed one's type */
                const gnode *a = &p->f->nodes[n->a[k]];
                if (a->g != G_LIT && !vt) vt = g_type(p, n->a[k], want);
            }
            if (p->failed) return VT_NONE;
            if (vt == VT_NONE) vt = want;
            unsigned ws0 = 0;
            for (unsigned k = 0; k < n->nargs; k++) {
                uint8_t v = g_type(p, n->a[k], vt);
                if (p->failed) return VT_NONE;
                /* as tshark: one type, so also one integer width (FT_UINT24 and FT_UINT32 differ) */
                unsigned ws = p->f->nodes[n->a[k]].g == G_LIT ? 0 : g_ws(p, n->a[k], 0);
                if (v != vt || (ws && ws0 && ws != ws0)) {
                    ub_fp_err(p, (size_t)p->f->nodes[n->a[k]].tpos, "arguments to '%s' must have the same type", fname);
                    return VT_NONE;
                }
                if (ws) ws0 = ws;
            }
            if (vt == VT_NONE) { ub_fp_err(p, pos, "'%s' needs values to compare", fname); return VT_NONE; }
            break;
        }
        const gnode *a = &p->f->nodes[n->a[0]];
        /* a slice is no field either (Wireshark 4.0: len(frame[0:4]) is refused; upper() of a sliced string: bytes) */
        const bool sliced = a->g == G_SRC && p->f->tests[a->src].slice && n->fn != FN_UPPER && n->fn != FN_LOWER;
        if (n->fn != FN_ABS && (a->g != G_SRC || sliced)) { ub_fp_err(p, (size_t)a->tpos, "only fields can be used as parameter for %s()", fname); return VT_NONE; }
        uint8_t av = g_type(p, n->a[0], VT_UINT);
        if (p->failed) return VT_NONE;
        if ((n->fn == FN_UPPER || n->fn == FN_LOWER) && av != VT_STR) {
            ub_fp_err(p, (size_t)a->tpos, "only string type fields can be used as parameter for %s()", fname);
            return VT_NONE;
        }
        const ftest *at = &p->f->tests[a->src];
        if (n->fn == FN_STRING && (av == VT_NONE || av == VT_TIME || at->kind == K_FRAME || at->slice ||
                                   (at->kind == K_FIELD && av == VT_BYTES && at->f[0]->type == UB_FT_BYTES))) {
            /* as Wireshark 4.0: no string form of byte strings, headers and times */
            ub_fp_err(p, (size_t)a->tpos, "string conversion of '%.*s' is not supported", (int)a->tlen, p->s + a->tpos);
            return VT_NONE;
        }
        if (n->fn == FN_ABS && !is_num_vt(av)) {
            ub_fp_err(p, (size_t)a->tpos, "abs() applies to numbers");
            return VT_NONE;
        }
        vt = n->fn == FN_LEN || n->fn == FN_COUNT ? VT_UINT : n->fn == FN_ABS ? av : VT_STR;
        break;
    }
    default: { /* arithmetic: numbers; a literal takes the other side's type */
        const gnode *a = &p->f->nodes[n->a[0]];
        uint32_t first = a->g == G_LIT ? n->a[1] : n->a[0], second = a->g == G_LIT ? n->a[0] : n->a[1];
        uint8_t x = g_type(p, first, want == VT_NONE ? VT_UINT : want);
        uint8_t y = p->failed ? VT_NONE : g_type(p, second, x == VT_NONE ? VT_UINT : x);
        if (p->failed || !g_fits(p, second, g_ws(p, first, 0))) return VT_NONE;
        if (!is_num_vt(x) || !is_num_vt(y)) { ub_fp_err(p, pos, "arithmetic applies to numbers"); return VT_NONE; }
        vt = x == VT_TIME || y == VT_TIME ? VT_TIME : x == VT_INT || y == VT_INT ? VT_INT : VT_UINT;
        break;
    }
    }
    p->f->nodes[ni].vt = vt;
    return vt;
}

static uint32_t g_sum(parser *p);
static uint32_t g_atom(parser *p);
static bool name_is_field(parser *p, const tok *t);

/* a field [slice] | a literal | 'c' | fn(args) | -operand */
static uint32_t g_atom(parser *p)
{
    tok t = p->cur;
    if (++p->depth > UB_FILTER_MAX_DEPTH + GEN_DEPTH) { ub_fp_err(p, t.pos, "expression nested too deeply"); return 0; }
    uint32_t ni = 0;
    int fn = fn_of(p, &t);
    if (t.t == T_LBR) { /* { arithmetic } groups, as in Wireshark 4.0 */
        ub_fp_next(p);
        ni = g_sum(p);
        if (p->failed) return 0;
        if (p->cur.t != T_RBR) { ub_fp_err(p, p->cur.pos, "expected '}' to close the group opened at column %zu", t.pos + 1); return 0; }
        ub_fp_next(p);
    } else if (fn >= 0) {
        ni = g_node(p, G_FN, t.pos);
        if (p->failed) return 0;
        p->f->nodes[ni].fn = (uint8_t)fn;
        ub_fp_next(p); /* ( */
        ub_fp_next(p);
        unsigned na = 0;
        for (;;) {
            if (p->cur.t == T_RP && na == 0) { ub_fp_err(p, p->cur.pos, "%s() needs an argument", fn_names[fn]); return 0; }
            uint32_t a = g_sum(p);
            if (p->failed) return 0;
            if (na == GEN_ARGS) { ub_fp_err(p, t.pos, "too many arguments to %s()", fn_names[fn]); return 0; }
            p->f->nodes[ni].a[na++] = a;
            if (p->cur.t == T_COMMA) { ub_fp_next(p); continue; }
            if (p->cur.t != T_RP) { ub_fp_err(p, p->cur.pos, "expected ',' or ')' in the arguments of %s()", fn_names[fn]); return 0; }
            ub_fp_next(p);
            break;
        }
        bool many = fn == FN_MAX || fn == FN_MIN;
        if (!many && na != 1) { ub_fp_err(p, t.pos, "%s() takes one argument", fn_names[fn]); return 0; }
        p->f->nodes[ni].nargs = (uint8_t)na;
        if (!g_depth(p, ni)) return 0;
    } else if (t.t == T_WORD && p->s[t.pos] == '-') { /* unary minus: "-" then an operand, or "-name" / "-5" */
        ni = g_node(p, G_NEG, t.pos);
        if (p->failed) return 0;
        uint32_t a;
        if (t.len == 1) {
            ub_fp_next(p);
            a = g_atom(p);
        } else { /* the rest of the word as an operand of its own */
            p->i = t.pos + 1;
            ub_fp_next(p);
            a = g_atom(p);
        }
        if (p->failed) return 0;
        p->f->nodes[ni].a[0] = a;
        if (!g_depth(p, ni)) return 0;
    } else if (t.t == T_STR || t.t == T_CHR || (t.t == T_WORD && !name_is_field(p, &t))) {
        ni = g_node(p, G_LIT, t.pos);
        if (p->failed) return 0;
        p->f->nodes[ni].fn = (uint8_t)t.t;
        p->f->nodes[ni].tlen = (uint32_t)t.len;
        ub_fp_next(p);
    } else if (t.t == T_WORD) {
        char name[128];
        if (t.len >= sizeof name) { ub_fp_err(p, t.pos, "field name too long"); return 0; }
        memcpy(name, p->s + t.pos, t.len);
        name[t.len] = 0;
        ftest *ft = ub_fp_new_test(p);
        if (!ft) return 0;
        uint32_t ti = p->f->ntests - 1;
        if (!ub_fp_resolve(p, ft, name, t.pos)) return 0;
        p->f->tests[ti].op = OP_EXISTS;
        ub_fp_next(p);
        if (p->cur.t == T_LB) {
            ft = &p->f->tests[ti];
            if ((ft->kind != K_FIELD || !ub_fp_sliceable(ft->f[0], false)) && ft->kind != K_FRAME && ft->kind != K_PROTOS && ft->kind != K_COMMENT) {
                ub_fp_err(p, p->cur.pos, "'%s' cannot be sliced", name);
                return 0;
            }
            if (!ub_fp_slice(p, ft)) return 0;
        }
        ni = g_node(p, G_SRC, t.pos);
        if (p->failed) return 0;
        p->f->nodes[ni].src = ti;
        p->f->nodes[ni].tlen = (uint32_t)t.len;
    } else if (t.t == T_BAD && p->s[t.pos] == '$') {
        ub_fp_err(p, t.pos, "field references ${...} name the packet selected in Wireshark's window; there is none here");
        return 0;
    } else {
        ub_fp_err(p, t.pos, t.t == T_END ? "unexpected end of the expression: expected a value" : "expected a field, a value or a function");
        return 0;
    }
    p->depth--;
    return ni;
}

/* level 1: atoms joined by * / %; level 0: level-1 terms joined by + - (left to right) */
static uint32_t g_level(parser *p, int level)
{
    uint32_t l = level ? g_atom(p) : g_level(p, 1);
    int op;
    while (!p->failed && (op = arith_op(p)) != 0 && (level ? op != '+' && op != '-' : op == '+' || op == '-')) {
        size_t pos = p->cur.pos;
        arith_skip(p);
        uint32_t r = level ? g_atom(p) : g_level(p, 1);
        static const uint8_t g_of[] = { ['+'] = G_ADD, ['-'] = G_SUB, ['*'] = G_MUL, ['/'] = G_DIV, ['%'] = G_MOD };
        uint32_t n = g_node(p, g_of[op], pos);
        if (p->failed) return 0;
        p->f->nodes[n].a[0] = l;
        p->f->nodes[n].a[1] = r;
        if (!g_depth(p, n)) return 0;
        l = n;
    }
    return l;
}

static uint32_t g_sum(parser *p) { return g_level(p, 0); }

/* a word that names a field (not a literal): ub_fp_resolve() without its error */
static bool name_is_field(parser *p, const tok *t)
{
    char name[128];
    lit L;
    if (t->len >= sizeof name || (ub_lit_word(p->s + t->pos, t->len, &L) && !(t->len > 3 && memcmp(p->s + t->pos, "ub.", 3) == 0)))
        return false;
    memcpy(name, p->s + t->pos, t->len);
    name[t->len] = 0;
    parser q = *p;
    q.err = NULL;
    q.errlen = 0;
    bool ua = p->f->uses_an, ut = p->f->uses_time, uf = p->f->uses_frame;
    ftest ft;
    memset(&ft, 0, sizeof ft);
    bool ok = ub_fp_resolve(&q, &ft, name, t->pos);
    ub_fp_free_test(&ft);
    p->f->uses_an = ua;
    p->f->uses_time = ut;
    p->f->uses_frame = uf;
    return ok;
}

/* does the test starting at the current word need a value expression? (a function, a leading '-',
 * arithmetic after the field, or a field, function or arithmetic after the comparison) */
bool ub_fp_gen_ahead(parser *p)
{
    tok t = p->cur;
    if (fn_of(p, &t) >= 0 || (t.len > 1 && p->s[t.pos] == '-')) return true;
    size_t si = p->i;
    bool gen = false;
    ub_fp_next(p);
    if (p->cur.t == T_LB)
        while (p->cur.t != T_RB && p->cur.t != T_END) ub_fp_next(p);
    if (p->cur.t == T_RB) ub_fp_next(p);
    if (arith_op(p)) gen = true;
    else if (p->cur.t == T_CMP && p->cur.op != OP_MATCHES) {
        ub_fp_next(p);
        tok r = p->cur;
        if (r.t == T_LBR || (r.t == T_WORD && (fn_of(p, &r) >= 0 || p->s[r.pos] == '-' || name_is_field(p, &r)))) gen = true;
        else if (r.t == T_WORD || r.t == T_STR || r.t == T_CHR) {
            ub_fp_next(p);
            gen = arith_op(p) != 0;
        }
    }
    p->i = si;
    p->cur = t;
    return gen;
}

/* does the tree at ni read a field? */
static bool g_has_src(const parser *p, uint32_t ni, unsigned depth)
{
    const gnode *n = &p->f->nodes[ni];
    if (n->g == G_SRC) return true;
    if (n->g == G_LIT || depth > UB_FILTER_MAX_DEPTH + GEN_DEPTH) return false;
    unsigned na = n->g == G_FN ? n->nargs : n->g == G_NEG ? 1 : 2;
    for (unsigned k = 0; k < na; k++)
        if (g_has_src(p, n->a[k], depth + 1)) return true;
    return false;
}

/* LEFT OP RIGHT as a K_GEN test */
/* LEFT OPT RIGHT (OPT_RANGE: lo <= LEFT <= hi, r = lo) compiled: types checked, the K_GEN test
 * emitted; r: the right side parsed (OP_MATCHES: none, the current token is the pattern) */
static void gen_emit(parser *p, uint32_t l, const tok *opt, size_t pos, uint32_t r, uint32_t hi)
{
    ub_re *re = NULL;
    uint8_t lv, rv = VT_NONE;
    if (opt->op == OP_MATCHES) { /* a quoted regular expression */
        lit L;
        if (p->cur.t != T_STR) { ub_fp_err(p, p->cur.pos, "matches needs a quoted regular expression"); return; }
        ub_lit_str(p->s + p->cur.pos, p->cur.len, &L);
        char m[200];
        size_t off = 0;
        if (L.esc_err >= 0 || L.str_long || !(re = ub_re_compile((const uint8_t *)L.str, L.nstr, m, sizeof m, &off))) {
            ub_fp_err(p, p->cur.pos, "bad regular expression");
            return;
        }
        ub_fp_next(p);
        lv = g_type(p, l, VT_STR);
    } else if (p->f->nodes[l].g == G_LIT) { /* the literal takes the other side's type */
        rv = g_type(p, r, VT_NONE);
        lv = p->failed ? VT_NONE : g_type(p, l, rv);
    } else {
        lv = g_type(p, l, VT_NONE);
        rv = p->failed ? VT_NONE : g_type(p, r, lv);
        if (!p->failed) g_fits(p, r, g_ws(p, l, 0));
        if (!p->failed && opt->op == OP_RANGE && (g_type(p, hi, lv) != rv || !g_fits(p, hi, g_ws(p, l, 0))) && !p->failed)
            ub_fp_err(p, p->f->nodes[hi].tpos, "the two ends of a range must have the same type");
    }
    if (p->failed) { ub_re_free(re); return; }
    bool strop = opt->op == OP_CONTAINS || opt->op == OP_MATCHES;
    bool ok = lv != VT_NONE && (opt->op == OP_MATCHES || rv != VT_NONE);
    if (ok && strop) ok = (lv == VT_BYTES || lv == VT_STR) && (opt->op == OP_MATCHES || rv == VT_BYTES || rv == VT_STR);
    else if (ok) ok = (is_num_vt(lv) && is_num_vt(rv) && (lv == VT_TIME) == (rv == VT_TIME)) ||
                      ((lv == VT_BYTES || lv == VT_STR) && (rv == VT_BYTES || rv == VT_STR));
    if (!ok) {
        ub_re_free(re);
        if (lv == VT_NONE || rv == VT_NONE) ub_fp_err(p, pos, "a header or flag has no value to compare (test its presence, or count() it)");
        else if (strop) ub_fp_err(p, opt->pos, "%s applies to byte strings and strings", opt->op == OP_CONTAINS ? "contains" : "matches");
        else ub_fp_err(p, opt->pos, "the two sides cannot be compared (different types)");
        return;
    }
    ftest *t = ub_fp_new_test(p);
    if (!t) { ub_re_free(re); return; }
    t->kind = K_GEN;
    t->op = (uint8_t)opt->op;
    t->prefix = -1;
    t->gl = l;
    t->gr = r;
    t->gh = hi;
    t->re = re;
    ub_fp_emit(p, I_TEST, p->f->ntests - 1);
}

void ub_fp_gen_test(parser *p)
{
    size_t pos = p->cur.pos;
    uint32_t l = g_sum(p);
    if (p->failed) return;
    if (p->cur.t != T_CMP) {
        ub_fp_err(p, p->cur.t == T_END ? pos : p->cur.pos, "a function or arithmetic must be compared with a value");
        return;
    }
    tok opt = p->cur;
    uint32_t lm = l; /* the left side's first operand */
    for (unsigned d = 0; d < UB_FILTER_MAX_DEPTH + GEN_DEPTH && p->f->nodes[lm].g >= G_NEG; d++) lm = p->f->nodes[lm].a[0];
    if (p->f->nodes[l].g != G_LIT && p->f->nodes[lm].g == G_LIT) { /* as Wireshark 4.0 */
        ub_fp_err(p, pos, "arithmetic on the left side must not start with a value");
        return;
    }
    if (!g_has_src(p, l, 0)) {
        ub_fp_err(p, pos, "the left side of '%.*s' must be a field or a function, not a value", (int)opt.len, p->s + opt.pos);
        return;
    }
    ub_fp_next(p);
    uint32_t r = 0;
    if (opt.op != OP_MATCHES && (r = g_sum(p), p->failed)) return;
    gen_emit(p, l, &opt, pos, r, 0);
}

/* ".." at the current token (a word of its own, or the start of one): past it */
static bool range_dots(parser *p)
{
    if (p->cur.t != T_WORD || p->cur.len < 2 || p->s[p->cur.pos] != '.' || p->s[p->cur.pos + 1] != '.') return false;
    if (p->cur.len > 2) p->i = p->cur.pos + 2; /* "..hi" */
    ub_fp_next(p);
    return true;
}

bool ub_fp_gen_in_elem(parser *p, uint32_t ti, size_t inpos)
{
    tok e = p->cur;
    size_t si = p->i;
    uint32_t nn = p->f->nnodes;
    if (p->f->tests[ti].has_mask || e.t != T_WORD) return false; /* f & mask in {...}: literals only */
    bool expr = fn_of(p, &e) >= 0 || name_is_field(p, &e);
    bool tail = false; /* "lo.. hi": the word ends with the dots */
    if (!expr) /* a literal: a range "lo .. hi" written with spaces, or one with a field, comes here */
        for (size_t k = 0; k + 1 < e.len; k++) {
            if (p->s[e.pos + k] != '.' || p->s[e.pos + k + 1] != '.') continue;
            if (k + 2 < e.len || k == 0) return false; /* lo..hi: filter.c */
            tail = true;
        }
    uint32_t lo, hi = 0;
    if (tail) { /* the literal without its dots */
        lo = g_node(p, G_LIT, e.pos);
        if (p->failed) return true;
        p->f->nodes[lo].fn = T_WORD;
        p->f->nodes[lo].tlen = (uint32_t)e.len - 2;
        ub_fp_next(p);
    } else {
        lo = g_atom(p); /* Wireshark 4.0: no arithmetic in a set */
    }
    if (p->failed) return true;
    bool range = tail || range_dots(p);
    if (range && ((hi = g_atom(p)), p->failed)) return true;
    if (!range && !expr) { /* a plain literal: filter.c binds it */
        p->f->nnodes = nn;
        p->i = si;
        p->cur = e;
        return false;
    }
    uint32_t ci = ub_fp_copy_test(p, ti);
    uint32_t l = p->failed ? 0 : g_node(p, G_SRC, inpos);
    if (p->failed) return true;
    p->f->nodes[l].src = ci;
    p->f->tests[ci].op = OP_EXISTS;
    tok opt = { T_CMP, range ? OP_RANGE : OP_EQ, inpos, 2 };
    gen_emit(p, l, &opt, e.pos, lo, hi);
    return true;
}
