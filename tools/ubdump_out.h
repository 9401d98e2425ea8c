/* ubdump's tshark-style output helpers: -x hex dumps with layer markers, -t time formats, -E CSV
 * options, --version. Kept out of ubdump.c so the option parser stays small. */
#ifndef UBDUMP_OUT_H
#define UBDUMP_OUT_H

#include "ubparse/ubparse.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* -x: the bytes of one decoded unit, 16 a line with an offset column and ASCII (tshark -x), each
 * header's first byte announced by a marker line "-- 0014 ub.rtph  Reliable Transport Header, 12 bytes"
 * before the line holding it. A multi-block DLLDP's de-interleaved network packet (UB_LF_NETBUF
 * layers) follows as a second block, as tshark prints its reassembled data sources. */
void ubx_hexdump(FILE *f, const ub_view *v, const uint8_t *data, uint32_t len);

/* -t: tshark's time formats */
typedef enum ubx_tfmt { UBX_T_R, UBX_T_A, UBX_T_AD, UBX_T_D, UBX_T_DD, UBX_T_E, UBX_T_U, UBX_T_UD } ubx_tfmt;
int ubx_tfmt_parse(const char *s, ubx_tfmt *out);
/* ts: this packet; t0: the first; prev: the previous captured; prev_shown: the previous printed (all ns).
 * digits: fractional digits (6 for µs captures, 9 for ns). */
void ubx_time(char *buf, size_t n, ubx_tfmt fmt, unsigned digits, uint64_t ts, uint64_t t0, uint64_t prev,
              uint64_t prev_shown);

/* -T fields: the occurrences of one field are collected separated by this byte, then joined with
 * the -E aggregator (or cut to the first / last) when printed */
#define UBX_OCC_SEP '\x1f'

/* -E: separator, aggregator, quote, occurrence, header (tshark semantics) */
typedef struct ubx_csv {
    char sep, agg;
    char quote;      /* 0 none, '"' or '\'' */
    char occurrence; /* 'a' all, 'f' first, 'l' last */
    bool header;
} ubx_csv;
void ubx_csv_default(ubx_csv *c);
/* one -E NAME=VALUE; -1 with a message in err */
int ubx_csv_option(ubx_csv *c, const char *opt, char *err, size_t errlen);
/* writes one field value: the occurrences in vals (joined by agg, selected by occurrence), quoted */
void ubx_csv_value(FILE *f, const ubx_csv *c, const char *vals, size_t len);

/* -w FILE: the selected records as pcapng ("-" = stdout), with the source's interfaces (link type,
 * name; ids kept within a section, sections appended), direction flags, original lengths and comments */
#include "ubparse/capfile.h"
typedef struct ubx_writer ubx_writer;
ubx_writer *ubx_writer_open(const char *path, char *err, size_t errlen);
int ubx_writer_rec(ubx_writer *w, const ub_capfile *cf, const ub_rec *r);
/* also writes the interfaces not used by any written record; 0 ok, -1 I/O error */
int ubx_writer_close(ubx_writer *w, const ub_capfile *cf);

/* -T json / -T ek in tshark's shape (ubdump_json.c) */
typedef struct ubx_pkt {
    const ub_rec *r;
    const ub_view *v;
    uint32_t len;                  /* bytes of the unit */
    uint64_t t0, prev, prev_shown; /* first, previous and previous printed packet's time */
    bool pcapng;                   /* frame.interface_id exists */
} ubx_pkt;
void ubx_json_packet(FILE *f, const ubx_pkt *p, bool first);
void ubx_ek_packet(FILE *f, const ubx_pkt *p);

/* --version / -v */
void ubx_version(FILE *f);

#endif
