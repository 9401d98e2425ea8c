/* ubdump — UB capture analyzer and protocol auditor (tcpdump/tshark conventions), driven by libubparse.
 *
 *   ubdump -r FILE [-V] [-T text|fields|json] [-e FIELD]... [-Y FILTER] [-c COUNT] [-q] [-o OPTION=VALUE]...
 *          [--audit [--audit-format text|json|sarif|junit] [--fail-on error|warning|never]] [-z STAT]... [--threads N]
 *          [--lua FILE [--lua-arg K=V]...]...
 *
 * A thin front end of the library's public API: records -> ub_units (raw flit streams delimited per
 * interface and direction) -> ub_decode -> {printing (selected by -Y), the audit session (audit.h:
 * the state engine on every packet, -z statistics, --threads N workers)} -> ub_report_write. The
 * session sees EVERY packet: -Y only selects what is printed. --lua scripts (ublua.h, docs/lua.md) see
 * every packet too, after the session: ub_lua_audit_packet() wraps ub_audit_packet().
 *
 * Exit status: 0 the file was read (and, with --audit, no finding at or above the --fail-on level and
 * nothing evicted), 1 --audit found something at or above the fail level, 2 usage or I/O error,
 * 3 --audit incomplete: state was evicted before it could be judged (raise --max-*). */
#include "ubdump_app.h"
#include "ubparse/iostat.h"
#include "ubparse/state.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *entry_name(unsigned e)
{
    static const char *n[] = { "none", "flit", "pkt", "stream", "sll", "sll2", "eth", "rawip", "cfgph", "tph", "pcieflit" };
    return e < sizeof n / sizeof n[0] ? n[e] : "?";
}

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

/* units carrying RoCEv2, SUE, PCIe flits (the decoder says which: ub_view.neigh) */
static void count_neigh(app *a, const ub_view *v)
{
    a->nneigh[0] += (v->neigh & UB_VN_IB) != 0;
    a->nneigh[1] += (v->neigh & UB_VN_SUE) != 0;
    a->nneigh[2] += (v->neigh & UB_VN_PCIE) != 0;
    a->nquoted_ub += (v->neigh & UB_VN_QUOTED_UB) != 0;
}

static void show_rest(app *a, const ub_rec *r, const uint8_t *data, uint32_t len, uint32_t wire, unsigned unit_flags);
static void show_after(app *a, const ub_rec *r, const uint8_t *data, uint32_t len, uint32_t wire, unsigned unit_flags);
/* a unit handed to the audit threads undecoded (out of line, as show_after) */
static __attribute__((noinline)) void show_raw(app *a, const ub_rec *r, const uint8_t *data, uint32_t len, uint32_t wire,
                                               ub_entry entry, unsigned unit_flags)
{
    a->nunits++;
    if (ub_audit_unit(a->session, entry, data, len, wire, unit_flags, &(ub_pktinfo){ r->frame, r->ts_ns, r->ifindex, r->dir }) != 0)
        a->oom = true;
}
static void show(app *a, const ub_rec *r, const uint8_t *data, uint32_t len, ub_entry entry, unsigned unit_flags)
{
    ub_view *v = a->v;
    /* a whole record cut by the snapshot length: its length on the wire is the record's orig_len */
    uint32_t wire = ub_unit_wire(r, data, len);
    if (a->units_raw) { /* decoded by whichever audit thread is free; counted there (ub_audit_unit_counts) */
        show_raw(a, r, data, len, wire, entry, unit_flags);
        return;
    }
    ub_decode_wire(v, &a->o, entry, data, len, wire);
    ub_unit_errors(v, unit_flags, len);
    a->nunits++;
    if (ub_view_ub(v)) a->nub++;
    else a->nother++;
    if (v->neigh) count_neigh(a, v);
    if (a->o.profile == UB_PROFILE_SPEC) ub_sniff_view(&a->sniff, v);
    if (a->after) show_after(a, r, data, len, wire, unit_flags);
}

/* a decoded unit to the logs, the scripts or the session, then show_rest (out of line: plain -q
 * has none of them) */
static __attribute__((noinline)) void show_after(app *a, const ub_rec *r, const uint8_t *data, uint32_t len, uint32_t wire,
                                                 unsigned unit_flags)
{
    ub_view *v = a->v;
    if (a->logs) ub_logs_packet(a->logs, v, &(ub_pktinfo){ r->frame, r->ts_ns, r->ifindex, r->dir });
    if (a->lua) {
        ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
        if (ub_lua_audit_packet(a->lua, a->feed ? a->session : NULL, v, &pi) != 0) a->oom = true;
    } else if (a->session) {
        ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
        if (ub_audit_packet(a->session, v, &pi) != 0) a->oom = true;
    }
    if (a->rest) show_rest(a, r, data, len, wire, unit_flags);
}

/* after the decode, the counts and the session: statistics tables, printing, -w selection (a->rest:
 * any of them is wanted; plain -q wants none) */
static __attribute__((noinline)) void show_rest(app *a, const ub_rec *r, const uint8_t *data, uint32_t len, uint32_t wire,
                                                unsigned unit_flags)
{
    ub_view *v = a->v;
    a->tpflags = a->tags ? ub_audit_last_flags(a->session) : 0; /* [TP Retransmission] ... */
    const bool orphan = (unit_flags & UB_UNIT_PARTIAL) && a->at_end; /* tshark shows no frame for it */
    if (a->tables && !orphan) { /* -z conv/endpoints, ub,tree, io,stat, io,phs */
        ub_filter_pkt pk = ypkt(a, r, len, wire), pkr = ypkt(a, r, r->caplen, r->origlen);
        ubx_z_view(&a->z, v, &pk, &pkr, wire, r->ts_ns - a->t0);
    }
    if (a->rec_mode) { /* -T fields|json|ek on a raw flit stream: collected for the record's line / document */
        if (orphan) return;
        a->rec_units++;
        if (a->yf) {
            ub_filter_pkt pk = ypkt(a, r, r->caplen, r->origlen);
            ub_filter_acc_add(a->yacc, v, &pk);
        }
        if (a->fs) ubx_fset_view(a->fs, v, a->fb); /* the schema fields */
        for (unsigned i = 0; i < a->ne; i++)
            if (a->e[i].n == 0 && (!a->e[i].pseudo || a->e[i].pseudo == PF_UB_ERROR || a->e[i].pseudo == PF_COL_INFO ||
                                   a->e[i].pseudo >= PF_UB_CNA)) /* the unit's own values (ub.cna, ub.eid, ip.src ...) */
                view_field(a, v, &a->e[i], &a->fb[i]);
        if (a->jrec && !a->ne && !a->quiet) ubx_jrec_unit(a->jrec, v, a->out == OUT_EK);
        return;
    }
    /* the open unit flushed at the end (or at -c): tshark shows no frame for it; text shows it */
    if (orphan && (a->out == OUT_FIELDS || a->out == OUT_JSON || a->out == OUT_EK)) return;
    if (a->quiet && !a->wr) return;
    if (a->yf && !ymatch(a, v, r, len, wire)) return;
    a->rec_sel = true;
    if (a->quiet) return; /* -w without -P */
    a->nshown++;
    if (a->out == OUT_FIELDS) {
        if (a->e_other || !ubx_fset_line(a->fs, v, &a->lb, &a->csv, a->ne)) fields_line(a, r, false); /* else integers, once each */
        shown(a, r);
        return;
    }
    uint64_t d = r->ts_ns - a->t0;
    if (a->out == OUT_JSON || a->out == OUT_EK) { /* tshark's shapes */
        ubx_pkt p = json_pkt(a, r, v, len);
        if (a->ne) json_efields(a, r, &p, false);
        else if (a->out == OUT_JSON) ubx_json_packet(stdout, &p, a->json_first);
        else ubx_ek_packet(stdout, &p);
        a->json_first = false;
        shown(a, r);
        return;
    }
    if (a->out == OUT_UBJSON) {
        printf("%s  {\"frame\":%" PRIu64 ",\"time_relative\":%" PRIu64 ".%09" PRIu64 ",\"len\":%u,\"entry\":\"%s\",\"ub\":",
               a->json_first ? "" : ",\n", r->frame, d / 1000000000u, d % 1000000000u, len, entry_name(v->entry));
        ub_print_json(stdout, v);
        fputs("}", stdout);
        a->json_first = false;
        shown(a, r);
        return;
    }
    /* printf("%6" PRIu64 " %s %s%s\n", frame, time, tags, summary) built in place: the summary at most 1,023
     * bytes, the tags 255, the time 63 */
    char line[24 + 64 + 256 + 1024], t[64];
    pkt_time(a, r, t, sizeof t);
    size_t k = ubx_dec_col(line, r->frame, 6), tl = strlen(t);
    line[k++] = ' ';
    memcpy(line + k, t, tl);
    k += tl;
    line[k++] = ' ';
    k += ub_tp_flags_tags(a->tpflags, line + k, 256);
    size_t sl = ub_summary(v, line + k, 1024);
    k += sl < 1024 ? sl : 1023;
    line[k++] = '\n';
    fwrite(line, 1, k, stdout);
    if (a->verbose) ub_print_tree_sel(stdout, v, a->osel ? a->odetail : NULL);
    /* the frame's bytes as tshark -x shows them: an Ethernet FCS too (the decoded unit stops before it) */
    if (a->hex && (unit_flags & UB_UNIT_REASSEMBLED)) ubx_hexdump_reasm(stdout, v, r->data, r->caplen, data, len);
    else if (a->hex) ubx_hexdump(stdout, v, data, data == r->data && r->fcslen && len < r->caplen ? r->caplen : len);
    else if (a->verbose) putchar('\n');
    shown(a, r);
}

/* ub_units callback: an IP datagram given up by reassembly (a UB one: UB-NW-003 in the audit) */
static void lost_cb(void *ctx, const ub_units_lost *l)
{
    app *a = ctx;
    a->ip_lost++;
    if (!l->ub || !l->first_frame) return;
    if (a->ip_lost_ub < sizeof a->ip_lost_at / sizeof a->ip_lost_at[0]) a->ip_lost_at[a->ip_lost_ub] = l->first_frame;
    a->ip_lost_ub++;
    if (a->session) ub_audit_ip_lost(a->session, l);
}

/* ub_units callback: one decodable unit */
static void unit_cb(void *ctx, const ub_rec *r, const uint8_t *unit, uint32_t len, ub_entry entry, unsigned flags)
{
    show((app *)ctx, r, unit, len, entry, flags);
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (s[0] < '0' || s[0] > '9') return -1; /* no sign, no blanks: strtoull would wrap "-1" */
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || v > max) return -1;
    *out = v;
    return 0;
}

enum {
    LO_NONCRC = 1000, LO_AUDIT, LO_AFMT, LO_AOUT, LO_AEX, LO_FAILON, LO_RTO, LO_LTO, LO_TAACK, LO_GAPS, LO_MAXL, LO_MAXC,
    LO_MAXT, LO_MAXM, LO_ALLOWINC, LO_LUA, LO_LUAARG, LO_LUAUNSAFE, LO_LUABUDGET, LO_LUAMEM, LO_LUAMAXERR, LO_LOGDIR,
    LO_THREADS, LO_VERSION, LO_WCITED
};

/* The main loop's work per record besides its units (-T fields|json|ek on flit streams, filtered
 * tables, io,stat, -w, the progress line): frame_work says whether there is any (plain -q and text
 * have none), frame_before / frame_after do it around the record's units. */
static bool frame_work(const app *a)
{
    return a->out == OUT_FIELDS || a->out == OUT_JSON || a->out == OUT_EK || ubx_z_per_record(&a->z) || a->wr ||
           a->progress;
}

static void frame_before(app *a, const ub_rec *r)
{
    if (a->progress && (a->npkts & 8191) == 0) progress(a, false);
    a->rec_mode = (a->out == OUT_FIELDS || a->out == OUT_JSON || a->out == OUT_EK) &&
                  ub_entry_for_linktype(&a->o, r->linktype) == UB_ENTRY_STREAM;
}

/* 0, or the writer's -1 (a write error) / -2 (an error it reported) when -w could not write the record */
static int frame_after(app *a, ub_capfile *cf, const ub_rec *r, const ub_units *units)
{
    if (a->rec_mode) rec_line(a, r, units);
    if (ubx_z_per_record(&a->z)) { /* a table counting frames: the record as the filters see it */
        ub_filter_pkt pkr = ypkt(a, r, r->caplen, r->origlen);
        ubx_z_record(&a->z, &pkr, ub_entry_for_linktype(&a->o, r->linktype) == UB_ENTRY_STREAM);
    }
    a->rec_mode = false;
    bool sel = a->rec_sel;
    a->rec_sel = false;
    return a->wr && (sel || !a->yf) ? ubx_writer_rec(a->wr, cf, r) : 0;
}

/* -2 -R FILTER (tshark's read filter): a first pass over in copies the records FILTER selects to the
 * pcapng file out, through the -Y / -w path (a record is selected when one of its units matches; the
 * filter's ub.analysis.* and frame.* are those of the whole capture, as in tshark's first pass); the run
 * then reads out as its capture, its times relative to in's first record. 0, or 2 after a message. */
static int read_filter_pass(app *main_app, const ub_state_cfg *scfg, const char *in, const char *expr,
                            const char *out)
{
    app *b = calloc(1, sizeof *b);
    char err[256];
    int rc = 2;
    ub_units *units = NULL;
    if (!b) { fprintf(stderr, "ubdump: out of memory\n"); return 2; }
    b->o = main_app->o;
    b->out = OUT_TEXT;
    b->quiet = 1;
    b->count = -1;
    if (!(b->yf = ub_filter_compile(expr, err, sizeof err))) {
        size_t col = ub_filter_err_column(err);
        fprintf(stderr, "ubdump: read filter: %s\n", err);
        if (col && strlen(expr) < 200) fprintf(stderr, "    %s\n    %*s^\n", expr, (int)(col - 1), "");
        goto out;
    }
    if (ub_filter_uses_analysis(b->yf)) {
        if (strcmp(in, "-") == 0) {
            fprintf(stderr, "ubdump: ub.analysis.* in -R reads the capture twice: give a file, not standard input\n");
            goto out;
        }
        if (!(b->fan = ub_fan_scan(in, &b->o, scfg, err, sizeof err))) {
            fprintf(stderr, "ubdump: %s: %s\n", in, err);
            goto out;
        }
    }
    if (!(b->cf = ub_cap_open(in, err, sizeof err))) { fprintf(stderr, "ubdump: %s\n", err); goto out; }
    b->pcapng = ub_cap_is_pcapng(b->cf);
    if (!(b->wr = ubx_writer_open(out, err, sizeof err))) { fprintf(stderr, "ubdump: -R: %s\n", err); goto out; }
    if (!(b->v = ub_view_new_tmpl()) || !(units = ub_units_new(&b->o, 0))) { fprintf(stderr, "ubdump: out of memory\n"); goto out; }
    b->rest = b->after = b->per_frame = true;
    ub_rec r;
    int n;
    rc = 0;
    while ((n = ub_cap_next(b->cf, &r)) == 1 && !b->oom) {
        b->npkts++;
        if (!b->have_t0) { b->t0 = b->tprev = r.ts_ns; b->have_t0 = true; }
        ub_units_record(units, &r, unit_cb, b);
        if (frame_after(b, b->cf, &r, units) != 0) {
            fprintf(stderr, "ubdump: -R: %s: write error\n", out);
            rc = 2;
            break;
        }
        b->tprev = r.ts_ns;
    }
    if (n < 0) { fprintf(stderr, "ubdump: %s: %s\n", in, ub_cap_error(b->cf)); rc = 2; }
    main_app->rt0_set = b->have_t0; /* frame.time_relative, -t r: from the input's first record */
    main_app->rt0 = b->t0;
    main_app->rlast = b->tprev;
    if (b->oom) { fprintf(stderr, "ubdump: out of memory\n"); rc = 2; }
    if (ubx_writer_close(b->wr, b->cf) != 0 && !rc) { fprintf(stderr, "ubdump: -R: %s: write error\n", out); rc = 2; }
    b->wr = NULL;
out:
    if (b->wr) ubx_writer_close(b->wr, b->cf);
    ub_units_free(units);
    free(b->v);
    ub_fan_free(b->fan);
    ub_filter_free(b->yf);
    if (b->cf) ub_cap_close(b->cf);
    free(b);
    return rc;
}

/* the -R pass's file, removed at exit */
static char rtmp[4096];
static void rtmp_remove(void)
{
    if (rtmp[0]) unlink(rtmp);
}

static app A;
static char **pf_names; /* -j / -J: one block, the pointers then the names (reachable until exit) */
static char *trail_filter; /* the words after the options (reachable until exit) */

/* tshark's split of a -j/-J argument: the words between single spaces (empty ones kept, never equal
 * to a name), NULL-terminated */
static char **split_names(const char *s)
{
    size_t n = 1, len = strlen(s);
    for (const char *p = s; *p; p++) n += *p == ' ';
    char **v = malloc((n + 1) * sizeof *v + len + 1);
    if (!v) return NULL;
    char *w = memcpy((char *)(v + n + 1), s, len + 1);
    for (size_t i = 0; i < n; i++) {
        v[i] = w;
        w += strcspn(w, " ");
        if (*w) *w++ = '\0';
    }
    v[n] = NULL;
    return v;
}

/* the scripts and their rule set are released on every exit path (leak checkers run at exit) */
static void lua_cleanup(void)
{
    ub_lua_free(A.lua);
    A.lua = NULL;
    ub_ruleset_free(A.rules);
    A.rules = NULL;
}

int main(int argc, char **argv)
{
    app *a = &A;
    ub_opts_default(&a->o);
    ub_audit_cfg acfg;
    ub_audit_cfg_default(&acfg);
    ub_state_cfg *scfg = &acfg.state;
    a->out = OUT_TEXT;
    a->count = -1;
    ubx_csv_default(&a->csv);
    a->json_first = true;
    a->fail_on = UB_SEV_ERROR;
    const char *file = NULL, *yexpr = NULL, *rexpr = NULL, *gsel = NULL, *ifname = NULL;
    bool two_pass = false;
    const char *cfilter = NULL; /* -f */
    int wfmt = -1; /* -F */
    bool promisc = true;
    unsigned long snaplen = 0;
    double duration = 0; /* -a duration:SECONDS */
    ubx_ring ring = { 0, 0, 0 }; /* -b */
    bool line_buf = false, wprint = false, wcited = false, wflush = false;
    const char *wpath = NULL;
    long examples = -1;
    /* Lua */
    enum { MAX_LUA = 64 };
    const char *lua_files[MAX_LUA], *lua_args[MAX_LUA];
    unsigned nlua = 0, nluaarg = 0;
    ub_lua_cfg lcfg;
    ub_lua_cfg_default(&lcfg);
    static const struct option lo[] = {
        { "noncrc", no_argument, NULL, LO_NONCRC },
        { "help", no_argument, NULL, 'h' },
        { "display-filter", required_argument, NULL, 'Y' },
        { "read-filter", required_argument, NULL, 'R' },
        { "audit", no_argument, NULL, LO_AUDIT },
        { "log-dir", required_argument, NULL, LO_LOGDIR },
        { "audit-format", required_argument, NULL, LO_AFMT },
        { "audit-output", required_argument, NULL, LO_AOUT },
        { "audit-examples", required_argument, NULL, LO_AEX },
        { "fail-on", required_argument, NULL, LO_FAILON },
        { "response-timeout", required_argument, NULL, LO_RTO },
        { "loss-timeout", required_argument, NULL, LO_LTO },
        { "expect-taack", no_argument, NULL, LO_TAACK },
        { "gaps-are-notes", no_argument, NULL, LO_GAPS },
        { "max-links", required_argument, NULL, LO_MAXL },
        { "max-channels", required_argument, NULL, LO_MAXC },
        { "max-transactions", required_argument, NULL, LO_MAXT },
        { "max-mgmt", required_argument, NULL, LO_MAXM },
        { "allow-incomplete", no_argument, NULL, LO_ALLOWINC },
        { "lua", required_argument, NULL, LO_LUA },
        { "lua-arg", required_argument, NULL, LO_LUAARG },
        { "lua-unsafe", no_argument, NULL, LO_LUAUNSAFE },
        { "lua-budget", required_argument, NULL, LO_LUABUDGET },
        { "lua-memory", required_argument, NULL, LO_LUAMEM },
        { "lua-max-errors", required_argument, NULL, LO_LUAMAXERR },
        { "threads", required_argument, NULL, LO_THREADS },
        { "version", no_argument, NULL, LO_VERSION },
        { "write-cited", no_argument, NULL, LO_WCITED },
        { 0, 0, 0, 0 }
    };
    int c;
    unsigned long long u;
    int zrc;
    while ((c = getopt_long(argc, argv, "r:i:ps:a:b:DUVO:T:e:E:c:qo:G:hY:R:z:j:J:xt:lvw:F:f:Pn2", lo, NULL)) != -1) {
        switch (c) {
        case 'r': file = optarg; break;
        case 'i': ifname = optarg; break; /* live capture (tcpdump -i): receive only */
        case 'p': promisc = false; break;
        case 'b': {
            char berr[160];
            if (ubx_ring_option(&ring, optarg, berr, sizeof berr) != 0) { fprintf(stderr, "ubdump: %s\n", berr); return 2; }
            break;
        }
        case 'D': return ubx_list_interfaces(stdout) == 0 ? 0 : 2;
        case 'a': { /* tshark -a: autostop conditions of a live capture */
            char *end = NULL;
            if (strncmp(optarg, "duration:", 9) == 0 && (duration = strtod(optarg + 9, &end)) > 0 && end && !*end &&
                duration < 1e9)
                break;
            if (strncmp(optarg, "packets:", 8) == 0 && parse_uint(optarg + 8, 1000000000000000ull, &u) == 0 && u >= 1) {
                a->count = (long)u;
                break;
            }
            fprintf(stderr, "ubdump: -a duration:SECONDS or packets:N, not '%s'\n", optarg);
            return 2;
        }
        case 's':
            if (parse_uint(optarg, 65535, &u) != 0) { fprintf(stderr, "ubdump: -s needs a snapshot length 0..65535 (0 = 65535), not '%s'\n", optarg); return 2; }
            snaplen = (unsigned long)u;
            break;
        case 'V': a->verbose = 1; break;
        case 'O': { /* tshark -O: -V, the details of these protocols only */
            char *list = optarg, *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (!ub_ws_proto_ids(t, a->odetail)) {
                    fprintf(stderr, "ubdump: -O: '%s' is not a protocol: ub, a header (ubdump -G headers: ub.btah, "
                                    "ub.rtph, ...) or Wireshark's name of one outside UB (eth, ip, ipv6, udp, ...)\n", t);
                    return 2;
                }
            a->verbose = a->osel = true;
            break;
        }
        case 'T':
            if (strcmp(optarg, "text") == 0) a->out = OUT_TEXT;
            else if (strcmp(optarg, "fields") == 0) a->out = OUT_FIELDS;
            else if (strcmp(optarg, "json") == 0) a->out = OUT_JSON;
            else if (strcmp(optarg, "ek") == 0) a->out = OUT_EK;
            else if (strcmp(optarg, "ubjson") == 0) a->out = OUT_UBJSON;
            else if (strcmp(optarg, "psml") == 0) a->out = OUT_FIELDS, a->csv.psml = true; /* the columns, below */
            else if (strcmp(optarg, "tabs") == 0) a->out = OUT_FIELDS, a->csv.tabs = true;
            else { fprintf(stderr, "ubdump: unknown output format '%s' (text, fields, json, ek, ubjson, psml, tabs)\n", optarg); return 2; }
            break;
        case 'e': {
            int er = add_efield(a, optarg);
            if (er != 0) {
                if (a->ne == a->ecap) fprintf(stderr, "ubdump: out of memory\n");
                else if (ubx_ws_proto_named(optarg))
                    fprintf(stderr, "ubdump: '%s' is a protocol: tshark prints its tree label there; -e one of its fields "
                                    "(docs/filters.md)\n", optarg);
                else fprintf(stderr, "ubdump: unknown field '%s' (ubdump -G fields lists them)\n", optarg);
                return 2;
            }
            break;
        }
        case 'E': {
            char eerr[200];
            if (ubx_csv_option(&a->csv, optarg, eerr, sizeof eerr) != 0) { fprintf(stderr, "ubdump: %s\n", eerr); return 2; }
            break;
        }
        case 'x': a->hex = true; break;
        case 't':
            if (ubx_tfmt_parse(optarg, &a->tfmt) != 0) { fprintf(stderr, "ubdump: -t ad|a|r|d|dd|e|u|ud, not '%s'\n", optarg); return 2; }
            break;
        case 'l': line_buf = true; break;
        case 'U': wflush = true; break;
        case 'n': break; /* as tshark: no name resolution (ubdump does none) */
        case '2': two_pass = true; break; /* as tshark: two passes (the analysis always sees the whole capture first; -R) */
        case 'w': wpath = optarg; break;
        case 'P': wprint = true; break;
        case LO_WCITED: wcited = true; break;
        case 'v': case LO_VERSION: ubx_version(stdout); return 0;
        case 'c':
            if (parse_uint(optarg, 1000000000000000ull, &u) != 0 || u < 1) {
                fprintf(stderr, "ubdump: -c needs a record count 1..10^15, not '%s'\n", optarg);
                return 2;
            }
            a->count = (long)u;
            break;
        case 'q': a->quiet = 1; break;
        case 'o': {
            if (strcmp(optarg, "help") == 0) { ub_opts_help(stdout); return 0; }
            char oerr[200];
            if (ub_opts_set(&a->o, optarg, oerr, sizeof oerr) != 0) { fprintf(stderr, "ubdump: -o %s (ubdump -o help)\n", oerr); return 2; }
            break;
        }
        case LO_NONCRC: a->o.crc_mode = false; break;
        case 'G':
            if (strcmp(optarg, "fields") == 0) { ubx_list_fields(); return 0; }
            if (strcmp(optarg, "errors") == 0) { ubx_list_errors(); return 0; }
            if (strcmp(optarg, "headers") == 0) { ubx_list_headers(); return 0; }
            if (strcmp(optarg, "profiles") == 0) { ubx_list_profiles(); return 0; }
            if (strcmp(optarg, "lua") == 0) { ub_lua_doc(stdout); return 0; }
            if (strcmp(optarg, "rules") == 0) { gsel = optarg; break; } /* after the --lua scripts are loaded */
            fprintf(stderr, "ubdump: -G fields|errors|headers|rules|profiles|lua\n");
            return 2;
        case 'Y': yexpr = optarg; break;
        case 'R': rexpr = optarg; break;
        case 'f': cfilter = optarg; break;
        case 'F':
            if ((wfmt = ubx_writer_format(optarg)) < 0) { fprintf(stderr, "ubdump: -F pcapng|pcap|nsecpcap, not '%s'\n", optarg); return 2; }
            break;
        case 'z':
            if ((zrc = ubx_z_option(&a->z, optarg)) != 0) return zrc == 1 ? 0 : 2; /* 1: -z help */
            break;
        case 'J': case 'j': /* tshark's protocol match filter of -T json|ek (-J: with every descendant) */
            if (c == 'J' || optarg[strspn(optarg, "0123456789")] != '\0') {
                free(pf_names);
                if (!(pf_names = split_names(optarg))) { fprintf(stderr, "ubdump: out of memory\n"); return 2; }
                ubx_json_protocol_filter(pf_names, c == 'J');
                break;
            }
            /* -j N: the thread count of earlier versions */
            fprintf(stderr, "ubdump: warning: -j N is deprecated, use --threads N (-j PROTOCOLS is tshark's JSON protocol filter)\n");
            /* fall through */
        case LO_THREADS:
            if (parse_uint(optarg, UB_AUDIT_MAX_JOBS, &u) != 0 || u < 1) { fprintf(stderr, "ubdump: --threads needs 1..%u, not '%s'\n", UB_AUDIT_MAX_JOBS, optarg); return 2; }
            acfg.jobs = (unsigned)u;
            break;
        case LO_AUDIT: a->audit = true; break;
        case LO_LOGDIR: a->log_dir = optarg; break;
        case LO_AFMT:
            if (ub_report_fmt_parse(optarg, &a->afmt) != 0) { fprintf(stderr, "ubdump: unknown audit format '%s' (text, json, sarif, junit)\n", optarg); return 2; }
            a->audit = true;
            break;
        case LO_AOUT: a->aout_path = optarg; a->audit = true; break;
        case LO_AEX:
            if (parse_uint(optarg, 100000, &u) != 0) { fprintf(stderr, "ubdump: --audit-examples needs 0..100000, not '%s'\n", optarg); return 2; }
            examples = (long)u;
            break;
        case LO_FAILON:
            if (ub_fail_on_parse(optarg, &a->fail_on) != 0) { fprintf(stderr, "ubdump: --fail-on error|warning|never\n"); return 2; }
            break;
        case LO_RTO:
        case LO_LTO: {
            char *end;
            double ms = strtod(optarg, &end);
            if (end == optarg || *end || !(ms >= 0) || ms > 1e12) {
                fprintf(stderr, "ubdump: --%s needs milliseconds 0..10^12, not '%s'\n", c == LO_RTO ? "response-timeout" : "loss-timeout", optarg);
                return 2;
            }
            *(c == LO_RTO ? &scfg->response_timeout_ns : &scfg->loss_timeout_ns) = (uint64_t)(ms * 1e6);
            break;
        }
        case LO_TAACK: scfg->expect_taack = true; break;
        case LO_GAPS: scfg->gaps_are_notes = true; break;
        case LO_MAXL: case LO_MAXC: case LO_MAXT: case LO_MAXM:
            if (parse_uint(optarg, 1u << 28, &u) != 0 || u < 1) { fprintf(stderr, "ubdump: --max-* needs 1..%u\n", 1u << 28); return 2; }
            if (c == LO_MAXL) scfg->max_links = (uint32_t)u;
            else if (c == LO_MAXC) scfg->max_channels = (uint32_t)u;
            else if (c == LO_MAXT) scfg->max_transactions = (uint32_t)u;
            else scfg->max_mgmt = (uint32_t)u;
            break;
        case LO_ALLOWINC: a->allow_incomplete = true; break;
        case LO_LUA:
            if (nlua == MAX_LUA) { fprintf(stderr, "ubdump: at most %d --lua scripts\n", MAX_LUA); return 2; }
            lua_files[nlua++] = optarg;
            break;
        case LO_LUAARG:
            if (nluaarg == MAX_LUA) { fprintf(stderr, "ubdump: at most %d --lua-arg\n", MAX_LUA); return 2; }
            lua_args[nluaarg++] = optarg;
            break;
        case LO_LUAUNSAFE: lcfg.unsafe = true; break;
        case LO_LUABUDGET:
            if (parse_uint(optarg, UINT64_MAX, &u) != 0) { fprintf(stderr, "ubdump: --lua-budget needs a number of instructions (0 = unlimited)\n"); return 2; }
            lcfg.instr_limit = u;
            break;
        case LO_LUAMEM:
            if (parse_uint(optarg, (SIZE_MAX >> 20) - 1, &u) != 0) { fprintf(stderr, "ubdump: --lua-memory needs MiB (0 = unlimited)\n"); return 2; }
            lcfg.mem_limit = (size_t)u << 20;
            break;
        case LO_LUAMAXERR:
            if (parse_uint(optarg, 1000000000, &u) != 0) { fprintf(stderr, "ubdump: --lua-max-errors needs a number\n"); return 2; }
            lcfg.max_errors = (unsigned)u;
            break;
        case 'h': ubx_usage(stdout); return 0;
        default: ubx_usage(stderr); return 2;
        }
    }
    /* Lua scripts: loaded before anything else runs (their rules join the rule set) */
    ub_ruleset *rules = NULL;
    atexit(lua_cleanup);
    if (nluaarg && !nlua) { fprintf(stderr, "ubdump: --lua-arg without --lua\n"); return 2; }
    if (nlua) {
        char lerr[1024];
        lcfg.opts = &a->o;
        lcfg.tool = "ubdump";
        lcfg.builtin_findings = a->audit;
        /* print() goes where packet lines go; a json/sarif/junit report on stdout owns it */
        lcfg.out = (a->audit && a->afmt != UB_REPORT_TEXT && !a->aout_path) || (wpath && strcmp(wpath, "-") == 0) ? stderr : stdout;
        int lrc = 0;
        rules = a->rules = ub_ruleset_new();
        a->lua = ub_lua_new(&lcfg);
        if (!rules || !a->lua) {
            fprintf(stderr, "ubdump: out of memory\n");
            lrc = 2;
        }
        for (unsigned i = 0; !lrc && i < nluaarg; i++)
            if (ub_lua_arg(a->lua, lua_args[i], lerr, sizeof lerr) != 0) {
                fprintf(stderr, "ubdump: %s\n", lerr);
                lrc = 2;
            }
        for (unsigned i = 0; !lrc && i < nlua; i++) {
            if (ub_lua_load(a->lua, lua_files[i], rules, lerr, sizeof lerr) != 0) {
                fprintf(stderr, "ubdump: --lua %s\n", lerr);
                lrc = 2;
            }
        }
        if (lrc) return lrc;
    }
    if (gsel) { /* -G rules */
        ubx_list_rules(rules);
        return 0;
    }
    if (a->csv.psml || a->csv.tabs) { /* -T psml|tabs: tshark's summary columns (the default column set) */
        if (a->ne) { fprintf(stderr, "ubdump: -T %s prints the summary columns: no -e\n", a->csv.psml ? "psml" : "tabs"); return 2; }
        static const char *const cols[] = { "_ws.col.No.", "_ws.col.Time", "_ws.col.Source", "_ws.col.Destination",
                                            "_ws.col.Protocol", "_ws.col.Length", "_ws.col.Info" };
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
            if (add_efield(a, cols[i]) != 0) { fprintf(stderr, "ubdump: out of memory\n"); return 2; }
    }
    if (file && ifname) { fprintf(stderr, "ubdump: -r FILE or -i IFACE, not both\n"); return 2; }
    if (ifname) file = ifname; /* the name in messages */
    if (duration > 0 && !ifname) { fprintf(stderr, "ubdump: -a duration: needs -i IFACE (a live capture)\n"); return 2; }
    if (!file) { ubx_usage(stderr); return 2; }
    if (optind < argc) { /* as tshark (and tcpdump): the words after the options, joined by spaces, are the
                          * capture filter of -i, the display filter of -r */
        size_t n = 1;
        for (int i = optind; i < argc; i++) n += strlen(argv[i]) + 1;
        if (!(trail_filter = malloc(n))) { fprintf(stderr, "ubdump: out of memory\n"); return 2; }
        trail_filter[0] = '\0';
        for (int i = optind; i < argc; i++) {
            if (i > optind) strcat(trail_filter, " ");
            strcat(trail_filter, argv[i]);
        }
        const char **slot = ifname ? &cfilter : &yexpr;
        if (*slot) {
            fprintf(stderr, "ubdump: %s filters were specified both with \"%s\" and with additional command-line arguments.\n",
                    ifname ? "Capture" : "Display", ifname ? "-f" : "-Y");
            return 2;
        }
        *slot = trail_filter;
    }
    if (cfilter && !ifname) {
        fprintf(stderr, "ubdump: only read filters, not capture filters, can be given when reading a capture file: use -Y (or -2 -R)\n");
        return 2;
    }
    if (rexpr && !two_pass) { fprintf(stderr, "ubdump: -R without -2 is deprecated. For single-pass filtering use -Y.\n"); return 2; }
    if (rexpr && ifname) { fprintf(stderr, "ubdump: -R needs -r FILE: its first pass reads the capture\n"); return 2; }
    const char *path = file; /* what the run reads: the input, or the -R pass's file */
    const bool once = ifname || (!rexpr && strcmp(file, "-") == 0); /* the packets cannot be read twice */
    if (a->out == OUT_FIELDS && a->ne == 0) { fprintf(stderr, "ubdump: -T fields needs at least one -e FIELD\n"); return 2; }
    if (a->out != OUT_FIELDS && a->out != OUT_JSON && a->out != OUT_EK && a->ne) { fprintf(stderr, "ubdump: -e needs -T fields, json or ek\n"); return 2; }
    if (a->hex && a->out != OUT_TEXT) { fprintf(stderr, "ubdump: -x needs -T text\n"); return 2; }
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
    acfg.examples = examples >= 0 ? (unsigned)examples : a->afmt == UB_REPORT_TEXT ? 5u : 100u;
    /* a machine-readable report on stdout owns stdout */
    bool report_owns_stdout = a->audit && a->afmt != UB_REPORT_TEXT && !a->aout_path;
    /* -w - : the capture owns stdout, everything else goes to stderr; -w prints packets only with -P */
    bool w_stdout = wpath && strcmp(wpath, "-") == 0, user_quiet = a->quiet;
    if (w_stdout && (wprint || report_owns_stdout || (a->aout_path && strcmp(a->aout_path, "-") == 0))) { fprintf(stderr, "ubdump: -w - writes the capture to standard output: no -P, no --audit-format there (use --audit-output FILE)\n"); return 2; }
    if (wprint && !wpath) { fprintf(stderr, "ubdump: -P needs -w FILE\n"); return 2; }
    if (wflush && (!wpath || wcited)) { fprintf(stderr, "ubdump: -U needs -w FILE\n"); return 2; }
    if (wfmt >= 0 && !wpath) { fprintf(stderr, "ubdump: -F needs -w FILE\n"); return 2; }
    if (wfmt < 0) wfmt = UBX_F_PCAPNG;
    if ((ring.filesize || ring.duration_ns || ring.files) && (!wpath || wcited || w_stdout)) {
        fprintf(stderr, "ubdump: -b (a ring buffer of files) needs -w FILE, not -w - or --write-cited\n");
        return 2;
    }
    if (wcited && (!wpath || !a->audit || once)) { fprintf(stderr, "ubdump: --write-cited needs -w FILE, --audit and -r FILE (read twice)\n"); return 2; }
    if (report_owns_stdout || (wpath && !wprint)) a->quiet = 1;
    FILE *zout = report_owns_stdout || w_stdout ? stderr : stdout;
    FILE *aout = w_stdout ? stderr : stdout;
    if (a->aout_path && strcmp(a->aout_path, "-") != 0) {
        aout = fopen(a->aout_path, "w");
        if (!aout) { fprintf(stderr, "ubdump: %s: %s\n", a->aout_path, strerror(errno)); return 2; }
    }

    char err[256];
    if (rexpr) { /* -2 -R: the records it selects are the capture from here on */
        const char *td = getenv("TMPDIR");
        int fd = -1;
        if (snprintf(rtmp, sizeof rtmp, "%s/ubdump-R-XXXXXX", td && *td ? td : "/tmp") < (int)sizeof rtmp) fd = mkstemp(rtmp);
        if (fd < 0) {
            fprintf(stderr, "ubdump: -R: cannot create a temporary file in %s: %s\n", td && *td ? td : "/tmp", strerror(errno));
            rtmp[0] = '\0';
            return 2;
        }
        close(fd);
        atexit(rtmp_remove);
        if (read_filter_pass(a, scfg, file, rexpr, rtmp) != 0) return 2;
        path = rtmp;
    }
    ub_capfile *cf = a->cf = ifname ? ubx_open_live(ifname, (unsigned)snaplen, promisc, duration, cfilter, err, sizeof err) : ub_cap_open(path, err, sizeof err);
    if (!cf) { fprintf(stderr, "ubdump: %s\n", err); return 2; }
    static char obuf[1 << 16];
    if (isatty(STDOUT_FILENO)) line_buf = true; /* a terminal sees each line as it is made, as with stdio's default */
    setvbuf(stdout, obuf, line_buf ? _IOLBF : _IOFBF, sizeof obuf); /* -l: a line at a time, for pipes */
    if (wpath && !wcited && !(a->wr = ubx_writer_open_ring(wpath, &ring, wfmt, err, sizeof err))) { fprintf(stderr, "ubdump: -w %s\n", err); return 2; }
    if (a->wr && wflush) ubx_writer_packet_buffered(a->wr);
    a->pcapng = ub_cap_is_pcapng(cf);
    if (a->yf && !(a->yacc = ub_filter_acc_new(a->yf))) return 2;
    bool json_an = (a->out == OUT_JSON || a->out == OUT_EK) && !a->ne && !a->quiet && !once; /* ub.analysis */
    /* -z io,phs: tshark's tree has the frame's own item (a top protocol "frame") when it builds the whole
     * tree (-V, -T fields|json|ek, -q or not) or anything of the run reads frame or frame.* (its display
     * filter, a field, a tap's filter) */
    bool frame_item = a->verbose || a->out == OUT_FIELDS || a->out == OUT_JSON || a->out == OUT_EK ||
                      ub_filter_uses_frame(a->yf) || ubx_z_uses_frame(&a->z);
    for (unsigned i = 0; i < a->ne; i++) frame_item |= strncmp(a->e[i].name, "frame.", 6) == 0;
    ubx_z_show_frame(&a->z, frame_item);
    /* ub.analysis.*: a first pass of the engine (-Y, -e, a -z table's filter, -z expert) */
    bool need_fan = ub_filter_uses_analysis(a->yf) || ubx_z_uses_analysis(&a->z) || a->e_fan || json_an;
    if ((need_fan || a->z.srt_f) && once) {
        fprintf(stderr, "ubdump: ub.analysis.*, -z expert and -z ub,srt,FILTER read the capture twice: give a file, not standard input or -i\n");
        return 2;
    }
    if (need_fan && !(a->fan = ub_fan_scan(path, &a->o, scfg, err, sizeof err))) {
        fprintf(stderr, "ubdump: %s: %s\n", file, err);
        return 2;
    }
    a->v = ub_view_new_tmpl();
    if (!a->v) return 2;
    /* the audit session: the state engine (--audit, -z ub,tp/srt/latency/mgmt) and the -z counters; with --lua
     * also the collector of the scripts' findings. The session sees the packets when the engine or the
     * statistics are wanted (--audit, -z, on_match/on_finding/ub.suppress/ub.rerate). */
    /* summaries (text, _ws.col.Info) carry the plugin's TP analysis tags: the engine runs for them */
    for (unsigned i = 0; i < a->ne; i++) a->info_col |= a->e[i].pseudo == PF_COL_INFO;
    a->tags |= a->info_col;
    a->tags = !a->quiet && (a->out == OUT_TEXT || a->tags);
    if (a->tags) acfg.jobs = 1; /* each printed line needs its packet's TP analysis at once: one engine */
    a->feed = a->audit || a->z.zmask || a->log_dir || a->tags || (a->lua && ub_lua_needs_engine(a->lua));
    if (a->audit || a->z.zmask || a->lua || a->log_dir || a->tags) {
        acfg.opts = &a->o;
        acfg.rules = rules;
        acfg.findings = a->audit || a->lua || a->log_dir;
        /* tp_channels.jsonl: the -z ub,tp rows; the tags: the TP notes */
        acfg.stats = a->z.zmask | (a->log_dir || a->tags ? UB_STATS_TP : 0u);
        const char *lt = getenv("UBDUMP_LINK_THREAD"); /* tests: force the link engine's placement */
        acfg.link_thread = lt && *lt ? *lt == '1' : -1;
        char serr[200];
        a->session = ub_audit_new(&acfg, serr, sizeof serr);
        if (!a->session) {
            fprintf(stderr, "ubdump: cannot start the audit engines: %s\n", serr);
            return 2;
        }
        if (a->lua) {
            ub_lua_attach(a->lua, a->session);
            if (acfg.jobs > 1 && ub_audit_jobs(a->session) == 1)
                fprintf(stderr, "ubdump: the --lua hooks (on_match/on_finding, ub.suppress/ub.rerate) run in one engine: "
                                "--threads %u does not apply\n", acfg.jobs);
        }
        if (a->log_dir) {
            a->logs = ub_logs_open(a->log_dir, file, rules, serr, sizeof serr);
            if (!a->logs || ub_logs_attach(a->logs, a->session) != 0) {
                fprintf(stderr, "ubdump: %s\n", a->logs ? "--log-dir: cannot attach to the audit session" : serr);
                ub_logs_close(a->logs, NULL, serr, sizeof serr);
                ub_audit_free(a->session);
                ub_cap_close(cf);
                free(a->v);
                return 2;
            }
        }
    }
    ub_units *units = ub_units_new(&a->o, 0);
    if (!units) return 2;
    ub_units_on_lost(units, lost_cb, a);
    a->progress = isatty(STDERR_FILENO) && (a->quiet || !isatty(STDOUT_FILENO));
    clock_gettime(CLOCK_MONOTONIC, &a->tstart);
    a->tlast = a->tstart;

    if (a->csv.psml && !a->quiet)
        fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<psml version=\"0\" creator=\"ubdump/" UBSCOPE_VERSION "\">\n"
              "<structure>\n<section>No.</section>\n<section>Time</section>\n<section>Source</section>\n"
              "<section>Destination</section>\n<section>Protocol</section>\n<section>Length</section>\n"
              "<section>Info</section>\n</structure>\n\n", stdout);
    else if (a->out == OUT_FIELDS && a->csv.header && !a->csv.tabs && !a->quiet) {
        for (unsigned i = 0; i < a->ne; i++) printf("%s%s", i ? (char[2]){ a->csv.sep, 0 } : "", a->e[i].name);
        putchar('\n');
    }
    if ((a->out == OUT_JSON || a->out == OUT_UBJSON) && !a->quiet) fputs("[\n", stdout);
    ub_rec r;
    int rc = 0, status = 0;
    a->units_raw = a->session && a->quiet && !a->lua && !a->logs && !ubx_z_per_unit(&a->z) && !a->yf && !a->wr &&
                   !a->tags && a->out != OUT_FIELDS && !a->ne && ub_audit_jobs(a->session) > 1;
    if (a->out == OUT_FIELDS || a->ne) {
        a->fb = calloc(a->ne ? a->ne : 1, sizeof *a->fb);
        bool ok = a->fb && (a->fs = ubx_fset_new());
        for (unsigned i = 0; ok && i < a->ne; i++)
            for (size_t k = 0; ok && k < a->e[i].n; k++) ok = ubx_fset_add(a->fs, i, a->e[i].h[k], a->e[i].f[k]) == 0;
        for (unsigned i = 0; i < a->ne; i++) a->e_other |= a->e[i].n == 0;
        if (!ok) {
            fprintf(stderr, "ubdump: out of memory\n");
            return 2;
        }
    }
    ubx_lb_init(&a->lb, stdout, line_buf || a->lua); /* scripts may print between the lines */
    if ((a->out == OUT_JSON || a->out == OUT_EK) && !(a->jrec = ubx_jrec_new())) return 2;
    a->tables = ubx_z_per_unit(&a->z);
    a->rest = !a->quiet || a->wr || a->tags || a->tables || a->out == OUT_FIELDS || a->out == OUT_JSON || a->out == OUT_EK;
    a->after = a->logs || a->lua || a->session || a->rest;
    a->per_frame = frame_work(a);
    while ((a->count < 0 || (long)a->npkts < a->count) && (rc = ub_cap_next(cf, &r)) == 1) {
        a->npkts++;
        if (!a->have_t0) {
            a->t0 = a->tprev = r.ts_ns;
            a->have_t0 = true;
            if (a->rt0_set) a->t0 = a->rt0;
        }
        if (a->per_frame) frame_before(a, &r);
        ub_units_record(units, &r, unit_cb, a);
        int frc = a->per_frame ? frame_after(a, cf, &r, units) : 0;
        a->tprev = r.ts_ns;
        if (frc != 0) {
            if (frc == -1) fprintf(stderr, "ubdump: %s: write error\n", wpath);
            status = 2;
            break;
        }
        if (a->oom) break;
    }
    if (rc < 0) {
        fprintf(stderr, "ubdump: %s: %s\n", file, ub_cap_error(cf));
        status = 2;
    }
    a->at_end = true;
    ub_units_flush(units, unit_cb, a);
    if (a->units_raw) { /* the decoders' counts, for the totals below */
        ub_audit_set_records(a->session, a->npkts);
        if (ub_audit_finish(a->session) != 0) a->oom = true;
        ub_unit_counts uc;
        ub_audit_unit_counts(a->session, &uc);
        a->nub += uc.ub;
        a->nother += uc.other;
        a->nneigh[0] += uc.ib;
        a->nneigh[1] += uc.sue;
        a->nneigh[2] += uc.pcie;
        a->nquoted_ub += uc.quoted_ub;
        a->sniff = uc.sniff; /* every unit went to the session */
    }
    ubx_lb_flush(&a->lb);
    if (a->progress) progress(a, true);
    if ((a->out == OUT_JSON || a->out == OUT_UBJSON) && !a->quiet) fputs("\n]\n", stdout);
    if (a->csv.psml && !a->quiet) fputs("</psml>\n", stdout);
    if (user_quiet && !report_owns_stdout) {
        /* with -z, stdout carries the statistics alone, as tshark -q's */
        bool zst = ubx_z_any(&a->z);
        FILE *qo = w_stdout || zst ? stderr : stdout;
        fprintf(qo, "%" PRIu64 " records: %" PRIu64 " UB, %" PRIu64 " other (not UB)", a->npkts, a->nub, a->nother);
        static const char *const nn[3] = { "RoCEv2", "SUE", "PCIe flits" }; /* inside UB CFG 3/4 too */
        for (unsigned i = 0, k = 0; i < 3; i++)
            if (a->nneigh[i]) fprintf(qo, "%s%" PRIu64 " %s", k++ ? ", " : "; carrying ", a->nneigh[i], nn[i]);
        if (a->ip_lost)
            fprintf(qo, "; %" PRIu64 " IP datagram%s never reassembled", a->ip_lost, a->ip_lost == 1 ? "" : "s");
        if (a->nquoted_ub)
            fprintf(qo, "; %" PRIu64 " ICMP error%s quoting UB", a->nquoted_ub, a->nquoted_ub == 1 ? "" : "s");
        fprintf(qo, "\n");
    }
    if (a->wr && ubx_writer_close(a->wr, cf) != 0) {
        fprintf(stderr, "ubdump: %s: write error\n", wpath);
        status = 2;
    }
    if (a->ip_lost_ub) { /* UB datagrams that were never decoded: fragments without the rest */
        fprintf(stderr, "ubdump: warning: %" PRIu64 " UB datagram%s (UDP destination port %u%s) %s IP-fragmented and never "
                        "reassembled, so not decoded; first fragment%s at frame",
                a->ip_lost_ub, a->ip_lost_ub == 1 ? "" : "s", a->o.udp_port, a->o.n_udp_more ? " or another -o udp.port" : "",
                a->ip_lost_ub == 1 ? "was" : "were", a->ip_lost_ub == 1 ? "" : "s");
        const uint64_t nat = sizeof a->ip_lost_at / sizeof a->ip_lost_at[0];
        for (uint64_t i = 0; i < a->ip_lost_ub && i < nat; i++) fprintf(stderr, "%s %" PRIu64, i ? "," : "", a->ip_lost_at[i]);
        fprintf(stderr, "%s\n", a->ip_lost_ub > nat ? ", ..." : "");
    }
    if (a->nquoted_ub) /* a UB packet the network reported it could not deliver (too big for a link, no route, TTL) */
        fprintf(stderr, "ubdump: warning: %" PRIu64 " ICMP error%s quote%s a UB datagram the network did not deliver "
                        "(-Y \"icmp && ub\" or \"icmpv6 && ub\" shows %s)\n",
                a->nquoted_ub, a->nquoted_ub == 1 ? "" : "s", a->nquoted_ub == 1 ? "s" : "", a->nquoted_ub == 1 ? "it" : "them");
    if (a->npkts && !a->nub && !a->ip_lost_ub && !a->nquoted_ub && rc >= 0) /* once: a file without UB is worth knowing about */
        fprintf(stderr, "ubdump: warning: %s contains no UB traffic (%" PRIu64 " record%s, none a UB link record or UB over "
                        "UDP: destination port %u%s, or the strict heuristic%s)\n",
                file, a->npkts, a->npkts == 1 ? "" : "s", a->o.udp_port, a->o.n_udp_more ? " or another -o udp.port" : "",
                a->o.udp_heuristic ? "" : ", which -o udp.heuristic=0 turned off");
    if (a->o.profile == UB_PROFILE_SPEC) {
        char advice[400];
        if (ub_sniff_verdict(&a->sniff, advice, sizeof advice) != UB_PROFILE_SPEC) fprintf(stderr, "ubdump: %s\n", advice);
    }

    /* end of capture: the scripts' on_end (ub.report still counts), then the outstanding state is
     * judged, shards joined and merged */
    if (a->lua) ub_lua_end(a->lua);
    if (a->session) {
        ub_audit_set_records(a->session, a->npkts);
        if (ub_audit_finish(a->session) != 0) a->oom = true;
    }
    if (a->oom) {
        fprintf(stderr, "ubdump: out of memory\n");
        return 2;
    }
    char lerr2[200];
    if (ub_logs_close(a->logs, a->session, lerr2, sizeof lerr2) != 0) {
        fprintf(stderr, "ubdump: %s\n", lerr2);
        status = 2;
    }
    a->logs = NULL;
    uint64_t late = a->lua ? ub_lua_late_errors(a->lua) : 0;
    if (late)
        fprintf(stderr, "ubdump: %" PRIu64 " Lua error(s) in hooks run at the end of the capture (not in the report): "
                        "the run fails\n", late);
    fflush(stdout);
    if (a->rt0_set) ubx_z_span(&a->z, a->rlast - a->rt0);
    if (ubx_z_print(&a->z, a->session, path, &a->o, scfg, a->fan, zout) != 0) status = 2;
    fflush(zout);
    /* with --lua but no --audit: a report of the scripts' rules when they have any, or anything fired
     * (script errors are findings of UB-LUA-001) */
    bool report = a->audit;
    if (!report && a->lua && a->session) {
        const ub_collect *all = ub_audit_findings(a->session);
        report = (ub_lua_wants(a->lua) & UB_LUA_W_RULES) != 0;
        for (unsigned i = 0; all && !report && i < ub_ruleset_count(rules); i++) report = ub_collect_rule_total(all, i) > 0;
    }
    if (report) {
        ub_state_stats st;
        ub_audit_state_stats(a->session, &st);
        const ub_collect *all = ub_audit_findings(a->session);
        if (ub_audit_jobs(a->session) > 1 && st.evicted_total)
            fprintf(stderr, "ubdump: state tables overflowed (UB-ST-001): with --threads %u the workers evict differently "
                            "from one thread, so findings may differ; raise --max-* for an exact result\n", ub_audit_jobs(a->session));
        const char *inputs[1] = { file };
        ub_report_info ri;
        memset(&ri, 0, sizeof ri);
        ri.tool = "ubdump";
        ri.inputs = inputs;
        ri.ninputs = 1;
        ri.records = a->npkts;
        ri.packets = a->nunits;
        ri.fail_on = a->fail_on;
        ri.jobs = ub_audit_jobs(a->session);
        ri.state = &st;
        ri.allow_incomplete = a->allow_incomplete;
        ri.status = status;
        int ast = status ? status : ub_result_exit(ub_report_result(all, &ri));
        if (a->afmt == UB_REPORT_TEXT && aout == stdout && !a->quiet) fputc('\n', aout);
        if (ub_report_write(aout, a->afmt, all, &ri) != 0) ast = 2;
        status = ast;
        if (aout != stdout && aout != stderr && fclose(aout) != 0) {
            fprintf(stderr, "ubdump: %s: %s\n", a->aout_path, strerror(errno));
            status = 2;
        }
    }
    if (wcited && a->session && status != 2 && ubx_write_cited(path, wpath, ub_audit_findings(a->session), wfmt, err, sizeof err) < 0) {
        fprintf(stderr, "ubdump: --write-cited: %s\n", err);
        status = 2;
    }
    if (late && status == 0) status = 1;
    if (fflush(stdout) != 0) status = 2;
    /* tidy up (keeps leak checkers quiet); the scripts outlive the report (findings point at them) */
    ub_audit_free(a->session);
    lua_cleanup();
    ub_units_free(units);
    free(a->v);
    for (unsigned i = 0; a->fb && i < a->ne; i++) free(a->fb[i].p);
    free(a->fb);
    ubx_fset_free(a->fs);
    free(a->e);
    ub_filter_acc_free(a->yacc);
    ubx_jrec_free(a->jrec);
    ubx_z_free(&a->z);
    ub_filter_free(a->yf);
    ub_fan_free(a->fan);
    if (ifname) {
        uint64_t got = 0, drops = 0;
        ub_cap_live_stats(cf, &got, &drops);
        fprintf(stderr, "ubdump: %" PRIu64 " packets captured on %s, %" PRIu64 " dropped by the kernel\n", a->npkts, ifname, drops);
    }
    ub_cap_close(cf);
    return status;
}
