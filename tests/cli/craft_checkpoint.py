#!/usr/bin/env python3
"""Copies a safetensors checkpoint with a crafted __metadata__ (issue 36's hostile cases):
  craft_checkpoint.py IN OUT keys N        N extra keys "k0000000": "v" (lm/wm info were
                                            quadratic in the number of keys)
  craft_checkpoint.py IN OUT data-path P   the "data" record names one text file, P (a path
                                            holding control characters reached the terminal)"""
import json
import struct
import sys

src, dst, mode, arg = sys.argv[1:5]
data = open(src, "rb").read()
(size,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + size])
meta = header.setdefault("__metadata__", {})
if mode == "keys":
    for i in range(int(arg)):
        meta["k%07d" % i] = "v"
elif mode == "data-path":
    record = json.loads(meta.get("data", "{}"))
    record["files"] = [{"path": arg, "package": "", "version": ""}]
    meta["data"] = json.dumps(record)
else:
    sys.exit("mode: keys N | data-path P")
text = json.dumps(header, separators=(",", ":")).encode()
text += b" " * ((8 - len(text) % 8) % 8)
open(dst, "wb").write(struct.pack("<Q", len(text)) + text + data[8 + size:])
