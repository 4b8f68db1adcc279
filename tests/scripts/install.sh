#!/usr/bin/env bash
# `cmake --install` lays posviz out as a desktop expects, and the installed binary runs from there
# with nothing beside it (font, presets, lessons and shaders are compiled in).
#   install.sh POSVIZ SCRATCH [HEADLESS]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need cmake
bin=${1:?usage: install.sh POSVIZ SCRATCH}
out=${2:?}
build=$(cd "$(dirname "$bin")/.." && pwd)
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$out/prefix" >"$out/install.log"
for f in bin/posviz share/applications/posviz.desktop share/icons/hicolor/scalable/apps/posviz.svg \
         share/icons/hicolor/256x256/apps/posviz.png share/doc/posviz/README.md; do
  [ -s "$out/prefix/$f" ] || fail "cmake --install did not write $f"
done
grep -q '^Exec=posviz$' "$out/prefix/share/applications/posviz.desktop" || fail "desktop entry does not start posviz"
grep -q '^Icon=posviz$' "$out/prefix/share/applications/posviz.desktop" || fail "desktop entry names no icon"
[ "$(head -c 4 "$out/prefix/share/icons/hicolor/256x256/apps/posviz.png" | tail -c 3)" = "PNG" ] || fail "icon is not a PNG"

# The installed binary, run from an empty folder: no files of the source tree are needed.
mkdir -p "$out/elsewhere"
cd "$out/elsewhere"
help=$("$out/prefix/bin/posviz" --help)
grep -q "posviz export VIEW" <<<"$help" || fail "installed posviz --help"
"$out/prefix/bin/posviz" export rope-freqs --preset llama-3.1-8b -o freqs.json
grep -q '"method": "llama3"' freqs.json || fail "installed posviz cannot read its embedded presets"
"$out/prefix/bin/posviz" examples sinusoidal-pos3-d8 >ex.txt
grep -q "agree" ex.txt || fail "installed posviz cannot read its embedded lessons"
echo "install: layout complete, installed binary runs from an empty folder"
