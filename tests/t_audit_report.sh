#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# Audit results and reports end to end (ubdump on the shared audit session):
#   - never a silent PASS on lost state (issue #9 item 5): 5,000 never-answered requests through a
#     1,000-entry transaction table are INCOMPLETE (exit 3) in text, JSON, SARIF and JUnit, with --threads 1 and
#     --threads 2; the suggested --max-transactions makes it PASS; --fail-on never / --allow-incomplete; FAIL wins;
#   - SARIF for code scanning (issue #10 item 7): every report validates against the official SARIF
#     2.1.0 schema (tests/schemas/), region.startLine = frame, helpUri anchors exist in docs/rules.md,
#     partialFingerprints unique per run and independent of the working directory;
#   - -o NAME:VALUE and strict option values; raw flit streams of interface 32 not merged with interface 0.
set -u
U=${UBDUMP:?}
G=${UBGEN:?}
S=${UB_SOURCE_DIR:?}
case $U in /*) ;; *) U=$(pwd)/$U ;; esac # (some checks run in other directories)
case $G in /*) ;; *) G=$(pwd)/$G ;; esac
case $S in /*) ;; *) S=$(pwd)/$S ;; esac
. "$S/tests/check_lib.sh"
ub_check_init t_audit_report
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    echo "python3 with jsonschema is required (Debian: python3-jsonschema, scripts/deps.sh)"
    exit 1
fi

# ---------------------------------------------------------------- the issue's case at small scale
# 5,000 Writes with distinct TASSNs, 1 us apart, never answered (the capture is shorter than the
# response timeout, so the requests still in the table at the end are notes: before this change the
# run said PASS, exit 0, with 4,000 requests never judged)
gen_requests() { # requesters
    awk -v nreq="$1" 'BEGIN { print "@capture format=pcapng"
        for (i = 0; i < 5000; i++) {
            printf "@packet ts=0.%06d dir=out\nflit\nlph vl=0\nnth16 scna=0x%04x dcna=0x0304\n", 100 + i, 0x0102 + i % nreq
            printf "btah_c taopcode=Write ee_bits=1 ini_tassn=%d\nmaetah_c address=0x%x tokenid=0x12345 length=0\npayload inc=64\n", i, 4096 + 64 * i } }'
}
gen_requests 1 > "$tmp/inc.ub"
"$G" -w "$tmp/inc.pcapng" "$tmp/inc.ub" && ok || bad "ubgen inc.ub"
I="$tmp/inc.pcapng"
"$U" -r "$I" -q --audit --max-transactions 1000 > "$tmp/inc.txt"; rc=$?
[ $rc -eq 3 ] && ok || bad "INCOMPLETE text: exit $rc, want 3"
grep -qx "result: INCOMPLETE, no finding at or above 'error' but 4000 transactions evicted before they could be judged (peak live 1000): rerun with --max-transactions 5000" "$tmp/inc.txt" && ok || bad "INCOMPLETE result line: $(grep result: "$tmp/inc.txt")"
grep -qx "state evicted: 4000 entries before they could be judged: transactions 4000 (table bound 1000, peak live 1000, frames 1001..5000)" "$tmp/inc.txt" && ok || bad "state evicted line"
grep -q "frame 1001: outstanding transactions evicted before they were answered or timed out (never judged); table transactions; values 2, 4000, 1000; frames 5000" "$tmp/inc.txt" && ok || bad "UB-ST-001 real counts"
grep -q "UB-TA-001  x1000 " "$tmp/inc.txt" && ok || bad "the 1000 judged requests"
for fmt in json sarif junit; do
    "$U" -r "$I" --audit-format $fmt --max-transactions 1000 > "$tmp/inc.$fmt"; rc=$?
    [ $rc -eq 3 ] && ok || bad "INCOMPLETE $fmt: exit $rc, want 3"
done
python3 - "$tmp/inc.json" "$tmp/inc.sarif" "$tmp/inc.junit" <<'PY' && ok || bad "INCOMPLETE json/sarif/junit content"
import json, sys, xml.etree.ElementTree as ET
j = json.load(open(sys.argv[1]))
assert j["result"] == "incomplete" and j["exit_status"] == 3, (j["result"], j["exit_status"])
ev = j["evictions"]
assert ev["total"] == 4000 and ev["transactions"] == 4000, ev
assert all(v == 0 for k, v in ev.items() if k not in ("total", "transactions")), ev
assert "--max-transactions 5000" in j["incomplete"], j["incomplete"]
st = [r for r in j["rules"] if r["id"] == "UB-ST-001"][0]
assert st["count"] == 1 and st["findings"][0]["values"] == [2, 4000, 1000], st
s = json.load(open(sys.argv[2]))
run = s["runs"][0]
assert run["properties"]["result"] == "incomplete" and run["properties"]["evictions"]["transactions"] == 4000
inv = run["invocations"][0]
assert inv["exitCode"] == 3
n = inv["toolExecutionNotifications"][0]
assert n["level"] == "error" and n["message"]["text"].startswith("INCOMPLETE: 4000 transactions"), n
assert n["associatedRule"]["id"] == "UB-ST-001"
assert run["tool"]["driver"]["rules"][n["associatedRule"]["index"]]["id"] == "UB-ST-001"
root = ET.parse(sys.argv[3]).getroot()
assert root.get("errors") == "1" and root.get("failures") == "0", root.attrib
props = {p.get("name"): p.get("value") for p in root.find("properties")}
assert props["result"] == "INCOMPLETE" and props["evicted"] == "4000" and props["evicted.transactions"] == "4000", props
errs = [(c.get("name"), c.find("error")) for c in root.findall("testcase") if c.find("error") is not None]
assert len(errs) == 1 and errs[0][0].startswith("UB-ST-001") and errs[0][1].get("type") == "incomplete", errs
PY
# the suggested bound keeps them all: PASS
"$U" -r "$I" -q --audit --max-transactions 5000 > "$tmp/inc5k.txt"; rc=$?
[ $rc -eq 0 ] && grep -q "^result: PASS" "$tmp/inc5k.txt" && ! grep -q "UB-ST-001\|state evicted" "$tmp/inc5k.txt" && ok || bad "--max-transactions 5000: exit $rc"
# --fail-on never ignores it (exit 0, still said); --allow-incomplete accepts it (PASS, exit 0, still said)
"$U" -r "$I" -q --audit --max-transactions 1000 --fail-on never > "$tmp/never.txt"; rc=$?
[ $rc -eq 0 ] && grep -q "^result: findings reported, INCOMPLETE: 4000 transactions evicted .* (--fail-on never)$" "$tmp/never.txt" && ok || bad "--fail-on never: exit $rc"
"$U" -r "$I" -q --audit --max-transactions 1000 --allow-incomplete > "$tmp/allow.txt"; rc=$?
[ $rc -eq 0 ] && grep -q "^result: PASS, no finding at or above 'error'; INCOMPLETE accepted (--allow-incomplete): 4000 transactions" "$tmp/allow.txt" && grep -q "^state evicted: 4000" "$tmp/allow.txt" && ok || bad "--allow-incomplete: exit $rc"
"$U" -r "$I" --audit-format json --max-transactions 1000 --allow-incomplete | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["result"] == "pass" and d["exit_status"] == 0 and d["evictions"]["total"] == 4000' && ok || bad "--allow-incomplete json"
# FAIL wins (an extra request with a bad BCRC)
{ cat "$tmp/inc.ub"; printf '@packet ts=0.006000 dir=out xor=10:0x01\nflit\nlph vl=0\nnth16 scna=0x0999 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\nmaetah_c address=0x1000 tokenid=0x12345 length=0\npayload inc=64\n'; } > "$tmp/incf.ub"
"$G" -w "$tmp/incf.pcapng" "$tmp/incf.ub" && ok || bad "ubgen incf.ub"
"$U" -r "$tmp/incf.pcapng" -q --audit --max-transactions 1000 > "$tmp/incf.txt"; rc=$?
[ $rc -eq 1 ] && grep -q "^result: FAIL, " "$tmp/incf.txt" && grep -q "^also INCOMPLETE: " "$tmp/incf.txt" && ok || bad "FAIL + INCOMPLETE: exit $rc"
# --threads 2 (link engine in the main thread and in its own thread), one requester and two: still INCOMPLETE
gen_requests 2 > "$tmp/inc2.ub"
"$G" -w "$tmp/inc2.pcapng" "$tmp/inc2.ub" && ok || bad "ubgen inc2.ub"
for cap in "$I" "$tmp/inc2.pcapng"; do
    for lt in 0 1; do
        UBDUMP_LINK_THREAD=$lt "$U" -r "$cap" -q --audit --max-transactions 1000 --threads 2 > "$tmp/j2.txt" 2> "$tmp/j2.err"; rc=$?
        [ $rc -eq 3 ] && grep -q "^result: INCOMPLETE, no finding at or above 'error' but [0-9]* transactions evicted" "$tmp/j2.txt" && ok || bad "$(basename "$cap") --threads 2 (link thread $lt): exit $rc"
        grep -q "state tables overflowed" "$tmp/j2.err" && ok || bad "--threads 2: no note on standard error"
        for fmt in json junit; do
            UBDUMP_LINK_THREAD=$lt "$U" -r "$cap" --audit-format $fmt --max-transactions 1000 --threads 2 > "$tmp/j2.$fmt" 2>/dev/null; rc=$?
            [ $rc -eq 3 ] && ok || bad "--threads 2 $fmt: exit $rc"
        done
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["result"] == "incomplete" and d["evictions"]["transactions"] > 0' "$tmp/j2.json" && ok || bad "--threads 2 json"
    done
done
# one requester: --threads 2 puts every request on one worker, so the report is the --threads 1 report
"$U" -r "$I" -q --audit --max-transactions 1000 --threads 2 2>/dev/null | cmp -s - "$tmp/inc.txt" && ok || bad "--threads 2 one pair: report differs from --threads 1"

# ---------------------------------------------------------------- SARIF: schema and code-scanning shape
# run from the source tree with relative paths, as CI does (artifact URIs relative to SRCROOT)
for cap in "$S"/captures/*.pcapng; do
    o=""
    name=$(basename "$cap" .pcapng)
    case $name in noncrc) o=--noncrc ;; esac
    # shellcheck disable=SC2086
    (cd "$S" && "$U" $o -r "captures/$name.pcapng" --audit-format sarif) > "$tmp/$name.sarif"
done
# the same capture from another directory: fingerprints must not change
(cd "$tmp" && "$U" -r "$S/captures/malformed.pcapng" --audit-format sarif > "$tmp/malformed.other-cwd.json")
(cd "$tmp" && "$U" -r "inc.pcapng" --audit-format sarif --max-transactions 1000 > "$tmp/zz_incomplete_rel.sarif")
python3 - "$S/tests/schemas/sarif-schema-2.1.0.json" "$S/docs/rules.md" "$tmp" <<'PY' && ok || bad "SARIF schema / code-scanning checks"
import glob, json, os, re, sys
import jsonschema
schema_path, rules_md, d = sys.argv[1:4]
schema = json.load(open(schema_path))
V = jsonschema.validators.validator_for(schema)
V.check_schema(schema)
fc = jsonschema.FormatChecker()
# RFC 3986 characters (jsonschema checks "uri" only with rfc3987 installed)
URIREF = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*$")
@fc.checks("uri")
def is_uri(v):
    return not isinstance(v, str) or (URIREF.match(v) is not None and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", v) is not None)
@fc.checks("uri-reference")
def is_uriref(v):
    return not isinstance(v, str) or URIREF.match(v) is not None
validator = V(schema, format_checker=fc)
anchors = set(re.findall(r'<a id="([^"]+)"></a>', open(rules_md, encoding="utf-8").read()))
files = sorted(glob.glob(os.path.join(d, "*.sarif")))
assert len(files) >= 20, files
for f in files:
    s = json.load(open(f, encoding="utf-8"))
    errors = sorted(validator.iter_errors(s), key=lambda e: list(e.path))
    assert not errors, (f, [(list(e.path), e.message[:200]) for e in errors[:5]])
    run = s["runs"][0]
    base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
    assert base.startswith("file:///") and base.endswith("/"), base
    rules = run["tool"]["driver"]["rules"]
    for r in rules:
        frag = r["helpUri"].split("#", 1)[1]
        assert frag == r["id"].lower() and frag in anchors, (r["id"], r["helpUri"])
        assert r["help"]["text"] and r["help"]["markdown"]
    fps = set()
    art = run["artifacts"][0]["location"]
    if os.path.basename(f) == "inc.sarif":  # an absolute path outside the working directory (INCOMPLETE above)
        assert "uriBaseId" not in art and art["uri"].startswith("file:///") and art["uri"].endswith("/inc.pcapng"), art
    else:
        assert art["uriBaseId"] == "SRCROOT" and not art["uri"].startswith("/") and not art["uri"].startswith("file:"), art
    for x in run["results"]:
        loc = x["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == art["uri"] and loc["artifactLocation"].get("uriBaseId") == art.get("uriBaseId")
        assert loc["region"]["startLine"] == x["properties"]["frame"], x
        assert x["locations"][0]["logicalLocations"][0]["name"] == "frame %d" % x["properties"]["frame"]
        for rl in x.get("relatedLocations", []):
            assert rl["physicalLocation"]["region"]["startLine"] == int(rl["logicalLocations"][0]["name"].split()[1])
        fp = x["partialFingerprints"]["ubFindingHash/v1"]
        assert re.match(r"^[0-9a-f]{16}:[1-9][0-9]*$", fp), fp
        assert fp not in fps, ("duplicate fingerprint", f, fp)
        fps.add(fp)
# fingerprints do not depend on the working directory (the artifact URI does)
a = json.load(open(os.path.join(d, "malformed.sarif")))["runs"][0]["results"]
b = json.load(open(os.path.join(d, "malformed.other-cwd.json")))["runs"][0]["results"]
assert [x["partialFingerprints"] for x in a] == [x["partialFingerprints"] for x in b]
assert a[0]["locations"][0]["physicalLocation"]["artifactLocation"] != b[0]["locations"][0]["physicalLocation"]["artifactLocation"]
print("validated %d SARIF reports" % len(files))
PY

# ---------------------------------------------------------------- -o NAME:VALUE, strict values
C9=$S/captures/cfg9_coherent.pcapng
"$U" -r "$C9" -q -o dlt.flit:147 -o udp.port=0x12b8 -o tah_fmt.9:compact > /dev/null; rc=$?
[ $rc -eq 0 ] && ok || bad "-o NAME:VALUE: exit $rc"
"$U" -r "$C9" -T fields -e ub.btah.taopcode -o dlt.flit:147 | head -1 | grep -q '^0x03$' && ok || bad "-o dlt.flit:147 decodes"
"$U" -r "$C9" -T fields -e ub.btah.taopcode -o dlt.flit:150 | head -1 | grep -q '^$' && ok || bad "-o dlt.flit:150 switches the entry point"
for v in dlt.flit=4294967443 dlt.flit=99999999999 dlt.flit=-1 dlt.flit=12x dlt.flit= read_ext4=3 crc_mode=maybe nosuch=1 dlt.flit; do
    "$U" -r "$C9" -q -o "$v" > /dev/null 2> "$tmp/oerr"; rc=$?
    [ $rc -eq 2 ] && [ -s "$tmp/oerr" ] && ok || bad "-o $v: exit $rc, want 2"
done
"$U" -r "$C9" -q -o dlt.flit=4294967443 2>&1 | grep -q "out of range (0..65535)" && ok || bad "-o out of range message"

# ---------------------------------------------------------------- raw flit streams: interface 32 is not interface 0
# A Write DLLDP (6 flits) split over two records of interface 0, with a whole TAACK DLLDP on interface 32
# in between (same direction). Interface ids were once taken modulo 32, merging the two streams.
printf '@capture format=pcapng\n@packet ts=0.0001 dir=out\nflit\nlph vl=0\nnth16 scna=0x0102 dcna=0x0304\nbtah_c taopcode=Write ee_bits=1 ini_tassn=1\nmaetah_c address=0x1000 tokenid=0x12345 length=0\npayload inc=64\n@packet ts=0.0002 dir=out\nflit\nlph vl=0\nnth16 scna=0x0304 dcna=0x0102\natah_c taopcode=TAACK ini_tassn=5\n' > "$tmp/units.ub"
"$G" --hex "$tmp/units.ub" > "$tmp/units.hex" && ok || bad "ubgen --hex"
python3 - "$tmp/units.hex" "$tmp/if32.pcapng" <<'PY' && ok || bad "writing the interface-32 capture"
import struct, sys
w, a = [bytes.fromhex(l) for l in open(sys.argv[1]).read().split("\n") if l.strip()]
def block(t, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", t, n) + body + struct.pack("<I", n)
out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
for i in range(33):
    out += block(1, struct.pack("<HHI", 149, 0, 65535))
def epb(ifx, ts, data):
    body = struct.pack("<IIIII", ifx, ts >> 32, ts & 0xffffffff, len(data), len(data)) + data
    body += b"\0" * (-len(data) % 4)
    body += struct.pack("<HHI", 2, 4, 2) + struct.pack("<HH", 0, 0)  # epb_flags: outbound
    return block(6, body)
out += epb(0, 100, w[:40]) + epb(32, 200, a) + epb(0, 300, w[40:])
open(sys.argv[2], "wb").write(out)
PY
"$U" -r "$tmp/if32.pcapng" -T fields -e frame.number -e ub.btah.taopcode -e ub.atah.taopcode -e ub.btah.ini_tassn -e ub.atah.ini_tassn -e ub.error > "$tmp/if32.txt"; rc=$?
# one -T fields line per record, as tshark: record 1 completes no unit (issue #9 item 6)
printf '1\t\t\t\t\t\n2\t\t0x11\t\t5\t\n3\t0x03\t\t1\t\t\n' | cmp -s - "$tmp/if32.txt" && [ $rc -eq 0 ] && ok || { bad "interface 32 merged with interface 0 (exit $rc):"; cat "$tmp/if32.txt"; }

ub_check_done
