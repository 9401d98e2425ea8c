/* ubgen — build UB packets from field values (libubparse builder) and write pcap/pcapng captures.
 *
 *   ubgen [-w OUT] [--pcap] [--repeat N] [--hex] [--noncrc] SPEC.ub
 *
 * SPEC.ub: '@capture' options, then packets, each starting with '@packet [ts=SECONDS] [dir=in|out]
 * [if=N] [trunc=BYTES] [xor=OFFSET:MASK]' followed by a builder description (docs/builder.md). '@capture' options: format=pcap|pcapng,
 * linktype=N (default from the first packet's entry point), split=N (raw flit stream: N flits per
 * record; records of one direction are the concatenated units), mode=crc|noncrc. */
#include "ubparse/capfile.h"
#include "ubparse/ubparse.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;
    double ts;
    int dir;
    int ifidx;
    long trunc;          /* cut the record to this many bytes (-1: no) */
    long xor_off;        /* flip bits: record[xor_off] ^= xor_val (-1: no) */
    unsigned xor_val;
} pkt_spec;

static uint32_t linktype_for(const ub_opts *o, ub_entry e)
{
    switch (e) {
    case UB_ENTRY_FLIT: return o->dlt_flit;
    case UB_ENTRY_PKT: return o->dlt_pkt;
    case UB_ENTRY_STREAM: return o->dlt_stream;
    case UB_ENTRY_SLL: return 113;
    case UB_ENTRY_SLL2: return 276;
    case UB_ENTRY_ETH: return 1;
    case UB_ENTRY_RAWIP: return 101;
    case UB_ENTRY_PCIEFLIT: return o->dlt_pcieflit;
    default: return 147;
    }
}

static char *slurp(const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
    }
    if (f != stdin) fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: ubgen [-w OUT] [--pcap|--pcapng] [--repeat N] [--hex] [--noncrc] SPEC.ub\n"
            "  Builds the packets described in SPEC.ub (docs/builder.md) and writes a capture.\n"
            "  -w OUT          write the capture to OUT (default '-': standard output)\n"
            "  --pcap, --pcapng   file format (default: the @capture line's, else pcapng)\n"
            "  --hex           print each built record as hex instead of writing a capture\n"
            "  --repeat N      write the packet list N times (timestamps advance by 1 us per packet)\n"
            "  --noncrc        links run in Non-CRC mode (END instead of BCRC)\n"
            "  -h, --help      this text\n");
}

int main(int argc, char **argv)
{
    const char *out = "-";
    int force_fmt = -1, hex = 0, noncrc = 0;
    unsigned long repeat = 1;
    static const struct option lo[] = {
        { "pcap", no_argument, NULL, 'P' }, { "pcapng", no_argument, NULL, 'N' },
        { "repeat", required_argument, NULL, 'R' }, { "hex", no_argument, NULL, 'H' },
        { "noncrc", no_argument, NULL, 'C' }, { "help", no_argument, NULL, 'h' }, { 0, 0, 0, 0 },
    };
    int c;
    while ((c = getopt_long(argc, argv, "w:h", lo, NULL)) != -1) {
        switch (c) {
        case 'w': out = optarg; break;
        case 'P': force_fmt = 0; break;
        case 'N': force_fmt = 1; break;
        case 'R': repeat = strtoul(optarg, NULL, 0); break;
        case 'H': hex = 1; break;
        case 'C': noncrc = 1; break;
        case 'h': usage(); return 0;
        default: usage(); return 2;
        }
    }
    if (optind != argc - 1) { usage(); return 2; }
    char *spec = slurp(argv[optind]);
    if (!spec) { fprintf(stderr, "ubgen: %s: %s\n", argv[optind], strerror(errno)); return 2; }

    ub_opts o;
    ub_opts_default(&o);
    if (noncrc) o.crc_mode = false;
    int fmt = 1; /* pcapng */
    long linktype = -1;
    unsigned split = 0;
    size_t pk_cap = 256;
    pkt_spec *pk = malloc(pk_cap * sizeof *pk);
    if (!pk) { fprintf(stderr, "ubgen: out of memory\n"); return 2; }
    size_t np = 0;
    /* split into @capture / @packet sections */
    char *save = NULL;
    for (char *line = strtok_r(spec, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t') line++;
        if (strncmp(line, "@capture", 8) == 0) {
            char *s2 = NULL;
            for (char *t = strtok_r(line + 8, " \t", &s2); t; t = strtok_r(NULL, " \t", &s2)) {
                if (strcmp(t, "format=pcap") == 0) fmt = 0;
                else if (strcmp(t, "format=pcapng") == 0) fmt = 1;
                else if (strncmp(t, "linktype=", 9) == 0) linktype = strtol(t + 9, NULL, 0);
                else if (strncmp(t, "split=", 6) == 0) split = (unsigned)strtoul(t + 6, NULL, 0);
                else if (strcmp(t, "mode=noncrc") == 0) o.crc_mode = false;
                else if (strcmp(t, "mode=crc") == 0) o.crc_mode = true;
                else { fprintf(stderr, "ubgen: unknown @capture option %s\n", t); return 2; }
            }
            continue;
        }
        if (strncmp(line, "@packet", 7) == 0) {
            if (np >= pk_cap) {
                pkt_spec *npk = realloc(pk, 2 * pk_cap * sizeof *pk);
                if (!npk) { fprintf(stderr, "ubgen: out of memory\n"); return 2; }
                pk = npk;
                pk_cap *= 2;
            }
            pkt_spec *p = &pk[np++];
            p->text = calloc(1, 1);
            p->ts = np > 1 ? pk[np - 2].ts + 0.000001 : 0;
            p->dir = 0;
            p->ifidx = 0;
            p->trunc = -1;
            p->xor_off = -1;
            char *s2 = NULL;
            for (char *t = strtok_r(line + 7, " \t", &s2); t; t = strtok_r(NULL, " \t", &s2)) {
                if (strncmp(t, "ts=", 3) == 0) p->ts = strtod(t + 3, NULL);
                else if (strcmp(t, "dir=in") == 0) p->dir = UB_DIR_IN;
                else if (strcmp(t, "dir=out") == 0) p->dir = UB_DIR_OUT;
                else if (strncmp(t, "if=", 3) == 0) p->ifidx = atoi(t + 3);
                else if (strncmp(t, "trunc=", 6) == 0) p->trunc = strtol(t + 6, NULL, 0);
                else if (strncmp(t, "xor=", 4) == 0) {
                    char *colon = strchr(t + 4, ':');
                    p->xor_off = strtol(t + 4, NULL, 0);
                    p->xor_val = colon ? (unsigned)strtoul(colon + 1, NULL, 0) : 0xFF;
                }
                else { fprintf(stderr, "ubgen: unknown @packet option %s\n", t); return 2; }
            }
            continue;
        }
        if (np == 0) {
            if (line[0] == '#' || line[0] == '\0') continue;
            fprintf(stderr, "ubgen: text before the first @packet: %s\n", line);
            return 2;
        }
        pkt_spec *p = &pk[np - 1];
        size_t ol = strlen(p->text), nl = strlen(line);
        p->text = realloc(p->text, ol + nl + 2);
        memcpy(p->text + ol, line, nl);
        p->text[ol + nl] = '\n';
        p->text[ol + nl + 1] = '\0';
    }
    if (force_fmt >= 0) fmt = force_fmt;
    if (np == 0) { fprintf(stderr, "ubgen: no @packet in %s\n", argv[optind]); return 2; }

    static uint8_t rec[UB_MAX_NETPKT * 2 + 64];
    long *lens = calloc(np, sizeof *lens);
    uint8_t **bufs = calloc(np, sizeof *bufs);
    ub_entry *entries = calloc(np, sizeof *entries);
    if (!lens || !bufs || !entries) { fprintf(stderr, "ubgen: out of memory\n"); return 2; }
    char err[256];
    for (unsigned i = 0; i < np; i++) {
        ub_entry e = UB_ENTRY_NONE;
        long n = ub_build_text(pk[i].text, &o, rec, sizeof rec, &e, err, sizeof err);
        if (n < 0) { fprintf(stderr, "ubgen: %s: packet %u: %s\n", argv[optind], i + 1, err); return 1; }
        if (pk[i].xor_off >= 0 && pk[i].xor_off < n) rec[pk[i].xor_off] ^= (uint8_t)pk[i].xor_val;
        if (pk[i].trunc >= 0 && pk[i].trunc < n) n = pk[i].trunc;
        bufs[i] = malloc(n ? (size_t)n : 1);
        memcpy(bufs[i], rec, (size_t)n);
        lens[i] = n;
        entries[i] = e;
    }
    if (hex) {
        for (unsigned i = 0; i < np; i++) {
            for (long k = 0; k < lens[i]; k++) printf("%02x%s", bufs[i][k], k + 1 < lens[i] ? " " : "\n");
            free(bufs[i]);
            free(pk[i].text);
        }
        free(spec);
        free(pk);
        free(lens);
        free(bufs);
        free(entries);
        return 0;
    }
    if (linktype < 0) linktype = (long)linktype_for(&o, entries[0]);
    ub_capw *w = ub_capw_open(out, fmt == 1, (uint32_t)linktype, err, sizeof err);
    if (!w) { fprintf(stderr, "ubgen: %s\n", err); return 2; }
    int maxif = 0;
    for (unsigned i = 0; i < np; i++) if (pk[i].ifidx > maxif) maxif = pk[i].ifidx;
    for (int i = 1; i <= maxif && fmt == 1; i++) ub_capw_add_if(w, (uint32_t)linktype, NULL);
    uint64_t tick = 0;
    for (unsigned long r = 0; r < repeat; r++) {
        if (entries[0] == UB_ENTRY_STREAM && split) {
            /* raw flit stream: concatenate the units of each (interface, direction) and cut every
             * `split` flits; a record takes the timestamp of the unit it starts in; records are
             * written in time order */
            typedef struct { uint64_t ts; int ifx, dir; const uint8_t *p; uint32_t n; } srec;
            static srec recs[1 << 16];
            static uint8_t stream[3][8][1 << 18];
            unsigned nrec = 0;
            for (int ifx = 0; ifx <= maxif && ifx < 8; ifx++) {
                for (int dir = 0; dir <= 2; dir++) {
                    size_t sl = 0;
                    unsigned owner[4096], nown = 0; /* unit index of each concatenated unit */
                    size_t uend[4096];
                    for (unsigned i = 0; i < np && nown < 4096; i++) {
                        if (pk[i].ifidx != ifx || pk[i].dir != dir) continue;
                        if (sl + (size_t)lens[i] > sizeof stream[0][0]) break;
                        memcpy(stream[dir][ifx] + sl, bufs[i], (size_t)lens[i]);
                        sl += (size_t)lens[i];
                        owner[nown] = i;
                        uend[nown++] = sl;
                    }
                    unsigned u = 0;
                    for (size_t off = 0; off < sl && nrec < sizeof recs / sizeof recs[0]; off += split * 20u) {
                        size_t n = sl - off < split * 20u ? sl - off : split * 20u;
                        while (u + 1 < nown && uend[u] < off + n) u++; /* unit holding the last byte */
                        recs[nrec++] = (srec){ (uint64_t)(pk[owner[u]].ts * 1e9 + 0.5) + tick, ifx, dir,
                                               stream[dir][ifx] + off, (uint32_t)n };
                    }
                }
            }
            /* stable insertion sort by timestamp */
            for (unsigned i = 1; i < nrec; i++) {
                srec t = recs[i];
                unsigned j = i;
                while (j > 0 && recs[j - 1].ts > t.ts) { recs[j] = recs[j - 1]; j--; }
                recs[j] = t;
            }
            for (unsigned i = 0; i < nrec; i++)
                ub_capw_write(w, (uint32_t)recs[i].ifx, recs[i].ts, recs[i].p, recs[i].n, (uint8_t)recs[i].dir);
        } else {
            for (unsigned i = 0; i < np; i++) {
                uint64_t ts = (uint64_t)(pk[i].ts * 1e9 + 0.5) + tick;
                if (ub_capw_write(w, (uint32_t)pk[i].ifidx, ts, bufs[i], (uint32_t)lens[i], (uint8_t)pk[i].dir) != 0) {
                    fprintf(stderr, "ubgen: write failed\n");
                    return 2;
                }
            }
        }
        tick += (uint64_t)np * 1000;
    }
    if (ub_capw_close(w) != 0) { fprintf(stderr, "ubgen: close failed\n"); return 2; }
    for (unsigned i = 0; i < np; i++) {
        free(bufs[i]);
        free(pk[i].text);
    }
    free(spec);
    free(pk);
    free(lens);
    free(bufs);
    free(entries);
    return 0;
}
