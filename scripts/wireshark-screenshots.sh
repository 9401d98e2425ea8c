#!/bin/sh
# Take the docs/wireshark-ub*.png screenshots from the real Wireshark GUI, headless (docs/wireshark.md
# "Screenshots"): Xvfb, the plugin of the build tree, the profile UnifiedBus in a scratch HOME.
# Needs (not CI dependencies): wireshark-qt xvfb xauth xdotool imagemagick.
#   scripts/wireshark-screenshots.sh [BUILD_DIR [OUT_DIR]]     (defaults: build, docs)
# As root Wireshark would ignore WIRESHARK_PLUGIN_DIR: it runs under unshare -U (uid nobody).
# The clicks are screen positions of Wireshark 4.0's default layout on a 1600x1000 screen.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
out=$(cd "${2:-$src/docs}" && pwd)
for t in wireshark Xvfb xdotool import; do
    command -v $t > /dev/null 2>&1 || { echo "wireshark-screenshots.sh: $t not found" >&2; exit 1; }
done
CONVERT=/usr/bin/convert
[ -x $CONVERT ] || CONVERT=convert
work=$(mktemp -d "${TMPDIR:-/tmp}/ubshots.XXXXXX")
pids=
cleanup() {
    for p in $pids; do kill "$p" 2> /dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir -p "$work/plugins" "$work/home" "$work/caps"
cp -r "$build/plugins/." "$work/plugins/"
cp "$src"/captures/audit_rtp_lossy.pcapng "$src"/captures/audit_txn_clean.pcapng "$work/caps/"
HOME="$work/home" XDG_CONFIG_HOME='' sh "$src/scripts/wireshark-profile.sh" > /dev/null
chmod -R a+rwX "$work"
RUN=
[ "$(id -u)" = 0 ] && RUN="unshare -U"
disp=:$((90 + $$ % 9))
Xvfb "$disp" -screen 0 1600x1000x24 -ac -nolisten tcp > "$work/xvfb.log" 2>&1 &
pids="$pids $!"
sleep 2
export DISPLAY="$disp"

ws() { # ws CAPTURE ARGS...: start Wireshark with the profile, wait for its main window
    cap=$1
    shift
    $RUN env HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" WIRESHARK_PLUGIN_DIR="$work/plugins" \
        wireshark -C UnifiedBus -r "$work/caps/$cap" "$@" > "$work/ws.log" 2>&1 &
    wpid=$!
    pids="$pids $wpid"
    for _ in $(seq 1 40); do
        xdotool search --name "^${cap}" > /dev/null 2>&1 && break
        sleep 0.5
    done
    sleep 3
}
ws_quit() {
    kill "$wpid" 2> /dev/null || true
    wait "$wpid" 2> /dev/null || true
}
shot() { # shot WINDOW_ID FILE
    xdotool mousemove 1590 990
    sleep 1
    import -window "$1" "$work/shot.png"
    $CONVERT "$work/shot.png" -colors 128 "PNG8:$2"
}

# 1. main window: packet list with the profile's columns and colours, frame 9 with its header summaries
#    and the analysis expanded (UnifiedBus, its last child [UB analysis], the audit rule)
ws audit_rtp_lossy.pcapng -g 9
W=$(xdotool search --name '^audit_rtp_lossy' | head -1)
xdotool windowsize "$W" 1600 1000 windowmove "$W" 0 0
sleep 1
xdotool mousemove 70 564 click 1 key Right key End key Right key End key Right key Down key Right key Up
shot root "$out/wireshark-ub.png"
ws_quit

# 2. Analyze > Expert Information (-z expert): one group per audit rule, UB-TP-003 expanded
ws audit_rtp_lossy.pcapng -z expert
E=$(xdotool search --name 'Expert Information' | head -1)
xdotool windowsize "$E" 1300 430 windowmove "$E" 0 0
sleep 1
xdotool mousemove 540 22 click --repeat 2 1 mousemove 21 109 click 1
shot "$E" "$out/wireshark-ub-analysis.png"
ws_quit

# 3. Statistics > Conversations: the UB tabs opened by the profile's "recent"; the UB TP tab
ws audit_rtp_lossy.pcapng
W=$(xdotool search --name '^audit_rtp_lossy' | head -1)
xdotool windowsize "$W" 1600 1000 windowmove "$W" 0 0
sleep 1
xdotool mousemove 325 10 click 1 sleep 1 mousemove 366 109 click 1 # Statistics > Conversations
sleep 3
C=$(xdotool search --name 'Conversations' | head -1)
xdotool windowsize "$C" 1300 450 windowmove "$C" 0 0
sleep 1
xdotool mousemove 643 26 click 1
shot "$C" "$out/wireshark-ub-conv.png"
ws_quit

# 4. Statistics > Service Response Time > UB (-z ub,srt)
ws audit_txn_clean.pcapng -z ub,srt
S=$(xdotool search --name 'Service Response Time' | head -1)
xdotool windowsize "$S" 1100 520 windowmove "$S" 0 0
shot "$S" "$out/wireshark-ub-srt.png"
ws_quit
echo "screenshots written to $out"
