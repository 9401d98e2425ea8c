/* -z ub,srt: the service response time table tshark prints with the Wireshark plugin (issue #10 item 3),
 * byte for byte: the plugin registers three SRT tables of 256 rows (dissector/packet-ub-analysis.c
 * ub_srt_init) fed with the engine's request/response matches, and tshark's tap-srt.c draws them.
 *   Transactions    row = request TAOpcode,  label "0x%02x Name"
 *   Management      row = Code (8.. enumeration CMD 0..), label "%u Name" / "%u enumeration CMD %u Name"
 *   Transport acks  row = ack TPOpcode,      label "0x%02x Name"
 * Times: tshark's time_stat (exact ns min/max/sum), printed in µs rounded to nearest as tap-srt.c
 * does (the fraction of min/max rounds on its own: 0.9999996 s prints as "0.1000000", as tshark). */
#include "internal.h"
#include "audit_int.h"
#include "filter_int.h"
#include "ubparse/capfile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fh.h"

#define SCAN_CODE 8u /* enumeration matches: Code 8 + CMD (state.h, the plugin's AN_MATCH_SCAN_CODE) */

/* the plugin's row label, trailing blanks removed (g_strchomp) */
static void chomp(char *b)
{
    size_t n = strlen(b);
    while (n && (b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\n')) b[--n] = 0;
}

static void row_label(char *b, size_t n, unsigned g, unsigned k, const fh *fv)
{
    const char *nm;
    if (g == 1 && k >= SCAN_CODE && k < SCAN_CODE + 8) {
        nm = ub_vname_lookup(fh_vals(&fv[3]), k - SCAN_CODE);
        snprintf(b, n, "%u enumeration CMD %u %s", k, k - SCAN_CODE, nm ? nm : "");
    } else if (g == 1) {
        nm = ub_vname_lookup(fh_vals(&fv[1]), k);
        snprintf(b, n, "%u %s", k, nm ? nm : "");
    } else {
        nm = ub_vname_lookup(fh_vals(&fv[g == 0 ? 0 : 2]), k);
        snprintf(b, n, "0x%02x %s", k, nm ? nm : "");
    }
    chomp(b);
}

void ub_srt_ws_print(const ub_latset *s, FILE *f)
{
    static const char *const filt[3] = { "ub.btah.taopcode", "ub.mgmtetah.code", "ub.rtph.tpopcode" };
    static const char *const col[3] = { "TAOpcode", "Code", "TPOpcode" };
    fh fv[4];
    fh_init(&fv[0], "ub.btah.taopcode");
    fh_init(&fv[1], "ub.mgmtetah.code");
    fh_init_tpop(&fv[2]);
    fh_init(&fv[3], "ub.scan.cmd");
    fputs("\n===================================================================\nUB SRT Statistics:\n", f);
    for (unsigned g = 0; g < 3; g++) {
        if (g) fputc('\n', f);
        fprintf(f, "Filter: %s\n", filt[g]);
        fprintf(f, "Index  %-22s Calls    Min SRT    Max SRT    Avg SRT    Sum SRT\n", col[g]);
        for (unsigned k = 0; k < 256; k++) {
            uint64_t num, mn, mx, sum;
            if (!ub_lat_row(s, g, k, &num, &mn, &mx, &sum)) continue;
            char lab[96];
            row_label(lab, sizeof lab, g, k, fv);
            uint64_t su = (sum + 500) / 1000, av = (sum / num + 500) / 1000; /* µs */
            fprintf(f, "%5u  %-22s %6u %3d.%06d %3d.%06d %3d.%06d %3d.%06d\n", k, lab, (unsigned)num,
                    (int)(mn / 1000000000u), (int)((mn % 1000000000u + 500) / 1000), (int)(mx / 1000000000u),
                    (int)((mx % 1000000000u + 500) / 1000), (int)(av / 1000000u), (int)(av % 1000000u),
                    (int)(su / 1000000u), (int)(su % 1000000u));
        }
    }
    fputs("==================================================================\n", f);
}

/* -z ub,srt,FILTER: tshark's tap filter, applied to the frame the plugin taps each match in (the frame
 * whose dissection produced it; over all units of a flit-stream record, as Wireshark's one tree). A
 * pass of its own: the state engine over the capture, the matches of a frame counted if it passes. */
typedef struct srtf {
    const ub_opts *o;
    ub_state *st;
    ub_view *v;
    ub_filter_acc *acc;
    ub_latset *lat;
    ub_match *pend; /* the matches of the record being read */
    size_t np, cap;
    ub_filter_pkt pk;
    bool oom;
} srtf;

static void srtf_match(void *ctx, const ub_match *m)
{
    srtf *s = ctx;
    if (!ub_grow((void **)&s->pend, &s->cap, s->np, sizeof *s->pend)) { s->oom = true; return; }
    s->pend[s->np++] = *m;
}

static void srtf_unit(void *ctx, const ub_rec *r, const uint8_t *u, uint32_t len, ub_entry entry, unsigned flags)
{
    srtf *s = ctx;
    if (ub_fan_engine_unit(s->st, s->v, s->o, r, u, len, entry, flags) && !(flags & UB_UNIT_PARTIAL))
        ub_filter_acc_add(s->acc, s->v, &s->pk);
}

/* the end of a record: its matches count if it passes the filter */
static void srtf_rec(srtf *s)
{
    if (s->np && ub_filter_acc_match(s->acc, &s->pk))
        for (size_t i = 0; i < s->np; i++) ub_lat_add(s->lat, &s->pend[i]);
    s->np = 0;
    ub_filter_acc_reset(s->acc);
}

int ub_srt_ws_filtered(const char *path, const ub_opts *o, const ub_state_cfg *cfg, const ub_filter *f,
                       const ub_fan_table *fan, FILE *out, char *err, size_t errlen)
{
    ub_capfile *cf = ub_cap_open(path, err, errlen);
    if (!cf) return -1;
    srtf s = { .o = o, .v = calloc(1, sizeof(ub_view)), .acc = ub_filter_acc_new(f), .lat = ub_lat_new() };
    ub_state_cfg c;
    if (cfg) c = *cfg;
    else ub_state_cfg_default(&c);
    ub_units *u = ub_units_new(o, 0);
    int rc = 0, st = -1;
    if (s.v && s.acc && s.lat && u && (s.st = ub_state_new(&c, NULL, NULL)) != NULL) {
        ub_state_set_match_cb(s.st, srtf_match, &s);
        ub_rec r;
        ub_fpkt_seq seq = { 0 };
        while (!s.oom && (rc = ub_cap_next(cf, &r)) == 1) {
            s.pk = ub_fpkt_next(&seq, cf, &r, fan);
            ub_units_record(u, &r, srtf_unit, &s);
            srtf_rec(&s);
        }
        s.pk.data = NULL; /* units flushed at the end: judged with the last record's frame.* */
        s.pk.data_len = 0;
        s.pk.ncomments = 0; /* (their texts were in the read buffer) */
        ub_units_flush(u, srtf_unit, &s);
        srtf_rec(&s);
        ub_state_finish(s.st); /* matches at the end of the capture: no frame, never tapped */
        if (rc < 0) snprintf(err, errlen, "%s", ub_cap_error(cf));
        else if (s.oom) snprintf(err, errlen, "out of memory");
        else st = 0;
    } else {
        snprintf(err, errlen, "out of memory");
    }
    if (st == 0) ub_srt_ws_print(s.lat, out);
    if (s.st) ub_state_free(s.st);
    ub_units_free(u);
    ub_lat_free(s.lat);
    ub_filter_acc_free(s.acc);
    free(s.pend);
    free(s.v);
    ub_cap_close(cf);
    return st;
}
