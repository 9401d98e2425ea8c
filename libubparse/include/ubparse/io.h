/* Packet I/O for the live tools (ubreplay, ubpeer): Linux sockets only, no libpcap.
 *
 *   ub_io_open_udp()  UDP endpoint: the UDP payload of UBoE (decoder/builder entry "tph") to/from
 *                     HOST:PORT (default port 4792), IPv4 and IPv6, optional local bind (listen).
 *                     Needs no privileges.
 *   ub_io_open_if()   AF_PACKET endpoint on a NAMED interface. The framing follows the interface:
 *                     Ethernet (ARPHRD_ETHER)  whole UBoE frames of App. E        (entry "eth")
 *                     ARPHRD_UB (38, Linux ubl) 1-byte CFG pseudo-header + packet  (entry "cfgph")
 *                     cfg.raw                   record bytes unchanged (USER0/USER1 benches; the
 *                                               caller says which entry, cfg.raw_entry)
 *                     Needs CAP_NET_RAW (drop it afterwards: ub_io_drop_caps).
 *
 *   ub_io_send()  batched transmission (sendmmsg, or PACKET_TX_RING on interfaces), bounded retries
 *                 on ENOBUFS/EAGAIN, per-packet result and every failure counted by errno.
 *   ub_io_recv()  batched reception (recvmmsg) with kernel timestamps (SO_TIMESTAMPNS, ns on
 *                 CLOCK_REALTIME), direction (sll_pkttype), VLAN tags re-inserted, our own outgoing
 *                 frames ignored (PACKET_IGNORE_OUTGOING, or in user space on older kernels), and an
 *                 optional user-space filter callback (no BPF).
 *
 * Safety: nothing is ever sent to a destination the caller did not name. The module never picks a
 * default interface or host: ub_io_open_if() needs an interface name, ub_io_send() on a UDP endpoint
 * needs a destination (the endpoint's remote, or a per-packet address the caller took from a
 * received packet). ub_io_if_is_physical() lets the tools require --allow-physical.
 *
 * Reentrant, no global state; one ub_io is used by one thread at a time. Each endpoint owns its
 * buffers (batch x snaplen bytes for reception, the TX ring when used): no allocation per packet. */
#ifndef UBPARSE_IO_H
#define UBPARSE_IO_H

#include "ubparse/ubparse.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    UB_IO_DEFAULT_BATCH = 64,
    UB_IO_MAX_BATCH = 1024,
    UB_IO_DEFAULT_SNAPLEN = 65535,
    UB_IO_ERRNO_SLOTS = 8, /* distinct errno values counted individually (more: tx_err_other) */
};

typedef enum ub_io_kind { UB_IO_UDP = 1, UB_IO_PACKET = 2 } ub_io_kind;

/* What the bytes handed to ub_io_send() / returned by ub_io_recv() are. */
typedef enum ub_io_framing {
    UB_IO_FRAME_TPH = 1, /* UDP payload: RTPH/UTPH ...              decode with UB_ENTRY_TPH */
    UB_IO_FRAME_ETH,     /* Ethernet frame without FCS (UBoE)        UB_ENTRY_ETH */
    UB_IO_FRAME_CFGPH,   /* ARPHRD_UB: 1-byte CFG + network packet   UB_ENTRY_CFGPH */
    UB_IO_FRAME_RAW,     /* unchanged record bytes                   cfg.raw_entry */
} ub_io_framing;

/* Transmission path of an interface endpoint. */
typedef enum ub_io_txmode {
    UB_IO_TX_DEFAULT = 0, /* the faster path measured on veth (bench/README.md): UB_IO_TX_SENDMMSG */
    UB_IO_TX_SENDMMSG,    /* sendmmsg() of up to `batch` frames per system call */
    UB_IO_TX_RING,        /* PACKET_TX_RING (TPACKET_V2): frames copied into the mmap'ed ring, one
                           * send() per batch; frames larger than a ring slot go through sendmmsg */
} ub_io_txmode;

typedef struct ub_io_cfg {
    unsigned batch;          /* packets per sendmmsg/recvmmsg/ring kick (default 64, max 1024) */
    unsigned snaplen;        /* bytes kept per received packet (default 65535); longer: truncated,
                              * ub_io_rx.origlen says how long it was */
    int sndbuf, rcvbuf;      /* SO_SNDBUF / SO_RCVBUF in bytes (0: kernel default; the *FORCE
                              * variants are tried first when privileged) */
    unsigned retry_max;      /* ENOBUFS/EAGAIN: attempts per packet before it counts as failed
                              * (default 64; 0 = use the default) */
    unsigned retry_wait_us;  /* wait for the socket to become writable between attempts, upper
                              * bound per attempt (default 200 us) */
    bool rx, tx;             /* directions wanted (default both; rx off: no receive buffers) */
    /* interface endpoints */
    bool raw;                /* send/receive record bytes unchanged (UB_IO_FRAME_RAW) */
    uint8_t raw_entry;       /* ub_entry of raw records (default UB_ENTRY_FLIT) */
    uint8_t txmode;          /* ub_io_txmode */
    bool qdisc_bypass;       /* PACKET_QDISC_BYPASS: skip the qdisc layer (no traffic shaping,
                              * drops are not reported as ENOBUFS) */
    bool promisc;            /* PACKET_MR_PROMISC membership while open */
    bool keep_outgoing;      /* also receive the frames this host sends (dir UB_DIR_OUT); default:
                              * PACKET_IGNORE_OUTGOING */
    unsigned ring_frames;    /* TX ring slots (default 1024, rounded to whole blocks) */
    /* UDP endpoints */
    bool udp_connect;        /* connect() to the remote: receive only from it; ICMP errors are then
                              * reported by send (ECONNREFUSED, counted) */
} ub_io_cfg;

void ub_io_cfg_default(ub_io_cfg *c);

/* A socket address (IPv4 or IPv6) as used by UDP endpoints. */
typedef struct ub_io_addr {
    struct sockaddr_storage ss;
    socklen_t len; /* 0 = none */
} ub_io_addr;

/* Parse "HOST:PORT", "HOST", "[IPV6]:PORT", "[IPV6]", "IPV6", ":PORT" or "PORT" (numeric addresses,
 * or names resolved with getaddrinfo, no DNS unless the text is a name). A missing port is
 * default_port (4792 for destinations; 0 lets a listener pick a free port). A missing host is the
 * wildcard (listen on every address, IPv6 dual-stack when available). 0, or -1 with a message. */
int ub_io_parse_addr(const char *text, uint16_t default_port, ub_io_addr *out, char *err, size_t errlen);
/* "192.0.2.1:4792" / "[2001:db8::1]:4792" */
size_t ub_io_addr_str(const ub_io_addr *a, char *buf, size_t n);
uint16_t ub_io_addr_port(const ub_io_addr *a);

typedef struct ub_io ub_io;

/* UDP endpoint. remote: default destination of ub_io_send (NULL: every packet names its own, e.g. a
 * responder answering the source of a request). local: bind address "[ADDR:]PORT" (NULL: an
 * ephemeral port on the wildcard of the remote's family). At least one of them must be given.
 * NULL with a message in err. */
ub_io *ub_io_open_udp(const ub_io_cfg *cfg, const char *remote, const char *local, char *err, size_t errlen);

/* AF_PACKET endpoint on interface `ifname` (required; there is no default interface). The interface
 * must exist and be up. Framing from its ARPHRD type (Ethernet, ARPHRD_UB) unless cfg->raw; other
 * types need cfg->raw. NULL with a message in err (EPERM: "needs CAP_NET_RAW"). */
ub_io *ub_io_open_if(const ub_io_cfg *cfg, const char *ifname, char *err, size_t errlen);

void ub_io_close(ub_io *io);

ub_io_kind ub_io_get_kind(const ub_io *io);
ub_io_framing ub_io_get_framing(const ub_io *io);
/* Decoder entry point for the endpoint's bytes (UB_ENTRY_TPH / ETH / CFGPH / cfg.raw_entry). */
ub_entry ub_io_entry(const ub_io *io);
/* pcap link type of the records ub_io_record() makes for this endpoint. */
uint32_t ub_io_linktype(const ub_io *io, const ub_opts *o);
int ub_io_fd(const ub_io *io);              /* for poll(): POLLIN when packets wait */
unsigned ub_io_ifindex(const ub_io *io);    /* 0 for UDP */
unsigned ub_io_mtu(const ub_io *io);        /* interface MTU (UDP: 65507 / 65527 payload bytes) */
int ub_io_arphrd(const ub_io *io);          /* ARPHRD type of the interface (-1 for UDP) */
/* The address a UDP endpoint is bound to (port 0 in the local spec: the port the kernel chose). */
int ub_io_local_addr(const ub_io *io, ub_io_addr *out);
/* The effective transmission mode of an interface endpoint (after UB_IO_TX_DEFAULT is resolved and
 * a failing PACKET_TX_RING setup fell back to sendmmsg). */
ub_io_txmode ub_io_get_txmode(const ub_io *io);

/* ---------------------------------------------------------------- sending */
typedef struct ub_io_tx {
    const uint8_t *data;   /* in:  the bytes in the endpoint's framing */
    uint32_t len;          /* in */
    const ub_io_addr *to;  /* in:  UDP destination; NULL = the endpoint's remote (interfaces: ignored) */
    const ub_io_addr *from; /* in: UDP source address (IP_PKTINFO / IPV6_PKTINFO) for endpoints bound
                            * to a wildcard: answer from the address a request came to (ub_io_rx.to);
                            * NULL = the kernel chooses (interfaces: ignored) */
    int err;               /* out: 0 sent (handed to the kernel), else the errno that made it fail */
    uint64_t ts_ns;        /* out: CLOCK_REALTIME right after the system call that sent it */
    uint8_t port;          /* in: a transport's output: 0 its endpoint, 1 its second one (runner.h
                            * ub_xport_io_set_tx2, a dry run's second interface); ub_io_send ignores it */
} ub_io_tx;

/* Send n packets in order, in batches of cfg.batch. ENOBUFS/EAGAIN: wait for POLLOUT (at most
 * retry_wait_us) and retry, at most retry_max attempts per packet (counted in tx_retries). Other
 * errors fail just that packet (counted by errno) and sending goes on with the next.
 * Returns the number of packets sent, or -1 when nothing can be sent (no destination, endpoint
 * opened without tx, fatal socket error; message in ub_io_error). */
int ub_io_send(ub_io *io, ub_io_tx *pkts, unsigned n);
/* PACKET_TX_RING: wait (at most timeout_ms) until the kernel has taken every queued frame; returns
 * the number still pending (0 = all sent). Other endpoints: 0 at once. ub_io_close() flushes for up
 * to one second. */
int ub_io_flush(ub_io *io, int timeout_ms);

/* ---------------------------------------------------------------- receiving */
typedef struct ub_io_rx {
    const uint8_t *data;   /* in the endpoint's buffers: valid until the next ub_io_recv/close */
    uint32_t len;          /* bytes available (≤ snaplen) */
    uint32_t origlen;      /* length on the wire (> len: truncated) */
    uint64_t ts_ns;        /* kernel receive time, CLOCK_REALTIME ns (user-space time if the
                            * kernel gave none; ub_io_stats.rx_no_kernel_ts counts them) */
    uint8_t dir;           /* ub_dir: UB_DIR_IN, or UB_DIR_OUT for our own frames (keep_outgoing) */
    uint8_t pkttype;       /* sll_pkttype (PACKET_HOST, _BROADCAST, _MULTICAST, _OTHERHOST, _OUTGOING); UDP: 0 */
    uint16_t protocol;     /* sll_protocol, host order (UDP: 0) */
    uint32_t ifindex;      /* interface the frame was seen on (UDP: 0) */
    ub_io_addr from;       /* UDP: source address (answer to it); interfaces: len 0 */
    ub_io_addr to;         /* UDP: local address and port it was sent to (IP_PKTINFO); interfaces: len 0 */
} ub_io_rx;

/* User-space filter run on every received packet before it is returned: return true to keep it.
 * Packets it rejects are counted in rx_filtered. NULL removes the filter. */
typedef bool (*ub_io_filter_fn)(void *ctx, const ub_io_rx *p);
void ub_io_set_filter(ub_io *io, ub_io_filter_fn fn, void *ctx);

/* Receive up to max (≤ cfg.batch) packets in one recvmmsg. timeout_ms: -1 wait, 0 poll, > 0 wait
 * at most that long for the first packet. Returns the number stored in out (0: timeout, or the
 * batch was all filtered / interrupted by a signal: check your stop flag), -1 on a socket error. */
int ub_io_recv(ub_io *io, ub_io_rx *out, unsigned max, int timeout_ms);

/* A ready-made filter for Ethernet endpoints: IPv4/IPv6 (behind 802.1Q / 802.1ad tags, an MPLS label
 * stack or LLC/SNAP, as the decoder walks them) UDP with destination or source port
 * *(const uint16_t *)ctx (UB over Ethernet), dropping everything else (ARP, IPv6 ND, LLDP ...,
 * non-first IPv4 fragments). ctx may be NULL for 4792. */
bool ub_io_filter_uboe(void *ctx, const ub_io_rx *p);

/* ---------------------------------------------------------------- accounting */
typedef struct ub_io_stats {
    uint64_t tx_packets, tx_bytes;  /* handed to the kernel */
    uint64_t tx_failed;             /* packets given up (sum of tx_err[].count + tx_err_other) */
    uint64_t tx_retries;            /* ENOBUFS/EAGAIN attempts that were retried */
    uint64_t tx_calls;              /* sendmmsg / send system calls */
    uint64_t tx_ring_fallback;      /* frames larger than a ring slot sent through sendmmsg */
    struct { int err; uint64_t count; } tx_err[UB_IO_ERRNO_SLOTS]; /* failures by errno, first seen first */
    uint64_t tx_err_other;          /* failures with an errno beyond the slots */
    uint64_t rx_packets, rx_bytes;  /* returned to the caller */
    uint64_t rx_filtered;           /* rejected by the filter callback */
    uint64_t rx_outgoing;           /* our own frames dropped in user space (kernels without
                                     * PACKET_IGNORE_OUTGOING) */
    uint64_t rx_truncated;          /* longer than snaplen */
    uint64_t rx_calls;              /* recvmmsg system calls */
    uint64_t rx_no_kernel_ts;       /* packets without a kernel timestamp */
    uint64_t rx_kernel_drops;       /* PACKET_STATISTICS tp_drops (interfaces), summed */
} ub_io_stats;

/* Counters so far (interfaces: also reads and accumulates PACKET_STATISTICS). */
void ub_io_get_stats(ub_io *io, ub_io_stats *st);
/* Number of failures with errno `err` (0 if none). */
uint64_t ub_io_stats_errno(const ub_io_stats *st, int err);
/* One line: "sent 10 packets (1234 bytes) in 1 calls, 0 failed, 0 retries; received ..." */
void ub_io_stats_print(FILE *f, const ub_io_stats *st);
/* Last error message of the endpoint ("" if none). */
const char *ub_io_error(const ub_io *io);

/* ---------------------------------------------------------------- clocks */
/* Kernel timestamps are CLOCK_REALTIME; schedules run on CLOCK_MONOTONIC. A ub_io_clock holds the
 * offset between the two, measured by bracketing a CLOCK_REALTIME read between two CLOCK_MONOTONIC
 * reads (the tightest of several tries). Re-sync after long runs if NTP may step the clock. */
typedef struct ub_io_clock {
    int64_t mono_minus_real; /* ns */
    uint64_t uncertainty_ns; /* half the bracketing interval of the measurement used */
} ub_io_clock;
void ub_io_clock_sync(ub_io_clock *c);
uint64_t ub_io_real_to_mono(const ub_io_clock *c, uint64_t real_ns);
uint64_t ub_io_mono_to_real(const ub_io_clock *c, uint64_t mono_ns);
uint64_t ub_io_now_real(void); /* CLOCK_REALTIME ns */
uint64_t ub_io_now_mono(void); /* CLOCK_MONOTONIC ns */

/* ---------------------------------------------------------------- recording helpers */
/* The capture record of a packet this endpoint sent or received (ubpeer -w, ubreplay --save):
 *   UDP        LINKTYPE_RAW (101): IPv4/IPv6 + UDP header src -> dst around the payload (ub_io_wrap_udp),
 *              so ubdump and Wireshark decode it as UBoE (no ICRC: a UDP socket cannot carry one, R-44);
 *              the record's destination port is always 4792 (a reply to a requester's ephemeral port
 *              would otherwise not decode as UB; the real port is not kept), the source port is real
 *   Ethernet   LINKTYPE_ETHERNET (1): the frame unchanged
 *   ARPHRD_UB  LINKTYPE_LINUX_SLL2 (276): SLL2 header (hatype 38, protocol from the CFG byte, packet
 *              type from dir, the endpoint's ifindex) + the bytes
 *   raw        the raw entry's link type (o->dlt_flit / dlt_pkt / dlt_stream): unchanged
 * src/dst are used by UDP endpoints only (sent: tx.from or the local address -> tx.to; received:
 * rx.from -> rx.to). Returns the record length, or -1 if cap is too small / the families differ. */
long ub_io_record(const ub_io *io, const uint8_t *data, uint32_t len, uint8_t dir, const ub_io_addr *src,
                  const ub_io_addr *dst, uint8_t *out, size_t cap);
/* IPv4/IPv6 + UDP (checksum 0, Tables 5-4..5-6; IPv4 DF, TTL 64, header checksum) around a payload. */
long ub_io_wrap_udp(const ub_io_addr *src, const ub_io_addr *dst, const uint8_t *payload, uint32_t len,
                    uint8_t *out, size_t cap);

/* ---------------------------------------------------------------- safety */
/* May frames sent on this interface leave the host? 0 virtual (loopback, or the veth, dummy, tun/tap,
 * nlmon, ifb drivers), 1 anything else (hardware, and bridges, bonds, VLANs, macvlan, tunnels, which
 * can carry frames to a wire: the tools require --allow-physical), -1 no such interface in this
 * network namespace. Uses if_nametoindex and ethtool (namespace-aware; /sys/class/net may show
 * another namespace). `kind` (optional) receives a short description ("veth", "loopback",
 * "physical or wire-reaching (driver e1000, pci)"). */
int ub_io_if_is_physical(const char *ifname, char *kind, size_t kindlen);
/* ARPHRD type of an interface of this network namespace, -1 if it does not exist. */
int ub_io_if_arphrd(const char *ifname);
/* Framing the interface endpoint would use for an ARPHRD type (0 if unsupported without --raw). */
ub_io_framing ub_io_framing_for_arphrd(int arphrd);

enum {
    UB_IO_CAP_NET_ADMIN = 12, /* linux/capability.h numbers */
    UB_IO_CAP_NET_RAW = 13,
};
#define UB_IO_CAPS_NET ((1ull << UB_IO_CAP_NET_RAW) | (1ull << UB_IO_CAP_NET_ADMIN))
#define UB_IO_CAPS_ALL (~0ull)
/* Drop the capabilities in `mask` (bit n = capability n) from the effective, permitted and
 * inheritable sets, the ambient set and, when CAP_SETPCAP allows, the bounding set, and set
 * PR_SET_NO_NEW_PRIVS, so neither this process nor anything it executes gets them back (open
 * sockets keep working). Uses the capget/capset system calls (no libcap). 0, or -1 with a message. */
int ub_io_drop_caps(uint64_t mask, char *err, size_t errlen);
/* 1 if capability `cap` is in the effective set, 0 if not, -1 on error. */
int ub_io_have_cap(unsigned cap);
/* 1 if capability `cap` is in the permitted set (could be raised again), 0 if not, -1 on error. */
int ub_io_cap_permitted(unsigned cap);

#ifdef __cplusplus
}
#endif
#endif /* UBPARSE_IO_H */
