/* packet-ub-an.h — what packet-ub-analysis.c (engine, taps) and packet-ub-stats.c (conversation tables,
 * -z ub,srt, -z ub,tree) share. Private to the plugin. */
#ifndef PACKET_UB_AN_H
#define PACKET_UB_AN_H

#include <epan/address.h>

#include "packet-ub.h"

typedef struct an_match {
    guint32 other;     /* the other frame of the pair */
    guint8 kind;       /* 0 transaction, 1 management, 2 transport data <-> ack */
    guint8 flags;      /* AN_M_* */
    guint16 opcode;    /* ub_match.opcode */
    guint64 lat_ns;
} an_match;
enum {
    AN_M_RSP = 1u,     /* this frame is the response / ack (other = the request) */
    AN_M_SHOW = 2u,    /* shown in this frame's tree */
    AN_M_SRT = 4u,     /* counted by -z ub,srt when this frame is tapped: the frame whose first-pass
                        * dissection produced the match, so single-pass and two-pass agree */
};

/* What the analysis knows about one frame (file scope, only for frames with something to show). */
struct ub_an_frame {
    guint32 tp_channel;    /* channel index + 1, 0 none */
    guint32 tp_flags;      /* ub_tp_flags */
    guint32 expected_psn;
    an_match *matches;     /* nmatches of them (file scope, grown by doubling), NULL none */
    struct an_find *finds; /* nfinds of them, likewise */
    guint32 nmatches, capmatches, nfinds, capfinds;
};
typedef struct ub_an_frame an_frame;

/* What the analysis and the statistics need from one view. */
typedef struct an_pkt {
    const ub_layer *nth, *ip, *eidh, *rtph;
    address src, dst;       /* network endpoints: CNA, UB's CFG 3/4 IP, or the outer IP of UBoE */
    address seid, deid;     /* EIDH */
    guint32 stpn, dtpn;
    guint8 tpkind;          /* TPH of the packet: 1 RTPH, 2 UTPH, 3 CTPH, 0 none */
    address tps, tpd;       /* TP endpoints, AT_STRINGZ (when needed): RTP "address:0xTPN", UTP/CTP
                             * "address (UTP)" (channels as ubdump -z ub,tp) */
    guint8 ab[4][16];       /* the bytes of src, dst, seid, deid (the an_pkt lives as long as the dissection) */
} an_pkt;

typedef struct ub_tap_info {
    const ub_view *v;
    const an_pkt *p;
    const an_frame *fa;   /* the frame's analysis, on the first UB view of the frame only (SRT) */
    guint32 bytes;
} ub_tap_info;

/* packet-ub-analysis.c: the address types AT_UB_CNA / AT_UB_EID (registered in ub_an_register) */
extern int at_ub_cna, at_ub_eid;
/* packet-ub-analysis.c: value names of the TAOpcode (BTAH) and TPOpcode rows */
const ub_vname *ub_an_taop_vals(void);
const ub_vname *ub_an_tpop_vals(void);
/* packet-ub-analysis.c: name of a management match code (ub_match.opcode >> 8): MGMTETAH Code, or
 * enumeration CMD */
void ub_an_mgmt_code_name(guint code, char *buf, size_t n, gboolean with_number);

/* packet-ub-stats.c: the conversation tables of proto (network), proto_tp (TP channels) and proto_eid
 * (EID pairs), -z ub,srt and -z ub,tree */
void ub_an_register_stats(int proto, int proto_tp, int proto_eid);

#endif
