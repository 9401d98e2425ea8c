/* ubdump's tshark-style output helpers (ubdump_out.h): -x, -t, -E, --version. */
#include "ubdump_out.h"

#include "ubparse/ublua.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ -x */
static void hex_markers(FILE *f, const ub_view *v, const uint8_t *base, uint32_t n, uint32_t from, uint32_t to)
{
    for (unsigned i = 0; i < v->nlayers; i++) {
        const ub_layer *l = &v->layer[i];
        if (!l->hdr || !l->data || l->data < base || l->data > base + n) continue;
        uint32_t off = (uint32_t)(l->data - base);
        if (off < from || off >= to) continue;
        fprintf(f, "-- %04x %*sub.%s  %s, %u byte%s%s\n", off, 2 * l->depth, "", l->hdr->abbrev, l->hdr->name, l->len,
                l->len == 1 ? "" : "s", l->flags & UB_LF_TRUNC ? " [truncated]" : "");
    }
}

static void hex_block(FILE *f, const ub_view *v, const uint8_t *p, uint32_t n)
{
    for (uint32_t o = 0; o < n || (o == 0 && n == 0); o += 16) {
        /* markers of the headers starting on this line (the last line also takes those at the end) */
        hex_markers(f, v, p, n, o, o + 16 >= n ? n + 1 : o + 16);
        if (n == 0) break;
        char line[128];
        int k = snprintf(line, sizeof line, n > 0x10000 ? "%08x " : "%04x ", o);
        for (uint32_t j = 0; j < 16; j++)
            k += o + j < n ? snprintf(line + k, sizeof line - (size_t)k, " %02x", p[o + j])
                           : snprintf(line + k, sizeof line - (size_t)k, "   ");
        k += snprintf(line + k, sizeof line - (size_t)k, "   ");
        for (uint32_t j = 0; j < 16 && o + j < n; j++) line[k++] = p[o + j] >= 0x20 && p[o + j] < 0x7f ? (char)p[o + j] : '.';
        line[k] = '\0';
        fprintf(f, "%s\n", line);
    }
}

void ubx_hexdump(FILE *f, const ub_view *v, const uint8_t *data, uint32_t len)
{
    bool net = false;
    for (unsigned i = 0; i < v->nlayers; i++)
        if (v->layer[i].flags & UB_LF_NETBUF) net = true;
    if (net) fprintf(f, "Frame (%u bytes):\n", len);
    hex_block(f, v, data, len);
    if (net) { /* the network packet de-interleaved from the DLLDP's blocks (§4.3.2 multi-block) */
        fprintf(f, "De-interleaved network packet (%u bytes):\n", v->pkt_len);
        hex_block(f, v, v->netbuf, v->pkt_len);
    }
    fputc('\n', f);
}

void ubx_hexdump_reasm(FILE *f, const ub_view *v, const uint8_t *rec, uint32_t rlen, const uint8_t *unit, uint32_t ulen)
{
    fprintf(f, "Frame (%u bytes):\n", rlen);
    hex_block(f, v, rec, rlen);
    unsigned n = v->nlayers < UB_MAX_LAYERS ? v->nlayers : UB_MAX_LAYERS, i = 0;
    while (i < n && v->layer[i].hdr->id != UB_H_IPV4 && v->layer[i].hdr->id != UB_H_IPV6) i++;
    if (i + 1 < n) { /* the payload: from the layer after the IP header (and IPv6's extension headers) ... */
        const ub_layer *ip = &v->layer[i];
        const bool v6 = ip->hdr->id == UB_H_IPV6;
        unsigned j = i + 1;
        while (j + 1 < n && (v->layer[j].hdr->id == UB_H_IP6_HOPOPTS || v->layer[j].hdr->id == UB_H_IP6_ROUTING ||
                             v->layer[j].hdr->id == UB_H_IP6_DSTOPTS))
            j++;
        /* ... to the end the IP header's length gives (its schema row) */
        const char *lname = v6 ? "ub.ipv6.payload_length" : "ub.ipv4.total_length";
        ub_val len = { 0 };
        for (unsigned k = 0; k < ip->hdr->nfields; k++)
            if (strcmp(ip->hdr->fields[k].abbrev, lname) == 0) ub_field_value(ip, &ip->hdr->fields[k], &len);
        const uint8_t *a = v->layer[j].data, *b = ip->data + (v6 ? 40u : 0u) + len.u;
        if (a >= unit && b >= a && b <= unit + ulen) {
            fprintf(f, "Reassembled IPv%c (%u bytes):\n", v6 ? '6' : '4', (unsigned)(b - a));
            hex_block(f, v, a, (uint32_t)(b - a));
        }
    }
    fputc('\n', f);
}

/* ------------------------------------------------------------------ -t */
int ubx_tfmt_parse(const char *s, ubx_tfmt *out)
{
    static const struct { const char *n; ubx_tfmt f; } t[] = {
        { "r", UBX_T_R }, { "a", UBX_T_A }, { "ad", UBX_T_AD }, { "d", UBX_T_D }, { "dd", UBX_T_DD },
        { "e", UBX_T_E }, { "u", UBX_T_U }, { "ud", UBX_T_UD },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(s, t[i].n) == 0) { *out = t[i].f; return 0; }
    return -1;
}

static const char dig2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                              "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";

/* [-]seconds.fraction with `digits` (at most 9) fractional digits (truncated, as tshark): the text of
 * snprintf(buf, n, "%s%" PRIu64 ".%0*" PRIu64, neg ? "-" : "", s, digits, frac), by hand (every text line) */
static void secfrac(char *buf, size_t n, bool neg, uint64_t ns, unsigned digits)
{
    static const uint32_t div[10] = { 1000000000u, 100000000u, 10000000u, 1000000u, 100000u, 10000u, 1000u, 100u, 10u, 1u };
    char t[48], r[20];
    size_t k = 0, m = sizeof r;
    if (neg) t[k++] = '-';
    uint64_t sec = ns / 1000000000u;
    uint32_t frac = (uint32_t)(ns % 1000000000u) / div[digits > 9 ? 9 : digits];
    do {
        r[--m] = (char)('0' + sec % 10u);
        sec /= 10u;
    } while (sec);
    memcpy(t + k, r + m, sizeof r - m);
    k += sizeof r - m;
    t[k++] = '.';
    unsigned w = digits ? (digits > 9 ? 9 : digits) : 1, i = w; /* width 0: one digit, as printf */
    for (; i >= 2; i -= 2, frac /= 100u) memcpy(t + k + i - 2, dig2 + 2 * (frac % 100u), 2);
    if (i) t[k] = (char)('0' + frac % 10u);
    k += w;
    if (n) {
        size_t c = k < n ? k : n - 1;
        memcpy(buf, t, c);
        buf[c] = '\0';
    }
}

static void delta(char *buf, size_t n, uint64_t a, uint64_t b, unsigned digits)
{
    if (a >= b) secfrac(buf, n, false, a - b, digits);
    else secfrac(buf, n, true, b - a, digits);
}

void ubx_time(char *buf, size_t n, ubx_tfmt fmt, unsigned digits, uint64_t ts, uint64_t t0, uint64_t prev,
              uint64_t prev_shown)
{
    if (digits > 9) digits = 9;
    switch (fmt) {
    case UBX_T_R: delta(buf, n, ts, t0, digits); return;
    case UBX_T_D: delta(buf, n, ts, prev, digits); return;
    case UBX_T_DD: delta(buf, n, ts, prev_shown, digits); return;
    case UBX_T_E: secfrac(buf, n, false, ts, digits); return;
    default: break;
    }
    time_t sec = (time_t)(ts / 1000000000u);
    struct tm tm;
    bool utc = fmt == UBX_T_U || fmt == UBX_T_UD;
    if (!(utc ? gmtime_r(&sec, &tm) : localtime_r(&sec, &tm))) { snprintf(buf, n, "?"); return; }
    char frac[24];
    secfrac(frac, sizeof frac, false, ts % 1000000000u, digits); /* "0.ffff" */
    const char *dot = strchr(frac, '.');
    bool date = fmt == UBX_T_AD || fmt == UBX_T_UD;
    int year = tm.tm_year + 1900;
    if (year < 1000 || year > 9999 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 0 || tm.tm_mday > 99 ||
        tm.tm_hour < 0 || tm.tm_hour > 99 || tm.tm_min < 0 || tm.tm_min > 99 || tm.tm_sec < 0 || tm.tm_sec > 99) {
        if (date)
            snprintf(buf, n, "%04d-%02d-%02d %02d:%02d:%02d%s", year, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, dot ? dot : "");
        else
            snprintf(buf, n, "%02d:%02d:%02d%s", tm.tm_hour, tm.tm_min, tm.tm_sec, dot ? dot : "");
        return;
    }
    /* the fields in range: the same text by hand, "%04d-%02d-%02d %02d:%02d:%02d%s" / "%02d:%02d:%02d%s" */
    char t[48];
    size_t k = 0;
#define TWO(v) (t[k++] = (char)('0' + (v) / 10), t[k++] = (char)('0' + (v) % 10))
    if (date) {
        TWO(year / 100);
        TWO(year % 100);
        t[k++] = '-';
        TWO(tm.tm_mon + 1);
        t[k++] = '-';
        TWO(tm.tm_mday);
        t[k++] = ' ';
    }
    TWO(tm.tm_hour);
    t[k++] = ':';
    TWO(tm.tm_min);
    t[k++] = ':';
    TWO(tm.tm_sec);
#undef TWO
    size_t dl = dot ? strlen(dot) : 0; /* at most ".123456789" */
    memcpy(t + k, dot ? dot : "", dl < 16 ? dl : 16);
    k += dl < 16 ? dl : 16;
    if (n) {
        size_t c = k < n ? k : n - 1;
        memcpy(buf, t, c);
        buf[c] = '\0';
    }
}

size_t ubx_dec_col(char *p, uint64_t v, unsigned width)
{
    char r[20];
    size_t m = sizeof r, k = 0;
    for (; v >= 100; v /= 100u) {
        m -= 2;
        memcpy(r + m, dig2 + 2 * (v % 100u), 2);
    }
    if (v >= 10) {
        m -= 2;
        memcpy(r + m, dig2 + 2 * v, 2);
    } else {
        r[--m] = (char)('0' + v);
    }
    for (size_t d = sizeof r - m; d < width; d++) p[k++] = ' ';
    memcpy(p + k, r + m, sizeof r - m);
    return k + sizeof r - m;
}

/* frame.time as tshark prints it: local time with the zone, always ns ("Jan  1, 1970 09:00:00.000010000 JST") */
void ubx_frame_time(char *buf, size_t n, uint64_t ts)
{
    time_t sec = (time_t)(ts / 1000000000u);
    struct tm tm;
    char d[40], z[16];
    if (!localtime_r(&sec, &tm) || !strftime(d, sizeof d, "%b %e, %Y %H:%M:%S", &tm) || !strftime(z, sizeof z, "%Z", &tm)) {
        snprintf(buf, n, "?");
        return;
    }
    snprintf(buf, n, "%s.%09u %s", d, (unsigned)(ts % 1000000000u), z);
}

/* ------------------------------------------------------------------ -E */
void ubx_csv_default(ubx_csv *c)
{
    c->sep = '\t';
    c->agg = ',';
    c->quote = 0;
    c->occurrence = 'a';
    c->header = false;
}

/* tshark's character arguments: /t tab, /s space, else the first character */
static char csv_char(const char *v) { return strcmp(v, "/t") == 0 ? '\t' : strcmp(v, "/s") == 0 ? ' ' : v[0]; }

int ubx_csv_option(ubx_csv *c, const char *opt, char *err, size_t errlen)
{
    const char *eq = strchr(opt, '=');
    const char *v = eq ? eq + 1 : "";
    size_t kl = eq ? (size_t)(eq - opt) : strlen(opt);
#define KEY(s) (kl == sizeof(s) - 1 && strncmp(opt, s, kl) == 0)
    if (KEY("header") && (strcmp(v, "y") == 0 || strcmp(v, "n") == 0)) c->header = v[0] == 'y';
    else if (KEY("separator") && *v) c->sep = csv_char(v);
    else if (KEY("aggregator") && *v) c->agg = csv_char(v);
    else if (KEY("quote") && (strcmp(v, "d") == 0 || strcmp(v, "s") == 0 || strcmp(v, "n") == 0))
        c->quote = v[0] == 'd' ? '"' : v[0] == 's' ? '\'' : 0;
    else if (KEY("occurrence") && (strcmp(v, "f") == 0 || strcmp(v, "l") == 0 || strcmp(v, "a") == 0)) c->occurrence = v[0];
    else {
        snprintf(err, errlen, "bad -E option '%s' (header=y|n, separator=/t|/s|C, aggregator=,|/s|C, quote=d|s|n, "
                              "occurrence=f|l|a)", opt);
        return -1;
    }
#undef KEY
    return 0;
}

/* ------------------------------------------------------------------ --version */
void ubx_version(FILE *f)
{
    fprintf(f, "ubdump (ubscope) %s\n\n", UBSCOPE_VERSION);
    fprintf(f, "libubparse %s (C11; pcap/pcapng reader and writer built in: no libpcap)\n", UBPARSE_VERSION);
    fprintf(f, "Compiled with %s.\n", ub_lua_version());
    fprintf(f, "Capture file formats: pcap (us and ns), pcapng (several interfaces, if_tsresol, EPB flags).\n");
}
