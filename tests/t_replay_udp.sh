#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubreplay over UDP on the loopback, no privileges needed: ubpeer listens on 127.0.0.1 (a free port),
# ubreplay sends the UDP payloads (TPH ...) and judges the answers live.
#   requests of audit_txn_clean / audit_rtp_clean: exit 0; the JSON report carries the send statistics
#   a fault knob: exit 1 with its rule id; --save keeps both directions
#   the write/read scenario: passes; with a fault it fails at its line
#   --pps with --limit: exactly that many packets; --stats lines; the safety cap (exit 3)
# Only loopback addresses are used.
set -u
: "${UBREPLAY:?}" "${UBPEER:?}" "${UBDUMP:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
peer_test_init t_replay_udp
TXN=$S/captures/audit_txn_clean.pcapng
RTP=$S/captures/audit_rtp_clean.pcapng
SC=$S/tests/replay/write_read.ubs

# ---------------------------------------------------------------- clean exchanges
for cap in "$TXN" "$RTP"; do
    n=$(basename "$cap" .pcapng)
    if ! udp_peer "$n"; then bad "$n: ubpeer not ready"; continue; fi
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --requests --check --save "$tmp/$n.pcapng" --report json \
        --report-output "$tmp/$n.json" "$cap" > "$tmp/$n.out" 2>&1
    rc=$?
    stop_peer
    [ $rc -eq 0 ] && ok || { bad "$n: exit $rc"; cat "$tmp/$n.out"; }
    python3 - "$tmp/$n.json" <<'EOF' && ok || bad "$n: JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["replay"]
assert r["sent"] > 0 and r["failed"] == 0, r
assert r["answers"]["received"] > 0, r
assert d["tool"] == "ubreplay" if "tool" in d else True
EOF
    # both directions saved, in time order
    "$UBDUMP" -r "$tmp/$n.pcapng" -T fields -e frame.time_relative > "$tmp/$n.t" 2>/dev/null
    awk 'NR > 1 && $1 < prev { b = 1 } { prev = $1 } END { exit b || NR < 2 }' "$tmp/$n.t" && ok || bad "$n: saved capture not in time order"
    "$UBDUMP" -r "$tmp/$n.pcapng" -q --audit --response-timeout 0 > /dev/null 2>&1 && ok || bad "$n: saved capture does not audit clean"
done

# ---------------------------------------------------------------- a fault knob
if udp_peer knob 'no-response:filter=ub.btah.taopcode == "Read"'; then
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --requests --check "$TXN" > "$tmp/knob.out" 2>&1; rc=$?
    stop_peer
    [ $rc -eq 1 ] && [ "$(report_ids "$tmp/knob.out")" = "UB-TA-001" ] && ok || { bad "no-response: exit $rc ids '$(report_ids "$tmp/knob.out")'"; head -20 "$tmp/knob.out"; }
else
    bad "knob: ubpeer not ready"
fi

# ---------------------------------------------------------------- the scenario
if udp_peer sc; then
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --scenario "$SC" > "$tmp/sc.out" 2>&1; rc=$?
    stop_peer
    [ $rc -eq 0 ] && grep -q 'expectations 6 met of 6' "$tmp/sc.out" && ok || { bad "scenario: exit $rc"; cat "$tmp/sc.out"; }
fi
if udp_peer sc2 'wrong-opcode:filter=ub.btah.taopcode == "Read"'; then
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --scenario "$SC" --report json > "$tmp/sc2.json" 2> "$tmp/sc2.err"; rc=$?
    stop_peer
    [ $rc -eq 1 ] && ok || bad "scenario with wrong-opcode: exit $rc"
    python3 - "$tmp/sc2.json" <<'EOF' && ok || bad "scenario JSON: no UB-SC-001 at write_read.ubs:25"
import json, sys
d = json.dumps(json.load(open(sys.argv[1])))
assert "UB-SC-001" in d and "write_read.ubs" in d and ": 25" in d, d[:2000]
EOF
fi

# ---------------------------------------------------------------- rate, statistics, caps
if udp_peer rate; then
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --pps 2000 --limit 40 --loop 0 --stats 0.01 --json "$TXN" > "$tmp/rate.json" 2> "$tmp/rate.err"; rc=$?
    [ $rc -eq 0 ] && ok || bad "--pps --limit: exit $rc"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['replay']; assert d['sent']==40 and d['requested_pps']==2000, d" "$tmp/rate.json" \
        && ok || bad "--pps 2000 --limit 40: $(cat "$tmp/rate.json")"
    grep -q '^ubreplay: .* s: sent ' "$tmp/rate.err" && ok || bad "--stats: no periodic line"
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --topspeed --loop 0 --max-packets 100 "$TXN" > "$tmp/cap.out" 2>&1; rc=$?
    stop_peer
    [ $rc -eq 3 ] && grep -q 'safety cap' "$tmp/cap.out" && grep -q 'sent 100 packets' "$tmp/cap.out" && ok \
        || { bad "--max-packets 100: exit $rc"; cat "$tmp/cap.out"; }
fi

ub_check_done
