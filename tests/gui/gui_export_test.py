#!/usr/bin/env python3
"""Issue 16, per lab (rope, attention, kv, arena, dreams): the headless exports give a
non-blank PNG (2x has twice the pixels), a CSV that parses and holds the numbers of the
exported JSON, and a JSON equal to poslab-cli's for the same preset. The command the Share
popup copies (--export-command writes exactly that text) is itself run through a shell and
must print the exported JSON. Also: the lessons lab exports a picture, a lab without a
command says why, a poslab: link opens the right lab, an unwritable folder and an existing
file (without --overwrite) are clear errors with exit code 2.
Usage: gui_export_test.py POSLAB CLI"""
import csv, json, math, os, shlex, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png_check  # noqa: E402

APP, CLI = sys.argv[1], sys.argv[2]
XVFB = ["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "xvfb.sh")]  # the app's own exit code
MODELS = os.environ.get("POSLAB_MODELS_DIR",
                        os.path.join(os.path.dirname(__file__), "..", "..", "assets", "models"))
HAVE_MODEL = os.path.exists(os.path.join(MODELS, "wm_tiny_rope.safetensors"))


def cli_for(lab, preset, exported):
    """The poslab-cli call, written here independently of the app, that prints the view's
    numbers. The arena and the dream lab run while the frames pass: the step count comes
    from the exported file."""
    if lab == "rope":
        return ["rope", "--decay", "--preset", preset, "--positions", "1000"]
    if lab == "attention":
        return ["attention", "--preset", preset, "--head", "0"]
    if lab == "kv":
        return ["kv", "--preset", preset, "--method", "all"]
    if lab == "arena":
        return ["sim", "--preset", preset, "--steps", str(exported["max_steps"])]
    cmd = ["wm", "dream", "--preset", exported["preset"], "--steps", str(exported["steps"])]
    return cmd + (["--helm-actions", exported["helm_actions"]] if exported["helm_actions"] else [])


LABS = [  # (preset, frames)
    ("rope?dim=64&pos=1000", 20),
    ("attention?heads=2", 20),
    ("kv", 20),
    ("arena?seed=7&speed=4&play=1", 20),
]
if HAVE_MODEL:  # a plain dream, and one whose command must carry the helm's actions
    LABS += [("dreams?seed=3&from=20", 15), ("dreams?helm=2&follow=0&view=ghost", 15)]
else:
    print("SKIP dreams: no shipped model")
failures = []


def png_size_and_varies(path):
    r = png_check.png_size_and_varies(path)
    assert r is not None, path
    return r


def sections(path):
    """CSV tables: {name: [header, rows...]}; every table starts with `table,<name>`."""
    out, cur = {}, None
    for row in csv.reader(open(path, newline="")):
        if not row:
            cur = None
        elif row[0] == "table":
            cur = row[1]
            out[cur] = []
        else:
            out[cur].append(row)
    return out


def num(cell):
    return None if cell == "" else float(cell)


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, bool):
        b = float(b)
    return math.isclose(a, float(b), rel_tol=1e-12, abs_tol=0)


def csv_matches(lab, t, want):
    """The CSV's tables hold the JSON's numbers. Returns what differs, or ""."""
    if lab == "rope":
        if [num(r[2]) for r in t["pairs"][1:]] != want["inv_freq"]:
            return "pairs.inv_freq"
        decay = t[next(k for k in t if k.startswith("decay"))]
        return "" if [num(r[1]) for r in decay[1:]] == want["decay"]["score"] else "decay"
    if lab == "attention":
        for h in want["per_head"]:
            rows = t[f"weights head {h['head']}"][1:]
            if [[num(c) for c in r[1:]] for r in rows] != h["weights"]:
                return f"weights head {h['head']}"
        return ""
    if lab == "kv":
        for m in want["methods"]:
            rows = t["errors " + m["method"]][1:]
            if [num(r[-1]) for r in rows] != [s["logits_error"] for s in m["steps"]]:
                return "errors " + m["method"]
            if len(t["cache " + m["method"]]) - 1 != len(m["final_cache"]["labels"]):
                return "cache " + m["method"]
        return ""
    if lab == "arena":
        summary = {k: v for k, v in t["summary"][1:]}
        step = int(summary["row"])
        ships = t[f"ships at row {step}"]
        ref = want["tokens"][step]
        if len(ships) - 1 != len(ref):
            return f"{len(ships) - 1} ships in the CSV, {len(ref)} in the JSON"
        for slot, (row, r) in enumerate(zip(ships[1:], ref)):
            if not all(same(num(c), v) for c, v in zip(row[1:], r)):
                return f"ship slot {slot} at row {step}"
        return ""
    for name, curve in want["curves"].items():  # dreams
        rows = t["error " + name]
        cols = rows[0][1:]
        if len(rows) - 1 != len(curve):
            return f"error {name}: {len(rows) - 1} rows, JSON has {len(curve)}"
        for r, e in zip(rows[1:], curve):
            if not all(same(num(c), e[k]) for c, k in zip(r[1:], cols)):
                return f"error {name} at h={r[0]}"
    return ""


def run(args, **kw):
    return subprocess.run(XVFB + [APP] + args, capture_output=True, text=True, timeout=300, **kw)


with tempfile.TemporaryDirectory() as d:
    env = dict(os.environ, XDG_CONFIG_HOME=d + "/config", XDG_DATA_HOME=d + "/data")
    # The copied command runs through a shell exactly as pasted: `poslab-cli` on the PATH.
    bindir = os.path.join(d, "bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(CLI), os.path.join(bindir, "poslab-cli"))
    shell_env = dict(env, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    for i, (preset, frames) in enumerate(LABS):
        lab = preset.split("?")[0]
        png, png2, csvp, js, cmdp = (os.path.join(d, f"{lab}{'' if i < 4 else i}{x}")
                                     for x in (".png", "2.png", ".csv", ".json", ".cmd"))
        r = run(["--preset", preset, "--frames", str(frames), "--export-picture", png,
                 "--export-numbers", csvp, "--export-json", js, "--export-command", cmdp], env=env)
        r2 = run(["--preset", preset, "--frames", str(frames), "--export-picture", png2,
                  "--export-scale", "2"], env=env)
        if r.returncode or r2.returncode or "banner" in r.stderr:
            failures.append(f"{lab}: exit {r.returncode}/{r2.returncode}: {r.stderr}{r2.stderr}")
            continue
        w, h, varies = png_size_and_varies(png)
        w2, h2, varies2 = png_size_and_varies(png2)
        if not varies or not varies2:
            failures.append(f"{lab}: picture is blank")
        if abs(w2 - 2 * w) > 2:
            failures.append(f"{lab}: 2x picture is {w2} px wide, 1x is {w}")
        exported = json.load(open(js))
        # 1. The numbers equal poslab-cli's, called as this test writes it.
        cli = cli_for(lab, preset, exported)
        c = subprocess.run([CLI] + cli, capture_output=True, text=True, env=env, timeout=300)
        if c.returncode or json.loads(c.stdout) != exported:
            failures.append(f"{lab}: exported JSON differs from poslab-cli {shlex.join(cli)} "
                            f"(exit {c.returncode} {c.stderr})")
        # 2. The command the app copies, run as pasted into a shell, prints the same JSON.
        command = open(cmdp).read()
        if not command.startswith("poslab-cli ") or "\n" in command:
            failures.append(f"{lab}: copied command {command!r} is not one poslab-cli line")
        c = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
                           env=shell_env, timeout=300)
        if c.returncode:
            failures.append(f"{lab}: copied command {command!r} exited {c.returncode}: {c.stderr}")
        elif json.loads(c.stdout) != exported:
            diff = [k for k in exported if json.loads(c.stdout).get(k) != exported[k]]
            failures.append(f"{lab}: copied command {command!r} prints other numbers ({diff})")
        # 3. The CSV parses and holds the same numbers.
        try:
            why = csv_matches(lab, sections(csvp), exported)
        except (KeyError, ValueError, StopIteration, IndexError) as e:
            why = f"does not parse as the lab's tables: {e!r}"
        if why:
            failures.append(f"{lab}: CSV: {why}")
        else:
            print(f"ok   {preset}: {w}x{h} and {w2}x{h2} PNG, CSV, JSON and `{command[:70]}...`")
    # The lessons lab has no numbers but exports its picture.
    png = os.path.join(d, "lessons.png")
    r = run(["--preset", "lessons", "--frames", "8", "--export-picture", png], env=env)
    if r.returncode or not png_size_and_varies(png)[2]:
        failures.append(f"lessons: picture exit {r.returncode}: {r.stderr}")
    # A state no command reproduces (a ship at the helm): the command export says why.
    r = run(["--preset", "arena?seed=7&helm=0", "--frames", "3", "--export-command",
             os.path.join(d, "helm.cmd")], env=env)
    if r.returncode != 2 or "helm" not in r.stderr or os.path.exists(os.path.join(d, "helm.cmd")):
        failures.append(f"arena at the helm: exit {r.returncode}, stderr {r.stderr!r}")
    # A link opens the right lab in its state.
    r = run(["poslab://rope?dim=32", "--frames", "3"], env=env)
    if "active: rope?dim=32" not in r.stderr:
        failures.append("link poslab://rope?dim=32 did not open the rope lab: " + r.stderr)
    # Unwritable folder: a clear message naming the file, exit code 2.
    bad = "/proc/poslab-export-test.png"
    r = run(["--preset", "rope", "--frames", "3", "--export-picture", bad], env=env)
    if r.returncode != 2 or bad not in r.stderr:
        failures.append(f"unwritable folder: exit {r.returncode}, stderr {r.stderr!r}")
    # An existing file is replaced only with --overwrite, as --record's (exit 2, named).
    for flag, name in (("--export-picture", "rope.png"), ("--export-numbers", "rope.csv"),
                       ("--export-json", "rope.json"), ("--export-command", "rope.cmd")):
        path = os.path.join(d, name)
        before = open(path, "rb").read()
        r = run(["--preset", "rope?dim=32", "--frames", "3", flag, path], env=env)
        if r.returncode != 2 or path not in r.stderr or "--overwrite" not in r.stderr:
            failures.append(f"{flag} onto an existing file: exit {r.returncode}, {r.stderr!r}")
        if open(path, "rb").read() != before:
            failures.append(f"{flag}: the existing {name} was changed without --overwrite")
    path = os.path.join(d, "rope.cmd")
    r = run(["--preset", "rope?dim=32", "--frames", "3", "--export-command", path, "--overwrite"],
            env=env)
    if r.returncode or "dim=32" not in open(path).read():
        failures.append(f"--overwrite did not replace rope.cmd: exit {r.returncode}, {r.stderr!r}")

for f in failures:
    print("FAIL", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
