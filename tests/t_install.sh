#!/bin/sh
# `cmake --install` gives a usable ubscope (issue #10 item 6): installs the build into a scratch
# DESTDIR (never a system path), then checks the layout, the shared library's SONAME and exported
# symbols, that every installed header compiles on its own, builds examples/ubparse_example.c against
# the installed library via pkg-config (shared and static) and via find_package(ubparse), runs them on
# a bundled capture and asserts the values they print; man pages render without groff warnings.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -euo pipefail
: "${UB_SOURCE_DIR:?}" "${UB_BINARY_DIR:?}"
S=$UB_SOURCE_DIR
CC=${UB_CC:-cc}
# shellcheck source=check_lib.sh
. "$S/tests/check_lib.sh"
ub_check_init t_install
# the sanitizer build's library needs the sanitizer runtime in whatever links it
SAN=()
[ "${UB_SANITIZE:-OFF}" = ON ] && SAN=(-fsanitize=address,undefined)

# ---- install into $tmp/d/opt/ubscope (DESTDIR), then into the prefix $tmp/p: both write nothing
# outside their root (the plugin and profile folders are prefix-relative by default), and tshark
# loads the installed plugin
DESTDIR=$tmp/d cmake --install "$UB_BINARY_DIR" --prefix /opt/ubscope >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; bad "cmake --install failed"; exit 1; }
P=$tmp/d/opt/ubscope
VERSION=$(sed -n 's/^project(ubscope VERSION \([0-9.]*\).*/\1/p' "$S/CMakeLists.txt")
MAJOR=${VERSION%%.*}
[ -n "$VERSION" ] && ok || bad "no project version in CMakeLists.txt"

for f in bin/ubdump bin/ubgen bin/ubreplay bin/ubpeer \
    "lib/libubparse.so.$VERSION" "lib/libubparse.so.$MAJOR" lib/libubparse.so lib/libubparse.a \
    include/ubparse/ubparse.h include/ubparse/capfile.h include/ubparse/audit.h include/ubparse/state.h \
    include/ubparse/filter.h lib/pkgconfig/libubparse.pc lib/cmake/ubparse/ubparseConfig.cmake \
    lib/cmake/ubparse/ubparseConfigVersion.cmake lib/cmake/ubparse/ubparseTargets.cmake \
    share/man/man1/ubdump.1 share/man/man1/ubgen.1 share/man/man1/ubreplay.1 share/man/man1/ubpeer.1 \
    share/bash-completion/completions/ubdump share/bash-completion/completions/ubgen \
    share/bash-completion/completions/ubreplay share/bash-completion/completions/ubpeer \
    share/ubscope/lua/latency.lua share/doc/ubscope/LICENSE share/doc/ubscope/README.md \
    share/doc/ubscope/library.md share/doc/ubscope/logs.md include/ubparse/logs.h; do
    check "installed: $f" test -e "$P/$f"
done
# the Lua bindings are not installed, so neither is their header; private headers never are
check "ublua.h not installed" test ! -e "$P/include/ubparse/ublua.h"
check "no private headers installed" test -z "$(cd "$P/include/ubparse" && ls | grep -v -x -F -f <(cd "$S/libubparse/include/ubparse" && ls))"
# ---- nothing outside the chosen root: every path cmake --install reports lies under it
outside() { # LOG ROOT: the installed paths of LOG not under ROOT
    sed -n 's/^-- \(Installing\|Up-to-date\): //p' "$1" | grep -v "^$2/" || true
}
eq "DESTDIR install: files outside DESTDIR" "$(outside "$tmp/install.log" "$tmp/d")" ""
n_files=$(grep -c '^-- \(Installing\|Up-to-date\): ' "$tmp/install.log" || true)
[ "$n_files" -gt 40 ] && ok || bad "DESTDIR install listed only $n_files files"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$UB_BINARY_DIR/CMakeCache.txt"; }
LIBDIR=$(cache CMAKE_INSTALL_LIBDIR)
PLUGIN_BUILT=
[ -f "$UB_BINARY_DIR/plugins/4.0/epan/ub.so" ] && PLUGIN_BUILT=1
if [ -n "$PLUGIN_BUILT" ]; then
    check "plugin ub.so under DESTDIR + prefix" test -f "$P/$LIBDIR/wireshark/plugins/4.0/epan/ub.so"
    check "profile under DESTDIR + prefix" test -f "$P/share/wireshark/profiles/UnifiedBus/colorfilters"
fi
# --prefix: only when the plugin and profile folders are relative (an absolute one, as setup.sh
# configures as root, would be a system folder: never written by a test)
abs=
for v in UB_WIRESHARK_PLUGIN_DIR UB_WIRESHARK_PROFILE_DIR; do
    case $(cache "$v") in /*) abs="$abs $v=$(cache "$v")" ;; esac
done
if [ -n "$abs" ]; then
    bad "absolute install folders by default:$abs (cmake --install --prefix would write outside the prefix)"
else
    Q=$tmp/p
    cmake --install "$UB_BINARY_DIR" --prefix "$Q" >"$tmp/prefix.log" 2>&1 ||
        { cat "$tmp/prefix.log"; bad "cmake --install --prefix failed"; exit 1; }
    eq "--prefix install: files outside the prefix" "$(outside "$tmp/prefix.log" "$Q")" ""
    eq "--prefix and DESTDIR install the same files" \
        "$(cd "$Q" && find . ! -type d | sort | md5sum)" "$(cd "$P" && find . ! -type d | sort | md5sum)"
fi
# ---- the plugin loads from where it was installed (tshark unprivileged, tests/tshark_lib.sh)
if [ -n "$PLUGIN_BUILT" ]; then
    if command -v tshark >/dev/null 2>&1; then
        fail() { bad "$*"; exit 1; }
        WSVER=4.0
        UB_TS_PLUGIN_DIR=$P/$LIBDIR/wireshark/plugins
        mkdir -p "$tmp/home/.config/wireshark"
        # shellcheck source=tshark_lib.sh
        . "$S/tests/tshark_lib.sh"
        ub_require_plugin
        ok
        eq "installed plugin decodes the PSNs" \
            "$(ts -r "$S/captures/cfg7_rtp.pcapng" -Y ub.rtph -T fields -e ub.rtph.psn 2>/dev/null | tr '\n' ' ')" \
            "17 17 18 19 18 18 0 "
    else
        bad "tshark is missing: the installed plugin cannot be checked"
    fi
fi
check "installed tool runs" "$P/bin/ubdump" -r "$S/captures/cfg7_rtp.pcapng" -c 1 -q >/dev/null

# ---- the shared library: SONAME libubparse.so.<major>, symlinks, only the ub_* API exported
soname=$(readelf -d "$P/lib/libubparse.so.$VERSION" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libubparse.so.$MAJOR" ] && ok || bad "SONAME '$soname', want libubparse.so.$MAJOR"
[ "$(readlink "$P/lib/libubparse.so")" = "libubparse.so.$MAJOR" ] && ok || bad "libubparse.so symlink"
[ "$(readlink "$P/lib/libubparse.so.$MAJOR")" = "libubparse.so.$VERSION" ] && ok || bad "libubparse.so.$MAJOR symlink"
nm -D --defined-only "$P/lib/libubparse.so" | awk '$2 ~ /^[TDBR]$/ { sub(/@.*/, "", $3); print $3 }' >"$tmp/syms"
n_api=$(grep -c '^ub_' "$tmp/syms" || true)
n_other=$(grep -vc '^ub_' "$tmp/syms" || true)
[ "$n_api" -gt 100 ] && ok || bad "exported ub_* symbols: $n_api"
[ "$n_other" = 0 ] && ok || bad "exported non-API symbols: $(grep -v '^ub_' "$tmp/syms" | head -5 | tr '\n' ' ')"
check "symbols carry the version UBPARSE_0" grep -q 'ub_decode@@UBPARSE_0' <(nm -D --defined-only "$P/lib/libubparse.so")
for s in ub_cap_open ub_decode ub_view_get ub_filter_compile ub_state_new ub_audit_new; do
    grep -qx "$s" "$tmp/syms" && ok || bad "symbol $s not exported"
done

# ---- every installed header compiles on its own, strict C11 and C++-safe guards
for h in "$P"/include/ubparse/*.h; do
    printf '#include <ubparse/%s>\n#include <ubparse/%s>\nint main(void) { return 0; }\n' \
        "${h##*/}" "${h##*/}" >"$tmp/h.c"
    check "header ${h##*/} compiles alone (-std=c11 -pedantic)" \
        "$CC" -std=c11 -pedantic -Wall -Wextra -Werror -I"$P/include" -c "$tmp/h.c" -o "$tmp/h.o"
done

# ---- the example against the installed library
CAP=$S/captures/cfg7_rtp.pcapng
# frame<TAB>ub.rtph.psn for every record with an RTPH (the capture's description: captures/cfg7_rtp.ub)
cat >"$tmp/want" <<'EOF'
1	17
2	17
3	18
4	19
5	18
6	18
7	0
records 10, ub 10, errors 0
EOF
# ... which is what ubdump says too
"$UB_BINARY_DIR/tools/ubdump" -r "$CAP" -T fields -e frame.number -e ub.rtph.psn |
    awk -F'\t' '$2 != ""' >"$tmp/ubdump.psn"
check "ubdump agrees with the expected PSNs" cmp -s "$tmp/ubdump.psn" <(head -n 7 "$tmp/want")
run_example() { # name binary
    if LD_LIBRARY_PATH="$P/lib" "$2" "$CAP" >"$tmp/$1.out" 2>"$tmp/$1.err" && cmp -s "$tmp/$1.out" "$tmp/want"; then
        ok
    else
        bad "$1 printed:"; cat "$tmp/$1.out" "$tmp/$1.err"
    fi
}
# here-strings, not pipes: with pipefail an early `grep -q` exit could fail the pipeline
needs_lib() { grep -q "NEEDED.*\[libubparse.so.$MAJOR\]" <<<"$(readelf -d "$1")"; }
no_lib() { ! grep -q libubparse <<<"$(readelf -d "$1")"; }

# pkg-config, shared
export PKG_CONFIG_PATH=$P/lib/pkgconfig
[ "$(pkg-config --modversion libubparse)" = "$VERSION" ] && ok || bad "pkg-config --modversion"
check "pkg-config --validate libubparse" pkg-config --validate libubparse
# shellcheck disable=SC2046
if "$CC" -std=c11 -Wall -Wextra -Werror "${SAN[@]}" "$S/examples/ubparse_example.c" \
    $(pkg-config --cflags --libs libubparse) -o "$tmp/ex_pc" 2>"$tmp/cc.err"; then
    ok
    check "pkg-config build links libubparse.so.$MAJOR" needs_lib "$tmp/ex_pc"
    run_example pkg-config "$tmp/ex_pc"
else
    bad "pkg-config build:"; cat "$tmp/cc.err"
fi
# pkg-config --static: the archive, with what Libs.private and Requires.private bring (-pthread -lm, PCRE2, zlib)
# shellcheck disable=SC2046
if "$CC" -std=c11 -Wall -Wextra -Werror "${SAN[@]}" "$S/examples/ubparse_example.c" \
    $(pkg-config --cflags libubparse) "$P/lib/libubparse.a" $(pkg-config --static --libs libubparse | sed 's/-lubparse / /') \
    -o "$tmp/ex_static" 2>"$tmp/cc.err"; then
    ok
    check "static build does not need libubparse.so" no_lib "$tmp/ex_static"
    run_example static "$tmp/ex_static"
else
    bad "static build:"; cat "$tmp/cc.err"
fi
# find_package(ubparse) -> ubparse::ubparse (examples/CMakeLists.txt)
if cmake -S "$S/examples" -B "$tmp/exb" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_C_FLAGS="${SAN[*]}" -DCMAKE_EXE_LINKER_FLAGS="${SAN[*]}" >"$tmp/cm.log" 2>&1 &&
    cmake --build "$tmp/exb" >>"$tmp/cm.log" 2>&1; then
    ok
    check "find_package build links libubparse.so.$MAJOR" needs_lib "$tmp/exb/ubparse_example"
    run_example find_package "$tmp/exb/ubparse_example"
else
    bad "find_package(ubparse) build:"; tail -30 "$tmp/cm.log"
fi
if cmake -S "$S/examples" -B "$tmp/exs" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC" -DUBPARSE_EXAMPLE_STATIC=ON \
    -DCMAKE_C_FLAGS="${SAN[*]}" -DCMAKE_EXE_LINKER_FLAGS="${SAN[*]}" >"$tmp/cms.log" 2>&1 &&
    cmake --build "$tmp/exs" >>"$tmp/cms.log" 2>&1; then
    ok
    check "ubparse::ubparse_static does not need libubparse.so" no_lib "$tmp/exs/ubparse_example"
    run_example find_package_static "$tmp/exs/ubparse_example"
else
    bad "find_package(ubparse) static build:"; tail -30 "$tmp/cms.log"
fi
# the version file refuses an incompatible major version
mkdir -p "$tmp/vcheck"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(v LANGUAGES C)\nfind_package(ubparse %s REQUIRED)\n' \
    "$((MAJOR + 1)).0" >"$tmp/vcheck/CMakeLists.txt"
if cmake -S "$tmp/vcheck" -B "$tmp/vcheck/b" -DCMAKE_PREFIX_PATH="$P" >/dev/null 2>&1; then
    bad "find_package(ubparse $((MAJOR + 1)).0) accepted version $VERSION"
else ok; fi

no_markdown() { ! grep -nE '`|[*][*]|@HELP@' "$1"; }
# ---- man pages: roff that groff renders without a warning, with the sections a man page has
for m in ubdump ubgen ubreplay ubpeer; do
    f=$P/share/man/man1/$m.1
    check "$m.1: .TH line" grep -q "^\.TH \"\?${m^^}\"\? 1 " "$f"
    for sec in NAME SYNOPSIS DESCRIPTION OPTIONS; do
        check "$m.1: section $sec" grep -q "^\.SH \"\?$sec\"\?$" "$f"
    done
    if command -v groff >/dev/null 2>&1; then
        groff -man -Tutf8 -ww -z "$f" 2>"$tmp/groff.err" || true
        [ ! -s "$tmp/groff.err" ] && ok || { bad "$m.1: groff warnings:"; head -5 "$tmp/groff.err"; }
        LC_ALL=C.UTF-8 MANWIDTH=100 man -l "$f" 2>/dev/null | col -b >"$tmp/$m.txt" || true
        check "$m.1 renders its NAME line" grep -q "^ *$m - " "$tmp/$m.txt"
        # no Markdown left over (a code span or emphasis the converter did not take)
        check "$m.1: no stray Markdown" no_markdown "$tmp/$m.txt"
    else
        echo "skip: groff/man not installed, man pages not rendered"
    fi
done
check "ubdump.1 documents --audit" grep -q -- 'audit' "$tmp/ubdump.txt"

ub_check_done
