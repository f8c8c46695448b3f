#!/usr/bin/python3
"""PyTorch parity: the bridge model (tools/torch) against the C++ core through poslab-cli.
On a small dataset made here by `poslab-cli collect` and a checkpoint (the committed tiny
models in assets/models/ when present, else one trained here for a few steps by
`poslab-cli wm train`), PyTorch's outputs and loss parts must equal `poslab-cli wm forward`
to 1e-4 on a padded batch; a checkpoint written by PyTorch (after training steps resumed
from the C++ one) must pass `wm info`, dream with `wm dream` and give the same forward in
both. Also: relational features against `poslab-cli inspect --relational`, and the
safetensors reader's rejection of damaged files. Exit 77 (skip) only when torch or h5py
cannot be imported.
  usage: parity_test.py <poslab-cli> <repository root>
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import numpy as np
    import torch
except ImportError as e:
    print(f"SKIPPED: PyTorch parity needs python3-torch and python3-h5py ({e}); "
          "install them with apt-get install python3-torch python3-h5py")
    sys.exit(77)

TOL = 1e-4
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print("command failed:", " ".join(cmd), "\n", r.stderr.strip()[-2000:])
        sys.exit(1)
    return r.stdout


def main():
    cli, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    sys.path.insert(0, os.path.join(root, "tools", "torch"))
    import model as wm
    import poslab_data as pd
    import safetensors_io as st

    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="poslab-parity-")
    CLEANUP.append(tmp)
    data = os.path.join(tmp, "d.h5")
    run([cli, "collect", "--episodes", "6", "--max-steps", "48", "--seed", "21", "--threads",
         "1", "--quiet", "-o", data])
    episodes = pd.load_dataset(data)

    # Relational features: the bridge's (torch, float64) against the core's.
    ref = json.loads(run([cli, "inspect", data, "--episode", "1", "--relational"]))
    rel = wm.relational_from_tokens(torch.from_numpy(episodes[1].tokens)).numpy()
    err = float(np.abs(rel - np.array(ref["relational"], np.float64)).max())
    check(err < 1e-5, f"relational features differ from poslab-cli inspect by {err}")

    # Checkpoints: committed tiny models if any, else trained here by the C++ core.
    ckpts = sorted(glob.glob(os.path.join(root, "assets", "models", "*tiny*.safetensors")))
    ckpts = [c for c in ckpts if json.loads(run([cli, "wm", "info", c]))["config"]["embed"] <= 64]
    if not ckpts:
        for pos in ("rope", "absolute"):
            out = os.path.join(tmp, f"cpp_{pos}.safetensors")
            run([cli, "wm", "train", "--preset", "tiny", "--position", pos, "--data", data,
                 "--steps", "3", "--batch", "2", "--short-steps", "4", "--long-steps", "8",
                 "--seed", "5", "--threads", "1", "--quiet", "-o", out])
            ckpts.append(out)
    # The scaled state heads (docs section 5): sigma * head on S_t and on constant velocity.
    heads = {}
    for head in ("scaled", "cv"):
        out = os.path.join(tmp, f"cpp_{head}.safetensors")
        run([cli, "wm", "train", "--preset", "tiny", "--position", "rope", "--state-head", head,
             "--data", data, "--steps", "3", "--batch", "2", "--short-steps", "4", "--long-steps",
             "8", "--seed", "5", "--threads", "1", "--quiet", "-o", out])
        heads[head] = out
        ckpts.append(out)
    cv_config = wm.read_wm_checkpoint(heads["cv"]).config
    check(cv_config.state_base == "cv" and cv_config.state_scale is not None
          and cv_config.state_loss == "sigma", f"--state-head cv wrote config {cv_config}")
    # The same head with the loss in token units (--state-loss raw).
    out = os.path.join(tmp, "cpp_cv_raw.safetensors")
    run([cli, "wm", "train", "--preset", "tiny", "--position", "rope", "--state-head", "cv",
         "--state-loss", "raw", "--data", data, "--steps", "3", "--batch", "2", "--short-steps",
         "4", "--long-steps", "8", "--seed", "5", "--threads", "1", "--quiet", "-o", out])
    check(wm.read_wm_checkpoint(out).config.state_loss == "raw", "--state-loss raw not recorded")
    ckpts.append(out)
    print("checkpoints:", ", ".join(os.path.basename(c) for c in ckpts))

    # A padded batch: windows of different lengths from different episodes.
    lens = [e.rows for e in episodes]
    longest = sorted(range(len(lens)), key=lambda e: -lens[e])
    e0, e1, e2 = longest[:3]
    windows = [(e0, 0, min(10, lens[e0])), (e1, lens[e1] - min(7, lens[e1]), min(7, lens[e1])),
               (e2, 1, min(9, lens[e2] - 1))]
    T = max(w[2] for w in windows)

    def compare(ckpt, label):
        args = [cli, "wm", "forward", ckpt, "--data", data, "--threads", "1"]
        for e, s, n in windows:
            args += ["--window", f"{e}:{s}:{n}"]
        ref = json.loads(run(args))
        m, _ = wm.load_checkpoint(ckpt)
        m.eval()
        tok, act, valid = pd.make_batch(episodes, windows, T)
        with torch.no_grad():
            out = m(torch.from_numpy(tok), torch.from_numpy(act), torch.from_numpy(valid))
        check(ref["steps"] == T
              and np.array(ref["valid"]).ravel().tolist() == valid.astype(int).ravel().tolist(),
              f"{label}: the CLI's batch (steps, valid mask) differs from the bridge's")
        worst = {}
        for part in ("total", "state", "power", "turn", "shoot", "rel"):
            d = abs(float(out[part]) - ref["loss"][part])
            worst[part] = d
            check(d <= TOL * max(1.0, abs(ref["loss"][part])),
                  f"{label}: loss part {part}: torch {float(out[part])} vs C++ {ref['loss'][part]}")
        for part in ("state_count", "action_count", "rel_count"):
            check(int(out[part]) == ref["loss"][part],
                  f"{label}: {part} torch {out[part]} vs C++ {ref['loss'][part]}")
        for name in ("action_logits", "state_pred", "rel_pred"):
            a = np.array(ref[name], np.float32)
            b = out[name].numpy()
            if a.shape != b.shape:
                check(False, f"{label}: {name} shape C++ {a.shape} vs torch {b.shape}")
                continue
            d = float(np.abs(a - b).max())
            worst[name] = d
            check(d <= TOL, f"{label}: {name} differs by {d} (tolerance {TOL})")
        print(f"{label}: loss {ref['loss']['total']:.6f}, max |torch - C++|: "
              + ", ".join(f"{k} {v:.2e}" for k, v in worst.items()))

    for c in ckpts:
        compare(c, os.path.basename(c))

    # The same run in both trainers: same seed, init, split, batches and AdamW steps.
    cpp_run, py_run = os.path.join(tmp, "run_cpp.safetensors"), os.path.join(tmp, "run_py.safetensors")
    same = ["--data", data, "--steps", "3", "--batch", "2", "--short-steps", "4", "--long-steps",
            "8", "--seed", "5", "--threads", "1", "--quiet"]
    run([cli, "wm", "train", "--preset", "tiny", "--position", "rope", *same, "-o", cpp_run])
    run([sys.executable, os.path.join(root, "tools", "torch", "train.py"), "--preset", "tiny",
         "--position", "rope", *same, "--val-every", "0", "--out", py_run])
    a, b = wm.read_wm_checkpoint(cpp_run), wm.read_wm_checkpoint(py_run)
    d = max(float(np.abs(a.params[n] - b.params[n]).max()) for n in a.params)
    dm = max(float(np.abs(a.m[n] - b.m[n]).max()) for n in a.params)
    check(a.step == b.step == 3 and d <= 1e-5 and dm <= 1e-5,
          f"3 training steps in C++ and in PyTorch end {d} apart in weights, {dm} in AdamW m")
    print(f"3 steps of `poslab-cli wm train` vs tools/torch/train.py: weights {d:.2e}, m {dm:.2e} apart")
    # The same split and validation windows: the C++ run's logged validation loss.
    import train as bridge_train

    with open(os.path.splitext(cpp_run)[0] + ".csv") as f:
        last = f.read().splitlines()[-1].split(",")
    _, val = pd.split_episodes(len(episodes), 0.1, 5)
    m_cpp, _ = wm.load_checkpoint(cpp_run)
    v = bridge_train.evaluate(m_cpp, episodes, pd.val_windows(episodes, val, 8, 48), 8, "cpu")
    check(abs(v["total"] - float(last[12])) <= 1e-5 * max(1.0, abs(v["total"])),
          f"validation loss: bridge {v['total']} vs the C++ log's {last[12]}")
    # PyTorch writes, PosLab reads: resume the C++ training run for 2 steps in the bridge.
    start = wm.read_wm_checkpoint(cpp_run).step
    torch_ck = os.path.join(tmp, "torch.safetensors")
    run([sys.executable, os.path.join(root, "tools", "torch", "train.py"), "--data", data,
         "--resume", cpp_run, "--steps", str(start + 2), "--threads", "1", "--val-every", "0", "--quiet", "--out", torch_ck])
    info = json.loads(run([cli, "wm", "info", torch_ck]))
    mine = wm.read_wm_checkpoint(torch_ck)
    check(info["step"] == start + 2, f"wm info step {info['step']}, expected {start + 2}")
    check(info["param_count"] == sum(int(np.prod(s)) for _, s in wm.param_layout(mine.config)),
          "wm info param_count differs from the bridge's layout")
    check(info["config"]["position"] == mine.config.position, "wm info config differs")
    check(info.get("has_optimizer_state") is True, "wm info does not see the AdamW moments")
    dream = json.loads(run([cli, "wm", "dream", torch_ck, "--data", data, "--episode", str(e0),
                            "--steps", "5", "--history", "3", "--threads", "1"]))
    dreamt = np.array(dream["dreamt"], np.float64)
    check(dreamt.shape[1:] == (8, 15) and np.all(np.isfinite(dreamt)),
          f"wm dream on the PyTorch checkpoint gave dreamt states of shape {dreamt.shape}")
    compare(torch_ck, "PyTorch-written checkpoint")
    # ... and those 2 steps equal 2 more steps of the C++ trainer from the same checkpoint.
    cpp_cont = os.path.join(tmp, "cpp_cont.safetensors")
    with open(cpp_run, "rb") as src, open(cpp_cont, "wb") as dst:
        dst.write(src.read())
    run([cli, "wm", "train", "--resume", "--steps", str(start + 2), "--threads", "1", "--quiet",
         "-o", cpp_cont])
    c = wm.read_wm_checkpoint(cpp_cont)
    d = max(float(np.abs(c.params[n] - mine.params[n]).max()) for n in c.params)
    check(c.step == mine.step and d <= 1e-5,
          f"resumed from the same checkpoint, C++ and PyTorch end {d} apart after 2 steps")
    print(f"C++ run resumed by PyTorch vs by C++ for 2 steps: weights {d:.2e} apart")

    # A new run with the cv head and its sigma loss starts in the bridge as in C++: same
    # sigma from the train split, same 3 steps.
    py_cv = os.path.join(tmp, "py_cv_new.safetensors")
    run([sys.executable, os.path.join(root, "tools", "torch", "train.py"), "--preset", "tiny",
         "--position", "rope", "--state-head", "cv", "--data", data, "--steps", "3", "--batch", "2",
         "--short-steps", "4", "--long-steps", "8", "--seed", "5", "--threads", "1", "--quiet",
         "--val-every", "0", "--out", py_cv])
    pa, pb = wm.read_wm_checkpoint(heads["cv"]), wm.read_wm_checkpoint(py_cv)
    ds = max(abs(x - y) / y for x, y in zip(pa.config.state_scale, pb.config.state_scale))
    d = max(float(np.abs(pa.params[n] - pb.params[n]).max()) for n in pa.params)
    check(pb.config.state_base == "cv" and pb.config.state_loss == "sigma" and ds <= 1e-6
          and d <= 1e-5, f"--state-head cv new run: sigma {ds} relative apart, weights {d} apart")
    print(f"new cv-head run, C++ vs PyTorch: sigma {ds:.2e} relative, weights {d:.2e} apart")
    # Resuming: a flag the checkpoint overrides is named; --steps at the checkpoint's step is
    # refused (it used to print "wrote" and write nothing); --device cuda without CUDA refused.
    bridge = [sys.executable, os.path.join(root, "tools", "torch", "train.py")]
    r = subprocess.run(bridge + ["--data", data, "--resume", py_cv, "--steps", "4", "--batch", "7",
                                 "--threads", "1", "--val-every", "0", "--quiet", "--out",
                                 os.path.join(tmp, "py_cv_4.safetensors")],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "--batch 7 -> 2" in r.stderr,
          f"resume with --batch 7: exit {r.returncode}, stderr does not name the override: {r.stderr[-300:]}")
    before = os.path.getmtime(py_cv)
    r = subprocess.run(bridge + ["--data", data, "--resume", py_cv, "--steps", "3", "--quiet",
                                 "--out", py_cv], capture_output=True, text=True)
    check(r.returncode == 2 and "nothing to train" in r.stderr and "wrote" not in r.stderr
          and os.path.getmtime(py_cv) == before,
          f"resume with --steps at the checkpoint's step: exit {r.returncode}, {r.stderr[-300:]}")
    if not torch.cuda.is_available():
        r = subprocess.run(bridge + ["--data", data, "--device", "cuda", "--steps", "1", "--quiet",
                                     "--out", os.path.join(tmp, "gpu.safetensors")],
                           capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and "CUDA" in lines[0],
              f"--device cuda without CUDA: exit {r.returncode}, stderr {r.stderr[-300:]}")

    # The same for the constant-velocity scaled head: 2 resumed steps in both trainers.
    for tag, src in (("cv", heads["cv"]),):
        py_cont, cc_cont = os.path.join(tmp, f"py_{tag}.safetensors"), os.path.join(tmp, f"cc_{tag}.safetensors")
        s0 = wm.read_wm_checkpoint(src).step
        run([sys.executable, os.path.join(root, "tools", "torch", "train.py"), "--data", data,
             "--resume", src, "--steps", str(s0 + 2), "--threads", "1", "--val-every", "0", "--quiet",
             "--out", py_cont])
        with open(src, "rb") as f_in, open(cc_cont, "wb") as f_out:
            f_out.write(f_in.read())
        run([cli, "wm", "train", "--resume", "--steps", str(s0 + 2), "--threads", "1", "--quiet",
             "-o", cc_cont])
        pa, pb = wm.read_wm_checkpoint(py_cont), wm.read_wm_checkpoint(cc_cont)
        d = max(float(np.abs(pa.params[n] - pb.params[n]).max()) for n in pa.params)
        check(pa.config == pb.config and d <= 1e-5,
              f"{tag} head resumed for 2 steps: C++ and PyTorch end {d} apart")
        print(f"{tag} state head resumed 2 steps by PyTorch vs by C++: weights {d:.2e} apart")
        compare(py_cont, f"PyTorch-written {tag} checkpoint")

    # PosLab continues a checkpoint PyTorch wrote (moments and recorded settings included).
    run([cli, "wm", "train", "--resume", "--steps", str(start + 3), "--threads", "1", "--quiet",
         "-o", torch_ck])
    check(wm.read_wm_checkpoint(torch_ck).step == start + 3,
          "poslab-cli wm train --resume did not continue the PyTorch checkpoint")

    # The reader rejects damage with an error naming the file (never a crash).
    blob = open(torch_ck, "rb").read()
    bad = os.path.join(tmp, "bad.safetensors")
    for what, b in (("truncated", blob[:-4]), ("header length", b"\xff" * 8 + blob[8:]),
                    ("short", blob[:5]), ("trailing", blob + b"\0\0\0\0")):
        open(bad, "wb").write(b)
        try:
            st.read_checkpoint(bad)
            check(False, f"the bridge's reader accepted a {what} checkpoint")
        except st.CheckpointError as e:
            check(bad in str(e), f"error for a {what} checkpoint does not name the file")
        r = subprocess.run([cli, "wm", "info", bad], capture_output=True, text=True)
        check(r.returncode == 2, f"poslab-cli wm info on a {what} checkpoint exited {r.returncode}")

    if failures:
        print(f"{len(failures)} parity check(s) failed")
        return 1
    print("PyTorch parity: all checks passed")
    return 0


CLEANUP = []  # temporary directories, removed however the test ends

if __name__ == "__main__":
    import shutil

    try:
        sys.exit(main())
    finally:
        for d in CLEANUP:
            shutil.rmtree(d, ignore_errors=True)
