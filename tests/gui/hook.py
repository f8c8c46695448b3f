#!/usr/bin/env python3
"""Reads and waits on PosLab's POSLAB_WIDGET_RECTS test hook (app/export/share_ui.hpp): a JSON
file the app rewrites at the end of every frame with its controls' rectangles, the pointer it
saw, counts of frames, clicks and key presses, and whether a tooltip is shown. GUI tests wait
for a state on it instead of sleeping (x_window.sh's app_move, app_click, app_key, hook_wait).

  hook.py FILE eval EXPR                  prints EXPR (j: the JSON, r: j["rects"])
  hook.py FILE wait EXPR [--ceiling S] [--pid PID]
      waits until EXPR is true; exit 0. Past S seconds (default 180: a loaded 2-core machine), or when PID has ended: exit 1,
      printing the last hook contents to stderr.
One process polls every 50 ms, so a wait costs no Python start-ups on a busy machine.
"""
import json
import os
import sys
import time


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None  # not written yet, or replaced while read: the next poll sees it


def value(j, expr):
    try:
        # One namespace (globals): a generator expression in EXPR sees j and r too.
        return eval(expr, {"j": j, "r": j["rects"]})  # noqa: S307 (the tests' own text)
    except (KeyError, IndexError, TypeError, ZeroDivisionError):
        return None


def alive(pid):
    if not pid:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    # A zombie (ended, not yet reaped by the test's shell) has ended too.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def main(argv):
    if len(argv) < 4 or argv[2] not in ("eval", "wait"):
        print(__doc__, file=sys.stderr)
        return 2
    path, mode, expr = argv[1], argv[2], argv[3]
    if mode == "eval":
        j = read(path)
        v = None if j is None else value(j, expr)
        print(int(v) if isinstance(v, bool) else ("" if v is None else v))
        return 0
    opts = dict(zip(argv[4::2], argv[5::2]))
    ceiling = float(opts.get("--ceiling", 180))
    pid = int(opts.get("--pid", 0))
    deadline = time.monotonic() + ceiling
    j = None
    while time.monotonic() < deadline:
        j = read(path) or j
        if j is not None and value(j, expr):
            return 0
        if not alive(pid):
            print(f"hook: the app ended while waiting for {expr}", file=sys.stderr)
            return 1
        time.sleep(0.05)
    print(f"hook: {ceiling:.0f} s without {expr}; last hook: {json.dumps(j)[:2000]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
