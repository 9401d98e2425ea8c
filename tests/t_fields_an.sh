#!/bin/sh
# ubdump -T fields -e ub.analysis.* / ub.stream.* (issue #10): on EVERY bundled capture, every
# ub.analysis.* and ub.stream.* field the plugin registers (tshark -G fields: anfields.h's table,
# the TP-analysis expert items, ub.analysis.finding) prints exactly what `tshark -n -2 -T fields`
# prints with our plugin, line by line; repeated occurrences under -E occurrence / aggregator /
# quote / separator too. ubdump -G fields lists the same names. Then explicit values, so the test
# fails if both tools break the same way.
# No field is exempt. tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS
# (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

# the plugin's fields, and ubdump's list of them
ts -G fields 2> "$tmp/g.err" | awk -F'\t' '$1 == "F" && $3 ~ /^ub\.(analysis|stream)(\.|$)/ { print $3 }' | sort -u > "$tmp/fields"
"$U" -G fields | awk -F'\t' '$1 ~ /^ub\.(analysis|stream)(\.|$)/ { print $1 }' | sort -u > "$tmp/ufields"
nf=$(wc -l < "$tmp/fields")
[ "$nf" -ge 25 ] || fail "tshark lists only $nf ub.analysis.*/ub.stream.* fields"
cmp -s "$tmp/fields" "$tmp/ufields" || { diff "$tmp/fields" "$tmp/ufields" || true; fail "ubdump -G fields lists other analysis fields than the plugin (< tshark, > ubdump)"; }
E=
while IFS= read -r f; do E="$E -e $f"; done < "$tmp/fields"

same() { # LABEL: $tmp/ts.txt vs $tmp/ub.txt
    cmp -s "$tmp/ts.txt" "$tmp/ub.txt" && return 0
    diff "$tmp/ts.txt" "$tmp/ub.txt" | head -20 || true
    fail "$1: ubdump's output differs from tshark's (< tshark, > ubdump)"
}
ncap=0 nval=0
for c in "$S"/captures/*.pcapng; do
    name=$(basename "$c" .pcapng)
    uo= to=
    [ "$name" = noncrc ] && uo="--noncrc" to="-o ub.crc_mode:noncrc"
    # shellcheck disable=SC2086
    ts -n -2 $to -r "$c" -T fields -E header=y -E separator=/t -e frame.number $E > "$tmp/ts.txt" 2> "$tmp/ts.err" ||
        { cat "$tmp/ts.err"; fail "$name: tshark -T fields"; }
    # shellcheck disable=SC2086
    "$U" $uo -r "$c" -T fields -E header=y -E separator=/t -e frame.number $E > "$tmp/ub.txt" 2> "$tmp/ub.err" ||
        { cat "$tmp/ub.err"; fail "$name: ubdump -T fields"; }
    same "$name: all analysis fields"
    cp "$tmp/ub.txt" "$tmp/$name.txt"
    nval=$((nval + $(awk -F'\t' 'NR > 1 { for (i = 2; i <= NF; i++) if ($i != "") n++ } END { print n + 0 }' "$tmp/ub.txt")))
    ncap=$((ncap + 1))
done
[ "$ncap" -ge 30 ] || fail "only $ncap bundled captures"
[ "$nval" -ge 1500 ] || fail "only $nval non-empty analysis values compared (the test proves little)"
# every field has a value somewhere, except the TP flags no bundled capture shows
for f in $(cat "$tmp/fields"); do
    case $f in ub.analysis.duplicate | ub.analysis.duplicate_ack | ub.analysis.out_of_order) continue ;; esac
    col=$(head -n 1 "$tmp/uboe.txt" | tr '\t' '\n' | grep -nx "$f" | cut -d: -f1)
    cat "$tmp"/*.txt | awk -F'\t' -v c="$col" 'FNR > 1 && $c != "" && $c != "'"$f"'" { x = 1 } END { exit !x }' ||
        fail "$f has no value in any bundled capture (the comparison proves nothing for it)"
done

# repeated occurrences with every -E option (tshark 4.0: occurrence f|l|a)
EO='-e frame.number -e ub.analysis.rule -e ub.analysis.finding -e ub.analysis.latency -e ub.analysis.tp_endpoint -e ub.analysis.related_frame -e ub.stream.unit'
for opts in "-E occurrence=l -E aggregator=/s -E separator=, -E quote=s" "-E occurrence=f -E quote=d -E header=y" \
    "-E aggregator=; -E separator=/s"; do
    for c in dllcb malformed audit_rtp_lossy stream; do
        # shellcheck disable=SC2086
        ts -n -2 -r "$S/captures/$c.pcapng" -T fields $opts $EO > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "tshark $opts"; }
        # shellcheck disable=SC2086
        "$U" -r "$S/captures/$c.pcapng" -T fields $opts $EO > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "ubdump $opts"; }
        same "$c: $opts"
    done
done

# known values (frame: field = value)
val() { # capture frame field expected
    got=$("$U" -r "$S/captures/$1.pcapng" -T fields -e frame.number -e "$3" | awk -F'\t' -v n="$2" '$1 == n { print $2 }')
    [ "$got" = "$4" ] || fail "$1 frame $2: $3 = '$got', expected '$4'"
}
val audit_rtp_lossy 3 ub.analysis.acks_frame 1,2
val audit_rtp_lossy 3 ub.analysis.latency 0.000025000,0.000015000
val audit_rtp_lossy 4 ub.analysis.expected_psn 202
val audit_rtp_lossy 4 ub.analysis.lost_segment 1
val audit_rtp_lossy 4 ub.analysis.acked_in 12
val audit_rtp_lossy 8 ub.analysis.rule UB-TP-006
val audit_rtp_lossy 1 ub.analysis.tp_endpoint 0x010203:0x301,0x0a0b0c:0x401
val audit_txn_clean 1 ub.analysis.response_in 3
val audit_txn_clean 3 ub.analysis.request_in 1
val audit_txn_clean 3 ub.analysis.latency 0.000010000
val dllcb 4 ub.analysis.rule UB-DL-016,UB-DL-010,UB-DL-010,UB-DL-010,UB-DL-010
val dllcb 4 ub.analysis.finding 1,1,1,1,1
val audit_mgmt 3 ub.analysis.related_frame 1,2
val malformed 5 ub.analysis.rule UB-DL-005,UB-TA-001
val stream 1 ub.stream.open_bytes 40
val stream 1 ub.stream.continued_in 2
val stream 3 ub.stream.unit 1,2
val stream 6 ub.stream.started_in 5
val uboe 1 ub.analysis 1
# the analysis fields in a -Y selection, and an unknown analysis name is refused
got=$("$U" -r "$S/captures/audit_rtp_lossy.pcapng" -Y ub.analysis.lost_segment -T fields -e frame.number -e ub.analysis.expected_psn | tr '\n' ' ')
[ "$got" = "4	202 15	302 " ] || fail "-Y ub.analysis.lost_segment -e ub.analysis.expected_psn: '$got'"
if "$U" -r "$S/captures/uboe.pcapng" -T fields -e ub.analysis.nosuch 2> "$tmp/err"; then fail "unknown field accepted"; fi
grep -q "unknown field 'ub.analysis.nosuch'" "$tmp/err" || { cat "$tmp/err"; fail "unknown field message"; }
echo "PASS t_fields_an ($nf fields identical to tshark on $ncap captures, $nval values; -E options; 19 known values)"
