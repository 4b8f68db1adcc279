#!/usr/bin/python3
"""The reference code posviz is measured against, timed on the benchmark sizes of bench_kernels.cpp.

PyTorch: the documents' own modules (the seed document 001: SinusoidalPositionalEncoding,
RotaryPositionalEmbedding with rotate_half, ALiBi), the complex-number RoPE of Meta's LLaMA
(torch.polar / torch.view_as_complex), nn.Embedding for a learned table, and rotate-then-matmul
for a score grid. numpy: the same computations written the plain numpy way. One thread each
(torch.set_num_threads(1), BLAS pinned to one thread), median of a few runs, output into fresh
tensors as the reference code does.

Also measures the PyTorch reference's max abs error at position 131072 against float64: it rounds
each angle pos * theta to float32 before sin/cos.

Prints one JSON object on stdout (progress on stderr):
  {"results": {workload: {"torch": items/s, "numpy": items/s}}, "errors": {...}, "versions": {...}}
Workload names and item counts match bench_kernels.cpp (cells written, or elements rotated).

Usage: /usr/bin/python3 bench/reference.py [--quick] [--only SUBSTRING]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

# One thread for every backend, set before numpy/torch load their thread pools.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(1)
torch.set_grad_enabled(False)


# [SECTION] the PyTorch code of Teaching Transformers to Count, verbatim apart from comments
class SinusoidalPositionalEncoding(torch.nn.Module):
    def __init__(self, d_model: int, max_len: int = 8192):
        super().__init__()
        assert d_model % 2 == 0, "d_model must be even for sin/cos pairs"
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1).float()
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))


class RotaryPositionalEmbedding(torch.nn.Module):
    def __init__(self, d_model: int, max_len: int = 8192, base: float = 10000.0):
        super().__init__()
        assert d_model % 2 == 0, "d_model must be even for RoPE pairs"
        inv_freq = 1.0 / (base ** (torch.arange(0, d_model, 2).float() / d_model))
        self.register_buffer("inv_freq", inv_freq)
        self._build_cache(max_len)

    def _build_cache(self, max_len: int):
        positions = torch.arange(max_len).float()
        freqs = torch.outer(positions, self.inv_freq)
        freqs = torch.cat([freqs, freqs], dim=-1)
        self.register_buffer("cos_cached", freqs.cos().unsqueeze(0).unsqueeze(0))
        self.register_buffer("sin_cached", freqs.sin().unsqueeze(0).unsqueeze(0))

    def forward(self, q, k, offset: int = 0):
        T = q.size(2)
        cos = self.cos_cached[:, :, offset:offset + T, :]
        sin = self.sin_cached[:, :, offset:offset + T, :]
        q_rotated = (q * cos) + (self._rotate_half(q) * sin)
        k_rotated = (k * cos) + (self._rotate_half(k) * sin)
        return q_rotated, k_rotated

    @staticmethod
    def _rotate_half(x):
        d_half = x.shape[-1] // 2
        x1 = x[..., :d_half]
        x2 = x[..., d_half:]
        return torch.cat([-x2, x1], dim=-1)


class ALiBi(torch.nn.Module):
    def __init__(self, n_heads: int, max_len: int = 8192):
        super().__init__()
        slopes = torch.tensor([1.0 / (2 ** (8 * h / n_heads)) for h in range(1, n_heads + 1)])
        positions = torch.arange(max_len)
        distance = (positions.unsqueeze(0) - positions.unsqueeze(1)).abs().float()
        bias = -slopes.view(-1, 1, 1) * distance.unsqueeze(0)
        self.register_buffer("bias", bias.unsqueeze(0))

    def forward(self, T: int):
        return self.bias[:, :, :T, :T]


# [SECTION] Meta LLaMA's complex-number RoPE (interleaved pairs), laid out (B, H, T, D)
def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)  # complex64


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    fc = freqs_cis.view(1, 1, *freqs_cis.shape)  # broadcast over (B, H)
    xq_out = torch.view_as_real(xq_ * fc).flatten(3)
    xk_out = torch.view_as_real(xk_ * fc).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


# [SECTION] numpy equivalents
def np_sinusoidal(max_len, d_model):
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    position = np.arange(max_len, dtype=np.float64)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2, dtype=np.float64) * (-math.log(10000.0) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def np_rope_cache(d_model, max_len, base=10000.0):
    inv_freq = 1.0 / (base ** (np.arange(0, d_model, 2, dtype=np.float32) / d_model))
    freqs = np.outer(np.arange(max_len, dtype=np.float32), inv_freq)
    freqs = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(freqs)[None, None], np.sin(freqs)[None, None]


def np_rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def np_rope_apply(q, k, cos, sin):
    return q * cos + np_rotate_half(q) * sin, k * cos + np_rotate_half(k) * sin


def np_rope_complex(q, k, freqs_cis):
    def rot(x):
        xc = np.ascontiguousarray(x).view(np.complex64)  # pairs (2i, 2i+1) as one complex
        return (xc * freqs_cis[None, None]).view(np.float32)
    return rot(q), rot(k)


def np_alibi(n_heads, max_len):
    slopes = np.array([1.0 / (2 ** (8 * h / n_heads)) for h in range(1, n_heads + 1)], dtype=np.float32)
    positions = np.arange(max_len)
    distance = np.abs(positions[None, :] - positions[:, None]).astype(np.float32)
    return -slopes[:, None, None] * distance[None]


# [SECTION] timing
def measure(fn, items, repeats):
    fn()  # warm-up: allocator, caches, lazy init
    times = []
    budget = time.perf_counter() + 3.0
    for i in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if i >= 2 and time.perf_counter() > budget:
            break
    return items / statistics.median(times)


def workloads():
    """(name, items, torch fn, numpy fn) with inputs built outside the timed functions."""
    out = []
    for rows, d in ((8192, 1024), (131072, 128)):
        out.append((f"sinusoidal_{rows}x{d}", rows * d,
                    lambda rows=rows, d=d: SinusoidalPositionalEncoding(d, max_len=rows),
                    lambda rows=rows, d=d: np_sinusoidal(rows, d)))

    heads, tokens, hd = 32, 4096, 128
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(1, heads, tokens, hd, generator=gen)
    k = torch.randn(1, heads, tokens, hd, generator=gen)
    qn, kn = q.numpy(), k.numpy()
    rope = RotaryPositionalEmbedding(hd, max_len=tokens)
    cos_n, sin_n = np_rope_cache(hd, tokens)
    out.append(("rope_apply_halfsplit", 2 * q.numel(), lambda: rope(q, k), lambda: np_rope_apply(qn, kn, cos_n, sin_n)))
    freqs_cis = precompute_freqs_cis(hd, tokens)
    freqs_cis_n = freqs_cis.numpy()
    out.append(("rope_apply_interleaved", 2 * q.numel(), lambda: apply_rotary_emb(q, k, freqs_cis),
                lambda: np_rope_complex(qn, kn, freqs_cis_n)))

    out.append(("alibi_32x2048x2048", 32 * 2048 * 2048, lambda: ALiBi(32, max_len=2048), lambda: np_alibi(32, 2048)))

    t = 16384
    qv = torch.randn(1, 1, 1, hd, generator=gen)
    kv = torch.randn(1, 1, 1, hd, generator=gen)
    rope_t = RotaryPositionalEmbedding(hd, max_len=t)
    cos_t, sin_t = np_rope_cache(hd, t)
    qvn, kvn = qv.numpy(), kv.numpy()

    def torch_scores():
        qr, kr = rope_t(qv.expand(1, 1, t, hd), kv.expand(1, 1, t, hd))
        return qr[0, 0] @ kr[0, 0].T

    def numpy_scores():
        qr, kr = np_rope_apply(np.broadcast_to(qvn, (1, 1, t, hd)), np.broadcast_to(kvn, (1, 1, t, hd)), cos_t, sin_t)
        return qr[0, 0] @ kr[0, 0].T

    out.append(("score_grid_16384", t * t, torch_scores, numpy_scores))

    rows, d = 8192, 1024
    emb = torch.nn.Embedding(rows, d)
    table_n = emb.weight.detach().numpy().copy()
    pos_t = torch.arange(rows)
    pos_n = np.arange(rows)
    out.append(("learned_lookup_8192x1024", rows * d, lambda: emb(pos_t), lambda: table_n[pos_n]))
    return out


def reference_errors():
    """Max abs error of the PyTorch reference at position 131072 against float64."""
    pos, d = 131072, 128
    pe = SinusoidalPositionalEncoding(d, max_len=pos + 1).pe[0, pos].double().numpy()
    i = np.arange(0, d, 2, dtype=np.float64)
    w = np.exp(i * (-math.log(10000.0) / d))
    exact = np.empty(d)
    exact[0::2] = np.sin(pos * w)
    exact[1::2] = np.cos(pos * w)
    rope = RotaryPositionalEmbedding(d, max_len=pos + 1)
    inv = 1.0 / (10000.0 ** (i / d))
    exact_cos = np.cos(pos * np.concatenate([inv, inv]))
    return {
        "sinusoidal_pos131072_d128_torch_max_abs_error": float(np.max(np.abs(pe - exact))),
        "rope_cos_pos131072_d128_torch_max_abs_error":
            float(np.max(np.abs(rope.cos_cached[0, 0, pos].double().numpy() - exact_cos))),
        "sinusoidal_pos131072_d128_numpy_max_abs_error":
            float(np.max(np.abs(np_sinusoidal(pos + 1, d)[pos].astype(np.float64) - exact))),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 runs per workload instead of 7")
    ap.add_argument("--only", default="", help="run only workloads whose name contains this")
    args = ap.parse_args()
    repeats = 3 if args.quick else 7
    results = {}
    for name, items, torch_fn, numpy_fn in workloads():
        if args.only not in name:
            continue
        print(f"reference: {name}", file=sys.stderr, flush=True)
        results[name] = {"torch": measure(torch_fn, items, repeats), "numpy": measure(numpy_fn, items, repeats)}
    report = {
        "results": results,
        "errors": reference_errors(),
        "versions": {"torch": torch.__version__, "numpy": np.__version__, "torch_threads": torch.get_num_threads()},
    }
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
