/* packet-ub-stats.c — the UB plugin's statistics from the "ub", "ub_tp" and "ub_eid" taps queued by
 * packet-ub-analysis.c (ub_an_view): conversation and endpoint tables (-z conv,ub / ub_tp / ub_eid),
 * service response times from the engine's matches (-z ub,srt) and packet counts (-z ub,tree). */
#include <wireshark.h>
#include <epan/packet.h>
#include <epan/tap.h>
#include <epan/conversation_table.h>
#include <epan/srt_table.h>
#include <epan/stats_tree.h>

#include <ubparse/ubparse.h>
#include <ubparse/iostat.h>

#include "packet-ub-an.h"

/* ------------------------------------------------------------------------------------------ */
/* Conversation tables and endpoints                                                           */
/* ------------------------------------------------------------------------------------------ */

static const char *net_filter(const address *a, conv_filter_type_e filter)
{
    if (a->type == at_ub_cna) {
        if (filter == CONV_FT_SRC_ADDRESS) return "ub.nth.scna";
        if (filter == CONV_FT_DST_ADDRESS) return "ub.nth.dcna";
        if (filter == CONV_FT_ANY_ADDRESS) return "ub.cna";
    } else if (a->type == AT_IPv4) {
        if (filter == CONV_FT_SRC_ADDRESS) return "ip.src";
        if (filter == CONV_FT_DST_ADDRESS) return "ip.dst";
        if (filter == CONV_FT_ANY_ADDRESS) return "ip.addr";
    } else if (a->type == AT_IPv6) {
        if (filter == CONV_FT_SRC_ADDRESS) return "ipv6.src";
        if (filter == CONV_FT_DST_ADDRESS) return "ipv6.dst";
        if (filter == CONV_FT_ANY_ADDRESS) return "ipv6.addr";
    } else if (a->type == AT_STRINGZ) { /* TP channel endpoint */
        if (filter == CONV_FT_SRC_ADDRESS) return "ub.analysis.tp_src";
        if (filter == CONV_FT_DST_ADDRESS) return "ub.analysis.tp_dst";
        if (filter == CONV_FT_ANY_ADDRESS) return "ub.analysis.tp_endpoint";
    } else if (a->type == at_ub_eid) {
        if (filter == CONV_FT_SRC_ADDRESS) return "ub.eidh.seid";
        if (filter == CONV_FT_DST_ADDRESS) return "ub.eidh.deid";
        if (filter == CONV_FT_ANY_ADDRESS && a->len == 3) return "ub.eid";
    }
    return CONV_FILTER_INVALID;
}

static const char *conv_filter(conv_item_t *c, conv_filter_type_e f) { return net_filter(&c->src_address, f); }
static const char *ep_filter(endpoint_item_t *e, conv_filter_type_e f) { return net_filter(&e->myaddress, f); }
static ct_dissector_info_t ub_ct_info = { &conv_filter };
static et_dissector_info_t ub_et_info = { &ep_filter };

/* one row of a conversation / endpoint table from the address pair a table keys on (nothing when the
 * packet has none) */
static tap_packet_status conv_add(void *pct, packet_info *pinfo, tap_flags_t flags, const ub_tap_info *ti,
                                  const address *s, const address *d)
{
    conv_hash_t *hash = (conv_hash_t *)pct;
    hash->flags = flags;
    if (s->type == AT_NONE) return TAP_PACKET_DONT_REDRAW;
    add_conversation_table_data(hash, s, d, 0, 0, 1, (int)ti->bytes, &pinfo->rel_ts, &pinfo->abs_ts, &ub_ct_info,
                                CONVERSATION_NONE);
    return TAP_PACKET_REDRAW;
}

static tap_packet_status ep_add(void *pit, tap_flags_t flags, const ub_tap_info *ti, const address *s, const address *d)
{
    conv_hash_t *hash = (conv_hash_t *)pit;
    hash->flags = flags;
    if (s->type == AT_NONE) return TAP_PACKET_DONT_REDRAW;
    add_endpoint_table_data(hash, s, 0, TRUE, 1, (int)ti->bytes, &ub_et_info, ENDPOINT_NONE);
    add_endpoint_table_data(hash, d, 0, FALSE, 1, (int)ti->bytes, &ub_et_info, ENDPOINT_NONE);
    return TAP_PACKET_REDRAW;
}

/* the tables: network addresses; TP channels as "address:TPN" endpoints (as ubdump -z ub,tp; the CLI
 * shows ports only for TCP/UDP/SCTP), so data and its acks are one conversation; EIDs */
#define UB_CONV_TAPS(name, s, d) \
    static tap_packet_status conv_##name##_packet(void *pct, packet_info *pinfo, epan_dissect_t *edt _U_, \
                                                  const void *vip, tap_flags_t flags) \
    { \
        const ub_tap_info *ti = (const ub_tap_info *)vip; \
        return conv_add(pct, pinfo, flags, ti, &ti->p->s, &ti->p->d); \
    } \
    static tap_packet_status ep_##name##_packet(void *pit, packet_info *pinfo _U_, epan_dissect_t *edt _U_, \
                                                const void *vip, tap_flags_t flags) \
    { \
        const ub_tap_info *ti = (const ub_tap_info *)vip; \
        return ep_add(pit, flags, ti, &ti->p->s, &ti->p->d); \
    }
UB_CONV_TAPS(net, src, dst)
UB_CONV_TAPS(tp, tps, tpd)
UB_CONV_TAPS(eid, seid, deid)
#undef UB_CONV_TAPS

/* ------------------------------------------------------------------------------------------ */
/* Service response time: -z ub,srt                                                           */
/* ------------------------------------------------------------------------------------------ */

enum { SRT_TA, SRT_MGMT, SRT_TP, SRT__N };

static void srt_rows(srt_stat_table *t, const ub_vname *vals, gboolean hex)
{
    for (int i = 0; i < 256; i++) {
        const char *nm = ub_vname_lookup(vals, (uint64_t)i);
        char b[96];
        if (hex) g_snprintf(b, sizeof b, "0x%02x %s", i, nm ? nm : "");
        else g_snprintf(b, sizeof b, "%d %s", i, nm ? nm : "");
        g_strchomp(b);
        init_srt_table_row(t, i, b);
    }
}

static void ub_srt_init(struct register_srt *srt _U_, GArray *srt_array)
{
    srt_stat_table *t;
    t = init_srt_table("UB transactions (request TAOpcode)", "Transactions", srt_array, 256, "TAOpcode",
                       "ub.btah.taopcode", NULL);
    srt_rows(t, ub_an_taop_vals(), TRUE);
    t = init_srt_table("UB management (Code; 8.. enumeration CMD)", "Management", srt_array, 256, "Code",
                       "ub.mgmtetah.code", NULL);
    for (int i = 0; i < 256; i++) {
        char b[96];
        ub_an_mgmt_code_name((guint)i, b, sizeof b, TRUE);
        init_srt_table_row(t, i, b);
    }
    t = init_srt_table("UB transport data to ack (ack TPOpcode)", "Transport acks", srt_array, 256, "TPOpcode",
                       "ub.rtph.tpopcode", NULL);
    srt_rows(t, ub_an_tpop_vals(), TRUE);
}

static tap_packet_status ub_srt_packet(void *pss, packet_info *pinfo, epan_dissect_t *edt _U_, const void *prv,
                                       tap_flags_t flags _U_)
{
    srt_data_t *data = (srt_data_t *)pss;
    const ub_tap_info *ti = (const ub_tap_info *)prv;
    if (!ti->fa || !ti->fa->nmatches || data->srt_array->len < SRT__N) return TAP_PACKET_DONT_REDRAW;
    gboolean any = FALSE;
    for (guint i = 0; i < ti->fa->nmatches; i++) {
        const an_match *m = &ti->fa->matches[i];
        if (!(m->flags & AN_M_SRT) || m->kind >= SRT__N) continue;
        int row = m->kind == 1 ? (m->opcode >> 8) & 0xFF : m->opcode & 0xFF;
        srt_stat_table *t = g_array_index(data->srt_array, srt_stat_table *, m->kind);
        nstime_t lat, req;
        lat.secs = (time_t)(m->lat_ns / 1000000000u);
        lat.nsecs = (int)(m->lat_ns % 1000000000u);
        nstime_delta(&req, &pinfo->abs_ts, &lat);
        add_srt_table_data(t, row, &req, pinfo);
        any = TRUE;
    }
    return any ? TAP_PACKET_REDRAW : TAP_PACKET_DONT_REDRAW;
}

/* ------------------------------------------------------------------------------------------ */
/* Stats tree: -z ub,tree (ubdump -z ub,cfg counts)                                            */
/* ------------------------------------------------------------------------------------------ */

/* the tree's shape and items come from libubparse (sttree.c), which ubdump -z ub,tree prints */
static int st_node[UB_STTREE_NPIVOT];
static ub_sttree *st_shape; /* field handles for ub_sttree_ticks, created once */

static void ub_stats_init(stats_tree *st)
{
    if (!st_shape) st_shape = ub_sttree_new();
    st_node[0] = stats_tree_create_node(st, ub_sttree_pivot_name(0), 0, STAT_DT_INT, TRUE);
    for (unsigned i = 1; i < UB_STTREE_NPIVOT; i++)
        st_node[i] = stats_tree_create_pivot(st, ub_sttree_pivot_name(i), st_node[0]);
}

static void st_tick(void *ctx, unsigned pivot, const char *name)
{
    if (pivot > 0 && pivot < UB_STTREE_NPIVOT) stats_tree_tick_pivot((stats_tree *)ctx, st_node[pivot], name);
}

static tap_packet_status ub_stats_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
                                         const void *p, tap_flags_t flags _U_)
{
    const ub_tap_info *ti = (const ub_tap_info *)p;
    tick_stat_node(st, ub_sttree_pivot_name(0), 0, FALSE);
    if (st_shape) ub_sttree_ticks(st_shape, ti->v, st_tick, st);
    return TAP_PACKET_REDRAW;
}

/* ------------------------------------------------------------------------------------------ */
/* Registration                                                                                */
/* ------------------------------------------------------------------------------------------ */

void ub_an_register_stats(int proto, int proto_tp, int proto_eid)
{
    register_conversation_table(proto, TRUE, conv_net_packet, ep_net_packet);
    register_conversation_table(proto_tp, TRUE, conv_tp_packet, ep_tp_packet);
    register_conversation_table(proto_eid, TRUE, conv_eid_packet, ep_eid_packet);
    register_srt_table(proto, "ub", SRT__N, ub_srt_packet, ub_srt_init, NULL);
    stats_tree_register_plugin("ub", "ub", "UnifiedBus/Packet counts", 0, ub_stats_packet, ub_stats_init, NULL);
}
