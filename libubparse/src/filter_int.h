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

typedef struct ftest {
    uint8_t kind, op;
    uint8_t outer;        /* Wireshark's own eth/ip/udp: only layers outside UB, also in non-UB frames */
    uint8_t an;           /* K_AN: AN_* */
    uint8_t has_mask;     /* x & mask before the comparison */
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
} ftest;

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
    bool uses_an;
    bool uses_time;       /* frame.time_epoch/_relative/_delta */
};

/* one unit of a record through the state engine (filter_an.c, srt_ws.c): decoded into v (an incomplete
 * unit at the end of a stream gets its error), fed to st when UB; false when not UB */
bool ub_fan_engine_unit(ub_state *st, ub_view *v, const ub_opts *o, const ub_rec *r, const uint8_t *unit, uint32_t len,
                        ub_entry entry, unsigned flags);

#endif
