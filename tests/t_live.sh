#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubdump -i IFACE: live capture (libubparse/src/caplive.c), inside a user + network namespace this test
# creates (`unshare -rn`) on a veth pair: ubreplay sends on va, ubdump captures on vb.
#   the records captured (-c, -w) are the frames sent: same fields as the source capture
#   --audit live: the rule ids of the source trace's faults (RTP loss, a bad ack), exit 1
#   SIGINT and -a duration: end the capture as the end of a file ends a run (totals, exit 0); -a packets:
#   and -c stop it; -s cuts records;
#   -D lists the interfaces, -i takes their numbers; loopback shows each packet once; -r with -i, an unknown interface: exit 2; while it runs it holds no capabilities and sends nothing
# Skipped, with a message, only where user/network namespaces cannot be created. No wall-clock
# thresholds: the waits below are safety nets, the assertions are on records, rule ids and counts.
set -u
: "${UBREPLAY:?}" "${UBDUMP:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
netns_enter "$0" "$@"
peer_test_init t_live
veth_up
C=$S/captures

# cap NAME UBDUMP_ARGS...: ubdump -i vb (or $IF) in the background (stdout/stderr in $tmp/NAME.out/.err) until it
# says it is capturing; sets CAP_PID
cap() {
    name=$1
    shift
    rm -f "$tmp/$name.err" # not an earlier capture's "capturing on" line
    "$UBDUMP" -i "${IF:-vb}" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
    CAP_PID=$!
    i=0
    while ! grep -q "^ubdump: capturing on " "$tmp/$name.err" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt 200 ] || ! kill -0 "$CAP_PID" 2>/dev/null; then bad "$name: not capturing: $(cat "$tmp/$name.err")"; return 1; fi
        sleep 0.1
    done
}
# capwait: the exit status of the background ubdump (peer_lib.sh wait_safe)
capwait() { wait_safe "$CAP_PID"; }

# ---------------------------------------------------------------- the frames sent, captured
F="-T fields -e eth.src -e ip.src -e ipv6.src -e udp.dstport -e ub.rtph.psn -e ub.btah.taopcode -e ub.btah.ini_tassn -e frame.len"
n=$("$UBDUMP" -r "$C/uboe.pcapng" | wc -l)
tx0=$(cat /sys/class/net/vb/statistics/tx_packets)
if cap uboe -c "$n" -w "$tmp/uboe.pcapng"; then
    grep -q "capturing on vb, link type 1 (Ethernet), snapshot length 65535 bytes" "$tmp/uboe.err" && ok || bad "uboe: $(cat "$tmp/uboe.err")"
    [ "$(awk '/^CapEff/ {print $2}' "/proc/$CAP_PID/status")" = 0000000000000000 ] && ok || bad "capabilities kept while capturing"
    "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    capwait; eq "uboe: exit status" "$?" 0
    # shellcheck disable=SC2086
    eq "uboe: the records captured are the frames sent" "$("$UBDUMP" -r "$tmp/uboe.pcapng" $F)" "$("$UBDUMP" -r "$C/uboe.pcapng" $F)"
    grep -q "ubdump: $n packets captured on vb, 0 dropped by the kernel" "$tmp/uboe.err" && ok || bad "uboe totals: $(cat "$tmp/uboe.err")"
    if command -v tshark > /dev/null 2>&1; then # Wireshark reads the interface name -w wrote
        eq "uboe: -w keeps the interface name" "$(tshark -n -r "$tmp/uboe.pcapng" -c 1 -T fields -e frame.interface_name 2>/dev/null)" vb
    fi
    eq "uboe: nothing sent on vb" "$(cat /sys/class/net/vb/statistics/tx_packets)" "$tx0"
fi

# ---------------------------------------------------------------- -f: a capture filter in the kernel
# uboe.pcapng: frames 1 and 2 IPv4 (from 192.168.1.1, then 192.168.1.2), frame 3 IPv6; -c 1 ends at the
# first frame the filter passes
for fx in "ip6:3" "udp and src host 192.168.1.2:2" "not ip6 and not src host 192.168.1.2:1"; do
    f=${fx%:*} want=${fx##*:}
    if cap filt -c 1 -f "$f" -w "$tmp/filt.pcapng"; then
        grep -qF "capture filter '$f'" "$tmp/filt.err" && ok || bad "-f $f: $(cat "$tmp/filt.err")"
        "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
        capwait; eq "-f $f: exit status" "$?" 0
        # shellcheck disable=SC2086
        eq "-f '$f': frame $want alone" "$("$UBDUMP" -r "$tmp/filt.pcapng" $F)" "$("$UBDUMP" -r "$C/uboe.pcapng" -Y "frame.number == $want" $F)"
    fi
done
# the words after the options are the capture filter, as tcpdump's and tshark's
if cap trail -c 1 -w "$tmp/trail.pcapng" udp and src host 192.168.1.2; then
    "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    capwait; eq "a capture filter after the options: exit status" "$?" 0
    # shellcheck disable=SC2086
    eq "a capture filter after the options: frame 2 alone" "$("$UBDUMP" -r "$tmp/trail.pcapng" $F)" "$("$UBDUMP" -r "$C/uboe.pcapng" -Y "frame.number == 2" $F)"
fi
"$UBDUMP" -i vb -f ip6 -c 1 udp > /dev/null 2> "$tmp/e.txt"; rc=$?
eq "-f and a capture filter after the options" "$(cat "$tmp/e.txt") $rc" "ubdump: Capture filters were specified both with \"-f\" and with additional command-line arguments. 2"
"$UBDUMP" -i vb -f "udp and" -c 1 > /dev/null 2> "$tmp/e.txt"; rc=$?
eq "-f: a syntax error" "$(cat "$tmp/e.txt") $rc" "ubdump: -f: 'udp and': can't parse filter expression: syntax error 2"
"$UBDUMP" -r "$C/uboe.pcapng" -f udp > /dev/null 2> "$tmp/e.txt"; rc=$?
eq "-f with -r" "$(cat "$tmp/e.txt") $rc" "ubdump: only read filters, not capture filters, can be given when reading a capture file: use -Y (or -2 -R) 2"

# ---------------------------------------------------------------- --audit live
L=$C/audit_rtp_lossy.pcapng
n=$("$UBDUMP" -r "$L" | wc -l)
if cap audit -c "$n" --audit; then
    "$UBREPLAY" -i va --topspeed --cna-ip 0x010203=10.1.2.3,0x0a0b0c=10.10.11.12 "$L" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    capwait; eq "audit: exit status (an error finding)" "$?" 1
    ids() { grep -E '^(error|warning|note) +UB-' "$1" | awk '{print $2}' | sort | tr '\n' ' '; }
    eq "audit: the rule ids of the trace's faults" "$(ids "$tmp/audit.out")" "$("$UBDUMP" -q --audit -r "$L" 2>/dev/null > "$tmp/file.out"; ids "$tmp/file.out")"
    grep -q "^UB audit of vb: $n records, $n packets" "$tmp/audit.out" && ok || bad "audit header: $(head -3 "$tmp/audit.out")"
fi

# -U: each record is in the file while the capture still runs
if cap pb -w "$tmp/pb.pcapng" -U; then
    "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    n=$("$UBDUMP" -r "$C/uboe.pcapng" | wc -l)
    i=0
    while [ "$("$UBDUMP" -r "$tmp/pb.pcapng" 2>/dev/null | wc -l)" -lt "$n" ] && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
    eq "-U: the records in the file before the capture ends" "$("$UBDUMP" -r "$tmp/pb.pcapng" 2>/dev/null | wc -l | tr -d ' ')" "$n"
    kill -INT "$CAP_PID"
    capwait; eq "-U: exit status" "$?" 0
fi

# ---------------------------------------------------------------- SIGINT, -s, usage
if cap sigint -q; then
    kill -INT "$CAP_PID"
    capwait; eq "SIGINT: exit status" "$?" 0
    grep -q "ubdump: 0 packets captured on vb" "$tmp/sigint.err" && ok || bad "SIGINT: $(cat "$tmp/sigint.err")"
    grep -q "^0 records" "$tmp/sigint.out" && ok || bad "SIGINT totals: $(cat "$tmp/sigint.out")"
fi
if cap snap -c 3 -s 64 -p -T fields -e frame.cap_len -e frame.len; then
    "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    capwait; eq "-s 64: exit status" "$?" 0
    eq "-s 64: cut records, their length on the wire kept" "$(cat "$tmp/snap.out")" \
        "$("$UBDUMP" -r "$C/uboe.pcapng" -T fields -e frame.len | awk '{ print ($1 < 64 ? $1 : 64) "\t" $1 }')"
fi
# loopback: each packet once (its incoming copy, as libpcap keeps it): a datagram and its port unreachable
if IF=lo cap lo -c 2 -T fields -e ip.proto -e udp.dstport -e frame.p2p_dir; then
    python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x" * 40, ("127.0.0.1", 4792))'
    capwait; eq "lo: exit status" "$?" 0
    eq "lo: the datagram and the ICMP error, once each" "$(cat "$tmp/lo.out")" "$(printf '17\t4792\t1\n1,17\t4792\t1')"
fi
# -D lists the interfaces; -i takes the number it shows
"$UBDUMP" -D > "$tmp/D.txt" 2>&1 || bad "-D: $(cat "$tmp/D.txt")"
grep -Eq '^[0-9]+\. va \(veth, up, Ethernet\)$' "$tmp/D.txt" && ok || bad "-D: va not listed: $(cat "$tmp/D.txt")"
grep -Eq '^[0-9]+\. lo \(loopback, up, Ethernet\)$' "$tmp/D.txt" && ok || bad "-D: lo not listed: $(cat "$tmp/D.txt")"
vbn=$(sed -n 's/^\([0-9]*\)\. vb .*/\1/p' "$tmp/D.txt")
if IF=$vbn cap num -c 1 -T fields -e frame.number; then
    grep -q "^ubdump: capturing on vb," "$tmp/num.err" && ok || bad "-i $vbn: $(cat "$tmp/num.err")"
    "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    capwait; eq "-i $vbn (vb by its number): one record" "$?:$(cat "$tmp/num.out")" "0:1"
fi
# -a duration: (no traffic) ends the run as SIGINT does; -a packets: as -c
if cap dur -q -a duration:0.3; then
    capwait; eq "-a duration:0.3: exit status" "$?" 0
    grep -q "ubdump: 0 packets captured on vb" "$tmp/dur.err" && ok || bad "-a duration: $(cat "$tmp/dur.err")"
fi
if cap pk -a packets:2 -T fields -e frame.number; then
    "$UBREPLAY" -i va --topspeed "$C/uboe.pcapng" > "$tmp/r.out" 2>&1 || bad "ubreplay: $(cat "$tmp/r.out")"
    capwait; eq "-a packets:2: exit status" "$?" 0
    eq "-a packets:2: two records" "$(cat "$tmp/pk.out")" "$(printf '1\n2')"
fi
"$UBDUMP" -r "$C/uboe.pcapng" -a duration:1 > /dev/null 2> "$tmp/e.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "needs -i" "$tmp/e.txt" && ok || bad "-a duration without -i: exit $rc $(cat "$tmp/e.txt")"
"$UBDUMP" -i vb -r "$C/uboe.pcapng" > /dev/null 2> "$tmp/e.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "not both" "$tmp/e.txt" && ok || bad "-i with -r: exit $rc $(cat "$tmp/e.txt")"
"$UBDUMP" -i ub-nosuch0 > /dev/null 2> "$tmp/e.txt"; rc=$?
[ $rc -eq 2 ] && grep -q "ub-nosuch0: no such interface" "$tmp/e.txt" && ok || bad "unknown interface: exit $rc $(cat "$tmp/e.txt")"
ub_check_done
