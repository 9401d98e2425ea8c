#!/bin/sh
# Wireshark out of the box (issue #10 item 8), checked in a real tshark with the built plugin:
#  * cmake --install (component wireshark-profile) puts the configuration profile "UnifiedBus" into
#    <prefix>/share/wireshark/profiles/UnifiedBus; tshark -C UnifiedBus finds it there as a global
#    profile (WIRESHARK_DATA_DIR = <prefix>/share/wireshark) and shows its UB columns and colours;
#    scripts/wireshark-profile.sh gives the same result from the personal profiles;
#  * the profile's conversation/endpoint tabs name registered tables, its filter buttons compile;
#  * the Protocol column names the top UB layer; header items carry their key-field summaries.
# FAILS (never skips) when tshark is missing or the plugin was not built.
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }
info() { echo "  $*"; }

: "${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}" "${UB_BINARY_DIR:?UB_BINARY_DIR not set (run through ctest)}"
# shellcheck disable=SC1091
. "$UB_SOURCE_DIR/tests/tshark_setup.sh"
mkdir -p "$tmp/home2" || fail "mkdir"
for c in audit_rtp_lossy cfg6_mgmt cfg6_enum cfg5_netctl dllcb urpc stream malformed; do
    cp "$UB_SOURCE_DIR/captures/$c.pcapng" "$tmp/caps/" || fail "capture $c missing"
done

# ---- 1. the install rule (only this component: the plugin's own rule may point at system paths)
cmake --install "$UB_BINARY_DIR" --prefix "$tmp/inst" --component wireshark-profile > "$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "cmake --install --component wireshark-profile"; }
PROF="$tmp/inst/share/wireshark/profiles/UnifiedBus"
for f in colorfilters preferences recent dfilter_buttons; do
    cmp -s "$UB_SOURCE_DIR/dissector/profile/UnifiedBus/$f" "$PROF/$f" || fail "cmake --install: $PROF/$f missing or different"
done
info "cmake --install put the profile into <prefix>/share/wireshark/profiles/UnifiedBus"

chmod -R a+rX "$tmp"
nfail=0
expect() { # expect WHAT WANT GOT
    if [ "$2" != "$3" ]; then
        printf 'FAIL: %s:\n  expected [%s]\n  got      [%s]\n' "$1" "$2" "$3" >&2
        nfail=$((nfail + 1))
    fi
}
L="$tmp/caps/audit_rtp_lossy.pcapng"
chmod -R a+rwX "$tmp/home" "$tmp/home2" # tshark -C / wireshark-profile.sh write profiles there (unprivileged)

# ---- 2. the installed profile as a global profile: tshark -C UnifiedBus (copied to the personal ones)
tsg() { # ts with the install prefix's share/wireshark as Wireshark's data folder (global profiles)
    WIRESHARK_DATA_DIR="$tmp/inst/share/wireshark"
    export WIRESHARK_DATA_DIR
    ts "$@"
    r=$?
    unset WIRESHARK_DATA_DIR
    return $r
}
# columns No. Time Source Destination Protocol CFG VL TPN PSN TAOpcode TASSN Rule Length Info
COLS="$(printf '%s\n' \
    '8 0.000070000 0x010203 → 0x0a0b0c UB-TA 7 2 0x000301 202 Write 52 UB-TP-006 122 [TP Retransmission] CFG7 0x010203→0x0a0b0c RTP PSN 202 TPN 0x301→0x401 last Write req TASSN 52 addr 0x30d00 len 64' \
    '9 0.000080000 0x010203 → 0x0a0b0c UB-TA 7 2 0x000301 203 Write 53 UB-TP-003 122 [TP Retransmission] CFG7 0x010203→0x0a0b0c RTP PSN 203 TPN 0x301→0x401 last Write req TASSN 53 addr 0x30d40 len 64' \
    '20 0.000330000 0x0a0b0c → 0x010203 UB-TP 7 2 0x000402 60 UB-TP-008 34 CFG7 0x0a0b0c→0x010203 TPACK PSN 60 TPN 0x402→0x302')"
got=$(tsg -n -2 -C UnifiedBus -r "$L" -Y 'frame.number in {8, 9, 20}' 2> "$tmp/err.txt" | tr -s ' ' | sed 's/^ //')
expect 'global profile: UB columns (CFG VL TPN PSN TAOpcode TASSN Rule)' "$COLS" "$got"
[ -f "$tmp/home/.config/wireshark/profiles/UnifiedBus/preferences" ] || fail "tshark -C did not take the global profile UnifiedBus"
expect 'global profile: colour rules' "1 UB request;3 UB transport ack;4 UB bad TP;5 UB TPNAK;20 UB audit error;" \
    "$(tsg --color -n -2 -C UnifiedBus -r "$L" -Y 'frame.number in {1, 3, 4, 5, 20}' -T fields -e frame.number \
       -e frame.coloring_rule.name 2>/dev/null | tr '\t\n' ' ;')"
# without the profile: Wireshark's default columns
expect 'default profile: no UB columns' \
    '8 0.000070000 0x010203 → 0x0a0b0c UB-TA 122 [TP Retransmission] CFG7 0x010203→0x0a0b0c RTP PSN 202 TPN 0x301→0x401 last Write req TASSN 52 addr 0x30d00 len 64' \
    "$(ts -n -2 -r "$L" -Y 'frame.number == 8' 2>/dev/null | tr -s ' ' | sed 's/^ //')"

# ---- 3. scripts/wireshark-profile.sh: the personal profile, same columns
$RUN env HOME="$tmp/home2" XDG_CONFIG_HOME='' sh "$UB_SOURCE_DIR/scripts/wireshark-profile.sh" > "$tmp/wp.log" 2>&1 ||
    { cat "$tmp/wp.log"; fail "scripts/wireshark-profile.sh"; }
[ -f "$tmp/home2/.config/wireshark/profiles/UnifiedBus/recent" ] || fail "wireshark-profile.sh: no personal profile"
expect 'personal profile: UB columns' "$COLS" \
    "$(ts_home home2 -n -2 -C UnifiedBus -r "$L" -Y 'frame.number in {8, 9, 20}' 2>/dev/null | tr -s ' ' | sed 's/^ //')"

# --global: into the data folder of `tshark -G folders` (WIRESHARK_DATA_DIR here), as scripts/setup.sh does as root
mkdir -p "$tmp/gdata" && chmod a+rwx "$tmp/gdata"
$RUN env WIRESHARK_DATA_DIR="$tmp/gdata" sh "$UB_SOURCE_DIR/scripts/wireshark-profile.sh" --global > "$tmp/wp.log" 2>&1 ||
    { cat "$tmp/wp.log"; fail "scripts/wireshark-profile.sh --global"; }
for f in colorfilters preferences recent dfilter_buttons; do
    cmp -s "$UB_SOURCE_DIR/dissector/profile/UnifiedBus/$f" "$tmp/gdata/profiles/UnifiedBus/$f" ||
        fail "wireshark-profile.sh --global: no $f in the data folder's profiles/UnifiedBus"
done

# ---- 4. the conversation/endpoint tabs of "recent" are registered tables; every filter button compiles
ts -G protocols > "$tmp/protos.txt" 2>/dev/null
for key in gui.conversation_tabs gui.endpoint_tabs; do
    tabs=$(sed -n "s/^$key: //p" "$PROF/recent")
    expect "$key lists the UB tables" '"UB","UB TP","UB EID"' "$(echo "$tabs" | cut -d, -f1-3)"
    echo "$tabs" | tr ',' '\n' | tr -d '"' | while IFS= read -r t; do
        awk -F'\t' -v t="$t" '$2 == t { f = 1 } END { exit !f }' "$tmp/protos.txt" || echo "$t"
    done > "$tmp/unknown.txt"
    expect "$key: names of registered protocols" "" "$(cat "$tmp/unknown.txt")"
done
expect 'conversation table ub_tp answers' "1" "$(ts -n -q -r "$L" -z conv,ub_tp 2>/dev/null | grep -c '^UB TP Conversations')"
grep -v '^#' "$PROF/dfilter_buttons" | sed 's/^"TRUE","[^"]*","\(.*\)","[^"]*"$/\1/; s/\\x22/"/g' > "$tmp/buttons.txt"
expect 'filter buttons' "8" "$(wc -l < "$tmp/buttons.txt" | tr -d ' ')"
while IFS= read -r f; do
    ts -n -r "$L" -Y "$f" -c 1 > /dev/null 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; expect "filter button compiles" "$f" ""; }
done < "$tmp/buttons.txt"
info "profile: columns, colours, tabs, filter buttons"

# ---- 5. Protocol column = the top UB layer (docs/wireshark.md)
pcol() { ts -n -r "$tmp/caps/$1" -T fields -e _ws.col.Protocol 2>/dev/null | sort | uniq -c | awk '{ printf "%s %s;", $1, $2 }'; }
expect 'Protocol: RTP data / acks' "16 UB-TA;6 UB-TP;" "$(pcol audit_rtp_lossy.pcapng)"
expect 'Protocol: management' "11 UB-MGMT;" "$(pcol cfg6_mgmt.pcapng)"
expect 'Protocol: enumeration' "6 UB-ENUM;" "$(pcol cfg6_enum.pcapng)"
expect 'Protocol: network control' "5 UB-NCTL;" "$(pcol cfg5_netctl.pcapng)"
expect 'Protocol: DLLCBs' "12 UB-DLL;" "$(pcol dllcb.pcapng)"
expect 'Protocol: URPC' "3 UB-URPC;" "$(pcol urpc.pcapng)"
expect 'Protocol: raw flit stream (record without a unit = UB-DLL)' "1 UB-DLL;2 UB-TA;3 UB-TA;4 UB-TA;5 UB-DLL;6 UB-TA;" \
    "$(ts -n -r "$tmp/caps/stream.pcapng" -T fields -e frame.number -e _ws.col.Protocol 2>/dev/null | tr '\t\n' ' ;')"
expect 'Protocol: malformed (layers reached)' "UB-TA UB-TA UB-TA UB-DLL UB-TA UB-TA UB-NW UB-TP UB-TA UB-TA" \
    "$(ts -n -r "$tmp/caps/malformed.pcapng" -T fields -e _ws.col.Protocol 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"

# ---- 6. header items: name + key fields (libubparse hdrsum.c)
ts -n -r "$L" -Y 'frame.number == 20' -V -O ub > "$tmp/f20.txt" 2>/dev/null
expect 'tree summaries (TPACK)' "$(printf '%s\n' '    Link Packet Header, CFG 7, VL 2' \
    '    Network Header (24-bit CNA), SCNA 0xa0b0c → DCNA 0x10203' \
    '    Reliable Transport Header, TPACK/TPNAK, PSN 60, TPN 0x402→0x302' \
    '    Invariant CRC, ICRC 0x3a19629b, Good')" "$(grep '^    [A-Z]' "$tmp/f20.txt")"
ts -n -r "$L" -Y 'frame.number == 1' -V -O ub > "$tmp/f1.txt" 2>/dev/null
expect 'tree summaries (Write request)' "$(printf '%s\n' '    Basic Transaction Header, Write, INI_TASSN 50' \
    '    Memory Access ETAH, Address 0x30c80, Length 64')" "$(grep -E '^    (Basic|Memory)' "$tmp/f1.txt")"
ts -n -r "$tmp/caps/dllcb.pcapng" -V -O ub > "$tmp/dllcb.txt" 2>/dev/null
expect 'tree summaries (Crd_Ack block)' "1" "$(grep -c '^    Crd_Ack Block, T 1, SD (SEND_DONE) 1, ACK_NUM 0$' "$tmp/dllcb.txt")"
info "Protocol column and tree summaries"

[ "$nfail" -eq 0 ] || fail "$nfail check(s) failed"
echo "PASS"
