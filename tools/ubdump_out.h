/* ubdump's tshark-style output helpers: -x hex dumps with layer markers, -t time formats, -E CSV
 * options, --version. Kept out of ubdump.c so the option parser stays small. */
#ifndef UBDUMP_OUT_H
#define UBDUMP_OUT_H

#include "ubparse/ubparse.h"
#include "ubparse/capfile.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* -x: the bytes of one decoded unit, 16 a line with an offset column and ASCII (tshark -x), each
 * header's first byte announced by a marker line "-- 0014 ub.rtph  Reliable Transport Header, 12 bytes"
 * before the line holding it. A multi-block DLLDP's de-interleaved network packet (UB_LF_NETBUF
 * layers) follows as a second block, as tshark prints its reassembled data sources. */
void ubx_hexdump(FILE *f, const ub_view *v, const uint8_t *data, uint32_t len);
/* A record whose unit is an IP datagram reassembled from fragments (UB_UNIT_REASSEMBLED), as tshark -x:
 * the frame as captured, then the IP payload made whole ("Reassembled IPv4/IPv6") */
void ubx_hexdump_reasm(FILE *f, const ub_view *v, const uint8_t *rec, uint32_t rlen, const uint8_t *unit, uint32_t ulen);

/* -t: tshark's time formats */
typedef enum ubx_tfmt { UBX_T_R, UBX_T_A, UBX_T_AD, UBX_T_D, UBX_T_DD, UBX_T_E, UBX_T_U, UBX_T_UD } ubx_tfmt;
int ubx_tfmt_parse(const char *s, ubx_tfmt *out);
/* ts: this packet; t0: the first; prev: the previous captured; prev_shown: the previous printed (all ns).
 * digits: fractional digits (6 for µs captures, 9 for ns). */
void ubx_time(char *buf, size_t n, ubx_tfmt fmt, unsigned digits, uint64_t ts, uint64_t t0, uint64_t prev,
              uint64_t prev_shown);

/* frame.time as tshark prints it (local time and zone, ns) */
void ubx_frame_time(char *buf, size_t n, uint64_t ts);
/* the decimal digits of v right-aligned in `width` columns (printf "%*" PRIu64) at p (20 + width bytes); returns their count */
size_t ubx_dec_col(char *p, uint64_t v, unsigned width);

/* -T fields: the occurrences of one field are collected separated by this byte, then joined with
 * the -E aggregator (or cut to the first / last) when printed */
#define UBX_OCC_SEP '\x1f'

/* -E: separator, aggregator, quote, occurrence, header (tshark semantics) */
typedef struct ubx_csv {
    char sep, agg;
    char quote;      /* 0 none, '"' or '\'' */
    char occurrence; /* 'a' all, 'f' first, 'l' last */
    bool header;
    bool psml;       /* -T psml: each value an XML <section> of a <packet> */
    bool tabs;       /* -T tabs: tshark's summary line, its columns padded as tshark pads them, tab-separated */
} ubx_csv;
void ubx_csv_default(ubx_csv *c);
/* one -E NAME=VALUE; -1 with a message in err */
int ubx_csv_option(ubx_csv *c, const char *opt, char *err, size_t errlen);

/* -T fields (ubdump_fields.c). tshark's text of an integer where it differs from the tree's (-T fields,
 * JSON): BASE_HEX as "0x" and the digits of the plugin's FT_UINTn, the bytes the bit range spans
 * (virtual fields: their width; FT_UINT40..64: 16 digits), not of the bit width; BASE_DEC_HEX in
 * decimal; R-34 GUIDs in wire order. 0: not such a field. */
size_t ubx_value_ws(const ub_field *fd, const ub_val *v, char *buf, size_t n);
/* the digits of a BASE_HEX row's text, at least (ubx_value_ws) */
unsigned ubx_ws_hex_digits(const ub_field *fd);
/* the -T fields text of row f of header h: ubx_value_ws, "<MISSING>" for empty bytes, else
 * ub_format_value without names; its length */
size_t ubx_value_text(const ub_hdr *h, const ub_field *f, const ub_val *val, char *buf, size_t n);

/* Values as tshark prints them in -T fields and JSON (colons: byte strings as aa:bb:cc, JSON's form;
 * else as one run of hex digits, -T fields'). ubx_field_text: row fd of layer l; ubx_ws_text: one of
 * Wireshark's own names (filter.h ub_ws_names: the row, a span of rows, a scaled row, a wider hex
 * field, a boolean as 0/1) in a layer of its header. false: l has no such value. */
struct ub_wsname;
bool ubx_field_text(const ub_layer *l, const ub_field *fd, bool colons, char *buf, size_t n);
bool ubx_ws_text(const ub_layer *l, const struct ub_wsname *w, bool colons, char *buf, size_t n);
/* the first layer of v with header id a or b, NULL if none */
const ub_layer *ubx_first_of(const ub_view *v, unsigned a, unsigned b);
/* the value of row `name` of layer l as FT_UINT24 hex (the plugin's hidden ub.cna / ub.eid) */
bool ubx_u24(const ub_layer *l, const char *name, char *buf, size_t n);

/* -T fields|json|ek -e of Wireshark's names (ubdump_fields.c): is name one of its protocols (eth, ip)?
 * The occurrences of one of its field names (ws: its table entries, ws[1] NULL or IPv6's ip.version)
 * in v; the plugin's hidden ub.cna (cna) or ub.eid pair of v. */
struct ubx_sbuf;
bool ubx_ws_proto_named(const char *name);
void ubx_ws_field(const ub_view *v, const struct ub_wsname *const ws[2], struct ubx_sbuf *b);
void ubx_hidden_pair(const ub_view *v, bool cna, struct ubx_sbuf *b);

/* tshark's Protocol, Source and Destination columns of a unit (ubdump_fields.c): the plugin's for UB
 * (UB-TA, ..., CNAs as 0x0102 / 0x010203, else the IP addresses); for what Wireshark's own dissectors
 * show, the top header ubdump decodes as Wireshark names it and the IP, else Ethernet, addresses */
const char *ubx_col_protocol(const ub_view *v, char *buf, size_t n); /* buf: for a number */
bool ubx_col_addr(const ub_view *v, bool dst, char *buf, size_t n);

/* ubdump's -e / -Y names that are not schema rows (ubdump_fields.c ubx_pseudo_names: the one list,
 * read by the -e parser and -G fields) */
enum { PF_NONE, PF_FRAME_NUMBER, PF_FRAME_TIME_REL, PF_FRAME_TIME_EPOCH, PF_FRAME_LEN, PF_UB_ERROR, PF_FRAME_UNIT,
       PF_FRAME_TIME_DELTA, PF_FRAME_TIME_DELTA_DISP, PF_COL_TIME, PF_COL_INFO, PF_FRAME_TIME, PF_FRAME_CAP_LEN,
       PF_FRAME_IFID, PF_FRAME_P2P_DIR, PF_FRAME_COMMENT, PF_COL_NO, PF_COL_LENGTH, PF_UB_CNA, PF_UB_EID, PF_WS, PF_HDR,
       PF_COL_PROTOCOL, PF_COL_SRC, PF_COL_DST, PF_FRAME_PROTOCOLS /* from PF_UB_CNA on: values of the unit */ };
typedef struct ubx_pseudo {
    const char *name;
    int pf;                   /* PF_* */
    const char *label, *key;  /* -G fields: its description and key column (NULL: an alias, not listed) */
} ubx_pseudo;
extern const ubx_pseudo ubx_pseudo_names[];
extern const size_t ubx_npseudo;

/* a growing string: the occurrences of one field, UBX_OCC_SEP between them */
typedef struct ubx_sbuf {
    char *p;
    size_t n, cap;
    bool any;   /* an occurrence is in */
    bool dirty; /* text other than ubx_fset_view's hex / decimal digits is in (set by ubx_sb_put) */
    bool above; /* a column's value came from a unit above the data link (raw flit streams: it stays) */
} ubx_sbuf;
void ubx_sb_put(ubx_sbuf *b, const char *s, size_t n);
void ubx_sb_puts(ubx_sbuf *b, const char *s);
/* ubdump_help.c: -h and the -G listings */
struct ub_ruleset;
void ubx_usage(FILE *f);
/* -i (ubdump_live.c): the live capture of interface ifname (a name, or an index as -D numbers them),
 * ended by SIGINT, SIGTERM or after `duration` seconds (0: none) as a file ends; capabilities dropped.
 * NULL with a message */
/* filter: -f, a capture filter in libpcap's language (NULL: none) */
ub_capfile *ubx_open_live(const char *ifname, unsigned snaplen, bool promisc, double duration, const char *filter,
                          char *err, size_t errlen);
/* -D: the network interfaces of this namespace, as -i takes them; 0, or -1 (message on stderr) */
int ubx_list_interfaces(FILE *f);
void ubx_list_fields(void);
void ubx_list_errors(void);
void ubx_list_headers(void);
void ubx_list_profiles(void);
void ubx_list_rules(const struct ub_ruleset *rs); /* NULL: the built-in rules */
void ubx_sb_hex(ubx_sbuf *b, const uint8_t *p, size_t n); /* n bytes as 2n hex digits, never cut */
void ubx_sb_occ(void *ctx, const char *s); /* one more occurrence (ub_fan_values) */

/* the schema fields of -e, compiled once: a packet is one pass over its layers for all of them */
typedef struct ubx_fset ubx_fset;
ubx_fset *ubx_fset_new(void);
/* -e field number ei matches row f of header h (in the order of ub_field_find); -1: out of memory */
int ubx_fset_add(ubx_fset *s, unsigned ei, const ub_hdr *h, const ub_field *f);
/* the occurrences of every field in v appended to fb[ei], in layer order (as view_field) */
void ubx_fset_view(const ubx_fset *s, const ub_view *v, ubx_sbuf *fb);
void ubx_fset_free(ubx_fset *s);
struct ubx_lbuf;
/* fields 0..n-1 all schema fields of s (no other -e): v's line written straight to lb as ubx_lb_line
 * would write it; false (nothing written): a field occurs twice or is not a plain integer of s */
bool ubx_fset_line(const ubx_fset *s, const ub_view *v, struct ubx_lbuf *lb, const ubx_csv *c, unsigned n);

/* the output lines, built here and given to stdio in pieces of up to 64 KiB (each_line: every line
 * at once, for -l and for scripts that print between the lines) */
typedef struct ubx_lbuf {
    ub_obuf o; /* over p */
    bool each;
    char p[1 << 16];
} ubx_lbuf;
void ubx_lb_init(ubx_lbuf *lb, FILE *f, bool each_line);
static inline void ubx_lb_put(ubx_lbuf *lb, const char *s, size_t n) { ub_obuf_put(&lb->o, s, n); }
void ubx_lb_endline(ubx_lbuf *lb); /* '\n' */
static inline void ubx_lb_flush(ubx_lbuf *lb) { ub_obuf_flush(&lb->o); }
static inline void ubx_lb_putc(ubx_lbuf *lb, char c)
{
    if (lb->o.n == sizeof lb->p) ubx_lb_flush(lb);
    lb->p[lb->o.n++] = c;
}
/* one line: the values of fb[0..n) separated by the -E separator, and its end; each value the
 * occurrences (joined by the aggregator or cut to the first / last), quoted, escaped as tshark's */
void ubx_lb_line(ubx_lbuf *lb, const ubx_csv *c, const ubx_sbuf *fb, unsigned n);

/* -w FILE: the selected records as pcapng ("-" = stdout), with the source's interfaces (link type,
 * name; ids kept within a section, sections appended), direction flags, original lengths and comments */
#include "ubparse/capfile.h"
typedef struct ubx_writer ubx_writer;
ubx_writer *ubx_writer_open(const char *path, char *err, size_t errlen);
/* -b (tshark's ring buffer): a new file when the current one reaches filesize bytes or spans duration_ns
 * of capture time, named PREFIX_NNNNN_YYYYMMDDhhmmss.SUFFIX from -w PREFIX.SUFFIX (the time of its first
 * record, UTC); only the newest `files` are kept (0: all) */
typedef struct ubx_ring {
    uint64_t filesize, duration_ns;
    unsigned files;
} ubx_ring;
/* one -b option: filesize:KB (1000 bytes), duration:SECONDS, files:N; 0 or -1 with a message */
int ubx_ring_option(ubx_ring *r, const char *opt, char *err, size_t errlen);
/* -F: the file format written, as tshark names it */
enum { UBX_F_PCAPNG, UBX_F_PCAP, UBX_F_NSECPCAP };
int ubx_writer_format(const char *name); /* -1 for a name it does not know */
/* fmt UBX_F_PCAP / NSECPCAP: one link type (the first record's interface's; a record of another is a
 * write error with a message), µs / ns timestamps, no interface names, comments or direction flags */
ubx_writer *ubx_writer_open_ring(const char *path, const ubx_ring *ring, int fmt, char *err, size_t errlen);
/* -U: every record reaches the file (or pipe) as it is written, not when the buffer fills */
void ubx_writer_packet_buffered(ubx_writer *w);
/* 0, -1 on a write error, -2 on an error already reported (a pcap file's second link type) */
int ubx_writer_rec(ubx_writer *w, const ub_capfile *cf, const ub_rec *r);
/* also writes the interfaces not used by any written record; 0 ok, -1 I/O error */
int ubx_writer_close(ubx_writer *w, const ub_capfile *cf);

#include "ubparse/audit.h"
#include "ubparse/filter.h"

/* -T json / -T ek in tshark's shape (ubdump_json.c) */
typedef struct ubx_pkt {
    const ub_rec *r;
    const ub_view *v;
    uint32_t len;                  /* bytes of the unit */
    uint64_t t0, prev, prev_shown; /* first, previous and previous printed packet's time */
    bool pcapng;                   /* frame.interface_id exists */
    const ub_fan *an;              /* ub.analysis.* of the frame (filter.h ub_fan_get), NULL: none */
    const ub_capfile *cf;          /* the file being read, at this record (its section, interface, flags, comments) */
} ubx_pkt;
void ubx_json_packet(FILE *f, const ubx_pkt *p, bool first);
/* tshark -j / -J: the protocol match filter of -T json|ek (names: NULL-terminated, kept; children:
 * -J, a listed item with all its descendants) */
void ubx_json_protocol_filter(char **names, bool children);
void ubx_ek_packet(FILE *f, const ubx_pkt *p);
/* with -e: only the fields names[i], each the occurrences vals[i] (lens[i] bytes, UBX_OCC_SEP between
 * occurrences; !present[i]: absent, left out) as an array, as tshark -T json|ek -e */
void ubx_json_efields(FILE *f, const ubx_pkt *p, bool ek, bool first, unsigned n, const char *const *names,
                      const char *const *vals, const size_t *lens, const bool *present);

/* -T json / -T ek on raw flit-stream records: one document per record (tshark), the units it
 * completes nested under ub.stream.unit_tree ("ub" of the bulk form: an array of the units) */
typedef struct ubx_jrec ubx_jrec;
ubx_jrec *ubx_jrec_new(void);
/* one unit the record completes, in order */
void ubx_jrec_unit(ubx_jrec *r, const ub_view *v, bool ek);
/* the record's document (p->v unused), ub.stream.* from ri (NULL: none); forgets the units (f NULL:
 * only that) */
void ubx_jrec_emit(FILE *f, ubx_jrec *r, const ubx_pkt *p, const ub_units_rinfo *ri, bool ek, bool first);
void ubx_jrec_free(ubx_jrec *r);

/* --write-cited: after an --audit run, re-read the capture `in` and write to `out` the records the
 * report cites (every kept example's frame and related frames). Records written, or -1 (err). */
long ubx_write_cited(const char *in, const char *out, const ub_collect *c, int fmt, char *err, size_t errlen);

/* --version / -v */
void ubx_version(FILE *f);

#endif
