#!/bin/sh
# tshark's statistics in ubdump, byte for byte (issue #10 item 3): on EVERY bundled capture the
# output of `ubdump -q -z NAME...` equals `tshark -n -2 -q -z NAME...` with our plugin for
#   -z ub,tree, conv,ub, endpoints,ub, conv,ub_tp, endpoints,ub_tp, conv,ub_eid, endpoints,ub_eid,
#      conv/endpoints,eth|ip|ipv6|tcp|udp (Wireshark's own tables of the headers outside UB),
#      io,stat,INTERVAL[,FILTER]... (seven specs: whole capture, per-interval with filter columns, columns
#      with functions, arithmetic and a field against a field,
#      long filters that wrap, many columns that widen the table)
#   -z ub,srt (the plugin's three SRT tables: request TAOpcode, management Code, ack TPOpcode rows),
#      and tshark's filtered forms ub,srt,FILTER, ub,tree,FILTER, conv|endpoints,TAP,FILTER, expert,LEVEL,FILTER
#      (four filters on six captures)
#   -z expert on the captures where every expert item tshark shows is UB's (Wireshark's own
#      dissectors add TCP/UDP/IB/... items ubdump does not decode: those captures are listed).
# Nothing is normalised (no line of these tables depends on the wall clock or the file name).
# (ubdump's richer response-time table, with percentiles and a histogram, is -z ub,latency.)
# tshark runs unprivileged with the built plugin (tests/tshark_lib.sh); FAILS (never skips) without it.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
. "$S/tests/tshark_setup.sh"

IOSPECS='io,stat,0.00005,ub.rtph,ub.analysis.retransmission || ub.analysis.lost_segment,ub.lph.cfg in {6..7}
io,stat,0.001,,ub.error,frame.len > 100,ub.analysis.response_in
io,stat,0.05,ub,!ub,ub.analysis.tp_endpoint contains "0x"
io,stat,0.001,count(ub.lph) > 1,frame.len > ub.lph.cfg * 10 || len(ub.payload.data) >= 64,ub.nth.scna > ub.nth.dcna,string(ub.rtph.psn) matches "^2"
io,stat,0.0005,ub.rtph.psn >= 0 && ub.btah.taopcode == 0x03 && frame.len > 60 && !ub.error && ub.rtph.tpopcode != 0x02 && ub.maetah.length > 0 && ub.btah.ini_tassn < 60000 && frame.number > 1,ub.nth.scna==0x0102||ub.nth.dcna==0x0304||ub.rtph.srctpn==0x301||ub.rtph.dsttpn==0x401||frame.len>=1000||ub.lph.cfg==9,,ub.analysis.latency > 0.000001 || ub.analysis.rule == "UB-TP-003"
io,stat,0.0001,ub.rtph,ub.btah,ub.atah,ub.lph,ub.nth,ub.icrc,ub.payload,ub.error,ub.lch,frame.len>100,frame.len<=100,ub.rtph.psn >= 0 && ub.btah.taopcode == 0x03 && frame.len > 60 && !ub.error && ub.rtph.tpopcode != 0x02 && ub.maetah.length > 0 && ub.btah.ini_tassn < 60000 && frame.number > 1 && frame.number < 100000 && ub.rtph.psn < 100000 && ub.rtph.tpmsn < 100000 && ub.btah.ini_rc_id != 0x999999 && frame.cap_len > 1'
# (4th: long filters wrapped at the last space before the border, one without spaces cut at the
# border, an empty column; 5th: twelve columns widen the table, a long filter wraps inside it;
# noncrc's out-of-order frame counts in each column's own last interval, as tshark's taps)
printf '%s\n' "$IOSPECS" > "$tmp/iospecs"

# same LABEL: tshark's output in $tmp/ts.txt, ubdump's in $tmp/ub.txt
same() {
    cmp -s "$tmp/ts.txt" "$tmp/ub.txt" && return 0
    diff "$tmp/ts.txt" "$tmp/ub.txt" | head -20 || true
    fail "$1: ubdump's output differs from tshark's (< tshark, > ubdump)"
}
n=0 ncap=0 nexp=0 nconv=0 nrows=0 nsrt=0 nwrap=0 nws=0
skipped=
# Per capture, one run of each with all these tables (tshark starts ~100 times, not ~300),
# the same options for both: each prints its tables in the reverse of the -z options
{ printf -- '-z\n%s\n' ub,srt io,stat,0; sed 's/^/-z\n/' "$tmp/iospecs"
  printf -- '-z\n%s\n' ub,tree endpoints,ub conv,ub endpoints,ub_eid conv,ub_eid endpoints,ub_tp conv,ub_tp \
      endpoints,eth conv,eth endpoints,ip conv,ip endpoints,ipv6 conv,ipv6 endpoints,tcp conv,tcp endpoints,udp conv,udp; } > "$tmp/zu"
nio=$(grep -c '^io,stat,' "$tmp/zu")
[ "$nio" = 7 ] || fail "expected 7 io,stat specs, have $nio"
for c in "$S"/captures/*.pcapng; do
    name=$(basename "$c" .pcapng)
    uo= to=
    [ "$name" = noncrc ] && uo="--noncrc" to="-o ub.crc_mode:noncrc"
    ncap=$((ncap + 1))
    set --; while IFS= read -r z; do set -- "$@" "$z"; done < "$tmp/zu"
    # shellcheck disable=SC2086
    ts -n -2 -q $to -r "$c" "$@" > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark $*"; }
    # shellcheck disable=SC2086
    "$U" -q $uo -r "$c" "$@" > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump $*"; }
    same "$name: $*"
    [ "$(grep -c '^| IO Statistics' "$tmp/ub.txt")" = "$nio" ] || fail "$name: not $nio io,stat tables"
    grep -q '^UB SRT Statistics:' "$tmp/ub.txt" || fail "$name: no ub,srt table"
    n=$((n + 24))
    grep -q ' <-> ' "$tmp/ts.txt" && nconv=$((nconv + 1))
    # rows of Wireshark's own tables (eth, ip, ipv6, tcp, udp: UBoE, plain IP, traffic that is not UB)
    nws=$((nws + $(awk '/^(Ethernet|IPv4|IPv6|TCP|UDP) (Conversations|Endpoints)$/ { t = 1; next } /^=+$/ { t = 0 } t && /^[0-9a-f]/ { r++ } END { print r + 0 }' "$tmp/ub.txt")))
    # non-empty rows of the five interval tables (not io,stat,0's, ubdump's first), wrapped filter lines, SRT rows
    nrows=$((nrows + $(awk '/^\| IO Statistics/ { t++ } t > 1 && /^\| [0-9.]* <> .* \|  *[1-9]/ { r++ } END { print r + 0 }' "$tmp/ub.txt")))
    nwrap=$((nwrap + $(grep -c '^|        [^ ]' "$tmp/ts.txt" || true))) # a wrapped filter's continuation
    nsrt=$((nsrt + $(grep -c '^ *[0-9][0-9]*  .* [1-9][0-9]*  *[0-9]*\.[0-9]\{6\} ' "$tmp/ts.txt" || true)))
    # shellcheck disable=SC2086
    ts -n -2 -q $to -r "$c" -z expert > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z expert"; }
    if awk 'NF >= 4 && $1 ~ /^[0-9]+$/ && $3 != "UB" { x = 1 } END { exit !x }' "$tmp/ts.txt"; then
        skipped="$skipped $name"
        continue
    fi
    # shellcheck disable=SC2086
    "$U" -q $uo -r "$c" -z expert > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z expert"; }
    same "$name: -z expert"
    grep -q '^Errors\|^Warns\|^Notes\|^Chats' "$tmp/ts.txt" && nexp=$((nexp + 1))
    n=$((n + 1))
done
[ "$ncap" -ge 30 ] || fail "only $ncap bundled captures"
[ "$nconv" -ge 20 ] || fail "only $nconv captures with conversations (the test proves little)"
[ "$nws" -ge 100 ] || fail "only $nws rows of the eth/ip/ipv6/tcp/udp tables (the test proves little)"
[ "$nwrap" -ge 100 ] || fail "only $nwrap wrapped io,stat filter lines (the test proves little)"
[ "$nrows" -ge 40 ] || fail "only $nrows non-empty io,stat rows (the test proves little)"
[ "$nsrt" -ge 40 ] || fail "only $nsrt -z ub,srt rows with calls (the test proves little)"
[ "$nexp" -ge 15 ] || fail "only $nexp captures with UB expert items compared"
echo "  -z expert not compared (Wireshark's other dissectors add items):$skipped"
# tshark's filtered forms (the tap sees only the frames the filter selects, all units of a flit-stream
# record judged together; analysis fields as with -2): -z ub,srt,FILTER, -z ub,tree,FILTER, -z conv|endpoints,TAP,FILTER,
# -z expert[,LEVEL][,FILTER], on captures with transactions, management, acks and a raw flit stream.
# One run per capture and filter, the same options for both (each prints in the reverse of the options).
nsf=0
for name in audit_txn_clean audit_mgmt audit_rtp_lossy cfg6_enum stream malformed; do
    for f in 'frame.number > 3' 'ub.analysis.latency > 0.000006 || ub.analysis.rule' 'ub.nth || ub.rtph.tpopcode == 2' 'ub.crd_ack || ub.atah'; do
        ts -n -2 -q -r "$S/captures/$name.pcapng" -z "expert,warn,$f" -z "endpoints,ub_tp,$f" -z "conv,ub,$f" -z "ub,tree,!($f)" -z "ub,tree,$f" -z "ub,srt,$f" \
            > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z ...,$f"; }
        "$U" -q -r "$S/captures/$name.pcapng" -z "expert,warn,$f" -z "endpoints,ub_tp,$f" -z "conv,ub,$f" -z "ub,tree,!($f)" -z "ub,tree,$f" -z "ub,srt,$f" \
            > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z ...,$f"; }
        same "$name: -z ub,srt|ub,tree (twice)|conv,ub|endpoints,ub_tp|expert,warn with filter $f"
        [ "$(grep -c '^UnifiedBus/Packet counts:' "$tmp/ub.txt")" = 2 ] || fail "$name: not two ub,tree tables"
        nsf=$((nsf + $(grep -c '^ *[0-9][0-9]*  .* [1-9][0-9]*  *[0-9]*\.[0-9]\{6\} ' "$tmp/ts.txt" || true)))
        n=$((n + 6))
    done
done
[ "$nsf" -ge 25 ] || fail "only $nsf filtered -z ub,srt rows with calls (the test proves little)"
# known: frames after 3 of audit_txn_clean hold 7 of its Write responses (the filter removes rows' calls)
"$U" -q -r "$S/captures/audit_txn_clean.pcapng" -z 'ub,srt,frame.number > 3' > "$tmp/ub.txt" 2> /dev/null
grep -q '^    3  0x03 Write                  7   0.000005   0.000010   0.000008   0.000057$' "$tmp/ub.txt" ||
    { cat "$tmp/ub.txt"; fail "-z ub,srt,frame.number > 3: Write row"; }
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'ub,srt,ub.rtph.psn ==' 2> "$tmp/err"; then fail "bad ub,srt filter accepted"; fi
grep -q "column 15: missing value" "$tmp/err" || { cat "$tmp/err"; fail "ub,srt filter error message"; }
# known: the filter is printed in the conv header; expert,error drops the warnings
"$U" -q -r "$S/captures/audit_mgmt.pcapng" -z 'conv,ub,frame.number > 3' 2> /dev/null | sed -n 3p > "$tmp/ub.txt"
[ "$(cat "$tmp/ub.txt")" = "Filter:frame.number > 3" ] || fail "conv,ub,FILTER header: $(cat "$tmp/ub.txt")"
"$U" -q -r "$S/captures/audit_mgmt.pcapng" -z 'expert,error,frame.number > 3' > "$tmp/ub.txt" 2> /dev/null
grep -q '^Errors (5)$' "$tmp/ub.txt" && ! grep -q '^Warns' "$tmp/ub.txt" || { cat "$tmp/ub.txt"; fail "-z expert,error,FILTER"; }
# one -z ub,srt,FILTER and one -z expert... per run (tshark would print a table each: refused, not dropped)
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'ub,srt,ub.rtph' -z 'ub,srt,ub.btah' 2> "$tmp/err"; then fail "two ub,srt,FILTER accepted"; fi
grep -q "^ubdump: -z ub,srt,ub.btah: only one -z ub,srt,FILTER per run$" "$tmp/err" || { cat "$tmp/err"; fail "two ub,srt,FILTER: message"; }
if "$U" -q -r "$S/captures/uboe.pcapng" -z expert -z 'expert,note' 2> "$tmp/err"; then fail "two -z expert accepted"; fi
grep -q "^ubdump: -z expert,note: only one -z expert\[,LEVEL\]\[,FILTER\] per run$" "$tmp/err" || { cat "$tmp/err"; fail "two -z expert: message"; }
# a bad column filter is an error with its column
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'io,stat,1,ub.rtph.psn ==' 2> "$tmp/err"; then fail "bad io,stat filter accepted"; fi
grep -q "io,stat column 1 'ub.rtph.psn ==': column 15: missing value" "$tmp/err" || { cat "$tmp/err"; fail "io,stat filter error message"; }
# tshark's calculations (COUNT/SUM/MIN/MAX/AVG/LOAD) are refused with a reason, not as an unknown field
if "$U" -q -r "$S/captures/uboe.pcapng" -z 'io,stat,1,ub.rtph,AVG(frame.len)frame.len' 2> "$tmp/err"; then fail "io,stat AVG() accepted"; fi
grep -q "io,stat column 2 'AVG(frame.len)frame.len': tshark's AVG(FIELD) calculations are not supported" "$tmp/err" || { cat "$tmp/err"; fail "io,stat AVG() message"; }
# many conversations (a UBoE-like spread over UDP source ports, 3 sources x 2,000 ports): the tables'
# hash index grows many times; both orders of a pair meet in one row (3,000 pairs are answered)
python3 - "$tmp/many.pcap" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(12000):
        a, b, sp, dp = bytes([10, 0, i % 3, 1]), bytes([10, 0, 9, 2]), 10000 + (i * 7919) % 2000, 4792
        if i >= 6000 and i % 2: a, b, sp, dp = b, a, dp, sp  # the pair of frame i - 6000, answered
        udp = struct.pack(">HHHH", sp, dp, 28, 0) + bytes(20)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, a, b) + udp
        eth = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0]) + ip
        f.write(struct.pack("<IIII", i // 1000, i % 1000 * 1000, len(eth), len(eth)) + eth)
PY
chmod a+r "$tmp/many.pcap"
ts -n -q -r "$tmp/many.pcap" -z conv,udp -z endpoints,udp > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "many.pcap: tshark"; }
"$U" -q -r "$tmp/many.pcap" -z conv,udp -z endpoints,udp > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "many.pcap: ubdump"; }
same "6,000 UDP conversations"
[ "$(grep -c ' <-> ' "$tmp/ub.txt")" = 6000 ] || fail "many.pcap: $(grep -c ' <-> ' "$tmp/ub.txt") conversations, want 6000"
nboth=$(awk '$2 == "<->" && $4 > 0 && $7 > 0 { n++ } END { print n + 0 }' "$tmp/ub.txt")
[ "$nboth" = 3000 ] || fail "many.pcap: only $nboth conversations with frames both ways"
# -z io,phs[,FILTER] (tshark's protocol hierarchy, frame.protocols per frame) on every capture and ns-3-UB
# trace, unfiltered and with a filter, in one run. Left out by frame number (a filter on frame.* gives
# both tshark's "frame" item): the frames where Wireshark names a protocol above what ubdump decodes
# (t_fields_ws: ssh, dns, tls, smb_direct, rpcordma, a MAD) and those the plugin's IB RC audit marks
# with its own item (ibrc_audit, a finding at the frame).
NS3=$S/../shared/interop/ns3-ub
[ -d "$NS3" ] || NS3=/work/shared/interop/ns3-ub
for c in "$NS3"/*.pcap; do [ -f "$c" ] && cp "$c" "$tmp/caps/" && chmod a+r "$tmp/caps/$(basename "$c")"; done
nphs=0 nphl=0
for c in "$S"/captures/*.pcapng "$tmp"/caps/*.pcap; do
    name=$(basename "$c"); name=${name%.*}
    uo= to= keep=
    case $name in
    noncrc) uo=--noncrc to="-o ub.crc_mode:noncrc" ;;
    ns3ub-*) uo="-o profile=ns3ub" to="-o ub.profile:ns3ub" ;;
    cfg3_plain_ip) keep='!(frame.number in {1, 2})' ;;
    mixed_eth) keep='!(frame.number in {2, 4, 11})' ;;
    rocev2_rc) keep='!(frame.number in {7, 8, 9, 15, 18, 19, 20, 21, 23})' ;;
    esac
    all=io,phs sel='io,phs,ub.rtph || ip || sue || ub.crd_ack'
    [ -z "$keep" ] || all="io,phs,$keep" sel="io,phs,(ub.rtph || ip || sue || ub.crd_ack) && $keep"
    # shellcheck disable=SC2086
    ts -n -2 -q $to -r "$c" -z "$all" -z "$sel" > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$name: tshark -z io,phs"; }
    # shellcheck disable=SC2086
    "$U" -q $uo -r "$c" -z "$all" -z "$sel" > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$name: ubdump -z io,phs"; }
    same "$name: -z $all -z $sel"
    [ "$(grep -c '^Protocol Hierarchy Statistics$' "$tmp/ub.txt")" = 2 ] || fail "$name: not two io,phs tables"
    nphs=$((nphs + 2)) nphl=$((nphl + $(grep -c ' frames:[1-9][0-9]* bytes:' "$tmp/ub.txt")))
done
[ "$nphs" -ge 80 ] && [ "$nphl" -ge 150 ] || fail "only $nphs io,phs tables, $nphl rows"
# the top protocol "frame": tshark builds the frame's item when it builds the whole tree (-V, -T fields|json)
# or a filter reads frame.*; not for the summary lines, -x or a filter on other fields
phs_of() { awk '/^Protocol Hierarchy Statistics$/ { t = 1 } t { print } t && /^=+$/ { exit }'; }
for o in "-V" "-q -T fields -e ub.rtph.psn" "-q -T json" "-Y ub.rtph" "-x" "-q -Y frame.len>100"; do
    # shellcheck disable=SC2086
    ts -n -r "$S/captures/cfg3_ipv4.pcapng" $o -z io,phs 2> /dev/null | phs_of > "$tmp/ts.txt"
    # shellcheck disable=SC2086
    "$U" -r "$S/captures/cfg3_ipv4.pcapng" $o -z io,phs 2> /dev/null | phs_of > "$tmp/ub.txt"
    grep -q ' frames:' "$tmp/ub.txt" || fail "cfg3_ipv4 $o -z io,phs: no table"
    same "cfg3_ipv4 $o -z io,phs"
done
# explicit values: mixed_eth's hierarchy (children in the order first seen; a tunnel's IPv6 under eth)
"$U" -q -r "$S/captures/mixed_eth.pcapng" -z io,phs 2> /dev/null |
    awk '/ frames:/ { match($0, /^ */); printf "%d %s %s %s;", RLENGTH / 2, $1, $2, $3 }' > "$tmp/ub.txt"
expect_phs='0 eth frames:11 bytes:1087;1 ip frames:7 bytes:803;2 tcp frames:1 bytes:54;2 udp frames:6 bytes:749;3 data frames:2 bytes:225;'
expect_phs="${expect_phs}3 infiniband frames:2 bytes:224;4 data frames:1 bytes:78;3 ub frames:2 bytes:300;1 arp frames:1 bytes:42;"
expect_phs="${expect_phs}1 ipv6 frames:2 bytes:192;2 udp frames:1 bytes:102;3 data frames:1 bytes:102;2 tcp frames:1 bytes:90;"
expect_phs="${expect_phs}3 data frames:1 bytes:90;1 lldp frames:1 bytes:50;"
[ "$(cat "$tmp/ub.txt")" = "$expect_phs" ] || fail "mixed_eth -z io,phs: $(cat "$tmp/ub.txt")"
# Linux cooked captures of what is not UB (Wireshark's SLL: sll:ethertype:ip:udp:data) and of UB (the
# plugin's: ub alone, tests above), LINKTYPE_RAW (raw:ip:udp:data) and LINKTYPE_IPV4 (ip:udp:data, no "raw"):
# frame.protocols and -z io,phs
python3 - "$tmp/sll.pcap" "$tmp/sll2.pcap" "$tmp/raw.pcap" "$tmp/ipv4.pcap" <<'PY'
import struct, sys
udp = struct.pack(">HHHH", 1234, 5678, 12, 0) + b"abcd"
ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + udp
mac = bytes([2, 0, 0, 0, 0, 1, 0, 0])
for name, lt, fr in ((sys.argv[1], 113, struct.pack(">HHH8sH", 0, 1, 6, mac, 0x0800) + ip),
                     (sys.argv[2], 276, struct.pack(">HHIHBB8s", 0x0800, 0, 1, 1, 0, 6, mac) + ip), (sys.argv[3], 101, ip), (sys.argv[4], 228, ip)):
    with open(name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, lt) + struct.pack("<IIII", 1, 0, len(fr), len(fr)) + fr)
PY
# and SUE over LINKTYPE_IPV4: sue_std's IPv4 frames without their Ethernet header (the plugin's SUE on
# UDP 4791 decodes the frame from its link type as ubdump does: ip:udp:sue:data)
ts -n -r "$S/captures/sue_std.pcapng" -x > "$tmp/sue.hex" 2> /dev/null
python3 - "$tmp/sue.hex" "$tmp/sue_ipv4.pcap" <<'PY'
import re, struct, sys
frames, cur = [], ""
for line in open(sys.argv[1]).read().splitlines() + [""]:
    m = re.match(r"^([0-9a-f]{4})  ((?:[0-9a-f]{2} )+)", line)
    if (not m or m.group(1) == "0000") and cur:
        frames.append(bytes.fromhex(cur))
        cur = ""
    if m:
        cur += m.group(2).replace(" ", "")
ip = [f[14:] for f in frames if f[12:14] == b"\x08\x00"]
assert len(ip) >= 10, len(ip)
with open(sys.argv[2], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 228))
    for i, b in enumerate(ip):
        f.write(struct.pack("<IIII", 1, i, len(b), len(b)) + b)
PY
chmod a+r "$tmp/sll.pcap" "$tmp/sll2.pcap" "$tmp/raw.pcap" "$tmp/ipv4.pcap" "$tmp/sue_ipv4.pcap"
ts -n -r "$tmp/sue_ipv4.pcap" -T fields -e frame.protocols > "$tmp/ts.txt" 2> /dev/null
"$U" -r "$tmp/sue_ipv4.pcap" -T fields -e frame.protocols > "$tmp/ub.txt" 2> /dev/null
same "SUE over LINKTYPE_IPV4: frame.protocols"
grep -qx 'ip:udp:sue:data' "$tmp/ub.txt" || fail "SUE over LINKTYPE_IPV4: no ip:udp:sue:data"
sue1=$(head -1 "$tmp/ub.txt")
for c in "$tmp/sll.pcap" "$tmp/sll2.pcap" "$tmp/raw.pcap" "$tmp/ipv4.pcap" "$tmp/sue_ipv4.pcap"; do
    want=sll:ethertype:ip:udp:data
    [ "$c" = "$tmp/raw.pcap" ] && want=raw:ip:udp:data
    [ "$c" = "$tmp/ipv4.pcap" ] && want=ip:udp:data
    [ "$c" = "$tmp/sue_ipv4.pcap" ] && want=$sue1
    [ "$("$U" -r "$c" -T fields -e frame.protocols 2> /dev/null | head -1)" = "$want" ] || fail "$c: frame.protocols"
    ts -n -q -r "$c" -z io,phs > "$tmp/ts.txt" 2> /dev/null
    "$U" -q -r "$c" -z io,phs > "$tmp/ub.txt" 2> /dev/null
    same "$(basename "$c") -z io,phs"
done
echo "PASS t_stats_names ($n tables identical on $ncap captures ($nws rows of eth/ip/ipv6/tcp/udp tables), $nrows io,stat rows with frames, $nsrt ub,srt rows, $nsf filtered, expert on $nexp, $nphs io,phs tables ($nphl rows))"
