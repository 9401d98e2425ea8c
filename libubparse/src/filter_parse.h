/* Display filters: the parser's parts that filter.c (tests on names) and filter_expr.c (value
 * expressions: functions, arithmetic, field against field) share. Not a public header. */
#ifndef UBPARSE_FILTER_PARSE_H
#define UBPARSE_FILTER_PARSE_H

#include "filter_int.h"

enum { T_END, T_LP, T_RP, T_NOT, T_AND, T_OR, T_XOR, T_CMP, T_WORD, T_STR, T_BAD, T_LB, T_RB, T_LBR, T_RBR,
       T_COMMA, T_BITAND, T_IN, T_ARITH /* + * % (op: the character; - and / are words) */, T_CHR /* 'c' */ };

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
    uint8_t quant;  /* "any" / "all" of the test being parsed (ftest.quant): every test made for it, the
                     * copies of `in {...}` included, so "all f in {a, b}" is (all f == a) || (all f == b),
                     * as Wireshark 4.0 compiles it */
} parser;

/* filter.c */
void ub_fp_err(parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ub_fp_next(parser *p);
bool ub_fp_word_is(const parser *p, const tok *t, const char *kw);
uint32_t ub_fp_emit(parser *p, uint8_t op, uint32_t arg);
ftest *ub_fp_new_test(parser *p);
void ub_fp_free_test(ftest *t);
bool ub_fp_resolve(parser *p, ftest *t, const char *name, size_t pos); /* false (with the error) if unknown */
bool ub_fp_slice(parser *p, ftest *t);                                  /* [i] [i:n] [i-j] [i:] [:n] [-n:] */
bool ub_fp_chr(parser *p, const tok *lt, lit *L);                        /* 'c' */
bool ub_fp_kind_num(const ftest *t);
bool ub_fp_kind_time(const ftest *t);
bool ub_fp_sliceable(const ub_field *f, bool for_contains);
uint32_t ub_fp_copy_test(parser *p, uint32_t ti); /* another test on tests[ti]'s name and slice: its index */
/* filter_expr.c: does the test at the current word need a value expression; compile one */
bool ub_fp_gen_ahead(parser *p);
void ub_fp_gen_test(parser *p);
/* an element of `name in {...}` (the current token) that is a field or a function:
 * tests[ti] (the name) == it compiled as a K_GEN test (inpos: where `in` is); false: a literal */
bool ub_fp_gen_in_elem(parser *p, uint32_t ti, size_t inpos);

#endif
