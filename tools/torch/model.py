"""The Boost and Broadside world model of docs/world-model.md as a torch.nn.Module: the same
featurisation, blocks, masks, heads and loss as core/wm, parameters under the checkpoint's
tensor names, so a PosLab safetensors checkpoint loads here and a model trained here loads
in PosLab. This is also an independent reference for the C++ forward pass.
  B = windows, T = steps, N = 8 ships, E = width, H = heads, D = E/H, C = context steps
  tokens (B, T, N, 15) float   actions (B, T, N, 3) long   valid (B, T) bool
"""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import checkpoint as ckpt
import param_table as pt
from layers import rope_rotate
import layers

SHIPS = 8
TOKEN_DIM = 15
REL_DIM = 12
CONTINUOUS_INDEX = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14)
FOURIER_K = 4
STATE_FEATURES = len(CONTINUOUS_INDEX) * (1 + 2 * FOURIER_K)  # 108
ACTION_LOGITS = 12  # power 3 | turn 7 | shoot 2
REL_RANK = 8
REL_BIAS_HIDDEN = 64
ACTION_WEIGHT = 0.05
REL_WEIGHT = 0.1
LN_EPS = 1e-5
WORLD = 1024.0
VELOCITY_SCALE = 180.0
AGENT_DT = 0.02 * 2  # physics substep times substeps per agent step (core/bnb/bnb_sim.hpp)

PRESETS = {
    "tiny": dict(embed=64, heads=4, layers=4, context=32),
    "paper": dict(embed=128, heads=4, layers=6, context=96),
}


class WmConfig:
    """Everything that fixes the model's shape (core/wm/world_model.hpp WmConfig)."""

    def __init__(self, embed=64, heads=4, layers=4, context=32, position="rope", rope_base=10000.0,
                 state_scale=None, state_base="last", state_loss="raw"):
        self.embed = int(embed)  # E: token width, multiple of 4*heads, [8, 1024]
        self.heads = int(heads)  # H: attention heads, E/H even, [1, 64]
        self.layers = int(layers)  # L: blocks (temporal, spatial, ...), [1, 64]
        self.context = int(context)  # C: steps of learned positions / dream cache, [1, 4096]
        self.position = str(position)  # "rope" or "absolute"
        self.rope_base = float(rope_base)  # b: RoPE base, (1, 1e9]
        # State head: pred = base(S_t) + state_scale * head(A_t) (docs section 5); None = ones.
        self.state_scale = None if state_scale is None else [float(np.float32(x)) for x in state_scale]
        self.state_base = str(state_base)  # "last" (S_t) or "cv" (constant-velocity S_t)
        # State loss (docs section 6): "raw" token units, "sigma" ((pred - s) / state_scale)^2.
        self.state_loss = str(state_loss)
        self.validate()

    @staticmethod
    def preset(name, position="rope"):
        if name not in PRESETS:
            raise ValueError(f"preset '{name}': use tiny or paper")
        return WmConfig(position=position, **PRESETS[name])

    def validate(self):
        def bad(field, why):
            raise ValueError(f"config {field} = {getattr(self, field)}: {why}")

        if not 8 <= self.embed <= 1024:
            bad("embed", "must be in [8, 1024]")
        if not 1 <= self.heads <= 64:
            bad("heads", "must be in [1, 64]")
        if self.embed % (4 * self.heads) != 0:
            bad("embed", "must be a multiple of 4 * heads")
        if (self.embed // self.heads) % 2 != 0:
            bad("heads", "embed / heads must be even")
        if not 1 <= self.layers <= 64:
            bad("layers", "must be in [1, 64]")
        if not 1 <= self.context <= 4096:
            bad("context", "must be in [1, 4096]")
        if self.position not in ("rope", "absolute"):
            bad("position", "must be rope or absolute")
        if not 1.0 < self.rope_base <= 1e9:
            bad("rope_base", "must be in (1, 1e9]")
        if self.state_scale is not None and (
                len(self.state_scale) != TOKEN_DIM
                or not all(1e-6 <= np.float32(x) <= 1e3 for x in self.state_scale)):
            bad("state_scale", f"must be {TOKEN_DIM} values in [1e-6, 1e3]")
        if self.state_base not in ("last", "cv"):
            bad("state_base", "must be last or cv")
        if self.state_loss not in ("raw", "sigma"):
            bad("state_loss", "must be raw or sigma")

    @property
    def head_dim(self):
        return self.embed // self.heads

    @property
    def action_embed(self):
        return self.embed // 4

    def to_dict(self):
        return dict(
            embed=self.embed,
            heads=self.heads,
            layers=self.layers,
            context=self.context,
            position=self.position,
            rope_base=self.rope_base,
        ) | ({} if self.state_scale is None else dict(state_scale=self.state_scale)) | (
            {} if self.state_base == "last" else dict(state_base=self.state_base)) | (
            {} if self.state_loss == "raw" else dict(state_loss=self.state_loss))

    def __eq__(self, other):
        return isinstance(other, WmConfig) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return f"WmConfig({self.to_dict()})"


def param_table(c):
    """The tensor table (core/wm/world_model.cpp's param_layout_of, row for row): names,
    shapes and init roles in the allocation order of docs/world-model.md section 7."""
    E, Ea, H = c.embed, c.action_embed, c.heads
    out = pt.RESIDUAL_OUT
    t = pt.Table()
    t.linear("state_enc.in", E, STATE_FEATURES)
    t.linear("state_enc.gate", 2 * E, E)
    t.linear("state_enc.value", 2 * E, E)
    t.linear("state_enc.out", E, 2 * E, out)
    t.layernorm("state_enc.ln.weight", "state_enc.ln.bias", E)
    t.add("emb.alive", (2, E))
    t.add("emb.team", (2, E))
    t.add("emb.fired", (2, E))
    t.add("action_enc.power", (3, Ea))
    t.add("action_enc.turn", (7, Ea))
    t.add("action_enc.shoot", (2, Ea))
    t.linear("action_enc.proj", E, 3 * Ea)
    t.add("emb.slot", (SHIPS, E))
    t.add("emb.teamid", (2, E))
    t.add("emb.type", (2, E))
    if c.position == "absolute":
        t.add("emb.pos", (2 * c.context, E))
    for l in range(c.layers):
        p = f"blocks.{l}."
        t.layernorm(p + "ln1.weight", p + "ln1.bias", E)
        t.linear(p + "attn.qkv", 3 * E, E)
        t.linear(p + "attn.proj", E, E, out)
        if l % 2 == 1:
            t.linear(p + "relbias.fc1", REL_BIAS_HIDDEN, REL_DIM)
            t.linear(p + "relbias.fc2", H, REL_BIAS_HIDDEN)
        t.layernorm(p + "ln2.weight", p + "ln2.bias", E)
        t.linear(p + "mlp.fc1", 4 * E, E)
        t.linear(p + "mlp.fc2", E, 4 * E, out)
    t.layernorm("ln_f.weight", "ln_f.bias", E)
    t.linear("head.action", ACTION_LOGITS, E)
    t.linear("head.state", TOKEN_DIM, E)
    t.linear("head.rel_u", REL_DIM * REL_RANK, E)
    t.linear("head.rel_v", REL_DIM * REL_RANK, E)
    return t


def param_layout(c):
    """[(name, shape)] in the allocation order of docs/world-model.md section 7."""
    return param_table(c).layout()


def init_params(c, seed):
    """{name: float32 array}: docs/world-model.md section 8, stream for stream as the C++."""
    return param_table(c).init(seed, "", c.layers)


# ---- Relational features from tokens (core/bnb/bnb_features.cpp), in float64 ---------
def _round_half_away(x):
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)


def relational_from_tokens(tokens):
    """tokens (..., N, 15) -> rel (..., N, N, 12) float32; pair (i, j) = j seen by i."""
    t = tokens.to(torch.float64)
    two_pi = 2.0 * math.pi
    px = WORLD * torch.atan2(t[..., 4], t[..., 5]) / two_pi
    py = WORLD * torch.atan2(t[..., 6], t[..., 7]) / two_pi
    px = px - WORLD * torch.floor(px / WORLD)
    py = py - WORLD * torch.floor(py / WORLD)
    px = torch.where(px >= WORLD, torch.zeros_like(px), px)
    py = torch.where(py >= WORLD, torch.zeros_like(py), py)
    vx = t[..., 8] * VELOCITY_SCALE
    vy = t[..., 9] * VELOCITY_SCALE
    ax, ay = t[..., 10], t[..., 11]
    n = torch.sqrt(ax * ax + ay * ay)
    safe = torch.where(n > 0, n, torch.ones_like(n))
    ax, ay = ax / safe, ay / safe
    # pairs: i = observer (dim -2), j = other (dim -1)
    dx = px.unsqueeze(-2) - px.unsqueeze(-1)
    dy = py.unsqueeze(-2) - py.unsqueeze(-1)
    dx = dx - WORLD * _round_half_away(dx / WORLD)
    dy = dy - WORLD * _round_half_away(dy / WORLD)
    dvx = vx.unsqueeze(-2) - vx.unsqueeze(-1)
    dvy = vy.unsqueeze(-2) - vy.unsqueeze(-1)
    axi, ayi = ax.unsqueeze(-1), ay.unsqueeze(-1)
    eps = 1e-6
    rx = (dx * axi + dy * ayi) / WORLD
    ry = (-dx * ayi + dy * axi) / WORLD
    rvx = (dvx * axi + dvy * ayi) / VELOCITY_SCALE
    rvy = (-dvx * ayi + dvy * axi) / VELOCITY_SCALE
    d = torch.sqrt(rx * rx + ry * ry + eps)
    rv2 = rvx * rvx + rvy * rvy
    dot = rvx * rx + rvy * ry
    rel = torch.stack(
        [
            rx,
            ry,
            rvx,
            rvy,
            d,
            1.0 / (d + 0.1),
            torch.sqrt(rv2 + eps),
            dot / (d + eps),
            rx / (d + eps),
            ry / (d + eps),
            torch.tanh(-dot / (rv2 + eps)),
            dot,
        ],
        dim=-1,
    )
    return rel.to(torch.float32)


class _StateEncoder(nn.Module):
    def __init__(self, E):
        super().__init__()
        self.add_module("in", nn.Linear(STATE_FEATURES, E))
        self.gate = nn.Linear(E, 2 * E)
        self.value = nn.Linear(E, 2 * E)
        self.out = nn.Linear(2 * E, E)
        self.ln = nn.LayerNorm(E, eps=LN_EPS)
        k = torch.tensor([2.0**i for i in range(FOURIER_K)], dtype=torch.float32) * (math.pi / 2)
        self.register_buffer("freqs", k, persistent=False)
        self.register_buffer("cont", torch.tensor(CONTINUOUS_INDEX), persistent=False)

    def forward(self, tokens):
        x = tokens.index_select(-1, self.cont)  # (..., 12)
        ang = x.unsqueeze(-1) * self.freqs  # (..., 12, 4)
        sc = torch.stack([torch.sin(ang), torch.cos(ang)], dim=-1).flatten(-2)  # (..., 12, 8)
        f = torch.cat([x.unsqueeze(-1), sc], dim=-1).flatten(-2)  # (..., 108)
        h0 = getattr(self, "in")(f)
        h1 = h0 + self.out(F.silu(self.gate(h0)) * self.value(h0))
        return self.ln(h1)


class _Embeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        E = c.embed
        self.alive = nn.Parameter(torch.zeros(2, E))
        self.team = nn.Parameter(torch.zeros(2, E))
        self.fired = nn.Parameter(torch.zeros(2, E))
        self.slot = nn.Parameter(torch.zeros(SHIPS, E))
        self.teamid = nn.Parameter(torch.zeros(2, E))
        # 'type' is also nn.Module.type(); register under the checkpoint name directly.
        self._parameters["type"] = nn.Parameter(torch.zeros(2, E))
        if c.position == "absolute":
            self.pos = nn.Parameter(torch.zeros(2 * c.context, E))

    @property
    def type_table(self):
        return self._parameters["type"]


class _ActionEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        Ea, E = c.action_embed, c.embed
        self.power = nn.Parameter(torch.zeros(3, Ea))
        self.turn = nn.Parameter(torch.zeros(7, Ea))
        self.shoot = nn.Parameter(torch.zeros(2, Ea))
        self.proj = nn.Linear(3 * Ea, E)

    def forward(self, actions):
        a = torch.cat(
            [self.power[actions[..., 0]], self.turn[actions[..., 1]], self.shoot[actions[..., 2]]],
            dim=-1,
        )
        return F.silu(self.proj(a))


class _RelBias(nn.Module):
    def __init__(self, H):
        super().__init__()
        self.fc1 = nn.Linear(REL_DIM, REL_BIAS_HIDDEN)
        self.fc2 = nn.Linear(REL_BIAS_HIDDEN, H)

    def forward(self, rel):
        return self.fc2(F.silu(self.fc1(rel)))


class _Block(nn.Module):
    def __init__(self, c, temporal):
        super().__init__()
        E = c.embed
        self.temporal = temporal
        self.ln1 = nn.LayerNorm(E, eps=LN_EPS)
        self.attn = layers.Attention(E)
        if not temporal:
            self.relbias = _RelBias(c.heads)
        self.ln2 = nn.LayerNorm(E, eps=LN_EPS)
        self.mlp = layers.Mlp(E, "fc1", "fc2")


class _Heads(nn.Module):
    def __init__(self, E):
        super().__init__()
        self.action = nn.Linear(E, ACTION_LOGITS)
        self.state = nn.Linear(E, TOKEN_DIM)
        self.rel_u = nn.Linear(E, REL_DIM * REL_RANK)
        self.rel_v = nn.Linear(E, REL_DIM * REL_RANK)


def state_base(tokens, base):
    """The state head's residual base (core/wm wm_state_base): the tokens themselves ("last"),
    or each alive ship's position advanced one agent step at its velocity ("cv": decode x from
    sin/cos with atan2, add 180·vx·dt, re-encode; in float64, rounded to the tokens' dtype)."""
    if base == "last":
        return tokens
    t = tokens.double()
    alive = t[..., 0] > 0.5
    out = t.clone()
    two_pi = 2.0 * math.pi
    for col, vcol in ((4, 8), (6, 9)):
        a = torch.atan2(t[..., col], t[..., col + 1])
        a = torch.where(a < 0, a + two_pi, a)
        x = a / two_pi * WORLD + VELOCITY_SCALE * t[..., vcol] * AGENT_DT
        ang = two_pi * x / WORLD
        out[..., col] = torch.where(alive, torch.sin(ang), t[..., col])
        out[..., col + 1] = torch.where(alive, torch.cos(ang), t[..., col + 1])
    return out.to(tokens.dtype)


def state_scale(episodes, train, base):
    """sigma of the scaled and cv state heads (core/wm/data.cpp wm_state_scale): per token
    value, the RMS of S_{t+1} - base(S_t) over every ship present at t in the train split's
    episodes (float64 sums), clamped to [1e-4, 1]. episodes: objects with .tokens (R, 8, 15)."""
    sums = np.zeros(TOKEN_DIM, np.float64)
    count = 0
    for e in train:
        tok = episodes[e].tokens
        if tok.shape[0] < 2:
            continue
        now = tok[:-1]
        b = state_base(torch.from_numpy(np.ascontiguousarray(now)), base).numpy()
        present = now[..., 4] * now[..., 4] + now[..., 5] * now[..., 5] > np.float32(0.5)
        d = tok[1:].astype(np.float64) - b.astype(np.float64)
        sums += (d[present] ** 2).sum(axis=0)
        count += int(present.sum())
    if count == 0:
        return [1e-4] * TOKEN_DIM
    return [float(np.clip(np.float32(math.sqrt(x / count)), np.float32(1e-4), np.float32(1.0)))
            for x in sums]


def rope_tables(positions, head_dim, base):
    """cos, sin (P, D/2) float32 for integer positions; angles in float64 as the C++."""
    half = head_dim // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2.0 * i / head_dim)
    ang = positions.to(torch.float64).unsqueeze(-1) * theta
    return torch.cos(ang).to(torch.float32), torch.sin(ang).to(torch.float32)


class WorldModel(layers.TableParams, nn.Module):
    """forward(tokens, actions, valid) -> dict of outputs and the loss parts."""

    layout_of = staticmethod(param_layout)
    init_params_of = staticmethod(init_params)

    def __init__(self, config):
        super().__init__()
        self.config = config
        c = config
        self.state_enc = _StateEncoder(c.embed)
        self.emb = _Embeddings(c)
        self.action_enc = _ActionEncoder(c)
        self.blocks = nn.ModuleList([_Block(c, l % 2 == 0) for l in range(c.layers)])
        self.ln_f = nn.LayerNorm(c.embed, eps=LN_EPS)
        self.head = _Heads(c.embed)
        self._rope_cache = {}
        names = dict(self.named_parameters())
        want = dict(param_layout(c))
        assert set(names) == set(want), sorted(set(names) ^ set(want))
        for n, p in names.items():
            assert tuple(p.shape) == tuple(want[n]), (n, p.shape, want[n])

    # -- forward --
    def _rope(self, P, device):
        key = (P, str(device))
        if key not in self._rope_cache:
            cos, sin = rope_tables(
                torch.arange(P), self.config.head_dim, self.config.rope_base
            )
            self._rope_cache[key] = (cos.to(device), sin.to(device))
        return self._rope_cache[key]

    def _temporal(self, blk, x):
        # x (B, T, 2, N, E) -> per ship sequences (B, N, 2T, E), causal.
        B, T, _, N, E = x.shape
        H, D = self.config.heads, self.config.head_dim
        h = blk.ln1(x).permute(0, 3, 1, 2, 4).reshape(B, N, 2 * T, E)
        qkv = blk.attn.qkv(h).view(B, N, 2 * T, 3, H, D)
        q = qkv[:, :, :, 0].transpose(2, 3)  # (B, N, H, 2T, D)
        k = qkv[:, :, :, 1].transpose(2, 3)
        v = qkv[:, :, :, 2].transpose(2, 3)
        if self.config.position == "rope":
            cos, sin = self._rope(2 * T, x.device)
            q = rope_rotate(q, cos, sin)
            k = rope_rotate(k, cos, sin)
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D)
        causal = torch.ones(2 * T, 2 * T, dtype=torch.bool, device=x.device).tril()
        s = s.masked_fill(~causal, float("-inf"))
        o = torch.matmul(torch.softmax(s, dim=-1), v)  # (B, N, H, 2T, D)
        o = o.transpose(2, 3).reshape(B, N, 2 * T, E)
        o = blk.attn.proj(o).view(B, N, T, 2, E).permute(0, 2, 3, 1, 4)
        return o

    def _spatial(self, blk, x, alive, rel):
        # x (B, T, 2, N, E); alive (B, T, N); rel (B, T, N, N, 12)
        B, T, _, N, E = x.shape
        H, D = self.config.heads, self.config.head_dim
        h = blk.ln1(x)
        qkv = blk.attn.qkv(h).view(B, T, 2, N, 3, H, D)
        q = qkv[..., 0, :, :].transpose(-2, -3)  # (B, T, 2, H, N, D)
        k = qkv[..., 1, :, :].transpose(-2, -3)
        v = qkv[..., 2, :, :].transpose(-2, -3)
        bias = blk.relbias(rel).permute(0, 1, 4, 2, 3)  # (B, T, H, N, N)
        s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D) + bias.unsqueeze(2)
        key_ok = alive[:, :, None, None, None, :]  # (B, T, 1, 1, 1, N)
        # A finite fill keeps fully masked rows free of NaN; they are zeroed below.
        s = s.masked_fill(~key_ok, -1e30)
        o = torch.matmul(torch.softmax(s, dim=-1), v)  # (B, T, 2, H, N, D)
        any_alive = alive.any(dim=-1)[:, :, None, None, None, None]
        o = o * any_alive.to(o.dtype)
        o = o.transpose(-2, -3).reshape(B, T, 2, N, E)
        return blk.attn.proj(o)

    def encode(self, tokens, actions):
        """Input tokens x (B, T, 2, N, E) before the blocks."""
        c = self.config
        B, T, N, _ = tokens.shape
        emb = self.emb
        s = self.state_enc(tokens)
        s = (
            s
            + emb.alive[(tokens[..., 0] > 0.5).long()]
            + emb.team[(tokens[..., 1] > 0.5).long()]
            + emb.fired[(tokens[..., 12] > 0.5).long()]
        )
        a = self.action_enc(actions)
        x = torch.stack([s, a], dim=2)  # (B, T, 2, N, E)
        teamid = emb.teamid[torch.arange(N, device=tokens.device) // 4]
        x = x + (emb.slot + teamid)[None, None, None] + emb.type_table[None, None, :, None]
        if c.position == "absolute":
            if T > c.context:
                raise ValueError(f"window of {T} steps exceeds the context of {c.context}")
            x = x + emb.pos[: 2 * T].view(T, 2, 1, -1)[None]
        return x

    def _state_scale(self, tokens):
        s = self.config.state_scale
        return 1.0 if s is None else torch.tensor(s, dtype=tokens.dtype, device=tokens.device)

    def _state_loss_weight(self, tokens):
        """Per-value weight of the squared state error: 1/sigma^2 (state_loss sigma) or None."""
        s = self.config.state_scale
        if s is None or self.config.state_loss == "raw":
            return None
        sig = torch.tensor(s, dtype=torch.float64, device=tokens.device)
        return 1.0 / (sig * sig)

    def forward(self, tokens, actions, valid=None, rel=None):
        """tokens (B, T, N, 15) float, actions (B, T, N, 3) long, valid (B, T) bool.

        Returns a dict: action_logits (B, T, N, 12), state_pred (B, T, N, 15),
        rel_pred (B, T, N, N, 12), and loss parts (float64 scalars) with counts.
        """
        B, T, N, _ = tokens.shape
        c = self.config
        if valid is None:
            valid = torch.ones(B, T, dtype=torch.bool, device=tokens.device)
        if rel is None:
            rel = relational_from_tokens(tokens)
        alive = tokens[..., 0] > 0.5
        x = self.encode(tokens, actions)
        for blk in self.blocks:
            if blk.temporal:
                x = x + self._temporal(blk, x)
            else:
                x = x + self._spatial(blk, x, alive, rel)
            x = x + blk.mlp(blk.ln2(x))
        z = self.ln_f(x)
        zs, za = z[:, :, 0], z[:, :, 1]  # (B, T, N, E)
        logits = self.head.action(zs)
        state_pred = state_base(tokens, c.state_base) + self._state_scale(tokens) * self.head.state(za)
        u = self.head.rel_u(za).view(B, T, N, REL_DIM, REL_RANK)
        v = self.head.rel_v(za).view(B, T, N, REL_DIM, REL_RANK)
        rel_pred = rel + torch.einsum("btikr,btjkr->btijk", u, v)
        out = dict(action_logits=logits, state_pred=state_pred, rel_pred=rel_pred)
        out["sums"] = self.loss_sums(tokens, actions, valid, rel, logits, state_pred, rel_pred,
                                     self._state_loss_weight(tokens))
        out.update(self.combine(out["sums"]))
        return out

    @staticmethod
    def loss_sums(tokens, actions, valid, rel, logits, state_pred, rel_pred, state_weight=None):
        """Masked sums and counts of docs/world-model.md section 6, in float64:
        {state, power, turn, shoot, rel: sum of squared errors or of -log p} and
        {state_count, action_count, rel_count}. state_weight (15) float64 multiplies each
        value's squared error (1/sigma^2 for the sigma state loss); None = ones."""
        B, T, N, _ = tokens.shape
        dev = tokens.device
        alive = tokens[..., 0] > 0.5
        present = tokens[..., 4] ** 2 + tokens[..., 5] ** 2 > 0.5
        out = {}
        if T > 1:
            nxt = valid[:, 1:]  # (B, T-1): the target step is real
            m_state = nxt[:, :, None] & present[:, :-1]  # (B, T-1, N)
            diff = (state_pred[:, :-1].double() - tokens[:, 1:].double()) ** 2
            if state_weight is not None:
                diff = diff * state_weight
            out["state"] = (diff.sum(-1) * m_state).sum()
            out["state_count"] = int(m_state.sum())
            eye = torch.eye(N, dtype=torch.bool, device=dev)
            pres = present[:, :-1]
            m_rel = nxt[:, :, None, None] & pres[..., :, None] & pres[..., None, :] & ~eye
            rdiff = (rel_pred[:, :-1].double() - rel[:, 1:].double()) ** 2
            out["rel"] = (rdiff.sum(-1) * m_rel).sum()
            out["rel_count"] = int(m_rel.sum())
        else:
            out["state"] = out["rel"] = logits.sum().double() * 0.0
            out["state_count"] = out["rel_count"] = 0
        m_act = (valid[:, :, None] & alive).double()  # (B, T, N)
        out["action_count"] = int(m_act.sum())
        for name, lo, hi, h in (("power", 0, 3, 0), ("turn", 3, 10, 1), ("shoot", 10, 12, 2)):
            lp = F.log_softmax(logits[..., lo:hi], dim=-1)
            nll = -lp.gather(-1, actions[..., h : h + 1]).squeeze(-1).double()
            out[name] = (nll * m_act).sum()
        return out

    @staticmethod
    def combine(sums, counts=None):
        """Loss parts and total from sums; counts default to the sums' own (a distributed
        run passes the counts of the whole global batch). A part whose count is 0 is 0."""
        counts = counts or sums
        out = {}
        for part, key, per in (("state", "state_count", 15), ("rel", "rel_count", 12),
                               ("power", "action_count", 1), ("turn", "action_count", 1),
                               ("shoot", "action_count", 1)):
            n = counts[key]
            out[part] = sums[part] / (per * n) if n > 0 else sums[part] * 0.0
        out["total"] = (out["state"] + ACTION_WEIGHT * (out["power"] + out["turn"] + out["shoot"])
                        + REL_WEIGHT * out["rel"])
        for key in ("state_count", "action_count", "rel_count"):
            out[key] = counts[key]
        return out

    @classmethod
    def loss(cls, tokens, actions, valid, rel, logits, state_pred, rel_pred, state_weight=None):
        return cls.combine(cls.loss_sums(tokens, actions, valid, rel, logits, state_pred, rel_pred,
                                         state_weight))


def loss_counts(tokens, valid):
    """The three mask counts of a batch (numpy or torch tokens (B, T, N, 15), valid (B, T)),
    without running the model: a distributed run normalises by the global batch's counts."""
    t = torch.as_tensor(tokens)
    v = torch.as_tensor(valid).bool()
    N = t.shape[2]
    alive = t[..., 0] > 0.5
    present = t[..., 4] ** 2 + t[..., 5] ** 2 > 0.5
    out = {"action_count": int((v[:, :, None] & alive).sum())}
    if t.shape[1] > 1:
        p = present[:, :-1].long().sum(-1)  # (B, T-1) present ships
        nxt = v[:, 1:].long()
        out["state_count"] = int((nxt * p).sum())
        out["rel_count"] = int((nxt * p * (p - 1)).sum())
    else:
        out["state_count"] = out["rel_count"] = 0
    del N
    return out


# ---- Checkpoints (io/checkpoint/wm_checkpoint.hpp) ---------------------------------------
# Metadata: format, format_version, config (JSON), step, param_count, provenance; with the
# optimiser state also optim_step, optim_swa_count and tensors optim.m.<name>,
# optim.v.<name> (AdamW moments) and optionally optim.swa.<name> (running weight average).
CHECKPOINT_FORMAT = "poslab-world-model"
CHECKPOINT_FORMAT_VERSION = "1"


def config_from_metadata(meta, path):
    return ckpt.config_from_metadata(
        meta, path, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION, "world model", WmConfig,
        ("embed", "heads", "layers", "context", "position", "rope_base", "state_scale",
         "state_base", "state_loss"))


class Checkpoint:
    """What a checkpoint holds: config, step, parameters {name: array}, metadata, and the
    optimiser state if saved (m, v {name: array}, optim_step, swa {name: array} or None)."""

    def __init__(self, config, step, params, metadata, m=None, v=None, swa=None, swa_count=0):
        self.config, self.step, self.params, self.metadata = config, step, params, metadata
        self.m, self.v, self.swa, self.swa_count = m, v, swa, swa_count


def read_wm_checkpoint(path):
    c, step, params, meta, copies = ckpt.read_tensors(
        path, config_from_metadata, param_layout, ("optim.m.", "optim.v.", "optim.swa."))
    ck = Checkpoint(c, step, params, meta)
    if "optim.m." in copies:
        ck.m, ck.v = copies["optim.m."], copies["optim.v."]
        if "optim.swa." in copies:
            ck.swa = copies["optim.swa."]
            ck.swa_count = ckpt.meta_int(meta, "optim_swa_count", path)
    return ck


def load_checkpoint(path, device="cpu"):
    """(WorldModel, metadata) from a PosLab safetensors checkpoint."""
    ck = read_wm_checkpoint(path)
    m = WorldModel(ck.config)
    m.load_arrays(ck.params, path)
    return m.to(device), ck.metadata


def save_checkpoint(path, model, step, extra_meta=None, m=None, v=None, swa=None, swa_count=0):
    """Writes the model's tensors (checkpoint order), optionally the AdamW moments m, v and
    the SWA average ({name: array}), and the metadata the C++ reader checks; atomically."""
    layout = param_layout(model.config)
    header = ckpt.header_of(CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION, model.config.to_dict(),
                            step, layout)
    copies = {}
    if m is not None and v is not None:
        copies = {"optim.m.": m, "optim.v.": v}
        if swa is not None:
            copies["optim.swa."] = swa
    ckpt.write_tensors(path, layout, dict(model.named_arrays()), extra_meta, header, copies, {
        "optim_step": str(int(step)),
        "optim_swa_count": str(int(swa_count) if swa is not None else 0)})
