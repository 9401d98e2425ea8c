/* Findings the audit collector will not keep: the collector's keep bound (collect.c,
 * ub_collect_keep_bound) and the state engine's per-rule bound that skips asking the keep callback
 * (state.c, ub_st_keep_bound, ub_st_want_text, ub_st_emit). Every answer must be the one
 * ub_collect_would_keep gives; the counts must stay exact. */
#include "audit_int.h"
#include "st_internal.h"
#include "ubparse/audit.h"
#include "ubtest.h"

static ub_finding fnd(unsigned rule, uint64_t frame)
{
    ub_finding f;
    memset(&f, 0, sizeof f);
    f.rule = (uint16_t)rule;
    f.severity = 1;
    f.frame = frame;
    return f;
}

typedef struct cbx {
    unsigned asked, counted, got;
    uint64_t last_frame;
    bool answer;
} cbx;
static bool keep_cb(void *ctx, unsigned rule, uint64_t frame)
{
    cbx *x = ctx;
    (void)rule;
    x->asked++;
    x->last_frame = frame;
    return x->answer;
}
static void count_cb(void *ctx, unsigned rule, unsigned sev)
{
    cbx *x = ctx;
    (void)rule, (void)sev;
    x->counted++;
}
static void finding_cb(void *ctx, const ub_finding *f)
{
    cbx *x = ctx;
    (void)f;
    x->got++;
}

int main(void)
{
    /* the collector: no bound until a rule's K examples are in, then the last one's frame */
    ub_collect *c = ub_collect_new(NULL, 2);
    CHECK(c != NULL);
    CHECK_EQ(ub_collect_keep_bound(c, 3), UINT64_MAX);
    ub_finding f = fnd(3, 50);
    ub_collect_add(c, &f, 1, 0, 0);
    CHECK_EQ(ub_collect_keep_bound(c, 3), UINT64_MAX);
    f = fnd(3, 30);
    ub_collect_add(c, &f, 2, 0, 1);
    CHECK_EQ(ub_collect_keep_bound(c, 3), 50); /* examples at 30, 50 */
    CHECK(!ub_collect_would_keep(c, 3, 51, 3, 0, 2));
    CHECK(ub_collect_would_keep(c, 3, 49, 3, 0, 2));
    f = fnd(3, 10);
    ub_collect_add(c, &f, 3, 0, 2);
    CHECK_EQ(ub_collect_keep_bound(c, 3), 30); /* 10, 30: only ever earlier */
    CHECK_EQ(ub_collect_keep_bound(c, 4), UINT64_MAX);
    CHECK_EQ(ub_collect_count(c, 3, 1), 3);
    CHECK_EQ(ub_collect_keep_bound(c, 100000), UINT64_MAX); /* not a rule */
    ub_collect_free(c);
    ub_collect *c0 = ub_collect_new(NULL, 0);
    CHECK_EQ(ub_collect_keep_bound(c0, 3), 0); /* no examples at all */
    ub_collect_free(c0);

    /* the engine: above the bound it answers "count only" without asking; at or below it asks */
    ub_state_cfg cfg;
    ub_state_cfg_default(&cfg);
    cbx x = { 0, 0, 0, 0, false };
    ub_state *s = ub_state_new(&cfg, finding_cb, &x);
    CHECK(s != NULL);
    if (!s) return ub_test_finish();
    ub_state_set_keep_cb(s, keep_cb);
    ub_st_set_count_cb(s, count_cb);
    const unsigned r = UB_R_TP_GAP_FILLED;
    CHECK(!ub_st_want_text(s, r, 100)); /* no bound yet: asked */
    CHECK_EQ(x.asked, 1);
    ub_st_keep_bound(s, r, 40);
    ub_st_keep_bound(s, r, 60); /* only lowered */
    CHECK(!ub_st_want_text(s, r, 41));
    CHECK_EQ(x.asked, 1);
    ub_st_emit(s, r, -1, 41, NULL, 0, NULL, 0, NULL, NULL, NULL); /* the same answer: counted */
    CHECK_EQ(x.asked, 1);
    CHECK_EQ(x.counted, 1);
    ub_st_emit(s, r, -1, 500, NULL, 0, NULL, 0, NULL, NULL, NULL); /* not asked first: still not asked */
    CHECK_EQ(x.asked, 1);
    CHECK_EQ(x.counted, 2);
    x.answer = true;
    CHECK(ub_st_want_text(s, r, 40)); /* at the bound: asked */
    CHECK_EQ(x.asked, 2);
    CHECK_EQ(x.last_frame, 40);
    ub_st_emit(s, r, -1, 40, NULL, 0, NULL, 0, NULL, NULL, "k");
    CHECK_EQ(x.got, 1);
    CHECK(ub_st_want_text(s, UB_R_TP_FRAMING, 1000)); /* other rules: asked */
    CHECK_EQ(x.asked, 3);
    ub_state_set_keep_cb(s, keep_cb); /* a new callback: the bounds are forgotten */
    CHECK(ub_st_want_text(s, r, 41));
    CHECK_EQ(x.asked, 4);
    ub_state_free(s);
    return ub_test_finish();
}
