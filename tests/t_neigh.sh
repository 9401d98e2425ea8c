#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# Neighbouring interconnects end to end (docs/neighbours.md): the sample captures of RoCEv2 (on Ethernet
# and inside UB CFG 3), SUE (Standard and AFH framing) and PCIe 6 flits decode with the expected values,
# none of them is counted as UB, UDP 4791 is split between RoCEv2 and SUE, and the audit finds every
# planted reliability violation at its frame (and nothing else).
set -eu
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}"
U=$UBDUMP
C=$UB_SOURCE_DIR/captures
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() { [ "$2" = "$3" ] && ok || bad "$1: got '$3', want '$2'"; }
# "RULE@frame ..." of every finding, sorted
findings() {
    "$U" -r "$1" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])))'
}

# ---- findings at frames
expect "rocev2_rc findings" "IB-RC-001@6 IB-RC-002@8 IB-RC-002@9 IB-RC-003@15 IB-RC-004@20 IB-RC-005@18 IB-RC-005@20 IB-RC-005@21 IB-RC-007@19 IB-RC-007@7" \
    "$(findings "$C/rocev2_rc.pcapng")"
expect "rocev2_cfg3 findings" "IB-RC-005@3" "$(findings "$C/rocev2_cfg3.pcapng")"
expect "sue_std findings" "SUE-TP-001@5 SUE-TP-002@7 SUE-TP-002@8 SUE-TP-003@10 SUE-TP-005@11 SUE-TP-007@6" "$(findings "$C/sue_std.pcapng")"
expect "sue_afh findings" "SUE-TP-004@6 SUE-TP-007@5" "$(findings "$C/sue_afh.pcapng")"
expect "pcie_flit findings" "PCIE-FL-001@5 PCIE-FL-002@7 PCIE-FL-002@7 PCIE-FL-003@9 PCIE-FL-004@12 PCIE-FL-006@11 PCIE-FL-006@6 PCIE-FL-008@13 PCIE-FL-010@6 PCIE-FL-016@5" \
    "$(findings "$C/pcie_flit.pcapng")"
# document 004/003 limits (st_sue.c, st_pcie.c): bank/VC, CNP spacing (only with TIMER_THR given), runs, IDLE, replay timeout
expect "sue_limits findings" "SUE-TP-009@3 SUE-TP-009@4" "$(findings "$C/sue_limits.pcapng")"
expect "sue_limits, TIMER_THR 10 us" "SUE-TP-008@6 SUE-TP-009@3 SUE-TP-009@4" \
    "$("$U" -o sue.cnp_merge_us=10 -r "$C/sue_limits.pcapng" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])))')"
expect "sue_limits, TIMER_THR 4 us" "SUE-TP-009@3 SUE-TP-009@4" \
    "$("$U" -o sue.cnp_merge_us=4 -r "$C/sue_limits.pcapng" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])))')"
expect "pcie_limits findings" "PCIE-FL-007@4 PCIE-FL-008@8" "$(findings "$C/pcie_limits.pcapng")"
# the replay timeout: the same trace without its IDLE flit, then 60 records of 25 NOP flits (built here: 384 KB),
# 3 with an explicit sequence number and 1 with an Ack (of nothing: 1023) in turn (runs of 3, PCIE-FL-016)
: "${UBGEN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed '/^@packet ts=0.000008/,$d' "$C/pcie_limits.ub" > "$tmp/to.ub"
i=0
k=0
while [ $i -lt 60 ]; do
    i=$((i + 1))
    printf '@packet ts=0.%06d dir=out\npcieflit\n' $((i + 100))
    j=0
    while [ $j -lt 25 ]; do
        j=$((j + 1))
        k=$((k + 1))
        if [ $k = 1 ]; then echo 'pcieflit usage=0 seq=7 prior_payload=1'; # after Payload flit 7
        elif [ $((k % 4)) = 0 ]; then echo 'pcieflit usage=0 replay_cmd=1 seq=1023'; else echo 'pcieflit usage=0 seq=7'; fi
    done
done >> "$tmp/to.ub"
"$UBGEN" -w "$tmp/to.pcapng" "$tmp/to.ub" 2>/dev/null || bad "ubgen replay-timeout trace"
expect "replay timeout findings" "PCIE-FL-007@4 PCIE-FL-009@67" "$(findings "$tmp/to.pcapng")"
# evidence: bank 0 first on VC 0 (frame 1), now VC 2; CNP gap 5000 ns <= 10000; run of 2 ended in frame 7; the
# receiver's first non-IDLE flit in frame 2; 1500 flits, oldest unacknowledged 7 sent in frame 7
evid() {
    "$U" "$@" -q --audit --audit-format json --fail-on never 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("%s:%s:%s" % (r["id"], ",".join(map(str, f["values"])), ",".join(map(str, f["frames"]))) for r in d["rules"] for f in r["findings"][:1]))'
}
expect "sue_limits evidence" "SUE-TP-008:5000,10000:5 SUE-TP-009:0,2:1" "$(evid -o sue.cnp_merge_us=10 -r "$C/sue_limits.pcapng" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
expect "pcie_limits evidence" "PCIE-FL-007:2:7 PCIE-FL-008::2" "$(evid -r "$C/pcie_limits.pcapng" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
expect "replay timeout evidence" "PCIE-FL-007:2:7 PCIE-FL-009:1500,7:7" "$(evid -r "$tmp/to.pcapng" | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
# the same findings with the sharded audit (-j 2)
expect "rocev2_rc findings, -j 2" "$(findings "$C/rocev2_rc.pcapng")" \
    "$("$U" -r "$C/rocev2_rc.pcapng" -q -j 2 --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])))')"
# document 002's RDMA-engine profile: every request (SE = 0 here) breaks it; Write First (no AckReq) now needs an ack too
expect "ib.engine=1" "IB-RC-008@1 IB-RC-008@3" "$("$U" -o ib.engine=1 -r "$C/rocev2_rc.pcapng" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] if r["id"]=="IB-RC-008" for f in r["findings"][:2]))')"
# evidence values of a finding: IB-RC-004 at 20 says PSN 14 sent, 13 expected, NAK at 19
expect "IB-RC-004 evidence" "14 13 19" "$("$U" -r "$C/rocev2_rc.pcapng" -q --audit --audit-format json --fail-on never 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); f=[f for r in d["rules"] if r["id"]=="IB-RC-004" for f in r["findings"]][0]; print(*f["values"], *f["frames"])')"

# ---- nothing here is UB
for c in rocev2_rc sue_std sue_afh pcie_flit; do
    expect "$c is not UB" "0 UB," "$("$U" -r "$C/$c.pcapng" -q 2>/dev/null | grep -o '[0-9][0-9]* UB,')"
done
expect "-q counts" "13 records: 0 UB, 13 other (not UB); carrying 1 RoCEv2, 12 SUE" "$("$U" -r "$C/sue_std.pcapng" -q 2>/dev/null)"
expect "-q counts, CFG 3" "3 records: 3 UB, 0 other (not UB); carrying 3 RoCEv2" "$("$U" -r "$C/rocev2_cfg3.pcapng" -q 2>/dev/null)"
expect "ub filter on RoCEv2" "" "$("$U" -r "$C/rocev2_rc.pcapng" -Y ub -T fields -e frame.number 2>/dev/null)"

# ---- decoded values (fields of each protocol, filters on them)
expect "BTH fields" "3	0x06	0x000012	0	0x0000000010000000	128" "$("$U" -r "$C/rocev2_rc.pcapng" -Y 'infiniband.bth.psn == 6' -T fields \
    -e frame.number -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.a -e infiniband.reth.va -e infiniband.reth.dmalen 2>/dev/null)"
expect "AETH NAKs" "7 19" "$("$U" -r "$C/rocev2_rc.pcapng" -Y 'infiniband.aeth.syndrome == 0x60' -T fields -e frame.number 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
expect "CFG 3 RoCEv2 summary" "CFG3 IPv4/UDP 10.0.0.2:49152→10.0.0.1:4791 RoCEv2 RC ACKNOWLEDGE QP 0x11 PSN 5 ACK MSN 1" \
    "$("$U" -r "$C/rocev2_cfg3.pcapng" -Y 'frame.number == 2' 2>/dev/null | sed 's/^ *[0-9]* [0-9.]* //')"
expect "SUE RH fields" "3	0	0	1	0x0003" "$("$U" -r "$C/sue_std.pcapng" -Y 'sue.rh.fack == 1 && sue.rh.psn == 0' -T fields \
    -e frame.number -e sue.rh.opcode -e sue.rh.psn -e sue.rh.fack -e sue.rh.dest_qp 2>/dev/null)"
expect "AFH fields" "0x82	0x0001	0x0002" "$("$U" -r "$C/sue_afh.pcapng" -Y 'frame.number == 1' -T fields -e sue.afh.key_words -e sue.afh.src_addr -e sue.afh.dst_addr 2>/dev/null)"
expect "flit fields" "8	0	1	5	1	2	837" "$("$U" -r "$C/pcie_flit.pcapng" -Y 'pcieflit.oufc' -T fields -e frame.number -e pcieflit.flit.usage \
    -e pcieflit.flit.replay_cmd -e pcieflit.flit.seq -e pcieflit.oufc.np_hdr -e pcieflit.oufc.p_hdr -e pcieflit.oufc.p_data 2>/dev/null)"
expect "Flit_Marker" "10	1" "$("$U" -r "$C/pcie_flit.pcapng" -Y 'pcieflit.marker.status == 1' -T fields -e frame.number -e pcieflit.marker.status 2>/dev/null)"

# ---- UDP 4791: RoCEv2 and SUE in one capture, split by the rule; -o udp4791 forces one
expect "4791 split" "1 2 3 4 5 6 7 8 9 10 11 12 | 13" "$("$U" -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | tr '\n' ' ')| $("$U" -r "$C/sue_std.pcapng" -Y infiniband.bth -T fields -e frame.number 2>/dev/null)"
expect "udp4791=roce" "13" "$("$U" -o udp4791=roce -r "$C/sue_std.pcapng" -Y infiniband.bth -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')"
expect "udp4791=sue" "13" "$("$U" -o udp4791=sue -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')"
# the RH byte-order switch: read the other way, the same bytes give other values (and are not SUE by the rule)
expect "sue.rh_order=le" "" "$("$U" -o sue.rh_order=le -r "$C/sue_afh.pcapng" -Y 'sue.rh.psn == 10' -T fields -e frame.number 2>/dev/null)"
# the flit link type is an option
expect "dlt.pcieflit=0" "0" "$("$U" -o dlt.pcieflit=0 -r "$C/pcie_flit.pcapng" -Y pcieflit.flit -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
