"""Trains the PosLab world model with PyTorch, for users who outgrow two cores. Runs
unchanged as one plain process, under torchrun on one CPU process (gloo) or on many GPUs
(nccl): every rank draws the same global batch k (core/wm/data.cpp's rules), takes its
share of the windows, and normalises its loss by the global batch's mask counts, so the
averaged gradient is the gradient of the whole batch's loss whatever the world size.
Writes PosLab safetensors checkpoints (atomically, with the AdamW state) and the CSV log
of `poslab-cli wm train`; a run resumes across the two trainers.

  /usr/bin/python3 tools/torch/torchrun.py --nproc_per_node=1 tools/torch/train.py \\
      --data data.h5 --preset tiny --position rope --steps 2000 -o tiny.safetensors
"""

import argparse
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import model as wm  # noqa: E402
from distributed import (Dist, cuda_missing_reason, describe_device,  # noqa: E402
                         write_text_atomically)
import poslab_data as data  # noqa: E402
from safetensors_io import CheckpointError  # noqa: E402

CSV_HEADER = ("step,loss,state,power,turn,shoot,rel,lr,grad_norm,window_steps,tokens_per_s,"
              "seconds,val_loss,val_state,val_power,val_turn,val_shoot,val_rel\n")
PARTS = ("state", "power", "turn", "shoot", "rel")


def build_parser():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", nargs="+", help="HDF5 datasets from `poslab-cli collect` "
                   "(default when resuming: the files the checkpoint records)")
    p.add_argument("-o", "--output", "--out", dest="out", required=True,
                   help="checkpoint to write (.safetensors)")
    p.add_argument("--preset", default="tiny", choices=sorted(wm.PRESETS))
    p.add_argument("--position", default="rope", choices=["rope", "absolute"])
    p.add_argument("--state-head", default="plain", choices=["plain", "scaled", "cv"],
                   help="plain (S_t + head) | scaled (S_t + sigma*head) | cv (CV(S_t) + sigma*head); "
                        "sigma is measured on the train split, as `poslab-cli wm train` does")
    p.add_argument("--state-loss", default="sigma", choices=["sigma", "raw"],
                   help="scaled and cv heads: sigma (((pred - s)/sigma)^2) | raw (token units)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                   help="auto: CUDA when this PyTorch has it and a GPU is visible, else the CPU")
    p.add_argument("--resume", metavar="CHECKPOINT",
                   help="continue from this checkpoint (PosLab's or ours); its config and recorded "
                        "settings win, so the same batches follow as without the interruption")
    p.add_argument("--steps", type=int, default=1000, help="optimiser step to stop after (counting resumed ones)")
    p.add_argument("--batch", type=int, default=8, help="windows per global batch")
    p.add_argument("--short-steps", type=int, default=0, help="T of short windows (0 = min(32, long/2))")
    p.add_argument("--long-steps", type=int, default=0, help="T of long windows (0 = context)")
    p.add_argument("--long-every", type=int, default=5, help="every n-th batch is long (5 = 4:1)")
    p.add_argument("--val-fraction", type=float, default=0.1, help="share of episodes held out")
    p.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    p.add_argument("--warmup", type=int, default=100, help="linear warm-up steps")
    p.add_argument("--weight-decay", type=float, default=0.01, help="AdamW decoupled decay")
    p.add_argument("--clip", type=float, default=1.0, help="global gradient-norm limit (0 = off)")
    p.add_argument("--swa-start", type=int, default=-1, help="step from which weights are averaged (-1 = off)")
    p.add_argument("--swa-every", type=int, default=10, help="SWA snapshot interval")
    p.add_argument("--seed", type=int, default=0, help="initial weights, episode split, batch draws")
    p.add_argument("--threads", type=int, default=0, help="torch threads per rank (0 = torch's default)")
    p.add_argument("--log-every", type=int, default=10, help="CSV row interval")
    p.add_argument("--checkpoint-every", "--save-every", dest="save_every", type=int, default=200,
                   help="checkpoint interval")
    p.add_argument("--val-every", type=int, default=200, help="validation interval (0 = only at the end)")
    p.add_argument("--val-windows", type=int, default=48, help="validation windows at most")
    p.add_argument("--log", help="CSV log (default: the output with .csv)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--progress", action="store_true",
                   help="accepted for `poslab-cli wm train`'s flags: progress is shown unless --quiet")
    return p


def explicit_flags(argv):
    """dest -> the option string of every flag the user gave (resume reports what it overrides)."""
    p = build_parser()
    for act in p._actions:
        act.default = argparse.SUPPRESS
        act.required = False
    given, _ = p.parse_known_args(argv)
    names = {act.dest: act.option_strings[-1] for act in p._actions if act.option_strings}
    return {k: names.get(k, k) for k in vars(given)}


def parse_args(argv=None):
    p = build_parser()
    a = p.parse_args(argv)
    a.explicit = explicit_flags(sys.argv[1:] if argv is None else argv)
    for name, lo in (("steps", 1), ("log_every", 1), ("save_every", 1), ("val_windows", 1),
                     ("val_every", 0), ("swa_every", 1), ("warmup", 0)):
        if getattr(a, name) < lo:
            p.error(f"--{name.replace('_', '-')} = {getattr(a, name)}: must be >= {lo}")
    if not 0 < a.lr <= 1:
        p.error(f"--lr = {a.lr}: must be in (0, 1]")
    if not 0 <= a.weight_decay <= 1:
        p.error(f"--weight-decay = {a.weight_decay}: must be in [0, 1]")
    return a


def adamw_groups(model, weight_decay):
    """core/wm/train.cpp's decay mask: the 2-D weight matrices of linear layers decay;
    biases, LayerNorm gains and embedding tables do not."""
    decay, no_decay = [], []
    for name, prm in model.named_parameters():
        is_matrix = prm.dim() == 2 and name.endswith(".weight") and "ln" not in name
        (decay if is_matrix else no_decay).append(prm)
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0}]


def evaluate(model, episodes, windows, steps, device, batch=16):
    """Validation loss over fixed windows, parts weighted by their element counts (the loss
    of one big batch holding every window, as core/wm/train.cpp wm_evaluate_loss)."""
    totals = None
    model.eval()
    with torch.no_grad():
        for i in range(0, len(windows), batch):
            tok, act, valid = data.make_batch(episodes, windows[i : i + batch], steps)
            out = model(torch.from_numpy(tok).to(device), torch.from_numpy(act).to(device),
                        torch.from_numpy(valid).to(device))
            sums = {k: (float(v) if torch.is_tensor(v) else v) for k, v in out["sums"].items()}
            totals = sums if totals is None else {k: totals[k] + sums[k] for k in totals}
    model.train()
    return {k: float(v) for k, v in wm.WorldModel.combine(totals).items()}


def csv_prefix(path, step):
    """Rows of an existing log up to `step` (a resumed run rewrites what follows) and the
    seconds column of the last kept row, so the clock continues."""
    out, last_seconds = CSV_HEADER, 0.0
    if not os.path.exists(path):
        return out, last_seconds
    with open(path) as f:
        lines = f.read().splitlines()[1:]
    for line in lines:
        cols = line.split(",")
        try:
            if int(cols[0]) > step:
                break
            last_seconds = float(cols[11])
        except (ValueError, IndexError):
            break
        out += line + "\n"
    return out, last_seconds


def main(argv=None):
    a = parse_args(argv)
    if a.device == "cuda" and not torch.cuda.is_available():
        print(f"error: --device cuda: {cuda_missing_reason()}", file=sys.stderr)
        return 2
    d = Dist(a.device)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    quiet = a.quiet or d.rank != 0

    def fail(msg, code=2):
        if d.rank == 0:
            print(f"error: {msg}", file=sys.stderr)
        d.close()
        return code

    # ---- model, optimiser state and settings (a resumed checkpoint's settings win) ----
    resumed = None
    if a.resume:
        try:
            resumed = wm.read_wm_checkpoint(a.resume)
        except CheckpointError as e:
            return fail(str(e))
        meta = resumed.metadata
        try:
            dmeta = json.loads(meta.get("data", "{}"))
            tmeta = json.loads(meta.get("training", "{}"))
        except ValueError:
            return fail(f"{a.resume}: training metadata does not parse")
        if not a.data:
            a.data = [f.get("path", "") for f in dmeta.get("files", [])]
        overridden = []  # the user's flags that the checkpoint's recorded settings replace

        def keep(attr, value):
            value = type(getattr(a, attr))(value)
            if attr in a.explicit and getattr(a, attr) != value:
                overridden.append(f"{a.explicit[attr]} {getattr(a, attr)} -> {value}")
            setattr(a, attr, value)

        keep("seed", dmeta.get("seed", a.seed))
        keep("val_fraction", dmeta.get("val_fraction", a.val_fraction))
        for key, attr in (("batch", "batch"), ("short_steps", "short_steps"),
                          ("long_steps", "long_steps"), ("long_every", "long_every"),
                          ("lr", "lr"), ("warmup_steps", "warmup"), ("weight_decay", "weight_decay"),
                          ("clip_norm", "clip"), ("swa_start", "swa_start"), ("swa_every", "swa_every")):
            if key in tmeta:
                keep(attr, tmeta[key])
        cfg = resumed.config
        head = {"last": "scaled", "cv": "cv"}[cfg.state_base] if cfg.state_scale is not None else "plain"
        for attr, value in (("position", cfg.position), ("state_head", head),
                            ("state_loss", cfg.state_loss if head != "plain" else a.state_loss)):
            keep(attr, value)
        if "preset" in a.explicit:
            overridden.append(f"--preset {a.preset} -> the checkpoint's config "
                              f"(E {cfg.embed}, {cfg.heads} heads, {cfg.layers} layers, C {cfg.context})")
        if overridden and d.rank == 0:
            print(f"{a.resume}: a resumed run keeps its recorded settings, so these flags are "
                  f"overridden: {'; '.join(overridden)}", file=sys.stderr)
        if a.steps <= resumed.step:
            return fail(f"{a.resume} is at step {resumed.step}: --steps {a.steps} is not past it, so "
                        f"there is nothing to train (give --steps > {resumed.step})")
        model = wm.WorldModel(cfg)
        model.load_arrays(resumed.params, a.resume)
        start_step = resumed.step
        init_seed = int(tmeta.get("init_seed", a.seed))
    else:
        cfg = wm.WmConfig.preset(a.preset, a.position)
        model = None  # a scaled or cv head needs sigma from the train split, below
        start_step = 0
        init_seed = a.seed
    if not a.data:
        return fail("--data: give the dataset files (make them with `poslab-cli collect`)")
    try:
        episodes = data.load_datasets(a.data)
    except data.DatasetError as e:
        return fail(str(e))
    if model is None:
        if a.state_head != "plain":  # a new run: sigma of its train split, as wm train
            split_train, _ = data.split_episodes(len(episodes), a.val_fraction, a.seed)
            base = "cv" if a.state_head == "cv" else "last"
            cfg = wm.WmConfig(**(cfg.to_dict() | dict(
                state_scale=wm.state_scale(episodes, split_train, base), state_base=base,
                state_loss=a.state_loss)))
        model = wm.WorldModel(cfg)
        model.init(a.seed)
    params = data.DataParams(a.batch, a.short_steps, a.long_steps, a.long_every, a.val_fraction, a.seed)
    try:
        params.validate(cfg.context, cfg.position)
    except ValueError as e:
        return fail(str(e))
    if a.batch < d.world:
        return fail(f"--batch {a.batch} is smaller than the {d.world} ranks (each needs a window)")
    train, val = data.split_episodes(len(episodes), a.val_fraction, a.seed)
    if not train:
        return fail("no training episodes (collect more episodes)")
    val_T = params.long_T(cfg.context)
    val_wins = data.val_windows(episodes, val, val_T, a.val_windows)

    model = model.to(d.device)
    ddp = (torch.nn.parallel.DistributedDataParallel(model, device_ids=[d.local_rank] if d.cuda else None)
           if d.enabled else model)
    opt = torch.optim.AdamW(adamw_groups(model, a.weight_decay), lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    named = dict(model.named_parameters())
    swa, swa_count = None, 0
    if resumed is not None and resumed.m is not None:
        # PosLab's AdamW moments are torch's exp_avg / exp_avg_sq (same bias correction).
        for n, prm in named.items():
            opt.state[prm] = {
                "step": torch.tensor(float(start_step)),
                "exp_avg": torch.from_numpy(resumed.m[n].copy()).to(d.device),
                "exp_avg_sq": torch.from_numpy(resumed.v[n].copy()).to(d.device),
            }
        if resumed.swa is not None:
            swa = {n: torch.from_numpy(resumed.swa[n].copy()).to(d.device) for n in named}
            swa_count = resumed.swa_count
    elif resumed is not None and not quiet:
        print(f"{a.resume} holds no optimiser state: AdamW starts with zero moments", file=sys.stderr)

    command = " ".join([os.path.basename(sys.executable)] + sys.argv)
    if resumed is not None and "command" in resumed.metadata:
        command = resumed.metadata["command"] + " ; resumed: " + command
    meta_extra = {
        "command": command,
        "seed": str(a.seed),
        "data": json.dumps({"files": [{"path": p, "episodes": n} for p, n in
                                      zip(a.data, _episodes_per_file(a.data))],
                            "seed": a.seed, "val_fraction": a.val_fraction,
                            "train_episodes": len(train), "val_episodes": len(val)}),
        "training": json.dumps({"batch": a.batch, "short_steps": a.short_steps,
                                "long_steps": a.long_steps, "long_every": a.long_every, "lr": a.lr,
                                "warmup_steps": a.warmup, "weight_decay": a.weight_decay,
                                "beta1": 0.9, "beta2": 0.95, "clip_norm": a.clip,
                                "swa_start": a.swa_start, "swa_every": a.swa_every,
                                "init_seed": init_seed, "trainer": "tools/torch/train.py",
                                "world_size": d.world, "device": str(d.device.type)}),
    }

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
        wm.save_checkpoint(a.out, model, step, meta_extra, m, v, swa_np, swa_count)

    stop = {"now": False}

    def on_signal(sig, frame):  # finish the step in flight, save, exit
        stop["now"] = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    log_path = a.log or os.path.splitext(a.out)[0] + ".csv"
    csv_text, seconds_offset = csv_prefix(log_path, start_step) if resumed is not None else (CSV_HEADER, 0.0)
    if d.rank == 0:  # always: a GPU user must see at once whether the GPU is used
        print(f"device: {describe_device(d.device)}" + (f", {d.world} ranks" if d.world > 1 else ""),
              file=sys.stderr)
    if not quiet:
        print(f"{len(episodes)} episodes ({len(train)} train, {len(val)} val), "
              f"{sum(p.numel() for p in model.parameters())} parameters, {d.world} rank(s) on "
              f"{d.device.type}, steps {start_step + 1}..{a.steps}", file=sys.stderr)

    t_start = t_row = time.time()
    tokens_since_row, steps_since_row = 0, 0
    sums_since_row = torch.zeros(6, dtype=torch.float64, device=d.device)  # total + 5 parts
    step = start_step
    while step < a.steps:
        k = step  # batch index of the step being taken
        step += 1
        windows, T = data.train_windows(episodes, train, params, cfg.context, k)
        tok, act, valid = data.make_batch(episodes, windows, T)
        counts = wm.loss_counts(tok, valid)
        mine = slice(d.rank, None, d.world)
        out = ddp(torch.from_numpy(tok[mine]).to(d.device), torch.from_numpy(act[mine]).to(d.device),
                  torch.from_numpy(valid[mine]).to(d.device))
        parts = wm.WorldModel.combine(out["sums"], counts)
        # DDP averages gradients over ranks; this rank's loss is its share of the global
        # batch's loss, so scaling by the world size makes the average the global gradient.
        (parts["total"] * d.world).float().backward()
        lr = a.lr * min(1.0, step / a.warmup) if a.warmup > 0 else a.lr
        for g in opt.param_groups:
            g["lr"] = lr
        gnorm = float(torch.nn.utils.clip_grad_norm_(model.parameters(),
                                                     a.clip if a.clip > 0 else float("inf")))
        if not np.isfinite(gnorm):
            return fail(f"non-finite gradient norm at step {step}; lower --lr or resume from "
                        f"the last checkpoint", 1)
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
        # the global loss of this step: the sum of every rank's share
        sums_since_row += d.all_sum(torch.stack([parts["total"].detach()] +
                                                [parts[x].detach() for x in PARTS]))
        tokens_since_row += tok.shape[0] * T * 2 * data.SLOTS
        steps_since_row += 1
        halt = d.all_sum(torch.tensor([1.0 if stop["now"] else 0.0], device=d.device))
        stopping = float(halt) > 0  # every rank stops at the same step, or the others hang
        last = step >= a.steps or stopping
        val_due = last or (a.val_every > 0 and step % a.val_every == 0)
        if step % a.log_every == 0 or val_due:
            now = time.time()
            mean = (sums_since_row / steps_since_row).tolist()
            row = (f"{step},{mean[0]:.6g}," + ",".join(f"{x:.6g}" for x in mean[1:]) +
                   f",{lr:.6g},{gnorm:.6g},{T},{tokens_since_row / max(now - t_row, 1e-9):.1f},"
                   f"{now - t_start + seconds_offset:.2f}")
            vtxt = ""
            if val_due and val_wins and d.rank == 0:
                v = evaluate(model, episodes, val_wins, val_T, d.device)
                row += "," + ",".join(f"{v[x]:.6g}" for x in ("total",) + PARTS)
                vtxt = f"  val {v['total']:.4f}"
            else:
                row += ",,,,,,"
            csv_text += row + "\n"
            if d.rank == 0:
                write_text_atomically(log_path, csv_text)
            if not quiet:
                print(f"\rstep {step}/{a.steps}  loss {mean[0]:.4f}  "
                      f"{tokens_since_row / max(now - t_row, 1e-9) / 1000:.1f}k tokens/s{vtxt}   ",
                      end="", file=sys.stderr, flush=True)
            sums_since_row.zero_()
            tokens_since_row, steps_since_row = 0, 0
            t_row = time.time()  # validation time does not count against tokens/s
        if last or step % a.save_every == 0:
            save(step)
        if stopping:
            if not quiet:
                print(f"\ninterrupted at step {step}; {a.out} holds it (resume with --resume {a.out})",
                      file=sys.stderr)
            break
    if not quiet:
        print(f"\nwrote {a.out} (step {step}) and {log_path}", file=sys.stderr)
    d.close()
    return 0


def _episodes_per_file(paths):
    """Episode count of each dataset file (its num_episodes attribute)."""
    import h5py

    out = []
    for p in paths:
        with h5py.File(p, "r") as f:
            out.append(int(np.asarray(f.attrs["num_episodes"]).reshape(-1)[0]))
    return out


if __name__ == "__main__":
    sys.exit(main())
