/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Row indexes of the header tables that code outside the table's own file reads by index (the one-line
 * summaries summary.c / neigh_print.c, the header one-liners hdrsum.c, print.c). Each enum is the one its table
 * is written with: the table (file named) is a designated-initializer array indexed by it, [IP4_SRC] =
 * UBF(ipv4, src, ...), so a row cannot move without its index. A profile's table of the same id has the
 * same rows at the same indexes (UB_HDR_VAR). test_sumfmt checks each index read outside the table's file
 * against ub_field_index of every table of its header, and that each enum ends where its tables do. */
#ifndef UB_ROWS_H
#define UB_ROWS_H

/* ---------------------------------------------------------------- net.c */
enum { SLL_PKTTYPE, SLL_HATYPE, SLL_HALEN, SLL_ADDR, SLL_PROTOCOL };
enum { SLL2_PROTOCOL, SLL2_RSVD0, SLL2_IFINDEX, SLL2_HATYPE, SLL2_PKTTYPE, SLL2_HALEN, SLL2_ADDR };
enum { ETH_DST, ETH_SRC, ETH_TYPE };
enum { NULL_FAMILY };
enum { VXLAN_FLAGS, VXLAN_GBP, VXLAN_VNI, VXLAN_RSVD };
enum { GENEVE_VER, GENEVE_OPTLEN, GENEVE_OAM, GENEVE_CRIT, GENEVE_FLAGS_RSVD, GENEVE_PROTO, GENEVE_VNI, GENEVE_RSVD };
enum { GRE_C, GRE_R, GRE_K, GRE_S, GRE_FLAGS, GRE_VER, GRE_PROTO };
enum { ERSPAN_VER, ERSPAN_VLAN, ERSPAN_COS, ERSPAN_EN, ERSPAN_T, ERSPAN_SPANID, ERSPAN2_RSVD, ERSPAN2_INDEX };
enum { ERSPAN3_TIMESTAMP = ERSPAN_SPANID + 1, ERSPAN3_SGT, ERSPAN3_P, ERSPAN3_FT, ERSPAN3_HW, ERSPAN3_D, ERSPAN3_GRA,
       ERSPAN3_O };
enum { MPLS_LABEL, MPLS_EXP, MPLS_BOTTOM, MPLS_TTL };
enum { VLAN_PCP, VLAN_DEI, VLAN_VID, VLAN_TYPE };
enum { IP4_VERSION, IP4_IHL, IP4_DSCP, IP4_ECN, IP4_TOTLEN, IP4_ID, IP4_RSVD, IP4_DF, IP4_MF, IP4_FRAG,
       IP4_TTL, IP4_PROTO, IP4_CSUM, IP4_SRC, IP4_DST };
enum { IP6_VERSION, IP6_TC, IP6_FLOW, IP6_PLEN, IP6_NH, IP6_HLIM, IP6_SRC, IP6_DST };
enum { UDP_SPORT, UDP_DPORT, UDP_LEN, UDP_CSUM };
enum { IP6X_NXT, IP6X_LEN };                                /* hop-by-hop / destination options, routing */
enum { IP6RT_TYPE = IP6X_LEN + 1, IP6RT_SEGLEFT };
enum { IP6FR_NXT, IP6FR_RSVD, IP6FR_OFFSET, IP6FR_RSVD2, IP6FR_MORE, IP6FR_IDENT };
enum { AH_NXT, AH_LEN, AH_RSVD, AH_SPI, AH_SEQ };
enum { TCP_SPORT, TCP_DPORT, TCP_SEQ, TCP_ACK, TCP_DOFF, TCP_FLAGS, TCP_WIN, TCP_CSUM, TCP_URG };
enum { LLC_DSAP, LLC_SSAP, LLC_CTRL, LLC_OUI, LLC_TYPE };
enum { ARP_HTYPE, ARP_PTYPE, ARP_HLEN, ARP_PLEN, ARP_OPER, ARP_SHA, ARP_SPA, ARP_THA, ARP_TPA };
enum { ICMP_TYPE, ICMP_CODE, ICMP_CSUM, ICMP_IDENT, ICMP_IDENT_LE, ICMP_SEQ, ICMP_SEQ_LE };
enum { ICMP6_TYPE, ICMP6_CODE, ICMP6_CSUM, ICMP6_IDENT, ICMP6_SEQ };
enum { ICMPM_TYPE, ICMPM_CODE, ICMPM_CSUM, ICMPM_MTU }; /* icmp_mtu, icmpv6_mtu */
enum { NTH16_SCNA, NTH16_DCNA, NTH16_CCI, NTH16_LBF, NTH16_SL, NTH16_MGMT, NTH16_NLP };
enum { NTH24_SCNA, NTH24_DCNA, NTH24_CCI, NTH24_LBF, NTH24_SL, NTH24_RSVD, NTH24_NLP };
enum { ICRC_ICRC, ICRC_COMPUTED, ICRC_STATUS, ICRC_ORDER };
enum { RTPH_LAST, RTPH_OP, RTPH_VER, RTPH_PAD, RTPH_NLP, RTPH_SRC, RTPH_DST, RTPH_A, RTPH_F, RTPH_RSVD,
       RTPH_PSN, RTPH_RSPST, RTPH_RSPINFO, RTPH_TPMSN };
enum { UTPH_LAST, UTPH_OP, UTPH_VER, UTPH_PAD, UTPH_NLP, UTPH_RSVD };
enum { CTPH_OP, CTPH_PAD, CTPH_NLP };
enum { SAE_RSVD, SAE_SIZE, SAE_MAXRCV, SAE_BITMAP };
enum { UPIH_RSVD, UPIH_UPI };   /* upih16, upih32 */
enum { EIDH_SEID, EIDH_DEID };  /* eidh40, eidh256 */
enum { CIPH_ID, CIPH_SN, CIPH_NLP, CIPH_RSVD };

/* ---------------------------------------------------------------- dll.c */
enum { LPH_CRD, LPH_ACK, LPH_CRD_VL, LPH_RSVD0, LPH_VL, LPH_RSVD1, LPH_CFG, LPH_RT, LPH_PLENGTH,
       LPH_PLENGTH_BLOCKS, LPH_PLENGTH_FLITS, LPH_PLENGTH_TAIL };
enum { LBH_CRD, LBH_ACK, LBH_CRD_VL, LBH_RSVD0, LBH_VL, LBH_RSVD1, LBH_CFG };
enum { LCH_FIXED0, LCH_CLENGTH, LCH_FIXED, LCH_CFG, LCH_CTRL, LCH_SUB_CTRL };
enum { BCRC_RSVD0, BCRC_ERROR_FLAG, BCRC_CRC30, BCRC_COMPUTED, BCRC_STATUS };
enum { END_RSVD0, END_ERROR_FLAG, END_RSVD1 };
enum { RREQ_RSVD0, RREQ_RSVD1, RREQ_RCVPTR, RREQ_NUM_PHY_REINIT, RREQ_NUM_RETRY, RREQ_RSVD2 };
enum { RACK_RSVD0, RACK_RSVD1, RACK_NUMFREEBUF, RACK_RDPTR, RACK_WRPTR, RACK_RSVD2 };
enum { CRD_SD, CRD_RSVD0, CRD_T, CRD_ACK_NUM, CRD_VL0, CRD_VL1, CRD_VL2, CRD_VL3, CRD_VL4, CRD_VL5, CRD_VL6,
       CRD_VL7, CRD_VL8, CRD_VL9, CRD_VL10, CRD_VL11, CRD_VL12, CRD_VL13, CRD_VL14, CRD_VL15, CRD_RSVD1,
       CRD_RSVD2 };

/* ---------------------------------------------------------------- cfg5.c, mgmt.c */
enum { NCTL_PROTOCOL, NCTL_DGUID, NCTL_SGUID, NCTL_DGUID_KIND };
enum { SH_RSVD0, SH_R, SH_TYPE, SH_HOPS, SH_STEP, SH_FPATH };
enum { SQ_VERSION, SQ_CMD, SQ_OPCODE, SQ_B3, SQ_MSGQ_ID, SQ_LENGTH, SQ_MSN, SQ_GUID }; /* scanpdu_req, _rsp */

/* ---------------------------------------------------------------- tah.c */
enum { BT_OP, BT_VER, BT_EE, BT_TV, BT_POISON, BT_RSVD0, BT_UD, BT_TASSN, BT_NOTAACK, BT_ODR, BT_MT, BT_FCE,
       BT_RETRY, BT_ALLOC, BT_RSVD1, BT_EBIT, BT_RCTYPE, BT_RCID }; /* btah, btah_c (BT_OP..BT_TASSN), btah_alt */
enum { AT_OP, AT_VER, AT_RSVD0, AT_SV, AT_POISON, AT_RSVD1, AT_TASSN, AT_RSPST, AT_RSPINFO, AT_RSVD2, AT_RCTYPE, AT_RCID };
enum { ATC_OP, ATC_VER, ATC_STATUS, ATC_RSVD0, ATC_POISON, ATC_RSVD1, ATC_TASSN };
enum { MA_ADDR, MA_RSVD0, MA_TOKEN, MA_RSVD1, MA_LEN };
enum { MAC_ADDR, MAC_AFF, MAC_SO, MAC_LEN, MAC_RSVD0, MAC_TOKEN, MAC_RSVD1 };
enum { MG_SUB, MG_CODE, MG_RSP, MG_STATUS, MG_RSVD, MG_LEN };

/* ---------------------------------------------------------------- urpc.c */
enum { RQ_VERSION, RQ_TYPE, RQ_ACK, RQ_RSVD0, RQ_COUNT, RQ_FUNCTION, RQ_CLASS, RQ_SUBCLASS, RQ_P, RQ_METHOD,
       RQ_TOTAL, RQ_ID, RQ_CHANNEL, RQ_FDEF };
enum { AK_VERSION, AK_TYPE, AK_RSVD0, AK_RANGE, AK_ID, AK_CHANNEL, AK_RSVD1 };
enum { RS_VERSION, RS_TYPE, RS_STATUS, RS_RANGE, RS_ID, RS_CHANNEL, RS_FDEF, RS_TOTAL };

/* ---------------------------------------------------------------- ib.c, sue.c, pcieflit.c (neighbours) */
enum { BTH_OP, BTH_SE, BTH_M, BTH_PAD, BTH_TVER, BTH_PKEY, BTH_FECN, BTH_BECN, BTH_RSVD6, BTH_DQP, BTH_A, BTH_RSVD7, BTH_PSN };
enum { RETH_VA, RETH_RKEY, RETH_DMALEN };
enum { AETH_SYN, AETH_SYN_RSVD, AETH_SYN_OP, AETH_SYN_VAL, AETH_MSN };
enum { RH_OP, RH_FACK, RH_PAD, RH_RSV, RH_TSEN, RH_TS, RH_PKEY, RH_LEN, RH_SYN, RH_PSN, RH_DQP };
enum { FL_TLP, FL_USAGE, FL_PRIOR, FL_DLLPT, FL_REPLAY, FL_SEQ, FL_DLLP, FL_CRC, FL_ECC };
enum { FM_MARKER, FM_STATUS, FM_PTM, FM_REST };

/* One index read from either table of a pair (the summaries do): the rows sit at the same place. */
_Static_assert((int)UDP_SPORT == (int)TCP_SPORT && (int)UDP_DPORT == (int)TCP_DPORT, "udp/tcp ports");
_Static_assert((int)NTH16_SCNA == (int)NTH24_SCNA && (int)NTH16_DCNA == (int)NTH24_DCNA, "nth16/nth24 CNAs");
_Static_assert((int)AT_OP == (int)ATC_OP && (int)AT_TASSN == (int)ATC_TASSN, "atah/atah_c taopcode, ini_tassn");
_Static_assert((int)MA_ADDR == (int)MAC_ADDR, "maetah/maetah_c address");
_Static_assert((int)AK_ID == (int)RS_ID, "urpc ack/rsp request_id");

#endif
