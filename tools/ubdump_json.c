/* ubdump -T json / -T ek in tshark's shape (ubdump_out.h): one document per packet,
 * {"_index", "_type", "_score", "_source": {"layers": {"frame": {...}, <outer protocols>, "ub": {...}}}}
 * with every value a string formatted as tshark shows it (the schema's -T fields format; byte strings
 * colon-separated), UB headers as objects inside "ub" nested by tree depth (ub.cci inside ub.nth, as
 * the plugin's tree). -T ek: the Elasticsearch bulk form, an index line and a flattened document. */
#include "ubdump_out.h"

#include <arpa/inet.h>
#include <inttypes.h>
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

/* Ethernet/IP/UDP before the first UB header (UBoE) are Wireshark's own top-level layers; SLL, the
 * CFG pseudo-header and IP/UDP inside a UB packet belong to the plugin's "ub" tree */
static const char *outer_proto(unsigned id)
{
    switch (id) {
    case UB_H_ETH: return "eth";
    case UB_H_VLAN: return "vlan";
    case UB_H_IPV4: return "ip";
    case UB_H_IPV6: return "ipv6";
    case UB_H_UDP: return "udp";
    default: return NULL;
    }
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
    if ((fd->type == UB_FT_UINT || fd->type == UB_FT_BOOL) && fd->base == UB_BASE_HEX && !(fd->flags & UB_FF_SIGNED)) {
        /* the plugin's FT_UINTn: the bytes the bit range spans (virtual fields: its width) */
        unsigned nb = fd->flags & UB_FF_VIRTUAL ? ((fd->bits ? fd->bits : 64) + 7) / 8
                                                : (fd->bit_off + fd->bits - 1) / 8 - fd->bit_off / 8 + 1;
        if (nb < 1) nb = 1;
        snprintf(buf, n, "0x%0*" PRIx64, (int)(nb > 4 ? 16 : 2 * nb), val.u); /* FT_UINT40..64: 16 digits */
        return true;
    }
    if ((fd->type == UB_FT_UINT || fd->type == UB_FT_BOOL) && fd->base == UB_BASE_DEC_HEX && !(fd->flags & UB_FF_SIGNED)) {
        snprintf(buf, n, "%" PRIu64, val.u); /* tshark's JSON shows BASE_DEC_HEX values in decimal */
        return true;
    }
    if (fd->type == UB_FT_IPV6 && val.nbytes == 16 && inet_ntop(AF_INET6, val.bytes, buf, (socklen_t)n)) return true;
    ub_format_value(fd, &val, false, buf, n);
    return true;
}

static void ind(FILE *f, int d) { fprintf(f, "\n%*s", 2 * d, ""); }

/* "key": "value" of the frame layer, shared by json and ek */
typedef void (*kv_fn)(FILE *f, void *ctx, const char *proto, const char *key, const char *val, bool boolean);

static void frame_kvs(FILE *f, const ubx_pkt *p, kv_fn kv, void *ctx)
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

void ubx_json_packet(FILE *f, const ubx_pkt *p, bool first)
{
    const ub_view *v = p->v;
    char idx[40];
    index_name(idx, sizeof idx, p->r->ts_ns);
    fprintf(f, "%s  {\n    \"_index\": \"%s\",\n    \"_type\": \"doc\",\n    \"_score\": null,\n    \"_source\": {\n"
               "      \"layers\": {",
            first ? "" : ",\n", idx);
    jctx j = { true, 4 };
    json_open(f, &j, "frame");
    frame_kvs(f, p, json_kv, &j);
    json_close(f, &j);
    /* outer protocols, then "ub" holding the UB headers nested by depth */
    bool in_ub = false;
    int open = 0; /* UB header objects open inside "ub" */
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        const char *op = in_ub ? NULL : outer_proto(l->hdr->id);
        while (open > (op ? 0 : (int)l->depth)) {
            json_close(f, &j);
            open--;
        }
        if (op) { /* only before "ub" is opened */
            json_open(f, &j, op);
            layer_kvs(f, l, op, json_kv, &j);
            json_close(f, &j);
            continue;
        }
        if (!in_ub) json_open(f, &j, "ub");
        in_ub = true;
        char key[64];
        snprintf(key, sizeof key, "ub.%s", l->hdr->abbrev);
        json_open(f, &j, key);
        open++;
        layer_kvs(f, l, "ub", json_kv, &j);
    }
    while (open-- > 0) json_close(f, &j);
    if (!in_ub && v->nerrs) { json_open(f, &j, "ub"); in_ub = true; }
    for (unsigned i = 0; in_ub && i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        json_kv(f, &j, "ub", "ub.error", ei ? ei->name : "?", false);
    }
    if (in_ub) json_close(f, &j);
    fputs("\n      }\n    }\n  }", f);
}

/* ------------------------------------------------------------------ -T ek */
/* flattened "proto_abbrev_with_underscores": value; a key seen twice becomes an array (tshark) */
typedef struct ekv {
    char key[96];
    const char *proto;
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
    k->proto = proto;
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

void ubx_ek_packet(FILE *f, const ubx_pkt *p)
{
    static ectx e; /* ubdump is single-threaded here; too big for the stack */
    const ub_view *v = p->v;
    e.n = 0;
    e.used = 0;
    frame_kvs(f, p, ek_kv, &e);
    bool in_ub = false;
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        const char *op = in_ub ? NULL : outer_proto(l->hdr->id);
        in_ub = !op;
        layer_kvs(f, l, op ? op : "ub", ek_kv, &e);
    }
    for (unsigned i = 0; i < v->nerrs; i++) {
        const ub_err_info *ei = ub_err_get(v->err[i].code);
        ek_kv(f, &e, "ub", "ub.error", ei ? ei->name : "?", false);
    }
    char idx[40];
    index_name(idx, sizeof idx, p->r->ts_ns);
    fprintf(f, "{\"index\":{\"_index\":\"%s\",\"_type\":\"doc\"}}\n", idx);
    /* tshark: seconds then 3 digits of milliseconds */
    fprintf(f, "{\"timestamp\":\"%" PRIu64 "%03u\",\"layers\":{", p->r->ts_ns / 1000000000u,
            (unsigned)(p->r->ts_ns % 1000000000u / 1000000u));
    const char *proto = NULL;
    for (unsigned i = 0; i < e.n; i++) {
        const ekv *k = &e.kv[i];
        bool seen = false;
        for (unsigned j = 0; j < i && !seen; j++) seen = strcmp(e.kv[j].key, k->key) == 0;
        if (seen) continue; /* printed with its first occurrence */
        if (!proto || strcmp(proto, k->proto) != 0) {
            fprintf(f, "%s\"%s\":{", proto ? "}," : "", k->proto);
            proto = k->proto;
        } else {
            fputc(',', f);
        }
        jstr(f, k->key);
        fputc(':', f);
        unsigned cnt = 0;
        for (unsigned j = i; j < e.n; j++) cnt += strcmp(e.kv[j].key, k->key) == 0;
        if (cnt == 1) {
            ek_val(f, &e, k);
            continue;
        }
        fputc('[', f);
        for (unsigned j = i, m = 0; j < e.n; j++)
            if (strcmp(e.kv[j].key, k->key) == 0) {
                if (m++) fputc(',', f);
                ek_val(f, &e, &e.kv[j]);
            }
        fputc(']', f);
    }
    fputs(proto ? "}}}\n" : "}}\n", f);
}
