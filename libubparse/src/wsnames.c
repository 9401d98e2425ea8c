/* Wireshark's names of the headers outside UB (filter.h ub_ws_names): the one table both the
 * display filter (filter.c) and ubdump's tshark-shaped JSON (-T json|ek) read. Order = the order of
 * the items in Wireshark's own dissectors (eth, vlan, ip, ipv6, udp, tcp of Wireshark 4.0), so the
 * JSON lists a layer's keys as tshark does (arp, icmp, icmpv6 and data: Wireshark's names for what is not UB). A name
 * may have more than one entry (ip.version: IPv4's row, and IPv6's as Wireshark also shows it there). */
#include "ubparse/filter.h"
#include "ubparse/ubparse.h"
#include "neigh.h"

#include <string.h>

#define J UB_WS_NOJSON
#define S (UB_WS_SPAN | UB_WS_NOFILTER)
#define B UB_WS_BOOL
#define P UB_WS_PROTO
static const ub_wsname ws_names[] = {
    { "null", { "ub.null" }, NULL, 0, 0, 0 },
    { "null.family", { "ub.null.family" }, NULL, 0, 0, 0 },
    { "eth", { "ub.eth" }, NULL, 0, 0, 0 },
    { "eth.dst", { "ub.eth.dst" }, NULL, 0, 0, 0 },
    { "eth.src", { "ub.eth.src" }, NULL, 0, 0, 0 },
    { "eth.addr", { "ub.eth.src", "ub.eth.dst" }, NULL, J, 0, 0 },
    { "eth.type", { "ub.eth.type" }, NULL, UB_WS_TYPE, 0, 0 },
    { "eth.len", { "ub.eth.type" }, NULL, UB_WS_LEN, 0, 0 }, /* IEEE 802.3: the same two bytes are a length */
    { "vlan", { "ub.vlan" }, NULL, 0, 0, 0 },
    { "vlan.priority", { "ub.vlan.pcp" }, NULL, 0, 0, 0 },
    { "vlan.dei", { "ub.vlan.dei" }, NULL, B, 0, 0 },
    { "vlan.id", { "ub.vlan.vid" }, NULL, 0, 0, 0 },
    { "vlan.etype", { "ub.vlan.type" }, NULL, UB_WS_TYPE, 0, 0 },
    { "vlan.len", { "ub.vlan.type" }, NULL, UB_WS_LEN, 0, 0 }, /* IEEE 802.3 after the tag */
    { "ieee8021ad", { "ub.ieee8021ad" }, NULL, 0, 0, 0 }, /* an S-tag (TPID 0x88A8) */
    { "ieee8021ad.priority", { "ub.ieee8021ad.pcp" }, NULL, 0, 0, 0 },
    { "ieee8021ad.dei", { "ub.ieee8021ad.dei" }, NULL, 0, 0, 0 },
    { "ieee8021ad.id", { "ub.ieee8021ad.vid" }, NULL, 0, 0, 0 },
    { "ieee8021ah.etype", { "ub.ieee8021ad.type" }, NULL, 0, 0, 0 },
    { "llc", { "ub.llc" }, NULL, 0, 0, 0 }, /* LLC/SNAP after an IEEE 802.3 length (other LLC PDUs: data) */
    { "llc.dsap", { "ub.llc.dsap" }, NULL, 0, 0, 0 },
    { "llc.ssap", { "ub.llc.ssap" }, NULL, 0, 0, 0 },
    { "llc.control", { "ub.llc.control" }, NULL, 0, 0, 4 },
    { "llc.oui", { "ub.llc.oui" }, NULL, 0, 0, 0 },
    { "llc.type", { "ub.llc.type" }, NULL, 0, 0, 0 },
    { "ip", { "ub.ipv4" }, NULL, 0, 0, 0 },
    { "ip.version", { "ub.ipv4.version" }, NULL, 0, 0, 0 },
    { "ip.hdr_len", { "ub.ipv4.ihl" }, NULL, 0, 4, 0 },                        /* bytes: IHL x 4 */
    { "ip.dsfield", { "ub.ipv4.dscp", "ub.ipv4.ecn" }, NULL, S, 0, 2 },         /* the TOS byte */
    { "ip.dsfield.dscp", { "ub.ipv4.dscp" }, "ip.dsfield", 0, 0, 0 },
    { "ip.dsfield.ecn", { "ub.ipv4.ecn" }, "ip.dsfield", 0, 0, 0 },
    { "ip.len", { "ub.ipv4.total_length" }, NULL, 0, 0, 0 },
    { "ip.id", { "ub.ipv4.identification" }, NULL, 0, 0, 0 },
    { "ip.flags", { "ub.ipv4.rsvd0", "ub.ipv4.mf" }, NULL, S, 0, 2 },          /* the 3 flag bits */
    { "ip.flags.rb", { "ub.ipv4.rsvd0" }, "ip.flags", B, 0, 0 },
    { "ip.flags.df", { "ub.ipv4.df" }, "ip.flags", B, 0, 0 },
    { "ip.flags.mf", { "ub.ipv4.mf" }, "ip.flags", B, 0, 0 },
    { "ip.frag_offset", { "ub.ipv4.frag_offset" }, NULL, 0, 0, 0 },
    { "ip.ttl", { "ub.ipv4.ttl" }, NULL, 0, 0, 0 },
    { "ip.proto", { "ub.ipv4.protocol" }, NULL, 0, 0, 0 },
    { "ip.checksum", { "ub.ipv4.checksum" }, NULL, 0, 0, 0 },
    { "ip.src", { "ub.ipv4.src" }, NULL, 0, 0, 0 },
    { "ip.dst", { "ub.ipv4.dst" }, NULL, 0, 0, 0 },
    { "ip.addr", { "ub.ipv4.src", "ub.ipv4.dst" }, NULL, J, 0, 0 },
    { "ipv6", { "ub.ipv6" }, NULL, 0, 0, 0 },
    { "ipv6.version", { "ub.ipv6.version" }, NULL, 0, 0, 0 },
    { "ip.version", { "ub.ipv6.version" }, NULL, J, 0, 0 }, /* Wireshark's IPv6 dissector adds a hidden ip.version too */
    { "ipv6.tclass", { "ub.ipv6.traffic_class" }, NULL, 0, 0, 8 },             /* FT_UINT32 */
    { "ipv6.flow", { "ub.ipv6.flow_label" }, NULL, 0, 0, 0 },
    { "ipv6.plen", { "ub.ipv6.payload_length" }, NULL, 0, 0, 0 },
    { "ipv6.nxt", { "ub.ipv6.next_header" }, NULL, 0, 0, 0 },
    { "ipv6.hlim", { "ub.ipv6.hop_limit" }, NULL, 0, 0, 0 },
    { "ipv6.src", { "ub.ipv6.src" }, NULL, 0, 0, 0 },
    { "ipv6.dst", { "ub.ipv6.dst" }, NULL, 0, 0, 0 },
    { "ipv6.addr", { "ub.ipv6.src", "ub.ipv6.dst" }, NULL, J, 0, 0 },
    /* IP extension headers (net.c dec_ip_ext): Wireshark 4.0's ipv6.hopopts, .routing, .fraghdr, .dstopts, ah */
    { "ipv6.hopopts", { "ub.ipv6_hopopts" }, NULL, P, 0, 0 },
    { "ipv6.hopopts.nxt", { "ub.ipv6_hopopts.nxt" }, NULL, 0, 0, 0 },
    { "ipv6.hopopts.len", { "ub.ipv6_hopopts.len" }, NULL, 0, 0, 0 },
    { "ipv6.routing", { "ub.ipv6_routing" }, NULL, P, 0, 0 },
    { "ipv6.routing.nxt", { "ub.ipv6_routing.nxt" }, NULL, 0, 0, 0 },
    { "ipv6.routing.len", { "ub.ipv6_routing.len" }, NULL, 0, 0, 0 },
    { "ipv6.routing.type", { "ub.ipv6_routing.type" }, NULL, 0, 0, 0 },
    { "ipv6.routing.segleft", { "ub.ipv6_routing.segleft" }, NULL, 0, 0, 0 },
    { "ipv6.fraghdr", { "ub.ipv6_fraghdr" }, NULL, P, 0, 0 },
    { "ipv6.fraghdr.nxt", { "ub.ipv6_fraghdr.nxt" }, NULL, 0, 0, 0 },
    { "ipv6.fraghdr.reserved_octet", { "ub.ipv6_fraghdr.reserved_octet" }, NULL, 0, 0, 0 },
    { "ipv6.fraghdr.offset", { "ub.ipv6_fraghdr.offset" }, NULL, 0, 0, 0 },
    { "ipv6.fraghdr.reserved_bits", { "ub.ipv6_fraghdr.reserved_bits" }, NULL, 0, 0, 0 },
    { "ipv6.fraghdr.more", { "ub.ipv6_fraghdr.more" }, NULL, B, 0, 0 },
    { "ipv6.fraghdr.ident", { "ub.ipv6_fraghdr.ident" }, NULL, 0, 0, 0 },
    { "ipv6.dstopts", { "ub.ipv6_dstopts" }, NULL, P, 0, 0 },
    { "ipv6.dstopts.nxt", { "ub.ipv6_dstopts.nxt" }, NULL, 0, 0, 0 },
    { "ipv6.dstopts.len", { "ub.ipv6_dstopts.len" }, NULL, 0, 0, 0 },
    { "ah", { "ub.ah" }, NULL, 0, 0, 0 },
    { "ah.next_header", { "ub.ah.next_header" }, NULL, 0, 0, 0 },
    { "ah.length", { "ub.ah.length" }, NULL, 0, 0, 0 },
    { "ah.reserved", { "ub.ah.reserved" }, NULL, 0, 0, 0 },
    { "ah.spi", { "ub.ah.spi" }, NULL, 0, 0, 0 },
    { "ah.sequence", { "ub.ah.sequence" }, NULL, 0, 0, 0 },
    { "udp", { "ub.udp" }, NULL, 0, 0, 0 },
    { "udp.srcport", { "ub.udp.srcport" }, NULL, 0, 0, 0 },
    { "udp.dstport", { "ub.udp.dstport" }, NULL, 0, 0, 0 },
    { "udp.port", { "ub.udp.srcport", "ub.udp.dstport" }, NULL, J, 0, 0 },
    { "udp.length", { "ub.udp.length" }, NULL, 0, 0, 0 },
    { "udp.checksum", { "ub.udp.checksum" }, NULL, 0, 0, 0 },
    { "tcp", { "ub.tcp" }, NULL, 0, 0, 0 },
    { "tcp.srcport", { "ub.tcp.srcport" }, NULL, 0, 0, 0 },
    { "tcp.dstport", { "ub.tcp.dstport" }, NULL, 0, 0, 0 },
    { "tcp.port", { "ub.tcp.srcport", "ub.tcp.dstport" }, NULL, J, 0, 0 },
    { "tcp.seq_raw", { "ub.tcp.seq" }, NULL, 0, 0, 0 },                        /* tcp.seq is relative */
    { "tcp.ack_raw", { "ub.tcp.ack" }, NULL, 0, 0, 0 },
    { "tcp.hdr_len", { "ub.tcp.data_offset" }, NULL, 0, 4, 0 },                /* bytes: offset x 4 */
    { "tcp.flags", { "ub.tcp.flags" }, NULL, 0, 0, 0 },
    { "tcp.window_size_value", { "ub.tcp.window" }, NULL, 0, 0, 0 },
    { "tcp.checksum", { "ub.tcp.checksum" }, NULL, 0, 0, 0 },
    { "tcp.urgent_pointer", { "ub.tcp.urgent" }, NULL, 0, 0, 0 },
    { "arp", { "ub.arp" }, NULL, 0, 0, 0 },
    { "arp.hw.type", { "ub.arp.htype" }, NULL, 0, 0, 0 },
    { "arp.proto.type", { "ub.arp.ptype" }, NULL, 0, 0, 0 },
    { "arp.hw.size", { "ub.arp.hlen" }, NULL, 0, 0, 0 },
    { "arp.proto.size", { "ub.arp.plen" }, NULL, 0, 0, 0 },
    { "arp.opcode", { "ub.arp.opcode" }, NULL, 0, 0, 0 },
    { "arp.src.hw_mac", { "ub.arp.src_hw" }, NULL, 0, 0, 0 },
    { "arp.src.proto_ipv4", { "ub.arp.src_ip" }, NULL, 0, 0, 0 },
    { "arp.dst.hw_mac", { "ub.arp.dst_hw" }, NULL, 0, 0, 0 },
    { "arp.dst.proto_ipv4", { "ub.arp.dst_ip" }, NULL, 0, 0, 0 },
    /* tunnels (net.c dec_tunnel): Wireshark 4.0's vxlan, geneve, gre, erspan and mpls items */
    { "vxlan", { "ub.vxlan" }, NULL, 0, 0, 0 },
    { "vxlan.flags", { "ub.vxlan.flags" }, NULL, 0, 0, 0 },
    { "vxlan.gbp", { "ub.vxlan.group_policy" }, NULL, 0, 0, 0 },
    { "vxlan.vni", { "ub.vxlan.vni" }, NULL, 0, 0, 0 },
    { "vxlan.reserved8", { "ub.vxlan.reserved" }, NULL, 0, 0, 0 },
    { "geneve", { "ub.geneve" }, NULL, 0, 0, 0 },
    { "geneve.version", { "ub.geneve.version" }, NULL, 0, 0, 0 },
    { "geneve.flags", { "ub.geneve.oam", "ub.geneve.flags_reserved" }, NULL, S, 0, 2 },
    { "geneve.flags.oam", { "ub.geneve.oam" }, "geneve.flags", B, 0, 0 },
    { "geneve.flags.critical", { "ub.geneve.critical" }, "geneve.flags", B, 0, 0 },
    { "geneve.proto_type", { "ub.geneve.proto_type" }, NULL, 0, 0, 0 },
    { "geneve.vni", { "ub.geneve.vni" }, NULL, 0, 0, 0 },
    { "geneve.reserved", { "ub.geneve.reserved" }, NULL, 0, 0, 0 },
    { "gre", { "ub.gre" }, NULL, 0, 0, 0 },
    { "gre.flags_and_version", { "ub.gre.checksum_present", "ub.gre.version" }, NULL, S, 0, 4 },
    { "gre.flags.checksum", { "ub.gre.checksum_present" }, "gre.flags_and_version", B, 0, 0 },
    { "gre.flags.key", { "ub.gre.key_present" }, "gre.flags_and_version", B, 0, 0 },
    { "gre.flags.sequence_number", { "ub.gre.seq_present" }, "gre.flags_and_version", B, 0, 0 },
    { "gre.flags.version", { "ub.gre.version" }, "gre.flags_and_version", 0, 0, 0 },
    { "gre.proto", { "ub.gre.proto" }, NULL, 0, 0, 0 },
    { "erspan", { "ub.erspan" }, NULL, 0, 0, 0 },
    { "erspan.version", { "ub.erspan.version" }, NULL, 0, 0, 0 },
    { "erspan.vlan", { "ub.erspan.vlan" }, NULL, 0, 0, 0 },
    { "erspan.cos", { "ub.erspan.cos" }, NULL, 0, 0, 0 },
    { "erspan.encap", { "ub.erspan.encap" }, NULL, 0, 0, 0 },
    { "erspan.bso", { "ub.erspan.bso" }, NULL, 0, 0, 0 },
    { "erspan.truncated", { "ub.erspan.truncated" }, NULL, 0, 0, 0 },
    { "erspan.spanid", { "ub.erspan.spanid" }, NULL, 0, 0, 0 },
    { "erspan.reserved", { "ub.erspan.reserved" }, NULL, 0, 0, 0 },
    { "erspan.index", { "ub.erspan.index" }, NULL, 0, 0, 0 },
    { "erspan.timestamp", { "ub.erspan.timestamp" }, NULL, 0, 0, 0 },
    { "erspan.sgt", { "ub.erspan.sgt" }, NULL, 0, 0, 0 },
    { "erspan.p", { "ub.erspan.p" }, NULL, 0, 0, 0 },
    { "erspan.ft", { "ub.erspan.ft" }, NULL, 0, 0, 0 },
    { "erspan.hw", { "ub.erspan.hw" }, NULL, 0, 0, 0 },
    { "erspan.direction", { "ub.erspan.direction" }, NULL, B, 0, 0 },
    { "erspan.gra", { "ub.erspan.gra" }, NULL, 0, 0, 0 },
    { "erspan.o", { "ub.erspan.o" }, NULL, 0, 0, 0 },
    { "mpls", { "ub.mpls" }, NULL, 0, 0, 0 },
    { "mpls.label", { "ub.mpls.label" }, NULL, 0, 0, 0 },
    { "mpls.exp", { "ub.mpls.exp" }, NULL, 0, 0, 0 },
    { "mpls.bottom", { "ub.mpls.bottom" }, NULL, 0, 0, 0 },
    { "mpls.ttl", { "ub.mpls.ttl" }, NULL, 0, 0, 0 },
    { "icmp", { "ub.icmp" }, NULL, 0, 0, 0 },
    { "icmp.type", { "ub.icmp.type" }, NULL, 0, 0, 0 },
    { "icmp.code", { "ub.icmp.code" }, NULL, 0, 0, 0 },
    { "icmp.checksum", { "ub.icmp.checksum" }, NULL, 0, 0, 0 },
    { "icmp.ident", { "ub.icmp.ident" }, NULL, 0, 0, 0 },
    { "icmp.ident_le", { "ub.icmp.ident_le" }, NULL, 0, 0, 0 },
    { "icmp.seq", { "ub.icmp.seq" }, NULL, 0, 0, 0 },
    { "icmp.seq_le", { "ub.icmp.seq_le" }, NULL, 0, 0, 0 },
    { "icmp.mtu", { "ub.icmp.mtu" }, NULL, 0, 0, 0 },
    { "icmpv6", { "ub.icmpv6" }, NULL, 0, 0, 0 },
    { "icmpv6.type", { "ub.icmpv6.type" }, NULL, 0, 0, 0 },
    { "icmpv6.code", { "ub.icmpv6.code" }, NULL, 0, 0, 0 },
    { "icmpv6.checksum", { "ub.icmpv6.checksum" }, NULL, 0, 0, 0 },
    { "icmpv6.echo.identifier", { "ub.icmpv6.identifier" }, NULL, 0, 0, 0 },
    { "icmpv6.echo.sequence_number", { "ub.icmpv6.sequence" }, NULL, 0, 0, 0 },
    { "icmpv6.mtu", { "ub.icmpv6.mtu" }, NULL, 0, 0, 0 },
    /* the neighbours' protocols as filters (their fields are the schema's own names: sue.rh.*, ...) */
    { "sue", { "sue.afh" }, NULL, J, 0, 0 },
    { "sue", { "sue.rh" }, NULL, J, 0, 0 },
    { "infiniband", { "infiniband.bth" }, NULL, J, 0, 0 },
    { "pcieflit", { "pcieflit.flit" }, NULL, J, 0, 0 },
    { "data", { "ub.data" }, NULL, 0, 0, 0 }, /* bytes no dissector claims, outside UB */
    { "data.data", { "ub.data.data" }, NULL, 0, 0, 0 },
    { "data.len", { "ub.data.len" }, NULL, 0, 0, 0 },
};

const ub_wsname *ub_ws_names(size_t *n)
{
    *n = sizeof ws_names / sizeof ws_names[0];
    return ws_names;
}

bool ub_ws_is_proto(const ub_wsname *w) { return !strchr(w->ws, '.') || (w->flags & UB_WS_PROTO); }

const ub_wsname *ub_ws_proto(const ub_hdr *h)
{
    if (!h) return NULL;
    for (size_t i = 0; i < sizeof ws_names / sizeof ws_names[0]; i++) {
        const char *u = ws_names[i].ub[0];
        if (ub_ws_is_proto(&ws_names[i]) && strncmp(u, "ub.", 3) == 0 && strcmp(u + 3, h->abbrev) == 0)
            return &ws_names[i];
    }
    return NULL;
}

static unsigned set_ids(const char *abbrev, uint64_t *ids)
{
    const ub_hdr *h[16];
    const ub_field *f[16];
    size_t n = ub_field_find(abbrev, h, f, 16);
    unsigned c = 0;
    for (size_t i = 0; i < n && i < 16; i++)
        if (!f[i] && h[i]->id < UB_H__COUNT) { ids[h[i]->id / 64] |= 1ull << (h[i]->id % 64); c++; }
    return c;
}

unsigned ub_ws_proto_ids(const char *name, uint64_t *ids)
{
    unsigned c = 0;
    if (!name || !*name) return 0;
    if (strcmp(name, "ub") == 0) { /* what the plugin shows as ub: every table but Wireshark's own protocols' */
        for (unsigned id = 1; id < UB_H__COUNT; id++) {
            const ub_hdr *h = ub_hdr_get(id);
            if (h && !ub_hdr_foreign(h) && !ub_ws_proto(h)) { ids[id / 64] |= 1ull << (id % 64); c++; }
        }
        return c;
    }
    for (size_t i = 0; i < sizeof ws_names / sizeof ws_names[0]; i++)
        if (ub_ws_is_proto(&ws_names[i]) && strcmp(ws_names[i].ws, name) == 0) c += set_ids(ws_names[i].ub[0], ids);
    return c ? c : set_ids(name, ids);
}

size_t ub_ws_find(const char *name, const ub_wsname **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof ws_names / sizeof ws_names[0] && n < max; i++)
        if (strcmp(ws_names[i].ws, name) == 0) out[n++] = &ws_names[i];
    return n;
}

const ub_field *ub_layer_row(const ub_layer *l, const char *abbrev)
{
    for (unsigned k = 0; l && l->hdr && k < l->hdr->nfields; k++)
        if (strcmp(l->hdr->fields[k].abbrev, abbrev) == 0) return &l->hdr->fields[k];
    return NULL;
}

bool ub_layer_u(const ub_layer *l, const char *abbrev, uint64_t *u)
{
    const ub_field *f = ub_layer_row(l, abbrev);
    ub_val x;
    if (!f || ub_field_value(l, f, &x) != 0) return false;
    *u = x.u;
    return true;
}

bool ub_ws_number(const ub_layer *l, const ub_wsname *w, uint64_t *u)
{
    const ub_field *a = ub_layer_row(l, w->ub[0]), *b = w->flags & UB_WS_SPAN ? ub_layer_row(l, w->ub[1]) : a;
    if (!a || !b || b < a) return false;
    uint64_t v = 0;
    for (const ub_field *r = a; r <= b; r++) { /* the span's rows are adjacent in the table */
        ub_val x;
        if (ub_field_value(l, r, &x) != 0) return false;
        v = (v << r->bits) | x.u;
    }
    *u = w->scale ? v * w->scale : v;
    return true;
}

/* the layer after Ethernet layer i: an 802.3 LLC PDU with SAPs 0x42 and more than its 3-byte header
 * (Wireshark's STP dissector takes it) */
static bool eth_stp(const ub_view *v, unsigned i)
{
    const ub_layer *d = i + 1 < v->nlayers ? &v->layer[i + 1] : NULL;
    return d && d->hdr && d->hdr->id == UB_H_DATA && d->len > 3 && d->data[0] == 0x42 && d->data[1] == 0x42;
}

/* the EtherType's entry when Wireshark's own dissector for it takes the bytes after it (PFC/PAUSE,
 * PTPv2, LACP, RARP, RoCE v1: ub_ethertype_get), else NULL */
static const ub_ethertype *eth_own(const ub_view *v, unsigned i, uint64_t type)
{
    const ub_ethertype *e = ub_ethertype_get((unsigned)type);
    const ub_layer *d = i + 1 < v->nlayers ? &v->layer[i + 1] : NULL;
    if (!e || !e->ws1 || !d || !d->hdr || d->hdr->id != UB_H_DATA || d->len < 2) return NULL;
    if (type == 0x88F7 && (d->data[1] & 0x0Fu) != 2) return NULL; /* PTP: version 2 */
    if (type == 0x8809 && d->data[0] != 1) return NULL;              /* Slow Protocols: subtype 1, LACP */
    return e;
}

bool ub_ip_layer_next(const ub_layer *l, unsigned *proto, bool *frag)
{
    uint64_t p = 0, a = 0, b = 0;
    const unsigned id = l && l->hdr ? l->hdr->id : UB_H_NONE;
    if (id == UB_H_IPV4) {
        ub_layer_u(l, "ub.ipv4.mf", &a);
        ub_layer_u(l, "ub.ipv4.frag_offset", &b);
    } else if (id == UB_H_IP6_FRAGHDR) {
        ub_layer_u(l, "ub.ipv6_fraghdr.more", &a);
        ub_layer_u(l, "ub.ipv6_fraghdr.offset", &b);
    } else if (id != UB_H_IPV6 && !ub_hdr_ip_ext(id)) {
        return false;
    }
    /* IPv4's Protocol is its row "protocol"; every other one's next header is its first row */
    if (id == UB_H_IPV4) ub_layer_u(l, "ub.ipv4.protocol", &p);
    else if (id == UB_H_IPV6) ub_layer_u(l, "ub.ipv6.next_header", &p);
    else {
        ub_val nx;
        if (ub_field_value(l, &l->hdr->fields[0], &nx) == 0) p = nx.u;
    }
    *proto = (unsigned)p;
    *frag = a || b;
    return true;
}

const ub_ethertype *ub_ws_ip_own(const ub_view *v, unsigned i)
{
    const ub_layer *d = i < v->nlayers && i < UB_MAX_LAYERS ? &v->layer[i] : NULL, *ip = d && i ? d - 1 : NULL;
    unsigned proto;
    bool frag;
    if (!d || !d->hdr || d->hdr->id != UB_H_DATA || !d->len || (ip->flags & UB_LF_TRUNC) || !ub_ip_layer_next(ip, &proto, &frag) || frag)
        return NULL;
    const ub_ethertype *e = ub_ipproto_get(proto);
    return e && e->ws1 ? e : NULL;
}

ub_ws_eth ub_ws_eth_next(const ub_view *v, unsigned i, uint64_t *type, const ub_ethertype **own)
{
    const ub_layer *l = &v->layer[i];
    const bool after = i + 1 < v->nlayers && i + 1 < UB_MAX_LAYERS;
    uint64_t t = 0;
    *own = NULL;
    if ((l->flags & UB_LF_TRUNC) || !ub_layer_u(l, "ub.eth.type", &t)) return UB_WSE_CUT;
    *type = t;
    if (t <= 1500 && after && v->layer[i + 1].hdr && v->layer[i + 1].hdr->id == UB_H_LLC_SNAP) return UB_WSE_SNAP;
    if (t <= 1500 && after) return eth_stp(v, i) ? UB_WSE_STP : UB_WSE_LLC; /* IEEE 802.3: a length */
    if (t == 0x88cc) return UB_WSE_LLDP;
    if ((*own = eth_own(v, i, t))) return UB_WSE_OWN;
    /* EtherTypes ubdump decodes or names: dispatched even with nothing after them */
    if (t > 1500 && (t == 0x0800 || t == 0x86DD || ub_tpid_table((unsigned)t) || ub_ethertype_name((unsigned)t)))
        return UB_WSE_KNOWN;
    return after ? UB_WSE_UNKNOWN : UB_WSE_BARE;
}

/* (erspan: also type I, which has no header of its own) */
static const char *const ptokens[] = { "ieee8021ad", "sll", "raw", "lldp", "llc", "stp", "macc", "ptp", "slow", "lacp", "erspan",
                                        "igmp", "esp", "ospf", "pim", "vrrp", "sctp" };

int ub_ws_ptoken(const char *name)
{
    for (unsigned i = 0; i < sizeof ptokens / sizeof ptokens[0]; i++)
        if (strcmp(name, ptokens[i]) == 0) return (int)i;
    return -1;
}
const char *ub_ws_ptoken_name(int i) { return i >= 0 && (unsigned)i < sizeof ptokens / sizeof ptokens[0] ? ptokens[i] : ""; }

/* Wireshark's frame.protocols: its dissectors' (and the plugin's) names in the frame's layer list */
unsigned ub_ws_protocols(const ub_view *v, const char **tok, unsigned max)
{
    ub_ws_layers wl;
    ub_ws_layers_of(v, &wl);
    /* the plugin's link types: it shows the record as UB also when it is too short to say so */
    const bool ub = ub_view_shows_ub(v) || ((v->entry == UB_ENTRY_FLIT || v->entry == UB_ENTRY_PKT || v->entry == UB_ENTRY_STREAM) && v->rec_len);
    const unsigned nl = v->nlayers > UB_MAX_LAYERS ? UB_MAX_LAYERS : v->nlayers;
    unsigned n = 0;
    bool ub_put = false, lldp = false, stp = false, llc = false;
    const ub_ethertype *own = NULL;
#define PUT(s) \
    do { \
        if (n < max) tok[n++] = (s); \
    } while (0)
#define LAST(s) (n && strcmp(tok[n - 1], (s)) == 0)
    if (v->entry == UB_ENTRY_RAWIP && nl) PUT("raw"); /* LINKTYPE_RAW: Wireshark's raw dissector before IP */
    if (ub_view_pcie_noflit(v)) {
        PUT("pcieflit");
        return n;
    }
    for (unsigned i = 0; i < nl; i++) {
        const ub_layer *l = &v->layer[i];
        const unsigned id = l->hdr ? l->hdr->id : UB_H_NONE;
        if (ub && !ub_ws_layers_has(&wl, i)) { /* the plugin's: one "ub" for all its headers */
            if (!ub_put) PUT("ub");
            ub_put = true;
            continue;
        }
        uint64_t u;
        switch (id) {
        case UB_H_ETH: {
            PUT("eth");
            uint64_t t;
            switch (ub_ws_eth_next(v, i, &t, &own)) {
            case UB_WSE_CUT: case UB_WSE_BARE: case UB_WSE_SNAP: break; /* no EtherType dispatch; SNAP: its layer's */
            case UB_WSE_STP: stp = true; PUT("llc"); PUT("stp"); llc = true; break;
            case UB_WSE_LLC: PUT("llc"); llc = true; break;
            case UB_WSE_LLDP: PUT("ethertype"); PUT("lldp"); lldp = true; break;
            case UB_WSE_OWN: /* its dissector takes the rest (no data) */
                PUT("ethertype");
                PUT(own->ws1);
                if (own->ws2) PUT(own->ws2);
                break;
            case UB_WSE_KNOWN: case UB_WSE_UNKNOWN: PUT("ethertype"); break;
            }
            break;
        }
        case UB_H_VLAN: case UB_H_VLAN_S: /* an 802.1ad S-tag is Wireshark's ieee8021ad */
            PUT(id == UB_H_VLAN_S ? "ieee8021ad" : "vlan");
            if (i + 1 < nl && v->layer[i + 1].hdr && v->layer[i + 1].hdr->id == UB_H_LLC_SNAP) break; /* a length: llc */
            PUT("ethertype");
            break;
        case UB_H_SLL: case UB_H_SLL2: /* Linux cooked capture (of ARPHRD_UB: the plugin's front takes the frame) */
            if (ub && ub_layer_u(l, id == UB_H_SLL ? "ub.sll.hatype" : "ub.sll2.hatype", &u) && u == UB_ARPHRD_UB) break;
            PUT("sll");
            if (ub_layer_u(l, id == UB_H_SLL ? "ub.sll.protocol" : "ub.sll2.protocol", &u) && u >= 0x600) PUT("ethertype");
            break;
        case UB_H_NULL: case UB_H_NULL_LE: PUT("null"); break; /* BSD loopback */
        case UB_H_LLC_SNAP: PUT("llc"); break;                     /* its EtherType names the next: no "ethertype" */
        case UB_H_VXLAN: PUT("vxlan"); break; /* tunnels */
        case UB_H_GENEVE: PUT("geneve"); break;
        case UB_H_GRE: /* GRE 0x88BE without a sequence number: ERSPAN type I, Wireshark's erspan without a header */
            PUT("gre");
            if (ub_layer_u(l, "ub.gre.proto", &u) && u == 0x88BE && i + 1 < nl && v->layer[i + 1].hdr &&
                v->layer[i + 1].hdr->id != UB_H_ERSPAN2)
                PUT("erspan");
            break;
        case UB_H_ERSPAN2: case UB_H_ERSPAN3: PUT("erspan"); break;
        case UB_H_MPLS: if (!LAST("mpls")) PUT("mpls"); break; /* one for the label stack */
        case UB_H_IPV4: PUT("ip"); break;
        case UB_H_IPV6: PUT("ipv6"); break;
        case UB_H_IP6_HOPOPTS: PUT("ipv6.hopopts"); break; /* extension headers */
        case UB_H_IP6_ROUTING: PUT("ipv6.routing"); break;
        case UB_H_IP6_FRAGHDR: PUT("ipv6.fraghdr"); break;
        case UB_H_IP6_DSTOPTS: PUT("ipv6.dstopts"); break;
        case UB_H_AH: PUT("ah"); break;
        case UB_H_UDP: PUT("udp"); break;
        case UB_H_TCP: PUT("tcp"); break;
        case UB_H_ARP: PUT("arp"); break;
        case UB_H_ICMP: case UB_H_ICMP_ECHO: case UB_H_ICMP_MTU: PUT("icmp"); break;
        case UB_H_ICMPV6: case UB_H_ICMPV6_ECHO: case UB_H_ICMPV6_MTU: PUT("icmpv6"); break;
        case UB_H_DATA: {
            const ub_ethertype *ipo = ub_ws_ip_own(v, i);
            if (ipo) { /* IGMP, ESP, OSPF, ...: Wireshark's dissector takes the datagram's payload */
                PUT(ipo->ws1);
                if (ipo->ws2) PUT(ipo->ws2);
                break;
            }
            if (lldp || stp || own || (llc && l->len <= 3)) break; /* LLDP's TLVs, the BPDU: theirs; LLC's own 3 bytes */
            if (!l->len) break; /* cut by the snapshot length before it: no dissector gets its bytes */
            if (LAST("infiniband") && l->wlen > l->len) break; /* a cut one: the InfiniBand dissector stops */
            if (LAST("udp") && i && ub_ws_udp_infiniband(&v->layer[i - 1])) {
                /* a UDP 4791 payload ubdump leaves undecoded: Wireshark's InfiniBand dissector takes it
                 * (after the plugin's SUE dissector declined), data only past the headers and ICRC of an
                 * opcode it knows (4.0 knows no CNP, 0x81: the rest is its "unknown header" item) */
                PUT("sue");
                PUT("infiniband");
                int hl = l->len && l->data[0] != 0x81 ? ub_ib_hdr_len(l->data[0]) : -1;
                if (hl < 0 || l->len <= (uint32_t)hl + 4u || l->wlen > l->len) break;
            }
            PUT("data");
            break;
        }
        case UB_H_IB_ICRC: case UB_H_SUE_ICRC: break;   /* in the tree of the header before */
        case UB_H_PCIEFLIT: case UB_H_PCIEFLIT_OUFC: case UB_H_PCIEFLIT_MARKER:
            if (!LAST("pcieflit")) PUT("pcieflit");
            break;
        default:
            if (id >= UB_H_IB_BTH && id <= UB_H_IB_CNP) { /* the plugin's SUE dissector tries UDP 4791 first */
                if (LAST("udp")) PUT("sue");
                if (!LAST("infiniband")) PUT("infiniband");
            } else if (id >= UB_H_SUE_AFH0 && id <= UB_H_SUE_RH) {
                if (!LAST("sue")) PUT("sue");
            }
            break;
        }
    }
    if (ub && !ub_put && n < max) tok[n++] = "ub"; /* a UB record without a whole unit (flit stream) */
#undef LAST
#undef PUT
    return n;
}

bool ub_ws_udp_infiniband(const ub_layer *udp)
{
    uint64_t u;
    return udp->hdr && udp->hdr->id == UB_H_UDP && ub_layer_u(udp, "ub.udp.dstport", &u) && u == 4791;
}

void ub_ws_protocols_text(const ub_view *v, char *buf, size_t n)
{
    const char *tok[UB_MAX_LAYERS];
    unsigned k = ub_ws_protocols(v, tok, UB_MAX_LAYERS);
    size_t o = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < k && o < n; i++) o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ":" : "", tok[i]);
}
