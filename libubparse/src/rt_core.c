/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reliable-transport auditor core (rt_core.h): the profiles, the PSN <-> index arithmetic and the
 * light tracker (rt_flow; the full tracker rt_seq is in rt_seq.c). Index arithmetic: every PSN is
 * mapped to an index 0..modulus-1 (PCIe: seq 1..1023 -> 0..1022), distances are (a - b) mod modulus,
 * and "ahead" means a distance below half the space. */
#include "rt_core.h"

#include <stdio.h>

/* UB RTP (digest §10.3): the texts of the UB-TP-* findings */
static const char txt_ub[RT_T__COUNT][RT_TXT_MAX] = {
    [RT_T_WINDOW] = "more than 8M − 1 PSNs outstanding (§6.4.1)",
    [RT_T_GAP_FILLED] = "PSN not captured at its first transmission; this resend is the first copy seen",
    [RT_T_OOO] = "PSN below the highest sent, never seen before: reordered on the path",
    [RT_T_RETX_EARLY] = "retransmission of a PSN sent before the capture started",
    [RT_T_RETX] = "retransmission of a PSN already sent",
    [RT_T_SACK_RETX] = "retransmitted a PSN that the last TPSACK reported received",
    [RT_T_NAK_START] = "first resend after a TPNAK does not start at the TPNAK's PSN (GoBackN)",
    [RT_T_ACK_BACK] = "cumulative ack PSN went backwards",
    [RT_T_DUP_ACK] = "duplicate ack (same cumulative PSN again)",
    [RT_T_ACK_BEYOND] = "ack PSN beyond the highest PSN sent on the channel",
    [RT_T_GAP_ACKED] = "PSNs acknowledged by the receiver but never captured (lost or dropped at the capture point)",
    [RT_T_NAK_TWICE] = "second TPNAK for the same PSN before any resend (one per loss episode)",
    [RT_T_SACK_B0] = "BitMap[0] (the RTPH PSN) not set (R-18 bit order)",
    [RT_T_SACK_MAXLOW] = "MaxRcvPSN below the highest in-order PSN",
    [RT_T_SACK_MAXDEC] = "MaxRcvPSN decreased",
    [RT_T_SACK_MAXHI] = "MaxRcvPSN above the highest PSN sent",
    [RT_T_SACK_TOP] = "BitMap marks a PSN above MaxRcvPSN as received",
    [RT_T_SACK_MAXBIT] = "BitMap bit of MaxRcvPSN not set",
    [RT_T_SACK_GAP] = "PSNs reported received by a TPSACK but never captured",
    [RT_T_LOST] = "PSNs never captured nor acknowledged: lost before the capture point or skipped by the sender",
    [RT_T_NAK_OPEN] = "TPNAK not followed by a resend of its PSN before the end of the capture",
    [RT_T_UNACKED] = "RTP data never acknowledged before the end of the capture",
    [RT_T_ACK_REQ] = "packet with A = 1 (ack required) never acknowledged",
    [RT_T_LOSS_TIMER] = "the oldest unacknowledged PSN was neither acknowledged nor resent within the loss timeout",
};
/* the neighbours' wording of the same findings */
static const char txt_nb[RT_T__COUNT][RT_TXT_MAX] = {
    [RT_T_WINDOW] = "outstanding beyond the window",
    [RT_T_GAP_FILLED] = "PSN not captured at its first transmission; this resend is the first copy seen",
    [RT_T_OOO] = "PSN below the newest sent, never seen before: reordered on the path",
    [RT_T_RETX_EARLY] = "retransmission of a PSN sent before the capture started",
    [RT_T_RETX] = "at or behind the newest sent: resent (or first captured late)",
    [RT_T_SACK_RETX] = "retransmitted a PSN that the last selective ack reported received",
    [RT_T_NAK_START] = "replay does not start at the NAK's PSN",
    [RT_T_ACK_BACK] = "cumulative ack PSN went backwards",
    [RT_T_DUP_ACK] = "duplicate ack (same cumulative PSN again)",
    [RT_T_ACK_BEYOND] = "acknowledges a sequence number never sent",
    [RT_T_GAP_ACKED] = "sequence numbers acknowledged but never captured",
    [RT_T_NAK_TWICE] = "second NAK for the same PSN before any resend",
    [RT_T_SACK_B0] = "selective ack: the acked PSN's bit not set",
    [RT_T_SACK_MAXLOW] = "selective ack: highest received below the cumulative ack",
    [RT_T_SACK_MAXDEC] = "selective ack: highest received decreased",
    [RT_T_SACK_MAXHI] = "selective ack: highest received above the newest sent",
    [RT_T_SACK_TOP] = "selective ack: bitmap marks a PSN above the highest received",
    [RT_T_SACK_MAXBIT] = "selective ack: bit of the highest received not set",
    [RT_T_SACK_GAP] = "sequence numbers reported received but never captured",
    [RT_T_LOST] = "sequence numbers never seen",
    [RT_T_NAK_OPEN] = "NAK not followed by a resend of its PSN before the end of the capture",
    [RT_T_UNACKED] = "never acknowledged",
    [RT_T_ACK_REQ] = "never acknowledged",
    [RT_T_LOSS_TIMER] = "the oldest unacknowledged PSN was neither acknowledged nor resent within the loss timeout",
};

#define NONE UB_R__COUNT
const rt_profile rt_ub_rtp = {
    .name = "UB RTP", .modulus = 1u << 24, .window = 1u << 23, .win_bias = 1, .ack_resync = true, .matches = true,
    .r_retrans = UB_R_TP_RETRANSMISSION, .r_ack_psn = UB_R_TP_ACK_PSN, .r_nak_replay = UB_R_TP_NAK, .r_window = UB_R_TP_WINDOW,
    .r_gap = NONE, .r_lost = UB_R_TP_LOST, .r_gap_acked = UB_R_TP_GAP_ACKED, .r_gap_filled = UB_R_TP_GAP_FILLED,
    .r_ooo = UB_R_TP_OUT_OF_ORDER, .r_dup_ack = UB_R_TP_DUP_ACK, .r_sack = UB_R_TP_SACK, .r_ack_req = UB_R_TP_ACK_REQUIRED,
    .r_data_unacked = UB_R_TP_UNACKED, .r_loss_timer = UB_R_TP_LOSS_TIMER,
    .r_rnr = NONE, /* an RNR in a TPACK is the transaction layer's: UB-TA-019 (st_ta.c) */
    .r_msn = NONE, .min_rto_ns = 512000 /* §6.4.2.1: smallest static RTO, 512 µs */, .txt = txt_ub,
};
const rt_profile rt_ib_rc = {
    .name = "IB RC", .nak_next = true, .win_first = true, .modulus = 1u << 24, .window = (1u << 23) - 1,
    .r_retrans = UB_R_IB_RETRANS, .r_ack_psn = UB_R_IB_ACK_PSN, .r_nak_replay = UB_R_IB_NAK_REPLAY, .r_window = UB_R_IB_WINDOW,
    .r_gap = NONE, .r_lost = UB_R_IB_GAP, .r_gap_acked = UB_R_IB_GAP_ACKED, .r_gap_filled = UB_R_IB_GAP_FILLED,
    .r_ooo = UB_R_IB_OOO, .r_dup_ack = UB_R_IB_DUP_ACK, .r_sack = NONE, .r_ack_req = UB_R_IB_UNACKED,
    .r_data_unacked = NONE, .r_loss_timer = UB_R_IB_LOSS_TIMER, .r_rnr = UB_R_IB_RNR_WAIT, .r_msn = UB_R_IB_MSN,
    .min_rto_ns = 8192 /* IBTA §9.7.6.1.3: Local ACK Timeout 4.096 µs × 2^1 at least */, .txt = txt_nb,
};
const rt_profile rt_sue_type1 = {
    .name = "SUE TYPE1", .nak_next = true, .win_first = true, .modulus = 1u << 12, .window = 512,
    .r_retrans = UB_R_SUE_RETRANS, .r_ack_psn = UB_R_SUE_ACK_PSN, .r_nak_replay = UB_R_SUE_NAK_REPLAY, .r_window = UB_R_SUE_WINDOW,
    .r_gap = NONE, .r_lost = UB_R_SUE_GAP, .r_gap_acked = UB_R_SUE_GAP_ACKED, .r_gap_filled = UB_R_SUE_GAP_FILLED,
    .r_ooo = UB_R_SUE_OOO, .r_dup_ack = UB_R_SUE_DUP_ACK, .r_sack = NONE, .r_ack_req = UB_R_SUE_UNACKED,
    .r_data_unacked = NONE, .r_loss_timer = UB_R_SUE_LOSS_TIMER, .r_rnr = UB_R_SUE_RNR_WAIT, .r_msn = NONE,
    .min_rto_ns = 512000, .txt = txt_nb,
};
/* the light tracker: sequence 1..1023 (mod 1023, 0 unused), not a power of two */
const rt_profile rt_pcie_flit = {
    .name = "PCIe flit", .modulus = 1023, .window = 511, .skip_zero = true,
    .r_retrans = UB_R_FL_REPLAY, .r_ack_psn = UB_R_FL_ACK_SEQ, .r_nak_replay = UB_R_FL_NAK_REPLAY, .r_window = UB_R_FL_WINDOW,
    .r_gap = UB_R_FL_GAP, .r_lost = NONE, .r_gap_acked = NONE, .r_gap_filled = NONE, .r_ooo = NONE, .r_dup_ack = NONE,
    .r_sack = NONE, .r_ack_req = NONE, .r_data_unacked = NONE, .r_loss_timer = NONE, .r_rnr = NONE, .r_msn = NONE,
    .txt = txt_nb,
};
#undef NONE

uint32_t rt_idx(const rt_profile *pf, uint32_t psn) { return pf->skip_zero ? (psn + pf->modulus - 1) % pf->modulus : psn % pf->modulus; }
uint32_t rt_psn(const rt_profile *pf, uint32_t idx) { return pf->skip_zero ? idx % pf->modulus + 1 : idx % pf->modulus; }

/* IBTA Table 45: the RNR NAK timer field (AETH syndrome [4:0]) in µs; 0 is the longest, 655.36 ms */
uint64_t rt_ib_rnr_ns(unsigned code)
{
    static const uint32_t us[32] = { 655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
                                     2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
                                     163840, 245760, 327680, 491520 };
    return (uint64_t)us[code & 31] * 1000;
}

/* ================================================================ the light tracker (PCIe flits) */
static uint32_t dist(const rt_profile *pf, uint32_t a, uint32_t b) { return (a + pf->modulus - b) % pf->modulus; }
static bool ahead(const rt_profile *pf, uint32_t a, uint32_t b) { uint32_t d = dist(pf, a, b); return d && d < pf->modulus / 2; }

/* v1 < 0: one value */
static void emit(ub_state *s, unsigned rule, const ub_pkt *p, uint64_t other, int64_t v0, int64_t v1, const char *detail,
                 const char *key)
{
    if (rule >= UB_R__COUNT) return;
    int64_t v[2] = { v0, v1 };
    ub_st_emit(s, rule, -1, p->pi->frame, &other, other ? 1 : 0, v, v1 < 0 ? 1 : 2, detail, "flow", key);
}

static void release(const rt_profile *pf, rt_flow *f, uint32_t through_next) /* acked: every idx before through_next */
{
    if (ahead(pf, through_next, f->una) && !ahead(pf, through_next, f->next)) f->una = through_next;
}

int rt_data(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t psn, const ub_pkt *p, const char *key)
{
    uint32_t i = rt_idx(pf, psn);
    int r = 0;
    if (!f->started) {
        f->started = 1;
        f->next = f->una = i;
    }
    if (f->nak_pending) { /* go-back-N: the first packet after the NAK is the NAK's PSN */
        f->nak_pending = 0;
        if (i != f->nak_idx)
            emit(s, pf->r_nak_replay, p, f->nak_frame, psn, rt_psn(pf, f->nak_idx), "replay does not start at the NAK's PSN", key);
    }
    if (i == f->next) {
        f->next = (i + 1) % pf->modulus;
    } else if (ahead(pf, i, f->next)) {
        emit(s, pf->r_gap, p, 0, rt_psn(pf, f->next), dist(pf, i, f->next), "sequence numbers never seen", key);
        f->next = (i + 1) % pf->modulus;
        r = 1;
    } else {
        emit(s, pf->r_retrans, p, 0, psn, -1, "at or behind the newest sent: resent (or first captured late)", key);
        r = 2;
    }
    uint32_t out = dist(pf, f->next, f->una);
    if (out > pf->window && !f->window_reported) {
        f->window_reported = true;
        emit(s, pf->r_window, p, 0, out, pf->window, "outstanding beyond the window", key);
    } else if (out <= pf->window) {
        f->window_reported = false;
    }
    return r;
}

/* an acknowledged index must lie in [una - 1, next - 1] (older acks within the window are duplicates) */
static bool ack_valid(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t i, uint32_t psn, const ub_pkt *p, const char *key)
{
    uint32_t newest = (f->next + pf->modulus - 1) % pf->modulus;
    if (ahead(pf, i, newest) || dist(pf, newest, i) > pf->window) {
        emit(s, pf->r_ack_psn, p, 0, psn, rt_psn(pf, newest), ahead(pf, i, newest) ? "acknowledges a sequence number never sent" :
             "acknowledges a sequence number older than the window", key);
        return false;
    }
    return true;
}

bool rt_ack(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t psn, const ub_pkt *p, const char *key)
{
    if (!f->started) return false; /* the data direction was not captured */
    uint32_t i = rt_idx(pf, psn);
    if (!ack_valid(s, pf, f, i, psn, p, key)) return false;
    release(pf, f, (i + 1) % pf->modulus);
    return true;
}

bool rt_nak(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t replay_psn, const ub_pkt *p, const char *key)
{
    if (!f->started) return false;
    uint32_t i = rt_idx(pf, replay_psn);
    if (i != f->next && !ack_valid(s, pf, f, i, replay_psn, p, key)) return false; /* the NAK may name next: nothing lost yet */
    release(pf, f, i);
    f->nak_pending = 1;
    f->nak_idx = i;
    f->nak_frame = p->pi->frame;
    return true;
}
