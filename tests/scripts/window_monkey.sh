#!/usr/bin/env bash
# A random-input run of the real window: clicks, drags, wheel turns, keys, typed text and F12
# screenshots at random places, from a fixed seed, for a bounded number of actions. The window must
# never crash or hang: every frame it is alive, and Ctrl+Q at the end quits with exit 0. A quit
# reached through the random input itself (File > Quit) starts the window again. In the sanitizer
# stage of scripts/test this binary is the AddressSanitizer build, so any report fails the run.
#   bash window_monkey.sh <posviz-binary> <scratch-dir>     (inside xvfb-run, or it starts one)
#   POSVIZ_MONKEY_SEED=N POSVIZ_MONKEY_ACTIONS=N     another seed, another length (defaults 20261126, 500)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need xvfb-run xdotool
bin=${1:?usage: window_monkey.sh POSVIZ SCRATCH}
scratch=${2:?usage: window_monkey.sh POSVIZ SCRATCH}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" bash "$0" "$bin" "$scratch"
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
scratch=$(posviz_scratch "$scratch") && mkdir -p "$scratch/cwd" || exit 1
cd "$scratch/cwd" || exit 1   # whatever the random input exports lands here
export POSVIZ_CONFIG_DIR="$scratch/config"
seed=${POSVIZ_MONKEY_SEED:-20261126}
actions=${POSVIZ_MONKEY_ACTIONS:-500}
RANDOM=$seed
failures=0
pid=""
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; }
trap cleanup EXIT

start() {
  "$bin" --size 1280x800 --screenshot-path "$scratch/cwd/shot.png" >>"$scratch/posviz.log" 2>&1 &
  pid=$!
  wid=$(timeout 60 xdotool search --sync --pid "$pid" --name '^posviz( - .*)?$' 2>/dev/null | head -n1)
  if [ -z "$wid" ]; then echo "FAIL: no window within 60 s"; tail -20 "$scratch/posviz.log"; exit 1; fi
  eval "$(xdotool getwindowgeometry --shell "$wid")"   # X Y WIDTH HEIGHT
  xdotool windowactivate --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid" 2>/dev/null || true
}

# alive: the process runs, or ended with exit 0 (a random File > Quit): then start again.
restarts=0
alive() {
  kill -0 "$pid" 2>/dev/null && return 0
  wait "$pid"; local rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: the window died with exit $rc after action $1 ($2)"; tail -40 "$scratch/posviz.log"; exit 1
  fi
  restarts=$((restarts + 1))
  echo "info: the window quit by itself after action $1 ($2); starting it again"
  [ $restarts -le 20 ] || { echo "FAIL: more than 20 quits"; exit 1; }
  start
}

keys=(Tab shift+Tab Left Right Up Down Return Escape space BackSpace Delete Home End Page_Up Page_Down
      ctrl+1 ctrl+2 ctrl+3 ctrl+4 ctrl+5 ctrl+6 ctrl+7 ctrl+8 ctrl+9 ctrl+z ctrl+a ctrl+o F1 F11 F12 minus plus
      a b e k n p r s x 0 1 5 9 period comma)
words=("0" "-1" "1e308" "nan" "65536" "abc" "4096" "0.5" "../../no-such-dir" "$(printf 'x%.0s' $(seq 1 300))")

start
declare -A done_kinds=()
for ((i = 1; i <= actions; i++)); do
  x=$((X + RANDOM % WIDTH)); y=$((Y + RANDOM % HEIGHT))
  kind=$((RANDOM % 10))
  case $kind in
    0|1|2) what="click $x,$y"; xdotool mousemove --sync "$x" "$y" click 1 ;;
    3)     x2=$((X + RANDOM % WIDTH)); what="drag $x,$y -> $x2,$y"
           xdotool mousemove --sync "$x" "$y" mousedown 1 mousemove --sync "$(( (x + x2) / 2 ))" "$y" mousemove --sync "$x2" "$y" mouseup 1 ;;
    4)     b=$((4 + RANDOM % 2)); what="wheel $b at $x,$y"; xdotool mousemove --sync "$x" "$y" click --repeat 3 "$b" ;;
    5|6)   k=${keys[RANDOM % ${#keys[@]}]}; what="key $k"; xdotool key --window "$wid" "$k" ;;
    7)     t=${words[RANDOM % ${#words[@]}]}; what="type ${t:0:20}"; xdotool mousemove --sync "$x" "$y" click --repeat 2 1 type --delay 1 "$t" ;;
    8)     what="right click $x,$y"; xdotool mousemove --sync "$x" "$y" click 3 ;;
    9)     what="F12"; xdotool key --window "$wid" F12 ;;
  esac
  done_kinds[${what%% *}]=1
  alive "$i" "$what"
done

# The end: still alive, and a clean quit.
xdotool key --window "$wid" Escape Escape
for i in $(seq 1 300); do   # Ctrl+Q again every 3 s: a key can be lost while a frame is busy
  kill -0 "$pid" 2>/dev/null || break
  [ $((i % 30)) -eq 1 ] && xdotool key --window "$wid" ctrl+q 2>/dev/null
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  echo "FAIL: no exit within 30 s of Ctrl+Q"; failures=$((failures + 1))
else
  wait "$pid"; rc=$?; pid=""
  [ $rc -eq 0 ] || { echo "FAIL: exit $rc at the end"; failures=$((failures + 1)); }
fi
if grep -qE 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer' "$scratch/posviz.log"; then
  echo "FAIL: a sanitizer report:"; grep -A20 -E 'ERROR: AddressSanitizer|runtime error:' "$scratch/posviz.log" | head -40
  failures=$((failures + 1))
fi
echo "window_monkey: seed $seed, $actions actions (${!done_kinds[*]}), $restarts restarts, $failures failures"
[ $failures -eq 0 ]
