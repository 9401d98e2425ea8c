/* packet-ub.c — Wireshark 4.0 dissector for UnifiedBus (UB 2.0, 灵衢) built on libubparse.
 *
 * Nothing about the UB wire format is written here: every header and field item is generated at
 * start-up from libubparse's schema tables (ub_hdr_get()), every expert item from its error
 * catalogue (ub_err_get()), and every packet is decoded by ub_decode() into a ub_view whose
 * layers are then turned into Wireshark tree items.  Field abbrevs are the schema's ("ub.lph.cfg"),
 * i.e. the same names ubdump's filters use.
 *
 * Entry points (docs/wireshark.md):
 *   LINKTYPE_USER0/1/2 (147/148/149, configurable)  flit record / LPH packet / raw flit stream
 *   Linux cooked captures (SLL, SLL2) with ARPHRD_UB 38  1-byte CFG pseudo-header + packet
 *   UDP port 4792 (Decode As)                         UBoE: RTPH/UTPH ... (UB_ENTRY_TPH)
 *   strict heuristic on UDP (preference)
 */
#include <string.h>

#include <wireshark.h>
#include <epan/packet.h>
#include <epan/column-info.h>
#include <epan/expert.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/uat.h>
#include <epan/uat-int.h>
#include <epan/wmem_scopes.h>
#include <wiretap/wtap.h>
#include <wiretap/pcap-encap.h>

#include <ubparse/expert.h>
#include <ubparse/filter.h>
#include <ubparse/ubparse.h>

#include "packet-ub.h"

/* 4.0's epan/arptypes.h has no ARPHRD_UB. */
#ifndef ARPHRD_UB
#define ARPHRD_UB UB_ARPHRD_UB /* 38, EV-LINUX ubl.h */
#endif

/* ------------------------------------------------------------------------------------------ */
/* Registration state (written once in proto_register_ub, read-only afterwards)                */
/* ------------------------------------------------------------------------------------------ */

static int proto_ub = -1;
static gint ett_ub = -1;
static int hf_ub_error = -1;

static expert_field *ei_ub;              /* [UB_E__COUNT] */

/* ------------------------------------------------------------------------------------------ */
/* Preferences -> ub_opts                                                                      */
/* ------------------------------------------------------------------------------------------ */

static ub_opts g_opts; /* options in force, rebuilt from the prefs */

const ub_opts *ub_ws_opts(void)
{
    return &g_opts;
}

/* A view for ub_decode in this dissection (pinfo NULL: g_malloc'ed, free it with g_free).  Views are
 * recycled: the k-th view asked for in one dissection is slot k, kept from the earlier frames, so that
 * libubparse's per-view reserved-row cache (ub_view.rsvd_magic) stays warm as in ubdump, which decodes
 * every record into one view.  A view lives until the end of its dissection (taps included): the count
 * starts again when pinfo->pool, the dissection's pool, is freed (a wmem callback; cheaper than proto
 * data on every packet).  Beyond UB_WS_VIEWS in one dissection (a raw flit-stream record completing many
 * units), from the packet pool, initialised each time. */
#define UB_WS_VIEWS 16
static ub_view *view_slot[UB_WS_VIEWS];
static wmem_allocator_t *view_pool; /* the pool whose dissection holds slots 0..view_next-1 */
static guint view_pool_cb;          /* our callback on it */
static guint view_next;

static gboolean view_pool_event(wmem_allocator_t *a, wmem_cb_event_t ev, void *data _U_)
{
    if (a != view_pool) return FALSE;
    view_next = 0; /* the dissection ended */
    if (ev == WMEM_CB_DESTROY_EVENT) {
        view_pool = NULL;
        return FALSE;
    }
    return TRUE;
}

ub_view *ub_ws_view_new(packet_info *pinfo)
{
    ub_view *v;
    if (!pinfo) {
        v = g_new(ub_view, 1);
        ub_view_init(v);
        return v;
    }
    if (pinfo->pool != view_pool) { /* another pool (a new epan_dissect_t): count from 0 in it */
        if (view_pool) wmem_unregister_callback(view_pool, view_pool_cb);
        view_pool = pinfo->pool;
        view_pool_cb = wmem_register_callback(view_pool, view_pool_event, NULL);
        view_next = 0;
    }
    guint k = view_next;
    if (k >= UB_WS_VIEWS) {
        v = wmem_new(pinfo->pool, ub_view);
        ub_view_init(v);
        return v;
    }
    view_next = k + 1;
    if (!view_slot[k]) { /* with a header-stack template cache, as ubdump's view (ub_view_new_tmpl) */
        view_slot[k] = ub_view_new_tmpl();
        if (!view_slot[k]) {
            view_slot[k] = g_new(ub_view, 1);
            ub_view_init(view_slot[k]);
        }
    }
    return view_slot[k];
}

/* Preference names mirror ubdump's -o names (ubdump -o help): "ub.read_ext4:2" here is
 * "ubdump -o read_ext4=2".  Defaults are taken from ub_opts_default(): the R-nn defaults live in
 * libubparse only. */
static guint pref_dlt[3];        /* dlt.flit / dlt.pkt / dlt.stream */
static gint pref_crc_mode;       /* 1 crc, 0 noncrc */
static const unsigned tah_cfgs[] = { 3, 4, 6, 7, 9 }; /* CFGs whose packets carry a TAH */
static gint pref_tah_fmt[G_N_ELEMENTS(tah_cfgs)];
static gint pref_read_ext4, pref_rsp_ext, pref_btah_variant, pref_bcrc_variant, pref_scan_packing;
static gint pref_vdm_variant, pref_init_variant, pref_cetph_variant, pref_bitmap_order, pref_icrc_enum;
static guint pref_icv_len;
static gboolean pref_cip_inner, pref_urpc, pref_udp_heur, pref_sll_takeover;
static gint pref_profile;
static gboolean udp_port_pref_ready; /* "ub.udp.port" exists (registered in the handoff) */

static const enum_val_t ev_crc_mode[] = {
    { "crc", "CRC mode: 4-byte BCRC per block", 1 },
    { "noncrc", "Non-CRC mode: 1-byte END (FEC-protected link)", 0 },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_tah_fmt[] = {
    { "full", "Full TAH (BTAH/ATAH)", UB_TAH_FULL },
    { "compact", "Compact TAH (BTAH_C/ATAH_C)", UB_TAH_COMPACT },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_read_ext4[] = {
    { "0", "Auto: OFSTETAH under RTP, else TAIDETAH", 0 },
    { "1", "Always TAIDETAH", 1 },
    { "2", "Always OFSTETAH", 2 },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_rsp_ext[] = {
    { "0", "Neither", 0 }, { "1", "TAIDETAH", 1 }, { "2", "OFSTETAH", 2 }, { "3", "TAIDETAH and OFSTETAH", 3 },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_btah_variant[] = {
    { "0", "Spec figure (No_TAACK b7, ODR b6:4)", 0 },
    { "1", "EV-UBUS driver (ODR b7:5, TAK_EN b4)", 1 },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_bcrc_variant[] = {
    { "0", "CRC30 covers the 2 info bits", 0 }, { "1", "CRC30 covers the bytes only", 1 }, { NULL, NULL, 0 }
};
static const enum_val_t ev_scan_packing[] = {
    { "0", "Rev. 2 path entries (LSB-first in 32-bit words)", 0 }, { "1", "Rev. 1 path entries (MSB-first)", 1 },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_vdm_variant[] = {
    { "0", "VDM header in figure order", 0 }, { "1", "VDM header as the EV-UBUS driver", 1 }, { NULL, NULL, 0 }
};
static const enum_val_t ev_init_variant[] = {
    { "0", "Layout A (Table 4-8)", 0 }, { "1", "Layout B (figure)", 1 }, { "2", "Auto", 2 }, { NULL, NULL, 0 }
};
static const enum_val_t ev_cetph_variant[] = {
    { "0", "LDCP", 0 }, { "1", "CAQM", 1 }, { NULL, NULL, 0 }
};
static const enum_val_t ev_bitmap_order[] = {
    { "0", "MSB-first (BitMap[0] = last byte bit 0)", 0 }, { "1", "First bit = BitMap[0]", 1 }, { NULL, NULL, 0 }
};
static const enum_val_t ev_profile[] = {
    { "spec", "UB Base Specification 2.0", UB_PROFILE_SPEC },
    { "ns3ub", "ns-3-UB simulator traces (docs/interop.md)", UB_PROFILE_NS3UB },
    { NULL, NULL, 0 }
};
static const enum_val_t ev_icrc_enum[] = {
    { "0", "Auto (by length)", 0 }, { "1", "Always", 1 }, { "2", "Never", 2 }, { NULL, NULL, 0 }
};

static void prefs_to_opts(void)
{
    ub_opts_default(&g_opts);
    g_opts.dlt_flit = (uint16_t)pref_dlt[0];
    g_opts.dlt_pkt = (uint16_t)pref_dlt[1];
    g_opts.dlt_stream = (uint16_t)pref_dlt[2];
    g_opts.crc_mode = pref_crc_mode != 0;
    for (unsigned i = 0; i < G_N_ELEMENTS(tah_cfgs); i++) g_opts.tah_fmt[tah_cfgs[i]] = (uint8_t)pref_tah_fmt[i];
    g_opts.read_ext4 = (uint8_t)pref_read_ext4;
    g_opts.rsp_ext = (uint8_t)pref_rsp_ext;
    g_opts.btah_variant = (uint8_t)pref_btah_variant;
    g_opts.bcrc_variant = (uint8_t)pref_bcrc_variant;
    g_opts.scan_packing = (uint8_t)pref_scan_packing;
    g_opts.vdm_variant = (uint8_t)pref_vdm_variant;
    g_opts.init_variant = (uint8_t)pref_init_variant;
    g_opts.cetph_variant = (uint8_t)pref_cetph_variant;
    g_opts.bitmap_order = (uint8_t)pref_bitmap_order;
    g_opts.icrc_enum = (uint8_t)pref_icrc_enum;
    g_opts.icv_len = (uint16_t)pref_icv_len;
    g_opts.cip_decode_inner = pref_cip_inner ? true : false;
    g_opts.urpc_heuristic = pref_urpc ? true : false;
    g_opts.profile = (uint8_t)pref_profile;
    g_opts.udp_heuristic = pref_udp_heur ? true : false;
    /* the UB ports: the "ub.udp.port" range (Decode As / preference), 4792 by default */
    range_t *r = udp_port_pref_ready ? prefs_get_range_value("ub", "udp.port") : NULL;
    if (r) {
        unsigned n = 0;
        g_opts.udp_port = 0;
        for (guint i = 0; i < r->nranges; i++)
            for (guint32 port = r->ranges[i].low; port <= r->ranges[i].high && port <= 0xFFFF && n < 1 + UB_UDP_MORE; port++, n++) {
                if (n == 0) g_opts.udp_port = (uint16_t)port;
                else g_opts.udp_more[n - 1] = (uint16_t)port;
            }
        g_opts.n_udp_more = (uint8_t)(n > 1 ? n - 1 : 0);
    }
    ub_neigh_prefs_to_opts(&g_opts); /* sue.*, udp4791, dlt.pcieflit, ... (packet-neigh-prefs.c) */
}

static void opts_to_prefs_defaults(void)
{
    ub_opts d;
    ub_opts_default(&d);
    pref_dlt[0] = d.dlt_flit;
    pref_dlt[1] = d.dlt_pkt;
    pref_dlt[2] = d.dlt_stream;
    pref_crc_mode = d.crc_mode ? 1 : 0;
    for (unsigned i = 0; i < G_N_ELEMENTS(tah_cfgs); i++) pref_tah_fmt[i] = d.tah_fmt[tah_cfgs[i]];
    pref_read_ext4 = d.read_ext4;
    pref_rsp_ext = d.rsp_ext;
    pref_btah_variant = d.btah_variant;
    pref_bcrc_variant = d.bcrc_variant;
    pref_scan_packing = d.scan_packing;
    pref_vdm_variant = d.vdm_variant;
    pref_init_variant = d.init_variant;
    pref_cetph_variant = d.cetph_variant;
    pref_bitmap_order = d.bitmap_order;
    pref_icrc_enum = d.icrc_enum;
    pref_icv_len = d.icv_len;
    pref_cip_inner = d.cip_decode_inner;
    pref_urpc = d.urpc_heuristic;
    pref_udp_heur = d.udp_heuristic;
    pref_sll_takeover = TRUE;
    pref_profile = d.profile;
}

static void register_prefs(module_t *m)
{
    prefs_register_uint_preference(m, "dlt.flit", "Link type of flit records (LINKTYPE_USER0)",
        "pcap link-type number whose records are one whole DLLDP/DLLCB with flits, BCRC/END (default 147 = USER0). "
        "A DLT_USER table entry for the same number takes precedence.", 10, &pref_dlt[0]);
    prefs_register_uint_preference(m, "dlt.pkt", "Link type of packet records (LINKTYPE_USER1)",
        "pcap link-type number whose records are LPH + network packet, or a DLLCB (default 148 = USER1)", 10,
        &pref_dlt[1]);
    prefs_register_uint_preference(m, "dlt.stream", "Link type of raw flit-stream records (LINKTYPE_USER2)",
        "pcap link-type number whose records are raw 20-byte flits of one direction, delimited across records "
        "(default 149 = USER2)", 10, &pref_dlt[2]);
    prefs_register_enum_preference(m, "crc_mode", "Link CRC mode (Table 4-1)",
        "CRC mode: every block ends with a 4-byte BCRC. Non-CRC mode: a 1-byte END, PLENGTH codes differ.",
        &pref_crc_mode, ev_crc_mode, FALSE);
    for (unsigned i = 0; i < G_N_ELEMENTS(tah_cfgs); i++) {
        char *nm = g_strdup_printf("tah_fmt.%u", tah_cfgs[i]);
        char *ti = g_strdup_printf("TAH format under CFG %u (R-25)", tah_cfgs[i]);
        prefs_register_enum_preference(m, nm, ti,
            "Full or compact format of non-management transaction headers (reconstruction R-25)", &pref_tah_fmt[i],
            ev_tah_fmt, FALSE);
    }
    prefs_register_enum_preference(m, "read_ext4", "4 spare bytes of a Read request (R-26)",
        "Which extension header the 4 bytes after a Read request's MAETAH are (reconstruction R-26)", &pref_read_ext4,
        ev_read_ext4, FALSE);
    prefs_register_enum_preference(m, "rsp_ext", "Extension headers of responses without their request (R-26)",
        "Read/Atomic responses whose request was not captured carry TAIDETAH and/or OFSTETAH (R-26)", &pref_rsp_ext,
        ev_rsp_ext, FALSE);
    prefs_register_enum_preference(m, "btah_variant", "BTAH byte 4 layout (I-34)",
        "Spec figure or the EV-UBUS driver layout of BTAH byte 4 (spec defect I-34)", &pref_btah_variant,
        ev_btah_variant, FALSE);
    prefs_register_enum_preference(m, "bcrc_variant", "CRC30 coverage (R-03)",
        "Whether the block CRC30 covers the 2 info bits of the BCRC word (reconstruction R-03)", &pref_bcrc_variant,
        ev_bcrc_variant, FALSE);
    prefs_register_enum_preference(m, "scan_packing", "Enumeration path entry packing (R-32)",
        "Bit order of Scan header path entries (reconstruction R-32)", &pref_scan_packing, ev_scan_packing, FALSE);
    prefs_register_enum_preference(m, "vdm_variant", "Vendor-defined message header (R-36)",
        "Field order of the VDM header (reconstruction R-36)", &pref_vdm_variant, ev_vdm_variant, FALSE);
    prefs_register_enum_preference(m, "init_variant", "Init Block layout (R-08)",
        "Byte positions of the DLLCB Init Block (reconstruction R-08)", &pref_init_variant, ev_init_variant, FALSE);
    prefs_register_enum_preference(m, "cetph_variant", "CETPH of the TPACK-CC family (R-17)",
        "Congestion extension format of TPACK-CC/TPSACK-CC (reconstruction R-17)", &pref_cetph_variant,
        ev_cetph_variant, FALSE);
    prefs_register_enum_preference(m, "bitmap_order", "SAETPH bitmap order (R-18)",
        "Bit order of the selective-ack bitmap (reconstruction R-18)", &pref_bitmap_order, ev_bitmap_order, FALSE);
    prefs_register_enum_preference(m, "icrc_enum", "ICRC of enumeration packets (R-44)",
        "Whether enumeration packets end with an ICRC (reconstruction R-44)", &pref_icrc_enum, ev_icrc_enum, FALSE);
    prefs_register_uint_preference(m, "icv_len", "ICV length with CIP (R-22)",
        "Bytes of the Integrity Check Value trailer of CIP-protected packets (reconstruction R-22)", 10,
        &pref_icv_len);
    prefs_register_bool_preference(m, "cip_decode_inner", "Decode the TAH after a CIPH",
        "Decode what follows a CIP security header (only meaningful when the traffic is not encrypted)",
        &pref_cip_inner);
    prefs_register_bool_preference(m, "urpc", "Decode URPC in Send payloads (App. H)",
        "Try the URPC message formats on transaction payloads", &pref_urpc);
    prefs_register_bool_preference(m, "sll_arphrd_ub", "Decode Linux cooked captures with ARPHRD_UB (38)",
        "Frames of LINKTYPE_LINUX_SLL/SLL2 whose link-layer address type is 38 are UB link frames (1-byte CFG "
        "pseudo-header, then the packet); other cooked frames are left to the SLL dissector", &pref_sll_takeover);
    prefs_register_enum_preference(m, "profile", "Decoding profile (docs/interop.md)",
        "The spec, or the dialect of a known implementation: ns3ub = traces of the ns-3-UB simulator (swapped RT "
        "bits, little-endian CNAs, PLENGTH 0, responses in a BTAH, UDP port = port index, ...), as ubdump -o profile=ns3ub",
        &pref_profile, ev_profile, FALSE);
    prefs_register_bool_preference(m, "udp_heuristic", "Strict UB heuristic on UDP",
        "Recognise UBoE (RTPH/UTPH) on UDP ports other than the UB port when the whole packet decodes cleanly "
        "(also: Analyze > Enabled Protocols > ub_udp)", &pref_udp_heur);
}

/* Where a layer's bytes are: the record tvb or the reassembled network packet tvb. */
typedef struct ub_tvbs {
    tvbuff_t *rec;      /* bytes given to ub_decode */
    tvbuff_t *net;      /* child tvb over v->netbuf, created on demand */
    packet_info *pinfo;
    guint32 net_len;
} ub_tvbs;

/* Offset of p inside [base, base + n], -1 if outside (pointer ranges compared as integers). */
gint64 ub_ws_buf_off(const void *p, const void *base, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
    if (!p || !base || a < b || a - b > n) return -1;
    return (gint64)(a - b);
}

static gboolean layer_pos(const ub_view *v, ub_tvbs *tv, const ub_layer *l, tvbuff_t **tvb, gint *off, gint *len)
{
    gint64 o = ub_ws_buf_off(l->data, v->rec, v->rec_len);
    if (o >= 0 && l->len <= v->rec_len - (guint32)o) {
        *tvb = tv->rec;
        *off = (gint)o;
        *len = (gint)l->len;
        return TRUE;
    }
    o = ub_ws_buf_off(l->data, v->netbuf, sizeof v->netbuf);
    if (o >= 0) {
        if (!tv->net) {
            tv->net = tvb_new_child_real_data(tv->rec, v->netbuf, tv->net_len, tv->net_len);
            add_new_data_source(tv->pinfo, tv->net, "Reassembled network packet");
        }
        guint32 uo = (guint32)o > tv->net_len ? tv->net_len : (guint32)o;
        guint32 n = l->len;
        if (n > tv->net_len - uo) n = tv->net_len - uo;
        *tvb = tv->net;
        *off = (gint)uo;
        *len = (gint)n;
        return TRUE;
    }
    *tvb = tv->rec;
    *off = 0;
    *len = 0;
    return FALSE;
}

/* The decoder's errors of v as expert infos (at the item of the layer they name: litem[0..nl), else at the
 * UB item top) and generated ub.error items under ub_tree (NULL: expert infos only). */
static void add_view_errors(tvbuff_t *tvb, packet_info *pinfo, proto_item *top, proto_tree *ub_tree,
                            const ub_view *v, proto_item **litem, unsigned nl)
{
    for (unsigned i = 0; i < v->nerrs && i < UB_MAX_ERRS; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        if (!ei || e->code == UB_E_NONE || e->code >= UB_E__COUNT) continue;
        proto_item *at = NULL, *first = NULL;
        for (unsigned k = 0; k < nl; k++) {
            const ub_layer *l = &v->layer[k];
            if (!litem || !litem[k] || !l->hdr || l->hdr->id != e->hdr) continue;
            if (!first) first = litem[k];
            gint64 lo = ub_ws_buf_off(l->data, v->rec, v->rec_len);
            if (lo >= 0 && e->off >= (guint64)lo && e->off <= (guint64)lo + l->len) { at = litem[k]; break; }
        }
        if (!at) at = first ? first : top;
        proto_item *si = proto_tree_add_string(ub_tree, hf_ub_error, tvb, 0, 0, ei->name);
        proto_item_set_generated(si);
        char txt[320];
        ub_err_text(e, txt, sizeof txt); /* the summary ubdump -z expert counts too */
        expert_add_info_format(pinfo, at, &ei_ub[e->code], "%s", txt);
    }
    if (v->errs_dropped)
        proto_tree_add_expert_format(ub_tree, pinfo, &ei_ub[UB_E_TOO_DEEP], tvb, 0, 0,
                                     "%u more errors not shown", v->errs_dropped);
}

/* Add the UB tree of a decoded view under `tree`. `rec` holds exactly the bytes given to ub_decode (the
 * layers are placed there); the UB item covers `tvb`. Layers with hide[i] set are left out (shown by
 * another dissector: the IP part of a plain CFG 3/4 packet, Wireshark's own Ethernet/IP/UDP of UBoE). */
static proto_item *add_view_ex(tvbuff_t *tvb, tvbuff_t *rec, packet_info *pinfo, proto_tree *tree, ub_view *v,
                               const char *title, const guint8 *hide)
{
    if (!tree) { /* plain tshark: no items, only the expert infos of the errors */
        add_view_errors(tvb, pinfo, NULL, NULL, v, NULL, 0);
        return NULL;
    }
    proto_item *top = proto_tree_add_item(tree, proto_ub, tvb, 0, -1, ENC_NA);
    if (title) proto_item_append_text(top, ", %s", title);
    proto_tree *ub_tree = proto_item_add_subtree(top, ett_ub);

    ub_tvbs tv = { rec, NULL, pinfo, 0 };
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) { /* extent of the network-packet buffer */
        const ub_layer *l = &v->layer[i];
        gint64 o = ub_ws_buf_off(l->data, v->netbuf, sizeof v->netbuf);
        if (o >= 0 && (guint64)o + l->len > tv.net_len) tv.net_len = (guint32)((guint64)o + l->len);
    }
    if (v->pkt == v->netbuf && v->pkt_len > tv.net_len) tv.net_len = v->pkt_len;
    if (tv.net_len > sizeof v->netbuf) tv.net_len = sizeof v->netbuf;

    proto_tree *stk[256]; /* stk[d] = subtree of the latest layer at depth d, NULL when closed */
    memset(stk, 0, sizeof stk);
    proto_item **litem = wmem_alloc0(pinfo->pool, sizeof(proto_item *) * (nl ? nl : 1));
    unsigned maxd = 0;
    for (unsigned i = 0; tree && i < nl; i++) { /* no tree (plain tshark): only columns and expert info */
        const ub_layer *l = &v->layer[i];
        if (!l->hdr || (hide && hide[i])) continue;
        unsigned d = l->depth;
        proto_tree *parent = ub_tree;
        if (d > 0 && stk[d - 1]) parent = stk[d - 1];
        tvbuff_t *ltvb;
        gint off, len;
        layer_pos(v, &tv, l, &ltvb, &off, &len);
        int slot = ub_hdr_hf_slot[l->hdr->id];
        gint ett = ub_ett_hdr[l->hdr->id] >= 0 ? ub_ett_hdr[l->hdr->id] : ett_ub;
        proto_item *li;
        proto_tree *sub;
        char hsum[256]; /* "Reliable Transport Header, RTP data, PSN 17, TPN 0x101→0x202" (hdrsum.c) */
        gboolean vis = PTREE_DATA(parent)->visible;
        if (!vis) g_strlcpy(hsum, l->hdr->name ? l->hdr->name : "?", sizeof hsum);
        else if (!ub_layer_summary(l, hsum, sizeof hsum)) g_strlcpy(hsum, "?", sizeof hsum);
        if (slot >= 0) {
            li = vis ? ub_ws_add_labelled(parent, ub_hf_ids[slot], ltvb, off, len, hsum)
                     : proto_tree_add_none_format(parent, ub_hf_ids[slot], ltvb, off, len, "%s", hsum);
            sub = proto_item_add_subtree(li, ett);
        } else {
            sub = proto_tree_add_subtree(parent, ltvb, off, len, ett, &li, hsum);
        }
        if (l->flags & UB_LF_TRUNC) proto_item_append_text(li, " [truncated]");
        litem[i] = li;
        stk[d] = sub; /* d < 256: uint8_t */
        for (unsigned k = d + 1; k <= maxd; k++) stk[k] = NULL;
        maxd = d;
        ub_ws_add_layer_fields(sub, l, ltvb, off, len, pinfo);
    }

    add_view_errors(tvb, pinfo, top, ub_tree, v, litem, nl);
    return top;
}

proto_item *ub_ws_add_view(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, ub_view *v, const char *title)
{
    return add_view_ex(tvb, tvb, pinfo, tree, v, title, NULL);
}

const guint8 *ub_ws_tvb_bytes(tvbuff_t *tvb, guint32 *len)
{
    *len = tvb_captured_length(tvb);
    static const guint8 empty[1] = { 0 };
    return *len ? tvb_get_ptr(tvb, 0, (gint)*len) : empty;
}

static dissector_handle_t ip_handle, ipv6_handle; /* plain IP on a CFG 3/4 link goes there */

static size_t len_upto(const char *s, size_t max) /* strnlen */
{
    const char *z = memchr(s, '\0', max);
    return z ? (size_t)(z - s) : max;
}

void ub_ws_col_prepend_fence(column_info *cinfo, gint col, const char *text)
{
    /* Wireshark 4.0 column-utils.c: in every column of format col, the formatted text (at most max_len - 1
     * bytes) goes first, the fence moves by its length (or is set after it when there was none), and
     * the earlier text follows, all of it cut at max_len - 1 bytes */
    if (!col_get_writable(cinfo, col) || cinfo->col_first[col] < 0) return;
    size_t max_len = col == COL_INFO ? COL_MAX_INFO_LEN : COL_MAX_LEN;
    size_t tl = strlen(text);
    if (tl > max_len - 1) tl = max_len - 1;
    for (int i = cinfo->col_first[col]; i <= cinfo->col_last[col]; i++) {
        col_item_t *c = &cinfo->columns[i];
        if (!c->fmt_matx[col]) continue;
        size_t keep;
        if (c->col_data != c->col_buf) { /* set with col_set_str: the text lives elsewhere */
            keep = len_upto(c->col_data, max_len - 1 - tl);
            memcpy(c->col_buf + tl, c->col_data, keep);
        } else {
            keep = len_upto(c->col_buf, max_len - 1); /* g_strlcpy(orig_buf, col_buf, max_len) */
            if (keep > max_len - 1 - tl) keep = max_len - 1 - tl;
            memmove(c->col_buf + tl, c->col_buf, keep);
        }
        memcpy(c->col_buf, text, tl);
        c->col_buf[tl + keep] = '\0';
        c->col_fence = c->col_fence > 0 ? c->col_fence + (int)tl : (int)tl;
        c->col_data = c->col_buf;
    }
}

static void set_columns(packet_info *pinfo, const ub_view *v)
{
    gboolean pcol = col_get_writable(pinfo->cinfo, COL_PROTOCOL) && pinfo->cinfo->col_first[COL_PROTOCOL] >= 0;
    if (col_get_writable(pinfo->cinfo, COL_INFO) && pinfo->cinfo->col_first[COL_INFO] >= 0) {
        /* no Info column (tshark -T fields without _ws.col.Info): no summary to format */
        /* formatted into the packet pool, which outlives the columns: col_set_str keeps the pointer
         * (col_add_str's copy, when a fence is set) */
        char *sum = (char *)wmem_alloc(pinfo->pool, 512);
        const char *proto = NULL;
        sum[0] = '\0';
        ub_summary_proto(v, sum, 512, pcol ? &proto : NULL); /* and the top layer's name, in one pass */
        if (pcol) col_set_str(pinfo->cinfo, COL_PROTOCOL, proto); /* UB-TA, UB-TP, ... */
        /* no col_clear: col_set_str replaces the text after the fence (and the Info column has no
         * filter expression to clear) */
        col_set_str(pinfo->cinfo, COL_INFO, sum[0] ? sum : "UB");
    } else if (pcol) {
        col_set_str(pinfo->cinfo, COL_PROTOCOL, ub_view_protocol(v)); /* top layer: UB-TA, UB-TP, ... */
    }
}

/* Columns and tree of a view decoded from all of tvb. */
static int dissect_view(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, ub_view *v)
{
    set_columns(pinfo, v);
    unsigned lo = 0, hi = 0;
    gboolean plain = ub_view_plain_ip(v, &lo, &hi); /* handed to Wireshark's IP dissector */
    guint8 *hide = NULL;
    if (plain) {
        hide = wmem_alloc0(pinfo->pool, UB_MAX_LAYERS);
        for (unsigned i = lo; i < hi; i++) hide[i] = 1;
    }
    proto_item *top = add_view_ex(tvb, tvb, pinfo, tree, v, NULL, hide);
    proto_tree *ut = top ? proto_item_get_subtree(top) : NULL;
    ub_an_view(tvb, pinfo, ut, v, pinfo->fd->pkt_len);
    ub_an_show(tvb, pinfo, ut);
    if (plain) { /* Wireshark's IP dissector takes the IP packet (TCP, UDP, RoCEv2, ...) */
        const ub_layer *a = &v->layer[lo], *z = &v->layer[hi - 1];
        ub_tvbs tv = { tvb, NULL, pinfo, v->pkt == v->netbuf ? v->pkt_len : 0 };
        tvbuff_t *ltvb;
        gint off, len;
        if (z->data >= a->data && layer_pos(v, &tv, a, &ltvb, &off, &len)) {
            gint n = (gint)((z->data + z->len) - a->data);
            if (n > tvb_captured_length_remaining(ltvb, off)) n = tvb_captured_length_remaining(ltvb, off);
            dissector_handle_t h = a->hdr->id == UB_H_IPV6 ? ipv6_handle : ip_handle;
            if (h && n > 0) call_dissector(h, tvb_new_subset_length(ltvb, off, n), pinfo, tree);
        }
    }
    return (int)tvb_captured_length(tvb);
}

/* unit_flags: UB_UNIT_* the bytes come with (ub_unit_errors, as every consumer of units) */
static int dissect_entry_unit(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, ub_entry entry, unsigned unit_flags)
{
    guint32 len;
    const guint8 *data = ub_ws_tvb_bytes(tvb, &len);
    ub_view *v = ub_ws_view_new(pinfo);
    guint32 wire = tvb_reported_length(tvb); /* a record cut by the snapshot length: no error for what is missing */
    ub_decode_wire(v, &g_opts, entry, data, len, wire > len ? wire : len);
    ub_unit_errors(v, unit_flags, len);
    return dissect_view(tvb, pinfo, tree, v);
}

static int dissect_entry(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, ub_entry entry)
{
    return dissect_entry_unit(tvb, pinfo, tree, entry, 0);
}

/* UB over UDP (UBoE, App. E): the IP header before this UDP payload, found in the frame (ub_ip_before:
 * IPv4 with any IHL, IPv6, either with extension headers) as the one Wireshark took the addresses from;
 * -1 when the bytes before are not that IP/UDP header. */
static gint ip_before_udp(const packet_info *pinfo, const guint8 *frame, guint32 udp_off)
{
    const address *a = &pinfo->net_src;
    const unsigned ver = a->type == AT_IPv4 ? 4 : a->type == AT_IPv6 ? 6 : 0;
    if (!ver) return -1;
    gint32 ip = ub_ip_before(frame, udp_off, ver, 17);
    if (ip < 0) return -1;
    const guint32 so = ver == 4 ? 12 : 8, sl = ver == 4 ? 4 : 16; /* the source address in the IP header */
    return a->len == (int)sl && memcmp(frame + ip + so, a->data, sl) == 0 ? ip : -1;
}

/* The claim rule of libubparse (ub_ip_claim) on the IP packet that carries this UDP payload, with the
 * ICRC after it when the frame has one. Returns the view (IP onwards) and the tvb it was decoded
 * from, or NULL when the IP header cannot be found in the frame. extra_port: a port to count as UB. */
/* bytes of Ethernet FCS at the end of the frame (pcapng if_fcslen / epb_flags, as Wireshark's Ethernet
 * dissector takes them): the frame the IP packet and its ICRC are in stops before them */
static guint32 eth_fcs_len(const packet_info *pinfo)
{
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET || !pinfo->pseudo_header ||
        pinfo->rec->rec_header.packet_header.pkt_encap != WTAP_ENCAP_ETHERNET)
        return 0;
    gint n = pinfo->pseudo_header->eth.fcs_len;
    return n > 0 && n <= 8 ? (guint32)n : 0;
}

guint32 ub_ws_frame_linktype(const packet_info *pinfo)
{
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET) return 0;
    switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
    case WTAP_ENCAP_ETHERNET: return 1;
    case WTAP_ENCAP_SLL: return 113;
    case WTAP_ENCAP_SLL2: return 276;
    case WTAP_ENCAP_RAW_IP: case WTAP_ENCAP_RAW_IP4: case WTAP_ENCAP_RAW_IP6: return 101;
    default: return 0;
    }
}

static ub_view *uboe_view(tvbuff_t *tvb, packet_info *pinfo, guint extra_port, tvbuff_t **ip_tvb, unsigned *tph)
{
    tvbuff_t *ds = tvb_get_ds_tvb(tvb);
    if (!ds) return NULL;
    guint32 flen = tvb_captured_length(ds), len = tvb_captured_length(tvb), wire = tvb_reported_length(ds);
    gint roff = tvb_raw_offset(tvb);
    if (flen == 0 || roff < 8 || (guint32)roff + len > flen) return NULL;
    const guint8 *frame = tvb_get_ptr(ds, 0, (gint)flen);
    if (len && tvb_get_ptr(tvb, 0, (gint)len) != frame + roff) return NULL; /* not a plain subset of the frame */
    const gboolean cut = ds == get_data_source_tvb_by_name(pinfo, "Frame") && pinfo->fd->cap_len > flen;
    if (cut) {
        /* a raw-IP link type hands the frame's own tvb to Wireshark's IP dissector, which cuts it to the
         * IP packet's length: the bytes after it (the ICRC, R-44) are still the frame's, in its buffer */
        flen = pinfo->fd->cap_len;
        wire = pinfo->fd->pkt_len;
    }
    /* the datagram an ICMP error quotes: the frame as ubdump decodes it, from its link header (the
     * quote is the datagram's first bytes: libubparse's dec_quoted) */
    const gboolean quoted = pinfo->flags.in_error_pkt;
    gint ip = 0;
    ub_entry link = UB_ENTRY_NONE;
    if (quoted) {
        const guint32 lt = ub_ws_frame_linktype(pinfo);
        const int encap = pinfo->rec && pinfo->rec->rec_type == REC_TYPE_PACKET ? pinfo->rec->rec_header.packet_header.pkt_encap : -1;
        link = lt ? ub_entry_for_linktype(&g_opts, lt)
                  : encap == WTAP_ENCAP_NULL || encap == WTAP_ENCAP_LOOP ? UB_ENTRY_NULL : UB_ENTRY_NONE; /* BSD loopback too */
        if (cut || link == UB_ENTRY_NONE || ds != get_data_source_tvb_by_name(pinfo, "Frame")) return NULL;
    } else if ((ip = ip_before_udp(pinfo, frame, (guint32)roff - 8)) < 0) {
        return NULL;
    }
    ub_opts o = g_opts;
    if (extra_port && o.n_udp_more < UB_UDP_MORE) o.udp_more[o.n_udp_more++] = (uint16_t)extra_port;
    ub_view *v = ub_ws_view_new(pinfo);
    guint32 fcs = eth_fcs_len(pinfo);
    if (fcs && wire >= (guint32)ip + fcs) { /* as ub_units_record: the frame without its FCS */
        wire -= fcs;
        if (flen > wire) flen = wire;
    }
    if (quoted)
        ub_decode_wire(v, &o, link, frame, flen, wire > flen ? wire : flen);
    else
        ub_decode_wire(v, &o, UB_ENTRY_RAWIP, frame + ip, flen - (guint32)ip, wire > flen ? wire - (guint32)ip : flen - (guint32)ip);
    v->opts = &g_opts; /* o ends with this function; the state engine reads the view's options later */
    if (quoted ? !(v->neigh & UB_VN_QUOTED_UB) : v->kind != UB_KIND_UBOE) return v; /* not UB: the caller says no */
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (l->hdr && (l->hdr->id == UB_H_RTPH || l->hdr->id == UB_H_UTPH) && l->data == frame + roff &&
            !(l->flags & UB_LF_QUOTED) == !quoted) {
            *tph = i;
            if (quoted) { /* the frame: the layers are placed by their offsets in it */
                *ip_tvb = ds;
            } else if (cut) { /* the IP packet and what follows it, as the frame has them */
                *ip_tvb = tvb_new_child_real_data(ds, frame + ip, flen - (guint32)ip, (gint)(wire - (guint32)ip));
                add_new_data_source(pinfo, *ip_tvb, "IP packet and ICRC");
            } else {
                *ip_tvb = tvb_new_subset_remaining(ds, ip);
            }
            return v;
        }
    }
    return NULL;
}

/* UBoE columns and tree: the UB layers from the transport header on, and the ICRC after the IP packet */
static int dissect_uboe(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, ub_view *v, tvbuff_t *ip_tvb, unsigned tph)
{
    set_columns(pinfo, v);
    guint8 *hide = wmem_alloc0(pinfo->pool, UB_MAX_LAYERS);
    for (unsigned i = 0; i < tph && i < UB_MAX_LAYERS; i++) hide[i] = 1; /* IP and UDP: Wireshark's own */
    proto_item *top = add_view_ex(tvb, ip_tvb, pinfo, tree, v, NULL, hide);
    proto_tree *ut = top ? proto_item_get_subtree(top) : NULL;
    ub_an_view(tvb, pinfo, ut, v, pinfo->fd->pkt_len);
    ub_an_show(tvb, pinfo, ut);
    return (int)tvb_captured_length(tvb);
}

/* ------------------------------------------------------------------------------------------ */
/* LINKTYPE_USERn: respect a user_dlts ("DLT_USER") table entry for the same DLT                 */
/* ------------------------------------------------------------------------------------------ */

static dissector_handle_t user_dlt_handle;

/* TRUE when the DLT_USER table (Preferences > Protocols > DLT_USER) has an entry for this DLT:
 * the user chose another payload protocol for it, so that entry wins. */
static uat_t *user_dlt_uat; /* packet-user_encap.c's table, looked up once at handoff */

static gboolean user_dlt_claims(guint dlt)
{
    uat_t *u = user_dlt_uat;
    if (!u || !u->user_data || !u->user_data->len || !u->fields || !u->fields[0].name) return FALSE;
    for (guint i = 0; i < u->user_data->len; i++) {
        void *rec = u->user_data->data + (gsize)i * u->record_size;
        char *s = uat_fld_tostr(rec, &u->fields[0]); /* e.g. "User 0 (DLT=147)" */
        const char *p = s ? strstr(s, "DLT=") : NULL;
        gboolean hit = p && (guint)strtoul(p + 4, NULL, 10) == dlt;
        g_free(s);
        if (hit) return TRUE;
    }
    return FALSE;
}

/* The dissectors proper (handles owned by proto_ub, so "ub" is a layer of the frame and disabling
 * the protocol works) ... */

static int dissect_ub_flit(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return dissect_entry(tvb, pinfo, tree, UB_ENTRY_FLIT);
}

static int dissect_ub_pkt(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return dissect_entry(tvb, pinfo, tree, UB_ENTRY_PKT);
}

static int dissect_ub_stream(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return ub_ws_dissect_stream(tvb, pinfo, tree);
}

static int dissect_ub_sll(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return dissect_entry(tvb, pinfo, tree, UB_ENTRY_SLL);
}

static int dissect_ub_sll2(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return dissect_entry(tvb, pinfo, tree, UB_ENTRY_SLL2);
}

/* SLL / SLL2 with hatype ARPHRD_UB and a Linux-internal protocol (<= 1536, via packet-sll.c's
 * "sll.hatype" table): the payload after the cooked header is CFG pseudo-header + packet. */
static int dissect_ub_cfgph(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    return dissect_entry(tvb, pinfo, tree, UB_ENTRY_CFGPH);
}

/* ... and the front ends registered in "wtap_encap" (no protocol of their own: they only choose). */
static dissector_handle_t h_flit, h_pkt, h_stream, h_cfgph, h_tph, h_sll, h_sll2;
static dissector_handle_t fh_user[3], fh_sll[2];

static gboolean ub_enabled(void)
{
    return proto_is_protocol_enabled(find_protocol_by_id(proto_ub));
}

/* LINKTYPE_USERn: a DLT_USER table entry for the same DLT, or UB disabled -> the DLT_USER dissector. */
static int dissect_user_front(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data, int i)
{
    static const dissector_handle_t *real[3] = { &h_flit, &h_pkt, &h_stream };
    guint dlt = pref_dlt[i];
    gboolean user_owned = dlt >= 147 && dlt <= 162;
    if (user_owned && user_dlt_handle && (!ub_enabled() || user_dlt_claims(dlt)))
        return call_dissector_with_data(user_dlt_handle, tvb, pinfo, tree, data);
    return call_dissector_with_data(*real[i], tvb, pinfo, tree, data);
}

static int dissect_front_flit(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return dissect_user_front(tvb, pinfo, tree, data, 0);
}

static int dissect_front_pkt(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return dissect_user_front(tvb, pinfo, tree, data, 1);
}

static int dissect_front_stream(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return dissect_user_front(tvb, pinfo, tree, data, 2);
}

/* Linux cooked captures (SLL, SLL2).  4.0's packet-sll.c consults its "sll.hatype" table only when the
 * protocol field is a Linux-internal type (<= 1536, e.g. ETH_P_UB 0x0100 for CFG 5); ubl frames with
 * CFG 3/4 carry ETH_P_IP/ETH_P_IPV6 there and would go to the IP dissector although the payload starts
 * with the 1-byte CFG pseudo-header.  So the plugin fronts the SLL dissectors in "wtap_encap": frames
 * with ARPHRD_UB are decoded whole (cooked header from the ub.sll/ub.sll2 tables), every other frame
 * goes to Wireshark's own SLL dissector unchanged. */
static dissector_handle_t sll_orig[2];

/* The schema row abbrev of a header table, NULL none (looked up once per row by the callers). */
static const ub_field *schema_row(unsigned hdr_id, const char *abbrev)
{
    const ub_hdr *h = ub_hdr_get(hdr_id);
    for (unsigned k = 0; h && k < h->nfields; k++)
        if (strcmp(h->fields[k].abbrev, abbrev) == 0) return &h->fields[k];
    return NULL;
}

/* A field of a fixed-position header read through its schema row (no private offsets). */
static gboolean schema_peek(unsigned hdr_id, const ub_field *f, const guint8 *p, guint32 len, guint64 *out)
{
    if (!f) return FALSE;
    ub_layer l;
    memset(&l, 0, sizeof l);
    l.hdr = ub_hdr_get(hdr_id);
    l.data = p;
    l.len = len;
    ub_val v;
    if (!l.hdr || ub_field_value(&l, f, &v) != 0) return FALSE;
    *out = v.u;
    return TRUE;
}

static int dissect_sll_front(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data, int v2)
{
    if (pref_sll_takeover && ub_enabled()) {
        guint32 len;
        const guint8 *p = ub_ws_tvb_bytes(tvb, &len);
        guint64 hatype = 0, pkttype = 0;
        unsigned hid = v2 ? UB_H_SLL2 : UB_H_SLL;
        static const ub_field *f_hatype[2], *f_pkttype[2]; /* the rows, found on the first frame */
        static gboolean found[2];
        if (!found[v2]) {
            f_hatype[v2] = schema_row(hid, v2 ? "ub.sll2.hatype" : "ub.sll.hatype");
            f_pkttype[v2] = schema_row(hid, v2 ? "ub.sll2.pkttype" : "ub.sll.pkttype");
            found[v2] = TRUE;
        }
        if (schema_peek(hid, f_hatype[v2], p, len, &hatype) && hatype == ARPHRD_UB) {
            if (schema_peek(hid, f_pkttype[v2], p, len, &pkttype)) {
                /* as packet-sll.c: 0 host, 1 broadcast, 2 multicast -> received; 4 outgoing -> sent */
                if (pkttype <= 2) pinfo->p2p_dir = P2P_DIR_RECV;
                else if (pkttype == 4) pinfo->p2p_dir = P2P_DIR_SENT;
            }
            return call_dissector_with_data(v2 ? h_sll2 : h_sll, tvb, pinfo, tree, data);
        }
    }
    if (sll_orig[v2]) return call_dissector_with_data(sll_orig[v2], tvb, pinfo, tree, data);
    return 0;
}

static int dissect_front_sll(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return dissect_sll_front(tvb, pinfo, tree, data, 0);
}

static int dissect_front_sll2(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    return dissect_sll_front(tvb, pinfo, tree, data, 1);
}

/* UDP port table ("ub.udp.port", 4792 by default, and Decode As): UBoE when libubparse's claim rule
 * says so for this datagram: its destination port is a UB port (or the one Decode As matched), or the
 * strict heuristic holds. A datagram matched by its source port only is not claimed. */
static int dissect_ub_tph(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    guint extra = pinfo->match_uint == pinfo->destport ? pinfo->destport : 0;
    tvbuff_t *ip_tvb = NULL;
    unsigned tph = 0;
    ub_view *v = uboe_view(tvb, pinfo, extra, &ip_tvb, &tph);
    if (v && ip_tvb) return dissect_uboe(tvb, pinfo, tree, v, ip_tvb, tph);
    if (v) return 0; /* the IP/UDP packet is not UB */
    if (!extra || pinfo->flags.in_error_pkt) return 0; /* (a quote in a frame libubparse does not decode: not UB) */
    /* IP header not found (tunnels, reassembly). A datagram Wireshark's IP dissector reassembled from
     * fragments is ip_fragmented (UB-NW-003), as ubdump's reassembled unit */
    tvbuff_t *ds = tvb_get_ds_tvb(tvb);
    const gboolean reasm = ds && (ds == get_data_source_tvb_by_name(pinfo, "Reassembled IPv4") ||
                                  ds == get_data_source_tvb_by_name(pinfo, "Reassembled IPv6"));
    return dissect_entry_unit(tvb, pinfo, tree, UB_ENTRY_TPH, reasm ? UB_UNIT_REASSEMBLED : 0);
}

/* Strict UDP heuristic: the same rule as ubdump (ub_ip_claim: UDP checksum 0, consistent lengths, clean
 * transport/transaction headers, a matching ICRC when the frame has one; never UDP 4791). */
static gboolean dissect_ub_heur_udp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
    if (!pref_udp_heur || tvb_captured_length(tvb) < 16) return FALSE;
    tvbuff_t *ip_tvb = NULL;
    unsigned tph = 0;
    ub_view *v = uboe_view(tvb, pinfo, 0, &ip_tvb, &tph);
    if (!v || !ip_tvb) return FALSE;
    dissect_uboe(tvb, pinfo, tree, v, ip_tvb, tph);
    return TRUE;
}

/* ------------------------------------------------------------------------------------------ */
/* Registration                                                                                */
/* ------------------------------------------------------------------------------------------ */

static guint reg_dlt[3];                  /* DLT each front end is registered for, 0 none */
static dissector_handle_t reg_prev[3];    /* what "wtap_encap" had there before (restored on change) */

/* (Re-)register the USERn front ends for the configured link types.  All changed registrations are
 * undone first (restoring the previous owner, normally the DLT_USER dissector), then the new ones made,
 * so swapping two numbers works. */
static void register_user_dlts(void)
{
    dissector_table_t wt = find_dissector_table("wtap_encap");
    if (!wt) return;
    for (int i = 0; i < 3; i++) {
        if (reg_dlt[i] == pref_dlt[i] || !reg_dlt[i]) continue;
        int we = wtap_pcap_encap_to_wtap_encap((int)reg_dlt[i]);
        if (we > 0 && dissector_get_uint_handle(wt, (guint32)we) == fh_user[i]) {
            if (reg_prev[i]) dissector_add_uint("wtap_encap", (guint32)we, reg_prev[i]);
            else dissector_delete_uint("wtap_encap", (guint32)we, fh_user[i]);
        }
        reg_dlt[i] = 0;
        reg_prev[i] = NULL;
    }
    for (int i = 0; i < 3; i++) {
        if (reg_dlt[i] == pref_dlt[i] || !pref_dlt[i]) continue;
        int we = wtap_pcap_encap_to_wtap_encap((int)pref_dlt[i]);
        if (we <= 0) continue;
        dissector_handle_t prev = dissector_get_uint_handle(wt, (guint32)we);
        reg_prev[i] = (prev == fh_user[0] || prev == fh_user[1] || prev == fh_user[2]) ? NULL : prev;
        dissector_add_uint("wtap_encap", (guint32)we, fh_user[i]);
        reg_dlt[i] = pref_dlt[i];
    }
}

static void apply_prefs(void)
{
    prefs_to_opts();
    if (fh_user[0]) register_user_dlts();
    ub_neigh_apply();
}
void ub_ws_apply_prefs(void) { apply_prefs(); }

void proto_register_ub(void)
{
    proto_ub = proto_register_protocol("UnifiedBus", "UB", "ub");

    ub_ws_register_fields();
    static hf_register_info hf_static[] = {
        { &hf_ub_error, { "Error", "ub.error", FT_STRING, BASE_NONE, NULL, 0x0,
                          "libubparse error name (one item per error)", HFILL } },
    };
    proto_register_field_array(proto_ub, (hf_register_info *)(void *)ub_hf_array->data, (int)ub_hf_array->len);
    proto_register_field_array(proto_ub, hf_static, array_length(hf_static));
    ub_ws_register_anfields(proto_ub, UB_AF_STREAM_UNIT, UB_AF_STREAM_OPEN_BYTES); /* ub.stream.* */

    /* subtrees: one per header table */
    GPtrArray *etts = g_ptr_array_new();
    static gint *ett_static[] = { &ett_ub };
    for (unsigned i = 0; i < array_length(ett_static); i++) g_ptr_array_add(etts, ett_static[i]);
    for (unsigned id = 1; id < UB_H__COUNT; id++)
        if (ub_hdr_hf_slot[id] >= 0) g_ptr_array_add(etts, &ub_ett_hdr[id]);
    proto_register_subtree_array((gint *const *)etts->pdata, (int)etts->len);

    /* expert items: one per libubparse error code */
    ei_ub = g_new(expert_field, UB_E__COUNT);
    ei_register_info *eis = g_new0(ei_register_info, UB_E__COUNT);
    int nei = 0;
    for (unsigned c = 0; c < UB_E__COUNT; c++) {
        ei_ub[c].ei = EI_INIT_EI;
        ei_ub[c].hf = EI_INIT_HF;
        const ub_err_info *ei = ub_err_get(c);
        if (c == UB_E_NONE || !ei || !ei->name) continue;
        static const int grp[] = { PI_MALFORMED, PI_PROTOCOL, PI_SEQUENCE, PI_CHECKSUM };
        static const int sev[] = { PI_NOTE, PI_WARN, PI_ERROR };
        ei_register_info *r = &eis[nei++];
        r->ids = &ei_ub[c];
        r->eiinfo.name = g_strdup_printf("ub.err.%s", ei->name);
        r->eiinfo.group = ei->group < 4 ? grp[ei->group] : PI_PROTOCOL;
        r->eiinfo.severity = ei->severity < 3 ? sev[ei->severity] : PI_WARN;
        r->eiinfo.summary = ei->desc ? ei->desc : ei->name;
        /* EXPFILL */
        r->eiinfo.id = 0;
        r->eiinfo.protocol = NULL;
        r->eiinfo.hf_info.p_id = NULL;
        r->eiinfo.hf_info.hfinfo.name = NULL;
        r->eiinfo.hf_info.hfinfo.abbrev = NULL;
        r->eiinfo.hf_info.hfinfo.type = FT_NONE;
        r->eiinfo.hf_info.hfinfo.display = BASE_NONE;
        r->eiinfo.hf_info.hfinfo.id = -1;
        r->eiinfo.hf_info.hfinfo.ref_type = HF_REF_TYPE_NONE;
        r->eiinfo.hf_info.hfinfo.same_name_prev_id = -1;
        r->eiinfo.orig_severity = 0;
    }
    expert_module_t *em = expert_register_protocol(proto_ub);
    expert_register_field_array(em, eis, nei);

    /* preferences */
    opts_to_prefs_defaults();
    prefs_to_opts();
    module_t *m = prefs_register_protocol(proto_ub, apply_prefs);
    register_prefs(m);
    ub_an_register(proto_ub); /* analysis fields, prefs, taps, statistics */
    ub_an_register_prefs(m);

    h_flit = register_dissector("ub.flit", dissect_ub_flit, proto_ub);
    h_pkt = register_dissector("ub.pkt", dissect_ub_pkt, proto_ub);
    h_stream = register_dissector("ub.stream", dissect_ub_stream, proto_ub);
    h_cfgph = register_dissector("ub.cfgph", dissect_ub_cfgph, proto_ub);
    h_tph = register_dissector("ub", dissect_ub_tph, proto_ub);
    h_sll = register_dissector("ub.sll", dissect_ub_sll, proto_ub);
    h_sll2 = register_dissector("ub.sll2", dissect_ub_sll2, proto_ub);
    fh_user[0] = create_dissector_handle_with_name(dissect_front_flit, -1, "ub.front.flit");
    fh_user[1] = create_dissector_handle_with_name(dissect_front_pkt, -1, "ub.front.pkt");
    fh_user[2] = create_dissector_handle_with_name(dissect_front_stream, -1, "ub.front.stream");
    fh_sll[0] = create_dissector_handle_with_name(dissect_front_sll, -1, "ub.front.sll");
    fh_sll[1] = create_dissector_handle_with_name(dissect_front_sll2, -1, "ub.front.sll2");

    ub_ws_stream_register(proto_ub); /* packet-ub-stream.c: its subtrees and per-file state */
}

void proto_reg_handoff_ub(void)
{
    user_dlt_handle = find_dissector("user_dlt");
    user_dlt_uat = uat_get_table_by_name("User DLTs Table");
    register_user_dlts();
    dissector_add_uint("sll.hatype", ARPHRD_UB, h_cfgph); /* SLL protocol <= 1536 (ETH_P_UB) */
    dissector_table_t wt = find_dissector_table("wtap_encap");
    sll_orig[0] = wt ? dissector_get_uint_handle(wt, WTAP_ENCAP_SLL) : NULL;
    sll_orig[1] = wt ? dissector_get_uint_handle(wt, WTAP_ENCAP_SLL2) : NULL;
    if (sll_orig[0]) dissector_add_uint("wtap_encap", WTAP_ENCAP_SLL, fh_sll[0]);
    if (sll_orig[1]) dissector_add_uint("wtap_encap", WTAP_ENCAP_SLL2, fh_sll[1]);
    dissector_add_uint_with_preference("udp.port", UB_UDP_PORT, h_tph);
    udp_port_pref_ready = TRUE;
    ip_handle = find_dissector("ip");
    ipv6_handle = find_dissector("ipv6");
    heur_dissector_add("udp", dissect_ub_heur_udp, "UnifiedBus over UDP (UBoE)", "ub_udp", proto_ub,
                       HEURISTIC_ENABLE);
}

/* packet-neigh.c: the DLT_USER dissector when the DLT_USER table has an entry for dlt (the user's
 * choice wins, as for the USERn link types of UB), else NULL */
dissector_handle_t ub_ws_user_dlt(guint dlt)
{
    return dlt >= 147 && dlt <= 162 && user_dlt_handle && user_dlt_claims(dlt) ? user_dlt_handle : NULL;
}
