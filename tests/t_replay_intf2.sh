#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubreplay with two outputs (-I IFACE2, tcpreplay's --intf2): inside a user + network namespace this
# test creates (`unshare -rn`), two veth pairs va <-> vb and vc <-> vd; ubreplay sends on va and vc,
# ubdump captures on vb and vd. Asserted: which frames arrive on which side, byte for byte (the
# records' fields), for --split-filter (a display filter on the packet as captured) and --split-dir
# (pcapng direction: received records on -I), the report's counts, the dry run's second interface,
# and the usage errors. Skipped, with a message, only where the namespace or veth pairs cannot be
# made. No wall-clock thresholds: the waits are safety nets.
set -u
: "${UBREPLAY:?}" "${UBDUMP:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
netns_enter "$0" "$@"
peer_test_init t_replay_intf2
veth_up
ip link add vc type veth peer name vd 2> "$tmp/ip.err" && ip link set vc up && ip link set vd up ||
    { echo "SKIP: cannot create a second veth pair: $(cat "$tmp/ip.err")"; exit 77; }
C=$S/captures
F="-T fields -e frame.len -e eth.src -e ip.src -e ipv6.src -e ub.rtph.psn -e ub.btah.taopcode -e ub.nth.scna"

# cap NAME IFACE COUNT: ubdump -i IFACE -c COUNT -w $tmp/NAME.pcapng in the background until it captures
cap() {
    "$UBDUMP" -i "$2" -c "$3" -w "$tmp/$1.pcapng" > /dev/null 2> "$tmp/$1.err" &
    eval "PID_$1=\$!"
    i=0
    while ! grep -q "^ubdump: capturing on " "$tmp/$1.err" 2> /dev/null; do
        i=$((i + 1))
        [ $i -le 200 ] || { bad "$1: not capturing: $(cat "$tmp/$1.err")"; return 1; }
        sleep 0.1
    done
}
capwait() { # NAME: its exit status (peer_lib.sh wait_safe)
    eval "p=\$PID_$1"
    wait_safe "$p"
}

# --split-filter: uboe.pcapng's frames from 192.168.1.2 (frame 2) on vc, the others (1, 3) on va
cap b vb 2 && cap d vd 1 || exit 1
"$UBREPLAY" -i va -I vc --split-filter "ip.src == 192.168.1.2" --topspeed "$C/uboe.pcapng" > "$tmp/r1.out" 2> "$tmp/r1.err"
eq "split-filter: exit status" "$?" 0
capwait b; eq "split-filter: vb capture" "$?" 0
capwait d; eq "split-filter: vd capture" "$?" 0
eq "split-filter: frames 1 and 3 on va" "$("$UBDUMP" -r "$tmp/b.pcapng" $F)" "$("$UBDUMP" -r "$C/uboe.pcapng" -Y "frame.number != 2" $F)"
eq "split-filter: frame 2 on vc" "$("$UBDUMP" -r "$tmp/d.pcapng" $F)" "$("$UBDUMP" -r "$C/uboe.pcapng" -Y "frame.number == 2" $F)"
grep -qx "ubreplay: second output: 1 packet sent (1 selected for it by --split-filter), 2 on the first" "$tmp/r1.out" &&
    ok || bad "split-filter report: $(cat "$tmp/r1.out" "$tmp/r1.err")"

# --split-dir on a CFG 7 capture with direction flags (packet records, sent as they are: --raw pkt):
# received records on vc
n_in=$("$UBDUMP" -r "$C/audit_rtp_lossy.pcapng" -Y "frame.p2p_dir == 1" -T fields -e frame.number | wc -l)
n_out=$("$UBDUMP" -r "$C/audit_rtp_lossy.pcapng" -Y "frame.p2p_dir == 0" -T fields -e frame.number | wc -l)
[ "$n_in" -gt 0 ] && [ "$n_out" -gt 0 ] && ok || bad "audit_rtp_lossy has no records of both directions ($n_in, $n_out)"
cap b2 vb "$n_out" && cap d2 vd "$n_in" || exit 1
"$UBREPLAY" -i va -I vc --raw pkt --split-dir --topspeed --json "$C/audit_rtp_lossy.pcapng" > "$tmp/r2.json" 2> "$tmp/r2.err"
eq "split-dir: exit status" "$?" 0
capwait b2; eq "split-dir: vb capture" "$?" 0
capwait d2; eq "split-dir: vd capture" "$?" 0
# the frames' bytes (records arrive as they were sent; the capture's link type is Ethernet)
"$UBDUMP" -r "$C/audit_rtp_lossy.pcapng" -Y "frame.p2p_dir == 0" -w "$tmp/want_out.pcapng"
"$UBDUMP" -r "$C/audit_rtp_lossy.pcapng" -Y "frame.p2p_dir == 1" -w "$tmp/want_in.pcapng"
cat > "$tmp/bytes.py" <<'PY'
import struct, sys
def recs(path):  # the packet bytes of a pcapng file's EPBs, in order
    d, o, out = open(path, "rb").read(), 0, []
    while o + 8 <= len(d):
        t, n = struct.unpack_from("<II", d, o)
        if t == 6:
            out.append(d[o + 28:o + 28 + struct.unpack_from("<I", d, o + 20)[0]].hex())
        o += n
    return out
a, b = recs(sys.argv[1]), recs(sys.argv[2])
print(len(a), len(b), a == b)
if a != b: print(a[0], b[0], file=sys.stderr)
PY
eq "split-dir: the sent records on va, byte for byte" "$(python3 "$tmp/bytes.py" "$tmp/b2.pcapng" "$tmp/want_out.pcapng")" "$n_out $n_out True"
eq "split-dir: the received records on vc, byte for byte" "$(python3 "$tmp/bytes.py" "$tmp/d2.pcapng" "$tmp/want_in.pcapng")" "$n_in $n_in True"
eq "split-dir: JSON second_output" "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["replay"]; print(r["second_output"], r["sent"])' "$tmp/r2.json")" \
    "{'selected': $n_in, 'sent': $n_in} $((n_in + n_out))"

# the dry run: the second output is the capture's second interface, "port1"
"$UBREPLAY" -w "$tmp/dry.pcapng" --split-filter "ub.rtph.tpopcode != 1" --topspeed "$C/audit_rtp_lossy.pcapng" > /dev/null 2>&1
eq "dry run: exit status" "$?" 0
eq "dry run: interface of each packet" \
    "$("$UBDUMP" -r "$C/audit_rtp_lossy.pcapng" -T fields -e ub.rtph.tpopcode | awk '{ print ($1 != "" && $1 != 1) ? 1 : 0 }' | paste -sd' ')" \
    "$("$UBDUMP" -r "$tmp/dry.pcapng" -T fields -e frame.interface_id | paste -sd' ')"

# usage: -I needs -i and a rule; a rule needs -I (or -w); not with --check
usage() { # DESCRIPTION MESSAGE ARGS...
    d=$1 m=$2
    shift 2
    "$UBREPLAY" "$@" "$C/uboe.pcapng" > /dev/null 2> "$tmp/u.err"
    rc=$?
    [ $rc -eq 2 ] && grep -qF -e "$m" "$tmp/u.err" && ok || bad "$d: exit $rc: $(cat "$tmp/u.err")"
}
usage "-I without a rule" "say which packets go there" -i va -I vc
usage "-I without -i" "-I IFACE2 needs -i IFACE" --udp 127.0.0.1 -I vc --split-dir
usage "a rule without -I" "need -I IFACE2" -i va --split-dir
usage "both rules" "--split-filter or --split-dir, not both" -i va -I vc --split-dir --split-filter ub
usage "with --check" "send only" -i va -I vc --split-dir --check
usage "-I: no such interface" "no interface ub-nosuch1" -i va -I ub-nosuch1 --split-dir
usage "--split-filter: a bad filter" "--split-filter ip.src ==" -i va -I vc --split-filter "ip.src =="
ub_check_done
