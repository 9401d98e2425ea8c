/* Transaction and management state rules (st_ta.c; digest §10.4, §10.5, §10.6): scenario captures
 * with their exact findings and request/response matches, existing sample captures, and a hostile
 * synthetic load that must stay within the table bounds. */
#include "audit_util.h"
#include "ubtest.h"

#define CAP(name) UB_SOURCE_DIR "/captures/" name

/* ---------------------------------------------------------------- runner with matches */
typedef struct matches {
    unsigned n;
    ub_match m[512];
} matches;
static void match_cb(void *ctx, const ub_match *m)
{
    matches *a = (matches *)ctx;
    if (a->n < 512) a->m[a->n++] = *m;
}
static inline int has_match(const matches *a, uint64_t req, uint64_t rsp, uint8_t kind, uint16_t op)
{
    for (unsigned i = 0; i < a->n; i++)
        if (a->m[i].req_frame == req && a->m[i].rsp_frame == rsp && a->m[i].kind == kind && a->m[i].opcode == op) return 1;
    return 0;
}
static inline const ub_finding *find_f(const au_findings *a, const char *rule, unsigned long long frame)
{
    char want[48];
    snprintf(want, sizeof want, "%s@%llu", rule, frame);
    for (unsigned i = 0; i < a->n; i++)
        if (strcmp(a->item[i], want) == 0) return &a->f[i];
    return NULL;
}

static int run(const char *path, const ub_state_cfg *cfg, au_findings *out, matches *mt)
{
    char err[256];
    ub_opts o;
    ub_opts_default(&o);
    memset(out, 0, sizeof *out);
    if (mt) memset(mt, 0, sizeof *mt);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    if (!cf) { fprintf(stderr, "%s: %s\n", path, err); return -1; }
    ub_state_cfg c;
    if (cfg) c = *cfg;
    else { ub_state_cfg_default(&c); c.layers = UB_ST_TA | UB_ST_MG; }
    ub_state *st = ub_state_new(&c, au_cb, out);
    if (mt) ub_state_set_match_cb(st, match_cb, mt);
    ub_view *v = (ub_view *)calloc(1, sizeof *v);
    ub_rec r;
    ub_stream streams[4]; /* raw flit streams: per interface and direction, as au_run_file */
    for (int i = 0; i < 4; i++) ub_stream_init(&streams[i], &o);
    au_ctx ctx = { st, v, &o, &r };
    while (ub_cap_next(cf, &r) == 1) {
        ub_entry e = ub_entry_for_linktype(&o, r.linktype);
        if (e == UB_ENTRY_STREAM) {
            ub_stream_feed(&streams[(r.ifindex & 1) * 2 + (r.dir == UB_DIR_IN)], r.data, r.caplen, au_unit, &ctx);
            continue;
        }
        ub_decode(v, &o, e, r.data, r.caplen);
        ub_pktinfo pi = { r.frame, r.ts_ns, r.ifindex, r.dir };
        ub_state_packet(st, v, &pi);
    }
    ub_state_finish(st);
    ub_state_free(st);
    free(v);
    ub_cap_close(cf);
    return 0;
}

static void dump(const char *title, const au_findings *f, const matches *mt)
{
    au_dump(f, title);
    for (unsigned i = 0; i < f->n; i++) {
        const ub_finding *x = &f->f[i];
        fprintf(stderr, "  %-14s sev %u frames", f->item[i], x->severity);
        for (unsigned k = 0; k < x->nframes; k++) fprintf(stderr, " %llu", (unsigned long long)x->frames[k]);
        fprintf(stderr, " values");
        for (unsigned k = 0; k < x->nvalues; k++) fprintf(stderr, " %lld", (long long)x->values[k]);
        fprintf(stderr, " [%s] %s\n", x->keytext, x->detail ? x->detail : "");
    }
    if (mt)
        for (unsigned i = 0; i < mt->n; i++)
            fprintf(stderr, "  match %llu -> %llu kind %u op 0x%x latency %llu\n", (unsigned long long)mt->m[i].req_frame,
                    (unsigned long long)mt->m[i].rsp_frame, mt->m[i].kind, mt->m[i].opcode,
                    (unsigned long long)mt->m[i].latency_ns);
}

/* ---------------------------------------------------------------- in-memory feeding */
typedef struct feeder {
    ub_opts o;
    ub_state *st;
    ub_view *v;
    uint64_t frame;
} feeder;
static void fd_open(feeder *fd, const ub_state_cfg *cfg, au_findings *f, matches *mt)
{
    memset(fd, 0, sizeof *fd);
    ub_opts_default(&fd->o);
    memset(f, 0, sizeof *f);
    if (mt) memset(mt, 0, sizeof *mt);
    ub_state_cfg c;
    if (cfg) c = *cfg;
    else { ub_state_cfg_default(&c); c.layers = UB_ST_TA | UB_ST_MG; }
    fd->st = ub_state_new(&c, au_cb, f);
    if (mt) ub_state_set_match_cb(fd->st, match_cb, mt);
    fd->v = (ub_view *)malloc(sizeof *fd->v);
}
/* build one record from builder text and feed it at time ts_us (microseconds) */
static void fd_pkt(feeder *fd, double ts_us, const char *text)
{
    uint8_t buf[4096];
    char err[256];
    ub_entry e = UB_ENTRY_FLIT;
    long n = ub_build_text(text, &fd->o, buf, sizeof buf, &e, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "build failed: %s\n%s\n", err, text);
        CHECK(n >= 0);
        return;
    }
    ub_decode(fd->v, &fd->o, e, buf, (uint32_t)n);
    ub_pktinfo pi = { ++fd->frame, (uint64_t)(ts_us * 1000.0), 0, 0 };
    ub_state_packet(fd->st, fd->v, &pi);
}
static void fd_close(feeder *fd)
{
    ub_state_finish(fd->st);
    ub_state_free(fd->st);
    free(fd->v);
}

/* CFG 7 RTP between A = 0x010203 and B = 0x0a0b0c (channel 0x101 <-> 0x202) */
#define RTP_AB(psn, last) "pkt\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=" #last " srctpn=0x101 dsttpn=0x202 psn=" #psn " tpmsn=1\n"
#define RTP_BA(psn, last) "pkt\nlph vl=2\nnth24 scna=0x0a0b0c dcna=0x010203\nrtph last=" #last " srctpn=0x202 dsttpn=0x101 psn=" #psn " tpmsn=1\n"
#define ACK_BA(psn, st, info) "pkt\nlph vl=2\nnth24 scna=0x0a0b0c dcna=0x010203\nrtph tpopcode=2 srctpn=0x202 dsttpn=0x101 psn=" #psn " rspst=" #st " rspinfo=" #info " tpmsn=1\n"
#define CTP_AB "pkt\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph\n"
#define CTP_BA "pkt\nlph vl=3\nnth24 scna=0x0a0b0c dcna=0x010203\nctph\n"
#define WRITE(tassn, rc) "btah taopcode=Write ini_tassn=" #tassn " ini_rc_id=" #rc "\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n"
#define READ(tassn, rc) "btah taopcode=Read ini_tassn=" #tassn " ini_rc_id=" #rc "\nmaetah address=0x1000 tokenid=1 length=8\n"
#define TAACK(tassn, rc) "atah taopcode=TAACK ini_tassn=" #tassn " ini_rc_id=" #rc "\n"
#define RDRSP(tassn, rc) "atah taopcode=Read_response ini_tassn=" #tassn " ini_rc_id=" #rc "\npayload inc=8\n"

/* ---------------------------------------------------------------- scenario captures */
static void test_clean(void)
{
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    CHECK(run(CAP("audit_txn_clean.pcapng"), NULL, f, &mt) == 0);
    if (f->n) dump("audit_txn_clean", f, &mt);
    CHECK_EQ(f->n, 0);
    /* every request matched to its response (kind 0 transaction: request TAOpcode) */
    CHECK(has_match(&mt, 1, 3, 0, 0x06));   /* RTP Read -> Read_response */
    CHECK(has_match(&mt, 5, 7, 0, 0x0B));   /* Atomic_fetch_add */
    CHECK(has_match(&mt, 9, 11, 0, 0x09));  /* Atomic_store, response without payload */
    CHECK(has_match(&mt, 13, 15, 0, 0x06)); /* Read answered in two packets: first response packet */
    CHECK(has_match(&mt, 18, 20, 0, 0x03)); /* RTP Write -> TAACK */
    CHECK(has_match(&mt, 22, 26, 0, 0x03)); /* 3-packet Write -> one TAACK */
    CHECK(has_match(&mt, 28, 31, 0, 0x03)); /* aggregated TAACK answers 20, 21 and 22 */
    CHECK(has_match(&mt, 29, 31, 0, 0x03));
    CHECK(has_match(&mt, 30, 31, 0, 0x03));
    CHECK(has_match(&mt, 32, 33, 0, 0x03));
    CHECK(has_match(&mt, 34, 35, 0, 0x06));
    CHECK(has_match(&mt, 36, 37, 0, 0x03)); /* CFG 9 compact */
    CHECK(has_match(&mt, 38, 39, 0, 0x06));
    CHECK(has_match(&mt, 40, 41, 1, 0x210)); /* management Code 2 */
    CHECK(has_match(&mt, 42, 43, 1, 0x110)); /* Link Down event and the driver's reply */
    CHECK(has_match(&mt, 44, 45, 1, 0x880)); /* enumeration CMD 0: 0x80 | (8 + CMD) << 8 */
    CHECK(has_match(&mt, 46, 47, 1, 0xA80)); /* enumeration CMD 2 */
    CHECK_EQ(mt.n, 17);
    for (unsigned i = 0; i < mt.n; i++)
        if (mt.m[i].req_frame == 1) CHECK_EQ(mt.m[i].latency_ns, 10000);
    free(f);
}

static void test_responder(void)
{
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    CHECK(run(CAP("audit_responder.pcapng"), NULL, f, &mt) == 0);
    static const struct { const char *rule; unsigned frame; } want[] = {
        { "UB-TA-004", 2 },  { "UB-TA-003", 6 },  { "UB-TA-005", 8 },  { "UB-TA-002", 12 }, { "UB-TA-011", 15 },
        { "UB-MG-006", 18 }, { "UB-MG-008", 20 }, { "UB-TA-007", 22 }, { "UB-TA-018", 24 }, { "UB-TA-018", 28 },
        { "UB-TA-015", 29 }, { "UB-TA-013", 32 }, { "UB-TA-017", 34 }, { "UB-TA-006", 37 }, { "UB-TA-012", 40 },
        { "UB-TA-009", 44 }, { "UB-TA-010", 48 }, { "UB-TA-017", 50 }, { "UB-TA-001", 3 },
    };
    unsigned nw = sizeof want / sizeof want[0];
    for (unsigned i = 0; i < nw; i++) {
        int ok = au_has(f, want[i].rule, want[i].frame);
        if (!ok) fprintf(stderr, "missing %s@%u\n", want[i].rule, want[i].frame);
        CHECK(ok);
    }
    if (f->n != nw) dump("audit_responder", f, &mt);
    CHECK_EQ(f->n, nw);
    const ub_finding *x;
    /* a Read answered by a TAACK: request 1, values request and response TAOpcode */
    x = find_f(f, "UB-TA-004", 2);
    CHECK(x && x->nframes == 1 && x->frames[0] == 1 && x->values[0] == 0x06 && x->values[1] == 0x11);
    /* the Read never answered while the capture went on 200 ms: error */
    x = find_f(f, "UB-TA-001", 3);
    CHECK(x && x->severity == UB_SEV_ERROR && x->values[0] == 0x06 && x->values[1] == 2);
    /* second TAACK: cites the request and the first response */
    x = find_f(f, "UB-TA-003", 6);
    CHECK(x && x->nframes == 2 && x->frames[0] == 4 && x->frames[1] == 5);
    x = find_f(f, "UB-TA-005", 8); /* full-format request, compact response */
    CHECK(x && x->frames[0] == 7 && x->values[0] == 0 && x->values[1] == 1);
    /* TASSN 40 ahead of the newest TASSN 30 the requester sent: error (§10.6 f) */
    x = find_f(f, "UB-TA-002", 12);
    CHECK(x && x->severity == UB_SEV_ERROR && x->values[0] == 40 && x->values[1] == 30);
    /* packet 3 of the Write at 0x10c00 instead of 0x10800 */
    x = find_f(f, "UB-TA-011", 15);
    CHECK(x && x->frames[0] == 14 && x->values[0] == 0x10c00 && x->values[1] == 0x10800);
    x = find_f(f, "UB-MG-006", 18); /* Code 2 Sub 0 answered as Sub 1 */
    CHECK(x && x->frames[0] == 17 && x->values[0] == 0x20 && x->values[1] == 0x21);
    x = find_f(f, "UB-MG-008", 20);
    CHECK(x && x->severity == UB_SEV_WARN && x->values[0] == 0x22);
    x = find_f(f, "UB-TA-018", 24); /* RNR, RNR_Timer 3 */
    CHECK(x && x->severity == UB_SEV_WARN && x->frames[0] == 23 && x->values[0] == 1 && x->values[1] == 3);
    x = find_f(f, "UB-TA-015", 29); /* Atomic retried after a Completer Error */
    CHECK(x && x->frames[0] == 27);
    x = find_f(f, "UB-TA-013", 32);
    CHECK(x && x->values[0] == 4 && x->values[1] == 8);
    x = find_f(f, "UB-TA-017", 34);
    CHECK(x && x->values[0] == 32 && x->values[1] == 64);
    x = find_f(f, "UB-TA-006", 37); /* aggregation over an outstanding Read: warning (§10.6 b″) */
    CHECK(x && x->severity == UB_SEV_WARN && x->frames[0] == 36 && x->values[0] == 66);
    x = find_f(f, "UB-TA-012", 40);
    CHECK(x && x->frames[0] == 39);
    x = find_f(f, "UB-TA-009", 44);
    CHECK(x && x->frames[0] == 43);
    x = find_f(f, "UB-TA-010", 48);
    CHECK(x && x->frames[0] == 47);
    x = find_f(f, "UB-TA-017", 50);
    CHECK(x && x->values[0] == 8 && x->values[1] == 16);
    /* matches: even wrong answers are request/response pairs; the retried Read matches its retry */
    CHECK(has_match(&mt, 1, 2, 0, 0x06));
    CHECK(has_match(&mt, 9, 11, 0, 0x03));
    CHECK(has_match(&mt, 10, 11, 0, 0x03));
    CHECK(has_match(&mt, 17, 18, 1, 0x210));
    CHECK(has_match(&mt, 23, 24, 0, 0x06));
    CHECK(has_match(&mt, 25, 26, 0, 0x06));
    CHECK(has_match(&mt, 36, 38, 0, 0x06));
    CHECK(!has_match(&mt, 36, 37, 0, 0x06)); /* the aggregated TAACK does not answer the Read */
    free(f);
}

static void test_mgmt(void)
{
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    CHECK(run(CAP("audit_mgmt.pcapng"), NULL, f, &mt) == 0);
    static const struct { const char *rule; unsigned frame; } want[] = {
        { "UB-MG-011", 3 },  { "UB-MG-007", 8 },  { "UB-MG-007", 9 },
        { "UB-MG-006", 11 }, { "UB-MG-002", 13 }, { "UB-MG-003", 15 }, { "UB-MG-006", 17 },
        { "UB-MG-009", 6 },  { "UB-MG-005", 7 },  { "UB-MG-005", 18 },
    };
    unsigned nw = sizeof want / sizeof want[0];
    for (unsigned i = 0; i < nw; i++) {
        int ok = au_has(f, want[i].rule, want[i].frame);
        if (!ok) fprintf(stderr, "missing %s@%u\n", want[i].rule, want[i].frame);
        CHECK(ok);
    }
    if (f->n != nw) dump("audit_mgmt", f, &mt);
    CHECK_EQ(f->n, nw);
    const ub_finding *x;
    x = find_f(f, "UB-MG-011", 3);
    CHECK(x && x->nframes == 2 && x->frames[0] == 1 && x->frames[1] == 2 && x->values[0] == 20);
    x = find_f(f, "UB-MG-007", 8); /* MSN 99 ahead of 20: error; MSN 5: note */
    CHECK(x && x->severity == UB_SEV_ERROR && x->values[0] == 99 && x->values[1] == 20);
    x = find_f(f, "UB-MG-007", 9);
    CHECK(x && x->severity == UB_SEV_NOTE);
    x = find_f(f, "UB-MG-006", 11); /* INI_RC_ID 3 echoed as 4 */
    CHECK(x && x->values[0] == 3 && x->values[1] == 4);
    x = find_f(f, "UB-MG-006", 17); /* MSGQ_ID 0 echoed as 5 */
    CHECK(x && x->frames[0] == 16 && x->values[0] == 0 && x->values[1] == 5);
    x = find_f(f, "UB-MG-003", 15);
    CHECK(x && x->values[0] == 0 && x->values[1] == 1);
    x = find_f(f, "UB-MG-002", 13);
    CHECK(x && x->frames[0] == 12);
    /* unanswered at the end, the capture went on 300 ms: warnings, not notes */
    x = find_f(f, "UB-MG-009", 6);
    CHECK(x && x->severity == UB_SEV_WARN && x->values[0] == 6 && x->values[1] == 0);
    x = find_f(f, "UB-MG-005", 7);
    CHECK(x && x->severity == UB_SEV_WARN);
    x = find_f(f, "UB-MG-005", 18);
    CHECK(x && x->severity == UB_SEV_WARN);
    CHECK(has_match(&mt, 4, 5, 1, 0x110)); /* Link Up event and the driver's reply without PDU */
    CHECK(has_match(&mt, 12, 13, 1, 0x880));
    CHECK(has_match(&mt, 19, 20, 1, 0x110));
    free(f);
}

/* the sample captures form consistent exchanges: no finding of this module; the scenario captures
 * of the other layers: nothing above a note (requests cut off by the end of their capture) */
static void test_samples(void)
{
    static const char *const clean[] = { "cfg9_coherent", "cfg7_rtp", "cfg3_ipv4", "cfg6_mgmt", "cfg6_enum", "uboe",
                                         "urpc", "multiblock", "cip", "stream", "sll_ubl", "sll2_ubl", "dllcb",
                                         "cfg5_netctl", "audit_rtp_clean", "audit_linkup" };
    static const char *const others[] = { "audit_bringup", "audit_credit", "audit_retry", "audit_rtp_lossy", "audit_rtp_sack" };
    au_findings *f = (au_findings *)malloc(sizeof *f);
    char path[512];
    for (unsigned i = 0; i < sizeof clean / sizeof clean[0]; i++) {
        snprintf(path, sizeof path, "%s/captures/%s.pcapng", UB_SOURCE_DIR, clean[i]);
        FILE *x = fopen(path, "rb");
        if (!x) continue; /* a capture of another layer not there (yet) */
        fclose(x);
        CHECK(run(path, NULL, f, NULL) == 0);
        if (f->n) dump(clean[i], f, NULL);
        CHECK_EQ(f->n, 0);
    }
    for (unsigned i = 0; i < sizeof others / sizeof others[0]; i++) {
        snprintf(path, sizeof path, "%s/captures/%s.pcapng", UB_SOURCE_DIR, others[i]);
        FILE *x = fopen(path, "rb");
        if (!x) continue;
        fclose(x);
        CHECK(run(path, NULL, f, NULL) == 0);
        unsigned bad = 0;
        for (unsigned k = 0; k < f->n; k++) bad += f->f[k].severity != UB_SEV_NOTE;
        if (bad) dump(others[i], f, NULL);
        CHECK_EQ(bad, 0);
    }
    free(f);
}

/* ---------------------------------------------------------------- synthetic cases */
static void test_tp_retransmission(void)
{
    /* §10.6 b: a TP retransmission (same channel and PSN) is not a new request, nor a duplicate
     * response; a Write over RTP only needs a TAACK once the RC has received one (§10.6 a) */
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    feeder fd;
    fd_open(&fd, NULL, f, &mt);
    fd_pkt(&fd, 0, RTP_AB(10, 1) READ(1, 0x30));
    fd_pkt(&fd, 10, RTP_AB(10, 1) READ(1, 0x30)); /* retransmission */
    fd_pkt(&fd, 20, RTP_BA(50, 1) RDRSP(1, 0x30));
    fd_pkt(&fd, 30, RTP_BA(50, 1) RDRSP(1, 0x30)); /* retransmitted response */
    fd_pkt(&fd, 40, RTP_AB(11, 1) WRITE(2, 0x30)); /* no TAACK seen yet on RC 0x30: not required */
    fd_close(&fd);
    if (f->n) dump("tp_retransmission", f, &mt);
    CHECK_EQ(f->n, 0);
    CHECK(has_match(&mt, 1, 3, 0, 0x06));
    CHECK_EQ(mt.n, 1);

    /* the same with the service mode stated (expect_taack): the Write is reported, error after 100 ms */
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.layers = UB_ST_TA | UB_ST_MG;
    c.expect_taack = true;
    fd_open(&fd, &c, f, &mt);
    fd_pkt(&fd, 0, RTP_AB(11, 1) WRITE(2, 0x30));
    fd_pkt(&fd, 200000, CTP_AB WRITE(3, 0x31));
    fd_pkt(&fd, 200001, CTP_BA TAACK(3, 0x31));
    fd_close(&fd);
    CHECK(au_has(f, "UB-TA-001", 1));
    CHECK(f->n == 1 && f->f[0].severity == UB_SEV_ERROR);
    free(f);
}

static void test_transport_status(void)
{
    /* RTP + ROL: the TPACK with RSPST 101 replaces the TAACK; RSPST 001 (RNR) answers a Read with a status */
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    feeder fd;
    fd_open(&fd, NULL, f, &mt);
    fd_pkt(&fd, 0, RTP_AB(100, 1) WRITE(1, 0x40));
    fd_pkt(&fd, 1, RTP_AB(101, 1) WRITE(2, 0x40));
    fd_pkt(&fd, 2, RTP_AB(102, 1) READ(3, 0x40));
    fd_pkt(&fd, 10, ACK_BA(102, 5, 2)); /* normal TAACK passthrough up to PSN 102: Writes 1, 2 */
    fd_pkt(&fd, 20, ACK_BA(102, 1, 4)); /* RNR for the Read at PSN 102 */
    fd_pkt(&fd, 30, RTP_AB(103, 1) "btah taopcode=Read ini_tassn=3 ini_rc_id=0x40 retry=1\nmaetah address=0x1000 tokenid=1 length=8\n");
    fd_pkt(&fd, 40, RTP_BA(7, 1) RDRSP(3, 0x40));
    fd_close(&fd);
    if (f->n != 2) dump("transport_status", f, &mt);
    CHECK(au_has(f, "UB-TA-018", 5)); /* RNR carried in the transport ack */
    /* the retry 10 µs after the RNR, whose RNR_Timer 4 asks for 2 µs · 2^4 = 32 µs (UB-TA-019) */
    CHECK(au_has(f, "UB-TA-019", 6));
    CHECK_EQ(f->n, 2);
    const ub_finding *x = find_f(f, "UB-TA-019", 6); /* frames: the RNR ack, the first copy; ns waited, RNR_Timeout */
    CHECK(x && x->nframes == 2 && x->frames[0] == 5 && x->frames[1] == 3 && x->values[0] == 10000 && x->values[1] == 32000);
    CHECK(has_match(&mt, 1, 4, 0, 0x03));
    CHECK(has_match(&mt, 2, 4, 0, 0x03));
    CHECK(has_match(&mt, 3, 5, 0, 0x06));
    CHECK(has_match(&mt, 6, 7, 0, 0x06));
    CHECK_EQ(mt.n, 4);
    free(f);
}

static void test_dll_replay(void)
{
    /* flit capture: an identical copy of a CTP request/response (DLL replay) is not a new packet;
     * a different second response is a duplicate */
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    feeder fd;
    fd_open(&fd, NULL, f, &mt);
    const char *w = "flit\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph\n" WRITE(5, 0x50);
    const char *a = "flit\nlph vl=3\nnth24 scna=0x0a0b0c dcna=0x010203\nctph\n" TAACK(5, 0x50);
    fd_pkt(&fd, 0, w);
    fd_pkt(&fd, 1, w);
    fd_pkt(&fd, 2, a);
    fd_pkt(&fd, 3, a);
    fd_pkt(&fd, 4, "flit\nlph vl=3\nnth24 scna=0x0a0b0c dcna=0x010203\nctph\natah taopcode=TAACK ini_tassn=5 rspst=5 ini_rc_id=0x50\n");
    fd_close(&fd);
    if (f->n != 1) dump("dll_replay", f, &mt);
    CHECK(au_has(f, "UB-TA-003", 5));
    CHECK_EQ(f->n, 1);
    CHECK_EQ(mt.n, 1);
    free(f);
}

static void test_scid(void)
{
    /* §10.6 b′: SV = 1 answers the Alloc = 1 request; INI_RC_Type 10 requests carry the SCID and may
     * be answered with the RCID (I-38) */
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    feeder fd;
    fd_open(&fd, NULL, f, &mt);
    fd_pkt(&fd, 0, CTP_AB "btah taopcode=Write ini_tassn=1 ini_rc_id=0x60 alloc=1\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    fd_pkt(&fd, 1, CTP_BA "atah taopcode=TAACK sv=1 ini_tassn=0x77 ini_rc_id=0x60\n");
    fd_pkt(&fd, 2, CTP_AB "btah taopcode=Write ini_tassn=2 ini_rc_type=2 ini_rc_id=0x77\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    fd_pkt(&fd, 3, CTP_BA "atah taopcode=TAACK ini_tassn=2 ini_rc_type=0 ini_rc_id=0x60\n");
    fd_pkt(&fd, 4, CTP_BA "atah taopcode=TAACK sv=1 ini_tassn=0x78 ini_rc_id=0x61\n"); /* no Alloc request: note */
    fd_close(&fd);
    if (f->n != 1) dump("scid", f, &mt);
    CHECK(au_has(f, "UB-TA-002", 5));
    CHECK(f->n == 1 && f->f[0].severity == UB_SEV_NOTE);
    CHECK(has_match(&mt, 1, 2, 0, 0x03));
    CHECK(has_match(&mt, 3, 4, 0, 0x03));
    free(f);
}

static void test_pairs_share_endpoints(void)
{
    /* RC keys fold the endpoints (st_ta.c ub_ta_rc_key, which remembers the last two folds): three
     * initiators with the same TASSN and RC to one target, and one initiator to two targets,
     * interleaved in both directions, are four RCs, and four more by their EIDs; each request is answered by its own TAACK;
     * enumeration scans between zero addresses are told apart by their GUIDs (the fold's extra word) */
#define CTP(s, d) "pkt\nlph vl=3\nnth24 scna=" s " dcna=" d "\nctph\n"
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    feeder fd;
    fd_open(&fd, NULL, f, &mt);
    fd_pkt(&fd, 0, CTP("0x010203", "0x0a0b0c") WRITE(9, 0x70));  /* 1: A -> T */
    fd_pkt(&fd, 1, CTP("0x020304", "0x0a0b0c") WRITE(9, 0x70));  /* 2: B -> T, same TASSN and RC */
    fd_pkt(&fd, 2, CTP("0x0a0b0c", "0x020304") TAACK(9, 0x70));  /* 3: T -> B */
    fd_pkt(&fd, 3, CTP("0x030405", "0x0a0b0c") WRITE(9, 0x70));  /* 4: C -> T */
    fd_pkt(&fd, 4, CTP("0x010203", "0x0b0c0d") WRITE(9, 0x70));  /* 5: A -> U */
    fd_pkt(&fd, 5, CTP("0x0a0b0c", "0x030405") TAACK(9, 0x70));  /* 6: T -> C */
    fd_pkt(&fd, 6, CTP("0x0a0b0c", "0x010203") TAACK(9, 0x70));  /* 7: T -> A */
    fd_pkt(&fd, 7, CTP("0x0b0c0d", "0x010203") TAACK(9, 0x70));  /* 8: U -> A */
    fd_pkt(&fd, 8, CTP("0x0b0c0d", "0x010203") TAACK(9, 0x70));  /* 9: U -> A again: a duplicate */
    /* the same CNAs, EIDs that differ (EIDH): two more RCs */
#define EID(s, d) "upih16 upi=0x42\neidh40 seid=" s " deid=" d "\n"
    fd_pkt(&fd, 9, CTP("0x010203", "0x0a0b0c") EID("0x00001", "0x00002") WRITE(4, 0x70));  /* 10 */
    fd_pkt(&fd, 10, CTP("0x010203", "0x0a0b0c") EID("0x00003", "0x00002") WRITE(4, 0x70)); /* 11 */
    fd_pkt(&fd, 11, CTP("0x0a0b0c", "0x010203") EID("0x00002", "0x00003") TAACK(4, 0x70)); /* 12 */
    fd_pkt(&fd, 12, CTP("0x0a0b0c", "0x010203") EID("0x00002", "0x00001") TAACK(4, 0x70)); /* 13 */
    fd_pkt(&fd, 13, CTP("0x010203", "0x0a0b0c") EID("0x00001", "0x00005") WRITE(5, 0x70)); /* 14 */
    fd_pkt(&fd, 14, CTP("0x010203", "0x0a0b0c") EID("0x00001", "0x00006") WRITE(5, 0x70)); /* 15 */
    fd_pkt(&fd, 15, CTP("0x0a0b0c", "0x010203") EID("0x00006", "0x00001") TAACK(5, 0x70)); /* 16 */
    fd_pkt(&fd, 16, CTP("0x0a0b0c", "0x010203") EID("0x00005", "0x00001") TAACK(5, 0x70)); /* 17 */
    fd_close(&fd);
#undef EID
#undef CTP
    if (f->n != 1 || mt.n != 8) dump("pairs_share_endpoints", f, &mt);
    CHECK(au_has(f, "UB-TA-003", 9));
    CHECK_EQ(f->n, 1);
    static const uint64_t pairs[][2] = { { 2, 3 }, { 4, 6 }, { 1, 7 }, { 5, 8 }, { 11, 12 }, { 10, 13 }, { 15, 16 }, { 14, 17 } };
    for (unsigned i = 0; i < sizeof pairs / sizeof pairs[0]; i++) /* every Write with its own TAACK (0x03) */
        CHECK(has_match(&mt, pairs[i][0], pairs[i][1], 0, 0x03));
    CHECK_EQ(mt.n, 8);

    /* enumeration before any CNA (zero addresses): the scans are told apart by their GUIDs alone */
#define SCAN(r, pdu, g) "flit\nlph\nnth16 scna=0 dcna=0" r "\nupih16 upi=0x7fff\nenumpad\nscanhdr r=" pdu " type=1 hops=0 step=0\n"
#define GA "12345678120000000000000000000009"
#define GB "12345678120000000000000000000010"
    fd_open(&fd, NULL, f, &mt);
    fd_pkt(&fd, 0, SCAN(" mgmt=1", "1", GA) "scanpdu_req version=1 cmd=2 opcode=2 msgq_id=0 length=7 msn=7 guid=" GA "\nscan_qrycna_req port_idx=0\n");
    fd_pkt(&fd, 1, SCAN(" mgmt=1", "1", GB) "scanpdu_req version=1 cmd=2 opcode=2 msgq_id=0 length=7 msn=7 guid=" GB "\nscan_qrycna_req port_idx=0\n");
    fd_pkt(&fd, 2, SCAN("", "0", GB) "scanpdu_rsp version=1 cmd=2 opcode=0 status=0 msgq_id=0 length=7 msn=7 guid=" GB "\nscan_qrycna_rsp cna=0x000021\n");
    fd_pkt(&fd, 3, SCAN("", "0", GA) "scanpdu_rsp version=1 cmd=2 opcode=0 status=0 msgq_id=0 length=7 msn=7 guid=" GA "\nscan_qrycna_rsp cna=0x000020\n");
    fd_close(&fd);
#undef GB
#undef GA
#undef SCAN
    if (f->n || mt.n != 2) dump("pairs_share_endpoints: scans", f, &mt);
    CHECK_EQ(f->n, 0);
    CHECK_EQ(mt.n, 2);
    CHECK(mt.n == 2 && mt.m[0].req_frame == 2 && mt.m[0].rsp_frame == 3 && mt.m[1].req_frame == 1 && mt.m[1].rsp_frame == 4);
    free(f);
}

static void test_decode_damaged(void)
{
    /* cases whose response is itself a decode finding (so not in a round-trip-clean .ub):
     * a compact CFG 9 Write answered by a full 8-byte TAACK (R-25 decodes it as compact + 4 bytes);
     * a Link Up event answered with a PDU (the driver's replies carry none) */
    au_findings *f = (au_findings *)malloc(sizeof *f);
    matches mt;
    feeder fd;
    fd_open(&fd, NULL, f, &mt);
    fd_pkt(&fd, 0, "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=7\n"
                   "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload inc=64\n");
    fd_pkt(&fd, 1, "flit\nlph vl=0 cfg=9\nnth16 scna=0x0304 dcna=0x0102\natah taopcode=TAACK ini_tassn=7\n");
    const char *ev = "flit\nlph\nnth16 scna=0x10 dcna=1\nctph\nupih16 upi=0x7fff\neidh40 seid=2 deid=1\n"
                     "btah taopcode=Management ee_bits=1 ini_tassn=30 ini_rc_id=0\nmgmtetah code=1 sub_code=0 rsp=0\n"
                     "mg_link scna=0x000010 port_idx=3\n";
    fd_pkt(&fd, 2, ev);
    fd_pkt(&fd, 3, "flit\nlph\nnth16 scna=1 dcna=0x10 mgmt=1\nctph\nupih16 upi=0x7fff\neidh40 seid=1 deid=2\n"
                   "btah taopcode=Management ee_bits=1 ini_tassn=30 ini_rc_id=0\nmgmtetah code=1 sub_code=0 rsp=1 status=0\n"
                   "mg_link scna=0x000010 port_idx=3\n");
    fd_close(&fd);
    if (f->n != 2) dump("decode_damaged", f, &mt);
    const ub_finding *x = find_f(f, "UB-TA-005", 2);
    CHECK(x && x->frames[0] == 1 && x->values[0] == 1 && x->values[1] == 0); /* compact request, full response */
    x = find_f(f, "UB-MG-009", 4);
    CHECK(x && x->frames[0] == 3 && x->values[0] == 1 && x->values[1] == 0);
    CHECK_EQ(f->n, 2);
    CHECK(has_match(&mt, 1, 2, 0, 0x03));
    CHECK(has_match(&mt, 3, 4, 1, 0x110));
    free(f);
}

static void test_send_offsets(void)
{
    /* TA-08 on a 3-packet RTP Send: OFSTETAH.Offset advances by the KB count of the previous packet
     * (0, 1, then 3 instead of 2); TA-04: a TAACK to a Management request */
    au_findings *f = (au_findings *)malloc(sizeof *f);
    feeder fd;
    fd_open(&fd, NULL, f, NULL);
#define SEND(off) "btah taopcode=Send ini_tassn=9 ini_rc_id=0x80\nmtetah tgt_tc_id=0x77\nofstetah offset=" #off "\npayload inc=1024\n"
    fd_pkt(&fd, 0, RTP_AB(20, 0) SEND(0));
    fd_pkt(&fd, 1, RTP_AB(21, 0) SEND(1));
    fd_pkt(&fd, 2, RTP_AB(22, 1) SEND(3));
#undef SEND
    fd_pkt(&fd, 3, "pkt\nlph\nnth16 scna=1 dcna=0x10 mgmt=1\nctph\nupih16 upi=0x7fff\neidh40 seid=1 deid=2\n"
                   "btah taopcode=Management ee_bits=1 ini_tassn=7 ini_rc_id=3\nmgmtetah code=1 sub_code=0 rsp=0\n"
                   "mg_link scna=0x000010 port_idx=3\n");
    fd_pkt(&fd, 4, "pkt\nlph cfg=6\nnth16 scna=0x10 dcna=1\nctph\nupih16 upi=0x7fff\neidh40 seid=2 deid=1\n"
                   "atah taopcode=TAACK ini_tassn=7 ini_rc_id=3\n");
    fd_close(&fd);
    if (f->n != 2) dump("send_offsets", f, NULL);
    const ub_finding *x = find_f(f, "UB-TA-011", 3);
    CHECK(x && x->frames[0] == 2 && x->values[0] == 3 && x->values[1] == 2);
    x = find_f(f, "UB-TA-007", 5);
    CHECK(x && x->frames[0] == 4 && x->values[0] == 0x10 && x->values[1] == 0x11);
    CHECK_EQ(f->n, 2);
    free(f);
}

static void test_timeout_and_layers(void)
{
    au_findings *f = (au_findings *)malloc(sizeof *f);
    feeder fd;
    /* §10.6 e: the capture ends 50 ms after the Read → note; a 10 ms timeout makes it an error */
    fd_open(&fd, NULL, f, NULL);
    fd_pkt(&fd, 0, CTP_AB READ(1, 0x70));
    fd_pkt(&fd, 50000, CTP_AB WRITE(2, 0x71));
    fd_pkt(&fd, 50001, CTP_BA TAACK(2, 0x71));
    fd_close(&fd);
    CHECK(f->n == 1 && au_has(f, "UB-TA-001", 1) && f->f[0].severity == UB_SEV_NOTE);
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.layers = UB_ST_TA;
    c.response_timeout_ns = 10000000;
    fd_open(&fd, &c, f, NULL);
    fd_pkt(&fd, 0, CTP_AB READ(1, 0x70));
    fd_pkt(&fd, 50000, CTP_AB WRITE(2, 0x71));
    fd_pkt(&fd, 50001, CTP_BA TAACK(2, 0x71));
    /* management is off: this orphan response is not reported */
    fd_pkt(&fd, 50002, "pkt\nlph\nnth16 scna=0x10 dcna=1\nctph\nupih16 upi=0x7fff\neidh40 seid=2 deid=1\n"
                       "btah taopcode=Management ee_bits=1 ini_tassn=9 ini_rc_id=3\nmgmtetah code=2 sub_code=0 rsp=1\nmg_cfg_rsp data=1\n");
    fd_close(&fd);
    CHECK(f->n == 1 && au_has(f, "UB-TA-001", 1) && f->f[0].severity == UB_SEV_ERROR);
    /* management only: the unanswered Read is not reported, the orphan response is */
    c.layers = UB_ST_MG;
    fd_open(&fd, &c, f, NULL);
    fd_pkt(&fd, 0, CTP_AB READ(1, 0x70));
    fd_pkt(&fd, 50002, "pkt\nlph\nnth16 scna=0x10 dcna=1\nctph\nupih16 upi=0x7fff\neidh40 seid=2 deid=1\n"
                       "btah taopcode=Management ee_bits=1 ini_tassn=9 ini_rc_id=3\nmgmtetah code=2 sub_code=0 rsp=1\nmg_cfg_rsp data=1\n");
    fd_close(&fd);
    CHECK(f->n == 1 && au_has(f, "UB-MG-007", 2));
    /* a bad ICRC keeps the packet out of the transaction state (§10.6 d) */
    fd_open(&fd, NULL, f, NULL);
    fd_pkt(&fd, 0, "pkt icrc=bad\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph\n" READ(1, 0x70));
    fd_pkt(&fd, 1, CTP_BA RDRSP(1, 0x70));
    fd_close(&fd);
    CHECK(f->n == 1 && au_has(f, "UB-TA-002", 2) && f->f[0].severity == UB_SEV_NOTE);
    free(f);
}

/* ---------------------------------------------------------------- hostile input */
static void test_bounded(void)
{
    /* never-answered Reads from ever new initiators, ever new RTP channels and scan requests: the
     * tables stay within their bounds, evictions are counted and reported once per table */
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.layers = UB_ST_TA | UB_ST_MG;
    c.max_transactions = 1024;
    c.max_channels = 512;
    c.max_mgmt = 256;
    au_findings *f = (au_findings *)malloc(sizeof *f);
    feeder fd;
    fd_open(&fd, &c, f, NULL);
    uint8_t rd[256], sc[256], rt[256];
    char err[256];
    ub_entry erd, esc, ert;
    /* CFG 9 compact Read (no CRC in a packet record): SCNA at bytes 4-5, INI_TASSN at 14-15 */
    long nrd = ub_build_text("pkt\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Read ee_bits=1 ini_tassn=1\n"
                             "maetah_c address=0x1000 tokenid=1 length=0\n", &fd.o, rd, sizeof rd, &erd, err, sizeof err);
    /* enumeration request without ICRC: MSN in the Scan PDU */
    long nsc = ub_build_text("pkt icrc=none\nlph\nnth16 scna=0 dcna=0 mgmt=1\nupih16 upi=0x7fff\nenumpad\nscanhdr r=1 type=1 hops=0 step=0\n"
                             "scanpdu_req version=1 cmd=2 opcode=2 msgq_id=0 length=7 msn=1 guid=12345678120000000000000000000009\n"
                             "scan_qrycna_req port_idx=0\n", &fd.o, sc, sizeof sc, &esc, err, sizeof err);
    /* RTP Read at the TP entry point (UDP payload, no ICRC): a new SrcTPN, i.e. a new channel, each time */
    long nrt = ub_build_text("tph\nrtph last=1 srctpn=1 dsttpn=2 psn=5 tpmsn=1\nbtah taopcode=Read ini_tassn=1 ini_rc_id=1\n"
                             "maetah address=0x1000 tokenid=1 length=8\n", &fd.o, rt, sizeof rt, &ert, err, sizeof err);
    CHECK(nrd > 0 && nsc > 0 && nrt > 0);
    int off_scna = -1, off_tassn = -1, off_msn = -1;
    ub_decode(fd.v, &fd.o, erd, rd, (uint32_t)nrd);
    for (unsigned i = 0; i < fd.v->nlayers; i++) {
        if (fd.v->layer[i].hdr->id == UB_H_NTH16) off_scna = (int)(fd.v->layer[i].data - rd);
        if (fd.v->layer[i].hdr->id == UB_H_BTAH_C) off_tassn = (int)(fd.v->layer[i].data - rd) + 2;
    }
    ub_decode(fd.v, &fd.o, esc, sc, (uint32_t)nsc);
    for (unsigned i = 0; i < fd.v->nlayers; i++)
        if (fd.v->layer[i].hdr->id == UB_H_SCANPDU_REQ) off_msn = (int)(fd.v->layer[i].data - sc) + 6;
    CHECK(off_scna >= 0 && off_tassn >= 0 && off_msn >= 0);
    const unsigned N = 60000;
    uint64_t frame = 0;
    for (unsigned i = 0; i < N && off_scna >= 0 && off_tassn >= 0 && off_msn >= 0; i++) {
        ub_pktinfo pi = { ++frame, (uint64_t)i * 1000u, 0, 0 };
        rd[off_scna] = (uint8_t)(i >> 8);
        rd[off_scna + 1] = (uint8_t)i;
        rd[off_tassn] = (uint8_t)(i >> 3);
        rd[off_tassn + 1] = (uint8_t)(i * 7);
        ub_decode(fd.v, &fd.o, erd, rd, (uint32_t)nrd);
        ub_state_packet(fd.st, fd.v, &pi);
        if (i % 4 == 0) { /* RTP: SrcTPN bytes 2-4 of the RTPH, a new channel each time */
            rt[2] = (uint8_t)(i >> 16);
            rt[3] = (uint8_t)(i >> 8);
            rt[4] = (uint8_t)i;
            pi.frame = ++frame;
            ub_decode(fd.v, &fd.o, ert, rt, (uint32_t)nrt);
            ub_state_packet(fd.st, fd.v, &pi);
        }
        if (i % 8 == 0) {
            sc[off_msn] = (uint8_t)(i >> 11);
            sc[off_msn + 1] = (uint8_t)(i >> 3);
            pi.frame = ++frame;
            ub_decode(fd.v, &fd.o, esc, sc, (uint32_t)nsc);
            ub_state_packet(fd.st, fd.v, &pi);
        }
        if (i % 5000 == 0) {
            ub_state_stats st;
            ub_state_get_stats(fd.st, &st);
            CHECK(st.transactions <= c.max_transactions);
            CHECK(st.mgmt <= c.max_mgmt);
        }
    }
    ub_state_stats st;
    ub_state_get_stats(fd.st, &st);
    CHECK_EQ(st.transactions, c.max_transactions); /* full, never above the bound */
    CHECK_EQ(st.mgmt, c.max_mgmt);
    CHECK(st.evicted_transactions > 50000);
    CHECK(st.evicted_mgmt > 5000);
    CHECK_EQ(au_count(f, "UB-ST-001"), 0);
    f->n = 0;      /* (the list is full of per-packet findings) */
    fd_close(&fd); /* UB-ST-001 is reported at the end, with the totals */
    unsigned tables = 0;
    for (unsigned i = 0; i < f->n; i++)
        if (strncmp(f->item[i], "UB-ST-001@", 10) == 0) {
            unsigned t = (unsigned)f->f[i].values[0];
            tables |= 1u << t;
            CHECK_EQ((uint64_t)f->f[i].values[1], st.tbl[t].evicted); /* the real count, not "so far" */
            CHECK_EQ((uint64_t)f->f[i].values[2], st.tbl[t].bound);
        }
    CHECK_EQ(au_count(f, "UB-ST-001"), 4); /* once each: transactions, management, requesters, channel memo */
    CHECK_EQ(tables, (1u << UB_TBL_TRANSACTIONS) | (1u << UB_TBL_MGMT) | (1u << UB_TBL_REQUESTERS) | (1u << UB_TBL_TA_CHANNELS));
    CHECK_EQ(st.evicted_total, st.tbl[UB_TBL_TRANSACTIONS].evicted + st.tbl[UB_TBL_MGMT].evicted +
                                   st.tbl[UB_TBL_REQUESTERS].evicted + st.tbl[UB_TBL_TA_CHANNELS].evicted);
    free(f);
}

/* Tables start small and grow to their bounds (issue #11): a 1-packet audit holds little memory, the
 * memory grows with the entries in use, and the end-of-capture findings come in the same order
 * whatever the bound (i.e. whatever size the tables grew to). */
static void growth_run(uint32_t max_channels, unsigned nch, au_findings *f, ub_state_stats *st)
{
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.max_channels = max_channels;
    feeder fd;
    fd_open(&fd, &c, f, NULL);
    char text[512];
    for (unsigned i = 0; i < nch; i++)
        for (unsigned psn = 1; psn <= 3; psn += 2) { /* PSN 2 of every channel never seen */
            /* RTP Write at the TP entry point (UDP payload, no ICRC), channel i */
            snprintf(text, sizeof text, "tph\nrtph last=1 srctpn=%u dsttpn=2 psn=%u tpmsn=1\nbtah taopcode=Write ini_tassn=%u ini_rc_id=1\n"
                     "maetah address=0x1000 tokenid=1 length=8\npayload inc=8\n", i + 1, psn, psn);
            uint8_t rt[256];
            char err[256];
            ub_entry e = UB_ENTRY_FLIT;
            long n = ub_build_text(text, &fd.o, rt, sizeof rt, &e, err, sizeof err);
            CHECK(n > 0);
            if (n <= 0) break;
            ub_pktinfo pi = { ++fd.frame, fd.frame * 1000u, 0, 0 };
            ub_decode(fd.v, &fd.o, e, rt, (uint32_t)n);
            ub_state_packet(fd.st, fd.v, &pi);
        }
    ub_state_get_stats(fd.st, st);
    fd_close(&fd);
}

static void test_table_growth(void)
{
    au_findings *a = (au_findings *)malloc(sizeof *a), *b = (au_findings *)malloc(sizeof *b);
    ub_state_stats s1, sa, sb;
    /* one packet with the default bounds (16,384 channels, 65,536 transactions): under 256 KiB (39 KiB
     * today: a table gets its first 16 slots with its first entry; the 64 link directions), not the
     * ~47 MB the tables take at their bounds */
    growth_run(16384, 1, a, &s1);
    CHECK(s1.table_bytes > 0);
    CHECK(s1.table_bytes < 256 * 1024);
    CHECK_EQ(s1.tbl[UB_TBL_CHANNELS].live, 1);
    /* 1,500 channels: the TP channel table grew (to 2,048 slots: 1,500 at <= 3/4 load)... */
    growth_run(16384, 1500, a, &sa);
    CHECK_EQ(sa.tbl[UB_TBL_CHANNELS].live, 1500);
    CHECK(sa.tbl[UB_TBL_CHANNELS].bytes > s1.tbl[UB_TBL_CHANNELS].bytes * 64);
    CHECK_EQ(sa.tbl[UB_TBL_CHANNELS].evicted, 0);
    /* ...and with a bound of 1,600 (a table that reaches its full size) the findings are the same,
     * in the same order: the iteration at the end does not depend on the table's size */
    growth_run(1600, 1500, b, &sb);
    CHECK_EQ(sb.tbl[UB_TBL_CHANNELS].live, 1500);
    CHECK_EQ(sb.tbl[UB_TBL_CHANNELS].evicted, 0);
    CHECK_EQ(au_count(a, "UB-TP-002"), 1500);
    CHECK_EQ(a->n, b->n);
    unsigned same = 0;
    for (unsigned i = 0; i < a->n && i < b->n; i++) same += strcmp(a->item[i], b->item[i]) == 0;
    CHECK_EQ(same, a->n);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* exploration: test_st_ta FILE... */
        for (int i = 1; i < argc; i++) {
            au_findings *f = (au_findings *)malloc(sizeof *f);
            matches mt;
            if (run(argv[i], NULL, f, &mt) == 0) dump(argv[i], f, &mt);
            free(f);
        }
        return 0;
    }
    test_clean();
    test_responder();
    test_mgmt();
    test_samples();
    test_tp_retransmission();
    test_transport_status();
    test_dll_replay();
    test_scid();
    test_pairs_share_endpoints();
    test_decode_damaged();
    test_send_offsets();
    test_timeout_and_layers();
    test_bounded();
    test_table_growth();
    return ub_test_finish();
}
