/* tshark's -z io,stat,INTERVAL[,FILTER]... for ubdump: frames and bytes per time interval, one
 * column per display filter (filter.h; no filter = every frame). Reentrant, one allocation per
 * column plus the interval rows (grown as the capture gets longer). */
#ifndef UBPARSE_IOSTAT_H
#define UBPARSE_IOSTAT_H

#include "ubparse/filter.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ub_iostat ub_iostat;

/* spec "io,stat,INTERVAL[,FILTER]..." (INTERVAL in seconds, 0 = the whole capture). NULL with a
 * message in err (a filter's error names its column in the spec). */
ub_iostat *ub_iostat_new(const char *spec, char *err, size_t errlen);
/* Does a column filter read ub.analysis.* (ub_filter_pkt.an needed)? */
bool ub_iostat_uses_analysis(const ub_iostat *s);
bool ub_iostat_uses_frame(const ub_iostat *s); /* a column filter reads frame or frame.* (ub_filter_uses_frame) */
/* Per frame: every decoded view of it (0..n), then the end of the frame. */
void ub_iostat_view(ub_iostat *s, const ub_view *v, const ub_filter_pkt *pk);
void ub_iostat_frame(ub_iostat *s, const ub_filter_pkt *pk);
/* The capture spans rel_ns from its first frame though no frame counted here comes that late (tshark
 * -2 -R: its first pass read records the run does not see): the table lasts that long. */
void ub_iostat_span(ub_iostat *s, uint64_t rel_ns);
/* The table in tshark's shape. */
void ub_iostat_print(const ub_iostat *s, FILE *out);
void ub_iostat_free(ub_iostat *s);

/* tshark's -z io,phs[,FILTER]: protocol hierarchy statistics, a frame counted on each protocol of its
 * frame.protocols (filter.h ub_ws_protocols; a flit-stream record: its first unit's) with its bytes on
 * the wire. spec "io,phs" or "io,phs,FILTER" (the rest of spec, commas included). NULL with a message
 * in err. Per frame: every decoded view (0..n), then the end of the frame (pk->len: its bytes). */
typedef struct ub_phs ub_phs;
ub_phs *ub_phs_new(const char *spec, char *err, size_t errlen);
bool ub_phs_uses_analysis(const ub_phs *p);
bool ub_phs_uses_frame(const ub_phs *p);
/* tshark shows the frame's own item, and so a top protocol "frame" on every path, when any filter or
 * field of the run reads frame or frame.* (-Y, -e, any -z table's filter): the caller says so */
void ub_phs_show_frame(ub_phs *p, bool on);
void ub_phs_view(ub_phs *p, const ub_view *v, const ub_filter_pkt *pk);
void ub_phs_frame(ub_phs *p, const ub_filter_pkt *pk);
void ub_phs_print(const ub_phs *p, FILE *out);
void ub_phs_free(ub_phs *p);

/* tshark's -z conv,ub and -z endpoints,ub (the plugin's tap "ub"): per UB view its network
 * addresses (NTH CNAs, else the first IP header), bytes (the frame's, or the unit's in a flit
 * stream) and time since the first frame. */
typedef struct ub_conv ub_conv;
ub_conv *ub_conv_new(void);
/* -z conv,ub_eid / endpoints,ub_eid (tap "ub_eid"): SEID/DEID pairs of the views with an EIDH. */
ub_conv *ub_conv_new_eid(void);
/* -z conv,ub_tp / endpoints,ub_tp (tap "ub_tp"): TP endpoints (ub_view_tp_endpoints). */
ub_conv *ub_conv_new_tp(void);
/* UB_CONV_ETH .. UB_CONV_UDP: Wireshark's own conversation / endpoint tables of the headers outside UB
 * ("conv,eth", "endpoints,ip", "conv,ipv6", "conv,tcp", "endpoints,udp"): per header its dissectors
 * show (the encapsulation, a plain IP part, traffic that is not UB), the frame's bytes */
enum { UB_CONV_NET, UB_CONV_EID, UB_CONV_TP, UB_CONV_ETH, UB_CONV_IP, UB_CONV_IPV6, UB_CONV_TCP, UB_CONV_UDP, UB_CONV__N };
ub_conv *ub_conv_new_kind(unsigned kind);
/* "conv,ub", "endpoints,ub_eid", ...: 0 with the kind (UB_CONV_*) and whether endpoints, -1 other. */
int ub_conv_parse(const char *z, unsigned *kind, bool *endpoints);
/* Same with tshark's tap filter: "conv,ub,FILTER" sets *filter (pointing into z), else NULL. */
int ub_conv_parse_filter(const char *z, unsigned *kind, bool *endpoints, const char **filter);
/* A table that counts only the views whose frame expr selects (compiled here; its text goes in the
 * "Filter:" line). NULL with a message in err. Feed it with ub_conv_view_pkt for each view of a
 * frame, then ub_conv_frame once (the filter judges all views of the frame together, as tshark). */
ub_conv *ub_conv_new_filtered(unsigned kind, const char *expr, char *err, size_t errlen);
bool ub_conv_uses_analysis(const ub_conv *c); /* its filter reads ub.analysis.* (ub_fan_scan first) */
bool ub_conv_uses_frame(const ub_conv *c);    /* ... frame or frame.* (ub_filter_uses_frame) */
void ub_conv_view_pkt(ub_conv *c, const ub_view *v, const ub_filter_pkt *pk, uint32_t bytes, uint64_t rel_ns);
void ub_conv_frame(ub_conv *c, const ub_filter_pkt *pk);
/* The TP endpoints of a view with an RTPH/UTPH/CTPH and network addresses (NTH CNAs, else the
 * first IP header), as the plugin's ub.analysis.tp_src/tp_dst: RTP "address:0xTPN", UTP/CTP
 * "address (UTP)". false: none. */
bool ub_view_tp_endpoints(const ub_view *v, char *src, char *dst, size_t n);
void ub_conv_view(ub_conv *c, const ub_view *v, uint32_t bytes, uint64_t rel_ns);
void ub_conv_print(ub_conv *c, FILE *out, bool endpoints);
void ub_conv_free(ub_conv *c);

/* tshark's -z ub,tree (the plugin's stats tree "UnifiedBus/Packet counts"): per UB view, rel_ns
 * since the first frame; printed in tshark 4.0's plain stats_tree layout (rates, bursts). */
typedef struct ub_sttree ub_sttree;
ub_sttree *ub_sttree_new(void);
void ub_sttree_view(ub_sttree *t, const ub_view *v, int64_t rel_ns);
void ub_sttree_print(const ub_sttree *t, FILE *out);
void ub_sttree_free(ub_sttree *t);
/* -z ub,tree,FILTER: counts only the views of frames expr selects (NULL with a message in err); feed
 * each view with ub_sttree_view_pkt, then ub_sttree_frame once per frame (the filter judges all views
 * of the frame together, as tshark). */
ub_sttree *ub_sttree_new_filtered(const char *expr, char *err, size_t errlen);
bool ub_sttree_uses_analysis(const ub_sttree *t);
bool ub_sttree_uses_frame(const ub_sttree *t);
void ub_sttree_view_pkt(ub_sttree *t, const ub_view *v, const ub_filter_pkt *pk, int64_t rel_ns);
void ub_sttree_frame(ub_sttree *t, const ub_filter_pkt *pk);
/* The tree's shape, shared with the plugin: pivot 0 is "UB packets" (ticked once per UB view), the
 * pivots 1..UB_STTREE_NPIVOT-1 its children; ub_sttree_ticks calls fn with (pivot, item name) for
 * every item of the view (its CFG, then TAOpcode/TPOpcode/DLLCB type/Code per layer). t: any tree
 * (its field handles). */
#define UB_STTREE_NPIVOT 7
const char *ub_sttree_pivot_name(unsigned pivot);
typedef void (*ub_sttree_tick_fn)(void *ctx, unsigned pivot, const char *name);
void ub_sttree_ticks(const ub_sttree *t, const ub_view *v, ub_sttree_tick_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
