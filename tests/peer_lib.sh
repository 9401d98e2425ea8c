# shellcheck shell=sh
# Shared by tests/t_peer_udp.sh and tests/t_peer_veth.sh: start ubpeer, wait until it is ready,
# run the tiny sender, wait for ubpeer to stop (--count), audit what it saved.
# Needs: UBPEER, PEER_SENDER, UBDUMP, a scratch directory $tmp, counters via ok/bad.

# run_peer NAME COUNT PEER_ARGS... : ubpeer in the background (--count COUNT -w $tmp/NAME.pcapng),
# returns when its ready file exists; sets PEER_PID, PEER_READY (file contents)
run_peer() {
    name=$1 count=$2
    shift 2
    rm -f "$tmp/$name.ready" "$tmp/$name.pcapng"
    "$UBPEER" --count "$count" --ready-file "$tmp/$name.ready" -w "$tmp/$name.pcapng" -q "$@" \
        > "$tmp/$name.out" 2> "$tmp/$name.err" &
    PEER_PID=$!
    i=0
    while [ ! -s "$tmp/$name.ready" ] && [ $i -lt 200 ]; do # safety net only: 20 s
        kill -0 "$PEER_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    PEER_READY=$(cat "$tmp/$name.ready" 2>/dev/null)
    [ -n "$PEER_READY" ]
}

# wait_peer NAME: wait for ubpeer to stop by itself (--count); killed after 30 s as a safety net
wait_peer() {
    i=0
    while kill -0 "$PEER_PID" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$PEER_PID" 2>/dev/null; then
        kill "$PEER_PID" 2>/dev/null
        echo "ubpeer ($1) did not stop by itself; stderr:"; cat "$tmp/$1.err"
    fi
    wait "$PEER_PID"
}

# audit_ids FILE: sets AUDIT_RC (ubdump's exit status: 0 clean, 1 findings) and AUDIT_IDS (the ids
# of the findings at warning or error level, sorted, space separated)
audit_ids() {
    "$UBDUMP" -r "$1" -q --audit --response-timeout 0 --audit-examples 1 > "$1.audit" 2>&1
    AUDIT_RC=$?
    AUDIT_IDS=$(grep -E '^(error|warning) +UB-' "$1.audit" | awk '{print $2}' | sort -u | tr '\n' ' ' | sed 's/ $//')
}

# expect_audit NAME WANT_RC "WANT IDS"
expect_audit() {
    audit_ids "$tmp/$1.pcapng"
    if [ "$AUDIT_RC" = "$2" ] && [ "$AUDIT_IDS" = "$3" ]; then ok; else
        bad "$1: audit exit $AUDIT_RC ids '$AUDIT_IDS', want exit $2 ids '$3'"
        head -40 "$tmp/$1.pcapng.audit"
    fi
}

# peer_audit_ids NAME: the ids in ubpeer's own --audit report (its stdout), like AUDIT_IDS
peer_audit_ids() {
    PEER_IDS=$(grep -E '^(error|warning) +UB-' "$tmp/$1.out" | awk '{print $2}' | sort -u | tr '\n' ' ' | sed 's/ $//')
}

# udp_peer NAME [FAULT]: ubpeer -q on 127.0.0.1 (a free port) in the background until killed, with one
# --fault knob; returns when it is ready; sets PEER_PID and PORT
udp_peer() {
    rm -f "$tmp/$1.ready"
    if [ $# -gt 1 ]; then
        "$UBPEER" --udp 127.0.0.1:0 --ready-file "$tmp/$1.ready" -q --fault "$2" > /dev/null 2> "$tmp/$1.peer.err" &
    else
        "$UBPEER" --udp 127.0.0.1:0 --ready-file "$tmp/$1.ready" -q > /dev/null 2> "$tmp/$1.peer.err" &
    fi
    PEER_PID=$!
    i=0
    while [ ! -s "$tmp/$1.ready" ] && [ $i -lt 200 ]; do # safety net only
        kill -0 "$PEER_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    PORT=$(cat "$tmp/$1.ready" 2>/dev/null)
    [ -n "$PORT" ]
}
