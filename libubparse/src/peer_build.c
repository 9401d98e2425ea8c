/* Response framing for the reference responder: the request's encapsulation written back into the
 * incremental builder with the addresses swapped (Ethernet MACs, IP addresses, NTH CNAs, EIDs,
 * TPNs), in the request's entry form, with the ICRC the request had (R-15 byte order). Every value
 * goes through the schema (field names of the ub_field tables); lengths, NLPs, PLENGTH, padding,
 * checksums, BCRC and ICRC are the builder's. */
#include "peer_internal.h"

#include <stdio.h>

void peer_guid_canon(const uint8_t wire[16], uint8_t canon[16])
{
    for (int w = 0; w < 4; w++) memcpy(canon + 4 * w, wire + 4 * (3 - w), 4); /* R-34 word order */
}

/* copy field `from` of layer l into field `to` of the builder's current header */
static int copy_field(ub_builder *b, const ub_layer *l, const char *from, const char *to)
{
    int k = ub_field_index(l->hdr, from);
    if (k < 0) return 0; /* not in this table variant */
    const ub_field *f = &l->hdr->fields[k];
    ub_val v;
    if (ub_field_value(l, f, &v) != 0) return 0;
    if (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) return ub_builder_set_u64(b, to, v.u);
    if (f->type == UB_FT_GUID_WS && v.nbytes == 16) {
        uint8_t c[16];
        peer_guid_canon(v.bytes, c);
        return ub_builder_set_bytes(b, to, c, 16);
    }
    return ub_builder_set_bytes(b, to, v.bytes, v.nbytes);
}

static const char *entry_name(ub_entry e)
{
    switch (e) {
    case UB_ENTRY_FLIT: return "flit";
    case UB_ENTRY_PKT: return "pkt";
    case UB_ENTRY_SLL: return "sll";
    case UB_ENTRY_SLL2: return "sll2";
    case UB_ENTRY_CFGPH: return "cfgph";
    case UB_ENTRY_ETH: return "eth";
    case UB_ENTRY_RAWIP: return "rawip";
    case UB_ENTRY_TPH: return "tph";
    default: return NULL;
    }
}

static int encap_layer(ub_peer *p, const peer_req *r, const ub_layer *l)
{
    ub_builder *b = p->b;
    int e = 0;
    switch (l->hdr->id) {
    case UB_H_ETH:
        e |= ub_builder_header(b, "eth");
        e |= copy_field(b, l, "src", "dst");
        e |= copy_field(b, l, "dst", "src");
        e |= copy_field(b, l, "type", "type");
        break;
    case UB_H_VLAN: case UB_H_VLAN_S:
        e |= ub_builder_header(b, l->hdr->key);
        e |= copy_field(b, l, "pcp", "pcp");
        e |= copy_field(b, l, "dei", "dei");
        e |= copy_field(b, l, "vid", "vid");
        e |= copy_field(b, l, "type", "type");
        break;
    case UB_H_IPV4:
        e |= ub_builder_header(b, "ipv4");
        e |= copy_field(b, l, "src", "dst");
        e |= copy_field(b, l, "dst", "src");
        e |= copy_field(b, l, "dscp", "dscp");
        e |= copy_field(b, l, "ecn", "ecn");
        break;
    case UB_H_IPV6:
        e |= ub_builder_header(b, "ipv6");
        e |= copy_field(b, l, "src", "dst");
        e |= copy_field(b, l, "dst", "src");
        e |= copy_field(b, l, "traffic_class", "traffic_class");
        e |= copy_field(b, l, "flow_label", "flow_label");
        break;
    case UB_H_UDP: /* App. E: destination port 4792 both ways, the source port is the flow entropy */
        e |= ub_builder_header(b, "udp");
        e |= copy_field(b, l, "srcport", "srcport");
        break;
    case UB_H_LPH:
        e |= ub_builder_header(b, "lph");
        e |= copy_field(b, l, "vl", "vl");
        e |= copy_field(b, l, "rt", "rt");
        e |= copy_field(b, l, "cfg", "cfg");
        break;
    case UB_H_NTH16:
    case UB_H_NTH24:
        e |= ub_builder_header(b, l->hdr->key);
        e |= copy_field(b, l, "scna", "dcna");
        e |= copy_field(b, l, "dcna", "scna");
        e |= copy_field(b, l, "cci", "cci");
        e |= copy_field(b, l, "lbf", "lbf");
        e |= copy_field(b, l, "sl", "sl");
        /* Mgmt = 1 marks commands issued by UBFM (§10.4.3.1, MG-06): a node's response carries 0 */
        break;
    case UB_H_NTHIP:
        e |= ub_builder_header(b, "nthip");
        e |= copy_field(b, l, "cci", "cci");
        e |= copy_field(b, l, "npi_permission", "npi_permission");
        e |= copy_field(b, l, "npi_id", "npi_id");
        break;
    default: /* SLL/SLL2/CFGPH (the builder writes them from the LPH), LBH, BCRC, padding, ICRC: computed */
        break;
    }
    (void)r;
    return e;
}

int peer_begin(ub_peer *p, const peer_req *r, uint32_t faults, bool tp_hdr, uint32_t psn, bool last, uint32_t tpmsn)
{
    ub_builder *b = p->b;
    const char *en = entry_name(r->entry);
    if (!en) { peer_set_err(p, "entry point the peer cannot answer in"); p->st.build_errors++; return -1; }
    char line[64];
    const char *icrc = r->icrc == 2 ? " icrc=be" : r->icrc == 1 ? " icrc=le" : " icrc=none";
    if (r->icrc > 0 && (faults & (1u << UB_PF_CORRUPT_ICRC))) icrc = " icrc=bad";
    snprintf(line, sizeof line, "%s%s%s", en, icrc,
             (faults & (1u << UB_PF_CORRUPT_BCRC)) && r->entry == UB_ENTRY_FLIT ? " bcrc=bad" : "");
    int e = ub_builder_reset(b, line);
    if (r->entry == UB_ENTRY_SLL || r->entry == UB_ENTRY_SLL2 || r->entry == UB_ENTRY_CFGPH) {
        /* cooked forms: the builder takes the CFG from an LPH line */
        e |= ub_builder_header(b, "lph");
        e |= ub_builder_set_u64(b, "cfg", r->cfg >= 0 ? (uint64_t)r->cfg : 3);
    }
    unsigned n = r->v->nlayers < UB_MAX_LAYERS ? r->v->nlayers : UB_MAX_LAYERS;
    unsigned end = r->first_tp >= 0 ? (unsigned)r->first_tp : n;
    for (unsigned i = 0; i < end && !e; i++) {
        const ub_layer *l = &r->v->layer[i];
        if (l->flags & UB_LF_OVERLAY) continue;
        if ((r->entry == UB_ENTRY_SLL || r->entry == UB_ENTRY_SLL2 || r->entry == UB_ENTRY_CFGPH) && l->hdr->id == UB_H_LPH)
            continue;
        e |= encap_layer(p, r, l);
    }
    if (!e && tp_hdr) {
        if (r->tp == UB_TP_RTP) {
            e |= ub_builder_header(b, "rtph");
            e |= ub_builder_set_u64(b, "last", last);
            e |= ub_builder_set_u64(b, "srctpn", ub_fh_get(&p->f_dtpn, r->rtph));
            e |= ub_builder_set_u64(b, "dsttpn", ub_fh_get(&p->f_stpn, r->rtph));
            e |= ub_builder_set_u64(b, "psn", psn);
            e |= ub_builder_set_u64(b, "tpmsn", tpmsn);
        } else if (r->tp == UB_TP_UTP) {
            e |= ub_builder_header(b, "utph");
            e |= ub_builder_set_u64(b, "last", last);
        } else if (r->tp == UB_TP_CTP) {
            e |= ub_builder_header(b, "ctph");
        }
        if (r->upih) {
            e |= ub_builder_header(b, r->upih->hdr->key);
            e |= copy_field(b, r->upih, "upi", "upi");
        }
        if (r->eidh) {
            e |= ub_builder_header(b, r->eidh->hdr->key);
            e |= copy_field(b, r->eidh, "seid", "deid");
            e |= copy_field(b, r->eidh, "deid", "seid");
        }
    }
    if (e) {
        p->st.build_errors++;
        peer_set_err(p, ub_builder_error(b));
        return -1;
    }
    return 0;
}

long peer_finish(ub_peer *p)
{
    ub_entry ent;
    long n = ub_builder_finish(p->b, p->obuf, sizeof p->obuf, &ent);
    if (n < 0) {
        p->st.build_errors++;
        peer_set_err(p, ub_builder_error(p->b));
    }
    return n;
}
