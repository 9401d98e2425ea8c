/* TEMPORARY weak stand-ins so the tree links while modules are being written.
 * Delete this file once every module defines its tables and entry points. */
#include "internal.h"
#define W __attribute__((weak))
W const ub_hdr ub_hdr_sll = { UB_H_SLL, "sll", "sll", "sll (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_sll2 = { UB_H_SLL2, "sll2", "sll2", "sll2 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cfgph = { UB_H_CFGPH, "cfgph", "cfgph", "cfgph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_eth = { UB_H_ETH, "eth", "eth", "eth (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_vlan = { UB_H_VLAN, "vlan", "vlan", "vlan (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ipv4 = { UB_H_IPV4, "ipv4", "ipv4", "ipv4 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ipv6 = { UB_H_IPV6, "ipv6", "ipv6", "ipv6 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_udp = { UB_H_UDP, "udp", "udp", "udp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_lph = { UB_H_LPH, "lph", "lph", "lph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_lbh = { UB_H_LBH, "lbh", "lbh", "lbh (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_lch = { UB_H_LCH, "lch", "lch", "lch (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_bcrc = { UB_H_BCRC, "bcrc", "bcrc", "bcrc (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_end = { UB_H_END, "end", "end", "end (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_flitpad = { UB_H_FLITPAD, "flitpad", "flitpad", "flitpad (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_null = { UB_H_DLLCB_NULL, "dllcb_null", "dllcb_null", "dllcb_null (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_nob = { UB_H_DLLCB_NOB, "dllcb_nob", "dllcb_nob", "dllcb_nob (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_retry_idle = { UB_H_DLLCB_RETRY_IDLE, "dllcb_retry_idle", "dllcb_retry_idle", "dllcb_retry_idle (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_retry_req = { UB_H_DLLCB_RETRY_REQ, "dllcb_retry_req", "dllcb_retry_req", "dllcb_retry_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_retry_ack = { UB_H_DLLCB_RETRY_ACK, "dllcb_retry_ack", "dllcb_retry_ack", "dllcb_retry_ack (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_crd_ack = { UB_H_DLLCB_CRD_ACK, "dllcb_crd_ack", "dllcb_crd_ack", "dllcb_crd_ack (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_param_exchg = { UB_H_DLLCB_PARAM_EXCHG, "dllcb_param_exchg", "dllcb_param_exchg", "dllcb_param_exchg (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_lane_manage = { UB_H_DLLCB_LANE_MANAGE, "dllcb_lane_manage", "dllcb_lane_manage", "dllcb_lane_manage (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_block_mode_chg = { UB_H_DLLCB_BLOCK_MODE_CHG, "dllcb_block_mode_chg", "dllcb_block_mode_chg", "dllcb_block_mode_chg (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_init = { UB_H_DLLCB_INIT, "dllcb_init", "dllcb_init", "dllcb_init (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_init_alt = { UB_H_DLLCB_INIT_ALT, "dllcb_init_alt", "dllcb_init_alt", "dllcb_init_alt (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_dllcb_rsvd = { UB_H_DLLCB_RSVD, "dllcb_rsvd", "dllcb_rsvd", "dllcb_rsvd (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_lna = { UB_H_LNA, "lna", "lna", "lna (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_nth16 = { UB_H_NTH16, "nth16", "nth16", "nth16 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_nth24 = { UB_H_NTH24, "nth24", "nth24", "nth24 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_nthip = { UB_H_NTHIP, "nthip", "nthip", "nthip (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cci_caqm = { UB_H_CCI_CAQM, "cci_caqm", "cci_caqm", "cci_caqm (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cci_fecn = { UB_H_CCI_FECN, "cci_fecn", "cci_fecn", "cci_fecn (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cci_fecn_rtt = { UB_H_CCI_FECN_RTT, "cci_fecn_rtt", "cci_fecn_rtt", "cci_fecn_rtt (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cci_rsvd = { UB_H_CCI_RSVD, "cci_rsvd", "cci_rsvd", "cci_rsvd (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_icrc = { UB_H_ICRC, "icrc", "icrc", "icrc (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_rtph = { UB_H_RTPH, "rtph", "rtph", "rtph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_utph = { UB_H_UTPH, "utph", "utph", "utph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ctph = { UB_H_CTPH, "ctph", "ctph", "ctph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cetph_ldcp = { UB_H_CETPH_LDCP, "cetph_ldcp", "cetph_ldcp", "cetph_ldcp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cetph_caqm = { UB_H_CETPH_CAQM, "cetph_caqm", "cetph_caqm", "cetph_caqm (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_cetph_cnp = { UB_H_CETPH_CNP, "cetph_cnp", "cetph_cnp", "cetph_cnp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_saetph = { UB_H_SAETPH, "saetph", "saetph", "saetph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tppad = { UB_H_TPPAD, "tppad", "tppad", "tppad (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_upih16 = { UB_H_UPIH16, "upih16", "upih16", "upih16 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_upih32 = { UB_H_UPIH32, "upih32", "upih32", "upih32 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_eidh40 = { UB_H_EIDH40, "eidh40", "eidh40", "eidh40 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_eidh256 = { UB_H_EIDH256, "eidh256", "eidh256", "eidh256 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ciph = { UB_H_CIPH, "ciph", "ciph", "ciph (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_icv = { UB_H_ICV, "icv", "icv", "icv (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_opaque = { UB_H_OPAQUE, "opaque", "opaque", "opaque (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_btah = { UB_H_BTAH, "btah", "btah", "btah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_btah_c = { UB_H_BTAH_C, "btah_c", "btah_c", "btah_c (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_btah_alt = { UB_H_BTAH_ALT, "btah_alt", "btah_alt", "btah_alt (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_atah = { UB_H_ATAH, "atah", "atah", "atah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_atah_c = { UB_H_ATAH_C, "atah_c", "atah_c", "atah_c (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_maetah = { UB_H_MAETAH, "maetah", "maetah", "maetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_maetah_c = { UB_H_MAETAH_C, "maetah_c", "maetah_c", "maetah_c (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mtetah = { UB_H_MTETAH, "mtetah", "mtetah", "mtetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tvetah = { UB_H_TVETAH, "tvetah", "tvetah", "tvetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_taidetah = { UB_H_TAIDETAH, "taidetah", "taidetah", "taidetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ofstetah = { UB_H_OFSTETAH, "ofstetah", "ofstetah", "ofstetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_immetah = { UB_H_IMMETAH, "immetah", "immetah", "immetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ntfetah = { UB_H_NTFETAH, "ntfetah", "ntfetah", "ntfetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_beetah = { UB_H_BEETAH, "beetah", "beetah", "beetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_udetah = { UB_H_UDETAH, "udetah", "udetah", "udetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mgmtetah = { UB_H_MGMTETAH, "mgmtetah", "mgmtetah", "mgmtetah (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_payload = { UB_H_PAYLOAD, "payload", "payload", "payload (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_atomic_ops = { UB_H_ATOMIC_OPS, "atomic_ops", "atomic_ops", "atomic_ops (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_enumpad = { UB_H_ENUMPAD, "enumpad", "enumpad", "enumpad (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_scanhdr = { UB_H_SCANHDR, "scanhdr", "scanhdr", "scanhdr (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_scanpdu_req = { UB_H_SCANPDU_REQ, "scanpdu_req", "scanpdu_req", "scanpdu_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_scanpdu_rsp = { UB_H_SCANPDU_RSP, "scanpdu_rsp", "scanpdu_rsp", "scanpdu_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_scan_cfgcna_req = { UB_H_SCAN_CFGCNA_REQ, "scan_cfgcna_req", "scan_cfgcna_req", "scan_cfgcna_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_scan_qrycna_req = { UB_H_SCAN_QRYCNA_REQ, "scan_qrycna_req", "scan_qrycna_req", "scan_qrycna_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_scan_qrycna_rsp = { UB_H_SCAN_QRYCNA_RSP, "scan_qrycna_rsp", "scan_qrycna_rsp", "scan_qrycna_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tlv_slice = { UB_H_TLV_SLICE, "tlv_slice", "tlv_slice", "tlv_slice (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tlv_portnum = { UB_H_TLV_PORTNUM, "tlv_portnum", "tlv_portnum", "tlv_portnum (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tlv_portinfo = { UB_H_TLV_PORTINFO, "tlv_portinfo", "tlv_portinfo", "tlv_portinfo (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tlv_capinfo = { UB_H_TLV_CAPINFO, "tlv_capinfo", "tlv_capinfo", "tlv_capinfo (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_tlv_other = { UB_H_TLV_OTHER, "tlv_other", "tlv_other", "tlv_other (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_error = { UB_H_MG_ERROR, "mg_error", "mg_error", "mg_error (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_link = { UB_H_MG_LINK, "mg_link", "mg_link", "mg_link (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_hotplug = { UB_H_MG_HOTPLUG, "mg_hotplug", "mg_hotplug", "mg_hotplug (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_cfg_req = { UB_H_MG_CFG_REQ, "mg_cfg_req", "mg_cfg_req", "mg_cfg_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_cfg_rsp = { UB_H_MG_CFG_RSP, "mg_cfg_rsp", "mg_cfg_rsp", "mg_cfg_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_vdm_vendor = { UB_H_MG_VDM_VENDOR, "mg_vdm_vendor", "mg_vdm_vendor", "mg_vdm_vendor (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_vdm_vendor_alt = { UB_H_MG_VDM_VENDOR_ALT, "mg_vdm_vendor_alt", "mg_vdm_vendor_alt", "mg_vdm_vendor_alt (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_rsi_req = { UB_H_MG_RSI_REQ, "mg_rsi_req", "mg_rsi_req", "mg_rsi_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_rsi_rsp = { UB_H_MG_RSI_RSP, "mg_rsi_rsp", "mg_rsi_rsp", "mg_rsi_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_entinfo_rsp = { UB_H_MG_ENTINFO_RSP, "mg_entinfo_rsp", "mg_entinfo_rsp", "mg_entinfo_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_entinfo_mue = { UB_H_MG_ENTINFO_MUE, "mg_entinfo_mue", "mg_entinfo_mue", "mg_entinfo_mue (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_lnq_req = { UB_H_MG_LNQ_REQ, "mg_lnq_req", "mg_lnq_req", "mg_lnq_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_token_req = { UB_H_MG_TOKEN_REQ, "mg_token_req", "mg_token_req", "mg_token_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_token_rsp = { UB_H_MG_TOKEN_RSP, "mg_token_rsp", "mg_token_rsp", "mg_token_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_ent_reg = { UB_H_MG_ENT_REG, "mg_ent_reg", "mg_ent_reg", "mg_ent_reg (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_ent_dereg = { UB_H_MG_ENT_DEREG, "mg_ent_dereg", "mg_ent_dereg", "mg_ent_dereg (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_bi_create = { UB_H_MG_BI_CREATE, "mg_bi_create", "mg_bi_create", "mg_bi_create (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_bi_destroy = { UB_H_MG_BI_DESTROY, "mg_bi_destroy", "mg_bi_destroy", "mg_bi_destroy (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_cfg_cpl = { UB_H_MG_CFG_CPL, "mg_cfg_cpl", "mg_cfg_cpl", "mg_cfg_cpl (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_port_reset = { UB_H_MG_PORT_RESET, "mg_port_reset", "mg_port_reset", "mg_port_reset (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_mg_opaque = { UB_H_MG_OPAQUE, "mg_opaque", "mg_opaque", "mg_opaque (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_nctl = { UB_H_NCTL, "nctl", "nctl", "nctl (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ipnotify4 = { UB_H_IPNOTIFY4, "ipnotify4", "ipnotify4", "ipnotify4 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_ipnotify6 = { UB_H_IPNOTIFY6, "ipnotify6", "ipnotify6", "ipnotify6 (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_npic = { UB_H_NPIC, "npic", "npic", "npic (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_npic_entry = { UB_H_NPIC_ENTRY, "npic_entry", "npic_entry", "npic_entry (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_nctl_pdu = { UB_H_NCTL_PDU, "nctl_pdu", "nctl_pdu", "nctl_pdu (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_urpc_req = { UB_H_URPC_REQ, "urpc_req", "urpc_req", "urpc_req (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_urpc_dma = { UB_H_URPC_DMA, "urpc_dma", "urpc_dma", "urpc_dma (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_urpc_ack = { UB_H_URPC_ACK, "urpc_ack", "urpc_ack", "urpc_ack (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_urpc_rsp = { UB_H_URPC_RSP, "urpc_rsp", "urpc_rsp", "urpc_rsp (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_urpc_rdoff = { UB_H_URPC_RDOFF, "urpc_rdoff", "urpc_rdoff", "urpc_rdoff (stub)", "", 0, NULL, 0 };
W const ub_hdr ub_hdr_data = { UB_H_DATA, "data", "data", "data (stub)", "", 0, NULL, 0 };
W void ub_dec_flit_record(ub_dec *d) { (void)d; }
W void ub_dec_pkt_record(ub_dec *d) { (void)d; }
W long ub_frame_dlldp(const ub_opts *o, const uint8_t lph[4], const uint8_t *pkt, uint32_t len, bool ef, uint8_t *out, size_t cap) { (void)o; (void)lph; (void)pkt; (void)len; (void)ef; (void)out; (void)cap; return -1; }
W void ub_frame_dllcb(const ub_opts *o, uint8_t *blk, unsigned flits) { (void)o; (void)blk; (void)flits; }
W uint32_t ub_dll_pkt_to_rec(bool crc_mode, uint32_t pkt_off) { (void)crc_mode; return pkt_off + 4; }
W void ub_dec_netpkt(ub_dec *d, int cfg) { (void)d; (void)cfg; }
W void ub_dec_ip_ub(ub_dec *d, uint32_t off, uint32_t end, bool uboe) { (void)d; (void)off; (void)end; (void)uboe; }
W void ub_dec_tph(ub_dec *d, uint32_t off, uint32_t end) { (void)d; (void)off; (void)end; }
W uint32_t ub_dec_enum(ub_dec *d, uint32_t off, uint32_t end) { (void)d; (void)off; return end; }
W void ub_dec_mgmt_pdu(ub_dec *d, uint32_t off, uint32_t end, unsigned code, unsigned sub, bool rsp) { (void)d; (void)off; (void)end; (void)code; (void)sub; (void)rsp; }
W uint32_t ub_dec_tlvs(ub_dec *d, uint32_t off, uint32_t end) { (void)d; (void)off; return end; }
W void ub_dec_cfg5(ub_dec *d, uint32_t off, uint32_t end) { (void)d; (void)off; (void)end; }
W bool ub_dec_urpc(ub_dec *d, uint32_t off, uint32_t end) { (void)d; (void)off; (void)end; return false; }
W void ub_stream_init(ub_stream *s, const ub_opts *o) { memset(s, 0, sizeof *s); s->o = o; }
W int ub_stream_feed(ub_stream *s, const uint8_t *rec, uint32_t len, ub_unit_cb cb, void *ctx) { (void)s; (void)rec; (void)len; (void)cb; (void)ctx; return 0; }
W int ub_stream_flush(ub_stream *s, ub_unit_cb cb, void *ctx) { (void)s; (void)cb; (void)ctx; return 0; }
W uint32_t ub_crc30_block(const uint8_t *blk, unsigned flits, unsigned variant) { (void)blk; (void)flits; (void)variant; return 0; }
W uint32_t ub_crc32(uint32_t crc, const uint8_t *p, size_t n) { (void)p; (void)n; return crc; }
W int ub_plength_payload_len(unsigned plength, bool crc_mode) { (void)plength; (void)crc_mode; return -1; }
W int ub_plength_encode(unsigned len, bool crc_mode) { (void)len; (void)crc_mode; return -1; }
W unsigned ub_dlldp_flits(unsigned len, bool crc_mode) { (void)len; (void)crc_mode; return 0; }
W size_t ub_summary(const ub_view *v, char *buf, size_t n) { (void)v; if (n) buf[0] = 0; return 0; }
W void ub_print_tree(FILE *f, const ub_view *v) { (void)f; (void)v; }
W void ub_print_json(FILE *f, const ub_view *v) { (void)f; (void)v; }
W long ub_build_text(const char *text, const ub_opts *o, uint8_t *out, size_t cap, ub_entry *e, char *err, size_t errlen) { (void)text; (void)o; (void)out; (void)cap; (void)e; (void)err; (void)errlen; return -1; }
