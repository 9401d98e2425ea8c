#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# Captures cut by the snapshot length (tcpdump -s N, editcap -s N: caplen < orig_len), audited: what the
# capture lacks is no finding. For every bundled capture of whole units (not the raw flit streams, not
# the captures of damaged packets, whose damage a cut may hide), cut at several lengths, `ubdump --audit`
# reports no rule the whole capture does not, and no rule more often; the decode reports no error
# where the whole capture has none. Then the cases that went wrong before, by value:
#   - flit records: flits counted on the wire (retry buffer, credits, DLLDP spacing, Param_Exchg size);
#   - an Init Block cut before its values: a bring-up with unknown parameters, not a bad Init;
#   - a multi-packet Read_response whose CRCs were cut: its packets are not DLL replays of each other;
#   - Write/Read lengths of a cut packet: no verdict; management and Scan PDU lengths: no error;
#   - a TPSACK BitMap cut short: no BitMap verdict;
#   - UDP not on the UB port: a cut packet is no evidence for the strict heuristic.
set -u
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}"
U=$UBDUMP
S=$UB_SOURCE_DIR
C=$S/captures
. "$S/tests/check_lib.sh"
ub_check_init t_snaplen
command -v editcap > /dev/null 2>&1 || { echo "FAIL: editcap is not installed (wireshark-common)"; exit 1; }

# rule id and count of each rule that fired: "UB-TA-001 2"
rules() { "$U" --audit -q -r "$1" 2>/dev/null | awk '/^(error|warning|note) +UB-/ { sub(/^x/, "", $3); print $2, $3 }' | sort; }
errs() { "$U" -r "$1" -Y ub.error -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' '; }

n=0
for f in audit_bringup audit_credit audit_linkup audit_mgmt audit_responder audit_retry audit_rtp_clean audit_rtp_lossy \
    audit_rtp_sack audit_txn_clean cfg3_ipv4 cfg5_netctl cfg6_enum cfg6_mgmt cfg7_rtp cfg9_coherent cip dllcb multiblock \
    uboe urpc; do
    rules "$C/$f.pcapng" > "$tmp/base"
    e0=$(errs "$C/$f.pcapng")
    for s in 24 40 48 64 80 100 128 200; do
        editcap -s $s "$C/$f.pcapng" "$tmp/cut.pcapng" 2> /dev/null
        rules "$tmp/cut.pcapng" > "$tmp/cut"
        more=$(join -a2 -e0 -o 0,1.2,2.2 "$tmp/base" "$tmp/cut" | awk '$3 > $2 { printf "%s %d>%d ", $1, $2, $3 }')
        eq "$f cut at $s: findings beyond the whole capture's" "$more" ""
        [ "$e0" -eq 0 ] && eq "$f cut at $s: records with a decode error" "$(errs "$tmp/cut.pcapng")" 0
        n=$((n + 1))
    done
done
eq "captures x lengths compared" $n 168

cut() { editcap -s "$2" "$C/$1.pcapng" "$tmp/$1-$2.pcapng" 2> /dev/null; echo "$tmp/$1-$2.pcapng"; }
# flit records: the flits on the wire (wire length / 20), not those captured
eq "audit_linkup -s 64: no finding (Init values not captured: no negotiation notes either)" "$(rules "$(cut audit_linkup 64)")" ""
eq "audit_linkup -s 100: the whole capture's findings" "$(rules "$(cut audit_linkup 100)")" "$(rules "$C/audit_linkup.pcapng")"
eq "audit_retry -s 64: no retry-buffer overflow (DL-014)" "$(rules "$(cut audit_retry 64)" | grep -c UB-DL-014)" 0
eq "dllcb -s 40: Param_Exchg 5 flits on the wire (no MG-010)" "$(rules "$(cut dllcb 40)" | grep -c UB-MG-010)" 0
# Init Blocks cut before their values: no Init Block content finding, bring-up in order
x=$(cut audit_credit 48)
eq "audit_credit -s 48: no DL-010 (Init content) nor DL-009 (bring-up order)" "$(rules "$x" | grep -c -E 'UB-DL-0(09|10)')" 0
# the Read_response of TASSN 4 spans frames 15 and 16: both cut, it completes
x=$(cut audit_txn_clean 64)
eq "audit_txn_clean -s 64: no finding" "$("$U" --audit -q -r "$x" 2>/dev/null | grep -c '^0 findings')" 1
eq "audit_txn_clean -s 64: Read TASSN 4 answered by frame 15" \
    "$("$U" --audit -r "$x" -T fields -e frame.number -e ub.analysis.response_in 2>/dev/null | awk '$1 == 13 { print $2 }')" 15
# Write payload length of a cut packet: no TA-017 (the whole capture has none either)
eq "cfg7_rtp -s 64: no payload length finding" "$(rules "$(cut cfg7_rtp 64)" | grep -c UB-TA-017)" 0
eq "cfg9_coherent -s 24: no payload length finding" "$(rules "$(cut cfg9_coherent 24)" | grep -c UB-TA-017)" 0
# management and Scan PDU lengths past the cut: no length_mismatch
x=$(cut audit_mgmt 64)
eq "audit_mgmt -s 64: no length_mismatch" "$("$U" -r "$x" -Y 'ub.error == "length_mismatch"' -T fields -e frame.number 2>/dev/null | wc -l | tr -d ' ')" 0
x=$(cut cfg6_enum 80)
eq "cfg6_enum -s 80: no decode error" "$(errs "$x")" 0
eq "cfg6_enum -s 48: Scan requests cut before their GUID still answered" "$(rules "$(cut cfg6_enum 48)")" ""
eq "cfg5_netctl -s 64: no decode error" "$(errs "$(cut cfg5_netctl 64)")" 0
# a TPSACK whose BitMap is cut: no TP-011
eq "audit_rtp_clean -s 40: no TPSACK finding" "$(rules "$(cut audit_rtp_clean 40)" | grep -c UB-TP-011)" 0

ub_check_done
