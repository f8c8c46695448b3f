"""Benchmark of the PyTorch bridge model: training tokens/s (forward + backward as in
bench/wm_bench.cpp, and the whole step with clipping and AdamW)
for the tiny and paper presets at each thread setting, and the time of one dream step done
the way PyTorch does it without a KV cache: recomputing the whole window of C steps for one
episode. With --cpp it first runs the C++ benchmarks (poslab_bench
--benchmark_filter=BM_wm) in the same run and prints the ratio C++ / PyTorch for each
training shape (best thread setting of each). Numbers are printed as JSON; nothing is
asserted (timings never gate tests). A token is one S or A token of one ship: a (B, T) batch
has B*T*2*8 tokens.

  /usr/bin/python3 tools/torch/bench.py [--cpp build/release/bench/poslab_bench]
      [--data data.h5] [--threads 1,2] [--seconds 5]

Set here unless the environment sets them: OPENBLAS_NUM_THREADS=1 and
OMP_WAIT_POLICY=PASSIVE, as tools/torch/lm_bench.py does (its docstring says why).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench_common import run_cpp, timed  # noqa: E402

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


def bench_train(cfg, batch, seconds, optimiser):
    """tokens/s of forward + backward (as bench/wm_bench.cpp), with optimiser=True also
    gradient clipping and the AdamW step (a whole training step)."""
    tok, act, valid = (torch.from_numpy(x) for x in batch)
    m = wm.WorldModel(cfg)
    m.init(1)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4, betas=(0.9, 0.95))

    def step():
        out = m(tok, act, valid)
        out["total"].float().backward()
        if optimiser:
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            opt.step()
        opt.zero_grad(set_to_none=True)

    sec, cpu = timed(step, seconds)
    B, T = tok.shape[:2]
    return B * T * 2 * 8 / sec, sec, B * T * 2 * 8 / cpu


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
    p.add_argument("--cpp", help="also run this poslab_bench binary's BM_wm benchmarks first")
    p.add_argument("--data", help="take the batches from this dataset (default: synthetic states)")
    p.add_argument("--threads", default="1,2", help="thread counts to try, comma-separated")
    p.add_argument("--shapes", default="tiny:16x32,paper:8x32,paper:4x96",
                   help="preset:BxT training shapes (the defaults are bench/wm_bench.cpp's)")
    p.add_argument("--position", default="rope", choices=["rope", "absolute"])
    p.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    a = p.parse_args()
    threads = [int(x) for x in a.threads.split(",")]
    result = {"torch": torch.__version__, "position": a.position, "train": [], "dream_recompute": []}
    if a.cpp:
        result["cpp"] = run_cpp(a.cpp, "BM_wm", a.seconds, 4)
    for shape in a.shapes.split(","):
        name, bt = shape.split(":")
        B, T = (int(x) for x in bt.split("x"))
        cfg = wm.WmConfig.preset(name, a.position)
        batch = real_batch(a.data, B, T) if a.data else synthetic_batch(B, T)
        entry = {"preset": name, "B": B, "T": T,
                 "parameters": sum(int(np.prod(s)) for _, s in wm.param_layout(cfg)), "runs": []}
        for n in threads:
            torch.set_num_threads(n)
            fb, fb_sec, fb_cpu = bench_train(cfg, batch, a.seconds, False)
            full, full_sec, full_cpu = bench_train(cfg, batch, a.seconds, True)
            entry["runs"].append({"threads": n, "fwd_bwd_tokens_per_s": round(fb),
                                  "fwd_bwd_tokens_per_cpu_s": round(fb_cpu),
                                  "train_step_tokens_per_s": round(full),
                                  "train_step_tokens_per_cpu_s": round(full_cpu),
                                  "step_ms": full_sec * 1e3})
        entry["best_fwd_bwd_tokens_per_s"] = max(r["fwd_bwd_tokens_per_s"] for r in entry["runs"])
        entry["best_train_step_tokens_per_s"] = max(r["train_step_tokens_per_s"] for r in entry["runs"])
        if a.cpp:  # bench/wm_bench.cpp's names: BM_wm_train_step/paper:P/B:B/T:T/threads:N
            cpp = [v["tokens_per_s"] for k, v in result["cpp"].items()
                   if k.startswith(f"BM_wm_train_step/paper:{int(name == 'paper')}/B:{B}/T:{T}/")]
            if cpp:
                entry["cpp_best_tokens_per_s"] = max(cpp)
                entry["cpp_over_torch"] = round(max(cpp) / entry["best_fwd_bwd_tokens_per_s"], 2)
        result["train"].append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)
    for name in sorted({s.split(":")[0] for s in a.shapes.split(",")}, key=lambda x: x != "tiny"):
        cfg = wm.WmConfig.preset(name, a.position)
        entry = {"preset": name, "T": cfg.context, "runs": []}
        for n in threads:
            torch.set_num_threads(n)
            wall, cpu = bench_dream(cfg, a.seconds)
            entry["runs"].append({"threads": n, "ms": wall * 1e3, "cpu_ms": cpu * 1e3})
        entry["best_ms"] = min(r["ms"] for r in entry["runs"])
        result["dream_recompute"].append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
