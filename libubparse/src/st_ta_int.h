/* Internals shared by the transaction-layer module (st_ta.c, digest §10.4) and its management part
 * (st_mg.c, §10.5): the module's state, its table entries and the helpers both use. */
#ifndef UB_ST_TA_INT_H
#define UB_ST_TA_INT_H

#include "st_internal.h"

enum { RING = 16, CRING = 4 };
/* RC part of the keys: INI_RC_ID (20 bits) or one of these markers */
enum {
    RCK_COMPACT = 0x1000000u, /* compact BTAH/ATAH: no INI_RC_ID */
    RCK_SCID = 0x2000000u,    /* INI_RC_Type 10: request carries the SCID, the response the RCID or the SCID (I-38) */
    RCK_MGMT = 0x3000000u,    /* management: MSN keyed per (initiator, target) */
};
/* what a request waits for (§10.6 a) */
enum { NEED_NONE = 0, NEED_SPEC, NEED_YES };
/* management request classes (§10.5 MG-04/MG-05, EV-UBUS replies to events) */
enum { MN_NONE = 0, MN_RSP, MN_REG };
/* ring entry flags */
enum {
    R_ANSWERED = 1u << 0,
    R_NONE = 1u << 1,      /* takes no response (No_TAACK, UTP, Prefetch_tgt, events) */
    R_SPEC = 1u << 2,      /* Write/Send waiting for a TAACK the service mode may not send */
    R_RETRYABLE = 1u << 3, /* answered with RNR / Page Fault / recoverable abnormal TAACK */
    R_FAILED = 1u << 4,    /* answered with Completer Error / unrecoverable / compact Status fail */
    R_COMPACT = 1u << 5,
};
/* transaction entry flags */
enum {
    TXF_COMPACT = 1u << 0, TXF_TAID = 1u << 1, TXF_OFST = 1u << 2, TXF_WRITE = 1u << 3,
    TXF_ORDERED = 1u << 4, TXF_ALLOC = 1u << 5, TXF_RSP_OPEN = 1u << 6,
};
/* ub_match.opcode of enumeration exchanges: 0x80 (never a TAOpcode) | (8 + CMD) << 8, so that the
 * "Code" byte (bits 15:8) of enumeration never collides with the 3-bit MGMTETAH Codes */
enum { MATCH_SCAN = 0x80, MATCH_SCAN_CODE = 8 };

typedef struct ring_ent {
    uint64_t req_frame, req_ts, rsp_frame, rsp_ts;
    uint32_t aux; /* management: INI_RC_ID of the request */
    uint32_t req_hash, rsp_hash;
    uint16_t sn;
    uint8_t op; /* TAOpcode, or management Code << 4 | Sub Code */
    uint8_t flags;
    uint8_t rnr; /* answered with RNR: RNR_Timer + 1 (UB-TA-019); 0 none */
} ring_ent;

typedef struct rc_ent {
    ring_ent ring[RING];
    uint32_t out_writes, out_ordered; /* outstanding tx entries with TXF_WRITE / TXF_ORDERED */
    uint32_t last_full_rck; /* compact-key entry of a pair: RC of the last full-format request (TA-02) */
    uint16_t newest, alloc_tassn;
    uint8_t has_newest, taack_seen, alloc_pending, rhead, has_full;
    uint8_t rfill;      /* ring entries pushed so far, up to RING */
    uint8_t rcnt[RING]; /* pushed ring entries per sn % RING: a lookup of an sn not there reads one byte */
} rc_ent;

typedef struct tx_ent {
    uint64_t frame, ts;    /* first packet of the request */
    uint64_t last_ts;      /* latest packet or Retry copy (§10.6 e) */
    uint64_t rsp_frame, rsp_ts; /* first packet of a multi-packet Read_response */
    uint32_t exp_len;      /* Read: bytes asked; Atomic: operand bytes */
    uint32_t rsp_bytes;    /* Read_response bytes so far */
    uint32_t req_hash, rsp_hash, rcid;
    uint16_t tassn;
    uint8_t op, flags, rsp_bad;
} tx_ent;

typedef struct mg_ent {
    uint64_t frame, ts, last_ts, path_hash, guid;
    uint32_t aux;  /* INI_RC_ID / MSGQ_ID */
    uint16_t msn;
    uint8_t kind;  /* 'M' configuration management, 'S' enumeration */
    uint8_t code;  /* Code << 4 | Sub Code, or Scan CMD */
    uint8_t need;  /* MN_* */
    uint8_t type, hops, slice, has_rpath, guid_keyed, guid_cut; /* guid_cut: a request cut before its GUID (keyed without it) */
} mg_ent;

typedef struct ch_req {
    uint64_t seid, deid;
    uint32_t psn, rck;
    uint16_t tassn;
    uint8_t used;
} ch_req;

typedef struct ch_ent {
    uint64_t bm[2];  /* PSN high - i seen, i = 0..127 */
    uint64_t next_addr, last_frame;
    uint32_t high, next_off, rck;
    uint16_t tassn;
    uint8_t valid, open, has_addr, has_off, rhead;
    ch_req req[CRING];
} ch_ent;

typedef struct mod_ta {
    ub_state *s;
    uint64_t frame; /* frame being processed (eviction findings) */
    bool ta_on, mg_on;
    ub_tbl tx, mg, rc, ch;
    ub_fh bt_tassn, bt_rcid; /* the other BTAH values come from the packet summary (p->sum) */
    ub_fh at_op, at_sv, at_tassn, at_rspst, at_rspinfo, at_rcid, at_status;
    ub_fh ma_addr, ma_len, of_off;
    ub_fh ut_last; /* the RTPH values come from the packet summary (p->sum) */
    ub_fh mg_sub, mg_code, mg_rsp, mg_status, mg_len;
    ub_fh sh_type, sh_hops, sh_fpath, sh_rpath, sc_cmd, sc_slice, sc_status, sc_msgq, sc_msn, sc_guid, tlv_slice;
    struct ta_epmemo { /* ub_ta_rc_key: the endpoint folds of the last two endpoint sets (both directions of a pair) */
        ub_addr ia, ta;
        uint64_t ie, te, extra, fold;
        uint8_t kind, ok;
    } epm[2];
    uint8_t epm_next; /* the slot the next miss replaces */
} mod_ta;

/* small helpers */
static inline uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}
static inline bool sn_newer(uint16_t a, uint16_t b) { return (int16_t)(uint16_t)(a - b) > 0; }   /* mod 2^16 */
static UB_FH_INLINE uint64_t fget(const ub_fh *h, const ub_layer *l) { return ub_fh_get(h, l); }
static inline bool fbytes(const ub_fh *h, const ub_layer *l, ub_val *v)
{
    if (!l) return false;
    for (unsigned i = 0; i < h->n; i++)
        if (h->h[i] == l->hdr) return ub_field_value(l, h->f[i], v) == 0;
    return false;
}
static inline bool addr_zero(const ub_addr *a)
{
    for (unsigned i = 0; i < a->len; i++)
        if (a->b[i]) return false;
    return true;
}
static inline bool flit_entry(const ub_pkt *p) { return p->v->entry == UB_ENTRY_FLIT || p->v->entry == UB_ENTRY_STREAM; }

/* printable state key of a finding, formatted only when a finding is emitted (no string work per
 * packet): endpoints + RC + sequence number, or a preformatted text */
typedef struct kt_t {
    const ub_addr *ia, *ta;
    const char *what;
    uint32_t rck;
    unsigned sn;
    char text[48];
} kt_t;

/* st_ta.c */
uint32_t ub_ta_pkt_hash(const ub_pkt *p, const ub_layer *from);
void ub_ta_rc_key(mod_ta *m, ub_key *k, uint8_t kind, const ub_addr *ia, uint64_t ie, const ub_addr *ta, uint64_t te,
                  uint32_t rck, uint64_t extra);
void ub_ta_key_sn(ub_key *k, const ub_key *rk, uint16_t sn);
void ub_ta_kt_ep(kt_t *k, const ub_addr *ia, const ub_addr *ta, const char *what, uint32_t rck, unsigned sn);
void ub_ta_emit(mod_ta *m, unsigned rule, int sev, uint64_t frame, uint64_t f1, uint64_t f2, int64_t v0, int64_t v1,
                unsigned nv, const char *detail, const char *key, const kt_t *kt);
rc_ent *ub_ta_rc_get(mod_ta *m, const ub_key *rk);
void ub_ta_rc_sent(rc_ent *rc, uint16_t sn);
ring_ent *ub_ta_ring_find(rc_ent *rc, uint16_t sn);
ring_ent *ub_ta_ring_push(rc_ent *rc, uint16_t sn); /* the next slot, cleared, for sequence number sn */
void ub_ta_send_match(mod_ta *m, uint64_t req_frame, uint64_t req_ts, uint64_t rsp_frame, uint64_t rsp_ts, uint8_t kind,
                      uint16_t op);
/* st_mg.c: management (§10.5) */
void ub_mg_config(mod_ta *m, const ub_pkt *p); /* MGMTETAH exchanges (Configuration, Entity, events) */
void ub_mg_scan(mod_ta *m, const ub_pkt *p);   /* enumeration Scan PDUs */

#endif
