#!/usr/bin/env bash
# Bad input through `posviz export`, option by option, as a user or a script would type it.
#   bash cli_bad_input.sh <posviz-binary> <scratch-dir>
#
# The numeric options are read from `posviz export --help` and each view's `--help` at run time:
# an option the help lists that this script has no context for is a failure (the test must grow
# with the CLI). For every (option, view) pair a baseline call with a good value must succeed
# first, so that each refusal below is caused by the bad value alone. Then each of
#   0 -1 nan inf -inf 1e999 99999999999999999999 abc "" 12x " 5"
# must exit exactly 2 (never 0 unless the value is allowed by the option's documented range, never
# >= 124: a timeout or a signal), name the option on stderr, print nothing on stdout and leave no
# output or temporary file. Where a value is allowed (0 for --position, --key-position, --seed,
# --head; 1e20 for real options with no upper bound) the call must succeed and write only finite
# numbers. Then odd dims, unknown names, bad comma lists, bad output names, and --config / --table
# files that are missing, a directory, unreadable (as user nobody), empty, truncated, oversized,
# of the wrong dtype, malformed or wrongly typed.
# One line per check ("ok: ..." or "FAIL: ..."), a summary, exit 1 on any failure.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need python3
bin=${1:?usage: cli_bad_input.sh POSVIZ SCRATCH}
scratch=${2:?usage: cli_bad_input.sh POSVIZ SCRATCH}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
scratch=$(posviz_scratch "$scratch") && mkdir -p "$scratch/in" "$scratch/o" || exit 1
out="$scratch/o"

# About 3000 checks: each helper below uses bash builtins only, so that a check costs the one
# posviz process (and its timeout) rather than a dozen small ones.
# run ARGS...: posviz ARGS with a time limit; sets rc, stderr_text (all of it), err (its first
# 400 bytes on one line) and outbytes (0 or the size of stdout).
run() {
  timeout 30 "$bin" "$@" >"$scratch/stdout" 2>"$scratch/stderr"
  rc=$?
  stderr_text=
  IFS= read -r -d '' stderr_text <"$scratch/stderr"
  err=${stderr_text:0:400}
  err=${err//$'\n'/ }
  outbytes=0
  if [ -s "$scratch/stdout" ]; then outbytes=$(wc -c <"$scratch/stdout"); fi
}

# stderr_names NEEDLE: the last run's stderr contains NEEDLE.
stderr_names() { [[ $stderr_text == *"$1"* ]]; }

# entries NAME PATTERN...: the array NAME holds the paths that match (none: empty), dot files too.
entries() {
  local -n into=$1
  shift
  shopt -s nullglob dotglob
  into=($@)
  shopt -u nullglob dotglob
}
leftovers() {  # up to three entries left in $out, on one line
  local found
  entries found "$out/*"
  [ ${#found[@]} -eq 0 ] || echo "${found[*]:0:3}"
}
clean_out() {
  local found
  entries found "$out/*"
  [ ${#found[@]} -eq 0 ] || rm -rf "${found[@]}"
}

# refused LABEL NEEDLE ARGS...: want exit 2, NEEDLE on stderr, empty stdout, nothing in $out.
refused() {
  local label=$1 needle=$2; shift 2
  run "$@"
  local left; left=$(leftovers)
  if [ "$rc" -ge 124 ]; then
    fail "$label -> exit $rc (a crash, signal or hang; want 2): posviz $* :: $err"
  elif [ "$rc" -ne 2 ]; then
    fail "$label -> exit $rc, want 2: posviz $* :: $err"
  elif ! stderr_names "$needle"; then
    fail "$label -> exit 2 but stderr does not name '$needle': $err"
  elif [ "$outbytes" -ne 0 ]; then
    fail "$label -> exit 2 but wrote $outbytes bytes to stdout"
  elif [ -n "$left" ]; then
    fail "$label -> exit 2 but left files behind: $left"
  else
    ok "$label -> exit 2, message names $needle"
  fi
  clean_out
}

# finite_output FILE: 0 when every number in the .npy/.json/.csv/.png output is finite.
finite_output() {
  case "$1" in
    *.npy) python3 - "$1" <<'EOF'
import struct, sys, math
b = open(sys.argv[1], 'rb').read()
if b[:6] != b'\x93NUMPY': sys.exit(1)
hl = struct.unpack('<H', b[8:10])[0] if b[6] == 1 else struct.unpack('<I', b[8:12])[0]
start = (10 if b[6] == 1 else 12) + hl
hdr = b[(10 if b[6] == 1 else 12):start].decode('latin1')
fmt, size = ('d', 8) if "'<f8'" in hdr else ('f', 4)
body = b[start:]
vals = struct.unpack('<%d%s' % (len(body) // size, fmt), body[:len(body) // size * size])
sys.exit(0 if all(math.isfinite(v) for v in vals) else 1)
EOF
    ;;
    *.json) ! grep -qiE 'null|nan|infinity' "$1" ;;
    *.csv) ! grep -v '^#' "$1" | grep -qiE 'nan|inf' ;;
    *) [ -s "$1" ] ;;
  esac
}

# allowed LABEL FILE ARGS...: want exit 0, FILE written, only finite numbers, no temp file.
allowed() {
  local label=$1 file=$2; shift 2
  run "$@"
  local tmps tmp=
  entries tmps "$out/.posviz-*.tmp" "$out/*/.posviz-*.tmp"
  [ ${#tmps[@]} -eq 0 ] || tmp=${tmps[0]}
  if [ "$rc" -ne 0 ]; then
    fail "$label -> exit $rc, want 0 (the value is allowed): posviz $* :: $err"
  elif [ ! -s "$file" ]; then
    fail "$label -> exit 0 but $file is missing or empty"
  elif [ -n "$tmp" ]; then
    fail "$label -> exit 0 but left a temporary file $tmp"
  elif ! finite_output "$file"; then
    fail "$label -> exit 0 but the output holds non-finite numbers (garbage): $file"
  else
    ok "$label -> exit 0, finite output (allowed value)"
  fi
  clean_out
}

# refused_or_finite LABEL OPTION FILE ARGS...: a value at the edge of a documented range: either
# refused as above, or accepted with only finite numbers written (never null/inf in the output).
refused_or_finite() {
  local label=$1 opt=$2 file=$3; shift 3
  run "$@"
  local left; left=$(leftovers)
  if [ "$rc" -eq 2 ] && stderr_names "$opt" && [ -z "$left" ]; then
    ok "$label -> exit 2, message names $opt"
  elif [ "$rc" -eq 0 ] && [ -s "$file" ] && finite_output "$file"; then
    ok "$label -> exit 0, finite output"
  elif [ "$rc" -eq 0 ]; then
    fail "$label -> exit 0 but the output holds non-finite numbers (null/inf): posviz $*"
  else
    fail "$label -> exit $rc, want 2 naming $opt or 0 with finite output :: $err"
  fi
  clean_out
}

[ -x "$bin" ] || { echo "FAIL: $bin is not executable"; exit 1; }

# [SECTION] The options, from the help text

run export --help
[ "$rc" -eq 0 ] || fail "posviz export --help -> exit $rc"
# Lines like "  --base X     frequency base ..." : name and metavar.
mapfile -t help_options < <(grep -E '^  --?[a-z][a-z0-9-]* [A-Z][A-Za-z.|0-9]*' "$scratch/stdout" | awk '{print $1 " " $2}')
[ "${#help_options[@]}" -gt 20 ] || fail "export --help lists only ${#help_options[@]} options with a value"
numeric_options=()
list_options=()
for line in "${help_options[@]}"; do
  name=${line% *}
  meta=${line#* }
  case "$meta" in
    N | X | P | H | BYTES) numeric_options+=("$name") ;;
    LIST) list_options+=("$name") ;;
  esac
done
echo "numeric options from the help: ${numeric_options[*]}"
echo "list options from the help: ${list_options[*]}"

# View -> its options, from `posviz export VIEW --help`.
mapfile -t views < <(sed -n 's/^.*Views: \(.*\)\.$/\1/p' "$scratch/stdout" | tr ',' '\n' | tr -d ' ')
[ "${#views[@]}" -ge 10 ] || fail "export --help names ${#views[@]} views, expected at least 10"
declare -A view_options
for v in "${views[@]}"; do
  run export "$v" --help
  [ "$rc" -eq 0 ] || fail "posviz export $v --help -> exit $rc"
  view_options[$v]=" $(grep -oE '^  --?[a-z][a-z0-9-]*' "$scratch/stdout" | tr -d ' ' | tr '\n' ' ') "
done

# [SECTION] Contexts: a valid call around each option, a good value, values that are allowed

# context[OPTION@VIEW] = "EXT|GOOD|ARGS..." : the extension of -o, a good value, other arguments.
declare -A context=(
  [--d-model@sinusoidal]="npy|8|--positions 4"
  [--d-model@sinusoidal-similarity]="npy|8|--positions 4"
  [--base@sinusoidal-similarity]="npy|500|--positions 4 --d-model 8"
  [--positions@sinusoidal-similarity]="npy|4|--d-model 8"
  [--step@example]="npy|1|--example alibi-4tokens-m0.5"
  [--d-model@learned]="npy|8|--max-len 4"
  [--d-model@attention]="json|8|"
  [--head-dim@rope-freqs]="json|8|"
  [--head-dim@rope-angles]="npy|8|--positions 4"
  [--head-dim@rope-cos]="npy|8|--positions 4"
  [--head-dim@rope-sin]="npy|8|--positions 4"
  [--head-dim@rope-rotate]="json|8|"
  [--head-dim@rope-scores]="npy|8|--positions 4"
  [--head-dim@rope-decay]="npy|8|--positions 4"
  [--base@sinusoidal]="npy|500|--positions 4 --d-model 8"
  [--base@rope-freqs]="json|500|--head-dim 8"
  [--base@rope-angles]="npy|500|--head-dim 8 --positions 4"
  [--base@rope-cos]="npy|500|--head-dim 8 --positions 4"
  [--base@rope-sin]="npy|500|--head-dim 8 --positions 4"
  [--base@rope-rotate]="json|500|--head-dim 8"
  [--base@rope-scores]="npy|500|--head-dim 8 --positions 4"
  [--base@rope-decay]="npy|500|--head-dim 8 --positions 4"
  [--positions@sinusoidal]="npy|4|--d-model 8"
  [--positions@learned]="npy|4|--d-model 8 --max-len 16"
  [--positions@rope-angles]="npy|4|--head-dim 8"
  [--positions@rope-cos]="npy|4|--head-dim 8"
  [--positions@rope-sin]="npy|4|--head-dim 8"
  [--positions@rope-scores]="npy|4|--head-dim 8"
  [--positions@rope-decay]="npy|4|--head-dim 8"
  [--positions@alibi-bias]="npy|4|--heads 2"
  [--position@sinusoidal]="npy|3|--positions 4 --d-model 8"
  [--position@learned]="npy|3|--positions 4 --d-model 8 --max-len 16"
  [--position@rope-angles]="npy|3|--positions 4 --head-dim 8"
  [--position@rope-cos]="npy|3|--positions 4 --head-dim 8"
  [--position@rope-sin]="npy|3|--positions 4 --head-dim 8"
  [--position@rope-rotate]="json|3|--head-dim 4"
  [--position@rope-scores]="npy|3|--positions 4 --head-dim 8"
  [--key-position@rope-rotate]="json|3|--head-dim 4"
  [--seed@rope-rotate]="json|7|--head-dim 4"
  [--seed@rope-scores]="npy|7|--head-dim 8 --positions 4"
  [--heads@alibi-slopes]="npy|4|"
  [--heads@alibi-bias]="npy|4|--positions 4"
  [--head@alibi-bias]="npy|1|--heads 4 --positions 4"
  [--slope@alibi-bias]="npy|0.5|--positions 4"
  [--factor@rope-freqs]="json|2|--head-dim 8 --scaling linear"
  [--original-max-positions@rope-freqs]="json|64|--head-dim 8 --scaling yarn --factor 2"
  [--seq-len@rope-freqs]="json|8192|--head-dim 8 --scaling dynamic --factor 2 --original-max-positions 4096"
  [--beta-fast@rope-freqs]="json|32|--head-dim 8 --scaling yarn --factor 2"
  [--beta-slow@rope-freqs]="json|1|--head-dim 8 --scaling yarn --factor 2"
  [--low-freq-factor@rope-freqs]="json|1|--head-dim 8 --scaling llama3 --factor 8"
  [--high-freq-factor@rope-freqs]="json|4|--head-dim 8 --scaling llama3 --factor 8"
  [--mscale@rope-freqs]="json|1|--head-dim 8 --scaling yarn --factor 2"
  [--mscale-all-dim@rope-freqs]="json|1|--head-dim 8 --scaling yarn --factor 2"
  [--attention-factor@rope-freqs]="json|1|--head-dim 8 --scaling yarn --factor 2"
  [--rotary-fraction@rope-freqs]="json|0.5|--head-dim 8"
  [--seed@learned]="npy|7|--d-model 8 --max-len 4"
  [--seed@attention]="json|7|"
  [--max-len@learned]="npy|16|--d-model 8"
  [--scale@sinusoidal]="png|2|--positions 4 --d-model 8"
  [--scale@learned]="png|2|--positions 4 --d-model 8 --max-len 4"
  [--scale@rope-angles]="png|2|--positions 4 --head-dim 8"
  [--scale@rope-scores]="png|2|--positions 4 --head-dim 8"
  [--scale@alibi-bias]="png|2|--positions 4 --heads 2"
  [--scale@attention]="png|2|"
  [--text-scale@sinusoidal]="png|2|--positions 4 --d-model 8"
  [--text-scale@rope-scores]="svg|1.5|--positions 4 --head-dim 8"
  [--budget@sinusoidal]="npy|1M|--positions 4 --d-model 8"
  [--budget@alibi-bias]="npy|1M|--positions 4 --heads 2"
  [--d-model@compare]="json|8|--heads 1 --original-max-positions 4 --positions 8"
  [--heads@compare]="json|2|--d-model 8 --original-max-positions 4 --positions 8"
  [--original-max-positions@compare]="json|4|--d-model 8 --heads 1 --positions 8"
  [--positions@compare]="json|8|--d-model 8 --heads 1 --original-max-positions 4"
  [--base@compare]="json|500|--d-model 8 --heads 1 --original-max-positions 4 --positions 8"
  [--seed@compare]="json|7|--d-model 8 --heads 1 --original-max-positions 4 --positions 8"
  # extrapolation: a toy-sized lab (d 8, L0 = L = 16, so the learned run has every row; one sweep length)
  [--head-dim@extrapolation]="npy|8|--original-max-positions 16 --positions 16 --multiples 1"
  [--base@extrapolation]="npy|500|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--positions@extrapolation]="npy|16|--head-dim 8 --original-max-positions 16 --multiples 1"
  [--original-max-positions@extrapolation]="npy|16|--head-dim 8 --positions 16 --multiples 1"
  [--slope@extrapolation]="npy|0.5|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--factor@extrapolation]="npy|2|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--beta-fast@extrapolation]="npy|32|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--beta-slow@extrapolation]="npy|1|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--low-freq-factor@extrapolation]="npy|1|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--high-freq-factor@extrapolation]="npy|4|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--seed@extrapolation]="npy|7|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--mscale@extrapolation]="npy|1|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--mscale-all-dim@extrapolation]="npy|1|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  [--attention-factor@extrapolation]="npy|1|--head-dim 8 --original-max-positions 16 --positions 16 --multiples 1"
  # axial RoPE (a 2 x 2 patch grid) and Llama 4's NoPE-layer temperature
  [--head-dim@axial-angles]="npy|8|--grid 2x2"
  [--base@axial-angles]="npy|500|--head-dim 8 --grid 2x2"
  [--head-dim@axial-scores]="npy|8|--grid 2x2"
  [--base@axial-scores]="npy|500|--head-dim 8 --grid 2x2"
  [--positions@nope-temperature]="npy|8|"
  [--position@nope-temperature]="npy|5|--positions 4"
  [--floor-scale@nope-temperature]="npy|4|--positions 8"
  [--attn-scale@nope-temperature]="npy|0.5|--positions 8"
  [--positions@t5-buckets]="npy|4|"
  [--num-buckets@t5-buckets]="npy|8|--positions 4 --max-distance 16"
  [--max-distance@t5-buckets]="npy|16|--positions 4"
  [--head-dim@xpos-scale]="npy|8|--positions 4"
  [--positions@xpos-scale]="npy|4|--head-dim 8"
  [--position@xpos-scale]="npy|3|--positions 4 --head-dim 8"
  [--scale-base@xpos-scale]="npy|64|--positions 4 --head-dim 8"
  [--positions@kerple-bias]="npy|4|"
  [--r1@kerple-bias]="npy|0.5|--positions 4"
  [--r2@kerple-bias]="npy|0.5|--positions 4"
  [--positions@fire-bias]="png|4|"
  [--fire-c@fire-bias]="png|0.5|--positions 4"
  [--fire-threshold@fire-bias]="png|4|--positions 4"
  [--fire-hidden@fire-bias]="png|4|--positions 4"
  [--seed@fire-bias]="png|7|--positions 4"
  [--positions@shaw-scores]="npy|4|"
  [--head-dim@shaw-scores]="npy|8|--positions 4"
  [--clip@shaw-scores]="npy|2|--positions 4"
  [--seed@shaw-scores]="npy|7|--positions 4"
  [--left-max@shaw-scores]="npy|2|--positions 4 --variant relative_key_clamped"
  [--right-max@shaw-scores]="npy|2|--positions 4 --variant relative_key_clamped"
  [--positions@txl-terms]="npy|4|"
  [--d-model@txl-terms]="npy|8|--positions 4"
  [--head-dim@txl-terms]="npy|4|--positions 4"
  [--seed@txl-terms]="npy|7|--positions 4"
  # learned --std; the Relative tab's seeded T5 table and one head's bias
  [--std@learned]="npy|0.5|--d-model 8 --max-len 4"
  [--num-buckets@t5-bias-table]="npy|8|"
  [--heads@t5-bias-table]="npy|4|"
  [--seed@t5-bias-table]="npy|7|"
  [--positions@t5-bias]="npy|4|"
  [--num-buckets@t5-bias]="npy|8|--positions 4 --max-distance 16"
  [--max-distance@t5-bias]="npy|16|--positions 4"
  [--heads@t5-bias]="npy|4|--positions 4"
  [--head@t5-bias]="npy|1|--heads 4 --positions 4"
  [--seed@t5-bias]="npy|7|--positions 4"
  # the toy attention of Where position enters and Word order (their default sentences)
  [--d-model@rope-outputs]="npy|8|"
  [--seed@rope-outputs]="npy|7|"
  [--d-model@order-attention]="npy|8|"
  [--seed@order-attention]="npy|7|"
  [--d-model@nope-counting]="npy|8|"
  [--seed@nope-counting]="npy|7|"
  # mrope-angles' get_rope_index inputs, over a one-grid video
  [--spatial-merge@mrope-angles]="npy|2|--preset qwen2.5-vl-7b --sequence 1,v2x4x4,1"
  [--tokens-per-second@mrope-angles]="npy|2|--preset qwen2.5-vl-7b --sequence 1,v2x4x4,1"
  [--timestamp-tokens@mrope-angles]="npy|3|--preset qwen2.5-vl-7b --index-rule frames --sequence 1,v2x4x4,1"
)
# Values that an option's documented range allows (0 is a position, a seed, a head index, and
# for --seq-len, --mscale and --mscale-all-dim core's "unset";
# 1e20 is a finite real with no documented upper bound; where the result would still not fit
# float32, the export refuses it, and `allowed` accepts only finite output).
declare -A allowed_values=(
  [--position]=" 0 " [--key-position]=" 0 " [--seed]=" 0 " [--head]=" 1 "
  [--base]=" 99999999999999999999 " [--factor]=" 99999999999999999999 " [--beta-fast]=" 99999999999999999999 "
  [--high-freq-factor]=" 99999999999999999999 " [--mscale]=" 0 99999999999999999999 "
  [--mscale-all-dim]=" 0 99999999999999999999 " [--seq-len]=" 0 " [--tokens-per-second]=" 0 " [--timestamp-tokens]=" 0 "
  [--left-max]=" 0 " [--right-max]=" 0 "
)
# --attention-factor has a documented range, (0, 1e6]: the score grid scales by its square, and
# 1e20^2 times q.k is past float32. 1e20 is refused like any other out-of-range value.
bad_values=(0 -1 nan inf -inf 1e999 99999999999999999999 abc "" 12x " 5")

# [SECTION] Every numeric option with every bad value

for opt in "${numeric_options[@]}"; do
  taken=0
  for v in "${views[@]}"; do
    case "${view_options[$v]}" in *" $opt "*) ;; *) continue ;; esac
    # Common options (--scale, --text-scale, --budget) apply to every view: test them where a context exists.
    key="$opt@$v"
    # The other RoPE views take rope-freqs' scaling options with the same context.
    if [ -z "${context[$key]+x}" ] && [ -n "${context[$opt@rope-freqs]+x}" ]; then
      IFS='|' read -r ext good extra <<<"${context[$opt@rope-freqs]}"
      case "$v" in
        rope-rotate) context[$key]="json|$good|$extra" ;;
        rope-angles | rope-cos | rope-sin | rope-scores | rope-decay) context[$key]="npy|$good|$extra --positions 4" ;;
      esac
    fi
    # mrope-angles parses the shared RoPE options with the same code as the views above, and needs a
    # --section fitted to each head size; its own options are tested in tests/cli/test_view_table.cpp.
    if [ -z "${context[$key]+x}" ] && [ "$v" = mrope-angles ]; then continue; fi
    if [ -z "${context[$key]+x}" ]; then
      case "$opt" in --scale | --text-scale | --budget) continue ;; esac
      fail "no test context for $opt in view $v (add one to cli_bad_input.sh)"
      continue
    fi
    taken=$((taken + 1))
    IFS='|' read -r ext good extra <<<"${context[$key]}"
    file="$out/r.$ext"
    # shellcheck disable=SC2086
    run export "$v" $extra "$opt" "$good" -o "$file"
    if [ "$rc" -ne 0 ] || [ ! -s "$file" ]; then
      fail "baseline export $v $extra $opt $good -> exit $rc (must succeed): $err"
      clean_out
      continue
    fi
    clean_out
    for value in "${bad_values[@]}"; do
      label="export $v $opt '$value'"
      case "${allowed_values[$opt]:-}" in
        *" $value "*)
          # shellcheck disable=SC2086
          allowed "$label" "$file" export "$v" $extra "$opt" "$value" -o "$file" ;;
        *)
          # shellcheck disable=SC2086
          refused "$label" "$opt" export "$v" $extra "$opt" "$value" -o "$file"
          # The same through the --name=value spelling (in the first view taking the option).
          if [ "$taken" -eq 1 ]; then
            # shellcheck disable=SC2086
            refused "$label (as $opt=)" "$opt" export "$v" $extra "$opt=$value" -o "$file"
          fi ;;
      esac
    done
    # Past float32's range (3.4e38) but inside a "> 0" range: refused, or the float32 output
    # stays finite.
    # shellcheck disable=SC2086
    refused_or_finite "export $v $opt 1e300" "$opt" "$file" export "$v" $extra "$opt" 1e300 -o "$file"
  done
  [ "$taken" -ge 1 ] || fail "numeric option $opt is listed by export --help but tested in no view"
done

# [SECTION] Odd dims, unknown names, unknown views and flags, output names

npy="$out/x.npy"
json="$out/x.json"
png="$out/x.png"
for d in 1 3 7 63 4097; do
  refused "export sinusoidal --d-model $d (odd)" "--d-model" export sinusoidal --d-model "$d" -o "$npy"
  refused "export rope-angles --head-dim $d (odd)" "--head-dim" export rope-angles --head-dim "$d" -o "$npy"
  refused "export attention --d-model $d (odd)" "--d-model" export attention --d-model "$d" -o "$json"
done
refused "export attention --d-model 8192 (over the toy model's limit)" "--d-model" export attention --d-model 8192 -o "$json"
refused "export rope-freqs --scaling ntk --head-dim 2 (too few dims)" "--scaling" export rope-freqs --scaling ntk --factor 2 --head-dim 2 -o "$json"
refused "export rope-freqs --rotary-fraction 0.1 of head_dim 8 (no pair)" "--rotary-fraction" export rope-freqs --head-dim 8 --rotary-fraction 0.1 -o "$json"
for name in warp NTK Yarn "" " yarn" "yarn " none,linear; do
  refused "export rope-freqs --scaling '$name'" "--scaling" export rope-freqs --scaling "$name" -o "$json"
done
for name in diagonal HALF-SPLIT "" t2t; do
  refused "export rope-angles --layout '$name'" "--layout" export rope-angles --layout "$name" -o "$npy"
done
for name in diagonal half-split ""; do
  refused "export sinusoidal --layout '$name'" "--layout" export sinusoidal --layout "$name" -o "$npy"
done
for name in jet "" "viridis " rainbow; do
  refused "export sinusoidal --colormap '$name'" "--colormap" export sinusoidal --colormap "$name" -o "$png"
done
for name in f16 float32 F32 "" i4; do
  refused "export sinusoidal --dtype '$name'" "--dtype" export sinusoidal --dtype "$name" -o "$npy"
done
refused "export sinusoidal --dtype f64 -o x.png" "--dtype" export sinusoidal --dtype f64 -o "$png"
refused "export attention --encoding relative" "--encoding" export attention --encoding relative -o "$json"
refused "export attention --array both" "--array" export attention --array both -o "$json"
refused "export attention --text '   '" "--text" export attention --text "   " -o "$json"
refused "export spiral (unknown view)" "spiral" export spiral -o "$npy"
refused "export '' (empty view)" "view" export "" -o "$npy"
refused "export SINUSOIDAL (case)" "SINUSOIDAL" export SINUSOIDAL -o "$npy"
refused "export (no view)" "view" export
refused "export --d-model 8 (option before the view)" "view" export --d-model 8 sinusoidal -o "$npy"
refused "export sinusoidal --dmodel (unknown flag)" "--dmodel" export sinusoidal --dmodel 8 -o "$npy"
refused "export sinusoidal --d-model (missing value)" "--d-model" export sinusoidal -o "$npy" --d-model
refused "export sinusoidal --d-model given twice" "--d-model" export sinusoidal --d-model 8 --d-model 16 -o "$npy"
refused "export sinusoidal --causal (does not apply)" "--causal" export sinusoidal --causal -o "$npy"
refused "export alibi-bias --causal=yes (flag with a value)" "--causal" export alibi-bias --causal=yes -o "$npy"
refused "export sinusoidal stray positional argument" "extra" export sinusoidal extra -o "$npy"
refused "export rope-freqs --factor 2 without --scaling" "--factor" export rope-freqs --factor 2 -o "$json"
refused "export rope-freqs yarn --beta-fast 1 --beta-slow 2" "--beta-fast" export rope-freqs --scaling yarn --factor 2 --beta-fast 1 --beta-slow 2 -o "$json"
refused "export rope-freqs llama3 --low-freq-factor 4 --high-freq-factor 1" "--high-freq-factor" export rope-freqs --scaling llama3 --factor 8 --low-freq-factor 4 --high-freq-factor 1 -o "$json"
refused "export alibi-bias --head 5 of 4 heads" "--head" export alibi-bias --heads 4 --head 5 --positions 4 -o "$npy"
refused "export alibi-bias --head 0 (heads count from 1)" "--head" export alibi-bias --heads 4 --head 0 --positions 4 -o "$npy"
refused "export alibi-bias --slope with --heads" "--slope" export alibi-bias --slope 0.5 --heads 4 --positions 4 -o "$npy"
refused "export sinusoidal (missing -o)" "-o" export sinusoidal
refused "export sinusoidal -o '' (empty)" "-o" export sinusoidal -o ""
refused "export sinusoidal -o x.bmp (bad extension)" "-o" export sinusoidal -o "$out/x.bmp"
refused "export sinusoidal -o x (no extension)" "-o" export sinusoidal -o "$out/x"
refused "export sinusoidal -o DIR (a directory)" "-o" export sinusoidal -o "$out"
refused "export sinusoidal -o x.npy --output y.npy" "-o" export sinusoidal -o "$npy" --output "$json"
refused "export rope-freqs -o x.png (no 2-D data)" ".png" export rope-freqs -o "$png"
refused "export sinusoidal --caption '' " "--caption" export sinusoidal --caption "" -o "$png"
refused "export sinusoidal --scale 2 -o x.npy (png only)" "--scale" export sinusoidal --scale 2 -o "$npy"

# [SECTION] Comma lists

for value in "" "," "1,,1,1" ",1,1,1" "1,1,1," "1,1,1,nan" "1,1,1,inf" "1,1,1,abc" "1;1;1;1" " 1,1,1,1" "1,1,1,1 " \
             "1,1,1" "1,1,1,1,1" "1e999,1,1,1" "0x1,1,1,1"; do
  refused "export rope-rotate --head-dim 4 --q '$value'" "--q" export rope-rotate --head-dim 4 --q "$value" -o "$json"
  refused "export rope-scores --head-dim 4 --k '$value'" "--k" export rope-scores --head-dim 4 --positions 4 --k "$value" -o "$npy"
done
refused "export rope-rotate --q 1,2,3 (odd count sets head_dim)" "--q" export rope-rotate --q 1,2,3 -o "$json"
lr="export rope-freqs --head-dim 8 --scaling longrope --factor 4"
for value in "" "1,,1,1" "1,1,1," "1,1,1" "1,1,1,1,1" "0,1,1,1" "-1,1,1,1" "1,1,1,nan" "1,1,1,inf" "a,b,c,d" "1,1,1,1e999"; do
  # shellcheck disable=SC2086
  refused "$lr --short-factor '$value'" "--short-factor" $lr --long-factor 1,1,1,1 --short-factor "$value" -o "$json"
  # shellcheck disable=SC2086
  refused "$lr --long-factor '$value'" "--long-factor" $lr --short-factor 1,1,1,1 --long-factor "$value" -o "$json"
done
# shellcheck disable=SC2086
allowed "$lr with both lists of 4 (baseline)" "$json" $lr --short-factor 1,1,1,1 --long-factor 2,2,2,2 -o "$json"

# [SECTION] Input files: --config and --table

in="$scratch/in"
# npy FILE DESCR SHAPE BODY_BYTES [FORTRAN]: a version 1.0 .npy with a header padded to 64 bytes.
npy() {
  python3 - "$@" <<'EOF'
import struct, sys
path, descr, shape, nbytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
fortran = len(sys.argv) > 5
h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape)
total = (10 + len(h) + 1 + 63) // 64 * 64
h = h + " " * (total - 10 - len(h) - 1) + "\n"
body = b"".join(struct.pack('<f', 0.25 * i) for i in range(nbytes // 4)) + b"\0" * (nbytes % 4)
open(path, 'wb').write(b"\x93NUMPY\x01\x00" + struct.pack('<H', len(h)) + h.encode('latin1') + body)
EOF
}
npy "$in/ok.npy" '<f4' '(4, 8)' 128
allowed "export learned --table ok.npy (baseline)" "$npy" export learned --table "$in/ok.npy" -o "$npy"
npy "$in/trunc_body.npy" '<f4' '(4, 8)' 100
head -c 40 "$in/ok.npy" >"$in/trunc_header.npy"
head -c 5 "$in/ok.npy" >"$in/trunc_magic.npy"
: >"$in/empty.npy"
npy "$in/huge_1e12.npy" '<f4' '(1000000, 1000000)' 64
npy "$in/huge_overflow.npy" '<f4' '(4294967296, 4294967296, 4294967296)' 64
npy "$in/i4.npy" '<i4' '(4, 8)' 128
npy "$in/f2.npy" '<f2' '(4, 8)' 64
npy "$in/bigendian.npy" '>f4' '(4, 8)' 128
npy "$in/object.npy" '|O' '(4, 8)' 256
npy "$in/bool.npy" '|b1' '(4, 8)' 32
npy "$in/fortran.npy" '<f4' '(4, 8)' 128 fortran
npy "$in/one_d.npy" '<f4' '(8,)' 32
npy "$in/three_d.npy" '<f4' '(2, 2, 8)' 128
npy "$in/zero_rows.npy" '<f4' '(0, 8)' 0
npy "$in/negative.npy" '<f4' '(-4, 8)' 128
npy "$in/odd_cols.npy" '<f4' '(4, 7)' 112
python3 -c "
import struct
h = \"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }\"
h = h + ' ' * (118 - len(h)) + '\n'
open('$in/nan_values.npy','wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<2f', float('nan'), float('inf')))
"
printf 'not a numpy file at all' >"$in/junk.npy"
mkdir -p "$in/dir.npy" "$in/dir.json"
for f in missing.npy dir.npy trunc_body.npy trunc_header.npy trunc_magic.npy empty.npy huge_1e12.npy huge_overflow.npy \
         i4.npy f2.npy bigendian.npy object.npy bool.npy fortran.npy one_d.npy three_d.npy zero_rows.npy negative.npy junk.npy; do
  refused "export learned --table $f" "--table" export learned --table "$in/$f" -o "$npy"
done
# A table of odd width or holding NaN: either refused naming --table, or exported unchanged.
for f in odd_cols.npy nan_values.npy; do
  run export learned --table "$in/$f" -o "$npy"
  if [ "$rc" -eq 2 ] && stderr_names "--table" && [ ! -e "$npy" ]; then
    ok "export learned --table $f -> exit 2 naming --table"
  elif [ "$rc" -eq 0 ] && [ -s "$npy" ]; then
    ok "export learned --table $f -> exit 0 (the table is exported as loaded)"
  else
    fail "export learned --table $f -> exit $rc :: $err"
  fi
  clean_out
done
refused "export learned --table ok.npy --positions 5 (past the 4 rows)" "--positions" export learned --table "$in/ok.npy" --positions 5 -o "$npy"

cfg() { printf '%s' "$2" >"$in/$1"; }
cfg ok.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 10000.0, "max_position_embeddings": 4096}'
allowed "export rope-freqs --config ok.json (baseline)" "$json" export rope-freqs --config "$in/ok.json" -o "$json"
cfg cut.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_the'
cfg empty.json ''
cfg array.json '[1, 2, 3]'
cfg string.json '"config"'
cfg trailing.json '{"hidden_size": 512, "num_attention_heads": 8} garbage'
cfg theta_string.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_theta": "big"}'
cfg theta_negative.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_theta": -5}'
cfg theta_one.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 1}'
cfg theta_huge.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 1e400}'
cfg hidden_float.json '{"hidden_size": 512.5, "num_attention_heads": 8, "rope_theta": 10000}'
cfg hidden_string.json '{"hidden_size": "512", "num_attention_heads": 8, "rope_theta": 10000}'
cfg hidden_huge.json '{"hidden_size": 99999999999999999999, "num_attention_heads": 8, "rope_theta": 10000}'
cfg heads_zero.json '{"hidden_size": 512, "num_attention_heads": 0, "rope_theta": 10000}'
cfg heads_negative.json '{"hidden_size": 512, "num_attention_heads": -8, "rope_theta": 10000}'
cfg heads_indivisible.json '{"hidden_size": 500, "num_attention_heads": 8, "rope_theta": 10000}'
cfg head_dim_odd.json '{"head_dim": 63, "num_attention_heads": 8, "hidden_size": 504, "rope_theta": 10000}'
cfg head_dim_bool.json '{"head_dim": true, "num_attention_heads": 8, "rope_theta": 10000}'
cfg no_encoding.json '{"hidden_size": 512, "num_attention_heads": 8}'
cfg scaling_list.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": [1, 2]}'
cfg scaling_type.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "warp", "factor": 2}}'
cfg scaling_type_int.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"rope_type": 3, "factor": 2}}'
cfg factor_string.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "linear", "factor": "2"}}'
cfg factor_half.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "linear", "factor": 0.5}}'
cfg factor_missing.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "yarn"}}'
cfg yarn_betas.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "yarn", "factor": 4, "beta_fast": 1, "beta_slow": 32}}'
cfg longrope_short.json '{"hidden_size": 512, "num_attention_heads": 8, "rope_scaling": {"type": "longrope", "factor": 4, "short_factor": [1, 1], "long_factor": [1, 1]}, "original_max_position_embeddings": 4096}'
cfg longrope_string.json '{"hidden_size": 16, "num_attention_heads": 2, "rope_scaling": {"type": "longrope", "factor": 4, "short_factor": [1, "x", 1, 1], "long_factor": [1, 1, 1, 1]}, "original_max_position_embeddings": 4096}'
cfg rotary_zero.json '{"hidden_size": 512, "num_attention_heads": 8, "partial_rotary_factor": 0}'
cfg rotary_two.json '{"hidden_size": 512, "num_attention_heads": 8, "partial_rotary_factor": 2}'
cfg max_pos_negative.json '{"hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": -1}'
python3 -c "open('$in/deep.json','w').write('{\"a\": ' + '[' * 200000 + ']' * 200000 + '}')"
python3 -c "open('$in/deep_open.json','w').write('[' * 1000000)"
printf '{"hidden_size": 512, "num_attention_heads": 8, "rope_theta": 1\x00e4}' >"$in/nul.json"
printf '\xff\xfe{\x00}\x00' >"$in/utf16.json"
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >"$in/oversized.json"
for f in missing.json dir.json cut.json empty.json array.json string.json trailing.json theta_string.json theta_negative.json \
         theta_one.json theta_huge.json hidden_float.json hidden_string.json hidden_huge.json heads_zero.json heads_negative.json \
         heads_indivisible.json head_dim_odd.json head_dim_bool.json no_encoding.json scaling_list.json scaling_type.json scaling_type_int.json \
         factor_string.json factor_half.json factor_missing.json yarn_betas.json longrope_short.json longrope_string.json \
         rotary_zero.json rotary_two.json max_pos_negative.json deep.json deep_open.json nul.json utf16.json oversized.json; do
  refused "export rope-freqs --config $f" "--config" export rope-freqs --config "$in/$f" -o "$json"
done
# The field named in the message for the wrongly typed ones.
refused "config theta_string.json names the field" "rope_theta" export rope-freqs --config "$in/theta_string.json" -o "$json"
refused "config factor_string.json names the field" "factor" export rope-freqs --config "$in/factor_string.json" -o "$json"
refused "config hidden_float.json names the field" "hidden_size" export rope-freqs --config "$in/hidden_float.json" -o "$json"
refused "config heads_zero.json names the field" "num_attention_heads" export rope-freqs --config "$in/heads_zero.json" -o "$json"
refused "config rotary_two.json names the field" "partial_rotary_factor" export rope-freqs --config "$in/rotary_two.json" -o "$json"
refused "config theta_huge.json names the value" "1e400" export rope-freqs --config "$in/theta_huge.json" -o "$json"
refused "config head_dim_odd.json names the field" "head_dim" export rope-freqs --config "$in/head_dim_odd.json" -o "$json"
refused "config longrope_string.json names the field" "short_factor" export rope-freqs --config "$in/longrope_string.json" -o "$json"
refused "config longrope_short.json names the field" "short_factor" export rope-freqs --config "$in/longrope_short.json" -o "$json"

# Unreadable files: root ignores permissions, so read them as user nobody.
can_drop=1
if [ "$(id -u)" -ne 0 ]; then
  as_nobody=()
elif command -v setpriv >/dev/null; then
  as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
  can_drop=0
fi
if [ "$can_drop" -eq 1 ]; then
  ro=$(mktemp -d /tmp/posviz-bad-input-XXXXXX)
  chmod 755 "$ro" && mkdir "$ro/o" && chmod 777 "$ro/o"
  cp "$in/ok.npy" "$ro/locked.npy" && cp "$in/ok.json" "$ro/locked.json"
  chmod 000 "$ro/locked.npy" "$ro/locked.json"
  cp "$bin" "$ro/posviz" 2>/dev/null && chmod 755 "$ro/posviz"
  for pair in "learned --table locked.npy npy" "rope-freqs --config locked.json json"; do
    read -r view flag file ext <<<"$pair"
    timeout 30 "${as_nobody[@]}" "$ro/posviz" export "$view" "$flag" "$ro/$file" -o "$ro/o/x.$ext" >"$scratch/stdout" 2>"$scratch/stderr"
    rc=$?
    err=$(head -c 300 "$scratch/stderr" | tr '\n' ' ')
    left=$(find "$ro/o" -mindepth 1 | head -1)
    if [ "$rc" -eq 2 ] && grep -qF -- "$flag" "$scratch/stderr" && grep -qiF "permission" "$scratch/stderr" && [ -z "$left" ]; then
      ok "export $view $flag $file (unreadable, as nobody) -> exit 2, names $flag and the reason"
    else
      fail "export $view $flag $file (unreadable, as nobody) -> exit $rc, left '${left}', stderr: $err (want 2, naming $flag and 'Permission denied')"
    fi
  done
  rm -rf "$ro"
else
  echo "INFO: no way to drop root privileges: unreadable-file checks skipped"
fi

leftover=$(find "$scratch" -name '.posviz-*.tmp' | head -1)
if [ -z "$leftover" ]; then ok "no temporary file anywhere under $scratch"; else fail "temporary file left: $leftover"; fi
echo "summary: $checks checks, $((checks - failures)) ok, $failures failed"
[ "$failures" -eq 0 ]
