# Shared by t_tshark_neigh.sh and t_tshark_neigh_prefs.sh (sourced; POSIX sh): the scratch dir, the
# plugin installed and loaded (tshark_setup.sh), the counters and the comparison helpers.
# Needs: UB_SOURCE_DIR, UB_BINARY_DIR, UBDUMP. Sets U (ubdump), C (captures/), tmp.
fail() { echo "FAIL: $*" >&2; exit 1; }
: "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}" "${UBDUMP:?}"
U=$UBDUMP
C=$UB_SOURCE_DIR/captures
command -v python3 >/dev/null 2>&1 || fail "python3 is not installed"
. "$UB_SOURCE_DIR/tests/tshark_setup.sh"

pass=0
nfail=0
ok() { pass=$((pass + 1)); }
bad() { nfail=$((nfail + 1)); echo "FAIL: $*" >&2; }
expect() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$3', want '$2'"; fi; }
# integers as numbers, per column and occurrence (tshark: 0x00, ubdump: 0x0 for a 2-bit hex field)
norm() {
    python3 -c '
import re, sys
n = lambda t: str(int(t, 16)) if re.fullmatch(r"0x[0-9a-fA-F]+", t) else t
for line in sys.stdin:
    print("\t".join(",".join(n(x) for x in c.split(",")) for c in line.rstrip("\n").split("\t")))'
}
