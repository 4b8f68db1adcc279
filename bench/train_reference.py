#!/usr/bin/python3
"""The model posviz trains (core/train/config.hpp), written in PyTorch and timed per training step.

A decoder-only transformer: token embedding, pre-LayerNorm blocks (q, k, v, o without biases,
RoPE half-split on q and k with base 10000, causal softmax attention, MLP 4 d_model with GELU and
biases), a final LayerNorm and an untied head; the mean cross-entropy over the answer tokens of
a copy batch (32 sequences of 33 tokens, BOS x1..x16 SEP x1..x16 less the last token, the answer
the second half); AdamW (lr 3e-3, betas 0.9/0.98, eps 1e-8, weight decay 0.01 on the matrices)
after clip_grad_norm_(1.0). One step is zero_grad, forward, backward, clip, update: what one
posviz Trainer step does. Batches are made once before timing (posviz draws each step's batch
inside its step, so this favours PyTorch slightly) and always have 33 tokens, as posviz_train_bench's
do (it trains on n = 16 only, so both sides do the same work).

Timed with torch.set_num_threads(1) and (2): 5 warm-up steps, then the median of `repeats` timings
of as many steps as fill about a second each, in wall-clock time and in the process's CPU time (on a
shared machine a one-thread run's CPU rate is what an idle core would do).

Prints one JSON object on stdout (progress on stderr):
  {"workloads": {"d32": {"threads_1": {"steps_per_second": .., "steps_per_cpu_second": ..},
                        "threads_2": {..}}, "d64": ..},
   "versions": {"torch": ..}}

Usage: /usr/bin/python3 bench/train_reference.py [--quick]
"""
import argparse
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

VOCAB, SYMBOLS, L, BATCH, LAYERS, HEADS = 19, 16, 16, 32, 2, 4
TOKENS = 2 * L + 1


def rope_tables(tokens, head_dim, base=10000.0):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    ang = torch.outer(torch.arange(tokens, dtype=torch.float32), inv)
    emb = torch.cat([ang, ang], dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d, bias=False) for _ in range(4))
        self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x, cos, sin, causal):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = (lin(h).view(b, t, HEADS, d // HEADS).transpose(1, 2) for lin in (self.q, self.k, self.v))
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        s = (q @ k.transpose(-1, -2)) / math.sqrt(d // HEADS)
        a = torch.softmax(s.masked_fill(causal, float("-inf")), dim=-1) @ v
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Model(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, d)
        self.blocks = torch.nn.ModuleList(Block(d) for _ in range(LAYERS))
        self.ln_f = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, VOCAB, bias=False)
        cos, sin = rope_tables(TOKENS, d // HEADS)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)
        self.register_buffer("causal", torch.triu(torch.ones(TOKENS, TOKENS, dtype=torch.bool), diagonal=1))

    def forward(self, tokens):
        x = self.tok(tokens)
        for blk in self.blocks:
            x = blk(x, self.cos, self.sin, self.causal)
        return self.head(self.ln_f(x))


def copy_batches(count, gen):
    """count batches of BATCH copy examples of length L: inputs, targets, answer mask."""
    out = []
    for _ in range(count):
        x = torch.randint(3, 3 + SYMBOLS, (BATCH, L), generator=gen)
        seq = torch.cat([torch.ones(BATCH, 1, dtype=torch.long), x, torch.full((BATCH, 1), 2), x], dim=1)
        mask = torch.zeros(BATCH, TOKENS, dtype=torch.bool)
        mask[:, L + 1:] = True  # the token after SEP onwards: the second x1..xL
        out.append((seq[:, :-1], seq[:, 1:], mask))
    return out


def make_step(d):
    torch.manual_seed(1)
    model = Model(d)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and not n.startswith("tok")]
    rest = [p for n, p in model.named_parameters() if not (p.dim() == 2 and not n.startswith("tok"))]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                            lr=3e-3, betas=(0.9, 0.98), eps=1e-8)
    batches = copy_batches(8, torch.Generator().manual_seed(2))
    state = {"i": 0}

    def step():
        inputs, targets, mask = batches[state["i"] % len(batches)]
        state["i"] += 1
        opt.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = F.cross_entropy(logits[mask], targets[mask])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss

    return step


def measure(d, threads, repeats):
    torch.set_num_threads(threads)
    step = make_step(d)
    for _ in range(5):
        step()
    start = time.perf_counter()
    step()
    per = max(time.perf_counter() - start, 1e-4)
    steps = max(5, int(1.0 / per))
    rates = []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            step()
        rates.append((steps / (time.perf_counter() - start), steps / max(1e-9, time.process_time() - cpu)))
    rates.sort()
    wall, per_cpu = rates[len(rates) // 2]
    return {"steps_per_second": wall, "steps_per_cpu_second": per_cpu}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 timings per workload instead of 5")
    args = ap.parse_args()
    repeats = 3 if args.quick else 5
    report = {"workloads": {}, "versions": {"torch": torch.__version__}}
    for d in (32, 64):
        w = {}
        for threads in (1, 2):
            print(f"train_reference: d_model {d}, {threads} thread(s)", file=sys.stderr, flush=True)
            w[f"threads_{threads}"] = measure(d, threads, repeats)
        report["workloads"][f"d{d}"] = w
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
