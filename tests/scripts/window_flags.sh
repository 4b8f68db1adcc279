#!/usr/bin/env bash
# The window's one-shot flags as a script uses them: --screenshot FILE renders the start tab and
# exits; --config FILE / --preset NAME open with a model applied (the Model tab when no --panel).
# Bad values exit 2 naming the flag, and write nothing.
#   bash window_flags.sh <posviz-binary> <scratch-dir>     (inside xvfb-run, or it starts one)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need xvfb-run
bin=${1:?usage: window_flags.sh POSVIZ SCRATCH}
scratch=${2:-$(mktemp -d)}
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" bash "$0" "$bin" "$scratch"
fi
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
png_size() {  # "W H" from the PNG's IHDR (big-endian at bytes 16..23)
  local b; read -r -a b < <(od -An -tu1 -j16 -N8 "$1")
  echo "$(( (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3] )) $(( (b[4] << 24) | (b[5] << 16) | (b[6] << 8) | b[7] ))"
}

# A Llama 4 style config: every 4th layer NoPE with attention temperature tuning.
cat >"$scratch/llama4.json" <<'JSON'
{"model_type": "llama4_text", "num_hidden_layers": 8, "hidden_size": 512, "num_attention_heads": 4, "head_dim": 128,
 "max_position_embeddings": 1048576, "rope_theta": 500000, "floor_scale": 8192, "attn_scale": 0.1}
JSON

timeout 120 "$bin" --config "$scratch/llama4.json" --screenshot "$scratch/model.png" >"$scratch/out" 2>"$scratch/err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$scratch/model.png" ] && [ "$(png_size "$scratch/model.png")" = "1440 900" ]; then
  ok "--config + --screenshot: 1440x900 picture of the Model tab"
else
  fail "--config + --screenshot -> exit $rc: $(head -c 300 "$scratch/err")"
fi
timeout 120 "$bin" --panel alibi --size 800x600 --screenshot "$scratch/alibi.png" >/dev/null 2>"$scratch/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(png_size "$scratch/alibi.png")" = "800 600" ]; then ok "--panel alibi --size 800x600 --screenshot"
else fail "--panel alibi --screenshot -> exit $rc: $(head -c 300 "$scratch/err")"; fi
# Two pictures of different tabs differ.
if ! cmp -s "$scratch/model.png" "$scratch/alibi.png"; then ok "the two tabs' pictures differ"; else fail "identical pictures"; fi

for bad in "--screenshot $scratch/x.jpg" "--config $scratch/missing.json --screenshot $scratch/x.png" \
           "--preset nosuch --screenshot $scratch/x.png" "--config $scratch/llama4.json --preset gpt2 --screenshot $scratch/x.png"; do
  # shellcheck disable=SC2086
  timeout 60 "$bin" $bad >"$scratch/out" 2>"$scratch/err"
  rc=$?
  flag=$(awk '{print $1}' <<<"$bad")
  if [ $rc -eq 2 ] && grep -q -- "$flag" "$scratch/err" && [ ! -e "$scratch/x.png" ] && [ ! -e "$scratch/x.jpg" ]; then
    ok "$bad -> exit 2: $(head -1 "$scratch/err")"
  else
    fail "$bad -> exit $rc: $(head -c 300 "$scratch/err")"
  fi
done

echo "window_flags: $failures failure(s)"
[ $failures -eq 0 ]
