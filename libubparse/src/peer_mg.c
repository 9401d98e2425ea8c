/* Reference responder: management target (configuration-management messages, §10.4.3.3, digest
 * §7.3–§7.5) and enumeration responder (Scan PDUs, §10.4.3.2, digest §7.1).
 *
 * Management replies echo INI_TASSN (= MSN), INI_RC_ID (message queue), Code and Sub Code, set
 * RSP = 1 and a Status (§7.2 codes) and carry the response PDU of Table 10-11:
 *   Code 000/001 events          reply without PDU (EV-UBUS driver behaviour; cfg.no_event_reply: none)
 *   Code 010 configuration       16-byte Data PDU; two configuration spaces of cfg_dwords dwords,
 *                                Byte_En lane writes; addresses beyond: Status 0x22
 *   Code 011 VDM                 none (Table 10-11 defines no reply)
 *   Code 100 sub 0001 / 0010 / 0111   RSI (36 B), Entity information (8 B), Port_info TLVs
 *   Code 101 sub 0010 token check     TokenID / TokenValue (8 B)
 *   Code 110 sub 0000 / 0001     (de)registration answered once, without PDU (MG-05); others none
 *   anything else                Status 0x03 "wrong message code", no PDU
 * Enumeration: topology query -> Slice_info, Port_num, Port_info x k, Cap_info TLVs (slices of
 * cfg.ports_per_slice ports; a slice that does not exist: Status 0x26); Configure CNA (Primary, Port,
 * both) and Query CNA keep the CNAs; the response Forward Path is the request's Return Path. */
#include "peer_internal.h"

#include <stdio.h>

enum { ST_OK = 0x00, ST_WRONG_CODE = 0x03, ST_ADDR = 0x22, ST_ILLEGAL = 0x26 };

static int64_t delta_of(const ub_peer *p, unsigned kind)
{
    for (unsigned i = 0; i < p->nfaults; i++)
        if (p->fault[i].kind == kind) return p->fault[i].delta;
    return 1;
}

static uint32_t rsp_applicable(const peer_req *r, bool msn)
{
    return (1u << UB_PF_DROP) | (1u << UB_PF_DELAY) | (1u << UB_PF_DUPLICATE) | (1u << UB_PF_REORDER) |
           (msn ? 1u << UB_PF_WRONG_MSN : 0) | (1u << UB_PF_WRONG_OPCODE) | (1u << UB_PF_NO_RESPONSE) |
           (r->icrc > 0 ? 1u << UB_PF_CORRUPT_ICRC : 0) | (r->entry == UB_ENTRY_FLIT ? 1u << UB_PF_CORRUPT_BCRC : 0);
}

uint32_t ub_peer_cfg_space(const ub_peer *p, unsigned space, uint32_t dword)
{
    if (space > 1 || dword >= p->cfg.cfg_dwords) return 0;
    return p->cfgspace[(size_t)space * p->cfg.cfg_dwords + dword];
}

/* one Port_info TLV (Fig 10-29, R-30) for port i */
static int port_tlv(ub_peer *p, unsigned i)
{
    ub_builder *b = p->b;
    bool up = i < 32 && ((p->cfg.ports_up >> i) & 1);
    int e = ub_builder_header(b, "tlv_portinfo");
    e |= ub_builder_set_u64(b, "type", 2);
    e |= ub_builder_set_u64(b, "length", 28);
    e |= ub_builder_set_u64(b, "s", up);
    e |= ub_builder_set_u64(b, "local_port_idx", i);
    if (up) {
        e |= ub_builder_set_u64(b, "remote_port_idx", i);
        e |= ub_builder_set_bytes(b, "remote_guid", p->cfg.remote_guid, 16);
    }
    return e;
}

/* ================================================================ configuration management */
void peer_mg_request(ub_peer *p, peer_req *r)
{
    const ub_layer *g = r->mgmtetah;
    unsigned code = (unsigned)ub_fh_get(&p->f_mg_code, g), sub = (unsigned)ub_fh_get(&p->f_mg_sub, g);
    p->st.mgmt_requests++;
    unsigned status = ST_OK;
    enum { PDU_NONE, PDU_CFG, PDU_RSI, PDU_ENT, PDU_LNQ, PDU_TOKEN } pdu = PDU_NONE;
    uint32_t data = 0;
    bool reply = true;
    switch (code) {
    case 0: case 1: reply = !p->cfg.no_event_reply; break; /* events: the driver's reply without PDU */
    case 2: {
        if (sub > 3 || !r->mgpdu || r->mgpdu->hdr->id != UB_H_MG_CFG_REQ) { status = ST_WRONG_CODE; break; }
        unsigned space = sub >> 1;
        uint32_t a = (uint32_t)ub_fh_get(&p->f_cfg_addr, r->mgpdu);
        pdu = PDU_CFG;
        if (a >= p->cfg.cfg_dwords) { status = ST_ADDR; break; }
        uint32_t *reg = &p->cfgspace[(size_t)space * p->cfg.cfg_dwords + a];
        if (sub & 1) { /* write: Byte_En bit k enables Data bits [8k+7:8k] */
            unsigned be = (unsigned)ub_fh_get(&p->f_cfg_be, r->mgpdu);
            uint32_t d = (uint32_t)ub_fh_get(&p->f_cfg_data, r->mgpdu);
            for (unsigned k = 0; k < 4; k++)
                if ((be >> k) & 1) *reg = (*reg & ~(0xFFu << 8 * k)) | (d & (0xFFu << 8 * k));
        }
        data = *reg;
        break;
    }
    case 3: reply = false; break; /* VDM: no reply defined */
    case 4:
        if (sub == 1) pdu = PDU_RSI;
        else if (sub == 2) pdu = PDU_ENT;
        else if (sub == 7) pdu = PDU_LNQ;
        else status = ST_WRONG_CODE;
        break;
    case 5:
        if (sub == 2) pdu = PDU_TOKEN;
        else status = ST_WRONG_CODE;
        break;
    case 6: reply = sub <= 1; break; /* (de)registration answered once without PDU; notifications none */
    default: status = ST_WRONG_CODE; break;
    }
    if (!reply) return;
    uint32_t faults = p->nfaults ? peer_faults(p, r, UB_PT_RSP, rsp_applicable(r, true)) : 0;
    if (faults & (1u << UB_PF_NO_RESPONSE)) return;
    for (int rep = 0; rep < ((faults & (1u << UB_PF_DUPLICATE)) ? 2 : 1); rep++) {
        uint32_t psn = 0, tpmsn = 0;
        if (r->tp == UB_TP_RTP) { tpmsn = peer_tx_msn(p, r); psn = peer_tx_psn(p, r); }
        if (peer_begin(p, r, faults, true, psn, true, tpmsn) < 0) return;
        ub_builder *b = p->b;
        uint16_t msn = (uint16_t)ub_fh_get(&p->f_tassn, r->btah);
        if (faults & (1u << UB_PF_WRONG_MSN)) msn = (uint16_t)(msn + delta_of(p, UB_PF_WRONG_MSN));
        int e = ub_builder_header(b, r->btah->hdr->key);
        e |= ub_builder_set_u64(b, "taopcode", 0x10);
        {   /* EE_bits as the request had them (EV-UBUS sends 00, §6.1) */
            int k = ub_field_index(r->btah->hdr, "ee_bits");
            ub_val v;
            if (k >= 0 && ub_field_value(r->btah, &r->btah->hdr->fields[k], &v) == 0) e |= ub_builder_set_u64(b, "ee_bits", v.u);
        }
        e |= ub_builder_set_u64(b, "ini_tassn", msn);
        if (r->btah->hdr->id != UB_H_BTAH_C) {
            e |= ub_builder_set_u64(b, "ini_rc_type", ub_fh_get(&p->f_rctype, r->btah));
            e |= ub_builder_set_u64(b, "ini_rc_id", ub_fh_get(&p->f_rcid, r->btah));
        }
        e |= ub_builder_header(b, "mgmtetah");
        e |= ub_builder_set_u64(b, "code", code);
        e |= ub_builder_set_u64(b, "sub_code", (faults & (1u << UB_PF_WRONG_OPCODE)) ? sub ^ 1 : sub);
        e |= ub_builder_set_u64(b, "rsp", 1);
        e |= ub_builder_set_u64(b, "status", status);
        switch (pdu) {
        case PDU_CFG:
            e |= ub_builder_header(b, "mg_cfg_rsp");
            e |= ub_builder_set_u64(b, "data", data);
            break;
        case PDU_RSI:
            e |= ub_builder_header(b, "mg_rsi_rsp");
            break;
        case PDU_ENT:
            e |= ub_builder_header(b, "mg_entinfo_rsp");
            e |= ub_builder_set_u64(b, "mue_nums", 0);
            e |= ub_builder_set_u64(b, "entity_nums", 1);
            break;
        case PDU_TOKEN:
            e |= ub_builder_header(b, "mg_token_rsp");
            e |= ub_builder_set_u64(b, "tokenid", p->cfg.token_id & 0xFFFFF);
            e |= ub_builder_set_u64(b, "tokenvalue", p->cfg.token_value);
            break;
        case PDU_LNQ: { /* Port_info TLVs of the ports asked for (range Port_idx0..1, or a list) */
            const ub_layer *q = r->mgpdu && r->mgpdu->hdr->id == UB_H_MG_LNQ_REQ ? r->mgpdu : NULL;
            unsigned d = q ? (unsigned)ub_fh_get(&p->f_lnq_d, q) : 0, num = q ? (unsigned)ub_fh_get(&p->f_lnq_num, q) : 0;
            unsigned cnt = 0;
            char nm[16];
            if (d == 0 && q) {
                snprintf(nm, sizeof nm, "port_idx0");
                int k0 = ub_field_index(q->hdr, "port_idx0"), k1 = ub_field_index(q->hdr, "port_idx1");
                ub_val a, z;
                if (k0 >= 0 && k1 >= 0 && !ub_field_value(q, &q->hdr->fields[k0], &a) && !ub_field_value(q, &q->hdr->fields[k1], &z))
                    for (uint64_t i = a.u; i <= z.u && i < p->cfg.nports && cnt < 32; i++, cnt++) e |= port_tlv(p, (unsigned)i);
            } else if (q) {
                for (unsigned i = 0; i < num && i < 32; i++) {
                    snprintf(nm, sizeof nm, "port_idx%u", i);
                    int k = ub_field_index(q->hdr, nm);
                    ub_val v;
                    if (k >= 0 && !ub_field_value(q, &q->hdr->fields[k], &v) && v.u < p->cfg.nports) e |= port_tlv(p, (unsigned)v.u);
                }
            }
            break;
        }
        default: break;
        }
        if (e) { p->st.build_errors++; peer_set_err(p, ub_builder_error(b)); return; }
        long n = peer_finish(p);
        if (n < 0) return;
        p->st.mgmt_responses++;
        peer_emit(p, r, UB_PEER_OUT_RSP, faults, p->obuf, (uint32_t)n, psn);
        peer_sent_data(p, r, p->obuf, (uint32_t)n, psn, faults & ~(1u << UB_PF_DROP));
    }
}

/* ================================================================ enumeration */
void peer_enum_request(ub_peer *p, peer_req *r)
{
    const ub_layer *pdu = r->scanpdu;
    unsigned cmd = (unsigned)ub_fh_get(&p->f_sc_cmd, pdu), opcode = (unsigned)ub_fh_get(&p->f_sc_opcode, pdu);
    unsigned slice = (unsigned)ub_fh_get(&p->f_sc_b3, pdu);
    p->st.enum_requests++;
    unsigned status = ST_OK, nslices = (p->cfg.nports + p->cfg.ports_per_slice - 1) / p->cfg.ports_per_slice;
    if (!nslices) nslices = 1;
    uint32_t cna = 0;
    bool topo = false, qry = false;
    switch (cmd) {
    case 0:
        if (opcode != 1) status = ST_ILLEGAL;
        else if (slice >= nslices) status = ST_ILLEGAL;
        else topo = true;
        break;
    case 1: {
        const ub_layer *q = r->scan_sub && r->scan_sub->hdr->id == UB_H_SCAN_CFGCNA_REQ ? r->scan_sub : NULL;
        uint32_t v = (uint32_t)ub_fh_get(&p->f_sc_cna, q);
        unsigned port = (unsigned)ub_fh_get(&p->f_sc_port_cfg, q);
        if (!q || opcode < 2 || opcode > 4) status = ST_ILLEGAL;
        else if (opcode == 3 && port >= p->cfg.nports) status = ST_ILLEGAL;
        else if (opcode == 3) p->port_cna[port] = v;
        else {
            p->primary_cna = v;
            if (opcode == 4)
                for (unsigned i = 0; i < p->cfg.nports; i++) p->port_cna[i] = v;
        }
        break;
    }
    case 2: {
        const ub_layer *q = r->scan_sub && r->scan_sub->hdr->id == UB_H_SCAN_QRYCNA_REQ ? r->scan_sub : NULL;
        unsigned port = (unsigned)ub_fh_get(&p->f_sc_port_qry, q);
        qry = true;
        if (opcode == 2) cna = p->primary_cna;
        else if (opcode == 3 && port < p->cfg.nports) cna = p->port_cna[port];
        else status = ST_ILLEGAL;
        break;
    }
    default: status = ST_WRONG_CODE; break;
    }
    uint32_t faults = p->nfaults ? peer_faults(p, r, UB_PT_RSP, rsp_applicable(r, true)) : 0;
    if (faults & (1u << UB_PF_NO_RESPONSE)) return;
    ub_val gv, rp;
    uint8_t guid[16] = { 0 };
    int gk = ub_field_index(pdu->hdr, "guid");
    if (p->cfg.guid_set) memcpy(guid, p->cfg.guid, 16);
    else if (gk >= 0 && ub_field_value(pdu, &pdu->hdr->fields[gk], &gv) == 0 && gv.nbytes == 16) peer_guid_canon(gv.bytes, guid);
    bool have_rpath = false;
    if (r->scan_rpath) {
        int k = ub_field_index(r->scan_rpath->hdr, "return_path");
        have_rpath = k >= 0 && ub_field_value(r->scan_rpath, &r->scan_rpath->hdr->fields[k], &rp) == 0;
    }
    for (int rep = 0; rep < ((faults & (1u << UB_PF_DUPLICATE)) ? 2 : 1); rep++) {
        if (peer_begin(p, r, faults, false, 0, true, 0) < 0) return;
        ub_builder *b = p->b;
        int e = 0;
        if (r->upih) {
            e |= ub_builder_header(b, r->upih->hdr->key);
            int k = ub_field_index(r->upih->hdr, "upi");
            ub_val v;
            if (k >= 0 && !ub_field_value(r->upih, &r->upih->hdr->fields[k], &v)) e |= ub_builder_set_u64(b, "upi", v.u);
        }
        e |= ub_builder_header(b, "enumpad");
        /* Scan Header: R = 0, same Type and Hops, Forward Path = the request's Return Path (MG-02) */
        uint8_t sh[4 + 256];
        uint32_t shl = 4;
        memset(sh, 0, sizeof sh);
        if (have_rpath && rp.nbytes <= 256) { memcpy(sh + 4, rp.bytes, rp.nbytes); shl += rp.nbytes; }
        e |= ub_builder_header(b, "scanhdr");
        e |= ub_builder_set_bytes(b, "data", sh, shl);
        e |= ub_builder_set_u64(b, "r", 0);
        e |= ub_builder_set_u64(b, "type", ub_fh_get(&p->f_sh_type, r->scanhdr));
        e |= ub_builder_set_u64(b, "hops", ub_fh_get(&p->f_sh_hops, r->scanhdr));
        e |= ub_builder_set_u64(b, "step", 0);
        /* Scan PDU: MSGQ_ID and MSN echoed, the responder's GUID, Length in 4-byte units */
        unsigned ports_here = 0, first = slice * p->cfg.ports_per_slice;
        if (topo)
            for (unsigned i = first; i < p->cfg.nports && ports_here < p->cfg.ports_per_slice; i++) ports_here++;
        uint32_t bytes = 24 + (topo ? 4 + 8 + 28 * ports_here + 8 : 0) + (qry && !status ? 4 : 0);
        uint16_t msn = (uint16_t)ub_fh_get(&p->f_sc_msn, pdu);
        if (faults & (1u << UB_PF_WRONG_MSN)) msn = (uint16_t)(msn + delta_of(p, UB_PF_WRONG_MSN));
        e |= ub_builder_header(b, "scanpdu_rsp");
        e |= ub_builder_set_u64(b, "version", 1);
        e |= ub_builder_set_u64(b, "cmd", (faults & (1u << UB_PF_WRONG_OPCODE)) ? cmd ^ 1 : cmd);
        e |= ub_builder_set_u64(b, "opcode", 0);
        e |= ub_builder_set_u64(b, "status", status);
        e |= ub_builder_set_u64(b, "msgq_id", ub_fh_get(&p->f_sc_msgq, pdu));
        e |= ub_builder_set_u64(b, "length", bytes / 4);
        e |= ub_builder_set_u64(b, "msn", msn);
        e |= ub_builder_set_bytes(b, "guid", guid, 16);
        if (topo) {
            e |= ub_builder_header(b, "tlv_slice");
            e |= ub_builder_set_u64(b, "type", 0);
            e |= ub_builder_set_u64(b, "length", 4);
            e |= ub_builder_set_u64(b, "total_slice", nslices);
            e |= ub_builder_set_u64(b, "slice_id", slice);
            e |= ub_builder_header(b, "tlv_portnum");
            e |= ub_builder_set_u64(b, "type", 1);
            e |= ub_builder_set_u64(b, "length", 8);
            e |= ub_builder_set_u64(b, "total_num_ports", p->cfg.nports);
            e |= ub_builder_set_u64(b, "num_port_tlv", ports_here);
            for (unsigned i = 0; i < ports_here; i++) e |= port_tlv(p, first + i);
            e |= ub_builder_header(b, "tlv_capinfo");
            e |= ub_builder_set_u64(b, "type", 4);
            e |= ub_builder_set_u64(b, "length", 8);
            e |= ub_builder_set_u64(b, "sup_mtu", p->cfg.sup_mtu & 7);
            e |= ub_builder_set_u64(b, "mtu", p->cfg.cur_mtu & 7);
            e |= ub_builder_set_u64(b, "da", 1);
            e |= ub_builder_set_u64(b, "class_code", p->cfg.class_code);
        } else if (qry && !status) {
            e |= ub_builder_header(b, "scan_qrycna_rsp");
            e |= ub_builder_set_u64(b, "cna", cna & 0xFFFFFF);
        }
        if (e) { p->st.build_errors++; peer_set_err(p, ub_builder_error(b)); return; }
        long n = peer_finish(p);
        if (n < 0) return;
        p->st.enum_responses++;
        peer_emit(p, r, UB_PEER_OUT_RSP, faults, p->obuf, (uint32_t)n, 0);
    }
}
