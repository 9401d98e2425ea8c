/* ubdump's state (the app) and the per-packet output shared by its files: ubdump.c (options, the
 * main loop, the end of the run) and ubdump_pkt.c (-e fields, -Y on a record, JSON and raw-stream
 * record lines). */
#ifndef UBDUMP_APP_H
#define UBDUMP_APP_H

#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/expert.h"
#include "ubparse/filter.h"
#include "ubparse/logs.h"
#include "ubparse/ublua.h"
#include "ubparse/ubparse.h"
#include "ubdump_out.h"
#include "ubdump_z.h"

#include <stdint.h>
#include <time.h>

#define MAX_MATCH 16

enum { OUT_TEXT, OUT_FIELDS, OUT_JSON, OUT_EK, OUT_UBJSON };


typedef struct {
    const char *name;
    int pseudo;
    int an; /* ub.analysis.* / ub.stream.*: ub_fan_field_find + 1, 0 none */
    const ub_wsname *ws[2]; /* PF_WS: the entries of Wireshark's name of an outer header's field (ip.src, ...) */
    size_t nh;              /* PF_HDR: the header tables in h[] */
    size_t n;
    const ub_hdr *h[MAX_MATCH];
    const ub_field *f[MAX_MATCH];
    uint64_t ids[(UB_H__COUNT + 63) / 64]; /* the header ids of h[]: layers of other ids are skipped at once */
} efield;

typedef ubx_sbuf sbuf; /* the -T fields values of a unit / raw-stream record (ubdump_out.h) */

typedef struct app {
    ub_opts o;
    int out, verbose, quiet;
    bool osel;                /* -O: only these protocols' details (odetail) */
    uint64_t odetail[(UB_H__COUNT + 63) / 64];
    long count;
    efield *e; /* -e fields, no limit */
    unsigned ne, ecap;
    ubx_csv csv;              /* -E */
    bool hex;                 /* -x */
    ubx_tfmt tfmt;            /* -t, default UBX_T_R */
    ub_capfile *cf;
    uint64_t tprev, tshown;   /* previous record's / previous printed packet's time */
    bool have_shown;
    ubx_writer *wr;           /* -w */
    bool tags;                /* summaries carry the TP analysis tags (one engine runs) */
    bool rest;                /* show_rest: a unit is wanted after its decode and the session */
    bool after;               /* show_after: the logs, a script, the session or show_rest want each unit */
    bool per_frame;           /* frame_work(): the main loop has work per record besides its units */
    bool tables;              /* -z tables fed per unit */
    bool units_raw;           /* -q audit on threads, nothing else per packet: units go to the session undecoded */
    uint32_t tpflags;         /* of the packet being shown */
    bool rec_sel;             /* -w: a packet of the current record passed -Y */
    uint64_t t0;
    bool have_t0;
    bool rt0_set;             /* -2 -R: times are relative to the input's first record (rt0), as tshark's */
    uint64_t rt0, rlast;      /* the input's first and last record times */
    uint64_t npkts, nunits, nshown;
    uint64_t nub, nother;   /* units that are UB / not UB (-q, the no-UB warning) */
    uint64_t nneigh[3];     /* units carrying RoCEv2, SUE, PCIe flits (docs/neighbours.md; not UB) */
    uint64_t nquoted_ub;    /* units not UB whose ICMP error quotes a UB datagram */
    uint64_t ip_lost, ip_lost_ub; /* IP datagrams given up by reassembly; of them to a UB port */
    uint64_t ip_lost_at[4];       /* the first fragments of the first UB ones */
    ub_sniff sniff;         /* which dialect wrote the file (advice once, stderr) */
    /* -T fields|json|ek on a raw flit stream: one line / document per record (as tshark), values of all its units */
    bool rec_mode;
    ubx_jrec *jrec;           /* -T json|ek: the units of the record (ubdump_json.c) */
    bool rec_match;
    unsigned rec_units;
    bool info_col;            /* an -e field is _ws.col.Info (-T psml's column too) */
    bool at_end;              /* the streams' open units flushed after the last record: no record of their own
                               * (a unit cut short by a resynchronisation mid-stream belongs to its record) */
    sbuf *fb;                 /* -T fields: the values of each -e field */
    ubx_fset *fs;             /* the schema fields of -e, compiled */
    bool e_other;             /* an -e field is not a schema field (frame.*, ub.error, _ws.col.*, ub.analysis.*) */
    ubx_lbuf lb;              /* -T fields: the lines */
    ub_view *v;
    bool json_first;
    /* display filter */
    ub_filter *yf;
    ub_filter_acc *yacc;      /* -Y over the units of a flit-stream record */
    ubx_z z;                  /* -z tables (ubdump_z.h) */
    ub_fan_table *fan;        /* ub.analysis.* when -Y or -e reads them (a first pass of the engine) */
    bool e_fan;               /* an -e field needs it */
    bool pcapng;
    /* audit / statistics: the session */
    bool audit;
    ub_report_fmt afmt;
    int fail_on; /* ub_sev, UB_FAIL_NEVER */
    bool allow_incomplete;
    const char *aout_path;
    ub_audit *session;
    bool oom;
    const char *log_dir; /* --log-dir: JSON Lines tables (logs.h, docs/logs.md) */
    ub_logs *logs;
    /* Lua scripts (--lua): the host, and whether the session sees the packets (engine or -z needed) */
    ub_lua *lua;
    ub_ruleset *rules;
    bool feed;
    /* progress */
    bool progress;
    struct timespec tlast, tstart;
    bool prog_shown;
} app;

/* ubdump_pkt.c */
int add_efield(app *a, const char *name);
void shown(app *a, const ub_rec *r);
void pkt_time(const app *a, const ub_rec *r, char *t, size_t n);
void view_field(app *a, const ub_view *v, const efield *e, sbuf *b);
void json_efields(app *a, const ub_rec *r, const ubx_pkt *p, bool rec);
void fields_line(app *a, const ub_rec *r, bool rec);
ub_filter_pkt ypkt(const app *a, const ub_rec *r, uint32_t caplen, uint32_t wire);
bool ymatch(const app *a, const ub_view *v, const ub_rec *r, uint32_t caplen, uint32_t wire);
ubx_pkt json_pkt(const app *a, const ub_rec *r, const ub_view *v, uint32_t len);
void rec_line(app *a, const ub_rec *r, const ub_units *u);

#endif
