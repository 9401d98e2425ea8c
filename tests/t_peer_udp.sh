#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubpeer over UDP on the loopback, no privileges: the requests of captures/audit_txn_clean and
# audit_rtp_clean (their RTP transport part, as UDP payloads) sent by a tiny sender from 127.0.0.2,
# ubpeer -w saves both directions, `ubdump --audit` judges the saved capture: clean without faults
# (exit 0), and each fault knob gives exit 1 with the rule ids docs/peer.md lists for it.
# Also: usage errors, --ready-file with port 0, the delay knob (answers at least D later).
# Sends only to 127.0.0.1.
set -u
: "${UBPEER:?}" "${PEER_SENDER:?}" "${UBDUMP:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
peer_test_init t_peer_udp

TXN=$S/captures/audit_txn_clean.pcapng
RTP=$S/captures/audit_rtp_clean.pcapng
# a second loopback address for the sender, so that the two directions have different addresses
SRC=127.0.0.2
"$PEER_SENDER" --udp 127.0.0.1:9 --bind $SRC --requests --dry "$TXN" > /dev/null 2>&1 || SRC=
bind_opt() { [ -n "$SRC" ] && echo "--bind $SRC"; }
[ -n "$SRC" ] || echo "note: 127.0.0.2 not usable here: sender and peer share 127.0.0.1"

# ---------------------------------------------------------------- usage
"$UBPEER" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no endpoint: exit not 2"
"$UBPEER" --udp 127.0.0.1:0 -i lo > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "two endpoints: exit not 2"
"$UBPEER" --udp 127.0.0.1:0 --fault explode > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "bad fault: exit not 2"
"$UBPEER" --udp 127.0.0.1:0 --fault corrupt-icrc > "$tmp/u.txt" 2>&1; [ $? -eq 2 ] && ok || bad "corrupt-icrc over UDP accepted"
grep -q 'no ICRC' "$tmp/u.txt" && ok || bad "corrupt-icrc over UDP: no reason given"
"$UBPEER" --help | grep -q 'FAULTS' && ok || bad "--help has no FAULTS section"
"$UBPEER" --udp 127.0.0.1:0 -o nonsense=1 > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "-o nonsense accepted"
"$UBPEER" --udp 127.0.0.1:0 -o bitmap_order=2 > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "-o bitmap_order=2 accepted"
"$UBPEER" --udp 127.0.0.1:0 -o bitmap_order=1 -o tah_fmt.7=compact --duration 0.05 -q > /dev/null 2>&1; [ $? -eq 0 ] && ok || bad "-o valid options refused"
"$UBPEER" -o help | grep -q bitmap_order && ok || bad "-o help does not list the options"
"$UBPEER" --udp 127.0.0.1:0 --audit-format yaml > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--audit-format yaml accepted"
# --audit with a JSON report in a file: valid JSON, nothing received, PASS
"$UBPEER" --udp 127.0.0.1:0 --duration 0.05 -q --audit-format json --audit-output "$tmp/a.json" > /dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && ok || bad "--audit-format json: exit $rc"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/a.json" && ok || bad "--audit-output: not JSON"
fi

# ---------------------------------------------------------------- clean exchanges
for cap in "$TXN" "$RTP"; do
    name=clean_$(basename "$cap" .pcapng)
    n=$("$PEER_SENDER" --udp 127.0.0.1:9 --requests --dry "$cap" 2>/dev/null | awk '{print $3}')
    [ "${n:-0}" -gt 0 ] && ok || bad "$name: nothing to send"
    if run_peer "$name" "$n" --udp 127.0.0.1:0 --audit --response-timeout 0; then ok; else bad "$name: ubpeer not ready"; cat "$tmp/$name.err"; continue; fi
    grep -q "^ubpeer: listening on udp 127.0.0.1:$PEER_READY\$" "$tmp/$name.out" && ok || bad "$name: ready line"
    # shellcheck disable=SC2046
    "$PEER_SENDER" --udp "127.0.0.1:$PEER_READY" $(bind_opt) --requests "$cap" > "$tmp/$name.sent" 2>/dev/null
    grep -q "^sent $n\$" "$tmp/$name.sent" && ok || bad "$name: sender: $(cat "$tmp/$name.sent")"
    wait_peer "$name"; rc=$?
    [ $rc -eq 0 ] && ok || bad "$name: ubpeer exit $rc"
    expect_audit "$name" 0 ""
    grep -q '^result: PASS' "$tmp/$name.out" && ok || bad "$name: ubpeer --audit did not PASS: $(tail -3 "$tmp/$name.out")"
    # every request answered: acks and responses follow each request (out = what ubpeer sent)
    out=$("$UBDUMP" -r "$tmp/$name.pcapng" -q 2>/dev/null | awk '{print $1}')
    [ "${out:-0}" -gt "$n" ] && ok || bad "$name: only $out packets saved for $n requests"
done

# ---------------------------------------------------------------- fault knobs (audit_txn_clean requests)
n=$("$PEER_SENDER" --udp 127.0.0.1:9 --requests --dry "$TXN" 2>/dev/null | awk '{print $3}')
fault_case() { # NAME FAULT "IDS": ubdump on the saved capture and ubpeer's own --audit agree
    if ! run_peer "$1" "$n" --udp 127.0.0.1:0 --fault "$2" --audit --response-timeout 0; then bad "$1: ubpeer not ready"; cat "$tmp/$1.err"; return; fi
    # shellcheck disable=SC2046
    "$PEER_SENDER" --udp "127.0.0.1:$PEER_READY" $(bind_opt) --requests "$TXN" > /dev/null 2>&1
    wait_peer "$1"; rc=$?
    [ $rc -eq 1 ] && ok || bad "$1: ubpeer --audit exit $rc, want 1"
    expect_audit "$1" 1 "$3"
    peer_audit_ids "$1"
    [ "$PEER_IDS" = "$3" ] && ok || bad "$1: ubpeer --audit ids '$PEER_IDS', want '$3'"
}
fault_case drop_rsp "drop:nth=2" "UB-TA-001 UB-TP-002"
fault_case drop_ack "drop:on=ack,nth=8" "UB-TP-018"
fault_case drop_req "drop:on=req,nth=2" "UB-TA-001 UB-TP-002 UB-TP-010 UB-TP-018"
fault_case duplicate "duplicate:nth=1" "UB-TA-003"
fault_case reorder_ack "reorder:on=ack,nth=1" "UB-TP-008"
fault_case wrong_tassn "wrong-tassn:nth=1" "UB-TA-001 UB-TA-002"
fault_case wrong_psn "wrong-psn:nth=1" "UB-TP-008 UB-TP-012"
fault_case wrong_opcode "wrong-opcode:nth=1" "UB-TA-004 UB-TA-017"
fault_case no_response "no-response:filter=ub.btah.taopcode == \"Read\"" "UB-TA-001"
fault_case rate "no-response:rate=1" "UB-TA-001"

# ---------------------------------------------------------------- delay: same answers, at least D later
if run_peer delay "$n" --udp 127.0.0.1:0 --fault "delay:delay=50ms"; then
    # shellcheck disable=SC2046
    "$PEER_SENDER" --udp "127.0.0.1:$PEER_READY" $(bind_opt) --requests "$TXN" > /dev/null 2>&1
    wait_peer delay
    expect_audit delay 0 ""
    # the first Read_response leaves >= 50 ms after the first request (a lower bound by construction)
    "$UBDUMP" -r "$tmp/delay.pcapng" -T fields -e frame.time_relative -e ub.atah.taopcode > "$tmp/delay.txt" 2>/dev/null
    awk -F'\t' 'NR == 1 { t0 = $1 } $2 == "0x12" && !seen { seen = 1; if ($1 - t0 >= 0.050) ok = 1 } END { exit ok ? 0 : 1 }' \
        "$tmp/delay.txt" && ok || { bad "delay: first Read_response earlier than 50 ms"; head -5 "$tmp/delay.txt"; }
else
    bad "delay: ubpeer not ready"
fi

# ---------------------------------------------------------------- SIGTERM: clean stop with a summary
if run_peer sig 1000000 --udp 127.0.0.1:0; then
    kill -TERM "$PEER_PID"
    wait "$PEER_PID"; rc=$?
    [ $rc -eq 0 ] && ok || bad "SIGTERM: exit $rc"
    "$UBPEER" --udp 127.0.0.1:0 --count 1 --duration 0.2 > /dev/null 2>&1; rc=$?
    [ $rc -eq 0 ] && ok || bad "--duration: exit $rc"
else
    bad "sig: ubpeer not ready"
fi

ub_check_done
