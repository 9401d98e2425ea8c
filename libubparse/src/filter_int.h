/* Display filters: the compiled form shared by the compiler (filter.c) and the matcher
 * (filter_match.c). Not a public header. */
#ifndef UBPARSE_FILTER_INT_H
#define UBPARSE_FILTER_INT_H

#include "ubparse/capfile.h"
#include "ubparse/filter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* what a test reads */
enum {
    K_FIELD,        /* schema field rows (candidates) */
    K_HDR,          /* schema header tables: presence, slices, contains */
    K_ERROR,        /* ub.error */
    K_UB,           /* ub */
    K_FRAME,        /* frame (the record's bytes) */
    K_FRAME_NUM, K_FRAME_LEN, K_FRAME_CAPLEN, K_FRAME_IFID, K_FRAME_DIR,
    K_FRAME_TEPOCH, K_FRAME_TREL, K_FRAME_TDELTA, /* times: signed ns */
    K_AN,           /* ub.analysis.*: an (AN_*) says which */
    K_TPEP,         /* ub.analysis.tp_src / tp_dst / tp_endpoint: an = TPEP_* (from the view) */
    K_PROTOS,       /* frame.protocols: Wireshark's list of the frame's protocols (filter.h ub_ws_protocols) */
    K_COMMENT,      /* frame.comment: the pcapng comments of the record (ub_filter_pkt.comment), strings */
    K_PTOKEN,       /* a protocol of that list that is no header ubdump decodes (llc, stp, lldp, sll, ...):
                     * presence only; lit: its index (ub_ws_ptoken) */
    K_GEN,          /* functions, arithmetic, field against field: gl OP gr over value lists (filter_gen.c) */
};
enum { TPEP_SRC, TPEP_DST, TPEP_ANY };
/* ub.analysis.* (filter_an.c fills ub_fan; the names: ubparse/anfields.h, expert.h ub_tp_flag_info) */
enum {
    AN_NONE, AN_PRESENT, AN_TP_CHANNEL, AN_EXPECTED_PSN, AN_RESPONSE_IN, AN_REQUEST_IN, AN_ACKED_IN,
    AN_ACKS_FRAME, AN_LATENCY, AN_RULE, AN_RELATED, AN_FLAG, AN_FINDING,
    AN_ST_UNIT, AN_ST_STARTED_IN, AN_ST_CONTINUED_IN, AN_ST_OPEN_BYTES, /* ub.stream.* */
};
enum {
    OP_EXISTS, OP_EQ, OP_NE, OP_ANY_NE, OP_ALL_EQ, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_CONTAINS, OP_MATCHES,
    OP_RANGE,  /* lo <= x <= hi (`in {lo..hi}`): lo in num[k] / lit, hi in hi */
    OP_BITAND, /* (x & mask) != 0 */
};
enum { CM_NEVER = 0, CM_NUM, CM_BYTES, CM_STR }; /* how one candidate compares with the literal */

#define LIT_MAX 64

/* filter_lit.c: a literal as the parser reads it; ub_lit_word: a number, byte string or address (false:
 * none of them), ub_lit_secs: seconds as ns, ub_lit_str: a quoted (or r"raw") string token with its quotes */
typedef struct lit {
    bool is_str;
    bool num_ok, bytes_ok;
    uint64_t num;
    uint8_t bytes[LIT_MAX];
    uint32_t nbytes;
    char str[256]; /* unescaped string literal (truncated) */
    uint32_t nstr; /* its length (it may hold NUL bytes) */
    bool str_long;
    int prefix;    /* address/prefix (CIDR), -1 none */
    int esc_err;   /* a string literal's bad escape: its offset in the token, -1 none; esc_len its length */
    int esc_len;
    uint8_t esc_kind; /* 0 unknown, 1 octal above 255, 2 bad universal character name */
} lit;
bool ub_lit_word(const char *w, size_t n, lit *L);
bool ub_lit_secs(const char *w, size_t n, int64_t *ns);
void ub_lit_str(const char *s, size_t n, lit *L);

/* filter_re.c: a `matches` pattern compiled by PCRE2 as Wireshark's; ub_re_compile: NULL with the
 * message and the pattern offset of the error; ub_re_match: safe from several threads at once */
typedef struct ub_re {
    pcre2_code *code;
    pcre2_match_context *mctx; /* the limits */
    pcre2_match_data *md;      /* used by one match at a time (busy) */
    atomic_bool busy;
} ub_re;
ub_re *ub_re_compile(const uint8_t *pat, size_t n, char *err, size_t errlen, size_t *erroff);
bool ub_re_match(const ub_re *re, const uint8_t *s, size_t n);
void ub_re_free(ub_re *re);

/* Wireshark 4.0's value expressions (filter_gen.c): a node yields a bounded list of values */
enum { G_SRC /* a field: tests[src], never run as a test itself */, G_LIT, G_FN, G_NEG, G_ADD, G_SUB, G_MUL, G_DIV, G_MOD };
enum { FN_LEN, FN_COUNT, FN_UPPER, FN_LOWER, FN_STRING, FN_ABS, FN_MAX, FN_MIN };
enum { VT_NONE /* a header or flag: occurs, has no value */, VT_UINT, VT_INT, VT_TIME /* signed ns */, VT_BYTES, VT_STR };
#define GEN_ARGS 8  /* max(), min(): arguments */
#define GEN_DEPTH 12 /* levels of one side's tree */
#define GEN_VALS 32 /* values of one node in one frame (more are not seen) */
typedef struct gnode {
    uint8_t g, fn, vt, nargs;
    uint8_t depth;        /* of the tree below it, 1 for a leaf (<= GEN_DEPTH: bounds the evaluator's recursion) */
    uint32_t src;         /* G_SRC: test index */
    uint32_t a[GEN_ARGS]; /* children (node indexes) */
    uint64_t u;           /* G_LIT numbers (VT_INT / VT_TIME: two's complement) */
    uint8_t *b;           /* G_LIT bytes / string */
    uint32_t nb;
    uint32_t tpos, tlen;  /* its text in the expression (errors; G_LIT: the token, fn its type, until typed) */
} gnode;
typedef struct gval {
    uint8_t vt;
    uint8_t ws;           /* len() of a number: its field's size in bytes */
    const ub_field *f;    /* the schema row it came from (string(): addresses), or NULL */
    uint64_t u;
    const uint8_t *p;
    uint32_t n;
} gval;
enum { Q_ANY = 1, Q_ALL };
typedef struct ftest {
    uint8_t kind, op;
    uint8_t quant;        /* Wireshark 4.0's "any" / "all" before the field: Q_ANY, Q_ALL; 0: as the operator says */
    uint8_t outer;        /* Wireshark's own eth/ip/udp: only layers outside UB, also in non-UB frames */
    uint8_t an;           /* K_AN: AN_* */
    uint8_t has_mask;     /* x & mask before the comparison */
    uint8_t scale;        /* Wireshark's value = the row's x scale (ip.hdr_len: IHL x 4); 0: as is */
    uint8_t wscond;       /* UB_WS_LEN / UB_WS_TYPE: the name stands for some of the row's values (eth.len) */
    uint8_t slice;        /* [from:count] of the value's bytes */
    int16_t prefix;       /* CIDR prefix length, -1 none */
    int32_t sl_from, sl_count; /* sl_from < 0: from the end; sl_count < 0: to the end */
    uint32_t an_flag;     /* AN_FLAG: the ub_tp_flags bit */
    uint16_t nc;          /* candidates */
    const ub_hdr **h;     /* [nc] */
    const ub_field **f;   /* [nc] */
    uint8_t *grp;         /* [nc] name group: one value per layer and group (ip.addr = src, dst) */
    uint8_t *cmode;       /* [nc] CM_* */
    uint64_t *num;        /* [nc] literal as a number for that candidate */
    uint64_t lit;         /* K_ERROR: error code; frame.*, K_AN numbers: the number */
    uint64_t hi;          /* OP_RANGE upper bound */
    uint64_t mask;
    ub_re *re;            /* OP_MATCHES */
    uint8_t bytes[LIT_MAX];
    uint32_t nbytes;
    uint32_t gl, gr, gh;  /* K_GEN: the two sides (node indexes); OP_RANGE: gr <= gl <= gh */
} ftest;
/* true when every occurrence must satisfy the test (and one must exist): "all", else !=, === */
static inline bool ftest_all(const ftest *t)
{
    return t->quant ? t->quant == Q_ALL : t->op == OP_NE || t->op == OP_ALL_EQ;
}

enum { I_TEST, I_JF, I_JT, I_NOT, I_PUSH, I_XOR };
typedef struct finsn {
    uint8_t op;
    uint32_t arg;
} finsn;

#define FILTER_STACK (2 * UB_FILTER_MAX_DEPTH + 4) /* pending ^^ operands */

struct ub_filter {
    finsn *code;
    uint32_t ncode, capcode;
    ftest *tests;
    uint32_t ntests, captests;
    gnode *nodes;         /* K_GEN expressions */
    uint32_t nnodes, capnodes;
    bool uses_an;
    bool uses_time;       /* frame.time_epoch/_relative/_delta */
    bool uses_frame;      /* frame or a frame.* field (tshark then shows the frame item: -z io,phs) */
};

/* an ordered comparison's verdict from c = -1, 0, 1 (memcmp-like) */
static inline bool ub_op_verdict(unsigned op, int c)
{
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
/* contains: b[0..nb) occurs in a[0..na) */
static inline bool ub_has_sub(const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb)
{
    if (nb == 0) return true;
    for (uint32_t i = 0; i + nb <= na; i++)
        if (a[i] == b[0] && memcmp(a + i, b, nb) == 0) return true;
    return false;
}

/* filter_match.c: the values of a field test (op OP_EXISTS) in one view, at most max; what is needed
 * to format one (TP endpoints) goes into sbuf (slen bytes) */
unsigned ub_ftest_values(const ftest *t, const ub_view *v, const ub_filter_pkt *pk, gval *out, unsigned max,
                         char *sbuf, size_t slen);
/* filter_match.c: VT_* of a schema row's values */
uint8_t ub_field_vt(const ub_field *f);
/* filter_gen.c: a K_GEN test on one view; sv/nsv (or NULL): the values of the fields that depend on
 * the view, collected over the several views of one frame (ub_filter_acc: [test * GEN_VALS], [test]) */
bool ub_gen_test(const ub_filter *f, const ftest *t, const ub_view *v, const ub_filter_pkt *pk, const gval *sv,
                 const uint16_t *nsv);
/* the field reads the view (not frame.*, not ub.analysis.*, which are the frame's) */
static inline bool ub_gen_per_view(const ftest *t) { return t->kind != K_AN && !(t->kind >= K_FRAME && t->kind <= K_FRAME_TDELTA); }

/* one unit of a record through the state engine (filter_an.c, srt_ws.c): decoded into v (an incomplete
 * unit at the end of a stream gets its error), fed to st when UB; false when not UB */
bool ub_fan_engine_unit(ub_state *st, ub_view *v, const ub_opts *o, const ub_rec *r, const uint8_t *unit, uint32_t len,
                        ub_entry entry, unsigned flags);

#endif
