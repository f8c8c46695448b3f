#!/usr/bin/python3
"""PyTorch parity of the byte-level language model (issue 27): tools/torch/lm.py against
core/lm through tests/torch/lm_parity_dump (one forward and backward in C++ on the same
parameters and bytes). For every position encoding, and for RoPE under every scaling, on
windows longer than the training context L (so the learned table's clamp, the T5 log
buckets and the scalings all act): logits equal to 1e-4 (max abs), per-byte losses and the
mean loss equal, and the gradient of every tensor equal to 1e-4 of its largest entry. The
weights are random and large on purpose (unit-scale embeddings, non-zero biases and T5
table), so that a wrong sign or a transposed table cannot hide under a small init.
Also: lm.py's RoPE frequencies and attention scale against `poslab-cli rope` for every
scaling, its seeded init against LmModel::init, and checkpoints both ways: every encoding
trained by `poslab-cli lm train` loads here and its bits per byte equal `lm eval
--per-byte`'s; a checkpoint written by tools/torch/lm_train.py (fine-tuned with YaRN) passes
`lm info`, evaluates the same in both (its recorded scaling the default) and is resumed by
`poslab-cli lm train --resume`. Exit 77 (skip) only when torch cannot be
imported.
  usage: lm_parity_test.py <lm_parity_dump> <poslab-cli> <repository root>
"""

import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as e:
    print(f"SKIPPED: the language model's PyTorch parity needs python3-torch ({e}); "
          "install it with apt-get install python3-torch")
    sys.exit(77)

LOGIT_TOL = 1e-4
GRAD_TOL = 1e-4  # relative to the tensor's largest gradient entry
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("command failed:", " ".join(cmd), "\n", r.stderr.strip()[-2000:])
        sys.exit(1)
    return r.stdout


def test_params(lm, c, seed):
    """Large random weights in the layout: tok_emb ~ N(0, 1), Linear weights ~ N(0, 1/in),
    biases ~ N(0, 0.1^2), LayerNorm gains 1 + N(0, 0.2^2), pos_emb N(0, 0.5^2), T5 table
    N(0, 1)."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in lm.param_layout(c):
        if name.endswith(".bias"):
            a = 0.1 * rng.standard_normal(shape)
        elif ".ln" in name or name.startswith("ln_f"):
            a = 1.0 + 0.2 * rng.standard_normal(shape)
        elif name == "tok_emb.weight" or name == "t5_bias.weight":
            a = rng.standard_normal(shape)
        elif name == "pos_emb.weight":
            a = 0.5 * rng.standard_normal(shape)
        else:
            a = rng.standard_normal(shape) / np.sqrt(shape[1])
        out[name] = a.astype(np.float32)
    return out


def main():
    dump, cli, root = (os.path.abspath(a) for a in sys.argv[1:4])
    sys.path.insert(0, os.path.join(root, "tools", "torch"))
    import lm

    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="poslab-lm-parity-")
    CLEANUP.append(tmp)

    # The RoPE frequencies of lm.py (HF's formulas) against core/rope's, every scaling.
    for sc in lm.SCALINGS:
        for D, L, T in ((8, 16, 40), (16, 128, 1024), (32, 64, 100)):
            ref = json.loads(run([cli, "rope", "--dim", str(D), "--layout", "half", "--scaling", sc,
                                  "--factor", "4", "--L", str(L), "--current-length", str(T)]))
            s = lm.RopeScaling(sc, 4.0)
            inv = s.inv_freq(D, 10000.0, L, T).numpy()
            err = float(np.abs(inv / np.array(ref["inv_freq"]) - 1).max())
            check(err < 1e-12, f"rope {sc} D={D} L={L} T={T}: inv_freq {err} relative from core/rope")
            check(abs(s.attention_scale() - ref["attention_scale"]) < 1e-12,
                  f"rope {sc}: attention scale {s.attention_scale()} vs {ref['attention_scale']}")

    # Forward and backward: C++ against PyTorch on the same weights and bytes.
    E, H, N, L, B, T = 32, 4, 2, 16, 3, 40
    rng = np.random.default_rng(11)
    text = (b"The quick brown fox jumps over the lazy dog. \xe5\xba\x8a\xe5\x89\x8d\xe6\x98\x8e"
            b"\xe6\x9c\x88\xe5\x85\x89\n") * 8
    starts = rng.integers(0, len(text) - T - 1, B)
    windows = np.stack([np.frombuffer(text[s:s + T + 1], np.uint8) for s in starts])
    windows[2, 5:9] = rng.integers(0, 256, 4)  # bytes of every range, not only ASCII
    bytes_path = os.path.join(tmp, "bytes.u8")
    windows.tofile(bytes_path)
    x = torch.from_numpy(windows[:, :-1].astype(np.int64))
    y = torch.from_numpy(windows[:, 1:].astype(np.int64))

    cases = [(p, "none") for p in lm.POSITIONS] + [("rope", s) for s in lm.SCALINGS if s != "none"]
    for k, (pos, sc) in enumerate(cases):
        label = pos if sc == "none" else f"rope {sc} x4"
        c = lm.LmConfig(embed=E, heads=H, layers=N, context=L, position=pos)
        params = test_params(lm, c, 100 + k)
        p_path = os.path.join(tmp, f"p{k}.f32")
        np.concatenate([params[n].ravel() for n, _ in lm.param_layout(c)]).astype("<f4").tofile(p_path)
        prefix = os.path.join(tmp, f"out{k}")
        cpp_loss = float(run([dump, str(E), str(H), str(N), str(L), pos, sc, "4", str(B), str(T),
                              p_path, bytes_path, prefix]))
        cpp_logits = np.fromfile(prefix + ".logits.f32", "<f4").reshape(B, T, lm.VOCAB)
        cpp_losses = np.fromfile(prefix + ".losses.f32", "<f4").reshape(B, T)
        cpp_grads = np.fromfile(prefix + ".grads.f32", "<f4")

        m = lm.ByteLm(c)
        m.load_arrays(params, label)
        out = m(x, y, scaling=lm.RopeScaling(sc, 4.0))
        out["loss"].backward()
        logits = out["logits"].detach().numpy()
        losses = torch.nn.functional.cross_entropy(out["logits"].detach().reshape(-1, lm.VOCAB),
                                                   y.reshape(-1), reduction="none").numpy()
        d_logits = float(np.abs(logits - cpp_logits).max())
        d_losses = float(np.abs(losses.reshape(B, T) - cpp_losses).max())
        d_loss = abs(float(out["loss"]) - cpp_loss)
        check(d_logits <= LOGIT_TOL, f"{label}: logits differ by {d_logits} (tolerance {LOGIT_TOL})")
        check(d_losses <= LOGIT_TOL, f"{label}: per-byte losses differ by {d_losses}")
        check(d_loss <= 1e-5 * max(1.0, cpp_loss),
              f"{label}: mean loss torch {float(out['loss'])} vs C++ {cpp_loss}")
        grads = dict(m.named_parameters())
        worst, worst_name, off = 0.0, "", 0
        for name, shape in lm.param_layout(c):
            n = int(np.prod(shape))
            g_cpp = cpp_grads[off:off + n].reshape(shape)
            off += n
            g = grads[name].grad
            g = np.zeros(shape, np.float32) if g is None else g.numpy()
            rel = float(np.abs(g - g_cpp).max()) / max(float(np.abs(g).max()), 1e-6)
            check(rel <= GRAD_TOL, f"{label}: gradient of {name} differs by {rel} of its largest entry")
            if rel > worst:
                worst, worst_name = rel, name
        check(off == cpp_grads.size, f"{label}: C++ has {cpp_grads.size} gradients, layout {off}")
        print(f"{label}: loss {cpp_loss:.6f}, max |torch - C++|: logits {d_logits:.2e}, "
              f"losses {d_losses:.2e}, loss {d_loss:.2e}; worst gradient {worst:.2e} ({worst_name})")

    # Same seed, same weights: lm.py's init against LmModel::init, element for element.
    for pos in ("learned", "t5"):
        c = lm.LmConfig(embed=E, heads=H, layers=N, context=L, position=pos)
        prefix = os.path.join(tmp, f"init_{pos}")
        run([dump, str(E), str(H), str(N), str(L), pos, "none", "4", str(B), str(T), "init:42",
             bytes_path, prefix])
        cpp = np.fromfile(prefix + ".params.f32", "<f4")
        mine = lm.init_params(c, 42)
        py = np.concatenate([mine[n].ravel() for n, _ in lm.param_layout(c)])
        d = float(np.abs(cpp - py).max()) if cpp.size == py.size else float("inf")
        check(d <= 1e-9, f"{pos}: init(42) differs from LmModel::init(42) by {d} ({cpp.size} vs {py.size} values)")
        print(f"{pos}: init(42) in PyTorch vs C++: max difference {d:.1e} over {py.size} weights")

    # Checkpoints both ways through poslab-cli: models trained by `poslab-cli lm train` load
    # here and give `lm eval --per-byte`'s bits; a model written by tools/torch/lm_train.py
    # (fine-tuned with a scaling) passes `lm info` and evaluates the same in both, with the
    # scaling it recorded as the default.
    text_path = os.path.join(tmp, "text.txt")
    with open(text_path, "wb") as f:
        f.write(b"\n%\n".join(text[i:i + 200] for i in range(0, len(text) - 200, 37)) * 3)

    def cli_eval(ck, scaling=()):
        out = json.loads(run([cli, "lm", "eval", ck, "--text", text_path, "--positions", str(T),
                              "--windows", "1", "--per-byte", "--top", "1", "--threads", "1",
                              *scaling]))
        return np.array(out["bytes"], np.int64), np.array(out["bits"], np.float64), out

    def torch_bits(ck_path, window, scaling=None):
        m, ck = lm.load_checkpoint(ck_path)
        m.eval()
        w = torch.from_numpy(window).unsqueeze(0)
        with torch.no_grad():
            logits = m(w[:, :-1], scaling=scaling or ck.scaling)["logits"][0]
        nats = torch.nn.functional.cross_entropy(logits, w[0, 1:], reduction="none")
        return nats.double().numpy() / np.log(2.0), ck

    for pos in lm.POSITIONS:
        ck_path = os.path.join(tmp, f"cpp_{pos}.safetensors")
        run([cli, "lm", "train", "--position", pos, "--embed", str(E), "--heads", str(H), "--layers",
             str(N), "--context", str(L), "--steps", "3", "--batch", "2", "--text", text_path,
             "--threads", "1", "--quiet", "-o", ck_path])
        window, bits, _ = cli_eval(ck_path)
        mine, ck = torch_bits(ck_path, window)
        d = float(np.abs(mine - bits).max()) if mine.shape == bits.shape else float("inf")
        check(ck.step == 3 and ck.m is not None, f"C++ {pos} checkpoint: step {ck.step}, moments {ck.m is not None}")
        check(d <= 1e-4, f"C++-trained {pos} checkpoint: per-byte bits differ from lm eval by {d}")
        print(f"C++-trained {pos} checkpoint, lm eval --per-byte vs PyTorch: max |bits| {d:.2e}")

    py_base, py_tuned = os.path.join(tmp, "py_base.safetensors"), os.path.join(tmp, "py_yarn.safetensors")
    trainer = [sys.executable, os.path.join(root, "tools", "torch", "lm_train.py"), "--text", text_path,
               "--threads", "1", "--val-every", "0", "--quiet"]
    run(trainer + ["--embed", str(E), "--heads", str(H), "--layers", str(N), "--context", str(L),
                   "--steps", "3", "--batch", "2", "-o", py_base])
    run(trainer + ["--resume", py_base, "--scaling", "yarn", "--factor", "4", "--length", str(4 * L),
                   "--steps", "5", "--batch", "2", "-o", py_tuned])
    info = json.loads(run([cli, "lm", "info", py_tuned]))
    check(info["step"] == 5 and info["config"]["param_count"] == lm.param_count(lm.LmConfig(
        embed=E, heads=H, layers=N, context=L)) and info["has_optimiser_state"] is True
          and info["scaling"] == {"scaling": "yarn", "factor": 4.0},
          f"lm info on the PyTorch-written checkpoint: {json.dumps(info)[:300]}")
    window, bits, out = cli_eval(py_tuned)
    mine, ck = torch_bits(py_tuned, window)
    d = float(np.abs(mine - bits).max()) if mine.shape == bits.shape else float("inf")
    check(out["scaling"]["scaling"] == "yarn" and d <= 1e-4,
          f"PyTorch-written YaRN checkpoint: lm eval used {out['scaling']}, bits differ by {d}")
    window, bits, _ = cli_eval(py_tuned, ("--scaling", "none"))
    mine, _ = torch_bits(py_tuned, window, lm.RopeScaling("none"))
    d2 = float(np.abs(mine - bits).max()) if mine.shape == bits.shape else float("inf")
    check(d2 <= 1e-4, f"PyTorch-written checkpoint with --scaling none: bits differ by {d2}")
    print(f"PyTorch-written checkpoint (fine-tuned with YaRN x4): lm info agrees, lm eval vs "
          f"PyTorch max |bits| {d:.2e} (its YaRN), {d2:.2e} (scaling none)")
    # PosLab continues the checkpoint PyTorch wrote (weights and AdamW moments).
    run([cli, "lm", "train", "--resume", "--steps", "6", "--text", text_path, "--threads", "1",
         "--quiet", "-o", py_tuned])
    check(lm.read_lm_checkpoint(py_tuned).step == 6,
          "poslab-cli lm train --resume did not continue the PyTorch checkpoint")

    if failures:
        print(f"{len(failures)} parity check(s) failed")
        return 1
    print("language model PyTorch parity: all checks passed")
    return 0


CLEANUP = []  # temporary directories, removed however the test ends

if __name__ == "__main__":
    import shutil

    try:
        sys.exit(main())
    finally:
        for d in CLEANUP:
            shutil.rmtree(d, ignore_errors=True)
