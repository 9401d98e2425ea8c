#!/bin/sh
# Install the Wireshark configuration profile "UnifiedBus" (dissector/profile/UnifiedBus, or DIR):
#   scripts/wireshark-profile.sh [DIR]            into the personal profiles of the current user (no root)
#   scripts/wireshark-profile.sh --global [DIR]   into Wireshark's global profiles (root; the data folder
#                                                 of `tshark -G folders`, e.g. /usr/share/wireshark/profiles)
# Then: tshark -C UnifiedBus ...  /  wireshark -C UnifiedBus  /  Edit > Configuration Profiles.
# Wireshark's personal configuration folder is ~/.wireshark when that exists, else
# ${XDG_CONFIG_HOME:-~/.config}/wireshark. An existing personal UnifiedBus profile is kept as
# UnifiedBus.bak (replacing an older .bak); a global one is replaced.
set -eu
global=0
if [ "${1:-}" = --global ]; then
    global=1
    shift
fi
src=${1:-$(dirname "$0")/../dissector/profile/UnifiedBus}
if [ ! -f "$src/colorfilters" ] || [ ! -f "$src/preferences" ]; then
    echo "wireshark-profile.sh: no profile in $src" >&2
    exit 1
fi
if [ $global = 1 ]; then
    data=$(tshark -G folders 2> /dev/null | sed -n 's/^Global configuration:[[:space:]]*//p')
    if [ -z "$data" ] || [ ! -d "$data" ]; then
        echo "wireshark-profile.sh: no Wireshark data folder (tshark -G folders)" >&2
        exit 1
    fi
    dst=$data/profiles/UnifiedBus
    mkdir -p "$data/profiles"
    rm -rf "$dst"
else
    if [ -d "$HOME/.wireshark" ]; then conf=$HOME/.wireshark; else conf=${XDG_CONFIG_HOME:-$HOME/.config}/wireshark; fi
    dst=$conf/profiles/UnifiedBus
    mkdir -p "$conf/profiles"
    if [ -e "$dst" ]; then
        rm -rf "$dst.bak"
        mv "$dst" "$dst.bak"
    fi
fi
mkdir "$dst"
cp "$src"/* "$dst"/
echo "profile UnifiedBus installed in $dst (use: tshark -C UnifiedBus, or Wireshark: Edit > Configuration Profiles)"
