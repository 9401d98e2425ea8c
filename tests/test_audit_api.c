/* The public audit API (ubparse/audit.h) as ubreplay and the Lua bindings use it: rule sets, the
 * collector's deterministic order and merge, hooks, findings raised outside the engine (run-time
 * rules, messages, source locations) in all four report formats, INCOMPLETE results and exit
 * statuses, raw-stream units per interface, decoder options by name. Every check asserts values. */
#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ================================================================ helpers */
typedef struct {
    ub_audit *a;
    ub_view *v;
    ub_opts o;
    uint64_t units, retx_pkts;
} feeder;

static void feed_unit(void *ctx, const ub_rec *r, const uint8_t *u, uint32_t len, ub_entry e, unsigned fl)
{
    feeder *fd = ctx;
    ub_decode(fd->v, &fd->o, e, u, len);
    if (fl & UB_UNIT_PARTIAL) ub_unit_partial(fd->v, len);
    ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
    CHECK_EQ(ub_audit_packet(fd->a, fd->v, &pi), 0);
    if (ub_audit_last_flags(fd->a) & UB_TPF_RETRANSMISSION) fd->retx_pkts++;
    fd->units++;
}

/* feed a bundled capture through units -> decode -> session; returns the records read */
static uint64_t run_file(feeder *fd, const char *name)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, name);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    CHECK(cf != NULL);
    if (!cf) return 0;
    ub_units *u = ub_units_new(&fd->o, 0);
    ub_rec r;
    uint64_t n = 0;
    while (ub_cap_next(cf, &r) == 1) {
        n++;
        ub_units_record(u, &r, feed_unit, fd);
    }
    ub_units_flush(u, feed_unit, fd);
    ub_units_free(u);
    ub_cap_close(cf);
    ub_audit_set_records(fd->a, n);
    return n;
}

static ub_audit *session(feeder *fd, ub_audit_cfg *c)
{
    memset(fd, 0, sizeof *fd);
    ub_opts_default(&fd->o);
    fd->v = malloc(sizeof *fd->v);
    ub_view_init(fd->v);
    c->opts = &fd->o;
    char err[200];
    fd->a = ub_audit_new(c, err, sizeof err);
    CHECK(fd->a != NULL);
    return fd->a;
}
static void session_end(feeder *fd)
{
    ub_audit_free(fd->a);
    free(fd->v);
}

static unsigned rule_idx(const char *id)
{
    const ub_rule *r = ub_rule_by_id(id);
    CHECK(r != NULL);
    return r ? r->idx : 0;
}

static uint64_t total(const ub_collect *c, const char *id)
{
    return ub_collect_rule_total(c, rule_idx(id));
}

/* a report into a string (caller frees) */
static char *report(ub_report_fmt fmt, const ub_collect *c, const ub_report_info *ri)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK_EQ(ub_report_write(f, fmt, c, ri), 0);
    fclose(f);
    return buf;
}

/* ================================================================ rule sets */
static void t_ruleset(void)
{
    char err[200];
    ub_ruleset *rs = ub_ruleset_new();
    unsigned nb = ub_rule_count();
    CHECK(nb >= 50);
    CHECK_EQ(ub_ruleset_count(rs), nb);
    ub_rule r = { 0, "LUA.latency-001", "transaction", UB_SEV_WARN, "site policy", "Read slower than 10 us", "frame; values: ns" };
    int i = ub_ruleset_add(rs, &r, err, sizeof err);
    CHECK_EQ(i, nb);
    CHECK_EQ(ub_ruleset_count(rs), nb + 1);
    const ub_rule *g = ub_ruleset_get(rs, (unsigned)i);
    CHECK(g && g != &r && g->id != r.id); /* copied */
    CHECK_STR(g->id, "LUA.latency-001");
    CHECK_STR(g->title, "Read slower than 10 us");
    CHECK_EQ(g->idx, nb);
    CHECK(ub_ruleset_find(rs, "LUA.latency-001") == g);
    CHECK(ub_ruleset_find(rs, "UB-TP-002") == ub_rule_by_id("UB-TP-002"));
    CHECK(ub_ruleset_get(rs, 0) == ub_rule_get(0));
    CHECK(ub_ruleset_get(rs, nb + 1) == NULL);
    /* duplicates: of an added rule and of a built-in one */
    err[0] = 0;
    CHECK_EQ(ub_ruleset_add(rs, &r, err, sizeof err), -1);
    CHECK(strstr(err, "already defined") != NULL);
    ub_rule dup = r;
    dup.id = "UB-TP-002";
    CHECK_EQ(ub_ruleset_add(rs, &dup, err, sizeof err), -1);
    CHECK(strstr(err, "UB-TP-002") != NULL);
    /* invalid ids and severities */
    const char *bad[] = { "", "has space", "slash/id", "quote\"id", "tab\tid",
                          "x2345678901234567890123456789012345678901234567890123456789012345" /* 65 */ };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ub_rule b = r;
        b.id = bad[k];
        err[0] = 0;
        CHECK_EQ(ub_ruleset_add(rs, &b, err, sizeof err), -1);
        CHECK(err[0] != 0);
    }
    ub_rule nid = r;
    nid.id = NULL;
    CHECK_EQ(ub_ruleset_add(rs, &nid, err, sizeof err), -1);
    ub_rule sev = r;
    sev.id = "LUA.sev";
    sev.severity = 3;
    CHECK_EQ(ub_ruleset_add(rs, &sev, err, sizeof err), -1);
    /* defaults for missing strings; pointers stay valid while rules are added */
    ub_rule minimal = { 0, "min_1", NULL, UB_SEV_NOTE, NULL, NULL, NULL };
    int m = ub_ruleset_add(rs, &minimal, err, sizeof err);
    CHECK_EQ(m, nb + 1);
    for (int k = 0; k < 100; k++) {
        char id[32];
        snprintf(id, sizeof id, "bulk.%d", k);
        ub_rule b = minimal;
        b.id = id;
        CHECK_EQ(ub_ruleset_add(rs, &b, err, sizeof err), (int)nb + 2 + k);
    }
    CHECK(ub_ruleset_get(rs, (unsigned)i) == g);
    const ub_rule *mr = ub_ruleset_get(rs, (unsigned)m);
    CHECK_STR(mr->layer, "script");
    CHECK_STR(mr->title, "min_1");
    CHECK_STR(mr->spec, "");
    CHECK_EQ(ub_ruleset_count(rs), nb + 102);
    ub_ruleset_free(rs);
}

/* ================================================================ collector */
typedef struct {
    ub_finding f;
    uint64_t pkt, seq;
    uint8_t phase;
} item;

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void fill(item *it, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        memset(&it[i], 0, sizeof it[i]);
        it[i].f.rule = (uint16_t)(rnd() % 3);
        it[i].f.severity = (uint8_t)(rnd() % 3);
        it[i].f.frame = 1 + rnd() % 20;  /* many ties: the rest of the key decides */
        it[i].pkt = rnd() % 4;
        it[i].phase = (uint8_t)(rnd() % 2);
        it[i].seq = i;                   /* unique: a total order */
        it[i].f.nvalues = 1;
        it[i].f.values[0] = i;
    }
}

static int item_cmp(const void *x, const void *y)
{
    const item *a = x, *b = y;
    if (a->f.frame != b->f.frame) return a->f.frame < b->f.frame ? -1 : 1;
    if (a->f.rule != b->f.rule) return a->f.rule < b->f.rule ? -1 : 1;
    if (a->pkt != b->pkt) return a->pkt < b->pkt ? -1 : 1;
    if (a->phase != b->phase) return a->phase < b->phase ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_collect(const ub_collect *a, const ub_collect *b)
{
    bool ok = true;
    for (unsigned r = 0; r < 3; r++) {
        for (unsigned s = 0; s < 3; s++) ok &= ub_collect_count(a, r, s) == ub_collect_count(b, r, s);
        unsigned na, nb;
        const ub_finding *ea = ub_collect_examples(a, r, &na), *eb = ub_collect_examples(b, r, &nb);
        ok &= na == nb;
        for (unsigned k = 0; ok && k < na; k++) ok &= ea[k].values[0] == eb[k].values[0];
    }
    return ok;
}

static void t_collect(void)
{
    enum { N = 400, K = 7 };
    static item it[N], sorted[N];
    fill(it, N);
    ub_collect *ref = ub_collect_new(NULL, K);
    for (unsigned i = 0; i < N; i++) ub_collect_add(ref, &it[i].f, it[i].pkt, it[i].phase, it[i].seq);
    /* the kept examples are the K smallest keys of each rule, in key order */
    memcpy(sorted, it, sizeof it);
    qsort(sorted, N, sizeof *sorted, item_cmp);
    for (unsigned r = 0; r < 3; r++) {
        unsigned n, k = 0;
        uint64_t cnt[3] = { 0, 0, 0 };
        const ub_finding *ex = ub_collect_examples(ref, r, &n);
        CHECK_EQ(n, K);
        for (unsigned i = 0; i < N; i++) {
            if (sorted[i].f.rule != r) continue;
            cnt[sorted[i].f.severity]++;
            if (k < n) {
                CHECK_EQ(ex[k].values[0], sorted[i].f.values[0]);
                k++;
            }
        }
        for (unsigned s = 0; s < 3; s++) CHECK_EQ(ub_collect_count(ref, r, s), cnt[s]);
        CHECK_EQ(ub_collect_rule_total(ref, r), cnt[0] + cnt[1] + cnt[2]);
    }
    /* any insertion order gives the same result */
    for (int perm = 0; perm < 5; perm++) {
        static item sh[N];
        memcpy(sh, it, sizeof it);
        for (unsigned i = N - 1; i > 0; i--) {
            unsigned j = rnd() % (i + 1);
            item t = sh[i];
            sh[i] = sh[j];
            sh[j] = t;
        }
        ub_collect *c = ub_collect_new(NULL, K);
        for (unsigned i = 0; i < N; i++) ub_collect_add(c, &sh[i].f, sh[i].pkt, sh[i].phase, sh[i].seq);
        CHECK(same_collect(ref, c));
        /* merge: the same findings split over three collectors (like -j 3) */
        ub_collect *part[3], *m = ub_collect_new(NULL, K);
        for (int p = 0; p < 3; p++) part[p] = ub_collect_new(NULL, K);
        for (unsigned i = 0; i < N; i++) ub_collect_add(part[rnd() % 3], &sh[i].f, sh[i].pkt, sh[i].phase, sh[i].seq);
        for (int p = 0; p < 3; p++) CHECK_EQ(ub_collect_merge(m, part[p]), 0);
        CHECK(same_collect(ref, m));
        for (int p = 0; p < 3; p++) ub_collect_free(part[p]);
        ub_collect_free(m);
        ub_collect_free(c);
    }
    /* K = 0: counts only */
    ub_collect *z = ub_collect_new(NULL, 0);
    for (unsigned i = 0; i < N; i++) ub_collect_add(z, &it[i].f, it[i].pkt, it[i].phase, it[i].seq);
    unsigned n0;
    ub_collect_examples(z, 1, &n0);
    CHECK_EQ(n0, 0);
    CHECK_EQ(ub_collect_rule_total(z, 1), ub_collect_rule_total(ref, 1));
    /* strings of kept findings are copied; unknown rules are dropped, counted */
    char msg[32], uri[32];
    snprintf(msg, sizeof msg, "temporary message");
    snprintf(uri, sizeof uri, "check.lua");
    ub_finding f;
    memset(&f, 0, sizeof f);
    f.rule = 2;
    f.frame = 1;
    f.message = msg;
    f.src_uri = uri;
    f.src_line = 9;
    ub_collect_add(z, &f, 0, 0, 0);
    ub_collect *c1 = ub_collect_new(NULL, 2);
    ub_collect_add(c1, &f, 0, 0, 0);
    memset(msg, 'X', sizeof msg - 1);
    memset(uri, 'Y', sizeof uri - 1);
    unsigned n1;
    const ub_finding *e1 = ub_collect_examples(c1, 2, &n1);
    CHECK_EQ(n1, 1);
    CHECK_STR(e1[0].message, "temporary message");
    CHECK_STR(e1[0].src_uri, "check.lua");
    CHECK_EQ(e1[0].src_line, 9);
    f.rule = (uint16_t)ub_rule_count(); /* not in a NULL (built-in) rule set */
    ub_collect_add(c1, &f, 0, 0, 1);
    CHECK_EQ(ub_collect_dropped(c1), 1);
    ub_collect_free(c1);
    ub_collect_free(z);
    ub_collect_free(ref);
}

/* ================================================================ hooks */
typedef struct {
    unsigned dl006, idx_dl006, idx_nw005;
    unsigned matches[3];
    uint64_t req[8], rsp[8], lat[8];
    unsigned notes_retx, notes_lost, notes_nak;
} hookstate;

static bool h_finding(void *ctx, ub_finding *f)
{
    hookstate *h = ctx;
    if (f->rule == h->idx_dl006) { /* drop */
        h->dl006++;
        return false;
    }
    if (f->rule == h->idx_nw005) f->severity = UB_SEV_NOTE; /* re-rate */
    return true;
}
static void h_match(void *ctx, const ub_match *m)
{
    hookstate *h = ctx;
    unsigned k = m->kind < 3 ? m->kind : 2;
    if (k == 0 && h->matches[0] < 8) {
        h->req[h->matches[0]] = m->req_frame;
        h->rsp[h->matches[0]] = m->rsp_frame;
        h->lat[h->matches[0]] = m->latency_ns;
    }
    h->matches[k]++;
}
static void h_note(void *ctx, const ub_pkt_note *n)
{
    hookstate *h = ctx;
    if (n->tp_flags & UB_TPF_RETRANSMISSION) h->notes_retx++;
    if (n->tp_flags & UB_TPF_LOST_BEFORE) h->notes_lost++;
    if (n->tp_flags & UB_TPF_NAK) h->notes_nak++;
}

static void t_hooks(void)
{
    /* malformed.pcapng without hooks: UB-DL-006 x3 (frames 1, 4, 9), UB-NW-005 x1 error (frame 2) */
    feeder fd;
    ub_audit_cfg c;
    ub_audit_cfg_default(&c);
    session(&fd, &c);
    run_file(&fd, "malformed.pcapng");
    CHECK_EQ(ub_audit_finish(fd.a), 0);
    const ub_collect *all = ub_audit_findings(fd.a);
    CHECK_EQ(total(all, "UB-DL-006"), 3);
    CHECK_EQ(ub_collect_count(all, rule_idx("UB-NW-005"), UB_SEV_ERROR), 1);
    uint64_t dl005 = total(all, "UB-DL-005");
    session_end(&fd);

    /* with hooks (and jobs 4 asked): one engine; DL-006 dropped, NW-005 re-rated to a note */
    hookstate h;
    memset(&h, 0, sizeof h);
    h.idx_dl006 = rule_idx("UB-DL-006");
    h.idx_nw005 = rule_idx("UB-NW-005");
    ub_audit_cfg_default(&c);
    c.jobs = 4;
    session(&fd, &c);
    ub_audit_hooks hk = { &h, h_finding, h_match, h_note };
    ub_audit_set_hooks(fd.a, &hk);
    CHECK_EQ(ub_audit_jobs(fd.a), 1);
    run_file(&fd, "malformed.pcapng");
    CHECK_EQ(ub_audit_finish(fd.a), 0);
    all = ub_audit_findings(fd.a);
    CHECK_EQ(h.dl006, 3);
    CHECK_EQ(total(all, "UB-DL-006"), 0);
    CHECK_EQ(ub_collect_count(all, rule_idx("UB-NW-005"), UB_SEV_ERROR), 0);
    CHECK_EQ(ub_collect_count(all, rule_idx("UB-NW-005"), UB_SEV_NOTE), 1);
    unsigned n;
    const ub_finding *ex = ub_collect_examples(all, rule_idx("UB-NW-005"), &n);
    CHECK(n == 1 && ex[0].frame == 2 && ex[0].severity == UB_SEV_NOTE);
    CHECK_EQ(total(all, "UB-DL-005"), dl005); /* others untouched */
    session_end(&fd);

    /* match hook: cfg9_coherent answers Write (1 -> 2, 200 us), Read (3 -> 4, 500 us), Write_with_be (5 -> 6, 50 us) */
    memset(&h, 0, sizeof h);
    h.idx_dl006 = h.idx_nw005 = UINT32_MAX;
    ub_audit_cfg_default(&c);
    session(&fd, &c);
    ub_audit_set_hooks(fd.a, &hk);
    run_file(&fd, "cfg9_coherent.pcapng");
    ub_audit_finish(fd.a);
    CHECK_EQ(h.matches[0], 3);
    CHECK(h.req[0] == 1 && h.rsp[0] == 2 && h.lat[0] == 200000);
    CHECK(h.req[1] == 3 && h.rsp[1] == 4 && h.lat[1] == 500000);
    CHECK(h.req[2] == 5 && h.rsp[2] == 6 && h.lat[2] == 50000);
    session_end(&fd);

    /* note hook and ub_audit_last_flags: audit_rtp_lossy has 4 retransmissions, 2 packets after a PSN gap,
     * 1 NAK, 9 data -> transport-ack matches (ubdump -z ub,tp) */
    memset(&h, 0, sizeof h);
    h.idx_dl006 = h.idx_nw005 = UINT32_MAX;
    ub_audit_cfg_default(&c);
    session(&fd, &c);
    ub_audit_set_hooks(fd.a, &hk);
    run_file(&fd, "audit_rtp_lossy.pcapng");
    ub_audit_finish(fd.a);
    CHECK_EQ(h.notes_retx, 4);
    CHECK_EQ(h.notes_lost, 2);
    CHECK_EQ(h.notes_nak, 1);
    CHECK_EQ(h.matches[2], 9);
    CHECK_EQ(fd.retx_pkts, 4);
    session_end(&fd);
    ub_audit_cfg_default(&c); /* no hooks: the flags are there too */
    session(&fd, &c);
    run_file(&fd, "audit_rtp_lossy.pcapng");
    ub_audit_finish(fd.a);
    CHECK_EQ(fd.retx_pkts, 4);
    session_end(&fd);
}

/* ================================================================ external findings, all formats */
static bool h_rerate_script(void *ctx, ub_finding *f)
{
    unsigned *idx = ctx;
    if (f->rule == *idx && f->frame == 3) f->severity = UB_SEV_ERROR;
    return true;
}

static void t_external(void)
{
    char err[200];
    ub_ruleset *rs = ub_ruleset_new();
    ub_rule r = { 0, "LUA.slow-read", "transaction", UB_SEV_WARN, "site policy", "Read answered later than allowed", "frame; values: ns" };
    int idx = ub_ruleset_add(rs, &r, err, sizeof err);
    CHECK(idx > 0);
    unsigned uidx = (unsigned)idx;
    feeder fd;
    ub_audit_cfg c;
    ub_audit_cfg_default(&c);
    c.rules = rs;
    session(&fd, &c);
    ub_audit_hooks hk = { &uidx, h_rerate_script, NULL, NULL };
    ub_audit_set_hooks(fd.a, &hk);
    run_file(&fd, "cfg9_coherent.pcapng");
    char text[64];
    snprintf(text, sizeof text, "Read took 500 us <& \"limit\" 10 us>");
    ub_finding f;
    memset(&f, 0, sizeof f);
    f.rule = (uint16_t)idx;
    f.severity = UB_SEV_WARN;
    f.frame = 3;
    f.nframes = 1;
    f.frames[0] = 4;
    f.nvalues = 1;
    f.values[0] = 500000;
    f.message = text;
    f.src_uri = "checks/latency.lua";
    f.src_line = 12;
    ub_audit_add_finding(fd.a, &f);
    f.frame = 5;
    f.frames[0] = 6;
    ub_audit_add_finding(fd.a, &f);
    memset(text, 0, sizeof text); /* the session copied it */
    CHECK_EQ(ub_audit_finish(fd.a), 0);
    const ub_collect *all = ub_audit_findings(fd.a);
    CHECK_EQ(ub_collect_rule_total(all, uidx), 2);
    CHECK_EQ(ub_collect_count(all, uidx, UB_SEV_ERROR), 1); /* re-rated by the hook */
    CHECK_EQ(ub_collect_count(all, uidx, UB_SEV_WARN), 1);
    unsigned n;
    const ub_finding *ex = ub_collect_examples(all, uidx, &n);
    CHECK(n == 2 && ex[0].frame == 3 && ex[1].frame == 5);
    CHECK_STR(ex[0].message, "Read took 500 us <& \"limit\" 10 us>");
    char line[512];
    ub_finding_text(&ex[0], true, line, sizeof line);
    CHECK_STR(line, "frame 3: Read took 500 us <& \"limit\" 10 us>; values 500000 (0x7a120); frames 4; at checks/latency.lua:12");
    /* a short buffer is terminated and the needed length returned */
    char small[16];
    size_t need = ub_finding_text(&ex[0], true, small, sizeof small);
    CHECK_EQ(need, strlen(line));
    CHECK_EQ(strlen(small), sizeof small - 1);

    ub_state_stats st;
    ub_audit_state_stats(fd.a, &st);
    CHECK_EQ(st.evicted_total, 0);
    const char *inputs[1] = { "captures/cfg9_coherent.pcapng" };
    ub_report_info ri;
    memset(&ri, 0, sizeof ri);
    ri.tool = "ubtest";
    ri.inputs = inputs;
    ri.ninputs = 1;
    ri.records = 7;
    ri.packets = 7;
    ri.fail_on = UB_SEV_ERROR;
    ri.state = &st;
    ri.rules = rs;
    CHECK_EQ(ub_report_result(all, &ri), UB_RESULT_FAIL); /* the re-rated error */
    char *t = report(UB_REPORT_TEXT, all, &ri);
    CHECK(strstr(t, "error    LUA.slow-read  x2 (1 error, 1 warning, 0 note)  Read answered later than allowed") != NULL);
    CHECK(strstr(t, "[transaction; site policy; evidence: frame; values: ns]") != NULL);
    CHECK(strstr(t, "         frame 5: Read took 500 us <& \"limit\" 10 us>; values 500000 (0x7a120); frames 6; at checks/latency.lua:12 (warning)") != NULL);
    char hdr[96];
    snprintf(hdr, sizeof hdr, "\n2 findings in 1 of %u rules: 1 error, 1 warning, 0 notes\n", ub_ruleset_count(rs));
    CHECK(strstr(t, hdr) != NULL);
    CHECK(strstr(t, "result: FAIL, 1 finding at or above 'error'") != NULL);
    free(t);
    char *j = report(UB_REPORT_JSON, all, &ri);
    CHECK(strstr(j, "{\"id\":\"LUA.slow-read\",\"layer\":\"transaction\",\"severity\":\"warning\"") != NULL);
    CHECK(strstr(j, "\"message\":\"Read took 500 us <& \\\"limit\\\" 10 us>\",\"source\":{\"uri\":\"checks/latency.lua\",\"line\":12}") != NULL);
    CHECK(strstr(j, "\"tool\":\"ubtest\"") != NULL);
    free(j);
    char *s = report(UB_REPORT_SARIF, all, &ri);
    CHECK(strstr(s, "{\"id\": \"LUA.slow-read\", \"shortDescription\": {\"text\": \"Read answered later than allowed\"}") != NULL);
    CHECK(strstr(s, "\"ruleId\": \"LUA.slow-read\", \"ruleIndex\": ") != NULL);
    /* the capture (frame = line) and the script's file and line */
    CHECK(strstr(s, "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"checks/latency.lua\", \"uriBaseId\": \"SRCROOT\"}, "
                    "\"region\": {\"startLine\": 12}}") != NULL);
    CHECK(strstr(s, "\"message\": \"Read took 500 us <& \\\"limit\\\" 10 us>\"") != NULL);
    char cwd[512], base[600];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(base, sizeof base, "\"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": \"file://%s/\"}}", strcmp(cwd, "/") ? cwd : "");
    CHECK(strchr(cwd, ' ') || strstr(s, base) != NULL); /* (a cwd with characters to escape is not compared) */
    CHECK(strstr(s, "\"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"captures/cfg9_coherent.pcapng\", "
                    "\"uriBaseId\": \"SRCROOT\", \"index\": 0}, \"region\": {\"startLine\": 3}}, \"logicalLocations\": "
                    "[{\"name\": \"frame 3\", \"kind\": \"element\"}]}") != NULL);
    CHECK(strstr(s, "\"partialFingerprints\": {\"ubFindingHash/v1\": \"") != NULL);
    /* same finding twice (frames differ): one hash, occurrences 1 and 2 */
    char *p1 = strstr(s, "\"ubFindingHash/v1\": \""), *p2 = p1 ? strstr(p1 + 1, "\"ubFindingHash/v1\": \"") : NULL;
    CHECK(p1 && p2 && strncmp(p1, p2, 21 + 16) == 0 && strncmp(p1 + 21 + 16, ":1\"", 3) == 0 && strncmp(p2 + 21 + 16, ":2\"", 3) == 0);
    free(s);
    /* an explicit SRCROOT: inputs below it are relative, others absolute file URIs */
    const char *abs_in[1] = { "/src/caps/x y.pcapng" };
    ri.inputs = abs_in;
    ri.srcroot = "/src/";
    s = report(UB_REPORT_SARIF, all, &ri);
    CHECK(strstr(s, "\"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": \"file:///src/\"}}") != NULL);
    CHECK(strstr(s, "\"artifacts\": [{\"location\": {\"uri\": \"caps/x%20y.pcapng\", \"uriBaseId\": \"SRCROOT\"}}]") != NULL);
    free(s);
    abs_in[0] = "/elsewhere/../data/x.pcapng";
    s = report(UB_REPORT_SARIF, all, &ri);
    CHECK(strstr(s, "\"artifacts\": [{\"location\": {\"uri\": \"file:///data/x.pcapng\"}}]") != NULL);
    free(s);
    ri.inputs = inputs;
    ri.srcroot = NULL;
    char *x = report(UB_REPORT_JUNIT, all, &ri);
    CHECK(strstr(x, "<testcase classname=\"ubtest.audit.transaction\" name=\"LUA.slow-read: Read answered later than allowed\">") != NULL);
    CHECK(strstr(x, "[error] frame 3: Read took 500 us &lt;&amp; &quot;limit&quot; 10 us&gt;; values 500000 (0x7a120); frames 4; "
                    "at checks/latency.lua:12") != NULL);
    char tests[48];
    snprintf(tests, sizeof tests, "tests=\"%u\"", ub_ruleset_count(rs));
    CHECK(strstr(x, tests) != NULL);
    free(x);
    session_end(&fd);
    ub_ruleset_free(rs);
}

/* ================================================================ INCOMPLETE */
static void t_incomplete(void)
{
    /* 50 never-answered requests (distinct TASSNs, 1 us apart) through a 16-entry table: 34 evicted */
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        feeder fd;
        ub_audit_cfg c;
        ub_audit_cfg_default(&c);
        c.state.max_transactions = 16;
        c.jobs = jobs;
        c.link_thread = (int)jobs - 1;
        session(&fd, &c);
        uint8_t rec[256];
        char err[200];
        ub_entry e;
        for (unsigned i = 0; i < 50; i++) {
            char txt[400];
            snprintf(txt, sizeof txt,
                     "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=%u\n"
                     "maetah_c address=0x%x tokenid=0x12345 length=0\npayload inc=64\n", i, 0x1000 + 64 * i);
            long len = ub_build_text(txt, &fd.o, rec, sizeof rec, &e, err, sizeof err);
            CHECK(len > 0);
            ub_rec r = { rec, (uint32_t)len, (uint32_t)len, 100000u + 1000u * i, 147, 0, UB_DIR_OUT, i + 1, 0 };
            feed_unit(&fd, &r, rec, (uint32_t)len, e, 0);
        }
        CHECK_EQ(ub_audit_finish(fd.a), 0);
        ub_state_stats st;
        ub_audit_state_stats(fd.a, &st);
        CHECK_EQ(st.evicted_total, 34);
        CHECK_EQ(st.evicted_transactions, 34);
        CHECK_EQ(st.tbl[UB_TBL_TRANSACTIONS].evicted, 34);
        CHECK_EQ(st.tbl[UB_TBL_TRANSACTIONS].peak, 16);
        CHECK_EQ(st.tbl[UB_TBL_TRANSACTIONS].bound, 16);
        CHECK_EQ(st.tbl[UB_TBL_TRANSACTIONS].first_evict_frame, 17);
        CHECK_EQ(st.tbl[UB_TBL_TRANSACTIONS].last_evict_frame, 50);
        const ub_collect *all = ub_audit_findings(fd.a);
        /* UB-ST-001 gives the real totals (table, evicted, bound); the 16 judged requests are notes (capture
         * shorter than the response timeout) */
        unsigned n;
        const ub_finding *ex = ub_collect_examples(all, rule_idx("UB-ST-001"), &n);
        CHECK_EQ(n, 1);
        if (n == 1) {
            CHECK_EQ(ex[0].frame, 17);
            CHECK(ex[0].nvalues == 3 && ex[0].values[0] == UB_TBL_TRANSACTIONS && ex[0].values[1] == 34 && ex[0].values[2] == 16);
            CHECK(ex[0].nframes == 1 && ex[0].frames[0] == 50);
        }
        CHECK_EQ(ub_collect_count(all, rule_idx("UB-TA-001"), UB_SEV_NOTE), 16);
        ub_report_info ri;
        memset(&ri, 0, sizeof ri);
        ri.tool = "ubtest";
        ri.fail_on = UB_SEV_ERROR;
        ri.state = &st;
        ri.records = ri.packets = 50;
        CHECK_EQ(ub_report_result(all, &ri), UB_RESULT_INCOMPLETE);
        CHECK_EQ(ub_result_exit(UB_RESULT_INCOMPLETE), 3);
        char why[256];
        ub_incomplete_text(&st, why, sizeof why);
        CHECK_STR(why, "34 transactions evicted before they could be judged (peak live 16): rerun with --max-transactions 50");
        char *t = report(UB_REPORT_TEXT, all, &ri);
        CHECK(strstr(t, "\nstate evicted: 34 entries before they could be judged: transactions 34 (table bound 16, peak live 16, "
                        "frames 17..50)\n") != NULL);
        CHECK(strstr(t, "\nresult: INCOMPLETE, no finding at or above 'error' but 34 transactions evicted before they could be "
                        "judged (peak live 16): rerun with --max-transactions 50\n") != NULL);
        free(t);
        char *j = report(UB_REPORT_JSON, all, &ri);
        CHECK(strstr(j, "\"result\":\"incomplete\",\"exit_status\":3") != NULL);
        CHECK(strstr(j, "\"evictions\":{\"total\":34,\"links\":0,\"channels\":0,\"transactions\":34,\"management\":0,"
                        "\"tp_pairs\":0,\"requesters\":0,\"ta_channels\":0,\"hops\":0}") != NULL);
        free(j);
        char *s = report(UB_REPORT_SARIF, all, &ri);
        CHECK(strstr(s, "\"exitCode\": 3,\n    \"toolExecutionNotifications\": [{\"level\": \"error\", \"message\": {\"text\": "
                        "\"INCOMPLETE: 34 transactions evicted") != NULL);
        CHECK(strstr(s, "\"result\": \"incomplete\", \"evictions\": {\"total\": 34,") != NULL);
        free(s);
        char *x = report(UB_REPORT_JUNIT, all, &ri);
        CHECK(strstr(x, "failures=\"0\" errors=\"1\"") != NULL);
        CHECK(strstr(x, "<property name=\"result\" value=\"INCOMPLETE\"/>") != NULL);
        CHECK(strstr(x, "<property name=\"evicted\" value=\"34\"/>") != NULL);
        CHECK(strstr(x, "<error message=\"INCOMPLETE: 34 transactions evicted") != NULL);
        free(x);
        /* --fail-on never and allow_incomplete: PASS (exit 0); findings at the fail level: FAIL wins */
        ri.fail_on = UB_FAIL_NEVER;
        CHECK_EQ(ub_report_result(all, &ri), UB_RESULT_PASS);
        ri.fail_on = UB_SEV_ERROR;
        ri.allow_incomplete = true;
        CHECK_EQ(ub_report_result(all, &ri), UB_RESULT_PASS);
        t = report(UB_REPORT_TEXT, all, &ri);
        CHECK(strstr(t, "result: PASS, no finding at or above 'error'; INCOMPLETE accepted") != NULL);
        free(t);
        ri.allow_incomplete = false;
        ub_collect *more = ub_collect_new(NULL, 5);
        ub_collect_merge(more, all);
        ub_finding f;
        memset(&f, 0, sizeof f);
        f.rule = (uint16_t)rule_idx("UB-TA-001");
        f.severity = UB_SEV_ERROR;
        f.frame = 1;
        ub_collect_add(more, &f, 1, 0, 0);
        CHECK_EQ(ub_report_result(more, &ri), UB_RESULT_FAIL);
        CHECK_EQ(ub_result_exit(UB_RESULT_FAIL), 1);
        t = report(UB_REPORT_TEXT, more, &ri);
        CHECK(strstr(t, "result: FAIL, 1 finding at or above 'error' (--fail-on error)\nalso INCOMPLETE: 34 transactions") != NULL);
        free(t);
        ri.status = 2; /* a read error: the stated exit status */
        j = report(UB_REPORT_JSON, more, &ri);
        CHECK(strstr(j, "\"result\":\"fail\",\"exit_status\":2") != NULL);
        free(j);
        ub_collect_free(more);
        CHECK_EQ(ub_result_exit(UB_RESULT_PASS), 0);
        session_end(&fd);
    }
}

/* ================================================================ units */
typedef struct {
    unsigned n;
    uint32_t ifx[16], len[16];
    unsigned flags[16];
    uint8_t data[16][512];
} unitlog;

static void log_unit(void *ctx, const ub_rec *r, const uint8_t *u, uint32_t len, ub_entry e, unsigned fl)
{
    unitlog *L = ctx;
    CHECK_EQ(e, UB_ENTRY_FLIT);
    if (L->n >= 16 || len > 512) return;
    L->ifx[L->n] = r->ifindex;
    L->len[L->n] = len;
    L->flags[L->n] = fl;
    memcpy(L->data[L->n], u, len);
    L->n++;
}

static void t_units(void)
{
    ub_opts o;
    ub_opts_default(&o);
    uint8_t a[512], b[512];
    char err[200];
    ub_entry e;
    /* two DLLDPs (6 flits each): a Write and a TAACK */
    long na = ub_build_text("flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\n"
                            "maetah_c address=0x1000 tokenid=0x12345 length=0\npayload inc=64\n", &o, a, sizeof a, &e, err, sizeof err);
    long nb = ub_build_text("flit\nlph vl=0\nnth16 scna=0x0304 dcna=0x0102\nbtah_c taopcode=Write ee_bits=1 ini_tassn=7\n"
                            "maetah_c address=0x2000 tokenid=0x12345 length=0\npayload inc=64\n", &o, b, sizeof b, &e, err, sizeof err);
    CHECK(na >= 80 && nb >= 80 && na % 20 == 0 && nb % 20 == 0);
    /* interfaces 0, 32 and 1000, same direction, interleaved: each keeps its own stream */
    ub_units *u = ub_units_new(&o, 0);
    unitlog L;
    memset(&L, 0, sizeof L);
    uint32_t ifs[3] = { 0, 32, 1000 };
    const uint8_t *src[3] = { a, b, a };
    long len[3] = { na, nb, na };
    uint64_t frame = 0;
    for (int half = 0; half < 2; half++)
        for (int k = 0; k < 3; k++) {
            uint32_t cut = 40;
            const uint8_t *p = half ? src[k] + cut : src[k];
            uint32_t n = half ? (uint32_t)len[k] - cut : cut;
            frame++;
            ub_rec r = { p, n, n, 1000 * frame, 149, ifs[k], UB_DIR_OUT, frame, 0 };
            CHECK_EQ(ub_units_record(u, &r, log_unit, &L), half);
        }
    CHECK_EQ(ub_units_streams(u), 3);
    CHECK_EQ(L.n, 3);
    for (unsigned k = 0; k < 3 && k < L.n; k++) {
        CHECK_EQ(L.ifx[k], ifs[k]);
        CHECK_EQ(L.len[k], len[k]);
        CHECK(memcmp(L.data[k], src[k], (size_t)len[k]) == 0);
        CHECK_EQ(L.flags[k] & UB_UNIT_PARTIAL, 0);
    }
    CHECK_EQ(ub_units_flush(u, log_unit, &L), 0);
    CHECK_EQ(ub_units_evicted(u), 0);
    ub_units_free(u);
    /* directions are apart too; a non-stream record is one unit */
    u = ub_units_new(&o, 0);
    memset(&L, 0, sizeof L);
    ub_rec r1 = { a, 40, 40, 1, 149, 5, UB_DIR_OUT, 1, 0 };
    ub_rec r2 = { b, 40, 40, 2, 149, 5, UB_DIR_IN, 2, 0 };
    ub_rec r3 = { a + 40, (uint32_t)na - 40, (uint32_t)na - 40, 3, 149, 5, UB_DIR_OUT, 3, 0 };
    ub_rec r4 = { b, (uint32_t)nb, (uint32_t)nb, 4, 147, 5, UB_DIR_IN, 4, 0 };
    ub_units_record(u, &r1, log_unit, &L);
    ub_units_record(u, &r2, log_unit, &L);
    CHECK_EQ(ub_units_record(u, &r3, log_unit, &L), 1);
    CHECK_EQ(L.n, 1);
    CHECK(L.len[0] == (uint32_t)na && memcmp(L.data[0], a, (size_t)na) == 0);
    CHECK_EQ(ub_units_record(u, &r4, log_unit, &L), 1); /* LINKTYPE_USER0: the record itself */
    CHECK_EQ(L.len[1], nb);
    /* end of input: the inbound stream's 2 flits are a partial unit */
    CHECK_EQ(ub_units_flush(u, log_unit, &L), 1);
    CHECK(L.n == 3 && L.len[2] == 40 && (L.flags[2] & UB_UNIT_PARTIAL));
    ub_units_free(u);
    /* bounded: 2 streams at most; a third interface flushes the least recently used one */
    u = ub_units_new(&o, 2);
    memset(&L, 0, sizeof L);
    for (uint32_t k = 0; k < 3; k++) {
        ub_rec r = { a, 40, 40, k, 149, k, UB_DIR_OUT, k + 1, 0 };
        ub_units_record(u, &r, log_unit, &L);
    }
    CHECK_EQ(ub_units_streams(u), 2);
    CHECK_EQ(ub_units_evicted(u), 1);
    CHECK(L.n == 1 && (L.flags[0] & UB_UNIT_PARTIAL) && L.len[0] == 40);
    ub_units_free(u);
}

/* ================================================================ options */
static void t_opts(void)
{
    ub_opts o, d;
    ub_opts_default(&o);
    ub_opts_default(&d);
    char err[200];
    CHECK_EQ(ub_opts_set(&o, "dlt.flit=150", err, sizeof err), 0);
    CHECK_EQ(o.dlt_flit, 150);
    CHECK_EQ(ub_opts_set(&o, "dlt.flit:151", err, sizeof err), 0); /* tshark's form */
    CHECK_EQ(o.dlt_flit, 151);
    CHECK_EQ(ub_opts_set(&o, "udp.port=0x12b8", err, sizeof err), 0);
    CHECK_EQ(o.udp_port, 4792);
    CHECK_EQ(ub_opts_set(&o, "dlt.stream:65535", err, sizeof err), 0);
    CHECK_EQ(o.dlt_stream, 65535);
    CHECK_EQ(ub_opts_set(&o, "crc_mode:noncrc", err, sizeof err), 0);
    CHECK(!o.crc_mode);
    CHECK_EQ(ub_opts_set(&o, "crc_mode=crc", err, sizeof err), 0);
    CHECK(o.crc_mode);
    CHECK_EQ(ub_opts_set(&o, "tah_fmt.6=full", err, sizeof err), 0);
    CHECK_EQ(o.tah_fmt[6], UB_TAH_FULL);
    CHECK_EQ(ub_opts_set(&o, "tah_fmt.7:compact", err, sizeof err), 0);
    CHECK_EQ(o.tah_fmt[7], UB_TAH_COMPACT);
    CHECK_EQ(ub_opts_set(&o, "read_ext4=2", err, sizeof err), 0);
    CHECK_EQ(o.read_ext4, 2);
    CHECK_EQ(ub_opts_set(&o, "urpc=1", err, sizeof err), 0);
    CHECK(o.urpc_heuristic);
    ub_opts keep = o;
    /* rejected, and the options stay as they were */
    const char *bad[] = { "dlt.flit=4294967443", "dlt.flit=99999999999", "dlt.flit=-1", "dlt.flit=12x", "dlt.flit=",
                          "dlt.flit=65536", "dlt.flit= 1", "dlt.flit=0x", "read_ext4=3", "bcrc_variant:2", "icrc_enum=3",
                          "crc_mode=yes", "tah_fmt.6=half", "tah_fmt.5=full", "nosuch=1", "dlt.flit", "", "=1" };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = 0;
        CHECK_EQ(ub_opts_set(&o, bad[k], err, sizeof err), -1);
        CHECK(err[0] != 0);
        CHECK(memcmp(&o, &keep, sizeof o) == 0);
    }
    ub_opts_set(&o, "dlt.flit=4294967443", err, sizeof err);
    CHECK_STR(err, "dlt.flit: 4294967443 is out of range (0..65535)");
    ub_opts_set(&o, "dlt.flit=12x", err, sizeof err);
    CHECK_STR(err, "dlt.flit: '12x' is not a number (decimal or 0x-hex)");
    ub_opts_set(&o, "ip.defragment:maybe", err, sizeof err); /* a switch: tshark's TRUE / FALSE, or 0 / 1 */
    CHECK_STR(err, "ip.defragment: 'maybe' is not 0, 1, TRUE or FALSE");
    ub_opts_set(&o, "ip.defragment=2", err, sizeof err);
    CHECK_STR(err, "ip.defragment: 2 is out of range (0..1)");
    ub_opts_set(&o, "nosuch:1", err, sizeof err);
    CHECK_STR(err, "unknown option 'nosuch'");
    CHECK_EQ(ub_opts_set(&o, "x=1", NULL, 0), -1); /* no error buffer: fine */
    /* help lists every option */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ub_opts_help(f);
    fclose(f);
    const char *names[] = { "dlt.flit=N", "udp.port=N", "crc_mode=crc|noncrc", "tah_fmt.<cfg>", "icrc_enum=0|1|2", "urpc=0|1" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) CHECK(strstr(buf, names[k]) != NULL);
    free(buf);
    (void)d;
}

static void t_names(void)
{
    ub_report_fmt fmt = UB_REPORT_TEXT;
    CHECK(ub_report_fmt_parse("sarif", &fmt) == 0 && fmt == UB_REPORT_SARIF);
    CHECK(ub_report_fmt_parse("junit", &fmt) == 0 && fmt == UB_REPORT_JUNIT);
    CHECK_EQ(ub_report_fmt_parse("xml", &fmt), -1);
    CHECK_EQ(fmt, UB_REPORT_JUNIT);
    int fo = 0;
    CHECK(ub_fail_on_parse("never", &fo) == 0 && fo == UB_FAIL_NEVER);
    CHECK(ub_fail_on_parse("warning", &fo) == 0 && fo == UB_SEV_WARN);
    CHECK_EQ(ub_fail_on_parse("note", &fo), -1);
    unsigned m = 0;
    CHECK(ub_stats_parse("ub,latency", &m) == 0 && ub_stats_parse("ub,cfg", &m) == 0);
    CHECK_EQ(m, UB_STATS_SRT | UB_STATS_TREE);
    CHECK(ub_stats_parse("ub,srt", &m) == 0); /* tshark's SRT table (srt_ws.c) */
    CHECK_EQ(m, UB_STATS_SRT | UB_STATS_TREE | UB_STATS_SRT_WS);
    CHECK_EQ(ub_stats_parse("ub,nope", &m), -1);
    m = 0; /* tshark's names are ubdump's own tables now (-z ub,tree: sttree.c; conv,ub_tp: the plugin's TP table) */
    CHECK(ub_stats_parse("ub,tree", &m) == -1 && ub_stats_parse("conv,ub_tp", &m) == -1);
    CHECK_EQ(m, 0);
}

/* ================================================================ ub_audit_unit (issue #11 item 3) */
static void feed_raw(void *ctx, const ub_rec *r, const uint8_t *u, uint32_t len, ub_entry e, unsigned fl)
{
    feeder *fd = ctx;
    ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
    CHECK_EQ(ub_audit_unit(fd->a, e, u, len, len, fl, &pi), 0);
    fd->units++;
}

/* the JSON report of one capture: decoded here and fed as views (jobs 1, raw 0), or fed undecoded */
static char *unit_report(const char *name, unsigned jobs, bool raw, ub_unit_counts *uc)
{
    feeder fd;
    ub_audit_cfg c;
    ub_audit_cfg_default(&c);
    c.jobs = jobs;
    c.stats = UB_STATS_TP | UB_STATS_SRT;
    session(&fd, &c);
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, name);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    CHECK(cf != NULL);
    if (!cf) return NULL;
    ub_units *u = ub_units_new(&fd.o, 0);
    ub_rec r;
    uint64_t n = 0;
    while (ub_cap_next(cf, &r) == 1) {
        n++;
        ub_units_record(u, &r, raw ? feed_raw : feed_unit, &fd);
    }
    ub_units_flush(u, raw ? feed_raw : feed_unit, &fd);
    ub_units_free(u);
    ub_cap_close(cf);
    ub_audit_set_records(fd.a, n);
    CHECK_EQ(ub_audit_finish(fd.a), 0);
    ub_audit_unit_counts(fd.a, uc);
    if (raw) CHECK_EQ(uc->units, fd.units);
    ub_state_stats st;
    ub_audit_state_stats(fd.a, &st);
    ub_report_info ri;
    memset(&ri, 0, sizeof ri);
    ri.tool = "ubtest";
    ri.records = n;
    ri.packets = fd.units;
    ri.fail_on = UB_SEV_ERROR;
    ri.state = &st;
    char *x = report(UB_REPORT_JSON, ub_audit_findings(fd.a), &ri);
    session_end(&fd);
    return x;
}

static void t_audit_unit(void)
{
    static const struct {
        const char *cap;
        uint64_t ub, other, ib, sue;
    } caps[] = { { "audit_rtp_lossy.pcapng", 22, 0, 0, 0 }, { "audit_responder.pcapng", 0, 0, 0, 0 }, { "sue_std.pcapng", 0, 13, 1, 12 } };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        ub_unit_counts ref;
        char *want = unit_report(caps[i].cap, 1, false, &ref);
        CHECK(want && strstr(want, "\"totals\"") != NULL);
        CHECK_EQ(ref.units, 0); /* views fed: nothing counted */
        for (unsigned jobs = 1; jobs <= 4; jobs++) {
            ub_unit_counts uc;
            char *got = unit_report(caps[i].cap, jobs, true, &uc);
            CHECK(got && want && strcmp(got, want) == 0);
            CHECK_EQ(uc.ub + uc.other, uc.units);
            if (caps[i].ub || caps[i].other) {
                CHECK_EQ(uc.ub, caps[i].ub);
                CHECK_EQ(uc.other, caps[i].other);
                CHECK_EQ(uc.ib, caps[i].ib);
                CHECK_EQ(uc.sue, caps[i].sue);
            }
            free(got);
        }
        free(want);
    }
}

int main(void)
{
    t_audit_unit();
    t_names();
    t_ruleset();
    t_collect();
    t_hooks();
    t_external();
    t_incomplete();
    t_units();
    t_opts();
    return ub_test_finish();
}
