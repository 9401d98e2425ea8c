/* State-engine module "ta", management part (digest §10.5, checker defaults §10.6 e): MGMTETAH
 * exchanges (Configuration, Entity Information, Device Security, Entity (De)Registration, events)
 * and enumeration Scan PDUs, keyed (initiator, target, MSN) [+ GUID before CNAs exist]; the module's
 * state and entry points are in st_ta.c. */
#include "st_ta_int.h"

#include <stdio.h>
#include <stdlib.h>

/* ================================================================ management */
static void mg_ring_reply(mod_ta *m, const ub_pkt *p, rc_ent *rc, ring_ent *e, unsigned cs, uint32_t rcid, unsigned status,
                          unsigned plen, uint32_t hash, const kt_t *kt)
{
    unsigned code = e->op >> 4;
    if (e->op != cs)
        ub_ta_emit(m, UB_R_MG_MISMATCH, -1, p->pi->frame, e->req_frame, 0, e->op, cs, 2, "Code / Sub Code not echoed (values: Code << 4 | Sub Code)",
             "management", kt);
    if (e->aux != rcid)
        ub_ta_emit(m, UB_R_MG_MISMATCH, -1, p->pi->frame, e->req_frame, 0, e->aux, rcid, 2, "INI_RC_ID (message queue) not echoed",
             "management", kt);
    if (status)
        ub_ta_emit(m, UB_R_MG_STATUS, -1, p->pi->frame, e->req_frame, 0, status, 0, 1, "management response reports an error status",
             "management", kt);
    if (plen && (code == 0 || code == 1 || code == 6))
        ub_ta_emit(m, UB_R_MG_EVENTS, -1, p->pi->frame, e->req_frame, 0, code, e->op & 15, 2,
             "event / pooled-resource notification answered with a PDU (response PDU: none)", "management", kt);
    ub_ta_send_match(m, e->req_frame, e->req_ts, p->pi->frame, p->pi->ts_ns, 1, (uint16_t)(0x10 | code << 8));
    e->flags |= R_ANSWERED;
    e->rsp_frame = p->pi->frame;
    e->rsp_hash = hash;
    (void)rc;
}

static void mg_orphan(mod_ta *m, const ub_pkt *p, const ub_key *rk, uint16_t msn, uint32_t hash, const kt_t *kt)
{
    rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, rk);
    ring_ent *e = ub_ta_ring_find(rc, msn);
    if (e && (e->flags & R_ANSWERED)) {
        if (flit_entry(p) && e->rsp_hash == hash) return; /* DLL replay (§10.6 d) */
        ub_ta_emit(m, UB_R_MG_DUP_RESPONSE, -1, p->pi->frame, e->req_frame, e->rsp_frame, msn, 0, 1,
             "management request answered more than once", "management", kt);
        return;
    }
    if (rc && rc->has_newest && sn_newer(msn, rc->newest))
        ub_ta_emit(m, UB_R_MG_UNSOLICITED, UB_SEV_ERROR, p->pi->frame, 0, 0, msn, rc->newest, 2,
             "management response for an MSN the requester has not sent yet", "management", kt);
    else
        ub_ta_emit(m, UB_R_MG_UNSOLICITED, -1, p->pi->frame, 0, 0, msn, 0, 1, "management response without its request in the capture",
             "management", kt);
}

static void mg_answered(mod_ta *m, const ub_key *rk, const mg_ent *c, uint64_t rsp_frame, uint32_t hash)
{
    rc_ent *rc = ub_ta_rc_get(m, rk);
    if (!rc) return;
    ring_ent *e = ub_ta_ring_push(rc, c->msn);
    e->op = c->code;
    e->flags = R_ANSWERED;
    e->aux = c->aux;
    e->req_frame = c->frame;
    e->req_ts = c->ts;
    e->rsp_frame = rsp_frame;
    e->rsp_hash = hash;
}

/* configuration management (BTAH 0x10 + MGMTETAH): key (initiator, target, MSN = INI_TASSN) */
void ub_mg_config(mod_ta *m, const ub_pkt *p)
{
    const ub_layer *g = p->mgmtetah, *b = p->btah;
    if (!ub_fh_has(&m->mg_len, g)) return;
    unsigned code = (unsigned)fget(&m->mg_code, g), sub = (unsigned)fget(&m->mg_sub, g);
    bool rsp = fget(&m->mg_rsp, g);
    unsigned status = (unsigned)fget(&m->mg_status, g), plen = (unsigned)fget(&m->mg_len, g);
    uint16_t msn = (uint16_t)fget(&m->bt_tassn, b);
    uint32_t rcid = b->hdr->id == UB_H_BTAH_C ? 0 : (uint32_t)fget(&m->bt_rcid, b);
    uint8_t cs = (uint8_t)(code << 4 | sub);
    ub_key rk, k;
    kt_t kt[1];
    uint64_t frame = p->pi->frame, ts = p->pi->ts_ns;
    if (!rsp) {
        if (m->ta_on) { /* TA-04: a transaction response (ATAH) to a Management request is unexpected */
            ub_ta_rc_key(m, &rk, 'T', &p->src, p->seid, &p->dst, p->deid, rcid, 0);
            rc_ent *tr = ub_ta_rc_get(m, &rk);
            if (tr) {
                ring_ent *e = ub_ta_ring_push(tr, msn);
                e->op = 0x10;
                e->flags = R_NONE;
                e->req_frame = frame;
                e->req_ts = ts;
            }
        }
        ub_ta_rc_key(m, &rk, 'M', &p->src, p->seid, &p->dst, p->deid, RCK_MGMT, 0);
        ub_ta_kt_ep(kt, &p->src, &p->dst, "MSN", RCK_MGMT, msn);
        /* MG-04/MG-05: replies needed for Configuration, Entity Information and Device Security
         * messages; Entity (De)Registration must be answered once; events, the other pooled
         * notifications and VDMs take none (the HiSilicon driver replies anyway, without a PDU) */
        unsigned need = (code == 2 || code == 4 || code == 5) ? MN_RSP : (code == 6 && sub <= 1) ? MN_REG : MN_NONE;
        rc_ent *rc = ub_ta_rc_get(m, &rk);
        if (rc) ub_ta_rc_sent(rc, msn);
        if (need == MN_NONE) {
            if (!rc) return;
            ring_ent *e = ub_ta_ring_push(rc, msn);
            e->op = cs;
            e->flags = R_NONE;
            e->aux = rcid;
            e->req_frame = frame;
            e->req_ts = ts;
            return;
        }
        ub_ta_key_sn(&k, &rk, msn);
        bool created = false;
        mg_ent *e = (mg_ent *)ub_tbl_get(&m->mg, &k, &created);
        if (!e) return;
        if (!created) { e->last_ts = ts; return; } /* software retry of the same message */
        e->frame = frame;
        e->ts = e->last_ts = ts;
        e->aux = rcid;
        e->msn = msn;
        e->kind = 'M';
        e->code = cs;
        e->need = (uint8_t)need;
        return;
    }
    ub_ta_rc_key(m, &rk, 'M', &p->dst, p->deid, &p->src, p->seid, RCK_MGMT, 0);
    ub_ta_kt_ep(kt, &p->dst, &p->src, "MSN", RCK_MGMT, msn);
    uint32_t hash = ub_ta_pkt_hash(p, b);
    ub_ta_key_sn(&k, &rk, msn);
    mg_ent *e = (mg_ent *)ub_tbl_find(&m->mg, &k);
    if (e) {
        mg_ent c = *e;
        ub_tbl_remove(&m->mg, e);
        if (c.code != cs)
            ub_ta_emit(m, UB_R_MG_MISMATCH, -1, frame, c.frame, 0, c.code, cs, 2, "Code / Sub Code not echoed (values: Code << 4 | Sub Code)",
                 "management", kt);
        if (c.aux != rcid)
            ub_ta_emit(m, UB_R_MG_MISMATCH, -1, frame, c.frame, 0, c.aux, rcid, 2, "INI_RC_ID (message queue) not echoed", "management", kt);
        if (status)
            ub_ta_emit(m, UB_R_MG_STATUS, -1, frame, c.frame, 0, status, 0, 1, "management response reports an error status", "management", kt);
        if (c.need == MN_REG && plen)
            ub_ta_emit(m, UB_R_MG_EVENTS, -1, frame, c.frame, 0, c.code >> 4, c.code & 15, 2,
                 "Entity (De)Registration answered with a PDU (response PDU: none)", "management", kt);
        ub_ta_send_match(m, c.frame, c.ts, frame, ts, 1, (uint16_t)(0x10 | (c.code >> 4) << 8));
        mg_answered(m, &rk, &c, frame, hash);
        return;
    }
    rc_ent *rc = (rc_ent *)ub_tbl_find(&m->rc, &rk);
    ring_ent *re = ub_ta_ring_find(rc, msn);
    if (re && !(re->flags & R_ANSWERED) && (re->flags & R_NONE)) {
        mg_ring_reply(m, p, rc, re, cs, rcid, status, plen, hash, kt);
        return;
    }
    mg_orphan(m, p, &rk, msn, hash, kt);
}

static uint64_t path_hash(const ub_val *v) { return fnv(v->bytes, v->nbytes) ^ v->nbytes; }

/* enumeration (Scan PDU): key (initiator, target, MSN) + GUID while the CNAs are 0 */
void ub_mg_scan(mod_ta *m, const ub_pkt *p)
{
    const ub_layer *pdu = p->scanpdu, *sh = p->scanhdr;
    if (!ub_fh_has(&m->sc_msn, pdu) || !ub_fh_has(&m->sh_hops, sh)) return;
    bool req = pdu->hdr->id == UB_H_SCANPDU_REQ;
    uint16_t msn = (uint16_t)fget(&m->sc_msn, pdu);
    unsigned cmd = (unsigned)fget(&m->sc_cmd, pdu), msgq = (unsigned)fget(&m->sc_msgq, pdu);
    unsigned type = (unsigned)fget(&m->sh_type, sh), hops = (unsigned)fget(&m->sh_hops, sh);
    ub_val gv;
    bool has_guid = fbytes(&m->sc_guid, pdu, &gv);
    uint64_t guid = has_guid ? fnv(gv.bytes, gv.nbytes) : 0;
    bool zero = addr_zero(&p->src) && addr_zero(&p->dst);
    uint64_t extra = zero ? guid : 0;
    ub_key rk, k;
    kt_t kt[1];
    uint64_t frame = p->pi->frame, ts = p->pi->ts_ns;
    if (req) {
        ub_ta_rc_key(m, &rk, 'S', &p->src, p->seid, &p->dst, p->deid, RCK_MGMT, extra);
        ub_ta_kt_ep(kt, &p->src, &p->dst, "MSN", RCK_MGMT, msn);
        rc_ent *rc = ub_ta_rc_get(m, &rk);
        if (rc) ub_ta_rc_sent(rc, msn);
        ub_ta_key_sn(&k, &rk, msn);
        bool created = false;
        mg_ent *e = (mg_ent *)ub_tbl_get(&m->mg, &k, &created);
        if (!e) return;
        if (!created) { e->last_ts = ts; return; } /* management software retry */
        ub_val rv;
        e->frame = frame;
        e->ts = e->last_ts = ts;
        e->aux = msgq;
        e->msn = msn;
        e->kind = 'S';
        e->code = (uint8_t)cmd;
        e->need = MN_RSP;
        e->type = (uint8_t)type;
        e->hops = (uint8_t)hops;
        e->slice = (uint8_t)fget(&m->sc_slice, pdu);
        e->guid = guid;
        e->guid_keyed = zero;
        e->guid_cut = zero && !has_guid && p->cut;
        e->has_rpath = fbytes(&m->sh_rpath, p->scan_rpath, &rv);
        e->path_hash = e->has_rpath ? path_hash(&rv) : 0;
        return;
    }
    ub_ta_rc_key(m, &rk, 'S', &p->dst, p->deid, &p->src, p->seid, RCK_MGMT, extra);
    ub_ta_kt_ep(kt, &p->dst, &p->src, "MSN", RCK_MGMT, msn);
    ub_ta_key_sn(&k, &rk, msn);
    mg_ent *e = (mg_ent *)ub_tbl_find(&m->mg, &k);
    if (!e && zero && has_guid) { /* a request cut by the snapshot length before its GUID: keyed without */
        ub_key rk0, k0;
        ub_ta_rc_key(m, &rk0, 'S', &p->dst, p->deid, &p->src, p->seid, RCK_MGMT, 0);
        ub_ta_key_sn(&k0, &rk0, msn);
        mg_ent *e0 = (mg_ent *)ub_tbl_find(&m->mg, &k0);
        if (e0 && e0->guid_cut) e = e0, rk = rk0;
    }
    uint32_t hash = ub_ta_pkt_hash(p, sh);
    if (!e) { mg_orphan(m, p, &rk, msn, hash, kt); return; }
    mg_ent c = *e;
    ub_tbl_remove(&m->mg, e);
    /* MG-03: response echoes MSGQ_ID, MSN (key) and CMD */
    if (c.code != cmd)
        ub_ta_emit(m, UB_R_MG_MISMATCH, -1, frame, c.frame, 0, c.code, cmd, 2, "Scan PDU CMD not echoed", "management", kt);
    if (c.aux != msgq)
        ub_ta_emit(m, UB_R_MG_MISMATCH, -1, frame, c.frame, 0, c.aux, msgq, 2, "Scan PDU MSGQ_ID not echoed", "management", kt);
    /* MG-02: response Forward Path = request Return Path, same Type and Hops */
    ub_val fv;
    bool fpath = fbytes(&m->sh_fpath, sh, &fv);
    if (c.type != type || c.hops != hops)
        ub_ta_emit(m, UB_R_MG_SCAN_HEADER, -1, frame, c.frame, 0, hops, c.hops, 2,
             "response Scan Header Type/Hops differ from the request's", "management", kt);
    else if (c.has_rpath && fpath && path_hash(&fv) != c.path_hash)
        ub_ta_emit(m, UB_R_MG_SCAN_HEADER, -1, frame, c.frame, 0, hops, c.hops, 2,
             "response Forward Path is not the request's Return Path", "management", kt);
    /* MG-03: the responder is the node the request named; Slice_info returns the slice asked for */
    if (!c.guid_keyed && guid != c.guid)
        ub_ta_emit(m, UB_R_MG_SCAN_PDU, UB_SEV_WARN, frame, c.frame, 0, 0, 0, 0,
             "responder GUID differs from the request's destination GUID", "management", kt);
    if (cmd == 0 && c.code == 0) {
        for (unsigned i = 0; i < p->v->nlayers && i < UB_MAX_LAYERS; i++) {
            const ub_layer *l = &p->v->layer[i];
            if (l->hdr->id != UB_H_TLV_SLICE) continue;
            if (ub_fh_has(&m->tlv_slice, l) && fget(&m->tlv_slice, l) != c.slice)
                ub_ta_emit(m, UB_R_MG_SCAN_PDU, -1, frame, c.frame, 0, (int64_t)fget(&m->tlv_slice, l), c.slice, 2,
                     "Slice_info.Slice_ID differs from the requested Slice_ID", "management", kt);
            break;
        }
    }
    unsigned status = (unsigned)fget(&m->sc_status, pdu);
    if (status)
        ub_ta_emit(m, UB_R_MG_STATUS, -1, frame, c.frame, 0, status, 0, 1, "Scan PDU response reports an error status", "management", kt);
    ub_ta_send_match(m, c.frame, c.ts, frame, ts, 1, (uint16_t)(MATCH_SCAN | (MATCH_SCAN_CODE + c.code) << 8));
    mg_answered(m, &rk, &c, frame, hash);
}

