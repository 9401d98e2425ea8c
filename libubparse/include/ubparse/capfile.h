/* Capture files: pcap (µs/ns, both byte orders) and pcapng (SHB/IDB/EPB/SPB/OPB, EPB flags
 * for direction, several interfaces with their own link types), gzip-compressed or not. Reading needs
 * no libpcap and exposes what libpcap hides (interface id, EPB direction flags). One allocation per
 * file (two for a gzip file). */
#ifndef UBPARSE_CAPFILE_H
#define UBPARSE_CAPFILE_H

#include <signal.h> /* sig_atomic_t */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ub_dir { UB_DIR_UNKNOWN = 0, UB_DIR_IN = 1, UB_DIR_OUT = 2 } ub_dir;

typedef struct ub_rec {
    const uint8_t *data; /* valid until the next ub_cap_next() */
    uint32_t caplen, origlen;
    uint64_t ts_ns;      /* nanoseconds since the epoch */
    uint32_t linktype;   /* of the record's interface */
    uint32_t ifindex;    /* pcapng interface id (0 for pcap) */
    uint8_t dir;         /* ub_dir from the EPB flags (bits 0-1) */
    uint64_t frame;      /* 1-based frame number as Wireshark counts: records, and the pcapng blocks it makes
                          * frames of without a packet (custom, systemd journal, Sysdig event blocks),
                          * which are not returned; so numbers may skip */
    uint8_t fcslen;      /* bytes of Ethernet FCS at the end of the frame (pcapng epb_flags bits 5-8, else the
                          * interface's if_fcslen; LINKTYPE_ETHERNET only, as Wireshark): 0 none or unknown */
} ub_rec;

/* The frame of an Ethernet record captured with its FCS ends before it: its length on the wire, and
 * the bytes of it captured (caplen as it is when there is no FCS) */
static inline uint32_t ub_rec_frame_wire(const ub_rec *r) { return r->origlen > r->fcslen ? r->origlen - r->fcslen : 0; }
static inline uint32_t ub_rec_frame_caplen(const ub_rec *r)
{
    return !r->fcslen || r->caplen < ub_rec_frame_wire(r) ? r->caplen : ub_rec_frame_wire(r);
}

typedef struct ub_capfile ub_capfile;

/* path "-" reads standard input. NULL on error with a message in err. */
ub_capfile *ub_cap_open(const char *path, char *err, size_t errlen);
/* Live capture: the packets seen on network interface `ifname` (AF_PACKET through io.c, both
 * directions, nothing sent; needs CAP_NET_RAW), as the records of one pcapng interface named ifname:
 * Ethernet frames as they are (LINKTYPE_ETHERNET), ARPHRD_UB packets with an SLL2 header, nanosecond
 * kernel timestamps, ub_rec.dir from the packet type. ub_cap_next waits for packets; once *stop is
 * non-zero (a signal handler may set it; looked at least every 200 ms) it returns 0, the end.
 * snaplen 0 = 65535. NULL with a message in err (no such interface, not up, no CAP_NET_RAW). */
ub_capfile *ub_cap_open_live(const char *ifname, unsigned snaplen, bool promisc, const volatile sig_atomic_t *stop,
                             char *err, size_t errlen);
/* A live capture's kernel filter (tcpdump / tshark -f: a classic BPF program, e.g. compiled by libpcap for
 * the capture's link type; struct sock_filter / bpf_insn layout: u16 code, u8 jt, u8 jf, u32 k). The
 * packets queued before it are dropped (a drop-all filter first, the queue drained, then this one), so
 * every record read after it passed it. 0, or -1 with a message (not a live capture, rejected by the
 * kernel). */
int ub_cap_live_filter(ub_capfile *c, const void *insns, unsigned n, char *err, size_t errlen);
/* a live capture's counts so far: packets received, dropped by the kernel; false for a file */
bool ub_cap_live_stats(const ub_capfile *c, uint64_t *received, uint64_t *dropped);
/* 1 = record, 0 = end of file, -1 = error (ub_cap_error tells). Truncated last record = error. */
int ub_cap_next(ub_capfile *c, ub_rec *r);
const char *ub_cap_error(const ub_capfile *c);
bool ub_cap_is_pcapng(const ub_capfile *c);
/* fractional digits of the timestamps of interface ifindex of the current section: 6 (µs pcap, pcapng
 * without if_tsresol), 9 (ns pcap, if_tsresol 9), ... capped at 9 (ub_rec carries ns) */
unsigned ub_cap_ts_digits(const ub_capfile *c, uint32_t ifindex);
/* The interfaces of the current pcapng section (pcap: one, the file's), as read so far: IDBs may
 * come late, so callers re-check ub_cap_nifs() after each record. ub_cap_section() counts the
 * sections (interface ids restart in each). */
typedef struct ub_cap_ifinfo {
    uint32_t linktype, snaplen;
    const char *name;        /* if_name, "" if none */
    const char *description; /* if_description, "" if none */
    uint8_t tsresol;         /* if_tsresol as in the file (6 without one; pcap: 6 µs, 9 ns) */
} ub_cap_ifinfo;
uint32_t ub_cap_nifs(const ub_capfile *c);
/* the opt_comment of the last record's packet block (first one), not NUL-terminated, valid until the
 * next ub_cap_next(); NULL (*len 0) if none */
const char *ub_cap_comment(const ub_capfile *c, uint32_t *len);
/* all opt_comment options of the last record's packet block (up to 16), in file order */
uint32_t ub_cap_ncomments(const ub_capfile *c);
const char *ub_cap_comment_n(const ub_capfile *c, uint32_t i, uint32_t *len);
/* the same as arrays (texts, lengths) for ub_filter_pkt's frame.comment; their count */
uint32_t ub_cap_comments(const ub_capfile *c, const char *const **text, const uint32_t **len);
uint32_t ub_cap_section(const ub_capfile *c);
/* the last record's pcapng packet flags word (epb_flags: direction, reception type, FCS length, link
 * errors); false (*flags 0) when its block has none, or in a pcap file */
bool ub_cap_flags(const ub_capfile *c, uint32_t *flags);
int ub_cap_ifinfo_get(const ub_capfile *c, uint32_t ifindex, ub_cap_ifinfo *out);
/* link type of the first interface (pcap: the file's) */
uint32_t ub_cap_linktype(const ub_capfile *c);
void ub_cap_close(ub_capfile *c);

typedef struct ub_capw ub_capw;
/* Create a pcap (pcapng = false; link type fixed per file) or pcapng file ("-" = stdout).
 * Timestamps are written in ns resolution (pcap magic 0xa1b23c4d, pcapng if_tsresol 9 unless an
 * interface added by ub_capw_add_if_info has another).
 * pcapng with linktype UB_CAPW_NO_IF: no interface yet (ub_capw_add_if adds them, from index 0). */
#define UB_CAPW_NO_IF 0xFFFFFFFFu
ub_capw *ub_capw_open(const char *path, bool pcapng, uint32_t linktype, char *err, size_t errlen);
/* A pcap file of one link type with this snaplen (0: the default), µs timestamps (magic 0xa1b2c3d4,
 * truncated as tshark -F pcap writes them) or ns (0xa1b23c4d, tshark -F nsecpcap). */
ub_capw *ub_capw_open_pcap(const char *path, uint32_t linktype, uint32_t snaplen, bool usec, char *err, size_t errlen);
/* pcapng: add another interface; returns its index (the first one, from open, is 0). */
int ub_capw_add_if(ub_capw *w, uint32_t linktype, const char *name);
/* pcapng: an interface as read (ub_cap_ifinfo_get): link type, snaplen, if_name, if_description and
 * if_tsresol kept (a decimal resolution up to 9 digits; finer or binary ones are written as 9) */
int ub_capw_add_if_info(ub_capw *w, const ub_cap_ifinfo *ii);
/* dir: ub_dir, written as EPB flags in pcapng, ignored in pcap. */
int ub_capw_write(ub_capw *w, uint32_t ifindex, uint64_t ts_ns, const uint8_t *data, uint32_t len, uint8_t dir);
/* A record as read (ub_cap_next) on interface ifindex of w: caplen and origlen, direction, (pcapng) its
 * FCS length (epb_flags) and the comment (clen bytes, NULL = none) kept. */
int ub_capw_write_rec(ub_capw *w, uint32_t ifindex, const ub_rec *r, const char *comment, uint32_t clen);
/* the same with n comments (pcapng: one opt_comment each; NULL/empty ones skipped) */
int ub_capw_write_rec_n(ub_capw *w, uint32_t ifindex, const ub_rec *r, const char *const *comments,
                        const uint32_t *lens, unsigned n);
int ub_capw_close(ub_capw *w);
/* hand everything written so far to the operating system (tcpdump -U); 0, or -1 after a write error */
int ub_capw_flush(ub_capw *w);
/* the file's size so far: every byte written, including those still in the writer's buffer */
uint64_t ub_capw_bytes(const ub_capw *w);

#ifdef __cplusplus
}
#endif
#endif
