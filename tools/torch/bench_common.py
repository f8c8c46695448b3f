"""What both benchmarks against the C++ core share (bench.py: the world model, lm_bench.py:
the language models): timing a call on a loaded machine, and running the C++ benchmarks of
build/release/bench/poslab_bench in the same run."""

import json
import subprocess
import sys
import time


def timed(fn, seconds, min_reps=3):
    """(wall seconds, process CPU seconds) per call, after one warm-up call. On a loaded
    machine the CPU time of a 1-thread run is the better estimate of what one free core
    would do."""
    fn()
    reps, t0, c0 = 0, time.perf_counter(), time.process_time()
    while reps < min_reps or time.perf_counter() - t0 < seconds:
        fn()
        reps += 1
    return (time.perf_counter() - t0) / reps, (time.process_time() - c0) / reps


def run_cpp(binary, name_filter, seconds, digits):
    """The C++ benchmarks whose names match name_filter (BM_wm, BM_lm):
    {name: {ms, cpu_ms, label, tokens_per_s, tokens_per_cpu_s (1-thread runs)}}, each also
    printed to stderr as it comes."""
    r = subprocess.run([binary, f"--benchmark_filter={name_filter}", "--benchmark_format=json",
                        f"--benchmark_min_time={seconds}"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{binary} failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    out = {}
    for b in json.loads(r.stdout)["benchmarks"]:
        unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
        e = {"ms": round(b["real_time"] * unit, digits),
             "cpu_ms": round(b["cpu_time"] * unit, digits), "label": b.get("label", "")}
        if "tokens/s" in b:
            e["tokens_per_s"] = round(b["tokens/s"])
            if b["name"].endswith("threads:1/real_time"):  # the main thread's CPU is all of it
                e["tokens_per_cpu_s"] = round(b["tokens/s"] * b["real_time"] / b["cpu_time"])
        out[b["name"]] = e
        print(json.dumps({b["name"]: e}), file=sys.stderr, flush=True)
    return out
