/* State-engine internals shared by the rule modules (st_dll.c, st_tp.c, st_ta.c, state.c). */
#ifndef UB_ST_INTERNAL_H
#define UB_ST_INTERNAL_H

#include "internal.h"
#include "pktsum.h"
#include "rules.h"
#include "ubparse/state.h"

#include <stddef.h>

/* ---------------------------------------------------------------- field handles */
/* A field name resolved once (at engine creation) to every table that defines it; reading it from
 * a layer is then a pointer compare plus the bit reader — no string work per packet. */
#define UB_FH_MAX 8
#if defined(__GNUC__)
#define UB_FH_INLINE inline __attribute__((always_inline))
#else
#define UB_FH_INLINE inline
#endif
typedef struct ub_fh {
    const ub_hdr *h[UB_FH_MAX];
    const ub_field *f[UB_FH_MAX];
    uint8_t n;
    /* entries [0, nfast) (those added by ub_fh_init/ub_fh_add) carry a precomputed read of a plain
     * integer row within 8 bytes (l8 = UINT32_MAX: not such a row): a layer of at least l8 bytes
     * holds the row in the 8 bytes at b8 (one big-endian load, shift s8, mask); a shorter one of at
     * least l4 bytes in the 4 bytes at b4 (l4 = 0xFF: none); 1-3-byte layers (CCI) are read whole */
    uint8_t nfast;
    struct ub_fh_rd {
        uint32_t l8;    /* max(the row's last byte + 1, 8) */
        uint8_t b8, s8; /* 8-byte window: first byte, right shift */
        uint8_t l4, b4, s4;
        uint8_t need;   /* bytes the layer must have: the row's last byte + 1 */
        uint8_t end;    /* the row's end bit (rows within the first 32 bytes when need < 4) */
        uint64_t mask;
    } rd[UB_FH_MAX];
} ub_fh;
void ub_fh_init(ub_fh *fh, const char *abbrev); /* aborts nothing: unknown names give n = 0 */
void ub_fh_add(ub_fh *fh, const char *abbrev);  /* also read this field where a layer has it */
/* the same answers from the engine's start-up name index (module init functions) */
/* the audit engine: findings its keep callback declines go to cb (rule, severity), not to fcb */
void ub_st_set_count_cb(ub_state *s, void (*cb)(void *ctx, unsigned rule, unsigned sev));
void ub_st_fh_init(ub_state *s, ub_fh *fh, const char *abbrev);
void ub_st_fh_add(ub_state *s, ub_fh *fh, const char *abbrev);
/* The schema's row names, hashed (st_names.c): built once (per audit session), then read-only and
 * shared by the engines made with it, also on other threads. ub_st_names_find: the (header, row)
 * pairs named `abbrev`, in ub_field_find's order, at most max; header names give none. */
typedef struct ub_st_names ub_st_names;
ub_st_names *ub_st_names_new(void); /* NULL: out of memory */
void ub_st_names_free(ub_st_names *x);
unsigned ub_st_names_find(const ub_st_names *x, const char *abbrev, const ub_hdr **h, const ub_field **f, unsigned max);
/* ub_state_new with a shared index (NULL: the engine builds its own for its start-up) */
ub_state *ub_state_new_names(const ub_state_cfg *cfg, ub_finding_cb fcb, void *ctx, const ub_st_names *names);
/* ub_field_value's integer for f in l (plain bit rows read inline); false when not present */
static inline bool ub_fh_read(const ub_layer *l, const ub_field *f, uint64_t *u)
{
    if ((f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED)))
        return ub_rd_bits_var(l->data, l->len, f->bit_off, f->bits, u);
    ub_val v;
    bool ok = ub_field_value(l, f, &v) == 0;
    *u = ok ? v.u : 0;
    return ok;
}
/* entry i of the handle read from l through its precomputed window; false: take ub_fh_read */
static inline bool ub_fh_fast(const ub_fh *fh, unsigned i, const ub_layer *l, uint64_t *u)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const struct ub_fh_rd *r = &fh->rd[i];
    if (i >= fh->nfast) return false;
    if (__builtin_expect(l->len >= r->l8, 1)) { /* the 8 bytes at b8 hold the row */
        uint64_t w;
        memcpy(&w, l->data + r->b8, 8);
        *u = (__builtin_bswap64(w) >> r->s8) & r->mask;
        return true;
    }
    if (l->len >= 8 || l->len < r->need) return false;
    if (l->len >= r->l4) { /* a short layer: the 4-byte window */
        uint32_t w;
        memcpy(&w, l->data + r->b4, 4);
        *u = (uint64_t)(__builtin_bswap32(w) >> r->s4) & r->mask;
        return true;
    }
    if (l->len < 4) { /* 1-3 bytes (CCI): the whole layer */
        uint32_t w = 0;
        for (uint32_t k = 0; k < l->len; k++) w = w << 8 | l->data[k];
        *u = (uint64_t)(w >> (l->len * 8u - r->end)) & r->mask;
        return true;
    }
    return false;
#else
    (void)fh, (void)i, (void)l, (void)u;
    return false;
#endif
}
/* value of the handle's field in layer l (0 when l is NULL or has no such field) */
static UB_FH_INLINE uint64_t ub_fh_get(const ub_fh *fh, const ub_layer *l)
{
    if (!l) return 0;
    for (unsigned i = 0; i < fh->n; i++) {
        if (fh->h[i] != l->hdr) continue;
        uint64_t u;
        if (ub_fh_fast(fh, i, l, &u)) return u;
        return ub_fh_read(l, fh->f[i], &u) ? u : 0;
    }
    return 0;
}
static UB_FH_INLINE bool ub_fh_has(const ub_fh *fh, const ub_layer *l)
{
    if (!l) return false;
    for (unsigned i = 0; i < fh->n; i++) {
        uint64_t u;
        if (fh->h[i] == l->hdr) return ub_fh_fast(fh, i, l, &u) || ub_fh_read(l, fh->f[i], &u);
    }
    return false;
}

/* Several fields of one header read together (the per-packet summary, pktsum.h): for each header
 * table (variant) the handles resolve to, the precomputed windows of every field, so that a layer
 * long enough for all of them costs one load, shift and mask per field and no handle search. A
 * shorter layer (or a field without a precomputed read) takes ub_fh_get/ub_fh_has, field by field:
 * the values and the presence bits are exactly theirs. */
#define UB_ROWS_MAX 12
#define UB_ROWS_VAR 4
typedef struct ub_rows {
    const ub_fh *fh[UB_ROWS_MAX];
    uint8_t n, nvar;
    struct ub_rows_var {
        const ub_hdr *h;
        uint32_t lmin;   /* layers of at least lmin bytes: every field by its window (UINT32_MAX: never) */
        uint32_t need;   /* layers of need..7 bytes: every field from the whole layer */
        uint32_t has;    /* bit k: this table defines field k */
        uint8_t b8[UB_ROWS_MAX], s8[UB_ROWS_MAX], end[UB_ROWS_MAX];
        uint64_t mask[UB_ROWS_MAX]; /* 0 where the table has no such field: it reads as 0 */
    } var[UB_ROWS_VAR];
} ub_rows;
/* fields fh[0..n) of every table they are defined in (n <= UB_ROWS_MAX) */
void ub_rows_init(ub_rows *r, const ub_fh *const *fh, unsigned n);
#if defined(__GNUC__)
#define UB_ROWS_UNROLL _Pragma("GCC unroll 12")
#else
#define UB_ROWS_UNROLL
#endif
#define UB_ROWS_FAST (1u << 31) /* ub_rows_read: every field came from its precomputed window */
/* out[k] = ub_fh_get(fh[k], l), k < n; returns the ub_fh_has bits (bit k) | UB_ROWS_FAST when the windows
 * were used (the values ub_fh_fast gives) */
static UB_FH_INLINE uint32_t ub_rows_read(const ub_rows *r, const ub_layer *l, uint64_t *out, const unsigned n)
{ /* n: r->n, a constant at the call (the loops unroll) */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (unsigned v = 0; v < r->nvar; v++) {
        const struct ub_rows_var *x = &r->var[v];
        if (x->h != l->hdr) continue;
        const uint32_t len = l->len;
        const uint8_t *d = l->data;
        if (len >= x->lmin) {
            UB_ROWS_UNROLL
            for (unsigned k = 0; k < n; k++) {
                uint64_t w;
                memcpy(&w, d + x->b8[k], 8);
                w = (__builtin_bswap64(w) >> x->s8[k]) & x->mask[k];
                out[k] = w;
            }
            return x->has | UB_ROWS_FAST;
        }
        if (len < 8 && len >= x->need) { /* a short layer (LPH, compact BTAH, CCI): read whole */
            uint64_t w = 0;
            uint32_t i = 0;
            if (len >= 4) {
                uint32_t a;
                memcpy(&a, d, 4);
                w = __builtin_bswap32(a);
                i = 4;
            }
            for (; i < len; i++) w = w << 8 | d[i];
            w <<= 64u - len * 8u; /* left-aligned: field k ends s = 64 - end bits from the right */
            UB_ROWS_UNROLL
            for (unsigned k = 0; k < n; k++) {
                uint64_t v = (w >> (64u - x->end[k])) & x->mask[k];
                out[k] = v;
            }
            return x->has | UB_ROWS_FAST;
        }
        break;
    }
#endif
    uint32_t has = 0;
    for (unsigned k = 0; k < n; k++) {
        out[k] = ub_fh_get(r->fh[k], l);
        if (ub_fh_has(r->fh[k], l)) has |= 1u << k;
    }
    return has;
}

/* ---------------------------------------------------------------- the packet as the rules see it */
typedef struct ub_addr {
    uint8_t len; /* 0 = none */
    uint8_t b[16];
} ub_addr;
/* the address as two words, the bytes past its length (at most 16) zero */
static inline void ub_addr_words(const ub_addr *a, uint64_t *w0, uint64_t *w1)
{
    const unsigned n = a->len > 16 ? 16 : a->len;
    *w0 = *w1 = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the bytes of each word that are the address's (n = 0..16); & 7: no shift >= 64 in the unused arms */
#define M8(k) ((k) >= 8 ? ~0ull : (k) <= 0 ? 0ull : (1ull << 8 * ((k) & 7)) - 1)
#define MW(k) { M8(k), M8((k) - 8) }
    static const uint64_t mask[17][2] = { MW(0), MW(1), MW(2), MW(3), MW(4), MW(5), MW(6), MW(7), MW(8),
                                          MW(9), MW(10), MW(11), MW(12), MW(13), MW(14), MW(15), MW(16) };
#undef MW
#undef M8
    memcpy(w0, a->b, 8); /* both words loaded whole (b[] has 16 bytes), the bytes past the address masked off */
    memcpy(w1, a->b + 8, 8);
    *w0 &= mask[n][0];
    *w1 &= mask[n][1];
#else
    memcpy(w0, a->b, n < 8 ? n : 8);
    if (n > 8) memcpy(w1, a->b + 8, n - 8);
#endif
}
/* the same address: its length and bytes (no call, no loop) */
static inline bool ub_addr_same(const ub_addr *a, const ub_addr *b)
{
    uint64_t a0, a1, b0, b1;
    if (a->len != b->len) return false;
    ub_addr_words(a, &a0, &a1);
    ub_addr_words(b, &b0, &b1);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

typedef struct ub_pkt {
    const ub_view *v;
    const ub_pktinfo *pi;
    int cfg;
    uint8_t kind;            /* ub_kind */
    ub_addr src, dst;        /* SCNA/DCNA or IP addresses */
    uint64_t seid, deid;     /* EIDH (128-bit EIDs folded to 64 bits), 0 if none */
    uint32_t upi;            /* UPIH, UINT32_MAX if none */
    bool crc_bad;            /* BCRC or ICRC bad: keep out of TP/TA/credit state (§10.6 d) */
    bool malformed;          /* a decode error of error severity */
    bool cut;                /* the record was cut by the snapshot length: no length verdicts, no CRCs */
    uint8_t tp_kind;         /* enum ub_tp_kind */
    uint32_t payload_len;    /* bytes of the transaction payload layer(s) */
    uint32_t flits;          /* flit-framed records: flits of the unit (0 otherwise) */
    uint8_t nb;              /* an IB BTH or SUE RH: work for the neighbour module (st_neigh.c) */
    ub_pktsum sum;           /* header values read once (pktsum.h) */
    union { /* layers of interest (NULL when absent); state.c fills lay[] through a table per header id */
        struct {
            /* extraction only: layers left out, UPIH, EIDH, an IB BTH or SUE RH */
            const ub_layer *lx_none, *lx_upih, *lx_eidh, *lx_nb;
            const ub_layer *lph, *lch, *dllcb, *lna, *bcrc, *end, *nth, *nthip, *ip, *udp, *icrc;
            const ub_layer *rtph, *utph, *ctph, *cetph, *saetph;
            const ub_layer *btah, *atah, *maetah, *mtetah, *udetah, *taidetah, *ofstetah, *immetah, *ntfetah, *beetah, *tvetah;
            const ub_layer *mgmtetah, *scanhdr, *scan_rpath, *scanpdu, *payload;
            const ub_layer *cci;
        };
        const ub_layer *lay[40];
    };
} ub_pkt;
#define UB_PKT_LAY(m) ((uint8_t)((offsetof(ub_pkt, m) - offsetof(ub_pkt, lay)) / sizeof(const ub_layer *)))
_Static_assert(offsetof(ub_pkt, cci) < offsetof(ub_pkt, lay) + sizeof(((ub_pkt *)0)->lay), "ub_pkt lay[] covers every layer pointer");

/* The layer dispatch of a header stack met before (ub_view.tid): the lay[] slots extract() filled and
 * what it derived from the layers alone, kept per extracting engine (or pipeline decoder) in a small
 * direct-mapped memo indexed by the tid's low bits (the template's slot in its cache: the live ones
 * never collide); a view with the same tid has the same layers, so they are filled again from it */
#define UB_XP_SETS 256
#define UB_XP_MAX 16
typedef struct ub_xplan {
    uint64_t tid;     /* 0: empty */
    uint16_t nl;      /* the view's layers */
    uint8_t n;        /* slot pairs */
    bool crc_bad;
    uint32_t payload_len;
    uint32_t sl[UB_XP_MAX]; /* lay[sl & 0xFF] = the layer at byte sl >> 8 of the view's layer[] */
} ub_xplan;

/* ---------------------------------------------------------------- bounded tables */
#define UB_KEY_MAX 56
typedef struct ub_key {
    uint8_t len;
    uint8_t b[UB_KEY_MAX];
} ub_key;
static inline void ub_key_add(ub_key *k, const void *p, size_t n)
{
    if (k->len + n <= UB_KEY_MAX) { /* the common case: n as the caller wrote it (a constant: one move) */
        memcpy(k->b + k->len, p, n);
        k->len = (uint8_t)(k->len + n);
        return;
    }
    if (k->len >= UB_KEY_MAX) return; /* full (len never exceeds the maximum; says so to the compiler) */
    n = UB_KEY_MAX - k->len;
    memcpy(k->b + k->len, p, n);
    k->len = (uint8_t)(k->len + n);
}
static inline void ub_key_addr(ub_key *k, const ub_addr *a)
{
    if (k->len + 1u + sizeof a->b <= UB_KEY_MAX && a->len <= sizeof a->b) {
        /* a fixed-size copy of the whole b[] (the key's bytes past its length are never read) */
        k->b[k->len] = a->len;
        memcpy(k->b + k->len + 1, a->b, sizeof a->b);
        k->len = (uint8_t)(k->len + 1u + a->len);
        return;
    }
    ub_key_add(k, &a->len, 1);
    ub_key_add(k, a->b, a->len);
}
static inline void ub_key_u64(ub_key *k, uint64_t v) { ub_key_add(k, &v, sizeof v); }

/* Open addressing, Robin Hood order (each run of slots sorted by home slot, then hash): the layout
 * is a function of the keys alone, not of the insertion history, so a table that grew by rehashing
 * looks exactly like one allocated at full size. Tables start small (UB_TBL_CAP0 slots) and double
 * up to the size that holds `max` entries at <= 3/4 load; approximate LRU eviction beyond `max`
 * (only ever at full size). One 64-bit hash per key, word at a time; a lookup of one of the two keys found
 * last (a flow's packets, both ways) is a key compare, no hash. Each entry starts with a
 * ub_tent header; the module's data follows. Inserting (ub_tbl_get creating an entry) and removing
 * may move other entries of the same table: do not keep pointers into it across those. */
#define UB_TBL_CAP0 16u
typedef struct ub_tent {
    uint64_t hash;
    uint64_t last;  /* logical time of the last use */
    uint8_t used;
    ub_key key;
} ub_tent;

typedef struct ub_tbl {
    const char *name;
    uint32_t cap, esize, count, max; /* max: entries kept (eviction beyond it) */
    uint32_t full_cap;                      /* cap once max entries are in use */
    uint64_t tick, evicted;
    uint32_t peak;                          /* most entries at once */
    uint64_t first_evict, last_evict;       /* frames of the first / last eviction */
    const uint64_t *frame_now;              /* frame being processed (ub_st_table sets it) */
    uint8_t *mem;                           /* cap slots + 2 scratch entries */
    ub_tent **order;                        /* ub_tbl_next: entries in hash order */
    ub_tent *mru[2];                        /* the slots of the entries found or made last (the two
                                             * directions of a flow), NULL: none. A hit is the key
                                             * compare's (an insert may move entries between used
                                             * slots); cleared when a slot may empty or the slots move
                                             * elsewhere: removal (eviction too) and growth */
    /* called before an entry is evicted (module may report what it loses) */
    void (*on_evict)(void *mod, ub_tent *e);
    void *mod;
} ub_tbl;

int ub_tbl_init(ub_tbl *t, const char *name, uint32_t max_entries, size_t data_size);
void ub_tbl_free(ub_tbl *t);
void *ub_tbl_find(ub_tbl *t, const ub_key *k);             /* data pointer or NULL */
void *ub_tbl_get(ub_tbl *t, const ub_key *k, bool *created); /* find or insert (zeroed) */
void ub_tbl_remove(ub_tbl *t, void *data);
/* iterate: start with *it = 0; returns data pointers of used entries, NULL at the end. The order
 * (by hash, then key) depends on the keys only, never on the table's size or history. Do not
 * insert or remove while iterating. */
void *ub_tbl_next(ub_tbl *t, uint32_t *it);
size_t ub_tbl_bytes(const ub_tbl *t); /* memory held now */
static inline ub_tent *ub_tbl_hdr(void *data) { return (ub_tent *)((uint8_t *)data - sizeof(ub_tent)); }

/* ---------------------------------------------------------------- modules */
typedef struct ub_st_module {
    const char *name;
    unsigned layer;  /* ub_state_layers bit that enables it */
    size_t (*size)(const ub_state_cfg *cfg);
    int (*init)(void *m, ub_state *s);
    void (*packet)(void *m, ub_state *s, const ub_pkt *p);
    void (*finish)(void *m, ub_state *s);
    void (*fini)(void *m);
    uint8_t only;    /* 0: every packet; else UB_MOD_* bits: only packets that have one of them */
} ub_st_module;
enum {
    UB_MOD_NB = 1u << 0, /* checksums good and an IB BTH or SUE RH (ub_pkt nb) */
    UB_MOD_FL = 1u << 1, /* checksums good and a PCIe flit record */
};

extern const ub_st_module ub_st_mod_dll; /* st_dll.c: digest §10.1 */
extern const ub_st_module ub_st_mod_tp;  /* st_tp.c: §10.2, §10.3 */
extern const ub_st_module ub_st_mod_ta;  /* st_ta.c: §10.4, §10.5 */
extern const ub_st_module ub_st_mod_nb;  /* st_neigh.c: RoCEv2 RC, SUE TYPE1, PCIe flits (not UB) */
extern const ub_st_module ub_st_mod_sue;   /* st_sue.c: SUE CNP spacing, bank/VC (not UB) */
extern const ub_st_module ub_st_mod_pcie;  /* st_pcie.c: PCIe flit runs, IDLE, replay timeout (not UB) */

struct ub_state {
    ub_state_cfg cfg;
    ub_finding_cb fcb;
    void *fctx;
    const struct ub_st_names *names;  /* name index, during ub_state_new only */
    void (*fcount)(void *ctx, unsigned rule, unsigned sev); /* a finding fkeep declined: counted only */
    ub_finding_keep_cb fkeep;         /* NULL: every finding is kept (format its keytext) */
    /* the last fkeep answer (ub_st_want_text), valid until the next finding or packet */
    unsigned kq_rule;
    uint64_t kq_frame;
    bool kq_keep, kq_set;
    /* per rule: findings at frames above it the keep callback declines (it told so through
     * ub_st_keep_bound; UINT64_MAX: ask it). Only ever lowered while the callback stays */
    uint64_t keep_above[UB_R__COUNT];
    ub_match_cb mcb;
    void *mctx;
    ub_note_cb ncb;
    void *nctx;
    uint64_t packets;
    uint64_t last_ts;
    void *mods[8];                    /* module states */
    const ub_st_module *mods_def[8];  /* their definitions */
    void (*mods_pkt[8])(void *m, ub_state *s, const ub_pkt *p); /* their packet functions */
    /* the modules a packet goes to (bit i: mods[i]), by what it has: [UB_MOD_* bits], [4]: the DLL
     * module alone (a copy of a packet seen at an earlier capture point) */
    uint8_t mods_run[5];
    unsigned nmods;
    ub_state_stats stats;             /* modules update the live/evicted counters */
    uint64_t cur_frame;               /* frame of the packet being processed */
    ub_tbl *tbls[UB_TBL__COUNT];      /* registered tables (ub_st_table) */
    const char *tbl_what[UB_TBL__COUNT];
    /* handles used by the packet extraction */
    ub_fh f_scna, f_dcna, f_seid, f_deid, f_upi, f_ip_src, f_ip_dst, f_bcrc_status, f_icrc_status;
    ub_fh f_bt_op, f_rt_op, f_rt_rspst, f_rt_rspinfo, f_rt_last, f_rt_src, f_rt_dst, f_rt_psn, f_cci_mode, f_cci_fecn, f_cci_c, f_cci_en;
    ub_fh f_rt_a, f_rt_f, f_rt_tpmsn, f_lph_crd, f_lph_ack, f_lph_crd_vl, f_lph_vl, f_lph_rt;
    ub_fh f_bt_tassn, f_bt_rctype, f_bt_rcid, f_bt_notaack, f_bt_odr, f_bt_retry, f_bt_alloc;
    /* per header id: the ub_pkt lay[] slot its layer goes to (0: none) and, for the kinds where the
     * last one is not the whole answer (first IP/UDP/payload, BCRC, ICRC status, payload length),
     * its UB_XK_* bit */
    struct ub_xmap { uint8_t slot, kind; } xmap[UB_H__COUNT];
    ub_rows rows_rtph, rows_lph, rows_cci, rows_btah; /* the summary's RTPH, LPH, CCI and BTAH fields (pktsum.h) */
    ub_xplan xp[UB_XP_SETS];          /* ub_state_packet's layer-dispatch memo (zeroed: empty) */
    /* per entry of f_scna, f_dcna, f_ip_src, f_ip_dst: an address of whole bytes at byte `off` */
    struct ub_addr_rd { uint8_t whole, off, n; } ar[4][UB_FH_MAX];
    /* merged capture points (profile switch UB_PF_MERGED_HOPS): digests of recent packets and the
     * loss signals per endpoint pair, allocated on the first such packet */
    ub_tbl hops;
    uint64_t hop_copies;
    ub_fh f_hopmask[9];  /* fields a switch may rewrite (CCI, TTL, ...): left out of the hop digest */
};

/* Emit a finding. frames: up to UB_FINDING_FRAMES related frames (0 = none); vals: nvals values.
 * keytext may be NULL. Severity defaults to the rule's; pass sev >= 0 to lower/raise it. */
/* Format the keytext of a finding of `rule` at `frame`? (false: it would only be counted) */
static inline bool ub_st_want_text(ub_state *s, unsigned rule, uint64_t frame)
{
    if (!s->fcb) return false;
    if (!s->fkeep) return true;
    bool k = !(rule < UB_R__COUNT && frame > s->keep_above[rule]) && s->fkeep(s->fctx, rule, frame);
    s->kq_rule = rule; /* ub_st_emit of this finding reuses the answer */
    s->kq_frame = frame;
    s->kq_keep = k;
    s->kq_set = true;
    return k;
}
void ub_st_emit(ub_state *s, unsigned rule, int sev, uint64_t frame, const uint64_t *frames, unsigned nframes,
                const int64_t *vals, unsigned nvals, const char *detail, const char *key, const char *keytext);
/* the keep callback's word: it declines every finding of `rule` at a frame above `frame` for as long as
 * it stays set (the audit collector once it holds its examples of the rule: they only get earlier) */
void ub_st_keep_bound(ub_state *s, unsigned rule, uint64_t frame);
/* shorthand: one related frame, up to two values */
void ub_st_emit2(ub_state *s, unsigned rule, int sev, const ub_pkt *p, uint64_t other_frame, int64_t v0, int64_t v1,
                 const char *detail);
/* Register a module's table: counted in ub_state_get_stats, its evictions reported as UB-ST-001 at
 * the end of the capture (what: what the evicted entries were, e.g. "outstanding transactions"). */
void ub_st_table(ub_state *s, unsigned id, ub_tbl *t, const char *what);
/* A module's bounded tables, each of cap entries, made and registered with ub_st_table; the table's
 * name is ub_state_table_name(id). 0, or -1 with none of them left allocated. */
typedef struct ub_st_tbldef {
    unsigned id;      /* UB_TBL_* */
    size_t off, size; /* offsetof(module, its ub_tbl), the size of one entry */
    const char *what; /* what an eviction loses (UB-ST-001) */
} ub_st_tbldef;
int ub_st_tables(ub_state *s, void *mod, const ub_st_tbldef *d, unsigned n, uint32_t cap);
void ub_st_match(ub_state *s, const ub_match *m);
void ub_st_note(ub_state *s, const ub_pkt_note *n);
/* printable address */
size_t ub_addr_str(const ub_addr *a, char *buf, size_t n);

#endif
