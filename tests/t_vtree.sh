#!/bin/sh
# ubdump -V header lines carry the text of the Wireshark tree items (libubparse/src/hdrsum.c):
# exact lines for a few captures, and on every bundled capture the text of each UB header line
# equals the showname of the same header item in tshark -T pdml with our plugin, frame by frame.
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
fail() { echo "FAIL: $*"; exit 1; }
. "$S/tests/tshark_setup.sh"
hdrs() { grep -E '\([a-z0-9_.]+\), [0-9]+ bytes?( |$)' || true; } # the header lines of -V

got=$("$U" -r "$C/cfg7_rtp.pcapng" -V -c 1 | hdrs)
want="Link Packet Header, CFG 7, VL 2 (ub.lph), 4 bytes
Network Header (24-bit CNA), SCNA 0x10203 → DCNA 0xa0b0c (ub.nth), 10 bytes
    CCI (CAQM) (ub.cci), 2 bytes
Reliable Transport Header, RTP data, PSN 17, TPN 0x101→0x202 (ub.rtph), 16 bytes
Basic Transaction Header, Send_with_immediate, INI_TASSN 5 (ub.btah), 8 bytes
Message Target ETAH (ub.mtetah), 4 bytes
Offset ETAH (ub.ofstetah), 4 bytes
Immediate ETAH (ub.immetah), 16 bytes
Payload (ub.payload), 32 bytes
Invariant CRC, ICRC 0xafdda4d2, Good (ub.icrc), 4 bytes
Flit padding (ub.flitpad), 18 bytes
Block CRC, CRC30 0x1348164c, Good (ub.bcrc), 4 bytes"
[ "$got" = "$want" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; fail "cfg7_rtp frame 1 -V header lines"; }
# -O (tshark's): -V with the fields of the named protocols only, the other headers by their line
[ "$("$U" -r "$C/cfg7_rtp.pcapng" -O ub)" = "$("$U" -r "$C/cfg7_rtp.pcapng" -V)" ] || fail "-O ub on UB-only records is not -V"
got=$("$U" -r "$C/cfg7_rtp.pcapng" -c 1 -O ub.btah | tail -n +2)
want=$("$U" -r "$C/cfg7_rtp.pcapng" -V -c 1 | tail -n +2 | awk '/\([a-z0-9_.]+\), [0-9]+ bytes?/ { keep = ($0 ~ /\(ub\.btah\)/); print; next } keep || $0 == ""')
[ "$got" = "$want" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; fail "-O ub.btah"; }
echo "$got" | grep -qx '    INI_TASSN: 5' || fail "-O ub.btah: no BTAH fields"
echo "$got" | grep -q '    PSN:' && fail "-O ub.btah: RTPH fields shown"
got=$("$U" -r "$C/icmp.pcapng" -c 1 -O icmp,data 2>/dev/null)
want="     1 0.000000000 ETH/IPv4/ICMP 10.0.0.1→10.0.0.2 echo request id 0x1a2b seq 1
Ethernet (UBoE) (ub.eth), 14 bytes
Internet Protocol version 4, Source 10.0.0.1 → Destination 10.0.0.2 (ub.ipv4), 20 bytes
Internet Control Message Protocol (not UB) (ub.icmp), 8 bytes
    Type: 8
    Code: 0
    Checksum: 0xe6c0
    Identifier (BE): 6699
    Identifier (LE): 11034
    Sequence Number (BE): 1
    Sequence Number (LE): 256
Data (ub.data), 56 bytes
    Data: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637
    Length: 56"
[ "$got" = "$want" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; fail "-O icmp,data"; }
# a decode error of a header left out is left out with its fields; of one shown, shown
"$U" -r "$C/malformed.pcapng" -c 1 -O ub.lph | grep -q '^\[' && fail "-O ub.lph shows the BCRC's error"
"$U" -r "$C/malformed.pcapng" -c 1 -O ub.bcrc | grep -q '^\[error\] .* in bcrc' || fail "-O ub.bcrc hides the BCRC's error"
if "$U" -r "$C/cfg7_rtp.pcapng" -O ub,nosuch > /dev/null 2> "$tmp/o.err"; then fail "-O nosuch accepted"; fi
grep -q "'nosuch' is not a protocol" "$tmp/o.err" || fail "-O nosuch: $(cat "$tmp/o.err")"
got=$("$U" -r "$C/uboe.pcapng" -V -c 1 | hdrs | head -4)
want="Ethernet (UBoE) (ub.eth), 14 bytes
802.1Q VLAN tag (ub.vlan), 4 bytes
Internet Protocol version 4, Source 192.168.1.1 → Destination 192.168.1.2 (ub.ipv4), 20 bytes
User Datagram Protocol, Port 51000→4792 (ub.udp), 8 bytes"
[ "$got" = "$want" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; fail "uboe frame 1 -V header lines"; }

# every capture: each UB header line == the showname of the same item in tshark's PDML
cat > "$tmp/cmp.py" <<'PY'
import re, sys, xml.etree.ElementTree as ET
HDR = re.compile(r"^ *(.*) \((ub\.[a-z0-9_]+)\), [0-9]+ bytes?( |$)")
SUM = re.compile(r"^ *([0-9]+) ")
ub = {}  # frame -> [(abbrev, text)]
frame = None
for line in open(sys.argv[1], encoding="utf-8"):
    m = HDR.match(line)
    if m and frame is not None: ub.setdefault(frame, []).append((m.group(2), m.group(1)))
    elif SUM.match(line) and not line.startswith(" " * 8): frame = int(SUM.match(line).group(1))
abbrevs = {a for v in ub.values() for a, _ in v}
ts = {}
for pkt in ET.parse(sys.argv[2]).getroot().iter("packet"):
    num = int(next(f.get("show") for f in pkt.iter("field") if f.get("name") == "frame.number"))
    ts[num] = [(f.get("name"), f.get("showname").replace(" [truncated]", ""))
               for f in pkt.iter("field") if f.get("name") in abbrevs]
n = 0
for fr, items in ub.items():
    want = ts.get(fr)
    if want is None: continue  # tshark groups this record differently (flit streams)
    got = [x for x in items if x[0] in {a for a, _ in want}]
    if got != want[:len(got)] or len(got) != len(want):
        print("frame", fr, [(a, b) for a, b in zip(got, want) if a != b][:3] or (len(got), len(want)))
        sys.exit(1)
    n += len(got)
print(n)
PY
total=0
for cap in "$C"/*.pcapng; do
    name=$(basename "$cap" .pcapng)
    o=
    case $name in noncrc) o="--noncrc" ;; esac
    cp "$cap" "$tmp/cap.pcapng"
    chmod a+r "$tmp/cap.pcapng"
    # shellcheck disable=SC2086
    ts ${o:+-o ub.crc_mode:noncrc} -r "$tmp/cap.pcapng" -T pdml > "$tmp/t.pdml" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -V > "$tmp/u.V" 2> /dev/null
    k=$(python3 "$tmp/cmp.py" "$tmp/u.V" "$tmp/t.pdml") || fail "$name: -V header lines differ from tshark's tree items: $k"
    total=$((total + k))
done
[ "$total" -gt 3000 ] || fail "only $total header items compared"
echo "t_vtree: ok ($total header items equal to tshark's)"
