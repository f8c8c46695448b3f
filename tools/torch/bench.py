"""Benchmark of the PyTorch bridge model: training tokens/s (forward, backward, AdamW step)
for the tiny and paper presets at each thread setting, and the time of one dream step done
the way PyTorch does it without a KV cache: recomputing the whole window of C steps for one
episode. Numbers are printed as JSON; nothing is asserted (timings never gate tests).
A token is one S or A token of one ship: a (B, T) batch has B*T*2*8 tokens.

  /usr/bin/python3 tools/torch/bench.py [--data data.h5] [--threads 1,2] [--seconds 5]
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import model as wm  # noqa: E402
import poslab_data as data  # noqa: E402


def synthetic_batch(B, T, seed=0):
    """Plausible states (8 alive ships, unit sin/cos and attitude) and random actions."""
    rng = np.random.default_rng(seed)
    tok = np.zeros((B, T, 8, 15), np.float32)
    tok[..., 0] = 1.0
    tok[..., 1] = (np.arange(8) >= 4)[None, None]
    tok[..., 2:4] = rng.uniform(0, 1, (B, T, 8, 2))
    ax, ay, h = (rng.uniform(0, 2 * math.pi, (B, T, 8)) for _ in range(3))
    tok[..., 4], tok[..., 5] = np.sin(ax), np.cos(ax)
    tok[..., 6], tok[..., 7] = np.sin(ay), np.cos(ay)
    tok[..., 8:10] = rng.normal(0, 0.5, (B, T, 8, 2))
    tok[..., 10], tok[..., 11] = np.cos(h), np.sin(h)
    tok[..., 13] = rng.uniform(0, 1, (B, T, 8))
    tok[..., 14] = rng.choice([-1, -1 / 3, 0, 1 / 3, 1], (B, T, 8))
    act = np.stack([rng.integers(0, n, (B, T, 8)) for n in (3, 7, 2)], axis=-1).astype(np.int64)
    return tok, act, np.ones((B, T), bool)


def real_batch(path, B, T, seed=0):
    episodes = data.load_dataset(path)
    params = data.DataParams(batch=B, short_steps=T, long_steps=T, long_every=1, seed=seed)
    train, _ = data.split_episodes(len(episodes), 0.0, seed)
    windows, T = data.train_windows(episodes, train, params, T, 0)
    return data.make_batch(episodes, windows, T)


def timed(fn, seconds, min_reps=3):
    fn()  # warm-up
    reps, t0 = 0, time.perf_counter()
    while reps < min_reps or time.perf_counter() - t0 < seconds:
        fn()
        reps += 1
    return (time.perf_counter() - t0) / reps


def bench_train(cfg, batch, seconds):
    tok, act, valid = (torch.from_numpy(x) for x in batch)
    m = wm.WorldModel(cfg)
    m.init(1)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, betas=(0.9, 0.95))

    def step():
        out = m(tok, act, valid)
        out["total"].float().backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)

    sec = timed(step, seconds)
    B, T = tok.shape[:2]
    return B * T * 2 * 8 / sec, sec


def bench_dream(cfg, seconds):
    """One dream step without a cache: the forward pass over the whole window (B = 1, T = C)."""
    tok, act, valid = (torch.from_numpy(x) for x in synthetic_batch(1, cfg.context, 3))
    m = wm.WorldModel(cfg)
    m.init(1)
    m.eval()

    def step():
        with torch.no_grad():
            m(tok, act, valid)

    return timed(step, seconds)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", help="take the batch from this dataset (default: synthetic states)")
    p.add_argument("--threads", default="1,2", help="thread counts to try, comma-separated")
    p.add_argument("--presets", default="tiny,paper")
    p.add_argument("--position", default="rope", choices=["rope", "absolute"])
    p.add_argument("--batch", type=int, default=8, help="windows per training batch")
    p.add_argument("--steps", type=int, default=0, help="T per window (0 = the context C)")
    p.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    a = p.parse_args()
    threads = [int(x) for x in a.threads.split(",")]
    result = {"torch": torch.__version__, "blas": "see torch.__config__.show()",
              "position": a.position, "batch": a.batch, "results": []}
    for name in a.presets.split(","):
        cfg = wm.WmConfig.preset(name, a.position)
        T = a.steps or cfg.context
        batch = real_batch(a.data, a.batch, T) if a.data else synthetic_batch(a.batch, T)
        entry = {"preset": name, "parameters": sum(int(np.prod(s)) for _, s in wm.param_layout(cfg)),
                 "T": T, "train": [], "dream_recompute": []}
        for n in threads:
            torch.set_num_threads(n)
            tps, sec = bench_train(cfg, batch, a.seconds)
            entry["train"].append({"threads": n, "tokens_per_s": round(tps), "step_ms": sec * 1e3})
            entry["dream_recompute"].append({"threads": n, "ms": bench_dream(cfg, a.seconds) * 1e3})
        entry["best_tokens_per_s"] = max(x["tokens_per_s"] for x in entry["train"])
        entry["best_dream_ms"] = min(x["ms"] for x in entry["dream_recompute"])
        result["results"].append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
