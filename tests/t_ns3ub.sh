#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ns-3-UB simulator traces end to end (issue #9 item 2, docs/interop.md):
#   - traces built here the way ns-3-UB serialises (tests/ns3ub_gen.py: other nodes, ports, TP channels,
#     VLs, a SACK retransmission, DCQCN with FECN/CNP and an opcode-4 NAK, CFG 9 with CNA16, CAQM) and
#     the shared traces of ../shared/interop/ns3-ub/ (skipped with a message when absent):
#   - without the profile ubdump says which option to use; with -o profile=ns3ub no packet has a decode
#     error, the decoded values are the ones written, and --audit reports the simulated behaviour
#     (retransmissions, congestion marks, CNPs, credit returns) at the right frames, nothing else;
#   - tshark with -o ub.profile:ns3ub prints the same fields as ubdump (when the plugin is built).
set -u
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}"
U=$UBDUMP
S=$UB_SOURCE_DIR
. "$S/tests/check_lib.sh"
ub_check_init t_ns3ub
python3 "$S/tests/ns3ub_gen.py" "$tmp/gen" && ok || { bad "tests/ns3ub_gen.py"; exit 1; }
N="-o profile=ns3ub"

# value of fields at one frame: val FILE FRAME FIELD...
val() {
    f=$1 fr=$2
    shift 2
    set -- $(for x in "$@"; do printf -- '-e %s ' "$x"; done)
    # shellcheck disable=SC2086
    "$U" $N -r "$f" -Y "frame.number == $fr" -T fields "$@" 2>/dev/null
}
expect() { [ "$2" = "$3" ] && ok || bad "$1: got '$3', want '$2'"; }
T='	'

# ---- docs/interop.md lists every deviation of the profile table (scripts/gen-docs.sh)
"$U" -G profiles | awk -F'\t' '$1 == "ns3ub" && $2 != "-" { print $2 }' > "$tmp/devs"
[ "$(wc -l < "$tmp/devs")" -ge 21 ] && ok || bad "ubdump -G profiles lists $(wc -l < "$tmp/devs") ns-3-UB deviations"
while read -r id; do
    grep -q "^| $id | " "$S/docs/interop.md" && ok || bad "docs/interop.md lacks deviation $id (run scripts/gen-docs.sh)"
done < "$tmp/devs"

# ---- without the profile: the advice, once, on stderr; errors in the decode
for t in urma ldst caqm; do
    "$U" -r "$tmp/gen/$t.pcap" -q > /dev/null 2> "$tmp/err"
    [ "$(grep -c 'o profile=ns3ub' "$tmp/err")" = 1 ] && ok || { bad "$t: no (single) ns-3-UB advice"; cat "$tmp/err"; }
    "$U" $N -r "$tmp/gen/$t.pcap" -q > /dev/null 2> "$tmp/err"
    grep -q 'profile=ns3ub' "$tmp/err" && bad "$t: advice although the profile is on" || ok
done
[ -n "$("$U" -r "$tmp/gen/urma.pcap" -Y ub.error -T fields -e frame.number)" ] && ok || bad "urma: the spec finds no error?"

# ---- with the profile: no decode error in any packet
for t in urma sack dcqcn ldst caqm; do
    e=$("$U" $N -r "$tmp/gen/$t.pcap" -Y ub.error -T fields -e frame.number -e ub.error)
    [ -z "$e" ] && ok || bad "$t: decode errors under the profile: $e"
    q=$("$U" $N -r "$tmp/gen/$t.pcap" -q)
    case "$q" in *" 0 other (not UB)") ok ;; *) bad "$t: $q" ;; esac
done

# ---- decoded values (what ns3ub_gen.py wrote)
G=$tmp/gen
expect "urma write: RT, IP, UDP port index, TPNs, TASSN, length" "2${T}10.0.3.0${T}10.0.17.0${T}2${T}0x000015${T}0x00002a${T}0${T}512" \
    "$(val $G/urma.pcap 1 ub.lph.rt ub.ipv4.src ub.ipv4.dst ub.udp.dstport ub.rtph.srctpn ub.rtph.dsttpn ub.btah.ini_tassn ub.maetah.length)"
expect "urma TAACK as TP data (D12)" "0x11${T}0${T}1${T}1" "$(val $G/urma.pcap 19 ub.btah.taopcode ub.btah.ini_tassn ub.maetah.length ub.rtph.last)"
expect "urma TPACK + ATAH (D13)" "0x02${T}0x11" "$(val $G/urma.pcap 4 ub.rtph.tpopcode ub.atah.taopcode)"
expect "urma read response in a BTAH" "0x12${T}2048" "$(val $G/urma.pcap 61 ub.btah.taopcode ub.maetah.length)"
expect "urma Crd_Ack VL2 (D3)" "17${T}0${T}1${T}1" "$(val $G/urma.pcap 67 ub.crd_ack.crd_num_vl2 ub.crd_ack.crd_num_vl13 ub.crd_ack.t ub.crd_ack.sd)"
expect "urma Crd_Ack VL9" "5${T}40" "$(val $G/urma.pcap 68 ub.crd_ack.crd_num_vl2 ub.crd_ack.crd_num_vl9)"
expect "ldst store: LE CNAs (D6), LBF, RT 11, VA<<6 (D18)" "0x0051${T}0x0091${T}0x02${T}3${T}0x0000000000001200${T}3" \
    "$(val $G/ldst.pcap 3 ub.nth.scna ub.nth.dcna ub.nth.lbf ub.lph.rt ub.maetah.address ub.maetah.length)"
expect "ldst load request with payload (D17)" "0x06${T}8" "$(val $G/ldst.pcap 9 ub.btah.taopcode ub.btah.ini_tassn)"
expect "ldst load response" "0x12${T}8" "$(val $G/ldst.pcap 11 ub.atah.taopcode ub.atah.ini_tassn)"
expect "caqm TPACK-CC CETPH (D9)" "0x03${T}4096${T}64${T}1${T}1" "$(val $G/caqm.pcap 10 ub.rtph.tpopcode ub.cetph.ack_seq ub.cetph.hint ub.cetph.c ub.cetph.i)"
expect "caqm CCI marked by a switch" "1${T}1${T}64" "$(val $G/caqm.pcap 2 ub.cci.c ub.cci.i ub.cci.hint)"
expect "sack TPSACK" "0x05${T}1${T}5" "$(val $G/sack.pcap 17 ub.rtph.tpopcode ub.rtph.psn ub.saetph.maxrcvpsn)"
expect "dcqcn CNP" "0x08${T}1" "$(val $G/dcqcn.pcap 13 ub.rtph.tpopcode ub.cetph.ecn)"
expect "dcqcn FECN mark" "4${T}1" "$(val $G/dcqcn.pcap 2 ub.cci.mode ub.cci.fecn)"
expect "dcqcn NAK opcode 4 (D14)" "0x04${T}4" "$(val $G/dcqcn.pcap 23 ub.rtph.tpopcode ub.rtph.psn)"

# ---- the audit under the profile: what the simulation did, at its frames, and nothing else
findings() { # FILE -> "RULE@FRAME sev" lines
    "$U" $N -r "$1" -q --audit --audit-format json --audit-examples 1000 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
for rule in r["rules"]:
    for f in rule["findings"]:
        print("%s@%d %s" % (rule["id"], f["frame"], f["severity"]))' | sort
}
has() { grep -qx "$2" "$tmp/f" && ok || { bad "$1: no $2"; cat "$tmp/f" >&2; }; }
none_above_note() { ! grep -qv ' note$' "$tmp/f" && ok || { bad "$1: findings above note"; grep -v ' note$' "$tmp/f" >&2; }; }
findings "$G/sack.pcap" > "$tmp/f"
has sack "UB-TP-003@20 note"
none_above_note sack
[ "$(wc -l < "$tmp/f")" = 1 ] && ok || bad "sack: $(wc -l < "$tmp/f") findings, want 1 (hop copies must not count)"
findings "$G/dcqcn.pcap" > "$tmp/f"
has dcqcn "UB-TP-019@13 note"
has dcqcn "UB-TP-003@26 note"
has dcqcn "UB-TP-003@29 note"
has dcqcn "UB-NW-010@2 note"
none_above_note dcqcn
findings "$G/urma.pcap" > "$tmp/f"
has urma "UB-DL-023@67 note"
has urma "UB-DL-023@68 note"
none_above_note urma
findings "$G/caqm.pcap" > "$tmp/f"
[ "$(grep -c '^UB-NW-010@' "$tmp/f")" = 8 ] && ok || bad "caqm: CAQM marks: $(grep -c '^UB-NW-010@' "$tmp/f")"
none_above_note caqm
findings "$G/ldst.pcap" > "$tmp/f" # ns-3 slices one TASSN over two packets and acknowledges each (TA-07)
has ldst "UB-TA-010@3 error"
has ldst "UB-TA-003@7 error"
[ "$(wc -l < "$tmp/f")" = 2 ] && ok || bad "ldst: $(cat "$tmp/f")"
for t in urma sack dcqcn caqm; do
    "$U" $N -r "$G/$t.pcap" -q --audit --fail-on warning > /dev/null 2>&1; rc=$?
    [ $rc -eq 0 ] && ok || bad "$t: audit exit $rc, want 0"
done

# ---- the shared traces (../shared/interop/ns3-ub/)
SH="$S/../shared/interop/ns3-ub"
if [ -d "$SH" ]; then
    for t in ns3ub-urma-write-read-cbfc ns3ub-ldst-cfg9 ns3ub-caqm-tpack-cc; do
        e=$("$U" $N -r "$SH/$t.pcap" -Y ub.error -T fields -e frame.number)
        [ -z "$e" ] && ok || bad "$t: decode errors under the profile in frames $e"
        "$U" -r "$SH/$t.pcap" -q 2>&1 >/dev/null | grep -q 'o profile=ns3ub' && ok || bad "$t: no advice without the profile"
    done
    expect "shared urma #1" "0${T}0${T}4096" "$(val "$SH/ns3ub-urma-write-read-cbfc.pcap" 1 ub.rtph.psn ub.btah.ini_tassn ub.maetah.length)"
    expect "shared urma #375 Crd_Ack VL7" "32" "$(val "$SH/ns3ub-urma-write-read-cbfc.pcap" 375 ub.crd_ack.crd_num_vl7)"
    expect "shared caqm #18 TPACK-CC" "4096${T}4096${T}1" "$(val "$SH/ns3ub-caqm-tpack-cc.pcap" 18 ub.cetph.ack_seq ub.cetph.hint ub.cetph.i)"
    expect "shared ldst #27 load response" "0x0010${T}0x12${T}2" "$(val "$SH/ns3ub-ldst-cfg9.pcap" 27 ub.nth.scna ub.atah.taopcode ub.atah.ini_tassn)"
    for t in ns3ub-urma-write-read-cbfc ns3ub-caqm-tpack-cc; do
        "$U" $N -r "$SH/$t.pcap" -q --audit --fail-on warning > /dev/null 2>&1; rc=$?
        [ $rc -eq 0 ] && ok || bad "$t: audit exit $rc, want 0"
    done
else
    echo "SKIP: $SH absent: the shared ns-3-UB traces are not checked"
fi

# ---- tshark with the plugin's profile preference prints the same fields
if ls "${UB_BINARY_DIR:-/nonexistent}"/plugins/*/epan/ub.so > /dev/null 2>&1 && command -v tshark > /dev/null 2>&1; then
    fail() { bad "$*"; exit 1; }
    mkdir -p "$tmp/home"
    cp "$G"/*.pcap "$tmp/home/"
    # shellcheck disable=SC1091
    . "$S/tests/tshark_lib.sh"
    ub_plugin_install
    F="-e frame.number -e ub.lph.rt -e ub.rtph.psn -e ub.btah.ini_tassn -e ub.atah.ini_tassn -e ub.maetah.length -e ub.crd_ack.crd_num_vl2 -e ub.crd_ack.crd_num_vl9 -e ub.cetph.hint -e ub.saetph.maxrcvpsn -e ub.error"
    for t in urma sack dcqcn ldst caqm; do
        # shellcheck disable=SC2086
        "$U" $N -r "$G/$t.pcap" -T fields $F > "$tmp/ud.txt"
        # shellcheck disable=SC2086
        ts -n -o ub.profile:ns3ub -r "$tmp/home/$t.pcap" -T fields $F > "$tmp/ts.txt" 2> "$tmp/tserr"
        cmp -s "$tmp/ud.txt" "$tmp/ts.txt" && ok || { bad "$t: tshark -o ub.profile:ns3ub differs from ubdump"; diff "$tmp/ud.txt" "$tmp/ts.txt" | head -10 >&2; }
    done
else
    echo "SKIP: no plugin build or no tshark: the tshark comparison is not run"
fi

ub_check_done
