#!/usr/bin/env bash
# The desktop window as a user opens it (its settings read, unlike --screenshot's fixed ones):
# opened with POSVIZ_CONFIG_DIR=CONFIG_DIR, F12 into SHOT.png, Ctrl+Q. Run under xvfb-run.
#   tests/web/window_shot.sh POSVIZ CONFIG_DIR SHOT.png
set -u
bin=$1 dir=$2 shot=$3
rm -f "$shot"
POSVIZ_CONFIG_DIR=$dir "$bin" --size 1280x800 --screenshot-path "$shot" >"$shot.log" 2>&1 &
pid=$!
wid=$(timeout 30 xdotool search --sync --pid "$pid" --name '^posviz( - .*)?$' 2>/dev/null | head -n1)
if [ -z "$wid" ]; then
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  echo "no window within 30 s: $(head -c 300 "$shot.log")" >&2; exit 1
fi
# Keys sent before the first frames can be lost: F12 again every 2 s until the picture is there.
for _ in $(seq 1 30); do
  xdotool key --window "$wid" F12
  for _ in $(seq 1 20); do [ -s "$shot" ] && break 2; sleep 0.1; done
done
for _ in $(seq 1 20); do
  kill -0 "$pid" 2>/dev/null || break
  xdotool key --window "$wid" ctrl+q 2>/dev/null; sleep 0.5
done
kill -9 "$pid" 2>/dev/null
wait "$pid"; rc=$?
cat "$shot.log" >&2
[ -s "$shot" ] || { echo "F12 wrote no picture in 60 s" >&2; exit 1; }
exit "$rc"
