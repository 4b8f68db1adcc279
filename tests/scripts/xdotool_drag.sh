#!/usr/bin/env bash
# Drives the real posviz window with xdotool: start on the sinusoidal view, take a screenshot
# with the app's own F12, drag the "base" slider with the mouse, take another, and check that the
# heatmap changed (and that two screenshots without input are identical, so the change is ours).
#   bash xdotool_drag.sh <posviz-binary> <scratch-dir>     (inside xvfb-run, or it starts one)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need xvfb-run xdotool python3
bin=${1:?usage: xdotool_drag.sh POSVIZ SCRATCH}
scratch=${2:-$(mktemp -d)}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" bash "$0" "$bin" "$scratch"
fi
mkdir -p "$scratch"
rm -f "$scratch"/*.png
shot="$scratch/shot.png"
export POSVIZ_CONFIG_DIR="$scratch/config"
rm -rf "$POSVIZ_CONFIG_DIR"   # start from the defaults (base 10000), not a previous run's settings
# The slider's place below is that of the compact layout (View > Control help on screen off).
mkdir -p "$POSVIZ_CONFIG_DIR" && echo '{"inline_help": false}' >"$POSVIZ_CONFIG_DIR/settings.json"

"$bin" --panel sinusoidal --size 1280x800 --screenshot-path "$shot" >"$scratch/posviz.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null' EXIT

# By pid: other tests may have their own posviz windows open on the same display.
wid=$(timeout 30 xdotool search --sync --pid "$pid" --name '^posviz( - .*)?$' | head -n1)
if [ -z "$wid" ]; then
  echo "FAIL: no posviz window appeared within 30 s"; cat "$scratch/posviz.log"; exit 1
fi
echo "ok: window $wid"
eval "$(xdotool getwindowgeometry --shell "$wid")"   # X Y WIDTH HEIGHT
echo "ok: geometry ${WIDTH}x${HEIGHT} at $X,$Y"
xdotool windowactivate --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid" 2>/dev/null || true
# Park the pointer over the status bar (no tooltips in the pictures).
xdotool mousemove --sync $((X + 600)) $((Y + HEIGHT - 8))
sleep 2

take() {   # take NAME: press F12, wait for the app to write the file, keep it as NAME.png
  rm -f "$shot"
  xdotool key --window "$wid" F12
  for _ in $(seq 1 100); do [ -s "$shot" ] && break; sleep 0.1; done
  if [ ! -s "$shot" ]; then echo "FAIL: F12 wrote no screenshot to $shot"; cat "$scratch/posviz.log"; exit 1; fi
  mv "$shot" "$scratch/$1.png"
  echo "ok: screenshot $scratch/$1.png"
}

take before
sleep 1
take still
# Drag the base slider (left column, second row of the Encoding controls) from left to right.
sx=$((X + 40)); ex=$((X + 190)); sy=$((Y + 119))
xdotool mousemove --sync "$sx" "$sy" mousedown 1
for x in $(seq "$sx" 10 "$ex"); do xdotool mousemove --sync "$x" "$sy"; sleep 0.02; done
xdotool mouseup 1
xdotool mousemove --sync $((X + 600)) $((Y + HEIGHT - 8))
sleep 2
take after

# Compare the heatmap region (x 340..900, y 100..760 of 1280x800) with a stdlib-only PNG decoder.
python3 - "$scratch/before.png" "$scratch/still.png" "$scratch/after.png" <<'PY'
import struct, sys, zlib

def load(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return w, h, bpp, rows

def changed(p, q, x0=340, x1=900, y0=100, y1=760):
    (w, h, bpp, a), (_, _, _, b) = p, q
    n = diff = 0
    for y in range(y0, min(y1, h)):
        ra, rb = a[y], b[y]
        for x in range(x0, min(x1, w)):
            n += 1
            if ra[x * bpp:x * bpp + 3] != rb[x * bpp:x * bpp + 3]: diff += 1
    return diff / n

before, still, after = (load(p) for p in sys.argv[1:4])
print("ok: screenshots are %dx%d" % (before[0], before[1]))
idle = changed(before, still)
moved = changed(before, after)
print("heatmap pixels changed without input: %.4f" % idle)
print("heatmap pixels changed by the drag:   %.4f" % moved)
if idle > 0.001:
    print("FAIL: the view changes on its own, the comparison would prove nothing"); sys.exit(1)
if moved < 0.05:
    print("FAIL: dragging the base slider did not change the heatmap"); sys.exit(1)
print("ok: dragging the slider changed the view")
PY
rc=$?

# Ctrl+Q quits, and the dragged value is saved for the next run.
xdotool key --window "$wid" ctrl+q
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  echo "FAIL: Ctrl+Q did not quit"; rc=1
elif ! python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
base = s["panels"]["sinusoidal"]["base"]
print("ok: settings saved: panel %s, sinusoidal base %g" % (s["panel"], base))
sys.exit(0 if s["panel"] == "sinusoidal" and base != 10000 else 1)
' "$POSVIZ_CONFIG_DIR/settings.json"; then
  echo "FAIL: settings.json does not hold the dragged base"; rc=1
fi
[ -f "$POSVIZ_CONFIG_DIR/imgui.ini" ] && echo "ok: imgui.ini saved" || { echo "FAIL: no imgui.ini"; rc=1; }
[ $rc -eq 0 ] && echo "PASS: xdotool drag" || echo "FAIL: xdotool drag"
exit $rc
