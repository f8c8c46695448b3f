"""The model-generic half of a PosLab safetensors checkpoint, for both twins (model.py,
lm.py): the metadata every checkpoint carries (format, format_version, config, step,
param_count), the tensors of the table (names and shapes from param_table.py) and the
optimiser's copies under "optim.m.", "optim.v." (and the world model's "optim.swa."), each
checked with an error naming the file; the writer is atomic (safetensors_io).
"""

import json

import numpy as np

from safetensors_io import CheckpointError, read_checkpoint, write_checkpoint


def meta_int(meta, key, path):
    v = meta.get(key)
    if v is None or not v.isdigit():
        raise CheckpointError(path, f"metadata '{key}' = {v!r} is not a non-negative integer")
    return int(v)


def config_from_metadata(meta, path, fmt, version, what, make, fields):
    """make(**config) from meta["config"] after checking format (a PosLab `what`), version and
    that every field is one of `fields`."""
    for key in ("format", "format_version", "config"):
        if key not in meta:
            raise CheckpointError(path, f"checkpoint metadata lacks '{key}' (not a PosLab checkpoint?)")
    if meta["format"] != fmt:
        raise CheckpointError(path, f"format is '{meta['format']}', not a PosLab {what}")
    if meta["format_version"] != version:
        raise CheckpointError(path, f"format_version {meta['format_version']} (this tool reads "
                                    f"{version}; retrain or convert it)")
    try:
        d = json.loads(meta["config"])
        if not isinstance(d, dict):
            raise ValueError("not a JSON object")
        unknown = set(d) - set(fields)
        if unknown:
            raise ValueError(f"unknown field {sorted(unknown)[0]!r} (checkpoint of a newer PosLab?)")
        return make(**d)
    except (ValueError, TypeError) as e:
        raise CheckpointError(path, f"bad config in metadata: {e}") from None


def read_tensors(path, config_of, layout_of, optional=("optim.m.", "optim.v.")):
    """(config, step, params, metadata, {prefix: {name: array}}) of a checkpoint: every tensor
    of the config's layout [(name, shape)] and, where the file has them, the copies under each
    prefix of `optional` (m and v go together). config_of(meta, path) reads the config."""
    tensors, meta = read_checkpoint(path)
    c = config_of(meta, path)
    layout = layout_of(c)
    step = meta_int(meta, "step", path)
    count = sum(int(np.prod(s)) for _, s in layout)
    if meta_int(meta, "param_count", path) != count:
        raise CheckpointError(path, f"param_count {meta['param_count']} does not match its config ({count})")
    names = [n for n, _ in layout]
    has = {p for p in optional if p + names[0] in tensors}
    if "optim.m." in has:
        has.add("optim.v.")  # the moments go together: a missing v is a missing tensor
    present = [p for p in optional if p in has]
    allowed = set(names) | {p + n for p in present for n in names}
    for name in tensors:
        if name not in allowed:
            raise CheckpointError(path, f"unexpected tensor '{name}' (not in this config's layout)")
    for prefix in [""] + present:
        for n, shape in layout:
            t = tensors.get(prefix + n)
            if t is None:
                raise CheckpointError(path, f"checkpoint lacks tensor '{prefix + n}'")
            if tuple(t.shape) != tuple(shape):
                raise CheckpointError(path, f"tensor '{prefix + n}' has shape {list(t.shape)}, the "
                                            f"config needs {list(shape)}")
    params = {n: tensors[n] for n in names}
    if not all(np.all(np.isfinite(a)) for a in params.values()):
        raise CheckpointError(path, "holds non-finite weights (a diverged run?)")
    copies = {p: {n: tensors[p + n] for n in names} for p in present}
    if "optim.m." in copies and meta_int(meta, "optim_step", path) != step:
        raise CheckpointError(path, "optimiser step and model step differ (damaged file?)")
    return c, step, params, meta, copies


def write_tensors(path, layout, params, extra_meta, header, copies=None, copies_meta=None):
    """Writes params {name: array} in checkpoint order, then the copies {prefix: {name:
    array}} (m, v, ...), atomically. Metadata: extra_meta, then header (format, format_version,
    config, step, param_count and the model's own keys, in that order), then copies_meta when
    there are copies."""
    meta = {str(k): str(x) for k, x in (extra_meta or {}).items()}
    meta.update(header)
    tensors = dict(params)
    for prefix, src in (copies or {}).items():
        for n, _ in layout:
            tensors[prefix + n] = src[n]
    if copies:
        meta.update(copies_meta or {})
    write_checkpoint(path, tensors, meta)


def header_of(fmt, version, config, step, layout):
    """The metadata every checkpoint carries, in the order the C++ writer reads it."""
    return {
        "format": fmt,
        "format_version": version,
        "config": json.dumps(config, separators=(",", ":")),
        "step": str(int(step)),
        "param_count": str(sum(int(np.prod(s)) for _, s in layout)),
    }
