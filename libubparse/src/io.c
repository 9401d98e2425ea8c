/* Packet I/O for the live tools (include/ubparse/io.h): UDP and AF_PACKET endpoints with batched
 * system calls, kernel timestamps, bounded retries and accounting; capability dropping. Linux only. */
#define _GNU_SOURCE 1
#include "ubparse/io.h"
#include "ubparse/capfile.h"

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
static void seterr(char *err, size_t n, const char *fmt, const char *a, int e)
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
        case UB_ENTRY_RAWIP: return 101;
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

/* ------------------------------------------------------------------ addresses */
static bool is_v4mapped(const struct sockaddr_in6 *s)
{
    return IN6_IS_ADDR_V4MAPPED(&s->sin6_addr);
}

/* AF_INET6 v4-mapped -> AF_INET (what callers see); other addresses unchanged */
static void addr_norm(ub_io_addr *a)
{
    if (a->len && a->ss.ss_family == AF_INET6 && is_v4mapped((struct sockaddr_in6 *)&a->ss)) {
        struct sockaddr_in6 s6 = *(struct sockaddr_in6 *)&a->ss;
        struct sockaddr_in s4;
        memset(&s4, 0, sizeof s4);
        s4.sin_family = AF_INET;
        s4.sin_port = s6.sin6_port;
        memcpy(&s4.sin_addr, s6.sin6_addr.s6_addr + 12, 4);
        memset(&a->ss, 0, sizeof a->ss);
        memcpy(&a->ss, &s4, sizeof s4);
        a->len = sizeof s4;
    }
}

/* AF_INET -> v4-mapped AF_INET6 for a dual-stack socket */
static void addr_to_family(const ub_io_addr *in, int family, struct sockaddr_storage *out, socklen_t *len)
{
    if (family == AF_INET6 && in->ss.ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)&in->ss;
        struct sockaddr_in6 s6;
        memset(&s6, 0, sizeof s6);
        s6.sin6_family = AF_INET6;
        s6.sin6_port = s4->sin_port;
        s6.sin6_addr.s6_addr[10] = s6.sin6_addr.s6_addr[11] = 0xff;
        memcpy(s6.sin6_addr.s6_addr + 12, &s4->sin_addr, 4);
        memset(out, 0, sizeof *out);
        memcpy(out, &s6, sizeof s6);
        *len = sizeof s6;
    } else {
        memcpy(out, &in->ss, sizeof *out);
        *len = in->len;
    }
}

uint16_t ub_io_addr_port(const ub_io_addr *a)
{
    if (!a->len) return 0;
    if (a->ss.ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
    if (a->ss.ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
    return 0;
}

size_t ub_io_addr_str(const ub_io_addr *a, char *buf, size_t n)
{
    char h[INET6_ADDRSTRLEN] = "?";
    if (!n) return 0;
    if (!a->len) return (size_t)snprintf(buf, n, "-");
    if (a->ss.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)&a->ss)->sin_addr, h, sizeof h);
        return (size_t)snprintf(buf, n, "%s:%u", h, ub_io_addr_port(a));
    }
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr, h, sizeof h);
    return (size_t)snprintf(buf, n, "[%s]:%u", h, ub_io_addr_port(a));
}

static bool parse_port(const char *s, uint16_t *port)
{
    if (!*s) return false;
    unsigned long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (unsigned long)(*p - '0');
        if (v > 65535) return false;
    }
    *port = (uint16_t)v;
    return true;
}

static bool all_digits(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

int ub_io_parse_addr(const char *text, uint16_t default_port, ub_io_addr *out, char *err, size_t errlen)
{
    char host[256];
    uint16_t port = default_port;
    const char *h = NULL;
    memset(out, 0, sizeof *out);
    if (!text || !*text || strlen(text) >= sizeof host) {
        seterr(err, errlen, "bad address '%s'%s", text ? text : "", 0);
        return -1;
    }
    if (text[0] == '[') { /* [v6] or [v6]:port */
        const char *e = strchr(text, ']');
        if (!e || (e[1] && e[1] != ':')) { seterr(err, errlen, "bad address '%s' (expected [IPV6]:PORT)%s", text, 0); return -1; }
        memcpy(host, text + 1, (size_t)(e - text - 1));
        host[e - text - 1] = '\0';
        h = host;
        if (e[1] == ':' && !parse_port(e + 2, &port)) { seterr(err, errlen, "bad port in '%s'%s", text, 0); return -1; }
    } else if (all_digits(text)) { /* PORT */
        if (!parse_port(text, &port)) { seterr(err, errlen, "bad port '%s'%s", text, 0); return -1; }
    } else if (text[0] == ':' && all_digits(text + 1)) { /* :PORT */
        if (!parse_port(text + 1, &port)) { seterr(err, errlen, "bad port in '%s'%s", text, 0); return -1; }
    } else {
        const char *c = strchr(text, ':');
        if (c && strchr(c + 1, ':')) { /* bare IPv6 */
            snprintf(host, sizeof host, "%s", text);
        } else if (c) {
            memcpy(host, text, (size_t)(c - text));
            host[c - text] = '\0';
            if (!parse_port(c + 1, &port)) { seterr(err, errlen, "bad port in '%s'%s", text, 0); return -1; }
        } else {
            snprintf(host, sizeof host, "%s", text);
        }
        h = host;
    }
    if (!h || !*h) { /* wildcard: dual-stack IPv6 any, the open call falls back to IPv4 */
        struct sockaddr_in6 s6;
        memset(&s6, 0, sizeof s6);
        s6.sin6_family = AF_INET6;
        s6.sin6_addr = in6addr_any;
        s6.sin6_port = htons(port);
        memcpy(&out->ss, &s6, sizeof s6);
        out->len = sizeof s6;
        return 0;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
    char ps[8];
    snprintf(ps, sizeof ps, "%u", port);
    int rc = getaddrinfo(h, ps, &hints, &res);
    if (rc == EAI_ADDRFAMILY || rc == EAI_NONAME) { /* AI_ADDRCONFIG hides ::1/127.0.0.1 without interfaces */
        hints.ai_flags = AI_NUMERICSERV;
        rc = getaddrinfo(h, ps, &hints, &res);
    }
    if (rc != 0 || !res) {
        if (errlen) snprintf(err, errlen, "cannot resolve '%s': %s", h, gai_strerror(rc));
        return -1;
    }
    memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
    out->len = (socklen_t)res->ai_addrlen;
    freeaddrinfo(res);
    addr_norm(out);
    return 0;
}

static bool addr_is_any(const ub_io_addr *a)
{
    if (a->ss.ss_family == AF_INET) return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr == htonl(INADDR_ANY);
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
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
        seterr(err, errlen, "UDP endpoint needs a destination HOST[:PORT] or a local [ADDR:]PORT%s%s", "", 0);
        return NULL;
    }
    ub_io *io = io_new(cfg, UB_IO_UDP);
    if (!io) { seterr(err, errlen, "out of memory%s%s", "", 0); return NULL; }
    io->framing = UB_IO_FRAME_TPH;
    ub_io_addr la;
    bool have_local = false;
    memset(&la, 0, sizeof la);
    if (remote && *remote) {
        if (ub_io_parse_addr(remote, UB_UDP_PORT, &io->remote, err, errlen) < 0) goto fail;
        if (addr_is_any(&io->remote)) { seterr(err, errlen, "destination '%s' has no host%s", remote, 0); goto fail; }
    }
    if (local && *local) {
        if (ub_io_parse_addr(local, 0, &la, err, errlen) < 0) goto fail;
        have_local = true;
    }
    /* family: the remote's; a wildcard local follows it; no remote: the local's (dual-stack) */
    int fam = io->remote.len ? io->remote.ss.ss_family : la.ss.ss_family;
    if (have_local && !addr_is_any(&la) && io->remote.len && la.ss.ss_family != fam) {
        seterr(err, errlen, "local address '%s' and the destination are of different IP versions%s", local, 0);
        goto fail;
    }
    if (have_local && addr_is_any(&la) && la.ss.ss_family != fam) { /* wildcard of the remote's family */
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
    if (io->fd < 0 && fam == AF_INET6 && !io->remote.len && addr_is_any(&la)) { /* no IPv6: IPv4 wildcard */
        fam = AF_INET;
        struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(ub_io_addr_port(&la)) };
        memset(&la.ss, 0, sizeof la.ss);
        memcpy(&la.ss, &s4, sizeof s4);
        la.len = sizeof s4;
        io->fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    }
    if (io->fd < 0) { seterr(err, errlen, "UDP socket: %s%s", "", errno); goto fail; }
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
        addr_to_family(&la, fam, &ss, &sl);
        if (bind(io->fd, (struct sockaddr *)&ss, sl) < 0) {
            char a[80];
            ub_io_addr_str(&la, a, sizeof a);
            seterr(err, errlen, "bind %s: %s", a, errno);
            goto fail;
        }
    }
    if (io->cfg.udp_connect && io->remote.len) {
        struct sockaddr_storage ss;
        socklen_t sl;
        addr_to_family(&io->remote, fam, &ss, &sl);
        if (connect(io->fd, (struct sockaddr *)&ss, sl) < 0) { seterr(err, errlen, "connect: %s%s", "", errno); goto fail; }
        io->connected = true;
    }
    io->local.len = sizeof io->local.ss;
    if (getsockname(io->fd, (struct sockaddr *)&io->local.ss, &io->local.len) < 0) io->local.len = 0;
    addr_norm(&io->local);
    io->mtu = fam == AF_INET ? 65507 : 65527;
    if (alloc_buffers(io) < 0) { seterr(err, errlen, "out of memory%s%s", "", 0); goto fail; }
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

/* ------------------------------------------------------------------ interfaces */
static int read_sys(const char *ifname, const char *file, char *buf, size_t n)
{
    char path[256];
    if (strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, "..")) return -1;
    snprintf(path, sizeof path, "/sys/class/net/%s/%s", ifname, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r < 0) return -1;
    buf[r] = '\0';
    while (r > 0 && (buf[r - 1] == '\n' || buf[r - 1] == ' ')) buf[--r] = '\0';
    return (int)r;
}

int ub_io_if_arphrd(const char *ifname)
{
    if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ) return -1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int r = ioctl(fd, SIOCGIFHWADDR, &ifr) == 0 ? ifr.ifr_hwaddr.sa_family : -1;
    close(fd);
    return r;
}

static bool sys_exists(const char *ifname, const char *file)
{
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "/sys/class/net/%s%s%s", ifname, *file ? "/" : "", file);
    return stat(path, &sb) == 0;
}

/* ethtool driver name and bus (netns-aware, unlike a /sys mounted for another namespace) */
static bool driver_info(const char *ifname, char *drv, size_t n, char *bus, size_t bn)
{
    drv[0] = bus[0] = '\0';
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    struct ethtool_drvinfo di;
    struct ifreq ifr;
    memset(&di, 0, sizeof di);
    memset(&ifr, 0, sizeof ifr);
    di.cmd = ETHTOOL_GDRVINFO;
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    ifr.ifr_data = (void *)&di;
    bool ok = ioctl(fd, SIOCETHTOOL, &ifr) == 0;
    close(fd);
    if (ok) {
        snprintf(drv, n, "%.31s", di.driver);
        snprintf(bus, bn, "%.31s", di.bus_info);
    }
    return ok;
}

int ub_io_if_is_physical(const char *ifname, char *kind, size_t kindlen)
{
    if (kindlen) kind[0] = '\0';
    if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ || strchr(ifname, '/')) return -1;
    unsigned idx = if_nametoindex(ifname); /* this network namespace */
    if (!idx) return -1;
    int type = ub_io_if_arphrd(ifname);
    if (type == ARPHRD_LOOPBACK) {
        if (kindlen) snprintf(kind, kindlen, "loopback");
        return 0;
    }
    char drv[32], bus[32];
    driver_info(ifname, drv, sizeof drv, bus, sizeof bus);
    /* Only drivers whose frames cannot leave the host count as virtual: a bridge, bond, VLAN,
     * macvlan/ipvlan or tunnel may carry them to a wire, so those need --allow-physical too. */
    static const char *const virt[] = { "veth", "dummy", "tun", "nlmon", "ifb" };
    for (size_t i = 0; i < sizeof virt / sizeof virt[0]; i++)
        if (!strcmp(drv, virt[i])) {
            if (kindlen) snprintf(kind, kindlen, "%s%s", drv, !strcmp(drv, "tun") && !strcmp(bus, "tap") ? " (tap)" : "");
            return 0;
        }
    if (kindlen) {
        /* describe it; /sys/class/net is trusted only when it shows this namespace's interface */
        char b[32], sub[64] = "";
        if (read_sys(ifname, "ifindex", b, sizeof b) > 0 && (unsigned)atoi(b) == idx && sys_exists(ifname, "device")) {
            char path[256], link[256] = "";
            snprintf(path, sizeof path, "/sys/class/net/%s/device/subsystem", ifname);
            ssize_t r = readlink(path, link, sizeof link - 1);
            if (r > 0) link[r] = '\0';
            const char *sl = strrchr(link, '/');
            snprintf(sub, sizeof sub, "%s", sl ? sl + 1 : "device");
        }
        if (drv[0] || sub[0] || bus[0])
            snprintf(kind, kindlen, "physical or wire-reaching (%s%s%s%s%s)", drv[0] ? "driver " : "", drv,
                     sub[0] ? (drv[0] ? ", " : "") : "", sub, bus[0] && !sub[0] ? bus : "");
        else
            snprintf(kind, kindlen, "physical or unknown (ARPHRD %d)", type);
    }
    return 1;
}

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
    if (!ifname || !*ifname) { seterr(err, errlen, "no interface named (there is no default interface)%s%s", "", 0); return NULL; }
    if (strlen(ifname) >= IFNAMSIZ) { seterr(err, errlen, "interface name '%s' too long%s", ifname, 0); return NULL; }
    ub_io *io = io_new(cfg, UB_IO_PACKET);
    if (!io) { seterr(err, errlen, "out of memory%s%s", "", 0); return NULL; }
    io->ifindex = if_nametoindex(ifname);
    if (!io->ifindex) { seterr(err, errlen, "no interface '%s'%s", ifname, 0); goto fail; }
    int proto = io->cfg.rx ? htons(ETH_P_ALL) : 0;
    io->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, proto);
    if (io->fd < 0) {
        int e = errno;
        if (e == EPERM || e == EACCES) seterr(err, errlen, "AF_PACKET socket on '%s': %s (needs CAP_NET_RAW)", ifname, e);
        else seterr(err, errlen, "AF_PACKET socket on '%s': %s", ifname, e);
        goto fail;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    if (ioctl(io->fd, SIOCGIFHWADDR, &ifr) < 0) { seterr(err, errlen, "%s: SIOCGIFHWADDR: %s", ifname, errno); goto fail; }
    io->arphrd = ifr.ifr_hwaddr.sa_family;
    if (ioctl(io->fd, SIOCGIFMTU, &ifr) < 0) { seterr(err, errlen, "%s: SIOCGIFMTU: %s", ifname, errno); goto fail; }
    io->mtu = (unsigned)ifr.ifr_mtu;
    if (ioctl(io->fd, SIOCGIFFLAGS, &ifr) < 0) { seterr(err, errlen, "%s: SIOCGIFFLAGS: %s", ifname, errno); goto fail; }
    if (!(ifr.ifr_flags & IFF_UP)) { seterr(err, errlen, "interface '%s' is down%s", ifname, 0); goto fail; }
    if (io->cfg.raw) io->framing = UB_IO_FRAME_RAW;
    else {
        io->framing = ub_io_framing_for_arphrd(io->arphrd);
        if (!io->framing) {
            char m[64];
            snprintf(m, sizeof m, "%s (ARPHRD %d)", ifname, io->arphrd);
            seterr(err, errlen, "interface %s is neither Ethernet nor a UB link: use raw framing%s", m, 0);
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
    if (bind(io->fd, (struct sockaddr *)&sll, sizeof sll) < 0) { seterr(err, errlen, "bind to '%s': %s", ifname, errno); goto fail; }
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
                seterr(err, errlen, "promiscuous mode on '%s': %s", ifname, errno);
                goto fail;
            }
        }
    }
    if (io->cfg.qdisc_bypass && setsockopt(io->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &on, sizeof on) < 0) {
        seterr(err, errlen, "PACKET_QDISC_BYPASS on '%s': %s", ifname, errno);
        goto fail;
    }
    set_bufs(io->fd, &io->cfg);
    io->txmode = io->cfg.txmode == UB_IO_TX_RING ? UB_IO_TX_RING : UB_IO_TX_SENDMMSG;
    if (io->cfg.tx && io->txmode == UB_IO_TX_RING && ring_setup(io) < 0) io->txmode = UB_IO_TX_SENDMMSG;
    if (alloc_buffers(io) < 0) { seterr(err, errlen, "out of memory%s%s", "", 0); goto fail; }
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
            addr_to_family(to, io->family, &io->txname[j], &sl);
            m->msg_name = &io->txname[j];
            m->msg_namelen = sl;
        }
        if (p->from && p->from->len && !addr_is_any(p->from)) {
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
                addr_norm(&p->to);
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
            addr_norm(&p->from);
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
    uint32_t n = p->len, off = 12;
    if (n < 14) return false;
    uint16_t et = (uint16_t)(d[off] << 8 | d[off + 1]);
    for (int tags = 0; tags < 2 && (et == 0x8100 || et == 0x88A8); tags++) {
        off += 4;
        if (off + 2 > n) return false;
        et = (uint16_t)(d[off] << 8 | d[off + 1]);
    }
    off += 2;
    uint32_t l4;
    if (et == 0x0800) {
        if (off + 20 > n || (d[off] >> 4) != 4 || d[off + 9] != 17) return false;
        if ((d[off + 6] & 0x1F) || d[off + 7]) return false; /* a non-first fragment has no UDP header */
        l4 = off + (uint32_t)(d[off] & 0x0F) * 4;
    } else if (et == 0x86DD) {
        if (off + 40 > n || (d[off] >> 4) != 6 || d[off + 6] != 17) return false;
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
static uint16_t csum16(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1) s += (uint32_t)p[n - 1] << 8;
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

long ub_io_wrap_udp(const ub_io_addr *src0, const ub_io_addr *dst0, const uint8_t *payload, uint32_t len,
                    uint8_t *out, size_t cap)
{
    ub_io_addr src = *src0, dst = *dst0;
    addr_norm(&src);
    addr_norm(&dst);
    if (!src.len || !dst.len || src.ss.ss_family != dst.ss.ss_family) return -1;
    bool v4 = src.ss.ss_family == AF_INET;
    uint32_t ipl = v4 ? 20 : 40, total = ipl + 8 + len;
    if (total > cap || len > 65535 - 8 - (v4 ? 20 : 0)) return -1;
    memset(out, 0, ipl + 8);
    if (v4) {
        out[0] = 0x45;
        out[2] = (uint8_t)(total >> 8);
        out[3] = (uint8_t)total;
        out[6] = 0x40; /* DF (Table 5-4) */
        out[8] = 64;
        out[9] = 17;
        memcpy(out + 12, &((const struct sockaddr_in *)&src.ss)->sin_addr, 4);
        memcpy(out + 16, &((const struct sockaddr_in *)&dst.ss)->sin_addr, 4);
        uint16_t c = csum16(out, 20);
        out[10] = (uint8_t)(c >> 8);
        out[11] = (uint8_t)c;
    } else {
        out[0] = 0x60;
        out[4] = (uint8_t)((len + 8) >> 8);
        out[5] = (uint8_t)(len + 8);
        out[6] = 17;
        out[7] = 64;
        memcpy(out + 8, &((const struct sockaddr_in6 *)&src.ss)->sin6_addr, 16);
        memcpy(out + 24, &((const struct sockaddr_in6 *)&dst.ss)->sin6_addr, 16);
    }
    uint8_t *u = out + ipl;
    uint16_t sp = ub_io_addr_port(&src), dp = ub_io_addr_port(&dst);
    u[0] = (uint8_t)(sp >> 8);
    u[1] = (uint8_t)sp;
    u[2] = (uint8_t)(dp >> 8);
    u[3] = (uint8_t)dp;
    u[4] = (uint8_t)((len + 8) >> 8);
    u[5] = (uint8_t)(len + 8);
    if (len) memcpy(u + 8, payload, len);
    return (long)total;
}

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
        addr_norm(&s);
        addr_norm(&d);
        /* the UB port as destination, whatever port the socket used: every record decodes as UB */
        if (d.ss.ss_family == AF_INET) ((struct sockaddr_in *)&d.ss)->sin_port = htons(UB_UDP_PORT);
        else if (d.ss.ss_family == AF_INET6) ((struct sockaddr_in6 *)&d.ss)->sin6_port = htons(UB_UDP_PORT);
        if (s.len && d.len && s.ss.ss_family != d.ss.ss_family) { /* a wildcard of the other family */
            if (addr_is_any(&s)) {
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

/* ------------------------------------------------------------------ capabilities */
static int capget2(struct __user_cap_data_struct d[2])
{
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    return (int)syscall(SYS_capget, &h, d);
}

int ub_io_have_cap(unsigned cap)
{
    struct __user_cap_data_struct d[2];
    if (cap > 63 || capget2(d) < 0) return -1;
    return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int ub_io_cap_permitted(unsigned cap)
{
    struct __user_cap_data_struct d[2];
    if (cap > 63 || capget2(d) < 0) return -1;
    return (d[cap / 32].permitted >> (cap % 32)) & 1;
}

int ub_io_drop_caps(uint64_t mask, char *err, size_t errlen)
{
    if (errlen) err[0] = '\0';
    /* bounding set first (needs CAP_SETPCAP, which the capset below may remove) */
    for (unsigned c = 0; c < 64; c++) {
        if (!((mask >> c) & 1)) continue;
        int in = prctl(PR_CAPBSET_READ, (unsigned long)c, 0UL, 0UL, 0UL);
        if (in < 0) break; /* beyond CAP_LAST_CAP */
        if (in == 1) (void)prctl(PR_CAPBSET_DROP, (unsigned long)c, 0UL, 0UL, 0UL);
        (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, (unsigned long)c, 0UL, 0UL);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) < 0) {
        seterr(err, errlen, "PR_SET_NO_NEW_PRIVS: %s%s", "", errno);
        return -1;
    }
    struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) < 0) { seterr(err, errlen, "capget: %s%s", "", errno); return -1; }
    for (int w = 0; w < 2; w++) {
        uint32_t m = (uint32_t)(mask >> (32 * w));
        d[w].effective &= ~m;
        d[w].permitted &= ~m;
        d[w].inheritable &= ~m;
    }
    h.version = _LINUX_CAPABILITY_VERSION_3;
    h.pid = 0;
    if (syscall(SYS_capset, &h, d) < 0) { seterr(err, errlen, "capset: %s%s", "", errno); return -1; }
    /* verify */
    struct __user_cap_data_struct v[2];
    if (capget2(v) < 0) { seterr(err, errlen, "capget: %s%s", "", errno); return -1; }
    for (int w = 0; w < 2; w++) {
        uint32_t m = (uint32_t)(mask >> (32 * w));
        if ((v[w].effective | v[w].permitted) & m) {
            seterr(err, errlen, "capabilities still present after capset%s%s", "", 0);
            return -1;
        }
    }
    return 0;
}
