/* packet-ub-an.h — what packet-ub-analysis.c (engine, taps), packet-ub-addr.c (field handles, addresses)
 * and packet-ub-stats.c (conversation tables, -z ub,srt, -z ub,tree) share. Private to the plugin. */
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

/* packet-ub-addr.c: a schema field resolved once to every table that defines it */
#define AN_FH_MAX 8
typedef struct an_fh {
    const ub_hdr *h[AN_FH_MAX];
    const ub_field *f[AN_FH_MAX];
    guint8 pn[AN_FH_MAX];  /* fh_plain rows: their bytes (0: not plain) at byte po */
    guint16 po[AN_FH_MAX];
    guint n;
} an_fh;
extern an_fh f_scna, f_dcna, f_seid, f_deid;
void ub_an_fields_init(void);
gboolean ub_an_fh_get(const an_fh *fh, const ub_layer *l, ub_val *v);
/* packet-ub-addr.c: the network, EID and TP endpoints of view v (an_pkt) */
void ub_an_scan(packet_info *pinfo, const ub_view *v, an_pkt *p);
/* packet-ub-addr.c: the address types AT_UB_CNA / AT_UB_EID (ub_an_register_addr, from ub_an_register) */
extern int at_ub_cna, at_ub_eid;
void ub_an_register_addr(void);
/* packet-ub-addr.c: value names of the TAOpcode (BTAH) and TPOpcode rows */
const ub_vname *ub_an_taop_vals(void);
const ub_vname *ub_an_tpop_vals(void);
/* packet-ub-addr.c: name of a management match code (ub_match.opcode >> 8): MGMTETAH Code, or
 * enumeration CMD */
void ub_an_mgmt_code_name(guint code, char *buf, size_t n, gboolean with_number);

/* packet-ub-stats.c: the conversation tables of proto (network), proto_tp (TP channels) and proto_eid
 * (EID pairs), -z ub,srt and -z ub,tree */
void ub_an_register_stats(int proto, int proto_tp, int proto_eid);

#endif
