#!/bin/sh
# ubdump -T fields prints every ub.* field exactly as `tshark -n -2 -T fields` with our plugin (issue
# #10): on EVERY bundled capture, every ub.* header field both tools know (tshark -G fields ∩ ubdump
# -G fields; the analysis fields are t_fields_an's; ubdump's ub.eth/ipv4/udp/... aliases of
# Wireshark's outer layers are not plugin fields), all occurrences, line by line. tshark's text is
# not the tree's: hex integers carry the digits of their FT_UINTn (0x01 for a 4-bit field, 0x0020
# for 6 bits across two bytes), BASE_DEC_HEX values are decimal, R-34 GUIDs are in wire order and an
# empty byte string is <MISSING>. Explicit values below make the test fail if both tools change alike.
# tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

ts -G fields 2> "$tmp/g.err" | awk -F'\t' '$1 == "F" { print $3 }' | sort -u > "$tmp/tf"
"$U" -G fields | awk -F'\t' '$1 ~ /^ub\./ && $3 != "analysis" { print $1 }' | sort -u > "$tmp/uf"
comm -12 "$tmp/tf" "$tmp/uf" | grep -v '^ub\.\(eth\|ipv4\|ipv6\|udp\|vlan\|data\|tcp\|arp\|sll\)\.' > "$tmp/both" || true
nf=$(wc -l < "$tmp/both")
[ "$nf" -ge 500 ] || fail "only $nf ub.* fields known to both tools"
E=$(sed 's/^/-e /' "$tmp/both" | tr '\n' ' ') # all fields in one run per capture (one tshark start each)

ncap=0 nval=0
for c in "$S"/captures/*.pcapng; do
    name=$(basename "$c" .pcapng)
    uo= to=
    [ "$name" = noncrc ] && uo="--noncrc" to="-o ub.crc_mode:noncrc"
    # shellcheck disable=SC2086
    ts -n -2 $to -r "$c" -T fields -e frame.number $E > "$tmp/ts.txt" 2> "$tmp/ts.err" ||
        { cat "$tmp/ts.err"; fail "$name: tshark -T fields"; }
    # shellcheck disable=SC2086
    "$U" $uo -r "$c" -T fields -e frame.number $E > "$tmp/ub.txt" 2> "$tmp/ub.err" ||
        { cat "$tmp/ub.err"; fail "$name: ubdump -T fields"; }
    if ! cmp -s "$tmp/ts.txt" "$tmp/ub.txt"; then # name the first field that differs
        paste -d '\n' "$tmp/ts.txt" "$tmp/ub.txt" | awk -F'\t' -v names="frame.number $(tr '\n' ' ' < "$tmp/both")" '
            BEGIN { split(names, nm, " ") }
            NR % 2 { n = split($0, t, "\t"); next }
            { m = split($0, u, "\t"); for (i = 1; i <= (n > m ? n : m); i++) if (t[i] != u[i]) {
                printf "frame line %d, %s: tshark \"%s\", ubdump \"%s\"\n", NR / 2, nm[i], substr(t[i], 1, 80), substr(u[i], 1, 80); exit } }'
        fail "$name: ubdump -T fields differs from tshark's"
    fi
    nval=$((nval + $(tr '\t' '\n' < "$tmp/ub.txt" | grep -c . || true)))
    ncap=$((ncap + 1))
done
[ "$ncap" -ge 30 ] || fail "only $ncap captures compared"
[ "$nval" -ge 5000 ] || fail "only $nval values compared"

# explicit values (ubdump; tshark agreed above)
expect() { [ "$2" = "$3" ] || fail "$1: got '$3', want '$2'"; }
expect "dllcb frame 4 lch ctrl/sub_ctrl/fixed" "0x0c	0x08	0x0020" \
    "$("$U" -r "$S/captures/dllcb.pcapng" -T fields -Y frame.number==4 -e ub.lch.ctrl -e ub.lch.sub_ctrl -e ub.lch.fixed)"
expect "urpc request_id (BASE_DEC_HEX)" "4097" \
    "$("$U" -r "$S/captures/urpc.pcapng" -T fields -e ub.urpc.request_id | grep . | head -1)"
expect "cfg6_enum scan GUID in wire order" "00000009000000001200000012345678" \
    "$("$U" -r "$S/captures/cfg6_enum.pcapng" -T fields -e ub.scan.guid | grep . | head -1)"
# a long byte string (a 1,500-byte payload) is printed whole, as tshark does (-T fields and -T json -e)
UBGEN=${UBGEN:?UBGEN not set (run through ctest)}
sed 's/^payload inc=64$/payload inc=1500/' "$S/bench/write64.ub" > "$tmp/big.ub"
grep -q '^payload inc=1500$' "$tmp/big.ub" || fail "bench/write64.ub has no 'payload inc=64' line to grow"
"$UBGEN" -w "$tmp/big.pcap" "$tmp/big.ub" > /dev/null || fail "ubgen big.pcap"
ts -n -r "$tmp/big.pcap" -T fields -e ub.payload.data -e ub.bcrc.crc30 > "$tmp/ts.txt" 2>&1 || fail "tshark big.pcap"
"$U" -r "$tmp/big.pcap" -T fields -e ub.payload.data -e ub.bcrc.crc30 > "$tmp/ub.txt" 2>&1 || fail "ubdump big.pcap"
cmp -s "$tmp/ts.txt" "$tmp/ub.txt" || { cut -c1-100 "$tmp/ts.txt" "$tmp/ub.txt"; fail "1,500-byte payload: ubdump -T fields differs from tshark's"; }
expect "1,500-byte payload: hex digits" 3000 "$(cut -f1 "$tmp/ub.txt" | tr -d '\n' | wc -c | tr -d ' ')"
expect "1,500-byte payload: its last bytes" "d9dadb" "$(cut -f1 "$tmp/ub.txt" | tail -c 7 | tr -d '\n')"
expect "1,500-byte payload: -T json -e" 3000 \
    "$("$U" -r "$tmp/big.pcap" -T json -e ub.payload.data | grep -A1 '"ub.payload.data"' | tail -1 | tr -d ' "\n' | wc -c | tr -d ' ')"
echo "t_fields_ws: $nf fields, $ncap captures, $nval values identical to tshark"
