#!/usr/bin/env bash
# `posviz --bench-frames N` runs every workload, prints one row each with finite frame times, and
# the small workloads show new pictures while their parameter is dragged (the views do not wait
# for the drag to stop; for the large ones the count depends on this machine's speed and is only
# reported: tests/app covers the worker's rule itself). Bad values of N are refused with exit 2. Timings are reported, not
# asserted: this machine's GL is a software rasterizer.
#   bash bench_frames.sh <posviz-binary> <scratch-dir>     (inside xvfb-run, or it starts one)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need xvfb-run
bin=${1:?usage: bench_frames.sh POSVIZ SCRATCH}
scratch=${2:-$(mktemp -d)}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" bash "$0" "$bin" "$scratch"
fi
mkdir -p "$scratch"
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for bad in 0 9 -5 abc 12x 100001 99999999999999999999 ""; do
  POSVIZ_CONFIG_DIR="$scratch/cfg" "$bin" --bench-frames "$bad" >"$scratch/out" 2>"$scratch/err"
  rc=$?
  if [ $rc -eq 2 ] && grep -q -- "--bench-frames" "$scratch/err"; then ok "--bench-frames '$bad' -> exit 2: $(head -1 "$scratch/err")"
  else fail "--bench-frames '$bad' -> exit $rc: $(head -c 300 "$scratch/err")"; fi
done

POSVIZ_CONFIG_DIR="$scratch/cfg" timeout 600 "$bin" --bench-frames 30 --bench-tabs sinusoidal,rope >"$scratch/out" 2>"$scratch/err"
rc=$?
cat "$scratch/out"
if [ $rc -ne 0 ]; then fail "--bench-frames 30 -> exit $rc: $(head -c 400 "$scratch/err")"; fi
rows=$(grep -cE '^(sinusoidal|RoPE)' "$scratch/out")
# 512 x 64, 512 x 4096, 131072 x 128, 32768 x 4096 and 2^31 x 4096 sinusoidal; three RoPE score
# sizes up to 2^20.
if [ "$rows" -eq 8 ]; then ok "8 workload rows"; else fail "$rows workload rows, want 8"; fi
grep -q '^sinusoidal 2147483647 x 4096' "$scratch/out" && ok "the 2^31-position workload ran" || fail "no 2^31-position workload"
while read -r line; do
  name=$(sed -E 's/ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+.*$//' <<<"$line")
  # columns from the end: vertices, settle, new pictures, max, p95, p50
  read -r p50 p95 mx pics settle vertices < <(awk '{n=NF; if ($n ~ /\)/) n-=3; print $(n-5), $(n-4), $(n-3), $(n-2), $(n-1), $n}' <<<"$line")
  if [ "$vertices" -gt 0 ] 2>/dev/null; then ok "$name: $vertices vertices a frame"; else fail "$name: no vertex count: '$line'"; fi
  if awk -v a="$p50" -v b="$p95" -v c="$mx" 'BEGIN{exit !(a>0 && a<=b && b<=c)}'; then ok "$name: p50 $p50 <= p95 $p95 <= max $mx ms"
  else fail "$name: frame times not ordered or not positive: '$line'"; fi
  if [[ "$name" != *" 512 x 64" && "$name" != *" 512 x 512" ]]; then echo "INFO: $name: $pics new picture(s) during the drag"
  elif [ "$pics" -ge 1 ] 2>/dev/null; then ok "$name: $pics new picture(s) during the drag"
  else fail "$name: no new picture during the drag: '$line'"; fi
done < <(grep -E '^(sinusoidal|RoPE)' "$scratch/out")
# Where the time went: a CPU line per workload, the frame loop's share above zero (it built the
# frames), none negative.
cpu_rows=$(grep -cE '^  cpu (sinusoidal|RoPE)' "$scratch/out")
if [ "$cpu_rows" -eq 8 ]; then ok "8 CPU rows"; else fail "$cpu_rows CPU rows, want 8"; fi
while read -r line; do
  read -r ui driver jobs < <(awk '{for (i = 1; i < NF; i++) if ($i == "ui" || $i == "driver" || $i == "jobs") printf "%s ", $(i + 1); print ""}' <<<"$line")
  if awk -v u="$ui" -v d="$driver" -v j="$jobs" 'BEGIN{exit !(u > 0 && d >= 0 && j >= 0)}'; then ok "CPU a frame: ui $ui, driver $driver, jobs $jobs ms"
  else fail "CPU line not positive: '$line'"; fi
done < <(grep -E '^  cpu (sinusoidal|RoPE)' "$scratch/out")
if grep -qE '^p95 ratio, largest sinusoidal grid / 512 x 64: [0-9.]+' "$scratch/out"; then ok "ratio line printed"
else fail "no p95 ratio line"; fi

if grep -qE '^p95 within 1.2x of sinusoidal 512 x 64, paired by round: [0-9]+ of 8 workloads' "$scratch/out"; then ok "goal line printed"
else fail "no goal line"; fi

# The other tabs' workloads (the light ones: Learned's 2^29-value table and the Extrapolation lab
# take minutes and are run by hand): each row's name starts with its tab's title, times ordered.
POSVIZ_CONFIG_DIR="$scratch/cfg" timeout 300 "$bin" --bench-frames 10 \
  --bench-tabs learn,worked-examples,where-position-enters,train,model,context-extension,image-rope >"$scratch/tabs" 2>"$scratch/err"
rc=$?
cat "$scratch/tabs"
if [ $rc -ne 0 ]; then fail "--bench-frames 10 --bench-tabs ... -> exit $rc: $(head -c 400 "$scratch/err")"; fi
for title in "Learn " "Worked examples" "Where position enters" "Train " "Model " "Context extension" "Image RoPE"; do
  line=$(grep -E "^$title" "$scratch/tabs" | head -1)
  read -r p50 p95 mx < <(awk '{n=NF; if ($n ~ /\)/) n-=3; print $(n-5), $(n-4), $(n-3)}' <<<"$line")
  if [ -n "$line" ] && awk -v a="$p50" -v b="$p95" -v c="$mx" 'BEGIN{exit !(a>0 && a<=b && b<=c)}'; then ok "$title: p50 $p50 <= p95 $p95 <= max $mx ms"
  else fail "no ordered row for $title: '$line'"; fi
done
for bad in "nosuch" "sinusoidal,," ""; do
  POSVIZ_CONFIG_DIR="$scratch/cfg" "$bin" --bench-frames 10 --bench-tabs "$bad" >"$scratch/out" 2>"$scratch/err"
  rc=$?
  if [ $rc -eq 2 ] && grep -q -- "--bench-tabs" "$scratch/err"; then ok "--bench-tabs '$bad' -> exit 2: $(head -1 "$scratch/err")"
  else fail "--bench-tabs '$bad' -> exit $rc: $(head -c 300 "$scratch/err")"; fi
done
POSVIZ_CONFIG_DIR="$scratch/cfg" "$bin" --bench-tabs rope >"$scratch/out" 2>"$scratch/err"
rc=$?
if [ $rc -eq 2 ] && grep -q -- "--bench-tabs: applies to --bench-frames only" "$scratch/err"; then ok "--bench-tabs alone -> exit 2"
else fail "--bench-tabs alone -> exit $rc: $(head -c 300 "$scratch/err")"; fi

echo "summary: $failures failed"
[ "$failures" -eq 0 ]
