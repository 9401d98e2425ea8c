/* Send scheduling: exact rate arithmetic, segment-based absolute deadlines, lateness histogram,
 * monotonic clock (include/ubparse/sched.h). */
#include "ubparse/sched.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

__extension__ typedef unsigned __int128 u128;

#define NS 1000000000ull

uint64_t ub_muldiv64(uint64_t a, uint64_t b, uint64_t c)
{
    if (c == 0) return UINT64_MAX;
    u128 q = ((u128)a * b) / c;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* floor(x * y / c) where x may already exceed 64 bits (128-bit operand, saturating) */
static uint64_t muldiv128(u128 x, uint64_t y, uint64_t c)
{
    if (c == 0) return UINT64_MAX;
    /* x * y may overflow 128 bits only for absurd inputs: divide first in that case */
    u128 hi_lim = ~(u128)0 / (y ? y : 1);
    if (x > hi_lim) {
        u128 q = x / c, r = x % c;
        u128 a = q * y; /* may still overflow: then saturate */
        if (y && q > ~(u128)0 / y) return UINT64_MAX;
        a += (r * y) / c; /* r < c < 2^64, y < 2^64: fits */
        return a > UINT64_MAX ? UINT64_MAX : (uint64_t)a;
    }
    u128 q = x * y / c;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) { uint64_t t = a % b; a = b; b = t; }
    return a;
}

static int rfail(char *err, size_t errlen, const char *msg, const char *text)
{
    if (errlen) snprintf(err, errlen, "%s: %s", msg, text);
    return -1;
}

int ub_ratio_parse(const char *text, ub_ratio *r, char *err, size_t errlen)
{
    const char *s = text;
    u128 num = 0, den = 1;
    int digits = 0, frac = 0;
    bool dot = false;
    for (; *s; s++) {
        if (*s == '.' && !dot) { dot = true; continue; }
        if (!isdigit((unsigned char)*s)) break;
        if (dot && ++frac > 9) return rfail(err, errlen, "at most 9 decimal places", text);
        num = num * 10 + (u128)(*s - '0');
        if (dot) den *= 10;
        if (++digits > 30) return rfail(err, errlen, "number too long", text);
    }
    if (digits == 0) return rfail(err, errlen, "not a number", text);
    int exp10 = 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        int sign = 1;
        if (*s == '+' || *s == '-') { if (*s == '-') sign = -1; s++; }
        if (!isdigit((unsigned char)*s)) return rfail(err, errlen, "bad exponent", text);
        int e = 0;
        while (isdigit((unsigned char)*s)) { e = e * 10 + (*s - '0'); if (e > 30) return rfail(err, errlen, "exponent too large", text); s++; }
        exp10 = sign * e;
    }
    if (*s == 'k' || *s == 'K') { exp10 += 3; s++; }
    else if (*s == 'M') { exp10 += 6; s++; }
    else if (*s == 'G') { exp10 += 9; s++; }
    if (*s) return rfail(err, errlen, "unexpected text after the number", text);
    for (; exp10 > 0; exp10--) {
        if (num > ((u128)1 << 100)) return rfail(err, errlen, "out of range", text);
        num *= 10;
    }
    for (; exp10 < 0; exp10++) {
        if (den > ((u128)1 << 100)) return rfail(err, errlen, "out of range", text);
        den *= 10;
    }
    if (num == 0) return rfail(err, errlen, "must be greater than 0", text);
    /* reduce, then require 63-bit terms */
    u128 a = num, b = den;
    while (b) { u128 t = a % b; a = b; b = t; }
    num /= a;
    den /= a;
    if (num >= ((u128)1 << 63) || den >= ((u128)1 << 63)) return rfail(err, errlen, "out of range", text);
    r->num = (uint64_t)num;
    r->den = (uint64_t)den;
    return 0;
}

double ub_ratio_value(ub_ratio r) { return r.den ? (double)r.num / (double)r.den : 0.0; }

void ub_sched_cfg_default(ub_sched_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->mode = UB_SCHED_ORIGINAL;
    c->rate.num = c->rate.den = 1;
    c->late = UB_LATE_BURST;
}

void ub_sched_init(ub_sched *s, const ub_sched_cfg *c)
{
    memset(s, 0, sizeof *s);
    s->c = *c;
    if (s->c.rate.num == 0 || s->c.rate.den == 0) s->c.rate.num = s->c.rate.den = 1;
    uint64_t g = gcd64(s->c.rate.num, s->c.rate.den);
    s->c.rate.num /= g;
    s->c.rate.den /= g;
    s->segments = 1;
}

/* offset of the current position inside the segment (before adding the base) */
static uint64_t seg_offset(const ub_sched *s)
{
    const ub_ratio *r = &s->c.rate;
    switch (s->c.mode) {
    case UB_SCHED_PPS: /* n * 1e9 * den / num */
        return muldiv128((u128)s->n * NS, r->den, r->num);
    case UB_SCHED_BPS: /* bytes * 8 * 1e9 * den / num */
        return muldiv128((u128)s->bytes * 8u * NS, r->den, r->num);
    case UB_SCHED_ORIGINAL: /* capture offset / multiplier = cap_off * den / num */
        return muldiv128((u128)s->cap_off, r->den, r->num);
    default:
        return 0;
    }
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t ub_sched_next(ub_sched *s, uint64_t ts_ns, uint32_t bytes)
{
    s->scheduled++;
    if (s->c.mode == UB_SCHED_TOPSPEED) { s->last = 0; return 0; }
    if (s->c.mode == UB_SCHED_ORIGINAL) {
        if (!s->seg_started) s->cap_off = 0;
        else if (ts_ns >= s->ts_prev) {
            const uint64_t gap = ts_ns - s->ts_prev, scaled = muldiv128((u128)gap, s->c.rate.den, s->c.rate.num);
            if (s->c.maxgap_ns && scaled > s->c.maxgap_ns) { /* --maxsleep: a new time zero maxgap after the last */
                s->base = sat_add(s->last, s->c.maxgap_ns);
                s->cap_off = 0;
                s->gaps_cut++;
                s->gaps_cut_ns += scaled - s->c.maxgap_ns;
            } else {
                s->cap_off += gap;
            }
        } else {
            s->ts_backwards++;
        }
        s->ts_prev = ts_ns;
    }
    s->seg_started = true;
    uint64_t d = sat_add(s->base, seg_offset(s));
    if (s->c.mode == UB_SCHED_PPS) s->n++;
    else if (s->c.mode == UB_SCHED_BPS) s->bytes += (uint64_t)bytes + s->c.overhead;
    s->last = d;
    return d;
}

uint64_t ub_sched_peek(const ub_sched *s)
{
    if (s->c.mode == UB_SCHED_TOPSPEED) return 0;
    if (s->c.mode == UB_SCHED_ORIGINAL) return s->last;
    return sat_add(s->base, seg_offset(s));
}

void ub_sched_segment(ub_sched *s, bool loop)
{
    if (!s->seg_started) return; /* empty segment: nothing to continue from */
    uint64_t gap = loop ? s->c.loopdelay_ns : 0;
    switch (s->c.mode) {
    case UB_SCHED_ORIGINAL:
        s->base = sat_add(s->last, gap);
        s->cap_off = 0;
        break;
    case UB_SCHED_PPS:
    case UB_SCHED_BPS:
        if (gap == 0) return; /* the rate continues exactly across files and loops */
        s->base = sat_add(ub_sched_peek(s), gap);
        s->n = 0;
        s->bytes = 0;
        break;
    default:
        return;
    }
    s->seg_started = false;
    s->segments++;
}

void ub_sched_sent(ub_sched *s, uint64_t deadline, uint64_t sent)
{
    if (s->c.late != UB_LATE_SLIP || s->c.mode == UB_SCHED_TOPSPEED || sent <= deadline) return;
    uint64_t late = sent - deadline;
    if (late <= s->c.slip_threshold_ns) return;
    s->base = sat_add(s->base, late);
    s->last = sat_add(s->last, late);
    s->slips++;
    s->slipped_ns = sat_add(s->slipped_ns, late);
}

/* ---------------------------------------------------------------- lateness histogram */
void ub_lathist_init(ub_lathist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

unsigned ub_lathist_bucket(uint64_t v)
{
    if (v < (2u << UB_LH_SUB_BITS)) return (unsigned)v; /* exact below 64 */
    unsigned e = 63u - (unsigned)__builtin_clzll(v);     /* >= SUB_BITS + 1 */
    unsigned m = (unsigned)(v >> (e - UB_LH_SUB_BITS));  /* 32..63 */
    return ((e - UB_LH_SUB_BITS) << UB_LH_SUB_BITS) + m;
}

uint64_t ub_lathist_bucket_max(unsigned idx)
{
    if (idx < (2u << UB_LH_SUB_BITS)) return idx;
    unsigned e = (idx >> UB_LH_SUB_BITS) + UB_LH_SUB_BITS - 1; /* m carries the leading one */
    uint64_t m = (idx & ((1u << UB_LH_SUB_BITS) - 1)) | (1u << UB_LH_SUB_BITS);
    unsigned sh = e - UB_LH_SUB_BITS;
    uint64_t lo = m << sh;
    uint64_t w = 1ull << sh;
    return lo + (w - 1);
}

void ub_lathist_add(ub_lathist *h, uint64_t v)
{
    h->count++;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    uint64_t lo = h->sum_lo + v;
    if (lo < h->sum_lo) h->sum_hi++;
    h->sum_lo = lo;
    h->b[ub_lathist_bucket(v)]++;
}

void ub_lathist_merge(ub_lathist *d, const ub_lathist *s)
{
    if (!s->count) return;
    d->count += s->count;
    if (s->min < d->min) d->min = s->min;
    if (s->max > d->max) d->max = s->max;
    uint64_t lo = d->sum_lo + s->sum_lo;
    d->sum_hi += s->sum_hi + (lo < d->sum_lo);
    d->sum_lo = lo;
    for (unsigned i = 0; i < UB_LH_BUCKETS; i++) d->b[i] += s->b[i];
}

uint64_t ub_lathist_quantile(const ub_lathist *h, double q)
{
    if (!h->count) return 0;
    if (q >= 1.0) return h->max;
    if (q < 0) q = 0;
    /* nearest rank: the smallest value with at least ceil(q * count) values <= it */
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if ((double)rank < q * (double)h->count) rank++;
    if (rank == 0) rank = 1;
    uint64_t acc = 0;
    for (unsigned i = 0; i < UB_LH_BUCKETS; i++) {
        acc += h->b[i];
        if (acc >= rank) {
            uint64_t v = ub_lathist_bucket_max(i);
            return v > h->max ? h->max : v;
        }
    }
    return h->max;
}

uint64_t ub_lathist_mean(const ub_lathist *h)
{
    if (!h->count) return 0;
    u128 s = ((u128)h->sum_hi << 64) | h->sum_lo;
    return (uint64_t)(s / h->count);
}

/* ---------------------------------------------------------------- clock */
uint64_t ub_clock_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

uint64_t ub_clock_sleep_until(uint64_t t, uint64_t spin_ns)
{
    uint64_t now = ub_clock_mono();
    if (now >= t) return now;
    if (t - now > spin_ns) {
        uint64_t w = t - spin_ns;
        struct timespec ts = { (time_t)(w / NS), (long)(w % NS) };
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) return ub_clock_mono();
    }
    while ((now = ub_clock_mono()) < t) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return now;
}

int ub_parse_duration(const char *text, uint64_t *ns)
{
    ub_ratio r;
    char num[64];
    size_t n = strlen(text), k = n;
    while (k > 0 && isalpha((unsigned char)text[k - 1])) k--;
    if (k == 0 || k >= sizeof num) return -1;
    memcpy(num, text, k);
    num[k] = '\0';
    const char *unit = text + k;
    uint64_t mul;
    if (!*unit || strcmp(unit, "s") == 0) mul = NS;
    else if (strcmp(unit, "ms") == 0) mul = 1000000;
    else if (strcmp(unit, "us") == 0) mul = 1000;
    else if (strcmp(unit, "ns") == 0) mul = 1;
    else if (strcmp(unit, "m") == 0 || strcmp(unit, "min") == 0) mul = 60 * NS;
    else if (strcmp(unit, "h") == 0) mul = 3600 * NS;
    else return -1;
    /* "0" is a valid duration */
    if (strspn(num, "0.") == k && strchr(num, '0')) { *ns = 0; return 0; }
    if (ub_ratio_parse(num, &r, NULL, 0) < 0) return -1;
    *ns = ub_muldiv64(r.num, mul, r.den);
    return *ns == UINT64_MAX ? -1 : 0;
}

size_t ub_format_duration(uint64_t ns, char *buf, size_t n)
{
    int w;
    if (ns < 1000) w = snprintf(buf, n, "%llu ns", (unsigned long long)ns);
    else if (ns < 1000000) w = snprintf(buf, n, "%.4g us", (double)ns / 1e3);
    else if (ns < NS) w = snprintf(buf, n, "%.4g ms", (double)ns / 1e6);
    else w = snprintf(buf, n, "%.4g s", (double)ns / 1e9);
    return w < 0 ? 0 : (size_t)w;
}
