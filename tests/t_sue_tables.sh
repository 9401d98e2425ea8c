#!/bin/sh
# The SUE limit tables of st_sue.c (bank/VC pairs, CNP QPs) are registered state tables: bounded by
# --max-channels, their evictions counted (JSON evictions sue_pairs / sue_cnps, UB-ST-001, INCOMPLETE)
# and a finding lost to an eviction is not made up. docs/neighbours.md.
# Trace (built here): 10.0.3.1 -> 10.0.3.2; CNPs for QP 1, 2, 3, then QP 1 again 3 us after its first
# (SUE-TP-008 at 4 with TIMER_THR 10 us); TYPE1 requests of bank 0 from three senders.
set -eu
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}" "${UBGEN:?}"
U=$UBDUMP
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$3', want '$2'"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pkt() { # ts-us src-ip dst-ip pcp rh...
    printf '@packet ts=0.%06d\neth icrc=none\neth dst=02:00:00:00:03:02 src=02:00:00:00:03:01\nvlan vid=10 pcp=%s\n' "$1" "$4"
    printf 'ipv4 src=%s dst=%s\nudp srcport=50000 dstport=4791\nsue_rh %s\n' "$2" "$3" "$5"
}
{
    echo '@capture format=pcapng'
    t=0
    for q in 1 2 3 1; do t=$((t + 1)); pkt $t 10.0.3.2 10.0.3.1 5 "opcode=2 p_key=1 psn=0 dest_qp=$q"; done
    for s in 1 3 4; do
        pkt $((10 + s)) 10.0.3.$s 10.0.3.2 0 "opcode=0 p_key=1 pkt_len=24 psn=1 dest_qp=4"
        echo 'data inc=16'
    done
} > "$tmp/t.ub"
"$UBGEN" -w "$tmp/t.pcapng" "$tmp/t.ub" 2>/dev/null || bad "ubgen"
expect "frame times" "1 2 3 4 11 13 14" "$("$U" -r "$tmp/t.pcapng" -T fields -e frame.time_relative 2>/dev/null | python3 -c '
import sys; print(" ".join(str(round(float(x) * 1e6) + 1) for x in sys.stdin.read().split()))')"

audit() {
    "$U" -o sue.cnp_merge_us=10 -r "$tmp/t.pcapng" -q --audit --audit-format json --audit-examples 100 --fail-on error "$@" 2>/dev/null |
        python3 -c '
import json, sys
d = json.load(sys.stdin)
ev = d["evictions"]
print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])), "|",
      d["result"], "|", " ".join("%s=%s" % (k, ev[k]) for k in ("total", "nb_flows", "sue_pairs", "sue_cnps") if k in ev), "|",
      d.get("incomplete", ""))'
}
# default bound: nothing evicted, the CNP 3 us after the first for QP 1 is found
expect "default --max-channels" "SUE-TP-008@4 | pass | total=0 nb_flows=0 sue_pairs=0 sue_cnps=0 | " "$(audit)"
# bound 2: QP 1's CNP state evicted at frame 3 (and QP 2's at 4), so frame 4 cannot be judged; the third
# sender (frame 7) evicts the first one's bank/VC pair, request flow and address pair. One UB-ST-001 per
# table, at its first eviction.
expect "--max-channels 2" "UB-ST-001@3 UB-ST-001@7 UB-ST-001@7 UB-ST-001@7 | incomplete | total=5 nb_flows=1 sue_pairs=1 sue_cnps=2 | 1 neighbour flows, 1 neighbour address pairs, 1 SUE bank/VC pairs, 2 SUE CNP QPs evicted before they could be judged (peak live 2, 2, 2, 2): rerun with --max-channels 4" \
    "$(audit --max-channels 2)"
# the text report names each table with its bound and the frames of the evictions
"$U" -o sue.cnp_merge_us=10 -r "$tmp/t.pcapng" -q --audit --max-channels 2 --fail-on never > "$tmp/rep.txt" 2>/dev/null || true
expect "text report" "state evicted: 5 entries before they could be judged: neighbour flows 1 (table bound 2, peak live 2, frames 7..7); neighbour address pairs 1 (table bound 2, peak live 2, frames 7..7); SUE bank/VC pairs 1 (table bound 2, peak live 2, frames 7..7); SUE CNP QPs 2 (table bound 2, peak live 2, frames 3..4)" \
    "$(grep '^state evicted' "$tmp/rep.txt")"
expect "UB-ST-001 text" "1" "$(grep -c 'SUE CNP QPs evicted: the time of their last CNP was forgotten' "$tmp/rep.txt")"
# a UB-only capture has no SUE table keys
expect "UB capture keys" "no" "$("$U" -r "$UB_SOURCE_DIR/captures/audit_rtp_clean.pcapng" -q --audit --audit-format json --fail-on never 2>/dev/null |
    python3 -c 'import json,sys; print("yes" if "sue_pairs" in json.load(sys.stdin)["evictions"] else "no")')"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
