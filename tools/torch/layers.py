"""The torch modules both twins build their blocks from (core/nn's layers and blocks.hpp):
the attention projections, the MLP half and the half-split RoPE rotation. The checkpoint
names of a module's tensors come from its attribute names, so the MLP takes the names its
model's table uses (world model: fc1, fc2; language model: fc, proj).
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class TableParams:
    """The parameters of a model as named arrays in its table's order (checkpoint order).
    A model (an nn.Module) sets layout_of(config) -> [(name, shape)] and
    init_params_of(config, seed) -> {name: array} and gets named_arrays, load_arrays, init."""

    def named_arrays(self):
        params = dict(self.named_parameters())
        return {n: params[n].detach().cpu().numpy() for n, _ in self.layout_of(self.config)}

    def load_arrays(self, arrays, source="parameters"):
        params = dict(self.named_parameters())
        layout = self.layout_of(self.config)
        missing = [n for n, _ in layout if n not in arrays]
        extra = sorted(set(arrays) - set(params))
        if missing or extra:
            raise ValueError(f"{source}: tensors do not match the config "
                             f"(missing {missing[:3]}, unexpected {extra[:3]})")
        with torch.no_grad():
            for n, shape in layout:
                a = np.asarray(arrays[n])
                if tuple(a.shape) != tuple(shape):
                    raise ValueError(f"{source}: tensor '{n}' has shape {list(a.shape)}, "
                                     f"the config needs {list(shape)}")
                params[n].copy_(torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)))

    def init(self, seed):
        self.load_arrays(self.init_params_of(self.config, seed), "init")


class Attention(nn.Module):
    """qkv (E -> 3E: [q | k | v]) and proj (E -> E); the attention itself is each model's."""

    def __init__(self, E):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)
        self.proj = nn.Linear(E, E)


class Mlp(nn.Module):
    """x -> out(gelu_tanh(fc(x))), E -> 4E -> E, under the given attribute names."""

    def __init__(self, E, fc="fc", out="proj"):
        super().__init__()
        self._names = (fc, out)
        setattr(self, fc, nn.Linear(E, 4 * E))
        setattr(self, out, nn.Linear(4 * E, E))

    def forward(self, x):
        fc, out = (getattr(self, n) for n in self._names)
        return out(F.gelu(fc(x), approximate="tanh"))


def rope_rotate(x, cos, sin):
    """Half-split layout: pairs (i, i + D/2), rotated by +angle. x (..., P, D), cos/sin (P, D/2)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
