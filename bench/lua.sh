#!/usr/bin/env bash
# Cost of Lua hooks in ubdump, next to plain ubdump and to the same logic as a Wireshark Lua tap, in
# one run on the same capture:
#   bench/lua.sh [CAPTURE]
# Without CAPTURE: bench/out/bench-1M.pcap (built as bench/run.sh builds it: ubgen --repeat 1000000
# bench/write64.ub, one 100-byte CFG 9 Write per record).
# Readers:
#   ubdump -q                                   read + full decode (the baseline)
#   ubdump -q --lua bench/lua/empty.lua         + an on_packet hook that does nothing
#   ubdump -q --lua bench/lua/latency2.lua      + a hook reading two fields (TAOpcode, INI_TASSN) and
#                                               the timestamp, keeping a table of send times
#   tshark -q -Y 'ub.btah.taopcode || ub.btah.ini_tassn'   Wireshark 4.0 + the ubscope plugin dissecting
#                                               every packet for the same two fields, no Lua, no output
#                                               (the tshark baseline: plain `tshark -q` does not dissect)
#   tshark -q -X lua_script:bench/lua/latency2_tap.lua   + the same logic as a Wireshark Lua tap
# Timing: best wall time of UB_BENCH_RUNS runs (default 3; tshark UB_BENCH_TSHARK_RUNS, default 1,
# 0 skips it), CPU = user + sys of that run. Instructions: callgrind over UB_BENCH_CG_PACKETS records
# (default 100000; 0 skips), divided by the packets. Results: bench/out/lua-results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
OUT=bench/out
RUNS=${UB_BENCH_RUNS:-3}
TS_RUNS=${UB_BENCH_TSHARK_RUNS:-1}
CGN=${UB_BENCH_CG_PACKETS:-100000}
B=${UB_BUILD_DIR:-build}
mkdir -p "$OUT"

ub_section "build"
if [ ! -f "$B"/CMakeCache.txt ]; then cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo; fi
cmake --build "$B" -j"$(nproc)" --target ubdump ubgen
bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$B"/CMakeCache.txt)
san=$(sed -n 's/^UB_SANITIZE:[A-Z]*=//p' "$B"/CMakeCache.txt)
case "$bt:${san:-OFF}" in
    Release:OFF|RelWithDebInfo:OFF|MinSizeRel:OFF) ;;
    *) echo "warning: $B/ is not an optimised, unsanitised build: numbers will be low" ;;
esac
U=$B/tools/ubdump

ub_section "capture"
if [ $# -ge 1 ]; then
    cap=$1
else
    cap=$OUT/bench-1M.pcap
    if [ ! -s "$cap" ] || [ bench/write64.ub -nt "$cap" ]; then
        "$B"/tools/ubgen --repeat 1000000 -w "$cap.tmp" bench/write64.ub
        mv -f "$cap.tmp" "$cap"
    fi
fi
pkts=$("$U" -r "$cap" -q | sed -n 's/^\([0-9]*\) records.*/\1/p')
echo "$cap: $pkts records"
[ "${pkts:-0}" -gt 0 ] || { echo "empty capture" >&2; exit 2; }

BEST_WALL="" BEST_CPU=""
best_of() {
    local runs=$1 i t w u s rc
    shift
    BEST_WALL="" BEST_CPU=""
    for ((i = 0; i < runs; i++)); do
        t=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1) && rc=0 || rc=$?
        read -r w u s <<<"$(printf '%s\n' "$t" | tail -1)"
        if [ "$rc" -gt 1 ]; then echo "failed (exit $rc): $*" >&2; return 1; fi
        if [ -z "$BEST_WALL" ] || awk -v a="$w" -v b="$BEST_WALL" 'BEGIN { exit !(a < b) }'; then
            BEST_WALL=$w
            BEST_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
        fi
    done
}
ns_per() { awk -v n="$pkts" -v s="$1" 'BEGIN { printf "%.0f", s * 1e9 / n }'; }
diff_ns() { awk -v n="$pkts" -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (a - b) * 1e9 / n }'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
ub_section "timing (best of $RUNS)"
best_of "$RUNS" "$U" -r "$cap" -q; t_ub=$BEST_WALL c_ub=$BEST_CPU
echo "ubdump -q                      ${t_ub} s wall, ${c_ub} s CPU"
best_of "$RUNS" "$U" -r "$cap" -q --lua bench/lua/empty.lua; t_e=$BEST_WALL c_e=$BEST_CPU
echo "ubdump -q --lua empty.lua      ${t_e} s wall, ${c_e} s CPU"
best_of "$RUNS" "$U" -r "$cap" -q --lua bench/lua/latency2.lua; t_l=$BEST_WALL c_l=$BEST_CPU
echo "ubdump -q --lua latency2.lua   ${t_l} s wall, ${c_l} s CPU"
saw_all() { awk -v n="$pkts" '$1 == "requests" && $2 == n { f = 1 } END { exit !f }'; }
"$U" -r "$cap" -q --lua bench/lua/latency2.lua | saw_all || { echo "latency2.lua did not see every request" >&2; exit 1; }

t_ts="" c_ts="" t_tl="" c_tl="" ts_note=""
if [ "$TS_RUNS" = 0 ]; then
    ts_note="skipped (UB_BENCH_TSHARK_RUNS=0)"
elif ! command -v tshark >/dev/null 2>&1; then
    ts_note="skipped: tshark is not installed"
else
    ts=()
    if [ "$(id -u)" -eq 0 ] && [ "$(unshare -U id -u 2>/dev/null)" = 65534 ]; then ts=(unshare -U); fi
    tshome=$(mktemp -d)
    chmod 755 "$tshome"
    cp bench/lua/latency2_tap.lua "$tshome/"
    chmod 644 "$tshome/latency2_tap.lua"
    ts+=(env HOME="$tshome" XDG_CONFIG_HOME="$tshome/.config")
    if compgen -G "$B/plugins/*/epan/ub.so" >/dev/null; then ts+=(WIRESHARK_PLUGIN_DIR="$(cd "$B" && pwd)/plugins"); fi
    ts+=(tshark)
    if "${ts[@]}" -G plugins 2>/dev/null | grep -Eq '^ub\.so[[:space:]]'; then
        "${ts[@]}" -q -n -X "lua_script:$tshome/latency2_tap.lua" -r "$cap" 2>/dev/null | saw_all ||
            { echo "the tshark tap did not see every request" >&2; exit 1; }
        best_of "$TS_RUNS" "${ts[@]}" -q -n -r "$cap" -Y 'ub.btah.taopcode || ub.btah.ini_tassn'; t_ts=$BEST_WALL c_ts=$BEST_CPU
        echo "tshark -q -Y (2 fields)        ${t_ts} s wall, ${c_ts} s CPU"
        best_of "$TS_RUNS" "${ts[@]}" -q -n -X "lua_script:$tshome/latency2_tap.lua" -r "$cap"; t_tl=$BEST_WALL c_tl=$BEST_CPU
        echo "tshark -q + latency2_tap.lua   ${t_tl} s wall, ${c_tl} s CPU"
        ts_note="with the ubscope plugin"
    else
        ts_note="skipped: the ubscope plugin is not built ($B/plugins/*/epan/ub.so)"
        echo "tshark $ts_note"
    fi
    rm -rf "$tshome"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

cg_plain="" cg_e="" cg_l=""
if [ "$CGN" != 0 ] && command -v valgrind >/dev/null 2>&1; then
    ub_section "callgrind ($CGN records)"
    cgrun() { # prints instructions per packet
        local f
        f=$(mktemp)
        valgrind --tool=callgrind --callgrind-out-file="$f" "$U" -r "$cap" -q -c "$CGN" "$@" >/dev/null 2>&1
        awk -v n="$CGN" '/^(summary|totals):/ { printf "%.0f", $2 / n; exit }' "$f"
        rm -f "$f"
    }
    cg_plain=$(cgrun); cg_e=$(cgrun --lua bench/lua/empty.lua); cg_l=$(cgrun --lua bench/lua/latency2.lua)
    echo "Ir/packet: plain $cg_plain, empty hook $cg_e, two-field hook $cg_l"
fi

ub_section "results"
{
    echo "# Lua hook cost (bench/lua.sh)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "- load average before: $load_before, after: $load_after (shared machine: compare the CPU columns)"
    echo "- capture: \`$cap\`, $pkts records; $B/: $bt; best of $RUNS runs (tshark: $TS_RUNS)"
    echo
    echo "| reader | wall (s) | CPU (s) | CPU ns/packet | Lua cost ns/packet (CPU, vs its baseline) |"
    echo "|---|---:|---:|---:|---:|"
    echo "| \`ubdump -q\` | $t_ub | $c_ub | $(ns_per "$c_ub") | — |"
    echo "| \`ubdump -q --lua bench/lua/empty.lua\` | $t_e | $c_e | $(ns_per "$c_e") | $(diff_ns "$c_e" "$c_ub") |"
    echo "| \`ubdump -q --lua bench/lua/latency2.lua\` | $t_l | $c_l | $(ns_per "$c_l") | $(diff_ns "$c_l" "$c_ub") |"
    if [ -n "$t_ts" ]; then
        echo "| \`tshark -q -Y 'ub.btah.taopcode \|\| ub.btah.ini_tassn'\` $ts_note | $t_ts | $c_ts | $(ns_per "$c_ts") | — |"
        echo "| \`tshark -q -X lua_script:latency2_tap.lua\` | $t_tl | $c_tl | $(ns_per "$c_tl") | $(diff_ns "$c_tl" "$c_ts") |"
    else
        echo "| tshark: $ts_note | | | | |"
    fi
    if [ -n "$cg_plain" ]; then
        echo
        echo "callgrind, instructions per packet over $CGN records: plain **$cg_plain**, empty hook **$cg_e** (+$((cg_e - cg_plain))),"
        echo "two-field hook **$cg_l** (+$((cg_l - cg_plain)))."
    fi
} > "$OUT"/lua-results.md
cat "$OUT"/lua-results.md
