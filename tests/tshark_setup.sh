# Sourced by tshark tests (fail() defined, UB_SOURCE_DIR and UB_BINARY_DIR set): makes $tmp (removed at
# exit) with an empty profile home and caps/, sources tshark_lib.sh (ts, unprivileged tshark) and
# copies the built plugin into a private plugin dir: FAILS unless tshark loads our ub.so.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubts.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/home/.config/wireshark" "$tmp/caps"
. "${UB_SOURCE_DIR:?}/tests/tshark_lib.sh"
ub_plugin_install
