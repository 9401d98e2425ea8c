/* Data link state rules (st_dll.c, digest §10.1 DL-09..DL-20, MG-07): the checked-in scenario captures
 * (captures/audit_{linkup,bringup,credit,retry,nob}.ub) give exactly the findings listed here, and
 * synthetic links built in memory cover the other paths (LBH returns, shared credits, Retry Buffer
 * space, RcvPtr, replay content, NUM_RETRY, set structure, Block_Mode_Chg, undirected captures,
 * non-flit entry points) and hostile input (bounded link table, random blocks). */
#include "audit_util.h"
#include "ubtest.h"

#include <stdarg.h>
#include <stdlib.h>

static au_findings F;
static ub_opts O;
static ub_view V;

static void cfg_dll(ub_state_cfg *c)
{
    ub_state_cfg_default(c);
    c->layers = UB_ST_DLL | UB_ST_DECODE;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* the findings are exactly `want` (RULE@FRAME, any order) */
static void expect_exactly(const char *title, const char *const *want, unsigned n)
{
    static const char *got[4096], *exp[256];
    unsigned ng = F.n < 4096 ? F.n : 4096;
    for (unsigned i = 0; i < ng; i++) got[i] = F.item[i];
    for (unsigned i = 0; i < n; i++) exp[i] = want[i];
    qsort(got, ng, sizeof got[0], cmp_str);
    qsort(exp, n, sizeof exp[0], cmp_str);
    bool same = ng == n;
    for (unsigned i = 0; same && i < n; i++) same = strcmp(got[i], exp[i]) == 0;
    if (!same) au_dump(&F, title);
    CHECK(same);
}

/* the k-th finding with this id (0-based), NULL if none */
static const ub_finding *nth(const char *id, unsigned k)
{
    const ub_rule *r = ub_rule_by_id(id);
    for (unsigned i = 0; r && i < F.n; i++)
        if (F.f[i].rule == r->idx && k-- == 0) return &F.f[i];
    return NULL;
}
#define CHECK_VALUES(f, a, b) do { const ub_finding *f_ = (f); CHECK(f_ != NULL); \
    if (f_) { CHECK_EQ(f_->values[0], (a)); CHECK_EQ(f_->values[1], (b)); } } while (0)

static void run(const char *name)
{
    char path[512];
    ub_state_cfg c;
    cfg_dll(&c);
    snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, name);
    CHECK_EQ(au_run_file(path, &O, &c, &F), 0);
}

/* ================================================================ scenario captures */
static void t_linkup(void)
{
    /* link-up retry exchange, Init Blocks, credits, traffic both ways: only the negotiation notes */
    run("audit_linkup.pcapng");
    static const char *const want[] = { "UB-DL-022@134", "UB-DL-022@134", "UB-DL-022@134", "UB-DL-022@134",
                                        "UB-DL-022@134" };
    expect_exactly("audit_linkup", want, 5);
    /* values: field code, negotiated, default, fallback (§4.4 Table 4-9) */
    const ub_finding *f = nth("UB-DL-022", 0);
    CHECK(f && f->values[0] == 2 && f->values[1] == 16 && f->values[2] == 32 && f->values[3] == 0); /* DATA_ACK */
    f = nth("UB-DL-022", 1);
    CHECK(f && f->values[0] == 4 && f->values[1] == 4 && f->values[2] == 8); /* FLOW_CTRL_SIZE: Cell = 4 flits */
    f = nth("UB-DL-022", 2);
    CHECK(f && f->values[0] == 5 && f->values[1] == 3 && f->values[2] == 1); /* VL_ENABLE 0x3 & 0x7 */
    f = nth("UB-DL-022", 3);
    CHECK(f && f->values[0] == 16 && f->values[1] == 2 && f->values[2] == 4); /* DATA_CREDIT_GRAIN VL0 */
    f = nth("UB-DL-022", 4);
    CHECK(f && f->values[0] == 17 && f->values[1] == 2 && f->values[2] == 4); /* VL1 */
    CHECK(f && f->severity == UB_SEV_NOTE);
    CHECK_STR(f ? f->keytext : NULL, "if 0 in");
}

static void t_bringup(void)
{
    run("audit_bringup.pcapng");
    static const char *const want[] = {
        "UB-DL-009@100", /* A's Init Block before B answered A's Retry_Req_Set */
        "UB-DL-021@134", /* Param_Exchg before DLL_Normal */
        "UB-DL-010@135", "UB-DL-010@135", /* B's Init: FEATURE_ID 2, no 4-cell data credit grain on VL0 */
        "UB-DL-022@135", /* ... so DATA_CREDIT_GRAIN_SIZE[VL0] falls back to 4 cells */
        "UB-DL-009@137", "UB-DL-011@137", /* A's DLLDP before B's initial credits */
        "UB-DL-009@139", /* B's DLLDP before its own SD=1 */
        "UB-DL-009@141", /* Crd_Ack T=1 after SD=1 */
        "UB-DL-021@146", "UB-DL-021@146", "UB-DL-021@146", /* Lane_Manage REQ_ID, RSP_ID, TLW */
        "UB-MG-010@148", /* 4-flit neighbour advertisement */
        "UB-DL-020@151", /* DLLDP after Block_Mode_Chg_REQ */
        "UB-DL-020@154", /* responder's ACK before the initiator's */
    };
    expect_exactly("audit_bringup", want, sizeof want / sizeof want[0]);
    const ub_finding *f = nth("UB-DL-009", 0);
    CHECK(f && f->nframes == 1 && f->frames[0] == 2); /* cites A's first Retry_Req */
    CHECK_VALUES(nth("UB-DL-010", 0), 2, 1);          /* FEATURE_ID 2, expected 1 */
    CHECK_VALUES(nth("UB-DL-010", 1), 0, 2);          /* VL0, bitmap 0x02 */
    f = nth("UB-DL-022", 0);
    CHECK(f && f->values[0] == 16 && f->values[1] == 4 && f->values[3] == 1); /* fallback */
    f = nth("UB-DL-011", 0);
    CHECK(f && f->values[0] == 0 && f->values[1] == 0 && f->values[2] == 1); /* VL0, 0 left, 1 cell */
    CHECK_VALUES(nth("UB-DL-009", 1), 4, 1); /* BU_CREDIT: own SD sent, peer's missing */
    CHECK_VALUES(nth("UB-DL-009", 3), 3, 1); /* BU_CREDIT_DONE */
    CHECK_VALUES(nth("UB-DL-021", 1), 4, 5); /* REQ_ID 4 */
    CHECK_VALUES(nth("UB-MG-010", 0), 4, 5); /* 4 flits, 5 expected */
    f = nth("UB-DL-020", 1);
    CHECK(f && f->nframes == 1 && f->frames[0] == 150);
}

static void t_credit(void)
{
    run("audit_credit.pcapng");
    static const char *const want[] = { "UB-DL-022@2", "UB-DL-011@8", "UB-DL-012@11", "UB-DL-013@12",
                                        "UB-DL-014@13" };
    expect_exactly("audit_credit", want, 5);
    const ub_finding *f = nth("UB-DL-011", 0); /* VL0: 0 cells left, the Write needs 1 */
    CHECK(f && f->values[0] == 0 && f->values[1] == 0 && f->values[2] == 1);
    CHECK_STR(f ? f->keytext : NULL, "if 0 out");
    f = nth("UB-DL-012", 0); /* VL0 credit 4 > initial 3 */
    CHECK(f && f->values[0] == 0 && f->values[1] == 4 && f->values[2] == 3);
    CHECK_STR(f ? f->keytext : NULL, "if 0 out"); /* A's credit, returned by B */
    CHECK_VALUES(nth("UB-DL-013", 0), 2, 3); /* VL2, VL_ENABLE 0x3 */
    f = nth("UB-DL-014", 0); /* NumFreeBuf 1019 + 2000 > 1024 */
    CHECK(f && f->values[0] == 1019 && f->values[1] == 2000 && f->values[2] == 1024);
}

static void t_retry(void)
{
    run("audit_retry.pcapng");
    /* interface 0: only the bad BCRC (decode finding) — RcvPtr, RdPtr, WrPtr and the replay are right;
     * interface 1: RdPtr 12 answers RcvPtr 17, and only 31 Retry_Ack copies */
    static const char *const want[] = { "UB-DL-006@8", "UB-DL-017@126", "UB-DL-016@157" };
    expect_exactly("audit_retry", want, 3);
    const ub_finding *f = nth("UB-DL-017", 0);
    CHECK(f && f->values[0] == 12 && f->values[1] == 17 && f->nframes == 1 && f->frames[0] == 93);
    f = nth("UB-DL-016", 0);
    CHECK(f && f->values[0] == 31 && f->nframes == 1 && f->frames[0] == 125);
}

static void t_nob(void)
{
    /* raw flit stream, 4 flits per record: the Write after only 2 NOBs is 5 flits behind the last one */
    run("audit_nob.pcapng");
    static const char *const want[] = { "UB-DL-019@13" };
    expect_exactly("audit_nob", want, 1);
    const ub_finding *f = nth("UB-DL-019", 0);
    CHECK(f && f->values[0] == 5 && f->values[1] == 8 && f->nframes == 1 && f->frames[0] == 12);
}

/* ================================================================ synthetic links */
static ub_state *ST;
static uint64_t FRAME;

static void syn_begin(const ub_state_cfg *c)
{
    ub_state_cfg d;
    if (!c) {
        cfg_dll(&d);
        c = &d;
    }
    memset(&F, 0, sizeof F);
    FRAME = 0;
    ST = ub_state_new(c, au_cb, &F);
    CHECK(ST != NULL);
}
static void syn_end(void)
{
    ub_state_finish(ST);
    ub_state_free(ST);
    ST = NULL;
}

static uint64_t feed_bytes(uint32_t ifx, uint8_t dir, ub_entry e, const uint8_t *b, uint32_t n)
{
    ub_decode(&V, &O, e, b, n);
    ++FRAME;
    ub_pktinfo pi = { FRAME, FRAME * 1000u, ifx, dir };
    ub_state_packet(ST, &V, &pi);
    return FRAME;
}

static uint8_t BUF[16384];
static long build(const char *fmt, va_list ap, ub_entry *e)
{
    char text[2048], err[256];
    vsnprintf(text, sizeof text, fmt, ap);
    long n = ub_build_text(text, &O, BUF, sizeof BUF, e, err, sizeof err);
    if (n < 0) fprintf(stderr, "build: %s\n%s\n", err, text);
    CHECK(n > 0);
    return n;
}
/* build a record from builder text (first line = entry) and feed it; returns its frame */
static uint64_t feed(uint32_t ifx, uint8_t dir, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ub_entry e;
    long n = build(fmt, ap, &e);
    va_end(ap);
    if (n <= 0) return 0;
    return feed_bytes(ifx, dir, e, BUF, (uint32_t)n);
}

enum { IN = UB_DIR_IN, OUT = UB_DIR_OUT, NODIR = UB_DIR_UNKNOWN };
/* Init Block with the default capabilities (VL0 only); later field values in `extra` win */
#define INIT(extra) "flit\nlch clength=4 ctrl=12 sub_ctrl=8\ndllcb_init feature_id=1 data_ack_grain_size=0x20 " \
    "ctrl_ack_grain_size=0x01 flow_ctrl_size=0x08 vl_enable=0x0001 ctrl_credit_grain_size_vl0=1 " \
    "data_credit_grain_size_vl0=4 " extra
#define VL01 "vl_enable=0x0003 ctrl_credit_grain_size_vl1=1 data_credit_grain_size_vl1=4"
#define CRD "flit\nlch clength=1 ctrl=2 sub_ctrl=4\ndllcb_crd_ack "
#define NOB "flit\nlch ctrl=0 sub_ctrl=1"
#define IDLE "flit\nlch ctrl=1 sub_ctrl=0"
#define REQ "flit\nlch ctrl=1 sub_ctrl=1\ndllcb_retry_req "
#define ACK "flit\nlch ctrl=1 sub_ctrl=2\ndllcb_retry_ack "
#define BMC "flit\nlch ctrl=5 sub_ctrl=0\ndllcb_block_mode_chg "
/* 5-flit CFG 9 Write (1 cell at Cell = 8 flits) */
#define WRITE(lph) "flit\n" WRITE_BODY(lph)
#define BAD_WRITE(lph) "flit bcrc=bad\n" WRITE_BODY(lph)
#define WRITE_BODY(lph) "lph " lph "\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\n" \
    "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64"
#define TAACK(lph) "flit\nlph " lph "\nnth16 scna=0x0304 dcna=0x0102\natah_c taopcode=TAACK ini_tassn=1"

static void retry_set(uint32_t ifx, uint8_t dir, const char *body, unsigned copies)
{
    feed(ifx, dir, IDLE);
    for (unsigned i = 0; i < copies; i++) feed(ifx, dir, "%s", body);
}

/* Init Blocks both ways (A = out depth a_depth, B = in), initial credits VL0/VL1 as given */
static void bring(uint32_t ifx, unsigned a_depth, const char *a_extra, const char *b_extra, unsigned a_vl0,
                  unsigned b_vl0)
{
    feed(ifx, OUT, INIT("retry_buf_depth=%u packet_min_interval=1 %s"), a_depth, a_extra);
    feed(ifx, IN, INIT("retry_buf_depth=1024 packet_min_interval=1 %s"), b_extra);
    feed(ifx, OUT, CRD "t=1 sd=1 ack_num=5 crd_num_vl0=%u", b_vl0);
    feed(ifx, IN, CRD "t=1 sd=1 ack_num=7 crd_num_vl0=%u", a_vl0);
}

static void s_lbh(void)
{
    /* B returns credit with the LPH and with the LBH of a 2-block DLLDP: both count (Table 4-2) */
    syn_begin(NULL);
    bring(0, 1024, "", "", 10, 60);
    for (int i = 0; i < 8; i++) feed(0, OUT, WRITE("vl=0")); /* 8 cells: 2 left */
    ub_entry e;
    char err[128];
    long n = ub_build_text("flit\nlph vl=0 crd=1 crd_vl=0\nnth24 scna=0x000002 dcna=0x000001\nctph\n"
                           "btah taopcode=Write ini_tassn=1000 ini_rc_id=0x00001\n"
                           "maetah address=0x0000000100000000 tokenid=0x00007 length=1000\npayload inc=1000",
                           &O, BUF, sizeof BUF, &e, err, sizeof err);
    CHECK(n > 32 * 20);
    /* set LBH CRD=1 CRD_VL=0 in block 2 and recompute its BCRC (§4.7.2) */
    uint32_t nf = (uint32_t)n / 20 - 32;
    uint8_t *blk = BUF + 32 * 20, *bc = blk + nf * 20 - 4;
    blk[0] |= 0x80;
    uint32_t crc = ub_crc30_block(blk, nf, O.bcrc_variant);
    bc[0] = (uint8_t)((bc[0] & 0xC0) | ((crc >> 24) & 0x3F));
    bc[1] = (uint8_t)(crc >> 16);
    bc[2] = (uint8_t)(crc >> 8);
    bc[3] = (uint8_t)crc;
    ub_decode(&V, &O, e, BUF, (uint32_t)n);
    CHECK_EQ(V.nerrs, 0);
    feed_bytes(0, IN, e, BUF, (uint32_t)n); /* +4 +4 cells: back to 10 */
    CHECK_EQ(F.n, 0);
    uint64_t over = feed(0, IN, CRD "t=0 crd_num_vl0=1"); /* one too many */
    CHECK(au_has(&F, "UB-DL-012", over));
    CHECK_VALUES(nth("UB-DL-012", 0), 0, 11);
    CHECK_EQ(F.n, 1);
    syn_end();
}

static void s_shared(void)
{
    /* B's receive buffer shares credits between VLs (RXBUF_VL_SHARE): only the aggregate counts */
    syn_begin(NULL);
    feed(0, OUT, INIT("retry_buf_depth=1024 packet_min_interval=1 " VL01));
    feed(0, IN, INIT("retry_buf_depth=1024 packet_min_interval=1 rxbuf_vl_share=1 " VL01));
    feed(0, OUT, CRD "t=1 sd=1 ack_num=5 crd_num_vl0=8");
    feed(0, IN, CRD "t=1 sd=1 ack_num=7 crd_num_vl0=2 crd_num_vl1=2");
    CHECK_EQ(au_count(&F, "UB-DL-022"), 2); /* VL_ENABLE 0x3, RXBUF_VL_SHARE of B for A's direction */
    const ub_finding *f = nth("UB-DL-022", 1);
    CHECK(f && f->values[0] == 1 && f->values[1] == 1);
    CHECK_STR(f ? f->keytext : NULL, "if 0 out");
    for (int i = 0; i < 4; i++) feed(0, OUT, WRITE("vl=0")); /* VL0 uses 4 > 2 of its own: fine when shared */
    CHECK_EQ(F.n, 2);
    uint64_t fr = feed(0, OUT, WRITE("vl=1"));
    CHECK(au_has(&F, "UB-DL-011", fr));
    f = nth("UB-DL-011", 0);
    CHECK(f && f->values[0] == -1 && f->values[1] == 0 && f->values[2] == 1);
    syn_end();
}

static void s_retry_buffer(void)
{
    /* A's Retry Buffer holds 12 flits; B's initial Crd_Ack released A's Init + Crd_Ack (7 flits). Two
     * Writes and two NOBs fill it, the third NOB has no room */
    syn_begin(NULL);
    bring(0, 12, "", "", 60, 60);
    feed(0, OUT, WRITE("vl=0"));
    feed(0, OUT, WRITE("vl=0"));
    feed(0, OUT, NOB);
    feed(0, OUT, NOB);
    CHECK_EQ(F.n, 0);
    uint64_t fr = feed(0, OUT, NOB);
    CHECK(au_has(&F, "UB-DL-014", fr));
    const ub_finding *f = nth("UB-DL-014", 0);
    CHECK(f && f->values[0] == 0 && f->values[1] == 1 && f->values[2] == 12);
    feed(0, OUT, NOB); /* same shortage: reported once */
    /* B acknowledges 12 of the 14 flits outstanding (Crd_Ack ACK_NUM x 1 flit); then a TAACK with ACK=1
     * releases DATA_ACK_GRAIN_SIZE = 32 flits: more than the buffer holds */
    feed(0, IN, CRD "t=0 ack_num=12");
    CHECK_EQ(F.n, 1);
    fr = feed(0, IN, TAACK("vl=0 ack=1"));
    CHECK(au_has(&F, "UB-DL-014", fr));
    CHECK_EQ(F.n, 2);
    syn_end();
}

static void s_rcvptr(void)
{
    syn_begin(NULL);
    /* error seen at the capture point: RcvPtr must be the flits received before it (R-45: 5 + 2 + 5 = 12) */
    bring(0, 1024, "", "", 60, 60);
    feed(0, OUT, WRITE("vl=0"));
    feed(0, OUT, BAD_WRITE("vl=0"));
    retry_set(0, IN, REQ "rcvptr=12 num_retry=1", 32);
    CHECK_EQ(au_count(&F, "UB-DL-015"), 0);
    /* same on interface 1 with RcvPtr 7 */
    bring(1, 1024, "", "", 60, 60);
    feed(1, OUT, WRITE("vl=0"));
    feed(1, OUT, BAD_WRITE("vl=0"));
    feed(1, IN, IDLE);
    uint64_t fr = feed(1, IN, REQ "rcvptr=7 num_retry=1");
    CHECK(au_has(&F, "UB-DL-015", fr));
    CHECK_VALUES(nth("UB-DL-015", 0), 7, 12);
    /* no error seen: a RcvPtr ahead of what was sent */
    bring(2, 1024, "", "", 60, 60);
    feed(2, OUT, WRITE("vl=0"));
    feed(2, IN, IDLE);
    fr = feed(2, IN, REQ "rcvptr=40 num_retry=1");
    CHECK(au_has(&F, "UB-DL-015", fr));
    /* no error seen: behind, but inside a block */
    bring(3, 1024, "", "", 60, 60);
    feed(3, OUT, WRITE("vl=0"));
    feed(3, OUT, WRITE("vl=0"));
    feed(3, IN, IDLE);
    fr = feed(3, IN, REQ "rcvptr=9 num_retry=1");
    CHECK(au_has(&F, "UB-DL-015", fr));
    /* no error seen: behind at a block boundary (12) is allowed */
    bring(4, 1024, "", "", 60, 60);
    feed(4, OUT, WRITE("vl=0"));
    feed(4, OUT, WRITE("vl=0"));
    feed(4, IN, IDLE);
    feed(4, IN, REQ "rcvptr=12 num_retry=1");
    CHECK_EQ(au_count(&F, "UB-DL-015"), 3);
    CHECK_EQ(au_count(&F, "UB-DL-006"), 2);
    CHECK_EQ(F.n, 5);
    syn_end();
}

static void s_replay(void)
{
    /* the replay after a Retry_Ack_Set must be the blocks [RdPtr, WrPtr) as first sent */
    syn_begin(NULL);
    bring(0, 1024, "", "", 60, 60);
    feed(0, OUT, WRITE("vl=0"));                       /* 7..11 */
    feed(0, OUT, BAD_WRITE("vl=0")); /* 12..16 */
    feed(0, OUT, NOB);                                 /* 17 */
    retry_set(0, IN, REQ "rcvptr=12 num_retry=1", 32);
    retry_set(0, OUT, ACK "numfreebuf=1000 rdptr=12 wrptr=18", 32);
    feed(0, OUT, WRITE("vl=0"));
    uint64_t fr = feed(0, OUT, WRITE("vl=0")); /* the original at 17 was a NOB */
    CHECK(au_has(&F, "UB-DL-017", fr));
    CHECK_VALUES(nth("UB-DL-017", 0), 17, 1);
    /* Retry_Ack WrPtr far from the flits sent (DL-13) */
    bring(1, 1024, "", "", 60, 60);
    feed(1, OUT, WRITE("vl=0"));
    retry_set(1, IN, REQ "rcvptr=7 num_retry=1", 32);
    feed(1, OUT, IDLE);
    for (int i = 0; i < 31; i++) feed(1, OUT, ACK "numfreebuf=1000 rdptr=7 wrptr=100");
    fr = feed(1, OUT, ACK "numfreebuf=1000 rdptr=7 wrptr=100");
    CHECK(au_has(&F, "UB-DL-014", fr));
    CHECK_VALUES(nth("UB-DL-014", 0), 100, 12);
    /* replay at a RdPtr inside a block */
    bring(2, 1024, "", "", 60, 60);
    feed(2, OUT, WRITE("vl=0"));
    feed(2, OUT, WRITE("vl=0"));
    retry_set(2, IN, REQ "rcvptr=9 num_retry=1", 32); /* DL-14: not at a block boundary; accounting stops */
    retry_set(2, OUT, ACK "numfreebuf=1000 rdptr=9 wrptr=17", 32);
    CHECK_EQ(au_count(&F, "UB-DL-015"), 1);
    CHECK_EQ(F.n, 3 + 1); /* + the bad BCRC */
    syn_end();
}

static void s_retry_count(void)
{
    /* NUM_RETRY +1 per set within an event; restart at 1 after a retrain (NUM_PHY_REINIT + 1) */
    syn_begin(NULL);
    bring(0, 1024, "", "", 60, 60);
    feed(0, OUT, WRITE("vl=0"));
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=0 num_retry=3", 32); /* first seen: not checked */
    uint64_t t1 = FRAME - 31;
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=0 num_retry=4", 32);
    CHECK(au_has(&F, "UB-DL-018", t1 + 33)); /* note: Retry_Req_Set repeated (DL Retry ACK Timeout) */
    CHECK_EQ(nth("UB-DL-018", 0)->severity, UB_SEV_NOTE);
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=0 num_retry=6", 32); /* skips 5 */
    uint64_t t3 = FRAME - 31;
    CHECK(au_has(&F, "UB-DL-018", t3));
    CHECK_VALUES(nth("UB-DL-018", 1), 4, 6);
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=1 num_retry=1", 32); /* retrain: fine */
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=1 num_retry=2", 32);
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=3 num_retry=1", 32); /* NUM_PHY_REINIT skips 2 */
    uint64_t t6 = FRAME - 31;
    CHECK(au_has(&F, "UB-DL-018", t6));
    CHECK_VALUES(nth("UB-DL-018", 2), 1, 3);
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=4 num_retry=1", 32); /* threshold 4: Retry Error note */
    CHECK_EQ(au_count(&F, "UB-DL-018"), 4);
    CHECK_EQ(nth("UB-DL-018", 3)->severity, UB_SEV_NOTE);
    /* A answers: the event ends; the next event's first set is again not checked */
    retry_set(0, OUT, ACK "numfreebuf=1000 rdptr=12 wrptr=12", 32);
    retry_set(0, IN, REQ "rcvptr=12 num_phy_reinit=0 num_retry=1", 32);
    CHECK_EQ(au_count(&F, "UB-DL-018"), 4);
    CHECK_EQ(F.n, 4);
    syn_end();
}

static void s_sets(void)
{
    syn_begin(NULL);
    feed(0, OUT, WRITE("vl=0"));
    /* a Retry_Idle without copies */
    feed(0, OUT, IDLE);
    uint64_t fr = feed(0, OUT, IDLE);
    CHECK(au_has(&F, "UB-DL-016", fr));
    CHECK_VALUES(nth("UB-DL-016", 0), 0, 32);
    /* copies that are not identical, then 33 copies (the 33rd has no Retry_Idle) */
    for (int i = 0; i < 10; i++) feed(0, OUT, REQ "rcvptr=5 num_retry=1");
    fr = feed(0, OUT, REQ "rcvptr=6 num_retry=1");
    CHECK(au_has(&F, "UB-DL-016", fr));
    for (int i = 0; i < 21; i++) feed(0, OUT, REQ "rcvptr=5 num_retry=1");
    fr = feed(0, OUT, REQ "rcvptr=5 num_retry=1");
    CHECK(au_has(&F, "UB-DL-016", fr));
    /* Retry_Req and Retry_Ack mixed in one set */
    feed(0, OUT, IDLE);
    feed(0, OUT, REQ "rcvptr=5 num_retry=1");
    fr = feed(0, OUT, ACK "rdptr=5 wrptr=5");
    CHECK(au_has(&F, "UB-DL-016", fr));
    for (int i = 0; i < 30; i++) feed(0, OUT, REQ "rcvptr=5 num_retry=1");
    CHECK_EQ(au_count(&F, "UB-DL-016"), 4);
    /* a set cut by the capture start is silent; one cut by the capture end too */
    for (int i = 0; i < 20; i++) feed(1, IN, REQ "rcvptr=0 num_retry=1");
    feed(1, IN, NOB);
    feed(1, IN, IDLE);
    for (int i = 0; i < 5; i++) feed(1, IN, REQ "rcvptr=0 num_retry=1");
    syn_end();
    CHECK_EQ(au_count(&F, "UB-DL-016"), 4);
    CHECK_EQ(F.n, 4);
}

static void s_mode_change(void)
{
    syn_begin(NULL);
    feed(0, OUT, WRITE("vl=0"));
    feed(0, IN, TAACK("vl=0"));
    uint64_t fr = feed(0, OUT, BMC "type=1"); /* ACK without REQ */
    CHECK(au_has(&F, "UB-DL-020", fr));
    fr = feed(0, IN, BMC "type=2"); /* reserved TYPE */
    CHECK(au_has(&F, "UB-DL-020", fr));
    /* a correct handshake on interface 1: REQ, REQ, Crd_Ack, ACK, Crd_Ack, ACK */
    feed(1, OUT, WRITE("vl=0"));
    feed(1, OUT, BMC "type=0");
    feed(1, OUT, CRD "t=0 ack_num=1");
    feed(1, IN, BMC "type=0");
    feed(1, OUT, BMC "type=1");
    feed(1, IN, CRD "t=0 ack_num=1");
    feed(1, IN, BMC "type=1");
    feed(1, IN, TAACK("vl=0")); /* new mode */
    feed(1, OUT, WRITE("vl=0"));
    CHECK_EQ(F.n, 2);
    /* interface 2: ACK before the peer's REQ, then a block after the own ACK */
    feed(2, IN, TAACK("vl=0"));
    feed(2, OUT, BMC "type=0");
    fr = feed(2, OUT, BMC "type=1");
    CHECK(au_has(&F, "UB-DL-020", fr));
    fr = feed(2, OUT, NOB);
    CHECK(au_has(&F, "UB-DL-020", fr));
    CHECK_EQ(F.n, 4);
    syn_end();
}

static void s_undirected(void)
{
    /* one direction without pcapng direction flags (one file per direction): no credit / Retry Buffer
     * accounting (they need the other direction), per-direction rules still run (§10.6 g) */
    syn_begin(NULL);
    feed(0, NODIR, INIT("retry_buf_depth=8 packet_min_interval=100"));
    feed(0, NODIR, CRD "t=1 sd=1 crd_num_vl0=1");
    for (int i = 0; i < 10; i++) feed(0, NODIR, WRITE("vl=0 crd=1 crd_vl=0 ack=1"));
    CHECK_EQ(F.n, 0);
    feed(0, NODIR, IDLE);
    for (int i = 0; i < 31; i++) feed(0, NODIR, REQ "rcvptr=0 num_retry=1");
    uint64_t fr = feed(0, NODIR, NOB);
    CHECK(au_has(&F, "UB-DL-016", fr));
    CHECK_EQ(F.n, 1);
    syn_end();
    /* packet records (USER1) carry no link state: a DLLDP "before credits" there is not judged */
    syn_begin(NULL);
    feed(0, OUT, "pkt\nlch clength=4 ctrl=12 sub_ctrl=8\ndllcb_init feature_id=1 vl_enable=1 retry_buf_depth=8");
    feed(0, OUT, "pkt\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\n"
                 "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64");
    CHECK_EQ(au_count(&F, "UB-DL-009") + au_count(&F, "UB-DL-011") + au_count(&F, "UB-DL-010"), 0);
    syn_end();
}

/* ================================================================ hostile input */
static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

static void s_hostile(void)
{
    /* 120 000 link directions (distinct interfaces) through a 64-entry table: bounded, evicted, one note */
    ub_state_cfg c;
    cfg_dll(&c);
    c.max_links = 64;
    syn_begin(&c);
    static uint8_t init[200], crd[40], nob[20];
    ub_entry e;
    char err[128];
    long ni = ub_build_text(INIT("retry_buf_depth=64 packet_min_interval=4"), &O, init, sizeof init, &e, err, sizeof err);
    long nc = ub_build_text(CRD "t=1 sd=1 crd_num_vl0=3", &O, crd, sizeof crd, &e, err, sizeof err);
    long nn = ub_build_text(NOB, &O, nob, sizeof nob, &e, err, sizeof err);
    CHECK(ni > 0 && nc > 0 && nn > 0);
    ub_state_stats st;
    uint32_t maxlive = 0;
    for (uint32_t i = 0; i < 60000; i++) {
        uint32_t ifx = i;
        feed_bytes(ifx, OUT, UB_ENTRY_FLIT, init, (uint32_t)ni);
        feed_bytes(ifx, IN, UB_ENTRY_FLIT, crd, (uint32_t)nc);
        feed_bytes(ifx, OUT, UB_ENTRY_FLIT, nob, (uint32_t)nn);
        if ((i & 1023) == 0) {
            ub_state_get_stats(ST, &st);
            if (st.links > maxlive) maxlive = st.links;
        }
    }
    ub_state_get_stats(ST, &st);
    CHECK(maxlive <= 2 * c.max_links);
    CHECK(st.links <= 2 * c.max_links);
    CHECK(st.evicted_links > 100000);
    syn_end(); /* UB-ST-001 is reported at the end, with the total */
    CHECK_EQ(au_count(&F, "UB-ST-001"), 1);
    for (unsigned i = 0; i < F.n; i++)
        if (strncmp(F.item[i], "UB-ST-001@", 10) == 0) {
            CHECK_EQ(F.f[i].values[0], UB_TBL_LINKS);
            CHECK_EQ((uint64_t)F.f[i].values[1], st.evicted_links);
            CHECK_EQ(F.f[i].values[2], 64);
        }

    /* random blocks: every DLLCB type with random fields, DLLDPs with random CRD/ACK/VL, bad BCRCs and raw
     * garbage, in random directions on 3 interfaces — no crash, no undefined behaviour (ASan/UBSan) */
    cfg_dll(&c);
    syn_begin(&c);
    static uint8_t rec[2000];
    for (int i = 0; i < 30000; i++) {
        uint32_t ifx = rnd() % 3;
        uint8_t dir = (uint8_t)(rnd() % 3);
        switch (rnd() % 12) {
        case 0: feed(ifx, dir, INIT("retry_buf_depth=%u packet_min_interval=%u rxbuf_vl_share=%u vl_enable=%u"),
                     rnd() % 70, rnd() % 20, rnd() % 2, rnd() % 65536); break;
        case 1: feed(ifx, dir, CRD "t=%u sd=%u ack_num=%u crd_num_vl0=%u crd_num_vl3=%u", rnd() % 2, rnd() % 2,
                     rnd() % 40, rnd() % 64, rnd() % 64); break;
        case 2: feed(ifx, dir, IDLE); break;
        case 3: feed(ifx, dir, REQ "rcvptr=%u num_phy_reinit=%u num_retry=%u", rnd() % 80, rnd() % 3, rnd() % 20); break;
        case 4: feed(ifx, dir, ACK "numfreebuf=%u rdptr=%u wrptr=%u", rnd() % 80, rnd() % 80, rnd() % 80); break;
        case 5: feed(ifx, dir, BMC "type=%u", rnd() % 3); break;
        case 6: feed(ifx, dir, NOB); break;
        case 7: feed(ifx, dir, "flit\nlch clength=%u ctrl=3 sub_ctrl=0\ndllcb_param_exchg data0=%u data1=%u",
                     rnd() % 8, rnd() % 3, rnd() % 3); break;
        case 8: feed(ifx, dir, "flit\nlch ctrl=4 sub_ctrl=1\ndllcb_lane_manage req_id=%u rsp_id=%u tlw=%u rlw=%u",
                     rnd() % 16, rnd() % 16, rnd() % 64, rnd() % 64); break;
        case 9: feed(ifx, dir, "flit%s\nlph vl=%u crd=%u crd_vl=%u ack=%u\nnth16 scna=0x0102 dcna=0x0304\n"
                     "btah_c taopcode=Write ee_bits=1 ini_tassn=1\nmaetah_c address=0x0000100000000040 "
                     "tokenid=0x12345 length=0\npayload inc=%u", rnd() % 9 ? "" : " bcrc=bad", rnd() % 16,
                     rnd() % 2, rnd() % 16, rnd() % 2, rnd() % 900); break;
        default: {
            uint32_t n = (rnd() % 40) * 20 + (rnd() % 4 ? 0 : rnd() % 20);
            for (uint32_t k = 0; k < n; k++) rec[k] = (uint8_t)rnd();
            if (n > 2 && rnd() % 2) rec[1] &= 0xF0; /* mostly LCH-looking */
            feed_bytes(ifx, dir, UB_ENTRY_FLIT, rec, n);
        }
        }
    }
    syn_end();
    CHECK(F.n > 0);
}

int main(void)
{
    ub_opts_default(&O);
    t_linkup();
    t_bringup();
    t_credit();
    t_retry();
    t_nob();
    s_lbh();
    s_shared();
    s_retry_buffer();
    s_rcvptr();
    s_replay();
    s_retry_count();
    s_sets();
    s_mode_change();
    s_undirected();
    s_hostile();
    return ub_test_finish();
}
