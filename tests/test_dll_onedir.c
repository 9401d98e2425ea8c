/* One link direction in a classic pcap (no pcapng direction flags), as a single-port link analyzer
 * writes it (issue #9 item 3, digest §10.6 g/i): the retry-set rules that need one direction only
 * (DL-15 structure, DL-17 NUM_RETRY) run there. Each scenario is written as a real LINKTYPE_USER0
 * pcap file, read back and audited; findings are asserted at their frames. */
#include "audit_util.h"
#include "ubtest.h"

#include <stdarg.h>

static ub_opts O;
static ub_capw *W;
static unsigned NREC;
static char PATH[1024];

#define IDLE "flit\nlch ctrl=1 sub_ctrl=0"
#define NUL "flit\nlch ctrl=0 sub_ctrl=0"
#define REQ(phy, retry) "flit\nlch ctrl=1 sub_ctrl=1\ndllcb_retry_req rcvptr=16 num_phy_reinit=" #phy " num_retry=" #retry
#define ACK "flit\nlch ctrl=1 sub_ctrl=2\ndllcb_retry_ack numfreebuf=100 rdptr=16 wrptr=48"
#define DATA "flit\nlph vl=0\nnth16 scna=0x0304 dcna=0x0102\natah_c taopcode=TAACK ini_tassn=1"

static void begin(const char *name)
{
    char err[256];
    snprintf(PATH, sizeof PATH, "%s/onedir_%s.pcap", UB_BINARY_DIR, name);
    W = ub_capw_open(PATH, false, 147, err, sizeof err); /* classic pcap: no direction */
    if (!W) fprintf(stderr, "%s: %s\n", PATH, err);
    CHECK(W != NULL);
    NREC = 0;
}

/* append n copies of one record; returns the frame number of the first */
static unsigned put(const char *text, unsigned n)
{
    static uint8_t buf[4096];
    char err[256];
    ub_entry e;
    long len = ub_build_text(text, &O, buf, sizeof buf, &e, err, sizeof err);
    if (len <= 0) fprintf(stderr, "build: %s\n", err);
    CHECK(len > 0);
    unsigned first = NREC + 1;
    for (unsigned i = 0; i < n && W && len > 0; i++) {
        CHECK_EQ(ub_capw_write(W, 0, 1000000ull * ++NREC, buf, (uint32_t)len, UB_DIR_UNKNOWN), 0);
    }
    return first;
}

static void run(au_findings *a)
{
    CHECK_EQ(ub_capw_close(W), 0);
    W = NULL;
    CHECK_EQ(au_run_file(PATH, &O, NULL, a), 0);
}

/* findings at warning or error only (notes are allowed everywhere) */
static unsigned serious(const au_findings *a)
{
    unsigned n = 0;
    for (unsigned i = 0; i < a->n; i++) n += a->f[i].severity >= UB_SEV_WARN;
    return n;
}

static au_findings A;

int main(void)
{
    ub_opts_default(&O);

    /* 1. a short Retry_Req_Set followed by Null Blocks: DL-15 at the first Null Block */
    begin("short_then_null");
    put(DATA, 3);
    unsigned idle = put(IDLE, 1);
    put(REQ(0, 1), 10);
    unsigned null = put(NUL, 5);
    run(&A);
    CHECK(au_has(&A, "UB-DL-016", null));
    CHECK_EQ(au_count(&A, "UB-DL-016"), 1);
    for (unsigned i = 0; i < A.n; i++) /* the finding cites the set's Retry_Idle */
        if (strncmp(A.item[i], "UB-DL-016@", 10) == 0) CHECK(A.f[i].nframes >= 1 && A.f[i].frames[0] == idle);
    CHECK_EQ(serious(&A), 1);
    if (serious(&A) != 1) au_dump(&A, "short_then_null");

    /* 2. a correct set, normal traffic, then a short set in a later retry event: DL-15 there only */
    begin("later_event_short");
    put(DATA, 2);
    put(IDLE, 1);
    put(REQ(0, 1), 32);
    put(DATA, 4);
    put(IDLE, 1);
    put(REQ(0, 1), 20);
    unsigned after = put(DATA, 2);
    run(&A);
    CHECK(au_has(&A, "UB-DL-016", after));
    CHECK_EQ(au_count(&A, "UB-DL-016"), 1);
    CHECK_EQ(serious(&A), 1);
    if (serious(&A) != 1) au_dump(&A, "later_event_short");

    /* 3. sets cut by the capture start and by the capture end: silent (§10.6 i) */
    begin("cut");
    put(REQ(0, 2), 17); /* the capture starts inside a set */
    put(DATA, 3);
    put(IDLE, 1);
    put(REQ(0, 1), 32);
    put(DATA, 2);
    put(IDLE, 1);
    put(REQ(0, 1), 9); /* the capture ends inside a set */
    run(&A);
    CHECK_EQ(serious(&A), 0);
    if (serious(&A)) au_dump(&A, "cut");

    /* 4. correct sets: a whole event of three sets (NUM_RETRY 1, 2, 3) and a Retry_Ack_Set: silent */
    begin("correct");
    put(DATA, 2);
    for (unsigned k = 1; k <= 3; k++) {
        put(IDLE, 1);
        char body[256];
        snprintf(body, sizeof body, "flit\nlch ctrl=1 sub_ctrl=1\ndllcb_retry_req rcvptr=16 num_phy_reinit=0 num_retry=%u", k);
        put(body, 32);
        put(NUL, 3);
    }
    put(IDLE, 1);
    put(ACK, 32);
    put(DATA, 2);
    put(IDLE, 1); /* a new event after traffic starts again at 1 */
    put(REQ(0, 1), 32);
    put(DATA, 1);
    run(&A);
    CHECK_EQ(serious(&A), 0);
    CHECK(au_count(&A, "UB-DL-018") >= 1); /* the note: Retry_Req_Set repeated (DL Retry ACK Timeout) */
    if (serious(&A)) au_dump(&A, "correct");

    /* 5. NUM_RETRY that does not count up: DL-17 at the first copy of the offending set */
    begin("num_retry");
    put(DATA, 1);
    put(IDLE, 1);
    put(REQ(0, 1), 32);
    put(IDLE, 1);
    put(REQ(0, 2), 32);
    put(IDLE, 1);
    unsigned bad = put(REQ(0, 4), 32); /* 2 -> 4 */
    put(DATA, 1);
    run(&A);
    CHECK(au_has(&A, "UB-DL-018", bad));
    CHECK_EQ(serious(&A), 1);
    if (serious(&A) != 1) au_dump(&A, "num_retry");

    /* 6. copies that differ, and a Retry_Ack_Set of 31 copies followed by a DLLDP */
    begin("diff_and_short_ack");
    put(DATA, 1);
    put(IDLE, 1);
    put(REQ(0, 1), 5);
    unsigned diff = put(REQ(0, 1) " rcvptr=17", 1);
    put(REQ(0, 1), 26);
    put(DATA, 1);
    put(IDLE, 1);
    put(ACK, 31);
    unsigned d2 = put(DATA, 1);
    run(&A);
    CHECK(au_has(&A, "UB-DL-016", diff));
    CHECK(au_has(&A, "UB-DL-016", d2));
    CHECK_EQ(serious(&A), 2);
    if (serious(&A) != 2) au_dump(&A, "diff_and_short_ack");

    return ub_test_finish();
}
