#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubreplay against ubpeer on a veth pair, inside a user + network namespace this test creates
# (`unshare -rn`); ubreplay receives the answers and audits both directions live (--check).
#   every bundled audit capture: its requests (--requests) replayed as raw flit/packet records against
#     `ubpeer --raw`: exit 0 -- except audit_rtp_lossy and audit_responder, whose request streams break
#     the spec on purpose (a PSN the sender never sends; TASSN reuse, non-continuous addresses, wrong
#     payload lengths): their requester-side rule ids are asserted
#   every ubpeer fault knob: exit 1 and the rule ids it provokes (docs/peer.md)
#   UBoE Ethernet: NTH-based RTP requests converted with --cna-ip, answered and audited clean
#   a scenario with @expect lines passes, and fails at the right line with a fault (content, timing,
#     no answer), reported in SARIF and JUnit with the scenario file:line
#   lua/retry_storm.lua (a Lua scenario on raw flit records): clean, and UB-TA-003 + UB-SC-004 with a knob
#   safety: -i needs a named interface that exists; capabilities are gone while it runs
# Skipped, with a message, only where user/network namespaces cannot be created. Nothing leaves the
# namespace. No wall-clock thresholds: only exit statuses, rule ids, lines and packet counts.
set -u
: "${UBREPLAY:?}" "${UBPEER:?}" "${UBDUMP:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
netns_enter "$0" "$@"

peer_test_init t_replay_veth
veth_up

# peer NAME ARGS...: ubpeer in the background until stop_peer; returns when it is ready
peer() {
    name=$1
    shift
    start_peer "$name" "$tmp/$name.peer.out" "$tmp/$name.peer.err" "$@"
}

# replay NAME WANT_RC "WANT_IDS" "PEER_ARGS" "FAULT" UBREPLAY_ARGS...: WANT_IDS "*" = do not compare;
# PEER_ARGS are split on blanks, FAULT (one --fault value, may contain blanks) is passed as it is
replay() {
    name=$1 want=$2 wids=$3 pargs=$4 fault=$5
    shift 5
    # shellcheck disable=SC2086
    if [ -n "$fault" ]; then peer "$name" $pargs --fault "$fault"; else peer "$name" $pargs; fi ||
        { bad "$name: ubpeer not ready: $(cat "$tmp/$name.peer.err")"; return; }
    "$UBREPLAY" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
    rc=$?
    stop_peer
    got=$(report_ids "$tmp/$name.out")
    if [ "$rc" = "$want" ] && { [ "$wids" = "*" ] || [ "$got" = "$wids" ]; }; then ok; else
        bad "$name: exit $rc ids '$got', want exit $want ids '$wids'"
        head -30 "$tmp/$name.out"
        cat "$tmp/$name.err"
    fi
}

# ---------------------------------------------------------------- safety
"$UBREPLAY" -i ub-nosuch0 "$S/captures/audit_txn_clean.pcapng" > /dev/null 2> "$tmp/e.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "no interface" "$tmp/e.txt" && ok || bad "unknown interface: exit $rc $(cat "$tmp/e.txt")"
if ip link add ubbr0 type bridge 2>/dev/null && ip link set ubbr0 up; then
    # a bridge can have a NIC enslaved: it counts as physical unless ubpeer/ubreplay can tell otherwise
    "$UBREPLAY" -i ubbr0 --limit 1 "$S/captures/audit_txn_clean.pcapng" > /dev/null 2> "$tmp/br.txt"; rc=$?
    if grep -q allow-physical "$tmp/br.txt"; then
        [ $rc -eq 2 ] && ok || bad "bridge without --allow-physical: exit $rc"
        "$UBREPLAY" -i ubbr0 --allow-physical --limit 1 "$S/captures/audit_txn_clean.pcapng" > /dev/null 2>&1; rc=$?
        [ $rc -eq 0 ] && ok || bad "bridge with --allow-physical: exit $rc"
    else
        echo "note: this ubreplay treats a bridge as virtual: --allow-physical not exercised"
    fi
fi

# ---------------------------------------------------------------- every audit capture's requests
for cap in "$S"/captures/audit_*.pcapng; do
    n=$(basename "$cap" .pcapng)
    raw=flit
    case $n in audit_responder) raw=pkt ;; esac
    want=0 wids=*
    case $n in
    audit_rtp_lossy) want=1 ;;  # PSN 302 of the CFG 3 channel never sent: asserted below
    audit_responder) want=1 ;;  # requests with reused TASSNs, gaps in addresses, wrong lengths
    esac
    replay "req_$n" "$want" "$wids" "-i vb --raw $raw" "" -i va --raw "$raw" --requests --check \
        --save "$tmp/req_$n.pcapng" "$cap"
    # what was saved is the exchange: the requests out, the answers in
    outs=$("$UBDUMP" -r "$tmp/req_$n.pcapng" -T fields -e frame.number 2>/dev/null | wc -l)
    [ "$outs" -gt 0 ] && ok || bad "req_$n: nothing saved"
done
grep -q 'UB-TP-002' "$tmp/req_audit_rtp_lossy.out" && ok || bad "lossy: no UB-TP-002 for the PSN the sender skips"
grep -E '^error +UB-TA-011' "$tmp/req_audit_responder.out" > /dev/null && ok || bad "responder: no UB-TA-011"
grep -E '^error +UB-TA-017' "$tmp/req_audit_responder.out" > /dev/null && ok || bad "responder: no UB-TA-017"
# the same requests, audited by ubdump from the saved capture: same verdict as live
"$UBDUMP" -r "$tmp/req_audit_txn_clean.pcapng" -q --audit --response-timeout 0 > /dev/null 2>&1 && ok \
    || bad "ubdump --audit of the saved txn_clean run is not clean"

# ---------------------------------------------------------------- fault knobs (audit_txn_clean requests)
TXN=$S/captures/audit_txn_clean.pcapng
knob() { # NAME "IDS" FAULT
    replay "knob_$1" 1 "$2" "-i vb --raw flit" "$3" -i va --raw flit --requests --check --topspeed "$TXN"
}
# (RTP responses a drop loses are recovered: ubreplay's transport acks NAK the gap and the peer resends;
# a TP-bypass response has no such recovery)
knob drop_rsp "UB-TA-001" "drop:filter=ub.lph.cfg == 9"
knob drop_ack "UB-TP-018" "drop:on=ack,nth=8"
knob drop_req "UB-TA-001 UB-TP-010 UB-TP-018" "drop:on=req,nth=2"
knob duplicate "UB-TA-003" "duplicate:nth=1"
knob reorder_ack "UB-TP-008" "reorder:on=ack,nth=1"
knob corrupt_bcrc "*" "corrupt-bcrc:on=rsp,nth=2"
grep -E '^error +UB-DL-006' "$tmp/knob_corrupt_bcrc.out" > /dev/null && ok || bad "corrupt-bcrc: no UB-DL-006"
knob corrupt_icrc "*" "corrupt-icrc:on=rsp,nth=2"
grep -E '^error +UB-NW-005' "$tmp/knob_corrupt_icrc.out" > /dev/null && ok || bad "corrupt-icrc: no UB-NW-005"
knob wrong_tassn "*" "wrong-tassn:nth=1"
grep -E '^error +UB-TA-00[234]' "$tmp/knob_wrong_tassn.out" > /dev/null && ok || bad "wrong-tassn: no UB-TA-002/003/004"
knob wrong_msn "UB-MG-005 UB-MG-007" "wrong-msn:nth=1"
knob wrong_psn "*" "wrong-psn:nth=1,delta=1000"
grep -E '^error +UB-TP-008' "$tmp/knob_wrong_psn.out" > /dev/null && ok || bad "wrong-psn: no UB-TP-008"
knob wrong_opcode "UB-TA-004 UB-TA-017" "wrong-opcode:nth=1"
knob wrong_mgop "UB-MG-006" "wrong-opcode:filter=ub.mgmtetah"
knob no_response "UB-TA-001" 'no-response:filter=ub.btah.taopcode == "Read"'
# with --resend ubreplay's transport layer answers the TPNAK with a go-back-N resend: recovered, exit 0
replay knob_drop_req_resend 0 "" "-i vb --raw flit" "drop:on=req,nth=2" -i va --raw flit --requests --check --resend \
    --topspeed "$TXN"
grep -E '^note +UB-TP-003' "$tmp/knob_drop_req_resend.out" > /dev/null && ok || bad "--resend: no retransmission seen"
# delay within the response timeout: conformant
replay knob_delay 0 "" "-i vb --raw flit" "delay:delay=20ms" -i va --raw flit --requests --check "$TXN"

# ---------------------------------------------------------------- UBoE Ethernet, NTH RTP converted
replay eth_txn 0 "" "-i vb" "" -i va --requests --check --cna-ip 0x010203=10.1.2.3,0x0a0b0c=10.10.11.12 \
    --save "$tmp/eth.pcapng" "$TXN"
grep -q 'not convertible' "$tmp/eth_txn.out" && ok || bad "eth_txn: CTP/bypass/management not reported as not convertible"
"$UBDUMP" -r "$tmp/eth.pcapng" 2>/dev/null | grep -q 'UBoE 10\.10\.11\.12→10\.1\.2\.3' && ok || bad "eth_txn: no answer from 10.10.11.12"

# ---------------------------------------------------------------- answers received on another interface
# what arrives on va is mirrored (tc mirred) out of vc and received on vd: --rx-iface vd
if ip link add vc type veth peer name vd 2>/dev/null && ip link set vc up && ip link set vd up &&
    tc qdisc add dev va ingress 2>/dev/null &&
    { tc filter add dev va parent ffff: matchall action mirred egress mirror dev vc 2>/dev/null ||
      tc filter add dev va parent ffff: protocol all u32 match u32 0 0 action mirred egress mirror dev vc 2>/dev/null; }; then
    replay rx_iface 0 "" "-i vb --raw flit" "" -i va --raw flit --rx-iface vd --requests --check "$TXN"
    grep -q 'answers: [1-9][0-9]* received' "$tmp/rx_iface.out" && ok || bad "--rx-iface: no answers received"
    tc qdisc del dev va ingress 2>/dev/null
else
    echo "note: no tc ingress mirror here: --rx-iface is not exercised"
fi
"$UBREPLAY" --udp 127.0.0.1:9 --rx-iface vb "$TXN" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--rx-iface without -i accepted"

# ---------------------------------------------------------------- a scenario with @expect lines
SC=$S/tests/replay/write_read.ubs
replay sc_ok 0 "" "-i vb" "" -i va --scenario "$SC"
grep -q 'expectations 6 met of 6' "$tmp/sc_ok.out" "$tmp/sc_ok.err" && ok || bad "sc_ok: not 6 of 6 expectations met"
# a Read answered with a TAACK: content failure at the Read_response line (25)
replay sc_opcode 1 "*" "-i vb" 'wrong-opcode:filter=ub.btah.taopcode == "Read"' \
    -i va --scenario "$SC" --report sarif --report-output "$tmp/sc_opcode.sarif"
python3 - "$tmp/sc_opcode.sarif" <<'EOF' && ok || bad "sc_opcode: SARIF has no UB-SC-001 located at write_read.ubs line 25"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
hits = [loc for r in runs[0]["results"] if r["ruleId"] == "UB-SC-001" for loc in r["locations"]
        if loc["physicalLocation"]["artifactLocation"]["uri"].endswith("write_read.ubs")
        and loc["physicalLocation"]["region"]["startLine"] == 25]
sys.exit(0 if hits else 1)
EOF
# answers 80 ms late (window 50 ms + 10 ms): timing failure at the first expectation (line 15)
replay sc_late 1 "*" "-i vb" "delay:on=ack+rsp,delay=80ms" -i va --scenario "$SC" --report junit \
    --report-output "$tmp/sc_late.xml" --response-timeout 1000
grep -q 'UB-SC-002' "$tmp/sc_late.xml" && ok || bad "sc_late: JUnit without UB-SC-002"
grep -q 'write_read.ubs:15' "$tmp/sc_late.xml" && ok || bad "sc_late: JUnit does not name write_read.ubs:15"
# no answer to the Read: unmet expectation at line 25
replay sc_none 1 "*" "-i vb" 'no-response:filter=ub.btah.taopcode == "Read"' -i va --scenario "$SC"
grep -E '^error +UB-SC-003' "$tmp/sc_none.out" > /dev/null && ok || bad "sc_none: no UB-SC-003"
grep -q 'write_read.ubs:25' "$tmp/sc_none.out" && ok || bad "sc_none: the finding does not name line 25"

# ---------------------------------------------------------------- Lua scenario: a retry storm on one VL
# lua/retry_storm.lua (raw flit records): every Write answered by exactly one TAACK on every VL although
# the storm VL sends each Write 2 more times (TP duplicates); ubpeer answering duplicates again (the
# duplicate knob on its responses) breaks it
LS=$S/lua/retry_storm.lua
replay lua_storm 0 "" "-i vb --raw flit" "" -i va --raw flit --scenario "$LS" --var vl=2 --var copies=2 --var rounds=2 --within 500ms
grep -q 'expectations 10 met of 10' "$tmp/lua_storm.out" "$tmp/lua_storm.err" && ok ||
    bad "lua_storm: not 10 of 10 expectations met: $(grep -h expectations "$tmp/lua_storm.out" "$tmp/lua_storm.err")"
# the duplicated TAACK must fall in expect_none's window: it is sent right after the first, and the
# window is twice the first's latency plus `quiet` -- 250 ms here, so a loaded (ASan) run still sees it
replay lua_storm_dup 1 "UB-SC-004 UB-TA-003" "-i vb --raw flit" "duplicate:on=rsp" -i va --raw flit --scenario "$LS" --var vl=2 --var copies=2 --var rounds=2 --var quiet=0.25 --within 500ms

# ---------------------------------------------------------------- capabilities are gone while it runs
if peer caps -i vb --raw flit; then
    "$UBREPLAY" -i va --raw flit --check --loop 0 --max-duration 3s --pps 100 "$TXN" > /dev/null 2>&1 &
    RP=$!
    i=0
    capeff=
    while [ $i -lt 50 ] && [ "$capeff" != 0000000000000000 ]; do # until dropped (safety net: 5 s)
        sleep 0.1
        capeff=$(awk '/^CapEff:/ {print $2}' "/proc/$RP/status" 2>/dev/null)
        i=$((i + 1))
    done
    [ "$capeff" = 0000000000000000 ] && ok || bad "ubreplay CapEff '$capeff' while sending, want 0"
    kill "$RP" 2>/dev/null
    wait "$RP" 2>/dev/null
    stop_peer
else
    bad "caps: ubpeer not ready"
fi

ub_check_done
