# Run with /usr/bin/python3 (needs python3-torch) from the repository root, given a snapshot of
# Hugging Face transformers' source at d6a6c82680cba9c51decdacac6dd6315ea4a766a:
#   /usr/bin/python3 tests/reference/pixtral_rope_reference.py /tmp/tf
# Writes tests/data/axial-rope/pixtral.json: the per-patch angles Pixtral's vision tower rotates by,
# from PixtralRotaryEmbedding.compute_default_rope_parameters (taken verbatim from the snapshot with
# ast and run) indexed by position_ids_in_meshgrid, for a small grid. tests/cli/test_axial_views.cpp
# checks axial-angles --image-scheme pixtral against them.
import ast
import json
import sys
import types
from typing import Optional

import torch

SOURCE = sys.argv[1] if len(sys.argv) > 1 else "/tmp/tf"
PATH = "src/transformers/models/pixtral/modeling_pixtral.py"


def load(name, cls=None):
    text = open(f"{SOURCE}/{PATH}").read()
    for node in ast.walk(ast.parse(text)):
        if cls and isinstance(node, ast.ClassDef) and node.name == cls:
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == name:
                    f.decorator_list = []
                    node = f
                    break
            else:
                continue
        if isinstance(node, ast.FunctionDef) and node.name == name:
            scope = {"torch": torch, "Optional": Optional, "PixtralVisionConfig": object}
            exec(compile(ast.Module(body=[node], type_ignores=[]), PATH, "exec"), scope)
            return scope[name]
    raise SystemExit(f"no {name} in {PATH}")


def main():
    head_dim, theta, image_size, patch_size = 16, 10000.0, 64, 16   # a 4 x 4 grid of patches
    rows, cols = 3, 4                                                # the image: 3 x 4 patches
    config = types.SimpleNamespace(rope_parameters={"rope_theta": theta}, head_dim=head_dim,
                                   image_size=image_size, patch_size=patch_size)
    inv_freq, _ = load("compute_default_rope_parameters", "PixtralRotaryEmbedding")(config)
    ids = load("position_ids_in_meshgrid")([torch.zeros(1, rows, cols)], image_size // patch_size)
    angles = inv_freq[ids][:, : head_dim // 2].double()   # cat((f, f)): the first half names every pair
    doc = {"source": "huggingface/transformers@d6a6c82680cba9c51decdacac6dd6315ea4a766a "
                     "models/pixtral/modeling_pixtral.py, run by tests/reference/pixtral_rope_reference.py",
           "head_dim": head_dim, "base": theta, "rows": rows, "cols": cols,
           "angles": [[float(x) for x in row] for row in angles.tolist()]}
    with open("tests/data/axial-rope/pixtral.json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote", len(doc["angles"]), "patches x", len(doc["angles"][0]), "pairs")


if __name__ == "__main__":
    main()
