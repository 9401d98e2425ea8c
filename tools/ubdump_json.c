/* ubdump -T json / -T ek in tshark's shape (ubdump_out.h): one document per packet,
 * {"_index", "_type", "_score", "_source": {"layers": {"frame": {...}, <outer protocols>, "ub": {...}}}}
 * with every value a string formatted as tshark shows it (the schema's -T fields format; byte strings
 * colon-separated), UB headers as objects inside "ub" nested by tree depth (ub.cci inside ub.nth, as
 * the plugin's tree). -T ek: the Elasticsearch bulk form, an index line and a flattened document. */
#include "ubdump_out.h"
#include "ubparse/expert.h"
#include "ubparse/filter.h"
#include "ubparse/iostat.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* Ethernet/IP/UDP before the first UB header (UBoE) are Wireshark's own top-level layers with its
 * own names (filter.h ub_ws_names); SLL, the CFG pseudo-header and IP/UDP inside a UB packet belong
 * to the plugin's "ub" tree */
static const char *outer_proto(const ub_hdr *h)
{
    const ub_wsname *w = ub_ws_proto(h);
    return w ? w->ws : NULL;
}

/* A neighbour's header (not UB: infiniband.bth, sue.rh, pcieflit.flit) is its own top-level protocol,
 * named by the prefix of its abbrev, as Wireshark's own dissectors show them */
static const char *foreign_proto(const ub_hdr *h, char *buf, size_t n)
{
    if (!ub_hdr_foreign(h)) return NULL;
    size_t k = strcspn(h->abbrev, ".");
    snprintf(buf, n, "%.*s", (int)k, h->abbrev);
    return buf;
}

/* the protocol a layer is shown under outside "ub" (NULL: inside "ub"): Ethernet/IP/UDP before the
 * first UB header, the plain IP part of a CFG 3/4 packet (handed to Wireshark's IP dissector), and
 * the neighbours' headers */
static const char *top_proto(const ub_view *v, unsigned i, bool in_ub, unsigned plo, unsigned phi, char *buf, size_t n)
{
    const ub_hdr *h = v->layer[i].hdr;
    const char *fp = foreign_proto(h, buf, n);
    if (fp) return fp;
    bool plain = i >= plo && i < phi;
    if (!in_ub || plain) { /* undecoded bytes: Wireshark's "data" in plain IP and in frames that are not UB */
        const char *op = outer_proto(h);
        if (op && (h->id != UB_H_DATA || plain || !ub_view_ub(v))) return op;
    }
    return NULL;
}

/* a field's value as tshark shows it in JSON: -T fields text, byte strings as aa:bb:cc */
static bool field_text(const ub_layer *l, const ub_field *fd, char *buf, size_t n)
{
    ub_val val;
    if (ub_field_value(l, fd, &val) != 0) return false;
    if (fd->type == UB_FT_BYTES || fd->type == UB_FT_GUID || fd->type == UB_FT_GUID_WS) { /* wire order */
        size_t k = 0;
        buf[0] = '\0';
        for (uint32_t i = 0; i < val.nbytes && k + 4 < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ":%02x" : "%02x", val.bytes[i]);
        return true;
    }
    if (ubx_value_ws(fd, &val, buf, n)) return true;
    ub_format_value(fd, &val, false, buf, n);
    return true;
}

static void ind(FILE *f, int d) { fprintf(f, "\n%*s", 2 * d, ""); }

/* "key": "value" of the frame layer, shared by json and ek */
typedef void (*kv_fn)(FILE *f, void *ctx, const char *proto, const char *key, const char *val, bool boolean);

static void frame_kvs(FILE *f, const ubx_pkt *p, kv_fn kv, void *ctx, bool ek)
{
    char t[64];
    if (p->pcapng) {
        snprintf(t, sizeof t, "%" PRIu32, p->r->ifindex);
        kv(f, ctx, "frame", "frame.interface_id", t, false);
    }
    if (p->r->dir) {
        snprintf(t, sizeof t, "0x%08x", (unsigned)p->r->dir);
        kv(f, ctx, "frame", "frame.packet_flags_direction", t, false);
    }
    if (ek) { /* ISO 8601 UTC in the bulk form */
        ubx_time(t, sizeof t, UBX_T_UD, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
        char *sp = strchr(t, ' ');
        if (sp) *sp = 'T';
        strcat(t, "Z");
    } else {
        ubx_frame_time(t, sizeof t, p->r->ts_ns);
    }
    kv(f, ctx, "frame", "frame.time", t, false);
    ubx_time(t, sizeof t, UBX_T_E, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    kv(f, ctx, "frame", "frame.time_epoch", t, false);
    ubx_time(t, sizeof t, UBX_T_D, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    kv(f, ctx, "frame", "frame.time_delta", t, false);
    ubx_time(t, sizeof t, UBX_T_DD, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    kv(f, ctx, "frame", "frame.time_delta_displayed", t, false);
    ubx_time(t, sizeof t, UBX_T_R, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    kv(f, ctx, "frame", "frame.time_relative", t, false);
    snprintf(t, sizeof t, "%" PRIu64, p->r->frame);
    kv(f, ctx, "frame", "frame.number", t, false);
    snprintf(t, sizeof t, "%" PRIu32, p->r->origlen);
    kv(f, ctx, "frame", "frame.len", t, false);
    snprintf(t, sizeof t, "%" PRIu32, p->len);
    kv(f, ctx, "frame", "frame.cap_len", t, false);
}

static void index_name(char *buf, size_t n, uint64_t ts_ns)
{
    time_t sec = (time_t)(ts_ns / 1000000000u);
    struct tm tm;
    if (!gmtime_r(&sec, &tm)) memset(&tm, 0, sizeof tm);
    snprintf(buf, n, "packets-%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/* the start of one packet's document: -T ek its bulk index line, -T json the envelope up to "layers" */
static void doc_open(FILE *f, const ubx_pkt *p, bool ek, bool first)
{
    char idx[40];
    index_name(idx, sizeof idx, p->r->ts_ns);
    if (ek) { /* tshark: seconds then 3 digits of milliseconds */
        fprintf(f, "{\"index\":{\"_index\":\"%s\",\"_type\":\"doc\"}}\n", idx);
        fprintf(f, "{\"timestamp\":\"%" PRIu64 "%03u\",\"layers\":{", p->r->ts_ns / 1000000000u,
                (unsigned)(p->r->ts_ns % 1000000000u / 1000000u));
    } else {
        fprintf(f, "%s  {\n    \"_index\": \"%s\",\n    \"_type\": \"doc\",\n    \"_score\": null,\n    \"_source\": {\n"
                   "      \"layers\": {",
                first ? "" : ",\n", idx);
    }
}

/* ------------------------------------------------------------------ -T json */
typedef struct jctx {
    bool first; /* first member of the open object */
    int depth;
} jctx;

static void json_kv(FILE *f, void *ctx, const char *proto, const char *key, const char *val, bool boolean)
{
    jctx *j = ctx;
    (void)proto;
    (void)boolean;
    if (!j->first) fputc(',', f);
    j->first = false;
    ind(f, j->depth);
    jstr(f, key);
    fputs(": ", f);
    jstr(f, val);
}

static void json_open(FILE *f, jctx *j, const char *key)
{
    if (!j->first) fputc(',', f);
    ind(f, j->depth);
    jstr(f, key);
    fputs(": {", f);
    j->depth++;
    j->first = true;
}

static void json_close(FILE *f, jctx *j)
{
    j->depth--;
    ind(f, j->depth);
    fputc('}', f);
    j->first = false;
}

/* the fields of one layer */
static void layer_kvs(FILE *f, const ub_layer *l, const char *proto, kv_fn kv, void *ctx)
{
    char buf[3 * UB_MAX_NETPKT + 64]; /* the longest byte string, aa:bb:... */
    for (unsigned k = 0; k < l->hdr->nfields; k++) {
        const ub_field *fd = &l->hdr->fields[k];
        if (field_text(l, fd, buf, sizeof buf)) kv(f, ctx, proto, fd->abbrev, buf, fd->type == UB_FT_BOOL);
    }
}

/* the row of l's header named abbrev, -1 if none */
static int row_of(const ub_layer *l, const char *abbrev)
{
    for (unsigned k = 0; k < l->hdr->nfields; k++)
        if (strcmp(l->hdr->fields[k].abbrev, abbrev) == 0) return (int)k;
    return -1;
}

/* the value of row name of layer l as FT_UINT24 hex (the plugin's hidden ub.cna / ub.eid) */
static bool u24(const ub_layer *l, const char *name, char *buf, size_t n)
{
    int k = row_of(l, name);
    ub_val val;
    if (k < 0 || ub_field_value(l, &l->hdr->fields[k], &val) != 0) return false;
    snprintf(buf, n, "0x%06" PRIx64, val.u & 0xffffff);
    return true;
}

/* the first layer of v with header id a or b, NULL if none */
static const ub_layer *first_of(const ub_view *v, unsigned a, unsigned b)
{
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++)
        if (v->layer[i].hdr && (v->layer[i].hdr->id == a || v->layer[i].hdr->id == b)) return &v->layer[i];
    return NULL;
}

/* the plugin's hidden per-view fields after the headers (dissector/packet-ub-analysis.c ub_an_view):
 * ub.cna (both CNAs of the first NTH), ub.eid (both compact EIDs of the first EIDH),
 * ub.analysis.tp_src / tp_dst / tp_endpoint (twice: source, destination) */
static void view_an_kvs(FILE *f, const ub_view *v, kv_fn kv, void *ctx)
{
    char a[64], b[64];
    const ub_layer *l = first_of(v, UB_H_NTH16, UB_H_NTH24);
    if (l && u24(l, "ub.nth.scna", a, sizeof a) && u24(l, "ub.nth.dcna", b, sizeof b)) {
        kv(f, ctx, "ub", "ub.cna", a, false);
        kv(f, ctx, "ub", "ub.cna", b, false);
    }
    l = first_of(v, UB_H_EIDH40, UB_H_EIDH256);
    if (l && l->hdr->id == UB_H_EIDH40 && u24(l, "ub.eidh.seid", a, sizeof a) && u24(l, "ub.eidh.deid", b, sizeof b)) {
        kv(f, ctx, "ub", "ub.eid", a, false);
        kv(f, ctx, "ub", "ub.eid", b, false);
    }
    if (ub_view_tp_endpoints(v, a, b, sizeof a)) {
        kv(f, ctx, "ub", "ub.analysis.tp_src", a, false);
        kv(f, ctx, "ub", "ub.analysis.tp_dst", b, false);
        kv(f, ctx, "ub", "ub.analysis.tp_endpoint", a, false);
        kv(f, ctx, "ub", "ub.analysis.tp_endpoint", b, false);
    }
}

/* a Wireshark name's value as tshark shows it: the row's own text, or a span of rows / a scaled row
 * / a wider hex field / a boolean as a number */
static bool ws_text(const ub_layer *l, const ub_wsname *w, char *buf, size_t n)
{
    int a = row_of(l, w->ub[0]), b = w->flags & UB_WS_SPAN ? row_of(l, w->ub[1]) : a;
    if (a < 0 || b < a) return false;
    const ub_field *fd = &l->hdr->fields[a];
    if (a == b && !w->scale && !w->hex && !(w->flags & UB_WS_BOOL)) return field_text(l, fd, buf, n);
    uint64_t v = 0;
    for (int k = a; k <= b; k++) {
        ub_val val;
        if (ub_field_value(l, &l->hdr->fields[k], &val) != 0) return false;
        v = (v << l->hdr->fields[k].bits) | val.u;
    }
    if (w->scale) v *= w->scale;
    if (w->hex) snprintf(buf, n, "0x%0*" PRIx64, (int)w->hex, v);
    else snprintf(buf, n, "%" PRIu64, v);
    return true;
}

/* the fields of a layer Wireshark dissects itself (eth, ip, udp, ...), under its names; -T json
 * (j != NULL) puts a name's sub-items in "<name>_tree" as tshark does */
static void ws_layer_kvs(FILE *f, const ub_layer *l, const char *proto, kv_fn kv, void *ctx, jctx *j)
{
    size_t nw;
    const ub_wsname *w = ub_ws_names(&nw);
    char buf[3 * UB_MAX_NETPKT + 64], key[96]; /* data.data: the longest byte string */
    size_t pl = strlen(proto);
    for (size_t i = 0; i < nw; i++) {
        if ((w[i].flags & UB_WS_NOJSON) || w[i].parent || strncmp(w[i].ws, proto, pl) != 0 || w[i].ws[pl] != '.') continue;
        if (!ws_text(l, &w[i], buf, sizeof buf)) continue;
        kv(f, ctx, proto, w[i].ws, buf, w[i].flags & UB_WS_BOOL);
        bool sub = false;
        for (size_t c = i + 1; c < nw && w[c].parent && strcmp(w[c].parent, w[i].ws) == 0; c++) {
            if (!ws_text(l, &w[c], buf, sizeof buf)) continue;
            if (j && !sub) {
                snprintf(key, sizeof key, "%s_tree", w[i].ws);
                json_open(f, j, key);
            }
            sub = true;
            kv(f, ctx, proto, w[c].ws, buf, w[c].flags & UB_WS_BOOL);
        }
        if (j && sub) json_close(f, j);
    }
}

/* a top-level layer's fields: Wireshark's names for its own protocols, the schema's otherwise */
static void top_layer_kvs(FILE *f, const ub_layer *l, const char *proto, kv_fn kv, void *ctx, jctx *j)
{
    const char *wp = outer_proto(l->hdr);
    if (wp && strcmp(wp, proto) == 0) ws_layer_kvs(f, l, proto, kv, ctx, j);
    else layer_kvs(f, l, proto, kv, ctx);
}

/* ------------------------------------------------------------------ ub.analysis */
/* Wireshark's expert severities and groups (epan/proto.h PI_*) */
static const char *const pi_sev[3] = { "4194304", "6291456", "8388608" }; /* PI_NOTE, PI_WARN, PI_ERROR */
static const char *pi_group(unsigned g)
{
    switch (g) { /* ub_egroup */
    case UB_EG_MALFORMED: return "117440512"; /* PI_MALFORMED */
    case UB_EG_SEQUENCE: return "33554432";   /* PI_SEQUENCE */
    case UB_EG_CHECKSUM: return "16777216";   /* PI_CHECKSUM */
    default: return "150994944";              /* PI_PROTOCOL */
    }
}

/* the analysis a one-pass tshark shows in frame: what the engine knew once it had read the frame */
static bool an_any(const ub_fan *a, uint64_t frame)
{
    if (!a) return false;
    if (a->tp_channel) return true;
    for (unsigned k = 0; ub_tp_flag_info_get(k); k++)
        if (a->tp_flags & ub_tp_flag_info_get(k)->bit) return true;
    for (unsigned i = 0; i < a->nmatch; i++)
        if (a->match[i].seen <= frame) return true;
    for (unsigned i = 0; i < a->nfind; i++)
        if (a->fseen[i] <= frame) return true;
    return false;
}

/* an expert item: "<summary>": {"_ws.expert": {...}} (j NULL: -T ek, only its field) */
static void json_expert(FILE *f, jctx *j, const char *label, const char *field, const char *msg, const char *sev,
                        const char *grp)
{
    if (label) json_open(f, j, label);
    json_open(f, j, "_ws.expert");
    json_kv(f, j, "ub", field, "", false);
    json_kv(f, j, "ub", "_ws.expert.message", msg, false);
    json_kv(f, j, "ub", "_ws.expert.severity", sev, false);
    json_kv(f, j, "ub", "_ws.expert.group", grp, false);
    json_close(f, j);
    if (label) json_close(f, j);
}

/* the ub.analysis subtree of the plugin (ub_an_show) from the -Y analysis of the frame (filter_an.c):
 * TP channel, expected PSN and sequence expert items, request/response and data/ack pairs with
 * latency, findings with their expert item and related frames. j NULL: -T ek, the flattened fields
 * without the expert items. */
static void an_kvs(FILE *f, const ub_fan *a, uint64_t frame, kv_fn kv, void *ctx, jctx *j)
{
    if (!an_any(a, frame)) return;
    char t[64];
    if (j) json_open(f, j, "ub.analysis");
    if (a->tp_channel) {
        snprintf(t, sizeof t, "%" PRIu32, a->tp_channel - 1);
        kv(f, ctx, "ub", "ub.analysis.tp_channel", t, false);
    }
    if (a->tp_flags & (UB_TPF_RETRANSMISSION | UB_TPF_OUT_OF_ORDER | UB_TPF_LOST_BEFORE | UB_TPF_DUPLICATE)) {
        snprintf(t, sizeof t, "%" PRIu32, a->expected_psn);
        kv(f, ctx, "ub", "ub.analysis.expected_psn", t, false);
    }
    for (unsigned k = 0; j && ub_tp_flag_info_get(k); k++) {
        const ub_tp_flag_info *x = ub_tp_flag_info_get(k);
        if (!(a->tp_flags & x->bit)) continue;
        char name[64];
        snprintf(name, sizeof name, "ub.analysis.%s", x->name);
        json_expert(f, j, x->summary, name, x->summary, pi_sev[x->sev < 3 ? x->sev : 2], "33554432");
    }
    for (unsigned i = 0; i < a->nmatch; i++) {
        const ub_fan_match *m = &a->match[i];
        if (m->seen > frame) continue;
        snprintf(t, sizeof t, "%" PRIu32, m->other);
        kv(f, ctx, "ub", m->kind == 2 ? (m->rsp ? "ub.analysis.acks_frame" : "ub.analysis.acked_in")
                                      : (m->rsp ? "ub.analysis.request_in" : "ub.analysis.response_in"), t, false);
        if (!m->rsp) continue;
        snprintf(t, sizeof t, "%" PRIu64 ".%09" PRIu64, m->lat_ns / 1000000000u, m->lat_ns % 1000000000u);
        kv(f, ctx, "ub", "ub.analysis.latency", t, false);
    }
    for (unsigned i = 0, ro = 0; i < a->nfind; ro += a->fnrel[i], i++) {
        if (a->fseen[i] > frame) continue;
        const ub_rule *r = ub_rule_get(a->rule[i]);
        kv(f, ctx, "ub", "ub.analysis.rule", r ? r->id : "?", false);
        if (j) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s: %s", r ? r->id : "?", r ? r->title : "?");
            json_open(f, j, "ub.analysis.rule_tree");
            json_expert(f, j, NULL, "ub.analysis.finding", msg, pi_sev[a->sev[i] < 3 ? a->sev[i] : 2], pi_group(a->grp[i]));
            if (a->grp[i] == UB_EG_MALFORMED) json_kv(f, j, "ub", "_ws.malformed", "Malformed Packet", false);
        }
        for (unsigned k = 0; k < a->fnrel[i] && ro + k < a->nrel; k++) {
            snprintf(t, sizeof t, "%" PRIu32, a->rel[ro + k]);
            kv(f, ctx, "ub", "ub.analysis.related_frame", t, false);
        }
        if (j) json_close(f, j);
    }
    if (j) json_close(f, j);
}

/* the layer a decoder error is shown at (the plugin's add_view_ex): of the layers in "ub" (inub) with
 * the error's header, the one holding its offset, else the first; -1: none (the "ub" item itself) */
static int err_layer(const ub_view *v, const ub_err *e, const bool *inub)
{
    int first = -1;
    for (unsigned k = 0; k < v->nlayers && k < UB_MAX_LAYERS; k++) {
        const ub_layer *l = &v->layer[k];
        if (!inub[k] || !l->hdr || l->hdr->id != e->hdr) continue;
        if (first < 0) first = (int)k;
        uintptr_t d = (uintptr_t)l->data, b = (uintptr_t)v->rec;
        if (l->data && v->rec && d >= b && d - b <= v->rec_len && e->off >= d - b && e->off <= d - b + l->len) return (int)k;
    }
    return first;
}

/* the expert items of the decoder errors shown at layer k (-1: the "ub" item): "_ws.expert" with
 * ub.err.NAME, the summary (ub_err_text), severity and group; "_ws.malformed" after a malformed one */
static void json_errs(FILE *f, jctx *j, const ub_view *v, const bool *inub, int k)
{
    for (unsigned i = 0; i < v->nerrs && i < UB_MAX_ERRS; i++) {
        const ub_err *e = &v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        if (!ei || e->code == UB_E_NONE || e->code >= UB_E__COUNT || err_layer(v, e, inub) != k) continue;
        char name[64], txt[320];
        snprintf(name, sizeof name, "ub.err.%s", ei->name);
        ub_err_text(e, txt, sizeof txt);
        json_expert(f, j, NULL, name, txt, pi_sev[ei->severity < 3 ? ei->severity : 2], pi_group(ei->group));
        if (ei->group == UB_EG_MALFORMED) json_kv(f, j, "ub", "_ws.malformed", "Malformed Packet", false);
    }
}

/* the layers of one view: outer protocols, then "ub" holding the UB headers nested by depth and the
 * errors (a packet's document, or one unit of a raw flit-stream record inside its unit_tree) */
static void json_view(FILE *f, const ub_view *v, jctx *j, const ub_fan *an, uint64_t frame)
{
    bool in_ub = false, ub_open = false;
    int open = 0; /* UB header objects open inside "ub" */
    unsigned plo = 0, phi = 0;
    if (!ub_view_plain_ip(v, &plo, &phi)) plo = phi = 0;
    char pbuf[32], nbuf[32], top[32] = ""; /* top: the top-level protocol object open now */
    bool inub[UB_MAX_LAYERS]; /* the layer is shown in "ub" (decoder errors are shown at these) */
    int stk[UB_MAX_LAYERS];   /* the layer of each open header object */
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        inub[i] = !top_proto(v, i, in_ub, plo, phi, pbuf, sizeof pbuf);
        in_ub |= inub[i];
    }
    in_ub = false;
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        const ub_layer *l = &v->layer[i];
        const char *op = top_proto(v, i, in_ub, plo, phi, pbuf, sizeof pbuf);
        while (open > (op ? 0 : (int)l->depth)) {
            json_errs(f, j, v, inub, stk[open - 1]);
            json_close(f, j);
            open--;
        }
        if (op) { /* one object per protocol run: infiniband.bth, payload, infiniband.invariant in one */
            if (ub_open) { json_close(f, j); ub_open = false; }
            bool more = strcmp(op, "data") == 0 && top[0] && i + 1 < v->nlayers && i + 1 < UB_MAX_LAYERS &&
                        v->layer[i + 1].hdr && foreign_proto(v->layer[i + 1].hdr, nbuf, sizeof nbuf) &&
                        strcmp(nbuf, top) == 0;
            if (more) op = top;
            if (!top[0] || strcmp(top, op) != 0) {
                if (top[0]) json_close(f, j);
                json_open(f, j, op);
                snprintf(top, sizeof top, "%s", op);
            }
            top_layer_kvs(f, l, op, json_kv, j, j);
            continue;
        }
        if (top[0]) { json_close(f, j); top[0] = 0; }
        if (!ub_open) json_open(f, j, "ub");
        in_ub = ub_open = true;
        char key[64];
        snprintf(key, sizeof key, "ub.%s", l->hdr->abbrev);
        json_open(f, j, key);
        stk[open++] = (int)i;
        layer_kvs(f, l, "ub", json_kv, j);
    }
    while (open-- > 0) {
        json_errs(f, j, v, inub, stk[open]);
        json_close(f, j);
    }
    if (top[0]) json_close(f, j);
    if (!ub_open && v->nerrs) { json_open(f, j, "ub"); ub_open = true; }
    for (unsigned i = 0; ub_open && i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        json_kv(f, j, "ub", "ub.error", ei ? ei->name : "?", false);
    }
    if (ub_open) json_errs(f, j, v, inub, -1);
    if (ub_open) {
        view_an_kvs(f, v, json_kv, j);
        an_kvs(f, an, frame, json_kv, j, j);
    }
    if (ub_open) json_close(f, j);
}

static void json_frame(FILE *f, const ubx_pkt *p, jctx *j, bool first)
{
    doc_open(f, p, false, first);
    json_open(f, j, "frame");
    frame_kvs(f, p, json_kv, j, false);
    json_close(f, j);
}

void ubx_json_packet(FILE *f, const ubx_pkt *p, bool first)
{
    jctx j = { true, 4 };
    json_frame(f, p, &j, first);
    json_view(f, p->v, &j, p->an, p->r->frame);
    fputs("\n      }\n    }\n  }", f);
}

/* ------------------------------------------------------------------ -T ek */
/* flattened "proto_abbrev_with_underscores": value; a key seen twice becomes an array (tshark) */
typedef struct ekv {
    char key[96];
    char proto[32]; /* a copy: foreign protocols' names are built in a caller's buffer */
    unsigned off, len; /* value in the text pool */
    bool boolean;
} ekv;
typedef struct ectx {
    ekv kv[512];
    unsigned n;
    char pool[65536];
    unsigned used;
} ectx;

static void ek_kv(FILE *f, void *ctx, const char *proto, const char *key, const char *val, bool boolean)
{
    ectx *e = ctx;
    (void)f;
    size_t vl = strlen(val);
    if (e->n == sizeof e->kv / sizeof e->kv[0] || e->used + vl + 1 > sizeof e->pool) return;
    ekv *k = &e->kv[e->n++];
    snprintf(k->key, sizeof k->key, "%s_%s", proto, key);
    for (char *c = k->key; *c; c++)
        if (*c == '.') *c = '_';
    snprintf(k->proto, sizeof k->proto, "%s", proto);
    k->off = e->used;
    k->len = (unsigned)vl;
    k->boolean = boolean;
    memcpy(e->pool + e->used, val, vl + 1);
    e->used += (unsigned)vl + 1;
}

static void ek_val(FILE *f, const ectx *e, const ekv *k)
{
    const char *v = e->pool + k->off;
    if (k->boolean) fputs(strcmp(v, "0") == 0 ? "false" : "true", f);
    else jstr(f, v);
}

/* the flattened pairs of one view, after those already in e */
static void ek_view(FILE *f, ectx *e, const ub_view *v, const ub_fan *an, uint64_t frame)
{
    bool in_ub = false;
    unsigned plo = 0, phi = 0;
    if (!ub_view_plain_ip(v, &plo, &phi)) plo = phi = 0;
    char pbuf[32];
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        const ub_layer *l = &v->layer[i];
        const char *op = top_proto(v, i, in_ub, plo, phi, pbuf, sizeof pbuf);
        if (!op) in_ub = true;
        if (op) top_layer_kvs(f, l, op, ek_kv, e, NULL);
        else layer_kvs(f, l, "ub", ek_kv, e);
    }
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        ek_kv(f, e, "ub", "ub.error", ei ? ei->name : "?", false);
    }
    if (in_ub || v->nerrs) {
        view_an_kvs(f, v, ek_kv, e);
        an_kvs(f, an, frame, ek_kv, e, NULL);
    }
}

/* pair i repeats an earlier key (printed with its first occurrence) */
static bool ek_dup(const ectx *e, unsigned i)
{
    for (unsigned j = 0; j < i; j++)
        if (strcmp(e->kv[j].key, e->kv[i].key) == 0) return true;
    return false;
}

/* pair i as "key":value, a key seen several times as one array at its first occurrence; false (nothing
 * printed) when an earlier pair already printed it */
static bool ek_pair(FILE *f, const ectx *e, unsigned i, bool comma)
{
    const ekv *k = &e->kv[i];
    if (ek_dup(e, i)) return false;
    if (comma) fputc(',', f);
    jstr(f, k->key);
    fputc(':', f);
    unsigned cnt = 0;
    for (unsigned j = i; j < e->n; j++) cnt += strcmp(e->kv[j].key, k->key) == 0;
    if (cnt == 1) {
        ek_val(f, e, k);
        return true;
    }
    fputc('[', f);
    for (unsigned j = i, m = 0; j < e->n; j++)
        if (strcmp(e->kv[j].key, k->key) == 0) {
            if (m++) fputc(',', f);
            ek_val(f, e, &e->kv[j]);
        }
    fputc(']', f);
    return true;
}

/* the pairs as "proto":{...} objects, one per protocol run */
static void ek_protos(FILE *f, const ectx *e)
{
    const char *proto = NULL;
    for (unsigned i = 0; i < e->n; i++) {
        if (ek_dup(e, i)) continue;
        bool same = proto && strcmp(proto, e->kv[i].proto) == 0;
        if (!same) fprintf(f, "%s\"%s\":{", proto ? "}," : "", e->kv[i].proto);
        ek_pair(f, e, i, same);
        proto = e->kv[i].proto;
    }
    if (proto) fputc('}', f);
}

static ectx ek_e; /* ubdump is single-threaded here; too big for the stack */

void ubx_ek_packet(FILE *f, const ubx_pkt *p)
{
    ectx *e = &ek_e;
    e->n = 0;
    e->used = 0;
    frame_kvs(f, p, ek_kv, e, true);
    ek_view(f, e, p->v, p->an, p->r->frame);
    doc_open(f, p, true, false);
    ek_protos(f, e);
    fputs("}}\n", f);
}

/* ------------------------------------------------------------------ raw flit-stream records */
struct ubx_jrec {
    FILE *mf; /* the units' text so far (open_memstream) */
    char *buf;
    size_t len;
    unsigned n;
};

static void jrec_reset(ubx_jrec *r)
{
    if (r->mf) fclose(r->mf);
    free(r->buf);
    r->mf = NULL;
    r->buf = NULL;
    r->len = 0;
    r->n = 0;
}

ubx_jrec *ubx_jrec_new(void) { return calloc(1, sizeof(ubx_jrec)); }

void ubx_jrec_free(ubx_jrec *r)
{
    if (!r) return;
    jrec_reset(r);
    free(r);
}

void ubx_jrec_unit(ubx_jrec *r, const ub_view *v, bool ek)
{
    if (!r->mf && !(r->mf = open_memstream(&r->buf, &r->len))) return;
    r->n++;
    if (ek) { /* the unit's pairs flattened into one object, as tshark's "ub" of the unit_tree */
        ectx *e = &ek_e;
        e->n = 0;
        e->used = 0;
        ek_view(r->mf, e, v, NULL, 0);
        fputs(r->n > 1 ? ",{" : "{", r->mf);
        for (unsigned i = 0, any = 0; i < e->n; i++) any |= ek_pair(r->mf, e, i, any);
        fputc('}', r->mf);
        return;
    }
    jctx j = { false, 5 }; /* inside "ub" of the frame: ",\n<unit>" */
    char t[16];
    snprintf(t, sizeof t, "%u", r->n);
    json_kv(r->mf, &j, "ub", "ub.stream.unit", t, false);
    json_open(r->mf, &j, "ub.stream.unit_tree");
    json_view(r->mf, v, &j, NULL, 0);
    json_close(r->mf, &j);
}

void ubx_jrec_emit(FILE *f, ubx_jrec *r, const ubx_pkt *p, const ub_units_rinfo *ri, bool ek, bool first)
{
    if (!f) {
        jrec_reset(r);
        return;
    }
    const char *units = "";
    size_t ulen = 0;
    if (r->mf && fflush(r->mf) == 0) {
        units = r->buf;
        ulen = r->len;
    }
    char started[16] = "", open[16] = "";
    if (ri && ri->started_in && ri->started_in != p->r->frame) snprintf(started, sizeof started, "%" PRIu32, ri->started_in);
    if (ri && ri->tail_open) snprintf(open, sizeof open, "%" PRIu32, ri->open_bytes);
    if (ek) {
        ectx *e = &ek_e;
        e->n = 0;
        e->used = 0;
        frame_kvs(f, p, ek_kv, e, true);
        doc_open(f, p, true, false);
        ek_protos(f, e);
        fputs(",\"ub\":{", f);
        bool any = false;
        if (started[0]) fprintf(f, "\"ub_ub_stream_started_in\":\"%s\"", started), any = true;
        if (r->n) {
            fprintf(f, "%s\"ub_ub_stream_unit\":%s", any ? "," : "", r->n > 1 ? "[" : "");
            for (unsigned i = 1; i <= r->n; i++) fprintf(f, "%s\"%u\"", i > 1 ? "," : "", i);
            fprintf(f, "%s,\"ub\":%s", r->n > 1 ? "]" : "", r->n > 1 ? "[" : "");
            fwrite(units, 1, ulen, f);
            if (r->n > 1) fputc(']', f);
            any = true;
        }
        e->n = 0; /* the record's analysis after its units */
        e->used = 0;
        an_kvs(f, p->an, p->r->frame, ek_kv, e, NULL);
        for (unsigned i = 0; i < e->n; i++) any |= ek_pair(f, e, i, any);
        if (open[0]) fprintf(f, "%s\"ub_ub_stream_open_bytes\":\"%s\"", any ? "," : "", open);
        fputs("}}}\n", f);
    } else {
        jctx j = { true, 4 };
        json_frame(f, p, &j, first);
        json_open(f, &j, "ub");
        if (started[0]) json_kv(f, &j, "ub", "ub.stream.started_in", started, false);
        if (ulen) fwrite(units + (j.first ? 1 : 0), 1, ulen - (j.first ? 1 : 0), f); /* each unit starts with ',' */
        if (r->n) j.first = false;
        an_kvs(f, p->an, p->r->frame, json_kv, &j, &j);
        if (open[0]) json_kv(f, &j, "ub", "ub.stream.open_bytes", open, false);
        json_close(f, &j);
        fputs("\n      }\n    }\n  }", f);
    }
    jrec_reset(r);
}

/* -T json|ek with -e: only the named fields, each an array of its occurrences (tshark) */
void ubx_json_efields(FILE *f, const ubx_pkt *p, bool ek, bool first, unsigned n, const char *const *names,
                      const char *const *vals, const size_t *lens)
{
    doc_open(f, p, ek, first);
    bool any = false;
    for (unsigned i = 0; i < n; i++) {
        if (!lens[i]) continue; /* absent: not listed */
        char key[128];
        snprintf(key, sizeof key, "%s", names[i]);
        if (ek)
            for (char *c = key; *c; c++)
                if (*c == '.') *c = '_';
        if (ek) fprintf(f, "%s", any ? "," : "");
        else fprintf(f, "%s\n        ", any ? "," : "");
        jstr(f, key);
        fputs(ek ? ":[" : ": [", f);
        const char *s = vals[i], *end = s + lens[i];
        for (bool fst = true; s <= end; fst = false) {
            const char *q = memchr(s, UBX_OCC_SEP, (size_t)(end - s));
            const char *e = q ? q : end;
            char v[4096];
            size_t l = (size_t)(e - s) < sizeof v - 1 ? (size_t)(e - s) : sizeof v - 1;
            memcpy(v, s, l);
            v[l] = '\0';
            if (!ek) fputs(fst ? "\n          " : ",\n          ", f);
            else if (!fst) fputc(',', f);
            jstr(f, v);
            s = e + 1;
        }
        fputs(ek ? "]" : "\n        ]", f);
        any = true;
    }
    fputs(ek ? "}}\n" : "\n      }\n    }\n  }", f);
}
