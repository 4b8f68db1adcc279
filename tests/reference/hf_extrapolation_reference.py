# Run with /usr/bin/python3 (needs python3-torch): prints the reference values used in
# tests/core/test_extrapolation.cpp (the unseen-angle shares of the extrapolation lab).
# Inverse frequencies restate Hugging Face transformers src/transformers/modeling_rope_utils.py
# (_compute_default_rope_parameters, _compute_linear_scaling_rope_parameters,
# _compute_yarn_parameters, _compute_llama3_parameters) in float64 torch tensors; the unseen
# share is counted by brute force over every position, not with the lab's closed form.
import math, torch
torch.set_default_dtype(torch.float64)

def default(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float64) / dim))

def linear(base, dim, factor):
    return default(base, dim) / factor

def ntk_aware(base, dim, factor):   # bloc97's NTK-aware scaling: base' = base * factor^(d/(d-2))
    return default(base * factor ** (dim / (dim - 2)), dim)

def yarn(base, dim, factor, L0, beta_fast=32, beta_slow=1):
    def find_correction_dim(num_rotations):
        return (dim * math.log(L0 / (num_rotations * 2 * math.pi))) / (2 * math.log(base))
    low = max(math.floor(find_correction_dim(beta_fast)), 0)
    high = min(math.ceil(find_correction_dim(beta_slow)), dim - 1)
    if low == high: high += 0.001
    pos_freqs = base ** (torch.arange(0, dim, 2).to(torch.float64) / dim)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
    extrapolation_factor = 1 - ramp
    inv = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor
    return inv, 0.1 * math.log(factor) + 1.0

def llama3(base, dim, factor, L0, low_ff=1.0, high_ff=4.0):
    inv = default(base, dim)
    low_wl, high_wl = L0 / low_ff, L0 / high_ff
    wl = 2 * math.pi / inv
    out = torch.where(wl > low_wl, inv / factor, inv)
    smooth = (L0 / wl - low_ff) / (high_ff - low_ff)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wl < high_wl) * ~(wl > low_wl)
    return torch.where(medium, smoothed, out)

def unseen(trained_inv, inv, L0, L):
    span = (L0 - 1) * trained_inv
    p = torch.arange(L, dtype=torch.float64)[:, None]
    # unseen: the angle mod 2 pi lies past the arc [0, span] swept in training
    seen_end = span[None, :] * (1 + 1e-9)
    new = (torch.remainder(p * inv[None, :], 2 * math.pi) > seen_end) & (seen_end < 2 * math.pi)
    per_pair = new.to(torch.float64).mean(dim=0)
    return per_pair, per_pair.mean().item(), int((per_pair > 0).sum().item())

d, base, L0, L, s = 128, 10000.0, 4096, 16384, 4.0
plain = default(base, d)
full = int(((L0 - 1) * plain >= 2 * math.pi).sum().item())
print("pairs with the whole circle seen:", full, "of", d // 2)
for name, inv in [("none", plain), ("linear", linear(base, d, s)), ("ntk", ntk_aware(base, d, s)),
                  ("yarn", yarn(base, d, s, L0)[0]), ("llama3", llama3(base, d, s, L0))]:
    pp, mean, count = unseen(plain, inv, L0, L)
    print("%-7s mean %.12g pairs %d  pair63 %.12g  pair40 %.12g" % (name, mean, count, pp[63].item(), pp[40].item()))
print("yarn attention factor %.12g" % yarn(base, d, s, L0)[1])
