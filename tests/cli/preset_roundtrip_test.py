#!/usr/bin/env python3
"""A state given as flags and the same state given as its own printed preset print the same
JSON, byte for byte (issue 24). The attention weights once differed in the last bits between
the two: Eigen's vectorised exp and sum over a row started where the heap had placed the
buffer, so the summation order followed the allocation history of each run.

Each case runs `poslab-cli LAB FLAGS`, reads the "preset" it prints, runs
`poslab-cli LAB --preset PRESET [EXTRA]` and compares the two outputs as bytes; each case
also runs a second time with the flags in reverse order (other allocations before the
computation). Usage: preset_roundtrip_test.py POSLAB_CLI"""
import json
import subprocess
import sys

cli = sys.argv[1]
# (lab, state flags, flags that are not state: output options given to both runs)
CASES = [
    ("attention", "--encoding t5 --buckets 16 --max-distance 40 --t5-unidirectional --heads 3 "
                  "--head-dim 10 --dim 48 --seed 77 --tokens 9 --causal", ""),
    ("attention", "--encoding elevation --grid 3x5 --alpha 2.5 --terrain-max 4200 --seed 5", ""),
    ("attention", "--encoding rope --base 500000 --layout interleaved --heads 6 --dim 96 "
                  "--head-dim 16 --seed 3 --tokens 37 --causal", ""),
    ("attention", "--encoding alibi --heads 8 --tokens 33 --seed 11", ""),
    ("attention", "--encoding sin --sin-base 321.5 --tokens 23 --heads 2 --dim 32 "
                  "--head-dim 8 --seed 9", ""),
    ("attention", "--encoding learned --table-length 12 --tokens 17 --seed 4", ""),
    ("attention", "--encoding swin --grid 4x6 --seed 8 --heads 5", ""),
    ("attention", "--encoding sincos2d --grid 5x5 --seed 2", ""),
    ("attention", "--encoding t5 --sentence 'the cat sat on the warm mat today' --seed 6 "
                  "--buckets 8 --max-distance 20 --causal", "--terms"),
    ("kv", "--positions rope --method kshift --scenario sliding --layers 2 --width 32 "
           "--heads 4 --context 16 --steps 9 --seed 5 --gain 1.75", ""),
    # --method all is what to print (every method), not a state: given to both runs.
    ("kv", "--positions learned --scenario sliding --layers 3 --width 48 "
           "--context 12 --steps 5 --seed 12 --position-std 0.3", "--method all"),
    ("kv", "--positions rope --scenario rag --first 20 --second 6 --retrieved 4 "
           "--from 3 --stride 2 --steps 4 --seed 21 --scaling yarn --factor 2.5 --L 12",
     "--method all"),
]


def run(args):
    r = subprocess.run(f"{cli} {args}", shell=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"poslab-cli {args}: exit {r.returncode}: {r.stderr.decode()[:300]}")
    return r.stdout


def reverse_flags(flags):
    # "--a x --b --c y" -> "--c y --b --a x" (each flag with its value, the order reversed)
    parts, groups = flags.split("--")[1:], []
    for p in parts:
        groups.append("--" + p.strip())
    return " ".join(reversed(groups))


failures = 0
for lab, flags, extra in CASES:
    first = run(f"{lab} {flags} {extra}")
    preset = json.loads(first)["preset"]
    quoted = preset.replace("'", "'\\''")
    for name, out in (("preset", run(f"{lab} --preset '{quoted}' {extra}")),
                      ("reversed flags", run(f"{lab} {reverse_flags(flags)} {extra}"))):
        if out != first:
            a, b = first.decode().splitlines(), out.decode().splitlines()
            line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            print(f"FAIL {lab} {flags}: with the {name} ({preset}) the JSON differs at line "
                  f"{line + 1}: {a[line].strip() if line < len(a) else '<end>'} vs "
                  f"{b[line].strip() if line < len(b) else '<end>'}")
            failures += 1
print(f"{len(CASES)} cases, {failures} failures")
sys.exit(1 if failures else 0)
