/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text building shared by the one-line summaries: print.c (UB, IP) defines it, neigh_print.c (RoCEv2,
 * SUE, PCIe flits) uses it. */
#ifndef UB_SUMFMT_H
#define UB_SUMFMT_H

#include "internal.h"

/* a bounded output buffer: w counts every byte asked for (snprintf style), at most n - 1 are written */
typedef struct ub_sbuf { char *b; size_t n, w; } ub_sbuf;
void ub_sb(ub_sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* value of the row `short_name` of layer l (0 if l or the row is absent) */
uint64_t ub_fv(const ub_layer *l, const char *short_name);

/* The appenders of the per-packet summary (no format string to parse): the text they add is that of
 * ub_sb with "%s", "%" PRIu64, "%0*" PRIx64. They do not terminate the buffer: ub_sb_end does, once. */
void ub_sb_cut(ub_sbuf *s, const char *a, size_t len); /* the end of the buffer: what fits */
UB_INLINE void ub_sb_put(ub_sbuf *s, const char *a, size_t len)
{
    if (__builtin_expect(s->w + len < s->n, 1)) {
        memcpy(s->b + s->w, a, len);
        s->w += len;
    } else {
        ub_sb_cut(s, a, len);
    }
}
#define ub_sb_lit(s, lit) ub_sb_put((s), (lit), sizeof(lit) - 1) /* a string literal */
UB_INLINE void ub_sb_str(ub_sbuf *s, const char *a) { ub_sb_put(s, a, strlen(a)); }
UB_INLINE void ub_sb_chr(ub_sbuf *s, char c)
{
    if (s->w + 1 < s->n) s->b[s->w] = c;
    s->w++;
}
/* digits of v at t: decimal, or lower-case hex zero-padded to at least `width` (at most 32); their count */
size_t ub_u64_dec(char t[20], uint64_t v);
size_t ub_u64_hex(char t[32], uint64_t v, unsigned width);
UB_INLINE void ub_sb_u64(ub_sbuf *s, uint64_t v)
{
    if (__builtin_expect(s->w + 20 < s->n, 1)) {
        s->w += ub_u64_dec(s->b + s->w, v);
    } else {
        char t[20];
        ub_sb_put(s, t, ub_u64_dec(t, v));
    }
}
UB_INLINE void ub_sb_hex(ub_sbuf *s, uint64_t v, unsigned width)
{
    if (__builtin_expect(s->w + 32 < s->n, 1)) {
        s->w += ub_u64_hex(s->b + s->w, v, width);
    } else {
        char t[32];
        ub_sb_put(s, t, ub_u64_hex(t, v, width));
    }
}
/* terminate as snprintf does (the text cut at n - 1 bytes); returns the whole text's length */
UB_INLINE size_t ub_sb_end(ub_sbuf *s)
{
    if (s->n) s->b[s->w < s->n ? s->w : s->n - 1] = '\0';
    return s->w;
}

/* The rows the summaries read, by header id and short name, as constant row indexes (a profile's table
 * has the same rows at the same indexes as the registered one, ubparse.h): no name lookup per packet.
 * test_sumfmt checks every entry against ub_field_index on every table of its ids. */
typedef struct ub_sum_row { uint8_t row; const char *name; uint16_t ids[3]; } ub_sum_row;
const ub_sum_row *ub_sum_rows(size_t *n);
/* The rows the summaries read: slot, row index, short name, the header ids it holds for. */
#define UB_SUM_ROWS(X)                                                                                              \
    X(CRD_T, 2, "t", UB_H_DLLCB_CRD_ACK) X(CRD_SD, 0, "sd", UB_H_DLLCB_CRD_ACK)                                   \
    X(CRD_ACKNUM, 3, "ack_num", UB_H_DLLCB_CRD_ACK) X(RREQ_RCVPTR, 2, "rcvptr", UB_H_DLLCB_RETRY_REQ)              \
    X(RREQ_NUM, 4, "num_retry", UB_H_DLLCB_RETRY_REQ) X(RACK_RDPTR, 3, "rdptr", UB_H_DLLCB_RETRY_ACK)            \
    X(RACK_WRPTR, 4, "wrptr", UB_H_DLLCB_RETRY_ACK)                                                              \
    X(NTH_SCNA, 0, "scna", UB_H_NTH16, UB_H_NTH24) X(NTH_DCNA, 1, "dcna", UB_H_NTH16, UB_H_NTH24)                \
    X(IP4_SRC, 13, "src", UB_H_IPV4) X(IP4_DST, 14, "dst", UB_H_IPV4) X(IP4_PROTO, 11, "protocol", UB_H_IPV4)    \
    X(IP4_FRAG, 9, "frag_offset", UB_H_IPV4) X(IP4_MF, 8, "mf", UB_H_IPV4)                                       \
    X(IP6_SRC, 6, "src", UB_H_IPV6) X(IP6_DST, 7, "dst", UB_H_IPV6) X(IP6_NH, 4, "next_header", UB_H_IPV6)       \
    X(L4_SPORT, 0, "srcport", UB_H_UDP, UB_H_TCP) X(L4_DPORT, 1, "dstport", UB_H_UDP, UB_H_TCP)                  \
    X(ETH_TYPE, 2, "type", UB_H_ETH) X(SLL_PROTO, 4, "protocol", UB_H_SLL) X(SLL2_PROTO, 0, "protocol", UB_H_SLL2) \
    X(VLAN_VID, 2, "vid", UB_H_VLAN) X(VLAN_TYPE, 3, "type", UB_H_VLAN)                                          \
    X(ARP_OPCODE, 4, "opcode", UB_H_ARP) X(ARP_SRC_HW, 5, "src_hw", UB_H_ARP)                                    \
    X(ARP_SRC_IP, 6, "src_ip", UB_H_ARP) X(ARP_DST_IP, 8, "dst_ip", UB_H_ARP)                                    \
    X(NCTL_PROTO, 0, "protocol", UB_H_NCTL)                                                                      \
    X(RTPH_LAST, 0, "last", UB_H_RTPH) X(RTPH_OP, 1, "tpopcode", UB_H_RTPH) X(RTPH_SRCTPN, 5, "srctpn", UB_H_RTPH) \
    X(RTPH_DSTTPN, 6, "dsttpn", UB_H_RTPH) X(RTPH_PSN, 10, "psn", UB_H_RTPH) X(RTPH_RSPST, 11, "rspst", UB_H_RTPH) \
    X(CTPH_OP, 0, "tpopcode", UB_H_CTPH)                                                                         \
    X(SCAN_HOPS, 3, "hops", UB_H_SCANHDR) X(SCAN_STEP, 4, "step", UB_H_SCANHDR)                                  \
    X(SPDU_CMD, 1, "cmd", UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP)                                                    \
    X(SPDU_OPCODE, 2, "opcode", UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP)                                              \
    X(SPDU_MSN, 6, "msn", UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP)                                                    \
    X(BTAH_OP, 0, "taopcode", UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT)                                             \
    X(BTAH_TASSN, 7, "ini_tassn", UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT)                                         \
    X(MG_SUB, 0, "sub_code", UB_H_MGMTETAH) X(MG_CODE, 1, "code", UB_H_MGMTETAH)                                  \
    X(MG_RSP, 2, "rsp", UB_H_MGMTETAH) X(MG_STATUS, 3, "status", UB_H_MGMTETAH)                                  \
    X(MA_ADDR, 0, "address", UB_H_MAETAH, UB_H_MAETAH_C) X(MA_LEN, 4, "length", UB_H_MAETAH)                      \
    X(MAC_LEN, 3, "length", UB_H_MAETAH_C)                                                                       \
    X(ATAH_OP, 0, "taopcode", UB_H_ATAH, UB_H_ATAH_C) X(ATAH_TASSN, 6, "ini_tassn", UB_H_ATAH, UB_H_ATAH_C)      \
    X(ATAH_RSPST, 7, "rspst", UB_H_ATAH) X(ATAH_RSPINFO, 8, "rspinfo", UB_H_ATAH)                                \
    X(ATAHC_STATUS, 2, "status", UB_H_ATAH_C)                                                                    \
    X(UREQ_ID, 11, "request_id", UB_H_URPC_REQ) X(URPC_ID, 4, "request_id", UB_H_URPC_ACK, UB_H_URPC_RSP)         \
    X(URSP_STATUS, 2, "status", UB_H_URPC_RSP) \
    X(IB_OPCODE, 0, "opcode", UB_H_IB_BTH) X(IB_DESTQP, 9, "destqp", UB_H_IB_BTH) X(IB_PSN, 12, "psn", UB_H_IB_BTH)   \
    X(IB_A, 10, "a", UB_H_IB_BTH) X(AETH_SOP, 2, "syndrome.opcode", UB_H_IB_AETH)                               \
    X(AETH_SVAL, 3, "syndrome.value", UB_H_IB_AETH) X(AETH_MSN, 4, "msn", UB_H_IB_AETH)                         \
    X(RETH_VA, 0, "va", UB_H_IB_RETH) X(RETH_DMALEN, 2, "dmalen", UB_H_IB_RETH)                                 \
    X(SUE_OPCODE, 0, "opcode", UB_H_SUE_RH) X(SUE_FACK, 1, "fack", UB_H_SUE_RH)                                 \
    X(SUE_SYN, 8, "aeth_syndrome", UB_H_SUE_RH) X(SUE_PSN, 9, "psn", UB_H_SUE_RH)                               \
    X(SUE_DESTQP, 10, "dest_qp", UB_H_SUE_RH) X(FLIT_USAGE, 1, "usage", UB_H_PCIEFLIT)                          \
    X(FLIT_CMD, 4, "replay_cmd", UB_H_PCIEFLIT) X(FLIT_SEQ, 5, "seq", UB_H_PCIEFLIT)                            \
    X(MARKER_STATUS, 1, "status", UB_H_PCIEFLIT_MARKER)

enum {
#define X(slot, row, name, ...) UB_SR_##slot = row,
    UB_SUM_ROWS(X)
#undef X
};
/* value of row `slot` of layer l (0 without l; ub_lget), the row itself */
#define UB_RV(l, slot) ub_lget((l), UB_SR_##slot)
#define UB_RF(l, slot) (&(l)->hdr->fields[UB_SR_##slot])

/* hdrsum.c: the key list of header id ("!tpopcode psn srctpn>dsttpn", NULL if none) and the row of each
 * name in it, in order */
const char *ub_hdr_keys(unsigned id, const uint8_t **rows);

#endif
