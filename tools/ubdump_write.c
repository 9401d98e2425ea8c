/* ubdump -w: the selected records as pcapng through libubparse's writer (capfile.h), keeping the
 * source's interfaces (link type, snaplen, name, description, timestamp resolution), direction flags,
 * original lengths and every comment (ubdump_out.h). */
#include "ubdump_out.h"

#include "ubparse/audit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ubx_writer {
    ub_capw *w;       /* NULL: a ring's next file, opened at its first record */
    uint32_t section; /* source section whose interfaces are mapped */
    uint32_t base;    /* writer index of that section's interface 0 */
    uint32_t synced;  /* interfaces of that section already added */
    uint32_t nifs;    /* interfaces in the writer */
    /* -b ring buffer */
    bool ring;
    ubx_ring rb;
    unsigned nfile;   /* files opened */
    uint64_t t0;      /* capture time of the current file's first record */
    char *prefix, *suffix; /* -w PREFIX.SUFFIX */
    char **names;     /* the last rb.files names (ring), to remove the oldest */
    bool each;        /* -U: flushed after every record */
    int fmt;          /* UBX_F_*: pcap files open at their first record (its link type) */
    char *path;       /* pcap, not a ring: the file to open then */
    uint32_t lt, snap; /* pcap: the file's link type and snaplen (lt_set once known) */
    bool lt_set;
    uint64_t nfcs;    /* pcap: records written with an Ethernet FCS it cannot mark */
};

int ubx_writer_format(const char *name)
{
    return strcmp(name, "pcapng") == 0 ? UBX_F_PCAPNG : strcmp(name, "pcap") == 0 ? UBX_F_PCAP
         : strcmp(name, "nsecpcap") == 0 ? UBX_F_NSECPCAP : -1;
}

/* a file of the writer's format (pcap: its link type known) */
static ub_capw *w_open(const ubx_writer *x, const char *path, char *err, size_t errlen)
{
    if (x->fmt == UBX_F_PCAPNG) return ub_capw_open(path, true, UB_CAPW_NO_IF, err, errlen);
    return ub_capw_open_pcap(path, x->lt, x->snap, x->fmt == UBX_F_PCAP, err, errlen);
}

void ubx_writer_packet_buffered(ubx_writer *x) { x->each = true; }

ubx_writer *ubx_writer_open(const char *path, char *err, size_t errlen) { return ubx_writer_open_ring(path, NULL, UBX_F_PCAPNG, err, errlen); }

int ubx_ring_option(ubx_ring *r, const char *opt, char *err, size_t errlen)
{
    const char *c = strchr(opt, ':');
    char *end = NULL;
    if (c && c[1] >= '0' && c[1] <= '9') {
        size_t k = (size_t)(c - opt);
        if (k == 8 && strncmp(opt, "filesize", 8) == 0) {
            unsigned long long v = strtoull(c + 1, &end, 10);
            if (*end == '\0' && v > 0 && v < (1ull << 40)) { r->filesize = v * 1000u; return 0; }
        } else if (k == 8 && strncmp(opt, "duration", 8) == 0) {
            double v = strtod(c + 1, &end);
            if (*end == '\0' && v > 0 && v < 1e9) { r->duration_ns = (uint64_t)(v * 1e9); return 0; }
        } else if (k == 5 && strncmp(opt, "files", 5) == 0) {
            unsigned long v = strtoul(c + 1, &end, 10);
            if (*end == '\0' && v > 0 && v <= 100000) { r->files = (unsigned)v; return 0; }
        }
    }
    snprintf(err, errlen, "-b filesize:KB, duration:SECONDS or files:N, not '%s'", opt);
    return -1;
}

static void writer_free(ubx_writer *x)
{
    if (!x) return;
    for (unsigned i = 0; x->names && i < x->rb.files; i++) free(x->names[i]);
    free(x->names);
    free(x->path);
    free(x->prefix);
    free(x->suffix);
    free(x);
}

ubx_writer *ubx_writer_open_ring(const char *path, const ubx_ring *ring, int fmt, char *err, size_t errlen)
{
    ubx_writer *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->fmt = fmt;
    if (ring && (ring->filesize || ring->duration_ns || ring->files)) {
        if (strcmp(path, "-") == 0) {
            snprintf(err, errlen, "-: a ring buffer (-b) needs a file name");
            free(x);
            return NULL;
        }
        x->ring = true;
        x->rb = *ring;
        const char *base = strrchr(path, '/'), *dot = strrchr(base ? base : path, '.');
        size_t pl = dot && dot != (base ? base + 1 : path) ? (size_t)(dot - path) : strlen(path);
        x->prefix = strndup(path, pl);
        x->suffix = strdup(path + pl);
        x->names = x->rb.files ? calloc(x->rb.files, sizeof *x->names) : NULL;
        if (!x->prefix || !x->suffix || (x->rb.files && !x->names)) {
            snprintf(err, errlen, "out of memory");
            writer_free(x);
            return NULL;
        }
        return x; /* the first file opens with the first record (its time names it) */
    }
    if (fmt != UBX_F_PCAPNG) { /* opens with the first record (its link type); created now */
        FILE *f = strcmp(path, "-") == 0 ? NULL : fopen(path, "wb");
        if (strcmp(path, "-") != 0 && (!f || fclose(f) != 0)) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            free(x);
            return NULL;
        }
        if (!(x->path = strdup(path))) {
            snprintf(err, errlen, "out of memory");
            free(x);
            return NULL;
        }
        return x;
    }
    x->w = ub_capw_open(path, true, UB_CAPW_NO_IF, err, errlen);
    if (!x->w) {
        free(x);
        return NULL;
    }
    return x;
}

/* a ring's next file, named after ts (ns since the epoch); the oldest beyond rb.files removed */
static int ring_next(ubx_writer *x, uint64_t ts)
{
    if (x->w && ub_capw_close(x->w) != 0) { x->w = NULL; return -1; }
    x->w = NULL;
    time_t s = (time_t)(ts / 1000000000u);
    struct tm tm;
    char stamp[32] = "00000000000000";
    if (gmtime_r(&s, &tm)) strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tm);
    size_t n = strlen(x->prefix) + strlen(x->suffix) + 64;
    char *name = malloc(n), err[256];
    if (!name) return -1;
    snprintf(name, n, "%s_%05u_%s%s", x->prefix, ++x->nfile % 100000u, stamp, x->suffix);
    if (x->rb.files) {
        char **slot = &x->names[(x->nfile - 1) % x->rb.files];
        if (*slot) unlink(*slot); /* the file rb.files before this one */
        free(*slot);
        *slot = NULL;
    }
    x->w = w_open(x, name, err, sizeof err);
    if (!x->w) {
        fprintf(stderr, "ubdump: -w %s\n", err);
        free(name);
        return -1;
    }
    if (x->rb.files) x->names[(x->nfile - 1) % x->rb.files] = name;
    else free(name);
    x->t0 = ts;
    x->section = x->base = x->synced = x->nifs = 0; /* the interfaces again, in the new file */
    x->section = UINT32_MAX;
    return 0;
}

/* add the source interfaces read so far (IDBs may come after the first packets) */
static int sync_ifs(ubx_writer *x, const ub_capfile *cf)
{
    if (x->fmt != UBX_F_PCAPNG) return 0; /* pcap: no interfaces */
    uint32_t sec = ub_cap_section(cf);
    if (sec != x->section) { /* a new section: its interfaces follow the previous ones */
        x->section = sec;
        x->base = x->nifs;
        x->synced = 0;
    }
    for (uint32_t n = ub_cap_nifs(cf); x->synced < n; x->synced++) {
        ub_cap_ifinfo ii;
        if (ub_cap_ifinfo_get(cf, x->synced, &ii) != 0) return -1;
        if (ub_capw_add_if_info(x->w, &ii) < 0) return -1; /* link type, snaplen, name, description, if_tsresol */
        x->nifs++;
    }
    return 0;
}

/* pcap: the record's interface must have the file's link type (the first record's) */
static int pcap_rec(ubx_writer *x, const ub_capfile *cf, const ub_rec *r)
{
    ub_cap_ifinfo ii;
    if (ub_cap_ifinfo_get(cf, r->ifindex, &ii) != 0) ii.linktype = r->linktype, ii.snaplen = 0;
    if (!x->lt_set) {
        x->lt = ii.linktype;
        x->snap = ii.snaplen;
        x->lt_set = true;
    } else if (ii.linktype != x->lt) {
        fprintf(stderr, "ubdump: -w: frame %" PRIu64 " has link type %" PRIu32 ", the pcap file's is %" PRIu32
                        ": a pcap file holds one link type (write pcapng: -F pcapng)\n", r->frame, ii.linktype, x->lt);
        return -2;
    }
    char err[256];
    if (!x->ring && !x->w && !(x->w = w_open(x, x->path, err, sizeof err))) {
        fprintf(stderr, "ubdump: -w %s\n", err);
        return -2;
    }
    x->nfcs += r->fcslen != 0;
    return 0;
}

int ubx_writer_rec(ubx_writer *x, const ub_capfile *cf, const ub_rec *r)
{
    int prc = x->fmt != UBX_F_PCAPNG ? pcap_rec(x, cf, r) : 0;
    if (prc != 0) return prc;
    if (x->ring && (!x->w || (x->rb.filesize && ub_capw_bytes(x->w) >= x->rb.filesize) ||
                    (x->rb.duration_ns && r->ts_ns >= x->t0 && r->ts_ns - x->t0 >= x->rb.duration_ns)) &&
        ring_next(x, r->ts_ns) != 0)
        return -1;
    if (sync_ifs(x, cf) != 0) return -1;
    const char *c[16];
    uint32_t cl[16], n = ub_cap_ncomments(cf);
    if (n > 16) n = 16;
    for (uint32_t i = 0; i < n; i++) c[i] = ub_cap_comment_n(cf, i, &cl[i]);
    if (ub_capw_write_rec_n(x->w, x->fmt == UBX_F_PCAPNG ? x->base + r->ifindex : 0, r, c, cl, n) != 0) return -1;
    return x->each ? ub_capw_flush(x->w) : 0;
}

int ubx_writer_close(ubx_writer *x, const ub_capfile *cf)
{
    if (!x) return 0;
    int rc = 0;
    if (x->fmt != UBX_F_PCAPNG && !x->lt_set) { /* no record: the link type of the input's first interface */
        ub_cap_ifinfo ii;
        if (cf && ub_cap_nifs(cf) && ub_cap_ifinfo_get(cf, 0, &ii) == 0) x->lt = ii.linktype, x->snap = ii.snaplen;
        else x->lt = 1;
        x->lt_set = true;
    }
    char err[256];
    if (x->fmt != UBX_F_PCAPNG && !x->ring && !x->w && !(x->w = w_open(x, x->path, err, sizeof err))) {
        fprintf(stderr, "ubdump: -w %s\n", err);
        rc = -1;
    }
    if (x->nfcs)
        fprintf(stderr, "ubdump: warning: -w: %" PRIu64 " record%s end%s in an Ethernet FCS, which a pcap file cannot mark "
                        "(pcapng does: -F pcapng)\n", x->nfcs, x->nfcs == 1 ? "" : "s", x->nfcs == 1 ? "s" : "");
    if (x->ring && !x->w) { /* no record at all: one empty file, named after now */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        rc = ring_next(x, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
    }
    if (x->w && cf && sync_ifs(x, cf) != 0) rc = -1;
    if (x->w && ub_capw_close(x->w) != 0) rc = -1;
    writer_free(x);
    return rc;
}

/* --write-cited ------------------------------------------------------------------------------ */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static bool has_frame(const uint64_t *f, size_t n, uint64_t v) { return bsearch(&v, f, n, sizeof *f, cmp_u64) != NULL; }

long ubx_write_cited(const char *in, const char *out, const ub_collect *c, int fmt, char *err, size_t errlen)
{
    /* the frames of every example the report keeps: where it was detected and its related frames */
    const ub_ruleset *rs = ub_collect_ruleset(c);
    unsigned nr = rs ? ub_ruleset_count(rs) : ub_rule_count();
    size_t n = 0, cap = 0;
    uint64_t *fr = NULL;
    for (unsigned i = 0; i < nr; i++) {
        unsigned ne = 0;
        const ub_finding *ex = ub_collect_examples(c, i, &ne);
        for (unsigned k = 0; ex && k < ne; k++) {
            for (unsigned j = 0; j <= ex[k].nframes && j <= UB_FINDING_FRAMES; j++) {
                uint64_t f = j == 0 ? ex[k].frame : ex[k].frames[j - 1];
                if (!f) continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 256;
                    uint64_t *p = realloc(fr, cap * sizeof *p);
                    if (!p) { free(fr); snprintf(err, errlen, "out of memory"); return -1; }
                    fr = p;
                }
                fr[n++] = f;
            }
        }
    }
    if (n) qsort(fr, n, sizeof *fr, cmp_u64);
    ub_capfile *cf = ub_cap_open(in, err, errlen);
    ubx_writer *w = cf ? ubx_writer_open_ring(out, NULL, fmt, err, errlen) : NULL;
    long written = -1;
    if (w) {
        ub_rec r;
        int rc;
        written = 0;
        while ((rc = ub_cap_next(cf, &r)) == 1) {
            if (!has_frame(fr, n, r.frame)) continue;
            int wr = ubx_writer_rec(w, cf, &r);
            if (wr != 0) { rc = wr == -2 ? -3 : -2; break; } /* -3: the writer said why */
            written++;
        }
        if (rc == -1) snprintf(err, errlen, "%s: %s", in, ub_cap_error(cf));
        if (rc == -2) snprintf(err, errlen, "%s: write error", out);
        if (rc == -3) snprintf(err, errlen, "%s: not written in full", out);
        if (ubx_writer_close(w, cf) != 0 && rc >= 0) { snprintf(err, errlen, "%s: write error", out); rc = -2; }
        if (rc < 0) written = -1;
    }
    ub_cap_close(cf);
    free(fr);
    return written;
}
