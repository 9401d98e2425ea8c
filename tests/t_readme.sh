#!/bin/bash
# Every command of README.md works as written (DEVELOPERS.md: "Every command in the README must work").
# Each ```sh block is run as a bash script from a scratch directory that looks like the source tree
# (build -> this build, captures/lua/tests -> the sources), inside a private network namespace
# (unshare -rn, own loopback) when possible so that the replay examples' UDP port is ours alone.
# Each command must exit 0, or 1 when it is an audit or check that reports findings (the README says
# which exit it expects in its comment: "exit 1"). Skipped: the set-up/test scripts themselves and
# `cmake --build ... --target captures` (it rewrites the source tree).
set -u
: "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}"
S=$UB_SOURCE_DIR
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ubreadme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/w"
ln -s "$UB_BINARY_DIR" "$tmp/w/build"
for d in captures lua tests docs; do ln -s "$S/$d" "$tmp/w/$d"; done
[ -d "$S/../shared" ] && ln -s "$S/../shared" "$tmp/shared" # the spec folder beside the checkout (as in CI)

# extract the blocks: one script per block, every command followed by its exit-status check
awk -v out="$tmp/block" '
    /^```sh$/ { inb = 1; n++; f = sprintf("%s%02d.sh", out, n); print "cd \"$W\"" > f; next }
    /^```/ && inb { inb = 0; close(f); next }
    !inb { next }
    { line = (cont ? cont " " : "") $0 }
    /\\$/ { sub(/\\$/, "", line); cont = line; next }
    { cont = "" }
    line ~ /^[ \t]*(#|$)/ { next }
    line ~ /^(\.\/scripts\/|cmake )/ { next }
    {
        want = (line ~ /# .*exit 1/) ? 1 : 0
        cmd = line
        if (cmd ~ /&[ \t]*(#.*)?$/) { # a server in the background: wait until its UDP port is bound
            print cmd > f
            print "for i in $(seq 100); do ss -Hlun 2>/dev/null | grep -q \":4792 \" && break; sleep 0.05; done" > f
            next
        }
        gsub(/\047/, "\047\\\047\047", line)
        print cmd > f
        print "rc=$?; L=\047" line "\047" > f
        printf "if [ $rc -ne 0 ] && [ $rc -ne %d ]; then echo \"FAIL (exit $rc): $L\"; else echo \"ok: $L\"; fi\n", want > f
    }' "$S/README.md"

run() { W=$tmp/w bash "$1" 2>"$1.err"; }
for b in "$tmp"/block*.sh; do
    if command -v unshare > /dev/null 2>&1 && unshare -rn true 2> /dev/null; then
        out=$(unshare -rn bash -c "ip link set lo up 2>/dev/null; W=$tmp/w bash $b" 2> "$b.err")
    else
        out=$(run "$b")
    fi
    printf '%s\n' "$out" | grep -q '^FAIL' && { printf '%s\n' "$out" | grep '^FAIL' >&2; sed 's/^/  stderr: /' "$b.err" | head -20 >&2; }
    pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok:')))
    fail=$((fail + $(printf '%s\n' "$out" | grep -c '^FAIL')))
done
[ "$pass" -ge 10 ] || { echo "FAIL: only $pass README commands found" >&2; fail=$((fail + 1)); }
echo "t_readme: $pass commands passed, $fail failed"
[ "$fail" -eq 0 ]
