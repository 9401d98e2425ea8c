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

/* a field name as an ek key: '.' as '_' (tshark's ek writer) */
static void ek_name(char *k)
{
    for (; *k; k++)
        if (*k == '.') *k = '_';
}

/* a JSON string as tshark's json_dumper writes it (\b \f \n \r \t short, other controls \u00XX) */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
            fprintf(f, "\\%c", c == '\b' ? 'b' : c == '\f' ? 'f' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
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
static bool field_text(const ub_layer *l, const ub_field *fd, char *buf, size_t n) { return ubx_field_text(l, fd, true, buf, n); }

static void ind(FILE *f, int d) { fprintf(f, "\n%*s", 2 * d, ""); }

/* ------------------------------------------------------------------ -j / -J */
/* tshark's protocol match filter (-j "ip ip.flags ub ub.rtph", -J "ub": with every descendant), as
 * epan/print.c applies it: an item with a subtree whose name is not listed is written as
 * {"filtered": "<name>"} (its value, if any, still written); -J lifts the filter inside a listed
 * item. -T ek: the same names, by ek's rules (ek_members). ubdump is single-threaded here. */
static struct {
    char **names; /* NULL: no filter */
    bool children;
} pf;

void ubx_json_protocol_filter(char **names, bool children)
{
    pf.names = names;
    pf.children |= children; /* as tshark: -J sets the flag, the last -j/-J the names */
}

/* name is listed (ek: also with '.' as '_', as tshark's ek_check_protocolfilter) */
static bool pf_has(const char *name, bool ek)
{
    for (char **p = pf.names; p && *p; p++) {
        if (strcmp(*p, name) == 0) return true;
        if (ek && strlen(*p) == strlen(name)) {
            const char *a = *p, *b = name;
            while (*a && (*a == *b || (*a == '_' && *b == '.'))) a++, b++;
            if (!*a) return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------ -T json */
typedef struct etree etree;
typedef struct jctx {
    bool first; /* first member of the open object */
    int depth;
    etree *ek; /* -T ek: the items are recorded in this tree instead (ek_*), written by ek_doc */
    int skip;  /* -j: inside an item written as {"filtered": ...}: the objects open in it, + 1 */
    int lift;  /* -J: the depth inside the listed item the filter is lifted for (0: not lifted) */
} jctx;

enum { EK_STR, EK_BOOL, EK_NULL, EK_TEXT, EK_PROTO };
static int ek_node(etree *t, const char *proto, const char *abbrev, const char *val, int kind);
static void ek_open(etree *t, const char *key, int kind);
static void ek_close(etree *t);

/* "key": "value" (proto: the item's protocol, the prefix of its ek key; boolean: true/false in ek) */
static void json_kv(FILE *f, jctx *j, const char *proto, const char *key, const char *val, bool boolean)
{
    if (j->ek) {
        ek_node(j->ek, proto, key, val, boolean ? EK_BOOL : EK_STR);
        return;
    }
    if (j->skip) return;
    if (!j->first) fputc(',', f);
    j->first = false;
    ind(f, j->depth);
    jstr(f, key);
    fputs(": ", f);
    jstr(f, val);
}

/* an item without a value (FT_NONE): "" in -T json, null in -T ek */
static void json_none(FILE *f, jctx *j, const char *proto, const char *key)
{
    if (j->ek) ek_node(j->ek, proto, key, "", EK_NULL);
    else json_kv(f, j, proto, key, "", false);
}

/* an item with a subtree: kind EK_NULL a field without a value (a header; "<name>_tree": the subtree
 * of the item just written; at the top level a protocol), EK_TEXT a text item (its label the key),
 * EK_PROTO a protocol */
static void json_open_k(FILE *f, jctx *j, const char *key, int kind)
{
    if (j->ek) {
        ek_open(j->ek, key, kind);
        return;
    }
    if (j->skip) {
        j->skip++;
        return;
    }
    if (!j->first) fputc(',', f);
    ind(f, j->depth);
    jstr(f, key);
    fputs(": {", f);
    j->depth++;
    j->first = true;
    if (!pf.names || j->lift) return;
    char name[160]; /* the item's name: "<name>_tree" is the subtree of the item <name> */
    size_t kl = strlen(key);
    snprintf(name, sizeof name, "%.*s", (int)(kind == EK_NULL && kl > 5 && strcmp(key + kl - 5, "_tree") == 0 ? kl - 5 : kl), key);
    if (pf_has(name, false)) {
        if (pf.children) j->lift = j->depth;
        return;
    }
    json_kv(f, j, NULL, "filtered", name, false);
    j->depth--;
    ind(f, j->depth);
    fputc('}', f);
    j->first = false;
    j->skip = 1; /* until the caller closes it */
}

static void json_open(FILE *f, jctx *j, const char *key) { json_open_k(f, j, key, EK_NULL); }

static void json_close(FILE *f, jctx *j)
{
    if (j->ek) {
        ek_close(j->ek);
        return;
    }
    if (!f) return; /* never: only -T ek (above) writes without a file */
    if (j->skip) {
        j->skip--;
        return;
    }
    if (j->lift == j->depth) j->lift = 0;
    j->depth--;
    ind(f, j->depth);
    fputc('}', f);
    j->first = false;
}

/* Wireshark's malformed-packet item (a protocol without items): "Malformed Packet" in -T json, {} in ek */
static void json_malformed(FILE *f, jctx *j)
{
    if (j->ek) {
        ek_open(j->ek, "_ws.malformed", EK_PROTO);
        ek_close(j->ek);
    } else {
        json_kv(f, j, "ub", "_ws.malformed", "Malformed Packet", false);
    }
}

/* "key": "value" of the frame layer (ek: its time as ISO 8601) */

/* an expert item: "<summary>": {"_ws.expert": {...}} */
static void json_expert(FILE *f, jctx *j, const char *label, const char *proto, const char *field, const char *msg,
                        const char *sev, const char *grp)
{
    if (label) json_open_k(f, j, label, EK_TEXT);
    json_open_k(f, j, "_ws.expert", EK_PROTO);
    json_none(f, j, proto, field);
    json_kv(f, j, "_ws.expert", "_ws.expert.message", msg, false);
    json_kv(f, j, "_ws.expert", "_ws.expert.severity", sev, false);
    json_kv(f, j, "_ws.expert", "_ws.expert.group", grp, false);
    json_close(f, j);
    if (label) json_close(f, j);
}

/* Wireshark's WTAP_ENCAP_* of a pcap link type (wiretap/pcap-common.c), -1 for one ubdump does not read */
static int ws_encap(uint32_t lt)
{
    switch (lt) {
    case 1: return 1;                    /* ETHERNET */
    case 12: case 14: case 101: return 7; /* RAW_IP */
    case 113: return 25;                 /* SLL */
    case 276: return 210;                /* SLL2 */
    default: return lt >= 147 && lt <= 162 ? (int)lt - 147 + 45 : -1; /* USER0..USER15 */
    }
}

static void frame_kvs(FILE *f, const ubx_pkt *p, jctx *j, bool ek)
{
    char t[64];
    uint32_t fl = 0;
    bool have_fl = p->cf && ub_cap_flags(p->cf, &fl);
    if (p->pcapng) {
        ub_cap_ifinfo ii = { 0 };
        bool info = ub_cap_ifinfo_get(p->cf, p->r->ifindex, &ii) == 0;
        snprintf(t, sizeof t, "%" PRIu32, ub_cap_section(p->cf));
        json_kv(f, j, "frame", "frame.section_number", t, false);
        snprintf(t, sizeof t, "%" PRIu32, p->r->ifindex);
        json_kv(f, j, "frame", "frame.interface_id", t, false);
        json_open(f, j, "frame.interface_id_tree");
        json_kv(f, j, "frame", "frame.interface_name", info && ii.name[0] ? ii.name : "unknown", false);
        if (info && ii.description[0]) json_kv(f, j, "frame", "frame.interface_description", ii.description, false);
        json_close(f, j);
    }
    if (have_fl) { /* the pcapng packet block's flags word */
        static const char *const err[] = { "crc_error", "packet_too_error", "packet_too_short_error",
                                           "wrong_inter_frame_gap_error", "unaligned_frame_error",
                                           "start_frame_delimiter_error", "preamble_error", "symbol_error" };
        snprintf(t, sizeof t, "0x%08" PRIx32, fl);
        json_kv(f, j, "frame", "frame.packet_flags", t, false);
        json_open(f, j, "frame.packet_flags_tree");
        snprintf(t, sizeof t, "0x%08" PRIx32, fl & 3u);
        json_kv(f, j, "frame", "frame.packet_flags_direction", t, false);
        snprintf(t, sizeof t, "%" PRIu32, fl >> 2 & 7u);
        json_kv(f, j, "frame", "frame.packet_flags_reception_type", t, false);
        snprintf(t, sizeof t, "%" PRIu32, fl >> 5 & 15u);
        json_kv(f, j, "frame", "frame.packet_flags_fcs_length", t, false);
        snprintf(t, sizeof t, "%" PRIu32, fl >> 9 & 0x7fffu);
        json_kv(f, j, "frame", "frame.packet_flags_reserved", t, false);
        for (unsigned b = 0; b < 8; b++) {
            char key[64];
            snprintf(key, sizeof key, "frame.packet_flags_%s", err[b]);
            json_kv(f, j, "frame", key, fl >> (24 + b) & 1u ? "1" : "0", true);
        }
        json_close(f, j);
    }
    int encap = ws_encap(p->r->linktype);
    if (encap >= 0) {
        snprintf(t, sizeof t, "%d", encap);
        json_kv(f, j, "frame", "frame.encap_type", t, false);
    }
    if (ek) { /* ISO 8601 UTC in the bulk form */
        ubx_time(t, sizeof t, UBX_T_UD, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
        char *sp = strchr(t, ' ');
        if (sp) *sp = 'T';
        strcat(t, "Z");
    } else {
        ubx_frame_time(t, sizeof t, p->r->ts_ns);
    }
    json_kv(f, j, "frame", "frame.time", t, false);
    json_kv(f, j, "frame", "frame.offset_shift", "0.000000000", false);
    ubx_time(t, sizeof t, UBX_T_E, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    json_kv(f, j, "frame", "frame.time_epoch", t, false);
    ubx_time(t, sizeof t, UBX_T_D, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    json_kv(f, j, "frame", "frame.time_delta", t, false);
    ubx_time(t, sizeof t, UBX_T_DD, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    json_kv(f, j, "frame", "frame.time_delta_displayed", t, false);
    ubx_time(t, sizeof t, UBX_T_R, 9, p->r->ts_ns, p->t0, p->prev, p->prev_shown);
    json_kv(f, j, "frame", "frame.time_relative", t, false);
    snprintf(t, sizeof t, "%" PRIu64, p->r->frame);
    json_kv(f, j, "frame", "frame.number", t, false);
    snprintf(t, sizeof t, "%" PRIu32, p->r->origlen);
    json_kv(f, j, "frame", "frame.len", t, false);
    snprintf(t, sizeof t, "%" PRIu32, p->len);
    json_kv(f, j, "frame", "frame.cap_len", t, false);
    json_kv(f, j, "frame", "frame.marked", "0", true); /* (ek: false) */
    json_kv(f, j, "frame", "frame.ignored", "0", true);
    if (p->r->dir == UB_DIR_IN || p->r->dir == UB_DIR_OUT) /* Wireshark's P2P_DIR_RECV 1, P2P_DIR_SENT 0 */
        json_kv(f, j, "frame", "frame.p2p_dir", p->r->dir == UB_DIR_IN ? "1" : "0", false);
    char pr[512] = "ub"; /* a flit-stream record's document (its units are all UB) */
    if (p->v && p->v->nlayers) ub_ws_protocols_text(p->v, pr, sizeof pr);
    json_kv(f, j, "frame", "frame.protocols", pr, false);
}

/* the layers before the protocols: the packet comments ("pkt_comment", each with its expert item), "frame" */
static void frame_layers(FILE *f, const ubx_pkt *p, jctx *j, bool ek)
{
    uint32_t nc = p->cf ? ub_cap_ncomments(p->cf) : 0;
    if (nc) {
        json_open_k(f, j, "pkt_comment", EK_PROTO);
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t len = 0;
            const char *c = ub_cap_comment_n(p->cf, i, &len);
            char text[2048];
            snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), c ? c : "");
            json_kv(f, j, "frame", "frame.comment", text, false);
            json_open(f, j, "frame.comment_tree");
            json_expert(f, j, NULL, "frame", "frame.comment.expert", text, "1048576", "184549376"); /* PI_COMMENT, PI_COMMENTS_GROUP */
            json_close(f, j);
        }
        json_close(f, j);
    }
    json_open(f, j, "frame");
    frame_kvs(f, p, j, ek);
    json_close(f, j);
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

/* the fields of one layer */
static void layer_kvs(FILE *f, const ub_layer *l, const char *proto, jctx *j)
{
    char buf[3 * UB_MAX_NETPKT + 64]; /* the longest byte string, aa:bb:... */
    for (unsigned k = 0; k < l->hdr->nfields; k++) {
        const ub_field *fd = &l->hdr->fields[k];
        if (field_text(l, fd, buf, sizeof buf)) json_kv(f, j, proto, fd->abbrev, buf, fd->type == UB_FT_BOOL);
    }
}

/* the plugin's hidden per-view fields after the headers (dissector/packet-ub-analysis.c ub_an_view):
 * ub.cna (both CNAs of the first NTH), ub.eid (both compact EIDs of the first EIDH),
 * ub.analysis.tp_src / tp_dst / tp_endpoint (twice: source, destination) */
static void view_an_kvs(FILE *f, const ub_view *v, jctx *j)
{
    char a[64], b[64];
    const ub_layer *l = ubx_first_of(v, UB_H_NTH16, UB_H_NTH24);
    if (l && ubx_u24(l, "ub.nth.scna", a, sizeof a) && ubx_u24(l, "ub.nth.dcna", b, sizeof b)) {
        json_kv(f, j, "ub", "ub.cna", a, false);
        json_kv(f, j, "ub", "ub.cna", b, false);
    }
    l = ubx_first_of(v, UB_H_EIDH40, UB_H_EIDH256);
    if (l && l->hdr->id == UB_H_EIDH40 && ubx_u24(l, "ub.eidh.seid", a, sizeof a) && ubx_u24(l, "ub.eidh.deid", b, sizeof b)) {
        json_kv(f, j, "ub", "ub.eid", a, false);
        json_kv(f, j, "ub", "ub.eid", b, false);
    }
    if (ub_view_tp_endpoints(v, a, b, sizeof a)) {
        json_kv(f, j, "ub", "ub.analysis.tp_src", a, false);
        json_kv(f, j, "ub", "ub.analysis.tp_dst", b, false);
        json_kv(f, j, "ub", "ub.analysis.tp_endpoint", a, false);
        json_kv(f, j, "ub", "ub.analysis.tp_endpoint", b, false);
    }
}

/* the fields of a layer Wireshark dissects itself (eth, ip, udp, ...), under its names, a name's
 * sub-items in "<name>_tree" as tshark does */
static void ws_layer_kvs(FILE *f, const ub_layer *l, const char *proto, jctx *j)
{
    size_t nw;
    const ub_wsname *w = ub_ws_names(&nw);
    char buf[3 * UB_MAX_NETPKT + 64], key[96]; /* data.data: the longest byte string */
    size_t pl = strlen(proto);
    for (size_t i = 0; i < nw; i++) {
        if ((w[i].flags & UB_WS_NOJSON) || w[i].parent || strncmp(w[i].ws, proto, pl) != 0 || w[i].ws[pl] != '.') continue;
        if (!ubx_ws_text(l, &w[i], true, buf, sizeof buf)) continue;
        json_kv(f, j, proto, w[i].ws, buf, w[i].flags & UB_WS_BOOL);
        bool sub = false;
        for (size_t c = i + 1; c < nw && w[c].parent && strcmp(w[c].parent, w[i].ws) == 0; c++) {
            if (!ubx_ws_text(l, &w[c], true, buf, sizeof buf)) continue;
            if (!sub) {
                snprintf(key, sizeof key, "%s_tree", w[i].ws);
                json_open(f, j, key);
            }
            sub = true;
            json_kv(f, j, proto, w[c].ws, buf, w[c].flags & UB_WS_BOOL);
        }
        if (sub) json_close(f, j);
    }
}

/* a top-level layer's fields: Wireshark's names for its own protocols, the schema's otherwise */
static void top_layer_kvs(FILE *f, const ub_layer *l, const char *proto, jctx *j)
{
    const char *wp = outer_proto(l->hdr);
    if (wp && strcmp(wp, proto) == 0) ws_layer_kvs(f, l, proto, j);
    else layer_kvs(f, l, proto, j);
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

/* the ub.analysis subtree of the plugin (ub_an_show) from the -Y analysis of the frame (filter_an.c):
 * TP channel, expected PSN and sequence expert items, request/response and data/ack pairs with
 * latency, findings with their expert item and related frames. */
static void an_kvs(FILE *f, const ub_fan *a, uint64_t frame, jctx *j)
{
    if (!an_any(a, frame)) return;
    char t[64];
    json_open(f, j, "ub.analysis");
    if (a->tp_channel) {
        snprintf(t, sizeof t, "%" PRIu32, a->tp_channel - 1);
        json_kv(f, j, "ub", "ub.analysis.tp_channel", t, false);
    }
    if (a->tp_flags & (UB_TPF_RETRANSMISSION | UB_TPF_OUT_OF_ORDER | UB_TPF_LOST_BEFORE | UB_TPF_DUPLICATE)) {
        snprintf(t, sizeof t, "%" PRIu32, a->expected_psn);
        json_kv(f, j, "ub", "ub.analysis.expected_psn", t, false);
    }
    for (unsigned k = 0; ub_tp_flag_info_get(k); k++) {
        const ub_tp_flag_info *x = ub_tp_flag_info_get(k);
        if (!(a->tp_flags & x->bit)) continue;
        char name[64];
        snprintf(name, sizeof name, "ub.analysis.%s", x->name);
        json_expert(f, j, x->summary, "ub", name, x->summary, pi_sev[x->sev < 3 ? x->sev : 2], "33554432");
    }
    for (unsigned i = 0; i < a->nmatch; i++) {
        const ub_fan_match *m = &a->match[i];
        if (m->seen > frame) continue;
        snprintf(t, sizeof t, "%" PRIu32, m->other);
        json_kv(f, j, "ub", m->kind == 2 ? (m->rsp ? "ub.analysis.acks_frame" : "ub.analysis.acked_in")
                                         : (m->rsp ? "ub.analysis.request_in" : "ub.analysis.response_in"), t, false);
        if (!m->rsp) continue;
        snprintf(t, sizeof t, "%" PRIu64 ".%09" PRIu64, m->lat_ns / 1000000000u, m->lat_ns % 1000000000u);
        json_kv(f, j, "ub", "ub.analysis.latency", t, false);
    }
    for (unsigned i = 0, ro = 0; i < a->nfind; ro += a->fnrel[i], i++) {
        if (a->fseen[i] > frame) continue;
        const ub_rule *r = ub_rule_get(a->rule[i]);
        json_kv(f, j, "ub", "ub.analysis.rule", r ? r->id : "?", false);
        char msg[512];
        snprintf(msg, sizeof msg, "%s: %s", r ? r->id : "?", r ? r->title : "?");
        json_open(f, j, "ub.analysis.rule_tree");
        json_expert(f, j, NULL, "ub", "ub.analysis.finding", msg, pi_sev[a->sev[i] < 3 ? a->sev[i] : 2], pi_group(a->grp[i]));
        if (a->grp[i] == UB_EG_MALFORMED) json_malformed(f, j);
        for (unsigned k = 0; k < a->fnrel[i] && ro + k < a->nrel; k++) {
            snprintf(t, sizeof t, "%" PRIu32, a->rel[ro + k]);
            json_kv(f, j, "ub", "ub.analysis.related_frame", t, false);
        }
        json_close(f, j);
    }
    json_close(f, j);
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
        json_expert(f, j, NULL, "ub", name, txt, pi_sev[ei->severity < 3 ? ei->severity : 2], pi_group(ei->group));
        if (ei->group == UB_EG_MALFORMED) json_malformed(f, j);
    }
}

/* the top-level protocols of layers [lo, hi) that are not in "ub" (Ethernet/IP/UDP before it, the
 * plain IP part of a CFG 3/4 packet and the neighbours' headers after it): one object per protocol
 * run (infiniband.bth, payload, infiniband.invariant in one) */
static void top_runs(FILE *f, const ub_view *v, jctx *j, const bool *inub, unsigned plo, unsigned phi, unsigned lo,
                     unsigned hi, bool after_ub)
{
    char pbuf[32], nbuf[32], top[32] = ""; /* top: the protocol object open now */
    for (unsigned i = lo; i < hi; i++) {
        if (inub[i]) continue;
        const ub_layer *l = &v->layer[i];
        const char *op = top_proto(v, i, after_ub, plo, phi, pbuf, sizeof pbuf);
        if (!op) continue;
        bool more = strcmp(op, "data") == 0 && top[0] && i + 1 < hi && v->layer[i + 1].hdr &&
                    foreign_proto(v->layer[i + 1].hdr, nbuf, sizeof nbuf) && strcmp(nbuf, top) == 0;
        if (more) op = top;
        /* in ICMP's tree: an echo's data, the IP and UDP/TCP headers of an error's quoted datagram (whose
         * payload Wireshark's Data shows at the top) */
        const bool quoted = l->flags & UB_LF_QUOTED, in_icmp = strcmp(top, "icmp") == 0 || strcmp(top, "icmpv6") == 0;
        if (in_icmp && (quoted ? strcmp(op, "data") != 0 : strcmp(op, "data") == 0)) {
            json_open_k(f, j, op, EK_PROTO);
            top_layer_kvs(f, l, op, j);
            json_close(f, j);
            continue;
        }
        if (strcmp(top, "ipv6") == 0 && l->hdr && ub_hdr_ip_ext(l->hdr->id)) { /* IPv6's extension headers: in its tree */
            json_open_k(f, j, op, EK_PROTO);
            top_layer_kvs(f, l, op, j);
            json_close(f, j);
            continue;
        }
        if (!top[0] || strcmp(top, op) != 0) {
            if (top[0]) json_close(f, j);
            json_open(f, j, op);
            snprintf(top, sizeof top, "%s", op);
        }
        top_layer_kvs(f, l, op, j);
    }
    if (top[0]) json_close(f, j);
}

/* the layers of one view as Wireshark's tree has them: the outer protocols, then "ub" holding every
 * UB header nested by depth (also those after a plain IP part), the errors and the analysis, then
 * the protocols UB handed its payload to (a packet's document, or one unit of a raw flit-stream
 * record inside its unit_tree) */
static void json_view(FILE *f, const ub_view *v, jctx *j, const ub_fan *an, uint64_t frame)
{
    unsigned plo = 0, phi = 0;
    if (!ub_view_plain_ip(v, &plo, &phi)) plo = phi = 0;
    char pbuf[32];
    unsigned n = v->nlayers < UB_MAX_LAYERS ? v->nlayers : UB_MAX_LAYERS, first = n;
    bool inub[UB_MAX_LAYERS] = { false }; /* the layer is shown in "ub" (decoder errors are shown at these) */
    for (unsigned i = 0, in_ub = 0; i < n; i++) {
        inub[i] = !top_proto(v, i, in_ub, plo, phi, pbuf, sizeof pbuf);
        in_ub |= inub[i];
        if (inub[i] && first == n) first = i;
    }
    top_runs(f, v, j, inub, plo, phi, 0, first, false);
    bool ub_open = first < n || v->nerrs;
    if (ub_open) json_open_k(f, j, "ub", EK_PROTO);
    int open = 0;             /* UB header objects open inside "ub" */
    int stk[UB_MAX_LAYERS];   /* the layer of each open header object */
    const int base = first < n ? v->layer[first].depth : 0; /* the first UB header's (1 in an ICMP error's quote) */
    for (unsigned i = first; i < n; i++) {
        if (!inub[i]) continue;
        const ub_layer *l = &v->layer[i];
        while (open > (int)l->depth - base) {
            json_errs(f, j, v, inub, stk[open - 1]);
            json_close(f, j);
            open--;
        }
        char key[64];
        snprintf(key, sizeof key, "ub.%s", l->hdr->abbrev);
        json_open(f, j, key);
        stk[open++] = (int)i;
        layer_kvs(f, l, "ub", j);
    }
    while (open-- > 0) {
        json_errs(f, j, v, inub, stk[open]);
        json_close(f, j);
    }
    if (ub_open) {
        for (unsigned i = 0; i < v->nerrs; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            json_kv(f, j, "ub", "ub.error", ei ? ei->name : "?", false);
        }
        json_errs(f, j, v, inub, -1);
        view_an_kvs(f, v, j);
        an_kvs(f, an, frame, j);
        json_close(f, j);
    }
    top_runs(f, v, j, inub, plo, phi, first, n, true);
}

static void json_frame(FILE *f, const ubx_pkt *p, jctx *j, bool first)
{
    doc_open(f, p, false, first);
    frame_layers(f, p, j, false);
}

void ubx_json_packet(FILE *f, const ubx_pkt *p, bool first)
{
    jctx j = { true, 4, NULL, 0, 0 };
    json_frame(f, p, &j, first);
    json_view(f, p->v, &j, p->an, p->r->frame);
    fputs("\n      }\n    }\n  }", f);
}

/* ------------------------------------------------------------------ -T ek */
/* The json writer's items recorded as a tree (jctx.ek), then written as tshark's ek writer does
 * (epan/print.c, proto_tree_write_node_ek): inside a protocol's object every descendant that is not
 * a protocol is flattened; items with the same parent and name are one key at the first one's place,
 * an array when there are several; a key is "<protocol>_<name>" with '.' as '_'; a protocol (ub,
 * _ws.expert, _ws.malformed, the top-level layers) is an object of its own; items without a value
 * (headers, expert fields) are null, text items "text". */
typedef struct enode {
    int parent, child, last, next; /* -1: none */
    unsigned abbrev, key, val;     /* pool offsets: the item's name, its ek key, its value */
    uint8_t kind;                  /* EK_* */
} enode;
struct etree {
    enode *n;
    unsigned nn, ncap;
    char *pool;
    size_t used, pcap;
    int cur;       /* the open item: 0 the root (the "layers" object) */
    int stk[64];   /* the items open before it */
    unsigned sp;
    bool full;     /* out of memory or too deep: the rest of the document is left out */
    int *scr;      /* ek_doc's scratch: 2 ints an item */
    unsigned scap;
};

/* a copy of s[0..n) in the pool: its offset (0, "", when out of memory) */
static unsigned ek_str(etree *t, const char *s, size_t n)
{
    if (t->used + n + 1 > t->pcap) {
        size_t c = t->pcap ? t->pcap : 4096;
        while (c < t->used + n + 1) c *= 2;
        char *np = realloc(t->pool, c);
        if (!np) {
            t->full = true;
            return 0;
        }
        t->pool = np;
        t->pcap = c;
    }
    memcpy(t->pool + t->used, s, n);
    t->pool[t->used + n] = '\0';
    unsigned o = (unsigned)t->used;
    t->used += n + 1;
    return o;
}

/* an empty tree: the root only */
static void ek_reset(etree *t)
{
    t->nn = 0;
    t->used = 0;
    t->sp = 0;
    t->cur = 0;
    t->full = false;
    ek_str(t, "", 0); /* offset 0: "" */
    if (!t->ncap) {
        if (!(t->n = malloc(256 * sizeof *t->n))) {
            t->full = true;
            return;
        }
        t->ncap = 256;
    }
    t->n[0] = (enode){ -1, -1, -1, -1, 0, 0, 0, EK_PROTO };
    t->nn = 1;
}

static void ek_free(etree *t)
{
    free(t->n);
    free(t->pool);
    free(t->scr);
    memset(t, 0, sizeof *t);
}

/* a new item under the open one, key its ek key; its index, -1 when out of memory */
static int ek_node_k(etree *t, const char *abbrev, const char *key, const char *val, int kind)
{
    if (t->full || !t->nn) return -1;
    if (t->nn == t->ncap) {
        enode *np = realloc(t->n, 2 * t->ncap * sizeof *np);
        if (!np) {
            t->full = true;
            return -1;
        }
        t->n = np;
        t->ncap *= 2;
    }
    enode e = { t->cur, -1, -1, -1, ek_str(t, abbrev, strlen(abbrev)), ek_str(t, key, strlen(key)),
                ek_str(t, val, strlen(val)), (uint8_t)kind };
    if (t->full) return -1;
    int i = (int)t->nn++;
    t->n[i] = e;
    enode *p = &t->n[t->cur];
    if (p->last >= 0) t->n[p->last].next = i;
    else p->child = i;
    p->last = i;
    return i;
}

/* the same, keyed "<proto>_<abbrev>" (ek_name; without proto the abbrev) */
static int ek_node(etree *t, const char *proto, const char *abbrev, const char *val, int kind)
{
    char key[160];
    snprintf(key, sizeof key, "%s%s%s", proto ? proto : "", proto ? "_" : "", abbrev);
    ek_name(key);
    return ek_node_k(t, abbrev, key, val, kind);
}

static void ek_open(etree *t, const char *key, int kind)
{
    if (t->full || !t->nn) return;
    int i, last = t->n[t->cur].last;
    size_t kl = strlen(key);
    if (kind == EK_NULL && kl > 5 && strcmp(key + kl - 5, "_tree") == 0 && last >= 0 &&
        strlen(t->pool + t->n[last].abbrev) == kl - 5 && strncmp(t->pool + t->n[last].abbrev, key, kl - 5) == 0)
        i = last; /* "<name>_tree": the subtree of the item just written */
    else if (kind == EK_TEXT)
        i = ek_node(t, NULL, "text", key, EK_TEXT);
    else if (kind == EK_PROTO || t->cur == 0) /* the root's items are protocols */
        i = ek_node(t, NULL, key, "", EK_PROTO);
    else { /* an item without a value (a header): its protocol's name first */
        char proto[32];
        snprintf(proto, sizeof proto, "%.*s", (int)strcspn(key, "."), key);
        i = ek_node(t, proto, key, "", EK_NULL);
    }
    if (i < 0 || t->sp == sizeof t->stk / sizeof t->stk[0]) {
        t->full = true;
        return;
    }
    t->stk[t->sp++] = t->cur;
    t->cur = i;
}

static void ek_close(etree *t)
{
    if (t->sp) t->cur = t->stk[--t->sp];
}

/* the items of tree u (all but its root) under t's open item, in order */
static void ek_graft(etree *t, const etree *u)
{
    if (u->full || u->nn < 2) return;
    int *map = malloc(u->nn * sizeof *map);
    if (!map) {
        t->full = true;
        return;
    }
    int cur = t->cur;
    map[0] = cur;
    for (unsigned i = 1; i < u->nn; i++) { /* an item's parent comes before it */
        const enode *e = &u->n[i];
        t->cur = map[e->parent];
        map[i] = t->cur < 0 ? -1 : ek_node_k(t, u->pool + e->abbrev, u->pool + e->key, u->pool + e->val, e->kind);
    }
    t->cur = cur;
    free(map);
}

/* the items under p, flattened except into protocols, grouped by parent name and name in the order
 * of their first ones: g[item] = its group's first item; out[0..*nout) the groups' first items.
 * on: the -j filter applies (an item not listed is not flattened into; -J: a listed one with all) */
static void ek_fill(const etree *t, int p, int *g, int *out, unsigned *nout, bool on)
{
    for (int c = t->n[p].child; c >= 0; c = t->n[c].next) {
        const enode *e = &t->n[c];
        g[c] = c;
        for (unsigned k = 0; k < *nout; k++) {
            const enode *x = &t->n[out[k]];
            if (strcmp(t->pool + x->abbrev, t->pool + e->abbrev) == 0 &&
                strcmp(t->pool + t->n[x->parent].abbrev, t->pool + t->n[e->parent].abbrev) == 0) {
                g[c] = out[k];
                break;
            }
        }
        if (g[c] == c) out[(*nout)++] = c;
        if (e->kind == EK_PROTO || e->child < 0) continue;
        const bool has = on && pf_has(t->pool + e->abbrev, true);
        if (!on || has) ek_fill(t, c, g, out, nout, has && !pf.children);
    }
}

static void ek_members(FILE *f, const etree *t, int p, int *g, int *out, bool on);

/* an item's value; on: the -j filter applies (an item not listed: {"filtered": "<name>"}) */
static void ek_value(FILE *f, const etree *t, int i, int *g, int *out, bool on)
{
    const enode *e = &t->n[i];
    const char *v = t->pool + e->val;
    const bool has = on && pf_has(t->pool + e->abbrev, true);
    if (on && !has) {
        fputs("{\"filtered\":", f);
        jstr(f, t->pool + e->abbrev);
        fputc('}', f);
        return;
    }
    switch (e->kind) {
    case EK_BOOL: fputs(strcmp(v, "0") == 0 ? "false" : "true", f); break;
    case EK_NULL: fputs("null", f); break;
    case EK_PROTO:
        fputc('{', f);
        ek_members(f, t, i, g, out, has && !pf.children);
        fputc('}', f);
        break;
    default: jstr(f, v);
    }
}

/* the members of p's object; out: scratch, a protocol inside takes what follows p's groups */
static void ek_members(FILE *f, const etree *t, int p, int *g, int *out, bool on)
{
    unsigned n = 0;
    ek_fill(t, p, g, out, &n, on);
    for (unsigned k = 0; k < n; k++) {
        int first = out[k];
        unsigned cnt = 0;
        for (unsigned c = (unsigned)first; c < t->nn; c++) cnt += g[c] == first;
        if (k) fputc(',', f);
        jstr(f, t->pool + t->n[first].key);
        fputc(':', f);
        if (cnt > 1) fputc('[', f);
        for (unsigned c = (unsigned)first, m = 0; c < t->nn; c++) {
            if (g[c] != first) continue;
            if (m++) fputc(',', f);
            ek_value(f, t, (int)c, g, out + n, on);
        }
        if (cnt > 1) fputc(']', f);
    }
}

static etree ek_t; /* ubdump is single-threaded here */

/* one ek document: the index line, then the recorded tree as "layers" */
static void ek_doc(FILE *f, const ubx_pkt *p, etree *t)
{
    doc_open(f, p, true, false);
    if (t->scap < 2 * t->nn) {
        free(t->scr);
        t->scap = 2 * t->nn;
        if (!(t->scr = malloc(t->scap * sizeof *t->scr))) t->scap = 0;
    }
    if (t->scap && t->nn) {
        for (unsigned i = 0; i < t->nn; i++) t->scr[i] = -1;
        ek_members(f, t, 0, t->scr, t->scr + t->nn, pf.names != NULL);
    }
    fputs("}}\n", f);
}

static void ek_frame(FILE *f, const ubx_pkt *p, jctx *j) { frame_layers(f, p, j, true); }

void ubx_ek_packet(FILE *f, const ubx_pkt *p)
{
    ek_reset(&ek_t);
    jctx j = { true, 0, &ek_t, 0, 0 };
    ek_frame(f, p, &j);
    json_view(f, p->v, &j, p->an, p->r->frame);
    ek_doc(f, p, &ek_t);
}

/* ------------------------------------------------------------------ raw flit-stream records */
struct ubx_jrec {
    FILE *mf; /* -T json: the units' text so far (open_memstream) */
    char *buf;
    size_t len;
    unsigned n;
    etree ut; /* -T ek: the units' items so far */
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
    ek_free(&ek_t);
    if (!r) return;
    jrec_reset(r);
    ek_free(&r->ut);
    free(r);
}

/* a unit of the record: "ub.stream.unit": "<n>" with its "ub" under ub.stream.unit_tree */
static void jrec_view(FILE *f, jctx *j, unsigned n, const ub_view *v)
{
    char t[16];
    snprintf(t, sizeof t, "%u", n);
    json_kv(f, j, "ub", "ub.stream.unit", t, false);
    json_open(f, j, "ub.stream.unit_tree");
    json_view(f, v, j, NULL, 0);
    json_close(f, j);
}

void ubx_jrec_unit(ubx_jrec *r, const ub_view *v, bool ek)
{
    if (ek) {
        if (!r->n++) ek_reset(&r->ut);
        jctx j = { true, 0, &r->ut, 0, 0 };
        jrec_view(NULL, &j, r->n, v);
        return;
    }
    if (pf.names && !pf_has("ub", false)) { /* "ub" is written {"filtered": "ub"} */
        r->n++;
        return;
    }
    if (!r->mf && !(r->mf = open_memstream(&r->buf, &r->len))) return;
    jctx j = { false, 5, NULL, 0, pf.names && pf.children ? 5 : 0 }; /* inside "ub" of the frame: ",\n<unit>" */
    jrec_view(r->mf, &j, ++r->n, v);
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
    jctx j = { true, 4, ek ? &ek_t : NULL, 0, 0 };
    if (ek) {
        ek_reset(&ek_t);
        ek_frame(f, p, &j);
    } else {
        json_frame(f, p, &j, first);
    }
    json_open_k(f, &j, "ub", EK_PROTO);
    if (started[0]) json_kv(f, &j, "ub", "ub.stream.started_in", started, false);
    if (ek && r->n) ek_graft(&ek_t, &r->ut);
    if (!ek && ulen) fwrite(units + (j.first ? 1 : 0), 1, ulen - (j.first ? 1 : 0), f); /* each unit starts with ',' */
    if (r->n) j.first = false;
    an_kvs(f, p->an, p->r->frame, &j);
    if (open[0]) json_kv(f, &j, "ub", "ub.stream.open_bytes", open, false);
    json_close(f, &j);
    if (ek) ek_doc(f, p, &ek_t);
    else fputs("\n      }\n    }\n  }", f);
    jrec_reset(r);
}

/* -T json|ek with -e: only the named fields, each an array of its occurrences (tshark) */
void ubx_json_efields(FILE *f, const ubx_pkt *p, bool ek, bool first, unsigned n, const char *const *names,
                      const char *const *vals, const size_t *lens, const bool *present)
{
    doc_open(f, p, ek, first);
    bool any = false;
    for (unsigned i = 0; i < n; i++) {
        if (!present[i] && strncmp(names[i], "_ws.col.", 8) != 0) continue; /* absent: not listed (a column always is) */
        char key[128];
        snprintf(key, sizeof key, "%s", names[i]);
        if (ek) ek_name(key);
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
    fputs(ek ? "}}\n" : any ? "\n      }\n    }\n  }" : "}\n    }\n  }", f); /* tshark: "layers": {} without values */
}
