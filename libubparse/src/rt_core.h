/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A protocol-neutral reliable-transport auditor core (docs/neighbours.md "auditor"): one sender's
 * sequence space as a capture shows it — modular PSN arithmetic (mod 2^n, or PCIe's mod 1023 skipping
 * 0), the window of outstanding PSNs, cumulative/implicit acks, selective-ack bitmaps, NAK with
 * go-back-N or selective replay, duplicate (retransmitted) and invalid (beyond the newest sent)
 * regions, loss (PSN gaps never filled), ack-required packets never acknowledged, loss and RNR timers,
 * and the capture point that saw each packet. Profiles give the width, the window, the rule and the
 * text of each finding: UB RTP (24-bit, st_tp.c), IB RC (24-bit), SUE TYPE1 (12-bit), PCIe flits
 * (mod 1023).
 *
 * Two trackers share the profiles and the arithmetic:
 *  - rt_seq (the full tracker): gaps are remembered and judged when they are acknowledged, filled or
 *    left open at the end; a ring of recent PSNs tells a resend from the same packet at another
 *    capture point; TPSACK-style bitmaps; loss timer, RNR NAK timer, IB AETH MSN. UB RTP (st_tp.c),
 *    IB RC and SUE TYPE1 (st_neigh.c) run on it. It needs a power-of-two modulus.
 *  - rt_flow (the light tracker): a gap is reported at the packet that reveals it. Only PCIe flits
 *    run on it: their sequence space (1..1023, 0 unused) is not a power of two.
 * Findings go through ub_st_emit. */
#ifndef UB_RT_CORE_H
#define UB_RT_CORE_H

#include "st_internal.h"

/* texts of the full tracker's findings (a profile may word them for its protocol) */
enum {
    RT_T_WINDOW, RT_T_GAP_FILLED, RT_T_OOO, RT_T_RETX_EARLY, RT_T_RETX, RT_T_SACK_RETX, RT_T_NAK_START,
    RT_T_ACK_BACK, RT_T_DUP_ACK, RT_T_ACK_BEYOND, RT_T_GAP_ACKED, RT_T_NAK_TWICE, RT_T_SACK_B0, RT_T_SACK_MAXLOW,
    RT_T_SACK_MAXDEC, RT_T_SACK_MAXHI, RT_T_SACK_TOP, RT_T_SACK_MAXBIT, RT_T_SACK_GAP, RT_T_LOST, RT_T_NAK_OPEN,
    RT_T_UNACKED, RT_T_ACK_REQ, RT_T_LOSS_TIMER, RT_T__COUNT
};

#define RT_TXT_MAX 104
typedef struct rt_profile {
    const char *name;       /* "UB RTP", "IB RC", "SUE TYPE1", "PCIe flit" */
    uint32_t modulus;       /* 2^24, 2^12, 1023 (the full tracker needs a power of two) */
    uint32_t window;        /* most PSNs outstanding (UB 8M, IB 8M-1, SUE 512, PCIe 511) */
    uint8_t win_bias;       /* the window finding's values minus this (UB TP-03 states highest − lowest: 1) */
    bool skip_zero;         /* PCIe: sequence numbers 1..1023, 0 unused */
    bool ack_resync;        /* an ack beyond the newest sent proves PSNs the capture missed (UB); else the
                             * sender discards it (IBTA §9.7.5.1.2) and so does the tracker */
    bool matches;           /* data <-> first ack pairs go to ub_st_match (the UB response-time statistics) */
    bool win_first;         /* before the first ack, the window counts from the first PSN captured (IB, SUE);
                             * else (UB) it is judged from the first ack on */
    bool nak_next;          /* the first packet after a NAK must be its PSN (IB, SUE go-back-N); else only
                             * the first resend is judged (UB: new PSNs may be in flight past the NAK) */
    /* rules (UB_R_*; UB_R__COUNT = none). Both trackers: resend, bad ack PSN, NAK replay, window */
    uint16_t r_retrans, r_ack_psn, r_nak_replay, r_window;
    uint16_t r_gap; /* light tracker: a gap at the packet revealing it */
    /* full tracker: lost, gap acked, gap filled, reordered, duplicate ack, selective ack, ack-required
     * packet unacked, any data unacked at the end, loss timer expired (--loss-timeout), resend before an
     * RNR NAK's timer elapsed, message sequence (IB AETH MSN) backwards or ahead of the PSNs */
    uint16_t r_lost, r_gap_acked, r_gap_filled, r_ooo, r_dup_ack, r_sack, r_ack_req, r_data_unacked;
    uint16_t r_loss_timer, r_rnr, r_msn;
    uint64_t min_rto_ns;    /* a PSN of a gap resent this long after the gap is a timeout resend */
    const char (*txt)[RT_TXT_MAX]; /* RT_T__COUNT texts (arrays, not pointers: no relocations at load) */
} rt_profile;

extern const rt_profile rt_ub_rtp, rt_ib_rc, rt_sue_type1, rt_pcie_flit;

/* ================================================================ modular arithmetic */
/* PSN <-> index (0..modulus-1) */
uint32_t rt_idx(const rt_profile *pf, uint32_t psn);
uint32_t rt_psn(const rt_profile *pf, uint32_t idx);
/* (power-of-two profiles) a + d and a − b as a signed distance in [−modulus/2, modulus/2) */
static inline uint32_t rt_add_m(uint32_t mod, uint32_t a, int32_t d) { return (uint32_t)((int64_t)a + d) & (mod - 1); }
static inline int32_t rt_diff_m(uint32_t mod, uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & (mod - 1);
    return d >= mod / 2 ? (int32_t)d - (int32_t)mod : (int32_t)d;
}
static inline uint32_t rt_add(const rt_profile *pf, uint32_t a, int32_t d) { return rt_add_m(pf->modulus, a, d); }
static inline int32_t rt_diff(const rt_profile *pf, uint32_t a, uint32_t b) { return rt_diff_m(pf->modulus, a, b); }

/* ================================================================ the full tracker */
#define RT_RING_N 16     /* PSNs remembered per flow (first-copy frames, A = 1, matches) */
#define RT_GAPS 4        /* open PSN gaps tracked per flow (§10.6 c) */
#define RT_SACK_BITS 256 /* selective-ack bitmap bits kept for the retransmission check */

/* ring slot flags */
enum { RT_SL_VALID = 1, RT_SL_A = 2, RT_SL_LAST = 4, RT_SL_MATCHED = 8 };
/* rt_seq_data flag, not kept in the slot: a jump forward is expected (an IB RDMA Read took several PSNs) */
enum { RT_DF_SKIP = 0x80 };

typedef struct rt_slot {
    uint64_t frame, ts; /* first copy */
    uint32_t psn;
    uint16_t ifmask;    /* capture points (pcapng interface mod 16) that saw this PSN */
    uint8_t flags;      /* RT_SL_* */
    uint8_t aux;        /* the profile's byte (UB: FECN level of the first copy) */
} rt_slot;

typedef struct rt_gap {
    uint64_t frame_after, ts_after; /* the packet that revealed the gap (first after it) */
    uint32_t lo, n;                 /* PSNs lo .. lo + n - 1 never captured */
    uint32_t fb_epoch;              /* flow fb_epoch when the gap opened */
    uint8_t note;                   /* gap findings are notes */
} rt_gap;

typedef struct rt_seq {
    uint8_t have_data, ack_valid, nak_pending, sack_valid, prev_retx, maxrcv_valid, win_reported, ngaps;
    uint8_t timer_reported;     /* the loss timer was reported for the current wait */
    uint64_t progress_ts;       /* last ack advance, resend, or start of the outstanding data: the loss timer */
    uint32_t hi, first_psn, acked, nak_psn, sack_psn, maxrcv, prev_psn;
    uint32_t fb_epoch;          /* NAKs + selective acks seen: recovery context for late PSNs */
    uint64_t nak_frame, nak_ts, sack_frame, ack_frame;
    uint64_t rnr_wait_ns;       /* the pending NAK is an RNR NAK: the resend waits this long (0: not RNR) */
    uint64_t last_ack_sig;      /* last ack (the profile's signature) ... */
    uint16_t last_ack_ifmask;   /* ... and the capture points that saw it */
    uint16_t sack_nbits;
    uint8_t sack_bits[RT_SACK_BITS / 8]; /* bit i <-> sack_psn + i (logical order) */
    rt_gap gap[RT_GAPS];
    rt_slot ring[RT_RING_N];
} rt_seq;

/* one call's context: the engine, the profile, the packet (NULL at the end) and how findings are keyed */
typedef struct rt_ctx {
    ub_state *s;
    const rt_profile *pf;
    const ub_pkt *p;
    bool on;          /* the profile's rules are audited (else findings are dropped) */
    bool as_note;     /* gaps, reordering and bad ack PSNs are notes (§10.6 c option, per-packet routing) */
    void (*keytext)(const void *obj, char *buf, size_t n);
    const void *obj;
    const char *keyname;
} rt_ctx;

/* a selective-ack bitmap as carried: bit order 0 = BitMap[0] is the last byte's bit 0,
 * 1 = first bit on the wire, 2 = byte i/8 bit i%8 (LSB first) */
typedef struct rt_bitmap {
    const uint8_t *b;
    uint32_t nbytes;
    unsigned order;
    uint32_t maxrcv; /* highest PSN received */
} rt_bitmap;

enum { RT_NEW, RT_OLD, RT_COPY }; /* rt_seq_data: a new PSN; at or below the highest; another capture point's copy */
typedef struct rt_dres {
    uint32_t flags;    /* UB_TPF_* */
    uint32_t expected; /* the PSN expected next before this packet */
    int32_t d;         /* RT_NEW: distance from the highest sent (1 = in order) */
    rt_slot *copy;     /* RT_COPY: the first copy's slot */
} rt_dres;

static inline uint16_t rt_ifbit(const ub_pkt *p) { return (uint16_t)(1u << (p->pi->ifindex & 15)); }
/* A data packet with sequence number psn; slflags RT_SL_A / RT_SL_LAST; aux kept in its ring slot */
int rt_seq_data(const rt_ctx *x, rt_seq *q, uint32_t psn, uint8_t slflags, uint8_t aux, rt_dres *r);
/* The same ack again at another capture point (sig: what the profile compares): ignore it */
static inline bool rt_seq_ack_copy(rt_seq *q, uint64_t sig, uint16_t ifbit)
{
    if (q->last_ack_sig == sig && q->ack_valid && !(q->last_ack_ifmask & ifbit)) {
        q->last_ack_ifmask |= ifbit;
        return true;
    }
    if (q->last_ack_sig != sig) q->last_ack_ifmask = 0;
    q->last_ack_sig = sig;
    q->last_ack_ifmask |= ifbit;
    return false;
}
/* An ack with PSN psn: cumulative through psn (nak: through psn − 1, resend from psn); sack: a
 * selective ack (bm NULL when its bitmap is missing); plain: a positive ack (duplicates are counted).
 * match_op: the opcode of ub_match records pairing data with its first ack. Returns UB_TPF_* flags. */
uint32_t rt_seq_ack(const rt_ctx *x, rt_seq *q, uint32_t psn, bool nak, bool sack, bool plain, unsigned match_op,
                    const rt_bitmap *bm);
/* The NAK just passed to rt_seq_ack is an RNR NAK: its resend must wait wait_ns (r_rnr when earlier) */
static inline void rt_seq_rnr(rt_seq *q, uint64_t wait_ns) { q->rnr_wait_ns = q->nak_pending ? wait_ns : 0; }
/* End of capture: gaps never filled nor acknowledged, NAKs never answered by a resend */
void rt_seq_finish_open(const rt_ctx *x, rt_seq *q);
/* End of capture (flows whose acks are visible): data never acknowledged, A = 1 packets not acked */
void rt_seq_finish_unacked(const rt_ctx *x, rt_seq *q);
/* bit i of a selective-ack bitmap in its order */
bool rt_bit(const rt_bitmap *bm, uint32_t i);

/* ---------------------------------------------------------------- RNR NAK timer, message sequence */
/* IBTA Table 45: RNR NAK timer code (AETH syndrome [4:0]) -> ns */
uint64_t rt_ib_rnr_ns(unsigned code);
typedef struct rt_msn_st {
    uint32_t msn, psn;     /* the last MSN and the PSN its ack covered */
    uint8_t valid, psn_valid;
} rt_msn_st;
/* The message sequence number of an ack acknowledging through cum_psn (judged: the ack's PSN was
 * valid): it never goes back and advances by at most the PSNs acknowledged since the previous ack (r_msn) */
void rt_msn(const rt_ctx *x, rt_msn_st *m, uint32_t cum_psn, uint32_t msn, bool judged);

/* ================================================================ the light tracker (PCIe flits) */
typedef struct rt_flow {
    uint32_t next;         /* index of the next new PSN (newest sent + 1) */
    uint32_t una;          /* index of the oldest unacknowledged PSN */
    uint8_t started, nak_pending;
    bool window_reported;
    uint32_t nak_idx;      /* replay must start here */
    uint64_t nak_frame;
} rt_flow;

/* A data packet with sequence number psn. Returns 0 new in order, 1 after a gap, 2 retransmission. */
int rt_data(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t psn, const ub_pkt *p, const char *key);
/* A cumulative ack through psn. false: not judged (no data seen, or an invalid PSN) */
bool rt_ack(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t psn, const ub_pkt *p, const char *key);
/* A NAK: everything before replay_psn is acknowledged, the sender must resend from replay_psn. */
bool rt_nak(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t replay_psn, const ub_pkt *p, const char *key);

#endif
