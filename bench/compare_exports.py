#!/usr/bin/env python3
"""Compares two exports of the same view, number by number: before and after a change.

    bench/compare_exports.py OLD.npy NEW.npy      .npy (float32 or float64, any shape)
    bench/compare_exports.py OLD.json NEW.json    .json: every number in the document, by path

Prints the count, the largest absolute and relative difference and where, and exits 1 when the
shapes, the NaNs or the keys differ. Standard library only, so it runs wherever posviz builds.
"""
import ast
import json
import math
import struct
import sys


def load_npy(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not an .npy file")
    major = data[6]
    size_len = 2 if major == 1 else 4
    header_len = int.from_bytes(data[8:8 + size_len], "little")
    header = ast.literal_eval(data[8 + size_len:8 + size_len + header_len].decode("latin1"))
    code = {"<f4": "f", "<f8": "d"}.get(header["descr"])
    if code is None or header.get("fortran_order"):
        sys.exit(f"{path}: only little-endian float32/float64 in C order, got {header}")
    count = math.prod(header["shape"])
    offset = 8 + size_len + header_len
    values = struct.unpack_from(f"<{count}{code}", data, offset)
    return tuple(header["shape"]), [("[%d]" % i, v) for i, v in enumerate(values)]


def flatten_json(node, path, out):
    if isinstance(node, dict):
        for key in node:
            flatten_json(node[key], f"{path}.{key}", out)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            flatten_json(item, f"{path}[{i}]", out)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        out.append((path, float(node)))
    else:
        out.append((path, node))


def load(path):
    if path.endswith(".npy"):
        return load_npy(path)
    out = []
    flatten_json(json.load(open(path)), "", out)
    return None, out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    shape_a, a = load(sys.argv[1])
    shape_b, b = load(sys.argv[2])
    if shape_a != shape_b or len(a) != len(b):
        sys.exit(f"shapes differ: {shape_a or len(a)} vs {shape_b or len(b)}")
    worst_abs = worst_rel = 0.0
    where_abs = where_rel = "-"
    numbers = 0
    for (pa, x), (pb, y) in zip(a, b):
        if pa != pb:
            sys.exit(f"keys differ: {pa} vs {pb}")
        if not isinstance(x, float) or not isinstance(y, float):
            if x != y:
                sys.exit(f"{pa}: {x!r} vs {y!r}")
            continue
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                sys.exit(f"{pa}: NaN in one only ({x} vs {y})")
            continue
        numbers += 1
        diff = abs(x - y)
        if diff > worst_abs:
            worst_abs, where_abs = diff, pa
        if x != 0.0 and diff / abs(x) > worst_rel:
            worst_rel, where_rel = diff / abs(x), pa
    print(f"{numbers} numbers; largest |difference| {worst_abs:.3g} at {where_abs}; "
          f"largest relative {worst_rel:.3g} at {where_rel}")


if __name__ == "__main__":
    main()
