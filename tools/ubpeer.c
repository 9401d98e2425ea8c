/* ubpeer — a reference UB responder: answers UB requests as the spec says (RTP acks, transaction
 * target, management target, enumeration responder), over UDP or on a named interface, with fault
 * knobs that make it misbehave on purpose. Thin front end: the behaviour is libubparse's ub_peer
 * (peer.h), the sockets are io.h, the capture writer capfile.h. docs/peer.md is the user guide. */
#include "ubparse/audit.h"
#include "ubparse/capfile.h"
#include "ubparse/io.h"
#include "ubparse/peer.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t g_stop;
static void on_signal(int sig) { g_stop = sig; }

static void usage(FILE *f)
{
    fprintf(f,
"NAME\n"
"    ubpeer - reference UnifiedBus responder with fault injection\n"
"\n"
"SYNOPSIS\n"
"    ubpeer --udp [ADDR:]PORT [options]\n"
"    ubpeer -i IFACE [--allow-physical] [--raw flit|pkt] [options]\n"
"\n"
"DESCRIPTION\n"
"    Answers UB requests the way the UB Base Specification 2.0 says, so that `ubdump --audit` finds\n"
"    nothing to report on the exchange: RTP receiver per TP channel (TPACK / TPNAK / TPSACK, PSN\n"
"    checks, duplicates), transaction target over an in-memory segment (Write family -> TAACK, Read ->\n"
"    Read_response with the data written before, Atomics with their results, Send -> TAACK),\n"
"    management target (configuration read/write, events, entity information, link neighbours,\n"
"    token check, registration; MSN echoed) and enumeration responder (topology query TLVs,\n"
"    Configure / Query CNA). Answers use the form the request came in. Fault knobs make it break\n"
"    chosen rules on purpose (docs/peer.md lists the rule ids each one provokes).\n"
"    Nothing is sent anywhere but in answer to a packet received on the endpoint you name.\n"
"\n"
"ENDPOINT (exactly one)\n"
"    --udp [ADDR:]PORT   listen for UB over UDP (the UDP payload: RTPH/UTPH ...); no privileges.\n"
"                        ADDR defaults to every address (IPv6 dual-stack); PORT 0 picks a free port.\n"
"    -i IFACE            answer on interface IFACE through AF_PACKET (CAP_NET_RAW, dropped as soon\n"
"                        as the socket is open). Ethernet: UBoE frames (App. E; other traffic is\n"
"                        ignored); Linux ubl (ARPHRD_UB): the 1-byte CFG pseudo-header form.\n"
"    --allow-physical    -i may name an interface backed by hardware (default: virtual only:\n"
"                        veth, lo, dummy, tun/tap, bridges ...)\n"
"    --raw flit|pkt      -i: frames are UB records unchanged, flit-framed (LINKTYPE_USER0) or packet\n"
"                        records (USER1), as FPGA / test benches exchange them\n"
"    --tx-ring           send through PACKET_TX_RING (default sendmmsg, faster on veth: bench/README.md)\n"
"    --qdisc-bypass      PACKET_QDISC_BYPASS        --promisc     promiscuous mode\n"
"    --batch N           packets per recvmmsg/sendmmsg (default 64)\n"
"\n"
"BEHAVIOUR\n"
"    -o NAME=VALUE       decoder option, as ubdump -o (R-nn alternatives; -o help lists them); the\n"
"                        answers are built with the same choices\n"
"    --noncrc            links run in Non-CRC mode (END instead of BCRC)\n"
"    --loss gbn|sack     out-of-order data: one TPNAK per loss episode, dropped (GoBackN, default),\n"
"                        or accepted and reported with TPSACK (§6.4.2)\n"
"    --cc none|ldcp|caqm transport acks with a CETPH (TPACK-CC family, §6.2.2)\n"
"    --ack-every N       acknowledge every Nth in-order packet (default 1; A = 1, Last, gaps and\n"
"                        duplicates always)\n"
"    --ooo-window N      out-of-order window in PSNs (default 256)\n"
"    --mtu N             TP MTU: Read_response payload per RTP packet (default 1024)\n"
"    --tx-psn N          first PSN of the peer's own data (default: the requester's first PSN)\n"
"    --no-rtp-taack      no TAACK for Writes/Sends over RTP (service modes without one)\n"
"    --rol               RTP + ROL: the TPACK carries the response (RSPST 101, §7.3.1.1)\n"
"    --segment BASE:SIZE only this address range exists (other addresses: Completer Error)\n"
"    --pages N           memory pages of 4 KiB kept (default 256)\n"
"    --atomic-be         atomic operands are big-endian (default little-endian, R-28)\n"
"    --guid HEX32        answer enumeration as this GUID (default: the GUID the request names)\n"
"    --ports N, --ports-per-slice N, --ports-up MASK    topology reported (4, 2, 0x1)\n"
"    --no-event-reply    do not reply to event messages (default: reply without PDU)\n"
"\n"
"FAULTS\n"
"    --fault KIND[:key=value,...]   (repeatable) KIND: drop, delay, duplicate, reorder,\n"
"                        corrupt-icrc, corrupt-bcrc, wrong-tassn, wrong-msn, wrong-psn, wrong-opcode,\n"
"                        no-response. Keys: on=req|ack|rsp|all (join with +), rate=P, nth=N,\n"
"                        every=N, limit=N, delay=T (5ms, 200us), delta=N, and last\n"
"                        filter=DISPLAY-FILTER (the request the packet answers must match).\n"
"                        e.g. --fault drop:rate=0.01  --fault 'no-response:filter=ub.btah.taopcode == \"Read\"'\n"
"    --seed N            seed of the fault PRNG (default 1)\n"
"\n"
"RUN CONTROL AND OUTPUT\n"
"    -c, --count N       stop after N received packets (their answers, delayed ones too, are sent)\n"
"    --duration T        stop after T (seconds; ms/us suffixes accepted)\n"
"    --ready-file FILE   written once the endpoint is open: the UDP port, or the interface name\n"
"    -w FILE             save what was received and sent (pcapng, EPB directions); UDP traffic is\n"
"                        written as IP/UDP packets (LINKTYPE_RAW) with destination port 4792\n"
"    --stats[=N]         print counters every N seconds (default: once at the end only)\n"
"    --audit             judge what ubpeer received and sent with the rule engine of ubdump --audit\n"
"                        (the same packets -w saves, in the same order); the report at the end\n"
"    --audit-format text|json|sarif|junit   report format (default text)\n"
"    --audit-output FILE write the report to FILE (default: standard output)\n"
"    --fail-on error|warning|never   findings that make the exit status 1 (default error)\n"
"    --response-timeout MS   unanswered requests are errors only after MS ms (default 100)\n"
"    -q                  no summary\n"
"    -h, --help          this text\n"
"    SIGINT / SIGTERM    stop: packets already received are answered, the summary printed.\n"
"\n"
"EXIT STATUS\n"
"    0 stopped normally (with --audit: no finding at or above --fail-on), 1 --audit findings,\n"
"    3 --audit incomplete (state tables evicted before judging), 2 usage or I/O error.\n");
}

/* ================================================================ pending outputs (a min-heap on due time) */
typedef struct pend {
    uint64_t due, seq, flow;
    uint8_t *data;
    uint32_t len;
    uint8_t kind, sent; /* sent: immediate answers, after the batch's send (due = send time then) */
} pend;

typedef struct app {
    /* options */
    const char *udp, *ifname, *wfile, *ready_file;
    bool allow_physical, quiet;
    int raw;                 /* 0, UB_ENTRY_FLIT, UB_ENTRY_PKT */
    uint64_t count, duration_ns, stats_ns;
    ub_io_cfg iocfg;
    ub_opts opts;
    ub_peer_cfg pcfg;
    ub_peer_fault faults[16];
    ub_filter *filters[16];
    unsigned nfaults;
    /* run */
    ub_io *io;
    ub_peer *peer;
    ub_capw *w;
    ub_io_clock clk;
    ub_view *view;
    uint64_t last_rec_ts, received, recorded, rec_errors, out_total, queue_full;
    pend *heap;
    unsigned nheap, capheap;
    uint64_t pseq;
    uint64_t cur_arrival_mono; /* arrival of the packet being fed (delays count from it) */
    /* the batch being answered: immediate answers, and the order in which -w writes the batch
     * (each request followed by its answers: processing order, whatever the batching) */
    bool in_batch;
    pend *imm;
    unsigned nimm, capimm;
    struct plan { int rx; unsigned imm; } *plan; /* rx >= 0: rx[rx]; else imm[imm] */
    unsigned nplan, capplan;
    /* UDP flows: source/destination of requests, by a hash the peer echoes back */
    struct { uint64_t h; ub_io_addr from, to; } *flows;
    unsigned nflows;
    uint8_t rec[UB_MAX_NETPKT * 2 + 128];
    /* --audit */
    bool audit;
    ub_report_fmt afmt;
    const char *aout_path;
    int fail_on;
    uint64_t response_timeout_ns;
    ub_audit *session;
    ub_view *aview;
    uint64_t aframes;
    bool aoom;
} app;

static bool pend_less(const pend *x, const pend *y);
static void heap_push(app *a, pend *x)
{
    if (a->nheap == a->capheap) {
        unsigned nc = a->capheap ? a->capheap * 2 : 256;
        pend *nh = realloc(a->heap, nc * sizeof *nh);
        if (!nh) { a->queue_full++; free(x->data); return; }
        a->heap = nh;
        a->capheap = nc;
    }
    unsigned i = a->nheap++;
    while (i) {
        unsigned p = (i - 1) / 2;
        if (pend_less(&a->heap[p], x)) break;
        a->heap[i] = a->heap[p];
        i = p;
    }
    a->heap[i] = *x;
}

static bool pend_less(const pend *x, const pend *y) { return x->due < y->due || (x->due == y->due && x->seq < y->seq); }

static pend heap_pop(app *a)
{
    pend top = a->heap[0], last = a->heap[--a->nheap];
    unsigned i = 0;
    for (;;) {
        unsigned l = 2 * i + 1;
        if (l >= a->nheap) break;
        unsigned c = l + 1 < a->nheap && pend_less(&a->heap[l + 1], &a->heap[l]) ? l + 1 : l;
        if (!pend_less(&a->heap[c], &last)) break;
        a->heap[i] = a->heap[c];
        i = c;
    }
    if (a->nheap) a->heap[i] = last;
    return top;
}

static uint64_t fnv_addr(const ub_io_addr *x, const ub_io_addr *y)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const uint8_t *p = (const uint8_t *)&x->ss;
    for (socklen_t i = 0; i < x->len; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    p = (const uint8_t *)&y->ss;
    for (socklen_t i = 0; i < y->len; i++) { h ^= p[i]; h *= 0x100000001b3ull; }
    return h ? h : 1;
}

enum { MAX_FLOWS = 4096 };
static uint64_t flow_of(app *a, const ub_io_rx *rx)
{
    if (ub_io_get_kind(a->io) != UB_IO_UDP) return 0;
    uint64_t h = fnv_addr(&rx->from, &rx->to);
    unsigned slot = (unsigned)(h % MAX_FLOWS);
    a->flows[slot].h = h; /* a colliding newer flow replaces the older one (bounded) */
    a->flows[slot].from = rx->from;
    a->flows[slot].to = rx->to;
    return h;
}

/* ================================================================ recording */
static void record(app *a, const uint8_t *d, uint32_t len, uint8_t dir, uint64_t ts, const ub_io_addr *src, const ub_io_addr *dst)
{
    if (!a->w && !a->session) return;
    long n = ub_io_record(a->io, d, len, dir, src, dst, a->rec, sizeof a->rec);
    if (n < 0) { a->rec_errors++; return; }
    if (ts < a->last_rec_ts) ts = a->last_rec_ts; /* the file stays in time order */
    a->last_rec_ts = ts;
    if (a->w) {
        if (ub_capw_write(a->w, 0, ts, a->rec, (uint32_t)n, dir) < 0) a->rec_errors++;
        else a->recorded++;
    }
    if (a->session) { /* --audit: exactly what -w saves, in the same order */
        ub_decode(a->aview, &a->opts, ub_entry_for_linktype(&a->opts, ub_io_linktype(a->io, &a->opts)), a->rec, (uint32_t)n);
        ub_pktinfo pi = { ++a->aframes, ts, 0, dir };
        if (ub_audit_packet(a->session, a->aview, &pi) != 0) a->aoom = true;
    }
}

/* ================================================================ peer outputs */
static bool grow(void **p, unsigned *cap, unsigned need, size_t esz)
{
    if (need <= *cap) return true;
    unsigned nc = *cap ? *cap * 2 : 256;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, (size_t)nc * esz);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

static void on_out(void *ctx, const ub_peer_out *o)
{
    app *a = ctx;
    pend x;
    x.data = malloc(o->len ? o->len : 1);
    if (!x.data) { a->queue_full++; return; }
    memcpy(x.data, o->data, o->len);
    x.len = o->len;
    x.kind = o->kind;
    x.flow = o->flow;
    x.seq = ++a->pseq;
    x.due = (o->seq ? a->cur_arrival_mono : ub_io_now_mono()) + o->delay_ns;
    a->out_total++;
    if (a->in_batch && o->seq && !o->delay_ns) { /* an immediate answer: sent with the batch */
        if (!grow((void **)&a->imm, &a->capimm, a->nimm + 1, sizeof *a->imm) ||
            !grow((void **)&a->plan, &a->capplan, a->nplan + 1, sizeof *a->plan)) {
            free(x.data);
            a->queue_full++;
            return;
        }
        a->plan[a->nplan].rx = -1;
        a->plan[a->nplan++].imm = a->nimm;
        a->imm[a->nimm++] = x;
        return;
    }
    heap_push(a, &x);
}

/* the UDP addresses of a flow (NULL, NULL for interfaces); false if the flow was forgotten */
static bool flow_addrs(app *a, uint64_t flow, const ub_io_addr **from, const ub_io_addr **to)
{
    *from = *to = NULL;
    if (ub_io_get_kind(a->io) != UB_IO_UDP) return true;
    unsigned slot = (unsigned)(flow % MAX_FLOWS);
    if (a->flows[slot].h != flow) return false;
    *to = &a->flows[slot].from;   /* the answer goes back to the request's source ... */
    *from = &a->flows[slot].to;   /* ... from the address the request came to */
    return true;
}

/* answer a batch of received packets: feed them, send the immediate answers in one go, then write
 * -w in processing order */
static int process_batch(app *a, const ub_io_rx *rx, int n)
{
    a->nimm = a->nplan = 0;
    a->in_batch = true;
    for (int i = 0; i < n; i++) {
        a->received++;
        a->cur_arrival_mono = ub_io_real_to_mono(&a->clk, rx[i].ts_ns);
        uint64_t now = ub_io_now_mono();
        if (a->cur_arrival_mono > now) a->cur_arrival_mono = now;
        ub_decode(a->view, &a->opts, ub_io_entry(a->io), rx[i].data, rx[i].len);
        ub_peer_pktinfo pi = { a->cur_arrival_mono, flow_of(a, &rx[i]) };
        unsigned at = a->nplan;
        if (!grow((void **)&a->plan, &a->capplan, a->nplan + 1, sizeof *a->plan)) return -1;
        a->plan[a->nplan++].rx = i;
        if (ub_peer_packet(a->peer, a->view, &pi) == UB_PEER_DROPPED) a->plan[at].rx = -2; /* lost on the way in: not saved */
        if (a->count && a->received >= a->count) break;
    }
    a->in_batch = false;
    /* send */
    enum { B = 64 };
    ub_io_tx tx[B];
    unsigned idx[B];
    int result = 0;
    for (unsigned at = 0; at < a->nimm && !result; at += B) {
        unsigned k = a->nimm - at < B ? a->nimm - at : B, m = 0;
        for (unsigned j = 0; j < k; j++) {
            pend *x = &a->imm[at + j];
            const ub_io_addr *fr, *to;
            x->sent = 0;
            if (!flow_addrs(a, x->flow, &fr, &to)) { a->queue_full++; continue; }
            memset(&tx[m], 0, sizeof tx[m]);
            tx[m].data = x->data;
            tx[m].len = x->len;
            tx[m].from = fr;
            tx[m].to = to;
            idx[m++] = at + j;
        }
        if (m && ub_io_send(a->io, tx, m) < 0) { fprintf(stderr, "ubpeer: %s\n", ub_io_error(a->io)); result = -1; break; }
        for (unsigned j = 0; j < m; j++) {
            a->imm[idx[j]].sent = !tx[j].err;
            a->imm[idx[j]].due = tx[j].ts_ns;
        }
    }
    /* -w: each request, then its answers */
    for (unsigned i = 0; i < a->nplan; i++) {
        const struct plan *pl = &a->plan[i];
        if (pl->rx >= 0) {
            record(a, rx[pl->rx].data, rx[pl->rx].len, UB_DIR_IN, rx[pl->rx].ts_ns, &rx[pl->rx].from, &rx[pl->rx].to);
        } else if (pl->rx == -1 && a->imm[pl->imm].sent) {
            const pend *x = &a->imm[pl->imm];
            const ub_io_addr *fr, *to;
            flow_addrs(a, x->flow, &fr, &to);
            record(a, x->data, x->len, UB_DIR_OUT, x->due, fr, to);
        }
    }
    for (unsigned i = 0; i < a->nimm; i++) free(a->imm[i].data);
    a->nimm = a->nplan = 0;
    return result;
}

/* send every pending output due by `now` (all of them when `all`) */
static int flush_due(app *a, uint64_t now, bool all)
{
    enum { B = 64 };
    pend batch[B];
    ub_io_tx tx[B];
    const ub_io_addr *fr[B], *to[B];
    while (a->nheap && (all || a->heap[0].due <= now)) {
        unsigned k = 0;
        while (k < B && a->nheap && (all || a->heap[0].due <= now)) {
            batch[k] = heap_pop(a);
            memset(&tx[k], 0, sizeof tx[k]);
            tx[k].data = batch[k].data;
            tx[k].len = batch[k].len;
            fr[k] = to[k] = NULL;
            if (!flow_addrs(a, batch[k].flow, &fr[k], &to[k])) { free(batch[k].data); a->queue_full++; continue; }
            tx[k].to = to[k];
            tx[k].from = fr[k];
            k++;
        }
        if (!k) continue;
        if (ub_io_send(a->io, tx, k) < 0) {
            fprintf(stderr, "ubpeer: %s\n", ub_io_error(a->io));
            for (unsigned i = 0; i < k; i++) free(batch[i].data);
            return -1;
        }
        for (unsigned i = 0; i < k; i++) {
            if (!tx[i].err) record(a, tx[i].data, tx[i].len, UB_DIR_OUT, tx[i].ts_ns, fr[i], to[i]);
            free(batch[i].data);
        }
    }
    return 0;
}

/* ================================================================ statistics */
static void print_stats(app *a, FILE *f, const char *prefix)
{
    ub_peer_stats ps;
    ub_io_stats is;
    ub_peer_get_stats(a->peer, &ps);
    ub_io_get_stats(a->io, &is);
    fprintf(f, "%sreceived %llu packets: %llu answered or processed, %llu ignored (%llu malformed), %llu dropped by fault\n",
            prefix, (unsigned long long)a->received, (unsigned long long)(ps.packets - ps.ignored - ps.dropped),
            (unsigned long long)ps.ignored, (unsigned long long)ps.malformed, (unsigned long long)ps.dropped);
    fprintf(f, "%sRTP: %llu data (%llu in order, %llu duplicate, %llu out of order, %llu outside the window); "
               "sent %llu acks (%llu TPNAK, %llu TPSACK), %llu resent\n",
            prefix, (unsigned long long)ps.rtp_data, (unsigned long long)ps.rtp_in_order, (unsigned long long)ps.rtp_duplicate,
            (unsigned long long)ps.rtp_out_of_order, (unsigned long long)ps.rtp_invalid, (unsigned long long)ps.acks,
            (unsigned long long)ps.naks, (unsigned long long)ps.sacks, (unsigned long long)ps.retransmitted);
    fprintf(f, "%stransactions: %llu requests (%llu reads, %llu writes, %llu atomics, %llu sends), %llu response packets, "
               "%llu error statuses; management %llu/%llu, enumeration %llu/%llu (requests/responses)\n",
            prefix, (unsigned long long)ps.requests, (unsigned long long)ps.reads, (unsigned long long)ps.writes,
            (unsigned long long)ps.atomics, (unsigned long long)ps.sends, (unsigned long long)ps.responses,
            (unsigned long long)ps.errors_returned, (unsigned long long)ps.mgmt_requests, (unsigned long long)ps.mgmt_responses,
            (unsigned long long)ps.enum_requests, (unsigned long long)ps.enum_responses);
    bool any = false;
    for (unsigned k = 1; k < UB_PF__COUNT; k++)
        if (ps.faults[k]) {
            fprintf(f, "%s%s %s %llu", any ? ", " : "", any ? "" : prefix, ub_peer_fault_name(k), (unsigned long long)ps.faults[k]);
            any = true;
        }
    if (any) fprintf(f, " (faults fired)\n");
    fprintf(f, "%stables: %llu TP channels (%llu evicted), %llu memory pages (%llu evicted)%s%s\n", prefix,
            (unsigned long long)ps.channels, (unsigned long long)ps.channels_evicted, (unsigned long long)ps.pages,
            (unsigned long long)ps.pages_evicted, ps.build_errors ? "; response build errors: " : "",
            ps.build_errors ? ub_peer_last_error(a->peer) : "");
    fprintf(f, "%s", prefix);
    ub_io_stats_print(f, &is);
    if (a->w)
        fprintf(f, "%s-w %s: %llu packets written%s\n", prefix, a->wfile, (unsigned long long)a->recorded,
                a->rec_errors ? " (some could not be written)" : "");
    if (a->queue_full) fprintf(f, "%s%llu answers could not be queued\n", prefix, (unsigned long long)a->queue_full);
}

/* ================================================================ options */
static int parse_dur(const char *s, uint64_t *ns)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno || v < 0) return -1;
    double mul = 1e9;
    if (!strcmp(e, "ms")) mul = 1e6;
    else if (!strcmp(e, "us")) mul = 1e3;
    else if (!strcmp(e, "ns")) mul = 1;
    else if (*e && strcmp(e, "s")) return -1;
    if (v * mul > 1e18) return -1;
    *ns = (uint64_t)(v * mul);
    return 0;
}

static int parse_u(const char *s, uint64_t max, uint64_t *u)
{
    char *e;
    errno = 0;
    if (!*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &e, 0);
    if (*e || errno || v > max) return -1;
    *u = v;
    return 0;
}

static int parse_hex16(const char *s, uint8_t out[16])
{
    unsigned n = 0;
    int hi = -1;
    for (; *s; s++) {
        int c = *s, v;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        else if (c == ':' || c == '-') continue;
        else return -1;
        if (hi < 0) hi = v;
        else { if (n >= 16) return -1; out[n++] = (uint8_t)(hi << 4 | v); hi = -1; }
    }
    return n == 16 && hi < 0 ? 0 : -1;
}

static int die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ubpeer: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 2;
}

enum {
    O_UDP = 256, O_ALLOW_PHYS, O_RAW, O_TXRING, O_QBYPASS, O_PROMISC, O_BATCH, O_NONCRC, O_LOSS, O_CC, O_ACK_EVERY,
    O_OOO, O_MTU, O_TXPSN, O_NO_RTP_TAACK, O_ROL, O_SEGMENT, O_PAGES, O_ATOMIC_BE, O_GUID, O_PORTS, O_PPS, O_PORTS_UP,
    O_NO_EVENT_REPLY, O_FAULT, O_SEED, O_DURATION, O_READY, O_STATS, O_AUDIT, O_AFMT, O_AOUT, O_FAIL_ON, O_RTIMEOUT,
};

static int parse_args(app *a, int argc, char **argv)
{
    static const struct option lo[] = {
        { "udp", required_argument, 0, O_UDP }, { "interface", required_argument, 0, 'i' },
        { "allow-physical", no_argument, 0, O_ALLOW_PHYS }, { "raw", required_argument, 0, O_RAW },
        { "tx-ring", no_argument, 0, O_TXRING }, { "qdisc-bypass", no_argument, 0, O_QBYPASS },
        { "promisc", no_argument, 0, O_PROMISC }, { "batch", required_argument, 0, O_BATCH },
        { "noncrc", no_argument, 0, O_NONCRC }, { "loss", required_argument, 0, O_LOSS },
        { "cc", required_argument, 0, O_CC }, { "ack-every", required_argument, 0, O_ACK_EVERY },
        { "ooo-window", required_argument, 0, O_OOO }, { "mtu", required_argument, 0, O_MTU },
        { "tx-psn", required_argument, 0, O_TXPSN }, { "no-rtp-taack", no_argument, 0, O_NO_RTP_TAACK },
        { "rol", no_argument, 0, O_ROL }, { "segment", required_argument, 0, O_SEGMENT },
        { "pages", required_argument, 0, O_PAGES }, { "atomic-be", no_argument, 0, O_ATOMIC_BE },
        { "guid", required_argument, 0, O_GUID }, { "ports", required_argument, 0, O_PORTS },
        { "ports-per-slice", required_argument, 0, O_PPS }, { "ports-up", required_argument, 0, O_PORTS_UP },
        { "no-event-reply", no_argument, 0, O_NO_EVENT_REPLY }, { "fault", required_argument, 0, O_FAULT },
        { "seed", required_argument, 0, O_SEED }, { "count", required_argument, 0, 'c' },
        { "duration", required_argument, 0, O_DURATION }, { "ready-file", required_argument, 0, O_READY },
        { "stats", optional_argument, 0, O_STATS }, { "audit", no_argument, 0, O_AUDIT },
        { "audit-format", required_argument, 0, O_AFMT }, { "audit-output", required_argument, 0, O_AOUT },
        { "fail-on", required_argument, 0, O_FAIL_ON }, { "response-timeout", required_argument, 0, O_RTIMEOUT },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    int c;
    uint64_t u;
    char err[512];
    while ((c = getopt_long(argc, argv, "i:w:c:o:qh", lo, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (!strcmp(optarg, "help")) { ub_opts_help(stdout); exit(0); }
            if (ub_opts_set(&a->opts, optarg, err, sizeof err) < 0) return die("-o %s: %s (ubpeer -o help)", optarg, err);
            break;
        case O_UDP: a->udp = optarg; break;
        case 'i': a->ifname = optarg; break;
        case 'w': a->wfile = optarg; break;
        case 'q': a->quiet = true; break;
        case 'h': usage(stdout); exit(0);
        case O_ALLOW_PHYS: a->allow_physical = true; break;
        case O_RAW:
            if (!strcmp(optarg, "flit")) a->raw = UB_ENTRY_FLIT;
            else if (!strcmp(optarg, "pkt")) a->raw = UB_ENTRY_PKT;
            else return die("--raw flit|pkt, not '%s'", optarg);
            break;
        case O_TXRING: a->iocfg.txmode = UB_IO_TX_RING; break;
        case O_QBYPASS: a->iocfg.qdisc_bypass = true; break;
        case O_PROMISC: a->iocfg.promisc = true; break;
        case O_BATCH: if (parse_u(optarg, UB_IO_MAX_BATCH, &u) || !u) return die("--batch 1..%d", UB_IO_MAX_BATCH); a->iocfg.batch = (unsigned)u; break;
        case O_NONCRC: a->opts.crc_mode = false; break;
        case O_LOSS:
            if (!strcmp(optarg, "gbn")) a->pcfg.loss = UB_PEER_LOSS_GOBACKN;
            else if (!strcmp(optarg, "sack")) a->pcfg.loss = UB_PEER_LOSS_SACK;
            else return die("--loss gbn|sack");
            break;
        case O_CC:
            if (!strcmp(optarg, "none")) a->pcfg.cc = UB_PEER_CC_NONE;
            else if (!strcmp(optarg, "ldcp")) a->pcfg.cc = UB_PEER_CC_LDCP;
            else if (!strcmp(optarg, "caqm")) a->pcfg.cc = UB_PEER_CC_CAQM;
            else return die("--cc none|ldcp|caqm");
            break;
        case O_ACK_EVERY: if (parse_u(optarg, 65535, &u) || !u) return die("--ack-every 1..65535"); a->pcfg.ack_every = (uint16_t)u; break;
        case O_OOO: if (parse_u(optarg, 1024, &u) || u < 64) return die("--ooo-window 64..1024"); a->pcfg.ooo_window = (uint16_t)u; break;
        case O_MTU: if (parse_u(optarg, 8192, &u) || u < 256) return die("--mtu 256..8192"); a->pcfg.mtu = (uint32_t)u; break;
        case O_TXPSN: if (parse_u(optarg, 0xFFFFFF, &u)) return die("--tx-psn 0..16777215"); a->pcfg.tx_psn_fixed = true; a->pcfg.tx_psn = (uint32_t)u; break;
        case O_NO_RTP_TAACK: a->pcfg.taack_rtp = false; break;
        case O_ROL: a->pcfg.rol = true; break;
        case O_SEGMENT: {
            char *colon = strchr(optarg, ':');
            uint64_t base, size;
            if (!colon) return die("--segment BASE:SIZE");
            *colon = '\0';
            if (parse_u(optarg, UINT64_MAX, &base) || parse_u(colon + 1, UINT64_MAX, &size) || !size || base + size < base)
                return die("--segment BASE:SIZE (numbers, no wrap)");
            a->pcfg.seg_strict = true;
            a->pcfg.seg_base = base;
            a->pcfg.seg_size = size;
            break;
        }
        case O_PAGES: if (parse_u(optarg, 1u << 20, &u) || !u) return die("--pages 1..1048576"); a->pcfg.max_pages = (uint32_t)u; break;
        case O_ATOMIC_BE: a->pcfg.atomic_be = 1; break;
        case O_GUID: if (parse_hex16(optarg, a->pcfg.guid)) return die("--guid: 32 hex digits"); a->pcfg.guid_set = true; break;
        case O_PORTS: if (parse_u(optarg, 1024, &u)) return die("--ports 0..1024"); a->pcfg.nports = (uint16_t)u; break;
        case O_PPS: if (parse_u(optarg, 1024, &u) || !u) return die("--ports-per-slice 1..1024"); a->pcfg.ports_per_slice = (uint16_t)u; break;
        case O_PORTS_UP: if (parse_u(optarg, 0xFFFFFFFFu, &u)) return die("--ports-up MASK"); a->pcfg.ports_up = (uint32_t)u; break;
        case O_NO_EVENT_REPLY: a->pcfg.no_event_reply = true; break;
        case O_FAULT:
            if (a->nfaults >= 16) return die("at most 16 --fault");
            if (ub_peer_fault_parse(optarg, &a->faults[a->nfaults], &a->filters[a->nfaults], err, sizeof err) < 0)
                return die("--fault %s: %s", optarg, err);
            a->nfaults++;
            break;
        case O_SEED: if (parse_u(optarg, UINT64_MAX, &u)) return die("--seed N"); a->pcfg.seed = u; break;
        case 'c': if (parse_u(optarg, UINT64_MAX, &u) || !u) return die("--count N (N > 0)"); a->count = u; break;
        case O_DURATION: if (parse_dur(optarg, &a->duration_ns) || !a->duration_ns) return die("--duration T (e.g. 10, 1.5, 200ms)"); break;
        case O_READY: a->ready_file = optarg; break;
        case O_STATS:
            a->stats_ns = 0;
            if (optarg && (parse_dur(optarg, &a->stats_ns) || !a->stats_ns)) return die("--stats[=N seconds]");
            if (!optarg) a->stats_ns = UINT64_MAX; /* at the end only */
            break;
        case O_AUDIT: a->audit = true; break;
        case O_AFMT: if (ub_report_fmt_parse(optarg, &a->afmt) < 0) return die("--audit-format text|json|sarif|junit"); a->audit = true; break;
        case O_AOUT: a->aout_path = optarg; a->audit = true; break;
        case O_FAIL_ON: if (ub_fail_on_parse(optarg, &a->fail_on) < 0) return die("--fail-on error|warning|never"); break;
        case O_RTIMEOUT:
            if (parse_u(optarg, UINT64_MAX / 1000000u, &u)) return die("--response-timeout MS");
            a->response_timeout_ns = u * 1000000u;
            break;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) return die("unexpected argument '%s' (ubpeer --help)", argv[optind]);
    if (!!a->udp == !!a->ifname) return die("name exactly one endpoint: --udp [ADDR:]PORT or -i IFACE (ubpeer --help)");
    if (a->raw && !a->ifname) return die("--raw needs -i IFACE");
    return 0;
}

/* ================================================================ main */
int main(int argc, char **argv)
{
    static app A;
    app *a = &A;
    ub_io_cfg_default(&a->iocfg);
    ub_opts_default(&a->opts);
    ub_peer_cfg_default(&a->pcfg);
    a->afmt = UB_REPORT_TEXT;
    a->fail_on = UB_SEV_ERROR;
    a->response_timeout_ns = UINT64_MAX;
    int rc = parse_args(a, argc, argv);
    if (rc) return rc;
    char err[512];
    /* ---- the endpoint: only the one named */
    if (a->ifname) {
        char kind[96];
        int ph = ub_io_if_is_physical(a->ifname, kind, sizeof kind);
        if (ph < 0) return die("no interface '%s'", a->ifname);
        if (ph == 1 && !a->allow_physical)
            return die("'%s' is a %s interface: add --allow-physical to answer on it", a->ifname, kind);
        if (a->raw) { a->iocfg.raw = true; a->iocfg.raw_entry = (uint8_t)a->raw; }
        a->io = ub_io_open_if(&a->iocfg, a->ifname, err, sizeof err);
        if (a->io && ub_io_get_framing(a->io) == UB_IO_FRAME_ETH) {
            static const uint16_t port = UB_UDP_PORT;
            ub_io_set_filter(a->io, ub_io_filter_uboe, (void *)&port);
        }
    } else {
        a->io = ub_io_open_udp(&a->iocfg, NULL, a->udp, err, sizeof err);
    }
    if (!a->io) return die("%s", err);
    a->pcfg.opts = &a->opts;
    for (unsigned i = 0; i < a->nfaults; i++) {
        unsigned k = a->faults[i].kind;
        if (k == UB_PF_CORRUPT_BCRC && ub_io_entry(a->io) != UB_ENTRY_FLIT)
            return die("--fault corrupt-bcrc: only flit-framed records carry a BCRC (-i IFACE --raw flit)");
        if (k == UB_PF_CORRUPT_ICRC && ub_io_get_kind(a->io) == UB_IO_UDP)
            return die("--fault corrupt-icrc: UDP payloads carry no ICRC (R-44); use -i IFACE");
    }
    a->peer = ub_peer_new(&a->pcfg, on_out, a, err, sizeof err);
    if (!a->peer) return die("%s", err);
    for (unsigned i = 0; i < a->nfaults; i++)
        if (ub_peer_add_fault(a->peer, &a->faults[i], err, sizeof err) < 0) return die("--fault: %s", err);
    if (a->wfile) {
        a->w = ub_capw_open(a->wfile, true, ub_io_linktype(a->io, &a->opts), err, sizeof err);
        if (!a->w) return die("-w %s: %s", a->wfile, err);
    }
    FILE *aout = stdout;
    if (a->audit) {
        ub_audit_cfg acfg;
        ub_audit_cfg_default(&acfg);
        acfg.opts = &a->opts;
        acfg.findings = true;
        acfg.jobs = 1;
        acfg.examples = a->afmt == UB_REPORT_TEXT ? 5u : 100u;
        if (a->response_timeout_ns != UINT64_MAX) acfg.state.response_timeout_ns = a->response_timeout_ns;
        acfg.state.loss_timeout_ns = 0; /* live: the host's clock, and the peer has no retransmission timer */
        a->session = ub_audit_new(&acfg, err, sizeof err);
        if (!a->session) return die("--audit: %s", err);
        a->aview = malloc(sizeof *a->aview);
        if (!a->aview) return die("out of memory");
        ub_view_init(a->aview);
        if (a->aout_path && strcmp(a->aout_path, "-")) {
            aout = fopen(a->aout_path, "w");
            if (!aout) return die("--audit-output %s: %s", a->aout_path, strerror(errno));
        }
    }
    a->flows = calloc(MAX_FLOWS, sizeof *a->flows);
    a->view = malloc(sizeof *a->view);
    if (!a->flows || !a->view) return die("out of memory");
    ub_view_init(a->view);
    /* ---- capabilities are no longer needed: the sockets and the output file are open */
    if (ub_io_drop_caps(UB_IO_CAPS_ALL, err, sizeof err) < 0 && a->ifname) return die("dropping capabilities: %s", err);
    ub_io_clock_sync(&a->clk);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* ---- ready */
    char where[128];
    if (ub_io_get_kind(a->io) == UB_IO_UDP) {
        ub_io_addr la;
        ub_io_local_addr(a->io, &la);
        ub_io_addr_str(&la, where, sizeof where);
        printf("ubpeer: listening on udp %s\n", where);
        if (a->ready_file) {
            FILE *f = fopen(a->ready_file, "w");
            if (!f) return die("--ready-file %s: %s", a->ready_file, strerror(errno));
            fprintf(f, "%u\n", ub_io_addr_port(&la));
            fclose(f);
        }
    } else {
        static const char *const fr[] = { "?", "UDP", "UBoE Ethernet frames", "ubl CFG pseudo-header frames", "raw records" };
        printf("ubpeer: answering on %s (%s, %s)\n", a->ifname, fr[ub_io_get_framing(a->io) % 5],
               ub_io_get_txmode(a->io) == UB_IO_TX_RING ? "PACKET_TX_RING" : "sendmmsg");
        if (a->ready_file) {
            FILE *f = fopen(a->ready_file, "w");
            if (!f) return die("--ready-file %s: %s", a->ready_file, strerror(errno));
            fprintf(f, "%s\n", a->ifname);
            fclose(f);
        }
    }
    fflush(stdout);
    /* ---- the loop */
    uint64_t start = ub_io_now_mono(), end = a->duration_ns ? start + a->duration_ns : 0;
    uint64_t next_stats = a->stats_ns && a->stats_ns != UINT64_MAX ? start + a->stats_ns : 0;
    ub_io_rx rx[UB_IO_MAX_BATCH];
    unsigned batch = a->iocfg.batch ? a->iocfg.batch : UB_IO_DEFAULT_BATCH;
    bool receiving = true, io_error = false;
    while (receiving && !g_stop) {
        uint64_t now = ub_io_now_mono();
        if (end && now >= end) break;
        /* wait at most until the next due output, held packet, statistics line or the end */
        uint64_t wake = UINT64_MAX;
        if (a->nheap) wake = a->heap[0].due;
        uint64_t t = ub_peer_next_timer(a->peer);
        if (t && t < wake) wake = t;
        if (next_stats && next_stats < wake) wake = next_stats;
        if (end && end < wake) wake = end;
        int timeout = wake == UINT64_MAX ? 1000 : wake <= now ? 0 : (int)((wake - now + 999999) / 1000000);
        if (timeout > 1000) timeout = 1000;
        int n = ub_io_recv(a->io, rx, batch, timeout);
        if (n < 0) { fprintf(stderr, "ubpeer: %s\n", ub_io_error(a->io)); io_error = true; break; }
        if (n > 0 && process_batch(a, rx, n) < 0) { io_error = true; break; }
        if (a->count && a->received >= a->count) receiving = false;
        now = ub_io_now_mono();
        ub_peer_tick(a->peer, now);
        if (flush_due(a, now, false) < 0) { io_error = true; break; }
        if (next_stats && now >= next_stats) {
            print_stats(a, stderr, "ubpeer: ");
            next_stats = now + a->stats_ns;
        }
    }
    /* ---- stopping: answer what was already received, then send what is still pending on time */
    if (g_stop && !io_error) {
        int n;
        while ((n = ub_io_recv(a->io, rx, batch, 0)) > 0) {
            if (process_batch(a, rx, n) < 0) break;
            if (flush_due(a, ub_io_now_mono(), false) < 0) break;
        }
    }
    ub_peer_flush(a->peer);
    while (a->nheap && !io_error) { /* delayed answers go out at their time */
        uint64_t now = ub_io_now_mono();
        if (a->heap[0].due > now) {
            uint64_t d = a->heap[0].due - now;
            struct timespec ts = { (time_t)(d / 1000000000ull), (long)(d % 1000000000ull) };
            nanosleep(&ts, NULL);
            now = ub_io_now_mono();
        }
        if (flush_due(a, now, false) < 0) break;
    }
    ub_io_flush(a->io, 1000);
    if (!a->quiet || a->stats_ns) print_stats(a, stderr, "ubpeer: ");
    int exit_code = io_error ? 2 : 0;
    if (a->w && ub_capw_close(a->w) < 0) { fprintf(stderr, "ubpeer: -w %s: write error\n", a->wfile); exit_code = 2; }
    if (a->session) {
        ub_audit_set_records(a->session, a->aframes);
        if (ub_audit_finish(a->session) != 0) a->aoom = true;
        if (a->aoom) { fprintf(stderr, "ubpeer: --audit: out of memory\n"); exit_code = 2; }
        ub_state_stats st;
        ub_audit_state_stats(a->session, &st);
        const ub_collect *all = ub_audit_findings(a->session);
        char label[160];
        snprintf(label, sizeof label, "ubpeer %s", a->udp ? a->udp : a->ifname);
        const char *inputs[1] = { a->wfile ? a->wfile : label };
        ub_report_info ri;
        memset(&ri, 0, sizeof ri);
        ri.tool = "ubpeer";
        ri.inputs = inputs;
        ri.ninputs = 1;
        ri.records = ri.packets = a->aframes;
        ri.fail_on = a->fail_on;
        ri.jobs = 1;
        ri.state = &st;
        ri.status = exit_code;
        int ast = exit_code ? exit_code : ub_result_exit(ub_report_result(all, &ri));
        fflush(stdout);
        if (ub_report_write(aout, a->afmt, all, &ri) != 0) ast = 2;
        if (aout != stdout && fclose(aout) != 0) ast = 2;
        exit_code = ast;
        ub_audit_free(a->session);
        free(a->aview);
    }
    while (a->nheap) { pend x = heap_pop(a); free(x.data); }
    free(a->heap);
    free(a->imm);
    free(a->plan);
    ub_peer_free(a->peer);
    for (unsigned i = 0; i < a->nfaults; i++) ub_filter_free(a->filters[i]);
    ub_io_close(a->io);
    free(a->flows);
    free(a->view);
    return exit_code;
}
