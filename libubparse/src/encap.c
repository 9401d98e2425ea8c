/* The headers around UB that are not UB, as tables (decoded by core.c and net.c, shown under Wireshark's
 * names, wsnames.c): capture encapsulations (§0.3, App. E: BSD loopback, Linux cooked captures, the
 * sw_ctype pseudo-header, Ethernet, 802.1Q / 802.1ad tags, LLC/SNAP), the tunnels a capture of UBoE may
 * come through (VXLAN, ERSPAN, MPLS; GRE and Geneve, whose decoders read their rows, are in net.c), and
 * what is shown as what it is (issue #9: ARP, ICMP, ICMPv6, data). One table per header. */
#include "internal.h"
#include "rows.h"

/* BSD loopback (LINKTYPE_NULL: the sender's byte order; LINKTYPE_LOOP: network order), 4 bytes */
static const ub_field null_fields[] = {
    [NULL_FAMILY] = UBU(null, family, "Family", 0, 32, UB_BASE_DEC, NULL, "LINKTYPE_NULL", "2 AF_INET; 10, 23, 24, 28, 30 AF_INET6"),
};
UB_HDR_DEF(null, UB_H_NULL, "null", "null", "Null/Loopback", "LINKTYPE_NULL", 4, null_fields);
static const ub_field null_le_fields[] = {
    [NULL_FAMILY] = UBF(null, family, "Family", 0, 32, UB_FT_UINT, UB_BASE_DEC, UB_FF_LE, NULL, "LINKTYPE_NULL",
                        "little-endian (the capturing host's order)"),
};
UB_HDR_DEF(null_le, UB_H_NULL_LE, "null_le", "null", "Null/Loopback", "LINKTYPE_NULL", 4, null_le_fields);

/* Tunnels a capture of UBoE may come through (a switch's mirror session, an overlay): not UB, shown as
 * Wireshark shows them, their inner frame decoded as any other (dec_tunnel) */
static const ub_field vxlan_fields[] = { /* RFC 7348, on UDP 4789 */
    [VXLAN_FLAGS] = UBU(vxlan, flags, "Flags", 0, 16, UB_BASE_HEX, NULL, "RFC 7348", "0x0800: the VNI is valid"),
    [VXLAN_GBP] = UBU(vxlan, group_policy, "Group Policy ID", 16, 16, UB_BASE_DEC, NULL, "VXLAN-GBP", "reserved in RFC 7348"),
    [VXLAN_VNI] = UBU(vxlan, vni, "VXLAN Network Identifier (VNI)", 32, 24, UB_BASE_DEC, NULL, "RFC 7348", ""),
    [VXLAN_RSVD] = UBU(vxlan, reserved, "Reserved", 56, 8, UB_BASE_DEC, NULL, "RFC 7348", ""),
};
UB_HDR_DEF(vxlan, UB_H_VXLAN, "vxlan", "vxlan", "Virtual eXtensible Local Area Network (not UB)", "RFC 7348", 8, vxlan_fields);

#define ERSPAN_COMMON(h) \
    [ERSPAN_VER] = UBU(h, version, "Version", 0, 4, UB_BASE_DEC, NULL, "ERSPAN", "1 type II, 2 type III"), \
    [ERSPAN_VLAN] = UBU(h, vlan, "Vlan", 4, 12, UB_BASE_DEC, NULL, "ERSPAN", ""), \
    [ERSPAN_COS] = UBU(h, cos, "COS", 16, 3, UB_BASE_DEC, NULL, "ERSPAN", ""), \
    [ERSPAN_T] = UBU(h, truncated, "Truncated", 21, 1, UB_BASE_DEC, NULL, "ERSPAN", "the mirrored frame was cut"), \
    [ERSPAN_SPANID] = UBU(h, spanid, "SpanID", 22, 10, UB_BASE_DEC, NULL, "ERSPAN", "")
static const ub_field erspan2_fields[] = { /* Cisco ERSPAN type II (GRE 0x88BE with a sequence number) */
    ERSPAN_COMMON(erspan),
    [ERSPAN_EN] = UBU(erspan, encap, "Encap", 19, 2, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN2_RSVD] = UBU(erspan, reserved, "Reserved", 32, 12, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN2_INDEX] = UBU(erspan, index, "Index", 44, 20, UB_BASE_DEC, NULL, "ERSPAN", ""),
};
UB_HDR_DEF(erspan2, UB_H_ERSPAN2, "erspan2", "erspan", "Encapsulated Remote Switch Packet ANalysis (not UB)", "ERSPAN type II", 8,
           erspan2_fields);
static const ub_field erspan3_fields[] = { /* ERSPAN type III (GRE 0x22EB); the layer includes a platform subheader */
    ERSPAN_COMMON(erspan),
    [ERSPAN_EN] = UBU(erspan, bso, "BSO", 19, 2, UB_BASE_DEC, NULL, "ERSPAN", "bad/short/oversized"),
    [ERSPAN3_TIMESTAMP] = UBU(erspan, timestamp, "Timestamp", 32, 32, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN3_SGT] = UBU(erspan, sgt, "Security Group Tag", 64, 16, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN3_P] = UBU(erspan, p, "P", 80, 1, UB_BASE_DEC, NULL, "ERSPAN", "the frame is Ethernet"),
    [ERSPAN3_FT] = UBU(erspan, ft, "Frame Type", 81, 5, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN3_HW] = UBU(erspan, hw, "Hardware ID", 86, 6, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN3_D] = UBB(erspan, direction, "Direction", 92, "ERSPAN", "0 ingress, 1 egress"),
    [ERSPAN3_GRA] = UBU(erspan, gra, "Timestamp granularity", 93, 2, UB_BASE_DEC, NULL, "ERSPAN", ""),
    [ERSPAN3_O] = UBU(erspan, o, "Optional Sub-header", 95, 1, UB_BASE_DEC, NULL, "ERSPAN", "8 more bytes follow"),
};
#undef ERSPAN_COMMON
UB_HDR_DEF(erspan3, UB_H_ERSPAN3, "erspan3", "erspan", "Encapsulated Remote Switch Packet ANalysis (not UB)", "ERSPAN type III", 12,
           erspan3_fields);

static const ub_field mpls_fields[] = { /* RFC 3032: one label stack entry */
    [MPLS_LABEL] = UBU(mpls, label, "MPLS Label", 0, 20, UB_BASE_DEC, NULL, "RFC 3032", ""),
    [MPLS_EXP] = UBU(mpls, exp, "MPLS Experimental Bits", 20, 3, UB_BASE_DEC, NULL, "RFC 3032", "traffic class"),
    [MPLS_BOTTOM] = UBU(mpls, bottom, "MPLS Bottom Of Label Stack", 23, 1, UB_BASE_DEC, NULL, "RFC 3032", ""),
    [MPLS_TTL] = UBU(mpls, ttl, "MPLS TTL", 24, 8, UB_BASE_DEC, NULL, "RFC 3032", ""),
};
UB_HDR_DEF(mpls, UB_H_MPLS, "mpls", "mpls", "MultiProtocol Label Switching (not UB)", "RFC 3032", 4, mpls_fields);

/* Linux cooked capture v1 (LINKTYPE_LINUX_SLL), 16 bytes */
static const ub_field sll_fields[] = {
    [SLL_PKTTYPE] = UBU(sll, pkttype, "Packet type", 0, 16, UB_BASE_DEC, NULL, "LINKTYPE_LINUX_SLL", "0 to us, 4 sent by us"),
    [SLL_HATYPE] = UBU(sll, hatype, "ARPHRD type", 16, 16, UB_BASE_DEC, NULL, "§0.3", "38 = ARPHRD_UB"),
    [SLL_HALEN] = UBU(sll, halen, "Address length", 32, 16, UB_BASE_DEC, NULL, "LINKTYPE_LINUX_SLL", ""),
    [SLL_ADDR] = UBY(sll, addr, "Address", 48, 64, "LINKTYPE_LINUX_SLL", "link-layer address (first 8 bytes)"),
    [SLL_PROTOCOL] = UBU(sll, protocol, "Protocol", 112, 16, UB_BASE_HEX, NULL, "§0.3", "0x0100 ETH_P_UB for CFG 5"),
};
UB_HDR_DEF(sll, UB_H_SLL, "sll", "sll", "Linux cooked capture", "LINKTYPE_LINUX_SLL", 16, sll_fields);

static const ub_field sll2_fields[] = {
    [SLL2_PROTOCOL] = UBU(sll2, protocol, "Protocol", 0, 16, UB_BASE_HEX, NULL, "§0.3", "0x0100 ETH_P_UB for CFG 5"),
    [SLL2_RSVD0] = UBR(sll2, rsvd0, 16, 16, "LINKTYPE_LINUX_SLL2"),
    [SLL2_IFINDEX] = UBU(sll2, ifindex, "Interface index", 32, 32, UB_BASE_DEC, NULL, "LINKTYPE_LINUX_SLL2", ""),
    [SLL2_HATYPE] = UBU(sll2, hatype, "ARPHRD type", 64, 16, UB_BASE_DEC, NULL, "§0.3", "38 = ARPHRD_UB"),
    [SLL2_PKTTYPE] = UBU(sll2, pkttype, "Packet type", 80, 8, UB_BASE_DEC, NULL, "LINKTYPE_LINUX_SLL2", ""),
    [SLL2_HALEN] = UBU(sll2, halen, "Address length", 88, 8, UB_BASE_DEC, NULL, "LINKTYPE_LINUX_SLL2", ""),
    [SLL2_ADDR] = UBY(sll2, addr, "Address", 96, 64, "LINKTYPE_LINUX_SLL2", "link-layer address (first 8 bytes)"),
};
UB_HDR_DEF(sll2, UB_H_SLL2, "sll2", "sll2", "Linux cooked capture v2", "LINKTYPE_LINUX_SLL2", 20, sll2_fields);

/* §0.3 EV-LINUX: ubl_add_sw_ctype() pushes 1 byte = CFG in front of CFG 3/4/5 packets */
static const ub_field cfgph_fields[] = {
    UBU(cfgph, cfg, "CFG", 0, 8, UB_BASE_DEC, ub_vn_cfg, "§0.3 EV-LINUX", "packet class of the ubl netdev frame"),
};
UB_HDR_DEF(cfgph, UB_H_CFGPH, "cfgph", "cfgph", "UB link pseudo-header (sw_ctype)", "§0.3", 1, cfgph_fields);

static const ub_field eth_fields[] = {
    [ETH_DST] = UBF(eth, dst, "Destination", 0, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "App. E", "DMAC"),
    [ETH_SRC] = UBF(eth, src, "Source", 48, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "App. E", "SMAC"),
    [ETH_TYPE] = UBU(eth, type, "EtherType", 96, 16, UB_BASE_HEX, NULL, "App. E", "0x0800 IPv4, 0x86DD IPv6, 0x8100 VLAN"),
};
UB_HDR_DEF(eth, UB_H_ETH, "eth", "eth", "Ethernet (UBoE)", "App. E Fig E-2", 14, eth_fields);

/* 802.1Q tag control information + the EtherType that follows it (the TPID is the previous EtherType):
 * a C-tag (TPID 0x8100, or 0x9100 as Wireshark's QinQ default) is Wireshark's vlan, an 802.1ad S-tag
 * (0x88A8) its ieee8021ad, one table each (ub_tpid_table) */
#define VLAN_COMMON(h) \
    [VLAN_PCP] = UBU(h, pcp, "Priority", 0, 3, UB_BASE_DEC, NULL, "IEEE 802.1Q", ""), \
    [VLAN_DEI] = UBU(h, dei, "DEI", 3, 1, UB_BASE_DEC, NULL, "IEEE 802.1Q", ""), \
    [VLAN_VID] = UBU(h, vid, "VLAN ID", 4, 12, UB_BASE_DEC, NULL, "App. E", "UB2E may map NPI to the VLAN ID"), \
    [VLAN_TYPE] = UBU(h, type, "EtherType", 16, 16, UB_BASE_HEX, NULL, "IEEE 802.1Q", "")
static const ub_field vlan_fields[] = { VLAN_COMMON(vlan) };
UB_HDR_DEF(vlan, UB_H_VLAN, "vlan", "vlan", "802.1Q VLAN tag", "App. E", 4, vlan_fields);
static const ub_field stag_fields[] = { VLAN_COMMON(ieee8021ad) };
UB_HDR_DEF(stag, UB_H_VLAN_S, "ieee8021ad", "ieee8021ad", "802.1ad service tag (S-tag)", "IEEE 802.1ad", 4, stag_fields);

/* After an IEEE 802.3 length: IEEE 802.2 LLC with a SNAP header (RFC 1042), the EtherType of what follows.
 * Only this form is a layer of its own (ub_dec_snap); other LLC PDUs stay data (STP BPDUs, ...). */
static const ub_field llc_snap_fields[] = {
    [LLC_DSAP] = UBU(llc, dsap, "DSAP", 0, 8, UB_BASE_HEX, NULL, "IEEE 802.2", "0xAA: SNAP"),
    [LLC_SSAP] = UBU(llc, ssap, "SSAP", 8, 8, UB_BASE_HEX, NULL, "IEEE 802.2", "0xAA: SNAP"),
    [LLC_CTRL] = UBU(llc, control, "Control field", 16, 8, UB_BASE_HEX, NULL, "IEEE 802.2", "0x03: UI (unnumbered)"),
    [LLC_OUI] = UBU(llc, oui, "Organization Code", 24, 24, UB_BASE_DEC, NULL, "RFC 1042", "0: an EtherType follows"),
    [LLC_TYPE] = UBU(llc, type, "Type", 48, 16, UB_BASE_HEX, NULL, "RFC 1042", "0x0800 IPv4, 0x86DD IPv6"),
};
UB_HDR_DEF(llc_snap, UB_H_LLC_SNAP, "llc", "llc", "Logical-Link Control, SNAP (not UB)", "IEEE 802.2, RFC 1042", 8,
           llc_snap_fields);

static const ub_vname vn_arp_op[] = { { 1, "request" }, { 2, "reply" }, { 0, NULL } };
static const ub_field arp_fields[] = {
    [ARP_HTYPE] = UBU(arp, htype, "Hardware type", 0, 16, UB_BASE_DEC, NULL, "RFC 826", ""),
    [ARP_PTYPE] = UBU(arp, ptype, "Protocol type", 16, 16, UB_BASE_HEX, NULL, "RFC 826", ""),
    [ARP_HLEN] = UBU(arp, hlen, "Hardware size", 32, 8, UB_BASE_DEC, NULL, "RFC 826", ""),
    [ARP_PLEN] = UBU(arp, plen, "Protocol size", 40, 8, UB_BASE_DEC, NULL, "RFC 826", ""),
    [ARP_OPER] = UBU(arp, opcode, "Opcode", 48, 16, UB_BASE_DEC, vn_arp_op, "RFC 826", ""),
    [ARP_SHA] = UBF(arp, src_hw, "Sender MAC", 64, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "RFC 826", "Ethernet/IPv4 layout"),
    [ARP_SPA] = UBF(arp, src_ip, "Sender IP", 112, 32, UB_FT_IPV4, UB_BASE_DEC, 0, NULL, "RFC 826", ""),
    [ARP_THA] = UBF(arp, dst_hw, "Target MAC", 144, 48, UB_FT_MAC, UB_BASE_HEX, 0, NULL, "RFC 826", ""),
    [ARP_TPA] = UBF(arp, dst_ip, "Target IP", 192, 32, UB_FT_IPV4, UB_BASE_DEC, 0, NULL, "RFC 826", ""),
};
UB_HDR_DEF(arp, UB_H_ARP, "arp", "arp", "Address Resolution Protocol (not UB)", "RFC 826", 28, arp_fields);

/* ICMP (IP protocol 1) and ICMPv6 (58): the type, code and checksum of every message (the layer is the
 * whole message: the type's own fields and an error's quoted datagram are not decoded, docs/filters.md),
 * and the echo request / reply with its identifier and sequence number (Wireshark also shows ICMP's in
 * little-endian order), its data after them */
/* the rows every message has: type, code, checksum (same indices in both protocols: rows.h) */
#define ICMP_HEAD(h, rfc, tnote)                                                  \
    [ICMP_TYPE] = UBU(h, type, "Type", 0, 8, UB_BASE_DEC, NULL, rfc, tnote),      \
    [ICMP_CODE] = UBU(h, code, "Code", 8, 8, UB_BASE_DEC, NULL, rfc, ""),         \
    [ICMP_CSUM] = UBU(h, checksum, "Checksum", 16, 16, UB_BASE_HEX, NULL, rfc, "")
_Static_assert((int)ICMP_TYPE == (int)ICMP6_TYPE && (int)ICMP_CODE == (int)ICMP6_CODE && (int)ICMP_CSUM == (int)ICMP6_CSUM,
               "icmp/icmpv6 rows");
static const ub_field icmp_fields[] = { ICMP_HEAD(icmp, "RFC 792", "") };
UB_HDR_DEF(icmp, UB_H_ICMP, "icmp", "icmp", "Internet Control Message Protocol (not UB)", "RFC 792", 4, icmp_fields);
static const ub_field icmp_echo_fields[] = {
    ICMP_HEAD(icmp, "RFC 792", "8/0 echo, 13/14 timestamp, 15/16 information, 17/18 mask"),
    [ICMP_IDENT] = UBU(icmp, ident, "Identifier (BE)", 32, 16, UB_BASE_DEC, NULL, "RFC 792", ""),
    [ICMP_IDENT_LE] = UBF(icmp, ident_le, "Identifier (LE)", 32, 16, UB_FT_UINT, UB_BASE_DEC, UB_FF_LE, NULL, "RFC 792", "the same bytes, little-endian"),
    [ICMP_SEQ] = UBU(icmp, seq, "Sequence Number (BE)", 48, 16, UB_BASE_DEC, NULL, "RFC 792", ""),
    [ICMP_SEQ_LE] = UBF(icmp, seq_le, "Sequence Number (LE)", 48, 16, UB_FT_UINT, UB_BASE_DEC, UB_FF_LE, NULL, "RFC 792", "the same bytes, little-endian"),
};
UB_HDR_DEF(icmp_echo, UB_H_ICMP_ECHO, "icmp_echo", "icmp", "Internet Control Message Protocol (not UB)", "RFC 792", 8,
           icmp_echo_fields);
static const ub_field icmpv6_fields[] = { ICMP_HEAD(icmpv6, "RFC 4443", "") };
UB_HDR_DEF(icmpv6, UB_H_ICMPV6, "icmpv6", "icmpv6", "Internet Control Message Protocol v6 (not UB)", "RFC 4443", 4, icmpv6_fields);
static const ub_field icmpv6_echo_fields[] = {
    ICMP_HEAD(icmpv6, "RFC 4443", "128 request, 129 reply"),
    [ICMP6_IDENT] = UBU(icmpv6, identifier, "Identifier", 32, 16, UB_BASE_HEX, NULL, "RFC 4443", ""),
    [ICMP6_SEQ] = UBU(icmpv6, sequence, "Sequence Number", 48, 16, UB_BASE_DEC, NULL, "RFC 4443", ""),
};
UB_HDR_DEF(icmpv6_echo, UB_H_ICMPV6_ECHO, "icmpv6_echo", "icmpv6", "Internet Control Message Protocol v6 (not UB)", "RFC 4443", 8,
           icmpv6_echo_fields);
/* the errors that name the path MTU: a UB datagram (DF set, NW-03) too big for a link on the way */
_Static_assert((int)ICMPM_TYPE == (int)ICMP_TYPE && (int)ICMPM_CODE == (int)ICMP_CODE && (int)ICMPM_CSUM == (int)ICMP_CSUM,
               "icmp_mtu rows");
static const ub_field icmp_mtu_fields[] = {
    ICMP_HEAD(icmp, "RFC 792", "3/4: destination unreachable, fragmentation needed and DF set"),
    [ICMPM_MTU] = UBU(icmp, mtu, "MTU of next hop", 48, 16, UB_BASE_DEC, NULL, "RFC 1191 §4", "the largest datagram the next link takes"),
};
UB_HDR_DEF(icmp_mtu, UB_H_ICMP_MTU, "icmp_mtu", "icmp", "Internet Control Message Protocol (not UB)", "RFC 792, RFC 1191", 8,
           icmp_mtu_fields);
static const ub_field icmpv6_mtu_fields[] = {
    ICMP_HEAD(icmpv6, "RFC 4443", "2: packet too big"),
    [ICMPM_MTU] = UBU(icmpv6, mtu, "MTU", 32, 32, UB_BASE_DEC, NULL, "RFC 4443 §3.2", "the MTU of the next-hop link"),
};
UB_HDR_DEF(icmpv6_mtu, UB_H_ICMPV6_MTU, "icmpv6_mtu", "icmpv6", "Internet Control Message Protocol v6 (not UB)", "RFC 4443", 8,
           icmpv6_mtu_fields);
#undef ICMP_HEAD

static const ub_field data_fields[] = {
    UBY(data, data, "Data", 0, 0, "", "bytes not decoded as UB"),
    UBF(data, len, "Length", 0, 32, UB_FT_UINT, UB_BASE_DEC, UB_FF_LEN, NULL, "", "the bytes' count (Wireshark's data.len)"),
};
UB_HDR_DEF(data, UB_H_DATA, "data", "data", "Data", "", 0, data_fields);
