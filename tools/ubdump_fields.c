/* ubdump -T fields (ubdump_out.h): the -e fields of the schema compiled once into one list of
 * (header, row, text form) per header id, so that a packet is one pass over its layers for all
 * fields; the values' text in tshark's form; the lines built in an own buffer and handed to stdio
 * in large pieces. */
#include "ubdump_out.h"

#include "ubparse/filter.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ growing strings */
/* room for k more bytes and the NUL; false: out of memory (the value is dropped) */
static bool sb_reserve(ubx_sbuf *b, size_t k)
{
    if (b->n + k + 1 <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (b->n + k + 1 > cap) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return false;
    b->p = p;
    b->cap = cap;
    return true;
}

void ubx_sb_put(ubx_sbuf *b, const char *s, size_t n)
{
    b->dirty = true;
    if (!sb_reserve(b, n)) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void ubx_sb_puts(ubx_sbuf *b, const char *s) { ubx_sb_put(b, s, strlen(s)); }

void ubx_sb_occ(void *ctx, const char *s)
{
    ubx_sbuf *b = ctx;
    if (b->any) ubx_sb_put(b, (const char[1]){ UBX_OCC_SEP }, 1);
    ubx_sb_puts(b, s);
    b->any = true;
}

/* ------------------------------------------------------------------ one value's text */

/* "0x" and `digits` hex digits of u, more when u needs them (never cut a value, as %0*x), terminated */
static size_t put_hex_ws(char *buf, uint64_t u, unsigned digits)
{
    buf[0] = '0';
    buf[1] = 'x';
    size_t k = 2 + ub_u64_hex(buf + 2, u, digits);
    buf[k] = '\0';
    return k;
}

/* the decimal digits of u, terminated */
static size_t put_dec(char *buf, uint64_t u)
{
    size_t k = ub_u64_dec(buf, u);
    buf[k] = '\0';
    return k;
}

unsigned ubx_ws_hex_digits(const ub_field *fd)
{
    unsigned nb = ub_field_ws_bytes(fd); /* the plugin's FT_UINTn */
    return nb > 4 ? 16 : 2 * (nb ? nb : 1);
}

size_t ubx_value_ws(const ub_field *fd, const ub_val *v, char *buf, size_t n)
{
    if (fd->type == UB_FT_GUID_WS) { /* wire order, not R-34's canonical GUID */
        if (!n) return 0;
        size_t nb = v->nbytes < (n - 1) / 2 ? v->nbytes : (n - 1) / 2; /* the bytes whose digits fit */
        ub_hex_bytes(buf, v->bytes, nb);
        buf[2 * nb] = '\0';
        return 2 * nb;
    }
    uint64_t u = v->u;
    if ((fd->type != UB_FT_UINT && fd->type != UB_FT_BOOL) || (fd->flags & UB_FF_SIGNED)) return 0;
    if (fd->base == UB_BASE_DEC_HEX) { /* tshark shows BASE_DEC_HEX values in decimal */
        if (n > 20) return put_dec(buf, u);
        int w = snprintf(buf, n, "%" PRIu64, u);
        return w < 0 ? 0 : (size_t)w;
    }
    if (fd->base != UB_BASE_HEX) return 0;
    unsigned digits = ubx_ws_hex_digits(fd), need = digits;
    while (need < 16 && (u >> (4 * need))) need++; /* never cut a value (as %0*x) */
    if (n < need + 3) return 0;
    return put_hex_ws(buf, u, digits); /* no printf per value */
}

size_t ubx_value_text(const ub_hdr *h, const ub_field *f, const ub_val *val, char *buf, size_t n)
{
    size_t k = ub_hdr_foreign(h) ? 0 : ubx_value_ws(f, val, buf, n); /* tshark's FT_UINTn digits */
    if (!k && f->type == UB_FT_BYTES && val->nbytes == 0) { /* tshark's text of empty bytes */
        static const char miss[] = "<MISSING>";
        k = sizeof miss - 1 < n ? sizeof miss - 1 : n - 1;
        memcpy(buf, miss, k);
        buf[k] = '\0';
    }
    if (!k) k = ub_format_value(f, val, false, buf, n);
    return k < n ? k : strlen(buf);
}

/* ------------------------------------------------------------------ the names that are not schema rows */
const ubx_pseudo ubx_pseudo_names[] = {
    { "ub.error", PF_UB_ERROR, "Error names", "-" },
    { "frame.number", PF_FRAME_NUMBER, "Frame number", "frame" },
    { "frame.len", PF_FRAME_LEN, "Frame length on the wire", "frame" },
    { "frame.cap_len", PF_FRAME_CAP_LEN, "Frame length stored", "frame" },
    { "frame.time", PF_FRAME_TIME, "Arrival time", "frame" },
    { "frame.time_epoch", PF_FRAME_TIME_EPOCH, "Epoch time", "frame" },
    { "frame.time_relative", PF_FRAME_TIME_REL, "Time since the first frame", "frame" },
    { "frame.time_delta", PF_FRAME_TIME_DELTA, "Time since the previous captured frame", "frame" },
    { "frame.time_delta_displayed", PF_FRAME_TIME_DELTA_DISP, "Time since the previous displayed frame", "frame" },
    { "frame.interface_id", PF_FRAME_IFID, "Interface id (pcapng)", "frame" },
    { "frame.p2p_dir", PF_FRAME_P2P_DIR, "Direction", "frame" },
    { "frame.comment", PF_FRAME_COMMENT, "Comment (pcapng)", "frame" },
    { "frame.protocols", PF_FRAME_PROTOCOLS, "Protocols in frame", "frame" },
    { "_ws.col.No.", PF_COL_NO, "No. column", "column" },
    { "_ws.col.Time", PF_COL_TIME, "Time column", "column" },
    { "_ws.col.Source", PF_COL_SRC, "Source column", "column" },
    { "_ws.col.Destination", PF_COL_DST, "Destination column", "column" },
    { "_ws.col.Protocol", PF_COL_PROTOCOL, "Protocol column", "column" },
    { "_ws.col.Length", PF_COL_LENGTH, "Length column", "column" },
    { "_ws.col.Info", PF_COL_INFO, "Info column", "column" },
    { "_ws.col.info", PF_COL_INFO, NULL, NULL },
    { "ub.cna", PF_UB_CNA, "CNA (source or destination)", "plugin" },
    { "ub.eid", PF_UB_EID, "EID (source or destination)", "plugin" },
};
const size_t ubx_npseudo = sizeof ubx_pseudo_names / sizeof ubx_pseudo_names[0];

/* ------------------------------------------------------------------ Wireshark's own names */
const ub_layer *ubx_first_of(const ub_view *v, unsigned a, unsigned b)
{
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++)
        if (v->layer[i].hdr && (v->layer[i].hdr->id == a || v->layer[i].hdr->id == b) && !(v->layer[i].flags & UB_LF_OUTER))
            return &v->layer[i]; /* not a tunnel's delivery header */
    return NULL;
}

bool ubx_u24(const ub_layer *l, const char *name, char *buf, size_t n)
{
    uint64_t u;
    if (!ub_layer_u(l, name, &u)) return false;
    snprintf(buf, n, "0x%06" PRIx64, u & 0xffffff);
    return true;
}

bool ubx_field_text(const ub_layer *l, const ub_field *fd, bool colons, char *buf, size_t n)
{
    ub_val val;
    if (!n || ub_field_value(l, fd, &val) != 0) return false;
    if (fd->type == UB_FT_BYTES || fd->type == UB_FT_GUID || fd->type == UB_FT_GUID_WS) { /* wire order */
        size_t k = 0, step = colons ? 3 : 2;
        for (uint32_t i = 0; i < val.nbytes && k + step + 1 <= n; i++) {
            if (colons && i) buf[k++] = ':';
            ub_hex_bytes(buf + k, val.bytes + i, 1);
            k += 2;
        }
        buf[k] = '\0';
        return true;
    }
    if (ubx_value_ws(fd, &val, buf, n)) return true;
    ub_format_value(fd, &val, false, buf, n);
    return true;
}

bool ubx_ws_text(const ub_layer *l, const ub_wsname *w, bool colons, char *buf, size_t n)
{
    const ub_field *fd = ub_layer_row(l, w->ub[0]);
    if (!fd) return false;
    uint64_t v;
    if (!(w->flags & (UB_WS_SPAN | UB_WS_BOOL | UB_WS_LEN | UB_WS_TYPE)) && !w->scale && !w->hex)
        return ubx_field_text(l, fd, colons, buf, n);
    if (!ub_ws_number(l, w, &v) || !ub_ws_cond(w->flags, v)) return false;
    if (w->flags & UB_WS_TYPE) return ubx_field_text(l, fd, colons, buf, n);
    if (w->hex) snprintf(buf, n, "0x%0*" PRIx64, (int)w->hex, v);
    else snprintf(buf, n, "%" PRIu64, v);
    return true;
}

/* a protocol of Wireshark's names (eth, ip, udp, ...: the entries without a field part) */
bool ubx_ws_proto_named(const char *name)
{
    const ub_wsname *w;
    return ub_ws_find(name, &w, 1) == 1 && ub_ws_is_proto(w);
}

/* Wireshark's name w (ip.src, udp.port, ...) in the layers Wireshark's own dissectors show
 * (filter.h ub_ws_layers), in tree order; a name of two rows (ip.addr) gives both, in the header's
 * order (eth.addr: destination first) */
void ubx_ws_field(const ub_view *v, const ub_wsname *const ws[2], ubx_sbuf *b)
{
    char buf[3 * UB_MAX_NETPKT + 64]; /* data.data: the longest value */
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    ub_ws_layers wl;
    ub_ws_layers_of(v, &wl);
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        if (!ub_ws_layers_has(&wl, i)) continue;
        const ub_wsname *w = ws[0];
        if (ws[1] && !ub_layer_row(l, w->ub[0])) w = ws[1]; /* ip.version of an IPv6 header */
        if (!(w->flags & UB_WS_NOJSON) || !w->ub[1]) { /* one row, a span, a scaled row */
            if (ubx_ws_text(l, w, false, buf, sizeof buf)) ubx_sb_occ(b, buf);
            continue;
        }
        const ub_field *r0 = ub_layer_row(l, w->ub[0]), *r1 = ub_layer_row(l, w->ub[1]);
        if (!r0 || !r1) continue;
        if (ubx_field_text(l, r0 < r1 ? r0 : r1, false, buf, sizeof buf)) ubx_sb_occ(b, buf);
        if (ubx_field_text(l, r0 < r1 ? r1 : r0, false, buf, sizeof buf)) ubx_sb_occ(b, buf);
    }
}

void ubx_hidden_pair(const ub_view *v, bool cna, ubx_sbuf *b)
{
    const ub_layer *l = cna ? ubx_first_of(v, UB_H_NTH16, UB_H_NTH24) : ubx_first_of(v, UB_H_EIDH40, UB_H_EIDH256);
    char s0[16], s1[16];
    if (l && (cna || l->hdr->id == UB_H_EIDH40) && ubx_u24(l, cna ? "ub.nth.scna" : "ub.eidh.seid", s0, sizeof s0) &&
        ubx_u24(l, cna ? "ub.nth.dcna" : "ub.eidh.deid", s1, sizeof s1)) {
        ubx_sb_occ(b, s0);
        ubx_sb_occ(b, s1);
    }
}

/* ------------------------------------------------------------------ tshark's columns */
/* the IP layer of v whose addresses the columns show: the first IPv4/IPv6 (UBoE's outer one, CFG 3's,
 * a plain IP part, traffic that is not UB) */
static const ub_layer *col_ip(const ub_view *v) { return ubx_first_of(v, UB_H_IPV4, UB_H_IPV6); }

/* does row abbrev of layer l hold value x? */
static bool row_is(const ub_layer *l, const char *abbrev, uint64_t x)
{
    uint64_t u;
    return ub_layer_u(l, abbrev, &u) && u == x;
}

const char *ubx_col_protocol(const ub_view *v, char *buf, size_t n)
{
    unsigned plo, phi;
    bool plain = ub_view_plain_ip(v, &plo, &phi);
    if (v->kind == UB_KIND_DLLCB || (ub_view_ub(v) && !plain)) return ub_view_protocol(v); /* the plugin's */
    if (v->neigh & UB_VN_SUE) return "SUE"; /* the plugin's neighbours (packet-neigh.c) */
    if (v->neigh & UB_VN_PCIE || ub_view_pcie_noflit(v)) return "PCIe flit";
    if (v->neigh & UB_VN_IB) return "RRoCE"; /* Wireshark's InfiniBand dissector on UDP 4791 */
    /* Wireshark's own dissectors: the top header ubdump decodes, as Wireshark names it (it may name a
     * protocol above it that ubdump does not decode: DNS, SSH, ...) */
    const char *name = NULL;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    for (unsigned i = plain ? plo : 0; i < (plain ? phi : nl); i++) {
        const ub_layer *l = &v->layer[i];
        if (l->flags & UB_LF_QUOTED) continue; /* an ICMP error's quoted datagram */
        switch (l->hdr ? l->hdr->id : UB_H_NONE) {
        case UB_H_ETH: { /* Ethernet alone */
            uint64_t t = 0;
            const ub_ethertype *own;
            if (name && !(i && (v->layer[i - 1].flags & UB_LF_OUTER))) break; /* a tunnel's inner frame: its own */
            switch (ub_ws_eth_next(v, i, &t, &own)) {
            case UB_WSE_CUT: case UB_WSE_KNOWN: name = "Ethernet"; break;
            case UB_WSE_STP: name = "STP"; break;
            case UB_WSE_LLC: case UB_WSE_SNAP: name = "LLC"; break; /* (SNAP: IP after it names itself) */
            case UB_WSE_LLDP: name = "LLDP"; break;
            case UB_WSE_OWN: name = own->ws_col; break;
            case UB_WSE_UNKNOWN: case UB_WSE_BARE: /* a number Wireshark has no dissector for: the number */
                snprintf(buf, n, "0x%04" PRIx64, t);
                name = buf;
                break;
            }
            break;
        }
        case UB_H_ARP: name = "ARP"; break;
        case UB_H_NULL: case UB_H_NULL_LE: if (!name) name = "NULL"; break; /* BSD loopback alone */
        case UB_H_IPV4: name = row_is(l, "ub.ipv4.protocol", 1) && !(l->flags & UB_LF_TRUNC) ? "ICMP" : "IPv4"; break;
        case UB_H_IPV6: name = row_is(l, "ub.ipv6.next_header", 58) && !(l->flags & UB_LF_TRUNC) ? "ICMPv6" : "IPv6"; break;
        case UB_H_UDP: /* Wireshark's UDP names itself once it has read the ports; the InfiniBand dissector
                        * (RRoCE) gets the payload when some of it was captured */
            if (l->len >= 4) name = ub_ws_udp_infiniband(l) && i + 1 < nl && v->layer[i + 1].len ? "RRoCE" : "UDP";
            break;
        case UB_H_TCP: name = "TCP"; break;
        case UB_H_DATA: { /* IGMP, ESP, OSPF, ... after IP: Wireshark's dissector names the column */
            const ub_ethertype *ipo = ub_ws_ip_own(v, i);
            if (ipo) name = ub_ipproto_col(ipo, l->data, l->len, buf, n);
            break;
        }
        case UB_H_IP6_HOPOPTS: case UB_H_IP6_ROUTING: case UB_H_IP6_FRAGHDR: case UB_H_IP6_DSTOPTS: case UB_H_AH: {
            /* an extension header names nothing; ICMP's dissectors after it do (as after IP, above) */
            unsigned nx;
            bool frag;
            if (!(l->flags & UB_LF_TRUNC) && ub_ip_layer_next(l, &nx, &frag) && !frag && (nx == 1 || nx == 58))
                name = nx == 1 ? "ICMP" : "ICMPv6";
            break;
        }
        default: break;
        }
    }
    return name ? name : "UB";
}

bool ubx_col_addr(const ub_view *v, bool dst, char *buf, size_t n)
{
    const ub_layer *l = ubx_first_of(v, UB_H_NTH16, UB_H_NTH24);
    if (l && ub_view_ub(v)) { /* the plugin's CNA address type: two hex digits a byte (packet-ub-addr.c) */
        uint64_t s, d; /* both or neither, as the plugin sets them (a truncated NTH: neither) */
        if (!ub_layer_u(l, "ub.nth.scna", &s) || !ub_layer_u(l, "ub.nth.dcna", &d)) return false;
        snprintf(buf, n, "0x%0*" PRIx64, l->hdr->id == UB_H_NTH24 ? 6 : 4, dst ? d : s);
        return true;
    }
    if ((l = col_ip(v))) {
        bool v4 = l->hdr->id == UB_H_IPV4;
        const ub_field *f = ub_layer_row(l, v4 ? (dst ? "ub.ipv4.dst" : "ub.ipv4.src") : (dst ? "ub.ipv6.dst" : "ub.ipv6.src"));
        if (f && ubx_field_text(l, f, false, buf, n)) return true;
        if (!(l->flags & UB_LF_TRUNC) || ub_view_ub(v)) return false;
        /* an IP header cut before this address: the column keeps what the link layer set */
    }
    if (ub_view_ub(v) || !v->nlayers || !v->layer[0].hdr) return false;
    l = &v->layer[0]; /* an Ethernet link (Ethernet, SUE's AFH in its place): the MAC addresses */
    for (unsigned i = 0; i + 1 < v->nlayers && i + 1 < UB_MAX_LAYERS && (l->flags & UB_LF_OUTER); i++)
        l = &v->layer[i + 1]; /* a tunnel's inner frame: its own */
    unsigned id = l->hdr->id;
    if ((id != UB_H_ETH && (id < UB_H_SUE_AFH0 || id > UB_H_SUE_AFH2)) || l->len < (dst ? 6u : 12u)) return false;
    const uint8_t *a = l->data + (dst ? 0 : 6);
    snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
    return true;
}

/* ------------------------------------------------------------------ the compiled fields */
/* ubx_value_text; "0x" + digits; decimal; the bytes in hex (all as ubx_value_text gives them) */
enum { K_TEXT, K_HEX, K_DEC, K_HEXB };

typedef struct fop {
    const ub_hdr *h;
    const ub_field *f;
    unsigned ei;    /* the -e field */
    uint8_t kind;   /* K_* */
    uint8_t digits; /* K_HEX: at least these */
    /* a plain big-endian row inside 8 bytes (no virtual, encoded or signed row): read here as
     * ub_field_value reads it (MSB-first bit numbering, absent unless wholly inside the layer) */
    bool plain;
    uint8_t first, nb, shift; /* its bytes [first, first + nb), the bits after it in the last one */
    uint32_t need;            /* bytes the layer must have */
    uint64_t mask;
} fop;

struct ubx_fset {
    fop *op;                        /* sorted by header id, in the order added within one id */
    unsigned nop, cap;
    uint16_t first[UB_H__COUNT];    /* op[first[id] .. first[id] + cnt[id]) */
    uint16_t cnt[UB_H__COUNT];
    bool other; /* an op not plain (ubx_fset_line cannot write it) */
    uint8_t want[1u << 16]; /* by ub_hdr.id (uint16_t): 1 when cnt[id], no range check per layer */
};

ubx_fset *ubx_fset_new(void) { return calloc(1, sizeof(ubx_fset)); }

void ubx_fset_free(ubx_fset *s)
{
    if (!s) return;
    free(s->op);
    free(s);
}

int ubx_fset_add(ubx_fset *s, unsigned ei, const ub_hdr *h, const ub_field *f)
{
    if (!h || !f || h->id >= UB_H__COUNT) return 0; /* never matches a layer (view_field: the same) */
    if (s->nop == s->cap) {
        unsigned cap = s->cap ? 2 * s->cap : 16;
        if (cap > UINT16_MAX) return -1;
        fop *n = realloc(s->op, cap * sizeof *n);
        if (!n) return -1;
        s->op = n;
        s->cap = cap;
    }
    fop o = { .h = h, .f = f, .ei = ei, .kind = K_TEXT };
    bool uint = (f->type == UB_FT_UINT || f->type == UB_FT_BOOL) && !(f->flags & UB_FF_SIGNED);
    bool foreign = ub_hdr_foreign(h);
    if (uint && !foreign && f->base == UB_BASE_HEX) {
        o.kind = K_HEX;
        o.digits = (uint8_t)ubx_ws_hex_digits(f);
    } else if (uint && (f->base == UB_BASE_DEC || (f->base == UB_BASE_DEC_HEX && !foreign))) {
        o.kind = K_DEC; /* ubx_value_ws (DEC_HEX) or ub_format_value (DEC, no names): the decimal digits */
    }
    if (!(f->flags & UB_FF_VIRTUAL) && (f->type == UB_FT_BYTES || f->type == UB_FT_GUID ||
                                        (f->type == UB_FT_GUID_WS && !foreign && f->bits && f->bits <= 8 * 1000)))
        o.kind = K_HEXB; /* ub_format_value's (or, R-34 GUIDs, ubx_value_ws's wire-order) hex, "<MISSING>" when empty */
    uint64_t end = (uint64_t)f->bit_off + f->bits;
    if ((o.kind == K_HEX || o.kind == K_DEC) && !(f->flags & (UB_FF_VIRTUAL | UB_FF_ENCODED)) && f->bits >= 1 && f->bits <= 64 &&
        (end - 1) / 8 - f->bit_off / 8 < 8 && f->bit_off / 8 <= UINT8_MAX) {
        o.plain = true;
        o.first = (uint8_t)(f->bit_off / 8);
        o.nb = (uint8_t)((end - 1) / 8 - f->bit_off / 8 + 1);
        o.shift = (uint8_t)(o.nb * 8u - (f->bit_off & 7u) - f->bits);
        o.need = (uint32_t)((end + 7) / 8);
        o.mask = f->bits < 64 ? (1ull << f->bits) - 1u : ~0ull;
    }
    if (!o.plain) s->other = true;
    /* insert after the last op of the same id: ops stay grouped by id, in the order added */
    unsigned at = s->cnt[h->id] ? s->first[h->id] + s->cnt[h->id] : s->nop;
    memmove(&s->op[at + 1], &s->op[at], (s->nop - at) * sizeof *s->op);
    s->op[at] = o;
    s->nop++;
    for (unsigned id = 0; id < UB_H__COUNT; id++)
        if (s->cnt[id] && s->first[id] >= at && id != h->id) s->first[id]++;
    if (!s->cnt[h->id]) s->first[h->id] = (uint16_t)at;
    s->cnt[h->id]++;
    s->want[h->id] = 1;
    return 0;
}

/* a value of the general kind, appended */
static __attribute__((noinline)) void text_occ(ubx_sbuf *b, const fop *o, const ub_val *val)
{
    char buf[2200];
    size_t k = ubx_value_text(o->h, o->f, val, buf, sizeof buf);
    ubx_sb_put(b, buf, k);
}

/* a byte string's hex, appended */
static void hexb_occ(ubx_sbuf *b, const fop *o, const ub_val *val)
{
    if (val->nbytes == 0) {
        if (o->f->type == UB_FT_BYTES) ubx_sb_put(b, "<MISSING>", 9); /* tshark's text of empty bytes */
        return;
    }
    ubx_sb_hex(b, val->bytes, val->nbytes);
}

void ubx_sb_hex(ubx_sbuf *b, const uint8_t *p, size_t n)
{
    size_t k = 2 * n; /* every byte, as tshark: no cut however long the value */
    if (!sb_reserve(b, k)) return;
    char *w = b->p + b->n;
    ub_hex_bytes(w, p, n);
    b->n += k;
    b->p[b->n] = '\0';
}

/* a plain op's value: its bytes big-endian, one load for the usual widths (the layer holds o->need bytes) */
static inline uint64_t plain_get(const fop *o, const uint8_t *data)
{
    const uint8_t *p = data + o->first;
    uint64_t u;
    switch (o->nb) {
    case 1: u = p[0]; break;
    case 2: u = (uint64_t)p[0] << 8 | p[1]; break;
    case 4: {
        uint32_t w;
        memcpy(&w, p, 4);
        u = __builtin_bswap32(w);
        break;
    }
    default:
        u = 0;
        for (const uint8_t *pe = p + o->nb; p < pe; p++) u = u << 8 | *p;
    }
    return u >> o->shift & o->mask;
}

void ubx_fset_view(const ubx_fset *s, const ub_view *v, ubx_sbuf *fb)
{
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers; /* UB_MAX_LAYERS + 1: too deep */
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        uint16_t id = l->hdr->id;
        if (!s->want[id]) continue;
        for (const fop *o = &s->op[s->first[id]], *e = o + s->cnt[id]; o < e; o++) {
            if (l->hdr != o->h) continue;
            ub_val val;
            if (o->plain) {
                if (l->len < o->need) continue; /* not wholly inside the layer: absent */
                val.u = plain_get(o, l->data);
            } else if (ub_field_value(l, o->f, &val) != 0) {
                continue;
            }
            ubx_sbuf *b = &fb[o->ei];
            if (!sb_reserve(b, 1 + 20)) continue; /* a separator and an integer's text */
            char *w = b->p + b->n;
            if (b->any) *w++ = UBX_OCC_SEP;
            b->any = true;
            size_t k;
            switch (o->kind) {
            case K_HEX: k = put_hex_ws(w, val.u, o->digits); break;
            case K_DEC: k = put_dec(w, val.u); break;
            case K_HEXB:
                b->n = (size_t)(w - b->p);
                hexb_occ(b, o, &val);
                continue;
            default:
                b->n = (size_t)(w - b->p);
                text_occ(b, o, &val);
                continue;
            }
            b->n = (size_t)(w - b->p) + k;
        }
    }
}

bool ubx_fset_line(const ubx_fset *s, const ub_view *v, ubx_lbuf *lb, const ubx_csv *c, unsigned n)
{
    enum { MAXN = 32 };
    if (s->other || n > MAXN) return false;
    uint64_t val[MAXN];
    const fop *op[MAXN];
    uint32_t seen = 0;
    unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers; /* as ubx_fset_view */
    for (const ub_layer *l = v->layer, *le = l + nl; l < le; l++) {
        uint16_t id = l->hdr->id;
        if (!s->want[id]) continue;
        for (const fop *o = &s->op[s->first[id]], *e = o + s->cnt[id]; o < e; o++) {
            if (l->hdr != o->h || l->len < o->need) continue; /* not wholly inside the layer: absent */
            uint32_t bit = 1u << o->ei;
            if (seen & bit) return false; /* a second occurrence: the general path joins them */
            seen |= bit;
            val[o->ei] = plain_get(o, l->data);
            op[o->ei] = o;
        }
    }
    /* a value: a separator, quote, at most 20 decimal digits and their NUL, quote; the line end */
    if (lb->o.n + (size_t)n * 24 + 1 > sizeof lb->p) ubx_lb_flush(lb);
    char *w = lb->p + lb->o.n;
    for (unsigned i = 0; i < n; i++) {
        if (i) *w++ = c->sep;
        if (!(seen >> i & 1)) continue; /* absent: empty, even with quote= */
        if (c->quote) *w++ = c->quote;
        w += op[i]->kind == K_HEX ? put_hex_ws(w, val[i], op[i]->digits) : put_dec(w, val[i]);
        if (c->quote) *w++ = c->quote;
    }
    *w++ = '\n';
    lb->o.n = (size_t)(w - lb->p);
    if (lb->each || lb->o.n > sizeof lb->p - 4096) ubx_lb_flush(lb);
    return true;
}

/* ------------------------------------------------------------------ the lines */
void ubx_lb_init(ubx_lbuf *lb, FILE *f, bool each_line)
{
    lb->o = (ub_obuf){ f, lb->p, 0, sizeof lb->p };
    lb->each = each_line;
}

#define lb_putc ubx_lb_putc

void ubx_lb_endline(ubx_lbuf *lb)
{
    lb_putc(lb, '\n');
    if (lb->each || lb->o.n > sizeof lb->p - 4096) ubx_lb_flush(lb);
}

/* one occurrence, escaped: \n \r \t as tshark; a quote character inside a quoted value doubled (RFC 4180) */
static void csv_put(ubx_lbuf *lb, const ubx_csv *c, const char *s, size_t n)
{
    size_t run = 0; /* s[run..i): plain bytes not yet written */
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool esc = ch == '\n' || ch == '\r' || (ch == '\t' && c->sep == '\t');
        if (!esc && !(c->quote && ch == c->quote)) continue;
        ubx_lb_put(lb, s + run, i - run);
        run = i + 1;
        if (esc) ubx_lb_put(lb, ch == '\n' ? "\\n" : ch == '\r' ? "\\r" : "\\t", 2);
        else {
            lb_putc(lb, c->quote);
            lb_putc(lb, c->quote);
        }
    }
    ubx_lb_put(lb, s + run, n - run);
}

static void csv_any(ubx_lbuf *lb, const ubx_csv *c, const char *vals, size_t len);

/* one field value: the occurrences in vals (joined by agg, selected by occurrence), quoted, escaped
 * (dirty false: vals holds only hex and decimal text, nothing to escape) */
static inline void lb_csv(ubx_lbuf *lb, const ubx_csv *c, const char *vals, size_t len, bool dirty)
{
    if (!len) return; /* tshark: an absent field is empty, even with quote= */
    if (!dirty && c->occurrence == 'a' && lb->o.n + len + 2 <= sizeof lb->p) { /* digits, occurrences joined */
        char *w = lb->p + lb->o.n;
        if (c->quote) *w++ = c->quote;
        if (len < 32) { /* short: a byte loop beats the calls */
            for (size_t i = 0; i < len; i++) *w++ = vals[i] == UBX_OCC_SEP ? c->agg : vals[i];
        } else {
            for (const char *p = vals, *e = vals + len;;) {
                const char *q = memchr(p, UBX_OCC_SEP, (size_t)(e - p));
                size_t k = (size_t)((q ? q : e) - p);
                memcpy(w, p, k);
                w += k;
                if (!q) break;
                *w++ = c->agg;
                p = q + 1;
            }
        }
        if (c->quote) *w++ = c->quote;
        lb->o.n = (size_t)(w - lb->p);
        return;
    }
    if (c->occurrence == 'a' && lb->o.n + 2 * len + 2 <= sizeof lb->p) { /* all occurrences: one pass, in place */
        char *w = lb->p + lb->o.n;
        if (c->quote) *w++ = c->quote;
        for (size_t i = 0; i < len; i++) {
            char ch = vals[i];
            if ((unsigned char)ch > '\'') *w++ = ch; /* above every byte that needs care */
            else if (ch == UBX_OCC_SEP) *w++ = c->agg;
            else if (ch == '\n' || ch == '\r' || (ch == '\t' && c->sep == '\t')) {
                *w++ = '\\';
                *w++ = ch == '\n' ? 'n' : ch == '\r' ? 'r' : 't';
            } else {
                if (c->quote && ch == c->quote) *w++ = ch;
                *w++ = ch;
            }
        }
        if (c->quote) *w++ = c->quote;
        lb->o.n = (size_t)(w - lb->p);
        return;
    }
    csv_any(lb, c, vals, len);
}

/* -T psml: the values as tshark's <packet> of <section>s, XML-escaped */
static void psml_line(ubx_lbuf *lb, const ubx_sbuf *fb, unsigned n)
{
    ubx_lb_put(lb, "<packet>\n", 9);
    for (unsigned i = 0; i < n; i++) {
        ubx_lb_put(lb, "<section>", 9);
        for (size_t k = 0; k < fb[i].n; k++) {
            char ch = fb[i].p[k] == UBX_OCC_SEP ? ',' : fb[i].p[k];
            const char *e = ub_xml_esc((unsigned char)ch); /* the JUnit report's escaping */
            if (e) ubx_lb_put(lb, e, strlen(e));
            else lb_putc(lb, ch);
        }
        ubx_lb_put(lb, "</section>\n", 11);
    }
    ubx_lb_put(lb, "</packet>\n", 10);
    ubx_lb_endline(lb);
}

/* -T tabs: the default columns (No., Time, Source, Destination, Protocol, Length, Info) as tshark's
 * print_columns writes them: No. right-aligned in 5, Time right-aligned in 10, Source right-aligned and
 * Destination left-aligned in 12, a "→" column between them, tabs between columns */
static void tabs_line(ubx_lbuf *lb, const ubx_sbuf *fb, unsigned n)
{
    static const int width[4] = { 5, 10, 12, -12 };
    for (unsigned i = 0; i < n; i++) {
        if (i) ubx_lb_put(lb, i == 3 ? "\t\xe2\x86\x92\t" : "\t", i == 3 ? 5 : 1); /* U+2192 */
        const int w = i < 4 ? width[i] : 0, pad = (w < 0 ? -w : w) - (int)fb[i].n;
        for (int k = 0; w > 0 && k < pad; k++) lb_putc(lb, ' ');
        for (size_t k = 0; k < fb[i].n; k++) lb_putc(lb, fb[i].p[k] == UBX_OCC_SEP ? ',' : fb[i].p[k]);
        for (int k = 0; w < 0 && k < pad; k++) lb_putc(lb, ' ');
    }
    ubx_lb_endline(lb);
}

void ubx_lb_line(ubx_lbuf *lb, const ubx_csv *c, const ubx_sbuf *fb, unsigned n)
{
    if (c->psml) {
        psml_line(lb, fb, n);
        return;
    }
    if (c->tabs) {
        tabs_line(lb, fb, n);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        if (i) lb_putc(lb, c->sep);
        lb_csv(lb, c, fb[i].p, fb[i].n, fb[i].dirty);
    }
    ubx_lb_endline(lb);
}

static void csv_any(ubx_lbuf *lb, const ubx_csv *c, const char *vals, size_t len)
{
    const char *end = vals + len, *p = vals;
    if (c->occurrence == 'l') {
        for (const char *q = end; q > vals; q--)
            if (q[-1] == UBX_OCC_SEP) { p = q; break; }
    }
    if (c->quote) lb_putc(lb, c->quote);
    bool first = true;
    while (p < end) {
        const char *q = memchr(p, UBX_OCC_SEP, (size_t)(end - p));
        const char *e = q ? q : end;
        if (!first) lb_putc(lb, c->agg);
        csv_put(lb, c, p, (size_t)(e - p));
        first = false;
        if (c->occurrence != 'a' || !q) break;
        p = q + 1;
    }
    if (c->quote) lb_putc(lb, c->quote);
}
