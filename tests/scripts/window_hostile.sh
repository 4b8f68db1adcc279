#!/usr/bin/env bash
# The window always opens, whatever its settings folder holds, and nothing the user had is lost:
#   - the settings folder cannot be made (its name is a file; a read-only config home, as user
#     nobody): the window opens with a notice, and quits with exit 0;
#   - settings.json is a FIFO, is nested 100,000 levels deep, or is not JSON: the window opens with
#     defaults and a notice, the file is kept as settings.json.bad-<time>, and a fresh one is saved;
#   - settings.json is a link into another folder: the file it points to is updated, the link stays;
#   - imgui.ini holds 200,000 windows (over the layout cap): refused at once, kept aside, quit promptly;
#   - a link planted at the F12 screenshot's name is replaced, its target untouched.
# Each case starts the real window, takes an F12 screenshot, quits with Ctrl+Q within 30 s.
#   bash window_hostile.sh <posviz-binary> <scratch-dir>     (inside xvfb-run, or it starts one)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need xvfb-run xdotool python3 setpriv
bin=${1:?usage: window_hostile.sh POSVIZ SCRATCH}
scratch=${2:?usage: window_hostile.sh POSVIZ SCRATCH}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" bash "$0" "$bin" "$scratch"
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
scratch=$(posviz_scratch "$scratch") || exit 1
chmod 755 "$scratch"

# session NAME CONFIG_DIR [RUNNER...]: open the window with POSVIZ_CONFIG_DIR=CONFIG_DIR, F12 into
# $scratch/NAME.png, Ctrl+Q; sets $rc (exit code) and $took (seconds from Ctrl+Q to exit). A window
# that answers no key at all in 60 s is started once more (said on an INFO line) before it fails.
session() {
  session_once "$@"
  if [ "$rc" -eq 98 ]; then
    echo "INFO: $1: no answer to F12 in 60 s ($unanswered); starting it once more"
    session_once "$@"
  fi
  if [ "$rc" -eq 98 ]; then fail "$1: F12 wrote no screenshot in 60 s, twice ($unanswered)"
  elif [ "$rc" -eq 0 ]; then ok "$1: window opened, exit 0 (quit in $took ms)"
  else fail "$1: exit $rc: $(head -c 300 "$scratch/$1.log")"; fi
}

session_once() {
  local name=$1 dir=$2; shift 2
  local shot="${shot_dir:-$scratch}/$name.png"
  rm -f "$shot"
  POSVIZ_CONFIG_DIR=$dir "$@" "${run_bin:-$bin}" --panel sinusoidal --size 1100x700 --screenshot-path "$shot" \
    >"$scratch/$name.log" 2>&1 &
  local pid=$!
  local wid
  wid=$(timeout 30 xdotool search --sync --pid "$pid" --name '^posviz( - .*)?$' 2>/dev/null | head -n1)
  if [ -z "$wid" ]; then
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    rc=99; took=0; echo "FAIL detail: $name: no window within 30 s: $(head -c 300 "$scratch/$name.log")"; return
  fi
  xdotool windowactivate --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid" 2>/dev/null || true
  # Keys sent before the first frames are drawn can be lost on a loaded machine: F12 again every
  # 2 s until the picture appears (60 s at most), Ctrl+Q again every 3 s until the window is gone.
  local tries
  for tries in $(seq 1 30); do
    xdotool key --window "$wid" F12
    for _ in $(seq 1 20); do [ -s "$shot" ] && break 2; sleep 0.1; done
  done
  if [ ! -s "$shot" ]; then
    # Say whose fault it is: a window that stopped answering, or keys that never reached it.
    local talk="xdotool reaches the display"
    xdotool getwindowname "$wid" >/dev/null 2>&1 || talk="xdotool cannot reach the display"
    unanswered="$talk; posviz state: $(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null || echo gone)"
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    rc=98; took=0; return
  fi
  local start; start=$(date +%s%N)
  local waited=0
  while kill -0 "$pid" 2>/dev/null && [ $waited -lt 600 ]; do
    [ $((waited % 30)) -eq 0 ] && xdotool key --window "$wid" ctrl+q 2>/dev/null
    sleep 0.1; waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; fi
  wait "$pid"; rc=$?
  took=$(( ($(date +%s%N) - start) / 1000000 ))
}

# The folder's name is taken by a file.
touch "$scratch/notadir"
session folder-is-file "$scratch/notadir"
[ -f "$scratch/notadir" ] && [ ! -s "$scratch/notadir" ] && ok "folder-is-file: the file is untouched" || fail "folder-is-file: the file changed"

# A read-only config home, as a user who may not write it.
if [ "$(id -u)" -eq 0 ]; then
  # As nobody, who may not reach the checkout (a clone in root's mode-700 home): a folder of its
  # own under /tmp holds a copy of the binary, the read-only home, the display's cookie and the
  # screenshot.
  nb=$(mktemp -d /tmp/posviz-hostile-XXXXXX) && chmod 755 "$nb"
  cp "$bin" "$nb/posviz" && chmod 755 "$nb/posviz"
  ro_home="$nb/ro-home"
  mkdir -p "$ro_home" "$nb/shots" && chmod 555 "$ro_home" && chmod 777 "$nb/shots"
  if [ -n "${XAUTHORITY:-}" ]; then cp "$XAUTHORITY" "$nb/xauth" && chmod 644 "$nb/xauth"; fi
  run_bin="$nb/posviz" shot_dir="$nb/shots" session read-only "$ro_home/posviz" setpriv --reuid=65534 --regid=65534 --clear-groups \
    env XAUTHORITY="$nb/xauth" DISPLAY="$DISPLAY"
else
  ro_home="$scratch/ro-home"
  mkdir -p "$ro_home" && chmod 555 "$ro_home"
  session read-only "$ro_home/posviz"
fi
[ -z "$(ls -A "$ro_home")" ] && ok "read-only: nothing was written there" || fail "read-only: $(ls -A "$ro_home")"
[ -n "${nb:-}" ] && rm -rf "$nb"

# Unreadable settings files: kept aside, defaults used, a fresh file saved at exit.
bad_settings() {  # bad_settings NAME MAKER: MAKER creates $1/settings.json
  local name=$1 dir="$scratch/$1"; shift
  mkdir -p "$dir"
  "$@" "$dir/settings.json"
  session "$name" "$dir"
  local aside; aside=$(find "$dir" -maxdepth 1 -name 'settings.json.bad-*' | head -1)
  [ -n "$aside" ] && ok "$name: kept as $(basename "$aside")" || fail "$name: no settings.json.bad-* copy: $(ls -A "$dir")"
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["panel"] == "sinusoidal"' "$dir/settings.json" 2>/dev/null; then
    ok "$name: a fresh settings.json was saved"
  else
    fail "$name: settings.json after exit is not a fresh settings file"
  fi
}
make_fifo() { mkfifo "$1"; }
make_deep() { python3 -c "import sys; open(sys.argv[1],'w').write('{\"panels\": {\"a\": ' + '[' * 100000 + ']' * 100000 + '}}')" "$1"; }
make_garbage() { printf '{ "window_width": 1000, oops' >"$1"; }
bad_settings fifo make_fifo
bad_settings deep make_deep
bad_settings garbage make_garbage
[ -p "$(find "$scratch/fifo" -name 'settings.json.bad-*' | head -1)" ] && ok "fifo: the FIFO itself was kept aside" || fail "fifo: the copy is not the FIFO"
deep_copy=$(find "$scratch/deep" -name 'settings.json.bad-*' | head -1)
[ "$(wc -c <"$deep_copy")" -eq 200019 ] && ok "deep: the copy holds all 200,019 bytes" || fail "deep: the copy has $(wc -c <"$deep_copy") bytes"

# A settings.json linked into another folder is updated there; the link stays a link.
mkdir -p "$scratch/linked" "$scratch/dotfiles"
echo '{"panel": "alibi", "font_scale": 1.5}' >"$scratch/dotfiles/settings.json"
ln -s ../dotfiles/settings.json "$scratch/linked/settings.json"
session linked "$scratch/linked"
[ -L "$scratch/linked/settings.json" ] && ok "linked: settings.json is still a link" || fail "linked: the link was replaced"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["font_scale"] == 1.5 and "window_width" in d' \
  "$scratch/dotfiles/settings.json" && ok "linked: the file it points to was saved, keeping font_scale 1.5" || fail "linked: the target was not updated"

# An imgui.ini of 200,000 windows: refused by size, kept aside, the quit is prompt.
mkdir -p "$scratch/bigini"
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(200000): f.write('[Window][w%d]\nPos=%d,10\nSize=100,100\nCollapsed=0\n\n' % (i, i % 900))
" "$scratch/bigini/imgui.ini"
session bigini "$scratch/bigini"
[ -n "$(find "$scratch/bigini" -name 'imgui.ini.bad-*')" ] && ok "bigini: kept aside" || fail "bigini: no imgui.ini.bad-* copy"
[ "$(wc -c <"$scratch/bigini/imgui.ini")" -lt 65536 ] && ok "bigini: the new imgui.ini is small" || fail "bigini: imgui.ini is still large"
[ "${took:-99999}" -lt 10000 ] && ok "bigini: quit in $took ms" || fail "bigini: quit took $took ms"

# A link planted at the screenshot's own name: replaced by the picture, its target untouched.
mkdir -p "$scratch/planted"
echo precious >"$scratch/victim.txt"
ln -s "$scratch/victim.txt" "$scratch/planted.png"
session planted "$scratch/planted"
[ "$(cat "$scratch/victim.txt")" = precious ] && ok "planted: the link's target is untouched" || fail "planted: the screenshot was written through the link"
[ -f "$scratch/planted.png" ] && [ ! -L "$scratch/planted.png" ] && ok "planted: the screenshot replaced the link" || fail "planted: planted.png is not a plain file"

leftover=$(find "$scratch" -name '.posviz-*.tmp' | head -1)
[ -z "$leftover" ] && ok "no temporary file left" || fail "temporary file left: $leftover"

posviz_summary window_hostile
