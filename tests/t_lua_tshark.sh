#!/bin/sh
# Wireshark's own Lua (5.2, inside tshark) sees the ubscope fields through Field.new: run the
# documented tap lua/wireshark_psn_tap.lua in tshark with our freshly built plugin and compare every
# PSN it prints with ubdump's -T fields output and with fixed expected values.
# FAILS (never skips) when tshark, its Lua or the plugin is missing.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
: "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}" "${UBDUMP:?}"
. "$UB_SOURCE_DIR/tests/tshark_setup.sh"
tshark -v 2>/dev/null | grep -q 'with Lua' || fail "this tshark has no Lua support"
cp "$UB_SOURCE_DIR/lua/wireshark_psn_tap.lua" "$UB_SOURCE_DIR/captures/audit_rtp_lossy.pcapng" "$tmp/" || fail copy
chmod -R a+rX "$tmp"

ts -q -n -X "lua_script:$tmp/wireshark_psn_tap.lua" -r "$tmp/audit_rtp_lossy.pcapng" > "$tmp/tap.txt" 2> "$tmp/tap.err" ||
    { cat "$tmp/tap.err"; fail "tshark with the Lua tap"; }
grep -v 'Running as user' "$tmp/tap.err" | grep -q . && { cat "$tmp/tap.err"; fail "tshark printed errors"; }

# oracle 1: ubdump on the same file (decimal PSN and TPOpcode per RTPH packet)
"$UBDUMP" -r "$tmp/audit_rtp_lossy.pcapng" -T fields -e frame.number -e ub.rtph.psn -e ub.rtph.tpopcode |
    awk -F'\t' '$2 != "" { printf "frame %d psn %d tpopcode %d\n", $1, $2, $3 + 0 }' > "$tmp/want.txt"
grep '^frame ' "$tmp/tap.txt" > "$tmp/got.txt"
[ -s "$tmp/want.txt" ] || fail "ubdump printed no RTPH packets"
cmp -s "$tmp/want.txt" "$tmp/got.txt" || { diff "$tmp/want.txt" "$tmp/got.txt" | head -20; fail "tap PSNs differ from ubdump"; }

# oracle 2: fixed values of the sample (captures/audit_rtp_lossy.ub)
for line in "frame 1 psn 200 tpopcode 1" "frame 3 psn 201 tpopcode 2" "frame 8 psn 202 tpopcode 1" \
            "frame 13 psn 300 tpopcode 1" "frame 17 psn 50 tpopcode 1"; do
    grep -qx "$line" "$tmp/got.txt" || fail "missing tap line: $line"
done
n=$(wc -l < "$tmp/got.txt")
grep -qx "rtph packets $n data [0-9]* acks [0-9]*" "$tmp/tap.txt" || { cat "$tmp/tap.txt" | tail -3; fail "tap summary"; }
echo "ok: Wireshark Lua tap read ub.rtph.psn of $n packets, identical to ubdump"
