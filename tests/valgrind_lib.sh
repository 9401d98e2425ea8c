# Shared by the tests that run ubdump under valgrind (sourced; POSIX sh): t_instr.sh, t_memcheck.sh.
# vg_require WHY [optimised]: exit 77 (ctest's skip) without valgrind or on a sanitised build (the
# sanitizer runtimes and valgrind do not mix); with "optimised" also on a build that is not Release or
# RelWithDebInfo. Sets $vg_bt (the build type).
vg_require() {
    if ! command -v valgrind >/dev/null 2>&1; then
        echo "SKIP: valgrind is not installed"
        exit 77
    fi
    vg_bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$UB_BINARY_DIR/CMakeCache.txt")
    vg_san=$(sed -n 's/^UB_SANITIZE:[A-Z]*=//p' "$UB_BINARY_DIR/CMakeCache.txt")
    case "${2:-}:$vg_bt:${vg_san:-OFF}" in
        optimised:Release:OFF | optimised:RelWithDebInfo:OFF | :*:OFF) ;;
        *)
            echo "SKIP: build type '$vg_bt', UB_SANITIZE=${vg_san:-OFF}: $1"
            exit 77
            ;;
    esac
}
