/* ubreplay — replay, rewrite and inject UB traffic (captures or text scenarios) with live conformance
 * checking of the answers. A thin front end: capture replay (replay.h), rewriting (rewrite.h), the
 * scenario runner and text scenarios (runner.h), packet I/O (io.h) and the audit session with its
 * report writers (audit.h) all live in libubparse. `ubreplay --help` is the manual. */
#include "ubparse/audit.h"
#include "ubparse/io.h"
#include "ubparse/replay.h"
#include "ubparse/rewrite.h"
#include "ubparse/runner.h"
#include "ubparse/sched.h"
#include "ubparse/ublua.h"

#include <errno.h>
#include <getopt.h>
#include <sys/prctl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXV 256

static const char HELP[] =
"NAME\n"
"    ubreplay - replay, rewrite and inject UnifiedBus traffic, and judge the answers\n"
"\n"
"SYNOPSIS\n"
"    ubreplay OUTPUT [timing] [selection] [rewrite] [checking] FILE...\n"
"    ubreplay OUTPUT [checking] --scenario SCENARIO.ubs\n"
"    ubreplay -w OUT.pcapng [...] FILE...|--scenario S    (dry run: nothing is sent)\n"
"\n"
"DESCRIPTION\n"
"    Sends the packets of captures (any capture ubdump reads: pcap/pcapng, gzip-compressed or not,\n"
"    every UB entry point, several files, '-' for standard input; streamed, not loaded) or of a scenario\n"
"    written in the builder's text language (docs/replay.md), at the capture's timing or a chosen rate,\n"
"    optionally rewritten through the field schema. With --check the answers are received and, with the\n"
"    packets sent, put into one time-ordered stream that the state engine of `ubdump --audit` judges;\n"
"    scenario @expect lines are judged too. Reports: text, JSON, SARIF, JUnit, written by the same code\n"
"    as ubdump's.\n"
"\n"
"OUTPUT (nothing is ever sent unless one is named)\n"
"    --udp HOST[:PORT]   UB over UDP: the UDP payload of UBoE (TPH ...) to HOST:PORT (default 4792)\n"
"                        through an ordinary socket (no privileges; sendmmsg batches)\n"
"    --bind [ADDR:]PORT  local address of the UDP socket (default: an ephemeral port)\n"
"    -i IFACE            raw frames on IFACE (AF_PACKET, needs CAP_NET_RAW, dropped once the socket is\n"
"                        open): UBoE frames (App. E) on Ethernet, the 1-byte CFG pseudo-header form on a\n"
"                        Linux ubl interface (ARPHRD_UB)\n"
"    --raw flit|pkt      with -i: record bytes unchanged, as flit-framed (LINKTYPE_USER0) or\n"
"                        packet (USER1) records, for FPGA/test benches\n"
"    --allow-physical    needed to send on a physical interface (virtual ones: veth, dummy, tap ...)\n"
"    -w FILE             dry run: write what would be sent (pcapng) with the scheduled timestamps\n"
"    --framing F         dry-run framing: eth, tph, cfgph, flit, pkt (default: the first input's;\n"
"                        records of other inputs are converted to it)\n"
"    --rx-iface IFACE    receive the answers on IFACE (same framing; receive only) instead of the\n"
"                        output interface, e.g. a mirror port or the far side of a device\n"
"    -I IFACE2, --intf2 IFACE2   a second output interface (tcpreplay -I): the packets --split-filter\n"
"                        FILTER selects (display filter on the packet as captured), or with --split-dir\n"
"                        those of records received (pcapng direction in), go out on IFACE2, the others\n"
"                        on -i, in one schedule: both sides of a device under test, as tcpprep splits\n"
"                        a capture. A dry run (-w) writes them on a second interface, \"port1\". Not with\n"
"                        --check (nothing is received)\n"
"    --tx-ring           -i: PACKET_TX_RING instead of sendmmsg; --qdisc-bypass: skip the qdisc\n"
"    --batch N           packets per system call (default 64, at most 1024)\n"
"\n"
"TIMING (deadlines on CLOCK_MONOTONIC from the start of the run, never from the previous packet)\n"
"    (default)           the capture's timing; --multiplier X plays it X times faster (0.5 = slower)\n"
"    --pps R             R packets per second (fractions and k/M/G allowed: 1.5k, 2.5e5)\n"
"    --mbps R            R Mbit/s of the bytes handed to the output (layer 2 without FCS, or the UDP\n"
"                        payload); --layer1 adds 24 bytes per packet (preamble, SFD, FCS, gap)\n"
"    --topspeed          as fast as possible\n"
"    --loop N            N passes over the inputs (0: until --limit/--duration/a cap); schedules continue\n"
"                        across files and loops; --loopdelay T waits T between loops\n"
"    --maxsleep T        capture timing: a gap between two packets longer than T (after --multiplier) is\n"
"                        shortened to T and the rest of the schedule moved back (tcpreplay --maxsleep;\n"
"                        a bare number is milliseconds, as there; 1.5s, 250us too)\n"
"    --limit N           send at most N packets; --duration T: stop when the schedule passes T\n"
"    --late burst|slip   behind schedule: burst (default) sends late packets at once to catch up;\n"
"                        slip moves the rest of the schedule back (--slip-threshold T, default 0); counted\n"
"    --stats N           a statistics line every N seconds (stderr)\n"
"    --json              the end-of-run report as JSON on standard output\n"
"    --spin T            spin the last T before each deadline (default 50us; the timer slack of\n"
"                        the process is set to 1 ns)\n"
"\n"
"SELECTION\n"
"    -Y FILTER           only packets matching the display filter (ubdump's language)\n"
"    --packets RANGES    record numbers of one pass over the inputs: 1-100,250,300-\n"
"    --dir in|out        only records of that pcapng direction\n"
"    --requests          only transaction, management and enumeration requests (no transport acks, no\n"
"                        responses: the recorded ones answered another device)\n"
"    --preload[=SIZE]    keep the records in memory (at most SIZE bytes, default 1G; k/M/G)\n"
"    -o NAME=VALUE       decoder option (ubdump -o help); --noncrc: Non-CRC mode links\n"
"\n"
"REWRITE (through the field schema; lengths and CRCs recomputed only on packets that changed)\n"
"    --set ub.H.F=V      set a field of any header, every occurrence (value: number, name, IP, hex)\n"
"    --map-cna OLD=NEW[,...], --map-eid, --map-ip, --map-tpn, --map-upi   value maps\n"
"    --map-file FILE     lines \"KIND OLD NEW\" (KIND: cna eid ip tpn upi cna-ip)\n"
"    --psn-base N|random, --tassn-base N|random   renumber per flow (new initial value, same deltas;\n"
"                        acks and responses follow their flow)\n"
"    --unique-per-loop   PSNs and TASSNs continue across loops instead of repeating\n"
"    --fix-all           recompute lengths and CRCs of every packet\n"
"    --keep-crc          send modified packets with their old (now wrong) CRCs\n"
"    --break-crc[=icrc|bcrc]   send every packet with a wrong ICRC and/or BCRC\n"
"    --on-bad pass|skip|abort  a packet that cannot be parsed (default pass: sent unchanged)\n"
"    --fuzz FIELD[:P]    random values in FIELD (with probability P); --seed S makes runs repeatable\n"
"    --cna-ip CNA=IP[,...]  convert NTH-based RTP/UTP packets (CFG 7) to UBoE/UDP with these addresses\n"
"    --dmac MAC, --smac MAC  Ethernet addresses of converted frames; --npi N: UBL header NPI\n"
"\n"
"CHECKING\n"
"    --check             receive the answers and audit both directions (implied by --scenario, --save)\n"
"    --save FILE         the combined run as pcapng (both directions, EPB direction flags)\n"
"    --report text|json|sarif|junit   report format (default text); --report-output FILE\n"
"    --fail-on error|warning|never    severity that fails the run (default error)\n"
"    --no-audit          judge only the scenario's expectations, not the protocol rules\n"
"    --auto-ack, --no-auto-ack   answer the peer's RTP data with transport acks, as the requester's\n"
"                        transport layer must (default: on with --requests and for scenarios)\n"
"    --resend            resend RTP data the device NAKs, from the TPNAK's PSN (go-back-N, §6.4.2.2): a\n"
"                        request lost inside the device is recovered instead of failing what follows\n"
"                        (default: off, the replay stays open-loop)\n"
"    --drain T           keep receiving T after the last packet (default: the response timeout,\n"
"                        100ms); requests still unanswered then are errors (UB-TA-001, §10.6 e)\n"
"    --response-timeout MS, --expect-taack, --gaps-are-notes, --max-transactions N  (as ubdump)\n"
"    -z ub,cfg|ub,tp|ub,srt|ub,latency|ub,mgmt   statistics of the combined run, as ubdump -z (e.g. the\n"
"                        device's response times per TAOpcode with -z ub,latency); -z help lists them\n"
"\n"
"SCENARIOS\n"
"    --scenario FILE     text scenario (@send, @expect FILTER within=T, @wait, @repeat, @set, @check);\n"
"                        FILE.lua: a Lua scenario, scenario() with send/expect/sleep/check (docs/lua.md)\n"
"    --var NAME=VALUE    set a scenario variable (Lua: ub.args.NAME); --keep-going: judge every expectation; -v: log\n"
"    --within T, --tol T, --tolpct P   default expectation window and tolerance (10ms, 1ms, 0)\n"
"\n"
"SAFETY\n"
"    Live sends stop after --max-packets N (default 1000000) or --max-duration T (default 60s); 0\n"
"    lifts a cap. Capabilities are dropped as soon as the sockets are open.\n"
"\n"
"EXIT STATUS\n"
"    0 sent (and, when checking, conformant); 1 findings at or above --fail-on, or unmet expectations;\n"
"    2 usage, input or I/O error; 3 incomplete (a safety cap stopped the run, or audit state was evicted)\n"
"\n"
"EXAMPLES\n"
"    ubreplay --udp 192.0.2.7 --pps 100k --loop 10 trace.pcapng\n"
"    ubreplay -i veth0 --check --dir out --save run.pcapng --report sarif captures/audit_txn_clean.pcapng\n"
"    ubreplay --udp 127.0.0.1:4792 --scenario write_read.ubs --report junit --report-output r.xml\n"
"    ubreplay -w dry.pcapng --map-cna 0x010203=0x111111 --topspeed trace.pcapng\n"
"    ubreplay -i veth0 -I veth1 --split-filter 'ip.src == 10.0.0.2' --topspeed trace.pcapng\n";

enum {
    O_UDP = 256, O_BIND, O_RAW, O_ALLOWPHYS, O_FRAMING, O_TXRING, O_QDISC, O_BATCH, O_MULT, O_PPS, O_MBPS, O_L1,
    O_TOP, O_LOOP, O_LOOPDELAY, O_LIMIT, O_DURATION, O_LATE, O_SLIPT, O_STATS, O_JSON, O_SPIN, O_PACKETS, O_DIR,
    O_PRELOAD, O_NONCRC, O_SET, O_MAPCNA, O_MAPEID, O_MAPIP, O_MAPTPN, O_MAPUPI, O_MAPFILE, O_PSNB, O_TASSNB,
    O_UNIQUE, O_FIXALL, O_KEEPCRC, O_BREAKCRC, O_ONBAD, O_FUZZ, O_SEED, O_CNAIP, O_DMAC, O_SMAC, O_NPI, O_CHECK,
    O_SAVE, O_REPORT, O_REPORTOUT, O_FAILON, O_NOAUDIT, O_DRAIN, O_RTO, O_TAACK, O_GAPS, O_MAXTX, O_SCENARIO,
    O_VAR, O_KEEPGOING, O_WITHIN, O_TOL, O_TOLPCT, O_MAXPK, O_MAXDUR, O_HELP, O_VERSION, O_REQUESTS, O_AUTOACK,
    O_NOAUTOACK, O_RXIFACE, O_RESEND, O_SPLITF, O_SPLITDIR, O_MAXSLEEP,
};

static const struct option LOPTS[] = {
    { "udp", required_argument, 0, O_UDP }, { "bind", required_argument, 0, O_BIND },
    { "raw", required_argument, 0, O_RAW }, { "allow-physical", no_argument, 0, O_ALLOWPHYS },
    { "framing", required_argument, 0, O_FRAMING }, { "tx-ring", no_argument, 0, O_TXRING },
    { "qdisc-bypass", no_argument, 0, O_QDISC }, { "batch", required_argument, 0, O_BATCH },
    { "multiplier", required_argument, 0, O_MULT }, { "pps", required_argument, 0, O_PPS },
    { "mbps", required_argument, 0, O_MBPS }, { "layer1", no_argument, 0, O_L1 },
    { "topspeed", no_argument, 0, O_TOP }, { "loop", required_argument, 0, O_LOOP },
    { "loopdelay", required_argument, 0, O_LOOPDELAY }, { "maxsleep", required_argument, 0, O_MAXSLEEP }, { "limit", required_argument, 0, O_LIMIT },
    { "duration", required_argument, 0, O_DURATION }, { "late", required_argument, 0, O_LATE },
    { "slip-threshold", required_argument, 0, O_SLIPT }, { "stats", required_argument, 0, O_STATS },
    { "json", no_argument, 0, O_JSON }, { "spin", required_argument, 0, O_SPIN },
    { "packets", required_argument, 0, O_PACKETS }, { "requests", no_argument, 0, O_REQUESTS }, { "dir", required_argument, 0, O_DIR },
    { "preload", optional_argument, 0, O_PRELOAD }, { "noncrc", no_argument, 0, O_NONCRC },
    { "set", required_argument, 0, O_SET }, { "map-cna", required_argument, 0, O_MAPCNA },
    { "map-eid", required_argument, 0, O_MAPEID }, { "map-ip", required_argument, 0, O_MAPIP },
    { "map-tpn", required_argument, 0, O_MAPTPN }, { "map-upi", required_argument, 0, O_MAPUPI },
    { "map-file", required_argument, 0, O_MAPFILE }, { "psn-base", required_argument, 0, O_PSNB },
    { "tassn-base", required_argument, 0, O_TASSNB }, { "unique-per-loop", no_argument, 0, O_UNIQUE },
    { "fix-all", no_argument, 0, O_FIXALL }, { "keep-crc", no_argument, 0, O_KEEPCRC },
    { "break-crc", optional_argument, 0, O_BREAKCRC }, { "on-bad", required_argument, 0, O_ONBAD },
    { "fuzz", required_argument, 0, O_FUZZ }, { "seed", required_argument, 0, O_SEED },
    { "cna-ip", required_argument, 0, O_CNAIP }, { "dmac", required_argument, 0, O_DMAC },
    { "smac", required_argument, 0, O_SMAC }, { "npi", required_argument, 0, O_NPI },
    { "check", no_argument, 0, O_CHECK }, { "auto-ack", no_argument, 0, O_AUTOACK },
    { "no-auto-ack", no_argument, 0, O_NOAUTOACK }, { "rx-iface", required_argument, 0, O_RXIFACE },
    { "resend", no_argument, 0, O_RESEND }, { "intf2", required_argument, 0, 'I' },
    { "split-filter", required_argument, 0, O_SPLITF }, { "split-dir", no_argument, 0, O_SPLITDIR }, { "save", required_argument, 0, O_SAVE },
    { "report", required_argument, 0, O_REPORT }, { "report-output", required_argument, 0, O_REPORTOUT },
    { "fail-on", required_argument, 0, O_FAILON }, { "no-audit", no_argument, 0, O_NOAUDIT },
    { "drain", required_argument, 0, O_DRAIN }, { "response-timeout", required_argument, 0, O_RTO },
    { "expect-taack", no_argument, 0, O_TAACK }, { "gaps-are-notes", no_argument, 0, O_GAPS },
    { "max-transactions", required_argument, 0, O_MAXTX }, { "scenario", required_argument, 0, O_SCENARIO },
    { "var", required_argument, 0, O_VAR }, { "keep-going", no_argument, 0, O_KEEPGOING },
    { "within", required_argument, 0, O_WITHIN }, { "tol", required_argument, 0, O_TOL },
    { "tolpct", required_argument, 0, O_TOLPCT }, { "max-packets", required_argument, 0, O_MAXPK },
    { "max-duration", required_argument, 0, O_MAXDUR }, { "help", no_argument, 0, O_HELP },
    { "version", no_argument, 0, O_VERSION }, { 0, 0, 0, 0 },
};

typedef struct kv { int opt; const char *arg; } kv;

typedef struct app {
    ub_opts o;
    const char *iface, *udp, *bind, *dry, *framing, *save, *report_out, *scenario, *rx_iface;
    const char *iface2;        /* -I: the second output */
    int raw;                   /* 0 off, UB_ENTRY_FLIT / UB_ENTRY_PKT */
    bool allow_phys, txring, qdisc, l1, json, check, no_audit, keep_going, verbose;
    int auto_ack;              /* -1 default: on with --requests or --scenario when checking */
    bool resend;
    unsigned batch;
    ub_replay_cfg rc;
    ub_rw_cfg wc;
    kv edits[MAXV];            /* rewrite options, applied in order once the rewriter exists */
    unsigned nedits;
    const char *vars[MAXV];
    unsigned nvars;
    int report, fail_on;
    unsigned zstats;           /* -z statistics of the combined run */
    uint64_t drain_ns, spin_ns, max_packets, max_dur, within, tol;
    double tolpct;
    bool has_within, has_tol, has_tolpct, has_spin;
    ub_state_cfg st;
    bool rewrite_needed;
} app;

static int usage_err(const char *fmt, const char *a)
{
    fprintf(stderr, "ubreplay: ");
    fprintf(stderr, fmt, a ? a : "");
    fprintf(stderr, "\n(ubreplay --help for the manual)\n");
    return 2;
}

static int num(const char *s, uint64_t *v)
{
    char *e;
    errno = 0;
    unsigned long long x = strtoull(s, &e, 0);
    if (!*s || *e || errno || *s == '-') return -1;
    *v = x;
    return 0;
}

static int size_arg(const char *s, uint64_t *v)
{
    char *e;
    errno = 0;
    double x = strtod(s, &e);
    if (e == s || errno || x <= 0) return -1;
    double m = 1;
    if (*e == 'k' || *e == 'K') { m = 1024; e++; }
    else if (*e == 'M') { m = 1024.0 * 1024; e++; }
    else if (*e == 'G') { m = 1024.0 * 1024 * 1024; e++; }
    if (*e) return -1;
    *v = (uint64_t)(x * m);
    return 0;
}

static int mac_arg(const char *s, uint8_t *mac)
{
    unsigned b[6];
    char tail;
    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6) return -1;
    for (int i = 0; i < 6; i++) {
        if (b[i] > 255) return -1;
        mac[i] = (uint8_t)b[i];
    }
    return 0;
}

static int entry_of(const char *s)
{
    static const struct { const char *n; ub_entry e; } t[] = {
        { "eth", UB_ENTRY_ETH }, { "tph", UB_ENTRY_TPH }, { "udp", UB_ENTRY_TPH }, { "cfgph", UB_ENTRY_CFGPH },
        { "flit", UB_ENTRY_FLIT }, { "pkt", UB_ENTRY_PKT },
    };
    for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(s, t[i].n) == 0) return t[i].e;
    return -1;
}

static int parse(app *a, int argc, char **argv)
{
    char err[256];
    int c;
    while ((c = getopt_long(argc, argv, "i:I:w:Y:o:z:vh", LOPTS, NULL)) != -1) {
        uint64_t v;
        switch (c) {
        case 'i': a->iface = optarg; break;
        case 'I': a->iface2 = optarg; break;
        case O_SPLITF: a->rc.split_filter = optarg; break;
        case O_SPLITDIR: a->rc.split_dir = true; break;
        case O_UDP: a->udp = optarg; break;
        case O_BIND: a->bind = optarg; break;
        case O_RAW:
            if (strcmp(optarg, "flit") == 0) a->raw = UB_ENTRY_FLIT;
            else if (strcmp(optarg, "pkt") == 0) a->raw = UB_ENTRY_PKT;
            else return usage_err("--raw flit|pkt, not %s", optarg);
            break;
        case O_ALLOWPHYS: a->allow_phys = true; break;
        case 'w': a->dry = optarg; break;
        case O_FRAMING:
            if (entry_of(optarg) < 0) return usage_err("--framing eth|tph|cfgph|flit|pkt, not %s", optarg);
            a->framing = optarg;
            break;
        case O_TXRING: a->txring = true; break;
        case O_QDISC: a->qdisc = true; break;
        case O_BATCH:
            if (num(optarg, &v) < 0 || v == 0 || v > UB_IO_MAX_BATCH) return usage_err("--batch 1..1024: %s", optarg);
            a->batch = (unsigned)v;
            break;
        case O_MULT:
        case O_PPS:
        case O_MBPS: {
            ub_ratio r;
            if (ub_ratio_parse(optarg, &r, err, sizeof err) < 0) return usage_err("%s", err);
            if (c == O_MBPS) { /* bits per second, exactly: R * 1e6 */
                if (r.den % 1000000 == 0) r.den /= 1000000;
                else if (r.num > UINT64_MAX / 1000000) return usage_err("--mbps out of range: %s", optarg);
                else r.num *= 1000000;
            }
            a->rc.sched.rate = r;
            a->rc.sched.mode = c == O_MULT ? UB_SCHED_ORIGINAL : c == O_PPS ? UB_SCHED_PPS : UB_SCHED_BPS;
            break;
        }
        case O_L1: a->l1 = true; break;
        case O_TOP: a->rc.sched.mode = UB_SCHED_TOPSPEED; break;
        case O_LOOP:
            if (num(optarg, &a->rc.loops) < 0) return usage_err("--loop N: %s", optarg);
            break;
        case O_MAXSLEEP: { /* tcpreplay: milliseconds; a duration with a unit too */
            const char *e = optarg + strspn(optarg, "0123456789");
            char ms[64];
            if (*e == '\0' && e != optarg && snprintf(ms, sizeof ms, "%sms", optarg) < (int)sizeof ms) optarg = ms;
            if (ub_parse_duration(optarg, &a->rc.sched.maxgap_ns) < 0 || !a->rc.sched.maxgap_ns)
                return usage_err("--maxsleep T: a duration above 0 (a bare number is milliseconds): %s", optarg);
            break;
        }
        case O_LOOPDELAY:
            if (ub_parse_duration(optarg, &a->rc.sched.loopdelay_ns) < 0) return usage_err("--loopdelay T: %s", optarg);
            break;
        case O_LIMIT:
            if (num(optarg, &a->rc.limit) < 0 || !a->rc.limit) return usage_err("--limit N (N >= 1): %s", optarg);
            break;
        case O_DURATION:
            if (ub_parse_duration(optarg, &a->rc.duration_ns) < 0 || !a->rc.duration_ns) return usage_err("--duration T: %s", optarg);
            break;
        case O_LATE:
            if (strcmp(optarg, "burst") == 0) a->rc.sched.late = UB_LATE_BURST;
            else if (strcmp(optarg, "slip") == 0) a->rc.sched.late = UB_LATE_SLIP;
            else return usage_err("--late burst|slip, not %s", optarg);
            break;
        case O_SLIPT:
            if (ub_parse_duration(optarg, &a->rc.sched.slip_threshold_ns) < 0) return usage_err("--slip-threshold T: %s", optarg);
            break;
        case O_STATS:
            if (ub_parse_duration(optarg, &a->rc.stats_ns) < 0 || !a->rc.stats_ns) return usage_err("--stats N (seconds): %s", optarg);
            break;
        case O_JSON: a->json = true; break;
        case O_SPIN:
            if (ub_parse_duration(optarg, &a->spin_ns) < 0) return usage_err("--spin T: %s", optarg);
            a->has_spin = true;
            break;
        case 'Y': a->rc.filter = optarg; break;
        case O_PACKETS: a->rc.ranges = optarg; break;
        case O_REQUESTS: a->rc.requests = true; break;
        case O_DIR:
            if (strcmp(optarg, "in") == 0) a->rc.dir = UB_DIR_IN;
            else if (strcmp(optarg, "out") == 0) a->rc.dir = UB_DIR_OUT;
            else if (strcmp(optarg, "any") == 0) a->rc.dir = -1;
            else return usage_err("--dir in|out|any, not %s", optarg);
            break;
        case O_PRELOAD:
            a->rc.preload = 1ull << 30;
            if (optarg && size_arg(optarg, &a->rc.preload) < 0) return usage_err("--preload=SIZE (e.g. 512M): %s", optarg);
            break;
        case 'o':
            if (ub_opts_set(&a->o, optarg, err, sizeof err) < 0) return usage_err("-o: %s", err);
            break;
        case O_NONCRC: a->o.crc_mode = false; break;
        case O_SET: case O_MAPCNA: case O_MAPEID: case O_MAPIP: case O_MAPTPN: case O_MAPUPI: case O_MAPFILE:
        case O_PSNB: case O_TASSNB: case O_FUZZ: case O_CNAIP:
            if (a->nedits >= MAXV) return usage_err("too many rewrite options%s", NULL);
            a->edits[a->nedits++] = (kv){ c, optarg };
            a->rewrite_needed = true;
            break;
        case O_UNIQUE: a->wc.unique_per_loop = true; a->rewrite_needed = true; break;
        case O_FIXALL: a->wc.fix_all = true; a->rewrite_needed = true; break;
        case O_KEEPCRC: a->wc.crc = UB_RW_CRC_KEEP; break;
        case O_BREAKCRC:
            a->wc.crc = UB_RW_CRC_BREAK;
            a->rewrite_needed = true;
            if (!optarg || strcmp(optarg, "all") == 0) a->wc.break_mask = 0;
            else if (strcmp(optarg, "icrc") == 0) a->wc.break_mask = UB_RW_BREAK_ICRC;
            else if (strcmp(optarg, "bcrc") == 0) a->wc.break_mask = UB_RW_BREAK_BCRC;
            else return usage_err("--break-crc[=icrc|bcrc|all], not %s", optarg);
            break;
        case O_ONBAD:
            if (strcmp(optarg, "pass") == 0) a->wc.on_bad = UB_RW_BAD_PASS;
            else if (strcmp(optarg, "skip") == 0) a->wc.on_bad = UB_RW_BAD_SKIP;
            else if (strcmp(optarg, "abort") == 0) a->wc.on_bad = UB_RW_BAD_ABORT;
            else return usage_err("--on-bad pass|skip|abort, not %s", optarg);
            break;
        case O_SEED:
            if (num(optarg, &a->wc.seed) < 0) return usage_err("--seed S: %s", optarg);
            break;
        case O_DMAC:
            if (mac_arg(optarg, a->wc.dmac) < 0) return usage_err("--dmac aa:bb:cc:dd:ee:ff: %s", optarg);
            break;
        case O_SMAC:
            if (mac_arg(optarg, a->wc.smac) < 0) return usage_err("--smac aa:bb:cc:dd:ee:ff: %s", optarg);
            break;
        case O_NPI:
            if (num(optarg, &v) < 0 || v > 0xFFFFFF) return usage_err("--npi 0..16777215: %s", optarg);
            a->wc.npi = (uint32_t)v;
            break;
        case O_CHECK: a->check = true; break;
        case O_AUTOACK: a->auto_ack = 1; break;
        case O_RXIFACE: a->rx_iface = optarg; a->check = true; break;
        case O_RESEND: a->resend = true; a->check = true; break;
        case O_NOAUTOACK: a->auto_ack = 0; break;
        case O_SAVE: a->save = optarg; a->check = true; break;
        case O_REPORT: {
            ub_report_fmt f;
            if (ub_report_fmt_parse(optarg, &f) < 0) return usage_err("--report text|json|sarif|junit, not %s", optarg);
            a->report = (int)f;
            a->check = true;
            break;
        }
        case O_REPORTOUT: a->report_out = optarg; a->check = true; break;
        case O_FAILON:
            if (ub_fail_on_parse(optarg, &a->fail_on) < 0) return usage_err("--fail-on error|warning|never, not %s", optarg);
            break;
        case O_NOAUDIT: a->no_audit = true; break;
        case 'z':
            if (strcmp(optarg, "help") == 0) { ub_stats_help(stdout); exit(0); }
            if (ub_stats_parse(optarg, &a->zstats) < 0) return usage_err("-z %s: unknown statistic (-z help)", optarg);
            a->check = true;
            break;
        case O_DRAIN:
            if (ub_parse_duration(optarg, &a->drain_ns) < 0) return usage_err("--drain T: %s", optarg);
            break;
        case O_RTO:
            if (num(optarg, &v) < 0) return usage_err("--response-timeout MS: %s", optarg);
            a->st.response_timeout_ns = v * 1000000;
            break;
        case O_TAACK: a->st.expect_taack = true; break;
        case O_GAPS: a->st.gaps_are_notes = true; break;
        case O_MAXTX:
            if (num(optarg, &v) < 0 || !v || v > UINT32_MAX) return usage_err("--max-transactions N: %s", optarg);
            a->st.max_transactions = (uint32_t)v;
            break;
        case O_SCENARIO: a->scenario = optarg; a->check = true; break;
        case O_VAR:
            if (a->nvars >= MAXV) return usage_err("too many --var%s", NULL);
            a->vars[a->nvars++] = optarg;
            break;
        case O_KEEPGOING: a->keep_going = true; break;
        case 'v': a->verbose = true; break;
        case O_WITHIN:
            if (ub_parse_duration(optarg, &a->within) < 0 || !a->within) return usage_err("--within T: %s", optarg);
            a->has_within = true;
            break;
        case O_TOL:
            if (ub_parse_duration(optarg, &a->tol) < 0) return usage_err("--tol T: %s", optarg);
            a->has_tol = true;
            break;
        case O_TOLPCT: {
            char *e;
            a->tolpct = strtod(optarg, &e);
            if (*e || a->tolpct < 0) return usage_err("--tolpct P: %s", optarg);
            a->has_tolpct = true;
            break;
        }
        case O_MAXPK:
            if (num(optarg, &a->max_packets) < 0) return usage_err("--max-packets N: %s", optarg);
            break;
        case O_MAXDUR:
            if (ub_parse_duration(optarg, &a->max_dur) < 0) return usage_err("--max-duration T: %s", optarg);
            break;
        case 'h':
        case O_HELP: fputs(HELP, stdout); exit(0);
        case O_VERSION: printf("ubreplay %s\n", UBPARSE_VERSION); exit(0);
        default: return usage_err("unknown option%s", NULL);
        }
    }
    return 0;
}

/* rewrite options in command-line order */
static int apply_edits(app *a, ub_rw *rw)
{
    char err[512];
    for (unsigned i = 0; i < a->nedits; i++) {
        const kv *e = &a->edits[i];
        int rc;
        switch (e->opt) {
        case O_SET: rc = ub_rw_add_set(rw, e->arg, err, sizeof err); break;
        case O_MAPCNA: rc = ub_rw_add_map(rw, "cna", e->arg, err, sizeof err); break;
        case O_MAPEID: rc = ub_rw_add_map(rw, "eid", e->arg, err, sizeof err); break;
        case O_MAPIP: rc = ub_rw_add_map(rw, "ip", e->arg, err, sizeof err); break;
        case O_MAPTPN: rc = ub_rw_add_map(rw, "tpn", e->arg, err, sizeof err); break;
        case O_MAPUPI: rc = ub_rw_add_map(rw, "upi", e->arg, err, sizeof err); break;
        case O_MAPFILE: rc = ub_rw_load_maps(rw, e->arg, err, sizeof err); break;
        case O_PSNB: rc = ub_rw_renumber(rw, "psn", e->arg, err, sizeof err); break;
        case O_TASSNB: rc = ub_rw_renumber(rw, "tassn", e->arg, err, sizeof err); break;
        case O_FUZZ: rc = ub_rw_add_fuzz(rw, e->arg, err, sizeof err); break;
        case O_CNAIP: rc = ub_rw_add_cna_ip(rw, e->arg, err, sizeof err); break;
        default: rc = 0;
        }
        if (rc < 0) return usage_err("%s", err);
    }
    return 0;
}

static ub_rw_out out_for(ub_entry e)
{
    return e == UB_ENTRY_TPH ? UB_RW_OUT_TPH : e == UB_ENTRY_ETH ? UB_RW_OUT_ETH : e == UB_ENTRY_CFGPH ? UB_RW_OUT_CFGPH
                                                                                                      : UB_RW_OUT_RAW;
}

/* the framing of the first record of the first input (dry runs without --framing) */
static ub_entry first_entry(app *a, const char *path)
{
    char err[256];
    if (strcmp(path, "-") == 0) return UB_ENTRY_NONE;
    ub_capfile *cf = ub_cap_open(path, err, sizeof err);
    if (!cf) return UB_ENTRY_NONE;
    ub_entry e = ub_entry_for_linktype(&a->o, ub_cap_linktype(cf));
    ub_cap_close(cf);
    return e == UB_ENTRY_STREAM ? UB_ENTRY_FLIT : e;
}

int main(int argc, char **argv)
{
    static app A;
    app *a = &A;
    ub_io *io = NULL, *rxio = NULL, *io2 = NULL;
    ub_xport_io xio;
    ub_xport_dry *dry = NULL;
    ub_rw *rw = NULL, *cv = NULL;
    ub_ruleset *rs = NULL;
    ub_audit *au = NULL;
    ub_capw *save = NULL;
    ub_scenario *sc = NULL;
    ub_lua *lu = NULL; /* --scenario FILE.lua */
    ub_replay *rp = NULL;
    ub_runner *r = NULL;
    int status = 0;
    ub_opts_default(&a->o);
    ub_replay_cfg_default(&a->rc);
    ub_rw_cfg_default(&a->wc);
    ub_state_cfg_default(&a->st);
    a->report = UB_REPORT_TEXT;
    a->fail_on = UB_SEV_ERROR;
    a->drain_ns = UINT64_MAX; /* default: the response timeout */
    a->max_packets = 1000000;
    a->auto_ack = -1;
    a->max_dur = 60000000000ull;
    int rc = parse(a, argc, argv);
    if (rc) return rc;
    if (a->drain_ns == UINT64_MAX) a->drain_ns = a->st.response_timeout_ns;
    if (a->l1) a->rc.sched.overhead = 24;
    /* deadlines: wake-ups of clock_nanosleep may come up to the timer slack (50 us) late */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (!a->has_spin) a->spin_ns = 50000;
    const char *const *inputs = (const char *const *)argv + optind;
    unsigned ninputs = (unsigned)(argc - optind);
    if (a->scenario && ninputs) return usage_err("--scenario or capture files, not both%s", NULL);
    if (!a->scenario && !ninputs) return usage_err("no input: capture files (or '-') or --scenario FILE%s", NULL);
    int nout = !!a->iface + !!a->udp + !!a->dry;
    if (nout == 0)
        return usage_err("nothing is sent unless an output is named: -i IFACE, --udp HOST[:PORT], or -w FILE for a dry run%s", NULL);
    if (nout > 1) return usage_err("one output: -i, --udp or -w (a dry run); --save FILE records a live run%s", NULL);
    if (a->rx_iface && !a->iface) { status = usage_err("--rx-iface needs -i IFACE%s", NULL); goto out; }
    if (a->iface2 && !a->iface) return usage_err("-I IFACE2 needs -i IFACE (the first output)%s", NULL);
    if (a->rc.split_filter && a->rc.split_dir) return usage_err("--split-filter or --split-dir, not both%s", NULL);
    const bool split = a->rc.split_filter || a->rc.split_dir;
    if (a->iface2 && !split) return usage_err("-I %s: say which packets go there: --split-filter FILTER or --split-dir", a->iface2);
    if (split && !a->iface2 && !a->dry) return usage_err("--split-filter / --split-dir need -I IFACE2 (or a dry run, -w)%s", NULL);
    if (split && (a->check || a->scenario)) return usage_err("two outputs (-I, --split-*) send only: not with --check, --save, --rx-iface or --scenario%s", NULL);
    if (a->raw && !a->iface && !a->dry) return usage_err("--raw needs -i IFACE%s", NULL);
    if (a->framing && !a->dry) return usage_err("--framing is for dry runs (-w); live outputs have their own framing%s", NULL);
    if (a->dry && a->check) a->check = a->scenario != NULL; /* nothing answers a dry run */
    if (a->dry && a->scenario) return usage_err("a scenario needs a live output to answer it (-i or --udp)%s", NULL);
    bool live = !a->dry;
    if (a->wc.crc == UB_RW_CRC_KEEP && a->rewrite_needed == false && !a->nedits)
        fprintf(stderr, "ubreplay: note: --keep-crc only matters for packets that are rewritten\n");
    a->wc.opts = &a->o;
    a->rc.opts = &a->o;

    /* ---- the output */
    char err[1024];
    const ub_xport *x;
    if (live) {
        ub_io_cfg ic;
        ub_io_cfg_default(&ic);
        if (a->batch) ic.batch = a->batch;
        ic.rx = a->check;
        if (a->check) ic.rcvbuf = 1 << 22; /* answers come in bursts while we send */
        if (a->udp) {
            ic.udp_connect = true; /* answers only from the device; records name the real source address */
            io = ub_io_open_udp(&ic, a->udp, a->bind, err, sizeof err);
        } else {
            char kind[128];
            int ph = ub_io_if_is_physical(a->iface, kind, sizeof kind);
            if (ph < 0) { status = usage_err("no interface %s", a->iface); goto out; }
            if (ph == 1 && !a->allow_phys)
                { status = usage_err("%s is a physical interface: add --allow-physical to send on it", a->iface); goto out; }
            ic.raw = a->raw != 0;
            if (a->raw) ic.raw_entry = (uint8_t)a->raw;
            ic.txmode = a->txring ? UB_IO_TX_RING : UB_IO_TX_DEFAULT;
            ic.qdisc_bypass = a->qdisc;
            io = ub_io_open_if(&ic, a->iface, err, sizeof err);
            if (io && a->check && ub_io_get_framing(io) == UB_IO_FRAME_ETH) ub_io_set_filter(io, ub_io_filter_uboe, NULL);
        }
        if (!io) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        if (a->rx_iface) { /* answers on another interface: receive only, so no --allow-physical needed */
            ub_io_cfg rc2;
            ub_io_cfg_default(&rc2);
            rc2.tx = false;
            rc2.rcvbuf = 1 << 22;
            rc2.raw = a->raw != 0;
            if (a->raw) rc2.raw_entry = (uint8_t)a->raw;
            rxio = ub_io_open_if(&rc2, a->rx_iface, err, sizeof err);
            if (!rxio) { fprintf(stderr, "ubreplay: --rx-iface %s: %s\n", a->rx_iface, err); status = 2; goto out; }
            if (ub_io_get_framing(rxio) == UB_IO_FRAME_ETH) ub_io_set_filter(rxio, ub_io_filter_uboe, NULL);
        }
        if (a->iface2) { /* the second output: as the first (framing, checks), send only */
            char kind2[128];
            int ph2 = ub_io_if_is_physical(a->iface2, kind2, sizeof kind2);
            if (ph2 < 0) { status = usage_err("no interface %s", a->iface2); goto out; }
            if (ph2 == 1 && !a->allow_phys)
                { status = usage_err("%s is a physical interface: add --allow-physical to send on it", a->iface2); goto out; }
            ub_io_cfg ic2 = ic;
            ic2.rx = false;
            io2 = ub_io_open_if(&ic2, a->iface2, err, sizeof err);
            if (!io2) { fprintf(stderr, "ubreplay: -I %s: %s\n", a->iface2, err); status = 2; goto out; }
        }
        /* the sockets are open: no process of ours needs a capability from here on */
        if (ub_io_drop_caps(UB_IO_CAPS_ALL, err, sizeof err) < 0) fprintf(stderr, "ubreplay: warning: %s\n", err);
        ub_xport_io_init(&xio, io, &a->o, a->check, a->spin_ns);
        if (io2 && ub_xport_io_set_tx2(&xio, io2) < 0) {
            status = usage_err("-I %s frames differently from -i", a->iface2);
            goto out;
        }
        if (rxio && ub_xport_io_set_rx(&xio, rxio) < 0) {
            status = usage_err("--rx-iface %s frames differently from the output", a->rx_iface);
            goto out;
        }
        x = &xio.x;
    } else {
        int fe = a->framing ? entry_of(a->framing) : (int)first_entry(a, inputs[0]);
        if (fe <= 0)
            { status = usage_err("dry run: give --framing eth|tph|cfgph|flit|pkt (%s)",
                             strcmp(inputs[0], "-") == 0 ? "standard input cannot be looked at first" : "unknown framing of the first input"); goto out; }
        dry = ub_xport_dry_new(a->dry, (ub_entry)fe, &a->o, err, sizeof err);
        if (!dry) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        x = ub_xport_dry_get(dry);
    }

    /* ---- rewriting into the output's framing */
    a->wc.out = (uint8_t)out_for(x->entry);
    a->wc.raw_entry = (uint8_t)x->entry;
    rw = ub_rw_new(&a->wc, err, sizeof err);
    if (!rw) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
    if ((rc = apply_edits(a, rw))) { status = rc; goto out; }
    { /* scenario packets are only converted to the output's framing (CNA -> IP map), never edited */
        ub_rw_cfg cc2 = a->wc;
        cc2.fix_all = false;
        cc2.crc = UB_RW_CRC_FIX;
        cc2.unique_per_loop = false;
        cv = ub_rw_new(&cc2, err, sizeof err);
        if (!cv) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        for (unsigned i = 0; i < a->nedits; i++)
            if (a->edits[i].opt == O_CNAIP && ub_rw_add_cna_ip(cv, a->edits[i].arg, err, sizeof err) < 0) {
                status = usage_err("%s", err);
                goto out;
            }
    }
    a->rc.raw_records = a->raw && !a->rewrite_needed && !a->rc.filter && !a->rc.requests && a->wc.crc != UB_RW_CRC_BREAK;

    /* ---- the audit session with the runner's rules */
    if (a->check) {
        rs = ub_ruleset_new();
        if (!rs || ub_runner_add_rules(rs, err, sizeof err) < 0) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        size_t sl = a->scenario ? strlen(a->scenario) : 0;
        if (sl > 4 && strcmp(a->scenario + sl - 4, ".lua") == 0) {
            /* a Lua scenario: its rules (ub.rule, UB-LUA-001) join the session's rule set; --var K=V
             * become ub.args.K */
            ub_lua_cfg lc;
            ub_lua_cfg_default(&lc);
            lc.opts = &a->o;
            lc.tool = "ubreplay";
            lu = ub_lua_new(&lc);
            if (!lu) { fprintf(stderr, "ubreplay: out of memory\n"); status = 2; goto out; }
            for (unsigned i = 0; i < a->nvars; i++)
                if (ub_lua_arg(lu, a->vars[i], err, sizeof err) < 0) { status = usage_err("--var %s", err); goto out; }
            if (ub_lua_load(lu, a->scenario, rs, err, sizeof err) < 0) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
            if (!(ub_lua_wants(lu) & UB_LUA_W_SCENARIO))
                { status = usage_err("%s defines no global function scenario()", a->scenario); goto out; }
        }
        ub_audit_cfg ac;
        ub_audit_cfg_default(&ac);
        ac.state = a->st;
        /* §10.6 e: outstanding requests are judged when the capture ends; a live run keeps receiving for
         * --drain after its last packet, which counts towards the response timeout */
        uint64_t drained = live ? a->drain_ns : 0;
        ac.state.response_timeout_ns = a->st.response_timeout_ns > drained ? a->st.response_timeout_ns - drained : 0;
        if (live) ac.state.loss_timeout_ns = 0; /* the host's clock: a stall is not the sender's loss timer */
        if (a->no_audit) ac.state.layers = 0;
        ac.opts = &a->o;
        ac.rules = rs;
        ac.stats = a->zstats;
        au = ub_audit_new(&ac, err, sizeof err);
        if (!au) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        if (a->save) {
            save = ub_capw_open(a->save, true, x->linktype, err, sizeof err);
            if (!save) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        }
    }

    /* ---- replay or scenario */
    if (a->scenario) {
        size_t l = strlen(a->scenario);
        if (lu) ub_lua_attach(lu, au);
        else if (l > 4 && strcmp(a->scenario + l - 4, ".lua") == 0)
            { status = usage_err("a Lua scenario needs --check: %s", a->scenario); goto out; }
        else sc = ub_scenario_load(a->scenario, &a->o, err, sizeof err);
        if (!sc && !lu) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
        for (unsigned i = 0; sc && i < a->nvars; i++) {
            const char *eq = strchr(a->vars[i], '=');
            uint64_t v;
            char name[128];
            if (!eq || eq == a->vars[i] || (size_t)(eq - a->vars[i]) >= sizeof name || num(eq + 1, &v) < 0)
                { status = usage_err("--var NAME=NUMBER: %s", a->vars[i]); goto out; }
            memcpy(name, a->vars[i], (size_t)(eq - a->vars[i]));
            name[eq - a->vars[i]] = '\0';
            ub_scenario_set_var(sc, name, v);
        }
    }
    if (!sc && !lu) {
        a->rc.inputs = inputs;
        a->rc.ninputs = ninputs;
        rp = ub_replay_new(&a->rc, err, sizeof err);
        if (!rp) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }
    }
    ub_runner_cfg cc;
    ub_runner_cfg_default(&cc);
    cc.opts = &a->o;
    cc.audit = au;
    cc.rules = rs;
    cc.save = save;
    cc.rw = cv;
    if (a->batch) cc.batch = a->batch;
    cc.rx_queue = sc || lu ? 4096 : 0;
    if (live) {
        cc.max_packets = a->max_packets;
        cc.max_duration_ns = a->max_dur;
    }
    cc.seed = a->wc.seed;
    cc.auto_ack = a->check && live && (a->rc.requests || sc || lu);
    if (sc) ub_scenario_apply_defaults(sc, &cc);
    if (lu) cc.src_uri = a->scenario;
    if (a->auto_ack >= 0) cc.auto_ack = a->auto_ack && a->check && live;
    cc.resend = a->resend && live;
    if (a->has_within) cc.within_ns = a->within;
    if (a->has_tol) cc.tol_abs_ns = a->tol;
    if (a->has_tolpct) cc.tol_pct = a->tolpct;
    if (rp) {
        cc.on_sent = ub_replay_on_sent;
        cc.on_sent_ctx = rp;
    }
    r = ub_runner_new(&cc, x, err, sizeof err);
    if (!r) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; goto out; }

    bool capped = false;
    if (lu) {
        int src = ub_lua_scenario_run(lu, r, err, sizeof err);
        if (src == 2) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; }
        if (src == 3) capped = true;
    } else if (sc) {
        if (a->keep_going) ub_scenario_set_keep_going(sc, true);
        int src = ub_scenario_run(sc, r, a->verbose ? stderr : NULL, err, sizeof err);
        if (src == 2) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; }
        if (src == 3) capped = true;
    } else {
        int rrc = ub_replay_run(rp, r, rw, err, sizeof err);
        if (rrc < 0) { fprintf(stderr, "ubreplay: %s\n", err); status = 2; }
        if (rrc == 1) capped = true;
    }
    if (ub_runner_finish(r, a->check && live ? a->drain_ns : 0) < 0) {
        fprintf(stderr, "ubreplay: %s\n", ub_runner_error(r));
        status = 2;
    }
    ub_runner_stats rst;
    ub_runner_get_stats(r, &rst);
    capped |= rst.capped;
    if (capped)
        fprintf(stderr, "ubreplay: stopped by a safety cap (--max-packets %" PRIu64 ", --max-duration %.3g s; 0 lifts it): the run is incomplete\n",
                a->max_packets, (double)a->max_dur / 1e9);

    /* ---- reports */
    bool report_on_stdout = a->check && !a->report_out && a->report != UB_REPORT_TEXT;
    FILE *sum = report_on_stdout || a->json ? stderr : stdout;
    if (rp) ub_replay_report(rp, r, rw, sum, false);
    else {
        char l[32];
        ub_format_duration(ub_lathist_quantile(&rst.lateness, 0.99), l, sizeof l);
        fprintf(sum, "ubreplay: scenario %s: sent %" PRIu64 " packets, received %" PRIu64 ", expectations %" PRIu64
                     " met of %" PRIu64 "\n",
                a->scenario, rst.sent, rst.received, rst.expect_ok, rst.expects);
    }
    if (a->json && rp) {
        printf("{");
        ub_replay_report(rp, r, rw, stdout, true);
        printf("}\n");
    }
    if (a->check && !(status == 2 && rst.recorded == 0)) { /* nothing was sent: no report to write */
        ub_audit_finish(au);
        ub_state_stats sst;
        ub_audit_state_stats(au, &sst);
        char *extra = rp ? ub_replay_report_json(rp, r, rw) : NULL;
        /* the frames of the findings number the combined run (both directions): its capture is the
         * artifact they refer to (--save), else the live output names it */
        char live_name[300];
        snprintf(live_name, sizeof live_name, "%s:%s", a->udp ? "udp" : "iface", a->udp ? a->udp : a->iface ? a->iface : "");
        const char *ins[1] = { a->save ? a->save : live_name };
        ub_report_info ri = { .tool = "ubreplay", .inputs = ins, .ninputs = 1,
                              .records = rst.recorded, .packets = rst.recorded, .fail_on = a->fail_on, .jobs = 1,
                              .state = &sst, .rules = rs, .extra_json = extra };
        if (status) ri.status = status;
        const ub_collect *col = ub_audit_findings(au);
        FILE *rf = a->report_out ? fopen(a->report_out, "w") : stdout;
        if (!rf) { fprintf(stderr, "ubreplay: %s: %s\n", a->report_out, strerror(errno)); status = 2; }
        else {
            if (ub_report_write(rf, (ub_report_fmt)a->report, col, &ri) < 0) status = 2;
            if (rf != stdout && fclose(rf) != 0) status = 2;
        }
        free(extra);
        if (!status) status = ub_result_exit(ub_report_result(col, &ri));
        if (a->zstats) ub_audit_print_stats(au, sum, a->zstats);
    }
    if (!status && capped) status = 3;
out:
    ub_runner_free(r);
    ub_replay_free(rp);
    ub_scenario_free(sc);
    if (save && ub_capw_close(save) < 0) { fprintf(stderr, "ubreplay: %s: write error\n", a->save); status = 2; }
    if (dry && ub_xport_dry_close(dry) < 0) { fprintf(stderr, "ubreplay: %s: write error\n", a->dry); status = 2; }
    ub_audit_free(au);
    ub_lua_free(lu);
    ub_ruleset_free(rs);
    ub_rw_free(rw);
    ub_rw_free(cv);
    ub_io_close(io);
    ub_io_close(rxio);
    ub_io_close(io2);
    return status;
}
