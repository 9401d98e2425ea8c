/* Internals shared by rewrite.c (edits), rw_fix.c (pipeline, fixups) and convert.c (framing). */
#ifndef UB_RW_INTERNAL_H
#define UB_RW_INTERNAL_H

#include "internal.h"
#include "ubparse/rewrite.h"

#define RW_FH_MAX 8
/* a field name resolved once to every table that defines it (format variants share abbrevs) */
typedef struct rw_fh {
    unsigned n;
    const ub_hdr *h[RW_FH_MAX];
    const ub_field *f[RW_FH_MAX];
} rw_fh;
int rw_fh_init(rw_fh *h, const char *abbrev); /* 0 if the name exists */
/* the row of the field in layer l, or NULL */
static inline const ub_field *rw_fh_row(const rw_fh *h, const ub_layer *l)
{
    for (unsigned k = 0; k < h->n; k++)
        if (l->hdr == h->h[k]) return h->f[k];
    return NULL;
}
/* first value of the field in the view: 0 found */
int rw_fh_get(const rw_fh *h, const ub_view *v, ub_val *out);

enum { RW_MAP_CNA, RW_MAP_EID, RW_MAP_IP, RW_MAP_TPN, RW_MAP_UPI, RW_MAP__COUNT };

typedef struct rw_val {
    bool is_int;
    uint8_t nb;
    uint64_t u;
    uint8_t b[16];
} rw_val;

typedef struct rw_map {
    uint8_t kind;
    rw_val from, to;
} rw_map;

typedef struct rw_set {
    rw_fh fh;
    char text[128];      /* value as given (parsed per table: widths differ between variants) */
} rw_set;

typedef struct rw_fuzz {
    rw_fh fh;
    uint64_t threshold;  /* probability * 2^64 (UINT64_MAX = always) */
} rw_fuzz;

typedef struct rw_flow {
    uint64_t key;        /* 0 = empty slot */
    uint32_t first;      /* original value of the first packet seen */
    uint32_t base;       /* new initial value */
    uint32_t maxd;       /* largest forward delta seen (mod 2^bits) */
    uint32_t span;       /* per-loop offset (frozen at the end of loop 0) */
} rw_flow;

typedef struct rw_flows {
    rw_flow *t;
    uint32_t cap, used;  /* cap: power of two */
} rw_flows;

typedef struct rw_cnaip {
    uint64_t cna;
    uint8_t ip[16];
    uint8_t family;      /* 4 or 6 */
} rw_cnaip;

struct ub_rw {
    ub_rw_cfg c;
    ub_opts o;
    /* edits */
    rw_set *sets; unsigned nsets, capsets;
    rw_map *maps; unsigned nmaps, capmaps;
    rw_fh maph[RW_MAP__COUNT][8]; unsigned nmaph[RW_MAP__COUNT];
    rw_fuzz *fuzz; unsigned nfuzz, capfuzz;
    int renum_psn, renum_tassn;     /* 0 off, 1 fixed base, 2 random base, 3 keep (unique only) */
    uint32_t psn_base, tassn_base;
    rw_flows fpsn, ftassn;
    unsigned loop;
    uint64_t rng;
    rw_cnaip *cnaip; unsigned ncnaip, capcnaip;
    /* resolved handles */
    rw_fh h_iplen, h_ipck, h_ihl, h_ip6len, h_udplen, h_udpck, h_plength;
    rw_fh h_scna, h_dcna, h_ip4s, h_ip4d, h_ip6s, h_ip6d, h_srctpn, h_dsttpn, h_psn, h_tpop, h_maxrcv,
          h_tassn_b, h_tassn_a;
    /* scratch (one allocation each) */
    ub_view *v, *v2;
    uint8_t *w, *cbuf;   /* working form, converted form: RW_BUF bytes each */
    ub_rw_stats st;
};
#define RW_BUF (UB_MAX_NETPKT * 2 + 256)

bool rw_view_bad(const ub_view *v);
bool ub_rw_has_edits(const ub_rw *rw);
void rw_fix_handles(ub_rw *rw);
/* recompute lengths (+ ICRC when icrc) of a contiguous record in place; DLLCB flit records get BCRC */
void rw_fix(ub_rw *rw, ub_view *v, ub_entry e, uint8_t *b, uint32_t len, bool icrc);
/* apply every edit to the decoded working buffer w (v decodes w); returns ub_rw_flags bits */
uint32_t rw_edit(ub_rw *rw, ub_view *v, uint8_t *w, uint32_t wlen);
/* convert w (decoded as v, entry we) to `target`; 0 + *why when impossible */
long rw_convert(ub_rw *rw, const ub_view *v, ub_entry we, const uint8_t *w, uint32_t wlen, ub_entry target,
                uint8_t *out, size_t cap, const char **why);
/* offset of a layer in buffer `buf` of `len` bytes, or -1 if the layer is elsewhere */
static inline long rw_off(const ub_layer *l, const uint8_t *buf, uint32_t len)
{
    uintptr_t a = (uintptr_t)l->data, b = (uintptr_t)buf;
    if (a < b || a - b > len || l->len > len - (a - b)) return -1;
    return (long)(a - b);
}
uint16_t rw_ip_csum(const uint8_t *p, uint32_t n);
uint64_t rw_splitmix(uint64_t *s);

#endif
