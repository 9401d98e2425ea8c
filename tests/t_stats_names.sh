#!/bin/sh
# tshark's statistics in ubdump, byte for byte (issue #10 item 3): on EVERY bundled capture the
# output of `ubdump -q -z NAME...` equals `tshark -n -2 -q -z NAME...` with our plugin for
#   -z ub,tree, conv,ub, endpoints,ub, conv,ub_tp, endpoints,ub_tp, conv,ub_eid, endpoints,ub_eid,
#      io,stat,INTERVAL[,FILTER]... (five specs: whole capture, per-interval with filter columns,
#      long filters that wrap, many columns that widen the table)
#   -z ub,srt (the plugin's three SRT tables: request TAOpcode, management Code, ack TPOpcode rows)
#   -z expert on the captures where every expert item tshark shows is UB's (Wireshark's own
#      dissectors add TCP/UDP/IB/... items ubdump does not decode: those captures are listed).
# Nothing is normalised (no line of these tables depends on the wall clock or the file name).
# (ubdump's richer response-time table, with percentiles and a histogram, is -z ub,latency.)
# tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

# ubdump prints its tables in a fixed order; tshark in the reverse order of its -z options
ZU='-z io,stat,0 -z ub,tree -z endpoints,ub -z conv,ub -z endpoints,ub_eid -z conv,ub_eid -z endpoints,ub_tp -z conv,ub_tp'
ZT='-z conv,ub_tp -z endpoints,ub_tp -z conv,ub_eid -z endpoints,ub_eid -z conv,ub -z endpoints,ub -z ub,tree -z io,stat,0'
IOSPECS='io,stat,0.00005,ub.rtph,ub.analysis.retransmission || ub.analysis.lost_segment,ub.lph.cfg in {6..7}
io,stat,0.001,,ub.error,frame.len > 100,ub.analysis.response_in
io,stat,0.05,ub,!ub,ub.analysis.tp_endpoint contains "0x"
io,stat,0.0005,ub.rtph.psn >= 0 && ub.btah.taopcode == 0x03 && frame.len > 60 && !ub.error && ub.rtph.tpopcode != 0x02 && ub.maetah.length > 0 && ub.btah.ini_tassn < 60000 && frame.number > 1,ub.nth.scna==0x0102||ub.nth.dcna==0x0304||ub.rtph.srctpn==0x301||ub.rtph.dsttpn==0x401||frame.len>=1000||ub.lph.cfg==9,,ub.analysis.latency > 0.000001 || ub.analysis.rule == "UB-TP-003"
io,stat,0.0001,ub.rtph,ub.btah,ub.atah,ub.lph,ub.nth,ub.icrc,ub.payload,ub.error,ub.lch,frame.len>100,frame.len<=100,ub.rtph.psn >= 0 && ub.btah.taopcode == 0x03 && frame.len > 60 && !ub.error && ub.rtph.tpopcode != 0x02 && ub.maetah.length > 0 && ub.btah.ini_tassn < 60000 && frame.number > 1 && frame.number < 100000 && ub.rtph.psn < 100000 && ub.rtph.tpmsn < 100000 && ub.btah.ini_rc_id != 0x999999 && frame.cap_len > 1'
# (4th: long filters wrapped at the last space before the border, one without spaces cut at the
# border, an empty column; 5th: twelve columns widen the table, a long filter wraps inside it;
# noncrc's out-of-order frame counts in each column's own last interval, as tshark's taps)
printf '%s\n' "$IOSPECS" > "$tmp/iospecs"

# same LABEL: tshark's output in $tmp/ts.txt, ubdump's in $tmp/ub.txt
same() {
    cmp -s "$tmp/ts.txt" "$tmp/ub.txt" && return 0
    diff "$tmp/ts.txt" "$tmp/ub.txt" | head -20 || true
    fail "$1: ubdump's output differs from tshark's (< tshark, > ubdump)"
}
n=0 ncap=0 nexp=0 nconv=0 nrows=0 nsrt=0 nwrap=0
skipped=
for c in "$S"/captures/*.pcapng; do
    name=$(basename "$c" .pcapng)
    uo= to=
    [ "$name" = noncrc ] && uo="--noncrc" to="-o ub.crc_mode:noncrc"
    ncap=$((ncap + 1))
    # shellcheck disable=SC2086
    ts -n -2 -q $to -r "$c" $ZT > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark $ZT"; }
    # shellcheck disable=SC2086
    "$U" -q $uo -r "$c" $ZU > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump $ZU"; }
    same "$name: $ZU"
    n=$((n + 8))
    grep -q ' <-> ' "$tmp/ts.txt" && nconv=$((nconv + 1))
    while IFS= read -r z; do
        # shellcheck disable=SC2086
        ts -n -2 -q $to -r "$c" -z "$z" > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z $z"; }
        # shellcheck disable=SC2086
        "$U" -q $uo -r "$c" -z "$z" > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z $z"; }
        same "$name: -z $z"
        nrows=$((nrows + $(grep -c '^| [0-9.]* <> .* |  *[1-9]' "$tmp/ts.txt" || true)))
        nwrap=$((nwrap + $(grep -c '^|        [^ ]' "$tmp/ts.txt" || true))) # a wrapped filter's continuation
        n=$((n + 1))
    done < "$tmp/iospecs"
    # shellcheck disable=SC2086
    ts -n -2 -q $to -r "$c" -z ub,srt > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z ub,srt"; }
    # shellcheck disable=SC2086
    "$U" -q $uo -r "$c" -z ub,srt > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z ub,srt"; }
    same "$name: -z ub,srt"
    nsrt=$((nsrt + $(grep -c '^ *[0-9][0-9]*  .* [1-9][0-9]*  *[0-9]*\.[0-9]\{6\} ' "$tmp/ts.txt" || true)))
    n=$((n + 1))
    # shellcheck disable=SC2086
    ts -n -2 -q $to -r "$c" -z expert > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z expert"; }
    if awk 'NF >= 4 && $1 ~ /^[0-9]+$/ && $3 != "UB" { x = 1 } END { exit !x }' "$tmp/ts.txt"; then
        skipped="$skipped $name"
        continue
    fi
    # shellcheck disable=SC2086
    "$U" -q $uo -r "$c" -z expert > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z expert"; }
    same "$name: -z expert"
    grep -q '^Errors\|^Warns\|^Notes\|^Chats' "$tmp/ts.txt" && nexp=$((nexp + 1))
    n=$((n + 1))
done
[ "$ncap" -ge 30 ] || fail "only $ncap bundled captures"
[ "$nconv" -ge 20 ] || fail "only $nconv captures with conversations (the test proves little)"
[ "$nwrap" -ge 100 ] || fail "only $nwrap wrapped io,stat filter lines (the test proves little)"
[ "$nrows" -ge 40 ] || fail "only $nrows non-empty io,stat rows (the test proves little)"
[ "$nsrt" -ge 40 ] || fail "only $nsrt -z ub,srt rows with calls (the test proves little)"
[ "$nexp" -ge 15 ] || fail "only $nexp captures with UB expert items compared"
echo "  -z expert not compared (Wireshark's other dissectors add items):$skipped"
# a bad column filter is an error with its column
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'io,stat,1,ub.rtph.psn ==' 2> "$tmp/err"; then fail "bad io,stat filter accepted"; fi
grep -q "io,stat column 1 'ub.rtph.psn ==': column 15: missing value" "$tmp/err" || { cat "$tmp/err"; fail "io,stat filter error message"; }
# tshark's calculations (COUNT/SUM/MIN/MAX/AVG/LOAD) are refused with a reason, not as an unknown field
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'io,stat,1,ub.rtph,AVG(frame.len)frame.len' 2> "$tmp/err"; then fail "io,stat AVG() accepted"; fi
grep -q "io,stat column 2 'AVG(frame.len)frame.len': tshark's AVG(FIELD) calculations are not supported" "$tmp/err" || { cat "$tmp/err"; fail "io,stat AVG() message"; }
echo "PASS t_stats_names ($n tables identical on $ncap captures, $nrows io,stat rows with frames, $nsrt ub,srt rows, expert on $nexp)"
