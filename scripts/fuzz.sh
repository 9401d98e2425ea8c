#!/usr/bin/env bash
# The libFuzzer harnesses (tests/fuzz/README.md), built with clang into build-fuzz/ (UB_FUZZ_DIR):
#
#   scripts/fuzz.sh run [SECONDS]     build every harness and run each for a bounded time (the decoder
#                                     SECONDS, default 45; the others a third or half of it) from the repo
#                                     corpus + seeds made from captures/ -- what CI does (scripts/test.sh).
#                                     New inputs go to build-fuzz/work-*, failing ones to build-fuzz/artifacts/.
#   scripts/fuzz.sh merge [SECONDS]   maintainer: `run`, then add every input that reaches new coverage to
#                                     the repo corpora (libFuzzer -merge=1: minimal, nothing twice); review
#                                     and commit tests/fuzz/*corpus*/. Let it run long (e.g. 1800).
#   scripts/fuzz.sh build             only build the harnesses
#
# Exit status 1 when a harness found a failing input (its log tail and the artifact path are printed):
# fix the bug, then copy the artifact into the harness's corpus directory as a regression test
# (tests/test_fuzz_replay.c replays every corpus under ctest, with ASan/UBSan in build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

mode=${1:-run}
T=${2:-${UB_FUZZ_TIME:-45}}
BF=${UB_FUZZ_DIR:-build-fuzz}
case "$mode" in run|merge|build) ;; *) echo "usage: scripts/fuzz.sh run|merge|build [SECONDS]" >&2; exit 2;; esac
if ! ub_have_libfuzzer; then
    echo "clang with libFuzzer not available (Debian: clang libclang-rt-14-dev): fuzzing skipped"
    [ "$mode" = run ] && exit 0
    exit 1
fi

# name | source | repo corpus | max_len while fuzzing | max_len of corpus entries | share of T (1/N)
HARNESSES=(
    "fuzz_decode|tests/fuzz_decode.c|tests/fuzz/corpus|12000|1500|1"
    "fuzz_capfile|tests/fuzz/fuzz_capfile.c|tests/fuzz/capfile_corpus|65536|65536|3"
    "fuzz_state|tests/fuzz/fuzz_state.c|tests/fuzz/state_corpus|65536|2500|2"
    "fuzz_filter|tests/fuzz/fuzz_filter.c|tests/fuzz/filter_corpus|4096|160|3"
    "fuzz_build|tests/fuzz/fuzz_build.c|tests/fuzz/build_corpus|16384|1024|3"
)

mkdir -p "$BF"/artifacts "$BF"/seeds-decode "$BF"/seeds-state "$BF"/seeds-build "$BF"/seeds-capfile
# shellcheck disable=SC2054  # commas belong to -fsanitize=
FZ_FLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer
          -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Ilibubparse/include -Ilibubparse/src)
for h in "${HARNESSES[@]}"; do
    IFS='|' read -r name src _ <<<"$h"
    if [ "$name" = fuzz_capfile ]; then
        clang "${FZ_FLAGS[@]}" libubparse/src/capfile.c libubparse/src/capgz.c "$src" -o "$BF/$name" -lz
    else
        clang "${FZ_FLAGS[@]}" libubparse/src/[a-z]*.c "$src" -o "$BF/$name" -lpcre2-8 -lz
    fi
done
cc -O1 -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Ilibubparse/include libubparse/src/capfile.c libubparse/src/capgz.c tests/fuzz/extract.c -o "$BF"/extract -lz
cc -O1 -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Ilibubparse/include libubparse/src/[a-z]*.c tests/fuzz/mkseed.c -o "$BF"/mkseed -lpcre2-8 -lz
[ "$mode" = build ] && { echo "built: $BF/fuzz_*"; exit 0; }

# seeds from the bundled captures (and the shared ns-3-UB traces when present)
shopt -s nullglob
caps=(captures/*.pcap captures/*.pcapng ../shared/interop/ns3-ub/*.pcap)
if [ "${#caps[@]}" -gt 0 ]; then
    "$BF"/extract "$BF"/seeds-decode 200 "${caps[@]}"
    "$BF"/mkseed state "$BF"/seeds-state "${caps[@]}"
fi
specs=(captures/*.ub)
[ "${#specs[@]}" -gt 0 ] && "$BF"/mkseed build "$BF"/seeds-build "${specs[@]}"
for c in "${caps[@]}"; do # small captures also seed the capture-file fuzzer
    if [ "$(stat -c %s "$c")" -le 65536 ]; then cp -f "$c" "$BF"/seeds-capfile/; fi
done
shopt -u nullglob

failed=0
for h in "${HARNESSES[@]}"; do
    IFS='|' read -r name _ corpus maxlen _ share <<<"$h"
    secs=$(( T / share > 5 ? T / share : 5 ))
    work="$BF/work-${name#fuzz_}"
    seeds="$BF/seeds-${name#fuzz_}"
    mkdir -p "$work" "$seeds"
    echo "-- $name: ${secs}s (corpus $corpus)"
    if ! "$BF/$name" -max_total_time="$secs" -max_len="$maxlen" -timeout=20 -rss_limit_mb=2048 \
            -print_final_stats=1 -artifact_prefix="$BF"/artifacts/"$name"- "$work" "$corpus" "$seeds" \
            >"$BF/$name".log 2>&1; then
        failed=1
        grep -v '^fuzz_decode: note' "$BF/$name".log | tail -60
        echo "!! $name found a failing input:" "$BF"/artifacts/"$name"-*
        echo "!! once fixed, copy it into $corpus/ under a descriptive name as a regression test"
    else
        grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$BF/$name".log || true
    fi
done
[ "$failed" = 0 ] || exit 1

if [ "$mode" = merge ]; then
    for h in "${HARNESSES[@]}"; do
        IFS='|' read -r name _ corpus _ keeplen _ <<<"$h"
        before=$(find "$corpus" -type f | wc -l)
        "$BF/$name" -merge=1 -max_len="$keeplen" "$corpus" "$BF/work-${name#fuzz_}" "$BF/seeds-${name#fuzz_}" \
            >"$BF/$name".merge.log 2>&1 || { tail -20 "$BF/$name".merge.log; exit 1; }
        echo "-- $name: $corpus $before -> $(find "$corpus" -type f | wc -l) inputs"
    done
    echo "review and commit: git add tests/fuzz/ && git status tests/fuzz/"
fi
