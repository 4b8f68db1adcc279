# Run with /usr/bin/python3 (needs python3-numpy): prints the reference values used in tests/core/test_context_extension.cpp.
# HF modeling_rope_utils formulas re-evaluated in float64 (numpy), for posviz reference values.
import math, numpy as np
np.set_printoptions(precision=17)
def default(base, dim):
    return 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim))
def yarn(base, dim, factor, L0, beta_fast=32, beta_slow=1, truncate=True, attention_factor=None, mscale=None, mscale_all_dim=None):
    def get_mscale(scale, m=1):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0
    if attention_factor is None:
        attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) if (mscale and mscale_all_dim) else get_mscale(factor)
    def fcd(nr): return (dim * math.log(L0 / (nr * 2 * math.pi))) / (2 * math.log(base))
    low, high = fcd(beta_fast), fcd(beta_slow)
    if truncate: low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high: high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    pos = base ** (np.arange(0, dim, 2).astype(np.float64) / dim)
    extra = 1.0 / pos; inter = 1.0 / (factor * pos)
    ef = 1 - ramp
    return inter * (1 - ef) + extra * ef, attention_factor, low, high
def llama3(base, dim, factor, low_ff, high_ff, L0):
    inv = default(base, dim)
    lw = L0 / low_ff; hw = L0 / high_ff
    wl = 2 * math.pi / inv
    out = np.where(wl > lw, inv / factor, inv)
    s = (L0 / wl - low_ff) / (high_ff - low_ff)
    sm = (1 - s) * out / factor + s * out
    med = ~(wl < hw) * ~(wl > lw)
    return np.where(med, sm, out), wl, s
def dynamic(base, dim, factor, L0, seq_len):
    seq_len = seq_len if seq_len is not None and seq_len > L0 else L0
    b = base * ((factor * seq_len / L0) - (factor - 1)) ** (dim / (dim - 2))
    return 1.0 / (b ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim)), b
def longrope(base, dim, short, long, L0, factor, seq_len, attention_factor=None):
    if attention_factor is None:
        attention_factor = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(L0))
    ext = np.array(long if (seq_len and seq_len > L0) else short, dtype=np.float64)
    return 1.0 / (ext * base ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float64) / dim)), attention_factor

f = lambda v: "%.12g" % v
print("ntk base d128 f4:", f(10000 * 4 ** (128 / 126)))
inv, af, lo, hi = yarn(10000.0, 128, 4.0, 4096)
print("yarn d128 b1e4 f4 L0 4096 32/1: low", lo, "high", hi, "af", f(af))
for i in [0, 15, 16, 17, 20, 25, 30, 40, 41, 63]: print("  yarn pair", i, f(inv[i]), "plain", f(default(10000.0,128)[i]))
inv, af, lo, hi = yarn(10000.0, 128, 4.0, 4096, truncate=False)
print("yarn truncate=False: low", f(lo), "high", f(hi))
for i in [16, 20, 30, 40]: print("  yarn nt pair", i, f(inv[i]))
print("yarn deepseek af:", f(yarn(10000.0, 64, 40.0, 4096, mscale=1, mscale_all_dim=1)[1]), f(yarn(10000.0, 64, 40.0, 4096, mscale=0.707, mscale_all_dim=0.707)[1]), f(yarn(10000.0, 64, 40.0, 4096, mscale=1, mscale_all_dim=0)[1]), f(yarn(10000.0, 64, 40.0, 4096, mscale=1.0, mscale_all_dim=0.5)[1]))
inv, wl, s = llama3(500000.0, 128, 8.0, 1.0, 4.0, 8192)
for i in range(40, 56): print("  llama3 pair", i, "wl", f(wl[i]), "s", f(s[i]), "inv", f(inv[i]), "plain", f(default(500000.0,128)[i]))
inv, b = dynamic(10000.0, 64, 2.0, 2048, 5000)
print("dynamic d64 f2 L0 2048 seq 5000 base", f(b))
for i in [0, 1, 16, 31]: print("  dyn pair", i, f(inv[i]))
short = [1.0, 1.05, 1.2, 1.5]; long = [1.0, 2.0, 8.0, 16.0]
for sl in [0, 4096, 4097]:
    inv, af = longrope(10000.0, 8, short, long, 4096, 32.0, sl)
    print("longrope d8 seq", sl, "af", f(af), [f(v) for v in inv])
inv, wl, s = llama3(500000.0, 128, 8.0, 1.0, 4.0, 8192)
for i in range(24, 40): print("  llama3 pair", i, "wl", f(wl[i]), "s", f(s[i]), "inv", f(inv[i]), "plain", f(default(500000.0,128)[i]))
inv, af, lo, hi = yarn(10000.0, 128, 4.0, 4096)
ramp = np.clip((np.arange(64) - lo) / (hi - lo), 0, 1)
print("yarn ramp 21, 33, 45:", f(ramp[21]), f(ramp[33]), f(ramp[45]))
