/* The reference responder's I/O-free core (peer.h): requests built with the builder, responses
 * decoded and checked field by field (PSN acked, TASSN echoed, Read data = what was written, atomic
 * results, MSN echoed, enumeration TLVs, entry forms), each fault knob changes exactly what it should,
 * and the state engine of `ubdump --audit` judges the exchanges: clean without faults, the documented
 * rule ids with each knob (docs/peer.md). */
#include "ubparse/capfile.h"
#include "ubparse/peer.h"
#include "ubparse/state.h"
#include "ubtest.h"

#include <dirent.h>
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

static void test_ctp_bypass_utp(void)
{
    run r;
    run_init(&r, NULL);
    /* CTP (CFG 7 CTPH): a Write answered by a TAACK over CTP, no transport ack */
    CHECK_EQ(req(&r, "flit\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph\n"
                     "btah taopcode=Write ini_tassn=20 ini_rc_id=0x21\nmaetah address=0x90000000 tokenid=0x43 length=8\n"
                     "payload inc=8\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK(has(&r, 1, "ub.ctph.tpopcode"));
    CHECK(!has(&r, 1, "ub.rtph.psn"));
    CHECK_EQ(fld(&r, 1, "ub.atah.taopcode"), 0x11);
    CHECK_EQ(fld(&r, 1, "ub.atah.ini_tassn"), 20);
    CHECK_EQ(fld(&r, 1, "ub.atah.ini_rc_id"), 0x21);
    CHECK_EQ(fld(&r, 1, "ub.nth.scna"), 0x0a0b0c);
    /* No_TAACK = 1: nothing (TA-04) */
    CHECK_EQ(req(&r, "flit\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph\n"
                     "btah taopcode=Write ini_tassn=21 ini_rc_id=0x21 no_taack=1\nmaetah address=0x90000008 tokenid=0x43 length=8\n"
                     "payload inc=8\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 0);
    /* a Read over CTP: one Read_response packet */
    CHECK_EQ(req(&r, "flit\nlph vl=3\nnth24 scna=0x010203 dcna=0x0a0b0c\nctph\n"
                     "btah taopcode=Read ini_tassn=22 ini_rc_id=0x21\nmaetah address=0x90000000 tokenid=0x43 length=16\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    uint32_t pl;
    const uint8_t *d = payload(&r, r.n - 1, &pl);
    CHECK_EQ(pl, 16);
    CHECK(d && d[0] == 0 && d[7] == 7 && d[8] == 0 && d[15] == 7); /* both Writes stored */
    /* CFG 9 TP bypass, compact TAH: compact TAACK, compact Read_response of 64 << Length bytes */
    CHECK_EQ(req(&r, "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\n"
                     "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\npayload fill=0x5A:64\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.lph.cfg"), 9);
    CHECK(has(&r, r.n - 1, "ub.atah.status"));
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.taopcode"), 0x11);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.ini_tassn"), 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.nth.scna"), 0x0304);
    CHECK_EQ(req(&r, "flit\nlph vl=1\nnth16 scna=0x0102 dcna=0x0304 sl=1\nbtah_c taopcode=Read ee_bits=1 ini_tassn=2\n"
                     "maetah_c address=0x0000100000000040 tokenid=0x12345 length=1\n"), UB_PEER_ANSWERED);
    d = payload(&r, r.n - 1, &pl);
    CHECK_EQ(pl, 128);
    CHECK(d && d[0] == 0x5A && d[63] == 0x5A && d[64] == 0);
    CHECK_EQ(fld(&r, r.n - 1, "ub.nth.sl"), 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.lph.vl"), 1);
    /* Prefetch_tgt: nothing */
    CHECK_EQ(req(&r, "flit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Prefetch_tgt ee_bits=1 ini_tassn=3\n"
                     "maetah_c address=0x0000100000000040 tokenid=0x12345 length=0\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 0);
    for (unsigned i = 0; i < r.n; i++) CHECK_EQ(errs(&r, i), -1);
    findings fs;
    char buf[256];
    audit(&r, &fs, false);
    CHECK_STR(ids(&fs, buf, sizeof buf), "");
    if (buf[0]) dump_findings(&fs);
    run_free(&r);
}

/* entry forms: the response comes back in the request's */
static void test_entries(void)
{
    run r;
    run_init(&r, NULL);
    /* UDP payload (UBoE over a socket): RTPH first, no ICRC */
    CHECK_EQ(req(&r, "tph\nrtph last=1 srctpn=0x10 dsttpn=0x20 psn=7000 tpmsn=1\n"
                     "btah taopcode=Write ini_tassn=100 ini_rc_id=1\nmaetah address=0x80000000 tokenid=0xabc length=64\npayload inc=64\n"),
             UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 2);
    CHECK_EQ(r.f[1].entry, UB_ENTRY_TPH);
    CHECK_EQ(fld(&r, 1, "ub.rtph.psn"), 7000);
    CHECK_EQ(fld(&r, 2, "ub.atah.ini_tassn"), 100);
    CHECK(!has(&r, 2, "ub.icrc.icrc"));
    /* (no addresses in UDP payloads: the auditor below runs over the other forms only) */
    run_free(&r);
    run_init(&r, NULL);
    /* Ethernet UBoE with a VLAN tag: MACs and IPs swapped, UDP 4792 kept as destination, the
     * source port (entropy) kept, ICRC computed (good) */
    CHECK_EQ(req(&r, "eth\neth dst=020000000002 src=020000000001\nvlan vid=5 pcp=3\nipv4 src=10.0.0.1 dst=10.0.0.2 dscp=10\n"
                     "udp srcport=49152\nrtph last=1 srctpn=0x11 dsttpn=0x30 psn=50 tpmsn=1\n"
                     "btah taopcode=Read ini_tassn=200 ini_rc_id=2\nmaetah address=0x80000000 tokenid=0xabc length=32\n"),
             UB_PEER_ANSWERED);
    unsigned a = r.n - 2, p = r.n - 1;
    CHECK_EQ(r.f[p].entry, UB_ENTRY_ETH);
    const ub_view *v = dec(&r, p);
    int k = ub_view_find(v, UB_H_ETH, 0);
    CHECK(k >= 0 && v->layer[k].data[5] == 1 && v->layer[k].data[11] == 2);
    CHECK_EQ(fld(&r, p, "ub.vlan.vid"), 5);
    CHECK_EQ(fld(&r, p, "ub.vlan.pcp"), 3);
    CHECK_EQ(fld(&r, p, "ub.ipv4.dscp"), 10);
    CHECK_EQ(fld(&r, p, "ub.udp.dstport"), 4792);
    CHECK_EQ(fld(&r, p, "ub.udp.srcport"), 49152);
    CHECK_EQ(fld(&r, p, "ub.icrc.status"), UB_CK_GOOD);
    CHECK_EQ(fld(&r, a, "ub.icrc.status"), UB_CK_GOOD);
    v = dec(&r, p);
    k = ub_view_find(v, UB_H_IPV4, 0);
    CHECK(k >= 0 && v->layer[k].data[15] == 2 && v->layer[k].data[19] == 1); /* src 10.0.0.2, dst 10.0.0.1 */
    uint32_t pl;
    payload(&r, p, &pl);
    CHECK_EQ(pl, 32);
    /* packet records (LINKTYPE_USER1) and the cooked CFG pseudo-header (ARPHRD_UB) */
    CHECK_EQ(req(&r, "pkt\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=1 srctpn=0x102 dsttpn=0x203 psn=20 tpmsn=1\n"
                     "btah taopcode=Write ini_tassn=20 ini_rc_id=0x43\nmaetah address=0x20000 tokenid=0xabc length=64\npayload inc=64\n"),
             UB_PEER_ANSWERED);
    CHECK_EQ(r.f[r.n - 1].entry, UB_ENTRY_PKT);
    CHECK_EQ(fld(&r, r.n - 1, "ub.lph.plength") != 0xDEADDEADull, 1);
    CHECK_EQ(errs(&r, r.n - 1), -1);
    CHECK_EQ(req(&r, "cfgph\nlph cfg=3\nnthip cci=0x4000 npi_id=1\nipv4 src=10.0.0.1 dst=10.0.0.2\nudp srcport=49152\n"
                     "rtph last=1 srctpn=0x12 dsttpn=0x40 psn=1 tpmsn=1\nbtah taopcode=Write ini_tassn=1 ini_rc_id=1\n"
                     "maetah address=0x80000000 tokenid=0x42 length=32\npayload inc=32\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.f[r.n - 1].entry, UB_ENTRY_CFGPH);
    CHECK_EQ(fld(&r, r.n - 1, "ub.nth.npi_id"), 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.ini_tassn"), 1);
    /* UPIH32 + EIDH256 between RTPH and TAH (NLP 1): echoed, EIDs swapped */
    CHECK_EQ(req(&r, "pkt\nlph vl=2\nnth24 scna=0x010203 dcna=0x0a0b0c\nrtph last=1 srctpn=0x300 dsttpn=0x301 psn=9 tpmsn=1\n"
                     "upih32 upi=0x1234\neidh256 seid=000102030405060708090a0b0c0d0e0f deid=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff\n"
                     "btah taopcode=Read ini_tassn=3 ini_rc_id=7\nmaetah address=0x80000000 tokenid=0xabc length=8\n"), UB_PEER_ANSWERED);
    {
        unsigned q = r.n - 1;
        CHECK_EQ(fld(&r, q, "ub.upih.upi"), 0x1234);
        CHECK_EQ(fld(&r, q, "ub.rtph.nlp"), 1);
        const ub_view *v = dec(&r, q);
        int k = ub_view_find(v, UB_H_EIDH256, 0);
        CHECK(k >= 0 && v->layer[k].len == 32 && v->layer[k].data[0] == 0xf0 && v->layer[k].data[16] == 0x00 &&
              v->layer[k].data[31] == 0x0f);
        CHECK_EQ(fld(&r, q, "ub.atah.ini_rc_id"), 7);
    }
    for (unsigned i = 0; i < r.n; i++) CHECK_EQ(errs(&r, i), -1);
    findings fs;
    char buf[256];
    audit(&r, &fs, false);
    CHECK_STR(ids(&fs, buf, sizeof buf), "");
    if (buf[0]) dump_findings(&fs);
    run_free(&r);
}

#define W(psn, tassn) RTP_HDR(psn, 1, 0, tassn) "btah taopcode=Write ini_tassn=" #tassn " ini_rc_id=0x20\n" \
    "maetah address=0x80000000 tokenid=0x42 length=8\npayload inc=8\n"

/* §6.4: gaps, GoBackN and selective acknowledgement, duplicates */
static void test_loss(void)
{
    run r;
    run_init(&r, NULL);
    CHECK_EQ(req(&r, W(1, 1)), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 2);
    /* PSN 3 after 1: TPNAK(EPSN = 2), the packet dropped (no TAACK) */
    CHECK_EQ(req(&r, W(3, 3)), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.tpopcode"), 2);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.rspst"), 3);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.rspinfo"), 0);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.psn"), 2);
    /* PSN 4: same loss episode, no second TPNAK (TP-06) */
    CHECK_EQ(req(&r, W(4, 4)), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 0);
    /* GoBackN resend 2, 3, 4: each acked and answered */
    CHECK_EQ(req(&r, W(2, 2)), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 2);
    CHECK_EQ(fld(&r, r.n - 2, "ub.rtph.psn"), 2);
    CHECK_EQ(req(&r, W(3, 3)), UB_PEER_ANSWERED);
    CHECK_EQ(req(&r, W(4, 4)), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 2, "ub.rtph.psn"), 4);
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.ini_tassn"), 4);
    /* a duplicate of 2: TPACK(EPSN − 1 = 4), not answered again */
    CHECK_EQ(req(&r, W(2, 2)), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.psn"), 4);
    CHECK_EQ(fld(&r, r.n - 1, "ub.rtph.rspst"), 0);
    /* far outside every window: dropped silently */
    CHECK_EQ(req(&r, W(0x1005, 9)), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 0);
    ub_peer_stats st;
    ub_peer_get_stats(r.peer, &st);
    CHECK_EQ(st.naks, 1);
    CHECK_EQ(st.rtp_duplicate, 1);
    CHECK_EQ(st.rtp_out_of_order, 2);
    CHECK_EQ(st.rtp_invalid, 1);
    run_free(&r);

    /* selective acknowledgement */
    ub_peer_cfg c;
    ub_peer_cfg_default(&c);
    c.loss = UB_PEER_LOSS_SACK;
    run_init(&r, &c);
    CHECK_EQ(req(&r, W(100, 1)), UB_PEER_ANSWERED);
    CHECK_EQ(req(&r, W(102, 3)), UB_PEER_ANSWERED); /* 101 missing: TPSACK, the packet accepted */
    CHECK_EQ(r.outs_last, 2);
    unsigned s = r.n - 2;
    CHECK_EQ(fld(&r, s, "ub.rtph.tpopcode"), 5);
    if (getenv("PEER_DEBUG")) ub_print_tree(stderr, dec(&r, s));
    CHECK_EQ(fld(&r, s, "ub.rtph.psn"), 100);
    CHECK_EQ(fld(&r, s, "ub.saetph.maxrcvpsn"), 102);
    CHECK_EQ(fld(&r, s, "ub.saetph.bitmapsize"), 0);
    {
        const ub_view *v = dec(&r, s);
        int k = ub_view_find(v, UB_H_SAETPH, 0);
        /* R-18 default: BitMap[0] = last byte bit 0: PSN 100 (bit 0) and 102 (bit 2) */
        CHECK(k >= 0 && v->layer[k].len == 12 && v->layer[k].data[11] == 0x05 && v->layer[k].data[10] == 0);
    }
    CHECK_EQ(fld(&r, r.n - 1, "ub.atah.ini_tassn"), 3);
    CHECK_EQ(req(&r, W(101, 2)), UB_PEER_ANSWERED); /* the hole filled: cumulative TPACK(102) */
    CHECK_EQ(fld(&r, r.n - 2, "ub.rtph.tpopcode"), 2);
    CHECK_EQ(fld(&r, r.n - 2, "ub.rtph.psn"), 102);
    CHECK_EQ(req(&r, W(103, 4)), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 2, "ub.rtph.psn"), 103);
    /* the auditor: the TPSACK is consistent, 101 counts as resent after it (UB-TP-006, a note) */
    findings fs;
    char buf[256];
    audit(&r, &fs, false);
    CHECK_STR(ids(&fs, buf, sizeof buf), "");
    bool filled = false;
    for (unsigned i = 0; i < fs.n; i++) filled |= !strcmp(fs.id[i], "UB-TP-006");
    CHECK(filled);
    run_free(&r);

    /* TPACK-CC with the LDCP CETPH: Ack_Seq counts 2-byte Sequences */
    ub_peer_cfg_default(&c);
    c.cc = UB_PEER_CC_LDCP;
    run_init(&r, &c);
    CHECK_EQ(req(&r, W(1, 1)), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, 1, "ub.rtph.tpopcode"), 3);
    uint64_t s1 = fld(&r, 1, "ub.cetph.ack_seq");
    CHECK(s1 > 0 && s1 < 100);
    CHECK_EQ(req(&r, W(2, 2)), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 2, "ub.cetph.ack_seq"), 2 * s1);
    run_free(&r);
}

#define MG(tassn, rc, code, sub) "flit\nlph\nnth16 scna=1 dcna=0x10 mgmt=1\nctph\nupih16 upi=0x7fff\neidh40 seid=1 deid=2\n" \
    "btah taopcode=Management ee_bits=1 ini_tassn=" #tassn " ini_rc_id=" #rc "\nmgmtetah code=" #code " sub_code=" #sub " rsp=0\n"

static void test_mgmt(void)
{
    run r;
    run_init(&r, NULL);
    /* configuration space 0 write (all lanes), read back, a one-lane write (R-35 Byte_En) */
    CHECK_EQ(req(&r, MG(7, 3, 2, 1) "mg_cfg_req entity_idx=0 byte_en=0xf request_address=4 data=0x12345678\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, 1, "ub.mgmtetah.rsp"), 1);
    CHECK_EQ(fld(&r, 1, "ub.mgmtetah.code"), 2);
    CHECK_EQ(fld(&r, 1, "ub.mgmtetah.sub_code"), 1);
    CHECK_EQ(fld(&r, 1, "ub.mgmtetah.status"), 0);
    CHECK_EQ(fld(&r, 1, "ub.btah.ini_tassn"), 7); /* MSN echoed */
    CHECK_EQ(fld(&r, 1, "ub.btah.ini_rc_id"), 3);
    CHECK_EQ(fld(&r, 1, "ub.eidh.seid"), 2);
    CHECK_EQ(fld(&r, 1, "ub.eidh.deid"), 1);
    CHECK_EQ(fld(&r, 1, "ub.nth.scna"), 0x10);
    CHECK_EQ(fld(&r, 1, "ub.nth.mgmt"), 0);
    CHECK_EQ(fld(&r, 1, "ub.upih.upi"), 0x7fff);
    CHECK_EQ(fld(&r, 1, "ub.mgmtetah.pdu_length"), 16);
    CHECK_EQ(ub_peer_cfg_space(r.peer, 0, 4), 0x12345678);
    CHECK_EQ(req(&r, MG(8, 3, 2, 0) "mg_cfg_req entity_idx=0 request_address=4\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.cfgmsg.data"), 0x12345678);
    CHECK_EQ(fld(&r, r.n - 1, "ub.btah.ini_tassn"), 8);
    CHECK_EQ(req(&r, MG(9, 3, 2, 1) "mg_cfg_req entity_idx=0 byte_en=0x1 request_address=4 data=0xffffffAA\n"), UB_PEER_ANSWERED);
    CHECK_EQ(ub_peer_cfg_space(r.peer, 0, 4), 0x123456AA);
    CHECK_EQ(ub_peer_cfg_space(r.peer, 1, 4), 0);
    /* beyond the configuration space: Status 0x22 (address error) */
    CHECK_EQ(req(&r, MG(10, 3, 2, 2) "mg_cfg_req entity_idx=0 request_address=0x100000\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.mgmtetah.status"), 0x22);
    /* a Link Down event: reply without PDU (EV-UBUS), MSN echoed */
    CHECK_EQ(req(&r, MG(11, 0, 1, 1) "mg_link scna=0x10 port_idx=3\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.mgmtetah.pdu_length"), 0);
    CHECK_EQ(fld(&r, r.n - 1, "ub.mgmtetah.sub_code"), 1);
    /* token check -> TokenID / TokenValue; entity information; registration answered without PDU */
    CHECK_EQ(req(&r, MG(12, 3, 5, 2) "mg_token_req check_en=1\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.tokchk.tokenid"), 0x42);
    CHECK_EQ(fld(&r, r.n - 1, "ub.tokchk.tokenvalue"), 0x5eed);
    CHECK_EQ(req(&r, MG(13, 3, 4, 2) ""), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.entinfo.entity_nums"), 1);
    CHECK_EQ(req(&r, MG(14, 3, 6, 0) "mg_ent_reg\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.mgmtetah.pdu_length"), 0);
    /* VDM and pooled notifications take no reply */
    CHECK_EQ(req(&r, MG(15, 3, 6, 5) "mg_port_reset\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 0);
    /* link neighbour query for ports 0..1: two Port_info TLVs, port 0 up */
    CHECK_EQ(req(&r, MG(16, 3, 4, 7) "mg_lnq_req hex=0002000000000001\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.mgmtetah.pdu_length"), 56);
    CHECK_EQ(fld(&r, r.n - 1, "ub.port_info.s"), 1);
    for (unsigned i = 0; i < r.n; i++) CHECK_EQ(errs(&r, i), -1);
    findings fs;
    char buf[256];
    audit(&r, &fs, false);
    CHECK_STR(ids(&fs, buf, sizeof buf), "UB-MG-008"); /* the 0x22 status, a warning (as it should be) */
    if (strcmp(buf, "UB-MG-008")) dump_findings(&fs);
    run_free(&r);
}

#define SCAN "flit\nlph\nnth16 scna=0 dcna=0 mgmt=1\nupih16 upi=0x7fff\nenumpad\n"
#define GUID "12345678120000000000000000000009"

static void test_enum(void)
{
    run r;
    run_init(&r, NULL);
    /* topology query over 2 hops, slice 0 */
    CHECK_EQ(req(&r, SCAN "scanhdr r=1 type=1 hops=2 step=0 forward_path=00000503\nscan_rpath return_path=00000107\n"
                     "scanpdu_req version=1 cmd=0 opcode=1 slice_id=0 msgq_id=5 length=6 msn=1 guid=" GUID "\n"), UB_PEER_ANSWERED);
    CHECK_EQ(r.outs_last, 1);
    CHECK_EQ(fld(&r, 1, "ub.scanhdr.r"), 0);
    CHECK_EQ(fld(&r, 1, "ub.scanhdr.hops"), 2);
    CHECK_EQ(fld(&r, 1, "ub.scanhdr.type"), 1);
    {
        const ub_view *v = dec(&r, 1);
        int k = ub_view_find(v, UB_H_SCANHDR, 0);
        CHECK(k >= 0 && v->layer[k].len == 8 && v->layer[k].data[6] == 0x01 && v->layer[k].data[7] == 0x07);
    }
    CHECK_EQ(fld(&r, 1, "ub.scan.msn"), 1);
    CHECK_EQ(fld(&r, 1, "ub.scan.msgq_id"), 5);
    CHECK_EQ(fld(&r, 1, "ub.scan.opcode"), 0);
    CHECK_EQ(fld(&r, 1, "ub.scan.status"), 0);
    CHECK_EQ(fld(&r, 1, "ub.scan.length"), (24 + 4 + 8 + 2 * 28 + 8) / 4);
    CHECK_EQ(fld(&r, 1, "ub.scan.guid_vendor_id"), fld(&r, 0, "ub.scan.guid_vendor_id"));
    CHECK_EQ(fld(&r, 1, "ub.slice_info.total_slice"), 2);
    CHECK_EQ(fld(&r, 1, "ub.slice_info.slice_id"), 0);
    CHECK_EQ(fld(&r, 1, "ub.port_num.total_num_ports"), 4);
    CHECK_EQ(fld(&r, 1, "ub.port_num.num_port_tlv"), 2);
    CHECK_EQ(fld(&r, 1, "ub.port_info.local_port_idx"), 0);
    CHECK_EQ(fld(&r, 1, "ub.cap_info.sup_mtu"), 2);
    CHECK_EQ(fld(&r, 1, "ub.cap_info.mtu"), 1);
    {
        const ub_view *v = dec(&r, 1);
        unsigned tl = 0;
        for (unsigned i = 0; i < v->nlayers; i++) tl += v->layer[i].hdr->id == UB_H_TLV_PORTINFO;
        CHECK_EQ(tl, 2);
    }
    /* slice 1 holds ports 2, 3; slice 2 does not exist: Status 0x26 */
    CHECK_EQ(req(&r, SCAN "scanhdr r=1 type=1 hops=0 step=0\n"
                     "scanpdu_req version=1 cmd=0 opcode=1 slice_id=1 msgq_id=0 length=6 msn=2 guid=" GUID "\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.slice_info.slice_id"), 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.port_info.local_port_idx"), 2);
    CHECK_EQ(req(&r, SCAN "scanhdr r=1 type=1 hops=0 step=0\n"
                     "scanpdu_req version=1 cmd=0 opcode=1 slice_id=2 msgq_id=0 length=6 msn=3 guid=" GUID "\n"), UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.scan.status"), 0x26);
    CHECK_EQ(fld(&r, r.n - 1, "ub.scan.length"), 6);
    /* Configure CNA (Primary), then Query CNA returns it */
    CHECK_EQ(req(&r, SCAN "scanhdr r=1 type=1 hops=0 step=0\n"
                     "scanpdu_req version=1 cmd=1 opcode=2 msgq_id=0 length=8 msn=4 guid=" GUID "\nscan_cfgcna_req port_idx=0 cna=0x000020\n"),
             UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.scan.cmd"), 1);
    CHECK_EQ(fld(&r, r.n - 1, "ub.scan.length"), 6);
    CHECK_EQ(req(&r, SCAN "scanhdr r=1 type=1 hops=0 step=0\n"
                     "scanpdu_req version=1 cmd=2 opcode=2 msgq_id=0 length=7 msn=5 guid=" GUID "\nscan_qrycna_req port_idx=0\n"),
             UB_PEER_ANSWERED);
    CHECK_EQ(fld(&r, r.n - 1, "ub.scan.cna"), 0x20);
    CHECK_EQ(fld(&r, r.n - 1, "ub.scan.length"), 7);
    for (unsigned i = 0; i < r.n; i++) CHECK_EQ(errs(&r, i), -1);
    findings fs;
    char buf[256];
    audit(&r, &fs, false);
    CHECK_STR(ids(&fs, buf, sizeof buf), "UB-MG-008"); /* the missing slice */
    if (strcmp(buf, "UB-MG-008")) dump_findings(&fs);
    run_free(&r);
}

/* ---------------------------------------------------------------- fault knobs */
static const char *const scen[] = {
    RTP_HDR(1, 1, 0, 1) "btah taopcode=Write ini_tassn=1 ini_rc_id=0x20\nmaetah address=0x80000000 tokenid=0x42 length=64\npayload inc=64\n",
    RTP_HDR(2, 1, 0, 2) "btah taopcode=Read ini_tassn=2 ini_rc_id=0x20\nmaetah address=0x80000000 tokenid=0x42 length=64\n",
    RTP_HDR(3, 1, 0, 3) "btah taopcode=Atomic_fetch_add ini_tassn=3 ini_rc_id=0x20\nmaetah address=0x80001000 tokenid=0x42 length=8\n"
                        "atomic_ops hex=0100000000000000\natomic_ops hex=0000000000000000\n",
    RTP_HDR(4, 1, 0, 4) "btah taopcode=Write ini_tassn=4 ini_rc_id=0x20\nmaetah address=0x80002000 tokenid=0x42 length=8\npayload inc=8\n",
};
static const char *const mgscen[] = {
    MG(7, 3, 2, 0) "mg_cfg_req entity_idx=0 request_address=4\n",
    SCAN "scanhdr r=1 type=1 hops=0 step=0\nscanpdu_req version=1 cmd=2 opcode=2 msgq_id=0 length=7 msn=3 guid=" GUID "\nscan_qrycna_req port_idx=0\n",
    MG(8, 3, 2, 1) "mg_cfg_req entity_idx=0 byte_en=0xf request_address=4 data=1\n",
};

/* run a scenario with one fault (NULL: none); returns the audit ids in buf */
static const char *fault_run(run *r, const char *spec, bool mg, char *buf, size_t n)
{
    run_init(r, NULL);
    ub_filter *flt = NULL;
    if (spec) {
        ub_peer_fault f;
        char err[256];
        int rc = ub_peer_fault_parse(spec, &f, &flt, err, sizeof err);
        if (rc < 0) fprintf(stderr, "fault %s: %s\n", spec, err);
        CHECK_EQ(rc, 0);
        CHECK_EQ(ub_peer_add_fault(r->peer, &f, err, sizeof err), 0);
    }
    const char *const *sc = mg ? mgscen : scen;
    unsigned ns = mg ? 3 : 4;
    for (unsigned i = 0; i < ns; i++) req(r, sc[i]);
    ub_peer_flush(r->peer);
    findings fs;
    audit(r, &fs, false);
    ids(&fs, buf, n);
    if (getenv("PEER_DEBUG")) { fprintf(stderr, "%s: %s\n", spec ? spec : "clean", buf); dump_findings(&fs); }
    ub_filter_free(flt);
    return buf;
}

/* index of the k-th output of kind `kind` (0-based) */
static int nth_out(const run *r, unsigned kind, unsigned k)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->f[i].dir == 2 && r->f[i].kind == kind && k-- == 0) return (int)i;
    return -1;
}

static void test_faults(void)
{
    run c, r;
    char buf[256];
    /* clean reference */
    CHECK_STR(fault_run(&c, NULL, false, buf, sizeof buf), "");
    CHECK_EQ(c.n, 12);
    /* drop the Read's response: never answered, and a PSN gap on the peer's channel */
    CHECK_STR(fault_run(&r, "drop:nth=2", false, buf, sizeof buf), "UB-TA-001 UB-TP-002");
    CHECK_EQ(r.n, 11);
    CHECK_EQ(nth_out(&r, UB_PEER_OUT_RSP, 1) >= 0 && fld(&r, (unsigned)nth_out(&r, UB_PEER_OUT_RSP, 1), "ub.atah.ini_tassn") == 3, 1);
    run_free(&r);
    /* drop the last TPACK: data never acknowledged */
    CHECK_STR(fault_run(&r, "drop:on=ack,nth=4", false, buf, sizeof buf), "UB-TP-018");
    run_free(&r);
    /* drop the Read request on the way in: a PSN gap, one TPNAK, no resend, nothing answered after */
    CHECK_STR(fault_run(&r, "drop:on=req,nth=2", false, buf, sizeof buf), "UB-TA-001 UB-TP-002 UB-TP-010 UB-TP-018");
    CHECK_EQ(r.n, 6); /* req1 ack taack, req3 TPNAK(2), req4 */
    CHECK_EQ(fld(&r, 4, "ub.rtph.rspst"), 3);
    CHECK_EQ(fld(&r, 4, "ub.rtph.psn"), 2);
    run_free(&r);
    /* delay: the same packets, responses 5 ms later, acks not */
    CHECK_STR(fault_run(&r, "delay:delay=5ms", false, buf, sizeof buf), "");
    CHECK_EQ(r.n, c.n);
    for (unsigned i = 0; i < r.n; i++) {
        CHECK_EQ(r.f[i].len, c.f[i].len);
        CHECK(!memcmp(r.f[i].d, c.f[i].d, r.f[i].len));
        CHECK_EQ(r.f[i].delay, r.f[i].dir == 2 && r.f[i].kind == UB_PEER_OUT_RSP ? 5000000u : 0u);
    }
    run_free(&r);
    /* duplicate the first TAACK: a second response (new PSN) */
    CHECK_STR(fault_run(&r, "duplicate:nth=1", false, buf, sizeof buf), "UB-TA-003");
    CHECK_EQ(r.n, 13);
    CHECK_EQ(fld(&r, 2, "ub.atah.ini_tassn"), 1);
    CHECK_EQ(fld(&r, 3, "ub.atah.ini_tassn"), 1);
    CHECK_EQ(fld(&r, 3, "ub.rtph.psn"), fld(&r, 2, "ub.rtph.psn") + 1);
    run_free(&r);
    /* duplicate an ack: a duplicate ack is only a note */
    CHECK_STR(fault_run(&r, "duplicate:on=ack,nth=1", false, buf, sizeof buf), "");
    CHECK_EQ(r.n, 13);
    CHECK(!memcmp(r.f[1].d, r.f[2].d, r.f[1].len));
    run_free(&r);
    /* reorder the first TPACK after the second: the cumulative ack goes backwards */
    CHECK_STR(fault_run(&r, "reorder:on=ack,nth=1", false, buf, sizeof buf), "UB-TP-008");
    CHECK_EQ(fld(&r, 3, "ub.rtph.psn"), 2);
    CHECK_EQ(fld(&r, 4, "ub.rtph.psn"), 1);
    run_free(&r);
    /* reorder the Read's response after the Atomic's: the peer's data arrives out of order */
    CHECK_STR(fault_run(&r, "reorder:on=rsp,nth=2", false, buf, sizeof buf), "UB-TP-004");
    run_free(&r);
    /* corrupt the ICRC of the Read_response: discarded by the auditor (§10.6 d) */
    CHECK_STR(fault_run(&r, "corrupt-icrc:on=rsp,nth=2", false, buf, sizeof buf), "UB-NW-005 UB-TA-001 UB-TP-002");
    {
        int i = nth_out(&r, UB_PEER_OUT_RSP, 1), j = nth_out(&c, UB_PEER_OUT_RSP, 1);
        CHECK(i >= 0 && j >= 0);
        if (i >= 0 && j >= 0) {
            CHECK_EQ(fld(&r, (unsigned)i, "ub.icrc.status"), UB_CK_BAD);
            CHECK_EQ(fld(&r, (unsigned)i, "ub.bcrc.status"), UB_CK_GOOD);
            uint32_t a, b;
            const uint8_t *pa = payload(&r, (unsigned)i, &a);
            uint8_t keep[64];
            memcpy(keep, pa, a < 64 ? a : 64);
            payload(&c, (unsigned)j, &b);
            CHECK_EQ(a, b);
            CHECK_EQ(fld(&r, (unsigned)i, "ub.rtph.psn"), fld(&c, (unsigned)j, "ub.rtph.psn"));
        }
    }
    run_free(&r);
    /* corrupt the BCRC of the Read_response (flit records) */
    CHECK_STR(fault_run(&r, "corrupt-bcrc:on=rsp,nth=2", false, buf, sizeof buf), "UB-DL-006 UB-TA-001 UB-TP-002");
    run_free(&r);
    /* a wrong TASSN: the Read unanswered, a response for a TASSN not sent yet */
    CHECK_STR(fault_run(&r, "wrong-tassn:nth=2", false, buf, sizeof buf), "UB-TA-001 UB-TA-002");
    CHECK_EQ(fld(&r, (unsigned)nth_out(&r, UB_PEER_OUT_RSP, 1), "ub.atah.ini_tassn"), 3);
    run_free(&r);
    /* a wrong ack PSN: beyond the highest PSN sent (the auditor then resynchronises on it and the
     * next data packet's TPMSN no longer follows: UB-TP-012) */
    CHECK_STR(fault_run(&r, "wrong-psn:nth=1", false, buf, sizeof buf), "UB-TP-008 UB-TP-012");
    CHECK_EQ(fld(&r, 1, "ub.rtph.psn"), 2);
    run_free(&r);
    /* a wrong PSN on the peer's own data: a gap the requester never sees filled */
    CHECK_STR(fault_run(&r, "wrong-psn:on=rsp,nth=2", false, buf, sizeof buf), "UB-TP-002");
    CHECK_EQ(fld(&r, (unsigned)nth_out(&r, UB_PEER_OUT_RSP, 1), "ub.rtph.psn"), 3);
    CHECK_EQ(fld(&r, (unsigned)nth_out(&r, UB_PEER_OUT_RSP, 2), "ub.rtph.psn"), 4);
    run_free(&r);
    /* a wrong response opcode: the Read answered with a TAACK (carrying the data: only the opcode
     * changes, so the payload length no longer fits either, UB-TA-017); a Write with a Read_response */
    CHECK_STR(fault_run(&r, "wrong-opcode:nth=2", false, buf, sizeof buf), "UB-TA-004 UB-TA-017");
    CHECK_EQ(fld(&r, (unsigned)nth_out(&r, UB_PEER_OUT_RSP, 1), "ub.atah.taopcode"), 0x11);
    run_free(&r);
    CHECK_STR(fault_run(&r, "wrong-opcode:nth=1", false, buf, sizeof buf), "UB-TA-004");
    CHECK_EQ(fld(&r, 2, "ub.atah.taopcode"), 0x12);
    run_free(&r);
    /* no response to the Read (acked, never answered) */
    CHECK_STR(fault_run(&r, "no-response:nth=2", false, buf, sizeof buf), "UB-TA-001");
    CHECK_EQ(r.n, 11);
    run_free(&r);
    /* filters and rates: only Reads; every candidate at rate 1; limit */
    CHECK_STR(fault_run(&r, "no-response:filter=ub.btah.taopcode == \"Read\"", false, buf, sizeof buf), "UB-TA-001");
    CHECK_EQ(r.n, 11);
    run_free(&r);
    CHECK_STR(fault_run(&r, "no-response:rate=1,limit=1", false, buf, sizeof buf), "");
    CHECK_EQ(r.n, 11); /* the first Write's TAACK only (no TAACK seen yet: RTP Writes need none) */
    run_free(&r);
    /* management: wrong MSN, wrong Sub Code */
    run_free(&c);
    CHECK_STR(fault_run(&c, NULL, true, buf, sizeof buf), "");
    run_free(&c);
    CHECK_STR(fault_run(&r, "wrong-msn:nth=1", true, buf, sizeof buf), "UB-MG-005 UB-MG-007");
    CHECK_EQ(fld(&r, 1, "ub.btah.ini_tassn"), 8);
    run_free(&r);
    CHECK_STR(fault_run(&r, "wrong-msn:nth=2", true, buf, sizeof buf), "UB-MG-005 UB-MG-007");
    CHECK_EQ(fld(&r, 3, "ub.scan.msn"), 4);
    run_free(&r);
    CHECK_STR(fault_run(&r, "wrong-opcode:nth=1", true, buf, sizeof buf), "UB-MG-006");
    CHECK_EQ(fld(&r, 1, "ub.mgmtetah.sub_code"), 1);
    run_free(&r);
    CHECK_STR(fault_run(&r, "wrong-opcode:nth=2", true, buf, sizeof buf), "UB-MG-006");
    CHECK_EQ(fld(&r, 3, "ub.scan.cmd"), 3); /* Scan CMD 2 -> 3 */
    run_free(&r);
    /* a byte-identical second management response: in flit records the auditor reads it as a DLL
     * replay (§10.6 d) and says nothing; in packet records it is UB-MG-011 */
    CHECK_STR(fault_run(&r, "duplicate:nth=1", true, buf, sizeof buf), "");
    CHECK_EQ(r.n, 7);
    CHECK(r.f[1].len == r.f[2].len && !memcmp(r.f[1].d, r.f[2].d, r.f[1].len));
    run_free(&r);
    {
        run_init(&r, NULL);
        ub_peer_fault f;
        char err[128];
        CHECK_EQ(ub_peer_fault_parse("duplicate", &f, NULL, err, sizeof err), 0);
        ub_peer_add_fault(r.peer, &f, err, sizeof err);
        req(&r, "pkt\nlph\nnth16 scna=1 dcna=0x10 mgmt=1\nctph\nupih16 upi=0x7fff\neidh40 seid=1 deid=2\n"
                "btah taopcode=Management ee_bits=1 ini_tassn=7 ini_rc_id=3\nmgmtetah code=2 sub_code=0 rsp=0\n"
                "mg_cfg_req entity_idx=0 request_address=4\n");
        CHECK_EQ(r.n, 3);
        findings fs2;
        audit(&r, &fs2, false);
        CHECK_STR(ids(&fs2, buf, sizeof buf), "UB-MG-011");
        run_free(&r);
    }
    CHECK_STR(fault_run(&r, "no-response:nth=2", true, buf, sizeof buf), "UB-MG-005");
    run_free(&r);
    /* seeded rates are reproducible */
    {
        ub_peer_stats s1, s2;
        for (int k = 0; k < 2; k++) {
            ub_peer_cfg cfg;
            ub_peer_cfg_default(&cfg);
            cfg.seed = 42;
            run_init(&r, &cfg);
            ub_peer_fault f;
            char err[128];
            CHECK_EQ(ub_peer_fault_parse("drop:on=ack+rsp,rate=0.5", &f, NULL, err, sizeof err), 0);
            CHECK_EQ(f.on, UB_PT_ACK | UB_PT_RSP);
            ub_peer_add_fault(r.peer, &f, err, sizeof err);
            for (int rep = 0; rep < 8; rep++)
                for (unsigned i = 0; i < 4; i++) req(&r, scen[i]);
            ub_peer_get_stats(r.peer, k ? &s2 : &s1);
            run_free(&r);
        }
        CHECK_EQ(s1.faults[UB_PF_DROP], s2.faults[UB_PF_DROP]);
        CHECK(s1.faults[UB_PF_DROP] > 0 && s1.faults[UB_PF_DROP] < 64);
    }
    /* parsing */
    ub_peer_fault f;
    char err[256];
    CHECK(ub_peer_fault_parse("explode", &f, NULL, err, sizeof err) < 0);
    CHECK(ub_peer_fault_parse("drop:rate=2", &f, NULL, err, sizeof err) < 0);
    CHECK(ub_peer_fault_parse("wrong-tassn:on=ack", &f, NULL, err, sizeof err) < 0);
    CHECK(ub_peer_fault_parse("delay:on=req", &f, NULL, err, sizeof err) < 0);
    CHECK(ub_peer_fault_parse("delay:delay=250us", &f, NULL, err, sizeof err) == 0 && f.delay_ns == 250000);
    CHECK(ub_peer_fault_parse("wrong-psn:delta=-3,every=2", &f, NULL, err, sizeof err) == 0 && f.delta == -3 && f.every == 2);
    CHECK(ub_peer_fault_parse("drop:filter=ub.btah.taopcode ==", &f, NULL, err, sizeof err) < 0);
    CHECK_EQ(ub_peer_fault_kind_by_name("corrupt-bcrc"), UB_PF_CORRUPT_BCRC);
    CHECK_STR(ub_peer_fault_name(UB_PF_NO_RESPONSE), "no-response");
}

/* ---------------------------------------------------------------- hostile input */
static void sink(void *ctx, const ub_peer_out *o)
{
    unsigned *n = ctx;
    (*n)++;
    CHECK(o->len > 0 && o->len <= UB_MAX_NETPKT * 2 + 256);
}

/* every record of every bundled capture, their prefixes and single-bit corruptions, through a peer
 * with faults switched on: no crash, no sanitizer report, outputs well-formed in length */
static void test_robust(void)
{
    ub_opts o;
    ub_opts_default(&o);
    ub_peer_cfg c;
    ub_peer_cfg_default(&c);
    c.opts = &o;
    c.loss = UB_PEER_LOSS_SACK;
    c.cc = UB_PEER_CC_CAQM;
    c.max_channels = 8; /* evictions too */
    c.max_pages = 4;
    c.max_held = 2;
    c.max_rtx = 2;
    unsigned outs = 0, recs = 0;
    char err[256];
    ub_peer *p = ub_peer_new(&c, sink, &outs, err, sizeof err);
    CHECK(p != NULL);
    if (!p) return;
    static const char *const fs[] = { "reorder:on=ack+rsp,rate=0.3", "duplicate:rate=0.2", "delay:rate=0.1",
                                      "wrong-psn:on=ack+rsp,rate=0.1", "wrong-tassn:rate=0.1", "corrupt-icrc:rate=0.1",
                                      "corrupt-bcrc:rate=0.1", "wrong-opcode:rate=0.1", "wrong-msn:rate=0.2" };
    for (unsigned i = 0; i < sizeof fs / sizeof fs[0]; i++) {
        ub_peer_fault f;
        CHECK_EQ(ub_peer_fault_parse(fs[i], &f, NULL, err, sizeof err), 0);
        CHECK_EQ(ub_peer_add_fault(p, &f, err, sizeof err), 0);
    }
    ub_view *v = scratch_view();
    static uint8_t buf[UB_MAX_NETPKT * 2];
    DIR *d = opendir(UB_SOURCE_DIR "/captures");
    CHECK(d != NULL);
    struct dirent *de;
    uint64_t ts = 0;
    while (d && (de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 7 || strcmp(de->d_name + l - 7, ".pcapng")) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/captures/%s", UB_SOURCE_DIR, de->d_name);
        ub_capfile *cf = ub_cap_open(path, err, sizeof err);
        if (!cf) continue;
        ub_rec r;
        unsigned k = 0;
        while (ub_cap_next(cf, &r) == 1) {
            ub_entry e = ub_entry_for_linktype(&o, r.linktype);
            if (e == UB_ENTRY_NONE || e == UB_ENTRY_STREAM || r.caplen > sizeof buf) continue;
            recs++;
            ub_peer_pktinfo pi = { ts += 1000, k };
            ub_decode(v, &o, e, r.data, r.caplen);
            ub_peer_packet(p, v, &pi);
            if (k++ >= 6) continue; /* mutations of the first records of each file */
            for (uint32_t n = 1; n < r.caplen && n < 300; n += 3) { /* prefixes */
                ub_decode(v, &o, e, r.data, n);
                ub_peer_packet(p, v, &pi);
            }
            for (uint32_t bit = 0; bit < r.caplen * 8 && bit < 96 * 8; bit++) { /* single-bit flips */
                memcpy(buf, r.data, r.caplen);
                buf[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
                ub_decode(v, &o, e, buf, r.caplen);
                ub_peer_packet(p, v, &pi);
            }
            ub_peer_tick(p, ts);
        }
        ub_cap_close(cf);
    }
    if (d) closedir(d);
    ub_peer_flush(p);
    ub_peer_stats st;
    ub_peer_get_stats(p, &st);
    CHECK(recs > 100);
    CHECK(outs > 100);
    CHECK(st.channels <= 8);
    CHECK(st.pages <= 4);
    CHECK(st.channels_evicted > 0);
    printf("robust: %u records, %llu inputs, %u outputs, %llu build errors (%s)\n", recs,
           (unsigned long long)st.packets, outs, (unsigned long long)st.build_errors, ub_peer_last_error(p));
    ub_peer_free(p);
}

int main(void)
{
    test_rtp_transactions();
    test_ctp_bypass_utp();
    test_entries();
    test_loss();
    test_mgmt();
    test_enum();
    test_faults();
    test_robust();
    return ub_test_finish();
}
