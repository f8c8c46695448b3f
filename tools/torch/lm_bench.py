"""Benchmark of the PyTorch language-model twin (tools/torch/lm.py) against the C++ core in
the same run: training tokens/s at the shipped size (forward + backward as
bench/lm_bench.cpp's BM_lm_train_step, and the whole step with clipping and AdamW) at each
thread setting, and the time to evaluate one window of 8L positions. With --cpp it first
runs the C++ benchmarks (build/release/bench/poslab_bench --benchmark_filter=BM_lm) and
prints the ratio C++ / PyTorch. A token is one predicted byte (a batch of B windows of T + 1
bytes has B*T). Numbers are printed as JSON; nothing is asserted (timings never gate tests).

  /usr/bin/python3 tools/torch/lm_bench.py [--cpp build/release/bench/poslab_bench]
      [--threads 1,2] [--seconds 4] [--positions rope,alibi,t5,learned]

Set here unless the environment sets them: OPENBLAS_NUM_THREADS=1 (Debian's PyTorch calls
the system BLAS, whose own threads would oversubscribe torch's) and OMP_WAIT_POLICY=PASSIVE
(torch's OpenMP threads otherwise spin while they wait; on a loaded machine 2 threads then
ran 15x slower than 1: 632 against 6.6 k tokens/s, 9.5 k with PASSIVE).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench_common import run_cpp, timed  # noqa: E402

import lm  # noqa: E402


def text_batch(B, T, seed=7):
    """B windows of T + 1 text-like bytes (letters, spaces, newlines), as (x, targets)."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, 100, (B, T + 1))
    a = np.where(r < 15, ord(" "), np.where(r < 17, ord("\n"), ord("a") + r % 26))
    a = torch.from_numpy(a.astype(np.int64))
    return a[:, :-1].contiguous(), a[:, 1:].contiguous()


def bench_train(cfg, B, T, seconds, optimiser):
    x, y = text_batch(B, T)
    m = lm.ByteLm(cfg)
    m.init(1)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, betas=(0.9, 0.95))

    def step():
        m(x, y)["loss"].backward()
        if optimiser:
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            opt.step()
        opt.zero_grad(set_to_none=True)

    sec, cpu = timed(step, seconds)
    return B * T / sec, sec, B * T / cpu


def bench_eval(cfg, T, seconds, scaling):
    x, _ = text_batch(1, T, 3)
    m = lm.ByteLm(cfg)
    m.init(1)
    m.eval()

    def run():
        with torch.no_grad():
            m(x, scaling=scaling)

    return timed(run, seconds)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpp", help="also run this poslab_bench binary's BM_lm benchmarks first")
    p.add_argument("--threads", default="1,2", help="torch thread counts to try, comma-separated")
    p.add_argument("--positions", default="rope,alibi,t5,learned",
                   help="encodings to time (training at B x T; eval at 8L)")
    p.add_argument("--batch", type=int, default=16, help="B windows per training batch")
    p.add_argument("--steps", type=int, default=128, help="T predicted positions per window")
    p.add_argument("--seconds", type=float, default=4.0, help="time per measurement")
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    result = {"torch": torch.__version__, "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
              "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
              "config": lm.LmConfig().to_dict(), "train": [], "eval_8L": []}
    if a.cpp:
        result["cpp"] = run_cpp(a.cpp, "BM_lm", a.seconds, 2)
    B, T = a.batch, a.steps
    for pos in a.positions.split(","):
        cfg = lm.LmConfig(position=pos)
        entry = {"position": pos, "B": B, "T": T, "parameters": lm.param_count(cfg), "runs": []}
        for n in threads:
            torch.set_num_threads(n)
            fb, _, fb_cpu = bench_train(cfg, B, T, a.seconds, False)
            full, full_sec, _ = bench_train(cfg, B, T, a.seconds, True)
            entry["runs"].append({"threads": n, "fwd_bwd_tokens_per_s": round(fb),
                                  "fwd_bwd_tokens_per_cpu_s": round(fb_cpu),
                                  "train_step_tokens_per_s": round(full),
                                  "step_ms": round(full_sec * 1e3, 2)})
        entry["best_fwd_bwd_tokens_per_s"] = max(r["fwd_bwd_tokens_per_s"] for r in entry["runs"])
        if a.cpp:
            cpp = [v["tokens_per_s"] for k, v in result["cpp"].items()
                   if k.startswith("BM_lm_train_step/") and v["label"] == pos
                   and f"/B:{B}/T:{T}/" in k]
            if cpp:
                entry["cpp_best_tokens_per_s"] = max(cpp)
                entry["cpp_over_torch"] = round(max(cpp) / entry["best_fwd_bwd_tokens_per_s"], 2)
            # On a loaded machine wall time measures the neighbours too: one thread's CPU time
            # is the better estimate of what one free core does.
            cpu1 = [v.get("tokens_per_cpu_s") for k, v in result["cpp"].items()
                    if k.startswith("BM_lm_train_step/") and v["label"] == pos
                    and f"/B:{B}/T:{T}/threads:1/" in k]
            t1 = [r["fwd_bwd_tokens_per_cpu_s"] for r in entry["runs"] if r["threads"] == 1]
            if cpu1 and cpu1[0] and t1:
                entry["cpp_1thread_tokens_per_cpu_s"] = cpu1[0]
                entry["cpp_over_torch_per_cpu_s"] = round(cpu1[0] / t1[0], 2)
        result["train"].append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)
    torch.set_num_threads(1)
    cases = [(pos, "none") for pos in a.positions.split(",")]
    if "rope" in a.positions.split(","):
        cases += [("rope", "yarn"), ("rope", "dynamic")]
    for pos, sc in cases:
        cfg = lm.LmConfig(position=pos)
        wall, cpu = bench_eval(cfg, 8 * cfg.context, a.seconds, lm.RopeScaling(sc, 8.0))
        entry = {"position": pos, "scaling": sc, "T": 8 * cfg.context, "threads": 1,
                 "ms": round(wall * 1e3, 2), "cpu_ms": round(cpu * 1e3, 2)}
        result["eval_8L"].append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
