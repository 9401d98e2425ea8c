/* ubdump — UB capture analyzer (tcpdump/tshark conventions), driven by libubparse.
 *
 *   ubdump -r FILE [-V] [-T text|fields|json] [-e FIELD]... [-c COUNT] [-q] [-o OPTION=VALUE]...
 *
 * Exit status: 0 the file was read (malformed packets are output, not failures), 2 usage or I/O error. */
#include "ubparse/capfile.h"
#include "ubparse/ubparse.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_E 64
#define MAX_MATCH 16

enum { OUT_TEXT, OUT_FIELDS, OUT_JSON };
enum { PF_NONE, PF_FRAME_NUMBER, PF_FRAME_TIME_REL, PF_FRAME_TIME_EPOCH, PF_FRAME_LEN, PF_UB_ERROR, PF_FRAME_UNIT };

typedef struct {
    const char *name;
    int pseudo;
    size_t n;
    const ub_hdr *h[MAX_MATCH];
    const ub_field *f[MAX_MATCH];
} efield;

typedef struct {
    ub_opts o;
    int out, verbose, quiet;
    long count;
    efield e[MAX_E];
    unsigned ne;
    char sep, agg;
    int header;
    uint64_t t0;
    bool have_t0;
    uint64_t npkts, nunits;
    ub_view *v;
    bool json_first;
    /* raw flit streams, one per (interface, direction) */
    ub_stream *streams[64];
    const ub_rec *cur;
} app;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ubdump -r FILE [options]\n"
            "  -r FILE          read pcap/pcapng FILE ('-' = standard input)\n"
            "  -V               print the full decode tree of every packet\n"
            "  -T text|fields|json   output format (default text: one summary line per packet)\n"
            "  -e FIELD         with -T fields: field to print (repeatable), e.g. ub.btah.taopcode,\n"
            "                   frame.number, frame.time_relative, frame.len, ub.error\n"
            "  -E header=y|n    with -T fields: print the field names first; -E separator=C, -E aggregator=C\n"
            "  -c COUNT         stop after COUNT records\n"
            "  -q               decode everything, print only the totals\n"
            "  -o NAME=VALUE    decoder option (ubdump -o help lists them)\n"
            "  --noncrc         links run in Non-CRC mode (END instead of BCRC)\n"
            "  -G fields|errors|headers  list every field / error name / header table and exit\n"
            "Exit status: 0 file read, 2 usage or I/O error.\n");
}

static int set_option(ub_opts *o, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq) return -1;
    size_t kl = (size_t)(eq - kv);
    const char *val = eq + 1;
    unsigned long u = strtoul(val, NULL, 0);
#define K(s) (kl == strlen(s) && strncmp(kv, s, kl) == 0)
    if (K("dlt.flit")) o->dlt_flit = (uint16_t)u;
    else if (K("dlt.pkt")) o->dlt_pkt = (uint16_t)u;
    else if (K("dlt.stream")) o->dlt_stream = (uint16_t)u;
    else if (K("udp.port")) o->udp_port = (uint16_t)u;
    else if (K("crc_mode")) o->crc_mode = strcmp(val, "noncrc") != 0 && strcmp(val, "0") != 0;
    else if (K("bcrc_variant")) o->bcrc_variant = (uint8_t)u;
    else if (K("tah_fmt.6") || K("tah_fmt.9") || K("tah_fmt.7") || K("tah_fmt.3") || K("tah_fmt.4")) {
        int cfg = kv[8] - '0';
        o->tah_fmt[cfg] = strcmp(val, "compact") == 0 || strcmp(val, "1") == 0 ? UB_TAH_COMPACT : UB_TAH_FULL;
    } else if (K("read_ext4")) o->read_ext4 = (uint8_t)u;
    else if (K("rsp_ext")) o->rsp_ext = (uint8_t)u;
    else if (K("btah_variant")) o->btah_variant = (uint8_t)u;
    else if (K("scan_packing")) o->scan_packing = (uint8_t)u;
    else if (K("vdm_variant")) o->vdm_variant = (uint8_t)u;
    else if (K("init_variant")) o->init_variant = (uint8_t)u;
    else if (K("cetph_variant")) o->cetph_variant = (uint8_t)u;
    else if (K("bitmap_order")) o->bitmap_order = (uint8_t)u;
    else if (K("icv_len")) o->icv_len = (uint16_t)u;
    else if (K("cip_decode_inner")) o->cip_decode_inner = u != 0;
    else if (K("urpc")) o->urpc_heuristic = u != 0;
    else if (K("icrc_enum")) o->icrc_enum = (uint8_t)u;
    else return -1;
#undef K
    return 0;
}

static void list_options(void)
{
    puts("dlt.flit=N dlt.pkt=N dlt.stream=N   link types of the three UB entry points (147/148/149)\n"
         "udp.port=N                         UB over UDP port (4792)\n"
         "crc_mode=crc|noncrc                BCRC per block (CRC) or END (Non-CRC)\n"
         "bcrc_variant=0|1                   R-03: CRC30 covers the 2 info bits (0) or bytes only (1)\n"
         "tah_fmt.<cfg>=full|compact          R-25: TAH format per CFG (defaults: 6,9 compact; others full)\n"
         "read_ext4=0|1|2                    R-26: 4 spare bytes in a Read: auto, TAIDETAH, OFSTETAH\n"
         "rsp_ext=0..3                       R-26: responses carry TAIDETAH (1) / OFSTETAH (2)\n"
         "btah_variant=0|1                   I-34: BTAH byte 4 per spec (0) or EV-UBUS (1)\n"
         "scan_packing=0|1                   R-32: path entries rev.2 (0) or rev.1 (1)\n"
         "vdm_variant=0|1                    R-36: VDM header figure order (0) or EV-UBUS (1)\n"
         "init_variant=0|1|2                 R-08: Init Block layout A, B or auto\n"
         "cetph_variant=0|1                  R-17: CETPH of TPACK-CC family LDCP (0) or CAQM (1)\n"
         "bitmap_order=0|1                   R-18: SAETPH bitmap order\n"
         "icv_len=N                          R-22: ICV bytes (12)\n"
         "cip_decode_inner=0|1               decode the TAH after a CIPH (default 0: opaque)\n"
         "urpc=0|1                           decode URPC in Send payloads\n"
         "icrc_enum=0|1|2                    R-44: enumeration ICRC auto/always/never");
}

static void list_fields(void)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        for (unsigned k = 0; k < h->nfields; k++)
            printf("%s\t%s\t%s\t%s\n", h->fields[k].abbrev, h->fields[k].name, h->key, h->fields[k].spec);
    }
    printf("ub.error\tError names\t-\t-\n");
}

static void list_errors(void)
{
    static const char *sev[] = { "note", "warning", "error" };
    static const char *grp[] = { "malformed", "protocol", "sequence", "checksum" };
    for (unsigned c = 1; c < UB_E__COUNT; c++) {
        const ub_err_info *e = ub_err_get(c);
        if (e) printf("%s\t%s\t%s\t%s\n", e->name, sev[e->severity], grp[e->group], e->desc);
    }
}

static void list_headers(void)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (h) printf("%s\tub.%s\t%s\t%u\t%s\n", h->key, h->abbrev, h->name, h->len, h->spec);
    }
}

static int add_efield(app *a, const char *name)
{
    if (a->ne >= MAX_E) return -1;
    efield *e = &a->e[a->ne];
    memset(e, 0, sizeof *e);
    e->name = name;
    if (strcmp(name, "frame.number") == 0) e->pseudo = PF_FRAME_NUMBER;
    else if (strcmp(name, "frame.time_relative") == 0) e->pseudo = PF_FRAME_TIME_REL;
    else if (strcmp(name, "frame.time_epoch") == 0) e->pseudo = PF_FRAME_TIME_EPOCH;
    else if (strcmp(name, "frame.len") == 0) e->pseudo = PF_FRAME_LEN;
    else if (strcmp(name, "ub.error") == 0) e->pseudo = PF_UB_ERROR;
    else {
        e->n = ub_field_find(name, e->h, e->f, MAX_MATCH);
        if (e->n == 0) return -1;
        if (e->n > MAX_MATCH) e->n = MAX_MATCH;
    }
    a->ne++;
    return 0;
}

static void print_efield(app *a, const efield *e, FILE *out)
{
    const ub_view *v = a->v;
    const ub_rec *r = a->cur;
    switch (e->pseudo) {
    case PF_FRAME_NUMBER: fprintf(out, "%" PRIu64, r->frame); return;
    case PF_FRAME_TIME_REL: {
        uint64_t d = r->ts_ns - a->t0;
        fprintf(out, "%" PRIu64 ".%09" PRIu64, d / 1000000000u, d % 1000000000u);
        return;
    }
    case PF_FRAME_TIME_EPOCH:
        fprintf(out, "%" PRIu64 ".%09" PRIu64, r->ts_ns / 1000000000u, r->ts_ns % 1000000000u);
        return;
    case PF_FRAME_LEN: fprintf(out, "%u", r->origlen); return;
    case PF_UB_ERROR: {
        for (unsigned i = 0; i < v->nerrs; i++) {
            const ub_err_info *ei = ub_err_get(v->err[i].code);
            if (i) fputc(a->agg, out);
            fputs(ei ? ei->name : "?", out);
        }
        return;
    }
    default: break;
    }
    bool first = true;
    char buf[2200];
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        for (size_t k = 0; k < e->n; k++) {
            if (l->hdr != e->h[k]) continue;
            if (!e->f[k]) continue;
            ub_val val;
            if (ub_field_value(l, e->f[k], &val) != 0) continue;
            ub_format_value(e->f[k], &val, false, buf, sizeof buf);
            if (!first) fputc(a->agg, out);
            fputs(buf, out);
            first = false;
        }
    }
}

static const char *entry_name(unsigned e)
{
    static const char *n[] = { "none", "flit", "pkt", "stream", "sll", "sll2", "eth", "rawip", "cfgph", "tph" };
    return e < sizeof n / sizeof n[0] ? n[e] : "?";
}

static void emit(app *a, const uint8_t *data, uint32_t len, ub_entry entry, unsigned unit_flags)
{
    ub_view *v = a->v;
    ub_decode(v, &a->o, entry, data, len);
    if (unit_flags & UB_UNIT_PARTIAL)
        ub_error_rec(v, UB_E_STREAM, UB_H_NONE, 0, len, 0, "incomplete unit at the end of the stream");
    a->nunits++;
    if (a->quiet) return;
    const ub_rec *r = a->cur;
    if (a->out == OUT_FIELDS) {
        for (unsigned i = 0; i < a->ne; i++) {
            if (i) putchar(a->sep);
            print_efield(a, &a->e[i], stdout);
        }
        putchar('\n');
        return;
    }
    uint64_t d = r->ts_ns - a->t0;
    if (a->out == OUT_JSON) {
        printf("%s  {\"frame\":%" PRIu64 ",\"time_relative\":%" PRIu64 ".%09" PRIu64 ",\"len\":%u,\"entry\":\"%s\",\"ub\":",
               a->json_first ? "" : ",\n", r->frame, d / 1000000000u, d % 1000000000u, len, entry_name(v->entry));
        ub_print_json(stdout, v);
        fputs("}", stdout);
        a->json_first = false;
        return;
    }
    char sum[1024];
    ub_summary(v, sum, sizeof sum);
    printf("%6" PRIu64 " %" PRIu64 ".%06" PRIu64 " %s\n", r->frame, d / 1000000000u, (d % 1000000000u) / 1000u, sum);
    if (a->verbose) {
        ub_print_tree(stdout, v);
        putchar('\n');
    }
}

static void unit_cb(void *ctx, const uint8_t *unit, uint32_t len, uint32_t flags)
{
    emit((app *)ctx, unit, len, UB_ENTRY_FLIT, flags);
}

int main(int argc, char **argv)
{
    static app A;
    app *a = &A;
    ub_opts_default(&a->o);
    a->out = OUT_TEXT;
    a->count = -1;
    a->sep = '\t';
    a->agg = ',';
    a->json_first = true;
    const char *file = NULL;
    static const struct option lo[] = { { "noncrc", no_argument, NULL, 'N' }, { "help", no_argument, NULL, 'h' },
                                        { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(argc, argv, "r:VT:e:E:c:qo:G:h", lo, NULL)) != -1) {
        switch (c) {
        case 'r': file = optarg; break;
        case 'V': a->verbose = 1; break;
        case 'T':
            if (strcmp(optarg, "text") == 0) a->out = OUT_TEXT;
            else if (strcmp(optarg, "fields") == 0) a->out = OUT_FIELDS;
            else if (strcmp(optarg, "json") == 0) a->out = OUT_JSON;
            else { fprintf(stderr, "ubdump: unknown output format '%s' (text, fields, json)\n", optarg); return 2; }
            break;
        case 'e':
            if (add_efield(a, optarg) != 0) {
                fprintf(stderr, "ubdump: unknown field '%s' (ubdump -G fields lists them)\n", optarg);
                return 2;
            }
            break;
        case 'E':
            if (strncmp(optarg, "header=", 7) == 0) a->header = optarg[7] == 'y';
            else if (strncmp(optarg, "separator=", 10) == 0) a->sep = strcmp(optarg + 10, "/t") == 0 ? '\t' : optarg[10];
            else if (strncmp(optarg, "aggregator=", 11) == 0) a->agg = optarg[11];
            else { fprintf(stderr, "ubdump: unknown -E option '%s'\n", optarg); return 2; }
            break;
        case 'c': a->count = strtol(optarg, NULL, 0); break;
        case 'q': a->quiet = 1; break;
        case 'o':
            if (strcmp(optarg, "help") == 0) { list_options(); return 0; }
            if (set_option(&a->o, optarg) != 0) { fprintf(stderr, "ubdump: bad option '%s' (ubdump -o help)\n", optarg); return 2; }
            break;
        case 'N': a->o.crc_mode = false; break;
        case 'G':
            if (strcmp(optarg, "fields") == 0) { list_fields(); return 0; }
            if (strcmp(optarg, "errors") == 0) { list_errors(); return 0; }
            if (strcmp(optarg, "headers") == 0) { list_headers(); return 0; }
            fprintf(stderr, "ubdump: -G fields|errors|headers\n");
            return 2;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!file || optind != argc) { usage(stderr); return 2; }
    if (a->out == OUT_FIELDS && a->ne == 0) { fprintf(stderr, "ubdump: -T fields needs at least one -e FIELD\n"); return 2; }
    char err[256];
    ub_capfile *cf = ub_cap_open(file, err, sizeof err);
    if (!cf) { fprintf(stderr, "ubdump: %s\n", err); return 2; }
    a->v = malloc(sizeof *a->v);
    if (!a->v) return 2;
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    if (a->out == OUT_FIELDS && a->header) {
        for (unsigned i = 0; i < a->ne; i++) printf("%s%s", i ? (char[2]){ a->sep, 0 } : "", a->e[i].name);
        putchar('\n');
    }
    if (a->out == OUT_JSON) fputs("[\n", stdout);
    ub_rec r;
    int rc, status = 0;
    while ((a->count < 0 || (long)a->npkts < a->count) && (rc = ub_cap_next(cf, &r)) == 1) {
        a->npkts++;
        a->cur = &r;
        if (!a->have_t0) { a->t0 = r.ts_ns; a->have_t0 = true; }
        ub_entry e = ub_entry_for_linktype(&a->o, r.linktype);
        if (e == UB_ENTRY_STREAM) {
            unsigned k = ((r.ifindex & 31u) << 1) | (r.dir == UB_DIR_IN ? 1u : 0u);
            if (!a->streams[k]) {
                a->streams[k] = malloc(sizeof(ub_stream));
                if (!a->streams[k]) return 2;
                ub_stream_init(a->streams[k], &a->o);
            }
            ub_stream_feed(a->streams[k], r.data, r.caplen, unit_cb, a);
            continue;
        }
        emit(a, r.data, r.caplen, e, 0);
    }
    if (rc < 0) {
        fprintf(stderr, "ubdump: %s: %s\n", file, ub_cap_error(cf));
        status = 2;
    }
    for (unsigned k = 0; k < 64; k++)
        if (a->streams[k]) ub_stream_flush(a->streams[k], unit_cb, a);
    if (a->out == OUT_JSON) fputs("\n]\n", stdout);
    if (a->quiet) printf("%" PRIu64 " records, %" PRIu64 " UB packets/blocks decoded\n", a->npkts, a->nunits);
    fflush(stdout);
    ub_cap_close(cf);
    return status;
}
