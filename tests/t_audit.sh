#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# ubdump as an auditor, end to end: --audit findings and exit codes (--fail-on), the json / SARIF 2.1.0 /
# JUnit reports (parsed with python3), --threads N == --threads 1 byte for byte (every capture, every report format,
# -z statistics, plus a generated multi-pair capture), -Y display filters, -z output, -G rules.
# Exact findings of the audit_*.ub scenarios are asserted by the rule modules' C tests; here every
# captures/audit_*.pcapng is only checked generically (runs, valid SARIF, -j identity).
set -u
U=${UBDUMP:?}
G=${UBGEN:?}
S=${UB_SOURCE_DIR:?}
. "$S/tests/check_lib.sh"
ub_check_init t_audit
have_py=0
command -v python3 >/dev/null 2>&1 && have_py=1
[ $have_py = 1 ] || echo "note: python3 not found: JSON/SARIF/JUnit structure checks skipped"

opt_for() { case $(basename "$1") in noncrc.pcapng) echo --noncrc ;; *) echo "" ;; esac; }

# ---------------------------------------------------------------- -G rules
"$U" -G rules > "$tmp/rules.txt"; rc=$?
[ $rc -eq 0 ] && ok || bad "-G rules exit $rc"
nrules=$(wc -l < "$tmp/rules.txt")
[ "$nrules" -ge 50 ] && ok || bad "-G rules lists only $nrules rules"
awk -F'\t' 'NF != 6 || $1 !~ /^(UB|NB|IB|SUE|PCIE)-[A-Z][A-Z]-[0-9][0-9][0-9]$/ || ($3 != "error" && $3 != "warning" && $3 != "note") { print "bad rule line: " $0; e = 1 } END { exit e }' "$tmp/rules.txt" && ok || bad "-G rules format"
[ "$(cut -f1 "$tmp/rules.txt" | sort | uniq -d | wc -l)" -eq 0 ] && ok || bad "-G rules: duplicate ids"

# ---------------------------------------------------------------- malformed.pcapng: decode findings
M=$S/captures/malformed.pcapng
"$U" -r "$M" -q --audit > "$tmp/mal.txt"; rc=$?
[ $rc -eq 1 ] && ok || bad "malformed --audit: exit $rc, want 1"
grep -q '^result: FAIL' "$tmp/mal.txt" && ok || bad "malformed: no 'result: FAIL' line"
"$U" -r "$M" --audit-format json > "$tmp/mal.json"; rc=$?
[ $rc -eq 1 ] && ok || bad "malformed json: exit $rc"
if [ $have_py = 1 ]; then
    # rule@frame pairs the decode errors of the malformed samples must produce
    python3 - "$tmp/mal.json" <<'PY' && ok || bad "malformed: expected findings missing"
import json, sys
d = json.load(open(sys.argv[1]))
got = {(r["id"], f["frame"]) for r in d["rules"] for f in r["findings"]}
want = [("UB-DL-006", 1), ("UB-NW-005", 2), ("UB-DL-001", 4), ("UB-DL-006", 4), ("UB-DL-005", 5),
        ("UB-DL-007", 6), ("UB-NW-001", 7), ("UB-TP-001", 8), ("UB-DL-005", 9), ("UB-DL-006", 9),
        ("UB-RS-001", 10)]
missing = [w for w in want if w not in got]
frames = {f for (_, f) in got}
if missing or 3 not in frames:
    print("missing:", missing, "frame 3 cited:", 3 in frames, "got:", sorted(got))
    sys.exit(1)
assert d["result"] == "fail" and d["exit_status"] == 1 and d["totals"]["error"] >= 9
PY
fi
# the text report cites the same
grep -q 'UB-DL-006' "$tmp/mal.txt" && grep -q 'frame 1: ' "$tmp/mal.txt" && ok || bad "malformed text report lacks UB-DL-006 / frame 1"
# without --audit nothing changes: exit 0
"$U" -r "$M" -q > /dev/null; rc=$?; [ $rc -eq 0 ] && ok || bad "malformed without --audit: exit $rc"

# ---------------------------------------------------------------- --fail-on
"$U" -r "$M" -q --audit --fail-on never > /dev/null; rc=$?; [ $rc -eq 0 ] && ok || bad "--fail-on never: exit $rc"
"$U" -r "$M" -q --audit --fail-on warning > /dev/null; rc=$?; [ $rc -eq 1 ] && ok || bad "--fail-on warning: exit $rc"
# a warning-only capture (reserved bit) and a note-only one (unsolicited TAACK)
cat > "$tmp/warn.ub" <<'EOF'
@capture format=pcapng
@packet ts=0.000100 dir=in
flit
lph rsvd0=1
nth16 scna=0x0304 dcna=0x0102
atah_c taopcode=TAACK ini_tassn=1
EOF
sed 's/lph rsvd0=1/lph/' "$tmp/warn.ub" > "$tmp/note.ub"
"$G" -w "$tmp/warn.pcapng" "$tmp/warn.ub" && "$G" -w "$tmp/note.pcapng" "$tmp/note.ub" && ok || bad "ubgen warn/note captures"
"$U" -r "$tmp/warn.pcapng" -q --audit > /dev/null; rc=$?; [ $rc -eq 0 ] && ok || bad "warning-only, --fail-on error: exit $rc"
"$U" -r "$tmp/warn.pcapng" -q --audit --fail-on warning > /dev/null; rc=$?; [ $rc -eq 1 ] && ok || bad "warning-only, --fail-on warning: exit $rc"
"$U" -r "$tmp/note.pcapng" -q --audit --fail-on warning > /dev/null; rc=$?; [ $rc -eq 0 ] && ok || bad "note-only, --fail-on warning: exit $rc (notes never fail)"
if [ $have_py = 1 ]; then
    "$U" -r "$tmp/warn.pcapng" --audit-format json > "$tmp/warn.json"
    "$U" -r "$tmp/note.pcapng" --audit-format json > "$tmp/note.json"
    python3 - "$tmp/warn.json" "$tmp/note.json" <<'PY' && ok || bad "warn/note capture totals"
import json, sys
w = json.load(open(sys.argv[1]))["totals"]
n = json.load(open(sys.argv[2]))["totals"]
assert w["error"] == 0 and w["warning"] >= 1, w
assert n["error"] == 0 and n["warning"] == 0, n
PY
fi

# ---------------------------------------------------------------- a generated multi-pair capture for -j
# RTP channels with losses / retransmissions / NAKs, transactions with missing and duplicate responses,
# CFG 9 traffic, management exchanges and DLLCBs, over many endpoint pairs (deterministic seed).
if [ $have_py = 1 ]; then
    python3 - > "$tmp/multi.ub" <<'PY'
import random
R = random.Random(7)
out, t = ["@capture format=pcapng"], [0.0001]
def pkt(d, lines):
    t[0] += R.choice([0.000001, 0.00001, 0.00002]) if R.random() > 0.004 else 0.2
    out.append("@packet ts=%.6f dir=%s" % (t[0], d)); out.append("flit"); out.extend(lines)
rtp = [dict(a=0x010000 + i, b=0x0a0000 + i, st=0x100 + i, dt=0x200 + i, psn=R.randrange(1 << 24), bpsn=R.randrange(1 << 24),
            tassn=R.randrange(60000), sent=[], out=[]) for i in range(9)]
c9 = [dict(a=0x100 + i, b=0x300 + i, tassn=R.randrange(60000)) for i in range(5)]
mt, n = 5, 0
while n < 1500:
    k = R.random()
    if k < 0.5:
        c = R.choice(rtp)
        if R.random() < 0.04: c["psn"] = (c["psn"] + 1) & 0xFFFFFF
        if R.random() < 0.03 and c["sent"]:
            psn, ta = R.choice(c["sent"][-6:])
        else:
            psn, ta = c["psn"], (c["tassn"] + 1) & 0xFFFF
            c["tassn"] = ta; c["sent"].append((psn, ta)); c["psn"] = (psn + 1) & 0xFFFFFF
        op = R.choice(["Write", "Read", "Send"])
        l = ["lph vl=1", "nth24 scna=0x%06x dcna=0x%06x" % (c["a"], c["b"]),
             "rtph last=1 srctpn=0x%x dsttpn=0x%x psn=%d tpmsn=%d" % (c["st"], c["dt"], psn, ta),
             "btah taopcode=%s ini_tassn=%d ini_rc_id=0x10" % (op, ta)]
        if op != "Send": l.append("maetah address=0x%x tokenid=0x1 length=%d" % (0x1000 + 64 * ta, 1 if op == "Read" else 0))
        if op != "Read": l.append("payload inc=%d" % (64 if op == "Write" else 16))
        pkt("out", l); c["out"].append((ta, op)); n += 1
    elif k < 0.72:
        c = R.choice(rtp)
        pkt("in", ["lph vl=1", "nth24 scna=0x%06x dcna=0x%06x" % (c["b"], c["a"]),
                   "rtph tpopcode=2 srctpn=0x%x dsttpn=0x%x psn=%d rspst=%d rspinfo=0" % (c["dt"], c["st"], (c["psn"] - 1 - R.randrange(2)) & 0xFFFFFF, 3 if R.random() < 0.1 else 0)])
        n += 1
        if c["out"] and R.random() < 0.85:
            ta, op = c["out"].pop(0) if R.random() < 0.9 else R.choice(c["out"])
            if R.random() < 0.08: continue
            rop = "Read_response" if op == "Read" else "TAACK"
            l = ["lph vl=1", "nth24 scna=0x%06x dcna=0x%06x" % (c["b"], c["a"]),
                 "rtph last=1 srctpn=0x%x dsttpn=0x%x psn=%d tpmsn=%d" % (c["dt"], c["st"], c["bpsn"], ta),
                 "atah taopcode=%s ini_tassn=%d ini_rc_id=0x10" % (rop, ta)]
            if rop == "Read_response": l.append("payload inc=64")
            c["bpsn"] = (c["bpsn"] + 1) & 0xFFFFFF
            pkt("in", l); n += 1
    elif k < 0.86:
        c = R.choice(c9); c["tassn"] = (c["tassn"] + 1) & 0xFFFF; op = R.choice(["Write", "Read"])
        l = ["lph vl=0", "nth16 scna=0x%04x dcna=0x%04x" % (c["a"], c["b"]), "btah_c taopcode=%s ee_bits=1 ini_tassn=%d" % (op, c["tassn"]),
             "maetah_c address=0x%x tokenid=0x12345 length=%d" % (0x100000 + 64 * c["tassn"], 0 if op == "Write" else 1)]
        if op == "Write": l.append("payload inc=64")
        pkt("out", l); n += 1
        r = R.random()
        for _ in range(0 if r < 0.1 else 2 if r > 0.95 else 1):
            l = ["lph vl=0", "nth16 scna=0x%04x dcna=0x%04x" % (c["b"], c["a"]),
                 "atah_c taopcode=%s ini_tassn=%d" % ("TAACK" if op == "Write" else "Read_response", c["tassn"])]
            if op == "Read": l.append("payload inc=128")
            pkt("in", l); n += 1
    elif k < 0.93:
        mt += 1
        pkt("out", ["lph", "nth16 scna=1 dcna=0x10 mgmt=1", "ctph", "upih16 upi=0x7fff", "eidh40 seid=1 deid=2",
                    "btah taopcode=Management ee_bits=1 ini_tassn=%d ini_rc_id=3" % mt, "mgmtetah code=2 sub_code=0 rsp=0",
                    "mg_cfg_req entity_idx=0 request_address=4"]); n += 1
        if R.random() < 0.85:
            pkt("in", ["lph", "nth16 scna=0x10 dcna=1 mgmt=0", "ctph", "upih16 upi=0x7fff", "eidh40 seid=2 deid=1",
                       "btah taopcode=Management ee_bits=1 ini_tassn=%d ini_rc_id=3" % mt, "mgmtetah code=2 sub_code=0 rsp=1 status=0",
                       "mg_cfg_rsp data=0x12345678"]); n += 1
    else:
        pkt(R.choice(["out", "in"]), ["lch clength=1 ctrl=2 sub_ctrl=4", "dllcb_crd_ack t=0 ack_num=%d crd_num_vl0=4" % R.randrange(64)]); n += 1
print("\n".join(out))
PY
    if "$G" -w "$tmp/multi.pcapng" "$tmp/multi.ub"; then ok; else bad "ubgen multi-pair capture"; fi
fi

# ---------------------------------------------------------------- every capture
Z="-z ub,cfg -z ub,tp -z ub,srt -z ub,latency -z ub,mgmt"
ncap=0
for cap in "$S"/captures/*.pcapng "$tmp/multi.pcapng"; do
    [ -f "$cap" ] || continue
    name=$(basename "$cap" .pcapng)
    ncap=$((ncap + 1))
    o=$(opt_for "$cap")
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -q --audit $Z > "$tmp/$name.j1.txt"; rc1=$?
    [ $rc1 -le 1 ] && ok || bad "$name --audit: exit $rc1"
    for fmt in json sarif junit; do
        # shellcheck disable=SC2086
        "$U" $o -r "$cap" --audit-format $fmt > "$tmp/$name.j1.$fmt"; r=$?
        [ $r -eq $rc1 ] && ok || bad "$name --audit-format $fmt: exit $r, text report exit $rc1"
    done
    # --threads N: identical reports and statistics
    # (the link engine runs in the main thread or in its own one: UBDUMP_LINK_THREAD forces either)
    for j in 2 4 3L; do
        lt=0
        case $j in *L) j=${j%L}; lt=1 ;; esac
        # shellcheck disable=SC2086
        UBDUMP_LINK_THREAD=$lt "$U" $o -r "$cap" -q --audit $Z --threads $j > "$tmp/$name.j$j.txt"; r=$?
        if [ $r -eq $rc1 ] && cmp -s "$tmp/$name.j1.txt" "$tmp/$name.j$j.txt"; then ok; else
            bad "$name: --audit -z ... --threads $j (link thread $lt) differs from --threads 1 (exit $r vs $rc1)"; diff "$tmp/$name.j1.txt" "$tmp/$name.j$j.txt" | head -10; fi
    done
    for fmt in json sarif junit; do
        # shellcheck disable=SC2086
        UBDUMP_LINK_THREAD=1 "$U" $o -r "$cap" --audit-format $fmt --threads 4 > "$tmp/$name.j4.$fmt"
        cmp -s "$tmp/$name.j1.$fmt" "$tmp/$name.j4.$fmt" && ok || bad "$name: $fmt report with --threads 4 differs from --threads 1"
    done
    # -z alone (no --audit) with -j
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -q $Z --threads 3 > "$tmp/$name.z3.txt"; r=$?
    [ $r -eq 0 ] && ok || bad "$name -z without --audit: exit $r"
    sed -n '/^UB audit of/q;p' "$tmp/$name.j1.txt" | cmp -s - "$tmp/$name.z3.txt" && ok || bad "$name: -z output without --audit (-j 3) differs"
    [ $have_py = 1 ] || continue
    python3 - "$tmp/$name.j1.json" "$tmp/$name.j1.sarif" "$tmp/$name.j1.junit" "$tmp/rules.txt" "$rc1" "$cap" <<'PY' && ok || bad "$name: report structure"
import json, sys, xml.etree.ElementTree as ET
jp, sp, up, rp, rc, cap = sys.argv[1:7]
rc = int(rc)
ids = [l.split("\t")[0] for l in open(rp, encoding="utf-8").read().splitlines()]
j = json.load(open(jp, encoding="utf-8"))
t = j["totals"]
assert t["findings"] == t["error"] + t["warning"] + t["note"] == sum(r["count"] for r in j["rules"])
assert rc == (1 if t["error"] else 0), ("exit status vs errors", rc, t)
assert j["exit_status"] == rc
for r in j["rules"]:
    assert r["id"] in ids
    assert r["count"] == r["error"] + r["warning"] + r["note"] and len(r["findings"]) == min(r["count"], 100)
    fr = [(f["frame"]) for f in r["findings"]]
    assert fr == sorted(fr), ("examples in frame order", r["id"], fr)
s = json.load(open(sp, encoding="utf-8"))
assert s["version"] == "2.1.0" and "sarif" in s["$schema"]
run = s["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "ubdump"
assert [r["id"] for r in drv["rules"]] == ids
for r in drv["rules"]:
    assert r["shortDescription"]["text"] and r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    # code scanning: every catalogue rule links its docs/rules.md anchor and carries help text
    assert r["helpUri"].endswith("#" + r["id"].lower()), r["helpUri"]
    assert r["help"]["text"] and r["help"]["markdown"]
assert run["artifacts"][0]["location"]["uri"]
nres = 0
for x in run["results"]:
    nres += 1
    assert x["ruleId"] in ids and drv["rules"][x["ruleIndex"]]["id"] == x["ruleId"]
    assert x["level"] in ("error", "warning", "note")
    assert x["message"]["text"]
    loc = x["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == run["artifacts"][0]["location"]["uri"]
    assert loc["logicalLocations"][0]["name"].startswith("frame ")
assert nres == sum(len(r["findings"]) for r in j["rules"])
assert run["invocations"][0]["exitCode"] == rc
root = ET.parse(up).getroot()
assert root.tag == "testsuite"
cases = root.findall("testcase")
assert len(cases) == len(ids) == int(root.get("tests"))
nfail = sum(1 for c in cases if c.find("failure") is not None)
assert nfail == int(root.get("failures"))
assert (nfail > 0) == (rc == 1), (nfail, rc)
PY
done
[ "$ncap" -ge 17 ] && ok || bad "expected the bundled captures, found $ncap"
for cap in "$S"/captures/audit_*clean*.pcapng "$S"/captures/cfg9_coherent.pcapng; do
    [ -f "$cap" ] || continue
    "$U" -r "$cap" -q --audit > /dev/null; rc=$?
    [ $rc -eq 0 ] && ok || bad "$(basename "$cap"): clean capture, --audit exit $rc"
done
if [ -f "$tmp/multi.j1.txt" ]; then
    grep -q '^error ' "$tmp/multi.j1.txt" && grep -Eq 'UB-T[PA]-' "$tmp/multi.j1.txt" && ok || bad "multi-pair capture: expected transport/transaction findings"
    grep -q '^RTP 0x' "$tmp/multi.j1.txt" && ok || bad "multi-pair capture: -z ub,tp rows"
fi
# junit with --fail-on never has no failures
if [ $have_py = 1 ]; then
    "$U" -r "$M" --audit-format junit --fail-on never > "$tmp/never.xml"; rc=$?
    [ $rc -eq 0 ] && python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); assert r.get("failures") == "0" and not r.findall(".//failure")' "$tmp/never.xml" && ok || bad "junit --fail-on never"
fi

# ---------------------------------------------------------------- report placement
"$U" -r "$M" --audit-format sarif --audit-output "$tmp/out.sarif" > "$tmp/pk.txt"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/pk.txt")" -eq 10 ] && ok || bad "--audit-output: exit $rc, $(wc -l < "$tmp/pk.txt") packet lines"
cmp -s "$tmp/out.sarif" "$tmp/malformed.j1.sarif" && ok || bad "--audit-output file differs from the stdout report"
"$U" -r "$M" --audit-format json -z ub,cfg > "$tmp/so.json" 2> "$tmp/se.txt"
[ $have_py = 0 ] || { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/so.json" && grep -q 'ub,cfg' "$tmp/se.txt" && ok || bad "json report on stdout must be alone (-z goes to stderr)"; }
"$U" -r - -q --audit < "$M" > "$tmp/stdin.txt"; rc=$?
[ $rc -eq 1 ] && ok || bad "audit from stdin: exit $rc"
grep -q '^UB audit of -:' "$tmp/stdin.txt" && ok || bad "audit from stdin: header"
sed '/^UB audit of/d' "$tmp/stdin.txt" > "$tmp/stdin.rep"
sed '/^UB audit of/d' "$tmp/mal.txt" > "$tmp/file.rep"
cmp -s "$tmp/stdin.rep" "$tmp/file.rep" && ok || bad "audit from stdin differs from the file's"
# the audit sees every packet: -Y changes the printed packets, not the report
"$U" -r "$M" --audit -Y 'ub.btah' > "$tmp/y.txt"
"$U" -r "$M" --audit > "$tmp/noy.txt"
sed -n '/^UB audit of/,$p' "$tmp/y.txt" > "$tmp/y.rep"
sed -n '/^UB audit of/,$p' "$tmp/noy.txt" > "$tmp/noy.rep"
cmp -s "$tmp/y.rep" "$tmp/noy.rep" && [ -s "$tmp/y.rep" ] && ok || bad "-Y changed the audit report"
[ "$(sed -n '/^UB audit of/q;p' "$tmp/y.txt" | grep -c '^ ')" -lt "$(sed -n '/^UB audit of/q;p' "$tmp/noy.txt" | grep -c '^ ')" ] && ok || bad "-Y did not select packets with --audit"

# ---------------------------------------------------------------- -Y display filters
C9=$S/captures/cfg9_coherent.pcapng
out=$("$U" -r "$C9" -Y 'ub.btah.taopcode == "Read"')
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -q '^ *3 ' && ok || bad "-Y Read on cfg9_coherent: '$out'"
yf() { "$U" -r "$1" -T fields -e frame.number -Y "$2" | tr '\n' ' ' | sed 's/ $//'; }
v=$(yf "$C9" 'ub.btah.ini_tassn >= 3'); [ "$v" = "5 7" ] && ok || bad "-Y >=: '$v'"
v=$(yf "$C9" 'ub.atah && !(ub.atah.taopcode == "TAACK")'); [ "$v" = "4" ] && ok || bad "-Y && !: '$v'"
v=$(yf "$C9" 'ub.lph.vl == 1 or frame.number == 6'); [ "$v" = "3 4 6" ] && ok || bad "-Y or frame.number: '$v'"
v=$(yf "$M" 'ub.error == "bcrc_bad"'); [ "$v" = "1 4 9" ] && ok || bad "-Y ub.error: '$v'"
v=$(yf "$M" 'ub.icrc.status == "Bad"'); [ "$v" = "2" ] && ok || bad "-Y icrc status: '$v'"
v=$(yf "$S/captures/cfg7_rtp.pcapng" 'ub.rtph.psn == 18'); [ "$v" = "3 5 6" ] && ok || bad "-Y psn: '$v'"
n=$("$U" -r "$C9" -T json -Y 'ub.maetah' | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))' 2>/dev/null)
[ $have_py = 0 ] || { [ "$n" = 4 ] && ok || bad "-Y with -T json: $n packets"; }
c=$("$U" -r "$C9" -V -Y 'ub.beetah' | grep -c '^ *5 ')
[ "$c" -eq 1 ] && ok || bad "-Y with -V"
"$U" -r "$C9" -Y 'ub.btah.taopcode == "Reed"' > /dev/null 2> "$tmp/yerr"; rc=$?
[ $rc -eq 2 ] && grep -q 'column 21' "$tmp/yerr" && grep -q '\^' "$tmp/yerr" && ok || bad "bad -Y: exit $rc, '$(cat "$tmp/yerr")'"
"$U" -r "$C9" -Y 'ub.nosuch' > /dev/null 2>&1; rc=$?; [ $rc -eq 2 ] && ok || bad "unknown -Y field: exit $rc"
v=$("$U" -r "$C9" -Y 'ub.atah' -c 3 | wc -l); [ "$v" -eq 1 ] && ok || bad "-Y with -c 3 printed $v lines"

# ---------------------------------------------------------------- -z
"$U" -r "$S/captures/cfg7_rtp.pcapng" -q -z ub,cfg -z ub,tp -z ub,srt -z ub,latency -z ub,mgmt > "$tmp/z.txt"; rc=$?
[ $rc -eq 0 ] && ok || bad "-z: exit $rc"
for h in '(-z ub,cfg)' '(-z ub,tp)' '(-z ub,latency)' '(-z ub,mgmt)' 'UB SRT Statistics:'; do
    grep -qF "$h" "$tmp/z.txt" && ok || bad "-z output lacks $h"
done
grep -q '^  CFG 7  *[1-9]' "$tmp/z.txt" && grep -q '0x01 RTP data' "$tmp/z.txt" && grep -q 'Send_with_immediate' "$tmp/z.txt" && ok || bad "-z ub,cfg counts"
grep -q '^RTP 0x010203:0x101 -> 0x0a0b0c:0x202 ' "$tmp/z.txt" && ok || bad "-z ub,tp channel row"
"$U" -r "$C9" -q -z ub,latency > "$tmp/srt.txt"
grep -q '^Read (0x06) *1 ' "$tmp/srt.txt" && grep -q '##' "$tmp/srt.txt" && ok || bad "-z ub,latency: Read latency row and histogram"
"$U" -r "$C9" -q -z ub,srt > "$tmp/srtws.txt"
grep -q '^    6  0x06 Read                   1   0\.' "$tmp/srtws.txt" && grep -qx 'UB SRT Statistics:' "$tmp/srtws.txt" && ok || bad "-z ub,srt: tshark's SRT row for Read"
"$U" -r "$S/captures/cfg6_mgmt.pcapng" -q -z ub,mgmt > "$tmp/mg.txt"
grep -q 'Configuration Message (0x02) *1 ' "$tmp/mg.txt" && ok || bad "-z ub,mgmt: configuration message row"

# ---------------------------------------------------------------- usage errors
for args in "--fail-on bogus" "--audit-format xml" "-j 0" "-j 65" "-z ub,nope" "--max-channels 0" "--response-timeout x"; do
    # shellcheck disable=SC2086
    "$U" -r "$C9" $args > /dev/null 2>&1; rc=$?
    [ $rc -eq 2 ] && ok || bad "'$args': exit $rc, want 2"
done
"$U" -r "$tmp/nonexistent.pcap" --audit > /dev/null 2>&1; rc=$?; [ $rc -eq 2 ] && ok || bad "missing file with --audit: exit $rc"
"$U" -r "$C9" -q --audit --response-timeout 0.01 --expect-taack --gaps-are-notes --max-links 4 --max-channels 16 --max-transactions 16 --max-mgmt 16 > /dev/null; rc=$?
[ $rc -le 1 ] && ok || bad "engine options: exit $rc"

ub_check_done
