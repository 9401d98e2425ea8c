/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Neighbouring interconnects (docs/neighbours.md): RoCEv2/InfiniBand transport (ib.c), SUE / RC Link
 * (sue.c), PCIe 6 flit link layer (pcieflit.c). None of them is UB: records carrying them are of kind
 * UB_KIND_OTHER (or a UB DLLDP whose CFG 3/4 payload is a plain IP packet), and their field names are
 * their own (infiniband.*, sue.*, pcieflit.*), not ub.*. Same schema machinery as UB headers. */
#ifndef UB_NEIGH_H
#define UB_NEIGH_H

#include "internal.h"

/* Field rows with a full name (no "ub." prefix: the header's abbrev contains a dot, ub_hdr_foreign) */
#define NF(ab, nm, off, nb, ty, bs, fl, vl, sp, ds) { ab, nm, (off), (nb), (ty), (bs), (fl), (vl), sp, ds }
#define NU(ab, nm, off, nb, bs, vl, sp, ds) NF(ab, nm, off, nb, UB_FT_UINT, bs, 0, vl, sp, ds)
#define NB(ab, nm, off, sp, ds) NF(ab, nm, off, 1, UB_FT_BOOL, UB_BASE_DEC, 0, NULL, sp, ds)
#define NR(ab, off, nb, sp) NF(ab, "Reserved", off, nb, UB_FT_UINT, UB_BASE_HEX, UB_FF_RSVD, NULL, sp, "reserved, sender writes 0")
#define NY(ab, nm, off, nb, sp, ds) NF(ab, nm, off, nb, UB_FT_BYTES, UB_BASE_HEX, 0, NULL, sp, ds)

/* ib.c: BTH and its extension headers, payload, ICRC in [off, end) (a RoCEv2 UDP payload) */
void ub_dec_ib(ub_dec *d, uint32_t off, uint32_t end);
/* Header chain of a BTH opcode: bit set per extension header (IB_X_*), -1 for an opcode not modelled */
enum { IB_X_RETH = 1, IB_X_IMMDT = 2, IB_X_IETH = 4, IB_X_AETH = 8, IB_X_ATOMICACK = 16, IB_X_ATOMIC = 32,
       IB_X_DETH = 64, IB_X_CNP = 128 };
int ub_ib_chain(unsigned opcode);
/* Bytes of BTH + extension headers of an opcode (-1 not modelled) */
int ub_ib_hdr_len(unsigned opcode);

/* sue.c: RH (+ payload, ICRC) in [off, end); AFH framing after an Ethernet header */
void ub_dec_sue_rh(ub_dec *d, uint32_t off, uint32_t end);
bool ub_dec_sue_eth(ub_dec *d, uint32_t off, unsigned ethertype);
/* The RH table of the configured byte order */
const ub_hdr *ub_sue_rh_table(const ub_opts *o);

/* UDP payload of a datagram that is not UB: decoded when it is a neighbour (UDP 4791); false = not */
bool ub_dec_udp_neigh(ub_dec *d, unsigned sport, unsigned dport, uint32_t off, uint32_t end);

/* pcieflit.c: a record of whole 256-byte flits */
void ub_dec_pcieflit(ub_dec *d);


#endif
