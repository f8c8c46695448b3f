"""A PNG's size and whether it is more than one flat colour, decoded with zlib alone (no
imaging library): the GUI tests' non-blank check (gui_export_test, gui_layout_test)."""

import struct
import zlib


def png_size_and_varies(path):
    """(width, height, varies) of the PNG at path, or None when it is not a PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    w, h = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        if data[pos + 4:pos + 8] == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return w, h, len(set(raw[1:1 + 3 * w])) > 1 or len(set(raw)) > 8
