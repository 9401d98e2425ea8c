# shellcheck shell=sh
# Shared by the tests that run ubpeer (t_peer_udp, t_peer_veth, t_replay_udp, t_replay_veth,
# t_lua_scenario): scratch directory and counters, the private network namespace with its veth pair,
# ubpeer started in the background / waited for / stopped, the rule ids of audit reports.
# Needs: S (source dir) and UBPEER; run_peer and audit_ids also UBDUMP (and the tiny sender the caller runs).
. "$S/tests/check_lib.sh"

# peer_test_init NAME: check_lib.sh's scratch directory $tmp and ok/bad counters; at exit a ubpeer
# still running ($PEER_PID) is killed
peer_test_init() {
    ub_check_init "$1"
    PEER_PID=
    trap 'kill "$PEER_PID" 2>/dev/null; rm -rf "$tmp"' EXIT
}

# netns_enter "$0" "$@": unless already inside, runs this test again in a user + network namespace of
# its own (unshare -rn: nothing sent there leaves it); exit 77 (skipped) where that cannot be made
netns_enter() {
    PATH=$PATH:/usr/sbin:/sbin # ip(8) is in /usr/sbin on Debian
    [ "${UB_IN_NETNS:-}" = 1 ] && return 0
    if ! command -v unshare >/dev/null 2>&1 || ! unshare -rn true 2>/dev/null; then
        echo "SKIP: cannot create a user + network namespace here (unshare -rn failed)"
        exit 77
    fi
    if ! command -v ip >/dev/null 2>&1; then
        echo "SKIP: iproute2 ('ip') not installed (scripts/deps.sh installs it)"
        exit 77
    fi
    UB_IN_NETNS=1 exec unshare -rn sh "$@"
}

# wait_safe PID: the exit status of a background process of this shell (killed after 20 s: a safety
# net only, never a timing assertion)
wait_safe() {
    ( sleep 20; kill "$1" 2>/dev/null ) &
    _ws=$!
    wait "$1"
    _st=$?
    kill "$_ws" 2>/dev/null
    return $_st
}

# veth_up: inside the namespace, lo up and a veth pair va <-> vb up, no IPv6 autoconfiguration chatter
# on the links (raw mode sees every frame); exit 77 (skipped) where a veth pair cannot be made
veth_up() {
    echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6 2>/dev/null
    echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6 2>/dev/null
    ip link set lo up
    if ! ip link add va type veth peer name vb 2>"$tmp/ip.err"; then
        echo "SKIP: cannot create a veth pair in the namespace: $(cat "$tmp/ip.err")"
        exit 77
    fi
    ip link set va up && ip link set vb up || { bad "veth up"; exit 1; }
}

# start_peer NAME OUT ERR UBPEER_ARGS...: ubpeer -q --ready-file $tmp/NAME.ready in the background
# (stdout to OUT, stderr to ERR); returns when the ready file has content, false when ubpeer stopped
# or did not get ready in 20 s (a safety net only); sets PEER_PID and PEER_READY (the file contents)
start_peer() {
    name=$1 peer_out=$2 peer_err=$3
    shift 3
    rm -f "$tmp/$name.ready"
    "$UBPEER" -q --ready-file "$tmp/$name.ready" "$@" > "$peer_out" 2> "$peer_err" &
    PEER_PID=$!
    i=0
    while [ ! -s "$tmp/$name.ready" ] && [ $i -lt 200 ]; do
        kill -0 "$PEER_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    PEER_READY=$(cat "$tmp/$name.ready" 2>/dev/null)
    [ -n "$PEER_READY" ]
}

# stop_peer: kill the ubpeer of start_peer and reap it
stop_peer() { kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null; PEER_PID=; }

# report_ids FILE: the rule ids at warning or error level of a text audit report, sorted, space separated
report_ids() { grep -E '^(error|warning) +UB-' "$1" | awk '{print $2}' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# run_peer NAME COUNT PEER_ARGS... : ubpeer in the background (--count COUNT -w $tmp/NAME.pcapng,
# output in $tmp/NAME.out and .err), returns when it is ready (start_peer)
run_peer() {
    name=$1 count=$2
    shift 2
    rm -f "$tmp/$name.pcapng"
    start_peer "$name" "$tmp/$name.out" "$tmp/$name.err" --count "$count" -w "$tmp/$name.pcapng" "$@"
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
    AUDIT_IDS=$(report_ids "$1.audit")
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
    PEER_IDS=$(report_ids "$tmp/$1.out")
}

# udp_peer NAME [FAULT]: ubpeer on 127.0.0.1 (a free port) in the background until stop_peer, with one
# --fault knob when FAULT is not empty (stderr in $tmp/NAME.peer.err); returns when it is ready; sets
# PEER_PID and PORT
udp_peer() {
    start_peer "$1" /dev/null "$tmp/$1.peer.err" --udp 127.0.0.1:0 ${2:+--fault "$2"}
    PORT=$PEER_READY
    [ -n "$PORT" ]
}
