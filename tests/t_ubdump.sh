#!/bin/sh
# ubdump CLI end to end on every bundled capture: golden summary/-V/-T fields/-T ubjson outputs,
# the exact ub.error of every malformed sample, exit codes, and byte-for-byte reproducibility of
# the checked-in captures from their .ub descriptions.  UB_REGEN=1 rewrites the golden files.
set -u
U=${UBDUMP:?}
G=${UBGEN:?}
S=${UB_SOURCE_DIR:?}
GOLD=$S/tests/golden/ubdump
. "$S/tests/check_lib.sh"
ub_check_init t_ubdump
check_golden() { # name file
    if [ "${UB_REGEN:-0}" = 1 ]; then cp "$2" "$GOLD/$1"; ok; return; fi
    if [ ! -f "$GOLD/$1" ]; then bad "missing golden $1 (run with UB_REGEN=1)"; return; fi
    if cmp -s "$2" "$GOLD/$1"; then ok; else bad "$1 differs from golden:"; diff "$GOLD/$1" "$2" | head -20; fi
}

FIELDS="-e frame.number -e ub.lph.cfg -e ub.lch.ctrl -e ub.nth.scna -e ub.nth.dcna -e ub.rtph.tpopcode -e ub.rtph.psn \
-e ub.btah.taopcode -e ub.btah.ini_tassn -e ub.atah.taopcode -e ub.atah.ini_tassn -e ub.maetah.address \
-e ub.maetah.length -e ub.mgmtetah.code -e ub.scan.msn -e ub.nctl.protocol -e ub.icrc.status -e ub.bcrc.status -e ub.error"

n=0
for cap in "$S"/captures/*.pcapng; do
    name=$(basename "$cap" .pcapng)
    n=$((n + 1))
    opt=""
    case $name in noncrc) opt=--noncrc ;; esac
    # shellcheck disable=SC2086
    if "$U" $opt -r "$cap" > "$tmp/$name.txt"; then ok; else bad "$name: ubdump exit $?"; fi
    check_golden "$name.txt" "$tmp/$name.txt"
    "$U" $opt -r "$cap" -V > "$tmp/$name.V.txt" || bad "$name -V"
    check_golden "$name.V.txt" "$tmp/$name.V.txt"
    # shellcheck disable=SC2086
    "$U" $opt -r "$cap" -T fields $FIELDS > "$tmp/$name.fields.txt" || bad "$name -T fields"
    check_golden "$name.fields.txt" "$tmp/$name.fields.txt"
    "$U" $opt -r "$cap" -T ubjson > "$tmp/$name.json" || bad "$name -T ubjson"
    if command -v python3 >/dev/null 2>&1; then
        if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and len(d) > 0' "$tmp/$name.json"; then ok; else bad "$name: invalid JSON"; fi
    fi
    # the capture is reproducible from its description
    if [ -f "$S/captures/$name.ub" ]; then
        if "$G" -w "$tmp/$name.regen.pcapng" "$S/captures/$name.ub" && cmp -s "$tmp/$name.regen.pcapng" "$cap"; then ok; else bad "$name.pcapng is not what captures/$name.ub builds (cmake --build build --target captures)"; fi
    fi
done
[ "$n" -ge 10 ] && ok || bad "expected the bundled captures, found $n"

# every malformed sample yields exactly the error it was built to show
"$U" -r "$S/captures/malformed.pcapng" -T fields -e frame.number -e ub.error > "$tmp/mal.txt"
while read -r frame want; do
    got=$(awk -F'\t' -v f="$frame" '$1 == f { print $2 }' "$tmp/mal.txt")
    case ",$got," in *",$want,"*) ok ;; *) bad "malformed frame $frame: want $want, got '$got'" ;; esac
done <<'LIST'
1 bcrc_bad
2 icrc_bad
3 unknown_taopcode
4 unknown_cfg
5 length_mismatch
6 error_flag
7 unknown_nlp
8 unknown_tpopcode
9 plength_reserved
10 reserved_bits
LIST
# clean samples have an empty ub.error
for name in cfg9_coherent cfg7_rtp cfg3_ipv4 cfg6_mgmt cfg6_enum cfg5_netctl dllcb multiblock stream uboe urpc sll_ubl sll2_ubl; do
    [ -f "$S/captures/$name.pcapng" ] || continue
    e=$("$U" -r "$S/captures/$name.pcapng" -T fields -e ub.error | sort -u | tr -d '\n')
    [ -z "$e" ] && ok || bad "$name: unexpected errors '$e'"
done
e=$("$U" --noncrc -r "$S/captures/noncrc.pcapng" -T fields -e ub.error | sort -u | tr -d '\n')
[ -z "$e" ] && ok || bad "noncrc: unexpected errors '$e'"

# exit codes and messages
"$U" -r "$tmp/does-not-exist.pcap" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "does-not-exist" "$tmp/err" && ok || bad "missing file: exit $rc"
"$U" --bogus > /dev/null 2>&1; rc=$?; [ $rc -eq 2 ] && ok || bad "bad option: exit $rc"
"$U" -r "$S/captures/cfg9_coherent.pcapng" -T fields -e ub.no.such > /dev/null 2>&1; rc=$?; [ $rc -eq 2 ] && ok || bad "unknown field: exit $rc"
"$U" -r "$S/captures/malformed.pcapng" > /dev/null; rc=$?; [ $rc -eq 0 ] && ok || bad "malformed file: exit $rc"
printf 'not a capture file at all' > "$tmp/junk"; "$U" -r "$tmp/junk" > /dev/null 2>&1; rc=$?; [ $rc -eq 2 ] && ok || bad "junk file: exit $rc"
# stdin
"$U" -r - < "$S/captures/cfg9_coherent.pcapng" > "$tmp/stdin.txt"; cmp -s "$tmp/stdin.txt" "$tmp/cfg9_coherent.txt" && ok || bad "reading stdin"
# -c
c=$("$U" -r "$S/captures/cfg7_rtp.pcapng" -c 3 | wc -l); [ "$c" -eq 3 ] && ok || bad "-c 3 printed $c lines"
# repeated fields are comma-separated (two atomic operands, two URPC DMA entries)
v=$("$U" -r "$S/captures/urpc.pcapng" -T fields -e ub.urpc_dma.size -c 1); [ "$v" = "4096,8192" ] && ok || bad "aggregated field: '$v'"

# a capture cut short inside its last record: as tshark, the records before it are printed, then the
# read error, exit 2 -- also by the modes that read the capture twice for ub.analysis (-T json|ek, -Y)
cap=$S/captures/audit_rtp_lossy.pcapng
head -c $(($(wc -c < "$cap") - 20)) "$cap" > "$tmp/cut.pcapng"
"$U" -r "$tmp/cut.pcapng" -T ek > "$tmp/cut.ek" 2> "$tmp/cut.err"; rc=$?
"$U" -r "$cap" -T ek | head -n 42 > "$tmp/full.ek"
[ $rc -eq 2 ] && grep -q truncated "$tmp/cut.err" && cmp -s "$tmp/cut.ek" "$tmp/full.ek" && [ "$(wc -l < "$tmp/cut.ek")" -eq 42 ] && ok ||
    bad "cut capture -T ek: exit $rc, $(wc -l < "$tmp/cut.ek") lines, want 2 and the 21 documents before the cut"
v=$("$U" -r "$tmp/cut.pcapng" -T json 2> /dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
[ "$v" = 21 ] && ok || bad "cut capture -T json: '$v' documents, want 21"
v=$("$U" -r "$tmp/cut.pcapng" -Y ub.analysis.rule -T fields -e frame.number 2> /dev/null | tr '\n' ' ')
[ "$v" = "8 9 10 11 15 20 21 " ] && ok || bad "cut capture -Y ub.analysis.rule: frames '$v'"

ub_check_done
