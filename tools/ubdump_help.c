/* ubdump's help text (-h) and its -G listings (fields, errors, headers, profiles, rules): one line per
 * item, tab-separated, read by scripts/completion and docs (scripts/gen-docs.sh). */
#include "ubparse/audit.h"
#include "ubparse/expert.h"
#include "ubparse/filter.h"
#include "ubparse/ubparse.h"
#include "ubdump_out.h"

#include <stdio.h>
#include <string.h>

static const char *const sev_name[] = { "note", "warning", "error" };

void ubx_usage(FILE *f)
{
    fprintf(f,
            "usage: ubdump -r FILE [options] [DISPLAY FILTER]\n"
            "       ubdump -i IFACE [options] [CAPTURE FILTER]\n"
            "  (as tshark: words after the options are -Y's display filter with -r, -f's capture filter with -i)\n"
            "  -r FILE          read pcap/pcapng FILE, gzip-compressed or not ('-' = standard input)\n"
            "  -i IFACE         capture live on network interface IFACE (a name, or its number in -D) instead:\n"
            "                   AF_PACKET, both directions, nothing sent; needs CAP_NET_RAW, dropped once open;\n"
            "                   until COUNT (-c), -a or SIGINT/SIGTERM, which end the run as the end of a file\n"
            "                   does (totals, --audit report)\n"
            "  -p               with -i: not in promiscuous mode      -s SNAPLEN   with -i: bytes kept per packet\n"
            "  -f FILTER        with -i, as tcpdump / tshark -f: a capture filter in libpcap's language ('udp port 4792',\n"
            "                   'ip6 or vlan'), compiled for the interface's link type and run in the kernel: the\n"
            "                   packets it rejects never reach ubdump (not counted). Ethernet, loopback and tun\n"
            "                   interfaces; a VLAN tag the interface strips (offload) is not seen by it\n"
            "  -D               list the network interfaces -i can capture on (number, name, kind, state), and exit\n"
            "  -a duration:SECONDS, -a packets:N   with -i, as tshark: stop after that time (decimals allowed) or\n"
            "                   that many packets (as -c)\n"
            "  -V               print the full decode tree of every packet\n"
            "  -O PROTOCOLS     as tshark: -V with the fields of these protocols only (comma-separated: ub, a header\n"
            "                   such as ub.btah, or eth, ip, ipv6, udp, tcp, icmp, data, infiniband, sue, ...); the\n"
            "                   other headers by their line, their decode errors left out\n"
            "  -x               hex + ASCII dump of every printed packet, a '-- OFFSET ub.HDR' line where each header starts\n"
            "  -t r|a|ad|d|dd|e|u|ud   time format as tshark (relative, absolute local/with date, delta from the previous\n"
            "                   captured/printed packet, epoch, UTC), at the capture's precision (default r)\n"
            "  -T text|fields|json|ek|psml|tabs|ubjson   output format (default text: one summary line per packet);\n"
            "                   json, ek, psml (the summary columns as XML) and tabs (tshark's summary line: its\n"
            "                   columns padded as tshark pads them, tab-separated) in tshark's shape, ubjson the\n"
            "                   native one (docs/ubjson.schema.json)\n"
            "  -j PROTOCOLS     with -T json or ek, as tshark: a space-separated list of names (ip ip.flags ub ub.rtph); an\n"
            "                   item with a subtree whose name is not listed is written {\"filtered\": \"NAME\"}\n"
            "  -J PROTOCOLS     the same, a listed item with all its descendants (-J ub: the whole UB tree)\n"
            "  -e FIELD         with -T fields (or json/ek): field to print (repeatable), e.g. ub.btah.taopcode, a header\n"
            "                   (ub.rtph: 1 each time it occurs, as tshark), ub.error,\n"
            "                   frame.number, frame.len, frame.cap_len, frame.interface_id, frame.p2p_dir, frame.comment,\n"
            "                   frame.time, frame.time_relative, frame.time_epoch, frame.time_delta,\n"
            "                   frame.time_delta_displayed,\n"
            "                   _ws.col.Info (the summary), _ws.col.Time (as -t), _ws.col.No., _ws.col.Protocol,\n"
            "                   _ws.col.Source, _ws.col.Destination, _ws.col.Length, ub.cna, ub.eid, ub.analysis.* and\n"
            "                   ub.stream.* (the plugin's analysis, as tshark -2; -G fields lists them), and Wireshark's\n"
            "                   names of the headers outside UB: eth.*, vlan.*, ip.*, ipv6.*, udp.*, tcp.*, arp.*, icmp.*,\n"
            "                   icmpv6.*, data.data, data.len (docs/filters.md)\n"
            "  -E OPTION        with -T fields (as tshark): header=y|n, separator=/t|/s|C, aggregator=,|/s|C,\n"
            "                   quote=d|s|n, occurrence=f|l|a\n"
            "  -w FILE          write the records selected by -Y to FILE as pcapng ('-' = standard output), interfaces\n"
            "                   (name, description, snaplen, timestamp resolution), direction flags and every comment\n"
            "                   kept; nothing is printed unless -P\n"
            "  -F pcapng|pcap|nsecpcap   with -w, as tshark -F: the file format (default pcapng); pcap (µs\n"
            "                   timestamps) and nsecpcap (ns) hold one link type and no interface names, comments or\n"
            "                   direction flags\n"
            "  -P               with -w: print the packet lines too\n"
            "  -U               with -w: each record reaches the file or pipe at once (tcpdump -U: packet-buffered)\n"
            "  -b filesize:KB, -b duration:SECONDS, -b files:N   with -w FILE, as tshark's ring buffer: a new\n"
            "                   file at that size or span of capture time, named FILE's PREFIX_NNNNN_YYYYMMDDhhmmss.SUFFIX\n"
            "                   (its first record's UTC time); files: keep only the newest N\n"
            "  --write-cited    with -w and --audit: write the records the report cites instead (each kept example's\n"
            "                   frame and related frames; --audit-examples sets how many per rule)\n"
            "  -l               flush standard output after every line (the default when it is a terminal)\n"
            "  -n, -2           accepted for tshark habits: ubdump resolves no names, and its analysis always sees\n"
            "                   the whole capture first (as tshark -2; -2 also admits -R)\n"
            "  -Y FILTER        print only packets matching the display filter, e.g.\n"
            "                   'ub.btah.taopcode == \"Read\" && ub.lph.vl != 0', 'ub.error', 'ub.icrc.status == \"Bad\"'\n"
            "                   'ip.addr == 10.0.0.0/8', 'ub.rtph.psn in {1..5}', 'ub.analysis.retransmission';\n"
            "                   Wireshark's language and names (docs/filters.md)\n"
            "                   (the audit and the statistics still see every packet)\n"
            "  -2 -R FILTER     as tshark's read filter: a first pass keeps only the records FILTER selects, and\n"
            "                   the run sees nothing else (numbered from 1, counted by -c; the analysis, the\n"
            "                   audit, -z and -w see only them); times stay relative to the first record read\n"
            "                   (a temporary pcapng file of the selected records in $TMPDIR, removed at exit)\n"
            "  -c COUNT         stop after COUNT records\n"
            "  -v, --version    print the versions and exit\n"
            "  -q               decode everything, print only the totals (and the audit / statistics)\n"
            "  -o NAME=VALUE    decoder option, also NAME:VALUE (ubdump -o help lists them)\n"
            "  --noncrc         links run in Non-CRC mode (END instead of BCRC)\n"
            "  -G fields|errors|headers|rules|profiles|lua  list every field / error name / header table / audit rule\n"
            "                   (with the --lua scripts' rules) / decoding profile deviation / the Lua module reference,\n"
            "                   and exit\n"
            "audit (protocol-state checks, rule catalogue: ubdump -G rules, docs/rules.md):\n"
            "  --audit          check every packet, print the findings grouped by rule after the run\n"
            "  --audit-format text|json|sarif|junit   report format (default text); json/sarif/junit on\n"
            "                   standard output suppress the packet lines and move -z output to stderr\n"
            "  --audit-output FILE   write the report to FILE instead of standard output\n"
            "  --audit-examples N    findings shown per rule (default 5 in text, 100 otherwise)\n"
            "  --fail-on error|warning|never   exit 1 when a finding has this severity or above (default error);\n"
            "                   notes never change the exit status; never: always exit 0 once the file was read\n"
            "  --allow-incomplete   evicted state (see --max-*) is reported but does not make the result\n"
            "                   INCOMPLETE (exit 3)\n"
            "  --response-timeout MS   unanswered requests are errors only after MS ms of capture (default 100)\n"
            "  --loss-timeout MS   loss timer: outstanding PSNs neither acked nor resent for MS ms (default 100, 0 off)\n"
            "  --expect-taack   RTP Writes/Sends expect TAACKs (§10.6 a)\n"
            "  --gaps-are-notes PSN gaps are notes (per-packet load balancing, one path captured; §10.6 c)\n"
            "  --max-links N, --max-channels N, --max-transactions N, --max-mgmt N   state table bounds;\n"
            "                   state evicted from a full table makes the result INCOMPLETE\n"
            "  --threads N      N threads in all: one reads, all decode, N-1 run the audit engines split by layer and\n"
            "                   endpoint pair (same output as 1; -j N, a number, is a deprecated alias)\n"
            "  --log-dir DIR    write JSON Lines tables for data engines into DIR: transactions, mgmt,\n"
            "                   tp_channels, findings (docs/logs.md); runs the audit engine in one thread\n"
            "statistics, printed after the run:\n"
            "  -z ub,cfg        packets per CFG, header, TAOpcode, TPOpcode, DLLCB type, management code\n"
            "  -z ub,tp         per TP channel: packets, bytes, retransmissions, reordering, losses, acks\n"
            "  -z ub,srt[,FILTER]  response times per TAOpcode, management Code, ack TPOpcode: tshark's SRT table\n"
            "                   (FILTER: only the matches tapped in frames it selects, as tshark's)\n"
            "  -z ub,latency    transaction response times per TAOpcode (min/median/p99/max, histogram)\n"
            "  -z ub,mgmt       management response times per Code\n"
            "  -z ub,tree[,FILTER]  packet counts per CFG, TAOpcode, TPOpcode, DLLCB type, Code: tshark's table\n"
            "  -z io,stat,INTERVAL[,FILTER]...  frames and bytes per interval, one column per display filter\n"
            "  -z io,phs[,FILTER]  protocol hierarchy: frames and bytes per protocol path (frame.protocols)\n"
            "                   (io,stat, io,phs, ub,tree,FILTER and conv/endpoints,...,FILTER repeat: a table each;\n"
            "                   one ub,srt,FILTER and one expert per run; tables print in the reverse of their\n"
            "                   -z options, as tshark's)\n"
            "  -z conv,ub, -z endpoints,ub     UB conversations / endpoints (CNA or IP pairs), as tshark's; each\n"
            "                   conv/endpoints table takes tshark's ,FILTER (only the packets it selects)\n"
            "  -z conv,ub_eid, -z endpoints,ub_eid   EID pairs / EIDs (EIDH), as tshark's\n"
            "  -z conv,ub_tp, -z endpoints,ub_tp     TP channels / TP endpoints, as tshark's\n"
            "  -z conv,eth|ip|ipv6|tcp|udp, -z endpoints,...   Wireshark's own tables of the headers outside UB\n"
            "  -z expert[,error|warn|note][,FILTER]  expert items per severity, group and summary (as tshark -2 -z expert\n"
            "                   with the plugin): of that severity and above, of the frames FILTER selects\n"
            "Lua scripts (docs/lua.md):\n"
            "  --lua FILE       run a Lua 5.4 script (repeatable): hooks on_packet/on_match/on_finding/on_end,\n"
            "                   script rules (ub.rule, ub.report) reported like built-in rules; without --audit\n"
            "                   the report holds the scripts' rules only (printed when they exist or fired)\n"
            "  --lua-arg K=V    value for the scripts (ub.args.K), repeatable\n"
            "  --lua-budget N   VM instructions per callback (default 100000000, 0 = unlimited)\n"
            "  --lua-memory MB  memory per script (default 256, 0 = unlimited)\n"
            "  --lua-max-errors N   errors after which a hook is disabled (default 10)\n"
            "  --lua-unsafe     open io/os/package/debug and bytecode loading (trusted scripts only)\n"
            "Exit status: 0 file read (and audit clean), 1 audit findings at or above --fail-on, 2 usage or I/O error,\n"
            "3 audit INCOMPLETE: state was evicted before it could be judged (the report names the --max-* to raise).\n");
}

void ubx_list_fields(void)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (!h) continue;
        for (unsigned k = 0; k < h->nfields; k++)
            printf("%s\t%s\t%s\t%s\n", h->fields[k].abbrev, h->fields[k].name, h->key, h->fields[k].spec);
    }
    for (size_t i = 0; i < ubx_npseudo; i++) /* the other -e / -Y names (key column: -, frame, column, plugin) */
        if (ubx_pseudo_names[i].key)
            printf("%s\t%s\t%s\t-\n", ubx_pseudo_names[i].name, ubx_pseudo_names[i].label, ubx_pseudo_names[i].key);
    size_t nw;
    const ub_wsname *w = ub_ws_names(&nw);
    for (size_t i = 0; i < nw; i++) { /* Wireshark's names of the headers outside UB: the schema row they read */
        const ub_wsname *first;
        if (!strchr(w[i].ws, '.') || (ub_ws_find(w[i].ws, &first, 1) && first != &w[i])) continue; /* ip.version: once */
        const ub_hdr *h[1];
        const ub_field *f[1];
        bool row = !(w[i].flags & UB_WS_SPAN) && !w[i].scale && ub_field_find(w[i].ub[0], h, f, 1) && f[0];
        bool either = w[i].ub[1] && !(w[i].flags & UB_WS_SPAN); /* ip.addr: either row */
        printf("%s\t%s%s\twireshark\t= %s%s%s\n", w[i].ws, row ? f[0]->name : w[i].ws, either ? " or the other end" : "",
                   w[i].ub[0], w[i].ub[1] ? (either ? " or " : " .. ") : "", w[i].ub[1] ? w[i].ub[1] : "");
    }
    char nb[96];
    const char *nm, *label;
    for (int i = 0; (nm = ub_fan_field_name(i, nb, sizeof nb, &label)) != NULL; i++)
        printf("%s\t%s\tanalysis\t-\n", nm, label); /* ubparse/anfields.h, expert.h */
}

void ubx_list_errors(void)
{
    static const char *grp[] = { "malformed", "protocol", "sequence", "checksum" };
    for (unsigned c = 1; c < UB_E__COUNT; c++) {
        const ub_err_info *e = ub_err_get(c);
        if (e) printf("%s\t%s\t%s\t%s\n", e->name, sev_name[e->severity], grp[e->group], e->desc);
    }
}

void ubx_list_headers(void)
{
    for (unsigned id = 1; id < UB_H__COUNT; id++) {
        const ub_hdr *h = ub_hdr_get(id);
        if (h) printf("%s\t%s%s\t%s\t%u\t%s\n", h->key, ub_hdr_ns(h), h->abbrev, h->name, h->len, h->spec);
    }
}

/* profile, deviation id, where, dialect, spec, handling (docs/interop.md) */
void ubx_list_profiles(void)
{
    for (unsigned p = 0; ub_profile_name(p); p++) {
        unsigned n = 0;
        const char *title = ub_profile_describe(p, &n);
        printf("%s\t-\t%s\t-\t-\t-\n", ub_profile_name(p), title);
        for (unsigned i = 0; i < n; i++) {
            const ub_deviation *d = ub_profile_deviation(p, i);
            printf("%s\t%s\t%s\t%s\t%s\t%s\n", ub_profile_name(p), d->id, d->where, d->dialect, d->spec, d->handling);
        }
    }
}

/* id, layer, severity, spec, title, evidence (rs: with the scripts' rules; NULL: built-in) */
void ubx_list_rules(const ub_ruleset *rs)
{
    unsigned n = rs ? ub_ruleset_count(rs) : ub_rule_count();
    for (unsigned i = 0; i < n; i++) {
        const ub_rule *r = rs ? ub_ruleset_get(rs, i) : ub_rule_get(i);
        if (r) printf("%s\t%s\t%s\t%s\t%s\t%s\n", r->id, r->layer, sev_name[r->severity > 2 ? 2 : r->severity], r->spec,
                      r->title, r->evidence);
    }
}
