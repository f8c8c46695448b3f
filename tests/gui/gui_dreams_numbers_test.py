#!/usr/bin/env python3
"""Issue 13: every number the dream lab shows is reproducible with `poslab-cli wm dream`.
For a few dream lab presets (a seed, open loop, the naive reuse past the context, the
helm, a dataset episode) the app runs headless, exports its numbers (the Share popup's
--export-json), and poslab-cli replays the session from the exported preset, step count and
helm actions: the two JSON documents must be equal, number for number.
Usage: gui_dreams_numbers_test.py POSLAB POSLAB-CLI"""
import json, os, subprocess, sys, tempfile

APP, CLI = sys.argv[1], sys.argv[2]
XVFB = ["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "xvfb.sh")]  # the app's own exit code
models = os.environ.get("POSLAB_MODELS_DIR",
                        os.path.join(os.path.dirname(__file__), "..", "..", "assets", "models"))
if not os.path.exists(os.path.join(models, "wm_tiny_rope.safetensors")):
    print("SKIP: no shipped model")
    sys.exit(77)
failures = []
with tempfile.TemporaryDirectory() as d:
    env = dict(os.environ, XDG_CONFIG_HOME=d + "/config", XDG_DATA_HOME=d + "/data")
    data = os.path.join(d, "data.h5")
    subprocess.run([CLI, "collect", "--episodes", "3", "--seed", "11", "--teams", "2v3",
                    "-o", data, "--quiet"], check=True, capture_output=True, env=env)
    presets = [
        "dreams?seed=3&from=20",
        "dreams?variant=recompute&loop=open&temp=0.7&team0=2&team1=3",
        "dreams?variant=reset&from=40&horizon=12",
        "dreams?helm=2&follow=0&view=ghost",
        f"dreams?start=file&file={data}&episode=1&from=10",
    ]
    for i, preset in enumerate(presets):
        out = os.path.join(d, f"n{i}.json")
        r = subprocess.run(XVFB + [APP, "--preset", preset, "--frames", "15", "--export-json", out],
                           capture_output=True, text=True, env=env, timeout=300)
        if r.returncode or "banner" in r.stderr:
            failures.append(f"{preset}: app exit {r.returncode}: {r.stderr[-800:]}")
            continue
        panel = json.load(open(out))
        if panel["steps"] < 3:
            failures.append(f"{preset}: only {panel['steps']} dream steps ran")
        cmd = [CLI, "wm", "dream", "--preset", panel["preset"], "--steps", str(panel["steps"])]
        if panel["helm_actions"]:
            cmd += ["--helm-actions", panel["helm_actions"]]
        c = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        if c.returncode:
            failures.append(f"{preset}: {' '.join(cmd)} exited {c.returncode}: {c.stderr}")
            continue
        cli = json.loads(c.stdout)
        if cli != panel:
            diff = [k for k in panel if panel.get(k) != cli.get(k)]
            failures.append(f"{preset}: the CLI's JSON differs in {diff}")
        else:
            print(f"ok   {preset}: {panel['steps']} steps, start {panel['start']}, "
                  f"{len(panel['curves']['dream'])} error rows per curve")
    # A bad flag combination is a clear error, exit code 2.
    c = subprocess.run([CLI, "wm", "dream", "--preset", "dreams", "--loop", "open"],
                       capture_output=True, text=True)
    if c.returncode != 2 or "--loop" not in c.stderr:
        failures.append(f"--preset with --loop: exit {c.returncode}, {c.stderr!r}")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
