#!/usr/bin/env bash
# Reproduces the length lab's shipped language models from scratch (issue 27): one byte-level
# model per position encoding (none, sinusoidal, learned, rope, alibi, t5, and sinusoidal_scaled:
# the sinusoids added to token embeddings times sqrt(E), as Vaswani et al.) trained at L = 128
# bytes on the fortune files, then the RoPE model fine-tuned at 4L = 512 with PI (linear x4)
# and with YaRN x4, then the loss-against-position curves to 8L = 1024 of every model and every
# RoPE scaling. Everything shipped lands in assets/models/ (lm_*.safetensors without optimiser
# state, lm_*.csv curves, lm_*_eval.json, and lm_held_out.txt: the validation text of their
# split, so a machine without the fortune files runs the lab); training checkpoints stay in
# the work directory.
#   scripts/train_length_models.sh [STAGE] [WORKDIR]
#   STAGE: all (default) | train | eval | held-out;   WORKDIR: build/lm_runs
# Runs one model at a time with both threads (nice 5); LM_ONLY picks models (see train_one). Ctrl-C stops a training at its last
# checkpoint; rerunning resumes it, and skips the models already exported.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage="${1:-all}"
work="${2:-build/lm_runs}"
cli="${POSLAB_CLI:-build/release/cli/poslab-cli}"
out=assets/models
steps="${LM_STEPS:-1200}"       # base models
ft_steps="${LM_FT_STEPS:-200}"  # fine-tunes
mkdir -p "$work" "$out"
[[ -x "$cli" ]] || { echo "build first: cmake --preset release && cmake --build --preset release --target poslab-cli" >&2; exit 2; }
# A copy of the binary: rebuilding while the script runs does not change the run.
run_cli="$work/poslab-cli.run.$$"
cp "$cli" "$run_cli"
trap 'rm -f "$run_cli"' EXIT
cli="$run_cli"
run() { nice -n 5 "$cli" "$@"; }

train_one() {  # train_one <name> <args...>: trains into $work, exports to $out
  local name="$1"; shift
  local ck="$work/$name.train.safetensors"
  [[ -f "$out/$name.safetensors" ]] && return 0
  # LM_ONLY="lm_alibi lm_t5": train only these (to run two streams side by side)
  [[ -n "${LM_ONLY:-}" && " $LM_ONLY " != *" $name "* ]] && return 0
  local resume=()
  [[ -f "$ck" ]] && resume=(--resume)
  /usr/bin/time -f "%e s wall, %U s user, %S s sys" -o "$work/$name.time" \
    nice -n 5 "$cli" lm train "$@" "${resume[@]}" --threads 2 -o "$ck" --log "$out/$name.csv" \
    > "$work/$name.train.json" 2> "$work/$name.train.log"
  if grep -q '"interrupted": true' "$work/$name.train.json"; then
    echo "$name interrupted; rerun to resume" >&2
    exit 130
  fi
  run lm export "$ck" -o "$out/$name.safetensors" > /dev/null
}

if [[ "$stage" == all || "$stage" == train ]]; then
  for pos in rope none sinusoidal learned alibi t5 sinusoidal_scaled; do
    train_one "lm_$pos" --position "$pos" --embed 64 --heads 4 --layers 2 --context 128 \
      --batch 16 --steps "$steps" --lr 2e-3 --warmup 100 --seed 1 --log-every 100 --valid-windows 32
  done
  for sc in linear yarn; do
    name=lm_rope_ft_$sc
    [[ $sc == linear ]] && name=lm_rope_ft_pi
    train_one "$name" --init-from "$out/lm_rope.safetensors" --context 512 --scaling "$sc" \
      --factor 4 --batch 4 --steps "$ft_steps" --lr 5e-4 --warmup 20 --seed 2 --log-every 25 \
      --valid-windows 16
  done
fi

if [[ "$stage" == all || "$stage" == eval ]]; then
  evaluate() {  # evaluate <model> <scaling> <factor> <json> (skipped when the JSON exists)
    [[ -s "$4" ]] && return 0
    run lm eval "$out/$1.safetensors" --positions 1024 --windows 32 --scaling "$2" --factor "$3" \
      --threads "${LM_EVAL_THREADS:-2}" > "$4.tmp"
    mv "$4.tmp" "$4"
  }
  for pos in none sinusoidal learned alibi t5 sinusoidal_scaled; do
    evaluate "lm_$pos" none 4 "$work/eval_lm_${pos}_none.json"
  done
  evaluate lm_rope none 4 "$work/eval_lm_rope_none.json"
  for sc in linear ntk dynamic yarn llama3; do
    for f in 4 8; do
      evaluate lm_rope "$sc" "$f" "$work/eval_lm_rope_${sc}_x$f.json"
    done
  done
  evaluate lm_rope_ft_pi linear 4 "$work/eval_lm_rope_ft_pi_linear_x4.json"
  evaluate lm_rope_ft_pi none 4 "$work/eval_lm_rope_ft_pi_none.json"
  evaluate lm_rope_ft_yarn yarn 4 "$work/eval_lm_rope_ft_yarn_yarn_x4.json"
  evaluate lm_rope_ft_yarn none 4 "$work/eval_lm_rope_ft_yarn_none.json"
  # One JSON with every curve (the lab and the lessons read it), and the README's table.
  python3 - "$work" "$out/lm_eval.json" "$work/table.md" <<'PY'
import glob, json, os, sys
work, dst, table = sys.argv[1], sys.argv[2], sys.argv[3]
runs = []
for f in sorted(glob.glob(os.path.join(work, "eval_*.json"))):
    j = json.load(open(f))
    j["model"] = os.path.basename(j["model"])
    j.pop("offsets", None)
    j["bits_per_byte"] = [round(v, 4) for v in j["bits_per_byte"]]
    j["one_window"] = [round(v, 4) for v in j["one_window"]]
    runs.append(j)
json.dump({"positions": 1024, "L": 128, "runs": runs}, open(dst, "w"), separators=(",", ":"))
rows = ["| model | scaling at eval | L/2 | L | 2L | 4L | 8L | mean 0..8L |", "|---|---|---|---|---|---|---|---|"]
for j in runs:
    a = j["at"]
    rows.append("| %s | %s | %s | %.3f |" % (j["model"].replace(".safetensors", ""), j["scaling"]["label"] if j["scaling"]["applies"] else "-",
        " | ".join("%.3f" % a[k] for k in ["L/2", "L", "2L", "4L", "8L"]), j["mean_bpb"]))
open(table, "w").write("\n".join(rows) + "\n")
PY
  echo "done: $out/lm_*.safetensors, lm_*.csv, lm_eval.json"
fi

if [[ "$stage" == all || "$stage" == held-out ]]; then
  # The held-out text every shipped model records (the tests check it equals the fortune
  # files' split: poslab_length_held_out_tests), written by the io code the lab reads it with.
  make="${POSLAB_MAKE_HELD_OUT:-build/release/tests/poslab_make_held_out}"
  [[ -x "$make" ]] || { echo "build first: cmake --build --preset release --target poslab_make_held_out" >&2; exit 2; }
  "$make" "$out/lm_none.safetensors" "$out/lm_held_out.txt"
  echo "done: $out/lm_held_out.txt"
fi
