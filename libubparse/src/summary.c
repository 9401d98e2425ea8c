/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-line packet summary (ubdump's text lines, the Wireshark Info column): "CFG7 0x010203→0x0a0b0c
 * RTP PSN 17 TPN 0x101→0x202 last Write req TASSN 6 addr 0x7f0000001000 len 256". Every packet's line is
 * built here, so it reads rows by constant index (rows.h) and appends text without a format string. */
#include "internal.h"
#include "neigh.h"
#include "sumfmt.h"

#include <inttypes.h>
#include <stdarg.h>

#define RV UB_RV
#define RF UB_RF
#define RNAME(l, slot, v) ub_vname_lookup(RF(l, slot)->vals, (v))

/* Is row `row` of layer l in the bytes it holds? A layer cut by the snapshot length or by an ICMP
 * error's quote (UB_LF_TRUNC) may stop before it: its value is then unknown, not 0. */
static bool HAS(const ub_layer *l, unsigned row)
{
    if (!l) return false;
    if (!(l->flags & UB_LF_TRUNC)) return true;
    const ub_field *f = RF(l, row);
    return (uint64_t)f->bit_off + f->bits <= (uint64_t)l->len * 8u;
}

#define sb ub_sb
#define lit ub_sb_lit
#define str ub_sb_str
#define dec ub_sb_u64
#define hex ub_sb_hex
typedef ub_sbuf sbuf;

void ub_sb_cut(ub_sbuf *s, const char *a, size_t len)
{
    if (s->w + 1 < s->n) memcpy(s->b + s->w, a, s->n - 1 - s->w);
    s->w += len;
}

static const char dig2[201] = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
                              "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

size_t ub_u64_dec(char t[20], uint64_t v)
{
    static const uint64_t p10[20] = { 1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                      100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
                                      10000000000000ull, 100000000000000ull, 1000000000000000ull,
                                      10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
                                      10000000000000000000ull };
    size_t k = (size_t)(64 - __builtin_clzll(v | 1)) * 1233u >> 12; /* log10 of 2^bits, rounded down */
    k += v >= p10[k];                                                   /* the digits of v, at least 1 */
    k += !k;
    char *p = t + k;
    while (v >= 100) {
        unsigned q = (unsigned)(v % 100u);
        v /= 100u;
        p -= 2;
        memcpy(p, dig2 + 2 * q, 2);
    }
    if (v >= 10) memcpy(p - 2, dig2 + 2 * v, 2);
    else p[-1] = (char)('0' + v);
    return k;
}

/* "%u.%u.%u.%u" of a[0..3], not terminated (at most 15 bytes) */
size_t ub_ipv4_dec(char t[15], const uint8_t a[4])
{
    size_t o = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned v = a[i];
        if (i) t[o++] = '.';
        if (v >= 100) t[o++] = (char)('0' + v / 100);
        if (v >= 10) t[o++] = (char)('0' + v / 10 % 10);
        t[o++] = (char)('0' + v % 10);
    }
    return o;
}

/* "00" .. "ff": the two digits of each byte value */
static const char hex2[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

size_t ub_u64_hex(char t[32], uint64_t v, unsigned width)
{
    size_t k = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1, n = width > k ? (width > 32 ? 32 : width) : k;
    char *p = t + n;
    for (k = n; k >= 2; k -= 2, v >>= 8) { /* two digits a step, from the last; the padding zeros too */
        p -= 2;
        memcpy(p, hex2 + 2 * (v & 255u), 2);
    }
    if (k) *--p = hex2[2 * (v & 15u) + 1];
    return n;
}

void ub_hex_bytes(char *t, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) memcpy(t + 2 * i, hex2 + 2 * p[i], 2);
}

/* the directives of ub_sb: %s %d %u %x with '0', a width or '*', and l / ll (PRIu64, PRIx64) */
static bool sb_simple(const char *fmt)
{
    for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
        p++;
        if (*p == '0') p++;
        if (*p == '*') p++;
        else while (*p >= '0' && *p <= '9') p++;
        while (*p == 'l') p++;
        if (*p != 's' && *p != 'd' && *p != 'u' && *p != 'x') return false;
        p++;
    }
    return true;
}

/* snprintf semantics (what fits is written and terminated, w counts the whole text) without the
 * cost of vsnprintf (the neighbours' summaries, the rare shapes here) */
void ub_sb(ub_sbuf *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t start = s->w;
    if (!sb_simple(fmt)) {
        int k = vsnprintf(s->b + (s->w < s->n ? s->w : s->n), s->w < s->n ? s->n - s->w : 0, fmt, ap);
        va_end(ap);
        if (k > 0) s->w += (size_t)k;
        return;
    }
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            size_t run = strcspn(p, "%");
            ub_sb_put(s, p, run);
            p += run - 1;
            continue;
        }
        p++;
        bool zero = *p == '0';
        if (zero) p++;
        int width = 0;
        if (*p == '*') { width = va_arg(ap, int); p++; }
        else while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
        unsigned nl = 0;
        while (*p == 'l') { nl++; p++; }
        if (*p == 's') {
            const char *a = va_arg(ap, const char *);
            if (!a) a = "(null)"; /* as glibc */
            size_t len = strlen(a);
            for (size_t k = len; (int)k < width; k++) ub_sb_chr(s, ' ');
            ub_sb_put(s, a, len);
            continue;
        }
        unsigned long long u;
        bool neg = false;
        if (*p == 'd') {
            long long d = nl >= 2 ? va_arg(ap, long long) : nl ? va_arg(ap, long) : va_arg(ap, int);
            neg = d < 0;
            u = neg ? 0ull - (unsigned long long)d : (unsigned long long)d;
        } else {
            u = nl >= 2 ? va_arg(ap, unsigned long long) : nl ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
        }
        char t[32];
        int k = (int)(*p == 'x' ? ub_u64_hex(t, u, 0) : ub_u64_dec(t, u));
        int len = k + (neg ? 1 : 0);
        if (!zero)
            for (; len < width; len++) ub_sb_chr(s, ' ');
        if (neg) ub_sb_chr(s, '-');
        if (zero)
            for (; len < width; len++) ub_sb_chr(s, '0');
        ub_sb_put(s, t, (size_t)k);
    }
    va_end(ap);
    if (start < s->n) ub_sb_end(s);
}

/* The first layer of each header the summary names (ub_view_find / first of a group), in one pass. */
typedef union {
    struct {
        const ub_layer *nth, *ip4, *ip6, *nctl, *rtph, *utph, *ctph, *scan, *spdu, *ciph, *btah, *atah, *maetah, *mgmt,
            *payload, *urpc;
    };
    const ub_layer *lay[16];
} sum_layers;
_Static_assert(sizeof(sum_layers) == 16 * sizeof(const ub_layer *), "sum_layers lay[] covers every member");

/* header id -> 1 + its member of sum_layers (0: not named): a table read per layer, no switch */
#define SL(m) (uint8_t)(1 + offsetof(sum_layers, m) / sizeof(const ub_layer *))
static const uint8_t sum_slot[UB_H__COUNT] = {
    [UB_H_NTH16] = SL(nth), [UB_H_NTH24] = SL(nth), [UB_H_IPV4] = SL(ip4), [UB_H_IPV6] = SL(ip6),
    [UB_H_NCTL] = SL(nctl), [UB_H_RTPH] = SL(rtph), [UB_H_UTPH] = SL(utph), [UB_H_CTPH] = SL(ctph),
    [UB_H_SCANHDR] = SL(scan), [UB_H_SCANPDU_REQ] = SL(spdu), [UB_H_SCANPDU_RSP] = SL(spdu), [UB_H_CIPH] = SL(ciph),
    [UB_H_BTAH] = SL(btah), [UB_H_BTAH_C] = SL(btah), [UB_H_BTAH_ALT] = SL(btah), [UB_H_ATAH] = SL(atah),
    [UB_H_ATAH_C] = SL(atah), [UB_H_MAETAH] = SL(maetah), [UB_H_MAETAH_C] = SL(maetah), [UB_H_MGMTETAH] = SL(mgmt),
    [UB_H_PAYLOAD] = SL(payload), [UB_H_URPC_REQ] = SL(urpc), [UB_H_URPC_ACK] = SL(urpc), [UB_H_URPC_RSP] = SL(urpc),
};
#undef SL

/* proto: also ub_view_protocol's name, in the same pass (the plugin's Protocol and Info columns).
 * quoted: the layers of the UB datagram an ICMP error quotes (UB_VN_QUOTED_UB), else the frame's */
static void sum_find(const ub_view *v, sum_layers *x, const char **proto, bool quoted)
{
    memset(x, 0, sizeof *x);
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned rank = 0, best = 0;
    const unsigned skip = quoted ? UB_LF_OUTER : UB_LF_OUTER | UB_LF_QUOTED, need = quoted ? UB_LF_QUOTED : 0u;
    for (unsigned i = 0; i < nl; i++) {
        unsigned id = v->layer[i].hdr->id, k = id < UB_H__COUNT ? sum_slot[id] : 0;
        if (k && !x->lay[k - 1] && (v->layer[i].flags & (skip | need)) == need) x->lay[k - 1] = &v->layer[i]; /* not a tunnel's */
        if (proto) ub_proto_fold(id, &rank, &best);
    }
    if (proto) *proto = ub_proto_name(v, best);
}

static const ub_layer *find(const ub_view *v, unsigned id)
{
    int i = ub_view_find(v, id, 0);
    /* an ICMP error's quote, a tunnel's delivery headers: not the frame's own */
    while (i >= 0 && (v->layer[i].flags & (UB_LF_QUOTED | UB_LF_OUTER))) i = ub_view_find(v, id, (unsigned)i + 1);
    return i < 0 ? NULL : &v->layer[i];
}

/* text of the address row `row` of l into buf (n >= 64); false if the row is not in the layer */
static bool addr_text(const ub_layer *l, unsigned row, char *buf, size_t n)
{
    const ub_field *f = &l->hdr->fields[row];
    ub_val a;
    if (ub_field_value(l, f, &a) != 0) return false;
    ub_format_value(f, &a, false, buf, n);
    return true;
}

static void sum_ub(const ub_view *v, sbuf *s, const char **proto, bool quoted);

/* IP and what it carries, for traffic that is not UB transport: "IPv4/TCP 10.0.0.1:1234→10.0.0.2:80",
 * "IPv6/UDP [fd00::1]:5000→[fd00::2]:4791 (RoCEv2)", "IPv4 proto 1 (ICMP) 10.0.0.1→10.0.0.2" */
static void sum_ip_plain(const ub_view *v, const ub_layer *ip, sbuf *s)
{
    bool v6 = ip->hdr->id == UB_H_IPV6;
    char sa[64] = "?", da[64] = "?";
    addr_text(ip, (v6 ? IP6_SRC : IP4_SRC), sa, sizeof sa);
    addr_text(ip, (v6 ? IP6_DST : IP4_DST), da, sizeof da);
    uint64_t proto = v6 ? RV(ip, IP6_NH) : RV(ip, IP4_PROTO);
    const ub_layer *l4 = find(v, UB_H_UDP);
    if (!l4) l4 = find(v, UB_H_TCP);
    bool frag = !v6 && (RV(ip, IP4_FRAG) || RV(ip, IP4_MF));
    for (const ub_layer *x = ip + 1; x < v->layer + v->nlayers && x < v->layer + UB_MAX_LAYERS && x->hdr &&
                                     ub_hdr_ip_ext(x->hdr->id);
         x++) { /* extension headers: the upper-layer protocol is the last one's next header */
        unsigned nx;
        bool fr;
        if (ub_ip_layer_next(x, &nx, &fr)) proto = nx, frag |= fr;
    }
    sb(s, "%s", v6 ? "IPv6" : "IPv4");
    if (l4 && !frag) {
        bool udp = l4->hdr->id == UB_H_UDP;
        uint64_t sp = RV(l4, UDP_SPORT), dp = RV(l4, UDP_DPORT);
        const char *o = v6 ? "[" : "", *c = v6 ? "]" : "";
        sb(s, "/%s %s%s%s:%" PRIu64 "→%s%s%s:%" PRIu64, udp ? "UDP" : "TCP", o, sa, c, sp, o, da, c, dp);
        char nb[160];
        if (ub_neigh_summary(v, nb, sizeof nb)) sb(s, " %s", nb); /* RoCEv2, SUE: what it is (not UB) */
        else if (udp && (dp == 4791 || sp == 4791)) sb(s, " (RoCEv2)");
        return;
    }
    const ub_ethertype *ipp = ub_ipproto_get((unsigned)proto);
    const char *nm = ipp ? ipp->name : NULL;
    if (frag) sb(s, " fragment");
    if (nm) sb(s, "/%s %s→%s", nm, sa, da);
    else sb(s, " proto %" PRIu64 " %s→%s", proto, sa, da);
    const ub_layer *ic = frag ? NULL : find(v, UB_H_ICMP_ECHO);
    if (!ic && !frag) ic = find(v, UB_H_ICMPV6_ECHO);
    if (!ic && !frag) ic = find(v, UB_H_ICMP);
    if (!ic && !frag) ic = find(v, UB_H_ICMPV6);
    if (!ic && !frag) ic = find(v, UB_H_ICMP_MTU);
    if (!ic && !frag) ic = find(v, UB_H_ICMPV6_MTU);
    if (ic && ic->len >= 2) { /* "type 3 code 3", "echo request id 0x1a2b seq 1", "type 3 code 4 MTU 1400" */
        _Static_assert((int)ICMP_TYPE == (int)ICMP6_TYPE && (int)ICMP_CODE == (int)ICMP6_CODE && (int)ICMP_IDENT == (int)ICMP6_IDENT,
                       "icmp/icmpv6 rows");
        const unsigned id = ic->hdr->id, t = (unsigned)RV(ic, ICMP_TYPE), c = (unsigned)RV(ic, ICMP_CODE);
        const bool v6 = id == UB_H_ICMPV6_ECHO;
        if ((id == UB_H_ICMPV6_ECHO || (id == UB_H_ICMP_ECHO && (t == 0 || t == 8))) && ic->len >= 8)
            sb(s, " echo %s id 0x%04x seq %u", t == (v6 ? 128u : 8u) ? "request" : "reply", (unsigned)RV(ic, ICMP_IDENT),
               (unsigned)RV(ic, v6 ? ICMP6_SEQ : ICMP_SEQ));
        else
            sb(s, " type %u code %u", t, c);
        if ((id == UB_H_ICMP_MTU || id == UB_H_ICMPV6_MTU) && HAS(ic, ICMPM_MTU)) sb(s, " MTU %" PRIu64, RV(ic, ICMPM_MTU));
    }
    if (v->neigh & UB_VN_QUOTED_UB) { /* the UB packet the error is about: what its quote holds */
        lit(s, ", quoting ");
        sum_ub(v, s, NULL, true);
    }
}

static const ub_ethertype ethertypes[] = {
    /* type, summary name, Wireshark's dissector(s) in frame.protocols and its Protocol column (NULL: as
     * decoded, or not one Wireshark shows as such on its own); a minimum version: PTP's */
    { 0x0806, "ARP", NULL, NULL, NULL }, { 0x8808, "MAC control (PAUSE/PFC)", "macc", NULL, "MAC CTRL" },
    { 0x88CC, "LLDP", NULL, NULL, NULL }, { 0x8035, "RARP", "arp", NULL, "RARP" },
    { 0x8915, "RoCE v1", "infiniband", NULL, "RoCE" }, { 0x8906, "FCoE", NULL, NULL, NULL },
    { 0x88E5, "MACsec", NULL, NULL, NULL }, { 0x88F7, "PTP", "ptp", NULL, "PTPv2" },
    { 0x8809, "Slow Protocols (LACP)", "slow", "lacp", "LACP" },
};

/* IP protocol numbers, the same way: those ubdump decodes (named only), and the ones Wireshark's
 * dissectors take (ws1/ws2, its Protocol column; NULL there: by version, ub_ipproto_col) */
static const ub_ethertype ipprotos[] = {
    { 1, "ICMP", NULL, NULL, NULL }, { 2, "IGMP", "igmp", "igmp", NULL }, { 6, "TCP", NULL, NULL, NULL },
    { 17, "UDP", NULL, NULL, NULL }, { 47, "GRE", NULL, NULL, NULL }, { 50, "ESP", "esp", NULL, "ESP" },
    { 58, "ICMPv6", NULL, NULL, NULL }, { 89, "OSPF", "ospf", NULL, "OSPF" }, { 103, "PIM", "pim", NULL, NULL },
    { 112, "VRRP", "vrrp", NULL, "VRRP" }, { 132, "SCTP", "sctp", NULL, "SCTP" },
};

const ub_ethertype *ub_ipproto_get(unsigned proto)
{
    for (unsigned i = 0; i < sizeof ipprotos / sizeof ipprotos[0]; i++)
        if (ipprotos[i].type == proto) return &ipprotos[i];
    return NULL;
}

const char *ub_ipproto_col(const ub_ethertype *e, const uint8_t *p, uint32_t n, char *buf, size_t bn)
{
    if (e->ws_col) return e->ws_col;
    if (e->type == 103 && n) { /* PIM: its version nibble (RFC 7761) */
        snprintf(buf, bn, "PIMv%u", p[0] >> 4);
        return buf;
    }
    if (e->type != 2 || !n) return e->name;
    /* IGMP (RFC 3376 §7.1): a query's version by its length and Max Resp Code, a report's by its type */
    switch (p[0]) {
    case 0x11: return n >= 12 ? "IGMPv3" : n >= 2 && p[1] ? "IGMPv2" : "IGMPv1";
    case 0x12: return "IGMPv1";
    case 0x16: case 0x17: return "IGMPv2";
    case 0x22: return "IGMPv3";
    default: return e->name;
    }
}

const ub_ethertype *ub_ethertype_get(unsigned type)
{
    for (unsigned i = 0; i < sizeof ethertypes / sizeof ethertypes[0]; i++)
        if (ethertypes[i].type == type) return &ethertypes[i];
    return NULL;
}

const char *ub_ethertype_name(unsigned type)
{
    const ub_ethertype *e = ub_ethertype_get(type);
    return e ? e->name : NULL;
}

/* A record that is not UB (issue #9): what it is, e.g. "ETH/IPv4/TCP 10.0.0.1:1234→10.0.0.2:80", "ETH/ARP ..." */
static void sum_other(const ub_view *v, sbuf *s)
{
    const ub_layer *l;
    unsigned et = 0;
    if ((l = find(v, UB_H_ETH))) {
        sb(s, "ETH");
        et = (unsigned)RV(l, ETH_TYPE);
    } else if ((l = find(v, UB_H_SLL)) || (l = find(v, UB_H_SLL2))) {
        sb(s, "SLL");
        et = (unsigned)(l->hdr->id == UB_H_SLL ? RV(l, SLL_PROTOCOL) : RV(l, SLL2_PROTOCOL));
    }
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) { /* C-tags and S-tags: the same rows */
        const ub_layer *t = &v->layer[i];
        if (!t->hdr || !ub_hdr_tag(t->hdr->id) || (t->flags & (UB_LF_QUOTED | UB_LF_OUTER))) continue;
        sb(s, "/%s %" PRIu64, t->hdr->id == UB_H_VLAN_S ? "S-VLAN" : "VLAN", RV(t, VLAN_VID));
        et = (unsigned)RV(t, VLAN_TYPE);
    }
    if ((l = find(v, UB_H_LLC_SNAP)) && !(l->flags & (UB_LF_QUOTED | UB_LF_OUTER))) { /* IEEE 802.3, RFC 1042 */
        sb(s, "/SNAP");
        et = (unsigned)RV(l, LLC_TYPE);
    }
    const ub_layer *ip = find(v, UB_H_IPV4);
    if (!ip) ip = find(v, UB_H_IPV6);
    char nb[160];
    if (!ip && ub_neigh_summary(v, nb, sizeof nb)) { /* SUE AFH frames, PCIe flits */
        sb(s, "%s%s", s->w ? "/" : "", nb);
        return;
    }
    if (ip) {
        if (s->w) sb(s, "/");
        sum_ip_plain(v, ip, s);
        return;
    }
    if ((l = find(v, UB_H_ARP))) {
        char spa[32] = "?", tpa[32] = "?", sha[32] = "?";
        ub_val x;
        if (ub_field_value(l, RF(l, ARP_SPA), &x) == 0) ub_format_value(RF(l, ARP_SPA), &x, false, spa, sizeof spa);
        if (ub_field_value(l, RF(l, ARP_TPA), &x) == 0) ub_format_value(RF(l, ARP_TPA), &x, false, tpa, sizeof tpa);
        if (ub_field_value(l, RF(l, ARP_SHA), &x) == 0) ub_format_value(RF(l, ARP_SHA), &x, false, sha, sizeof sha);
        if (RV(l, ARP_OPER) == 2) sb(s, "/ARP %s is-at %s", spa, sha);
        else sb(s, "/ARP who-has %s tell %s", tpa, spa);
        return;
    }
    const char *nm = ub_ethertype_name(et);
    if (s->w) sb(s, " ");
    const ub_layer *d = find(v, UB_H_DATA);
    if (s->w && et <= 1500) { /* IEEE 802.3: a length, LLC follows (STP BPDUs: SAP 0x42) */
        if (d && d->len >= 2)
            sb(s, "802.3 LLC DSAP 0x%02x SSAP 0x%02x%s", d->data[0], d->data[1] & 0xFEu,
               d->len > 3 && d->data[0] == 0x42 && d->data[1] == 0x42 ? " (STP)" : "");
        else
            sb(s, "802.3 length %u", et);
    } else if (nm) sb(s, "%s (0x%04x)", nm, et);
    else if (s->w) sb(s, "EtherType 0x%04x", et);
    else sb(s, "not UB (%u bytes)", v->rec_len);
}

/* " <TAOpcode name> TASSN n ..." of the transaction headers (§7) */
static void sum_tah(const sum_layers *x, sbuf *s)
{
    const ub_layer *b = HAS(x->btah, BT_OP) ? x->btah : NULL, *a = HAS(x->atah, AT_OP) ? x->atah : NULL, *m = x->maetah,
                   *p = x->payload;
    uint64_t bop = b ? RV(b, BT_OP) : 0;
    if (b && bop >= 0x11 && bop <= 0x13) { /* a response in a BTAH (ns-3-UB D12) */
        const char *nm = ub_vname_lookup(ub_vn_taopcode, bop);
        lit(s, " ");
        str(s, nm ? nm : "(null)");
        lit(s, " TASSN ");
        dec(s, RV(b, BT_TASSN));
        if (p) { lit(s, " len "); dec(s, p->wlen); }
    } else if (b) {
        uint64_t op = bop;
        if (op == 0x10) {
            const ub_layer *g = x->mgmt;
            const char *code = g ? RNAME(g, MG_CODE, RV(g, MG_CODE)) : NULL;
            bool rsp = RV(g, MG_RSP) != 0;
            lit(s, " Mgmt ");
            str(s, code ? code : "?");
            lit(s, " sub ");
            dec(s, RV(g, MG_SUB));
            str(s, rsp ? " rsp MSN " : " req MSN ");
            dec(s, RV(b, BT_TASSN));
            if (g && rsp) { lit(s, " status 0x"); hex(s, RV(g, MG_STATUS), 2); }
            return;
        }
        const char *nm = ub_vname_lookup(ub_vn_taopcode, op);
        if (nm) { lit(s, " "); str(s, nm); lit(s, " req"); }
        else { lit(s, " TAOpcode 0x"); hex(s, op, 2); lit(s, " req"); }
        if (HAS(b, BT_TASSN)) { lit(s, " TASSN "); dec(s, RV(b, BT_TASSN)); }
        if (m) {
            const bool c = m->hdr->id == UB_H_MAETAH_C;
            if (HAS(m, MA_ADDR)) { lit(s, " addr 0x"); hex(s, RV(m, MA_ADDR), 0); }
            if (HAS(m, c ? MAC_LEN : MA_LEN)) { lit(s, " len "); dec(s, c ? 64ull << RV(m, MAC_LEN) : RV(m, MA_LEN)); }
        }
        if (p && !m) { lit(s, " payload "); dec(s, p->wlen); }
    } else if (a) {
        const char *nm = ub_vname_lookup(ub_vn_taopcode, RV(a, AT_OP));
        lit(s, " ");
        str(s, nm ? nm : "response");
        if (HAS(a, AT_TASSN)) { lit(s, " TASSN "); dec(s, RV(a, AT_TASSN)); }
        if (a->hdr->id == UB_H_ATAH) {
            uint64_t st = RV(a, AT_RSPST), info = RV(a, AT_RSPINFO);
            if (st || info) { lit(s, " RSPST "); dec(s, st); lit(s, " RSPINFO "); dec(s, info); }
        } else {
            uint64_t st = RV(a, ATC_STATUS);
            if (st) { lit(s, " Status "); dec(s, st); }
        }
        if (p) { lit(s, " len "); dec(s, p->wlen); }
    }
}

static void sum_dllcb(const ub_view *v, sbuf *s)
{
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *c = &v->layer[i];
        unsigned id = c->hdr->id;
        if (id < UB_H_DLLCB_NULL || id > UB_H_DLLCB_RSVD) continue;
        lit(s, "DLLCB ");
        str(s, c->hdr->name ? c->hdr->name : "(null)");
        if (id == UB_H_DLLCB_CRD_ACK) {
            lit(s, " T="); dec(s, RV(c, CRD_T));
            lit(s, " SD="); dec(s, RV(c, CRD_SD));
            lit(s, " ACK_NUM="); dec(s, RV(c, CRD_ACK_NUM));
        } else if (id == UB_H_DLLCB_RETRY_REQ) {
            lit(s, " RcvPtr="); dec(s, RV(c, RREQ_RCVPTR));
            lit(s, " NUM_RETRY="); dec(s, RV(c, RREQ_NUM_RETRY));
        } else if (id == UB_H_DLLCB_RETRY_ACK) {
            lit(s, " RdPtr="); dec(s, RV(c, RACK_RDPTR));
            lit(s, " WrPtr="); dec(s, RV(c, RACK_WRPTR));
        }
        return;
    }
    lit(s, "DLLCB");
}

/* the UB layers of a DLLDP or UBoE packet */
static void sum_ub(const ub_view *v, sbuf *s, const char **proto, bool quoted)
{
    sum_layers x;
    sum_find(v, &x, proto, quoted);
    const ub_layer *l;
    if (v->cfg >= 0 && !quoted) { lit(s, "CFG"); dec(s, (uint64_t)v->cfg); }
    else if (v->kind == UB_KIND_UBOE || quoted) lit(s, "UBoE");
    else lit(s, "UB");
    if ((l = x.nth)) {
        unsigned w = l->hdr->id == UB_H_NTH24 ? 6 : 4;
        lit(s, " 0x");
        hex(s, RV(l, NTH16_SCNA), w);
        lit(s, "→0x");
        hex(s, RV(l, NTH16_DCNA), w);
    }
    bool plain_ip = false;
    if ((l = x.ip4 ? x.ip4 : x.ip6) && !quoted && v->claim == UB_CLAIM_NONE && (v->cfg == 3 || v->cfg == 4)) {
        lit(s, " "); /* plain IP on a UB link (CFG 3/4): named, not decoded further */
        sum_ip_plain(v, l, s);
        plain_ip = true;
    } else if (l) {
        bool v6 = l->hdr->id == UB_H_IPV6;
        char sa[64], da[64];
        if (addr_text(l, (v6 ? IP6_SRC : IP4_SRC), sa, sizeof sa) &&
            addr_text(l, (v6 ? IP6_DST : IP4_DST), da, sizeof da)) {
            lit(s, " ");
            str(s, sa);
            lit(s, "→");
            str(s, da);
        }
    }
    if ((l = x.nctl)) {
        uint64_t p = RV(l, NCTL_PROTOCOL);
        const char *nm = RNAME(l, NCTL_PROTOCOL, p);
        lit(s, " NetCtl ");
        str(s, nm ? nm : "protocol");
        lit(s, " 0x");
        hex(s, p, 4);
    }
    uint64_t tpop = 0; /* the RTPH's TPOpcode (0 without one) */
    if ((l = x.rtph) && HAS(l, RTPH_OP)) {
        uint64_t op = tpop = RV(l, RTPH_OP);
        if (op == 1) lit(s, " RTP");
        else if (op == 2) str(s, HAS(l, RTPH_RSPST) && RV(l, RTPH_RSPST) == 3 ? " TPNAK" : " TPACK");
        else {
            const char *nm = RNAME(l, RTPH_OP, op); /* the layer's table: a profile may name more opcodes */
            lit(s, " ");
            str(s, nm ? nm : "TPOpcode?");
        }
        if (HAS(l, RTPH_PSN)) { lit(s, " PSN "); dec(s, RV(l, RTPH_PSN)); }
        if (HAS(l, RTPH_DST)) {
            lit(s, " TPN 0x");
            hex(s, RV(l, RTPH_SRC), 0);
            lit(s, "→0x");
            hex(s, RV(l, RTPH_DST), 0);
        }
        if (op <= 1 && RV(l, RTPH_LAST)) lit(s, " last");
    } else if (x.utph) {
        lit(s, " UTP");
    } else if ((l = x.ctph)) {
        if (RV(l, CTPH_OP) == 1) lit(s, " CTP CNP");
    }
    if ((l = x.scan)) {
        const ub_layer *p = x.spdu;
        lit(s, " Scan hops ");
        dec(s, RV(l, SH_HOPS));
        lit(s, " step ");
        dec(s, RV(l, SH_STEP));
        if (p) {
            lit(s, " CMD ");
            dec(s, RV(p, SQ_CMD));
            lit(s, " Opcode ");
            dec(s, RV(p, SQ_OPCODE));
            str(s, p->hdr->id == UB_H_SCANPDU_RSP ? " rsp MSN " : " req MSN ");
            dec(s, RV(p, SQ_MSN));
        }
    }
    if (x.ciph) lit(s, " CIP");
    if (!plain_ip && tpop < 2) sum_tah(&x, s); /* an ATAH after an ack is no response */
    if ((l = x.urpc)) {
        unsigned id = l->hdr->id;
        str(s, id == UB_H_URPC_REQ ? " URPC Request ID " : id == UB_H_URPC_ACK ? " URPC Ack ID " : " URPC Response ID ");
        dec(s, id == UB_H_URPC_REQ ? RV(l, RQ_ID) : RV(l, RS_ID));
        if (id == UB_H_URPC_RSP) { lit(s, " status "); dec(s, RV(l, RS_STATUS)); }
    }
}

size_t ub_summary_proto(const ub_view *v, char *buf, size_t n, const char **proto)
{
    sbuf s = { buf, n, 0 };
    if (n) buf[0] = '\0';
    if (v->kind == UB_KIND_DLLCB) {
        sum_dllcb(v, &s);
        if (proto) *proto = ub_proto_name(v, 0);
    } else if (!ub_view_ub(v)) {
        sum_other(v, &s);
        if (proto) *proto = ub_proto_name(v, 0);
    } else {
        sum_ub(v, &s, proto, false);
    }
    if (v->nerrs) {
        lit(&s, " [");
        for (unsigned i = 0; i < v->nerrs; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            if (i) lit(&s, ",");
            str(&s, ei ? ei->name : "?");
        }
        lit(&s, "]");
    }
    return ub_sb_end(&s);
}

size_t ub_summary(const ub_view *v, char *buf, size_t n) { return ub_summary_proto(v, buf, n, NULL); }
