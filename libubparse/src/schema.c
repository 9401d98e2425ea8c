/* Schema registry: every header table by id, and value-name lists shared by several tables.
 * The tables themselves live beside their decoders (dll.c, net.c, tah.c, mgmt.c, cfg5.c, urpc.c). */
#include "internal.h"

extern const ub_hdr ub_hdr_sll;
extern const ub_hdr ub_hdr_sll2;
extern const ub_hdr ub_hdr_cfgph;
extern const ub_hdr ub_hdr_eth;
extern const ub_hdr ub_hdr_vlan, ub_hdr_stag;
extern const ub_hdr ub_hdr_ipv4;
extern const ub_hdr ub_hdr_ipv6;
extern const ub_hdr ub_hdr_udp;
extern const ub_hdr ub_hdr_lph;
extern const ub_hdr ub_hdr_lbh;
extern const ub_hdr ub_hdr_lch;
extern const ub_hdr ub_hdr_bcrc;
extern const ub_hdr ub_hdr_end;
extern const ub_hdr ub_hdr_flitpad;
extern const ub_hdr ub_hdr_dllcb_null;
extern const ub_hdr ub_hdr_dllcb_nob;
extern const ub_hdr ub_hdr_dllcb_retry_idle;
extern const ub_hdr ub_hdr_dllcb_retry_req;
extern const ub_hdr ub_hdr_dllcb_retry_ack;
extern const ub_hdr ub_hdr_dllcb_crd_ack;
extern const ub_hdr ub_hdr_dllcb_param_exchg;
extern const ub_hdr ub_hdr_dllcb_lane_manage;
extern const ub_hdr ub_hdr_dllcb_block_mode_chg;
extern const ub_hdr ub_hdr_dllcb_init;
extern const ub_hdr ub_hdr_dllcb_init_alt;
extern const ub_hdr ub_hdr_dllcb_rsvd;
extern const ub_hdr ub_hdr_lna;
extern const ub_hdr ub_hdr_nth16;
extern const ub_hdr ub_hdr_nth24;
extern const ub_hdr ub_hdr_nthip;
extern const ub_hdr ub_hdr_cci_caqm;
extern const ub_hdr ub_hdr_cci_fecn;
extern const ub_hdr ub_hdr_cci_fecn_rtt;
extern const ub_hdr ub_hdr_cci_rsvd;
extern const ub_hdr ub_hdr_icrc;
extern const ub_hdr ub_hdr_rtph;
extern const ub_hdr ub_hdr_utph;
extern const ub_hdr ub_hdr_ctph;
extern const ub_hdr ub_hdr_cetph_ldcp;
extern const ub_hdr ub_hdr_cetph_caqm;
extern const ub_hdr ub_hdr_cetph_cnp;
extern const ub_hdr ub_hdr_saetph;
extern const ub_hdr ub_hdr_tppad;
extern const ub_hdr ub_hdr_upih16;
extern const ub_hdr ub_hdr_upih32;
extern const ub_hdr ub_hdr_eidh40;
extern const ub_hdr ub_hdr_eidh256;
extern const ub_hdr ub_hdr_ciph;
extern const ub_hdr ub_hdr_icv;
extern const ub_hdr ub_hdr_opaque;
extern const ub_hdr ub_hdr_btah;
extern const ub_hdr ub_hdr_btah_c;
extern const ub_hdr ub_hdr_btah_alt;
extern const ub_hdr ub_hdr_atah;
extern const ub_hdr ub_hdr_atah_c;
extern const ub_hdr ub_hdr_maetah;
extern const ub_hdr ub_hdr_maetah_c;
extern const ub_hdr ub_hdr_mtetah;
extern const ub_hdr ub_hdr_tvetah;
extern const ub_hdr ub_hdr_taidetah;
extern const ub_hdr ub_hdr_ofstetah;
extern const ub_hdr ub_hdr_immetah;
extern const ub_hdr ub_hdr_ntfetah;
extern const ub_hdr ub_hdr_beetah;
extern const ub_hdr ub_hdr_udetah;
extern const ub_hdr ub_hdr_mgmtetah;
extern const ub_hdr ub_hdr_payload;
extern const ub_hdr ub_hdr_atomic_ops;
extern const ub_hdr ub_hdr_enumpad;
extern const ub_hdr ub_hdr_scanhdr;
extern const ub_hdr ub_hdr_scan_rpath;
extern const ub_hdr ub_hdr_scanpdu_req;
extern const ub_hdr ub_hdr_scanpdu_rsp;
extern const ub_hdr ub_hdr_scan_cfgcna_req;
extern const ub_hdr ub_hdr_scan_qrycna_req;
extern const ub_hdr ub_hdr_scan_qrycna_rsp;
extern const ub_hdr ub_hdr_tlv_slice;
extern const ub_hdr ub_hdr_tlv_portnum;
extern const ub_hdr ub_hdr_tlv_portinfo;
extern const ub_hdr ub_hdr_tlv_capinfo;
extern const ub_hdr ub_hdr_tlv_other;
extern const ub_hdr ub_hdr_mg_error;
extern const ub_hdr ub_hdr_mg_link;
extern const ub_hdr ub_hdr_mg_hotplug;
extern const ub_hdr ub_hdr_mg_cfg_req;
extern const ub_hdr ub_hdr_mg_cfg_rsp;
extern const ub_hdr ub_hdr_mg_vdm_vendor;
extern const ub_hdr ub_hdr_mg_vdm_vendor_alt;
extern const ub_hdr ub_hdr_mg_rsi_req;
extern const ub_hdr ub_hdr_mg_rsi_rsp;
extern const ub_hdr ub_hdr_mg_entinfo_rsp;
extern const ub_hdr ub_hdr_mg_entinfo_mue;
extern const ub_hdr ub_hdr_mg_lnq_req;
extern const ub_hdr ub_hdr_mg_token_req;
extern const ub_hdr ub_hdr_mg_token_rsp;
extern const ub_hdr ub_hdr_mg_ent_reg;
extern const ub_hdr ub_hdr_mg_ent_dereg;
extern const ub_hdr ub_hdr_mg_bi_create;
extern const ub_hdr ub_hdr_mg_bi_destroy;
extern const ub_hdr ub_hdr_mg_cfg_cpl;
extern const ub_hdr ub_hdr_mg_port_reset;
extern const ub_hdr ub_hdr_mg_opaque;
extern const ub_hdr ub_hdr_nctl;
extern const ub_hdr ub_hdr_ipnotify4;
extern const ub_hdr ub_hdr_ipnotify6;
extern const ub_hdr ub_hdr_npic;
extern const ub_hdr ub_hdr_npic_entry;
extern const ub_hdr ub_hdr_nctl_pdu;
extern const ub_hdr ub_hdr_urpc_req;
extern const ub_hdr ub_hdr_urpc_dma;
extern const ub_hdr ub_hdr_urpc_ack;
extern const ub_hdr ub_hdr_urpc_rsp;
extern const ub_hdr ub_hdr_urpc_rdoff;
extern const ub_hdr ub_hdr_tcp;
extern const ub_hdr ub_hdr_arp;
extern const ub_hdr ub_hdr_llc_snap;
extern const ub_hdr ub_hdr_icmp, ub_hdr_icmp_echo, ub_hdr_icmpv6, ub_hdr_icmpv6_echo, ub_hdr_icmp_mtu, ub_hdr_icmpv6_mtu;
extern const ub_hdr ub_hdr_null, ub_hdr_null_le;
extern const ub_hdr ub_hdr_vxlan, ub_hdr_geneve, ub_hdr_gre, ub_hdr_erspan2, ub_hdr_erspan3, ub_hdr_mpls;
extern const ub_hdr ub_hdr_ip6_hopopts, ub_hdr_ip6_routing, ub_hdr_ip6_fraghdr, ub_hdr_ip6_dstopts, ub_hdr_ah;
extern const ub_hdr ub_hdr_data;
extern const ub_hdr ub_hdr_ib_bth;
extern const ub_hdr ub_hdr_ib_reth;
extern const ub_hdr ub_hdr_ib_aeth;
extern const ub_hdr ub_hdr_ib_atomiceth;
extern const ub_hdr ub_hdr_ib_atomicacketh;
extern const ub_hdr ub_hdr_ib_deth;
extern const ub_hdr ub_hdr_ib_immdt;
extern const ub_hdr ub_hdr_ib_ieth;
extern const ub_hdr ub_hdr_ib_cnp;
extern const ub_hdr ub_hdr_ib_icrc;
extern const ub_hdr ub_hdr_sue_afh0;
extern const ub_hdr ub_hdr_sue_afh1;
extern const ub_hdr ub_hdr_sue_afh2;
extern const ub_hdr ub_hdr_sue_rh;
extern const ub_hdr ub_hdr_sue_icrc;
extern const ub_hdr ub_hdr_pcieflit;
extern const ub_hdr ub_hdr_pcieflit_oufc;
extern const ub_hdr ub_hdr_pcieflit_marker;

const ub_hdr *const ub_registry[UB_H__COUNT] = {
    [UB_H_SLL] = &ub_hdr_sll,
    [UB_H_SLL2] = &ub_hdr_sll2,
    [UB_H_CFGPH] = &ub_hdr_cfgph,
    [UB_H_ETH] = &ub_hdr_eth,
    [UB_H_VLAN] = &ub_hdr_vlan,
    [UB_H_VLAN_S] = &ub_hdr_stag,
    [UB_H_IPV4] = &ub_hdr_ipv4,
    [UB_H_IPV6] = &ub_hdr_ipv6,
    [UB_H_UDP] = &ub_hdr_udp,
    [UB_H_LPH] = &ub_hdr_lph,
    [UB_H_LBH] = &ub_hdr_lbh,
    [UB_H_LCH] = &ub_hdr_lch,
    [UB_H_BCRC] = &ub_hdr_bcrc,
    [UB_H_END] = &ub_hdr_end,
    [UB_H_FLITPAD] = &ub_hdr_flitpad,
    [UB_H_DLLCB_NULL] = &ub_hdr_dllcb_null,
    [UB_H_DLLCB_NOB] = &ub_hdr_dllcb_nob,
    [UB_H_DLLCB_RETRY_IDLE] = &ub_hdr_dllcb_retry_idle,
    [UB_H_DLLCB_RETRY_REQ] = &ub_hdr_dllcb_retry_req,
    [UB_H_DLLCB_RETRY_ACK] = &ub_hdr_dllcb_retry_ack,
    [UB_H_DLLCB_CRD_ACK] = &ub_hdr_dllcb_crd_ack,
    [UB_H_DLLCB_PARAM_EXCHG] = &ub_hdr_dllcb_param_exchg,
    [UB_H_DLLCB_LANE_MANAGE] = &ub_hdr_dllcb_lane_manage,
    [UB_H_DLLCB_BLOCK_MODE_CHG] = &ub_hdr_dllcb_block_mode_chg,
    [UB_H_DLLCB_INIT] = &ub_hdr_dllcb_init,
    [UB_H_DLLCB_INIT_ALT] = &ub_hdr_dllcb_init_alt,
    [UB_H_DLLCB_RSVD] = &ub_hdr_dllcb_rsvd,
    [UB_H_LNA] = &ub_hdr_lna,
    [UB_H_NTH16] = &ub_hdr_nth16,
    [UB_H_NTH24] = &ub_hdr_nth24,
    [UB_H_NTHIP] = &ub_hdr_nthip,
    [UB_H_CCI_CAQM] = &ub_hdr_cci_caqm,
    [UB_H_CCI_FECN] = &ub_hdr_cci_fecn,
    [UB_H_CCI_FECN_RTT] = &ub_hdr_cci_fecn_rtt,
    [UB_H_CCI_RSVD] = &ub_hdr_cci_rsvd,
    [UB_H_ICRC] = &ub_hdr_icrc,
    [UB_H_RTPH] = &ub_hdr_rtph,
    [UB_H_UTPH] = &ub_hdr_utph,
    [UB_H_CTPH] = &ub_hdr_ctph,
    [UB_H_CETPH_LDCP] = &ub_hdr_cetph_ldcp,
    [UB_H_CETPH_CAQM] = &ub_hdr_cetph_caqm,
    [UB_H_CETPH_CNP] = &ub_hdr_cetph_cnp,
    [UB_H_SAETPH] = &ub_hdr_saetph,
    [UB_H_TPPAD] = &ub_hdr_tppad,
    [UB_H_UPIH16] = &ub_hdr_upih16,
    [UB_H_UPIH32] = &ub_hdr_upih32,
    [UB_H_EIDH40] = &ub_hdr_eidh40,
    [UB_H_EIDH256] = &ub_hdr_eidh256,
    [UB_H_CIPH] = &ub_hdr_ciph,
    [UB_H_ICV] = &ub_hdr_icv,
    [UB_H_OPAQUE] = &ub_hdr_opaque,
    [UB_H_BTAH] = &ub_hdr_btah,
    [UB_H_BTAH_C] = &ub_hdr_btah_c,
    [UB_H_BTAH_ALT] = &ub_hdr_btah_alt,
    [UB_H_ATAH] = &ub_hdr_atah,
    [UB_H_ATAH_C] = &ub_hdr_atah_c,
    [UB_H_MAETAH] = &ub_hdr_maetah,
    [UB_H_MAETAH_C] = &ub_hdr_maetah_c,
    [UB_H_MTETAH] = &ub_hdr_mtetah,
    [UB_H_TVETAH] = &ub_hdr_tvetah,
    [UB_H_TAIDETAH] = &ub_hdr_taidetah,
    [UB_H_OFSTETAH] = &ub_hdr_ofstetah,
    [UB_H_IMMETAH] = &ub_hdr_immetah,
    [UB_H_NTFETAH] = &ub_hdr_ntfetah,
    [UB_H_BEETAH] = &ub_hdr_beetah,
    [UB_H_UDETAH] = &ub_hdr_udetah,
    [UB_H_MGMTETAH] = &ub_hdr_mgmtetah,
    [UB_H_PAYLOAD] = &ub_hdr_payload,
    [UB_H_ATOMIC_OPS] = &ub_hdr_atomic_ops,
    [UB_H_ENUMPAD] = &ub_hdr_enumpad,
    [UB_H_SCANHDR] = &ub_hdr_scanhdr,
    [UB_H_SCAN_RPATH] = &ub_hdr_scan_rpath,
    [UB_H_SCANPDU_REQ] = &ub_hdr_scanpdu_req,
    [UB_H_SCANPDU_RSP] = &ub_hdr_scanpdu_rsp,
    [UB_H_SCAN_CFGCNA_REQ] = &ub_hdr_scan_cfgcna_req,
    [UB_H_SCAN_QRYCNA_REQ] = &ub_hdr_scan_qrycna_req,
    [UB_H_SCAN_QRYCNA_RSP] = &ub_hdr_scan_qrycna_rsp,
    [UB_H_TLV_SLICE] = &ub_hdr_tlv_slice,
    [UB_H_TLV_PORTNUM] = &ub_hdr_tlv_portnum,
    [UB_H_TLV_PORTINFO] = &ub_hdr_tlv_portinfo,
    [UB_H_TLV_CAPINFO] = &ub_hdr_tlv_capinfo,
    [UB_H_TLV_OTHER] = &ub_hdr_tlv_other,
    [UB_H_MG_ERROR] = &ub_hdr_mg_error,
    [UB_H_MG_LINK] = &ub_hdr_mg_link,
    [UB_H_MG_HOTPLUG] = &ub_hdr_mg_hotplug,
    [UB_H_MG_CFG_REQ] = &ub_hdr_mg_cfg_req,
    [UB_H_MG_CFG_RSP] = &ub_hdr_mg_cfg_rsp,
    [UB_H_MG_VDM_VENDOR] = &ub_hdr_mg_vdm_vendor,
    [UB_H_MG_VDM_VENDOR_ALT] = &ub_hdr_mg_vdm_vendor_alt,
    [UB_H_MG_RSI_REQ] = &ub_hdr_mg_rsi_req,
    [UB_H_MG_RSI_RSP] = &ub_hdr_mg_rsi_rsp,
    [UB_H_MG_ENTINFO_RSP] = &ub_hdr_mg_entinfo_rsp,
    [UB_H_MG_ENTINFO_MUE] = &ub_hdr_mg_entinfo_mue,
    [UB_H_MG_LNQ_REQ] = &ub_hdr_mg_lnq_req,
    [UB_H_MG_TOKEN_REQ] = &ub_hdr_mg_token_req,
    [UB_H_MG_TOKEN_RSP] = &ub_hdr_mg_token_rsp,
    [UB_H_MG_ENT_REG] = &ub_hdr_mg_ent_reg,
    [UB_H_MG_ENT_DEREG] = &ub_hdr_mg_ent_dereg,
    [UB_H_MG_BI_CREATE] = &ub_hdr_mg_bi_create,
    [UB_H_MG_BI_DESTROY] = &ub_hdr_mg_bi_destroy,
    [UB_H_MG_CFG_CPL] = &ub_hdr_mg_cfg_cpl,
    [UB_H_MG_PORT_RESET] = &ub_hdr_mg_port_reset,
    [UB_H_MG_OPAQUE] = &ub_hdr_mg_opaque,
    [UB_H_NCTL] = &ub_hdr_nctl,
    [UB_H_IPNOTIFY4] = &ub_hdr_ipnotify4,
    [UB_H_IPNOTIFY6] = &ub_hdr_ipnotify6,
    [UB_H_NPIC] = &ub_hdr_npic,
    [UB_H_NPIC_ENTRY] = &ub_hdr_npic_entry,
    [UB_H_NCTL_PDU] = &ub_hdr_nctl_pdu,
    [UB_H_URPC_REQ] = &ub_hdr_urpc_req,
    [UB_H_URPC_DMA] = &ub_hdr_urpc_dma,
    [UB_H_URPC_ACK] = &ub_hdr_urpc_ack,
    [UB_H_URPC_RSP] = &ub_hdr_urpc_rsp,
    [UB_H_URPC_RDOFF] = &ub_hdr_urpc_rdoff,
    [UB_H_TCP] = &ub_hdr_tcp,
    [UB_H_ARP] = &ub_hdr_arp,
    [UB_H_LLC_SNAP] = &ub_hdr_llc_snap,
    [UB_H_ICMP] = &ub_hdr_icmp,
    [UB_H_ICMP_ECHO] = &ub_hdr_icmp_echo,
    [UB_H_ICMPV6] = &ub_hdr_icmpv6,
    [UB_H_ICMPV6_ECHO] = &ub_hdr_icmpv6_echo,
    [UB_H_ICMP_MTU] = &ub_hdr_icmp_mtu,
    [UB_H_ICMPV6_MTU] = &ub_hdr_icmpv6_mtu,
    [UB_H_NULL] = &ub_hdr_null,
    [UB_H_NULL_LE] = &ub_hdr_null_le,
    [UB_H_VXLAN] = &ub_hdr_vxlan,
    [UB_H_GENEVE] = &ub_hdr_geneve,
    [UB_H_GRE] = &ub_hdr_gre,
    [UB_H_ERSPAN2] = &ub_hdr_erspan2,
    [UB_H_ERSPAN3] = &ub_hdr_erspan3,
    [UB_H_MPLS] = &ub_hdr_mpls,
    [UB_H_IP6_HOPOPTS] = &ub_hdr_ip6_hopopts,
    [UB_H_IP6_ROUTING] = &ub_hdr_ip6_routing,
    [UB_H_IP6_FRAGHDR] = &ub_hdr_ip6_fraghdr,
    [UB_H_IP6_DSTOPTS] = &ub_hdr_ip6_dstopts,
    [UB_H_AH] = &ub_hdr_ah,
    [UB_H_DATA] = &ub_hdr_data,
    [UB_H_IB_BTH] = &ub_hdr_ib_bth,
    [UB_H_IB_RETH] = &ub_hdr_ib_reth,
    [UB_H_IB_AETH] = &ub_hdr_ib_aeth,
    [UB_H_IB_ATOMICETH] = &ub_hdr_ib_atomiceth,
    [UB_H_IB_ATOMICACKETH] = &ub_hdr_ib_atomicacketh,
    [UB_H_IB_DETH] = &ub_hdr_ib_deth,
    [UB_H_IB_IMMDT] = &ub_hdr_ib_immdt,
    [UB_H_IB_IETH] = &ub_hdr_ib_ieth,
    [UB_H_IB_CNP] = &ub_hdr_ib_cnp,
    [UB_H_IB_ICRC] = &ub_hdr_ib_icrc,
    [UB_H_SUE_AFH0] = &ub_hdr_sue_afh0,
    [UB_H_SUE_AFH1] = &ub_hdr_sue_afh1,
    [UB_H_SUE_AFH2] = &ub_hdr_sue_afh2,
    [UB_H_SUE_RH] = &ub_hdr_sue_rh,
    [UB_H_SUE_ICRC] = &ub_hdr_sue_icrc,
    [UB_H_PCIEFLIT] = &ub_hdr_pcieflit,
    [UB_H_PCIEFLIT_OUFC] = &ub_hdr_pcieflit_oufc,
    [UB_H_PCIEFLIT_MARKER] = &ub_hdr_pcieflit_marker,
};

const ub_hdr *ub_hdr_get(unsigned id)
{
    return id < UB_H__COUNT ? ub_registry[id] : NULL;
}

const char *ub_vname_lookup(const ub_vname *vals, uint64_t v)
{
    if (!vals) return NULL;
    for (; vals->name; vals++)
        if (vals->value == v) return vals->name;
    return NULL;
}

size_t ub_field_find(const char *abbrev, const ub_hdr **hdrs, const ub_field **flds, size_t max)
{
    size_t n = 0;
    if (!abbrev) return 0;
    unsigned nv = ub_hdr_variant_count();
    for (unsigned id = 1; id < UB_H__COUNT + nv; id++) { /* the registry, then the profile tables */
        const ub_hdr *h = id < UB_H__COUNT ? ub_registry[id] : ub_hdr_variant(id - UB_H__COUNT + 1);
        if (!h) continue;
        const char *ns = ub_hdr_ns(h); /* "ub." or "" (a neighbouring protocol's own names) */
        size_t nl = strlen(ns);
        if (strncmp(abbrev, ns, nl) == 0 && strcmp(abbrev + nl, h->abbrev) == 0) { /* header itself */
            if (n < max) { hdrs[n] = h; flds[n] = NULL; }
            n++;
            continue;
        }
        /* every row, not only those under the header's prefix: a name may sit in two headers as in
         * Wireshark (infiniband.reth.va in the RETH and the AtomicETH) */
        for (unsigned i = 0; i < h->nfields; i++) {
            if (strcmp(h->fields[i].abbrev, abbrev) == 0) {
                if (n < max) { hdrs[n] = h; flds[n] = &h->fields[i]; }
                n++;
            }
        }
    }
    return n;
}

unsigned ub_field_ws_bytes(const ub_field *f)
{
    if (!f || (!(f->flags & UB_FF_VIRTUAL) && f->type != UB_FT_UINT && f->type != UB_FT_BOOL)) return 0;
    unsigned n;
    if (f->flags & UB_FF_VIRTUAL) n = ((f->bits && f->bits < 64 ? f->bits : 64) + 7) / 8;
    else if (f->flags & UB_FF_LEW) n = (f->bits + 7) / 8;
    else {
        n = (f->bit_off + f->bits - 1) / 8 - f->bit_off / 8 + 1;
        if (n > 8 || (f->flags & (UB_FF_X64 | UB_FF_BITREV))) n = (f->bits + ((f->flags & UB_FF_X64) ? 6 : 0) + 7) / 8;
    }
    return n < 1 ? 1 : n > 8 ? 8 : n;
}

/* App. B Table B-1 */
const ub_vname ub_vn_cfg[] = {
    { 0, "DLLCB" }, { 3, "IPv4" }, { 4, "IPv6" }, { 5, "Network control" },
    { 6, "16-bit CNA (non-coherent/management)" }, { 7, "24-bit CNA" }, { 9, "Coherent (TP bypass)" },
    { 0, NULL }
};

/* Table 7-1, Table 7-3 */
const ub_vname ub_vn_taopcode[] = {
    { 0x00, "Send" }, { 0x01, "Send_with_immediate" }, { 0x03, "Write" },
    { 0x04, "Write_with_immediate" }, { 0x05, "Write_with_notify" }, { 0x06, "Read" },
    { 0x07, "Atomic_compare_swap" }, { 0x08, "Atomic_swap" }, { 0x09, "Atomic_store" },
    { 0x0A, "Atomic_load" }, { 0x0B, "Atomic_fetch_add" }, { 0x0C, "Atomic_fetch_sub" },
    { 0x0D, "Atomic_fetch_and" }, { 0x0E, "Atomic_fetch_or" }, { 0x0F, "Atomic_fetch_xor" },
    { 0x10, "Management" }, { 0x11, "TAACK" }, { 0x12, "Read_response" },
    { 0x13, "Atomic_response" }, { 0x14, "Write_with_be" }, { 0x15, "Prefetch_tgt" },
    { 0x17, "Writeback" }, { 0x18, "Writeback_with_be" },
    { 0, NULL }
};

/* Table 6-2 */
const ub_vname ub_vn_tpopcode[] = {
    { 0x0, "UTP data" }, { 0x1, "RTP data" }, { 0x2, "TPACK/TPNAK" }, { 0x3, "TPACK-CC/TPNAK-CC" },
    { 0x5, "TPSACK" }, { 0x6, "TPSACK-CC" }, { 0x8, "CNP" },
    { 0, NULL }
};

/* §10.4.3.1 management status codes */
const ub_vname ub_vn_mgmt_status[] = {
    { 0x00, "normal completion" }, { 0x01, "management privilege violation" },
    { 0x02, "management target does not exist" }, { 0x03, "wrong message code" },
    { 0x04, "wrong message length" }, { 0x20, "insufficient resources" },
    { 0x21, "insufficient permission" }, { 0x22, "address error" }, { 0x23, "busy" },
    { 0x24, "object already exists" }, { 0x25, "object does not exist" },
    { 0x26, "illegal parameter" }, { 0x27, "execution error" }, { 0xFF, "unknown error" },
    { 0, NULL }
};

const ub_vname ub_vn_yesno[] = { { 0, "No" }, { 1, "Yes" }, { 0, NULL } };

/* same numbering as Wireshark PROTO_CHECKSUM_E_* */
const ub_vname ub_vn_cksum_status[] = {
    { UB_CK_BAD, "Bad" }, { UB_CK_GOOD, "Good" }, { UB_CK_UNVERIFIED, "Unverified" },
    { UB_CK_NOT_PRESENT, "Not present" }, { 0, NULL }
};
