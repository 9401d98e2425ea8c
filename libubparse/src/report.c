/* Audit reports, written the same way by every front end: text, JSON, JUnit XML (this file) and
 * SARIF 2.1.0 (report_sarif.c); the run's result (PASS / FAIL / INCOMPLETE) and exit status.
 *
 * Rules come from the report's rule set (built-in catalogue + run-time rules). Rules that fired are
 * listed errors first, then in catalogue order; each with its exact counts and the examples the
 * collector kept (frame order). Evicted state (ub_state_stats) is shown in every format and makes
 * the result INCOMPLETE (issue #9 item 5) unless findings already make it FAIL. */
#include "report_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const sev_name[] = { "note", "warning", "error" };
const char *ub_rep_sev(unsigned s) { return sev_name[s > 2 ? 2 : s]; }
const char *ub_rep_fail_name(int f) { return f == UB_SEV_ERROR ? "error" : f == UB_SEV_WARN ? "warning" : "never"; }
const char *ub_rep_result_name(ub_result r)
{
    return r == UB_RESULT_FAIL ? "fail" : r == UB_RESULT_INCOMPLETE ? "incomplete" : "pass";
}

/* ================================================================ output helpers */
void ub_rep_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

const char *ub_xml_esc(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    default: return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? "?" : NULL;
    }
}

void ub_rep_xml_str(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        const char *e = ub_xml_esc(*p);
        if (e) fputs(e, f);
        else fputc(*p, f);
    }
}

static void fmt_val(char *b, size_t n, int64_t v)
{
    if (v >= -4096 && v < 4096) snprintf(b, n, "%" PRId64, v);
    else if (v > 0) snprintf(b, n, "%" PRId64 " (0x%" PRIx64 ")", v, (uint64_t)v);
    else snprintf(b, n, "%" PRId64, v);
}

/* needs n > the result's length for the separators to be right (ub_finding_text ensures it) */
static size_t finding_render(const ub_finding *f, bool with_frame, char *b, size_t n)
{
    size_t o = 0;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        int w_ = snprintf(b + (o < n ? o : 0), o < n ? n - o : 0, __VA_ARGS__);                                        \
        if (w_ > 0) o += (size_t)w_;                                                                                   \
    } while (0)
#define SEP (o && o <= n && b[o - 1] != ' ' ? "; " : "")
    if (with_frame) PUT("frame %" PRIu64 ": ", f->frame);
    PUT("%s", f->detail ? f->detail : "");
    if (f->keytext[0]) PUT("%s%s %.64s", SEP, f->key ? f->key : "key", f->keytext);
    else if (f->key && (!f->detail || strcmp(f->key, f->detail) != 0)) PUT(" (%s)", f->key);
    if (f->message && *f->message) PUT("%s%s", SEP, f->message);
    if (f->nvalues) {
        PUT("%svalues ", SEP);
        for (unsigned i = 0; i < f->nvalues && i < 4; i++) {
            char vb[48];
            fmt_val(vb, sizeof vb, f->values[i]);
            PUT("%s%s", i ? ", " : "", vb);
        }
    }
    if (f->nframes) {
        PUT("%sframes ", SEP);
        for (unsigned i = 0; i < f->nframes && i < UB_FINDING_FRAMES; i++) PUT("%s%" PRIu64, i ? ", " : "", f->frames[i]);
    }
    if (f->src_uri && *f->src_uri) {
        if (f->src_line) PUT("%sat %s:%" PRIu32, SEP, f->src_uri, f->src_line);
        else PUT("%sat %s", SEP, f->src_uri);
    }
#undef SEP
#undef PUT
    b[o < n ? o : n - 1] = 0;
    return o;
}

size_t ub_finding_text(const ub_finding *f, bool with_frame, char *b, size_t n)
{
    char tmp[1024];
    size_t need = finding_render(f, with_frame, tmp, sizeof tmp);
    char *src = tmp, *heap = NULL;
    if (need >= sizeof tmp && (heap = malloc(need + 1)) != NULL) {
        finding_render(f, with_frame, heap, need + 1);
        src = heap;
    }
    if (b && n) {
        size_t k = need < n ? need : n - 1;
        memcpy(b, src, k);
        b[k] = 0;
    }
    free(heap);
    return need;
}

/* ================================================================ result */
static const ub_ruleset *rules_of(const ub_collect *c, const ub_report_info *ri)
{
    return ri && ri->rules ? ri->rules : ub_collect_ruleset(c);
}

static uint64_t at_or_above(const ub_collect *c, unsigned r, int fail_on)
{
    uint64_t n = 0;
    for (int k = fail_on < UB_SEV_WARN ? UB_SEV_WARN : fail_on; k <= UB_SEV_ERROR; k++) n += ub_collect_count(c, r, (unsigned)k);
    return n;
}

static uint64_t evicted_total(const ub_report_info *ri) { return ri && ri->state ? ri->state->evicted_total : 0; }

ub_result ub_report_result(const ub_collect *c, const ub_report_info *ri)
{
    int fail_on = ri ? ri->fail_on : UB_SEV_ERROR;
    unsigned nr = ub_ruleset_count(rules_of(c, ri));
    for (unsigned r = 0; r < nr && fail_on <= UB_SEV_ERROR; r++)
        if (at_or_above(c, r, fail_on)) return UB_RESULT_FAIL;
    if (evicted_total(ri) && fail_on <= UB_SEV_ERROR && !ri->allow_incomplete) return UB_RESULT_INCOMPLETE;
    return UB_RESULT_PASS;
}

int ub_result_exit(ub_result r) { return r == UB_RESULT_FAIL ? 1 : r == UB_RESULT_INCOMPLETE ? 3 : 0; }

size_t ub_incomplete_text(const ub_state_stats *st, char *b, size_t n)
{
    size_t o = 0;
    char dummy[1];
    if (!b || !n) {
        b = dummy;
        n = 0;
    }
    if (n) b[0] = 0;
    if (!st || !st->evicted_total) return 0;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        int w_ = snprintf(b + (o < n ? o : 0), o < n ? n - o : 0, __VA_ARGS__);                                        \
        if (w_ > 0) o += (size_t)w_;                                                                                   \
    } while (0)
    /* what was evicted, with the most entries that were live at once */
    unsigned k = 0;
    for (unsigned t = 0; t < UB_TBL__COUNT; t++) {
        const ub_state_tblstat *x = &st->tbl[t];
        if (!x->evicted) continue;
        PUT("%s%" PRIu64 " %s", k++ ? ", " : "", x->evicted, ub_state_table_name(t));
    }
    PUT(" evicted before they could be judged (peak live ");
    k = 0;
    for (unsigned t = 0; t < UB_TBL__COUNT; t++)
        if (st->tbl[t].evicted) PUT("%s%" PRIu32, k++ ? ", " : "", st->tbl[t].peak);
    PUT("): rerun with");
    /* per option: enough for every entry that was live or evicted (an upper bound of what was needed) */
    const char *opts[UB_TBL__COUNT];
    uint64_t need[UB_TBL__COUNT];
    unsigned no = 0;
    for (unsigned t = 0; t < UB_TBL__COUNT; t++) {
        const ub_state_tblstat *x = &st->tbl[t];
        if (!x->evicted) continue;
        unsigned div = 1;
        const char *opt = ub_state_table_option(t, &div);
        uint64_t v = ((uint64_t)x->peak + x->evicted) * div;
        unsigned i = 0;
        while (i < no && strcmp(opts[i], opt) != 0) i++;
        if (i == no) {
            opts[no] = opt;
            need[no++] = v;
        } else if (v > need[i]) {
            need[i] = v;
        }
    }
    for (unsigned i = 0; i < no; i++) PUT(" %s %" PRIu64, opts[i], need[i]);
#undef PUT
    if (n) b[o < n ? o : n - 1] = 0;
    return o;
}

/* ================================================================ summary */
int ub_rep_summarize(const ub_collect *c, const ub_report_info *ri, ub_rep_sum *s)
{
    memset(s, 0, sizeof *s);
    s->rs = rules_of(c, ri);
    s->nrules = ub_ruleset_count(s->rs);
    s->fail_on = ri->fail_on;
    s->order = malloc((s->nrules ? s->nrules : 1) * sizeof *s->order);
    if (!s->order) return -1;
    for (unsigned r = 0; r < s->nrules; r++) {
        uint64_t t = ub_collect_rule_total(c, r);
        if (!t) continue;
        int rank = ub_collect_count(c, r, 2) ? 2 : ub_collect_count(c, r, 1) ? 1 : 0;
        s->order[s->fired++] = (ub_rep_item){ r, rank };
        s->total += t;
        for (unsigned k = 0; k < 3; k++) s->sev[k] += ub_collect_count(c, r, k);
        if (ri->fail_on <= UB_SEV_ERROR) s->at_or_above += at_or_above(c, r, ri->fail_on);
    }
    /* errors first, then warnings, then notes; catalogue order within (insertion sort: stable, local) */
    for (unsigned i = 1; i < s->fired; i++) {
        ub_rep_item x = s->order[i];
        unsigned j = i;
        while (j > 0 && s->order[j - 1].rank < x.rank) {
            s->order[j] = s->order[j - 1];
            j--;
        }
        s->order[j] = x;
    }
    s->result = ub_report_result(c, ri);
    s->status = ri->status ? ri->status : ub_result_exit(s->result);
    s->evicted = evicted_total(ri);
    s->incomplete_counts = s->evicted && ri->fail_on <= UB_SEV_ERROR && !ri->allow_incomplete;
    if (s->evicted) ub_incomplete_text(ri->state, s->why, sizeof s->why);
    return 0;
}

const char *ub_rep_input(const ub_report_info *ri, unsigned i)
{
    return ri->inputs && i < ri->ninputs && ri->inputs[i] ? ri->inputs[i] : "-";
}

/* ================================================================ text */
static void inputs_text(FILE *f, const ub_report_info *ri)
{
    unsigned n = ri->ninputs ? ri->ninputs : 1;
    for (unsigned i = 0; i < n; i++) fprintf(f, "%s%s", i ? ", " : "", ub_rep_input(ri, i));
}

static void evictions_text(FILE *f, const ub_report_info *ri)
{
    const ub_state_stats *st = ri->state;
    fprintf(f, "\nstate evicted: %" PRIu64 " entr%s before they could be judged:", st->evicted_total,
            st->evicted_total == 1 ? "y" : "ies");
    unsigned k = 0;
    for (unsigned t = 0; t < UB_TBL__COUNT; t++) {
        const ub_state_tblstat *x = &st->tbl[t];
        if (!x->evicted) continue;
        fprintf(f, "%s %s %" PRIu64 " (table bound %" PRIu32 ", peak live %" PRIu32 ", frames %" PRIu64 "..%" PRIu64 ")",
                k++ ? ";" : "", ub_state_table_name(t), x->evicted, x->bound, x->peak, x->first_evict_frame,
                x->last_evict_frame);
    }
    fputc('\n', f);
}

static void report_text(FILE *f, const ub_collect *c, const ub_report_info *ri, const ub_rep_sum *s)
{
    fprintf(f, "UB audit of ");
    inputs_text(f, ri);
    fprintf(f, ": %" PRIu64 " records, %" PRIu64 " packets\n", ri->records, ri->packets);
    fprintf(f, "%" PRIu64 " finding%s in %u of %u rules: %" PRIu64 " error%s, %" PRIu64 " warning%s, %" PRIu64 " note%s\n",
            s->total, s->total == 1 ? "" : "s", s->fired, s->nrules, s->sev[2], s->sev[2] == 1 ? "" : "s", s->sev[1],
            s->sev[1] == 1 ? "" : "s", s->sev[0], s->sev[0] == 1 ? "" : "s");
    char line[1400];
    for (unsigned i = 0; i < s->fired; i++) {
        unsigned r = s->order[i].rule;
        int ws = s->order[i].rank;
        const ub_rule *ru = ub_ruleset_get(s->rs, r);
        uint64_t c0 = ub_collect_count(c, r, 0), c1 = ub_collect_count(c, r, 1), c2 = ub_collect_count(c, r, 2);
        uint64_t t = c0 + c1 + c2;
        char cnt[96];
        int kinds = (c0 != 0) + (c1 != 0) + (c2 != 0);
        if (kinds > 1)
            snprintf(cnt, sizeof cnt, "%" PRIu64 " (%" PRIu64 " error, %" PRIu64 " warning, %" PRIu64 " note)", t, c2, c1, c0);
        else
            snprintf(cnt, sizeof cnt, "%" PRIu64, t);
        fprintf(f, "\n%-8s %s  x%s  %s\n", sev_name[ws], ru ? ru->id : "?", cnt, ru ? ru->title : "?");
        if (ru) fprintf(f, "         [%s; %s; evidence: %s]\n", ru->layer, ru->spec, ru->evidence);
        unsigned nex;
        const ub_finding *ex = ub_collect_examples(c, r, &nex);
        for (unsigned k = 0; k < nex; k++) {
            ub_finding_text(&ex[k], true, line, sizeof line);
            if (ex[k].severity != ws) fprintf(f, "         %s (%s)\n", line, ub_rep_sev(ex[k].severity));
            else fprintf(f, "         %s\n", line);
        }
        if (t > nex) fprintf(f, "         ... and %" PRIu64 " more\n", t - nex);
    }
    if (s->evicted) evictions_text(f, ri);
    const char *fo = ub_rep_fail_name(ri->fail_on);
    if (ri->fail_on > UB_SEV_ERROR) {
        if (s->evicted)
            fprintf(f, "\nresult: %s, INCOMPLETE: %s (--fail-on never)\n", s->total ? "findings reported" : "no findings", s->why);
        else
            fprintf(f, "\nresult: %s (--fail-on never)\n", s->total ? "findings reported" : "clean");
    } else if (s->result == UB_RESULT_FAIL) {
        fprintf(f, "\nresult: FAIL, %" PRIu64 " finding%s at or above '%s' (--fail-on %s)\n", s->at_or_above,
                s->at_or_above == 1 ? "" : "s", fo, fo);
        if (s->incomplete_counts) fprintf(f, "also INCOMPLETE: %s\n", s->why);
    } else if (s->result == UB_RESULT_INCOMPLETE) {
        fprintf(f, "\nresult: INCOMPLETE, no finding at or above '%s' but %s\n", fo, s->why);
    } else if (s->evicted) {
        fprintf(f, "\nresult: PASS, no finding at or above '%s'; INCOMPLETE accepted (--allow-incomplete): %s\n", fo, s->why);
    } else {
        fprintf(f, "\nresult: PASS, no finding at or above '%s'\n", fo);
    }
}

/* ================================================================ JSON */
static void json_finding(FILE *f, const ub_finding *x)
{
    fprintf(f, "{\"frame\":%" PRIu64 ",\"severity\":\"%s\",\"frames\":[", x->frame, ub_rep_sev(x->severity));
    for (unsigned i = 0; i < x->nframes && i < UB_FINDING_FRAMES; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", x->frames[i]);
    fputs("],\"values\":[", f);
    for (unsigned i = 0; i < x->nvalues && i < 4; i++) fprintf(f, "%s%" PRId64, i ? "," : "", x->values[i]);
    fputs("],\"detail\":", f);
    ub_rep_json_str(f, x->detail);
    fputs(",\"key\":", f);
    ub_rep_json_str(f, x->key);
    fputs(",\"keytext\":", f);
    ub_rep_json_str(f, x->keytext);
    if (x->message) {
        fputs(",\"message\":", f);
        ub_rep_json_str(f, x->message);
    }
    if (x->src_uri) {
        fputs(",\"source\":{\"uri\":", f);
        ub_rep_json_str(f, x->src_uri);
        fprintf(f, ",\"line\":%" PRIu32 "}", x->src_line);
    }
    fputc('}', f);
}

/* "evictions":{"total":N,"links":N,...} — table keys are stable names */
static const char *const tbl_key[UB_TBL__COUNT] = { "links", "channels", "transactions", "management", "tp_pairs",
                                                    "requesters", "ta_channels", "hops", "nb_flows", "nb_pairs",
                                                    "sue_pairs", "sue_cnps" };
const char *ub_rep_table_key(unsigned t) { return t < UB_TBL__COUNT ? tbl_key[t] : "?"; }

void ub_rep_json_evictions(FILE *f, const ub_report_info *ri, const char *sp)
{
    const ub_state_stats *st = ri->state;
    fprintf(f, "{\"total\":%s%" PRIu64, sp, st ? st->evicted_total : 0);
    for (unsigned t = 0; t < UB_TBL__COUNT; t++)
        if (t < UB_TBL_NB_FLOWS || (st && st->tbl[t].bound)) /* the neighbours' tables: when the capture used them */
            fprintf(f, ",%s\"%s\":%s%" PRIu64, sp, tbl_key[t], sp, st ? st->tbl[t].evicted : 0);
    fputc('}', f);
}

static void report_json(FILE *f, const ub_collect *c, const ub_report_info *ri, const ub_rep_sum *s)
{
    fputs("{\"tool\":", f);
    ub_rep_json_str(f, ri->tool ? ri->tool : "ubparse");
    fputs(",\"version\":\"" UBPARSE_VERSION "\",\"file\":", f);
    ub_rep_json_str(f, ub_rep_input(ri, 0));
    if (ri->ninputs > 1) {
        fputs(",\"inputs\":[", f);
        for (unsigned i = 0; i < ri->ninputs; i++) {
            if (i) fputc(',', f);
            ub_rep_json_str(f, ub_rep_input(ri, i));
        }
        fputc(']', f);
    }
    fprintf(f, ",\"records\":%" PRIu64 ",\"packets\":%" PRIu64 ",\"fail_on\":\"%s\",\"result\":\"%s\",\"exit_status\":%d,\n",
            ri->records, ri->packets, ub_rep_fail_name(ri->fail_on), ub_rep_result_name(s->result), s->status);
    fputs(" \"evictions\":", f);
    ub_rep_json_evictions(f, ri, "");
    if (s->evicted) {
        fputs(",\"incomplete\":", f);
        ub_rep_json_str(f, s->why);
    }
    fputs(",\n", f);
    fprintf(f, " \"totals\":{\"findings\":%" PRIu64 ",\"error\":%" PRIu64 ",\"warning\":%" PRIu64 ",\"note\":%" PRIu64
               ",\"rules_fired\":%u,\"rules\":%u},\n \"rules\":[",
            s->total, s->sev[2], s->sev[1], s->sev[0], s->fired, s->nrules);
    for (unsigned i = 0; i < s->fired; i++) {
        unsigned r = s->order[i].rule;
        const ub_rule *ru = ub_ruleset_get(s->rs, r);
        fputs(i ? ",\n  {\"id\":" : "\n  {\"id\":", f);
        ub_rep_json_str(f, ru->id);
        fputs(",\"layer\":", f);
        ub_rep_json_str(f, ru->layer);
        fprintf(f, ",\"severity\":\"%s\",\"spec\":", ub_rep_sev(ru->severity));
        ub_rep_json_str(f, ru->spec);
        fputs(",\"title\":", f);
        ub_rep_json_str(f, ru->title);
        fputs(",\"evidence\":", f);
        ub_rep_json_str(f, ru->evidence);
        uint64_t c0 = ub_collect_count(c, r, 0), c1 = ub_collect_count(c, r, 1), c2 = ub_collect_count(c, r, 2);
        fprintf(f, ",\"count\":%" PRIu64 ",\"error\":%" PRIu64 ",\"warning\":%" PRIu64 ",\"note\":%" PRIu64 ",\"findings\":[",
                c0 + c1 + c2, c2, c1, c0);
        unsigned nex;
        const ub_finding *ex = ub_collect_examples(c, r, &nex);
        for (unsigned k = 0; k < nex; k++) {
            if (k) fputc(',', f);
            fputs("\n    ", f);
            json_finding(f, &ex[k]);
        }
        fputs("]}", f);
    }
    fputs("\n ]", f);
    if (ri->extra_json && *ri->extra_json) fprintf(f, ",\n %s", ri->extra_json);
    fputs("}\n", f);
}

/* ================================================================ JUnit */
static void report_junit(FILE *f, const ub_collect *c, const ub_report_info *ri, const ub_rep_sum *s)
{
    const char *tool = ri->tool ? ri->tool : "ubparse";
    const ub_rule *ev = ub_rule_by_id("UB-ST-001");
    unsigned ev_idx = ev ? ev->idx : UINT32_MAX;
    uint64_t failures = 0;
    for (unsigned r = 0; r < s->nrules; r++) failures += ri->fail_on <= UB_SEV_ERROR && at_or_above(c, r, ri->fail_on) != 0;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"", f);
    ub_rep_xml_str(f, tool);
    fputs(" audit: ", f);
    for (unsigned i = 0; i < (ri->ninputs ? ri->ninputs : 1); i++) {
        if (i) fputs(", ", f);
        ub_rep_xml_str(f, ub_rep_input(ri, i));
    }
    fprintf(f, "\" tests=\"%u\" failures=\"%" PRIu64 "\" errors=\"%d\" skipped=\"0\">\n", s->nrules, failures,
            s->incomplete_counts ? 1 : 0);
    fputs("  <properties>\n    <property name=\"file\" value=\"", f);
    ub_rep_xml_str(f, ub_rep_input(ri, 0));
    fprintf(f, "\"/>\n    <property name=\"records\" value=\"%" PRIu64 "\"/>\n    <property name=\"packets\" value=\"%" PRIu64
               "\"/>\n    <property name=\"fail_on\" value=\"%s\"/>\n    <property name=\"findings\" value=\"%" PRIu64 "\"/>\n",
            ri->records, ri->packets, ub_rep_fail_name(ri->fail_on), s->total);
    fprintf(f, "    <property name=\"result\" value=\"%s\"/>\n    <property name=\"evicted\" value=\"%" PRIu64 "\"/>\n",
            s->result == UB_RESULT_FAIL ? "FAIL" : s->result == UB_RESULT_INCOMPLETE ? "INCOMPLETE" : "PASS", s->evicted);
    for (unsigned t = 0; t < UB_TBL__COUNT && ri->state; t++)
        if (ri->state->tbl[t].evicted)
            fprintf(f, "    <property name=\"evicted.%s\" value=\"%" PRIu64 "\"/>\n", tbl_key[t], ri->state->tbl[t].evicted);
    if (s->evicted) {
        fputs("    <property name=\"incomplete\" value=\"", f);
        ub_rep_xml_str(f, s->why);
        fputs("\"/>\n", f);
    }
    fputs("  </properties>\n", f);
    char line[1400];
    for (unsigned r = 0; r < s->nrules; r++) {
        const ub_rule *ru = ub_ruleset_get(s->rs, r);
        char cls[96];
        snprintf(cls, sizeof cls, "%s.audit.%s", tool, ru->layer);
        for (char *p = cls; *p; p++)
            if (*p == ' ') *p = '_';
        fputs("  <testcase classname=\"", f);
        ub_rep_xml_str(f, cls);
        fputs("\" name=\"", f);
        ub_rep_xml_str(f, ru->id);
        fputs(": ", f);
        ub_rep_xml_str(f, ru->title);
        uint64_t c0 = ub_collect_count(c, r, 0), c1 = ub_collect_count(c, r, 1), c2 = ub_collect_count(c, r, 2);
        uint64_t t = c0 + c1 + c2;
        uint64_t bad = ri->fail_on <= UB_SEV_ERROR ? at_or_above(c, r, ri->fail_on) : 0;
        bool incomplete = r == ev_idx && s->incomplete_counts;
        if (!t && !incomplete) {
            fputs("\"/>\n", f);
            continue;
        }
        fputs("\">\n", f);
        char msg[160];
        snprintf(msg, sizeof msg, "%" PRIu64 " finding%s (%" PRIu64 " error, %" PRIu64 " warning, %" PRIu64 " note)", t,
                 t == 1 ? "" : "s", c2, c1, c0);
        const char *elem = bad ? "failure" : incomplete ? "error" : "system-out";
        if (bad) {
            fputs("    <failure message=\"", f);
            ub_rep_xml_str(f, msg);
            fprintf(f, "\" type=\"%s\">", sev_name[c2 ? 2 : c1 ? 1 : 0]);
        } else if (incomplete) {
            fputs("    <error message=\"INCOMPLETE: ", f);
            ub_rep_xml_str(f, s->why);
            fputs("\" type=\"incomplete\">", f);
        } else {
            fputs("    <system-out>", f);
        }
        unsigned nex;
        const ub_finding *ex = ub_collect_examples(c, r, &nex);
        for (unsigned k = 0; k < nex; k++) {
            ub_finding_text(&ex[k], true, line, sizeof line);
            fprintf(f, "%s[%s] ", k ? "\n" : "", ub_rep_sev(ex[k].severity));
            ub_rep_xml_str(f, line);
        }
        if (t > nex) fprintf(f, "\n... and %" PRIu64 " more", t - nex);
        fprintf(f, "</%s>\n  </testcase>\n", elem);
    }
    fputs("</testsuite>\n", f);
}

/* ================================================================ names */
int ub_report_fmt_parse(const char *name, ub_report_fmt *fmt)
{
    static const char *const n[] = { "text", "json", "sarif", "junit" };
    for (unsigned i = 0; name && i < 4; i++)
        if (strcmp(name, n[i]) == 0) {
            *fmt = (ub_report_fmt)i;
            return 0;
        }
    return -1;
}

int ub_fail_on_parse(const char *name, int *fail_on)
{
    if (!name) return -1;
    if (strcmp(name, "error") == 0) *fail_on = UB_SEV_ERROR;
    else if (strcmp(name, "warning") == 0) *fail_on = UB_SEV_WARN;
    else if (strcmp(name, "never") == 0) *fail_on = UB_FAIL_NEVER;
    else return -1;
    return 0;
}

/* ================================================================ entry point */
int ub_report_write(FILE *f, ub_report_fmt fmt, const ub_collect *c, const ub_report_info *ri)
{
    if (!f || !c || !ri) return -1;
    ub_rep_sum s;
    if (ub_rep_summarize(c, ri, &s) != 0) return -1;
    switch (fmt) {
    case UB_REPORT_TEXT: report_text(f, c, ri, &s); break;
    case UB_REPORT_JSON: report_json(f, c, ri, &s); break;
    case UB_REPORT_SARIF: ub_rep_sarif(f, c, ri, &s); break;
    case UB_REPORT_JUNIT: report_junit(f, c, ri, &s); break;
    default: free(s.order); return -1;
    }
    free(s.order);
    return ferror(f) ? -1 : 0;
}
