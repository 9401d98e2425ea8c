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
    grep -q '"\(eth\|ip\|ipv6\|udp\|tcp\|arp\|icmp\|icmpv6\)":{' "$tmp/u.ek" || continue
    n=$((n + 1))
    cp "$cap" "$tmp/cap.pcapng"
    chmod a+r "$tmp/cap.pcapng"
    ts -r "$tmp/cap.pcapng" -T json > "$tmp/t.json" 2> /dev/null
    ts -r "$tmp/cap.pcapng" -T ek > "$tmp/t.ek" 2> /dev/null
    [ -n "$o" ] || { cp "$tmp/t.json" "$tmp/ws.$name.json"; cp "$tmp/t.ek" "$tmp/ws.$name.ek"; } # reused below
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -T json > "$tmp/u.json" 2> "$tmp/u.err"
    python3 - "$tmp/u.json" "$tmp/t.json" "$tmp/u.ek" "$tmp/t.ek" <<'PY' || fail "$name: Wireshark's layers differ from tshark"
import json, sys
WS = ("eth", "vlan", "ip", "ipv6", "udp", "tcp", "arp", "icmp", "icmpv6")
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
        assert pairs(da[0], ("data",), []) == pairs(db[0], ("data",), []), (frame, da, db)
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
    # a protocol nested in one (the data of an ICMP echo): its members within tshark's
    sub = lambda x, y: all(k in y and sub(w, y[k]) for k, w in x.items()) if isinstance(x, dict) and isinstance(y, dict) else x == y
    for p in ka:
        for k, v in a["layers"][p].items():
            assert sub(v, b["layers"][p].get(k, "MISSING")), (p, k, v, b["layers"][p].get(k, "MISSING"))
            checked += 1
assert checked > 0
print(checked)
PY
done
[ "$n" = 11 ] || fail "captures with Wireshark-dissected layers: $n, want 11"

# The "ub" layer, on EVERY bundled capture: every key ubdump emits there exists in tshark's document
# of the same frame at the same place (repeated keys told apart by occurrence) with the same value,
# and every key tshark emits there ubdump emits too - UB headers, ub.error, the decoder errors' expert
# items (_ws.expert with ub.err.NAME, _ws.malformed) at their header, the plugin's hidden ub.cna /
# ub.eid / ub.analysis.tp_src|tp_dst|tp_endpoint, and its ub.analysis subtree (TP channel, expected
# PSN and sequence expert items, request/response and data/ack pairs with latency, findings with
# their expert item and related frames) as tshark's one pass shows it. -T ek: the "ub" layer equal to
# tshark's member for member, in order, repeated keys included (tshark's ek writer flattens each
# protocol's items, grouping same-named items of the same parent: header presence keys (null), the
# expert items as "_ws_expert" objects, text items, arrays).
# Raw flit-stream records (pcapng interfaces of link type 149, the plugin's default dlt.stream): one
# document per frame as tshark, the units the frame completes nested under ub.stream.unit_tree
# (-T ek: "ub" an array of the units), ub.stream.started_in / open_bytes as tshark's one pass.
# a CFG 3 flit-framed record: its plain IP part lies between UB headers (the flit padding and BCRC
# follow it); Wireshark's tree has one "ub" holding every UB header, then ip and tcp
cat > "$tmp/cfg3_flit.ub" <<'EOF'
@capture format=pcapng
@packet ts=0.001 dir=out
flit
lph vl=0
nthip npi_id=1
ipv4 src=10.0.0.1 dst=10.0.0.2 protocol=6
tcp srcport=45000 dstport=22 seq=1 ack=1 data_offset=5 flags=0x018 window=502
data inc=12
EOF
"${UBGEN:?}" -w "$tmp/x_cfg3_flit.pcapng" "$tmp/cfg3_flit.ub" > /dev/null || fail "ubgen cfg3_flit.ub"
# packet comments (two on frame 1: one "pkt_comment" layer, each with its expert item) and direction
# flags (the packet_flags subtree, frame.p2p_dir)
printf '%s\n' '@capture format=pcapng' '@packet ts=0.001 dir=in' flit 'lph vl=0' 'nth16 scna=0x0102 dcna=0x0304' \
    'btah_c taopcode=Write ini_tassn=1' '@packet ts=0.002 dir=out' flit 'lph vl=0' 'nth16 scna=0x0304 dcna=0x0102' \
    'atah_c taopcode=TAACK ini_tassn=1' > "$tmp/comments.ub"
"$UBGEN" -w "$tmp/c0.pcapng" "$tmp/comments.ub" > /dev/null || fail "ubgen comments.ub"
editcap -a '1:first "comment"' -a 2:third "$tmp/c0.pcapng" "$tmp/c1.pcapng" > /dev/null &&
    editcap -a '1:second, with \ and é' "$tmp/c1.pcapng" "$tmp/x_comments.pcapng" > /dev/null || fail "editcap -a"
got=$("$U" -r "$tmp/x_comments.pcapng" -T ek | python3 -c '
import json, sys
d = [json.loads(l)["layers"] for l in sys.stdin.read().splitlines()[1::2]]
print(d[0]["pkt_comment"]["frame_frame_comment"], d[1]["pkt_comment"]["frame_frame_comment"], d[0]["frame"]["frame_frame_p2p_dir"], d[1]["frame"]["frame_frame_packet_flags"])')
want="['first \"comment\"', 'second, with \\\\ and é'] third 1 0x00000002"
[ "$got" = "$want" ] || fail "x_comments -T ek: got '$got', want '$want'"
ns=0 nub=0
for cap in "$C"/*.pcapng "$tmp/x_cfg3_flit.pcapng" "$tmp/x_comments.pcapng"; do
    name=$(basename "$cap" .pcapng)
    uo= to=
    [ "$name" = noncrc ] && uo="--noncrc" to="-o ub.crc_mode:noncrc"
    cp "$cap" "$tmp/cap.pcapng"
    chmod a+r "$tmp/cap.pcapng"
    if [ -z "$to" ] && [ -f "$tmp/ws.$name.json" ]; then # tshark's documents from the loop above
        cp "$tmp/ws.$name.json" "$tmp/t.json"
        cp "$tmp/ws.$name.ek" "$tmp/t.ek"
    else
        # shellcheck disable=SC2086
        ts $to -r "$tmp/cap.pcapng" -T json > "$tmp/t.json" 2> /dev/null
        # shellcheck disable=SC2086
        ts $to -r "$tmp/cap.pcapng" -T ek > "$tmp/t.ek" 2> /dev/null
    fi
    # shellcheck disable=SC2086
    "$U" $uo -r "$cap" -T json > "$tmp/u.json" 2> "$tmp/u.err"
    # shellcheck disable=SC2086
    "$U" $uo -r "$cap" -T ek > "$tmp/u.ek" 2> "$tmp/u.err"
    python3 - "$tmp/u.json" "$tmp/t.json" "$tmp/u.ek" "$tmp/t.ek" > "$tmp/n" <<'PY' || fail "$name: the \"ub\", \"frame\" or \"pkt_comment\" layer differs from tshark's"
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
ub, ts = load(sys.argv[1]), load(sys.argv[2])
assert len(ub) == len(ts), ("documents", len(ub), len(ts))
checked = protos_above = 0
protos = {}  # frame number -> ubdump's frame.protocols (-T ek must give the same)
for a, b in zip(ub, ts):
    la, lb = layers(a), layers(b)
    frame = dict(dict(la)["frame"])["frame.number"]
    assert frame == dict(dict(lb)["frame"])["frame.number"], (frame, dict(dict(lb)["frame"])["frame.number"])
    assert [k for k, _ in la if k == "ub"] == [k for k, _ in lb if k == "ub"], (frame, "ub layers", [k for k, _ in la], [k for k, _ in lb])
    pa = pairs([kv for kv in la if kv[0] == "ub"], (), [])
    pb = pairs([kv for kv in lb if kv[0] == "ub"], (), [])
    have, keys = set(pb), set(p for p, _ in pa)
    for kv in pa:
        assert kv in have, (frame, kv, [h for h in pb if h[0][-1] == kv[0][-1]][:4])
        checked += 1
    for p, v in pb:
        assert p in keys, (frame, "tshark only", p, v)
    # the frame and its comments exactly as tshark's (frame.protocols too, but where Wireshark names a
    # protocol above what ubdump decodes: dns, tls, ... -- its list may end one protocol early, t_fields_ws)
    fa = [kv for kv in la if kv[0] in ("frame", "pkt_comment")]
    fb = [kv for kv in lb if kv[0] in ("frame", "pkt_comment")]
    if fa != fb:
        pa_, pb_ = dict(dict(fa)["frame"]).get("frame.protocols", ""), dict(dict(fb)["frame"]).get("frame.protocols", "")
        tu = pa_[:-5] if pa_.endswith(":data") else pa_
        assert pb_ == tu or (pb_.startswith(tu + ":") and ":" not in pb_[len(tu) + 1:]), (frame, pa_, pb_)
        fb = [(k, [x if x[0] != "frame.protocols" else (x[0], pa_) for x in v]) for k, v in fb]
        protos_above += 1
    assert fa == fb, (frame, fa, fb)
    protos[frame] = dict(dict(fa)["frame"])["frame.protocols"]
    checked += 1
# -T ek: index line + document, same count; the "ub" member identical to tshark's (order and
# repeated keys kept: tshark writes the "_ws_expert" of different parents as separate keys)
ue, te = open(sys.argv[3]).read().splitlines(), open(sys.argv[4]).read().splitlines()
assert len(ue) == len(te), ("-T ek lines", len(ue), len(te))
for i in range(0, len(ue), 2):
    assert list(json.loads(ue[i])) == ["index"], ue[i]
    a = dict(dict(json.loads(ue[i + 1], object_pairs_hook=lambda kv: kv))["layers"])
    b = dict(dict(json.loads(te[i + 1], object_pairs_hook=lambda kv: kv))["layers"])
    fr = dict(a["frame"])["frame_frame_number"]
    assert a.get("ub") == b.get("ub"), (fr, json.dumps(a.get("ub"))[:600], json.dumps(b.get("ub"))[:600])
    assert a.get("pkt_comment") == b.get("pkt_comment"), (fr, a.get("pkt_comment"), b.get("pkt_comment"))
    pk = [kv for kv in a["frame"] if kv[0] == "frame_frame_protocols"]
    assert pk == [("frame_frame_protocols", protos[fr])], (fr, pk, protos.get(fr))
    assert [kv for kv in a["frame"] if kv[0] != "frame_frame_protocols"] == [kv for kv in b["frame"] if kv[0] != "frame_frame_protocols"], (fr, a["frame"], b["frame"])
    checked += 1
assert protos_above <= 3, ("frame.protocols differ from tshark's in", protos_above, "frames (at most 3 known in one capture)")
print(checked)
PY
    [ "$(cat "$tmp/n")" -gt 0 ] && nub=$((nub + 1))
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
    # -Y (a frame matches when tshark would select it) and -c: the same frames
    for y in "-Y ub.nob" "-Y ub.lph" "-Y ub.stream.started_in" "-Y ub.stream.open_bytes" "-c 5" "-Y ub.init_block -c 3" \
             "-Y ub.btah.taopcode==3" "-Y frame.number>=3&&!ub.lph" "-Y ub.analysis.rule"; do
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
[ "$nub" -ge 30 ] || fail "only $nub captures with a compared \"ub\" layer"
# explicit values: audit_nob's 19 records complete 51 units; frame 2 completes 4 (the first started in frame 1)
got=$("$U" -r "$C/audit_nob.pcapng" -T ek | python3 -c '
import json, sys
d = [json.loads(l)["layers"]["ub"] for l in sys.stdin.read().splitlines()[1::2]]
u = lambda x: x.get("ub_ub_stream_unit", [])
print(len(d), sum(len(u(x)) if isinstance(u(x), list) else 1 for x in d), d[0], d[1]["ub_ub_stream_started_in"], u(d[1]), len(d[1]["ub"]))')
want="19 51 {'ub_ub_stream_open_bytes': '80'} 1 ['1', '2', '3', '4'] 4"
[ "$got" = "$want" ] || fail "audit_nob -T ek: got '$got', want '$want'"
# explicit values of the analysis: audit_rtp_lossy frame 9 resends a PSN (expected 206, UB-TP-003
# with frame 4), frame 12 acks four data frames; audit_nob frame 11 answers the requests of frames 7 and 9
got=$("$U" -r "$C/audit_rtp_lossy.pcapng" -T ek | python3 -c '
import json, sys
d = [json.loads(l)["layers"]["ub"] for l in sys.stdin.read().splitlines()[1::2]]
k = ("ub_ub_analysis_tp_channel", "ub_ub_analysis_expected_psn", "ub_ub_analysis_rule", "ub_ub_analysis_related_frame", "ub_ub_analysis_tp_src")
print(len(d), [d[8].get(x) for x in k], d[11]["ub_ub_analysis_acks_frame"], d[11]["ub_ub_analysis_latency"])')
want="22 ['0', '206', 'UB-TP-003', '4', '0x010203:0x301'] ['8', '4', '6', '7'] ['0.000050000', '0.000090000', '0.000080000', '0.000070000']"
[ "$got" = "$want" ] || fail "audit_rtp_lossy -T ek analysis: got '$got', want '$want'"
got=$("$U" -r "$C/audit_nob.pcapng" -T json | python3 -c '
import json, sys
a = json.load(sys.stdin, object_pairs_hook=lambda kv: kv)[10]
l = dict(dict(dict(a)["_source"])["layers"])
print([kv for kv in dict(l["ub"])["ub.analysis"]])')
want="[('ub.analysis.request_in', '7'), ('ub.analysis.latency', '0.000014000'), ('ub.analysis.request_in', '9'), ('ub.analysis.latency', '0.000006000')]"
[ "$got" = "$want" ] || fail "audit_nob -T json frame 11 analysis: got '$got', want '$want'"
echo "t_ws_json: ok ($n captures with Wireshark's layers, the \"ub\" layer of $nub, $ns with raw flit streams)"
