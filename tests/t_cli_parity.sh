#!/bin/sh
# ubdump's tshark/tcpdump-style options, exact outputs: strict numeric arguments (exit 2), --threads
# and the deprecated -j alias, -x hex dumps with layer markers, -w pcapng round trips (link types,
# interfaces, direction flags, comments; checked with tshark/capinfos), -t time formats at ns
# precision, -E quoting/occurrence, -T json (tshark's shape, compared with tshark + our plugin),
# -T ek, -T ubjson against docs/ubjson.schema.json, -l, --version, _ws.col.Info, analysis tags.
set -eu
U=${UBDUMP:?}
S=${UB_SOURCE_DIR:?}
C=$S/captures
. "$S/tests/check_lib.sh"
ub_check_init t_cli_parity
# same NAME WANT GOT: check_lib.sh

# the reference tools (the test fails without them, never skips)
for t in tshark capinfos mergecap editcap; do command -v $t > /dev/null 2>&1 || { echo "FAIL: $t is not installed (wireshark-common / tshark)"; exit 1; }; done

# ---------------------------------------------------------------- numeric arguments: usage error, exit 2
usage_err() { # expected-stderr-substring args...
    want=$1
    shift
    rc=0
    "$U" "$@" > "$tmp/ue.out" 2> "$tmp/ue.err" || rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/ue.err" && [ ! -s "$tmp/ue.out" ]; then ok; else
        bad "ubdump $*: exit $rc, stderr '$(cat "$tmp/ue.err")' (want exit 2, '$want')"; fi
}
R="-r $C/cfg7_rtp.pcapng"
# shellcheck disable=SC2086
{
usage_err "-c needs a record count 1..10^15, not 'abc'" $R -c abc
usage_err "-c needs a record count 1..10^15, not '0'" $R -c 0
usage_err "-c needs a record count 1..10^15, not '-1'" $R -c -1
usage_err "-c needs a record count 1..10^15, not ' 5'" $R -c ' 5'
usage_err "-c needs a record count 1..10^15, not '99999999999999999999999'" $R -c 99999999999999999999999
usage_err "--audit-examples needs 0..100000, not 'x'" $R --audit --audit-examples x
usage_err "--audit-examples needs 0..100000, not '-3'" $R --audit --audit-examples -3
usage_err "--response-timeout needs milliseconds 0..10^12, not '-5'" $R --audit --response-timeout -5
usage_err "--response-timeout needs milliseconds 0..10^12, not 'nan'" $R --audit --response-timeout nan
usage_err "--response-timeout needs milliseconds 0..10^12, not '1e300'" $R --audit --response-timeout 1e300
usage_err "--threads needs 1..64, not '0'" $R --audit --threads 0
usage_err "--threads needs 1..64, not 'two'" $R --audit --threads two
usage_err "--max-* needs 1..268435456" $R --audit --max-links 0
usage_err "--lua-budget needs a number of instructions" $R --lua-budget -1
usage_err "-e needs -T fields, json or ek" $R -e frame.number
usage_err "-e needs -T fields, json or ek" $R -T ubjson -e frame.number
usage_err "-x needs -T text" $R -T json -x
}
n=$("$U" -r "$C/cfg7_rtp.pcapng" -c 2 | wc -l)
same "-c 2 prints two packets" 2 "$n"

# ---------------------------------------------------------------- --threads, -j alias with a warning
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never > "$tmp/t1.txt" 2> "$tmp/t1.err"
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never --threads 2 > "$tmp/t2.txt" 2> "$tmp/t2.err"
"$U" -r "$C/audit_rtp_lossy.pcapng" -q --audit --fail-on never -j 2 > "$tmp/j2.txt" 2> "$tmp/j2.err"
cmp -s "$tmp/t1.txt" "$tmp/t2.txt" && ok || bad "--threads 2 report differs from one thread"
cmp -s "$tmp/t1.txt" "$tmp/j2.txt" && ok || bad "-j 2 report differs from one thread"
[ ! -s "$tmp/t2.err" ] && ok || bad "--threads 2: unexpected stderr $(cat "$tmp/t2.err")"
same "-j alias warning" "ubdump: warning: -j N is deprecated, use --threads N (-j PROTOCOLS is tshark's JSON protocol filter)" "$(cat "$tmp/j2.err")"

# ---------------------------------------------------------------- -x: hex + ASCII, header markers
"$U" -r "$C/cfg7_rtp.pcapng" -x -Y 'frame.number == 2' > "$tmp/x.txt"
same "-x frame 2 of cfg7_rtp" "     2 0.000010000 CFG7 0x0a0b0c→0x010203 TPACK PSN 17 TPN 0x202→0x101
-- 0000 ub.lph  Link Packet Header, 4 bytes
-- 0004 ub.nth  Network Header (24-bit CNA), 10 bytes
-- 000a   ub.cci  CCI (CAQM), 2 bytes
-- 000e ub.rtph  Reliable Transport Header, 16 bytes
0000  00 47 00 2d 0a 0b 0c 01 02 03 00 00 00 22 02 00   .G.-.........\"..
-- 001e ub.icrc  Invariant CRC, 4 bytes
0010  00 02 02 00 01 01 00 00 00 11 00 00 00 03 10 90   ................
-- 0022 ub.flitpad  Flit padding, 2 bytes
-- 0024 ub.bcrc  Block CRC, 4 bytes
0020  a7 a6 00 00 0c 68 93 70                           .....h.p" "$(cat "$tmp/x.txt")"
# the hex lines are tshark's -x lines (same bytes, same layout) on every record of a capture
"$U" -r "$C/uboe.pcapng" -x | grep -v '^-- \|^ ' > "$tmp/x.ub"
if command -v tshark > /dev/null 2>&1; then
    tshark -r "$C/uboe.pcapng" -x 2> /dev/null > "$tmp/x.ts"
    cmp -s "$tmp/x.ub" "$tmp/x.ts" && ok || { bad "-x lines differ from tshark -x (uboe)"; diff "$tmp/x.ts" "$tmp/x.ub" | head; }
fi
# a multi-block DLLDP: the record, then the de-interleaved network packet with its own markers
"$U" -r "$C/multiblock.pcapng" -x -c 1 > "$tmp/xm.txt"
same "-x multiblock: two data sources" "Frame (1060 bytes):
De-interleaved network packet (1042 bytes):" "$(grep -v '^[0-9a-f]\{4\}  \|^-- \|^ ' "$tmp/xm.txt" | grep .)"
same "-x multiblock: markers in the network packet" "-- 0013 ub.maetah  Memory Access ETAH, 16 bytes" "$(grep 'ub.maetah' "$tmp/xm.txt")"
[ "$(grep -c '^[0-9a-f]\{4\}  ' "$tmp/xm.txt")" = $(( (1060 + 15) / 16 + (1042 + 15) / 16 )) ] && ok || bad "-x multiblock: hex line count"

# ---------------------------------------------------------------- -t formats (ns pcapng), frame.time_delta*
for spec in "r 0.000010000" "a 09:00:00.000020000" "ad 1970-01-01 09:00:00.000020000" "d 0.000010000" \
    "dd 0.000000000" "e 0.000020000" "u 00:00:00.000020000" "ud 1970-01-01 00:00:00.000020000"; do
    t=${spec%% *}
    got=$(TZ=Asia/Tokyo "$U" -r "$C/cfg7_rtp.pcapng" -t "$t" -Y 'frame.number == 2' -T fields -e _ws.col.Time)
    same "-t $t" "${spec#* }" "$got"
done
got=$("$U" -r "$C/cfg7_rtp.pcapng" -t dd -Y 'frame.number != 2' -c 3 | cut -c1-18)
same "-t dd counts from the previous printed packet; -t r summary at ns" "     1 0.000000000
     3 0.000020000" "$got"
got=$("$U" -r "$C/cfg7_rtp.pcapng" -c 3 -T fields -e frame.number -e frame.time_delta -e frame.time_delta_displayed -Y 'frame.number != 2' -E separator=,)
same "frame.time_delta, frame.time_delta_displayed" "1,0.000000000,0.000000000
3,0.000010000,0.000020000" "$got"
# the precision follows the capture: a µs pcap prints 6 digits, a ns pcap 9
editcap -F pcap "$C/uboe.pcapng" "$tmp/us.pcap"
editcap -F nsecpcap "$C/uboe.pcapng" "$tmp/ns.pcap"
same "-t e on a µs pcap" "0.010000 0.020000 0.030000" "$("$U" -r "$tmp/us.pcap" -t e -T fields -e _ws.col.Time | paste -sd' ')"
same "-t e on a ns pcap" "0.010000000 0.020000000 0.030000000" "$("$U" -r "$tmp/ns.pcap" -t e -T fields -e _ws.col.Time | paste -sd' ')"
# the default time column is tshark's: relative, at each record's interface precision (9 digits on
# the ns pcapng captures, 6 on a µs pcap), on every bundled capture (a record printed as several
# units: its first line; a record that completes no unit prints none)
for cap in "$C"/*.pcapng "$tmp/us.pcap"; do
    o=
    case $cap in */noncrc.pcapng) o=--noncrc ;; esac
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" 2> /dev/null | awk '!seen[$1]++ { print $1 "\t" $2 }' > "$tmp/dt.ub"
    tshark -r "$cap" -T fields -e frame.number -e _ws.col.Time 2> /dev/null > "$tmp/dt.ts"
    [ -s "$tmp/dt.ub" ] && ! grep -Fxvf "$tmp/dt.ts" "$tmp/dt.ub" > "$tmp/dt.bad" && ok ||
        { bad "default time column of $(basename "$cap") differs from tshark's"; head -3 "$tmp/dt.bad"; }
done
same "default time column, µs pcap" "0.000000 0.010000 0.020000" "$("$U" -r "$tmp/us.pcap" | awk '{ print $2 }' | paste -sd' ')"
same "default time column, ns pcapng" "0.000000000 0.000010000" "$("$U" -r "$C/cfg7_rtp.pcapng" -c 2 | awk '{ print $2 }' | paste -sd' ')"
# frame.time: tshark's text (local time, zone, ns), also from a µs capture
for tz in UTC Asia/Tokyo America/New_York; do
    same "frame.time TZ=$tz" "$(TZ=$tz tshark -r "$tmp/us.pcap" -T fields -e frame.time 2> /dev/null)" "$(TZ=$tz "$U" -r "$tmp/us.pcap" -T fields -e frame.time)"
done
usage_err "-t ad|a|r|d|dd|e|u|ud, not 'x'" -r "$C/cfg7_rtp.pcapng" -t x

# ---------------------------------------------------------------- -E: quote, occurrence, separators
N="-r $C/noncrc.pcapng -Y frame.number==2 -T fields -e frame.number -e ub.error -e ub.lph.cfg"
# shellcheck disable=SC2086
{
same "-E default" "$(printf '2\ticrc_bad,bcrc_bad,error_flag,bcrc_bad\t7')" "$("$U" $N)"
same "-E occurrence=f" "$(printf '2\ticrc_bad\t7')" "$("$U" $N -E occurrence=f)"
same "-E occurrence=l" "$(printf '2\tbcrc_bad\t7')" "$("$U" $N -E occurrence=l)"
same "-E separator=, quote=d header=y" 'frame.number,ub.error,ub.lph.cfg
"2","icrc_bad,bcrc_bad,error_flag,bcrc_bad","7"' "$("$U" $N -E separator=, -E quote=d -E header=y)"
same "-E separator=/s aggregator=/s quote=s" "'2' 'icrc_bad bcrc_bad error_flag bcrc_bad' '7'" "$("$U" $N -E separator=/s -E aggregator=/s -E quote=s)"
same "-E aggregator=; quote=n" "2|icrc_bad;bcrc_bad;error_flag;bcrc_bad|7" "$("$U" $N -E 'separator=|' -E 'aggregator=;' -E quote=n)"
}
usage_err "bad -E option 'quote=x'" -r "$C/cfg7_rtp.pcapng" -T fields -e frame.number -E quote=x
usage_err "bad -E option 'occurrence=2'" -r "$C/cfg7_rtp.pcapng" -T fields -e frame.number -E occurrence=2
# CSV with repeated fields is well-formed: python's csv module reads back every occurrence
"$U" -r "$C/noncrc.pcapng" -T fields -e frame.number -e ub.error -e _ws.col.Info -E separator=, -E quote=d -E header=y > "$tmp/e.csv"
python3 - "$tmp/e.csv" <<'PY' && ok || bad "CSV with repeated fields"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["frame.number", "ub.error", "_ws.col.Info"], rows[0]
assert all(len(r) == 3 for r in rows), rows
r2 = [r for r in rows if r[0] == "2"][0]
assert r2[1].split(",") == ["icrc_bad", "bcrc_bad", "error_flag", "bcrc_bad"], r2
PY

# ---------------------------------------------------------------- -T psml: well-formed, 7 sections a packet
for cap in "$C"/*.pcapng; do
    o=
    case $cap in *noncrc*) o=--noncrc ;; esac
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -T psml 2> /dev/null > "$tmp/p.xml"
    # shellcheck disable=SC2086
    n=$("$U" $o -r "$cap" -T fields -e frame.number 2> /dev/null | wc -l)
    python3 - "$tmp/p.xml" "$n" <<'PY' && ok || bad "$(basename "$cap"): -T psml"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "psml" and r.get("creator", "").startswith("ubdump/"), r.attrib
assert [x.text for x in r.find("structure")] == ["No.", "Time", "Source", "Destination", "Protocol", "Length", "Info"]
p = r.findall("packet")
assert len(p) == int(sys.argv[2]), (len(p), sys.argv[2])
for i, k in enumerate(p):
    assert len(k) == 7 and k[0].text == str(i + 1), (i, [x.text for x in k])
PY
done
# ---------------------------------------------------------------- _ws.col.Info == the summary line
"$U" -r "$C/cfg7_rtp.pcapng" | sed 's/^ *[0-9]* [0-9.]* //' > "$tmp/sum.txt"
"$U" -r "$C/cfg7_rtp.pcapng" -T fields -e _ws.col.Info > "$tmp/info.txt"
cmp -s "$tmp/sum.txt" "$tmp/info.txt" && ok || bad "_ws.col.Info differs from the summary lines"

# ---------------------------------------------------------------- TP analysis tags in summaries (as the plugin's Info)
got=$("$U" -r "$C/audit_rtp_lossy.pcapng" | grep -c '\[TP ')
same "tagged summaries in audit_rtp_lossy" 6 "$got"
same "tags of frames 4 and 8" "     4 0.000030000 [TP Previous PSN not captured] CFG7 0x010203→0x0a0b0c RTP PSN 203 TPN 0x301→0x401 last Write req TASSN 53 addr 0x30d40 len 64
     8 0.000070000 [TP Retransmission] CFG7 0x010203→0x0a0b0c RTP PSN 202 TPN 0x301→0x401 last Write req TASSN 52 addr 0x30d00 len 64" \
    "$("$U" -r "$C/audit_rtp_lossy.pcapng" -Y 'frame.number == 4 || frame.number == 8')"
# ---------------------------------------------------------------- --version, -v, -l
"$U" --version > "$tmp/v.txt"
v=$(sed -n 's/^project(ubscope VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
same "--version first line" "ubdump (ubscope) $v" "$(head -1 "$tmp/v.txt")"
grep -q '^Compiled with Lua 5\.4\.[0-9]*\.$' "$tmp/v.txt" && ok || bad "--version: Lua release"
"$U" -v | cmp -s - "$tmp/v.txt" && ok || bad "-v == --version"
# -l: every line reaches a pipe as it is printed (the reader sees line 1 while ubdump still runs)
"$U" -r "$C/cfg7_rtp.pcapng" > "$tmp/nol.txt"
"$U" -r "$C/cfg7_rtp.pcapng" -l > "$tmp/l.txt"
cmp -s "$tmp/nol.txt" "$tmp/l.txt" && ok || bad "-l changes the output"

# ---------------------------------------------------------------- -w: pcapng of the selected records
# two interfaces (UB link records with outbound direction flags + UBoE on Ethernet), two comments
mergecap -w "$tmp/m.pcapng" "$C/audit_linkup.pcapng" "$C/uboe.pcapng"
editcap -a 2:"second frame" -a 5:'a "quoted" comment' -a 177:"uboe 1" "$tmp/m.pcapng" "$tmp/mc.pcapng"
TSF="-T fields -e frame.interface_id -e frame.encap_type -e frame.packet_flags_direction -e frame.comment -e frame.len -e frame.cap_len -e frame.time_epoch"
FILT='frame.number == 2 || frame.number == 5 || frame.number == 9 || ub.eth'
"$U" -r "$tmp/mc.pcapng" -w "$tmp/w.pcapng" -Y "$FILT" > "$tmp/w.out" 2> "$tmp/w.err"
[ ! -s "$tmp/w.out" ] && [ ! -s "$tmp/w.err" ] && ok || bad "-w prints nothing without -P: $(cat "$tmp/w.out" "$tmp/w.err")"
sel=$("$U" -r "$tmp/mc.pcapng" -Y "$FILT" -T fields -e frame.number | tr '\n' ',' | sed 's/,$//')
same "-w selection" "2,5,9,177,178,179" "$sel"
# shellcheck disable=SC2086
tshark -r "$tmp/mc.pcapng" -Y "frame.number in {$sel}" $TSF 2> /dev/null > "$tmp/w.want"
# shellcheck disable=SC2086
tshark -r "$tmp/w.pcapng" $TSF 2> /dev/null > "$tmp/w.got"
cmp -s "$tmp/w.want" "$tmp/w.got" && ok || { bad "-w: interfaces/link types/flags/comments/lengths/times differ (tshark)"; diff "$tmp/w.want" "$tmp/w.got"; }
same "-w: comments kept" "second frame|a \"quoted\" comment|uboe 1" "$(cut -f4 "$tmp/w.got" | grep . | paste -sd'|')"
same "-w: capinfos" "6 2" "$(capinfos -T -r -c "$tmp/w.pcapng" | cut -f2) $(capinfos -I "$tmp/w.pcapng" | grep -c '^Interface #')"
# re-read by ubdump: the same packet lines as the selection from the source (frames renumbered)
"$U" -r "$tmp/mc.pcapng" -Y "$FILT" -t e | cut -c8- > "$tmp/w.sum1"
"$U" -r "$tmp/w.pcapng" -t e | cut -c8- > "$tmp/w.sum2"
cmp -s "$tmp/w.sum1" "$tmp/w.sum2" && ok || bad "-w: ubdump reads back different packets"
# -P prints while writing; -w - writes to stdout (and the -q totals go to stderr)
"$U" -r "$C/cfg7_rtp.pcapng" -w "$tmp/p.pcapng" -P -c 2 > "$tmp/p.out"
same "-P" "2" "$(wc -l < "$tmp/p.out")"
"$U" -r "$C/cfg7_rtp.pcapng" -q -w - 2> "$tmp/q.err" | "$U" -r - > "$tmp/pipe.txt"
"$U" -r "$C/cfg7_rtp.pcapng" | cmp -s - "$tmp/pipe.txt" && ok || bad "-w - | ubdump -r -"
same "-w - -q totals on stderr" "10 records: 10 UB, 0 other (not UB)" "$(cat "$tmp/q.err")"
# nothing selected: a valid pcapng with the interfaces and no packets
"$U" -r "$tmp/mc.pcapng" -w "$tmp/none.pcapng" -Y 'ub.btah.taopcode == "Atomic_fetch_add"'
same "-w empty selection" "0 2" "$(capinfos -T -r -c "$tmp/none.pcapng" | cut -f2) $(capinfos -I "$tmp/none.pcapng" | grep -c '^Interface #')"
# --write-cited: the records the audit report cites (example frames and related frames)
L=$C/audit_rtp_lossy.pcapng
"$U" -r "$L" --audit --audit-examples 100 --audit-format json > "$tmp/cite.json" || true
want=$(python3 - "$tmp/cite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fr = {f for r in d["rules"] for e in r["findings"] for f in [e["frame"]] + e["frames"] if f}
print(",".join(map(str, sorted(fr))))
PY
)
same "cited frames of audit_rtp_lossy" "4,6,7,8,9,10,11,15,20" "$want"
rc=0
"$U" -r "$L" --audit --audit-examples 100 -w "$tmp/cited.pcapng" --write-cited > "$tmp/cite.txt" || rc=$?
same "--write-cited keeps the audit exit status" 1 "$rc"
grep -q '^result: FAIL' "$tmp/cite.txt" && ok || bad "--write-cited: the report is still printed"
"$U" -r "$L" -Y "frame.number == $(echo "$want" | sed 's/,/ || frame.number == /g')" -t e | cut -c8- | sed 's/\[TP [^]]*\] //g' > "$tmp/cite.want"
"$U" -r "$tmp/cited.pcapng" -t e | cut -c8- | sed 's/\[TP [^]]*\] //g' > "$tmp/cite.got"
cmp -s "$tmp/cite.want" "$tmp/cite.got" && ok || { bad "--write-cited wrote other records"; diff "$tmp/cite.want" "$tmp/cite.got"; }
# -Y on the analysis fields selects the same way (the TP retransmissions of audit_rtp_lossy)
"$U" -r "$L" -Y 'ub.analysis.retransmission' -w "$tmp/retx.pcapng"
same "-w -Y ub.analysis.retransmission" "202 203 204 205" "$("$U" -r "$tmp/retx.pcapng" -T fields -e ub.rtph.psn | paste -sd' ')"
usage_err "--write-cited needs -w FILE, --audit and -r FILE" -r "$L" --audit --write-cited
usage_err "--write-cited needs -w FILE, --audit and -r FILE" -r - --audit -w "$tmp/x.pcapng" --write-cited
usage_err "-w - writes the capture to standard output" -r "$C/cfg7_rtp.pcapng" -w - -P
usage_err "-P needs -w FILE" -r "$C/cfg7_rtp.pcapng" -P
usage_err "-w $tmp/no/such/dir/x.pcapng" -r "$C/cfg7_rtp.pcapng" -w "$tmp/no/such/dir/x.pcapng"

# ---------------------------------------------------------------- -T ubjson: docs/ubjson.schema.json
n=0
for cap in "$C"/*.pcapng; do
    o=
    case $cap in */noncrc.pcapng) o=--noncrc ;; esac
    # shellcheck disable=SC2086
    "$U" $o -r "$cap" -T ubjson > "$tmp/$(basename "$cap" .pcapng).ubjson"
    n=$((n + 1))
done
got=$(python3 - "$S/docs/ubjson.schema.json" "$tmp"/*.ubjson <<'PY' || true
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
n = 0
for p in sys.argv[2:]:
    d = json.load(open(p))
    for e in v.iter_errors(d):
        print(p, e.message[:200], list(e.path))
        sys.exit(1)
    n += len(d)
# the schema can fail: a wrong shape is rejected
bad = [{"frame": 0, "time_relative": 0, "len": 1, "entry": "flit", "ub": {"layers": [], "errors": []}}]
assert not v.is_valid(bad)
print(n)
PY
)
same "-T ubjson validates against docs/ubjson.schema.json (packets of every capture)" 982 "$got"

# the neighbours are not UB: their headers are top-level protocols (as Wireshark's own dissectors show
# them), the plain IP inside a UB CFG 3 packet is Wireshark's ip/udp
got=$("$U" -r "$C/rocev2_cfg3.pcapng" -T json -c 1 2> /dev/null | python3 -c 'import json,sys; l=json.load(sys.stdin)[0]["_source"]["layers"]; print(*l.keys(), l["infiniband"]["infiniband.bth.psn"], l["infiniband"]["infiniband.bth.destqp"])')
same "-T json: RoCEv2 inside UB CFG 3" "frame ub ip udp infiniband 5 0x000012" "$got"

# ---------------------------------------------------------------- -T json / -T ek vs tshark with our plugin
if ! ls "${UB_BINARY_DIR:?}"/plugins/*/epan/ub.so > /dev/null 2>&1; then
    bad "plugin not built (needs -DUB_DISSECTOR=ON): -T json not compared with tshark"
else
    fail() { echo "FAIL: $*"; exit 1; }
    mkdir -p "$tmp/home"
    . "$S/tests/tshark_lib.sh"
    ub_plugin_install
    # yparity LABEL FILE FILTER...: each display filter selects the frames tshark + plugin select
    yparity() {
        yl=$1 yf=$2
        shift 2
        for y in "$@"; do
            ts -n -r "$yf" -Y "$y" -T fields -e frame.number > "$tmp/ty.txt" 2> /dev/null
            "$U" -r "$yf" -Y "$y" -T fields -e frame.number 2> /dev/null | cmp -s - "$tmp/ty.txt" && ok || bad "$yl: -Y '$y' differs from tshark's"
        done
    }
    "$U" -G fields | awk -F"\t" '$3 != "analysis"' | cut -f1 > "$tmp/schema.txt" # the decoded fields (not ub.analysis.*)
    # every UB capture whose packets the plugin dissects alone (not: raw flit streams, grouped per
    # record by tshark; Non-CRC links, a preference; plain IP/TCP payloads and the neighbours (RoCEv2,
    # SUE, PCIe flits: not UB), Wireshark's dissectors or none)
    for cap in "$C"/*.pcapng; do
        name=$(basename "$cap" .pcapng)
        case $name in stream | audit_nob | noncrc | mixed_eth | cfg3_ipv4 | cfg3_plain_ip | rocev2_* | sue_* | pcie_flit) continue ;; esac
        cp "$cap" "$tmp/cap.pcapng"
        chmod a+r "$tmp/cap.pcapng"
        ts -r "$tmp/cap.pcapng" -T json > "$tmp/t.json" 2> /dev/null
        "$U" -r "$cap" -T json > "$tmp/u.json"
        if python3 - "$tmp/u.json" "$tmp/t.json" "$tmp/schema.txt" <<'PY'; then ok; else bad "$name: -T json differs from tshark -T json"; fi
import json, sys
load = lambda p: json.load(open(p), object_pairs_hook=lambda kv: kv)  # keep repeated keys, as tshark writes them
def walk(obj, path, vals, paths):
    for k, v in obj:
        if isinstance(v, list):
            paths.append(path + "/" + k)
            walk(v, path + "/" + k, vals, paths)
        else:
            vals.append((k, v))
schema = set(open(sys.argv[3]).read().split())
ub, ts = load(sys.argv[1]), load(sys.argv[2])
assert len(ub) == len(ts), (len(ub), len(ts))
FRAME = ["frame.time", "frame.number", "frame.len", "frame.cap_len", "frame.time_epoch", "frame.time_relative",
         "frame.time_delta", "frame.interface_id"]
bad = 0
for a, b in zip(ub, ts):
    da, db = dict(a), dict(b)
    assert [k for k, _ in a] == ["_index", "_type", "_score", "_source"] and da["_type"] == "doc"
    assert da["_index"] == db["_index"] and da["_score"] is None
    la, lb = dict(dict(da["_source"])["layers"]), dict(dict(db["_source"])["layers"])
    fa, fb = dict(la["frame"]), dict(lb["frame"])
    for k in FRAME:
        if fa.get(k) != fb.get(k):
            print(fa.get("frame.number"), k, fa.get(k), fb.get(k)); bad += 1
    va, pa, vb, pb = [], [], [], []
    walk(la.get("ub", []), "ub", va, pa)
    walk(lb.get("ub", []), "ub", vb, pb)
    va = [kv for kv in va if kv[0] in schema]
    vb = [kv for kv in vb if kv[0] in schema]
    # the analysis subtree and expert items: compared key by key in t_ws_json.sh
    pa = [p for p in pa if "ub.analysis" not in p and "_ws.expert" not in p]
    pb = [p for p in pb if "ub.analysis" not in p and "_ws.expert" not in p]
    if va != vb or pa != pb:
        print(fa.get("frame.number"), [(x, y) for x, y in zip(va, vb) if x != y][:2], pa, pb); bad += 1
    for proto in ("eth", "vlan", "ip", "udp"):
        if (proto in la) != (proto in lb): print(fa.get("frame.number"), "layer", proto); bad += 1
sys.exit(1 if bad else 0)
PY
    done
    # _ws.col.Info with the TP analysis tags == tshark's Info column (every UB capture the plugin
    # dissects alone, as above; a raw flit stream's records with the bytes of a unit they leave open)
    for name in audit_rtp_lossy audit_rtp_sack audit_retry cfg7_rtp audit_txn_clean uboe stream; do
        cp "$C/$name.pcapng" "$tmp/cap.pcapng"
        ts -r "$tmp/cap.pcapng" -T fields -e _ws.col.Info > "$tmp/ti.txt" 2> /dev/null
        "$U" -r "$C/$name.pcapng" -T fields -e _ws.col.Info | cmp -s - "$tmp/ti.txt" && ok || bad "$name: _ws.col.Info differs from tshark's Info"
    done
    # -T psml: tshark's document byte for byte (but the creator) where the Info column is the plugin's
    # (UB, SUE and PCIe flit records; a raw flit stream's units joined by " | ", then the bytes of an
    # incomplete unit)
    for name in audit_rtp_lossy audit_retry cfg7_rtp cfg6_mgmt dllcb uboe sue_afh sue_limits pcie_flit pcie_nak stream; do
        cp "$C/$name.pcapng" "$tmp/cap.pcapng"
        ts -n -r "$tmp/cap.pcapng" -T psml 2> /dev/null | sed 2d > "$tmp/tp.xml"
        "$U" -r "$C/$name.pcapng" -T psml 2> /dev/null | sed 2d | cmp -s - "$tmp/tp.xml" && ok || bad "$name: -T psml differs from tshark's"
    done
    # records that are not what their link type promises: a raw flit stream (LINKTYPE_USER2) of garbage,
    # short units and an open tail; PCIe flit records (LINKTYPE_USER3) that are no whole 256-byte flits
    # (the plugin's pcieflit item alone: no data, no UB). Columns, frame.protocols and -Y as tshark's.
    for dlt in 149 150; do
        python3 - "$tmp/odd.pcap" $dlt <<'PY'
import struct, sys
recs = [b"\xff" * 20, bytes(20), b"\x5a" * 7, bytes(range(40)), bytes(3), bytes(300)]
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, int(sys.argv[2])))
    for i, r in enumerate(recs):
        f.write(struct.pack("<IIII", i + 1, 0, len(r), len(r)) + r)
PY
        ts -n -r "$tmp/odd.pcap" -T psml 2> /dev/null | sed 2d > "$tmp/to.xml"
        "$U" -r "$tmp/odd.pcap" -T psml 2> /dev/null | sed 2d | cmp -s - "$tmp/to.xml" && ok || bad "link type $dlt, odd records: -T psml differs from tshark's"
        ts -n -r "$tmp/odd.pcap" -T fields -e frame.protocols > "$tmp/to.txt" 2> /dev/null
        "$U" -r "$tmp/odd.pcap" -T fields -e frame.protocols 2> /dev/null | cmp -s - "$tmp/to.txt" && ok || bad "link type $dlt, odd records: frame.protocols"
        for y in pcieflit data ub '!data'; do
            ts -n -r "$tmp/odd.pcap" -Y "$y" -T fields -e frame.number > "$tmp/to.txt" 2> /dev/null
            "$U" -r "$tmp/odd.pcap" -Y "$y" -T fields -e frame.number 2> /dev/null | cmp -s - "$tmp/to.txt" && ok || bad "link type $dlt, odd records: -Y $y"
        done
    done
    # mutated records of the bundled captures (bit flips, cuts, extensions; fixed seeds) on the flit and
    # raw-stream link types: the columns and frame.protocols as tshark's, line by line, except where
    # tshark hands the bytes to its own dissectors (plain IP of CFG 3/4: their Info is Wireshark's)
    for spec in "147 cfg7_rtp dllcb" "149 stream"; do
        set -- $spec
        dlt=$1
        shift
        for n in "$@"; do editcap -F pcap "$C/$n.pcapng" "$tmp/src-$n.pcap"; done
        python3 - "$tmp/mut.pcap" "$dlt" "$tmp" "$@" <<'PY'
import random, struct, sys
out, dlt, d, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
src = []
for n in names:
    b = open(f"{d}/src-{n}.pcap", "rb").read()
    o = 24
    while o + 16 <= len(b):
        cl = struct.unpack("<I", b[o + 8:o + 12])[0]
        src.append(b[o + 16:o + 16 + cl])
        o += 16 + cl
rnd = random.Random(dlt)
with open(out, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, dlt))
    for i in range(600):
        r = bytearray(rnd.choice(src))
        for _ in range(rnd.randint(1, 4)):
            k = rnd.random()
            if k < 0.5 and r: r[rnd.randrange(len(r))] ^= 1 << rnd.randrange(8)
            elif k < 0.7 and r: r = r[:rnd.randrange(len(r))]
            elif k < 0.85: r += bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 30)))
            elif r: r[rnd.randrange(len(r))] = rnd.randrange(256)
        f.write(struct.pack("<IIII", i + 1, 0, len(r), len(r)) + bytes(r))
PY
        cols="-e frame.protocols -e _ws.col.Protocol -e _ws.col.Info -e _ws.col.Source -e _ws.col.Destination"
        # shellcheck disable=SC2086
        ts -n -r "$tmp/mut.pcap" -T fields $cols > "$tmp/tm.txt" 2> /dev/null
        # shellcheck disable=SC2086
        "$U" -r "$tmp/mut.pcap" -T fields $cols > "$tmp/um.txt" 2> /dev/null
        python3 - "$tmp/tm.txt" "$tmp/um.txt" <<'PY' && ok || bad "link type $dlt, mutated records: columns differ from tshark's"
import sys
t, u = (open(p).read().split("\n") for p in sys.argv[1:3])
same = skipped = 0
for i, (a, b) in enumerate(zip(t, u)):
    if a.split("\t")[0] not in ("", "ub"): skipped += 1; continue  # Wireshark's own dissectors
    if a != b: print("record", i + 1, repr(a), repr(b)); sys.exit(1)
    same += 1
sys.exit(0 if len(t) == len(u) and same > 500 else 1)
PY
    done
    # traffic that is not UB cut by the snapshot length (tcpdump -s N), and IEEE 802.3 frames (LLC, STP
    # BPDUs) and EtherTypes nobody decodes: frame.protocols and the Protocol/Source/Destination columns as
    # tshark's (a UDP header cut before its ports leaves the IP name; RoCEv2 with no payload captured is
    # UDP; an IP header cut before an address leaves the MAC address; nothing of a payload, no data)
    cols4="-e frame.protocols -e _ws.col.Protocol -e _ws.col.Source -e _ws.col.Destination"
    for f in rocev2_rc icmp uboe sue_std; do
        for s in 36 38 42 54 60 64 96; do
            # (an ICMP error cut right after its 8 bytes: Wireshark still starts the quoted IP, ubdump has none)
            [ $f = icmp ] && [ $s = 42 ] && continue
            editcap -s $s "$C/$f.pcapng" "$tmp/cut.pcapng" 2> /dev/null
            # shellcheck disable=SC2086
            ts -n -r "$tmp/cut.pcapng" -T fields $cols4 > "$tmp/tc.txt" 2> /dev/null
            # shellcheck disable=SC2086
            "$U" -r "$tmp/cut.pcapng" -T fields $cols4 > "$tmp/uc.txt" 2> /dev/null
            # (rocev2_rc 21 and 23: RPC-over-RDMA and a UD payload Wireshark reads further, whole or cut)
            paste "$tmp/tc.txt" "$tmp/uc.txt" | awk -v f=$f '!(f == "rocev2_rc" && (NR == 21 || NR == 23))' |
                awk -F'\t' '$1 != $5 || $2 != $6 || $3 != $7 || $4 != $8 { print NR ": " $0; bad = 1 } END { exit bad }' > "$tmp/cd.txt" &&
                ok || { bad "$f cut at $s: columns differ from tshark's"; head -3 "$tmp/cd.txt"; }
        done
    done
    python3 - "$tmp/llc.pcap" <<'PY'
import struct, sys
mac = bytes.fromhex("0180c2000000020000000001")
bpdu = bytes.fromhex("424203000000000080000200000000010000000080000200000000018001000014000200")
recs = [mac + struct.pack(">H", len(bpdu)) + bpdu,                   # STP configuration BPDU
        mac + struct.pack(">H", 46) + bpdu + bytes(46 - len(bpdu)),   # the same padded to 60 bytes
        mac + struct.pack(">H", 3) + bpdu[:3],                        # LLC header alone
        mac + struct.pack(">H", 0x8140),                              # an EtherType, nothing after it
        mac + struct.pack(">H", 0x9030) + bytes(range(20)),           # an EtherType nobody decodes
        mac[:10],                                                     # a runt: destination only
        mac + struct.pack(">H", 0x0806) + bytes(28),                  # ARP
        mac + bytes.fromhex("8808 0101") + bytes(42),                 # PFC (MAC control)
        mac + bytes.fromhex("88f7 0002") + bytes(42),                 # PTPv2 Sync
        mac + bytes.fromhex("8809 0101") + bytes(108),                # LACP (Slow Protocols)
        mac + bytes.fromhex("88a8 0064 8100 00c8 0806") + bytes(28)]  # QinQ (802.1ad, 802.1Q), ARP
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, r in enumerate(recs):
        f.write(struct.pack("<IIII", i + 1, 0, len(r), len(r)) + r)
PY
    # shellcheck disable=SC2086
    ts -n -r "$tmp/llc.pcap" -T fields $cols4 > "$tmp/tc.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" -r "$tmp/llc.pcap" -T fields $cols4 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok || bad "802.3 / EtherType frames: columns differ from tshark's"
    same "802.3 / EtherType frames: Protocol column" "STP STP LLC 0x8140 0x9030 Ethernet ARP MAC CTRL PTPv2 LACP ARP" \
        "$("$U" -r "$tmp/llc.pcap" -T fields -e _ws.col.Protocol 2> /dev/null | tr '\n' ' ' | sed 's/ $//')"
    same "802.3 / EtherType frames: summary" "ETH 802.3 LLC DSAP 0x42 SSAP 0x42 (STP)" "$("$U" -r "$tmp/llc.pcap" -c 1 2> /dev/null | sed 's/^ *1 [0-9.]* //')"
    # their names as display filters (presence), as tshark selects
    yparity "802.3 / EtherType frames" "$tmp/llc.pcap" stp llc macc ptp lacp ieee8021ad lldp '!llc' 'stp || macc' 'arp && !ieee8021ad' \
        eth.len eth.type 'eth.len == 36' 'eth.type == 0x0806'
    # the type field of an IEEE 802.3 frame is eth.len (decimal), not eth.type, in fields and JSON
    ts -n -r "$tmp/llc.pcap" -T fields -e frame.number -e eth.type -e eth.len > "$tmp/tc.txt" 2> /dev/null
    "$U" -r "$tmp/llc.pcap" -T fields -e frame.number -e eth.type -e eth.len 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok || bad "802.3 / EtherType frames: eth.type / eth.len differ from tshark's"
    same "802.3 / EtherType frames: -T json eth.len" "36 -" \
        "$("$U" -r "$tmp/llc.pcap" -c 1 -T json 2> /dev/null | python3 -c 'import json,sys; e=json.load(sys.stdin)[0]["_source"]["layers"]["eth"]; print(e.get("eth.len", "-"), e.get("eth.type", "-"))')"
    same "QinQ: summary" "ETH/S-VLAN 100/VLAN 200/ARP who-has 0.0.0.0 tell 0.0.0.0" \
        "$("$U" -r "$tmp/llc.pcap" -Y frame.number==11 2> /dev/null | sed 's/^ *11 [0-9.]* //')"
    same "-Y stp: frames" "1 2" "$("$U" -r "$tmp/llc.pcap" -Y stp -T fields -e frame.number 2> /dev/null | tr '\n' ' ' | sed 's/ $//')"
    # UBoE captured on Linux's "any" device (tcpdump -i any: LINKTYPE_LINUX_SLL / SLL2, not ARPHRD_UB): the
    # cooked header is Wireshark's sll:ethertype before the plugin's ub
    editcap -F pcap "$C/uboe.pcapng" "$tmp/uboe.pcap"
    python3 - "$tmp/uboe.pcap" "$tmp/sll1.pcap" "$tmp/sll2.pcap" "$tmp/null.pcap" "$tmp/loop.pcap" "$tmp/tags.pcap" "$tmp/raw.pcap" <<'PY'
import os, struct, sys
b = open(sys.argv[1], "rb").read()
o, ips = 24, []
while o + 16 <= len(b):
    cl = struct.unpack("<I", b[o + 8:o + 12])[0]
    r = b[o + 16:o + 16 + cl]
    o += 16 + cl
    k, et = 14, struct.unpack(">H", r[12:14])[0]
    while et in (0x8100, 0x88A8):
        et, k = struct.unpack(">H", r[k + 2:k + 4])[0], k + 4
    ips.append((et, r[k:]))
mac = bytes.fromhex("0200000000010000")
af = lambda et: 2 if et == 0x0800 else 30  # AF_INET, Darwin's AF_INET6
for name, dlt, hdr in ((sys.argv[2], 113, lambda et: struct.pack(">HHH8sH", 0, 1, 6, mac, et)),
                       (sys.argv[3], 276, lambda et: struct.pack(">HHIHBB8s", et, 0, 2, 1, 0, 6, mac)),
                       (sys.argv[4], 0, lambda et: struct.pack("<I", af(et))),     # LINKTYPE_NULL, little-endian host
                       (sys.argv[5], 108, lambda et: struct.pack(">I", af(et))),   # LINKTYPE_LOOP
                       # tags (tags.pcap): 802.1ad S-tag + C-tag, an S-tag alone, 0x9100 (Wireshark's QinQ
                       # default) + C-tag; 802.1Q inside a cooked capture (SLL protocol 0x8100)
                       (sys.argv[6], 1, lambda et: bytes(range(12)) + bytes.fromhex("88a8 200b 8100 6064") + struct.pack(">H", et)),
                       (sys.argv[6], 1, lambda et: bytes(range(12)) + bytes.fromhex("88a8 a00c") + struct.pack(">H", et)),
                       (sys.argv[6], 1, lambda et: bytes(range(12)) + bytes.fromhex("9100 000d 8100 6064") + struct.pack(">H", et)),
                       (sys.argv[6].replace("tags", "sll_tag"), 113, lambda et: struct.pack(">HHH8sH", 0, 1, 6, mac, 0x8100) + bytes.fromhex("6064") + struct.pack(">H", et)),
                       (sys.argv[7], 101, lambda et: b"")):  # LINKTYPE_RAW: the IP packet, its ICRC after it
    new = not name.endswith("tags.pcap") or not os.path.exists(name)
    with open(name, "wb" if new else "ab") as f:
        if new: f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, dlt))
        for i, (et, ip) in enumerate(ips):
            r = hdr(et) + ip
            f.write(struct.pack("<IIII", i + 1, 0, len(r), len(r)) + r)
PY
    for f in sll1 sll2 null loop raw; do # (the ICRC after the IP packet too: the plugin finds it in each)
        # shellcheck disable=SC2086
        ts -n -r "$tmp/$f.pcap" -T fields $cols -e ub.icrc.status -e ub.icrc.icrc > "$tmp/tc.txt" 2> /dev/null
        # shellcheck disable=SC2086
        "$U" -r "$tmp/$f.pcap" -T fields $cols -e ub.icrc.status -e ub.icrc.icrc 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok || bad "UBoE in $f: columns differ from tshark's"
    done
    same "UBoE in LINKTYPE_RAW: the plugin's ICRC status" "1 1 1" "$(ts -n -r "$tmp/raw.pcap" -T fields -e ub.icrc.status 2> /dev/null | tr '\n' ' ' | sed 's/ $//')"
    # tagged twice or by an S-tag alone, and tagged inside a cooked capture: Wireshark's vlan / ieee8021ad
    tagf="-e vlan.id -e vlan.priority -e vlan.etype -e ieee8021ad.id -e ieee8021ad.priority -e ieee8021ad.dei -e ieee8021ah.etype -e ub.btah.taopcode -e ub.icrc.status"
    for f in tags sll_tag; do
        # shellcheck disable=SC2086
        ts -n -r "$tmp/$f.pcap" -T fields $cols4 $tagf > "$tmp/tc.txt" 2> /dev/null
        # shellcheck disable=SC2086
        "$U" -r "$tmp/$f.pcap" -T fields $cols4 $tagf 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok || { bad "UBoE in $f: columns and tag fields differ from tshark's"; "$U" -r "$tmp/$f.pcap" -T fields $cols4 $tagf 2>&1 | diff "$tmp/tc.txt" - | head -4; }
    done
    yparity "UBoE tagged" "$tmp/tags.pcap" vlan ieee8021ad 'vlan.id == 100' 'ieee8021ad.id == 11' 'ieee8021ad.dei == 1' 'ub && !vlan' 'ieee8021ah.etype == 0x86dd'
    same "UBoE tagged: UB records" "9 records: 9 UB, 0 other (not UB)" "$("$U" -r "$tmp/tags.pcap" -q 2> /dev/null)"
    same "UBoE in LINKTYPE_LINUX_SLL: frame.protocols" "sll:ethertype:ip:udp:ub" \
        "$("$U" -r "$tmp/sll1.pcap" -c 1 -T fields -e frame.protocols 2> /dev/null)"
    # BSD / macOS / Npcap loopback (LINKTYPE_NULL in the host's byte order, LINKTYPE_LOOP): UB over UDP 4792
    same "UBoE in LINKTYPE_NULL: UB records" "3 records: 3 UB, 0 other (not UB)" "$("$U" -r "$tmp/null.pcap" -q 2> /dev/null)"
    for f in null loop; do
        ts -n -r "$tmp/$f.pcap" -Y 'null.family == 30' -T fields -e frame.number -e null.family -e ub.btah.taopcode > "$tmp/ty.txt" 2> /dev/null
        "$U" -r "$tmp/$f.pcap" -Y 'null.family == 30' -T fields -e frame.number -e null.family -e ub.btah.taopcode 2> /dev/null |
            cmp -s - "$tmp/ty.txt" && ok || bad "UBoE in $f: -Y null.family differs from tshark's"
    done
    same "LINKTYPE_NULL: frame 3" "3	30	0x00" "$("$U" -r "$tmp/null.pcap" -Y 'null.family == 30' -T fields -e frame.number -e null.family -e ub.btah.taopcode 2> /dev/null)"
    # UBoE through the tunnels of a switch's mirror session or an overlay (VXLAN, Geneve, GRE, ERSPAN I/II/III,
    # MPLS, IP in IP) and what is not UB inside them: UB decoded from the inner frame as tshark + plugin do
    "${UBREPLAY:?}" -w "$tmp/lossy.pcapng" --framing eth "$C/audit_rtp_lossy.pcapng" 2> /dev/null  # UBoE with a PSN gap
    editcap -F pcap "$tmp/lossy.pcapng" "$tmp/lossy.pcap"
    python3 - "$tmp/tun.pcap" "$tmp/uboe.pcap" "$tmp/lossy.pcap" <<'PY'
import struct, sys, zlib
frames = []
for name in sys.argv[2:]:
    b = open(name, "rb").read()
    o = 24
    while o + 16 <= len(b):
        cl = struct.unpack("<I", b[o + 8:o + 12])[0]
        frames.append(b[o + 16:o + 16 + cl])
        o += 16 + cl
# the UBoE frames with their FCS: in pcapng with if_fcslen (fcs_if), with epb_flags (fcs_epb); and without
out = lambda name: sys.argv[1].replace("tun.pcap", name)
def blk(t, body):
    body += bytes(-len(body) % 4)
    return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
for path, fcs, idb_opt, epb_opt in ((out('nofcs.pcapng'), False, b"", b""),
                                    (out('fcs_if.pcapng'), True, struct.pack("<HHI", 13, 1, 4) + bytes(4), b""),
                                    (out('fcs_epb.pcapng'), True, b"", struct.pack("<HHI", 2, 4, 4 << 5) + bytes(4))):
    with open(path, "wb") as f:
        f.write(blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        f.write(blk(1, struct.pack("<HHI", 1, 0, 0) + idb_opt))
        for i, fr in enumerate(frames):
            r = fr + struct.pack("<I", zlib.crc32(fr)) if fcs else fr
            f.write(blk(6, struct.pack("<IIIII", 0, 0, 10000 * (i + 1), len(r), len(r)) + r + bytes(-len(r) % 4) + epb_opt))
frames.append(bytes.fromhex("ffffffffffff020000000001 0806 0001080006040001 020000000001 0a000001 000000000000 0a000002"))
def ip_of(f):  # the IP packet of an Ethernet frame (after any VLAN tags) and its EtherType
    k = 12
    while f[k:k + 2] in (b"\x81\x00", b"\x88\xa8"): k += 4
    return struct.unpack(">H", f[k:k + 2])[0], f[k + 2:]
def ip4(proto, p):
    return struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(p), 1, 0x4000, 64, proto, 0, bytes([10, 9, 0, 1]), bytes([10, 9, 0, 2])) + p
def ip6(nh, p):
    return struct.pack(">IHBB", 0x60000000, len(p), nh, 64) + bytes.fromhex("fe80" + "00" * 13 + "01fe80" + "00" * 13 + "02") + p
udp = lambda dp, p: struct.pack(">HHHH", 49152, dp, 8 + len(p), 0) + p
eth = lambda et, p: bytes.fromhex("001122334455006677889900") + struct.pack(">H", et) + p
gre = lambda flags, pt, words, p: struct.pack(">HH", flags, pt) + words + p
kinds = {
    "vxlan": lambda f: eth(0x0800, ip4(17, udp(4789, struct.pack(">II", 0x08000000, 0x123400) + f))),
    "vxlan6": lambda f: eth(0x86DD, ip6(17, udp(4789, struct.pack(">II", 0x08000000, 0x000100) + f))),
    "geneve": lambda f: eth(0x0800, ip4(17, udp(6081, struct.pack(">BBHI", 2, 0, 0x6558, 0x00abcd00) + bytes.fromhex("0102030400000000") + f))),
    "gre": lambda f: eth(0x0800, ip4(47, gre(0, 0x6558, b"", f))),
    "grekey": lambda f: eth(0x0800, ip4(47, gre(0x3000, 0x6558, struct.pack(">II", 0xabcd, 9), f))),
    "greip": lambda f: eth(0x0800, ip4(47, gre(0, ip_of(f)[0], b"", ip_of(f)[1]))),
    "erspan1": lambda f: eth(0x0800, ip4(47, gre(0, 0x88BE, b"", f))),
    "erspan2": lambda f: eth(0x0800, ip4(47, gre(0x1000, 0x88BE, struct.pack(">I", 7), struct.pack(">HHI", 0x1064, 0x0801, 5) + f))),
    "erspan3": lambda f: eth(0x0800, ip4(47, gre(0x1000, 0x22EB, struct.pack(">I", 7), struct.pack(">HHIHH", 0x2064, 0x0001, 0x11223344, 0, 0x0009) + bytes(8) + f))),
    "mpls": lambda f: eth(0x8847, struct.pack(">II", (1000 << 12) | 64, (2000 << 12) | (1 << 8) | 63) + ip_of(f)[1]),
    "ipip": lambda f: eth(0x0800, ip4(4 if ip_of(f)[0] == 0x0800 else 41, ip_of(f)[1])),
}
hdr = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
rec = lambda i, r: struct.pack("<IIII", 0, 10 * i, len(r), len(r)) + r  # 10 us apart
# IP extension headers (ext.pcap): the UBoE frames with IPv6 extension headers / an IPv4 AH or options
# (ICRC computed again), and what is not UB after them (MLD after hop-by-hop, ICMPv6, TCP)
def csum(h):
    c = sum(struct.unpack(">%dH" % (len(h) // 2), h))
    c = (c & 0xFFFF) + (c >> 16)
    return ~((c & 0xFFFF) + (c >> 16)) & 0xFFFF
def icrc(pkt, masks):  # the ICRC of an IP packet with these byte ranges all ones (§5.3.7; IPv6's version kept)
    m = bytearray(pkt)
    for a, n in masks: m[a:a + n] = b"\xff" * n
    m[0] = pkt[0] | 0x0F if pkt[0] >> 4 == 6 else m[0]
    return struct.pack("<I", zlib.crc32(bytes(m)))
EXT = {"hbh": (0, lambda nh: bytes([nh, 0, 1, 4, 0, 0, 0, 0])), "dst": (60, lambda nh: bytes([nh, 0, 1, 4, 0, 0, 0, 0])),
       "rt": (43, lambda nh: bytes([nh, 2, 4, 0, 0, 0, 0, 0]) + bytes(16)), "frag": (44, lambda nh: bytes([nh, 0, 0, 0, 0, 0, 0x12, 0x34])),
       "fragm": (44, lambda nh: bytes([nh, 0, 0, 1, 0, 0, 0x12, 0x35])),
       "ah": (51, lambda nh: bytes([nh, 4, 0, 0]) + struct.pack(">II", 0x100, 1) + bytes(12))}
def with_ext(f, chain):  # the Ethernet frame f with extension headers `chain` after its IP header
    k = len(f) - len(ip_of(f)[1])
    ip = f[k:]
    if ip[0] >> 4 == 4:
        ihl, tot = (ip[0] & 15) * 4, struct.unpack(">H", ip[2:4])[0]
        opt = bytes([1, 1, 1, 1]) if chain == ["opt"] else b""
        x = b"" if opt else EXT["ah"][1](ip[9])
        h = bytearray(ip[:ihl] + opt)
        h[0] += len(opt) // 4
        h[2:4] = struct.pack(">H", tot + len(opt) + len(x))
        h[9] = h[9] if opt else 51
        h[10:12] = b"\0\0"
        h[10:12] = struct.pack(">H", csum(bytes(h)))
        pkt = bytes(h) + x + ip[ihl:tot]
        u = len(h) + len(x)
        return f[:k] + pkt + (icrc(pkt, ((1, 1), (8, 1), (10, 2), (u + 6, 2))) if len(ip) - tot == 4 else ip[tot:])
    plen = struct.unpack(">H", ip[4:6])[0]
    x = b""
    for i, name in enumerate(chain):
        x += EXT[name][1](EXT[chain[i + 1]][0] if i + 1 < len(chain) else ip[6])
    pkt = ip[:4] + struct.pack(">HB", plen + len(x), EXT[chain[0]][0]) + ip[7:40] + x + ip[40:40 + plen]
    tail = ip[40 + plen:]
    if len(tail) == 4 and ip[6] == 17:
        tail = icrc(pkt, ((0, 4), (7, 1), (40 + len(x) + 6, 2)))
    return f[:k] + pkt + tail
v6ub = [f for f in frames if ip_of(f)[0] == 0x86DD]
v4ub = [f for f in frames[:3] if ip_of(f)[0] == 0x0800]
icmp6 = lambda t, p: struct.pack(">BBH", t, 0, 0) + p
nonub = [eth(0x86DD, ip6(58, icmp6(143, bytes(4)))), eth(0x86DD, ip6(58, icmp6(128, struct.pack(">HH", 0x42, 1) + b"ping"))),
         eth(0x86DD, ip6(6, struct.pack(">HHIIBBHHH", 40000, 443, 1, 0, 0x50, 0x18, 501, 0, 0)))]
def igmp(t, mr, grp, extra=b""):  # IGMP with its checksum (RFC 2236, 3376)
    m = bytearray(struct.pack(">BBH4s", t, mr, 0, grp) + extra)
    m[2:4] = struct.pack(">H", csum(bytes(m)))
    return bytes(m)
g = bytes([239, 1, 1, 1])
# IP protocols Wireshark's dissectors take and ubdump names (ipown.pcap): IGMP v1/v2/v3, ESP, OSPF, PIM,
# VRRP, SCTP, over IPv4 and IPv6 (after a hop-by-hop header too)
ipown = [eth(0x0800, ip4(2, igmp(0x16, 0, g))), eth(0x0800, ip4(2, igmp(0x11, 100, bytes(4)))), eth(0x0800, ip4(2, igmp(0x11, 0, bytes(4)))),
         eth(0x0800, ip4(2, igmp(0x17, 0, g))), eth(0x0800, ip4(2, igmp(0x11, 100, bytes(4), struct.pack(">BBH", 2, 125, 0)))),
         eth(0x0800, ip4(2, igmp(0x12, 0, g))), eth(0x0800, ip4(50, struct.pack(">II", 0x1234, 7) + bytes(32))),
         eth(0x0800, ip4(112, bytes.fromhex("2101640100010000c0a80101"))), eth(0x0800, ip4(103, bytes.fromhex("2000") + bytes(10))),
         eth(0x0800, ip4(89, bytes(24))), eth(0x0800, ip4(132, struct.pack(">HHII", 5000, 5001, 1, 0) + bytes.fromhex("0e000004"))),
         eth(0x86DD, ip6(50, struct.pack(">II", 0x99, 1) + bytes(24))), eth(0x86DD, ip6(89, bytes(24))),
         eth(0x86DD, ip6(0, bytes([103, 0, 1, 4, 0, 0, 0, 0]) + bytes.fromhex("2000") + bytes(10)))]
with open(sys.argv[1].replace("tun.pcap", "ipown.pcap"), "wb") as out:
    out.write(hdr)
    for i, f in enumerate(ipown): out.write(rec(i + 1, f))
with open(sys.argv[1].replace("tun.pcap", "ext.pcap"), "wb") as out:
    out.write(hdr)
    n = 0
    for chains, fs in ((("hbh", "dst", "rt", "frag", "fragm", "ah", "hbh+rt+frag+dst", "hbh+dst+ah"), v6ub), (("ah", "opt"), v4ub),
                       (("hbh", "dst+ah", "rt+frag"), nonub)):
        for f in fs:
            for c in chains:
                n += 1
                out.write(rec(n, with_ext(f, c.split("+"))))
with open(sys.argv[1], "wb") as out:  # every kind in turn; each alone (tun_KIND.pcap) and its frames untunnelled
    out.write(hdr)
    n = 0
    for name, fn in kinds.items():
        with open(sys.argv[1].replace("tun.pcap", "tun_%s.pcap" % name), "wb") as one, \
             open(sys.argv[1].replace("tun.pcap", "plain_%s.pcap" % name), "wb") as plain:
            one.write(hdr)
            plain.write(hdr)
            i = 0
            for f in frames:
                if name in ("greip", "mpls", "ipip") and ip_of(f)[0] not in (0x0800, 0x86DD): continue
                r = fn(f)
                n += 1
                i += 1
                out.write(rec(n, r))
                one.write(rec(i, r))
                plain.write(rec(i, f))
PY
    tunf="-e vxlan.vni -e vxlan.flags -e geneve.vni -e geneve.proto_type -e gre.proto -e gre.flags.key -e erspan.version -e erspan.spanid -e erspan.index -e erspan.timestamp -e mpls.label -e mpls.bottom -e ip.src -e ipv6.dst -e eth.src -e udp.dstport -e ub.btah.taopcode"
    # shellcheck disable=SC2086
    ts -n -r "$tmp/tun.pcap" -T fields $cols4 $tunf > "$tmp/tc.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" -r "$tmp/tun.pcap" -T fields $cols4 $tunf > "$tmp/uc.txt" 2> /dev/null
    cmp -s "$tmp/uc.txt" "$tmp/tc.txt" && ok || { bad "tunnels: columns and fields differ from tshark's"; diff "$tmp/tc.txt" "$tmp/uc.txt" | head -6; }
    yparity "tunnels" "$tmp/tun.pcap" vxlan geneve erspan 'gre && !erspan' 'mpls.label == 2000' 'vxlan.vni == 0x1234' 'ub && ip.src == 192.168.1.1' \
        'ipv6.dst == fd00::2 && ub.btah' 'arp' 'ub.rtph.psn == 1 && gre'
    same "tunnels: VXLAN frame 1" "eth:ethertype:ip:udp:vxlan:eth:ethertype:vlan:ethertype:ip:udp:ub	192.168.1.1	0x03" \
        "$("$U" -r "$tmp/tun.pcap" -c 1 -T fields -e frame.protocols -e _ws.col.Source -e ub.btah.taopcode 2> /dev/null)"
    same "tunnels: UB records" "85 records: 77 UB, 8 other (not UB)" "$("$U" -r "$tmp/tun.pcap" -q 2> /dev/null)"
    # the audit judges the inner UB traffic: through any tunnel, the report of the same frames untunnelled
    for k in vxlan vxlan6 geneve gre grekey greip erspan1 erspan2 erspan3 mpls ipip; do
        "$U" -r "$tmp/plain_$k.pcap" --audit -q 2> /dev/null | sed 's/^UB audit of [^:]*:/UB audit:/' > "$tmp/ua.txt"
        "$U" -r "$tmp/tun_$k.pcap" --audit -q 2> /dev/null | sed 's/^UB audit of [^:]*:/UB audit:/' | cmp -s - "$tmp/ua.txt" &&
            ok || bad "tunnels: the audit through $k differs from the audit of its frames untunnelled"
    done
    same "tunnels: the audit through ERSPAN III" "UB audit: 8 records, 8 packets
note     UB-TP-002  x1  PSN gap never filled nor acknowledged: packets lost or skipped" \
        "$("$U" -r "$tmp/tun_erspan3.pcap" --audit -q 2> /dev/null | grep -E '^UB audit|UB-TP-002  x' | sed 's/^UB audit of [^:]*:/UB audit:/')"
    # IP extension headers (IPv6 hop-by-hop, routing, fragment, destination options; AH), as Wireshark walks
    # them to UDP, ICMPv6, TCP: columns, fields and filters as tshark's; UB packets carry none (NW-03)
    extf="-e ipv6.nxt -e ipv6.hopopts.nxt -e ipv6.dstopts.len -e ipv6.routing.type -e ipv6.routing.segleft -e ipv6.fraghdr.offset -e ipv6.fraghdr.more -e ipv6.fraghdr.ident -e ah.next_header -e ah.spi -e ah.sequence -e ip.hdr_len -e udp.dstport -e ub.btah.taopcode -e ub.icrc.status"
    # shellcheck disable=SC2086
    ts -n -r "$tmp/ext.pcap" -T fields $cols4 $extf > "$tmp/tc.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" -r "$tmp/ext.pcap" -T fields $cols4 $extf > "$tmp/uc.txt" 2> /dev/null
    cmp -s "$tmp/uc.txt" "$tmp/tc.txt" && ok || { bad "IP extension headers: columns and fields differ from tshark's"; diff "$tmp/tc.txt" "$tmp/uc.txt" | head -6; }
    yparity "IP extension headers" "$tmp/ext.pcap" ipv6.hopopts ipv6.fraghdr ipv6.routing ipv6.dstopts ah 'ipv6.fraghdr.more == 1' 'ah && ub' 'ipv6.hopopts.nxt == 58' \
        'ub.btah && ipv6.nxt == 0' 'icmpv6 && ipv6.dstopts' 'ip.proto == 51' 'ip.hdr_len > 20' 'ip.hdr_len == 20' \
        'tcp.hdr_len == 20' 'ip.hdr_len & 4' 'ip.hdr_len * 2 == 48'
    same "IP extension headers: frame 8" "eth:ethertype:ipv6:ipv6.hopopts:ipv6.dstopts:ah:udp:ub	UB-TA	17	1" \
        "$("$U" -r "$tmp/ext.pcap" -Y frame.number==8 -T fields -e frame.protocols -e _ws.col.Protocol -e ah.next_header -e ub.icrc.status 2> /dev/null)"
    same "IP extension headers: NW-03 in the UB packets that carry them and at the first fragment never completed" "UB-NW-003  x12" \
        "$("$U" -r "$tmp/ext.pcap" --audit -q 2> /dev/null | grep -o 'UB-NW-003  x[0-9]*')"
    same "IP extension headers: -T json, IPv6's in its tree (frame 7)" "ipv6.hopopts ipv6.routing ipv6.fraghdr ipv6.dstopts 17 4660" \
        "$("$U" -r "$tmp/ext.pcap" -Y frame.number==7 -T json 2> /dev/null | python3 -c 'import json,sys; l=json.load(sys.stdin)[0]["_source"]["layers"]["ipv6"]; print(*[k for k in l if isinstance(l[k], dict)], l["ipv6.dstopts"]["ipv6.dstopts.nxt"], int(l["ipv6.fraghdr"]["ipv6.fraghdr.ident"], 16))')"
    # IGMP, ESP, OSPF, PIM, VRRP, SCTP: Wireshark's dissectors take the datagram (frame.protocols, the
    # Protocol column by version: IGMPv1/v2/v3, PIMv2) and its protocol hierarchy
    # shellcheck disable=SC2086
    ts -n -r "$tmp/ipown.pcap" -T fields $cols4 > "$tmp/tc.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" -r "$tmp/ipown.pcap" -T fields $cols4 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok || { bad "IP protocols: columns differ from tshark's"; "$U" -r "$tmp/ipown.pcap" -T fields $cols4 2>&1 | diff "$tmp/tc.txt" - | head -4; }
    same "IP protocols: Protocol column" "IGMPv2 IGMPv2 IGMPv1 IGMPv2 IGMPv3 IGMPv1 ESP VRRP PIMv2 OSPF SCTP ESP OSPF PIMv2" \
        "$("$U" -r "$tmp/ipown.pcap" -T fields -e _ws.col.Protocol 2> /dev/null | tr '\n' ' ' | sed 's/ $//')"
    # the protocol hierarchy: one level for IGMP's version item and IPv6's extension headers (in their
    # trees), one per MPLS label
    for f in ipown ext tun; do
        ts -n -q -r "$tmp/$f.pcap" -z io,phs > "$tmp/tp.txt" 2> /dev/null
        "$U" -q -r "$tmp/$f.pcap" -z io,phs 2> /dev/null | cmp -s - "$tmp/tp.txt" && ok || bad "$f: -z io,phs differs from tshark's"
    done
    yparity "IP protocols" "$tmp/ipown.pcap" igmp esp ospf pim vrrp sctp 'igmp && ipv6' 'pim && ipv6.hopopts'
    # Ethernet frames captured with their FCS (pcapng if_fcslen, or epb_flags bits 5-8), as capture cards
    # and TAPs record them: the frame, its IP packet and ICRC stop before the FCS, as in Wireshark
    "$U" -r "$tmp/nofcs.pcapng" --audit -q 2> /dev/null | sed 's/^UB audit of [^:]*:/UB audit:/' > "$tmp/ua.txt"
    for f in fcs_if fcs_epb; do
        # shellcheck disable=SC2086
        ts -n -r "$tmp/$f.pcapng" -T fields $cols4 -e frame.len -e ub.icrc.status > "$tmp/tc.txt" 2> /dev/null
        # shellcheck disable=SC2086
        "$U" -r "$tmp/$f.pcapng" -T fields $cols4 -e frame.len -e ub.icrc.status 2> /dev/null | cmp -s - "$tmp/tc.txt" &&
            ok || bad "$f: columns differ from tshark's"
        ts -n -r "$tmp/$f.pcapng" -x > "$tmp/tx.txt" 2> /dev/null
        "$U" -r "$tmp/$f.pcapng" -x 2> /dev/null | grep -v '^-- \|^ ' | cmp -s - "$tmp/tx.txt" && ok || bad "$f: -x differs from tshark's"
        "$U" -r "$tmp/$f.pcapng" --audit -q 2> /dev/null | sed 's/^UB audit of [^:]*:/UB audit:/' | cmp -s - "$tmp/ua.txt" &&
            ok || bad "$f: the audit differs from the audit of the frames without FCS"
    done
    same "FCS: the plugin's Info and ICRC status (no trailing bytes)" "0 7" \
        "$(ts -n -r "$tmp/fcs_epb.pcapng" -T fields -e _ws.col.Info -e ub.icrc.status 2> /dev/null | awk -F'\t' '/trailing/ { t++ } $2 == 1 { g++ } END { print t + 0, g + 0 }')"
    same "FCS: the audit" "UB audit: 7 records, 7 packets
note     UB-TP-002  x1  PSN gap never filled nor acknowledged: packets lost or skipped" \
        "$("$U" -r "$tmp/fcs_if.pcapng" --audit -q 2> /dev/null | grep -E '^UB audit|  x[0-9]' | sed 's/^UB audit of [^:]*:/UB audit:/')"
    # -w keeps the FCS and says so (epb_flags); ubreplay sends (here: writes) the frames without it
    "$U" -r "$tmp/fcs_if.pcapng" -w "$tmp/fcs_w.pcapng" 2> /dev/null
    "$U" -r "$tmp/fcs_w.pcapng" --audit -q 2> /dev/null | sed 's/^UB audit of [^:]*:/UB audit:/' | cmp -s - "$tmp/ua.txt" &&
        ok || bad "FCS: the audit of ubdump -w's copy differs"
    same "FCS: ubdump -w's copy, tshark's FCS length" "4" "$(ts -n -r "$tmp/fcs_w.pcapng" -c 1 -T fields -e frame.packet_flags_fcs_length 2> /dev/null)"
    "$UBREPLAY" -w "$tmp/fcs_r.pcapng" "$tmp/fcs_epb.pcapng" > /dev/null 2>&1
    same "FCS: ubreplay's frames" "$("$U" -r "$tmp/nofcs.pcapng" -x 2> /dev/null | grep '^[0-9a-f]\{4\}  ')" \
        "$("$U" -r "$tmp/fcs_r.pcapng" -x 2> /dev/null | grep '^[0-9a-f]\{4\}  ')"
    # frame.comment: the pcapng comments of a record (none, one, two, empty; a newline, a tab, quotes, UTF-8)
    python3 - "$tmp/uboe.pcap" "$tmp/cm.pcapng" "$tmp/cb.pcapng" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
o, frames = 24, []
while o + 16 <= len(b):
    cl = struct.unpack("<I", b[o + 8:o + 12])[0]
    frames.append(b[o + 16:o + 16 + cl])
    o += 16 + cl
def blk(t, body):
    body += bytes(-len(body) % 4)
    return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
opt = lambda code, v: struct.pack("<HH", code, len(v)) + v + bytes(-len(v) % 4)
with open(sys.argv[2], "wb") as f:
    f.write(blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)) + blk(1, struct.pack("<HHI", 1, 0, 0)))
    for i, cm in enumerate([[b"a comment"], [b"two\nlines", b"second, with comma"], [], ["tab\there \"q\" \\ é".encode()], [b""]]):
        fr = frames[i % len(frames)]
        opts = b"".join(opt(1, c) for c in cm) + (opt(0, b"") if cm else b"")
        f.write(blk(6, struct.pack("<IIIII", 0, 0, 1000 * (i + 1), len(fr), len(fr)) + fr + bytes(-len(fr) % 4) + opts))
# blocks Wireshark numbers as frames without a packet: custom (copyable, not, before the first IDB),
# a systemd journal entry, a Sysdig event; and an unknown block type, which is not a frame
cb = lambda t, pl: blk(t, struct.pack("<I", 32473) + pl)
other = [cb(0x40000BAD, b"x"), blk(9, b"__REALTIME_TIMESTAMP=1700000000000000\nMESSAGE=hi\n"),
         blk(0x204, bytes(range(24))), cb(0xBAD, b""), blk(0x80000001, b"abcd")]
with open(sys.argv[3], "wb") as f:
    f.write(blk(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)) + cb(0xBAD, b"pre") + blk(1, struct.pack("<HHI", 1, 0, 0)))
    for i in range(6):
        fr = frames[i % len(frames)]
        f.write(blk(6, struct.pack("<IIIII", 0, 0, 1000 * (i + 1), len(fr), len(fr)) + fr + bytes(-len(fr) % 4)))
        f.write(b"".join(other[:i % 3 + 1]))
PY
    # frame numbers after them are Wireshark's (the non-packet frames themselves are not shown)
    ts -n -r "$tmp/cb.pcapng" -Y udp -T fields -e frame.number -e ub.btah.taopcode > "$tmp/tb.txt" 2> /dev/null
    "$U" -r "$tmp/cb.pcapng" -T fields -e frame.number -e ub.btah.taopcode 2> /dev/null | cmp -s - "$tmp/tb.txt" && ok || bad "non-packet pcapng frames: frame numbers differ from tshark's"
    same "non-packet pcapng frames: the packets' frames" "2 4 7 11 13 16" "$(cut -f1 "$tmp/tb.txt" | tr '\n' ' ' | sed 's/ $//')"
    same "non-packet pcapng frames: -Y frame.number" "11" "$("$U" -r "$tmp/cb.pcapng" -Y 'frame.number == 11' -T fields -e frame.number 2> /dev/null)"
    # IP fragments (RFC 791, RFC 8200 §4.5): reassembled at the record that completes the datagram, as
    # Wireshark does: UB over IPv4 in three fragments, last first, a duplicate; IPv6; not UB; one never whole
    editcap -F pcap "$C/mixed_eth.pcapng" "$tmp/mixed_eth.pcap"
    python3 - "$tmp/uboe.pcap" "$tmp/mixed_eth.pcap" "$tmp/frag.pcap" <<'PY'
import struct, sys
def frames_of(path):
    b = open(path, "rb").read(); o, fr = 24, []
    while o + 16 <= len(b):
        cl = struct.unpack("<I", b[o + 8:o + 12])[0]; fr.append(b[o + 16:o + 16 + cl]); o += 16 + cl
    return fr
ub = frames_of(sys.argv[1]); other = frames_of(sys.argv[2])
def csum(h):
    s = sum(struct.unpack(">%dH" % (len(h) // 2), h))
    while s >> 16: s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF
def l2(f):  # bytes before the IP header: Ethernet and its VLAN tags
    o = 12
    while f[o:o + 2] in (b"\x81\x00", b"\x88\xa8"): o += 4
    return o + 2
def frag4(f, ident, cuts):  # the IPv4 packet of Ethernet frame f cut at data offsets (multiples of 8)
    eth, ip = f[:l2(f)], f[l2(f):]
    hl, tot = (ip[0] & 15) * 4, struct.unpack(">H", ip[2:4])[0]
    data, trailer, out = ip[hl:tot], ip[tot:], []
    bounds = [0] + cuts + [len(data)]
    for i in range(len(bounds) - 1):
        piece, last = data[bounds[i]:bounds[i + 1]], i == len(bounds) - 2
        h = bytearray(ip[:hl])
        struct.pack_into(">H", h, 2, hl + len(piece))
        if ident is not None: struct.pack_into(">H", h, 4, ident)  # else the datagram's own (the ICRC covers it)
        struct.pack_into(">H", h, 6, (h[6] & 0x40) << 8 | (0 if last else 0x2000) | bounds[i] // 8)
        struct.pack_into(">H", h, 10, 0); struct.pack_into(">H", h, 10, csum(bytes(h)))
        out.append(eth + bytes(h) + piece + (trailer if last else b""))
    return out
def frag6(f, ident, cuts):
    eth, ip = f[:l2(f)], f[l2(f):]
    plen = struct.unpack(">H", ip[4:6])[0]
    data, trailer, nh, out = ip[40:40 + plen], ip[40 + plen:], ip[6], []
    bounds = [0] + cuts + [len(data)]
    for i in range(len(bounds) - 1):
        piece, last = data[bounds[i]:bounds[i + 1]], i == len(bounds) - 2
        h = bytearray(ip[:40]); struct.pack_into(">H", h, 4, 8 + len(piece)); h[6] = 44
        fh = struct.pack(">BBHI", nh, 0, bounds[i] | (0 if last else 1), ident)
        out.append(eth + bytes(h) + fh + piece + (trailer if last else b""))
    return out
w4 = frag4(ub[0], None, [64, 128])
t4 = frag4(ub[1], None, [16])
v6 = frag6(ub[2], 7, [48])
dns = frag4(other[7], 0x55, [8])
u6 = frag6(other[4], 9, [8])
lone = frag4(ub[0], 0x1ff, [64])[0]
dup = frag4(ub[1], None, [16])
seq = [w4[0], w4[1], v6[0], w4[2],   # 1-4: a Write in three, whole at 4 (an IPv6 one begun at 3)
       t4[1], t4[0],                 # 5-6: a TPACK, last fragment first: whole at 6
       v6[1],                        # 7: the IPv6 Send whole
       dns[0], dns[1],               # 8-9: not UB (UDP 5001), whole at 9
       lone,                         # 10: never completed
       dup[0], dup[0], dup[1],       # 11-13: a duplicate fragment: whole at 13
       ub[1],                        # 14: a TPACK not fragmented
       u6[1], u6[0]]                 # 15-16: IPv6, not UB: whole at 16
def write(path, seq):
    with open(path, "wb") as o:
        o.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, f in enumerate(seq):
            o.write(struct.pack("<IIII", i, 0, len(f), len(f)) + f)
write(sys.argv[3], seq)
# 70 UB datagrams of which only the first fragment comes: 64 stay open, 6 are given up for newer ones
write(sys.argv[3].replace(".pcap", "_lost.pcap"), [frag4(ub[0], 0x300 + i, [64])[0] for i in range(70)])
def snap(f):  # Ethernet II (and its tags) made IEEE 802.3 + LLC/SNAP (RFC 1042) with the same EtherType
    o = l2(f) - 2
    body = b"\xaa\xaa\x03\x00\x00\x00" + f[o:]
    return f[:o] + struct.pack(">H", len(body)) + body
# UB over SNAP: IPv4 behind a VLAN tag (a Write, a TPACK), IPv6; not UB over SNAP; a UB datagram in two
# fragments over SNAP; an Ethernet II frame
write(sys.argv[3].replace("frag.pcap", "snap.pcap"),
      [snap(ub[0]), snap(ub[1]), snap(ub[2]), snap(other[7]), snap(other[4])] + [snap(x) for x in frag4(ub[0], None, [64])] + [ub[-1]])
def retag(f, *tags):  # the frame with these (TPID, TCI) tags instead of its own
    return f[:12] + b"".join(struct.pack(">HH", t, c) for t, c in tags) + f[l2(f) - 2:]
# IPv4 fragments in other VLANs are other datagrams (Wireshark keys on the first non-zero 802.1Q VID;
# not 802.1ad S-tags, not the priority; IPv6 not at all): pairs of a Write's two fragments, each pair
# its own ID; then one datagram mirrored on VLANs 100 and 200, then IPv6 across VLANs
pairs = [(((0x8100, 100),), ((0x8100, 200),)),                              # 1-2: never whole
         (((0x88A8, 100), (0x8100, 5)), ((0x88A8, 200), (0x8100, 5))),      # 3-4: whole at 4
         (((0x8100, 100), (0x8100, 5)), ((0x8100, 200), (0x8100, 5))),      # 5-6: never whole
         (((0x8100, 100), (0x8100, 5)), ((0x8100, 100), (0x8100, 6))),      # 7-8: whole at 8
         (((0x8100, 0), (0x8100, 5)), ((0x8100, 5),)),                      # 9-10: whole at 10
         (((0x8100, 0x2007),), ((0x8100, 0x6007),)),                        # 11-12: whole at 12
         (((0x8100, 0),), ())]                                              # 13-14: whole at 14
vf = []
for i, (a, b) in enumerate(pairs):
    x, y = frag4(ub[0], 0x401 + i, [64])
    vf += [retag(x, *a), retag(y, *b)]
m1, m2 = frag4(ub[0], 0x410, [64])
vf += [retag(m1, (0x8100, 100)), retag(m1, (0x8100, 200)), retag(m2, (0x8100, 100)), retag(m2, (0x8100, 200))]  # 15-18: whole at 17, 18
s1, s2 = frag6(ub[2], 0x411, [48])
vf += [retag(s1, (0x8100, 100)), retag(s2, (0x8100, 200))]                  # 19-20: whole at 20
def snap_tag(f, tci):  # IEEE 802.3 + LLC/SNAP naming an 802.1Q tag, then the tag and the IP packet
    body = b"\xaa\xaa\x03\x00\x00\x00\x81\x00" + struct.pack(">H", tci) + f[l2(f) - 2:]
    return f[:12] + struct.pack(">H", len(body)) + body
vf += [snap_tag(x, 100) for x in frag4(ub[0], None, [64])]                  # 21-22: whole at 22 (a tag after SNAP)
q1, q2 = frag4(ub[0], 0x412, [64])
vf += [snap_tag(q1, 100), snap_tag(q2, 200)]                                # 23-24: never whole (the VIDs after SNAP differ)
r1, r2 = frag4(ub[0], 0x413, [64])
vf += [retag(r1, (0x8100, 100)), snap_tag(r2, 100)]                         # 25-26: whole at 26 (VID 100 before / after SNAP)
write(sys.argv[3].replace("frag.pcap", "vfrag.pcap"), vf)
PY
    TFR="-e frame.number -e _ws.col.Protocol -e udp.srcport -e udp.dstport -e udp.length -e ub.rtph.psn -e ub.btah.taopcode -e ip.id"
    ts -n -r "$tmp/frag.pcap" -T fields $TFR > "$tmp/tfr.txt" 2> /dev/null
    "$U" -r "$tmp/frag.pcap" -T fields $TFR 2> /dev/null | cmp -s - "$tmp/tfr.txt" && ok || { bad "IP fragments: fields differ from tshark's"; "$U" -r "$tmp/frag.pcap" -T fields $TFR | diff "$tmp/tfr.txt" - || true; }
    ts -n -r "$tmp/frag.pcap" -Y ip -T fields -e frame.number -e frame.protocols > "$tmp/tfr.txt" 2> /dev/null
    "$U" -r "$tmp/frag.pcap" -Y ip -T fields -e frame.number -e frame.protocols 2> /dev/null | cmp -s - "$tmp/tfr.txt" && ok || bad "IP fragments: IPv4 frame.protocols differ from tshark's"
    ts -n -r "$tmp/frag.pcap" -x > "$tmp/tfr.txt" 2> /dev/null # the frame, then "Reassembled IPv4/IPv6"
    "$U" -r "$tmp/frag.pcap" -x 2> /dev/null | grep -v '^-- \|^ ' | cmp -s - "$tmp/tfr.txt" && ok || bad "IP fragments: -x differs from tshark's"
    yparity "IP fragments" "$tmp/frag.pcap" ub udp 'udp.dstport == 4792' 'ub.rtph.psn == 1' 'ip.id == 0x55' ub.err.ip_fragmented
    same "IP fragments: UB at" "4 6 7 13 14" "$("$U" -r "$tmp/frag.pcap" -Y ub -T fields -e frame.number 2> /dev/null | paste -sd' ')"
    same "IP fragments: the ICRC of the reassembled datagrams" "4:1 6:1 7:1 13:1 14:1" \
        "$("$U" -r "$tmp/frag.pcap" -Y ub -T fields -e frame.number -e ub.icrc.status 2> /dev/null | tr '\t' ':' | paste -sd' ')"
    "$U" -r "$tmp/frag.pcap" --audit -q > "$tmp/fra1.txt" 2> /dev/null || true # (exit 1: errors found)
    same "IP fragments: the audit (NW-03 at each UB datagram reassembled)" "4 6 7 13" \
        "$(grep -o 'frame [0-9]*: IP fragments reassembled' "$tmp/fra1.txt" | cut -d' ' -f2 | tr -d : | paste -sd' ')"
    same "IP fragments: no other error" "0" "$(grep -c '^error    UB-NW-005\|^error    UB-PK' "$tmp/fra1.txt")"
    # a UB datagram never completed (frame 10): NW-03 at its first fragment, a warning, the count
    same "IP fragments: NW-03 at a UB datagram never reassembled" \
        "frame 10: IP fragments of a UB datagram never reassembled (incomplete at the end of the capture)" \
        "$(grep -o 'frame [0-9]*: IP fragments of a UB datagram never reassembled ([a-z ]*)' "$tmp/fra1.txt")"
    same "IP fragments: its key" "1" "$(grep -c 'IP datagram 192.168.1.1->192.168.1.2 ID 0x1ff VLAN 100; values 1, 64$' "$tmp/fra1.txt")"
    "$U" -r "$tmp/frag.pcap" -q > "$tmp/fra2.txt" 2>&1 || true
    same "IP fragments: the warning" "1" "$(grep -c '^ubdump: warning: 1 UB datagram (UDP destination port 4792) was IP-fragmented and never reassembled, so not decoded; first fragment at frame 10$' "$tmp/fra2.txt")"
    same "IP fragments: -q counts it" "1" "$(grep -c '^16 records: 5 UB, 11 other (not UB); 1 IP datagram never reassembled$' "$tmp/fra2.txt")"
    "$U" -r "$tmp/frag_lost.pcap" --audit -q > "$tmp/fra3.txt" 2> "$tmp/fra3.err" || true
    "$U" -r "$tmp/frag_lost.pcap" --audit --audit-format sarif -q > "$tmp/fra3.sarif" 2> /dev/null || true
    same "IP fragments: 70 never whole: 6 given up for newer ones (frames 1-6), 64 at the end (7-70)" "70 6 64 1-6 7-70" \
        "$(grep -o 'UB-NW-003  x[0-9]*' "$tmp/fra3.txt" | cut -dx -f2) $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
g = [x["properties"]["frame"] for x in r if "given up for newer" in x["properties"]["detail"]]
e = [x["properties"]["frame"] for x in r if "at the end of the capture" in x["properties"]["detail"]]
print(len(g), len(e), "%d-%d" % (min(g), max(g)), "%d-%d" % (min(e), max(e)))' "$tmp/fra3.sarif")"
    same "IP fragments: 70 in the warning" "1" "$(grep -c '^ubdump: warning: 70 UB datagrams .* first fragments at frame 1, 2, 3, 4, ...$' "$tmp/fra3.err")"
    same "IP fragments: no 'no UB traffic' warning" "0" "$(grep -c 'contains no UB traffic' "$tmp/fra3.err")"
    { "$U" -r "$tmp/frag_lost.pcap" --audit -q --threads 2 2> /dev/null || true; } | cmp -s - "$tmp/fra3.txt" && ok || bad "IP fragments given up: the audit on two threads differs"
    # IPv4 fragments of other VLANs are other datagrams, as in Wireshark (IPv6's are not)
    TVF="-e frame.number -e vlan.id -e ieee8021ad.id -e ip.id -e udp.length -e ub.rtph.psn" # (new IDs: the ICRC covers them)
    ts -n -r "$tmp/vfrag.pcap" -T fields $TVF > "$tmp/tvf.txt" 2> /dev/null
    "$U" -r "$tmp/vfrag.pcap" -T fields $TVF 2> /dev/null | cmp -s - "$tmp/tvf.txt" && ok || { bad "IP fragments in VLANs: fields differ from tshark's"; "$U" -r "$tmp/vfrag.pcap" -T fields $TVF | diff "$tmp/tvf.txt" - || true; }
    ts -n -r "$tmp/vfrag.pcap" -Y ip -T fields -e frame.number -e frame.protocols > "$tmp/tvf.txt" 2> /dev/null
    "$U" -r "$tmp/vfrag.pcap" -Y ip -T fields -e frame.number -e frame.protocols 2> /dev/null | cmp -s - "$tmp/tvf.txt" && ok || bad "IP fragments in VLANs: IPv4 frame.protocols differ from tshark's"
    same "IP fragments in VLANs: UB at" "4 8 10 12 14 17 18 20 22 26" "$("$U" -r "$tmp/vfrag.pcap" -Y ub -T fields -e frame.number 2> /dev/null | paste -sd' ')"
    same "IP fragments in VLANs: -q" "26 records: 10 UB, 16 other (not UB); 6 IP datagrams never reassembled" "$("$U" -r "$tmp/vfrag.pcap" -q 2> /dev/null)"
    # the UB datagrams never reassembled, each reported with its VLAN (one ID in two VLANs: two datagrams)
    same "IP fragments in VLANs: NW-03 keys" "frame 1 192.168.1.1->192.168.1.2 ID 0x401 VLAN 100|frame 5 192.168.1.1->192.168.1.2 ID 0x403 VLAN 100|frame 23 192.168.1.1->192.168.1.2 ID 0x412 VLAN 100" \
        "$("$U" -r "$tmp/vfrag.pcap" --audit -q --audit-examples 20 2> /dev/null | grep -o 'frame [0-9]*: IP fragments of a UB datagram.*; IP datagram [^;]*' | sed 's/: IP fragments.*; IP datagram / /' | paste -sd'|')"
    # UBoE in IEEE 802.3 frames with LLC/SNAP (RFC 1042): eth:llc:ip:udp:ub, as Wireshark dissects them
    TSN="-e frame.number -e eth.type -e eth.len -e vlan.etype -e vlan.len -e frame.protocols -e llc.dsap -e llc.ssap -e llc.control -e llc.oui -e llc.type -e vlan.id -e ip.src -e ipv6.src -e udp.dstport -e ub.rtph.psn -e ub.btah.taopcode -e _ws.col.Protocol"
    ts -n -r "$tmp/snap.pcap" -T fields $TSN > "$tmp/tsn.txt" 2> /dev/null
    "$U" -r "$tmp/snap.pcap" -T fields $TSN 2> /dev/null | cmp -s - "$tmp/tsn.txt" && ok || { bad "LLC/SNAP: fields differ from tshark's"; "$U" -r "$tmp/snap.pcap" -T fields $TSN | diff "$tmp/tsn.txt" - || true; }
    yparity "LLC/SNAP" "$tmp/snap.pcap" llc ub 'llc.oui == 0' 'llc.type == 0x86dd' 'vlan && llc' 'llc.dsap == 0xaa && !ub' ub.err.ip_fragmented
    same "LLC/SNAP: UB at, ICRC good" "1:1 2:1 3:1 7:1 8:1" \
        "$("$U" -r "$tmp/snap.pcap" -Y ub -T fields -e frame.number -e ub.icrc.status 2> /dev/null | tr '\t' ':' | paste -sd' ')"
    same "LLC/SNAP: summary" "ETH/SNAP/IPv6/UDP [fd00::1]:5000→[fd00::2]:9999" "$("$U" -r "$tmp/snap.pcap" -Y frame.number==5 2> /dev/null | sed 's/^ *5 [0-9.]* //')"
    same "LLC/SNAP: -T json, the llc layer" "frame eth llc ip udp ub | 0xaa 0x0003 0 0x0800" \
        "$("$U" -r "$tmp/snap.pcap" -Y frame.number==1 -T json 2> /dev/null | python3 -c 'import json,sys; l=json.load(sys.stdin)[0]["_source"]["layers"]; c=l["llc"]; print(*[k for k in l if k != "vlan"], "|", c["llc.dsap"], c["llc.control"], c["llc.oui"], c["llc.type"])')"
    { "$U" -r "$tmp/frag.pcap" --audit -q --threads 2 2> /dev/null || true; } | cmp -s - "$tmp/fra1.txt" && ok || bad "IP fragments: the audit on two threads differs"
    same "IP fragments: -o ip.defragment:FALSE" "14" "$("$U" -o ip.defragment:FALSE -r "$tmp/frag.pcap" -Y ub -T fields -e frame.number 2> /dev/null | paste -sd' ')"
    "$UBREPLAY" -w "$tmp/frag_r.pcap" "$tmp/frag.pcap" > /dev/null 2>&1
    same "IP fragments: ubreplay sends them as captured" "$("$U" -o ip.defragment:0 -r "$tmp/frag.pcap" -x 2> /dev/null | grep '^[0-9a-f]\{4\}  ' | md5sum)" \
        "$("$U" -o ip.defragment:0 -r "$tmp/frag_r.pcap" -x 2> /dev/null | grep '^[0-9a-f]\{4\}  ' | md5sum)"
    ts -n -r "$tmp/cm.pcapng" -T fields -e frame.number -e frame.comment -e ub.btah.taopcode > "$tmp/tc.txt" 2> /dev/null
    "$U" -r "$tmp/cm.pcapng" -T fields -e frame.number -e frame.comment -e ub.btah.taopcode 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok || bad "frame.comment: -T fields differs from tshark's"
    same "frame.comment: frame 2" 'two\nlines,second, with comma' "$("$U" -r "$tmp/cm.pcapng" -Y frame.number==2 -T fields -e frame.comment 2> /dev/null)"
    for T in json ek; do
        ts -n -r "$tmp/cm.pcapng" -T $T -e frame.number -e frame.comment > "$tmp/te.$T" 2> /dev/null
        "$U" -r "$tmp/cm.pcapng" -T $T -e frame.number -e frame.comment 2> /dev/null | cmp -s - "$tmp/te.$T" && ok || bad "frame.comment: -T $T -e differs from tshark's"
    done
    yparity "frame.comment" "$tmp/cm.pcapng" frame.comment '!frame.comment' 'frame.comment contains "comma"' 'frame.comment == "a comment"' 'frame.comment != "a comment"' \
        'frame.comment matches "^t"' 'frame.comment[0:3] == "two"' 'len(frame.comment) > 8' 'frame.comment && ub.rtph'
    same "frame.comment: -Y 'frame.comment != \"a comment\"'" "2 4 5" "$("$U" -r "$tmp/cm.pcapng" -Y 'frame.comment != "a comment"' -T fields -e frame.number 2> /dev/null | tr '\n' ' ' | sed 's/ $//')"
    # -T json|ek -e FIELD...: byte for byte tshark's output (absent fields left out, arrays of occurrences)
    # ICMP / ICMPv6 errors that quote a UB datagram (captures/icmp_ub): Wireshark's UDP hands the quote
    # to the UB plugin, which shows the UB headers as far as they were quoted; ubdump decodes the same
    cp "$C/icmp_ub.pcapng" "$tmp/iq.pcapng"
    chmod a+r "$tmp/iq.pcapng"
    iqf="-e frame.protocols -e _ws.col.Protocol -e ip.src -e ip.len -e ip.ttl -e udp.dstport -e icmp.type -e icmp.code -e icmp.mtu -e icmpv6.type -e icmpv6.mtu -e ub.rtph.psn -e ub.rtph.srctpn
 -e ub.rtph.a -e ub.utph.tpopcode -e ub.btah.taopcode -e ub.btah.ini_tassn -e ub.maetah.address -e ub.maetah.length -e ub.mtetah.tgt_tc_id -e ub.error"
    # shellcheck disable=SC2086
    ts -n -r "$tmp/iq.pcapng" -T fields $iqf > "$tmp/tc.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" -r "$tmp/iq.pcapng" -T fields $iqf 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok ||
        { bad "icmp_ub: fields differ from tshark's"; "$U" -r "$tmp/iq.pcapng" -T fields $iqf 2>&1 | diff "$tmp/tc.txt" - | head -6; }
    same "icmp_ub: the UB headers in the quotes (frames 2 4 6 8), none after an 8-byte quote (3) or a UB source port (7)" \
        "eth:ethertype:ip:icmp:ip:udp:ub 7 5 0x0000000000400000 1024|eth:ethertype:ip:icmp:ip:udp    |eth:ethertype:ip:icmp:ip:udp:ub    |eth:ethertype:ipv6:icmpv6:ipv6:udp:ub  9  |eth:ethertype:ip:icmp:ip:udp:data    |eth:ethertype:vlan:ethertype:ip:icmp:ip:udp:ub 8 5  " \
        "$("$U" -r "$tmp/iq.pcapng" -Y 'icmp || icmpv6' -T fields -e frame.protocols -e ub.rtph.psn -e ub.btah.ini_tassn -e ub.maetah.address -e ub.maetah.length 2> /dev/null | tr '\t\n' ' |' | sed 's/|$//')"
    yparity "icmp_ub" "$tmp/iq.pcapng" ub '!ub' 'icmp && ub' 'icmpv6 && ub' 'ub.rtph.psn == 8' 'ub.maetah' 'ub.btah.ini_tassn == 5' \
        'udp.dstport == 4792 && !ub' 'ub.error' 'ip.src == 192.168.1.1 && icmp' 'ub.rtph && ip.ttl == 1' 'ub.utph && icmpv6.type == 2' \
        'icmp.mtu < 1092 && ub' 'icmp.mtu' 'icmpv6.mtu == 1280' 'icmp.mtu >= 1500'
    # the same quotes on a BSD loopback link (LINKTYPE_NULL: an ICMP error for a UB peer not listening)
    editcap -F pcap "$tmp/iq.pcapng" "$tmp/iq.pcap"
    python3 - "$tmp/iq.pcap" "$tmp/iqnull.pcap" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read(); o, out = 24, []
while o + 16 <= len(b):
    cl = struct.unpack("<I", b[o + 8:o + 12])[0]; f = b[o + 16:o + 16 + cl]; o += 16 + cl
    ip = 18 if f[12:14] == b"\x81\x00" else 14
    out.append(struct.pack("<I", 30 if f[ip] >> 4 == 6 else 2) + f[ip:])
with open(sys.argv[2], "wb") as w:
    w.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 0))
    for i, f in enumerate(out): w.write(struct.pack("<IIII", i, 0, len(f), len(f)) + f)
PY
    # shellcheck disable=SC2086
    ts -n -r "$tmp/iqnull.pcap" -T fields $iqf > "$tmp/tc.txt" 2> /dev/null
    # shellcheck disable=SC2086
    "$U" -r "$tmp/iqnull.pcap" -T fields $iqf 2> /dev/null | cmp -s - "$tmp/tc.txt" && ok ||
        { bad "icmp_ub on LINKTYPE_NULL: fields differ from tshark's"; "$U" -r "$tmp/iqnull.pcap" -T fields $iqf 2>&1 | diff "$tmp/tc.txt" - | head -6; }
    same "icmp_ub on LINKTYPE_NULL: UB in the quotes" "2 4 6 8" "$("$U" -r "$tmp/iqnull.pcap" -Y 'ub && (icmp || icmpv6)' -T fields -e frame.number 2> /dev/null | paste -sd' ')"
    ts -n -q -r "$tmp/iq.pcapng" -z io,phs > "$tmp/tp.txt" 2> /dev/null
    "$U" -q -r "$tmp/iq.pcapng" -z io,phs 2> /dev/null | cmp -s - "$tmp/tp.txt" && ok || bad "icmp_ub: -z io,phs differs from tshark's"
    same "icmp_ub: the summary names the path MTU and the packet an error is about, what the quote holds of it" \
        "ETH/IPv4/ICMP 192.168.1.254→192.168.1.1 type 3 code 4 MTU 1000, quoting UBoE 192.168.1.1→192.168.1.2 RTP PSN 7 TPN 0x100→0x200 last Write req TASSN 5 addr 0x400000 len 1024|ETH/IPv4/ICMP 192.168.1.254→192.168.1.1 type 3 code 1, quoting UBoE 192.168.1.1→192.168.1.2 RTP TPN 0x100→0x200 last" \
        "$("$U" -r "$tmp/iq.pcapng" -Y 'frame.number == 2 || frame.number == 4' 2> /dev/null | sed 's/^ *[0-9]* [0-9.]* //' | tr '\n' '|' | sed 's/|$//')"
    same "icmp_ub: -V, a quoted layer the quote cuts" "    Payload (ub.payload), 64 bytes [1024 in the datagram, the rest not quoted]" \
        "$("$U" -r "$tmp/iq.pcapng" -Y 'frame.number == 2' -V 2> /dev/null | grep '^    Payload')"
    "$U" -q -r "$tmp/iq.pcapng" > "$tmp/iq.out" 2> "$tmp/iq.err"
    same "icmp_ub: -q counts the errors quoting UB (not UB packets) and warns" \
        "8 records: 2 UB, 6 other (not UB); 4 ICMP errors quoting UB|ubdump: warning: 4 ICMP errors quote a UB datagram the network did not deliver (-Y \"icmp && ub\" or \"icmpv6 && ub\" shows them)" \
        "$(cat "$tmp/iq.out" "$tmp/iq.err" | tr '\n' '|' | sed 's/|$//')"
    # the audit sees the two packets on the wire only: the quotes' UB headers are no packet of this link
    # (no TP channel, no transaction, no finding; the same on two threads)
    for th in 1 2; do
        same "icmp_ub: --threads $th: the TP channels are the datagrams' on the wire" \
            "UB transport channels (-z ub,tp): 2 channel directions|RTP 192.168.1.1:0x100 -> 192.168.1.2:0x200 1|UTP fd00::1 -> fd00::2 1|0 findings in 0 of" \
            "$("$U" -r "$tmp/iq.pcapng" --audit -q --fail-on never --threads $th -z ub,tp 2> /dev/null |
                awk '/^UB transport/ { print } /^[0-9]+ findings/ { print $1, $2, $3, $4, $5 } /^(RTP|UTP) / { print $1, $2, $3, $4, $(NF - 10) }' | tr '\n' '|' | sed 's/|$//')"
    done
    same "icmp_ub: --audit --threads 2 -q counts" "8 records: 2 UB, 6 other (not UB); 4 ICMP errors quoting UB" \
        "$("$U" -r "$tmp/iq.pcapng" --audit -q --fail-on never --threads 2 2> /dev/null | grep "^8 records")"
    cp "$C/cfg7_rtp.pcapng" "$tmp/cap.pcapng"
    for T in json ek; do
        ts -r "$tmp/cap.pcapng" -T $T -e frame.number -e ub.rtph.psn -e ub.btah.taopcode -e ub.icrc.status > "$tmp/te.$T" 2> /dev/null
        "$U" -r "$C/cfg7_rtp.pcapng" -T $T -e frame.number -e ub.rtph.psn -e ub.btah.taopcode -e ub.icrc.status > "$tmp/ue.$T"
        cmp -s "$tmp/te.$T" "$tmp/ue.$T" && ok || { bad "-T $T -e differs from tshark"; diff "$tmp/te.$T" "$tmp/ue.$T" | head -5; }
    done
    # -T ek: an index line and a document per packet; frame and ub members equal tshark's
    cp "$C/urpc.pcapng" "$tmp/cap.pcapng"
    ts -r "$tmp/cap.pcapng" -T ek > "$tmp/t.ek" 2> /dev/null
    "$U" -r "$C/urpc.pcapng" -T ek > "$tmp/u.ek"
    same "-T ek lines (urpc: 3 packets)" 6 "$(wc -l < "$tmp/u.ek")"
    python3 - "$tmp/u.ek" "$tmp/t.ek" <<'PY' && ok || bad "-T ek differs from tshark -T ek"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == len(b) == 6
for x, y in zip(a[0::2], b[0::2]):
    assert x == y, (x, y)
n = 0
for x, y in zip(a[1::2], b[1::2]):
    assert x["timestamp"] == y["timestamp"]
    for proto in ("frame", "ub"):
        for k, v in x["layers"][proto].items():
            assert y["layers"][proto].get(k, "MISSING") == v, (proto, k, v, y["layers"][proto].get(k))
            n += 1
assert n > 100, n
PY
    # -T tabs: tshark's summary line (No., Time, Source, Destination, Protocol, Length, Info; its padding, a
    # "→" column, tabs); the Info and Protocol columns of frames that are not UB are ubdump's
    for c in uboe cfg7_rtp dllcb stream audit_rtp_lossy pcie_flit icmp_ub rocev2_rc; do
        cp "$C/$c.pcapng" "$tmp/cap.pcapng"
        chmod a+r "$tmp/cap.pcapng"
        for t in r ad; do
            ts -n -r "$tmp/cap.pcapng" -T tabs -t $t 2> /dev/null | case $c in icmp_ub | rocev2_rc) cut -f1-7 ;; *) cat ;; esac > "$tmp/tt.txt"
            "$U" -r "$C/$c.pcapng" -T tabs -t $t 2> /dev/null | case $c in icmp_ub | rocev2_rc) cut -f1-7 ;; *) cat ;; esac |
                cmp -s - "$tmp/tt.txt" && ok || bad "-T tabs -t $t: $c differs from tshark's"
        done
    done
    same "-T tabs: a line" "$(printf '    2\t0.010000000\t 192.168.1.2\t\342\206\222\t192.168.1.1 \tUB-TP\t66\tUBoE 192.168.1.2\342\206\222192.168.1.1 TPACK PSN 1 TPN 0x200\342\206\2220x100')" \
        "$("$U" -r "$C/uboe.pcapng" -T tabs -E header=y | sed -n 2p)"
    got=$("$U" -r "$C/uboe.pcapng" -T tabs -e frame.number 2>&1) && rc=0 || rc=$?
    same "-T tabs -e" "ubdump: -T tabs prints the summary columns: no -e 2" "$got $rc"
    # words after the options: a display filter with -r, as tshark's
    cp "$C/audit_rtp_lossy.pcapng" "$tmp/cap.pcapng"
    chmod a+r "$tmp/cap.pcapng"
    ts -n -r "$tmp/cap.pcapng" -T fields -e frame.number -e ub.rtph.psn ub.rtph.psn ">=" 203 and not ub.btah > "$tmp/tt.txt" 2> /dev/null
    "$U" -r "$C/audit_rtp_lossy.pcapng" -T fields -e frame.number -e ub.rtph.psn ub.rtph.psn ">=" 203 and not ub.btah 2> /dev/null |
        cmp -s - "$tmp/tt.txt" && [ -s "$tmp/tt.txt" ] && ok || bad "a display filter after the options differs from tshark's"
    got=$("$U" -r "$C/uboe.pcapng" -Y ub ip.src == 192.168.1.2 2>&1) && rc=0 || rc=$?
    same "-Y and a filter after the options" "ubdump: Display filters were specified both with \"-Y\" and with additional command-line arguments. 2" "$got $rc"
    # -2 -R (tshark's read filter): the run sees only the records it selects, renumbered from 1, times
    # relative to the input's first record, -c counting them, io,stat lasting as long as the input
    rparity() { # LABEL FILE OPTIONS...: the same output as tshark + plugin
        rl=$1 rf=$2
        shift 2
        cp "$rf" "$tmp/cap.pcapng"
        chmod a+r "$tmp/cap.pcapng"
        ts -n -r "$tmp/cap.pcapng" "$@" > "$tmp/tr.txt" 2> /dev/null
        "$U" -r "$rf" "$@" 2> /dev/null | cmp -s - "$tmp/tr.txt" && ok || { bad "-2 -R: $rl differs from tshark's"; "$U" -r "$rf" "$@" | diff "$tmp/tr.txt" - | head -5; }
    }
    TR="-T fields -e frame.number -e frame.time_relative -e _ws.col.Time -e frame.len -e ub.rtph.psn -e ub.btah.taopcode"
    rparity "Writes of a lossy channel" "$C/audit_rtp_lossy.pcapng" -2 -R ub.btah $TR
    rparity "PSNs above 202" "$C/audit_rtp_lossy.pcapng" -2 -R "ub.rtph.psn > 202" $TR
    # (tshark -2's -c counts records of its first pass in a way of its own; ubdump's, the selected ones)
    same "-2 -R -c 3: the first three selected" "203 204 205" \
        "$("$U" -r "$C/audit_rtp_lossy.pcapng" -2 -R "ub.rtph.psn > 202" -c 3 -T fields -e ub.rtph.psn | paste -sd' ')"
    rparity "with -Y" "$C/audit_rtp_lossy.pcapng" -2 -R "ub.rtph" -Y "ub.rtph.psn != 204" $TR
    rparity "the second record alone (times from the first)" "$C/uboe.pcapng" -2 -R "ip.src == 192.168.1.2" $TR
    rparity "io,stat (as long as the input)" "$C/uboe.pcapng" -2 -R "ip.src == 192.168.1.2" -q -z io,stat,0.005
    rparity "io,phs" "$C/audit_rtp_lossy.pcapng" -2 -R "ub.rtph.psn >= 203" -q -z io,phs
    rparity "conv,ub" "$C/audit_rtp_lossy.pcapng" -2 -R ub.btah -q -z conv,ub
    rparity "ub.analysis.* in the filter (the whole capture's)" "$C/audit_rtp_lossy.pcapng" -2 -R ub.analysis.retransmission \
        -T fields -e frame.number -e ub.rtph.psn
    same "-2 -R: the same from standard input" "$("$U" -r "$C/audit_rtp_lossy.pcapng" -2 -R ub.btah $TR)" \
        "$("$U" -r - -2 -R ub.btah $TR < "$C/audit_rtp_lossy.pcapng")"
    # the audit sees the selected records only: the Writes without their responses
    mkdir -p "$tmp/rtmp"
    TMPDIR=$tmp/rtmp "$U" -r "$C/audit_txn_clean.pcapng" -2 -R "ub.btah.taopcode == 0x03" -q --audit --audit-format json > "$tmp/ra.json" || true
    same "-2 -R --audit: records, packets, findings at frames" "9 9 UB-TA-001:5,6,7,8,9" "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["records"], r["packets"], " ".join(u["id"] + ":" + ",".join(str(x["frame"]) for x in u["findings"]) for u in r["rules"] if u["count"]))' "$tmp/ra.json")"
    same "-2 -R: the temporary file removed" "" "$(ls -A "$tmp/rtmp")"
    "$U" -r "$C/audit_txn_clean.pcapng" -2 -R "ub.btah.taopcode == 0x03" -w "$tmp/rw.pcapng"
    same "-2 -R -w: the selected records" "9" "$(capinfos -Mc "$tmp/rw.pcapng" | awk '/Number of packets/ {print $NF}')"
    got=$("$U" -r "$C/uboe.pcapng" -R ub 2>&1) && rc=0 || rc=$?
    same "-R without -2: tshark's message, exit 2" "ubdump: -R without -2 is deprecated. For single-pass filtering use -Y. 2" "$got $rc"
    got=$("$U" -r "$C/uboe.pcapng" -2 -R "ub.rtph.psn >" 2>&1) && rc=0 || rc=$?
    same "-2 -R: a bad filter" "ubdump: read filter: column 14: missing value after the comparison operator
    ub.rtph.psn >
                 ^ 2" "$got $rc"
    got=$("$U" -r - -2 -R ub.analysis.retransmission < "$C/uboe.pcapng" 2>&1) && rc=0 || rc=$?
    same "-2 -R: ub.analysis.* from standard input" "ubdump: ub.analysis.* in -R reads the capture twice: give a file, not standard input 2" "$got $rc"
fi

ub_check_done
