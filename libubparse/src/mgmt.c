/* Management (spec §10.4.3, digest §7): enumeration messages (Scan Header, Scan PDU, TLVs) and
 * configuration-management PDUs carried after the MGMTETAH.
 *
 * Conventions of this file:
 *  - GUIDs inside management PDUs are UB_FT_GUID_WS (R-34: word 0 = GUID[31:0]); Scan PDU and
 *    Port_info GUIDs also get overlapping rows for the GUID parts of App. C.1 (R-39).
 *  - EIDs/UEIDs are 16-byte UB_FT_BYTES rows named eid/ueid (word order R-34 as sent), with an
 *    overlapping 32-bit row eid0/ueid0 = word 0 = EID[31:0] (carries the 20-bit compact EID).
 *  - 64-bit start addresses ERSx_SA are two 32-bit rows ersx_sa0 (SA[31:0]) and ersx_sa1
 *    (SA[63:32]), the spec's SA0/SA1 words, in R-34 order.
 *  - Link Neighbor Query request: rows port_idx0 .. port_idx31 (the first 32 list entries) and
 *    port_idx_rest (bytes) for a longer list. */
#include "internal.h"
#include "rows.h"
#include "rowfast.h"

/* Exported helper (prototype to be added to ubparse.h). */

/* ---------------------------------------------------------------- local helpers */



/* ---------------------------------------------------------------- value names */
static const ub_vname vn_scan_r[] = {
    { 0, "no Return Path (response)" }, { 1, "Return Path present (request)" }, { 0, NULL }
};
static const ub_vname vn_scan_type[] = {
    { 0, "4-bit port entries" }, { 1, "8-bit port entries" }, { 2, "16-bit port entries" }, { 0, NULL }
};
static const ub_vname vn_scan_cmd[] = {
    { 0, "topology query" }, { 1, "configure CNA" }, { 2, "query CNA" }, { 0, NULL }
};
static const ub_vname vn_scan_opcode[] = {
    { 0, "response" }, { 1, "topology query (CMD 0) / query switch CNA (CMD 2, vendor, I-37)" },
    { 2, "Primary CNA" }, { 3, "Port CNA" }, { 4, "Primary CNA and every Port CNA" }, { 0, NULL }
};
/* App. C.1 Fig C-1 */
static const ub_vname vn_guid_type[] = {
    { 0, "Bus Instance" }, { 1, "independent UB Controller" }, { 2, "integrated UB Controller" },
    { 3, "independent UB Switch" }, { 4, "integrated UB Switch" }, { 0, NULL }
};
/* §10.4.3.2 Fig 10-26 */
static const ub_vname vn_tlv_type[] = {
    { 0, "Slice_info" }, { 1, "Port_num" }, { 2, "Port_info" }, { 4, "Cap_info" }, { 0, NULL }
};
static const ub_vname vn_port_t[] = { { 0, "Port" }, { 1, "vPort" }, { 0, NULL } };
static const ub_vname vn_port_w[] = {
    { 0, "exclusive (bus controller only)" }, { 1, "shared with other integrated controllers" }, { 0, NULL }
};
static const ub_vname vn_port_b[] = { { 0, "non-boundary" }, { 1, "enumeration-boundary port" }, { 0, NULL } };
static const ub_vname vn_port_s[] = { { 0, "link down" }, { 1, "link up" }, { 0, NULL } };
/* R-31: MTU encoding assumed = MTU_CFG */
static const ub_vname vn_mtu[] = { { 0, "1024" }, { 1, "4096" }, { 2, "8192" }, { 0, NULL } };
static const ub_vname vn_el[] = { { 0, "port-level" }, { 1, "device-level" }, { 0, NULL } };
static const ub_vname vn_rsi_opcode[] = {
    { 0, "get resource-space information" }, { 1, "configure resource-space information" }, { 0, NULL }
};
static const ub_vname vn_lnq_d[] = { { 0, "range query" }, { 1, "list query" }, { 0, NULL } };
static const ub_vname vn_check_en[] = { { 0, "disable" }, { 1, "enable" }, { 0, NULL } };
static const ub_vname vn_dereg_reason[] = {
    { 0, "normal" }, { 1, "device error" }, { 2, "device link abnormal" }, { 0, NULL }
};
static const ub_vname vn_cpl_f[] = {
    { 0, "no virtual instance" }, { 1, "create a bus-controller virtual instance" }, { 0, NULL }
};
static const ub_vname vn_reset_t[] = { { 0, "reset prepare" }, { 1, "reset done" }, { 0, NULL } };

/* ---------------------------------------------------------------- row helpers */
/* flag with value names */
#define UBBV(h, f, nm, off, vl, sp, ds) UBF(h, f, nm, off, 1, UB_FT_BOOL, UB_BASE_DEC, 0, vl, sp, ds)
/* GUID in R-34 word order + the App. C.1 parts (R-39) as overlapping rows */
#define GUIDWS(h, g, nm, off, sp, ds) \
    UBF(h, g, nm, (off), 128, UB_FT_GUID_WS, UB_BASE_HEX, 0, NULL, sp ", R-34", ds), \
    UBU(h, g##_vendor_id, nm " Vendor ID", (off) + 96, 16, UB_BASE_HEX, NULL, sp ", App. C.1 R-39, R-34", \
        "GUID[127:112] (word 3)"), \
    UBU(h, g##_device_id, nm " Device ID", (off) + 112, 16, UB_BASE_HEX, NULL, sp ", App. C.1 R-39, R-34", \
        "GUID[111:96] (word 3)"), \
    UBU(h, g##_version, nm " Version", (off) + 64, 4, UB_BASE_DEC, NULL, sp ", App. C.1 R-39, R-34", \
        "GUID[95:92] (word 2)"), \
    UBU(h, g##_type, nm " Type", (off) + 68, 4, UB_BASE_DEC, vn_guid_type, sp ", App. C.1 R-39, R-34", \
        "GUID[91:88] (word 2)"), \
    UBU(h, g##_seq_lo, nm " Sequence Number[31:0]", (off), 32, UB_BASE_HEX, NULL, sp ", App. C.1 R-39, R-34", \
        "GUID[31:0] (word 0)"), \
    UBU(h, g##_seq_hi, nm " Sequence Number[63:32]", (off) + 32, 32, UB_BASE_HEX, NULL, \
        sp ", App. C.1 R-39, R-34", "GUID[63:32] (word 1)")
/* plain GUID row (R-34 word order) without the parts */
#define GUIDW1(h, g, nm, off, sp, ds) UBF(h, g, nm, (off), 128, UB_FT_GUID_WS, UB_BASE_HEX, 0, NULL, sp ", R-34", ds)
/* EID: 16 bytes as sent + word 0 */
#define EIDROWS(h, e, nm, off, sp) \
    UBY(h, e, nm, (off), 128, sp ", R-34", "EID0..EID3 as sent (word 0 = EID[31:0])"), \
    UBU(h, e##0, nm "0", (off), 32, UB_BASE_HEX, NULL, sp ", R-34", "word 0 = EID[31:0] (20-bit compact EID)")
/* ERSx start address words (R-34: SA[31:0] first) */
#define SAROWS(h, x, off, sp) \
    UBU(h, ers##x##_sa0, "ERS" #x "_SA0", (off), 32, UB_BASE_HEX, NULL, sp ", R-34", \
        "start address of resource space " #x ", SA[31:0]"), \
    UBU(h, ers##x##_sa1, "ERS" #x "_SA1", (off) + 32, 32, UB_BASE_HEX, NULL, sp ", R-34", \
        "start address of resource space " #x ", SA[63:32]")
#define SSROW(h, x, off, sp) \
    UBU(h, ers##x##_ss, "ERS" #x "_SS", (off), 32, UB_BASE_DEC, NULL, sp, \
        "size of resource space " #x " in SYS_PGS units, 0 = absent")

/* ================================================================ enumeration (§10.4.3.2) */
#define SP_ENUM "§10.4.3.1 Fig 10-20"
#define SP_SH "§10.4.3.2 Fig 10-22"
#define SP_PDU "§10.4.3.2 Fig 10-23 Table 10-8"

enum { PAD_PADDING };
static const ub_field f_enumpad[] = {
    [PAD_PADDING] = UBU(enumpad, padding, "Padding", 0, 16, UB_BASE_HEX, NULL, SP_ENUM,
                        "2 bytes of 0 between UPIH16 and the Scan Header (MG-01)"),
};
UB_HDR_DEF(enumpad, UB_H_ENUMPAD, "enumpad", "enumpad", "Enumeration Padding", SP_ENUM, 2, f_enumpad);

static const ub_field f_scanhdr[] = {
    [SH_RSVD0] = UBR(scanhdr, rsvd0, 0, 11, SP_SH ", R-32"),
    [SH_R] = UBBV(scanhdr, r, "R", 11, vn_scan_r, SP_SH ", R-32",
                  "Return Path present: 1 in requests, 0 in responses"),
    [SH_TYPE] = UBU(scanhdr, type, "Type", 12, 4, UB_BASE_DEC, vn_scan_type, SP_SH ", R-32",
                    "port-entry width: 0 = 4, 1 = 8, 2 = 16 bits; 3..15 reserved"),
    [SH_HOPS] = UBU(scanhdr, hops, "Hops", 16, 8, UB_BASE_DEC, NULL, SP_SH,
                    "entries in each path; 0 = query the local node"),
    [SH_STEP] = UBU(scanhdr, step, "Step", 24, 8, UB_BASE_DEC, NULL, SP_SH,
                    "index of the current forwarding entry (Step == Hops: destination reached)"),
    [SH_FPATH] = UBY(scanhdr, forward_path, "Forward Path", 32, 0, SP_SH ", R-32",
                     "egress ports, Hops entries padded to 4 bytes (entry i: ub_scan_path_entry)"),
};
UB_HDR_DEF(scanhdr, UB_H_SCANHDR, "scanhdr", "scanhdr", "Scan Header", SP_SH, 0, f_scanhdr);

/* The Return Path follows the variable-length Forward Path, so it cannot be a fixed row of the
 * scanhdr table: it is its own layer with the same "scanhdr" abbrev. */
static const ub_field f_scan_rpath[] = {
    UBY(scanhdr, return_path, "Return Path", 0, 0, SP_SH ", R-32",
        "reverse egress ports (present if R = 1), same size and packing as the Forward Path"),
};
UB_HDR_DEF(scan_rpath, UB_H_SCAN_RPATH, "scan_rpath", "scanhdr", "Scan Header Return Path", SP_SH, 0, f_scan_rpath);

/* Scan PDU common part, 24 bytes (request: Slice_ID; response: Status) */
#define SCAN_COMMON(b3row)                                                                               \
    [SQ_VERSION] = UBU(scan, version, "Version", 0, 8, UB_BASE_DEC, NULL, SP_PDU, "1"),               \
    [SQ_CMD] = UBU(scan, cmd, "CMD", 8, 8, UB_BASE_DEC, vn_scan_cmd, SP_PDU,                          \
                   "0 topology query, 1 configure CNA, 2 query CNA, 3..255 user-defined"),            \
    [SQ_OPCODE] = UBU(scan, opcode, "Opcode", 16, 8, UB_BASE_DEC, vn_scan_opcode, SP_PDU,             \
                      "command-specific; 0 = response"),                                              \
    [SQ_B3] = b3row,                                                                                  \
    [SQ_MSGQ_ID] = UBU(scan, msgq_id, "MSGQ_ID", 32, 8, UB_BASE_DEC, NULL, SP_PDU,                    \
                       "requester's message-queue number, echoed"),                                   \
    [SQ_LENGTH] = UBU(scan, length, "Length", 40, 8, UB_BASE_DEC, NULL, SP_PDU ", R-33",              \
                      "Scan PDU length in 4-byte units (whole Scan PDU)"),                            \
    [SQ_MSN] = UBU(scan, msn, "MSN", 48, 16, UB_BASE_DEC, NULL, SP_PDU,                               \
                   "message sequence number, echoed in the response"),                                \
    [SQ_GUID] = GUIDWS(scan, guid, "GUID", 64, SP_PDU, "destination GUID (request) / responder GUID (response)")

static const ub_field f_scanpdu_req[] = {
    SCAN_COMMON(UBU(scan, slice_id, "Slice_ID", 24, 8, UB_BASE_DEC, NULL, SP_PDU ", R-29",
                    "requested slice (CMD 0); RSVD for CMD 1/2")),
};
UB_HDR_DEF(scanpdu_req, UB_H_SCANPDU_REQ, "scanpdu_req", "scan", "Scan PDU (request)", SP_PDU, 24, f_scanpdu_req);

static const ub_field f_scanpdu_rsp[] = {
    SCAN_COMMON(UBU(scan, status, "Status", 24, 8, UB_BASE_HEX, ub_vn_mgmt_status, SP_PDU ", §10.4.3.1",
                    "0 success, else error code")),
};
UB_HDR_DEF(scanpdu_rsp, UB_H_SCANPDU_RSP, "scanpdu_rsp", "scan", "Scan PDU (response)", SP_PDU, 24, f_scanpdu_rsp);

/* Configure CNA request, bytes 24..31 of the Scan PDU (offsets from byte 24) */
#define SP_CFGCNA "§10.4.3.2 Fig 10-31"
static const ub_field f_scan_cfgcna_req[] = {
    UBU(scan, port_idx, "Port_idx", 0, 16, UB_BASE_DEC, NULL, SP_CFGCNA, "port to configure (Opcode 3)"),
    UBR(scan, rsvd0, 16, 24, SP_CFGCNA),
    UBU(scan, cna, "CNA", 40, 24, UB_BASE_HEX, NULL, SP_CFGCNA, "address to configure"),
};
UB_HDR_DEF(scan_cfgcna_req, UB_H_SCAN_CFGCNA_REQ, "scan_cfgcna_req", "scan", "Configure CNA request", SP_CFGCNA, 8,
           f_scan_cfgcna_req);

/* Query CNA request, bytes 24..27 (I-21: Port_idx in B26-27) */
#define SP_QRYCNA "§10.4.3.2 Fig 10-33, I-21"
static const ub_field f_scan_qrycna_req[] = {
    UBR(scan, rsvd0, 0, 16, SP_QRYCNA),
    UBU(scan, port_idx, "Port_idx", 16, 16, UB_BASE_DEC, NULL, SP_QRYCNA, "port to query (Opcode 3)"),
};
UB_HDR_DEF(scan_qrycna_req, UB_H_SCAN_QRYCNA_REQ, "scan_qrycna_req", "scan", "Query CNA request", SP_QRYCNA, 4,
           f_scan_qrycna_req);

#define SP_QRYCNAR "§10.4.3.2 Fig 10-34"
static const ub_field f_scan_qrycna_rsp[] = {
    UBR(scan, rsvd0, 0, 8, SP_QRYCNAR),
    UBU(scan, cna, "CNA", 8, 24, UB_BASE_HEX, NULL, SP_QRYCNAR, "queried CNA"),
};
UB_HDR_DEF(scan_qrycna_rsp, UB_H_SCAN_QRYCNA_RSP, "scan_qrycna_rsp", "scan", "Query CNA response", SP_QRYCNAR, 4,
           f_scan_qrycna_rsp);

/* ---------------------------------------------------------------- TLVs (§10.4.3.2 Fig 10-26..10-30) */
enum { TLV_TYPE, TLV_LENGTH };
#define TLV_TL(h, sp, t)                                                                                  \
    [TLV_TYPE] = UBU(h, type, "Type", 0, 8, UB_BASE_DEC, vn_tlv_type, sp, t),                             \
    [TLV_LENGTH] = UBU(h, length, "Length", 8, 8, UB_BASE_DEC, NULL, sp,                                 \
                       "total TLV length in bytes incl. Type/Length, multiple of 4")

#define SP_SLICE "§10.4.3.2 Fig 10-27"
static const ub_field f_tlv_slice[] = {
    TLV_TL(slice_info, SP_SLICE, "0 = Slice_info"),
    UBU(slice_info, total_slice, "Total_slice", 16, 8, UB_BASE_DEC, NULL, SP_SLICE, "number of slices"),
    UBU(slice_info, slice_id, "Slice_ID", 24, 8, UB_BASE_DEC, NULL, SP_SLICE, "slice returned"),
};
UB_HDR_DEF(tlv_slice, UB_H_TLV_SLICE, "tlv_slice", "slice_info", "Slice_info TLV", SP_SLICE, 4, f_tlv_slice);

#define SP_PNUM "§10.4.3.2 Fig 10-28"
static const ub_field f_tlv_portnum[] = {
    TLV_TL(port_num, SP_PNUM, "1 = Port_num"),
    UBU(port_num, total_num_ports, "Total_num_ports", 16, 16, UB_BASE_DEC, NULL, SP_PNUM, "ports of the node"),
    UBU(port_num, num_port_tlv, "Num_port_TLV", 32, 16, UB_BASE_DEC, NULL, SP_PNUM,
        "Port_info TLVs in this response"),
    UBR(port_num, rsvd0, 48, 16, SP_PNUM),
};
UB_HDR_DEF(tlv_portnum, UB_H_TLV_PORTNUM, "tlv_portnum", "port_num", "Port_num TLV", SP_PNUM, 8, f_tlv_portnum);

#define SP_PINFO "§10.4.3.2 Fig 10-29, R-30"
static const ub_field f_tlv_portinfo[] = {
    TLV_TL(port_info, SP_PINFO, "2 = Port_info"),
    UBR(port_info, rsvd0, 16, 4, SP_PINFO),
    UBBV(port_info, t, "T", 20, vn_port_t, SP_PINFO, "port type"),
    UBBV(port_info, w, "W", 21, vn_port_w, SP_PINFO, "work mode"),
    UBBV(port_info, b, "B", 22, vn_port_b, SP_PINFO, "enumeration boundary"),
    UBBV(port_info, s, "S", 23, vn_port_s, SP_PINFO, "link state"),
    UBR(port_info, rsvd1, 24, 8, SP_PINFO),
    UBU(port_info, local_port_idx, "Local_port_idx", 32, 16, UB_BASE_DEC, NULL, SP_PINFO, "local port"),
    UBU(port_info, remote_port_idx, "Remote_port_idx", 48, 16, UB_BASE_DEC, NULL, SP_PINFO,
        "neighbour port (valid if S = 1)"),
    /* I-37: RSVD in the spec, vendor fields in EV-UBUS; shown, never flagged */
    UBU(port_info, max_rate, "max_rate (vendor)", 64, 16, UB_BASE_DEC, NULL, SP_PINFO ", I-37",
        "RSVD in the spec; HiSilicon max_rate"),
    UBU(port_info, cur_rate, "cur_rate (vendor)", 80, 16, UB_BASE_DEC, NULL, SP_PINFO ", I-37",
        "RSVD in the spec; HiSilicon cur_rate"),
    GUIDWS(port_info, remote_guid, "Remote_GUID", 96, SP_PINFO,
           "GUID of the neighbour's Entity 0 (valid if S = 1)"),
};
UB_HDR_DEF(tlv_portinfo, UB_H_TLV_PORTINFO, "tlv_portinfo", "port_info", "Port_info TLV", SP_PINFO, 28,
           f_tlv_portinfo);

#define SP_CAP "§10.4.3.2 Fig 10-30, R-31"
static const ub_field f_tlv_capinfo[] = {
    TLV_TL(cap_info, SP_CAP, "4 = Cap_info"),
    UBR(cap_info, rsvd0, 16, 1, SP_CAP),
    UBU(cap_info, sup_mtu, "Sup_MTU", 17, 3, UB_BASE_DEC, vn_mtu, SP_CAP, "max supported TP MTU (MTU_CFG code)"),
    UBR(cap_info, rsvd1, 20, 1, SP_CAP),
    UBU(cap_info, mtu, "MTU", 21, 3, UB_BASE_DEC, vn_mtu, SP_CAP, "configured TP MTU (MTU_CFG code)"),
    UBR(cap_info, rsvd2, 24, 7, SP_CAP),
    UBB(cap_info, da, "DA", 31, SP_CAP, "device authentication supported"),
    UBR(cap_info, rsvd3, 32, 16, SP_CAP),
    UBU(cap_info, class_code, "Class Code", 48, 16, UB_BASE_HEX, NULL, SP_CAP ", App. C.2",
        "Class Code of Entity 0"),
};
UB_HDR_DEF(tlv_capinfo, UB_H_TLV_CAPINFO, "tlv_capinfo", "cap_info", "Cap_info TLV", SP_CAP, 8, f_tlv_capinfo);

#define SP_TLV "§10.4.3.2 Fig 10-26"
static const ub_field f_tlv_other[] = {
    TLV_TL(tlv, SP_TLV, "3, 5..127 reserved; 128..255 vendor defined"),
    UBY(tlv, value, "Value", 16, 0, SP_TLV, "TLV value"),
};
UB_HDR_DEF(tlv_other, UB_H_TLV_OTHER, "tlv_other", "tlv", "TLV (reserved / vendor type)", SP_TLV, 0, f_tlv_other);

/* TLV type -> (header id, required Length); Length 0 = any multiple of 4 */
static void tlv_kind(unsigned type, unsigned *id, unsigned *need, bool *rsvd)
{
    *rsvd = false;
    switch (type) {
    case 0: *id = UB_H_TLV_SLICE; break;
    case 1: *id = UB_H_TLV_PORTNUM; break;
    case 2: *id = UB_H_TLV_PORTINFO; break;
    case 4: *id = UB_H_TLV_CAPINFO; break;
    default: *id = UB_H_TLV_OTHER; *rsvd = type < 128; break;
    }
    *need = ub_hdr_get(*id)->len;
}

uint32_t ub_dec_tlvs(ub_dec *d, uint32_t off, uint32_t end)
{
    end = ub_dec_clamp(d, end);
    while (off < end) {
        uint32_t rem = end - off;
        if (rem < 2) { /* not even Type/Length */
            ub_push_in(d, UB_H_TLV_OTHER, off, 2, end, true);
            return end;
        }
        unsigned type = (unsigned)ub_row_at(d->p + off, &f_tlv_other[TLV_TYPE]); /* 2 bytes present */
        unsigned tlen = (unsigned)ub_row_at(d->p + off, &f_tlv_other[TLV_LENGTH]);
        unsigned id, need;
        bool rsvd;
        tlv_kind(type, &id, &need, &rsvd);
        if (rsvd) ub_error(d, UB_E_RSVD_VALUE, id, off, type, 0, "ub.tlv.type");
        if (tlen < 4) { /* cannot advance: show the rest as one TLV */
            ub_error(d, UB_E_LENGTH, id, off + 1, tlen, need ? need : 4, "TLV Length < 4");
            ub_push_in(d, id, off, rem, end, false);
            return end;
        }
        if (tlen > rem) {
            ub_push_in(d, id, off, tlen, end, true);
            return end;
        }
        if (tlen % 4 != 0 || (need && tlen != need))
            ub_error(d, UB_E_LENGTH, id, off + 1, tlen, need ? need : (tlen + 3u) & ~3u, "TLV Length");
        if (!ub_push_in(d, id, off, tlen, end, false)) return end;
        off += tlen;
    }
    return off;
}

/* ---------------------------------------------------------------- scan path helpers */
/* §7.1.1 / R-32: entry i (width w = 4/8/16 bits) of a Scan Header path as received.
 * packing 0 = rev. 2 (entries fill each 32-bit word, sent MSB first, from its least significant
 * end), 1 = rev. 1 (entry 0 in the most significant bits of the first path byte).
 * Reads path bytes 4*(i/(32/w)) .. +3: the caller guarantees they exist (a path of Hops entries
 * is 4*ceil(Hops*w/32) bytes). Returns 0 for an invalid width. */
unsigned ub_scan_path_entry(const uint8_t *path, unsigned i, unsigned w, unsigned packing)
{
    if (!path || (w != 4 && w != 8 && w != 16)) return 0;
    unsigned n = 32u / w, k = i / n, slot = i % n;
    const uint8_t *q = path + 4u * k;
    uint32_t word = ((uint32_t)q[0] << 24) | ((uint32_t)q[1] << 16) | ((uint32_t)q[2] << 8) | q[3];
    unsigned sh = packing ? 32u - w - w * slot /* R-32 rev. 1 */ : w * slot /* R-32 rev. 2 */;
    return (unsigned)((word >> sh) & ((1u << w) - 1u));
}

static unsigned scan_width(unsigned type) { return type == 0 ? 4 : type == 1 ? 8 : type == 2 ? 16 : 0; }

/* MG-02: path padded to 4 bytes with zero entries */
static void check_path_pad(ub_dec *d, uint32_t off, uint32_t plen, unsigned hops, unsigned w, const char *what)
{
    if (!plen || off + plen > d->len) return;
    unsigned total = plen * 8u / w;
    for (unsigned i = hops; i < total; i++) {
        unsigned e = ub_scan_path_entry(d->p + off, i, w, d->o->scan_packing);
        if (e) {
            ub_error(d, UB_E_PADDING, UB_H_SCANHDR, off + 4u * (i / (32u / w)), e, 0, what);
            return;
        }
    }
}

static void push_opaque(ub_dec *d, uint32_t off, uint32_t end)
{
    if (off < end) ub_push_in(d, UB_H_MG_OPAQUE, off, end - off, end, false);
}

enum { MG_SCAN_MAX = 1024 }; /* MG-01: Scan Header + Scan PDU <= 1024 bytes */

uint32_t ub_dec_enum(ub_dec *d, uint32_t off, uint32_t end)
{
    end = ub_dec_clamp(d, end);
    if (off > end) off = end;

    /* §10.4.3.1: 2 bytes of padding */
    ub_layer *pad = ub_push_in(d, UB_H_ENUMPAD, off, 2, end, true);
    if (!pad || (pad->flags & UB_LF_TRUNC)) return end;
    uint64_t pv = UB_LROW(pad, f_enumpad, PAD_PADDING);
    if (pv) ub_error(d, UB_E_PADDING, UB_H_ENUMPAD, off, pv, 0, "ub.enumpad.padding");

    /* Scan Header (§10.4.3.2 Fig 10-22) */
    uint32_t sh = off + 2;
    if (end - sh < 4) {
        ub_push_in(d, UB_H_SCANHDR, sh, 4, end, true);
        return end;
    }
    const uint8_t *shp = d->p + sh; /* its first 4 bytes are present (end <= d->len) */
    unsigned r = (unsigned)ub_row_at(shp, &f_scanhdr[SH_R]);
    unsigned type = (unsigned)ub_row_at(shp, &f_scanhdr[SH_TYPE]);
    unsigned hops = (unsigned)ub_row_at(shp, &f_scanhdr[SH_HOPS]);
    unsigned step = (unsigned)ub_row_at(shp, &f_scanhdr[SH_STEP]);
    unsigned w = scan_width(type);
    if (!w) { /* Type >= 3: path sizes unknown, nothing after it can be located */
        ub_layer *l = ub_push_in(d, UB_H_SCANHDR, sh, 4, end, true);
        ub_error(d, UB_E_RSVD_VALUE, UB_H_SCANHDR, sh + 1, type, 2, "ub.scanhdr.type");
        if (l) push_opaque(d, sh + 4, end);
        return end;
    }
    uint32_t plen = 4u * ((hops * w + 31u) / 32u); /* §7.1.1: 4*ceil(Hops*w/32) */
    uint32_t rlen = r ? plen : 0;
    ub_layer *shl = ub_push_in(d, UB_H_SCANHDR, sh, 4 + plen, end, true);
    if (!shl) return end;
    if (step > hops) /* MG-02, §10.6 j */
        ub_error(d, UB_E_VALUE, UB_H_SCANHDR, sh + 3, step, hops, "ub.scanhdr.step > hops");
    if (shl->flags & UB_LF_TRUNC) return end;
    check_path_pad(d, sh + 4, plen, hops, w, "ub.scanhdr.forward_path padding");
    if (rlen) {
        ub_layer *rl = ub_push_in(d, UB_H_SCAN_RPATH, sh + 4 + plen, rlen, end, true);
        if (!rl || (rl->flags & UB_LF_TRUNC)) return end;
        check_path_pad(d, sh + 4 + plen, rlen, hops, w, "ub.scanhdr.return_path padding");
    }
    uint32_t shlen = 4 + plen + rlen;

    /* Scan PDU (§10.4.3.2 Fig 10-23) */
    uint32_t pdu = sh + shlen;
    uint32_t avail = end - pdu;
    if (avail == 0) {
        ub_error(d, UB_E_TRUNCATED, UB_H_SCANPDU_REQ, pdu, 0, 24, "scan PDU missing");
        return end;
    }
    unsigned opcode = avail >= 3 ? (unsigned)ub_row_at(d->p + pdu, &f_scanpdu_req[SQ_OPCODE]) : 0;
    bool rsp = avail > 2 && opcode == 0; /* Opcode 0 = response for every CMD */
    ub_layer *pl = ub_push_in(d, rsp ? UB_H_SCANPDU_RSP : UB_H_SCANPDU_REQ, pdu, 24, end, true);
    if (!pl || (pl->flags & UB_LF_TRUNC)) return end;
    /* request and response tables: the same rows (SCAN_COMMON) */
    unsigned ver = (unsigned)ub_row_at(pl->data, &f_scanpdu_req[SQ_VERSION]);
    unsigned cmd = (unsigned)ub_row_at(pl->data, &f_scanpdu_req[SQ_CMD]);
    uint32_t L = 4u * (uint32_t)ub_row_at(pl->data, &f_scanpdu_req[SQ_LENGTH]); /* R-33: whole Scan PDU */
    if (ver != 1) ub_error(d, UB_E_VALUE, pl->hdr->id, pdu, ver, 1, "ub.scan.version");
    if (rsp == (r != 0)) /* MG-02: requests R = 1, responses R = 0 */
        ub_error(d, UB_E_VALUE, UB_H_SCANHDR, sh + 1, r, rsp ? 0 : 1, "ub.scanhdr.r");
    if (shlen + L > MG_SCAN_MAX)
        ub_error(d, UB_E_LENGTH, pl->hdr->id, pdu + 5, shlen + L, MG_SCAN_MAX, "scan header + PDU > 1024 (MG-01)");

    /* R-33 / R-44: the bytes after the PDU are nothing or a 4-byte ICRC (caller decides) */
    uint32_t lim;
    if (L > avail) {
        ub_error(d, UB_E_LENGTH, pl->hdr->id, pdu + 5, avail, L, "ub.scan.length > bytes present");
        lim = end;
    } else {
        if (avail - L != 0 && avail - L != 4)
            ub_error(d, UB_E_LENGTH, pl->hdr->id, pdu + 5, L, avail, "ub.scan.length vs packet");
        lim = pdu + (L < 24 ? 24 : L);
    }

    /* command-specific part */
    uint32_t ext = pdu + 24;
    unsigned ext_id = UB_H_NONE;
    uint32_t want = 24; /* expected Scan PDU size, 0 = variable */
    bool bad_op = false;
    switch (cmd) {
    case 0: /* topology query */
        if (rsp) want = 0;
        else if (opcode != 1) bad_op = true;
        break;
    case 1: /* configure CNA */
        if (!rsp) {
            if (opcode < 2 || opcode > 4) bad_op = true;
            ext_id = UB_H_SCAN_CFGCNA_REQ;
            want = 32;
        }
        break;
    case 2: /* query CNA; Opcode 1 = vendor "query switch CNA" (I-37), accepted */
        if (!rsp && (opcode < 1 || opcode > 3)) bad_op = true;
        ext_id = rsp ? UB_H_SCAN_QRYCNA_RSP : UB_H_SCAN_QRYCNA_REQ;
        want = 28;
        break;
    default: /* 3..255 user-defined area */
        ub_error(d, UB_E_AMBIGUOUS, pl->hdr->id, pdu + 1, cmd, 0, "ub.scan.cmd user-defined (3..255): shown opaque");
        push_opaque(d, ext, lim);
        return lim;
    }
    if (bad_op) ub_error(d, UB_E_RSVD_VALUE, pl->hdr->id, pdu + 2, opcode, 0, "ub.scan.opcode");
    if (want && L != want) ub_error(d, UB_E_LENGTH, pl->hdr->id, pdu + 5, L, want, "ub.scan.length vs command");
    if (cmd == 0 && rsp) {
        d->depth++;
        ub_dec_tlvs(d, ext, lim);
        d->depth--;
    } else if (ext_id != UB_H_NONE && ext < lim) {
        ub_layer *el = ub_push_in(d, ext_id, ext, ub_hdr_get(ext_id)->len, lim, false);
        if (el) push_opaque(d, ext + el->len, lim);
    } else {
        push_opaque(d, ext, lim);
    }
    return lim;
}

/* ================================================================ configuration management PDUs */
#define SP_ERR "§10.4.3.3 Fig 10-35"
static const ub_field f_mg_error[] = {
    UBR(errmsg, rsvd0, 0, 8, SP_ERR),
    UBU(errmsg, scna, "SCNA", 8, 24, UB_BASE_HEX, NULL, SP_ERR, "network address of the failing node"),
    UBBV(errmsg, el, "EL", 32, vn_el, SP_ERR, "error level"),
    UBR(errmsg, rsvd1, 33, 15, SP_ERR),
    UBU(errmsg, port_idx, "Port_idx", 48, 16, UB_BASE_DEC, NULL, SP_ERR, "failing port (valid if EL = 0)"),
};
UB_HDR_DEF(mg_error, UB_H_MG_ERROR, "mg_error", "errmsg", "Error Message", SP_ERR, 8, f_mg_error);

#define SP_LINK "§10.4.3.3 Fig 10-36, R-38"
static const ub_field f_mg_link[] = {
    UBR(linkchg, rsvd0, 0, 8, SP_LINK),
    UBU(linkchg, scna, "SCNA", 8, 24, UB_BASE_HEX, NULL, SP_LINK,
        "port CNA of the changed port (or the controller/switch CNA)"),
    UBR(linkchg, rsvd1, 32, 16, SP_LINK),
    UBU(linkchg, port_idx, "Port_idx", 48, 16, UB_BASE_DEC, NULL, SP_LINK, "port whose link changed"),
};
UB_HDR_DEF(mg_link, UB_H_MG_LINK, "mg_link", "linkchg", "Link Change Message", SP_LINK, 8, f_mg_link);

#define SP_HP "§10.4.3.3 Fig 10-37"
static const ub_field f_mg_hotplug[] = {
    UBR(hotplug, rsvd0, 0, 16, SP_HP),
    UBU(hotplug, slot_idx, "Slot_idx", 16, 16, UB_BASE_DEC, NULL, SP_HP, "hot-plug slot"),
    UBR(hotplug, rsvd1, 32, 32, SP_HP),
};
UB_HDR_DEF(mg_hotplug, UB_H_MG_HOTPLUG, "mg_hotplug", "hotplug", "Hot-plug Message", SP_HP, 8, f_mg_hotplug);

/* R-35: 16 bytes (rev. 2 default); the 20-byte alternative adds a trailing RSVD word and is chosen
 * by PDU Length */
#define SP_CFGQ "§10.4.3.3 Fig 10-38, R-35"
enum { MG_CFG_REQ_LEN = 16, MG_CFG_REQ_LEN_ALT = 20 }; /* R-35 */
static const ub_field f_mg_cfg_req[] = {
    UBU(cfgmsg, entity_idx, "Entity_idx", 0, 16, UB_BASE_DEC, NULL, SP_CFGQ, "target Entity"),
    UBR(cfgmsg, rsvd0, 16, 8, SP_CFGQ),
    UBU(cfgmsg, byte_en, "Byte_En", 24, 4, UB_BASE_HEX, NULL, SP_CFGQ,
        "write byte enables; bit k (Byte_En[0] = B3 b4) enables Data[8k+7:8k]"),
    UBR(cfgmsg, rsvd1, 28, 4, SP_CFGQ),
    UBU(cfgmsg, request_address, "Request Address", 32, 32, UB_BASE_HEX, NULL, SP_CFGQ,
        "configuration-space address in 4-byte units"),
    UBR(cfgmsg, rsvd2, 64, 32, SP_CFGQ),
    UBU(cfgmsg, data, "Data", 96, 32, UB_BASE_HEX, NULL, SP_CFGQ, "write data (reserved for reads)"),
    UBR(cfgmsg, rsvd3, 128, 32, SP_CFGQ " (20-byte alternative only)"),
};
UB_HDR_DEF(mg_cfg_req, UB_H_MG_CFG_REQ, "mg_cfg_req", "cfgmsg", "Configuration Message (request)", SP_CFGQ,
           MG_CFG_REQ_LEN, f_mg_cfg_req);

#define SP_CFGR "§10.4.3.3 Fig 10-39"
static const ub_field f_mg_cfg_rsp[] = {
    UBU(cfgmsg, data, "Data", 0, 32, UB_BASE_HEX, NULL, SP_CFGR, "read data"),
    UBR(cfgmsg, rsvd0, 32, 96, SP_CFGR),
};
UB_HDR_DEF(mg_cfg_rsp, UB_H_MG_CFG_RSP, "mg_cfg_rsp", "cfgmsg", "Configuration Message (response)", SP_CFGR, 16,
           f_mg_cfg_rsp);

/* R-36 / I-35: VDM for Vendor; figure order (default) and EV-UBUS order (opts->vdm_variant = 1).
 * Fixed length = the GUID-derived part; the Vendor Definition runs to the end of the PDU. */
#define SP_VDM "§10.4.3.3 Fig 10-41, R-36"
static const ub_field f_mg_vdm_vendor[] = {
    UBU(vdm, version, "Version", 0, 4, UB_BASE_DEC, NULL, SP_VDM, "from the GUID"),
    UBU(vdm, type, "Type", 4, 4, UB_BASE_DEC, vn_guid_type, SP_VDM, "from the GUID"),
    UBR(vdm, rsvd0, 8, 8, SP_VDM),
    UBU(vdm, device_id, "Device ID", 16, 16, UB_BASE_HEX, NULL, SP_VDM, "from the GUID"),
    UBU(vdm, vendor_id, "Vendor ID", 32, 16, UB_BASE_HEX, NULL, SP_VDM, "from the GUID"),
    UBY(vdm, vendor_definition, "Vendor Definition", 48, 0, SP_VDM, "vendor-defined content"),
};
UB_HDR_DEF(mg_vdm_vendor, UB_H_MG_VDM_VENDOR, "mg_vdm_vendor", "vdm", "VDM for Vendor", SP_VDM, 6, f_mg_vdm_vendor);

#define SP_VDMA "§10.4.3.3 Fig 10-41, R-36 alternative (EV-UBUS, I-35)"
static const ub_field f_mg_vdm_vendor_alt[] = {
    UBU(vdm, version, "Version", 0, 4, UB_BASE_DEC, NULL, SP_VDMA, "from the GUID"),
    UBU(vdm, type, "Type", 4, 4, UB_BASE_DEC, vn_guid_type, SP_VDMA, "from the GUID"),
    UBR(vdm, rsvd0, 8, 24, SP_VDMA),
    UBU(vdm, vendor_id, "Vendor ID", 32, 16, UB_BASE_HEX, NULL, SP_VDMA, "from the GUID"),
    UBU(vdm, device_id, "Device ID", 48, 16, UB_BASE_HEX, NULL, SP_VDMA, "from the GUID"),
    UBY(vdm, vendor_definition, "Vendor Definition", 64, 0, SP_VDMA, "vendor-defined content"),
};
UB_HDR_DEF(mg_vdm_vendor_alt, UB_H_MG_VDM_VENDOR_ALT, "mg_vdm_vendor_alt", "vdm", "VDM for Vendor (EV-UBUS layout)",
           SP_VDMA, 8, f_mg_vdm_vendor_alt);

/* §10.4.3.3 Fig 10-42: 4 bytes (Opcode 0) or 28 bytes (Opcode 1) */
#define SP_RSIQ "§10.4.3.3 Fig 10-42, R-37"
enum { RSIQ_RSVD0, RSIQ_OPCODE };
enum { MG_RSI_REQ_LEN0 = 4, MG_RSI_REQ_LEN1 = 28 };
static const ub_field f_mg_rsi_req[] = {
    [RSIQ_RSVD0] = UBR(rsi, rsvd0, 0, 16, SP_RSIQ),
    [RSIQ_OPCODE] = UBU(rsi, opcode, "Opcode", 16, 16, UB_BASE_DEC, vn_rsi_opcode, SP_RSIQ,
                        "0 get, 1 configure resource-space info"),
    SAROWS(rsi, 0, 32, SP_RSIQ), SAROWS(rsi, 1, 96, SP_RSIQ), SAROWS(rsi, 2, 160, SP_RSIQ),
};
UB_HDR_DEF(mg_rsi_req, UB_H_MG_RSI_REQ, "mg_rsi_req", "rsi", "Resource Space Information Exchange (request)",
           SP_RSIQ, MG_RSI_REQ_LEN0, f_mg_rsi_req);

#define SP_RSIR "§10.4.3.3 Fig 10-43"
static const ub_field f_mg_rsi_rsp[] = {
    SSROW(rsi, 0, 0, SP_RSIR), SAROWS(rsi, 0, 32, SP_RSIR),
    SSROW(rsi, 1, 96, SP_RSIR), SAROWS(rsi, 1, 128, SP_RSIR),
    SSROW(rsi, 2, 192, SP_RSIR), SAROWS(rsi, 2, 224, SP_RSIR),
};
UB_HDR_DEF(mg_rsi_rsp, UB_H_MG_RSI_RSP, "mg_rsi_rsp", "rsi", "Resource Space Information Exchange (response)",
           SP_RSIR, 36, f_mg_rsi_rsp);

#define SP_ENT "§10.4.3.3 Fig 10-44"
enum { ENT_RSVD0, ENT_MUE_NUMS, ENT_ENTITY_NUMS };
static const ub_field f_mg_entinfo_rsp[] = {
    [ENT_RSVD0] = UBR(entinfo, rsvd0, 0, 32, SP_ENT),
    [ENT_MUE_NUMS] = UBU(entinfo, mue_nums, "MUE nums", 32, 16, UB_BASE_DEC, NULL, SP_ENT, "number of MUEs"),
    [ENT_ENTITY_NUMS] = UBU(entinfo, entity_nums, "Entity nums", 48, 16, UB_BASE_DEC, NULL, SP_ENT,
                            "total Entities"),
};
UB_HDR_DEF(mg_entinfo_rsp, UB_H_MG_ENTINFO_RSP, "mg_entinfo_rsp", "entinfo", "Obtaining Entity Information (response)",
           SP_ENT, 8, f_mg_entinfo_rsp);

static const ub_field f_mg_entinfo_mue[] = {
    UBU(entinfo_mue, end_ue_idx, "MUE end UE idx", 0, 16, UB_BASE_DEC, NULL, SP_ENT, "last UE index of this MUE"),
    UBU(entinfo_mue, start_ue_idx, "MUE start UE idx", 16, 16, UB_BASE_DEC, NULL, SP_ENT,
        "first UE index of this MUE"),
};
UB_HDR_DEF(mg_entinfo_mue, UB_H_MG_ENTINFO_MUE, "mg_entinfo_mue", "entinfo_mue", "MUE entry", SP_ENT, 4,
           f_mg_entinfo_mue);

/* §10.4.3.3 Fig 10-45; list padded to 4 bytes (R-48) */
#define SP_LNQ "§10.4.3.3 Fig 10-45, R-48"
#define LNQ_PORT(n) UBU(lnq, port_idx##n, "Port_idx" #n, 32 + 16 * (n), 16, UB_BASE_DEC, NULL, SP_LNQ, \
                        "port index (range query: 0 = first, 1 = last)")
enum { LNQ_D, LNQ_RSVD0, LNQ_PORT_NUM, LNQ_RSVD1, LNQ_PORT0 };
enum { LNQ_NAMED_PORTS = 32 };
static const ub_field f_mg_lnq_req[] = {
    [LNQ_D] = UBBV(lnq, d, "D", 0, vn_lnq_d, SP_LNQ, "0 range query (Port_idx0..Port_idx1), 1 list query"),
    [LNQ_RSVD0] = UBR(lnq, rsvd0, 1, 7, SP_LNQ),
    [LNQ_PORT_NUM] = UBU(lnq, port_num, "Port_num", 8, 8, UB_BASE_DEC, NULL, SP_LNQ, "number of ports to query"),
    [LNQ_RSVD1] = UBR(lnq, rsvd1, 16, 16, SP_LNQ),
    [LNQ_PORT0] = LNQ_PORT(0), LNQ_PORT(1), LNQ_PORT(2), LNQ_PORT(3), LNQ_PORT(4), LNQ_PORT(5), LNQ_PORT(6),
    LNQ_PORT(7), LNQ_PORT(8), LNQ_PORT(9), LNQ_PORT(10), LNQ_PORT(11), LNQ_PORT(12), LNQ_PORT(13),
    LNQ_PORT(14), LNQ_PORT(15), LNQ_PORT(16), LNQ_PORT(17), LNQ_PORT(18), LNQ_PORT(19), LNQ_PORT(20),
    LNQ_PORT(21), LNQ_PORT(22), LNQ_PORT(23), LNQ_PORT(24), LNQ_PORT(25), LNQ_PORT(26), LNQ_PORT(27),
    LNQ_PORT(28), LNQ_PORT(29), LNQ_PORT(30), LNQ_PORT(31),
    UBY(lnq, port_idx_rest, "Port_idx32..", 32 + 16 * LNQ_NAMED_PORTS, 0, SP_LNQ,
        "further Port_idx entries, 2 bytes each"),
};
UB_HDR_DEF(mg_lnq_req, UB_H_MG_LNQ_REQ, "mg_lnq_req", "lnq", "Link Neighbor Query (request)", SP_LNQ, 4,
           f_mg_lnq_req);

#define SP_TOKQ "§10.4.3.3 Fig 10-47"
static const ub_field f_mg_token_req[] = {
    UBR(tokchk, rsvd0, 0, 31, SP_TOKQ),
    UBBV(tokchk, check_en, "Check_En", 31, vn_check_en, SP_TOKQ, "token check (default disabled)"),
};
UB_HDR_DEF(mg_token_req, UB_H_MG_TOKEN_REQ, "mg_token_req", "tokchk", "Token Check Configuration (request)", SP_TOKQ,
           4, f_mg_token_req);

#define SP_TOKR "§10.4.3.3 Fig 10-48"
static const ub_field f_mg_token_rsp[] = {
    UBR(tokchk, rsvd0, 0, 12, SP_TOKR),
    UBU(tokchk, tokenid, "TokenID", 12, 20, UB_BASE_HEX, NULL, SP_TOKR, "token ID"),
    UBU(tokchk, tokenvalue, "TokenValue", 32, 32, UB_BASE_HEX, NULL, SP_TOKR, "token value"),
};
UB_HDR_DEF(mg_token_rsp, UB_H_MG_TOKEN_RSP, "mg_token_rsp", "tokchk", "Token Check Configuration (response)",
           SP_TOKR, 8, f_mg_token_rsp);

#define SP_REG "§10.4.3.3 Fig 10-49"
static const ub_field f_mg_ent_reg[] = {
    UBR(entreg, rsvd0, 0, 1, SP_REG),
    UBU(entreg, upi, "UPI", 1, 15, UB_BASE_HEX, NULL, SP_REG, "UPI of the Entity"),
    UBU(entreg, entity_idx, "Entity_idx", 16, 16, UB_BASE_DEC, NULL, SP_REG, "Entity index"),
    EIDROWS(entreg, eid, "EID", 32, SP_REG),
    GUIDW1(entreg, guid, "GUID", 160, SP_REG, "GUID0..GUID3"),
    UBR(entreg, rsvd1, 288, 8, SP_REG),
    UBU(entreg, cna, "CNA", 296, 24, UB_BASE_HEX, NULL, SP_REG, "CNA of the Entity"),
    EIDROWS(entreg, ueid, "UEID", 320, SP_REG),
    SSROW(entreg, 0, 448, SP_REG), SAROWS(entreg, 0, 480, SP_REG),
    SSROW(entreg, 1, 544, SP_REG), SAROWS(entreg, 1, 576, SP_REG),
    SSROW(entreg, 2, 640, SP_REG), SAROWS(entreg, 2, 672, SP_REG),
};
UB_HDR_DEF(mg_ent_reg, UB_H_MG_ENT_REG, "mg_ent_reg", "entreg", "Entity Registration", SP_REG, 92, f_mg_ent_reg);

#define SP_DEREG "§10.4.3.3 Fig 10-50"
static const ub_field f_mg_ent_dereg[] = {
    EIDROWS(entdereg, eid, "EID", 0, SP_DEREG),
    UBR(entdereg, rsvd0, 128, 24, SP_DEREG),
    UBU(entdereg, reason, "Reason", 152, 8, UB_BASE_HEX, vn_dereg_reason, SP_DEREG, "deregistration reason"),
};
UB_HDR_DEF(mg_ent_dereg, UB_H_MG_ENT_DEREG, "mg_ent_dereg", "entdereg", "Entity Deregistration", SP_DEREG, 20,
           f_mg_ent_dereg);

#define SP_BIC "§10.4.3.3 Fig 10-51"
static const ub_field f_mg_bi_create[] = {
    GUIDW1(bicreate, guid, "GUID", 0, SP_BIC, "bus instance GUID"),
    EIDROWS(bicreate, eid, "EID", 128, SP_BIC),
    UBR(bicreate, rsvd0, 256, 17, SP_BIC),
    UBU(bicreate, upi, "UPI", 273, 15, UB_BASE_HEX, NULL, SP_BIC, "UPI[14:0]"),
};
UB_HDR_DEF(mg_bi_create, UB_H_MG_BI_CREATE, "mg_bi_create", "bicreate", "Bus Instance Create", SP_BIC, 36,
           f_mg_bi_create);

#define SP_BID "§10.4.3.3 Fig 10-52"
static const ub_field f_mg_bi_destroy[] = {
    GUIDW1(bidestroy, guid, "GUID", 0, SP_BID, "bus instance GUID"),
};
UB_HDR_DEF(mg_bi_destroy, UB_H_MG_BI_DESTROY, "mg_bi_destroy", "bidestroy", "Bus Instance Destroy", SP_BID, 16,
           f_mg_bi_destroy);

#define SP_CPL "§10.4.3.3 Fig 10-53"
static const ub_field f_mg_cfg_cpl[] = {
    UBR(cfgcpl, rsvd0, 0, 31, SP_CPL),
    UBBV(cfgcpl, f, "F", 31, vn_cpl_f, SP_CPL, "create a bus-controller virtual instance for the UBPU"),
    GUIDW1(cfgcpl, guid, "GUID", 32, SP_CPL, "valid if F = 1"),
    EIDROWS(cfgcpl, eid, "EID", 160, SP_CPL),
};
UB_HDR_DEF(mg_cfg_cpl, UB_H_MG_CFG_CPL, "mg_cfg_cpl", "cfgcpl", "Configuration Completion Notification", SP_CPL, 36,
           f_mg_cfg_cpl);

#define SP_PRST "§10.4.3.3 Fig 10-54"
static const ub_field f_mg_port_reset[] = {
    UBU(portreset, port_idx, "Port_idx", 0, 16, UB_BASE_DEC, NULL, SP_PRST, "port being reset"),
    UBR(portreset, rsvd0, 16, 15, SP_PRST),
    UBBV(portreset, t, "T", 31, vn_reset_t, SP_PRST, "0 reset prepare, 1 reset done"),
};
UB_HDR_DEF(mg_port_reset, UB_H_MG_PORT_RESET, "mg_port_reset", "portreset", "Port Reset Notification", SP_PRST, 4,
           f_mg_port_reset);

#define SP_OPQ "§10.4.3.3 Table 10-11"
static const ub_field f_mg_opaque[] = {
    UBY(mgmt_pdu, data, "PDU", 0, 0, SP_OPQ, "PDU not decoded (MCTP, SPDM, UVB, reserved or user-defined)"),
};
UB_HDR_DEF(mg_opaque, UB_H_MG_OPAQUE, "mg_opaque", "mgmt_pdu", "Management PDU (opaque)", SP_OPQ, 0, f_mg_opaque);

/* ---------------------------------------------------------------- PDU dispatch (Table 10-11) */
/* MG-04: a PDU that must be exactly the table's length */
static void pdu_fixed_len(ub_dec *d, unsigned id, uint32_t off, uint32_t end, uint32_t size)
{
    uint32_t n = end - off;
    if (n != size) ub_error(d, UB_E_LENGTH, id, off, n, size, ub_hdr_get(id)->key);
    if (n == 0) return;
    ub_layer *l = ub_push_in(d, id, off, size, end, false);
    if (l && n > size) push_opaque(d, off + size, end);
}
static void pdu_fixed(ub_dec *d, unsigned id, uint32_t off, uint32_t end)
{
    pdu_fixed_len(d, id, off, end, ub_hdr_get(id)->len);
}
/* no PDU defined in this direction */
static void pdu_none(ub_dec *d, uint32_t off, uint32_t end)
{
    if (end > off) {
        ub_error(d, UB_E_LENGTH, UB_H_MG_OPAQUE, off, end - off, 0, "no PDU defined for this message");
        push_opaque(d, off, end);
    }
}

static void pdu_cfg_req(ub_dec *d, uint32_t off, uint32_t end)
{
    uint32_t n = end - off;
    uint32_t size = n == MG_CFG_REQ_LEN_ALT ? MG_CFG_REQ_LEN_ALT : MG_CFG_REQ_LEN; /* R-35 by PDU Length */
    pdu_fixed_len(d, UB_H_MG_CFG_REQ, off, end, size);
}

static void pdu_vdm(ub_dec *d, uint32_t off, uint32_t end)
{
    unsigned id = d->o->vdm_variant ? UB_H_MG_VDM_VENDOR_ALT : UB_H_MG_VDM_VENDOR; /* R-36 / I-35 */
    uint32_t n = end - off, min = ub_hdr_get(id)->len;
    if (n < min) ub_error(d, UB_E_LENGTH, id, off, n, min, ub_hdr_get(id)->key);
    if (n) ub_push_in(d, id, off, n > min ? n : min, end, false);
}

static void pdu_rsi(ub_dec *d, uint32_t off, uint32_t end, bool rsp)
{
    uint32_t n = end - off;
    if (rsp) { /* 36 bytes (Opcode 0) or none (Opcode 1) */
        if (n) pdu_fixed(d, UB_H_MG_RSI_RSP, off, end);
        return;
    }
    if (n < MG_RSI_REQ_LEN0) {
        pdu_fixed(d, UB_H_MG_RSI_REQ, off, end);
        return;
    }
    unsigned op = (unsigned)ub_peek(d, &ub_hdr_mg_rsi_req, RSIQ_OPCODE, off, end);
    if (op > 1) {
        ub_error(d, UB_E_RSVD_VALUE, UB_H_MG_RSI_REQ, off + 2, op, 0, "ub.rsi.opcode");
        ub_push_in(d, UB_H_MG_RSI_REQ, off, n, end, false);
        return;
    }
    pdu_fixed_len(d, UB_H_MG_RSI_REQ, off, end, op ? MG_RSI_REQ_LEN1 : MG_RSI_REQ_LEN0);
}

static void pdu_entinfo(ub_dec *d, uint32_t off, uint32_t end)
{
    uint32_t n = end - off, fixed = ub_hdr_mg_entinfo_rsp.len, ent = ub_hdr_mg_entinfo_mue.len;
    if (n < fixed) {
        pdu_fixed(d, UB_H_MG_ENTINFO_RSP, off, end);
        return;
    }
    ub_layer *l = ub_push_in(d, UB_H_MG_ENTINFO_RSP, off, fixed, end, false);
    if (!l) return;
    uint32_t mue = (uint32_t)ub_lget(l, ENT_MUE_NUMS);
    uint32_t want = fixed + ent * mue;
    if (n != want) ub_error(d, UB_E_LENGTH, UB_H_MG_ENTINFO_RSP, off, n, want, "entinfo: 8 + 4 * MUE nums");
    uint32_t p = off + fixed;
    d->depth++;
    for (uint32_t i = 0; i < mue && end - p >= ent; i++, p += ent)
        if (!ub_push_in(d, UB_H_MG_ENTINFO_MUE, p, ent, end, false)) break;
    d->depth--;
    push_opaque(d, p, end);
}

static void pdu_lnq_req(ub_dec *d, uint32_t off, uint32_t end)
{
    uint32_t n = end - off, fixed = ub_hdr_mg_lnq_req.len;
    if (n < fixed) {
        pdu_fixed(d, UB_H_MG_LNQ_REQ, off, end);
        return;
    }
    unsigned list = (unsigned)ub_peek(d, &ub_hdr_mg_lnq_req, LNQ_D, off, end);
    unsigned pn = (unsigned)ub_peek(d, &ub_hdr_mg_lnq_req, LNQ_PORT_NUM, off, end);
    unsigned cnt = list ? pn : 2; /* range query: Port_idx0 = first, Port_idx1 = last */
    uint32_t want = fixed + ((2u * cnt + 3u) & ~3u); /* R-48: padded to 4 bytes */
    if (n != want) ub_error(d, UB_E_LENGTH, UB_H_MG_LNQ_REQ, off, n, want, "lnq: 4 + Port_idx list");
    ub_layer *l = ub_push_in(d, UB_H_MG_LNQ_REQ, off, want < n ? want : n, end, false);
    if (!l) return;
    /* R-48: entries after the last port are padding = 0 */
    for (uint32_t b = fixed + 2u * cnt; b + 2 <= l->len; b += 2) {
        uint16_t v = 0;
        ub_rd16(l->data, l->len, b, &v);
        if (v) {
            ub_error(d, UB_E_PADDING, UB_H_MG_LNQ_REQ, off + b, v, 0, "ub.lnq port_idx padding");
            break;
        }
    }
    if (n > want) push_opaque(d, off + want, end);
}

static void pdu_token(ub_dec *d, uint32_t off, uint32_t end, bool rsp)
{
    if (!rsp) pdu_fixed(d, UB_H_MG_TOKEN_REQ, off, end);
    else if (end > off) pdu_fixed(d, UB_H_MG_TOKEN_RSP, off, end); /* 8 bytes, or none when disabled */
}

/* Code 110 Pooled Resource Management, Sub 0000..0101: request tables (responses carry no PDU) */
static const uint16_t pool_ids[] = {
    UB_H_MG_ENT_REG, UB_H_MG_ENT_DEREG, UB_H_MG_BI_CREATE, UB_H_MG_BI_DESTROY, UB_H_MG_CFG_CPL, UB_H_MG_PORT_RESET,
};

/* Table 10-11: Code/Sub Code pairs that are defined */
static bool mgmt_defined(unsigned code, unsigned sub)
{
    switch (code) {
    case 0: return sub <= 2;                         /* Error Message */
    case 1: return sub <= 3;                         /* Link Up/Down, Hot-plug */
    case 2: return sub <= 3;                         /* Configuration Space0/1 Read/Write */
    case 3: return sub <= 1 || sub == 15;            /* MCTP, UVB (I-19), VDM for Vendor */
    case 4: return sub == 1 || sub == 2 || sub == 7; /* RSI, Entity Information, Link Neighbor Query */
    case 5: return sub == 1 || sub == 2;             /* SPDM, Token Check Configuration */
    case 6: return sub < sizeof pool_ids / sizeof pool_ids[0];
    default: return false;                           /* Code 111 reserved */
    }
}

void ub_dec_mgmt_pdu(ub_dec *d, uint32_t off, uint32_t end, unsigned code, unsigned sub, bool rsp)
{
    end = ub_dec_clamp(d, end);
    if (off > end) off = end;
    if (!mgmt_defined(code, sub)) { /* the PDU cannot be interpreted */
        uint32_t eoff = off >= 4 ? off - 4 : off; /* the MGMTETAH directly precedes the PDU */
        if (code >= 7) ub_error(d, UB_E_RSVD_VALUE, UB_H_MGMTETAH, eoff, code, 0, "ub.mgmtetah.code");
        else ub_error(d, UB_E_RSVD_VALUE, UB_H_MGMTETAH, eoff, sub, 0, "ub.mgmtetah.sub_code");
        push_opaque(d, off, end);
        return;
    }
    /* A response without PDU is always acceptable: error responses (Status != 0) and the
     * "response none" messages carry PDU Length 0 (§7.3, EV-UBUS). */
    if (rsp && off == end) return;
    switch (code) {
    case 0: /* Error Message: events, no response PDU (MG-05) */
        if (rsp) pdu_none(d, off, end);
        else pdu_fixed(d, UB_H_MG_ERROR, off, end);
        break;
    case 1: /* Link Change: Link Up/Down (0/1), Hot-plug (2/3) */
        if (rsp) pdu_none(d, off, end);
        else pdu_fixed(d, sub <= 1 ? UB_H_MG_LINK : UB_H_MG_HOTPLUG, off, end);
        break;
    case 2: /* Configuration Message */
        if (rsp) pdu_fixed(d, UB_H_MG_CFG_RSP, off, end);
        else pdu_cfg_req(d, off, end);
        break;
    case 3: /* VDM: 0 MCTP (DSP0236), 1 Unified Virtual Bus: opaque; 15 VDM for Vendor */
        if (sub == 15) pdu_vdm(d, off, end);
        else push_opaque(d, off, end);
        break;
    case 4: /* Entity Information Exchange */
        if (sub == 1) {
            pdu_rsi(d, off, end, rsp);
        } else if (sub == 2) {
            if (rsp) pdu_entinfo(d, off, end);
            else pdu_none(d, off, end);
        } else if (rsp) { /* Link Neighbor Query response: Port_info TLVs */
            d->depth++;
            ub_dec_tlvs(d, off, end);
            d->depth--;
        } else {
            pdu_lnq_req(d, off, end);
        }
        break;
    case 5: /* Device Security Management: 1 SPDM (DSP0274) opaque, 2 Token Check Configuration */
        if (sub == 1) push_opaque(d, off, end);
        else pdu_token(d, off, end, rsp);
        break;
    default: /* 6: Pooled Resource Management */
        if (rsp) pdu_none(d, off, end);
        else pdu_fixed(d, pool_ids[sub], off, end);
        break;
    }
}
