"""Trains the byte-level language model (tools/torch/lm.py, core/lm's twin) on plain text
files, on the CPU or a GPU, and writes a PosLab lm checkpoint (weights, AdamW moments,
metadata) that `poslab-cli lm info|eval` and the length lab read. Optionally fine-tunes a
RoPE model at a longer length with a scaling switched on (the PI paper's recipe). Runs as
one plain process or under torchrun as the world model's trainer does (tools/torch/
distributed.py): every rank draws the same global batch, trains on its share of the
windows, and rank 0 validates, logs and saves.

  /usr/bin/python3 tools/torch/lm_train.py --text /usr/share/games/fortunes/fortunes \
      --position rope --steps 2000 -o rope.safetensors
  /usr/bin/python3 tools/torch/torchrun.py --standalone --nproc_per_node=2 \
      tools/torch/lm_train.py --text ... --position rope --steps 2000 -o rope.safetensors
  /usr/bin/python3 tools/torch/lm_train.py --text ... --resume rope.safetensors \
      --scaling linear --factor 4 --length 512 --steps 2200 -o rope_pi.safetensors

Split: the last --val-fraction of every file's bytes is held out (validation windows are
its consecutive, non-overlapping windows); training windows start at uniform random
offsets of the rest, drawn from numpy's generator seeded with --seed. The CSV log (beside
the checkpoint) has step, train nats, validation nats and bits per byte, seconds.
Ctrl-C or SIGTERM finishes the step in flight, saves and exits; saves are atomic.
"""

import argparse
import json
import math
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import lm  # noqa: E402
from distributed import Dist  # noqa: E402

CSV_HEADER = "step,train_nats,val_nats,val_bits_per_byte,lr,seconds\n"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--text", nargs="+", required=True, help="UTF-8 text files to train on")
    p.add_argument("-o", "--out", required=True, help="checkpoint to write (.safetensors)")
    p.add_argument("--resume", help="start from this checkpoint (its config wins)")
    d = lm.LmConfig()
    p.add_argument("--embed", type=int, default=d.embed)
    p.add_argument("--heads", type=int, default=d.heads)
    p.add_argument("--layers", type=int, default=d.layers)
    p.add_argument("--context", type=int, default=d.context, help="L: training length in bytes")
    p.add_argument("--position", default=d.position, choices=lm.POSITIONS)
    p.add_argument("--rope-base", type=float, default=d.rope_base)
    p.add_argument("--scaling", choices=lm.SCALINGS,
                   help="RoPE scaling to train with (fine-tuning past L; rope only; default: "
                        "the resumed checkpoint's, else none)")
    p.add_argument("--factor", type=float, default=4.0, help="the scaling's factor s")
    p.add_argument("--length", type=int, default=0, help="training window in bytes (default L)")
    p.add_argument("--steps", type=int, default=2000, help="train until this step")
    p.add_argument("--batch", type=int, default=16, help="windows per step")
    p.add_argument("--lr", type=float, default=1e-3, help="peak AdamW learning rate")
    p.add_argument("--warmup", type=int, default=100, help="linear warm-up steps")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0, help="gradient norm clip")
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--val-every", type=int, default=100, help="steps between validations (0: only at the end)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def load_split(paths, val_fraction):
    """(train bytes, val bytes, description): each file's tail is its validation part."""
    train, val, files = [], [], []
    for path in paths:
        try:
            blob = np.fromfile(path, np.uint8)
        except OSError as e:
            sys.exit(f"error: --text {path}: cannot be read ({e.strerror}); check the path")
        cut = int(len(blob) * (1.0 - val_fraction))
        train.append(blob[:cut])
        val.append(blob[cut:])
        files.append({"path": path, "bytes": int(len(blob)), "train_bytes": cut})
    return np.concatenate(train), np.concatenate(val), files


def decay_groups(model, weight_decay):
    """core/lm's lm_decay_mask: Linear weights and tok_emb decay; the rest does not."""
    decay, rest = [], []
    for name, prm in model.named_parameters():
        is_linear = prm.dim() == 2 and (".attn." in name or ".mlp." in name)
        (decay if is_linear or name == "tok_emb.weight" else rest).append(prm)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]


def evaluate(model, val, T, device, scaling, max_windows=64):
    n = min(max_windows, (len(val) - 1) // T)
    if n < 1:
        return float("nan")
    w = np.stack([val[i * T:i * T + T + 1] for i in range(n)]).astype(np.int64)
    total = 0.0
    model.eval()
    with torch.no_grad():
        for i in range(0, n, 16):
            b = torch.from_numpy(w[i:i + 16]).to(device)
            out = model(b[:, :-1], b[:, 1:], scaling=scaling)
            total += float(out["loss"]) * out["count"]
    model.train()
    return total / (n * T)


def main(argv=None):
    a = parse_args(argv)
    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit("error: --device cuda: this PyTorch has no CUDA or sees no GPU (Debian's "
                 "python3-torch is CPU-only; see tools/torch/README.md), or use --device cpu")
    d = Dist(a.device)
    device = d.device
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    start, resumed = 0, None
    if a.resume:
        from safetensors_io import CheckpointError
        try:
            resumed = lm.read_lm_checkpoint(a.resume)
        except CheckpointError as e:
            sys.exit(f"error: --resume {e}")
        cfg, start = resumed.config, resumed.step
    else:
        try:
            cfg = lm.LmConfig(a.embed, a.heads, a.layers, a.context, a.position, a.rope_base)
        except ValueError as e:
            sys.exit(f"error: {e}")
    if a.steps <= start:
        sys.exit(f"error: --steps {a.steps}: the model is at step {start}, nothing to train")
    if a.scaling is None:
        scaling = resumed.scaling if resumed is not None else lm.RopeScaling()
    else:
        scaling = lm.RopeScaling(a.scaling, a.factor)
    if scaling.kind != "none" and cfg.position != "rope":
        sys.exit(f"error: --scaling {scaling.kind}: only a rope model has a scaling (this is {cfg.position})")
    T = a.length or cfg.context
    train, val, files = load_split(a.text, a.val_fraction)
    if len(train) < T + 1:
        sys.exit(f"error: --text: {len(train)} training bytes, fewer than one window of {T + 1}")
    if a.batch < d.world:
        sys.exit(f"error: --batch {a.batch} is smaller than the {d.world} ranks (each needs a window)")

    model = lm.ByteLm(cfg)
    if resumed is not None:
        model.load_arrays(resumed.params, a.resume)
    else:
        model.init(a.seed)
    model = model.to(device)
    ddp = (torch.nn.parallel.DistributedDataParallel(model, device_ids=[d.local_rank] if d.cuda else None)
           if d.enabled else model)
    opt = torch.optim.AdamW(decay_groups(model, a.weight_decay), lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    named = dict(model.named_parameters())
    if resumed is not None and resumed.m is not None and resumed.config == cfg:
        for n, prm in named.items():  # PosLab's AdamW moments are torch's exp_avg / exp_avg_sq
            opt.state[prm] = {"step": torch.tensor(float(start)),
                              "exp_avg": torch.from_numpy(resumed.m[n].copy()).to(device),
                              "exp_avg_sq": torch.from_numpy(resumed.v[n].copy()).to(device)}

    def lr_at(step):  # linear warm-up, cosine decay to a tenth over the run
        if step < a.warmup:
            return a.lr * (step + 1) / a.warmup
        frac = (step - a.warmup) / max(1, a.steps - a.warmup)
        return a.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))

    meta = {
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "trainer": "tools/torch/lm_train.py",
        "data": json.dumps({"files": files, "val_fraction": a.val_fraction, "split": "tail of each file"}),
        "training": json.dumps({"batch": a.batch, "length": T, "lr": a.lr, "warmup": a.warmup,
                                "weight_decay": a.weight_decay, "clip": a.clip, "seed": a.seed,
                                "device": device.type, "world_size": d.world}),
    }

    def save(step):
        m = {n: opt.state.get(p, {}).get("exp_avg", torch.zeros_like(p)).detach().cpu().numpy()
             for n, p in named.items()}
        v = {n: opt.state.get(p, {}).get("exp_avg_sq", torch.zeros_like(p)).detach().cpu().numpy()
             for n, p in named.items()}
        lm.save_checkpoint(a.out, model, step, meta, m, v, scaling)

    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    log_path = os.path.splitext(a.out)[0] + ".csv"
    append = resumed is not None and os.path.exists(log_path)
    log = None
    if d.rank == 0:
        log = open(log_path, "a" if append else "w")
        if not append:
            log.write(CSV_HEADER)
    rng = np.random.default_rng(a.seed + 7919 * start)
    if d.rank == 0:
        print(f"device: {device}" + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda"
                                      else f" ({torch.get_num_threads()} threads)")
              + (f", {d.world} ranks" if d.world > 1 else "")
              + f"; {cfg}, window {T}, steps {start + 1}..{a.steps}", file=sys.stderr)
    t0, step, recent = time.time(), start, []
    stopping = False
    while step < a.steps and not stopping:
        starts = rng.integers(0, len(train) - T, a.batch)  # the global batch, the same on every rank
        mine = starts[d.rank::d.world]
        w = torch.from_numpy(np.stack([train[s:s + T + 1] for s in mine]).astype(np.int64)).to(device)
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = ddp(w[:, :-1], w[:, 1:], scaling=scaling)["loss"]
        opt.zero_grad(set_to_none=True)
        if d.enabled:
            # this rank's share of the global batch's mean loss; DDP averages the gradients
            # over ranks, so scaling by the world size makes the average the global gradient
            share = loss * (len(mine) / a.batch)
            (share * d.world).backward()
            loss = d.all_sum(share.detach().clone())
        else:
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        opt.step()
        step += 1
        recent.append(float(loss))
        # every rank stops at the same step, or the others hang
        stopping = float(d.all_sum(torch.tensor([1.0 if stop["now"] else 0.0], device=device))) > 0
        last = step == a.steps or stopping
        if d.rank != 0:
            continue
        if (a.val_every and step % a.val_every == 0) or last:
            v = evaluate(model, val, T, device, scaling)
            log.write(f"{step},{np.mean(recent):.6f},{v:.6f},{v / math.log(2):.6f},{lr_at(step - 1):.3g},"
                      f"{time.time() - t0:.1f}\n")
            log.flush()
            if not a.quiet:
                print(f"step {step}: train {np.mean(recent):.4f} nats, val {v / math.log(2):.4f} "
                      f"bits/byte, {time.time() - t0:.0f} s", file=sys.stderr)
            recent = []
            save(step)
    if log is not None:
        log.close()
        print(f"wrote {a.out} (step {step}) and {log_path}", file=sys.stderr)
    d.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
