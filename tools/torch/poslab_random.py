"""PosLab's random streams (core/common/random.hpp) in Python: SplitMix64 keyed by
(seed, purpose, index), uniform with 53 bits, Box-Muller normal. The same numbers as the
C++ core, so the bridge draws the same episode split, the same training windows and the
same initial weights as `poslab-cli wm train` for a given seed.
"""

import numpy as np

_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _mix_array(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def hash_text(text):
    """FNV-1a over the UTF-8 bytes of a text."""
    h = 0xCBF29CE484222325
    for ch in text.encode("utf-8"):
        h = ((h ^ ch) * 0x100000001B3) & _M64
    return h


def _initial_state(seed, purpose, index):
    return _mix((seed & _M64) ^ _mix(hash_text(purpose) ^ _mix((index + 0x632BE59BD9B4E019) & _M64)))


class SeededStream:
    """One keyed stream; next_u64 / uniform / normal as the C++ class."""

    def __init__(self, seed, purpose, index):
        self.state = _initial_state(seed, purpose, index)

    def next_u64(self):
        self.state = (self.state + _GAMMA) & _M64
        return _mix(self.state)

    def uniform(self):
        return (self.next_u64() >> 11) * (2.0**-53)

    def normal(self):
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        return float(np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2))


def seeded_normals(seed, purpose, index, count):
    """The first `count` values of SeededStream(seed, purpose, index).normal(), float64,
    vectorised (call i uses draws 2i and 2i + 1 of the stream)."""
    state = _initial_state(seed, purpose, index)
    k = np.arange(1, 2 * count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        draws = _mix_array(np.uint64(state) + k * np.uint64(_GAMMA))
    uni = (draws >> np.uint64(11)).astype(np.float64) * (2.0**-53)
    u1 = 1.0 - uni[0::2]
    u2 = uni[1::2]
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(6.283185307179586 * u2)
