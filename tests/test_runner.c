/* Scenario runner (runner.h) over the in-memory loopback with a virtual clock: every time below is
 * exact (no wall clock). A small responder in this file answers UBoE Writes with TAACKs and Reads
 * with Read_responses; its delay and faults are set per test. Checks: latencies, expectation
 * outcomes (ok / mismatch / late / early / no answer / unexpected), the findings and their scenario
 * lines, faults on sends, deadlines and lateness, the time-ordered combined capture, text scenarios
 * (parse errors at the right line, variables, repeat, captures) and the dry-run transport. */
#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/runner.h"
#include "ubtest.h"

#include <stdlib.h>
#include <unistd.h>

static ub_opts O;

/* ---------------------------------------------------------------- responder */
static struct {
    uint64_t delay;      /* answer after this */
    int wrong_tassn;     /* answer with TASSN + 1 */
    int silent;          /* no answers */
    int wrong_op;        /* Read answered with a TAACK */
    unsigned seen, bad_icrc;
    uint64_t t[64];      /* send times seen */
    uint64_t psn[64];
} R;

static ub_view RV;

static void respond(void *ctx, ub_loop *lp, const uint8_t *d, uint32_t len, uint64_t t)
{
    (void)ctx;
    ub_decode(&RV, &O, UB_ENTRY_ETH, d, len);
    if (R.seen < 64) {
        R.t[R.seen] = t;
        uint64_t psn = 0;
        ub_view_get(&RV, "ub.rtph.psn", &psn);
        R.psn[R.seen] = psn;
    }
    R.seen++;
    uint64_t st;
    if (ub_view_get(&RV, "ub.icrc.status", &st) == 0 && st == UB_CK_BAD) { R.bad_icrc++; return; }
    uint64_t op, tassn, psn;
    if (R.silent || ub_view_get(&RV, "ub.btah.taopcode", &op) < 0 || ub_view_get(&RV, "ub.btah.ini_tassn", &tassn) < 0) return;
    ub_view_get(&RV, "ub.rtph.psn", &psn);
    char txt[1024];
    const char *kind = op == 0x6 && !R.wrong_op ? "Read_response" : "TAACK";
    snprintf(txt, sizeof txt,
             "eth\neth dst=02:00:00:00:00:01 src=02:00:00:00:00:02\nipv4 src=10.0.0.2 dst=10.0.0.1\nudp srcport=50000\n"
             "rtph last=1 srctpn=0x200 dsttpn=0x100 psn=%llu tpmsn=1\natah taopcode=%s ini_tassn=%llu ini_rc_id=0x10\n%s",
             (unsigned long long)(psn + 1000), kind, (unsigned long long)(tassn + (R.wrong_tassn ? 1 : 0)),
             strcmp(kind, "Read_response") == 0 ? "payload inc=16\n" : "");
    uint8_t out[2048];
    ub_entry e;
    char err[200];
    long n = ub_build_text(txt, &O, out, sizeof out, &e, err, sizeof err);
    if (n < 0) { fprintf(stderr, "responder: %s\n", err); abort(); }
    ub_loop_inject(lp, out, (uint32_t)n, t + R.delay);
}

static void reset(void) { memset(&R, 0, sizeof R); R.delay = 1000000; }

static long req(uint8_t *out, const char *op, unsigned tassn, unsigned psn)
{
    char txt[1024];
    snprintf(txt, sizeof txt,
             "eth\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp srcport=50000\n"
             "rtph last=1 srctpn=0x100 dsttpn=0x200 psn=%u tpmsn=1\nbtah taopcode=%s ini_tassn=%u ini_rc_id=0x10\n"
             "maetah address=0x1000 tokenid=0x5 length=16\n%s",
             psn, op, tassn, strcmp(op, "Write") == 0 ? "payload inc=16\n" : "");
    ub_entry e;
    char err[200];
    long n = ub_build_text(txt, &O, out, 2048, &e, err, sizeof err);
    if (n < 0) { fprintf(stderr, "%s\n", err); abort(); }
    return n;
}

/* ---------------------------------------------------------------- fixture */
typedef struct fx {
    ub_loop *lp;
    ub_ruleset *rs;
    ub_audit *au;
    ub_runner *r;
    ub_capw *save;
} fx;

static void fx_open(fx *f, const char *save_path, unsigned layers)
{
    char err[256];
    memset(f, 0, sizeof *f);
    f->lp = ub_loop_new(UB_ENTRY_ETH, 0, respond, NULL);
    f->rs = ub_ruleset_new();
    if (ub_runner_add_rules(f->rs, err, sizeof err) < 0) { fprintf(stderr, "%s\n", err); abort(); }
    ub_audit_cfg ac;
    ub_audit_cfg_default(&ac);
    ac.opts = &O;
    ac.rules = f->rs;
    ac.state.layers = layers;
    f->au = ub_audit_new(&ac, err, sizeof err);
    ub_runner_cfg c;
    ub_runner_cfg_default(&c);
    c.opts = &O;
    c.audit = f->au;
    c.rules = f->rs;
    c.src_uri = "t.ubs";
    if (save_path) {
        f->save = ub_capw_open(save_path, true, ub_loop_xport(f->lp)->linktype, err, sizeof err);
        c.save = f->save;
    }
    f->r = ub_runner_new(&c, ub_loop_xport(f->lp), err, sizeof err);
    if (!f->au || !f->r) { fprintf(stderr, "%s\n", err); abort(); }
}

/* findings of a rule after the run */
static uint64_t fx_count(fx *f, const char *id, uint32_t *line)
{
    const ub_rule *ru = ub_ruleset_find(f->rs, id);
    const ub_collect *c = ub_audit_findings(f->au);
    unsigned n = 0;
    const ub_finding *ex = ub_collect_examples(c, ru->idx, &n);
    if (line) *line = n ? ex[0].src_line : 0;
    return ub_collect_rule_total(c, ru->idx);
}

static void fx_finish(fx *f)
{
    CHECK_EQ(ub_runner_finish(f->r, 0), 0);
    ub_audit_finish(f->au);
}

static void fx_close(fx *f)
{
    ub_runner_free(f->r);
    if (f->save) ub_capw_close(f->save);
    ub_audit_free(f->au);
    ub_ruleset_free(f->rs);
    ub_loop_free(f->lp);
}

/* ---------------------------------------------------------------- tests */
static void test_expect_outcomes(void)
{
    uint8_t p[2048];
    fx f;
    ub_got g;
    /* ok: latency exactly the responder's delay */
    reset();
    fx_open(&f, NULL, 0);
    long n = req(p, "Write", 1, 1);
    CHECK_EQ(ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL), 0);
    ub_expect e = { .filter = "ub.atah.taopcode == \"TAACK\" && ub.atah.ini_tassn == 1", .within_ns = 5000000,
                    .tol_abs_ns = -1, .tol_pct = -1, .src_line = 10 };
    CHECK_EQ(ub_runner_expect(f.r, &e, &g), UB_EXP_OK);
    CHECK_EQ(g.latency_ns, 1000000);
    CHECK(g.view != NULL);
    uint64_t v = 0;
    CHECK(ub_view_get(g.view, "ub.rtph.psn", &v) == 0 && v == 1001);
    /* the answer was consumed: a second identical expect times out (no answer left) */
    e.src_line = 11;
    CHECK_EQ(ub_runner_expect(f.r, &e, &g), UB_EXP_TIMEOUT);
    /* late: 8 ms against 5 ms + 1 ms tolerance */
    R.delay = 8000000;
    n = req(p, "Write", 2, 2);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    e.filter = "ub.atah.ini_tassn == 2";
    e.src_line = 12;
    CHECK_EQ(ub_runner_expect(f.r, &e, &g), UB_EXP_LATE);
    CHECK_EQ(g.latency_ns, 8000000);
    /* within tolerance: 5.5 ms with tol 1 ms is fine; percentage tolerance: 5.8 ms with 20 % of 5 ms */
    R.delay = 5500000;
    n = req(p, "Write", 3, 3);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    e.filter = "ub.atah.ini_tassn == 3";
    CHECK_EQ(ub_runner_expect(f.r, &e, &g), UB_EXP_OK);
    R.delay = 5800000;
    n = req(p, "Write", 4, 4);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    e.filter = "ub.atah.ini_tassn == 4";
    e.tol_abs_ns = 0;
    e.tol_pct = 20;
    CHECK_EQ(ub_runner_expect(f.r, &e, &g), UB_EXP_OK);
    e.tol_abs_ns = -1;
    e.tol_pct = -1;
    /* mismatch: an answer came, with another TASSN */
    R.delay = 1000000;
    R.wrong_tassn = 1;
    n = req(p, "Write", 5, 5);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    e.filter = "ub.atah.ini_tassn == 5";
    e.src_line = 14;
    CHECK_EQ(ub_runner_expect(f.r, &e, &g), UB_EXP_MISMATCH);
    CHECK(g.view && ub_view_get(g.view, "ub.atah.ini_tassn", &v) == 0 && v == 6);
    R.wrong_tassn = 0;
    /* at-mode: expected at 3 ms +- 1 ms, came at 1 ms: early */
    n = req(p, "Write", 7, 7);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    ub_expect ea = { .filter = "ub.atah.ini_tassn == 7", .at_ns = 3000000, .tol_abs_ns = -1, .tol_pct = -1, .src_line = 15 };
    CHECK_EQ(ub_runner_expect(f.r, &ea, &g), UB_EXP_EARLY);
    /* expect-none: a TAACK comes although none may */
    n = req(p, "Write", 8, 8);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    ub_expect en = { .filter = "ub.atah", .within_ns = 2000000, .tol_abs_ns = 0, .tol_pct = -1, .none = true, .src_line = 16 };
    CHECK_EQ(ub_runner_expect(f.r, &en, &g), UB_EXP_UNEXPECTED);
    /* ... and passes when nothing comes */
    R.silent = 1;
    n = req(p, "Write", 9, 9);
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    CHECK_EQ(ub_runner_expect(f.r, &en, &g), UB_EXP_OK);
    /* a bad filter is an error, not a finding */
    ub_expect eb = { .filter = "ub.atah.nope == 1", .tol_abs_ns = -1, .tol_pct = -1 };
    CHECK_EQ(ub_runner_expect(f.r, &eb, &g), UB_EXP_ERROR);
    CHECK(strstr(ub_runner_error(f.r), "nope") != NULL);
    fx_finish(&f);
    uint32_t line;
    CHECK_EQ(fx_count(&f, UB_SC_NOANSWER, &line), 1);
    CHECK_EQ(line, 11);
    CHECK_EQ(fx_count(&f, UB_SC_TIMING, &line), 2); /* late (12) and early (15) */
    CHECK_EQ(line, 12);
    CHECK_EQ(fx_count(&f, UB_SC_MISMATCH, &line), 1);
    CHECK_EQ(line, 14);
    CHECK_EQ(fx_count(&f, UB_SC_UNEXPECTED, &line), 1);
    CHECK_EQ(line, 16);
    /* the finding carries expected and actual */
    const ub_rule *ru = ub_ruleset_find(f.rs, UB_SC_MISMATCH);
    unsigned k;
    const ub_finding *fd = ub_collect_examples(ub_audit_findings(f.au), ru->idx, &k);
    CHECK(k == 1 && fd[0].message && strstr(fd[0].message, "ub.atah.ini_tassn == 5") && strstr(fd[0].message, "TAACK"));
    CHECK(k == 1 && fd[0].src_uri && strcmp(fd[0].src_uri, "t.ubs") == 0);
    CHECK(k == 1 && fd[0].nframes == 2); /* the request and the answer */
    ub_runner_stats st;
    ub_runner_get_stats(f.r, &st);
    CHECK_EQ(st.expects, 10);
    CHECK_EQ(st.expect_ok, 4);
    CHECK_EQ(st.sent, 8);
    fx_close(&f);
}

static void test_faults(void)
{
    uint8_t a[2048], b[2048];
    fx f;
    reset();
    R.silent = 1;
    fx_open(&f, NULL, 0);
    long na = req(a, "Write", 1, 1), nb = req(b, "Write", 2, 2);
    ub_send_opt o = { .fault = UB_FAULT_DROP };
    CHECK_EQ(ub_runner_send(f.r, a, (uint32_t)na, UB_ENTRY_ETH, &o), 0);
    ub_runner_flush(f.r);
    CHECK_EQ(R.seen, 0);
    o.fault = UB_FAULT_DUP;
    ub_runner_send(f.r, a, (uint32_t)na, UB_ENTRY_ETH, &o);
    ub_runner_flush(f.r);
    CHECK_EQ(R.seen, 2);
    /* reorder: A held until B went */
    o.fault = UB_FAULT_REORDER;
    ub_runner_send(f.r, a, (uint32_t)na, UB_ENTRY_ETH, &o);
    ub_runner_send(f.r, b, (uint32_t)nb, UB_ENTRY_ETH, NULL);
    ub_runner_flush(f.r);
    CHECK_EQ(R.seen, 4);
    CHECK_EQ(R.psn[2], 2);
    CHECK_EQ(R.psn[3], 1);
    /* corrupt a payload byte: the responder sees a bad ICRC */
    o.fault = UB_FAULT_CORRUPT;
    o.corrupt_off = (uint32_t)na - 8;
    o.corrupt_xor = 0x01;
    ub_runner_send(f.r, a, (uint32_t)na, UB_ENTRY_ETH, &o);
    ub_runner_flush(f.r);
    CHECK_EQ(R.bad_icrc, 1);
    ub_runner_stats st;
    ub_runner_get_stats(f.r, &st);
    CHECK_EQ(st.dropped, 1);
    CHECK_EQ(st.duplicated, 1);
    CHECK_EQ(st.reordered, 1);
    CHECK_EQ(st.corrupted, 1);
    CHECK_EQ(st.sent, 5);
    /* a held packet goes out when the scenario waits */
    o.fault = UB_FAULT_REORDER;
    ub_runner_send(f.r, a, (uint32_t)na, UB_ENTRY_ETH, &o);
    ub_runner_sleep(f.r, 1000);
    CHECK_EQ(R.seen, 6);
    fx_finish(&f);
    fx_close(&f);
}

static void test_deadlines(void)
{
    uint8_t p[2048];
    fx f;
    reset();
    R.silent = 1;
    fx_open(&f, NULL, 0);
    long n = req(p, "Write", 1, 1);
    uint64_t t0 = ub_runner_now(f.r);
    /* on schedule: every packet leaves exactly at its deadline */
    for (unsigned i = 0; i < 10; i++) {
        ub_send_opt o = { .at = t0 + 100000 + i * 2000 };
        CHECK_EQ(ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, &o), 0);
    }
    ub_runner_flush(f.r);
    for (unsigned i = 0; i < 10; i++) CHECK_EQ(R.t[i], t0 + 100000 + i * 2000);
    ub_runner_stats st;
    ub_runner_get_stats(f.r, &st);
    CHECK_EQ(st.late_packets, 0);
    CHECK_EQ(st.lateness.count, 10);
    CHECK_EQ(st.lateness.max, 0);
    fx_close(&f);

    /* a send call costs 5 us: every packet 5 us late; a behind schedule packet is batched */
    reset();
    R.silent = 1;
    fx_open(&f, NULL, 0);
    ub_loop_set_cost(f.lp, 5000, 0);
    t0 = ub_runner_now(f.r);
    for (unsigned i = 0; i < 10; i++) {
        ub_send_opt o = { .at = t0 + 100000 + i * 10000 };
        ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, &o);
    }
    ub_runner_flush(f.r);
    ub_runner_get_stats(f.r, &st);
    CHECK_EQ(st.late_packets, 10);
    CHECK_EQ(ub_lathist_quantile(&st.lateness, 0.5), 5000);
    CHECK_EQ(st.lateness.max, 5000);
    CHECK_EQ(st.send_calls, 10);
    fx_close(&f);

    /* deadlines in the past (behind schedule) are batched: 200 packets in 4 calls of 64 */
    reset();
    R.silent = 1;
    fx_open(&f, NULL, 0);
    for (unsigned i = 0; i < 200; i++) ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    ub_runner_flush(f.r);
    ub_runner_get_stats(f.r, &st);
    CHECK_EQ(st.sent, 200);
    CHECK_EQ(st.send_calls, 4);
    fx_close(&f);

    /* failed sends are counted and reported (UB-SC-006) */
    reset();
    R.silent = 1;
    fx_open(&f, NULL, 0);
    ub_loop_set_fail(f.lp, 3, 0);
    for (unsigned i = 0; i < 9; i++) ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL);
    fx_finish(&f);
    ub_runner_get_stats(f.r, &st);
    CHECK_EQ(st.sent, 6);
    CHECK_EQ(st.failed, 3);
    CHECK_EQ(fx_count(&f, UB_SC_SENDFAIL, NULL), 1);
    fx_close(&f);

    /* safety cap on packets */
    reset();
    R.silent = 1;
    memset(&f, 0, sizeof f);
    f.lp = ub_loop_new(UB_ENTRY_ETH, 0, respond, NULL);
    ub_runner_cfg c;
    ub_runner_cfg_default(&c);
    c.max_packets = 5;
    char err[200];
    f.r = ub_runner_new(&c, ub_loop_xport(f.lp), err, sizeof err);
    int rc = 0;
    unsigned k = 0;
    while (k < 100 && (rc = ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, NULL)) == 0) k++;
    CHECK_EQ(rc, 1);
    CHECK_EQ(k, 5);
    ub_runner_finish(f.r, 0);
    ub_runner_get_stats(f.r, &st);
    CHECK(st.capped);
    CHECK_EQ(st.sent, 5);
    ub_runner_free(f.r);
    ub_loop_free(f.lp);
}

static void test_merge_capture(void)
{
    char path[] = "/tmp/ub_runner_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    uint8_t p[2048];
    fx f;
    reset();
    R.delay = 300000; /* 0.3 ms */
    fx_open(&f, path, UB_ST_ALL);
    uint64_t t0 = ub_runner_now(f.r);
    long n = req(p, "Write", 1, 1);
    ub_send_opt o = { .at = t0 + 1000000 };
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, &o);     /* 1 ms, answer at 1.3 ms */
    n = req(p, "Read", 2, 2);
    o.at = t0 + 1200000;
    ub_runner_send(f.r, p, (uint32_t)n, UB_ENTRY_ETH, &o);     /* 1.2 ms, answer at 1.5 ms */
    ub_runner_sleep(f.r, 2000000);
    fx_finish(&f);
    fx_close(&f);
    /* the capture: out 1.0, out 1.2, in 1.3, in 1.5 -- in time order, with directions */
    char err[200];
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    CHECK(cf != NULL);
    ub_rec rec;
    const uint8_t dirs[4] = { UB_DIR_OUT, UB_DIR_OUT, UB_DIR_IN, UB_DIR_IN };
    const uint64_t ts[4] = { 1000000, 1200000, 1300000, 1500000 };
    unsigned i = 0;
    uint64_t base = 0;
    while (cf && ub_cap_next(cf, &rec) == 1) {
        if (i == 0) base = rec.ts_ns - ts[0];
        if (i < 4) {
            CHECK_EQ(rec.dir, dirs[i]);
            CHECK_EQ(rec.ts_ns - base, ts[i]);
        }
        i++;
    }
    CHECK_EQ(i, 4);
    if (cf) ub_cap_close(cf);
    unlink(path);
}

/* ---------------------------------------------------------------- text scenarios */
static const char *SC_OK =
    "# write, read back, use the TASSN the peer echoed\n"
    "@scenario entry=eth within=5ms tol=1ms\n"
    "@set t=5\n"
    "@send\n"
    "eth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\n"
    "ipv4 src=10.0.0.1 dst=10.0.0.2\n"
    "udp srcport=50000\n"
    "rtph last=1 srctpn=0x100 dsttpn=0x200 psn=${t*2} tpmsn=1\n"
    "btah taopcode=Read ini_tassn=${t} ini_rc_id=0x10\n"
    "maetah address=0x1000 tokenid=0x5 length=16\n"
    "@expect ub.atah.taopcode == \"Read_response\" && ub.atah.ini_tassn == ${t} capture got=ub.atah.ini_tassn p=ub.rtph.psn\n"
    "@check got == 5 && p == 1010 -- echoed TASSN and PSN\n"
    "@repeat 3 i\n"
    "@send\n"
    "eth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\n"
    "ipv4 src=10.0.0.1 dst=10.0.0.2\n"
    "udp srcport=50000\n"
    "rtph last=1 srctpn=0x100 dsttpn=0x200 psn=${p+i} tpmsn=1\n"
    "btah taopcode=Write ini_tassn=${got+1+i} ini_rc_id=0x10\n"
    "maetah address=0x1000 tokenid=0x5 length=16\n"
    "payload inc=16\n"
    "@expect ub.atah.taopcode == \"TAACK\" && ub.atah.ini_tassn == ${got+1+i} within=2ms\n"
    "@end\n"
    "@wait 1ms\n"
    "@log done ${got}\n";

static int run_text(const char *text, unsigned layers, fx *f, char *err, size_t errlen)
{
    fx_open(f, NULL, layers);
    ub_scenario *s = ub_scenario_parse(text, "t.ubs", &O, err, errlen);
    if (!s) return -1;
    int rc = ub_scenario_run(s, f->r, NULL, err, errlen);
    fx_finish(f);
    ub_scenario_free(s);
    return rc;
}

static void test_scenarios(void)
{
    char err[512];
    fx f;
    reset();
    CHECK_EQ(run_text(SC_OK, 0, &f, err, sizeof err), 0);
    CHECK_EQ(R.seen, 4);
    CHECK_EQ(R.psn[1], 1010); /* ${p+i} with p captured from the answer */
    CHECK_EQ(R.psn[3], 1012);
    fx_close(&f);
    /* the responder answers the Read with a TAACK: the first expectation (line 11) fails, the run stops */
    reset();
    R.wrong_op = 1;
    CHECK_EQ(run_text(SC_OK, 0, &f, err, sizeof err), 1);
    uint32_t line;
    CHECK_EQ(fx_count(&f, UB_SC_MISMATCH, &line), 1);
    CHECK_EQ(line, 11);
    CHECK_EQ(R.seen, 1);
    fx_close(&f);
    /* answers 3 ms late: the Read (window 5 ms) passes, the Writes (2 ms + 1 ms) fail on timing at line 22 */
    reset();
    R.delay = 3500000;
    CHECK_EQ(run_text(SC_OK, 0, &f, err, sizeof err), 1);
    CHECK_EQ(fx_count(&f, UB_SC_TIMING, &line), 1);
    CHECK_EQ(line, 22);
    fx_close(&f);
    /* keep_going: all three Writes are judged */
    reset();
    R.delay = 3500000;
    char kg[4096];
    snprintf(kg, sizeof kg, "@scenario keep_going=1\n%s", SC_OK);
    CHECK_EQ(run_text(kg, 0, &f, err, sizeof err), 1);
    CHECK_EQ(fx_count(&f, UB_SC_TIMING, &line), 3);
    CHECK_EQ(line, 23);
    fx_close(&f);
    /* a failed @check raises UB-SC-005 at its line */
    reset();
    const char *chk = "@set a=3\n@check a == 4 -- a is four\n";
    CHECK_EQ(run_text(chk, 0, &f, err, sizeof err), 1);
    CHECK_EQ(fx_count(&f, UB_SC_SCRIPT, &line), 1);
    CHECK_EQ(line, 2);
    fx_close(&f);
    /* runtime error: an undefined variable at its line */
    reset();
    CHECK_EQ(run_text("@set a=1\n\n@set b=${c}\n", 0, &f, err, sizeof err), 2);
    fx_close(&f);
    CHECK(strstr(err, "t.ubs:3:") != NULL);
}

static void parse_error(const char *text, const char *where, const char *what)
{
    char err[512];
    ub_scenario *s = ub_scenario_parse(text, "bad.ubs", &O, err, sizeof err);
    CHECK(s == NULL);
    if (s) { ub_scenario_free(s); return; }
    if (!strstr(err, where) || (what && !strstr(err, what))) {
        fprintf(stderr, "parse error \"%s\", wanted %s %s\n", err, where, what ? what : "");
        CHECK(0);
    } else {
        CHECK(1);
    }
}

static void test_parse_errors(void)
{
    parse_error("@send\neth\neth dst=02:00:00:00:00:02\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp\nrtph psn=1 bogus=3\n",
                "bad.ubs:6:", "bogus");
    parse_error("# c\n\n@send fault=explode\neth\n", "bad.ubs:3:", "explode");
    parse_error("@expect ub.atah.taopcode == \n", "bad.ubs:1:", "filter");
    parse_error("@wait\n", "bad.ubs:1:", NULL);
    parse_error("@wait 5 parsecs\n", "bad.ubs:1:", NULL);
    parse_error("@repeat 3\n@log x\n", "bad.ubs:1:", "without @end");
    parse_error("@log a\n@end\n", "bad.ubs:2:", "without @repeat");
    parse_error("@set 9x=1\n", "bad.ubs:1:", "variable");
    parse_error("@set x=(1+\n", "bad.ubs:1:", "expression");
    parse_error("@frobnicate\n", "bad.ubs:1:", "unknown directive");
    parse_error("lph vl=1\n", "bad.ubs:1:", "outside @send");
    parse_error("@send\n@wait 1ms\n", "bad.ubs:1:", "without a packet");
    parse_error("@expect ub.atah within=1ms at=2ms\n", "bad.ubs:1:", "exclude");
    parse_error("@expect ub.atah capture x=ub.nope.nope\n", "bad.ubs:1:", "unknown field");
    parse_error("@expect-none ub.atah\n", "bad.ubs:1:", "within");
    parse_error("@scenario entry=foo\n", "bad.ubs:1:", "entry");
    parse_error("@send\ntph\n\n# comment\nrtph psn=1\nbtah taopcode=Wrote\n", "bad.ubs:6:", "taopcode");
    /* a good one with every directive parses */
    char err[512];
    ub_scenario *s = ub_scenario_parse(SC_OK, "ok.ubs", &O, err, sizeof err);
    CHECK(s != NULL);
    if (!s) fprintf(stderr, "%s\n", err);
    ub_scenario_free(s);
}

static void test_dry(void)
{
    char path[] = "/tmp/ub_dry_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char err[256];
    ub_xport_dry *d = ub_xport_dry_new(path, UB_ENTRY_ETH, &O, err, sizeof err);
    CHECK(d != NULL);
    ub_runner_cfg c;
    ub_runner_cfg_default(&c);
    ub_runner *r = ub_runner_new(&c, ub_xport_dry_get(d), err, sizeof err);
    uint8_t p[2048];
    long n = req(p, "Write", 1, 1);
    uint64_t t0 = ub_runner_now(r);
    for (unsigned i = 0; i < 3; i++) {
        ub_send_opt o = { .at = t0 + i * 1500000000ull }; /* 1.5 s apart: no waiting in a dry run */
        ub_runner_send(r, p, (uint32_t)n, UB_ENTRY_ETH, &o);
    }
    ub_runner_finish(r, 0);
    ub_runner_free(r);
    CHECK_EQ(ub_xport_dry_close(d), 0);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    ub_rec rec;
    uint64_t first = 0;
    unsigned i = 0;
    while (cf && ub_cap_next(cf, &rec) == 1) {
        if (!i) first = rec.ts_ns;
        CHECK_EQ(rec.ts_ns - first, i * 1500000000ull);
        CHECK_EQ(rec.caplen, (uint64_t)n);
        i++;
    }
    CHECK_EQ(i, 3);
    if (cf) ub_cap_close(cf);
    unlink(path);
}

int main(void)
{
    ub_opts_default(&O);
    ub_view_init(&RV);
    test_expect_outcomes();
    test_faults();
    test_deadlines();
    test_merge_capture();
    test_scenarios();
    test_parse_errors();
    test_dry();
    return ub_test_finish();
}
