/* Send scheduling for ubreplay and the scenario runner: exact rate arithmetic, absolute deadlines,
 * behind-schedule policy, lateness statistics and the monotonic clock.
 *
 *   deadline(i) = run start + offset(i)        (CLOCK_MONOTONIC, never "previous packet + gap")
 *     original timing   offset = segment base + (capture time since the segment's first packet) / multiplier
 *     --pps R           offset = segment base + n * 1e9 / R                (n = packets in the segment)
 *     --mbps R          offset = segment base + bits before this packet * 1e9 / R
 *     --topspeed        no deadline (0)
 *
 * Rates and multipliers are exact fractions (ub_ratio: "2.5" = 5/2, "1e6", "100k"); every product is
 * formed in 128 bits and divided once (ub_muldiv64), so schedules do not drift or overflow over days
 * of run time or 1e11 packets. A segment is one pass over one input file: a new file or loop starts a
 * new segment whose base is where the previous one ended (plus --loopdelay between loops), so timing
 * never jumps backwards or sideways between files. I/O-free and reentrant (the clock helpers read the
 * system clock only). */
#ifndef UBPARSE_SCHED_H
#define UBPARSE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* floor(a * b / c), computed with a 128-bit product; UINT64_MAX when c == 0 or the quotient does not
 * fit in 64 bits (saturating: a schedule beyond 584 years is "never"). */
uint64_t ub_muldiv64(uint64_t a, uint64_t b, uint64_t c);

/* An exact non-negative rational number. */
typedef struct ub_ratio {
    uint64_t num, den; /* den > 0; reduced */
} ub_ratio;
/* Parse a decimal rate/factor: digits with an optional fraction (at most 9 fractional digits), an
 * optional exponent e[+-]N, an optional suffix k/K (1e3), M (1e6), G (1e9). "1.5M" = 1500000/1.
 * Must be > 0 (and representable: num < 2^63). 0, or -1 with a message. */
int ub_ratio_parse(const char *text, ub_ratio *r, char *err, size_t errlen);
double ub_ratio_value(ub_ratio r);

typedef enum ub_sched_mode {
    UB_SCHED_ORIGINAL = 0, /* capture timestamps / rate (multiplier, default 1) */
    UB_SCHED_PPS,          /* rate packets per second */
    UB_SCHED_BPS,          /* rate bits per second (--mbps x 1e6) */
    UB_SCHED_TOPSPEED,     /* as fast as possible: every deadline is 0 */
} ub_sched_mode;

typedef enum ub_late_policy {
    UB_LATE_BURST = 0, /* keep the absolute schedule: late packets go out at once (catch up) */
    UB_LATE_SLIP,      /* a packet later than the threshold moves the rest of the schedule back by
                        * its lateness (the rate between packets is kept, the total run is longer) */
} ub_late_policy;

typedef struct ub_sched_cfg {
    uint8_t mode;               /* ub_sched_mode */
    ub_ratio rate;              /* multiplier (ORIGINAL), packets/s (PPS), bits/s (BPS) */
    uint32_t overhead;          /* BPS: bytes added to every packet (24 = Ethernet layer 1: preamble
                                 * and SFD 8, FCS 4, inter-packet gap 12); 0 = the bytes handed to the
                                 * output (layer 2 without FCS, or the UDP payload) */
    uint64_t loopdelay_ns;      /* pause between two loops over the input */
    uint8_t late;               /* ub_late_policy */
    uint64_t slip_threshold_ns; /* SLIP: lateness tolerated before the schedule moves (default 0) */
    uint64_t maxgap_ns;         /* ORIGINAL: a gap between two packets longer than this (after the
                                 * multiplier) is shortened to it, the rest of the schedule moved back
                                 * (tcpreplay --maxsleep); 0: none */
} ub_sched_cfg;
void ub_sched_cfg_default(ub_sched_cfg *c); /* original timing, multiplier 1, burst */

typedef struct ub_sched {
    ub_sched_cfg c;
    uint64_t base;         /* offset (ns) of the current segment's time zero */
    uint64_t n;            /* PPS: packets scheduled in the segment */
    uint64_t bytes;        /* BPS: bytes (incl. overhead) scheduled in the segment before this one */
    uint64_t cap_off;      /* ORIGINAL: capture time (ns) since the segment's first packet */
    uint64_t ts_prev;      /* ORIGINAL: capture timestamp of the previous packet */
    bool seg_started;      /* a packet of the current segment was scheduled */
    uint64_t last;         /* deadline of the last packet scheduled */
    uint64_t scheduled;    /* packets scheduled in total */
    uint64_t segments;     /* segments started (files x loops) */
    uint64_t ts_backwards; /* ORIGINAL: capture timestamps that went backwards (gap taken as 0) */
    uint64_t slips;        /* SLIP: times the schedule was moved */
    uint64_t slipped_ns;   /* SLIP: total time the schedule was moved by */
    uint64_t gaps_cut;     /* ORIGINAL: gaps shortened to maxgap_ns */
    uint64_t gaps_cut_ns;  /* the time they lost */
} ub_sched;

void ub_sched_init(ub_sched *s, const ub_sched_cfg *c);
/* Deadline (ns after the run start) of the next packet, given its capture timestamp (ORIGINAL) and
 * the bytes that will be sent (BPS). TOPSPEED: 0. */
uint64_t ub_sched_next(ub_sched *s, uint64_t ts_ns, uint32_t bytes);
/* Deadline the next packet would get in a rate mode without being scheduled (ORIGINAL: the last one). */
uint64_t ub_sched_peek(const ub_sched *s);
/* A new input file (loop = false) or a new loop over the inputs (loop = true) starts: the next
 * packet is scheduled right after the previous segment (plus loopdelay for loops). */
void ub_sched_segment(ub_sched *s, bool loop);
/* Report when a packet with deadline `deadline` was handed to the kernel (SLIP moves the schedule). */
void ub_sched_sent(ub_sched *s, uint64_t deadline, uint64_t sent);

/* ---------------------------------------------------------------- lateness statistics */
/* Log-linear histogram of non-negative values (ns): exact below 64, then 32 sub-buckets per power
 * of two (relative resolution 1/32 = 3.1 %); exact count, sum, min and max. Fixed size, no allocation. */
#define UB_LH_SUB_BITS 5
#define UB_LH_BUCKETS ((64 - UB_LH_SUB_BITS + 1) << UB_LH_SUB_BITS)
typedef struct ub_lathist {
    uint64_t count, min, max;
    uint64_t sum_hi, sum_lo; /* 128-bit sum (mean over 1e11 values of up to 2^64) */
    uint64_t b[UB_LH_BUCKETS];
} ub_lathist;
void ub_lathist_init(ub_lathist *h);
void ub_lathist_add(ub_lathist *h, uint64_t v);
void ub_lathist_merge(ub_lathist *dst, const ub_lathist *src);
/* Value at quantile q (0..1) by nearest rank: the upper edge of the bucket that holds it, never
 * above max (exact below 64 ns and for q = 1). 0 when empty. */
uint64_t ub_lathist_quantile(const ub_lathist *h, double q);
uint64_t ub_lathist_mean(const ub_lathist *h);
/* bucket index of a value and the largest value in a bucket (tests, reports) */
unsigned ub_lathist_bucket(uint64_t v);
uint64_t ub_lathist_bucket_max(unsigned idx);

/* ---------------------------------------------------------------- clock */
uint64_t ub_clock_mono(void); /* CLOCK_MONOTONIC ns */
/* Sleep until CLOCK_MONOTONIC reaches t: clock_nanosleep(TIMER_ABSTIME) to t - spin_ns, then spin on
 * the clock for the last spin_ns (timer slack and wake-up latency are tens of microseconds).
 * Returns the time it woke (>= t unless interrupted by a signal: then earlier). */
uint64_t ub_clock_sleep_until(uint64_t t, uint64_t spin_ns);

/* Duration text: "1.5ms", "250us", "2s", "100ns", "3m"; a bare number is seconds. 0 or -1. */
int ub_parse_duration(const char *text, uint64_t *ns);
/* "1.234 ms" style, 4 significant digits */
size_t ub_format_duration(uint64_t ns, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
