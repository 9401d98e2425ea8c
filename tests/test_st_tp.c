/* State engine, network + transport rules (st_tp.c, digest §10.2, §10.3, §10.6): scenario captures
 * with their exact findings, synthetic packet sequences for every rule, the Wireshark notes and
 * data↔ack matches, and a hostile flood of channels (bounded memory, eviction). */
#include "audit_util.h"
#include "ubtest.h"

#include <time.h>

#define CAP(name) UB_SOURCE_DIR "/captures/" name

/* findings of one layer prefix ("UB-TP-", "UB-NW-") */
static unsigned count_prefix(const au_findings *f, const char *pfx)
{
    unsigned n = 0;
    for (unsigned i = 0; i < f->n; i++)
        if (strncmp(f->item[i], pfx, strlen(pfx)) == 0) n++;
    return n;
}
static const ub_finding *find(const au_findings *f, const char *rule, unsigned long long frame)
{
    char want[48];
    snprintf(want, sizeof want, "%s@%llu", rule, frame);
    for (unsigned i = 0; i < f->n; i++)
        if (strcmp(f->item[i], want) == 0) return &f->f[i];
    return NULL;
}
#define CHECK_FINDING(f, rule, frame, sev)                                                                             \
    do {                                                                                                               \
        const ub_finding *fi_ = find(f, rule, frame);                                                                  \
        CHECK(fi_ != NULL);                                                                                            \
        if (fi_) CHECK_EQ(fi_->severity, sev);                                                                         \
        if (!fi_) au_dump(f, rule);                                                                                    \
    } while (0)

/* ---------------------------------------------------------------- in-memory feeder */
typedef struct feeder {
    ub_state *st;
    ub_view *v;
    ub_opts o;
    uint64_t frame;
    au_findings f;
    unsigned nnotes, nmatch;
    ub_pkt_note notes[256];
    ub_match match[64];
} feeder;

static void fd_note(void *ctx, const ub_pkt_note *n)
{
    feeder *fd = ctx;
    if (fd->nnotes < 256) fd->notes[fd->nnotes++] = *n;
}
static void fd_match(void *ctx, const ub_match *m)
{
    feeder *fd = ctx;
    if (fd->nmatch < 64) fd->match[fd->nmatch++] = *m;
}

static feeder *fd_new(const ub_state_cfg *cfg)
{
    feeder *fd = calloc(1, sizeof *fd);
    ub_state_cfg c;
    if (cfg) c = *cfg;
    else ub_state_cfg_default(&c);
    ub_opts_default(&fd->o);
    fd->v = malloc(sizeof *fd->v);
    fd->st = ub_state_new(&c, au_cb, &fd->f);
    ub_state_set_note_cb(fd->st, fd_note, fd);
    ub_state_set_match_cb(fd->st, fd_match, fd);
    return fd;
}
static void fd_free(feeder *fd)
{
    ub_state_free(fd->st);
    free(fd->v);
    free(fd);
}
/* build one record from builder text and feed it (frame numbers count from 1) */
static uint64_t feed(feeder *fd, double ts_us, unsigned ifindex, const char *text)
{
    static uint8_t buf[16384];
    char err[256];
    ub_entry e;
    long n = ub_build_text(text, &fd->o, buf, sizeof buf, &e, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "build failed: %s\n%s\n", err, text);
        CHECK(n >= 0);
        return 0;
    }
    ub_decode(fd->v, &fd->o, e, buf, (uint32_t)n);
    ub_pktinfo pi = { ++fd->frame, (uint64_t)(ts_us * 1000.0), ifindex, UB_DIR_UNKNOWN };
    ub_state_packet(fd->st, fd->v, &pi);
    return fd->frame;
}
static void fd_finish(feeder *fd) { ub_state_finish(fd->st); }

/* CFG 7 packets between X = 0x010203 and Y = 0x0a0b0c: data X -> Y, acks Y -> X */
static uint64_t data7(feeder *fd, double t, unsigned stpn, unsigned dtpn, unsigned psn, unsigned msn, const char *lph,
                      const char *rtph)
{
    char txt[1024];
    snprintf(txt, sizeof txt,
             "pkt\nlph vl=2 %s\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph srctpn=%u dsttpn=%u psn=%u tpmsn=%u %s\n"
             "btah taopcode=Write ini_tassn=%u ini_rc_id=0x42\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n",
             lph, stpn, dtpn, psn, msn, rtph, psn & 0xFFFF);
    return feed(fd, t, 0, txt);
}
static uint64_t ack7(feeder *fd, double t, unsigned stpn, unsigned dtpn, const char *rtph, const char *more)
{
    char txt[1024];
    snprintf(txt, sizeof txt, "pkt\nlph vl=2\nnth24 scna=0x0a0b0c dcna=0x010203\nrtph srctpn=%u dsttpn=%u %s\n%s", dtpn, stpn,
             rtph, more ? more : "");
    return feed(fd, t, 0, txt);
}
#define D(fd, t, psn, msn) data7(fd, t, 1, 2, psn, msn, "", "last=1")
#define A(fd, t, rtph) ack7(fd, t, 1, 2, rtph, NULL)

/* ================================================================ scenario captures */
static void test_clean(void)
{
    ub_opts o;
    ub_opts_default(&o);
    static au_findings f;
    CHECK(au_run_file(CAP("audit_rtp_clean.pcapng"), &o, NULL, &f) == 0);
    CHECK_EQ(count_prefix(&f, "UB-TP-"), 0);
    CHECK_EQ(count_prefix(&f, "UB-NW-"), 0);
    if (count_prefix(&f, "UB-TP-") || count_prefix(&f, "UB-NW-")) au_dump(&f, "clean");
}

static void test_lossy(void)
{
    ub_opts o;
    ub_opts_default(&o);
    static au_findings f;
    CHECK(au_run_file(CAP("audit_rtp_lossy.pcapng"), &o, NULL, &f) == 0);
    /* L1: 202 lost upstream, TPNAK(202), GoBackN resend 202..205 */
    CHECK_FINDING(&f, "UB-TP-006", 8, UB_SEV_NOTE); /* TP_GAP_FILLED: first copy of 202 */
    CHECK_FINDING(&f, "UB-TP-003", 9, UB_SEV_NOTE); /* TP_RETRANSMISSION 203, first copy frame 4 */
    CHECK_FINDING(&f, "UB-TP-003", 10, UB_SEV_NOTE);
    CHECK_FINDING(&f, "UB-TP-003", 11, UB_SEV_NOTE);
    const ub_finding *r = find(&f, "UB-TP-003", 9);
    if (r) {
        CHECK_EQ(r->nframes, 1);
        CHECK_EQ(r->frames[0], 4);
        CHECK_EQ(r->values[0], 203);
        CHECK_STR(r->keytext, "0x010203->0x0a0b0c TPN 0x301->0x401");
    }
    r = find(&f, "UB-TP-003", 11);
    if (r) CHECK_EQ(r->frames[0], 7);
    /* L2: 302 never captured nor acked: TP_LOST at the first packet after the gap (frame 15) */
    CHECK_FINDING(&f, "UB-TP-002", 15, UB_SEV_ERROR);
    r = find(&f, "UB-TP-002", 15);
    if (r) {
        CHECK_EQ(r->values[0], 302);
        CHECK_EQ(r->values[1], 1);
    }
    /* L3: TPACK(60) while 51 is the highest sent */
    CHECK_FINDING(&f, "UB-TP-008", 20, UB_SEV_ERROR);
    r = find(&f, "UB-TP-008", 20);
    if (r) {
        CHECK_EQ(r->values[0], 60);
        CHECK_EQ(r->values[1], 51);
    }
    CHECK_EQ(count_prefix(&f, "UB-TP-"), 6);
    CHECK_EQ(count_prefix(&f, "UB-NW-"), 0);
    CHECK_EQ(au_count(&f, "UB-TP-010"), 0); /* the resends start at the TPNAK's PSN */

    /* §10.6 c option: per-packet load balancing, gaps are notes */
    ub_state_cfg cfg;
    ub_state_cfg_default(&cfg);
    cfg.gaps_are_notes = true;
    CHECK(au_run_file(CAP("audit_rtp_lossy.pcapng"), &o, &cfg, &f) == 0);
    CHECK_FINDING(&f, "UB-TP-002", 15, UB_SEV_NOTE);
    CHECK_FINDING(&f, "UB-TP-008", 20, UB_SEV_NOTE);

    /* only the transport layer enabled: still the same TP findings */
    ub_state_cfg_default(&cfg);
    cfg.layers = UB_ST_TP;
    CHECK(au_run_file(CAP("audit_rtp_lossy.pcapng"), &o, &cfg, &f) == 0);
    CHECK_EQ(f.n, 6);
    cfg.layers = UB_ST_NW; /* network only: no TP finding */
    CHECK(au_run_file(CAP("audit_rtp_lossy.pcapng"), &o, &cfg, &f) == 0);
    CHECK_EQ(count_prefix(&f, "UB-TP-"), 0);
}

static void test_sack(void)
{
    ub_opts o;
    ub_opts_default(&o);
    static au_findings f;
    CHECK(au_run_file(CAP("audit_rtp_sack.pcapng"), &o, NULL, &f) == 0);
    /* episode 1: correct TPSACKs, resends of the 0 bits */
    CHECK_FINDING(&f, "UB-TP-003", 10, UB_SEV_NOTE);
    CHECK_FINDING(&f, "UB-TP-003", 11, UB_SEV_NOTE);
    /* episode 2: BitMap[0] = 0 */
    CHECK_FINDING(&f, "UB-TP-011", 16, UB_SEV_ERROR);
    CHECK_FINDING(&f, "UB-TP-003", 17, UB_SEV_NOTE);
    /* episode 3: resend of 411 which the TPSACK (frame 22) reported received */
    CHECK_FINDING(&f, "UB-TP-003", 23, UB_SEV_NOTE);
    CHECK_FINDING(&f, "UB-TP-003", 24, UB_SEV_NOTE);
    CHECK_FINDING(&f, "UB-TP-011", 24, UB_SEV_ERROR);
    const ub_finding *r = find(&f, "UB-TP-011", 24);
    if (r) {
        CHECK_EQ(r->frames[0], 22);
        CHECK_EQ(r->values[0], 411);
    }
    /* U: A = 1 packet never acknowledged, capture goes on 190 ms */
    CHECK_FINDING(&f, "UB-TP-014", 28, UB_SEV_WARN);
    CHECK_FINDING(&f, "UB-TP-018", 28, UB_SEV_ERROR);
    CHECK_EQ(count_prefix(&f, "UB-TP-"), 9);
    CHECK_EQ(count_prefix(&f, "UB-NW-"), 0);

    /* with a shorter capture tail than the timeout the end-of-capture findings are notes (§10.6 e) */
    ub_state_cfg cfg;
    ub_state_cfg_default(&cfg);
    cfg.response_timeout_ns = 500000000ull;
    CHECK(au_run_file(CAP("audit_rtp_sack.pcapng"), &o, &cfg, &f) == 0);
    CHECK_FINDING(&f, "UB-TP-014", 28, UB_SEV_NOTE);
    CHECK_FINDING(&f, "UB-TP-018", 28, UB_SEV_NOTE);

    /* R-18 alternative bit order: the correct TPSACKs now read BitMap[0] = 0 */
    o.bitmap_order = 1;
    CHECK(au_run_file(CAP("audit_rtp_sack.pcapng"), &o, NULL, &f) == 0);
    CHECK(au_has(&f, "UB-TP-011", 5));
    CHECK(au_has(&f, "UB-TP-011", 9));
}

/* notes and matches over the scenario files (what the Wireshark plugin shows) */
typedef struct { unsigned nn, nm; ub_pkt_note n[64]; ub_match m[64]; au_findings *f; } cb_ctx;
static void c_note(void *ctx, const ub_pkt_note *n)
{
    cb_ctx *c = ctx;
    if (c->nn < 64) c->n[c->nn++] = *n;
}
static void c_match(void *ctx, const ub_match *m)
{
    cb_ctx *c = ctx;
    if (m->kind == 2 && c->nm < 64) c->m[c->nm++] = *m;
}
static void run_cb(const char *path, cb_ctx *c)
{
    char err[256];
    ub_opts o;
    ub_opts_default(&o);
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    CHECK(cf != NULL);
    if (!cf) return;
    ub_state_cfg cfg;
    ub_state_cfg_default(&cfg);
    ub_state *st = ub_state_new(&cfg, au_cb, c->f);
    ub_state_set_note_cb(st, c_note, c);
    ub_state_set_match_cb(st, c_match, c);
    ub_view *v = calloc(1, sizeof *v);
    ub_rec r;
    while (ub_cap_next(cf, &r) == 1) {
        ub_decode(v, &o, ub_entry_for_linktype(&o, r.linktype), r.data, r.caplen);
        ub_pktinfo pi = { r.frame, r.ts_ns, r.ifindex, r.dir };
        ub_state_packet(st, v, &pi);
    }
    ub_state_finish(st);
    ub_state_free(st);
    free(v);
    ub_cap_close(cf);
}
static const ub_pkt_note *note_of(const cb_ctx *c, uint64_t frame)
{
    for (unsigned i = 0; i < c->nn; i++)
        if (c->n[i].frame == frame) return &c->n[i];
    return NULL;
}

static void test_notes_matches(void)
{
    static au_findings f;
    static cb_ctx c;
    memset(&c, 0, sizeof c);
    c.f = &f;
    run_cb(CAP("audit_rtp_lossy.pcapng"), &c);
    const ub_pkt_note *n = note_of(&c, 4); /* 203 after the missing 202 */
    CHECK(n && n->tp_flags == UB_TPF_LOST_BEFORE && n->expected_psn == 202);
    n = note_of(&c, 5); /* TPNAK(202) */
    CHECK(n && n->tp_flags == UB_TPF_NAK && n->expected_psn == 202);
    n = note_of(&c, 8);
    CHECK(n && n->tp_flags == UB_TPF_RETRANSMISSION);
    n = note_of(&c, 9);
    CHECK(n && n->tp_flags == UB_TPF_RETRANSMISSION && n->expected_psn == 206);
    CHECK(note_of(&c, 1) == NULL && note_of(&c, 2) == NULL);
    CHECK_EQ(c.nn, 7); /* 4, 5, 8, 9, 10, 11, 15 */

    memset(&c, 0, sizeof c);
    c.f = &f;
    run_cb(CAP("audit_rtp_clean.pcapng"), &c);
    /* frame 12 is the TPSACK; no other packet is flagged */
    CHECK_EQ(c.nn, 1);
    n = note_of(&c, 12);
    CHECK(n && n->tp_flags == UB_TPF_SACK && n->expected_psn == 21);
    /* data (A = 1 or Last) ↔ first covering ack, latency = ack time − data time */
    int found = 0;
    for (unsigned i = 0; i < c.nm; i++) {
        if (c.m[i].req_frame == 4) {
            found = 1;
            CHECK_EQ(c.m[i].rsp_frame, 10);
            CHECK_EQ(c.m[i].latency_ns, 35000);
        }
        CHECK(c.m[i].req_frame != 1); /* not Last, A = 0: not matched */
    }
    CHECK(found);
    /* 4→10, 3/5/7/9→14, 2/8→11, 6→13, 15→16, 17→18, 19→20, 21→24, 22→23, 25→26 */
    CHECK_EQ(c.nm, 14);
}

/* ================================================================ synthetic rule checks */
static void test_gobackn_nak(void)
{
    feeder *fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    D(fd, 2, 2, 2);
    D(fd, 3, 3, 3);
    A(fd, 4, "tpopcode=2 psn=1");
    uint64_t nak = A(fd, 5, "tpopcode=2 psn=2 rspst=3 rspinfo=0");
    uint64_t nak2 = A(fd, 6, "tpopcode=2 psn=2 rspst=3 rspinfo=0"); /* repeated in the same episode */
    uint64_t r3 = D(fd, 7, 3, 3);                                     /* resend does not start at 2 */
    D(fd, 8, 4, 4);
    A(fd, 9, "tpopcode=2 psn=4");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-010", nak2, UB_SEV_ERROR);
    CHECK_FINDING(&fd->f, "UB-TP-010", r3, UB_SEV_ERROR);
    const ub_finding *r = find(&fd->f, "UB-TP-010", r3);
    if (r) {
        CHECK_EQ(r->frames[0], nak);
        CHECK_EQ(r->values[0], 3);
        CHECK_EQ(r->values[1], 2);
    }
    CHECK_EQ(au_count(&fd->f, "UB-TP-010"), 2);
    CHECK_EQ(au_count(&fd->f, "UB-TP-009"), 0); /* a TPNAK is no duplicate ack */
    fd_free(fd);

    /* a reordered new packet while a TPNAK is pending is no resend: only TP_OUT_OF_ORDER */
    fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    D(fd, 2, 2, 2);
    D(fd, 3, 3, 3);
    A(fd, 4, "tpopcode=2 psn=1 rspst=0");
    A(fd, 5, "tpopcode=2 psn=2 rspst=3 rspinfo=0"); /* TPNAK(2): lost after the capture point */
    D(fd, 6, 5, 5);
    uint64_t oo = D(fd, 7, 4, 4); /* 4 overtaken by 5 */
    uint64_t r2 = D(fd, 8, 2, 2);
    D(fd, 9, 3, 3);
    D(fd, 10, 4, 4);
    D(fd, 11, 5, 5);
    A(fd, 12, "tpopcode=2 psn=5");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-004", oo, UB_SEV_WARN);
    CHECK_EQ(au_count(&fd->f, "UB-TP-010"), 0);
    CHECK_FINDING(&fd->f, "UB-TP-003", r2, UB_SEV_NOTE);
    CHECK_EQ(au_count(&fd->f, "UB-TP-003"), 4);
    fd_free(fd);

    /* TPNAK never answered by a resend, capture continues 200 ms */
    fd = fd_new(NULL);
    D(fd, 1, 10, 1);
    D(fd, 2, 11, 2);
    nak = A(fd, 3, "tpopcode=2 psn=11 rspst=3 rspinfo=0");
    D(fd, 200000, 12, 3); /* new data only */
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-010", nak, UB_SEV_ERROR);
    fd_free(fd);
}

static void test_acks(void)
{
    feeder *fd = fd_new(NULL);
    D(fd, 1, 100, 1);
    D(fd, 2, 101, 2);
    D(fd, 3, 102, 3);
    A(fd, 4, "tpopcode=2 psn=101");
    uint64_t dup = A(fd, 5, "tpopcode=2 psn=101");
    uint64_t back = A(fd, 6, "tpopcode=2 psn=100");
    uint64_t ahead = A(fd, 7, "tpopcode=2 psn=105");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-009", dup, UB_SEV_NOTE);
    CHECK_FINDING(&fd->f, "UB-TP-008", back, UB_SEV_ERROR);
    CHECK_FINDING(&fd->f, "UB-TP-008", ahead, UB_SEV_ERROR);
    const ub_pkt_note *n = NULL;
    for (unsigned i = 0; i < fd->nnotes; i++)
        if (fd->notes[i].frame == dup) n = &fd->notes[i];
    CHECK(n && n->tp_flags == UB_TPF_DUP_ACK && n->expected_psn == 102);
    CHECK_EQ(au_count(&fd->f, "UB-TP-018"), 0);
    fd_free(fd);

    /* an ack covering a PSN that was never captured: TP_GAP_ACKED at the first packet after the gap */
    fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    uint64_t after = D(fd, 2, 3, 3); /* 2 missing */
    uint64_t ack = A(fd, 3, "tpopcode=2 psn=3");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-005", after, UB_SEV_WARN);
    const ub_finding *r = find(&fd->f, "UB-TP-005", after);
    if (r) {
        CHECK_EQ(r->frames[0], ack);
        CHECK_EQ(r->values[0], 2);
        CHECK_EQ(r->values[1], 1);
    }
    CHECK_EQ(au_count(&fd->f, "UB-TP-002"), 0);
    fd_free(fd);

    /* TPSACK marking a never-captured PSN received; MaxRcvPSN going backwards; beyond the highest sent */
    fd = fd_new(NULL);
    D(fd, 1, 10, 1);
    D(fd, 2, 11, 2);
    after = D(fd, 3, 13, 4); /* 12 missing at the capture point */
    D(fd, 4, 14, 5);
    /* received 10, 12, 13, 14 (11 lost downstream): bits 0, 2, 3, 4 */
    uint64_t s1 = ack7(fd, 5, 1, 2, "tpopcode=5 psn=10", "saetph bitmapsize=0 maxrcvpsn=14 bitmap=000000000000001d\n");
    uint64_t s2 = ack7(fd, 6, 1, 2, "tpopcode=5 psn=10", "saetph bitmapsize=0 maxrcvpsn=13 bitmap=000000000000000d\n");
    uint64_t s3 = ack7(fd, 7, 1, 2, "tpopcode=5 psn=10", "saetph bitmapsize=0 maxrcvpsn=20 bitmap=000000000000001d\n");
    uint64_t s4 = ack7(fd, 8, 1, 2, "tpopcode=5 psn=10", "saetph bitmapsize=0 maxrcvpsn=14 bitmap=000000000000003d\n");
    uint64_t s5 = ack7(fd, 9, 1, 2, "tpopcode=5 psn=10", "saetph bitmapsize=0 maxrcvpsn=14 bitmap=000000000000000d\n");
    D(fd, 10, 11, 2);
    A(fd, 11, "tpopcode=2 psn=14");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-005", after, UB_SEV_WARN);
    r = find(&fd->f, "UB-TP-005", after);
    if (r) {
        CHECK_EQ(r->frames[0], s1);
        CHECK_EQ(r->values[0], 12);
    }
    CHECK_FINDING(&fd->f, "UB-TP-011", s2, UB_SEV_ERROR); /* MaxRcvPSN decreased */
    CHECK_FINDING(&fd->f, "UB-TP-011", s3, UB_SEV_ERROR); /* MaxRcvPSN above the highest sent */
    CHECK_FINDING(&fd->f, "UB-TP-011", s4, UB_SEV_ERROR); /* bit above MaxRcvPSN */
    CHECK_FINDING(&fd->f, "UB-TP-011", s5, UB_SEV_ERROR); /* MaxRcvPSN's own bit 0 */
    CHECK(!au_has(&fd->f, "UB-TP-011", s1));
    CHECK_EQ(au_count(&fd->f, "UB-TP-002"), 0);
    fd_free(fd);
}

static void test_order_window_framing(void)
{
    /* reordering without any recovery context: TP_OUT_OF_ORDER; per-packet routing: a note */
    feeder *fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    D(fd, 2, 3, 3);
    uint64_t late = D(fd, 3, 2, 2);
    A(fd, 5, "tpopcode=2 psn=3");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-004", late, UB_SEV_WARN);
    CHECK_EQ(au_count(&fd->f, "UB-TP-006"), 0);
    CHECK_EQ(au_count(&fd->f, "UB-TP-002"), 0);
    CHECK_EQ(count_prefix(&fd->f, "UB-TP-"), 1);
    fd_free(fd);

    /* the same late PSN after the retransmission timeout: a resend, not reordering */
    fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    D(fd, 2, 3, 3);
    late = D(fd, 600, 2, 2);
    A(fd, 601, "tpopcode=2 psn=3");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-006", late, UB_SEV_NOTE);
    CHECK_EQ(count_prefix(&fd->f, "UB-TP-"), 1);
    fd_free(fd);

    fd = fd_new(NULL);
    data7(fd, 1, 5, 6, 1, 1, "rt=1", "last=1");
    data7(fd, 2, 5, 6, 3, 3, "rt=1", "last=1");
    uint64_t late2 = data7(fd, 3, 5, 6, 2, 2, "rt=1", "last=1");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-004", late2, UB_SEV_NOTE);
    fd_free(fd);

    /* TP-03: more than 8M − 1 PSNs outstanding */
    fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    A(fd, 2, "tpopcode=2 psn=1");
    D(fd, 3, 0x300000, 2);
    D(fd, 4, 0x600000, 3);
    uint64_t ok = D(fd, 5, 0x800001, 4); /* 0x800000 outstanding: allowed */
    uint64_t over = D(fd, 6, 0x800002, 5);
    fd_finish(fd);
    CHECK(!au_has(&fd->f, "UB-TP-007", ok));
    CHECK_FINDING(&fd->f, "UB-TP-007", over, UB_SEV_ERROR);
    const ub_finding *r = find(&fd->f, "UB-TP-007", over);
    if (r) {
        CHECK_EQ(r->values[0], 0x800000);
        CHECK_EQ(r->values[1], 0x7FFFFF);
    }
    CHECK_EQ(au_count(&fd->f, "UB-TP-007"), 1);
    fd_free(fd);

    /* TP-09 / R-19 framing */
    fd = fd_new(NULL);
    data7(fd, 1, 1, 2, 1, 5, "", "last=0");
    uint64_t f1 = data7(fd, 2, 1, 2, 2, 6, "", "last=1"); /* TPMSN changed inside an operation */
    data7(fd, 3, 1, 2, 3, 7, "", "last=1");
    uint64_t f2 = data7(fd, 4, 1, 2, 4, 9, "", "last=1"); /* skipped an operation number */
    data7(fd, 5, 1, 2, 6, 11, "", "last=1");               /* gap of one packet: TPMSN + 2 is possible */
    uint64_t f3 = data7(fd, 6, 1, 2, 8, 20, "", "last=1"); /* gap of one packet, TPMSN + 9: not */
    data7(fd, 7, 1, 2, 8, 20, "", "last=1");               /* resend: no framing check */
    A(fd, 8, "tpopcode=2 psn=8");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-012", f1, UB_SEV_WARN);
    CHECK_FINDING(&fd->f, "UB-TP-012", f2, UB_SEV_WARN);
    CHECK_FINDING(&fd->f, "UB-TP-012", f3, UB_SEV_WARN);
    CHECK_EQ(au_count(&fd->f, "UB-TP-012"), 3);
    fd_free(fd);
}

static void test_fake_cc_modes(void)
{
    /* TP-11 Fake packets */
    feeder *fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    uint64_t fk = data7(fd, 2, 1, 2, 2, 2, "", "f=1 last=1");
    A(fd, 3, "tpopcode=2 psn=2 rspst=1 rspinfo=3"); /* RNR carried by the TPACK */
    uint64_t fk2 = data7(fd, 4, 1, 2, 3, 3, "", "f=1 last=1");
    A(fd, 5, "tpopcode=2 psn=3");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-014", fk, UB_SEV_WARN);
    CHECK(!au_has(&fd->f, "UB-TP-014", fk2));
    fd_free(fd);

    /* TP-14: CETPH Ack_Seq must not decrease */
    fd = fd_new(NULL);
    D(fd, 1, 1, 1);
    D(fd, 2, 2, 2);
    ack7(fd, 3, 1, 2, "tpopcode=3 psn=1", "cetph_ldcp ack_seq=100 ce_seq=0\n");
    uint64_t cc = ack7(fd, 4, 1, 2, "tpopcode=3 psn=2", "cetph_ldcp ack_seq=50 ce_seq=0\n");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-017", cc, UB_SEV_WARN);
    CHECK_EQ(count_prefix(&fd->f, "UB-TP-"), 1);
    fd_free(fd);

    /* TP-13 heuristic: an ack between addresses that carried only CTP data (note) */
    fd = fd_new(NULL);
    uint64_t ctp = feed(fd, 1, 0,
                        "pkt\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph tpopcode=0\n"
                        "btah taopcode=Write ini_tassn=10 ini_rc_id=0x44\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    uint64_t ma = A(fd, 2, "tpopcode=2 psn=7");
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-TP-016", ma, UB_SEV_NOTE);
    const ub_finding *r = find(&fd->f, "UB-TP-016", ma);
    if (r) CHECK_EQ(r->frames[0], ctp);
    fd_free(fd);
}

static void test_network(void)
{
    feeder *fd = fd_new(NULL);
    /* NW-07: data in CFG 3 (IPv4), its ack in CFG 4 with the same IPv4 addresses */
    uint64_t d = feed(fd, 1, 0,
                      "pkt\nlph vl=0\nnthip npi_id=1\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp srcport=1\n"
                      "rtph last=1 srctpn=0x10 dsttpn=0x20 psn=5 tpmsn=1\nbtah taopcode=Write ini_tassn=1\n"
                      "maetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    uint64_t a = feed(fd, 2, 0,
                      "pkt\nlph vl=0 cfg=4\nnthip npi_id=1\nipv4 src=10.0.0.2 dst=10.0.0.1\nudp srcport=1\n"
                      "rtph tpopcode=2 srctpn=0x20 dsttpn=0x10 psn=5\n");
    feed(fd, 3, 0,
         "pkt\nlph vl=0 cfg=4\nnthip npi_id=1\nipv4 src=10.0.0.2 dst=10.0.0.1\nudp srcport=1\n"
         "rtph tpopcode=2 srctpn=0x20 dsttpn=0x10 psn=5\n");
    /* MG-06: UBFM command (Mgmt = 1) with another UPI; User command with UPI 0x7FFF */
    uint64_t u1 = feed(fd, 4, 0,
                       "pkt\nlph\nnth16 scna=1 dcna=0x10 mgmt=1\nctph nlp=2\nupih16 upi=0x0042\neidh40\n"
                       "btah taopcode=0x10 ini_tassn=7 ini_rc_id=0\nmgmtetah code=2 sub_code=0 rsp=0\nmg_cfg_req\n");
    uint64_t u2 = feed(fd, 5, 0,
                       "pkt\nlph\nnth16 scna=0 dcna=0 mgmt=0\nupih16 upi=0x7fff\nenumpad\n"
                       "scanhdr r=1 type=1 hops=0 step=0\nscanpdu_req version=1 cmd=2 opcode=2 length=7 msn=3\nscan_qrycna_req port_idx=0\n");
    uint64_t u3 = feed(fd, 6, 0, /* a response with 0x7FFF and Mgmt = 0 is normal */
                       "pkt\nlph\nnth16 scna=0 dcna=0\nupih16 upi=0x7fff\nenumpad\n"
                       "scanhdr r=0 type=1 hops=0 step=0\nscanpdu_rsp version=1 cmd=2 opcode=0 length=7 msn=3\nscan_qrycna_rsp cna=0x20\n");
    /* NW-06: ordered CTP request with RT[0] = 1, reported once per pair */
    const char *ord = "pkt\nlph vl=3 rt=1\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph tpopcode=0\n"
                      "btah taopcode=Write ini_tassn=10 odr=2\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n";
    uint64_t o1 = feed(fd, 7, 0, ord);
    uint64_t o2 = feed(fd, 8, 0, ord);
    feed(fd, 9, 0, /* per-flow routing: fine */
         "pkt\nlph vl=3 rt=0\nnth24 scna=0x010204 dcna=0x0a0b0c\nctph tpopcode=0\n"
         "btah taopcode=Write ini_tassn=11 odr=2\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    /* NW-02: the same packet at two capture points, FECN heavy (11) then none (10) */
    const char *fe = "pkt\nlph vl=0\nnthip cci=0x%04x npi_id=1\nipv4 src=10.0.0.5 dst=10.0.0.6\nudp srcport=1\n"
                     "rtph last=1 srctpn=0x50 dsttpn=0x60 psn=9 tpmsn=1\nbtah taopcode=Write ini_tassn=1\n"
                     "maetah address=0x1000 tokenid=1 length=8\npayload inc=8\n";
    char txt[512];
    snprintf(txt, sizeof txt, fe, 0x8003);
    uint64_t c0 = feed(fd, 10, 0, txt);
    snprintf(txt, sizeof txt, fe, 0x8002);
    uint64_t c1 = feed(fd, 11, 1, txt);
    uint64_t c2 = feed(fd, 12, 0, txt); /* a true resend at the first point */
    fd_finish(fd);
    CHECK_FINDING(&fd->f, "UB-NW-007", a, UB_SEV_ERROR);
    const ub_finding *r = find(&fd->f, "UB-NW-007", a);
    if (r) {
        CHECK_EQ(r->frames[0], d);
        CHECK_EQ(r->values[0], 4);
        CHECK_EQ(r->values[1], 3);
    }
    CHECK_EQ(au_count(&fd->f, "UB-NW-007"), 1);
    CHECK_FINDING(&fd->f, "UB-NW-009", u1, UB_SEV_WARN);
    CHECK_FINDING(&fd->f, "UB-NW-009", u2, UB_SEV_WARN);
    CHECK(!au_has(&fd->f, "UB-NW-009", u3));
    CHECK_FINDING(&fd->f, "UB-NW-006", o1, UB_SEV_WARN);
    CHECK(!au_has(&fd->f, "UB-NW-006", o2));
    CHECK_EQ(au_count(&fd->f, "UB-NW-006"), 1);
    CHECK_FINDING(&fd->f, "UB-NW-002", c1, UB_SEV_WARN);
    r = find(&fd->f, "UB-NW-002", c1);
    if (r) CHECK_EQ(r->frames[0], c0);
    CHECK(!au_has(&fd->f, "UB-TP-003", c1)); /* another capture point is no retransmission */
    CHECK(au_has(&fd->f, "UB-TP-003", c2));
    fd_free(fd);
}

static void test_crc_bad(void)
{
    /* §10.6 d: a packet with a bad CRC leaves no TP state; the next good copy counts as the first */
    feeder *fd = fd_new(NULL);
    feed(fd, 1, 0, "flit\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=1 srctpn=1 dsttpn=2 psn=1 tpmsn=1\n"
                   "btah taopcode=Write ini_tassn=1\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    feed(fd, 2, 0, "flit bcrc=bad\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=1 srctpn=1 dsttpn=2 psn=2 tpmsn=2\n"
                   "btah taopcode=Write ini_tassn=2\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    feed(fd, 3, 0, "flit\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=1 srctpn=1 dsttpn=2 psn=2 tpmsn=2\n"
                   "btah taopcode=Write ini_tassn=2\nmaetah address=0x1000 tokenid=1 length=8\npayload inc=8\n");
    A(fd, 4, "tpopcode=2 psn=2");
    fd_finish(fd);
    CHECK(au_has(&fd->f, "UB-DL-006", 2));
    CHECK_EQ(count_prefix(&fd->f, "UB-TP-"), 0);
    fd_free(fd);
}

/* ================================================================ hostile input */
static void test_flood(void)
{
    ub_state_cfg cfg;
    ub_state_cfg_default(&cfg);
    cfg.layers = UB_ST_TP | UB_ST_NW;
    cfg.max_channels = 1024;
    static au_findings f;
    memset(&f, 0, sizeof f);
    ub_state *st = ub_state_new(&cfg, au_cb, &f);
    ub_opts o;
    ub_opts_default(&o);
    uint8_t rec[256];
    char err[128];
    ub_entry e;
    long n = ub_build_text("tph\nrtph last=1 a=1 srctpn=0 dsttpn=2 psn=5 tpmsn=1\nbtah taopcode=Write ini_tassn=1\n"
                           "maetah address=0x1000 tokenid=1 length=8\npayload inc=8\n",
                           &o, rec, sizeof rec, &e, err, sizeof err);
    CHECK(n > 0);
    ub_view *v = calloc(1, sizeof *v);
    const unsigned N = 300000;
    clock_t t0 = clock();
    uint32_t maxlive = 0;
    for (unsigned i = 0; i < N; i++) {
        rec[2] = (uint8_t)(i >> 16); /* SrcTPN: a new channel per packet, never acknowledged */
        rec[3] = (uint8_t)(i >> 8);
        rec[4] = (uint8_t)i;
        ub_decode(v, &o, e, rec, (uint32_t)n);
        ub_pktinfo pi = { i + 1, (uint64_t)i * 1000, 0, UB_DIR_UNKNOWN };
        ub_state_packet(st, v, &pi);
        ub_state_stats ss;
        ub_state_get_stats(st, &ss);
        if (ss.channels > maxlive) maxlive = ss.channels;
    }
    ub_state_finish(st);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ub_state_stats ss;
    ub_state_get_stats(st, &ss);
    fprintf(stderr, "flood: %u packets, %.2f s, live %u (max %u), evicted %llu\n", N, secs, ss.channels, maxlive,
            (unsigned long long)ss.evicted_channels);
    /* ub_tbl keeps at least max_channels and at most 3/4 of its power-of-two capacity */
    CHECK(maxlive >= 1024 && maxlive <= 2 * 1024);
    CHECK(ss.evicted_channels >= N - 2 * 1024);
    CHECK_EQ(au_count(&f, "UB-ST-001"), 1);
    /* no acks anywhere: the ack direction is not captured, so nothing is reported as unacknowledged */
    CHECK_EQ(au_count(&f, "UB-TP-018"), 0);
    ub_state_free(st);
    free(v);
}

int main(void)
{
    test_clean();
    test_lossy();
    test_sack();
    test_notes_matches();
    test_gobackn_nak();
    test_acks();
    test_order_window_framing();
    test_fake_cc_modes();
    test_network();
    test_crc_bad();
    test_flood();
    return ub_test_finish();
}
