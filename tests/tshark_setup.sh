# Sourced by tshark tests (set -eu, fail() defined, UB_BINARY_DIR and S = source dir set): finds the
# built plugin, makes $tmp (removed at exit) with a private plugin dir and an empty profile home,
# sources tshark_lib.sh (ts, unprivileged tshark) and FAILS unless tshark loads our ub.so.
command -v tshark >/dev/null 2>&1 || fail "tshark is missing (apt-get install tshark): this test must run, never skip"
PLUGIN=$(ls "${UB_BINARY_DIR:?}"/plugins/*/epan/ub.so 2>/dev/null | tail -n 1)
[ -f "$PLUGIN" ] || fail "the plugin was not built (-DUB_DISSECTOR=ON, wireshark-dev)"
WSVER=${PLUGIN%/epan/ub.so}
WSVER=${WSVER##*/}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubts.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/plugins/$WSVER/epan" "$tmp/home/.config/wireshark" "$tmp/caps"
cp "$PLUGIN" "$tmp/plugins/$WSVER/epan/ub.so"
. "$S/tests/tshark_lib.sh"
ub_require_plugin
