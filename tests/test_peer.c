/* The reference responder's I/O-free core (peer.h): requests built with the builder, responses
 * decoded and checked field by field (PSN acked, TASSN echoed, Read data = what was written, atomic
 * results, MSN echoed, enumeration TLVs, entry forms), each fault knob changes exactly what it should,
 * and the state engine of `ubdump --audit` judges the exchanges: clean without faults, the documented
 * rule ids with each knob (docs/peer.md). */
#include "ubparse/capfile.h"
#include "ubparse/peer.h"
#include "ubparse/state.h"
#include "ubtest.h"

#include <stdlib.h>

/* ---------------------------------------------------------------- harness */
#define MAXF 256
typedef struct frame {
    uint8_t d[UB_MAX_NETPKT * 2];
    uint32_t len;
    uint8_t entry, dir, kind; /* dir: 1 request (in), 2 peer output (out) */
    uint32_t faults;
    uint64_t delay;
    uint64_t ts;
} frame;

typedef struct run {
    ub_opts o;
    ub_peer *peer;
    frame *f;
    unsigned n;
    unsigned outs_last; /* outputs of the last request */
    uint64_t ts;
    char err[256];
} run;

static void on_out(void *ctx, const ub_peer_out *o)
{
    run *r = ctx;
    if (r->n >= MAXF || o->len > sizeof r->f[0].d) return;
    frame *f = &r->f[r->n++];
    memcpy(f->d, o->data, o->len);
    f->len = o->len;
    f->entry = o->entry;
    f->dir = 2;
    f->kind = o->kind;
    f->faults = o->faults;
    f->delay = o->delay_ns;
    f->ts = (r->ts += 1000);
    r->outs_last++;
}

static void run_init(run *r, const ub_peer_cfg *cfg)
{
    memset(r, 0, sizeof *r);
    ub_opts_default(&r->o);
    r->f = calloc(MAXF, sizeof *r->f);
    ub_peer_cfg c;
    if (cfg) c = *cfg;
    else ub_peer_cfg_default(&c);
    c.opts = &r->o;
    r->peer = ub_peer_new(&c, on_out, r, r->err, sizeof r->err);
    if (!r->peer) fprintf(stderr, "ub_peer_new: %s\n", r->err);
}

static void run_free(run *r)
{
    ub_peer_free(r->peer);
    free(r->f);
}

static ub_view *scratch_view(void)
{
    static ub_view *v;
    if (!v) { v = malloc(sizeof *v); ub_view_init(v); }
    return v;
}

/* build a request, record it, feed it; returns the ub_peer_packet result */
static int req(run *r, const char *text)
{
    frame *f = &r->f[r->n];
    ub_entry e;
    char err[256];
    long n = ub_build_text(text, &r->o, f->d, sizeof f->d, &e, err, sizeof err);
    if (n < 0) { fprintf(stderr, "build: %s\n%s\n", err, text); CHECK(n >= 0); return -9; }
    f->len = (uint32_t)n;
    f->entry = (uint8_t)e;
    f->dir = 1;
    f->ts = (r->ts += 1000);
    r->n++;
    ub_view *v = scratch_view();
    ub_decode(v, &r->o, e, f->d, f->len);
    ub_peer_pktinfo pi = { f->ts, 7 };
    r->outs_last = 0;
    int rc = ub_peer_packet(r->peer, v, &pi);
    if (rc == UB_PEER_DROPPED) { /* not recorded: lost on the way in */
        memmove(f, f + 1, 0);
        r->n--;
        memmove(&r->f[r->n], &r->f[r->n + 1], sizeof *f * r->outs_last);
    }
    return rc;
}

/* decode frame i into the scratch view and read a field */
static const ub_view *dec(run *r, unsigned i)
{
    ub_view *v = scratch_view();
    ub_decode(v, &r->o, (ub_entry)r->f[i].entry, r->f[i].d, r->f[i].len);
    return v;
}
static uint64_t fld(run *r, unsigned i, const char *abbrev)
{
    uint64_t u = 0xDEADDEADull;
    ub_view_get(dec(r, i), abbrev, &u);
    return u;
}
static bool has(run *r, unsigned i, const char *abbrev)
{
    uint64_t u;
    return ub_view_get(dec(r, i), abbrev, &u) == 0;
}
static int errs(run *r, unsigned i)
{
    const ub_view *v = dec(r, i);
    for (unsigned k = 0; k < v->nerrs; k++)
        if (ub_err_get(v->err[k].code)->severity >= UB_SEV_WARN)
            fprintf(stderr, "  frame %u: %s at %u (%s)\n", i, ub_err_get(v->err[k].code)->name, v->err[k].off,
                    v->err[k].what ? v->err[k].what : "");
    return ub_view_worst(v);
}
/* payload bytes of frame i */
static const uint8_t *payload(run *r, unsigned i, uint32_t *n)
{
    const ub_view *v = dec(r, i);
    int k = ub_view_find(v, UB_H_PAYLOAD, 0);
    if (k < 0) { *n = 0; return NULL; }
    *n = v->layer[k].len;
    return v->layer[k].data;
}

/* ---------------------------------------------------------------- the auditor over a run */
typedef struct findings {
    char id[64][16];
    uint8_t sev[64];
    uint64_t frame[64];
    unsigned n;
} findings;
static void on_finding(void *ctx, const ub_finding *f)
{
    findings *fs = ctx;
    if (fs->n >= 64) return;
    snprintf(fs->id[fs->n], sizeof fs->id[0], "%s", ub_rule_get(f->rule)->id);
    fs->sev[fs->n] = f->severity;
    fs->frame[fs->n] = f->frame;
    fs->n++;
}
static void audit(run *r, findings *fs, bool expect_taack)
{
    memset(fs, 0, sizeof *fs);
    ub_state_cfg c;
    ub_state_cfg_default(&c);
    c.response_timeout_ns = 0; /* everything unanswered at the end is an error */
    c.expect_taack = expect_taack;
    ub_state *s = ub_state_new(&c, on_finding, fs);
    for (unsigned i = 0; i < r->n; i++) {
        ub_pktinfo pi = { i + 1, r->f[i].ts, 0, r->f[i].dir == 1 ? UB_DIR_IN : UB_DIR_OUT };
        ub_state_packet(s, dec(r, i), &pi);
    }
    ub_state_finish(s);
    ub_state_free(s);
}
/* findings of severity >= warning, as "ID ID ..." (notes left out), sorted and unique */
static const char *ids(const findings *fs, char *buf, size_t n)
{
    buf[0] = '\0';
    const char *seen[64];
    unsigned ns = 0;
    for (;;) {
        const char *best = NULL;
        for (unsigned i = 0; i < fs->n; i++) {
            if (fs->sev[i] < UB_SEV_WARN) continue;
            bool dup = false;
            for (unsigned k = 0; k < ns; k++) dup |= !strcmp(seen[k], fs->id[i]);
            if (!dup && (!best || strcmp(fs->id[i], best) < 0)) best = fs->id[i];
        }
        if (!best) break;
        seen[ns++] = best;
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s", l ? " " : "", best);
    }
    return buf;
}
static void dump_findings(const findings *fs)
{
    for (unsigned i = 0; i < fs->n; i++) fprintf(stderr, "    %s sev %u frame %llu\n", fs->id[i], fs->sev[i], (unsigned long long)fs->frame[i]);
}

/* ---------------------------------------------------------------- request texts */
#define RTP_HDR(psn, last, a, tpmsn)                                                                       \
    "flit\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=" #last " a=" #a " srctpn=0x101 dsttpn=0x202 psn=" #psn \
    " tpmsn=" #tpmsn "\n"

static void test_rtp_transactions(void)
{
    run r;
    run_init(&r, NULL);
    /* Write 64 bytes (PSN 10) */
    CHECK_EQ(req(&r, RTP_HDR(10, 1, 0, 1) "btah taopcode=Write ini_tassn=5 ini_rc_id=0x20\n"
                     "maetah address=0x80001000 tokenid=0x42 length=64\npayload inc=64\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 2);
    CHECK_EQ(r.n, 3);
    /* TPACK: PSN 10 acknowledged, TPNs swapped, CNAs swapped, same CFG (NW-07) */
    CHECK_EQ(fld(&r, 1, "ub.rtph.tpopcode"), 2);
    CHECK_EQ(fld(&r, 1, "ub.rtph.psn"), 10);
    CHECK_EQ(fld(&r, 1, "ub.rtph.rspst"), 0);
    CHECK_EQ(fld(&r, 1, "ub.rtph.srctpn"), 0x202);
    CHECK_EQ(fld(&r, 1, "ub.rtph.dsttpn"), 0x101);
    CHECK_EQ(fld(&r, 1, "ub.nth.scna"), 0x0a0b0c);
    CHECK_EQ(fld(&r, 1, "ub.nth.dcna"), 0x010203);
    CHECK_EQ(fld(&r, 1, "ub.lph.cfg"), 7);
    CHECK_EQ(fld(&r, 1, "ub.lph.vl"), 2);
    CHECK_EQ(fld(&r, 1, "ub.bcrc.status"), UB_CK_GOOD);
    CHECK_EQ(fld(&r, 1, "ub.icrc.status"), UB_CK_GOOD);
    CHECK_EQ(r.f[1].kind, UB_PEER_OUT_ACK);
    CHECK(!has(&r, 1, "ub.atah.taopcode"));
    /* TAACK as RTP data on the reverse channel: PSN mirrors the requester's first, TASSN/RC echoed */
    CHECK_EQ(fld(&r, 2, "ub.rtph.tpopcode"), 1);
    CHECK_EQ(fld(&r, 2, "ub.rtph.psn"), 10);
    CHECK_EQ(fld(&r, 2, "ub.rtph.last"), 1);
    CHECK_EQ(fld(&r, 2, "ub.rtph.tpmsn"), 1);
    CHECK_EQ(fld(&r, 2, "ub.atah.taopcode"), 0x11);
    CHECK_EQ(fld(&r, 2, "ub.atah.ini_tassn"), 5);
    CHECK_EQ(fld(&r, 2, "ub.atah.ini_rc_id"), 0x20);
    CHECK_EQ(fld(&r, 2, "ub.atah.rspst"), 0);
    CHECK_EQ(r.f[2].kind, UB_PEER_OUT_RSP);
    CHECK_EQ(errs(&r, 1), -1);
    CHECK_EQ(errs(&r, 2), -1);
    /* Read it back (PSN 11): Read_response carries the bytes written */
    CHECK_EQ(req(&r, RTP_HDR(11, 1, 0, 2) "btah taopcode=Read ini_tassn=6 ini_rc_id=0x20\n"
                     "maetah address=0x80001000 tokenid=0x42 length=64\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 2);
    CHECK_EQ(fld(&r, 4, "ub.rtph.psn"), 11);
    CHECK_EQ(fld(&r, 5, "ub.atah.taopcode"), 0x12);
    CHECK_EQ(fld(&r, 5, "ub.atah.ini_tassn"), 6);
    CHECK_EQ(fld(&r, 5, "ub.rtph.psn"), 11);
    CHECK_EQ(fld(&r, 5, "ub.rtph.tpmsn"), 2);
    uint32_t pl;
    const uint8_t *d = payload(&r, 5, &pl);
    CHECK_EQ(pl, 64);
    bool same = d != NULL;
    for (uint32_t i = 0; d && i < 64; i++) same &= d[i] == (uint8_t)i;
    CHECK(same);
    uint8_t mem[4];
    CHECK_EQ(ub_peer_mem_read(r.peer, 0x42, 0x80001000 + 60, mem, 4), 0);
    CHECK_EQ(mem[3], 63);
    /* a Read of never-written memory, 2048 bytes: two MTU packets, Last on the second, one TASSN */
    CHECK_EQ(req(&r, RTP_HDR(12, 1, 0, 3) "btah taopcode=Read ini_tassn=7 ini_rc_id=0x20\n"
                     "maetah address=0x90000000 tokenid=0x42 length=2048\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 3);
    unsigned a = r.n - 2, b2 = r.n - 1;
    CHECK_EQ(fld(&r, a, "ub.rtph.last"), 0);
    CHECK_EQ(fld(&r, b2, "ub.rtph.last"), 1);
    CHECK_EQ(fld(&r, a, "ub.rtph.psn"), 12);
    CHECK_EQ(fld(&r, b2, "ub.rtph.psn"), 13);
    CHECK_EQ(fld(&r, a, "ub.rtph.tpmsn"), 3);
    CHECK_EQ(fld(&r, b2, "ub.rtph.tpmsn"), 3);
    CHECK_EQ(fld(&r, b2, "ub.atah.ini_tassn"), 7);
    payload(&r, a, &pl);
    CHECK_EQ(pl, 1024);
    payload(&r, b2, &pl);
    CHECK_EQ(pl, 1024);
    /* Atomic_fetch_add on 8 bytes at 0x80001000 (memory 00 01 .. 07): original returned, memory += 1
     * (little-endian operands, R-28) */
    CHECK_EQ(req(&r, RTP_HDR(13, 1, 0, 4) "btah taopcode=Atomic_fetch_add ini_tassn=8 ini_rc_id=0x20\n"
                     "maetah address=0x80001000 tokenid=0x42 length=8\n"
                     "atomic_ops hex=0100000000000000\natomic_ops hex=0000000000000000\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.taopcode"), 0x13);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.psn"), 14);
    d = payload(&r, r.n - 1, &pl);
    CHECK_EQ(pl, 8);
    CHECK(d && d[0] == 0 && d[7] == 7);
    ub_peer_mem_read(r.peer, 0x42, 0x80001000, mem, 2);
    CHECK_EQ(mem[0], 1);
    CHECK_EQ(mem[1], 1);
    /* Atomic_compare_swap: compare 01 01 02 .. (matches) -> swap in ff.. ; a second CAS fails */
    CHECK_EQ(req(&r, RTP_HDR(14, 1, 0, 5) "btah taopcode=Atomic_compare_swap ini_tassn=9 ini_rc_id=0x20\n"
                     "maetah address=0x80001000 tokenid=0x42 length=8\n"
                     "atomic_ops hex=0101020304050607\natomic_ops hex=ffffffffffffffff\n"), UB_PEER_ANSWERED);
    d = payload(&r, r.n - 1, &pl);
    CHECK(d && pl == 8 && d[0] == 1 && d[1] == 1 && d[2] == 2);
    ub_peer_mem_read(r.peer, 0x42, 0x80001000, mem, 4);
    CHECK_EQ(mem[0], 0xff);
    CHECK_EQ(mem[3], 0xff);
    CHECK_EQ(req(&r, RTP_HDR(15, 1, 0, 6) "btah taopcode=Atomic_compare_swap ini_tassn=10 ini_rc_id=0x20\n"
                     "maetah address=0x80001000 tokenid=0x42 length=8\n"
                     "atomic_ops hex=0000000000000000\natomic_ops hex=1111111111111111\n"), UB_PEER_ANSWERED);
    ub_peer_mem_read(r.peer, 0x42, 0x80001000, mem, 1);
    CHECK_EQ(mem[0], 0xff); /* unchanged */
    /* Atomic_store (UMAX) without payload in the response, memory takes the maximum */
    CHECK_EQ(req(&r, RTP_HDR(16, 1, 0, 7) "btah taopcode=Atomic_store ini_tassn=11 ini_rc_id=0x20\n"
                     "udetah atomic_subop=6\nmaetah address=0x80002000 tokenid=0x42 length=4\n"
                     "atomic_ops hex=05000000\natomic_ops hex=00000000\n"), UB_PEER_ANSWERED);
    unsigned last = r.n - 1;
    CHECK_EQ(fld(&r, last, "ub.atah.taopcode"), 0x13);
    payload(&r, last, &pl);
    CHECK_EQ(pl, 0);
    ub_peer_mem_read(r.peer, 0x42, 0x80002000, mem, 4);
    CHECK_EQ(mem[0], 5);
    /* Send -> TAACK */
    CHECK_EQ(req(&r, RTP_HDR(17, 1, 0, 8) "btah taopcode=Send ini_tassn=12 ini_rc_id=0x20\n"
                     "mtetah tgt_tc_id=3\nofstetah offset=0\npayload inc=16\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.taopcode"), 0x11);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.ini_tassn"), 12);
    /* a 2-packet Write: the first packet is acked, the TAACK comes with the last one */
    CHECK_EQ(req(&r, RTP_HDR(18, 0, 0, 9) "btah taopcode=Write ini_tassn=13 ini_rc_id=0x20\n"
                     "maetah address=0x80010000 tokenid=0x42 length=2048\npayload fill=0xAA:1024\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.tpopcode"), 2);
    CHECK_EQ(req(&r, RTP_HDR(19, 1, 0, 9) "btah taopcode=Write ini_tassn=13 ini_rc_id=0x20\n"
                     "maetah address=0x80010400 tokenid=0x42 length=2048\npayload fill=0xBB:1024\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 2);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.ini_tassn"), 13);
    ub_peer_mem_read(r.peer, 0x42, 0x800103FF, mem, 2);
    CHECK_EQ(mem[0], 0xAA);
    CHECK_EQ(mem[1], 0xBB);
    for (unsigned i = 0; i < r.n; i++) CHECK_EQ(errs(&r, i), -1);
    /* the auditor: clean */
    findings fs;
    char buf[256];
    audit(&r, &fs, false);
    CHECK_STR(ids(&fs, buf, sizeof buf), "");
    if (buf[0]) dump_findings(&fs);
    ub_peer_stats st;
    ub_peer_get_stats(r.peer, &st);
    CHECK_EQ(st.reads, 2);
    CHECK_EQ(st.atomics, 4);
    CHECK_EQ(st.rtp_in_order, 10);
    run_free(&r);
}

int main(void)
{
    test_rtp_transactions();
    return ub_test_finish();
}
