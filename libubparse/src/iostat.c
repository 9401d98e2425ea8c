/* -z io,stat (iostat.h): tshark's IO statistics table over ubdump's display filters. */
#include "ubparse/iostat.h"

#include <stdlib.h>
#include <string.h>

#define IO_MAXCOL 64

typedef struct iocol {
    char *text;             /* the filter, NULL: every frame */
    ub_filter *f;
    ub_filter_acc *acc;
    uint64_t *frames, *bytes; /* [nrows] */
    size_t cur_row;         /* the last interval this column counted a frame in */
} iocol;

struct ub_iostat {
    uint64_t ival_ns;       /* 0: one row */
    unsigned ndec;          /* decimals of the interval as written (row labels) */
    iocol col[IO_MAXCOL];
    unsigned ncol;
    size_t nrows, caprows;
    uint64_t last_rel;
    bool any;
    bool oom;
};

/* seconds "0.001" -> ns and the number of decimals; false if not a number */
static bool secs(const char *s, size_t n, uint64_t *ns, unsigned *ndec)
{
    uint64_t sec = 0, frac = 0;
    unsigned nd = 0, fd = 0;
    size_t k = 0;
    for (; k < n && s[k] >= '0' && s[k] <= '9' && sec < 100000000; k++, nd++) sec = sec * 10 + (uint64_t)(s[k] - '0');
    if (k < n && s[k] == '.')
        for (k++; k < n && s[k] >= '0' && s[k] <= '9'; k++, fd++)
            if (fd < 9) frac = frac * 10 + (uint64_t)(s[k] - '0');
    if (k != n || (!nd && !fd)) return false;
    *ndec = fd > 9 ? 9 : fd;
    for (unsigned q = fd; q < 9; q++) frac *= 10;
    *ns = sec * 1000000000u + frac;
    return true;
}

ub_iostat *ub_iostat_new(const char *spec, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (!spec || strncmp(spec, "io,stat,", 8) != 0) {
        snprintf(err, errlen, "expected io,stat,INTERVAL[,FILTER]...");
        return NULL;
    }
    ub_iostat *s = calloc(1, sizeof *s);
    if (!s) { snprintf(err, errlen, "out of memory"); return NULL; }
    const char *p = spec + 8, *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    if (!secs(p, n, &s->ival_ns, &s->ndec)) {
        snprintf(err, errlen, "io,stat: '%.*s' is not an interval in seconds", (int)(n > 32 ? 32 : n), p);
        free(s);
        return NULL;
    }
    if (s->ndec > 6) s->ndec = 6; /* tshark counts in µs */
    /* columns: FILTER,FILTER... (a filter may not contain a comma, as in tshark) */
    while (c) {
        p = c + 1;
        c = strchr(p, ',');
        n = c ? (size_t)(c - p) : strlen(p);
        if (s->ncol == IO_MAXCOL) { snprintf(err, errlen, "io,stat: more than %d columns", IO_MAXCOL); goto bad; }
        iocol *col = &s->col[s->ncol++];
        if (n == 0) continue; /* every frame */
        col->text = malloc(n + 1);
        if (!col->text) { snprintf(err, errlen, "out of memory"); goto bad; }
        memcpy(col->text, p, n);
        col->text[n] = 0;
        static const char *const calc[] = { "COUNT(", "SUM(", "MIN(", "MAX(", "AVG(", "LOAD(" };
        for (size_t k = 0; k < sizeof calc / sizeof calc[0]; k++)
            if (strncmp(col->text, calc[k], strlen(calc[k])) == 0) {
                snprintf(err, errlen, "io,stat column %u '%s': tshark's %.*s(FIELD) calculations are not supported (a column counts "
                         "the frames and bytes matching a filter)", s->ncol, col->text, (int)strlen(calc[k]) - 1, calc[k]);
                goto bad;
            }
        char fe[256];
        col->f = ub_filter_compile(col->text, fe, sizeof fe);
        if (!col->f) { snprintf(err, errlen, "io,stat column %u '%s': %s", s->ncol, col->text, fe); goto bad; }
        col->acc = ub_filter_acc_new(col->f);
        if (!col->acc) { snprintf(err, errlen, "out of memory"); goto bad; }
    }
    if (s->ncol == 0) s->ncol = 1; /* "Frames and bytes" */
    return s;
bad:
    ub_iostat_free(s);
    return NULL;
}

static bool any_col(const ub_iostat *s, bool (*uses)(const ub_filter *))
{
    for (unsigned i = 0; s && i < s->ncol; i++)
        if (s->col[i].f && uses(s->col[i].f)) return true;
    return false;
}
bool ub_iostat_uses_analysis(const ub_iostat *s) { return any_col(s, ub_filter_uses_analysis); }
bool ub_iostat_uses_frame(const ub_iostat *s) { return any_col(s, ub_filter_uses_frame); }

void ub_iostat_view(ub_iostat *s, const ub_view *v, const ub_filter_pkt *pk)
{
    for (unsigned i = 0; s && i < s->ncol; i++)
        if (s->col[i].acc) ub_filter_acc_add(s->col[i].acc, v, pk);
}

static bool rows(ub_iostat *s, size_t need)
{
    if (need <= s->caprows) return true;
    size_t nc = s->caprows ? s->caprows : 64;
    while (nc < need) nc *= 2;
    for (unsigned i = 0; i < s->ncol; i++) {
        uint64_t *f = realloc(s->col[i].frames, nc * sizeof *f);
        if (f) s->col[i].frames = f;
        uint64_t *b = realloc(s->col[i].bytes, nc * sizeof *b);
        if (b) s->col[i].bytes = b;
        if (!f || !b) return false;
        memset(f + s->caprows, 0, (nc - s->caprows) * sizeof *f);
        memset(b + s->caprows, 0, (nc - s->caprows) * sizeof *b);
    }
    s->caprows = nc;
    return true;
}

void ub_iostat_span(ub_iostat *s, uint64_t rel_ns)
{
    if (!s || rel_ns <= s->last_rel) return;
    size_t row = s->ival_ns ? (size_t)(rel_ns / s->ival_ns) : 0;
    if (row > (1u << 24)) row = 1u << 24; /* bounded as ub_iostat_frame */
    if (!rows(s, row + 1)) s->oom = true;
    s->last_rel = rel_ns;
}

void ub_iostat_frame(ub_iostat *s, const ub_filter_pkt *pk)
{
    if (!s || !pk) return;
    uint64_t rel = pk->ts_ns >= pk->t0_ns ? pk->ts_ns - pk->t0_ns : 0;
    size_t row = s->ival_ns ? (size_t)(rel / s->ival_ns) : 0;
    if (row > (1u << 24)) row = 1u << 24; /* bounded: a capture of days at a µs interval */
    if (!rows(s, row + 1)) s->oom = true;
    if (rel > s->last_rel) s->last_rel = rel;
    s->any = true;
    for (unsigned i = 0; i < s->ncol; i++) {
        iocol *c = &s->col[i];
        bool m = !c->acc || ub_filter_acc_match(c->acc, pk);
        if (c->acc) ub_filter_acc_reset(c->acc);
        if (!m || s->oom) continue;
        /* tshark: each column's tap moves forward only: a frame earlier than the last one the column
         * counted (out of order) counts in that interval */
        if (row > c->cur_row) c->cur_row = row;
        c->frames[c->cur_row]++;
        c->bytes[c->cur_row] += pk->len;
    }
    if (!s->oom && row + 1 > s->nrows) s->nrows = row + 1;
}

/* ---- the table in the layout of tshark 4.0's ui/cli/tap-iostat.c (relative times) ---- */

static unsigned magnitude(uint64_t v, unsigned max_w)
{
    unsigned m = 0;
    for (unsigned i = 0; i < max_w; i++) {
        m++;
        if ((v /= 10) == 0) break;
    }
    return m;
}

static void rep(FILE *o, char ch, int n)
{
    for (int i = 0; i < n; i++) fputc(ch, o);
}

/* "| text" padded with spaces to w - 1, then "|" */
static void boxed(FILE *o, int w, const char *text)
{
    int n = (int)strlen(text);
    fputs(text, o);
    rep(o, ' ', w - 1 - n);
    fputs("|\n", o);
}

/* printcenter(): the label centred in a column of lenval characters */
static void center(FILE *o, const char *label, int lenval)
{
    static const char sp[] = "      ";
    int lenlab = (int)strlen(label), len = 6 - ((lenval - lenlab) / 2 + 1);
    if (len > 0 && len < 6) {
        const char *s = &sp[len];
        fprintf(o, "%s%s%s|", (lenval - lenlab) % 2 == 0 ? s : s - 1, label, s);
    } else if (len > 0 && len <= 15) {
        fprintf(o, "%s|", label);
    }
}

void ub_iostat_print(const ub_iostat *s, FILE *o)
{
    if (!s) return;
    /* times in µs, as tshark's */
    uint64_t duration = s->last_rel / 1000000000u * 1000000u + (s->last_rel % 1000000000u + 500) / 1000;
    uint64_t ival = s->ival_ns ? s->ival_ns / 1000 : UINT64_MAX;
    bool whole = ival >= duration; /* tshark: interval == duration takes the whole-capture precision */
    uint64_t interval = whole ? duration : ival;
    unsigned dur_mag = magnitude(duration / 1000000, 5), invl_mag = magnitude(interval / 1000000, 5), prec;
    int borderlen;
    if (whole) {
        prec = dur_mag >= 2 ? 1 : dur_mag == 1 ? 3 : 6;
        borderlen = 30 + (int)dur_mag + (prec == 0 ? 0 : (int)prec + 1);
    } else {
        prec = s->ndec;
        borderlen = 25 + (int)(invl_mag > dur_mag ? invl_mag : dur_mag) + (prec == 0 ? 0 : (int)prec + 1);
    }
    uint64_t dv = 1000000;
    for (unsigned i = 0; i < prec; i++) dv /= 10;
    if (duration % dv > 5 * (dv / 10)) { /* the duration rounded to the precision */
        duration = (duration + 5 * (dv / 10)) / dv * dv;
        dur_mag = magnitude(duration / 1000000, 5);
    }
    if (whole) interval = duration;
    int invl_col_w = prec == 0 ? 2 * (int)dur_mag + 8 : 2 * (int)dur_mag + 2 * (int)prec + 10;
    if (invl_col_w < 12) invl_col_w = 12;
    size_t nr = interval == 0 || duration == 0 ? 0 : (size_t)(duration / interval + (duration % interval ? 1 : 0));
    if (!s->any) nr = 0;
    int fr_w[IO_MAXCOL], val_w[IO_MAXCOL], tabrow_w = invl_col_w;
    for (unsigned i = 0; i < s->ncol; i++) {
        uint64_t mf = 0, mb = 0;
        for (size_t r = 0; r < nr && r < s->caprows; r++) {
            if (s->col[i].frames[r] > mf) mf = s->col[i].frames[r];
            if (s->col[i].bytes[r] > mb) mb = s->col[i].bytes[r];
        }
        fr_w[i] = (int)magnitude(mf, 15);
        if (fr_w[i] < 6) fr_w[i] = 6;
        val_w[i] = (int)magnitude(mb, 15);
        if (val_w[i] < 5) val_w[i] = 5;
        tabrow_w += fr_w[i] + 3 + val_w[i] + 3;
    }
    if (tabrow_w > borderlen) borderlen = tabrow_w;
    int maxfltr = 0;
    for (unsigned i = 0; i < s->ncol; i++) {
        int k = s->col[i].text ? (int)strlen(s->col[i].text) + 11 : 26;
        if (k > maxfltr) maxfltr = k;
    }
    if (maxfltr > borderlen && borderlen < 102) borderlen = maxfltr < 102 ? maxfltr : 102;
    if (borderlen - tabrow_w == 1) borderlen++; /* no double right border */

    char b[256];
    fputc('\n', o);
    rep(o, '=', borderlen);
    fputc('\n', o);
    boxed(o, borderlen, "| IO Statistics");
    boxed(o, borderlen, "|");
    uint64_t du = duration, iv = interval; /* shown truncated to the precision */
    if (prec) {
        snprintf(b, sizeof b, "| Duration: %*llu.%0*llu secs", (int)dur_mag, (unsigned long long)(du / 1000000), (int)prec,
                 (unsigned long long)(du % 1000000 / dv));
        boxed(o, borderlen, b);
        snprintf(b, sizeof b, "| Interval: %*llu.%0*llu secs", (int)dur_mag, (unsigned long long)(iv / 1000000), (int)prec,
                 (unsigned long long)(iv % 1000000 / dv));
    } else {
        snprintf(b, sizeof b, "| Duration: %*llu.%06llu secs", (int)dur_mag, (unsigned long long)(du / 1000000),
                 (unsigned long long)(du % 1000000));
        boxed(o, borderlen, b);
        snprintf(b, sizeof b, "| Interval: %*llu secs", (int)dur_mag, (unsigned long long)(iv / 1000000));
    }
    boxed(o, borderlen, b);
    boxed(o, borderlen, "|");
    for (unsigned i = 0; i < s->ncol; i++) {
        const char *f = s->col[i].text ? s->col[i].text : "Frames and bytes";
        int lf = (int)strlen(f), max_w = borderlen - 11;
        snprintf(b, sizeof b, i ? "|    %2u: " : "| Col%2u: ", i + 1);
        while (lf > max_w && max_w > 0) { /* wrapped at the last space before the border */
            int cut = max_w;
            for (int k = max_w - 1; k >= 0; k--)
                if (f[k] == ' ') { cut = k; break; }
            fprintf(o, "%s%.*s", b, cut, f);
            rep(o, ' ', borderlen - 1 - (int)strlen(b) - cut);
            fputs("|\n", o);
            f += cut < max_w || f[cut] == ' ' ? cut + (f[cut] == ' ') : cut;
            lf = (int)strlen(f);
            snprintf(b, sizeof b, "|        "); /* tshark's continuation prefix */
        }
        fprintf(o, "%s%s", b, f);
        rep(o, ' ', borderlen - 1 - (int)strlen(b) - lf);
        fputs("|\n", o);
    }
    fputs("|-", o);
    rep(o, '-', borderlen - 3);
    fputs("|\n", o);
    /* column numbers, labels */
    fputc('|', o);
    rep(o, ' ', invl_col_w - 2);
    fputc('|', o);
    for (unsigned i = 0; i < s->ncol; i++) {
        fprintf(o, "%-2u", i + 1);
        rep(o, ' ', fr_w[i] + val_w[i] + 3);
        fputc('|', o);
    }
    int filler = tabrow_w < borderlen ? borderlen - tabrow_w : 0;
    if (filler) { rep(o, ' ', filler - 1); fputc('|', o); }
    fputs("\n| Interval", o);
    rep(o, ' ', invl_col_w - 10 - 1);
    fputc('|', o);
    for (unsigned i = 0; i < s->ncol; i++) {
        center(o, "Frames", fr_w[i]);
        center(o, "Bytes", val_w[i]);
    }
    if (filler) { rep(o, ' ', filler - 1); fputc('|', o); }
    fputs("\n|-", o);
    rep(o, '-', tabrow_w - 3);
    fputc('|', o);
    if (filler) { rep(o, ' ', filler - 1); fputc('|', o); }
    fputc('\n', o);
    uint64_t t = 0;
    for (size_t r = 0; r < nr; r++, t += interval) {
        uint64_t end = r + 1 == nr ? duration : t + interval;
        if (prec) {
            fprintf(o, "| %*llu.%0*llu <> %*llu.%0*llu |", (int)dur_mag, (unsigned long long)(t / 1000000), (int)prec,
                    (unsigned long long)(t % 1000000 / dv), (int)dur_mag, (unsigned long long)(end / 1000000), (int)prec,
                    (unsigned long long)(end % 1000000 / dv));
        } else if (r + 1 == nr) {
            fprintf(o, "| %s%*llu <> %-*s|", dur_mag == 1 ? " " : "", (int)dur_mag, (unsigned long long)(t / 1000000),
                    dur_mag >= 3 ? (int)dur_mag + 1 : 3, "Dur");
        } else {
            fprintf(o, "%s%*llu <> %*llu%s|", dur_mag == 1 ? "|  " : "| ", (int)dur_mag, (unsigned long long)(t / 1000000),
                    (int)dur_mag, (unsigned long long)(end / 1000000), dur_mag == 1 ? "  " : " ");
        }
        for (unsigned i = 0; i < s->ncol; i++)
            fprintf(o, " %*llu | %*llu |", fr_w[i], (unsigned long long)(r < s->caprows ? s->col[i].frames[r] : 0), val_w[i],
                    (unsigned long long)(r < s->caprows ? s->col[i].bytes[r] : 0));
        if (filler) { rep(o, ' ', filler - 1); fputc('|', o); }
        fputc('\n', o);
    }
    rep(o, '=', borderlen);
    fputc('\n', o);
}

void ub_iostat_free(ub_iostat *s)
{
    if (!s) return;
    for (unsigned i = 0; i < s->ncol; i++) {
        free(s->col[i].text);
        ub_filter_acc_free(s->col[i].acc);
        ub_filter_free(s->col[i].f);
        free(s->col[i].frames);
        free(s->col[i].bytes);
    }
    free(s);
}
