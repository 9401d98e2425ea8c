/* Send scheduling (sched.h): exact rate arithmetic at extreme values (days, 1e11 packets, fractional
 * rates), segments across files and loops, behind-schedule policy, lateness histogram. No clock is
 * read: every value is computed. */
#include "ubparse/sched.h"
#include "ubtest.h"

#include <stdlib.h>

static ub_sched mk(int mode, const char *rate)
{
    ub_sched_cfg c;
    ub_sched_cfg_default(&c);
    c.mode = (uint8_t)mode;
    if (rate && ub_ratio_parse(rate, &c.rate, NULL, 0) < 0) abort();
    ub_sched s;
    ub_sched_init(&s, &c);
    return s;
}

static void test_muldiv(void)
{
    CHECK_EQ(ub_muldiv64(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
    CHECK_EQ(ub_muldiv64(UINT64_MAX, 2, 4), UINT64_MAX / 2);
    CHECK_EQ(ub_muldiv64(100000000000ull, 1000000000ull, 1), UINT64_MAX);             /* 1e20 saturates */
    CHECK_EQ(ub_muldiv64(100000000000ull, 1000000000ull, 3000000), 33333333333333ull); /* 1e20 / 3e6 */
    CHECK_EQ(ub_muldiv64(5, 7, 0), UINT64_MAX);
    CHECK_EQ(ub_muldiv64(0, UINT64_MAX, 1), 0);
    CHECK_EQ(ub_muldiv64(1ull << 63, 4, 8), 1ull << 62);
}

static void test_ratio(void)
{
    ub_ratio r;
    char err[128];
    CHECK(ub_ratio_parse("2.5", &r, err, sizeof err) == 0 && r.num == 5 && r.den == 2);
    CHECK(ub_ratio_parse("1e6", &r, err, sizeof err) == 0 && r.num == 1000000 && r.den == 1);
    CHECK(ub_ratio_parse("100k", &r, err, sizeof err) == 0 && r.num == 100000 && r.den == 1);
    CHECK(ub_ratio_parse("1.5M", &r, err, sizeof err) == 0 && r.num == 1500000 && r.den == 1);
    CHECK(ub_ratio_parse("0.000000001", &r, err, sizeof err) == 0 && r.num == 1 && r.den == 1000000000);
    CHECK(ub_ratio_parse("1000.5", &r, err, sizeof err) == 0 && r.num == 2001 && r.den == 2);
    CHECK(ub_ratio_parse("2.5e-3", &r, err, sizeof err) == 0 && r.num == 1 && r.den == 400);
    CHECK(ub_ratio_parse("1.0000000001", &r, err, sizeof err) < 0); /* 10 decimals */
    CHECK(ub_ratio_parse("0", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("0.0", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("abc", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("1x", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("1e40", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("-1", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("", &r, err, sizeof err) < 0);
    CHECK(ub_ratio_parse("9223372036854775808", &r, err, sizeof err) < 0); /* 2^63 */
    CHECK(ub_ratio_parse("9223372036854775807", &r, err, sizeof err) == 0 && r.num == 9223372036854775807ull);
}

static void test_pps(void)
{
    ub_sched s = mk(UB_SCHED_PPS, "3");
    /* 3 pps: 0, 333333333, 666666666, 1e9 exactly: no drift from rounding */
    CHECK_EQ(ub_sched_next(&s, 0, 64), 0);
    CHECK_EQ(ub_sched_next(&s, 0, 64), 333333333);
    CHECK_EQ(ub_sched_next(&s, 0, 64), 666666666);
    CHECK_EQ(ub_sched_next(&s, 0, 64), 1000000000);
    /* packet 1e10 at 3 pps: 1e19 / 3 ns exactly (beyond 64-bit intermediate products) */
    s.n = 10000000000ull;
    CHECK_EQ(ub_sched_next(&s, 0, 64), 3333333333333333333ull);
    /* packet 1e11 at 1 Mpps: 1e14 ns (27.8 hours) */
    s = mk(UB_SCHED_PPS, "1M");
    s.n = 100000000000ull;
    CHECK_EQ(ub_sched_next(&s, 0, 64), 100000000000000ull);
    /* fractional rate 1000.5 pps: packet 2001 at exactly 2 s */
    s = mk(UB_SCHED_PPS, "1000.5");
    s.n = 2001;
    CHECK_EQ(ub_sched_next(&s, 0, 64), 2000000000ull);
    /* 0.001 pps (one packet per 1000 s), packet 1e11: 1e23 ns saturates instead of wrapping */
    s = mk(UB_SCHED_PPS, "0.001");
    s.n = 100000000000ull;
    CHECK_EQ(ub_sched_next(&s, 0, 64), UINT64_MAX);
    /* the largest rate: 2^63-1 pps -> every deadline 0 for the first packets */
    s = mk(UB_SCHED_PPS, "9223372036854775807");
    ub_sched_next(&s, 0, 64);
    CHECK_EQ(ub_sched_next(&s, 0, 64), 0);
    s.n = 100000000000ull;
    CHECK_EQ(ub_sched_next(&s, 0, 64), 10); /* 1e20 / 9.22e18 */
}

static void test_bps(void)
{
    ub_sched_cfg c;
    ub_sched_cfg_default(&c);
    c.mode = UB_SCHED_BPS;
    ub_ratio_parse("1G", &c.rate, NULL, 0); /* 1 Gbit/s */
    ub_sched s;
    ub_sched_init(&s, &c);
    /* 125-byte packets at 1 Gbit/s: one per microsecond, the first at 0 */
    CHECK_EQ(ub_sched_next(&s, 0, 125), 0);
    CHECK_EQ(ub_sched_next(&s, 0, 125), 1000);
    CHECK_EQ(ub_sched_next(&s, 0, 125), 2000);
    /* 1e11 packets later: bytes = 1.25e13, bits * 1e9 = 1e23 needs 128 bits */
    s.bytes = 12500000000000ull;
    CHECK_EQ(ub_sched_next(&s, 0, 125), 100000000000000ull);
    /* layer 1: + 24 bytes per packet */
    c.overhead = 24;
    ub_sched_init(&s, &c);
    ub_sched_next(&s, 0, 125);
    CHECK_EQ(ub_sched_next(&s, 0, 125), 1192);
    /* --mbps 0.000001 (1 bit/s) over 1e15 bytes: saturates */
    ub_ratio_parse("1", &c.rate, NULL, 0);
    ub_sched_init(&s, &c);
    s.bytes = 1000000000000000ull;
    CHECK_EQ(ub_sched_next(&s, 0, 100), UINT64_MAX);
    /* 9.6 kbit/s (fraction-free) with 3-byte packets: 24 bits = 2.5 ms each */
    c.overhead = 0;
    ub_ratio_parse("9.6k", &c.rate, NULL, 0);
    ub_sched_init(&s, &c);
    ub_sched_next(&s, 0, 3);
    CHECK_EQ(ub_sched_next(&s, 0, 3), 2500000);
}

static void test_original(void)
{
    ub_sched s = mk(UB_SCHED_ORIGINAL, "2"); /* twice as fast */
    uint64_t t0 = 1700000000000000000ull;  /* 2023 in epoch ns */
    CHECK_EQ(ub_sched_next(&s, t0, 0), 0);
    CHECK_EQ(ub_sched_next(&s, t0 + 1000, 0), 500);
    CHECK_EQ(ub_sched_next(&s, t0 + 3000, 0), 1500);
    /* a timestamp that goes backwards: gap 0, counted; the next gap is measured from it */
    CHECK_EQ(ub_sched_next(&s, t0 + 2000, 0), 1500);
    CHECK_EQ(s.ts_backwards, 1);
    CHECK_EQ(ub_sched_next(&s, t0 + 2400, 0), 1700);
    /* ten days of capture at multiplier 3: floor(8.64e14 / 3) */
    s = mk(UB_SCHED_ORIGINAL, "3");
    ub_sched_next(&s, t0, 0);
    CHECK_EQ(ub_sched_next(&s, t0 + 864000000000001ull, 0), 288000000000000ull);
    /* multiplier 0.001 (1000 x slower) over ten days: 8.64e17 ns, exact */
    s = mk(UB_SCHED_ORIGINAL, "0.001");
    ub_sched_next(&s, t0, 0);
    CHECK_EQ(ub_sched_next(&s, t0 + 864000000000000ull, 0), 864000000000000000ull);
    /* multiplier 1/3: x3 slower, 1 ns steps become 3 ns */
    s = mk(UB_SCHED_ORIGINAL, "0.333333333");
    ub_sched_next(&s, 0, 0);
    CHECK_EQ(ub_sched_next(&s, 333333333, 0), 1000000000ull);
}

static void test_segments(void)
{
    ub_sched_cfg c;
    ub_sched_cfg_default(&c);
    c.loopdelay_ns = 1000;
    ub_sched s;
    ub_sched_init(&s, &c);
    /* file 1 */
    CHECK_EQ(ub_sched_next(&s, 100, 0), 0);
    CHECK_EQ(ub_sched_next(&s, 200, 0), 100);
    /* file 2 (earlier timestamps than file 1): continues right after, never backwards */
    ub_sched_segment(&s, false);
    CHECK_EQ(ub_sched_next(&s, 50, 0), 100);
    CHECK_EQ(ub_sched_next(&s, 150, 0), 200);
    /* second loop: + loopdelay */
    ub_sched_segment(&s, true);
    CHECK_EQ(ub_sched_next(&s, 100, 0), 1200);
    CHECK_EQ(ub_sched_next(&s, 200, 0), 1300);
    /* an empty segment changes nothing */
    ub_sched_segment(&s, false);
    ub_sched_segment(&s, false);
    CHECK_EQ(ub_sched_next(&s, 7, 0), 1300);
    CHECK_EQ(s.segments, 4);

    /* PPS: loops without delay keep the exact rate, with delay add it once */
    c.mode = UB_SCHED_PPS;
    ub_ratio_parse("1000", &c.rate, NULL, 0);
    c.loopdelay_ns = 0;
    ub_sched_init(&s, &c);
    ub_sched_next(&s, 0, 0);
    ub_sched_next(&s, 0, 0);
    ub_sched_next(&s, 0, 0);
    ub_sched_segment(&s, true);
    CHECK_EQ(ub_sched_next(&s, 0, 0), 3000000);
    c.loopdelay_ns = 500000;
    ub_sched_init(&s, &c);
    ub_sched_next(&s, 0, 0);
    ub_sched_next(&s, 0, 0);
    ub_sched_next(&s, 0, 0);
    ub_sched_segment(&s, true);
    CHECK_EQ(ub_sched_next(&s, 0, 0), 3500000);
    CHECK_EQ(ub_sched_next(&s, 0, 0), 4500000);
    /* TOPSPEED: no deadlines */
    c.mode = UB_SCHED_TOPSPEED;
    ub_sched_init(&s, &c);
    CHECK_EQ(ub_sched_next(&s, 12345, 0), 0);
    CHECK_EQ(ub_sched_next(&s, 99999, 0), 0);
}

static void test_late(void)
{
    ub_sched_cfg c;
    ub_sched_cfg_default(&c);
    c.mode = UB_SCHED_PPS;
    ub_ratio_parse("1000", &c.rate, NULL, 0);
    ub_sched s;
    /* burst: the schedule stays absolute */
    ub_sched_init(&s, &c);
    uint64_t d0 = ub_sched_next(&s, 0, 0), d1 = ub_sched_next(&s, 0, 0);
    ub_sched_sent(&s, d0, d0);
    ub_sched_sent(&s, d1, d1 + 500000);
    CHECK_EQ(ub_sched_next(&s, 0, 0), 2000000);
    CHECK_EQ(s.slips, 0);
    /* slip: the rest moves back by the lateness (beyond the threshold only) */
    c.late = UB_LATE_SLIP;
    c.slip_threshold_ns = 1000;
    ub_sched_init(&s, &c);
    d0 = ub_sched_next(&s, 0, 0);
    d1 = ub_sched_next(&s, 0, 0);
    ub_sched_sent(&s, d0, d0 + 999); /* within the threshold */
    ub_sched_sent(&s, d1, d1 + 500000);
    CHECK_EQ(ub_sched_next(&s, 0, 0), 2500000);
    CHECK_EQ(ub_sched_next(&s, 0, 0), 3500000);
    CHECK_EQ(s.slips, 1);
    CHECK_EQ(s.slipped_ns, 500000);
    /* slip in original timing moves the segment base too */
    c.mode = UB_SCHED_ORIGINAL;
    ub_ratio_parse("1", &c.rate, NULL, 0);
    ub_sched_init(&s, &c);
    d0 = ub_sched_next(&s, 1000, 0);
    ub_sched_sent(&s, d0, d0 + 7000);
    CHECK_EQ(ub_sched_next(&s, 2000, 0), 8000);
}

static void test_hist(void)
{
    ub_lathist h;
    ub_lathist_init(&h);
    CHECK_EQ(ub_lathist_quantile(&h, 0.5), 0);
    for (uint64_t v = 1; v <= 100; v++) ub_lathist_add(&h, v);
    CHECK_EQ(h.count, 100);
    CHECK_EQ(h.min, 1);
    CHECK_EQ(h.max, 100);
    CHECK_EQ(ub_lathist_quantile(&h, 0.5), 50); /* exact below 64 */
    CHECK_EQ(ub_lathist_quantile(&h, 1.0), 100);
    uint64_t p99 = ub_lathist_quantile(&h, 0.99);
    CHECK(p99 >= 99 && p99 <= 100);
    CHECK_EQ(ub_lathist_mean(&h), 50); /* 5050 / 100 */
    /* bucket edges: every value lies in its bucket, resolution 1/32 */
    const uint64_t probes[] = { 0, 1, 63, 64, 65, 127, 128, 1000, 123456789, 1ull << 40, (1ull << 40) + 12345,
                                UINT64_MAX - 1, UINT64_MAX };
    for (unsigned i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        uint64_t v = probes[i];
        unsigned b = ub_lathist_bucket(v);
        CHECK(b < UB_LH_BUCKETS);
        CHECK(ub_lathist_bucket_max(b) >= v);
        CHECK(ub_lathist_bucket_max(b) - v <= v / 32);
        if (b) CHECK(ub_lathist_bucket_max(b - 1) < v);
    }
    /* huge values: the 128-bit sum keeps the mean exact */
    ub_lathist_init(&h);
    for (int i = 0; i < 4; i++) ub_lathist_add(&h, 1ull << 63);
    CHECK_EQ(ub_lathist_mean(&h), 1ull << 63);
    CHECK_EQ(ub_lathist_quantile(&h, 0.99), 1ull << 63);
    /* merge */
    ub_lathist a, b2;
    ub_lathist_init(&a);
    ub_lathist_init(&b2);
    for (int i = 0; i < 99; i++) ub_lathist_add(&a, 10);
    ub_lathist_add(&b2, 5000000);
    ub_lathist_merge(&a, &b2);
    CHECK_EQ(a.count, 100);
    CHECK_EQ(ub_lathist_quantile(&a, 0.5), 10);
    CHECK_EQ(ub_lathist_quantile(&a, 0.99), 10);
    CHECK_EQ(ub_lathist_quantile(&a, 0.995), 5000000); /* the bucket edge is capped by max */
    CHECK_EQ(a.max, 5000000);
}

static void test_duration(void)
{
    uint64_t ns;
    CHECK(ub_parse_duration("1.5ms", &ns) == 0 && ns == 1500000);
    CHECK(ub_parse_duration("250us", &ns) == 0 && ns == 250000);
    CHECK(ub_parse_duration("2s", &ns) == 0 && ns == 2000000000ull);
    CHECK(ub_parse_duration("3", &ns) == 0 && ns == 3000000000ull);
    CHECK(ub_parse_duration("0.005", &ns) == 0 && ns == 5000000);
    CHECK(ub_parse_duration("100ns", &ns) == 0 && ns == 100);
    CHECK(ub_parse_duration("10m", &ns) == 0 && ns == 600000000000ull);
    CHECK(ub_parse_duration("0", &ns) == 0 && ns == 0);
    CHECK(ub_parse_duration("0ms", &ns) == 0 && ns == 0);
    CHECK(ub_parse_duration("abc", &ns) < 0);
    CHECK(ub_parse_duration("5xs", &ns) < 0);
    CHECK(ub_parse_duration("", &ns) < 0);
    char b[32];
    ub_format_duration(1500000, b, sizeof b);
    CHECK_STR(b, "1.5 ms");
}

/* --maxsleep: a gap over maxgap (after the multiplier) becomes maxgap; later gaps count from there */
static void test_maxgap(void)
{
    ub_sched s = mk(UB_SCHED_ORIGINAL, "2");
    s.c.maxgap_ns = 50;
    uint64_t t0 = 1700000000000000000ull;
    CHECK_EQ(ub_sched_next(&s, t0, 0), 0);
    CHECK_EQ(ub_sched_next(&s, t0 + 100, 0), 50);       /* 100 / 2 = 50: not over */
    CHECK_EQ(ub_sched_next(&s, t0 + 1100, 0), 100);     /* 500 -> 50 */
    CHECK_EQ(ub_sched_next(&s, t0 + 1130, 0), 115);     /* 30 / 2 after it */
    CHECK_EQ(s.gaps_cut, 1);
    CHECK_EQ(s.gaps_cut_ns, 450);
    CHECK_EQ(ub_sched_next(&s, t0 + 1130 + 86400000000000ull, 0), 165); /* a day -> 50 */
    CHECK_EQ(s.gaps_cut, 2);
    /* a new file continues right after the last packet, as without it */
    ub_sched_segment(&s, false);
    CHECK_EQ(ub_sched_next(&s, 5, 0), 165);
    CHECK_EQ(ub_sched_next(&s, 25, 0), 175);
    /* rate modes ignore it */
    ub_sched p = mk(UB_SCHED_PPS, "1");
    p.c.maxgap_ns = 50;
    ub_sched_next(&p, 0, 0);
    CHECK_EQ(ub_sched_next(&p, 0, 0), 1000000000ull);
}

int main(void)
{
    test_muldiv();
    test_ratio();
    test_pps();
    test_bps();
    test_original();
    test_maxgap();
    test_segments();
    test_late();
    test_hist();
    test_duration();
    return ub_test_finish();
}
