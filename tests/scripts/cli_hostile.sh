#!/usr/bin/env bash
# Hostile input and faults through the real binary, as an attacker or an unlucky user would try:
#   - links planted for the temporary names of earlier versions (<out>.tmp-<pid>-<n>, for a range
#     of pids) and at the output itself: never written through;
#   - SIGINT, SIGTERM and SIGHUP while a large export is being written: the process ends by the signal and leaves
#     no file at all; so do two SIGINTs at once (as `timeout` sends them) during a .webm encoding;
#   - a config nested 100,000 levels deep, through every reader (model, export --config, the
#     window's --config): exit 2 naming the depth, within seconds;
#   - a FIFO or a device as --config, --table: refused at once, never waited on;
#   - config sizes over the matching flag's limit: exit 2 naming the field and the range, at once;
#   - control characters and 10 MB names in model_type, --preset, the view name, the example name:
#     escaped and shortened in the message;
#   - NaN and infinity in a --table: refused with the row and column of the first one;
#   - a 252-character output name works; 10,000 --multiples, a 100 KB caption and a caption with
#     control characters are refused.
# One line per check ("ok: ..." or "FAIL: ..."), a summary, exit 1 on any failure.
#   bash cli_hostile.sh <posviz-binary> <scratch-dir>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need python3
bin=${1:?usage: cli_hostile.sh POSVIZ SCRATCH}
scratch=${2:?usage: cli_hostile.sh POSVIZ SCRATCH}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
scratch=$(posviz_scratch "$scratch") && mkdir -p "$scratch/in" "$scratch/o" || exit 1
in="$scratch/in" out="$scratch/o"

# refused LABEL NEEDLE ARGS...: exit 2 within 10 s, NEEDLE on stderr, stderr under 2 KB and free of
# raw control characters, nothing on stdout, nothing left in $out.
refused() {
  local label=$1 needle=$2; shift 2
  local start; start=$(date +%s%N)
  timeout 10 "$bin" "$@" >"$scratch/stdout" 2>"$scratch/stderr" </dev/null
  local rc=$? ms=$(( ($(date +%s%N) - start) / 1000000 ))
  local size; size=$(wc -c <"$scratch/stderr")
  local left; left=$(find "$out" -mindepth 1 | head -1)
  if [ $rc -ne 2 ]; then fail "$label: exit $rc (want 2) after $ms ms: $(head -c 300 "$scratch/stderr")"
  elif ! grep -qF -- "$needle" "$scratch/stderr"; then fail "$label: stderr lacks '$needle': $(head -c 300 "$scratch/stderr")"
  elif [ "$size" -gt 2048 ]; then fail "$label: a $size-byte message"
  elif LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$scratch/stderr"; then fail "$label: raw control characters on stderr"
  elif [ -s "$scratch/stdout" ]; then fail "$label: wrote to stdout"
  elif [ -n "$left" ]; then fail "$label: left $left"; rm -rf "$out" && mkdir -p "$out"
  else ok "$label -> exit 2 in $ms ms: $(head -1 "$scratch/stderr" | cut -c1-160)"; fi
}

# --- Planted links --------------------------------------------------------------------------
echo precious >"$scratch/victim"
target="$out/pe.npy"
for ((pid = $$ - 200; pid <= $$ + 2000; pid++)); do
  ln -s "$scratch/victim" "$target.tmp-$pid-0"
done
ln -s "$scratch/victim" "$target"
planted=$(find "$out" -type l | wc -l)
for i in 1 2 3 4 5; do
  "$bin" export sinusoidal --d-model 8 --positions 4 -o "$target" || fail "export beside $planted planted links failed"
done
[ "$(cat "$scratch/victim")" = precious ] && ok "$planted planted links: the victim is untouched after 5 exports" ||
  fail "an export wrote through a planted link"
[ -f "$target" ] && [ ! -L "$target" ] && [ "$(head -c 6 "$target" | tail -c 5)" = NUMPY ] &&
  ok "the link at the output was replaced by the .npy" || fail "the output is not a fresh .npy"
rm -rf "$out" && mkdir -p "$out"

# --- Signals during a large export ------------------------------------------------------------
for sig in INT TERM HUP; do
  # A background job of a script starts with SIGINT ignored; exec'd with every signal at its
  # default, as from a terminal, posviz installs its cleanup.
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
    "$bin" export sinusoidal --d-model 4096 --positions 65536 -o "$out/big.npy" 2>/dev/null &
  pid=$!
  for _ in $(seq 1 1200); do [ -n "$(find "$out" -name '.posviz-*.tmp' -size +1k)" ] && break; sleep 0.05; done
  [ -n "$(find "$out" -name '.posviz-*.tmp')" ] || fail "SIG$sig: the export wrote no temporary file within 60 s"
  kill -s "$sig" "$pid"
  wait "$pid" 2>/dev/null; rc=$?
  left=$(find "$out" -mindepth 1 | head -3)
  if [ -z "$left" ] && [ $rc -gt 128 ]; then ok "SIG$sig while a 1 GiB export was being written: exit $rc, no file left"
  else fail "SIG$sig during a large export: exit $rc, left: ${left:-nothing}"; fi
  rm -rf "$out" && mkdir -p "$out"
done

# --- Two signals at once while an animation is encoded ----------------------------------------
# The shell's `timeout` sends its signal twice (to the program, then to its process group). The
# second reaches another thread while the first is being handled; it must wait for the cleanup,
# not end the process first. 30 runs, each stopped at a different moment of its encoding.
python3 - "$bin" "$out" >"$scratch/twice.log" 2>&1 <<'PY'
import glob, os, signal, subprocess, sys, time
bin_, out = sys.argv[1], sys.argv[2]
args = [bin_, "export", "rope-cos", "--head-dim", "64", "--positions", "256", "--animate", "pos=0:100",
        "--frames", "60", "-o", os.path.join(out, "a.webm")]
t0 = time.time(); subprocess.run(args, capture_output=True, check=True); whole = time.time() - t0
os.unlink(os.path.join(out, "a.webm"))
left = survived = 0
for i in range(30):
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(whole * 0.9 * i / 30)
    alive = p.poll() is None
    p.send_signal(signal.SIGINT); p.send_signal(signal.SIGINT)
    p.wait()
    if alive and p.returncode != -signal.SIGINT and not os.path.exists(os.path.join(out, "a.webm")): survived += 1
    found = glob.glob(os.path.join(out, ".posviz-*"))
    left += 1 if found else 0
    for f in found + glob.glob(os.path.join(out, "a.webm")): os.unlink(f)
print(f"{left} of 30 runs left a temporary file; {survived} ended otherwise than by the signal")
PY
if grep -q '^0 of 30 runs left a temporary file; 0 ended' "$scratch/twice.log"; then
  ok "two SIGINTs at once, 30 times during a .webm encoding: ended by the signal, no temporary file left"
else
  fail "two SIGINTs at once during a .webm encoding: $(tail -3 "$scratch/twice.log")"
fi
rm -rf "$out" && mkdir -p "$out"

# --- Deep JSON, FIFOs and devices through every reader ----------------------------------------
python3 -c "import sys; open(sys.argv[1],'w').write('{\"model_type\": \"llama\", \"rope_scaling\": ' + '[' * 100000 + ']' * 100000 + '}')" "$in/deep.json"
python3 -c "import sys; open(sys.argv[1],'w').write('[' * 1000000)" "$in/deep_open.json"
mkfifo "$in/fifo.json" "$in/fifo.npy"
for f in deep deep_open; do
  refused "model --config $f.json" "nests deeper than the 64 levels allowed" model --config "$in/$f.json"
  refused "export rope-freqs --config $f.json" "nests deeper than the 64 levels allowed" export rope-freqs --config "$in/$f.json" -o "$out/f.json"
  refused "window --config $f.json" "nests deeper than the 64 levels allowed" --config "$in/$f.json" --screenshot "$out/s.png"
done
refused "model --config FIFO" "it is a FIFO, not a regular file" model --config "$in/fifo.json"
refused "export --config FIFO" "it is a FIFO, not a regular file" export rope-freqs --config "$in/fifo.json" -o "$out/f.json"
refused "window --config FIFO" "it is a FIFO, not a regular file" --config "$in/fifo.json" --screenshot "$out/s.png"
refused "export learned --table FIFO" "--table" export learned --table "$in/fifo.npy" -o "$out/t.csv"
refused "model --config /dev/zero" "it is a character device, not a regular file" model --config /dev/zero

# --- Config sizes: the flags' limits, named by field -------------------------------------------
config() {  # config NAME JSON-OBJECT-BODY
  printf '{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0, %s}' "$2" >"$in/$1.json"
}
config headdim '"head_dim": 2147483646'
config layers '"num_hidden_layers": 100000000'
config width '"hidden_size": 2147483647'
config heads '"num_attention_heads": 1000000'
refused "head_dim 2147483646" "head_dim must be in [2, 1048576], got number 2147483646" model --config "$in/headdim.json"
refused "num_hidden_layers 1e8" "num_hidden_layers must be in [1, 65536], got number 100000000" model --config "$in/layers.json"
refused "hidden_size 2^31-1" "hidden_size must be in [1, 1048576]" model --config "$in/width.json"
refused "num_attention_heads 1e6" "num_attention_heads must be in [1, 65536]" model --config "$in/heads.json"
refused "export rope-freqs, head_dim 2147483646" "head_dim must be in [2, 1048576]" export rope-freqs --config "$in/headdim.json" -o "$out/f.json"
refused "--head-dim 2147483646 (the flag, same limit)" "expected an integer in [2, 1048576]" export rope-freqs --head-dim 2147483646 -o "$out/f.json"

# --- Escaped and shortened input in messages ---------------------------------------------------
python3 -c "
import json, sys
json.dump({'model_type': '\x1b[2J\x1b[31mevil' + 'x' * 10000000}, open(sys.argv[1], 'w'))" "$in/escape.json"
refused "model_type with ANSI escapes and 10 MB" '\x1b[2j\x1b[31mevil' model --config "$in/escape.json"
huge=$(python3 -c "print('\x1b[2J' + 'n' * 100000)")
refused "--preset with escapes, 100 KB" 'unknown preset "\x1b[2Jnnn' model --preset "$huge"
refused "export VIEW with escapes, 100 KB" 'unknown view "\x1b[2Jnnn' export "$huge"
refused "examples NAME with escapes, 100 KB" 'unknown example "\x1b[2Jnnn' examples "$huge"
refused "window --preset with escapes" 'unknown preset "\x1b[2Jnnn' --preset "$huge" --screenshot "$out/s.png"

# --- Tables with NaN or infinity ---------------------------------------------------------------
python3 - "$in" <<'EOF'
import struct, sys
def npy(path, values, rows, cols):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += ' ' * (64 - 10 - len(header) - 1) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + struct.pack('<%df' % len(values), *values))
v = [0.5] * 12
v[6] = float('nan'); npy(sys.argv[1] + '/nan.npy', v, 3, 4)
v[6] = 0.5; v[11] = float('-inf'); npy(sys.argv[1] + '/inf.npy', v, 3, 4)
EOF
refused "--table with NaN" "holds nan at row 1, column 2 (element 6)" export learned --table "$in/nan.npy" -o "$out/t.csv"
refused "--table with -inf" "holds -inf at row 2, column 3 (element 11)" export learned --table "$in/inf.npy" -o "$out/t.npy"

# --- Names and budgets -------------------------------------------------------------------------
long="$out/$(printf 'n%.0s' $(seq 1 248)).png"   # 252 characters
if "$bin" export sinusoidal --d-model 8 --positions 4 -o "$long" 2>"$scratch/stderr" && [ -s "$long" ]; then
  ok "a 252-character output name works"
else
  fail "a 252-character output name: $(head -c 300 "$scratch/stderr")"
fi
rm -rf "$out" && mkdir -p "$out"
many=$(python3 -c "print(','.join(['1'] * 10000))")
refused "10,000 --multiples" "--multiples: got 10000 lengths, expected at most 32" export extrapolation --multiples "$many" -o "$out/x.json"
refused "a 100 KB --caption" "expected one line of at most 300 bytes" export sinusoidal --caption "$(python3 -c "print('c' * 100000)")" -o "$out/c.png"
refused "an SVG --caption with control characters" "has a control character at byte 1" export sinusoidal --caption "$(printf 'a\x1bb')" -o "$out/c.svg"

leftover=$(find "$scratch" -name '.posviz-*.tmp' | head -1)
[ -z "$leftover" ] && ok "no temporary file left anywhere" || fail "temporary file left: $leftover"
posviz_summary cli_hostile
