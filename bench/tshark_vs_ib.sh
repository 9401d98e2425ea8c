#!/usr/bin/env bash
# tshark with the ubscope plugin on UB against tshark's built-in InfiniBand dissector on RoCEv2:
# the same packet count, similar packet sizes, the same tshark options, measured in the same run.
#   bench/tshark_vs_ib.sh
# Captures (generated once, kept in bench/out/):
#   UB   bench/out/bench-1M.pcap    build/tools/ubgen --repeat N bench/write64.ub
#                                   (digest §13.2 CFG 9 compact Write, 64-byte payload: 100-byte flit records)
#   IB   bench/out/rocev2-1M.pcap   bench/gen_rocev2.py -n N  (Ethernet/IPv4/UDP 4791/BTH RDMA WRITE Only/
#                                   RETH/64-byte payload/ICRC: 138-byte frames)
# Modes (tshark -n -r FILE ... > /dev/null, both captures each):
#   fields   -T fields -e frame.number   tshark makes the protocol tree visible for -T fields: the full
#                                        dissection with every item, no columns
#   filter   -Y PROTO                    display filter on the protocol (ub / infiniband), summary lines:
#                                        columns (Info) and an invisible tree holding only referenced fields
#   verbose  -V                          full tree printed (UB_BENCH_VERBOSE=1; slow)
# The UB runs include the plugin's protocol-state analysis (ub.analyze, the default).
# Environment: UB_BENCH_PACKETS (1000000), UB_BENCH_RUNS (3: best wall time counts; CPU = user + sys of
# that run), UB_BUILD_DIR (build; configured RelWithDebInfo if missing), UB_BENCH_VERBOSE (0).
# Results: bench/out/tshark_vs_ib.md (copied by hand into bench/README-wireshark.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
. scripts/deps.sh
OUT=bench/out
N=${UB_BENCH_PACKETS:-1000000}
RUNS=${UB_BENCH_RUNS:-3}
B=${UB_BUILD_DIR:-build}
VERBOSE=${UB_BENCH_VERBOSE:-0}
mkdir -p "$OUT"

command -v tshark >/dev/null 2>&1 || { echo "tshark is not installed (apt-get install tshark)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed for bench/gen_rocev2.py" >&2; exit 2; }

ub_section "build"
if [ ! -f "$B"/CMakeCache.txt ]; then cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo; fi
cmake --build "$B" -j"$(nproc)" --target ubgen ub
bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$B"/CMakeCache.txt)
case "$bt" in
    Release|RelWithDebInfo|MinSizeRel) ;;
    *) echo "warning: $B/ is a $bt build: the plugin is not optimised, UB numbers will be low" ;;
esac
plugin=$(compgen -G "$B/plugins/*/epan/ub.so" | head -1 || true)
[ -n "$plugin" ] || { echo "plugin not built: $B/plugins/<ver>/epan/ub.so (needs wireshark-dev, -DUB_DISSECTOR=ON)" >&2; exit 2; }

ub_section "captures"
ubcap=$OUT/bench-1M.pcap
ibcap=$OUT/rocev2-1M.pcap
if [ "$N" != 1000000 ]; then ubcap=$OUT/bench-$N.pcap; ibcap=$OUT/rocev2-$N.pcap; fi
if [ ! -s "$ubcap" ] || [ bench/write64.ub -nt "$ubcap" ]; then
    echo "generating $ubcap ($N packets)"
    "$B"/tools/ubgen --repeat "$N" -w "$ubcap.tmp" bench/write64.ub
    mv -f "$ubcap.tmp" "$ubcap"
fi
if [ ! -s "$ibcap" ] || [ bench/gen_rocev2.py -nt "$ibcap" ]; then
    echo "generating $ibcap ($N packets)"
    python3 bench/gen_rocev2.py -n "$N" -w "$ibcap.tmp"
    mv -f "$ibcap.tmp" "$ibcap"
fi
for c in "$ubcap" "$ibcap"; do
    echo "$c: $(stat -c %s "$c") bytes"
done

# tshark, unprivileged (as root it ignores WIRESHARK_PLUGIN_DIR), empty HOME, private plugin folder
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ver=$(basename "$(dirname "$(dirname "$plugin")")")
mkdir -p "$work/plugins/$ver/epan" "$work/home"
cp "$plugin" "$work/plugins/$ver/epan/ub.so"
cp "$ubcap" "$ibcap" "$work/"
chmod -R a+rX "$work"
chmod 755 "$work"
ts=()
if [ "$(id -u)" -eq 0 ]; then
    if [ "$(unshare -U id -u 2>/dev/null)" = 65534 ]; then ts=(unshare -U)
    else echo "running as root and unable to drop privileges (unshare -U): tshark would ignore the plugin" >&2; exit 2; fi
fi
ts+=(env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" WIRESHARK_PLUGIN_DIR="$work/plugins" tshark)
"${ts[@]}" -G plugins 2>/dev/null | grep -Eq '^ub\.so[[:space:]]' || { echo "tshark does not load $plugin" >&2; exit 2; }
ubf=$work/$(basename "$ubcap")
ibf=$work/$(basename "$ibcap")
# sanity: every packet is UB / InfiniBand
nub=$("${ts[@]}" -n -r "$ubf" -c 1000 -Y ub -T fields -e frame.number 2>/dev/null | wc -l)
nib=$("${ts[@]}" -n -r "$ibf" -c 1000 -Y "infiniband.bth.opcode == 10" -T fields -e frame.number 2>/dev/null | wc -l)
if [ "$nub" != 1000 ] || [ "$nib" != 1000 ]; then
    echo "sanity check failed: $nub UB / $nib RDMA WRITE Only of the first 1000" >&2
    exit 2
fi

# best_of RUNS CMD...: the run with the best wall time; sets BEST_WALL and BEST_CPU (seconds)
best_of() {
    local runs=$1 i t w u s rc
    shift
    BEST_WALL="" BEST_CPU=""
    for ((i = 0; i < runs; i++)); do
        t=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1) && rc=0 || rc=$?
        read -r w u s <<<"$(printf '%s\n' "$t" | tail -1)"
        if [ "$rc" -ne 0 ]; then echo "failed (exit $rc): $*" >&2; return 1; fi
        if [ -z "$BEST_WALL" ] || awk -v a="$w" -v b="$BEST_WALL" 'BEGIN { exit !(a < b) }'; then
            BEST_WALL=$w
            BEST_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
        fi
    done
}
pps() { awk -v n="$N" -v s="$1" 'BEGIN { if (s > 0) printf "%.0f", n / s; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

ub_section "timing (best of $RUNS; UB and IB alternate)"
modes=(fields filter)
[ "$VERBOSE" = 1 ] && modes+=(verbose)
declare -A W C
for m in "${modes[@]}"; do
    for p in ub ib; do
        f=$ubf
        proto=ub
        [ $p = ib ] && { f=$ibf; proto=infiniband; }
        case $m in
            fields) args=(-T fields -e frame.number) ;;
            filter) args=(-Y "$proto") ;;
            verbose) args=(-V) ;;
        esac
        best_of "$RUNS" "${ts[@]}" -n -r "$f" "${args[@]}"
        W[$m.$p]=$BEST_WALL
        C[$m.$p]=$BEST_CPU
        printf '%-8s %-3s %8s s wall %8s s CPU %9s packets/s\n' "$m" "$p" "$BEST_WALL" "$BEST_CPU" "$(pps "$BEST_WALL")"
    done
done

ub_section "results"
{
    echo "# tshark: UB (ubscope plugin) vs InfiniBand (RoCEv2)"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- $(tshark -v 2>/dev/null | head -1); plugin $B/ ($bt), analysis on (default)"
    echo "- UB: \`$ubcap\`, $N packets, 100-byte flit records (CFG 9 compact Write, 64-byte payload)"
    echo "- IB: \`$ibcap\`, $N packets, 138-byte RoCEv2 frames (BTH RDMA WRITE Only + RETH, 64-byte payload, ICRC)"
    echo "- best wall time of $RUNS runs, including tshark start-up (~0.4 s); CPU = user + sys of that run"
    echo
    echo "| mode | tshark options | UB wall (s) | UB CPU (s) | UB packets/s | IB wall (s) | IB CPU (s) | IB packets/s | UB/IB throughput (wall) | (CPU) |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for m in "${modes[@]}"; do
        # shellcheck disable=SC2016  # markdown code spans, not expansions
        case $m in
            fields) o='`-T fields -e frame.number`' ;;
            filter) o='`-Y ub` / `-Y infiniband`' ;;
            verbose) o='`-V`' ;;
        esac
        echo "| $m | $o | ${W[$m.ub]} | ${C[$m.ub]} | $(pps "${W[$m.ub]}") | ${W[$m.ib]} | ${C[$m.ib]} | $(pps "${W[$m.ib]}") | **$(ratio "${W[$m.ib]}" "${W[$m.ub]}")** | $(ratio "${C[$m.ib]}" "${C[$m.ub]}") |"
    done
    echo
    echo "UB/IB > 1: tshark dissects UB packets faster than RoCEv2 packets (aim: ≥ 1)."
} >"$OUT"/tshark_vs_ib.md
cat "$OUT"/tshark_vs_ib.md
