#!/usr/bin/env python3
"""Issue 24: every lab at projector sizes. For each lab and each of 1024x700, 1280x720,
1600x1000 and UI scale 1.5 and 2 (1600x1000), a headless run must give a non-blank screenshot and
the lab's main view (Panel::main_view_rect, the part of it inside the window, printed by
`poslab --frames` as "main view: W x H px on screen") at least its floor on each side.
A squeezed plot or map fails here instead of in front of a class.
Issue 40: the app also prints the lab's layout problems of the last frame ("layout: ...",
app/headless_modes.cpp): a pane that scrolls inside a page that scrolls the same way (two
scroll bars side by side; the KV, dream and length labs at 2x) and a window whose content is
cut off with no scroll bar (the wheels' decay plot at 2x, its title at 1024x700). Each fails,
but for the few listed in KNOWN_CUT_OFF, which are still open.
Usage: gui_layout_test.py POSLAB [OUT_DIR]  (OUT_DIR keeps the PNGs for people to look at)"""
import os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_check import png_size_and_varies  # noqa: E402

APP = sys.argv[1]
OUT = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="poslab-layout-")
XVFB = ["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "xvfb.sh")]
MODELS = os.environ.get("POSLAB_MODELS_DIR",
                        os.path.join(os.path.dirname(__file__), "..", "..", "assets", "models"))
HAVE_MODEL = os.path.exists(os.path.join(MODELS, "wm_tiny_rope.safetensors"))

# (name, preset, smallest width and height of the main view in px at UI scale 1, and at
# UI scale 2 in a 1600x1000 window, where the labels take twice the room too)
LABS = [
    ("rope", "rope?dim=128", (400, 300), (700, 600)),
    ("attention", "attention", (300, 300), (600, 600)),
    ("kv", "kv", (400, 250), (700, 500)),
    ("arena", "arena?seed=7", (360, 360), (600, 600)),
    ("lessons", "lessons?lesson=01-why-positions", (300, 300), (600, 600)),
    ("welcome", "welcome", (300, 300), (600, 600)),
]
if HAVE_MODEL:  # the maps: at 1024x700 they were squeezed to 223 px high beside the plot
    LABS.append(("dreams", "dreams?seed=3&from=20", (300, 280), (600, 450)))
else:
    print("SKIP dreams: no shipped model")
# Issue 40: the length lab (its plot fell below the fold at 2x), and the side-by-side
# attention maps (a third of the pane wide, the top half of it high at 1.5x).
if os.path.exists(os.path.join(MODELS, "lm_rope.safetensors")):
    LABS.append(("length", "length", (400, 250), (700, 450)))
else:
    print("SKIP length: no shipped language model")
LABS.append(("attention-pair", "attention?compare=orderings", (300, 300), (560, 560)))
# Issue 40: layout problems still open: (lab, the start of the problem's line, UI scales).
# A problem not listed fails.
KNOWN_CUT_OFF = [
    # At 2x the arena's three panes need 1920 px (controls 600, map 720, inspector 600): the
    # inspector is squeezed and scrolls across around the ship table, which scrolls too.
    ("arena", "##ships scrolls across inside ##arena_inspector", (2,)),
]
# Issue 40: UI scale 1.5 as well (a 1080p projector); its floor lies between the others.
SIZES = [(1024, 700, 1), (1280, 720, 1), (1600, 1000, 1), (1600, 1000, 1.5), (1600, 1000, 2)]


def png_varies(path):
    """True when the PNG is not one flat colour."""
    r = png_size_and_varies(path)
    return bool(r and r[2])


failures = []
for name, preset, floor1, floor2 in LABS:
    for w, h, scale in SIZES:
        fw, fh = floor1 if scale == 1 else floor2 if scale == 2 else (
            (floor1[0] + floor2[0]) // 2, (floor1[1] + floor2[1]) // 2)
        png = os.path.join(OUT, f"{name}_{w}x{h}_s{scale}.png")
        cmd = XVFB + [APP, "--preset", preset, "--frames", "12", "--width", str(w), "--height",
                      str(h), "--scale", str(scale), "--screenshot", png]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        where = f"{name} at {w}x{h} scale {scale}"
        if r.returncode != 0:
            failures.append(f"{where}: exit {r.returncode}: {r.stderr[-400:]}")
            continue
        if "banner:" in r.stderr:
            failures.append(f"{where}: error banner: {r.stderr[-400:]}")
        if not os.path.exists(png) or not png_varies(png):
            failures.append(f"{where}: blank or missing screenshot {png}")
        m = re.search(r"main view: (\d+) x (\d+) px on screen", r.stderr)
        if not m:
            failures.append(f"{where}: no 'main view' line: {r.stderr[-400:]}")
            continue
        for bad in re.findall(r"layout: (.*)", r.stderr):
            known = any(lab == name and bad.startswith(start) and scale in scales
                        for lab, start, scales in KNOWN_CUT_OFF)
            print(f"{where}: {'known, open: ' if known else ''}{bad}")
            if not known:
                failures.append(f"{where}: {bad} (see {png})")
        vw, vh = int(m.group(1)), int(m.group(2))
        print(f"{where}: main view {vw} x {vh} px (floor {fw} x {fh})")
        if vw < fw or vh < fh:
            failures.append(f"{where}: main view {vw} x {vh} px is below the floor "
                            f"{fw} x {fh} (see {png})")

for f in failures:
    print("FAIL", f)
print(f"{len(LABS) * len(SIZES)} layouts, {len(failures)} failures; screenshots in {OUT}")
sys.exit(1 if failures else 0)
