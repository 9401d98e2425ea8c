#!/bin/sh
# Copy the Wireshark configuration profile "UnifiedBus" (dissector/profile/UnifiedBus, or DIR) into the
# personal profiles of the current user, for Wireshark/tshark without a system-wide install (no root):
#   scripts/wireshark-profile.sh [DIR]      then: tshark -C UnifiedBus ...  /  wireshark -C UnifiedBus
# Wireshark's personal configuration folder is ~/.wireshark when that exists, else
# ${XDG_CONFIG_HOME:-~/.config}/wireshark (tshark -G folders). An existing UnifiedBus profile is kept
# as UnifiedBus.bak (replacing an older .bak).
set -eu
src=${1:-$(dirname "$0")/../dissector/profile/UnifiedBus}
if [ ! -f "$src/colorfilters" ] || [ ! -f "$src/preferences" ]; then echo "wireshark-profile.sh: no profile in $src" >&2; exit 1; fi
if [ -d "$HOME/.wireshark" ]; then conf=$HOME/.wireshark; else conf=${XDG_CONFIG_HOME:-$HOME/.config}/wireshark; fi
dst=$conf/profiles/UnifiedBus
mkdir -p "$conf/profiles"
if [ -e "$dst" ]; then
    rm -rf "$dst.bak"
    mv "$dst" "$dst.bak"
fi
mkdir "$dst"
cp "$src"/* "$dst"/
echo "profile UnifiedBus installed in $dst (use: tshark -C UnifiedBus, or Wireshark: Edit > Configuration Profiles)"
