#!/bin/sh
# Deterministic speed guard (issue #11): callgrind instructions per packet of `ubdump -q`,
# `ubdump -T fields` with two fields and `ubdump -q --audit` over 20,000 packets of the mixed capture
# (bench/mixed.sh) and of the benchmark packet (bench/write64.ub), against loose limits (>= 30 % above
# what they measure at the time of writing, gcc 12 -O2 on x86-64 with PCLMULQDQ: -q mixed 3,896 /
# benchmark 2,762, -T fields 5,016 / 4,175; --audit 9,086 / 6,777 when its limits were set).
# The --audit limits follow the state-engine work of issue #11 (speng): 7,619 / 5,779 measured.
# The -q / -T fields limits follow the third decoder round (spdec): -q 3,565 / 2,504, -T fields
# 4,659 / 3,871 measured (mixed / benchmark), limits >= 30 % above.
# The limits follow the fourth round (CRC folds from 16 bytes, fixed-offset DLLDP, constant-row network
# reads, compiled -e fields, per-packet engine summary): -q 1,798 / 1,303, -T fields 2,330 / 1,920,
# --audit 4,860 / 3,893 measured (mixed / benchmark, 20,000 packets), limits >= 30 % above.
# The limits follow the fifth round (header-stack templates, one extraction per packet, direct -T fields
# lines): -q 1,233 / 962, -T fields 1,570 / 1,345, --audit 3,545 / 2,915 measured, limits >= 30 % above.
# The limits follow the sixth round (template compare and fill, multi-block templates, TA engine):
# -q 981 / 700, -T fields 1,334 / 1,100, --audit ~3,250 / ~2,640 measured, limits >= 30 % above.
# Never a wall-clock number. Skipped (exit 77) without valgrind or on an unoptimised / sanitised build.
set -eu
: "${UBDUMP:?}" "${UBGEN:?}" "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}"
. "$UB_SOURCE_DIR/tests/valgrind_lib.sh"
vg_require "instruction counts only mean something optimised" optimised
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=20000
UB_MIXED_UB=$tmp/mixed.ub UBGEN=$UBGEN UB_BUILD_DIR=$UB_BINARY_DIR sh -c \
    "bash '$UB_SOURCE_DIR/bench/mixed.sh' $N '$tmp/mixed.pcap'" >/dev/null
"$UBGEN" --repeat $N -w "$tmp/bench.pcap" "$UB_SOURCE_DIR/bench/write64.ub"
fail=0
# check CAPTURE LIMIT ARGS...: instructions per packet of ubdump -r CAPTURE ARGS <= LIMIT
check() {
    cap=$1 limit=$2
    shift 2
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$UBDUMP" -r "$tmp/$cap.pcap" "$@" >"$tmp/out" 2>/dev/null || true
    case " $* " in
    *" -T fields "*) pk=$(wc -l <"$tmp/out" | tr -d ' ') ;; # one line per packet
    *) pk=$(sed -n 's/^\([0-9]*\) records.*/\1/p' "$tmp/out" | head -1) ;;
    esac
    [ "$pk" = "$N" ] || { echo "FAIL: ubdump -r $cap.pcap $*: expected $N records, output says '$pk'"; fail=1; return; }
    ir=$(sed -n 's/^summary: //p' "$tmp/cg")
    per=$((ir / N))
    if [ "$per" -le "$limit" ]; then
        echo "ok   $cap ubdump $*: $per instructions/packet (limit $limit)"
    else
        echo "FAIL $cap ubdump $*: $per instructions/packet > limit $limit"
        fail=1
    fi
}
check mixed 1280 -q
check mixed 1740 -T fields -e ub.lph.cfg -e ub.btah.taopcode
check mixed 4250 -q --audit
check bench 910 -q
check bench 1430 -T fields -e ub.lph.cfg -e ub.btah.taopcode
check bench 3450 -q --audit
exit $fail
