#!/usr/bin/env python3
"""Derive posviz's model-type table from a snapshot of the Hugging Face transformers source.

For every `model_type` declared by a configuration class in
src/transformers/models/*/configuration_*.py, read the class (with `ast`) and the modeling
code of the same directory, and say what the family does with positions.  See README.md.

Standard library only (Python 3.11).
"""

import argparse
import ast
import difflib
import json
import os
import re
import sys
from collections import Counter, OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

# Config keys that matter for positions and sizes (written to "defaults" when the class has them).
DEFAULT_KEYS = [
    "rope_theta", "rope_parameters", "rope_scaling", "partial_rotary_factor", "rotary_pct", "rotary_dim",
    "rotary_emb_base", "rotary_emb_fraction", "rope_interleave", "qk_rope_head_dim", "qk_nope_head_dim",
    "max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "seq_length",
    "max_source_positions", "max_target_positions", "original_max_position_embeddings",
    "head_dim", "hidden_size", "d_model", "n_embd", "d_kv", "embed_dim", "dim",
    "num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads", "decoder_attention_heads",
    "num_key_value_heads",
    "num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers", "decoder_layers", "num_decoder_layers",
    "sliding_window", "use_sliding_window", "sliding_window_pattern", "max_window_layers", "layer_types",
    "attn_layer_period", "attn_layer_offset", "layers_block_type", "hybrid_override_pattern", "block_types",
    "no_rope_layers", "no_rope_layer_interval", "full_attn_idxs", "linear_attn_config",
    "alibi", "use_alibi", "attn_config", "position_embedding_type", "relative_attention_num_buckets",
    "relative_attention_max_distance", "relative_attention", "max_relative_positions", "position_buckets",
    "pos_att_type", "position_biased_input", "scale_embedding", "pad_token_id", "vocab_size",
    "image_size", "patch_size", "num_mel_bins",
    "position_embeddings_type", "left_max_position_embeddings", "right_max_position_embeddings",
]
# Keys that are positional (for "reads").
POS_READ_KEYS = set(DEFAULT_KEYS) - {
    "hidden_size", "d_model", "n_embd", "embed_dim", "num_attention_heads", "n_head", "n_heads", "num_heads",
    "encoder_attention_heads", "decoder_attention_heads", "num_key_value_heads", "num_hidden_layers", "n_layer",
    "n_layers", "num_layers", "encoder_layers", "decoder_layers", "num_decoder_layers", "vocab_size", "dim",
    "num_mel_bins", "d_kv", "scale_embedding", "pad_token_id",
} | {"rope_local_base_freq", "rope_type", "mrope_section", "rope_deltas", "use_rope", "use_rotary", "rope_layers",
     "embed_positions", "max_2d_position_embeddings", "type_vocab_size", "pos_emb", "global_rope_theta",
     "local_rope_theta", "attention_chunk_size", "interleave_moe_layer_step", "attention_layers",
     "rope_dim", "mrope_interleaved", "layer_norm_eps"} - {"layer_norm_eps"}

# The legacy keys transformers' rope mixin reads for any config that has rope_parameters
# (modeling_rope_utils.py RotaryEmbeddingConfigMixin.convert_rope_params_to_dict).
MIXIN_ROPE_KEYS = {"rope_scaling", "rope_theta", "partial_rotary_factor"}

TEXT_SUB_KEYS = ["text_config", "language_config", "llm_config", "thinker_config", "text_decoder_config",
                 "decoder_config", "talker_config"]
LAYER_KIND_WORDS = {"attention", "mamba", "mamba2", "conv", "short_conv", "recurrent", "rglru", "ssm", "rwkv", "mlp",
                    "moe", "hybrid", "linear", "deltanet", "kda", "lightning", "swa", "global", "local"}
NOATTN_WORDS = ("mamba", "conv", "linear", "ssm", "rwkv", "recurrent", "rglru", "deltanet", "mlp", "short_conv",
                "moe_only", "lightning", "delta", "kimi_delta")


def jdump(obj):
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def lit(node):
    """Literal value of an AST node, or a marker for things that are not literals."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except Exception:
        pass
    # 1_000_000 etc. are literals; expressions like 2**15 or float("inf") are not
    src = ast.unparse(node)
    try:
        if re.fullmatch(r"[0-9_.eE+\-* ()]+", src):
            return eval(src, {"__builtins__": {}})  # arithmetic of literals only
    except Exception:
        pass
    return {"_expr": src}


def jsonable(v):
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        if set(v) == {"_expr"}:
            return None
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return None
    if isinstance(v, (set, frozenset)):
        return sorted(jsonable(x) for x in v)
    return v


# ----------------------------------------------------------------------------------------------
# configuration classes


class ConfigClass:
    def __init__(self, name, relfile, node):
        self.name = name
        self.file = relfile
        self.node = node
        self.line = node.lineno
        self.bases = [ast.unparse(b).split(".")[-1] for b in node.bases]
        self.attrs = {}
        self.init = None
        for st in node.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                self.attrs[st.targets[0].id] = st.value
            elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                self.attrs[st.target.id] = st.value
            elif isinstance(st, ast.FunctionDef) and st.name == "__init__":
                self.init = st

    def model_type(self):
        v = self.attrs.get("model_type")
        if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value:
            return v.value
        return None


class Configs:
    def __init__(self, tf):
        self.tf = tf
        self.classes = {}  # name -> ConfigClass (first by sorted path)
        self.by_type = {}
        for d in sorted(os.listdir(os.path.join(tf, "models"))):
            p = os.path.join(tf, "models", d)
            if not os.path.isdir(p):
                continue
            for fn in sorted(os.listdir(p)):
                if fn.startswith("configuration_") and fn.endswith(".py"):
                    rel = "models/%s/%s" % (d, fn)
                    tree = ast.parse(open(os.path.join(tf, rel), encoding="utf-8").read())
                    for node in tree.body:
                        if isinstance(node, ast.ClassDef):
                            cc = ConfigClass(node.name, rel, node)
                            self.classes.setdefault(node.name, cc)
                            mt = cc.model_type()
                            if mt and (mt not in self.by_type or self.rank(cc) < self.rank(self.by_type[mt])):
                                self.by_type[mt] = cc

    @staticmethod
    def rank(cc):
        """Several classes may declare one model_type (e.g. Qwen2_5_VLVisionConfig and Qwen2_5_VLConfig): the
        top-level one wins: a class with sub_configs, then one without Vision/Audio/Text in its name."""
        if "sub_configs" in cc.attrs:
            return 0
        if re.search(r"Vision|Audio|Text|Encoder|Decoder|Talker|Thinker", cc.name):
            return 2
        return 1

    def chain(self, cc):
        out, seen = [], set()
        todo = [cc]
        while todo:
            c = todo.pop(0)
            if c is None or c.name in seen:
                continue
            seen.add(c.name)
            out.append(c)
            for b in c.bases:
                todo.append(self.classes.get(b))
        return out

    def attr(self, cc, name):
        for c in self.chain(cc):
            if name in c.attrs:
                return c.attrs[name], c
        return None, None

    def init_of(self, cc):
        for c in self.chain(cc):
            if c.init is not None:
                return c.init, c
        return None, None

    def init_defaults(self, cc):
        """Argument defaults of the __init__ in effect, merged down the base chain when it forwards **kwargs."""
        res = OrderedDict()
        for c in self.chain(cc):
            if c.init is None:
                continue
            a = c.init.args
            pos = a.args[1:]
            defs = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
            for arg, d in zip(pos, defs):
                if arg.arg not in res:
                    res[arg.arg] = (lit(d) if d is not None else None, c, arg.lineno)
            for arg, d in zip(a.kwonlyargs, a.kw_defaults):
                if arg.arg not in res:
                    res[arg.arg] = (lit(d) if d is not None else None, c, arg.lineno)
            # kwargs.setdefault("partial_rotary_factor", 0.5): a default that is not an argument
            # (Glm4MoeConfig), read later by the rope mixin.
            for n in ast.walk(c.init):
                if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "setdefault"
                        and isinstance(n.func.value, ast.Name) and n.func.value.id == c.init.args.kwarg.arg
                        if c.init.args.kwarg is not None else False) and len(n.args) == 2 \
                        and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                    if n.args[0].value not in res:
                        res[n.args[0].value] = (lit(n.args[1]), c, n.lineno)
            if c.init.args.kwarg is None:
                break
        return res

    def self_sets(self, cc):
        init, _ = self.init_of(cc)
        names = set()
        if init is None:
            return names
        for n in ast.walk(init):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" and isinstance(n.ctx, ast.Store):
                names.add(n.attr)
        return names


def text_sub_type(configs, cc):
    """model_type of the default text sub-config of a wrapper config, or None."""
    sub, _ = configs.attr(cc, "sub_configs")
    if not isinstance(sub, ast.Dict):
        return None, None
    keys = {}
    for k, v in zip(sub.keys, sub.values):
        if isinstance(k, ast.Constant):
            keys[k.value] = ast.unparse(v).split(".")[-1]
    key = next((k for k in TEXT_SUB_KEYS if k in keys), None)
    if key is None:
        return None, keys
    init, owner = configs.init_of(cc)
    found = None
    if init is not None:
        for st in ast.walk(init):
            if isinstance(st, (ast.If, ast.Assign, ast.IfExp, ast.Call)):
                s = ast.unparse(st)
                if key not in s:
                    continue
                if isinstance(st, ast.If) and key not in ast.unparse(st.test):
                    continue
                for n in ast.walk(st):
                    if isinstance(n, ast.Subscript) and ast.unparse(n.value) == "CONFIG_MAPPING" and isinstance(n.slice, ast.Constant):
                        found = found or n.slice.value
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and len(n.args) == 2 \
                            and isinstance(n.args[0], ast.Constant) and n.args[0].value == "model_type" and isinstance(n.args[1], ast.Constant):
                        found = found or n.args[1].value
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in configs.classes \
                            and configs.classes[n.func.id].model_type() and found is None and key in s.split("=")[0] + s:
                        found = configs.classes[n.func.id].model_type()
                if found:
                    break
    if found is None:
        c = configs.classes.get(keys[key])
        if c is not None and c.model_type():
            found = c.model_type()
    return found, keys


# ----------------------------------------------------------------------------------------------
# modeling code


def walk_no_decorators(node):
    """ast.walk that skips decorator lists (`@use_kernelized_func(apply_rotary_pos_emb)` is not a use)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for field, value in ast.iter_fields(n):
            if field == "decorator_list":
                continue
            if isinstance(value, list):
                todo.extend(x for x in value if isinstance(x, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)


class Def:
    def __init__(self, node, relfile):
        self.node = node
        self.file = relfile
        self.names = set()
        self.attrs = set()
        for n in walk_no_decorators(node):
            if isinstance(n, ast.Name):
                self.names.add(n.id)
            elif isinstance(n, ast.Attribute):
                self.attrs.add(n.attr)
        self.bases = [ast.unparse(b).split(".")[-1] for b in getattr(node, "bases", [])]
        self.src = ast.unparse(node)
        self.name = getattr(node, "name", None) or ast.unparse(node.targets[0])
        self.line = node.lineno

    def methods(self):
        if isinstance(self.node, ast.ClassDef):
            return [m for m in self.node.body if isinstance(m, ast.FunctionDef)]
        return []

    def config_bindings(self):
        """Config class names this def is declared for: `config: X` (class level or __init__), `config_class = X`."""
        out = []
        if not isinstance(self.node, ast.ClassDef):
            return out
        for st in self.node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == "config":
                out.append(ast.unparse(st.annotation).split(".")[-1].strip("\"'"))
            if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "config_class" for t in st.targets):
                out.append(ast.unparse(st.value).split(".")[-1])
            if isinstance(st, ast.FunctionDef) and st.name == "__init__":
                for a in st.args.args[1:2]:
                    if a.annotation is not None:
                        out.append(ast.unparse(a.annotation).split(".")[-1].strip("\"'"))
        return [n for n in out if n not in ("PreTrainedConfig", "PretrainedConfig", "None")]


class Modeling:
    def __init__(self, tf, d):
        self.defs = OrderedDict()
        self.files = []
        p = os.path.join(tf, "models", d)
        skip = ("configuration_", "processing_", "tokenization_", "image_processing_", "video_processing_",
                "feature_extraction_", "convert_", "modular_", "__init__", "generation_", "modeling_tf_", "modeling_flax_")
        names = sorted(fn for fn in os.listdir(p) if fn.endswith(".py") and not fn.startswith(skip))
        # modeling_*.py first; helpers such as idefics/vision.py and perceiver.py after
        for fn in sorted(names, key=lambda f: (not f.startswith("modeling_"), f)):
            if True:
                rel = "models/%s/%s" % (d, fn)
                self.files.append(rel)
                tree = ast.parse(open(os.path.join(tf, rel), encoding="utf-8").read())
                for node in tree.body:
                    if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                        self.defs.setdefault(node.name, Def(node, rel))
                    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                        # module-level tables such as GPTJ_ATTENTION_CLASSES = {"eager": GPTJAttention, ...}
                        self.defs.setdefault(node.targets[0].id, Def(node, rel))

    def bound(self, cfgname):
        """Defs (not PreTrainedModel bases) bound to the config class name, following base classes in the file."""
        direct = {}
        for n, d in self.defs.items():
            b = d.config_bindings()
            if b:
                direct[n] = b

        def binding(n, depth=0):
            if n in direct:
                return direct[n]
            d = self.defs.get(n)
            if d is None or depth > 8:
                return []
            for b in d.bases:
                r = binding(b, depth + 1)
                if r:
                    return r
            return []

        out = []
        for n, d in self.defs.items():
            if not isinstance(d.node, ast.ClassDef) or n.endswith("PreTrainedModel"):
                continue
            if cfgname in binding(n):
                out.append(n)
        if not out:
            # no annotation names the class: fall back to classes named after it (ClvpEncoderConfig -> ClvpEncoder*)
            stem = cfgname[:-len("Config")] if cfgname.endswith("Config") else cfgname
            out = [n for n, d in self.defs.items() if isinstance(d.node, ast.ClassDef) and n.startswith(stem)
                   and not n.endswith("PreTrainedModel") and not n.endswith("Config")]
        return out

    def closure(self, starts):
        seen, todo = [], list(starts)
        while todo:
            n = todo.pop(0)
            if n in seen or n not in self.defs:
                continue
            seen.append(n)
            d = self.defs[n]
            for m in sorted(d.names | set(d.bases)):
                if m in self.defs and m not in seen and not m.endswith("PreTrainedModel"):
                    todo.append(m)
        return seen


def config_reads(defs):
    out = set()
    for d in defs:
        for n in ast.walk(d.node):
            if isinstance(n, ast.Attribute) and isinstance(n.value, (ast.Name, ast.Attribute)):
                base = ast.unparse(n.value)
                if base.endswith("config"):
                    out.add(n.attr)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") and len(n.args) >= 2 \
                    and isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str) and ast.unparse(n.args[0]).endswith("config"):
                out.add(n.args[1].value)
            if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str) \
                    and ast.unparse(n.value).endswith("rope_parameters"):
                out.add("rope_parameters")
    return out


POS_NAME = re.compile(r"(^|_)(pos|position|positions|wpe|embed_positions|position_embeddings?|pos_embed|pos_emb)($|_)")


def pairing_of(mod, fn_def, seen=None):
    """(layout, function that decides it, note) for an apply-rotary function, following the rotate helpers it calls."""
    seen = seen or set()
    seen.add(fn_def.name)
    src = fn_def.src
    note = None
    if "view_as_complex" in src:
        return "interleaved", fn_def, None
    m = re.search(r"\.view\([^)]*//\s*2,\s*2\)\.transpose", src)
    if m:
        note = ("%s de-interleaves q/k (view(..., d//2, 2).transpose) and then rotates halves, which is the "
                "interleaved pairing on the checkpoint's original layout" % fn_def.name)
    if "repeat_interleave" in src:
        return "interleaved", fn_def, note
    # helpers called
    for n in ast.walk(fn_def.node):
        if isinstance(n, ast.FunctionDef) and n is not fn_def.node and "rotate" in n.name:
            lay = rotate_layout(ast.unparse(n))
            if lay:
                return ("interleaved" if note else lay), fn_def, note
    for name in sorted(fn_def.names):
        d = mod.defs.get(name)
        if d is not None and name not in seen and ("rotate" in name or "rotary" in name):
            lay = rotate_layout(d.src)
            if lay:
                return ("interleaved" if note else lay), d, note
    lay = rotate_layout(src)
    if lay:
        return lay, fn_def, note
    return None, fn_def, note


def rotate_layout(src):
    if re.search(r"\[[^\]]*\b[01]?::\s*2\s*\]", src) or re.search(r"(view|reshape)\([^)]*-1,\s*2\)", src) \
            or "unflatten(-1, (-1, 2))" in src or "view_as_complex" in src or "repeat_interleave" in src:
        return "interleaved"
    if re.search(r"//\s*2\s*\]", src) or re.search(r"chunk\((\w+, *)?2\b", src) or re.search(r"\[\.\.\., *:\s*\w+\s*//\s*2", src):
        return "half-split"
    return None


def sin_layout(src):
    """Layout of a sinusoidal table from the code that builds it."""
    s = src.replace(" ", "")
    m_cat = re.search(r"cat\(\[?\(?(torch\.)?(sin|cos)\(", s) or re.search(r"cat\(\(?\[?(\w+)\.(sin|cos)\(\)", s)
    if re.search(r"\[:,0::2\]=|\[:,::2\]=", s):
        first = re.search(r"\[:,0?::2\]=(torch\.)?(\w+\.)?(sin|cos)", s)
        if first:
            return "interleaved-sin-cos" if first.group(3) == "sin" else "interleaved-cos-sin"
        return "interleaved-sin-cos"
    if "stack(" in s and re.search(r"stack\(\(?\[?(torch\.)?\w*\.?sin", s) and "flatten" in s:
        return "interleaved-sin-cos"
    mv = re.search(r"cat\(\[(\w+),(\w+)\]", s)
    if m_cat is None and mv:
        a = re.search(mv.group(1) + r"=(torch\.|np\.)?(sin|cos)\(", s)
        if a:
            return "sin-first-half" if a.group(2) == "sin" else "cos-first-half"
    if m_cat:
        return "sin-first-half" if m_cat.group(2) == "sin" else "cos-first-half"
    if re.search(r"\[:,0?:\w+(//2)?\]=", s):
        first = re.search(r"\[:,0?:\w+(//2)?\]=[^\n]*?(?P<f>sin|cos)\(", s)
        if first:
            return "sin-first-half" if first.group("f") == "sin" else "cos-first-half"
    return None


def sin_spacing(src):
    """How the frequencies are spaced: "t2t" when the log step divides by (half - 1), as fairseq's
    get_embedding (M2M100, XGLM) and Whisper's sinusoids do; "paper" for base^(-2i/d)."""
    s = src.replace(" ", "")
    if re.search(r"log\([^)]*\)\)?/\(\w+(//2)?-1\)", s):
        return "t2t"
    return "paper"


class Analysis:
    """Positional features found in the closure of modeling defs bound to one config class."""

    def __init__(self, mod, starts):
        self.mod = mod
        self.names = mod.closure(starts)
        self.defs = [mod.defs[n] for n in self.names]
        self.reads = config_reads(self.defs)
        self.ev = {}
        allfn = []
        for d in self.defs:
            allfn.append((d.name, d))
            for m in d.methods():
                allfn.append((m.name, d))
        self.fnames = allfn
        self.scan()

    def first(self, pred):
        for d in self.defs:
            if pred(d):
                return d
        return None

    def scan(self):
        f = {}
        nonvision = [d for d in self.defs if "vision" not in d.name.lower() and "visual" not in d.name.lower()]
        # rope
        rot_cls = [d for d in nonvision if isinstance(d.node, ast.ClassDef) and "rotary" in d.name.lower()]
        apply_fns = [d for d in nonvision if isinstance(d.node, ast.FunctionDef) and
                     ((d.name.startswith("apply_") and "rotary" in d.name) or d.name == "_apply_rotary_emb")]
        # the plain text variant first (apply_rotary_pos_emb before apply_rotary_pos_emb_2d etc.)
        apply_fns.sort(key=lambda d: (d.name not in ("apply_rotary_pos_emb", "apply_multimodal_rotary_pos_emb",
                                                     "apply_rotary_emb"), self.names.index(d.name)))
        if rot_cls or apply_fns:
            f["rope"] = (apply_fns + rot_cls)[0]
        self.rot_cls = rot_cls
        self.apply_fns = apply_fns
        # alibi
        al = self.first(lambda d: "alibi" in d.name.lower())
        if al is None:
            al = self.first(lambda d: any("alibi" in m.name for m in d.methods()))
        if al is not None:
            f["alibi"] = al
        # T5-style buckets
        rb = self.first(lambda d: any(m.name == "_relative_position_bucket" for m in d.methods()) or d.name == "relative_position_bucket")
        if rb is not None:
            f["relative-buckets"] = rb
        # BERT-style distance embeddings
        rk = self.first(lambda d: "distance_embedding" in d.attrs)
        if rk is not None:
            f["relative-key"] = rk
        # DeBERTa disentangled
        dd = self.first(lambda d: d.name == "build_relative_position" or ("rel_embeddings" in d.attrs and "pos_att_type" in d.attrs))
        if dd is not None:
            f["disentangled"] = dd
        # conv positional embedding (wav2vec2 family)
        cv = self.first(lambda d: isinstance(d.node, ast.ClassDef) and "PositionalConvEmbedding" in d.name)
        if cv is not None:
            f["conv"] = cv
        # sinusoidal
        sn = self.first(lambda d: isinstance(d.node, ast.ClassDef) and "sinusoid" in d.name.lower() and "position" in d.name.lower())
        if sn is None:
            sn = self.first(lambda d: isinstance(d.node, ast.FunctionDef) and d.name in ("sinusoids", "positional_encoding", "create_sinusoidal_embeddings", "get_sinusoid_encoding_table", "_get_sinusoid_encoding_table"))
        if sn is not None:
            f["sinusoidal"] = sn
        # learned
        ln = self.first(lambda d: isinstance(d.node, ast.ClassDef) and "LearnedPositionalEmbedding" in d.name)
        self.learned_rows = None
        self.learned_def = None
        for d in self.defs:
            for n in ast.walk(d.node):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute):
                    tgt = n.targets[0].attr
                    if not POS_NAME.search(tgt) or "type" in tgt or "token_type" in tgt:
                        continue
                    v = n.value
                    if isinstance(v, ast.Call):
                        fn = ast.unparse(v.func)
                        if fn.endswith("Embedding") and not fn.endswith("RotaryEmbedding") and "Sinusoid" not in fn:
                            cls = self.mod.defs.get(fn.split(".")[-1])
                            if cls is not None and ("sinusoid" in cls.name.lower() or "rotary" in cls.name.lower()):
                                continue
                            if v.args:
                                a0 = ast.unparse(v.args[0])
                                m = re.search(r"config\.(\w+)", a0)
                                if self.learned_rows is None:
                                    self.learned_rows = m.group(1) if m else a0
                                    self.learned_def = d
                            if ln is None:
                                ln = d
                        elif fn.endswith("Parameter") and ln is None:
                            ln = d
        if ln is not None:
            f["learned"] = ln
        self.features = f


# ----------------------------------------------------------------------------------------------


def ev(rule, d, function=None, line=None):
    return {"rule": rule, "file": d.file, "function": function or d.name, "line": line or d.line}


def method_line(d, name):
    for m in d.methods():
        if m.name == name:
            return m.lineno
    return d.line


def decide_stack(configs, cc, defaults, sub_keys, text_sub, bound_names):
    n = cc.name
    args = set(defaults)
    if text_sub is not None:
        return "multimodal"
    if sub_keys and any(k in sub_keys for k in ("vision_config", "audio_config")):
        return "multimodal"
    enc_dec = False
    v, _ = configs.attr(cc, "is_encoder_decoder")
    if v is not None and lit(v) is True:
        enc_dec = True
    if "is_encoder_decoder" in defaults and defaults["is_encoder_decoder"][0] is True:
        enc_dec = True
    audio_keys = {"num_mel_bins", "feat_extract_norm", "conv_dim", "feature_size", "sampling_rate", "input_feat_per_channel",
                  "num_conv_pos_embeddings", "audio_channels", "codebook_size", "num_codebooks"}
    if "Audio" in n or "Speech" in n or "Wav" in n or (args & audio_keys and "vocab_size" not in args) or "num_mel_bins" in args \
            or "input_feat_per_channel" in args or "feat_extract_norm" in args:
        return "audio"
    if "Vision" in n or "Image" in n or (("image_size" in args or "patch_size" in args) and "vocab_size" not in args):
        return "vision"
    if enc_dec:
        return "encoder-decoder"
    b = " ".join(bound_names)
    if "ForMaskedLM" in b:
        return "encoder"
    if "ForCausalLM" in b or "LMHeadModel" in b:
        return "decoder"
    if "vocab_size" in args and ("ForSequenceClassification" in b or "ForTokenClassification" in b):
        return "encoder"
    return "other"


def layer_kinds(configs, cc, defaults, cfg_src_names):
    init, owner = configs.init_of(cc)
    if init is None:
        return None
    src = ast.unparse(init)
    strings = sorted({n.value for n in ast.walk(init) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                      and re.fullmatch(r"[a-z0-9_]+", n.value) and n.value not in defaults and
                      (n.value.endswith("attention") or n.value in LAYER_KIND_WORDS)})

    def kind(v):
        return "none" if any(w in v for w in NOATTN_WORDS) and "attention" not in v.replace("linear_attention", "") \
            else ("none" if v in ("linear_attention",) else "attention")

    if "attn_layer_period" in defaults:
        return {"key": "attn_layer_period", "values": {"attention": "attention", "mamba": "none"},
                "rule": "layer i is attention when i % attn_layer_period == attn_layer_offset, otherwise mamba"}, owner, init
    if "layers_block_type" in defaults or "layers_block_type" in src:
        vals = {s: kind(s) for s in strings if s not in ("layers_block_type",)} or {"attention": "attention", "mamba": "none"}
        return {"key": "layers_block_type", "values": vals,
                "rule": "layers_block_type (or the pattern it is built from) names each layer's kind"}, owner, init
    if "attn_layer_indices" in defaults:
        return {"key": "attn_layer_indices", "values": {"attention": "attention", "mamba": "none"},
                "rule": "layers listed in attn_layer_indices are attention layers, all others mamba"}, owner, init
    if "block_types" in defaults:
        vals = {s: kind(s) for s in strings} or {"recurrent": "none", "attention": "attention"}
        return {"key": "block_types", "values": vals,
                "rule": "block_types is a repeating pattern: layer i has kind block_types[i % len(block_types)]"}, owner, init
    if "hybrid_override_pattern" in defaults:
        return {"key": "hybrid_override_pattern", "values": {"*": "attention", "M": "none", "-": "none", "E": "none"},
                "rule": "one character per layer in hybrid_override_pattern: * attention, M mamba, - MLP, E MoE"}, owner, init
    if "no_rope_layers" in defaults or "no_rope_layers" in src:
        return {"key": "no_rope_layers", "values": {"1": "attention", "0": "attention-nope"},
                "rule": "no_rope_layers[i] is 1 for RoPE attention and 0 for attention without positional encoding "
                        "(default pattern from no_rope_layer_interval when present)"}, owner, init
    if "layer_types" in defaults or "self.layer_types" in src:
        vals = {s: kind(s) for s in strings if s not in ("layer_types", "rope_type", "default", "model_type", "attention_type",
                                                          "full", "sliding")}
        if not vals:
            vals = {"full_attention": "attention", "sliding_attention": "attention"}
        rule = "layer_types[i] names layer i's kind"
        m = re.search(r"self\.layer_types\s*=\s*\[(.{0,200})", src)
        if m:
            rule += "; default built in __init__: [" + re.sub(r"\s+", " ", m.group(1))[:160].rstrip() + " ..."
        return {"key": "layer_types", "values": vals, "rule": rule}, owner, init
    return None


def mrope_index_rule(tf, modeling):
    """How the family's get_rope_index gives vision tokens their time ids, and where it says so."""
    if not modeling:
        return None
    path = os.path.join(tf, modeling)
    if not os.path.exists(path):
        return None
    text = open(path).read()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == "get_rope_index":
            src = ast.get_source_segment(text, node)
            if "audio" in src or "temporal_merge_size" in src:
                rule = "own"        # audio positions (Omni) or merged time steps (ERNIE 4.5 VL): not modelled
            elif "second_per_grid" in src:
                rule = "seconds"    # Qwen2.5-VL: time ids from second_per_grid_ts x tokens_per_second
            elif "repeat_interleave(video_grid_thw" in src or "video_frame_num" in src:
                rule = "frames"     # Qwen3-VL, GLM-4V: every temporal grid its own timestamped frame
            else:
                rule = "steps"      # Qwen2-VL: one time id per temporal grid
            return rule, node.lineno
    return None


def default_rope_reads_prf(tf, modeling):
    """Whether the family's own compute_default_rope_parameters scales head_dim by partial_rotary_factor
    (None when the file has no such function)."""
    path = os.path.join(tf, modeling) if modeling else ""
    if not path or not os.path.exists(path):
        return None
    text = open(path).read()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == "compute_default_rope_parameters":
            return "partial_rotary_factor" in ast.get_source_segment(text, node), node.lineno
    return None


def vision_defaults(tf, config_ref):
    """spatial_merge_size and tokens_per_second as the family's vision configuration class sets them."""
    path = os.path.join(tf, config_ref.split(":")[0])
    if not os.path.exists(path):
        return {}
    out = {}
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            args = node.args.args[len(node.args.args) - len(node.args.defaults):]
            for a, d in zip(args, node.args.defaults):
                if a.arg in ("spatial_merge_size", "tokens_per_second") and isinstance(d, ast.Constant):
                    out.setdefault(a.arg, d.value)
    return out


def derive(tf, source, overrides):
    configs = Configs(tf)
    mods = {}
    types = {}
    undecided = []
    for mt in sorted(configs.by_type):
        cc = configs.by_type[mt]
        d = cc.file.split("/")[1]
        if d not in mods:
            mods[d] = Modeling(tf, d)
        mod = mods[d]
        defaults = configs.init_defaults(cc)
        text_sub, sub_keys = text_sub_type(configs, cc)
        bound = mod.bound(cc.name)
        an = Analysis(mod, bound)
        e = OrderedDict()
        e["origin"] = "transformers"
        e["config"] = "%s:%s" % (cc.file, cc.name)
        modfile = ""
        if an.defs:
            modfile = Counter(x.file for x in an.defs).most_common(1)[0][0]
        elif mod.files:
            modfile = mod.files[0]
        e["modeling"] = modfile
        stack = decide_stack(configs, cc, defaults, sub_keys, text_sub, bound)
        e["stack"] = stack
        text_like = "vocab_size" in defaults
        if text_sub:
            e["text_config"] = text_sub
        evidence = []
        notes = []
        feats = an.features
        # defaults
        dflt = OrderedDict()
        for k in DEFAULT_KEYS:
            if k in defaults and k != "rope_theta":
                dflt[k] = jsonable(defaults[k][0])
        dt, dt_owner = configs.attr(cc, "default_theta")
        if "rope_theta" in defaults:
            dflt["rope_theta"] = jsonable(defaults["rope_theta"][0])
        elif dt is not None:
            dflt["rope_theta"] = jsonable(lit(dt))
            evidence.append({"rule": "defaults", "file": dt_owner.file, "function": dt_owner.name + ".default_theta",
                             "line": dt.lineno})
        elif "rope_parameters" in defaults or "rope" in feats:
            dflt["rope_theta"] = 10000.0
        init, owner = configs.init_of(cc)
        if init is not None:
            evidence.append({"rule": "defaults", "file": owner.file, "function": owner.name + ".__init__", "line": init.lineno})
        # scheme
        scheme = None
        sbk = None
        if "rope" in feats and "alibi" in feats:
            key = "alibi" if "alibi" in defaults else ("attn_config.alibi" if "attn_config" in defaults else "alibi")
            sbk = {key: {"true": "alibi", "false": "rope"}}
            on = defaults.get("alibi", (False,))[0]
            scheme = "alibi" if on is True else "rope"
            evidence.append(ev("scheme", feats["alibi"]))
        elif "rope" in feats:
            scheme = "rope"
        elif "alibi" in feats:
            scheme = "alibi"
            if "attn_config" in defaults:
                sbk = {"attn_config.alibi": {"true": "alibi", "false": "learned"}}
        elif "relative-buckets" in feats:
            scheme = "relative-buckets"
        elif "disentangled" in feats:
            scheme = "other"
            notes.append("DeBERTa-style disentangled attention: content-to-position and position-to-content terms over "
                         "log-bucketed relative distances (relative_attention, position_buckets, max_relative_positions)")
        elif "relative-key" in feats:
            scheme = "relative-key"
        elif "sinusoidal" in feats and "learned" in feats and \
                any(k in defaults for k in ("sinusoidal_pos_embds", "sinusoidal_embeddings")):
            key = "sinusoidal_pos_embds" if "sinusoidal_pos_embds" in defaults else "sinusoidal_embeddings"
            sbk = {key: {"true": "sinusoidal", "false": "learned"}}
            scheme = "sinusoidal" if defaults[key][0] is True else "learned"
        elif "sinusoidal" in feats:
            scheme = "sinusoidal"
            if "learned" in feats:
                notes.append("also has a learned position embedding (%s)" % feats["learned"].name)
        elif "learned" in feats:
            scheme = "learned"
        elif "conv" in feats:
            scheme = "other"
            notes.append("convolutional relative positional embedding (%s) added to the features" % feats["conv"].name)
        if scheme is None:
            scheme = "none" if an.defs else None
        if "position_embedding_type" in defaults and scheme in ("learned", "relative-key", "rope"):
            pet = defaults["position_embedding_type"][0]
            m = {"\"absolute\"": "learned"}
            if "relative-key" in feats:
                m.update({"\"relative_key\"": "relative-key", "\"relative_key_query\"": "relative-key"})
            if "rope" in feats:
                m["\"rotary\""] = "rope"
            if len(m) > 1:
                sbk = {"position_embedding_type": m}
                scheme = m.get(json.dumps(pet), scheme)
        if scheme in feats:
            evidence.insert(0, ev("scheme", feats[scheme]))
        elif scheme == "rope" and "rope" in feats:
            evidence.insert(0, ev("scheme", feats["rope"]))
        if sbk:
            e["scheme_by_key"] = sbk
        # rope details
        if scheme == "rope" or (sbk and "rope" in json.dumps(sbk)):
            if an.apply_fns:
                fn = an.apply_fns[0]
                # DeepSeek-V3 style: both variants, chosen by config.rope_interleave
                inter = [a for a in an.apply_fns if a.name.endswith("interleave")]
                if inter and "rope_interleave" in defaults:
                    use_inter = defaults["rope_interleave"][0] is True
                    fn = inter[0] if use_inter else [a for a in an.apply_fns if not a.name.endswith("interleave")][0]
                    notes.append("rope_interleave (default %s) picks %s; otherwise apply_rotary_pos_emb with rotate_half"
                                 % (json.dumps(defaults["rope_interleave"][0]), inter[0].name))
                lay, where, note = pairing_of(mod, fn)
                if "mrope_section" in fn.src:
                    notes.append("multimodal RoPE: %s splits the rotary frequencies into mrope_section chunks driven by "
                                 "temporal/height/width position ids (all equal for text)" % fn.name)
                if note:
                    notes.append(note)
                if lay:
                    e["layout"] = lay
                    evidence.append(ev("pairing", where))
            if "layout" not in e:
                for rc in an.rot_cls:
                    lay = rotate_layout(rc.src)
                    if lay:
                        e["layout"] = lay
                        evidence.append(ev("pairing", rc))
                        break
            if an.rot_cls:
                rc = an.rot_cls[0]
                if "ROPE_INIT_FUNCTIONS" in rc.names or "compute_default_rope_parameters" in rc.attrs:
                    e["rope_init"] = "rope_utils"
                else:
                    e["rope_init"] = "own"
                evidence.append(ev("rope_init", rc, rc.name + ".__init__", method_line(rc, "__init__")))
            elif an.defs:
                e["rope_init"] = "own"
        if scheme == "learned":
            rows = an.learned_rows
            rows_key = rows if rows and re.fullmatch(r"\w+", rows) and rows in (set(defaults) | an.reads) else None
            ld = feats["learned"]
            offset, rule = 0, "fixed"
            s = ld.src + "".join(x.src for x in an.defs if "create_position_ids_from_input_ids" in x.name)
            if "LearnedPositionalEmbedding" in ld.name:
                m = re.search(r"self\.offset\s*=\s*(\d+)", ld.src)
                offset = int(m.group(1)) if m else 0
                m2 = re.search(r"num_embeddings\s*\+\s*self\.offset", ld.src)
                if rows_key is None:
                    for k in ("max_position_embeddings", "max_target_positions", "n_positions"):
                        if k in defaults:
                            rows_key = k
                            break
            if any("create_position_ids_from_input_ids" in x.name or "create_position_ids_from_input_ids" in x.attrs
                   for x in an.defs) and "padding_idx" in s:
                offset, rule = 1, "pad_token_id+1"
            # BART, OPT: nn.Embedding(num_embeddings + self.offset): the offset rows come on top of
            # rows_key, so every one of its positions has a row. RoBERTa: the table is rows_key long.
            learned = {"rows_key": rows_key or "", "offset": offset, "offset_rule": rule,
                       "offset_rows_added": bool(re.search(r"\w+\s*\+\s*self\.offset", ld.src)) and rule == "fixed"}
            if rule == "pad_token_id+1":
                pad = defaults.get("pad_token_id", (None,))[0]
                learned["offset"] = (pad + 1) if isinstance(pad, int) else 1
            e["learned"] = learned
            evidence.append(ev("learned", ld))
            if rows_key is None and rows:
                notes.append("learned table rows: %s" % rows)
        if scheme == "sinusoidal":
            sd = feats["sinusoidal"]
            lay = sin_layout(sd.src)
            builder = sd.src
            if lay is None:
                for x in an.defs:
                    if "get_embedding" in [m.name for m in x.methods()] or x.name in ("sinusoids",):
                        lay = sin_layout(x.src)
                        if lay:
                            builder = x.src
                            break
            rows_key = None
            for k in ("max_position_embeddings", "max_source_positions", "max_target_positions", "n_positions"):
                if k in defaults:
                    rows_key = k
                    break
            m = re.search(r"self\.offset\s*=\s*(\d+)", sd.src)
            offset = int(m.group(1)) if m else 0
            if "padding_idx + 1" in sd.src or "padding_idx+1" in sd.src.replace(" ", ""):
                offset = (defaults.get("pad_token_id", (1,))[0] or 0) + 1
            e["sinusoidal"] = {"rows_key": rows_key or "", "layout": lay or "unknown", "offset": offset,
                               "spacing": sin_spacing(builder),
                               "offset_rows_added": bool(re.search(r"\w+\s*\+\s*self\.offset", sd.src))}
            evidence.append(ev("sinusoidal", sd))
        if scheme == "relative-buckets":
            e["relative"] = {"buckets_key": "relative_attention_num_buckets" if "relative_attention_num_buckets" in defaults else "",
                             "max_distance_key": "relative_attention_max_distance" if "relative_attention_max_distance" in defaults else ""}
            evidence.append(ev("relative", feats["relative-buckets"], feats["relative-buckets"].name + "._relative_position_bucket",
                               method_line(feats["relative-buckets"], "_relative_position_bucket")))
        lk = layer_kinds(configs, cc, defaults, an.reads)
        if lk:
            k, owner, init = lk
            e["layer_kinds"] = k
            evidence.append({"rule": "layer_kinds", "file": owner.file, "function": owner.name + ".__init__", "line": init.lineno})
        e["defaults"] = dflt
        reads = (an.reads | set(defaults)) & POS_READ_KEYS
        if "rope_parameters" in reads:
            # PreTrainedConfig.__init__ hands every config with rope_parameters to
            # RotaryEmbeddingConfigMixin.convert_rope_params_to_dict, which pops the legacy
            # rope_scaling, rope_theta and partial_rotary_factor into rope_parameters.
            reads |= MIXIN_ROPE_KEYS
        e["reads"] = sorted(reads)
        e["scheme"] = scheme
        if stack == "other" and text_like and scheme not in (None, "none"):
            # text sub-models with no head class of their own (Qwen2_5_VLTextConfig, CLIPTextConfig, ...)
            dec = scheme in ("rope", "alibi") or defaults.get("is_decoder", (False,))[0] is True \
                or re.search(r"Decoder|Talker|Causal", cc.name) is not None
            e["stack"] = "decoder" if dec else "encoder"
        e["_evidence"] = evidence
        e["_notes"] = notes
        types[mt] = e

    # wrappers: scheme from the text sub-config's entry
    for mt, e in types.items():
        if e["stack"] == "multimodal" and e.get("text_config"):
            seen = set()
            t = e["text_config"]
            while t in types and types[t]["stack"] == "multimodal" and types[t].get("text_config") and t not in seen:
                seen.add(t)
                t = types[t]["text_config"]
            te = types.get(t)
            own_text_stack = te is not None and te["modeling"] == e["modeling"]
            if te is not None and te is not e:
                for k in ("scheme", "scheme_by_key", "layout", "rope_init", "learned", "sinusoidal", "relative", "layer_kinds"):
                    if k in te:
                        e[k] = te[k]
                    elif k in e:
                        del e[k]
                e["_notes"].append("scheme taken from the text sub-config %s (%s)" %
                                   (t, "same modeling file" if own_text_stack else te["modeling"] or te["config"]))
            elif te is None:
                e["_notes"].append("text sub-config %s is not a transformers model_type" % t)
    # M-RoPE position ids: the rule of the get_rope_index in the family's modeling file; and
    # whether the family's default RoPE honours partial_rotary_factor at all
    for mt, e in types.items():
        if e["scheme"] != "rope":
            continue
        prf = default_rope_reads_prf(tf, e.get("modeling"))
        if prf is not None and not prf[0]:
            e["default_rope_ignores_prf"] = True
            e["_evidence"].append({"rule": "partial_rotary_factor", "file": e["modeling"],
                                   "function": "compute_default_rope_parameters", "line": prf[1]})
        found = mrope_index_rule(tf, e.get("modeling"))
        if found:
            e["mrope_index"] = found[0]
            vd = vision_defaults(tf, e["config"])
            if vd:
                e["vision_defaults"] = vd
            e["_evidence"].append({"rule": "mrope_index", "file": e["modeling"], "function": "get_rope_index", "line": found[1]})
    # overrides
    for mt, ov in sorted(overrides.items()):
        if mt not in types:
            print("override for unknown model_type %s" % mt, file=sys.stderr)
            continue
        e = types[mt]
        for k, v in ov.items():
            if k == "why":
                continue
            if k == "note":
                e["_notes"] = [v]
                continue
            if k == "remove":
                for r in v:
                    e.pop(r, None)
                continue
            e[k] = v
        e["_notes"].append("hand-checked (scripts/model_types/overrides.json)")
    out = {}
    for mt, e in types.items():
        if e["scheme"] is None:
            undecided.append(mt)
            e["scheme"] = "other"
            e["_notes"].append("no modeling code bound to this configuration class was found")
        e["evidence"] = e.pop("_evidence")
        notes = e.pop("_notes")
        if notes:
            e["note"] = "; ".join(notes)
        if e["scheme"] != "rope":
            for k in ("layout", "rope_init"):
                if k in e and not (e.get("scheme_by_key") and "rope" in json.dumps(e["scheme_by_key"])):
                    del e[k]
        out[mt] = e
    return {"format": 1, "source": source, "types": out}, configs, undecided


def merge_remote(table, path):
    if not os.path.exists(path):
        return
    remote = json.load(open(path, encoding="utf-8"))
    entries = remote.get("types", remote)
    for mt, e in sorted(entries.items()):
        e = dict(e)
        e["origin"] = "remote-code"
        if mt in table["types"] and not e.get("replaces_transformers"):
            continue
        table["types"][mt] = e


def class_default_configs(table, configs, outdir, commit):
    os.makedirs(outdir, exist_ok=True)
    wanted = {}
    for mt, e in table["types"].items():
        if e["origin"] != "transformers" or e["scheme"] == "none" or e["stack"] == "vision":
            continue
        cfile, cname = e["config"].split(":")
        obj = {"_posviz_note": "written from %s defaults in %s at transformers %s, not a published file" % (cname, cfile, commit[:10]),
               "model_type": mt}
        d = e.get("defaults", {})
        for k, v in d.items():
            if k == "rope_theta":
                continue
            if v is None and k not in ("head_dim", "sliding_window"):
                continue
            obj[k] = v
        th = d.get("rope_theta")
        if th is not None and e["scheme"] == "rope" or ("rope_parameters" in d and th is not None):
            if isinstance(th, dict):
                lt = {"global": "full_attention", "local": "sliding_attention"}
                obj["rope_parameters"] = {lt.get(k, k): {"rope_type": "default", "rope_theta": v} for k, v in th.items()}
            elif "rope_parameters" in d:
                rp = d.get("rope_parameters") or {}
                if not isinstance(rp, dict):
                    rp = {}
                rp = dict(rp)
                rp.setdefault("rope_type", "default")
                rp.setdefault("rope_theta", th)
                obj["rope_parameters"] = rp
            else:
                obj["rope_theta"] = th
        if e.get("text_config"):
            obj["text_config"] = {"model_type": e["text_config"]}
        wanted[mt + ".json"] = jdump(obj)
    for fn in sorted(os.listdir(outdir)):
        if fn.endswith(".json") and fn not in wanted:
            os.remove(os.path.join(outdir, fn))
    for fn, text in wanted.items():
        p = os.path.join(outdir, fn)
        if not os.path.exists(p) or open(p, encoding="utf-8").read() != text:
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
    return len(wanted)


def summary(table, undecided):
    by_stack = Counter(e["stack"] for e in table["types"].values())
    by_scheme = Counter(e["scheme"] for e in table["types"].values())
    cross = Counter((e["stack"], e["scheme"]) for e in table["types"].values())
    print("%d model types" % len(table["types"]), file=sys.stderr)
    print("by stack:  " + ", ".join("%s %d" % kv for kv in sorted(by_stack.items())), file=sys.stderr)
    print("by scheme: " + ", ".join("%s %d" % kv for kv in sorted(by_scheme.items())), file=sys.stderr)
    for (st, sc), n in sorted(cross.items()):
        print("  %-16s %-17s %d" % (st, sc, n), file=sys.stderr)
    other = sorted(mt for mt, e in table["types"].items() if e["scheme"] == "other")
    print("scheme other (%d): %s" % (len(other), " ".join(other)), file=sys.stderr)
    print("undecided (no modeling code found) (%d): %s" % (len(undecided), " ".join(sorted(undecided))), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--transformers", required=True, help="a transformers checkout's root or its src/transformers")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("-o", "--output", default=os.path.join(REPO, "assets", "model_types.json"))
    ap.add_argument("--configs-dir", default=os.path.join(REPO, "tests", "data", "class-default-configs"))
    ap.add_argument("--overrides", default=os.path.join(HERE, "overrides.json"))
    ap.add_argument("--remote", default=os.path.join(HERE, "remote_code.json"))
    ap.add_argument("--check", metavar="FILE", help="compare the derived table with FILE; exit 1 with a diff when they differ")
    a = ap.parse_args()
    tf = a.transformers
    if os.path.isdir(os.path.join(tf, "src", "transformers")):
        tf = os.path.join(tf, "src", "transformers")
    if not os.path.isdir(os.path.join(tf, "models")):
        ap.error("%s has no models/ directory" % tf)
    if not re.fullmatch(r"[0-9a-f]{40}", a.commit):
        ap.error("--commit must be 40 hex digits")
    overrides = {}
    if os.path.exists(a.overrides):
        overrides = json.load(open(a.overrides, encoding="utf-8"))
        overrides = {k: v for k, v in overrides.items() if not k.startswith("_")}
    source = {"repository": "huggingface/transformers", "commit": a.commit, "date": a.date, "version": a.version}
    table, configs, undecided = derive(tf, source, overrides)
    merge_remote(table, a.remote)
    text = jdump(table)
    summary(table, undecided)
    if a.check:
        old = open(a.check, encoding="utf-8").read() if os.path.exists(a.check) else ""
        if old == text:
            print("%s matches the table derived from %s" % (a.check, tf), file=sys.stderr)
            return 0
        diff = difflib.unified_diff(old.splitlines(True), text.splitlines(True), a.check, "derived", n=2)
        sys.stdout.writelines(diff)
        print("%s differs from the table derived from %s" % (a.check, tf), file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(text)
    n = class_default_configs(table, configs, a.configs_dir, a.commit)
    print("wrote %s and %d class-default configs in %s" % (a.output, n, a.configs_dir), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
