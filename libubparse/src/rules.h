/* THE rule catalogue: one X-macro list gives the rule enum (UB_R_<NAME>), the ub_rule table
 * (rules.c) and docs/rules.md (ubdump -G rules). Ids are stable: never renumber, only append.
 * R(name, id, layer, severity, spec/checklist, title, evidence) */
#ifndef UB_RULES_H
#define UB_RULES_H

#define UB_RULES(R)                                                                                                    \
    /* ---- data link (digest §10.1) ---- */                                                                          \
    R(DL_BLOCK_START, "UB-DL-001", "data link", UB_SEV_ERROR, "§4.3.2.2.2, §4.3.3.1; DL-01",                         \
      "block starts with neither an LCH nor an LPH/LBH (reserved CFG)", "frame; values: CFG")                        \
    R(DL_DLLCB_FORMAT, "UB-DL-002", "data link", UB_SEV_ERROR, "Table 4-6, §4.3.3; DL-02",                            \
      "DLLCB with a reserved type, a wrong length for its type or a broken LCH pattern", "frame; values: CTRL, SUB_CTRL, flits") \
    R(DL_INTERLEAVE, "UB-DL-003", "data link", UB_SEV_ERROR, "§4.3.3.1, §4.3.4.1; DL-03",                              \
      "DLLDBs of different DLLDPs interleaved, or a DLLCB inside a block (raw flit stream)", "frame")               \
    R(DL_BLOCKS, "UB-DL-004", "data link", UB_SEV_WARN, "§4.3.2.1, §4.5.1; DL-04, R-46",                              \
      "LBH VL/CFG differ from the LPH of the same DLLDP", "frame; values: LPH VL, LBH VL")                          \
    R(DL_PLENGTH, "UB-DL-005", "data link", UB_SEV_ERROR, "Table 4-1; DL-05",                                        \
      "PLENGTH reserved or inconsistent with the record", "frame; values: PLENGTH, record length")                   \
    R(DL_BCRC, "UB-DL-006", "data link", UB_SEV_ERROR, "§4.7.2; DL-06", "BCRC (CRC30) bad",                           \
      "frame; values: carried, computed")                                                                            \
    R(DL_ERROR_FLAG, "UB-DL-007", "data link", UB_SEV_WARN, "§4.8.3; DL-07", "DLLDP marked bad (ERROR_FLAG = 1)",     \
      "frame")                                                                                                       \
    R(DL_PADDING, "UB-DL-008", "data link", UB_SEV_WARN, "§4.3.2.1; DL-08", "flit padding not zero", "frame")          \
    R(DL_BRINGUP, "UB-DL-009", "data link", UB_SEV_ERROR, "§4.2, §4.4, §4.6.1; DL-09",                                \
      "link bring-up out of order (retry exchange, Init, Crd_Ack T=1, then DLLDPs)", "frame; values: state")       \
    R(DL_INIT, "UB-DL-010", "data link", UB_SEV_WARN, "§4.3.3.9, §4.4; DL-10",                                       \
      "Init Block content: FEATURE_ID, VL0, mandatory capabilities", "frame; values: field value")                 \
    R(DL_CREDIT_UNDERFLOW, "UB-DL-011", "data link", UB_SEV_ERROR, "§4.6.1, §4.6.2; DL-11",                           \
      "sender used more credit than it had on a VL", "frame; values: VL, credit before, cells needed")              \
    R(DL_CREDIT_OVERFLOW, "UB-DL-012", "data link", UB_SEV_ERROR, "§4.8.1; DL-11",                                   \
      "credit returned beyond the initial credit (Flow Control Overflow)", "frame; values: VL, credit, initial")   \
    R(DL_VL_DISABLED, "UB-DL-013", "data link", UB_SEV_ERROR, "§4.4; DL-12", "VL not enabled by the Init exchange",   \
      "frame; values: VL, VL_ENABLE")                                                                                \
    R(DL_RETRY_BUFFER, "UB-DL-014", "data link", UB_SEV_ERROR, "§4.7.3.2; DL-13",                                     \
      "retry-buffer accounting: releases beyond RETRY_BUF_DEPTH or sending without free space", "frame; values: free, release, depth") \
    R(DL_RCVPTR, "UB-DL-015", "data link", UB_SEV_WARN, "§4.7.3.2.2; DL-14, R-45",                                   \
      "Retry_Req RcvPtr differs from the flits correctly received", "frame; values: RcvPtr, expected")             \
    R(DL_RETRY_SET, "UB-DL-016", "data link", UB_SEV_ERROR, "§4.7.3.3, §4.7.3.4; DL-15",                              \
      "retry set is not 1 Retry_Idle + 32 identical Retry_Req/Retry_Ack", "frame; frames: set start; values: count") \
    R(DL_RETRY_REPLAY, "UB-DL-017", "data link", UB_SEV_ERROR, "§4.7.3.4, §4.7.3.5; DL-16",                           \
      "Retry_Ack RdPtr does not answer the Retry_Req RcvPtr, or the replay is not [RdPtr, WrPtr)", "frame; values: RdPtr, RcvPtr") \
    R(DL_RETRY_COUNT, "UB-DL-018", "data link", UB_SEV_WARN, "§4.7.3.3, §4.8.2; DL-17",                                \
      "NUM_RETRY / NUM_PHY_REINIT do not count up by one per retry set", "frame; values: previous, this")          \
    R(DL_MIN_INTERVAL, "UB-DL-019", "data link", UB_SEV_WARN, "§4.3.3.3, §4.3.3.9; DL-18",                            \
      "DLLDPs closer than the receiver's PACKET_MIN_INTERVAL", "frame; values: distance in flits, minimum")        \
    R(DL_MODE_CHG, "UB-DL-020", "data link", UB_SEV_ERROR, "§4.3.3.8; DL-19", "Block_Mode_Chg handshake out of order", \
      "frame; values: state")                                                                                        \
    R(DL_CTRL_BLOCKS, "UB-DL-021", "data link", UB_SEV_WARN, "§4.3.3.6, §4.3.3.7, §10.4.4; DL-20",                    \
      "Lane_Manage identifiers/widths or Param_Exchg use out of spec", "frame; values: field value")              \
    R(DL_NEGOTIATED, "UB-DL-022", "data link", UB_SEV_NOTE, "§4.4 Table 4-9; DL-10",                                  \
      "Init Block negotiation outcome (values that differ from the defaults)", "frame; values: field, negotiated, default") \
    /* ---- network (digest §10.2) ---- */                                                                             \
    R(NW_NLP, "UB-NW-001", "network", UB_SEV_ERROR, "§5.2.1, §5.2.2; NW-01", "reserved NLP for the CFG, or Mgmt set in CFG 9", \
      "frame; values: NLP")                                                                                          \
    R(NW_CCI, "UB-NW-002", "network", UB_SEV_WARN, "§5.3.5; NW-02", "reserved CCI mode, or FECN lowered along the path", \
      "frame; values: mode")                                                                                         \
    R(NW_IP, "UB-NW-003", "network", UB_SEV_ERROR, "Tables 5-4..5-6; NW-03", "IP/UDP header rules for UB (IHL, DF, no extension headers, checksum 0, lengths)", \
      "frame; values: field value")                                                                                  \
    R(NW_NPI, "UB-NW-004", "network", UB_SEV_WARN, "§5.3.3.1; NW-04", "invalid NPI (ID 0) or partition rule broken", "frame; values: NPI") \
    R(NW_ICRC, "UB-NW-005", "network", UB_SEV_ERROR, "§5.3.7; NW-05, R-15", "ICRC bad in both byte orders", "frame; values: carried, computed") \
    R(NW_RT_ORDER, "UB-NW-006", "network", UB_SEV_WARN, "Table 7-14; NW-06", "ordered traffic sent with per-packet routing (RT[0] = 1)", "frame") \
    R(NW_ACK_CFG, "UB-NW-007", "network", UB_SEV_ERROR, "§6.2; NW-07", "transport ack uses another CFG/NTH type than its data", \
      "frame; frames: data; values: ack CFG, data CFG")                                                              \
    R(NW_CFG, "UB-NW-008", "network", UB_SEV_ERROR, "App. B Table B-1", "reserved CFG value", "frame; values: CFG")  \
    R(NW_UPI, "UB-NW-009", "network", UB_SEV_WARN, "App. B.3, §10.4.3.1; MG-06", "UPI 0x7FFF without the Mgmt bit, or Mgmt set with another UPI", \
      "frame; values: UPI, Mgmt")                                                                                    \
    /* ---- transport (digest §10.3) ---- */                                                                           \
    R(TP_HEADER, "UB-TP-001", "transport", UB_SEV_ERROR, "Table 6-2; TP-01", "TPVer not 0 or reserved TPOpcode", "frame; values: TPOpcode") \
    R(TP_LOST, "UB-TP-002", "transport", UB_SEV_ERROR, "§6.4.1; TP-02, §10.6 c",                                      \
      "PSN gap never filled nor acknowledged: packets lost or skipped", "frame (first after the gap); values: first missing PSN, count") \
    R(TP_RETRANSMISSION, "UB-TP-003", "transport", UB_SEV_NOTE, "§6.4.2; TP-02, TP-06", "retransmission of a PSN already sent", \
      "frame; frames: first copy; values: PSN")                                                                      \
    R(TP_OUT_OF_ORDER, "UB-TP-004", "transport", UB_SEV_WARN, "§6.4.1, §6.5.1.4.1; TP-04",                           \
      "PSN below the highest sent that was never seen before (reordering)", "frame; values: PSN, highest")        \
    R(TP_GAP_ACKED, "UB-TP-005", "transport", UB_SEV_WARN, "§6.4.1; §10.6 c", "PSN acknowledged but never captured", \
      "frame (first after the gap); frames: ack; values: PSN")                                                       \
    R(TP_GAP_FILLED, "UB-TP-006", "transport", UB_SEV_NOTE, "§6.4.1; §10.6 c", "PSN not captured at first transmission (appeared later)", \
      "frame (late copy); values: PSN")                                                                              \
    R(TP_WINDOW, "UB-TP-007", "transport", UB_SEV_ERROR, "§6.4.1; TP-03", "more than 8M−1 PSNs outstanding", "frame; values: outstanding") \
    R(TP_ACK_PSN, "UB-TP-008", "transport", UB_SEV_ERROR, "§6.4.1; TP-05, §10.6 f", "ack PSN goes backwards or beyond the highest PSN sent", \
      "frame; values: ack PSN, highest sent / previous ack")                                                         \
    R(TP_DUP_ACK, "UB-TP-009", "transport", UB_SEV_NOTE, "§6.4.2.2.1; TP-05", "duplicate ack (same cumulative PSN again)", "frame; values: PSN") \
    R(TP_NAK, "UB-TP-010", "transport", UB_SEV_ERROR, "§6.4.2.2; TP-06", "TPNAK not followed by retransmission from its PSN, or repeated within one loss episode", \
      "frame; frames: TPNAK; values: PSN")                                                                           \
    R(TP_SACK, "UB-TP-011", "transport", UB_SEV_ERROR, "§6.4.2.3; TP-07", "TPSACK inconsistent (BitMap[0], MaxRcvPSN, bitmap vs sent)", \
      "frame; values: PSN, MaxRcvPSN")                                                                               \
    R(TP_FRAMING, "UB-TP-012", "transport", UB_SEV_WARN, "§6.7.1; TP-09, R-19", "TPMSN / Last flag framing of transaction operations", \
      "frame; values: TPMSN, expected")                                                                              \
    R(TP_ALIGN, "UB-TP-013", "transport", UB_SEV_ERROR, "Table 6-2; TP-10", "padding does not make the TP packet a multiple of 4", "frame") \
    R(TP_ACK_REQUIRED, "UB-TP-014", "transport", UB_SEV_WARN, "Table 6-2, §8.2.7.3; TP-11", "A=1 packet never acknowledged, or Fake packet without a preceding RNR", \
      "frame; values: PSN")                                                                                          \
    R(TP_RSP_VALUES, "UB-TP-015", "transport", UB_SEV_ERROR, "Table 6-2; TP-12", "RSPST/RSPINFO reserved value or RNR_Timer > 19", \
      "frame; values: RSPST, RSPINFO")                                                                               \
    R(TP_MODE_ACKS, "UB-TP-016", "transport", UB_SEV_ERROR, "§6.3.2, §6.3.3, B.2.7; TP-13", "transport ack on a CTP/UTP channel", "frame") \
    R(TP_CC, "UB-TP-017", "transport", UB_SEV_WARN, "§6.2.2, §6.6; TP-14", "CC extension inconsistent (Ack_Seq decreasing)", "frame; values: Ack_Seq, previous") \
    R(TP_UNACKED, "UB-TP-018", "transport", UB_SEV_ERROR, "§6.4.1; §10.6 e", "RTP data never acknowledged before the end of the capture", \
      "frame; values: PSN")                                                                                          \
    /* ---- transaction (digest §10.4) ---- */                                                                         \
    R(TA_NO_RESPONSE, "UB-TA-001", "transaction", UB_SEV_ERROR, "§7.2.2, §7.4; TA-01, §10.6 a/e",                     \
      "request never answered", "frame (request); values: TAOpcode, INI_TASSN")                                       \
    R(TA_UNSOLICITED, "UB-TA-002", "transaction", UB_SEV_NOTE, "§7.2.2; TA-01, §10.6 f",                                \
      "response without a request in the capture (error when its TASSN is ahead of the requester)", "frame; values: INI_TASSN") \
    R(TA_DUP_RESPONSE, "UB-TA-003", "transaction", UB_SEV_ERROR, "§7.3.1.1; §10.6 f", "request answered more than once", \
      "frame; frames: request, first response; values: INI_TASSN")                                                  \
    R(TA_WRONG_TYPE, "UB-TA-004", "transaction", UB_SEV_ERROR, "§7.4; TA-01", "response type does not fit the request (Read → Read_response, Atomic → Atomic_response, others → TAACK)", \
      "frame; frames: request; values: request TAOpcode, response TAOpcode")                                        \
    R(TA_FORMAT, "UB-TA-005", "transaction", UB_SEV_ERROR, "§7.2.2; TA-02", "response format (full/compact) differs from the request's", \
      "frame; frames: request")                                                                                      \
    R(TA_AGGREGATION, "UB-TA-006", "transaction", UB_SEV_ERROR, "§7.3.1.1; TA-03, §10.6 b″", "TAACK aggregation invalid (error status, compact, or covers a Read/Atomic)", \
      "frame; values: INI_TASSN, RSPINFO")                                                                           \
    R(TA_UNEXPECTED, "UB-TA-007", "transaction", UB_SEV_ERROR, "§7.3.1.1, §7.4.4.1; TA-04", "response to a request that takes none (No_TAACK, UNO, Prefetch_tgt)", \
      "frame; frames: request")                                                                                      \
    R(TA_FLAGS, "UB-TA-008", "transaction", UB_SEV_ERROR, "§7.2, §7.4; TA-05", "header flags inconsistent with the opcode", "frame; values: flag") \
    R(TA_ORDER, "UB-TA-009", "transaction", UB_SEV_WARN, "§7.3.2.2, §7.3.3; TA-06", "ordering attribute (ODR) reserved or violated", "frame; frames: earlier request") \
    R(TA_SLICING, "UB-TA-010", "transaction", UB_SEV_ERROR, "§7.3.1.1, §7.4; TA-07", "a single-packet transaction spans packets (CTP/TP bypass)", "frame; values: INI_TASSN") \
    R(TA_CONTINUITY, "UB-TA-011", "transaction", UB_SEV_ERROR, "§7.4.2.1.1, §7.2.7; TA-08", "multi-packet Write address/offset not continuous", \
      "frame; frames: previous packet; values: address, expected")                                                   \
    R(TA_NOTIFY_ORDER, "UB-TA-012", "transaction", UB_SEV_WARN, "§7.4.2.1.2, §7.4.3.3; TA-09", "notify/immediate packet sent before the earlier Writes were acknowledged", \
      "frame; frames: unacknowledged write")                                                                         \
    R(TA_ATOMIC, "UB-TA-013", "transaction", UB_SEV_ERROR, "§7.2.3, §7.4.2.3; TA-10", "atomic length, alignment or operand size", "frame; values: Length, address") \
    R(TA_BE, "UB-TA-014", "transaction", UB_SEV_ERROR, "§7.4.2.1; TA-11", "byte-enable / writeback rules", "frame; values: width") \
    R(TA_RETRY, "UB-TA-015", "transaction", UB_SEV_WARN, "§7.3.1.1; TA-12", "Retry bit without an earlier RNR/Page Fault, or an Atomic retried after failing", \
      "frame; frames: earlier copy")                                                                                 \
    R(TA_STATUS, "UB-TA-016", "transaction", UB_SEV_ERROR, "Table 7-3; TA-13", "RSPST/RSPINFO/Status reserved value or RNR_Timer > 19", \
      "frame; values: RSPST, RSPINFO")                                                                               \
    R(TA_LENGTH, "UB-TA-017", "transaction", UB_SEV_ERROR, "§7.2.3, §7.2.10", "payload length inconsistent with MAETAH.Length / BEETAH width / the request", \
      "frame; frames: request; values: payload bytes, expected")                                                     \
    R(TA_ERROR_STATUS, "UB-TA-018", "transaction", UB_SEV_WARN, "Table 7-3", "response reports RNR, Page Fault or Completer Error", \
      "frame; frames: request; values: RSPST, RSPINFO")                                                              \
    /* ---- management (digest §10.5) ---- */                                                                          \
    R(MG_ENUM_FRAME, "UB-MG-001", "management", UB_SEV_ERROR, "§10.4.3.1; MG-01", "enumeration packet framing (UPIH16, padding, size)", "frame") \
    R(MG_SCAN_HEADER, "UB-MG-002", "management", UB_SEV_ERROR, "§10.4.3.2; MG-02", "Scan Header R/Type/Step/path rules, or response path ≠ request return path", \
      "frame; frames: request; values: Hops, Step")                                                                  \
    R(MG_SCAN_PDU, "UB-MG-003", "management", UB_SEV_ERROR, "§10.4.3.2; MG-03", "Scan PDU version/CMD/opcode/length rules", "frame; values: field value") \
    R(MG_PDU, "UB-MG-004", "management", UB_SEV_ERROR, "§10.4.3.3; MG-04", "configuration-management PDU length/code rules", "frame; values: PDU Length, expected") \
    R(MG_NO_RESPONSE, "UB-MG-005", "management", UB_SEV_WARN, "§10.4.3; MG-03/MG-04, §10.6 a/e", "management request never answered", \
      "frame (request); values: MSN, Code")                                                                           \
    R(MG_MISMATCH, "UB-MG-006", "management", UB_SEV_ERROR, "§10.4.3.2, §10.4.3.3; MG-03, MG-04", "response does not echo the request (Code/Sub Code, MSGQ_ID/INI_RC_ID, CMD)", \
      "frame; frames: request; values: expected, found")                                                             \
    R(MG_UNSOLICITED, "UB-MG-007", "management", UB_SEV_NOTE, "§10.4.3; §10.6 f", "management response without a request in the capture", "frame; values: MSN") \
    R(MG_STATUS, "UB-MG-008", "management", UB_SEV_WARN, "§10.4.3.1", "management response reports an error status", "frame; frames: request; values: status") \
    R(MG_EVENTS, "UB-MG-009", "management", UB_SEV_WARN, "§10.4.3.3, §10.4.5; MG-05", "event answered with a PDU, or (de)registration not answered exactly once", \
      "frame; values: Code, Sub Code")                                                                               \
    R(MG_NEIGHBOUR, "UB-MG-010", "management", UB_SEV_ERROR, "§10.4.4; MG-07", "link-neighbour advertisement not a 5-flit Param_Exchg", "frame; values: flits") \
    R(MG_DUP_RESPONSE, "UB-MG-011", "management", UB_SEV_ERROR, "§10.4.3; §10.6 f", "management request answered more than once", \
      "frame; frames: request, first response; values: MSN")                                                        \
    /* ---- any layer ---- */                                                                                          \
    R(RS_BITS, "UB-RS-001", "any", UB_SEV_WARN, "§0.2, App. B note 1; §10.6 h", "reserved bits set (warning, never an error)", \
      "frame; values: value; detail: field")                                                                         \
    R(RS_ATTR, "UB-RS-002", "any", UB_SEV_WARN, "§10.6 h", "reserved value of an attribute field (EE_bits, ODR)", "frame; values: value") \
    R(PK_MALFORMED, "UB-PK-001", "packet", UB_SEV_ERROR, "§0 error model", "malformed packet (truncated, lengths inconsistent, reserved selector)", \
      "frame; values: offset; detail: what")                                                                         \
    R(PK_NOTE, "UB-PK-002", "packet", UB_SEV_NOTE, "R-26, §11.5", "decoder note (layout ambiguity resolved by default, CIP-protected data)", \
      "frame; detail: what")                                                                                         \
    R(ST_EVICTED, "UB-ST-001", "any", UB_SEV_NOTE, "design", "state table full: entries evicted before they could be judged (result INCOMPLETE)", \
      "frame: first eviction; frames: last eviction; values: table, entries evicted, table bound")                   \
    /* ---- what happened, not what is wrong (notes; issue #9: simulator traces) ---- */                              \
    R(NW_CONGESTED, "UB-NW-010", "network", UB_SEV_NOTE, "§5.3.5; NW-02", "packet marked congested on its way (CCI FECN 01/11 or CAQM C = 1)", \
      "frame; values: CCI mode, FECN or C")                                                                          \
    R(TP_CNP, "UB-TP-019", "transport", UB_SEV_NOTE, "§6.2.2, §6.6", "congestion notification (CNP) sent back to the data sender", \
      "frame; values: ECN, Loc")                                                                                     \
    R(DL_CREDIT_RETURN, "UB-DL-023", "data link", UB_SEV_NOTE, "§4.3.3.5, §4.6; §10.6 g",                              \
      "credit return (Crd_Ack) in packet records: credits shown per VL, not checked (no bring-up, no flits)", \
      "frame; values: VL, credits, T")                                                                                \
    /* ---- neighbouring interconnects, not UB (docs/neighbours.md): one reliable-transport core (rt_core.c) ---- */ \
    R(NB_DECODE, "NB-PK-001", "neighbour", UB_SEV_ERROR, "documents 002, 003, 004", "RoCEv2, SUE or PCIe flit header malformed or with a reserved value", \
      "frame; values: found, expected, offset; detail: what")                                                        \
    R(IB_GAP, "IB-RC-001", "IB RC transport", UB_SEV_ERROR, "IBTA §9.7; document 002 §3.4.1.1.3.2.4", "PSN gap: requests missing before this one", \
      "frame (first after the gap); values: first missing PSN, count")                                               \
    R(IB_RETRANS, "IB-RC-002", "IB RC transport", UB_SEV_NOTE, "document 002 §3.4.5.1", "retransmission of a PSN already sent", "frame; values: PSN") \
    R(IB_ACK_PSN, "IB-RC-003", "IB RC transport", UB_SEV_ERROR, "document 002 §3.4.5.1.2", "ACK/NAK PSN beyond the newest request sent or older than the window", \
      "frame; values: PSN, newest sent")                                                                             \
    R(IB_NAK_REPLAY, "IB-RC-004", "IB RC transport", UB_SEV_ERROR, "document 002 §3.4.5.1.3", "after a NAK the requester does not go back to the NAK's PSN (go-back-N)", \
      "frame; frames: NAK; values: PSN sent, PSN expected")                                                          \
    R(IB_UNACKED, "IB-RC-005", "IB RC transport", UB_SEV_WARN, "document 002 §3.4.1.1.3.2.1", "request with AckReq never acknowledged before the end of the capture", \
      "frame; values: PSN")                                                                                          \
    R(IB_WINDOW, "IB-RC-006", "IB RC transport", UB_SEV_ERROR, "IBTA §9.7.1", "more than 8M-1 PSNs outstanding", "frame; values: outstanding, limit") \
    R(IB_NAK, "IB-RC-007", "IB RC transport", UB_SEV_NOTE, "IBTA §9.3.5; document 002 §3.4.5.1.3", "NAK or RNR NAK (reason in the detail)", \
      "frame; values: PSN, syndrome")                                                                                \
    R(SUE_GAP, "SUE-TP-001", "SUE transport", UB_SEV_ERROR, "document 004 §12.2, §12.9", "TYPE1 PSN gap: requests missing before this one", \
      "frame (first after the gap); values: first missing PSN, count")                                               \
    R(SUE_RETRANS, "SUE-TP-002", "SUE transport", UB_SEV_NOTE, "document 004 §12.9", "retransmission of a PSN already sent", "frame; values: PSN") \
    R(SUE_ACK_PSN, "SUE-TP-003", "SUE transport", UB_SEV_ERROR, "document 004 §12.2", "ACK/NAK PSN beyond the newest request sent or older than the window", \
      "frame; values: PSN, newest sent")                                                                             \
    R(SUE_NAK_REPLAY, "SUE-TP-004", "SUE transport", UB_SEV_ERROR, "document 004 §12.9", "after a NAK the sender does not go back to the NAK's PSN (go-back-N)", \
      "frame; frames: NAK; values: PSN sent, PSN expected")                                                          \
    R(SUE_UNACKED, "SUE-TP-005", "SUE transport", UB_SEV_WARN, "document 004 §12.2", "Fack request never acknowledged before the end of the capture", \
      "frame; values: PSN")                                                                                          \
    R(SUE_WINDOW, "SUE-TP-006", "SUE transport", UB_SEV_ERROR, "document 004 §12.2 TYPE1_OST_N", "more than 512 TYPE1 requests outstanding", \
      "frame; values: outstanding, limit")                                                                           \
    R(SUE_NAK, "SUE-TP-007", "SUE transport", UB_SEV_NOTE, "document 004 §12.3.5", "NAK or RNR NAK (syndrome read as IB AETH, provisional)", \
      "frame; values: PSN, syndrome")                                                                                \
    R(FL_GAP, "PCIE-FL-001", "PCIe flit link", UB_SEV_ERROR, "document 003 flit sequence rules", "flit sequence gap: Payload flits missing before this one", \
      "frame; values: first missing sequence number, count")                                                         \
    R(FL_REPLAY, "PCIE-FL-002", "PCIe flit link", UB_SEV_NOTE, "document 003 flit replay rules", "replayed flit (sequence number already sent)", "frame; values: sequence number") \
    R(FL_ACK_SEQ, "PCIE-FL-003", "PCIe flit link", UB_SEV_ERROR, "document 003 Ack/Nak processing", "Ack/Nak sequence number outside the valid window (Data Link Protocol Error)", \
      "frame; values: sequence number, newest sent")                                                                 \
    R(FL_NAK_REPLAY, "PCIE-FL-004", "PCIe flit link", UB_SEV_ERROR, "document 003 flit replay rules", "after a Nak for N the replay does not start at N+1", \
      "frame; frames: Nak; values: sequence number sent, expected")                                                  \
    R(FL_WINDOW, "PCIE-FL-005", "PCIe flit link", UB_SEV_ERROR, "document 003 MAX_UNACKNOWLEDGED_FLITS", "more than 511 flits unacknowledged", \
      "frame; values: outstanding, limit")                                                                           \
    R(FL_NAK, "PCIE-FL-006", "PCIe flit link", UB_SEV_NOTE, "document 003 T4-17", "Standard or Selective Nak", "frame; values: sequence number, replay command") \
    R(IB_ENGINE, "IB-RC-008", "IB RC transport", UB_SEV_WARN, "document 002 Table 3.1 (-o ib.engine=1)",                 \
      "RDMA-engine profile: a request without SE = 1, M = 0, FECN = BECN = 0 or AckReq = 1", "frame; values: SE, M, FECN|BECN, AckReq") \
    /* ---- timers and message sequence of the reliable-transport core (rt_core.h) ---- */                             \
    R(TP_LOSS_TIMER, "UB-TP-020", "transport", UB_SEV_WARN, "§6.4.2.1; §10.6 e",                                        \
      "loss timer: the oldest unacknowledged PSN neither acknowledged nor resent within the timeout (--loss-timeout)", \
      "frame (first packet of the channel after the timeout); frames: the oldest unacknowledged packet; values: PSN, µs waited") \
    R(IB_LOSS_TIMER, "IB-RC-009", "IB RC transport", UB_SEV_WARN, "IBTA §9.7.6.1.3; document 002 §3.4.2",              \
      "loss timer: the oldest unacknowledged request neither acknowledged nor resent within the timeout (--loss-timeout)", \
      "frame (first packet of the flow after the timeout); values: PSN, µs waited")                                    \
    R(IB_RNR_WAIT, "IB-RC-010", "IB RC transport", UB_SEV_ERROR, "IBTA §9.7.5.2.8, Table 45; document 002 §3.4.5.1.3", \
      "resend after an RNR NAK before the RNR timer of its AETH elapsed", "frame; frames: RNR NAK; values: µs waited, RNR delay µs") \
    R(IB_MSN, "IB-RC-011", "IB RC transport", UB_SEV_ERROR, "IBTA §9.7.5.1.1 (MSN)",                                   \
      "AETH MSN went backwards, or advanced by more than the PSNs acknowledged (a message takes at least one PSN)",   \
      "frame; values: MSN, previous MSN")                                                                            \
    R(SUE_LOSS_TIMER, "SUE-TP-020", "SUE transport", UB_SEV_WARN, "document 004 §12.9 (RETRY_TIMER_CFG)",             \
      "loss timer: the oldest unacknowledged request neither acknowledged nor resent within the timeout (--loss-timeout)", \
      "frame (first packet of the flow after the timeout); values: PSN, µs waited") \
    R(SUE_CNP_GAP, "SUE-TP-008", "SUE transport", UB_SEV_WARN, "document 004 §12.8 CNP MERGE (-o sue.cnp_merge_us)",           \
      "two CNPs for the same QP within TIMER_THR (CNP MERGE filters the second)", "frame; frames: previous CNP; values: gap ns, TIMER_THR ns") \
    R(SUE_BANK_VC, "SUE-TP-009", "SUE transport", UB_SEV_WARN, "document 004 §12.3.4, §12.5, §12.9",                        \
      "TYPE1 bank (Dest_QP[1:0]) and VC (VLAN PRI, AFH TC or DSCP) not one-to-one", "frame; frames: earlier request; values: bank, VC") \
    R(FL_RUN, "PCIE-FL-007", "PCIe flit link", UB_SEV_WARN, "document 003 normal flit exchange", \
      "explicit-sequence-number flits in a run shorter than 3 (CONSECUTIVE_TX_EXPLICIT_SEQ_NUM_FLITS)", "frame (first of the run); frames: the flit ending it; values: run length") \
    R(FL_IDLE_L0, "PCIE-FL-008", "PCIe flit link", UB_SEV_WARN, "document 003 IDLE flit handshake", \
      "IDLE flit after the first non-IDLE flit (in L0 no IDLE flit follows; else the link went through Recovery)", "frame; frames: first non-IDLE flit") \
    R(FL_REPLAY_TIMEOUT, "PCIE-FL-009", "PCIe flit link", UB_SEV_ERROR, "document 003 flit replay rules (REPLAY_TIMEOUT_FLIT_COUNT)", \
      "1500 flits sent with flits unacknowledged and no Ack, Nak or replay (replay timeout missed)", "frame; frames: oldest unacknowledged flit; values: flits sent, sequence number") \
    R(FL_NAK_RUN, "PCIE-FL-010", "PCIe flit link", UB_SEV_WARN, "document 003 normal flit exchange, transmitter rules (CONSECUTIVE_TX_NAK_FLITS)", \
      "Nak flits in a run shorter than 3 in normal flit exchange (not after a replay timeout, not ended by an IDLE flit)", "frame (first Nak of the run); frames: the flit ending it; values: run length") \
    R(FL_NAK_CHANGE, "PCIE-FL-011", "PCIe flit link", UB_SEV_ERROR, "document 003 Ack, Nak and discard rules; Nak Schedule 1-7", \
      "Nak changed within a run of Nak flits: NAK_SCHEDULED keeps TX_ACKNAK_FLIT_SEQ_NUM; only a Selective Nak may become a Standard Nak (Nak Schedule 4-7), and only then move forward (Nak Schedule 5)", \
      "frame; frames: first Nak of the run; values: sequence number, previous sequence number, replay command, previous replay command") \
    R(FL_HANDSHAKE, "PCIE-FL-012", "PCIe flit link", UB_SEV_ERROR, "document 003 sequence number handshake, general rules (-o pcieflit.encoding)", \
      "sequence number handshake longer than 512 flits (1b/1b) or 256 flits (8b/10b, 128b/130b) without going to Recovery", \
      "frame (first flit past the limit); frames: first flit of the handshake; values: flits sent, limit, Acks counted, explicit-sequence flits") \
    R(FL_STATUS_NOP, "PCIE-FL-013", "PCIe flit link", UB_SEV_ERROR, "document 003 DLP bytes, Table 4-16, Table 4-19", \
      "Flit_Status nullified or poisoned in a flit that is not a Payload flit (no TLP can end there)", "frame; values: Flit_Status, Flit Usage") \
    R(FL_STATUS_REPLAY, "PCIE-FL-014", "PCIe flit link", UB_SEV_ERROR, "document 003 transmitter rules (TX retry buffer stores the Flit status)", \
      "replayed Payload flit with a Flit_Status other than the original's", "frame; values: sequence number, Flit_Status, original Flit_Status") \
    R(FL_NOP_SEQ, "PCIE-FL-015", "PCIe flit link", UB_SEV_ERROR, "document 003 flit sequence number rules (NOP flits)", \
      "explicit-sequence-number NOP flit not carrying NEXT_TX_FLIT_SEQ_NUM - 1 (the newest Payload flit's number)", "frame; values: sequence number, newest Payload flit sent") \
    R(FL_RUN_LONG, "PCIE-FL-016", "PCIe flit link", UB_SEV_WARN, "document 003 flit replay command rules (CONSECUTIVE_TX_EXPLICIT_SEQ_NUM_FLITS < 3)", \
      "more than 3 explicit-sequence-number flits in a row (6 after a replay timeout, Replay Schedule Rule 0)", "frame (first flit past the limit); frames: first of the run; values: run length, limit") \
    R(FL_PRIOR, "PCIE-FL-017", "PCIe flit link", UB_SEV_WARN, "document 003 Table 4-17 DLP0[5] (Prior Flit was Payload)", \
      "Prior Flit was Payload disagrees with the previous flit of the direction (or flits are missing from the capture)", "frame; frames: previous flit; values: Prior Flit was Payload, previous Flit Usage") \
    R(FL_HS_ALT, "PCIE-FL-018", "PCIe flit link", UB_SEV_WARN, "document 003 sequence number handshake, flit replay command rules (priority 1)", \
      "Ack or Nak flit in the sequence number handshake with no explicit-sequence flit before it (3 explicit flits and one Ack or Nak in turn)", "frame; frames: first flit of the handshake") \
    /* ---- findings of the full tracker (rt_seq.c) for IB RC and SUE TYPE1; RNR timers ---- */                     \
    R(IB_GAP_ACKED, "IB-RC-012", "IB RC transport", UB_SEV_WARN, "IBTA §9.7.5.1.1; ubscope capture rule (§10.6 c)",   \
      "PSNs acknowledged by the responder but never captured (missed at the capture point, not lost)",                \
      "frame (first after the gap); frames: ack; values: first PSN, count")                                          \
    R(IB_GAP_FILLED, "IB-RC-013", "IB RC transport", UB_SEV_NOTE, "IBTA §9.7.5.1.1; document 002 §3.4.5.1",          \
      "PSN not captured at its first transmission: its resend is the first copy seen", "frame (late copy); values: PSN") \
    R(IB_OOO, "IB-RC-014", "IB RC transport", UB_SEV_WARN, "IBTA §9.7.1 (RC delivers in PSN order)",                  \
      "PSN below the newest sent, never seen before and not a resend: reordered on the path", "frame; values: PSN, newest sent") \
    R(IB_DUP_ACK, "IB-RC-015", "IB RC transport", UB_SEV_NOTE, "IBTA §9.7.5.1.1 (duplicate ACK)",                    \
      "duplicate ACK (the same PSN acknowledged again)", "frame; values: PSN")                                       \
    R(SUE_GAP_ACKED, "SUE-TP-021", "SUE transport", UB_SEV_WARN, "document 004 §12.2; ubscope capture rule (§10.6 c)", \
      "TYPE1 PSNs acknowledged but never captured (missed at the capture point, not lost)",                          \
      "frame (first after the gap); frames: ack; values: first PSN, count")                                          \
    R(SUE_GAP_FILLED, "SUE-TP-022", "SUE transport", UB_SEV_NOTE, "document 004 §12.9",                              \
      "TYPE1 PSN not captured at its first transmission: its resend is the first copy seen", "frame (late copy); values: PSN") \
    R(SUE_OOO, "SUE-TP-023", "SUE transport", UB_SEV_WARN, "document 004 §12.2, §12.9 (go-back-N, in order)",         \
      "TYPE1 PSN below the newest sent, never seen before and not a resend: reordered on the path", "frame; values: PSN, newest sent") \
    R(SUE_DUP_ACK, "SUE-TP-024", "SUE transport", UB_SEV_NOTE, "document 004 §12.2", "duplicate ACK (the same PSN acknowledged again)", \
      "frame; values: PSN")                                                                                          \
    R(SUE_RNR_WAIT, "SUE-TP-025", "SUE transport", UB_SEV_ERROR, "document 004 §12.3.5, §12.9 (-o sue.rnr_encoding, provisional)", \
      "resend after an RNR NAK before its RNR time elapsed (Aeth_syndrom read as the IB AETH syndrome without its MSB)", \
      "frame; frames: RNR NAK; values: µs waited, RNR delay µs")                                                     \
    R(TA_RNR_EARLY, "UB-TA-019", "transaction", UB_SEV_ERROR, "Table 7-3, Table 6-2 (RNR_Timer); §7.3.1.1",           \
      "transaction retried (Retry = 1) before the RNR_Timeout of its RNR response elapsed (2 µs · 2^RNR_Timer)",     \
      "frame (retry); frames: RNR response; values: ns waited, RNR_Timeout ns")

enum ub_rule_idx {
#define UB_RULE_ENUM(name, ...) UB_R_##name,
    UB_RULES(UB_RULE_ENUM)
#undef UB_RULE_ENUM
    UB_R__COUNT
};

#endif
