/* The reliable-transport core (libubparse/src/rt_core.h) driven directly with its profiles: UB RTP
 * (24-bit), SUE TYPE1 (12-bit, wraps at 4095) and IB RC (24-bit). Each scenario plants violations and
 * asserts the findings (rule id @ frame, values) the full tracker reports (also the RNR timer and MSN). Also: the neighbour flow
 * tables (st_neigh.c) in the engine's eviction accounting. */
#include "rt_core.h"
#include "ubparse/audit.h"
#include "ubtest.h"

#include <stdlib.h>

static char found[4096];
static void on_finding(void *ctx, const ub_finding *f)
{
    (void)ctx;
    size_t n = strlen(found);
    snprintf(found + n, sizeof found - n, "%s%s@%" PRIu64, n ? " " : "", ub_rule_get(f->rule)->id, f->frame);
    for (unsigned i = 0; i < f->nvalues; i++) {
        n = strlen(found);
        snprintf(found + n, sizeof found - n, "%c%" PRId64, i ? ',' : '(', f->values[i]);
    }
    if (f->nvalues) strncat(found, ")", sizeof found - strlen(found) - 1);
}

/* one flow fed packet by packet: frame numbers 1, 2, ...; 1 µs apart unless told */
typedef struct drv {
    ub_state *s;
    const rt_profile *pf;
    rt_seq q;
    uint64_t frame, ts;
    ub_pktinfo pi;
    ub_pkt p;
} drv;

static void keytext(const void *obj, char *buf, size_t n)
{
    (void)obj;
    snprintf(buf, n, "flow");
}
static rt_ctx ctx(drv *d, bool pkt)
{
    rt_ctx x = { d->s, d->pf, pkt ? &d->p : NULL, true, false, keytext, d, "flow" };
    return x;
}
static void start(drv *d, const rt_profile *pf)
{
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    memset(d, 0, sizeof *d);
    found[0] = 0;
    d->s = ub_state_new(&c, on_finding, NULL);
    CHECK(d->s != NULL);
    d->pf = pf;
}
static void step(drv *d, unsigned ifindex, uint64_t gap_ns)
{
    d->frame++;
    d->ts += gap_ns ? gap_ns : 1000;
    d->pi = (ub_pktinfo){ d->frame, d->ts, ifindex, 0 };
    d->p.pi = &d->pi;
    d->s->last_ts = d->ts;
}
static int data_at(drv *d, uint32_t psn, bool areq, unsigned ifindex, uint64_t gap_ns)
{
    step(d, ifindex, gap_ns);
    rt_ctx x = ctx(d, true);
    rt_dres r;
    return rt_seq_data(&x, &d->q, psn, areq ? RT_SL_A : 0, 0, &r);
}
static int data(drv *d, uint32_t psn, bool areq, unsigned ifindex) { return data_at(d, psn, areq, ifindex, 0); }
static void ack(drv *d, uint32_t psn, bool nak)
{
    step(d, 0, 0);
    rt_ctx x = ctx(d, true);
    rt_seq_ack(&x, &d->q, psn, nak, false, true, 2, NULL);
}
static void sack(drv *d, uint32_t psn, uint32_t maxrcv, uint8_t bits) /* bits: BitMap[0..7] (LSB first, order 2) */
{
    step(d, 0, 0);
    uint8_t b[2] = { bits, 0 };
    rt_bitmap bm = { b, 2, 2, maxrcv };
    rt_ctx x = ctx(d, true);
    rt_seq_ack(&x, &d->q, psn, false, true, true, 5, &bm);
}
static const char *finish(drv *d, uint64_t after_ns)
{
    d->s->last_ts += after_ns;
    rt_ctx x = ctx(d, false);
    rt_seq_finish_open(&x, &d->q);
    rt_seq_finish_unacked(&x, &d->q);
    ub_state_free(d->s);
    return found;
}

static void t_arith(void)
{
    CHECK_EQ(rt_add(&rt_ub_rtp, 0xFFFFFF, 1), 0);
    CHECK_EQ(rt_diff(&rt_ub_rtp, 0, 0xFFFFFF), 1);
    CHECK(rt_diff(&rt_ub_rtp, 0xFFFFFF, 0) == -1);
    CHECK_EQ(rt_add(&rt_sue_type1, 4095, 2), 1);
    CHECK_EQ(rt_diff(&rt_sue_type1, 1, 4094), 3);
    CHECK(rt_diff(&rt_sue_type1, 2048, 0) == -2048); /* half the space: behind */
    CHECK_EQ(rt_diff(&rt_ib_rc, 5, 0xFFFFFA), 11);
}

/* UB RTP: 24-bit wrap without a finding; a gap at the wrap acknowledged (UB-TP-005); a TPNAK whose
 * resend starts elsewhere (UB-TP-010); a TPSACK and a resend of a PSN it reported received (UB-TP-011);
 * the same packet at a second capture point is no resend */
static void t_ub(void)
{
    drv d;
    start(&d, &rt_ub_rtp);
    CHECK_EQ(data(&d, 0xFFFFFE, false, 0), RT_NEW);
    CHECK_EQ(data(&d, 0xFFFFFE, false, 1), RT_COPY); /* frame 2: another capture point */
    CHECK_EQ(data(&d, 0xFFFFFF, false, 0), RT_NEW);
    CHECK_EQ(data(&d, 1, false, 0), RT_NEW);          /* frame 4: PSN 0 never captured */
    ack(&d, 1, false);                                /* frame 5: acknowledges 0 */
    CHECK_EQ(data(&d, 2, false, 0), RT_NEW);
    CHECK_EQ(data(&d, 3, false, 0), RT_NEW);
    ack(&d, 2, true);                                 /* frame 8: TPNAK 2 */
    CHECK_EQ(data(&d, 3, false, 0), RT_OLD);          /* frame 9: resend starts at 3, not 2 */
    CHECK_EQ(data(&d, 4, false, 0), RT_NEW);
    CHECK_EQ(data(&d, 5, false, 0), RT_NEW);
    sack(&d, 2, 5, 0x0D);                             /* frame 12: 2, 4, 5 received (bits 0, 2, 3) */
    CHECK_EQ(data(&d, 3, false, 0), RT_OLD);          /* frame 13: 3 (bit 1 clear): fine */
    CHECK_EQ(data(&d, 4, false, 0), RT_OLD);          /* frame 14: 4 was reported received */
    ack(&d, 5, false);
    CHECK_STR(finish(&d, 0), "UB-TP-005@4(0,1) UB-TP-003@9(3) UB-TP-010@9(3,2) UB-TP-003@13(3) UB-TP-003@14(4) "
                             "UB-TP-011@14(4,2)");
}

/* SUE TYPE1: 12-bit PSNs wrap 4095 -> 0; more than 512 outstanding (SUE-TP-006, once); a PSN lost at
 * the wrap never filled (SUE-TP-001 at the end, values first PSN and count); an A = 1 packet never
 * acknowledged (SUE-TP-005) */
static void t_sue(void)
{
    drv d;
    start(&d, &rt_sue_type1);
    CHECK_EQ(data(&d, 3900, false, 0), RT_NEW);
    ack(&d, 3900, false);                              /* frame 2 */
    uint32_t psn = 3900;
    for (unsigned i = 0; i < 513; i++) {               /* frames 3..515: 3901 .. 4095, 0 .. 317 */
        psn = rt_add(&rt_sue_type1, psn, 1);
        data(&d, psn, false, 0);
    }
    CHECK_EQ(psn, 317);
    CHECK_EQ(data(&d, 319, true, 0), RT_NEW);          /* frame 516: 318 missing, 319 needs an ack */
    ack(&d, 317, false);                               /* frame 517 */
    CHECK_STR(finish(&d, 0), "SUE-TP-006@515(513,512) SUE-TP-001@516(318,1) SUE-TP-005@516(319)");
    /* a 12-bit ack beyond the newest sent, and one behind the cumulative ack */
    start(&d, &rt_sue_type1);
    data(&d, 4094, false, 0);
    data(&d, 4095, false, 0);
    ack(&d, 1, false);                                 /* frame 3: beyond 4095 across the wrap: discarded */
    ack(&d, 4095, false);                              /* frame 4: fine (the discarded ack moved nothing) */
    ack(&d, 4094, false);                              /* frame 5: behind 4095 */
    CHECK_STR(finish(&d, 0), "SUE-TP-003@3(1,4095) SUE-TP-003@5(4094,4095)");
}

/* IB RC: 24-bit wrap; NAK (PSN sequence error) with go-back-N from its PSN is fine, a second NAK
 * never answered is reported at the end (IB-RC-004) and the AckReq request it covers stays unacked */
static void t_ib(void)
{
    drv d;
    start(&d, &rt_ib_rc);
    data(&d, 0xFFFFFF, true, 0);
    data(&d, 0, true, 0);
    data(&d, 1, true, 0);
    ack(&d, 0, true);                    /* frame 4: NAK: resend from 0 */
    CHECK_EQ(data(&d, 0, true, 0), RT_OLD);
    CHECK_EQ(data(&d, 1, true, 0), RT_OLD);
    ack(&d, 1, false);                   /* frame 7 */
    data(&d, 2, true, 0);                /* frame 8 */
    ack(&d, 2, true);                    /* frame 9: NAK 2, never answered */
    CHECK_STR(finish(&d, 10000000000ull),
              "IB-RC-002@5(0) IB-RC-002@6(1) IB-RC-004@9(2) IB-RC-005@8(2)");
}

/* loss timer on capture time (default 100 ms): UB and SUE profiles of the full tracker. A new PSN
 * 150 ms after the last progress with PSNs outstanding is reported once; a late resend is not */
static void t_timer(void)
{
    drv d;
    start(&d, &rt_ub_rtp);
    data(&d, 7, false, 0);
    ack(&d, 7, false);                          /* frame 2 */
    data(&d, 8, false, 0);                      /* frame 3: outstanding from here */
    data_at(&d, 9, false, 0, 150000000);        /* frame 4: 150 ms later, no ack, no resend */
    data_at(&d, 10, false, 0, 150000000);       /* frame 5: reported once per wait */
    data_at(&d, 8, false, 0, 150000000);        /* frame 6: the resend: the timer restarts */
    data(&d, 11, false, 0);                     /* frame 7 */
    ack(&d, 11, false);
    CHECK_STR(finish(&d, 0), "UB-TP-020@4(8,150000) UB-TP-003@6(8)");
    start(&d, &rt_sue_type1);
    data(&d, 4095, false, 0);
    ack(&d, 4095, false);
    data(&d, 0, false, 0);                      /* frame 3: across the 12-bit wrap */
    data_at(&d, 1, false, 0, 120000000);        /* frame 4 */
    CHECK_STR(finish(&d, 0), "SUE-TP-020@4(0,120000)");
}

/* the full tracker with the IB RC profile: an RNR NAK's timer (IBTA Table 45; IB-RC-010) and the AETH
 * MSN bound (IB-RC-011) */
static void rnr(drv *d, uint32_t psn, uint64_t wait_ns)
{
    ack(d, psn, true);
    rt_seq_rnr(&d->q, wait_ns);
}
static void msn(drv *d, rt_msn_st *m, uint32_t cum, uint32_t v, bool judged)
{
    rt_ctx x = ctx(d, true);
    rt_msn(&x, m, cum, v, judged);
}
static void t_rnr_msn(void)
{
    CHECK_EQ(rt_ib_rnr_ns(0), 655360000);
    CHECK_EQ(rt_ib_rnr_ns(1), 10000);
    CHECK_EQ(rt_ib_rnr_ns(14), 1280000);
    CHECK_EQ(rt_ib_rnr_ns(31), 491520000);
    drv d;
    rt_msn_st m;
    memset(&m, 0, sizeof m);
    start(&d, &rt_ib_rc);
    data(&d, 100, true, 0);
    rnr(&d, 100, rt_ib_rnr_ns(2));                    /* frame 2: wait 20 µs */
    CHECK_EQ(data_at(&d, 100, true, 0, 5000), RT_OLD); /* frame 3: after 5 µs */
    rnr(&d, 100, rt_ib_rnr_ns(2));                    /* frame 4 */
    data_at(&d, 100, true, 0, 25000);                  /* frame 5: after 25 µs: fine */
    ack(&d, 100, false);                               /* frame 6 */
    msn(&d, &m, 100, 0xFFFFFF, true);                  /* first MSN: 2^24 − 1 */
    data(&d, 101, true, 0);
    ack(&d, 101, false);                               /* frame 8: MSN wraps to 0: +1 */
    msn(&d, &m, 101, 0, true);
    step(&d, 0, 0);
    msn(&d, &m, 101, 2, true);                         /* frame 9: +2 over no PSN */
    CHECK_STR(finish(&d, 0), "IB-RC-002@3(100) IB-RC-010@3(5,20) IB-RC-002@5(100) IB-RC-011@9(2,0)");
    /* a plain NAK after an RNR NAK has no wait; an RNR NAK naming the next PSN (nothing lost) */
    start(&d, &rt_sue_type1);
    data(&d, 7, true, 0);
    rnr(&d, 7, 10000);                                 /* frame 2 */
    ack(&d, 7, true);                                  /* frame 3: second NAK 7 before a resend */
    data_at(&d, 7, true, 0, 2000);                     /* frame 4: 2 µs after the RNR NAK */
    ack(&d, 7, false);
    rnr(&d, 8, 10000);                                 /* frame 6: RNR NAK 8 = the next PSN */
    data_at(&d, 8, true, 0, 3000);                     /* frame 7: the first send of 8, 3 µs later */
    ack(&d, 8, false);
    CHECK_STR(finish(&d, 0), "SUE-TP-004@3(7) SUE-TP-002@4(7) SUE-TP-025@4(3,10) SUE-TP-025@7(3,10)");
}

/* the neighbour flow tables are bounded by max_channels and counted like UB state: with room for 2
 * flows, 5 SUE flows evict (UB-ST-001 per table at the end, ub_state_get_stats) */
static void t_evict(void)
{
    ub_opts o;
    ub_opts_default(&o);
    ub_view v;
    ub_view_init(&v);
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.max_channels = 2;
    found[0] = 0;
    ub_state *s = ub_state_new(&c, on_finding, NULL);
    CHECK(s != NULL);
    ub_state_stats st;
    ub_state_get_stats(s, &st);
    CHECK_EQ(st.tbl[UB_TBL_NB_FLOWS].bound, 0); /* no neighbour packet yet: no table */
    uint8_t buf[512];
    char text[512], err[200] = "";
    for (unsigned i = 0; i < 5; i++) {
        snprintf(text, sizeof text,
                 "eth icrc=none\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.%u dst=10.0.0.9\n"
                 "udp srcport=49152 dstport=4791\nsue_rh opcode=0 ts_en=1 timestamp=0x0a01 pkt_len=12 psn=7 dest_qp=3\ndata inc=4\n",
                 i + 1);
        ub_entry e = UB_ENTRY_NONE;
        long n = ub_build_text(text, &o, buf, sizeof buf, &e, err, sizeof err);
        CHECK(n > 0);
        ub_decode(&v, &o, UB_ENTRY_ETH, buf, (uint32_t)(n > 0 ? n : 0));
        ub_pktinfo pi = { i + 1, (i + 1) * 1000, 0, 2 };
        ub_state_packet(s, &v, &pi);
    }
    ub_state_get_stats(s, &st);
    CHECK_EQ(st.tbl[UB_TBL_NB_FLOWS].bound, 2);
    CHECK_EQ(st.tbl[UB_TBL_NB_FLOWS].evicted, 3);
    CHECK_EQ(st.tbl[UB_TBL_NB_PAIRS].evicted, 3);
    CHECK_EQ(st.tbl[UB_TBL_NB_FLOWS].first_evict_frame, 3);
    CHECK_EQ(st.tbl[UB_TBL_NB_FLOWS].last_evict_frame, 5);
    CHECK_EQ(st.tbl[UB_TBL_SUE_PAIRS].evicted, 3); /* st_sue.c: the bank/VC of each (sender, receiver) */
    CHECK_EQ(st.tbl[UB_TBL_SUE_CNPS].bound, 2);
    CHECK_EQ(st.evicted_total, 9);
    CHECK_STR(ub_state_table_name(UB_TBL_NB_FLOWS), "neighbour flows");
    ub_state_finish(s);
    ub_state_free(s);
    CHECK_STR(found, "UB-ST-001@3(8,3,2) UB-ST-001@3(9,3,2) UB-ST-001@3(10,3,2)");
}

int main(void)
{
    t_arith();
    t_ub();
    t_sue();
    t_ib();
    t_timer();
    t_rnr_msn();
    t_evict();
    return ub_test_finish();
}
