"""The torch modules both twins build their blocks from (core/nn's layers and blocks.hpp):
the attention projections, the MLP half and the half-split RoPE rotation. The checkpoint
names of a module's tensors come from its attribute names, so the MLP takes the names its
model's table uses (world model: fc1, fc2; language model: fc, proj).
"""

import torch
import torch.nn.functional as F
from torch import nn


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
