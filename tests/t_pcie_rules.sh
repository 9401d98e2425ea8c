#!/bin/sh
# PCIe 6 flit-mode rules of document 003 in st_pcie.c (docs/neighbours.md): Nak runs (PCIE-FL-010), a
# Nak changed within its run (PCIE-FL-011), the sequence number handshake limit per encoding
# (PCIE-FL-012, -o pcieflit.encoding), Flit_Status in a flit without a TLP (PCIE-FL-013) or changed by
# a replay (PCIE-FL-014), and an Ack/Nak behind the newest accepted one (PCIE-FL-003). Each finding at
# its exact frame with its evidence, and clean traces without them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -euo pipefail
: "${UB_SOURCE_DIR:?}" "${UBDUMP:?}" "${UBGEN:?}"
U=$UBDUMP
C=$UB_SOURCE_DIR/captures
. "$UB_SOURCE_DIR/tests/check_lib.sh"
ub_check_init t_pcie_rules
expect() { eq "$1" "$3" "$2"; } # DESCRIPTION WANT GOT
# "RULE@frame:values:frames ..." of every finding, sorted; $1 = capture, then ubdump options
findings() {
    f=$1
    shift
    "$U" "$@" -r "$f" -q --audit --audit-format json --audit-examples 100 --fail-on never 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(sorted("%s@%d:%s:%s" % (r["id"], f["frame"], ",".join(map(str, f["values"])), ",".join(map(str, f["frames"]))) for r in d["rules"] for f in r["findings"])))'
}
# only the rules of this test
mine() { tr ' ' '\n' | { grep -E '^PCIE-FL-0(03|1[0-8])@' || true; } | tr '\n' ' ' | sed 's/ $//'; }
# the PCIE-FL-012 finding only
hs_finding() { findings "$@" | tr ' ' '\n' | { grep PCIE-FL-012 || true; }; }

# ---- captures/pcie_nak: handshake both ways (clean), then the planted Nak and Flit_Status violations
all=$(findings "$C/pcie_nak.pcapng")
expect "pcie_nak findings" "PCIE-FL-002@14:2: PCIE-FL-002@14:3: PCIE-FL-002@18:5: PCIE-FL-006@13:1,2: PCIE-FL-006@13:1,2: PCIE-FL-006@13:1,2: PCIE-FL-006@17:4,3: PCIE-FL-006@20:5,2: PCIE-FL-006@20:5,2: PCIE-FL-006@20:5,3: PCIE-FL-010@17:1:19 PCIE-FL-011@20:5,5,3,2:20 PCIE-FL-013@23:2,0: PCIE-FL-014@14:2,0,2: PCIE-FL-015@24:7,8: PCIE-FL-017@22:1,0:20" "$all"
# the same with the threaded audit
expect "pcie_nak findings, -j 3" "$all" "$(findings "$C/pcie_nak.pcapng" -j 3)"
# the existing flit captures: only the lone Standard Nak of pcie_flit (frame 6, run ended by the Ack in 8);
# its Selective Nak at 11 is ended by an IDLE flit (L0 exit): not judged
expect "pcie_flit, new rules" "PCIE-FL-003@9:9,5: PCIE-FL-010@6:1:8 PCIE-FL-016@5:4,3:1" "$(findings "$C/pcie_flit.pcapng" | mine)"
expect "pcie_limits, new rules" "" "$(findings "$C/pcie_limits.pcapng" | mine)"

# ---- PCIE-FL-003: an Ack behind the newest accepted one (Ack 4 after Ack 5); Ack 5 again is not
sed '/^@packet ts=0.000023/,$d' "$C/pcie_nak.ub" > "$tmp/back.ub"
printf '@packet ts=0.000024 dir=in\npcieflit\npcieflit usage=0 replay_cmd=1 seq=5\n' >> "$tmp/back.ub"
"$UBGEN" -w "$tmp/back.pcapng" "$tmp/back.ub" 2>/dev/null || bad "ubgen back"
expect "Ack behind ACKD_FLIT_SEQ_NUM" "PCIE-FL-003@23:5,8: PCIE-FL-010@17:1:19 PCIE-FL-011@20:5,5,3,2:20 PCIE-FL-014@14:2,0,2: PCIE-FL-017@22:1,0:20" \
    "$(findings "$tmp/back.pcapng" | mine)"

# ---- a Nak run (3 Standard Naks for 1) whose later Naks arrive after the replay began (frame 3): one
# replay asked, so no PCIE-FL-004; the replay starting at 3 instead of 2 is PCIE-FL-004 at frame 3
nakrun() { # $1: first replayed flit
    printf '@capture format=pcapng\n@packet ts=0.000001 dir=out\npcieflit\npcieflit usage=1 seq=1\n'
    printf 'pcieflit usage=1 seq=2 prior_payload=1\npcieflit usage=1 seq=3 prior_payload=1\n'
    printf '@packet ts=0.000002 dir=in\npcieflit\npcieflit usage=0 replay_cmd=2 seq=1\n'
    printf '@packet ts=0.000003 dir=out\npcieflit\npcieflit usage=1 seq=%s prior_payload=1\n' "$1"
    printf '@packet ts=0.000004 dir=in\npcieflit\npcieflit usage=0 replay_cmd=2 seq=1\npcieflit usage=0 replay_cmd=2 seq=1\n'
    printf '@packet ts=0.000005 dir=out\npcieflit\npcieflit usage=1 seq=3 prior_payload=1\npcieflit usage=1 seq=4 prior_payload=1\n'
    printf '@packet ts=0.000006 dir=in\npcieflit\npcieflit usage=0 replay_cmd=1 seq=4\n'
}
fl004() { findings "$1" | tr ' ' '\n' | { grep -E '^PCIE-FL-00[46]@' || true; } | tr '\n' ' ' | sed 's/ $//'; }
nakrun 2 > "$tmp/nakrun.ub" && "$UBGEN" -w "$tmp/nakrun.pcapng" "$tmp/nakrun.ub" 2>/dev/null || bad "ubgen nakrun"
expect "Nak run across the replay" "PCIE-FL-006@2:1,2: PCIE-FL-006@4:1,2: PCIE-FL-006@4:1,2:" "$(fl004 "$tmp/nakrun.pcapng")"
nakrun 3 > "$tmp/nakrun3.ub" && "$UBGEN" -w "$tmp/nakrun3.pcapng" "$tmp/nakrun3.ub" 2>/dev/null || bad "ubgen nakrun3"
expect "replay not at the Nak's flit" "PCIE-FL-004@3:3,2:2 PCIE-FL-006@2:1,2: PCIE-FL-006@4:1,2: PCIE-FL-006@4:1,2:" "$(fl004 "$tmp/nakrun3.pcapng")"

# ---- PCIE-FL-012: A sends IDLE, then 21 records of 25 flits (3 explicit NOP flits and an Ack, repeated);
# B sends only an IDLE flit, so no Ack of A counts and the handshake never ends
hs() { # $1: 0 = B sends an IDLE flit, 1 = and then explicit flits, 2 = B is not in the capture
    printf '@capture format=pcapng\n@packet ts=0.000001 dir=out\npcieflit\npcieflit\n'
    if [ "$1" != 2 ]; then printf '@packet ts=0.000002 dir=in\npcieflit\npcieflit\n'; fi
    if [ "$1" = 1 ]; then printf 'pcieflit usage=0 seq=1023\npcieflit usage=0 seq=1023\npcieflit usage=0 seq=1023\n'; fi
    k=0
    r=0
    while [ $r -lt 21 ]; do
        r=$((r + 1))
        printf '@packet ts=0.%06d dir=out\npcieflit\n' $((r + 10))
        j=0
        while [ $j -lt 25 ]; do
            j=$((j + 1))
            if [ $((k % 4)) = 3 ]; then echo 'pcieflit usage=0 replay_cmd=1 seq=1023'; else echo 'pcieflit usage=0 seq=1023'; fi
            k=$((k + 1))
        done
    done
}
hs 0 > "$tmp/hs.ub"
"$UBGEN" -w "$tmp/hs.pcapng" "$tmp/hs.ub" 2>/dev/null || bad "ubgen handshake"
# 1b/1b (default): flit 513 in frame 23 (2 + ceil(513 / 25)); the handshake began in frame 3; 385 of them explicit, no Ack counted
expect "handshake, 1b/1b default" "PCIE-FL-012@23:513,512,0,385:3" "$(hs_finding "$tmp/hs.pcapng")"
expect "handshake, 1b1b" "PCIE-FL-012@23:513,512,0,385:3" "$(hs_finding "$tmp/hs.pcapng" -o pcieflit.encoding=1b1b)"
# 8b/10b and 128b/130b: flit 257 in frame 13
expect "handshake, 8b10b" "PCIE-FL-012@13:257,256,0,193:3" "$(hs_finding "$tmp/hs.pcapng" -o pcieflit.encoding=8b10b)"
expect "handshake, 128b130b" "PCIE-FL-012@13:257,256,0,193:3" "$(hs_finding "$tmp/hs.pcapng" -o pcieflit.encoding=128b130b)"
expect "handshake, whole output" "PCIE-FL-012@13:257,256,0,193:3" "$(findings "$tmp/hs.pcapng" -o pcieflit.encoding=2)"
# B's explicit flits before A's Acks: A is done after 12 flits (3 Acks, 9 explicit): clean
hs 1 > "$tmp/hs1.ub"
"$UBGEN" -w "$tmp/hs1.pcapng" "$tmp/hs1.ub" 2>/dev/null || bad "ubgen handshake 1"
expect "handshake completed" "" "$(findings "$tmp/hs1.pcapng" -o pcieflit.encoding=8b10b)"
# without B in the capture the Acks cannot be judged: not reported
hs 2 > "$tmp/hs2.ub"
"$UBGEN" -w "$tmp/hs2.pcapng" "$tmp/hs2.ub" 2>/dev/null || bad "ubgen handshake 2"
expect "handshake, one direction" "" "$(findings "$tmp/hs2.pcapng" -o pcieflit.encoding=8b10b)"
# ---- PCIE-FL-014 on a replayed flit with an implied number: 2 explicit, then 3 in a flit with an Ack (the
# previous flit's number + 1); 3 was nullified (Flit_Status 01), its replay has no Flit_Marker
{
    printf '@capture format=pcapng\n@packet ts=0.000001 dir=out\npcieflit\n'
    printf 'pcieflit usage=1 seq=1\npcieflit usage=1 seq=2 prior_payload=1\npcieflit usage=1 seq=3 prior_payload=1 dllp_type=1 dllp=0xA0000000\n'
    printf '@packet ts=0.000002 dir=in\npcieflit\n'
    printf 'pcieflit usage=0 replay_cmd=2 seq=1\n%.0s' 1 2 3
    printf '@packet ts=0.000003 dir=out\npcieflit\n'
    printf 'pcieflit usage=0 replay_cmd=1 seq=1023 prior_payload=1\npcieflit usage=1 seq=2\npcieflit usage=1 replay_cmd=1 seq=1023 prior_payload=1\n'
} > "$tmp/impl.ub"
"$UBGEN" -w "$tmp/impl.pcapng" "$tmp/impl.ub" 2>/dev/null || bad "ubgen impl"
expect "implied replay number" "PCIE-FL-014@3:3,0,1:" "$(findings "$tmp/impl.pcapng" | tr ' ' '\n' | { grep PCIE-FL-014 || true; })"

# ---- PCIE-FL-016 after a replay timeout: 1496 NOP flits follow Payload flits 1-3 and an Ack (1500 flits
# unacknowledged: PCIE-FL-009 in frame 61), 3 explicit then an Ack in turn; the replay (Replay Schedule
# Rule 0 reset the explicit count) may be 6 explicit flits long, not 7
to() { # $1: explicit flits in the replay run
    printf '@capture format=pcapng\n@packet ts=0.000001 dir=out\npcieflit\n'
    printf 'pcieflit usage=1 seq=1\npcieflit usage=1 seq=2 prior_payload=1\npcieflit usage=1 seq=3 prior_payload=1\n'
    echo 'pcieflit usage=0 replay_cmd=1 seq=1023 prior_payload=1'
    k=0
    while [ $k -lt 1496 ]; do
        if [ $((k % 25)) = 0 ]; then printf '@packet ts=0.%06d dir=out\npcieflit\n' $((k / 25 + 2)); fi
        k=$((k + 1))
        if [ $((k % 4)) = 0 ]; then echo 'pcieflit usage=0 replay_cmd=1 seq=1023'; else echo 'pcieflit usage=0 seq=3'; fi
    done
    printf '@packet ts=0.000100 dir=out\npcieflit\n'
    printf 'pcieflit usage=1 seq=1\npcieflit usage=1 seq=2 prior_payload=1\npcieflit usage=1 seq=3 prior_payload=1\n'
    echo 'pcieflit usage=0 seq=3 prior_payload=1'
    k=4
    while [ $k -lt "$1" ]; do k=$((k + 1)); echo 'pcieflit usage=0 seq=3'; done
}
to 6 > "$tmp/to6.ub"
to 7 > "$tmp/to7.ub"
"$UBGEN" -w "$tmp/to6.pcapng" "$tmp/to6.ub" 2>/dev/null || bad "ubgen to6"
"$UBGEN" -w "$tmp/to7.pcapng" "$tmp/to7.ub" 2>/dev/null || bad "ubgen to7"
expect "replay run of 6 after a timeout" "PCIE-FL-002@62:1: PCIE-FL-002@62:2: PCIE-FL-002@62:3: PCIE-FL-009@61:1500,1:1" "$(findings "$tmp/to6.pcapng")"
expect "replay run of 7 after a timeout" "PCIE-FL-002@62:1: PCIE-FL-002@62:2: PCIE-FL-002@62:3: PCIE-FL-009@61:1500,1:1 PCIE-FL-016@62:7,6:62" "$(findings "$tmp/to7.pcapng")"
# pcie_flit: its transmitter sends only explicit-sequence flits; the 4th is past the limit
expect "pcie_flit, explicit run" "PCIE-FL-016@5:4,3:1" "$(findings "$C/pcie_flit.pcapng" | tr ' ' '\n' | { grep PCIE-FL-016 || true; })"

# ---- PCIE-FL-018: in the handshake an Ack flit first (frame 2), and one right after an Ack (frame 3)
printf '@capture format=pcapng\n@packet ts=0.000001 dir=out\npcieflit\npcieflit\n' > "$tmp/alt.ub"
printf '@packet ts=0.000002 dir=out\npcieflit\n' >> "$tmp/alt.ub"
printf 'pcieflit usage=0 %s seq=1023\n' replay_cmd=1 replay_cmd=0 replay_cmd=0 replay_cmd=0 replay_cmd=1 >> "$tmp/alt.ub"
printf '@packet ts=0.000003 dir=out\npcieflit\n' >> "$tmp/alt.ub"
printf 'pcieflit usage=0 %s seq=1023\n' replay_cmd=1 replay_cmd=0 replay_cmd=0 replay_cmd=0 >> "$tmp/alt.ub"
"$UBGEN" -w "$tmp/alt.pcapng" "$tmp/alt.ub" 2>/dev/null || bad "ubgen alt"
expect "handshake alternation" "PCIE-FL-018@2::2 PCIE-FL-018@3::2" "$(findings "$tmp/alt.pcapng")"
# the same flits without the IDLE flit: normal exchange, not judged
sed '2,4d' "$tmp/alt.ub" > "$tmp/alt2.ub"
"$UBGEN" -w "$tmp/alt2.pcapng" "$tmp/alt2.ub" 2>/dev/null || bad "ubgen alt2"
expect "no handshake seen" "" "$(findings "$tmp/alt2.pcapng")"

# the option is checked
if "$U" -o pcieflit.encoding=9b9b -r "$tmp/hs.pcapng" -q >/dev/null 2>&1; then bad "pcieflit.encoding=9b9b accepted"; else ok; fi

ub_check_done
