#!/bin/sh
# ubdump -T json / -T ek name the layers Wireshark dissects itself (Ethernet, VLAN, IPv4, IPv6, UDP,
# TCP, ARP; undecoded bytes outside UB as "data") with Wireshark's layer keys and field names (libubparse/src/wsnames.c, the filter's table):
# on every bundled capture with such layers, each key ubdump emits there exists in tshark's JSON of
# the same frame, at the same place (inside the same "<name>_tree"), with the same value, and the
# frames have the same layer keys; -T ek the same with tshark's flattened keys and booleans. Every
# -T ek line of every capture parses as JSON: an index line and a document with "layers".
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
fail() { echo "FAIL: $*"; exit 1; }
. "$S/tests/tshark_setup.sh"

# the exact layers of one UBoE frame (uboe frame 1: Ethernet, 802.1Q, IPv4, UDP)
got=$("$U" -r "$C/uboe.pcapng" -T ek -c 1 | tail -1 | python3 -c '
import json, sys
l = json.load(sys.stdin)["layers"]
print(sorted(l))
for p in ("eth", "vlan", "ip", "udp"):
    print(p, " ".join("%s=%s" % kv for kv in l[p].items()))')
want="['eth', 'frame', 'ip', 'ub', 'udp', 'vlan']
eth eth_eth_dst=02:00:00:00:00:02 eth_eth_src=02:00:00:00:00:01 eth_eth_type=0x8100
vlan vlan_vlan_priority=3 vlan_vlan_dei=False vlan_vlan_id=100 vlan_vlan_etype=0x0800
ip ip_ip_version=4 ip_ip_hdr_len=20 ip_ip_dsfield=0x00 ip_ip_dsfield_dscp=0 ip_ip_dsfield_ecn=0 ip_ip_len=196 ip_ip_id=0x0000 ip_ip_flags=0x02 ip_ip_flags_rb=False ip_ip_flags_df=True ip_ip_flags_mf=False ip_ip_frag_offset=0 ip_ip_ttl=64 ip_ip_proto=17 ip_ip_checksum=0xb6d5 ip_ip_src=192.168.1.1 ip_ip_dst=192.168.1.2
udp udp_udp_srcport=51000 udp_udp_dstport=4792 udp_udp_length=176 udp_udp_checksum=0x0000"
[ "$got" = "$want" ] || { printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; fail "uboe frame 1 -T ek layers"; }

n=0
for cap in "$C"/*.pcapng; do
    name=$(basename "$cap" .pcapng)
    o=
    case $name in noncrc) o=--noncrc ;; esac
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -T ek > "$tmp/u.ek" 2> "$tmp/u.err"
    python3 - "$tmp/u.ek" <<'PY' || fail "$name: -T ek lines"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and len(lines) % 2 == 0, len(lines)
for i in range(0, len(lines), 2):
    a, b = json.loads(lines[i]), json.loads(lines[i + 1])
    assert list(a) == ["index"] and a["index"]["_type"] == "doc" and a["index"]["_index"].startswith("packets-"), a
    assert list(b) == ["timestamp", "layers"] and "frame" in b["layers"], list(b)
PY
    grep -q '"\(eth\|ip\|ipv6\|udp\|tcp\|arp\)":{' "$tmp/u.ek" || continue
    n=$((n + 1))
    cp "$cap" "$tmp/cap.pcapng"
    chmod a+r "$tmp/cap.pcapng"
    ts -r "$tmp/cap.pcapng" -T json > "$tmp/t.json" 2> /dev/null
    ts -r "$tmp/cap.pcapng" -T ek > "$tmp/t.ek" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -T json > "$tmp/u.json" 2> "$tmp/u.err"
    python3 - "$tmp/u.json" "$tmp/t.json" "$tmp/u.ek" "$tmp/t.ek" <<'PY' || fail "$name: Wireshark's layers differ from tshark"
import json, sys
WS = ("eth", "vlan", "ip", "ipv6", "udp", "tcp", "arp")
load = lambda p: json.load(open(p), object_pairs_hook=lambda kv: kv)  # repeated keys kept
def layers(doc):
    return dict(dict(dict(doc)["_source"]))["layers"]
def pairs(obj, path, out):
    for k, v in obj:
        if isinstance(v, list): pairs(v, path + (k,), out)
        else: out.append((path + (k,), v))
    return out
ub, ts = load(sys.argv[1]), load(sys.argv[2])
assert len(ub) == len(ts), (len(ub), len(ts))
checked = 0
for a, b in zip(ub, ts):
    la, lb = layers(a), layers(b)
    frame = dict(dict(la)["frame"])["frame.number"]
    ka, kb = [k for k, _ in la if k in WS], [k for k, _ in lb if k in WS]
    assert ka == kb, (frame, ka, kb)
    # undecoded bytes: where both show the same layers ending in "data" (tshark may dissect further:
    # dns, infiniband, ...)
    da, db = [v for k, v in la if k == "data"], [v for k, v in lb if k == "data"]
    if da and [k for k, _ in la] == [k for k, _ in lb]:
        assert pairs(da[0], ("data",), []) == [kv for kv in pairs(db[0], ("data",), []) if kv[0][-1] != "data.len"], (frame, da, db)
        checked += 1
    for (pa, va), (pb, vb) in zip([kv for kv in la if kv[0] in WS], [kv for kv in lb if kv[0] in WS]):
        have = set(pairs(vb, (pb,), []))
        for kv in pairs(va, (pa,), []):
            assert kv in have, (frame, kv, [h for h in have if h[0] == kv[0]][:40])
            checked += 1
# -T ek: flattened keys, booleans as tshark's
ue = [json.loads(l) for l in open(sys.argv[3]).read().splitlines()[1::2]]
te = [json.loads(l) for l in open(sys.argv[4]).read().splitlines()[1::2]]
assert len(ue) == len(te), (len(ue), len(te))
for a, b in zip(ue, te):
    ka, kb = [k for k in a["layers"] if k in WS], [k for k in b["layers"] if k in WS]
    assert ka == kb, (a["layers"]["frame"]["frame_frame_number"], ka, kb)
    for p in ka:
        for k, v in a["layers"][p].items():
            assert b["layers"][p].get(k, "MISSING") == v, (p, k, v, b["layers"][p].get(k, "MISSING"))
            checked += 1
assert checked > 0
print(checked)
PY
done
[ "$n" = 9 ] || fail "captures with Wireshark-dissected layers: $n, want 9"

# Raw flit-stream records (pcapng interfaces of link type 149, the plugin's default dlt.stream): one
# document per frame as tshark, the units the frame completes nested under ub.stream.unit_tree (-T ek:
# "ub" an array of the units), ub.stream.started_in / open_bytes as the plugin's one pass shows them.
# Every key ubdump emits exists in tshark's document at the same place (repeated keys by occurrence)
# with the same value, and every ub.* key tshark emits ubdump emits too. Exceptions (not emitted by
# ubdump -T json|ek): ub.analysis.* and the expert items under it (_ws.expert) - the plugin's
# protocol-state analysis; header presence keys of -T ek ("ub_ub_lch": null).
ns=0
for cap in "$C"/*.pcapng; do
    name=$(basename "$cap" .pcapng)
    python3 - "$cap" <<'PY' || continue
import struct, sys
b = open(sys.argv[1], "rb").read()
i, lts = 0, []
while i + 12 <= len(b):
    t, l = struct.unpack_from("<II", b, i)
    if t == 1: lts.append(struct.unpack_from("<H", b, i + 8)[0])
    if l < 12: break
    i += l
sys.exit(0 if 149 in lts else 1)
PY
    ns=$((ns + 1))
    cp "$cap" "$tmp/cap.pcapng"
    chmod a+r "$tmp/cap.pcapng"
    ts -r "$tmp/cap.pcapng" -T json > "$tmp/t.json" 2> /dev/null
    ts -r "$tmp/cap.pcapng" -T ek > "$tmp/t.ek" 2> /dev/null
    "$U" -r "$cap" -T json > "$tmp/u.json" 2> "$tmp/u.err"
    "$U" -r "$cap" -T ek > "$tmp/u.ek" 2> "$tmp/u.err"
    python3 - "$tmp/u.json" "$tmp/t.json" "$tmp/u.ek" "$tmp/t.ek" <<'PY' || fail "$name: raw flit-stream documents differ from tshark"
import json, sys
load = lambda p: json.load(open(p), object_pairs_hook=lambda kv: kv)  # repeated keys kept
def layers(doc):
    return dict(dict(dict(doc)["_source"]))["layers"]
def pairs(obj, path, out):  # (path of "key#occurrence", value)
    seen = {}
    for k, v in obj:
        seen[k] = seen.get(k, 0) + 1
        p = path + ("%s#%d" % (k, seen[k]),)
        if isinstance(v, list): pairs(v, p, out)
        else: out.append((p, v))
    return out
EXCEPT = lambda p: any(x.startswith(("ub.analysis", "_ws.expert")) for x in p)
ub, ts = load(sys.argv[1]), load(sys.argv[2])
assert len(ub) == len(ts), ("documents", len(ub), len(ts))
checked = 0
for a, b in zip(ub, ts):
    la, lb = layers(a), layers(b)
    frame = dict(dict(la)["frame"])["frame.number"]
    assert frame == dict(dict(lb)["frame"])["frame.number"], (frame, dict(dict(lb)["frame"])["frame.number"])
    assert [k for k, _ in la] == [k for k, _ in lb], (frame, [k for k, _ in la], [k for k, _ in lb])
    pa = pairs([kv for kv in la if kv[0] != "frame"], (), [])
    pb = pairs([kv for kv in lb if kv[0] != "frame"], (), [])
    have, keys = set(pb), set(p for p, _ in pa)
    for kv in pa:
        assert kv in have, (frame, kv, [h for h in pb if h[0][-1] == kv[0][-1]][:4])
        checked += 1
    for p, v in pb:
        if p[-1].startswith("ub.") and not EXCEPT(p):
            assert p in keys, (frame, "tshark only", p, v)
# -T ek: index line + document, same count; the flattened "ub" (units: an array of objects)
def flat(o, path, out):
    if isinstance(o, dict):
        for k, v in o.items(): flat(v, path + (k,), out)
    elif isinstance(o, list) and o and isinstance(o[0], dict):
        for i, v in enumerate(o): flat(v, path + (i,), out)
    else: out[path] = o
    return out
ue, te = open(sys.argv[3]).read().splitlines(), open(sys.argv[4]).read().splitlines()
assert len(ue) == len(te), ("-T ek lines", len(ue), len(te))
for i in range(0, len(ue), 2):
    assert list(json.loads(ue[i])) == ["index"], ue[i]
    a, b = json.loads(ue[i + 1])["layers"], json.loads(te[i + 1])["layers"]
    assert list(a) == list(b), (list(a), list(b))
    fa, fb = flat(a["ub"], (), {}), flat(b["ub"], (), {})
    for k, v in fa.items():
        assert fb.get(k, "MISSING") == v, (a["frame"]["frame_frame_number"], k, v, fb.get(k, "MISSING"))
        checked += 1
    for k, v in fb.items():
        if v is not None and not any(str(x).startswith(("ub_ub_analysis", "_ws_expert")) for x in k):
            assert k in fa, (a["frame"]["frame_frame_number"], "tshark only", k, v)
assert checked > 0
PY
    # -Y (a frame matches when tshark would select it) and -c: the same frames
    for y in "-Y ub.nob" "-Y ub.lph" "-Y ub.stream.started_in" "-Y ub.stream.open_bytes" "-c 5" "-Y ub.init_block -c 3" \
             "-Y ub.btah.taopcode==3" "-Y frame.number>=3&&!ub.lph"; do
        for T in json ek; do
            # shellcheck disable=SC2086
            ts -r "$tmp/cap.pcapng" -T $T $y > "$tmp/t.y" 2> /dev/null
            # shellcheck disable=SC2086
            "$U" -r "$cap" -T $T $y > "$tmp/u.y" 2> "$tmp/u.err"
            python3 - "$tmp/u.y" "$tmp/t.y" $T <<'PY' || fail "$name: -T $T $y: frames differ from tshark"
import json, sys
def frames(p, T):
    if T == "json": return [d["_source"]["layers"]["frame"]["frame.number"] for d in json.load(open(p))]
    return [json.loads(l)["layers"]["frame"]["frame_frame_number"] for l in open(p).read().splitlines()[1::2]]
a, b = frames(sys.argv[1], sys.argv[3]), frames(sys.argv[2], sys.argv[3])
assert a == b, (a, b)
PY
        done
    done
done
[ "$ns" = 2 ] || fail "captures with raw flit-stream records: $ns, want 2"
# explicit values: audit_nob's 19 records complete 51 units; frame 2 completes 4 (the first started in frame 1)
got=$("$U" -r "$C/audit_nob.pcapng" -T ek | python3 -c '
import json, sys
d = [json.loads(l)["layers"]["ub"] for l in sys.stdin.read().splitlines()[1::2]]
u = lambda x: x.get("ub_ub_stream_unit", [])
print(len(d), sum(len(u(x)) if isinstance(u(x), list) else 1 for x in d), d[0], d[1]["ub_ub_stream_started_in"], u(d[1]), len(d[1]["ub"]))')
want="19 51 {'ub_ub_stream_open_bytes': '80'} 1 ['1', '2', '3', '4'] 4"
[ "$got" = "$want" ] || fail "audit_nob -T ek: got '$got', want '$want'"
echo "t_ws_json: ok ($n captures with Wireshark's layers, $ns with raw flit streams)"
