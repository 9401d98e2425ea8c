/* Transaction layer (§7): BTAH/ATAH in full and compact form, every ETAH, the header chain of
 * every TAOpcode (§6.5 of the digest, Tables 7-2/7-4), payload. */
#include "internal.h"
#include "rows.h"
#include "rowfast.h"

static const ub_vname vn_ee[] = { { 1, "Non-TEE" }, { 3, "TEE" }, { 0, NULL } };
static const ub_vname vn_odr[] = { { 0, "NO" }, { 1, "RO" }, { 2, "SO" }, { 4, "NO, completion order" },
                                   { 5, "RO, completion order" }, { 6, "SO, completion order" }, { 0, NULL } };
static const ub_vname vn_rc_type[] = { { 0, "SQ (RCID)" }, { 1, "SQ (RCID)" }, { 2, "Target SC (SCID)" }, { 0, NULL } };

/* §7.2.1 Figs 7-2/7-3, Table 7-1. Bytes 0-3 are common to the full and compact BTAH. */
#define BTAH_COMMON_ROWS BTAH_COMMON_ROWS_N(ub_vn_taopcode)
#define BTAH_COMMON_ROWS_N(OPNAMES) \
    [BT_OP] = UBU(btah, taopcode, "TAOpcode", 0, 8, UB_BASE_HEX, OPNAMES, "§7.2.1 T7-1", "transaction opcode"), \
    [BT_VER] = UBU(btah, taver, "TAver", 8, 2, UB_BASE_DEC, NULL, "§7.2.1", "0"), \
    [BT_EE] = UBU(btah, ee_bits, "EE_bits", 10, 2, UB_BASE_DEC, vn_ee, "§7.2.1", "execution environment"), \
    [BT_TV] = UBB(btah, tv_en, "TV_EN", 12, "§7.2.1", "TVETAH present"), \
    [BT_POISON] = UBB(btah, poison, "Poison", 13, "§7.2.1", "payload poisoned"), \
    [BT_RSVD0] = UBR(btah, rsvd0, 14, 1, "§7.2.1"), \
    [BT_UD] = UBB(btah, ud_flag, "UD_Flag", 15, "§7.2.1", "UDETAH present"), \
    [BT_TASSN] = UBU(btah, ini_tassn, "INI_TASSN", 16, 16, UB_BASE_DEC, NULL, "§7.2.1", "initiator TA segment sequence number (MSN for management)")
#define BTAH_TAIL_ROWS \
    [BT_MT] = UBB(btah, mt_en, "MT_EN", 36, "§7.2.1", "MTETAH present"), \
    [BT_FCE] = UBB(btah, fce, "FCE", 37, "§7.2.1", "fast completion event"), \
    [BT_RETRY] = UBB(btah, retry, "Retry", 38, "§7.2.1", "transaction-layer retransmission"), \
    [BT_ALLOC] = UBB(btah, alloc, "Alloc", 39, "§7.2.1", "request a target SCID"), \
    [BT_RSVD1] = UBR(btah, rsvd1, 40, 1, "§7.2.1"), \
    [BT_EBIT] = UBB(btah, e_bit, "E_bit", 41, "§7.2.1", "exclusive-mode check"), \
    [BT_RCTYPE] = UBU(btah, ini_rc_type, "INI_RC_Type", 42, 2, UB_BASE_DEC, vn_rc_type, "§7.2.1", ""), \
    [BT_RCID] = UBU(btah, ini_rc_id, "INI_RC_ID", 44, 20, UB_BASE_HEX, NULL, "§7.2.1", "RCID / SCID / message-queue index")
static const ub_field btah_fields[] = {
    BTAH_COMMON_ROWS,
    [BT_NOTAACK] = UBB(btah, no_taack, "No_TAACK", 32, "§7.2.1 Fig 7-2, I-34", "CTP: target must not return a TAACK"),
    [BT_ODR] = UBU(btah, odr, "ODR", 33, 3, UB_BASE_DEC, vn_odr, "§7.2.1, I-34", "execution order"),
    BTAH_TAIL_ROWS,
};
UB_HDR_DEF(btah, UB_H_BTAH, "btah", "btah", "Basic Transaction Header", "§7.2.1 Fig 7-2", 8, btah_fields);
static const ub_field btah_c_fields[] = { BTAH_COMMON_ROWS };
UB_HDR_DEF(btah_c, UB_H_BTAH_C, "btah_c", "btah", "Basic Transaction Header (compact)", "§7.2.1 Fig 7-3", 4, btah_c_fields);
/* I-34 alternative (EV-UBUS cis_ub.h): byte 4 = ODR b7:5, TAK_EN b4 */
static const ub_field btah_alt_fields[] = {
    BTAH_COMMON_ROWS,
    [BT_NOTAACK] = UBB(btah, tak_en, "TAK_EN", 35, "I-34 EV-UBUS", "TAACK enable (polarity unverified)"),
    [BT_ODR] = UBU(btah, odr, "ODR", 32, 3, UB_BASE_DEC, vn_odr, "I-34 EV-UBUS", "execution order"),
    BTAH_TAIL_ROWS,
};
UB_HDR_DEF(btah_alt, UB_H_BTAH_ALT, "btah_alt", "btah", "Basic Transaction Header (EV-UBUS byte 4)", "I-34", 8,
           btah_alt_fields);
/* ns-3-UB D19: its TAOpcode names (ub-datatype.h) where they differ from Table 7-1; D12: responses in a BTAH */
static const ub_vname vn_taopcode_ns3[] = {
    { 0x00, "Send" }, { 0x01, "Send_with_immediate" }, { 0x02, "SEND_INVALIDATE (ns-3-UB)" }, { 0x03, "Write" },
    { 0x04, "Write_with_immediate" }, { 0x05, "Write_with_notify" }, { 0x06, "Read" },
    { 0x07, "Atomic_compare_swap" }, { 0x08, "Atomic_swap" }, { 0x09, "Atomic_store" },
    { 0x0A, "Atomic_load" }, { 0x0B, "Atomic_fetch_add" }, { 0x0C, "Atomic_fetch_sub" },
    { 0x0D, "Atomic_fetch_and" }, { 0x0E, "Atomic_fetch_or" }, { 0x0F, "Atomic_fetch_xor" },
    { 0x10, "MESSAGE (ns-3-UB)" }, { 0x11, "TAACK" }, { 0x12, "Read_response" },
    { 0x13, "Atomic_response" }, { 0x14, "Write_with_be" }, { 0x15, "Prefetch_tgt" },
    { 0x16, "DISCONNECT_SCID (ns-3-UB)" }, { 0x17, "WRITEBACK_FULL (ns-3-UB Writeback)" },
    { 0x18, "WRITEBACK_PTL (ns-3-UB Writeback_with_be)" }, { 0, NULL }
};
static const ub_field btah_ns3_fields[] = {
    BTAH_COMMON_ROWS_N(vn_taopcode_ns3),
    [BT_NOTAACK] = UBB(btah, no_taack, "No_TAACK", 32, "§7.2.1 Fig 7-2, I-34", "CTP: target must not return a TAACK"),
    [BT_ODR] = UBU(btah, odr, "ODR", 33, 3, UB_BASE_DEC, vn_odr, "§7.2.1, I-34", "execution order"),
    BTAH_TAIL_ROWS,
};
UB_HDR_VAR(btah_ns3, UB_H_BTAH, UB_V_BTAH_NS3, "btah_ns3", "btah", "Basic Transaction Header (ns-3-UB)",
           "§7.2.1; ns-3-UB D12, D19", 8, btah_ns3_fields);
static const ub_field btah_c_ns3_fields[] = { BTAH_COMMON_ROWS_N(vn_taopcode_ns3) };
UB_HDR_VAR(btah_c_ns3, UB_H_BTAH_C, UB_V_BTAH_C_NS3, "btah_c_ns3", "btah", "Basic Transaction Header (compact, ns-3-UB)",
           "§7.2.1; ns-3-UB D19", 4, btah_c_ns3_fields);

/* §7.2.2 Figs 7-4/7-5, Table 7-3, R-49 */
static const ub_vname vn_rspst_ta[] = { { 0, "Successful Completion" }, { 1, "RNR" }, { 2, "Page Fault" },
                                        { 3, "Completer Error" }, { 5, "Received, not guaranteed on media" }, { 0, NULL } };
static const ub_vname vn_status_c[] = { { 0, "pass" }, { 1, "fail" }, { 0, NULL } };
#define ATAH_OP_ROW UBU(atah, taopcode, "TAOpcode", 0, 8, UB_BASE_HEX, ub_vn_taopcode, "§7.2.2 T7-3", "")
#define ATAH_VER_ROW UBU(atah, taver, "TAver", 8, 2, UB_BASE_DEC, NULL, "§7.2.2", "0")
#define ATAH_POISON_ROW UBB(atah, poison, "Poison", 13, "§7.2.2, R-49", "payload poisoned")
#define ATAH_TASSN_ROW UBU(atah, ini_tassn, "INI_TASSN", 16, 16, UB_BASE_DEC, NULL, "§7.2.2", "TASSN of the request (SCID if SV)")
static const ub_field atah_fields[] = {
    [AT_OP] = ATAH_OP_ROW, [AT_VER] = ATAH_VER_ROW,
    [AT_RSVD0] = UBR(atah, rsvd0, 10, 2, "§7.2.2, R-49"),
    [AT_SV] = UBB(atah, sv, "SV", 12, "§7.2.2, R-49", "SCID valid"),
    [AT_POISON] = ATAH_POISON_ROW,
    [AT_RSVD1] = UBR(atah, rsvd1, 14, 2, "§7.2.2, R-49"),
    [AT_TASSN] = ATAH_TASSN_ROW,
    [AT_RSPST] = UBU(atah, rspst, "RSPST", 32, 3, UB_BASE_DEC, vn_rspst_ta, "§7.2.2 T7-3", "response status"),
    [AT_RSPINFO] = UBU(atah, rspinfo, "RSPINFO", 35, 5, UB_BASE_DEC, NULL, "§7.2.2 T7-3", "aggregation count / RNR_Timer / error"),
    [AT_RSVD2] = UBR(atah, rsvd2, 40, 2, "§7.2.2"),
    [AT_RCTYPE] = UBU(atah, ini_rc_type, "INI_RC_Type", 42, 2, UB_BASE_DEC, vn_rc_type, "§7.2.2", "echo"),
    [AT_RCID] = UBU(atah, ini_rc_id, "INI_RC_ID", 44, 20, UB_BASE_HEX, NULL, "§7.2.2, I-38", "echo"),
};
UB_HDR_DEF(atah, UB_H_ATAH, "atah", "atah", "Acknowledge Transaction Header", "§7.2.2 Fig 7-4", 8, atah_fields);
/* ns-3-UB D11: bytes 5-7 = 00, [rsvd:2 INI_RC_Type:2 ID 11:8], ID 7:0 (a 12-bit INI_RC_ID) */
static const ub_field atah_ns3_fields[] = {
    [AT_OP] = ATAH_OP_ROW, [AT_VER] = ATAH_VER_ROW,
    [AT_RSVD0] = UBR(atah, rsvd0, 10, 2, "§7.2.2, R-49"),
    [AT_SV] = UBB(atah, sv, "SV", 12, "§7.2.2, R-49", "SCID valid"),
    [AT_POISON] = ATAH_POISON_ROW,
    [AT_RSVD1] = UBR(atah, rsvd1, 14, 2, "§7.2.2, R-49"),
    [AT_TASSN] = ATAH_TASSN_ROW,
    [AT_RSPST] = UBU(atah, rspst, "RSPST", 32, 3, UB_BASE_DEC, vn_rspst_ta, "§7.2.2 T7-3", "response status"),
    [AT_RSPINFO] = UBU(atah, rspinfo, "RSPINFO", 35, 5, UB_BASE_DEC, NULL, "§7.2.2 T7-3", "aggregation count / RNR_Timer / error"),
    [AT_RSVD2] = UBR(atah, rsvd2, 40, 10, "§7.2.2; ns-3-UB D11"),
    [AT_RCTYPE] = UBU(atah, ini_rc_type, "INI_RC_Type", 50, 2, UB_BASE_DEC, vn_rc_type, "§7.2.2; ns-3-UB D11", "echo"),
    [AT_RCID] = UBU(atah, ini_rc_id, "INI_RC_ID", 52, 12, UB_BASE_HEX, NULL, "§7.2.2; ns-3-UB D11", "echo (12 bits in ns-3-UB)"),
};
UB_HDR_VAR(atah_ns3, UB_H_ATAH, UB_V_ATAH_NS3, "atah_ns3", "atah", "Acknowledge Transaction Header (ns-3-UB)",
           "§7.2.2; ns-3-UB D11", 8, atah_ns3_fields);
static const ub_field atah_c_fields[] = {
    [ATC_OP] = ATAH_OP_ROW, [ATC_VER] = ATAH_VER_ROW,
    [ATC_STATUS] = UBU(atah, status, "Status", 10, 2, UB_BASE_DEC, vn_status_c, "§7.2.2 Fig 7-5", "remote authorisation result"),
    [ATC_RSVD0] = UBR(atah, rsvd0, 12, 1, "R-49"),
    [ATC_POISON] = ATAH_POISON_ROW,
    [ATC_RSVD1] = UBR(atah, rsvd1, 14, 2, "R-49"),
    [ATC_TASSN] = ATAH_TASSN_ROW,
};
UB_HDR_DEF(atah_c, UB_H_ATAH_C, "atah_c", "atah", "Acknowledge Transaction Header (compact)", "§7.2.2 Fig 7-5", 4,
           atah_c_fields);

/* §7.2.3 Fig 7-6, Table 7-5; TokenID word R-50 */
static const ub_field maetah_fields[] = {
    [MA_ADDR] = UBU(maetah, address, "Address", 0, 64, UB_BASE_HEX, NULL, "§7.2.3 T7-5", "target memory start address"),
    [MA_RSVD0] = UBR(maetah, rsvd0, 64, 4, "R-50"),
    [MA_TOKEN] = UBU(maetah, tokenid, "TokenID", 68, 20, UB_BASE_HEX, NULL, "§7.2.3, R-50", "target memory segment"),
    [MA_RSVD1] = UBR(maetah, rsvd1, 88, 8, "R-50"),
    [MA_LEN] = UBU(maetah, length, "Length", 96, 32, UB_BASE_DEC, NULL, "§7.2.3 T7-5", "bytes to access"),
};
UB_HDR_DEF(maetah, UB_H_MAETAH, "maetah", "maetah", "Memory Access ETAH", "§7.2.3 Fig 7-6", 16, maetah_fields);
/* compact MAETAH, R-24: Address[63:6] ‖ Affinity(2) ‖ SO(1) ‖ Length(3), then the R-50 TokenID word */
static const ub_vname vn_so[] = { { 0, "RO" }, { 1, "SO" }, { 0, NULL } };
static const ub_vname vn_clen[] = { { 0, "64 B" }, { 1, "128 B" }, { 2, "256 B" }, { 3, "512 B" }, { 4, "1024 B" },
                                    { 5, "2048 B" }, { 6, "4096 B" }, { 7, "8192 B" }, { 0, NULL } };
static const ub_field maetah_c_fields[] = {
    [MAC_ADDR] = UBF(maetah, address, "Address", 0, 58, UB_FT_UINT, UB_BASE_HEX, UB_FF_X64, NULL, "§7.2.3, R-24",
                     "target address (low 6 bits implicitly 0)"),
    [MAC_AFF] = UBU(maetah, affinity_hint, "Affinity_hint", 58, 2, UB_BASE_DEC, NULL, "§7.2.3, R-24", ""),
    [MAC_SO] = UBU(maetah, so, "SO", 60, 1, UB_BASE_DEC, vn_so, "§7.2.3, R-24", "strong ordering"),
    [MAC_LEN] = UBU(maetah, length, "Length", 61, 3, UB_BASE_DEC, vn_clen, "§7.2.3, R-24", "64 B << Length"),
    [MAC_RSVD0] = UBR(maetah, rsvd0, 64, 4, "R-50"),
    [MAC_TOKEN] = UBU(maetah, tokenid, "TokenID", 68, 20, UB_BASE_HEX, NULL, "§7.2.3, R-50", ""),
    [MAC_RSVD1] = UBR(maetah, rsvd1, 88, 8, "R-50"),
};
UB_HDR_DEF(maetah_c, UB_H_MAETAH_C, "maetah_c", "maetah", "Memory Access ETAH (compact)", "§7.2.3, R-24", 12,
           maetah_c_fields);
/* ns-3-UB D18: bytes 0-7 = (VA & (2^58 - 1)) << 6 | AH << 4 | SO << 3 | Length: the 58 bits are the address */
static const ub_field maetah_c_ns3_fields[] = {
    [MAC_ADDR] = UBU(maetah, address, "Address", 0, 58, UB_BASE_HEX, NULL, "§7.2.3; ns-3-UB D18", "target address (VA, low 58 bits)"),
    [MAC_AFF] = UBU(maetah, affinity_hint, "Affinity_hint", 58, 2, UB_BASE_DEC, NULL, "§7.2.3, R-24", ""),
    [MAC_SO] = UBU(maetah, so, "SO", 60, 1, UB_BASE_DEC, vn_so, "§7.2.3, R-24", "strong ordering"),
    [MAC_LEN] = UBU(maetah, length, "Length", 61, 3, UB_BASE_DEC, vn_clen, "§7.2.3, R-24", "64 B << Length"),
    [MAC_RSVD0] = UBR(maetah, rsvd0, 64, 4, "R-50"),
    [MAC_TOKEN] = UBU(maetah, tokenid, "TokenID", 68, 20, UB_BASE_HEX, NULL, "§7.2.3, R-50", ""),
    [MAC_RSVD1] = UBR(maetah, rsvd1, 88, 8, "R-50"),
};
UB_HDR_VAR(maetah_c_ns3, UB_H_MAETAH_C, UB_V_MAETAH_C_NS3, "maetah_c_ns3", "maetah", "Memory Access ETAH (compact, ns-3-UB)",
           "§7.2.3; ns-3-UB D18", 12, maetah_c_ns3_fields);

static const ub_vname vn_tc_type[] = { { 0, "TC" }, { 1, "TC" }, { 2, "TC Group" }, { 0, NULL } };
static const ub_field mtetah_fields[] = {
    UBU(mtetah, hint, "Hint", 0, 8, UB_BASE_HEX, NULL, "§7.2.4 T7-6", "RQ selection hint (TC Group)"),
    UBR(mtetah, rsvd0, 8, 2, "§7.2.4"),
    UBU(mtetah, tgt_tc_type, "TGT_TC_Type", 10, 2, UB_BASE_DEC, vn_tc_type, "§7.2.4", ""),
    UBU(mtetah, tgt_tc_id, "TGT_TC_ID", 12, 20, UB_BASE_HEX, NULL, "§7.2.4", "TCID / TC Group ID"),
};
UB_HDR_DEF(mtetah, UB_H_MTETAH, "mtetah", "mtetah", "Message Target ETAH", "§7.2.4 Fig 7-8", 4, mtetah_fields);
static const ub_field tvetah_fields[] = {
    UBU(tvetah, tokenvalue, "TokenValue", 0, 32, UB_BASE_HEX, NULL, "§7.2.5", "access credential"),
};
UB_HDR_DEF(tvetah, UB_H_TVETAH, "tvetah", "tvetah", "TokenValue ETAH", "§7.2.5 Fig 7-9", 4, tvetah_fields);
static const ub_field taidetah_fields[] = {
    UBR(taidetah, rsvd0, 0, 16, "§7.2.6"),
    UBU(taidetah, taid, "TAID", 16, 16, UB_BASE_HEX, NULL, "§7.2.6", "task ID, echoed"),
};
UB_HDR_DEF(taidetah, UB_H_TAIDETAH, "taidetah", "taidetah", "Task ID ETAH", "§7.2.6 Fig 7-10", 4, taidetah_fields);
static const ub_field ofstetah_fields[] = {
    UBR(ofstetah, rsvd0, 0, 8, "§7.2.7"),
    UBU(ofstetah, offset, "Offset", 8, 24, UB_BASE_DEC, NULL, "§7.2.7", "offset in 1 KB units"),
};
UB_HDR_DEF(ofstetah, UB_H_OFSTETAH, "ofstetah", "ofstetah", "Offset ETAH", "§7.2.7 Fig 7-11", 4, ofstetah_fields);
static const ub_field immetah_fields[] = {
    UBU(immetah, immediate_data, "Immediate_Data", 0, 64, UB_BASE_HEX, NULL, "§7.2.8 T7-10", ""),
    UBU(immetah, immediate_tokenvalue, "Immediate_TokenValue", 64, 32, UB_BASE_HEX, NULL, "§7.2.8", "Write_with_immediate"),
    UBU(immetah, msg_length, "Msg_Length", 96, 32, UB_BASE_DEC, NULL, "§7.2.8", "Write_with_immediate total length"),
};
UB_HDR_DEF(immetah, UB_H_IMMETAH, "immetah", "immetah", "Immediate ETAH", "§7.2.8 Fig 7-12", 16, immetah_fields);
static const ub_field ntfetah_fields[] = {
    UBU(ntfetah, address, "Address", 0, 64, UB_BASE_HEX, NULL, "§7.2.9 T7-11", "notify write address"),
    UBR(ntfetah, rsvd0, 64, 4, "R-50"),
    UBU(ntfetah, notify_tokenid, "Notify_TokenID", 68, 20, UB_BASE_HEX, NULL, "§7.2.9, R-50", ""),
    UBR(ntfetah, rsvd1, 88, 8, "R-50"),
    UBU(ntfetah, notify_tokenvalue, "Notify_TokenValue", 96, 32, UB_BASE_HEX, NULL, "§7.2.9", ""),
    UBU(ntfetah, notify_data, "Notify_Data", 128, 64, UB_BASE_HEX, NULL, "§7.2.9", ""),
};
UB_HDR_DEF(ntfetah, UB_H_NTFETAH, "ntfetah", "ntfetah", "Notify ETAH", "§7.2.9 Fig 7-13", 24, ntfetah_fields);
static const ub_field beetah_fields[] = {
    UBY(beetah, be, "BE", 0, 0, "§7.2.10 T7-12, R-27", "byte enables, BE[0] = last byte bit 0"),
};
UB_HDR_DEF(beetah, UB_H_BEETAH, "beetah", "beetah", "Byte Enable ETAH", "§7.2.10 Fig 7-14", 0, beetah_fields);
static const ub_vname vn_subop[] = { { 0, "ADD" }, { 1, "CLR" }, { 2, "EOR" }, { 3, "SET" }, { 4, "SMAX" },
                                     { 5, "SMIN" }, { 6, "UMAX" }, { 7, "UMIN" }, { 0, NULL } };
enum { UD_UD, UD_SUBOP };
static const ub_field udetah_fields[] = {
    [UD_UD] = UBU(udetah, ud, "UD", 0, 32, UB_BASE_HEX, NULL, "§7.2.11", "user defined"),
    [UD_SUBOP] = UBU(udetah, atomic_subop, "UD[23:20] atomic sub-operation", 8, 4, UB_BASE_DEC, vn_subop,
                     "§7.4.2.3.2 T7-16, I-14", "Atomic_store / Atomic_load"),
};
UB_HDR_DEF(udetah, UB_H_UDETAH, "udetah", "udetah", "User Defined ETAH", "§7.2.11 Fig 7-15", 4, udetah_fields);

/* §7.2.12, §10.4.3.3 Table 10-10 */
static const ub_vname vn_mg_code[] = { { 0, "Error Message" }, { 1, "Link Change Message" }, { 2, "Configuration Message" },
                                       { 3, "VDM Message" }, { 4, "Entity Information Exchange" },
                                       { 5, "Device Security Management" }, { 6, "Pooled Resource Management" }, { 0, NULL } };
static const ub_vname vn_rsp[] = { { 0, "Request" }, { 1, "Response" }, { 0, NULL } };
static const ub_field mgmtetah_fields[] = {
    [MG_SUB] = UBU(mgmtetah, sub_code, "Sub Code", 0, 4, UB_BASE_DEC, NULL, "§10.4.3.3 T10-10/10-11", ""),
    [MG_CODE] = UBU(mgmtetah, code, "Code", 4, 3, UB_BASE_DEC, vn_mg_code, "§10.4.3.3 T10-10/10-11", ""),
    [MG_RSP] = UBU(mgmtetah, rsp, "RSP", 7, 1, UB_BASE_DEC, vn_rsp, "§10.4.3.3 T10-10", ""),
    [MG_STATUS] = UBU(mgmtetah, status, "Status", 8, 8, UB_BASE_HEX, ub_vn_mgmt_status, "§10.4.3.1", "valid when RSP = 1"),
    [MG_RSVD] = UBR(mgmtetah, rsvd0, 16, 4, "T10-10"),
    [MG_LEN] = UBU(mgmtetah, pdu_length, "PDU Length", 20, 12, UB_BASE_DEC, NULL, "T10-10", "PDU bytes, 0..1024"),
};
UB_HDR_DEF(mgmtetah, UB_H_MGMTETAH, "mgmtetah", "mgmtetah", "Management ETAH", "§7.2.12 Table 10-10", 4, mgmtetah_fields);

static const ub_field payload_fields[] = {
    UBY(payload, data, "Payload", 0, 0, "§7.4", "transaction payload"),
};
UB_HDR_DEF(payload, UB_H_PAYLOAD, "payload", "payload", "Payload", "§7.4", 0, payload_fields);
static const ub_field atomic_fields[] = {
    UBY(atomic, operand, "Operand", 0, 0, "§7.4.2.3.2, R-28", "Operand1 then Operand2 (byte order I-15: raw bytes)"),
};
UB_HDR_DEF(atomic_ops, UB_H_ATOMIC_OPS, "atomic_ops", "atomic", "Atomic operand", "§7.4.2.3.2", 0, atomic_fields);

/* ================================================================ decoding */

enum { TA_UD = 1, TA_TV = 2 };

static bool opcode_needs_full(unsigned op) { return op <= 0x01 || op == 0x04 || op == 0x05 || op == 0x10; } /* */

/* h: the header's default table (this file's ub_hdr_<sym>: id and length fold when inlined) */
UB_INLINE const ub_layer *push_fixed(ub_dec *d, const ub_hdr *h, uint32_t *off, uint32_t end, bool *ok)
{
    if (!*ok) return NULL;
    unsigned id = h->id;
    uint32_t n = h->len;
    ub_layer *l = ub_push(d, id, *off, *off + n <= end ? n : (end > *off ? end - *off : 0));
    if (!l || l->len < n) {
        if (l && !(l->flags & UB_LF_TRUNC)) { /* clamped by end, not by the buffer */
            l->flags |= UB_LF_TRUNC;
            ub_error(d, UB_E_TRUNCATED, id, *off + l->len, l->len, n, h->key);
        }
        *ok = false;
        return l;
    }
    *off += n;
    return l;
}

static void push_payload(ub_dec *d, unsigned id, uint32_t off, uint32_t end)
{
    if (end > off) ub_push(d, id, off, end - off);
}

/* Responses (Table 7-4) */
static void dec_response(ub_dec *d, unsigned op, bool compact, uint32_t off, uint32_t end)
{
    bool ok = true;
    const ub_layer *a = push_fixed(d, compact ? &ub_hdr_atah_c : &ub_hdr_atah, &off, end, &ok);
    if (!ok) return;
    if (!compact) {
        unsigned rspst = (unsigned)UB_LROW(a, atah_fields, AT_RSPST), info = (unsigned)UB_LROW(a, atah_fields, AT_RSPINFO);
        if (rspst == 4 || rspst >= 6) ub_error(d, UB_E_RSVD_VALUE, UB_H_ATAH, off - 4, rspst, 0, "ub.atah.rspst");
        else if ((rspst == 1 || rspst == 2) && info > 19) ub_error(d, UB_E_VALUE, UB_H_ATAH, off - 4, info, 19, "RNR_Timer > 19 (TA-13)");
        else if (rspst == 3 && info != 1 && info != 2) ub_error(d, UB_E_RSVD_VALUE, UB_H_ATAH, off - 4, info, 0, "ub.atah.rspinfo");
        if (UB_LROW(a, atah_fields, AT_RCTYPE) == 3) ub_error(d, UB_E_RSVD_VALUE, UB_H_ATAH, off - 3, 3, 0, "ub.atah.ini_rc_type");
    } else if (UB_LROW(a, atah_c_fields, ATC_STATUS) >= 2) {
        ub_error(d, UB_E_RSVD_VALUE, UB_H_ATAH_C, off - 3, UB_LROW(a, atah_c_fields, ATC_STATUS), 0, "ub.atah.status"); /* TA-13 */
    }
    /* TAIDETAH/OFSTETAH presence cannot be known without the request; opts->rsp_ext */
    if (op == 0x12 || op == 0x13) {
        if (d->o->rsp_ext & 1) push_fixed(d, &ub_hdr_taidetah, &off, end, &ok);
        if (op == 0x12 && (d->o->rsp_ext & 2)) push_fixed(d, &ub_hdr_ofstetah, &off, end, &ok);
        if (ok) push_payload(d, UB_H_PAYLOAD, off, end);
    } else if (off < end) { /* TAACK carries nothing */
        ub_error(d, UB_E_LENGTH, compact ? UB_H_ATAH_C : UB_H_ATAH, off, end - off, 0, "bytes after a TAACK");
        push_payload(d, UB_H_DATA, off, end);
    }
}

void ub_dec_tah(ub_dec *d, uint32_t off, uint32_t end)
{
    uint8_t op8 = 0;
    if (!ub_rd8(d->p, end < d->len ? end : d->len, off, &op8)) {
        ub_error(d, UB_E_TRUNCATED, UB_H_BTAH, off, 0, 4, "TAH");
        return;
    }
    unsigned op = op8;
    int cfg = d->cfg >= 0 && d->cfg < 16 ? d->cfg : 3;
    bool compact = d->o->tah_fmt[cfg] == UB_TAH_COMPACT && !opcode_needs_full(op); /* */
    d->v->tah_fmt = compact ? UB_TAH_COMPACT : UB_TAH_FULL;
    bool rsp_btah = (d->pf & UB_PF_RSP_AS_BTAH) && d->tp_kind == UB_TP_RTP; /* ns-3-UB D12 */
    if (op >= 0x11 && op <= 0x13 && !rsp_btah) {
        /* a TAACK carries nothing after its ATAH: 8 bytes can only be the full format */
        if (op == 0x11 && compact && end - off == ub_hdr_atah.len) compact = false;
        d->v->tah_fmt = compact ? UB_TAH_COMPACT : UB_TAH_FULL;
        dec_response(d, op, compact, off, end);
        return;
    }
    bool ok = true;
    const ub_hdr *bh = compact ? &ub_hdr_btah_c : d->o->btah_variant ? &ub_hdr_btah_alt : &ub_hdr_btah; /* I-34 */
    unsigned bid = bh->id;
    uint32_t boff = off;
    const ub_layer *b = push_fixed(d, bh, &off, end, &ok);
    if (!ok) return;
    /* bytes 0-3: the same rows (BTAH_COMMON_ROWS_N) in every BTAH table, profiles' included */
    bool ud = ub_row_at(b->data, &btah_fields[BT_UD]), tv = ub_row_at(b->data, &btah_fields[BT_TV]);
    unsigned ee = (unsigned)ub_row_at(b->data, &btah_fields[BT_EE]);
    if ((ee == 0 && !(d->pf & UB_PF_EE_ZERO)) || ee == 2) /* §10.6 h; ns-3-UB leaves EE_bits 00 */
        ub_error(d, UB_E_RSVD_ATTR, bid, boff + 1, ee, 1, "ub.btah.ee_bits");
    if (!compact) {
        unsigned odr = (unsigned)UB_LROW(b, btah_fields, BT_ODR);
        if ((odr & 3) == 3) ub_error(d, UB_E_RSVD_ATTR, bid, boff + 4, odr, 0, "ub.btah.odr"); /* TA-06 */
        if (UB_LROW(b, btah_fields, BT_RCTYPE) == 3) ub_error(d, UB_E_RSVD_VALUE, bid, boff + 5, 3, 0, "ub.btah.ini_rc_type");
        bool mt = UB_LROW(b, btah_fields, BT_MT);
        bool want_mt = op <= 0x01 || op == 0x04;
        if (mt != want_mt && op != 0x10) ub_error(d, UB_E_FLAGS, bid, boff + 4, mt, want_mt, "ub.btah.mt_en (TA-05)");
    }
    if (op == 0x10 && tv) ub_error(d, UB_E_FLAGS, bid, boff + 1, 1, 0, "ub.btah.tv_en must be 0 for Management");
    if (ud) push_fixed(d, &ub_hdr_udetah, &off, end, &ok);
    const ub_hdr *mah = compact ? &ub_hdr_maetah_c : &ub_hdr_maetah;
    unsigned ma = mah->id;
    const ub_layer *m = NULL;
    uint32_t total = end > off ? end - off : 0; /* bytes after BTAH[+UD] */
    bool no_ext = (d->pf & UB_PF_NO_TAID_OFST) != 0; /* ns-3-UB implements no TAIDETAH/OFSTETAH */
    if ((d->pf & UB_PF_OPCODES) && (op == 0x02 || op == 0x10 || op == 0x16)) { /* ns-3-UB D19 */
        ub_error(d, UB_E_AMBIGUOUS, bid, boff, op, 0, "ns-3-UB TAOpcode: header chain not modelled, shown as payload");
        push_payload(d, UB_H_PAYLOAD, off, end);
        return;
    }
    switch (op) {
    case 0x11: case 0x12: case 0x13: /* only under a profile (rsp_btah): [UD] MAETAH [TV] Payload, ns-3-UB D12 */
    case 0x03: case 0x17: /* Write, Writeback: [UD] MAETAH [TV] Payload */
        m = push_fixed(d, mah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (ok) push_payload(d, UB_H_PAYLOAD, off, end);
        break;
    case 0x05: /* Write_with_notify: [UD] MAETAH NTFETAH [TV] Payload */
        m = push_fixed(d, mah, &off, end, &ok);
        push_fixed(d, &ub_hdr_ntfetah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (ok) push_payload(d, UB_H_PAYLOAD, off, end);
        break;
    case 0x14: case 0x18: { /* Write_with_be, Writeback_with_be: [UD] MAETAH [TV] BEETAH Payload */
        m = push_fixed(d, mah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (!ok) break;
        /* W bits = MAETAH.Length bytes (full) or 64 B << Length (compact) */
        uint64_t w = compact ? (64u << UB_LROW(m, maetah_c_fields, MAC_LEN)) : UB_LROW(m, maetah_fields, MA_LEN);
        if (w != 64 && w != 128 && w != 256 && w != 512 && w != 1024) {
            ub_error(d, UB_E_VALUE, UB_H_BEETAH, off, w, 64, "BE width from MAETAH.Length (R-27, TA-11)");
            w = w < 64 ? 64 : w > 1024 ? 1024 : w;
        }
        ub_layer *be = ub_push(d, UB_H_BEETAH, off, (uint32_t)(w / 8));
        if (!be || be->wlen < w / 8 || off + w / 8 > end) { ub_error(d, UB_E_TRUNCATED, UB_H_BEETAH, end, end - off, w / 8, "beetah"); break; }
        off += (uint32_t)(w / 8);
        push_payload(d, UB_H_PAYLOAD, off, end);
        break;
    }
    case 0x06: { /* Read: [UD] [TAID] [OFST] MAETAH [TV] — R-26 length arithmetic */
        uint32_t fixed = mah->len + (tv ? 4 : 0);
        uint32_t rest = total >= fixed ? total - fixed : 0;
        bool taid = false, ofst = false;
        if (no_ext) { /* ns-3-UB D17: a load request carries payload */
            m = push_fixed(d, mah, &off, end, &ok);
            if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
            if (ok) push_payload(d, UB_H_PAYLOAD, off, end);
            break;
        }
        if (rest == 8) taid = ofst = true;
        else if (rest == 4) {
            unsigned pick = d->o->read_ext4;
            if (pick == 0) pick = d->tp_kind == UB_TP_RTP ? 2 : 1;
            taid = pick == 1;
            ofst = pick == 2;
            ub_error(d, UB_E_AMBIGUOUS, UB_H_BTAH, off, 4, pick, taid ? "Read: 4 bytes taken as TAIDETAH (R-26)" : "Read: 4 bytes taken as OFSTETAH (R-26)");
        } else if (rest != 0) {
            ub_error(d, UB_E_LENGTH, bid, off, total, fixed, "Read request length (R-26)");
        }
        if (taid) push_fixed(d, &ub_hdr_taidetah, &off, end, &ok);
        if (ofst) push_fixed(d, &ub_hdr_ofstetah, &off, end, &ok);
        m = push_fixed(d, mah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (ok && off < end) push_payload(d, UB_H_DATA, off, end);
        break;
    }
    case 0x07: case 0x08: case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x0E: case 0x0F: {
        /* Atomics: [UD] [TAID] MAETAH [TV] Operand1 Operand2 — TAID by length */
        uint32_t mlen = mah->len;
        uint64_t alen = 0;
        ub_val v;
        const ub_hdr *mh = ub_dec_hdr(d, ma);
        /* MAETAH.Length is at the same place with or without TAIDETAH: try both offsets */
        uint32_t hdrs = mlen + (tv ? 4 : 0);
        bool taid = false;
        for (int pass = 0; pass < (no_ext ? 1 : 2); pass++) {
            uint32_t moff = off + (pass ? 4 : 0);
            ub_layer tmp = { .hdr = mh, .data = d->p + moff, .len = moff + mlen <= end && moff + mlen <= d->len ? mlen : 0 };
            if (ub_field_value(&tmp, &mh->fields[compact ? MAC_LEN : MA_LEN], &v) != 0) continue;
            alen = compact ? (64u << v.u) : v.u;
            if (total == (pass ? 4u : 0u) + hdrs + 2 * alen) { taid = pass == 1; break; }
        }
        if (taid) push_fixed(d, &ub_hdr_taidetah, &off, end, &ok);
        m = push_fixed(d, mah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (!ok) break;
        alen = compact ? (64u << UB_LROW(m, maetah_c_fields, MAC_LEN)) : UB_LROW(m, maetah_fields, MA_LEN);
        if (alen != 1 && alen != 2 && alen != 4 && alen != 8 && alen != 16 && alen != 32 && alen != 64)
            ub_error(d, UB_E_VALUE, ma, off, alen, 8, "atomic operand length (TA-10)");
        uint64_t addr = ub_lget(m, compact ? MAC_ADDR : MA_ADDR);
        if (alen && alen <= 64 && (alen & (alen - 1)) == 0 && (addr & (alen - 1)))
            ub_error(d, UB_E_VALUE, ma, off, addr, alen, "atomic address not aligned to Length (TA-10)");
        if ((uint64_t)(end - off) != 2 * alen) {
            ub_error(d, UB_E_LENGTH, ma, off, end - off, 2 * alen, "atomic payload = 2 x Length (TA-10)");
            push_payload(d, UB_H_PAYLOAD, off, end);
        } else {
            push_payload(d, UB_H_ATOMIC_OPS, off, off + (uint32_t)alen);
            push_payload(d, UB_H_ATOMIC_OPS, off + (uint32_t)alen, end);
        }
        break;
    }
    case 0x00: case 0x01: { /* Send[_with_immediate]: [UD] MTETAH OFSTETAH [IMMETAH] [TV] Payload */
        push_fixed(d, &ub_hdr_mtetah, &off, end, &ok);
        push_fixed(d, &ub_hdr_ofstetah, &off, end, &ok);
        if (op == 0x01) push_fixed(d, &ub_hdr_immetah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (!ok) break;
        if (d->o->urpc_heuristic && off < end && ub_dec_urpc(d, off, end)) {
            const ub_layer *last = &d->v->layer[(d->v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : d->v->nlayers) - 1];
            if (last->data >= d->p && (uint32_t)(last->data - d->p) + last->len <= end)
                off = (uint32_t)(last->data - d->p) + last->len;
        }
        push_payload(d, UB_H_PAYLOAD, off, end);
        break;
    }
    case 0x04: /* Write_with_immediate: [UD] MTETAH MAETAH IMMETAH [TV] Payload */
        push_fixed(d, &ub_hdr_mtetah, &off, end, &ok);
        m = push_fixed(d, mah, &off, end, &ok);
        push_fixed(d, &ub_hdr_immetah, &off, end, &ok);
        if (tv) push_fixed(d, &ub_hdr_tvetah, &off, end, &ok);
        if (ok) push_payload(d, UB_H_PAYLOAD, off, end);
        break;
    case 0x15: /* Prefetch_tgt: [UD] MAETAH, no payload */
        m = push_fixed(d, mah, &off, end, &ok);
        if (tv) ub_error(d, UB_E_FLAGS, bid, boff + 1, 1, 0, "Prefetch_tgt carries no TVETAH");
        if (ok && off < end) { ub_error(d, UB_E_LENGTH, ma, off, end - off, 0, "Prefetch_tgt has no payload"); push_payload(d, UB_H_DATA, off, end); }
        break;
    case 0x10: { /* Management: [UD] MGMTETAH PDU (§10.4.3.3) */
        const ub_layer *g = push_fixed(d, &ub_hdr_mgmtetah, &off, end, &ok);
        if (!ok) break;
        unsigned plen = (unsigned)UB_LROW(g, mgmtetah_fields, MG_LEN);
        unsigned code = (unsigned)UB_LROW(g, mgmtetah_fields, MG_CODE), sub = (unsigned)UB_LROW(g, mgmtetah_fields, MG_SUB);
        bool rsp = UB_LROW(g, mgmtetah_fields, MG_RSP);
        if (plen > 1024) ub_error(d, UB_E_VALUE, UB_H_MGMTETAH, off - 2, plen, 1024, "ub.mgmtetah.pdu_length (MG-04)");
        uint64_t mst = UB_LROW(g, mgmtetah_fields, MG_STATUS);
        if (!rsp && mst) ub_error(d, UB_E_RSVD_BITS, UB_H_MGMTETAH, off - 3, mst, 0, "ub.mgmtetah.status in a request");
        uint32_t pend = off + plen;
        if (pend != end) {
            ub_error(d, UB_E_LENGTH, UB_H_MGMTETAH, off - 2, plen, end - off, "ub.mgmtetah.pdu_length vs packet (MG-04)");
            if (pend > end) pend = end;
        }
        ub_dec_mgmt_pdu(d, off, pend, code, sub, rsp); /* also for PDU Length 0: MG-04 checks */
        if (pend < end) push_payload(d, UB_H_DATA, pend, end);
        break;
    }
    default:
        ub_error(d, UB_E_UNKNOWN_TAOPCODE, bid, boff, op, 0, "ub.btah.taopcode");
        push_payload(d, UB_H_DATA, off, end);
    }
    (void)m;
}
