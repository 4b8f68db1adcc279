#!/usr/bin/python3
"""Joins posviz_train_bench's JSON and train_reference.py's JSON into the training table (Markdown).

Usage: train_table.py POSVIZ_JSON REFERENCE_JSON [DEFAULT_COMPARISON_SECONDS]

Per workload and thread count: PyTorch steps/s, posviz steps/s, the ratio, posviz's GFLOP/s and
its share of the machine's FP32 peak over the threads used. The goals of issue 28 are checked and
a miss is printed as a miss: posviz >= 10x PyTorch's steps/s, >= 15% of the FP32 peak of the two
cores at d_model 32, and the default comparison (five schemes, three seeds, one task, the CLI's
defaults) in <= 60 s.

FP32 PEAK, estimated from /proc/cpuinfo (no benchmark can reach more):
  per core = clock (its "cpu MHz": the nominal clock, which is what a VM reports; turbo may run
  higher) x FP32 lanes of the widest SIMD its flags have (avx512f: 16, avx2 with fma: 8, else 4;
  core/train's kernels are built for each and pick the widest at run time) x 2 FMA units (every
  recent Intel Xeon and AMD Zen core has two; an older or smaller core with one halves the peak)
  x 2 FLOPs per fused multiply-add.
"""
import json
import sys


def cpu_peak():
    """(GFLOP/s of one core, description) from /proc/cpuinfo."""
    mhz, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "cpu MHz" and mhz is None:
                    mhz = float(value)
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    if mhz is None:
        return None, "unknown (no /proc/cpuinfo clock)"
    lanes, simd = (16, "AVX-512") if "avx512f" in flags else (8, "AVX2+FMA") if {"avx2", "fma"} <= flags else (4, "SSE")
    per_core = mhz / 1000.0 * lanes * 2 * 2
    return per_core, f"{mhz / 1000.0:.2f} GHz x {lanes} FP32 lanes ({simd}) x 2 FMA units x 2 = {per_core:.1f} GFLOP/s per core"


def main():
    with open(sys.argv[1]) as f:
        posviz = json.load(f)
    with open(sys.argv[2]) as f:
        ref = json.load(f)
    wall = float(sys.argv[3]) if len(sys.argv) > 3 else None
    per_core, how = cpu_peak()
    print(f"Training steps per second (copy, 33 tokens, batch 32, 2 layers, 4 heads, MLP 4 d_model, RoPE), "
          f"median wall clock; torch {ref['versions']['torch']}")
    print(f"FP32 peak per core: {how}")
    try:
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
    except OSError:
        load = "?"
    print(f"Load average now: {load}. A busy machine slows the wall-clock rates; a one-thread run's steps per CPU "
          f"second are what an idle core does.")
    print()
    print("| workload | threads | PyTorch steps/s | posviz steps/s | ratio | posviz GFLOP/s | % of FP32 peak "
          "| PyTorch steps/CPU-s | posviz steps/CPU-s | CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    verdicts = []
    for name in ("d32", "d64"):
        p, r = posviz["workloads"].get(name, {}), ref["workloads"].get(name, {})
        for threads in (1, 2):
            key = f"threads_{threads}"
            if key not in p or key not in r:
                continue
            ps, pg, pc = p[key]["steps_per_second"], p[key]["gflops"], p[key]["steps_per_cpu_second"]
            rs, rc = r[key]["steps_per_second"], r[key]["steps_per_cpu_second"]
            peak = per_core * threads if per_core else None
            pct = f"{100.0 * pg / peak:.1f}%" if peak else "-"
            # CPU time sums the threads: per-CPU-second rates compare cores, not wall time (1 thread only).
            cpu = (f"{rc:.1f} | {pc:.1f} | {pc / rc:.1f}x" if threads == 1 else "- | - | -")
            print(f"| d_model {name[1:]} | {threads} | {rs:.1f} | {ps:.1f} | {ps / rs:.1f}x | {pg:.1f} | {pct} | {cpu} |")
    # The goals compare each side at its best thread count (PyTorch's OpenMP threads can stall when
    # another process holds a core), the one-thread CPU-time rates, and the two cores' peak.
    for name in ("d32", "d64"):
        p, r = posviz["workloads"].get(name, {}), ref["workloads"].get(name, {})
        best = lambda w: max((w[k]["steps_per_second"], k[-1]) for k in ("threads_1", "threads_2") if k in w)
        (ps, pt), (rs, rt) = best(p), best(r)
        verdicts.append((f"{ps / rs:.1f}x PyTorch's steps/s at d_model {name[1:]}, wall clock, each at its best thread count "
                         f"(posviz {pt}, PyTorch {rt}) (goal >= 10x)", ps / rs >= 10.0))
        if "threads_1" in p and "threads_1" in r:
            ratio = p["threads_1"]["steps_per_cpu_second"] / r["threads_1"]["steps_per_cpu_second"]
            verdicts.append((f"{ratio:.1f}x PyTorch's steps per CPU second at d_model {name[1:]}, 1 thread (goal >= 10x)", ratio >= 10.0))
        if name == "d32" and per_core:
            g = max(p[k]["gflops"] for k in ("threads_1", "threads_2") if k in p)
            share = 100.0 * g / (2 * per_core)
            verdicts.append((f"{share:.1f}% of the two cores' FP32 peak at d_model 32 ({g:.1f} of {2 * per_core:.1f} GFLOP/s, "
                             f"wall clock) (goal >= 15%)", share >= 15.0))
    if wall is not None:
        verdicts.append((f"default comparison (posviz train, 5 schemes x 3 seeds x 2000 steps, copy): {wall:.1f} s wall "
                         f"(goal <= 60 s)", wall <= 60.0))
    print()
    print("Goals of issue 28:")
    for text, met in verdicts:
        print(f"  {'met   ' if met else 'MISSED'}  {text}")


if __name__ == "__main__":
    main()
