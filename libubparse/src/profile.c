/* Decoding profiles (docs/interop.md): the spec, and the dialect of ns-3-UB (the open-usim simulator,
 * ../shared/interop/ns3-ub/ns3-ub.md). A profile is ONE table: each documented deviation names the
 * switches (enum ub_pf) and the tables (ub_hdr variants with the same id and rows) that handle it.
 * The decoder reads the OR of the switches and the table array once per record (ub_decode_wire). */
#include "internal.h"

#include <stdio.h>

/* profile tables, defined beside their decoders */
extern const ub_hdr ub_hdr_lph_ns3, ub_hdr_dllcb_crd_ack_ns3, ub_hdr_nth16_ns3, ub_hdr_nth24_ns3, ub_hdr_rtph_ns3,
    ub_hdr_cetph_caqm_ns3, ub_hdr_btah_ns3, ub_hdr_btah_c_ns3, ub_hdr_atah_ns3, ub_hdr_maetah_c_ns3, ub_hdr_sue_rh_le;

static const ub_hdr *const variants[UB_V__COUNT] = {
    [UB_V_LPH_NS3] = &ub_hdr_lph_ns3,
    [UB_V_CRD_ACK_NS3] = &ub_hdr_dllcb_crd_ack_ns3,
    [UB_V_NTH16_NS3] = &ub_hdr_nth16_ns3,
    [UB_V_NTH24_NS3] = &ub_hdr_nth24_ns3,
    [UB_V_RTPH_NS3] = &ub_hdr_rtph_ns3,
    [UB_V_CETPH_CAQM_NS3] = &ub_hdr_cetph_caqm_ns3,
    [UB_V_BTAH_NS3] = &ub_hdr_btah_ns3,
    [UB_V_BTAH_C_NS3] = &ub_hdr_btah_c_ns3,
    [UB_V_ATAH_NS3] = &ub_hdr_atah_ns3,
    [UB_V_MAETAH_C_NS3] = &ub_hdr_maetah_c_ns3,
    [UB_V_SUE_RH_LE] = &ub_hdr_sue_rh_le,
};

unsigned ub_hdr_variant_count(void)
{
    return UB_V__COUNT - 1;
}

const ub_hdr *ub_hdr_variant(unsigned n)
{
    return n > 0 && n < UB_V__COUNT ? variants[n] : NULL;
}

#define NS3 "ns-3-UB"
static const ub_profile_dev ns3_devs[] = {
    { { "D1", "LPH byte 2 b7:6 (RT)", "b7 = load-balance mode, b6 = path set", "b7 = RT[1] path set, b6 = RT[0] LB mode",
        "ub.lph.rt shows the spec value (bits read swapped)" }, 0, { UB_V_LPH_NS3 } },
    { { "D2", "LPH PLENGTH", "always 0", "block/flit/tail length code", "the record (pcap orig_len) gives the length; PLENGTH 0 is no error" },
      UB_PF_PLENGTH_UNSET, { 0 } },
    { { "D3", "Crd_Ack CRD_NUM (bytes 6-17)", "16 x 6 bits, VL0 first", "VL15 first", "ub.crd_ack.crd_num_vlN read in ns-3 order" },
      0, { UB_V_CRD_ACK_NS3 } },
    { { "D4", "Crd_Ack S/T", "always 1/1", "T = 0 for ordinary credit returns", "shown as sent; DLL state rules do not run on packet records (§10.6 g)" },
      0, { 0 } },
    { { "D5", "Crd_Ack in PFC mode", "per-VL 63/0 as pause/resume", "not a spec feature", "shown as credits" }, 0, { 0 } },
    { { "D6", "16-bit CNA NTH (CFG 6/9) SCNA, DCNA, CCI", "little-endian; CCI sub-fields garbage", "big-endian",
        "ub.nth.scna/dcna/cci read little-endian; no CCI sub-tree" }, UB_PF_CCI_GARBAGE, { UB_V_NTH16_NS3 } },
    { { "D7", "24-bit CNA NTH (CFG 7) CCI", "little-endian, garbage", "big-endian", "ub.nth.cci read little-endian; no CCI sub-tree" },
      UB_PF_CCI_GARBAGE, { UB_V_NTH24_NS3 } },
    { { "D8", "IP-based NTH NPI", "always 0 (setter missing)", "ID 0 is invalid (§5.3.3.1)", "NPI.ID 0 is no NW-04 error" },
      UB_PF_NPI_ZERO, { 0 } },
    { { "D9", "CAQM CETPH bytes 4-7", "Hint(2) C(1) [I Loc rsvd:6]", "[rsvd:6 Loc I] C Hint(2)", "ub.cetph.* read at the ns-3 positions" },
      0, { UB_V_CETPH_CAQM_NS3 } },
    { { "D10", "CETPH Ack_Seq", "counts bytes", "counts 2-byte units", "shown as sent, described as bytes" }, 0, { 0 } },
    { { "D11", "ATAH bytes 5-7", "00, [rsvd:2 INI_RC_Type:2 ID 11:8], ID 7:0", "[rsvd:2 INI_RC_Type:2 ID 19:16], ID 15:0",
        "ub.atah.ini_rc_type/ini_rc_id read at the ns-3 positions (12-bit ID)" }, 0, { UB_V_ATAH_NS3 } },
    { { "D12", "TAACK / Read_response", "TP data packet with a full BTAH (0x11/0x12) + MAETAH (+1 B dummy payload)",
        "ATAH-based responses (§7.2.2)", "BTAH + MAETAH + payload; the audit treats them as responses" },
      UB_PF_RSP_AS_BTAH, { UB_V_BTAH_NS3 } },
    { { "D13", "TPACK / TPSACK / NAK", "followed by an 8-byte ATAH (0x11)", "no next header (Table 6-2)",
        "the ATAH is shown; the audit ignores it" }, UB_PF_ACK_ATAH, { UB_V_ATAH_NS3 } },
    { { "D14", "RTPH TPOpcode 4", "NAK", "reserved (a TPNAK is opcode 2 with RSPST 3)", "decoded and audited as a TPNAK" },
      UB_PF_TPOP4_NAK, { UB_V_RTPH_NS3 } },
    { { "D15", "UDP destination port", "index of the destination UB port (usually 0)", "4792",
        "in CFG 3/4 every UDP datagram is UB transport (ub_view.claim = profile)" }, UB_PF_UDP_ANY_PORT, { 0 } },
    { { "D16", "IPv4 flags, ID, checksum", "0, 0, 0", "DF = 1 (Table 5-4)", "DF 0 is no NW-03 error" }, UB_PF_IP_DF_ANY, { 0 } },
    { { "D17", "Read request (CFG 9 load)", "64 B of payload", "no payload", "bytes after the MAETAH are payload" },
      UB_PF_NO_TAID_OFST, { 0 } },
    { { "D18", "compact MAETAH address", "VA << 6 in bytes 0-7", "VA with its low 6 bits reused (R-24)",
        "ub.maetah.address = the 58 bits as written" }, 0, { UB_V_MAETAH_C_NS3 } },
    { { "D19", "TAOpcode names 0x02/0x10/0x16-0x18", "SEND_INVALIDATE, MESSAGE, DISCONNECT_SCID, WRITEBACK_FULL/PTL",
        "Reserved, Management, Reserved, Writeback, Writeback_with_be",
        "ns-3 names; 0x02/0x10/0x16 shown as BTAH + payload with a note" }, UB_PF_OPCODES, { UB_V_BTAH_NS3, UB_V_BTAH_C_NS3 } },
    { { "D20", "CAQM CCI Enable", "never set", "1 = CAQM enabled", "C/I/Hint are read although Enable = 0" },
      UB_PF_CAQM_NO_ENABLE, { 0 } },
    { { "D21", "link framing", "no flits, BCRC, END or ICRC; DLLCBs of 40 bytes without BCRC", "flit stream",
        "packet-record DLLCBs are not BCRC-checked" }, UB_PF_DLLCB_NO_BCRC, { 0 } },
    { { "EE", "BTAH EE_bits", "00", "01 Non-TEE / 11 TEE (00 reserved)", "EE_bits 00 is no warning" }, UB_PF_EE_ZERO, { 0 } },
    { { "SACK", "SAETPH bitmap order", "bit i = byte i/8, bit i%8 (LSB first)", "not stated (R-18)",
        "the audit reads the bitmap in ns-3 order" }, UB_PF_SACK_LSB, { 0 } },
    { { "CC", "TPACK-CC / TPSACK-CC CETPH", "CAQM (LDCP not implemented)", "LDCP or CAQM (R-17)", "CAQM CETPH" },
      UB_PF_CETPH_CAQM, { 0 } },
    { { "HOPS", "tx-all traces", "every port's transmissions merged in one file: each hop of a packet appears",
        "one capture point (§10.6)", "the audit drops exact hop copies (same bytes after the LPH, no loss signal in between)" },
      UB_PF_MERGED_HOPS, { 0 } },
    { { "PAD", "RTPH Padding", "always 0: TP packets of any length (e.g. the 1-byte TAACK payload)",
        "TPH to payload end a multiple of 4 (Table 6-2)", "no TP-10 alignment error" }, UB_PF_TP_PAD_UNSET, { 0 } },
    { { "ADDR", "MAETAH Address / TokenID", "always 0 (not modelled)", "target address of each packet",
        "no address-continuity check (UB-TA-011) when the address is 0" }, UB_PF_NO_ADDRESS, { 0 } },
    { { "LOADS", "Read/Atomic extension headers", "TAIDETAH/OFSTETAH not implemented", "R-26 by length",
        "never inferred" }, UB_PF_NO_TAID_OFST, { 0 } },
};

#define NS3_SW (UB_PF_PLENGTH_UNSET | UB_PF_DLLCB_NO_BCRC | UB_PF_CCI_GARBAGE | UB_PF_NPI_ZERO | UB_PF_UDP_ANY_PORT | \
                UB_PF_IP_DF_ANY | UB_PF_RSP_AS_BTAH | UB_PF_ACK_ATAH | UB_PF_TPOP4_NAK | UB_PF_CETPH_CAQM |        \
                UB_PF_NO_TAID_OFST | UB_PF_EE_ZERO | UB_PF_SACK_LSB | UB_PF_MERGED_HOPS | UB_PF_OPCODES | \
                UB_PF_TP_PAD_UNSET | UB_PF_NO_ADDRESS | UB_PF_CAQM_NO_ENABLE)

static const ub_hdr *const ns3_tables[UB_H__COUNT] = {
    [UB_H_LPH] = &ub_hdr_lph_ns3,
    [UB_H_DLLCB_CRD_ACK] = &ub_hdr_dllcb_crd_ack_ns3,
    [UB_H_NTH16] = &ub_hdr_nth16_ns3,
    [UB_H_NTH24] = &ub_hdr_nth24_ns3,
    [UB_H_RTPH] = &ub_hdr_rtph_ns3,
    [UB_H_CETPH_CAQM] = &ub_hdr_cetph_caqm_ns3,
    [UB_H_BTAH] = &ub_hdr_btah_ns3,
    [UB_H_BTAH_C] = &ub_hdr_btah_c_ns3,
    [UB_H_ATAH] = &ub_hdr_atah_ns3,
    [UB_H_MAETAH_C] = &ub_hdr_maetah_c_ns3,
};

const ub_profile ub_profiles[UB_PROFILE__COUNT] = {
    [UB_PROFILE_SPEC] = { "spec", "UB Base Specification 2.0 (with the digest's R-nn defaults)", 0, NULL, NULL, 0 },
    [UB_PROFILE_NS3UB] = { "ns3ub", "ns-3-UB simulator traces (open-usim ns-3-ub, " NS3 " dialect)", NS3_SW, ns3_tables,
                           ns3_devs, sizeof ns3_devs / sizeof ns3_devs[0] },
};

const char *ub_profile_name(unsigned id)
{
    return id < UB_PROFILE__COUNT ? ub_profiles[id].name : NULL;
}

int ub_profile_find(const char *name)
{
    if (!name) return -1;
    for (unsigned i = 0; i < UB_PROFILE__COUNT; i++)
        if (strcmp(ub_profiles[i].name, name) == 0) return (int)i;
    if (strcmp(name, "ns3") == 0 || strcmp(name, "ns-3-ub") == 0) return UB_PROFILE_NS3UB;
    return -1;
}

const char *ub_profile_describe(unsigned id, unsigned *ndev)
{
    if (id >= UB_PROFILE__COUNT) return NULL;
    if (ndev) *ndev = ub_profiles[id].ndevs;
    return ub_profiles[id].title;
}

const ub_deviation *ub_profile_deviation(unsigned id, unsigned i)
{
    if (id >= UB_PROFILE__COUNT || i >= ub_profiles[id].ndevs) return NULL;
    return &ub_profiles[id].devs[i].d;
}

/* ---------------------------------------------------------------- which dialect? */
void ub_sniff_init(ub_sniff *s)
{
    memset(s, 0, sizeof *s);
}

void ub_sniff_view(ub_sniff *s, const ub_view *v)
{
    if (!ub_view_ub(v)) return;
    s->ub++;
    if (v->entry != UB_ENTRY_PKT) return;
    const ub_layer *lph = NULL, *nthip = NULL, *udp = NULL, *bcrc = NULL;
    bool crd = false;
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        switch (l->hdr->id) {
        case UB_H_LPH: lph = l; break;
        case UB_H_NTHIP: nthip = l; break;
        case UB_H_UDP: if (!udp) udp = l; break;
        case UB_H_BCRC: bcrc = l; break;
        case UB_H_DLLCB_CRD_ACK: crd = true; break;
        default: break;
        }
    }
    if (crd && bcrc && bcrc->len == 4 && !bcrc->data[0] && !bcrc->data[1] && !bcrc->data[2] && !bcrc->data[3]) s->crd_nobcrc++;
    if (!lph || lph->len < 4) return;
    s->pkt_dlldp++;
    /* PLENGTH 0 codes a 1-flit DLLDP; ns-3-UB never fills it in (D2) */
    if ((lph->data[2] & 0x3F) == 0 && lph->data[3] == 0 &&
        (int)(v->wire_len - 4) != ub_plength_payload_len(0, v->opts ? v->opts->crc_mode : true))
        s->plength0++;
    if (nthip && nthip->len >= 6 && !nthip->data[3] && !nthip->data[4] && !nthip->data[5] && !(nthip->data[2] & 1)) s->npi0++;
    if (nthip && udp && udp->len >= 4) {
        unsigned dport = (unsigned)udp->data[2] << 8 | udp->data[3];
        const ub_opts *o = v->opts;
        if (!o || dport != o->udp_port) s->ip_nth_udp++;
    }
}

unsigned ub_sniff_verdict(const ub_sniff *s, char *msg, size_t n)
{
    if (n) msg[0] = '\0';
    /* every packet record with PLENGTH 0, plus one more sign of the ns-3-UB serializer */
    bool ns3 = s->pkt_dlldp && s->plength0 == s->pkt_dlldp && (s->ip_nth_udp || s->npi0 || s->crd_nobcrc || s->pkt_dlldp >= 2);
    if (!ns3 && s->pkt_dlldp >= 4 && s->plength0 * 10 >= s->pkt_dlldp * 9 && s->ip_nth_udp) ns3 = true;
    if (!ns3) return UB_PROFILE_SPEC;
    if (n)
        snprintf(msg, n,
                 "this looks like an ns-3-UB simulator trace (PLENGTH 0 in %llu of %llu packet records%s%s): "
                 "decode it with -o profile=ns3ub (docs/interop.md)",
                 (unsigned long long)s->plength0, (unsigned long long)s->pkt_dlldp,
                 s->ip_nth_udp ? ", UDP under an IP-based NTH not on the UB port" : "", s->npi0 ? ", NPI 0" : "");
    return UB_PROFILE_NS3UB;
}
