#!/usr/bin/env bash
# Throughput of ubdump against a raw libpcap read loop (and tshark with the ubscope plugin) on
# the same capture, in the same run:
#   bench/run.sh [CAPTURE]
# Without CAPTURE, bench/out/bench-1M.pcap is generated once with
#   build/tools/ubgen --repeat 1000000 -w bench/out/bench-1M.pcap bench/write64.ub
# (1,000,000 copies of the digest §13.2 Write, 100-byte flit records).
# Each reader runs UB_BENCH_RUNS times (default 3), the best wall time counts. tshark runs
# UB_BENCH_TSHARK_RUNS times (default 1; 0 skips it). UB_BUILD_DIR: build directory (build).
# Results: bench/out/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
OUT=bench/out
RUNS=${UB_BENCH_RUNS:-3}
TS_RUNS=${UB_BENCH_TSHARK_RUNS:-1}
N=${UB_BENCH_PACKETS:-1000000}
B=${UB_BUILD_DIR:-build}
mkdir -p "$OUT"

ub_section "build"
if [ ! -f "$B"/CMakeCache.txt ]; then cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo; fi
cmake --build "$B" -j"$(nproc)" --target ubdump ubgen
bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$B"/CMakeCache.txt)
san=$(sed -n 's/^UB_SANITIZE:[A-Z]*=//p' "$B"/CMakeCache.txt)
echo "$B/: CMAKE_BUILD_TYPE=$bt UB_SANITIZE=${san:-OFF}"
case "$bt:${san:-OFF}" in
    Release:OFF|RelWithDebInfo:OFF|MinSizeRel:OFF) ;;
    *) echo "warning: $B/ is not an optimised, unsanitised build: numbers will be low" ;;
esac
# shellcheck disable=SC2046  # pkg-config output is meant to be split
cc -O2 -Wall bench/rawloop.c $(pkg-config --cflags --libs libpcap) -o "$OUT"/rawloop

ub_section "capture"
if [ $# -ge 1 ]; then
    cap=$1
    [ -f "$cap" ] || { echo "no such file: $cap" >&2; exit 2; }
else
    cap=$OUT/bench-1M.pcap
    [ "$N" = 1000000 ] || cap=$OUT/bench-$N.pcap
    if [ ! -s "$cap" ] || [ bench/write64.ub -nt "$cap" ]; then
        echo "generating $cap ($N packets)"
        "$B"/tools/ubgen --repeat "$N" -w "$cap.tmp" bench/write64.ub
        mv -f "$cap.tmp" "$cap"
    fi
fi
read -r pkts bytes _ < <("$OUT"/rawloop "$cap" 2>/dev/null)
echo "$cap: $pkts packets, $bytes bytes captured, $(stat -c %s "$cap") bytes on disk"
[ "$pkts" -gt 0 ] || { echo "empty capture" >&2; exit 2; }

# best wall time of $1 runs of the command (seconds, 6 decimals); output of the command discarded
best_of() {
    local runs=$1 best="" t0 t1 dt i
    shift
    for ((i = 0; i < runs; i++)); do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
        t1=$(date +%s%N)
        dt=$((t1 - t0))
        if [ -z "$best" ] || [ "$dt" -lt "$best" ]; then best=$dt; fi
    done
    awk -v ns="$best" 'BEGIN { printf "%.6f", ns / 1e9 }'
}
pps() { awk -v n="$pkts" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", a / b }'; }

ub_section "timing (best of $RUNS)"
t_raw=$(best_of "$RUNS" "$OUT"/rawloop "$cap")
echo "rawloop         $t_raw s  $(pps "$t_raw") packets/s"
t_ub=$(best_of "$RUNS" "$B"/tools/ubdump -r "$cap" -q)
echo "ubdump -q       $t_ub s  $(pps "$t_ub") packets/s"
echo "ubdump -q says: $("$B"/tools/ubdump -r "$cap" -q 2>&1 | tail -3 | tr '\n' ' ')"

t_ts="" ts_note=""
if [ "$TS_RUNS" != 0 ] && command -v tshark >/dev/null 2>&1; then
    ts=()
    # as root, run tshark unprivileged in a user namespace: as root it ignores WIRESHARK_PLUGIN_DIR
    if [ "$(id -u)" -eq 0 ] && [ "$(unshare -U id -u 2>/dev/null)" = 65534 ]; then ts=(unshare -U); fi
    tshome=$(mktemp -d)
    chmod 755 "$tshome"
    ts+=(env HOME="$tshome" XDG_CONFIG_HOME="$tshome/.config")
    # the freshly built plugin ($B/plugins/<ver>/epan/ub.so), else whatever is installed
    if compgen -G "$B/plugins/*/epan/ub.so" >/dev/null; then ts+=(WIRESHARK_PLUGIN_DIR="$(cd "$B" && pwd)/plugins"); fi
    ts+=(tshark)
    if "${ts[@]}" -G plugins 2>/dev/null | grep -Eq '^ub\.so[[:space:]]'; then
        ts_note="with the ubscope plugin"
    else
        ts_note="WITHOUT the ubscope plugin (not built/installed)"
    fi
    echo "tshark: ${ts[*]}, $ts_note (best of $TS_RUNS)"
    t_ts=$(best_of "$TS_RUNS" "${ts[@]}" -n -r "$cap" -T fields -e frame.number)
    echo "tshark          $t_ts s  $(pps "$t_ts") packets/s"
    rm -rf "$tshome"
fi

ub_section "results"
{
    echo "# ubscope read/decode throughput"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "- capture: \`$cap\`, $pkts packets, $bytes bytes ($(awk -v b="$bytes" -v n="$pkts" 'BEGIN { printf "%.1f", b / n }') B/packet)"
    echo "- $B/: $bt; best of $RUNS runs (tshark: $TS_RUNS), wall time including start-up"
    echo
    echo "| reader | time (s) | packets/s | relative to rawloop |"
    echo "|---|---:|---:|---:|"
    echo "| libpcap read loop (\`bench/out/rawloop\`) | $t_raw | $(pps "$t_raw") | 1.00 |"
    echo "| \`ubdump -r FILE -q\` (read + full decode) | $t_ub | $(pps "$t_ub") | $(ratio "$t_raw" "$t_ub") |"
    if [ -n "$t_ts" ]; then
        echo "| \`tshark -T fields -e frame.number\` $ts_note | $t_ts | $(pps "$t_ts") | $(ratio "$t_raw" "$t_ts") |"
    fi
    echo
    echo "ubdump/rawloop throughput ratio: **$(ratio "$t_raw" "$t_ub")**"
    if [ -n "$t_ts" ]; then echo "ubdump/tshark throughput ratio: **$(ratio "$t_ts" "$t_ub")**"; fi
} >"$OUT"/results.md
cat "$OUT"/results.md
