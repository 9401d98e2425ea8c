#!/usr/bin/env bash
# Send paths of the I/O module (libubparse/src/io.c) on a veth pair, in one run:
# sendmmsg vs PACKET_TX_RING (and each with PACKET_QDISC_BYPASS), 64- and 128-byte UBoE frames,
# 1,000,000 frames per run, best of UB_BENCH_RUNS (default 3). Runs inside a private user + network
# namespace (`unshare -rn`): nothing leaves the machine.
#   bench/io_send.sh            -> bench/out/io_send.md
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${UB_BENCH_RUNS:-3}
N=${UB_BENCH_PACKETS:-1000000}
mkdir -p bench/out
cc -O2 -Wall -Ilibubparse/include bench/iosend.c libubparse/src/io.c -o bench/out/iosend
if [ "${UB_IN_NETNS:-}" != 1 ]; then
    UB_IN_NETNS=1 exec unshare -rn bash "$0" "$@"
fi
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null || true
ip link add va type veth peer name vb
ip link set va up
ip link set vb up
out=bench/out/io_send.md
{
    echo "| path | frame bytes | packets/s (best of $RUNS) | CPU s per M packets |"
    echo "|---|---:|---:|---:|"
    for mode in sendmmsg ring; do
        for bypass in "" qdisc-bypass; do
            for size in 64 128; do
                best=0 bestcpu=0
                for _ in $(seq "$RUNS"); do
                    read -r _ _ pk secs pps cpu < <(bench/out/iosend va "$mode" "$N" "$size" 64 $bypass 2>/dev/null)
                    if [ "${pps%.*}" -gt "$best" ]; then best=${pps%.*}; bestcpu=$(awk -v c="$cpu" -v p="$pk" 'BEGIN { printf "%.3f", c * 1e6 / p }'); fi
                done
                echo "| $mode${bypass:+ + $bypass} | $size | $(printf "%'d" "$best") | $bestcpu |"
            done
        done
    done
} | tee "$out"
