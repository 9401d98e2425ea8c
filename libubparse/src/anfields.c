/* ub.analysis.* and ub.stream.*: the one table (anfields.h) of the plugin's hf and of the
 * display filter's names. */
#include "ubparse/anfields.h"

#include <string.h>

static const ub_anfield anfields[UB_AF__COUNT] = {
    { UB_AF_ANALYSIS, "ub.analysis", "UB analysis", UB_AFT_NONE, UB_AFF_NONE,
      "Results of libubparse's protocol-state engine (ubdump --audit)" },
    { UB_AF_TP_CHANNEL, "ub.analysis.tp_channel", "TP channel index", UB_AFT_UINT32, UB_AFF_NONE,
      "Index of the TP channel (addresses and TPNs of both directions), like tcp.stream" },
    { UB_AF_EXPECTED_PSN, "ub.analysis.expected_psn", "Expected PSN", UB_AFT_UINT32, UB_AFF_NONE,
      "Next PSN expected on the channel before this packet" },
    { UB_AF_RESPONSE_IN, "ub.analysis.response_in", "Response in frame", UB_AFT_FRAMENUM, UB_AFF_RESPONSE,
      "The response (transaction or management) to this request" },
    { UB_AF_REQUEST_IN, "ub.analysis.request_in", "Request in frame", UB_AFT_FRAMENUM, UB_AFF_REQUEST,
      "The request (transaction or management) this is the response to" },
    { UB_AF_ACKED_IN, "ub.analysis.acked_in", "Acknowledged in frame", UB_AFT_FRAMENUM, UB_AFF_RESPONSE,
      "The first TPACK/TPSACK covering this RTP data packet" },
    { UB_AF_ACKS_FRAME, "ub.analysis.acks_frame", "This is an ack to the data in frame", UB_AFT_FRAMENUM, UB_AFF_ACK,
      "RTP data packet first acknowledged by this TPACK/TPSACK" },
    { UB_AF_LATENCY, "ub.analysis.latency", "Latency", UB_AFT_RELTIME, UB_AFF_NONE,
      "Time from the request (or data packet) to this response (or ack)" },
    { UB_AF_RULE, "ub.analysis.rule", "Audit rule", UB_AFT_STRING, UB_AFF_NONE,
      "Rule id of a protocol-state finding (docs/rules.md, ubdump -G rules)" },
    { UB_AF_RELATED, "ub.analysis.related_frame", "Related frame", UB_AFT_FRAMENUM, UB_AFF_NONE,
      "Frame cited by the finding (the first copy, the request, ...)" },
    { UB_AF_TP_SRC, "ub.analysis.tp_src", "TP source endpoint", UB_AFT_STRING, UB_AFF_NONE,
      "Source TP endpoint: address:0xSrcTPN (RTP), address (UTP) / (CTP)" },
    { UB_AF_TP_DST, "ub.analysis.tp_dst", "TP destination endpoint", UB_AFT_STRING, UB_AFF_NONE,
      "Destination TP endpoint: address:0xDstTPN (RTP), address (UTP) / (CTP)" },
    { UB_AF_TP_ENDPOINT, "ub.analysis.tp_endpoint", "TP endpoint", UB_AFT_STRING, UB_AFF_NONE,
      "Source or destination TP endpoint, for conversation filters" },
    /* raw flit streams (LINKTYPE_USER2): units delimited across records */
    { UB_AF_STREAM_UNIT, "ub.stream.unit", "Unit", UB_AFT_UINT32, UB_AFF_NONE,
      "DLLDP/DLLCB completed in this record of the raw flit stream" },
    { UB_AF_STREAM_STARTED_IN, "ub.stream.started_in", "Unit started in frame", UB_AFT_FRAMENUM, UB_AFF_NONE, NULL },
    { UB_AF_STREAM_CONTINUED_IN, "ub.stream.continued_in", "Continued in frame", UB_AFT_FRAMENUM, UB_AFF_NONE, NULL },
    { UB_AF_STREAM_OPEN_BYTES, "ub.stream.open_bytes", "Bytes of an incomplete unit", UB_AFT_UINT32, UB_AFF_NONE,
      "Tail of the record belonging to a unit completed later" },
    /* expert infos (the plugin registers them per expert group, severity and rule) */
    { UB_AF_FINDING, "ub.analysis.finding", "UB protocol-state finding", UB_AFT_EXPERT, UB_AFF_NONE, NULL },
};

const ub_anfield *ub_anfield_get(unsigned id)
{
    return id < UB_AF__COUNT ? &anfields[id] : NULL;
}

const ub_anfield *ub_anfield_find(const char *abbrev)
{
    for (unsigned i = 0; i < UB_AF__COUNT; i++)
        if (strcmp(anfields[i].abbrev, abbrev) == 0) return &anfields[i];
    return NULL;
}
