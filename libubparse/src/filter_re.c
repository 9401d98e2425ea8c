/* Display filters: which `matches` expressions glibc's regcomp() compiles in bounded time and memory
 * (found by tests/fuzz/fuzz_filter.c; a sample of 4 million random expressions that pass took at most
 * ~12 ms each). regcomp copies a repeated piece once per count (`x{3}` is x x x, `x+` is x x*) and adds
 * a node per repetition, and computes epsilon closures that grow exponentially in some shapes:
 *   - a repetition right after another, undefined in POSIX (`a` and 19 `+`: 343 MB; `a*?{22}*`: 1.2 s);
 *   - a repeated piece that can match nothing and holds a repetition (`((a*)?){22}`: 1.4 s,
 *     `((a?){,20}){20,}`: over 10 s);
 *   - repetitions nested three deep (`((a*|b*|c*|d*|e*|f*|g*|h*)+){27}`: over 20 s);
 *   - many elements once expanded (`(a?){3000}`: 71 MB).
 * A back-reference (`\1`..`\9`, a GNU extension to ERE) makes regexec() backtrack: `(.*)(.*)(.*)\3\2\1x`
 * took over 20 s on 100 bytes, `(a|aa)+\1b` 0.57 s on 200 (cubic and worse); refused too.
 * ub_re_check() refuses them; one `?` right after a repetition is allowed (PCRE's lazy `.*?`, which
 * to POSIX is `(.*)?`: the same matches) and counts as a level. */
#include "filter_int.h"

#include <stdint.h>
#include <string.h>

#define SAT (RE_MAX_ELEMS + 1u) /* every count saturates here: "too many" */

static uint32_t sat_add(uint32_t a, uint32_t b) { return a + b > SAT ? SAT : a + b; }
static uint32_t sat_mul(uint32_t a, uint32_t b) { return (uint64_t)a * b > SAT ? SAT : a * b; }

/* `{m}`, `{m,}`, `{m,n}`, `{,n}` at s (s[0] == '{'): the copies regcomp makes, *len its length; 0 when
 * it is no interval (regcomp then takes the brace as a character or rejects the expression); *len is
 * left alone then */
static uint32_t interval(const char *s, uint32_t *len, uint32_t *min)
{
    uint32_t i = 1, m = 0, n = 0;
    bool dm = false, comma = false, dn = false;
    for (; s[i] >= '0' && s[i] <= '9'; i++, dm = true) m = sat_add(sat_mul(m, 10), (uint32_t)(s[i] - '0'));
    if (s[i] == ',') {
        comma = true;
        for (i++; s[i] >= '0' && s[i] <= '9'; i++, dn = true) n = sat_add(sat_mul(n, 10), (uint32_t)(s[i] - '0'));
    }
    if (s[i] != '}' || (!dm && !dn && !comma)) return 0; /* glibc takes `{,}` for `{0,}` */
    *len = i + 1;
    *min = m;
    if (!comma) return m ? m : 1;   /* x{m}: m copies */
    if (!dn) return sat_add(m, 1);  /* x{m,}: m copies and x* */
    return n ? n : 1;               /* x{m,n}: n copies, n - m of them optional */
}

/* the end of the bracket expression that starts at s (s[0] == '['): the index after its ']' */
static uint32_t bracket_end(const char *s)
{
    uint32_t i = 1;
    if (s[i] == '^') i++;
    if (s[i] == ']') i++; /* a ']' first is a member */
    for (; s[i] && s[i] != ']'; i++) {
        if (s[i] == '[' && (s[i + 1] == ':' || s[i + 1] == '=' || s[i + 1] == '.')) { /* [:alpha:] [=a=] [.a.] */
            const char d = s[i + 1];
            uint32_t j = i + 2;
            while (s[j] && !(s[j] == d && s[j + 1] == ']')) j++;
            if (!s[j]) return j;
            i = j + 1;
        }
    }
    return s[i] ? i + 1 : i;
}

/* a zero-width element: an anchor */
static bool zero_width(const char *s) { return *s == '^' || *s == '$' || (*s == '\\' && s[1] && strchr("bB<>`'", s[1])); }

int ub_re_check(const char *re)
{
    enum { DEPTH = 64 };
    /* per open group: the finished branches, the current branch before its last piece, the last piece
     * (a repetition multiplies the last piece only), in elements; the repetitions the last piece is
     * nested in, the most in the group; whether the last piece, the current branch before it and one
     * of the finished branches can match the empty string */
    uint32_t alts[DEPTH], cur[DEPTH], last[DEPTH];
    uint8_t rep[DEPTH], maxrep[DEPTH];
    bool nlast[DEPTH], nbranch[DEPTH], nalts[DEPTH];
    unsigned d = 0;
    unsigned after_rep = 0; /* the token before: 1 a repetition, 2 a `?` right after one (PCRE's lazy x*?, to
                             * POSIX the optional (x*)?: one more level) */
#define RE_OPEN(l) (alts[l] = cur[l] = last[l] = 0, rep[l] = maxrep[l] = 0, nlast[l] = nalts[l] = false, nbranch[l] = true)
#define RE_PIECE_DONE(l) (cur[l] = sat_add(cur[l], last[l]), nbranch[l] = nbranch[l] && (!last[l] || nlast[l]))
    RE_OPEN(0);
    for (uint32_t i = 0; re[i];) {
        const char c = re[i];
        uint32_t k = 0, min = 0, len = 1;
        if (((c == '*' || c == '?' || c == '+') || (c == '{' && (k = interval(re + i, &len, &min)) != 0)) && last[d]) {
            const bool lazy = after_rep == 1 && c == '?';
            if (after_rep && !lazy) return RE_STACKED; /* undefined in POSIX; glibc's time grows exponentially */
            /* a repeated piece that matches the empty string and holds a repetition: glibc's epsilon
             * closures grow exponentially with the counts ((a?){,20}){20,} or ((||){,3}){6,} */
            if (!lazy && nlast[d] && rep[d]) return RE_EMPTYREP;
            /* a node more: x* x? are x and it, x+ is x x*, x{k} k copies of x */
            last[d] = sat_add(c == '{' ? sat_mul(last[d], k) : c == '+' ? sat_mul(last[d], 2) : last[d], 1);
            nlast[d] = nlast[d] || c == '*' || c == '?' || (c == '{' && min == 0);
            if (++rep[d] > RE_MAX_NEST) return RE_NEST;
            if (rep[d] > maxrep[d]) maxrep[d] = rep[d];
            after_rep = after_rep ? 2 : 1;
            i += len;
            continue;
        }
        after_rep = 0;
        if (c == '(') {
            if (d + 1 >= DEPTH) return RE_NEST; /* deeper than any sensible expression */
            d++;
            RE_OPEN(d);
        } else if (c == ')' && d) {
            RE_PIECE_DONE(d);
            const uint32_t g = sat_add(alts[d], cur[d]);
            const uint8_t gr = maxrep[d];
            const bool gn = nalts[d] || nbranch[d];
            d--;
            RE_PIECE_DONE(d);
            last[d] = g ? g : 1;
            nlast[d] = gn;
            rep[d] = gr;
            if (gr > maxrep[d]) maxrep[d] = gr;
        } else if (c == '|') {
            RE_PIECE_DONE(d);
            alts[d] = sat_add(alts[d], cur[d]);
            nalts[d] = nalts[d] || nbranch[d];
            cur[d] = last[d] = 0;
            rep[d] = 0;
            nlast[d] = false;
            nbranch[d] = true;
        } else { /* one element: a character, '.', an anchor, an escape, a bracket expression */
            RE_PIECE_DONE(d);
            nlast[d] = zero_width(re + i);
            if (c == '\\' && re[i + 1] >= '1' && re[i + 1] <= '9') return RE_BACKREF;
            if (c == '\\') len = re[i + 1] ? 2 : 1;
            else if (c == '[') len = bracket_end(re + i);
            last[d] = 1;
            rep[d] = 0;
        }
        i += len;
    }
    for (;; d--) { /* groups left open fail in regcomp; count them anyway */
        RE_PIECE_DONE(d);
        const uint32_t g = sat_add(alts[d], cur[d]);
        if (!d) return g > RE_MAX_ELEMS ? RE_ELEMS : RE_OK;
        last[d - 1] = sat_add(last[d - 1], g);
    }
#undef RE_OPEN
#undef RE_PIECE_DONE
}
