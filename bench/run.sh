#!/usr/bin/env bash
# Throughput of ubdump (decode, and decode + full protocol audit) against a raw libpcap read loop and
# tshark with the ubscope plugin, on the same capture, in the same run:
#   bench/run.sh [CAPTURE]
# Without CAPTURE, bench/out/bench-1M.pcap is generated once with
#   build/tools/ubgen --repeat 1000000 -w bench/out/bench-1M.pcap bench/write64.ub
# (1,000,000 copies of the digest §13.2 Write, 100-byte flit records).
# Readers:
#   rawloop                              libpcap pcap_next_ex loop (bench/rawloop.c): the floor
#   ubdump -q                            read + full decode
#   ubdump -q --audit                    read + decode + state engine, every layer (--threads 1)
#   ubdump -q --audit --threads 2               the same on two worker threads (informational)
#   tshark -T fields -e ub.lph.cfg       Wireshark 4.0 + the ubscope plugin (skipped without the plugin)
# Each reader runs UB_BENCH_RUNS times (default 3), the best wall time counts; CPU time (user + sys)
# of that run gives packets per CPU-second ("per core"). tshark runs UB_BENCH_TSHARK_RUNS times
# (default 1; 0 skips it). UB_BUILD_DIR: build directory (build). Results: bench/out/results.md.
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

# best_of RUNS CMD...: the run with the best wall time; sets BEST_WALL and BEST_CPU (seconds).
# Exit status 0 or 1 counts as success (ubdump --audit exits 1 when it has findings).
BEST_WALL="" BEST_CPU=""
best_of() {
    local runs=$1 i t w u s rc
    shift
    BEST_WALL="" BEST_CPU=""
    for ((i = 0; i < runs; i++)); do
        t=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1) && rc=0 || rc=$?
        # `time` reports on its own line after the command's (discarded) output
        read -r w u s <<<"$(printf '%s\n' "$t" | tail -1)"
        if [ "$rc" -gt 1 ]; then echo "failed (exit $rc): $*" >&2; return 1; fi
        if [ -z "$BEST_WALL" ] || awk -v a="$w" -v b="$BEST_WALL" 'BEGIN { exit !(a < b) }'; then
            BEST_WALL=$w
            BEST_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
        fi
    done
}
pps() { awk -v n="$pkts" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f", n / s; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3g", a / b; else printf "-" }'; }
mpps() { awk -v n="$pkts" -v s="$1" 'BEGIN { if (s > 0) printf "%.2f", n / s / 1e6; else printf "-" }'; }

ub_section "timing (best of $RUNS)"
best_of "$RUNS" "$OUT"/rawloop "$cap"; t_raw=$BEST_WALL c_raw=$BEST_CPU
echo "rawloop                 ${t_raw} s wall, ${c_raw} s CPU  $(pps "$t_raw") packets/s"
best_of "$RUNS" "$B"/tools/ubdump -r "$cap" -q; t_ub=$BEST_WALL c_ub=$BEST_CPU
echo "ubdump -q               ${t_ub} s wall, ${c_ub} s CPU  $(pps "$t_ub") packets/s"
best_of "$RUNS" "$B"/tools/ubdump -r "$cap" -q --audit; t_au=$BEST_WALL c_au=$BEST_CPU
echo "ubdump -q --audit       ${t_au} s wall, ${c_au} s CPU  $(pps "$t_au") packets/s"
best_of "$RUNS" "$B"/tools/ubdump -r "$cap" -q --audit --threads 2; t_j2=$BEST_WALL c_j2=$BEST_CPU
echo "ubdump -q --audit --threads 2  ${t_j2} s wall, ${c_j2} s CPU  $(pps "$t_j2") packets/s"
echo "ubdump -q --audit says:"
"$B"/tools/ubdump -r "$cap" -q --audit 2>&1 | sed -n '1,4p;/^result/p' | sed 's/^/    /' || true

t_ts="" c_ts="" ts_note=""
if [ "$TS_RUNS" = 0 ]; then
    ts_note="skipped (UB_BENCH_TSHARK_RUNS=0)"
elif ! command -v tshark >/dev/null 2>&1; then
    ts_note="skipped: tshark is not installed"
else
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
        echo "tshark: ${ts[*]}, with the ubscope plugin (best of $TS_RUNS)"
        best_of "$TS_RUNS" "${ts[@]}" -n -r "$cap" -T fields -e ub.lph.cfg; t_ts=$BEST_WALL c_ts=$BEST_CPU
        echo "tshark -T fields -e ub.lph.cfg  ${t_ts} s wall, ${c_ts} s CPU  $(pps "$t_ts") packets/s"
        ts_note="with the ubscope plugin"
    else
        ts_note="skipped: the ubscope plugin is not built ($B/plugins/*/epan/ub.so) nor installed"
        echo "tshark $ts_note"
    fi
    rm -rf "$tshome"
fi

ub_section "results"
{
    echo "# ubscope read / decode / audit throughput"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- capture: \`$cap\`, $pkts packets, $bytes bytes ($(awk -v b="$bytes" -v n="$pkts" 'BEGIN { printf "%.1f", b / n }') B/packet)"
    echo "- $B/: $bt; best wall time of $RUNS runs (tshark: $TS_RUNS), including start-up; CPU = user + sys of that run"
    echo
    echo "| reader | wall (s) | CPU (s) | packets/s (wall) | M packets per CPU-second | throughput vs rawloop |"
    echo "|---|---:|---:|---:|---:|---:|"
    echo "| libpcap read loop (\`bench/out/rawloop\`) | $t_raw | $c_raw | $(pps "$t_raw") | $(mpps "$c_raw") | 1.00 |"
    echo "| \`ubdump -q\` (read + full decode) | $t_ub | $c_ub | $(pps "$t_ub") | $(mpps "$c_ub") | $(ratio "$t_raw" "$t_ub") |"
    echo "| \`ubdump -q --audit\` (decode + full audit) | $t_au | $c_au | $(pps "$t_au") | $(mpps "$c_au") | $(ratio "$t_raw" "$t_au") |"
    echo "| \`ubdump -q --audit --threads 2\` | $t_j2 | $c_j2 | $(pps "$t_j2") | $(mpps "$c_j2") | $(ratio "$t_raw" "$t_j2") |"
    if [ -n "$t_ts" ]; then
        echo "| \`tshark -T fields -e ub.lph.cfg\` $ts_note | $t_ts | $c_ts | $(pps "$t_ts") | $(mpps "$c_ts") | $(ratio "$t_raw" "$t_ts") |"
    else
        echo "| tshark: $ts_note | | | | | |"
    fi
    echo
    echo "Throughput ratios, wall time (CPU time in parentheses: robust on a shared machine):"
    echo
    echo "- ubdump / rawloop: **$(ratio "$t_raw" "$t_ub")** ($(ratio "$c_raw" "$c_ub")) — target ≥ 0.5"
    echo "- ubdump --audit / rawloop: **$(ratio "$t_raw" "$t_au")** ($(ratio "$c_raw" "$c_au")) — target ≥ 0.5"
    echo "- ubdump --audit: **$(mpps "$c_au") M packets per CPU-second** — target ≥ 3 per core"
    if [ -n "$t_ts" ]; then
        echo "- ubdump / tshark: **$(ratio "$t_ts" "$t_ub")** ($(ratio "$c_ts" "$c_ub"))"
        echo "- ubdump --audit / tshark: **$(ratio "$t_ts" "$t_au")** ($(ratio "$c_ts" "$c_au")) — target ≥ 100"
    fi
} >"$OUT"/results.md
cat "$OUT"/results.md
