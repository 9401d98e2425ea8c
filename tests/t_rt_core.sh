#!/bin/sh
# The reliable-transport core (libubparse/src/rt_core.h) end to end:
#  - loss timers (UB-TP-020, IB-RC-009, SUE-TP-020), the RNR NAK timer (IB-RC-010) and the AETH MSN
#    (IB-RC-011) on the planted traces tests/rt/rt_timers_{ub,nb}.ub (built here with ubgen);
#  - the full tracker's gap judgements on IB / SUE and the SUE RNR timer (tests/rt/rt_seq_nb.ub), the UB
#    RNR_Timer of transaction retries (UB-TA-019, tests/rt/rt_rnr_ub.ub);
#  - the neighbour flow tables (st_neigh.c) in the audit's eviction accounting: bounded by --max-channels,
#    evictions reported like UB state (UB-ST-001, the JSON "evictions" object, the INCOMPLETE advice), and
#    no neighbour keys when the capture had no neighbour.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -euo pipefail
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}" "${UBGEN:?}"
# shellcheck source=tests/check_lib.sh
. "$UB_SOURCE_DIR/tests/check_lib.sh"
ub_check_init t_rt_core
U=$UBDUMP
C=$UB_SOURCE_DIR/captures
expect() { eq "$1" "$3" "$2"; }
evictions() {
    f=$1
    shift
    "$U" -r "$f" -q --audit --audit-format json --fail-on never "$@" 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s=%d" % kv for kv in d["evictions"].items()))'
}
# "RULE@frame[related](values)" of every finding, in report order
findings() {
    f=$1
    shift
    "$U" -r "$f" -q --audit --audit-format json --audit-examples 100 --fail-on never "$@" 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join("%s@%d%s(%s)" % (r["id"], f["frame"], f.get("frames", []), ",".join(map(str, f["values"]))) for r in d["rules"] for f in r["findings"]))'
}
for t in ub nb; do "$UBGEN" -w "$tmp/$t.pcapng" "$UB_SOURCE_DIR/tests/rt/rt_timers_$t.ub" >/dev/null; done
expect "UB loss timer" "UB-TP-020@4[3](101,198000) UB-TP-003@7[6](103)" "$(findings "$tmp/ub.pcapng")"
# IB and SUE on the full tracker: resends and loss timers cite the first copy / the oldest unacknowledged request
nb="IB-RC-010@5[4](500,1280) IB-RC-011@8[](4,1) IB-RC-011@10[](3,4) IB-RC-009@12[11](4,150000) SUE-TP-020@17[16](11,120000)"
nb="$nb IB-RC-002@5[3](2) IB-RC-002@7[3](2) IB-RC-007@4[](2,46) IB-RC-007@6[](2,46)"
expect "IB / SUE timers and MSN" "$nb" "$(findings "$tmp/nb.pcapng")"
expect "IB / SUE, sharded" "$nb" "$(findings "$tmp/nb.pcapng" --threads 2)"
# the loss timeout is --loss-timeout (0: off); --response-timeout 0 (judge everything at the end) turns it off too
expect "UB, --loss-timeout 200" "UB-TP-003@7[6](103)" "$(findings "$tmp/ub.pcapng" --loss-timeout 200)"
expect "UB, --loss-timeout 0" "UB-TP-003@7[6](103)" "$(findings "$tmp/ub.pcapng" --loss-timeout 0)"
expect "UB, --response-timeout 0" "UB-TP-003@7[6](103)" "$(findings "$tmp/ub.pcapng" --response-timeout 0)"
expect "IB / SUE, --loss-timeout 200" "IB-RC-010@5[4](500,1280) IB-RC-011@8[](4,1) IB-RC-011@10[](3,4) IB-RC-002@5[3](2) IB-RC-002@7[3](2) IB-RC-007@4[](2,46) IB-RC-007@6[](2,46)" \
    "$(findings "$tmp/nb.pcapng" --loss-timeout 200)"

# the full tracker's judgements of gaps on IB and SUE (tests/rt/rt_seq_nb.ub): acknowledged, reordered,
# duplicate ack, filled by a timeout resend, lost; the SUE RNR NAK's timer (provisional encoding, switchable)
"$UBGEN" -w "$tmp/seq.pcapng" "$UB_SOURCE_DIR/tests/rt/rt_seq_nb.ub" >/dev/null
sq="IB-RC-012@2[3](2,1) IB-RC-014@5[](4,5) IB-RC-001@10[](8,1) SUE-TP-002@14[12](20) SUE-TP-002@16[12](20)"
sq="$sq SUE-TP-007@13[](20,46) SUE-TP-007@15[](20,46) IB-RC-013@9[](6) IB-RC-015@7[](5)"
expect "IB / SUE gaps, SUE RNR" "SUE-TP-025@14[13](500,1280) $sq" "$(findings "$tmp/seq.pcapng")"
expect "IB / SUE gaps, sharded" "SUE-TP-025@14[13](500,1280) $sq" "$(findings "$tmp/seq.pcapng" --threads 2)"
expect "sue.rnr_encoding=off" "$sq" "$(findings "$tmp/seq.pcapng" -o sue.rnr_encoding=off)"
# UB: a transaction retried before the RNR_Timeout of its RNR response (UB-TA-019), over CTP (ATAH RSPST)
# and over RTP (TPACK RSPST); the retry after the timeout is fine (tests/rt/rt_rnr_ub.ub)
"$UBGEN" -w "$tmp/rnr.pcapng" "$UB_SOURCE_DIR/tests/rt/rt_rnr_ub.ub" >/dev/null
expect "UB RNR_Timer" "UB-TA-019@3[2, 1](20000,64000) UB-TA-019@11[10, 9](4000,8000) UB-TA-018@2[1](1,5) UB-TA-018@6[5](1,5) UB-TA-018@10[9](1,2)" \
    "$(findings "$tmp/rnr.pcapng")"
expect "UB RNR_Timer, sharded" "UB-TA-019@3[2, 1](20000,64000) UB-TA-019@11[10, 9](4000,8000) UB-TA-018@2[1](1,5) UB-TA-018@6[5](1,5) UB-TA-018@10[9](1,2)" \
    "$(findings "$tmp/rnr.pcapng" --threads 2)"

ub0="total=0 links=0 channels=0 transactions=0 management=0 tp_pairs=0 requesters=0 ta_channels=0 hops=0"

expect "flits, one flow kept" "total=18 links=0 channels=0 transactions=0 management=0 tp_pairs=0 requesters=0 ta_channels=0 hops=0 nb_flows=18 nb_pairs=0" \
    "$(evictions "$C/pcie_flit.pcapng" --max-channels 1)"
expect "flits, sharded" "total=18 links=0 channels=0 transactions=0 management=0 tp_pairs=0 requesters=0 ta_channels=0 hops=0 nb_flows=18 nb_pairs=0" \
    "$(evictions "$C/pcie_flit.pcapng" --max-channels 1 --threads 2)"
expect "SUE, one flow kept" "total=2 links=0 channels=0 transactions=0 management=0 tp_pairs=0 requesters=0 ta_channels=0 hops=0 nb_flows=1 nb_pairs=1 sue_pairs=0 sue_cnps=0" \
    "$(evictions "$C/sue_std.pcapng" --max-channels 1)"
expect "flits, default bound" "$ub0 nb_flows=0 nb_pairs=0" "$(evictions "$C/pcie_flit.pcapng")"
expect "UB only: no neighbour keys" "$ub0" "$(evictions "$C/audit_rtp_lossy.pcapng")"
# the text report names the table and the option that would have kept every flow
out=$("$U" -r "$C/pcie_flit.pcapng" -q --audit --max-channels 1 2>&1) || true
expect "UB-ST-001 line" "         frame 3: neighbour flows evicted: their sequence and acknowledgement state restarted; table neighbour flows; values 8, 18, 1; frames 12" \
    "$(printf '%s\n' "$out" | grep 'frame 3: neighbour flows')"
expect "advice" "also INCOMPLETE: 18 neighbour flows evicted before they could be judged (peak live 1): rerun with --max-channels 19" \
    "$(printf '%s\n' "$out" | grep 'also INCOMPLETE')"
ub_check_done
