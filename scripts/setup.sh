#!/usr/bin/env bash
# First command of the README: install the dependencies (Debian 12; skipped when present), build
# ubscope in build/, install the Wireshark plugin if it was built, and decode a bundled capture.
#   scripts/setup.sh [CAPTURE]      (default: captures/cfg9_coherent.pcapng, else the first capture)
# Safe to re-run. Environment: JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

ub_section "1/4 dependencies"
ub_install_deps

ub_section "2/4 configure + build (build/)"
# The plugin and profile install under the prefix by default; this script installs them where this
# Wireshark reads them: as root its global folders (pkg-config wireshark), else the personal plugin
# folder (the profile: scripts/wireshark-profile.sh below).
ws_dirs=()
if ws_plugindir=$(pkg-config --variable=plugindir wireshark 2>/dev/null) && [ -n "$ws_plugindir" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        ws_dirs=(-DUB_WIRESHARK_PLUGIN_DIR="$ws_plugindir/epan"
                 -DUB_WIRESHARK_PROFILE_DIR="$(pkg-config --variable=prefix wireshark)/share/wireshark/profiles")
    else
        ws_dirs=(-DUB_WIRESHARK_PLUGIN_DIR="$HOME/.local/lib/wireshark/plugins/${ws_plugindir##*/}/epan")
    fi
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUB_DISSECTOR=ON "${ws_dirs[@]}"
cmake --build build -j"$JOBS"

ub_section "3/4 Wireshark plugin"
plugin=$(find build/plugins build/dissector -name 'ub.so' 2>/dev/null | head -1 || true)
if [ -n "$plugin" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        cmake --install build              # plugin and profile into Wireshark's global folders
    else
        cmake --install build --prefix "$HOME/.local"  # plugin into the personal plugin folder
    fi
    echo "installed the plugin ($plugin); check: tshark -G plugins | grep ub.so"
    # the configuration profile UnifiedBus where Wireshark reads it (docs/wireshark.md)
    if [ "$(id -u)" -eq 0 ]; then scripts/wireshark-profile.sh --global; else scripts/wireshark-profile.sh; fi
else
    echo "plugin not built (Wireshark development files missing or -DUB_DISSECTOR=OFF): skipped"
fi

ub_section "4/4 ubdump on a bundled capture"
cap=${1:-}
if [ -z "$cap" ]; then
    shopt -s nullglob
    caps=(captures/*.pcapng captures/*.pcap)
    shopt -u nullglob
    if [ "${#caps[@]}" -eq 0 ] && compgen -G 'captures/*.ub' >/dev/null; then
        cmake --build build --target captures  # regenerate them from the .ub sources
        shopt -s nullglob
        caps=(captures/*.pcapng captures/*.pcap)
        shopt -u nullglob
    fi
    cap=${caps[0]:-}
    if [ -f captures/cfg9_coherent.pcapng ]; then cap=captures/cfg9_coherent.pcapng; fi  # digest §13.2
fi
if [ -z "$cap" ]; then
    echo "no capture in captures/: nothing to decode"
    exit 0
fi
echo "\$ build/tools/ubdump -r $cap"
build/tools/ubdump -r "$cap"
