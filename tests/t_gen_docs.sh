#!/bin/sh
# The generated reference docs are what scripts/gen-docs.sh writes from the built ubdump: a hand edit
# of docs/rules.md (or fields.md, errors.md, interop.md, the reference part of lua.md) that the
# script would drop fails here - put the text into scripts/gen-docs.sh (or the tables it reads) instead.
# The script runs on a copy (the source tree is never written).
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
U=${UBDUMP:?UBDUMP not set (run through ctest)}
S=${UB_SOURCE_DIR:?UB_SOURCE_DIR not set (run through ctest)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubgd.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/scripts" "$tmp/docs"
cp "$S/scripts/gen-docs.sh" "$tmp/scripts/"
cp "$S/docs/lua.md" "$tmp/docs/" # its tutorial part is kept by the script
UBDUMP="$U" sh "$tmp/scripts/gen-docs.sh" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "scripts/gen-docs.sh"; }
n=0
for f in fields errors rules interop lua; do
    [ -s "$tmp/docs/$f.md" ] || fail "gen-docs.sh wrote no docs/$f.md"
    if ! cmp -s "$tmp/docs/$f.md" "$S/docs/$f.md"; then
        diff "$S/docs/$f.md" "$tmp/docs/$f.md" | head -20 || true
        fail "docs/$f.md differs from what scripts/gen-docs.sh generates (< committed, > generated)"
    fi
    n=$((n + 1))
done
grep -q -- '--loss-timeout MS' "$tmp/docs/rules.md" || fail "docs/rules.md lacks --loss-timeout"
echo "PASS t_gen_docs ($n generated docs identical)"
