#!/usr/bin/env bash
# Throughput of ubdump against a raw libpcap read loop, on two captures, every mode, in one run:
#   bench/run.sh [CAPTURE...]
# Without arguments the captures are (generated once, reproducibly):
#   bench/out/bench-1M.pcap   ubgen --repeat 1000000 bench/write64.ub (the digest §13.2 CFG 9 compact
#                             Write, 100-byte flit records: one packet shape)
#   bench/out/mixed-1000000.pcap  bench/mixed.sh: the 200 records of ten bundled captures x 5000
#                             (CFG 3/6/7/9, DLLCBs, management, transactions, RTP; issue #11)
# Modes (each on each capture):
#   raw      libpcap pcap_next_ex loop (bench/rawloop.c): the floor
#   q        ubdump -q                                   read + full decode, totals only
#   fields   ubdump -T fields -e ub.lph.cfg -e ub.btah.taopcode   decode + two fields per packet
#   audit    ubdump -q --audit                           decode + the protocol-state engine (-j 1)
#   audit-t2 ubdump -q --audit --threads 2                 the same with worker threads
#   tshark   tshark -T fields -e ub.lph.cfg with the ubscope plugin (UB_BENCH_TSHARK_RUNS, default 0)
# Timing: UB_BENCH_RUNS rounds (default 5); a round runs every mode on every capture in turn
# (interleaved, so load changes hit all modes alike); the best wall time of each counts, with the
# CPU time (user + sys) of that run. Reported: ns/packet (wall and CPU), the throughput ratio to
# the raw loop of the same capture, M packets per CPU-second, and callgrind instructions/packet
# over the first UB_BENCH_CG_PACKETS records (default 200000; 0 or no valgrind: skipped) — the
# deterministic number. UB_BENCH_PACKETS (default 1000000), UB_BUILD_DIR (build; must be an
# optimised, unsanitised build). Results: bench/out/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
OUT=bench/out
RUNS=${UB_BENCH_RUNS:-5}
TS_RUNS=${UB_BENCH_TSHARK_RUNS:-0}
N=${UB_BENCH_PACKETS:-1000000}
CG=${UB_BENCH_CG_PACKETS:-200000}
B=${UB_BUILD_DIR:-build}
mkdir -p "$OUT"

ub_section "build"
if [ ! -f "$B"/CMakeCache.txt ]; then cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo; fi
cmake --build "$B" -j2 --target ubdump ubgen
bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$B"/CMakeCache.txt)
san=$(sed -n 's/^UB_SANITIZE:[A-Z]*=//p' "$B"/CMakeCache.txt)
echo "$B/: CMAKE_BUILD_TYPE=$bt UB_SANITIZE=${san:-OFF}"
case "$bt:${san:-OFF}" in
    Release:OFF|RelWithDebInfo:OFF|MinSizeRel:OFF) ;;
    *) echo "warning: $B/ is not an optimised, unsanitised build: numbers will be low" ;;
esac
# shellcheck disable=SC2046  # pkg-config output is meant to be split
cc -O2 -Wall bench/rawloop.c $(pkg-config --cflags --libs libpcap) -o "$OUT"/rawloop

ub_section "captures"
caps=()
if [ $# -ge 1 ]; then
    for c in "$@"; do
        [ -f "$c" ] || { echo "no such file: $c" >&2; exit 2; }
        caps+=("$c")
    done
else
    cap=$OUT/bench-1M.pcap
    [ "$N" = 1000000 ] || cap=$OUT/bench-$N.pcap
    if [ ! -s "$cap" ] || [ bench/write64.ub -nt "$cap" ]; then
        echo "generating $cap ($N packets)"
        "$B"/tools/ubgen --repeat "$N" -w "$cap.tmp" bench/write64.ub
        mv -f "$cap.tmp" "$cap"
    fi
    caps+=("$cap")
    bench/mixed.sh "$N" "$OUT/mixed-$N.pcap"
    caps+=("$OUT/mixed-$N.pcap")
fi
declare -A PK
for c in "${caps[@]}"; do
    read -r p b _ < <("$OUT"/rawloop "$c" 2>/dev/null)
    [ "$p" -gt 0 ] || { echo "empty capture: $c" >&2; exit 2; }
    PK[$c]=$p
    echo "$c: $p packets, $b bytes captured ($(awk -v b="$b" -v n="$p" 'BEGIN { printf "%.1f", b / n }') B/packet)"
done

MODES=(raw q fields audit audit-t2)
# mode_cmd MODE CAPTURE [COUNT]: the command line of a mode
mode_cmd() {
    local m=$1 c=$2 cnt=()
    [ $# -ge 3 ] && cnt=(-c "$3")
    case $m in
        raw) echo "$OUT/rawloop $c ${3:-}" ;;
        q) echo "$B/tools/ubdump -r $c -q ${cnt[*]}" ;;
        fields) echo "$B/tools/ubdump -r $c -T fields -e ub.lph.cfg -e ub.btah.taopcode ${cnt[*]}" ;;
        audit) echo "$B/tools/ubdump -r $c -q --audit ${cnt[*]}" ;;
        audit-t2) echo "$B/tools/ubdump -r $c -q --audit --threads 2 ${cnt[*]}" ;;
    esac
}
mode_label() {
    case $1 in
        raw) echo "libpcap read loop (\`bench/out/rawloop\`)" ;;
        q) echo "\`ubdump -q\` (read + full decode)" ;;
        fields) echo "\`ubdump -T fields -e ub.lph.cfg -e ub.btah.taopcode\`" ;;
        audit) echo "\`ubdump -q --audit\` (decode + full audit)" ;;
        audit-t2) echo "\`ubdump -q --audit --threads 2\`" ;;
        tshark) echo "\`tshark -T fields -e ub.lph.cfg\` + ubscope plugin" ;;
    esac
}

# one_run CMD...: sets RUN_WALL RUN_CPU (seconds); exit status 0 or 1 is success (findings exit 1)
one_run() {
    local t w u s rc
    t=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1) && rc=0 || rc=$?
    read -r w u s <<<"$(printf '%s\n' "$t" | tail -1)"
    if [ "$rc" -gt 1 ]; then echo "failed (exit $rc): $*" >&2; return 1; fi
    RUN_WALL=$w
    RUN_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
}
declare -A WALL CPU IR
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
ub_section "timing: $RUNS interleaved rounds, best wall time counts (load average $load_before)"
for ((r = 1; r <= RUNS; r++)); do
    for c in "${caps[@]}"; do
        for m in "${MODES[@]}"; do
            # shellcheck disable=SC2046  # the command line is meant to be split
            one_run $(mode_cmd "$m" "$c")
            k="$c|$m"
            if [ -z "${WALL[$k]:-}" ] || awk -v a="$RUN_WALL" -v b="${WALL[$k]}" 'BEGIN { exit !(a < b) }'; then
                WALL[$k]=$RUN_WALL
                CPU[$k]=$RUN_CPU
            fi
        done
    done
    echo "round $r done (load average $(cut -d' ' -f1 /proc/loadavg))"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

tshark_cmd=()
if [ "$TS_RUNS" != 0 ] && command -v tshark >/dev/null 2>&1; then
    # as root, run tshark unprivileged in a user namespace: as root it ignores WIRESHARK_PLUGIN_DIR
    if [ "$(id -u)" -eq 0 ] && [ "$(unshare -U id -u 2>/dev/null)" = 65534 ]; then tshark_cmd=(unshare -U); fi
    tshome=$(mktemp -d)
    chmod 755 "$tshome"
    tshark_cmd+=(env HOME="$tshome" XDG_CONFIG_HOME="$tshome/.config")
    if compgen -G "$B/plugins/*/epan/ub.so" >/dev/null; then tshark_cmd+=(WIRESHARK_PLUGIN_DIR="$(cd "$B" && pwd)/plugins"); fi
    tshark_cmd+=(tshark)
    if "${tshark_cmd[@]}" -G plugins 2>/dev/null | grep -Eq '^ub\.so[[:space:]]'; then
        MODES+=(tshark)
        for c in "${caps[@]}"; do
            for ((r = 1; r <= TS_RUNS; r++)); do
                one_run "${tshark_cmd[@]}" -n -r "$c" -T fields -e ub.lph.cfg
                k="$c|tshark"
                if [ -z "${WALL[$k]:-}" ] || awk -v a="$RUN_WALL" -v b="${WALL[$k]}" 'BEGIN { exit !(a < b) }'; then
                    WALL[$k]=$RUN_WALL
                    CPU[$k]=$RUN_CPU
                fi
            done
            echo "tshark on $c: ${WALL[$c|tshark]} s"
        done
    else
        echo "tshark: skipped, the ubscope plugin is not built ($B/plugins/*/epan/ub.so) nor installed"
    fi
    rm -rf "$tshome"
fi

if [ "$CG" != 0 ] && command -v valgrind >/dev/null 2>&1; then
    ub_section "callgrind: instructions per packet over the first $CG records"
    for c in "${caps[@]}"; do
        n=$CG
        [ "${PK[$c]}" -lt "$n" ] && n=${PK[$c]}
        for m in "${MODES[@]}"; do
            [ "$m" = tshark ] && continue
            cgo=$(mktemp)
            # shellcheck disable=SC2046
            valgrind --tool=callgrind --callgrind-out-file="$cgo" $(mode_cmd "$m" "$c" "$n") >/dev/null 2>&1 || true
            ir=$(sed -n 's/^summary: //p;s/^totals: //p' "$cgo" | head -1)
            rm -f "$cgo"
            [ -n "$ir" ] && IR["$c|$m"]=$(awk -v i="$ir" -v n="$n" 'BEGIN { printf "%.0f", i / n }')
            echo "$c $m: ${IR[$c|$m]:-?} instructions/packet"
        done
    done
else
    echo "callgrind: skipped (UB_BENCH_CG_PACKETS=0 or valgrind not installed)"
fi

ns() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.0f", s * 1e9 / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
mpps() { awk -v n="$2" -v s="$1" 'BEGIN { if (s > 0) printf "%.2f", n / s / 1e6; else printf "-" }'; }
ub_section "results"
{
    echo "# ubscope read / decode / audit throughput"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "- load average before: $load_before, after: $load_after"
    echo "- $B/: $bt; $RUNS interleaved rounds, best wall time each (start-up included); CPU = user + sys of that run"
    echo "- instructions/packet: callgrind over the first $CG records (valgrind; deterministic)"
    for c in "${caps[@]}"; do
        n=${PK[$c]}
        raw="$c|raw"
        echo
        echo "## \`$c\` ($n packets)"
        echo
        echo "| mode | wall ns/packet | CPU ns/packet | vs raw loop (wall) | vs raw loop (CPU) | M packets per CPU-second | instructions/packet |"
        echo "|---|---:|---:|---:|---:|---:|---:|"
        for m in "${MODES[@]}"; do
            k="$c|$m"
            [ -n "${WALL[$k]:-}" ] || continue
            echo "| $(mode_label "$m") | $(ns "${WALL[$k]}" "$n") | $(ns "${CPU[$k]}" "$n") | $(ratio "${WALL[$raw]}" "${WALL[$k]}") | $(ratio "${CPU[$raw]}" "${CPU[$k]}") | $(mpps "${CPU[$k]}" "$n") | ${IR[$k]:--} |"
        done
    done
} >"$OUT"/results.md
cat "$OUT"/results.md
