/* tshark's -z expert without Wireshark (expert.h): the expert items of the plugin, counted. */
#include "internal.h"
#include "ubparse/expert.h"

#include "ubparse/audit.h"
#include "ubparse/capfile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const ub_tp_flag_info tp_flags[] = {
    { UB_TPF_RETRANSMISSION, "retransmission", UB_SEV_NOTE,
      "This frame is a (suspected) retransmission: its PSN was sent before" },
    { UB_TPF_OUT_OF_ORDER, "out_of_order", UB_SEV_WARN,
      "This frame is out of order: a lower PSN than the highest sent, not sent before" },
    { UB_TPF_LOST_BEFORE, "lost_segment", UB_SEV_WARN, "Previous PSN(s) not captured (a PSN gap precedes this packet)" },
    { UB_TPF_DUPLICATE, "duplicate", UB_SEV_NOTE, "Duplicate data: this PSN was already seen" },
    { UB_TPF_DUP_ACK, "duplicate_ack", UB_SEV_NOTE, "Duplicate TP acknowledgement" },
    { UB_TPF_NAK, "nak", UB_SEV_WARN, "TPNAK: the receiver reports a PSN error" },
    { UB_TPF_SACK, "sack", UB_SEV_NOTE, "Selective acknowledgement (TPSACK)" },
};

const ub_tp_flag_info *ub_tp_flag_info_get(unsigned i)
{
    return i < sizeof tp_flags / sizeof tp_flags[0] ? &tp_flags[i] : NULL;
}

unsigned ub_finding_group(const ub_finding *f)
{
    if (!f->keytext[0] && f->key)
        for (unsigned c = 1; c < UB_E__COUNT; c++) { /* decoder-error findings carry the ub.error name as key */
            const ub_err_info *ei = ub_err_get(c);
            if (ei && ei->name && strcmp(ei->name, f->key) == 0) return ei->group <= UB_EG_CHECKSUM ? ei->group : UB_EG_PROTOCOL;
        }
    const ub_rule *r = ub_rule_get(f->rule);
    return r && (strcmp(r->layer, "transport") == 0 || strcmp(r->layer, "data link") == 0) ? UB_EG_SEQUENCE
                                                                                           : UB_EG_PROTOCOL;
}

size_t ub_err_text(const ub_err *e, char *buf, size_t n)
{
    const ub_err_info *ei = ub_err_get(e->code);
    char t[400];
    size_t w = (size_t)snprintf(t, sizeof t, "%s", ei && ei->desc ? ei->desc : "error");
    if (e->what && w < sizeof t) w += (size_t)snprintf(t + w, sizeof t - w, ": %s", e->what);
    if ((e->actual || e->expected) && w < sizeof t) {
        if (ei && ei->group == UB_EG_CHECKSUM) /* carried vs computed CRC */
            w += (size_t)snprintf(t + w, sizeof t - w, " (actual 0x%" PRIx64 ", expected 0x%" PRIx64 ")", e->actual, e->expected);
        else
            w += (size_t)snprintf(t + w, sizeof t - w, " (actual %" PRIu64 ", expected %" PRIu64 ")", e->actual, e->expected);
    }
    if (w < sizeof t) w += (size_t)snprintf(t + w, sizeof t - w, " at byte %u", e->off);
    if (n) snprintf(buf, n, "%s", t);
    return w < sizeof t ? w : sizeof t - 1;
}

/* ---------------------------------------------------------------- the counts */
typedef struct xent { uint64_t freq; unsigned group; char *summary; } xent;
typedef struct xpend { uint8_t sev, group; char summary[400]; } xpend; /* an item of a frame not yet judged */
typedef struct xrun {
    xent *e[3];          /* by ub_sev */
    size_t n[3], cap[3];
    const ub_opts *o;
    const ub_fan_table *fan;
    ub_view *v;
    uint64_t frame;      /* the frame whose units are being read (its analysis follows them) */
    unsigned min_sev;    /* -z expert,warn: items of this severity and above */
    ub_filter_acc *acc;  /* -z expert,FILTER: the record's views; its items wait in pend */
    ub_filter_pkt pk;
    xpend *pend;
    size_t np, pcap;
    bool oom;
} xrun;

static void add(xrun *x, unsigned sev, unsigned group, const char *summary)
{
    if (sev > UB_SEV_ERROR) sev = UB_SEV_ERROR;
    if (sev < x->min_sev) return;
    if (x->acc) { /* counted when the record passes the filter (rec_done) */
        if (!ub_grow((void **)&x->pend, &x->pcap, x->np, sizeof *x->pend)) { x->oom = true; return; }
        xpend *q = &x->pend[x->np++];
        q->sev = (uint8_t)sev;
        q->group = (uint8_t)group;
        snprintf(q->summary, sizeof q->summary, "%s", summary);
        return;
    }
    for (size_t i = 0; i < x->n[sev]; i++)
        if (strcmp(x->e[sev][i].summary, summary) == 0) { x->e[sev][i].freq++; return; } /* tshark: protocol + summary */
    if (x->n[sev] == x->cap[sev]) {
        size_t nc = x->cap[sev] ? 2 * x->cap[sev] : 16;
        xent *p = realloc(x->e[sev], nc * sizeof *p);
        if (!p) { x->oom = true; return; }
        x->e[sev] = p;
        x->cap[sev] = nc;
    }
    char *s = strdup(summary);
    if (!s) { x->oom = true; return; }
    x->e[sev][x->n[sev]++] = (xent){ 1, group, s };
}

/* the plugin's ub_an_show: the TP flags, then the findings */
static void frame_done(xrun *x)
{
    const ub_fan *a = x->frame ? ub_fan_get(x->fan, x->frame) : NULL;
    x->frame = 0;
    if (!a) return;
    for (const ub_tp_flag_info *t = tp_flags; t < tp_flags + sizeof tp_flags / sizeof tp_flags[0]; t++)
        if (a->tp_flags & t->bit) add(x, t->sev, UB_EG_SEQUENCE, t->summary);
    for (unsigned i = 0; i < a->nfind; i++) {
        const ub_rule *r = ub_rule_get(a->rule[i]);
        if (!r) continue;
        char s[320];
        snprintf(s, sizeof s, "%s: %s", r->id, r->title);
        add(x, a->sev[i], a->grp ? a->grp[i] : UB_EG_PROTOCOL, s);
    }
}

static void unit(void *ctx, const ub_rec *r, const uint8_t *u, uint32_t len, ub_entry entry, unsigned flags)
{
    xrun *x = ctx;
    if (r->frame != x->frame) frame_done(x);
    uint32_t wire = ub_unit_wire(r, u, len);
    ub_decode_wire(x->v, x->o, entry, u, len, wire);
    ub_unit_errors(x->v, flags, len);
    if (!ub_view_ub(x->v)) return;
    x->frame = r->frame;
    if (x->acc && !(flags & UB_UNIT_PARTIAL)) ub_filter_acc_add(x->acc, x->v, &x->pk);
    for (unsigned i = 0; i < x->v->nerrs && i < UB_MAX_ERRS; i++) {
        const ub_err *e = &x->v->err[i];
        const ub_err_info *ei = ub_err_get(e->code);
        if (!ei || e->code == UB_E_NONE || e->code >= UB_E__COUNT) continue;
        char s[400];
        ub_err_text(e, s, sizeof s);
        add(x, ei->severity, ei->group <= UB_EG_CHECKSUM ? ei->group : UB_EG_PROTOCOL, s);
    }
}

/* the end of a record: its analysis, then (-z expert,FILTER) its items if it passes */
static void rec_done(xrun *x)
{
    frame_done(x);
    if (!x->acc) return;
    ub_filter_acc *acc = x->acc;
    x->acc = NULL; /* add() counts now */
    if (x->np && ub_filter_acc_match(acc, &x->pk))
        for (size_t i = 0; i < x->np; i++) add(x, x->pend[i].sev, x->pend[i].group, x->pend[i].summary);
    x->acc = acc;
    x->np = 0;
    ub_filter_acc_reset(acc);
}

int ub_expert_parse(const char *arg, unsigned *min_sev, const char **filter)
{
    static const struct { const char *name; unsigned sev; } lv[] = {
        { "error", UB_SEV_ERROR }, { "warn", UB_SEV_WARN }, { "note", UB_SEV_NOTE }, { "chat", UB_SEV_NOTE },
        { "comment", UB_SEV_NOTE }, /* UB has no chat or comment items: all */
    };
    if (strncmp(arg, "expert", 6) != 0 || (arg[6] && arg[6] != ',')) return -1;
    const char *a = arg[6] ? arg + 7 : arg + 6; /* tap-expert.c: a level prefix, then ",FILTER" */
    *min_sev = UB_SEV_NOTE;
    *filter = NULL;
    for (unsigned i = 0; i < sizeof lv / sizeof lv[0]; i++)
        if (strncasecmp(a, lv[i].name, strlen(lv[i].name)) == 0) {
            *min_sev = lv[i].sev;
            a += strlen(lv[i].name);
            break;
        }
    if (*a == ',') a++;
    if (*a) *filter = a;
    return 0;
}

int ub_expert_print(const char *path, const ub_opts *o, const ub_fan_table *fan, FILE *out, char *err, size_t errlen)
{
    return ub_expert_print_sel(path, o, fan, UB_SEV_NOTE, NULL, out, err, errlen);
}

int ub_expert_print_sel(const char *path, const ub_opts *o, const ub_fan_table *fan, unsigned min_sev,
                        const ub_filter *f, FILE *out, char *err, size_t errlen)
{
    ub_capfile *cf = ub_cap_open(path, err, errlen);
    if (!cf) return -1;
    xrun x = { .o = o, .fan = fan, .v = calloc(1, sizeof(ub_view)), .min_sev = min_sev,
               .acc = f ? ub_filter_acc_new(f) : NULL };
    ub_units *u = ub_units_new(o, 0);
    int rc = 0, st = -1;
    if (x.v && u && (!f || x.acc)) {
        ub_rec r;
        ub_fpkt_seq seq = { 0 };
        while ((rc = ub_cap_next(cf, &r)) == 1 && !x.oom) {
            x.pk = ub_fpkt_next(&seq, cf, &r, fan);
            ub_units_record(u, &r, unit, &x);
            rec_done(&x);
        }
        x.pk.ncomments = 0; /* units flushed at the end: the last record's comments were in the read buffer */
        ub_units_flush(u, unit, &x);
        rec_done(&x);
        if (rc < 0) snprintf(err, errlen, "%s", ub_cap_error(cf));
        else if (x.oom) snprintf(err, errlen, "out of memory");
        else st = 0;
    } else {
        snprintf(err, errlen, "out of memory");
    }
    static const char *const label[] = { "Notes", "Warns", "Errors" };
    static const char *const gname[] = { "Malformed", "Protocol", "Sequence", "Checksum" };
    for (int s = UB_SEV_ERROR; st == 0 && s >= UB_SEV_NOTE; s--) { /* tshark's tap-expert.c layout */
        if (!x.n[s]) continue;
        uint64_t tot = 0;
        for (size_t i = 0; i < x.n[s]; i++) tot += x.e[s][i].freq;
        fprintf(out, "\n%s (%" PRIu64 ")\n=============\n   Frequency      Group           Protocol  Summary\n", label[s], tot);
        for (size_t i = 0; i < x.n[s]; i++)
            fprintf(out, "%12" PRIu64 " %10s %18s  %s\n", x.e[s][i].freq, gname[x.e[s][i].group], "UB", x.e[s][i].summary);
    }
    for (int s = 0; s < 3; s++) {
        for (size_t i = 0; i < x.n[s]; i++) free(x.e[s][i].summary);
        free(x.e[s]);
    }
    ub_units_free(u);
    ub_filter_acc_free(x.acc);
    free(x.pend);
    free(x.v);
    ub_cap_close(cf);
    return st;
}
