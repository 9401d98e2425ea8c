#!/usr/bin/env bash
# The test command (README, CI):
#   1. build/       normal build (RelWithDebInfo) + ctest
#   2. build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer build (-DUB_SANITIZE=ON) + ctest
#   3. build-fuzz/  short libFuzzer runs of tests/fuzz_decode.c and tests/fuzz/fuzz_capfile.c
#                   (only when clang with libFuzzer is installed)
# Environment: JOBS (default: nproc), UB_FUZZ_TIME (seconds for the decoder fuzzer, default 45;
# the capture-file fuzzer gets a third of it; 0 skips fuzzing), UB_ASAN_CC (compiler for the
# sanitizer build, default clang if installed: its ASan also checks global arrays), UB_SKIP_ASAN=1,
# UB_BUILD_DIR / UB_ASAN_DIR / UB_FUZZ_DIR (default build, build-asan, build-fuzz), UB_CTEST_ARGS
# (extra ctest arguments, e.g. "-R capfile").
# Re-running is cheap: the build directories are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_TIME=${UB_FUZZ_TIME:-45}
B=${UB_BUILD_DIR:-build} BA=${UB_ASAN_DIR:-build-asan} BF=${UB_FUZZ_DIR:-build-fuzz}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
start=$(date +%s)

ub_section "1/3 build + ctest ($B/)"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUB_DISSECTOR=ON
cmake --build "$B" -j"$JOBS"
# shellcheck disable=SC2086  # UB_CTEST_ARGS is a list of arguments
(cd "$B" && ctest --output-on-failure -j"$JOBS" ${UB_CTEST_ARGS:-})

if [ "${UB_SKIP_ASAN:-0}" != 1 ]; then
    ub_section "2/3 ASan + UBSan build + ctest ($BA/)"
    asan_cc=${UB_ASAN_CC:-}
    if [ -z "$asan_cc" ]; then if command -v clang >/dev/null 2>&1; then asan_cc=clang; else asan_cc=cc; fi; fi
    # (the Wireshark plugin is compiled without sanitizers even here: dissector/CMakeLists.txt)
    CC=$asan_cc cmake -S . -B "$BA" -DCMAKE_BUILD_TYPE=Debug -DUB_SANITIZE=ON -DUB_DISSECTOR=ON
    cmake --build "$BA" -j"$JOBS"
    # shellcheck disable=SC2086
    (cd "$BA" && ctest --output-on-failure -j"$JOBS" ${UB_CTEST_ARGS:-})
fi

ub_section "3/3 libFuzzer ($BF/)"
if [ "$FUZZ_TIME" = 0 ]; then
    echo "UB_FUZZ_TIME=0: skipped"
elif ! ub_have_libfuzzer; then
    echo "clang with libFuzzer not available (Debian: clang libclang-rt-14-dev): skipped"
else
    mkdir -p "$BF"/corpus-decode "$BF"/corpus-capfile "$BF"/seeds-decode "$BF"/artifacts
    # shellcheck disable=SC2054  # commas belong to -fsanitize=
    FZ_FLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer
              -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Ilibubparse/include)
    clang "${FZ_FLAGS[@]}" -Ilibubparse/src libubparse/src/[a-z]*.c tests/fuzz_decode.c -o "$BF"/fuzz_decode
    clang "${FZ_FLAGS[@]}" libubparse/src/capfile.c tests/fuzz/fuzz_capfile.c -o "$BF"/fuzz_capfile
    cc -O1 -D_POSIX_C_SOURCE=200809L -Ilibubparse/include libubparse/src/capfile.c tests/fuzz/extract.c \
       -o "$BF"/extract
    # seeds: the records of the bundled captures (one file per distinct record)
    shopt -s nullglob
    caps=(captures/*.pcap captures/*.pcapng)
    if [ "${#caps[@]}" -gt 0 ]; then "$BF"/extract "$BF"/seeds-decode 200 "${caps[@]}"; fi
    for c in "${caps[@]}"; do  # small captures also seed the capture-file fuzzer
        if [ "$(stat -c %s "$c")" -le 65536 ]; then cp -f "$c" "$BF"/corpus-capfile/; fi
    done
    shopt -u nullglob
    cap_time=$(( FUZZ_TIME / 3 > 5 ? FUZZ_TIME / 3 : 5 ))
    fuzz_failed=0
    run_fuzzer() { # name seconds max_len corpus-dirs...
        local name=$1 secs=$2 maxlen=$3
        shift 3
        echo "-- $name: ${secs}s"
        if ! "$BF/$name" -max_total_time="$secs" -max_len="$maxlen" -timeout=20 -rss_limit_mb=2048 \
                -print_final_stats=1 -artifact_prefix="$BF"/artifacts/"$name"- "$@" \
                >"$BF/$name".log 2>&1; then
            fuzz_failed=1
            grep -v '^fuzz_decode: note' "$BF/$name".log | tail -60
            echo "!! $name found a failing input:" "$BF"/artifacts/"$name"-*
            echo "!! once fixed, copy it into tests/fuzz/corpus/ (or tests/fuzz/capfile_corpus/) as a regression test"
        else
            grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$BF/$name".log || true
        fi
    }
    run_fuzzer fuzz_decode "$FUZZ_TIME" 12000 "$BF"/corpus-decode tests/fuzz/corpus "$BF"/seeds-decode
    run_fuzzer fuzz_capfile "$cap_time" 65536 "$BF"/corpus-capfile tests/fuzz/capfile_corpus
    [ "$fuzz_failed" = 0 ] || exit 1
fi

ub_section "all tests passed ($(( $(date +%s) - start )) s)"
