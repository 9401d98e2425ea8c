#!/usr/bin/env bash
# Instructions per packet (callgrind, deterministic) of tshark's UB plugin on the mixed capture against
# tshark's InfiniBand dissector on equivalent RoCEv2 traffic (issue #11 item 4):
#   bench/tshark_cg.sh                      # UB_CG_PACKETS=200000 UB_CG_MODES="fields summary expert"
#   UB_CG_PACKETS=20000 bench/tshark_cg.sh  # the same per-packet figures, 10x faster (200-record cycle)
# Captures (bench/out/, rebuilt when missing or older than their sources):
#   UB  mixed-N.pcap        bench/mixed.sh N   (the 200 records of ten bundled captures, repeated)
#   IB  rocev2-like-N.pcap  bench/gen_rocev2.py --like mixed-N.pcap: one RoCEv2 frame per UB record,
#                           38 bytes longer (Ethernet/IPv4/UDP), a mix of RC opcodes (BTH + RETH/AETH/
#                           ImmDt/AtomicETH + payload + ICRC)
# Each mode runs tshark -n -r FILE under callgrind four times (tshark unprivileged, the plugin of
# UB_BUILD_DIR loaded in all four, the analysis on: ub.analyze is the default):
#   ub      the mixed capture
#   ub-off  the same with --disable-protocol ub --disable-protocol user_dlt: the frames go to Data
#   ib      the RoCEv2 capture with -d udp.port==4791,infiniband: Wireshark's own InfiniBand dissector
#           takes UDP 4791 directly (the plugin loaded in front of it would otherwise decode every RoCEv2
#           frame and run its IB RC audit first, and that work would be counted as the IB dissector's)
#   ib-off  the same with -d udp.port==4791,data: the UDP payload goes to Data (not to UDP's heuristics)
# dissector work per packet = (Ir(on) - Ir(off)) / N: tshark's start-up, file reading, the frame (and
# Ethernet/IP/UDP) dissection and the output cancel out; what is left is the dissector under test minus
# the Data dissector that stands in for it.
# Modes: fields   -T fields -e frame.number  (tshark makes the tree visible: every item is built)
#        summary  (no option)                 one-line summaries: columns, no tree
#        expert   -q -z expert                no output per packet; the expert tap (analysis findings)
# Environment: UB_CG_PACKETS (200000; a multiple of 200), UB_CG_MODES, UB_BUILD_DIR (build).
# Results: bench/out/tshark_cg.md (copied by hand into bench/README-wireshark.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/deps.sh
. scripts/deps.sh
OUT=bench/out
N=${UB_CG_PACKETS:-200000}
MODES=${UB_CG_MODES:-fields summary expert}
B=${UB_BUILD_DIR:-build}
mkdir -p "$OUT"
for t in tshark valgrind python3; do
    command -v $t >/dev/null 2>&1 || { echo "$t is not installed" >&2; exit 2; }
done

ub_section "build"
if [ ! -f "$B"/CMakeCache.txt ]; then cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUB_DISSECTOR=ON; fi
cmake --build "$B" -j2 --target ubgen ub
bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$B"/CMakeCache.txt)
plugin=$(compgen -G "$B/plugins/*/epan/ub.so" | head -1 || true)
[ -n "$plugin" ] || { echo "plugin not built: $B/plugins/<ver>/epan/ub.so (-DUB_DISSECTOR=ON)" >&2; exit 2; }

ub_section "captures"
ubcap=$OUT/mixed-$N.pcap
ibcap=$OUT/rocev2-like-$N.pcap
UB_BUILD_DIR=$B bench/mixed.sh "$N" "$ubcap"
if [ ! -s "$ibcap" ] || [ "$ubcap" -nt "$ibcap" ] || [ bench/gen_rocev2.py -nt "$ibcap" ]; then
    python3 bench/gen_rocev2.py --like "$ubcap" -w "$ibcap.tmp"
    mv -f "$ibcap.tmp" "$ibcap"
fi

# tshark unprivileged (as root it ignores WIRESHARK_PLUGIN_DIR), empty HOME, private plugin folder
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ver=$(basename "$(dirname "$(dirname "$plugin")")")
mkdir -p "$work/plugins/$ver/epan" "$work/home" "$work/noextcap" "$work/cg"
cp "$plugin" "$work/plugins/$ver/epan/ub.so"
cp "$ubcap" "$ibcap" "$work/"
chmod -R a+rwX "$work"
ts=()
if [ "$(id -u)" -eq 0 ]; then
    if [ "$(unshare -U id -u 2>/dev/null)" = 65534 ]; then ts=(unshare -U)
    else echo "running as root and unable to drop privileges (unshare -U): tshark would ignore the plugin" >&2; exit 2; fi
fi
ts+=(env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" WIRESHARK_PLUGIN_DIR="$work/plugins"
     WIRESHARK_EXTCAP_DIR="$work/noextcap")
"${ts[@]}" tshark -G plugins 2>/dev/null | grep -q "^ub\.so[[:space:]].*$work/plugins/$ver/epan/ub\.so" ||
    { echo "tshark does not load $plugin (a system-wide ub.so would win: $(compgen -G '/usr/lib/*/wireshark/plugins/*/epan/ub.so' || echo none))" >&2; exit 2; }
ubf=$work/$(basename "$ubcap")
ibf=$work/$(basename "$ibcap")
# sanity: every record is UB / InfiniBand, and the baselines dissect none of them
c=$((N < 1000 ? N : 1000))
nub=$("${ts[@]}" tshark -n -r "$ubf" -c "$c" -Y ub -T fields -e frame.number 2>/dev/null | wc -l)
nib=$("${ts[@]}" tshark -n -r "$ibf" -c "$c" -d udp.port==4791,infiniband -Y "infiniband && !sue && !ibrc_audit" -T fields -e frame.number 2>/dev/null | wc -l)
nub0=$("${ts[@]}" tshark -n -r "$ubf" -c "$c" --disable-protocol ub --disable-protocol user_dlt -Y data -T fields -e frame.number 2>/dev/null | wc -l)
nib0=$("${ts[@]}" tshark -n -r "$ibf" -c "$c" -d udp.port==4791,data -Y data -T fields -e frame.number 2>/dev/null | wc -l)
if [ "$nub $nib $nub0 $nib0" != "$c $c $c $c" ]; then
    echo "sanity check failed: of the first $c, $nub UB, $nib IB, $nub0 / $nib0 Data in the baselines" >&2
    exit 2
fi

# cg NAME FILE tshark-args...: Ir of one tshark run under callgrind
cg() {
    local name=$1 f=$2
    shift 2
    "${ts[@]}" valgrind --tool=callgrind --callgrind-out-file="$work/cg/$name.out" tshark -n -r "$f" "$@" \
        >/dev/null 2>"$work/cg/$name.err" || { cat "$work/cg/$name.err" >&2; echo "failed: $name" >&2; return 1; }
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/cg/$name.err" | tail -1
}
per() { awk -v a="$1" -v b="$2" -v n="$N" 'BEGIN { printf "%.0f", (a - b) / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

ub_section "callgrind, $N packets per capture"
declare -A IR
for m in $MODES; do
    case $m in
        fields) args=(-T fields -e frame.number) ;;
        summary) args=() ;;
        expert) args=(-q -z expert) ;;
        *) echo "unknown mode $m (fields, summary, expert)" >&2; exit 2 ;;
    esac
    IR[$m.ub]=$(cg "$m.ub" "$ubf" "${args[@]}")
    IR[$m.ub0]=$(cg "$m.ub0" "$ubf" --disable-protocol ub --disable-protocol user_dlt "${args[@]}")
    IR[$m.ib]=$(cg "$m.ib" "$ibf" -d udp.port==4791,infiniband "${args[@]}")
    IR[$m.ib0]=$(cg "$m.ib0" "$ibf" -d udp.port==4791,data "${args[@]}")
    printf '%-8s Ir: ub %s ub-off %s ib %s ib-off %s\n' "$m" "${IR[$m.ub]}" "${IR[$m.ub0]}" "${IR[$m.ib]}" "${IR[$m.ib0]}"
done

ub_section "results"
{
    echo "# tshark, instructions per packet (callgrind): UB plugin vs InfiniBand dissector"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(tshark -v 2>/dev/null | head -1); plugin $B/ ($bt), analysis on (default)"
    echo "- UB: \`$ubcap\` ($N records, bench/mixed.sh); IB: \`$ibcap\` ($N RoCEv2 frames, gen_rocev2.py --like)"
    echo "- dissector = (Ir(on) - Ir(dissector replaced by Data)) / $N; tshark = Ir(Data run) / $N, start-up included"
    echo
    echo "| mode | tshark options | tshark, UB capture | tshark, IB capture | UB plugin | IB dissector | UB/IB |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    for m in $MODES; do
        # shellcheck disable=SC2016  # markdown code spans, not expansions
        case $m in
            fields) o='`-T fields -e frame.number`' ;;
            summary) o='(none)' ;;
            expert) o='`-q -z expert`' ;;
        esac
        u=$(per "${IR[$m.ub]}" "${IR[$m.ub0]}")
        i=$(per "${IR[$m.ib]}" "${IR[$m.ib0]}")
        echo "| $m | $o | $(per "${IR[$m.ub0]}" 0) | $(per "${IR[$m.ib0]}" 0) | $u | $i | **$(ratio "$u" "$i")** |"
    done
    echo
    echo "UB/IB <= 0.5 is the aim of issue #11 item 4."
} >"$OUT"/tshark_cg.md
cat "$OUT"/tshark_cg.md
