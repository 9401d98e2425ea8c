#!/bin/sh
# tshark's statistics names in ubdump, with tshark's numbers (issue #10 item 3), on every bundled
# audit capture:
#  * -z io,stat,INTERVAL[,FILTER]...: frames and bytes per interval and filter column, parsed from
#    both tables (rows where some cell is non-zero, keyed by the interval start) must be identical;
#  * -z ub,tree (ubdump: the alias of -z ub,cfg): the packets per CFG of both tables agree.
# tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

# the rows of an io,stat table: "start<TAB>cells..." for rows with a non-zero cell
io_rows() {
    awk -F'|' '/ <> / {
        split($2, t, " <> "); st = t[1] + 0; line = sprintf("%.6f", st); nz = 0
        for (i = 3; i < NF; i++) { v = $i + 0; line = line "\t" v; if (v) nz = 1 }
        if (nz) print line }' "$1"
}

SPECS='io,stat,0
io,stat,0.00005,ub.rtph,ub.analysis.retransmission || ub.analysis.lost_segment,ub.lph.cfg in {6..7}
io,stat,0.001,,ub.error,frame.len > 100,ub.analysis.response_in'
n=0
nonzero=0
for c in "$S"/captures/audit_*.pcapng; do
    name=$(basename "$c" .pcapng)
    printf '%s\n' "$SPECS" > "$tmp/specs"
    while IFS= read -r z; do
        ts -n -2 -q -r "$c" -z "$z" > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z $z"; }
        "$U" -q -r "$c" -z "$z" > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z $z"; }
        io_rows "$tmp/ts.txt" > "$tmp/ts.rows"
        io_rows "$tmp/ub.txt" > "$tmp/ub.rows"
        [ -s "$tmp/ts.rows" ] && nonzero=$((nonzero + 1))
        cmp -s "$tmp/ts.rows" "$tmp/ub.rows" || {
            diff "$tmp/ts.rows" "$tmp/ub.rows" || true
            fail "$name: -z $z: ubdump's numbers differ from tshark's"
        }
        n=$((n + 1))
    done < "$tmp/specs"
    # ub,tree: packets per CFG
    ts -n -2 -q -r "$c" -z ub,tree > "$tmp/tree.ts" 2>/dev/null || fail "$name: tshark -z ub,tree"
    "$U" -q -r "$c" -z ub,tree > "$tmp/tree.ub" 2>/dev/null || fail "$name: ubdump -z ub,tree"
    awk '/^  CFG [0-9]+ / { print $2, $3 }' "$tmp/tree.ts" | sort > "$tmp/cfg.ts"
    awk '/^  CFG [0-9]+ / { print $2, $3 }' "$tmp/tree.ub" | sort > "$tmp/cfg.ub"
    [ -s "$tmp/cfg.ts" ] || { cat "$tmp/tree.ts"; fail "$name: no CFG counts in tshark -z ub,tree"; }
    cmp -s "$tmp/cfg.ts" "$tmp/cfg.ub" || { diff "$tmp/cfg.ts" "$tmp/cfg.ub" || true; fail "$name: -z ub,tree CFG counts differ"; }
    n=$((n + 1))
done
[ "$nonzero" -ge 20 ] || fail "only $nonzero io,stat tables with a non-zero cell (the test proves little)"
# a bad column filter is an error with its column
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'io,stat,1,ub.rtph.psn ==' 2> "$tmp/err"; then fail "bad io,stat filter accepted"; fi
grep -q "io,stat column 1 'ub.rtph.psn ==': column 15: missing value" "$tmp/err" || { cat "$tmp/err"; fail "io,stat filter error message"; }
echo "PASS t_stats_names ($n tables identical)"
