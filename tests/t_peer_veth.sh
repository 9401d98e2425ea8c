#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubpeer on an interface: inside a user + network namespace this test creates (`unshare -rn`), a
# veth pair va <-> vb; the tiny sender sends requests on va, ubpeer answers on vb through
# AF_PACKET and saves both directions (-w); `ubdump --audit` judges the saved capture.
#   UBoE Ethernet frames (App. E, with ICRC): audit_txn_clean / audit_rtp_clean requests clean;
#     PACKET_TX_RING clean; corrupt-icrc gives UB-NW-005 (+ the answer it voids)
#   --raw flit / pkt records (USER0/USER1 benches): audit_txn_clean (RTP, CTP, TP bypass, management,
#     enumeration) and audit_rtp_clean clean; corrupt-bcrc, wrong-msn, wrong-opcode give their ids
#   capabilities: CapEff of the running ubpeer is 0 (dropped once the socket is open)
# Skipped, with a message, only where user/network namespaces cannot be created.
# Nothing leaves the namespace.
set -u
: "${UBPEER:?}" "${PEER_SENDER:?}" "${UBDUMP:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
netns_enter "$0" "$@"

# ---- inside the private network namespace
peer_test_init t_peer_veth
veth_up

TXN=$S/captures/audit_txn_clean.pcapng
RTP=$S/captures/audit_rtp_clean.pcapng

"$UBPEER" -i ub-nosuch0 > "$tmp/e.txt" 2>&1; [ $? -eq 2 ] && ok || bad "unknown interface: exit not 2"
grep -q "no interface" "$tmp/e.txt" && ok || bad "unknown interface: message"
"$UBPEER" -i vb --raw nonsense > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--raw nonsense accepted"
"$UBPEER" -i vb --fault corrupt-bcrc > "$tmp/e.txt" 2>&1; [ $? -eq 2 ] && ok || bad "corrupt-bcrc on Ethernet accepted"

# interfaces that may reach a wire need --allow-physical (a bridge can have a NIC enslaved)
if ip link add ubbr0 type bridge 2>/dev/null && ip link set ubbr0 up; then
    "$UBPEER" -i ubbr0 --duration 0.1 > "$tmp/br.txt" 2>&1; rc=$?
    [ $rc -eq 2 ] && grep -q 'allow-physical' "$tmp/br.txt" && ok || bad "bridge without --allow-physical: exit $rc: $(cat "$tmp/br.txt")"
    "$UBPEER" -i ubbr0 --allow-physical --duration 0.1 -q > "$tmp/br.txt" 2>&1; rc=$?
    [ $rc -eq 0 ] && ok || bad "bridge with --allow-physical: exit $rc: $(cat "$tmp/br.txt")"
    "$UBPEER" -i vb --duration 0.1 -q > "$tmp/br.txt" 2>&1; rc=$?
    [ $rc -eq 0 ] && ok || bad "veth refused: exit $rc: $(cat "$tmp/br.txt")"
else
    echo "note: no bridge support here: the --allow-physical check is not exercised"
fi

# case NAME MODE(eth|raw) CAPTURE WANT_RC "IDS" PEER_ARGS...
case_run() {
    name=$1 mode=$2 cap=$3 want=$4 ids=$5
    shift 5
    n=$("$PEER_SENDER" --udp 127.0.0.1:9 --requests --dry ${mode:+--$mode} "$cap" 2>/dev/null | awk '{print $3}')
    [ "$mode" = raw ] && n=$("$PEER_SENDER" -i va --raw --requests --dry "$cap" 2>/dev/null | awk '{print $3}')
    [ "$mode" = eth ] && n=$("$PEER_SENDER" -i va --eth --requests --dry "$cap" 2>/dev/null | awk '{print $3}')
    if [ "${n:-0}" -le 0 ]; then bad "$name: nothing to send"; return; fi
    if ! run_peer "$name" "$n" -i vb --audit --response-timeout 0 "$@"; then bad "$name: ubpeer not ready"; cat "$tmp/$name.err"; return; fi
    [ "$PEER_READY" = vb ] && ok || bad "$name: ready file '$PEER_READY'"
    if [ "$name" = eth_txn ]; then # the capabilities are gone while it runs
        capeff=$(awk '/^CapEff:/ {print $2}' "/proc/$PEER_PID/status")
        [ "$capeff" = 0000000000000000 ] && ok || bad "ubpeer CapEff $capeff, want 0"
        grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$PEER_PID/status" && ok || bad "ubpeer NoNewPrivs not set"
    fi
    "$PEER_SENDER" -i va "--$mode" --requests "$cap" > "$tmp/$name.sent" 2>/dev/null
    grep -q "^sent $n\$" "$tmp/$name.sent" && ok || bad "$name: sender: $(cat "$tmp/$name.sent")"
    wait_peer "$name"; rc=$?
    [ $rc -eq "$want" ] && ok || { bad "$name: ubpeer --audit exit $rc, want $want"; cat "$tmp/$name.err"; }
    expect_audit "$name" "$want" "$ids"
    peer_audit_ids "$name"
    [ "$PEER_IDS" = "$ids" ] && ok || bad "$name: ubpeer --audit ids '$PEER_IDS', want '$ids'"
}

# ---------------------------------------------------------------- UBoE Ethernet frames
case_run eth_txn eth "$TXN" 0 ""
case_run eth_rtp eth "$RTP" 0 ""
case_run eth_ring eth "$TXN" 0 "" --tx-ring
grep -q PACKET_TX_RING "$tmp/eth_ring.out" && ok || bad "--tx-ring: ready line does not say PACKET_TX_RING"
case_run eth_icrc eth "$TXN" 1 "UB-NW-005 UB-TA-001 UB-TP-002" --fault "corrupt-icrc:on=rsp,nth=2"
# what was saved is Ethernet, both directions
"$UBDUMP" -r "$tmp/eth_txn.pcapng" 2>/dev/null | grep -q 'UBoE 10\.10\.11\.12→10\.1\.2\.3' && ok || bad "eth_txn: no answer from 10.10.11.12 saved"

# ---------------------------------------------------------------- raw records (test-bench framing)
case_run raw_txn raw "$TXN" 0 "" --raw flit
case_run raw_rtp raw "$RTP" 0 "" --raw pkt
case_run raw_bcrc raw "$TXN" 1 "UB-DL-006 UB-TA-001 UB-TP-002" --raw flit --fault "corrupt-bcrc:on=rsp,nth=2"
case_run raw_msn raw "$TXN" 1 "UB-MG-005 UB-MG-007" --raw flit --fault "wrong-msn:nth=1"
case_run raw_mgop raw "$TXN" 1 "UB-MG-006" --raw flit --fault "wrong-opcode:filter=ub.mgmtetah"

ub_check_done
