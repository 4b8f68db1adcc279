#!/usr/bin/env bash
# The page's browser test (page_test.mjs): the desktop CLI writes what the page must match, then
# headless Chromium drives build/web/ with and without cross-origin isolation.
#   tests/web/run.sh POSVIZ_BINARY WEB_DIR OUT_DIR
set -euo pipefail
posviz=$1 web=$2 out=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
exp="$out/expected"
rm -rf "$exp"; mkdir -p "$exp"

"$posviz" learn --list >"$exp/learn-list.txt"
"$posviz" --help >"$exp/help.txt"
awk '/^Tabs of the window:/ {on=1; next} on && /^$/ {exit} on {print $1}' "$exp/help.txt" >"$exp/tabs.txt"
cp "$root/assets/presets/llama-3.1-8b.json" "$exp/config.json"
cp "$root/assets/presets/gemma-3-4b-it.json" "$exp/config-2.json"   # added in the Model tab by its chooser
# NAME, the export's arguments, and how the page's file must equal the desktop's: "bytes", or
# "Nulp" for values that go through the platforms' sin/cos/exp (their last bits may differ).
cat >"$exp/exports.txt" <<'LIST'
alibi.npy	export alibi-bias --heads 8 --positions 16 --causal	bytes
alibi-m.csv	export alibi-bias --slope 0.5 --positions 4	bytes
t5.npy	export t5-buckets --positions 64 --num-buckets 32 --max-distance 128	bytes
freqs.json	export rope-freqs --preset llama-3.1-8b	bytes
sin.npy	export sinusoidal --d-model 64 --positions 128	4ulp
cos.npy	export rope-cos --head-dim 16 --positions 64	4ulp
sin-plain.png	export sinusoidal --d-model 8 --positions 4 --plain	bytes
LIST
while IFS=$'\t' read -r name args how; do
  # shellcheck disable=SC2086
  "$posviz" $args -o "$exp/$name" >/dev/null
done <"$exp/exports.txt"

# A small training run (about a second on the desktop): the page must give the same numbers.
echo "train --task copy --encodings nope,rope,alibi --train-length 8 --eval-lengths 8,16 --steps 100 --seeds 1" >"$exp/train-args.txt"
# shellcheck disable=SC2046
"$posviz" $(cat "$exp/train-args.txt") -o "$exp/train.json" >/dev/null

exec env POSVIZ_NODE_MODULES="$root/build/web-test/node_modules" POSVIZ_DESKTOP="$posviz" node "$here/page_test.mjs" "$web" "$exp" "$out"
