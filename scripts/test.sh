#!/usr/bin/env bash
# The test command (README, CI):
#   1. build/       normal build (RelWithDebInfo) + ctest; then build-release/, the Release build
#                   (-O3) compiled only: its inlining finds warnings -O2 does not, and -Werror
#                   must hold for every build type a user may pick
#   2. build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer build (-DUB_SANITIZE=ON) + ctest
#   3. build-fuzz/  bounded libFuzzer runs of every harness (scripts/fuzz.sh run: decoder, capture
#                   files, state engine, display filters, builder) from the repo corpora tests/fuzz/
#                   (only when clang with libFuzzer is installed)
#   4. build-wsasan/ the Wireshark plugin with ASan + UBSan; the tshark tests (goldens, functional
#                   checks, editcap -E mutations) run against it with the ASan runtime preloaded
# Environment: JOBS (default: nproc), UB_FUZZ_TIME (seconds for the decoder fuzzer, default 45;
# the others get a half or a third of it; 0 skips fuzzing), UB_ASAN_CC (compiler for the
# sanitizer build, default clang if installed: its ASan also checks global arrays), UB_SKIP_ASAN=1,
# UB_SKIP_WSASAN=1, UB_SKIP_RELEASE=1, UB_BUILD_DIR / UB_RELEASE_DIR / UB_ASAN_DIR / UB_FUZZ_DIR /
# UB_WSASAN_DIR (default build, build-release,
# build-asan, build-fuzz, build-wsasan), UB_CTEST_ARGS (extra ctest arguments, e.g. "-R capfile").
# Re-running is cheap: the build directories are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_TIME=${UB_FUZZ_TIME:-45}
B=${UB_BUILD_DIR:-build} BR=${UB_RELEASE_DIR:-build-release} BA=${UB_ASAN_DIR:-build-asan} BF=${UB_FUZZ_DIR:-build-fuzz} BW=${UB_WSASAN_DIR:-build-wsasan}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
start=$(date +%s)

ub_section "1/4 build + ctest ($B/)"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUB_DISSECTOR=ON
cmake --build "$B" -j"$JOBS"
# shellcheck disable=SC2086  # UB_CTEST_ARGS is a list of arguments
(cd "$B" && ctest --output-on-failure -j"$JOBS" ${UB_CTEST_ARGS:-})
if [ "${UB_SKIP_RELEASE:-0}" != 1 ]; then
    ub_section "1/4 Release build, compiled only ($BR/)"
    cmake -S . -B "$BR" -DCMAKE_BUILD_TYPE=Release -DUB_DISSECTOR=ON
    cmake --build "$BR" -j"$JOBS"
fi

if [ "${UB_SKIP_ASAN:-0}" != 1 ]; then
    ub_section "2/4 ASan + UBSan build + ctest ($BA/)"
    asan_cc=${UB_ASAN_CC:-}
    if [ -z "$asan_cc" ]; then if command -v clang >/dev/null 2>&1; then asan_cc=clang; else asan_cc=cc; fi; fi
    # (the Wireshark plugin is compiled without sanitizers even here: dissector/CMakeLists.txt)
    CC=$asan_cc cmake -S . -B "$BA" -DCMAKE_BUILD_TYPE=Debug -DUB_SANITIZE=ON -DUB_DISSECTOR=ON
    cmake --build "$BA" -j"$JOBS"
    # shellcheck disable=SC2086
    (cd "$BA" && ctest --output-on-failure -j"$JOBS" ${UB_CTEST_ARGS:-})
fi

ub_section "3/4 libFuzzer, every harness ($BF/)"
if [ "$FUZZ_TIME" = 0 ]; then
    echo "UB_FUZZ_TIME=0: skipped"
else
    UB_FUZZ_DIR="$BF" scripts/fuzz.sh run "$FUZZ_TIME"
fi

if [ "${UB_SKIP_WSASAN:-0}" != 1 ]; then
    ub_section "4/4 Wireshark plugin with ASan + UBSan, tshark tests and mutations ($BW/)"
    # tshark is not instrumented: the ASan runtime is preloaded into it (tests/tshark_lib.sh,
    # UB_TSHARK_PRELOAD); gcc links libasan/libubsan into ub.so (dissector/CMakeLists.txt UB_WS_SANITIZE)
    wscc=${UB_WSASAN_CC:-gcc}
    CC=$wscc cmake -S . -B "$BW" -DCMAKE_BUILD_TYPE=Debug -DUB_DISSECTOR=ON -DUB_WS_SANITIZE=ON
    cmake --build "$BW" -j"$JOBS" --target ub
    case "$wscc" in
        *clang*) wsasan_rt=$("$wscc" -print-file-name="libclang_rt.asan-$(uname -m).so") ;;
        *) wsasan_rt=$("$wscc" -print-file-name=libasan.so) ;;
    esac
    for t in t_tshark_plugin t_tshark_analysis; do
        echo "-- $t against $BW/plugins (ASan runtime $wsasan_rt)"
        UB_TSHARK_PRELOAD="$wsasan_rt" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1 \
            UB_SOURCE_DIR="$PWD" UB_BINARY_DIR="$BW" UBDUMP="$B/tools/ubdump" UBGEN="$B/tools/ubgen" \
            sh "tests/$t.sh"
    done
fi

ub_section "all tests passed ($(( $(date +%s) - start )) s)"
