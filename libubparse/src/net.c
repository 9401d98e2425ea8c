/* Network layer (§5): the Internet headers UB travels in (IPv4, IPv6 and its extension headers, UDP;
 * TCP, GRE and Geneve, whose decoders read their rows here), UB's own network headers, the transport
 * layer (§6) and the headers between TPH and TAH (App. B.3/B.4, §11.5), with their decoders. One table
 * per header; decoders read fields through the tables. Link encapsulations and the other tables of
 * what is not UB: encap.c. */
#include "internal.h"
#include "rows.h"
#include "neigh.h"
#include "rowfast.h"

extern const ub_hdr ub_hdr_icmp, ub_hdr_erspan3; /* encap.c */

/* ================================================================ Internet headers and tunnels */

static const ub_field geneve_fields[] = { /* RFC 8926, on UDP 6081; the layer includes the options */
    [GENEVE_VER] = UBU(geneve, version, "Version", 0, 2, UB_BASE_DEC, NULL, "RFC 8926", ""),
    [GENEVE_OPTLEN] = UBU(geneve, option_length, "Options Length", 2, 6, UB_BASE_DEC, NULL, "RFC 8926", "in 4-byte words"),
    [GENEVE_OAM] = UBB(geneve, oam, "Operations, Administration and Management Frame", 8, "RFC 8926", ""),
    [GENEVE_CRIT] = UBB(geneve, critical, "Critical Options Present", 9, "RFC 8926", ""),
    [GENEVE_FLAGS_RSVD] = UBU(geneve, flags_reserved, "Reserved flags", 10, 6, UB_BASE_HEX, NULL, "RFC 8926", ""),
    [GENEVE_PROTO] = UBU(geneve, proto_type, "Protocol Type", 16, 16, UB_BASE_HEX, NULL, "RFC 8926", "0x6558 Ethernet"),
    [GENEVE_VNI] = UBU(geneve, vni, "Virtual Network Identifier (VNI)", 32, 24, UB_BASE_HEX, NULL, "RFC 8926", ""),
    [GENEVE_RSVD] = UBU(geneve, reserved, "Reserved", 56, 8, UB_BASE_HEX, NULL, "RFC 8926", ""),
};
UB_HDR_DEF(geneve, UB_H_GENEVE, "geneve", "geneve", "Generic Network Virtualization Encapsulation (not UB)", "RFC 8926", 8,
           geneve_fields);

static const ub_field gre_fields[] = { /* RFC 2784/2890: the 4 fixed bytes; the layer includes the optional words */
    [GRE_C] = UBB(gre, checksum_present, "Checksum Bit", 0, "RFC 2784", ""),
    [GRE_R] = UBB(gre, routing_present, "Routing Bit", 1, "RFC 1701", ""),
    [GRE_K] = UBB(gre, key_present, "Key Bit", 2, "RFC 2890", ""),
    [GRE_S] = UBB(gre, seq_present, "Sequence Number Bit", 3, "RFC 2890", "set by ERSPAN type II/III"),
    [GRE_FLAGS] = UBU(gre, flags, "Other flags", 4, 9, UB_BASE_HEX, NULL, "RFC 1701", ""),
    [GRE_VER] = UBU(gre, version, "Version", 13, 3, UB_BASE_DEC, NULL, "RFC 2784", ""),
    [GRE_PROTO] = UBU(gre, proto, "Protocol Type", 16, 16, UB_BASE_HEX, NULL, "RFC 2784",
                      "0x6558 Ethernet, 0x0800 IPv4, 0x86DD IPv6, 0x88BE ERSPAN, 0x22EB ERSPAN III"),
};
UB_HDR_DEF(gre, UB_H_GRE, "gre", "gre", "Generic Routing Encapsulation (not UB)", "RFC 2784", 4, gre_fields);

/* IP extension headers (RFC 8200 §4, RFC 4302): not UB (a UB packet's IPv6 Next Header is UDP, Table 5-5);
 * walked to the upper-layer protocol as Wireshark does (ub_ip_ext_at). Each layer includes its options. */
#define IP6X_COMMON(h) \
    [IP6X_NXT] = UBU(h, nxt, "Next Header", 0, 8, UB_BASE_DEC, NULL, "RFC 8200 §4", ""), \
    [IP6X_LEN] = UBU(h, len, "Length", 8, 8, UB_BASE_DEC, NULL, "RFC 8200 §4", "in 8-byte units, not counting the first 8")
static const ub_field ip6_hopopts_fields[] = { IP6X_COMMON(ipv6_hopopts) };
UB_HDR_DEF(ip6_hopopts, UB_H_IP6_HOPOPTS, "ipv6_hopopts", "ipv6_hopopts", "IPv6 Hop-by-Hop Option (not UB)", "RFC 8200 §4.3", 8,
           ip6_hopopts_fields);
static const ub_field ip6_dstopts_fields[] = { IP6X_COMMON(ipv6_dstopts) };
UB_HDR_DEF(ip6_dstopts, UB_H_IP6_DSTOPTS, "ipv6_dstopts", "ipv6_dstopts", "Destination Options for IPv6 (not UB)", "RFC 8200 §4.6", 8,
           ip6_dstopts_fields);
static const ub_field ip6_routing_fields[] = {
    IP6X_COMMON(ipv6_routing),
    [IP6RT_TYPE] = UBU(ipv6_routing, type, "Type", 16, 8, UB_BASE_DEC, NULL, "RFC 8200 §4.4", "4 segment routing"),
    [IP6RT_SEGLEFT] = UBU(ipv6_routing, segleft, "Segments Left", 24, 8, UB_BASE_DEC, NULL, "RFC 8200 §4.4", ""),
};
UB_HDR_DEF(ip6_routing, UB_H_IP6_ROUTING, "ipv6_routing", "ipv6_routing", "Routing Header for IPv6 (not UB)", "RFC 8200 §4.4", 8,
           ip6_routing_fields);
static const ub_field ip6_fraghdr_fields[] = {
    [IP6FR_NXT] = UBU(ipv6_fraghdr, nxt, "Next header", 0, 8, UB_BASE_DEC, NULL, "RFC 8200 §4.5", ""),
    [IP6FR_RSVD] = UBU(ipv6_fraghdr, reserved_octet, "Reserved octet", 8, 8, UB_BASE_HEX, NULL, "RFC 8200 §4.5", ""),
    [IP6FR_OFFSET] = UBU(ipv6_fraghdr, offset, "Offset", 16, 13, UB_BASE_DEC, NULL, "RFC 8200 §4.5", "in 8-byte units"),
    [IP6FR_RSVD2] = UBU(ipv6_fraghdr, reserved_bits, "Reserved bits", 29, 2, UB_BASE_DEC, NULL, "RFC 8200 §4.5", ""),
    [IP6FR_MORE] = UBB(ipv6_fraghdr, more, "More Fragments", 31, "RFC 8200 §4.5", ""),
    [IP6FR_IDENT] = UBU(ipv6_fraghdr, ident, "Identification", 32, 32, UB_BASE_HEX, NULL, "RFC 8200 §4.5", ""),
};
UB_HDR_DEF(ip6_fraghdr, UB_H_IP6_FRAGHDR, "ipv6_fraghdr", "ipv6_fraghdr", "Fragment Header for IPv6 (not UB)", "RFC 8200 §4.5", 8,
           ip6_fraghdr_fields);
static const ub_field ah_fields[] = { /* the layer includes the ICV */
    [AH_NXT] = UBU(ah, next_header, "Next header", 0, 8, UB_BASE_DEC, NULL, "RFC 4302 §2", ""),
    [AH_LEN] = UBU(ah, length, "Length", 8, 8, UB_BASE_DEC, NULL, "RFC 4302 §2", "in 4-byte units, minus 2"),
    [AH_RSVD] = UBY(ah, reserved, "Reserved", 16, 16, "RFC 4302 §2", ""),
    [AH_SPI] = UBU(ah, spi, "AH SPI", 32, 32, UB_BASE_HEX, NULL, "RFC 4302 §2", ""),
    [AH_SEQ] = UBU(ah, sequence, "AH Sequence", 64, 32, UB_BASE_DEC, NULL, "RFC 4302 §2", ""),
};
UB_HDR_DEF(ah, UB_H_AH, "ah", "ah", "Authentication Header (not UB)", "RFC 4302", 12, ah_fields);

static const ub_field ipv4_fields[] = {
    [IP4_VERSION] = UBU(ipv4, version, "Version", 0, 4, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "4"),
    [IP4_IHL] = UBU(ipv4, ihl, "IHL", 4, 4, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "5 (no options) for UB"),
    [IP4_DSCP] = UBU(ipv4, dscp, "DSCP", 8, 6, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "per service; ICRC mask"),
    [IP4_ECN] = UBU(ipv4, ecn, "ECN", 14, 2, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "unused inside a UB domain"),
    [IP4_TOTLEN] = UBU(ipv4, total_length, "Total Length", 16, 16, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "up to, excluding, the ICRC"),
    [IP4_ID] = UBU(ipv4, identification, "Identification", 32, 16, UB_BASE_HEX, NULL, "RFC 791", ""),
    [IP4_RSVD] = UBR(ipv4, rsvd0, 48, 1, "RFC 791"),
    [IP4_DF] = UBB(ipv4, df, "Don't Fragment", 49, "§5.2.3 T5-4", "1 for UB"),
    [IP4_MF] = UBB(ipv4, mf, "More Fragments", 50, "§5.2.3 T5-4", "0 for UB"),
    [IP4_FRAG] = UBU(ipv4, frag_offset, "Fragment Offset", 51, 13, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "0 for UB"),
    [IP4_TTL] = UBU(ipv4, ttl, "Time To Live", 64, 8, UB_BASE_DEC, NULL, "RFC 791", "ICRC mask"),
    [IP4_PROTO] = UBU(ipv4, protocol, "Protocol", 72, 8, UB_BASE_DEC, NULL, "§5.2.3 T5-4", "17 = UDP for UB"),
    [IP4_CSUM] = UBU(ipv4, checksum, "Header Checksum", 80, 16, UB_BASE_HEX, NULL, "RFC 791", "ICRC mask"),
    [IP4_SRC] = UBF(ipv4, src, "Source", 96, 32, UB_FT_IPV4, UB_BASE_DEC, 0, NULL, "RFC 791", ""),
    [IP4_DST] = UBF(ipv4, dst, "Destination", 128, 32, UB_FT_IPV4, UB_BASE_DEC, 0, NULL, "RFC 791", ""),
};
UB_HDR_DEF(ipv4, UB_H_IPV4, "ipv4", "ipv4", "Internet Protocol version 4", "§5.2.3 Table 5-4", 20, ipv4_fields);

static const ub_field ipv6_fields[] = {
    [IP6_VERSION] = UBU(ipv6, version, "Version", 0, 4, UB_BASE_DEC, NULL, "§5.2.3 T5-5", "6"),
    [IP6_TC] = UBU(ipv6, traffic_class, "Traffic Class", 4, 8, UB_BASE_HEX, NULL, "§5.2.3 T5-5", "ICRC mask"),
    [IP6_FLOW] = UBU(ipv6, flow_label, "Flow Label", 12, 20, UB_BASE_HEX, NULL, "RFC 8200", "ICRC mask"),
    [IP6_PLEN] = UBU(ipv6, payload_length, "Payload Length", 32, 16, UB_BASE_DEC, NULL, "§5.2.3 T5-5", "up to, excluding, the ICRC"),
    [IP6_NH] = UBU(ipv6, next_header, "Next Header", 48, 8, UB_BASE_DEC, NULL, "§5.2.3 T5-5", "17 = UDP"),
    [IP6_HLIM] = UBU(ipv6, hop_limit, "Hop Limit", 56, 8, UB_BASE_DEC, NULL, "RFC 8200", "ICRC mask"),
    [IP6_SRC] = UBF(ipv6, src, "Source", 64, 128, UB_FT_IPV6, UB_BASE_HEX, 0, NULL, "RFC 8200", ""),
    [IP6_DST] = UBF(ipv6, dst, "Destination", 192, 128, UB_FT_IPV6, UB_BASE_HEX, 0, NULL, "RFC 8200", ""),
};
UB_HDR_DEF(ipv6, UB_H_IPV6, "ipv6", "ipv6", "Internet Protocol version 6", "§5.2.3 Table 5-5", 40, ipv6_fields);

static const ub_field udp_fields[] = {
    [UDP_SPORT] = UBU(udp, srcport, "Source Port", 0, 16, UB_BASE_DEC, NULL, "§5.2.3 T5-6", "entropy / TP channel selector"),
    [UDP_DPORT] = UBU(udp, dstport, "Destination Port", 16, 16, UB_BASE_DEC, NULL, "§5.2.3 T5-6", "4792 = UB"),
    [UDP_LEN] = UBU(udp, length, "Length", 32, 16, UB_BASE_DEC, NULL, "§5.2.3 T5-6", "up to, excluding, the ICRC"),
    [UDP_CSUM] = UBU(udp, checksum, "Checksum", 48, 16, UB_BASE_HEX, NULL, "§5.2.3 T5-6", "0 for UB; ICRC mask"),
};
UB_HDR_DEF(udp, UB_H_UDP, "udp", "udp", "User Datagram Protocol", "§5.2.3 Table 5-6", 8, udp_fields);

/* What is not UB is still shown as what it is (issue #9): the TCP header, nothing decoded further */
static const ub_field tcp_fields[] = {
    [TCP_SPORT] = UBU(tcp, srcport, "Source Port", 0, 16, UB_BASE_DEC, NULL, "RFC 9293", ""),
    [TCP_DPORT] = UBU(tcp, dstport, "Destination Port", 16, 16, UB_BASE_DEC, NULL, "RFC 9293", ""),
    [TCP_SEQ] = UBU(tcp, seq, "Sequence Number", 32, 32, UB_BASE_DEC, NULL, "RFC 9293", ""),
    [TCP_ACK] = UBU(tcp, ack, "Acknowledgment Number", 64, 32, UB_BASE_DEC, NULL, "RFC 9293", ""),
    [TCP_DOFF] = UBU(tcp, data_offset, "Data Offset", 96, 4, UB_BASE_DEC, NULL, "RFC 9293", "header length in 32-bit words"),
    [TCP_FLAGS] = UBU(tcp, flags, "Flags", 100, 12, UB_BASE_HEX, NULL, "RFC 9293", ""),
    [TCP_WIN] = UBU(tcp, window, "Window", 112, 16, UB_BASE_DEC, NULL, "RFC 9293", ""),
    [TCP_CSUM] = UBU(tcp, checksum, "Checksum", 128, 16, UB_BASE_HEX, NULL, "RFC 9293", ""),
    [TCP_URG] = UBU(tcp, urgent, "Urgent Pointer", 144, 16, UB_BASE_DEC, NULL, "RFC 9293", ""),
};
UB_HDR_DEF(tcp, UB_H_TCP, "tcp", "tcp", "Transmission Control Protocol (not UB)", "RFC 9293", 20, tcp_fields);

/* ================================================================ network headers */

static const ub_vname vn_nlp16[] = { { 0, "CTPH (CFG 6) / TAH (CFG 9)" }, { 1, "UPIH16 (enumeration)" }, { 0, NULL } };
static const ub_vname vn_nlp24[] = { { 0, "CTPH" }, { 2, "RTPH/UTPH" }, { 0, NULL } };

/* §5.2.1 Table 5-1, R-11: SCNA B0-1, DCNA B2-3, CCI B4-5, LBF B6, SL B7 b7:4, Mgmt B7 b3, NLP B7 b2:0 */
#define NTH16_ROWS(ENC, SP) \
    [NTH16_SCNA] = UBF(nth, scna, "SCNA", 0, 16, UB_FT_UINT, UB_BASE_HEX, ENC, NULL, "§5.2.1 T5-1, R-11" SP, "source compact network address"), \
    [NTH16_DCNA] = UBF(nth, dcna, "DCNA", 16, 16, UB_FT_UINT, UB_BASE_HEX, ENC, NULL, "§5.2.1 T5-1, R-11" SP, "destination CNA"), \
    [NTH16_CCI] = UBF(nth, cci, "CCI", 32, 16, UB_FT_UINT, UB_BASE_HEX, ENC, NULL, "§5.3.5.1" SP, "congestion control indicator (ICRC mask)"), \
    [NTH16_LBF] = UBU(nth, lbf, "LBF", 48, 8, UB_BASE_HEX, NULL, "§5.2.1", "load balance factor (ICRC mask)"), \
    [NTH16_SL] = UBU(nth, sl, "SL", 56, 4, UB_BASE_DEC, NULL, "§5.2.1", "service level"), \
    [NTH16_MGMT] = UBB(nth, mgmt, "Mgmt", 60, "§5.2.1", "UBFM privilege (CFG 6); 0 in CFG 9"), \
    [NTH16_NLP] = UBU(nth, nlp, "NLP", 61, 3, UB_BASE_DEC, vn_nlp16, "§5.2.1, R-11", "next layer protocol")
static const ub_field nth16_fields[] = { NTH16_ROWS(0, "") };
/* ns-3-UB D6: SCNA, DCNA and CCI written little-endian (ns-3 Buffer::WriteU16); the CCI bits are garbage */
static const ub_field nth16_ns3_fields[] = { NTH16_ROWS(UB_FF_LE, "; ns-3-UB D6 (little-endian)") };
UB_HDR_VAR(nth16_ns3, UB_H_NTH16, UB_V_NTH16_NS3, "nth16_ns3", "nth", "Network Header (16-bit CNA, ns-3-UB)",
           "§5.2.1; ns-3-UB D6", 8, nth16_ns3_fields);
UB_HDR_DEF(nth16, UB_H_NTH16, "nth16", "nth", "Network Header (16-bit CNA)", "§5.2.1 Table 5-1", 8, nth16_fields);

/* §5.2.2 Table 5-2, R-12 (I-11: one bit unaccounted -> reserved) */
#define NTH24_ROWS(ENC, SP) \
    [NTH24_SCNA] = UBU(nth, scna, "SCNA", 0, 24, UB_BASE_HEX, NULL, "§5.2.2 T5-2, R-12", "source CNA"), \
    [NTH24_DCNA] = UBU(nth, dcna, "DCNA", 24, 24, UB_BASE_HEX, NULL, "§5.2.2 T5-2, R-12", "destination CNA"), \
    [NTH24_CCI] = UBF(nth, cci, "CCI", 48, 16, UB_FT_UINT, UB_BASE_HEX, ENC, NULL, "§5.3.5.1" SP, "congestion control indicator (ICRC mask)"), \
    [NTH24_LBF] = UBU(nth, lbf, "LBF", 64, 8, UB_BASE_HEX, NULL, "§5.2.2", "load balance factor (ICRC mask)"), \
    [NTH24_SL] = UBU(nth, sl, "SL", 72, 4, UB_BASE_DEC, NULL, "§5.2.2", "service level"), \
    [NTH24_RSVD] = UBR(nth, rsvd0, 76, 1, "§5.2.2, I-11"), \
    [NTH24_NLP] = UBU(nth, nlp, "NLP", 77, 3, UB_BASE_DEC, vn_nlp24, "§5.2.2, R-12", "next layer protocol")
static const ub_field nth24_fields[] = { NTH24_ROWS(0, "") };
/* ns-3-UB D7: CCI little-endian (and garbage) */
static const ub_field nth24_ns3_fields[] = { NTH24_ROWS(UB_FF_LE, "; ns-3-UB D7 (little-endian)") };
UB_HDR_VAR(nth24_ns3, UB_H_NTH24, UB_V_NTH24_NS3, "nth24_ns3", "nth", "Network Header (24-bit CNA, ns-3-UB)",
           "§5.2.2; ns-3-UB D7", 10, nth24_ns3_fields);
UB_HDR_DEF(nth24, UB_H_NTH24, "nth24", "nth", "Network Header (24-bit CNA)", "§5.2.2 Table 5-2", 10, nth24_fields);

/* §5.2.3 Table 5-3, R-13 (EV-LINUX struct ublhdr {__be16 h_cc; __be32 h_npi;}) */
enum { NTHIP_CCI, NTHIP_RSVD, NTHIP_PERM, NTHIP_NPI };
static const ub_vname vn_npi_perm[] = { { 0, "high" }, { 1, "low" }, { 0, NULL } };
static const ub_field nthip_fields[] = {
    [NTHIP_CCI] = UBU(nth, cci, "CCI", 0, 16, UB_BASE_HEX, NULL, "§5.2.3 T5-3, R-13", "congestion control indicator"),
    [NTHIP_RSVD] = UBR(nth, rsvd0, 16, 7, "R-13"),
    [NTHIP_PERM] = UBU(nth, npi_permission, "NPI.Permission", 23, 1, UB_BASE_DEC, vn_npi_perm, "§5.3.3.1", "0 high, 1 low"),
    [NTHIP_NPI] = UBU(nth, npi_id, "NPI.ID", 24, 24, UB_BASE_DEC, NULL, "§5.3.3.1", "partition; 0 invalid, 1 default"),
};
UB_HDR_DEF(nthip, UB_H_NTHIP, "nthip", "nth", "IP-based UB link header", "§5.2.3 Table 5-3", 6, nthip_fields);

/* CCI (§5.3.5.1, Figs 5-11..5-13). R-14: Mode = CCI[15:13] — the one row shared by all variants. */
#define CCI_MODE_ROW UBU(cci, mode, "Mode", 0, 3, UB_BASE_DEC, vn_cci_mode, "§5.3.5.1, R-14", "congestion control mode")
#define CCI_LOC_ROW UBU(cci, loc, "Loc", 3, 1, UB_BASE_DEC, vn_cci_loc, "§5.3.5.1", "congestion location")
static const ub_vname vn_cci_mode[] = { { 0, "CAQM" }, { 4, "FECN" }, { 2, "FECN_RTT" }, { 0, NULL } };
static const ub_vname vn_cci_loc[] = { { 0, "intermediate switch" }, { 1, "receiver-side edge switch" }, { 0, NULL } };
static const ub_vname vn_fecn[] = { { 0, "not markable" }, { 1, "markable, light congestion" },
                                    { 2, "markable, no congestion" }, { 3, "markable, heavy congestion" }, { 0, NULL } };
enum { CCI_MODE = 0 };
static const ub_field cci_caqm_fields[] = {
    [CCI_MODE] = CCI_MODE_ROW, CCI_LOC_ROW,
    UBR(cci, rsvd0, 4, 1, "§5.3.5.1 Fig 5-11"),
    UBB(cci, enable, "Enable", 5, "§5.3.5.1", "CAQM enabled"),
    UBB(cci, c, "C", 6, "§5.3.5.1", "congestion mark"),
    UBB(cci, i, "I", 7, "§5.3.5.1", "increase request/grant"),
    UBU(cci, hint, "Hint", 8, 8, UB_BASE_DEC, NULL, "§5.3.5.1", "requested bandwidth increment"),
};
UB_HDR_DEF(cci_caqm, UB_H_CCI_CAQM, "cci_caqm", "cci", "CCI (CAQM)", "§5.3.5.1 Fig 5-11", 2, cci_caqm_fields);
static const ub_field cci_fecn_fields[] = {
    [CCI_MODE] = CCI_MODE_ROW, CCI_LOC_ROW,
    UBR(cci, rsvd0, 4, 10, "§5.3.5.1 Fig 5-12"),
    UBU(cci, fecn, "FECN", 14, 2, UB_BASE_DEC, vn_fecn, "§5.3.5.1", "forward explicit congestion notification"),
};
UB_HDR_DEF(cci_fecn, UB_H_CCI_FECN, "cci_fecn", "cci", "CCI (FECN)", "§5.3.5.1 Fig 5-12", 2, cci_fecn_fields);
static const ub_field cci_fecn_rtt_fields[] = {
    [CCI_MODE] = CCI_MODE_ROW, CCI_LOC_ROW,
    UBU(cci, timestamp, "Timestamp", 4, 10, UB_BASE_DEC, NULL, "§5.3.5.1", "sender timestamp echoed in CNP"),
    UBU(cci, fecn, "FECN", 14, 2, UB_BASE_DEC, vn_fecn, "§5.3.5.1", ""),
};
UB_HDR_DEF(cci_fecn_rtt, UB_H_CCI_FECN_RTT, "cci_fecn_rtt", "cci", "CCI (FECN_RTT)", "§5.3.5.1 Fig 5-13", 2, cci_fecn_rtt_fields);
static const ub_field cci_rsvd_fields[] = {
    [CCI_MODE] = CCI_MODE_ROW,
    UBU(cci, value, "Value", 3, 13, UB_BASE_HEX, NULL, "§5.3.5.1", "reserved mode: bits not interpreted"),
};
UB_HDR_DEF(cci_rsvd, UB_H_CCI_RSVD, "cci_rsvd", "cci", "CCI (reserved mode)", "§5.3.5.1", 2, cci_rsvd_fields);

/* ICRC (§5.3.7, R-15): carried value, computed value, status and the byte order that matched */
static const ub_vname vn_icrc_order[] = { { 0, "none" }, { 1, "little-endian" }, { 2, "big-endian" }, { 0, NULL } };
static const ub_field icrc_fields[] = {
    [ICRC_ICRC] = UBU(icrc, icrc, "ICRC", 0, 32, UB_BASE_HEX, NULL, "§5.3.7", "carried value, bytes as sent"),
    [ICRC_COMPUTED] = UBF(icrc, computed, "ICRC computed", 0, 32, UB_FT_UINT, UB_BASE_HEX, UB_FF_AUX, NULL, "§5.3.7", "crc32 of the masked packet"),
    [ICRC_STATUS] = UBF(icrc, status, "ICRC status", 0, 8, UB_FT_UINT, UB_BASE_DEC, UB_FF_STATUS, ub_vn_cksum_status, "§5.3.7", ""),
    [ICRC_ORDER] = UBF(icrc, byte_order, "ICRC byte order", 0, 8, UB_FT_UINT, UB_BASE_DEC, UB_FF_VARIANT, vn_icrc_order, "R-15",
        "which byte order matched"),
};
UB_HDR_DEF(icrc, UB_H_ICRC, "icrc", "icrc", "Invariant CRC", "§5.3.7", 4, icrc_fields);

/* ================================================================ transport headers */

static const ub_vname vn_tp_nlp[] = { { 0, "TAH" }, { 1, "UPIH32 + EIDH256 + TAH" }, { 3, "CIPH" }, { 0, NULL } };
static const ub_vname vn_ctp_nlp[] = { { 0, "TAH" }, { 1, "UPIH32 + EIDH256 + TAH" }, { 2, "UPIH16 + EIDH40 + TAH" },
                                       { 3, "CIPH" }, { 0, NULL } };
static const ub_vname vn_rspst_tp[] = { { 0, "Successful (TPACK)" }, { 1, "RNR" }, { 2, "Page Fault" },
                                        { 3, "Completer Error (TPNAK)" }, { 5, "TPACK carrying a TA response" }, { 0, NULL } };

/* §6.2.1 Fig 6-8, Table 6-2 */
#define RTPH_ROWS(OPNAMES) \
    [RTPH_LAST] = UBB(rtph, last, "TPOpcode[7] (Last)", 0, "§6.2.1 T6-2", "last TP packet of the operation (data)"), \
    [RTPH_OP] = UBU(rtph, tpopcode, "TPOpcode", 1, 7, UB_BASE_HEX, OPNAMES, "§6.2.1 T6-2", ""), \
    [RTPH_VER] = UBU(rtph, tpver, "TPVer", 8, 2, UB_BASE_DEC, NULL, "§6.2.1", "0"), \
    [RTPH_PAD] = UBU(rtph, padding, "Padding", 10, 2, UB_BASE_DEC, NULL, "§6.2.1", "zero bytes at the end of the TP packet"), \
    [RTPH_NLP] = UBU(rtph, nlp, "NLP", 12, 4, UB_BASE_DEC, vn_tp_nlp, "§6.2.1 T6-2", "next header (data)"), \
    [RTPH_SRC] = UBU(rtph, srctpn, "SrcTPN", 16, 24, UB_BASE_HEX, NULL, "§6.2.1", "source TP endpoint"), \
    [RTPH_DST] = UBU(rtph, dsttpn, "DstTPN", 40, 24, UB_BASE_HEX, NULL, "§6.2.1", "destination TP endpoint"), \
    [RTPH_A] = UBB(rtph, a, "A", 64, "§6.2.1", "ack required"), \
    [RTPH_F] = UBB(rtph, f, "F", 65, "§6.2.1, §8.2.7.3", "fake packet"), \
    [RTPH_RSVD] = UBR(rtph, rsvd0, 66, 6, "§6.2.1"), \
    [RTPH_PSN] = UBU(rtph, psn, "PSN", 72, 24, UB_BASE_DEC, NULL, "§6.4.1", "packet sequence number"), \
    [RTPH_RSPST] = UBU(rtph, rspst, "RSPST", 96, 3, UB_BASE_DEC, vn_rspst_tp, "§6.2.1 T6-2", "response status (acks)"), \
    [RTPH_RSPINFO] = UBU(rtph, rspinfo, "RSPINFO", 99, 5, UB_BASE_DEC, NULL, "§6.2.1 T6-2", "response info (acks)"), \
    [RTPH_TPMSN] = UBU(rtph, tpmsn, "TPMSN", 104, 24, UB_BASE_DEC, NULL, "§6.7.1.2.1, R-19", "TP message sequence number")
static const ub_field rtph_fields[] = { RTPH_ROWS(ub_vn_tpopcode) };
UB_HDR_DEF(rtph, UB_H_RTPH, "rtph", "rtph", "Reliable Transport Header", "§6.2.1 Fig 6-8", 16, rtph_fields);
/* ns-3-UB D14: TPOpcode 4 = NAK (the spec's TPNAK is opcode 2 with RSPST 3) */
static const ub_vname vn_tpopcode_ns3[] = {
    { 0x0, "UTP data" }, { 0x1, "RTP data" }, { 0x2, "TPACK/TPNAK" }, { 0x3, "TPACK-CC/TPNAK-CC" },
    { 0x4, "TPNAK (ns-3-UB opcode 4)" }, { 0x5, "TPSACK" }, { 0x6, "TPSACK-CC" }, { 0x8, "CNP" }, { 0, NULL }
};
static const ub_field rtph_ns3_fields[] = { RTPH_ROWS(vn_tpopcode_ns3) };
UB_HDR_VAR(rtph_ns3, UB_H_RTPH, UB_V_RTPH_NS3, "rtph_ns3", "rtph", "Reliable Transport Header (ns-3-UB)",
           "§6.2.1; ns-3-UB D14", 16, rtph_ns3_fields);

/* §6.2.1 Fig 6-9 */
static const ub_field utph_fields[] = {
    [UTPH_LAST] = UBB(utph, last, "TPOpcode[7] (Last)", 0, "§6.2.1", "last TP packet of the operation"),
    [UTPH_OP] = UBU(utph, tpopcode, "TPOpcode", 1, 7, UB_BASE_HEX, ub_vn_tpopcode, "§6.2.1", "0 = unreliable TP packet"),
    [UTPH_VER] = UBU(utph, tpver, "TPVer", 8, 2, UB_BASE_DEC, NULL, "§6.2.1", "0"),
    [UTPH_PAD] = UBU(utph, padding, "Padding", 10, 2, UB_BASE_DEC, NULL, "§6.2.1", ""),
    [UTPH_NLP] = UBU(utph, nlp, "NLP", 12, 4, UB_BASE_DEC, vn_tp_nlp, "§6.2.1", ""),
    [UTPH_RSVD] = UBF(utph, rsvd0, "Reserved", 16, 112, UB_FT_BYTES, UB_BASE_HEX, UB_FF_RSVD, NULL, "§6.2.1 Fig 6-9", "reserved"),
};
UB_HDR_DEF(utph, UB_H_UTPH, "utph", "utph", "Unreliable Transport Header", "§6.2.1 Fig 6-9", 16, utph_fields);

/* §6.2.1 Fig 6-10, R-16: TPOpcode b7:6, Padding b5:4, NLP b3:0 */
static const ub_vname vn_ctp_op[] = { { 0, "CTP data" }, { 1, "CNP" }, { 0, NULL } };
static const ub_field ctph_fields[] = {
    [CTPH_OP] = UBU(ctph, tpopcode, "TPOpcode", 0, 2, UB_BASE_DEC, vn_ctp_op, "§6.2.1, R-16", ""),
    [CTPH_PAD] = UBU(ctph, padding, "Padding", 2, 2, UB_BASE_DEC, NULL, "§6.2.1, R-16", ""),
    [CTPH_NLP] = UBU(ctph, nlp, "NLP", 4, 4, UB_BASE_DEC, vn_ctp_nlp, "§6.2.1 T6-2, R-16", ""),
};
UB_HDR_DEF(ctph, UB_H_CTPH, "ctph", "ctph", "Compact Transport Header", "§6.2.1 Fig 6-10", 1, ctph_fields);

/* §6.2.2 */
static const ub_field cetph_ldcp_fields[] = {
    UBU(cetph, ack_seq, "Ack_Seq", 0, 32, UB_BASE_DEC, NULL, "§6.2.2 T6-3", "cumulative received Sequences (2 B)"),
    UBU(cetph, ce_seq, "Ce_Seq", 32, 32, UB_BASE_DEC, NULL, "§6.2.2 T6-3", "cumulative congestion-marked Sequences"),
};
UB_HDR_DEF(cetph_ldcp, UB_H_CETPH_LDCP, "cetph_ldcp", "cetph", "Congestion Extended TPH (LDCP)", "§6.2.2 Fig 6-11", 8,
           cetph_ldcp_fields);
enum { CQ_ACKSEQ, CQ_RSVD, CQ_LOC, CQ_I, CQ_C, CQ_HINT };
static const ub_field cetph_caqm_fields[] = {
    [CQ_ACKSEQ] = UBU(cetph, ack_seq, "Ack_Seq", 0, 32, UB_BASE_DEC, NULL, "§6.2.2 T6-4", ""),
    [CQ_RSVD] = UBR(cetph, rsvd0, 32, 6, "§6.2.2 T6-4"),
    [CQ_LOC] = UBU(cetph, loc, "Loc", 38, 1, UB_BASE_DEC, vn_cci_loc, "§6.2.2 T6-4", "copied from CCI.Loc"),
    [CQ_I] = UBB(cetph, i, "I", 39, "§6.2.2 T6-4", "copied from CCI.I"),
    [CQ_C] = UBU(cetph, c, "C", 40, 8, UB_BASE_DEC, NULL, "§6.2.2 T6-4", "packets with CCI.C = 1 since the last TPACK"),
    [CQ_HINT] = UBU(cetph, hint, "Hint", 48, 16, UB_BASE_DEC, NULL, "§6.2.2 T6-4, I-26", "granted increments"),
};
UB_HDR_DEF(cetph_caqm, UB_H_CETPH_CAQM, "cetph_caqm", "cetph", "Congestion Extended TPH (CAQM)", "§6.2.2 Fig 6-12", 8,
           cetph_caqm_fields);
/* ns-3-UB D9/D10: bytes 4-7 = Hint(2) C(1) [I:1 Loc:1 rsvd:6] (a host-order bitfield word); Ack_Seq counts bytes */
static const ub_field cetph_caqm_ns3_fields[] = {
    [CQ_ACKSEQ] = UBU(cetph, ack_seq, "Ack_Seq", 0, 32, UB_BASE_DEC, NULL, "§6.2.2 T6-4; ns-3-UB D10", "in bytes (ns-3-UB)"),
    [CQ_RSVD] = UBR(cetph, rsvd0, 58, 6, "§6.2.2 T6-4; ns-3-UB D9"),
    [CQ_LOC] = UBU(cetph, loc, "Loc", 57, 1, UB_BASE_DEC, vn_cci_loc, "§6.2.2 T6-4; ns-3-UB D9", "copied from CCI.Loc"),
    [CQ_I] = UBB(cetph, i, "I", 56, "§6.2.2 T6-4; ns-3-UB D9", "copied from CCI.I"),
    [CQ_C] = UBU(cetph, c, "C", 48, 8, UB_BASE_DEC, NULL, "§6.2.2 T6-4; ns-3-UB D9", "packets with CCI.C = 1 since the last TPACK"),
    [CQ_HINT] = UBU(cetph, hint, "Hint", 32, 16, UB_BASE_DEC, NULL, "§6.2.2 T6-4; ns-3-UB D9", "granted increments"),
};
UB_HDR_VAR(cetph_caqm_ns3, UB_H_CETPH_CAQM, UB_V_CETPH_CAQM_NS3, "cetph_caqm_ns3", "cetph",
           "Congestion Extended TPH (CAQM, ns-3-UB)", "§6.2.2; ns-3-UB D9, D10", 8, cetph_caqm_ns3_fields);
static const ub_vname vn_cnp_ecn[] = { { 0, "no congestion" }, { 1, "light" }, { 3, "heavy" }, { 0, NULL } };
static const ub_field cetph_cnp_fields[] = {
    UBU(cetph, ecn, "ECN", 0, 2, UB_BASE_DEC, vn_cnp_ecn, "§6.2.2 T6-5, I-18", ""),
    UBU(cetph, loc, "Loc", 2, 1, UB_BASE_DEC, vn_cci_loc, "§6.2.2 T6-5", ""),
    UBR(cetph, rsvd0, 3, 5, "§6.2.2 T6-5"),
    UBF(cetph, rsvd1, "Reserved", 8, 120, UB_FT_BYTES, UB_BASE_HEX, UB_FF_RSVD, NULL, "§6.2.2 T6-5", "reserved"),
};
UB_HDR_DEF(cetph_cnp, UB_H_CETPH_CNP, "cetph_cnp", "cetph", "Congestion Extended TPH (CNP)", "§6.2.2 Fig 6-13", 16,
           cetph_cnp_fields);

/* §6.2.3 Fig 6-14, Table 6-6; bitmap bit order R-18 (see ub_opts.bitmap_order) */
static const ub_vname vn_bitmapsize[] = { { 0, "64 bits" }, { 1, "128 bits" }, { 2, "256 bits" }, { 3, "512 bits" },
                                          { 4, "1024 bits" }, { 0, NULL } };
static const ub_field saetph_fields[] = {
    [SAE_RSVD] = UBR(saetph, rsvd0, 0, 5, "§6.2.3"),
    [SAE_SIZE] = UBU(saetph, bitmapsize, "BitMapSize", 5, 3, UB_BASE_DEC, vn_bitmapsize, "§6.2.3 T6-6, I-25", ""),
    [SAE_MAXRCV] = UBU(saetph, maxrcvpsn, "MaxRcvPSN", 8, 24, UB_BASE_DEC, NULL, "§6.2.3", "largest PSN seen"),
    [SAE_BITMAP] = UBY(saetph, bitmap, "BitMap", 32, 0, "§6.2.3, R-18", "bit i = PSN RTPH.PSN + i received"),
};
UB_HDR_DEF(saetph, UB_H_SAETPH, "saetph", "saetph", "Selective Ack Extended TPH", "§6.2.3 Fig 6-14", 0, saetph_fields);

static const ub_field tppad_fields[] = {
    UBF(tppad, padding, "Padding", 0, 0, UB_FT_BYTES, UB_BASE_HEX, UB_FF_RSVD, NULL, "§6.2.1 T6-2", "zero bytes"),
};
UB_HDR_DEF(tppad, UB_H_TPPAD, "tppad", "tppad", "TP padding", "Table 6-2", 0, tppad_fields);

/* ================================================================ UPIH / EIDH / CIPH / ICV */
static const ub_field upih16_fields[] = {
    [UPIH_RSVD] = UBR(upih, rsvd0, 0, 1, "B.3 Fig B-14"),
    [UPIH_UPI] = UBU(upih, upi, "UPI", 1, 15, UB_BASE_HEX, NULL, "B.3 T B-2", "0x7FFF = UBFM"),
};
UB_HDR_DEF(upih16, UB_H_UPIH16, "upih16", "upih", "UPI Header (16-bit)", "App. B.3 Fig B-14", 2, upih16_fields);
static const ub_field upih32_fields[] = {
    [UPIH_RSVD] = UBR(upih, rsvd0, 0, 8, "B.3 Fig B-13"),
    [UPIH_UPI] = UBU(upih, upi, "UPI", 8, 24, UB_BASE_HEX, NULL, "B.3 T B-2", ""),
};
UB_HDR_DEF(upih32, UB_H_UPIH32, "upih32", "upih", "UPI Header (32-bit)", "App. B.3 Fig B-13", 4, upih32_fields);
static const ub_field eidh40_fields[] = {
    [EIDH_SEID] = UBU(eidh, seid, "SEID", 0, 20, UB_BASE_HEX, NULL, "B.4 Fig B-16", "source EID (compact)"),
    [EIDH_DEID] = UBU(eidh, deid, "DEID", 20, 20, UB_BASE_HEX, NULL, "B.4 Fig B-16", "destination EID (compact)"),
};
UB_HDR_DEF(eidh40, UB_H_EIDH40, "eidh40", "eidh", "EID Header (20-bit EIDs)", "App. B.4 Fig B-16", 5, eidh40_fields);
static const ub_field eidh256_fields[] = {
    [EIDH_SEID] = UBF(eidh, seid, "SEID", 0, 128, UB_FT_IPV6, UB_BASE_HEX, 0, NULL, "B.4 Fig B-15", "source EID (128-bit)"),
    [EIDH_DEID] = UBF(eidh, deid, "DEID", 128, 128, UB_FT_IPV6, UB_BASE_HEX, 0, NULL, "B.4 Fig B-15", "destination EID (128-bit)"),
};
UB_HDR_DEF(eidh256, UB_H_EIDH256, "eidh256", "eidh", "EID Header (128-bit EIDs)", "App. B.4 Fig B-15", 32, eidh256_fields);

/* §11.5.2.3, R-21: CIP ID B0-1, SN B2-5, NLP B6 b7:4, reserved rest (8 bytes) */
static const ub_vname vn_ciph_nlp[] = { { 0, "UPIH32 + EIDH256 + TAH" }, { 1, "UPIH16 + EIDH40 + TAH" }, { 2, "TAH" }, { 0, NULL } };
static const ub_field ciph_fields[] = {
    [CIPH_ID] = UBU(ciph, cip_id, "CIP ID", 0, 16, UB_BASE_HEX, NULL, "§11.5.2.3, R-21", "CIP policy index"),
    [CIPH_SN] = UBU(ciph, sn, "SN", 16, 32, UB_BASE_DEC, NULL, "§11.5.2.3, R-21", "anti-replay sequence number"),
    [CIPH_NLP] = UBU(ciph, nlp, "NLP", 48, 4, UB_BASE_DEC, vn_ciph_nlp, "§11.5.2.3, R-21", ""),
    [CIPH_RSVD] = UBR(ciph, rsvd0, 52, 12, "R-21"),
};
UB_HDR_DEF(ciph, UB_H_CIPH, "ciph", "ciph", "CIP Security Header", "§11.5.2.3", 8, ciph_fields);
static const ub_field icv_fields[] = {
    UBY(icv, icv, "ICV", 0, 0, "§11.5.2.4, R-22", "integrity check value (opaque)"),
};
UB_HDR_DEF(icv, UB_H_ICV, "icv", "icv", "Integrity Check Value", "§11.5.2.4", 0, icv_fields);
static const ub_field opaque_fields[] = {
    UBY(opaque, data, "Protected data", 0, 0, "§11.5.2.2", "CIP-protected (possibly encrypted) bytes"),
};
UB_HDR_DEF(opaque, UB_H_OPAQUE, "opaque", "opaque", "CIP-protected data", "§11.5", 0, opaque_fields);

/* ================================================================ decoding */

static const ub_layer *push_fixed(ub_dec *d, unsigned id, uint32_t off)
{
    return ub_push(d, id, off, ub_hdr_fast(id)->len);
}

static bool complete(const ub_layer *l)
{
    return l && !(l->flags & UB_LF_TRUNC);
}


/* CCI overlay inside an NTH (§5.3.5.1) */
static void push_cci(ub_dec *d, uint32_t off)
{
    if (off + 2 > d->len) return;
    uint64_t mode = ub_row_at(d->p + off, &cci_caqm_fields[CCI_MODE]);
    d->depth++;
    ub_layer *l = mode == 0 ? UB_PUSH_FIXED(d, cci_caqm, off) /* the id a constant in each push */
                  : mode == 4 ? UB_PUSH_FIXED(d, cci_fecn, off)
                  : mode == 2 ? UB_PUSH_FIXED(d, cci_fecn_rtt, off) : UB_PUSH_FIXED(d, cci_rsvd, off);
    if (l) l->flags |= UB_LF_OVERLAY;
    d->depth--;
    if (mode != 0 && mode != 4 && mode != 2) ub_error(d, UB_E_RSVD_VALUE, UB_H_CCI_RSVD, off, mode, 0, "ub.cci.mode"); /* NW-02 */
}

/* The OR pattern of the ICRC masks that apply (in order, inside [start, end)) over the head: the CRC
 * sets them to ones in registers (ub_crc32_or), no copy of the packet. Per mask two 4-byte stores, its
 * value at the mask and zeros right after it (where no later mask wrote yet). False: a mask the pattern
 * does not hold (none in any header today). */
bool ub_icrc_orm(uint32_t start, uint32_t end, const icrc_mask *m, unsigned nm, uint8_t orm[UB_CRC_ORM_LEN])
{
    memset(orm, 0, UB_CRC_ORM_LEN);
    uint32_t pos = start;
    for (unsigned i = 0; i < nm; i++) {
        uint32_t mo = start + m[i].off, ml = m[i].len;
        if (mo < pos || mo + ml > end) continue;
        if (mo + ml - start > UB_CRC_ORM_SPAN || ml > 4) return false;
        uint32_t w = (uint32_t)(uint8_t)~m[i].keep_mask * 0x01010101u, zero = 0;
        memcpy(orm + (mo - start), &w, 4);
        memcpy(orm + (mo - start) + ml, &zero, 4);
        pos = mo + ml;
    }
    return true;
}

/* ICRC over [start,end) with byte ranges masked to all ones (§5.3.7) */
uint32_t ub_icrc_calc(const uint8_t *p, uint32_t start, uint32_t end, const icrc_mask *m, unsigned nm)
{
    uint8_t orm[UB_CRC_ORM_LEN];
    uint32_t crc = 0, pos;
    unsigned i;
    if (ub_icrc_orm(start, end, m, nm, orm)) return ub_crc32_or(p + start, end - start, orm);
    /* a mask the pattern does not hold (none in any header today): byte by byte */
    pos = start;
    for (i = 0; i < nm; i++) {
        uint32_t mo = start + m[i].off;
        if (mo < pos || mo + m[i].len > end) continue;
        crc = ub_crc32(crc, p + pos, mo - pos);
        for (uint32_t k = 0; k < m[i].len; k++) {
            uint8_t b = (uint8_t)((p[mo + k] & m[i].keep_mask) | (uint8_t)~m[i].keep_mask);
            crc = ub_crc32(crc, &b, 1);
        }
        pos = mo + m[i].len;
    }
    return ub_crc32(crc, p + pos, end - pos);
}

/* The ICRC layer: computed over [start,end), carried at end..end+3. */
static void push_icrc(ub_dec *d, uint32_t start, uint32_t end, const icrc_mask *m, unsigned nm)
{
    ub_layer *l = ub_push(d, UB_H_ICRC, end, 4);
    if (!l) return;
    if (l->flags & UB_LF_TRUNC) { l->status = UB_CK_UNVERIFIED; return; }
    uint32_t crc = ub_icrc_calc(d->p, start, end, m, nm);
    /* what the stack templates (tmpl.c) replay: the masks, the range, the buffer */
    d->ic.layer = (uint16_t)d->v->nlayers;
    d->ic.netbuf = (d->lflags & UB_LF_NETBUF) != 0;
    d->ic.nm = (uint8_t)(nm <= 4 ? nm : 0);
    d->ic.start = start;
    d->ic.end = end;
    d->ic.p = d->p;
    if (nm <= 4) memcpy(d->ic.m, m, nm * sizeof *m);
    else d->ic.layer = 0;
    const uint8_t *ic = d->p + end;
    uint32_t be = ((uint32_t)ic[0] << 24) | ((uint32_t)ic[1] << 16) | ((uint32_t)ic[2] << 8) | ic[3];
    uint32_t le = __builtin_bswap32(be);
    l->aux = crc;
    if (crc == le) { l->status = UB_CK_GOOD; l->variant = 1; }       /* R-15 default: little-endian */
    else if (crc == be) { l->status = UB_CK_GOOD; l->variant = 2; }  /* R-15 alternative */
    else {
        l->status = UB_CK_BAD;
        ub_error(d, UB_E_ICRC_BAD, UB_H_ICRC, end, le, crc, "ub.icrc.icrc");
    }
}

/* NTH-based ICRC masks: CCI and LBF (§5.3.7) */
static void push_icrc_nth(ub_dec *d, uint32_t end, bool nth24)
{
    const ub_field *f = nth24 ? nth24_fields : nth16_fields;
    unsigned ci = nth24 ? NTH24_CCI : NTH16_CCI, li = nth24 ? NTH24_LBF : NTH16_LBF;
    icrc_mask m[2] = { { f[ci].bit_off / 8, 2, 0 }, { f[li].bit_off / 8, 1, 0 } };
    push_icrc(d, 0, end, m, 2);
}

static void push_data(ub_dec *d, unsigned id, uint32_t off, uint32_t end)
{
    if (end > off) ub_push(d, id, off, end - off);
}

/* UPIH + EIDH pair selected by an NLP */
static uint32_t dec_upi_eid(ub_dec *d, uint32_t off, bool compact)
{
    const ub_layer *u = compact ? UB_PUSH_FIXED(d, upih16, off) : UB_PUSH_FIXED(d, upih32, off);
    if (!complete(u)) return UINT32_MAX;
    off += u->len;
    const ub_layer *e = compact ? UB_PUSH_FIXED(d, eidh40, off) : UB_PUSH_FIXED(d, eidh256, off);
    if (!complete(e)) return UINT32_MAX;
    return off + e->len;
}

/* TP data packet body after the TPH: [off, end) holds [UPI/EID] TAH .. payload, padding, [ICV]. */
UB_INLINE void dec_tp_body(ub_dec *d, uint32_t tph_off, uint32_t off, uint32_t end, unsigned nlp, bool ctp)
{
    unsigned pad = d->tp_padding;
    bool cip = nlp == 3;
    uint32_t icv = cip ? d->o->icv_len : 0;
    /* Payload, Padding, ICV, (ICRC) */
    if (end < off + pad + icv) {
        ub_error(d, UB_E_LENGTH, UB_H_TPPAD, off, end - off, pad + icv, "padding/ICV longer than the packet");
        return;
    }
    uint32_t icv_off = end - icv, pad_off = icv_off - pad;
    if (((end - icv) - tph_off) % 4 != 0 && !(d->pf & UB_PF_TP_PAD_UNSET)) /* TP-10 */
        ub_error(d, UB_E_TP_ALIGN, ctp ? UB_H_CTPH : UB_H_RTPH, tph_off, (end - icv) - tph_off, pad, "ub.tppad");
    uint32_t ta = off;
    switch (nlp) {
    case 0: break;
    case 1: ta = dec_upi_eid(d, off, false); break;
    case 2:
        if (!ctp) { ub_error(d, UB_E_UNKNOWN_NLP, UB_H_RTPH, tph_off + 1, nlp, 0, "ub.rtph.nlp"); ta = UINT32_MAX; break; }
        ta = dec_upi_eid(d, off, true);
        break;
    case 3: {
        const ub_layer *c = UB_PUSH_FIXED(d, ciph, off);
        if (!complete(c)) return;
        unsigned cn = (unsigned)UB_LROW(c, ciph_fields, CIPH_NLP);
        ta = off + c->len;
        if (cn == 0) ta = dec_upi_eid(d, ta, false);
        else if (cn == 1) ta = dec_upi_eid(d, ta, true);
        else if (cn != 2) { ub_error(d, UB_E_UNKNOWN_NLP, UB_H_CIPH, off + 6, cn, 0, "ub.ciph.nlp"); ta = UINT32_MAX; }
        if (ta != UINT32_MAX && !d->o->cip_decode_inner) {
            ub_error(d, UB_E_ENCRYPTED, UB_H_CIPH, ta, 0, 0, "CIP-protected TAH and payload shown opaque");
            push_data(d, UB_H_OPAQUE, ta, pad_off);
            ta = UINT32_MAX;
        }
        break;
    }
    default:
        ub_error(d, UB_E_UNKNOWN_NLP, ctp ? UB_H_CTPH : UB_H_RTPH, tph_off + (ctp ? 0 : 1), nlp, 0, "nlp");
        push_data(d, UB_H_DATA, off, pad_off);
        ta = UINT32_MAX;
    }
    if (ta != UINT32_MAX && ta <= pad_off) ub_dec_tah(d, ta, pad_off);
    if (pad) push_data(d, UB_H_TPPAD, pad_off, icv_off);
    if (icv) push_data(d, UB_H_ICV, icv_off, end);
}

/* Transport acks / CNP bodies (§6.2, Figs 6-3..6-7) */
static void dec_ack_body(ub_dec *d, uint32_t off, uint32_t end, unsigned op)
{
    unsigned cc = d->o->cetph_variant || (d->pf & UB_PF_CETPH_CAQM) ? UB_H_CETPH_CAQM : UB_H_CETPH_LDCP; /* */
    if (op == 0x3 || op == 0x6) {
        const ub_layer *c = push_fixed(d, cc, off);
        if (!complete(c)) return;
        off += c->len;
    } else if (op == 0x8) {
        const ub_layer *c = push_fixed(d, UB_H_CETPH_CNP, off);
        if (!complete(c)) return;
        off += c->len;
    }
    if (op == 0x5 || op == 0x6) {
        uint64_t size = 0;
        const ub_field *sf = &saetph_fields[SAE_SIZE];
        ub_rd_bits(d->p + off, ub_dec_avail(d, off, end), sf->bit_off, sf->bits, &size);
        uint32_t n = size <= 4 ? (64u << size) / 8 : 0;
        if (size > 4) ub_error(d, UB_E_RSVD_VALUE, UB_H_SAETPH, off, size, 0, "ub.saetph.bitmapsize");
        ub_layer *s = ub_push(d, UB_H_SAETPH, off, 4 + n);
        if (!s) return;
        if (s->len < 4 + n) {
            ub_error(d, UB_E_TRUNCATED, UB_H_SAETPH, off + s->len, s->len, 4 + n, "saetph");
            return;
        }
        off += s->len;
    }
    if ((d->pf & UB_PF_ACK_ATAH) && op != 0x8 && end >= off + 8) { /* ns-3-UB D13: an ATAH closes every ack */
        const ub_layer *a = push_fixed(d, UB_H_ATAH, off);
        if (!complete(a)) return;
        off += a->len;
    }
    if (off < end) {
        ub_error(d, UB_E_TRAILING, UB_H_RTPH, off, end - off, 0, "bytes after the transport ack");
        push_data(d, UB_H_DATA, off, end);
    }
}

void ub_dec_tph(ub_dec *d, uint32_t off, uint32_t end)
{
    /* RTPH and UTPH share bytes 0-1 (§6.2.1): read them through the RTPH rows (the ns-3-UB RTPH
     * table is made of the same rows, RTPH_ROWS) */
    unsigned op7 = ub_dec_avail(d, off, end) ? (unsigned)ub_row_at(d->p + off, &rtph_fields[RTPH_OP]) : 0;
    unsigned id = op7 == 0 ? UB_H_UTPH : UB_H_RTPH;
    const ub_layer *t = op7 == 0 ? UB_PUSH_FIXED(d, utph, off) : UB_PUSH_FIXED(d, rtph, off);
    d->tph_off = off;
    if (!complete(t)) return;
    d->tp_kind = op7 == 0 ? UB_TP_UTP : UB_TP_RTP;
    unsigned ver = (unsigned)ub_row_at(t->data, &rtph_fields[RTPH_VER]);
    unsigned nlp = (unsigned)ub_row_at(t->data, &rtph_fields[RTPH_NLP]);
    d->tp_padding = (uint8_t)ub_row_at(t->data, &rtph_fields[RTPH_PAD]);
    if (ver != 0) ub_error(d, UB_E_VALUE, id, off + 1, ver, 0, "ub.rtph.tpver"); /* TP-01 */
    uint32_t body = off + 16;
    switch (op7) {
    case 0x0:
    case 0x1: {
        if (id == UB_H_RTPH && ub_row_at(t->data, &rtph_fields[RTPH_RSPST]) | ub_row_at(t->data, &rtph_fields[RTPH_RSPINFO])) /* TP-12, §10.6 h */
            ub_error(d, UB_E_RSVD_BITS, id, off + 12, ub_row_at(t->data, &rtph_fields[RTPH_RSPST]), 0, "ub.rtph.rspst in a data packet");
        dec_tp_body(d, off, body, end, nlp, false);
        return;
    }
    case 0x4: /* ns-3-UB D14: NAK */
        if (!(d->pf & UB_PF_TPOP4_NAK)) goto reserved;
        /* FALLTHROUGH */
    case 0x2: case 0x3: case 0x5: case 0x6: case 0x8: {
        unsigned rspst = (unsigned)ub_row_at(t->data, &rtph_fields[RTPH_RSPST]);
        unsigned info = (unsigned)ub_row_at(t->data, &rtph_fields[RTPH_RSPINFO]);
        if (rspst == 4 || rspst >= 6) ub_error(d, UB_E_RSVD_VALUE, id, off + 12, rspst, 0, "ub.rtph.rspst");
        else if ((rspst == 1 || rspst == 2) && info > 19) ub_error(d, UB_E_VALUE, id, off + 12, info, 19, "RNR_Timer > 19");
        else if (rspst == 3 && info > 2) ub_error(d, UB_E_RSVD_VALUE, id, off + 12, info, 2, "ub.rtph.rspinfo");
        else if (rspst == 5 && info > 2) ub_error(d, UB_E_RSVD_VALUE, id, off + 12, info, 2, "ub.rtph.rspinfo");
        if ((op7 == 0x5 || op7 == 0x6) && (rspst || info)) ub_error(d, UB_E_VALUE, id, off + 12, rspst, 0, "TPSACK RSPST/RSPINFO must be 0");
        dec_ack_body(d, body, end, (unsigned)op7);
        return;
    }
    default:
    reserved:
        ub_error(d, UB_E_UNKNOWN_TPOPCODE, id, off, op7, 0, "ub.rtph.tpopcode");
        push_data(d, UB_H_DATA, body, end);
    }
}

/* CTPH (§6.2.1 Fig 6-10) and what follows; end excludes the ICRC */
UB_INLINE void dec_ctph(ub_dec *d, uint32_t off, uint32_t end)
{
    const ub_layer *t = UB_PUSH_FIXED(d, ctph, off);
    d->tph_off = off;
    if (!complete(t)) return;
    d->tp_kind = UB_TP_CTP;
    unsigned op = (unsigned)UB_LROW(t, ctph_fields, CTPH_OP), nlp = (unsigned)UB_LROW(t, ctph_fields, CTPH_NLP);
    d->tp_padding = (uint8_t)UB_LROW(t, ctph_fields, CTPH_PAD);
    if (op == 0) {
        dec_tp_body(d, off, off + 1, end, nlp, true);
    } else if (op == 1) { /* CNP over CTP, R-20 */
        const ub_layer *c = push_fixed(d, UB_H_CETPH_CNP, off + 1);
        uint32_t after = off + 17;
        if (complete(c) && after < end) {
            if (end - after == d->tp_padding) { /* Table 6-2 padding to a 4-byte multiple */
                push_data(d, UB_H_TPPAD, after, end);
            } else {
                ub_error(d, UB_E_TRAILING, UB_H_CETPH_CNP, after, end - after, d->tp_padding, "bytes after the CNP");
                push_data(d, UB_H_DATA, after, end);
            }
        }
    } else {
        ub_error(d, UB_E_UNKNOWN_TPOPCODE, UB_H_CTPH, off, op, 0, "ub.ctph.tpopcode"); /* TP-01 */
        push_data(d, UB_H_DATA, off + 1, end);
    }
}

static void dec_nth16(ub_dec *d, int cfg)
{
    const ub_layer *n = UB_PUSH_FIXED(d, nth16, 0);
    if (!n) return;
    if (!(d->pf & UB_PF_CCI_GARBAGE)) push_cci(d, nth16_fields[NTH16_CCI].bit_off / 8); /* ns-3-UB D6 */
    if (!complete(n)) return;
    unsigned nlp = (unsigned)ub_row_at(n->data, &nth16_fields[NTH16_NLP]); /* the same row in NTH16_ROWS tables */
    uint32_t off = n->len;
    if (cfg == 9) { /* TP bypass: TAH directly, no ICRC (App. B.2.6) */
        if (ub_row_at(n->data, &nth16_fields[NTH16_MGMT])) ub_error(d, UB_E_VALUE, UB_H_NTH16, 7, 1, 0, "ub.nth.mgmt must be 0 in CFG 9"); /* NW-01 */
        if (nlp != 0) {
            ub_error(d, UB_E_UNKNOWN_NLP, UB_H_NTH16, 7, nlp, 0, "ub.nth.nlp");
            push_data(d, UB_H_DATA, off, d->wlen);
            return;
        }
        ub_dec_tah(d, off, d->wlen);
        return;
    }
    if (nlp == 0) { /* CTPH, ICRC */
        if (d->wlen < off + 4) {
            ub_error(d, UB_E_TRUNCATED, UB_H_ICRC, d->wlen, d->wlen, off + 4, "icrc");
            dec_ctph(d, off, d->wlen);
            return;
        }
        dec_ctph(d, off, d->wlen - 4);
        push_icrc_nth(d, d->wlen - 4, false);
    } else if (nlp == 1) { /* enumeration (§10.4.3.1): UPIH16, 2 B padding, Scan Header, Scan PDU, [ICRC] */
        const ub_layer *u = UB_PUSH_FIXED(d, upih16, off);
        if (!complete(u)) return;
        uint32_t e = ub_dec_enum(d, off + 2, d->wlen);
        if (e > d->wlen) e = d->wlen;
        uint32_t rem = d->wlen - e;
        bool icrc = d->o->icrc_enum == 1 || (d->o->icrc_enum == 0 && rem == 4); /* */
        if (icrc && rem >= 4) {
            push_icrc_nth(d, e, false);
            e += 4;
        }
        if (e < d->wlen) push_data(d, UB_H_DATA, e, d->wlen); /* ub_dec_enum reported the length mismatch */
    } else {
        ub_error(d, UB_E_UNKNOWN_NLP, UB_H_NTH16, 7, nlp, 0, "ub.nth.nlp"); /* NW-01 */
        push_data(d, UB_H_DATA, off, d->wlen);
    }
}

static void dec_nth24(ub_dec *d)
{
    const ub_layer *n = UB_PUSH_FIXED(d, nth24, 0);
    if (!n) return;
    if (!(d->pf & UB_PF_CCI_GARBAGE)) push_cci(d, nth24_fields[NTH24_CCI].bit_off / 8); /* ns-3-UB D7 */
    if (!complete(n)) return;
    unsigned nlp = (unsigned)ub_row_at(n->data, &nth24_fields[NTH24_NLP]); /* the same row in NTH24_ROWS tables */
    uint32_t off = n->len;
    if (nlp != 0 && nlp != 2) {
        ub_error(d, UB_E_UNKNOWN_NLP, UB_H_NTH24, 9, nlp, 0, "ub.nth.nlp"); /* NW-01 */
        push_data(d, UB_H_DATA, off, d->wlen);
        return;
    }
    uint32_t end = d->wlen >= off + 4 ? d->wlen - 4 : d->wlen;
    if (nlp == 0) dec_ctph(d, off, end);
    else ub_dec_tph(d, off, end);
    if (end + 4 <= d->wlen) push_icrc_nth(d, end, true);
    else ub_error(d, UB_E_TRUNCATED, UB_H_ICRC, d->wlen, d->wlen, off + 4, "icrc");
}

/* ---------------------------------------------------------------- UB over IP/UDP: the claim rule */
bool ub_udp_port_is_ub(const ub_opts *o, unsigned dport)
{
    if (o->udp_port && dport == o->udp_port) return true;
    for (unsigned i = 0; i < o->n_udp_more && i < UB_UDP_MORE; i++)
        if (o->udp_more[i] && dport == o->udp_more[i]) return true;
    return false;
}
enum { UDP_PORT_ROCEV2 = 4791 }; /* IANA; never claimed by the heuristic */

/* Decoder state a speculative decode may change (restored when the heuristic says no) */
typedef struct dec_mark {
    uint16_t nlayers, nerrs, errs_dropped;
    uint8_t tp_kind, tp_padding, tah_fmt;
    uint32_t tph_off;
} dec_mark;
static void mark_take(const ub_dec *d, dec_mark *m)
{
    *m = (dec_mark){ d->v->nlayers, d->v->nerrs, d->v->errs_dropped, d->tp_kind, d->tp_padding, d->v->tah_fmt, d->tph_off };
}
static void mark_restore(ub_dec *d, const dec_mark *m)
{
    d->v->nlayers = m->nlayers;
    d->v->nerrs = m->nerrs;
    d->v->errs_dropped = m->errs_dropped;
    d->tp_kind = m->tp_kind;
    d->tp_padding = m->tp_padding;
    d->v->tah_fmt = m->tah_fmt;
    d->tph_off = m->tph_off;
}
/* Nothing above a note since the mark (and no layer or error dropped for lack of room) */
static bool clean_since(const ub_dec *d, const dec_mark *m)
{
    const ub_view *v = d->v;
    if (v->errs_dropped != m->errs_dropped || v->nlayers > UB_MAX_LAYERS) return false;
    for (unsigned i = m->nerrs; i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        if (!ei || ei->severity >= UB_SEV_WARN) return false;
    }
    return true;
}

/* TCP's header at l4: its 20 fixed bytes (options, to the data offset, in no layer; quoted: as much as
 * the quote holds, no truncation error); where its payload starts, end when the header is cut */
static uint32_t dec_tcp(ub_dec *d, uint32_t l4, uint32_t end, bool quoted)
{
    const ub_layer *t = quoted ? ub_push_in(d, UB_H_TCP, l4, ub_hdr_tcp.len, end, false) : UB_PUSH_FIXED(d, tcp, l4);
    if (!complete(t)) return end;
    const uint32_t hl = (uint32_t)UB_LROW(t, tcp_fields, TCP_DOFF) * 4u;
    return l4 + (hl < 20 ? 20 : hl);
}

/* One IP extension header of protocol number nh at p (avail bytes there), as Wireshark walks them to the
 * upper-layer protocol: IPv6 (v6) hop-by-hop options 0, routing 43, fragment 44, destination options 60;
 * either version the Authentication Header 51. Its table, length (RFC 8200 §4: 8 × (1 + Hdr Ext Len), the
 * fragment header 8; RFC 4302: 4 × (2 + Payload Len)), next header, and whether it is a fragment's (an
 * offset or More Fragments: no header after it). False: nh is none of them, or its bytes are not there. */
bool ub_ip_ext_at(bool v6, unsigned nh, const uint8_t *p, uint32_t avail, ub_ip_ext *x)
{
    _Static_assert((int)IP6X_NXT == 0 && (int)IP6FR_NXT == 0 && (int)AH_NXT == 0, "next header: the first row");
    const ub_field *f = nh == 0 ? ip6_hopopts_fields : nh == 43 ? ip6_routing_fields : nh == 44 ? ip6_fraghdr_fields
                      : nh == 60 ? ip6_dstopts_fields : nh == 51 ? ah_fields : NULL;
    uint64_t next, hl = 0, off = 0, more = 0;
    if (!f || (!v6 && nh != 51) || !ub_rd_bits(p, avail, f[0].bit_off, f[0].bits, &next)) return false;
    if (nh == 44 && (!ub_rd_bits(p, avail, f[IP6FR_OFFSET].bit_off, f[IP6FR_OFFSET].bits, &off) ||
                     !ub_rd_bits(p, avail, f[IP6FR_MORE].bit_off, f[IP6FR_MORE].bits, &more)))
        return false;
    if (nh != 44 && !ub_rd_bits(p, avail, f[1].bit_off, f[1].bits, &hl)) return false; /* IP6X_LEN, AH_LEN */
    x->id = nh == 0 ? UB_H_IP6_HOPOPTS : nh == 43 ? UB_H_IP6_ROUTING : nh == 44 ? UB_H_IP6_FRAGHDR : nh == 60 ? UB_H_IP6_DSTOPTS : UB_H_AH;
    x->next = (unsigned)next;
    x->len = nh == 51 ? 4u * (2u + (uint32_t)hl) : nh == 44 ? 8u : 8u * (1u + (uint32_t)hl);
    x->frag = off || more;
    return true;
}

/* The upper-layer protocol of the IP packet of version ver at p (n bytes) and its offset, through its
 * extension headers as far as the n bytes go; false when p is no such IP header */
static bool ip_upper(const uint8_t *p, uint32_t n, unsigned ver, uint32_t *l4, unsigned *proto)
{
    uint64_t vv = 0, ihl = 0, pr = 0, mf = 0, fo = 0;
    const ub_field *f = ver == 6 ? ipv6_fields : ipv4_fields;
    if (!ub_rd_bits(p, n, f[IP4_VERSION].bit_off, 4, &vv) || vv != ver) return false;
    if (ver == 6) {
        if (n < 40 || !ub_rd_bits(p, n, f[IP6_NH].bit_off, f[IP6_NH].bits, &pr)) return false;
        *l4 = 40;
    } else {
        if (n < 20 || !ub_rd_bits(p, n, f[IP4_IHL].bit_off, f[IP4_IHL].bits, &ihl) || ihl < 5) return false;
        ub_rd_bits(p, n, f[IP4_PROTO].bit_off, f[IP4_PROTO].bits, &pr);
        ub_rd_bits(p, n, f[IP4_MF].bit_off, f[IP4_MF].bits, &mf);
        ub_rd_bits(p, n, f[IP4_FRAG].bit_off, f[IP4_FRAG].bits, &fo);
        *l4 = (uint32_t)ihl * 4u;
    }
    *proto = (unsigned)pr;
    ub_ip_ext x;
    for (unsigned k = 0; k < UB_IP_EXT_MAX && !mf && !fo && *l4 < n && ub_ip_ext_at(ver == 6, *proto, p + *l4, n - *l4, &x) &&
                         x.len <= n - *l4 && !x.frag;
         k++) {
        *proto = x.next;
        *l4 += x.len;
    }
    return true;
}

int32_t ub_ip_before(const uint8_t *frame, uint32_t l4, unsigned ver, unsigned proto)
{
    /* extension headers are multiples of 4 bytes (IPv6's of 8), each at most 2,048 */
    for (uint32_t back = ver == 6 ? 40 : 20; back <= l4 && back <= 40u + 2048u * UB_IP_EXT_MAX; back += 4) {
        uint32_t at;
        unsigned pr;
        if (ip_upper(frame + l4 - back, back, ver, &at, &pr) && at == back && pr == proto) return (int32_t)(l4 - back);
    }
    return -1;
}

/* The extension headers after the IP header, from *l4 to end (ub_ip_ext_at): a layer each, then *proto is
 * the upper-layer protocol and *l4 where it starts; *frag when a fragment header says the datagram is
 * not whole. A header cut short (by its datagram or the capture) ends the walk: *proto 256 (none). */
static void dec_ip_ext(ub_dec *d, bool v6, unsigned *proto, uint32_t *l4, uint32_t end, bool *frag)
{
    ub_ip_ext x;
    for (unsigned n = 0; n < UB_IP_EXT_MAX && !*frag && *l4 < end && ub_ip_ext_at(v6, *proto, d->p + *l4, ub_dec_avail(d, *l4, end), &x);
         n++) {
        if (!complete(ub_push_in(d, x.id, *l4, x.len, end, false))) {
            *proto = 256;
            *l4 = end;
            return;
        }
        *proto = x.next;
        *frag = x.frag;
        *l4 += x.len;
    }
}

/* The UB transport and transaction headers of a quoted UB datagram (UDP payload at off; the datagram's
 * IP packet ends at ip_end by its length field, the quote at end): the quote is the datagram's first
 * bytes, so it is decoded as a record cut by the snapshot length is (§5.2.3 App. E; no error for what
 * was not quoted, nor an ICRC). Returns where the decoded bytes stop. */
static uint32_t dec_quoted_ub(ub_dec *d, uint32_t off, uint32_t ip_end, uint32_t end)
{
    const uint32_t len = d->len, wlen = d->wlen;
    if (d->len > end) d->len = end;
    d->wlen = ip_end > end ? ip_end : end;
    const uint32_t uend = ip_end < end ? ip_end : d->wlen;
    d->quoted_ub = true;
    ub_dec_tph(d, off, uend);
    d->len = len;
    d->wlen = wlen;
    return uend < end ? uend : end;
}

/* The datagram an ICMP / ICMPv6 error quotes (RFC 792; RFC 4443 §2.4 c), from q to end: its IP header
 * and UDP's or TCP's (as much as was quoted), as Wireshark's ICMP dissectors show them, one level down
 * and marked UB_LF_QUOTED (not the frame's own: no column, summary, conversation or state engine reads
 * them). UDP to a UB port goes on into UB's headers as Wireshark's UDP dissector hands the quote to the
 * UB plugin; the rest is data, nothing taken for a neighbour. Not an IP header of the message's
 * version: data. */
static void dec_quoted(ub_dec *d, bool v6, uint32_t q, uint32_t end)
{
    const uint8_t sdepth = d->depth, sflags = d->lflags;
    d->depth++;
    d->lflags |= UB_LF_QUOTED;
    _Static_assert((int)IP4_VERSION == (int)IP6_VERSION, "the version nibble: one row index");
    const unsigned ver = (unsigned)ub_peek(d, v6 ? &ub_hdr_ipv6 : &ub_hdr_ipv4, IP4_VERSION, q, end); /* 0 when absent */
    unsigned proto = 256; /* none */
    uint32_t l4 = q, ip_end = q; /* ip_end: where the quoted datagram ends by its length field */
    if (ver == (v6 ? 6u : 4u)) {
        const ub_layer *ip = v6 ? ub_push_in(d, UB_H_IPV6, q, 40, end, false) : ub_push_in(d, UB_H_IPV4, q, 20, end, false);
        l4 = end;
        if (ip && complete(ip)) {
            const unsigned ihl = v6 ? 10u : (unsigned)UB_LROW(ip, ipv4_fields, IP4_IHL);
            if (ihl >= 5) {
                l4 = q + ihl * 4u;
                proto = v6 ? (unsigned)UB_LROW(ip, ipv6_fields, IP6_NH) : (unsigned)UB_LROW(ip, ipv4_fields, IP4_PROTO);
                ip_end = q + (v6 ? 40u + (uint32_t)UB_LROW(ip, ipv6_fields, IP6_PLEN) : (uint32_t)UB_LROW(ip, ipv4_fields, IP4_TOTLEN));
            }
        }
    }
    bool frag = false; /* a quoted fragment's bytes: data below */
    if (l4 < end && proto != 256) dec_ip_ext(d, v6, &proto, &l4, end, &frag);
    if (frag) proto = 256;
    if (l4 < end && proto == 17) {
        const ub_layer *u = ub_push_in(d, UB_H_UDP, l4, 8, end, false);
        l4 += 8;
        if (l4 < end && complete(u) && ip_end >= l4 && ub_udp_port_is_ub(d->o, (unsigned)UB_LROW(u, udp_fields, UDP_DPORT)))
            l4 = dec_quoted_ub(d, l4, ip_end, end);
    } else if (l4 < end && proto == 6) {
        l4 = dec_tcp(d, l4, end, true);
    }
    if (l4 < end) push_data(d, UB_H_DATA, l4, end);
    d->depth = sdepth;
    d->lflags = sflags;
}

/* Layers after the IP header of a datagram that is not UB (UDP: named by its port, not decoded
 * further): TCP's header, ICMP's and ICMPv6's (the protocol number picks the dissector whatever the
 * IP version, as in Wireshark), then data */
static void dec_not_ub_l4(ub_dec *d, unsigned proto, uint32_t l4, uint32_t ip_end)
{
    if ((proto == 1 || proto == 58) && l4 < ip_end) {
        const unsigned type = (unsigned)ub_peek(d, &ub_hdr_icmp, ICMP_TYPE, l4, ip_end);
        const bool echo = proto == 1 ? type == 0 || type == 8 : type == 128 || type == 129;
        /* ICMP's messages with an identifier and a sequence number: echo, timestamp, information, mask */
        const bool ident = echo || (proto == 1 && type >= 13 && type <= 18);
        /* the errors that quote the datagram they are about: ICMP destination unreachable, source
         * quench, redirect, time exceeded, parameter problem; ICMPv6's 1-4 */
        const bool error = proto == 1 ? type == 3 || type == 4 || type == 5 || type == 11 || type == 12 : type >= 1 && type <= 4;
        const unsigned code = (unsigned)ub_peek(d, &ub_hdr_icmp, ICMP_CODE, l4, ip_end);
        const bool mtu = proto == 1 ? type == 3 && code == 4 : type == 2; /* RFC 1191, RFC 4443 §3.2: the path MTU */
        const unsigned id = mtu   ? (proto == 1 ? UB_H_ICMP_MTU : UB_H_ICMPV6_MTU)
                            : proto == 1 ? (ident ? UB_H_ICMP_ECHO : UB_H_ICMP)
                                         : (echo ? UB_H_ICMPV6_ECHO : UB_H_ICMPV6);
        /* an echo's data follows its 8 bytes, an error's quoted datagram its 8 bytes; any other message
         * is one layer to its end (its type's other fields are not decoded) */
        const uint32_t hl = echo || error ? 8u : ip_end - l4;
        ub_push_in(d, id, l4, hl < 4 ? 4 : hl, ip_end, false);
        if (error && l4 + hl < ip_end) dec_quoted(d, proto == 58, l4 + hl, ip_end);
        else if (l4 + hl < ip_end) push_data(d, UB_H_DATA, l4 + hl, ip_end);
        return;
    }
    if (proto == 6) {
        const uint32_t pay = dec_tcp(d, l4, ip_end, false);
        if (pay < ip_end) push_data(d, UB_H_DATA, pay, ip_end);
        return;
    }
    push_data(d, UB_H_DATA, l4, ip_end);
}

/* A tunnel a capture of UBoE may come through (not UB), on UDP (VXLAN 4789, Geneve 6081 by either
 * port, as Wireshark registers them) or IP (GRE 47, IP in IP 4 / 41) at l4, its datagram ending at end:
 * its header, then the frame it carries (ub_dec_tunnel). False: not one (the caller goes on). */
static bool dec_tunnel(ub_dec *d, unsigned proto, unsigned sport, unsigned dport, uint32_t l4, uint32_t end)
{
    if (d->tun >= UB_TUN_MAX || l4 >= end) return false;
    if (proto == 17 && (dport == 4789 || sport == 4789)) {
        const ub_layer *x = ub_push_in(d, UB_H_VXLAN, l4, 8, end, false);
        return complete(x) ? ub_dec_tunnel(d, UB_TUN_ETH, l4 + 8, end) : true;
    }
    if (proto == 17 && (dport == 6081 || sport == 6081)) {
        const unsigned optlen = (unsigned)ub_peek(d, &ub_hdr_geneve, GENEVE_OPTLEN, l4, end) * 4u;
        const ub_layer *g = ub_push_in(d, UB_H_GENEVE, l4, 8 + optlen, end, false);
        if (!complete(g)) return true;
        const unsigned pt = (unsigned)UB_LROW(g, geneve_fields, GENEVE_PROTO);
        if (pt == 0x6558) return ub_dec_tunnel(d, UB_TUN_ETH, l4 + 8 + optlen, end);
        if (pt == 0x0800 || pt == 0x86DD) return ub_dec_tunnel(d, UB_TUN_IP, l4 + 8 + optlen, end);
        push_data(d, UB_H_DATA, l4 + 8 + optlen, end);
        return true;
    }
    if (proto == 4 || proto == 41) return ub_dec_tunnel(d, UB_TUN_IP, l4, end);
    if (proto != 47) return false;
    /* GRE: the checksum (+ offset), key and sequence number words follow the 4 fixed bytes when flagged */
    const uint64_t c = ub_peek(d, &ub_hdr_gre, GRE_C, l4, end), k = ub_peek(d, &ub_hdr_gre, GRE_K, l4, end),
                   sq = ub_peek(d, &ub_hdr_gre, GRE_S, l4, end), ver = ub_peek(d, &ub_hdr_gre, GRE_VER, l4, end);
    const uint32_t hl = 4u * (1u + (unsigned)c + (unsigned)k + (unsigned)sq);
    const ub_layer *g = ub_push_in(d, UB_H_GRE, l4, hl, end, false);
    if (!complete(g)) return true;
    const unsigned pt = (unsigned)UB_LROW(g, gre_fields, GRE_PROTO);
    const uint32_t in = l4 + hl;
    if (ver == 0 && pt == 0x6558) return ub_dec_tunnel(d, UB_TUN_ETH, in, end);
    if (ver == 0 && (pt == 0x0800 || pt == 0x86DD)) return ub_dec_tunnel(d, UB_TUN_IP, in, end);
    if (ver == 0 && pt == 0x88BE && !sq) return ub_dec_tunnel(d, UB_TUN_ETH, in, end); /* ERSPAN type I: no header */
    if (ver == 0 && (pt == 0x88BE || pt == 0x22EB)) {
        const bool v3 = pt == 0x22EB;
        const uint32_t el = v3 ? 12u + 8u * (unsigned)ub_peek(d, &ub_hdr_erspan3, ERSPAN3_O, in, end) : 8u;
        const ub_layer *e = ub_push_in(d, v3 ? UB_H_ERSPAN3 : UB_H_ERSPAN2, in, el, end, false);
        return complete(e) ? ub_dec_tunnel(d, UB_TUN_ETH, in + el, end) : true;
    }
    if (in < end) push_data(d, UB_H_DATA, in, end);
    return true;
}

/* NW-03 / Tables 5-4, 5-5 on a packet taken for UB: IPv4 IHL 5, DF 1, not a fragment; no extension
 * header between the IP header (at off; its protocol / next header field: nh) and UDP */
static void ip_rule_errors(ub_dec *d, uint32_t off, uint64_t ver, bool v4_rules, bool ext, unsigned nh)
{
    if (ver == 4 && !v4_rules) ub_error(d, UB_E_VALUE, UB_H_IPV4, off, 0, 0, "IHL 5, DF 1, no fragments (NW-03)");
    if (ext)
        ub_error(d, UB_E_VALUE, ver == 4 ? UB_H_IPV4 : UB_H_IPV6,
                 off + (ver == 4 ? ipv4_fields[IP4_PROTO].bit_off : ipv6_fields[IP6_NH].bit_off) / 8, nh, 17,
                 "extension headers before UDP (NW-03, Table 5-5: Next Header 17)");
}

/* IPv4/IPv6 [+ UDP + TPH ...] [+ ICRC] in [off, end) (§5.2.3, App. E). cfg34: inside a CFG 3/4 DLLDP
 * (else UBoE / raw IP / cooked capture). Sets d->v->claim; the caller sets the view kind. */
void ub_dec_ip_ub(ub_dec *d, uint32_t off, uint32_t end, bool cfg34)
{
    ub_view *v = d->v;
    uint64_t ver = 0;
    v->claim = UB_CLAIM_NONE;
    if (!ub_dec_avail(d, off, end) && d->wlen > d->len && end > off) return; /* cut by the snapshot length */
    ub_rd_bits(d->p + off, ub_dec_avail(d, off, end), ipv4_fields[IP4_VERSION].bit_off, 4, &ver);
    uint32_t l4, ip_end;
    unsigned proto;
    bool frag = false, v4_rules = true;
    icrc_mask m[4];
    unsigned nm = 0;
    const ub_layer *ip;
    v->claim = UB_CLAIM_NONE;
    if (ver == 4) {
        ip = UB_PUSH_FIXED(d, ipv4, off);
        if (!complete(ip)) return;
        unsigned ihl = (unsigned)UB_LROW(ip, ipv4_fields, IP4_IHL);
        unsigned tot = (unsigned)UB_LROW(ip, ipv4_fields, IP4_TOTLEN);
        proto = (unsigned)UB_LROW(ip, ipv4_fields, IP4_PROTO);
        if (ihl < 5) {
            if (cfg34) ub_error(d, UB_E_VALUE, UB_H_IPV4, off, ihl, 5, "ub.ipv4.ihl");
            return;
        }
        l4 = off + ihl * 4;
        ip_end = off + tot;
        frag = UB_LROW(ip, ipv4_fields, IP4_FRAG) || UB_LROW(ip, ipv4_fields, IP4_MF);
        v4_rules = ihl == 5 && (UB_LROW(ip, ipv4_fields, IP4_DF) || (d->pf & UB_PF_IP_DF_ANY)) && !frag;
        m[nm++] = (icrc_mask){ ipv4_fields[IP4_DSCP].bit_off / 8, 1, 0 };
        m[nm++] = (icrc_mask){ ipv4_fields[IP4_TTL].bit_off / 8, 1, 0 };
        m[nm++] = (icrc_mask){ ipv4_fields[IP4_CSUM].bit_off / 8, 2, 0 };
    } else if (ver == 6) {
        ip = UB_PUSH_FIXED(d, ipv6, off);
        if (!complete(ip)) return;
        l4 = off + 40;
        ip_end = l4 + (unsigned)UB_LROW(ip, ipv6_fields, IP6_PLEN);
        proto = (unsigned)UB_LROW(ip, ipv6_fields, IP6_NH);
        m[nm++] = (icrc_mask){ 0, 1, 0xF0 }; /* Traffic Class high nibble in byte 0 */
        m[nm++] = (icrc_mask){ 1, 3, 0x00 }; /* TC low nibble + Flow Label */
        m[nm++] = (icrc_mask){ ipv6_fields[IP6_HLIM].bit_off / 8, 1, 0 };
    } else {
        if (cfg34) ub_error(d, UB_E_VALUE, UB_H_IPV4, off, ver, 4, "IP version");
        push_data(d, UB_H_DATA, off, end);
        return;
    }
    unsigned ipid = ver == 4 ? UB_H_IPV4 : UB_H_IPV6;
    bool len_ok = ip_end <= end && ip_end >= l4;
    uint32_t ip_len_found = ip_end - off;
    if (!len_ok) {
        if (ip_end > end) ip_end = end;
        if (ip_end < l4) ip_end = l4 > end ? end : l4;
    }
    uint32_t rem = end - ip_end;
    bool has_icrc = rem == 4; /* IP/UDP lengths stop before the ICRC */
    /* extension headers (not in UB packets, Table 5-5): walked to the upper-layer protocol, as Wireshark */
    const unsigned proto0 = proto;
    const uint32_t l3_end = l4;
    if (!frag) dec_ip_ext(d, ver == 6, &proto, &l4, ip_end, &frag);
    const bool ext = l4 != l3_end;

    /* §1 step 3: is the UDP datagram UB transport? */
    const ub_layer *u = NULL;
    unsigned dport = 0, ulen = 0;
    ub_claim claim = UB_CLAIM_NONE;
    dec_mark mk;
    mark_take(d, &mk);
    if (proto == 17 && !frag) {
        u = UB_PUSH_FIXED(d, udp, l4);
        if (!complete(u)) return;
        dport = (unsigned)UB_LROW(u, udp_fields, UDP_DPORT);
        ulen = (unsigned)UB_LROW(u, udp_fields, UDP_LEN);
        m[nm++] = (icrc_mask){ l4 - off + udp_fields[UDP_CSUM].bit_off / 8, 2, 0 };
        if (ub_udp_port_is_ub(d->o, dport)) claim = UB_CLAIM_PORT;
        else if (cfg34 && (d->pf & UB_PF_UDP_ANY_PORT)) claim = UB_CLAIM_PROFILE; /* ns-3-UB D15 */
        else if (d->o->udp_heuristic && dport != UDP_PORT_ROCEV2 && len_ok && (rem == 0 || rem == 4) &&
                 ulen == ip_end - l4 && ulen >= 8 + 16 && !UB_LROW(u, udp_fields, UDP_CSUM) && end <= d->len) {
            /* the strict heuristic: the TP and TA headers (and an ICRC if present) decode cleanly, all
             * of them in the capture (a packet cut by the snapshot length is no evidence) */
            dec_mark m2;
            mark_take(d, &m2);
            ub_dec_tph(d, l4 + 8, ip_end);
            bool ok = clean_since(d, &m2);
            if (ok && has_icrc) {
                push_icrc(d, off, ip_end, m, nm);
                const ub_layer *ic = &v->layer[v->nlayers - 1];
                ok = v->nlayers <= UB_MAX_LAYERS && ic->hdr->id == UB_H_ICRC && ic->status == UB_CK_GOOD;
            }
            if (ok) {
                v->claim = UB_CLAIM_HEURISTIC;
                ip_rule_errors(d, off, ver, v4_rules, ext, proto0); /* the heuristic admits them: report them */
                return;
            }
            mark_restore(d, &m2);
        }
    }
    if (claim == UB_CLAIM_NONE) {
        /* not UB: what it is, nothing decoded further (in CFG 3/4 the link header stays UB) */
        if (cfg34 && !len_ok)
            ub_error(d, UB_E_LENGTH, ipid, off, ip_len_found, end - off, "IP length vs packet");
        const unsigned sport = u ? (unsigned)UB_LROW(u, udp_fields, UDP_SPORT) : 0u;
        if (!cfg34 && !frag && dec_tunnel(d, proto, sport, dport, u ? l4 + 8 : l4, ip_end)) {
            /* the tunnel's inner frame decided the claim and what the frame is */
        } else if (u) {
            if (!ub_dec_udp_neigh(d, sport, dport, l4 + 8, ip_end)) /* RoCEv2, SUE */
                push_data(d, UB_H_DATA, l4 + 8, ip_end);
        } else if (frag) { /* a fragment's bytes: no transport header to read (Wireshark: data) */
            push_data(d, UB_H_DATA, l4, ip_end);
        } else {
            dec_not_ub_l4(d, proto, l4, ip_end);
        }
        if (cfg34 && rem != 0 && rem != 4) ub_error(d, UB_E_TRAILING, ipid, ip_end, rem, 0, "bytes after the IP packet");
        if (cfg34 && has_icrc) push_icrc(d, off, ip_end, m, nm); /* */
        return;
    }
    v->claim = (uint8_t)claim;
    if (!len_ok) ub_error(d, UB_E_LENGTH, ipid, off, ip_len_found, end - off, "IP length vs packet");
    ip_rule_errors(d, off, ver, v4_rules, ext, proto0);
    if (rem != 0 && rem != 4) ub_error(d, UB_E_TRAILING, ipid, ip_end, rem, 0, "bytes after the IP packet");
    if (ulen != ip_end - l4) ub_error(d, UB_E_LENGTH, UB_H_UDP, l4 + 4, ulen, ip_end - l4, "ub.udp.length");
    uint64_t ucsum = UB_LROW(u, udp_fields, UDP_CSUM);
    if (ucsum) ub_error(d, UB_E_VALUE, UB_H_UDP, l4 + 6, ucsum, 0, "UDP checksum must be 0 (NW-03)");
    ub_dec_tph(d, l4 + 8, ip_end);
    if (has_icrc) push_icrc(d, off, ip_end, m, nm); /* coverage starts at the IP header (§5.3.7) */
}

int ub_ip_claim(ub_view *v, const ub_opts *o, const uint8_t *ip, uint32_t caplen, uint32_t wirelen)
{
    ub_decode_wire(v, o, UB_ENTRY_RAWIP, ip, caplen, wirelen);
    return v->kind == UB_KIND_UBOE ? v->claim : UB_CLAIM_NONE;
}

/* CFG 3/4: IP-based UB link header (CCI + NPI), then IP (§5.2.3) */
static void dec_ip_link(ub_dec *d, int cfg)
{
    const ub_layer *n = UB_PUSH_FIXED(d, nthip, 0);
    if (!n) return;
    push_cci(d, 0);
    if (!complete(n)) return;
    if (UB_LROW(n, nthip_fields, NTHIP_NPI) == 0 && !(d->pf & UB_PF_NPI_ZERO)) /* ns-3-UB D8 */
        ub_error(d, UB_E_VALUE, UB_H_NTHIP, 3, 0, 1, "NPI.ID 0 is invalid (NW-04)");
    uint64_t ver = 0;
    ub_rd_bits(d->p + 6, ub_dec_avail(d, 6, d->wlen), 0, 4, &ver);
    if (!ub_dec_avail(d, 6, d->wlen) && d->wlen > d->len) return; /* the IP header was not captured */
    if ((cfg == 3 && ver != 4) || (cfg == 4 && ver != 6))
        ub_error(d, UB_E_VALUE, UB_H_IPV4, 6, ver, cfg == 3 ? 4 : 6, "IP version vs CFG");
    ub_dec_ip_ub(d, 6, d->wlen, true);
}

void ub_dec_netpkt(ub_dec *d, int cfg)
{
    d->cfg = cfg;
    switch (cfg) {
    case 3:
    case 4: dec_ip_link(d, cfg); break;
    case 5: ub_dec_cfg5(d, 0, d->wlen); break;
    case 6:
    case 9: dec_nth16(d, cfg); break;
    case 7: dec_nth24(d); break;
    default:
        ub_error(d, UB_E_UNKNOWN_CFG, UB_H_LPH, 0, (uint64_t)cfg, 0, "ub.lph.cfg");
        push_data(d, UB_H_DATA, 0, d->wlen);
    }
}
