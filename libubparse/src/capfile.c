/* Capture files without libpcap: pcap (tcpdump.org pcap-savefile(5)) and pcapng
 * (IETF draft-ietf-opsawg-pcapng). Reader: one allocation (state + 1 MiB read buffer), the
 * file is read in big chunks and records are returned as pointers into the buffer (zero-copy);
 * works on pipes/stdin (never seeks); a gzip-compressed file is read through inflate (capgz.c). Every length is checked before use: hostile files give an
 * error message, never a crash. Writer: pcap (ns magic) or pcapng (SHB, IDBs with if_tsresol 9,
 * EPBs with epb_flags), always little-endian so generated files are identical on every host. */
#include "ubparse/capfile.h"
#include "ubparse/ubparse.h" /* UBPARSE_VERSION for shb_userappl */
#include "cap_int.h"
#include "capgz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

enum {
    CAP_BUFSZ = 1u << 20,          /* read chunk = largest block parsed in one piece */
    CAP_MAX_CAPLEN = 256u * 1024u, /* larger captured lengths are treated as corruption */
    CAP_MAX_IFS = 1024,            /* interfaces per pcapng section */
    CAP_MAX_COMMENTS = 16,         /* opt_comment options kept per packet */
    CAP_SNAPLEN = 262144,          /* snaplen written by the writer */
};

#define PCAP_MAGIC_US 0xa1b2c3d4u  /* µs timestamps */
#define PCAP_MAGIC_NS 0xa1b23c4du  /* ns timestamps */
#define PCAP_MAGIC_KUZ 0xa1b2cd34u /* Kuznetzov "modified" pcap: 8 more record-header bytes, µs */
#define PCAP_HDR_LEN 24u
#define PCAP_REC_LEN 16u

#define NG_SHB 0x0A0D0D0Au
#define NG_IDB 0x00000001u
#define NG_OPB 0x00000002u /* obsolete Packet Block */
#define NG_SPB 0x00000003u
#define NG_EPB 0x00000006u
#define NG_BOM 0x1A2B3C4Du
#define NG_OPT_ENDOFOPT 0
#define NG_OPT_COMMENT 1
#define NG_OPT_SHB_USERAPPL 4
#define NG_OPT_IF_NAME 2
#define NG_OPT_IF_DESCRIPTION 3
#define NG_OPT_IF_TSRESOL 9
#define NG_OPT_IF_TSOFFSET 14
#define NG_OPT_IF_FCSLEN 13
#define NG_OPT_EPB_FLAGS 2 /* also opb_flags */

/* ------------------------------------------------------------------ byte access */
static inline uint16_t rd16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint16_t rd16be(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t rd32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline void wr16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void wr32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t pad4(uint32_t n) { return (n + 3u) & ~3u; }

/* ------------------------------------------------------------------ reader state */
typedef struct cap_if {
    uint32_t linktype, snaplen;
    uint8_t res_pow2; /* if_tsresol: 0 = units of 10^-res_exp s, 1 = 2^-res_exp s */
    uint8_t res_exp;  /* default 6 (µs) */
    int64_t tsoffset; /* if_tsoffset, seconds */
    uint8_t fcslen;   /* if_fcslen of an Ethernet interface (0: none, unknown, or not Ethernet) */
    char name[64];    /* if_name (cut to 63 bytes) */
    char desc[96];    /* if_description (cut to 95 bytes) */
} cap_if;

struct ub_capfile {
    int fd;
    cap_gz *gz;      /* a gzip file: its decompressor, else NULL */
    const ub_cap_src *src; /* records from a source (live capture), not a file: src_ctx is its state */
    void *src_ctx;
    bool own_fd;
    bool eof;        /* read() returned 0 */
    bool failed;     /* sticky: every later ub_cap_next() returns -1 */
    bool pcapng;
    bool be;         /* pcap file / current pcapng section is big-endian */
    bool pcap_ns;    /* pcap: nanosecond magic */
    bool have_lt;    /* linktype known (pcapng: an IDB was seen) */
    uint32_t pcap_rec_len; /* 16, or 24 for the modified format */
    uint32_t linktype;
    uint64_t frame;
    uint64_t foff;   /* file offset of buf[0] */
    size_t pos, end; /* unread bytes are buf[pos..end) */
    uint32_t nifs;   /* interfaces of the current pcapng section */
    uint32_t sections;
    char err[256];
    const char *comment[CAP_MAX_COMMENTS]; /* opt_comment options of the last record (in buf) */
    uint32_t comment_len[CAP_MAX_COMMENTS];
    uint32_t ncomments;
    uint32_t flags;  /* the last record's epb_flags / opb_flags, if have_flags */
    bool have_flags;
    uint32_t pcap_snaplen;
    ub_rec scratch;  /* the record when the caller passes none */
    cap_if ifs[CAP_MAX_IFS];
    uint8_t buf[];   /* CAP_BUFSZ bytes */
};

static int cap_fail(ub_capfile *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cap_fail(ub_capfile *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    c->failed = true;
    return -1;
}

static inline uint64_t cap_off(const ub_capfile *c) { return c->foff + c->pos; }
static inline size_t cap_avail(const ub_capfile *c) { return c->end - c->pos; }
static inline uint16_t g16(const ub_capfile *c, const uint8_t *p) { return c->be ? rd16be(p) : rd16le(p); }
static inline uint32_t g32(const ub_capfile *c, const uint8_t *p) { return c->be ? rd32be(p) : rd32le(p); }
static inline uint64_t g64(const ub_capfile *c, const uint8_t *p)
{
    /* pcapng 64-bit values (if_tsoffset) are one integer in the section byte order */
    return c->be ? (uint64_t)rd32be(p) << 32 | rd32be(p + 4) : (uint64_t)rd32le(p + 4) << 32 | rd32le(p);
}

/* Make at least `need` (<= CAP_BUFSZ) unread bytes available. 1 = yes, 0 = end of file first
 * (cap_avail() tells how many are there), -1 = read error. */
static int cap_refill(ub_capfile *c, size_t need)
{
    if (c->pos) {
        memmove(c->buf, c->buf + c->pos, c->end - c->pos);
        c->foff += c->pos;
        c->end -= c->pos;
        c->pos = 0;
    }
    while (c->end < need && !c->eof) {
        ssize_t n;
        if (c->gz) {
            char e[200];
            if ((n = cap_gz_read(c->gz, c->fd, c->buf + c->end, CAP_BUFSZ - c->end, e, sizeof e)) < 0)
                return cap_fail(c, "%s", e);
        } else if ((n = read(c->fd, c->buf + c->end, CAP_BUFSZ - c->end)) < 0) {
            if (errno == EINTR) continue;
            return cap_fail(c, "read error at offset %llu: %s", (unsigned long long)(c->foff + c->end),
                            strerror(errno));
        }
        if (n == 0) c->eof = true;
        c->end += (size_t)n;
    }
    return c->end >= need ? 1 : 0;
}

/* the usual case, bytes already there, without a call */
static inline int cap_fill(ub_capfile *c, size_t need) { return c->end - c->pos >= need ? 1 : cap_refill(c, need); }

/* Consume n bytes (possibly more than the buffer holds). 1 = done, 0 = end of file first. */
static int cap_skip(ub_capfile *c, uint64_t n)
{
    while (n) {
        size_t have = cap_avail(c);
        if (have == 0) {
            int k = cap_fill(c, 1);
            if (k <= 0) return k;
            continue;
        }
        size_t take = have < n ? have : (size_t)n;
        c->pos += take;
        n -= take;
    }
    return 1;
}

/* ------------------------------------------------------------------ timestamps */
static const uint64_t pow10_tab[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull,
};

/* ts in interface units -> ns since the epoch (unsigned arithmetic: absurd values wrap, no UB) */
static uint64_t ng_ts_ns(const cap_if *ifc, uint64_t ts)
{
    uint64_t ns;
    unsigned e = ifc->res_exp;
    if (!ifc->res_pow2) {
        if (e <= 9) {
            ns = ts * pow10_tab[9 - e];
        } else {
            uint64_t u = pow10_tab[e]; /* e <= 19, checked when the IDB was read */
            ns = ts / u * 1000000000ull + ts % u / pow10_tab[e - 9];
        }
    } else if (e == 0) {
        ns = ts * 1000000000ull;
    } else { /* e <= 63 */
        uint64_t sec = ts >> e, frac = ts & ((1ull << e) - 1u);
        unsigned sh = e;
        if (sh > 33) { frac >>= sh - 33; sh = 33; } /* keep frac * 1e9 < 2^63 */
        ns = sec * 1000000000ull + ((frac * 1000000000ull) >> sh);
    }
    return ns + (uint64_t)ifc->tsoffset * 1000000000ull;
}

/* a record's FCS length: its flags' (pkt, when given), else its interface's (cap_if.fcslen: Ethernet only) */
static inline uint8_t ng_fcslen(const cap_if *ifc, uint8_t pkt)
{
    return __builtin_expect(pkt == 0, 1) || ifc->linktype != 1 ? ifc->fcslen : pkt;
}

/* ------------------------------------------------------------------ pcap */
/* the record at h (header hl bytes, then caplen bytes, all in the buffer) */
static inline int pcap_rec(ub_capfile *c, ub_rec *r, const uint8_t *h, uint32_t hl, uint32_t caplen)
{
    uint32_t sec = g32(c, h), frac = g32(c, h + 4);
    r->data = h + hl;
    r->caplen = caplen;
    r->origlen = g32(c, h + 12);
    r->ts_ns = (uint64_t)sec * 1000000000ull + (c->pcap_ns ? frac : (uint64_t)frac * 1000u);
    r->linktype = c->linktype;
    r->ifindex = 0;
    r->dir = UB_DIR_UNKNOWN;
    r->fcslen = 0; /* (the FCS bits of the link-type word: Wireshark 4.0 does not read them either) */
    r->frame = ++c->frame;
    c->pos += (size_t)hl + caplen;
    return 1;
}

/* a record that needs a read first, or an error */
static __attribute__((noinline)) int pcap_next_slow(ub_capfile *c, ub_rec *r)
{
    uint32_t hl = c->pcap_rec_len;
    int k = cap_fill(c, hl);
    if (k < 0) return -1;
    if (k == 0) {
        if (cap_avail(c) == 0) return 0;
        return cap_fail(c, "record %llu at offset %llu: truncated record header (%zu of %u bytes)",
                        (unsigned long long)c->frame + 1, (unsigned long long)cap_off(c), cap_avail(c), hl);
    }
    const uint8_t *h = c->buf + c->pos;
    uint32_t caplen = g32(c, h + 8);
    if (caplen > CAP_MAX_CAPLEN)
        return cap_fail(c, "record %llu at offset %llu: captured length %u exceeds %u (corrupt file?)",
                        (unsigned long long)c->frame + 1, (unsigned long long)cap_off(c), caplen,
                        CAP_MAX_CAPLEN);
    k = cap_fill(c, (size_t)hl + caplen);
    if (k < 0) return -1;
    if (k == 0)
        return cap_fail(c, "record %llu at offset %llu: truncated record (%zu of %u bytes)",
                        (unsigned long long)c->frame + 1, (unsigned long long)cap_off(c),
                        cap_avail(c) - hl, caplen);
    return pcap_rec(c, r, c->buf + c->pos, hl, caplen); /* cap_fill may have moved the buffer */
}

static inline int pcap_next(ub_capfile *c, ub_rec *r)
{
    uint32_t hl = c->pcap_rec_len;
    if (cap_avail(c) >= hl) { /* the usual case: header and data already in the buffer */
        const uint8_t *h = c->buf + c->pos;
        uint32_t caplen = g32(c, h + 8);
        if (caplen <= CAP_MAX_CAPLEN && cap_avail(c) - hl >= caplen) return pcap_rec(c, r, h, hl, caplen);
    }
    return pcap_next_slow(c, r);
}

static int pcap_open(ub_capfile *c)
{
    if (cap_fill(c, PCAP_HDR_LEN) <= 0) {
        if (c->failed) return -1;
        return cap_fail(c, "truncated pcap file header (%zu of %u bytes)", cap_avail(c), PCAP_HDR_LEN);
    }
    const uint8_t *h = c->buf + c->pos;
    uint32_t le = rd32le(h), be = rd32be(h);
    uint32_t m = (le == PCAP_MAGIC_US || le == PCAP_MAGIC_NS || le == PCAP_MAGIC_KUZ) ? le : be;
    c->be = m != le;
    c->pcap_ns = m == PCAP_MAGIC_NS;
    c->pcap_rec_len = m == PCAP_MAGIC_KUZ ? PCAP_REC_LEN + 8u : PCAP_REC_LEN;
    uint16_t major = g16(c, h + 4), minor = g16(c, h + 6);
    if (major != 2)
        return cap_fail(c, "unsupported pcap version %u.%u", major, minor);
    c->linktype = g32(c, h + 20) & 0xFFFFu; /* upper bits: FCS info (LT_LINKTYPE) */
    c->pcap_snaplen = g32(c, h + 16);
    c->have_lt = true;
    c->pos += PCAP_HDR_LEN;
    return 0;
}

/* ------------------------------------------------------------------ pcapng */
/* Walk the options in [off, end) of block b (len bytes). cb is called per option; returns -1 on
 * a malformed list. */
typedef int (*ng_opt_cb)(ub_capfile *c, void *ctx, uint16_t code, const uint8_t *val, uint16_t len);

static int ng_options(ub_capfile *c, const uint8_t *b, uint32_t off, uint32_t end, const char *blk,
                      ng_opt_cb cb, void *ctx)
{
    while (off < end) {
        if (end - off < 4)
            return cap_fail(c, "%s at offset %llu: option header truncated", blk, (unsigned long long)cap_off(c));
        uint16_t code = g16(c, b + off), olen = g16(c, b + off + 2);
        if (code == NG_OPT_ENDOFOPT) break;
        if (pad4(olen) > end - off - 4)
            return cap_fail(c, "%s at offset %llu: option %u length %u overflows the block", blk,
                            (unsigned long long)cap_off(c), code, olen);
        if (cb(c, ctx, code, b + off + 4, olen) < 0) return -1;
        off += 4u + pad4(olen);
    }
    return 0;
}

static int idb_opt(ub_capfile *c, void *ctx, uint16_t code, const uint8_t *val, uint16_t len)
{
    cap_if *ifc = ctx;
    if (code == NG_OPT_IF_TSRESOL && len >= 1) {
        uint8_t v = val[0];
        ifc->res_pow2 = (v & 0x80) != 0;
        ifc->res_exp = v & 0x7f;
        if (ifc->res_pow2 ? ifc->res_exp > 63 : ifc->res_exp > 19)
            return cap_fail(c, "IDB at offset %llu: unsupported if_tsresol 0x%02x", (unsigned long long)cap_off(c), v);
    } else if (code == NG_OPT_IF_FCSLEN && len >= 1) {
        ifc->fcslen = val[0] <= 8 ? val[0] : 0; /* 0, 2 or 4 in practice */
    } else if (code == NG_OPT_IF_TSOFFSET && len >= 8) {
        ifc->tsoffset = (int64_t)g64(c, val);
    } else if (code == NG_OPT_IF_NAME || code == NG_OPT_IF_DESCRIPTION) {
        char *d = code == NG_OPT_IF_NAME ? ifc->name : ifc->desc;
        size_t sz = code == NG_OPT_IF_NAME ? sizeof ifc->name : sizeof ifc->desc;
        size_t n = len < sz ? len : sz - 1;
        memcpy(d, val, n);
        d[n] = '\0';
    }
    return 0;
}

static int pkt_opt(ub_capfile *c, void *ctx, uint16_t code, const uint8_t *val, uint16_t len)
{
    ub_rec *r = ctx;
    if (code == NG_OPT_EPB_FLAGS && len >= 4) {
        c->flags = g32(c, val);
        c->have_flags = true;
        uint32_t fl = c->flags & 3u; /* bits 0-1: 00 n/a, 01 inbound, 10 outbound */
        r->dir = fl == 1 ? UB_DIR_IN : fl == 2 ? UB_DIR_OUT : UB_DIR_UNKNOWN;
        r->fcslen = (uint8_t)(c->flags >> 5 & 0xFu); /* bits 5-8: FCS length, 0 not given */
    } else if (code == NG_OPT_COMMENT && c->ncomments < CAP_MAX_COMMENTS) {
        c->comment[c->ncomments] = (const char *)val;
        c->comment_len[c->ncomments++] = len;
    }
    return 0;
}

static bool ng_is_packet(uint32_t type) { return type == NG_EPB || type == NG_SPB || type == NG_OPB; }

/* Blocks without a packet that Wireshark 4.0 still makes frames of, so that every later frame number
 * (findings, frame.number, -w selections) is Wireshark's: custom blocks (copyable or not; PEN + data,
 * >= 16 bytes), systemd journal export entries (>= 35 bytes with an entry of >= 23 bytes once its
 * trailing NULs go) and Sysdig event blocks (0x204 >= 36 bytes, 0x216 / 0x221 >= 40). Shorter ones
 * make Wireshark stop reading with an error; they are skipped and not counted. b is the buffered
 * block, or NULL when a huge one is skipped unread. */
static bool ng_is_frame(const uint8_t *b, uint32_t type, uint32_t len)
{
    switch (type) {
    case 0x00000BADu: case 0x40000BADu: return len >= 16;
    case 0x00000204u: return len >= 36;
    case 0x00000216u: case 0x00000221u: return len >= 40;
    case 0x00000009u: {
        if (len < 35) return false;
        if (!b) return true;
        uint32_t n = len - 12;
        while (n && !b[8 + n - 1]) n--;
        return n >= 23;
    }
    default: return false;
    }
}

/* Read one block. 1 = record in *r, 2 = other block processed, 0 = end of file, -1 = error. */
static int ng_block(ub_capfile *c, ub_rec *r)
{
    int k = cap_fill(c, 12); /* type, length, and the BOM of an SHB / trailer of an empty block */
    if (k < 0) return -1;
    if (k == 0) {
        if (cap_avail(c) == 0) return 0;
        return cap_fail(c, "truncated block header at offset %llu (%zu bytes)", (unsigned long long)cap_off(c),
                        cap_avail(c));
    }
    const uint8_t *b = c->buf + c->pos;
    uint32_t type = g32(c, b);
    if (type == NG_SHB) { /* new section: byte order from its BOM */
        if (rd32le(b + 8) == NG_BOM) c->be = false;
        else if (rd32be(b + 8) == NG_BOM) c->be = true;
        else return cap_fail(c, "SHB at offset %llu: bad byte-order magic 0x%08x", (unsigned long long)cap_off(c),
                             rd32be(b + 8));
    }
    uint32_t len = g32(c, b + 4);
    if (len < 12 || len % 4)
        return cap_fail(c, "block type 0x%08x at offset %llu: bad block length %u", type,
                        (unsigned long long)cap_off(c), len);
    bool parse = type == NG_SHB || type == NG_IDB || ng_is_packet(type);
    if (!parse && len > CAP_BUFSZ) { /* skip a huge block we do not need without buffering it */
        uint64_t at = cap_off(c);
        k = cap_skip(c, len - 4u);
        if (k > 0) k = cap_fill(c, 4);
        if (k < 0) return -1;
        if (k == 0) return cap_fail(c, "block type 0x%08x at offset %llu: truncated", type, (unsigned long long)at);
        if (g32(c, c->buf + c->pos) != len)
            return cap_fail(c, "block type 0x%08x at offset %llu: trailing length differs", type,
                            (unsigned long long)at);
        c->pos += 4;
        if (ng_is_frame(NULL, type, len)) c->frame++;
        return 2;
    }
    if (len > CAP_BUFSZ)
        return cap_fail(c, "block type 0x%08x at offset %llu: length %u too large", type,
                        (unsigned long long)cap_off(c), len);
    k = cap_fill(c, len);
    if (k < 0) return -1;
    if (k == 0)
        return cap_fail(c, "block type 0x%08x at offset %llu: truncated (%zu of %u bytes)", type,
                        (unsigned long long)cap_off(c), cap_avail(c), len);
    b = c->buf + c->pos;
    if (g32(c, b + len - 4) != len)
        return cap_fail(c, "block type 0x%08x at offset %llu: trailing length %u differs from %u", type,
                        (unsigned long long)cap_off(c), g32(c, b + len - 4), len);
    uint32_t end = len - 4; /* body is b[8..end) */
    int rc = 2;

    switch (type) {
    case NG_SHB: {
        if (len < 28)
            return cap_fail(c, "SHB at offset %llu: length %u < 28", (unsigned long long)cap_off(c), len);
        uint16_t major = g16(c, b + 12), minor = g16(c, b + 14);
        if (major != 1)
            return cap_fail(c, "SHB at offset %llu: unsupported pcapng version %u.%u", (unsigned long long)cap_off(c),
                            major, minor);
        c->nifs = 0; /* interface ids are per section */
        c->sections++;
        break;
    }
    case NG_IDB: {
        if (len < 20)
            return cap_fail(c, "IDB at offset %llu: length %u < 20", (unsigned long long)cap_off(c), len);
        if (c->nifs >= CAP_MAX_IFS)
            return cap_fail(c, "IDB at offset %llu: more than %u interfaces", (unsigned long long)cap_off(c),
                            CAP_MAX_IFS);
        cap_if ifc = { .linktype = g16(c, b + 8), .snaplen = g32(c, b + 12), .res_exp = 6 };
        if (ng_options(c, b, 16, end, "IDB", idb_opt, &ifc) < 0) return -1;
        if (ifc.linktype != 1) ifc.fcslen = 0; /* an Ethernet FCS only, as Wireshark */
        c->ifs[c->nifs++] = ifc;
        if (!c->have_lt) { c->linktype = ifc.linktype; c->have_lt = true; }
        break;
    }
    case NG_EPB:
    case NG_OPB: {
        const char *nm = type == NG_EPB ? "EPB" : "Packet Block";
        if (len < 32)
            return cap_fail(c, "%s at offset %llu: length %u < 32", nm, (unsigned long long)cap_off(c), len);
        uint32_t ifid = type == NG_EPB ? g32(c, b + 8) : g16(c, b + 8);
        uint32_t caplen = g32(c, b + 20);
        if (ifid >= c->nifs)
            return cap_fail(c, "%s at offset %llu: unknown interface id %u (%u defined)", nm,
                            (unsigned long long)cap_off(c), ifid, c->nifs);
        if (caplen > CAP_MAX_CAPLEN || caplen > end - 28)
            return cap_fail(c, "%s at offset %llu: captured length %u beyond the block or over %u", nm,
                            (unsigned long long)cap_off(c), caplen, CAP_MAX_CAPLEN);
        r->dir = UB_DIR_UNKNOWN;
        r->fcslen = 0;
        /* end - 28 is a multiple of 4 and >= caplen, so 28 + pad4(caplen) <= end */
        if (ng_options(c, b, 28 + pad4(caplen), end, nm, pkt_opt, r) < 0) return -1;
        const cap_if *ifc = &c->ifs[ifid];
        r->fcslen = ng_fcslen(ifc, r->fcslen);
        uint64_t ts = (uint64_t)g32(c, b + 12) << 32 | g32(c, b + 16);
        r->data = b + 28;
        r->caplen = caplen;
        r->origlen = g32(c, b + 24);
        r->ts_ns = ng_ts_ns(ifc, ts);
        r->linktype = ifc->linktype;
        r->ifindex = ifid;
        rc = 1;
        break;
    }
    case NG_SPB: {
        if (c->nifs == 0)
            return cap_fail(c, "SPB at offset %llu: no interface defined", (unsigned long long)cap_off(c));
        if (len < 16)
            return cap_fail(c, "SPB at offset %llu: length %u < 16", (unsigned long long)cap_off(c), len);
        const cap_if *ifc = &c->ifs[0];
        uint32_t origlen = g32(c, b + 8);
        uint32_t caplen = origlen;
        if (ifc->snaplen && ifc->snaplen < caplen) caplen = ifc->snaplen;
        if (caplen > CAP_MAX_CAPLEN || caplen > end - 12)
            return cap_fail(c, "SPB at offset %llu: packet length %u beyond the block or over %u",
                            (unsigned long long)cap_off(c), caplen, CAP_MAX_CAPLEN);
        r->data = b + 12;
        r->caplen = caplen;
        r->origlen = origlen;
        r->ts_ns = 0; /* SPBs carry no timestamp */
        r->linktype = ifc->linktype;
        r->ifindex = 0;
        r->dir = UB_DIR_UNKNOWN;
        r->fcslen = ng_fcslen(ifc, 0);
        rc = 1;
        break;
    }
    default: /* NRB, ISB, DSB, custom, ...: not needed */
        if (ng_is_frame(b, type, len)) c->frame++;
        break;
    }
    if (rc == 1) r->frame = ++c->frame;
    c->pos += len;
    return rc;
}

/* The usual block of a pcapng file, an EPB wholly in the buffer and well-formed, read without
 * ng_block's general checks (which run, with their messages, on anything else): 1, or 2 when
 * ng_block must read the block. */
static inline int ng_epb(ub_capfile *c, ub_rec *r)
{
    size_t avail = cap_avail(c);
    if (avail < 32) return 2;
    const uint8_t *b = c->buf + c->pos;
    uint32_t len = g32(c, b + 4);
    if (g32(c, b) != NG_EPB || len < 32 || len % 4 || len > avail || g32(c, b + len - 4) != len) return 2;
    uint32_t ifid = g32(c, b + 8), caplen = g32(c, b + 20), end = len - 4;
    if (ifid >= c->nifs || caplen > CAP_MAX_CAPLEN || caplen > end - 28) return 2;
    r->dir = UB_DIR_UNKNOWN;
    r->fcslen = 0;
    if (28 + pad4(caplen) < end && ng_options(c, b, 28 + pad4(caplen), end, "EPB", pkt_opt, r) < 0) return -1;
    const cap_if *ifc = &c->ifs[ifid];
    r->fcslen = ng_fcslen(ifc, r->fcslen);
    r->data = b + 28;
    r->caplen = caplen;
    r->origlen = g32(c, b + 24);
    r->ts_ns = ng_ts_ns(ifc, (uint64_t)g32(c, b + 12) << 32 | g32(c, b + 16));
    r->linktype = ifc->linktype;
    r->ifindex = ifid;
    r->frame = ++c->frame;
    c->pos += len;
    return 1;
}

static __attribute__((noinline)) int ng_next(ub_capfile *c, ub_rec *r)
{
    int rc = ng_epb(c, r);
    if (rc != 2) return rc;
    for (;;) {
        int rc = ng_block(c, r);
        if (rc != 2) return rc;
    }
}

/* ------------------------------------------------------------------ reader API */
ub_capfile *ub_cap_open(const char *path, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (!path) {
        if (err && errlen) snprintf(err, errlen, "no file name");
        return NULL;
    }
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (err && errlen) snprintf(err, errlen, "%s: is a directory", path);
        if (!is_stdin) close(fd);
        return NULL;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (!is_stdin && S_ISREG(st.st_mode)) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    ub_capfile *c = malloc(sizeof *c + CAP_BUFSZ);
    if (!c) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
        if (!is_stdin) close(fd);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->own_fd = !is_stdin;
    c->linktype = UINT32_MAX;

    int rc = cap_fill(c, 4);
    if (rc > 0 && c->buf[c->pos] == 0x1f && c->buf[c->pos + 1] == 0x8b) { /* gzip (RFC 1952): read through inflate */
        c->gz = cap_gz_new(c->buf + c->pos, cap_avail(c), c->eof);
        c->pos = c->end = 0;
        c->eof = false;
        rc = c->gz ? cap_fill(c, 4) : cap_fail(c, "out of memory");
    }
    if (rc == 0) {
        if (cap_avail(c) == 0) cap_fail(c, "empty file");
        else cap_fail(c, "file too short (%zu bytes)", cap_avail(c));
    } else if (rc > 0) {
        const uint8_t *h = c->buf + c->pos;
        uint32_t le = rd32le(h), be = rd32be(h);
        if (le == NG_SHB) {
            c->pcapng = true;
            /* Read the SHB and the blocks after it up to the first packet block, so that the link
             * type of the first interface is known; a bad block there fails the open. */
            rc = ng_block(c, NULL);
            while (rc == 2) {
                if (cap_fill(c, 8) <= 0 || c->failed) break;
                if (ng_is_packet(g32(c, c->buf + c->pos))) break;
                rc = ng_block(c, NULL);
            }
        } else if (le == PCAP_MAGIC_US || le == PCAP_MAGIC_NS || le == PCAP_MAGIC_KUZ || be == PCAP_MAGIC_US ||
                   be == PCAP_MAGIC_NS || be == PCAP_MAGIC_KUZ) {
            pcap_open(c);
        } else {
            cap_fail(c, "%snot a pcap or pcapng file (magic %02x %02x %02x %02x)", c->gz ? "gzip-compressed, but " : "",
                     h[0], h[1], h[2], h[3]);
        }
    }
    if (c->failed) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, c->err);
        ub_cap_close(c);
        return NULL;
    }
    return c;
}

unsigned ub_cap_ts_digits(const ub_capfile *c, uint32_t ifindex)
{
    if (!c->pcapng) return c->pcap_ns ? 9u : 6u;
    if (ifindex >= c->nifs) return 6u;
    const cap_if *ifc = &c->ifs[ifindex];
    /* 2^-e s: the decimal digits that resolve it, ceil(e * log10 2) */
    unsigned d = ifc->res_pow2 ? (unsigned)((ifc->res_exp * 30103u + 99999u) / 100000u) : ifc->res_exp;
    return d > 9 ? 9u : d;
}

int ub_cap_next(ub_capfile *c, ub_rec *r)
{
    if (!c || c->failed) return -1;
    if (!r) r = &c->scratch;
    if (c->src) {
        int rc = c->src->next(c->src_ctx, r, c->err, sizeof c->err);
        if (rc < 0) c->failed = true;
        else if (rc > 0) r->frame = ++c->frame;
        return rc;
    }
    c->ncomments = 0;
    c->have_flags = false;
    return c->pcapng ? ng_next(c, r) : pcap_next(c, r);
}

uint32_t ub_cap_nifs(const ub_capfile *c) { return c->pcapng ? c->nifs : 1u; }
const char *ub_cap_comment(const ub_capfile *c, uint32_t *len) { return ub_cap_comment_n(c, 0, len); }
uint32_t ub_cap_ncomments(const ub_capfile *c) { return c->ncomments; }
bool ub_cap_flags(const ub_capfile *c, uint32_t *flags)
{
    *flags = c->have_flags ? c->flags : 0;
    return c->have_flags;
}
const char *ub_cap_comment_n(const ub_capfile *c, uint32_t i, uint32_t *len)
{
    *len = i < c->ncomments ? c->comment_len[i] : 0;
    return i < c->ncomments ? c->comment[i] : NULL;
}
uint32_t ub_cap_comments(const ub_capfile *c, const char *const **text, const uint32_t **len)
{
    *text = c->comment;
    *len = c->comment_len;
    return c->ncomments;
}
uint32_t ub_cap_section(const ub_capfile *c) { return c->pcapng ? c->sections : 1u; }

int ub_cap_ifinfo_get(const ub_capfile *c, uint32_t ifindex, ub_cap_ifinfo *out)
{
    if (!c->pcapng) {
        if (ifindex) return -1;
        *out = (ub_cap_ifinfo){ c->linktype, c->pcap_snaplen, "", "", c->pcap_ns ? 9 : 6 };
        return 0;
    }
    if (ifindex >= c->nifs) return -1;
    const cap_if *ifc = &c->ifs[ifindex];
    *out = (ub_cap_ifinfo){ ifc->linktype, ifc->snaplen, ifc->name, ifc->desc,
                            (uint8_t)(ifc->res_pow2 << 7 | ifc->res_exp) };
    return 0;
}

const char *ub_cap_error(const ub_capfile *c)
{
    if (!c) return "no capture file";
    return c->err;
}

bool ub_cap_is_pcapng(const ub_capfile *c) { return c && c->pcapng; }

uint32_t ub_cap_linktype(const ub_capfile *c) { return c ? c->linktype : UINT32_MAX; }

ub_capfile *ub_cap_open_src(const ub_cap_src *s, void *ctx, const char *ifname, uint32_t linktype, uint32_t snaplen,
                            char *err, size_t errlen)
{
    ub_capfile *c = calloc(1, sizeof *c); /* no read buffer: the source holds the bytes */
    if (!c) {
        if (err && errlen) snprintf(err, errlen, "out of memory");
        s->close(ctx);
        return NULL;
    }
    c->src = s;
    c->src_ctx = ctx;
    c->fd = -1;
    c->pcapng = c->have_lt = true;
    c->linktype = linktype;
    c->nifs = c->sections = 1;
    c->ifs[0] = (cap_if){ .linktype = linktype, .snaplen = snaplen, .res_exp = 9 };
    snprintf(c->ifs[0].name, sizeof c->ifs[0].name, "%s", ifname ? ifname : "");
    return c;
}

void *ub_cap_src_ctx(const ub_capfile *c, const ub_cap_src *s) { return c && c->src == s ? c->src_ctx : NULL; }

bool ub_cap_live_stats(const ub_capfile *c, uint64_t *received, uint64_t *dropped)
{
    *received = *dropped = 0;
    if (!c || !c->src || !c->src->stats) return false;
    c->src->stats(c->src_ctx, received, dropped);
    return true;
}

void ub_cap_close(ub_capfile *c)
{
    if (!c) return;
    if (c->src) c->src->close(c->src_ctx);
    if (c->own_fd) close(c->fd);
    cap_gz_free(c->gz);
    free(c);
}

/* ------------------------------------------------------------------ writer */
struct ub_capw {
    FILE *f;
    bool own, pcapng, bad;
    bool usec;      /* pcap: µs timestamps */
    uint32_t nifs;
    uint64_t bytes; /* written so far (buffered included) */
    uint8_t ifres[CAP_MAX_IFS]; /* pcapng: each interface's if_tsresol (decimal exponent 0..9) */
    char iobuf[1u << 18];
};

static void w_put(ub_capw *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->f) != n) w->bad = true;
    w->bytes += n;
}

uint64_t ub_capw_bytes(const ub_capw *w) { return w ? w->bytes : 0; }

static void w_shb(ub_capw *w)
{
    static const char appl[] = "ubscope " UBPARSE_VERSION;
    uint32_t alen = (uint32_t)strlen(appl);
    uint32_t len = 28 + 4 + pad4(alen) + 4;
    uint8_t b[64] = { 0 };
    wr32le(b, NG_SHB);
    wr32le(b + 4, len);
    wr32le(b + 8, NG_BOM);
    wr16le(b + 12, 1); /* version 1.0 */
    wr16le(b + 14, 0);
    memset(b + 16, 0xff, 8); /* section length unknown */
    wr16le(b + 24, NG_OPT_SHB_USERAPPL);
    wr16le(b + 26, (uint16_t)alen);
    memcpy(b + 28, appl, alen);
    uint32_t o = 28 + pad4(alen); /* opt_endofopt = 4 zero bytes */
    wr32le(b + o + 4, len);
    w_put(w, b, len);
}

static ub_capw *capw_open(const char *path, bool pcapng, uint32_t linktype, uint32_t snaplen, bool usec, char *err,
                          size_t errlen);

ub_capw *ub_capw_open(const char *path, bool pcapng, uint32_t linktype, char *err, size_t errlen)
{
    return capw_open(path, pcapng, linktype, CAP_SNAPLEN, false, err, errlen);
}

ub_capw *ub_capw_open_pcap(const char *path, uint32_t linktype, uint32_t snaplen, bool usec, char *err, size_t errlen)
{
    return capw_open(path, false, linktype, snaplen ? snaplen : CAP_SNAPLEN, usec, err, errlen);
}

static ub_capw *capw_open(const char *path, bool pcapng, uint32_t linktype, uint32_t snaplen, bool usec, char *err,
                          size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (!path) {
        if (err && errlen) snprintf(err, errlen, "no file name");
        return NULL;
    }
    ub_capw *w = malloc(sizeof *w);
    if (!w) {
        if (err && errlen) snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    memset(w, 0, offsetof(ub_capw, iobuf));
    w->pcapng = pcapng;
    w->usec = usec;
    if (strcmp(path, "-") == 0) {
        w->f = stdout;
    } else {
        w->f = fopen(path, "wb");
        if (!w->f) {
            if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
            free(w);
            return NULL;
        }
        w->own = true;
        setvbuf(w->f, w->iobuf, _IOFBF, sizeof w->iobuf);
    }
    if (pcapng) {
        w_shb(w);
        if (linktype != UB_CAPW_NO_IF && ub_capw_add_if(w, linktype, NULL) < 0) w->bad = true;
    } else {
        uint8_t h[PCAP_HDR_LEN];
        wr32le(h, usec ? PCAP_MAGIC_US : PCAP_MAGIC_NS);
        wr16le(h + 4, 2);
        wr16le(h + 6, 4);
        wr32le(h + 8, 0);  /* thiszone */
        wr32le(h + 12, 0); /* sigfigs */
        wr32le(h + 16, snaplen);
        wr32le(h + 20, linktype);
        w_put(w, h, sizeof h);
        w->nifs = 1;
    }
    if (w->bad) {
        if (err && errlen) snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
        if (w->own) fclose(w->f);
        free(w);
        return NULL;
    }
    return w;
}

int ub_capw_add_if(ub_capw *w, uint32_t linktype, const char *name)
{
    ub_cap_ifinfo ii = { linktype, CAP_SNAPLEN, name, NULL, 9 };
    return ub_capw_add_if_info(w, &ii);
}

/* one IDB option: header, value, zero padding */
static uint32_t put_opt(uint8_t *b, uint16_t code, const void *val, uint32_t len)
{
    wr16le(b, code);
    wr16le(b + 2, (uint16_t)len);
    memcpy(b + 4, val, len);
    memset(b + 4 + len, 0, pad4(len) - len);
    return 4 + pad4(len);
}

int ub_capw_add_if_info(ub_capw *w, const ub_cap_ifinfo *ii)
{
    if (!w || !ii || !w->pcapng || w->nifs >= CAP_MAX_IFS || ii->linktype > 0xFFFFu) return -1;
    uint32_t nlen = ii->name ? (uint32_t)strlen(ii->name) : 0, dlen = ii->description ? (uint32_t)strlen(ii->description) : 0;
    if (nlen > 255) nlen = 255;
    if (dlen > 255) dlen = 255;
    /* timestamps come as ns: a decimal resolution up to 10^-9 s is kept, finer or binary ones become ns */
    uint8_t res = ii->tsresol <= 9 ? ii->tsresol : 9;
    uint8_t b[20 + 2 * (4 + 256) + 8 + 4] = { 0 };
    wr32le(b, NG_IDB);
    wr16le(b + 8, (uint16_t)ii->linktype);
    wr32le(b + 12, ii->snaplen);
    uint32_t o = 16;
    if (nlen) o += put_opt(b + o, NG_OPT_IF_NAME, ii->name, nlen);
    if (dlen) o += put_opt(b + o, NG_OPT_IF_DESCRIPTION, ii->description, dlen);
    o += put_opt(b + o, NG_OPT_IF_TSRESOL, &res, 1);
    o += 4; /* opt_endofopt */
    uint32_t len = o + 4;
    wr32le(b + 4, len);
    wr32le(b + o, len);
    w_put(w, b, len);
    if (w->bad) return -1;
    w->ifres[w->nifs] = res;
    return (int)w->nifs++;
}

int ub_capw_write(ub_capw *w, uint32_t ifindex, uint64_t ts_ns, const uint8_t *data, uint32_t len, uint8_t dir)
{
    ub_rec r = { .data = data, .caplen = len, .origlen = len, .ts_ns = ts_ns, .dir = dir };
    return ub_capw_write_rec(w, ifindex, &r, NULL, 0);
}

int ub_capw_write_rec(ub_capw *w, uint32_t ifindex, const ub_rec *r, const char *comment, uint32_t comment_len)
{
    return ub_capw_write_rec_n(w, ifindex, r, comment && comment_len ? &comment : NULL, &comment_len,
                               comment && comment_len ? 1 : 0);
}

int ub_capw_write_rec_n(ub_capw *w, uint32_t ifindex, const ub_rec *r, const char *const *comments,
                        const uint32_t *lens, unsigned ncomments)
{
    uint32_t len = r ? r->caplen : 0;
    if (!w || !r || ifindex >= w->nifs || len > CAP_MAX_CAPLEN || (len && !r->data)) return -1;
    uint8_t h[28];
    uint64_t ts_ns = r->ts_ns;
    uint32_t sec = (uint32_t)(ts_ns / 1000000000ull), nsec = (uint32_t)(ts_ns % 1000000000ull);
    uint32_t orig = r->origlen > len ? r->origlen : len;
    if (!w->pcapng) {
        wr32le(h, sec);
        wr32le(h + 4, w->usec ? nsec / 1000u : nsec);
        wr32le(h + 8, len);
        wr32le(h + 12, orig);
        w_put(w, h, 16);
        w_put(w, r->data, len);
    } else {
        uint32_t fl = (r->dir & 3u) | (uint32_t)(r->fcslen & 0xFu) << 5; /* direction, FCS length (bits 5-8) */
        uint32_t olen = fl ? 8 : 0;
        for (unsigned i = 0; i < ncomments; i++)
            if (comments[i] && lens[i]) olen += 4 + pad4(lens[i] > 0xFFF0u ? 0xFFF0u : lens[i]);
        uint32_t blen = 32 + pad4(len) + (olen ? olen + 4 : 0);
        uint64_t ts = ts_ns; /* in the interface's if_tsresol units */
        for (unsigned e = w->ifres[ifindex]; e < 9; e++) ts /= 10;
        wr32le(h, NG_EPB);
        wr32le(h + 4, blen);
        wr32le(h + 8, ifindex);
        wr32le(h + 12, (uint32_t)(ts >> 32));
        wr32le(h + 16, (uint32_t)ts);
        wr32le(h + 20, len);
        wr32le(h + 24, orig);
        w_put(w, h, 28);
        w_put(w, r->data, len);
        uint8_t t[4 + 8 + 4 + 4] = { 0 };
        uint32_t n = pad4(len) - len; /* zero padding */
        if (fl) {
            wr16le(t + n, NG_OPT_EPB_FLAGS);
            wr16le(t + n + 2, 4);
            wr32le(t + n + 4, fl);
            n += 8;
        }
        for (unsigned i = 0; i < ncomments; i++) { /* opt_comment: header, text, padding */
            uint32_t clen = comments[i] && lens[i] ? (lens[i] > 0xFFF0u ? 0xFFF0u : lens[i]) : 0;
            if (!clen) continue;
            wr16le(t + n, NG_OPT_COMMENT);
            wr16le(t + n + 2, (uint16_t)clen);
            w_put(w, t, n + 4);
            w_put(w, comments[i], clen);
            memset(t, 0, sizeof t);
            n = pad4(clen) - clen;
        }
        if (olen) n += 4; /* opt_endofopt */
        wr32le(t + n, blen);
        w_put(w, t, n + 4);
    }
    return w->bad ? -1 : 0;
}

int ub_capw_flush(ub_capw *w)
{
    if (!w) return -1;
    if (fflush(w->f) != 0 || ferror(w->f)) w->bad = true;
    return w->bad ? -1 : 0;
}

int ub_capw_close(ub_capw *w)
{
    if (!w) return -1;
    int rc = w->bad ? -1 : 0;
    if (fflush(w->f) != 0 || ferror(w->f)) rc = -1;
    if (w->own && fclose(w->f) != 0) rc = -1;
    free(w);
    return rc;
}
