#!/bin/sh
# ubdump -w with -F pcap / nsecpcap / pcapng (tshark -F): the file tshark writes from the same
# records, byte for byte (pcap: µs timestamps, nsecpcap: ns, the interface's snaplen and link type);
# -Y selects the records; a record of another link type is an error naming its frame (a pcap file
# holds one); an Ethernet FCS, which pcap cannot mark, is warned about; -b ring files and
# --write-cited take the format too; -F needs -w and a known name.
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
. "$S/tests/check_lib.sh"
ub_check_init t_write_format
for t in tshark capinfos mergecap; do command -v $t > /dev/null 2>&1 || { echo "FAIL: $t is not installed"; exit 1; }; done
# tshark reads and writes without our plugin here: the file bytes do not depend on dissection
tsw() { env HOME="$tmp" WIRESHARK_PLUGIN_DIR="$tmp/none" tshark -n "$@" 2> /dev/null; }

for cap in uboe cfg7_rtp audit_rtp_lossy dllcb stream; do
    for f in pcap nsecpcap pcapng; do
        [ $f != pcapng ] || [ $cap = uboe ] || continue # pcapng: ubdump's own writer (t_cli_parity)
        "$U" -r "$C/$cap.pcapng" -F $f -w "$tmp/u.$f" || bad "$cap -F $f: ubdump failed"
        [ $f = pcapng ] && { same "$cap -F pcapng: the default" "$(cat "$tmp/u.$f" | od -An -tx1 | head -1)" \
            "$("$U" -r "$C/$cap.pcapng" -w - | od -An -tx1 | head -1)"; continue; }
        tsw -r "$C/$cap.pcapng" -F $f -w "$tmp/t.$f"
        cmp -s "$tmp/u.$f" "$tmp/t.$f" && ok || bad "$cap -F $f: not the bytes tshark -F $f writes"
    done
done
same "-F pcap: the file type" "Wireshark/tcpdump/... - pcap" "$(capinfos -t "$tmp/u.pcap" | sed -n 's/^File type: *//p')"
same "-F nsecpcap: the file type" "Wireshark/tcpdump/... - nanosecond pcap" "$(capinfos -t "$tmp/u.nsecpcap" | sed -n 's/^File type: *//p')"
# -Y: the selected records, as tshark -Y ... -w (the same display filter, no plugin needed for frame.*)
"$U" -r "$C/audit_rtp_lossy.pcapng" -Y "frame.number in {2, 5, 7..9}" -F pcap -w "$tmp/sel.pcap"
tsw -r "$C/audit_rtp_lossy.pcapng" -Y "frame.number in {2, 5, 7..9}" -F pcap -w "$tmp/tsel.pcap"
cmp -s "$tmp/sel.pcap" "$tmp/tsel.pcap" && ok || bad "-Y -F pcap: not tshark's bytes"
same "-Y -F pcap: 5 records" "5" "$(capinfos -Mc "$tmp/sel.pcap" | awk '/Number of packets/ {print $NF}')"

# two link types: an error at the first record of the second, the records before it written
mergecap -a -w "$tmp/two.pcapng" "$C/uboe.pcapng" "$C/cfg7_rtp.pcapng"
"$U" -r "$tmp/two.pcapng" -F pcap -w "$tmp/two.pcap" 2> "$tmp/two.err" && rc=0 || rc=$?
same "two link types: exit 2" "2" "$rc"
same "two link types: the message" "ubdump: -w: frame 4 has link type 147, the pcap file's is 1: a pcap file holds one link type (write pcapng: -F pcapng)" \
    "$(cat "$tmp/two.err")"
same "two link types: the records before it" "3" "$(capinfos -Mc "$tmp/two.pcap" | awk '/Number of packets/ {print $NF}')"

# an Ethernet FCS (pcapng if_fcslen 4): written as captured, with a warning
python3 - "$C/uboe.pcapng" "$tmp/fcs.pcapng" <<'PY'
import struct, sys, zlib
# the UBoE frames of uboe.pcapng (pcapng: SHB, IDB, EPBs) with their FCS appended, if_fcslen 4
d = open(sys.argv[1], "rb").read()
o, frames = 0, []
while o < len(d):
    t, n = struct.unpack_from("<II", d, o)
    if t == 6:
        cl = struct.unpack_from("<I", d, o + 20)[0]
        frames.append(d[o + 28:o + 28 + cl])
    o += n
def blk(t, body): return struct.pack("<II", t, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
out = blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
out += blk(1, struct.pack("<HHI", 1, 0, 262144) + struct.pack("<HHB3x", 13, 1, 4) + bytes(4))
for i, f in enumerate(frames):
    f = f + struct.pack("<I", zlib.crc32(f))
    pad = (-len(f)) % 4
    out += blk(6, struct.pack("<IIIII", 0, 0, 1000 * (i + 1), len(f), len(f)) + f + bytes(pad))
open(sys.argv[2], "wb").write(out)
PY
"$U" -r "$tmp/fcs.pcapng" -F pcap -w "$tmp/fcs.pcap" 2> "$tmp/fcs.err" || bad "FCS -F pcap failed"
same "an FCS: the warning" "ubdump: warning: -w: 3 records end in an Ethernet FCS, which a pcap file cannot mark (pcapng does: -F pcapng)" "$(cat "$tmp/fcs.err")"
same "an FCS: the bytes kept (218 + 4)" "222" "$(tsw -r "$tmp/fcs.pcap" -T fields -e frame.len -c 1)"
"$U" -r "$tmp/fcs.pcapng" -w "$tmp/fcs2.pcapng" 2> "$tmp/fcs2.err"
same "an FCS: no warning with pcapng" "" "$(cat "$tmp/fcs2.err")"

# -b ring files and --write-cited in the format
"$U" -r "$C/audit_rtp_lossy.pcapng" -F pcap -b filesize:1 -w "$tmp/ring.pcap"
n=0
for f in "$tmp"/ring_*.pcap; do
    [ "$(capinfos -t "$f" | sed -n 's/^File type: *//p')" = "Wireshark/tcpdump/... - pcap" ] && n=$((n + 1))
done
same "-b -F pcap: every ring file pcap" "$(ls "$tmp"/ring_*.pcap | wc -l | tr -d ' ')" "$n"
[ "$n" -gt 1 ] && ok || bad "-b filesize:1 made $n files"
"$U" -r "$C/audit_retry.pcapng" -q --audit --write-cited -F nsecpcap -w "$tmp/cited.pcap" > /dev/null || true
same "--write-cited -F nsecpcap" "Wireshark/tcpdump/... - nanosecond pcap" "$(capinfos -t "$tmp/cited.pcap" | sed -n 's/^File type: *//p')"
# no record selected: a pcap header with the input's link type
"$U" -r "$C/cfg7_rtp.pcapng" -Y "frame.number > 100" -F pcap -w "$tmp/empty.pcap"
same "no record: 24 bytes, link type 147" "24 147" "$(python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
print(len(d), struct.unpack_from("<I", d, 20)[0])' "$tmp/empty.pcap")"

"$U" -r "$C/uboe.pcapng" -F pcap > /dev/null 2> "$tmp/e1" && rc=0 || rc=$?
same "-F without -w" "ubdump: -F needs -w FILE 2" "$(cat "$tmp/e1") $rc"
"$U" -r "$C/uboe.pcapng" -F erf -w "$tmp/x" > /dev/null 2> "$tmp/e2" && rc=0 || rc=$?
same "-F erf" "ubdump: -F pcapng|pcap|nsecpcap, not 'erf' 2" "$(cat "$tmp/e2") $rc"
ub_check_done
