/* Capture replay (ubreplay FILE...): records of any capture ubdump reads, streamed, selected
 * (-Y filter, packet ranges, direction), rewritten (rewrite.h), scheduled (sched.h) and sent through
 * the scenario runner (runner.h), which also receives and judges the answers. The end-of-run report
 * (text or JSON) gives sent / failed / bytes, requested vs achieved rate and lateness percentiles. */
#ifndef UBPARSE_REPLAY_H
#define UBPARSE_REPLAY_H

#include "ubparse/rewrite.h"
#include "ubparse/runner.h"
#include "ubparse/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ub_replay_cfg {
    const ub_opts *opts;
    const char *const *inputs;   /* capture files, "-" = standard input */
    unsigned ninputs;
    const char *filter;          /* -Y: only matching packets are sent */
    /* Two outputs (tcpreplay's --intf2, as tcpprep splits a capture): packets go out on the
     * transport's second output (ub_send_opt.port 1) when they match split_filter, or, with split_dir,
     * when their record was received (pcapng direction in); the others on the first */
    const char *split_filter;
    bool split_dir;
    const char *ranges;          /* "1-100,200,300-" record numbers of one pass over the inputs (1-based) */
    int dir;                     /* only records with this pcapng direction (ub_dir); -1: all */
    bool requests;               /* only transaction / management / enumeration requests a receiver would
                                  * accept: no transport acks, no responses (the recorded ones answer
                                  * another responder), no packets with a bad BCRC/ICRC */
    uint64_t preload;            /* > 0: keep the records in memory, at most this many bytes (loops do
                                  * not re-read the files; standard input is preloaded when looping) */
    ub_sched_cfg sched;
    uint64_t loops;              /* passes over the inputs (0: until --limit/--duration/a cap) */
    uint64_t limit;              /* packets to send in total (0: all) */
    uint64_t duration_ns;        /* stop when the schedule passes this (0: none) */
    uint64_t stats_ns;           /* periodic statistics lines every stats_ns (0: none) */
    FILE *stats_out;             /* where they go (stderr) */
    bool raw_records;            /* send record bytes unchanged (no units, no decode; --raw without edits) */
} ub_replay_cfg;
void ub_replay_cfg_default(ub_replay_cfg *c);

typedef struct ub_replay ub_replay;
ub_replay *ub_replay_new(const ub_replay_cfg *c, char *err, size_t errlen);
void ub_replay_free(ub_replay *rp);
/* The runner callback that feeds lateness back into the schedule (the --late slip policy): set
 * ub_runner_cfg.on_sent = ub_replay_on_sent and on_sent_ctx = the replay before ub_runner_new. */
void ub_replay_on_sent(void *rp, uint64_t deadline, uint64_t sent, int err, uint32_t len);
/* Replay through the runner; rw (may be NULL: unchanged) converts/rewrites every packet into the
 * transport's framing. Returns 0, 1 when a safety cap of the runner stopped it, -1 on an input or
 * send error (message in err), -2 when --on-bad abort stopped it. */
int ub_replay_run(ub_replay *rp, ub_runner *r, ub_rw *rw, char *err, size_t errlen);

typedef struct ub_replay_stats {
    uint64_t records;          /* read (all passes) */
    uint64_t units;            /* decodable units (raw flit streams: several per record) */
    uint64_t selected;         /* after ranges, direction and -Y */
    uint64_t filtered, out_of_range, other_dir, skipped; /* not sent: -Y, ranges, direction, rewrite skip */
    uint64_t port1;            /* of selected: given to the second output (split_filter / split_dir) */
    uint64_t not_request;      /* not sent: --requests */
    uint64_t loops_done;
    uint64_t sched_first, sched_last; /* first/last deadline (ns after start) */
    uint64_t scheduled;
    uint64_t backwards;        /* capture timestamps that went backwards */
    uint64_t slips, slipped_ns;
    uint64_t gaps_cut, gaps_cut_ns; /* gaps longer than sched.maxgap_ns shortened to it; the time saved */
    bool preloaded;
    uint64_t preload_bytes;
} ub_replay_stats;
void ub_replay_get_stats(const ub_replay *rp, ub_replay_stats *st);

/* Is the decoded packet a transaction, management or enumeration request (no TP ack, no response)
 * with good CRCs? */
bool ub_view_is_request(const ub_view *v);

/* The end-of-run report: text (a few lines, like tcpreplay) or a JSON object member list (for
 * ub_report_info.extra_json, or wrapped in {} on its own). rw and runner may be NULL. */
void ub_replay_report(const ub_replay *rp, const ub_runner *r, const ub_rw *rw, FILE *f, bool json);
/* The same, JSON members into a malloc'ed string (NULL on error). */
char *ub_replay_report_json(const ub_replay *rp, const ub_runner *r, const ub_rw *rw);

#ifdef __cplusplus
}
#endif
#endif
