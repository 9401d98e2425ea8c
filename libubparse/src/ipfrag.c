/* IP reassembly (RFC 791 §3.2, RFC 8200 §4.5), as Wireshark's ip.defragment / ipv6.reassemble: the
 * fragments of a datagram, keyed by version, addresses, protocol and identification (IPv4: and the
 * frame's VLAN id, as Wireshark's key has pinfo->vlan_id; IPv6 not), are collected
 * until the last one and every 8-byte block before it are there; the record that completes the
 * datagram then carries it whole (its own link headers, the first fragment's header made whole,
 * the data, and the bytes after the last fragment's IP packet, where a UBoE ICRC sits, up to 64).
 * Bounded: at most `max` datagrams open, each 64 KiB + 1 KiB allocated when first needed and kept
 * for reuse; the least recently used one is dropped for a new one (counted). Fragments cut by the
 * snapshot length, middle pieces not of whole 8-byte blocks and data past 64 KiB are not collected. */
#include "internal.h"
#include "rows.h"
#include "rw_internal.h" /* rw_ip_csum: the IPv4 header checksum the rewriter already computes */
#include "ubparse/audit.h"  /* ub_units_lost */

#include <arpa/inet.h>

/* the tables of the headers read (net.c), by their rows.h indexes */
#define V4 (ub_registry[UB_H_IPV4]->fields)
#define V6 (ub_registry[UB_H_IPV6]->fields)
#define FR (ub_registry[UB_H_IP6_FRAGHDR]->fields)
#define UDP (ub_registry[UB_H_UDP]->fields)

/* An IP fragment (RFC 791 §3.2; RFC 8200 §4.5) as reassembly needs it */
typedef struct ipf_hdr {
    uint8_t ver;     /* 4 or 6 */
    uint8_t next;    /* the protocol of the whole datagram (IPv4 Protocol, the fragment header's Next Header) */
    bool more;       /* More Fragments */
    uint32_t ip_len; /* the fragment: IP header to the end of its data */
    uint32_t unfrag; /* bytes of the header part every fragment repeats: the IPv4 header; IPv6 + the
                      * extension headers before the fragment header */
    uint32_t data_off; /* where its data begin (IPv6: after the fragment header) */
    uint32_t nh_pos; /* the byte that names what follows the unfragmentable part (IPv6: the fragment header) */
    uint32_t offset; /* of its data in the datagram, bytes */
    uint32_t ident;
    uint32_t addr_off, addr_len; /* the source and destination addresses, one after the other */
} ipf_hdr;

/* the rest of a fragment's ipf_hdr, once its version's header said where its parts are */
static bool frag_fill(ipf_hdr *f, uint32_t unfrag, uint32_t data_off, uint32_t nh_pos, uint64_t next, uint64_t off8,
                      uint64_t more, uint64_t ident)
{
    const ub_field *src = f->ver == 4 ? &V4[IP4_SRC] : &V6[IP6_SRC];
    f->unfrag = unfrag;
    f->data_off = data_off;
    f->nh_pos = nh_pos;
    f->next = (uint8_t)next;
    f->offset = (uint32_t)off8 * 8u;
    f->more = more != 0;
    f->ident = (uint32_t)ident;
    f->addr_off = src->bit_off / 8;
    f->addr_len = 2 * src->bits / 8; /* the destination follows the source */
    return true;
}

/* The IP packet at p (n bytes captured): true when it is a fragment whose bytes are all there */
static bool ip_frag_info(const uint8_t *p, uint32_t n, ipf_hdr *f)
{
    uint64_t ver = 0, v = 0;
    if (!ub_rd_bits(p, n, V4[IP4_VERSION].bit_off, 4, &ver)) return false;
    if (ver == 4) { /* (every record of an IP link comes here: the common answer first) */
        uint64_t ihl = 0, tot = 0, mf = 0, fo = 0, id = 0, pr = 0;
        if (n < 20) return false;
        ub_rd_bits(p, n, V4[IP4_MF].bit_off, V4[IP4_MF].bits, &mf);
        ub_rd_bits(p, n, V4[IP4_FRAG].bit_off, V4[IP4_FRAG].bits, &fo);
        if (!mf && !fo) return false;
        ub_rd_bits(p, n, V4[IP4_IHL].bit_off, V4[IP4_IHL].bits, &ihl);
        ub_rd_bits(p, n, V4[IP4_TOTLEN].bit_off, V4[IP4_TOTLEN].bits, &tot);
        ub_rd_bits(p, n, V4[IP4_ID].bit_off, V4[IP4_ID].bits, &id);
        ub_rd_bits(p, n, V4[IP4_PROTO].bit_off, V4[IP4_PROTO].bits, &pr);
        if (ihl < 5 || tot < ihl * 4 || tot > n) return false;
        memset(f, 0, sizeof *f);
        f->ver = 4;
        f->ip_len = (uint32_t)tot;
        return frag_fill(f, (uint32_t)ihl * 4u, (uint32_t)ihl * 4u, V4[IP4_PROTO].bit_off / 8, pr, fo, mf, id);
    }
    uint64_t nh = 0;
    if (ver != 6 || n < 40) return false;
    ub_rd_bits(p, n, V6[IP6_NH].bit_off, V6[IP6_NH].bits, &nh);
    if (nh == 17 || nh == 6 || nh == 58) return false; /* UDP, TCP, ICMPv6: no extension header */
    ub_rd_bits(p, n, V6[IP6_PLEN].bit_off, V6[IP6_PLEN].bits, &v);
    if (40u + v > n) return false;
    memset(f, 0, sizeof *f);
    f->ver = 6;
    f->ip_len = 40u + (uint32_t)v;
    uint32_t at = 40, nh_pos = V6[IP6_NH].bit_off / 8;
    ub_ip_ext x;
    for (unsigned k = 0; k < UB_IP_EXT_MAX && ub_ip_ext_at(true, (unsigned)nh, p + at, f->ip_len - at, &x) && x.len <= f->ip_len - at; k++) {
        if (x.id == UB_H_IP6_FRAGHDR && x.frag) { /* RFC 8200 §4.5: the unfragmentable part ends here (an
                                                    * atomic fragment, RFC 6946, is whole: walked past) */
            uint64_t off = 0, more = 0, id = 0;
            ub_rd_bits(p + at, 8, FR[IP6FR_OFFSET].bit_off, FR[IP6FR_OFFSET].bits, &off);
            ub_rd_bits(p + at, 8, FR[IP6FR_MORE].bit_off, 1, &more);
            ub_rd_bits(p + at, 8, FR[IP6FR_IDENT].bit_off, 32, &id);
            return frag_fill(f, at, at + x.len, nh_pos, x.next, off, more, id);
        }
        if (x.id == UB_H_AH) return false; /* part of the fragmentable part: no fragment header before it */
        nh_pos = at; /* the Next Header of an extension header is its first byte (ub_ip_ext_at's first row) */
        nh = x.next;
        at += x.len;
    }
    return false;
}

/* The unfragmentable part h (f->unfrag bytes, the first fragment's) made the header of the whole
 * datagram of datalen data bytes: lengths, no fragment bits (IPv4, its checksum again), IPv6's Next
 * Header of the fragment header in place of it */
static void ip_frag_whole(uint8_t *h, const ipf_hdr *f, uint32_t datalen)
{
    if (f->ver == 4) { /* RFC 791: as the sender sent it before a router cut it */
        ub_wr_bits(h, V4[IP4_TOTLEN].bit_off, V4[IP4_TOTLEN].bits, f->unfrag + datalen);
        ub_wr_bits(h, V4[IP4_MF].bit_off, 1, 0);
        ub_wr_bits(h, V4[IP4_FRAG].bit_off, V4[IP4_FRAG].bits, 0);
        ub_wr_bits(h, V4[IP4_CSUM].bit_off, 16, 0);
        ub_wr_bits(h, V4[IP4_CSUM].bit_off, 16, rw_ip_csum(h, f->unfrag));
    } else { /* RFC 8200 §4.5: the unfragmentable part, its last Next Header the fragment header's */
        ub_wr_bits(h, V6[IP6_PLEN].bit_off, V6[IP6_PLEN].bits, f->unfrag - 40u + datalen);
        h[f->nh_pos] = f->next;
    }
}

enum { IPF_DATA = 65535, IPF_BLOCKS = (IPF_DATA + 7) / 8, IPF_HDR = 256, IPF_LINK = 256, IPF_TRAILER = 64,
       IPF_KEY = 1 + 1 + 32 + 4 + 2 };

typedef struct {
    bool used, have_first;
    uint8_t key[IPF_KEY];
    uint8_t klen;
    uint64_t tick;
    uint32_t total; /* data bytes of the datagram, known from its last fragment (0: not yet) */
    uint32_t nfrags, bytes; /* fragments collected, their data bytes */
    uint64_t born, first_frame, last_frame; /* tick of the first fragment collected; frames of offset 0, of the last one */
    uint8_t ver, next;
    uint32_t ident;
    uint8_t tl;     /* bytes after the last fragment's IP packet in its record (a UBoE ICRC), kept */
    uint8_t trailer[IPF_TRAILER];
    ipf_hdr f0; /* the first fragment's (offset 0) */
    uint8_t hdr[IPF_HDR];
    uint8_t *data;  /* IPF_DATA bytes, then the block bitmap */
} ipf_dg;

struct ub_ipfrag {
    ipf_dg *dg;
    unsigned max, n;
    uint64_t tick, dropped, lost;
    uint8_t *out; /* the last datagram made whole */
    void (*lost_fn)(void *ctx, const ub_units_lost *l); /* datagrams given up (ub_ipfrag_on_lost) */
    void *lost_ctx;
    const ub_opts *o;
    /* the quick look at an IP header's first 8 bytes (big-endian word) every record gets: masks and
     * shifts of the version, IPv4 More Fragments + Fragment Offset and IPv6 Next Header rows */
    uint64_t m_frag4, m_nh6;
    unsigned s_ver, s_nh6;
};

/* a row within the first 8 bytes as a mask of the big-endian word, and its shift */
static uint64_t row_mask(const ub_field *f, unsigned *shift)
{
    *shift = 64u - f->bit_off - f->bits;
    return (f->bits >= 64 ? ~0ull : (1ull << f->bits) - 1) << *shift;
}

ub_ipfrag *ub_ipfrag_new(unsigned max)
{
    ub_ipfrag *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->max = max ? max : 64;
    unsigned s;
    _Static_assert(IP4_FRAG == IP4_MF + 1, "More Fragments then the offset");
    row_mask(&V4[IP4_VERSION], &t->s_ver);
    t->m_frag4 = row_mask(&V4[IP4_MF], &s) | row_mask(&V4[IP4_FRAG], &s);
    t->m_nh6 = row_mask(&V6[IP6_NH], &t->s_nh6);
    return t;
}

void ub_ipfrag_free(ub_ipfrag *t)
{
    if (!t) return;
    for (unsigned i = 0; i < t->n; i++) free(t->dg[i].data);
    free(t->dg);
    free(t->out);
    free(t);
}

uint64_t ub_ipfrag_dropped(const ub_ipfrag *t) { return t ? t->dropped : 0; }
uint64_t ub_ipfrag_lost(const ub_ipfrag *t) { return t ? t->lost : 0; }

void ub_ipfrag_on_lost(ub_ipfrag *t, const ub_opts *o, void (*fn)(void *ctx, const ub_units_lost *l), void *ctx)
{
    t->o = o;
    t->lost_fn = fn;
    t->lost_ctx = ctx;
}

static inline uint64_t *blocks(ipf_dg *g) { return (uint64_t *)(void *)(g->data + ((IPF_DATA + 7u) & ~7u)); }

/* datagram g is given up before it was whole: counted, and told (the key holds the addresses after
 * the version and protocol bytes) */
static void give_up(ub_ipfrag *t, ipf_dg *g, bool evicted)
{
    t->lost++;
    g->used = false;
    if (!t->lost_fn) return;
    ub_units_lost l = { .first_frame = g->have_first ? g->first_frame : 0, .last_frame = g->last_frame,
                        .fragments = g->nfrags, .bytes = g->bytes, .ident = g->ident, .ver = g->ver, .proto = g->next,
                        .evicted = evicted };
    /* the first fragment's data begin with the UDP header: its destination port says UB (§5.2.3) */
    const uint32_t first_len = g->have_first ? g->f0.ip_len - g->f0.data_off : 0;
    uint64_t dport = 0;
    if (g->next == 17 && t->o && ub_rd_bits(g->data, first_len, UDP[UDP_DPORT].bit_off, UDP[UDP_DPORT].bits, &dport))
        l.ub = ub_udp_port_is_ub(t->o, (unsigned)dport);
    const unsigned alen = g->ver == 4 ? 4 : 16;
    inet_ntop(g->ver == 4 ? AF_INET : AF_INET6, g->key + 2, l.src, sizeof l.src);
    inet_ntop(g->ver == 4 ? AF_INET : AF_INET6, g->key + 2 + alen, l.dst, sizeof l.dst);
    if (g->ver == 4 && g->klen >= 2) memcpy(&l.vlan, g->key + g->klen - 2, 2); /* the key ends with it (add) */
    t->lost_fn(t->lost_ctx, &l);
}

void ub_ipfrag_flush(ub_ipfrag *t)
{
    for (;;) { /* the oldest first (at most max datagrams: a scan each) */
        ipf_dg *old = NULL;
        for (unsigned i = 0; i < t->n; i++)
            if (t->dg[i].used && (!old || t->dg[i].born < old->born)) old = &t->dg[i];
        if (!old) return;
        give_up(t, old, false);
    }
}

/* the datagram with this key, or a slot for it (a new one, a free one, or the least recently used) */
static ipf_dg *dg_for(ub_ipfrag *t, const uint8_t *key, unsigned klen)
{
    ipf_dg *free_g = NULL, *lru = NULL;
    for (unsigned i = 0; i < t->n; i++) {
        ipf_dg *g = &t->dg[i];
        if (!g->used) { if (!free_g) free_g = g; continue; }
        if (g->klen == klen && memcmp(g->key, key, klen) == 0) return g;
        if (!lru || g->tick < lru->tick) lru = g;
    }
    ipf_dg *g = free_g;
    if (!g && t->n < t->max) {
        if (!t->dg && !(t->dg = calloc(t->max, sizeof *t->dg))) return NULL;
        g = &t->dg[t->n++];
    }
    if (!g) { /* full: the oldest datagram is given up */
        g = lru;
        t->dropped++;
        give_up(t, g, true);
    }
    if (!g->data && !(g->data = malloc(((IPF_DATA + 7u) & ~7u) + IPF_BLOCKS / 8 + 8))) return NULL;
    g->used = true;
    g->have_first = false;
    g->total = g->nfrags = g->bytes = 0;
    g->tl = 0;
    memcpy(g->key, key, klen);
    g->klen = (uint8_t)klen;
    memset(blocks(g), 0, IPF_BLOCKS / 8 + 8);
    return g;
}

static void mark(ipf_dg *g, uint32_t b0, uint32_t b1) /* blocks [b0, b1) */
{
    uint64_t *m = blocks(g);
    for (uint32_t b = b0; b < b1; b++) m[b >> 6] |= 1ull << (b & 63);
}

static bool all_there(ipf_dg *g)
{
    if (!g->total || !g->have_first) return false;
    const uint64_t *m = blocks(g);
    uint32_t nb = (g->total + 7) / 8, w = 0;
    for (; (w + 1) * 64 <= nb; w++)
        if (m[w] != ~0ull) return false;
    return nb % 64 == 0 || (m[w] | ~((1ull << (nb % 64)) - 1)) == ~0ull;
}

/* a fragment f of the IP packet at d + ip */
static __attribute__((noinline)) int add(ub_ipfrag *t, uint64_t frame, ub_entry e, const uint8_t *d, uint32_t n, uint32_t ip,
                                         const ipf_hdr *fp, const uint8_t **out, uint32_t *outlen)
{
    const ipf_hdr f = *fp;
    if (ip > IPF_LINK || f.unfrag > IPF_HDR) return 0;
    const uint32_t dlen = f.ip_len - f.data_off, end = f.offset + dlen;
    if (end > IPF_DATA - f.unfrag || (f.more && dlen % 8)) return 0; /* past 64 KiB; a middle piece not of whole blocks */
    uint8_t key[IPF_KEY];
    unsigned kl = 0;
    key[kl++] = f.ver;
    key[kl++] = f.ver == 4 ? f.next : 0; /* RFC 791: the protocol is part of the key, RFC 8200: not */
    memcpy(key + kl, d + ip + f.addr_off, f.addr_len);
    kl += f.addr_len;
    memcpy(key + kl, &f.ident, 4);
    kl += 4;
    if (f.ver == 4) { /* IPv4 fragments of another VLAN are another datagram's (Wireshark's ip.defragment) */
        uint16_t vid = 0;
        ub_link_ip_vid(e, d, n, &vid);
        memcpy(key + kl, &vid, 2);
        kl += 2;
    }
    ipf_dg *g = dg_for(t, key, kl);
    if (!g) return 0;
    g->tick = ++t->tick;
    if (!g->nfrags) { /* a new one */
        g->born = g->tick;
        g->ver = f.ver;
        g->next = f.next;
        g->ident = f.ident;
    }
    g->nfrags++;
    g->bytes += dlen;
    g->last_frame = frame;
    memcpy(g->data + f.offset, d + ip + f.data_off, dlen);
    mark(g, f.offset / 8, (end + 7) / 8);
    if (!f.more) {
        const uint32_t after = n - ip - f.ip_len;
        g->total = end;
        g->tl = (uint8_t)(after <= IPF_TRAILER ? after : 0);
        memcpy(g->trailer, d + ip + f.ip_len, g->tl);
    }
    if (f.offset == 0) {
        if (!g->have_first) g->first_frame = frame; /* a copy of it later: the first one's frame stays */
        g->have_first = true;
        g->f0 = f;
        memcpy(g->hdr, d + ip, f.unfrag);
    }
    if (!all_there(g)) return 1;
    /* whole: this record's link headers, the header, the data, the bytes after the last fragment */
    if (!t->out && !(t->out = malloc(IPF_LINK + IPF_HDR + IPF_DATA + IPF_TRAILER))) return 1;
    uint8_t *o = t->out;
    memcpy(o, d, ip);
    memcpy(o + ip, g->hdr, g->f0.unfrag);
    ip_frag_whole(o + ip, &g->f0, g->total);
    memcpy(o + ip + g->f0.unfrag, g->data, g->total);
    memcpy(o + ip + g->f0.unfrag + g->total, g->trailer, g->tl);
    *out = o;
    *outlen = ip + g->f0.unfrag + g->total + g->tl;
    g->used = false;
    return 2;
}

int ub_ipfrag_add(ub_ipfrag *t, uint64_t frame, ub_entry e, const uint8_t *d, uint32_t n, const uint8_t **out,
                  uint32_t *outlen)
{
    const uint32_t ip = ub_link_ip_off(e, d, n);
    if (ip >= n || n - ip < 8) return 0;
    /* every record of an IP link type comes here: the usual answer (no fragment) from one word */
    uint64_t w;
    memcpy(&w, d + ip, 8);
    w = __builtin_bswap64(w);
    const unsigned ver = (unsigned)(w >> t->s_ver) & 15u, nh = (unsigned)((w & t->m_nh6) >> t->s_nh6);
    if ((ver == 4 && !(w & t->m_frag4)) || (ver == 6 && (nh == 17 || nh == 6 || nh == 58)) || (ver != 4 && ver != 6))
        return 0;
    ipf_hdr f;
    if (!ip_frag_info(d + ip, n - ip, &f)) return 0;
    return add(t, frame, e, d, n, ip, &f, out, outlen);
}
