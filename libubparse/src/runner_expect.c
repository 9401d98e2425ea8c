/* Expectations of the scenario runner (runner.h): display-filter matching of received answers
 * within a window with packetdrill-style tolerance; content, timing and missing-answer failures
 * are told apart and raised as findings with the expected filter and the actual packet. */
#include "runner_int.h"

#include <ctype.h>
#include <stdio.h>

const char *ub_expect_status_name(int st)
{
    static const char *const n[] = { "ok", "mismatch", "late", "early", "no answer", "unexpected", "error" };
    return st >= 0 && st <= UB_EXP_ERROR ? n[st] : "?";
}

static const ub_filter *get_filter(ub_runner *r, const ub_expect *e)
{
    if (e->compiled) return e->compiled;
    if (!e->filter) { rn_fail(r, "expect without a filter%s", NULL); return NULL; }
    if (r->ftext && strcmp(r->ftext, e->filter) == 0) return r->fcomp;
    char err[256];
    ub_filter *f = ub_filter_compile_live(e->filter, err, sizeof err);
    if (!f) {
        snprintf(r->err, sizeof r->err, "filter \"%s\": %s", e->filter, err);
        return NULL;
    }
    ub_filter_free(r->fcomp);
    free(r->ftext);
    r->fcomp = f;
    r->ftext = strdup(e->filter);
    return f;
}

static void fmt_ms(char *b, size_t n, uint64_t ns) { ub_format_duration(ns, b, n); }

/* Layer of a header: 3 transaction / management / enumeration, 2 transport, 1 network, 0 link. A failed
 * expectation is a content mismatch only when an answer of the layer it names came (a transport ack is
 * no answer to a transaction expectation, and a response no answer to a transport one). */
static int hdr_level(unsigned id)
{
    if (id >= UB_H_RTPH && id <= UB_H_TPPAD) return 2;
    if (id >= UB_H_UPIH16 && id <= UB_H_DATA) return id == UB_H_DATA ? 1 : 3;
    if (id >= UB_H_NTH16 && id <= UB_H_ICRC) return 1;
    if (id >= UB_H_SLL && id <= UB_H_UDP) return 1;
    return 0;
}

static int view_level(const ub_view *v)
{
    int m = -1;
    for (unsigned i = 0; i < v->nlayers && i < UB_MAX_LAYERS; i++) {
        int l = hdr_level(v->layer[i].hdr->id);
        if (l > m) m = l;
    }
    return m;
}

/* the highest layer a filter text names (ub.<header>... tokens), -1 if none */
static int filter_level(const char *t)
{
    int m = -1;
    for (const char *p = t; (p = strstr(p, "ub.")); p += 3) {
        if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.')) continue;
        char name[64] = "ub.";
        size_t n = 3;
        const char *q = p + 3;
        while ((isalnum((unsigned char)*q) || *q == '_') && n + 1 < sizeof name) name[n++] = *q++;
        name[n] = '\0';
        const ub_hdr *h[8];
        const ub_field *f[8];
        size_t k = ub_field_find(name, h, f, 8);
        for (size_t i = 0; i < k && i < 8; i++) {
            int l = hdr_level(h[i]->id);
            if (l > m) m = l;
        }
    }
    return m;
}

/* hand a received packet out: copied and decoded in the runner's own buffers */
static void give(ub_runner *r, pent *e, ub_got *got, uint64_t ref)
{
    const uint8_t *d = pring_data(&r->rxq, e);
    memcpy(r->gbuf, d, e->len);
    ub_decode(r->gview, &r->o, r->rec_entry, r->gbuf, e->len);
    got->view = r->gview;
    got->data = r->gbuf;
    got->len = e->len;
    got->entry = (uint8_t)r->rec_entry;
    got->ts = e->ts_mono;
    got->latency_ns = e->ts_mono > ref ? e->ts_mono - ref : 0;
    got->seq = e->seq;
}

int ub_runner_expect(ub_runner *r, const ub_expect *e, ub_got *got)
{
    memset(got, 0, sizeof *got);
    got->status = UB_EXP_ERROR;
    r->st.expects++;
    const ub_filter *f = get_filter(r, e);
    if (!f) { r->st.expect_failed[UB_EXP_ERROR]++; return UB_EXP_ERROR; }
    if (!r->x.rx || !r->rxq.ecap) {
        rn_fail(r, "this output receives no answers%s", NULL);
        r->st.expect_failed[UB_EXP_ERROR]++;
        return UB_EXP_ERROR;
    }
    if (rn_release(r) < 0) { r->st.expect_failed[UB_EXP_ERROR]++; return UB_EXP_ERROR; }
    uint64_t ref = e->ref ? e->ref : r->last_send;
    uint64_t window = e->at_ns ? e->at_ns : e->within_ns ? e->within_ns : r->c.within_ns;
    uint64_t tabs = e->tol_abs_ns >= 0 ? (uint64_t)e->tol_abs_ns : r->c.tol_abs_ns;
    double pct = e->tol_pct >= 0 ? e->tol_pct : r->c.tol_pct;
    uint64_t tpct = (uint64_t)((double)window * pct / 100.0);
    uint64_t tol = tabs > tpct ? tabs : tpct; /* packetdrill: the larger of the two */
    uint64_t lo = e->at_ns ? (ref + e->at_ns > tol ? ref + e->at_ns - tol : 0) : 0;
    uint64_t hi = ref + window + tol;
    uint64_t grace = r->c.late_grace_ns ? r->c.late_grace_ns : (window > 10000000 ? window : 10000000);
    uint64_t end = e->none ? hi : hi + grace;
    got->deadline = hi;
    uint32_t gen = ++r->gen;
    int flevel = e->filter ? filter_level(e->filter) : -1;
    pent *cand = NULL;
    uint64_t cand_seq = 0;
    int st = -1;
    pent *match = NULL;
    for (;;) {
        for (uint32_t i = 0; i < r->rxq.ecount && !match; i++) {
            pent *p = pring_at(&r->rxq, i);
            if (p->consumed || p->gen == gen) continue;
            if (e->none && p->ts_mono < ref) { p->gen = gen; continue; } /* before the window */
            const uint8_t *d = pring_data(&r->rxq, p);
            ub_decode(r->gview, &r->o, r->rec_entry, d, p->len);
            if (ub_filter_match(f, r->gview)) {
                match = p;
                break;
            }
            p->gen = gen;
            if (!cand && p->ts_mono >= ref && p->ts_mono <= hi && (flevel < 0 || view_level(r->gview) == flevel)) {
                cand = p;
                cand_seq = p->seq;
            }
        }
        if (match) {
            if (e->none) {
                if (match->ts_mono <= hi) st = UB_EXP_UNEXPECTED;
                else { match->gen = gen; match = NULL; continue; } /* after the window: not ours */
            } else if (match->ts_mono < lo) {
                st = UB_EXP_EARLY;
            } else if (match->ts_mono <= hi) {
                st = UB_EXP_OK;
            } else {
                st = UB_EXP_LATE;
            }
            match->consumed = 1; /* reported (or matched): not seen by later expectations */
            break;
        }
        uint64_t now = rn_now(r);
        if (now >= end) break;
        if (rn_cap(r)) break;
        if (rn_pump(r, end) < 0) { r->st.expect_failed[UB_EXP_ERROR]++; return UB_EXP_ERROR; }
    }
    if (st < 0) st = e->none ? UB_EXP_OK : cand ? UB_EXP_MISMATCH : UB_EXP_TIMEOUT;
    got->status = st;
    /* the candidate may have been evicted meanwhile: look it up by its id */
    if (match) give(r, match, got, ref);
    else if (cand) {
        for (uint32_t i = 0; i < r->rxq.ecount; i++)
            if (pring_at(&r->rxq, i)->seq == cand_seq) { give(r, pring_at(&r->rxq, i), got, ref); break; }
    }
    if (st == UB_EXP_OK) { r->st.expect_ok++; return st; }
    r->st.expect_failed[st]++;
    if (e->quiet) return st;
    /* the finding: expected vs actual */
    char msg[1024], sum[400] = "", w[32], t[32], l[32];
    const char *flt = e->filter ? e->filter : "(compiled filter)";
    const char *lab = e->label ? e->label : "";
    if (got->view) ub_summary(got->view, sum, sizeof sum);
    fmt_ms(w, sizeof w, window);
    fmt_ms(t, sizeof t, tol);
    fmt_ms(l, sizeof l, got->latency_ns);
    const char *rule = UB_SC_NOANSWER, *detail = "no answer within the window";
    int64_t vals[3] = { (int64_t)got->latency_ns, (int64_t)window, (int64_t)tol };
    switch (st) {
    case UB_EXP_MISMATCH:
        rule = UB_SC_MISMATCH;
        detail = "answers did not match the expectation";
        snprintf(msg, sizeof msg, "%s%sexpected \"%s\" within %s (+%s); got: %s (after %s)", lab, *lab ? ": " : "", flt,
                 w, t, sum, l);
        break;
    case UB_EXP_LATE:
    case UB_EXP_EARLY:
        rule = UB_SC_TIMING;
        detail = st == UB_EXP_LATE ? "the expected answer came late" : "the expected answer came early";
        if (e->at_ns)
            snprintf(msg, sizeof msg, "%s%s\"%s\" expected at %s +- %s, came after %s: %s", lab, *lab ? ": " : "", flt, w,
                     t, l, sum);
        else
            snprintf(msg, sizeof msg, "%s%s\"%s\" expected within %s (+%s), came after %s: %s", lab, *lab ? ": " : "",
                     flt, w, t, l, sum);
        break;
    case UB_EXP_UNEXPECTED:
        rule = UB_SC_UNEXPECTED;
        detail = "an excluded answer arrived";
        snprintf(msg, sizeof msg, "%s%sno \"%s\" expected within %s; got: %s (after %s)", lab, *lab ? ": " : "", flt, w,
                 sum, l);
        break;
    default: {
        char g[32];
        fmt_ms(g, sizeof g, end > ref ? end - ref : 0);
        snprintf(msg, sizeof msg, "%s%sexpected \"%s\" within %s (+%s): no answer (waited %s)", lab, *lab ? ": " : "",
                 flt, w, t, g);
        vals[0] = (int64_t)(end > ref ? end - ref : 0);
        break;
    }
    }
    uint64_t seqs[2] = { r->last_seq, got->seq };
    rn_add_finding(r, rule, -1, detail, msg, e->src_line, seqs, got->seq ? 2 : 1, vals, 3);
    return st;
}
