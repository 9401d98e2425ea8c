#!/bin/sh
# ubdump -z expert against tshark -2 -q -z expert with the built plugin (issue #10 item 3):
#  * every captures/audit_*.pcapng: the whole table (Errors/Warns/Notes headers with totals, and the
#    Frequency/Group/Protocol/Summary rows in tshark's order) is identical; the one normalisation:
#    ubdump -q's "N records: ..." line is dropped;
#  * every bundled capture: the UB rows (Protocol UB) are identical in order; rows of Wireshark's
#    other dissectors (UDP checksum 0, TCP SYN chats, IB/RPCoRDMA, DLT_USER) are not ubdump's;
#  * every bundled capture: tshark's table without a tree (the plugin hands each item straight to the
#    expert tap, dissector/packet-ub-analysis.c an_expert_tap) is identical to the table with one
#    (-Y frame: every item through Wireshark's expert API).
# tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

naudit=0
nfull=0
nrows=0
ncap=0
for c in "$S"/captures/*.pcap*; do
    name=$(basename "$c")
    ts -n -2 -q -r "$c" -z expert > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z expert"; }
    ts -n -2 -q -r "$c" -z expert -Y frame > "$tmp/tstree.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z expert -Y frame"; }
    cmp -s "$tmp/ts.txt" "$tmp/tstree.txt" || { diff "$tmp/tstree.txt" "$tmp/ts.txt" || true; fail "$name: -z expert without a tree differs from -Y frame"; }
    "$U" -q -r "$c" -z expert 2> "$tmp/ub.err" | grep -Ev '^[0-9]+ records: ' > "$tmp/ub.txt" || true
    case $name in
    audit_*)
        grep -q '^   Frequency' "$tmp/ts.txt" && nfull=$((nfull + 1))
        cmp -s "$tmp/ts.txt" "$tmp/ub.txt" || { diff "$tmp/ts.txt" "$tmp/ub.txt" || true; fail "$name: -z expert tables differ"; }
        naudit=$((naudit + 1))
        ;;
    esac
    awk '$3 == "UB"' "$tmp/ts.txt" > "$tmp/ts.rows"
    awk '$3 == "UB"' "$tmp/ub.txt" > "$tmp/ub.rows"
    cmp -s "$tmp/ts.rows" "$tmp/ub.rows" || { diff "$tmp/ts.rows" "$tmp/ub.rows" || true; fail "$name: UB rows of -z expert differ"; }
    nrows=$((nrows + $(wc -l < "$tmp/ts.rows")))
    ncap=$((ncap + 1))
done
# what was compared is not empty (34 captures, 11 audit ones, 107 UB rows when written)
[ "$naudit" -ge 11 ] || fail "only $naudit audit captures compared"
[ "$nfull" -ge 10 ] || fail "only $nfull audit captures with expert items (audit_txn_clean has none)"
[ "$nrows" -ge 100 ] || fail "only $nrows UB expert rows compared"
# explicit values: the lossy RTP capture (per-rule summaries, severities, groups, counts)
"$U" -q -r "$S/captures/audit_rtp_lossy.pcapng" -z expert > "$tmp/lossy.txt" 2>/dev/null
for want in 'Errors (2)' 'Warns (3)' 'Notes (8)' \
    '           1   Sequence                 UB  UB-TP-002: PSN gap never filled nor acknowledged: packets lost or skipped' \
    '           2   Sequence                 UB  Previous PSN(s) not captured (a PSN gap precedes this packet)' \
    '           3   Sequence                 UB  UB-TP-003: retransmission of a PSN already sent'; do
    grep -qxF "$want" "$tmp/lossy.txt" || { cat "$tmp/lossy.txt"; fail "audit_rtp_lossy: missing line '$want'"; }
done
echo "ok: -z expert identical to tshark's on $naudit audit captures, UB rows on $ncap captures ($nrows rows)"
