#!/usr/bin/env bash
# Scaling of `ubdump -q --audit --threads N` (issue #11 item 3: >= 0.8 N x one thread on N idle cores,
# on mixed traffic and on a capture where one endpoint pair carries all traffic):
#   bench/threads.sh [CAPTURE...]
# Without arguments: bench/out/bench-1M.pcap (ubgen --repeat of the benchmark Write: one endpoint
# pair) and bench/out/mixed-1000000.pcap (bench/mixed.sh), generated as bench/run.sh does.
# Two measurements:
#   wall     N = 1 .. UB_BENCH_MAX_THREADS (default nproc): best wall time of UB_BENCH_RUNS (default 3)
#            interleaved rounds; speedup = wall(1) / wall(N), efficiency = speedup / N. Meaningful
#            only on an idle machine with N free cores.
#   ceiling  in the same rounds, N independent one-thread runs at once (nothing shared between them):
#            N x wall(1) / wall(N copies) is what this machine's N CPUs give work that never talks
#            across cores, the most any --threads N could reach here (vCPUs that share a physical
#            core or its memory bandwidth give less than N).
#   callgrind N = 1 .. max(4, nproc) over the first UB_BENCH_CG_PACKETS records (default 200000; 0
#            skips): instructions of every thread (--separate-threads=yes), deterministic. Printed:
#            all threads per packet, overhead vs one thread, the busiest thread per packet (under
#            valgrind the threads run one at a time, so who decoded which batch follows valgrind's
#            schedule), and the bound: decoding (decode_slot) goes to whichever thread is free, the
#            rest of each thread's work is sequential (the feeder's reading, each worker's engine), so
#            N cores need at least max(all / N, feeder without decoding, largest engine) and the
#            speedup bound is one-thread instructions / that (the pipeline is as fast as its slowest
#            stage; assumes time follows instructions).
#   round trip  before every round, the core-to-core round trip of a cache line between CPUs 0 and
#            1 (bench/pingpong.c): on a VM the host may place the two vCPUs near each other or far
#            apart and move them while this runs, and every line one thread writes and another reads
#            costs accordingly (the independent copies of the ceiling share nothing and do not see
#            it). Printed per round with that round's wall times.
# UB_BENCH_PACKETS (default 1000000), UB_BUILD_DIR (build; optimised, unsanitised). Results:
# bench/out/threads.md.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out
RUNS=${UB_BENCH_RUNS:-3}
N=${UB_BENCH_PACKETS:-1000000}
CG=${UB_BENCH_CG_PACKETS:-200000}
B=${UB_BUILD_DIR:-build}
CPUS=$(nproc)
MAXT=${UB_BENCH_MAX_THREADS:-$CPUS}
CGMAX=$((CPUS > 4 ? CPUS : 4))
mkdir -p "$OUT"
[ -f "$B"/CMakeCache.txt ] || cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$B" -j2 --target ubdump ubgen >/dev/null
PP=
if [ "$CPUS" -ge 2 ]; then
    cc -O2 -Wall -pthread bench/pingpong.c -o "$OUT"/pingpong
    PP=$OUT/pingpong
fi
U=$B/tools/ubdump

caps=()
if [ $# -ge 1 ]; then
    caps=("$@")
else
    cap=$OUT/bench-$N.pcap
    [ "$N" = 1000000 ] && cap=$OUT/bench-1M.pcap
    if [ ! -s "$cap" ] || [ bench/write64.ub -nt "$cap" ]; then
        "$B"/tools/ubgen --repeat "$N" -w "$cap.tmp" bench/write64.ub
        mv -f "$cap.tmp" "$cap"
    fi
    bench/mixed.sh "$N" "$OUT/mixed-$N.pcap" >/dev/null
    caps=("$cap" "$OUT/mixed-$N.pcap")
fi
for c in "${caps[@]}"; do [ -f "$c" ] || { echo "no such file: $c" >&2; exit 2; }; done

# best wall time of `ubdump -q --audit --threads N` (exit 0/1: findings are fine)
declare -A WALL COPIES IRT IRM IRC ROUND RTT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "wall: $RUNS rounds, N = 1..$MAXT on $CPUS CPUs (load average $load_before)"
for ((r = 1; r <= RUNS; r++)); do
    RTT[$r]=-
    [ -z "$PP" ] || RTT[$r]=$("$PP" 0 1 100000 2>/dev/null || echo -)
    for c in "${caps[@]}"; do
        for ((j = 1; j <= MAXT; j++)); do
            s=$(date +%s.%N)
            "$U" -r "$c" -q --audit --threads "$j" >/dev/null 2>&1 || [ $? -eq 1 ]
            w=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.4f", b - a }')
            k="$c|$j"
            ROUND["$k|$r"]=$w
            if [ -z "${WALL[$k]:-}" ] || awk -v a="$w" -v b="${WALL[$k]}" 'BEGIN { exit !(a < b) }'; then WALL[$k]=$w; fi
            [ "$j" -ge 2 ] || continue
            s=$(date +%s.%N) # the ceiling: j one-thread runs at once
            pids=()
            for ((i = 0; i < j; i++)); do
                "$U" -r "$c" -q --audit --threads 1 >/dev/null 2>&1 &
                pids+=($!)
            done
            for p in "${pids[@]}"; do wait "$p" || [ $? -eq 1 ]; done
            w=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.4f", b - a }')
            if [ -z "${COPIES[$k]:-}" ] || awk -v a="$w" -v b="${COPIES[$k]}" 'BEGIN { exit !(a < b) }'; then COPIES[$k]=$w; fi
        done
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$CG" != 0 ] && command -v valgrind >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for c in "${caps[@]}"; do
        for ((j = 1; j <= CGMAX; j++)); do
            rm -f "$tmp"/cg.*
            valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/cg.%p" \
                "$U" -r "$c" -c "$CG" -q --audit --threads "$j" >/dev/null 2>&1 || true
            read -r t m < <(cat "$tmp"/cg.* | awk '/^totals:/ { s += $2; if ($2 > m) m = $2 } END { print s + 0, m + 0 }')
            IRT["$c|$j"]=$t
            IRM["$c|$j"]=$m
            # the critical path: the largest sequential part of one thread (its work less decode_slot)
            crit=0
            for f in "$tmp"/cg.*; do
                ft=$(awk '/^totals:/ { print $2; exit }' "$f")
                [ -n "$ft" ] || continue
                fd=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null | awk '/shard.c:decode_slot \[/ && !d { gsub(",", "", $1); d = $1 } END { print d + 0 }' || true)
                sq=$((ft - ${fd:-0}))
                if [ $sq -gt $crit ]; then crit=$sq; fi
            done
            IRC["$c|$j"]=$crit
            echo "callgrind $c --threads $j: $t instructions in all threads, busiest thread $m"
        done
    done
fi

{
    echo "# ubdump --audit --threads N scaling"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $CPUS CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "- load average before: $load_before, after: $load_after (wall numbers mean something only when idle)"
    for c in "${caps[@]}"; do
        n= # records under callgrind (UB_BENCH_CG_PACKETS=0: none; ubdump -c 0 is an error)
        [ "$CG" = 0 ] || n=$("$U" -r "$c" -q -c "$CG" 2>/dev/null | sed -n 's/^\([0-9][0-9]*\) records.*/\1/p')
        echo
        echo "## \`$c\`"
        echo
        echo "| threads | wall s | wall speedup | efficiency (target >= 0.8) | ceiling: N one-thread copies at once, throughput x one | instr/packet, all threads | vs one thread | instr/packet, busiest thread | instr/packet, largest sequential part | bound | target 0.8 N |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        top=$((MAXT > CGMAX ? MAXT : CGMAX))
        for ((j = 1; j <= top; j++)); do
            w=${WALL[$c|$j]:-} t=${IRT[$c|$j]:-} m=${IRM[$c|$j]:-}
            w1=${WALL[$c|1]:-} t1=${IRT[$c|1]:-}
            sp=- ef=- ws=- ce=-
            [ "$j" = 1 ] && [ -n "$w" ] && ce=1.00
            if [ -n "${COPIES[$c|$j]:-}" ]; then
                ce=$(awk -v a="$w1" -v b="${COPIES[$c|$j]}" -v j="$j" 'BEGIN { printf "%.2f", j * a / b }')
            fi
            if [ -n "$w" ]; then
                ws=$w
                sp=$(awk -v a="$w1" -v b="$w" 'BEGIN { printf "%.2f", a / b }')
                ef=$(awk -v s="$sp" -v j="$j" 'BEGIN { printf "%.2f", s / j }')
            fi
            tp=- ov=- mp=- cp=- bd=-
            if [ -n "$t" ] && [ "$t" -gt 0 ]; then
                cr=${IRC[$c|$j]}
                tp=$(awk -v t="$t" -v n="$n" 'BEGIN { printf "%.0f", t / n }')
                ov=$(awk -v t="$t" -v a="$t1" 'BEGIN { printf "%.2f", t / a }')
                mp=$(awk -v t="$m" -v n="$n" 'BEGIN { printf "%.0f", t / n }')
                cp=$(awk -v t="$cr" -v n="$n" 'BEGIN { printf "%.0f", t / n }')
                bd=$(awk -v a="$t1" -v t="$t" -v j="$j" -v c="$cr" 'BEGIN { d = t / j; if (c > d) d = c; printf "%.2f", a / d }')
            fi
            echo "| $j | $ws | $sp | $ef | $ce | $tp | $ov | $mp | $cp | $bd | $(awk -v j="$j" 'BEGIN { printf "%.1f", 0.8 * j }') |"
        done
    done
    if [ -n "$PP" ] && [ "$MAXT" -ge 2 ]; then
        echo
        echo "## Rounds: core-to-core round trip and wall times (N = 1 / 2)"
        echo
        hdr="| round | round trip ns (CPUs 0-1) |"
        sep="|---:|---:|"
        for c in "${caps[@]}"; do hdr+=" \`$(basename "$c")\` N=1 s | N=2 s | speedup |"; sep+="---:|---:|---:|"; done
        echo "$hdr"
        echo "$sep"
        for ((r = 1; r <= RUNS; r++)); do
            row="| $r | ${RTT[$r]} |"
            for c in "${caps[@]}"; do
                a=${ROUND[$c|1|$r]} b=${ROUND[$c|2|$r]}
                row+=" $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }') |"
            done
            echo "$row"
        done
    fi
} >"$OUT"/threads.md
cat "$OUT"/threads.md
