/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A protocol-neutral reliable-transport auditor core (docs/neighbours.md "auditor"): one sender's
 * sequence space as a capture shows it — modular PSN arithmetic (mod 2^n, or PCIe's mod 1023 skipping
 * 0), the window of outstanding PSNs, cumulative/implicit acks, NAK with go-back-N or selective
 * replay, duplicate (retransmitted) and invalid (beyond the newest sent) regions, ack-required
 * packets never acknowledged. Profiles give the width, the window and the rule of each finding:
 * IB RC (24-bit), SUE TYPE1 (12-bit), PCIe flits (mod 1023). Findings go through ub_st_emit. */
#ifndef UB_RT_CORE_H
#define UB_RT_CORE_H

#include "st_internal.h"

typedef struct rt_profile {
    const char *name;       /* "IB RC", "SUE TYPE1", "PCIe flit" */
    uint32_t modulus;       /* 2^24, 2^12, 1023 */
    uint32_t window;        /* most PSNs outstanding (8M-1, 512, 511) */
    bool skip_zero;         /* PCIe: sequence numbers 1..1023, 0 unused */
    uint16_t r_gap, r_retrans, r_ack_psn, r_nak_replay, r_unacked, r_window; /* UB_R_* ; UB_R__COUNT = none */
} rt_profile;

extern const rt_profile rt_ib_rc, rt_sue_type1, rt_pcie_flit;

#define RT_RING 16 /* ack-required PSNs remembered per flow */
typedef struct rt_flow {
    uint32_t next;         /* index of the next new PSN (newest sent + 1) */
    uint32_t una;          /* index of the oldest unacknowledged PSN */
    uint8_t started, nak_pending, nreq;
    uint32_t nak_idx;      /* replay must start here */
    uint64_t nak_frame;
    bool window_reported;
    struct { uint32_t idx; uint64_t frame; } req[RT_RING]; /* ack-required, not yet acknowledged */
} rt_flow;

/* PSN <-> index (0..modulus-1) */
uint32_t rt_idx(const rt_profile *pf, uint32_t psn);
uint32_t rt_psn(const rt_profile *pf, uint32_t idx);
/* A data packet with sequence number psn. may_skip: a jump forward is expected (an RDMA Read took
 * several PSNs). Returns 0 new in order, 1 after a gap, 2 retransmission. */
int rt_data(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t psn, bool ack_req, bool may_skip, const ub_pkt *p,
            const char *key);
/* A cumulative ack through psn. */
void rt_ack(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t psn, const ub_pkt *p, const char *key);
/* A NAK: everything before replay_psn is acknowledged, the sender must resend from replay_psn. */
void rt_nak(ub_state *s, const rt_profile *pf, rt_flow *f, uint32_t replay_psn, const ub_pkt *p, const char *key);
/* End of capture: ack-required PSNs still unacknowledged. */
void rt_finish(ub_state *s, const rt_profile *pf, rt_flow *f, const char *key);

#endif
