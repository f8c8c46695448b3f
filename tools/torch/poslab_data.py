"""PosLab's Boost and Broadside HDF5 datasets (spec section 8) read with h5py, cut into the
training windows the world model sees. The file checks are those of
io/dataset/bnb_dataset.cpp (magic, format version, shapes, lengths adding up), each failure
a DatasetError naming the file and what to do.
  S = rows over all episodes, E = episodes, T = window steps, 8 = slots
  tokens (S, 8, 15) f4   actions (S, 8, 3) u1   episode_lengths (E,) i8
"""

import numpy as np

MAGIC = "poslab/boost-and-broadside"
FORMAT_VERSION = 1
SLOTS = 8
TOKEN_DIM = 15
ACTION_HEADS = 3
ACTION_SIZES = (3, 7, 2)  # power, turn, shoot
MAX_EPISODE_ROWS = 100001  # generous bound on rows per episode (corrupt-file check)

_REGENERATE = "; regenerate it with `poslab-cli collect`"


class DatasetError(Exception):
    """A dataset that cannot be used; the message names the file and the problem."""

    def __init__(self, path, problem):
        super().__init__(f"{path}: {problem}")


def _attr_str(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return _attr_str(v[()])
    return str(v)


def _attr_int(f, name, path):
    if name not in f.attrs:
        raise DatasetError(path, f"attribute '{name}' is missing{_REGENERATE}")
    v = np.asarray(f.attrs[name]).reshape(-1)
    if v.size < 1 or not np.issubdtype(v.dtype, np.integer):
        raise DatasetError(path, f"attribute '{name}' is not an integer{_REGENERATE}")
    return int(v[0])


class Episode:
    """One episode's rows: tokens (R, 8, 15) float32, actions (R, 8, 3) int64."""

    def __init__(self, index, tokens, actions):
        self.index = index
        self.tokens = tokens
        self.actions = actions

    @property
    def rows(self):
        return self.tokens.shape[0]


def load_dataset(path):
    """Reads and checks a whole dataset file; returns a list of Episode (file order)."""
    import h5py  # imported here so the checkpoint tools work without h5py

    try:
        f = h5py.File(path, "r")
    except FileNotFoundError:
        raise DatasetError(path, "no such file (check the path)") from None
    except IsADirectoryError:
        raise DatasetError(path, "is a directory, not a dataset file") from None
    except OSError as e:
        raise DatasetError(path, f"not a readable HDF5 file ({e}){_REGENERATE}") from None
    with f:
        magic = _attr_str(f.attrs["magic"]) if "magic" in f.attrs else None
        if magic != MAGIC:
            raise DatasetError(
                path,
                f"not a Boost and Broadside dataset (root attribute 'magic' is missing or not "
                f'"{MAGIC}"){_REGENERATE}',
            )
        version = _attr_int(f, "format_version", path)
        if version != FORMAT_VERSION:
            raise DatasetError(
                path, f"format_version {version}, but this tool reads version {FORMAT_VERSION}"
            )
        n_episodes = _attr_int(f, "num_episodes", path)
        n_rows = _attr_int(f, "total_timesteps", path)
        if n_episodes < 0 or n_rows < 0:
            raise DatasetError(path, "num_episodes or total_timesteps is negative (corrupt file)")
        want = {
            "tokens": ((n_rows, SLOTS, TOKEN_DIM), "f", 4),
            "actions": ((n_rows, SLOTS, ACTION_HEADS), "u", 1),
            "episode_ids": ((n_rows,), "i", 8),
            "episode_lengths": ((n_episodes,), "i", 8),
        }
        data = {}
        for name, (shape, kind, size) in want.items():
            if name not in f:
                raise DatasetError(path, f"dataset '{name}' is missing{_REGENERATE}")
            ds = f[name]
            if ds.dtype.kind != kind or ds.dtype.itemsize != size:
                raise DatasetError(path, f"dataset '{name}' has element type {ds.dtype}")
            if tuple(ds.shape) != shape:
                raise DatasetError(
                    path,
                    f"dataset '{name}' has shape {tuple(ds.shape)}, expected {shape} from the "
                    f"attributes (damaged or interrupted write?){_REGENERATE}",
                )
            data[name] = ds[...]
    lengths = data["episode_lengths"].astype(np.int64)
    if np.any(lengths < 1) or np.any(lengths > MAX_EPISODE_ROWS):
        raise DatasetError(path, f"an episode length is impossible (corrupt file){_REGENERATE}")
    if int(lengths.sum()) != n_rows:
        raise DatasetError(
            path,
            f"episode_lengths add up to {int(lengths.sum())} rows but total_timesteps = "
            f"{n_rows} (corrupt file){_REGENERATE}",
        )
    actions = data["actions"]
    for h, size in enumerate(ACTION_SIZES):
        if np.any(actions[:, :, h] >= size):
            raise DatasetError(path, f"an action of head {h} is out of range (corrupt file)")
    episodes = []
    first = 0
    for e, n in enumerate(lengths.tolist()):
        ids = data["episode_ids"][first : first + n]
        if np.any(ids != e):
            raise DatasetError(
                path, f"episode_ids of episode {e} disagree with episode_lengths (corrupt file)"
            )
        episodes.append(
            Episode(
                e,
                np.ascontiguousarray(data["tokens"][first : first + n], dtype=np.float32),
                np.ascontiguousarray(actions[first : first + n], dtype=np.int64),
            )
        )
        first += n
    return episodes
