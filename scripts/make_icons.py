#!/usr/bin/env python3
"""Draws PosLab's icon (packaging/poslab.svg) as PNGs for the window and the icon theme:
assets/icons/poslab-<N>.png, N = 16, 24, 32, 48, 64, 128, 256. The SVG is the one source: this
reads its shapes (rect with rx, circle with fill or stroke, line with round caps; the only
kinds the icon uses) and rasterises them with 8x8 supersampling, standard library only, so
the PNGs are made again the same way whenever the SVG changes.
  scripts/make_icons.py"""
import math
import os
import struct
import xml.etree.ElementTree as ET
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SVG = os.path.join(ROOT, "packaging", "poslab.svg")
SIZES = (16, 24, 32, 48, 64, 128, 256)
SS = 8  # samples per pixel per axis


def colour(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def shapes():
    out = []
    for el in ET.parse(SVG).getroot():
        tag = el.tag.split("}")[-1]
        a = {k: el.get(k) for k in el.keys()}
        f = lambda k: float(a[k])
        if tag == "rect":
            x, y, w, h, r = f("x"), f("y"), f("width"), f("height"), float(a.get("rx", 0))

            def inside(px, py, x=x, y=y, w=w, h=h, r=r):
                cx = min(max(px, x + r), x + w - r)
                cy = min(max(py, y + r), y + h - r)
                return (px - cx) ** 2 + (py - cy) ** 2 <= r * r and x <= px <= x + w and y <= py <= y + h
            out.append((inside, colour(a["fill"])))
        elif tag == "circle":
            cx, cy, r = f("cx"), f("cy"), f("r")
            if a.get("fill", "none") != "none":
                out.append((lambda px, py, cx=cx, cy=cy, r=r: (px - cx) ** 2 + (py - cy) ** 2 <= r * r,
                            colour(a["fill"])))
            else:
                hw = f("stroke-width") / 2
                out.append((lambda px, py, cx=cx, cy=cy, r=r, hw=hw:
                            abs(math.hypot(px - cx, py - cy) - r) <= hw, colour(a["stroke"])))
        elif tag == "line":
            x1, y1, x2, y2, hw = f("x1"), f("y1"), f("x2"), f("y2"), f("stroke-width") / 2

            def on(px, py, x1=x1, y1=y1, x2=x2, y2=y2, hw=hw):  # round caps: distance to segment
                dx, dy = x2 - x1, y2 - y1
                t = max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / (dx * dx + dy * dy)))
                return math.hypot(px - x1 - t * dx, py - y1 - t * dy) <= hw
            out.append((on, colour(a["stroke"])))
        else:
            raise SystemExit(f"{SVG}: <{tag}> is not drawn by this script; add it here")
    return out


def render(n, drawn, box):
    rows = []
    for j in range(n):
        row = bytearray()
        for i in range(n):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sj in range(SS):
                for si in range(SS):
                    px = (i + (si + 0.5) / SS) * box / n
                    py = (j + (sj + 0.5) / SS) * box / n
                    for inside, rgb in reversed(drawn):  # topmost shape first
                        if inside(px, py):
                            acc[0] += rgb[0]; acc[1] += rgb[1]; acc[2] += rgb[2]; acc[3] += 1
                            break
            k = SS * SS
            a = acc[3] / k
            row += bytes([round(acc[c] / acc[3]) if acc[3] else 0 for c in range(3)] + [round(255 * a)])
        rows.append(b"\0" + bytes(row))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


drawn = shapes()
box = float(ET.parse(SVG).getroot().get("viewBox").split()[2])
for n in SIZES:
    path = os.path.join(ROOT, "assets", "icons", f"poslab-{n}.png")
    open(path, "wb").write(render(n, drawn, box))
    print(os.path.normpath(path))
