#!/usr/bin/python3
"""The numbers a panel draws equal the JSON poslab-cli prints for the same preset.

Runs `poslab --check` under xvfb-run with POSLAB_DRAWN_NUMBERS set: the rope, attention,
kv, dream and arena panels append, for their defaults and every check preset, the numbers
they drew and the poslab-cli arguments that print them (app/widgets/drawn_numbers.hpp; the
arena records the selected ship's state vector of a live episode nobody steers). Each record
is then replayed through poslab-cli and every recorded path compared with its output.
Usage: panel_numbers_test.py <poslab> <poslab-cli>
"""
import json
import math
import os
import subprocess
import sys
import tempfile

# Runs the app on a virtual X server and returns its own exit code (see the script).
XVFB_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gui", "xvfb.sh")

LABS = {"rope", "attention", "kv", "dreams", "arena", "length"}
# The length lab draws only when its shipped models (assets/models/lm_*.safetensors) exist;
# without them it shows why and records nothing, which is not a failure here.
MODELS_DIR = os.environ.get("POSLAB_MODELS_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "models")


def lab_expected(lab):
    if lab != "length":
        return True
    return any(n.startswith("lm_") and n.endswith(".safetensors")
               for n in (os.listdir(MODELS_DIR) if os.path.isdir(MODELS_DIR) else []))


def resolve(doc, path):
    for part in path.split("/"):
        if isinstance(doc, list):
            doc = doc[int(part)]
        else:
            doc = doc[part]
    return doc


def differences(want, got, path, out, tol=1e-5):
    """Appends to out one line per place where got differs from want."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            out.append(f"{path}: want an object, CLI has {type(got).__name__}")
            return
        for k, v in want.items():
            if k not in got:
                out.append(f"{path}/{k}: missing in the CLI's JSON")
            else:
                differences(v, got[k], f"{path}/{k}", out, tol)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            out.append(f"{path}: want {len(want)} values, CLI has "
                       f"{len(got) if isinstance(got, list) else type(got).__name__}")
            return
        for i, (w, g) in enumerate(zip(want, got)):
            differences(w, g, f"{path}/{i}", out, tol)
            if len(out) > 20:
                return
    elif want is None or got is None:
        if want is not got:
            out.append(f"{path}: panel {want}, CLI {got}")
    elif isinstance(want, bool) or isinstance(want, str):
        if want != got:
            out.append(f"{path}: panel {want!r}, CLI {got!r}")
    else:
        w, g = float(want), float(got)
        # Same core function on both sides; float32 matrices may still differ by rounding
        # (~1e-7: the kernel's blocking differs between the worker and the CLI's thread).
        if not (math.isclose(w, g, rel_tol=tol, abs_tol=1e-7)):
            out.append(f"{path}: panel {w!r}, CLI {g!r}")


def main():
    app, cli = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "drawn.jsonl")
        open(record, "w").close()
        env = dict(os.environ, POSLAB_DRAWN_NUMBERS=record, XDG_CONFIG_HOME=tmp + "/config",
                   XDG_DATA_HOME=tmp + "/data")
        run = subprocess.run(["bash", XVFB_SH, app, "--check"],
                             env=env, capture_output=True, text=True)
        if run.returncode != 0:
            print("poslab --check failed:\n" + run.stdout[-3000:] + run.stderr[-2000:])
            return 1
        with open(record) as f:
            records = [json.loads(line) for line in f if line.strip()]
    seen = {}
    for rec in records:
        if rec["lab"] not in LABS:
            continue
        seen[rec["lab"]] = seen.get(rec["lab"], 0) + 1
        res = subprocess.run([cli] + rec["cli"], capture_output=True, text=True)
        if res.returncode != 0:
            print(f"FAIL {rec['preset']}: poslab-cli {' '.join(rec['cli'])} exited "
                  f"{res.returncode}: {res.stderr.strip()}")
            failures += 1
            continue
        out_json = json.loads(res.stdout)
        diffs = []
        for path, want in rec["numbers"].items():
            try:
                got = resolve(out_json, path)
            except (KeyError, IndexError, ValueError, TypeError):
                diffs.append(f"{path}: not in the CLI's JSON")
                continue
            differences(want, got, path, diffs)
        if diffs:
            failures += 1
            print(f"FAIL {rec['preset']} (poslab-cli {' '.join(rec['cli'])}):")
            for d in diffs[:20]:
                print("   ", d)
        else:
            print(f"ok   {rec['preset']}: {len(rec['numbers'])} paths")
    for lab in sorted(LABS):
        if not seen.get(lab) and lab_expected(lab):
            print(f"FAIL: the {lab} panel recorded nothing (is its check_state hook gone?)")
            failures += 1
    print(f"{sum(seen.values())} presets compared, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
