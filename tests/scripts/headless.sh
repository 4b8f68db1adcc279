#!/usr/bin/env bash
# The headless posviz (app/no_window.cpp + posviz_cli) links no GL, GLFW, epoxy or ImGui library
# (nor X11, nor libav at start), runs every CLI command (a video export too), and refuses the
# window with a clear message.
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
if grep -Eqi 'libX11|libxcb' <<<"$libs"; then
  fail "the headless binary reaches X11"
fi
# libav* (video export) is opened on the first video, not at start: with it came about 120
# libraries, X11 among them, loaded by every command.
if grep -Eq 'libav(codec|format|util)|libswscale' <<<"$libs"; then
  fail "the headless binary links libav at start: $(grep -Eo 'lib(av[a-z]+|swscale)[.]so[.0-9]*' <<<"$libs" | tr '\n' ' ')"
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
"$bin" export rope-cos --head-dim 8 --positions 8 --animate pos=0:3 --fps 4 -o "$out/turn.mp4" >/dev/null
[ "$(head -c 8 "$out/turn.mp4" | tail -c 4)" = "ftyp" ] || fail "turn.mp4 is not an MP4 file (libav opened on demand)"
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
echo "headless: ldd clean, export/video/examples/help work, the window is refused clearly"
