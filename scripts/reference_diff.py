#!/usr/bin/env python3
"""Where two runs of scripts/reference_outputs.sh differ, and by how much: for each output
file that is not byte-identical, how many of its numbers differ, the largest |a - b| and
the largest |a - b| / max(1, |a|) with the JSON path where each is, and every difference
that is not a number (a string, a key, a length), which is listed, not measured. What a
kernel change that moves float rounding reports (issue 38). Usage:
  python3 scripts/reference_diff.py BEFORE_DIR AFTER_DIR"""
import json, os, sys

def load(p):
    t = open(p).read()
    body = t.rsplit("\nexit", 1)[0]
    try:
        return json.loads(body), t.rsplit("\nexit", 1)[-1].strip()
    except Exception:
        return t, None

def walk(a, b, path, acc):
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        if a != b: acc["other"].append((path, a, b))
        return
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        d = abs(a - b)
        r = d / max(1.0, abs(a))
        if d > acc["abs"][0]: acc["abs"] = (d, path, a, b)
        if r > acc["rel"][0]: acc["rel"] = (r, path, a, b)
        if d: acc["n"] += 1
        acc["total"] += 1
        return
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys(): acc["other"].append((path, "keys", sorted(set(a) ^ set(b))))
        for k in a.keys() & b.keys(): walk(a[k], b[k], path + "." + k, acc)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): acc["other"].append((path, "len", (len(a), len(b))))
        for i, (x, y) in enumerate(zip(a, b)): walk(x, y, f"{path}[{i}]", acc)
        return
    acc["other"].append((path, type(a).__name__, type(b).__name__))

A, B = sys.argv[1], sys.argv[2]
worst = (0, "")
for f in sorted(os.listdir(A)):
    if not f.endswith(".json"): continue
    pa, pb = os.path.join(A, f), os.path.join(B, f)
    if open(pa).read() == open(pb).read(): continue
    (a, ea), (b, eb) = load(pa), load(pb)
    acc = {"abs": (0, "", 0, 0), "rel": (0, "", 0, 0), "other": [], "n": 0, "total": 0}
    walk(a, b, "", acc)
    print(f"{f}: {acc['n']} of {acc['total']} numbers differ; max abs {acc['abs'][0]:.3g} at {acc['abs'][1]} ({acc['abs'][2]} vs {acc['abs'][3]}); max rel {acc['rel'][0]:.3g} at {acc['rel'][1]}; exit {ea} vs {eb}")
    for o in acc["other"][:5]: print("   other:", o)
    if len(acc["other"]) > 5: print(f"   ... {len(acc['other'])} non-numeric differences")
    if acc["rel"][0] > worst[0]: worst = (acc["rel"][0], f)
print(f"largest relative difference: {worst[0]:.3g} in {worst[1] or 'none'}")
