# Run with /usr/bin/python3 (needs python3-torch, Debian's PyTorch 1.13): prints the reference values
# restated in tests/train/test_reference.cpp.
#
# The model of core/train/config.hpp written again in PyTorch, float64, with autograd for the
# gradients: pre-LayerNorm decoder, causal softmax attention, GELU MLP, and every positional scheme
# written from its paper's or reference code's own formulas (no posviz code):
#   rope       1 / base^(arange(0, rd, 2) / rd); half-split rotate_half (GPT-NeoX / HF) or
#              interleaved pairs (RoFormer), on the first rd = 2 floor(fraction * head_dim / 2) dims
#   xpos       torchscale's XPOS: scale = (arange(0, d, 2) + 0.4 d) / (1.4 d), q times
#              scale^(n / scale_base), k times scale^(-n / scale_base), interleaved rotation
#   alibi      Press et al.'s get_slopes, bias -m (i - j)
#   t5         HF T5Attention._relative_position_bucket (bidirectional=False) on j - i
#   fire       log(c x + 1) normalised by its value at max(L, i), then a 1 -> hidden -> 1 ReLU MLP
#   kerple     -r1 log(1 + r2 (i - j)) (log) or -r1 (i - j)^r2 (power)
#   sinusoidal PE(p, 2i) = sin(p base^(-2i/D)), PE(p, 2i+1) = cos(...)
# Weights come from a formula of each tensor's name and index (value() below), which the C++ test
# evaluates the same way, so both sides start from the same numbers without sharing a file.
# Printed per scheme: the loss, and per tensor sum_i grad[i] * sin(0.5 i + 0.3) (a probe that
# any wrong entry, layout or sign changes).
import math

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)

V, D, H, NL, FF, P = 7, 16, 2, 2, 8, 8
HD = D // H
TOKENS = torch.tensor([[1, 3, 4, 5, 2, 3, 4], [1, 6, 3, 2, 6, 0, 0]])
TARGETS = torch.tensor([[3, 4, 5, 2, 3, 4, 5], [6, 3, 2, 6, 3, 0, 0]])
MASK = torch.tensor([[0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 1, 0, 0]], dtype=torch.bool)

CASES = [
    ("nope", dict(scheme="nope")),
    ("sinusoidal", dict(scheme="sinusoidal", base=100.0)),
    ("learned", dict(scheme="learned")),
    ("rope-half", dict(scheme="rope", base=100.0, layout="half", fraction=1.0)),
    ("rope-interleaved-partial", dict(scheme="rope", base=50.0, layout="interleaved", fraction=0.5)),
    ("alibi", dict(scheme="alibi")),
    ("t5", dict(scheme="t5", buckets=8, max_distance=16)),
    ("fire", dict(scheme="fire", hidden=4, c=0.5, L=4.0)),
    ("kerple-log", dict(scheme="kerple", kernel="log")),
    ("kerple-power", dict(scheme="kerple", kernel="power")),
    ("xpos", dict(scheme="xpos", base=100.0, scale_base=8.0)),
    ("rope-dropped", dict(scheme="nope")),
    ("nope-relu", dict(scheme="nope", act="relu")),
    ("alibi-no-mlp", dict(scheme="alibi", mlp=False)),
]


def name_hash(name):
    return sum((k + 1) * ord(ch) for k, ch in enumerate(name)) % 1009


def value(name, shape, i):
    u = math.sin(0.37 * i + 0.011 * name_hash(name) + 0.2)
    if name in ("ln_f.weight",) or name.endswith("ln1.weight") or name.endswith("ln2.weight"):
        return 1.0 + 0.1 * u
    if name.endswith(".bias"):
        return 0.1 * u
    if name == "tok_emb.weight":
        return u
    if name in ("pos_emb.weight", "t5_bias.weight"):
        return 0.5 * u
    if name.endswith("fire.w1") or name.endswith("fire.b1"):
        return u
    if name.endswith("fire.w2"):
        return 0.5 * u
    if name.endswith("fire.b2"):
        return 0.1 * u
    if name.endswith("kerple.r1"):
        return 0.5 + 0.3 * u
    if name.endswith("kerple.r2"):
        return 0.8 + 0.3 * u
    return u / math.sqrt(shape[0])


def tensor_list(cfg):
    s = cfg["scheme"]
    out = [("tok_emb.weight", [V, D])]
    if s == "learned":
        out.append(("pos_emb.weight", [P, D]))
    if s == "t5":
        out.append(("t5_bias.weight", [cfg["buckets"], H]))
    for l in range(NL):
        p = f"layers.{l}."
        out += [(p + "ln1.weight", [D]), (p + "ln1.bias", [D])]
        out += [(p + f"attn.{m}.weight", [D, D]) for m in "qkvo"]
        if cfg.get("mlp", True):
            out += [(p + "ln2.weight", [D]), (p + "ln2.bias", [D]), (p + "mlp.fc1.weight", [D, FF]),
                    (p + "mlp.fc1.bias", [FF]), (p + "mlp.fc2.weight", [FF, D]), (p + "mlp.fc2.bias", [D])]
        if s == "fire":
            out += [(p + f"fire.{m}", [H, cfg["hidden"]]) for m in ("w1", "b1", "w2")] + [(p + "fire.b2", [H])]
        if s == "kerple":
            out += [(p + "kerple.r1", [H]), (p + "kerple.r2", [H])]
    out += [("ln_f.weight", [D]), ("ln_f.bias", [D]), ("head.weight", [D, V])]
    return out


def make_params(cfg):
    params = {}
    for name, shape in tensor_list(cfg):
        n = math.prod(shape)
        t = torch.tensor([value(name, shape, i) for i in range(n)]).reshape(shape)
        params[name] = t.requires_grad_(True)
    return params


def alibi_slopes(n):
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    p = 2 ** math.floor(math.log2(n))
    return power_of_2(p) + alibi_slopes(2 * p)[0::2][: n - p]


def t5_bucket(relative_position, num_buckets, max_distance):
    # HF T5Attention._relative_position_bucket, bidirectional=False.
    relative_buckets = 0
    relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    rel_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    rel_if_large = torch.min(rel_if_large, torch.full_like(rel_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, rel_if_large)
    return relative_buckets


def position_bias(cfg, params, layer, T):
    s = cfg["scheme"]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    dist = (i - j).clamp(min=0).to(torch.float64)
    if s == "alibi":
        m = torch.tensor(alibi_slopes(H))[:, None, None]
        return -m * dist
    if s == "t5":
        with torch.no_grad():
            rel = (j - i).expand(T, T)
            old = torch.get_default_dtype()
            torch.set_default_dtype(torch.float32)  # the bucket's log in float32, as HF runs it
            b = t5_bucket(rel, cfg["buckets"], cfg["max_distance"])
            torch.set_default_dtype(old)
        return params["t5_bias.weight"][b].permute(2, 0, 1)
    if s == "fire":
        c, L = cfg["c"], cfg["L"]
        psi = lambda x: torch.log(c * x + 1.0)
        x = psi(dist) / (psi(torch.clamp(i.to(torch.float64), min=L)) + 1e-6)  # T x T
        p = f"layers.{layer}."
        w1, b1, w2, b2 = (params[p + f"fire.{m}"] for m in ("w1", "b1", "w2", "b2"))
        z = torch.relu(x[None, :, :, None] * w1[:, None, None, :] + b1[:, None, None, :])  # H T T hidden
        return (z * w2[:, None, None, :]).sum(-1) + b2[:, None, None]
    if s == "kerple":
        p = f"layers.{layer}."
        r1 = params[p + "kerple.r1"][:, None, None]
        r2 = params[p + "kerple.r2"][:, None, None]
        if cfg["kernel"] == "log":
            return -r1 * torch.log(1 + r2 * dist)
        safe = torch.where(dist > 0, dist, torch.ones_like(dist))
        return torch.where(dist > 0, -r1 * safe ** r2, torch.zeros_like(dist) * r2)
    return None


def rotate(cfg, x, query):
    # x: B H T HD
    T = x.shape[2]
    pos = torch.arange(T, dtype=torch.float64)
    s = cfg["scheme"]
    if s == "rope":
        rd = int(HD * cfg["fraction"])
        rd -= rd % 2
        inv = 1.0 / (cfg["base"] ** (torch.arange(0, rd, 2, dtype=torch.float64) / rd))
        ang = pos[:, None] * inv[None, :]
        cos, sin = torch.cos(ang), torch.sin(ang)
        xr, xp = x[..., :rd], x[..., rd:]
        if cfg["layout"] == "half":
            x1, x2 = xr[..., : rd // 2], xr[..., rd // 2:]
            out = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
        else:
            x1, x2 = xr[..., 0::2], xr[..., 1::2]
            out = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
        return torch.cat([out, xp], dim=-1)
    if s == "xpos":
        scale = (torch.arange(0, HD, 2, dtype=torch.float64) + 0.4 * HD) / (1.4 * HD)
        power = pos[:, None] / cfg["scale_base"]
        sc = scale[None, :] ** (power if query else -power)
        inv = 1.0 / (cfg["base"] ** (torch.arange(0, HD // 2, dtype=torch.float64) / (HD // 2)))
        ang = pos[:, None] * inv[None, :]
        cos, sin = torch.cos(ang) * sc, torch.sin(ang) * sc
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return x


def loss_of(cfg, params):
    B, T = TOKENS.shape
    x = params["tok_emb.weight"][TOKENS]
    if cfg["scheme"] == "sinusoidal":
        pos = torch.arange(T, dtype=torch.float64)[:, None]
        omega = cfg["base"] ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
        pe = torch.stack([torch.sin(pos * omega), torch.cos(pos * omega)], dim=-1).flatten(-2)
        x = x + pe
    if cfg["scheme"] == "learned":
        x = x + params["pos_emb.weight"][:T]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    act = torch.relu if cfg.get("act") == "relu" else F.gelu
    for l in range(NL):
        p = f"layers.{l}."
        h = F.layer_norm(x, (D,), params[p + "ln1.weight"], params[p + "ln1.bias"], eps=1e-5)
        q, k, v = ((h @ params[p + f"attn.{m}.weight"]).view(B, T, H, HD).transpose(1, 2) for m in "qkv")
        q, k = rotate(cfg, q, True), rotate(cfg, k, False)
        scores = q @ k.transpose(-1, -2) / math.sqrt(HD)
        bias = position_bias(cfg, params, l, T)
        if bias is not None:
            scores = scores + bias
        scores = scores.masked_fill(~causal, float("-inf"))
        a = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = x + a @ params[p + "attn.o.weight"]
        if cfg.get("mlp", True):
            h2 = F.layer_norm(x, (D,), params[p + "ln2.weight"], params[p + "ln2.bias"], eps=1e-5)
            u = h2 @ params[p + "mlp.fc1.weight"] + params[p + "mlp.fc1.bias"]
            x = x + act(u) @ params[p + "mlp.fc2.weight"] + params[p + "mlp.fc2.bias"]
    hf = F.layer_norm(x, (D,), params["ln_f.weight"], params["ln_f.bias"], eps=1e-5)
    logits = hf @ params["head.weight"]
    return F.cross_entropy(logits[MASK], TARGETS[MASK])


def main():
    print("// Printed by tests/reference/train_reference.py (PyTorch %s, float64)." % torch.__version__)
    for case, cfg in CASES:
        params = make_params(cfg)
        loss = loss_of(cfg, params)
        loss.backward()
        probes = []
        for name, _ in tensor_list(cfg):
            g = params[name].grad.reshape(-1)
            w = torch.sin(0.5 * torch.arange(g.numel(), dtype=torch.float64) + 0.3)
            probes.append((name, float((g * w).sum())))
        body = ", ".join('{"%s", %.17g}' % (n, v) for n, v in probes)
        print('{"%s", %.17g, {%s}},' % (case, float(loss), body))


if __name__ == "__main__":
    main()
