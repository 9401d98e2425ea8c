#!/usr/bin/env bash
# ubreplay benchmarks, in one run, inside a private user + network namespace (`unshare -rn`) on a veth
# pair: nothing leaves the machine.
#   1. top speed: 94-byte UBoE frames (bench/uboe96.ub), 1,000,000 per run, best of UB_BENCH_RUNS (3):
#        ubreplay --topspeed --preload   next to   tcpreplay --topspeed -K (same pcap)
#        and the floor of the I/O module (bench/iosend.c: a bare sendmmsg loop through io.c)
#   2. rate accuracy: --pps 1k, 100k, 500k for UB_BENCH_SECONDS (30) each: achieved vs requested rate,
#        lateness p50/p99/max (the time the send call returned minus the deadline)
#   3. live checking: ubpeer answers on the far end, ubreplay --check judges requests and answers
#        (TPACK + TAACK per Write, its own transport acks, --resend) at --pps 20k and 40k (UB_BENCH_LIVE_RATES) for
#        UB_BENCH_LIVE_SECONDS (10) each, without spinning (--spin 0): packets judged per second and per
#        CPU-second of ubreplay
# The machine's load (uptime) is printed before and after: other processes change the numbers.
#   bench/replay.sh            -> bench/out/replay.md
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${UB_BENCH_RUNS:-3}
SECS=${UB_BENCH_SECONDS:-30}
LIVE=${UB_BENCH_LIVE_SECONDS:-10}
B=${UB_BUILD_DIR:-build}
OUT=bench/out
mkdir -p "$OUT"
if [ "${UB_IN_NETNS:-}" != 1 ]; then
    . scripts/deps.sh
    ub_section "build"
    if [ ! -f "$B"/CMakeCache.txt ]; then cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo; fi
    cmake --build "$B" -j"$(nproc)" --target ubreplay ubgen ubpeer ubdump
    cc -O2 -Wall -Ilibubparse/include bench/iosend.c libubparse/src/io.c -o "$OUT"/iosend
    command -v tcpreplay > /dev/null || { echo "tcpreplay not installed (apt-get install tcpreplay)" >&2; exit 2; }
    ub_section "captures"
    "$B"/tools/ubgen --repeat 100000 -w "$OUT"/replay-uboe-100k.pcap bench/uboe96.ub
    # 10,000 distinct Writes (PSN and TASSN counting up) for the live check
    {
        echo "@capture format=pcapng"
        for i in $(seq 1 10000); do
            printf '@packet dir=out\neth\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2\n'
            printf 'udp srcport=49152\nrtph last=1 srctpn=0x100 dsttpn=0x200 psn=%d tpmsn=%d\n' "$i" "$i"
            printf 'btah taopcode=Write ini_tassn=%d ini_rc_id=0x10\nmaetah address=0x%x tokenid=0x5 length=8\npayload inc=8\n' \
                $((i % 65536)) $((4096 + 64 * (i % 1000)))
        done
    } > "$OUT"/replay-req-10k.ub
    "$B"/tools/ubgen -w "$OUT"/replay-req-10k.pcapng "$OUT"/replay-req-10k.ub
    UB_IN_NETNS=1 exec unshare -rn bash "$0" "$@"
fi

# ---- inside the namespace
PATH=$PATH:/usr/sbin:/sbin
R=$B/tools/ubreplay
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null || true
echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 2>/dev/null || true
ip link set lo up
ip link add va type veth peer name vb
ip link set va up
ip link set vb up
CAP=$OUT/replay-uboe-100k.pcap
load0=$(uptime)
md=$OUT/replay.md
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d=d.get('replay', d); print(eval(sys.argv[2], {}, d))" "$@"; }

{
echo "load before: $load0"
echo
echo "### Top speed, 94-byte UBoE frames on veth (1,000,000 per run, best of $RUNS)"
echo
echo "| sender | packets/s | CPU s per M packets |"
echo "|---|---:|---:|"
best=0 bcpu=0
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%U %S" -o "$OUT"/t.txt "$R" -i va --topspeed --preload --loop 10 --max-packets 0 --max-duration 0 \
        --json "$CAP" > "$OUT"/ts.json 2>/dev/null
    pps=$(json "$OUT"/ts.json "int(achieved_pps)")
    cpu=$(tail -1 "$OUT"/t.txt | awk '{ printf "%.3f", ($1 + $2) }')
    if [ "$pps" -gt "$best" ]; then best=$pps bcpu=$cpu; fi
done
echo "| ubreplay --topspeed --preload | $(printf "%'d" "$best") | $bcpu |"
ubr=$best
best=0 bcpu=0
for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%U %S" -o "$OUT"/t.txt tcpreplay -i va --topspeed -K --loop 10 "$CAP" > "$OUT"/tcpr.txt 2>&1
    pps=$(awk '/Rated:/ { gsub(",", "", $6); printf "%d", $6 }' "$OUT"/tcpr.txt)
    cpu=$(tail -1 "$OUT"/t.txt | awk '{ printf "%.3f", ($1 + $2) }')
    if [ "${pps:-0}" -gt "$best" ]; then best=$pps bcpu=$cpu; fi
done
echo "| tcpreplay $(tcpreplay --version 2>&1 | awk 'NR == 1 { print $3 }') --topspeed -K | $(printf "%'d" "$best") | $bcpu |"
tcr=$best
best=0
for _ in $(seq "$RUNS"); do
    read -r _ _ _ _ pps _ < <("$OUT"/iosend va sendmmsg 1000000 94 64 2>/dev/null)
    if [ "${pps%.*}" -gt "$best" ]; then best=${pps%.*}; fi
done
echo "| bare sendmmsg loop (bench/iosend.c, the floor) | $(printf "%'d" "$best") | |"
echo
echo "ubreplay / tcpreplay: $(awk -v a="$ubr" -v b="$tcr" 'BEGIN { printf "%.2f", a / b }'); ubreplay / bare loop: $(awk -v a="$ubr" -v b="$best" 'BEGIN { printf "%.2f", a / b }')"
echo
echo "### Rate accuracy ($SECS s each, 94-byte frames)"
echo
echo "| --pps | packets | achieved pps | error | lateness p50 | p99 | max | late policy |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|"
for r in 1k 100k 500k; do
    "$R" -i va --pps "$r" --duration "${SECS}s" --loop 0 --preload --max-packets 0 --max-duration 0 --json "$CAP" \
        > "$OUT"/acc.json 2>/dev/null
    echo "| $r | $(json "$OUT"/acc.json sent) | $(json "$OUT"/acc.json "'%.3f' % achieved_pps") | $(json "$OUT"/acc.json "'%+.5f %%' % rate_error_pct") | $(json "$OUT"/acc.json "'%.2f us' % (lateness_ns['p50'] / 1e3)") | $(json "$OUT"/acc.json "'%.2f us' % (lateness_ns['p99'] / 1e3)") | $(json "$OUT"/acc.json "'%.2f us' % (lateness_ns['max'] / 1e3)") | burst |"
done
echo
echo "### Live checking (requests out, TPACK + TAACK back, all judged; $LIVE s per rate, --spin 0)"
echo
echo "| --pps | sent (incl. acks) | answers | judged packets/s | ubreplay CPU s | judged per CPU-second | errors |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for r in ${UB_BENCH_LIVE_RATES:-20k 40k}; do
    "$B"/tools/ubpeer -i vb -q > /dev/null 2>&1 &
    PEER=$!
    sleep 0.5
    /usr/bin/time -f "%U %S" -o "$OUT"/t.txt "$R" -i va --check --requests --resend --pps "$r" --spin 0 --duration "${LIVE}s" \
        --loop 0 --unique-per-loop --preload --max-packets 0 --max-duration 0 --report json \
        --report-output "$OUT"/live.json "$OUT"/replay-req-10k.pcapng > /dev/null 2>&1 || true
    kill "$PEER" 2>/dev/null
    wait "$PEER" 2>/dev/null || true
    sent=$(json "$OUT"/live.json sent)
    rcv=$(json "$OUT"/live.json "answers['received']")
    dur=$(json "$OUT"/live.json duration_s)
    cpu=$(tail -1 "$OUT"/t.txt | awk '{ printf "%.3f", ($1 + $2) }')
    errs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['error'])" "$OUT"/live.json 2>/dev/null || echo "?")
    echo "| $r | $sent | $rcv | $(awk -v s="$sent" -v r="$rcv" -v d="$dur" 'BEGIN { printf "%d", (s + r) / d }') | $cpu | $(awk -v s="$sent" -v r="$rcv" -v c="$cpu" 'BEGIN { printf "%d", (s + r) / c }') | $errs |"
done
echo
echo "load after: $(uptime)"
} | tee "$md"
