#!/usr/bin/env bash
# The Learn path, walked as a student would: a first launch with no settings opens on Learn's first
# step; Page Down (the Next key) is pressed until the last step, and after every press the window
# title must name the next step of `posviz learn --list`, in order (no dead end, no skipped step);
# one more press stays on the last step. After closing, the settings remember the last step and
# every step as seen, and a second launch resumes there. Then every step is rendered on its own
# (--step ID --screenshot) and each picture must differ from the previous step's (no empty or
# repeated pane). Finally the CLI: `posviz learn` lists the same steps, prints one step with its
# verdict, and refuses unknown steps and keys with a clear message.
#   bash learn_walk.sh <posviz-binary> <scratch-dir>     (inside xvfb-run, or it starts one)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need xvfb-run xdotool python3 md5sum
bin=${1:?usage: learn_walk.sh POSVIZ SCRATCH}
scratch=${2:-$(mktemp -d)}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" bash "$0" "$bin" "$scratch"
fi
scratch=$(posviz_scratch "$scratch")
export POSVIZ_CONFIG_DIR="$scratch/config"

mapfile -t ids < <("$bin" learn --list | awk '/^  [a-z0-9-]+ /{print $1}')
mapfile -t titles < <("$bin" learn --list | sed -n 's/^  [a-z0-9-]* *//p')
n=${#ids[@]}
[ "$n" -ge 25 ] && ok "posviz learn --list: $n steps" || fail "posviz learn --list: only $n steps"
grep -q "^$n steps in 8 chapters$" <<<"$("$bin" learn --list)" && ok "the list counts $n steps in 8 chapters" || fail "the list's count line"

launch() {   # launch: start the window, set $pid and $wid
  "$bin" --size 1440x900 >>"$scratch/posviz.log" 2>&1 &
  pid=$!
  wid=$(timeout 60 xdotool search --sync --pid "$pid" --name '^posviz( - .*)?$' 2>/dev/null | head -n1)
  if [ -z "$wid" ]; then fail "no posviz window appeared within 60 s"; cat "$scratch/posviz.log"; posviz_summary learn_walk; exit 1; fi
  xdotool windowactivate --sync "$wid" 2>/dev/null || xdotool windowfocus "$wid" 2>/dev/null || true
  eval "$(xdotool getwindowgeometry --shell "$wid")"
  xdotool mousemove --sync $((X + 700)) $((Y + HEIGHT - 8))   # over the status bar: no tooltips, no hover
}
title_is() {   # title_is EXPECTED: wait up to 10 s for the window title
  for _ in $(seq 1 100); do
    [ "$(xdotool getwindowname "$wid" 2>/dev/null)" = "$1" ] && return 0
    sleep 0.1
  done
  return 1
}
quit() {
  xdotool key --window "$wid" ctrl+q 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

launch
expected="posviz - Learn 1/$n: ${titles[0]}"
title_is "$expected" && ok "first launch opens on Learn, step 1: ${titles[0]}" || fail "first launch: title is '$(xdotool getwindowname "$wid")', expected '$expected'"
walked=1
for i in $(seq 1 $((n - 1))); do
  xdotool key --window "$wid" Next
  expected="posviz - Learn $((i + 1))/$n: ${titles[$i]}"
  if title_is "$expected"; then
    walked=$((walked + 1))
  else
    fail "Next from step $i: title is '$(xdotool getwindowname "$wid")', expected '$expected'"
    break
  fi
done
[ "$walked" -eq "$n" ] && ok "Next walked all $n steps in order" || fail "Next walked $walked of $n steps"
xdotool key --window "$wid" Next
sleep 0.5
title_is "posviz - Learn $n/$n: ${titles[$((n - 1))]}" && ok "Next on the last step stays there" || fail "Next on the last step: '$(xdotool getwindowname "$wid")'"
xdotool key --window "$wid" Prior
title_is "posviz - Learn $((n - 1))/$n: ${titles[$((n - 2))]}" && ok "Back (Page Up) returns one step" || fail "Back: '$(xdotool getwindowname "$wid")'"
xdotool key --window "$wid" Next
title_is "posviz - Learn $n/$n: ${titles[$((n - 1))]}" || fail "Next after Back"
quit

python3 - "$POSVIZ_CONFIG_DIR/settings.json" "$n" "${ids[$((n - 1))]}" <<'PY' && ok "settings remember the last step and all $n steps as seen" || fail "settings.json: the Learn progress is not saved"
import json, sys
s = json.load(open(sys.argv[1]))
learn = s["panels"]["learn"]
assert learn["step"] == sys.argv[3], learn["step"]
assert len(set(learn["visited"])) == int(sys.argv[2]), len(learn["visited"])
assert s["panel"] == "learn", s["panel"]
PY

launch
title_is "posviz - Learn $n/$n: ${titles[$((n - 1))]}" && ok "a second launch resumes on the last step seen" || fail "second launch: '$(xdotool getwindowname "$wid")'"
quit

# Every step on its own: a picture each, each different from the one before.
prev=""
same=0
for id in "${ids[@]}"; do
  if ! "$bin" --step "$id" --screenshot "$scratch/$id.png" >/dev/null 2>>"$scratch/shots.log" || [ ! -s "$scratch/$id.png" ]; then
    fail "--step $id --screenshot wrote no picture"; continue
  fi
  sum=$(md5sum <"$scratch/$id.png")
  [ "$sum" = "$prev" ] && { fail "step $id looks exactly like the step before"; same=$((same + 1)); }
  prev=$sum
done
[ "$same" -eq 0 ] && ok "every step renders its own picture ($n screenshots)"

# The CLI.
out=$("$bin" learn rope-2d)
grep -q "verdict (wrong in a number): The article says -0.2579; the correct value is 0.1411 = sin(3)" <<<"$out" && ok "posviz learn rope-2d: the verdict with the computed value" || fail "posviz learn rope-2d: $out"
out=$("$bin" learn alibi-4 --set t=3 --set m=1)
grep -q "row 0, key 2: -2.0000" <<<"$out" && ok "posviz learn alibi-4 --set t=3 --set m=1: the figure follows the values" || fail "alibi-4 --set: $out"
err=$("$bin" learn no-such-step 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "no step named \"no-such-step\"; posviz learn --list shows the $n steps" <<<"$err" && ok "unknown step: exit 2, named" || fail "unknown step: rc $rc: $err"
err=$("$bin" learn alibi-4 --set slope=2 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "has no control \"slope\"; its controls: t, m, causal" <<<"$err" && ok "unknown key: exit 2, lists the keys" || fail "unknown key: rc $rc: $err"
err=$("$bin" learn alibi-4 --set t=99 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--set t: got \"99\" (out of range), expected an integer in \[2, 16\]" <<<"$err" && ok "out-of-range value: exit 2, the range named" || fail "out of range: rc $rc: $err"
err=$("$bin" learn alibi-4 --set causal=yes 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--set causal: got \"yes\", expected one of on|off" <<<"$err" && ok "a switch takes on or off" || fail "switch value: rc $rc: $err"
err=$("$bin" --step nope --screenshot "$scratch/x.png" 2>&1); rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$scratch/x.png" ] && grep -q "expected a Learn step id" <<<"$err" && ok "--step with an unknown id: exit 2, no file" || fail "--step nope: rc $rc: $err"
posviz_summary learn_walk
