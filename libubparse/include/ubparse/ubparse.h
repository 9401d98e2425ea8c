/* libubparse — UnifiedBus (UB 2.0) packet decoder, builder and checker.
 *
 * Shape (see docs/design.md):
 *   schema tables (one ub_hdr per header, one ub_field row per field)
 *     -> decoder: record bytes -> ub_view {layers[], errors[]}   (zero-copy, no allocation)
 *     -> printers / Wireshark tree / state engine / Lua read the view through the schema
 *   builder: field values -> bytes, through the same tables.
 *
 * All functions are reentrant; the library keeps no global mutable state.
 */
#ifndef UBPARSE_H
#define UBPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UBPARSE_VERSION "0.1.0"

/* ------------------------------------------------------------------------- */
/* Schema                                                                     */
/* ------------------------------------------------------------------------- */

typedef enum ub_ftype {
    UB_FT_UINT = 0, /* unsigned integer, 1..64 bits, big-endian, MSB-first bit numbering */
    UB_FT_BOOL,     /* 1-bit flag */
    UB_FT_BYTES,    /* byte string; bit_off multiple of 8; bits 0 = to the end of the layer */
    UB_FT_GUID,     /* 16 bytes, plain big-endian (CFG 5 DGUID/SGUID) */
    UB_FT_GUID_WS,  /* 16 bytes, R-34 word order: word 0 (bytes 0-3) = GUID[31:0] */
    UB_FT_IPV4,     /* 4 bytes */
    UB_FT_IPV6,     /* 16 bytes */
    UB_FT_MAC,      /* 6 bytes */
} ub_ftype;

typedef enum ub_base { UB_BASE_DEC = 0, UB_BASE_HEX, UB_BASE_DEC_HEX } ub_base;

enum ub_field_flags {
    UB_FF_RSVD = 1u << 0,    /* reserved: non-zero value -> UB_E_RSVD_BITS warning */
    UB_FF_AUX = 1u << 1,     /* virtual: value is ub_layer.aux (e.g. computed CRC) */
    UB_FF_STATUS = 1u << 2,  /* virtual: value is ub_layer.status (ub_cksum_status) */
    UB_FF_VARIANT = 1u << 3, /* virtual: value is ub_layer.variant (e.g. ICRC byte order) */
    UB_FF_SIGNED = 1u << 4,  /* display as signed */
    UB_FF_X64 = 1u << 5,     /* value is stored without its 6 low zero bits: value = field << 6 */
    /* encoding modifiers of profile tables (docs/interop.md): the value is what the spec field means */
    UB_FF_LE = 1u << 6,      /* whole bytes, little-endian on the wire (ns-3-UB D6/D7) */
    UB_FF_BITREV = 1u << 7,  /* bits on the wire in reverse order (ns-3-UB D1: LPH RT) */
    UB_FF_LEW = 1u << 8,     /* the layer's first 8 bytes are one little-endian 64-bit word: bit_off is
                              * the field's lowest bit in it (0 = LSB of byte 0); SUE RH byte-order switch */
    UB_FF_LEN = 1u << 9,     /* virtual: value is the layer's length in bytes (Wireshark's generated data.len) */
};
#define UB_FF_ENCODED (UB_FF_X64 | UB_FF_LE | UB_FF_BITREV | UB_FF_LEW)
#define UB_FF_VIRTUAL (UB_FF_AUX | UB_FF_STATUS | UB_FF_VARIANT | UB_FF_LEN)

typedef struct ub_vname {
    uint64_t value;
    const char *name; /* NULL terminates the list */
} ub_vname;

typedef struct ub_field {
    const char *abbrev;   /* user API name, e.g. "ub.lph.crd" */
    const char *name;     /* spec field name, e.g. "CRD" */
    uint32_t bit_off;     /* from the layer start: bit 0 = byte 0 bit 7 (MSB) */
    uint32_t bits;        /* width in bits; UB_FT_BYTES: 0 = to the end of the layer */
    uint8_t type;         /* ub_ftype */
    uint8_t base;         /* ub_base */
    uint16_t flags;       /* ub_field_flags */
    const ub_vname *vals; /* value names or NULL */
    const char *spec;     /* spec reference, e.g. "§4.3.2.2.2 T4-1, R-01" */
    const char *desc;     /* one-line meaning */
} ub_field;

/* Header ids. One per schema table (format variants of one header share an abbrev). */
typedef enum ub_hdr_id {
    UB_H_NONE = 0,
    /* capture encapsulations (§0.3) */
    UB_H_SLL, UB_H_SLL2, UB_H_CFGPH, UB_H_ETH, UB_H_VLAN, UB_H_IPV4, UB_H_IPV6, UB_H_UDP,
    /* data link layer (§4) */
    UB_H_LPH, UB_H_LBH, UB_H_LCH, UB_H_BCRC, UB_H_END, UB_H_FLITPAD,
    UB_H_DLLCB_NULL, UB_H_DLLCB_NOB, UB_H_DLLCB_RETRY_IDLE, UB_H_DLLCB_RETRY_REQ,
    UB_H_DLLCB_RETRY_ACK, UB_H_DLLCB_CRD_ACK, UB_H_DLLCB_PARAM_EXCHG, UB_H_DLLCB_LANE_MANAGE,
    UB_H_DLLCB_BLOCK_MODE_CHG, UB_H_DLLCB_INIT, UB_H_DLLCB_INIT_ALT, UB_H_DLLCB_RSVD, UB_H_LNA,
    /* network layer (§5) */
    UB_H_NTH16, UB_H_NTH24, UB_H_NTHIP,
    UB_H_CCI_CAQM, UB_H_CCI_FECN, UB_H_CCI_FECN_RTT, UB_H_CCI_RSVD,
    UB_H_ICRC,
    /* transport layer (§6) */
    UB_H_RTPH, UB_H_UTPH, UB_H_CTPH, UB_H_CETPH_LDCP, UB_H_CETPH_CAQM, UB_H_CETPH_CNP,
    UB_H_SAETPH, UB_H_TPPAD,
    /* between TPH and TAH (App. B.3/B.4, §11.5) */
    UB_H_UPIH16, UB_H_UPIH32, UB_H_EIDH40, UB_H_EIDH256, UB_H_CIPH, UB_H_ICV, UB_H_OPAQUE,
    /* transaction layer (§7) */
    UB_H_BTAH, UB_H_BTAH_C, UB_H_BTAH_ALT, UB_H_ATAH, UB_H_ATAH_C,
    UB_H_MAETAH, UB_H_MAETAH_C, UB_H_MTETAH, UB_H_TVETAH, UB_H_TAIDETAH, UB_H_OFSTETAH,
    UB_H_IMMETAH, UB_H_NTFETAH, UB_H_BEETAH, UB_H_UDETAH, UB_H_MGMTETAH,
    UB_H_PAYLOAD, UB_H_ATOMIC_OPS,
    /* enumeration (§10.4.3.2) */
    UB_H_ENUMPAD, UB_H_SCANHDR, UB_H_SCAN_RPATH, UB_H_SCANPDU_REQ, UB_H_SCANPDU_RSP,
    UB_H_SCAN_CFGCNA_REQ, UB_H_SCAN_QRYCNA_REQ, UB_H_SCAN_QRYCNA_RSP,
    UB_H_TLV_SLICE, UB_H_TLV_PORTNUM, UB_H_TLV_PORTINFO, UB_H_TLV_CAPINFO, UB_H_TLV_OTHER,
    /* configuration management PDUs (§10.4.3.3) */
    UB_H_MG_ERROR, UB_H_MG_LINK, UB_H_MG_HOTPLUG, UB_H_MG_CFG_REQ, UB_H_MG_CFG_RSP,
    UB_H_MG_VDM_VENDOR, UB_H_MG_VDM_VENDOR_ALT, UB_H_MG_RSI_REQ, UB_H_MG_RSI_RSP,
    UB_H_MG_ENTINFO_RSP, UB_H_MG_ENTINFO_MUE, UB_H_MG_LNQ_REQ, UB_H_MG_TOKEN_REQ,
    UB_H_MG_TOKEN_RSP, UB_H_MG_ENT_REG, UB_H_MG_ENT_DEREG, UB_H_MG_BI_CREATE,
    UB_H_MG_BI_DESTROY, UB_H_MG_CFG_CPL, UB_H_MG_PORT_RESET, UB_H_MG_OPAQUE,
    /* CFG 5 network control (App. F) */
    UB_H_NCTL, UB_H_IPNOTIFY4, UB_H_IPNOTIFY6, UB_H_NPIC, UB_H_NPIC_ENTRY, UB_H_NCTL_PDU,
    /* URPC (App. H) */
    UB_H_URPC_REQ, UB_H_URPC_DMA, UB_H_URPC_ACK, UB_H_URPC_RSP, UB_H_URPC_RDOFF,
    /* what is not UB (shown as what it is, never claimed: issue #9) */
    UB_H_TCP, UB_H_ARP,
    /* plain data (non-UB IP payload etc.) */
    UB_H_DATA,
    /* neighbouring interconnects, not UB (docs/neighbours.md); field names are their own:
     * RoCEv2 / InfiniBand transport (Wireshark's infiniband.*), SUE / RC Link (sue.*), PCIe 6 flits (pcieflit.*) */
    UB_H_IB_BTH, UB_H_IB_RETH, UB_H_IB_AETH, UB_H_IB_ATOMICETH, UB_H_IB_ATOMICACKETH, UB_H_IB_DETH,
    UB_H_IB_IMMDT, UB_H_IB_IETH, UB_H_IB_CNP, UB_H_IB_ICRC,
    UB_H_SUE_AFH0, UB_H_SUE_AFH1, UB_H_SUE_AFH2, UB_H_SUE_RH, UB_H_SUE_ICRC,
    UB_H_PCIEFLIT, UB_H_PCIEFLIT_OUFC, UB_H_PCIEFLIT_MARKER,
    /* more of what is not UB (appended: the ids above keep their numbers): ICMP, ICMPv6 (Wireshark's icmp.*,
     * icmpv6.*), a table for any type and one for the echo request / reply */
    UB_H_ICMP, UB_H_ICMP_ECHO, UB_H_ICMPV6, UB_H_ICMPV6_ECHO,
    /* BSD loopback encapsulation (LINKTYPE_NULL 0, LINKTYPE_LOOP 108): the address family in network or
     * host (little-endian) byte order */
    UB_H_NULL, UB_H_NULL_LE,
    /* tunnels that may carry UBoE from a mirror port or an overlay (not UB: Wireshark's vxlan.*, geneve.*,
     * gre.*, erspan.*, mpls.*): VXLAN, Geneve, GRE, ERSPAN type II and III, one MPLS label stack entry */
    UB_H_VXLAN, UB_H_GENEVE, UB_H_GRE, UB_H_ERSPAN2, UB_H_ERSPAN3, UB_H_MPLS,
    /* IP extension headers between the IP header and its upper-layer protocol (not UB; UB's own packets
     * carry none, Table 5-5): IPv6 hop-by-hop options, routing, fragment, destination options (Wireshark's
     * ipv6.hopopts.*, ipv6.routing.*, ipv6.fraghdr.*, ipv6.dstopts.*), the IP Authentication Header (ah.*) */
    UB_H_IP6_HOPOPTS, UB_H_IP6_ROUTING, UB_H_IP6_FRAGHDR, UB_H_IP6_DSTOPTS, UB_H_AH,
    /* an 802.1ad service tag (S-tag, TPID 0x88A8): UB_H_VLAN's rows, Wireshark's ieee8021ad.* */
    UB_H_VLAN_S,
    /* IEEE 802.2 LLC with a SNAP header (RFC 1042: DSAP = SSAP = 0xAA, UI, OUI 0, an EtherType) after an
     * IEEE 802.3 length, Wireshark's llc.*: what follows is dispatched as after an Ethernet II header */
    UB_H_LLC_SNAP,
    /* the ICMP / ICMPv6 errors that carry the path MTU (Wireshark's icmp.mtu, icmpv6.mtu): ICMP destination
     * unreachable, fragmentation needed (type 3 code 4, RFC 1191), ICMPv6 packet too big (type 2) */
    UB_H_ICMP_MTU, UB_H_ICMPV6_MTU,
    UB_H__COUNT
} ub_hdr_id;

typedef struct ub_hdr {
    uint16_t id;          /* ub_hdr_id */
    const char *key;      /* unique table name, e.g. "btah_c" (builder, docs) */
    const char *abbrev;   /* field prefix after "ub.", e.g. "btah" */
    const char *name;     /* e.g. "Basic Transaction Header (compact)" */
    const char *spec;     /* e.g. "§7.2.1 Fig 7-3" */
    uint32_t len;         /* fixed length in bytes; 0 = variable (the decoder sets it) */
    const ub_field *fields;
    uint16_t nfields;
    uint16_t vidx;        /* 0: the registered table of its id; n > 0: ub_hdr_variant(n), a profile's
                           * version of the same header (same id, same rows in the same order) */
} ub_hdr;

/* Field-name prefix of a header's rows: "ub." for UB (and what UB shows as it is: ub.tcp, ub.arp), ""
 * for a neighbouring protocol, whose header abbrev is already its full name ("infiniband.bth", "sue.rh",
 * "pcieflit.flit": it contains a dot). */
static inline bool ub_hdr_foreign(const ub_hdr *h)
{
    for (const char *p = h && h->abbrev ? h->abbrev : ""; *p; p++)
        if (*p == '.') return true;
    return false;
}
/* The tag table of a TPID: 802.1Q C-tag (0x8100; 0x9100, Wireshark's QinQ default) UB_H_VLAN, 802.1ad
 * S-tag (0x88A8) UB_H_VLAN_S; 0 for any other EtherType */
static inline unsigned ub_tpid_table(unsigned ethertype)
{
    return ethertype == 0x8100 || ethertype == 0x9100 ? UB_H_VLAN : ethertype == 0x88A8 ? UB_H_VLAN_S : 0;
}
static inline bool ub_hdr_tag(unsigned id) { return id == UB_H_VLAN || id == UB_H_VLAN_S; }
/* an IP extension header (UB_H_IP6_HOPOPTS .. UB_H_AH) */
static inline bool ub_hdr_ip_ext(unsigned id) { return id >= UB_H_IP6_HOPOPTS && id <= UB_H_AH; }
/* an ICMP or ICMPv6 table (any message, echo, the path MTU errors) */
static inline bool ub_hdr_is_icmp(unsigned id)
{
    return (id >= UB_H_ICMP && id <= UB_H_ICMPV6_ECHO) || id == UB_H_ICMP_MTU || id == UB_H_ICMPV6_MTU;
}
static inline const char *ub_hdr_ns(const ub_hdr *h) { return ub_hdr_foreign(h) ? "" : "ub."; }

/* Every schema table, indexed by ub_hdr_id (entries may be NULL for ids without fields). */
const ub_hdr *ub_hdr_get(unsigned id);
/* Profile tables (docs/interop.md): n = 1 .. ub_hdr_variant_count(); NULL outside. A layer's hdr may
 * be one of these: same id and row indexes as ub_hdr_get(id), other bit positions or encodings. */
unsigned ub_hdr_variant_count(void);
const ub_hdr *ub_hdr_variant(unsigned n);
/* Find every (header, field) whose abbrev equals `abbrev` (format variants share names, and as in
 * Wireshark a neighbour's name may sit in two headers: infiniband.reth.va in the RETH and the AtomicETH).
 * Also accepts a header abbrev ("ub.btah") with *flds[i] == NULL. Returns the count found. */
size_t ub_field_find(const char *abbrev, const ub_hdr **hdrs, const ub_field **flds, size_t max);
const char *ub_vname_lookup(const ub_vname *vals, uint64_t v);
/* Bytes (1..8) of the Wireshark FT_(U)INTn an integer row is registered as: the bytes its bits span on
 * the wire (a value stored shifted or bit-reversed, an auxiliary value, a little-endian word row:
 * the bytes of its value). tshark writes hex values with 2 digits a byte of it and refuses filter
 * literals above its maximum. Virtual rows are always integers to Wireshark; for other rows that are
 * not integers or booleans, 0. */
unsigned ub_field_ws_bytes(const ub_field *f);

/* ------------------------------------------------------------------------- */
/* Errors                                                                     */
/* ------------------------------------------------------------------------- */

typedef enum ub_sev { UB_SEV_NOTE = 0, UB_SEV_WARN = 1, UB_SEV_ERROR = 2 } ub_sev;
typedef enum ub_egroup { UB_EG_MALFORMED = 0, UB_EG_PROTOCOL, UB_EG_SEQUENCE, UB_EG_CHECKSUM } ub_egroup;

typedef enum ub_err_code {
    UB_E_NONE = 0,
    UB_E_TRUNCATED,        /* header or payload cut short */
    UB_E_RSVD_BITS,        /* reserved field non-zero (warning, §0.2) */
    UB_E_RSVD_VALUE,       /* reserved value of a field that selects meaning */
    UB_E_LENGTH,           /* length fields inconsistent with each other or the record */
    UB_E_BCRC_BAD,         /* CRC30 mismatch (§4.7.2) */
    UB_E_ICRC_BAD,         /* ICRC mismatch in both byte orders (§5.3.7, R-15) */
    UB_E_PLENGTH_RSVD,     /* PLENGTH[4:0] reserved code for the mode (Table 4-1) */
    UB_E_UNKNOWN_CFG,      /* CFG 1/2/8/10..15 */
    UB_E_UNKNOWN_NLP,      /* reserved NLP value */
    UB_E_UNKNOWN_TPOPCODE, /* reserved TPOpcode */
    UB_E_UNKNOWN_TAOPCODE, /* reserved TAOpcode */
    UB_E_UNKNOWN_DLLCB,    /* reserved CTRL/SUB_CTRL */
    UB_E_LCH_PATTERN,      /* LCH fixed bits wrong */
    UB_E_CLENGTH,          /* DLLCB length not allowed for its type */
    UB_E_LBH_MISMATCH,     /* LBH VL/CFG differ from the LPH (DL-04, R-46) */
    UB_E_ERROR_FLAG,       /* DLLDP marked bad by the sender (§4.8.3) */
    UB_E_PADDING,          /* padding bytes not zero (DL-08) */
    UB_E_TP_ALIGN,         /* TPH..payload not a multiple of 4 with Padding (TP-10) */
    UB_E_FLAGS,            /* header flags inconsistent with the opcode (TA-05) */
    UB_E_VALUE,            /* field value out of its allowed range */
    UB_E_TRAILING,         /* bytes after the decoded structure */
    UB_E_AMBIGUOUS,        /* reconstruction ambiguity resolved by default (R-26, ...) */
    UB_E_ENCRYPTED,        /* CIP-protected part shown opaque */
    UB_E_STREAM,           /* raw flit stream: resynchronisation / incomplete block */
    UB_E_LINKTYPE,         /* record/link type not decodable as UB */
    UB_E_TOO_DEEP,         /* layer table full; rest not shown */
    UB_E_RSVD_ATTR,        /* reserved value of an attribute field (EE_bits, ODR; §10.6 h) */
    UB_E_IP_FRAGMENTED,    /* a UB datagram reassembled from IP fragments (NW-03: never fragmented) */
    UB_E__COUNT
} ub_err_code;

typedef struct ub_err_info {
    uint16_t code;
    const char *name;  /* value of the pseudo-field ub.error, e.g. "bcrc_bad" */
    uint8_t severity;  /* ub_sev */
    uint8_t group;     /* ub_egroup */
    const char *desc;
} ub_err_info;
const ub_err_info *ub_err_get(unsigned code);

typedef struct ub_err {
    uint16_t code;     /* ub_err_code */
    uint16_t hdr;      /* ub_hdr_id where it was found */
    uint32_t off;      /* byte offset in the record */
    uint64_t actual;   /* e.g. carried CRC / found value */
    uint64_t expected; /* e.g. computed CRC / expected value */
    const char *what;  /* static detail text (field abbrev or phrase), may be NULL */
} ub_err;

/* ------------------------------------------------------------------------- */
/* Decoder options (every R-nn alternative selectable)                        */
/* ------------------------------------------------------------------------- */

typedef enum ub_entry {
    UB_ENTRY_NONE = 0,
    UB_ENTRY_FLIT,   /* LINKTYPE_USER0 (147): one whole DLLDP/DLLCB with flits, BCRC/END */
    UB_ENTRY_PKT,    /* LINKTYPE_USER1 (148): LPH + network packet; LCH -> DLLCB */
    UB_ENTRY_STREAM, /* LINKTYPE_USER2 (149): raw flit stream per direction (use ub_stream) */
    UB_ENTRY_SLL,    /* LINKTYPE_LINUX_SLL (113) with ARPHRD_UB (38) */
    UB_ENTRY_SLL2,   /* LINKTYPE_LINUX_SLL2 (276) with ARPHRD_UB (38) */
    UB_ENTRY_ETH,    /* LINKTYPE_ETHERNET (1): UBoE, Ethernet/[802.1Q]/IP/UDP 4792 */
    UB_ENTRY_RAWIP,  /* LINKTYPE_RAW (101): IP/UDP 4792 */
    UB_ENTRY_CFGPH,  /* 1-byte CFG pseudo-header + packet (ARPHRD_UB payload) */
    UB_ENTRY_TPH,    /* UDP 4792 payload: RTPH/UTPH ... (Wireshark UDP dissector entry) */
    UB_ENTRY_PCIEFLIT, /* not UB: PCIe 6 flit-mode dump, whole 256-byte flits (LINKTYPE_USER3 150, -o dlt.pcieflit) */
    UB_ENTRY_IP,     /* LINKTYPE_IPV4 (228) / LINKTYPE_IPV6 (229): decoded as UB_ENTRY_RAWIP (Wireshark: no "raw" item) */
    UB_ENTRY_NULL,   /* LINKTYPE_NULL (0) / LINKTYPE_LOOP (108): BSD loopback, 4-byte address family + IP/UDP 4792 */
} ub_entry;

enum { UB_ARPHRD_UB = 38, UB_UDP_PORT = 4792, UB_ETH_P_UB = 0x0100 };

typedef enum ub_tah_fmt { UB_TAH_FULL = 0, UB_TAH_COMPACT = 1 } ub_tah_fmt;

/* Decoding profiles (docs/interop.md): the spec, or a known implementation's dialect. */
typedef enum ub_profile_id { UB_PROFILE_SPEC = 0, UB_PROFILE_NS3UB = 1, UB_PROFILE__COUNT } ub_profile_id;
#define UB_UDP_MORE 7

typedef struct ub_opts {
    uint16_t dlt_flit, dlt_pkt, dlt_stream; /* link-type numbers, default 147/148/149 */
    uint16_t udp_port;                      /* 4792 */
    bool crc_mode;           /* true: CRC mode (BCRC per block); false: Non-CRC mode (END) */
    uint8_t bcrc_variant;    /* 0 = 30 bits incl. the 2 info bits (default), 1 = bytes only */
    uint8_t tah_fmt[16];     /* TAH format per CFG for non-management opcodes */
    uint8_t read_ext4;       /* 4 spare bytes in a Read: 0 auto (OFST under RTP, else TAID), 1 TAID, 2 OFST */
    uint8_t btah_variant;    /* I-34: 0 spec (No_TAACK b7, ODR b6:4), 1 EV-UBUS (ODR b7:5, TAK_EN b4) */
    uint8_t scan_packing;    /* 0 rev.2 (LSB-first in words), 1 rev.1 (MSB-first) */
    uint8_t vdm_variant;     /* 0 figure order, 1 EV-UBUS */
    uint8_t init_variant;    /* 0 Table 4-8 layout, 1 figure layout (B), 2 auto */
    uint8_t cetph_variant;   /* 0 LDCP, 1 CAQM for TPACK-CC family */
    uint8_t bitmap_order;    /* 0 MSB-first (BitMap[0] = last byte bit 0), 1 first bit = BitMap[0] */
    uint16_t icv_len;        /* ICV bytes when CIP is used (12) */
    bool cip_decode_inner;   /* decode TAH after CIPH (default false: opaque, may be encrypted) */
    bool urpc_heuristic;     /* decode URPC in Send payloads (App. H) */
    uint8_t icrc_enum;       /* R-44 enumeration ICRC: 0 auto by length, 1 always, 2 never */
    uint8_t rsp_ext;         /* R-26 Read/Atomic response without its request: bit0 TAIDETAH, bit1 OFSTETAH */
    uint8_t profile;         /* ub_profile_id (-o profile=ns3ub) */
    bool udp_heuristic;      /* claim UDP datagrams on other ports that pass the strict heuristic */
    uint8_t n_udp_more;      /* more UB destination ports besides udp_port (-o udp.port=4792,5000) */
    uint16_t udp_more[UB_UDP_MORE];
    /* neighbouring interconnects (docs/neighbours.md; SUE choices are provisional, document 004) */
    uint16_t dlt_pcieflit;   /* link type of PCIe flit dumps (150 = LINKTYPE_USER3; 0 = none) */
    uint8_t udp4791;         /* UDP 4791: 0 the disambiguation rule (ub_udp4791_kind), 1 always RoCEv2, 2 always SUE */
    uint16_t sue_port;       /* SUE TYPE1 UDP destination port (4791; 0 = no SUE over UDP) */
    uint16_t sue_ethertype[2]; /* AFH EtherTypes of TYPE1/TYPE2 (MAC_TYPE1/2, register-set: 0x88B5/0x88B6; 0 = off) */
    uint8_t sue_rh_order;    /* RH byte order on the wire: 0 Opcode byte first (default), 1 Dest_QP byte first */
    uint8_t sue_afh;         /* AFH MAC header: 0 auto by Key_words, 1 AFH_GEN1, 2 AFH_GEN2_16b */
    bool sue_tc_in_sa;       /* AFH_GEN1: SA[47:40] is the Traffic Class (afh_gen1_tc_en; default 1) */
    bool sue_icrc;           /* a 4-byte ICRC follows the SUE payload (optional for TYPE1; default 0) */
    bool ib_engine;          /* audit IB RC with document 002's RDMA-engine profile (SE, AckReq on every request) */
    uint16_t sue_cnp_merge_us; /* SUE CNP MERGE TIMER_THR in µs (document 004 §12.8); 0 = merge off, not audited */
    uint8_t sue_rnr_encoding;  /* RNR time in the ACK Aeth_syndrom: 0 IB AETH [4:0] (IBTA Table 45, provisional), 1 off */
    uint8_t pcieflit_encoding; /* PCIe flit link encoding: 0 1b/1b (default), 1 8b/10b, 2 128b/130b (document 003 handshake limit) */
    bool ip_defrag;          /* reassemble IP fragments (ub_units; Wireshark's ip.defragment, default true) */
} ub_opts;

void ub_opts_default(ub_opts *o);

/* A profile's name ("spec", "ns3ub"), NULL outside; and back (-1 unknown). */
const char *ub_profile_name(unsigned id);
int ub_profile_find(const char *name);
/* One documented deviation of a profile (docs/interop.md is generated from these). */
typedef struct ub_deviation {
    const char *id;        /* "D1" */
    const char *where;     /* "LPH byte 2 b7:6 (RT)" */
    const char *dialect;   /* what the implementation writes */
    const char *spec;      /* what the spec says */
    const char *handling;  /* what the profile does about it */
} ub_deviation;
/* The title of profile id and the number of its deviations; NULL for an unknown id. */
const char *ub_profile_describe(unsigned id, unsigned *ndev);
const ub_deviation *ub_profile_deviation(unsigned id, unsigned i);
/* Map a pcap link type (and SLL protocol handling) to an entry point under the options. */
ub_entry ub_entry_for_linktype(const ub_opts *o, uint32_t linktype);

/* ------------------------------------------------------------------------- */
/* The packet view                                                             */
/* ------------------------------------------------------------------------- */

typedef enum ub_cksum_status {
    UB_CK_BAD = 0, UB_CK_GOOD = 1, UB_CK_UNVERIFIED = 2, UB_CK_NOT_PRESENT = 3
} ub_cksum_status; /* same numbering as Wireshark's PROTO_CHECKSUM_E_* */

enum ub_layer_flags {
    UB_LF_TRUNC = 1u << 0,   /* fewer bytes than the header needs */
    UB_LF_NETBUF = 1u << 1,  /* lives in the reassembled network packet, not the record */
    UB_LF_OVERLAY = 1u << 2, /* re-describes bytes of the parent layer (e.g. CCI inside NTH) */
    UB_LF_QUOTED = 1u << 3,  /* in the datagram an ICMP / ICMPv6 error quotes: not the frame's own headers */
    UB_LF_OUTER = 1u << 4,   /* a tunnel's delivery headers (VXLAN, GRE, ERSPAN, MPLS ... and all before it): the
                              * frame's addresses, columns and UB endpoints are the inner ones */
};

typedef struct ub_layer {
    const ub_hdr *hdr;
    const uint8_t *data; /* first byte of this layer (zero-copy: record or view->netbuf) */
    uint32_t off;        /* offset of the first byte in its buffer */
    uint32_t len;        /* bytes of this layer present */
    uint64_t aux;        /* virtual-field value (computed CRC, ...) */
    uint8_t status;      /* ub_cksum_status for CRC layers */
    uint8_t variant;     /* e.g. ICRC byte order matched: 0 none, 1 little-endian, 2 big-endian */
    uint8_t depth;       /* tree nesting level (0 = top) */
    uint8_t flags;       /* ub_layer_flags */
    uint32_t wlen;       /* its length on the wire: > len when the record was cut by the snapshot length */
} ub_layer;

#define UB_MAX_LAYERS 96
#define UB_MAX_ERRS 24
#define UB_MAX_NETPKT 10240 /* > max DLLDP payload (10 205 B, §2.1) */

/* ub_view.neigh: the layers hold an InfiniBand BTH (RoCEv2), an SUE RH, a PCIe flit (not UB,
 * docs/neighbours.md) — as ub_view_find of their header ids would say, without the search */
/* UB_VN_QUOTED_UB: not a neighbour; the datagram an ICMP / ICMPv6 error in the frame quotes is UB over
 * UDP, and its UB headers are among the layers (UB_LF_QUOTED), as the plugin shows them */
enum ub_view_neigh { UB_VN_IB = 1u, UB_VN_SUE = 2u, UB_VN_PCIE = 4u, UB_VN_QUOTED_UB = 8u };

typedef enum ub_kind {
    UB_KIND_NONE = 0, UB_KIND_DLLDP, UB_KIND_DLLCB, UB_KIND_UBOE,
    UB_KIND_OTHER /* not UB (issue #9): Ethernet/IP/TCP/ARP/... shown as what it is, matches no ub.* filter */
} ub_kind;
/* Why IP/UDP traffic was taken for UB transport (ub_view.claim) */
typedef enum ub_claim { UB_CLAIM_NONE = 0, UB_CLAIM_PORT, UB_CLAIM_HEURISTIC, UB_CLAIM_PROFILE } ub_claim;

typedef struct ub_view {
    const uint8_t *rec; /* the record as given */
    uint32_t rec_len;
    uint32_t wire_len;  /* its length on the wire (ub_decode_wire), >= rec_len */
    uint8_t claim;      /* ub_claim of the IP/UDP part, UB_CLAIM_NONE if none */
    uint8_t entry;      /* ub_entry used */
    uint8_t kind;       /* ub_kind */
    int8_t cfg;         /* CFG of the DLLDP/DLLCB, -1 unknown */
    uint8_t tah_fmt;    /* format chosen for the TAH (ub_tah_fmt) */
    uint8_t neigh;      /* ub_view_neigh bits: neighbour headers among the layers (set by ub_decode*) */
    const ub_opts *opts; /* options the view was decoded with (printers read R-nn choices) */
    const uint8_t *pkt; /* network packet (after LPH / pseudo-header), zero-copy if contiguous */
    uint32_t pkt_len;
    uint32_t pkt_off;   /* offset of pkt in the record when contiguous, else UINT32_MAX */
    uint64_t tid;       /* the header-stack template the layers were filled from (ub_view_new_tmpl), 0: the
                         * general path. Views with the same non-zero tid have the same layers (tables,
                         * offsets, lengths, statuses; not data, aux): what depends on those alone may be
                         * memoized by it (the state engine's layer dispatch does) */
    uint16_t nlayers, nerrs;
    uint16_t errs_dropped; /* errors beyond UB_MAX_ERRS */
    ub_layer layer[UB_MAX_LAYERS];
    ub_err err[UB_MAX_ERRS];
    uint8_t netbuf[UB_MAX_NETPKT]; /* de-interleaved payload of multi-block DLLDPs */
    /* per-view cache of which rows of each table are reserved (derived from the schema on first
     * use, kept across ub_decode calls on the same view; validated by rsvd_magic, which also names the
     * profile the entries' tables belong to) */
    uint64_t rsvd_magic;
    struct ub_rsvd_ent {     /* one per header id */
        const ub_hdr *hdr;   /* the table the entry was derived from */
        uint64_t rows;       /* its reserved rows (bit i = row i) */
        uint64_t slow;       /* the reserved rows the mask does not cover (checked row by row) */
        uint64_t mask[4];    /* the other rows as bit masks of the words at woff[] (memory order) */
        uint8_t span;        /* bytes the masks need (the first 32 at most) */
        uint8_t nw;          /* words to load: 8-byte words (span >= 8), else 4-byte words, else bytes */
        uint8_t woff[4];     /* their offsets, all inside the first span bytes (the last may overlap) */
        uint8_t zrow;        /* 1 + index of a slow row "reserved bytes to the layer's end" (padding), 0 if none */
        uint8_t fast;        /* ub_push's inline path: 0 none, 1 no reserved rows, 2/3/4 the masks cover them all
                              * (one 4-byte word, two 4-byte words, nw 8-byte words) */
        uint16_t minlen;     /* the inline path's shortest layer: the table's length, at least span */
        uint16_t tailmax;    /* rows past the table's length, outside the masks: the longest layer that
                              * holds none of them (0: no such rows; longer layers: row by row) */
    } rsvd[UB_H__COUNT];
    /* the view's header-stack template cache (libubparse/src/tmpl.c; ub_view_new_tmpl), valid only while
     * tmpl_chk matches the pointer and the view's address (storage never initialised, or a copy of a
     * view at another address, has none; ub_view_init clears it) */
    struct ub_tmpl_cache *tmpl;
    uint64_t tmpl_chk;
} ub_view;

/* Prepare a view's storage once before its first ub_decode (not needed for zeroed memory). A view
 * can then be reused for any number of packets. */
void ub_view_init(ub_view *v);

/* A view with a header-stack template cache behind it, in the same allocation (about 310 KB more;
 * free() it as any view). A record whose stack the view has decoded before without error is checked
 * against that template (every byte the decoder reads, the CRCs) and filled without dispatch; anything
 * else takes the general path, so the result is always the general path's. For views that decode many
 * records (ubdump, the audit session, the threads' decoders). ub_view_init detaches the cache (the view
 * is then a plain view). NULL when out of memory. */
ub_view *ub_view_new_tmpl(void);

/* Decode one record. Never fails hard: errors are in v->err[]. Returns v->nerrs. */
int ub_decode(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t len);
/* Same for a record cut by the capture's snapshot length: caplen bytes present, wirelen on the wire
 * (pcap orig_len). Lengths are checked against wirelen; what is missing is not decoded and is no error. */
int ub_decode_wire(ub_view *v, const ub_opts *o, ub_entry entry, const uint8_t *rec, uint32_t caplen,
                   uint32_t wirelen);

/* THE rule for UB over IP/UDP (digest §1 step 3, App. E), shared by every tool and the Wireshark
 * heuristic: the IP packet at ip (caplen bytes present up to the end of the record, wirelen on the
 * wire, so a trailing ICRC is seen) is UB when its UDP destination port is o->udp_port or one of
 * o->udp_more[], or — with o->udp_heuristic — when it passes the strict heuristic: UDP checksum 0,
 * IP/UDP lengths consistent, 0 or 4 bytes (a matching ICRC) after the IP packet, and the transport
 * and transaction headers decode without any warning or error. UDP 4791 (RoCEv2) never passes the
 * heuristic. Decodes into v (UB_ENTRY_RAWIP); returns v->claim (UB_CLAIM_NONE: not UB). */
int ub_ip_claim(ub_view *v, const ub_opts *o, const uint8_t *ip, uint32_t caplen, uint32_t wirelen);
enum { UB_IP_EXT_MAX = 8 }; /* extension headers walked, at most (the rest: data) */
/* The IP header (version ver, 4 or 6) that ends, with its extension headers, at l4 of frame and whose
 * upper-layer protocol there is proto: its offset, the nearest to l4 first; -1 when none is found.
 * For a dissector handed the UDP payload only (the plugin: the IP header before a UBoE datagram). */
int32_t ub_ip_before(const uint8_t *frame, uint32_t l4, unsigned ver, unsigned proto);

/* UDP 4791 carries RoCEv2 (an InfiniBand BTH) and SUE TYPE1 (an RC Link RH). Which one is the UDP payload
 * p (len bytes)? The one rule (docs/neighbours.md) used by the decoder, ubdump and the plugin:
 * -o udp4791=roce|sue forces it; else the well-formed header wins, P_Key 0xFFFF or an exact Pkt_len decides
 * between two, RoCEv2 (the IANA owner) when still both. Neither RoCEv2 nor SUE is UB. */
enum { UB_NEIGH_NONE = 0, UB_NEIGH_ROCEV2 = 1, UB_NEIGH_SUE = 2 };
int ub_udp4791_kind(const ub_opts *o, const uint8_t *p, uint32_t len);

/* Add an error found outside the decoder (e.g. raw-stream delimiting) at a record offset. */
void ub_error_rec(ub_view *v, unsigned code, unsigned hdr, uint32_t rec_off, uint64_t actual,
                  uint64_t expected, const char *what);

/* Is the record UB (a DLLDP, a DLLCB or UB over IP/UDP)? Counting, `-Y ub`, statistics. */
static inline bool ub_view_ub(const ub_view *v)
{
    return v->kind == UB_KIND_DLLDP || v->kind == UB_KIND_DLLCB || v->kind == UB_KIND_UBOE;
}

/* Does Wireshark with the plugin show "ub" in this frame: a UB record, or UB headers in the datagram an
 * ICMP error quotes (the view is then not UB: ub_view_ub false, no state, no UB count) */
static inline bool ub_view_shows_ub(const ub_view *v) { return ub_view_ub(v) || (v->neigh & UB_VN_QUOTED_UB); }
/* the first UB header of a quoted UB datagram (its TP header; the layers before it are Wireshark's) */
static inline bool ub_layer_quoted_tph(const ub_layer *l)
{
    return (l->flags & UB_LF_QUOTED) && l->hdr && (l->hdr->id == UB_H_RTPH || l->hdr->id == UB_H_UTPH);
}

/* A record of the PCIe flit link type that holds no whole flit: Wireshark shows the plugin's pcieflit
 * item alone (no data, no UB; Protocol "PCIe flit", an empty Info). */
static inline bool ub_view_pcie_noflit(const ub_view *v)
{
    return v->entry == UB_ENTRY_PCIEFLIT && !(v->neigh & UB_VN_PCIE);
}

/* Worst severity among the view's errors, -1 if none. */
int ub_view_worst(const ub_view *v);

/* ------------------------------------------------------------------------- */
/* Field access                                                               */
/* ------------------------------------------------------------------------- */

typedef struct ub_val {
    uint64_t u;           /* integer value (UINT/BOOL/virtual) */
    const uint8_t *bytes; /* BYTES/GUID/IP/MAC: pointer into the layer */
    uint32_t nbytes;
} ub_val;

/* 0 = value present; -1 = field not (fully) inside the layer. */
int ub_field_value(const ub_layer *l, const ub_field *f, ub_val *out);
/* Write v into field f of a layer whose bytes start at p (the caller's mutable copy, len bytes):
 * integers (UINT/BOOL; X64 rows take the full address, low 6 bits zero), byte strings right-aligned
 * (shorter values zero-filled in front, as the builder writes them) or, up to 8 bytes, from v->u.
 * Virtual rows cannot be written. 0, or -1 (outside the bytes, too wide, virtual). */
int ub_field_write(uint8_t *p, uint32_t len, const ub_field *f, const ub_val *v);
/* Parse text as a value of field f, as the builder does: decimal / 0x hex, value names ("Read"),
 * dotted IPv4, IPv6 (inet_pton form or 32 hex digits), hex bytes (aa:bb.. / 0x..), GUIDs (32 hex
 * digits, canonical order). Byte strings are stored in buf (cap bytes) and out->bytes points there.
 * 0, or -1. */
int ub_field_parse(const ub_field *f, const char *text, ub_val *out, uint8_t *buf, size_t cap);
/* Format a value as text (value name in parentheses for UINT with names when `names`). */
size_t ub_format_value(const ub_field *f, const ub_val *v, bool names, char *buf, size_t n);
/* IPv6 address in RFC 5952 text form ("fd00::1", "::ffff:10.0.0.1"), as tshark prints it; the length
 * (snprintf-style: text truncated to n-1 chars). Every IPv6 text ubscope prints comes from here. */
size_t ub_ipv6_format(const uint8_t a[16], char *buf, size_t n);
/* First layer with header id `id` at or after index `from`, or -1. */
int ub_view_find(const ub_view *v, unsigned id, int from);
/* First occurrence of field abbrev (e.g. "ub.btah.taopcode") in the view: 0 found. */
int ub_view_get(const ub_view *v, const char *abbrev, uint64_t *u);
/* Same, with the whole value (bytes of addresses) and its field (for ub_format_value, value names). */
int ub_view_get_val(const ub_view *v, const char *abbrev, const ub_field **f, ub_val *out);

/* ------------------------------------------------------------------------- */
/* Which dialect wrote a capture? (ubdump says which -o profile= to use)       */
/* ------------------------------------------------------------------------- */

/* Feed views decoded with the spec profile; caller-owned, zero-initialised or ub_sniff_init(). */
typedef struct ub_sniff {
    uint64_t ub;          /* UB records seen */
    uint64_t pkt_dlldp;   /* DLLDPs in packet records (LINKTYPE 148) */
    uint64_t plength0;    /* ... of them with PLENGTH 0 and a record longer than that implies */
    uint64_t ip_nth_udp;  /* CFG 3/4 with UDP to a port that is not UB's */
    uint64_t npi0;        /* IP-based NTH with NPI.ID 0 */
    uint64_t crd_nobcrc;  /* packet-record Crd_Acks whose BCRC bytes are zero */
} ub_sniff;
void ub_sniff_init(ub_sniff *s);
void ub_sniff_view(ub_sniff *s, const ub_view *v);
/* The profile the capture most likely needs (UB_PROFILE_SPEC when nothing points elsewhere); when it
 * is another one, msg gets one line of advice for the user (stderr). */
unsigned ub_sniff_verdict(const ub_sniff *s, char *msg, size_t n);

/* ------------------------------------------------------------------------- */
/* Raw flit stream (LINKTYPE_USER2): per-direction delimiting across records  */
/* ------------------------------------------------------------------------- */

typedef struct ub_stream {
    const ub_opts *o;
    uint8_t buf[512 * 20]; /* a DLLDP/DLLCB being collected across records */
    uint32_t have;         /* bytes buffered: the DLLDP in progress, then an open DLLCB after it */
    uint32_t need;         /* open DLLCB: bit 31 flag, bits 30..16 its length, bits 15..0 bytes missing */
    bool in_pkt;           /* a DLLDP is in progress */
    uint16_t blk_idx, nblk, flast;
    uint64_t units, resyncs;
} ub_stream;

typedef void (*ub_unit_cb)(void *ctx, const uint8_t *unit, uint32_t len, uint32_t flags);
enum { UB_UNIT_SPANNED = 1u, /* unit assembled from more than one record */
       UB_UNIT_PARTIAL = 2u,  /* incomplete unit: cut short by a resynchronisation, or flushed at the end */
       UB_UNIT_REASSEMBLED = 4u /* an IP datagram reassembled from the fragments up to this record's */ };
/* After decoding a unit flagged UB_UNIT_PARTIAL: its stream_sync error (every consumer of units: the
 * printers, the filters and the engine see the same) */
void ub_unit_partial(ub_view *v, uint32_t len);
/* After decoding any unit: the errors its flags mean (UB_UNIT_PARTIAL: ub_unit_partial; a UB datagram
 * UB_UNIT_REASSEMBLED: ip_fragmented at its IP header, NW-03); the one call every consumer makes */
void ub_unit_flag_errors(ub_view *v, unsigned flags, uint32_t len);
static inline void ub_unit_errors(ub_view *v, unsigned flags, uint32_t len)
{
    if (__builtin_expect(flags & (UB_UNIT_PARTIAL | UB_UNIT_REASSEMBLED), 0)) ub_unit_flag_errors(v, flags, len);
}
/* The flags of a unit as its decoded errors tell them (a consumer that decodes the same bytes again) */
unsigned ub_unit_flags_of(const ub_view *v);
void ub_stream_init(ub_stream *s, const ub_opts *o);
/* Feed one record of whole flits; calls cb for every completed DLLDP/DLLCB (flit-framed bytes,
 * decode with UB_ENTRY_FLIT). Returns the number of units emitted. */
int ub_stream_feed(ub_stream *s, const uint8_t *rec, uint32_t len, ub_unit_cb cb, void *ctx);
/* Emit what is left (flags UB_UNIT_PARTIAL). */
int ub_stream_flush(ub_stream *s, ub_unit_cb cb, void *ctx);

/* ------------------------------------------------------------------------- */
/* CRCs and PLENGTH                                                           */
/* ------------------------------------------------------------------------- */

/* CRC30 of one block of `flits` flits (§4.7.2); variant = R-03 (0 incl. 2 info bits, 1 bytes only). */
uint32_t ub_crc30_block(const uint8_t *blk, unsigned flits, unsigned variant);
/* zlib-compatible CRC-32 (ICRC algorithm, §5.3.7). */
uint32_t ub_crc32(uint32_t crc, const uint8_t *p, size_t n);
/* Payload length from PLENGTH (§2.4, R-02); -1 on reserved/inconsistent codes. */
int ub_plength_payload_len(unsigned plength, bool crc_mode);
/* PLENGTH for a payload of `len` bytes (inverse), -1 if too long. */
int ub_plength_encode(unsigned len, bool crc_mode);
/* Flits of a DLLDP with `len` payload bytes. */
unsigned ub_dlldp_flits(unsigned len, bool crc_mode);

/* Scan path entry i (width w = 4/8/16 bits) from the path bytes as received (§10.4.3.2, R-32;
 * packing = ub_opts.scan_packing). Reads bytes 4*(i/(32/w)) .. +3; 0 for an invalid width. */
unsigned ub_scan_path_entry(const uint8_t *path, unsigned i, unsigned w, unsigned packing);

/* ------------------------------------------------------------------------- */
/* Output (ubdump, plugin Info column)                                        */
/* ------------------------------------------------------------------------- */

/* One-line summary, e.g. "CFG9 NTH 0x0102→0x0304 Write req TASSN 1 addr 0x... len 64". */
size_t ub_summary(const ub_view *v, char *buf, size_t n);
/* The same, and ub_view_protocol(v) into *proto (the layers are walked once) */
size_t ub_summary_proto(const ub_view *v, char *buf, size_t n, const char **proto);
/* One line for a header item (hdrsum.c): its name and key fields, e.g. "Reliable Transport Header,
 * RTP data, PSN 17, TPN 0x101→0x202" (Wireshark tree items; the key fields are listed in hdrsum.c). */
size_t ub_layer_summary(const ub_layer *l, char *buf, size_t n);
/* The part of a summary about a neighbouring protocol (RoCEv2, SUE, PCIe flits; neigh_print.c), e.g.
 * "SUE AFH NAK QP 0x4 PSN 12"; 0 when the view carries none. */
size_t ub_neigh_summary(const ub_view *v, char *buf, size_t n);
/* XML 1.0 text of byte c (the JUnit report, ubdump -T psml): its entity for & < > " ', "?" for a control
 * character XML cannot carry (all but tab and newline), NULL where the byte stands for itself */
const char *ub_xml_esc(unsigned char c);
/* The EtherTypes a summary names without decoding them ("ARP", "LLDP", "PTP", ...); NULL for others.
 * ws1/ws2: the names Wireshark's dissectors put in frame.protocols for the payload, ws_col its Protocol
 * column (NULL: none of its own, or what follows decides); PTP: version 2 only (ub_ws_eth_next) */
typedef struct ub_ethertype {
    unsigned type;
    const char *name, *ws1, *ws2, *ws_col;
} ub_ethertype;
const ub_ethertype *ub_ethertype_get(unsigned type);
const char *ub_ethertype_name(unsigned type);
/* The same for IP protocol numbers (type): "IGMP", "ESP", "OSPF", "PIM", "VRRP", "SCTP" (Wireshark's
 * dissectors take the datagram's payload), and those ubdump decodes (ICMP, TCP, UDP, GRE: named only) */
const ub_ethertype *ub_ipproto_get(unsigned proto);
/* its Protocol column for payload p (n bytes): ws_col, or by version ("IGMPv2", "IGMPv3", "PIMv2") */
const char *ub_ipproto_col(const ub_ethertype *e, const uint8_t *p, uint32_t n, char *buf, size_t bn);
/* The protocol an IP header or IP extension header layer l says follows it (IPv4 Protocol, the IPv6 or
 * extension header's Next Header) and whether it says the datagram is a fragment (IPv4 More Fragments
 * or an offset, an IPv6 fragment header's); false when l is none of them */
bool ub_ip_layer_next(const ub_layer *l, unsigned *proto, bool *frag);
/* Name of the view's top layer for a Protocol column: "UB-DLL", "UB-NW", "UB-TP", "UB-TA", "UB-MGMT",
 * "UB-ENUM", "UB-NCTL", "UB-URPC"; "UB" for what is not UB (docs/wireshark.md). */
const char *ub_view_protocol(const ub_view *v);
/* An output buffer in front of a stdio stream (ub_print_tree's text, ubdump's lines): the bytes are collected
 * in p[0..n) (cap bytes) and handed to f in one fwrite when the next ones do not fit (bytes that never fit go
 * straight to f after them) and at ub_obuf_flush. */
typedef struct ub_obuf {
    FILE *f;
    char *p;
    size_t n, cap;
} ub_obuf;
void ub_obuf_flush(ub_obuf *o);
void ub_obuf_spill(ub_obuf *o, const char *s, size_t len); /* ub_obuf_put of bytes that do not fit */
static inline void ub_obuf_put(ub_obuf *o, const char *s, size_t len)
{
    if (o->n + len <= o->cap) {
        memcpy(o->p + o->n, s, len);
        o->n += len;
    } else {
        ub_obuf_spill(o, s, len);
    }
}
/* Verbose tree (tshark -V style). */
void ub_print_tree(FILE *f, const ub_view *v);
/* ub_print_tree as tshark -O shows it: the layers whose header id is set in detail ((UB_H__COUNT + 63) / 64
 * words, filter.h ub_ws_proto_ids; NULL = all) with their fields, the others by their line only; the
 * decode errors of headers not in detail are left out with their fields */
void ub_print_tree_sel(FILE *f, const ub_view *v, const uint64_t *detail);
/* JSON object of layers/fields/errors (no trailing newline). */
void ub_print_json(FILE *f, const ub_view *v);
/* Comma-separated error names (value of the pseudo-field ub.error). */
size_t ub_error_names(const ub_view *v, char *buf, size_t n);
/* The digits of v at t, not terminated, and their count: decimal (at most 20), or lower-case hex zero-padded
 * to at least `width` digits (at most 32) — the digits of "%" PRIu64 and "%0*" PRIx64, without printf (the
 * summaries, ubdump's field values). */
size_t ub_u64_dec(char t[20], uint64_t v);
size_t ub_u64_hex(char t[32], uint64_t v, unsigned width);
/* The 2 * n lower-case hex digits of bytes p[0..n) at t, not terminated. */
void ub_hex_bytes(char *t, const uint8_t *p, size_t n);

/* ------------------------------------------------------------------------- */
/* Builder                                                                    */
/* ------------------------------------------------------------------------- */

/* Build one record from a text description (docs/builder.md):
 *   "flit" | "pkt" | "sll" | "sll2" | "eth" | "rawip" | "stream" on the first line (entry),
 *   then one header per line: "<table key> field=value ...", "payload hex=.. | inc=N | zero=N".
 * Lengths, NLPs, PLENGTH, padding, BCRC and ICRC are computed unless given.
 * Returns bytes written, or -1 with a message in err. */
long ub_build_text(const char *text, const ub_opts *o, uint8_t *out, size_t cap,
                   ub_entry *entry_out, char *err, size_t errlen);

/* The same builder, one header and field at a time (responders, Lua ub.build, rewrites): no text
 * to format or parse per packet. One allocation per builder (~25 KB), reused for any number of packets:
 *   ub_builder_reset(b, "flit");            entry line as in the text form, e.g. "eth icrc=be"
 *   ub_builder_header(b, "lph"); ub_builder_set_u64(b, "vl", 1);
 *   ub_builder_header(b, "payload"); ub_builder_set(b, "inc", "64");   (text values: names, IPs, hex)
 *   n = ub_builder_finish(b, out, sizeof out, &entry);
 * Fields apply to the last header. Every call returns -1 on error (message: ub_builder_error). */
typedef struct ub_builder ub_builder;
ub_builder *ub_builder_new(const ub_opts *o);
void ub_builder_free(ub_builder *b);
int ub_builder_reset(ub_builder *b, const char *entry_line);
int ub_builder_header(ub_builder *b, const char *table_key);
int ub_builder_set(ub_builder *b, const char *field, const char *value);
int ub_builder_set_u64(ub_builder *b, const char *field, uint64_t v);
/* byte-string fields (MAC, IPv6, GUID in canonical order, bytes), or content bytes with field "data" */
int ub_builder_set_bytes(ub_builder *b, const char *field, const uint8_t *p, size_t n);
long ub_builder_finish(ub_builder *b, uint8_t *out, size_t cap, ub_entry *entry_out);
const char *ub_builder_error(const ub_builder *b);

#ifdef __cplusplus
}
#endif
#endif /* UBPARSE_H */
