#!/usr/bin/env bash
# Byte-identical output check for speed work: runs two ubdump binaries over every bundled capture
# (and the first 2,000 records of each benchmark capture when present) in several modes and diffs:
#   bench/same_output.sh OLD_UBDUMP [NEW_UBDUMP]      (NEW defaults to build/tools/ubdump)
# Modes: -q (totals), -V (every field), --audit (findings), -T json, -T fields with two fields, -q -z ub,tp.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=${2:-build/tools/ubdump}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
caps=(captures/*.pcapng)
for c in bench/out/bench-200000.pcap bench/out/mixed-200000.pcap; do [ -f "$c" ] && caps+=("$c"); done
for cap in "${caps[@]}"; do
    extra=()
    case $cap in *noncrc*) extra=(--noncrc) ;; esac
    case $cap in bench/*) extra+=(-c 2000) ;; esac
    for mode in "-q" "-V" "--audit" "-T json" "-T fields -e ub.lph.cfg -e ub.btah.taopcode" "-q -z ub,tp --audit" \
        "--audit -q --audit-examples 2" "--audit -q --threads 2 --audit-examples 3" "--audit -q -T json"; do
        # shellcheck disable=SC2086  # $mode is a list of options
        "$old" -r "$cap" "${extra[@]}" $mode >"$tmp/a" 2>&1 || true
        # shellcheck disable=SC2086
        "$new" -r "$cap" "${extra[@]}" $mode >"$tmp/b" 2>&1 || true
        n=$((n + 1))
        if ! cmp -s "$tmp/a" "$tmp/b"; then
            echo "DIFFERENT: $cap $mode"
            diff "$tmp/a" "$tmp/b" | head -10 || true # diff exits 1 (and may take SIGPIPE): go on to the next run
            fail=1
        fi
    done
done
echo "$n runs compared, $([ $fail = 0 ] && echo identical || echo 'DIFFERENCES')"
exit $fail
