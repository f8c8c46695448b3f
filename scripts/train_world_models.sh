#!/usr/bin/env bash
# Reproduces the shipped world models from scratch: collect a Boost and Broadside dataset
# (noisy expert), train the tiny preset with RoPE and with learned absolute positions (in
# parallel, one thread each), export them without optimiser state, and evaluate both: on the
# dataset's validation episodes, and on 300 episodes of a separate collection (seed 90000)
# that no training run has seen (`wm eval --unseen`). Everything lands in assets/models/
# (models, CSV curves, eval JSON); the datasets and the training checkpoints stay in the
# work directory.
#   scripts/train_world_models.sh [STEPS] [WORKDIR] [STATE_HEAD] [PRESET] [EPISODES] [LR]
#   (defaults: 1500, build/wm_runs, cv: the state head predicts the change from a
#   constant-velocity step, docs/world-model.md section 5, with the state loss in sigma
#   units, section 6; plain and scaled also work; tiny; 400; 1.5e-3)
#   The shipped paper-size models: scripts/train_world_models.sh 3500 build/wm_runs cv paper 2000 1e-3
#   (about an hour of both cores; they were trained with tools/torch/train.py on a GPU with
#   the same settings: assets/models/README.md, "The paper size")
# Ctrl-C (or SIGINT to a training) stops it at a checkpoint; rerunning resumes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
steps="${1:-1500}"
work="${2:-build/wm_runs}"
state_head="${3:-cv}"
preset="${4:-tiny}"
episodes="${5:-400}"
lr="${6:-1.5e-3}"
cli="${POSLAB_CLI:-build/release/cli/poslab-cli}"
out=assets/models
mkdir -p "$work" "$out"
[[ -x "$cli" ]] || { echo "build first: cmake --preset release && cmake --build --preset release --target poslab-cli" >&2; exit 2; }

data="$work/bnb_noisy_$episodes.h5"
if [[ ! -f "$data" ]]; then
  "$cli" collect --episodes "$episodes" --seed 1000 --policy noisy --threads 2 -o "$data" > "$work/collect_$episodes.json"
fi

train() {  # train <position>
  local pos="$1"
  "$cli" wm train --preset "$preset" --position "$pos" --data "$data" --steps "$steps" --seed 7 \
    --state-head "$state_head" --batch 8 --lr "$lr" --warmup 100 --log-every 10 --val-every 100 --checkpoint-every 50 \
    --threads 1 --resume -o "$work/wm_${preset}_$pos.train.safetensors" --log "$out/wm_${preset}_$pos.csv" \
    > "$work/train_${preset}_$pos.json" 2> "$work/train_${preset}_$pos.log"
}
train rope & pid_rope=$!
train absolute & pid_abs=$!
trap 'kill -INT $pid_rope $pid_abs 2>/dev/null || true' INT TERM
wait $pid_rope
wait $pid_abs

evaluate() {  # evaluate <position>
  local pos="$1"
  "$cli" wm export "$work/wm_${preset}_$pos.train.safetensors" -o "$out/wm_${preset}_$pos.safetensors" > /dev/null
  "$cli" wm eval "$out/wm_${preset}_$pos.safetensors" --data "$data" --dreams 16 --steps 50 --long-dreams 6 \
    --threads 1 > "$out/wm_${preset}_${pos}_eval.json"
}
unseen="$work/bnb_noisy_unseen_300.h5"
if [[ ! -f "$unseen" ]]; then
  "$cli" collect --episodes 300 --seed 90000 --policy noisy --threads 2 -o "$unseen" > "$work/collect_unseen.json"
fi
evaluate_unseen() {  # evaluate_unseen <position>: every episode of the separate collection
  local pos="$1"
  "$cli" wm eval "$out/wm_${preset}_$pos.safetensors" --data "$unseen" --unseen --dreams 32 --steps 50 \
    --long-dreams 8 --threads 1 > "$out/wm_${preset}_${pos}_unseen_eval.json"
}
evaluate rope & pid_rope=$!
evaluate absolute & pid_abs=$!
wait $pid_rope
wait $pid_abs
evaluate_unseen rope & pid_rope=$!
evaluate_unseen absolute & pid_abs=$!
wait $pid_rope
wait $pid_abs
echo "done: $out/wm_${preset}_{rope,absolute}.safetensors, .csv, _eval.json, _unseen_eval.json"
