/* Packet I/O for the live tools (include/ubparse/io.h): UDP and AF_PACKET endpoints with batched
 * system calls, kernel timestamps, bounded retries and accounting. Addresses, interface facts, UDP
 * wrapping and capabilities are in io_sys.c. Linux only. */
#define _GNU_SOURCE 1
#include "ubparse/io.h"
#include "ubparse/capfile.h"
#include "io_int.h"
#include "internal.h" /* ub_link_ip_off */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif
#ifndef PACKET_QDISC_BYPASS
#define PACKET_QDISC_BYPASS 20
#endif

enum { CTL_SPACE = 256, RX_HEADROOM = 8 /* room to re-insert one VLAN tag (4) */ };

struct ub_io {
    ub_io_cfg cfg;
    ub_io_kind kind;
    ub_io_framing framing;
    ub_io_txmode txmode;
    int fd;
    int arphrd;
    unsigned ifindex, mtu;
    int family;                 /* UDP socket family */
    ub_io_addr remote, local;
    bool connected;
    bool sw_ignore_outgoing;    /* PACKET_IGNORE_OUTGOING unavailable: drop PACKET_OUTGOING here */
    /* PACKET_TX_RING */
    uint8_t *ring;
    size_t ring_len;
    unsigned ring_nframes, frame_size, ring_head;
    /* reception */
    unsigned slot;              /* bytes per receive slot (headroom + snaplen) */
    uint8_t *rxbuf;
    struct mmsghdr *rxmsg;
    struct iovec *rxiov;
    uint8_t *rxctl;             /* batch * CTL_SPACE */
    struct sockaddr_storage *rxname;
    /* transmission */
    struct mmsghdr *txmsg;
    struct iovec *txiov;
    uint8_t *txctl;
    struct sockaddr_storage *txname;
    unsigned *txidx;            /* txmsg[j] carries pkts[txidx[j]] */
    ub_io_filter_fn filter;
    void *fctx;
    ub_io_stats st;
    char err[256];
};

/* ------------------------------------------------------------------ helpers */
void uio_seterr(char *err, size_t n, const char *fmt, const char *a, int e)
{
    if (!n) return;
    if (e) snprintf(err, n, fmt, a ? a : "", strerror(e));
    else snprintf(err, n, fmt, a ? a : "", "");
}

uint64_t ub_io_now_real(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

uint64_t ub_io_now_mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void ub_io_clock_sync(ub_io_clock *c)
{
    uint64_t best = UINT64_MAX;
    c->mono_minus_real = 0;
    c->uncertainty_ns = 0;
    for (int i = 0; i < 7; i++) {
        uint64_t m1 = ub_io_now_mono(), r = ub_io_now_real(), m2 = ub_io_now_mono();
        uint64_t w = m2 - m1;
        if (w < best) {
            best = w;
            c->mono_minus_real = (int64_t)(m1 + w / 2) - (int64_t)r;
            c->uncertainty_ns = w / 2;
        }
    }
}

uint64_t ub_io_real_to_mono(const ub_io_clock *c, uint64_t real_ns)
{
    return (uint64_t)((int64_t)real_ns + c->mono_minus_real);
}

uint64_t ub_io_mono_to_real(const ub_io_clock *c, uint64_t mono_ns)
{
    return (uint64_t)((int64_t)mono_ns - c->mono_minus_real);
}

void ub_io_cfg_default(ub_io_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->batch = UB_IO_DEFAULT_BATCH;
    c->snaplen = UB_IO_DEFAULT_SNAPLEN;
    c->retry_max = 64;
    c->retry_wait_us = 200;
    c->rx = c->tx = true;
    c->raw_entry = UB_ENTRY_FLIT;
    c->txmode = UB_IO_TX_DEFAULT;
    c->ring_frames = 1024;
}

static void count_err(ub_io_stats *st, int e)
{
    st->tx_failed++;
    for (unsigned i = 0; i < UB_IO_ERRNO_SLOTS; i++) {
        if (st->tx_err[i].err == e) { st->tx_err[i].count++; return; }
        if (st->tx_err[i].err == 0) { st->tx_err[i].err = e; st->tx_err[i].count = 1; return; }
    }
    st->tx_err_other++;
}

uint64_t ub_io_stats_errno(const ub_io_stats *st, int e)
{
    for (unsigned i = 0; i < UB_IO_ERRNO_SLOTS; i++)
        if (st->tx_err[i].err == e) return st->tx_err[i].count;
    return 0;
}

static const char *errname(int e)
{
    switch (e) {
    case ENOBUFS: return "ENOBUFS";
    case EAGAIN: return "EAGAIN";
    case EMSGSIZE: return "EMSGSIZE";
    case ENETDOWN: return "ENETDOWN";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ENXIO: return "ENXIO";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    default: return NULL;
    }
}

void ub_io_stats_print(FILE *f, const ub_io_stats *st)
{
    fprintf(f, "sent %llu packets (%llu bytes) in %llu calls, %llu failed, %llu retries",
            (unsigned long long)st->tx_packets, (unsigned long long)st->tx_bytes, (unsigned long long)st->tx_calls,
            (unsigned long long)st->tx_failed, (unsigned long long)st->tx_retries);
    for (unsigned i = 0; i < UB_IO_ERRNO_SLOTS && st->tx_err[i].err; i++) {
        const char *n = errname(st->tx_err[i].err);
        if (n) fprintf(f, "%s %s %llu", i ? "," : " (", n, (unsigned long long)st->tx_err[i].count);
        else fprintf(f, "%s errno %d %llu", i ? "," : " (", st->tx_err[i].err, (unsigned long long)st->tx_err[i].count);
    }
    if (st->tx_err[0].err) fprintf(f, "%s)", st->tx_err_other ? ", other" : "");
    fprintf(f, "; received %llu packets (%llu bytes), %llu filtered out, %llu truncated, %llu dropped by the kernel\n",
            (unsigned long long)st->rx_packets, (unsigned long long)st->rx_bytes, (unsigned long long)st->rx_filtered,
            (unsigned long long)st->rx_truncated, (unsigned long long)st->rx_kernel_drops);
}

const char *ub_io_error(const ub_io *io) { return io->err; }
ub_io_kind ub_io_get_kind(const ub_io *io) { return io->kind; }
ub_io_framing ub_io_get_framing(const ub_io *io) { return io->framing; }
int ub_io_fd(const ub_io *io) { return io->fd; }
unsigned ub_io_ifindex(const ub_io *io) { return io->ifindex; }
unsigned ub_io_mtu(const ub_io *io) { return io->mtu; }
int ub_io_arphrd(const ub_io *io) { return io->kind == UB_IO_PACKET ? io->arphrd : -1; }
ub_io_txmode ub_io_get_txmode(const ub_io *io) { return io->txmode; }
void ub_io_set_filter(ub_io *io, ub_io_filter_fn fn, void *ctx) { io->filter = fn; io->fctx = ctx; }

ub_entry ub_io_entry(const ub_io *io)
{
    switch (io->framing) {
    case UB_IO_FRAME_TPH: return UB_ENTRY_TPH;
    case UB_IO_FRAME_ETH: return UB_ENTRY_ETH;
    case UB_IO_FRAME_CFGPH: return UB_ENTRY_CFGPH;
    default: return (ub_entry)io->cfg.raw_entry;
    }
}

uint32_t ub_io_linktype(const ub_io *io, const ub_opts *o)
{
    switch (io->framing) {
    case UB_IO_FRAME_TPH: return 101;
    case UB_IO_FRAME_ETH: return 1;
    case UB_IO_FRAME_CFGPH: return 276;
    default:
        switch (io->cfg.raw_entry) {
        case UB_ENTRY_PKT: return o->dlt_pkt;
        case UB_ENTRY_STREAM: return o->dlt_stream;
        case UB_ENTRY_ETH: return 1;
        case UB_ENTRY_RAWIP: case UB_ENTRY_IP: return 101;
        case UB_ENTRY_PCIEFLIT: return o->dlt_pcieflit;
        default: return o->dlt_flit;
        }
    }
}

ub_io_framing ub_io_framing_for_arphrd(int arphrd)
{
    if (arphrd == ARPHRD_ETHER || arphrd == ARPHRD_LOOPBACK) return UB_IO_FRAME_ETH;
    if (arphrd == UB_ARPHRD_UB) return UB_IO_FRAME_CFGPH;
    return (ub_io_framing)0;
}

/* ------------------------------------------------------------------ allocation */
static int alloc_buffers(ub_io *io)
{
    unsigned b = io->cfg.batch;
    if (io->cfg.tx) {
        io->txmsg = calloc(b, sizeof *io->txmsg);
        io->txiov = calloc(b, sizeof *io->txiov);
        io->txctl = calloc(b, CTL_SPACE);
        io->txname = calloc(b, sizeof *io->txname);
        io->txidx = calloc(b, sizeof *io->txidx);
        if (!io->txmsg || !io->txiov || !io->txctl || !io->txname || !io->txidx) return -1;
    }
    if (io->cfg.rx) {
        io->slot = (RX_HEADROOM + io->cfg.snaplen + 15u) & ~15u;
        io->rxbuf = malloc((size_t)b * io->slot);
        io->rxmsg = calloc(b, sizeof *io->rxmsg);
        io->rxiov = calloc(b, sizeof *io->rxiov);
        io->rxctl = calloc(b, CTL_SPACE);
        io->rxname = calloc(b, sizeof *io->rxname);
        if (!io->rxbuf || !io->rxmsg || !io->rxiov || !io->rxctl || !io->rxname) return -1;
    }
    return 0;
}

static ub_io *io_new(const ub_io_cfg *cfg, ub_io_kind kind)
{
    ub_io *io = calloc(1, sizeof *io);
    if (!io) return NULL;
    if (cfg) io->cfg = *cfg;
    else ub_io_cfg_default(&io->cfg);
    if (!io->cfg.batch) io->cfg.batch = UB_IO_DEFAULT_BATCH;
    if (io->cfg.batch > UB_IO_MAX_BATCH) io->cfg.batch = UB_IO_MAX_BATCH;
    if (!io->cfg.snaplen) io->cfg.snaplen = UB_IO_DEFAULT_SNAPLEN;
    if (io->cfg.snaplen > 262144) io->cfg.snaplen = 262144;
    if (!io->cfg.retry_max) io->cfg.retry_max = 64;
    if (!io->cfg.retry_wait_us) io->cfg.retry_wait_us = 200;
    if (!io->cfg.ring_frames) io->cfg.ring_frames = 1024;
    if (!io->cfg.raw_entry) io->cfg.raw_entry = UB_ENTRY_FLIT;
    io->kind = kind;
    io->fd = -1;
    io->arphrd = -1;
    return io;
}

static void set_bufs(int fd, const ub_io_cfg *c)
{
    if (c->sndbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &c->sndbuf, sizeof c->sndbuf) < 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &c->sndbuf, sizeof c->sndbuf);
    if (c->rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &c->rcvbuf, sizeof c->rcvbuf) < 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &c->rcvbuf, sizeof c->rcvbuf);
}

/* ------------------------------------------------------------------ UDP endpoint */
ub_io *ub_io_open_udp(const ub_io_cfg *cfg, const char *remote, const char *local, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    if ((!remote || !*remote) && (!local || !*local)) {
        uio_seterr(err, errlen, "UDP endpoint needs a destination HOST[:PORT] or a local [ADDR:]PORT%s%s", "", 0);
        return NULL;
    }
    ub_io *io = io_new(cfg, UB_IO_UDP);
    if (!io) { uio_seterr(err, errlen, "out of memory%s%s", "", 0); return NULL; }
    io->framing = UB_IO_FRAME_TPH;
    ub_io_addr la;
    bool have_local = false;
    memset(&la, 0, sizeof la);
    if (remote && *remote) {
        if (ub_io_parse_addr(remote, UB_UDP_PORT, &io->remote, err, errlen) < 0) goto fail;
        if (uio_addr_is_any(&io->remote)) { uio_seterr(err, errlen, "destination '%s' has no host%s", remote, 0); goto fail; }
    }
    if (local && *local) {
        if (ub_io_parse_addr(local, 0, &la, err, errlen) < 0) goto fail;
        have_local = true;
    }
    /* family: the remote's; a wildcard local follows it; no remote: the local's (dual-stack) */
    int fam = io->remote.len ? io->remote.ss.ss_family : la.ss.ss_family;
    if (have_local && !uio_addr_is_any(&la) && io->remote.len && la.ss.ss_family != fam) {
        uio_seterr(err, errlen, "local address '%s' and the destination are of different IP versions%s", local, 0);
        goto fail;
    }
    if (have_local && uio_addr_is_any(&la) && la.ss.ss_family != fam) { /* wildcard of the remote's family */
        uint16_t p = ub_io_addr_port(&la);
        memset(&la, 0, sizeof la);
        if (fam == AF_INET) {
            struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(p) };
            memcpy(&la.ss, &s4, sizeof s4);
            la.len = sizeof s4;
        } else {
            struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(p) };
            memcpy(&la.ss, &s6, sizeof s6);
            la.len = sizeof s6;
        }
    }
    io->fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (io->fd < 0 && fam == AF_INET6 && !io->remote.len && uio_addr_is_any(&la)) { /* no IPv6: IPv4 wildcard */
        fam = AF_INET;
        struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(ub_io_addr_port(&la)) };
        memset(&la.ss, 0, sizeof la.ss);
        memcpy(&la.ss, &s4, sizeof s4);
        la.len = sizeof s4;
        io->fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    }
    if (io->fd < 0) { uio_seterr(err, errlen, "UDP socket: %s%s", "", errno); goto fail; }
    io->family = fam;
    int on = 1, off = 0;
    if (fam == AF_INET6) (void)setsockopt(io->fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    (void)setsockopt(io->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    (void)setsockopt(io->fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof on);
    if (fam == AF_INET6) (void)setsockopt(io->fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof on);
    set_bufs(io->fd, &io->cfg);
    if (!have_local) { /* ephemeral port on the wildcard, so ub_io_local_addr and receiving work at once */
        memset(&la, 0, sizeof la);
        if (fam == AF_INET) {
            struct sockaddr_in s4 = { .sin_family = AF_INET };
            memcpy(&la.ss, &s4, sizeof s4);
            la.len = sizeof s4;
        } else {
            struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
            memcpy(&la.ss, &s6, sizeof s6);
            la.len = sizeof s6;
        }
    }
    {
        struct sockaddr_storage ss;
        socklen_t sl;
        uio_addr_to_family(&la, fam, &ss, &sl);
        if (bind(io->fd, (struct sockaddr *)&ss, sl) < 0) {
            char a[80];
            ub_io_addr_str(&la, a, sizeof a);
            uio_seterr(err, errlen, "bind %s: %s", a, errno);
            goto fail;
        }
    }
    if (io->cfg.udp_connect && io->remote.len) {
        struct sockaddr_storage ss;
        socklen_t sl;
        uio_addr_to_family(&io->remote, fam, &ss, &sl);
        if (connect(io->fd, (struct sockaddr *)&ss, sl) < 0) { uio_seterr(err, errlen, "connect: %s%s", "", errno); goto fail; }
        io->connected = true;
    }
    io->local.len = sizeof io->local.ss;
    if (getsockname(io->fd, (struct sockaddr *)&io->local.ss, &io->local.len) < 0) io->local.len = 0;
    uio_addr_norm(&io->local);
    io->mtu = fam == AF_INET ? 65507 : 65527;
    if (alloc_buffers(io) < 0) { uio_seterr(err, errlen, "out of memory%s%s", "", 0); goto fail; }
    return io;
fail:
    ub_io_close(io);
    return NULL;
}

int ub_io_local_addr(const ub_io *io, ub_io_addr *out)
{
    if (io->kind != UB_IO_UDP || !io->local.len) { memset(out, 0, sizeof *out); return -1; }
    *out = io->local;
    return 0;
}

/* ------------------------------------------------------------------ AF_PACKET endpoint */
static int ring_setup(ub_io *io)
{
    int v = TPACKET_V2;
    if (setsockopt(io->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0) return -1;
    unsigned need = (unsigned)TPACKET_ALIGN(sizeof(struct tpacket2_hdr)) + io->mtu + 64;
    unsigned fs = 2048;
    while (fs < need && fs < (1u << 17)) fs <<= 1;
    unsigned bs = fs < 4096 ? 4096 : fs;
    unsigned per = bs / fs;
    unsigned nb = (io->cfg.ring_frames + per - 1) / per;
    if (nb < 1) nb = 1;
    struct tpacket_req req = { .tp_block_size = bs, .tp_block_nr = nb, .tp_frame_size = fs, .tp_frame_nr = nb * per };
    if (setsockopt(io->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof req) < 0) return -1;
    size_t len = (size_t)bs * nb;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, io->fd, 0);
    if (m == MAP_FAILED) return -1;
    io->ring = m;
    io->ring_len = len;
    io->ring_nframes = nb * per;
    io->frame_size = fs;
    io->ring_head = 0;
    return 0;
}

ub_io *ub_io_open_if(const ub_io_cfg *cfg, const char *ifname, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    if (!ifname || !*ifname) { uio_seterr(err, errlen, "no interface named (there is no default interface)%s%s", "", 0); return NULL; }
    if (strlen(ifname) >= IFNAMSIZ) { uio_seterr(err, errlen, "interface name '%s' too long%s", ifname, 0); return NULL; }
    ub_io *io = io_new(cfg, UB_IO_PACKET);
    if (!io) { uio_seterr(err, errlen, "out of memory%s%s", "", 0); return NULL; }
    io->ifindex = if_nametoindex(ifname);
    if (!io->ifindex) { uio_seterr(err, errlen, "no interface '%s'%s", ifname, 0); goto fail; }
    int proto = io->cfg.rx ? htons(ETH_P_ALL) : 0;
    io->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, proto);
    if (io->fd < 0) {
        int e = errno;
        if (e == EPERM || e == EACCES) uio_seterr(err, errlen, "AF_PACKET socket on '%s': %s (needs CAP_NET_RAW)", ifname, e);
        else uio_seterr(err, errlen, "AF_PACKET socket on '%s': %s", ifname, e);
        goto fail;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (ioctl(io->fd, SIOCGIFHWADDR, &ifr) < 0) { uio_seterr(err, errlen, "%s: SIOCGIFHWADDR: %s", ifname, errno); goto fail; }
    io->arphrd = ifr.ifr_hwaddr.sa_family;
    if (ioctl(io->fd, SIOCGIFMTU, &ifr) < 0) { uio_seterr(err, errlen, "%s: SIOCGIFMTU: %s", ifname, errno); goto fail; }
    io->mtu = (unsigned)ifr.ifr_mtu;
    if (ioctl(io->fd, SIOCGIFFLAGS, &ifr) < 0) { uio_seterr(err, errlen, "%s: SIOCGIFFLAGS: %s", ifname, errno); goto fail; }
    if (!(ifr.ifr_flags & IFF_UP)) { uio_seterr(err, errlen, "interface '%s' is down%s", ifname, 0); goto fail; }
    if (io->cfg.raw) io->framing = UB_IO_FRAME_RAW;
    else {
        io->framing = ub_io_framing_for_arphrd(io->arphrd);
        if (!io->framing) {
            char m[64];
            snprintf(m, sizeof m, "%s (ARPHRD %d)", ifname, io->arphrd);
            uio_seterr(err, errlen, "interface %s is neither Ethernet nor a UB link: use raw framing%s", m, 0);
            goto fail;
        }
    }
    /* the frame length the interface takes: MTU + link header */
    if (io->framing == UB_IO_FRAME_ETH) io->mtu += 14 + 4; /* one VLAN tag */
    else if (io->framing == UB_IO_FRAME_CFGPH) io->mtu += 1;
    struct sockaddr_ll sll;
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = (unsigned short)proto;
    sll.sll_ifindex = (int)io->ifindex;
    if (bind(io->fd, (struct sockaddr *)&sll, sizeof sll) < 0) { uio_seterr(err, errlen, "bind to '%s': %s", ifname, errno); goto fail; }
    int on = 1;
    if (io->cfg.rx) {
        (void)setsockopt(io->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
        (void)setsockopt(io->fd, SOL_PACKET, PACKET_AUXDATA, &on, sizeof on);
        if (!io->cfg.keep_outgoing &&
            setsockopt(io->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &on, sizeof on) < 0)
            io->sw_ignore_outgoing = true;
        if (io->cfg.promisc) {
            struct packet_mreq mr;
            memset(&mr, 0, sizeof mr);
            mr.mr_ifindex = (int)io->ifindex;
            mr.mr_type = PACKET_MR_PROMISC;
            if (setsockopt(io->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0) {
                uio_seterr(err, errlen, "promiscuous mode on '%s': %s", ifname, errno);
                goto fail;
            }
        }
    }
    if (io->cfg.qdisc_bypass && setsockopt(io->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &on, sizeof on) < 0) {
        uio_seterr(err, errlen, "PACKET_QDISC_BYPASS on '%s': %s", ifname, errno);
        goto fail;
    }
    set_bufs(io->fd, &io->cfg);
    io->txmode = io->cfg.txmode == UB_IO_TX_RING ? UB_IO_TX_RING : UB_IO_TX_SENDMMSG;
    if (io->cfg.tx && io->txmode == UB_IO_TX_RING && ring_setup(io) < 0) io->txmode = UB_IO_TX_SENDMMSG;
    if (alloc_buffers(io) < 0) { uio_seterr(err, errlen, "out of memory%s%s", "", 0); goto fail; }
    return io;
fail:
    ub_io_close(io);
    return NULL;
}

/* ------------------------------------------------------------------ sending */
static uint16_t frame_protocol(const ub_io *io, const uint8_t *d, uint32_t len)
{
    switch (io->framing) {
    case UB_IO_FRAME_ETH:
        return len >= 14 ? (uint16_t)(d[12] << 8 | d[13]) : 0;
    case UB_IO_FRAME_CFGPH:
        if (!len) return 0;
        return (d[0] & 0x0F) == 5 ? UB_ETH_P_UB : (d[0] & 0x0F) == 4 ? 0x86DD : 0x0800;
    default:
        return ETH_P_ALL;
    }
}

static bool retryable(int e) { return e == ENOBUFS || e == EAGAIN || e == EWOULDBLOCK; }

static void wait_writable(ub_io *io, int e)
{
    unsigned us = io->cfg.retry_wait_us;
    if (e == ENOBUFS) { /* a full qdisc/device queue: the socket itself is writable, so sleep */
        struct timespec t = { 0, (long)us * 1000 };
        nanosleep(&t, NULL);
        return;
    }
    struct pollfd p = { .fd = io->fd, .events = POLLOUT };
    (void)poll(&p, 1, (int)((us + 999) / 1000));
}

/* fill msg j of the batch for pkts[i] (sendmmsg path) */
static int fill_msg(ub_io *io, unsigned j, ub_io_tx *p)
{
    struct msghdr *m = &io->txmsg[j].msg_hdr;
    memset(m, 0, sizeof *m);
    io->txiov[j].iov_base = (void *)p->data;
    io->txiov[j].iov_len = p->len;
    m->msg_iov = &io->txiov[j];
    m->msg_iovlen = 1;
    if (io->kind == UB_IO_UDP) {
        const ub_io_addr *to = p->to ? p->to : (io->remote.len ? &io->remote : NULL);
        if (!io->connected) {
            if (!to || !to->len) return EDESTADDRREQ;
            socklen_t sl;
            uio_addr_to_family(to, io->family, &io->txname[j], &sl);
            m->msg_name = &io->txname[j];
            m->msg_namelen = sl;
        }
        if (p->from && p->from->len && !uio_addr_is_any(p->from)) {
            uint8_t *c = io->txctl + (size_t)j * CTL_SPACE;
            memset(c, 0, CTL_SPACE);
            m->msg_control = c;
            struct cmsghdr *cm = (struct cmsghdr *)c;
            if (p->from->ss.ss_family == AF_INET) {
                struct in_pktinfo pi;
                memset(&pi, 0, sizeof pi);
                pi.ipi_spec_dst = ((const struct sockaddr_in *)&p->from->ss)->sin_addr;
                cm->cmsg_level = IPPROTO_IP;
                cm->cmsg_type = IP_PKTINFO;
                cm->cmsg_len = CMSG_LEN(sizeof pi);
                memcpy(CMSG_DATA(cm), &pi, sizeof pi);
                m->msg_controllen = CMSG_SPACE(sizeof pi);
            } else {
                struct in6_pktinfo pi;
                memset(&pi, 0, sizeof pi);
                pi.ipi6_addr = ((const struct sockaddr_in6 *)&p->from->ss)->sin6_addr;
                cm->cmsg_level = IPPROTO_IPV6;
                cm->cmsg_type = IPV6_PKTINFO;
                cm->cmsg_len = CMSG_LEN(sizeof pi);
                memcpy(CMSG_DATA(cm), &pi, sizeof pi);
                m->msg_controllen = CMSG_SPACE(sizeof pi);
            }
        }
    } else {
        struct sockaddr_ll *sll = (struct sockaddr_ll *)&io->txname[j];
        memset(sll, 0, sizeof *sll);
        sll->sll_family = AF_PACKET;
        sll->sll_ifindex = (int)io->ifindex;
        sll->sll_protocol = htons(frame_protocol(io, p->data, p->len));
        m->msg_name = sll;
        m->msg_namelen = sizeof *sll;
    }
    return 0;
}

static int send_mmsg(ub_io *io, ub_io_tx *pkts, unsigned n)
{
    int sent = 0;
    unsigned i = 0;
    while (i < n) {
        /* a batch of packets that can go (a packet without destination fails on its own) */
        unsigned k = 0;
        while (i < n && k < io->cfg.batch) {
            int e = fill_msg(io, k, &pkts[i]);
            pkts[i].err = 0;
            pkts[i].ts_ns = 0;
            if (e) {
                if (k) break; /* send what is batched first, keeping order */
                pkts[i].err = e;
                count_err(&io->st, e);
                i++;
                continue;
            }
            io->txidx[k++] = i++;
        }
        unsigned j = 0, attempts = 0;
        while (j < k) {
            int r = sendmmsg(io->fd, &io->txmsg[j], k - j, MSG_DONTWAIT);
            io->st.tx_calls++;
            if (r > 0) {
                uint64_t now = ub_io_now_real();
                for (int q = 0; q < r; q++) {
                    ub_io_tx *p = &pkts[io->txidx[j + (unsigned)q]];
                    p->ts_ns = now;
                    io->st.tx_packets++;
                    io->st.tx_bytes += p->len;
                }
                sent += r;
                j += (unsigned)r;
                attempts = 0;
                continue;
            }
            int e = r < 0 ? errno : EIO;
            if (e == EINTR) continue;
            if (retryable(e) && ++attempts < io->cfg.retry_max) {
                io->st.tx_retries++;
                wait_writable(io, e);
                continue;
            }
            if (e == EBADF || e == ENOTSOCK || e == EFAULT) {
                snprintf(io->err, sizeof io->err, "send: %s", strerror(e));
                return -1;
            }
            ub_io_tx *p = &pkts[io->txidx[j]];
            p->err = e;
            count_err(&io->st, e);
            j++;
            attempts = 0;
        }
    }
    return sent;
}

static struct tpacket2_hdr *ring_frame(ub_io *io, unsigned idx)
{
    return (struct tpacket2_hdr *)(io->ring + (size_t)idx * io->frame_size);
}

static int ring_kick(ub_io *io)
{
    unsigned attempts = 0;
    for (;;) {
        ssize_t r = send(io->fd, NULL, 0, MSG_DONTWAIT);
        io->st.tx_calls++;
        if (r >= 0) return 0;
        int e = errno;
        if (e == EINTR) continue;
        if (retryable(e) && ++attempts < io->cfg.retry_max) {
            io->st.tx_retries++;
            wait_writable(io, e);
            continue;
        }
        return e;
    }
}

/* wait until slot idx is free; returns 0 or an errno (the frame could not be reclaimed) */
static int ring_wait_slot(ub_io *io, unsigned idx)
{
    unsigned attempts = 0;
    for (;;) {
        struct tpacket2_hdr *h = ring_frame(io, idx);
        uint32_t s = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
        if (s == TP_STATUS_AVAILABLE) return 0;
        if (s & TP_STATUS_WRONG_FORMAT) { /* the kernel refused an earlier frame */
            count_err(&io->st, EINVAL);
            if (io->st.tx_packets) io->st.tx_packets--;
            __atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
            return 0;
        }
        if (++attempts > io->cfg.retry_max * 4) return ENOBUFS;
        if (s & TP_STATUS_SEND_REQUEST) (void)ring_kick(io);
        struct pollfd p = { .fd = io->fd, .events = POLLOUT };
        (void)poll(&p, 1, (int)((io->cfg.retry_wait_us + 999) / 1000));
    }
}

static int send_ring(ub_io *io, ub_io_tx *pkts, unsigned n)
{
    const unsigned off = (unsigned)TPACKET_ALIGN(sizeof(struct tpacket2_hdr));
    int sent = 0;
    unsigned i = 0;
    while (i < n) {
        unsigned first = i, queued = 0;
        while (i < n && queued < io->cfg.batch) {
            ub_io_tx *p = &pkts[i];
            p->err = 0;
            p->ts_ns = 0;
            if (p->len + off > io->frame_size) { /* bigger than a slot: the sendmmsg path */
                if (queued) break;
                io->st.tx_ring_fallback++;
                int r = send_mmsg(io, p, 1);
                if (r < 0) return -1;
                sent += r;
                i++;
                first = i;
                continue;
            }
            int e = ring_wait_slot(io, io->ring_head);
            if (e) {
                p->err = e;
                count_err(&io->st, e);
                i++;
                continue;
            }
            struct tpacket2_hdr *h = ring_frame(io, io->ring_head);
            memcpy((uint8_t *)h + off, p->data, p->len);
            h->tp_len = p->len;
            __atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
            io->ring_head = (io->ring_head + 1) % io->ring_nframes;
            queued++;
            i++;
        }
        if (!queued) continue;
        int e = ring_kick(io);
        uint64_t now = ub_io_now_real();
        for (unsigned q = first; q < i; q++) {
            if (pkts[q].err) continue;
            if (e && !retryable(e)) {
                pkts[q].err = e;
                count_err(&io->st, e);
                continue;
            }
            /* queued frames stay in the ring: a retryable error is picked up by the next kick */
            pkts[q].ts_ns = now;
            io->st.tx_packets++;
            io->st.tx_bytes += pkts[q].len;
            sent++;
        }
    }
    return sent;
}

int ub_io_send(ub_io *io, ub_io_tx *pkts, unsigned n)
{
    if (!io->cfg.tx || !io->txmsg) {
        snprintf(io->err, sizeof io->err, "endpoint opened without transmission");
        return -1;
    }
    if (io->kind == UB_IO_UDP && !io->remote.len) { /* every packet must name its destination */
        for (unsigned i = 0; i < n; i++)
            if (!pkts[i].to || !pkts[i].to->len) {
                snprintf(io->err, sizeof io->err, "packet %u has no destination", i);
                return -1;
            }
    }
    if (io->kind == UB_IO_PACKET && io->txmode == UB_IO_TX_RING) return send_ring(io, pkts, n);
    return send_mmsg(io, pkts, n);
}

int ub_io_flush(ub_io *io, int timeout_ms)
{
    if (io->kind != UB_IO_PACKET || io->txmode != UB_IO_TX_RING || !io->ring) return 0;
    uint64_t until = ub_io_now_mono() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000ull;
    for (;;) {
        unsigned pending = 0;
        bool request = false;
        for (unsigned k = 0; k < io->ring_nframes; k++) {
            uint32_t s = __atomic_load_n(&ring_frame(io, k)->tp_status, __ATOMIC_ACQUIRE);
            if (s & TP_STATUS_WRONG_FORMAT) {
                count_err(&io->st, EINVAL);
                if (io->st.tx_packets) io->st.tx_packets--;
                __atomic_store_n(&ring_frame(io, k)->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
            } else if (s != TP_STATUS_AVAILABLE) {
                pending++;
                request |= (s & TP_STATUS_SEND_REQUEST) != 0;
            }
        }
        if (!pending) return 0;
        if (ub_io_now_mono() >= until) return (int)pending;
        if (request) (void)ring_kick(io);
        struct pollfd p = { .fd = io->fd, .events = POLLOUT };
        (void)poll(&p, 1, 1);
    }
}

/* ------------------------------------------------------------------ receiving */
int ub_io_recv(ub_io *io, ub_io_rx *out, unsigned max, int timeout_ms)
{
    if (!io->cfg.rx || !io->rxmsg) {
        snprintf(io->err, sizeof io->err, "endpoint opened without reception");
        return -1;
    }
    if (max > io->cfg.batch) max = io->cfg.batch;
    if (!max) return 0;
    if (timeout_ms != 0) {
        struct pollfd p = { .fd = io->fd, .events = POLLIN };
        int r = poll(&p, 1, timeout_ms);
        if (r < 0) {
            if (errno == EINTR) return 0;
            snprintf(io->err, sizeof io->err, "poll: %s", strerror(errno));
            return -1;
        }
        if (r == 0) return 0;
    }
    for (unsigned j = 0; j < max; j++) {
        struct msghdr *m = &io->rxmsg[j].msg_hdr;
        memset(m, 0, sizeof *m);
        io->rxiov[j].iov_base = io->rxbuf + (size_t)j * io->slot + RX_HEADROOM;
        io->rxiov[j].iov_len = io->cfg.snaplen;
        m->msg_iov = &io->rxiov[j];
        m->msg_iovlen = 1;
        m->msg_name = &io->rxname[j];
        m->msg_namelen = sizeof io->rxname[j];
        m->msg_control = io->rxctl + (size_t)j * CTL_SPACE;
        m->msg_controllen = CTL_SPACE;
    }
    int r;
    do {
        r = recvmmsg(io->fd, io->rxmsg, max, MSG_DONTWAIT | MSG_TRUNC, NULL);
    } while (r < 0 && errno == EINTR);
    io->st.rx_calls++;
    if (r < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        snprintf(io->err, sizeof io->err, "recvmmsg: %s", strerror(errno));
        return -1;
    }
    int got = 0;
    uint64_t now = 0;
    for (int j = 0; j < r; j++) {
        struct msghdr *m = &io->rxmsg[j].msg_hdr;
        ub_io_rx *p = &out[got];
        memset(p, 0, sizeof *p);
        uint8_t *d = io->rxbuf + (size_t)j * io->slot + RX_HEADROOM;
        uint32_t orig = io->rxmsg[j].msg_len;
        uint32_t len = orig < io->cfg.snaplen ? orig : io->cfg.snaplen;
        bool have_ts = false, vlan = false;
        uint16_t tci = 0, tpid = 0x8100;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                p->ts_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
                have_ts = true;
            } else if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA) {
                struct tpacket_auxdata ad;
                memcpy(&ad, CMSG_DATA(c), sizeof ad);
                if (ad.tp_status & TP_STATUS_VLAN_VALID) {
                    vlan = true;
                    tci = ad.tp_vlan_tci;
                    if (ad.tp_status & TP_STATUS_VLAN_TPID_VALID) tpid = ad.tp_vlan_tpid;
                }
            } else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
                struct in_pktinfo pi;
                memcpy(&pi, CMSG_DATA(c), sizeof pi);
                struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_addr = pi.ipi_addr };
                s4.sin_port = htons(ub_io_addr_port(&io->local));
                memcpy(&p->to.ss, &s4, sizeof s4);
                p->to.len = sizeof s4;
            } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
                struct in6_pktinfo pi;
                memcpy(&pi, CMSG_DATA(c), sizeof pi);
                struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = pi.ipi6_addr };
                s6.sin6_port = htons(ub_io_addr_port(&io->local));
                memcpy(&p->to.ss, &s6, sizeof s6);
                p->to.len = sizeof s6;
                uio_addr_norm(&p->to);
            }
        }
        if (!have_ts) {
            if (!now) now = ub_io_now_real();
            p->ts_ns = now;
            io->st.rx_no_kernel_ts++;
        }
        p->dir = UB_DIR_IN;
        if (io->kind == UB_IO_PACKET) {
            const struct sockaddr_ll *sll = (const struct sockaddr_ll *)&io->rxname[j];
            p->pkttype = sll->sll_pkttype;
            p->protocol = ntohs(sll->sll_protocol);
            p->ifindex = (uint32_t)sll->sll_ifindex;
            if (p->pkttype == PACKET_OUTGOING) {
                if (io->sw_ignore_outgoing) { io->st.rx_outgoing++; continue; }
                p->dir = UB_DIR_OUT;
            }
            if (vlan && io->framing == UB_IO_FRAME_ETH && len >= 12) { /* put the stripped tag back */
                memmove(d - 4, d, 12);
                d -= 4;
                d[12] = (uint8_t)(tpid >> 8);
                d[13] = (uint8_t)tpid;
                d[14] = (uint8_t)(tci >> 8);
                d[15] = (uint8_t)tci;
                len += 4;
                orig += 4;
            }
        } else {
            p->from.len = m->msg_namelen;
            memcpy(&p->from.ss, &io->rxname[j], sizeof p->from.ss);
            uio_addr_norm(&p->from);
            if (!p->to.len) p->to = io->local;
        }
        p->data = d;
        p->len = len;
        p->origlen = orig;
        if (orig > len) io->st.rx_truncated++;
        if (io->filter && !io->filter(io->fctx, p)) { io->st.rx_filtered++; continue; }
        io->st.rx_packets++;
        io->st.rx_bytes += len;
        got++;
    }
    return got;
}

bool ub_io_filter_uboe(void *ctx, const ub_io_rx *p)
{
    uint16_t port = ctx ? *(const uint16_t *)ctx : UB_UDP_PORT;
    const uint8_t *d = p->data;
    const uint32_t n = p->len, off = ub_link_ip_off(UB_ENTRY_ETH, d, n); /* the decoder's walk: tags, MPLS, LLC/SNAP */
    if (off >= n) return false;
    const unsigned ver = d[off] >> 4;
    uint32_t l4;
    if (ver == 4) {
        if (off + 20 > n || d[off + 9] != 17) return false;
        if ((d[off + 6] & 0x1F) || d[off + 7]) return false; /* a non-first fragment has no UDP header */
        l4 = off + (uint32_t)(d[off] & 0x0F) * 4;
    } else if (ver == 6) {
        if (off + 40 > n || d[off + 6] != 17) return false;
        l4 = off + 40;
    } else {
        return false;
    }
    if (l4 + 8 > n) return false;
    uint16_t sp = (uint16_t)(d[l4] << 8 | d[l4 + 1]), dp = (uint16_t)(d[l4 + 2] << 8 | d[l4 + 3]);
    return dp == port || sp == port;
}

void ub_io_get_stats(ub_io *io, ub_io_stats *st)
{
    if (io->kind == UB_IO_PACKET && io->cfg.rx && io->fd >= 0) {
        struct tpacket_stats ps;
        socklen_t l = sizeof ps;
        if (getsockopt(io->fd, SOL_PACKET, PACKET_STATISTICS, &ps, &l) == 0) io->st.rx_kernel_drops += ps.tp_drops;
    }
    *st = io->st;
}

void ub_io_close(ub_io *io)
{
    if (!io) return;
    if (io->ring) {
        (void)ub_io_flush(io, 1000);
        munmap(io->ring, io->ring_len);
    }
    if (io->fd >= 0) close(io->fd);
    free(io->txmsg);
    free(io->txiov);
    free(io->txctl);
    free(io->txname);
    free(io->txidx);
    free(io->rxbuf);
    free(io->rxmsg);
    free(io->rxiov);
    free(io->rxctl);
    free(io->rxname);
    free(io);
}

/* ------------------------------------------------------------------ recording */
long ub_io_record(const ub_io *io, const uint8_t *data, uint32_t len, uint8_t dir, const ub_io_addr *src,
                  const ub_io_addr *dst, uint8_t *out, size_t cap)
{
    switch (io->framing) {
    case UB_IO_FRAME_TPH: {
        ub_io_addr s, d;
        memset(&s, 0, sizeof s);
        memset(&d, 0, sizeof d);
        if (src && src->len) s = *src;
        if (dst && dst->len) d = *dst;
        if (!s.len) s = io->local;
        if (!d.len) d = io->remote.len ? io->remote : io->local;
        uio_addr_norm(&s);
        uio_addr_norm(&d);
        /* the UB port as destination, whatever port the socket used: every record decodes as UB */
        if (d.ss.ss_family == AF_INET) ((struct sockaddr_in *)&d.ss)->sin_port = htons(UB_UDP_PORT);
        else if (d.ss.ss_family == AF_INET6) ((struct sockaddr_in6 *)&d.ss)->sin6_port = htons(UB_UDP_PORT);
        if (s.len && d.len && s.ss.ss_family != d.ss.ss_family) { /* a wildcard of the other family */
            if (uio_addr_is_any(&s)) {
                memset(&s.ss, 0, sizeof s.ss);
                s.ss.ss_family = d.ss.ss_family;
                s.len = d.len;
            } else return -1;
        }
        return ub_io_wrap_udp(&s, &d, data, len, out, cap);
    }
    case UB_IO_FRAME_CFGPH: {
        if (len + 20 > cap) return -1;
        uint16_t proto = frame_protocol(io, data, len);
        memset(out, 0, 20);
        out[0] = (uint8_t)(proto >> 8);
        out[1] = (uint8_t)proto;
        uint32_t ifx = io->ifindex;
        out[4] = (uint8_t)(ifx >> 24);
        out[5] = (uint8_t)(ifx >> 16);
        out[6] = (uint8_t)(ifx >> 8);
        out[7] = (uint8_t)ifx;
        out[8] = 0;
        out[9] = UB_ARPHRD_UB;
        out[10] = dir == UB_DIR_OUT ? PACKET_OUTGOING : PACKET_HOST;
        memcpy(out + 20, data, len);
        return (long)len + 20;
    }
    default:
        if (len > cap) return -1;
        memcpy(out, data, len);
        return (long)len;
    }
}
