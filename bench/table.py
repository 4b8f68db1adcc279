#!/usr/bin/python3
"""Joins posviz_bench's JSON and reference.py's JSON into one side-by-side table (Markdown).

Usage: table.py POSVIZ_JSON REFERENCE_JSON

Throughputs are items per second (cells written, or elements rotated), medians when the benchmark
ran with repetitions. "% of bandwidth" divides the bytes a kernel writes per second by the best of
a streaming store and memset (of a non-zero byte) of the same size (for RoPE apply and the learned
lookup, which read as much as they write, by a streaming copy of the same size), all on the same
number of threads. The "limit" column names that yardstick.

"cached 1t" runs the same kernel on one thread into an output of 256 KiB to 1 MiB, again and again,
so that it stays in cache, and again at twice the size; the rate of the extra work (per-call costs
drop out) is what its arithmetic allows with no memory traffic. Where a kernel
stays below 80% of its bandwidth yardstick, the limit column says which holds it back: its
arithmetic, when its full-size rate is at least 80% of that cached rate (memory that is never
touched would not make it faster), else the yardstick.
"""
import json
import sys

# (label, posviz workload, variant, reference workload, bandwidth workload, bandwidth kinds)
ROWS = [
    ("sinusoidal 8192 x 1024", "sinusoidal_8192x1024", "kernel", "sinusoidal_8192x1024",
     "sinusoidal_8192x1024", ("store_stream", "memset")),
    ("sinusoidal 131072 x 128", "sinusoidal_131072x128", "kernel", "sinusoidal_131072x128",
     "sinusoidal_131072x128", ("store_stream", "memset")),
    ("sinusoidal T2T 131072 x 128", "sinusoidal_t2t_131072x128", "kernel", None,
     "sinusoidal_131072x128", ("store_stream", "memset")),
    ("RoPE apply q,k (1,32,4096,128) half-split", "rope_apply_halfsplit", "kernel", "rope_apply_halfsplit",
     "rope_apply", ("copy_stream",)),
    ("  same, from cos/sin tables", "rope_apply_halfsplit", "kernel_tables", "rope_apply_halfsplit",
     "rope_apply", ("copy_stream",)),
    ("RoPE apply q,k interleaved (vs complex form)", "rope_apply_interleaved", "kernel", "rope_apply_interleaved",
     "rope_apply", ("copy_stream",)),
    ("RoPE cos+sin 131072 x 64", "rope_cos_sin_131072x64", "kernel", None,
     "sinusoidal_131072x128", ("store_stream", "memset")),
    ("RoPE angle 131072 x 64", "rope_angle_131072x64", "kernel", None,
     "sinusoidal_8192x1024", ("store_stream", "memset")),
    ("ALiBi 32 heads x 2048^2", "alibi_32x2048x2048", "kernel", "alibi_32x2048x2048",
     "alibi_32x2048x2048", ("store_stream", "memset")),
    ("score grid T=16384, fixed q,k", "score_grid_16384", "kernel", "score_grid_16384",
     "score_grid_16384", ("store_stream", "memset")),
    ("learned lookup 8192 x 1024", "learned_lookup_8192x1024", "kernel", "learned_lookup_8192x1024",
     "learned_lookup_8192x1024", ("copy_stream",)),
]


def load_posviz(path):
    """{(workload, variant, threads): {"items": .., "bytes": ..}}, medians preferred."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        parts = name.split("/")
        if len(parts) < 3 or not parts[2].startswith("threads:"):
            continue
        key = (parts[0], parts[1], int(parts[2].split(":")[1]))
        seconds = b.get("real_time", 0.0) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}.get(b.get("time_unit"), 1.0)
        out[key] = {"items": b.get("items_per_second"), "bytes": b.get("bytes_per_second"), "seconds": seconds}
    return out, data.get("context", {})


def fmt_rate(v):
    if v is None:
        return "-"
    return f"{v / 1e6:,.0f}"


def marginal_rate(small, large):
    """Items per second of the extra work a twice-as-large cached run does: per-call costs drop out."""
    if not small or not large or not small.get("items") or not large.get("items"):
        return None
    items_small = small["items"] * small["seconds"]
    items_large = large["items"] * large["seconds"]
    extra = large["seconds"] - small["seconds"]
    return (items_large - items_small) / extra if extra > 0 else None


def limit_text(share, rate, cached, bw_kinds, vs_torch):
    """What holds a kernel back: its bandwidth yardstick, or (below 80% of it) its own arithmetic."""
    yardstick = "stream copy (reads = writes)" if bw_kinds == ("copy_stream",) else "stream store"
    if share is None or share >= 0.8:
        text = yardstick
        if vs_torch is not None and vs_torch < 10 and share is not None and share >= 0.95:
            text += f"; at the copy's speed, so {vs_torch:.1f}x is the most a kernel can be over PyTorch here"
        return text
    if cached and rate and rate >= 0.8 * cached:
        return (f"arithmetic: full size at {100.0 * rate / cached:.0f}% of its rate into cache, "
                "so memory is not what holds it back")
    if cached and rate:
        # Slower at full size than into cache: the bytes it moves hold it back, below the yardstick
        # that moves the same bytes.
        return (f"memory: full size at {100.0 * rate / cached:.0f}% of its rate into cache, so its traffic holds it "
                f"back; it moves the bytes of a {yardstick} at {100.0 * share:.0f}% of that rate")
    return yardstick


def main():
    posviz, context = load_posviz(sys.argv[1])
    with open(sys.argv[2]) as f:
        ref = json.load(f)
    results = ref.get("results", {})

    def bandwidth(workload, kinds, threads):
        vals = [posviz.get((workload, k, threads), {}).get("bytes") for k in kinds]
        # memset only runs on one thread; a two-thread row compares with the best it has.
        vals += [posviz.get((workload, k, 1), {}).get("bytes") for k in kinds]
        vals = [v for v in vals if v]
        return max(vals) if vals else None

    load = context.get("load_avg")
    load = " ".join(f"{x:.2f}" for x in load) if isinstance(load, list) else "?"
    print(f"posviz {context.get('isa', '?')} | {context.get('num_cpus', '?')} CPUs "
          f"@ {context.get('mhz_per_cpu', '?')} MHz | load {load} | "
          f"torch {ref['versions']['torch']} ({ref['versions']['torch_threads']} thread), "
          f"numpy {ref['versions']['numpy']}")
    print()
    print("Throughput in M items/s (cells written; elements rotated for RoPE apply), median wall-clock.")
    print()
    header = ["workload", "PyTorch", "numpy", "posviz 1 thread", "posviz 2 threads", "ratio vs PyTorch",
              "2 threads / 1", "% of bandwidth", "cached 1t", "limit"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
    for label, workload, variant, ref_name, bw_workload, bw_kinds in ROWS:
        one = posviz.get((workload, variant, 1))
        two = posviz.get((workload, variant, 2))
        if one is None and two is None:
            continue
        r = results.get(ref_name, {}) if ref_name else {}
        torch_rate, numpy_rate = r.get("torch"), r.get("numpy")
        p1 = one["items"] if one else None
        p2 = two["items"] if two else None
        ratio = f"{p1 / torch_rate:.1f}x" if p1 and torch_rate else "-"
        speedup = f"{p2 / p1:.2f}x" if p1 and p2 else "-"
        bw = bandwidth(bw_workload, bw_kinds, 1)
        share = one["bytes"] / bw if one and one.get("bytes") and bw else None
        pct = f"{100.0 * share:.0f}%" if share else "-"
        suffix = "" if variant == "kernel" else "_" + variant[len("kernel_"):]
        cached = marginal_rate(posviz.get((workload, "cached" + suffix, 1)), posviz.get((workload, "cached2" + suffix, 1)))
        limit = limit_text(share, p1, cached, bw_kinds, p1 / torch_rate if p1 and torch_rate else None)
        print(f"| {label} | {fmt_rate(torch_rate)} | {fmt_rate(numpy_rate)} | {fmt_rate(p1)} | {fmt_rate(p2)} | "
              f"{ratio} | {speedup} | {pct} | {fmt_rate(cached)} | {limit} |")

    print()
    print("Bandwidth yardsticks in GB/s (bytes written per second; copy: bytes copied):")
    print()
    print("| output | stream store 1t | stream store 2t | memset 1t | stream copy 1t | stream copy 2t |")
    print("|---|---:|---:|---:|---:|---:|")
    seen = []
    for _, _, _, _, bw_workload, _ in ROWS:
        if bw_workload in seen:
            continue
        seen.append(bw_workload)
        cells = [posviz.get((bw_workload, k, t), {}).get("bytes")
                 for k, t in (("store_stream", 1), ("store_stream", 2), ("memset", 1), ("copy_stream", 1),
                              ("copy_stream", 2))]
        print(f"| {bw_workload} | " + " | ".join(f"{c / 1e9:.1f}" if c else "-" for c in cells) + " |")

    errors = ref.get("errors", {})
    if errors:
        print()
        print("Accuracy at position 131072 (d_model 128) against float64, max abs error:")
        for k, v in errors.items():
            print(f"  {k}: {v:.3g}")
        print("  posviz kernels: <= 1e-6 at every position up to 131072 (tests/core/test_kernels.cpp)")


if __name__ == "__main__":
    main()
