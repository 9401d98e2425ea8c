/* Live capture for the reader (capfile.h ub_cap_open_live): the packets of an interface through the
 * I/O module's receive path (io.c: AF_PACKET, recvmmsg batches, kernel timestamps), turned into
 * capture records as ubpeer/ubreplay record theirs (ub_io_record). Receive only: the endpoint is opened
 * without a transmit side. One allocation (state + one record buffer), none per packet. */
#define _GNU_SOURCE 1 /* SO_ATTACH_FILTER */
#include "cap_int.h"
#include "ubparse/io.h"

#include <errno.h>
#include <linux/filter.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum { LIVE_BATCH = 64, LIVE_POLL_MS = 200 };

typedef struct live {
    ub_io *io;
    const volatile sig_atomic_t *stop;
    uint32_t linktype;
    uint32_t snaplen; /* records are cut here (after io.c re-inserted a VLAN tag, as the wire had it) */
    bool copy;        /* the record is not the packet's bytes as they are (SLL2 header): built in rec */
    unsigned n, i;    /* rx[i..n) not yet returned */
    ub_io_rx rx[LIVE_BATCH];
    uint8_t rec[UB_IO_DEFAULT_SNAPLEN + 64];
} live;

static int live_next(void *ctx, ub_rec *r, char *err, size_t errlen)
{
    live *l = ctx;
    while (l->i >= l->n) {
        if (l->stop && *l->stop) return 0;
        int n = ub_io_recv(l->io, l->rx, LIVE_BATCH, LIVE_POLL_MS);
        if (n < 0) {
            snprintf(err, errlen, "%s", ub_io_error(l->io));
            return -1;
        }
        l->n = (unsigned)n;
        l->i = 0;
    }
    const ub_io_rx *p = &l->rx[l->i++];
    *r = (ub_rec){ .data = p->data, .caplen = p->len, .origlen = p->origlen, .ts_ns = p->ts_ns,
                   .linktype = l->linktype, .dir = p->dir };
    if (r->caplen > l->snaplen) r->caplen = l->snaplen;
    if (l->copy) {
        long len = ub_io_record(l->io, p->data, r->caplen, p->dir, NULL, NULL, l->rec, sizeof l->rec);
        if (len < 0) {
            snprintf(err, errlen, "a %u-byte packet does not fit a record", r->caplen);
            return -1;
        }
        r->data = l->rec;
        r->origlen += (uint32_t)len - r->caplen;
        r->caplen = (uint32_t)len;
    }
    return 1;
}

static void live_stats(void *ctx, uint64_t *received, uint64_t *dropped)
{
    live *l = ctx;
    ub_io_stats st;
    ub_io_get_stats(l->io, &st);
    *received = st.rx_packets;
    *dropped = st.rx_kernel_drops;
}

static void live_close(void *ctx)
{
    live *l = ctx;
    ub_io_close(l->io);
    free(l);
}

static const ub_cap_src live_src = { live_next, live_stats, live_close };

int ub_cap_live_filter(ub_capfile *c, const void *insns, unsigned n, char *err, size_t errlen)
{
    live *l = ub_cap_src_ctx(c, &live_src);
    if (!l) { snprintf(err, errlen, "a capture filter needs a live capture"); return -1; }
    if (!insns || !n || n > BPF_MAXINSNS) { snprintf(err, errlen, "a filter of %u instructions", n); return -1; }
    const int fd = ub_io_fd(l->io);
    struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog drop = { 1, &none }, prog = { (unsigned short)n, (struct sock_filter *)(uintptr_t)insns };
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &drop, sizeof drop) < 0) {
        snprintf(err, errlen, "SO_ATTACH_FILTER: %s", strerror(errno));
        return -1;
    }
    char b[1];
    while (recv(fd, b, sizeof b, MSG_DONTWAIT | MSG_TRUNC) >= 0) continue; /* what came before the filter */
    l->n = l->i = 0;
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0) {
        snprintf(err, errlen, "the kernel refused the filter (SO_ATTACH_FILTER: %s)", strerror(errno));
        return -1;
    }
    return 0;
}

ub_capfile *ub_cap_open_live(const char *ifname, unsigned snaplen, bool promisc, const volatile sig_atomic_t *stop,
                             char *err, size_t errlen)
{
    if (!ifname || !*ifname) {
        snprintf(err, errlen, "no interface named");
        return NULL;
    }
    ub_io_cfg cfg;
    ub_io_cfg_default(&cfg);
    cfg.tx = false;           /* nothing is ever sent */
    cfg.keep_outgoing = true; /* both directions, as tcpdump shows them */
    cfg.promisc = promisc;
    cfg.batch = LIVE_BATCH;
    cfg.snaplen = UB_IO_DEFAULT_SNAPLEN; /* whole packets from io.c, cut below */
    int arphrd = ub_io_if_arphrd(ifname);
    if (arphrd < 0) {
        snprintf(err, errlen, "%s: no such interface", ifname);
        return NULL;
    }
    if (!ub_io_framing_for_arphrd(arphrd)) { /* the bytes as they are: loopback's Ethernet header, tun's IP */
        cfg.raw = true;
        if (arphrd == 772) cfg.raw_entry = UB_ENTRY_ETH; /* ARPHRD_LOOPBACK */
        else if (arphrd == 0xFFFE) cfg.raw_entry = UB_ENTRY_RAWIP; /* ARPHRD_NONE (tun) */
        else {
            snprintf(err, errlen, "%s: link type ARPHRD %d is not one ubdump reads live (Ethernet, loopback, tun, UB)",
                     ifname, arphrd);
            return NULL;
        }
    }
    if (arphrd == 772) cfg.keep_outgoing = false; /* loopback: each packet passes out and in, kept once (libpcap) */
    live *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->stop = stop;
    l->snaplen = snaplen && snaplen < UB_IO_DEFAULT_SNAPLEN ? snaplen : UB_IO_DEFAULT_SNAPLEN;
    if (!(l->io = ub_io_open_if(&cfg, ifname, err, errlen))) {
        free(l);
        return NULL;
    }
    ub_opts o;
    ub_opts_default(&o);
    l->linktype = ub_io_linktype(l->io, &o);
    l->copy = ub_io_get_framing(l->io) == UB_IO_FRAME_CFGPH;
    return ub_cap_open_src(&live_src, l, ifname, l->linktype, l->snaplen, err, errlen);
}
