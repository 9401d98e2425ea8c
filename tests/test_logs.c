/* The logs API (ubparse/logs.h) and the hook sets it relies on (ub_audit_add_hooks): hook sets run in
 * order, an earlier set's edits and drops are what the later sets and the collector see, the log's
 * rows follow; bounds and errors of the API; ub_match_opname/ub_match_code. */
#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/logs.h"
#include "ubtest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    ub_audit *a;
    ub_logs *logs;
    ub_view *v;
    ub_opts o;
} run_ctx;

static void unit(void *ctx, const ub_rec *r, const uint8_t *u, uint32_t len, ub_entry e, unsigned fl)
{
    (void)fl;
    run_ctx *x = ctx;
    ub_decode(x->v, &x->o, e, u, len);
    ub_pktinfo pi = { r->frame, r->ts_ns, r->ifindex, r->dir };
    ub_logs_packet(x->logs, x->v, &pi);
    CHECK_EQ(ub_audit_packet(x->a, x->v, &pi), 0);
}

static void run(run_ctx *x, const char *capture)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, capture);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    CHECK(cf != NULL);
    if (!cf) return;
    ub_units *u = ub_units_new(&x->o, 0);
    ub_rec r;
    while (ub_cap_next(cf, &r) == 1) ub_units_record(u, &r, unit, x);
    ub_units_flush(u, unit, x);
    ub_units_free(u);
    ub_cap_close(cf);
}

/* lines of a table containing every needle (NULL-terminated) */
static unsigned rows_with(const char *dir, const char *table, const char *const *needles)
{
    char path[512], line[4096];
    snprintf(path, sizeof path, "%s/%s", dir, table);
    FILE *f = fopen(path, "r");
    if (!f) return 9999;
    unsigned n = 0;
    while (fgets(line, sizeof line, f)) {
        bool all = true;
        for (unsigned i = 0; needles && needles[i]; i++) all = all && strstr(line, needles[i]);
        n += all;
    }
    fclose(f);
    return n;
}

/* hook set 1: UB-TP-003 notes become warnings, UB-TP-006 is dropped */
typedef struct {
    unsigned seen, notes;
} hook1_ctx;
static bool hook1(void *ctx, ub_finding *f)
{
    hook1_ctx *h = ctx;
    h->seen++;
    const ub_rule *r = ub_rule_get(f->rule);
    if (r && strcmp(r->id, "UB-TP-006") == 0) return false;
    if (r && strcmp(r->id, "UB-TP-003") == 0) f->severity = UB_SEV_WARN;
    return true;
}
static void note1(void *ctx, const ub_pkt_note *n) { (void)n; ((hook1_ctx *)ctx)->notes++; }
/* hook set 3: sees what set 1 left */
typedef struct {
    unsigned seen, tp006, tp003_warn, notes;
} hook3_ctx;
static bool hook3(void *ctx, ub_finding *f)
{
    hook3_ctx *h = ctx;
    h->seen++;
    const ub_rule *r = ub_rule_get(f->rule);
    h->tp006 += r && strcmp(r->id, "UB-TP-006") == 0;
    h->tp003_warn += r && strcmp(r->id, "UB-TP-003") == 0 && f->severity == UB_SEV_WARN;
    return true;
}
static void note3(void *ctx, const ub_pkt_note *n) { (void)n; ((hook3_ctx *)ctx)->notes++; }

static void test_hook_chain(const char *dir)
{
    char err[256];
    run_ctx x;
    memset(&x, 0, sizeof x);
    ub_opts_default(&x.o);
    x.v = malloc(sizeof *x.v);
    ub_view_init(x.v);
    ub_audit_cfg c;
    ub_audit_cfg_default(&c);
    c.opts = &x.o;
    c.stats = UB_STATS_TP;
    c.jobs = 4; /* hooks make it one engine */
    x.a = ub_audit_new(&c, err, sizeof err);
    CHECK(x.a != NULL);
    hook1_ctx h1 = { 0, 0 };
    hook3_ctx h3 = { 0, 0, 0, 0 };
    ub_audit_hooks hs = { &h1, hook1, NULL, note1 };
    ub_audit_set_hooks(x.a, &hs);
    x.logs = ub_logs_open(dir, "audit_rtp_lossy.pcapng", NULL, err, sizeof err);
    CHECK(x.logs != NULL);
    CHECK_EQ(ub_logs_attach(x.logs, x.a), 0); /* set 2 */
    ub_audit_hooks h3s = { &h3, hook3, NULL, note3 };
    CHECK_EQ(ub_audit_add_hooks(x.a, &h3s), 0); /* set 3 */
    ub_audit_hooks empty = { NULL, NULL, NULL, NULL };
    CHECK_EQ(ub_audit_add_hooks(x.a, &empty), 0); /* set 4 */
    CHECK_EQ(ub_audit_add_hooks(x.a, &empty), -1); /* UB_AUDIT_MAX_HOOKS */
    CHECK_EQ(ub_audit_jobs(x.a), 1);
    run(&x, "audit_rtp_lossy.pcapng");
    CHECK_EQ(ub_audit_add_hooks(x.a, &h3s), -1); /* started */
    CHECK_EQ(ub_audit_finish(x.a), 0);
    CHECK_EQ(ub_logs_close(x.logs, x.a, err, sizeof err), 0);

    /* the engine raises 6 findings (1 UB-TP-006, 3 UB-TP-003 notes, 2 errors: tests/t_logs.sh) */
    CHECK_EQ(h1.seen, 6);
    CHECK_EQ(h3.seen, 5);
    CHECK_EQ(h3.tp006, 0);
    CHECK_EQ(h3.tp003_warn, 3);
    CHECK(h1.notes > 0);
    CHECK_EQ(h3.notes, h1.notes);
    const ub_collect *all = ub_audit_findings(x.a);
    const ub_rule *r3 = ub_rule_by_id("UB-TP-003"), *r6 = ub_rule_by_id("UB-TP-006");
    CHECK(r3 && r6);
    if (r3 && r6) {
        CHECK_EQ(ub_collect_count(all, r3->idx, UB_SEV_WARN), 3);
        CHECK_EQ(ub_collect_count(all, r3->idx, UB_SEV_NOTE), 0);
        CHECK_EQ(ub_collect_rule_total(all, r6->idx), 0);
    }
    /* the log has the findings as set 1 left them */
    CHECK_EQ(rows_with(dir, "findings.jsonl", NULL), 5);
    CHECK_EQ(rows_with(dir, "findings.jsonl", (const char *[]){ "\"rule\":\"UB-TP-003\"", "\"severity\":\"warning\"", NULL }), 3);
    CHECK_EQ(rows_with(dir, "findings.jsonl", (const char *[]){ "UB-TP-006", NULL }), 0);
    CHECK_EQ(rows_with(dir, "findings.jsonl", (const char *[]){ "\"capture\":\"audit_rtp_lossy.pcapng\"", NULL }), 5);
    CHECK_EQ(rows_with(dir, "tp_channels.jsonl", NULL), 5);
    CHECK_EQ(rows_with(dir, "tp_channels.jsonl",
                       (const char *[]){ "\"channel\":\"RTP 0x010203:0x301 -> 0x0a0b0c:0x401\"", "\"retransmissions\":4",
                                         "\"gaps\":1", NULL }),
             1);
    CHECK_EQ(rows_with(dir, "transactions.jsonl", NULL), 0);
    ub_audit_free(x.a);
    free(x.v);
}

static void test_errors(const char *dir)
{
    char err[256] = "", path[512];
    /* a directory below a regular file */
    snprintf(path, sizeof path, "%s/findings.jsonl/sub", dir);
    CHECK(ub_logs_open(path, NULL, NULL, err, sizeof err) == NULL);
    CHECK(strstr(err, "findings.jsonl/sub") != NULL);
    CHECK(ub_logs_open("", NULL, NULL, err, sizeof err) == NULL);
    CHECK_EQ(ub_logs_close(NULL, NULL, err, sizeof err), 0);
    CHECK_EQ(ub_logs_attach(NULL, NULL), -1);
    ub_logs_packet(NULL, NULL, NULL); /* no-op */
    /* an existing directory is reused, its tables truncated */
    ub_logs *l = ub_logs_open(dir, NULL, NULL, err, sizeof err);
    CHECK(l != NULL);
    CHECK_EQ(ub_logs_close(l, NULL, err, sizeof err), 0);
    CHECK_EQ(rows_with(dir, "findings.jsonl", NULL), 0);
    CHECK_EQ(rows_with(dir, "tp_channels.jsonl", NULL), 0);
}

static void test_opnames(void)
{
    char b[16];
    ub_match m = { 1, 2, 10, 0, 0x06, 0, 10 };
    CHECK_STR(ub_match_opname(&m, b, sizeof b), "Read");
    CHECK_EQ(ub_match_code(&m), 6);
    m.kind = 1;
    m.opcode = 0x10 | 2 << 8; /* configuration management, Code 2 */
    CHECK_STR(ub_match_opname(&m, b, sizeof b), "Configuration Message");
    CHECK_EQ(ub_match_code(&m), 2);
    m.opcode = 0x80 | (8 + 2) << 8; /* enumeration CMD 2 */
    CHECK_STR(ub_match_opname(&m, b, sizeof b), "query CNA");
    CHECK_EQ(ub_match_code(&m), 2);
    m.kind = 0;
    m.opcode = 0xfe; /* no name */
    CHECK_STR(ub_match_opname(&m, b, sizeof b), "0xfe");
}

int main(void)
{
    char dir[] = "/tmp/ubtestlogs.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    test_hook_chain(dir);
    test_errors(dir);
    test_opnames();
    static const char *const t[] = { "transactions.jsonl", "mgmt.jsonl", "tp_channels.jsonl", "findings.jsonl" };
    char p[512];
    for (unsigned i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, t[i]);
        unlink(p);
    }
    rmdir(dir);
    return ub_test_finish();
}
