#!/usr/bin/env bash
# Bad input through the real binary: every case must exit with the documented code (2 for bad
# usage or input files, 1 for runtime failures), name the culprit on stderr, print nothing on
# stdout, finish promptly, and leave no output or temporary file behind.
#   bash cli_errors.sh <posviz-binary> <scratch-dir>
set -u
bin=${1:?usage: cli_errors.sh POSVIZ SCRATCH}
out=${2:?usage: cli_errors.sh POSVIZ SCRATCH}
rm -rf "$out" && mkdir -p "$out/in" "$out/o" || exit 1
failures=0
cases=0

# expect CODE NEEDLE ARGS...: run posviz ARGS, want exit CODE and NEEDLE in stderr.
expect() {
  local code=$1 needle=$2; shift 2
  cases=$((cases + 1))
  timeout 60 "$bin" "$@" >"$out/stdout" 2>"$out/stderr"
  local rc=$?
  local left
  left=$(find "$out/o" -mindepth 1 | head -1)
  if [ "$rc" -eq "$code" ] && grep -qF -- "$needle" "$out/stderr" && [ ! -s "$out/stdout" ] && [ -z "$left" ]; then
    echo "PASS: exit $code naming '$needle': posviz $*"
  else
    echo "FAIL: posviz $*: exit $rc (want $code), stderr: $(head -c 300 "$out/stderr"), stdout bytes: $(wc -c <"$out/stdout"), left: ${left:-none}"
    failures=$((failures + 1))
    rm -rf "$out/o" && mkdir -p "$out/o"
  fi
}

npy="$out/o/x.npy"
json="$out/o/x.json"

# Every numeric option: 0 or negative where not allowed, NaN, inf, huge, non-numeric, empty, junk.
for v in 0 -3 nan inf -inf 1e999 99999999999999999999 abc "" 12x " 8" 8.5; do
  expect 2 "--d-model" export sinusoidal --d-model "$v" -o "$npy"
  expect 2 "--positions" export sinusoidal --positions "$v" -o "$npy"
  expect 2 "--head-dim" export rope-freqs --head-dim "$v" -o "$json"
  expect 2 "--heads" export alibi-slopes --heads "$v" -o "$npy"
  expect 2 "--scale" export sinusoidal --scale "$v" -o "$out/o/x.png"
  expect 2 "--max-len" export learned --max-len "$v" -o "$npy"
  expect 2 "--original-max-positions" export rope-freqs --scaling yarn --factor 2 --original-max-positions "$v" -o "$json"
done
for v in 0 -2 1 nan inf 1e999 abc "" 1e4x; do
  expect 2 "--base" export rope-freqs --base "$v" -o "$json"
done
for v in 0 -1 0.5 nan inf 1e999 abc ""; do
  expect 2 "--factor" export rope-freqs --scaling linear --factor "$v" -o "$json"
done
for v in 0 -1 nan inf abc ""; do
  expect 2 "--beta-slow" export rope-freqs --scaling yarn --factor 4 --beta-slow "$v" -o "$json"
  # 0 is core's "unset" for --mscale and --seq-len (L0): allowed.
  [ "$v" = 0 ] || expect 2 "--mscale" export rope-freqs --scaling yarn --factor 4 --mscale "$v" -o "$json"
  expect 2 "--attention-factor" export rope-freqs --scaling yarn --factor 4 --attention-factor "$v" -o "$json"
  expect 2 "--low-freq-factor" export rope-freqs --scaling llama3 --factor 8 --low-freq-factor "$v" -o "$json"
  [ "$v" = 0 ] || expect 2 "--seq-len" export rope-freqs --scaling dynamic --factor 2 --seq-len "$v" -o "$json"
done
for v in 0 -0.5 1.5 nan abc ""; do
  expect 2 "--rotary-fraction" export rope-freqs --rotary-fraction "$v" -o "$json"
done
for v in "1,nan" "1,,2" "" "1,abc" "1,inf" "1,2,3"; do
  expect 2 "--q" export rope-rotate --q "$v" -o "$json"
done
for v in "0,1" "-1,1" "1" "1,2,3" "1,nan"; do
  expect 2 "--short-factor" export rope-freqs --head-dim 4 --scaling longrope --long-factor 1,1 --short-factor "$v" -o "$json"
done
for v in -1 1.5 abc ""; do
  expect 2 "--seed" export learned --seed "$v" -o "$npy"
done
for v in 0 -1 5X 1.5G abc ""; do
  expect 2 "--budget" export sinusoidal --budget "$v" -o "$npy"
done

# Odd dims, unknown methods, views, options and formats.
expect 2 "--d-model" export sinusoidal --d-model 63 -o "$npy"
expect 2 "--head-dim" export rope-angles --head-dim 7 -o "$npy"
expect 2 "--scaling" export rope-freqs --scaling warp -o "$json"
expect 2 "--layout" export rope-angles --layout diagonal -o "$npy"
expect 2 "--encoding" export attention --encoding relative -o "$json"
expect 2 "--colormap" export sinusoidal --colormap jet -o "$out/o/x.png"
expect 2 "unknown view \"spiral\"" export spiral -o "$npy"
expect 2 "unknown option \"--dmodel\"" export sinusoidal --dmodel 8 -o "$npy"
expect 2 "--heads: does not apply" export sinusoidal --heads 4 -o "$npy"
expect 2 ".png, .svg, .npy, .csv or .json" export sinusoidal -o "$out/o/x.bmp"
expect 2 "-o: an output file is required" export sinusoidal
expect 2 ".png is not available" export rope-freqs -o "$out/o/x.png"

# Input files: missing, unreadable, truncated, wrong dtype, oversized, malformed config.
expect 2 "--table" export learned --table "$out/in/missing.npy" -o "$npy"
printf 'not a numpy file' >"$out/in/junk.npy"
expect 2 "--table" export learned --table "$out/in/junk.npy" -o "$npy"
# Hand-made .npy files: magic, version 1.0, header length, header padded to a multiple of 64.
make_npy() {  # make_npy FILE HEADER BODY_BYTES
  local f=$1 h=$2 n=$3
  local total=$(( (10 + ${#h} + 1 + 63) / 64 * 64 ))
  local hl=$(( total - 10 )) p=$(( total - 10 - ${#h} - 1 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hl % 256)))\\x$(printf %02x $((hl / 256)))"
    printf '%s' "$h"; printf '%*s' "$p" ''; printf '\n'; head -c "$n" /dev/zero; } >"$f"
}
hdr="{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }"
make_npy "$out/in/trunc.npy" "$hdr" 8
expect 2 "--table" export learned --table "$out/in/trunc.npy" -o "$npy"
make_npy "$out/in/int.npy" "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }" 16
expect 2 "--table" export learned --table "$out/in/int.npy" -o "$npy"
make_npy "$out/in/huge.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000, 100000), }" 16
expect 2 "--table" export learned --table "$out/in/huge.npy" -o "$npy"
make_npy "$out/in/ok.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }" 64
if "$bin" export learned --table "$out/in/ok.npy" -o "$out/in/ok-out.npy" 2>/dev/null && [ -s "$out/in/ok-out.npy" ]; then
  echo "PASS: the hand-made header is accepted when complete (the cases above fail for their own reason)"
else
  echo "FAIL: a complete hand-made .npy was refused"; failures=$((failures + 1))
fi
if [ "$(id -u)" -ne 0 ]; then
  cp "$out/in/ok.npy" "$out/in/locked.npy" && chmod 000 "$out/in/locked.npy"
  expect 2 "--table" export learned --table "$out/in/locked.npy" -o "$npy"
  chmod 644 "$out/in/locked.npy"
else
  echo "INFO: running as root: file permissions are not enforced, unreadable-file case skipped"
fi
printf '{"hidden_size": 64, "num_attention_heads": 4, "rope_scaling": {"type": "linear", "factor": -2}}' >"$out/in/neg.json"
expect 2 "rope_scaling.factor" export rope-freqs --config "$out/in/neg.json" -o "$json"
printf '{"hidden_size": 64, "num_attention_heads": 4, "rope_theta": "big"}' >"$out/in/type.json"
expect 2 "rope_theta" export rope-freqs --config "$out/in/type.json" -o "$json"
printf '{"hidden_size": 64,' >"$out/in/cut.json"
expect 2 "not valid JSON" export rope-freqs --config "$out/in/cut.json" -o "$json"
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >"$out/in/big.json"
expect 2 "MiB" export rope-freqs --config "$out/in/big.json" -o "$json"
expect 2 "nope.json" export rope-freqs --config "$out/in/nope.json" -o "$json"
expect 2 "unknown preset" export rope-freqs --preset llama-9 -o "$json"
expect 2 "uses ALiBi" export rope-freqs --preset bloom-560m -o "$json"

# Size budget: refused before any work, with the size it would need.
expect 2 "needs 3.81 GiB" export sinusoidal --positions 1000000 --d-model 1024 --budget 1G -o "$npy"
expect 2 "more than 16 EiB" export alibi-bias --heads 65536 --positions 2147483647 -o "$npy"
expect 2 "max_len 512" export learned --preset bert-base-uncased --positions 513 -o "$npy"

# Runtime failures: exit 1, a clear message, no partial file.
expect 1 "does not exist" export alibi-slopes -o "$out/o/no/such/dir/s.npy"
if [ "$(id -u)" -ne 0 ]; then
  mkdir -p "$out/ro" && chmod 555 "$out/ro"
  expect 1 "not writable" export alibi-slopes -o "$out/ro/s.npy"
  if [ -z "$(ls -A "$out/ro")" ]; then echo "PASS: read-only directory left empty"; else echo "FAIL: files in read-only dir"; failures=$((failures + 1)); fi
  chmod 755 "$out/ro"
else
  echo "INFO: running as root: directory permissions are not enforced, read-only directory case skipped"
fi

# Picture options that contradict each other are refused, naming both.
png="$out/o/x.png"
expect 2 "--plain: one pixel per cell without decorations, but --colorbar" export sinusoidal --plain --colorbar -o "$png"
expect 2 "--plain: one pixel per cell without decorations, but --axis-titles" export sinusoidal --plain --axis-titles -o "$png"
expect 2 "--plain: one pixel per cell without decorations, but --caption" export sinusoidal --plain --caption hi -o "$png"
expect 2 "--plain: one pixel per cell, but --scale 2" export sinusoidal --plain --scale 2 -o "$png"
expect 2 "--colorbar: given together with --no-colorbar" export sinusoidal --colorbar --no-colorbar -o "$png"
expect 2 "--caption: given together with --no-caption" export sinusoidal --caption hi --no-caption -o "$png"
expect 2 "--plain: applies to .png and .svg output only" export sinusoidal --plain -o "$npy"

# A bare command prints a short usage on stderr and exits 2.
cases=$((cases + 1))
"$bin" export >"$out/stdout" 2>"$out/stderr"; rc=$?
lines=$(wc -l <"$out/stderr")
if [ "$rc" -eq 2 ] && [ ! -s "$out/stdout" ] && [ "$lines" -le 15 ] && grep -qF "posviz export --help" "$out/stderr"; then
  echo "PASS: bare posviz export: exit 2, $lines lines of usage on stderr"
else
  echo "FAIL: bare posviz export: exit $rc, $lines lines, stdout bytes $(wc -c <"$out/stdout")"; failures=$((failures + 1))
fi
expect 2 "give exactly one of --config FILE or --preset NAME" model

# Every error names its command once: "posviz export: unknown view", never "posviz export: export: ...".
# once CMD ARGS...: run posviz ARGS (which fail), want stderr's first line to start "posviz CMD: " and
# hold no second command prefix.
once() {
  local cmd=$1; shift
  cases=$((cases + 1))
  timeout 60 "$bin" "$@" >/dev/null 2>"$out/stderr"
  local rc=$? first
  first=$(head -1 "$out/stderr")
  local rest=${first#"posviz${cmd:+ $cmd}: "}
  if [ "$rc" -ne 0 ] && [ "$rest" != "$first" ] && ! grep -qE '^(posviz|export|examples|model)( [a-z-]+)?: ' <<<"$rest"; then
    echo "PASS: one prefix: $first"
  else
    echo "FAIL: posviz $*: exit $rc, first line: $first"; failures=$((failures + 1))
  fi
}
once export export foo -o "$npy"
once export export rope-scores stray -o "$npy"
once export export --d-model 8
once export export examples -o "$npy"
once export export sinusoidal --bogus 1 -o "$npy"
once export export sinusoidal --d-model 7 -o "$npy"
once export export sinusoidal -o "$out/o/x.bmp"
once export export sinusoidal --plain --colorbar -o "$png"
once export export rope-freqs --preset nope -o "$json"
once export export rope-freqs --config "$out/in/nope.json" -o "$json"
once export export rope-freqs --config "$out/in/cut.json" -o "$json"
once export export learned --table "$out/in/junk.npy" -o "$npy"
once export export alibi-bias --preset llama-3.1-8b -o "$npy"
once export export rope-scores --positions 131072 -o "$png"
once export export alibi-slopes -o "$out/o/no/such/dir/s.npy"
once export export
once model model
once model model --bogus
once model model --preset
once model model --preset nope
once model model --config "$out/in/cut.json"
once examples examples a b
once examples examples nope
once "" --bogus
once "" bogus
once "" --panel nowhere
once "" --size 3x3

leftover=$(find "$out" -name '.posviz-*.tmp' | head -1)
if [ -z "$leftover" ]; then echo "PASS: no temporary files anywhere"; else echo "FAIL: temporary file left: $leftover"; failures=$((failures + 1)); fi
echo "$cases cases, $failures failure(s)"
[ "$failures" -eq 0 ]
