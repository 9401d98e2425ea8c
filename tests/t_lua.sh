#!/bin/sh
# ubdump --lua end to end: every lua/ example on captures built here from tests/lua/*.ub (exact
# output, findings at frames, related frames, exit statuses, SARIF results with the script location,
# -G rules), suppressing/re-rating built-in findings, --threads N, script errors as UB-LUA-001 findings, and
# hostile scripts stopped with a clear error (budget, memory, os.execute, load-time errors).
set -u
U=${UBDUMP:?}
G=${UBGEN:?}
S=${UB_SOURCE_DIR:?}
. "$S/tests/check_lib.sh"
ub_check_init t_lua
# expect NAME WANT-FILE GOT-FILE
same() {
    if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$2" "$3" | head -20; fi
}
# findings RULE JSON-REPORT: "frame severity [related...] | values" per finding of RULE, in report order
findings() {
    python3 - "$1" "$2" <<'PY'
import json, sys
rule, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
for r in d["rules"]:
    if r["id"] == rule:
        for f in r["findings"]:
            rel = " ".join(str(x) for x in f["frames"])
            print(f["frame"], f["severity"], ("[" + rel + "]") if rel else "", "|", " ".join(str(v) for v in f["values"]))
PY
}
count() { # RULE JSON -> count of the rule (0 if absent)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print(sum(r["count"] for r in d["rules"] if r["id"] == sys.argv[1]))' "$1" "$2"
}

for spec in watch outstanding naks; do
    "$G" -w "$tmp/$spec.pcapng" "$S/tests/lua/$spec.ub" || bad "ubgen $spec.ub"
done
cap() { echo "$tmp/$1.pcapng"; }

# ---------------------------------------------------------------- latency.lua
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --lua "$S/lua/latency.lua" > "$tmp/lat.txt" 2> "$tmp/lat.err"
[ $? = 0 ] && ok || bad "latency.lua exit status"
[ -s "$tmp/lat.err" ] && bad "latency.lua wrote to stderr: $(cat "$tmp/lat.err")"
cat > "$tmp/lat.want" <<'EOF'
47 records: 47 UB, 0 other (not UB)
latency per opcode (ns), request -> response
kind         opcode                        count        min        p50        p99        max       mean
management   Configuration Message             1     100000     100000     100000     100000     100000
management   Link Change Message               1      50000      50000      50000      50000      50000
management   query CNA                         1     100000     100000     100000     100000     100000
management   topology query                    1     100000     100000     100000     100000     100000
transaction  Atomic_fetch_add                  1      10000      10000      10000      10000      10000
transaction  Atomic_store                      1      10000      10000      10000      10000      10000
transaction  Read                              4      10000      10000      10000      10000      10000
transaction  Write                             7       5000       9000      10000      10000       8142
transport    TPACK/TPNAK                      12       3000       5000       5000       5000       4833
EOF
same "latency.lua output" "$tmp/lat.want" "$tmp/lat.txt"
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --lua "$S/lua/latency.lua" --lua-arg kind=management > "$tmp/lat2.txt"
[ "$(grep -c '^management' "$tmp/lat2.txt")" = 4 ] && [ "$(grep -c '^trans' "$tmp/lat2.txt")" = 0 ] && ok || bad "latency.lua kind=management"

# ---------------------------------------------------------------- addr_watch.lua (a script rule)
W="--lua $S/lua/addr_watch.lua --lua-arg lo=0x80001000 --lua-arg hi=0x80001fff"
# shellcheck disable=SC2086
"$U" -r "$(cap watch)" -q $W --audit-format json --audit-output "$tmp/w.json" > "$tmp/w.out"
[ $? = 1 ] && ok || bad "addr_watch: exit status 1 expected (errors at or above --fail-on error)"
findings LAB-ADDR-001 "$tmp/w.json" > "$tmp/w.got"
cat > "$tmp/w.want" <<'EOF'
2 error  | 2147487616 256
4 error  | 2147489792 8
7 error  | 2147491776 64
9 error  | 2147487681 64
EOF
same "addr_watch findings (frames 2, 4, 7, 9)" "$tmp/w.want" "$tmp/w.got"
# without --audit (text report) only the scripts' rules are reported (the capture has built-in notes)
# shellcheck disable=SC2086
"$U" -r "$(cap watch)" -q $W > "$tmp/w.txt"
grep -q '^error    LAB-ADDR-001  x4  write into a watched address range$' "$tmp/w.txt" && ! grep -q 'UB-TA-' "$tmp/w.txt" && ok ||
    bad "addr_watch without --audit: only the script rule"
# shellcheck disable=SC2086
"$U" -r "$(cap watch)" -q $W --audit --audit-format json > "$tmp/wa.json"
[ "$(count UB-TA-001 "$tmp/wa.json")" -gt 0 ] && [ "$(count LAB-ADDR-001 "$tmp/wa.json")" = 4 ] && ok || bad "addr_watch with --audit: built-in and script rules together"
[ "$(count UB-TA-001 "$tmp/w.json")" -gt 0 ] && ok || bad "a json report is an audit (--audit-format implies --audit)"
# SARIF: the rule in tool.driver.rules, 4 results at frames 2 4 7 9, located in the script too
# shellcheck disable=SC2086
"$U" -r "$(cap watch)" $W --audit-format sarif > "$tmp/w.sarif"
python3 - "$tmp/w.sarif" <<'PY' && ok || bad "addr_watch SARIF"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
assert "LAB-ADDR-001" in ids and "UB-LUA-001" in ids, ids
res = [r for r in run["results"] if r["ruleId"] == "LAB-ADDR-001"]
frames = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in res]
assert frames == [2, 4, 7, 9], frames
src = [l["physicalLocation"]["artifactLocation"]["uri"] for l in res[0]["locations"][1:]]
assert any(s.endswith("lua/addr_watch.lua") for s in src), res[0]["locations"]
assert all(r["level"] == "error" for r in res)
PY
# the second range is above 2^63: only frame 8
# shellcheck disable=SC2086
"$U" -r "$(cap watch)" -q --lua "$S/lua/addr_watch.lua" --lua-arg lo=0xfffffffffffff000 --lua-arg hi=0xffffffffffffffff \
    --audit-format json > "$tmp/w2.json"
[ "$(findings LAB-ADDR-001 "$tmp/w2.json" | cut -d' ' -f1 | tr '\n' ' ')" = "8 " ] && ok || bad "addr_watch above 2^63: want frame 8 only"
# a 3-packet Write (audit_txn_clean frames 22-24, 1024 bytes each at their own MAETAH.Address)
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --lua "$S/lua/addr_watch.lua" --lua-arg lo=0x80010800 --lua-arg hi=0x80010800 \
    --audit-format json > "$tmp/w3.json"
[ "$(findings LAB-ADDR-001 "$tmp/w3.json")" = "24 error  | 2147551232 1024" ] && ok || bad "addr_watch multi-packet Write: $(findings LAB-ADDR-001 "$tmp/w3.json")"
# --fail-on never: exit 0; -G rules lists the script rule after the catalogue
# shellcheck disable=SC2086
"$U" -r "$(cap watch)" -q $W --fail-on never > /dev/null && ok || bad "--fail-on never with script findings"
# shellcheck disable=SC2086
"$U" -G rules $W > "$tmp/rules.txt"
[ "$(tail -1 "$tmp/rules.txt" | cut -f1-3)" = "$(printf 'LAB-ADDR-001\tscript\terror')" ] && ok || bad "-G rules --lua: $(tail -1 "$tmp/rules.txt")"
[ "$(wc -l < "$tmp/rules.txt")" -eq "$(($("$U" -G rules | wc -l) + 2))" ] && ok || bad "-G rules --lua: catalogue + UB-LUA-001 + LAB-ADDR-001"
# a bad argument is a load error (exit 2) naming the script line
"$U" -r "$(cap watch)" -q --lua "$S/lua/addr_watch.lua" 2> "$tmp/werr.txt" > /dev/null
[ $? = 2 ] && grep -q 'addr_watch.lua:2[0-9]: addr_watch.lua needs --lua-arg lo=' "$tmp/werr.txt" && ok || bad "addr_watch without args: $(cat "$tmp/werr.txt")"

# ---------------------------------------------------------------- outstanding.lua
O="--lua $S/lua/outstanding.lua"
# shellcheck disable=SC2086
"$U" -r "$(cap outstanding)" -q $O --lua-arg limit=3 --audit-format json --audit-output "$tmp/o.json" > "$tmp/o.out"
[ $? = 0 ] && ok || bad "outstanding: warnings do not fail under --fail-on error"
findings LAB-OUT-001 "$tmp/o.json" > "$tmp/o.got"
printf '4 warning  | 4 3\n7 warning  | 4 3\n' > "$tmp/o.want"
same "outstanding limit=3 findings" "$tmp/o.want" "$tmp/o.got"
grep -q '^outstanding at end: 0x0102 3$' "$tmp/o.out" && grep -q '^outstanding at end: 0x0203 1$' "$tmp/o.out" && ok || bad "outstanding end lines: $(cat "$tmp/o.out")"
# shellcheck disable=SC2086
"$U" -r "$(cap outstanding)" -q $O --lua-arg limit=1 --lua-arg writes=1 --fail-on warning --audit-format json > "$tmp/o2.json" 2> "$tmp/o2.err"
[ $? = 1 ] && ok || bad "outstanding --fail-on warning: exit 1"
[ "$(findings LAB-OUT-001 "$tmp/o2.json" | cut -d' ' -f1 | tr '\n' ' ')" = "2 10 " ] && ok || bad "outstanding limit=1 writes=1: want frames 2 and 10"

# ---------------------------------------------------------------- tpnak_storm.lua
"$U" -r "$(cap naks)" -q --lua "$S/lua/tpnak_storm.lua" --audit-format json --audit-output "$tmp/n.json" > "$tmp/n.out"
findings LAB-NAK-001 "$tmp/n.json" > "$tmp/n.got"
printf '5 warning [2] | 3 1000000\n13 warning [11] | 3 1000000\n' > "$tmp/n.want"
same "tpnak_storm findings (frames 5, 13; related 2, 11)" "$tmp/n.want" "$tmp/n.got"
grep -qx 'TPNAK storms: 2' "$tmp/n.out" && ok || bad "tpnak_storm summary"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=[r for r in d["rules"] if r["id"]=="LAB-NAK-001"][0]["findings"][0]; assert f["keytext"]=="0x010203->0x0a0b0c TPN 0x101->0x202" and f["key"]=="TP channel", f' "$tmp/n.json" && ok || bad "tpnak_storm keytext"
"$U" -r "$(cap naks)" -q --lua "$S/lua/tpnak_storm.lua" --lua-arg count=4 --audit-format json > "$tmp/n4.json" 2> /dev/null
[ "$(findings LAB-NAK-001 "$tmp/n4.json" | cut -d' ' -f1 | tr '\n' ' ')" = "6 " ] && ok || bad "tpnak_storm count=4: want frame 6"

# ---------------------------------------------------------------- on_finding, ub.suppress, ub.rerate
L="$S/captures/audit_rtp_lossy.pcapng"
"$U" -r "$L" -q --audit --audit-format json > "$tmp/base.json"
cat > "$tmp/rerate.lua" <<'EOF'
ub.suppress("UB-TP-002")
local seen = 0
function on_finding(f)
    seen = seen + 1
    if f.rule == "UB-TP-004" then return false end          -- dropped
    if f.rule == "UB-TP-010" then f.severity = "note" end    -- re-rated
end
function on_end() print("seen", seen > 0) end
EOF
"$U" -r "$L" -q --audit --audit-format json --lua "$tmp/rerate.lua" > "$tmp/rr.json" 2> "$tmp/rr.err"
python3 - "$tmp/base.json" "$tmp/rr.json" <<'PY' && ok || bad "on_finding/ub.suppress: $(cat "$tmp/rr.err")"
import json, sys
b = {r["id"]: r for r in json.load(open(sys.argv[1]))["rules"]}
r = {r["id"]: r for r in json.load(open(sys.argv[2]))["rules"]}
fired = [k for k in ("UB-TP-002", "UB-TP-004", "UB-TP-010") if k in b]
assert fired, "the capture must fire some of the rules this test re-rates: " + " ".join(b)
assert "UB-TP-002" not in r and "UB-TP-004" not in r, list(r)
if "UB-TP-010" in b:
    assert r["UB-TP-010"]["count"] == b["UB-TP-010"]["count"] and r["UB-TP-010"]["note"] == b["UB-TP-010"]["count"]
for k in b:
    if k not in ("UB-TP-002", "UB-TP-004", "UB-TP-010"):
        assert r[k]["count"] == b[k]["count"], k
PY

# ---------------------------------------------------------------- --threads N
cat > "$tmp/report.lua" <<'EOF'
local rule = ub.rule{ id = "LAB-J-001", severity = "note", summary = "every Write" }
local op = ub.field("ub.btah.taopcode")
function on_packet(pkt) if op(pkt) == 3 then ub.report(rule, pkt, "write") end end
EOF
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --audit --audit-format json --lua "$tmp/report.lua" > "$tmp/j1.json"
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --audit --audit-format json --lua "$tmp/report.lua" --threads 2 > "$tmp/j2.json" 2> "$tmp/j2.err"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["rules"] == b["rules"] and any(r["id"] == "LAB-J-001" for r in a["rules"])' "$tmp/j1.json" "$tmp/j2.json" && ok || bad "--threads 2 with an on_packet script: same report as --threads 1"
[ -s "$tmp/j2.err" ] && bad "--threads 2 on_packet-only: unexpected note $(cat "$tmp/j2.err")"
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --lua "$S/lua/latency.lua" --threads 2 > "$tmp/lj.txt" 2> "$tmp/lj.err"
grep -q 'run in one engine: --threads 2 does not apply' "$tmp/lj.err" && ok || bad "--threads 2 with on_match: note on stderr"
tail -n +2 "$tmp/lat.want" > "$tmp/lat.body"
tail -n +2 "$tmp/lj.txt" > "$tmp/lj.body"
same "latency.lua with --threads 2" "$tmp/lat.body" "$tmp/lj.body"

# ---------------------------------------------------------------- Wireshark's names of the headers outside UB
# ub.field("ip.src") sees what -Y and -e see (ub_view_outer_layers, a plain IP part): typed values,
# both rows of ip.addr in header order (eth.addr: destination first), IPv6's ip.version, spans / scaled
# rows as integers, FT_BOOLEAN rows as booleans
cat > "$tmp/ws.lua" <<'EOF'
local src, addr, ver, flags = ub.field("ip.src"), ub.field("ip.addr"), ub.field("ip.version"), ub.field("ip.flags")
local hl, port, eaddr, df = ub.field("ip.hdr_len"), ub.field("udp.port"), ub.field("eth.addr"), ub.field("ip.flags.df")
local function s(...) local t = {} for i, v in ipairs({...}) do t[i] = tostring(v) end return table.concat(t, ",") end
function on_packet(pkt)
    print(pkt.frame, s(src(pkt)), s(addr(pkt)), s(ver(pkt)), s(flags(pkt)), s(hl(pkt)), s(port(pkt)), s(eaddr(pkt)),
          s(df(pkt)), tostring(pkt:has("ip.src")), src.abbrev, src.type)
end
EOF
"$U" -r "$S/captures/uboe.pcapng" -q --lua "$tmp/ws.lua" 2>&1 | head -3 > "$tmp/ws.got"
printf '%s\n' "1	192.168.1.1	192.168.1.1,192.168.1.2	4	2	20	51000,4792	02:00:00:00:00:02,02:00:00:00:00:01	true	true	ip.src	ipv4" \
    "2	192.168.1.2	192.168.1.2,192.168.1.1	4	2	20	51001,4792	02:00:00:00:00:01,02:00:00:00:00:02	true	true	ip.src	ipv4" \
    "3			6			51002,4792	02:00:00:00:00:02,02:00:00:00:00:01		false	ip.src	ipv4" > "$tmp/ws.want"
same "ub.field of Wireshark's names (uboe)" "$tmp/ws.want" "$tmp/ws.got"
"$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua "$tmp/ws.lua" 2>&1 | head -1 | cut -f2 > "$tmp/ws3.got"
echo "" > "$tmp/ws3.want" # UB's own IPv4 of a CFG 3 packet is ub.ipv4.src, not ip.src
same "ub.field(\"ip.src\") skips UB's own IP header" "$tmp/ws3.want" "$tmp/ws3.got"
printf 'local a, b = ub.field("ip.flags"), ub.field("ip.src")\nfunction on_packet(p) print(a.type, a.name, b.type, b.name) end\n' > "$tmp/ws4.lua"
[ "$("$U" -r "$S/captures/uboe.pcapng" -c 1 -q --lua "$tmp/ws4.lua" 2> /dev/null | head -1)" = "uint	ip.flags	ipv4	Source" ] && ok ||
    bad "ub.field of a span (ip.flags): type uint, named by its Wireshark name"
# frame.protocols: Wireshark's list as a string (as -e frame.protocols), on UBoE, IPv6 and a plain CFG 3 IP part
printf 'local pr = ub.field("frame.protocols")\nfunction on_packet(p) print(p.frame, pr(p), pr.type, tostring(p:has("frame.protocols"))) end\n' > "$tmp/ws5.lua"
{ "$U" -r "$S/captures/uboe.pcapng" -q --lua "$tmp/ws5.lua" 2> /dev/null; "$U" -r "$S/captures/cfg3_plain_ip.pcapng" -c 1 -q --lua "$tmp/ws5.lua" 2> /dev/null; } | grep -v ' records: ' > "$tmp/ws5.got"
printf '%s\n' "1	eth:ethertype:vlan:ethertype:ip:udp:ub	string	true" "2	eth:ethertype:vlan:ethertype:ip:udp:ub	string	true" \
    "3	eth:ethertype:ipv6:udp:ub	string	true" "1	ub:ip:tcp:data	string	true" > "$tmp/ws5.want"
same "ub.field(\"frame.protocols\")" "$tmp/ws5.want" "$tmp/ws5.got"
# ICMP / ICMPv6 (not UB): Wireshark's names
printf 'local t, s, i = ub.field("icmp.type"), ub.field("icmp.seq_le"), ub.field("icmpv6.echo.identifier")\nfunction on_packet(p) print(p.frame, t(p), s(p), i(p)) end\n' > "$tmp/ws6.lua"
"$U" -r "$S/captures/icmp.pcapng" -q --lua "$tmp/ws6.lua" 2> /dev/null | grep -v ' records: ' > "$tmp/ws6.got"
printf '%s\n' "1	8	256	nil" "2	0	256	nil" "3	8	2	nil" "4	13	1536	nil" "5	nil	nil	119" "6	nil	nil	119" "7	nil	nil	nil" "8	3	nil	nil" "9	11	nil	nil" \
    "10	nil	nil	nil" > "$tmp/ws6.want"
same "ub.field of ICMP / ICMPv6 names" "$tmp/ws6.want" "$tmp/ws6.got"

# ---------------------------------------------------------------- script errors and hostile scripts
cat > "$tmp/err.lua" <<'EOF'
function on_packet(pkt)
    if pkt.frame == 3 then local t = nil; return t.x end
end
EOF
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --lua "$tmp/err.lua" --audit-format json > "$tmp/e.json" 2> "$tmp/e.err"
[ $? = 1 ] && ok || bad "a script error fails the run (exit 1)"
grep -q "lua error in on_packet of $tmp/err.lua (frame 3): $tmp/err.lua:2: attempt to index a nil value (local 't')" "$tmp/e.err" && grep -q 'stack traceback' "$tmp/e.err" && ok || bad "script error message: $(cat "$tmp/e.err")"
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); r=[r for r in d["rules"] if r["id"]=="UB-LUA-001"][0]; f=r["findings"][0]
assert r["count"]==1 and f["frame"]==3 and f["source"]["line"]==2 and f["source"]["uri"].endswith("err.lua"), f' "$tmp/e.json" && ok || bad "UB-LUA-001 finding"
printf 'function on_packet(p) while true do end end\n' > "$tmp/loop.lua"
"$U" -r "$S/captures/audit_txn_clean.pcapng" -q --lua "$tmp/loop.lua" --lua-budget 100000 --lua-max-errors 2 > "$tmp/l.out" 2> "$tmp/l.err"
[ $? = 1 ] && grep -q 'loop.lua:1: instruction budget exceeded (100000 instructions per callback, --lua-budget)' "$tmp/l.err" &&
    grep -q 'on_packet of .*loop.lua disabled after 2 errors' "$tmp/l.err" && [ "$(grep -c 'lua error' "$tmp/l.err")" = 2 ] && ok || bad "infinite loop: $(head -3 "$tmp/l.err")"
grep -q 'UB-LUA-001  x2' "$tmp/l.out" && ok || bad "infinite loop: the text report shows UB-LUA-001 x2"
printf 'function on_packet(p) local t = {} for i = 1, 1e9 do t[i] = {} end end\n' > "$tmp/mem.lua"
"$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua "$tmp/mem.lua" --lua-memory 16 --lua-budget 0 --lua-max-errors 1 > /dev/null 2> "$tmp/m.err"
[ $? = 1 ] && grep -q "not enough memory: the script's memory limit was reached" "$tmp/m.err" && ok || bad "memory bomb: $(head -2 "$tmp/m.err")"
printf 'function on_packet(p) os.execute("touch %s/pwned") end\n' "$tmp" > "$tmp/os.lua"
"$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua "$tmp/os.lua" > /dev/null 2> "$tmp/os.err"
grep -q "os.lua:1: attempt to index a nil value (global 'os')" "$tmp/os.err" && [ ! -e "$tmp/pwned" ] && ok || bad "os.execute: $(head -1 "$tmp/os.err")"
printf 'local x = \n' > "$tmp/syntax.lua"
"$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua "$tmp/syntax.lua" > /dev/null 2> "$tmp/s.err"
[ $? = 2 ] && grep -q "syntax.lua:2: unexpected symbol near <eof>" "$tmp/s.err" && ok || bad "syntax error: $(cat "$tmp/s.err")"
"$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua-arg a=1 > /dev/null 2>&1
[ $? = 2 ] && ok || bad "--lua-arg without --lua is a usage error"
"$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua "$tmp/nonexistent.lua" > /dev/null 2> "$tmp/ne.err"
[ $? = 2 ] && grep -q 'cannot open' "$tmp/ne.err" && ok || bad "missing script"
# an error in on_finding while the end-of-capture findings are judged cannot be a finding any more: the run fails
printf 'function on_finding(f) if f.rule == "UB-TA-001" then error("late boom") end end\n' > "$tmp/late.lua"
"$U" -r "$(cap outstanding)" -q --lua "$tmp/late.lua" > /dev/null 2> "$tmp/late.err"
[ $? = 1 ] && grep -q 'late.lua:1: late boom' "$tmp/late.err" && grep -q 'Lua error(s) in hooks run at the end of the capture (not in the report): the run fails' "$tmp/late.err" && ok || bad "late on_finding errors: $(tail -2 "$tmp/late.err")"
# TP analysis where it would silently be empty: an error naming the fix
printf 'function on_packet(p) if p:analysis("retransmission") then n = (n or 0) + 1 end end\nfunction on_end() print("retx", n) end\n' > "$tmp/an.lua"
"$U" -r "$S/captures/audit_rtp_lossy.pcapng" -q --lua "$tmp/an.lua" > /dev/null 2> "$tmp/an.err"
[ $? = 1 ] && grep -q 'TP analysis needs the state engine: run ubdump with --audit' "$tmp/an.err" && ok || bad "pkt:analysis without the engine"
"$U" -r "$S/captures/audit_rtp_lossy.pcapng" -q --audit --threads 2 --lua "$tmp/an.lua" > /dev/null 2> "$tmp/an2.err"
grep -q 'TP analysis is per packet only with one engine' "$tmp/an2.err" && ok || bad "pkt:analysis with --threads 2"
[ "$("$U" -r "$S/captures/audit_rtp_lossy.pcapng" -q --audit --fail-on never --lua "$tmp/an.lua" | grep '^retx')" = "$(printf 'retx\t4')" ] && ok || bad "pkt:analysis with --audit: 4 retransmissions in audit_rtp_lossy"
# --lua-unsafe opens io/os
printf 'print(io ~= nil, os ~= nil)\n' > "$tmp/unsafe.lua"
[ "$("$U" -r "$S/captures/cfg3_ipv4.pcapng" -q --lua "$tmp/unsafe.lua" --lua-unsafe | head -1)" = "$(printf 'true\ttrue')" ] && ok || bad "--lua-unsafe"
# the generated reference is what -G lua prints
"$U" -G lua > "$tmp/ref.md"
grep -q '^| `ub.field(name) → f` |' "$tmp/ref.md" && grep -q '^| `pkt.frame` |' "$tmp/ref.md" && ok || bad "-G lua reference"
sed -n '/^<!-- generated by scripts\/gen-docs.sh/,$p' "$S/docs/lua.md" | tail -n +2 > "$tmp/doc.md"
same "docs/lua.md reference is up to date (scripts/gen-docs.sh)" "$tmp/ref.md" "$tmp/doc.md"

[ "$pass" -gt 0 ] || bad "no check ran"
ub_check_done
