#!/bin/sh
# ubdump -w keeps what the source says about each packet and interface: every opt_comment of an EPB
# (not just the first), each interface's link type, snaplen, if_name, if_description and if_tsresol
# (timestamps keep their resolution: 6 digits on a µs interface, 9 on a ns one); pcap input keeps µs
# or ns as in the file. Checked with tshark, capinfos and ubdump on a pcapng built here. -b: the ring
# buffer of files (size, capture-time span, the newest N kept), every record once and in order.
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
same() { [ "$2" = "$3" ] || { printf 'want:\n%s\ngot:\n%s\n' "$2" "$3"; fail "$1"; }; }
for t in tshark capinfos editcap python3; do command -v $t > /dev/null 2>&1 || fail "$t is not installed"; done

# two interfaces: eth7 (if_tsresol 6, snaplen 65535, a description), eth8 (if_tsresol 9, snaplen 9000);
# frame 1 carries two comments, frame 2 one, frame 3 none; the packets are uboe.pcapng's first three
python3 - "$S/captures/uboe.pcapng" "$tmp/in.pcapng" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
pk, o = [], 0
while o < len(d):
    t, l = struct.unpack_from("<II", d, o)
    if t == 6:
        pk.append(d[o + 28:o + 28 + struct.unpack_from("<I", d, o + 20)[0]])
    o += l
def opt(code, val):
    return struct.pack("<HH", code, len(val)) + val + b"\0" * (-len(val) % 4)
def blk(t, body):
    return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
def epb(ifid, ts, data, comments):
    o = b"".join(opt(1, c.encode()) for c in comments) + (opt(0, b"") if comments else b"")
    return blk(6, struct.pack("<IIIII", ifid, ts >> 32, ts & 0xFFFFFFFF, len(data), len(data)) + data
               + b"\0" * (-len(data) % 4) + o)
out = blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + opt(0, b""))
out += blk(1, struct.pack("<HHI", 1, 0, 65535) + opt(2, b"eth7") + opt(3, b"UBoE port") + opt(9, b"\x06") + opt(0, b""))
out += blk(1, struct.pack("<HHI", 1, 0, 9000) + opt(2, b"eth8") + opt(9, b"\x09") + opt(0, b""))
out += epb(0, 1000001, pk[0], ["first comment", "second, with a comma"])  # µs units: 1.000001 s
out += epb(1, 2000000123, pk[1], ["on the ns interface"])                 # ns units: 2.000000123 s
out += epb(0, 3000002, pk[2], [])
open(sys.argv[2], "wb").write(out)
PY
"$U" -r "$tmp/in.pcapng" -w "$tmp/out.pcapng"
TSF="-T fields -E separator=| -e frame.number -e frame.comment -e frame.time_epoch -e frame.interface_name -e frame.cap_len"
want="1|first comment,second, with a comma|1.000001000|eth7|218
2|on the ns interface|2.000000123|eth8|66
3||3.000002000|eth7|122"
# shellcheck disable=SC2086
same "tshark reads the source" "$want" "$(tshark -r "$tmp/in.pcapng" $TSF 2> /dev/null)"
# shellcheck disable=SC2086
same "tshark reads ubdump -w's file: both comments, times, interfaces" "$want" "$(tshark -r "$tmp/out.pcapng" $TSF 2> /dev/null)"
same "the two comments are two opt_comment options" "first comment;second, with a comma" \
    "$(tshark -r "$tmp/out.pcapng" -Y frame.number==1 -T fields -E occurrence=a -E 'aggregator=;' -e frame.comment 2> /dev/null)"
ifs() { capinfos -I "$1" | sed -n '/^Interface #/,$p' | grep -v 'Number of packets\|Number of stat entries'; }
want="Interface #0 info:
                     Name = eth7
                     Description = UBoE port
                     Encapsulation = Ethernet (1 - ether)
                     Capture length = 65535
                     Time precision = microseconds (6)
                     Time ticks per second = 1000000
                     Time resolution = 0x06
Interface #1 info:
                     Name = eth8
                     Encapsulation = Ethernet (1 - ether)
                     Capture length = 9000
                     Time precision = nanoseconds (9)
                     Time ticks per second = 1000000000
                     Time resolution = 0x09"
same "capinfos: the source's interfaces" "$want" "$(ifs "$tmp/in.pcapng")"
same "capinfos: ubdump -w keeps name, description, snaplen, if_tsresol" "$want" "$(ifs "$tmp/out.pcapng")"
# ubdump reads its own file back: 6 digits on the µs interface, 9 on the ns one
same "ubdump -t e on the written file" "1.000001 2.000000123 3.000002" "$("$U" -r "$tmp/out.pcapng" -t e -T fields -e _ws.col.Time | paste -sd' ')"
same "default time column: per-interface precision, as tshark's" "$(tshark -r "$tmp/in.pcapng" -T fields -e _ws.col.Time 2> /dev/null | paste -sd' ')" \
    "0.000000 0.999999123 2.000001"
same "ubdump's default time column" "0.000000 0.999999123 2.000001" "$("$U" -r "$tmp/out.pcapng" | awk '{ print $2 }' | paste -sd' ')"
"$U" -r "$tmp/in.pcapng" -t e | cut -c8- > "$tmp/a.txt"
"$U" -r "$tmp/out.pcapng" -t e | cut -c8- | cmp -s "$tmp/a.txt" - || fail "ubdump prints the written file differently"
# -Y keeps the interfaces and the comments of the selected packet
"$U" -r "$tmp/in.pcapng" -w "$tmp/sel.pcapng" -Y 'frame.number == 1'
same "-Y frame 1" "1|first comment,second, with a comma|1.000001000|eth7|218" "$(tshark -r "$tmp/sel.pcapng" -T fields -E 'separator=|' -e frame.number -e frame.comment -e frame.time_epoch -e frame.interface_name -e frame.cap_len 2> /dev/null)"

# pcap input: µs stays µs, ns stays ns (precision and the pcap snaplen)
editcap -F pcap "$S/captures/uboe.pcapng" "$tmp/us.pcap"
python3 -c 'import sys, struct; f = open(sys.argv[1], "r+b"); f.seek(16); f.write(struct.pack("<I", 4000))' "$tmp/us.pcap" # snaplen
editcap -F nsecpcap "$S/captures/uboe.pcapng" "$tmp/ns.pcap"
for f in us ns; do "$U" -r "$tmp/$f.pcap" -w "$tmp/$f.pcapng"; done
same "µs pcap -> pcapng" "Capture length = 4000 Time precision = microseconds (6)" \
    "$(capinfos -I "$tmp/us.pcapng" | grep 'Capture length\|Time precision' | sed 's/^ *//' | paste -sd' ')"
same "ns pcap -> pcapng" "Time precision = nanoseconds (9)" "$(capinfos -I "$tmp/ns.pcapng" | grep 'Time precision' | sed 's/^ *//')"
same "µs pcap -> pcapng: times" "$(tshark -r "$tmp/us.pcap" -T fields -e frame.time_epoch 2> /dev/null)" "$(tshark -r "$tmp/us.pcapng" -T fields -e frame.time_epoch 2> /dev/null)"
same "ubdump -t e on the µs result" "0.010000 0.020000 0.030000" "$("$U" -r "$tmp/us.pcapng" -t e -T fields -e _ws.col.Time | paste -sd' ')"

# -b: tshark's ring buffer. 5,000 records 1 µs apart (100-byte flits: 132-byte EPBs)
G=${UBGEN:?}
mkdir "$tmp/rb" "$tmp/rb2" "$tmp/rb3" "$tmp/rb4"
"$G" --repeat 5000 -w "$tmp/src.pcap" "$S/bench/write64.ub" > /dev/null
all() { for f in "$@"; do "$U" -r "$f" -T fields -e frame.time_epoch -e ub.btah.ini_tassn; done; }
want=$("$U" -r "$tmp/src.pcap" -T fields -e frame.time_epoch -e ub.btah.ini_tassn)
"$U" -r "$tmp/src.pcap" -w "$tmp/rb/out.pcapng" -b filesize:100
same "filesize:100: the files" "out_00001_19700101000000.pcapng out_00002_19700101000000.pcapng out_00003_19700101000000.pcapng out_00004_19700101000000.pcapng out_00005_19700101000000.pcapng out_00006_19700101000000.pcapng out_00007_19700101000000.pcapng" \
    "$(cd "$tmp/rb" && ls | paste -sd' ')"
# shellcheck disable=SC2046
same "filesize:100: every record once, in order" "$want" "$(all $(ls "$tmp"/rb/out_*))"
for f in "$tmp"/rb/out_0000[1-6]_*; do
    sz=$(stat -c %s "$f")
    [ "$sz" -ge 100000 ] && [ "$sz" -lt 100132 ] || fail "filesize:100: $(basename "$f") has $sz bytes"
done
"$U" -r "$tmp/src.pcap" -w "$tmp/rb2/x.pcapng" -b filesize:100 -b files:3
same "files:3: the newest three" "x_00005_19700101000000.pcapng x_00006_19700101000000.pcapng x_00007_19700101000000.pcapng" "$(cd "$tmp/rb2" && ls | paste -sd' ')"
# shellcheck disable=SC2046
same "files:3: the last records" "$(echo "$want" | tail -n +$((4 * 757 + 1)))" "$(all $(ls "$tmp"/rb2/x_*))"
"$U" -r "$tmp/src.pcap" -w "$tmp/rb3/d.pcapng" -b duration:0.001
same "duration:0.001: five files of 1,000 records" "1000 1000 1000 1000 1000" \
    "$(for f in "$tmp"/rb3/d_*; do "$U" -r "$f" -T fields -e frame.number | wc -l; done | paste -sd' ')"
"$U" -r "$tmp/src.pcap" -w "$tmp/rb4/e.pcapng" -b files:2 -Y 'frame.number == 0'
[ "$(ls "$tmp/rb4" | wc -l)" -eq 1 ] && [ -z "$("$U" -r "$tmp"/rb4/e_00001_*.pcapng 2>/dev/null)" ] || fail "-b with no record: one empty file"
rc=0; "$U" -r "$tmp/src.pcap" -b files:2 > /dev/null 2>&1 || rc=$?
same "-b without -w" 2 "$rc"
rc=0; "$U" -r "$tmp/src.pcap" -w - -b files:2 > /dev/null 2>&1 || rc=$?
same "-b with -w -" 2 "$rc"
rc=0; "$U" -r "$tmp/src.pcap" -w "$tmp/z.pcapng" -b size:2 > /dev/null 2>&1 || rc=$?
same "-b size:2 (unknown)" 2 "$rc"
echo "t_write_opts: ok"
