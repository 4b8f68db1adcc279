#!/usr/bin/env python3
"""The message sweep of tests/scripts/cli_escaping.sh (its header says what is checked).

    python3 escaping_sweep.py POSVIZ SCRATCH PRESETS_DIR
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

CUT = 80                      # core/untrusted_text.hpp: kDisplayTextBytes
EVIL = "\x1b[31m\x07x\ny" + "Q" * 5000
CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]")   # every control byte but the line break
RUN_OF_Q = re.compile(rb"Q+")
FLAG = re.compile(r"(?<![\w-])(-o|--[a-z0-9][a-z0-9-]*)\b")   # every option a help text names

posviz, scratch, presets = sys.argv[1], sys.argv[2], sys.argv[3]
out_dir = os.path.join(scratch, "o")


def run(args, timeout=60):
    try:
        p = subprocess.run([posviz] + args, capture_output=True, timeout=timeout, cwd=out_dir)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "time-out", b""


def flags_of(cmd):
    code, text = run(cmd + ["--help"])
    return sorted(set(FLAG.findall(text.decode("utf-8", "replace")))) if code == 0 else []


def problems(code, text):
    found = []
    if code not in (0, 1, 2):
        found.append(f"exit {code}")
    if CONTROL.search(text):
        found.append("a raw control byte " + repr(CONTROL.search(text).group()))
    if b"x\ny" in text:
        found.append("the value's line break printed raw")
    longest = max((len(m) for m in RUN_OF_Q.findall(text)), default=0)
    if longest > CUT:
        found.append(f"the value echoed at {longest} bytes (the cut is {CUT})")
    return found


# ---- The paths: each a label and the arguments that send the value down it ------------------
paths = []
code, text = run(["export", "--help"])
views = re.search(r"Views: ([a-z0-9, -]+)\.", text.decode()).group(1).split(", ")
assert len(views) >= 20, views
npy = os.path.join(out_dir, "x.npy")
for view in views:
    for flag in flags_of(["export", view]):
        tail = [flag, EVIL] if flag in ("-o", "--output") else [flag, EVIL, "-o", npy]
        paths.append((f"export {view} {flag}", ["export", view] + tail))
    paths.append((f"export {view} --animate NAME", ["export", view, "--animate", EVIL + "=0:1", "-o", "a.gif"]))
paths.append(("export VIEW", ["export", EVIL, "-o", npy]))
for cmd in (["model"], ["check"], ["train"], ["learn"], ["examples"]):
    flags = flags_of(cmd)
    assert flags, f"{cmd[0]} --help named no option"
    for flag in flags:
        paths.append((f"{cmd[0]} {flag}", cmd + [flag, EVIL]))
    paths.append((f"{cmd[0]} ARGUMENT", cmd + [EVIL]))
paths.append(("model --compare A B", ["model", "--compare", EVIL, "llama-2-7b"]))
paths.append(("learn STEP --set", ["learn", "rope-2d", "--set", EVIL + "=1"]))
paths.append(("learn STEP --set value", ["learn", "rope-2d", "--set", "l0=" + EVIL]))

# Every string field a shipped preset holds, and a key of that name, in a config.json.
configs = os.path.join(scratch, "configs")
os.makedirs(configs, exist_ok=True)
fields = set()
for name in sorted(os.listdir(presets)):
    if not name.endswith(".json"):
        continue
    with open(os.path.join(presets, name)) as f:
        base = json.load(f)
    if not isinstance(base, dict):
        continue
    for key, value in base.items():
        inner = value.items() if isinstance(value, dict) else []
        for sub, v in [(None, value)] + [(s, v) for s, v in inner]:
            if not isinstance(v, str) or (key, sub) in fields:
                continue
            fields.add((key, sub))
            changed = json.loads(json.dumps(base))
            if sub is None:
                changed[key] = EVIL
            else:
                changed[key][sub] = EVIL
            path = os.path.join(configs, f"{len(fields)}.json")
            with open(path, "w") as f:
                json.dump(changed, f)
            label = key if sub is None else f"{key}.{sub}"
            paths.append((f"config field {label} (model)", ["model", "--config", path]))
            paths.append((f"config field {label} (export)", ["export", "rope-freqs", "--config", path, "-o", npy]))
    for where in (None, "rope_scaling"):
        changed = json.loads(json.dumps(base))
        target = changed if where is None else changed.setdefault(where, {"rope_type": "linear", "factor": 2.0})
        if not isinstance(target, dict):
            continue
        target[EVIL] = 1
        path = os.path.join(configs, f"key-{where}-{name}")
        with open(path, "w") as f:
            json.dump(changed, f)
        paths.append((f"config key in {where or 'the top level'} of {name}", ["model", "--config", path]))
    # A config file's own name (a missing one, quoted by every reader).
paths.append(("config file name", ["model", "--config", os.path.join(configs, EVIL)]))

failures = 0
# ---- The sources: every quote goes through the escaper at its one length ---------------------
# A call of displayText or quotedText that passes its own length would cut that quote elsewhere.
root = os.path.dirname(os.path.dirname(os.path.abspath(presets)))
sites = 0
own_length = re.compile(r"\b(displayText|quotedText)\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*,\s*[^()]*?\)")
for folder in ("app", "core"):
    for dirpath, _, names in os.walk(os.path.join(root, folder)):
        for name in names:
            if not name.endswith((".cpp", ".hpp")) or name.startswith("untrusted_text"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                text = f.read()
            sites += len(re.findall(r"\b(?:displayText|quotedText|displayMessage)\(", text))
            for m in own_length.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                failures += 1
                print(f"FAIL: {os.path.relpath(os.path.join(dirpath, name), root)}:{line}: {m.group(0)[:100]} cuts at a length of its own")
print(f"ok: {sites} message sites in app/ and core/ quote through displayText, quotedText or displayMessage")
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for (label, args), (code, text) in zip(paths, pool.map(lambda p: run(p[1]), paths)):
        for problem in problems(code, text):
            failures += 1
            print(f"FAIL: {label}: {problem} :: {text[:160]!r}")
for leftover in os.listdir(out_dir):
    os.unlink(os.path.join(out_dir, leftover))
print(f"ok: {len(paths) - failures} of {len(paths)} message paths escape the value and cut it at {CUT} bytes"
      f" ({len(views)} views, {len(fields)} config fields)")
print(f"cli_escaping: {len(paths)} paths, {failures} failed")
sys.exit(1 if failures else 0)
