/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RoCEv2 / InfiniBand transport headers, decoded lightly (document 002 §2.2 with the IBTA opcode and
 * syndrome tables; docs/neighbours.md). Not UB: shown as what it is. Field names are Wireshark's
 * infiniband.* where Wireshark has them (infiniband.bth.opcode, .destqp, .psn, .a, infiniband.aeth.*,
 * infiniband.reth.*, ...); the few it lacks are named in the same style (docs/neighbours.md). */
#include "neigh.h"
#include "rows.h"

#include <inttypes.h>
#include <stdio.h>

/* IBTA Vol 1 §9.2 Table 35: opcode = transport (7:5) + operation (4:0) */
static const ub_vname vn_ib_opcode[] = {
    { 0x00, "SEND_FIRST" }, { 0x01, "SEND_MIDDLE" }, { 0x02, "SEND_LAST" }, { 0x03, "SEND_LAST_WITH_IMMEDIATE" },
    { 0x04, "SEND_ONLY" }, { 0x05, "SEND_ONLY_WITH_IMMEDIATE" }, { 0x06, "RDMA_WRITE_FIRST" },
    { 0x07, "RDMA_WRITE_MIDDLE" }, { 0x08, "RDMA_WRITE_LAST" }, { 0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE" },
    { 0x0A, "RDMA_WRITE_ONLY" }, { 0x0B, "RDMA_WRITE_ONLY_WITH_IMMEDIATE" }, { 0x0C, "RDMA_READ_REQUEST" },
    { 0x0D, "RDMA_READ_RESPONSE_FIRST" }, { 0x0E, "RDMA_READ_RESPONSE_MIDDLE" }, { 0x0F, "RDMA_READ_RESPONSE_LAST" },
    { 0x10, "RDMA_READ_RESPONSE_ONLY" }, { 0x11, "ACKNOWLEDGE" }, { 0x12, "ATOMIC_ACKNOWLEDGE" },
    { 0x13, "COMPARE_SWAP" }, { 0x14, "FETCH_ADD" }, { 0x16, "SEND_LAST_WITH_INVALIDATE" },
    { 0x17, "SEND_ONLY_WITH_INVALIDATE" },
    { 0x20, "UC SEND_FIRST" }, { 0x21, "UC SEND_MIDDLE" }, { 0x22, "UC SEND_LAST" }, { 0x23, "UC SEND_LAST_WITH_IMMEDIATE" },
    { 0x24, "UC SEND_ONLY" }, { 0x25, "UC SEND_ONLY_WITH_IMMEDIATE" }, { 0x26, "UC RDMA_WRITE_FIRST" },
    { 0x27, "UC RDMA_WRITE_MIDDLE" }, { 0x28, "UC RDMA_WRITE_LAST" }, { 0x29, "UC RDMA_WRITE_LAST_WITH_IMMEDIATE" },
    { 0x2A, "UC RDMA_WRITE_ONLY" }, { 0x2B, "UC RDMA_WRITE_ONLY_WITH_IMMEDIATE" },
    { 0x64, "UD SEND_ONLY" }, { 0x65, "UD SEND_ONLY_WITH_IMMEDIATE" }, { 0x81, "CNP" },
    { 0, NULL }
};

/* BTH (document 002 Table 7.35 = IBTA §9.2), 12 bytes */
static const ub_field bth_fields[] = {
    [BTH_OP] = NU("infiniband.bth.opcode", "Opcode", 0, 8, UB_BASE_HEX, vn_ib_opcode, "IBTA §9.2 T35", "transport (7:5) and operation (4:0)"),
    [BTH_SE] = NB("infiniband.bth.se", "Solicited Event", 8, "IBTA §9.2", ""),
    [BTH_M] = NB("infiniband.bth.m", "MigReq", 9, "IBTA §9.2", ""),
    [BTH_PAD] = NU("infiniband.bth.padcnt", "Pad Count", 10, 2, UB_BASE_DEC, NULL, "IBTA §9.2", "pad bytes before the ICRC"),
    [BTH_TVER] = NU("infiniband.bth.tver", "Header Version", 12, 4, UB_BASE_DEC, NULL, "IBTA §9.2", "0"),
    [BTH_PKEY] = NU("infiniband.bth.p_key", "Partition Key", 16, 16, UB_BASE_HEX, NULL, "IBTA §9.2", "default 0xFFFF"),
    [BTH_FECN] = NB("infiniband.bth.fecn", "FECN", 32, "IBTA A17 (RoCEv2)", "forward congestion notification"),
    [BTH_BECN] = NB("infiniband.bth.becn", "BECN", 33, "IBTA A17 (RoCEv2)", "backward congestion notification"),
    [BTH_RSVD6] = NR("infiniband.bth.reserved6", 34, 6, "IBTA §9.2"),
    [BTH_DQP] = NU("infiniband.bth.destqp", "Destination Queue Pair", 40, 24, UB_BASE_HEX, NULL, "IBTA §9.2", ""),
    [BTH_A] = NB("infiniband.bth.a", "Acknowledge Request", 64, "IBTA §9.2", "AckReq (document 002: 1 on every request)"),
    [BTH_RSVD7] = NR("infiniband.bth.reserved7", 65, 7, "IBTA §9.2"),
    [BTH_PSN] = NU("infiniband.bth.psn", "Packet Sequence Number", 72, 24, UB_BASE_DEC, NULL, "IBTA §9.2", "24-bit, mod 2^24"),
};
UB_HDR_DEF(ib_bth, UB_H_IB_BTH, "ib_bth", "infiniband.bth", "InfiniBand Base Transport Header (not UB)", "IBTA §9.2; document 002 T7.35", 12, bth_fields);

static const ub_field reth_fields[] = {
    [RETH_VA] = NU("infiniband.reth.va", "Virtual Address", 0, 64, UB_BASE_HEX, NULL, "IBTA §9.3.3", ""),
    [RETH_RKEY] = NU("infiniband.reth.r_key", "Remote Key", 64, 32, UB_BASE_HEX, NULL, "IBTA §9.3.3", ""),
    [RETH_DMALEN] = NU("infiniband.reth.dmalen", "DMA Length", 96, 32, UB_BASE_DEC, NULL, "IBTA §9.3.3", ""),
};
UB_HDR_DEF(ib_reth, UB_H_IB_RETH, "ib_reth", "infiniband.reth", "RDMA Extended Transport Header", "IBTA §9.3.3", 16, reth_fields);

/* AETH syndrome (IBTA §9.3.5 T43): bits 6:5 00 ACK, 01 RNR NAK, 11 NAK; 4:0 credits / timer / NAK code */
static const ub_vname vn_aeth_op[] = { { 0, "ACK" }, { 1, "RNR NAK" }, { 2, "reserved" }, { 3, "NAK" }, { 0, NULL } };
static const ub_field aeth_fields[] = {
    [AETH_SYN] = NU("infiniband.aeth.syndrome", "Syndrome", 0, 8, UB_BASE_HEX, NULL, "IBTA §9.3.5", ""),
    [AETH_SYN_RSVD] = NR("infiniband.aeth.syndrome.reserved", 0, 1, "IBTA §9.3.5"),
    [AETH_SYN_OP] = NU("infiniband.aeth.syndrome.opcode", "OpCode", 1, 2, UB_BASE_DEC, vn_aeth_op, "IBTA §9.3.5 T43", ""),
    [AETH_SYN_VAL] = NU("infiniband.aeth.syndrome.value", "Credit Count / Timer / Error Code", 3, 5, UB_BASE_DEC, NULL, "IBTA §9.3.5 T43",
       "NAK codes: 0 PSN sequence error, 1 invalid request, 2 remote access, 3 remote operational"),
    [AETH_MSN] = NU("infiniband.aeth.msn", "Message Sequence Number", 8, 24, UB_BASE_DEC, NULL, "IBTA §9.3.5", ""),
};
UB_HDR_DEF(ib_aeth, UB_H_IB_AETH, "ib_aeth", "infiniband.aeth", "ACK Extended Transport Header", "IBTA §9.3.5", 4, aeth_fields);

static const ub_field atomic_fields[] = {
    /* Wireshark names the AtomicETH VA and R_Key like the RETH's: one name in two headers (ub_field_find) */
    NU("infiniband.reth.va", "Virtual Address", 0, 64, UB_BASE_HEX, NULL, "IBTA §9.3.4", ""),
    NU("infiniband.reth.r_key", "Remote Key", 64, 32, UB_BASE_HEX, NULL, "IBTA §9.3.4", ""),
    NU("infiniband.atomiceth.swapdt", "Swap (Or Add) Data", 96, 64, UB_BASE_HEX, NULL, "IBTA §9.3.4", ""),
    NU("infiniband.atomiceth.cmpdt", "Compare Data", 160, 64, UB_BASE_HEX, NULL, "IBTA §9.3.4", ""),
};
UB_HDR_DEF(ib_atomiceth, UB_H_IB_ATOMICETH, "ib_atomiceth", "infiniband.atomiceth", "Atomic Extended Transport Header", "IBTA §9.3.4", 28, atomic_fields);

static const ub_field atomicack_fields[] = {
    NU("infiniband.atomicacketh.origremdt", "Original Remote Data", 0, 64, UB_BASE_HEX, NULL, "IBTA §9.3.6", ""),
};
UB_HDR_DEF(ib_atomicacketh, UB_H_IB_ATOMICACKETH, "ib_atomicacketh", "infiniband.atomicacketh", "Atomic ACK Extended Transport Header", "IBTA §9.3.6", 8, atomicack_fields);

static const ub_field deth_fields[] = {
    NU("infiniband.deth.q_key", "Queue Key", 0, 32, UB_BASE_HEX, NULL, "IBTA §9.3.2", ""),
    NR("infiniband.deth.reserved8", 32, 8, "IBTA §9.3.2"),
    NU("infiniband.deth.srcqp", "Source Queue Pair", 40, 24, UB_BASE_HEX, NULL, "IBTA §9.3.2", ""),
};
UB_HDR_DEF(ib_deth, UB_H_IB_DETH, "ib_deth", "infiniband.deth", "Datagram Extended Transport Header", "IBTA §9.3.2", 8, deth_fields);

static const ub_field immdt_fields[] = {
    NU("infiniband.immdt.data", "Immediate Data", 0, 32, UB_BASE_HEX, NULL, "IBTA §9.3.7", ""),
};
UB_HDR_DEF(ib_immdt, UB_H_IB_IMMDT, "ib_immdt", "infiniband.immdt", "Immediate Data", "IBTA §9.3.7", 4, immdt_fields);

static const ub_field ieth_fields[] = {
    NU("infiniband.ieth.r_key", "RKey", 0, 32, UB_BASE_HEX, NULL, "IBTA §9.3.8", "key to invalidate"),
};
UB_HDR_DEF(ib_ieth, UB_H_IB_IETH, "ib_ieth", "infiniband.ieth", "Invalidate Extended Transport Header", "IBTA §9.3.8", 4, ieth_fields);

/* RoCEv2 CNP (IBTA Annex A17): BTH opcode 0x81, 16 reserved bytes */
static const ub_field cnp_fields[] = {
    NY("infiniband.cnp.reserved", "Reserved", 0, 128, "IBTA A17.9.3", "16 bytes, 0"),
};
UB_HDR_DEF(ib_cnp, UB_H_IB_CNP, "ib_cnp", "infiniband.cnp", "RoCEv2 Congestion Notification Packet", "IBTA A17.9.3", 16, cnp_fields);

static const ub_field icrc_fields[] = {
    NU("infiniband.invariant.crc", "Invariant CRC", 0, 32, UB_BASE_HEX, NULL, "IBTA §7.8.1", "not verified"),
};
UB_HDR_DEF(ib_icrc, UB_H_IB_ICRC, "ib_icrc", "infiniband.invariant", "InfiniBand Invariant CRC", "IBTA §7.8.1", 4, icrc_fields);

/* ---------------------------------------------------------------- header chains (document 002 Table 5.2, IBTA sizes) */
int ub_ib_chain(unsigned op)
{
    if (op == 0x81) return IB_X_CNP;
    unsigned tr = op >> 5, o = op & 0x1F;
    if (tr == 3) return o == 4 ? IB_X_DETH : o == 5 ? (IB_X_DETH | IB_X_IMMDT) : -1; /* UD */
    if (tr == 1 && o > 0x0B) return -1;                                              /* UC: sends and writes */
    if (tr != 0 && tr != 1) return -1; /* RD, XRC and the rest: BTH only, not modelled */
    switch (o) {
    case 0x00: case 0x01: case 0x02: case 0x04: case 0x07: case 0x08: case 0x0E: return 0;
    case 0x03: case 0x05: case 0x09: return IB_X_IMMDT;
    case 0x06: case 0x0A: case 0x0C: return IB_X_RETH;
    case 0x0B: return IB_X_RETH | IB_X_IMMDT;
    case 0x0D: case 0x0F: case 0x10: case 0x11: return IB_X_AETH;
    case 0x12: return IB_X_AETH | IB_X_ATOMICACK;
    case 0x13: case 0x14: return IB_X_ATOMIC;
    case 0x16: case 0x17: return IB_X_IETH;
    default: return -1;
    }
}

static const struct { unsigned bit, id; } chain_order[] = { /* wire order of the extension headers */
    { IB_X_DETH, UB_H_IB_DETH }, { IB_X_RETH, UB_H_IB_RETH }, { IB_X_ATOMIC, UB_H_IB_ATOMICETH },
    { IB_X_AETH, UB_H_IB_AETH }, { IB_X_ATOMICACK, UB_H_IB_ATOMICACKETH }, { IB_X_IMMDT, UB_H_IB_IMMDT },
    { IB_X_IETH, UB_H_IB_IETH }, { IB_X_CNP, UB_H_IB_CNP },
};

int ub_ib_hdr_len(unsigned op)
{
    int c = ub_ib_chain(op);
    if (c < 0) return -1;
    int n = 12;
    for (unsigned i = 0; i < sizeof chain_order / sizeof chain_order[0]; i++)
        if ((unsigned)c & chain_order[i].bit) n += (int)ub_hdr_fast(chain_order[i].id)->len;
    return n;
}

void ub_dec_ib(ub_dec *d, uint32_t off, uint32_t end)
{
    const ub_layer *b = ub_push_in(d, UB_H_IB_BTH, off, 12, end, true);
    if (!b || (b->flags & UB_LF_TRUNC)) return;
    unsigned op = (unsigned)ub_lget(b, BTH_OP);
    if (ub_lget(b, BTH_TVER) != 0) ub_error(d, UB_E_VALUE, UB_H_IB_BTH, off + 1, ub_lget(b, BTH_TVER), 0, "infiniband.bth.tver");
    uint32_t icrc = end >= off + 12 + 4 ? end - 4 : end; /* RoCEv2: the ICRC closes the UDP payload */
    int c = ub_ib_chain(op);
    uint32_t p = off + 12;
    if (c < 0) {
        ub_error(d, UB_E_VALUE, UB_H_IB_BTH, off, op, 0, "infiniband.bth.opcode not modelled (BTH only)");
    } else {
        for (unsigned i = 0; i < sizeof chain_order / sizeof chain_order[0]; i++) {
            if (!((unsigned)c & chain_order[i].bit)) continue;
            unsigned id = chain_order[i].id, hl = ub_hdr_fast(id)->len;
            const ub_layer *x = ub_push_in(d, id, p, hl, icrc, true);
            if (!x || (x->flags & UB_LF_TRUNC)) return;
            p += hl;
        }
    }
    if (p < icrc) ub_push_in(d, UB_H_DATA, p, icrc - p, icrc, false);
    if (icrc + 4 == end) {
        ub_layer *ic = ub_push_in(d, UB_H_IB_ICRC, icrc, 4, end, true);
        if (ic) ic->status = UB_CK_UNVERIFIED;
    } else {
        ub_error(d, UB_E_TRUNCATED, UB_H_IB_ICRC, end, end - off, 16, "RoCEv2 packet without room for its ICRC");
    }
}
