/* UB (UnifiedBus) dissector plugin: what plugin.c, packet-ub.c and packet-ub-analysis.c share. */
#ifndef PACKET_UB_H
#define PACKET_UB_H

#include <epan/packet.h>
#include <epan/prefs.h>
#include <ubparse/ubparse.h>
#include <ubparse/anfields.h>

/* packet-ub.c: registration entry points (plugin.c) */
void proto_register_ub(void);
void proto_reg_handoff_ub(void);

/* packet-ub.c: the libubparse options in force (from the preferences) */
const ub_opts *ub_ws_opts(void);
/* packet-ub.c: a view to decode into, valid until the end of this dissection (recycled); pinfo NULL:
 * g_malloc'ed, g_free it */
ub_view *ub_ws_view_new(packet_info *pinfo);
/* the pcap link type of the frame's encapsulation when libubparse decodes it from its link header
 * (Ethernet, Linux cooked v1/v2, raw IP), else 0 */
guint32 ub_ws_frame_linktype(const packet_info *pinfo);
/* keys of proto_ub's proto data: 0 file scope (raw flit streams), pinfo->pool: 7 first view of the frame
 * (packet-ub-analysis.c) */
/* packet-ub.c: the DLT_USER dissector when its table has an entry for this DLT, else NULL */
dissector_handle_t ub_ws_user_dlt(guint dlt);
/* packet-ub.c: the bytes of a tvb (an empty buffer for none), the offset of p in [base, base + n] (-1
 * outside), the UB tree of a view decoded from all of tvb */
const guint8 *ub_ws_tvb_bytes(tvbuff_t *tvb, guint32 *len);
gint64 ub_ws_buf_off(const void *p, const void *base, size_t n);
proto_item *ub_ws_add_view(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, ub_view *v, const char *title);

/* packet-ub-stream.c: raw flit streams (LINKTYPE_USER2): the dissector, its registration (subtrees,
 * per-file state), and the units still open in every stream handed to cb (end of the first pass) */
int ub_ws_dissect_stream(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree);
void ub_ws_stream_register(int proto);
void ub_ws_stream_flush_all(ub_unit_cb cb, void *ctx);

/* packet-ub-fields.c: the items of the schema rows (built once, before proto_register_field_array) */
void ub_ws_register_fields(void);
/* ub.analysis.* / ub.stream.*: the hf of ubparse/anfields.h rows first..last, ids in ub_af_hf */
extern int ub_af_hf[UB_AF__COUNT];
void ub_ws_register_anfields(int proto, unsigned first, unsigned last);
extern GArray *ub_hf_array;   /* hf_register_info of every schema row and header */
extern GArray *ub_hf_neigh;   /* the same for the neighbours' rows (sue.*, pcieflit.*): packet-neigh.c */
extern int *ub_hf_ids;        /* their ids */
extern int *ub_hdr_hf_slot;   /* [UB_H__COUNT] -> index into ub_hf_ids of the header item, -1 none */
extern gint *ub_ett_hdr;      /* [UB_H__COUNT] subtree of a header table */
/* an FT_NONE item of a visible tree labelled text (proto_tree_add_none_format(..., "%s", text) without printf) */
proto_item *ub_ws_add_labelled(proto_tree *tree, int hf, tvbuff_t *tvb, gint off, gint len, const char *text);
/* the label of item it := text[0..n) (n < ITEM_LABEL_LENGTH; nothing for a hidden or faked item) */
void ub_ws_set_label(proto_item *it, const char *text, size_t n);
/* packet-ub.c: col_prepend_fence_fstr(cinfo, col, "%s", text) without printf */
void ub_ws_col_prepend_fence(column_info *cinfo, gint col, const char *text);
void ub_ws_add_layer_fields(proto_tree *sub, const ub_layer *l, tvbuff_t *tvb, gint loff, gint llen,
                            packet_info *pinfo);

/* packet-ub-analysis.c: state engine, taps, statistics (addresses: packet-ub-addr.c) */
void ub_an_register(int proto_ub);
void ub_an_register_prefs(module_t *m);
/* every decoded view: Source/Destination, hidden address fields in tree, the engine (first pass),
 * the taps; bytes = length counted in the conversation tables */
void ub_an_view(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, const ub_view *v, guint32 bytes);
/* once per frame, after its views: the ub.analysis subtree, expert infos, Info column tags */
void ub_an_show(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree);

/* packet-ub-analysis.c, for the neighbours: feed a view to the engine (first pass), and the findings
 * at a frame (Wireshark expert group and severity, ubdump's finding line) */
void ub_an_feed(packet_info *pinfo, const ub_view *v);
typedef void (*ub_an_find_cb)(void *ctx, int group, int severity, const char *text);
void ub_an_findings(packet_info *pinfo, ub_an_find_cb cb, void *ctx);

/* packet-neigh.c: SUE, PCIe flits, the RoCEv2 audit (docs/neighbours.md) */
void proto_register_ub_neigh(void);
void proto_reg_handoff_ub_neigh(void);
/* packet-neigh.c: (re-)register the UDP port, EtherTypes and link type of the options in force */
void ub_neigh_apply(void);
/* packet-neigh-prefs.c: the neighbours' options as preferences of ub_module (udp4791, dlt.pcieflit, ...),
 * sue_module (sue.*) and flit_module (pcieflit.*), from the library's option table; their values into o */
void ub_neigh_register_prefs(module_t *ub_module, module_t *sue_module, module_t *flit_module);
void ub_neigh_prefs_to_opts(ub_opts *o);
/* packet-ub.c: the preferences changed (the ub module's and the sue module's apply callback) */
void ub_ws_apply_prefs(void);

#endif
