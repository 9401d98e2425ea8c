#!/bin/sh
# Regenerate every captures/NAME.pcapng from captures/NAME.ub with the builder (ubgen).
# Run through the build target:  cmake --build build --target captures
set -eu
# (generated files are checked in; tests compare a fresh regeneration byte for byte)
dir=${1:-$(dirname "$0")}
UBGEN=${UBGEN:-ubgen}
for spec in "$dir"/*.ub; do
    out="${spec%.ub}.pcapng"
    "$UBGEN" -w "$out.tmp" "$spec"
    mv "$out.tmp" "$out"
    echo "  $(basename "$out")"
done
