#!/usr/bin/env python3
"""Issue 16: each lab exports a non-blank PNG (2x has twice the pixels) and a CSV/JSON whose
numbers equal poslab-cli's for the same preset; the arena's ship states at the exported step
equal `poslab-cli sim` run to that step; a poslab: link opens the right lab; an unwritable
folder is a clear error with exit code 2. Usage: gui_export_test.py POSLAB CLI"""
import csv, json, math, os, struct, subprocess, sys, tempfile, zlib

APP, CLI = sys.argv[1], sys.argv[2]
XVFB = ["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "xvfb.sh")]  # the app's own exit code
LABS = {  # preset -> the CLI call that prints the view's numbers
    "rope?dim=64&pos=1000": ["rope", "--decay", "--preset", "rope?dim=64&pos=1000", "--positions", "1000"],
    "attention?heads=2": ["attention", "--preset", "attention?heads=2", "--head", "0"],
    "kv": ["kv", "--preset", "kv", "--method", "all"],
}
failures = []


def png_size_and_varies(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    w, h = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        if data[pos + 4:pos + 8] == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return w, h, len(set(raw[1:1 + 3 * w])) > 1 or len(set(raw)) > 8


def sections(path):
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


def run(args):
    return subprocess.run(XVFB + [APP] + args, capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as d:
    for preset, cli in LABS.items():
        lab = preset.split("?")[0]
        png, png2, csvp, js = (os.path.join(d, f"{lab}{x}") for x in (".png", "2.png", ".csv", ".json"))
        r = run(["--preset", preset, "--frames", "20", "--export-picture", png,
                 "--export-numbers", csvp, "--export-json", js])
        r2 = run(["--preset", preset, "--frames", "20", "--export-picture", png2, "--export-scale", "2"])
        if r.returncode or r2.returncode:
            failures.append(f"{lab}: exit {r.returncode}/{r2.returncode}: {r.stderr}{r2.stderr}")
            continue
        w, h, varies = png_size_and_varies(png)
        w2, h2, _ = png_size_and_varies(png2)
        if not varies:
            failures.append(f"{lab}: picture is blank")
        if abs(w2 - 2 * w) > 2:
            failures.append(f"{lab}: 2x picture is {w2} px wide, 1x is {w}")
        want = json.loads(subprocess.check_output([CLI] + cli))
        if json.load(open(js)) != want:
            failures.append(f"{lab}: exported JSON differs from poslab-cli {' '.join(cli)}")
        t = sections(csvp)
        if lab == "rope":
            got = [float(r[2]) for r in t["pairs"][1:]]
            ok = got == want["inv_freq"] and [float(r[1]) for r in t[next(k for k in t if k.startswith("decay"))][1:]] == want["decay"]["score"]
        elif lab == "attention":
            rows = t["weights head 0"][1:]
            ok = [[float(c) if c else None for c in r[1:]] for r in rows] == want["per_head"][0]["weights"]
        else:
            m = want["methods"][0]
            rows = t["errors " + m["method"]][1:]
            ok = [float(r[-1]) for r in rows] == [s["logits_error"] for s in m["steps"]]
        if not ok:
            failures.append(f"{lab}: CSV numbers differ from poslab-cli's JSON")
    # The arena plays while the frames run: the CSV names the step it exported (summary row
    # "row"); an independent `poslab-cli sim` run to that step must give the same ship states.
    preset = "arena?seed=7&speed=4"
    csvp = os.path.join(d, "arena.csv")
    r = run(["--preset", preset, "--frames", "20", "--export-numbers", csvp])
    if r.returncode:
        failures.append(f"arena: exit {r.returncode}: {r.stderr}")
    else:
        t = sections(csvp)
        summary = {k: v for k, v in t["summary"][1:]}
        step = int(summary["row"])
        ships = t[f"ships at row {step}"]
        want = json.loads(subprocess.check_output(
            [CLI, "sim", "--preset", preset, "--steps", str(max(1, step))]))["tokens"][step]
        if step < 1 or summary.get("seed") != "7" or "policy" not in summary:
            failures.append(f"arena: exported step {step} of {summary} is not a replayable episode")
        if len(ships) - 1 != len(want):
            failures.append(f"arena: {len(ships) - 1} ships in the CSV, poslab-cli has {len(want)}")
        for slot, (row, ref) in enumerate(zip(ships[1:], want)):
            for name, got, v in zip(ships[0][1:], row[1:], ref):
                if not math.isclose(float(got), v, rel_tol=1e-6, abs_tol=1e-7):
                    failures.append(f"arena step {step} slot {slot} {name}: CSV {got}, poslab-cli {v}")
    # A link opens the right lab in its state.
    r = run(["poslab://rope?dim=32", "--frames", "3"])
    if "active: rope?dim=32" not in r.stderr:
        failures.append("link poslab://rope?dim=32 did not open the rope lab: " + r.stderr)
    # Unwritable folder: a clear message naming the file, exit code 2.
    bad = "/proc/poslab-export-test.png"
    r = run(["--preset", "rope", "--frames", "3", "--export-picture", bad])
    if r.returncode != 2 or bad not in r.stderr:
        failures.append(f"unwritable folder: exit {r.returncode}, stderr {r.stderr!r}")

for f in failures:
    print("FAIL", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
