#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubreplay without a network: dry runs (-w) checked with ubdump.
#   scheduled timestamps: original timing (and x2), --pps, loops and several files continue the schedule
#   rewrite round trips: a CNA map there and back gives the original bytes; the mapped capture decodes
#     with good CRCs and the new CNAs, and every other field is unchanged (ubdump -T fields)
#   --set / --fuzz (reproducible with --seed) / --break-crc / --keep-crc / --fix-all / --on-bad
#   selection: -Y, --packets, --dir, --requests; standard input; conversions (--framing, --cna-ip)
#   usage errors: no output, both -w and -i, scenario parse errors with FILE:LINE (exit 2)
set -u
R=${UBREPLAY:?}
U=${UBDUMP:?}
G=${UBGEN:?}
S=${UB_SOURCE_DIR:?}
. "$S/tests/check_lib.sh"
ub_check_init t_replay
C=$S/captures
TXN=$C/audit_txn_clean.pcapng
fields() { f=$1; shift; "$U" -r "$f" -T fields "$@" 2>/dev/null; }

# ---------------------------------------------------------------- usage
"$R" "$TXN" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q 'nothing is sent unless an output is named' "$tmp/e" && ok || bad "no output: exit $rc"
"$R" -w "$tmp/x.pcapng" -i lo "$TXN" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "-w with -i accepted"
"$R" -w "$tmp/x.pcapng" --pps nope "$TXN" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--pps nope accepted"
"$R" -w "$tmp/x.pcapng" --set ub.nope.x=1 "$TXN" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--set unknown field accepted"
"$R" -w "$tmp/x.pcapng" "$tmp/missing.pcapng" > /dev/null 2>&1; [ $? -eq 2 ] && ok || bad "missing input: not exit 2"
"$R" --help | grep -q '^EXIT STATUS' && ok || bad "--help has no EXIT STATUS section"
printf '@send\nflit\nlph vl=1\nnth16 scna=1 dcna=2\nbtah_c taopcode=Read ee_bits=1 ini_tassn=1\nmaetah_c address=0x40 tokenid=1 length=0\n\n@expect ub.lph.vl == \n' > "$tmp/bad.ubs"
"$R" --udp 127.0.0.1:9 --scenario "$tmp/bad.ubs" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.ubs:8:" "$tmp/e" && ok || bad "scenario parse error: exit $rc $(cat "$tmp/e")"

# ---------------------------------------------------------------- every capture, dry run, unchanged
for cap in "$C"/*.pcapng; do
    n=$(basename "$cap" .pcapng)
    opt=""
    case $n in noncrc) opt=--noncrc ;; esac
    # shellcheck disable=SC2086
    "$R" $opt -w "$tmp/$n.out.pcapng" --max-packets 0 "$cap" > "$tmp/$n.log" 2>&1; rc=$?
    [ $rc -eq 0 ] && ok || { bad "$n: dry run exit $rc"; cat "$tmp/$n.log"; continue; }
    # the same units, the same decode (raw flit streams come out as their units)
    case $n in stream|audit_nob) continue ;; esac
    # shellcheck disable=SC2086
    "$U" $opt -r "$cap" -T fields -e ub.error -e ub.lph.cfg -e ub.rtph.psn -e ub.btah.taopcode > "$tmp/a" 2>/dev/null
    # shellcheck disable=SC2086
    "$U" $opt -r "$tmp/$n.out.pcapng" -T fields -e ub.error -e ub.lph.cfg -e ub.rtph.psn -e ub.btah.taopcode > "$tmp/b" 2>/dev/null
    cmp -s "$tmp/a" "$tmp/b" && ok || { bad "$n: the dry run decodes differently"; diff "$tmp/a" "$tmp/b" | head -5; }
done

# ---------------------------------------------------------------- schedules (exact: virtual clock)
"$R" -w "$tmp/o.pcapng" "$TXN" > /dev/null 2>&1
fields "$TXN" -e frame.time_relative > "$tmp/t.orig"
fields "$tmp/o.pcapng" -e frame.time_relative > "$tmp/t.out"
cmp -s "$tmp/t.orig" "$tmp/t.out" && ok || bad "original timing: relative times differ"
"$R" -w "$tmp/o2.pcapng" --multiplier 2 "$TXN" > /dev/null 2>&1
fields "$tmp/o2.pcapng" -e frame.time_relative > "$tmp/t.out2"
awk '{ printf "%.9f\n", $1 / 2 }' "$tmp/t.orig" > "$tmp/t.half"
awk '{ printf "%.9f\n", $1 }' "$tmp/t.out2" > "$tmp/t.out2n"
cmp -s "$tmp/t.half" "$tmp/t.out2n" && ok || bad "--multiplier 2: times are not halved"
"$R" -w "$tmp/p.pcapng" --pps 1000 --loop 3 "$TXN" > /dev/null 2>&1
fields "$tmp/p.pcapng" -e frame.time_relative | awk '{ if (sprintf("%.6f", (NR - 1) / 1000) != sprintf("%.6f", $1)) bad = 1 } END { exit bad || NR != 141 }' \
    && ok || bad "--pps 1000 --loop 3: not 141 packets 1 ms apart"
# two files: the second continues after the first (its own timestamps are older)
"$R" -w "$tmp/two.pcapng" "$C/audit_rtp_clean.pcapng" "$TXN" > /dev/null 2>&1
fields "$tmp/two.pcapng" -e frame.time_relative | awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' \
    && ok || bad "two files: time goes backwards"
n1=$(fields "$C/audit_rtp_clean.pcapng" -e frame.number | wc -l)
n2=$(fields "$TXN" -e frame.number | wc -l)
[ "$(fields "$tmp/two.pcapng" -e frame.number | wc -l)" -eq $((n1 + n2)) ] && ok || bad "two files: packet count"
# --json report: sent and the exact requested rate
"$R" -w "$tmp/j.pcapng" --pps 2000 --limit 10 --json "$TXN" > "$tmp/j.json" 2>/dev/null
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['replay']; assert d['sent']==10 and d['requested_pps']==2000 and abs(d['achieved_pps']-2000)<1e-6, d" "$tmp/j.json" \
    && ok || bad "--json: $(cat "$tmp/j.json")"

# ---------------------------------------------------------------- rewrite round trips
"$R" -w "$tmp/m.pcapng" --map-cna 0x010203=0x111111,0x0a0b0c=0x222222 "$TXN" > "$tmp/m.log" 2>&1
"$R" -w "$tmp/mm.pcapng" --map-cna 0x111111=0x010203,0x222222=0x0a0b0c "$tmp/m.pcapng" > /dev/null 2>&1
python3 - "$TXN" "$tmp/mm.pcapng" <<'EOF' && ok || bad "map there and back: records differ"
import struct, sys
def recs(p):
    b = open(p, 'rb').read(); i = 0; out = []
    while i + 12 <= len(b):
        t, l = struct.unpack_from('<II', b, i)
        if t == 6:  # EPB: caplen at +20, data at +28
            cl = struct.unpack_from('<I', b, i + 20)[0]; out.append(b[i + 28:i + 28 + cl])
        i += l
    return out
a, c = recs(sys.argv[1]), recs(sys.argv[2])
sys.exit(0 if a == c and len(a) > 0 else 1)
EOF
fields "$tmp/m.pcapng" -e ub.nth.scna -e ub.nth.dcna | grep -q '0x111111' && ok || bad "map: no 0x111111"
fields "$tmp/m.pcapng" -e ub.nth.scna | grep -q '0x010203' && bad "map: 0x010203 left" || ok
"$U" -r "$tmp/m.pcapng" -q --audit --response-timeout 0 > "$tmp/m.audit" 2>&1 && ok || { bad "mapped capture does not audit clean"; head "$tmp/m.audit"; }
fields "$tmp/m.pcapng" -e ub.error | grep -q . && bad "mapped capture has decode errors" || ok
# every field but the CNAs and the CRCs is unchanged
F="-e ub.lph.vl -e ub.lph.cfg -e ub.lph.plength -e ub.rtph.psn -e ub.rtph.srctpn -e ub.btah.taopcode -e ub.btah.ini_tassn -e ub.maetah.address -e ub.payload.data -e ub.mgmtetah.code -e ub.scan.msn"
# shellcheck disable=SC2086
fields "$TXN" $F > "$tmp/f.a"; fields "$tmp/m.pcapng" $F > "$tmp/f.b"
cmp -s "$tmp/f.a" "$tmp/f.b" && ok || bad "map changed other fields"
grep -q '[1-9][0-9]* modified' "$tmp/m.log" && ok || bad "map: no modified count"
# --set through the schema, any header; only matching packets change
"$R" -w "$tmp/s.pcapng" --set ub.maetah.tokenid=0x777 "$TXN" > /dev/null 2>&1
fields "$tmp/s.pcapng" -e ub.maetah.tokenid | grep -v '^$' | sort -u | tr -d '\n' | grep -qx '0x000777' && ok || bad "--set tokenid: $(fields "$tmp/s.pcapng" -e ub.maetah.tokenid | sort -u | tr '\n' ' ')"
fields "$tmp/s.pcapng" -e ub.error | grep -q . && bad "--set left bad CRCs" || ok
# --fuzz: reproducible with --seed, different with another seed, CRCs fixed
"$R" -w "$tmp/z1.pcapng" --fuzz ub.maetah.address --seed 5 "$TXN" > /dev/null 2>&1
"$R" -w "$tmp/z2.pcapng" --fuzz ub.maetah.address --seed 5 "$TXN" > /dev/null 2>&1
"$R" -w "$tmp/z3.pcapng" --fuzz ub.maetah.address --seed 6 "$TXN" > /dev/null 2>&1
fields "$tmp/z1.pcapng" -e ub.maetah.address > "$tmp/z1"; fields "$tmp/z2.pcapng" -e ub.maetah.address > "$tmp/z2"
fields "$tmp/z3.pcapng" -e ub.maetah.address > "$tmp/z3"
cmp -s "$tmp/z1" "$tmp/z2" && ok || bad "--fuzz --seed 5 twice differs"
cmp -s "$tmp/z1" "$tmp/z3" && bad "--fuzz seeds 5 and 6 agree" || ok
fields "$tmp/z1.pcapng" -e ub.error | grep -q 'crc' && bad "--fuzz left bad CRCs" || ok
# --break-crc: every packet with a CRC is sent with a wrong one
"$R" -w "$tmp/b.pcapng" --break-crc "$TXN" > /dev/null 2>&1
nb=$(fields "$tmp/b.pcapng" -e ub.error | grep -c 'crc_bad')
[ "$nb" -eq "$(fields "$TXN" -e frame.number | wc -l)" ] && ok || bad "--break-crc: $nb packets with bad CRCs"
# --keep-crc: the mapped packets keep their old CRCs (now wrong)
"$R" -w "$tmp/k.pcapng" --keep-crc --map-cna 0x010203=0x111111 "$TXN" > /dev/null 2>&1
fields "$tmp/k.pcapng" -e ub.nth.scna -e ub.error | grep '0x111111' | grep -q crc_bad && ok || bad "--keep-crc: mapped packets have good CRCs"
# --fix-all repairs a capture with bad CRCs (dllcb.pcapng's showcase has none; use the broken one)
"$R" -w "$tmp/f.pcapng" --fix-all "$tmp/b.pcapng" > /dev/null 2>&1
fields "$tmp/f.pcapng" -e ub.error | grep -q 'crc_bad' && bad "--fix-all left bad CRCs" || ok
# --on-bad on the malformed samples: counted; skip sends fewer; abort stops with exit 2
nm=$(fields "$C/malformed.pcapng" -e frame.number | wc -l)
"$R" -w "$tmp/ob1.pcapng" --on-bad pass --fix-all "$C/malformed.pcapng" > "$tmp/ob1.log" 2>&1
[ "$(fields "$tmp/ob1.pcapng" -e frame.number | wc -l)" -eq "$nm" ] && ok || bad "--on-bad pass: not every record sent"
grep -q 'unparsable ([1-9][0-9]* passed' "$tmp/ob1.log" && ok || bad "--on-bad pass: not counted: $(cat "$tmp/ob1.log")"
"$R" -w "$tmp/ob2.pcapng" --on-bad skip --fix-all "$C/malformed.pcapng" > "$tmp/ob2.log" 2>&1
[ "$(fields "$tmp/ob2.pcapng" -e frame.number | wc -l)" -lt "$nm" ] && ok || bad "--on-bad skip: nothing skipped"
"$R" -w "$tmp/ob3.pcapng" --on-bad abort --fix-all "$C/malformed.pcapng" > "$tmp/ob3.log" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'could not be parsed' "$tmp/ob3.log" && ok || bad "--on-bad abort: exit $rc"
# renumbering: PSNs from 1000, continuing across loops with --unique-per-loop
"$R" -w "$tmp/r.pcapng" --psn-base 1000 --unique-per-loop --loop 2 --requests --dir out "$C/audit_rtp_clean.pcapng" > /dev/null 2>&1
fields "$tmp/r.pcapng" -e ub.rtph.psn -e ub.rtph.srctpn | awk -F'\t' '$1 != "" { if (seen[$2]++ && $1 <= last[$2]) bad = 1; last[$2] = $1; if ($1 < 1000) bad = 1 } END { exit bad }' \
    && ok || bad "--psn-base 1000 --unique-per-loop: PSNs repeat or start below 1000"

# ---------------------------------------------------------------- selection and inputs
"$R" -w "$tmp/y.pcapng" -Y 'ub.btah.taopcode == "Read"' "$TXN" > /dev/null 2>&1
ny=$("$U" -r "$TXN" -Y 'ub.btah.taopcode == "Read"' 2>/dev/null | wc -l)
[ "$(fields "$tmp/y.pcapng" -e frame.number | wc -l)" -eq "$ny" ] && [ "$ny" -gt 0 ] && ok || bad "-Y: count"
"$R" -w "$tmp/pr.pcapng" --packets 2-4,10 "$TXN" > /dev/null 2>&1
[ "$(fields "$tmp/pr.pcapng" -e frame.number | wc -l)" -eq 4 ] && ok || bad "--packets 2-4,10: not 4"
"$R" -w "$tmp/d.pcapng" --dir in "$TXN" > /dev/null 2>&1
nin=$(fields "$TXN" -e frame.number -Y 'frame.number >= 1' | wc -l)
[ "$(fields "$tmp/d.pcapng" -e frame.number | wc -l)" -lt "$nin" ] && ok || bad "--dir in: nothing left out"
"$R" -w "$tmp/q.pcapng" --requests "$TXN" > "$tmp/q.log" 2>&1
grep -q 'not requests' "$tmp/q.log" && ok || bad "--requests: no count"
fields "$tmp/q.pcapng" -e ub.atah.taopcode | grep -q . && bad "--requests kept a response" || ok
cat "$TXN" | "$R" -w "$tmp/in.pcapng" --framing flit --loop 2 - > /dev/null 2>&1
[ "$(fields "$tmp/in.pcapng" -e frame.number | wc -l)" -eq $((n2 * 2)) ] && ok || bad "stdin, 2 loops: count"
# conversions: NTH RTP to UBoE with a CNA -> IP map; what cannot be converted is skipped and counted
"$R" -w "$tmp/e.pcapng" --framing eth --cna-ip 0x010203=10.1.2.3,0x0a0b0c=10.10.11.12 "$TXN" > "$tmp/e.log" 2>&1
"$U" -r "$tmp/e.pcapng" 2>/dev/null | grep -q 'UBoE 10\.1\.2\.3→10\.10\.11\.12' && ok || bad "--framing eth: no UBoE 10.1.2.3→10.10.11.12"
fields "$tmp/e.pcapng" -e ub.error | grep -q . && bad "--framing eth: decode errors" || ok
grep -q 'not convertible' "$tmp/e.log" && ok || bad "--framing eth: unconvertible not counted"
"$R" -w "$tmp/u.pcapng" --framing tph "$C/uboe.pcapng" > /dev/null 2>&1
[ "$(fields "$tmp/u.pcapng" -e ub.rtph.psn -e ub.utph.tpopcode | grep -c .)" -eq "$(fields "$C/uboe.pcapng" -e frame.number | wc -l)" ] \
    && ok || bad "--framing tph: not every UBoE packet carried"

# --maxsleep (tcpreplay's): gaps over T (after --multiplier) shortened to T, the rest of the schedule
# moved back; a bare number is milliseconds
L=$C/audit_rtp_lossy.pcapng
"$R" -w "$tmp/ms.pcapng" --maxsleep 50us "$L" > "$tmp/ms.log" 2>&1 || bad "--maxsleep 50us: $(cat "$tmp/ms.log")"
eq "--maxsleep 50us: the gaps" "$(fields "$tmp/ms.pcapng" -e frame.time_delta | paste -sd' ')" \
    "$(fields "$L" -e frame.time_delta | awk '{ printf "%.9f\n", ($1 > 0.00005 ? 0.00005 : $1) }' | paste -sd' ')"
grep -q '^ubreplay: 3 gaps longer than --maxsleep shortened to it (199.6 ms less in all)$' "$tmp/ms.log" && ok || bad "--maxsleep report: $(cat "$tmp/ms.log")"
"$R" -w "$tmp/ms2.pcapng" --maxsleep 1 --multiplier 2 --json "$L" > "$tmp/ms2.json" 2> /dev/null
eq "--maxsleep 1 (ms) x2: the last gaps" "$(fields "$tmp/ms2.pcapng" -e frame.time_delta | tail -2 | paste -sd' ')" "0.001000000 0.000005000"
eq "--maxsleep 1 x2: JSON gaps_cut" "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["replay"]; print(r["gaps_cut"], r["gaps_cut_ns"])' "$tmp/ms2.json")" "1 98785000"
"$R" -w "$tmp/x.pcapng" --maxsleep 0 "$L" > /dev/null 2>&1; eq "--maxsleep 0: usage" "$?" 2

ub_check_done
