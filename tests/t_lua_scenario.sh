#!/bin/sh
# shellcheck disable=SC2015  # "ok || bad": ok never fails
# Lua scenarios (ubreplay --scenario FILE.lua) against ubpeer over UDP on the loopback (no privileges):
#   lua/write_read.lua passes (4 rounds, 12 expectations); with ubpeer's wrong-opcode knob it fails
#     with UB-TA-004 and UB-SC-001 at the line of the Read_response expect() (SARIF location)
#   lua/tpnak_recovery.lua (a send dropped by the script's own fault) passes; with the duplicate knob
#     it fails with UB-TA-003
#   a hostile scenario (os.execute) is refused at load; a script without scenario() is a usage error;
#     check() raises UB-SC-005 at its line
# Only loopback addresses are used.
set -u
: "${UBREPLAY:?}" "${UBPEER:?}"
S=${UB_SOURCE_DIR:?}
. "$S/tests/peer_lib.sh"
peer_test_init t_lua_scenario
# run NAME WANT_RC SCRIPT [FAULT] [ubreplay args...]
run() {
    name=$1 want=$2 script=$3 fault=$4
    shift 4
    udp_peer "$name" "$fault" || { bad "$name: ubpeer did not start"; return; }
    # wide default windows: the machine may be loaded (timing is not what these tests judge)
    "$UBREPLAY" --udp "127.0.0.1:$PORT" --scenario "$script" --within 500ms --tol 100ms "$@" > "$tmp/$name.out" 2>&1
    rc=$?
    stop_peer
    [ "$rc" -eq "$want" ] && ok || { bad "$name: exit $rc, want $want"; cat "$tmp/$name.out"; }
}

WR=$S/lua/write_read.lua
run wr 0 "$WR" ""
[ "$(grep -c 'bytes at 0x10[0-9a-f]* written and read back' "$tmp/wr.out")" -eq 4 ] && ok || bad "wr: not 4 rounds"
grep -q 'expectations 12 met of 12' "$tmp/wr.out" && ok || bad "wr: expectations"
grep -q '^round 2: 16 bytes at 0x1040 written and read back$' "$tmp/wr.out" && ok || bad "wr: round 2 address"
run wr3 0 "$WR" "" --var base=0x8000 --var rounds=2
grep -q '^round 2: 16 bytes at 0x8040 written and read back$' "$tmp/wr3.out" && ok || bad "wr3: --var base/rounds"
grep -q 'expectations 6 met of 6' "$tmp/wr3.out" && ok || bad "wr3: expectations"

run wr_op 1 "$WR" "wrong-opcode:nth=2" --report sarif --report-output "$tmp/wr_op.sarif"
grep -q '^round 1: no Read_response (mismatch)$' "$tmp/wr_op.out" && ok || bad "wr_op: branch on the failed expect"
line=$(grep -n 'Read_response" && ub.atah.ini_tassn' "$WR" | cut -d: -f1)
python3 - "$tmp/wr_op.sarif" "$line" <<'PY' && ok || bad "wr_op: SARIF without UB-TA-004 and UB-SC-001 at write_read.lua:$line"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
res = runs[0]["results"]
ids = {r["ruleId"] for r in res}
assert "UB-TA-004" in ids, ids
hits = [loc["physicalLocation"] for r in res if r["ruleId"] == "UB-SC-001" for loc in r["locations"]
        if "physicalLocation" in loc]
assert any(p["artifactLocation"]["uri"].endswith("write_read.lua") and p["region"]["startLine"] == int(sys.argv[2])
           for p in hits), hits
PY

TR=$S/lua/tpnak_recovery.lua
run tr 0 "$TR" ""
grep -q '^recovered: 4 Writes acknowledged once each$' "$tmp/tr.out" && ok || bad "tr: not recovered"
grep -q 'sent 9 packets' "$tmp/tr.out" && ok || bad "tr: sent count (one of 10 dropped by the script)"
grep -q 'expectations 9 met of 9' "$tmp/tr.out" && ok || bad "tr: expectations"
run tr_dup 1 "$TR" "duplicate:nth=1"
grep -E '^error +UB-TA-003' "$tmp/tr_dup.out" > /dev/null && ok || bad "tr_dup: no UB-TA-003"

# hostile / broken scripts
printf 'os.execute("touch %s/pwned")\nfunction scenario() end\n' "$tmp" > "$tmp/os.lua"
run os 2 "$tmp/os.lua" ""
[ ! -e "$tmp/pwned" ] && ok || bad "os.execute ran"
grep -q "global 'os'" "$tmp/os.out" && ok || bad "os: message"
printf 'function on_packet(p) end\n' > "$tmp/none.lua"
run none 2 "$tmp/none.lua" ""
grep -q 'no global function scenario()' "$tmp/none.out" && ok || bad "none: message"
printf 'function scenario()\n  sleep(0.001)\n  check(1 == 2, "one is not two")\nend\n' > "$tmp/chk.lua"
run chk 1 "$tmp/chk.lua" ""
grep -E '^error +UB-SC-005' "$tmp/chk.out" > /dev/null && ok || bad "chk: no UB-SC-005"
grep -q 'one is not two.*chk.lua:3' "$tmp/chk.out" && ok || bad "chk: not at chk.lua:3"

ub_check_done
