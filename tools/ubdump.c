/* ubdump — UB capture analyzer and protocol auditor (tcpdump/tshark conventions), driven by libubparse.
 *
 *   ubdump -r FILE [-V] [-T text|fields|json] [-e FIELD]... [-Y FILTER] [-c COUNT] [-q] [-o OPTION=VALUE]...
 *          [--audit [--audit-format text|json|sarif|junit] [--fail-on error|warning|never]] [-z STAT]... [-j N]
 *
 * Data flow: records -> (raw flit streams: ub_stream units) -> ub_decode -> {printing (selected by -Y),
 * -z ub,cfg counters, the state engine}. The engine (libubparse state.h) sees EVERY packet: -Y only
 * selects what is printed. With -j N the main thread reads and decodes; one engine (DLL + decode
 * findings) sees every packet (in the main thread, or in a link thread when there are at least N + 2
 * CPUs; UBDUMP_LINK_THREAD=0|1 forces it, for tests), and N worker engines (NW/TP/TA/MG) get the
 * packets of their endpoint pairs (ub_state_pair_hash % N; link-only traffic to worker 0). Packets
 * travel as copies of the decoded view (record bytes, layers, errors, netbuf; pointers relocated) in
 * batches through small bounded queues. Findings are kept per rule (counts + the first examples by
 * (frame, rule, emitting packet, engine class, emission order)) so the report does not depend on
 * the thread schedule: -j N prints what -j 1 prints.
 *
 * Exit status: 0 the file was read (and, with --audit, no finding at or above the --fail-on level),
 * 1 --audit found something at or above the fail level, 2 usage or I/O error. */
#include "ubparse/capfile.h"
#include "ubparse/filter.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_E 64
#define MAX_MATCH 16
#define MAX_JOBS 64

enum { OUT_TEXT, OUT_FIELDS, OUT_JSON };
enum { PF_NONE, PF_FRAME_NUMBER, PF_FRAME_TIME_REL, PF_FRAME_TIME_EPOCH, PF_FRAME_LEN, PF_UB_ERROR, PF_FRAME_UNIT };
enum { AF_TEXT, AF_JSON, AF_SARIF, AF_JUNIT };
enum { Z_CFG = 1, Z_TP = 2, Z_SRT = 4, Z_MGMT = 8 };

static const char *const sev_name[] = { "note", "warning", "error" };

typedef struct {
    const char *name;
    int pseudo;
    size_t n;
    const ub_hdr *h[MAX_MATCH];
    const ub_field *f[MAX_MATCH];
} efield;

/* a field resolved once to the tables that define it */
typedef struct {
    size_t n;
    const ub_hdr *h[MAX_MATCH];
    const ub_field *f[MAX_MATCH];
} fh;

static void fh_init(fh *h, const char *name)
{
    h->n = ub_field_find(name, h->h, h->f, MAX_MATCH);
    if (h->n > MAX_MATCH) h->n = MAX_MATCH;
}
/* value of the field in layer l: 0 found */
static int fh_get(const fh *h, const ub_layer *l, ub_val *out)
{
    for (size_t k = 0; k < h->n; k++)
        if (h->f[k] && l->hdr == h->h[k]) return ub_field_value(l, h->f[k], out);
    return -1;
}
static const ub_vname *fh_vals(const fh *h) { return h->n && h->f[0] ? h->f[0]->vals : NULL; }

/* ================================================================ statistics (-z) */

/* -z ub,cfg: counted in the main thread over every decoded packet */
typedef struct {
    uint64_t cfg_pkts[17], cfg_bytes[17]; /* index CFG + 1 (0 = unknown) */
    uint64_t hdr[UB_H__COUNT];
    uint64_t taop_req[256], taop_rsp[256], tpop[256], mgcode[8], scanop[256];
    uint64_t errors[UB_E__COUNT];
} cfgstats;

/* latency: exact count/min/max/sum and log2 histogram, median/p99 from a bounded sample. The sample
 * keeps the matches with the K smallest hash(request frame, response frame): a uniform sample that
 * does not depend on arrival order, so -j N gives the same numbers as -j 1 (exact while count <= K). */
#define LAT_K 4096u
typedef struct {
    uint64_t h, lat;
} lsamp;
typedef struct {
    uint64_t count, min, max, sum;
    uint64_t hist[64];
    lsamp *s;
    uint32_t ns, cap;
} latst;

#define LAT_GROUPS 3 /* 0 transactions by TAOpcode, 1 management by Code, 2 transport acks */
typedef struct {
    latst *g[LAT_GROUPS][256];
} latset;

/* -z ub,tp: per TP channel (direction, addresses, TPNs); bounded, the rest in one "other" row */
#define TP_MAX 4096u
#define TP_SLOTS 8192u
typedef struct {
    uint8_t used, kind, slen, dlen;
    uint8_t src[16], dst[16];
    uint32_t stpn, dtpn; /* UINT32_MAX: none (UTP/CTP) */
    uint64_t first, pkts, bytes, data, ctrl;
    uint64_t fl[7]; /* ub_tp_flags bits */
} tpch;
typedef struct {
    tpch *t; /* TP_SLOTS */
    uint32_t n;
    tpch other;
} tpstats;

/* ================================================================ findings */
typedef struct {
    ub_finding f;
    uint64_t pkt; /* unit being processed when emitted (UINT64_MAX: at the end of the capture) */
    uint64_t seq; /* emission order within its engine */
    uint8_t phase; /* engine class: 0 link/all, 1 pair shard */
} fex;
typedef struct {
    uint64_t count[3];
    fex *ex;
    uint32_t nex;
} rgroup;
typedef struct {
    rgroup *g; /* [ub_rule_count()] */
    unsigned nrules, K;
} fcoll;

static int fex_cmp(const fex *a, const fex *b)
{
    if (a->f.frame != b->f.frame) return a->f.frame < b->f.frame ? -1 : 1;
    if (a->f.rule != b->f.rule) return a->f.rule < b->f.rule ? -1 : 1;
    if (a->pkt != b->pkt) return a->pkt < b->pkt ? -1 : 1;
    if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

static int fcoll_init(fcoll *c, unsigned K)
{
    c->nrules = ub_rule_count();
    c->K = K;
    c->g = calloc(c->nrules, sizeof *c->g);
    return c->g ? 0 : -1;
}
static void fcoll_free(fcoll *c)
{
    if (!c->g) return;
    for (unsigned i = 0; i < c->nrules; i++) free(c->g[i].ex);
    free(c->g);
    c->g = NULL;
}
/* keep the K smallest examples per rule, sorted */
static void fcoll_add(fcoll *c, const fex *x)
{
    if (x->f.rule >= c->nrules) return;
    rgroup *g = &c->g[x->f.rule];
    g->count[x->f.severity > 2 ? 2 : x->f.severity]++;
    if (c->K == 0 || (g->nex == c->K && fex_cmp(x, &g->ex[g->nex - 1]) >= 0)) return;
    if (!g->ex) {
        g->ex = malloc(c->K * sizeof *g->ex);
        if (!g->ex) return;
    }
    uint32_t i = g->nex < c->K ? g->nex : c->K - 1;
    while (i > 0 && fex_cmp(x, &g->ex[i - 1]) < 0) {
        g->ex[i] = g->ex[i - 1];
        i--;
    }
    g->ex[i] = *x;
    if (g->nex < c->K) g->nex++;
}
static void fcoll_merge(fcoll *d, const fcoll *s)
{
    for (unsigned r = 0; r < s->nrules && r < d->nrules; r++) {
        const rgroup *g = &s->g[r];
        uint64_t before[3] = { d->g[r].count[0], d->g[r].count[1], d->g[r].count[2] };
        for (uint32_t i = 0; i < g->nex; i++) fcoll_add(d, &g->ex[i]);
        for (int k = 0; k < 3; k++) d->g[r].count[k] = before[k] + g->count[k];
    }
}

/* ================================================================ engines */
typedef struct app app;
typedef struct eng {
    app *a;
    ub_state *st;
    uint8_t phase;
    uint64_t cur_pkt, cur_frame, seq;
    uint32_t cur_flags;
    fcoll fc;
    tpstats tp;
    latset lat;
} eng;

/* ================================================================ -j shards */
/* One entry of a shard batch: rechdr, then (mode) the payload, 8-byte aligned:
 *   M_VIEW  the decoded view: vhdr, the record bytes, the layers, the errors, the used netbuf bytes
 *           (the worker rebuilds the view and relocates its pointers: no second decode)
 *   M_REC   the record bytes only (re-decoded in the worker): used when a view points outside
 *           its record and netbuf, which the decoder never does today
 *   M_TICK  end-of-capture clock (no payload) */
enum { M_VIEW = 0, M_REC = 1, M_TICK = 2 };
typedef struct {
    uint64_t seq, frame, ts;
    uint32_t ifindex, len; /* len: record bytes */
    uint8_t dir, entry, uflags, mode;
    uint32_t pay;          /* payload bytes after this header (multiple of 8) */
} rechdr;
typedef struct {
    uint64_t orig_rec, orig_net;
    uint32_t nl, ne, netlen, pad;
    uint8_t prefix[offsetof(ub_view, layer)]; /* the view's scalar fields as decoded */
} vhdr;
/* view_receive() relocates the prefix's pointers (rec, opts, pkt): a new field before layer[]
 * must be handled there (this trips when one is appended after errs_dropped) */
_Static_assert(offsetof(ub_view, errs_dropped) + sizeof(uint16_t) + _Alignof(ub_layer) > offsetof(ub_view, layer),
               "ub_view gained a field before layer[]: update view_receive()");
typedef struct batch {
    uint8_t *buf;
    size_t cap, used;
    struct batch *next;
} batch;
#define SHQ 4
#define BATCH_BYTES (256u * 1024u)
typedef struct shard {
    pthread_t th;
    bool started;
    app *a;
    eng e;
    ub_view *v;
    pthread_mutex_t mu;
    pthread_cond_t cv_data, cv_space;
    batch *q[SHQ];
    unsigned qh, qn, nbatches;
    bool done;
    batch *freel;
    batch *fill; /* main thread only */
} shard;

struct app {
    ub_opts o;
    int out, verbose, quiet;
    long count;
    efield e[MAX_E];
    unsigned ne;
    char sep, agg;
    int header;
    uint64_t t0;
    bool have_t0;
    uint64_t npkts, nunits, nshown;
    uint64_t max_ts, last_frame; /* over the packets fed to the engines */
    ub_view *v;
    bool json_first;
    /* raw flit streams, one per (interface, direction) */
    ub_stream *streams[64];
    const ub_rec *cur;
    /* display filter */
    ub_filter *yf;
    /* audit / statistics */
    bool audit;
    int afmt, fail_on; /* fail_on: ub_sev, 3 = never */
    unsigned examples;
    const char *aout_path;
    const char *file;
    unsigned zmask;
    int jobs;
    ub_state_cfg scfg;
    bool engine;   /* an engine runs (audit or -z tp/srt/mgmt) */
    eng main_eng;  /* -j 1: the engine, all layers; -j N without a link thread: the link engine (DLL + decode) */
    shard *sh;     /* -j N: [0, jobs) pair shards (NW/TP/TA/MG), [jobs] the link shard (DLL + decode) if link_thread */
    int nsh;
    bool link_thread;
    cfgstats *cs;
    fh f_taop_b, f_taop_a, f_tpop, f_mgcode, f_scanop, f_scna, f_dcna, f_ip4s, f_ip4d, f_ip6s, f_ip6d, f_stpn, f_dtpn;
    /* progress */
    bool progress;
    struct timespec tlast, tstart;
    bool prog_shown;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ubdump -r FILE [options]\n"
            "  -r FILE          read pcap/pcapng FILE ('-' = standard input)\n"
            "  -V               print the full decode tree of every packet\n"
            "  -T text|fields|json   output format (default text: one summary line per packet)\n"
            "  -e FIELD         with -T fields: field to print (repeatable), e.g. ub.btah.taopcode,\n"
            "                   frame.number, frame.time_relative, frame.len, ub.error\n"
            "  -E header=y|n    with -T fields: print the field names first; -E separator=C, -E aggregator=C\n"
            "  -Y FILTER        print only packets matching the display filter, e.g.\n"
            "                   'ub.btah.taopcode == \"Read\" && ub.lph.vl != 0', 'ub.error', 'ub.icrc.status == \"Bad\"'\n"
            "                   (the audit and the statistics still see every packet)\n"
            "  -c COUNT         stop after COUNT records\n"
            "  -q               decode everything, print only the totals (and the audit / statistics)\n"
            "  -o NAME=VALUE    decoder option (ubdump -o help lists them)\n"
            "  --noncrc         links run in Non-CRC mode (END instead of BCRC)\n"
            "  -G fields|errors|headers|rules  list every field / error name / header table / audit rule and exit\n"
            "audit (protocol-state checks, rule catalogue: ubdump -G rules, docs/rules.md):\n"
            "  --audit          check every packet, print the findings grouped by rule after the run\n"
            "  --audit-format text|json|sarif|junit   report format (default text); json/sarif/junit on\n"
            "                   standard output suppress the packet lines and move -z output to stderr\n"
            "  --audit-output FILE   write the report to FILE instead of standard output\n"
            "  --audit-examples N    findings shown per rule (default 5 in text, 100 otherwise)\n"
            "  --fail-on error|warning|never   exit 1 when a finding has this severity or above (default error);\n"
            "                   notes never change the exit status\n"
            "  --response-timeout MS   unanswered requests are errors only after MS ms of capture (default 100)\n"
            "  --expect-taack   RTP Writes/Sends expect TAACKs (§10.6 a)\n"
            "  --gaps-are-notes PSN gaps are notes (per-packet load balancing, one path captured; §10.6 c)\n"
            "  --max-links N, --max-channels N, --max-transactions N, --max-mgmt N   state table bounds\n"
            "  -j N             run the audit on N worker threads (same output as -j 1)\n"
            "statistics, printed after the run:\n"
            "  -z ub,cfg        packets per CFG, header, TAOpcode, TPOpcode, DLLCB type, management code\n"
            "  -z ub,tp         per TP channel: packets, bytes, retransmissions, reordering, losses, acks\n"
            "  -z ub,srt        transaction response times per TAOpcode (min/median/p99/max, histogram)\n"
            "  -z ub,mgmt       management response times per Code\n"
            "Exit status: 0 file read (and audit clean), 1 audit findings at or above --fail-on, 2 usage or I/O error.\n");
}

static int set_option(ub_opts *o, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq) return -1;
    size_t kl = (size_t)(eq - kv);
    const char *val = eq + 1;
    unsigned long u = strtoul(val, NULL, 0);
#define K(s) (kl == strlen(s) && strncmp(kv, s, kl) == 0)
    if (K("dlt.flit")) o->dlt_flit = (uint16_t)u;
    else if (K("dlt.pkt")) o->dlt_pkt = (uint16_t)u;
    else if (K("dlt.stream")) o->dlt_stream = (uint16_t)u;
    else if (K("udp.port")) o->udp_port = (uint16_t)u;
    else if (K("crc_mode")) o->crc_mode = strcmp(val, "noncrc") != 0 && strcmp(val, "0") != 0;
    else if (K("bcrc_variant")) o->bcrc_variant = (uint8_t)u;
    else if (K("tah_fmt.6") || K("tah_fmt.9") || K("tah_fmt.7") || K("tah_fmt.3") || K("tah_fmt.4")) {
        int cfg = kv[8] - '0';
        o->tah_fmt[cfg] = strcmp(val, "compact") == 0 || strcmp(val, "1") == 0 ? UB_TAH_COMPACT : UB_TAH_FULL;
    } else if (K("read_ext4")) o->read_ext4 = (uint8_t)u;
    else if (K("rsp_ext")) o->rsp_ext = (uint8_t)u;
    else if (K("btah_variant")) o->btah_variant = (uint8_t)u;
    else if (K("scan_packing")) o->scan_packing = (uint8_t)u;
    else if (K("vdm_variant")) o->vdm_variant = (uint8_t)u;
    else if (K("init_variant")) o->init_variant = (uint8_t)u;
    else if (K("cetph_variant")) o->cetph_variant = (uint8_t)u;
    else if (K("bitmap_order")) o->bitmap_order = (uint8_t)u;
    else if (K("icv_len")) o->icv_len = (uint16_t)u;
    else if (K("cip_decode_inner")) o->cip_decode_inner = u != 0;
    else if (K("urpc")) o->urpc_heuristic = u != 0;
    else if (K("icrc_enum")) o->icrc_enum = (uint8_t)u;
    else return -1;
#undef K
    return 0;
}

static void list_options(void)
{
    puts("dlt.flit=N dlt.pkt=N dlt.stream=N   link types of the three UB entry points (147/148/149)\n"
         "udp.port=N                         UB over UDP port (4792)\n"
         "crc_mode=crc|noncrc                BCRC per block (CRC) or END (Non-CRC)\n"
         "bcrc_variant=0|1                   R-03: CRC30 covers the 2 info bits (0) or bytes only (1)\n"
         "tah_fmt.<cfg>=full|compact          R-25: TAH format per CFG (defaults: 6,9 compact; others full)\n"
         "read_ext4=0|1|2                    R-26: 4 spare bytes in a Read: auto, TAIDETAH, OFSTETAH\n"
         "rsp_ext=0..3                       R-26: responses carry TAIDETAH (1) / OFSTETAH (2)\n"
         "btah_variant=0|1                   I-34: BTAH byte 4 per spec (0) or EV-UBUS (1)\n"
         "scan_packing=0|1                   R-32: path entries rev.2 (0) or rev.1 (1)\n"
         "vdm_variant=0|1                    R-36: VDM header figure order (0) or EV-UBUS (1)\n"
         "init_variant=0|1|2                 R-08: Init Block layout A, B or auto\n"
         "cetph_variant=0|1                  R-17: CETPH of TPACK-CC family LDCP (0) or CAQM (1)\n"
         "bitmap_order=0|1                   R-18: SAETPH bitmap order\n"
         "icv_len=N                          R-22: ICV bytes (12)\n"
         "cip_decode_inner=0|1               decode the TAH after a CIPH (default 0: opaque)\n"
         "urpc=0|1                           decode URPC in Send payloads\n"
         "icrc_enum=0|1|2                    R-44: enumeration ICRC auto/always/never");
}

static void list_fields(void)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        for (unsigned k = 0; k < h->nfields; k++)
            printf("%s\t%s\t%s\t%s\n", h->fields[k].abbrev, h->fields[k].name, h->key, h->fields[k].spec);
    }
    printf("ub.error\tError names\t-\t-\n");
}

static void list_errors(void)
{
    static const char *grp[] = { "malformed", "protocol", "sequence", "checksum" };
    for (unsigned c = 1; c < UB_E__COUNT; c++) {
        const ub_err_info *e = ub_err_get(c);
        if (e) printf("%s\t%s\t%s\t%s\n", e->name, sev_name[e->severity], grp[e->group], e->desc);
    }
}

static void list_headers(void)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (h) printf("%s\tub.%s\t%s\t%u\t%s\n", h->key, h->abbrev, h->name, h->len, h->spec);
    }
}

/* id, layer, severity, spec, title, evidence */
static void list_rules(void)
{
    for (unsigned i = 0; i < ub_rule_count(); i++) {
        const ub_rule *r = ub_rule_get(i);
        if (r) printf("%s\t%s\t%s\t%s\t%s\t%s\n", r->id, r->layer, sev_name[r->severity > 2 ? 2 : r->severity], r->spec,
                      r->title, r->evidence);
    }
}

static int add_efield(app *a, const char *name)
{
    if (a->ne >= MAX_E) return -1;
    efield *e = &a->e[a->ne];
    memset(e, 0, sizeof *e);
    e->name = name;
    if (strcmp(name, "frame.number") == 0) e->pseudo = PF_FRAME_NUMBER;
    else if (strcmp(name, "frame.time_relative") == 0) e->pseudo = PF_FRAME_TIME_REL;
    else if (strcmp(name, "frame.time_epoch") == 0) e->pseudo = PF_FRAME_TIME_EPOCH;
    else if (strcmp(name, "frame.len") == 0) e->pseudo = PF_FRAME_LEN;
    else if (strcmp(name, "ub.error") == 0) e->pseudo = PF_UB_ERROR;
    else {
        e->n = ub_field_find(name, e->h, e->f, MAX_MATCH);
        if (e->n == 0) return -1;
        if (e->n > MAX_MATCH) e->n = MAX_MATCH;
    }
    a->ne++;
    return 0;
}

static void print_efield(app *a, const efield *e, FILE *out)
{
    const ub_view *v = a->v;
    const ub_rec *r = a->cur;
    switch (e->pseudo) {
    case PF_FRAME_NUMBER: fprintf(out, "%" PRIu64, r->frame); return;
    case PF_FRAME_TIME_REL: {
        uint64_t d = r->ts_ns - a->t0;
        fprintf(out, "%" PRIu64 ".%09" PRIu64, d / 1000000000u, d % 1000000000u);
        return;
    }
    case PF_FRAME_TIME_EPOCH:
        fprintf(out, "%" PRIu64 ".%09" PRIu64, r->ts_ns / 1000000000u, r->ts_ns % 1000000000u);
        return;
    case PF_FRAME_LEN: fprintf(out, "%u", r->origlen); return;
    case PF_UB_ERROR: {
        for (unsigned i = 0; i < v->nerrs; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            if (i) fputc(a->agg, out);
            fputs(ei ? ei->name : "?", out);
        }
        return;
    }
    default: break;
    }
    bool first = true;
    char buf[2200];
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        for (size_t k = 0; k < e->n; k++) {
            if (l->hdr != e->h[k]) continue;
            if (!e->f[k]) continue;
            ub_val val;
            if (ub_field_value(l, e->f[k], &val) != 0) continue;
            ub_format_value(e->f[k], &val, false, buf, sizeof buf);
            if (!first) fputc(a->agg, out);
            fputs(buf, out);
            first = false;
        }
    }
}

static const char *entry_name(unsigned e)
{
    static const char *n[] = { "none", "flit", "pkt", "stream", "sll", "sll2", "eth", "rawip", "cfgph", "tph" };
    return e < sizeof n / sizeof n[0] ? n[e] : "?";
}

/* ================================================================ -z ub,cfg */
static void cfg_add(app *a, const ub_view *v, uint32_t len)
{
    cfgstats *c = a->cs;
    int ci = v->cfg >= 0 && v->cfg <= 15 ? v->cfg + 1 : 0;
    c->cfg_pkts[ci]++;
    c->cfg_bytes[ci] += len;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        if (id < UB_H__COUNT) c->hdr[id]++;
        ub_val val;
        if (id == UB_H_BTAH || id == UB_H_BTAH_C || id == UB_H_BTAH_ALT) {
            if (fh_get(&a->f_taop_b, l, &val) == 0) c->taop_req[val.u & 0xFF]++;
        } else if (id == UB_H_ATAH || id == UB_H_ATAH_C) {
            if (fh_get(&a->f_taop_a, l, &val) == 0) c->taop_rsp[val.u & 0xFF]++;
        } else if (id == UB_H_RTPH || id == UB_H_UTPH || id == UB_H_CTPH) {
            if (fh_get(&a->f_tpop, l, &val) == 0) c->tpop[val.u & 0xFF]++;
        } else if (id == UB_H_MGMTETAH) {
            if (fh_get(&a->f_mgcode, l, &val) == 0) c->mgcode[val.u & 7]++;
        } else if (id == UB_H_SCANPDU_REQ || id == UB_H_SCANPDU_RSP) {
            if (fh_get(&a->f_scanop, l, &val) == 0) c->scanop[val.u & 0xFF]++;
        }
    }
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    for (unsigned i = 0; i < ne; i++)
        if (v->err[i].code < UB_E__COUNT) c->errors[v->err[i].code]++;
}

static void z_rule(FILE *f) { fputs("===================================================================\n", f); }

static void print_counts(FILE *f, const char *title, const uint64_t *cnt, unsigned n, const ub_vname *vals, bool hex)
{
    bool any = false;
    for (unsigned i = 0; i < n; i++) any |= cnt[i] != 0;
    if (!any) return;
    fprintf(f, "%s\n", title);
    for (unsigned i = 0; i < n; i++) {
        if (!cnt[i]) continue;
        const char *nm = vals ? ub_vname_lookup(vals, i) : NULL;
        char lab[96];
        if (hex) snprintf(lab, sizeof lab, "0x%02x %s", i, nm ? nm : "");
        else snprintf(lab, sizeof lab, "%u %s", i, nm ? nm : "");
        fprintf(f, "  %-44s %12" PRIu64 "\n", lab, cnt[i]);
    }
}

static void print_z_cfg(app *a, FILE *f)
{
    cfgstats *c = a->cs;
    z_rule(f);
    fprintf(f, "UB packet counts (-z ub,cfg): %" PRIu64 " records, %" PRIu64 " packets\n", a->npkts, a->nunits);
    fprintf(f, "CFG                                               packets        bytes\n");
    for (int i = 0; i < 17; i++) {
        if (!c->cfg_pkts[i]) continue;
        char lab[16];
        if (i == 0) snprintf(lab, sizeof lab, "unknown");
        else snprintf(lab, sizeof lab, "CFG %d", i - 1);
        fprintf(f, "  %-44s %12" PRIu64 " %12" PRIu64 "\n", lab, c->cfg_pkts[i], c->cfg_bytes[i]);
    }
    fprintf(f, "Header (layer)\n");
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        if (!c->hdr[id]) continue;
        const ub_hdr *h = ub_hdr_get(id);
        char lab[96];
        snprintf(lab, sizeof lab, "%s (ub.%s)", h ? h->key : "?", h ? h->abbrev : "?");
        fprintf(f, "  %-44s %12" PRIu64 "\n", lab, c->hdr[id]);
    }
    print_counts(f, "TAOpcode (requests, BTAH)", c->taop_req, 256, fh_vals(&a->f_taop_b), true);
    print_counts(f, "TAOpcode (responses, ATAH)", c->taop_rsp, 256, fh_vals(&a->f_taop_a), true);
    print_counts(f, "TPOpcode", c->tpop, 256, fh_vals(&a->f_tpop), true);
    {
        bool any = false;
        for (unsigned id = UB_H_DLLCB_NULL; id <= UB_H_DLLCB_RSVD; id++) any |= c->hdr[id] != 0;
        if (any) {
            fprintf(f, "DLLCB type\n");
            for (unsigned id = UB_H_DLLCB_NULL; id <= UB_H_DLLCB_RSVD; id++) {
                const ub_hdr *h = ub_hdr_get(id);
                if (c->hdr[id]) fprintf(f, "  %-44s %12" PRIu64 "\n", h ? h->name : "?", c->hdr[id]);
            }
        }
    }
    print_counts(f, "Management Code (MGMTETAH)", c->mgcode, 8, fh_vals(&a->f_mgcode), false);
    print_counts(f, "Scan PDU opcode", c->scanop, 256, fh_vals(&a->f_scanop), true);
    {
        bool any = false;
        for (unsigned e = 1; e < UB_E__COUNT; e++) any |= c->errors[e] != 0;
        if (any) {
            fprintf(f, "Decode errors (ub.error)\n");
            for (unsigned e = 1; e < UB_E__COUNT; e++) {
                const ub_err_info *ei = ub_err_get(e);
                if (c->errors[e]) fprintf(f, "  %-44s %12" PRIu64 "\n", ei ? ei->name : "?", c->errors[e]);
            }
        }
    }
    z_rule(f);
}

/* ================================================================ latency statistics */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}
static bool ls_less(const lsamp *a, const lsamp *b) { return a->h < b->h || (a->h == b->h && a->lat < b->lat); }
/* bottom-K by (h, lat): a max-heap of the K smallest */
static void lat_sample(latst *L, lsamp x)
{
    if (L->ns < LAT_K) {
        if (L->ns == L->cap) {
            uint32_t nc = L->cap ? L->cap * 2 : 64;
            if (nc > LAT_K) nc = LAT_K;
            lsamp *s = realloc(L->s, nc * sizeof *s);
            if (!s) return;
            L->s = s;
            L->cap = nc;
        }
        uint32_t i = L->ns++;
        while (i > 0) {
            uint32_t p = (i - 1) / 2;
            if (!ls_less(&L->s[p], &x)) break;
            L->s[i] = L->s[p];
            i = p;
        }
        L->s[i] = x;
        return;
    }
    if (!ls_less(&x, &L->s[0])) return;
    uint32_t i = 0, n = L->ns;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ls_less(&L->s[c], &L->s[c + 1])) c++;
        if (!ls_less(&x, &L->s[c])) break;
        L->s[i] = L->s[c];
        i = c;
    }
    L->s[i] = x;
}
static unsigned lat_bucket(uint64_t ns)
{
    unsigned b = 0;
    while (ns > 1 && b < 63) { ns >>= 1; b++; }
    return b; /* [2^b, 2^(b+1)) ns; bucket 0 also holds 0 */
}
static latst *lat_get(latset *s, unsigned g, unsigned k)
{
    if (g >= LAT_GROUPS) return NULL;
    k &= 0xFF;
    if (!s->g[g][k]) s->g[g][k] = calloc(1, sizeof(latst));
    return s->g[g][k];
}
static void lat_add_raw(latst *L, uint64_t lat, uint64_t h)
{
    if (L->count == 0 || lat < L->min) L->min = lat;
    if (lat > L->max) L->max = lat;
    L->count++;
    L->sum = L->sum + lat < L->sum ? UINT64_MAX : L->sum + lat;
    L->hist[lat_bucket(lat)]++;
    lat_sample(L, (lsamp){ h, lat });
}
static void lat_merge(latset *d, const latset *s)
{
    for (unsigned g = 0; g < LAT_GROUPS; g++)
        for (unsigned k = 0; k < 256; k++) {
            const latst *x = s->g[g][k];
            if (!x || !x->count) continue;
            latst *L = lat_get(d, g, k);
            if (!L) continue;
            if (L->count == 0 || x->min < L->min) L->min = x->min;
            if (x->max > L->max) L->max = x->max;
            L->count += x->count;
            L->sum = L->sum + x->sum < L->sum ? UINT64_MAX : L->sum + x->sum;
            for (int b = 0; b < 64; b++) L->hist[b] += x->hist[b];
            for (uint32_t i = 0; i < x->ns; i++) lat_sample(L, x->s[i]);
        }
}
static void lat_free(latset *s)
{
    for (unsigned g = 0; g < LAT_GROUPS; g++)
        for (unsigned k = 0; k < 256; k++)
            if (s->g[g][k]) { free(s->g[g][k]->s); free(s->g[g][k]); s->g[g][k] = NULL; }
}
static int u64cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}
static void fmt_ns(char *b, size_t n, uint64_t ns)
{
    if (ns < 1000) snprintf(b, n, "%" PRIu64 " ns", ns);
    else if (ns < 1000000) snprintf(b, n, "%.3g us", (double)ns / 1e3);
    else if (ns < 1000000000) snprintf(b, n, "%.3g ms", (double)ns / 1e6);
    else snprintf(b, n, "%.4g s", (double)ns / 1e9);
}
static void print_lat(FILE *f, const char *label, const latst *L)
{
    uint64_t *v = malloc((L->ns ? L->ns : 1) * sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < L->ns; i++) v[i] = L->s[i].lat;
    qsort(v, L->ns, sizeof *v, u64cmp);
    /* nearest rank on the sample (exact while count <= LAT_K) */
    uint64_t med = L->ns ? v[(L->ns - 1) / 2] : 0;
    uint32_t r99 = L->ns ? (uint32_t)((L->ns * 99u + 99u) / 100u) : 1;
    uint64_t p99 = L->ns ? v[(r99 ? r99 : 1) - 1] : 0;
    free(v);
    char smin[24], smed[24], s99[24], smax[24], savg[24];
    fmt_ns(smin, sizeof smin, L->min);
    fmt_ns(smed, sizeof smed, med);
    fmt_ns(s99, sizeof s99, p99);
    fmt_ns(smax, sizeof smax, L->max);
    fmt_ns(savg, sizeof savg, L->count ? L->sum / L->count : 0);
    fprintf(f, "%-28s %9" PRIu64 " %11s %11s %11s %11s %11s%s\n", label, L->count, smin, smed, s99, smax, savg,
            L->count > LAT_K ? "  (median/p99 from a sample)" : "");
    unsigned lo = 64, hi = 0;
    uint64_t peak = 0;
    for (unsigned b = 0; b < 64; b++)
        if (L->hist[b]) { if (b < lo) lo = b; hi = b; if (L->hist[b] > peak) peak = L->hist[b]; }
    for (unsigned b = lo; b <= hi && b < 64; b++) {
        char x0[24], x1[24], bar[41];
        fmt_ns(x0, sizeof x0, b ? 1ull << b : 0);
        fmt_ns(x1, sizeof x1, b < 63 ? 1ull << (b + 1) : UINT64_MAX);
        unsigned w = peak ? (unsigned)((L->hist[b] * 40 + peak - 1) / peak) : 0;
        memset(bar, '#', w);
        bar[w] = 0;
        fprintf(f, "    [%9s, %9s) %9" PRIu64 " %s\n", x0, x1, L->hist[b], bar);
    }
}
static void print_z_lat(app *a, FILE *f, unsigned g, const latset *s)
{
    z_rule(f);
    if (g == 0) fprintf(f, "UB transaction response times (-z ub,srt): request -> response per request TAOpcode\n");
    else fprintf(f, "UB management response times (-z ub,mgmt): request -> response per Code\n");
    fprintf(f, "%-28s %9s %11s %11s %11s %11s %11s\n", "", "count", "min", "median", "p99", "max", "mean");
    bool any = false;
    for (unsigned k = 0; k < 256; k++) {
        const latst *L = s->g[g][k];
        if (!L || !L->count) continue;
        any = true;
        const char *nm = ub_vname_lookup(g == 0 ? fh_vals(&a->f_taop_b) : fh_vals(&a->f_mgcode), k);
        char lab[64];
        if (g == 1 && k >= 8) /* enumeration matches: 0x80 | (8 + CMD) << 8 (state.h) */
            snprintf(lab, sizeof lab, "enumeration CMD %u (0x%02x)", k - 8, k);
        else
            snprintf(lab, sizeof lab, "%s (0x%02x)", nm ? nm : "?", k);
        print_lat(f, lab, L);
    }
    if (!any) fprintf(f, "  (no request/response pairs)\n");
    fprintf(f, "median and p99: nearest rank over a sample of up to %u pairs per row (exact below that)\n", LAT_K);
    z_rule(f);
}

/* ================================================================ TP channels */
static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h;
}
static bool tp_key(app *a, const ub_view *v, tpch *k, uint64_t *hash)
{
    memset(k, 0, sizeof *k);
    k->stpn = k->dtpn = UINT32_MAX;
    const ub_layer *tl = NULL;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        unsigned id = l->hdr->id;
        ub_val s, d;
        if (!k->slen && (id == UB_H_NTH16 || id == UB_H_NTH24)) {
            if (fh_get(&a->f_scna, l, &s) == 0 && fh_get(&a->f_dcna, l, &d) == 0) {
                unsigned n = id == UB_H_NTH16 ? 2 : 3;
                for (unsigned q = 0; q < n; q++) {
                    k->src[q] = (uint8_t)(s.u >> (8 * (n - 1 - q)));
                    k->dst[q] = (uint8_t)(d.u >> (8 * (n - 1 - q)));
                }
                k->slen = k->dlen = (uint8_t)n;
            }
        } else if (!k->slen && (id == UB_H_IPV4 || id == UB_H_IPV6)) {
            const fh *fs = id == UB_H_IPV4 ? &a->f_ip4s : &a->f_ip6s, *fd = id == UB_H_IPV4 ? &a->f_ip4d : &a->f_ip6d;
            if (fh_get(fs, l, &s) == 0 && fh_get(fd, l, &d) == 0 && s.nbytes <= 16 && d.nbytes <= 16) {
                memcpy(k->src, s.bytes, s.nbytes);
                memcpy(k->dst, d.bytes, d.nbytes);
                k->slen = (uint8_t)s.nbytes;
                k->dlen = (uint8_t)d.nbytes;
            }
        } else if (!tl && (id == UB_H_RTPH || id == UB_H_UTPH || id == UB_H_CTPH)) {
            tl = l;
            k->kind = id == UB_H_RTPH ? 1 : id == UB_H_UTPH ? 2 : 3;
            if (fh_get(&a->f_stpn, l, &s) == 0) k->stpn = (uint32_t)s.u;
            if (fh_get(&a->f_dtpn, l, &d) == 0) k->dtpn = (uint32_t)d.u;
        }
    }
    if (!tl) return false;
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(&k->kind, 1, h);
    h = fnv(&k->slen, 1, h);
    h = fnv(k->src, k->slen, h);
    h = fnv(&k->dlen, 1, h);
    h = fnv(k->dst, k->dlen, h);
    h = fnv((const uint8_t *)&k->stpn, 4, h);
    h = fnv((const uint8_t *)&k->dtpn, 4, h);
    *hash = mix64(h);
    return true;
}
static bool tp_same(const tpch *x, const tpch *k)
{
    return x->kind == k->kind && x->slen == k->slen && x->dlen == k->dlen && x->stpn == k->stpn && x->dtpn == k->dtpn &&
           memcmp(x->src, k->src, k->slen) == 0 && memcmp(x->dst, k->dst, k->dlen) == 0;
}
static void tp_count(tpch *c, const ub_view *v, uint32_t flags, uint64_t frame, bool data)
{
    if (!c->pkts) c->first = frame;
    c->pkts++;
    c->bytes += v->rec_len;
    if (data) c->data++;
    else c->ctrl++;
    for (int b = 0; b < 7; b++)
        if (flags & (1u << b)) c->fl[b]++;
}
static tpch *tp_slot(tpstats *t, const tpch *k, uint64_t h, bool insert)
{
    for (uint32_t i = (uint32_t)h & (TP_SLOTS - 1);; i = (i + 1) & (TP_SLOTS - 1)) {
        tpch *c = &t->t[i];
        if (!c->used) {
            if (!insert || t->n >= TP_MAX) return NULL;
            *c = *k;
            c->used = 1;
            c->pkts = c->bytes = c->data = c->ctrl = 0;
            memset(c->fl, 0, sizeof c->fl);
            t->n++;
            return c;
        }
        if (tp_same(c, k)) return c;
    }
}
static void tp_add(app *a, tpstats *t, const ub_view *v, uint32_t flags, uint64_t frame)
{
    tpch k;
    uint64_t h;
    if (!t->t || !tp_key(a, v, &k, &h)) return;
    ub_val op;
    bool data = false;
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++)
        if (fh_get(&a->f_tpop, &v->layer[i], &op) == 0) { data = op.u == 0 || op.u == 1; break; }
    tpch *c = tp_slot(t, &k, h, true);
    tp_count(c ? c : &t->other, v, flags, frame, data);
    if (!c && !t->other.first) t->other.first = frame;
}
static int tpch_cmp(const void *x, const void *y)
{
    const tpch *a = x, *b = y;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    int c = memcmp(a->src, b->src, 16);
    if (c) return c;
    c = memcmp(a->dst, b->dst, 16);
    if (c) return c;
    if (a->stpn != b->stpn) return a->stpn < b->stpn ? -1 : 1;
    if (a->dtpn != b->dtpn) return a->dtpn < b->dtpn ? -1 : 1;
    return 0;
}
static void addr_txt(char *b, size_t n, const uint8_t *p, unsigned len)
{
    if (len == 4 && n > 16) snprintf(b, n, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
    else if (len == 16) {
        size_t o = 0;
        for (unsigned i = 0; i < 16 && o + 6 < n; i += 2) o += (size_t)snprintf(b + o, n - o, i ? ":%x" : "%x", p[i] << 8 | p[i + 1]);
    } else {
        size_t o = (size_t)snprintf(b, n, "0x");
        for (unsigned i = 0; i < len && o + 3 < n; i++) o += (size_t)snprintf(b + o, n - o, "%02x", p[i]);
        if (!len) snprintf(b, n, "-");
    }
}
/* the merged rows: all engines' channels, sorted by first frame; the first TP_MAX rows are the ones
 * a single engine would have kept, the rest joins "other" (so -j N prints what -j 1 prints) */
static void print_z_tp(app *a, FILE *f, tpstats *all, unsigned nst, const latset *lat)
{
    uint32_t total = 0;
    for (unsigned s = 0; s < nst; s++) total += all[s].n;
    tpch *rows = malloc((total ? total : 1) * sizeof *rows);
    tpch other;
    memset(&other, 0, sizeof other);
    uint32_t n = 0;
    for (unsigned s = 0; s < nst; s++) {
        if (all[s].t)
            for (uint32_t i = 0; i < TP_SLOTS; i++)
                if (all[s].t[i].used && rows) rows[n++] = all[s].t[i];
        tpch *o = &all[s].other;
        if (o->pkts) {
            if (!other.first || (o->first && o->first < other.first)) other.first = o->first;
            other.pkts += o->pkts; other.bytes += o->bytes; other.data += o->data; other.ctrl += o->ctrl;
            for (int b = 0; b < 7; b++) other.fl[b] += o->fl[b];
        }
    }
    if (rows) qsort(rows, n, sizeof *rows, tpch_cmp);
    for (uint32_t i = TP_MAX; i < n; i++) {
        other.pkts += rows[i].pkts; other.bytes += rows[i].bytes; other.data += rows[i].data; other.ctrl += rows[i].ctrl;
        for (int b = 0; b < 7; b++) other.fl[b] += rows[i].fl[b];
    }
    if (n > TP_MAX) n = TP_MAX;
    z_rule(f);
    fprintf(f, "UB transport channels (-z ub,tp): %u channel directions%s\n", n, other.pkts ? " (+ other)" : "");
    fprintf(f, "%-44s %9s %11s %8s %8s %7s %7s %7s %7s %7s %7s %7s\n", "channel (src:SrcTPN -> dst:DstTPN)", "packets",
            "bytes", "data", "acks", "retx", "ooo", "lost", "dup", "dupack", "nak", "sack");
    static const char *kn[] = { "?", "RTP", "UTP", "CTP" };
    for (uint32_t i = 0; i <= n; i++) {
        const tpch *c = i < n ? &rows[i] : &other;
        if (i == n && !other.pkts) break;
        char lab[160], s[48], d[48];
        if (i < n) {
            addr_txt(s, sizeof s, c->src, c->slen);
            addr_txt(d, sizeof d, c->dst, c->dlen);
            if (c->stpn != UINT32_MAX)
                snprintf(lab, sizeof lab, "%s %s:0x%x -> %s:0x%x", kn[c->kind & 3], s, c->stpn, d, c->dtpn);
            else
                snprintf(lab, sizeof lab, "%s %s -> %s", kn[c->kind & 3], s, d);
        } else {
            snprintf(lab, sizeof lab, "(other channels beyond %u)", TP_MAX);
        }
        fprintf(f, "%-44s %9" PRIu64 " %11" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
                   " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 "\n",
                lab, c->pkts, c->bytes, c->data, c->ctrl, c->fl[0], c->fl[1], c->fl[2], c->fl[6], c->fl[3], c->fl[4],
                c->fl[5]);
    }
    fprintf(f, "retx: retransmissions, ooo: out of order, lost: a PSN gap precedes the packet, dup: duplicate data\n");
    const latst *L = lat->g[2][0];
    if (L && L->count) {
        fprintf(f, "%-28s %9s %11s %11s %11s %11s %11s\n", "", "count", "min", "median", "p99", "max", "mean");
        print_lat(f, "data -> transport ack", L);
    }
    z_rule(f);
    free(rows);
    (void)a;
}

/* ================================================================ engine callbacks */
static void eng_finding(void *ctx, const ub_finding *f)
{
    eng *e = ctx;
    fex x;
    x.f = *f;
    x.pkt = e->cur_pkt;
    x.seq = e->seq++;
    x.phase = e->phase;
    fcoll_add(&e->fc, &x);
}
static void eng_match(void *ctx, const ub_match *m)
{
    eng *e = ctx;
    unsigned g = m->kind, k = m->opcode & 0xFF;
    if (g == 1) k = (m->opcode >> 8) & 0xFF;
    if (g == 2) k = 0;
    if (g >= LAT_GROUPS) return;
    if ((g == 0 && !(e->a->zmask & Z_SRT)) || (g == 1 && !(e->a->zmask & Z_MGMT)) || (g == 2 && !(e->a->zmask & Z_TP)))
        return;
    latst *L = lat_get(&e->lat, g, k);
    if (L) lat_add_raw(L, m->latency_ns, mix64(m->req_frame * 0x9e3779b97f4a7c15ull ^ mix64(m->rsp_frame + g)));
}
static void eng_note(void *ctx, const ub_pkt_note *n)
{
    eng *e = ctx;
    if (n->frame == e->cur_frame) e->cur_flags |= n->tp_flags;
}

static int eng_init(app *a, eng *e, unsigned layers, uint8_t phase)
{
    memset(e, 0, sizeof *e);
    e->a = a;
    e->phase = phase;
    ub_state_cfg c = a->scfg;
    c.layers = layers;
    if (a->audit && fcoll_init(&e->fc, a->examples) != 0) return -1;
    e->st = ub_state_new(&c, a->audit ? eng_finding : NULL, e);
    if (!e->st) return -1;
    if (a->zmask & (Z_SRT | Z_MGMT | Z_TP)) ub_state_set_match_cb(e->st, eng_match, e);
    if ((a->zmask & Z_TP) && (layers & UB_ST_TP)) {
        ub_state_set_note_cb(e->st, eng_note, e);
        e->tp.t = calloc(TP_SLOTS, sizeof(tpch));
        if (!e->tp.t) return -1;
    }
    return 0;
}
static void eng_packet(eng *e, const ub_view *v, const ub_pktinfo *pi, uint64_t seq)
{
    e->cur_pkt = seq;
    e->cur_frame = pi->frame;
    e->cur_flags = 0;
    ub_state_packet(e->st, v, pi);
    if (e->tp.t) tp_add(e->a, &e->tp, v, e->cur_flags, pi->frame);
}
static void eng_finish(eng *e)
{
    e->cur_pkt = UINT64_MAX;
    e->cur_frame = 0;
    ub_state_finish(e->st);
}
static void eng_free(eng *e)
{
    ub_state_free(e->st);
    e->st = NULL;
    fcoll_free(&e->fc);
    free(e->tp.t);
    e->tp.t = NULL;
    lat_free(&e->lat);
}

/* ================================================================ shards (-j N) */
static batch *batch_get(shard *s)
{
    pthread_mutex_lock(&s->mu);
    while (!s->freel && s->nbatches >= SHQ + 2) pthread_cond_wait(&s->cv_space, &s->mu);
    batch *b = s->freel;
    if (b) s->freel = b->next;
    else s->nbatches++;
    pthread_mutex_unlock(&s->mu);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) return NULL;
        b->buf = malloc(BATCH_BYTES);
        if (!b->buf) { free(b); return NULL; }
        b->cap = BATCH_BYTES;
    }
    b->used = 0;
    b->next = NULL;
    return b;
}
static void batch_push(shard *s, batch *b)
{
    pthread_mutex_lock(&s->mu);
    while (s->qn == SHQ) pthread_cond_wait(&s->cv_space, &s->mu);
    s->q[(s->qh + s->qn) % SHQ] = b;
    s->qn++;
    pthread_cond_signal(&s->cv_data);
    pthread_mutex_unlock(&s->mu);
}
#define AL8(x) (((size_t)(x) + 7u) & ~(size_t)7u)
/* room for one entry of `pay` payload bytes in the shard's current batch; NULL when out of memory */
static uint8_t *shard_reserve(shard *s, size_t pay)
{
    size_t need = sizeof(rechdr) + pay;
    if (s->fill && s->fill->used + need > s->fill->cap && s->fill->used) {
        batch_push(s, s->fill);
        s->fill = NULL;
    }
    if (!s->fill && !(s->fill = batch_get(s))) return NULL;
    if (need > s->fill->cap) {
        uint8_t *nb = realloc(s->fill->buf, need);
        if (!nb) return NULL;
        s->fill->buf = nb;
        s->fill->cap = need;
    }
    uint8_t *p = s->fill->buf + s->fill->used;
    s->fill->used += need;
    return p;
}

static bool in_range(const void *p, uintptr_t base, size_t n)
{
    uintptr_t u = (uintptr_t)p;
    return u >= base && u - base <= n;
}

/* hand one decoded packet to a shard (main thread) */
static int shard_send(shard *s, const ub_view *v, rechdr h, const uint8_t *rec)
{
    uintptr_t rb = (uintptr_t)v->rec, nb = (uintptr_t)v->netbuf;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned ne = v->nerrs > UB_MAX_ERRS ? UB_MAX_ERRS : v->nerrs;
    size_t netlen = 0;
    bool ok = v->rec == rec && v->rec_len == h.len;
    for (unsigned i = 0; i < nl && ok; i++) {
        const ub_layer *l = &v->layer[i];
        if (in_range(l->data, rb, v->rec_len)) continue;
        if (in_range(l->data, nb, UB_MAX_NETPKT)) {
            size_t end = (size_t)((uintptr_t)l->data - nb) + l->len;
            if (end > netlen) netlen = end;
        } else {
            ok = false;
        }
    }
    if (ok && v->pkt && !in_range(v->pkt, rb, v->rec_len)) {
        if (in_range(v->pkt, nb, UB_MAX_NETPKT)) {
            size_t end = (size_t)((uintptr_t)v->pkt - nb) + v->pkt_len;
            if (end > netlen) netlen = end;
        } else {
            ok = false;
        }
    }
    if (netlen > UB_MAX_NETPKT) ok = false;
    if (!ok) {
        h.mode = M_REC;
        h.pay = (uint32_t)AL8(h.len);
        uint8_t *p = shard_reserve(s, h.pay);
        if (!p) return -1;
        memcpy(p, &h, sizeof h);
        memcpy(p + sizeof h, rec, h.len);
        return 0;
    }
    h.mode = M_VIEW;
    size_t pay = AL8(sizeof(vhdr)) + AL8(h.len) + nl * sizeof(ub_layer) + ne * sizeof(ub_err) + AL8(netlen);
    h.pay = (uint32_t)AL8(pay);
    uint8_t *p = shard_reserve(s, h.pay);
    if (!p) return -1;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    vhdr vh;
    vh.orig_rec = rb;
    vh.orig_net = nb;
    vh.nl = nl;
    vh.ne = ne;
    vh.netlen = (uint32_t)netlen;
    vh.pad = 0;
    memcpy(vh.prefix, v, sizeof vh.prefix);
    memcpy(p, &vh, sizeof vh);
    p += AL8(sizeof(vhdr));
    memcpy(p, rec, h.len);
    p += AL8(h.len);
    memcpy(p, v->layer, nl * sizeof(ub_layer));
    p += nl * sizeof(ub_layer);
    memcpy(p, v->err, ne * sizeof(ub_err));
    p += ne * sizeof(ub_err);
    memcpy(p, v->netbuf, netlen);
    return 0;
}

static const uint8_t *reloc(const uint8_t *p, const vhdr *vh, uint32_t rec_len, const uint8_t *rec, const uint8_t *net)
{
    if (!p) return NULL;
    if (in_range(p, (uintptr_t)vh->orig_rec, rec_len)) return rec + ((uintptr_t)p - (uintptr_t)vh->orig_rec);
    return net + ((uintptr_t)p - (uintptr_t)vh->orig_net);
}

/* rebuild a view shipped by shard_send (worker thread) */
static void view_receive(ub_view *v, const ub_opts *o, const rechdr *h, const uint8_t *p)
{
    vhdr vh;
    memcpy(&vh, p, sizeof vh);
    p += AL8(sizeof(vhdr));
    const uint8_t *rec = p;
    p += AL8(h->len);
    memcpy(v, vh.prefix, sizeof vh.prefix);
    memcpy(v->layer, p, vh.nl * sizeof(ub_layer));
    p += vh.nl * sizeof(ub_layer);
    memcpy(v->err, p, vh.ne * sizeof(ub_err));
    p += vh.ne * sizeof(ub_err);
    memcpy(v->netbuf, p, vh.netlen);
    v->opts = o;
    v->rec = rec;
    v->pkt = reloc(v->pkt, &vh, h->len, rec, v->netbuf);
    for (unsigned i = 0; i < vh.nl; i++) v->layer[i].data = reloc(v->layer[i].data, &vh, h->len, rec, v->netbuf);
}

static void *shard_main(void *arg)
{
    shard *s = arg;
    app *a = s->a;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->qn == 0 && !s->done) pthread_cond_wait(&s->cv_data, &s->mu);
        if (s->qn == 0) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        batch *b = s->q[s->qh];
        s->qh = (s->qh + 1) % SHQ;
        s->qn--;
        pthread_cond_signal(&s->cv_space);
        pthread_mutex_unlock(&s->mu);
        for (size_t o = 0; o < b->used;) {
            rechdr h;
            memcpy(&h, b->buf + o, sizeof h);
            const uint8_t *d = b->buf + o + sizeof h;
            o += sizeof h + h.pay;
            ub_pktinfo pi = { h.frame, h.ts, h.ifindex, h.dir };
            if (h.mode == M_TICK) {
                /* end-of-capture clock: an empty packet carrying the capture's last timestamp, so the
                 * engine judges §10.6 e timeouts against the same end as a -j 1 engine (modules ignore
                 * packets without layers) */
                static const uint8_t none[1];
                ub_view *v = s->v;
                memset(v, 0, offsetof(ub_view, layer));
                v->rec = none;
                v->entry = UB_ENTRY_NONE;
                v->kind = UB_KIND_NONE;
                v->cfg = -1;
                v->opts = &a->o;
                v->pkt_off = UINT32_MAX;
                eng_packet(&s->e, v, &pi, h.seq);
                continue;
            }
            if (h.mode == M_VIEW) {
                view_receive(s->v, &a->o, &h, d);
            } else {
                ub_decode(s->v, &a->o, (ub_entry)h.entry, d, h.len);
                if (h.uflags & UB_UNIT_PARTIAL)
                    ub_error_rec(s->v, UB_E_STREAM, UB_H_NONE, 0, h.len, 0, "incomplete unit at the end of the stream");
            }
            eng_packet(&s->e, s->v, &pi, h.seq);
        }
        pthread_mutex_lock(&s->mu);
        b->next = s->freel;
        s->freel = b;
        pthread_cond_signal(&s->cv_space);
        pthread_mutex_unlock(&s->mu);
    }
    eng_finish(&s->e);
    return NULL;
}

static int shards_start(app *a)
{
    a->nsh = a->jobs + (a->audit && a->link_thread ? 1 : 0);
    a->sh = calloc((size_t)a->nsh, sizeof *a->sh);
    if (!a->sh) return -1;
    for (int i = 0; i < a->nsh; i++) {
        shard *s = &a->sh[i];
        bool link = i == a->jobs;
        s->a = a;
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->cv_data, NULL);
        pthread_cond_init(&s->cv_space, NULL);
        s->v = malloc(sizeof *s->v);
        if (s->v) ub_view_init(s->v);
        if (!s->v || eng_init(a, &s->e, link ? UB_ST_DLL | UB_ST_DECODE : UB_ST_NW | UB_ST_TP | UB_ST_TA | UB_ST_MG,
                              link ? 0 : 1) != 0)
            return -1;
        if (pthread_create(&s->th, NULL, shard_main, s) != 0) return -1;
        s->started = true;
    }
    return 0;
}
static void shards_stop(app *a)
{
    if (!a->sh) return;
    for (int i = 0; i < a->nsh; i++) {
        shard *s = &a->sh[i];
        if (!s->started) continue;
        if (a->nunits && i < a->jobs) { /* the link shard has seen every packet */
            rechdr tick = { UINT64_MAX - 1, a->last_frame, a->max_ts, 0, 0, UB_DIR_UNKNOWN, UB_ENTRY_NONE, 0, M_TICK, 0 };
            uint8_t *p = shard_reserve(s, 0);
            if (!p) { fprintf(stderr, "ubdump: out of memory\n"); exit(2); }
            memcpy(p, &tick, sizeof tick);
        }
        if (s->fill && s->fill->used) batch_push(s, s->fill);
        else if (s->fill) { pthread_mutex_lock(&s->mu); s->fill->next = s->freel; s->freel = s->fill; pthread_mutex_unlock(&s->mu); }
        s->fill = NULL;
        pthread_mutex_lock(&s->mu);
        s->done = true;
        pthread_cond_signal(&s->cv_data);
        pthread_mutex_unlock(&s->mu);
    }
    for (int i = 0; i < a->nsh; i++)
        if (a->sh[i].started) pthread_join(a->sh[i].th, NULL);
}
static void shards_free(app *a)
{
    if (!a->sh) return;
    for (int i = 0; i < a->nsh; i++) {
        shard *s = &a->sh[i];
        while (s->freel) { batch *b = s->freel; s->freel = b->next; free(b->buf); free(b); }
        for (unsigned k = 0; k < s->qn; k++) { batch *b = s->q[(s->qh + k) % SHQ]; free(b->buf); free(b); }
        if (s->fill) { free(s->fill->buf); free(s->fill); }
        eng_free(&s->e);
        free(s->v);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv_data);
        pthread_cond_destroy(&s->cv_space);
    }
    free(a->sh);
    a->sh = NULL;
}

/* ================================================================ per packet */
static void progress(app *a, bool final)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (final) {
        if (a->prog_shown) fputs("\r\033[K", stderr);
        return;
    }
    double dt = (double)(now.tv_sec - a->tlast.tv_sec) + (double)(now.tv_nsec - a->tlast.tv_nsec) / 1e9;
    if (dt < 0.1) return;
    a->tlast = now;
    double el = (double)(now.tv_sec - a->tstart.tv_sec) + (double)(now.tv_nsec - a->tstart.tv_nsec) / 1e9;
    fprintf(stderr, "\r\033[Kubdump: %" PRIu64 " records, %" PRIu64 " packets, %.2f M packets/s", a->npkts, a->nunits,
            el > 0 ? (double)a->nunits / el / 1e6 : 0.0);
    a->prog_shown = true;
}

static void emit(app *a, const uint8_t *data, uint32_t len, ub_entry entry, unsigned unit_flags)
{
    ub_view *v = a->v;
    ub_decode(v, &a->o, entry, data, len);
    if (unit_flags & UB_UNIT_PARTIAL)
        ub_error_rec(v, UB_E_STREAM, UB_H_NONE, 0, len, 0, "incomplete unit at the end of the stream");
    a->nunits++;
    const ub_rec *r = a->cur;
    if (r->ts_ns > a->max_ts) a->max_ts = r->ts_ns;
    a->last_frame = r->frame;
    if (a->engine) {
        ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
        if (!a->sh) {
            eng_packet(&a->main_eng, v, &pi, a->nunits);
        } else {
            rechdr rh = { a->nunits, r->frame, r->ts_ns, r->ifindex, len, r->dir, (uint8_t)entry, (uint8_t)unit_flags, M_VIEW, 0 };
            if (a->audit && !a->link_thread) eng_packet(&a->main_eng, v, &pi, a->nunits);
            else if (a->audit && shard_send(&a->sh[a->jobs], v, rh, data) != 0) {
                fprintf(stderr, "ubdump: out of memory\n");
                exit(2);
            }
            /* link-only traffic (hash 0) goes to shard 0 so no packet a -j 1 engine sees is lost */
            uint64_t h = ub_state_pair_hash(v);
            if (shard_send(&a->sh[h % (uint64_t)a->jobs], v, rh, data) != 0) {
                fprintf(stderr, "ubdump: out of memory\n");
                exit(2);
            }
        }
    }
    if (a->cs) cfg_add(a, v, len);
    if (a->quiet) return;
    if (a->yf && !ub_filter_match_frame(a->yf, v, r->frame, len)) return;
    a->nshown++;
    if (a->out == OUT_FIELDS) {
        for (unsigned i = 0; i < a->ne; i++) {
            if (i) putchar(a->sep);
            print_efield(a, &a->e[i], stdout);
        }
        putchar('\n');
        return;
    }
    uint64_t d = r->ts_ns - a->t0;
    if (a->out == OUT_JSON) {
        printf("%s  {\"frame\":%" PRIu64 ",\"time_relative\":%" PRIu64 ".%09" PRIu64 ",\"len\":%u,\"entry\":\"%s\",\"ub\":",
               a->json_first ? "" : ",\n", r->frame, d / 1000000000u, d % 1000000000u, len, entry_name(v->entry));
        ub_print_json(stdout, v);
        fputs("}", stdout);
        a->json_first = false;
        return;
    }
    char sum[1024];
    ub_summary(v, sum, sizeof sum);
    printf("%6" PRIu64 " %" PRIu64 ".%06" PRIu64 " %s\n", r->frame, d / 1000000000u, (d % 1000000000u) / 1000u, sum);
    if (a->verbose) {
        ub_print_tree(stdout, v);
        putchar('\n');
    }
}

static void unit_cb(void *ctx, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    emit((app *)ctx, unit, len, UB_ENTRY_FLIT, flags);
}

/* ================================================================ report output helpers */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}
static void xml_str(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t') fputc('?', f);
            else fputc(*p, f);
        }
    }
}
/* percent-encode a path as a URI reference */
static void uri_str(char *b, size_t n, const char *path)
{
    size_t o = 0;
    if (strcmp(path, "-") == 0) path = "stdin";
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < n; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
            b[o++] = (char)*p;
        else o += (size_t)snprintf(b + o, n - o, "%%%02X", *p);
    }
    b[o] = 0;
}
static void fmt_val(char *b, size_t n, int64_t v)
{
    if (v >= -4096 && v < 4096) snprintf(b, n, "%" PRId64, v);
    else if (v > 0) snprintf(b, n, "%" PRId64 " (0x%" PRIx64 ")", v, (uint64_t)v);
    else snprintf(b, n, "%" PRId64, v);
}
/* one-line description of a finding: "frame N: detail; key: text; values a, b; frames x, y" */
static void finding_text(char *b, size_t n, const ub_finding *f, bool with_frame)
{
    size_t o = 0;
#define PUT(...) do { int w_ = snprintf(b + o, o < n ? n - o : 0, __VA_ARGS__); if (w_ > 0) o += (size_t)w_; } while (0)
    if (with_frame) PUT("frame %" PRIu64 ": ", f->frame);
    PUT("%s", f->detail ? f->detail : "");
    if (f->keytext[0]) PUT("%s%s %.64s", o && b[o - 1] != ' ' ? "; " : "", f->key ? f->key : "key", f->keytext);
    else if (f->key && (!f->detail || strcmp(f->key, f->detail) != 0)) PUT(" (%s)", f->key);
    if (f->nvalues) {
        PUT("%svalues ", o && b[o - 1] != ' ' ? "; " : "");
        for (unsigned i = 0; i < f->nvalues && i < 4; i++) {
            char vb[48];
            fmt_val(vb, sizeof vb, f->values[i]);
            PUT("%s%s", i ? ", " : "", vb);
        }
    }
    if (f->nframes) {
        PUT("%sframes ", o && b[o - 1] != ' ' ? "; " : "");
        for (unsigned i = 0; i < f->nframes && i < UB_FINDING_FRAMES; i++) PUT("%s%" PRIu64, i ? ", " : "", f->frames[i]);
    }
#undef PUT
    if (o >= n && n) b[n - 1] = 0;
}

typedef struct {
    uint64_t total, sev[3], at_or_above;
    unsigned fired;
    unsigned *order; /* fired rules, errors first */
} asum;

static int g_rank_sev(const rgroup *g) { return g->count[2] ? 2 : g->count[1] ? 1 : 0; }
static const rgroup *g_sort_groups;
static int order_cmp(const void *x, const void *y)
{
    unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
    int sa = g_rank_sev(&g_sort_groups[a]), sb = g_rank_sev(&g_sort_groups[b]);
    if (sa != sb) return sb - sa;
    return a < b ? -1 : a > b;
}
static void summarize(app *a, const fcoll *c, asum *s)
{
    memset(s, 0, sizeof *s);
    s->order = malloc((c->nrules ? c->nrules : 1) * sizeof *s->order);
    for (unsigned r = 0; r < c->nrules; r++) {
        const rgroup *g = &c->g[r];
        uint64_t t = g->count[0] + g->count[1] + g->count[2];
        if (!t) continue;
        if (s->order) s->order[s->fired] = r;
        s->fired++;
        s->total += t;
        for (int k = 0; k < 3; k++) s->sev[k] += g->count[k];
        for (int k = a->fail_on; k <= 2; k++)
            if (k >= UB_SEV_WARN) s->at_or_above += g->count[k];
    }
    g_sort_groups = c->g;
    if (s->order) qsort(s->order, s->fired, sizeof *s->order, order_cmp);
}
static const char *fail_name(int f) { return f == UB_SEV_ERROR ? "error" : f == UB_SEV_WARN ? "warning" : "never"; }

static void audit_text(app *a, FILE *f, const fcoll *c, const asum *s)
{
    fprintf(f, "UB audit of %s: %" PRIu64 " records, %" PRIu64 " packets\n", a->file, a->npkts, a->nunits);
    fprintf(f, "%" PRIu64 " finding%s in %u of %u rules: %" PRIu64 " error%s, %" PRIu64 " warning%s, %" PRIu64 " note%s\n",
            s->total, s->total == 1 ? "" : "s", s->fired, c->nrules, s->sev[2], s->sev[2] == 1 ? "" : "s", s->sev[1],
            s->sev[1] == 1 ? "" : "s", s->sev[0], s->sev[0] == 1 ? "" : "s");
    char line[1024];
    for (unsigned i = 0; i < s->fired && s->order; i++) {
        unsigned r = s->order[i];
        const rgroup *g = &c->g[r];
        const ub_rule *ru = ub_rule_get(r);
        uint64_t t = g->count[0] + g->count[1] + g->count[2];
        int ws = g_rank_sev(g);
        char cnt[96];
        int kinds = (g->count[0] != 0) + (g->count[1] != 0) + (g->count[2] != 0);
        if (kinds > 1)
            snprintf(cnt, sizeof cnt, "%" PRIu64 " (%" PRIu64 " error, %" PRIu64 " warning, %" PRIu64 " note)", t,
                     g->count[2], g->count[1], g->count[0]);
        else
            snprintf(cnt, sizeof cnt, "%" PRIu64, t);
        fprintf(f, "\n%-8s %s  x%s  %s\n", sev_name[ws], ru ? ru->id : "?", cnt, ru ? ru->title : "?");
        if (ru) fprintf(f, "         [%s; %s; evidence: %s]\n", ru->layer, ru->spec, ru->evidence);
        for (uint32_t k = 0; k < g->nex; k++) {
            finding_text(line, sizeof line, &g->ex[k].f, true);
            if (g->ex[k].f.severity != ws) fprintf(f, "         %s (%s)\n", line, sev_name[g->ex[k].f.severity % 3]);
            else fprintf(f, "         %s\n", line);
        }
        if (t > g->nex) fprintf(f, "         ... and %" PRIu64 " more\n", t - g->nex);
    }
    if (a->fail_on > UB_SEV_ERROR)
        fprintf(f, "\nresult: %s (--fail-on never)\n", s->total ? "findings reported" : "clean");
    else if (s->at_or_above)
        fprintf(f, "\nresult: FAIL, %" PRIu64 " finding%s at or above '%s' (--fail-on %s)\n", s->at_or_above,
                s->at_or_above == 1 ? "" : "s", fail_name(a->fail_on), fail_name(a->fail_on));
    else
        fprintf(f, "\nresult: PASS, no finding at or above '%s'\n", fail_name(a->fail_on));
}

static void json_finding(FILE *f, const ub_finding *x)
{
    fprintf(f, "{\"frame\":%" PRIu64 ",\"severity\":\"%s\",\"frames\":[", x->frame, sev_name[x->severity % 3]);
    for (unsigned i = 0; i < x->nframes && i < UB_FINDING_FRAMES; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", x->frames[i]);
    fputs("],\"values\":[", f);
    for (unsigned i = 0; i < x->nvalues && i < 4; i++) fprintf(f, "%s%" PRId64, i ? "," : "", x->values[i]);
    fputs("],\"detail\":", f);
    json_str(f, x->detail);
    fputs(",\"key\":", f);
    json_str(f, x->key);
    fputs(",\"keytext\":", f);
    json_str(f, x->keytext);
    fputc('}', f);
}

static void audit_json(app *a, FILE *f, const fcoll *c, const asum *s, int status)
{
    fputs("{\"tool\":\"ubdump\",\"version\":\"" UBPARSE_VERSION "\",\"file\":", f);
    json_str(f, a->file);
    fprintf(f, ",\"records\":%" PRIu64 ",\"packets\":%" PRIu64 ",\"fail_on\":\"%s\",\"result\":\"%s\",\"exit_status\":%d,\n",
            a->npkts, a->nunits, fail_name(a->fail_on), s->at_or_above && a->fail_on <= 2 ? "fail" : "pass", status);
    fprintf(f, " \"totals\":{\"findings\":%" PRIu64 ",\"error\":%" PRIu64 ",\"warning\":%" PRIu64 ",\"note\":%" PRIu64
               ",\"rules_fired\":%u,\"rules\":%u},\n \"rules\":[",
            s->total, s->sev[2], s->sev[1], s->sev[0], s->fired, c->nrules);
    for (unsigned i = 0; i < s->fired && s->order; i++) {
        unsigned r = s->order[i];
        const rgroup *g = &c->g[r];
        const ub_rule *ru = ub_rule_get(r);
        fputs(i ? ",\n  {\"id\":" : "\n  {\"id\":", f);
        json_str(f, ru->id);
        fputs(",\"layer\":", f);
        json_str(f, ru->layer);
        fprintf(f, ",\"severity\":\"%s\",\"spec\":", sev_name[ru->severity % 3]);
        json_str(f, ru->spec);
        fputs(",\"title\":", f);
        json_str(f, ru->title);
        fputs(",\"evidence\":", f);
        json_str(f, ru->evidence);
        fprintf(f, ",\"count\":%" PRIu64 ",\"error\":%" PRIu64 ",\"warning\":%" PRIu64 ",\"note\":%" PRIu64 ",\"findings\":[",
                g->count[0] + g->count[1] + g->count[2], g->count[2], g->count[1], g->count[0]);
        for (uint32_t k = 0; k < g->nex; k++) {
            if (k) fputc(',', f);
            fputs("\n    ", f);
            json_finding(f, &g->ex[k].f);
        }
        fputs("]}", f);
    }
    fputs("\n ]}\n", f);
}

static const char *sarif_level(unsigned sev) { return sev >= 2 ? "error" : sev == 1 ? "warning" : "note"; }

static void audit_sarif(app *a, FILE *f, const fcoll *c, const asum *s, int status)
{
    char uri[2048];
    uri_str(uri, sizeof uri, a->file);
    fputs("{\n \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n \"version\": \"2.1.0\",\n \"runs\": [{\n"
          "  \"tool\": {\"driver\": {\"name\": \"ubdump\", \"version\": \"" UBPARSE_VERSION "\", \"semanticVersion\": \""
          UBPARSE_VERSION "\",\n   \"rules\": [",
          f);
    for (unsigned r = 0; r < c->nrules; r++) {
        const ub_rule *ru = ub_rule_get(r);
        fputs(r ? ",\n    {\"id\": " : "\n    {\"id\": ", f);
        json_str(f, ru->id);
        fputs(", \"shortDescription\": {\"text\": ", f);
        json_str(f, ru->title);
        char full[768];
        snprintf(full, sizeof full, "%s (%s; %s). Evidence: %s.", ru->title, ru->layer, ru->spec, ru->evidence);
        fputs("}, \"fullDescription\": {\"text\": ", f);
        json_str(f, full);
        fprintf(f, "}, \"defaultConfiguration\": {\"level\": \"%s\"}, \"properties\": {\"layer\": ", sarif_level(ru->severity));
        json_str(f, ru->layer);
        fputs(", \"spec\": ", f);
        json_str(f, ru->spec);
        fputs("}}", f);
    }
    fputs("\n   ]}},\n  \"artifacts\": [{\"location\": {\"uri\": ", f);
    json_str(f, uri);
    fprintf(f, "}}],\n  \"invocations\": [{\"executionSuccessful\": true, \"exitCode\": %d}],\n", status);
    fprintf(f, "  \"properties\": {\"records\": %" PRIu64 ", \"packets\": %" PRIu64 ", \"findings\": %" PRIu64
               ", \"failOn\": \"%s\", \"resultsPerRuleLimit\": %u},\n  \"results\": [",
            a->npkts, a->nunits, s->total, fail_name(a->fail_on), c->K);
    bool first = true;
    char msg[1200], line[1024];
    for (unsigned i = 0; i < s->fired && s->order; i++) {
        unsigned r = s->order[i];
        const rgroup *g = &c->g[r];
        const ub_rule *ru = ub_rule_get(r);
        for (uint32_t k = 0; k < g->nex; k++) {
            const ub_finding *x = &g->ex[k].f;
            finding_text(line, sizeof line, x, false);
            snprintf(msg, sizeof msg, "%s (frame %" PRIu64 ")%s%s", ru->title, x->frame, line[0] ? ": " : "", line);
            fputs(first ? "\n   {\"ruleId\": " : ",\n   {\"ruleId\": ", f);
            first = false;
            json_str(f, ru->id);
            fprintf(f, ", \"ruleIndex\": %u, \"level\": \"%s\", \"message\": {\"text\": ", r, sarif_level(x->severity));
            json_str(f, msg);
            fputs("},\n    \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", f);
            json_str(f, uri);
            fprintf(f, ", \"index\": 0}}, \"logicalLocations\": [{\"name\": \"frame %" PRIu64 "\", \"kind\": \"element\"}]}]", x->frame);
            if (x->nframes) {
                fputs(",\n    \"relatedLocations\": [", f);
                for (unsigned q = 0; q < x->nframes && q < UB_FINDING_FRAMES; q++)
                    fprintf(f, "%s{\"id\": %u, \"logicalLocations\": [{\"name\": \"frame %" PRIu64 "\", \"kind\": \"element\"}],"
                               " \"message\": {\"text\": \"related frame\"}}",
                            q ? ", " : "", q + 1, x->frames[q]);
                fputc(']', f);
            }
            fprintf(f, ",\n    \"properties\": {\"frame\": %" PRIu64 ", \"values\": [", x->frame);
            for (unsigned q = 0; q < x->nvalues && q < 4; q++) fprintf(f, "%s%" PRId64, q ? ", " : "", x->values[q]);
            fputs("], \"detail\": ", f);
            json_str(f, x->detail);
            fputs(", \"keytext\": ", f);
            json_str(f, x->keytext);
            fputs("}}", f);
        }
    }
    fputs("\n  ]\n }]\n}\n", f);
}

static void audit_junit(app *a, FILE *f, const fcoll *c, const asum *s)
{
    uint64_t failures = 0;
    for (unsigned r = 0; r < c->nrules; r++) {
        const rgroup *g = &c->g[r];
        bool fail = false;
        for (int k = a->fail_on; k <= 2; k++) fail |= k >= UB_SEV_WARN && g->count[k] != 0;
        failures += fail;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"ubdump audit: ", f);
    xml_str(f, a->file);
    fprintf(f, "\" tests=\"%u\" failures=\"%" PRIu64 "\" errors=\"0\" skipped=\"0\">\n", c->nrules, failures);
    fputs("  <properties>\n    <property name=\"file\" value=\"", f);
    xml_str(f, a->file);
    fprintf(f, "\"/>\n    <property name=\"records\" value=\"%" PRIu64 "\"/>\n    <property name=\"packets\" value=\"%" PRIu64
               "\"/>\n    <property name=\"fail_on\" value=\"%s\"/>\n    <property name=\"findings\" value=\"%" PRIu64 "\"/>\n"
               "  </properties>\n",
            a->npkts, a->nunits, fail_name(a->fail_on), s->total);
    char line[1024];
    for (unsigned r = 0; r < c->nrules; r++) {
        const rgroup *g = &c->g[r];
        const ub_rule *ru = ub_rule_get(r);
        char cls[64];
        snprintf(cls, sizeof cls, "ubdump.audit.%s", ru->layer);
        for (char *p = cls; *p; p++)
            if (*p == ' ') *p = '_';
        fputs("  <testcase classname=\"", f);
        xml_str(f, cls);
        fputs("\" name=\"", f);
        xml_str(f, ru->id);
        fputs(": ", f);
        xml_str(f, ru->title);
        uint64_t t = g->count[0] + g->count[1] + g->count[2];
        uint64_t bad = 0;
        for (int k = a->fail_on; k <= 2; k++)
            if (k >= UB_SEV_WARN) bad += g->count[k];
        if (!t) { fputs("\"/>\n", f); continue; }
        fputs("\">\n", f);
        char msg[160];
        snprintf(msg, sizeof msg, "%" PRIu64 " finding%s (%" PRIu64 " error, %" PRIu64 " warning, %" PRIu64 " note)", t,
                 t == 1 ? "" : "s", g->count[2], g->count[1], g->count[0]);
        if (bad) {
            fputs("    <failure message=\"", f);
            xml_str(f, msg);
            fprintf(f, "\" type=\"%s\">", sev_name[g_rank_sev(g)]);
        } else {
            fputs("    <system-out>", f);
        }
        for (uint32_t k = 0; k < g->nex; k++) {
            finding_text(line, sizeof line, &g->ex[k].f, true);
            fprintf(f, "%s[%s] ", k ? "\n" : "", sev_name[g->ex[k].f.severity % 3]);
            xml_str(f, line);
        }
        if (t > g->nex) fprintf(f, "\n... and %" PRIu64 " more", t - g->nex);
        fprintf(f, "</%s>\n  </testcase>\n", bad ? "failure" : "system-out");
    }
    fputs("</testsuite>\n", f);
}

/* ================================================================ main */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || v > max || s[0] == '-') return -1;
    *out = v;
    return 0;
}

enum {
    LO_NONCRC = 1000, LO_AUDIT, LO_AFMT, LO_AOUT, LO_AEX, LO_FAILON, LO_RTO, LO_TAACK, LO_GAPS, LO_MAXL, LO_MAXC,
    LO_MAXT, LO_MAXM
};

int main(int argc, char **argv)
{
    static app A;
    app *a = &A;
    ub_opts_default(&a->o);
    ub_state_cfg_default(&a->scfg);
    a->out = OUT_TEXT;
    a->count = -1;
    a->sep = '\t';
    a->agg = ',';
    a->json_first = true;
    a->fail_on = UB_SEV_ERROR;
    a->jobs = 1;
    const char *file = NULL, *yexpr = NULL;
    long examples = -1;
    static const struct option lo[] = {
        { "noncrc", no_argument, NULL, LO_NONCRC },
        { "help", no_argument, NULL, 'h' },
        { "display-filter", required_argument, NULL, 'Y' },
        { "audit", no_argument, NULL, LO_AUDIT },
        { "audit-format", required_argument, NULL, LO_AFMT },
        { "audit-output", required_argument, NULL, LO_AOUT },
        { "audit-examples", required_argument, NULL, LO_AEX },
        { "fail-on", required_argument, NULL, LO_FAILON },
        { "response-timeout", required_argument, NULL, LO_RTO },
        { "expect-taack", no_argument, NULL, LO_TAACK },
        { "gaps-are-notes", no_argument, NULL, LO_GAPS },
        { "max-links", required_argument, NULL, LO_MAXL },
        { "max-channels", required_argument, NULL, LO_MAXC },
        { "max-transactions", required_argument, NULL, LO_MAXT },
        { "max-mgmt", required_argument, NULL, LO_MAXM },
        { 0, 0, 0, 0 }
    };
    int c;
    unsigned long long u;
    while ((c = getopt_long(argc, argv, "r:VT:e:E:c:qo:G:hY:z:j:", lo, NULL)) != -1) {
        switch (c) {
        case 'r': file = optarg; break;
        case 'V': a->verbose = 1; break;
        case 'T':
            if (strcmp(optarg, "text") == 0) a->out = OUT_TEXT;
            else if (strcmp(optarg, "fields") == 0) a->out = OUT_FIELDS;
            else if (strcmp(optarg, "json") == 0) a->out = OUT_JSON;
            else { fprintf(stderr, "ubdump: unknown output format '%s' (text, fields, json)\n", optarg); return 2; }
            break;
        case 'e':
            if (add_efield(a, optarg) != 0) {
                fprintf(stderr, "ubdump: unknown field '%s' (ubdump -G fields lists them)\n", optarg);
                return 2;
            }
            break;
        case 'E':
            if (strncmp(optarg, "header=", 7) == 0) a->header = optarg[7] == 'y';
            else if (strncmp(optarg, "separator=", 10) == 0) a->sep = strcmp(optarg + 10, "/t") == 0 ? '\t' : optarg[10];
            else if (strncmp(optarg, "aggregator=", 11) == 0) a->agg = optarg[11];
            else { fprintf(stderr, "ubdump: unknown -E option '%s'\n", optarg); return 2; }
            break;
        case 'c': a->count = strtol(optarg, NULL, 0); break;
        case 'q': a->quiet = 1; break;
        case 'o':
            if (strcmp(optarg, "help") == 0) { list_options(); return 0; }
            if (set_option(&a->o, optarg) != 0) { fprintf(stderr, "ubdump: bad option '%s' (ubdump -o help)\n", optarg); return 2; }
            break;
        case LO_NONCRC: a->o.crc_mode = false; break;
        case 'G':
            if (strcmp(optarg, "fields") == 0) { list_fields(); return 0; }
            if (strcmp(optarg, "errors") == 0) { list_errors(); return 0; }
            if (strcmp(optarg, "headers") == 0) { list_headers(); return 0; }
            if (strcmp(optarg, "rules") == 0) { list_rules(); return 0; }
            fprintf(stderr, "ubdump: -G fields|errors|headers|rules\n");
            return 2;
        case 'Y': yexpr = optarg; break;
        case 'z':
            if (strcmp(optarg, "ub,cfg") == 0) a->zmask |= Z_CFG;
            else if (strcmp(optarg, "ub,tp") == 0) a->zmask |= Z_TP;
            else if (strcmp(optarg, "ub,srt") == 0) a->zmask |= Z_SRT;
            else if (strcmp(optarg, "ub,mgmt") == 0) a->zmask |= Z_MGMT;
            else if (strcmp(optarg, "help") == 0) {
                puts("ub,cfg   packets per CFG, header, TAOpcode, TPOpcode, DLLCB type, management code\n"
                     "ub,tp    per TP channel: packets, bytes, retransmissions, reordering, losses, acks\n"
                     "ub,srt   transaction response times per request TAOpcode\n"
                     "ub,mgmt  management response times per Code");
                return 0;
            } else { fprintf(stderr, "ubdump: unknown statistic '%s' (ubdump -z help)\n", optarg); return 2; }
            break;
        case 'j':
            if (parse_uint(optarg, MAX_JOBS, &u) != 0 || u < 1) { fprintf(stderr, "ubdump: -j needs 1..%d\n", MAX_JOBS); return 2; }
            a->jobs = (int)u;
            break;
        case LO_AUDIT: a->audit = true; break;
        case LO_AFMT:
            if (strcmp(optarg, "text") == 0) a->afmt = AF_TEXT;
            else if (strcmp(optarg, "json") == 0) a->afmt = AF_JSON;
            else if (strcmp(optarg, "sarif") == 0) a->afmt = AF_SARIF;
            else if (strcmp(optarg, "junit") == 0) a->afmt = AF_JUNIT;
            else { fprintf(stderr, "ubdump: unknown audit format '%s' (text, json, sarif, junit)\n", optarg); return 2; }
            a->audit = true;
            break;
        case LO_AOUT: a->aout_path = optarg; a->audit = true; break;
        case LO_AEX:
            if (parse_uint(optarg, 100000, &u) != 0) { fprintf(stderr, "ubdump: --audit-examples needs 0..100000\n"); return 2; }
            examples = (long)u;
            break;
        case LO_FAILON:
            if (strcmp(optarg, "error") == 0) a->fail_on = UB_SEV_ERROR;
            else if (strcmp(optarg, "warning") == 0) a->fail_on = UB_SEV_WARN;
            else if (strcmp(optarg, "never") == 0) a->fail_on = 3;
            else { fprintf(stderr, "ubdump: --fail-on error|warning|never\n"); return 2; }
            break;
        case LO_RTO: {
            char *end;
            double ms = strtod(optarg, &end);
            if (end == optarg || *end || !(ms >= 0) || ms > 1e12) { fprintf(stderr, "ubdump: --response-timeout needs milliseconds\n"); return 2; }
            a->scfg.response_timeout_ns = (uint64_t)(ms * 1e6);
            break;
        }
        case LO_TAACK: a->scfg.expect_taack = true; break;
        case LO_GAPS: a->scfg.gaps_are_notes = true; break;
        case LO_MAXL: case LO_MAXC: case LO_MAXT: case LO_MAXM:
            if (parse_uint(optarg, 1u << 28, &u) != 0 || u < 1) { fprintf(stderr, "ubdump: --max-* needs 1..%u\n", 1u << 28); return 2; }
            if (c == LO_MAXL) a->scfg.max_links = (uint32_t)u;
            else if (c == LO_MAXC) a->scfg.max_channels = (uint32_t)u;
            else if (c == LO_MAXT) a->scfg.max_transactions = (uint32_t)u;
            else a->scfg.max_mgmt = (uint32_t)u;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!file || optind != argc) { usage(stderr); return 2; }
    if (a->out == OUT_FIELDS && a->ne == 0) { fprintf(stderr, "ubdump: -T fields needs at least one -e FIELD\n"); return 2; }
    a->file = file;
    if (yexpr) {
        char ferr[256];
        a->yf = ub_filter_compile(yexpr, ferr, sizeof ferr);
        if (!a->yf) {
            size_t col = ub_filter_err_column(ferr);
            fprintf(stderr, "ubdump: display filter: %s\n", ferr);
            if (col && strlen(yexpr) < 200) fprintf(stderr, "    %s\n    %*s^\n", yexpr, (int)(col - 1), "");
            return 2;
        }
    }
    a->examples = examples >= 0 ? (unsigned)examples : a->afmt == AF_TEXT ? 5u : 100u;
    /* a machine-readable report on stdout owns stdout */
    bool report_owns_stdout = a->audit && a->afmt != AF_TEXT && !a->aout_path;
    if (report_owns_stdout) a->quiet = 1;
    FILE *zout = report_owns_stdout ? stderr : stdout;
    FILE *aout = stdout;
    if (a->aout_path && strcmp(a->aout_path, "-") != 0) {
        aout = fopen(a->aout_path, "w");
        if (!aout) { fprintf(stderr, "ubdump: %s: %s\n", a->aout_path, strerror(errno)); return 2; }
    }

    char err[256];
    ub_capfile *cf = ub_cap_open(file, err, sizeof err);
    if (!cf) { fprintf(stderr, "ubdump: %s\n", err); return 2; }
    a->v = malloc(sizeof *a->v);
    if (a->v) ub_view_init(a->v);
    if (!a->v) return 2;
    fh_init(&a->f_taop_b, "ub.btah.taopcode");
    fh_init(&a->f_taop_a, "ub.atah.taopcode");
    fh_init(&a->f_mgcode, "ub.mgmtetah.code");
    fh_init(&a->f_scanop, "ub.scan.opcode");
    {   /* TPOpcode of RTPH/UTPH/CTPH in one handle */
        fh t;
        fh_init(&a->f_tpop, "ub.rtph.tpopcode");
        const char *more[] = { "ub.utph.tpopcode", "ub.ctph.tpopcode" };
        for (int i = 0; i < 2; i++) {
            fh_init(&t, more[i]);
            for (size_t k = 0; k < t.n && a->f_tpop.n < MAX_MATCH; k++) {
                a->f_tpop.h[a->f_tpop.n] = t.h[k];
                a->f_tpop.f[a->f_tpop.n++] = t.f[k];
            }
        }
    }
    fh_init(&a->f_scna, "ub.nth.scna");
    fh_init(&a->f_dcna, "ub.nth.dcna");
    fh_init(&a->f_ip4s, "ub.ipv4.src");
    fh_init(&a->f_ip4d, "ub.ipv4.dst");
    fh_init(&a->f_ip6s, "ub.ipv6.src");
    fh_init(&a->f_ip6d, "ub.ipv6.dst");
    fh_init(&a->f_stpn, "ub.rtph.srctpn");
    fh_init(&a->f_dtpn, "ub.rtph.dsttpn");
    if (a->zmask & Z_CFG) {
        a->cs = calloc(1, sizeof *a->cs);
        if (!a->cs) return 2;
    }
    a->engine = a->audit || (a->zmask & (Z_TP | Z_SRT | Z_MGMT));
    if (a->engine) {
        if (a->jobs > 1) {
            /* the link engine gets its own thread when the CPUs allow one more busy thread; else it runs
             * in the main thread (cheaper: no second copy of every view) */
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            const char *lt = getenv("UBDUMP_LINK_THREAD");
            a->link_thread = lt && *lt ? *lt == '1' : ncpu >= (long)a->jobs + 2;
            if ((a->audit && !a->link_thread && eng_init(a, &a->main_eng, UB_ST_DLL | UB_ST_DECODE, 0) != 0) || shards_start(a) != 0) {
                fprintf(stderr, "ubdump: cannot start the audit engines (out of memory?)\n");
                return 2;
            }
        } else if (eng_init(a, &a->main_eng, UB_ST_ALL, 0) != 0) {
            fprintf(stderr, "ubdump: cannot start the audit engine (out of memory?)\n");
            return 2;
        }
    }
    a->progress = isatty(STDERR_FILENO) && (a->quiet || !isatty(STDOUT_FILENO));
    clock_gettime(CLOCK_MONOTONIC, &a->tstart);
    a->tlast = a->tstart;

    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    if (a->out == OUT_FIELDS && a->header && !a->quiet) {
        for (unsigned i = 0; i < a->ne; i++) printf("%s%s", i ? (char[2]){ a->sep, 0 } : "", a->e[i].name);
        putchar('\n');
    }
    if (a->out == OUT_JSON && !a->quiet) fputs("[\n", stdout);
    ub_rec r;
    int rc = 0, status = 0;
    while ((a->count < 0 || (long)a->npkts < a->count) && (rc = ub_cap_next(cf, &r)) == 1) {
        a->npkts++;
        a->cur = &r;
        if (!a->have_t0) { a->t0 = r.ts_ns; a->have_t0 = true; }
        if (a->progress && (a->npkts & 8191) == 0) progress(a, false);
        ub_entry e = ub_entry_for_linktype(&a->o, r.linktype);
        if (e == UB_ENTRY_STREAM) {
            unsigned k = ((r.ifindex & 31u) << 1) | (r.dir == UB_DIR_IN ? 1u : 0u);
            if (!a->streams[k]) {
                a->streams[k] = malloc(sizeof(ub_stream));
                if (!a->streams[k]) return 2;
                ub_stream_init(a->streams[k], &a->o);
            }
            ub_stream_feed(a->streams[k], r.data, r.caplen, unit_cb, a);
            continue;
        }
        emit(a, r.data, r.caplen, e, 0);
    }
    if (rc < 0) {
        fprintf(stderr, "ubdump: %s: %s\n", file, ub_cap_error(cf));
        status = 2;
    }
    for (unsigned k = 0; k < 64; k++)
        if (a->streams[k]) ub_stream_flush(a->streams[k], unit_cb, a);
    if (a->progress) progress(a, true);
    if (a->out == OUT_JSON && !a->quiet) fputs("\n]\n", stdout);
    if (a->quiet && !report_owns_stdout) {
        printf("%" PRIu64 " records, %" PRIu64 " UB packets/blocks decoded", a->npkts, a->nunits);
        putchar('\n');
    }

    /* end of capture: outstanding state, then merge the shards into the main engine's view */
    if (a->engine) {
        if (a->sh) shards_stop(a);
        if (a->main_eng.st) eng_finish(&a->main_eng);
    }
    fcoll all;
    memset(&all, 0, sizeof all);
    latset *lat = NULL;
    tpstats *tps = NULL;
    unsigned ntps = 0;
    if (a->engine) {
        if (a->audit && fcoll_init(&all, a->examples) != 0) return 2;
        lat = calloc(1, sizeof *lat);
        tps = calloc((size_t)a->jobs + 2, sizeof *tps);
        if (!lat || !tps) return 2;
        if (a->main_eng.st) {
            if (a->audit) fcoll_merge(&all, &a->main_eng.fc);
            lat_merge(lat, &a->main_eng.lat);
            tps[ntps++] = a->main_eng.tp;
        }
        for (int i = 0; a->sh && i < a->nsh; i++) {
            if (a->audit) fcoll_merge(&all, &a->sh[i].e.fc);
            lat_merge(lat, &a->sh[i].e.lat);
            tps[ntps++] = a->sh[i].e.tp;
        }
    }
    fflush(stdout);
    if (a->zmask & Z_CFG) print_z_cfg(a, zout);
    if (a->zmask & Z_TP) print_z_tp(a, zout, tps, ntps, lat);
    if (a->zmask & Z_SRT) print_z_lat(a, zout, 0, lat);
    if (a->zmask & Z_MGMT) print_z_lat(a, zout, 1, lat);
    fflush(zout);
    if (a->audit) {
        asum s;
        summarize(a, &all, &s);
        const ub_rule *ev = ub_rule_by_id("UB-ST-001");
        if (a->sh && ev && ev->idx < all.nrules) {
            const rgroup *g = &all.g[ev->idx];
            if (g->count[0] + g->count[1] + g->count[2])
                fprintf(stderr, "ubdump: state tables overflowed (UB-ST-001): with -j %d the workers evict differently "
                                "from -j 1, so findings may differ; raise --max-* for an exact result\n", a->jobs);
        }
        int ast = status ? status : (a->fail_on <= UB_SEV_ERROR && s.at_or_above) ? 1 : 0;
        if (a->afmt == AF_TEXT) {
            if (aout == stdout && !a->quiet) fputc('\n', aout);
            audit_text(a, aout, &all, &s);
        } else if (a->afmt == AF_JSON) audit_json(a, aout, &all, &s, ast);
        else if (a->afmt == AF_SARIF) audit_sarif(a, aout, &all, &s, ast);
        else audit_junit(a, aout, &all, &s);
        free(s.order);
        status = ast;
        if (aout != stdout && fclose(aout) != 0) {
            fprintf(stderr, "ubdump: %s: %s\n", a->aout_path, strerror(errno));
            status = 2;
        }
    }
    if (fflush(stdout) != 0) status = 2;
    /* tidy up (keeps leak checkers quiet) */
    fcoll_free(&all);
    if (lat) { lat_free(lat); free(lat); }
    free(tps);
    if (a->engine) {
        if (a->main_eng.st) eng_free(&a->main_eng);
        shards_free(a);
    }
    for (unsigned k = 0; k < 64; k++) free(a->streams[k]);
    free(a->cs);
    free(a->v);
    ub_filter_free(a->yf);
    ub_cap_close(cf);
    return status;
}
