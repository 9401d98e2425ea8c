/* Transports of the scenario runner (runner.h): a ub_io endpoint, an in-memory loopback with a
 * virtual clock (unit tests) and a capture writer for dry runs. */
#include "ubparse/runner.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000000000ull
#define VIRT_EPOCH 1700000000000000000ull /* realtime of virtual clocks */

static uint32_t linktype_of(const ub_opts *o, ub_entry e)
{
    switch (e) {
    case UB_ENTRY_FLIT: return o->dlt_flit;
    case UB_ENTRY_PKT: return o->dlt_pkt;
    case UB_ENTRY_STREAM: return o->dlt_stream;
    case UB_ENTRY_SLL: return 113;
    case UB_ENTRY_SLL2:
    case UB_ENTRY_CFGPH: return 276;
    case UB_ENTRY_ETH: return 1;
    case UB_ENTRY_RAWIP: case UB_ENTRY_IP: /* LINKTYPE_RAW carries IPv4 and IPv6 */
    case UB_ENTRY_TPH: return 101;
    case UB_ENTRY_PCIEFLIT: return o->dlt_pcieflit; /* not UB: PCIe flits replayed as they are */
    default: return o->dlt_flit;
    }
}

/* record of a packet for endpoints without a ub_io: TPH wrapped in IPv4/UDP between two loopback
 * ports, CFGPH in SLL2, everything else unchanged (matches ub_io_record's link types) */
static long plain_record(ub_entry e, const uint8_t *d, uint32_t len, uint8_t dir, uint8_t *out, size_t cap)
{
    if (e == UB_ENTRY_TPH) {
        ub_io_addr a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        struct sockaddr_in *sa = (struct sockaddr_in *)&a.ss, *sb = (struct sockaddr_in *)&b.ss;
        sa->sin_family = sb->sin_family = AF_INET;
        sa->sin_addr.s_addr = htonl(0x7F000001);
        sb->sin_addr.s_addr = htonl(0x7F000002);
        sa->sin_port = htons(49152);
        sb->sin_port = htons(UB_UDP_PORT);
        a.len = b.len = sizeof *sa;
        return dir == UB_DIR_IN ? ub_io_wrap_udp(&b, &a, d, len, out, cap) : ub_io_wrap_udp(&a, &b, d, len, out, cap);
    }
    if (e == UB_ENTRY_CFGPH) {
        if (len + 20 > cap || len == 0) return -1;
        unsigned cfg = d[0] & 0xF;
        uint16_t proto = cfg == 5 ? UB_ETH_P_UB : cfg == 4 ? 0x86DD : 0x0800;
        memset(out, 0, 20);
        out[0] = (uint8_t)(proto >> 8);
        out[1] = (uint8_t)proto;
        out[7] = 1; /* ifindex */
        out[9] = UB_ARPHRD_UB;
        out[10] = dir == UB_DIR_OUT ? 4 : 0; /* PACKET_OUTGOING / PACKET_HOST */
        memcpy(out + 20, d, len);
        return (long)len + 20;
    }
    if (len > cap) return -1;
    memcpy(out, d, len);
    return len;
}

static uint32_t record_linktype(const ub_opts *o, ub_entry e)
{
    return e == UB_ENTRY_TPH ? 101 : e == UB_ENTRY_CFGPH ? 276 : linktype_of(o, e);
}

/* ================================================================ ub_io endpoint */
/* in order; with a second output, each run of packets of one port through its endpoint */
static int io_send(void *c, ub_io_tx *p, unsigned n)
{
    ub_xport_io *x = c;
    if (!x->io2) return ub_io_send(x->io, p, n);
    int sent = 0;
    for (unsigned i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && p[j].port == p[i].port; j++) continue;
        ub_io *io = p[i].port == 1 ? x->io2 : x->io;
        int k = ub_io_send(io, p + i, j - i);
        if (k < 0) { /* nothing can be sent there (ub_io_send): the run fails, as with one output */
            x->err_io = io;
            return -1;
        }
        sent += k;
    }
    return sent;
}
static uint64_t io_now(void *c) { (void)c; return ub_clock_mono(); }
static uint64_t io_sleep(void *c, uint64_t t) { return ub_clock_sleep_until(t, ((ub_xport_io *)c)->spin_ns); }
static uint64_t io_m2r(void *c, uint64_t t) { return ub_io_mono_to_real(&((ub_xport_io *)c)->clk, t); }
static uint64_t io_r2m(void *c, uint64_t t) { return ub_io_real_to_mono(&((ub_xport_io *)c)->clk, t); }
static const char *io_err(void *c)
{
    ub_xport_io *x = c;
    return ub_io_error(x->err_io ? x->err_io : x->io);
}

/* b's counters added to a (failures by errno merged into a's slots) */
static void stats_add(ub_io_stats *a, const ub_io_stats *b)
{
    a->tx_packets += b->tx_packets, a->tx_bytes += b->tx_bytes, a->tx_failed += b->tx_failed;
    a->tx_retries += b->tx_retries, a->tx_calls += b->tx_calls, a->tx_ring_fallback += b->tx_ring_fallback;
    a->tx_err_other += b->tx_err_other;
    for (unsigned i = 0; i < UB_IO_ERRNO_SLOTS && b->tx_err[i].count; i++) {
        unsigned k = 0;
        while (k < UB_IO_ERRNO_SLOTS && a->tx_err[k].count && a->tx_err[k].err != b->tx_err[i].err) k++;
        if (k == UB_IO_ERRNO_SLOTS) {
            a->tx_err_other += b->tx_err[i].count;
            continue;
        }
        a->tx_err[k].err = b->tx_err[i].err;
        a->tx_err[k].count += b->tx_err[i].count;
    }
    a->rx_packets += b->rx_packets, a->rx_bytes += b->rx_bytes, a->rx_filtered += b->rx_filtered;
    a->rx_outgoing += b->rx_outgoing, a->rx_truncated += b->rx_truncated, a->rx_calls += b->rx_calls;
    a->rx_no_kernel_ts += b->rx_no_kernel_ts, a->rx_kernel_drops += b->rx_kernel_drops;
}

static void io_stats(void *c, ub_io_stats *st)
{
    ub_xport_io *x = c;
    ub_io_get_stats(x->io, st);
    if (x->io2) {
        ub_io_stats b;
        ub_io_get_stats(x->io2, &b);
        stats_add(st, &b);
    }
}
static long io_record(void *c, const uint8_t *d, uint32_t len, uint8_t dir, const ub_io_addr *s, const ub_io_addr *t,
                      uint8_t *out, size_t cap)
{
    ub_xport_io *x = c;
    return ub_io_record(dir == UB_DIR_IN && x->rxio ? x->rxio : x->io, d, len, dir, s, t, out, cap);
}

static int io_recv(void *c, ub_io_rx *out, unsigned max, uint64_t deadline)
{
    ub_xport_io *x = c;
    for (;;) {
        uint64_t now = ub_clock_mono();
        int ms = 0;
        if (deadline > now) {
            uint64_t left = deadline - now;
            ms = left >= 1000000 ? (int)(left / 1000000 > 1000 ? 1000 : left / 1000000) : 0;
        }
        int n = ub_io_recv(x->rxio ? x->rxio : x->io, out, max, ms);
        if (n != 0) return n;
        now = ub_clock_mono();
        if (deadline <= now) return 0;
        if (ms == 0) { /* under a millisecond left: short sleeps, then poll again */
            uint64_t t = deadline - now > 50000 ? now + 50000 : deadline;
            ub_clock_sleep_until(t, x->spin_ns);
        }
    }
}

void ub_xport_io_init(ub_xport_io *x, ub_io *io, const ub_opts *o, bool rx, uint64_t spin_ns)
{
    memset(x, 0, sizeof *x);
    ub_opts d;
    if (!o) { ub_opts_default(&d); o = &d; }
    x->io = io;
    x->spin_ns = spin_ns; /* 0: no spinning (clock_nanosleep only) */
    ub_io_clock_sync(&x->clk);
    x->x.ctx = x;
    x->x.entry = ub_io_entry(io);
    x->x.linktype = ub_io_linktype(io, o);
    x->x.mtu = ub_io_mtu(io);
    x->x.rx = rx;
    x->x.send = io_send;
    x->x.recv = io_recv;
    x->x.now = io_now;
    x->x.sleep_until = io_sleep;
    x->x.mono_to_real = io_m2r;
    x->x.real_to_mono = io_r2m;
    x->x.record = io_record;
    x->x.stats = io_stats;
    x->x.error = io_err;
}

int ub_xport_io_set_tx2(ub_xport_io *x, ub_io *io2)
{
    if (io2 && ub_io_entry(io2) != ub_io_entry(x->io)) return -1;
    x->io2 = io2;
    if (io2 && ub_io_mtu(io2) < x->x.mtu) x->x.mtu = ub_io_mtu(io2);
    return 0;
}

int ub_xport_io_set_rx(ub_xport_io *x, ub_io *rxio)
{
    if (rxio && ub_io_entry(rxio) != ub_io_entry(x->io)) return -1;
    x->rxio = rxio;
    x->x.rx = rxio != NULL || x->x.rx;
    return 0;
}

/* ================================================================ in-memory loopback */
typedef struct lpkt {
    uint64_t t;
    uint32_t len;
    uint8_t *data;
} lpkt;

struct ub_loop {
    ub_xport x;
    ub_opts o;
    ub_loop_fn fn;
    void *ctx;
    uint64_t now;
    uint64_t call_cost, pkt_cost;
    uint64_t fail_every, nsent;
    int fail_err;
    lpkt *q;          /* pending answers, sorted by time */
    unsigned nq, capq;
    lpkt *outq;       /* answers returned by the last recv (kept until the next one) */
    unsigned nout;
    ub_io_stats st;
    uint64_t seen;
};

static int lp_send(void *c, ub_io_tx *p, unsigned n)
{
    ub_loop *lp = c;
    lp->now += lp->call_cost;
    lp->st.tx_calls++;
    int sent = 0;
    for (unsigned i = 0; i < n; i++) {
        lp->nsent++;
        if (lp->fail_every && lp->nsent % lp->fail_every == 0) {
            p[i].err = lp->fail_err;
            lp->st.tx_failed++;
            continue;
        }
        lp->now += lp->pkt_cost;
        p[i].err = 0;
        p[i].ts_ns = lp->now + VIRT_EPOCH;
        lp->st.tx_packets++;
        lp->st.tx_bytes += p[i].len;
        sent++;
        lp->seen++;
        if (lp->fn) lp->fn(lp->ctx, lp, p[i].data, p[i].len, lp->now);
    }
    return sent;
}

static void lp_clear_out(ub_loop *lp)
{
    for (unsigned i = 0; i < lp->nout; i++) free(lp->outq[i].data);
    lp->nout = 0;
}

static int lp_recv(void *c, ub_io_rx *out, unsigned max, uint64_t deadline)
{
    ub_loop *lp = c;
    lp_clear_out(lp);
    if (lp->nq && lp->q[0].t > lp->now && deadline && lp->q[0].t <= deadline) lp->now = lp->q[0].t;
    unsigned n = 0;
    while (n < max && lp->nq && lp->q[0].t <= lp->now) {
        lpkt k = lp->q[0];
        memmove(lp->q, lp->q + 1, (lp->nq - 1) * sizeof *lp->q);
        lp->nq--;
        lp->outq[lp->nout++] = k;
        memset(&out[n], 0, sizeof out[n]);
        out[n].data = k.data;
        out[n].len = out[n].origlen = k.len;
        out[n].ts_ns = k.t + VIRT_EPOCH;
        out[n].dir = UB_DIR_IN;
        lp->st.rx_packets++;
        lp->st.rx_bytes += k.len;
        n++;
    }
    if (n == 0 && deadline > lp->now) lp->now = deadline;
    return (int)n;
}

static uint64_t lp_now(void *c) { return ((ub_loop *)c)->now; }
static uint64_t lp_sleep(void *c, uint64_t t)
{
    ub_loop *lp = c;
    if (t > lp->now) lp->now = t;
    return lp->now;
}
static uint64_t v_m2r(void *c, uint64_t t) { (void)c; return t + VIRT_EPOCH; }
static uint64_t v_r2m(void *c, uint64_t t) { (void)c; return t >= VIRT_EPOCH ? t - VIRT_EPOCH : 0; }
static const char *lp_err(void *c) { (void)c; return ""; }
static void lp_stats(void *c, ub_io_stats *st) { *st = ((ub_loop *)c)->st; }
static long lp_record(void *c, const uint8_t *d, uint32_t len, uint8_t dir, const ub_io_addr *s, const ub_io_addr *t,
                      uint8_t *out, size_t cap)
{
    (void)s;
    (void)t;
    return plain_record(((ub_loop *)c)->x.entry, d, len, dir, out, cap);
}

ub_loop *ub_loop_new(ub_entry entry, uint32_t linktype, ub_loop_fn respond, void *ctx)
{
    ub_loop *lp = calloc(1, sizeof *lp);
    if (!lp) return NULL;
    ub_opts_default(&lp->o);
    lp->fn = respond;
    lp->ctx = ctx;
    lp->now = NS;
    lp->capq = 4096;
    lp->q = calloc(lp->capq, sizeof *lp->q);
    lp->outq = calloc(UB_IO_MAX_BATCH, sizeof *lp->outq);
    if (!lp->q || !lp->outq) { ub_loop_free(lp); return NULL; }
    lp->x.ctx = lp;
    lp->x.entry = entry;
    lp->x.linktype = linktype ? linktype : record_linktype(&lp->o, entry);
    lp->x.mtu = 65507;
    lp->x.rx = true;
    lp->x.send = lp_send;
    lp->x.recv = lp_recv;
    lp->x.now = lp_now;
    lp->x.sleep_until = lp_sleep;
    lp->x.mono_to_real = v_m2r;
    lp->x.real_to_mono = v_r2m;
    lp->x.record = lp_record;
    lp->x.stats = lp_stats;
    lp->x.error = lp_err;
    return lp;
}

void ub_loop_free(ub_loop *lp)
{
    if (!lp) return;
    lp_clear_out(lp);
    for (unsigned i = 0; i < lp->nq; i++) free(lp->q[i].data);
    free(lp->q);
    free(lp->outq);
    free(lp);
}

const ub_xport *ub_loop_xport(ub_loop *lp) { return &lp->x; }

int ub_loop_inject(ub_loop *lp, const uint8_t *data, uint32_t len, uint64_t t)
{
    if (lp->nq >= lp->capq) return -1;
    uint8_t *d = malloc(len ? len : 1);
    if (!d) return -1;
    memcpy(d, data, len);
    if (t < lp->now) t = lp->now;
    unsigned i = lp->nq;
    while (i > 0 && lp->q[i - 1].t > t) i--; /* stable: equal times keep their order */
    memmove(lp->q + i + 1, lp->q + i, (lp->nq - i) * sizeof *lp->q);
    lp->q[i] = (lpkt){ t, len, d };
    lp->nq++;
    return 0;
}

void ub_loop_set_cost(ub_loop *lp, uint64_t per_call_ns, uint64_t per_packet_ns)
{
    lp->call_cost = per_call_ns;
    lp->pkt_cost = per_packet_ns;
}
void ub_loop_set_fail(ub_loop *lp, uint64_t every_n, int err)
{
    lp->fail_every = every_n;
    lp->fail_err = err ? err : ENOBUFS;
}
uint64_t ub_loop_now(const ub_loop *lp) { return lp->now; }
uint64_t ub_loop_sent(const ub_loop *lp) { return lp->seen; }

/* ================================================================ dry run */
struct ub_xport_dry {
    ub_xport x;
    ub_opts o;
    ub_capw *w;
    uint64_t now, epoch; /* realtime = now + epoch: the dry run starts at the wall-clock time it ran */
    int werr;
    int port1;      /* the capture's interface of port 1 packets (-1: not added yet) */
    ub_io_stats st;
    char err[256];
    uint8_t rec[65536 + 128];
};

static int dry_send(void *c, ub_io_tx *p, unsigned n)
{
    ub_xport_dry *d = c;
    uint8_t *rec = d->rec;
    int ok = 0;
    for (unsigned i = 0; i < n; i++) {
        long rl = plain_record(d->x.entry, p[i].data, p[i].len, UB_DIR_OUT, rec, sizeof d->rec);
        p[i].ts_ns = d->now + d->epoch;
        p[i].err = 0;
        if (p[i].port == 1 && d->port1 < 0) d->port1 = ub_capw_add_if(d->w, d->x.linktype, "port1");
        int ifx = p[i].port == 1 ? d->port1 : 0;
        if (rl < 0 || ifx < 0 || ub_capw_write(d->w, (uint32_t)ifx, d->now + d->epoch, rec, (uint32_t)rl, UB_DIR_OUT) < 0) {
            p[i].err = EIO;
            d->werr = 1;
            d->st.tx_failed++;
            continue;
        }
        d->st.tx_packets++;
        d->st.tx_bytes += p[i].len;
        ok++;
    }
    d->st.tx_calls++;
    return ok;
}
static int dry_recv(void *c, ub_io_rx *out, unsigned max, uint64_t deadline)
{
    (void)out;
    (void)max;
    ub_xport_dry *d = c;
    if (deadline > d->now) d->now = deadline;
    return 0;
}
static uint64_t dry_now(void *c) { return ((ub_xport_dry *)c)->now; }
static uint64_t dry_sleep(void *c, uint64_t t)
{
    ub_xport_dry *d = c;
    if (t > d->now) d->now = t;
    return d->now;
}
static uint64_t dry_m2r(void *c, uint64_t t) { return t + ((ub_xport_dry *)c)->epoch; }
static uint64_t dry_r2m(void *c, uint64_t t)
{
    ub_xport_dry *d = c;
    return t >= d->epoch ? t - d->epoch : 0;
}
static const char *dry_err(void *c) { return ((ub_xport_dry *)c)->err; }
static void dry_stats(void *c, ub_io_stats *st) { *st = ((ub_xport_dry *)c)->st; }
static long dry_record(void *c, const uint8_t *dd, uint32_t len, uint8_t dir, const ub_io_addr *s, const ub_io_addr *t,
                       uint8_t *out, size_t cap)
{
    (void)s;
    (void)t;
    return plain_record(((ub_xport_dry *)c)->x.entry, dd, len, dir, out, cap);
}

ub_xport_dry *ub_xport_dry_new(const char *path, ub_entry entry, const ub_opts *o, char *err, size_t errlen)
{
    ub_xport_dry *d = calloc(1, sizeof *d);
    if (!d) { snprintf(err, errlen, "out of memory"); return NULL; }
    if (o) d->o = *o;
    else ub_opts_default(&d->o);
    if (entry == UB_ENTRY_STREAM) entry = UB_ENTRY_FLIT;
    d->x.entry = entry;
    d->x.linktype = record_linktype(&d->o, entry);
    d->w = ub_capw_open(path, true, d->x.linktype, err, errlen);
    if (!d->w) { free(d); return NULL; }
    d->now = NS;
    d->epoch = ub_io_now_real() - NS;
    d->port1 = -1;
    d->x.ctx = d;
    d->x.mtu = 65535;
    d->x.rx = false;
    d->x.send = dry_send;
    d->x.recv = dry_recv;
    d->x.now = dry_now;
    d->x.sleep_until = dry_sleep;
    d->x.mono_to_real = dry_m2r;
    d->x.real_to_mono = dry_r2m;
    d->x.record = dry_record;
    d->x.stats = dry_stats;
    d->x.error = dry_err;
    return d;
}

const ub_xport *ub_xport_dry_get(ub_xport_dry *d) { return &d->x; }

int ub_xport_dry_close(ub_xport_dry *d)
{
    if (!d) return 0;
    int rc = ub_capw_close(d->w) < 0 || d->werr ? -1 : 0;
    free(d);
    return rc;
}
