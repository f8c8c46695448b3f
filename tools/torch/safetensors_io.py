"""Reads and writes PosLab world-model checkpoints in the safetensors layout without the
safetensors package (not in Debian): 8-byte little-endian header length N, N bytes of JSON
({name: {dtype, shape, data_offsets}, "__metadata__": {str: str}}), then the raw
little-endian tensor bytes. The checks mirror the C++ reader: bounds, offsets that tile the
data block exactly, sizes that match the shapes; writes go to a temporary file that is
renamed over the target, so an interrupted save leaves the old checkpoint intact.
"""

import json
import os
import struct
import tempfile

import numpy as np

# Largest header we accept, as io/checkpoint/safetensors.hpp (kSafetensorsMaxHeader).
MAX_HEADER_BYTES = 64 << 20
MAX_RANK = 8

# PosLab checkpoints hold little-endian float32 only (the C++ reader rejects other dtypes).
_DTYPES = {"F32": np.dtype("<f4")}


class CheckpointError(Exception):
    """A checkpoint that cannot be read; the message names the file and the problem."""

    def __init__(self, path, problem):
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def _parse_header(path, blob):
    if len(blob) < 8:
        raise CheckpointError(
            path, f"only {len(blob)} bytes: too short for the 8-byte header length (truncated?)"
        )
    (n,) = struct.unpack("<Q", blob[:8])
    if n < 2 or n > MAX_HEADER_BYTES:
        raise CheckpointError(path, f"header length {n} exceeds {MAX_HEADER_BYTES} bytes (corrupt)")
    if 8 + n > len(blob):
        raise CheckpointError(
            path, f"header length {n} runs past the end of the {len(blob)}-byte file (truncated?)"
        )
    raw = blob[8 : 8 + n]
    try:
        text = raw.decode("utf-8")
        header = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(path, f"header is not valid UTF-8 JSON ({e})") from None
    if not isinstance(header, dict):
        raise CheckpointError(path, "header JSON is not an object")
    return header, 8 + n


def read_checkpoint(path):
    """Returns (tensors: dict name -> numpy array, metadata: dict str -> str).

    Every tensor is validated: known dtype, non-negative integer shape, data_offsets
    [begin, end) inside the data block with end - begin = prod(shape) * itemsize, and the
    tensors together tile the data block with no gap, overlap or trailing bytes.
    """
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise CheckpointError(path, f"cannot be read ({e.strerror}); check the path") from None
    header, data_start = _parse_header(path, blob)
    data_len = len(blob) - data_start
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    ):
        raise CheckpointError(path, "__metadata__ must be an object of string values")
    spans = []
    tensors = {}
    for name, info in header.items():
        if not name:
            raise CheckpointError(path, "a tensor has an empty name")
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise CheckpointError(path, f"tensor '{name}': needs exactly dtype, shape and data_offsets")
        dtype = info.get("dtype")
        shape = info.get("shape")
        offs = info.get("data_offsets")
        if dtype not in _DTYPES:
            raise CheckpointError(
                path, f"tensor '{name}': dtype {dtype!r} (PosLab checkpoints are F32)"
            )
        if not isinstance(shape, list) or len(shape) > MAX_RANK or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
        ):
            raise CheckpointError(path, f"tensor '{name}': shape {shape!r} is not a list of sizes")
        if (
            not isinstance(offs, list)
            or len(offs) != 2
            or not all(isinstance(o, int) and not isinstance(o, bool) and o >= 0 for o in offs)
        ):
            raise CheckpointError(path, f"tensor '{name}': data_offsets {offs!r} is not [begin, end]")
        begin, end = offs
        if not (0 <= begin <= end <= data_len):
            raise CheckpointError(
                path,
                f"tensor '{name}': data_offsets [{begin}, {end}] outside the "
                f"{data_len}-byte data block (truncated?)",
            )
        dt = _DTYPES[dtype]
        count = 1
        for d in shape:
            count *= d
        if end - begin != count * dt.itemsize:
            raise CheckpointError(
                path,
                f"tensor '{name}': {end - begin} bytes but shape {shape} of {dtype} needs "
                f"{count * dt.itemsize}",
            )
        spans.append((begin, end, name))
        buf = blob[data_start + begin : data_start + end]
        tensors[name] = np.frombuffer(buf, dtype=dt).reshape(shape).copy()
    spans.sort()
    pos = 0
    for begin, end, name in spans:
        if begin != pos:
            what = "overlaps the previous tensor" if begin < pos else "leaves a gap before it"
            raise CheckpointError(path, f"tensor '{name}' at offset {begin} {what}")
        pos = end
    if pos != data_len:
        raise CheckpointError(
            path, f"{data_len - pos} bytes after the last tensor (corrupt or appended data)"
        )
    return tensors, metadata


def encode_checkpoint(tensors, metadata):
    """The file bytes for tensors (ordered dict name -> array-like) and string metadata."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    chunks = []
    pos = 0
    for name, arr in tensors.items():
        a = np.ascontiguousarray(np.asarray(arr, dtype=np.float32)).astype("<f4", copy=False)
        raw = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [pos, pos + len(raw)]}
        chunks.append(raw)
        pos += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((-len(text)) % 8)  # pad so tensor data starts 8-byte aligned
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def write_checkpoint(path, tensors, metadata):
    """Writes atomically: a temporary file in the same directory, fsync, os.replace."""
    blob = encode_checkpoint(tensors, metadata)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".safetensors", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
