"""The tensor table of a PosLab model, the Python twin of core/nn/param_table.hpp: one row
per tensor gives its checkpoint name, shape and init role, and the layout (checkpoint
order), the parameter count and the initial weights are all read from it. Both twins
(model.py, lm.py) declare their rows here in the C++ tables' order.
"""

import math

import numpy as np

from poslab_random import seeded_normals

ZEROS, ONES, NORMAL, RESIDUAL_OUT = "zeros", "ones", "normal", "residual_out"


class Table:
    """Rows (name, shape, init, std) in allocation order."""

    def __init__(self):
        self.rows = []

    def add(self, name, shape, init=NORMAL, std=0.02):
        self.rows.append((name, tuple(shape), init, std))

    def linear(self, name, out, inp, w=NORMAL):
        """'<name>.weight' (out, inp) with init w, '<name>.bias' (out,) zeros."""
        self.add(name + ".weight", (out, inp), w)
        self.add(name + ".bias", (out,), ZEROS)

    def layernorm(self, weight, bias, C):
        self.add(weight, (C,), ONES)
        self.add(bias, (C,), ZEROS)

    def layout(self):
        """[(name, shape)] in checkpoint order."""
        return [(n, s) for n, s, _, _ in self.rows]

    def count(self):
        return sum(int(np.prod(s)) for _, s, _, _ in self.rows)

    def init(self, seed, stream_prefix, layers):
        """{name: float32 array}, element for element as core/nn's param_init: normal rows
        draw element e from SeededStream(seed, stream_prefix + name, 0); residual_out rows
        use std 0.02/sqrt(2 layers)."""
        out = {}
        for name, shape, init, std in self.rows:
            n = int(np.prod(shape))
            if init == ZEROS:
                a = np.zeros(n)
            elif init == ONES:
                a = np.ones(n)
            else:
                sd = 0.02 / math.sqrt(2 * layers) if init == RESIDUAL_OUT else std
                a = sd * seeded_normals(seed, stream_prefix + name, 0, n)
            out[name] = a.reshape(shape).astype(np.float32)
        return out
