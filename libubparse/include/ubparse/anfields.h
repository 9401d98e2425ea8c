/* The analysis fields (ub.analysis.*) and raw-stream fields (ub.stream.*): names, types, labels
 * and descriptions in one table. The Wireshark plugin registers its hf from it and the display
 * filter (ubdump -Y) and ubdump -T fields -e look the names up in it. The TP sequence-analysis expert items
 * (ub.analysis.retransmission, ...) are expert.h's ub_tp_flag_info table. */
#ifndef UBPARSE_ANFIELDS_H
#define UBPARSE_ANFIELDS_H

#include <stddef.h>
#include <stdint.h>

/* field ids, in the plugin's registration order */
typedef enum ub_af_id {
    UB_AF_ANALYSIS,       /* ub.analysis: the subtree */
    UB_AF_TP_CHANNEL,
    UB_AF_EXPECTED_PSN,
    UB_AF_RESPONSE_IN,
    UB_AF_REQUEST_IN,
    UB_AF_ACKED_IN,
    UB_AF_ACKS_FRAME,
    UB_AF_LATENCY,
    UB_AF_RULE,
    UB_AF_RELATED,
    UB_AF_TP_SRC,
    UB_AF_TP_DST,
    UB_AF_TP_ENDPOINT,
    UB_AF_STREAM_UNIT,
    UB_AF_STREAM_STARTED_IN,
    UB_AF_STREAM_CONTINUED_IN,
    UB_AF_STREAM_OPEN_BYTES,
    UB_AF_FINDING,        /* the expert item of every finding (registered by the plugin as expert info) */
    UB_AF__COUNT
} ub_af_id;

typedef enum ub_af_type {
    UB_AFT_NONE,     /* a subtree: presence only */
    UB_AFT_UINT32,   /* decimal */
    UB_AFT_FRAMENUM,
    UB_AFT_RELTIME,  /* ns */
    UB_AFT_STRING,
    UB_AFT_EXPERT,   /* an expert item's name (FT_NONE): presence only */
} ub_af_type;

/* Wireshark's frame-number kind of a UB_AFT_FRAMENUM (FT_FRAMENUM_*) */
typedef enum ub_af_frame { UB_AFF_NONE, UB_AFF_REQUEST, UB_AFF_RESPONSE, UB_AFF_ACK } ub_af_frame;

typedef struct ub_anfield {
    ub_af_id id;
    const char *abbrev;  /* "ub.analysis.tp_channel" */
    const char *name;    /* label: "TP channel index" */
    uint8_t type;        /* ub_af_type */
    uint8_t frame;       /* ub_af_frame */
    const char *desc;    /* NULL: none */
} ub_anfield;

/* The field with this id, NULL past the end. */
const ub_anfield *ub_anfield_get(unsigned id);
/* The field named abbrev, NULL if none. */
const ub_anfield *ub_anfield_find(const char *abbrev);

#endif
