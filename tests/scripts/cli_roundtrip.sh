#!/usr/bin/env bash
# CLI round trips through the real binary: every export is read back and checked against values
# computed independently here (numpy when python3 has it, else the python3 standard
# library; the .npy and .png headers are also checked with od, which needs neither).
# POSVIZ_TEST_NO_NUMPY=1 forces the standard-library path.
#   bash cli_roundtrip.sh <posviz-binary> <scratch-dir>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need python3
bin=${1:?usage: cli_roundtrip.sh POSVIZ SCRATCH}
out=${2:?usage: cli_roundtrip.sh POSVIZ SCRATCH}
rm -rf "$out" && mkdir -p "$out" || exit 1
failures=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
run() {  # run NAME ARGS...: export must exit 0 with nothing on stdout or stderr
  local name=$1; shift
  if timeout 120 "$bin" "$@" >"$out/stdout" 2>"$out/stderr" && [ ! -s "$out/stdout" ] && [ ! -s "$out/stderr" ]; then
    pass "$name exits 0, quiet"
  else
    fail "$name (stdout: $(head -c 300 "$out/stdout"); stderr: $(head -c 300 "$out/stderr"))"
  fi
}

py=python3
have_numpy=0
if [ "${POSVIZ_TEST_NO_NUMPY:-0}" != 1 ] && [ -n "$py" ] && "$py" -c 'import numpy' 2>/dev/null; then
  have_numpy=1
  echo "INFO: checking numbers with numpy ($("$py" -c 'import numpy; print(numpy.__version__)'))"
else
  echo "INFO: numpy not available (or POSVIZ_TEST_NO_NUMPY=1): checking numbers with the python3 standard library"
fi

# A .npy reader and checks that need only the standard library (used when numpy is missing, and
# always for the header checks).
cat >"$out/npycheck.py" <<'EOF'
import ast, json, math, struct, sys

def load(path):
    b = open(path, 'rb').read()
    assert b[:6] == b'\x93NUMPY', 'bad magic'
    if b[6] == 1:
        hl = struct.unpack('<H', b[8:10])[0]; start = 10
    else:
        hl = struct.unpack('<I', b[8:12])[0]; start = 12
    h = ast.literal_eval(b[start:start + hl].decode('latin1'))
    assert (start + hl) % 16 == 0, 'header not 16-byte aligned'
    n = 1
    for s in h['shape']:
        n *= s
    fmt = {'<f4': 'f', '<f8': 'd'}[h['descr']]
    body = b[start + hl:]
    assert len(body) == n * struct.calcsize(fmt), 'body size %d for %d values' % (len(body), n)
    assert h['fortran_order'] is False
    return tuple(h['shape']), h['descr'], list(struct.unpack('<%d%s' % (n, fmt), body))

def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(b))

cmd = sys.argv[1]
if cmd == 'sinusoidal':   # path positions d_model base descr tol
    path, T, d, base, descr, tol = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6], float(sys.argv[7])
    shape, dt, v = load(path)
    assert shape == (T, d), shape
    assert dt == descr, dt
    for p in range(T):
        for i in range(d // 2):
            w = base ** (-2.0 * i / d)
            assert close(v[p * d + 2 * i], math.sin(p * w), tol), (p, i, v[p * d + 2 * i])
            assert close(v[p * d + 2 * i + 1], math.cos(p * w), tol), (p, i)
elif cmd == 'shape':      # path shape...
    shape, dt, v = load(sys.argv[2])
    want = tuple(int(x) for x in sys.argv[3:])
    assert shape == want, (shape, want)
elif cmd == 'alibi':      # path heads positions: causal bias with -inf above the diagonal
    shape, dt, v = load(sys.argv[2])
    H, T = int(sys.argv[3]), int(sys.argv[4])
    assert shape == (H, T, T), shape
    for h in range(H):
        m = 2.0 ** (-8.0 * (h + 1) / H)  # power-of-two head count
        for i in range(T):
            for j in range(T):
                x = v[(h * T + i) * T + j]
                if j > i:
                    assert math.isinf(x) and x < 0, (h, i, j, x)
                else:
                    assert close(x, -m * (i - j), 1e-6), (h, i, j, x)
elif cmd == 'csv-equals-npy':  # csv npy
    rows = [l for l in open(sys.argv[2]) if not l.startswith('#')]
    flat = [float(x) for l in rows for x in l.strip().split(',')]
    shape, dt, v = load(sys.argv[3])
    assert len(flat) == len(v), (len(flat), len(v))
    if dt == '<f4':  # the csv holds float32's shortest text: round it back to float32
        flat = [struct.unpack('<f', struct.pack('<f', x))[0] for x in flat]
    assert all(a == b for a, b in zip(flat, v)), 'csv and npy differ'
elif cmd == 'rotate':     # json: q at 5, k at 2, theta 1 -> score cos(3)
    j = json.load(open(sys.argv[2]))
    assert close(j['score'], math.cos(3.0), 1e-12), j['score']
    assert close(j['q'][0], math.cos(5.0), 1e-12) and close(j['q'][1], math.sin(5.0), 1e-12), j['q']
    assert close(j['k'][0], math.cos(2.0), 1e-12) and close(j['k'][1], math.sin(2.0), 1e-12), j['k']
elif cmd == 'llama3':     # json of rope-freqs --preset llama-3.1-8b (float64)
    j = json.load(open(sys.argv[2]))
    inv, reg = j['inv_freq'], j['regime']
    assert len(inv) == 64 and len(reg) == 64
    assert j['attention_factor'] == 1.0 and j['method'] == 'llama3'
    for i in range(64):
        base = 500000.0 ** (-2.0 * i / 128)
        wl = 2 * math.pi / base
        if wl < 8192 / 4.0:
            assert reg[i] == 'kept' and close(inv[i], base, 1e-12), (i, inv[i], base)
        elif wl > 8192 / 1.0:
            assert reg[i] == 'interpolated' and close(inv[i], base / 8, 1e-12), (i, inv[i])
        else:
            s = (8192 / wl - 1.0) / (4.0 - 1.0)
            assert reg[i] == 'blended' and close(inv[i], (1 - s) * base / 8 + s * base, 1e-12), (i, inv[i])
else:
    raise SystemExit('unknown check ' + cmd)
EOF

pycheck() {  # pycheck NAME ARGS...
  local name=$1; shift
  if "$py" "$out/npycheck.py" "$@" >"$out/py.log" 2>&1; then pass "$name"; else fail "$name: $(tail -3 "$out/py.log")"; fi
}

# 1. sinusoidal .npy: shape (positions, d_model), values = sin/cos(pos * base^(-2i/d)).
run "sinusoidal f32" export sinusoidal --d-model 16 --positions 40 -o "$out/pe.npy"
run "sinusoidal f64" export sinusoidal --d-model 16 --positions 40 --dtype f64 -o "$out/pe64.npy"
run "sinusoidal csv" export sinusoidal --d-model 16 --positions 40 -o "$out/pe.csv"
if [ "$(head -c 6 "$out/pe.npy" | od -An -c | tr -d ' \n')" = "223NUMPY" ]; then pass "pe.npy has the .npy magic"; else fail "pe.npy magic"; fi
if head -c 128 "$out/pe.npy" | grep -q "'shape': (40, 16)"; then pass "pe.npy header says shape (40, 16)"; else fail "pe.npy header shape"; fi
if head -c 128 "$out/pe64.npy" | grep -q "'descr': '<f8'"; then pass "pe64.npy is float64"; else fail "pe64.npy dtype"; fi
if [ "$have_numpy" = 1 ]; then
  if "$py" - "$out" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
a = np.load(d + '/pe.npy'); b = np.load(d + '/pe64.npy')
assert a.shape == (40, 16) and a.dtype == np.float32 and b.dtype == np.float64, (a.shape, a.dtype, b.dtype)
pos = np.arange(40)[:, None]; w = 10000.0 ** (-np.arange(0, 16, 2) / 16.0)
ref = np.zeros((40, 16)); ref[:, 0::2] = np.sin(pos * w); ref[:, 1::2] = np.cos(pos * w)
assert np.allclose(b, ref, rtol=0, atol=1e-12), np.abs(b - ref).max()
assert np.allclose(a, ref, rtol=0, atol=1e-6), np.abs(a - ref).max()
assert abs(a[3, 0] - np.sin(3.0)) < 1e-7
c = np.loadtxt(d + '/pe.csv', delimiter=',')
assert c.shape == (40, 16) and np.array_equal(c.astype(np.float32), a)
EOF
  then pass "numpy: sinusoidal f32/f64/csv equal the formula"; else fail "numpy: sinusoidal"; fi
else
  pycheck "sinusoidal f32 equals the formula" sinusoidal "$out/pe.npy" 40 16 10000 '<f4' 1e-6
  pycheck "sinusoidal f64 equals the formula" sinusoidal "$out/pe64.npy" 40 16 10000 '<f8' 1e-12
  pycheck "sinusoidal csv equals the npy" csv-equals-npy "$out/pe.csv" "$out/pe.npy"
fi
# Without python at all the .csv still shows PE(3, 0) = sin(3) = 0.14112.
if sed -n '5p' "$out/pe.csv" | grep -q '^0\.14112'; then pass "csv row 3 starts with sin(3) = 0.14112"; else fail "csv row 3: $(sed -n '5p' "$out/pe.csv" | cut -c1-40)"; fi

# 2. rope-freqs of Llama 3.1 8B: the llama3 rule pair by pair.
run "rope-freqs llama-3.1-8b" export rope-freqs --preset llama-3.1-8b --dtype f64 -o "$out/freqs.json"
pycheck "rope-freqs follows Llama 3.1's apply_scaling" llama3 "$out/freqs.json"
run "rope-freqs npy" export rope-freqs --preset llama-3.1-8b -o "$out/freqs.npy"
pycheck "rope-freqs npy is (64,)" shape "$out/freqs.npy" 64

# 3. rope-rotate: theta = 1 rad (head_dim 2), q at 5, k at 2, score cos(3).
run "rope-rotate" export rope-rotate --q 1,0 --k 1,0 --position 5 --key-position 2 --dtype f64 -o "$out/rot.json"
pycheck "rope-rotate json has rotated q, k and score cos(3)" rotate "$out/rot.json"

# 4. ALiBi.
run "alibi-bias causal" export alibi-bias --heads 4 --positions 6 --causal -o "$out/bias.npy"
pycheck "alibi-bias is (4, 6, 6), -m*(i-j) with -inf above the diagonal" alibi "$out/bias.npy" 4 6
run "alibi-slopes" export alibi-slopes --preset mpt-7b -o "$out/slopes.npy"
pycheck "alibi-slopes of mpt-7b is (32,)" shape "$out/slopes.npy" 32
run "learned gpt2" export learned --preset gpt2 --positions 8 -o "$out/gpt2.npy"
pycheck "learned gpt2 is (8, 768)" shape "$out/gpt2.npy" 8 768
run "attention" export attention --text "dog bites man" --encoding alibi -o "$out/att.json"
if grep -q '"weights"' "$out/att.json" && grep -q '"output"' "$out/att.json"; then pass "attention json has weights and output"; else fail "attention json keys"; fi

# 5. PNG: signature and IHDR size (big-endian width, height at bytes 16..23).
png_size() { od -An -tu1 -j16 -N8 "$1" | tr -s ' ' | sed 's/^ //'; }
png_width() { od -An -tu4 --endian=big -j16 -N4 "$1" | tr -d ' '; }
png_height() { od -An -tu4 --endian=big -j20 -N4 "$1" | tr -d ' '; }
run "png" export rope-angles --head-dim 32 --positions 24 --scale 3 --no-colorbar --no-axis-titles --no-caption -o "$out/angles.png"
sig=$(head -c 8 "$out/angles.png" | od -An -tx1 | tr -d ' \n')
wh=$(png_size "$out/angles.png")
if [ "$sig" = "89504e470d0a1a0a" ] && [ "$wh" = "0 0 0 48 0 0 0 72" ]; then
  pass "angles.png is a PNG of 48 x 72 (16 pairs x 24 positions, scale 3, no decorations)"
else
  fail "angles.png signature $sig size bytes $wh"
fi
run "png --plain" export rope-angles --head-dim 32 --positions 24 --plain -o "$out/plain.png"
if [ "$(png_size "$out/plain.png")" = "0 0 0 16 0 0 0 24" ]; then pass "--plain is one pixel per cell: 16 x 24"; else fail "--plain size $(png_size "$out/plain.png")"; fi
# The default is a picture for people: 24 rows scaled by ceil(512 / 24) = 22 to 528 px, with margins.
run "png default" export rope-angles --head-dim 32 --positions 24 -o "$out/readable.png"
w=$(png_width "$out/readable.png"); h=$(png_height "$out/readable.png")
if [ "$w" -gt 352 ] && [ "$h" -gt 528 ]; then pass "default png is readable: $w x $h"; else fail "default png size $w x $h"; fi

# 6. Help, version, and the progress bar only when asked.
help=$("$bin" --help); view_help=$("$bin" export rope-rotate --help)   # whole: grep -q may close a pipe early
if grep -q "alibi-bias" <<<"$help" && grep -q -- "--key-position" <<<"$view_help"; then pass "help documents views and options"; else fail "help text"; fi
if grep -q "^posviz [0-9]" <<<"$("$bin" --version)"; then pass "--version"; else fail "--version"; fi
if "$bin" export sinusoidal --positions 64 --progress -o "$out/p.npy" 2>"$out/progress.txt" >/dev/null && grep -q "100%" "$out/progress.txt"; then
  pass "--progress draws a bar on stderr"
else
  fail "--progress: $(head -c 200 "$out/progress.txt")"
fi
leftover=$(find "$out" -name '.posviz-*.tmp' | head -1)
if [ -z "$leftover" ]; then pass "no temporary files left"; else fail "temporary file left: $leftover"; fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
