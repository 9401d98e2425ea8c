#!/bin/sh
# The neighbouring interconnects in a real tshark with our plugin (dissector/packet-neigh.c,
# docs/neighbours.md "Wireshark"), against ubdump on the sample captures:
#  * every sue.* / pcieflit.* field of ubdump exists in tshark (one schema);
#  * tshark -T fields == ubdump -T fields for every sue.*, pcieflit.* and shared infiniband.* field on
#    sue_std, sue_afh, sue_limits, pcie_flit, pcie_limits, pcie_nak, rocev2_rc, rocev2_cfg3 (integers compared as numbers: tshark pads hex
#    to the container width, ubdump to the field width); the only differences are Wireshark's own
#    InfiniBand dissector's, listed below;
#  * infiniband.reth.va / .r_key name the RETH's and the AtomicETH's rows (as in Wireshark): fields,
#    filters and JSON keys equal tshark's;
#  * the mixed UDP 4791 capture is split identically (SUE frames 1-12, RoCEv2 frame 13);
#  * display filters on every sue.* / pcieflit.* name (and some values) select the same frames;
#  * the audit findings (rule@frame) shown as expert infos == ubdump --audit.
# tshark runs unprivileged with a private copy of the built ub.so (tests/tshark_lib.sh); FAILS (never
# skips) when tshark, python3 or the plugin is missing or not loaded.
set -eu

. "$UB_SOURCE_DIR/tests/tshark_neigh_lib.sh"

# ---- one schema: ubdump's sue.* / pcieflit.* names are tshark fields
"$U" -G fields 2>/dev/null | awk -F'\t' '$1 ~ /^(sue|pcieflit|infiniband)\./ { print $1 }' | LC_ALL=C sort -u > "$tmp/uf"
ts -G fields 2>/dev/null | awk -F'\t' '{ print $3 }' | LC_ALL=C sort -u > "$tmp/tf"
expect "sue/pcieflit fields missing in tshark" "" "$(LC_ALL=C comm -23 "$tmp/uf" "$tmp/tf" | grep -v '^infiniband\.' | tr '\n' ' ')"
expect "sue/pcieflit field count" "42" "$(grep -c -E '^(sue|pcieflit)\.' "$tmp/uf")"
LC_ALL=C comm -12 "$tmp/uf" "$tmp/tf" > "$tmp/both"

# ---- field values, every field, every capture (one run of each tool per capture, compared per column)
E=$(sed 's/^/-e /' "$tmp/both" | tr '\n' ' ')
: > "$tmp/diffs"
for c in sue_std sue_afh sue_limits pcie_flit pcie_limits pcie_nak rocev2_rc rocev2_cfg3; do
    # shellcheck disable=SC2086  # $E: the -e list
    "$U" -r "$C/$c.pcapng" -T fields -e frame.number $E 2>/dev/null | norm > "$tmp/a"
    # shellcheck disable=SC2086
    ts -n -2 -r "$C/$c.pcapng" -T fields -e frame.number $E 2>/dev/null | norm > "$tmp/b"
    [ -s "$tmp/a" ] && [ "$(wc -l < "$tmp/a")" = "$(wc -l < "$tmp/b")" ] || bad "$c: $(wc -l < "$tmp/a") vs $(wc -l < "$tmp/b") lines"
    python3 -c '
import sys
names = ["frame.number"] + open(sys.argv[1]).read().split()
for la, lb in zip(open(sys.argv[2]), open(sys.argv[3])):
    a, b = la.rstrip("\n").split("\t"), lb.rstrip("\n").split("\t")
    for i, n in enumerate(names):
        if a[i] != b[i]: print(sys.argv[4], n, a[0])' "$tmp/both" "$tmp/a" "$tmp/b" "$c" >> "$tmp/diffs"
done
# Wireshark 4.0's InfiniBand dissector: no ICRC item for Send-with-Invalidate, RoCEv2 CNP and UD
expect "field differences" "rocev2_rc infiniband.invariant.crc 21 rocev2_rc infiniband.invariant.crc 22 rocev2_rc infiniband.invariant.crc 23" \
    "$(LC_ALL=C sort "$tmp/diffs" | tr '\n' ' ' | sed 's/ $//')"
# ---- one name in two headers, as Wireshark: the AtomicETH VA and R_Key are infiniband.reth.va / .r_key
# (frames 3, 11: RETH of a Write and a Read; frame 13: the AtomicETH of a Compare&Swap)
rv="3	0x0000000010000000	0x00000077 11	0x0000000020000000	0x00000078 13	0x0000000030000000	0x00000079"
expect "reth.va/r_key ubdump" "$rv" "$("$U" -r "$C/rocev2_rc.pcapng" -Y infiniband.reth.va -T fields -e frame.number -e infiniband.reth.va \
    -e infiniband.reth.r_key 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
expect "reth.va/r_key tshark" "$rv" "$(ts -n -2 -r "$C/rocev2_rc.pcapng" -Y infiniband.reth.va -T fields -e frame.number -e infiniband.reth.va \
    -e infiniband.reth.r_key 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
for y in 'infiniband.reth.va == 0x30000000' 'infiniband.reth.r_key == 0x79 || infiniband.reth.r_key == 0x77' 'infiniband.reth.va && infiniband.atomiceth' \
    'infiniband.reth.va && !infiniband.reth'; do
    expect "filter '$y' ubdump = tshark" "$(ts -n -r "$C/rocev2_rc.pcapng" -Y "$y" -T fields -e frame.number 2>/dev/null | tr '\n' ' ')" \
        "$("$U" -r "$C/rocev2_rc.pcapng" -Y "$y" -T fields -e frame.number 2>/dev/null | tr '\n' ' ')"
done
expect "filter reth.va == 0x30000000" "13" "$("$U" -r "$C/rocev2_rc.pcapng" -Y 'infiniband.reth.va == 0x30000000' -T fields -e frame.number 2>/dev/null)"
expect "filter reth.va without a RETH" "13" "$("$U" -r "$C/rocev2_rc.pcapng" -Y 'infiniband.reth.va && !infiniband.reth' -T fields -e frame.number 2>/dev/null)"
# JSON: the AtomicETH's keys are tshark's (tshark nests them in infiniband.atomiceth_tree, ubdump is flat)
jkeys='import json, sys
def walk(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            if k.startswith(("infiniband.reth", "infiniband.atomiceth.")) and not k.endswith("_tree"): out.append("%s=%s" % (k, v))
            walk(v, out)
    elif isinstance(o, list):
        for v in o: walk(v, out)
out = []; walk(json.load(sys.stdin), out); print(" ".join(out))'
expect "AtomicETH JSON keys ubdump" "infiniband.reth.va=0x0000000030000000 infiniband.reth.r_key=0x00000079 infiniband.atomiceth.swapdt=0x0000000000000005 infiniband.atomiceth.cmpdt=0x0000000000000004" \
    "$("$U" -r "$C/rocev2_rc.pcapng" -Y 'frame.number == 13' -T json 2>/dev/null | python3 -c "$jkeys")"
expect "AtomicETH JSON keys tshark" "infiniband.reth.va=0x0000000030000000 infiniband.reth.r_key=0x00000079 infiniband.atomiceth.swapdt=5 infiniband.atomiceth.cmpdt=4" \
    "$(ts -n -r "$C/rocev2_rc.pcapng" -Y 'frame.number == 13' -T json 2>/dev/null | python3 -c "$jkeys")"
expect "SUE RH values" "3	0	0	1	0x0003" "$(ts -n -2 -r "$C/sue_std.pcapng" -Y 'sue.rh.fack == 1 && sue.rh.psn == 0' -T fields \
    -e frame.number -e sue.rh.opcode -e sue.rh.psn -e sue.rh.fack -e sue.rh.dest_qp 2>/dev/null)"
expect "AFH values" "0x82	0x0001	0x0002" "$(ts -n -2 -r "$C/sue_afh.pcapng" -Y 'frame.number == 1' -T fields -e sue.afh.key_words -e sue.afh.src_addr -e sue.afh.dst_addr 2>/dev/null)"
expect "flit values" "8	0	1	5	1	2	837" "$(ts -n -2 -r "$C/pcie_flit.pcapng" -Y 'pcieflit.oufc' -T fields -e frame.number -e pcieflit.flit.usage \
    -e pcieflit.flit.replay_cmd -e pcieflit.flit.seq -e pcieflit.oufc.np_hdr -e pcieflit.oufc.p_hdr -e pcieflit.oufc.p_data 2>/dev/null)"
expect "flit record of 2 flits" "4,5" "$(ts -n -2 -r "$C/pcie_flit.pcapng" -Y 'frame.number == 7' -T fields -e pcieflit.flit.seq 2>/dev/null)"
expect "Info column" "SUE AFH NAK QP 0x4 PSN 12" "$(ts -n -2 -r "$C/sue_afh.pcapng" -Y 'frame.number == 5' -T fields -e _ws.col.Info 2>/dev/null)"

# ---- UDP 4791: the same split as ubdump
expect "4791 split" "1 2 3 4 5 6 7 8 9 10 11 12 | 13" "$(ts -n -2 -r "$C/sue_std.pcapng" -Y sue -T fields -e frame.number 2>/dev/null | tr '\n' ' ')| $(ts -n -2 -r "$C/sue_std.pcapng" -Y infiniband.bth -T fields -e frame.number 2>/dev/null)"
expect "4791 split = ubdump" "$("$U" -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | tr '\n' ' ')" \
    "$(ts -n -2 -r "$C/sue_std.pcapng" -Y sue.rh -T fields -e frame.number 2>/dev/null | tr '\n' ' ')"
expect "RoCEv2 stays InfiniBand" "23" "$(ts -n -2 -r "$C/rocev2_rc.pcapng" -Y infiniband.bth -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')"

# ---- filters select the same frames
{
    grep -E '^(sue|pcieflit)\.' "$tmp/both"
    printf '%s\n' sue.rh sue.afh sue.icrc pcieflit.flit pcieflit.oufc pcieflit.marker 'sue.rh.opcode == 1' 'sue.rh.psn >= 4000' \
        'sue.afh.key_words == 0x83' 'sue.afh.key_words.m' 'sue.rh.fack == 1' 'pcieflit.flit.replay_cmd == 2' 'pcieflit.flit.seq > 4' \
        'pcieflit.marker.status == 1' 'sue.rh.dest_qp == 0x5 && sue.rh.psn < 12' '!sue.rh'
} > "$tmp/filters"
# per capture the filters that apply to it, all in one tshark run (a Lua tap each: tests/tshark_multi.lua)
cp "$UB_SOURCE_DIR/tests/tshark_multi.lua" "$tmp/multi.lua"
chmod -R a+rX "$tmp"
nf=0
for c in sue_std sue_afh pcie_flit rocev2_rc; do : > "$tmp/f.$c"; done
while IFS= read -r y; do # which captures a filter runs on
    case $y in sue*) caps="sue_std sue_afh" ;; pcieflit*) caps=pcie_flit ;; *) caps="sue_std sue_afh pcie_flit rocev2_rc" ;; esac
    for c in $caps; do printf '%s\n' "$y" >> "$tmp/f.$c"; done
done < "$tmp/filters"
for c in sue_std sue_afh pcie_flit rocev2_rc; do
    UB_FILTERS="$tmp/f.$c" ts -n -q -r "$C/$c.pcapng" -X lua_script:"$tmp/multi.lua" > "$tmp/ts.out" 2> "$tmp/ts.err" ||
        { cat "$tmp/ts.err"; fail "$c: tshark with the filter taps"; }
    [ "$(wc -l < "$tmp/ts.out")" -eq "$(wc -l < "$tmp/f.$c")" ] || { cat "$tmp/ts.out" "$tmp/ts.err"; fail "$c: tshark printed no result per filter"; }
    i=0
    while IFS= read -r y; do
        i=$((i + 1))
        a=$("$U" -r "$C/$c.pcapng" -Y "$y" -T fields -e frame.number 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
        b=$(awk -F'\t' -v i="$i" '$1 == i { print $2 }' "$tmp/ts.out")
        expect "filter '$y' on $c" "$a" "$b"
        [ -n "$a" ] && nf=$((nf + 1))
    done < "$tmp/f.$c"
done
[ "$nf" -ge 40 ] && ok || bad "only $nf filter/capture pairs selected a frame"

# ---- findings: expert infos == ubdump --audit
audit() {
    "$U" -r "$1" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d" % (r["id"], f["frame"]) for r in d["rules"] for f in r["findings"])))'
}
experts() {
    ts -n -2 -r "$1" -Y 'sue.analysis.finding || pcieflit.analysis.finding || ibrc_audit.analysis.finding' -T fields \
        -E aggregator='|' -e frame.number -e _ws.expert.message 2>/dev/null |
        python3 -c '
import re, sys  # rule findings only (Wireshark says "Malformed" on an IETH it does not know)
print(" ".join(sorted("%s@%s" % (m.split(" ")[0], l.split("\t")[0]) for l in sys.stdin
                      for m in l.rstrip("\n").split("\t")[1].split("|") if re.match(r"[A-Z]+-[A-Z]+-[0-9]+ ", m))))'
}
# the reliable-transport core's planted traces (tests/rt/*_nb.ub: timers, MSN, gap judgements, SUE RNR)
for t in rt_timers_nb rt_seq_nb; do "$UBGEN" -w "$tmp/$t.pcapng" "$UB_SOURCE_DIR/tests/rt/$t.ub" >/dev/null || bad "ubgen $t"; done
for c in "$C/sue_std" "$C/sue_afh" "$C/sue_limits" "$C/pcie_flit" "$C/pcie_limits" "$C/pcie_nak" "$C/rocev2_rc" "$tmp/rt_timers_nb" "$tmp/rt_seq_nb"; do
    want=$(audit "$c.pcapng")
    [ -n "$want" ] || bad "$c: ubdump finds nothing"
    expect "$(basename "$c") expert findings" "$want" "$(experts "$c.pcapng")"
done
expect "SUE-TP-003 expert text" "10	SUE-TP-003 ACK/NAK PSN beyond the newest request sent or older than the window: acknowledges a sequence number never sent; flow SUE 10.0.1.1→10.0.1.2 QP 0x3; values 100, 2" \
    "$(ts -n -2 -r "$C/sue_std.pcapng" -Y 'sue.analysis.finding && frame.number == 10' -T fields -e frame.number -e _ws.expert.message 2>/dev/null)"

echo "$pass passed, $nfail failed"
[ "$nfail" -eq 0 ]
