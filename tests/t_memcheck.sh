#!/bin/sh
# valgrind memcheck over ubdump's decode paths, where ASan cannot see: reads of heap memory that was
# allocated but never written (the header-stack template cache behind ubdump's view is malloc'd and
# filled lazily, tmpl.c). ASan+UBSan (scripts/test.sh) do not report such reads; memcheck does.
# Inputs: 2,000 records of the mixed capture (bench/mixed.sh: every record shape of ten bundled
# captures, each seen ten times, so templates are learnt and hit), a copy of it with one byte of every
# record flipped (template misses, errors), and the malformed bundled captures. Modes: -q, text lines,
# -V, -T fields, --audit -q with one and two threads. Any memcheck error fails (--error-exitcode=99).
# Skipped (exit 77) without valgrind or on a sanitised build (the two runtimes do not mix).
set -eu
: "${UBDUMP:?}" "${UBGEN:?}" "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}"
. "$UB_SOURCE_DIR/tests/valgrind_lib.sh"
vg_require "memcheck does not run sanitised binaries"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=2000
UB_MIXED_UB=$tmp/mixed.ub UBGEN=$UBGEN UB_BUILD_DIR=$UB_BINARY_DIR sh -c \
    "bash '$UB_SOURCE_DIR/bench/mixed.sh' $N '$tmp/mixed.pcap'" >/dev/null
# the same capture, byte (7 k + 3) mod length of record k XORed with 0x5a (bench/mixed.sh writes a
# little-endian classic pcap with nanosecond timestamps)
python3 - "$tmp/mixed.pcap" "$tmp/flip.pcap" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
assert struct.unpack_from('<I', b, 0)[0] in (0xa1b2c3d4, 0xa1b23c4d), 'expected a little-endian classic pcap'
off, k = 24, 0
while off + 16 <= len(b):
    incl = struct.unpack_from('<I', b, off + 8)[0]
    if incl:
        b[off + 16 + (7 * k + 3) % incl] ^= 0x5a
    off += 16 + incl
    k += 1
assert k > 0, 'no packets'
open(sys.argv[2], 'wb').write(b)
EOF
fail=0
runs=0
# run CAPTURE ARGS...: ubdump under memcheck; its own exit code (findings, errors) does not matter
run() {
    cap=$1
    shift
    runs=$((runs + 1))
    rc=0
    valgrind -q --error-exitcode=99 --log-file="$tmp/vg" "$UBDUMP" -r "$cap" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$rc" = 99 ] || [ -s "$tmp/vg" ]; then
        echo "FAIL: memcheck: ubdump -r $(basename "$cap") $*"
        head -30 "$tmp/vg"
        fail=1
    elif [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
        echo "FAIL: ubdump -r $(basename "$cap") $* printed nothing (rc $rc)"
        fail=1
    fi
}
for cap in "$tmp/mixed.pcap" "$tmp/flip.pcap"; do
    run "$cap" -q
    grep -q "^$N records" "$tmp/out" || { echo "FAIL: ubdump -q -r $(basename "$cap"): expected $N records: $(head -1 "$tmp/out")"; fail=1; }
    run "$cap"
    run "$cap" -V
    run "$cap" -T fields -e ub.lph.cfg -e ub.btah.taopcode -e ub.rtph.psn
    run "$cap" --audit -q
    run "$cap" --audit -q --threads 2
done
for cap in "$UB_SOURCE_DIR"/captures/malformed*.pcapng; do
    run "$cap" -V
    run "$cap" --audit -q
done
echo "$runs memcheck runs"
[ "$runs" -ge 14 ] || { echo "FAIL: expected at least 14 runs, made $runs"; fail=1; }
exit $fail
