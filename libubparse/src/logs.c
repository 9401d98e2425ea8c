/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON Lines logs of an audit session (logs.h, ubdump --log-dir; the schemas are docs/logs.md).
 * Rows come from the session's hooks (matches, findings) and, at the end, from its -z ub,tp channel
 * rows. Field names are user API: add fields, never rename or retype one. */
#include "ubparse/logs.h"

#include "report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { LOG_TXN, LOG_MGMT, LOG_TP, LOG_FIND, LOG__N };
static const char *const log_names[LOG__N] = { "transactions.jsonl", "mgmt.jsonl", "tp_channels.jsonl",
                                               "findings.jsonl" };

struct ub_logs {
    FILE *f[LOG__N];
    char *capture;            /* "capture" of every row, NULL: none */
    const ub_ruleset *rules;
    const ub_view *v;         /* the packet being fed (ub_logs_packet) */
    ub_pktinfo pi;
    uint64_t last_ts;         /* time of the last packet (findings raised at the end) */
    uint64_t rows[LOG__N];
    int err_no;               /* first write error */
};

/* ---------------------------------------------------------------- JSON pieces */
static void ts_iso(FILE *f, const char *name, uint64_t ns)
{
    time_t s = (time_t)(ns / 1000000000u);
    struct tm tm;
    char b[40];
    if (!gmtime_r(&s, &tm) || !strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm)) b[0] = 0;
    /* µs: the precision DuckDB/Spark/pandas read as a timestamp; the *_ns fields are exact */
    fprintf(f, "\"%s\":\"%s.%06" PRIu64 "Z\"", name, b, ns % 1000000000u / 1000u);
}
static void str_or_null(FILE *f, const char *name, const char *s)
{
    fprintf(f, ",\"%s\":", name);
    if (s && *s) ub_rep_json_str(f, s);
    else fputs("null", f);
}
static void row_start(ub_logs *l, FILE *f, uint64_t ts)
{
    fputc('{', f);
    ts_iso(f, "ts", ts);
    str_or_null(f, "capture", l->capture);
}
static void row_end(ub_logs *l, unsigned t)
{
    fputs("}\n", l->f[t]);
    l->rows[t]++;
    if (ferror(l->f[t]) && !l->err_no) l->err_no = errno ? errno : EIO;
}

/* text of the first field of names[] present in v (addresses as ubdump prints them) */
static bool view_text(const ub_view *v, const char *const *names, unsigned n, char *b, size_t bn)
{
    for (unsigned i = 0; v && i < n; i++) {
        const ub_field *fd;
        ub_val val;
        if (ub_view_get_val(v, names[i], &fd, &val) == 0) {
            ub_format_value(fd, &val, false, b, bn);
            return true;
        }
    }
    return false;
}
/* integer and value name of the first field of names[] present in v: "name":N,"name_name":"..." */
static void view_code(FILE *f, const ub_view *v, const char *name, const char *const *names, unsigned n)
{
    for (unsigned i = 0; v && i < n; i++) {
        const ub_field *fd;
        ub_val val;
        if (ub_view_get_val(v, names[i], &fd, &val) == 0) {
            fprintf(f, ",\"%s\":%" PRIu64, name, val.u);
            char nm[32];
            snprintf(nm, sizeof nm, "%s_name", name);
            str_or_null(f, nm, ub_vname_lookup(fd->vals, val.u));
            return;
        }
    }
    fprintf(f, ",\"%s\":null,\"%s_name\":null", name, name);
}

/* ---------------------------------------------------------------- hooks */
static void on_match(void *ctx, const ub_match *m)
{
    ub_logs *l = ctx;
    if (m->kind > 1) return; /* transport data -> ack pairs: tp_channels.jsonl counts them */
    unsigned t = m->kind == 0 ? LOG_TXN : LOG_MGMT;
    FILE *f = l->f[t];
    /* the packet being fed completes the response (its last packet when the response spans several):
     * its source is the target, its destination the initiator */
    const ub_view *v = l->v;
    uint64_t req_ts = m->req_ts_ns, rsp_ts = m->rsp_ts_ns;
    row_start(l, f, req_ts);
    fprintf(f, ",\"req_frame\":%" PRIu64 ",\"rsp_frame\":%" PRIu64 ",\"req_time_ns\":%" PRIu64
               ",\"rsp_time_ns\":%" PRIu64 ",\"latency_ns\":%" PRIu64,
            m->req_frame, m->rsp_frame, req_ts, rsp_ts, m->latency_ns);
    static const char *const srcs[] = { "ub.nth.scna", "ub.ipv4.src", "ub.ipv6.src" };
    static const char *const dsts[] = { "ub.nth.dcna", "ub.ipv4.dst", "ub.ipv6.dst" };
    char ini[64], tgt[64];
    str_or_null(f, "initiator", view_text(v, dsts, 3, ini, sizeof ini) ? ini : NULL);
    str_or_null(f, "target", view_text(v, srcs, 3, tgt, sizeof tgt) ? tgt : NULL);
    char ob[16];
    if (t == LOG_TXN) {
        fprintf(f, ",\"opcode\":%u", ub_match_code(m));
        str_or_null(f, "op", ub_match_opname(m, ob, sizeof ob));
        static const char *const st[] = { "ub.atah.rspst", "ub.atah.status" };
        view_code(f, v, "status", st, 2);
        static const char *const tassn[] = { "ub.atah.ini_tassn" };
        uint64_t u;
        if (v && ub_view_get(v, tassn[0], &u) == 0) fprintf(f, ",\"tassn\":%" PRIu64, u);
        else fputs(",\"tassn\":null", f);
    } else {
        bool enumeration = ((unsigned)m->opcode >> 8) >= 8;
        fprintf(f, ",\"kind\":\"%s\",\"code\":%u", enumeration ? "enumeration" : "configuration", ub_match_code(m));
        str_or_null(f, "op", ub_match_opname(m, ob, sizeof ob));
        static const char *const st[] = { "ub.mgmtetah.status", "ub.scan.status" };
        view_code(f, v, "status", st, 2);
    }
    row_end(l, t);
}

static bool on_finding(void *ctx, ub_finding *fi)
{
    ub_logs *l = ctx;
    FILE *f = l->f[LOG_FIND];
    const ub_rule *r = l->rules ? ub_ruleset_get(l->rules, fi->rule) : ub_rule_get(fi->rule);
    /* detected while the packet was fed, or at the end of the capture (timeouts) */
    uint64_t ts = l->v ? l->pi.ts_ns : l->last_ts;
    row_start(l, f, ts);
    str_or_null(f, "rule", r ? r->id : NULL);
    str_or_null(f, "severity", ub_rep_sev(fi->severity));
    str_or_null(f, "layer", r ? r->layer : NULL);
    fprintf(f, ",\"frame\":%" PRIu64 ",\"frames\":[", fi->frame);
    for (unsigned i = 0; i < fi->nframes && i < UB_FINDING_FRAMES; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", fi->frames[i]);
    fputs("],\"values\":[", f);
    for (unsigned i = 0; i < fi->nvalues && i < 4; i++) fprintf(f, "%s%" PRId64, i ? "," : "", fi->values[i]);
    fputc(']', f);
    str_or_null(f, "key_kind", fi->key);
    str_or_null(f, "key", fi->keytext);
    str_or_null(f, "title", r ? r->title : NULL);
    char msg[1024];
    ub_finding_text(fi, false, msg, sizeof msg);
    str_or_null(f, "message", msg);
    row_end(l, LOG_FIND);
    return true;
}

static void tp_row(void *ctx, const ub_tp_channel *c)
{
    ub_logs *l = ctx;
    FILE *f = l->f[LOG_TP];
    row_start(l, f, c->first_ts_ns);
    char key[160];
    if (c->src_tpn != UINT32_MAX)
        snprintf(key, sizeof key, "%s %s:0x%x -> %s:0x%x", c->transport, c->src, c->src_tpn, c->dst, c->dst_tpn);
    else
        snprintf(key, sizeof key, "%s %s -> %s", c->transport, c->src, c->dst);
    str_or_null(f, "channel", key);
    str_or_null(f, "transport", c->transport);
    str_or_null(f, "src", c->src);
    str_or_null(f, "dst", c->dst);
    if (c->src_tpn != UINT32_MAX) fprintf(f, ",\"src_tpn\":%" PRIu32 ",\"dst_tpn\":%" PRIu32, c->src_tpn, c->dst_tpn);
    else fputs(",\"src_tpn\":null,\"dst_tpn\":null", f);
    fprintf(f,
            ",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"data\":%" PRIu64 ",\"acks\":%" PRIu64
            ",\"retransmissions\":%" PRIu64 ",\"out_of_order\":%" PRIu64 ",\"gaps\":%" PRIu64 ",\"duplicates\":%" PRIu64
            ",\"dup_acks\":%" PRIu64 ",\"naks\":%" PRIu64 ",\"sacks\":%" PRIu64 ",\"first_frame\":%" PRIu64
            ",\"last_frame\":%" PRIu64 ",\"first_time_ns\":%" PRIu64 ",\"last_time_ns\":%" PRIu64
            ",\"duration_ns\":%" PRIu64,
            c->packets, c->bytes, c->data, c->acks, c->retransmissions, c->out_of_order, c->gaps, c->duplicates,
            c->dup_acks, c->naks, c->sacks, c->first_frame, c->last_frame, c->first_ts_ns, c->last_ts_ns,
            c->last_ts_ns - c->first_ts_ns);
    row_end(l, LOG_TP);
}

/* ---------------------------------------------------------------- life cycle */
static void logs_free(ub_logs *l)
{
    for (unsigned t = 0; t < LOG__N; t++)
        if (l->f[t]) fclose(l->f[t]);
    free(l->capture);
    free(l);
}

ub_logs *ub_logs_open(const char *dir, const char *capture, const ub_ruleset *rules, char *err, size_t errlen)
{
    if (!dir || !*dir) {
        snprintf(err, errlen, "--log-dir: no directory");
        return NULL;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    ub_logs *l = calloc(1, sizeof *l);
    if (!l || (capture && !(l->capture = strdup(capture)))) {
        if (l) logs_free(l);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->rules = rules;
    for (unsigned t = 0; t < LOG__N; t++) {
        size_t n = strlen(dir) + strlen(log_names[t]) + 2;
        char *p = malloc(n);
        if (p) snprintf(p, n, "%s/%s", dir, log_names[t]);
        l->f[t] = p ? fopen(p, "w") : NULL;
        if (!l->f[t]) {
            snprintf(err, errlen, "%s: %s", p ? p : log_names[t], p ? strerror(errno) : "out of memory");
            free(p);
            logs_free(l);
            return NULL;
        }
        free(p);
    }
    return l;
}

int ub_logs_attach(ub_logs *l, ub_audit *a)
{
    if (!l || !a) return -1;
    ub_audit_hooks h;
    memset(&h, 0, sizeof h);
    h.ctx = l;
    h.finding = on_finding;
    h.match = on_match;
    return ub_audit_add_hooks(a, &h);
}

void ub_logs_packet(ub_logs *l, const ub_view *v, const ub_pktinfo *pi)
{
    if (!l) return;
    l->v = v;
    l->pi = *pi;
    if (pi->ts_ns > l->last_ts) l->last_ts = pi->ts_ns;
}

int ub_logs_close(ub_logs *l, const ub_audit *a, char *err, size_t errlen)
{
    if (!l) return 0;
    l->v = NULL;
    ub_audit_tp_channels(a, tp_row, l);
    int rc = 0;
    for (unsigned t = 0; t < LOG__N; t++) {
        if ((fflush(l->f[t]) != 0 || ferror(l->f[t])) && !l->err_no) l->err_no = errno ? errno : EIO;
        if (fclose(l->f[t]) != 0 && !l->err_no) l->err_no = errno ? errno : EIO;
        l->f[t] = NULL;
    }
    if (l->err_no) {
        snprintf(err, errlen, "--log-dir: write error: %s", strerror(l->err_no));
        rc = -1;
    }
    logs_free(l);
    return rc;
}
