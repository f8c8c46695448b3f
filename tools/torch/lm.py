"""The byte-level language model of docs/length-lab.md (core/lm) as a torch.nn.Module: the
same math, the same tensor names, PosLab lm safetensors checkpoints read and written, so it
is the parity reference for the C++ forward/backward and the speed baseline of
bench/lm_bench.cpp. Python is reference code here: the RoPE scalings are written out again
from Hugging Face's formulas (modeling_rope_utils), independently of core/rope.
  B = windows, T = bytes per window, V = 256, E = width, H = heads, D = E/H, N = layers,
  L = training context in bytes
  x (B, T) long bytes   targets (B, T) long, -1 = not predicted   logits (B, T, V)
"""

import json
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import checkpoint as ckpt
import param_table as pt
from layers import rope_rotate
import layers

VOCAB = 256
LN_EPS = 1e-5
POSITIONS = ("none", "sinusoidal", "learned", "rope", "alibi", "t5", "sinusoidal_scaled")
SCALINGS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
SINUSOID_BASE = 10000.0  # core/position's sinusoidal_encoding base for the model's table
CHECKPOINT_FORMAT = "poslab-byte-lm"  # io/checkpoint/lm_checkpoint.hpp kLmCheckpointFormat
CHECKPOINT_FORMAT_VERSION = "1"
LEARNED_PAST_L = "clamped to row L-1"


class LmConfig:
    """Everything that fixes the model's shape (core/lm/lm.hpp LmConfig)."""

    FIELDS = ("embed", "heads", "layers", "context", "position", "rope_base", "t5_buckets",
              "t5_max_distance")

    def __init__(self, embed=64, heads=4, layers=2, context=128, position="rope",
                 rope_base=10000.0, t5_buckets=32, t5_max_distance=128):
        self.embed = int(embed)  # E: width, E/H even
        self.heads = int(heads)  # H: attention heads
        self.layers = int(layers)  # N: blocks
        self.context = int(context)  # L: training length in bytes (rows of pos_emb)
        self.position = str(position)  # one of POSITIONS
        self.rope_base = float(rope_base)  # RoPE base b
        self.t5_buckets = int(t5_buckets)  # T5 buckets (unidirectional), even
        self.t5_max_distance = int(t5_max_distance)  # T5 max_distance in bytes
        self.validate()

    def validate(self):
        def bad(field, why):
            raise ValueError(f"config {field} = {getattr(self, field)}: {why}")

        if not 8 <= self.embed <= 1024:
            bad("embed", "must be in [8, 1024]")
        if not 1 <= self.heads <= 64 or self.embed % self.heads or (self.embed // self.heads) % 2:
            bad("heads", "must be in [1, 64] and divide embed into an even head dim")
        if not 1 <= self.layers <= 32:
            bad("layers", "must be in [1, 32]")
        if not 2 <= self.context <= 65536:
            bad("context", "must be in [2, 65536]")
        if self.position not in POSITIONS:
            bad("position", f"must be one of {', '.join(POSITIONS)}")
        if not self.rope_base > 1.0:
            bad("rope_base", "must exceed 1")
        if not 4 <= self.t5_buckets <= 256 or self.t5_buckets % 2:
            bad("t5_buckets", "must be even and in [4, 256]")
        if self.t5_max_distance <= self.t5_buckets // 2:
            bad("t5_max_distance", "must exceed half the buckets")

    @property
    def head_dim(self):
        return self.embed // self.heads

    def to_dict(self):
        return {f: getattr(self, f) for f in self.FIELDS}

    def __eq__(self, other):
        return isinstance(other, LmConfig) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return f"LmConfig({self.to_dict()})"


def param_table(c):
    """The tensor table (core/lm/lm.cpp's lm_layout_of, row for row), checkpoint order."""
    E = c.embed
    out = pt.RESIDUAL_OUT
    t = pt.Table()
    t.add("tok_emb.weight", (VOCAB, E))
    if c.position == "learned":
        t.add("pos_emb.weight", (c.context, E), pt.NORMAL, 0.01)
    if c.position == "t5":
        t.add("t5_bias.weight", (c.t5_buckets, c.heads), pt.ZEROS)
    for i in range(c.layers):
        p = f"blocks.{i}."
        t.layernorm(p + "ln1.weight", p + "ln1.bias", E)
        t.linear(p + "attn.qkv", 3 * E, E)
        t.linear(p + "attn.proj", E, E, out)
        t.layernorm(p + "ln2.weight", p + "ln2.bias", E)
        t.linear(p + "mlp.fc", 4 * E, E)
        t.linear(p + "mlp.proj", E, 4 * E, out)
    t.layernorm("ln_f.weight", "ln_f.bias", E)
    return t


def param_layout(c):
    """[(name, shape)] in checkpoint order."""
    return param_table(c).layout()


def param_count(c):
    return param_table(c).count()


def init_params(c, seed):
    """core/lm's init, element for element: GPT-2-like, tok_emb, qkv and fc ~ N(0, 0.02^2),
    attn.proj and mlp.proj ~ N(0, (0.02/sqrt(2N))^2), pos_emb ~ N(0, 0.01^2), t5_bias and
    every bias 0, LayerNorm weights 1; element e of tensor `name` is normal number e of
    PosLab's SeededStream(seed, "lm:" + name, 0)."""
    return param_table(c).init(seed, "lm:", c.layers)


# ---- Position encodings (independent reference formulas) ------------------------------

def sinusoidal_table(T, E, base=SINUSOID_BASE):
    """(T, E) float32, Vaswani interleaved [sin w0 p, cos w0 p, sin w1 p, ...], w_i =
    base^(-2i/E); angles in float64 as core/attention's sinusoidal_encoding."""
    i = torch.arange(E // 2, dtype=torch.float64)
    w = base ** (-2.0 * i / E)
    ang = torch.arange(T, dtype=torch.float64).unsqueeze(1) * w
    pe = torch.stack([torch.sin(ang), torch.cos(ang)], dim=-1).reshape(T, E)
    return pe.to(torch.float32)


def alibi_slopes(H):
    """The ALiBi paper's slopes (its reference code for non-powers of two)."""
    def pow2(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (k + 1) for k in range(n)]

    p = 2 ** int(math.floor(math.log2(H)))
    s = pow2(p)
    if p < H:
        s += pow2(2 * p)[0::2][: H - p]
    return s


def t5_buckets(T, num_buckets, max_distance):
    """(T, T) long: HF modeling_t5 _relative_position_bucket(key - query, bidirectional=False)
    in float64 (HF computes in float32; no edge differs at integer distances)."""
    q = torch.arange(T).unsqueeze(1)
    k = torch.arange(T).unsqueeze(0)
    n = torch.clamp(q - k, min=0)  # -min(rel, 0)
    max_exact = num_buckets // 2
    nd = n.to(torch.float64).clamp(min=1)
    large = max_exact + (torch.log(nd / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).floor().to(torch.long)
    large = torch.clamp(large, max=num_buckets - 1)
    return torch.where(n < max_exact, n, large)


class RopeScaling:
    """An evaluation-time RoPE scaling (core/rope's RopeParams fields that matter here)."""

    def __init__(self, kind="none", factor=4.0, original_context=None, beta_fast=32.0,
                 beta_slow=1.0, attention_factor=0.0, low_freq_factor=1.0, high_freq_factor=4.0):
        if kind not in SCALINGS:
            raise ValueError(f"scaling {kind!r}: must be one of {', '.join(SCALINGS)}")
        self.kind, self.factor, self.original_context = kind, float(factor), original_context
        self.beta_fast, self.beta_slow = float(beta_fast), float(beta_slow)
        self.attention_factor = float(attention_factor)
        self.low_freq_factor, self.high_freq_factor = float(low_freq_factor), float(high_freq_factor)

    def inv_freq(self, D, base, L, T):
        """(D/2,) float64 frequencies for head dim D, base, trained context L, window T."""
        i = torch.arange(D // 2, dtype=torch.float64)
        inv = base ** (-2.0 * i / D)
        s, k = self.factor, self.kind
        if k == "none":
            return inv
        if k == "linear":
            return inv / s
        if k in ("ntk", "dynamic"):
            if D == 2:
                return inv
            if k == "ntk":
                b = base * s ** (D / (D - 2))
            elif T > L:
                b = base * (s * T / L - (s - 1)) ** (D / (D - 2))
            else:
                b = base
            return b ** (-2.0 * i / D)
        if k == "yarn":
            def corr(turns):
                return D * math.log(L / (turns * 2 * math.pi)) / (2 * math.log(base))

            lo = min(max(math.floor(corr(self.beta_fast)), 0), D - 1)
            hi = max(min(math.ceil(corr(self.beta_slow)), D - 1), 0)
            if lo == hi:
                hi += 0.001
            ramp = ((i - lo) / (hi - lo)).clamp(0, 1)
            keep = 1.0 - ramp
            return inv / s * (1 - keep) + inv * keep
        # llama3
        wavelen = 2 * math.pi / inv
        low_wl, high_wl = L / self.low_freq_factor, L / self.high_freq_factor
        smooth = (L / wavelen - self.low_freq_factor) / (self.high_freq_factor - self.low_freq_factor)
        blended = (1 - smooth) * inv / s + smooth * inv
        out = torch.where(wavelen > low_wl, inv / s, inv)
        medium = (wavelen >= high_wl) & (wavelen <= low_wl)
        return torch.where(medium, blended, out)

    def attention_scale(self):
        """YaRN's mscale (multiplies cos and sin); 1 otherwise."""
        if self.kind != "yarn":
            return 1.0
        if self.attention_factor > 0:
            return self.attention_factor
        return 1.0 if self.factor <= 1 else 0.1 * math.log(self.factor) + 1.0

    def to_dict(self):
        return {"scaling": self.kind, "factor": self.factor}

    @staticmethod
    def from_json(text):
        """The checkpoint's "scaling" metadata ({"scaling": name, "factor": s})."""
        d = json.loads(text)
        if not isinstance(d, dict) or set(d) != {"scaling", "factor"}:
            raise ValueError("scaling must be an object with exactly scaling and factor")
        if not isinstance(d["factor"], (int, float)) or not 1 <= d["factor"] <= 1024:
            raise ValueError(f"factor {d['factor']!r} must be a number in [1, 1024]")
        return RopeScaling(d["scaling"], float(d["factor"]))


def rope_tables(T, D, base, L, scaling=None):
    """cos, sin (T, D/2) float32 for positions 0..T-1: angles in float64, times the
    scaling's attention scale (HF multiplies the tables, so logits scale by its square).
    Dynamic NTK is per prefix, as core/lm: row t uses the frequencies of a sequence of t + 1."""
    scaling = scaling or RopeScaling()
    L0 = scaling.original_context or L
    t = torch.arange(T, dtype=torch.float64).unsqueeze(1)
    if scaling.kind == "dynamic":
        inv = torch.stack([scaling.inv_freq(D, base, L0, n + 1) for n in range(T)])
    else:
        inv = scaling.inv_freq(D, base, L0, T)
    ang = t * inv
    m = scaling.attention_scale()
    return (m * torch.cos(ang)).to(torch.float32), (m * torch.sin(ang)).to(torch.float32)


# ---- The model ------------------------------------------------------------------------

class _Block(nn.Module):
    def __init__(self, E):
        super().__init__()
        self.ln1 = nn.LayerNorm(E, eps=LN_EPS)
        self.attn = layers.Attention(E)
        self.ln2 = nn.LayerNorm(E, eps=LN_EPS)
        self.mlp = layers.Mlp(E, "fc", "proj")


class ByteLm(layers.TableParams, nn.Module):
    """forward(x, targets=None, scaling=None) -> dict(logits (B, T, V), loss (nats, mean
    over targets != -1, or None), count)."""

    layout_of = staticmethod(param_layout)
    init_params_of = staticmethod(init_params)

    def __init__(self, config):
        super().__init__()
        c = self.config = config
        self.tok_emb = nn.Embedding(VOCAB, c.embed)
        if c.position == "learned":
            self.pos_emb = nn.Embedding(c.context, c.embed)
        if c.position == "t5":
            self.t5_bias = nn.Embedding(c.t5_buckets, c.heads)
        self.blocks = nn.ModuleList([_Block(c.embed) for _ in range(c.layers)])
        self.ln_f = nn.LayerNorm(c.embed, eps=LN_EPS)
        self._cache = {}
        names = dict(self.named_parameters())
        want = dict(param_layout(c))
        assert set(names) == set(want), sorted(set(names) ^ set(want))

    def _cached(self, key, make, device):
        key = key + (str(device),)
        if key not in self._cache:
            self._cache[key] = tuple(t.to(device) for t in make())
        return self._cache[key]

    def attention_bias(self, T, device):
        """(H, T, T) additive bias for alibi / t5 (None otherwise), causal mask excluded."""
        c = self.config
        if c.position == "alibi":
            (b,) = self._cached(("alibi", T), lambda: (self._alibi(T),), device)
            return b
        if c.position == "t5":
            (bk,) = self._cached(("t5", T), lambda: (t5_buckets(T, c.t5_buckets,
                                                                c.t5_max_distance),), device)
            return self.t5_bias(bk).permute(2, 0, 1)
        return None

    def _alibi(self, T):
        s = torch.tensor(alibi_slopes(self.config.heads), dtype=torch.float64)
        q = torch.arange(T, dtype=torch.float64)
        dist = (q.unsqueeze(1) - q.unsqueeze(0)).clamp(min=0)  # q - k on the visible side
        return (-s.view(-1, 1, 1) * dist).to(torch.float32)

    def forward(self, x, targets=None, scaling=None):
        c = self.config
        B, T = x.shape
        E, H, D = c.embed, c.heads, c.head_dim
        h = self.tok_emb(x)
        if c.position == "sinusoidal_scaled":  # Vaswani et al.: embeddings times sqrt(E)
            h = h * math.sqrt(E)
        if c.position in ("sinusoidal", "sinusoidal_scaled"):
            (pe,) = self._cached(("sin", T), lambda: (sinusoidal_table(T, E),), x.device)
            h = h + pe
        elif c.position == "learned":
            pos = torch.clamp(torch.arange(T, device=x.device), max=c.context - 1)
            h = h + self.pos_emb(pos)
        if c.position == "rope":
            sc = scaling or RopeScaling()
            key = ("rope", T, sc.kind, sc.factor, sc.original_context)
            cos, sin = self._cached(key, lambda: rope_tables(T, D, c.rope_base, c.context, sc),
                                    x.device)
        bias = self.attention_bias(T, x.device)
        (mask,) = self._cached(("mask", T), lambda: (
            torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1),), x.device)
        for blk in self.blocks:
            a = blk.ln1(h)
            qkv = blk.attn.qkv(a).view(B, T, 3, H, D)
            q, k, v = (qkv[:, :, j].transpose(1, 2) for j in range(3))  # (B, H, T, D)
            if c.position == "rope":
                q, k = rope_rotate(q, cos, sin), rope_rotate(k, cos, sin)
            s = q @ k.transpose(-1, -2) / math.sqrt(D)
            if bias is not None:
                s = s + bias
            s = s.masked_fill(mask, float("-inf"))
            o = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, T, E)
            h = h + blk.attn.proj(o)
            h = h + blk.mlp(blk.ln2(h))
        logits = self.ln_f(h) @ self.tok_emb.weight.t()
        out = {"logits": logits, "loss": None, "count": 0}
        if targets is not None:
            sel = targets >= 0
            out["count"] = int(sel.sum())
            if out["count"]:
                out["loss"] = F.cross_entropy(logits[sel], targets[sel])
        return out


def windows_to_batch(windows):
    """Byte windows of T+1 bytes each (equal length) -> (x, targets) (B, T) long: byte t
    predicts byte t+1."""
    a = torch.tensor(np.array([np.frombuffer(bytes(w), np.uint8) for w in windows]),
                     dtype=torch.long)
    return a[:, :-1].contiguous(), a[:, 1:].contiguous()


# ---- Checkpoints ----------------------------------------------------------------------

def config_from_metadata(meta, path):
    return ckpt.config_from_metadata(meta, path, CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION,
                                     "language model", LmConfig, LmConfig.FIELDS)


class Checkpoint:
    """config, step, params {name: array}, metadata, AdamW moments m, v (or None), and the
    RoPE scaling a fine-tuned model was tuned with (RopeScaling("none") for a base model)."""

    def __init__(self, config, step, params, metadata, m=None, v=None, scaling=None):
        self.config, self.step, self.params, self.metadata, self.m, self.v = (
            config, step, params, metadata, m, v)
        self.scaling = scaling or RopeScaling()


def read_lm_checkpoint(path):
    from safetensors_io import CheckpointError

    c, step, params, meta, copies = ckpt.read_tensors(path, config_from_metadata, param_layout)
    try:
        scaling = RopeScaling.from_json(meta.get("scaling", '{"scaling":"none","factor":4}'))
    except (ValueError, TypeError) as e:
        raise CheckpointError(path, f"bad scaling in metadata: {e}") from None
    ck = Checkpoint(c, step, params, meta, scaling=scaling)
    if "optim.m." in copies:
        ck.m, ck.v = copies["optim.m."], copies["optim.v."]
    return ck


def load_checkpoint(path, device="cpu"):
    """(ByteLm, Checkpoint) from a PosLab lm safetensors checkpoint; evaluate with
    scaling=ck.scaling, the one it was tuned with, by default."""
    ck = read_lm_checkpoint(path)
    m = ByteLm(ck.config)
    m.load_arrays(ck.params, path)
    return m.to(device), ck


def save_checkpoint(path, model, step, extra_meta=None, m=None, v=None, scaling=None):
    """Writes the tensors in checkpoint order (optionally AdamW m, v) and the metadata the
    C++ reader checks (format, format_version, config, step, param_count, scaling);
    atomically."""
    c = model.config
    header = ckpt.header_of(CHECKPOINT_FORMAT, CHECKPOINT_FORMAT_VERSION, c.to_dict(), step,
                            param_layout(c))
    header["scaling"] = json.dumps((scaling or RopeScaling()).to_dict(), separators=(",", ":"))
    if c.position == "learned":
        header["learned_past_L"] = LEARNED_PAST_L
    copies = {"optim.m.": m, "optim.v.": v} if m is not None and v is not None else {}
    ckpt.write_tensors(path, param_layout(c), dict(model.named_arrays()), extra_meta, header,
                       copies, {"optim_step": str(int(step))})
