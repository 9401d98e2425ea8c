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
    if (s->ndec < 3) s->ndec = 3;
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

bool ub_iostat_uses_analysis(const ub_iostat *s)
{
    for (unsigned i = 0; s && i < s->ncol; i++)
        if (s->col[i].f && ub_filter_uses_analysis(s->col[i].f)) return true;
    return false;
}

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
        c->frames[row]++;
        c->bytes[row] += pk->len;
    }
    if (!s->oom && row + 1 > s->nrows) s->nrows = row + 1;
}

static void line(FILE *o, char ch, int w)
{
    for (int i = 0; i < w; i++) fputc(ch, o);
    fputc('\n', o);
}

static void tsec(char *b, size_t n, uint64_t ns, unsigned dec)
{
    uint64_t div = 1;
    for (unsigned q = dec; q < 9; q++) div *= 10;
    uint64_t v = (ns + div / 2) / div, p = 1;
    for (unsigned q = 0; q < dec; q++) p *= 10;
    snprintf(b, n, "%llu.%0*llu", (unsigned long long)(v / p), (int)dec, (unsigned long long)(v % p));
}

void ub_iostat_print(const ub_iostat *s, FILE *o)
{
    if (!s) return;
    uint64_t ival = s->ival_ns ? s->ival_ns : s->last_rel;
    char dur[40], iv[40];
    tsec(dur, sizeof dur, s->last_rel, s->ndec);
    tsec(iv, sizeof iv, ival, s->ndec);
    int lw = 2 * (int)strlen(dur) + 4; /* "a <> b" */
    int w = 1 + (lw + 3) + (int)s->ncol * 17;
    if (w < 40) w = 40;
    fputc('\n', o);
    line(o, '=', w);
    fprintf(o, "| IO Statistics\n|\n| Duration: %s secs\n| Interval: %s secs\n|\n", dur, iv);
    for (unsigned i = 0; i < s->ncol; i++)
        fprintf(o, "| %s %u: %s\n", i ? "   " : "Col", i + 1, s->col[i].text ? s->col[i].text : "Frames and bytes");
    line(o, '-', w);
    fprintf(o, "| %-*s |", lw, "");
    for (unsigned i = 0; i < s->ncol; i++) fprintf(o, "%-16u|", i + 1);
    fprintf(o, "\n| %-*s |", lw, "Interval");
    for (unsigned i = 0; i < s->ncol; i++) fprintf(o, " Frames | Bytes |");
    fputc('\n', o);
    line(o, '-', w);
    /* as tshark: ceil(duration / interval) rows, so a frame exactly at the end of the last interval
     * (duration a multiple of the interval) is not shown */
    size_t nr = 0;
    if (s->any) {
        nr = 1;
        if (s->ival_ns) {
            uint64_t q = s->last_rel / s->ival_ns + (s->last_rel % s->ival_ns ? 1 : 0);
            nr = q ? (size_t)q : 1;
        }
    }
    for (size_t r = 0; r < nr; r++) {
        char a[40], b[40], lab[90];
        uint64_t st = s->ival_ns ? r * s->ival_ns : 0, en = s->ival_ns ? st + s->ival_ns : s->last_rel;
        if (en > s->last_rel && r + 1 == nr) en = s->last_rel > st ? s->last_rel : en;
        tsec(a, sizeof a, st, s->ndec);
        tsec(b, sizeof b, en, s->ndec);
        snprintf(lab, sizeof lab, "%s <> %s", a, b);
        fprintf(o, "| %-*s |", lw, lab);
        for (unsigned i = 0; i < s->ncol; i++)
            fprintf(o, " %6llu | %5llu |", (unsigned long long)(r < s->caprows ? s->col[i].frames[r] : 0),
                    (unsigned long long)(r < s->caprows ? s->col[i].bytes[r] : 0));
        fputc('\n', o);
    }
    line(o, '=', w);
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
