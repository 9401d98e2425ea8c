/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCIe 6.x flit-mode link layer (document 003, digest docs/neighbours.md §3): 256-byte flits from an
 * analyzer or simulation dump (one or more whole flits per record, link type -o dlt.pcieflit, default
 * LINKTYPE_USER3 = 150). Flit classification and the DLP (Table 4-17..4-19); the 236 TLP bytes are shown
 * as bytes (no TLP decode) and the CRC/ECC are not verified (their bit order is not in the document). */
#include "neigh.h"
#include "rows.h"

enum { FLIT_LEN = 256, FLIT_DLP = 236 };
static const ub_vname vn_usage[] = { { 0, "IDLE/NOP" }, { 1, "Payload" }, { 2, "reserved" }, { 3, "reserved" }, { 0, NULL } };
static const ub_vname vn_replay[] = { { 0, "explicit sequence number" }, { 1, "Ack" }, { 2, "Standard Nak" }, { 3, "Selective Nak" }, { 0, NULL } };
static const ub_field flit_fields[] = {
    [FL_TLP] = NY("pcieflit.flit.tlp", "TLP bytes", 0, 236 * 8, "003 flit layout", "bytes 0-235 (not decoded)"),
    [FL_USAGE] = NU("pcieflit.flit.usage", "Flit Usage", 1888, 2, UB_BASE_DEC, vn_usage, "003 T4-17 DLP0[7:6]", "00 IDLE or NOP, 01 Payload"),
    [FL_PRIOR] = NB("pcieflit.flit.prior_payload", "Prior Flit was Payload", 1890, "003 T4-17 DLP0[5]", ""),
    [FL_DLLPT] = NB("pcieflit.flit.dllp_type", "DLLP payload type", 1891, "003 T4-17 DLP0[4]", "1: DLP2-5 is Optimized_Update_FC or Flit_Marker"),
    [FL_REPLAY] = NU("pcieflit.flit.replay_cmd", "Replay Command", 1892, 2, UB_BASE_DEC, vn_replay, "003 T4-17 DLP0[3:2]", ""),
    [FL_SEQ] = NU("pcieflit.flit.seq", "Flit Sequence Number", 1894, 10, UB_BASE_DEC, NULL, "003 T4-17 DLP0[1:0] DLP1", "1..1023, mod 1023; 0 only in IDLE"),
    [FL_DLLP] = NU("pcieflit.flit.dllp", "DLP2-5", 1904, 32, UB_BASE_HEX, NULL, "003 T4-17", "DLLP, Optimized_Update_FC or Flit_Marker"),
    [FL_CRC] = NU("pcieflit.flit.crc", "CRC", 1936, 64, UB_BASE_HEX, NULL, "003 flit layout", "8 bytes over TLP+DLP (not verified)"),
    [FL_ECC] = NY("pcieflit.flit.ecc", "ECC", 2000, 48, "003 flit layout", "3 groups x 2 bytes (not verified)"),
};
UB_HDR_DEF(pcieflit, UB_H_PCIEFLIT, "pcieflit", "pcieflit.flit", "PCIe 6 flit (not UB)", "document 003 flit layout, Table 4-17", 256, flit_fields);

/* DLP2-5 when DLLP payload type = 1 and bit 31 = 0 (Table 4-18; the document's row is garbled: 27:20 and
 * 30:28 taken from the PCIe 6.0 layout [ext, verify]) */
static const ub_field oufc_fields[] = {
    NU("pcieflit.oufc.marker", "Flit_Marker (bit 31)", 0, 1, UB_BASE_DEC, NULL, "003 T4-18", "0"),
    NU("pcieflit.oufc.vc", "VC (bits 30:28)", 1, 3, UB_BASE_DEC, NULL, "003 T4-18 [ext, verify]", ""),
    NU("pcieflit.oufc.np_hdr", "Shared NP HdrFC", 4, 8, UB_BASE_DEC, NULL, "003 T4-18 [ext, verify]", "bits 27:20"),
    NU("pcieflit.oufc.p_hdr", "Shared Posted HdrFC", 12, 8, UB_BASE_DEC, NULL, "003 T4-18", "bits 19:12"),
    NU("pcieflit.oufc.p_data", "Shared Posted DataFC", 20, 12, UB_BASE_DEC, NULL, "003 T4-18", "bits 11:0"),
};
UB_HDR_DEF(pcieflit_oufc, UB_H_PCIEFLIT_OUFC, "pcieflit_oufc", "pcieflit.oufc", "Optimized_Update_FC", "document 003 Table 4-18", 4, oufc_fields);
static const ub_vname vn_fstatus[] = { { 0, "none" }, { 1, "last TLP nullified" }, { 2, "last TLP poisoned" }, { 3, "reserved" }, { 0, NULL } };
static const ub_field marker_fields[] = {
    [FM_MARKER] = NU("pcieflit.marker.marker", "Flit_Marker (bit 31)", 0, 1, UB_BASE_DEC, NULL, "003 T4-19", "1"),
    [FM_STATUS] = NU("pcieflit.marker.status", "Flit_Status", 1, 2, UB_BASE_DEC, vn_fstatus, "003 T4-19 bits 30:29", ""),
    [FM_PTM] = NB("pcieflit.marker.ptm", "PTM last symbol", 3, "003 T4-19 bit 28", "flit holds the last symbol of a non-nullified PTM message"),
    [FM_REST] = NU("pcieflit.marker.rest", "Bits 27:0", 4, 28, UB_BASE_HEX, NULL, "003 T4-19", "not described in the document"),
};
UB_HDR_DEF(pcieflit_marker, UB_H_PCIEFLIT_MARKER, "pcieflit_marker", "pcieflit.marker", "Flit_Marker", "document 003 Table 4-19", 4, marker_fields);

void ub_dec_pcieflit(ub_dec *d)
{
    uint32_t off = 0;
    for (; off + FLIT_LEN <= d->wlen && off < d->len; off += FLIT_LEN) {
        const ub_layer *f = ub_push_in(d, UB_H_PCIEFLIT, off, FLIT_LEN, d->wlen, true);
        if (!f || (f->flags & UB_LF_TRUNC)) return;
        unsigned usage = (unsigned)ub_lget(f, FL_USAGE), cmd = (unsigned)ub_lget(f, FL_REPLAY);
        unsigned seq = (unsigned)ub_lget(f, FL_SEQ);
        if (usage >= 2) ub_error(d, UB_E_RSVD_VALUE, UB_H_PCIEFLIT, off + FLIT_DLP, usage, 0, "pcieflit.flit.usage");
        if (usage == 1 && cmd == 0 && seq == 0) /* seq 0 only in IDLE flits */
            ub_error(d, UB_E_VALUE, UB_H_PCIEFLIT, off + FLIT_DLP, 0, 1, "pcieflit.flit.seq 0 in a Payload flit");
        if (ub_lget(f, FL_DLLPT)) {
            uint8_t b = 0;
            ub_rd8(d->p, d->len, off + FLIT_DLP + 2, &b);
            d->depth++;
            ub_layer *x = ub_push_in(d, (b & 0x80) ? UB_H_PCIEFLIT_MARKER : UB_H_PCIEFLIT_OUFC, off + FLIT_DLP + 2, 4, d->wlen, true);
            if (x) x->flags |= UB_LF_OVERLAY;
            d->depth--;
            if ((b & 0x80) && ((b >> 5) & 3) == 3)
                ub_error(d, UB_E_RSVD_VALUE, UB_H_PCIEFLIT_MARKER, off + FLIT_DLP + 2, 3, 0, "pcieflit.marker.status");
        }
    }
    if (off < d->wlen) {
        ub_error(d, UB_E_LENGTH, UB_H_PCIEFLIT, off, d->wlen - off, FLIT_LEN, "record is not whole 256-byte flits");
        if (off < d->len) ub_push_in(d, UB_H_DATA, off, d->wlen - off, d->wlen, false);
    }
}
