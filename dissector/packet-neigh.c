/* packet-neigh.c — the neighbouring interconnects of docs/neighbours.md in Wireshark: SUE / RC Link
 * (document 004) and PCIe 6 flits (document 003), as protocols "sue" and "pcieflit", and the audit
 * findings of the shared reliable-transport core on them and on RoCEv2 as expert infos.
 *
 * Glue only: the items are generated from libubparse's schema tables (packet-ub-fields.c, the same rows
 * as ubdump's sue.* / pcieflit.* names), every frame is decoded by ub_decode() from its link layer as
 * ubdump does, and UDP 4791 is split by the library's one rule (ub_udp4791_kind): RoCEv2 goes to
 * Wireshark's own InfiniBand dissector, SUE is shown here. Entry points:
 *   UDP port 4791 (and ubdump's sue.port)          RoCEv2 (handed on) or SUE Standard framing
 *   EtherTypes sue.ethertype1/2 (0x88B5/0x88B6)     SUE AFH_GEN1 / AFH_GEN2_16b
 *   link type dlt.pcieflit (150, LINKTYPE_USER3)    PCIe 6 flit dumps */
#include <string.h>

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/expert.h>
#include <wiretap/wtap.h>
#include <wiretap/pcap-encap.h>

#include <ubparse/audit.h>
#include <ubparse/ubparse.h>

#include "packet-ub.h"

/* The three views: SUE, PCIe flits, and the RoCEv2 audit (its fields are Wireshark's infiniband.*). */
enum { NP_SUE, NP_FLIT, NP_IB, NP__N };
static int proto_nb[NP__N] = { -1, -1, -1 };
static gint ett_nb[NP__N] = { -1, -1, -1 };
/* findings: one expert item per (group, severity) and view, named "<proto>.analysis.finding" */
static expert_field ei_nb[NP__N][4][3];
static dissector_handle_t h_udp, h_eth, h_flit, h_data, h_ib_udp;
static guint reg_port, reg_et[2], reg_dlt; /* what the handoff registered (re-registered on a change) */

/* The frame's link type as ubdump reads it (only link types that reach UDP or an EtherType). */
static guint32 frame_linktype(packet_info *pinfo)
{
    static const guint32 lts[] = { 1, 113, 276, 101, 228, 229 };
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET) return 0;
    for (guint i = 0; i < G_N_ELEMENTS(lts); i++)
        if (wtap_pcap_encap_to_wtap_encap((int)lts[i]) == pinfo->rec->rec_header.packet_header.pkt_encap) return lts[i];
    return 0;
}

/* The whole frame decoded from its link layer (as ubdump and its audit see it), NULL when tvb is not a
 * plain part of a frame of such a link type. *frame / *ds: the frame's bytes and tvb (items go there). */
static ub_view *frame_view(tvbuff_t *tvb, packet_info *pinfo, tvbuff_t **ds, const guint8 **frame)
{
    guint32 lt = frame_linktype(pinfo);
    *ds = tvb_get_ds_tvb(tvb);
    if (!lt || !*ds) return NULL;
    guint32 flen = tvb_captured_length(*ds), len = tvb_captured_length(tvb);
    gint roff = tvb_raw_offset(tvb);
    if (flen == 0 || len == 0 || roff < 0 || (guint32)roff + len > flen) return NULL;
    *frame = tvb_get_ptr(*ds, 0, (gint)flen);
    if (tvb_get_ptr(tvb, 0, (gint)len) != *frame + roff) return NULL; /* not a plain part of the frame */
    ub_view *v = ub_ws_view_new(pinfo);
    guint32 wire = tvb_reported_length(*ds);
    ub_decode_wire(v, ub_ws_opts(), ub_entry_for_linktype(ub_ws_opts(), lt), *frame, flen, wire > flen ? wire : flen);
    return v;
}

/* Does the view have header hdr_id where tvb starts? */
static gboolean starts_here(const ub_view *v, unsigned hdr_id, tvbuff_t *tvb)
{
    guint32 len = tvb_captured_length(tvb);
    const guint8 *p = len ? tvb_get_ptr(tvb, 0, (gint)len) : NULL;
    unsigned nl = v && p ? (v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers) : 0;
    for (unsigned i = 0; i < nl; i++)
        if (v->layer[i].hdr && v->layer[i].hdr->id == hdr_id && v->layer[i].data == p) return TRUE;
    return FALSE;
}

/* The engine's findings at this frame as expert infos under `tree` (the first pass fed it the view); with
 * no tree, under a generated item of the view's protocol made for the first finding (RoCEv2). */
typedef struct find_ctx {
    packet_info *pinfo;
    proto_tree *tree, *parent;
    tvbuff_t *tvb;
    int np;
} find_ctx;

static void find_cb(void *ctx, int group, int sev, const char *text)
{
    find_ctx *c = ctx;
    if (!c->tree) {
        proto_item *ai = proto_tree_add_item(c->parent, proto_nb[c->np], c->tvb, 0, 0, ENC_NA);
        proto_item_set_generated(ai);
        c->tree = proto_item_add_subtree(ai, ett_nb[c->np]);
    }
    int g = group == PI_SEQUENCE ? 0 : group == PI_PROTOCOL ? 1 : group == PI_MALFORMED ? 2 : 3;
    int s = sev == PI_NOTE ? 0 : sev == PI_WARN ? 1 : 2;
    proto_tree_add_expert_format(c->tree, c->pinfo, &ei_nb[c->np][g][s], c->tvb, 0, 0, "%s", text);
}

static void audit(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *parent, const ub_view *v, int np)
{
    ub_an_feed(pinfo, v);
    find_ctx c = { pinfo, tree, parent, tvb, np };
    ub_an_findings(pinfo, find_cb, &c);
}

/* The view's sue.* / pcieflit.* layers as items (placed in `ds`, the bytes given to ub_decode), the
 * SUE payload to the data dissector; columns. Returns the protocol's tree. */
static proto_tree *show(tvbuff_t *tvb, tvbuff_t *ds, const guint8 *base, packet_info *pinfo, proto_tree *tree,
                        const ub_view *v, int np)
{
    char sum[512];
    col_set_str(pinfo->cinfo, COL_PROTOCOL, np == NP_SUE ? "SUE" : "PCIe flit");
    if (pinfo->cinfo && ub_neigh_summary(v, sum, sizeof sum)) {
        col_clear(pinfo->cinfo, COL_INFO);
        col_add_str(pinfo->cinfo, COL_INFO, sum);
    }
    proto_item *top = proto_tree_add_item(tree, proto_nb[np], tvb, 0, -1, ENC_NA);
    proto_tree *nt = proto_item_add_subtree(top, ett_nb[np]);
    guint32 blen = tvb_captured_length(ds);
    proto_tree *stk[8] = { nt }; /* stk[d]: subtree of the newest layer at depth d - base + 1 */
    int base_depth = -1;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr || l->data < base || l->data > base + blen || l->len > blen - (guint32)(l->data - base)) continue;
        gint off = (gint)(l->data - base), len = (gint)l->len;
        if (l->hdr->id == UB_H_DATA && base_depth >= 0) { /* the opaque SUE payload */
            if (h_data && len > 0) call_dissector(h_data, tvb_new_subset_length(ds, off, len), pinfo, tree);
            continue;
        }
        int slot = ub_hdr_hf_slot[l->hdr->id];
        if (slot < 0 || !ub_hdr_foreign(l->hdr)) continue;
        if (base_depth < 0) base_depth = l->depth;
        int d = (int)l->depth - base_depth;
        if (d < 0 || d > 6) d = 0;
        proto_tree *parent = stk[d] ? stk[d] : nt;
        if (!ub_layer_summary(l, sum, sizeof sum)) g_strlcpy(sum, l->hdr->name ? l->hdr->name : "?", sizeof sum);
        proto_item *li = proto_tree_add_none_format(parent, ub_hf_ids[slot], ds, off, len, "%s", sum);
        proto_tree *sub = proto_item_add_subtree(li, ub_ett_hdr[l->hdr->id] >= 0 ? ub_ett_hdr[l->hdr->id] : ett_nb[np]);
        stk[d + 1] = sub;
        ub_ws_add_layer_fields(sub, l, ds, off, len, pinfo);
    }
    audit(tvb, pinfo, nt, NULL, v, np);
    return nt;
}

/* UDP 4791 (and sue.port): RoCEv2 or SUE by the library's rule, the frame decoded as ubdump does. */
static int dissect_udp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    tvbuff_t *ds = NULL;
    const guint8 *frame = NULL;
    ub_view *v = frame_view(tvb, pinfo, &ds, &frame);
    if (starts_here(v, UB_H_SUE_RH, tvb)) {
        show(tvb, ds, frame, pinfo, tree, v, NP_SUE);
        return (int)tvb_captured_length(tvb);
    }
    if (starts_here(v, UB_H_IB_BTH, tvb)) /* RoCEv2: the IB RC audit, first (the IB dissector may throw) */
        audit(tvb, pinfo, NULL, tree, v, NP_IB);
    int n = h_ib_udp ? call_dissector_with_data(h_ib_udp, tvb, pinfo, tree, data) : 0;
    return n;
}

/* The AFH EtherTypes: the frame from its Ethernet header (the AFH MAC header re-describes the addresses). */
static int dissect_eth(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    tvbuff_t *ds = NULL;
    const guint8 *frame = NULL;
    ub_view *v = frame_view(tvb, pinfo, &ds, &frame);
    if (!starts_here(v, UB_H_SUE_RH, tvb)) return 0;
    show(tvb, ds, frame, pinfo, tree, v, NP_SUE);
    return (int)tvb_captured_length(tvb);
}

/* PCIe flit dumps: whole 256-byte flits per record. */
static int dissect_flit(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    dissector_handle_t user = ub_ws_user_dlt(reg_dlt); /* a DLT_USER table entry for the DLT wins */
    if (user) return call_dissector_with_data(user, tvb, pinfo, tree, data);
    guint32 len = tvb_captured_length(tvb), wire = tvb_reported_length(tvb);
    static const guint8 empty[1] = { 0 };
    const guint8 *p = len ? tvb_get_ptr(tvb, 0, (gint)len) : empty;
    ub_view *v = ub_ws_view_new(pinfo);
    ub_decode_wire(v, ub_ws_opts(), UB_ENTRY_PCIEFLIT, p, len, wire > len ? wire : len);
    show(tvb, tvb, p, pinfo, tree, v, NP_FLIT);
    return (int)len;
}

void proto_register_ub_neigh(void)
{
    static const char *const names[NP__N][3] = {
        { "SUE RC Link transport (not UB; document 004)", "SUE", "sue" },
        { "PCIe 6 flit link layer (not UB; document 003)", "PCIe flit", "pcieflit" },
        { "InfiniBand RC audit (ubscope, not UB)", "IB RC audit", "ibrc_audit" },
    };
    static const int grp[4] = { PI_SEQUENCE, PI_PROTOCOL, PI_MALFORMED, PI_CHECKSUM };
    static const int sev[3] = { PI_NOTE, PI_WARN, PI_ERROR };
    static gint *etts[NP__N] = { &ett_nb[0], &ett_nb[1], &ett_nb[2] };
    for (int np = 0; np < NP__N; np++) {
        proto_nb[np] = proto_register_protocol(names[np][0], names[np][1], names[np][2]);
        ei_register_info *eis = g_new0(ei_register_info, 12);
        char *nm = g_strdup_printf("%s.analysis.finding", names[np][2]);
        for (int k = 0; k < 12; k++) {
            ei_nb[np][k / 3][k % 3].ei = EI_INIT_EI;
            ei_nb[np][k / 3][k % 3].hf = EI_INIT_HF;
            eis[k] = (ei_register_info){ &ei_nb[np][k / 3][k % 3], { nm, grp[k / 3], sev[k % 3], "Reliable-transport audit finding (ubscope)", EXPFILL } };
        }
        expert_register_field_array(expert_register_protocol(proto_nb[np]), eis, 12);
    }
    proto_register_subtree_array(etts, NP__N);
    /* the schema rows (packet-ub-fields.c, built by proto_register_ub): sue.* under "sue", pcieflit.* under "pcieflit" */
    GArray *per[2] = { g_array_new(FALSE, TRUE, sizeof(hf_register_info)), g_array_new(FALSE, TRUE, sizeof(hf_register_info)) };
    for (guint i = 0; ub_hf_neigh && i < ub_hf_neigh->len; i++) {
        hf_register_info *r = &g_array_index(ub_hf_neigh, hf_register_info, i);
        g_array_append_val(per[strncmp(r->hfinfo.abbrev, "sue.", 4) == 0 ? 0 : 1], *r);
    }
    for (int k = 0; k < 2; k++) /* the arrays stay: Wireshark keeps pointers into them */
        proto_register_field_array(proto_nb[k], (hf_register_info *)(void *)per[k]->data, (int)per[k]->len);
    h_udp = register_dissector("sue.udp", dissect_udp, proto_nb[NP_SUE]);
    h_eth = register_dissector("sue.afh", dissect_eth, proto_nb[NP_SUE]);
    h_flit = register_dissector("pcieflit", dissect_flit, proto_nb[NP_FLIT]);
    /* the options of docs/neighbours.md: sue.* / pcieflit.* here, the others under "ub" (packet-neigh-prefs.c) */
    ub_neigh_register_prefs(prefs_find_module("ub"), prefs_register_protocol(proto_nb[NP_SUE], ub_ws_apply_prefs),
                            prefs_register_protocol(proto_nb[NP_FLIT], ub_ws_apply_prefs));
}

/* (Re-)register the ports, EtherTypes and link type of the options in force (prefs change them). */
void ub_neigh_apply(void)
{
    if (!h_udp) return;
    const ub_opts *o = ub_ws_opts();
    if (reg_port != o->sue_port) {
        if (reg_port && reg_port != 4791) dissector_delete_uint("udp.port", reg_port, h_udp);
        reg_port = o->sue_port;
        if (reg_port && reg_port != 4791) dissector_add_uint("udp.port", reg_port, h_udp);
    }
    for (int i = 0; i < 2; i++) {
        if (reg_et[i] == o->sue_ethertype[i]) continue;
        if (reg_et[i]) dissector_delete_uint("ethertype", reg_et[i], h_eth);
        reg_et[i] = o->sue_ethertype[i];
        if (reg_et[i]) dissector_add_uint("ethertype", reg_et[i], h_eth);
    }
    if (reg_dlt != o->dlt_pcieflit) {
        int we = reg_dlt ? wtap_pcap_encap_to_wtap_encap((int)reg_dlt) : -1;
        if (we > 0) dissector_delete_uint("wtap_encap", (guint32)we, h_flit);
        reg_dlt = o->dlt_pcieflit;
        we = reg_dlt ? wtap_pcap_encap_to_wtap_encap((int)reg_dlt) : -1;
        if (we > 0) dissector_add_uint("wtap_encap", (guint32)we, h_flit);
    }
}

void proto_reg_handoff_ub_neigh(void)
{
    dissector_table_t udp = find_dissector_table("udp.port");
    h_ib_udp = udp ? dissector_get_uint_handle(udp, 4791) : NULL; /* Wireshark's RoCEv2 (InfiniBand) */
    if (!h_ib_udp) h_ib_udp = find_dissector("infiniband");
    h_data = find_dissector("data");
    dissector_add_uint("udp.port", 4791, h_udp);
    ub_neigh_apply();
}
