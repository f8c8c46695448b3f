#!/usr/bin/env python3
"""Writes a hostile safetensors file whose header nests a tensor shape DEPTH JSON arrays
deep (default 100,000: 200 KB), issue 29's S1. Used by the GUI tests that send it to a
running window.   usage: make_deep_checkpoint.py OUT [DEPTH]"""
import struct
import sys

depth = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
header = ('{"w":{"dtype":"F32","shape":' + '[' * depth + '1' + ']' * depth +
          ',"data_offsets":[0,4]}}').encode()
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<Q', len(header)) + header + b'\0' * 4)
