/* ub.analysis.* / ub.stream.* as values (ubdump -T fields -e): the occurrences of an analysis field
 * in one frame, in the order and the text tshark prints for the plugin's items
 * (dissector/packet-ub-analysis.c, packet-ub.c): FT_NONE items (the ub.analysis subtree, expert
 * items) print "1", frame numbers and integers in decimal, latencies in seconds with 9 decimals.
 * Names: anfields.h's table and the TP flags of expert.h (ub.analysis.<ub_tp_flag_info name>). */
#include "ubparse/anfields.h"
#include "ubparse/expert.h"
#include "ubparse/filter.h"
#include "ubparse/iostat.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define TPF_PREFIX "ub.analysis."

int ub_fan_field_find(const char *name)
{
    const ub_anfield *af = ub_anfield_find(name);
    if (af) return (int)af->id;
    if (strncmp(name, TPF_PREFIX, sizeof TPF_PREFIX - 1) != 0) return -1;
    const ub_tp_flag_info *fi;
    for (unsigned i = 0; (fi = ub_tp_flag_info_get(i)) != NULL; i++)
        if (strcmp(fi->name, name + sizeof TPF_PREFIX - 1) == 0) return (int)(UB_AF__COUNT + i);
    return -1;
}

bool ub_fan_field_from_view(int field)
{
    return field == UB_AF_TP_SRC || field == UB_AF_TP_DST || field == UB_AF_TP_ENDPOINT;
}

const char *ub_fan_field_name(int field, char *buf, size_t n, const char **label)
{
    const ub_anfield *af = field >= 0 ? ub_anfield_get((unsigned)field) : NULL;
    if (af) {
        if (label) *label = af->name;
        return af->abbrev;
    }
    const ub_tp_flag_info *fi = field >= UB_AF__COUNT ? ub_tp_flag_info_get((unsigned)field - UB_AF__COUNT) : NULL;
    if (!fi || !n) return NULL;
    if (label) *label = fi->summary;
    snprintf(buf, n, TPF_PREFIX "%s", fi->name);
    return buf;
}

static void put_u(ub_fan_put put, void *ctx, uint64_t x)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, x);
    put(ctx, b);
}

/* request_in / response_in / acked_in / acks_frame / latency: one per match of that kind */
static unsigned match_values(int field, const ub_fan *a, ub_fan_put put, void *ctx)
{
    unsigned n = 0;
    for (unsigned i = 0; i < a->nmatch; i++) {
        const ub_fan_match *m = &a->match[i];
        bool tr = m->kind == 2, on;
        switch (field) {
        case UB_AF_RESPONSE_IN: on = !tr && !m->rsp; break;
        case UB_AF_REQUEST_IN: on = !tr && m->rsp; break;
        case UB_AF_ACKED_IN: on = tr && !m->rsp; break;
        case UB_AF_ACKS_FRAME: on = tr && m->rsp; break;
        case UB_AF_LATENCY: on = m->rsp; break;
        default: on = false; break;
        }
        if (!on) continue;
        n++;
        if (field != UB_AF_LATENCY) {
            put_u(put, ctx, m->other);
            continue;
        }
        char b[48]; /* FT_RELATIVE_TIME: seconds, 9 decimals, as tshark */
        int64_t ns = (int64_t)m->lat_ns;
        uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        snprintf(b, sizeof b, "%s%" PRIu64 ".%09" PRIu64, ns < 0 ? "-" : "", u / 1000000000u, u % 1000000000u);
        put(ctx, b);
    }
    return n;
}

unsigned ub_fan_values(int field, const ub_fan *a, const ub_view *v, ub_fan_put put, void *ctx)
{
    if (ub_fan_field_from_view(field)) { /* the view's TP endpoints: tp_endpoint is src, then dst */
        char ep[2][64];
        if (!v || !ub_view_tp_endpoints(v, ep[0], ep[1], sizeof ep[0])) return 0;
        unsigned n = 0;
        for (unsigned i = field == UB_AF_TP_DST ? 1 : 0; i < (field == UB_AF_TP_SRC ? 1u : 2u); i++, n++) put(ctx, ep[i]);
        return n;
    }
    if (!a || field < 0) return 0;
    if (field >= UB_AF__COUNT) { /* a TP sequence-analysis expert item */
        const ub_tp_flag_info *fi = ub_tp_flag_info_get((unsigned)field - UB_AF__COUNT);
        if (!fi || !(a->tp_flags & fi->bit)) return 0;
        put(ctx, "1");
        return 1;
    }
    unsigned n = 0;
    switch (field) {
    case UB_AF_ANALYSIS:
        if (!(a->tp_channel || a->tp_flags || a->nfind || a->nmatch)) return 0;
        put(ctx, "1");
        return 1;
    case UB_AF_TP_CHANNEL:
        if (!a->tp_channel) return 0;
        put_u(put, ctx, a->tp_channel - 1);
        return 1;
    case UB_AF_EXPECTED_PSN:
        if (!(a->tp_flags & (UB_TPF_RETRANSMISSION | UB_TPF_OUT_OF_ORDER | UB_TPF_LOST_BEFORE | UB_TPF_DUPLICATE))) return 0;
        put_u(put, ctx, a->expected_psn);
        return 1;
    case UB_AF_RULE:
        for (; n < a->nfind; n++) {
            const ub_rule *r = ub_rule_get(a->rule[n]);
            put(ctx, r ? r->id : "");
        }
        return n;
    case UB_AF_FINDING:
        for (; n < a->nfind; n++) put(ctx, "1");
        return n;
    case UB_AF_RELATED:
        for (; n < a->nrel; n++) put_u(put, ctx, a->rel[n]);
        return n;
    case UB_AF_STREAM_UNIT: /* the record's units 1..n, as the plugin's items */
        for (; n < a->st_units; n++) put_u(put, ctx, n + 1);
        return n;
    case UB_AF_STREAM_STARTED_IN:
        if (!a->st_started_in) return 0;
        put_u(put, ctx, a->st_started_in);
        return 1;
    case UB_AF_STREAM_CONTINUED_IN:
        if (!a->st_open || !a->st_continued_in) return 0;
        put_u(put, ctx, a->st_continued_in);
        return 1;
    case UB_AF_STREAM_OPEN_BYTES:
        if (!a->st_open) return 0;
        put_u(put, ctx, a->st_open_bytes);
        return 1;
    default:
        return match_values(field, a, put, ctx);
    }
}
