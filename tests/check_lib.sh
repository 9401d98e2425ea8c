# Shared by t_install.sh, t_logs.sh, t_completion.sh (sourced after `set -euo pipefail`) and, through
# peer_lib.sh, the ubpeer tests (POSIX sh, `set -u`).
# ub_check_init NAME: a scratch directory $tmp removed at exit, counters and the assertion helpers:
#   ok / bad MESSAGE           count a pass / report a failure
#   eq DESCRIPTION GOT WANT    exact string comparison (same DESCRIPTION WANT GOT: printed on lines)
#   check DESCRIPTION CMD...   the command succeeds
#   ub_check_done              prints the totals; exit 1 when something failed
ub_check_init() {
    UB_CHECK_NAME=$1
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || { echo "FAIL: mktemp"; exit 1; }
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 1' INT TERM # stop there; the EXIT trap cleans up
    pass=0
    fail=0
}
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi; }
# same DESCRIPTION WANT GOT: exact comparison, both printed on a failure (multi-line values)
same() { if [ "$2" = "$3" ]; then ok; else bad "$1"; printf 'want:\n%s\ngot:\n%s\n' "$2" "$3"; fi; }
check() {
    local what=$1
    shift
    if "$@"; then ok; else bad "$what"; fi
}
ub_check_done() {
    echo "$UB_CHECK_NAME: $pass passed, $fail failed"
    [ "$fail" -eq 0 ] || exit 1
}
