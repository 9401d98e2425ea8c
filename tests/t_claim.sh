#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# Claim only UB, and the smaller ubdump defects of issue #9, end to end:
#   - ubdump and tshark (with the plugin) call the same frames UB: captures/mixed_eth.pcapng (TCP, DNS,
#     ARP, RoCEv2, IPv6, LLDP, UBoE on 4792 and on 5000, a look-alike with a bad ICRC) and
#     captures/cfg3_plain_ip.pcapng (plain IP on a CFG 3/4 link: Wireshark's IP dissector takes it);
#   - -q counts "N UB, M other", one warning for a file without UB, -o udp.port=LIST / udp.heuristic=0;
#   - the UBoE ICRC in the plugin; CTP counted as CTP by ubdump -z ub,cfg; -e without a limit.
set -u
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}" "${UBGEN:?}"
U=$UBDUMP
S=$UB_SOURCE_DIR
. "$S/tests/check_lib.sh"
ub_check_init t_claim
expect() { [ "$2" = "$3" ] && ok || bad "$1: got '$3', want '$2'"; }
M=$S/captures/mixed_eth.pcapng
C=$S/captures/cfg3_plain_ip.pcapng
frames() { "$U" -r "$1" -Y "$2" -T fields -e frame.number 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }

# ---- ubdump: what is UB
expect "-q counts" "11 records: 2 UB, 9 other (not UB)" "$("$U" -r "$M" -q 2>/dev/null)"
expect "-Y ub" "6 7" "$(frames "$M" ub)"
expect "-Y !ub" "1 2 3 4 5 8 9 10 11" "$(frames "$M" '!ub')"
expect "-Y ub.ipv4 on non-UB frames" "6 7" "$(frames "$M" 'ub.ipv4')"
expect "no ub.error on non-UB frames" "" "$(frames "$M" 'ub.error')"
expect "heuristic off" "6" "$(U2="-o udp.heuristic=0"; "$U" $U2 -r "$M" -Y ub -T fields -e frame.number | tr '\n' ' ' | sed 's/ $//')"
expect "-o udp.port=4792,5001 claims the look-alike (bad ICRC reported)" "6 7 8" \
    "$("$U" -o udp.port=4792,5001 -r "$M" -Y ub -T fields -e frame.number | tr '\n' ' ' | sed 's/ $//')"
expect "... with its ICRC error" "icrc_bad" "$("$U" -o udp.port=4792,5001 -r "$M" -Y 'frame.number == 8' -T fields -e ub.error)"
expect "summary of TCP" "     1 0.000000000 ETH/IPv4/TCP 10.0.0.1:1234→10.0.0.2:80" "$("$U" -r "$M" -c 1)"
expect "summary of RoCEv2 bytes that look like UB" "ETH/IPv4/UDP 192.168.1.1:51000→192.168.1.2:4791 (RoCEv2)" \
    "$("$U" -r "$M" -Y 'frame.number == 10' | sed 's/^ *[0-9]* [0-9.]* //')"
expect "CFG 3 plain TCP named" "CFG3 IPv4/TCP 10.0.0.1:45000→10.0.0.2:22" "$("$U" -r "$C" -c 1 | sed 's/^ *[0-9]* [0-9.]* //')"
expect "CFG 3 plain IP is still a UB link packet" "1 2 3 4 5 6" "$(frames "$C" 'ub.lph')"
expect "CFG 3 RoCEv2 named" "CFG3 IPv4/UDP 10.0.0.1:49152→10.0.0.2:4791 (RoCEv2)" "$("$U" -r "$C" -Y 'frame.number == 3' | sed 's/^ *[0-9]* [0-9.]* //')"

# ---- the warning for a file without UB: once, on stderr, not for files with UB
printf '@capture format=pcap\n@packet ts=0.001\neth icrc=none\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01\nipv4 src=10.0.0.1 dst=10.0.0.2 protocol=6\ntcp srcport=1 dstport=2 data_offset=5\n@packet ts=0.002\neth icrc=none\neth dst=02:00:00:00:00:02 src=02:00:00:00:00:01 type=0x0806\narp opcode=1\n' > "$tmp/noub.ub"
"$UBGEN" -w "$tmp/noub.pcap" "$tmp/noub.ub" > /dev/null && ok || bad "ubgen"
"$U" -r "$tmp/noub.pcap" > "$tmp/out" 2> "$tmp/err"; rc=$?
expect "exit status without UB" 0 $rc
expect "one warning" 1 "$(grep -c 'contains no UB traffic' "$tmp/err")"
expect "the frames are still printed" 2 "$(wc -l < "$tmp/out")"
"$U" -r "$M" -q > /dev/null 2> "$tmp/err"
expect "no warning with UB" "" "$(cat "$tmp/err")"

# ---- -e without a limit: 70 fields
e=""
for i in $(seq 1 70); do e="$e -e frame.number"; done
# shellcheck disable=SC2086
out=$("$U" -r "$M" -c 1 -T fields $e 2>/dev/null); rc=$?
expect "70 -e fields: exit" 0 $rc
expect "70 -e fields: columns" 70 "$(printf '%s\n' "$out" | awk -F'\t' '{ print NF }')"
"$U" -r "$M" -T fields -e ub.no.such 2> "$tmp/err" > /dev/null
grep -q "unknown field 'ub.no.such'" "$tmp/err" && ok || bad "unknown field message"

# ---- CTP counted as CTP (-z ub,cfg), never as "UTP data"
"$U" -q -z ub,cfg -r "$S/captures/audit_txn_clean.pcapng" > "$tmp/z" 2>&1
grep -q '0x00 CTP data  *12$' "$tmp/z" && ok || { bad "-z ub,cfg: no CTP data row"; cat "$tmp/z" >&2; }
grep -q 'UTP data' "$tmp/z" && bad "-z ub,cfg counts CTP as UTP" || ok
"$U" -q -z ub,cfg -r "$M" > "$tmp/z" 2>&1
grep -q 'records, 2 packets' "$tmp/z" && ok || bad "-z ub,cfg counts what is not UB"

# ---- tshark with the plugin: the same frames are UB, the rest is Wireshark's
if ls "${UB_BINARY_DIR:-/nonexistent}"/plugins/*/epan/ub.so > /dev/null 2>&1 && command -v tshark > /dev/null 2>&1; then
    fail() { bad "$*"; exit 1; }
    mkdir -p "$tmp/home"
    cp "$M" "$C" "$tmp/home/"
    # shellcheck disable=SC1091
    . "$S/tests/tshark_lib.sh"
    ub_plugin_install
    tf() { ts -n -r "$tmp/home/$1" -Y "$2" -T fields -e frame.number 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
    expect "tshark: UB frames of mixed_eth" "$(frames "$M" ub)" "$(tf mixed_eth.pcapng ub)"
    expect "tshark: TCP stays TCP" "1 11" "$(tf mixed_eth.pcapng tcp)"
    expect "tshark: ARP" "3" "$(tf mixed_eth.pcapng arp)"
    expect "tshark: UBoE ICRC after the IP packet (R-44)" "1	1" \
        "$(ts -n -r "$tmp/home/mixed_eth.pcapng" -Y 'frame.number == 6' -T fields -e ub.icrc.status -e ub.icrc.byte_order 2>/dev/null)"
    expect "tshark: ICRC of the heuristic frame" "1" \
        "$(ts -n -r "$tmp/home/mixed_eth.pcapng" -Y 'frame.number == 7' -T fields -e ub.icrc.status 2>/dev/null)"
    expect "tshark: CFG 3 plain IP to the IP dissector" "1 2 3 4" "$(tf cfg3_plain_ip.pcapng 'ub.lph && (tcp || udp) && !ub.rtph')"
    expect "tshark: CFG 3 TCP fields" "6	22" \
        "$(ts -n -r "$tmp/home/cfg3_plain_ip.pcapng" -Y 'frame.number == 1' -T fields -e ip.proto -e tcp.dstport 2>/dev/null)"
    expect "tshark: CFG 3 UB over UDP stays UB" "5" "$(tf cfg3_plain_ip.pcapng 'ub.rtph')"
else
    echo "SKIP: no plugin build or no tshark: the tshark checks are not run"
fi

ub_check_done
