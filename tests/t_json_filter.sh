#!/bin/sh
# ubdump -T json|ek -j / -J (tshark's protocol match filter) against tshark + plugin on the same
# captures: an item with a subtree whose name is not listed is {"filtered": "<name>"} (-T ek: every
# item of a listed protocol that is not listed), -J lifts the filter inside a listed item, the last
# -j/-J gives the names. Compared item by item, in order, repeated keys kept: every key ubdump writes
# is tshark's next one of that name at the same place with the same value ("filtered" objects
# included); a key only tshark writes must be one tshark also writes without ubdump in the
# unfiltered documents of that capture (the fields ubdump does not emit: ip.addr, Timestamps, ...).
# Also: -j N is still the deprecated thread count, -j with -T text changes nothing (as tshark).
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
fail() { echo "FAIL: $*"; exit 1; }
. "$S/tests/tshark_setup.sh"

cat > "$tmp/cmp.py" <<'PY'
import json, sys
fmt, ub_path, ts_path, ub0_path, ts0_path = sys.argv[1:6]
def load(p):
    if fmt == "json":
        return [d for d in json.load(open(p), object_pairs_hook=lambda kv: kv)]
    return [json.loads(l, object_pairs_hook=lambda kv: kv) for l in open(p).read().splitlines()[1::2]]
def names(obj, out):
    if isinstance(obj, list):
        for x in obj:
            if isinstance(x, tuple):
                out.add(x[0]); names(x[1], out)
            else:
                names(x, out)
    return out
# keys tshark writes that ubdump never writes on this capture (unfiltered)
only_ts = names(load(ts0_path), set()) - names(load(ub0_path), set())
checked = 0
def cmp(a, b, path):
    global checked
    if not (isinstance(a, list) and isinstance(b, list)):
        assert a == b, (path, a, b)
        checked += 1
        return
    pa = all(isinstance(x, tuple) for x in a) and all(isinstance(x, tuple) for x in b)
    if not pa or not a and not b:  # arrays (ek's repeated keys): element by element
        assert len(a) == len(b), (path, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            cmp(x, y, path + (i,))
        return
    j = 0
    for k, v in a:
        while j < len(b) and b[j][0] != k:
            assert b[j][0] in only_ts, (path, "tshark has", b[j][0], "where ubdump has", k)
            j += 1
        assert j < len(b), (path, "ubdump has", k, "tshark does not")
        cmp(v, b[j][1], path + (k,))
        j += 1
    for k, _ in b[j:]:
        assert k in only_ts, (path, "tshark has", k)
ub, ts = load(ub_path), load(ts_path)
assert len(ub) == len(ts) > 0, (len(ub), len(ts))
for i, (x, y) in enumerate(zip(ub, ts)):
    cmp(x, y, (i + 1,))
print(checked)
PY

n=0
check() { # capture, then the -j/-J options
    cap=$1
    shift
    for fmt in json ek; do
        ts -r "$tmp/caps/$cap.pcapng" -T $fmt "$@" > "$tmp/t.out" 2> /dev/null
        "$U" -r "$C/$cap.pcapng" -T $fmt "$@" > "$tmp/u.out" 2> "$tmp/u.err" || fail "$cap -T $fmt $*: ubdump failed: $(cat "$tmp/u.err")"
        [ -s "$tmp/$cap.$fmt.t0" ] || {
            ts -r "$tmp/caps/$cap.pcapng" -T $fmt > "$tmp/$cap.$fmt.t0" 2> /dev/null
            "$U" -r "$C/$cap.pcapng" -T $fmt > "$tmp/$cap.$fmt.u0"
        }
        k=$(python3 "$tmp/cmp.py" $fmt "$tmp/u.out" "$tmp/t.out" "$tmp/$cap.$fmt.u0" "$tmp/$cap.$fmt.t0") ||
            fail "$cap -T $fmt $*: differs from tshark"
        [ "$k" -gt 0 ] || fail "$cap -T $fmt $*: nothing compared"
        grep -q '"filtered"' "$tmp/u.out" || fail "$cap -T $fmt $*: nothing filtered"
        n=$((n + 1))
    done
}
for c in uboe cfg7_rtp stream icmp_ub dllcb malformed audit_txn_clean; do cp "$C/$c.pcapng" "$tmp/caps/"; done
chmod a+r "$tmp"/caps/*
check uboe -j "ip udp"
check uboe -j "ip ip.flags ip.dsfield"      # tshark's example: ip.flags_tree expanded, frame.* filtered
check uboe -j "ub ub.rtph"
check uboe -J "ub"
check uboe -J "ip frame"
check uboe -j "frame frame.interface_id"
check uboe -j "ub ub.btah ub.analysis"
check uboe -j "ip" -J "ub"                   # the last names, -J's flag
check cfg7_rtp -j "ub ub.nth"
check cfg7_rtp -J "ub.nth ub"
check stream -j "ub ub.stream.unit"          # a raw flit stream: the units under ub.stream.unit_tree
check stream -j "ub ub.stream.unit ub.lph"
check stream -J "ub"
check stream -j "frame"                      # "ub" filtered: no unit written
check icmp_ub -j "icmp ub ip"
check dllcb -j "ub ub.dllcb"
check malformed -j "ub"
check audit_txn_clean -j "ub ub.analysis ub.btah"
echo "compared $n documents sets with tshark"

# the values, by hand (frame 1 of uboe): ip listed, its flags subtree not; ub filtered
got=$("$U" -r "$C/uboe.pcapng" -T json -j "ip" -c 1 | python3 -c '
import json, sys
l = json.load(sys.stdin)[0]["_source"]["layers"]
print(l["frame"], l["ip"]["ip.flags"], l["ip"]["ip.flags_tree"], l["ub"], sorted(l))')
want="{'filtered': 'frame'} 0x02 {'filtered': 'ip.flags'} {'filtered': 'ub'} ['eth', 'frame', 'ip', 'ub', 'udp', 'vlan']"
[ "$got" = "$want" ] || fail "-j ip: $got"
got=$("$U" -r "$C/uboe.pcapng" -T ek -j "ub ub.rtph" -c 1 | tail -1 | python3 -c '
import json, sys
u = json.load(sys.stdin)["layers"]["ub"]
print(u["ub_ub_rtph"], u["ub_ub_rtph_psn"], u["ub_ub_btah"])')
[ "$got" = "None {'filtered': 'ub.rtph.psn'} {'filtered': 'ub.btah'}" ] || fail "-T ek -j 'ub ub.rtph': $got"

# -j N: still the thread count of earlier versions (a warning); -j with -T text: nothing changes
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never -j 2 > "$tmp/j2.txt" 2> "$tmp/j2.err"
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never --threads 2 > "$tmp/t2.txt"
cmp -s "$tmp/j2.txt" "$tmp/t2.txt" || fail "-j 2 is not --threads 2"
[ "$(cat "$tmp/j2.err")" = "ubdump: warning: -j N is deprecated, use --threads N (-j PROTOCOLS is tshark's JSON protocol filter)" ] ||
    fail "-j 2 warning: $(cat "$tmp/j2.err")"
[ "$("$U" -r "$C/uboe.pcapng" -j ip)" = "$("$U" -r "$C/uboe.pcapng")" ] || fail "-j with -T text changed the output"
echo "PASS t_json_filter"
