#!/usr/bin/python3
"""The KV lab's trained-source numbers of lessons 8 and 9, averaged over held-out passages.

Runs `poslab-cli kv --preset 'kv?weights=trained&model=M&scenario=S&pa=2k&pb=2k+1'` for
k = 0..N-1 and prints, per method, the mean bits per byte and its extra over the reference
(stitch, rag: with the range over passage pairs, the mean and largest per-byte difference
and the per-block key/value/hidden differences) or the loss at L, 2L, 4L and 8L (stream).
Usage: scripts/kv_trained_means.py POSLAB_CLI SCENARIO MODEL[,MODEL...] N ["&extra=1"]
  e.g. scripts/kv_trained_means.py build/release/cli/poslab-cli stitch rope,alibi,learned 16
"""
import json
import statistics as st
import subprocess
import sys


def main():
    cli, scenario, models, n = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
    extra = sys.argv[5] if len(sys.argv) > 5 else ""
    for model in models:
        runs = []
        for k in range(n):
            preset = (f"kv?weights=trained&model={model}&scenario={scenario}"
                      f"&pa={2 * k}&pb={2 * k + 1}{extra}")
            out = subprocess.run([cli, "kv", "--preset", preset], capture_output=True, text=True,
                                 check=True).stdout
            runs.append(json.loads(out))
        print(f"== {model} {scenario}, {n} passages {extra}")
        for i, m in enumerate(runs[0]["methods"]):
            ms = [r["methods"][i] for r in runs]
            if scenario == "stream":
                at = {k: round(st.mean(x["at"][k] for x in ms), 3) for k in m["at"]}
                print(f"  {m['method']:15s} at {at}")
                continue
            mean = st.mean(x["mean_bits"] for x in ms)
            if m["reference"]:
                print(f"  {m['method']:10s} {mean:.3f} bits/byte (reference)")
                continue
            extras = [x["extra_bits"] for x in ms]
            per_byte = [abs(a - b) for x, r in zip(ms, runs)
                        for a, b in zip(x["bits"], r["methods"][0]["bits"])]
            blocks = lambda key: [round(st.mean(x[key][b] for x in ms), 4)
                                  for b in range(len(m[key]))]
            print(f"  {m['method']:10s} {mean:.3f} bits/byte, extra {st.mean(extras):+.4f} "
                  f"(pairs {min(extras):+.4f}..{max(extras):+.4f}), per byte mean "
                  f"{st.mean(per_byte):.4f} max {max(per_byte):.3f}; keys {blocks('key_diff')} "
                  f"values {blocks('value_diff')} hidden {blocks('hidden_diff')}")


if __name__ == "__main__":
    main()
