/* CFG 5 network-control packets (App. F, digest §9.2): Protocol / DGUID / SGUID header and the
 * PDUs behind it (DHCPv4/v6 with IP+UDP, IP notify, ULAP, NPIC, LLDP and user-defined protocols).
 * GUIDs here are plain big-endian (UB_FT_GUID; R-43 order Protocol, DGUID, SGUID). */
#include "internal.h"
#include "rows.h"



/* ---------------------------------------------------------------- value names */
/* App. F Table F-2, §F.2.6 (I-22) */
enum {
    NCP_DHCPV4 = 0x0100, NCP_DHCPV6 = 0x0101, NCP_IPNOTIFY = 0x0102, NCP_ULAP = 0x0104, NCP_NPIC = 0x0106,
    NCP_LLDP = 0x0109, NCP_USER_FIRST = 0x0109, NCP_USER_LAST = 0x0118,
};
static const ub_vname vn_nctl_protocol[] = {
    { 0x0100, "UB DHCPv4" }, { 0x0101, "UB DHCPv6" }, { 0x0102, "IP notify" }, { 0x0103, "reserved" },
    { 0x0104, "ULAP (UB Link Aggregation Protocol)" }, { 0x0105, "reserved" },
    { 0x0106, "NPIC (NPI Configuration)" }, { 0x0107, "reserved" }, { 0x0108, "reserved" },
    { 0x0109, "LLDP (HiSilicon; user-defined range, I-22)" },
    { 0x010A, "user defined (F.2.6)" }, { 0x010B, "user defined (F.2.6)" }, { 0x010C, "user defined (F.2.6)" },
    { 0x010D, "user defined (F.2.6)" }, { 0x010E, "user defined (F.2.6)" }, { 0x010F, "user defined (F.2.6)" },
    { 0x0110, "vendor defined" }, { 0x0111, "vendor defined" }, { 0x0112, "vendor defined" },
    { 0x0113, "vendor defined" }, { 0x0114, "vendor defined" }, { 0x0115, "vendor defined" },
    { 0x0116, "vendor defined" }, { 0x0117, "vendor defined" }, { 0x0118, "vendor defined" },
    { 0, NULL }
};
/* which DGUID form was used (I-36: accept all three, report which) */
enum { DGUID_OTHER = 0, DGUID_WELL_KNOWN = 1, DGUID_ALL_ONES = 2, DGUID_WELL_KNOWN_OTHER = 3 };
static const ub_vname vn_dguid_kind[] = {
    { DGUID_OTHER, "device GUID" }, { DGUID_WELL_KNOWN, "well-known GUID of this Protocol" },
    { DGUID_ALL_ONES, "all ones (HiSilicon driver, I-36)" },
    { DGUID_WELL_KNOWN_OTHER, "well-known GUID of another Protocol" }, { 0, NULL }
};
static const ub_vname vn_ipn_version[] = { { 1, "IPv4" }, { 2, "IPv6" }, { 0, NULL } };
static const ub_vname vn_npic_opcode[] = { { 1, "configure" }, { 2, "clear (NPI = 0)" }, { 0, NULL } };
static const ub_vname vn_npi_perm[] = { { 0, "high" }, { 1, "low" }, { 0, NULL } };

/* ---------------------------------------------------------------- tables */
#define SP_NCTL "App. F Table F-1, R-43"
static const ub_field f_nctl[] = {
    [NCTL_PROTOCOL] = UBU(nctl, protocol, "Protocol", 0, 16, UB_BASE_HEX, vn_nctl_protocol, SP_NCTL ", Table F-2",
                          "management protocol of the PDU"),
    [NCTL_DGUID] = UBF(nctl, dguid, "DGUID", 16, 128, UB_FT_GUID, UB_BASE_HEX, 0, NULL, SP_NCTL,
                       "destination network-device GUID or well-known GUID"),
    [NCTL_SGUID] = UBF(nctl, sguid, "SGUID", 144, 128, UB_FT_GUID, UB_BASE_HEX, 0, NULL, SP_NCTL,
                       "source network-device GUID"),
    [NCTL_DGUID_KIND] = UBF(nctl, dguid_kind, "DGUID kind", 0, 0, UB_FT_UINT, UB_BASE_DEC, UB_FF_VARIANT,
                            vn_dguid_kind, "App. F.1, I-36",
                            "well-known: upper 112 bits all ones, low 16 bits = Protocol (informational)"),
};
UB_HDR_DEF(nctl, UB_H_NCTL, "nctl", "nctl", "Network Control Header", SP_NCTL, 34, f_nctl);

#define SP_IPN "App. F.2.3 Fig F-7, R-40"
enum { IPN_VERSION, IPN_RSVD0, IPN_MASK, IPN_ADDR };
static const ub_field f_ipnotify4[] = {
    [IPN_VERSION] = UBU(ipnotify, version, "Version", 0, 4, UB_BASE_DEC, vn_ipn_version, SP_IPN,
                        "1 IPv4, 2 IPv6, others reserved"),
    [IPN_RSVD0] = UBR(ipnotify, rsvd0, 4, 4, SP_IPN),
    [IPN_MASK] = UBU(ipnotify, mask, "Mask", 8, 8, UB_BASE_DEC, NULL, SP_IPN, "prefix length"),
    [IPN_ADDR] = UBF(ipnotify, ip_address, "IP Address", 16, 32, UB_FT_IPV4, UB_BASE_HEX, 0, NULL, SP_IPN,
                     "configured address of the sending device"),
};
UB_HDR_DEF(ipnotify4, UB_H_IPNOTIFY4, "ipnotify4", "ipnotify", "IP Notify (IPv4)", SP_IPN, 6, f_ipnotify4);

static const ub_field f_ipnotify6[] = {
    [IPN_VERSION] = UBU(ipnotify, version, "Version", 0, 4, UB_BASE_DEC, vn_ipn_version, SP_IPN,
                        "1 IPv4, 2 IPv6, others reserved"),
    [IPN_RSVD0] = UBR(ipnotify, rsvd0, 4, 4, SP_IPN),
    [IPN_MASK] = UBU(ipnotify, mask, "Mask", 8, 8, UB_BASE_DEC, NULL, SP_IPN, "prefix length"),
    [IPN_ADDR] = UBF(ipnotify, ip_address, "IP Address", 16, 128, UB_FT_IPV6, UB_BASE_HEX, 0, NULL, SP_IPN,
                     "configured address of the sending device"),
};
UB_HDR_DEF(ipnotify6, UB_H_IPNOTIFY6, "ipnotify6", "ipnotify", "IP Notify (IPv6)", SP_IPN, 18, f_ipnotify6);

#define SP_NPIC "App. F.2.5 Fig F-12"
enum { NPIC_OPCODE, NPIC_RSVD0, NPIC_SUM };
static const ub_field f_npic[] = {
    [NPIC_OPCODE] = UBU(npic, opcode, "Opcode", 0, 8, UB_BASE_DEC, vn_npic_opcode, SP_NPIC,
                        "1 configure, 2 clear, others reserved"),
    [NPIC_RSVD0] = UBR(npic, rsvd0, 8, 8, SP_NPIC),
    [NPIC_SUM] = UBU(npic, sum, "Sum", 16, 16, UB_BASE_DEC, NULL, SP_NPIC, "number of <GUID, NPI> pairs"),
};
UB_HDR_DEF(npic, UB_H_NPIC, "npic", "npic", "NPI Configuration", SP_NPIC, 4, f_npic);

static const ub_field f_npic_entry[] = {
    UBF(npic, guid, "GUID", 0, 128, UB_FT_GUID, UB_BASE_HEX, 0, NULL, SP_NPIC, "UB NIC identity"),
    UBU(npic, npi, "NPI", 128, 32, UB_BASE_HEX, NULL, SP_NPIC ", §5.3.3.1", "NPI word, low 25 bits valid"),
    UBR(npic, rsvd1, 128, 7, SP_NPIC " (NPI[31:25] not valid)"),
    UBU(npic, npi_permission, "NPI Permission", 135, 1, UB_BASE_DEC, vn_npi_perm, SP_NPIC ", §5.3.3.1 Fig 5-8",
        "0 high, 1 low"),
    UBU(npic, npi_id, "NPI ID", 136, 24, UB_BASE_HEX, NULL, SP_NPIC ", §5.3.3.1 Fig 5-8",
        "partition ID (0 invalid, 1 default)"),
};
UB_HDR_DEF(npic_entry, UB_H_NPIC_ENTRY, "npic_entry", "npic", "NPIC <GUID, NPI> pair", SP_NPIC, 20, f_npic_entry);

#define SP_NPDU "App. F.2"
static const ub_field f_nctl_pdu[] = {
    UBY(nctl_pdu, data, "PDU", 0, 0, SP_NPDU, "DHCP / ULAP (LACP) / LLDP / user-defined PDU"),
};
UB_HDR_DEF(nctl_pdu, UB_H_NCTL_PDU, "nctl_pdu", "nctl_pdu", "Network Control PDU", SP_NPDU, 0, f_nctl_pdu);

/* ---------------------------------------------------------------- decoder */
enum { IPV4_HLEN = 20, IPV6_HLEN = 40, UDP_HLEN = 8 }; /* App. F.2.2: IP + UDP + DHCP */

static unsigned dguid_kind(const ub_layer *h, unsigned proto)
{
    ub_val v;
    if (ub_field_value(h, &h->hdr->fields[NCTL_DGUID], &v) != 0 || v.nbytes != 16) return DGUID_OTHER;
    for (unsigned i = 0; i < 14; i++)
        if (v.bytes[i] != 0xFF) return DGUID_OTHER;
    unsigned low = ((unsigned)v.bytes[14] << 8) | v.bytes[15];
    if (low == 0xFFFF) return DGUID_ALL_ONES;
    return low == proto ? DGUID_WELL_KNOWN : DGUID_WELL_KNOWN_OTHER;
}

static void push_pdu(ub_dec *d, uint32_t off, uint32_t end)
{
    if (off < end) ub_push_in(d, UB_H_NCTL_PDU, off, end - off, end, false);
}

static void dec_dhcp(ub_dec *d, uint32_t off, uint32_t end, bool v6)
{
    uint32_t hl = v6 ? IPV6_HLEN : IPV4_HLEN;
    ub_layer *ip = ub_push_in(d, v6 ? UB_H_IPV6 : UB_H_IPV4, off, hl, end, true);
    if (!ip || (ip->flags & UB_LF_TRUNC)) return;
    ub_layer *udp = ub_push_in(d, UB_H_UDP, off + hl, UDP_HLEN, end, true);
    if (!udp || (udp->flags & UB_LF_TRUNC)) return;
    push_pdu(d, off + hl + UDP_HLEN, end);
}

static void dec_ipnotify(ub_dec *d, uint32_t off, uint32_t end)
{
    unsigned ver = (unsigned)ub_peek(d, &ub_hdr_ipnotify4, IPN_VERSION, off, end);
    if (end - off < 1) {
        ub_push_in(d, UB_H_IPNOTIFY4, off, ub_hdr_ipnotify4.len, end, true);
        return;
    }
    if (ver != 1 && ver != 2) { /* reserved Version: address size unknown */
        ub_error(d, UB_E_RSVD_VALUE, UB_H_IPNOTIFY4, off, ver, 0, "ub.ipnotify.version");
        push_pdu(d, off, end);
        return;
    }
    unsigned id = ver == 1 ? UB_H_IPNOTIFY4 : UB_H_IPNOTIFY6;
    uint32_t size = ub_hdr_get(id)->len;
    ub_layer *l = ub_push_in(d, id, off, size, end, true);
    if (l && !(l->flags & UB_LF_TRUNC) && end - off > size) {
        ub_error(d, UB_E_TRAILING, id, off + size, end - off - size, 0, "bytes after the IP notify PDU");
        push_pdu(d, off + size, end);
    }
}

static void dec_npic(ub_dec *d, uint32_t off, uint32_t end)
{
    ub_layer *h = ub_push_in(d, UB_H_NPIC, off, ub_hdr_npic.len, end, true);
    if (!h || (h->flags & UB_LF_TRUNC)) return;
    unsigned op = (unsigned)ub_lget(h, NPIC_OPCODE);
    uint32_t sum = (uint32_t)ub_lget(h, NPIC_SUM);
    if (op != 1 && op != 2) ub_error(d, UB_E_RSVD_VALUE, UB_H_NPIC, off, op, 0, "ub.npic.opcode");
    uint32_t ent = ub_hdr_npic_entry.len, p = off + ub_hdr_npic.len;
    uint64_t want = (uint64_t)ub_hdr_npic.len + (uint64_t)ent * sum;
    if ((uint64_t)(end - off) != want) ub_error(d, UB_E_LENGTH, UB_H_NPIC, off + 2, end - off, want, "npic: 4 + 20 * Sum");
    d->depth++;
    uint32_t i;
    for (i = 0; i < sum && p < end; i++, p += ent) {
        ub_layer *e = ub_push_in(d, UB_H_NPIC_ENTRY, p, ent, end, false);
        if (!e || (e->flags & UB_LF_TRUNC)) {
            p = end;
            break;
        }
    }
    d->depth--;
    push_pdu(d, p, end);
}

void ub_dec_cfg5(ub_dec *d, uint32_t off, uint32_t end)
{
    end = ub_dec_clamp(d, end);
    if (off > end) off = end;
    ub_layer *h = ub_push_in(d, UB_H_NCTL, off, ub_hdr_nctl.len, end, true);
    if (!h) return;
    unsigned proto = (unsigned)ub_lget(h, NCTL_PROTOCOL);
    h->variant = (uint8_t)dguid_kind(h, proto); /* §F.1 well-known DGUID, I-36: informational */
    if (h->flags & UB_LF_TRUNC) return;
    uint32_t p = off + ub_hdr_nctl.len;
    switch (proto) {
    case NCP_DHCPV4: dec_dhcp(d, p, end, false); break;
    case NCP_DHCPV6: dec_dhcp(d, p, end, true); break;
    case NCP_IPNOTIFY: dec_ipnotify(d, p, end); break;
    case NCP_NPIC: dec_npic(d, p, end); break;
    case NCP_ULAP: push_pdu(d, p, end); break; /* LACP PDU (IEEE 802.1AX) unchanged */
    default:
        if (proto < NCP_USER_FIRST || proto > NCP_USER_LAST) /* incl. 0x0103/0x0105/0x0107/0x0108 */
            ub_error(d, UB_E_RSVD_VALUE, UB_H_NCTL, off, proto, 0, "ub.nctl.protocol");
        push_pdu(d, p, end); /* LLDP (0x0109), user/vendor defined, or reserved */
        break;
    }
}
