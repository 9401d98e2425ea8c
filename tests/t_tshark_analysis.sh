#!/bin/sh
# The Wireshark plugin's analysis and statistics (ub.analysis.*, -z conv/endpoints/srt/tree) in a real
# tshark, against ubdump: the plugin runs the same libubparse state engine as `ubdump --audit`.
#
#  * tshark runs unprivileged with WIRESHARK_PLUGIN_DIR = a private copy of the built ub.so, as in
#    t_tshark_plugin.sh; FAILS (never skips) when tshark, python3 or the plugin is missing or not loaded.
#  * ub.analysis.rule (frame, rule id) == ubdump --audit --audit-format json, on every sample capture
#    and two raw flit streams built here (one cut inside a unit); an end-of-capture finding needs
#    tshark -2 (single pass cannot show it).
#  * request/response: response_in / request_in / latency on transactions (audit_txn_clean,
#    cfg9_coherent), management (cfg6_mgmt), data <-> ack; symmetric links everywhere.
#  * TP sequence analysis on audit_rtp_lossy: retransmission / lost segment / NAK frames, consistent
#    with the audit's UB-TP-003 / UB-TP-006 / UB-TP-002 frames and ubdump -z ub,tp's per-channel counts.
#  * -z ub,srt == ubdump -z ub,latency / -z ub,mgmt counts (single pass and -2); -z conv,ub_tp lists the TP
#    channels of ubdump -z ub,tp; -z conv,ub / endpoints,ub / conv,ub_eid; -z ub,tree == ubdump -z ub,cfg.
#  * Source/Destination columns, conversation filter fields, colouring rules, the ub.analyze preference.
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }
info() { echo "  $*"; }

: "${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}"
: "${UB_BINARY_DIR:?UB_BINARY_DIR not set (run through ctest)}"
UBDUMP=${UBDUMP:?UBDUMP not set (run through ctest)}
UBGEN=${UBGEN:?UBGEN not set (run through ctest)}
CAPS=$UB_SOURCE_DIR/captures

command -v python3 >/dev/null 2>&1 || fail "python3 is not installed (scripts/deps.sh); needed to read ubdump's JSON audit"
command -v editcap >/dev/null 2>&1 || fail "editcap is not installed (Debian: apt-get install wireshark-common)"
[ -x "$UBDUMP" ] || fail "ubdump not built: $UBDUMP"

. "$UB_SOURCE_DIR/tests/tshark_setup.sh"
mkdir -p "$tmp/home3/.config/wireshark"
cp "$UB_SOURCE_DIR/dissector/profile/UnifiedBus/colorfilters" "$tmp/home3/.config/wireshark/colorfilters" || fail "colorfilters missing"
cp "$CAPS"/*.pcapng "$tmp/caps/" || fail "copy captures"
# raw flit stream (records of 3 flits): a 5-flit DLLDP and a NOB; and the same cut after the first
# record, so a unit is still open at the end of the capture (flushed after the first pass, as ubdump)
"$UBGEN" -w "$tmp/caps/gen_stream.pcapng" "$UB_SOURCE_DIR/tests/stream_dlldp.ub" > "$tmp/err.txt" 2>&1 || { cat "$tmp/err.txt"; fail "ubgen stream_dlldp.ub"; }
editcap -r "$tmp/caps/gen_stream.pcapng" "$tmp/caps/gen_stream_cut.pcapng" 1 > "$tmp/err.txt" 2>&1 || { cat "$tmp/err.txt"; fail "editcap"; }
# UB-TA-019 (RNR_Timer) planted trace of the reliable-transport tests
"$UBGEN" -w "$tmp/caps/gen_rt_rnr_ub.pcapng" "$UB_SOURCE_DIR/tests/rt/rt_rnr_ub.ub" > "$tmp/err.txt" 2>&1 || { cat "$tmp/err.txt"; fail "ubgen rt_rnr_ub.ub"; }

chmod -R a+rX "$tmp"
ts -G fields 2>/dev/null | awk -F'\t' '{ print $3 }' > "$tmp/fields.txt"
for f in ub.analysis ub.analysis.tp_channel ub.analysis.response_in ub.analysis.request_in ub.analysis.latency \
         ub.analysis.acked_in ub.analysis.acks_frame ub.analysis.expected_psn ub.analysis.rule ub.analysis.finding \
         ub.analysis.retransmission ub.analysis.out_of_order ub.analysis.lost_segment ub.analysis.duplicate_ack \
         ub.analysis.duplicate ub.analysis.nak ub.analysis.sack ub.analysis.tp_endpoint ub.cna; do
    grep -qx "$f" "$tmp/fields.txt" || fail "tshark -G fields lacks $f"
done
info "plugin loaded, analysis fields registered"

nfail=0
expect() { # expect WHAT WANT GOT
    if [ "$2" != "$3" ]; then
        echo "FAIL: $1:" >&2
        echo "  expected [$2]" >&2
        echo "  got      [$3]" >&2
        nfail=$((nfail + 1))
    fi
}
# fields CAP [tshark args...] -e ... -> lines (two-pass)
tf() {
    c=$1
    shift
    ts -n -2 -r "$tmp/caps/$c" -T fields "$@" 2>/dev/null
}
# frames CAP FILTER [args] -> space-separated frame numbers (two-pass)
frames() {
    c=$1
    f=$2
    shift 2
    ts -n -2 -r "$tmp/caps/$c" -Y "$f" "$@" -T fields -e frame.number 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}
# capture-specific options (Non-CRC mode sample): tshark and ubdump spelling
ts_opts() { [ -f "$UB_SOURCE_DIR/tests/golden/tshark/${1%.*}.opts" ] && grep -v '^#' "$UB_SOURCE_DIR/tests/golden/tshark/${1%.*}.opts" | tr '\n' ' '; }
ud_opts() { case $1 in noncrc.pcapng) echo --noncrc ;; *) echo "" ;; esac; }

# ---- 1. ub.analysis.rule == ubdump --audit (same engine), every sample capture
ncap=0
nfind=0
for cap in "$tmp"/caps/*.pcapng; do
    base=$(basename "$cap")
    # shellcheck disable=SC2046
    "$UBDUMP" -r "$cap" $(ud_opts "$base") --audit --audit-format json --audit-examples 100000 > "$tmp/audit.json" 2> /dev/null
    python3 - "$tmp/audit.json" > "$tmp/ud.rules" <<'PY' || fail "$base: cannot read ubdump's JSON audit"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rules"]:
    if not r["id"].startswith("UB-"):
        continue  # RoCEv2 / SUE / PCIe flit findings (docs/neighbours.md): compared on UB rules only (the plugin shows them on UB records)
    for f in r["findings"]:
        print(f["frame"], r["id"])
PY
    # (one run: the rules per frame and the expert items' summaries, "|" between occurrences)
    # shellcheck disable=SC2046
    tf "$base" $(ts_opts "$base") -E 'aggregator=|' -e frame.number -e ub.analysis.rule -e _ws.expert.message > "$tmp/ts.fields"
    awk -F'\t' '$2 != "" { n = split($2, r, "|"); for (i = 1; i <= n; i++) if (r[i] ~ /^UB-/) print $1, r[i] }' "$tmp/ts.fields" > "$tmp/ts.rules"
    sort "$tmp/ud.rules" > "$tmp/a"
    sort "$tmp/ts.rules" > "$tmp/b"
    if ! cmp -s "$tmp/a" "$tmp/b"; then
        echo "FAIL: $base: ub.analysis.rule differs from ubdump --audit (< ubdump, > tshark -2):" >&2
        diff "$tmp/a" "$tmp/b" | head -20 >&2
        nfail=$((nfail + 1))
    fi
    nfind=$((nfind + $(wc -l < "$tmp/a")))
    ncap=$((ncap + 1))
    # every finding is an expert info ("UB-TP-003: <title>"): as many as rules
    nexp=$(cut -f3 "$tmp/ts.fields" | tr '|' '\n' | grep -c '^UB-[A-Z][A-Z]-[0-9][0-9]*: ' || true)
    expect "$base: expert infos of findings" "$(wc -l < "$tmp/a" | tr -d ' ')" "$nexp"
done
[ $ncap -ge 22 ] || fail "only $ncap sample captures"
[ $nfind -ge 50 ] || fail "only $nfind findings over all samples: audit captures missing?"
info "$ncap captures: $nfind findings, ub.analysis.rule == ubdump --audit"

# rule filter, expert severity/group, text
expect 'ub.analysis.rule == "UB-TP-002"' "15" "$(frames audit_rtp_lossy.pcapng 'ub.analysis.rule == "UB-TP-002"')"
expect 'UB-TP-003 (retransmission of a PSN already sent)' "9 10 11" "$(frames audit_rtp_lossy.pcapng 'ub.analysis.rule == "UB-TP-003"')"
expect 'malformed: UB-DL-006 (BCRC) frames' "1 4 9" "$(frames malformed.pcapng 'ub.analysis.rule == "UB-DL-006"')"
# one expert item per rule: its summary is "<rule id>: <title>", the finding's details are on the rule item
ts -n -2 -r "$tmp/caps/audit_rtp_lossy.pcapng" -Y frame.number==20 -V > "$tmp/f20.txt" 2>/dev/null
expect 'finding expert text (rule summary)' "1" \
    "$(grep -c '^ *\[Expert Info (Error/Sequence): UB-TP-008: ack PSN goes backwards or beyond the highest PSN sent\]$' "$tmp/f20.txt")"
expect 'finding details on the rule item' "1" \
    "$(grep -c '^ *\[Audit rule: UB-TP-008 (ack PSN beyond the highest PSN sent on the channel; TP channel 0x010203->0x0a0b0c TPN 0x302->0x402; values 60, 51)\]$' "$tmp/f20.txt")"
# -z expert groups the findings per rule (3 retransmissions of UB-TP-003 on one line)
ts -n -2 -q -r "$tmp/caps/audit_rtp_lossy.pcapng" -z expert > "$tmp/zexp.txt" 2>/dev/null
expect '-z expert: one line per rule' "$(printf '%s\n' \
    '1 Sequence UB UB-TP-002: PSN gap never filled nor acknowledged: packets lost or skipped' \
    '1 Sequence UB UB-TP-008: ack PSN goes backwards or beyond the highest PSN sent' \
    '1 Sequence UB UB-TP-006: PSN not captured at first transmission (appeared later)' \
    '3 Sequence UB UB-TP-003: retransmission of a PSN already sent')" \
    "$(grep ' UB-[A-Z][A-Z]-[0-9]' "$tmp/zexp.txt" | tr -s ' ' | sed 's/^ //')"
expect 'decode finding keeps the decoder group (checksum)' "1" \
    "$(ts -n -2 -r "$tmp/caps/malformed.pcapng" -Y frame.number==1 -V 2>/dev/null | grep -c 'Expert Info (Error/Checksum): UB-DL-006')"
expect 'related frame of a retransmission finding' "4" \
    "$(tf audit_rtp_lossy.pcapng -Y frame.number==9 -e ub.analysis.related_frame)"

expect 'stream unit open at the end: its finding (UB-DL-003 stream_sync)' "1" \
    "$(frames gen_stream_cut.pcapng 'ub.analysis.rule == "UB-DL-003"')"
# end-of-capture finding (UB-TA-001 on malformed frame 5): only after the first pass
expect 'end-of-capture finding, -2' "5" "$(frames malformed.pcapng 'ub.analysis.rule == "UB-TA-001"')"
expect 'end-of-capture finding, single pass' "" \
    "$(ts -n -r "$tmp/caps/malformed.pcapng" -Y 'ub.analysis.rule == "UB-TA-001"' -T fields -e frame.number 2>/dev/null)"
# findings about the frame itself are known in single pass
expect 'single pass: finding of the current frame' "20" \
    "$(ts -n -r "$tmp/caps/audit_rtp_lossy.pcapng" -Y 'ub.analysis.rule == "UB-TP-008"' -T fields -e frame.number 2>/dev/null)"

# ---- 2. request <-> response
pairs() { # pairs CAP -> "req>rsp" list from response_in, and the same from request_in
    tf "$1" -e frame.number -e ub.analysis.response_in |
        awk -F'\t' '$2 != "" { n = split($2, r, ","); for (i = 1; i <= n; i++) print $1 ">" r[i] }' | sort > "$tmp/p1"
    tf "$1" -e frame.number -e ub.analysis.request_in |
        awk -F'\t' '$2 != "" { n = split($2, r, ","); for (i = 1; i <= n; i++) print r[i] ">" $1 }' | sort > "$tmp/p2"
    if ! cmp -s "$tmp/p1" "$tmp/p2"; then
        echo "FAIL: $1: response_in and request_in are not symmetric" >&2
        diff "$tmp/p1" "$tmp/p2" | head >&2
        nfail=$((nfail + 1))
    fi
    sort -t'>' -k1,1n -k2,2n "$tmp/p1" | tr '\n' ' ' | sed 's/ $//'
}
expect 'cfg9_coherent request > response' "1>2 3>4 5>6" "$(pairs cfg9_coherent.pcapng)"
expect 'cfg6_mgmt management request > response' "1>2 5>6 7>8 9>10" "$(pairs cfg6_mgmt.pcapng)"
expect 'audit_txn_clean pairs' \
    "1>3 5>7 9>11 13>15 18>20 22>26 28>31 29>31 30>31 32>33 34>35 36>37 38>39 40>41 42>43 44>45 46>47" \
    "$(pairs audit_txn_clean.pcapng)"
expect 'cfg9 latency (s) on responses' "2:0.000200000 4:0.000500000 6:0.000050000" \
    "$(tf cfg9_coherent.pcapng -Y ub.analysis.request_in -e frame.number -e ub.analysis.latency | tr '\t' ':' | tr '\n' ' ' | sed 's/ $//')"
expect 'management latency' "0.000100000" "$(tf cfg6_mgmt.pcapng -Y frame.number==2 -e ub.analysis.latency)"
expect 'response_in text names the opcode' "1" \
    "$(ts -n -2 -r "$tmp/caps/cfg6_mgmt.pcapng" -Y frame.number==1 -V 2>/dev/null | grep -c 'Response in frame: 2 (management Configuration Message)')"
# data <-> ack: TPACK of frame 3 acknowledges frames 1 and 2 of audit_rtp_lossy
expect 'data acked_in' "3,3" "$(tf audit_rtp_lossy.pcapng -Y 'frame.number <= 2' -e ub.analysis.acked_in | tr '\n' ',' | sed 's/,$//')"
expect 'ack acks_frame + latency' "1,2	0.000025000,0.000015000" "$(tf audit_rtp_lossy.pcapng -Y frame.number==3 -e ub.analysis.acks_frame -e ub.analysis.latency)"
for c in audit_txn_clean.pcapng audit_mgmt.pcapng audit_responder.pcapng cfg7_rtp.pcapng urpc.pcapng; do
    pairs "$c" > /dev/null
done
info "request/response and data/ack links"

# ---- 3. TP sequence analysis on audit_rtp_lossy (per-packet flags of the same engine)
L=audit_rtp_lossy.pcapng
expect 'retransmission frames' "8 9 10 11" "$(frames $L ub.analysis.retransmission)"
expect 'lost segment frames' "4 15" "$(frames $L ub.analysis.lost_segment)"
expect 'TPNAK frames' "5" "$(frames $L ub.analysis.nak)"
expect 'out of order / dup / dup ack' "" "$(frames $L 'ub.analysis.out_of_order || ub.analysis.duplicate || ub.analysis.duplicate_ack')"
expect 'expected PSN at the gap' "203:202 303:302" \
    "$(tf $L -Y ub.analysis.lost_segment -e ub.rtph.psn -e ub.analysis.expected_psn | tr '\t' ':' | tr '\n' ' ' | sed 's/ $//')"
expect 'Info column tag' "[TP Retransmission] " "$(tf $L -Y frame.number==9 -e _ws.col.Info | cut -c1-20)"
expect 'SACK flags (audit_rtp_sack)' "5 9 16 22" "$(frames audit_rtp_sack.pcapng ub.analysis.sack)"
# consistent with the audit: UB-TP-003 / UB-TP-006 are retransmissions, UB-TP-002 follows a gap
"$UBDUMP" -r "$CAPS/$L" --audit --audit-format json > "$tmp/lossy.json" 2>/dev/null
for r in UB-TP-003 UB-TP-006 UB-TP-002; do
    fl=retransmission
    [ $r = UB-TP-002 ] && fl=lost_segment
    want=$(python3 - "$tmp/lossy.json" "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(str(f["frame"]) for r in d["rules"] if r["id"] == sys.argv[2] for f in r["findings"]))
PY
)
    [ -n "$want" ] || { echo "FAIL: ubdump reports no $r on $L" >&2; nfail=$((nfail + 1)); }
    for fr in $want; do
        expect "$r frame $fr has ub.analysis.$fl" "$fr" "$(frames $L "frame.number == $fr && ub.analysis.$fl")"
    done
done
# and with ubdump -z ub,tp's per-channel counters (retx, lost, nak summed over the channels)
"$UBDUMP" -q -z ub,tp -r "$CAPS/$L" 2>&1 | awk '$1 == "RTP" { r += $9; l += $11; n += $14 } END { print r, l, n }' > "$tmp/ztp"
expect 'ubdump -z ub,tp retx/lost/nak totals' "$(cat "$tmp/ztp")" \
    "$(frames $L ub.analysis.retransmission | wc -w | tr -d ' ') $(frames $L ub.analysis.lost_segment | wc -w | tr -d ' ') $(frames $L ub.analysis.nak | wc -w | tr -d ' ')"
# TP channel index: both directions of a channel share it (4 channels in audit_rtp_clean)
expect 'tp_channel indexes' "0 1 2 3" \
    "$(tf audit_rtp_clean.pcapng -e ub.analysis.tp_channel | grep . | sort -nu | tr '\n' ' ' | sed 's/ $//')"
expect 'data and its ack share the channel' "0 0" "$(tf $L -Y 'frame.number in {1, 3}' -e ub.analysis.tp_channel | tr '\n' ' ' | sed 's/ $//')"
info "TP sequence analysis"

# ---- 4. statistics
# -z ub,srt vs ubdump -z ub,latency / -z ub,mgmt: per-row counts, single pass and -2
srt_ud() { "$UBDUMP" -q -z ub,latency -z ub,mgmt -r "$CAPS/$1" 2>&1 | sed -n 's/^\(.*\) (0x\([0-9a-f][0-9a-f]\)) *\([0-9][0-9]*\) .*/\2 \3/p' | sort; }
srt_ts() {
    c=$1
    shift
    ts -n -q "$@" -r "$tmp/caps/$c" -z ub,srt 2>/dev/null | awk '
        /^Filter: ub.btah.taopcode/ { t = "ta"; next } /^Filter: ub.mgmtetah.code/ { t = "mg"; next } /^Filter:/ { t = ""; next }
        (t == "ta" || t == "mg") && $1 ~ /^[0-9]+$/ { printf "%02x %s\n", $1, $(NF - 4) }' | sort
}
for c in audit_txn_clean.pcapng cfg9_coherent.pcapng cfg6_mgmt.pcapng audit_mgmt.pcapng audit_responder.pcapng; do
    want=$(srt_ud $c | tr '\n' ' ')
    [ -n "$want" ] || { echo "FAIL: ubdump -z ub,latency: no rows for $c" >&2; nfail=$((nfail + 1)); }
    expect "$c: -z ub,srt rows/counts (single pass)" "$want" "$(srt_ts $c | tr '\n' ' ')"
    expect "$c: -z ub,srt rows/counts (-2)" "$want" "$(srt_ts $c -2 | tr '\n' ' ')"
done
expect '-z ub,srt transport table (data -> ack, audit_rtp_lossy)' "2 9" \
    "$(ts -n -q -r "$tmp/caps/$L" -z ub,srt 2>/dev/null | awk '/^Filter: ub.rtph.tpopcode/ { t = 1; next } t && $1 ~ /^[0-9]+$/ { print $1, $(NF - 4) }')"

# conversation rows: "A <-> B total-frames" (endpoints may contain a space: "0x0001 (CTP)")
conv_rows() {
    awk '{ for (i = 1; i <= NF; i++) if ($i == "<->") s = i; c = 0
           for (i = 1; i <= NF; i++) if ($i == "bytes" && ++c == 3) tot = $(i - 2)
           if (!s || c < 3) next
           a = $1; for (i = 2; i < s; i++) a = a " " $i
           b = $(s + 1); for (i = s + 2; i <= NF && $i !~ /^[0-9]/; i++) b = b " " $i
           print a "|" b "|" tot; s = 0 }'
}
# -z conv,ub_tp: the TP channels of ubdump -z ub,tp (directions paired), with their packet counts
"$UBDUMP" -q -z ub,tp -r "$CAPS/audit_rtp_clean.pcapng" 2>&1 | awk '$1 == "RTP" && $3 == "->" { print $2, $4, $5 }' > "$tmp/ud.tp"
python3 - "$tmp/ud.tp" > "$tmp/ud.conv" <<'PY'
import sys
d = {}
for line in open(sys.argv[1]):
    a, b, n = line.split()
    k = tuple(sorted((a, b)))
    d[k] = d.get(k, 0) + int(n)
for (a, b), n in sorted(d.items()):
    print(a, b, n)
PY
ts -n -q -r "$tmp/caps/audit_rtp_clean.pcapng" -z conv,ub_tp 2>/dev/null | conv_rows |
    awk -F'|' '{ a = $1; b = $2; if (b < a) { t = a; a = b; b = t } print a, b, $3 }' | sort > "$tmp/ts.conv"
[ "$(wc -l < "$tmp/ud.conv")" -eq 4 ] || { echo "FAIL: ubdump -z ub,tp: expected 4 channels in audit_rtp_clean" >&2; nfail=$((nfail + 1)); }
expect '-z conv,ub_tp == ubdump -z ub,tp channels' "$(sort "$tmp/ud.conv" | tr '\n' ';')" "$(tr '\n' ';' < "$tmp/ts.conv")"
expect '-z conv,ub_tp CTP channels (cfg6_mgmt)' "0x0001 (CTP)|0x0010 (CTP)|4;0x0001 (CTP)|0x0020 (CTP)|7;" \
    "$(ts -n -q -r "$tmp/caps/cfg6_mgmt.pcapng" -z conv,ub_tp 2>/dev/null | conv_rows | sort | tr '\n' ';')"
expect '-z endpoints,ub_tp' "8" "$(ts -n -q -r "$tmp/caps/audit_rtp_clean.pcapng" -z endpoints,ub_tp 2>/dev/null | grep -c ':0x')"
expect '-z conv,ub (CNA / IP pairs)' "0x010203|0x0a0b0c|13;10.0.0.1|10.0.0.2|9;10.0.0.1|10.0.0.3|4;" \
    "$(ts -n -q -r "$tmp/caps/audit_rtp_clean.pcapng" -z conv,ub 2>/dev/null | conv_rows | tr '\n' ';')"
expect '-z endpoints,ub' "5" "$(ts -n -q -r "$tmp/caps/audit_rtp_clean.pcapng" -z endpoints,ub 2>/dev/null | grep -c -E '^(0x|10\.)')"
expect '-z conv,ub_eid' "0x00001|0x00002|11;0x00003|0x00001|2;" \
    "$(ts -n -q -r "$tmp/caps/audit_mgmt.pcapng" -z conv,ub_eid 2>/dev/null | conv_rows | tr '\n' ';')"
expect '-z conv,ub on UBoE (outer IP)' "192.168.1.1 <-> 192.168.1.2" \
    "$(ts -n -q -r "$tmp/caps/uboe.pcapng" -z conv,ub 2>/dev/null | awk '$2 == "<->" { print $1, $2, $3 }' | head -1)"

# -z ub,tree == ubdump -z ub,cfg (CFG, TAOpcode, TPOpcode, DLLCB type, management Code counts)
tree_cmp() {
    "$UBDUMP" -q -z ub,cfg -r "$CAPS/$1" 2>&1 | awk '
        /^CFG / { s = "cfg"; next } /^Header/ { s = ""; next } /^TAOpcode \(requests/ { s = "req"; next }
        /^TAOpcode \(responses/ { s = "rsp"; next } /^TPOpcode/ { s = "tp"; next } /^DLLCB type/ { s = "cb"; next }
        /^Management Code/ { s = "mg"; next } /^[A-Z]/ { s = ""; next }
        s != "" && /^  / { k = s == "cfg" ? NF - 1 : NF; n = $k; l = $1; for (i = 2; i < k; i++) l = l " " $i; print s "|" l "|" n }' | sort > "$tmp/ud.tree"
    ts -n -q -r "$tmp/caps/$1" -z ub,tree 2>/dev/null | awk '
        /^ CFG / { s = "cfg"; next } /^ TAOpcode \(requests/ { s = "req"; next } /^ TAOpcode \(responses/ { s = "rsp"; next }
        /^ TPOpcode/ { s = "tp"; next } /^ DLLCB type/ { s = "cb"; next } /^ Management Code/ { s = "mg"; next }
        /^  [^ ]/ && s != "" { k = NF - 4; l = $1; for (i = 2; i < k; i++) l = l " " $i; print s "|" l "|" $k }' | sort > "$tmp/ts.tree"
    if ! cmp -s "$tmp/ud.tree" "$tmp/ts.tree"; then
        echo "FAIL: $1: -z ub,tree differs from ubdump -z ub,cfg (< ubdump, > tshark):" >&2
        diff "$tmp/ud.tree" "$tmp/ts.tree" | head -20 >&2
        nfail=$((nfail + 1))
    fi
    [ "$(wc -l < "$tmp/ud.tree")" -ge 3 ] || { echo "FAIL: $1: too few -z ub,cfg rows" >&2; nfail=$((nfail + 1)); }
}
for c in audit_txn_clean.pcapng dllcb.pcapng cfg6_mgmt.pcapng audit_rtp_lossy.pcapng; do tree_cmp $c; done
info "statistics: srt, conv/endpoints (ub, ub_tp, ub_eid), tree"

# ---- 5. addresses, filters, colouring, preference
expect 'Source/Destination (CNA)' "0x010203	0x0a0b0c" "$(tf $L -Y frame.number==1 -e _ws.col.Source -e _ws.col.Destination)"
expect 'Source/Destination (CFG 3 IP)' "10.0.1.1	10.0.1.2" "$(tf $L -Y frame.number==13 -e _ws.col.Source -e _ws.col.Destination)"
expect 'Source (UBoE keeps the IP dissector'"'"'s)' "192.168.1.1" "$(tf uboe.pcapng -Y frame.number==1 -e _ws.col.Source)"
expect 'ub.cna conversation filter' "$(frames $L 'ub.nth.scna == 0x0a0b0c || ub.nth.dcna == 0x0a0b0c')" "$(frames $L 'ub.cna == 0x0a0b0c')"
expect 'ub.analysis.tp_endpoint filter' "13 14 15 16" "$(frames $L 'ub.analysis.tp_endpoint == "10.0.1.2:0x600"')"
ts_home home3 --color -n -2 -r "$tmp/caps/$L" -T fields -e frame.number -e frame.coloring_rule.name > "$tmp/color.txt" 2> "$tmp/err.txt"
if grep -q "Could not compile" "$tmp/err.txt"; then cat "$tmp/err.txt"; fail "dissector/profile/UnifiedBus/colorfilters: a rule does not compile"; fi
expect 'colour rule of a retransmission' "UB bad TP" "$(awk -F'\t' '$1 == 9 { print $2 }' "$tmp/color.txt")"
expect 'colour rule of an audit error' "UB audit error" "$(awk -F'\t' '$1 == 20 { print $2 }' "$tmp/color.txt")"
expect 'ub.analyze:FALSE turns the analysis off' "" \
    "$(ts -n -2 -o ub.analyze:FALSE -r "$tmp/caps/$L" -Y ub.analysis -T fields -e frame.number 2>/dev/null)"
expect 'ub.gaps_are_notes lowers UB-TP-002 to a note' "1" \
    "$(ts -n -2 -o ub.gaps_are_notes:TRUE -r "$tmp/caps/$L" -Y frame.number==15 -V 2>/dev/null | grep -c 'Expert Info (Note/Sequence): UB-TP-002')"
info "addresses, filters, colouring rules, preferences"

[ $nfail -eq 0 ] || fail "$nfail check(s) failed"
echo "PASS"
