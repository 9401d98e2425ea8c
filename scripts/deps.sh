# shellcheck shell=bash
# Sourced by scripts/setup.sh, scripts/test.sh, bench/run.sh and .ci/run.
# THE one list of Debian 12 (bookworm) packages ubscope needs to build, test and fuzz.
UB_APT_PACKAGES=(
    build-essential cmake pkg-config          # C11 toolchain, CMake >= 3.16
    tshark libwireshark-dev libwiretap-dev wireshark-dev libglib2.0-dev   # Wireshark 4.0 plugin + tshark tests
    libpcap-dev                               # ubdump -f (capture filters), bench/rawloop.c
    libpcre2-dev                              # display-filter matches: PCRE2, as Wireshark
    zlib1g-dev                                # gzip-compressed captures, as Wireshark reads them
    liblua5.4-dev                             # Lua bindings
    clang libclang-rt-14-dev                  # ASan/UBSan build and libFuzzer (clang-14 runtime)
    python3                                   # tests: JSON output validation
    valgrind                                  # tests/t_instr.sh (callgrind), t_memcheck.sh; bench/ instruction counts
    tcpreplay                                 # bench/replay.sh: the tcpreplay comparison
    python3-jsonschema                        # tests: SARIF reports against the SARIF 2.1.0 schema
    iproute2                                  # tests/t_peer_veth.sh: veth pairs in private namespaces
    nodejs npm                                # tests/t_logs.sh: DuckDB (npm @duckdb/node-api) reads the --log-dir tables
    groff-base man-db                         # tests/t_install.sh: the man pages render without warnings
)

ub_section() { printf '\n==== %s ====\n' "$*"; }

# Packages of UB_APT_PACKAGES that are not installed (one per line).
ub_missing_packages() {
    local p
    for p in "${UB_APT_PACKAGES[@]}"; do
        # a Node.js from elsewhere (e.g. NodeSource's nodejs, which bundles npm) serves as well
        case $p in nodejs | npm) command -v "${p/nodejs/node}" >/dev/null 2>&1 && continue ;; esac
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
    done
}

# Install what is missing, non-interactively; nothing to do (no apt-get update) when all are there.
ub_install_deps() {
    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        echo "not a Debian/Ubuntu system: install the equivalents of: ${UB_APT_PACKAGES[*]}"
        return 0
    fi
    local missing
    mapfile -t missing < <(ub_missing_packages)
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "all ${#UB_APT_PACKAGES[@]} packages already installed"
        return 0
    fi
    echo "installing: ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
            echo "error: need root (or sudo) to install: ${missing[*]}" >&2
            return 1
        fi
    fi
    # tshark asks whether non-root users may capture; answer "no" so the install never prompts
    echo 'wireshark-common wireshark-common/install-setuid boolean false' | "${sudo[@]}" debconf-set-selections
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Does `clang -fsanitize=fuzzer` link here? (Debian 12: needs libclang-rt-14-dev)
ub_have_libfuzzer() {
    command -v clang >/dev/null 2>&1 || return 1
    local d
    d=$(mktemp -d) || return 1
    printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$d/t.c"
    if clang -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" >/dev/null 2>&1; then rm -rf "$d"; return 0; fi
    rm -rf "$d"
    return 1
}
