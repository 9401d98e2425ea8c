#!/bin/sh
# ubdump -z conv,ub_eid / -z endpoints,ub_eid (and -z conv,ub with its Duration column) against
# tshark -2 -q with the built plugin (tap "ub_eid", issue #10 item 3), on every bundled capture: the
# whole table is identical after one normalisation — runs of spaces squeezed and trailing spaces
# dropped (tshark pads its columns differently); ubdump -q's "N records: ..." line is dropped.
# tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

norm() { tr -s ' ' | sed 's/ $//'; }
n=0
neid=0
for c in "$S"/captures/*.pcap*; do
    name=$(basename "$c")
    # the three tables in one run, the same options for both (each prints them in reverse)
    ts -n -2 -q -r "$c" -z conv,ub_eid -z endpoints,ub_eid -z conv,ub 2> "$tmp/ts.err" | norm > "$tmp/ts.txt" ||
        { cat "$tmp/ts.err"; fail "$name: tshark -z conv,ub_eid -z endpoints,ub_eid -z conv,ub"; }
    "$U" -q -r "$c" -z conv,ub_eid -z endpoints,ub_eid -z conv,ub 2> "$tmp/ub.err" | grep -Ev '^[0-9]+ records: ' | norm > "$tmp/ub.txt" || true
    [ "$(grep -c '^UB EID Endpoints\|^UB EID Conversations\|^UB Conversations' "$tmp/ub.txt")" = 3 ] || { cat "$tmp/ub.txt"; fail "$name: not the three tables"; }
    awk '/^UB EID Conversations/ { e = 1 } e && / <-> / { f = 1 } END { exit !f }' "$tmp/ts.txt" && neid=$((neid + 1))
    cmp -s "$tmp/ts.txt" "$tmp/ub.txt" || { diff "$tmp/ts.txt" "$tmp/ub.txt" || true; fail "$name: -z conv,ub|endpoints,ub_eid|conv,ub_eid differs"; }
    n=$((n + 3))
done
[ "$neid" -ge 5 ] || fail "only $neid captures with EID conversations (audit_mgmt, audit_responder, audit_txn_clean, cfg6_mgmt, cip)"
# explicit values: audit_mgmt's EID pairs (frames and bytes per direction, start, duration)
"$U" -q -r "$S/captures/audit_mgmt.pcapng" -z conv,ub_eid 2>/dev/null | norm > "$tmp/m.txt"
for want in '0x00001 <-> 0x00002 7 420 bytes 4 200 bytes 11 620 bytes 0.000000000 0.3001' \
    '0x00003 <-> 0x00001 1 60 bytes 1 140 bytes 2 200 bytes 0.002000000 0.0010'; do
    grep -qxF "$want" "$tmp/m.txt" || { cat "$tmp/m.txt"; fail "audit_mgmt: missing row '$want'"; }
done
echo "ok: $n tables identical to tshark's ($neid captures with EID conversations)"
