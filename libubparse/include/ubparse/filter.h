/* Display filters over the schema fields, in Wireshark's display-filter language (docs/fields.md
 * "Display filters" lists every operator and name):
 *
 *   ub.rtph.psn == 5            ub.btah.taopcode == "Read"       ub.icrc.status == "Bad"
 *   ub.icrc                     (presence of a header or field)  ub.error == "bcrc_bad"
 *   ub.lph.cfg != 9 && !(ub.nth.scna <= 0x10 or ub.error)        frame.number >= 100
 *   udp.port in {4792 4793}     ub.rtph.psn in {1..5}            ip.addr == 10.0.0.0/8
 *   ub.payload contains 00:01   ub.analysis.rule matches "tp-00[12]"  ub.lph.cfg & 0x8
 *   ub.payload.data[0:2] == 00:01     eth.src[1] == 00     ub.analysis.retransmission ^^ ub.cna
 *
 * Comparisons: == eq, != ne (all occurrences differ), < lt, <= le, > gt, >= ge, === all_eq,
 * !== ~= any_ne, contains, matches ~ (PCRE2 as Wireshark 4.0: case-insensitive by
 * default), `in {a b c}` / `in {lo..hi}` (commas allowed), `field & mask` (non-zero, or compared:
 * `field & 0x30 == 0x10`), slices field[i] field[i:n] field[i-j] field[i:] field[-n:] on byte
 * strings, MAC addresses, headers and `frame`. Logic: && and, || or, ^^ xor, ! not, parentheses.
 * A comparison is true if ANY occurrence of the field satisfies it (a field may repeat in a
 * packet); `!=`/`all_eq` need ALL occurrences to. A comparison on a field the packet lacks is false
 * (so `!(a == 1)` and `a != 1` differ there).
 * Literals: decimal, 0x hex, byte strings aa:bb:cc (a lone pair `00` is one byte), dotted IPv4 and
 * IPv6 with an optional /prefix, seconds for times (0.25), true/false, quoted strings: value names
 * of the field ("Read", "Bad"), error names for ub.error, rule ids, bytes otherwise.
 * Names: every schema field (ub.*), ub.error, ub, ub.cna, ub.eid, ub.analysis.* (needs
 * ub_filter_pkt.an: ub_filter_uses_analysis), frame, frame.number/len/cap_len/time_epoch/
 * time_relative/time_delta/interface_id/p2p_dir/comment (ub_filter_pkt.comment), and Wireshark's names of the headers outside UB:
 * eth.*, vlan.*, ip.*, ipv6.*, udp.*, tcp.* (ubdump -G filters lists them).
 *
 * Field names are resolved once by ub_filter_compile; matching does no allocation and no string
 * work (except `matches`, which runs regexec). A compiled filter is immutable: one filter may be
 * matched from several threads. */
#ifndef UBPARSE_FILTER_H
#define UBPARSE_FILTER_H

#include "ubparse/capfile.h"
#include "ubparse/state.h"
#include "ubparse/ubparse.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ub_filter ub_filter;

#define UB_FILTER_MAX_LEN 65536  /* longest expression accepted */
#define UB_FILTER_MAX_DEPTH 64   /* nesting of parentheses and negations */

/* Compile an expression. NULL on error with "column N: message" in err (N 1-based). */
ub_filter *ub_filter_compile(const char *expr, char *err, size_t errlen);
/* The protocol-state analysis of one frame (ub.analysis.*, as the Wireshark plugin's), filled by
 * ub_fan_* (filter_an.c) from the state engine. Arrays point into the owner's storage. */
typedef struct ub_fan_match {
    uint32_t other;    /* the other frame of the pair */
    uint8_t kind;      /* ub_match.kind: 0 transaction, 1 management, 2 transport data <-> ack */
    uint8_t rsp;       /* this frame is the response / ack */
    uint64_t lat_ns;
    uint32_t seen;     /* the frame whose reading produced it (UINT32_MAX: the end of the capture): a
                        * one-pass dissector (tshark without -2) shows it in frames from there on */
} ub_fan_match;
typedef struct ub_fan {
    uint32_t tp_channel;   /* channel index + 1, 0 none */
    uint32_t tp_flags;     /* ub_tp_flags */
    uint32_t expected_psn;
    uint16_t nmatch, nfind, nrel;
    const ub_fan_match *match;  /* [nmatch] */
    const uint16_t *rule;       /* [nfind] ub_rule indices of the findings at this frame */
    const uint8_t *sev;         /* [nfind] ub_sev */
    const uint8_t *grp;         /* [nfind] ub_egroup (expert group, ub_finding_group) */
    const uint32_t *rel;        /* [nrel] related frames of those findings */
    const uint32_t *fseen;      /* [nfind] as ub_fan_match.seen */
    const uint8_t *fnrel;       /* [nfind] related frames of each finding (rel in order) */
    /* raw flit-stream records (ub.stream.*, ub_units_rinfo) */
    uint32_t st_units, st_started_in, st_open_bytes, st_continued_in, st_open_since;
    bool st_open;
} ub_fan;

/* What the filter knows about a frame besides its decoded view. */
typedef struct ub_filter_pkt {
    uint64_t frame;          /* 1-based; 0 = unknown: frame.* are absent (frame.len excepted) */
    uint32_t len, caplen;    /* frame.len (on the wire), frame.cap_len */
    bool has_time;           /* frame.time_*: */
    uint64_t ts_ns, t0_ns, prev_ns; /* this frame, the first frame, the previous frame */
    bool has_ifid;           /* frame.interface_id (pcapng) */
    uint32_t ifid;
    uint8_t dir;             /* ub_dir (capfile.h): frame.p2p_dir when known (0 sent, 1 received) */
    const ub_fan *an;        /* ub.analysis.* of the frame, NULL: none */
    const uint8_t *data;     /* `frame`: the record's bytes (NULL: the view's record) */
    uint32_t data_len;
    uint32_t ncomments;      /* frame.comment: the record's pcapng comments (not NUL-terminated) */
    const char *const *comment;
    const uint32_t *comment_len;
} ub_filter_pkt;

/* ub.analysis.* of a whole capture file: the state engine run once over it with cfg (NULL:
 * defaults, as the plugin's), decoded with o. NULL with a message in err when the file cannot be
 * opened or memory runs out. A read error part way (a truncated or damaged file) ends the scan: the
 * table holds the analysis of the records before it (as tshark's first pass does) and err the
 * message; the caller's own read of the file meets the same error and reports it. */
typedef struct ub_fan_table ub_fan_table;
ub_fan_table *ub_fan_scan(const char *path, const ub_opts *o, const ub_state_cfg *cfg, char *err, size_t errlen);
/* The analysis of a frame (NULL: nothing), valid until ub_fan_free. */
const ub_fan *ub_fan_get(const ub_fan_table *t, uint64_t frame);
void ub_fan_free(ub_fan_table *t);

/* ub.analysis.* / ub.stream.* as values (ubdump -T fields -e; anvals.c). A field: an anfields.h id,
 * or UB_AF__COUNT + i for the TP-analysis expert item ub_tp_flag_info_get(i) (ub.analysis.<name>).
 * find: the field named name, -1 if none. from_view: tp_src / tp_dst / tp_endpoint, read from the
 * decoded view (no ub_fan_scan needed). name: the field's name (buf holds it when built), NULL past
 * the last field (fields are 0, 1, ...); *label (if label): its description. */
int ub_fan_field_find(const char *name);
bool ub_fan_field_from_view(int field);
const char *ub_fan_field_name(int field, char *buf, size_t n, const char **label);
/* The occurrences of field in one frame as tshark -T fields prints the plugin's items (FT_NONE: "1",
 * latency: seconds with 9 decimals), each passed to put in tree order; a: ub_fan_get (NULL: none),
 * v: the frame's view (only read by from_view fields; NULL: none). Returns how many. */
typedef void (*ub_fan_put)(void *ctx, const char *value);
unsigned ub_fan_values(int field, const ub_fan *a, const ub_view *v, ub_fan_put put, void *ctx);

/* The ub_filter_pkt of each record of a capture read in order (frame.time_relative/_delta need the
 * first and previous times): seq zeroed before the first record; fan: ub.analysis.* (NULL: none). */
typedef struct ub_fpkt_seq { uint64_t t0, prev; bool started; } ub_fpkt_seq;
ub_filter_pkt ub_fpkt_next(ub_fpkt_seq *seq, const ub_capfile *cf, const ub_rec *r, const ub_fan_table *fan);

/* -z ub,srt,FILTER (srt_ws.c): tshark's SRT table of the matches tapped in frames that pass f (the
 * state engine run over path with cfg, NULL: defaults; fan: the analysis when f reads it). 0, or -1
 * with a message in err. */
int ub_srt_ws_filtered(const char *path, const ub_opts *o, const ub_state_cfg *cfg, const ub_filter *f,
                       const ub_fan_table *fan, FILE *out, char *err, size_t errlen);

/* The IP part of a plain CFG 3/4 packet (digest §1 step 3: not UB over UDP): layers [*lo, *hi) of
 * the view (the IP header and the UDP/TCP/data after it), which Wireshark's own IP dissector shows
 * (ip.*, not ub.ipv4.*); false when there is none. */
bool ub_view_plain_ip(const ub_view *v, unsigned *lo, unsigned *hi);
/* The layers Wireshark's own dissectors show, which its names (ub_ws_names: eth.*, ip.*, udp.*, ...)
 * and its conversation taps see: [0, nout) — every layer of a frame that is not UB, else those before
 * the first UB header (UBoE's Ethernet/IP/UDP, SLL) — and a plain CFG 3/4 IP part [plo, phi)
 * (ub_view_plain_ip). ub_ws_layers_has: is layer i one of them? */
typedef struct ub_ws_layers {
    unsigned nout, plo, phi;
} ub_ws_layers;
void ub_ws_layers_of(const ub_view *v, ub_ws_layers *r);
static inline bool ub_ws_layers_has(const ub_ws_layers *r, unsigned i) { return i < r->nout || (i >= r->plo && i < r->phi); }
/* Wireshark's frame.protocols of a view (tshark -e frame.protocols, -z io,phs): the names its
 * dissectors and the plugin's put in the frame's layer list, in order ("eth", "ethertype", "ip",
 * "udp", "ub"; "sue", "infiniband", "pcieflit", "data"), at most max; returns how many. A protocol
 * above the headers ubdump decodes (DNS, SSH, TLS, ...) is "data" here (docs/filters.md). */
unsigned ub_ws_protocols(const ub_view *v, const char **tok, unsigned max);
/* The same as tshark prints frame.protocols: the names joined by ':' in buf (n > 0; cut to fit) */
void ub_ws_protocols_text(const ub_view *v, char *buf, size_t n);
/* Does Wireshark's InfiniBand dissector own the payload of this UDP layer (destination port 4791,
 * RoCEv2), whether or not ubdump decoded it? (frame.protocols, the Protocol column) */
bool ub_ws_udp_infiniband(const ub_layer *udp);
/* What Wireshark does after Ethernet layer i of v (frame.protocols and the Protocol column both follow
 * it): CUT no EtherType to read; LLC / STP an IEEE 802.3 length, LLC (a BPDU: STP); LLDP; OWN an
 * EtherType whose own dissector takes the rest (*own: PFC, PTPv2, LACP, ...); KNOWN one ubdump decodes
 * or names; UNKNOWN one nobody decodes, bytes after it; BARE a length or unknown EtherType with nothing
 * after it (no dispatch). *type: the EtherType / length field. */
typedef enum ub_ws_eth {
    UB_WSE_CUT, UB_WSE_LLC, UB_WSE_STP, UB_WSE_LLDP, UB_WSE_OWN, UB_WSE_KNOWN, UB_WSE_UNKNOWN, UB_WSE_BARE,
    UB_WSE_SNAP /* an IEEE 802.3 length, then LLC/SNAP (the layer UB_H_LLC_SNAP) and what its EtherType names */
} ub_ws_eth;
ub_ws_eth ub_ws_eth_next(const ub_view *v, unsigned i, uint64_t *type, const ub_ethertype **own);
/* Layer i of v is the payload of an IP datagram (not a fragment) whose protocol Wireshark's own
 * dissector takes (IGMP, ESP, OSPF, PIM, VRRP, SCTP: ub_ipproto_get): its entry, else NULL */
const ub_ethertype *ub_ws_ip_own(const ub_view *v, unsigned i);
/* A protocol name of frame.protocols that is a display-filter name of its own in Wireshark but no header
 * ubdump decodes ("llc", "stp", "lldp", "sll", "macc", ...): its index, -1 for other names; its name */
int ub_ws_ptoken(const char *name);
const char *ub_ws_ptoken_name(int i);

/* Does the packet match? (frame.* fields are absent) */
bool ub_filter_match(const ub_filter *f, const ub_view *v);
/* Same, with the frame number (1-based, 0 = unknown) and the record length for frame.*. */
bool ub_filter_match_frame(const ub_filter *f, const ub_view *v, uint64_t frame, uint32_t len);
/* Same, with everything known about the frame. */
bool ub_filter_match_pkt(const ub_filter *f, const ub_view *v, const ub_filter_pkt *pk);
/* A frame made of several views (a flit-stream record completing several units): fields are
 * collected over all of them, as in Wireshark's one tree per frame. acc_new once per filter (one
 * allocation), then per frame: reset, add each view, match. */
typedef struct ub_filter_acc ub_filter_acc;
ub_filter_acc *ub_filter_acc_new(const ub_filter *f);
void ub_filter_acc_reset(ub_filter_acc *a);
void ub_filter_acc_add(ub_filter_acc *a, const ub_view *v, const ub_filter_pkt *pk);
bool ub_filter_acc_match(const ub_filter_acc *a, const ub_filter_pkt *pk);
void ub_filter_acc_free(ub_filter_acc *a);
/* Does the filter read ub.analysis.* (so the caller must run the state engine first)? */
bool ub_filter_uses_analysis(const ub_filter *f);
/* Does f read frame or a frame.* field? (tshark then builds the frame's own tree item, which its
 * -z io,phs shows as the top protocol "frame") */
bool ub_filter_uses_frame(const ub_filter *f);
/* ub_filter_compile for filters judged one packet at a time, without the analysis pre-pass or the
 * frame times (ubreplay -Y, scenario @expect, ubpeer fault filters, Lua ub.filter): a filter that
 * reads ub.analysis.* or frame.time_* is refused with a message instead of never matching. */
ub_filter *ub_filter_compile_live(const char *expr, char *err, size_t errlen);
/* The column N of an error message "column N: ..." (for a caret under the expression), 0 if none. */
size_t ub_filter_err_column(const char *err);
void ub_filter_free(ub_filter *f);

/* Wireshark's names of the headers outside UB (eth.*, vlan.*, ip.*, ipv6.*, udp.*, tcp.*): the schema
 * rows each reads, for the filter (names) and ubdump -T json|ek (tshark's layer keys and values).
 * Ordered as Wireshark's dissectors add the items; a protocol's own entry (no dot: "ip") comes first. */
enum {
    UB_WS_NOJSON = 1,   /* filter only: a name with two rows, either matches (ip.addr) */
    UB_WS_NOFILTER = 2, /* JSON only (composite values); a scaled one filters on row x scale */
    UB_WS_SPAN = 4,     /* the bits from row ub[0] through row ub[1] as one number (ip.flags) */
    UB_WS_BOOL = 8,     /* Wireshark's FT_BOOLEAN: 0/1 in JSON, false/true in -T ek */
    UB_WS_PROTO = 16,   /* a protocol whose name has a dot (ipv6.hopopts); one without a dot is one anyway */
    UB_WS_LEN = 32,     /* only where the row holds an IEEE 802.3 length (<= 1500), in decimal: eth.len */
    UB_WS_TYPE = 64,    /* only where the row holds an EtherType (> 1500): eth.type */
};
/* the row's value v is one name w stands for (UB_WS_LEN / UB_WS_TYPE; any other: always) */
static inline bool ub_ws_cond(unsigned flags, uint64_t v)
{
    return !(flags & (UB_WS_LEN | UB_WS_TYPE)) || ((flags & UB_WS_LEN) ? v <= 1500 : v > 1500);
}
typedef struct ub_wsname {
    const char *ws;     /* Wireshark's name */
    const char *ub[2];  /* schema rows (ub[1]: the second row of ip.addr, the end of a span) */
    const char *parent; /* tshark's JSON shows it inside "<parent>_tree" */
    uint8_t flags;      /* UB_WS_* */
    uint8_t scale;      /* shown value = row x scale (ip.hdr_len); 0: as is */
    uint8_t hex;        /* hex digits tshark shows (ipv6.tclass: 8); 0: the row's own format */
} ub_wsname;
const ub_wsname *ub_ws_names(size_t *n);
/* w is a protocol's own entry (eth, ip, ipv6.fraghdr), not one of its fields */
bool ub_ws_is_proto(const ub_wsname *w);
/* the entries of Wireshark's name `name` (at most max; ip.version has two: IPv4's and IPv6's row), their count */
size_t ub_ws_find(const char *name, const ub_wsname **out, size_t max);
/* the row of l's table with the full name abbrev ("ub.ipv4.src"), NULL if none */
const ub_field *ub_layer_row(const ub_layer *l, const char *abbrev);
/* that row's value as a number (an integer row); false when l lacks the row or its bytes */
bool ub_layer_u(const ub_layer *l, const char *abbrev, uint64_t *u);
/* the value of entry w in layer l as one number when it is more than one row's plain value (a span of
 * rows, a scaled row: ip.flags, ip.hdr_len); false when l lacks it */
bool ub_ws_number(const ub_layer *l, const ub_wsname *w, uint64_t *u);
/* the entry of a header's Wireshark protocol ("ip" for ub.ipv4), NULL if Wireshark has none here */
const ub_wsname *ub_ws_proto(const ub_hdr *h);
/* tshark -O's protocol names: sets in ids ((UB_H__COUNT + 63) / 64 words) the header ids `name` stands
 * for -- "ub" (every UB header: the plugin's one protocol), a header ("ub.btah", "sue.rh", its format
 * variants too), or Wireshark's name of a header outside UB ("ip", "udp", "data", "infiniband", "sue");
 * returns how many it set, 0 for a name that is none of these */
unsigned ub_ws_proto_ids(const char *name, uint64_t *ids);

#ifdef __cplusplus
}
#endif
#endif
