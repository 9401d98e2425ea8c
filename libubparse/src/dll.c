/* Data link layer (spec §4, digest §2, §7.6): schema tables of LPH/LBH/LCH/BCRC/END/padding and every
 * DLLCB body, the flit-record decoders (LINKTYPE_USER0/USER1), PLENGTH arithmetic, framing
 * for the builder; the raw flit-stream delimiter (LINKTYPE_USER2, §2.9, R-47) is in dll_stream.c. */
#include "dll_int.h"


/* Reserved byte string (> 64 bits): warning if any byte is non-zero */
#define UBRY(h, f, off, nb, sp) \
    UBF(h, f, "Reserved", off, nb, UB_FT_BYTES, UB_BASE_HEX, UB_FF_RSVD, NULL, sp, "reserved, sender writes 0")

/* ---------------------------------------------------------------- value names */
/* §5.3.2.1 Table 5-7 (digest §3.5) */
static const ub_vname vn_rt[] = {
    { 0, "per-flow, all paths" }, { 1, "per-packet, all paths" },
    { 2, "per-flow, shortest paths" }, { 3, "per-packet, shortest paths" }, { 0, NULL }
};
/* Table 4-6 */
static const ub_vname vn_ctrl[] = {
    { 0x0, "Null/NOB" }, { 0x1, "Retry" }, { 0x2, "Crd_Ack" }, { 0x3, "Param_Exchg" },
    { 0x4, "Lane_Manage" }, { 0x5, "Block_Mode_Chg" }, { 0xC, "Init" }, { 0, NULL }
};
static const ub_vname vn_error_flag[] = { { 0, "good" }, { 1, "marked bad by the sender" }, { 0, NULL } };
static const ub_vname vn_crd_t[] = { { 0, "credit return" }, { 1, "initial credit" }, { 0, NULL } };
static const ub_vname vn_bmc_type[] = { { 0, "Block_Mode_Chg_REQ" }, { 1, "Block_Mode_Chg_ACK" }, { 0, NULL } };
static const ub_vname vn_lw[] = { { 1, "x1" }, { 2, "x2" }, { 4, "x4" }, { 8, "x8" }, { 0, NULL } };

/* ---------------------------------------------------------------- LPH §4.3.2.2.2 Table 4-1, R-01 */
#define LPH_ROWS(RT_ROW) \
    [LPH_CRD] = UBB(lph, crd, "CRD", 0, "§4.3.2.2.2 T4-1, R-01", "1 = returns DATA_CREDIT_GRAIN_SIZE credit of VL CRD_VL"), \
    [LPH_ACK] = UBB(lph, ack, "ACK", 1, "§4.3.2.2.2 T4-1, R-01", "1 = releases DATA_ACK_GRAIN_SIZE flits of the peer Retry Buffer"), \
    [LPH_CRD_VL] = UBU(lph, crd_vl, "CRD_VL", 2, 4, UB_BASE_DEC, NULL, "§4.3.2.2.2 T4-1, R-01", "VL of the returned credit"), \
    [LPH_RSVD0] = UBR(lph, rsvd0, 6, 1, "§4.3.2.2.2 T4-1, R-01"), \
    [LPH_VL] = UBU(lph, vl, "VL", 7, 4, UB_BASE_DEC, NULL, "§4.3.2.2.2 T4-1, R-01", "virtual lane of this DLLDP"), \
    [LPH_RSVD1] = UBR(lph, rsvd1, 11, 1, "§4.3.2.2.2 T4-1, R-01"), \
    [LPH_CFG] = UBU(lph, cfg, "CFG", 12, 4, UB_BASE_DEC, ub_vn_cfg, "§4.3.2.2.2 T4-1, App. B T B-1", "packet class"), \
    [LPH_RT] = RT_ROW, \
    [LPH_PLENGTH] = UBU(lph, plength, "PLENGTH", 18, 14, UB_BASE_HEX, NULL, "§4.3.2.2.2 T4-1, R-02", "DLLDP length code"), \
    [LPH_PLENGTH_BLOCKS] = UBU(lph, plength_blocks, "PLENGTH[13:10]", 18, 4, UB_BASE_DEC, NULL, \
                               "§4.3.2.2.2 T4-1, R-02", "number of DLLDBs - 1"), \
    [LPH_PLENGTH_FLITS] = UBU(lph, plength_flits, "PLENGTH[9:5]", 22, 5, UB_BASE_DEC, NULL, \
                              "§4.3.2.2.2 T4-1, R-02", "flits in the last DLLDB - 1"), \
    [LPH_PLENGTH_TAIL] = UBU(lph, plength_tail, "PLENGTH[4:0]", 27, 5, UB_BASE_DEC, NULL, "§4.3.2.2.2 T4-1, R-02", \
                             "where the payload ends and its bytes in that flit (digest §2.4)")
static const ub_field lph_fields[] = {
    LPH_ROWS(UBU(lph, rt, "RT", 16, 2, UB_BASE_DEC, vn_rt, "§5.3.2.1 T5-7, R-01", "routing type")),
};
UB_HDR_DEF(lph, UB_H_LPH, "lph", "lph", "Link Packet Header", "§4.3.2.2.2 Table 4-1", LPH_LEN, lph_fields);
/* ns-3-UB D1: byte 2 b7 = LB mode (spec RT[0]), b6 = path set (spec RT[1]); the row gives the spec value */
static const ub_field lph_ns3_fields[] = {
    LPH_ROWS(UBF(lph, rt, "RT", 16, 2, UB_FT_UINT, UB_BASE_DEC, UB_FF_BITREV, vn_rt, "§5.3.2.1 T5-7; ns-3-UB D1",
                 "routing type (ns-3-UB writes its two bits swapped)")),
};
UB_HDR_VAR(lph_ns3, UB_H_LPH, UB_V_LPH_NS3, "lph_ns3", "lph", "Link Packet Header (ns-3-UB)", "§4.3.2.2.2; ns-3-UB D1, D2",
           LPH_LEN, lph_ns3_fields);

/* ---------------------------------------------------------------- LBH §4.3.2.2.3 Table 4-2, R-01 */
static const ub_field lbh_fields[] = {
    [LBH_CRD] = UBB(lbh, crd, "CRD", 0, "§4.3.2.2.3 T4-2, R-01", "1 = returns DATA_CREDIT_GRAIN_SIZE credit of VL CRD_VL"),
    [LBH_ACK] = UBB(lbh, ack, "ACK", 1, "§4.3.2.2.3 T4-2, R-01", "1 = releases DATA_ACK_GRAIN_SIZE flits of the peer Retry Buffer"),
    [LBH_CRD_VL] = UBU(lbh, crd_vl, "CRD_VL", 2, 4, UB_BASE_DEC, NULL, "§4.3.2.2.3 T4-2, R-01", "VL of the returned credit"),
    [LBH_RSVD0] = UBR(lbh, rsvd0, 6, 1, "§4.3.2.2.3 T4-2, R-01"),
    [LBH_VL] = UBU(lbh, vl, "VL", 7, 4, UB_BASE_DEC, NULL, "§4.3.2.2.3 T4-2, §4.5.1", "must equal LPH.VL"),
    [LBH_RSVD1] = UBR(lbh, rsvd1, 11, 1, "§4.3.2.2.3 T4-2, R-01"),
    [LBH_CFG] = UBU(lbh, cfg, "CFG", 12, 4, UB_BASE_DEC, ub_vn_cfg, "§4.3.2.2.3 T4-2, R-46", "should equal LPH.CFG"),
};
UB_HDR_DEF(lbh, UB_H_LBH, "lbh", "lbh", "Link Block Header", "§4.3.2.2.3 Table 4-2", LBH_LEN, lbh_fields);

/* ---------------------------------------------------------------- LCH §4.3.3.1 Table 4-5 (byte 3 is per type) */
static const ub_field lch_fields[] = {
    [LCH_FIXED0] = UBU(lch, fixed0, "1'b0", 0, 1, UB_BASE_DEC, NULL, "§4.3.3.1 T4-5, R-01", "fixed 0"),
    [LCH_CLENGTH] = UBU(lch, clength, "CLENGTH", 1, 5, UB_BASE_DEC, NULL, "§4.3.3.1 T4-5", "DLLCB length in flits - 1"),
    [LCH_FIXED] = UBU(lch, fixed, "6'b100000", 6, 6, UB_BASE_HEX, NULL, "§4.3.3.1 T4-5, R-01", "fixed pattern 0x20"),
    [LCH_CFG] = UBU(lch, cfg, "CFG", 12, 4, UB_BASE_DEC, ub_vn_cfg, "§4.3.3.1 T4-5", "0 for every DLLCB"),
    [LCH_CTRL] = UBU(lch, ctrl, "CTRL", 16, 4, UB_BASE_HEX, vn_ctrl, "§4.3.3.1 T4-6", "DLLCB type"),
    [LCH_SUB_CTRL] = UBU(lch, sub_ctrl, "SUB_CTRL", 20, 4, UB_BASE_HEX, NULL, "§4.3.3.1 T4-6", "DLLCB subtype"),
};
UB_HDR_DEF(lch, UB_H_LCH, "lch", "lch", "Link Control Header", "§4.3.3.1 Table 4-5", LCH_LEN, lch_fields);

/* ---------------------------------------------------------------- BCRC §4.3.2.2.4 Table 4-3, §4.7.2 */
static const ub_field bcrc_fields[] = {
    [BCRC_RSVD0] = UBR(bcrc, rsvd0, 0, 1, "§4.3.2.2.4 T4-3"),
    [BCRC_ERROR_FLAG] = UBU(bcrc, error_flag, "ERROR_FLAG", 1, 1, UB_BASE_DEC, vn_error_flag, "§4.3.2.2.4 T4-3, §4.8.3",
                            "1 = DLLDP marked bad by the sender (last DLLDB only)"),
    [BCRC_CRC30] = UBU(bcrc, crc30, "CRC30", 2, 30, UB_BASE_HEX, NULL, "§4.3.2.2.4 T4-3, §4.7.2", "carried block CRC"),
    [BCRC_COMPUTED] = UBF(bcrc, computed, "CRC30 (computed)", 2, 30, UB_FT_UINT, UB_BASE_HEX, UB_FF_AUX, NULL,
                          "§4.7.2, R-03", "CRC30 computed over the block (variant per options)"),
    [BCRC_STATUS] = UBF(bcrc, status, "CRC30 status", 0, 8, UB_FT_UINT, UB_BASE_DEC, UB_FF_STATUS, ub_vn_cksum_status,
                        "§4.7.2", "carried vs computed CRC30"),
};
UB_HDR_DEF(bcrc, UB_H_BCRC, "bcrc", "bcrc", "Block CRC", "§4.3.2.2.4 Table 4-3", BCRC_LEN, bcrc_fields);

/* ---------------------------------------------------------------- END §4.3.2.3 Table 4-4 */
static const ub_field end_fields[] = {
    [END_RSVD0] = UBR(end, rsvd0, 0, 1, "§4.3.2.3 T4-4"),
    [END_ERROR_FLAG] = UBU(end, error_flag, "ERROR_FLAG", 1, 1, UB_BASE_DEC, vn_error_flag, "§4.3.2.3 T4-4, §4.8.3",
                           "1 = DLLDP marked bad by the sender"),
    [END_RSVD1] = UBR(end, rsvd1, 2, 6, "§4.3.2.3 T4-4"),
};
UB_HDR_DEF(end, UB_H_END, "end", "end", "Non-CRC mode END", "§4.3.2.3 Table 4-4", END_LEN, end_fields);

/* ---------------------------------------------------------------- flit padding §4.3.2.1 */
enum { PAD_PADDING };
static const ub_field flitpad_fields[] = {
    [PAD_PADDING] = UBY(flitpad, padding, "Padding", 0, 0, "§4.3.2.1, DL-08", "zero bytes completing the last flit(s)"),
};
UB_HDR_DEF(flitpad, UB_H_FLITPAD, "flitpad", "flitpad", "Flit padding", "§4.3.2.1", 0, flitpad_fields);

/* ---------------------------------------------------------------- DLLCB bodies (§4.3.3.x, digest §2.8)
 * Every body table describes the WHOLE block from flit byte 0 (the LCH bytes 0-2 are in the LCH table),
 * so bit offsets are flit-byte offsets (flit k starts at bit 160·k). */

/* §4.3.3.2/§4.3.3.3/§4.3.3.4.1: Null Block, NOB, Retry_Idle */
enum { SIMPLE_RSVD0, SIMPLE_RSVD1 };
static const ub_field null_fields[] = {
    [SIMPLE_RSVD0] = UBR(null_block, rsvd0, 24, 8, "§4.3.3.2"),
    [SIMPLE_RSVD1] = UBRY(null_block, rsvd1, 32, 96, "§4.3.3.2"),
};
UB_HDR_DEF(dllcb_null, UB_H_DLLCB_NULL, "dllcb_null", "null_block", "Null Block", "§4.3.3.2", FLIT, null_fields);
static const ub_field nob_fields[] = {
    [SIMPLE_RSVD0] = UBR(nob, rsvd0, 24, 8, "§4.3.3.3"),
    [SIMPLE_RSVD1] = UBRY(nob, rsvd1, 32, 96, "§4.3.3.3"),
};
UB_HDR_DEF(dllcb_nob, UB_H_DLLCB_NOB, "dllcb_nob", "nob", "No_Operation Block", "§4.3.3.3", FLIT, nob_fields);
static const ub_field retry_idle_fields[] = {
    [SIMPLE_RSVD0] = UBR(retry_idle, rsvd0, 24, 8, "§4.3.3.4.1"),
    [SIMPLE_RSVD1] = UBRY(retry_idle, rsvd1, 32, 96, "§4.3.3.4.1"),
};
UB_HDR_DEF(dllcb_retry_idle, UB_H_DLLCB_RETRY_IDLE, "dllcb_retry_idle", "retry_idle", "Retry_Idle Block",
           "§4.3.3.4.1", FLIT, retry_idle_fields);

/* §4.3.3.4.2 Fig 4-19 — R-05 */
static const ub_field retry_req_fields[] = {
    [RREQ_RSVD0] = UBR(retry_req, rsvd0, 24, 8, "§4.3.3.4.2"),
    [RREQ_RSVD1] = UBR(retry_req, rsvd1, 32, 32, "§4.3.3.4.2, R-05"),
    [RREQ_RCVPTR] = UBU(retry_req, rcvptr, "RcvPtr", 64, 16, UB_BASE_DEC, NULL, "§4.3.3.4.2, R-05",
                        "peer Retry Buffer index of the first flit to retransmit"),
    [RREQ_NUM_PHY_REINIT] = UBU(retry_req, num_phy_reinit, "NUM_PHY_REINIT", 80, 16, UB_BASE_DEC, NULL,
                                "§4.3.3.4.2, R-05", "PHY re-initialisations in this retry event"),
    [RREQ_NUM_RETRY] = UBU(retry_req, num_retry, "NUM_RETRY", 96, 16, UB_BASE_DEC, NULL, "§4.3.3.4.2, R-05",
                           "Retry_Req_Sets sent since the last PHY re-init"),
    [RREQ_RSVD2] = UBR(retry_req, rsvd2, 112, 16, "§4.3.3.4.2, R-05"),
};
UB_HDR_DEF(dllcb_retry_req, UB_H_DLLCB_RETRY_REQ, "dllcb_retry_req", "retry_req", "Retry_Req Block",
           "§4.3.3.4.2 Fig 4-19", FLIT, retry_req_fields);

/* §4.3.3.4.3 Fig 4-20 — R-06 */
static const ub_field retry_ack_fields[] = {
    [RACK_RSVD0] = UBR(retry_ack, rsvd0, 24, 8, "§4.3.3.4.3"),
    [RACK_RSVD1] = UBR(retry_ack, rsvd1, 32, 32, "§4.3.3.4.3, R-06"),
    [RACK_NUMFREEBUF] = UBU(retry_ack, numfreebuf, "NumFreeBuf", 64, 16, UB_BASE_DEC, NULL, "§4.3.3.4.3, R-06",
                            "free Retry Buffer space of the responder, flits"),
    [RACK_RDPTR] = UBU(retry_ack, rdptr, "RdPtr", 80, 16, UB_BASE_DEC, NULL, "§4.3.3.4.3, R-06",
                       "first retransmitted Retry Buffer index"),
    [RACK_WRPTR] = UBU(retry_ack, wrptr, "WrPtr", 96, 16, UB_BASE_DEC, NULL, "§4.3.3.4.3, R-06",
                       "one past the newest backed-up flit"),
    [RACK_RSVD2] = UBR(retry_ack, rsvd2, 112, 16, "§4.3.3.4.3, R-06, I-03"),
};
UB_HDR_DEF(dllcb_retry_ack, UB_H_DLLCB_RETRY_ACK, "dllcb_retry_ack", "retry_ack", "Retry_Ack Block",
           "§4.3.3.4.3 Fig 4-20", FLIT, retry_ack_fields);

/* §4.3.3.5 Figs 4-21/4-22 — R-04. CRD_NUM = flit bytes 6..17 as a 96-bit big-endian integer,
 * VLn = CRD_NUM[6n+5:6n] -> bit offset 48 + 95 - (6n+5) = 138 - 6n. */
#define CRD_VL(n) UBU(crd_ack, crd_num_vl##n, "CRD_NUM[VL" #n "]", 138 - 6 * (n), 6, UB_BASE_DEC, NULL, \
                      "§4.3.3.5 Fig 4-21", "credits for VL" #n " in CTRL_CREDIT_GRAIN_SIZE units")
#define CRD_ACK_ROWS(VLROW) \
    [CRD_SD] = UBU(crd_ack, sd, "SD (SEND_DONE)", 24, 1, UB_BASE_DEC, ub_vn_yesno, "§4.3.3.5, R-04", \
                   "T=1 only: last initial-credit Crd_Ack"), \
    [CRD_RSVD0] = UBR(crd_ack, rsvd0, 25, 6, "§4.3.3.5, R-04"), \
    [CRD_T] = UBU(crd_ack, t, "T", 31, 1, UB_BASE_DEC, vn_crd_t, "§4.3.3.5, R-04", "1 = initial credits"), \
    [CRD_ACK_NUM] = UBU(crd_ack, ack_num, "ACK_NUM", 32, 16, UB_BASE_DEC, NULL, "§4.3.3.5", \
                        "releases ACK_NUM x CTRL_ACK_GRAIN_SIZE flits of the peer Retry Buffer"), \
    [CRD_VL0] = VLROW(0), [CRD_VL1] = VLROW(1), [CRD_VL2] = VLROW(2), [CRD_VL3] = VLROW(3), \
    [CRD_VL4] = VLROW(4), [CRD_VL5] = VLROW(5), [CRD_VL6] = VLROW(6), [CRD_VL7] = VLROW(7), \
    [CRD_VL8] = VLROW(8), [CRD_VL9] = VLROW(9), [CRD_VL10] = VLROW(10), [CRD_VL11] = VLROW(11), \
    [CRD_VL12] = VLROW(12), [CRD_VL13] = VLROW(13), [CRD_VL14] = VLROW(14), [CRD_VL15] = VLROW(15), \
    [CRD_RSVD1] = UBR(crd_ack, rsvd1, 144, 16, "§4.3.3.5 Fig 4-21"), \
    [CRD_RSVD2] = UBRY(crd_ack, rsvd2, 160, 128, "§4.3.3.5 Fig 4-22")
static const ub_field crd_ack_fields[] = { CRD_ACK_ROWS(CRD_VL) };
UB_HDR_DEF(dllcb_crd_ack, UB_H_DLLCB_CRD_ACK, "dllcb_crd_ack", "crd_ack", "Crd_Ack Block", "§4.3.3.5 Figs 4-21/4-22",
           2 * FLIT, crd_ack_fields);
/* ns-3-UB D3: the 16 credit fields in the order VL0 .. VL15 (spec: VL15 first) */
#define CRD_VL_NS3(n) UBU(crd_ack, crd_num_vl##n, "CRD_NUM[VL" #n "]", 48 + 6 * (n), 6, UB_BASE_DEC, NULL, \
                          "§4.3.3.5; ns-3-UB D3", "credits for VL" #n " (ns-3-UB order: VL0 first)")
static const ub_field crd_ack_ns3_fields[] = { CRD_ACK_ROWS(CRD_VL_NS3) };
UB_HDR_VAR(dllcb_crd_ack_ns3, UB_H_DLLCB_CRD_ACK, UB_V_CRD_ACK_NS3, "dllcb_crd_ack_ns3", "crd_ack",
           "Crd_Ack Block (ns-3-UB)", "§4.3.3.5; ns-3-UB D3, D4", 2 * FLIT, crd_ack_ns3_fields);

/* §4.3.3.7 Fig 4-26, Table 4-7 — CMD at flit bytes 4..11 */
enum { LM_RSVD0, LM_REQ_ID, LM_RSVD1, LM_POWER_DOWN, LM_CHANGE_RLW, LM_CHANGE_TLW, LM_RSP_ID, LM_RSVD2,
       LM_RX_LANE_UP, LM_RSP_RLW, LM_RSP_TLW, LM_RSVD3, LM_TLW, LM_RSVD4, LM_RLW, LM_RSVD5, LM_RSVD6 };
static const ub_field lane_manage_fields[] = {
    [LM_RSVD0] = UBR(lane_manage, rsvd0, 24, 8, "§4.3.3.7"),
    [LM_REQ_ID] = UBU(lane_manage, req_id, "REQ_ID", 32, 4, UB_BASE_HEX, NULL, "§4.3.3.7 T4-7, R-09", "fixed 0x5"),
    [LM_RSVD1] = UBR(lane_manage, rsvd1, 36, 1, "§4.3.3.7 T4-7, R-09"),
    [LM_POWER_DOWN] = UBB(lane_manage, power_down, "Power_Down", 37, "§4.3.3.7 T4-7, R-09", "request to power down all lanes"),
    [LM_CHANGE_RLW] = UBB(lane_manage, change_rlw, "Change_RLW", 38, "§4.3.3.7 T4-7, R-09", "request RX link width change"),
    [LM_CHANGE_TLW] = UBB(lane_manage, change_tlw, "Change_TLW", 39, "§4.3.3.7 T4-7, R-09", "request TX link width change"),
    [LM_RSP_ID] = UBU(lane_manage, rsp_id, "RSP_ID", 40, 4, UB_BASE_HEX, NULL, "§4.3.3.7 T4-7, R-09", "fixed 0xA"),
    [LM_RSVD2] = UBR(lane_manage, rsvd2, 44, 1, "§4.3.3.7 T4-7, R-09"),
    [LM_RX_LANE_UP] = UBB(lane_manage, rx_lane_up, "RX_Lane_Up", 45, "§4.3.3.7 T4-7, R-09", "lane-up completed"),
    [LM_RSP_RLW] = UBB(lane_manage, rsp_rlw, "RSP_RLW", 46, "§4.3.3.7 T4-7, R-09", "RLW change: 0 NAK, 1 ACK"),
    [LM_RSP_TLW] = UBB(lane_manage, rsp_tlw, "RSP_TLW", 47, "§4.3.3.7 T4-7, R-09", "TLW change: 0 NAK, 1 ACK"),
    [LM_RSVD3] = UBR(lane_manage, rsvd3, 48, 2, "§4.3.3.7 T4-7, R-09"),
    [LM_TLW] = UBU(lane_manage, tlw, "TLW", 50, 6, UB_BASE_HEX, vn_lw, "§4.3.3.7 T4-7, R-09", "TX link width (one-hot)"),
    [LM_RSVD4] = UBR(lane_manage, rsvd4, 56, 2, "§4.3.3.7 T4-7, R-09"),
    [LM_RLW] = UBU(lane_manage, rlw, "RLW", 58, 6, UB_BASE_HEX, vn_lw, "§4.3.3.7 T4-7, R-09", "RX link width (one-hot)"),
    [LM_RSVD5] = UBR(lane_manage, rsvd5, 64, 32, "§4.3.3.7 T4-7, R-09"),
    [LM_RSVD6] = UBR(lane_manage, rsvd6, 96, 32, "§4.3.3.7 Fig 4-26"),
};
UB_HDR_DEF(dllcb_lane_manage, UB_H_DLLCB_LANE_MANAGE, "dllcb_lane_manage", "lane_manage", "Lane_Manage Block",
           "§4.3.3.7 Fig 4-26, Table 4-7", FLIT, lane_manage_fields);

/* §4.3.3.8 Fig 4-27 — TYPE at byte 3 b3:0 */
enum { BMC_RSVD0, BMC_TYPE, BMC_RSVD1 };
static const ub_field block_mode_chg_fields[] = {
    [BMC_RSVD0] = UBR(block_mode_chg, rsvd0, 24, 4, "§4.3.3.8, R-07"),
    [BMC_TYPE] = UBU(block_mode_chg, type, "TYPE", 28, 4, UB_BASE_DEC, vn_bmc_type, "§4.3.3.8, R-07", "REQ or ACK"),
    [BMC_RSVD1] = UBRY(block_mode_chg, rsvd1, 32, 96, "§4.3.3.8"),
};
UB_HDR_DEF(dllcb_block_mode_chg, UB_H_DLLCB_BLOCK_MODE_CHG, "dllcb_block_mode_chg", "block_mode_chg",
           "Block_Mode_Chg Block", "§4.3.3.8 Fig 4-27", FLIT, block_mode_chg_fields);

/* §4.3.3.9 Table 4-8 — Init Block. R-08: layout A (Table 4-8 bit numbering, bit 159 = flit byte 0 b7) is
 * ub_hdr_dllcb_init; the figure-based layout B is ub_hdr_dllcb_init_alt (opts->init_variant). Flits 5..N-1
 * are reserved (not described). */
/* One credit-grain row per VL (Table 4-8): rows differ only in VL number and bit offset. */
#define INIT_CTRL_CG(t, n, off, sp)                                                                          \
    [t##_CTRL_CREDIT_GRAIN_SIZE_VL##n] = UBU(init_block, ctrl_credit_grain_size_vl##n,                    \
        "CTRL_CREDIT_GRAIN_SIZE[VL" #n "]", off, 8, UB_BASE_HEX, NULL, sp,                                 \
        "Crd_Ack credit granularity of VL" #n ", bitmap {b7..b0} = {128..1} cells")
#define INIT_DATA_CG(t, n, off, sp)                                                                          \
    [t##_DATA_CREDIT_GRAIN_SIZE_VL##n] = UBU(init_block, data_credit_grain_size_vl##n,                    \
        "DATA_CREDIT_GRAIN_SIZE[VL" #n "]", off, 8, UB_BASE_HEX, NULL, sp,                                 \
        "LPH/LBH CRD credit granularity of VL" #n ", bitmap {b7..b0} = {128..1} cells")

enum {
    INITA_RSVD0, INITA_RSVD1, INITA_FEATURE_ID, INITA_RSVD2, INITA_RXBUF_VL_SHARE,
    INITA_DATA_ACK_GRAIN_SIZE, INITA_CTRL_ACK_GRAIN_SIZE, INITA_FLOW_CTRL_SIZE, INITA_VL_ENABLE,
    INITA_RSVD3, INITA_RETRY_BUF_DEPTH, INITA_RSVD4, INITA_CTRL_CREDIT_GRAIN_SIZE_VL13,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL12, INITA_CTRL_CREDIT_GRAIN_SIZE_VL11,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL10, INITA_CTRL_CREDIT_GRAIN_SIZE_VL9,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL8, INITA_CTRL_CREDIT_GRAIN_SIZE_VL7,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL6, INITA_CTRL_CREDIT_GRAIN_SIZE_VL5,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL4, INITA_CTRL_CREDIT_GRAIN_SIZE_VL3,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL2, INITA_CTRL_CREDIT_GRAIN_SIZE_VL1,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL0, INITA_RSVD5, INITA_DATA_CREDIT_GRAIN_SIZE_VL11,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL10, INITA_DATA_CREDIT_GRAIN_SIZE_VL9,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL8, INITA_DATA_CREDIT_GRAIN_SIZE_VL7,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL6, INITA_DATA_CREDIT_GRAIN_SIZE_VL5,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL4, INITA_DATA_CREDIT_GRAIN_SIZE_VL3,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL2, INITA_DATA_CREDIT_GRAIN_SIZE_VL1,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL0, INITA_CTRL_CREDIT_GRAIN_SIZE_VL15,
    INITA_CTRL_CREDIT_GRAIN_SIZE_VL14, INITA_RSVD6, INITA_PACKET_MIN_INTERVAL,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL15, INITA_DATA_CREDIT_GRAIN_SIZE_VL14,
    INITA_DATA_CREDIT_GRAIN_SIZE_VL13, INITA_DATA_CREDIT_GRAIN_SIZE_VL12, INITA_RSVD7,
};
static const ub_field init_a_fields[] = {
    [INITA_RSVD0] = UBR(init_block, rsvd0, 24, 8, "§4.3.3.9 T4-8, R-08"),
    [INITA_RSVD1] = UBR(init_block, rsvd1, 32, 40, "§4.3.3.9 T4-8, R-08"),
    [INITA_FEATURE_ID] = UBU(init_block, feature_id, "FEATURE_ID", 72, 16, UB_BASE_HEX, NULL, "§4.3.3.9 T4-8, R-08", "DLL protocol version (this spec: 0x0001)"),
    [INITA_RSVD2] = UBR(init_block, rsvd2, 88, 7, "§4.3.3.9 T4-8, R-08"),
    [INITA_RXBUF_VL_SHARE] = UBB(init_block, rxbuf_vl_share, "RXBUF_VL_SHARE", 95, "§4.3.3.9 T4-8, R-08", "1 = receive buffer supports VL sharing"),
    [INITA_DATA_ACK_GRAIN_SIZE] = UBU(init_block, data_ack_grain_size, "DATA_ACK_GRAIN_SIZE", 96, 8, UB_BASE_HEX, NULL, "§4.3.3.9 T4-8, R-08", "supported LPH/LBH ACK granularities, bitmap {b7..b0} = {128..1} flits"),
    [INITA_CTRL_ACK_GRAIN_SIZE] = UBU(init_block, ctrl_ack_grain_size, "CTRL_ACK_GRAIN_SIZE", 104, 8, UB_BASE_HEX, NULL, "§4.3.3.9 T4-8, R-08", "supported Crd_Ack ACK_NUM granularities, bitmap {128..1} flits"),
    [INITA_FLOW_CTRL_SIZE] = UBU(init_block, flow_ctrl_size, "FLOW_CTRL_SIZE", 112, 8, UB_BASE_HEX, NULL, "§4.3.3.9 T4-8, R-08", "flits per credit cell, bitmap {128..1}"),
    [INITA_VL_ENABLE] = UBU(init_block, vl_enable, "VL_ENABLE", 120, 16, UB_BASE_HEX, NULL, "§4.3.3.9 T4-8, R-08", "bit n = VLn supported (bit 0 must be 1)"),
    [INITA_RSVD3] = UBR(init_block, rsvd3, 136, 8, "§4.3.3.9 T4-8, R-08"),
    [INITA_RETRY_BUF_DEPTH] = UBU(init_block, retry_buf_depth, "RETRY_BUF_DEPTH", 144, 16, UB_BASE_DEC, NULL, "§4.3.3.9 T4-8, R-08", "sender Retry Buffer depth, flits"),
    [INITA_RSVD4] = UBR(init_block, rsvd4, 160, 48, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 13, 208, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 12, 216, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 11, 224, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 10, 232, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 9, 240, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 8, 248, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 7, 256, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 6, 264, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 5, 272, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 4, 280, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 3, 288, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 2, 296, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 1, 304, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 0, 312, "§4.3.3.9 T4-8, R-08"),
    [INITA_RSVD5] = UBR(init_block, rsvd5, 320, 48, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 11, 368, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 10, 376, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 9, 384, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 8, 392, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 7, 400, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 6, 408, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 5, 416, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 4, 424, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 3, 432, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 2, 440, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 1, 448, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 0, 456, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 15, 464, "§4.3.3.9 T4-8, R-08"),
    INIT_CTRL_CG(INITA, 14, 472, "§4.3.3.9 T4-8, R-08"),
    [INITA_RSVD6] = UBRY(init_block, rsvd6, 480, 120, "§4.3.3.9 T4-8, R-08"),
    [INITA_PACKET_MIN_INTERVAL] = UBU(init_block, packet_min_interval, "PACKET_MIN_INTERVAL", 600, 8, UB_BASE_DEC, NULL, "§4.3.3.9 T4-8, R-08", "minimum flits between DLLDP starts accepted by the receiver"),
    INIT_DATA_CG(INITA, 15, 608, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 14, 616, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 13, 624, "§4.3.3.9 T4-8, R-08"),
    INIT_DATA_CG(INITA, 12, 632, "§4.3.3.9 T4-8, R-08"),
    [INITA_RSVD7] = UBRY(init_block, rsvd7, 640, 128, "§4.3.3.9 T4-8, R-08"),
};

enum {
    INITB_RSVD0, INITB_RSVD1, INITB_FEATURE_ID, INITB_RSVD2, INITB_RXBUF_VL_SHARE,
    INITB_DATA_ACK_GRAIN_SIZE, INITB_CTRL_ACK_GRAIN_SIZE, INITB_FLOW_CTRL_SIZE, INITB_VL_ENABLE,
    INITB_RSVD3, INITB_RETRY_BUF_DEPTH, INITB_RSVD4, INITB_RSVD5, INITB_CTRL_CREDIT_GRAIN_SIZE_VL13,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL12, INITB_CTRL_CREDIT_GRAIN_SIZE_VL11,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL10, INITB_CTRL_CREDIT_GRAIN_SIZE_VL9,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL8, INITB_CTRL_CREDIT_GRAIN_SIZE_VL7,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL6, INITB_CTRL_CREDIT_GRAIN_SIZE_VL5,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL4, INITB_CTRL_CREDIT_GRAIN_SIZE_VL3,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL2, INITB_CTRL_CREDIT_GRAIN_SIZE_VL1,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL0, INITB_RSVD6, INITB_RSVD7, INITB_DATA_CREDIT_GRAIN_SIZE_VL11,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL10, INITB_DATA_CREDIT_GRAIN_SIZE_VL9,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL8, INITB_DATA_CREDIT_GRAIN_SIZE_VL7,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL6, INITB_DATA_CREDIT_GRAIN_SIZE_VL5,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL4, INITB_DATA_CREDIT_GRAIN_SIZE_VL3,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL2, INITB_DATA_CREDIT_GRAIN_SIZE_VL1,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL0, INITB_CTRL_CREDIT_GRAIN_SIZE_VL15,
    INITB_CTRL_CREDIT_GRAIN_SIZE_VL14, INITB_RSVD8, INITB_RSVD9, INITB_PACKET_MIN_INTERVAL,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL15, INITB_DATA_CREDIT_GRAIN_SIZE_VL14,
    INITB_DATA_CREDIT_GRAIN_SIZE_VL13, INITB_DATA_CREDIT_GRAIN_SIZE_VL12, INITB_RSVD10, INITB_RSVD11,
};
static const ub_field init_b_fields[] = {
    [INITB_RSVD0] = UBR(init_block, rsvd0, 24, 8, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD1] = UBR(init_block, rsvd1, 32, 8, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_FEATURE_ID] = UBU(init_block, feature_id, "FEATURE_ID", 40, 16, UB_BASE_HEX, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "DLL protocol version (this spec: 0x0001)"),
    [INITB_RSVD2] = UBR(init_block, rsvd2, 56, 7, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RXBUF_VL_SHARE] = UBB(init_block, rxbuf_vl_share, "RXBUF_VL_SHARE", 63, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "1 = receive buffer supports VL sharing"),
    [INITB_DATA_ACK_GRAIN_SIZE] = UBU(init_block, data_ack_grain_size, "DATA_ACK_GRAIN_SIZE", 64, 8, UB_BASE_HEX, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "supported LPH/LBH ACK granularities, bitmap {b7..b0} = {128..1} flits"),
    [INITB_CTRL_ACK_GRAIN_SIZE] = UBU(init_block, ctrl_ack_grain_size, "CTRL_ACK_GRAIN_SIZE", 72, 8, UB_BASE_HEX, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "supported Crd_Ack ACK_NUM granularities, bitmap {128..1} flits"),
    [INITB_FLOW_CTRL_SIZE] = UBU(init_block, flow_ctrl_size, "FLOW_CTRL_SIZE", 80, 8, UB_BASE_HEX, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "flits per credit cell, bitmap {128..1}"),
    [INITB_VL_ENABLE] = UBU(init_block, vl_enable, "VL_ENABLE", 88, 16, UB_BASE_HEX, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "bit n = VLn supported (bit 0 must be 1)"),
    [INITB_RSVD3] = UBR(init_block, rsvd3, 104, 8, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RETRY_BUF_DEPTH] = UBU(init_block, retry_buf_depth, "RETRY_BUF_DEPTH", 112, 16, UB_BASE_DEC, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "sender Retry Buffer depth, flits"),
    [INITB_RSVD4] = UBR(init_block, rsvd4, 128, 32, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD5] = UBR(init_block, rsvd5, 160, 32, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 13, 192, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 12, 200, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 11, 208, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 10, 216, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 9, 224, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 8, 232, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 7, 240, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 6, 248, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 5, 256, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 4, 264, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 3, 272, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 2, 280, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 1, 288, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 0, 296, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD6] = UBR(init_block, rsvd6, 304, 16, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD7] = UBR(init_block, rsvd7, 320, 32, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 11, 352, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 10, 360, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 9, 368, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 8, 376, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 7, 384, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 6, 392, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 5, 400, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 4, 408, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 3, 416, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 2, 424, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 1, 432, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 0, 440, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 15, 448, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_CTRL_CG(INITB, 14, 456, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD8] = UBR(init_block, rsvd8, 464, 16, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD9] = UBRY(init_block, rsvd9, 480, 104, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_PACKET_MIN_INTERVAL] = UBU(init_block, packet_min_interval, "PACKET_MIN_INTERVAL", 584, 8, UB_BASE_DEC, NULL, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)", "minimum flits between DLLDP starts accepted by the receiver"),
    INIT_DATA_CG(INITB, 15, 592, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 14, 600, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 13, 608, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    INIT_DATA_CG(INITB, 12, 616, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD10] = UBR(init_block, rsvd10, 624, 16, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
    [INITB_RSVD11] = UBRY(init_block, rsvd11, 640, 128, "§4.3.3.9 Figs 4-29..4-32, R-08 (B)"),
};

enum {
    PE_RSVD0, PE_RSVD1, PE_DATA0, PE_RSVD2, PE_RSVD3, PE_DATA1, PE_RSVD4, PE_RSVD5, PE_DATA2, PE_RSVD6,
    PE_RSVD7, PE_DATA3, PE_RSVD8, PE_RSVD9, PE_DATA4, PE_RSVD10, PE_RSVD11, PE_DATA5, PE_RSVD12,
    PE_RSVD13, PE_DATA6, PE_RSVD14, PE_RSVD15, PE_DATA7, PE_RSVD16, PE_RSVD17, PE_DATA8, PE_RSVD18,
    PE_RSVD19, PE_DATA9, PE_RSVD20, PE_RSVD21, PE_DATA10, PE_RSVD22, PE_RSVD23, PE_DATA11, PE_RSVD24,
    PE_RSVD25, PE_DATA12, PE_RSVD26, PE_RSVD27, PE_DATA13, PE_RSVD28, PE_RSVD29, PE_DATA14, PE_RSVD30,
    PE_RSVD31, PE_DATA15, PE_RSVD32, PE_RSVD33, PE_DATA16, PE_RSVD34, PE_RSVD35, PE_DATA17, PE_RSVD36,
    PE_RSVD37, PE_DATA18, PE_RSVD38, PE_RSVD39, PE_DATA19, PE_RSVD40, PE_RSVD41, PE_DATA20, PE_RSVD42,
    PE_RSVD43, PE_DATA21, PE_RSVD44, PE_RSVD45, PE_DATA22, PE_RSVD46, PE_RSVD47, PE_DATA23, PE_RSVD48,
    PE_RSVD49, PE_DATA24, PE_RSVD50, PE_RSVD51, PE_DATA25, PE_RSVD52, PE_RSVD53, PE_DATA26, PE_RSVD54,
    PE_RSVD55, PE_DATA27, PE_RSVD56, PE_RSVD57, PE_DATA28, PE_RSVD58, PE_RSVD59, PE_DATA29, PE_RSVD60,
    PE_RSVD61, PE_DATA30, PE_RSVD62, PE_RSVD63, PE_DATA31, PE_RSVD64,
};
static const ub_field pe_fields[] = {
    [PE_RSVD0] = UBR(param_exchg, rsvd0, 24, 8, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD1] = UBR(param_exchg, rsvd1, 32, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA0] = UBU(param_exchg, data0, "PARAM_EXCHG_DATA (flit 0)", 64, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 0 (flit bytes 8-11)"),
    [PE_RSVD2] = UBR(param_exchg, rsvd2, 96, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD3] = UBR(param_exchg, rsvd3, 160, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA1] = UBU(param_exchg, data1, "PARAM_EXCHG_DATA (flit 1)", 224, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 1 (flit bytes 8-11)"),
    [PE_RSVD4] = UBR(param_exchg, rsvd4, 256, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD5] = UBR(param_exchg, rsvd5, 320, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA2] = UBU(param_exchg, data2, "PARAM_EXCHG_DATA (flit 2)", 384, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 2 (flit bytes 8-11)"),
    [PE_RSVD6] = UBR(param_exchg, rsvd6, 416, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD7] = UBR(param_exchg, rsvd7, 480, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA3] = UBU(param_exchg, data3, "PARAM_EXCHG_DATA (flit 3)", 544, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 3 (flit bytes 8-11)"),
    [PE_RSVD8] = UBR(param_exchg, rsvd8, 576, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD9] = UBR(param_exchg, rsvd9, 640, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA4] = UBU(param_exchg, data4, "PARAM_EXCHG_DATA (flit 4)", 704, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 4 (flit bytes 8-11)"),
    [PE_RSVD10] = UBR(param_exchg, rsvd10, 736, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD11] = UBR(param_exchg, rsvd11, 800, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA5] = UBU(param_exchg, data5, "PARAM_EXCHG_DATA (flit 5)", 864, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 5 (flit bytes 8-11)"),
    [PE_RSVD12] = UBR(param_exchg, rsvd12, 896, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD13] = UBR(param_exchg, rsvd13, 960, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA6] = UBU(param_exchg, data6, "PARAM_EXCHG_DATA (flit 6)", 1024, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 6 (flit bytes 8-11)"),
    [PE_RSVD14] = UBR(param_exchg, rsvd14, 1056, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD15] = UBR(param_exchg, rsvd15, 1120, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA7] = UBU(param_exchg, data7, "PARAM_EXCHG_DATA (flit 7)", 1184, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 7 (flit bytes 8-11)"),
    [PE_RSVD16] = UBR(param_exchg, rsvd16, 1216, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD17] = UBR(param_exchg, rsvd17, 1280, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA8] = UBU(param_exchg, data8, "PARAM_EXCHG_DATA (flit 8)", 1344, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 8 (flit bytes 8-11)"),
    [PE_RSVD18] = UBR(param_exchg, rsvd18, 1376, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD19] = UBR(param_exchg, rsvd19, 1440, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA9] = UBU(param_exchg, data9, "PARAM_EXCHG_DATA (flit 9)", 1504, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 9 (flit bytes 8-11)"),
    [PE_RSVD20] = UBR(param_exchg, rsvd20, 1536, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD21] = UBR(param_exchg, rsvd21, 1600, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA10] = UBU(param_exchg, data10, "PARAM_EXCHG_DATA (flit 10)", 1664, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 10 (flit bytes 8-11)"),
    [PE_RSVD22] = UBR(param_exchg, rsvd22, 1696, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD23] = UBR(param_exchg, rsvd23, 1760, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA11] = UBU(param_exchg, data11, "PARAM_EXCHG_DATA (flit 11)", 1824, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 11 (flit bytes 8-11)"),
    [PE_RSVD24] = UBR(param_exchg, rsvd24, 1856, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD25] = UBR(param_exchg, rsvd25, 1920, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA12] = UBU(param_exchg, data12, "PARAM_EXCHG_DATA (flit 12)", 1984, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 12 (flit bytes 8-11)"),
    [PE_RSVD26] = UBR(param_exchg, rsvd26, 2016, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD27] = UBR(param_exchg, rsvd27, 2080, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA13] = UBU(param_exchg, data13, "PARAM_EXCHG_DATA (flit 13)", 2144, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 13 (flit bytes 8-11)"),
    [PE_RSVD28] = UBR(param_exchg, rsvd28, 2176, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD29] = UBR(param_exchg, rsvd29, 2240, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA14] = UBU(param_exchg, data14, "PARAM_EXCHG_DATA (flit 14)", 2304, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 14 (flit bytes 8-11)"),
    [PE_RSVD30] = UBR(param_exchg, rsvd30, 2336, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD31] = UBR(param_exchg, rsvd31, 2400, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA15] = UBU(param_exchg, data15, "PARAM_EXCHG_DATA (flit 15)", 2464, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 15 (flit bytes 8-11)"),
    [PE_RSVD32] = UBR(param_exchg, rsvd32, 2496, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD33] = UBR(param_exchg, rsvd33, 2560, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA16] = UBU(param_exchg, data16, "PARAM_EXCHG_DATA (flit 16)", 2624, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 16 (flit bytes 8-11)"),
    [PE_RSVD34] = UBR(param_exchg, rsvd34, 2656, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD35] = UBR(param_exchg, rsvd35, 2720, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA17] = UBU(param_exchg, data17, "PARAM_EXCHG_DATA (flit 17)", 2784, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 17 (flit bytes 8-11)"),
    [PE_RSVD36] = UBR(param_exchg, rsvd36, 2816, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD37] = UBR(param_exchg, rsvd37, 2880, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA18] = UBU(param_exchg, data18, "PARAM_EXCHG_DATA (flit 18)", 2944, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 18 (flit bytes 8-11)"),
    [PE_RSVD38] = UBR(param_exchg, rsvd38, 2976, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD39] = UBR(param_exchg, rsvd39, 3040, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA19] = UBU(param_exchg, data19, "PARAM_EXCHG_DATA (flit 19)", 3104, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 19 (flit bytes 8-11)"),
    [PE_RSVD40] = UBR(param_exchg, rsvd40, 3136, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD41] = UBR(param_exchg, rsvd41, 3200, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA20] = UBU(param_exchg, data20, "PARAM_EXCHG_DATA (flit 20)", 3264, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 20 (flit bytes 8-11)"),
    [PE_RSVD42] = UBR(param_exchg, rsvd42, 3296, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD43] = UBR(param_exchg, rsvd43, 3360, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA21] = UBU(param_exchg, data21, "PARAM_EXCHG_DATA (flit 21)", 3424, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 21 (flit bytes 8-11)"),
    [PE_RSVD44] = UBR(param_exchg, rsvd44, 3456, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD45] = UBR(param_exchg, rsvd45, 3520, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA22] = UBU(param_exchg, data22, "PARAM_EXCHG_DATA (flit 22)", 3584, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 22 (flit bytes 8-11)"),
    [PE_RSVD46] = UBR(param_exchg, rsvd46, 3616, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD47] = UBR(param_exchg, rsvd47, 3680, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA23] = UBU(param_exchg, data23, "PARAM_EXCHG_DATA (flit 23)", 3744, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 23 (flit bytes 8-11)"),
    [PE_RSVD48] = UBR(param_exchg, rsvd48, 3776, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD49] = UBR(param_exchg, rsvd49, 3840, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA24] = UBU(param_exchg, data24, "PARAM_EXCHG_DATA (flit 24)", 3904, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 24 (flit bytes 8-11)"),
    [PE_RSVD50] = UBR(param_exchg, rsvd50, 3936, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD51] = UBR(param_exchg, rsvd51, 4000, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA25] = UBU(param_exchg, data25, "PARAM_EXCHG_DATA (flit 25)", 4064, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 25 (flit bytes 8-11)"),
    [PE_RSVD52] = UBR(param_exchg, rsvd52, 4096, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD53] = UBR(param_exchg, rsvd53, 4160, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA26] = UBU(param_exchg, data26, "PARAM_EXCHG_DATA (flit 26)", 4224, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 26 (flit bytes 8-11)"),
    [PE_RSVD54] = UBR(param_exchg, rsvd54, 4256, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD55] = UBR(param_exchg, rsvd55, 4320, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA27] = UBU(param_exchg, data27, "PARAM_EXCHG_DATA (flit 27)", 4384, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 27 (flit bytes 8-11)"),
    [PE_RSVD56] = UBR(param_exchg, rsvd56, 4416, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD57] = UBR(param_exchg, rsvd57, 4480, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA28] = UBU(param_exchg, data28, "PARAM_EXCHG_DATA (flit 28)", 4544, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 28 (flit bytes 8-11)"),
    [PE_RSVD58] = UBR(param_exchg, rsvd58, 4576, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD59] = UBR(param_exchg, rsvd59, 4640, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA29] = UBU(param_exchg, data29, "PARAM_EXCHG_DATA (flit 29)", 4704, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 29 (flit bytes 8-11)"),
    [PE_RSVD60] = UBR(param_exchg, rsvd60, 4736, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD61] = UBR(param_exchg, rsvd61, 4800, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA30] = UBU(param_exchg, data30, "PARAM_EXCHG_DATA (flit 30)", 4864, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 30 (flit bytes 8-11)"),
    [PE_RSVD62] = UBR(param_exchg, rsvd62, 4896, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_RSVD63] = UBR(param_exchg, rsvd63, 4960, 64, "§4.3.3.6 Fig 4-23..4-25, R-10"),
    [PE_DATA31] = UBU(param_exchg, data31, "PARAM_EXCHG_DATA (flit 31)", 5024, 32, UB_BASE_HEX, NULL, "§4.3.3.6 Fig 4-23..4-25, R-10", "parameter word of flit 31 (flit bytes 8-11)"),
    [PE_RSVD64] = UBR(param_exchg, rsvd64, 5056, 32, "§4.3.3.6 Fig 4-23..4-25, R-10"),
};
UB_HDR_DEF(dllcb_init, UB_H_DLLCB_INIT, "dllcb_init", "init_block", "Init Block", "§4.3.3.9 Table 4-8, R-08",
           0, init_a_fields);
UB_HDR_DEF(dllcb_init_alt, UB_H_DLLCB_INIT_ALT, "dllcb_init_alt", "init_block", "Init Block (figure layout B)",
           "§4.3.3.9 Figs 4-29..4-32, R-08", 0, init_b_fields);

/* §4.3.3.6 Figs 4-23..4-25 — one PARAM_EXCHG_DATA word per flit at flit bytes 8-11. Rows of flits
 * beyond the block length are absent. Bytes 16-19 of every flit are not described (the last flit's carry
 * the BCRC/END). */
UB_HDR_DEF(dllcb_param_exchg, UB_H_DLLCB_PARAM_EXCHG, "dllcb_param_exchg", "param_exchg", "Param_Exchg Block",
           "§4.3.3.6 Figs 4-23..4-25", 0, pe_fields);

/* Reserved CTRL/SUB_CTRL (Table 4-6): just the bytes */
enum { DRSVD_BYTE3, DRSVD_DATA };
static const ub_field dllcb_rsvd_fields[] = {
    [DRSVD_BYTE3] = UBU(dllcb_rsvd, byte3, "LCH byte 3", 24, 8, UB_BASE_HEX, NULL, "§4.3.3.1 T4-6", "type-specific byte"),
    [DRSVD_DATA] = UBY(dllcb_rsvd, data, "Body", 32, 0, "§4.3.3.1 T4-6", "body of a reserved DLLCB type"),
};
UB_HDR_DEF(dllcb_rsvd, UB_H_DLLCB_RSVD, "dllcb_rsvd", "dllcb_rsvd", "Reserved DLLCB", "§4.3.3.1 Table 4-6", 0,
           dllcb_rsvd_fields);

/* §10.4.4 (digest §7.6): link-neighbour advertisement = 5-flit Param_Exchg; PARAM_EXCHG_DATA of flit 0 =
 * {RSVD[15:0], port_idx[15:0]}, flits 1..4 = GUID[31:0], [63:32], [95:64], [127:96]. Overlay of the
 * Param_Exchg block (offsets = flit-byte offsets, word of flit k at bit 160·k + 64). */
enum { LNA_RSVD0, LNA_PORT_IDX, LNA_GUID_31_0, LNA_GUID_63_32, LNA_GUID_95_64, LNA_GUID_127_96 };
static const ub_field lna_fields[] = {
    [LNA_RSVD0] = UBR(lna, rsvd0, 64, 16, "§10.4.4"),
    [LNA_PORT_IDX] = UBU(lna, port_idx, "port_idx", 80, 16, UB_BASE_DEC, NULL, "§10.4.4", "sender's port index"),
    [LNA_GUID_31_0] = UBU(lna, guid_31_0, "GUID[31:0]", 224, 32, UB_BASE_HEX, NULL, "§10.4.4, R-10",
                          "Entity 0 GUID word 0 (flit 1)"),
    [LNA_GUID_63_32] = UBU(lna, guid_63_32, "GUID[63:32]", 384, 32, UB_BASE_HEX, NULL, "§10.4.4, R-10",
                           "Entity 0 GUID word 1 (flit 2)"),
    [LNA_GUID_95_64] = UBU(lna, guid_95_64, "GUID[95:64]", 544, 32, UB_BASE_HEX, NULL, "§10.4.4, R-10",
                           "Entity 0 GUID word 2 (flit 3)"),
    [LNA_GUID_127_96] = UBU(lna, guid_127_96, "GUID[127:96]", 704, 32, UB_BASE_HEX, NULL, "§10.4.4, R-10",
                            "Entity 0 GUID word 3 (flit 4)"),
};
UB_HDR_DEF(lna, UB_H_LNA, "lna", "lna", "Link-neighbour advertisement", "§10.4.4", LNA_FLITS * FLIT, lna_fields);

/* Table 4-6 / DL-02: DLLCB type by CTRL/SUB_CTRL and allowed lengths in flits */
typedef struct dllcb_type {
    uint8_t ctrl, sub, min_flits, max_flits;
    uint16_t hdr;
} dllcb_type;
static const dllcb_type dllcb_types[] = {
    { 0x0, 0x0, 1, 1, UB_H_DLLCB_NULL },       { 0x0, 0x1, 1, 1, UB_H_DLLCB_NOB },
    { 0x1, 0x0, 1, 1, UB_H_DLLCB_RETRY_IDLE }, { 0x1, 0x1, 1, 1, UB_H_DLLCB_RETRY_REQ },
    { 0x1, 0x2, 1, 1, UB_H_DLLCB_RETRY_ACK },  { 0x2, 0x4, 2, 2, UB_H_DLLCB_CRD_ACK },
    { 0x3, 0x0, 1, 32, UB_H_DLLCB_PARAM_EXCHG }, { 0x4, 0x1, 1, 1, UB_H_DLLCB_LANE_MANAGE },
    { 0x5, 0x0, 1, 1, UB_H_DLLCB_BLOCK_MODE_CHG }, { 0xC, 0x8, 5, 32, UB_H_DLLCB_INIT },
};

bool ub_dllcb_code(unsigned hdr_id, unsigned *ctrl, unsigned *sub, unsigned *min_flits)
{
    if (hdr_id == UB_H_DLLCB_INIT_ALT) hdr_id = UB_H_DLLCB_INIT;
    if (hdr_id == UB_H_LNA) hdr_id = UB_H_DLLCB_PARAM_EXCHG;
    for (size_t i = 0; i < sizeof dllcb_types / sizeof dllcb_types[0]; i++) {
        if (dllcb_types[i].hdr != hdr_id) continue;
        *ctrl = dllcb_types[i].ctrl;
        *sub = dllcb_types[i].sub;
        *min_flits = dllcb_types[i].min_flits;
        return true;
    }
    return false;
}

static const dllcb_type *dllcb_lookup(unsigned ctrl, unsigned sub)
{
    for (size_t i = 0; i < sizeof dllcb_types / sizeof dllcb_types[0]; i++)
        if (dllcb_types[i].ctrl == ctrl && dllcb_types[i].sub == sub) return &dllcb_types[i];
    return NULL;
}

/* ---------------------------------------------------------------- helpers */

static void put_field(uint8_t *base, const ub_hdr *h, unsigned idx, uint64_t v)
{
    const ub_field *f = &h->fields[idx];
    ub_wr_bits(base, f->bit_off, f->bits, v);
}


/* §4.3.2.1 (digest §2.1): header bytes of flit i of a DLLDP (LPH in flit 0, LBH at every block start) */
static uint32_t flit_hdr(uint32_t i)
{
    return i == 0 ? LPH_LEN : (i % BLK_FLITS == 0 ? LBH_LEN : 0);
}
/* payload capacity of flit i when the payload does not end in it */
static uint32_t flit_cap(uint32_t i, bool crc)
{
    return FLIT - flit_hdr(i) - ((crc && i % BLK_FLITS == BLK_FLITS - 1) ? BCRC_LEN : 0);
}
/* payload bytes carried by flits 0..t-1 */
static uint32_t pay_before(uint32_t t, bool crc)
{
    uint32_t blk0 = crc ? 632u : 636u; /* 16 + 30·20 + (16 | 20) */
    uint32_t blkn = blk0 + 2u;         /* LBH (2 B) instead of LPH (4 B) */
    uint32_t nb = t / BLK_FLITS, r = t % BLK_FLITS, sum = 0;
    if (nb > 0) sum = blk0 + (nb - 1) * blkn;
    if (r > 0) sum += (nb == 0 ? FLIT - LPH_LEN : FLIT - LBH_LEN) + (r - 1) * FLIT;
    return sum;
}

/* PLENGTH sub-field through the LPH table rows (PLENGTH[13:10] / [9:5] / [4:0]) */
static unsigned plen_part(unsigned plength, unsigned idx)
{
    const ub_field *all = &lph_fields[LPH_PLENGTH], *f = &lph_fields[idx];
    unsigned shift = (all->bit_off + all->bits) - (f->bit_off + f->bits);
    return (plength >> shift) & ((1u << f->bits) - 1u);
}
static unsigned plen_make(unsigned nblk, unsigned flast, unsigned tail)
{
    uint8_t b[LPH_LEN] = { 0 };
    put_field(b, &ub_hdr_lph, LPH_PLENGTH_BLOCKS, nblk - 1);
    put_field(b, &ub_hdr_lph, LPH_PLENGTH_FLITS, flast - 1);
    put_field(b, &ub_hdr_lph, LPH_PLENGTH_TAIL, tail);
    ub_layer l = peek_layer(&ub_hdr_lph, b, LPH_LEN);
    return (unsigned)ub_lget(&l, LPH_PLENGTH);
}
static uint32_t plen_flits(unsigned plength)
{
    return plen_part(plength, LPH_PLENGTH_BLOCKS) * BLK_FLITS + plen_part(plength, LPH_PLENGTH_FLITS) + 1u;
}

/* R-02 sender model (digest §2.4): fill flits in order; the trailer (BCRC in the last flit of every block
 * in CRC mode, END in the last flit of the DLLDP otherwise) goes in the flit where the payload ends if it
 * fits there, else in one extra flit. PLENGTH[4:0] = x−1 (x ≤ 16 ending in the last flit, or x ≥ 17 ending
 * in the 2nd-to-last flit), x+11 otherwise. */
UB_INLINE unsigned plen_end(uint32_t t, uint32_t x, bool crc_mode, uint32_t *n)
{
    uint32_t trailer = crc_mode ? BCRC_LEN : END_LEN;
    bool in_place = (crc_mode && t % BLK_FLITS == BLK_FLITS - 1) || x + flit_hdr(t) + trailer <= FLIT;
    if (in_place) {
        *n = t + 1;
        return x <= 16 ? x - 1 : x + 11;
    }
    *n = t + 2;
    return x >= 17 ? x - 1 : x + 11;
}
int ub_plength_encode(unsigned len, bool crc_mode)
{
    if (len == 0) return -1;
    uint32_t t = 0, rem = len;
    while (rem > flit_cap(t, crc_mode)) {
        rem -= flit_cap(t, crc_mode);
        if (++t >= MAX_FLITS) return -1;
    }
    uint32_t n;
    unsigned tail = plen_end(t, rem, crc_mode, &n);
    if (n > MAX_FLITS) return -1;
    unsigned nblk = (n - 1) / BLK_FLITS + 1;
    return (int)plen_make(nblk, n - (nblk - 1) * BLK_FLITS, tail);
}

/* Decode PLENGTH (digest §2.4 receiver table). Returns the payload length, -1 for a reserved PLENGTH[4:0]
 * code of the mode, -2 for a code that is allowed but inconsistent (x does not fit, not what a sender
 * would produce for that length). */
UB_INLINE int plength_decode(unsigned plength, bool crc)
{
    plength &= 0x3FFFu;
    unsigned tail = plen_part(plength, LPH_PLENGTH_TAIL), x;
    uint32_t n = plen_flits(plength); /* 1..512 */
    bool in_place;                    /* the code says: the trailer is in the flit where the payload ends */
    if (tail <= 15) {
        in_place = true; x = tail + 1;
    } else if (crc ? tail <= 19 : (tail == 17 || tail == 19)) {
        in_place = false; x = tail + 1;
    } else if (crc ? (tail >= 24 && tail <= 27) : tail == 27) {
        in_place = false; x = tail - 11;
    } else if (!crc && tail >= 28 && tail <= 30) {
        in_place = true; x = tail - 11;
    } else {
        return -1;
    }
    if (!in_place && n < 2) return -2;
    uint32_t t = in_place ? n - 1 : n - 2; /* the flit where the payload ends */
    /* what the sender model makes of this length (ub_plength_encode), without encoding: its flit loop
     * stops at flit t exactly when 1 <= x <= flit_cap(t); plen_end then gives this tail (each branch
     * above is one of its formulas) and these n flits exactly when it puts the trailer where the code says */
    if (x > flit_cap(t, crc)) return -2;
    uint32_t n2;
    if (plen_end(t, x, crc, &n2) != tail || n2 != n) return -2;
    return (int)(pay_before(t, crc) + x);
}

int ub_plength_payload_len(unsigned plength, bool crc_mode)
{
    if (plength > 0x3FFFu) return -1;
    int r = plength_decode(plength, crc_mode);
    return r < 0 ? -1 : r;
}

unsigned ub_dlldp_flits(unsigned len, bool crc_mode)
{
    int p = ub_plength_encode(len, crc_mode);
    return p < 0 ? 0 : plen_flits((unsigned)p);
}

/* Offset of de-interleaved payload byte `pkt_off` in the flit-framed DLLDP (relative to the LPH). */
uint32_t ub_dll_pkt_to_rec(bool crc_mode, uint32_t pkt_off)
{
    uint32_t blk0 = pay_before(BLK_FLITS, crc_mode), blkn = pay_before(2 * BLK_FLITS, crc_mode) - blk0;
    uint32_t blk, o, hdr;
    if (pkt_off < blk0) {
        blk = 0; o = pkt_off; hdr = LPH_LEN;
    } else {
        blk = 1 + (pkt_off - blk0) / blkn; o = (pkt_off - blk0) % blkn; hdr = LBH_LEN;
    }
    uint32_t base = blk * BLK_FLITS * FLIT;
    if (o < FLIT - hdr) return base + hdr + o;
    return base + FLIT + (o - (FLIT - hdr)); /* flits 1..31 of a block carry no header */
}

/* most payload N flits can carry (used when PLENGTH[4:0] is unusable) */
static uint32_t pay_max(uint32_t n, bool crc)
{
    if (n == 0) return 0;
    return pay_before(n - 1, crc) + FLIT - flit_hdr(n - 1) - (crc ? BCRC_LEN : END_LEN);
}

/* ---------------------------------------------------------------- decoder pieces */
/* A flit record must hold exactly the flits its header announces (N·20 bytes); otherwise length mismatch,
 * at the end of what is present / expected, and what is present is decoded. */
static void rec_vs_flits(ub_dec *d, unsigned hdr, uint32_t want, const char *what)
{
    if (d->wlen != want) ub_error(d, UB_E_LENGTH, hdr, d->wlen < want ? d->wlen : want, d->wlen, want, what);
}

/* BCRC of the block [bstart, bstart + flits·20) of the current buffer */
UB_INLINE void dec_bcrc(ub_dec *d, uint32_t bstart, uint32_t flits, int role)
{
    uint32_t off = bstart + flits * FLIT - BCRC_LEN;
    if (off >= d->len) return;
    ub_layer *l = ub_push(d, UB_H_BCRC, off, BCRC_LEN);
    if (!l) return;
    if (l->flags & UB_LF_TRUNC) {
        l->status = UB_CK_UNVERIFIED;
        return;
    }
    uint32_t comp = ub_crc30_block(d->p + bstart, flits, d->o->bcrc_variant); /* */
    uint32_t w = ub_be32(l->data); /* the whole BCRC (not truncated) */
    uint32_t carried = row_in(w, 32, &bcrc_fields[BCRC_CRC30]);
    l->aux = comp;
    l->status = comp == carried ? UB_CK_GOOD : UB_CK_BAD;
    if (comp != carried) ub_error(d, UB_E_BCRC_BAD, UB_H_BCRC, off, carried, comp, "ub.bcrc.crc30");
    if (row_in(w, 32, &bcrc_fields[BCRC_ERROR_FLAG])) {
        static const char *const what[] = { "ub.bcrc.error_flag", "ub.bcrc.error_flag (not in the last DLLDB)",
                                            "ub.bcrc.error_flag (in a DLLCB)" };
        ub_error(d, UB_E_ERROR_FLAG, UB_H_BCRC, off, 1, 0, what[role]); /* §4.8.3, DL-07 */
    }
}
enum { ROLE_LAST = 0, ROLE_MID = 1, ROLE_DLLCB = 2 };

uint32_t ub_bcrc_carried(const uint8_t *b)
{
    return row_in(ub_be32(b), 32, &bcrc_fields[BCRC_CRC30]);
}

static void dec_end(ub_dec *d, uint32_t off, bool dllcb)
{
    if (off >= d->len) return;
    ub_layer *l = ub_push(d, UB_H_END, off, END_LEN);
    if (l && l->len && row_in(l->data[0], 8, &end_fields[END_ERROR_FLAG]))
        ub_error(d, UB_E_ERROR_FLAG, UB_H_END, off, 1, 0, dllcb ? "ub.end.error_flag (in a DLLCB)" : "ub.end.error_flag");
}

UB_INLINE void dec_padding(ub_dec *d, uint32_t start, uint32_t end)
{
    if (start >= end || start >= d->len) return;
    ub_layer *l = ub_push(d, UB_H_FLITPAD, start, end - start);
    if (!l) return;
    /* the padding row is the whole layer (byte 0, every byte present): a word at a time, then bytes */
    _Static_assert(sizeof flitpad_fields / sizeof flitpad_fields[0] == 1, "flitpad: one row, the whole layer");
    uint32_t i = 0;
    for (uint64_t w; i + 8 <= l->len; i += 8) {
        memcpy(&w, l->data + i, 8);
        if (w) break;
    }
    if (i + 4 <= l->len) { /* 4 more (the padding of a 4-byte aligned payload is often just that) */
        uint32_t w;
        memcpy(&w, l->data + i, 4);
        if (!w) i += 4;
    }
    for (; i < l->len; i++) {
        if (l->data[i]) { /* DL-08 */
            ub_error(d, UB_E_PADDING, UB_H_FLITPAD, start + i, l->data[i], 0, "ub.flitpad.padding");
            break;
        }
    }
}

/* Init Block layout. Auto (2): layout A if FEATURE_ID == 1 and VL_ENABLE bit 0 set there, else B if
 * that holds for B, else A with an "ambiguous" note. */
static unsigned init_layout(ub_dec *d, uint32_t blen)
{
    if (d->o->init_variant == 1) return UB_H_DLLCB_INIT_ALT;
    if (d->o->init_variant != 2) return UB_H_DLLCB_INIT;
    uint32_t n = blen < d->len ? blen : d->len;
    ub_layer a = peek_layer(&ub_hdr_dllcb_init, d->p, n), b = peek_layer(&ub_hdr_dllcb_init_alt, d->p, n);
    bool ok_a = ub_lget(&a, INITA_FEATURE_ID) == 1 && (ub_lget(&a, INITA_VL_ENABLE) & 1u);
    bool ok_b = ub_lget(&b, INITB_FEATURE_ID) == 1 && (ub_lget(&b, INITB_VL_ENABLE) & 1u);
    if (ok_a) return UB_H_DLLCB_INIT;
    if (ok_b) return UB_H_DLLCB_INIT_ALT;
    ub_error(d, UB_E_AMBIGUOUS, UB_H_DLLCB_INIT, 0, 0, 0, "Init Block layout (R-08): neither matches, using A");
    return UB_H_DLLCB_INIT;
}

/* DLLCB at the start of the current buffer (§4.3.3): LCH, body over the whole block, BCRC/END */
static void dec_dllcb(ub_dec *d)
{
    ub_view *v = d->v;
    v->kind = UB_KIND_DLLCB;
    v->cfg = 0;
    d->cfg = 0;
    ub_layer *lch = ub_push(d, UB_H_LCH, 0, LCH_LEN);
    if (!lch || (lch->flags & UB_LF_TRUNC)) return;
    uint32_t w = ub_be32(lch->data); /* the whole LCH (not truncated) */
    unsigned fixed0 = row_in(w, 32, &lch_fields[LCH_FIXED0]), fixed = row_in(w, 32, &lch_fields[LCH_FIXED]);
    if (fixed0 != 0) ub_error(d, UB_E_LCH_PATTERN, UB_H_LCH, 0, fixed0, 0, "ub.lch.fixed0");
    if (fixed != LCH_PATTERN) ub_error(d, UB_E_LCH_PATTERN, UB_H_LCH, 0, fixed, LCH_PATTERN, "ub.lch.fixed");
    uint32_t flits = row_in(w, 32, &lch_fields[LCH_CLENGTH]) + 1u, blen = flits * FLIT;
    unsigned ctrl = row_in(w, 32, &lch_fields[LCH_CTRL]), sub = row_in(w, 32, &lch_fields[LCH_SUB_CTRL]);
    rec_vs_flits(d, UB_H_LCH, blen, "record length vs ub.lch.clength");

    const dllcb_type *ty = dllcb_lookup(ctrl, sub);
    unsigned hid = UB_H_DLLCB_RSVD;
    if (!ty) {
        ub_error(d, UB_E_UNKNOWN_DLLCB, UB_H_LCH, 2, (ctrl << 4) | sub, 0, "ub.lch.ctrl/sub_ctrl");
    } else {
        hid = ty->hdr;
        if (flits < ty->min_flits || flits > ty->max_flits) /* DL-02 */
            ub_error(d, UB_E_CLENGTH, UB_H_LCH, 0, flits, ty->min_flits, "ub.lch.clength");
        if (hid == UB_H_DLLCB_INIT) hid = init_layout(d, blen);
    }
    ub_push(d, hid, 0, blen);
    if (hid == UB_H_DLLCB_PARAM_EXCHG && flits == LNA_FLITS) { /* §10.4.4 */
        d->depth++;
        ub_layer *lna = ub_push(d, UB_H_LNA, 0, blen);
        if (lna) lna->flags |= UB_LF_OVERLAY;
        d->depth--;
    }
    if (d->v->entry == UB_ENTRY_PKT && (d->pf & UB_PF_DLLCB_NO_BCRC)) return; /* ns-3-UB D21 */
    if (d->o->crc_mode) dec_bcrc(d, 0, flits, ROLE_DLLCB);
    else dec_end(d, blen - END_LEN, true);
}

/* Run the network-layer decoder over the payload. Single block: contiguous view of the record; several
 * blocks: de-interleaved copy in v->netbuf (offsets map back with ub_dll_pkt_to_rec). */
UB_INLINE void dec_payload(ub_dec *d, int cfg, bool known_cfg, uint32_t nblk, uint32_t paylen)
{
    ub_view *v = d->v;
    const uint8_t *sp = d->p;
    uint32_t slen = d->len, swlen = d->wlen, sbase = d->rec_base;
    uint8_t slf = d->lflags;
    bool crc = d->o->crc_mode;
    if (nblk <= 1) {
        uint32_t avail = d->len > LPH_LEN ? d->len - LPH_LEN : 0;
        uint32_t wavail = d->wlen > LPH_LEN ? d->wlen - LPH_LEN : 0;
        uint32_t n = paylen < avail ? paylen : avail;
        v->pkt = d->p + LPH_LEN;
        v->pkt_len = n;
        v->pkt_off = d->rec_base + LPH_LEN;
        d->p += LPH_LEN;
        d->len = n;
        d->wlen = paylen < wavail ? paylen : wavail;
        if (d->wlen < n) d->wlen = n;
        d->rec_base += LPH_LEN;
    } else {
        uint32_t n = 0;
        /* one copy per DLLDB: its payload bytes are contiguous from after its LPH/LBH to its BCRC */
        for (uint32_t i = 0; n < paylen && n < UB_MAX_NETPKT; i += BLK_FLITS) {
            uint32_t src = i * FLIT + flit_hdr(i), take = BLK_FLITS * FLIT - flit_hdr(i) - (crc ? BCRC_LEN : 0);
            if (take > paylen - n) take = paylen - n;
            if (take > UB_MAX_NETPKT - n) take = UB_MAX_NETPKT - n;
            if (src >= d->len) break;
            if (take > d->len - src) take = d->len - src;
            memcpy(v->netbuf + n, d->p + src, take);
            n += take;
            if (src + take >= d->len) break;
        }
        v->pkt = v->netbuf;
        v->pkt_len = n;
        v->pkt_off = UINT32_MAX;
        d->netbuf_rec_start = d->rec_base;
        d->p = v->netbuf;
        d->len = n;
        d->wlen = swlen > slen && paylen > n ? paylen : n; /* the record was cut by the snapshot length */
        d->lflags = UB_LF_NETBUF;
        d->netbuf_multi = true;
    }
    if (known_cfg) ub_dec_netpkt(d, cfg);
    else if (d->len) ub_push(d, UB_H_DATA, 0, d->len);
    d->p = sp;
    d->len = slen;
    d->wlen = swlen;
    d->len_cut = false; /* (the packet's; the record's own lengths are checked against its wire length) */
    d->rec_base = sbase;
    d->lflags = slf;
    d->netbuf_multi = false;
}

/* The common shape at fixed offsets: one DLLDB of nf flits in CRC mode, the record exactly that long,
 * a consistent PLENGTH giving pl > 0 payload bytes. The layers and checks of the general path below
 * for this shape (no length error can arise): payload [4, 4 + pl), padding to the BCRC, BCRC. */
static void dec_dlldp_one(ub_dec *d, int cfg, bool known_cfg, uint32_t pl, uint32_t nf)
{
    ub_view *v = d->v;
    const uint8_t *sp = d->p;
    uint32_t slen = d->len, sbase = d->rec_base, total = nf * FLIT;
    uint8_t slf = d->lflags;
    v->pkt = d->p + LPH_LEN;
    v->pkt_len = pl;
    v->pkt_off = d->rec_base + LPH_LEN;
    d->p += LPH_LEN;
    d->len = d->wlen = pl;
    d->rec_base += LPH_LEN;
    if (known_cfg) ub_dec_netpkt(d, cfg);
    else ub_push(d, UB_H_DATA, 0, pl);
    d->p = sp;
    d->len = d->wlen = slen;
    d->rec_base = sbase;
    d->lflags = slf;
    d->netbuf_multi = false;
    dec_padding(d, LPH_LEN + pl, total - BCRC_LEN);
    dec_bcrc(d, 0, nf, ROLE_LAST);
}

/* DLLDP with flits (LINKTYPE_USER0): LPH, network packet, then LBHs / padding / BCRCs / END */
static void dec_dlldp(ub_dec *d, unsigned cfg, bool known_cfg)
{
    ub_view *v = d->v;
    bool crc = d->o->crc_mode;
    v->kind = UB_KIND_DLLDP;
    v->cfg = (int8_t)cfg;
    d->cfg = (int)cfg;
    ub_layer *lph = ub_push(d, UB_H_LPH, 0, LPH_LEN);
    if (!lph || (lph->flags & UB_LF_TRUNC)) return;
    uint32_t w = ub_be32(lph->data); /* the whole LPH (not truncated) */
    unsigned plength = row_in(w, 32, &lph_fields[LPH_PLENGTH]);
    uint32_t nblk = row_in(w, 32, &lph_fields[LPH_PLENGTH_BLOCKS]) + 1u;
    uint32_t flast = row_in(w, 32, &lph_fields[LPH_PLENGTH_FLITS]) + 1u;
    uint32_t nfl = (nblk - 1u) * BLK_FLITS + flast, total = nfl * FLIT;
    unsigned vl = row_in(w, 32, &lph_fields[LPH_VL]);
    int pl = plength_decode(plength, crc);
    if (nblk == 1 && crc && pl > 0 && d->len == total && d->wlen == total) {
        dec_dlldp_one(d, (int)cfg, known_cfg, (uint32_t)pl, flast);
        return;
    }
    if (pl == -1)
        ub_error(d, UB_E_PLENGTH_RSVD, UB_H_LPH, 3, row_in(w, 32, &lph_fields[LPH_PLENGTH_TAIL]), 0, "ub.lph.plength_tail");
    else if (pl < 0)
        ub_error(d, UB_E_LENGTH, UB_H_LPH, 2, plength, 0, "ub.lph.plength inconsistent");
    rec_vs_flits(d, UB_H_LPH, total, "record length vs ub.lph.plength flits");
    uint32_t paylen = pl >= 0 ? (uint32_t)pl : pay_max(nfl, crc);

    dec_payload(d, (int)cfg, known_cfg, nblk, paylen);

    /* link trailer layers, in record order */
    for (uint32_t b = 0; b < nblk; b++) {
        uint32_t bstart = b * BLK_FLITS * FLIT, nf = b == nblk - 1 ? flast : BLK_FLITS;
        if (bstart >= d->len) break;
        if (b > 0) {
            ub_layer *lbh = ub_push(d, UB_H_LBH, bstart, LBH_LEN);
            if (lbh && !(lbh->flags & UB_LF_TRUNC)) { /* DL-04, R-46 */
                uint32_t bw = (uint32_t)lbh->data[0] << 8 | lbh->data[1];
                unsigned bvl = row_in(bw, 16, &lbh_fields[LBH_VL]), bcfg = row_in(bw, 16, &lbh_fields[LBH_CFG]);
                if (bvl != vl) ub_error(d, UB_E_LBH_MISMATCH, UB_H_LBH, bstart, bvl, vl, "ub.lbh.vl");
                if (bcfg != cfg) ub_error(d, UB_E_LBH_MISMATCH, UB_H_LBH, bstart, bcfg, cfg, "ub.lbh.cfg");
            }
        }
        if (b == nblk - 1 && pl > 0) {
            /* one block: the payload is contiguous after the LPH (its BCRC follows it) */
            uint32_t ps = nblk == 1 ? LPH_LEN + (uint32_t)pl : ub_dll_pkt_to_rec(crc, (uint32_t)pl - 1u) + 1u;
            if (ps % (BLK_FLITS * FLIT) == 0) ps += LBH_LEN; /* payload filled a block; trailer flit has an LBH */
            dec_padding(d, ps, total - (crc ? BCRC_LEN : END_LEN));
        }
        if (crc) dec_bcrc(d, bstart, nf, b == nblk - 1 ? ROLE_LAST : ROLE_MID);
    }
    if (!crc) dec_end(d, total - END_LEN, false);
}

/* LINKTYPE_USER0: one whole DLLDP or DLLCB with flits. Dispatch on flit byte 1 b3:0 (digest §1 step 1). */
void ub_dec_flit_record(ub_dec *d)
{
    if (d->len < 2) { /* CFG not readable */
        ub_push(d, UB_H_LPH, 0, LPH_LEN);
        return;
    }
    unsigned cfg = row_in((uint32_t)d->p[0] << 8 | d->p[1], 16, &lph_fields[LPH_CFG]);
    switch (cfg_classify(cfg)) {
    case CFG_DLLCB:
        dec_dllcb(d);
        return;
    case CFG_DLLDP:
        dec_dlldp(d, cfg, true);
        return;
    default:
        ub_error(d, UB_E_UNKNOWN_CFG, UB_H_LPH, 1, cfg, 0, "ub.lph.cfg");
        dec_dlldp(d, cfg, false);
        return;
    }
}

/* LINKTYPE_USER1: LPH followed directly by the network packet (no LBH/padding/BCRC); LCH -> DLLCB */
void ub_dec_pkt_record(ub_dec *d)
{
    ub_view *v = d->v;
    if (d->len < 2) {
        ub_push(d, UB_H_LPH, 0, LPH_LEN);
        return;
    }
    unsigned cfg = row_in((uint32_t)d->p[0] << 8 | d->p[1], 16, &lph_fields[LPH_CFG]);
    enum cfg_class cls = cfg_classify(cfg);
    if (cls == CFG_DLLCB) {
        dec_dllcb(d);
        return;
    }
    if (cls == CFG_RESERVED) ub_error(d, UB_E_UNKNOWN_CFG, UB_H_LPH, 1, cfg, 0, "ub.lph.cfg");
    v->kind = UB_KIND_DLLDP;
    v->cfg = (int8_t)cfg;
    d->cfg = (int)cfg;
    ub_layer *lph = ub_push(d, UB_H_LPH, 0, LPH_LEN);
    if (!lph || (lph->flags & UB_LF_TRUNC)) return;
    uint32_t w = ub_be32(lph->data); /* the whole LPH (not truncated) */
    unsigned plength = row_in(w, 32, &lph_fields[LPH_PLENGTH]);
    uint32_t have = d->wlen - LPH_LEN; /* on the wire */
    int pl = plength_decode(plength, d->o->crc_mode);
    bool unset = plength == 0 && (d->pf & UB_PF_PLENGTH_UNSET); /* ns-3-UB D2: the record gives the length */
    if (unset) pl = (int)have;
    if (pl == -1)
        ub_error(d, UB_E_PLENGTH_RSVD, UB_H_LPH, 3, row_in(w, 32, &lph_fields[LPH_PLENGTH_TAIL]), 0, "ub.lph.plength_tail");
    else if (pl < 0)
        ub_error(d, UB_E_LENGTH, UB_H_LPH, 2, plength, 0, "ub.lph.plength inconsistent");
    else if ((uint32_t)pl != have)
        ub_error(d, UB_E_LENGTH, UB_H_LPH, 2, have, (uint32_t)pl, "record length vs ub.lph.plength");
    dec_payload(d, (int)cfg, cls == CFG_DLLDP, 1, have);
}

/* ---------------------------------------------------------------- builder support */
long ub_frame_dlldp(const ub_opts *o, const uint8_t lph[4], const uint8_t *pkt, uint32_t len, bool error_flag,
                    uint8_t *out, size_t cap)
{
    if (!o || !lph || !out || (len && !pkt)) return -1;
    bool crc = o->crc_mode;
    int pl = ub_plength_encode(len, crc);
    if (pl < 0) return -1;
    uint32_t nfl = plen_flits((unsigned)pl), total = nfl * FLIT;
    uint32_t nblk = plen_part((unsigned)pl, LPH_PLENGTH_BLOCKS) + 1u;
    if (total > cap) return -1;
    memset(out, 0, total);
    memcpy(out, lph, LPH_LEN);
    put_field(out, &ub_hdr_lph, LPH_PLENGTH, (unsigned)pl);
    ub_layer l = peek_layer(&ub_hdr_lph, out, LPH_LEN);
    uint64_t vl = ub_lget(&l, LPH_VL), cfg = ub_lget(&l, LPH_CFG);
    for (uint32_t b = 1; b < nblk; b++) { /* LBH copies: CRD/ACK 0, same VL/CFG (§4.5.1, R-46) */
        put_field(out + b * BLK_FLITS * FLIT, &ub_hdr_lbh, LBH_VL, vl);
        put_field(out + b * BLK_FLITS * FLIT, &ub_hdr_lbh, LBH_CFG, cfg);
    }
    for (uint32_t i = 0, n = 0; n < len; i++) {
        uint32_t take = flit_cap(i, crc);
        if (take > len - n) take = len - n;
        memcpy(out + i * FLIT + flit_hdr(i), pkt + n, take);
        n += take;
    }
    if (crc) {
        for (uint32_t b = 0; b < nblk; b++) {
            uint32_t nf = b == nblk - 1 ? nfl - b * BLK_FLITS : BLK_FLITS;
            uint8_t *blk = out + b * BLK_FLITS * FLIT, *bc = blk + nf * FLIT - BCRC_LEN;
            if (b == nblk - 1 && error_flag) put_field(bc, &ub_hdr_bcrc, BCRC_ERROR_FLAG, 1);
            put_field(bc, &ub_hdr_bcrc, BCRC_CRC30, ub_crc30_block(blk, nf, o->bcrc_variant));
        }
    } else if (error_flag) {
        put_field(out + total - END_LEN, &ub_hdr_end, END_ERROR_FLAG, 1);
    }
    return (long)total;
}

void ub_frame_dllcb(const ub_opts *o, uint8_t *blk, unsigned flits)
{
    if (!o || !blk || flits == 0 || flits > BLK_FLITS) return;
    if (!o->crc_mode) return; /* END: only ERROR_FLAG, left as the caller wrote it */
    uint8_t *bc = blk + flits * FLIT - BCRC_LEN;
    put_field(bc, &ub_hdr_bcrc, BCRC_CRC30, ub_crc30_block(blk, flits, o->bcrc_variant));
}
