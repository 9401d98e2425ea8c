#!/bin/sh
# ubdump's time column and text line (tools/ubdump_out.c, written by hand, no printf): exact text of
# every -t format at the edges — time 0, the largest 32-bit pcap second, a time going backwards
# (negative deltas), µs / ns pcap and pcapng interfaces with 0, 3 and 9 decimal digits — and the frame
# number column past six digits.
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
. "$S/tests/check_lib.sh"
ub_check_init t_timecol
command -v python3 > /dev/null 2>&1 || { echo "FAIL: python3 is not installed"; exit 1; }

# caps.py: three 14-byte Ethernet frames (EtherType 0x1234, not UB) at 0 s, 4294967295.999999999 s and
# 1.000005007 s, as a µs pcap, a ns pcap, and pcapngs with if_tsresol 10^0, 10^-3 and 10^-9
cat > "$tmp/caps.py" << 'EOF'
import struct, sys
d = sys.argv[1]
frame = bytes(12) + b'\x12\x34'
ts = [(0, 0), (4294967295, 999999999), (1, 5007)]
def pcap(name, magic, div):
    with open(d + '/' + name, 'wb') as f:
        f.write(struct.pack('<IHHiIII', magic, 2, 4, 0, 0, 65535, 1))
        for s, ns in ts:
            f.write(struct.pack('<IIII', s, ns // div, len(frame), len(frame)) + frame)
def pcapng(name, resol, per_s):
    with open(d + '/' + name, 'wb') as f:
        f.write(struct.pack('<IIIHHqI', 0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0, -1, 28))
        opt = struct.pack('<HHB3x', 9, 1, resol) + struct.pack('<HH', 0, 0)
        body = struct.pack('<HHI', 1, 0, 65535) + opt
        f.write(struct.pack('<II', 1, 12 + len(body)) + body + struct.pack('<I', 12 + len(body)))
        for s, ns in ts:
            t = s * per_s + ns * per_s // 1000000000
            pad = frame + bytes((-len(frame)) % 4)
            body = struct.pack('<IIIII', 0, t >> 32, t & 0xffffffff, len(frame), len(frame)) + pad
            f.write(struct.pack('<II', 6, 12 + len(body)) + body + struct.pack('<I', 12 + len(body)))
pcap('us.pcap', 0xa1b2c3d4, 1000)
pcap('ns.pcap', 0xa1b23c4d, 1)
pcapng('s0.pcapng', 0, 1)
pcapng('ms.pcapng', 3, 1000)
pcapng('ns.pcapng', 9, 1000000000)
EOF
python3 "$tmp/caps.py" "$tmp"

# times FILE FORMAT: the time column of each line, blank-separated
tcol() { TZ=UTC "$U" -r "$tmp/$1" -t "$2" 2>/dev/null | awk '{ print ($3 ~ /:/ && $2 ~ /-/) ? $2 " " $3 : $2 }' | paste -sd'|' -; }
eq "-t r, µs" "$(tcol us.pcap r)" "0.000000|4294967295.999999|1.000005"
eq "-t d, µs (negative delta)" "$(tcol us.pcap d)" "0.000000|4294967295.999999|-4294967294.999994"
eq "-t dd, µs" "$(tcol us.pcap dd)" "0.000000|4294967295.999999|-4294967294.999994"
eq "-t e, µs" "$(tcol us.pcap e)" "0.000000|4294967295.999999|1.000005"
eq "-t r, ns" "$(tcol ns.pcap r)" "0.000000000|4294967295.999999999|1.000005007"
eq "-t d, ns" "$(tcol ns.pcap d)" "0.000000000|4294967295.999999999|-4294967294.999994992"
eq "-t ud, ns" "$(tcol ns.pcap ud)" "1970-01-01 00:00:00.000000000|2106-02-07 06:28:15.999999999|1970-01-01 00:00:01.000005007"
eq "-t ad, ns, TZ=UTC" "$(tcol ns.pcap ad)" "1970-01-01 00:00:00.000000000|2106-02-07 06:28:15.999999999|1970-01-01 00:00:01.000005007"
eq "-t u, µs" "$(tcol us.pcap u)" "00:00:00.000000|06:28:15.999999|00:00:01.000005"
eq "-t a, µs, TZ=UTC" "$(tcol us.pcap a)" "00:00:00.000000|06:28:15.999999|00:00:01.000005"
eq "-t r, pcapng 10^0 s (no digits: one 0, as printf)" "$(tcol s0.pcapng r)" "0.0|4294967295.0|1.0"
eq "-t d, pcapng 10^0 s" "$(tcol s0.pcapng d)" "0.0|4294967295.0|-4294967294.0"
eq "-t u, pcapng 10^0 s" "$(tcol s0.pcapng u)" "00:00:00.0|06:28:15.0|00:00:01.0"
eq "-t e, pcapng ms" "$(tcol ms.pcapng e)" "0.000|4294967295.999|1.000"
eq "-t ud, pcapng ns" "$(tcol ns.pcapng ud)" "1970-01-01 00:00:00.000000000|2106-02-07 06:28:15.999999999|1970-01-01 00:00:01.000005007"
# a time zone east of UTC by 5:30: the local fields by hand as strftime would
eq "-t ad, TZ=Asia/Kolkata" "$(TZ=Asia/Kolkata "$U" -r "$tmp/us.pcap" -t ad 2>/dev/null | cut -c8-33 | paste -sd'|' -)" \
    "1970-01-01 05:30:00.000000|2106-02-07 11:58:15.999999|1970-01-01 05:30:01.000005"

# whole lines: the frame number right-aligned in six columns, then wider
eq "text line" "$(TZ=UTC "$U" -r "$tmp/us.pcap" -c 1 2>/dev/null)" "     1 0.000000 ETH EtherType 0x1234"
python3 - "$tmp" << 'EOF'
import struct, sys
frame = bytes(12) + b'\x12\x34'
with open(sys.argv[1] + '/many.pcap', 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(1000001):
        f.write(struct.pack('<IIII', 0, i % 1000000, len(frame), len(frame)) + frame)
EOF
eq "frame numbers 999999 and 1000000" "$("$U" -r "$tmp/many.pcap" 2>/dev/null | sed -n '999999,1000000p')" \
    "999999 0.999998 ETH EtherType 0x1234
1000000 0.999999 ETH EtherType 0x1234"
ub_check_done
