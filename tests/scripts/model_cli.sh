#!/usr/bin/env bash
# `posviz model` and `export rope-freqs --layer-type` through the real binary: every shipped preset
# prints its layer kinds and a JSON report that parses, EXAONE 4.0's global NoPE layers make the
# default (full-attention) RoPE export exit 2 naming the sliding RoPE layers, and usage errors exit 2.
#   bash model_cli.sh <posviz-binary> <scratch-dir>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need python3
bin=${1:?usage: model_cli.sh POSVIZ SCRATCH}
out=${2:?usage: model_cli.sh POSVIZ SCRATCH}
rm -rf "$out" && mkdir -p "$out" || exit 1
failures=0
checks=0

pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }

# run NAME CODE ARGS...: posviz ARGS into $out/NAME.{out,err}, want exit CODE.
run() {
  local name=$1 code=$2; shift 2
  timeout 60 "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  if [ "$rc" -eq "$code" ]; then pass "exit $code: posviz $*"; else fail "exit $rc, wanted $code: posviz $*"; fi
}

# has NAME FILE TEXT: FILE (out or err of run NAME) contains TEXT.
has() {
  local data
  data=$(cat "$out/$1.$2")
  case "$data" in *"$3"*) pass "$1.$2 has '$3'" ;; *) fail "$1.$2 lacks '$3'" ;; esac
}

presets=$(sed -n '/^Presets/,/^$/p' <("$bin" --help) | awk 'NR > 1 && NF {print $1}')
[ -n "$presets" ] || fail "no presets listed in --help"
for p in $presets; do
  run "text-$p" 0 model --preset "$p"
  has "text-$p" out "layers ["
  run "json-$p" 0 model --preset "$p" --json
  if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["layer_kinds"]' "$out/json-$p.out" 2>/dev/null; then
    pass "json-$p parses with layer_kinds"
  else
    fail "json-$p does not parse or has no layer_kinds"
  fi
done

run exaone-full 2 export rope-freqs --preset exaone-4.0-32b -o "$out/e.json"
has exaone-full err "full_attention layers use nope, not RoPE"
has exaone-full err "sliding_attention (48 layers, rope)"
[ ! -e "$out/e.json" ] && pass "no file after the refusal" || fail "e.json written after the refusal"
run exaone-sliding 0 export rope-freqs --preset exaone-4.0-32b --layer-type sliding_attention -o "$out/s.json"
if grep -q '"method": *"llama3"' "$out/s.json" 2>/dev/null; then pass "s.json holds the sliding layers' llama3 scaling"; else fail "s.json lacks llama3 scaling"; fi
run gemma-local 0 model --preset gemma-3-4b-it
has gemma-local out "full_attention: 5 layers [5, 11, 17, 23, 29]"
run no-source 2 model
has no-source err "exactly one of --config FILE or --preset NAME"
run bad-layer-type 2 export rope-freqs --preset gemma-3-4b-it --layer-type local -o "$out/x.json"
has bad-layer-type err "--layer-type"

echo "$checks checks, $failures failure(s)"
[ "$failures" -eq 0 ]
