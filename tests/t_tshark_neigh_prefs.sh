#!/bin/sh
# The Wireshark preferences of the neighbouring interconnects (dissector/packet-neigh-prefs.c, generated
# from libubparse's option table; docs/neighbours.md "Wireshark"): each option set to a non-default value
# in both tools gives the same fields, the same UDP 4791 split and the same findings:
#   ubdump -o sue.X=V  ==  tshark -o sue.X:V  (pcieflit.encoding likewise)
#   ubdump -o Y=V      ==  tshark -o ub.Y:V   (udp4791, dlt.pcieflit, ib.engine)
# and each value changes the decode (so a preference that were ignored fails the test).
# tshark runs unprivileged with a private copy of the built ub.so (tests/tshark_lib.sh); FAILS (never
# skips) when tshark, python3 or the plugin is missing or not loaded.
set -eu

. "$UB_SOURCE_DIR/tests/tshark_neigh_lib.sh"
: "${UBGEN:?}"

# the preferences exist with ubdump's defaults
ts -G defaultprefs 2>/dev/null | grep -E '^#(sue|ub|pcieflit)\.(port|ethertype[12]|rh_order|afh|tc_in_sa|cnp_merge_us|icrc|udp4791|dlt\.pcieflit|ib\.engine|encoding):' |
    LC_ALL=C sort > "$tmp/prefs"
expect "preferences and defaults" "#pcieflit.encoding: 1b1b #sue.afh: auto #sue.cnp_merge_us: 0 #sue.ethertype1: 0x88b5 #sue.ethertype2: 0x88b6 #sue.icrc: 0 #sue.port: 4791 #sue.rh_order: be #sue.tc_in_sa: 1 #ub.dlt.pcieflit: 150 #ub.ib.engine: 0 #ub.udp4791: auto" \
    "$(tr '\n' ' ' < "$tmp/prefs" | sed 's/ $//')"

# every sue.* / pcieflit.* field (a payload that is neither RoCEv2 nor SUE goes to Wireshark's InfiniBand
# dissector, not decoded by ubdump: infiniband.* is compared where the rule says RoCEv2, t_tshark_neigh.sh)
"$U" -G fields 2>/dev/null | awk -F'\t' '$1 ~ /^(sue|pcieflit)\./ { print $1 }' | LC_ALL=C sort -u > "$tmp/uf"
ts -G fields 2>/dev/null | awk -F'\t' '{ print $3 }' | LC_ALL=C sort -u > "$tmp/tf"
E=$(LC_ALL=C comm -12 "$tmp/uf" "$tmp/tf" | sed 's/^/-e /' | tr '\n' ' ')
# same FILE "ubdump -o args" "tshark -o args": every field of every frame equal (prints the differences)
same() {
    # shellcheck disable=SC2086  # word lists
    "$U" $2 -r "$1" -T fields -e frame.number $E 2>/dev/null | norm > "$tmp/a"
    # shellcheck disable=SC2086
    ts -n -2 $3 -r "$1" -T fields -e frame.number $E 2>/dev/null | norm > "$tmp/b"
    if [ ! -s "$tmp/a" ]; then echo "no output"; return; fi
    cmp -s "$tmp/a" "$tmp/b" || diff "$tmp/a" "$tmp/b" | head -5
}
# one field of the frames that have it, both tools: "frame=value ..."
col() { # FILE FIELD ubdump-args tshark-args
    # shellcheck disable=SC2086
    a=$("$U" $3 -r "$1" -Y "$2" -T fields -e frame.number -e "$2" 2>/dev/null | norm | tr '\t\n' '= ' | sed 's/ $//')
    # shellcheck disable=SC2086
    b=$(ts -n -2 $4 -r "$1" -Y "$2" -T fields -e frame.number -e "$2" 2>/dev/null | norm | tr '\t\n' '= ' | sed 's/ $//')
    if [ "$a" = "$b" ]; then echo "$a"; else echo "ubdump '$a' tshark '$b'"; fi
}

# ---- sue.rh_order=le: the RH read Dest_QP byte first (then no frame passes the UDP 4791 rule as SUE:
# forced with udp4791=sue)
expect "rh_order=le fields" "" "$(same "$C/sue_std.pcapng" "-o sue.rh_order=le -o udp4791=sue" "-o sue.rh_order:le -o ub.udp4791:sue")"
expect "rh_order=be, frame 1 QP" "1=3" "$(col "$C/sue_std.pcapng" sue.rh.dest_qp "-c 1" "-c 1")"
expect "rh_order=le, frame 1 QP" "1=1" "$(col "$C/sue_std.pcapng" sue.rh.dest_qp "-c 1 -o sue.rh_order=le -o udp4791=sue" "-c 1 -o sue.rh_order:le -o ub.udp4791:sue")"
expect "rh_order=le, frame 1 PSN" "1=2848" "$(col "$C/sue_std.pcapng" sue.rh.psn "-c 1 -o sue.rh_order=le -o udp4791=sue" "-c 1 -o sue.rh_order:le -o ub.udp4791:sue")"
expect "rh_order=le alone: no SUE" "" "$(col "$C/sue_std.pcapng" sue.rh.psn "-o sue.rh_order=le" "-o sue.rh_order:le")"

# ---- udp4791: the rule forced either way (frame 13 is RoCEv2 by the rule)
expect "udp4791=sue: SUE frames" "13" "$(ts -n -2 -o ub.udp4791:sue -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')"
expect "udp4791=sue fields" "" "$(same "$C/sue_std.pcapng" "-o udp4791=sue" "-o ub.udp4791:sue")"
expect "udp4791=roce: SUE frames" "0 0" "$("$U" -o udp4791=roce -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ') $(ts -n -2 -o ub.udp4791:roce -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')"
expect "udp4791=roce: InfiniBand frames" "13 13" "$("$U" -o udp4791=roce -r "$C/sue_std.pcapng" -Y infiniband.bth -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ') $(ts -n -2 -o ub.udp4791:roce -r "$C/sue_std.pcapng" -Y 'udp.port == 4791' -T fields -e _ws.col.Protocol 2>/dev/null | grep -c RRoCE)"

# ---- sue.icrc=1: the last 4 bytes are the ICRC (sue_std has none, so Pkt_len no longer fits the UDP 4791
# rule: forced with udp4791=sue)
expect "icrc=1 fields" "" "$(same "$C/sue_std.pcapng" "-o sue.icrc=1 -o udp4791=sue" "-o sue.icrc:1 -o ub.udp4791:sue")"
expect "icrc=1 frame 1" "1=471670303" "$(col "$C/sue_std.pcapng" sue.icrc.value "-c 1 -o sue.icrc=1 -o udp4791=sue" "-c 1 -o sue.icrc:1 -o ub.udp4791:sue")"
expect "icrc=0 frame 1" "" "$(col "$C/sue_std.pcapng" sue.icrc.value "-c 1 -o udp4791=sue" "-c 1 -o ub.udp4791:sue")"

# ---- sue.port: the same trace on UDP port 5000
sed 's/dstport=4791/dstport=5000/' "$C/sue_std.ub" > "$tmp/p.ub"
"$UBGEN" -w "$tmp/p.pcapng" "$tmp/p.ub" 2>/dev/null || bad "ubgen port 5000"
expect "port 5000, default: no SUE" "" "$(col "$tmp/p.pcapng" sue.rh.psn "" "")"
expect "sue.port=5000 fields" "" "$(same "$tmp/p.pcapng" "-o sue.port=5000" "-o sue.port:5000")"
# the PSNs of sue_std; frame 13 (RoCEv2 on 4791) is SUE on another port: the 4791 rule is for 4791 only
expect "sue.port=5000 PSNs" "1=4094 2=4095 3=0 4=0 5=2 6=1 7=1 8=2 9=2 10=100 11=3 12=0 13=0" "$(col "$tmp/p.pcapng" sue.rh.psn "-o sue.port=5000" "-o sue.port:5000")"

# ---- sue.ethertype1/2: the AFH trace on EtherTypes 0x88B7 / 0x88B8
sed 's/type=0x88b5/type=0x88b7/; s/type=0x88b6/type=0x88b8/' "$C/sue_afh.ub" > "$tmp/e.ub"
"$UBGEN" -w "$tmp/e.pcapng" "$tmp/e.ub" 2>/dev/null || bad "ubgen ethertypes"
expect "EtherTypes 0x88B7/8, default: no SUE" "" "$(col "$tmp/e.pcapng" sue.rh.psn "" "")"
expect "ethertype1/2 fields" "" "$(same "$tmp/e.pcapng" "-o sue.ethertype1=0x88b7 -o sue.ethertype2=0x88b8" "-o sue.ethertype1:0x88b7 -o sue.ethertype2:0x88b8")"
expect "ethertype1/2 = defaults" "$(col "$C/sue_afh.pcapng" sue.afh.key_words "" "")" \
    "$(col "$tmp/e.pcapng" sue.afh.key_words "-o sue.ethertype1=0x88b7 -o sue.ethertype2=0x88b8" "-o sue.ethertype1:0x88b7 -o sue.ethertype2:0x88b8")"

# ---- sue.afh=gen1 and sue.tc_in_sa=0 on the AFH_GEN2_16b trace: another reading, the same in both
expect "afh=gen1 fields" "" "$(same "$C/sue_afh.pcapng" "-o sue.afh=gen1" "-o sue.afh:gen1")"
expect "afh=gen1 frame 1 TC" "1=130" "$(col "$C/sue_afh.pcapng" sue.afh.tc "-c 1 -o sue.afh=gen1" "-c 1 -o sue.afh:gen1")"
expect "afh=gen1 tc_in_sa=0 fields" "" "$(same "$C/sue_afh.pcapng" "-o sue.afh=gen1 -o sue.tc_in_sa=0" "-o sue.afh:gen1 -o sue.tc_in_sa:0")"
expect "afh=gen1 tc_in_sa=0 frame 1 TC" "" "$(col "$C/sue_afh.pcapng" sue.afh.tc "-c 1 -o sue.afh=gen1 -o sue.tc_in_sa=0" "-c 1 -o sue.afh:gen1 -o sue.tc_in_sa:0")"

# ---- dlt.pcieflit: the flit trace written with link type 151 (LINKTYPE_USER4)
python3 - "$C/pcie_flit.pcapng" "$tmp/f.pcapng" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
o = 0
while o + 12 <= len(b):
    t, l = struct.unpack_from("<II", b, o)
    if t == 1: struct.pack_into("<H", b, o + 8, 151)  # IDB link type
    o += l
open(sys.argv[2], "wb").write(b)
PY
expect "link type 151, default: no flits" "" "$(col "$tmp/f.pcapng" pcieflit.flit.seq "" "")"
expect "dlt.pcieflit=151 fields" "" "$(same "$tmp/f.pcapng" "-o dlt.pcieflit=151" "-o ub.dlt.pcieflit:151")"
expect "dlt.pcieflit=151 = 150" "$(col "$C/pcie_flit.pcapng" pcieflit.flit.seq "" "")" "$(col "$tmp/f.pcapng" pcieflit.flit.seq "-o dlt.pcieflit=151" "-o ub.dlt.pcieflit:151")"

# ---- audit options: sue.cnp_merge_us and ib.engine give the same findings as expert infos
audit() {
    "$U" "$@" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])))'
}
experts() {
    ts -n -2 "$@" -Y 'sue.analysis.finding || ibrc_audit.analysis.finding || pcieflit.analysis.finding' -T fields -E aggregator='|' -e frame.number \
        -e _ws.expert.message 2>/dev/null | python3 -c '
import re, sys
print(" ".join(sorted("%s@%s" % (m.split(" ")[0], l.split("\t")[0]) for l in sys.stdin
                      for m in l.rstrip("\n").split("\t")[1].split("|") if re.match(r"[A-Z]+-[A-Z]+-[0-9]+ ", m))))'
}
expect "cnp_merge_us=10 ubdump" "SUE-TP-008@6 SUE-TP-009@3 SUE-TP-009@4" "$(audit -o sue.cnp_merge_us=10 -r "$C/sue_limits.pcapng")"
expect "cnp_merge_us=10 tshark" "SUE-TP-008@6 SUE-TP-009@3 SUE-TP-009@4" "$(experts -o sue.cnp_merge_us:10 -r "$C/sue_limits.pcapng")"
expect "ib.engine=1" "$(audit -o ib.engine=1 -r "$C/rocev2_rc.pcapng")" "$(experts -o ub.ib.engine:1 -r "$C/rocev2_rc.pcapng")"
expect "ib.engine=1 finds IB-RC-008" "yes" "$(experts -o ub.ib.engine:1 -r "$C/rocev2_rc.pcapng" | grep -q 'IB-RC-008@1 ' && echo yes)"
# pcieflit.encoding: the sequence-number handshake limit (PCIE-FL-012), 512 flits with 1b1b, 256 otherwise.
# A: an IDLE flit, then 21 records of 25 explicit NOP flits, every 4th with an Ack; B: one IDLE flit
python3 -c '
print("@capture format=pcapng\n@packet ts=0.000001 dir=out\npcieflit\npcieflit\n@packet ts=0.000002 dir=in\npcieflit\npcieflit")
for r in range(21):
    print("@packet ts=0.%06d dir=out\npcieflit" % (r + 11))
    for j in range(25): print("pcieflit usage=0 seq=1023" + (" replay_cmd=1" if (r * 25 + j) % 4 == 3 else ""))' > "$tmp/hs.ub"
"$UBGEN" -w "$tmp/hs.pcapng" "$tmp/hs.ub" 2>/dev/null || bad "ubgen handshake"
expect "encoding 1b1b" "PCIE-FL-012@23" "$(experts -r "$tmp/hs.pcapng" | tr ' ' '\n' | grep PCIE-FL-012)"
expect "encoding 8b10b ubdump" "PCIE-FL-012@13" "$(audit -o pcieflit.encoding=8b10b -r "$tmp/hs.pcapng" | tr ' ' '\n' | grep PCIE-FL-012)"
expect "encoding 8b10b tshark" "PCIE-FL-012@13" "$(experts -o pcieflit.encoding:8b10b -r "$tmp/hs.pcapng" | tr ' ' '\n' | grep PCIE-FL-012)"
expect "encoding 8b10b, all findings" "$(audit -o pcieflit.encoding=8b10b -r "$tmp/hs.pcapng")" "$(experts -o pcieflit.encoding:8b10b -r "$tmp/hs.pcapng")"

echo "$pass passed, $nfail failed"
[ "$nfail" -eq 0 ]
