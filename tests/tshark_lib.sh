# Shared by the tests that run tshark (sourced; POSIX sh), most through tshark_setup.sh.
# Needs: $tmp (scratch dir with home*/ dirs), fail(); ub_plugin_install puts the plugin into $tmp/plugins.
# UB_TS_PLUGIN_DIR: another plugin folder (default $tmp/plugins; t_install.sh: the installed one).
# tshark ignores personal plugins and WIRESHARK_PLUGIN_DIR when run as root: drop privileges with
# unshare -U (or setpriv as a fallback; UB_TSHARK_PRIVDROP=setpriv forces it, to test the fallback).
RUN=
if [ "$(id -u)" = 0 ]; then
    if [ "${UB_TSHARK_PRIVDROP:-}" != setpriv ] && [ "$(unshare -U id -u 2>/dev/null)" = 65534 ]; then
        RUN="unshare -U"
    elif command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        RUN="setpriv --reuid=65534 --regid=65534 --clear-groups"
    else
        fail "running as root and unable to drop privileges (unshare -U / setpriv): tshark would ignore the plugin"
    fi
fi
mkdir -p "$tmp/noextcap" # no extcap helpers: faster, and a preloaded ASan runtime must not reach them
chmod 755 "$tmp"
chmod -R a+rX "$tmp"

# ts_home HOMEDIR tshark-args...: tshark with the test's plugin dir and the given profile home.
# UB_TSHARK_PRELOAD (scripts/test.sh, plugin built with -DUB_WS_SANITIZE=ON): the ASan runtime to
# preload into the uninstrumented tshark, e.g. $(gcc -print-file-name=libasan.so); ASAN_OPTIONS and
# UBSAN_OPTIONS come from the environment.
ts_home() {
    h=$1
    shift
    $RUN env HOME="$tmp/$h" XDG_CONFIG_HOME="$tmp/$h/.config" WIRESHARK_PLUGIN_DIR="${UB_TS_PLUGIN_DIR:-$tmp/plugins}" \
        WIRESHARK_EXTCAP_DIR="$tmp/noextcap" ${UB_TSHARK_PRELOAD:+"LD_PRELOAD=$UB_TSHARK_PRELOAD"} \
        WIRESHARK_ABORT_ON_DISSECTOR_BUG=1 WIRESHARK_ABORT_ON_TOO_MANY_ITEMS=1 tshark "$@"
}
ts() { ts_home home "$@"; }

# fail unless `tshark -G plugins` lists our ub.so (a test that ran without the plugin is worthless)
ub_require_plugin() {
    ts -G plugins > "$tmp/plugins.txt" 2> "$tmp/plugins.err" || { cat "$tmp/plugins.err"; fail "tshark -G plugins"; }
    grep -q "^ub\.so[[:space:]].*${UB_TS_PLUGIN_DIR:-$tmp/plugins}/$WSVER/epan/ub\.so" "$tmp/plugins.txt" || {
        cat "$tmp/plugins.txt" "$tmp/plugins.err"
        fail "tshark -G plugins does not list our ub.so - the plugin was not loaded"
    }
}

# ub_plugin_install: the built ub.so ($UB_BINARY_DIR/plugins/<ver>/epan) copied into $tmp/plugins (sets
# PLUGIN, WSVER and TSVER, the Wireshark version of tshark); FAILS when tshark or the plugin is missing,
# the plugin was built for another Wireshark version, or tshark does not load it (ub_require_plugin).
ub_plugin_install() {
    command -v tshark >/dev/null 2>&1 || fail "tshark is not installed (Debian: apt-get install tshark); this test must run"
    PLUGIN=
    for p in "$UB_BINARY_DIR"/plugins/*/epan/ub.so; do
        [ -f "$p" ] && PLUGIN=$p
    done
    [ -n "$PLUGIN" ] || fail "plugin not built: no $UB_BINARY_DIR/plugins/<ver>/epan/ub.so (needs wireshark-dev and -DUB_DISSECTOR=ON)"
    WSVER=$(basename "$(dirname "$(dirname "$PLUGIN")")")
    TSVER=$(tshark -v 2>/dev/null | sed -n '1s/.*(Wireshark) \([0-9]*\.[0-9]*\).*/\1/p')
    [ "$TSVER" = "$WSVER" ] || fail "tshark is Wireshark $TSVER but the plugin was built for $WSVER"
    mkdir -p "$tmp/plugins/$WSVER/epan"
    cp "$PLUGIN" "$tmp/plugins/$WSVER/epan/ub.so" || fail "copy plugin"
    chmod -R a+rX "$tmp"
    ub_require_plugin
}
