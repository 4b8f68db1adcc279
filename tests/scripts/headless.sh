#!/usr/bin/env bash
# The headless posviz (app/no_window.cpp + posviz_cli) links no GL, GLFW, epoxy or ImGui library
# (nor X11 of its own), runs every CLI command, and refuses the window with a clear message.
#   headless.sh POSVIZ SCRATCH HEADLESS
set -euo pipefail
bin=${3:?usage: headless.sh POSVIZ SCRATCH HEADLESS}
out=${2:?}
rm -rf "$out"; mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

libs=$(ldd "$bin")
if grep -E 'libGL[.X]|libGLdispatch|libEGL|libOpenGL|libglfw|libepoxy|imgui' <<<"$libs"; then   # (libglib is no GL)
  fail "the headless binary links a GL/window library"
fi
# Debian's libavutil (video export) brings libX11 and libxcb in through its hardware-decoding
# libraries, libva-x11 and libvdpau, which never open a display; X11 by any other road fails.
if grep -Eqi 'libX11|libxcb' <<<"$libs" && ! grep -Eqi 'libva-x11|libvdpau' <<<"$libs"; then
  fail "the headless binary reaches X11 other than through libavutil's libva-x11 / libvdpau"
fi

"$bin" export sinusoidal --d-model 8 --positions 4 -o "$out/pe.npy"
[ "$(head -c 6 "$out/pe.npy" | tail -c 5)" = "NUMPY" ] || fail "pe.npy is not a .npy file"
[ -s "$out/pe.npy" ] || fail "no pe.npy"
"$bin" export rope-freqs --preset llama-3.1-8b -o "$out/freqs.json"
grep -q '"method": "llama3"' "$out/freqs.json" || fail "rope-freqs did not read the preset"
"$bin" export alibi-bias --heads 8 --positions 4 --causal -o "$out/bias.png"
[ -s "$out/bias.png" ] || fail "no bias.png"
# Pictures are drawn without a display: the readable default (text from the embedded font) and --plain.
png_wh() { od -An -tu4 --endian=big -j16 -N8 "$1" | tr -s ' ' | sed 's/^ //'; }
"$bin" export sinusoidal --d-model 8 --positions 4 -o "$out/pe.png"
read -r w h <<<"$(png_wh "$out/pe.png")"
[ "$w" -ge 512 ] && [ "$h" -ge 256 ] || fail "the default pe.png is $w x $h, expected a readable picture of at least 512 x 256"
"$bin" export sinusoidal --d-model 8 --positions 4 --plain -o "$out/plain.png"
[ "$(png_wh "$out/plain.png")" = "8 4" ] || fail "--plain pe.png is $(png_wh "$out/plain.png"), expected 8 4"
"$bin" export sinusoidal --d-model 8 --positions 4 -o "$out/pe.svg"
grep -q ">dimension</text>" "$out/pe.svg" || fail "pe.svg has no axis title"
"$bin" examples sinusoidal-pos3-d8 >"$out/examples.txt"
grep -q "sinusoidal-pos3-d8" "$out/examples.txt" || fail "examples printed nothing useful"
help=$("$bin" --help)   # whole, first: grep -q would close the pipe early under pipefail
grep -q -- "--panel" <<<"$help" || fail "--help does not list the window's flags"

set +e
msg=$("$bin" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] || fail "a window request exited $rc, expected 2"
grep -q "no window" <<<"$msg" || fail "no clear message: $msg"
set +e
msg=$("$bin" --panle rope 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- "--panel" <<<"$msg" || fail "a misspelt flag is not named: $msg"
echo "headless: ldd clean, export/examples/help work, the window is refused clearly"
