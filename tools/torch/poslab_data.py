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


def load_datasets(paths):
    """Episodes of several files, in file order then episode order (as `poslab-cli wm`)."""
    episodes = []
    for p in paths:
        episodes += load_dataset(p)
    for e, ep in enumerate(episodes):
        if ep.rows < 2:
            raise DatasetError(paths[0] if len(paths) == 1 else "datasets",
                               f"episode {e} has fewer than 2 rows (nothing to predict)")
        if not np.all(np.isfinite(ep.tokens)):
            raise DatasetError(paths[0] if len(paths) == 1 else "datasets",
                               f"episode {e} holds a non-finite token value")
    return episodes


# ---- Split and windows: the rules of core/wm/data.cpp, draw for draw ------------------
class DataParams:
    """core/wm/data.hpp WmDataParams."""

    def __init__(self, batch=8, short_steps=0, long_steps=0, long_every=5, val_fraction=0.1,
                 seed=0):
        self.batch = batch  # B: windows per training batch, [1, 4096]
        self.short_steps = short_steps  # T of a short window; 0 = min(32, long / 2), [0, 4096]
        self.long_steps = long_steps  # T of a long window; 0 = the context C, [0, 4096]
        self.long_every = long_every  # batch k is long when k % long_every == long_every - 1
        self.val_fraction = val_fraction  # share of episodes held out, [0, 0.9]
        self.seed = seed  # split and window draws

    def long_T(self, context):
        return self.long_steps if self.long_steps > 0 else context

    def short_T(self, context):
        if self.short_steps > 0:
            return self.short_steps
        return max(2, min(32, self.long_T(context) // 2))

    def steps_of_batch(self, context, k):
        return self.long_T(context) if k % self.long_every == self.long_every - 1 else self.short_T(context)

    def validate(self, context, position):
        def bad(field, why):
            raise ValueError(f"{field} = {getattr(self, field)}: {why}")

        if not 1 <= self.batch <= 4096:
            bad("batch", "must be in [1, 4096]")
        if not 0 <= self.short_steps <= 4096:
            bad("short_steps", "must be in [0, 4096]")
        if not 0 <= self.long_steps <= 4096:
            bad("long_steps", "must be in [0, 4096]")
        if not 1 <= self.long_every <= 1000:
            bad("long_every", "must be in [1, 1000]")
        if not 0 <= self.val_fraction <= 0.9:
            bad("val_fraction", "must be in [0, 0.9]")
        lo, sh = self.long_T(context), self.short_T(context)
        if min(lo, sh) < 2:
            raise ValueError(f"window length {min(lo, sh)}: windows need at least 2 steps")
        if position == "absolute" and max(lo, sh) > context:
            raise ValueError(f"window of {max(lo, sh)} steps is longer than the absolute-position "
                             f"context {context} (use --long-steps <= context)")


def split_episodes(num_episodes, val_fraction, seed):
    """(train, val) sorted episode indices: seeded Fisher-Yates, round(f * E) held out."""
    from poslab_random import SeededStream

    if num_episodes < 1:
        return [], []
    order = list(range(num_episodes))
    rng = SeededStream(seed, "wm-split", 0)
    for i in range(num_episodes - 1, 0, -1):
        j = rng.next_u64() % (i + 1)
        order[i], order[j] = order[j], order[i]
    x = val_fraction * num_episodes
    nval = int(np.floor(x + 0.5)) if x >= 0 else -int(np.floor(-x + 0.5))  # std::lround
    if val_fraction > 0 and num_episodes >= 2:
        nval = max(nval, 1)
    nval = min(nval, num_episodes - 1)
    return sorted(order[nval:]), sorted(order[:nval])


def train_windows(episodes, train, params, context, k):
    """Training batch k: [(episode, start, length)], episodes drawn proportional to rows."""
    from poslab_random import SeededStream

    if not train:
        raise ValueError("no training episodes (collect more episodes)")
    T = params.steps_of_batch(context, k)
    cum = np.cumsum([episodes[e].rows for e in train])
    total = int(cum[-1])
    rng = SeededStream(params.seed, "wm-batch", k)
    out = []
    for _ in range(params.batch):
        r = rng.next_u64() % total
        idx = int(np.searchsorted(cum, r, side="right"))
        e = train[idx]
        rows = episodes[e].rows
        length = min(T, rows)
        start = rng.next_u64() % (rows - length + 1)
        out.append((e, int(start), length))
    return out, T


def val_windows(episodes, val, steps, max_windows):
    """Consecutive windows of every validation episode (last one padded), evenly thinned."""
    all_w = []
    for e in val:
        rows = episodes[e].rows
        s = 0
        while s + 1 < rows:
            all_w.append((e, s, min(steps, rows - s)))
            s += steps
    if max_windows <= 0 or len(all_w) <= max_windows:
        return all_w
    return [all_w[i * len(all_w) // max_windows] for i in range(max_windows)]


def make_batch(episodes, windows, steps):
    """numpy arrays tokens (B, T, 8, 15) f4, actions (B, T, 8, 3) i8, valid (B, T) bool;
    rows after a window's length are zeros with valid = 0."""
    B = len(windows)
    tokens = np.zeros((B, steps, SLOTS, TOKEN_DIM), np.float32)
    actions = np.zeros((B, steps, SLOTS, ACTION_HEADS), np.int64)
    valid = np.zeros((B, steps), bool)
    for w, (e, start, length) in enumerate(windows):
        ep = episodes[e]
        if not (1 <= length <= steps and start >= 0 and start + length <= ep.rows):
            raise ValueError(f"window [{start}, +{length}) does not fit episode {e} of {ep.rows} rows")
        tokens[w, :length] = ep.tokens[start : start + length]
        actions[w, :length] = ep.actions[start : start + length]
        valid[w, :length] = True
    return tokens, actions, valid
