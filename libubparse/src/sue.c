/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SUE / RC Link transport (document 004, UniVista RCLINK-Stream; docs/neighbours.md): the 64-bit RH over
 * Eth/IPv4/UDP (Standard) or after an AFH-compressed Ethernet header (AFH_GEN1, AFH_GEN2_16b), and the
 * rule that tells SUE from RoCEv2 on UDP 4791. Not UB. Several choices are provisional because the
 * document leaves them open (RH byte order, AFH EtherTypes, the ACK syndrome encoding): each is an option
 * (ub_opts.sue_*), documented in docs/neighbours.md. */
#include "neigh.h"
#include "rows.h"

/* RH (§12.3.5): 64 bits [63:0]. Default byte order: bits 63..56 (Opcode) first on the wire, as the
 * document's MAC fields and TX bus; -o sue.rh_order=le puts bits 7..0 (Dest_QP) first. */
static const ub_vname vn_rh_op[] = { { 0, "SEND" }, { 1, "ACK/NAK" }, { 2, "CNP" }, { 3, "reserved" }, { 0, NULL } };
#define RH_ROWS(FL, O)                                                                                                   \
    [RH_OP] = NF("sue.rh.opcode", "Opcode", O(62, 2), 2, UB_FT_UINT, UB_BASE_DEC, FL, vn_rh_op, "004 §12.3.5 [63:62]", "00 SEND Req, 01 ACK/NAK, 10 CNP"), \
    [RH_FACK] = NF("sue.rh.fack", "Fack", O(61, 1), 1, UB_FT_BOOL, UB_BASE_DEC, FL, NULL, "004 §12.3.5 [61]", "REQ: force the peer to ACK; 0 in ACKs"), \
    [RH_PAD] = NF("sue.rh.pad", "Pad", O(59, 2), 2, UB_FT_UINT, UB_BASE_DEC, FL, NULL, "004 §12.3.5 [60:59]", "pad bytes to 4-byte alignment"), \
    [RH_RSV] = NF("sue.rh.rsv", "Reserved", O(57, 2), 2, UB_FT_UINT, UB_BASE_HEX, FL, NULL, "004 §12.3.5 [58:57]", "0"), \
    [RH_TSEN] = NF("sue.rh.ts_en", "Timestamp_en", O(56, 1), 1, UB_FT_BOOL, UB_BASE_DEC, FL, NULL, "004 §12.3.5 [56]", "timestamp valid"), \
    [RH_TS] = NF("sue.rh.timestamp", "Timestamp", O(40, 16), 16, UB_FT_UINT, UB_BASE_DEC, FL, NULL, "004 §12.3.5 [55:40]", "for RTT; units not given"), \
    [RH_PKEY] = NF("sue.rh.p_key", "P_key", O(32, 8), 8, UB_FT_UINT, UB_BASE_HEX, FL, NULL, "004 §12.3.5 [39:32]", "8-bit partition key"), \
    [RH_LEN] = NF("sue.rh.pkt_len", "Pkt_len", O(25, 7), 7, UB_FT_UINT, UB_BASE_DEC, FL, NULL, "004 §12.3.5 [31:25]", "REQ: RH + payload bytes when <= 127, else 0"), \
    [RH_SYN] = NF("sue.rh.aeth_syndrome", "Aeth_syndrom", O(25, 7), 7, UB_FT_UINT, UB_BASE_HEX, FL, NULL, "004 §12.3.5 [31:25]", \
       "ACK: type and RNR time; read as the IB AETH syndrome without its MSB (6:5 = 00 ACK, 01 RNR, 11 NAK) [derived, provisional]"), \
    [RH_PSN] = NF("sue.rh.psn", "PSN", O(13, 12), 12, UB_FT_UINT, UB_BASE_DEC, FL, NULL, "004 §12.3.5 [24:13]", "12-bit, mod 4096"), \
    [RH_DQP] = NF("sue.rh.dest_qp", "Dest_QP", O(0, 13), 13, UB_FT_UINT, UB_BASE_HEX, FL, NULL, "004 §12.3.5 [12:0]", "destination QP")
#define RH_BE(lo, nb) (63u - (lo) - ((nb) - 1u)) /* MSB-first bit offset of [lo+nb-1:lo] */
#define RH_LE(lo, nb) (lo)
static const ub_field rh_fields[] = { RH_ROWS(0, RH_BE) };
static const ub_field rh_le_fields[] = { RH_ROWS(UB_FF_LEW, RH_LE) };
UB_HDR_DEF(sue_rh, UB_H_SUE_RH, "sue_rh", "sue.rh", "SUE RC Link Routing Header (not UB)", "document 004 §12.3.5", 8, rh_fields);
UB_HDR_VAR(sue_rh_le, UB_H_SUE_RH, UB_V_SUE_RH_LE, "sue_rh_le", "sue.rh", "SUE RC Link Routing Header, Dest_QP byte first (not UB)",
           "document 004 §12.3.5", 8, rh_le_fields);

const ub_hdr *ub_sue_rh_table(const ub_opts *o) { return o && o->sue_rh_order ? &ub_hdr_sue_rh_le : &ub_hdr_sue_rh; }

/* AFH MAC headers (§12.3.1): the 12 address bytes of the Ethernet header, re-described */
static const ub_field afh0_fields[] = {
    NF("sue.afh.dst", "Dest Addr", 0, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "004 §12.3.1", "MAC_DA[47:0]"),
    NF("sue.afh.src", "Source Addr", 48, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "004 §12.3.1", "MAC_SA[47:0] (afh_gen1_tc_en off)"),
};
UB_HDR_DEF(sue_afh0, UB_H_SUE_AFH0, "sue_afh_gen1", "sue.afh", "SUE AFH_GEN1 MAC header (not UB)", "document 004 §12.3.1", 12, afh0_fields);
static const ub_field afh1_fields[] = {
    NF("sue.afh.dst", "Dest Addr", 0, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "004 §12.3.1", "MAC_DA[47:0]"),
    NU("sue.afh.tc", "Traffic Class", 48, 8, UB_BASE_DEC, NULL, "004 §12.3.1", "MAC_SA[47:40] (afh_gen1_tc_en)"),
    NU("sue.afh.src_addr", "Source Addr", 56, 40, UB_BASE_HEX, NULL, "004 §12.3.1", "MAC_SA[39:0]"),
};
UB_HDR_DEF(sue_afh1, UB_H_SUE_AFH1, "sue_afh_gen1_tc", "sue.afh", "SUE AFH_GEN1 MAC header, TC in SA (not UB)", "document 004 §12.3.1", 12, afh1_fields);
static const ub_field afh2_fields[] = {
    NU("sue.afh.tc", "Traffic Class", 0, 8, UB_BASE_DEC, NULL, "004 §12.3.1", "MAC_DA[47:40]"),
    NU("sue.afh.dst_sue_payload", "SUE_payload (DA)", 8, 24, UB_BASE_HEX, NULL, "004 §12.3.1", "MAC_DA[39:16]: REQ SUE_payload, ACK reserved"),
    NU("sue.afh.dst_addr", "Dest Addr", 32, 16, UB_BASE_HEX, NULL, "004 §12.3.1", "MAC_DA[15:0]"),
    NU("sue.afh.key_words", "Key_words", 48, 8, UB_BASE_HEX, NULL, "004 §12.3.1", "{W,V,Rsv,Rsv,Z,Y,X,M}: 0x82 TYPE1, 0x83 TYPE2 [derived]"),
    NB("sue.afh.key_words.w", "W (16b format)", 48, "004 §12.3.1", "1 = 16b format"),
    NB("sue.afh.key_words.v", "V (version)", 49, "004 §12.3.1", "0"),
    NB("sue.afh.key_words.x", "X (local address)", 54, "004 §12.3.1", "1"),
    NB("sue.afh.key_words.m", "M (multicast)", 55, "004 §12.3.1", "0 TYPE1 unicast, 1 TYPE2 multicast"),
    NU("sue.afh.src_sue_payload", "SUE_payload (SA)", 56, 24, UB_BASE_HEX, NULL, "004 §12.3.1", "MAC_SA[39:16]: REQ SUE_payload, ACK reserved"),
    NU("sue.afh.src_addr", "Source Addr", 80, 16, UB_BASE_HEX, NULL, "004 §12.3.1", "MAC_SA[15:0]"),
};
UB_HDR_DEF(sue_afh2, UB_H_SUE_AFH2, "sue_afh_gen2", "sue.afh", "SUE AFH_GEN2_16b MAC header (not UB)", "document 004 §12.3.1", 12, afh2_fields);

static const ub_field icrc_fields[] = {
    NU("sue.icrc.value", "ICRC", 0, 32, UB_BASE_HEX, NULL, "004 §12.3", "optional (TYPE1); algorithm not given: not verified"),
};
UB_HDR_DEF(sue_icrc, UB_H_SUE_ICRC, "sue_icrc", "sue.icrc", "SUE ICRC (not UB)", "document 004 §12.3", 4, icrc_fields);

enum { SUE_MAX_PAYLOAD = 1344 }; /* §12.2: TYPE1/TYPE2 payload limit */

void ub_dec_sue_rh(ub_dec *d, uint32_t off, uint32_t end)
{
    const ub_hdr *h = ub_sue_rh_table(d->o);
    ub_layer *r = ub_push_buf(d, UB_H_SUE_RH, d->p, end > d->len ? d->len : end, off, 8, d->lflags);
    if (!r) return;
    r->hdr = h; /* the configured byte order (same id and rows) */
    if (r->flags & UB_LF_TRUNC) {
        ub_error(d, UB_E_TRUNCATED, UB_H_SUE_RH, off + r->len, r->len, 8, "sue.rh");
        return;
    }
    unsigned op = (unsigned)ub_lget(r, RH_OP), len = (unsigned)ub_lget(r, RH_LEN);
    uint32_t pend = d->o->sue_icrc && end >= off + 12 ? end - 4 : end;
    uint32_t plen = pend - (off + 8);
    if (op == 3) ub_error(d, UB_E_RSVD_VALUE, UB_H_SUE_RH, off, op, 0, "sue.rh.opcode");
    if (ub_lget(r, RH_RSV)) ub_error(d, UB_E_RSVD_BITS, UB_H_SUE_RH, off, ub_lget(r, RH_RSV), 0, "sue.rh.rsv");
    if (op == 0 && len != 0 && len != 8 + plen) ub_error(d, UB_E_LENGTH, UB_H_SUE_RH, off, len, 8 + plen, "sue.rh.pkt_len");
    if (op != 0 && ub_lget(r, RH_FACK)) ub_error(d, UB_E_VALUE, UB_H_SUE_RH, off, 1, 0, "sue.rh.fack is 0 in ACKs");
    if (plen > SUE_MAX_PAYLOAD) ub_error(d, UB_E_LENGTH, UB_H_SUE_RH, off + 8, plen, SUE_MAX_PAYLOAD, "SUE payload over 1344 bytes");
    if (plen) ub_push_in(d, UB_H_DATA, off + 8, plen, pend, false);
    if (pend != end) ub_push_in(d, UB_H_SUE_ICRC, pend, 4, end, true);
}

bool ub_dec_sue_eth(ub_dec *d, uint32_t off, unsigned et)
{
    const ub_opts *o = d->o;
    if (!et || (et != o->sue_ethertype[0] && et != o->sue_ethertype[1])) return false;
    uint8_t ka = 0;
    ub_rd8(d->p, d->len, 6, &ka);
    unsigned fmt = o->sue_afh ? o->sue_afh : (ka & 0xFE) == 0x82 ? 2 : 1; /* auto: Key_words W=1, X=1 */
    unsigned id = fmt == 2 ? UB_H_SUE_AFH2 : o->sue_tc_in_sa ? UB_H_SUE_AFH1 : UB_H_SUE_AFH0;
    ub_layer *a = ub_push_in(d, id, 0, 12, d->wlen, true);
    if (a) a->flags |= UB_LF_OVERLAY; /* re-describes the Ethernet addresses */
    if (a && id == UB_H_SUE_AFH2) {
        unsigned m = (unsigned)(ka & 1u), t2 = et == o->sue_ethertype[1];
        if (m != t2) ub_error(d, UB_E_VALUE, UB_H_SUE_AFH2, 6, m, t2, "sue.afh.key_words.m vs TYPE1/TYPE2 EtherType");
    }
    ub_dec_sue_rh(d, off, d->wlen);
    return true;
}

/* ---------------------------------------------------------------- UDP 4791: RoCEv2 or SUE? */
/* The rule (docs/neighbours.md "UDP 4791"): an explicit -o udp4791 wins; else the payload is RoCEv2 when
 * it is a well-formed BTH chain (TVer 0, a modelled opcode, reserved bits 0, a valid P_Key, room for the
 * extension headers and the ICRC, the exact size for opcodes without payload) and SUE when it is a well-formed RH (opcode not 3, reserved bits 0,
 * Pkt_len 0 or exact, no payload in ACK/CNP). When both fit, P_Key 0xFFFF says RoCEv2, an exact non-zero
 * Pkt_len says SUE, and otherwise the port's IANA owner, RoCEv2, is taken. Neither: not decoded. */
static bool bth_fits(const uint8_t *p, uint32_t len)
{
    if (len < 16) return false;
    unsigned op = p[0], pkey = (unsigned)(p[2] << 8 | p[3]);
    int hl = ub_ib_hdr_len(op);
    if (hl < 0 || (uint32_t)hl + 4 > len) return false;
    unsigned o = op & 0x1F;
    bool no_payload = op == 0x81 || (op >> 5 == 0 && (o == 0x0C || o == 0x11 || o == 0x12 || o == 0x13 || o == 0x14));
    if (no_payload && (uint32_t)hl + 4 != len) return false; /* CNP, ACK, Read request, atomics: exact size */
    if (len - (uint32_t)hl - 4 < (unsigned)((p[1] >> 4) & 3)) return false; /* PadCnt within the payload */
    return (p[1] & 0x0F) == 0 && (p[4] & 0x3F) == 0 && (p[8] & 0x7F) == 0 && (pkey & 0x7FFF) != 0;
}
static bool rh_fits(const ub_opts *o, const uint8_t *p, uint32_t len, unsigned *pkt_len)
{
    ub_layer t = { 0 };
    t.hdr = ub_sue_rh_table(o);
    t.data = p;
    t.len = len;
    if (len < 8) return false;
    unsigned op = (unsigned)ub_lget_slow(&t, RH_OP), rsv = (unsigned)ub_lget_slow(&t, RH_RSV);
    uint32_t body = len - 8 - (o->sue_icrc && len >= 12 ? 4 : 0);
    *pkt_len = (unsigned)ub_lget_slow(&t, RH_LEN);
    if (op == 3 || rsv) return false;
    if (op == 0) return *pkt_len == 0 || *pkt_len == 8 + body;
    return body == 0 && !ub_lget_slow(&t, RH_FACK);
}

int ub_udp4791_kind(const ub_opts *o, const uint8_t *p, uint32_t len)
{
    if (o->udp4791 == 1) return UB_NEIGH_ROCEV2;
    if (o->udp4791 == 2) return UB_NEIGH_SUE;
    unsigned pl = 0;
    bool ib = bth_fits(p, len), sue = o->sue_port && rh_fits(o, p, len, &pl);
    if (ib && sue) {
        if (p[2] == 0xFF && p[3] == 0xFF) return UB_NEIGH_ROCEV2;
        return pl ? UB_NEIGH_SUE : UB_NEIGH_ROCEV2;
    }
    return ib ? UB_NEIGH_ROCEV2 : sue ? UB_NEIGH_SUE : UB_NEIGH_NONE;
}

bool ub_dec_udp_neigh(ub_dec *d, unsigned sport, unsigned dport, uint32_t off, uint32_t end)
{
    (void)sport;
    if (dport != 4791 && !(d->o->sue_port && dport == d->o->sue_port)) return false;
    uint32_t n = ub_dec_avail(d, off, end);
    int k = dport == 4791 ? ub_udp4791_kind(d->o, d->p + off, n) : UB_NEIGH_SUE;
    if (k == UB_NEIGH_ROCEV2) ub_dec_ib(d, off, end);
    else if (k == UB_NEIGH_SUE) ub_dec_sue_rh(d, off, end);
    return k != UB_NEIGH_NONE;
}
