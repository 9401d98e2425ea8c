#!/bin/sh
# The Wireshark plugin (dissector/, ub.so) inside a real tshark.
#
#  * tshark is run unprivileged (tshark ignores WIRESHARK_PLUGIN_DIR and personal plugins when run as
#    root, so a root test would silently run WITHOUT the plugin) with WIRESHARK_PLUGIN_DIR pointing
#    at a private copy of the freshly built ub.so and an empty HOME (no user preferences).
#  * FAILS (never skips) when tshark/editcap is missing, the plugin was not built, or tshark does not
#    list the plugin.
#  * Field-name stability list tests/golden/tshark/fields.txt, per-capture goldens
#    tests/golden/tshark/NAME.fields.txt (-T fields) and NAME.tree.txt (-V -O ub) for every
#    captures/NAME.pcap*; extra tshark options for a capture in NAME.opts (e.g. Non-CRC mode).
#    Regenerate all goldens with:  UB_REGEN=1 ctest -R t_tshark_plugin   (then review the git diff)
#  * Functional checks on captures built here with ubgen (CRC status filters, UDP port/heuristic/
#    Decode As, SLL hatype path, flit-stream continuation, DLT_USER table precedence, preferences),
#    a cross-check against ubdump, the colouring rules, and editcap -E mutations of every sample
#    capture (tshark must not die from a signal, no dissector bug, no malformed-UB exception).
set -u

fail() { echo "FAIL: $*" >&2; exit 1; }
info() { echo "  $*"; }

: "${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}"
: "${UB_BINARY_DIR:?UB_BINARY_DIR not set (run through ctest)}"
UBGEN=${UBGEN:-}
UBDUMP=${UBDUMP:-}
GOLD="$UB_SOURCE_DIR/tests/golden/tshark"
REGEN=${UB_REGEN:-0}

command -v editcap >/dev/null 2>&1 || fail "editcap is not installed (Debian: apt-get install wireshark-common)"
command -v mergecap >/dev/null 2>&1 || fail "mergecap is not installed (Debian: apt-get install wireshark-common)"

. "$UB_SOURCE_DIR/tests/tshark_setup.sh"
mkdir -p "$tmp/home2/.config/wireshark" "$tmp/home3/.config/wireshark" "$tmp/out"
# DLT_USER table entry for DLT 147 (User 0): the user's choice must win over the plugin
echo '"User 0 (DLT=147)","data","0","","0",""' > "$tmp/home2/.config/wireshark/user_dlts"
cp "$UB_SOURCE_DIR/dissector/profile/UnifiedBus/colorfilters" "$tmp/home3/.config/wireshark/colorfilters" || fail "colorfilters missing"
chmod -R a+rX "$tmp"
info "tshark $TSVER loads $PLUGIN (via ${RUN:-direct run})"

# ---- 2. fields
ts -G fields > "$tmp/fields.all" 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "tshark -G fields"; }
if grep -v "Running as user" "$tmp/err.txt" | grep -q .; then
    cat "$tmp/err.txt"
    fail "tshark -G fields printed warnings (field registration problem)"
fi
for f in ub ub.lph ub.lph.cfg ub.btah.taopcode ub.atah.taopcode ub.bcrc.status ub.bcrc.crc30 ub.icrc.status \
         ub.rtph.tpopcode ub.nth.scna ub.error ub.err.bcrc_bad ub.err.icrc_bad ub.stream.continued_in; do
    awk -F'\t' -v f="$f" '$3 == f { found = 1 } END { exit !found }' "$tmp/fields.all" || fail "tshark -G fields lacks $f"
done
# every field ubdump knows is a Wireshark field (one user API)
if [ -n "$UBDUMP" ] && [ -x "$UBDUMP" ]; then
    "$UBDUMP" -G fields 2>/dev/null | cut -f1 | grep '^ub\.' | LC_ALL=C sort -u > "$tmp/ubdump.fields"
    awk -F'\t' '$3 ~ /^ub\./ { print $3 }' "$tmp/fields.all" | LC_ALL=C sort -u > "$tmp/ts.fields"
    missing=$(LC_ALL=C comm -23 "$tmp/ubdump.fields" "$tmp/ts.fields")
    [ -z "$missing" ] || fail "fields known to ubdump but not to the plugin: $missing"
    info "$(wc -l < "$tmp/ubdump.fields") ubdump fields all present in tshark"
fi
awk -F'\t' '($1 == "P" || $1 == "F") && ($3 == "ub" || $3 ~ /^ub\./) { print $3 "\t" $4 "\t" $2 }' "$tmp/fields.all" |
    LC_ALL=C sort > "$tmp/out/fields.txt"

nfail=0
golden() { # golden NAME FILE
    if [ "$REGEN" = 1 ]; then
        mkdir -p "$GOLD"
        cp "$2" "$GOLD/$1"
        return 0
    fi
    if [ ! -f "$GOLD/$1" ]; then
        echo "FAIL: no golden $GOLD/$1 (run: UB_REGEN=1 ctest -R t_tshark_plugin, then review)" >&2
        nfail=$((nfail + 1))
        return 1
    fi
    if ! diff -u "$GOLD/$1" "$2" > "$tmp/diff.txt"; then
        echo "FAIL: output differs from golden $1 (UB_REGEN=1 to accept):" >&2
        head -n 80 "$tmp/diff.txt" >&2
        nfail=$((nfail + 1))
        return 1
    fi
    return 0
}
golden fields.txt "$tmp/out/fields.txt"

# ---- 3. goldens for every sample capture
FIELDS="-e frame.number -e ub.lph.cfg -e ub.nth.scna -e ub.nth.dcna -e ub.rtph.tpopcode -e ub.rtph.psn
 -e ub.btah.taopcode -e ub.atah.taopcode -e ub.bcrc.status -e ub.icrc.status -e ub.error -e _ws.col.Info"
ncap=0
for cap in "$UB_SOURCE_DIR"/captures/*.pcap "$UB_SOURCE_DIR"/captures/*.pcapng; do
    [ -f "$cap" ] || continue
    base=$(basename "$cap")
    name=${base%.*}
    cp "$cap" "$tmp/caps/$base" && chmod 644 "$tmp/caps/$base"
    opts=
    [ -f "$GOLD/$name.opts" ] && opts=$(grep -v '^#' "$GOLD/$name.opts" | tr '\n' ' ')
    # shellcheck disable=SC2086
    ts -n -2 $opts -r "$tmp/caps/$base" -T fields $FIELDS > "$tmp/out/$name.fields.txt" 2> "$tmp/err.txt"
    rc=$?
    [ $rc -eq 0 ] || { cat "$tmp/err.txt"; fail "tshark -T fields on $base exited with $rc"; }
    # shellcheck disable=SC2086
    ts -n -2 $opts -r "$tmp/caps/$base" -V -O ub > "$tmp/out/$name.tree.txt" 2> "$tmp/err.txt"
    rc=$?
    [ $rc -eq 0 ] || { cat "$tmp/err.txt"; fail "tshark -V on $base exited with $rc"; }
    case $name in
    rocev2_rc|sue_*|pcie_*) # not UB (docs/neighbours.md): Wireshark's InfiniBand, our sue / pcieflit (packet-neigh.c)
        if grep -q "^UnifiedBus" "$tmp/out/$name.tree.txt"; then fail "$base: the UB plugin claimed traffic that is not UB"; fi
        case $name in sue_*) want="^SUE RC Link" ;; pcie_*) want="^PCIe 6 flit link layer" ;; *) want="^InfiniBand" ;; esac
        grep -q "$want" "$tmp/out/$name.tree.txt" || fail "$base: no '$want' tree" ;;
    icmp) # not UB: Wireshark's ICMP and ICMPv6 only
        if grep -q "^UnifiedBus" "$tmp/out/$name.tree.txt"; then fail "$base: the UB plugin claimed traffic that is not UB"; fi
        grep -q "^Internet Control Message Protocol v6" "$tmp/out/$name.tree.txt" || fail "$base: no ICMPv6 tree" ;;
    *) grep -q "^UnifiedBus" "$tmp/out/$name.tree.txt" || fail "$base: no UnifiedBus tree at all - plugin not used?" ;;
    esac
    if grep -n -E "Dissector bug|Malformed Packet: UB|\[Malformed Packet\]" "$tmp/out/$name.tree.txt" | grep -q .; then
        grep -n -E "Dissector bug|Malformed Packet" "$tmp/out/$name.tree.txt" | head -5
        fail "$base: the plugin threw while building the tree"
    fi
    golden "$name.fields.txt" "$tmp/out/$name.fields.txt"
    golden "$name.tree.txt" "$tmp/out/$name.tree.txt"
    ncap=$((ncap + 1))
    # same fields as ubdump (both are the same decode): one line per record, also on raw flit streams,
    # where a record may complete no unit (empty values) or several (values aggregated, issue #9)
    if [ -n "$UBDUMP" ] && [ -x "$UBDUMP" ] && [ -z "$opts" ]; then
        "$UBDUMP" -r "$tmp/caps/$base" -T fields -e frame.number -e ub.lph.cfg -e ub.error > "$tmp/ud.txt" 2>/dev/null
        cut -f1,2,11 "$tmp/out/$name.fields.txt" > "$tmp/tf.txt" # frame.number, ub.lph.cfg, ub.error of $FIELDS
        if ! diff -u "$tmp/ud.txt" "$tmp/tf.txt" > "$tmp/diff.txt"; then
            head -n 40 "$tmp/diff.txt" >&2
            echo "FAIL: $base: tshark fields differ from ubdump -T fields" >&2
            nfail=$((nfail + 1))
        fi
    fi
done
info "$ncap sample captures compared with goldens"
# raw flit streams (LINKTYPE_USER2): ubdump -T fields prints one line per record like tshark -- an empty
# value where the record completes no unit, every unit's values where it completes several -- also
# under a display filter (a record matches when one of its units does, or on frame.* alone)
if [ -n "$UBDUMP" ] && [ -x "$UBDUMP" ]; then
    SF="-e frame.number -e ub.lph.vl -e ub.lph.cfg -e ub.lch.clength -e ub.btah.ini_tassn -e ub.bcrc.status -e ub.error"
    for cap in stream.pcapng audit_nob.pcapng; do
        for y in "" "ub.lph" "ub.error || frame.number <= 3"; do
            # shellcheck disable=SC2086
            if [ -n "$y" ]; then
                "$UBDUMP" -r "$tmp/caps/$cap" -T fields $SF -Y "$y" > "$tmp/ud.txt" 2>/dev/null
                ts -n -2 -r "$tmp/caps/$cap" -T fields $SF -Y "$y" > "$tmp/tf.txt" 2>/dev/null
            else
                "$UBDUMP" -r "$tmp/caps/$cap" -T fields $SF > "$tmp/ud.txt" 2>/dev/null
                ts -n -2 -r "$tmp/caps/$cap" -T fields $SF > "$tmp/tf.txt" 2>/dev/null
            fi
            if ! diff -u "$tmp/ud.txt" "$tmp/tf.txt" > "$tmp/diff.txt" || [ ! -s "$tmp/ud.txt" ]; then
                head -n 30 "$tmp/diff.txt" >&2
                echo "FAIL: $cap: ubdump -T fields ${y:+-Y '$y' }differs from tshark (one line per record)" >&2
                nfail=$((nfail + 1))
            fi
        done
    done
    info "raw flit streams: -T fields one line per record, as tshark (with and without -Y)"
fi
for g in "$GOLD"/*.tree.txt "$GOLD"/*.fields.txt; do # goldens whose capture is gone
    [ -f "$g" ] || continue
    n=$(basename "$g")
    n=${n%.tree.txt}
    n=${n%.fields.txt}
    [ -f "$UB_SOURCE_DIR/captures/$n.pcapng" ] || [ -f "$UB_SOURCE_DIR/captures/$n.pcap" ] && continue
    if [ "$REGEN" = 1 ]; then
        rm -f "$g"
        info "removed stale golden $g"
    else
        echo "FAIL: stale golden $g (capture $n is gone; UB_REGEN=1 removes it)" >&2
        nfail=$((nfail + 1))
    fi
done

# ---- 4. functional checks on captures built here
expect() { # expect WHAT WANT GOT
    [ "$2" = "$3" ] || { echo "FAIL: $1: expected [$2], got [$3]" >&2; nfail=$((nfail + 1)); }
}
frames() { # frames CAP [tshark args...] -> space-separated frame numbers of displayed frames
    c=$1
    shift
    ts -n -r "$tmp/caps/$c" "$@" -T fields -e frame.number 2>&1 | tr '\n' ' ' | sed 's/ $//'
}
if [ -n "$UBGEN" ] && [ -x "$UBGEN" ]; then
    cat > "$tmp/crc.ub" <<'EOF'
@capture format=pcapng
@packet ts=1.0
flit
lph
nth16 scna=0x0102 dcna=0x0304
btah_c taopcode=Write ee_bits=1 ini_tassn=1
maetah_c address=0x0000100000000040 tokenid=0x12345 length=0
payload inc=64
@packet ts=1.1
flit bcrc=bad
lph
nth16 scna=0x0102 dcna=0x0304
btah_c taopcode=Write ee_bits=1 ini_tassn=2
maetah_c address=0x0000100000000040 tokenid=0x12345 length=0
payload inc=64
@packet ts=1.2
flit icrc=bad
lph
nth24 scna=1 dcna=2
ctph
btah taopcode=Write ini_tassn=3
maetah address=0x1000 tokenid=1 length=8
payload inc=8
@packet ts=1.3
flit
lph
nth24 scna=1 dcna=2
ctph
btah taopcode=Write ini_tassn=4
maetah address=0x1000 tokenid=1 length=8
payload inc=8
EOF
    cat > "$tmp/udp.ub" <<'EOF'
@capture format=pcapng
@packet ts=2.0
eth
eth dst=02:00:00:00:00:02 src=02:00:00:00:00:01
ipv4 src=192.168.1.1 dst=192.168.1.2
udp srcport=51000
rtph tpopcode=1 last=1 srctpn=0x000100 dsttpn=0x000200 psn=1 tpmsn=1
btah taopcode=Write ini_tassn=1 ini_rc_id=0x00010
maetah address=0x0000000000400000 tokenid=0x00100 length=16
payload inc=16
@packet ts=2.1
eth
eth dst=02:00:00:00:00:02 src=02:00:00:00:00:01
ipv4 src=192.168.1.1 dst=192.168.1.2
udp srcport=51000 dstport=5000
rtph tpopcode=1 last=1 srctpn=0x000100 dsttpn=0x000200 psn=2 tpmsn=2
btah taopcode=Write ini_tassn=2 ini_rc_id=0x00010
maetah address=0x0000000000400000 tokenid=0x00100 length=16
payload inc=16
@packet ts=2.2
eth
eth dst=02:00:00:00:00:02 src=02:00:00:00:00:01
ipv4 src=192.168.1.1 dst=192.168.1.2
udp srcport=51000 dstport=5001
payload hex=ffeeddccbbaa99887766554433221100ffeeddccbbaa9988
EOF
    cat > "$tmp/sll5.ub" <<'EOF'
@capture format=pcap
@packet ts=3.0
sll
lph cfg=5
nctl protocol=0x0109 dguid=ffffffffffffffffffffffffffff0109 sguid=12345678120000000000000000000009
nctl_pdu hex=0207041234567812000000000000000904030700010602007800000000
EOF
    cp "$UB_SOURCE_DIR/tests/stream_dlldp.ub" "$tmp/stream.ub" || fail "tests/stream_dlldp.ub missing"
    for s in crc udp sll5 stream; do
        "$UBGEN" -w "$tmp/caps/$s.pcapng" "$tmp/$s.ub" > "$tmp/err.txt" 2>&1 || { cat "$tmp/err.txt"; fail "ubgen $s.ub"; }
    done
    chmod -R a+rX "$tmp/caps"

    # CRC status filters (proto_tree_add_checksum numbering: Bad 0, Good 1)
    expect 'ub.bcrc.status == "Bad"' "2" "$(frames crc.pcapng -Y 'ub.bcrc.status == "Bad"')"
    expect 'ub.icrc.status == "Bad"' "3" "$(frames crc.pcapng -Y 'ub.icrc.status == "Bad"')"
    expect 'ub.icrc.status == "Good"' "4" "$(frames crc.pcapng -Y 'ub.icrc.status == "Good"')"
    expect 'ub.bcrc.status == 1' "1 3 4" "$(frames crc.pcapng -Y 'ub.bcrc.status == 1')"
    expect 'expert ub.err.bcrc_bad' "2" "$(frames crc.pcapng -Y 'ub.err.bcrc_bad')"
    expect 'ub.error == "icrc_bad"' "3" "$(frames crc.pcapng -Y 'ub.error == "icrc_bad"')"
    expect 'expert severity' "2 3" "$(frames crc.pcapng -Y 'ub && _ws.expert.severity == "Error"')"
    expect 'ub.btah.ini_tassn (full and compact BTAH share the name)' "1,2,3,4" \
        "$(ts -n -r "$tmp/caps/crc.pcapng" -T fields -e ub.btah.ini_tassn 2>&1 | tr '\n' ',' | sed 's/,$//')"
    expect 'ub.lph.cfg' "9 9 7 7" \
        "$(ts -n -r "$tmp/caps/crc.pcapng" -T fields -e ub.lph.cfg 2>&1 | tr '\n' ' ' | sed 's/ $//')"
    expect 'BCRC text' "1" "$(ts -n -r "$tmp/caps/crc.pcapng" -V -O ub -Y frame.number==2 2>&1 | grep -c 'incorrect, should be 0x')"
    # preference: link type numbers
    expect 'dlt_flit pref moves USER0 away' "" "$(frames crc.pcapng -Y ub -o ub.dlt.flit:150)"
    # a DLT_USER table entry for DLT 147 wins over the plugin
    expect 'user_dlts entry wins' "" \
        "$(ts_home home2 -n -r "$tmp/caps/crc.pcapng" -Y ub -T fields -e frame.number 2>&1 | tr '\n' ' ' | sed 's/ $//')"
    # UDP: port 4792, strict heuristic, Decode As
    expect 'UDP 4792 + heuristic' "1 2" "$(frames udp.pcapng -Y ub)"
    expect 'heuristic off' "1" "$(frames udp.pcapng -Y ub -o ub.udp_heuristic:FALSE)"
    expect 'Decode As udp.port 5000' "1 2" "$(frames udp.pcapng -Y ub -o ub.udp_heuristic:FALSE -d udp.port==5000,ub)"
    expect 'UBoE TAOpcode' "0x03,0x03" \
        "$(ts -n -r "$tmp/caps/udp.pcapng" -Y ub -T fields -e ub.btah.taopcode 2>&1 | tr '\n' ',' | sed 's/,$//')"
    # Linux cooked, CFG 5 (protocol <= 1536) also through 4.0's sll.hatype table when the front-end is off
    expect 'SLL ARPHRD_UB' "5" "$(ts -n -r "$tmp/caps/sll5.pcapng" -T fields -e ub.cfgph.cfg 2>&1)"
    expect 'SLL via sll.hatype' "5" "$(ts -n -r "$tmp/caps/sll5.pcapng" -o ub.sll_arphrd_ub:FALSE -T fields -e ub.cfgph.cfg 2>&1)"
    # raw flit stream: 5-flit DLLDP in records of 3 flits (3 + 2+1), then a NOB
    expect 'stream continuation' "2," "$(ts -n -2 -r "$tmp/caps/stream.pcapng" -T fields -e ub.stream.continued_in 2>&1 | tr '\n' ',' | sed 's/,$//')"
    expect 'stream unit completion' ",1" "$(ts -n -2 -r "$tmp/caps/stream.pcapng" -T fields -e ub.stream.started_in 2>&1 | tr '\n' ',' | sed 's/,$//')"
    expect 'stream units' "0 2" "$(ts -n -2 -r "$tmp/caps/stream.pcapng" -T fields -e ub.stream.unit 2>&1 |
        awk -F, '{ print ($0 == "" ? 0 : NF) }' | tr '\n' ' ' | sed 's/ $//')"
    # colouring rules: all compile, bad CRCs are red
    ts_home home3 --color -n -r "$tmp/caps/crc.pcapng" -T fields -e frame.number -e frame.coloring_rule.name \
        > "$tmp/color.txt" 2> "$tmp/err.txt"
    if grep -q "Could not compile" "$tmp/err.txt"; then cat "$tmp/err.txt"; fail "dissector/profile/UnifiedBus/colorfilters: a rule does not compile"; fi
    expect 'colour rule of a bad BCRC' "UB bad BCRC" "$(awk -F'\t' '$1 == 2 { print $2 }' "$tmp/color.txt")"
    expect 'colour rule of a bad ICRC' "UB bad ICRC" "$(awk -F'\t' '$1 == 3 { print $2 }' "$tmp/color.txt")"
    info "functional checks done"
else
    fail "UBGEN not set: cannot build the functional-check captures"
fi

# ---- 5. mutations: editcap -E on every capture, all merged into one file per seed
ls "$tmp/caps/"*.pcap* > /dev/null 2>&1 || fail "no captures"
mergecap -F pcapng -w "$tmp/all.pcapng" "$tmp"/caps/*.pcap* 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "mergecap"; }
for mut in "-E 0.02 --seed 1" "-E 0.02 --seed 2" "-E 0.05 --seed 3" "-s 33"; do
    # shellcheck disable=SC2086
    editcap $mut "$tmp/all.pcapng" "$tmp/mut.pcapng" 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "editcap $mut"; }
    chmod 644 "$tmp/mut.pcapng"
    for crc in crc noncrc; do
        ts -n -2 -o "ub.crc_mode:$crc" -r "$tmp/mut.pcapng" -V > "$tmp/mut.txt" 2> "$tmp/err.txt"
        rc=$?
        if [ $rc -ge 128 ]; then
            tail -n 20 "$tmp/err.txt"
            fail "tshark killed by signal $((rc - 128)) on editcap $mut (crc_mode $crc)"
        fi
        if grep -E "Dissector bug|Malformed Packet: UB" "$tmp/mut.txt" | grep -q .; then
            grep -n -B3 -E "Dissector bug|Malformed Packet: UB" "$tmp/mut.txt" | head -20
            fail "plugin exception on editcap $mut (crc_mode $crc)"
        fi
    done
done
info "mutations survived"

[ "$REGEN" = 1 ] && info "goldens regenerated in $GOLD"
[ $nfail -eq 0 ] || fail "$nfail check(s) failed"
echo "PASS"
