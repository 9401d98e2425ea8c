#!/bin/sh
# ubdump -T fields prints every ub.* field exactly as `tshark -n -2 -T fields` with our plugin (issue
# #10): on EVERY bundled capture, every ub.* header field and header both tools know (tshark -G fields ∩ ubdump
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
{ "$U" -G fields | awk -F'\t' '$1 ~ /^ub\./ && $3 != "analysis" { print $1 }'
  "$U" -G headers | awk -F'\t' '$2 ~ /^ub\./ { print $2 }'; } | sort -u > "$tmp/uf" # headers: tshark's FT_NONE items ("1")
comm -12 "$tmp/tf" "$tmp/uf" | grep -v '^ub\.\(eth\|ipv4\|ipv6\|udp\|vlan\|data\|tcp\|arp\|icmp\|icmpv6\|sll\)\.' |
    grep -vx 'ub\.\(eth\|ipv4\|ipv6\|udp\|vlan\|data\|tcp\|arp\|icmp\|icmpv6\)' > "$tmp/both" || true
[ "$(grep -c '^ub\.[a-z0-9_]*$' "$tmp/both")" -ge 60 ] || fail "only $(grep -c '^ub\.[a-z0-9_]*$' "$tmp/both") header names known to both tools"
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
expect "cfg7_rtp frame 2: headers as tshark's FT_NONE items" "1		1" \
    "$("$U" -r "$S/captures/cfg7_rtp.pcapng" -T fields -Y frame.number==2 -e ub.rtph -e ub.btah -e ub.lph)"
expect "-T json -e: a record without values has tshark's empty layers" 2 \
    "$("$U" -r "$S/captures/stream.pcapng" -T json -e ub.lph | grep -c '"layers": {}$')"
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

# Wireshark's own names of the headers outside UB (libubparse/src/wsnames.c: eth.*, vlan.*, ip.*,
# ipv6.*, udp.*, tcp.*, arp.*), frame.cap_len / interface_id / p2p_dir and the plugin's hidden ub.cna
# and ub.eid: the text of `tshark -n -2 -T fields` on every bundled capture and ns-3-UB trace, all
# occurrences in tree order (ip.addr: source then destination; eth.addr: destination first; IPv6's
# hidden ip.version). data.data and data.len: ubdump names the bytes it does not decode; Wireshark may dissect them
# further (DNS, SSH, InfiniBand payloads), so only a frame where tshark shows them as data is compared.
# The columns _ws.col.No. / Protocol / Source / Destination / Length too: the Protocol of traffic
# Wireshark's own dissectors show may name a protocol above what ubdump decodes (SSH, DNS, SMBDirect, SSL),
# where ubdump names the transport it decoded (TCP, UDP, RRoCE) -- the one exception allowed (SSL too).
# frame.protocols likewise: where Wireshark names such a protocol (ssh, dns, tls, smb_direct, rpcordma)
# or dissects a payload further (an InfiniBand MAD), ubdump's list ends at what it decodes ("data");
# those frames, 7 in the bundled captures, are the only ones allowed to differ, and only at the end.
# (the field names: a protocol whose name has a dot, ipv6.hopopts, is flagged P in the table)
grep -v ', P, ' "$S/libubparse/src/wsnames.c" | sed -n 's/^ *{ "\([a-z0-9_]*\.[a-z0-9_.]*\)", {.*/\1/p' | sort -u > "$tmp/wsn"
[ "$(wc -l < "$tmp/wsn")" -ge 55 ] || fail "only $(wc -l < "$tmp/wsn") Wireshark names in wsnames.c"
WE=$( (grep -vxe data.data -e data.len "$tmp/wsn"; printf '%s\n' frame.cap_len frame.interface_id frame.p2p_dir frame.protocols ub.cna ub.eid _ws.col.No. _ws.col.Protocol \
    _ws.col.Source _ws.col.Destination _ws.col.Length) | sed 's/^/-e /' | tr '\n' ' ')
nws=0 nwv=0 nabove=0 npabove=0
ws_cmp() { # LABEL FILE UBDUMP-OPTS TSHARK-OPTS
    # shellcheck disable=SC2086
    ts -n -2 $4 -r "$2" -T fields -e frame.number $WE > "$tmp/ts.txt" 2> "$tmp/ts.err" || { cat "$tmp/ts.err"; fail "$1: tshark"; }
    # shellcheck disable=SC2086
    "$U" $3 -r "$2" -T fields -e frame.number $WE > "$tmp/ub.txt" 2> "$tmp/ub.err" || { cat "$tmp/ub.err"; fail "$1: ubdump"; }
    paste -d '\n' "$tmp/ts.txt" "$tmp/ub.txt" | awk -F'\t' -v names="frame.number $(echo "$WE" | sed 's/-e //g')" -v lab="$1" '
        BEGIN { split(names, nm, " ") }
        NR % 2 { n = split($0, t, "\t"); next }
        { m = split($0, u, "\t"); if (m != n) { printf "%s line %d: %d fields, tshark %d\n", lab, NR / 2, m, n; bad = 1; exit 1 }
          for (i = 1; i <= n; i++) {
              if (nm[i] == "_ws.col.Protocol" && t[i] != u[i] && t[i] !~ /^(UB|SUE$|PCIe flit$|RRoCE$|TCP$|UDP$|ARP$|IPv4$|IPv6$|ICMP)/ &&
                  u[i] ~ /^(TCP|UDP|RRoCE)$/) { above++; continue }
              if (nm[i] == "frame.protocols" && t[i] != u[i]) { # the list of ubdump may end one protocol early
                  tu = u[i]; sub(/:data$/, "", tu)
                  rest = index(t[i], tu ":") == 1 ? substr(t[i], length(tu) + 2) : ""
                  if (t[i] == tu || (rest != "" && rest !~ /:/ && rest != "data")) { pabove++; continue } }
              if (t[i] != u[i]) { printf "%s frame line %d, %s: tshark \"%s\", ubdump \"%s\"\n", lab, NR / 2, nm[i], substr(t[i], 1, 80), substr(u[i], 1, 80); bad = 1; exit 1 }
              if (i > 1 && u[i] != "") vals++ } }
        END { if (!bad) print vals + 0, above + 0, pabove + 0 > "/dev/stderr"; exit bad }' 2> "$tmp/nv" || { cat "$tmp/nv"; fail "$1: Wireshark names in -T fields differ from tshark's"; }
    [ "$(wc -l < "$tmp/ts.txt")" -eq "$(wc -l < "$tmp/ub.txt")" ] || fail "$1: line counts differ"
    nwv=$((nwv + $(cut -d' ' -f1 "$tmp/nv"))) nabove=$((nabove + $(cut -d' ' -f2 "$tmp/nv"))) nws=$((nws + 1))
    npabove=$((npabove + $(cut -d' ' -f3 "$tmp/nv")))
}
for c in "$S"/captures/*.pcapng; do
    name=$(basename "$c" .pcapng)
    if [ "$name" = noncrc ]; then ws_cmp "$name" "$c" "--noncrc" "-o ub.crc_mode:noncrc"; else ws_cmp "$name" "$c" "" ""; fi
done
NS3=$S/../shared/interop/ns3-ub
[ -d "$NS3" ] || NS3=/work/shared/interop/ns3-ub
for c in "$NS3"/*.pcap; do
    [ -f "$c" ] || continue
    cp "$c" "$tmp/caps/" && chmod a+r "$tmp/caps/$(basename "$c")"
    ws_cmp "ns3:$(basename "$c")" "$tmp/caps/$(basename "$c")" "-o profile=ns3ub" "-o ub.profile:ns3ub"
done
[ "$nwv" -ge 1500 ] || fail "only $nwv values of Wireshark names compared"
[ "$nabove" -le 5 ] || fail "$nabove Protocol columns name a protocol above ubdump's (SSH, DNS twice, SMBDirect, SSL: 5 known)"
[ "$npabove" -le 7 ] || fail "$npabove frame.protocols end above ubdump's (ssh, dns twice, smb_direct, tls, rpcordma, a MAD: 7 known)"
C=$S/captures
expect "uboe ip.addr / eth.addr / udp.port order" "192.168.1.1,192.168.1.2	02:00:00:00:00:02,02:00:00:00:00:01	51000,4792" \
    "$("$U" -r "$C/uboe.pcapng" -c 1 -T fields -e ip.addr -e eth.addr -e udp.port)"
expect "IPv6 frame: ip.version is IPv6's" "6	6	" "$("$U" -r "$C/uboe.pcapng" -Y 'frame.number == 3' -T fields -e ip.version -e ipv6.version -e ip.src)"
expect "plain CFG 3 IPv4: Wireshark's ip.*, not UB's" "10.0.0.1	6	45000	20	1" \
    "$("$U" -r "$C/cfg3_plain_ip.pcapng" -c 1 -T fields -e ip.src -e ip.proto -e tcp.srcport -e ip.hdr_len -e ip.flags.df)"
expect "data.data / data.len where Wireshark shows data (UDP port 40000)" "$(ts -n -r "$C/cfg3_plain_ip.pcapng" -Y 'frame.number == 4' -T fields -e data.data -e data.len 2>&1)" \
    "$("$U" -r "$C/cfg3_plain_ip.pcapng" -Y 'frame.number == 4' -T fields -e data.data -e data.len)"
expect "data.data / data.len of frame 4" "000102030405060708090a0b0c0d0e0f10111213	20" "$("$U" -r "$C/cfg3_plain_ip.pcapng" -Y 'frame.number == 4' -T fields -e data.data -e data.len)"
expect "data.len of the ICMP echoes (filter and field as tshark's)" "$(ts -n -r "$C/icmp.pcapng" -Y 'data.len > 20' -T fields -e frame.number -e data.len 2>&1)" \
    "$("$U" -r "$C/icmp.pcapng" -Y 'data.len > 20' -T fields -e frame.number -e data.len)"
expect "data.len > 20: the echoes with data" "$(printf '1\t56\n2\t56\n5\t30\n6\t30\n8\t24')" \
    "$("$U" -r "$C/icmp.pcapng" -Y 'data.len > 20' -T fields -e frame.number -e data.len 2>/dev/null)"
expect "columns of a raw flit-stream record: its first unit above the data link" "3	UB-TA	0x0304	0x0102	60" \
    "$("$U" -r "$C/stream.pcapng" -Y 'frame.number == 3' -T fields -e _ws.col.No. -e _ws.col.Protocol -e _ws.col.Source -e _ws.col.Destination -e _ws.col.Length)"
expect "a record without a whole unit" "UB-DLL	" "$("$U" -r "$C/stream.pcapng" -Y 'frame.number == 5' -T fields -e _ws.col.Protocol -e _ws.col.Source)"
expect "empty columns are listed in -T json" '""' \
    "$("$U" -r "$C/dllcb.pcapng" -c 1 -T json -e _ws.col.Source | grep -A1 '"_ws.col.Source"' | tail -1 | tr -d ' ')"
expect "ub.cna of a raw flit-stream record" "0x000304,0x000102" \
    "$("$U" -r "$C/stream.pcapng" -Y 'frame.number == 3' -T fields -e ub.cna)"
expect "frame.protocols: UBoE over VLAN, UB over IPv6, plain CFG 3 IP, a record without a whole unit" \
    "eth:ethertype:vlan:ethertype:ip:udp:ub eth:ethertype:ipv6:udp:ub ub:ip:udp:sue:infiniband:data ub" \
    "$("$U" -r "$C/uboe.pcapng" -Y 'frame.number in {1, 3}' -T fields -e frame.protocols | tr '\n' ' ')$("$U" -r "$C/cfg3_plain_ip.pcapng" \
      -Y 'frame.number == 3' -T fields -e frame.protocols) $("$U" -r "$C/stream.pcapng" -Y 'frame.number == 5' -T fields -e frame.protocols)"
expect "frame.protocols: SUE with data; RoCEv2 UD with data; a CNP (Wireshark 4.0 knows no such opcode: no data)" \
    "eth:ethertype:sue:data eth:ethertype:ip:udp:sue:infiniband:data eth:ethertype:ip:udp:sue:infiniband" \
    "$("$U" -r "$C/sue_afh.pcapng" -Y 'frame.number == 1' -T fields -e frame.protocols 2>/dev/null) $("$U" -r "$C/rocev2_rc.pcapng" \
      -Y 'frame.number == 1' -T fields -e frame.protocols 2>/dev/null) $("$U" -r "$C/mixed_eth.pcapng" -Y 'frame.number == 10' -T fields -e frame.protocols)"
expect "frame.interface_id: none in a pcap file" "" "$("$U" -r "$tmp/big.pcap" -T fields -e frame.interface_id | sort -u)"
expect "frame.interface_id in pcapng" "0" "$("$U" -r "$C/uboe.pcapng" -T fields -e frame.interface_id | sort -u)"
echo "t_fields_ws: $nf fields, $ncap captures, $nval values identical to tshark; Wireshark's names and the columns: $nws captures, $nwv values ($nabove Protocol columns name a protocol above ubdump's)"
