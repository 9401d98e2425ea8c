/* The audit session (audit.h): decoded packets in, findings and statistics out, for every front end
 * (ubdump --audit / -z, ubreplay live checking, Lua). One engine in the feeding thread (jobs = 1, or
 * any hook set), or sharded engines on worker threads (shard.c) whose findings and statistics are
 * merged at the end so that the report does not depend on the thread schedule.
 *
 * Finding order key (collect.c): (frame, rule, unit being fed when emitted — UINT64_MAX at the end —,
 * engine class: link/all 0, pair shard 1, external 2, emission order within its engine). */
#include "audit_int.h"
#include "internal.h"
#include "st_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ub_audit {
    ub_audit_cfg cfg;
    ub_audit_hooks hooks[UB_AUDIT_MAX_HOOKS]; /* run in this order (ub_audit_add_hooks) */
    unsigned nhooks;
    bool have_hooks, have_match;
    unsigned jobs;       /* threads: 1, or the feeding thread and jobs - 1 workers (shard.c) */
    unsigned npair, pair0, pairw; /* threaded: npair groups of pairw pair engines from worker pair0 on */
    uint64_t allbits;    /* threaded: the workers that see every packet */
    bool engine;         /* engines run (findings, or -z tp/srt/mgmt) */
    bool started, finished;
    bool single;         /* started, one engine in the feeding thread: the fast path of ub_audit_packet */
    bool raw_units;      /* threaded, nothing done per unit in this thread: ub_audit_unit's fast path */
    ub_eng main;         /* jobs 1: the engine (all layers); sharded without link thread: the link engine */
    ub_shards *sh;
    ub_st_names *names;  /* the engines' field-name index: built with the first, shared by all */
    ub_zcfg *zcfg;
    ub_collect *ext;     /* findings added with ub_audit_add_finding */
    uint64_t ext_seq;
    uint64_t nunits, records, frames, max_ts, last_frame;
    ub_opts dflt_opts;   /* cfg.opts == NULL */
    uint32_t last_flags;
    ub_view *uv;         /* ub_audit_unit decoding here (not threaded) */
    ub_unit_counts ucnt; /* ub_audit_unit: units decoded here, then (finished) the workers' too */
    /* after finish */
    ub_collect *all;
    ub_latset *lat;
    ub_tpstats **tps;
    unsigned ntps;
    ub_state_stats st;
};

void ub_audit_cfg_default(ub_audit_cfg *c)
{
    memset(c, 0, sizeof *c);
    ub_state_cfg_default(&c->state);
    c->jobs = 1;
    c->examples = 100;
    c->findings = true;
    c->link_thread = -1;
}

static const struct {
    const char *name, *help;
    unsigned bit;
} stats_names[] = {
    { "ub,cfg", "packets per CFG, header, TAOpcode, TPOpcode, DLLCB type, management code", UB_STATS_TREE },
    { "ub,tp", "per TP channel: packets, bytes, retransmissions, reordering, losses, acks", UB_STATS_TP },
    { "ub,srt", "response times per request TAOpcode, management Code, ack TPOpcode (tshark's SRT table)", UB_STATS_SRT_WS },
    { "ub,latency", "transaction response times per request TAOpcode (min/median/p99/max, histogram)", UB_STATS_SRT },
    { "ub,mgmt", "management response times per Code", UB_STATS_MGMT },
    /* the Wireshark plugin's names of the same statistics (issue #10 item 3) */
};

int ub_stats_parse(const char *name, unsigned *mask)
{
    for (size_t i = 0; name && i < sizeof stats_names / sizeof stats_names[0]; i++)
        if (strcmp(name, stats_names[i].name) == 0) {
            *mask |= stats_names[i].bit;
            return 0;
        }
    return -1;
}

void ub_stats_help(FILE *f)
{
    for (size_t i = 0; i < sizeof stats_names / sizeof stats_names[0]; i++)
        fprintf(f, "%-8s %s\n", stats_names[i].name, stats_names[i].help);
}

/* ================================================================ engines */
static void collect(ub_eng *e, const ub_finding *f)
{
    if (e->fc) ub_collect_add(e->fc, f, e->cur_pkt, e->phase, e->seq++);
}

/* the finding hooks in order: each may edit the finding, the first to return false drops it */
static bool hooks_finding(ub_audit *a, ub_finding *x)
{
    for (unsigned i = 0; i < a->nhooks; i++)
        if (a->hooks[i].finding && !a->hooks[i].finding(a->hooks[i].ctx, x)) return false;
    return true;
}

static void eng_finding(void *ctx, const ub_finding *f)
{
    ub_eng *e = ctx;
    if (e->hooks && e->a->have_hooks) {
        ub_finding x = *f;
        if (!hooks_finding(e->a, &x)) return;
        collect(e, &x);
        return;
    }
    collect(e, f);
}

/* keytext only for the findings the collector keeps (hooks see every finding in full) */
static bool eng_keep(void *ctx, unsigned rule, uint64_t frame)
{
    ub_eng *e = ctx;
    if (e->hooks && e->a->have_hooks) return true;
    if (ub_collect_would_keep(e->fc, rule, frame, e->cur_pkt, e->phase, e->seq)) return true;
    if (e->fc) ub_st_keep_bound(e->st, rule, ub_collect_keep_bound(e->fc, rule)); /* later frames: no need to ask */
    return false;
}

/* a finding eng_keep declined: counted, in the emission order (seq) like one collect() receives */
static void eng_count(void *ctx, unsigned rule, unsigned sev)
{
    ub_eng *e = ctx;
    e->seq++;
    ub_collect_count_only(e->fc, rule, sev);
}

static void eng_match(void *ctx, const ub_match *m)
{
    ub_eng *e = ctx;
    unsigned g = m->kind;
    bool want = (e->zmask & UB_STATS_SRT_WS) || (g == 0 && (e->zmask & UB_STATS_SRT)) || (g == 1 && (e->zmask & UB_STATS_MGMT)) ||
                (g == 2 && (e->zmask & UB_STATS_TP));
    if (want && e->lat) ub_lat_add(e->lat, m);
    for (unsigned i = 0; e->hooks && i < e->a->nhooks; i++)
        if (e->a->hooks[i].match) e->a->hooks[i].match(e->a->hooks[i].ctx, m);
}

static void eng_note(void *ctx, const ub_pkt_note *n)
{
    ub_eng *e = ctx;
    if (n->frame == e->cur_frame) e->cur_flags |= n->tp_flags;
    for (unsigned i = 0; e->hooks && i < e->a->nhooks; i++)
        if (e->a->hooks[i].note) e->a->hooks[i].note(e->a->hooks[i].ctx, n);
}

int ub_eng_init(ub_audit *a, ub_eng *e, unsigned layers, uint8_t phase, bool hooks)
{
    memset(e, 0, sizeof *e);
    e->a = a;
    e->phase = phase;
    e->hooks = hooks;
    e->zmask = a->cfg.stats;
    ub_state_cfg c = a->cfg.state;
    c.layers &= layers;
    if (a->cfg.findings && !(e->fc = ub_collect_new(hooks ? a->cfg.rules : NULL, a->cfg.examples))) return -1;
    if (!(e->lat = ub_lat_new())) return -1;
    if (!a->names) a->names = ub_st_names_new(); /* NULL: each engine builds its own */
    e->st = ub_state_new_names(&c, a->cfg.findings || hooks ? eng_finding : NULL, e, a->names);
    if (!e->st) return -1;
    if (e->fc) {
        ub_state_set_keep_cb(e->st, eng_keep);
        ub_st_set_count_cb(e->st, eng_count);
    }
    if ((a->cfg.stats & (UB_STATS_SRT | UB_STATS_MGMT | UB_STATS_TP | UB_STATS_SRT_WS)) || (hooks && a->have_match))
        ub_state_set_match_cb(e->st, eng_match, e);
    /* TP notes: -z ub,tp, the note hook, and ub_audit_last_flags() of a single-engine session */
    if (c.layers & UB_ST_TP) {
        if ((a->cfg.stats & UB_STATS_TP) || hooks || phase == UB_PHASE_LINK) ub_state_set_note_cb(e->st, eng_note, e);
        if ((a->cfg.stats & UB_STATS_TP) && !(e->tp = ub_tps_new())) return -1;
    }
    return 0;
}

void ub_eng_finish(ub_eng *e)
{
    e->cur_pkt = UINT64_MAX;
    e->cur_frame = 0;
    ub_state_finish(e->st);
}

void ub_eng_free(ub_eng *e)
{
    ub_state_free(e->st);
    e->st = NULL;
    ub_collect_free(e->fc);
    e->fc = NULL;
    ub_tps_free(e->tp);
    e->tp = NULL;
    ub_lat_free(e->lat);
    e->lat = NULL;
}

/* ================================================================ session */
ub_audit *ub_audit_new(const ub_audit_cfg *cfg, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    if (!cfg) {
        snprintf(err, errlen, "audit session: no configuration");
        return NULL;
    }
    if (cfg->jobs > UB_AUDIT_MAX_JOBS) {
        snprintf(err, errlen, "audit session: jobs must be 1..%u", UB_AUDIT_MAX_JOBS);
        return NULL;
    }
    ub_audit *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "audit session: out of memory");
        return NULL;
    }
    a->cfg = *cfg;
    if (!a->cfg.opts) {
        ub_opts_default(&a->dflt_opts);
        a->cfg.opts = &a->dflt_opts;
    }
    if (a->cfg.jobs == 0) a->cfg.jobs = 1;
    a->jobs = a->cfg.jobs;
    a->engine = a->cfg.findings || (a->cfg.stats & (UB_STATS_TP | UB_STATS_SRT | UB_STATS_MGMT | UB_STATS_SRT_WS));
    if (((a->cfg.stats & UB_STATS_TREE) && !(a->zcfg = ub_zcfg_new())) ||
        !(a->ext = ub_collect_new(a->cfg.rules, a->cfg.examples))) {
        ub_audit_free(a);
        snprintf(err, errlen, "audit session: out of memory");
        return NULL;
    }
    return a;
}

static void hooks_changed(ub_audit *a)
{
    a->have_hooks = a->have_match = false;
    for (unsigned i = 0; i < a->nhooks; i++) {
        a->have_hooks |= a->hooks[i].finding || a->hooks[i].match || a->hooks[i].note;
        a->have_match |= a->hooks[i].match != NULL;
    }
}

void ub_audit_set_hooks(ub_audit *a, const ub_audit_hooks *h)
{
    if (!a || a->started) return; /* hooks are fixed once packets flow */
    a->nhooks = 0;
    if (h) a->hooks[a->nhooks++] = *h;
    hooks_changed(a);
}

int ub_audit_add_hooks(ub_audit *a, const ub_audit_hooks *h)
{
    if (!a || !h || a->started || a->nhooks == UB_AUDIT_MAX_HOOKS) return -1;
    a->hooks[a->nhooks++] = *h;
    hooks_changed(a);
    return 0;
}

unsigned ub_audit_jobs(const ub_audit *a) { return !a ? 0 : a->have_hooks ? 1 : a->jobs; }

/* engines start with the first packet (hooks may be set until then) */
static int start(ub_audit *a)
{
    a->started = true;
    if (!a->engine) return 0;
    if (a->have_hooks) a->jobs = 1;
    if (a->jobs > 1) {
        /* jobs - 1 workers behind the feeding thread; any thread decodes (shard.c). The engines split
         * by layers (no layer's state depends on another's) and by endpoint pairs:
         *   1 worker:  one engine with every layer (as one thread)
         *   2 to 4 workers: link + transport (decode findings, DLL, NW, TP) | transaction (TA, MG),
         *              the others only decode (with one pair group, a link engine of its own would
         *              only add a third engine's per-packet overhead: the transaction engine is the
         *              longest sequential part either way)
         *   5 or more: link | (W - 1) / 2 groups by ub_state_pair_hash, each transport | transaction
         *              (an odd worker left over only decodes)
         * Merged capture points (every engine keeps a hop-copy table), cfg.link_thread 0 (the link
         * engine in the feeding thread) or 1 (tests): link | W - 1 pair engines with every pair layer. */
        const unsigned W = a->jobs - 1, TPL = UB_ST_NW | UB_ST_TP, TAL = UB_ST_TA | UB_ST_MG;
        const unsigned LINKL = a->cfg.findings ? UB_ST_DLL | UB_ST_DECODE : 0; /* audit only */
        const bool split = !ub_pf(a->cfg.opts, UB_PF_MERGED_HOPS) && a->cfg.link_thread < 0;
        ub_shard_spec spec[UB_AUDIT_MAX_JOBS];
        unsigned n = 0;
        a->pairw = 1;
        if (a->cfg.link_thread < 0 && W == 1) {
            spec[n++] = (ub_shard_spec){ LINKL | TPL | TAL, UB_PHASE_LINK, false };
            a->allbits = 1;
        } else if (split && W <= 4) {
            spec[n++] = (ub_shard_spec){ LINKL | TPL, UB_PHASE_LINK, false };
            spec[n++] = (ub_shard_spec){ TAL, UB_PHASE_LINK, false };
            while (n < W) spec[n++] = (ub_shard_spec){ 0, UB_PHASE_PAIR, false };
            a->allbits = 3;
        } else if (split) {
            if (LINKL) spec[n++] = (ub_shard_spec){ LINKL, UB_PHASE_LINK, false };
            a->allbits = n ? 1u : 0u; /* the link engine */
            a->pair0 = n;
            a->pairw = 2;
            a->npair = (W - n) / 2;
            for (unsigned i = 0; i < a->npair; i++) {
                spec[n++] = (ub_shard_spec){ TPL, UB_PHASE_PAIR, true };
                spec[n++] = (ub_shard_spec){ TAL, UB_PHASE_PAIR, true };
            }
            while (n < W) spec[n++] = (ub_shard_spec){ 0, UB_PHASE_PAIR, false };
        } else {
            if (LINKL && a->cfg.link_thread == 0 && ub_eng_init(a, &a->main, LINKL, UB_PHASE_LINK, false) != 0) return -1;
            if (LINKL && a->cfg.link_thread != 0) {
                spec[n++] = (ub_shard_spec){ LINKL, UB_PHASE_LINK, false };
                a->allbits = 1;
            }
            a->pair0 = n;
            a->npair = W > n ? W - n : 1;
            for (unsigned i = 0; i < a->npair; i++) spec[n++] = (ub_shard_spec){ TPL | TAL, UB_PHASE_PAIR, true };
        }
        a->sh = ub_shards_start(a, a->cfg.opts, n, spec, a->allbits, a->pair0, a->npair, a->pairw);
        return a->sh ? 0 : -1;
    }
    if (ub_eng_init(a, &a->main, UB_ST_ALL, UB_PHASE_LINK, a->have_hooks) != 0) return -1;
    a->single = true;
    return 0;
}

static inline void count_packet(ub_audit *a, const ub_view *v, const ub_pktinfo *pi)
{
    a->nunits++;
    a->frames += pi->frame != a->last_frame || a->nunits == 1;
    if (pi->ts_ns > a->max_ts) a->max_ts = pi->ts_ns;
    a->last_frame = pi->frame;
    if (a->zcfg) ub_zcfg_add(a->zcfg, v, v->rec_len);
}

static int packet_other(ub_audit *a, const ub_view *v, const ub_pktinfo *pi);

int ub_audit_packet(ub_audit *a, const ub_view *v, const ub_pktinfo *pi)
{
    if (!a || !a->single || a->finished) return packet_other(a, v, pi);
    count_packet(a, v, pi);
    ub_eng_packet(&a->main, v, pi, a->nunits);
    a->last_flags = a->main.cur_flags;
    return 0;
}

/* not started yet, statistics only, or sharded */
static int packet_other(ub_audit *a, const ub_view *v, const ub_pktinfo *pi)
{
    if (!a || a->finished) return -1;
    if (!a->started && start(a) != 0) return -1;
    if (a->single) return ub_audit_packet(a, v, pi);
    count_packet(a, v, pi);
    if (!a->engine) return 0;
    if (a->main.st) ub_eng_packet(&a->main, v, pi, a->nunits);
    uint64_t dest = a->allbits;
    if (a->npair) { /* link-only traffic (hash 0) goes to pair engine 0 so no packet one engine sees is lost */
        uint64_t h = a->npair > 1 ? ub_state_pair_hash(v) : 0;
        dest |= ((1ull << a->pairw) - 1) << (a->pair0 + a->pairw * (unsigned)(h % a->npair));
    }
    return ub_shards_send(a->sh, dest, v, pi, a->nunits);
}

/* a unit of a threaded session that goes undecoded to the decoding threads (a->raw_units) */
static int raw_unit(ub_audit *a, ub_entry entry, const uint8_t *data, uint32_t len, uint32_t wire, unsigned unit_flags,
                    const ub_pktinfo *pi)
{
    if (a->finished) return -1;
    a->nunits++;
    a->frames += pi->frame != a->last_frame || a->nunits == 1;
    if (pi->ts_ns > a->max_ts) a->max_ts = pi->ts_ns;
    a->last_frame = pi->frame;
    return ub_shards_unit(a->sh, entry, data, len, wire, unit_flags, pi, a->nunits);
}

/* ub_audit_unit but a->raw_units: the first unit, or a session that decodes here */
static __attribute__((noinline)) int unit_other(ub_audit *a, ub_entry entry, const uint8_t *data, uint32_t len,
                                                uint32_t wire, unsigned unit_flags, const ub_pktinfo *pi)
{
    if (!a || a->finished) return -1;
    if (!a->started && start(a) != 0) return -1;
    if (a->sh && !a->main.st && !a->zcfg) { /* threaded, no link engine nor -z ub,cfg in this thread */
        a->raw_units = true;
        return raw_unit(a, entry, data, len, wire, unit_flags, pi);
    }
    if (!a->uv) {
        if (!(a->uv = ub_view_new_tmpl())) return -1;
    }
    ub_decode_wire(a->uv, a->cfg.opts, entry, data, len, wire);
    ub_unit_errors(a->uv, unit_flags, len);
    ub_unit_count(&a->ucnt, a->uv);
    return ub_audit_packet(a, a->uv, pi);
}

int ub_audit_unit(ub_audit *a, ub_entry entry, const uint8_t *data, uint32_t len, uint32_t wire, unsigned unit_flags,
                  const ub_pktinfo *pi)
{
    /* threaded, nothing per unit in this thread: the unit goes undecoded (this path kept free of the
     * decoding path's set-up) */
    if (a && a->raw_units) return raw_unit(a, entry, data, len, wire, unit_flags, pi);
    return unit_other(a, entry, data, len, wire, unit_flags, pi);
}

void ub_audit_unit_counts(const ub_audit *a, ub_unit_counts *c)
{
    if (a) *c = a->ucnt;
    else memset(c, 0, sizeof *c);
}

uint32_t ub_audit_last_flags(const ub_audit *a) { return a && !a->sh ? a->last_flags : 0; }

void ub_audit_set_records(ub_audit *a, uint64_t records)
{
    if (a) a->records = records;
}

void ub_audit_add_finding(ub_audit *a, const ub_finding *f)
{
    if (!a || !f || a->finished) return;
    ub_finding x = *f;
    if (x.severity > UB_SEV_ERROR) x.severity = UB_SEV_ERROR;
    if (x.nframes > UB_FINDING_FRAMES) x.nframes = UB_FINDING_FRAMES;
    if (x.nvalues > 4) x.nvalues = 4;
    if (!hooks_finding(a, &x)) return;
    ub_collect_add(a->ext, &x, a->nunits, UB_PHASE_EXTERNAL, a->ext_seq++);
}

void ub_audit_ip_lost(ub_audit *a, const ub_units_lost *l)
{
    if (!a || !l || !l->ub || !l->first_frame || !a->cfg.findings || !(a->cfg.state.layers & UB_ST_NW)) return;
    ub_finding f = { .rule = UB_R_NW_IP, .severity = UB_SEV_ERROR, .frame = l->first_frame, .key = "IP datagram",
                     .values = { l->fragments, l->bytes }, .nvalues = 2 };
    if (l->last_frame != l->first_frame) f.frames[f.nframes++] = l->last_frame;
    /* §5.2.3 Table 5-4 (NW-03): the fragments of a datagram to a UB port, the rest never seen */
    f.detail = l->evicted ? "IP fragments of a UB datagram never reassembled (given up for newer datagrams, 64 open): "
                            "a UB datagram has DF set and is never fragmented (NW-03)"
                          : "IP fragments of a UB datagram never reassembled (incomplete at the end of the capture): "
                            "a UB datagram has DF set and is never fragmented (NW-03)";
    /* the key as the engine's are printed (addresses, then the Identification); long IPv6 ones in the message */
    char m[128];
    char vl[16] = ""; /* two datagrams of one ID in two VLANs are two (Wireshark's key) */
    if (l->vlan) snprintf(vl, sizeof vl, " VLAN %u", (unsigned)l->vlan);
    int k = snprintf(f.keytext, sizeof f.keytext, "%s->%s ID 0x%x%s", l->src, l->dst, (unsigned)l->ident, vl);
    if (k < 0 || (size_t)k >= sizeof f.keytext) {
        snprintf(f.keytext, sizeof f.keytext, "ID 0x%x%s", (unsigned)l->ident, vl);
        snprintf(m, sizeof m, "%s -> %s", l->src, l->dst);
        f.message = m;
    }
    ub_audit_add_finding(a, &f);
}

static void take_engine(ub_audit *a, ub_eng *e)
{
    if (e->fc) ub_collect_merge(a->all, e->fc);
    if (e->lat) ub_lat_merge(a->lat, e->lat);
    if (e->tp) a->tps[a->ntps++] = e->tp;
    ub_state_stats s;
    ub_state_get_stats(e->st, &s);
    ub_state_stats_add(&a->st, &s);
}

int ub_audit_finish(ub_audit *a)
{
    if (!a) return -1;
    if (a->finished) return 0;
    int rc = 0;
    if (!a->started && start(a) != 0) rc = -1;
    a->finished = true;
    if (a->sh && ub_shards_stop(a->sh, a->nunits != 0, a->last_frame, a->max_ts) != 0) rc = -1;
    ub_shards_counts(a->sh, &a->ucnt);
    if (a->main.st) ub_eng_finish(&a->main);
    a->all = ub_collect_new(a->cfg.rules, a->cfg.examples);
    a->lat = ub_lat_new();
    a->tps = calloc((size_t)ub_shards_count(a->sh) + 1, sizeof *a->tps);
    if (!a->all || !a->lat || !a->tps) return -1;
    if (a->main.st) take_engine(a, &a->main);
    for (unsigned i = 0; i < ub_shards_count(a->sh); i++) take_engine(a, ub_shards_eng(a->sh, i));
    ub_collect_merge(a->all, a->ext);
    a->st.packets = a->nunits;
    return rc;
}

const ub_collect *ub_audit_findings(const ub_audit *a) { return a ? a->all : NULL; }

size_t ub_audit_tp_channels(const ub_audit *a, ub_tp_channel_cb cb, void *ctx)
{
    return a && a->finished && a->tps ? ub_tps_each(a->tps, a->ntps, cb, ctx) : 0;
}

void ub_audit_state_stats(const ub_audit *a, ub_state_stats *st)
{
    if (a) *st = a->st;
    else memset(st, 0, sizeof *st);
}

void ub_audit_print_stats(const ub_audit *a, FILE *f, unsigned which)
{
    if (!a || !a->finished) return;
    which &= a->cfg.stats;
    if ((which & UB_STATS_TREE) && a->zcfg) ub_zcfg_print(a->zcfg, f, a->records ? a->records : a->frames, a->nunits);
    if ((which & UB_STATS_TP) && a->lat) ub_tps_print(a->tps, a->ntps, a->lat, f);
    if ((which & UB_STATS_SRT) && a->lat) ub_lat_print(a->lat, f, 0);
    if ((which & UB_STATS_MGMT) && a->lat) ub_lat_print(a->lat, f, 1);
    if ((which & UB_STATS_SRT_WS) && a->lat) ub_srt_ws_print(a->lat, f);
}

void ub_audit_free(ub_audit *a)
{
    if (!a) return;
    if (a->sh) {
        ub_shards_stop(a->sh, false, 0, 0);
        ub_shards_free(a->sh);
    }
    ub_eng_free(&a->main);
    ub_st_names_free(a->names);
    free(a->uv);
    ub_zcfg_free(a->zcfg);
    ub_collect_free(a->ext);
    ub_collect_free(a->all);
    ub_lat_free(a->lat);
    free(a->tps);
    free(a);
}
