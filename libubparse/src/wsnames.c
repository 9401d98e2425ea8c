/* Wireshark's names of the headers outside UB (filter.h ub_ws_names): the one table both the
 * display filter (filter.c) and ubdump's tshark-shaped JSON (-T json|ek) read. Order = the order of
 * the items in Wireshark's own dissectors (eth, vlan, ip, ipv6, udp, tcp of Wireshark 4.0), so the
 * JSON lists a layer's keys as tshark does (arp and data: Wireshark's names for what is not UB). A name
 * may have more than one entry (ip.version: IPv4's row, and IPv6's as Wireshark also shows it there). */
#include "ubparse/filter.h"
#include "ubparse/ubparse.h"

#include <string.h>

#define J UB_WS_NOJSON
#define F UB_WS_NOFILTER
#define S (UB_WS_SPAN | UB_WS_NOFILTER)
#define B UB_WS_BOOL
static const ub_wsname ws_names[] = {
    { "eth", { "ub.eth" }, NULL, 0, 0, 0 },
    { "eth.dst", { "ub.eth.dst" }, NULL, 0, 0, 0 },
    { "eth.src", { "ub.eth.src" }, NULL, 0, 0, 0 },
    { "eth.addr", { "ub.eth.src", "ub.eth.dst" }, NULL, J, 0, 0 },
    { "eth.type", { "ub.eth.type" }, NULL, 0, 0, 0 },
    { "vlan", { "ub.vlan" }, NULL, 0, 0, 0 },
    { "vlan.priority", { "ub.vlan.pcp" }, NULL, 0, 0, 0 },
    { "vlan.dei", { "ub.vlan.dei" }, NULL, B, 0, 0 },
    { "vlan.id", { "ub.vlan.vid" }, NULL, 0, 0, 0 },
    { "vlan.etype", { "ub.vlan.type" }, NULL, 0, 0, 0 },
    { "ip", { "ub.ipv4" }, NULL, 0, 0, 0 },
    { "ip.version", { "ub.ipv4.version" }, NULL, 0, 0, 0 },
    { "ip.hdr_len", { "ub.ipv4.ihl" }, NULL, F, 4, 0 },                        /* bytes: IHL x 4 */
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
    { "tcp.hdr_len", { "ub.tcp.data_offset" }, NULL, F, 4, 0 },                /* bytes: offset x 4 */
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
    { "data", { "ub.data" }, NULL, 0, 0, 0 }, /* bytes no dissector claims, outside UB */
    { "data.data", { "ub.data.data" }, NULL, 0, 0, 0 },
};

const ub_wsname *ub_ws_names(size_t *n)
{
    *n = sizeof ws_names / sizeof ws_names[0];
    return ws_names;
}

const ub_wsname *ub_ws_proto(const ub_hdr *h)
{
    if (!h) return NULL;
    for (size_t i = 0; i < sizeof ws_names / sizeof ws_names[0]; i++) {
        const char *u = ws_names[i].ub[0];
        if (!strchr(ws_names[i].ws, '.') && strncmp(u, "ub.", 3) == 0 && strcmp(u + 3, h->abbrev) == 0)
            return &ws_names[i];
    }
    return NULL;
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
