/* Display filters: Wireshark 4.0's value expressions — the functions len() count() upper() lower()
 * string() abs() max() min(), arithmetic (+ - * / % and unary -) and a field compared with another
 * field (filter.c compiles them into gnode trees; filter_int.h K_GEN). A node yields a list of at
 * most GEN_VALS values; a comparison holds when some pair of values (left, right) satisfies it, or,
 * for != and ===, every pair (Wireshark 4.0's "all" operators). No allocation: value lists live on
 * the stack (the tree's depth is bounded by the parser), made strings in a fixed buffer. */
#include "filter_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

typedef struct gctx {
    const ub_filter *f;
    const ub_view *v;
    const ub_filter_pkt *pk;
    const gval *sv;      /* the fields' values over the views of a frame (or NULL: read the view) */
    const uint16_t *nsv;
    char buf[4096]; /* strings made by upper(), lower(), string() and the TP endpoints */
    size_t used;
} gctx;

static char *room(gctx *c, size_t n)
{
    if (sizeof c->buf - c->used < n) return NULL;
    char *p = c->buf + c->used;
    c->used += n;
    return p;
}

/* string(): Wireshark's display-filter form of the value (numbers in decimal, addresses as written) */
static bool to_string(gctx *c, const gval *x, gval *out)
{
    char tmp[256];
    int w = -1;
    const ub_field *f = x->f;
    switch (x->vt) {
    case VT_UINT: w = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)x->u); break;
    case VT_INT: w = snprintf(tmp, sizeof tmp, "%lld", (long long)x->u); break;
    case VT_STR: *out = *x; return true;
    case VT_BYTES:
        if (f && f->type == UB_FT_IPV4 && x->n == 4) {
            w = snprintf(tmp, sizeof tmp, "%u.%u.%u.%u", x->p[0], x->p[1], x->p[2], x->p[3]);
        } else if (f && f->type == UB_FT_IPV6 && x->n == 16) {
            w = inet_ntop(AF_INET6, x->p, tmp, sizeof tmp) ? (int)strlen(tmp) : -1;
        } else { /* bytes, MAC: aa:bb:cc */
            uint32_t n = x->n > 80 ? 80 : x->n;
            w = 0;
            for (uint32_t i = 0; i < n; i++) w += snprintf(tmp + w, sizeof tmp - (size_t)w, i ? ":%02x" : "%02x", x->p[i]);
        }
        break;
    default: return false;
    }
    if (w < 0 || (size_t)w >= sizeof tmp) return false;
    char *p = room(c, (size_t)w);
    if (!p) return false;
    memcpy(p, tmp, (size_t)w);
    *out = (gval){ .vt = VT_STR, .p = (const uint8_t *)p, .n = (uint32_t)w };
    return true;
}

/* -1, 0, 1: numbers by value (signed where one is), byte strings and strings as memcmp then length */
static int cmp3(const gval *x, const gval *y)
{
    if (x->vt == VT_BYTES || x->vt == VT_STR) {
        uint32_t mn = x->n < y->n ? x->n : y->n;
        int c = mn ? memcmp(x->p, y->p, mn) : 0;
        if (c) return c < 0 ? -1 : 1;
        return x->n < y->n ? -1 : x->n > y->n ? 1 : 0;
    }
    if (x->vt == VT_UINT && y->vt == VT_UINT) return x->u < y->u ? -1 : x->u > y->u;
    /* one signed: an unsigned value above INT64_MAX is above every signed one */
    if (x->vt == VT_UINT && x->u > INT64_MAX) return 1;
    if (y->vt == VT_UINT && y->u > INT64_MAX) return -1;
    int64_t a = (int64_t)x->u, b = (int64_t)y->u;
    return a < b ? -1 : a > b;
}

static bool pair(unsigned op, const gval *x, const gval *y)
{
    /* an unsigned value against a signed one (a negative literal, a difference below zero) is never
     * equal nor ordered, as in Wireshark 4.0: frame.len > -1 is false, frame.len != -1 true */
    if (x->vt == VT_UINT && y->vt == VT_INT) return op == OP_NE; /* (!= is "not ==") */
    if (op == OP_CONTAINS) return ub_has_sub(x->p, x->n, y->p, y->n);
    return ub_op_verdict(op, cmp3(x, y));
}

static uint8_t num_vt(uint8_t a, uint8_t b)
{
    if (a == VT_TIME || b == VT_TIME) return VT_TIME;
    return a == VT_INT || b == VT_INT ? VT_INT : VT_UINT;
}

/* x OP y (G_ADD..G_MOD) as Wireshark 4.0 computes it: unsigned values of fields up to 32 bits wide in
 * 32 bits, wider ones in 64; a result that does not fit, or a division by zero, is no value; an
 * unsigned difference below zero is a signed value; an unsigned value and then a signed one, no value */
static bool arith(uint8_t g, const gval *x, const gval *y, gval *out)
{
    uint8_t vt = num_vt(x->vt, y->vt), ws = x->ws > y->ws ? x->ws : y->ws;
    uint64_t a = x->u, b = y->u, r = 0;
    if (x->vt == VT_UINT && y->vt == VT_INT) return false; /* as pair(): frame.len + -20 is no value */
    if (vt == VT_UINT) {
        uint64_t lim = ws && ws <= 4 ? UINT32_MAX : UINT64_MAX;
        switch (g) {
        case G_ADD: if (__builtin_add_overflow(a, b, &r) || r > lim) return false; break;
        case G_SUB:
            if (b > a) { vt = VT_INT; r = a - b; } /* below zero: signed (a, b < 2^63 for fields up to 63 bits) */
            else r = a - b;
            break;
        case G_MUL: if (__builtin_mul_overflow(a, b, &r) || r > lim) return false; break;
        case G_DIV: if (!b) return false; r = a / b; break;
        case G_MOD: if (!b) return false; r = a % b; break;
        default: return false;
        }
    } else {
        int64_t sa = (int64_t)a, sb = (int64_t)b, sr = 0;
        bool ovf;
        switch (g) {
        case G_ADD: ovf = __builtin_add_overflow(sa, sb, &sr); break;
        case G_SUB: ovf = __builtin_sub_overflow(sa, sb, &sr); break;
        case G_MUL: ovf = __builtin_mul_overflow(sa, sb, &sr); break;
        case G_DIV: case G_MOD:
            ovf = sb == 0 || (sb == -1 && sa == INT64_MIN);
            if (!ovf) sr = g == G_DIV ? sa / sb : sa % sb;
            break;
        default: return false;
        }
        if (ovf) return false;
        r = (uint64_t)sr;
    }
    *out = (gval){ .vt = vt, .ws = ws, .u = r };
    return true;
}

static unsigned eval(gctx *c, uint32_t ni, gval *out);

static unsigned eval_fn(gctx *c, const gnode *nd, gval *out)
{
    gval in[GEN_VALS];
    unsigned n = 0, m = 0;
    if (nd->fn == FN_MAX || nd->fn == FN_MIN) { /* one value: the largest / smallest of all arguments' */
        for (unsigned a = 0; a < nd->nargs; a++) {
            unsigned k = eval(c, nd->a[a], in);
            for (unsigned i = 0; i < k; i++) {
                int d = m ? cmp3(&in[i], &out[0]) : 0;
                if (!m || (nd->fn == FN_MAX ? d > 0 : d < 0)) out[0] = in[i];
                m = 1;
            }
        }
        return m;
    }
    n = eval(c, nd->a[0], in);
    if (nd->fn == FN_COUNT) { /* no occurrence: no value (as Wireshark 4.0) */
        if (!n) return 0;
        out[0] = (gval){ .vt = VT_UINT, .ws = 4, .u = n };
        return 1;
    }
    for (unsigned i = 0; i < n; i++) {
        gval *x = &in[i], *o = &out[m];
        switch (nd->fn) {
        case FN_LEN: /* bytes of the value: a number's field size, 0 for a header item */
            *o = (gval){ .vt = VT_UINT, .ws = 4,
                         .u = x->vt == VT_BYTES || x->vt == VT_STR ? x->n : x->vt == VT_NONE ? 0 : x->ws };
            break;
        case FN_UPPER: case FN_LOWER: {
            char *p = room(c, x->n);
            if (!p && x->n) continue;
            for (uint32_t k = 0; k < x->n; k++) {
                unsigned char ch = x->p[k];
                if (nd->fn == FN_UPPER && ch >= 'a' && ch <= 'z') ch = (unsigned char)(ch - 32);
                if (nd->fn == FN_LOWER && ch >= 'A' && ch <= 'Z') ch = (unsigned char)(ch + 32);
                p[k] = (char)ch;
            }
            *o = (gval){ .vt = VT_STR, .p = (const uint8_t *)p, .n = x->n };
            break;
        }
        case FN_STRING:
            if (!to_string(c, x, o)) continue;
            break;
        case FN_ABS: /* of a time: the time unchanged, as Wireshark 4.0.17 gives it (a negative frame.time_delta stays negative) */
            *o = *x;
            if (x->vt == VT_INT && (int64_t)x->u < 0) o->u = 0 - x->u;
            break;
        default: continue;
        }
        m++;
    }
    return m;
}

static unsigned eval(gctx *c, uint32_t ni, gval *out)
{
    const gnode *nd = &c->f->nodes[ni];
    switch (nd->g) {
    case G_LIT:
        out[0] = (gval){ .vt = nd->vt, .u = nd->u, .p = nd->b, .n = nd->nb };
        return 1;
    case G_SRC: {
        const ftest *t = &c->f->tests[nd->src];
        if (c->sv && ub_gen_per_view(t)) {
            unsigned n = c->nsv[nd->src];
            memcpy(out, c->sv + (size_t)nd->src * GEN_VALS, n * sizeof *out);
            return n;
        }
        size_t half = (sizeof c->buf - c->used) / 2;
        if (half > 128) half = 128;
        char *sb = room(c, 2 * half);
        return ub_ftest_values(t, c->v, c->pk, out, GEN_VALS, sb, sb ? 2 * half : 0);
    }
    case G_FN:
        return eval_fn(c, nd, out);
    case G_NEG: {
        unsigned n = eval(c, nd->a[0], out);
        for (unsigned i = 0; i < n; i++) {
            if (out[i].vt == VT_UINT) out[i].vt = VT_INT;
            out[i].u = 0 - out[i].u;
        }
        return n;
    }
    default: { /* every pair of the two operands' values */
        gval x[GEN_VALS], y[GEN_VALS];
        unsigned nx = eval(c, nd->a[0], x), ny = nx ? eval(c, nd->a[1], y) : 0, m = 0;
        for (unsigned i = 0; i < nx; i++)
            for (unsigned k = 0; k < ny && m < GEN_VALS; k++)
                if (arith(nd->g, &x[i], &y[k], &out[m])) m++;
        return m;
    }
    }
}

bool ub_gen_test(const ub_filter *f, const ftest *t, const ub_view *v, const ub_filter_pkt *pk, const gval *sv,
                 const uint16_t *nsv)
{
    gctx c;
    c.f = f;
    c.v = v;
    c.pk = pk;
    c.sv = sv;
    c.nsv = nsv;
    c.used = 0;
    gval x[GEN_VALS], y[GEN_VALS];
    unsigned nx = eval(&c, t->gl, x);
    if (!nx) return false;
    if (t->op == OP_MATCHES) {
        for (unsigned i = 0; i < nx; i++)
            if ((x[i].vt == VT_STR || x[i].vt == VT_BYTES) && t->re && ub_re_match(t->re, x[i].p, x[i].n)) return true;
        return false;
    }
    unsigned ny = eval(&c, t->gr, y);
    if (!ny) return false;
    if (t->op == OP_RANGE) { /* some value between some low end and some high end */
        gval h[GEN_VALS];
        unsigned nh = eval(&c, t->gh, h);
        for (unsigned i = 0; i < nx; i++)
            for (unsigned k = 0; k < ny; k++)
                for (unsigned m = 0; m < nh; m++)
                    if (pair(OP_GE, &x[i], &y[k]) && pair(OP_LE, &x[i], &h[m])) return true;
        return false;
    }
    bool all = ftest_all(t);
    for (unsigned i = 0; i < nx; i++)
        for (unsigned k = 0; k < ny; k++) {
            bool r = pair(t->op, &x[i], &y[k]);
            if (all && !r) return false;
            if (!all && r) return true;
        }
    return all;
}
