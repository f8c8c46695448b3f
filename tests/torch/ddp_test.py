#!/usr/bin/python3
"""The bridge's training entry points under torchrun: for the world model (train.py) and the
language model (lm_train.py), 2 CPU ranks (gloo) must give the same training losses and
weights as one plain process (the loss is normalised by the global
batch's counts, so the averaged gradient is the whole batch's), and a run stopped and
resumed from its checkpoint must equal one that never stopped, bit for bit. Exit 77 (skip)
only when torch or h5py cannot be imported.
  usage: ddp_test.py <poslab-cli> <repository root>
"""

import csv
import os
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import numpy as np
    import torch  # noqa: F401
except ImportError as e:
    print(f"SKIPPED: needs python3-torch and python3-h5py ({e})")
    sys.exit(77)


def run(cmd, timeout=240, tries=1):
    # A torchrun rendezvous was once seen to hang in a busy parallel ctest run (the plain
    # run takes ~15 s): bound every command and give the 2-rank launch one more try.
    for attempt in range(tries):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            break
        except subprocess.TimeoutExpired:
            print(f"timed out after {timeout} s (try {attempt + 1} of {tries}):", " ".join(cmd))
    else:
        sys.exit(1)
    if r.returncode != 0:
        print("command failed:", " ".join(cmd), "\n", r.stderr.strip()[-3000:])
        sys.exit(1)
    return r.stdout


def losses(path):
    with open(path) as f:
        return [float(row["loss"]) for row in csv.DictReader(f)]


def main():
    cli, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tools = os.path.join(root, "tools", "torch")
    sys.path.insert(0, tools)
    import model as wm

    tmp = tempfile.mkdtemp(prefix="poslab-ddp-")
    CLEANUP.append(tmp)
    data = os.path.join(tmp, "d.h5")
    run([cli, "collect", "--episodes", "6", "--max-steps", "40", "--seed", "3", "--threads", "1",
         "--quiet", "-o", data])
    common = ["--data", data, "--batch", "4", "--short-steps", "4", "--long-steps", "8",
              "--val-every", "0", "--log-every", "1", "--threads", "1", "--quiet", "--seed", "9"]
    train = os.path.join(tools, "train.py")
    one, two = os.path.join(tmp, "one.safetensors"), os.path.join(tmp, "two.safetensors")
    run([sys.executable, train, *common, "--steps", "3", "--out", one])
    run([sys.executable, os.path.join(tools, "torchrun.py"), "--nproc_per_node=2",
         "--standalone", train, *common, "--steps", "3", "--out", two], timeout=150, tries=2)
    fails = 0
    la, lb = losses(one.replace(".safetensors", ".csv")), losses(two.replace(".safetensors", ".csv"))
    if len(la) != 3 or len(lb) != 3 or max(abs(x - y) for x, y in zip(la, lb)) > 1e-5:
        print(f"FAIL: losses of 1 process {la} and of 2 ranks {lb} differ")
        fails += 1
    a, b = wm.read_wm_checkpoint(one), wm.read_wm_checkpoint(two)
    d = max(float(np.abs(a.params[n] - b.params[n]).max()) for n in a.params)
    if d > 1e-5:
        print(f"FAIL: weights after 3 steps differ by {d} between 1 process and 2 ranks")
        fails += 1
    print(f"1 process vs 2 ranks: losses {la} vs {lb}, max weight difference {d:.2e}")

    # Stop at step 2 and resume to 3 (with the AdamW moments from the checkpoint).
    part = os.path.join(tmp, "part.safetensors")
    run([sys.executable, train, *common, "--steps", "2", "--out", part])
    resumed = os.path.join(tmp, "resumed.safetensors")
    run([sys.executable, train, *common, "--steps", "3", "--resume", part, "--out", resumed])
    c = wm.read_wm_checkpoint(resumed)
    same = c.step == 3 and all(np.array_equal(a.params[n], c.params[n]) and
                               np.array_equal(a.m[n], c.m[n]) for n in a.params)
    if not same:
        print("FAIL: a run resumed at step 2 differs from an uninterrupted one")
        fails += 1
    print("stopped at 2 and resumed equals uninterrupted:", same)

    # Ctrl-C on a torchrun job (SIGINT to its process group, as a terminal sends it): the
    # ranks finish their step and save, and the launcher ends with exit 0, no traceback.
    import signal
    import time

    stop_ck = os.path.join(tmp, "stop.safetensors")
    job = subprocess.Popen([sys.executable, os.path.join(tools, "torchrun.py"), "--standalone",
                            "--nproc_per_node=2", train, *common, "--steps", "100000",
                            "--checkpoint-every", "1000000", "--out", stop_ck],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    log, t0 = stop_ck.replace(".safetensors", ".csv"), time.time()
    while time.time() - t0 < 150 and job.poll() is None:
        if os.path.exists(log) and len(losses(log)) >= 2:
            break
        time.sleep(0.2)
    os.killpg(job.pid, signal.SIGINT)
    try:
        _, err = job.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        _, err = job.communicate()
        err += "\n(did not end within 90 s of SIGINT)"
    step = wm.read_wm_checkpoint(stop_ck).step if os.path.exists(stop_ck) else 0
    if job.returncode != 0 or "Traceback" in err or step < 2:
        print(f"FAIL: Ctrl-C on a 2-rank torchrun job: exit {job.returncode}, checkpoint step "
              f"{step}, stderr:\n{err[-2000:]}")
        fails += 1
    print(f"Ctrl-C on a 2-rank torchrun job: exit {job.returncode}, saved at step {step}")
    fails += lm_ddp(tools, tmp)
    return 1 if fails else 0


def lm_ddp(tools, tmp):
    """The language model's trainer: 1 process and 2 ranks take the same 3 steps."""
    import lm

    text = os.path.join(tmp, "text.txt")
    with open(text, "w") as f:
        f.write("".join(f"Fortune {i}: the cat sat on the mat.\n%\n" for i in range(200)))
    common = ["--text", text, "--embed", "16", "--heads", "2", "--layers", "1", "--context", "16",
              "--batch", "4", "--steps", "3", "--val-every", "1", "--warmup", "1", "--threads", "1",
              "--device", "cpu", "--quiet", "--seed", "9"]
    train = os.path.join(tools, "lm_train.py")
    one, two = os.path.join(tmp, "lm_one.safetensors"), os.path.join(tmp, "lm_two.safetensors")
    run([sys.executable, train, *common, "-o", one])
    run([sys.executable, os.path.join(tools, "torchrun.py"), "--nproc_per_node=2", "--standalone",
         train, *common, "-o", two], timeout=150, tries=2)

    def nats(path):
        with open(path.replace(".safetensors", ".csv")) as f:
            return [float(row["train_nats"]) for row in csv.DictReader(f)]

    la, lb = nats(one), nats(two)
    a, b = lm.read_lm_checkpoint(one), lm.read_lm_checkpoint(two)
    d = max(float(np.abs(a.params[n] - b.params[n]).max()) for n in a.params)
    print(f"language model, 1 process vs 2 ranks: losses {la} vs {lb}, max weight difference {d:.2e}")
    if len(la) != 3 or len(lb) != 3 or max(abs(x - y) for x, y in zip(la, lb)) > 1e-5 or d > 1e-5:
        print("FAIL: the language model's 2-rank run differs from one process")
        return 1
    return 0


CLEANUP = []  # temporary directories, removed however the test ends

if __name__ == "__main__":
    import shutil

    try:
        sys.exit(main())
    finally:
        for d in CLEANUP:
            shutil.rmtree(d, ignore_errors=True)
