# Run with /usr/bin/python3 (needs python3-torch) from the repository root, given a snapshot of
# Hugging Face transformers' source at d6a6c82680cba9c51decdacac6dd6315ea4a766a (see
# scripts/model_types/README.md for how to take one):
#   /usr/bin/python3 tests/reference/mrope_index_reference.py /tmp/tf
# Writes tests/data/mrope-index/cases.json: M-RoPE position ids (t, h, w) for text + image + video
# sequences, computed by running each family's own get_rope_index method, taken verbatim from the
# snapshot's modeling files with ast, on token ids laid out as the family's processor lays them
# out. tests/cli/test_mrope_index.cpp checks posviz's ids against every case.
import ast
import itertools
import json
import sys
import types
from typing import Optional

import torch

SOURCE = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tf"
OUT = "tests/data/mrope-index/cases.json"
TEXT, VS, VE, IMG, VID = 100, 151652, 151653, 151655, 151656

FAMILIES = {
    # model_type: (modeling file, rule posviz names it by)
    "qwen2_vl": ("qwen2_vl/modeling_qwen2_vl.py", "steps"),
    "qwen2_5_vl": ("qwen2_5_vl/modeling_qwen2_5_vl.py", "seconds"),
    "qwen3_vl": ("qwen3_vl/modeling_qwen3_vl.py", "frames"),
}


def load_get_rope_index(path):
    """The family's get_rope_index, compiled from the snapshot's own source."""
    text = open(f"{SOURCE}/src/transformers/models/{path}").read()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == "get_rope_index":
            module = ast.Module(body=[node], type_ignores=[])
            scope = {"torch": torch, "Optional": Optional, "itertools": itertools}
            exec(compile(module, path, "exec"), scope)
            return scope["get_rope_index"]
    raise SystemExit(f"no get_rope_index in {path}")


def tokens_for(rule, sequence, timestamp_tokens, merge):
    """Token ids as the processor writes them; sequence entries as posviz's --sequence takes them."""
    ids, images, videos, seconds = [], [], [], []
    for kind, *rest in sequence:
        if kind == "text":
            ids += [TEXT] * rest[0]
            continue
        t, h, w = rest[:3]
        patches = (h // merge) * (w // merge)
        if kind == "image":
            ids[-1] = VS  # the text run before an image ends with vision start
            ids += [IMG] * (t * patches)
            images.append([t, h, w])
        elif rule == "frames":  # one "<x.x seconds>", vision start, frame, vision end per frame
            for _ in range(t):
                ids += [TEXT] * timestamp_tokens + [VS] + [VID] * patches + [VE]
            videos.append([t, h, w])
        else:
            ids[-1] = VS
            ids += [VID] * (t * patches)
            videos.append([t, h, w])
            seconds.append(rest[3])
    return ids, images, videos, seconds


def run_case(model_type, name, sequence, merge=2, tokens_per_second=2, timestamp_tokens=6):
    path, rule = FAMILIES[model_type]
    fn = load_get_rope_index(path)
    vision = types.SimpleNamespace(spatial_merge_size=merge, tokens_per_second=tokens_per_second)
    config = types.SimpleNamespace(vision_config=vision, image_token_id=IMG, video_token_id=VID,
                                   vision_start_token_id=VS)
    ids, images, videos, seconds = tokens_for(rule, sequence, timestamp_tokens, merge)
    kwargs = dict(input_ids=torch.tensor([ids]),
                  image_grid_thw=torch.tensor(images) if images else None,
                  video_grid_thw=torch.tensor(videos) if videos else None)
    if rule == "seconds" and videos:
        kwargs["second_per_grid_ts"] = torch.tensor(seconds)
    position_ids, _ = fn(types.SimpleNamespace(config=config), **kwargs)
    pos = position_ids[:, 0, :].tolist()
    return {"name": name, "model_type": model_type, "rule": rule, "spatial_merge": merge,
            "tokens_per_second": tokens_per_second, "timestamp_tokens": timestamp_tokens,
            "sequence": ",".join(entry_text(e) for e in sequence),
            "t": pos[0], "h": pos[1], "w": pos[2]}


def entry_text(e):
    if e[0] == "text":
        return str(e[1])
    grid = f"{e[1]}x{e[2]}x{e[3]}"
    if e[0] == "image":
        return grid
    return f"v{grid}" + (f"@{e[4]:g}" if len(e) > 4 else "")


CASES = [
    ("qwen2_vl", "image then video, steps of 1", [("text", 3), ("image", 1, 4, 6), ("text", 2),
                                                  ("video", 3, 4, 4, 1.0), ("text", 2)]),
    ("qwen2_5_vl", "video at 1 s per grid, 2 tokens per second", [("text", 2), ("video", 3, 4, 4, 1.0), ("text", 2)]),
    ("qwen2_5_vl", "video at 2 s per grid", [("text", 2), ("video", 3, 2, 4, 2.0), ("text", 3)]),
    ("qwen2_5_vl", "video at 0.5 s per grid: the integer cast sets every time id to 0",
     [("text", 2), ("video", 4, 2, 2, 0.5), ("text", 2)]),
    ("qwen2_5_vl", "an image keeps t at its start", [("text", 2), ("image", 1, 4, 4), ("text", 2)]),
    ("qwen3_vl", "a video split into timestamped frames", [("text", 2), ("video", 3, 4, 4), ("text", 2)]),
    ("qwen3_vl", "an image, then a two-frame video", [("text", 1), ("image", 1, 2, 4), ("text", 2), ("video", 2, 2, 2)]),
]


def main():
    cases = [run_case(m, n, s) for m, n, s in CASES]
    cases.append(run_case("qwen2_5_vl", "tokens_per_second 25 (the docstring's example)",
                          [("text", 1), ("video", 3, 4, 4, 2.0), ("text", 1)], tokens_per_second=25))
    cases.append(run_case("qwen3_vl", "three timestamp tokens, merge 1", [("text", 1), ("video", 2, 1, 2), ("text", 1)],
                          merge=1, timestamp_tokens=3))
    doc = {"source": "huggingface/transformers@d6a6c82680cba9c51decdacac6dd6315ea4a766a get_rope_index, run by "
                     "tests/reference/mrope_index_reference.py", "cases": cases}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
