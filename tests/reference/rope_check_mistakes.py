# Run with /usr/bin/python3 (needs python3-torch and python3-numpy) from the repository root:
#   /usr/bin/python3 tests/reference/rope_check_mistakes.py
# Writes tests/data/rope-check/: RoPE tensors made the way Hugging Face transformers makes them
# (LlamaRotaryEmbedding, GPT-J's rotate_every_two, Phi-3's LongRoPE; modeling_rope_utils.py
# _compute_default_rope_parameters, _compute_llama3_parameters, _compute_longrope_parameters),
# in float32 torch, each case either right or with one mistake a person makes when writing them,
# plus manifest.json: the `posviz check` arguments of each case, the exit code and the mistake
# posviz must name. tests/scripts/check_cli.sh runs every case.
import json
import math
import os

import numpy as np
import torch

OUT = "tests/data/rope-check"
PRESETS = "assets/presets"


def default_inv_freq(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def llama3(inv_freq, factor, low_freq_factor, high_freq_factor, old_context_len):
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama)


def longrope(base, dim, ext):
    return 1.0 / (torch.tensor(ext, dtype=torch.float32) * base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def cos_sin(inv_freq, positions, interleaved=False, attention_scaling=1.0, sin_scaling=None):
    # LlamaRotaryEmbedding.forward: freqs = inv_freq @ position_ids in float32, emb = cat(freqs, freqs)
    freqs = positions.float()[:, None] * inv_freq[None, :]
    emb = torch.repeat_interleave(freqs, 2, dim=-1) if interleaved else torch.cat((freqs, freqs), dim=-1)
    s = attention_scaling if sin_scaling is None else sin_scaling
    return emb.cos() * attention_scaling, emb.sin() * s


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotate_every_two(x):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def rotate(q, inv_freq, positions, interleaved):
    rot = 2 * inv_freq.shape[0]
    cos, sin = cos_sin(inv_freq, positions, interleaved)
    q_rot, q_pass = q[..., :rot], q[..., rot:]
    turned = rotate_every_two(q_rot) if interleaved else rotate_half(q_rot)
    return torch.cat((q_rot * cos + turned * sin, q_pass), dim=-1)


def save(case, arrays):
    d = os.path.join(OUT, case)
    os.makedirs(d, exist_ok=True)
    for name, t in arrays.items():
        np.save(os.path.join(d, name + ".npy"), t.detach().numpy().astype(np.float32))


def main():
    manifest = []

    def add(case, preset, files, code, mistake, **arrays):
        save(case, arrays)
        manifest.append({"case": case, "preset": preset, "files": files, "exit": code, "mistake": mistake})

    pos = torch.arange(16)
    # Llama 3.1 8B: head_dim 128, rope_theta 500000, llama3 x8 (low 1, high 4, original 8192).
    l_inv = llama3(default_inv_freq(500000.0, 128), 8.0, 1.0, 4.0, 8192)
    c, s = cos_sin(l_inv, pos)
    add("llama31-inv-freq", "llama-3.1-8b", {"inv-freq": "inv_freq"}, 0, "", inv_freq=l_inv)
    add("llama31-cos-sin", "llama-3.1-8b", {"cos": "cos", "sin": "sin"}, 0, "", cos=c, sin=s)
    c, s = cos_sin(l_inv, pos, interleaved=True)
    add("llama31-repeat-interleave", "llama-3.1-8b", {"cos": "cos", "sin": "sin"}, 1, "layout-swapped", cos=c, sin=s)
    add("llama31-base-10000", "llama-3.1-8b", {"inv-freq": "inv_freq"}, 1, "wrong-base",
        inv_freq=llama3(default_inv_freq(10000.0, 128), 8.0, 1.0, 4.0, 8192))
    add("llama31-no-scaling", "llama-3.1-8b", {"inv-freq": "inv_freq"}, 1, "scaling-missing", inv_freq=default_inv_freq(500000.0, 128))
    add("llama31-scaling-twice", "llama-3.1-8b", {"inv-freq": "inv_freq"}, 1, "scaling-twice", inv_freq=llama3(l_inv, 8.0, 1.0, 4.0, 8192))
    c, s = cos_sin(l_inv, pos + 1)
    add("llama31-positions-from-1", "llama-3.1-8b", {"cos": "cos", "sin": "sin"}, 1, "position-offset", cos=c, sin=s)
    torch.manual_seed(0)
    q = torch.randn(16, 128)
    add("llama31-rotated", "llama-3.1-8b", {"q": "q", "rotated": "rotated"}, 0, "", q=q, rotated=rotate(q, l_inv, pos, False))
    add("llama31-rotated-interleaved", "llama-3.1-8b", {"q": "q", "rotated": "rotated"}, 1, "layout-swapped",
        q=q, rotated=rotate(q, l_inv, pos, True))

    # GPT-J 6B: head_dim 256, rotary_dim 64 (interleaved, rotate_every_two), base 10000.
    add("gptj-whole-head", "gpt-j-6b", {"inv-freq": "inv_freq"}, 1, "wrong-width", inv_freq=default_inv_freq(10000.0, 256))
    add("gptj-exponent-over-head", "gpt-j-6b", {"inv-freq": "inv_freq"}, 1, "wrong-width",
        inv_freq=default_inv_freq(10000.0, 256)[:32])
    g_inv = default_inv_freq(10000.0, 64)
    qg = torch.randn(16, 256)
    add("gptj-rotated", "gpt-j-6b", {"q": "q", "rotated": "rotated"}, 0, "", q=qg, rotated=rotate(qg, g_inv, pos, True))
    add("gptj-rotated-half-split", "gpt-j-6b", {"q": "q", "rotated": "rotated"}, 1, "layout-swapped",
        q=qg, rotated=rotate(qg, g_inv, pos, False))

    # Phi-3.5-mini: head_dim 96, LongRoPE short factors (16 positions < 4096), attention factor
    # sqrt(1 + ln(131072 / 4096) / ln(4096)).
    with open(os.path.join(PRESETS, "phi-3.5-mini-instruct.json")) as f:
        cfg = json.load(f)
    p_inv = longrope(10000.0, 96, cfg["rope_scaling"]["short_factor"])
    af = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))
    c, s = cos_sin(p_inv, pos, attention_scaling=af)
    add("phi35-cos-sin", "phi-3.5-mini-instruct", {"cos": "cos", "sin": "sin"}, 0, "", cos=c, sin=s)
    c, s = cos_sin(p_inv, pos)
    add("phi35-no-attention-factor", "phi-3.5-mini-instruct", {"cos": "cos", "sin": "sin"}, 1, "attention-factor-missing", cos=c, sin=s)
    c, s = cos_sin(p_inv, pos, attention_scaling=af, sin_scaling=1.0)
    add("phi35-factor-on-cos-only", "phi-3.5-mini-instruct", {"cos": "cos", "sin": "sin"}, 1, "attention-factor-misplaced", cos=c, sin=s)

    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
