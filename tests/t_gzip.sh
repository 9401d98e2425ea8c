#!/bin/sh
# gzip-compressed captures are read as Wireshark reads them (libubparse/src/capgz.c): the same records
# as the uncompressed file, from a file or standard input, across the reader's 1 MiB buffer, members
# one after another (concatenated .gz files: their pcapng sections in turn); bytes after the last member
# that start no other are ignored (gzip -d); a truncated or corrupt file gives the records before the
# damage, then an error naming it; gzip data that is not a capture says so. ubreplay reads them too.
set -eu
U=${UBDUMP:?}
R=${UBREPLAY:?}
G=${UBGEN:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
same() { [ "$2" = "$3" ] || { printf 'want:\n%s\ngot:\n%s\n' "$2" "$3" | head -20; fail "$1"; }; }
command -v gzip > /dev/null 2>&1 || fail "gzip is not installed"

# every bundled capture: -V and the audit report the same as the uncompressed file's
n=0
for c in "$C"/*.pcapng; do
    gzip -c "$c" > "$tmp/c.gz"
    same "$(basename "$c"): -V" "$("$U" -r "$c" -V 2>&1)" "$("$U" -r "$tmp/c.gz" -V 2>&1 | sed "s|$tmp/c.gz|$c|g")"
    n=$((n + 1))
done
[ "$n" -ge 30 ] || fail "only $n bundled captures"
gzip -c "$C/audit_rtp_lossy.pcapng" > "$tmp/lossy.gz"
same "--audit" "$("$U" -q --audit -r "$C/audit_rtp_lossy.pcapng" 2>&1)" \
    "$("$U" -q --audit -r "$tmp/lossy.gz" 2>&1 | sed "s|$tmp/lossy.gz|$C/audit_rtp_lossy.pcapng|g")"

# larger than the read buffer (1 MiB decompressed, many inflate calls), pcap, and standard input
"$G" --repeat 20000 -w "$tmp/big.pcap" "$S/bench/write64.ub" > /dev/null
gzip -c "$tmp/big.pcap" > "$tmp/big.gz"
[ "$(stat -c %s "$tmp/big.pcap")" -gt 1500000 ] || fail "big.pcap is too small to cross the buffer"
want=$("$U" -r "$tmp/big.pcap" -T fields -e frame.number -e ub.btah.taopcode -e ub.bcrc.status | md5sum)
same "pcap of 20,000 records" "$want" "$("$U" -r "$tmp/big.gz" -T fields -e frame.number -e ub.btah.taopcode -e ub.bcrc.status | md5sum)"
same "standard input" "$want" "$("$U" -r - -T fields -e frame.number -e ub.btah.taopcode -e ub.bcrc.status < "$tmp/big.gz" | md5sum)"
same "20,000 records counted" 20000 "$("$U" -r "$tmp/big.gz" -T fields -e frame.number | wc -l | tr -d ' ')"

# incompressible: the compressed file is larger than the reader's first read (1 MiB) and the inflate
# input buffer; every record, byte for byte
python3 - "$tmp/rand.pcap" <<'PY'
import random, struct, sys
r = random.Random(7)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(3000):
        d = bytes(r.getrandbits(8) for _ in range(1000))
        f.write(struct.pack("<IIII", i, 0, len(d), len(d)) + d)
PY
gzip -c "$tmp/rand.pcap" > "$tmp/rand.gz"
[ "$(stat -c %s "$tmp/rand.gz")" -gt 2000000 ] || fail "rand.gz is compressible"
same "incompressible .gz: every record" "$("$U" -r "$tmp/rand.pcap" -T fields -e frame.number -e data.data | md5sum)" \
    "$("$U" -r "$tmp/rand.gz" -T fields -e frame.number -e data.data | md5sum)"
same "incompressible .gz: 3000 records" 3000 "$("$U" -r "$tmp/rand.gz" -T fields -e frame.number | wc -l | tr -d ' ')"

# concatenated members = the concatenated files (two pcapng sections); trailing zeros ignored
gzip -c "$C/cfg7_rtp.pcapng" > "$tmp/a.gz"
gzip -c "$C/cfg9_coherent.pcapng" > "$tmp/b.gz"
cat "$C/cfg7_rtp.pcapng" "$C/cfg9_coherent.pcapng" > "$tmp/ab.pcapng"
cat "$tmp/a.gz" "$tmp/b.gz" > "$tmp/ab.gz"
same "two members" "$("$U" -r "$tmp/ab.pcapng" -V)" "$("$U" -r "$tmp/ab.gz" -V)"
same "two members: both files' records" "$(($("$U" -r "$C/cfg7_rtp.pcapng" | wc -l) + $("$U" -r "$C/cfg9_coherent.pcapng" | wc -l)))" \
    "$("$U" -r "$tmp/ab.gz" | wc -l | tr -d ' ')"
{ cat "$tmp/a.gz"; head -c 64 /dev/zero; } > "$tmp/az.gz"
same "trailing zeros" "$("$U" -r "$C/cfg7_rtp.pcapng")" "$("$U" -r "$tmp/az.gz")"

# truncated: the records before the cut, then the error (exit 2)
sz=$(stat -c %s "$tmp/big.gz")
head -c $((sz / 2)) "$tmp/big.gz" > "$tmp/cut.gz"
rc=0
"$U" -r "$tmp/cut.gz" -T fields -e frame.number > "$tmp/cut.txt" 2> "$tmp/cut.err" || rc=$?
same "truncated: exit status" 2 "$rc"
grep -q "cut.gz: compressed data ends early (truncated gzip file" "$tmp/cut.err" || fail "truncated: $(cat "$tmp/cut.err")"
k=$(wc -l < "$tmp/cut.txt")
[ "$k" -gt 1000 ] && [ "$k" -lt 20000 ] || fail "truncated: $k records before the cut"
same "truncated: the records in order" "$(seq 1 "$k")" "$(cat "$tmp/cut.txt")"

# a bad CRC-32 in the member's trailer: every record, then the error (exit 2); damaged deflate data
# in the middle: an error, never a crash (what it reads as depends on the damage)
python3 - "$tmp/a.gz" "$tmp/crc.gz" "$tmp/big.gz" "$tmp/bad.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-8] ^= 0x01
open(sys.argv[2], "wb").write(b)
b = bytearray(open(sys.argv[3], "rb").read())
for i in range(len(b) // 2, len(b) // 2 + 64): b[i] ^= 0xA5
open(sys.argv[4], "wb").write(b)
PY
rc=0
"$U" -r "$tmp/crc.gz" > "$tmp/crc.txt" 2> "$tmp/crc.err" || rc=$?
same "bad CRC: exit status" 2 "$rc"
same "bad CRC: every record" "$("$U" -r "$C/cfg7_rtp.pcapng")" "$(cat "$tmp/crc.txt")"
grep -Eq "crc.gz: corrupt gzip data at compressed offset [0-9]+: incorrect data check" "$tmp/crc.err" || fail "bad CRC: $(cat "$tmp/crc.err")"
rc=0
"$U" -r "$tmp/bad.gz" -q > /dev/null 2> "$tmp/bad.err" || rc=$?
same "damaged: exit status" 2 "$rc"
grep -q "bad.gz: " "$tmp/bad.err" || fail "damaged: $(cat "$tmp/bad.err")"

# gzip of something else
echo "not a capture" | gzip > "$tmp/text.gz"
rc=0
"$U" -r "$tmp/text.gz" > /dev/null 2> "$tmp/text.err" || rc=$?
same "gzip text: exit status" 2 "$rc"
same "gzip text: message" "ubdump: $tmp/text.gz: gzip-compressed, but not a pcap or pcapng file (magic 6e 6f 74 20)" "$(cat "$tmp/text.err")"

# ubreplay reads the same records from a .gz (a dry run into a file: nothing is sent)
"$R" -w "$tmp/r1.pcapng" --topspeed "$C/cfg7_rtp.pcapng" > /dev/null 2>&1 || fail "ubreplay of the pcapng"
"$R" -w "$tmp/r2.pcapng" --topspeed "$tmp/a.gz" > /dev/null 2>&1 || fail "ubreplay of the .gz"
same "ubreplay -w of a .gz" "$("$U" -r "$tmp/r1.pcapng" -T fields -e frame.number -e ub.rtph.psn)" "$("$U" -r "$tmp/r2.pcapng" -T fields -e frame.number -e ub.rtph.psn)"
[ "$("$U" -r "$tmp/r2.pcapng" | wc -l)" -eq "$("$U" -r "$C/cfg7_rtp.pcapng" | wc -l)" ] || fail "ubreplay of the .gz: record count"
echo "t_gzip: ok ($n captures)"
