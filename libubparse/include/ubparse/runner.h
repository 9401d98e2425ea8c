/* The scenario runner: blocking primitives of a conformance test over a transport, shared by ubreplay
 * (capture replay, text scenarios) and the Lua bindings (scenario coroutines):
 *
 *   ub_runner_send()    send a packet now or at an absolute time, optionally with a fault
 *                       (drop / corrupt / reorder / duplicate)
 *   ub_runner_expect()  wait for an answer matching a display filter within a window (packetdrill-style
 *                       tolerance: absolute + percentage) -> the matched packet, or a failure that is
 *                       raised as a finding (UB-SC-001 content, UB-SC-002 timing, UB-SC-003 no answer,
 *                       UB-SC-004 unexpected answer)
 *   ub_runner_sleep()   wait (answers keep being received and judged)
 *   ub_runner_finding() raise a finding of any rule (UB-SC-005 or a rule a script registered)
 *
 * Every packet sent and received goes, in one time-ordered stream with directions, to the audit
 * session (ubparse/audit.h: the state engine of ubdump --audit) and to an optional pcapng (--save).
 * Kernel receive timestamps can be older than the send that was recorded before them, so the stream
 * is merged behind a watermark (the start of the last receive call that emptied the socket).
 *
 * Transports (ub_xport) are small vtables: a ub_io endpoint (real clock, kernel timestamps), an
 * in-memory loopback with a virtual clock for unit tests (ub_loop), and a capture writer for dry runs
 * (ub_xport_dry). One runner is used by one thread; a Lua coroutine or the text interpreter calls it. */
#ifndef UBPARSE_RUNNER_H
#define UBPARSE_RUNNER_H

#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/filter.h"
#include "ubparse/io.h"
#include "ubparse/rewrite.h"
#include "ubparse/sched.h"
#include "ubparse/ubparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ transports */
typedef struct ub_xport {
    void *ctx;
    ub_entry entry;        /* framing of every packet sent and received (decoder entry point) */
    uint32_t linktype;     /* pcap link type of the records record() makes */
    unsigned mtu;          /* largest packet (bytes in the framing) */
    bool rx;               /* receives answers */
    /* Send n packets in order (pkts[i].err set per packet). Returns the number handed to the kernel,
     * -1 when nothing can be sent (error()). */
    int (*send)(void *ctx, ub_io_tx *pkts, unsigned n);
    /* Receive up to max packets, waiting until the CLOCK_MONOTONIC time `deadline` for the first one
     * (0: do not wait). ts_ns of the packets: CLOCK_REALTIME. Returns the count, 0, or -1. */
    int (*recv)(void *ctx, ub_io_rx *out, unsigned max, uint64_t deadline);
    uint64_t (*now)(void *ctx);                   /* CLOCK_MONOTONIC ns (or virtual) */
    uint64_t (*sleep_until)(void *ctx, uint64_t t); /* returns the time it woke */
    uint64_t (*mono_to_real)(void *ctx, uint64_t t);
    uint64_t (*real_to_mono)(void *ctx, uint64_t t);
    /* The capture record of a packet (ub_io_record semantics); -1 when cap is too small. */
    long (*record)(void *ctx, const uint8_t *d, uint32_t len, uint8_t dir, const ub_io_addr *src,
                   const ub_io_addr *dst, uint8_t *out, size_t cap);
    void (*stats)(void *ctx, ub_io_stats *st);     /* may be NULL */
    const char *(*error)(void *ctx);
} ub_xport;

/* A transport over a ub_io endpoint: CLOCK_MONOTONIC deadlines with clock_nanosleep(TIMER_ABSTIME)
 * and spin_ns of spinning before each (0: none), kernel timestamps converted with ub_io_clock. rx: the endpoint
 * was opened with reception. The endpoint stays the caller's; ctx points into *x, so x must stay
 * where it is. */
typedef struct ub_xport_io {
    ub_xport x;
    ub_io *io;
    ub_io *rxio;        /* answers received on another endpoint (NULL: io) */
    ub_io *io2;         /* packets sent with port 1 go out here (NULL: everything on io) */
    ub_io *err_io;      /* the endpoint of the last send error */
    ub_io_clock clk;
    uint64_t spin_ns;
} ub_xport_io;
void ub_xport_io_init(ub_xport_io *x, ub_io *io, const ub_opts *o, bool rx, uint64_t spin_ns);
/* Receive the answers on another endpoint of the same framing (ubreplay --rx-iface): e.g. a mirror
 * port, or the far side of a device under test. 0, or -1 when the framings differ. */
int ub_xport_io_set_rx(ub_xport_io *x, ub_io *rxio);
/* A second output (ubreplay -I, tcpreplay's --intf2): packets sent with ub_send_opt.port 1 go out on
 * io2, in order with the others (a batch is split into runs of one port); the statistics are both
 * endpoints'. 0, or -1 when the framings differ. */
int ub_xport_io_set_tx2(ub_xport_io *x, ub_io *io2);

/* In-memory transport with a virtual clock (unit tests, no wall-clock dependence): every packet sent
 * is handed to `respond`, which may inject answers arriving at a virtual time. sleep_until() and
 * recv() advance the virtual clock. The clock starts at 1 s; realtime = virtual + 1.7e18 ns. */
typedef struct ub_loop ub_loop;
typedef void (*ub_loop_fn)(void *ctx, ub_loop *lp, const uint8_t *data, uint32_t len, uint64_t t_sent);
ub_loop *ub_loop_new(ub_entry entry, uint32_t linktype, ub_loop_fn respond, void *ctx);
void ub_loop_free(ub_loop *lp);
const ub_xport *ub_loop_xport(ub_loop *lp);
/* An answer arriving at virtual time t (>= now; earlier times arrive now). 0, or -1 (queue full). */
int ub_loop_inject(ub_loop *lp, const uint8_t *data, uint32_t len, uint64_t t);
/* Virtual time a send call costs: per call + per packet (default 0: sending takes no time). */
void ub_loop_set_cost(ub_loop *lp, uint64_t per_call_ns, uint64_t per_packet_ns);
/* Every n-th packet sent fails with errno err (0: never). */
void ub_loop_set_fail(ub_loop *lp, uint64_t every_n, int err);
uint64_t ub_loop_now(const ub_loop *lp);
uint64_t ub_loop_sent(const ub_loop *lp); /* packets the respond callback saw */

/* Dry run: packets are written to a capture (pcapng) with their scheduled timestamps instead of being
 * sent; virtual clock (no waiting). `entry` is the framing written; packets sent with port 1 go to a
 * second interface of the capture (named "port1"), added when the first one comes. */
typedef struct ub_xport_dry ub_xport_dry;
ub_xport_dry *ub_xport_dry_new(const char *path, ub_entry entry, const ub_opts *o, char *err, size_t errlen);
const ub_xport *ub_xport_dry_get(ub_xport_dry *d);
int ub_xport_dry_close(ub_xport_dry *d); /* closes the capture: 0, or -1 on a write error */

/* ================================================================ the runner */
/* Rules of the runner (severity error): registered in the rule set given to the audit session. */
#define UB_SC_MISMATCH "UB-SC-001"   /* answers came, none matched the expectation (content) */
#define UB_SC_TIMING "UB-SC-002"     /* the expected answer came outside its time window */
#define UB_SC_NOANSWER "UB-SC-003"   /* no answer at all within the window */
#define UB_SC_UNEXPECTED "UB-SC-004" /* an answer an expect-none excluded arrived */
#define UB_SC_SCRIPT "UB-SC-005"     /* a scenario check failed (@check, Lua fail()) */
#define UB_SC_SENDFAIL "UB-SC-006"   /* packets could not be sent (warning) */
/* Add the UB-SC rules to a rule set (before ub_audit_new). 0, or -1 with a message. */
int ub_runner_add_rules(ub_ruleset *rs, char *err, size_t errlen);

typedef struct ub_runner_cfg {
    const ub_opts *opts;          /* decoder options (NULL: defaults) */
    ub_audit *audit;              /* optional: gets every packet, in time order, and the findings */
    const ub_ruleset *rules;      /* the rule set of the audit (with ub_runner_add_rules); NULL: the
                                   * runner counts failures but raises no findings */
    ub_capw *save;                /* optional: combined capture (pcapng, EPB direction flags) */
    uint32_t save_if;             /* its interface (ub_capw_add_if with xport.linktype) */
    ub_rw *rw;                    /* converts packets of other entries to the transport framing
                                   * (NULL: a default one, created on first need) */
    unsigned batch;               /* packets per send call (default 64) */
    unsigned rx_queue;            /* received packets kept for expect() (default 4096; 0: none kept,
                                   * e.g. replay without expectations) */
    uint64_t max_packets;         /* safety cap on packets sent (0: none); reached: send returns 1 */
    uint64_t max_duration_ns;     /* safety cap on the run time (0: none) */
    uint64_t within_ns;           /* default expect window (10 ms) */
    uint64_t tol_abs_ns;          /* default tolerance (1 ms) */
    double tol_pct;               /* default tolerance in % of the window (0) */
    uint64_t late_grace_ns;       /* how long past a window to keep looking, to tell LATE from no
                                   * answer (default: the window, at least 10 ms) */
    uint64_t watermark_ns;        /* receive-timestamp margin of the time-ordered merge (50 us) */
    uint64_t seed;                /* faults (corrupt offset) */
    bool auto_ack;                /* answer the peer's RTP data with transport acks (TPACK/TPNAK/TPSACK)
                                   * as the requester's transport layer must (the RTP receiver of
                                   * peer.h); needed when the recorded acks are not replayed */
    bool resend;                  /* the sender side of the requester's transport layer: RTP data
                                   * the device NAKs is sent again from the TPNAK's PSN (go-back-N,
                                   * §6.4.2.2; the last 4096 data packets are kept) */
    const char *src_uri;          /* scenario file named in findings (SARIF location) */
    /* called for each packet handed to the kernel (or failed): deadline 0 = "now" */
    void (*on_sent)(void *ctx, uint64_t deadline, uint64_t sent_mono, int err, uint32_t len);
    void *on_sent_ctx;
} ub_runner_cfg;
void ub_runner_cfg_default(ub_runner_cfg *c);

typedef struct ub_runner ub_runner;
ub_runner *ub_runner_new(const ub_runner_cfg *cfg, const ub_xport *x, char *err, size_t errlen);
void ub_runner_free(ub_runner *r);
const char *ub_runner_error(const ub_runner *r);
uint64_t ub_runner_now(const ub_runner *r);   /* the transport clock (ns) */
uint64_t ub_runner_start(const ub_runner *r); /* clock value when the runner was created */
ub_entry ub_runner_entry(const ub_runner *r);  /* framing of the transport (packets of other entries
                                                * are converted on send) */
ub_entry ub_runner_record_entry(const ub_runner *r); /* entry of ub_got.data (the capture records) */

/* ---------------------------------------------------------------- sending */
typedef enum ub_fault {
    UB_FAULT_NONE = 0,
    UB_FAULT_DROP,    /* not sent (recorded nowhere: it never reached the wire) */
    UB_FAULT_CORRUPT, /* one byte XORed after all fixups: CRCs become wrong */
    UB_FAULT_REORDER, /* held back and sent after the next `reorder` packets */
    UB_FAULT_DUP,     /* sent twice */
} ub_fault;

typedef struct ub_send_opt {
    uint8_t fault;        /* ub_fault */
    uint32_t corrupt_off; /* CORRUPT: byte offset in the sent bytes (UINT32_MAX: a seeded random byte) */
    uint8_t corrupt_xor;  /* CORRUPT: XOR mask (0: 0xFF) */
    unsigned reorder;     /* REORDER: packets to let pass first (0: 1) */
    uint64_t at;          /* absolute send time on the runner clock (0: now) */
    uint32_t src_line;    /* scenario line (errors, findings) */
    uint8_t port;         /* the transport's output (ub_io_tx.port): 0 the first, 1 the second */
} ub_send_opt;

/* Send one packet of entry `entry` (converted to the transport framing when it differs). Packets due
 * now are batched (cfg.batch per system call); a packet with a future `at` first flushes what is due,
 * then waits (receiving) until `at` and goes out at once. Returns 0, 1 when a safety cap stops the
 * run (nothing more is sent), -1 on an error (ub_runner_error). opt may be NULL. */
int ub_runner_send(ub_runner *r, const uint8_t *p, uint32_t len, ub_entry entry, const ub_send_opt *opt);
/* Hand every queued packet to the kernel now. */
int ub_runner_flush(ub_runner *r);
/* Id of the last packet sent (for ub_runner_finding). */
uint64_t ub_runner_last_seq(const ub_runner *r);
/* Time (runner clock) the send call of the last packet began: the reference of expect() (an answer
 * can arrive before that call returns). Lateness statistics use the time the call returned. */
uint64_t ub_runner_last_send_time(const ub_runner *r);

/* ---------------------------------------------------------------- expecting */
typedef enum ub_expect_status {
    UB_EXP_OK = 0,     /* matched within the window */
    UB_EXP_MISMATCH,   /* answers came, none matched (UB-SC-001) */
    UB_EXP_LATE,       /* matched after the window + tolerance (UB-SC-002) */
    UB_EXP_EARLY,      /* at-mode: matched before at - tolerance (UB-SC-002) */
    UB_EXP_TIMEOUT,    /* nothing came (UB-SC-003) */
    UB_EXP_UNEXPECTED, /* none-mode: a matching answer came (UB-SC-004) */
    UB_EXP_ERROR,      /* bad filter or transport error (ub_runner_error) */
} ub_expect_status;
const char *ub_expect_status_name(int st); /* "ok", "mismatch", "late", ... */

typedef struct ub_expect {
    const char *filter;         /* display filter (compiled by the runner), or: */
    const ub_filter *compiled;  /* an already compiled one (filter then only names it in reports) */
    uint64_t within_ns;         /* window after the reference (0: cfg default) */
    uint64_t at_ns;             /* packetdrill mode: expected at reference + at_ns +- tolerance (0: off) */
    int64_t tol_abs_ns;         /* tolerance (-1: cfg default) */
    double tol_pct;             /* tolerance in % of the window / at time (< 0: cfg default) */
    uint64_t ref;               /* reference time (0: the last send) */
    bool none;                  /* nothing matching may arrive within the window */
    bool quiet;                 /* do not raise a finding on failure (the caller decides) */
    uint32_t src_line;          /* scenario line */
    const char *label;          /* optional text for reports ("Read response") */
} ub_expect;

typedef struct ub_got {
    int status;                 /* ub_expect_status */
    const ub_view *view;        /* matched packet (MISMATCH: the first answer that did not match; NULL
                                 * if none), valid until the next runner call */
    const uint8_t *data;        /* its record bytes (entry below) */
    uint32_t len;
    uint8_t entry;
    uint64_t ts;                /* arrival, runner clock */
    uint64_t latency_ns;        /* arrival - reference (0 if it came before the reference) */
    uint64_t deadline;          /* end of the window incl. tolerance (runner clock) */
    uint64_t seq;               /* id of the packet (findings) */
} ub_got;

/* Wait for a received packet that matches (it is consumed: a later expect will not see it); packets
 * that do not match stay for later expects. On failure a finding is raised (unless e->quiet) with the
 * expected filter and the actual packet in its message, at cfg.src_uri:e->src_line. Returns got->status. */
int ub_runner_expect(ub_runner *r, const ub_expect *e, ub_got *got);

/* Wait ns (answers are received and fed to the audit meanwhile). 0, or 1 when a cap stops the run. */
int ub_runner_sleep(ub_runner *r, uint64_t ns);
/* Keep receiving until time t (runner clock). */
int ub_runner_wait_until(ub_runner *r, uint64_t t);

/* Raise a finding of rule `rule_id` (a rule of cfg.rules); severity -1: the rule's. seqs: packets it
 * cites (ub_got.seq, ub_runner_last_seq), turned into frame numbers of the combined stream. */
int ub_runner_finding(ub_runner *r, const char *rule_id, int severity, const char *message, uint32_t src_line,
                      const uint64_t *seqs, unsigned nseqs);

/* End: flush, receive for drain_ns more, feed everything left to the audit and the capture. Does not
 * finish the audit session (the caller calls ub_audit_finish and writes the reports). */
int ub_runner_finish(ub_runner *r, uint64_t drain_ns);

typedef struct ub_runner_stats {
    uint64_t sent, failed, bytes;     /* packets handed to the kernel / given up; bytes sent */
    uint64_t sent_port1;              /* of sent: on the transport's second output */
    uint64_t retries;                 /* ENOBUFS/EAGAIN retries (transport) */
    uint64_t send_calls;
    uint64_t dropped, corrupted, reordered, duplicated; /* faults injected */
    uint64_t converted, unconvertible;
    uint64_t received, rx_bytes, rx_evicted; /* answers; evicted from the expect queue unconsumed */
    uint64_t recorded;                /* packets fed to the audit / capture (both directions) */
    uint64_t acks_sent;               /* transport acks sent by auto_ack */
    uint64_t resent, naks;            /* resend: data packets sent again, TPNAKs that asked for it */
    uint64_t expects, expect_ok, expect_failed[UB_EXP_ERROR + 1];
    uint64_t late_packets;            /* sent after their deadline (> 0 ns late) */
    ub_lathist lateness;              /* send time - deadline of packets with a deadline */
    uint64_t first_send, last_send;   /* runner clock */
    bool capped;                      /* a safety cap stopped the run */
} ub_runner_stats;
void ub_runner_get_stats(const ub_runner *r, ub_runner_stats *st);

/* ================================================================ text scenarios */
/* The builder's text language (docs/builder.md) with directives (docs/replay.md):
 *   @scenario [entry=ENTRY] [within=T] [tol=T] [tolpct=P] [grace=T] [keep_going=1] [auto_ack=0|1]
 *   @set NAME=EXPR                       integer variables; ${EXPR} is substituted anywhere
 *   @send [fault=drop|corrupt[:OFF[:MASK]]|reorder[:N]|dup] [at=T] [count=N]   then builder lines
 *   @expect FILTER [within=T | at=T] [tol=T] [tolpct=P] [capture NAME=FIELD ...]
 *   @expect-none FILTER within=T
 *   @wait T
 *   @repeat N [VAR] ... @end
 *   @check EXPR [message]                a finding (UB-SC-005) when EXPR is 0
 *   @log TEXT
 * Parse errors name FILE:LINE. */
typedef struct ub_scenario ub_scenario;
ub_scenario *ub_scenario_parse(const char *text, const char *uri, const ub_opts *o, char *err, size_t errlen);
ub_scenario *ub_scenario_load(const char *path, const ub_opts *o, char *err, size_t errlen);
void ub_scenario_free(ub_scenario *s);
/* Defaults from the @scenario line for the runner configuration (within, tolerance, grace, auto_ack). */
void ub_scenario_apply_defaults(const ub_scenario *s, ub_runner_cfg *c);
/* Judge every expectation instead of stopping at the first failure (@scenario keep_going=1). */
void ub_scenario_set_keep_going(ub_scenario *s, bool on);
/* Set a variable before running (ubreplay --var NAME=VALUE). */
int ub_scenario_set_var(ub_scenario *s, const char *name, uint64_t v);
/* Run the scenario. Returns 0 (every expectation met), 1 (failures, raised as findings), 2 (a runtime
 * error: message "FILE:LINE: ..." in err), 3 (a safety cap stopped it). log: @log lines and progress
 * (may be NULL). */
int ub_scenario_run(ub_scenario *s, ub_runner *r, FILE *log, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
