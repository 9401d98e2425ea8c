/* ubdump's -z tables (tshark's statistics, ubdump_z.c): each -z option parsed in turn, the tables fed
 * per unit and per record, printed at the end in the reverse of their options, as tshark draws its taps
 * (each tap registered goes first in its list). */
#ifndef UBDUMP_Z_H
#define UBDUMP_Z_H

#include "ubparse/audit.h"
#include "ubparse/filter.h"
#include "ubparse/iostat.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define UBX_ZMAX 16 /* tables of one kind */

typedef struct ubx_ztab {
    uint8_t t, k, ep; /* ZT_* (ubdump_z.c), its index in the kind's array, endpoints (conv) */
    unsigned bits;    /* ZT_STATS: the session's statistics this option added (ub_stats_parse) */
} ubx_ztab;

typedef struct ubx_z {
    ub_iostat *io[UBX_ZMAX];   /* -z io,stat,... */
    unsigned nio;
    ub_phs *phs[UBX_ZMAX];     /* -z io,phs[,FILTER] */
    unsigned nphs;
    ub_conv *conv[UB_CONV__N]; /* -z conv,TAP (conv_what 1), endpoints,TAP (2) */
    unsigned conv_what[UB_CONV__N];
    ub_conv *convf[UBX_ZMAX];  /* -z conv|endpoints,TAP,FILTER */
    bool convf_ep[UBX_ZMAX];
    unsigned nconvf;
    ub_sttree *tree;           /* -z ub,tree */
    ub_sttree *treef[UBX_ZMAX]; /* -z ub,tree,FILTER */
    unsigned ntreef;
    bool expert;               /* -z expert[,LEVEL][,FILTER] */
    unsigned x_sev;
    ub_filter *x_f;
    ub_filter *srt_f;          /* -z ub,srt,FILTER */
    unsigned zmask;            /* the session's statistics (ub,cfg, ub,tp, ub,srt, ...) */
    unsigned io_views;         /* views of the record given to io,stat / io,phs */
    ubx_ztab ord[64];          /* the tables in option order */
    unsigned nord;
} ubx_z;

/* -z ARG: 0 taken, 1 "help" (printed: exit 0), 2 an error (printed) */
int ubx_z_option(ubx_z *z, const char *arg);
bool ubx_z_any(const ubx_z *z);       /* any table */
bool ubx_z_per_unit(const ubx_z *z);  /* a table fed each unit (ubx_z_view) */
bool ubx_z_per_record(const ubx_z *z); /* a table with work at each record's end (ubx_z_record) */
bool ubx_z_uses_analysis(const ubx_z *z); /* ub.analysis.* needed (a filter reads it, or -z expert) */
bool ubx_z_uses_frame(const ubx_z *z);    /* a table's filter reads frame or frame.* */
void ubx_z_show_frame(ubx_z *z, bool on); /* io,phs: tshark's "frame" item (ub_phs_show_frame) */
/* a decoded unit: pk its filter view with the unit's lengths, pkr with the record's; wire its bytes */
void ubx_z_view(ubx_z *z, const ub_view *v, const ub_filter_pkt *pk, const ub_filter_pkt *pkr, uint32_t wire, uint64_t rel_ns);
/* the record's end; stream: a raw flit-stream record (one without a whole unit counts as UB) */
void ubx_z_record(ubx_z *z, const ub_filter_pkt *pkr, bool stream);
/* -2 -R: the input spanned rel_ns (io,stat tables last that long, as tshark's) */
void ubx_z_span(ubx_z *z, uint64_t rel_ns);
/* the tables in the reverse of their options (the filtered ub,srt and expert read path again); 0, or 2
 * after an error printed */
int ubx_z_print(const ubx_z *z, const ub_audit *session, const char *path, const ub_opts *o, const ub_state_cfg *scfg,
                const ub_fan_table *fan, FILE *out);
void ubx_z_free(ubx_z *z);

#endif
