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
echo "t_ws_json: ok ($n captures)"
