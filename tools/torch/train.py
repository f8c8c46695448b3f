"""Trains the PosLab world model with PyTorch, for users who outgrow two cores. Runs
unchanged as one plain process, under torchrun on one CPU process (gloo) or on many GPUs
(nccl): every rank draws the same global batch k (core/wm/data.cpp's rules), takes its
share of the windows, and normalises its loss by the global batch's mask counts, so the
averaged gradient is the gradient of the whole batch's loss whatever the world size.
Writes PosLab safetensors checkpoints (atomically) that `poslab-cli wm` reads.

  /usr/bin/python3 -m torch.distributed.run --nproc_per_node=1 tools/torch/train.py \\
      --data data.h5 --preset tiny --position rope --steps 2000 --out tiny.safetensors
"""

import argparse
import csv
import json
import math
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import model as wm  # noqa: E402
import poslab_data as data  # noqa: E402
from safetensors_io import CheckpointError  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", nargs="+", required=True, help="HDF5 datasets from `poslab-cli collect`")
    p.add_argument("--out", required=True, help="checkpoint to write (.safetensors)")
    p.add_argument("--preset", default="tiny", choices=sorted(wm.PRESETS))
    p.add_argument("--position", default="rope", choices=["rope", "absolute"])
    p.add_argument("--resume", help="checkpoint to continue from (its config wins over --preset)")
    p.add_argument("--steps", type=int, default=1000, help="optimiser steps in total")
    p.add_argument("--batch", type=int, default=8, help="windows per global batch")
    p.add_argument("--short-steps", type=int, default=0, help="T of short windows (0 = min(32, long/2))")
    p.add_argument("--long-steps", type=int, default=0, help="T of long windows (0 = context)")
    p.add_argument("--long-every", type=int, default=5, help="every n-th batch is long (5 = 4:1)")
    p.add_argument("--val-fraction", type=float, default=0.1, help="episodes held out")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=100, help="linear warm-up steps")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--clip", type=float, default=1.0, help="global gradient-norm limit (0 = off)")
    p.add_argument("--swa-start", type=int, default=-1, help="step from which weights are averaged")
    p.add_argument("--swa-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=0, help="init, split and window draws")
    p.add_argument("--threads", type=int, default=0, help="torch intra-op threads per rank (0 = default)")
    p.add_argument("--save-every", type=int, default=200, help="checkpoint every n steps")
    p.add_argument("--val-every", type=int, default=200, help="validation loss every n steps")
    p.add_argument("--val-windows", type=int, default=64, help="validation windows at most")
    p.add_argument("--log", help="CSV log (default: <out>.csv)")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    if a.steps < 1:
        p.error(f"--steps {a.steps}: must be at least 1")
    if a.lr <= 0 or a.lr > 1:
        p.error(f"--lr {a.lr}: must be in (0, 1]")
    return a


class Dist:
    """Rank and world size from torchrun's environment; a plain run is rank 0 of 1."""

    def __init__(self):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.cuda = torch.cuda.is_available()
        self.device = torch.device(f"cuda:{self.local_rank}" if self.cuda else "cpu")
        self.enabled = "RANK" in os.environ and "WORLD_SIZE" in os.environ
        if self.enabled:
            if self.cuda:
                torch.cuda.set_device(self.device)
            dist.init_process_group(backend="nccl" if self.cuda else "gloo")

    def close(self):
        if self.enabled:
            dist.destroy_process_group()


def adamw_groups(model, weight_decay):
    """Decay the matrices of Linear layers; not biases, LayerNorm gains or embeddings."""
    decay, no_decay = [], []
    for name, prm in model.named_parameters():
        (decay if prm.dim() == 2 and name.endswith(".weight") else no_decay).append(prm)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def evaluate(model, episodes, val, steps, max_windows, device):
    """Validation loss parts over fixed windows (sums over all windows, then divided)."""
    windows = data.val_windows(episodes, val, steps, max_windows)
    if not windows:
        return None
    totals = None
    model.eval()
    with torch.no_grad():
        for i in range(0, len(windows), 16):
            tok, act, valid = data.make_batch(episodes, windows[i : i + 16], steps)
            out = model(torch.from_numpy(tok).to(device), torch.from_numpy(act).to(device),
                        torch.from_numpy(valid).to(device))
            sums = {k: (float(v) if torch.is_tensor(v) else v) for k, v in out["sums"].items()}
            if totals is None:
                totals = sums
            else:
                for k in totals:
                    totals[k] += sums[k]
    model.train()
    return {k: float(v) for k, v in wm.WorldModel.combine(totals).items()}


def main(argv=None):
    a = parse_args(argv)
    d = Dist()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    say = (lambda *x: print(*x, file=sys.stderr, flush=True)) if d.rank == 0 and not a.quiet else (lambda *x: None)
    try:
        episodes = data.load_datasets(a.data)
    except data.DatasetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    start_step = 0
    resumed = None
    if a.resume:
        try:
            resumed = wm.read_wm_checkpoint(a.resume)
        except CheckpointError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        start_step = resumed.step
        cfg = resumed.config
        model = wm.WorldModel(cfg)
        model.load_arrays(resumed.params, a.resume)
    else:
        cfg = wm.WmConfig.preset(a.preset, a.position)
        model = wm.WorldModel(cfg)
        model.init(a.seed)
    params = data.DataParams(a.batch, a.short_steps, a.long_steps, a.long_every, a.val_fraction, a.seed)
    try:
        params.validate(cfg.context, cfg.position)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.batch < d.world:
        print(f"error: --batch {a.batch} is smaller than the {d.world} ranks (each needs a window)",
              file=sys.stderr)
        return 2
    train, val = data.split_episodes(len(episodes), a.val_fraction, a.seed)
    model = model.to(d.device)
    ddp = (torch.nn.parallel.DistributedDataParallel(model, device_ids=[d.local_rank] if d.cuda else None)
           if d.enabled else model)
    opt = torch.optim.AdamW(adamw_groups(model, a.weight_decay), lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    swa = None
    swa_count = 0
    named = dict(model.named_parameters())
    if resumed is not None and resumed.m is not None:
        # The AdamW moments of a PosLab checkpoint are torch's exp_avg / exp_avg_sq.
        for n, prm in named.items():
            opt.state[prm] = {
                "step": torch.tensor(float(start_step)),
                "exp_avg": torch.from_numpy(resumed.m[n].copy()).to(d.device),
                "exp_avg_sq": torch.from_numpy(resumed.v[n].copy()).to(d.device),
            }
        if resumed.swa is not None:
            swa = {n: torch.from_numpy(resumed.swa[n].copy()).to(d.device) for n in named}
            swa_count = resumed.swa_count
    provenance = json.dumps({
        "data": [os.path.basename(x) for x in a.data], "episodes": len(episodes),
        "train_episodes": len(train), "val_episodes": len(val), "seed": a.seed,
        "batch": a.batch, "lr": a.lr, "warmup": a.warmup, "world_size": d.world,
        "trainer": "tools/torch/train.py",
    })

    def save(step):
        if d.rank != 0:
            return
        m, v = {}, {}
        for n, prm in named.items():
            st = opt.state.get(prm, {})
            zeros = np.zeros(tuple(prm.shape), np.float32)
            m[n] = st["exp_avg"].detach().cpu().numpy() if "exp_avg" in st else zeros
            v[n] = st["exp_avg_sq"].detach().cpu().numpy() if "exp_avg_sq" in st else zeros
        swa_np = {n: t.detach().cpu().numpy() for n, t in swa.items()} if swa is not None else None
        wm.save_checkpoint(a.out, model, step, {"provenance": provenance}, m, v, swa_np, swa_count)

    stop = {"now": False}

    def on_signal(sig, frame):  # finish the step in flight, save, exit
        stop["now"] = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    log_path = a.log or (a.out.replace(".safetensors", "") + ".csv")
    log = None
    if d.rank == 0:
        new = start_step == 0 or not os.path.exists(log_path)
        log = open(log_path, "w" if new else "a", newline="")
        writer = csv.writer(log)
        if new:
            writer.writerow(["step", "loss", "state", "power", "turn", "shoot", "rel", "lr",
                             "grad_norm", "tokens_per_s", "val_loss"])
    say(f"{len(episodes)} episodes ({len(train)} train, {len(val)} val), "
        f"{sum(p.numel() for p in model.parameters())} parameters, world size {d.world}, "
        f"device {d.device}")
    t_last = time.time()
    tokens_since = 0
    step = start_step
    for step in range(start_step + 1, a.steps + 1):
        k = step - 1
        windows, T = data.train_windows(episodes, train, params, cfg.context, k)
        tok, act, valid = data.make_batch(episodes, windows, T)
        counts = wm.loss_counts(tok, valid)
        mine = slice(d.rank, None, d.world)
        tok_t = torch.from_numpy(tok[mine]).to(d.device)
        act_t = torch.from_numpy(act[mine]).to(d.device)
        val_t = torch.from_numpy(valid[mine]).to(d.device)
        out = ddp(tok_t, act_t, val_t)
        parts = wm.WorldModel.combine(out["sums"], counts)
        # DDP averages gradients over ranks: scale by the world size so the result is the
        # gradient of the global batch's loss.
        (parts["total"] * d.world).float().backward()
        lr = a.lr * min(1.0, step / a.warmup) if a.warmup > 0 else a.lr
        for g in opt.param_groups:
            g["lr"] = lr
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip if a.clip > 0 else float("inf"))
        if not torch.isfinite(gnorm):
            print(f"error: non-finite gradient norm at step {step}; lower --lr", file=sys.stderr)
            return 1
        opt.step()
        opt.zero_grad(set_to_none=True)
        if a.swa_start >= 0 and step >= a.swa_start and (step - a.swa_start) % a.swa_every == 0:
            with torch.no_grad():
                if swa is None:
                    swa = {n: p.detach().clone() for n, p in named.items()}
                    swa_count = 1
                else:  # as core/nn/adamw.cpp: swa += (p - swa) / (count + 1)
                    swa_count += 1
                    for n, p in named.items():
                        swa[n] += (p.detach() - swa[n]) * (1.0 / swa_count)
        # report the global loss (sum of every rank's share)
        total = parts["total"].detach().clone()
        part_vals = torch.stack([parts[x].detach() for x in ("state", "power", "turn", "shoot", "rel")])
        if d.enabled:
            dist.all_reduce(total)
            dist.all_reduce(part_vals)
        tokens_since += tok.shape[0] * T * 2 * data.SLOTS
        vloss = ""
        if d.rank == 0 and a.val_every > 0 and (step % a.val_every == 0 or step == a.steps) and val:
            v = evaluate(model, episodes, val, params.long_T(cfg.context), a.val_windows, d.device)
            vloss = f"{v['total']:.6f}" if v else ""
        now = time.time()
        tps = tokens_since / max(now - t_last, 1e-9)
        if d.rank == 0:
            pv = part_vals.tolist()
            writer.writerow([step, f"{float(total):.6f}"] + [f"{x:.6f}" for x in pv] +
                            [f"{lr:.3g}", f"{float(gnorm):.4f}", f"{tps:.0f}", vloss])
            if step % 10 == 0 or step == a.steps:
                log.flush()
                say(f"\rstep {step}/{a.steps}  loss {float(total):.4f}  {tps / 1000:.1f}k tokens/s"
                    + (f"  val {vloss}" if vloss else "") + "   ")
                tokens_since, t_last = 0, now
        if a.save_every > 0 and step % a.save_every == 0:
            save(step)
        halt = torch.tensor([1.0 if stop["now"] else 0.0], device=d.device)
        if d.enabled:  # every rank stops at the same step, or the others would hang
            dist.all_reduce(halt)
        if float(halt) > 0:
            say(f"\nstopped at step {step}")
            break
    save(step)
    if log:
        log.close()
    say(f"\nwrote {a.out} (step {step})")
    d.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
