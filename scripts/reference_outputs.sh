#!/usr/bin/env bash
# Reference outputs of every model-backed poslab-cli command of the tests and docs (world
# model, language models, length lab, trained attention, quiz answers measured on models),
# for checking that a restructuring changes no printed number. Usage:
#   scripts/reference_outputs.sh build/release/cli/poslab-cli OUT_DIR   # writes OUT_DIR/*.json
#   diff -r BEFORE_DIR AFTER_DIR                                         # 0 differences wanted
#   python3 scripts/reference_diff.py BEFORE_DIR AFTER_DIR   # a change that moves rounding:
#                                                            # its largest difference per file
# Timing fields (seconds, tokens/s) are dropped; everything else is kept byte for byte.
set -u
out="$(mkdir -p "$2" && realpath "$2")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models="$root/assets/models"
export POSLAB_DATA_DIR="$root" POSLAB_MODELS_DIR="$models"  # any binary reads this tree's data
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# One path for every binary compared: checkpoints record the command that wrote them.
mkdir -p /tmp/poslab-reference && cli=/tmp/poslab-reference/poslab-cli && cp "$1" "$cli"
cd "$tmp"
strip() {  # JSON on stdin without timing fields; non-JSON passes through
  python3 -c '
import json, sys
t = sys.stdin.read()
try: j = json.loads(t)
except Exception: sys.stdout.write(t); sys.exit()
drop = ("seconds", "elapsed", "tokens_per_s", "steps_per_s", "ms", "wall", "time")
def walk(x):
    if isinstance(x, dict):
        return {k: walk(v) for k, v in x.items() if not any(d in k for d in drop)}
    if isinstance(x, list): return [walk(v) for v in x]
    return x
json.dump(walk(j), sys.stdout, indent=1, sort_keys=True)'
}
n=0
run() {  # run NAME ARGS...: stdout (timing-free) and exit code into OUT/NAME.json
  local name="$1"; shift; n=$((n + 1))
  { "$cli" "$@" 2>"$out/$name.err" | strip; local rc=${PIPESTATUS[0]}; echo; echo "exit $rc"; } \
    > "$out/$name.json"
}
csv() { cut -d, -f"$2" "$1" > "$out/$3.csv"; }  # CSV columns without the timing ones

# --- world model (tests/cli/cli_wm_test.sh, docs) ---
"$cli" collect --episodes 12 --seed 300 --max-steps 80 --threads 1 -o d.h5 > /dev/null 2>&1
base=(--batch 2 --val-windows 3 --log-every 2 --val-every 4 --threads 1 --quiet --checkpoint-every 2)
run wm_train wm train --preset tiny --position rope --data d.h5 --steps 8 --seed 3 "${base[@]}" -o a.safetensors
run wm_train_abs wm train --preset tiny --position absolute --data d.h5 --steps 4 --seed 1 "${base[@]}" -o k.safetensors
run wm_train_b wm train --preset tiny --position rope --data d.h5 --steps 4 --seed 3 "${base[@]}" -o b.safetensors
run wm_train_resume wm train --resume --data d.h5 --steps 8 "${base[@]}" -o b.safetensors
run wm_info_a wm info a.safetensors
run wm_forward_a wm forward a.safetensors --data d.h5 --episode 1 --start 2 --length 10
run wm_forward_b wm forward b.safetensors --data d.h5 --episode 1 --start 2 --length 10
run wm_forward_win wm forward a.safetensors --data d.h5 --window 0:0:6 --window 2:3:4
run wm_export wm export a.safetensors -o small.safetensors
run wm_dream wm dream small.safetensors --data d.h5 --episode 0 --steps 6 --history 3
run wm_dream_open wm dream small.safetensors --sim-seed 42 --steps 4 --loop open --temperature 1 --seed 5
run wm_eval wm eval small.safetensors --data d.h5 --dreams 1 --steps 4 --long-dreams 1 --val-windows 2 --threads 1
run wm_eval_unseen wm eval small.safetensors --data d.h5 --unseen --dreams 1 --steps 4 --long-dreams 1 --val-windows 2 --threads 1
for size in tiny paper; do for pos in rope absolute; do
  run "wm_info_${size}_${pos}" wm info "$models/wm_${size}_${pos}.safetensors"
  run "wm_dream_${size}_${pos}" wm dream "$models/wm_${size}_${pos}.safetensors" --sim-seed 7 --steps 50
done; done
run wm_dream_paper_data wm dream "$models/wm_paper_rope.safetensors" --data d.h5 --steps 10 --history 8
run wm_eval_tiny wm eval "$models/wm_tiny_rope.safetensors" --data d.h5 --dreams 2 --steps 8 --long-dreams 1 --val-windows 4 --threads 1
# --- language models (tests/cli/cli_lm_test.sh, docs) ---
for i in $(seq 1 60); do printf 'Fortune %d: the cat sat on the mat.\n%%\n' "$i"; done > text.txt
tiny=(--embed 16 --heads 2 --layers 1 --context 16 --batch 4 --valid-windows 4 --threads 1 --text text.txt --quiet)
for pos in rope learned none sinusoidal alibi t5 sinusoidal_scaled; do
  run "lm_train_$pos" lm train --position "$pos" --steps 4 --log-every 2 "${tiny[@]}" -o "$pos.safetensors"
  run "lm_eval_$pos" lm eval "$pos.safetensors" --text text.txt --positions 32 --windows 2 --per-byte --top 3
done
run lm_train_resume lm train --position rope --steps 6 --log-every 2 "${tiny[@]}" --resume -o rope.safetensors
run lm_export lm export learned.safetensors -o l_export.safetensors
run lm_info_export lm info l_export.safetensors
run lm_info_rope lm info rope.safetensors
for sc in none linear ntk dynamic yarn llama3; do
  run "lm_eval_scaling_$sc" lm eval rope.safetensors --text text.txt --positions 64 --windows 3 --scaling "$sc" --factor 4
done
run lm_attention lm attention rope.safetensors --text text.txt --positions 24
run lm_train_pi lm train --init-from rope.safetensors --context 32 --scaling linear --factor 2 --steps 2 --log-every 2 \
  --batch 2 --valid-windows 2 --threads 1 --text text.txt --quiet -o pi.safetensors
run lm_eval_pi lm eval pi.safetensors --text text.txt --positions 40 --windows 2
for m in rope alibi learned none sinusoidal sinusoidal_scaled t5 rope_ft_pi rope_ft_yarn; do
  run "lm_info_shipped_$m" lm info "$models/lm_$m.safetensors"
  run "lm_eval_shipped_$m" lm eval "$models/lm_$m.safetensors" --positions 2L --windows 2
done
run lm_eval_shipped_yarn lm eval "$models/lm_rope.safetensors" --positions 8L --scaling yarn --factor 4 --windows 2
printf 'The quick brown fox jumps over the lazy dog.' > t.txt
run lm_attention_shipped lm attention "$models/lm_rope.safetensors" --text t.txt --layer 1 --head 2
run lm_attention_shipped_yarn lm attention "$models/lm_rope.safetensors" --text t.txt --scaling yarn --factor 4 --head 0 --layer 0
# --- attention lab on trained weights, length lab, quiz answers measured on the models ---
run att_trained attention --preset 'attention?weights=trained&model=rope&layer=1&head=2&scaling=none&text=The%20quick%20brown%20fox%20jumps%20over%20the%20lazy%20dog.'
run att_trained_yarn attention --weights trained --model rope --scaling yarn --factor 4 --sentence 'The quick brown fox jumps over the lazy dog.'
run att_trained_extra attention --preset 'attention?weights=trained&model=learned&demo=extrapolation&extrapolate=512&mean_heads=1'
run att_trained_decay attention --preset 'attention?weights=trained&demo=decay&decay_max=64'
run att_alibi_slopes attention --preset 'attention?enc=alibi&heads=12&demo=slopes'
run att_t5 attention --encoding t5 --tokens 5
run att_sin attention --encoding sin --tokens 16 --demo shift --shift 100
run length length
run quiz_yarn quiz check 06-long-context q11-yarn-tuned-gain -a 1.8 --explain
run quiz_sinusoid quiz check 02-absolute q2-sinusoid --seed 7 --answer 0.6442
run quiz_wm quiz check 10-world-model q4-mask --seed 11 --answer 23
echo "$n commands, outputs in $out"
