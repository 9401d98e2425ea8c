/* Capture replay engine (replay.h): streamed (or preloaded) records -> units -> -Y / ranges /
 * direction -> rewrite -> schedule -> runner; periodic and end-of-run reports. */
#include "rw_internal.h"
#include "ubparse/replay.h"
#include "ubparse/audit.h"
#include "ubparse/filter.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000000000ull
#define OUT_CAP (65536 + 512)

typedef struct range { uint64_t lo, hi; } range;

typedef struct prec { /* a preloaded record */
    uint64_t off, ts;
    uint32_t len, linktype, ifindex;
    uint16_t file;
    uint8_t dir;
} prec;

struct ub_replay {
    ub_replay_cfg c;
    ub_opts o;
    ub_filter *flt;
    ub_filter *split;       /* split_filter */
    uint8_t rec_dir;        /* the direction of the record whose units are being sent */
    range *rg;
    unsigned nrg;
    ub_sched s;
    ub_replay_stats st;
    ub_view *v;
    uint8_t *out;
    /* preload */
    prec *pre;
    uint64_t npre, cappre;
    uint8_t *pbuf;
    uint64_t pused, pcap;
    bool pre_ok, pre_fail;
    /* running */
    ub_runner *r;
    ub_rw *rw;
    uint64_t start, requested, next_stats;
    uint64_t sent_at_stats;
    int stop;               /* 0 go, 1 cap, 2 done (limit/duration), -1 error, -2 abort */
    char *err;
    size_t errlen;
    uint64_t frame;         /* record number within the current file (frame.number) */
    rw_fh h_mgrsp, h_tpop;  /* --requests, resolved once */
};

void ub_replay_cfg_default(ub_replay_cfg *c)
{
    memset(c, 0, sizeof *c);
    ub_sched_cfg_default(&c->sched);
    c->dir = -1;
    c->loops = 1;
    c->stats_out = stderr;
}

static int parse_ranges(ub_replay *rp, const char *text, char *err, size_t errlen)
{
    const char *p = text;
    while (*p) {
        char *e;
        uint64_t lo, hi;
        if (*p == '-') { lo = 1; } else {
            errno = 0;
            lo = strtoull(p, &e, 10);
            if (e == p || errno || lo == 0) goto bad;
            p = e;
        }
        if (*p == '-') {
            p++;
            if (*p == ',' || !*p) hi = UINT64_MAX;
            else {
                errno = 0;
                hi = strtoull(p, &e, 10);
                if (e == p || errno || hi < lo) goto bad;
                p = e;
            }
        } else {
            hi = lo;
        }
        range *nr = realloc(rp->rg, (rp->nrg + 1) * sizeof *nr);
        if (!nr) { snprintf(err, errlen, "out of memory"); return -1; }
        rp->rg = nr;
        rp->rg[rp->nrg++] = (range){ lo, hi };
        if (*p == ',') p++;
        else if (*p) goto bad;
    }
    if (!rp->nrg) goto bad;
    return 0;
bad:
    snprintf(err, errlen, "--packets: ranges like 1-100,200,300- (1-based record numbers): %s", text);
    return -1;
}

ub_replay *ub_replay_new(const ub_replay_cfg *c, char *err, size_t errlen)
{
    ub_replay *rp = calloc(1, sizeof *rp);
    if (!rp) { snprintf(err, errlen, "out of memory"); return NULL; }
    rp->c = *c;
    if (c->opts) rp->o = *c->opts;
    else ub_opts_default(&rp->o);
    if (!rp->c.stats_out) rp->c.stats_out = stderr;
    rp->v = malloc(sizeof *rp->v);
    rp->out = malloc(OUT_CAP);
    if (!rp->v || !rp->out) { ub_replay_free(rp); snprintf(err, errlen, "out of memory"); return NULL; }
    ub_view_init(rp->v);
    if (c->filter) {
        char e2[256];
        rp->flt = ub_filter_compile_live(c->filter, e2, sizeof e2);
        if (!rp->flt) { snprintf(err, errlen, "-Y %s: %s", c->filter, e2); ub_replay_free(rp); return NULL; }
    }
    if (c->split_filter) {
        char e2[256];
        rp->split = ub_filter_compile_live(c->split_filter, e2, sizeof e2);
        if (!rp->split) { snprintf(err, errlen, "--split-filter %s: %s", c->split_filter, e2); ub_replay_free(rp); return NULL; }
    }
    if (c->ranges && parse_ranges(rp, c->ranges, err, errlen) < 0) { ub_replay_free(rp); return NULL; }
    ub_sched_init(&rp->s, &c->sched);
    rw_fh_init(&rp->h_mgrsp, "ub.mgmtetah.rsp");
    rw_fh_init(&rp->h_tpop, "ub.rtph.tpopcode");
    for (unsigned i = 0; i < c->ninputs; i++)
        if (strcmp(c->inputs[i], "-") == 0 && c->loops != 1 && !rp->c.preload)
            rp->c.preload = 1ull << 30; /* standard input cannot be read twice */
    return rp;
}

void ub_replay_free(ub_replay *rp)
{
    if (!rp) return;
    ub_filter_free(rp->flt);
    ub_filter_free(rp->split);
    free(rp->rg);
    free(rp->v);
    free(rp->out);
    free(rp->pre);
    free(rp->pbuf);
    free(rp);
}

void ub_replay_on_sent(void *ctx, uint64_t deadline, uint64_t sent, int err, uint32_t len)
{
    ub_replay *rp = ctx;
    (void)len;
    if (err || !deadline || !rp->start) return;
    ub_sched_sent(&rp->s, deadline - rp->start, sent > rp->start ? sent - rp->start : 0);
}

void ub_replay_get_stats(const ub_replay *rp, ub_replay_stats *st)
{
    *st = rp->st;
    st->scheduled = rp->s.scheduled;
    st->backwards = rp->s.ts_backwards;
    st->slips = rp->s.slips;
    st->slipped_ns = rp->s.slipped_ns;
    st->gaps_cut = rp->s.gaps_cut;
    st->gaps_cut_ns = rp->s.gaps_cut_ns;
}

/* ---------------------------------------------------------------- periodic statistics */
static void stats_line(ub_replay *rp, uint64_t now)
{
    ub_runner_stats rs;
    ub_runner_get_stats(rp->r, &rs);
    double t = (double)(now - rp->start) / 1e9;
    double win = (double)rp->c.stats_ns / 1e9;
    double pps = win > 0 ? (double)(rs.sent - rp->sent_at_stats) / win : 0;
    char p99[32], mx[32];
    ub_format_duration(ub_lathist_quantile(&rs.lateness, 0.99), p99, sizeof p99);
    ub_format_duration(rs.lateness.max, mx, sizeof mx);
    fprintf(rp->c.stats_out,
            "ubreplay: %.3f s: sent %" PRIu64 " (%.0f pps last %.3g s), failed %" PRIu64 ", %" PRIu64 " bytes, "
            "late %" PRIu64 " (p99 %s, max %s), received %" PRIu64 "\n",
            t, rs.sent, pps, win, rs.failed, rs.bytes, rs.late_packets, p99, mx, rs.received);
    fflush(rp->c.stats_out);
    rp->sent_at_stats = rs.sent;
}

/* ---------------------------------------------------------------- one packet */
static bool in_ranges(const ub_replay *rp, uint64_t n)
{
    if (!rp->nrg) return true;
    for (unsigned i = 0; i < rp->nrg; i++)
        if (n >= rp->rg[i].lo && n <= rp->rg[i].hi) return true;
    return false;
}

/* requests a receiver would accept; field reads through handles when the caller has them */
static bool is_request(const ub_view *v, const rw_fh *mgrsp, const rw_fh *tpop)
{
    ub_val u;
    for (unsigned i = 0; i < v->nerrs && i < UB_MAX_ERRS; i++) /* a receiver discards it (§5.3.7, §4.7.2) */
        if (v->err[i].code == UB_E_BCRC_BAD || v->err[i].code == UB_E_ICRC_BAD) return false;
    bool btah = false;
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        unsigned id = v->layer[i].hdr->id;
        if (id == UB_H_SCANPDU_REQ) return true;
        if (id == UB_H_ATAH || id == UB_H_ATAH_C) return false;
        btah |= id == UB_H_BTAH || id == UB_H_BTAH_C || id == UB_H_BTAH_ALT;
    }
    if (rw_fh_get(mgrsp, v, &u) == 0) return u.u == 0;
    if (rw_fh_get(tpop, v, &u) == 0 && u.u != 1) return false; /* TP acks, CNPs */
    return btah;
}

bool ub_view_is_request(const ub_view *v)
{
    rw_fh a, b;
    rw_fh_init(&a, "ub.mgmtetah.rsp");
    rw_fh_init(&b, "ub.rtph.tpopcode");
    return is_request(v, &a, &b);
}

static void packet(ub_replay *rp, const uint8_t *d, uint32_t len, ub_entry entry, uint64_t ts, uint64_t frame)
{
    if (rp->stop) return;
    rp->st.units++;
    if (rp->flt || rp->c.requests || rp->split) {
        ub_decode(rp->v, &rp->o, entry, d, len);
        if (rp->flt && !ub_filter_match_frame(rp->flt, rp->v, frame, len)) { rp->st.filtered++; return; }
        if (rp->c.requests && !is_request(rp->v, &rp->h_mgrsp, &rp->h_tpop)) { rp->st.not_request++; return; }
    }
    rp->st.selected++;
    /* the output: the packet as captured decides (before any rewrite), as tcpprep's cache */
    const uint8_t port = rp->split ? ub_filter_match_frame(rp->split, rp->v, frame, len) : rp->c.split_dir && rp->rec_dir == UB_DIR_IN;
    rp->st.port1 += port;
    const uint8_t *p = d;
    uint32_t n = len;
    ub_entry e = entry == UB_ENTRY_STREAM && !rp->c.raw_records ? UB_ENTRY_FLIT : entry;
    if (rp->rw && !rp->c.raw_records) {
        ub_rw_result res;
        long k = ub_rw_packet(rp->rw, entry, d, len, rp->out, OUT_CAP, &res);
        switch (res.status) {
        case UB_RW_SEND: p = rp->out; n = (uint32_t)k; e = (ub_entry)res.out_entry; break;
        case UB_RW_ABORT:
            snprintf(rp->err, rp->errlen, "frame %" PRIu64 ": %s", frame, res.reason);
            rp->stop = -2;
            return;
        case UB_RW_ERROR:
            snprintf(rp->err, rp->errlen, "frame %" PRIu64 ": %s", frame, res.reason ? res.reason : "rewrite failed");
            rp->stop = -1;
            return;
        default:
            rp->st.skipped++;
            return;
        }
    }
    if (!rp->start) { /* the schedule starts with the first packet, not with opening the files */
        rp->start = ub_runner_now(rp->r);
        rp->next_stats = rp->start + rp->c.stats_ns;
    }
    uint64_t off = ub_sched_next(&rp->s, ts, n);
    if (rp->c.duration_ns && off > rp->c.duration_ns) { rp->stop = 2; return; }
    if (rp->s.scheduled == 1) rp->st.sched_first = off;
    rp->st.sched_last = off;
    ub_send_opt o = { 0 };
    o.port = port;
    if (rp->c.sched.mode != UB_SCHED_TOPSPEED) o.at = rp->start + off;
    int rc = ub_runner_send(rp->r, p, n, e, &o);
    if (rc < 0) {
        snprintf(rp->err, rp->errlen, "frame %" PRIu64 ": %s", frame, ub_runner_error(rp->r));
        rp->stop = -1;
        return;
    }
    if (rc > 0) { rp->stop = 1; return; }
    rp->requested++;
    if (rp->c.limit && rp->requested >= rp->c.limit) rp->stop = 2;
    if (rp->c.stats_ns) {
        uint64_t now = ub_runner_now(rp->r);
        if (now >= rp->next_stats) {
            stats_line(rp, now);
            while (rp->next_stats <= now) rp->next_stats += rp->c.stats_ns;
        }
    }
}

typedef struct uctx { ub_replay *rp; } uctx;

static void unit_cb(void *ctx, const ub_rec *r, const uint8_t *unit, uint32_t len, ub_entry entry, unsigned flags)
{
    (void)flags;
    ub_replay *rp = ctx;
    packet(rp, unit, len, entry, r->ts_ns, r->frame);
}

/* one record of a pass: selection by number and direction, then units */
static void record(ub_replay *rp, ub_units *u, const ub_rec *rec, uint64_t nr)
{
    rp->st.records++;
    if (!in_ranges(rp, nr)) { rp->st.out_of_range++; return; }
    if (rp->c.dir >= 0 && rec->dir != rp->c.dir) { rp->st.other_dir++; return; }
    rp->rec_dir = rec->dir;
    if (rp->c.raw_records) {
        packet(rp, rec->data, rec->caplen, ub_entry_for_linktype(&rp->o, rec->linktype), rec->ts_ns, rec->frame);
        return;
    }
    ub_units_record(u, rec, unit_cb, rp);
}

static void preload_add(ub_replay *rp, const ub_rec *rec, unsigned file)
{
    if (rp->pre_fail) return;
    const uint32_t len = ub_rec_frame_caplen(rec); /* kept without an Ethernet FCS, as ub_units_record passes it */
    if (rp->pused + len > rp->c.preload) {
        rp->pre_fail = true;
        free(rp->pre);
        free(rp->pbuf);
        rp->pre = NULL;
        rp->pbuf = NULL;
        rp->npre = rp->cappre = rp->pused = rp->pcap = 0;
        return;
    }
    if (rp->npre == rp->cappre) {
        uint64_t nc = rp->cappre ? rp->cappre * 2 : 4096;
        prec *np = realloc(rp->pre, nc * sizeof *np);
        if (!np) { rp->pre_fail = true; return; }
        rp->pre = np;
        rp->cappre = nc;
    }
    if (rp->pused + len > rp->pcap) {
        uint64_t nc = rp->pcap ? rp->pcap * 2 : 1 << 20;
        while (nc < rp->pused + len) nc *= 2;
        if (nc > rp->c.preload) nc = rp->c.preload;
        uint8_t *nb = realloc(rp->pbuf, nc);
        if (!nb) { rp->pre_fail = true; return; }
        rp->pbuf = nb;
        rp->pcap = nc;
    }
    memcpy(rp->pbuf + rp->pused, rec->data, len);
    rp->pre[rp->npre++] = (prec){ rp->pused, rec->ts_ns, len, rec->linktype, rec->ifindex, (uint16_t)file, rec->dir };
    rp->pused += len;
}

/* one pass over every input; returns 0, or -1 on an input error */
static int pass(ub_replay *rp, uint64_t loop)
{
    uint64_t nr = 0;
    bool from_mem = rp->pre_ok;
    bool collect = loop == 0 && rp->c.preload && !rp->pre_ok;
    for (unsigned f = 0; f < rp->c.ninputs && !rp->stop; f++) {
        if (loop || f) ub_sched_segment(&rp->s, f == 0);
        ub_units *u = rp->c.raw_records ? NULL : ub_units_new(&rp->o, 0);
        if (!rp->c.raw_records && !u) { snprintf(rp->err, rp->errlen, "out of memory"); return -1; }
        if (u) ub_units_defrag(u, false); /* fragments are sent as they were captured */
        if (from_mem) {
            for (uint64_t i = 0; i < rp->npre && !rp->stop; i++) {
                const prec *p = &rp->pre[i];
                if (p->file != f) continue;
                ub_rec rec = { .data = rp->pbuf + p->off, .caplen = p->len, .origlen = p->len, .ts_ns = p->ts,
                               .linktype = p->linktype, .ifindex = p->ifindex, .dir = p->dir, .frame = ++rp->frame };
                record(rp, u, &rec, ++nr);
            }
        } else {
            char e2[256];
            ub_capfile *cf = ub_cap_open(rp->c.inputs[f], e2, sizeof e2);
            if (!cf) { snprintf(rp->err, rp->errlen, "%s", e2); ub_units_free(u); return -1; }
            ub_rec rec;
            int k;
            while (!rp->stop && (k = ub_cap_next(cf, &rec)) == 1) {
                if (collect) preload_add(rp, &rec, f);
                record(rp, u, &rec, ++nr);
            }
            if (!rp->stop && k < 0) {
                snprintf(rp->err, rp->errlen, "%s: %s", rp->c.inputs[f], ub_cap_error(cf));
                ub_cap_close(cf);
                ub_units_free(u);
                return -1;
            }
            ub_cap_close(cf);
        }
        if (u && !rp->stop) ub_units_flush(u, unit_cb, rp);
        ub_units_free(u);
        rp->frame = 0;
    }
    if (collect && !rp->stop) {
        if (rp->pre_fail) {
            bool stdin_in = false;
            for (unsigned i = 0; i < rp->c.ninputs; i++) stdin_in |= strcmp(rp->c.inputs[i], "-") == 0;
            if (stdin_in && rp->c.loops != 1) {
                snprintf(rp->err, rp->errlen, "standard input is larger than --preload (%" PRIu64 " bytes): cannot loop over it",
                         rp->c.preload);
                return -1;
            }
            fprintf(rp->c.stats_out, "ubreplay: the inputs exceed --preload (%" PRIu64 " bytes): read from the files in every loop\n",
                    rp->c.preload);
        } else {
            rp->pre_ok = true;
            rp->st.preloaded = true;
            rp->st.preload_bytes = rp->pused;
        }
    }
    return 0;
}

int ub_replay_run(ub_replay *rp, ub_runner *r, ub_rw *rw, char *err, size_t errlen)
{
    rp->r = r;
    rp->rw = rw;
    rp->err = err;
    rp->errlen = errlen;
    if (errlen) err[0] = '\0';
    rp->start = 0;
    for (uint64_t loop = 0; !rp->stop && (rp->c.loops == 0 || loop < rp->c.loops); loop++) {
        if (rw) ub_rw_loop(rw, (unsigned)loop);
        if (pass(rp, loop) < 0) return -1;
        if (!rp->stop) rp->st.loops_done++;
        if (rp->c.loops == 0 && rp->requested == 0 && rp->st.records == 0) break; /* empty input: not forever */
    }
    if (rp->stop == -1) return -1;
    if (rp->stop == -2) return -2;
    if (ub_runner_flush(r) < 0) { snprintf(err, errlen, "%s", ub_runner_error(r)); return -1; }
    if (rp->c.stats_ns && rp->start) stats_line(rp, ub_runner_now(r));
    return rp->stop == 1 ? 1 : 0;
}

/* ---------------------------------------------------------------- reports */
static const char *mode_name(int m)
{
    return m == UB_SCHED_PPS ? "pps" : m == UB_SCHED_BPS ? "mbps" : m == UB_SCHED_TOPSPEED ? "topspeed" : "original";
}

typedef struct rsum {
    ub_runner_stats rs;
    ub_rw_stats ws;
    ub_replay_stats ps;
    double dur, pps, mbps, req_pps, req_mbps, err_pct, req_span, ach_span;
    bool have_rate;
} rsum;

static void summarize(const ub_replay *rp, const ub_runner *r, const ub_rw *rw, rsum *s)
{
    memset(s, 0, sizeof *s);
    if (r) ub_runner_get_stats(r, &s->rs);
    if (rw) ub_rw_get_stats(rw, &s->ws);
    ub_replay_get_stats(rp, &s->ps);
    uint64_t span = s->rs.last_send > s->rs.first_send ? s->rs.last_send - s->rs.first_send : 0;
    s->dur = (double)span / 1e9;
    if (s->rs.sent > 1 && span) {
        s->have_rate = true;
        s->pps = (double)(s->rs.sent - 1) * 1e9 / (double)span;
        s->mbps = (double)(s->rs.bytes + (uint64_t)rp->c.sched.overhead * s->rs.sent) * 8.0 / ((double)span / 1e9) / 1e6;
    }
    double rate = ub_ratio_value(rp->c.sched.rate);
    s->req_span = (double)(s->ps.sched_last - s->ps.sched_first) / 1e9;
    s->ach_span = s->dur;
    switch (rp->c.sched.mode) {
    case UB_SCHED_PPS:
        s->req_pps = rate;
        if (s->have_rate) s->err_pct = (s->pps - rate) / rate * 100.0;
        break;
    case UB_SCHED_BPS:
        s->req_mbps = rate / 1e6;
        if (s->have_rate) s->err_pct = (s->mbps - s->req_mbps) / s->req_mbps * 100.0;
        break;
    case UB_SCHED_ORIGINAL:
        if (s->req_span > 0 && s->have_rate) s->err_pct = (s->ach_span - s->req_span) / s->req_span * 100.0;
        break;
    default:
        break;
    }
}

void ub_replay_report(const ub_replay *rp, const ub_runner *r, const ub_rw *rw, FILE *f, bool json)
{
    rsum s;
    summarize(rp, r, rw, &s);
    const ub_lathist *lh = &s.rs.lateness;
    if (json) {
        fprintf(f,
                "\"replay\": {\"mode\": \"%s\", \"records\": %" PRIu64 ", \"selected\": %" PRIu64 ", \"filtered\": %" PRIu64
                ", \"out_of_range\": %" PRIu64 ", \"other_direction\": %" PRIu64 ", \"not_requests\": %" PRIu64 ", \"skipped\": %" PRIu64
                ", \"loops\": %" PRIu64 ", \"preloaded\": %s,\n"
                "  \"sent\": %" PRIu64 ", \"failed\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"retries\": %" PRIu64
                ", \"send_calls\": %" PRIu64 ", \"duration_s\": %.9f,\n"
                "  \"achieved_pps\": %.3f, \"achieved_mbps\": %.6f, \"mbps_layer\": %d",
                mode_name(rp->c.sched.mode), s.ps.records, s.ps.selected, s.ps.filtered, s.ps.out_of_range,
                s.ps.other_dir, s.ps.not_request, s.ps.skipped, s.ps.loops_done, s.ps.preloaded ? "true" : "false", s.rs.sent,
                s.rs.failed, s.rs.bytes, s.rs.retries, s.rs.send_calls, s.dur, s.pps, s.mbps,
                rp->c.sched.overhead ? 1 : 2);
        if (rp->c.sched.mode == UB_SCHED_PPS) fprintf(f, ", \"requested_pps\": %.9g", s.req_pps);
        if (rp->c.sched.mode == UB_SCHED_BPS) fprintf(f, ", \"requested_mbps\": %.9g", s.req_mbps);
        if (rp->c.sched.mode == UB_SCHED_ORIGINAL)
            fprintf(f, ", \"multiplier\": %.9g, \"requested_span_s\": %.9f", ub_ratio_value(rp->c.sched.rate), s.req_span);
        if (rp->c.sched.mode != UB_SCHED_TOPSPEED) fprintf(f, ", \"rate_error_pct\": %.6f", s.err_pct);
        if (rp->split || rp->c.split_dir)
            fprintf(f, ", \"second_output\": {\"selected\": %" PRIu64 ", \"sent\": %" PRIu64 "}", s.ps.port1, s.rs.sent_port1);
        fprintf(f,
                ",\n  \"lateness_ns\": {\"count\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"max\": %" PRIu64
                ", \"mean\": %" PRIu64 "}, \"late_packets\": %" PRIu64 ", \"late_policy\": \"%s\", \"slips\": %" PRIu64
                ", \"slipped_ns\": %" PRIu64 ", \"timestamps_backwards\": %" PRIu64 ", \"gaps_cut\": %" PRIu64
                ", \"gaps_cut_ns\": %" PRIu64 ",\n",
                lh->count, ub_lathist_quantile(lh, 0.5), ub_lathist_quantile(lh, 0.99), lh->max, ub_lathist_mean(lh),
                s.rs.late_packets, rp->c.sched.late == UB_LATE_SLIP ? "slip" : "burst", s.ps.slips, s.ps.slipped_ns,
                s.ps.backwards, s.ps.gaps_cut, s.ps.gaps_cut_ns);
        fprintf(f,
                "  \"faults\": {\"dropped\": %" PRIu64 ", \"corrupted\": %" PRIu64 ", \"reordered\": %" PRIu64
                ", \"duplicated\": %" PRIu64 "},\n"
                "  \"answers\": {\"received\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"recorded\": %" PRIu64
                ", \"expectations\": %" PRIu64 ", \"met\": %" PRIu64 "},\n"
                "  \"rewrite\": {\"modified\": %" PRIu64 ", \"converted\": %" PRIu64 ", \"fixed\": %" PRIu64
                ", \"bad\": %" PRIu64 ", \"bad_passed\": %" PRIu64 ", \"bad_skipped\": %" PRIu64 ", \"unconvertible\": %" PRIu64
                ", \"crc_broken\": %" PRIu64 ", \"fields_set\": %" PRIu64 ", \"mapped\": {\"cna\": %" PRIu64
                ", \"eid\": %" PRIu64 ", \"ip\": %" PRIu64 ", \"tpn\": %" PRIu64 ", \"upi\": %" PRIu64 "}"
                ", \"psn_renumbered\": %" PRIu64 ", \"tassn_renumbered\": %" PRIu64 ", \"fuzzed\": %" PRIu64 "},\n"
                "  \"capped\": %s}",
                s.rs.dropped, s.rs.corrupted, s.rs.reordered, s.rs.duplicated, s.rs.received, s.rs.rx_bytes,
                s.rs.recorded, s.rs.expects, s.rs.expect_ok, s.ws.modified, s.ws.converted, s.ws.fixed, s.ws.bad,
                s.ws.bad_passed, s.ws.bad_skipped, s.ws.unconvertible, s.ws.crc_broken, s.ws.fields_set, s.ws.mapped[0],
                s.ws.mapped[1], s.ws.mapped[2], s.ws.mapped[3], s.ws.mapped[4], s.ws.psn_renumbered,
                s.ws.tassn_renumbered, s.ws.fuzzed, s.rs.capped ? "true" : "false");
        return;
    }
    fprintf(f, "ubreplay: sent %" PRIu64 " packets (%" PRIu64 " bytes) in %.6f s, %" PRIu64 " failed (%" PRIu64
               " retries), %" PRIu64 " send calls\n",
            s.rs.sent, s.rs.bytes, s.dur, s.rs.failed, s.rs.retries, s.rs.send_calls);
    if (rp->split || rp->c.split_dir)
        fprintf(f, "ubreplay: second output: %" PRIu64 " packet%s sent (%" PRIu64 " selected for it by %s), %" PRIu64 " on the first\n",
                s.rs.sent_port1, s.rs.sent_port1 == 1 ? "" : "s", s.ps.port1, rp->split ? "--split-filter" : "--split-dir",
                s.rs.sent - s.rs.sent_port1);
    fprintf(f, "ubreplay: read %" PRIu64 " records, %" PRIu64 " selected", s.ps.records, s.ps.selected);
    if (s.ps.filtered) fprintf(f, ", %" PRIu64 " not matching -Y", s.ps.filtered);
    if (s.ps.out_of_range) fprintf(f, ", %" PRIu64 " outside --packets", s.ps.out_of_range);
    if (s.ps.other_dir) fprintf(f, ", %" PRIu64 " of the other direction", s.ps.other_dir);
    if (s.ps.not_request) fprintf(f, ", %" PRIu64 " not requests", s.ps.not_request);
    if (s.ps.skipped) fprintf(f, ", %" PRIu64 " skipped by the rewrite", s.ps.skipped);
    fprintf(f, ", %" PRIu64 " loop%s%s\n", s.ps.loops_done, s.ps.loops_done == 1 ? "" : "s", s.ps.preloaded ? " (preloaded)" : "");
    const char *layer = rp->c.sched.overhead ? "layer 1" : "bytes sent";
    switch (rp->c.sched.mode) {
    case UB_SCHED_PPS:
        fprintf(f, "ubreplay: rate: requested %.9g pps, achieved %.3f pps (%+.4f %%), %.3f Mbit/s (%s)\n", s.req_pps, s.pps,
                s.err_pct, s.mbps, layer);
        break;
    case UB_SCHED_BPS:
        fprintf(f, "ubreplay: rate: requested %.9g Mbit/s (%s), achieved %.6f Mbit/s (%+.4f %%), %.3f pps\n", s.req_mbps,
                layer, s.mbps, s.err_pct, s.pps);
        break;
    case UB_SCHED_ORIGINAL:
        fprintf(f, "ubreplay: timing: original x %.9g, schedule span %.6f s, achieved %.6f s (%+.4f %%), %.3f pps\n",
                ub_ratio_value(rp->c.sched.rate), s.req_span, s.ach_span, s.err_pct, s.pps);
        break;
    default:
        fprintf(f, "ubreplay: rate: top speed, achieved %.3f pps, %.3f Mbit/s (%s)\n", s.pps, s.mbps, layer);
    }
    if (lh->count) {
        char a[32], b[32], c[32];
        ub_format_duration(ub_lathist_quantile(lh, 0.5), a, sizeof a);
        ub_format_duration(ub_lathist_quantile(lh, 0.99), b, sizeof b);
        ub_format_duration(lh->max, c, sizeof c);
        fprintf(f, "ubreplay: lateness: p50 %s, p99 %s, max %s; %" PRIu64 " of %" PRIu64 " packets late; policy %s",
                a, b, c, s.rs.late_packets, lh->count, rp->c.sched.late == UB_LATE_SLIP ? "slip" : "burst");
        if (s.ps.slips) {
            ub_format_duration(s.ps.slipped_ns, a, sizeof a);
            fprintf(f, " (%" PRIu64 " slips, %s)", s.ps.slips, a);
        }
        fputc('\n', f);
    }
    if (s.ps.backwards) fprintf(f, "ubreplay: %" PRIu64 " capture timestamps went backwards (sent without a gap)\n", s.ps.backwards);
    if (s.ps.gaps_cut) {
        char saved[32];
        ub_format_duration(s.ps.gaps_cut_ns, saved, sizeof saved);
        fprintf(f, "ubreplay: %" PRIu64 " gap%s longer than --maxsleep shortened to it (%s less in all)\n", s.ps.gaps_cut,
                s.ps.gaps_cut == 1 ? "" : "s", saved);
    }
    if (rw && (s.ws.modified || s.ws.converted || s.ws.bad || s.ws.unconvertible || s.ws.crc_broken || s.ws.fixed))
        fprintf(f, "ubreplay: rewrite: %" PRIu64 " modified, %" PRIu64 " converted, %" PRIu64 " fixed up, %" PRIu64
                   " CRCs broken, %" PRIu64 " unparsable (%" PRIu64 " passed, %" PRIu64 " skipped), %" PRIu64 " not convertible\n",
                s.ws.modified, s.ws.converted, s.ws.fixed, s.ws.crc_broken, s.ws.bad, s.ws.bad_passed, s.ws.bad_skipped,
                s.ws.unconvertible);
    if (s.rs.dropped || s.rs.corrupted || s.rs.reordered || s.rs.duplicated)
        fprintf(f, "ubreplay: faults: %" PRIu64 " dropped, %" PRIu64 " corrupted, %" PRIu64 " reordered, %" PRIu64 " duplicated\n",
                s.rs.dropped, s.rs.corrupted, s.rs.reordered, s.rs.duplicated);
    if (s.rs.received || s.rs.expects)
        fprintf(f, "ubreplay: answers: %" PRIu64 " received; expectations %" PRIu64 " met of %" PRIu64 "\n", s.rs.received,
                s.rs.expect_ok, s.rs.expects);
}

char *ub_replay_report_json(const ub_replay *rp, const ub_runner *r, const ub_rw *rw)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    ub_replay_report(rp, r, rw, f, true);
    if (fclose(f) != 0) { free(buf); return NULL; }
    return buf;
}
