#!/usr/bin/env bash
# poslab-cli wm: train / info / export / forward / dream / eval on a small collected dataset.
# Training writes a checkpoint and a CSV; resuming equals training straight through; SIGINT
# and kill -9 leave a loadable checkpoint; every bad input (missing or corrupt files, a
# dataset of another layout, unknown presets, non-numbers) exits 2 with one line naming it.
set -u
cli="$1"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py() { /usr/bin/python3 "$@"; }
py_check() {  # py_check <description> <python expression on j> <json file>
  if ! py -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$3"; then
    echo "FAIL: $1: $2 does not hold"; fail=1
  fi
}

"$cli" collect --episodes 12 --seed 300 --max-steps 80 --threads 1 -o "$tmp/d.h5" > /dev/null 2>&1 ||
  { echo "FAIL: collect"; exit 1; }
base=(--batch 2 --val-windows 3 --log-every 2 --val-every 4 --threads 1 --quiet)
small=("${base[@]}" --checkpoint-every 2)

# --- train, info, CSV ---
"$cli" wm train --preset tiny --position rope --data "$tmp/d.h5" --steps 8 --seed 3 "${small[@]}" \
  -o "$tmp/a.safetensors" > "$tmp/train.json" || { echo "FAIL: wm train exited non-zero"; fail=1; }
py_check "train summary" "j['step']==8 and j['interrupted']==False and j['param_count']>100000 and j['val_loss']>0" "$tmp/train.json"
py - "$tmp/a.csv" <<'PY' || { echo "FAIL: CSV log"; fail=1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r['step']) for r in rows] == [2, 4, 6, 8], rows
assert all(float(r['loss']) > 0 and float(r['tokens_per_s']) > 0 for r in rows)
assert rows[1]['val_loss'] != '' and rows[0]['val_loss'] == ''
PY
"$cli" wm info "$tmp/a.safetensors" > "$tmp/info.json" || { echo "FAIL: wm info"; fail=1; }
py_check "info" "j['step']==8 and j['has_optimizer_state'] and j['config']['embed']==64 and j['config']['position']=='rope' \
  and j['metadata']['data']['seed']==3 and 'wm train' in j['metadata']['command'] and j['metadata']['format_version']=='1'" "$tmp/info.json"

# --- resume equals straight through ---
"$cli" wm train --preset tiny --position rope --data "$tmp/d.h5" --steps 4 --seed 3 "${small[@]}" -o "$tmp/b.safetensors" > /dev/null
"$cli" wm train --resume --data "$tmp/d.h5" --steps 8 "${small[@]}" -o "$tmp/b.safetensors" > "$tmp/resume.json" ||
  { echo "FAIL: resume exited non-zero"; fail=1; }
py_check "resume" "j['first_step']==4 and j['step']==8" "$tmp/resume.json"
"$cli" wm forward "$tmp/a.safetensors" --data "$tmp/d.h5" --episode 1 --start 2 --length 10 > "$tmp/fa.json"
"$cli" wm forward "$tmp/b.safetensors" --data "$tmp/d.h5" --episode 1 --start 2 --length 10 > "$tmp/fb.json"
py - "$tmp/fa.json" "$tmp/fb.json" <<'PY' || { echo "FAIL: resumed run differs from the straight run"; fail=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a['loss'] == b['loss'] and a['state_pred'] == b['state_pred'] else 1)
PY
py - "$tmp/b.csv" <<'PY' || { echo "FAIL: resumed CSV"; fail=1; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r['step']) for r in rows] == [2, 4, 6, 8], rows
PY

# --- forward: shapes, padding ---
"$cli" wm forward "$tmp/a.safetensors" --data "$tmp/d.h5" --window 0:0:6 --window 2:3:4 > "$tmp/f2.json" ||
  { echo "FAIL: forward exited non-zero"; fail=1; }
py_check "forward shapes" "j['batch']==2 and j['steps']==6 and j['valid']==[1]*6+[1]*4+[0]*2 \
  and len(j['state_pred'][1][5][7])==15 and len(j['action_logits'][0][0][0])==12 and len(j['rel_pred'][0][0][0][0])==12 \
  and j['loss']['total']>0 and abs(j['loss']['total']-(j['loss']['state']+0.05*(j['loss']['power']+j['loss']['turn']+j['loss']['shoot'])+0.1*j['loss']['rel']))<1e-9" "$tmp/f2.json"

# --- export ---
"$cli" wm export "$tmp/a.safetensors" -o "$tmp/small.safetensors" > "$tmp/export.json" || { echo "FAIL: export"; fail=1; }
"$cli" wm info "$tmp/small.safetensors" > "$tmp/info2.json"
py_check "export drops the optimiser" "not j['has_optimizer_state'] and j['step']==8" "$tmp/info2.json"
"$cli" wm forward "$tmp/small.safetensors" --data "$tmp/d.h5" --episode 1 --start 2 --length 10 > "$tmp/fs.json"
cmp -s <(py -c "import json,sys; print(json.load(open(sys.argv[1]))['state_pred'])" "$tmp/fa.json") \
       <(py -c "import json,sys; print(json.load(open(sys.argv[1]))['state_pred'])" "$tmp/fs.json") ||
  { echo "FAIL: exported model predicts differently"; fail=1; }

# --- dream and eval ---
"$cli" wm dream "$tmp/small.safetensors" --data "$tmp/d.h5" --episode 0 --steps 6 --history 3 > "$tmp/dream.json" ||
  { echo "FAIL: dream exited non-zero"; fail=1; }
py_check "dream" "j['steps']<=6 and len(j['dreamt'])==j['steps']+1 and len(j['real'])==j['steps']+1 and len(j['actions'])==j['steps'] \
  and len(j['curves']['dream'])==j['steps'] and j['dreamt'][0]==j['real'][0] and j['start']==3" "$tmp/dream.json"
# Issue 38: one JSON schema for every dream. The lab's session (wm dream --preset) and
# wm dream MODEL write the same dream fields, the three curves of one error record per
# horizon, and wm eval's merged dreams the same curves.
"$cli" wm dream --preset "dreams?model=$tmp/small.safetensors&from=3" --steps 4 > "$tmp/lab_dream.json" ||
  { echo "FAIL: wm dream --preset exited non-zero"; fail=1; }
py - "$tmp/dream.json" "$tmp/lab_dream.json" <<'PY' || { echo "FAIL: one dream schema"; fail=1; }
import json, sys
one, lab = (json.load(open(f)) for f in sys.argv[1:3])
record = ["pos_px", "vel_px_s", "att_deg", "health", "power", "ships", "present", "agree", "alive_agree"]
for j in (one, lab):
    assert {"start", "steps", "curves", "real", "dreamt"} <= set(j), sorted(j)
    assert list(j["curves"]) == ["dream", "copy_last", "const_velocity"], list(j["curves"])
    for curve in j["curves"].values():
        assert len(curve) == j["steps"] and all(list(e) == record for e in curve), curve[:1]
        assert all(e["present"] == 0 or e["alive_agree"] == e["agree"] / e["present"] for e in curve)
    assert len(j["real"]) == len(j["dreamt"]) == j["steps"] + 1
PY
# The README's line: --data without --episode dreams on the file's first episode.
"$cli" wm dream "$tmp/small.safetensors" --data "$tmp/d.h5" --steps 6 --history 3 > "$tmp/dream0.json" ||
  { echo "FAIL: wm dream --data without --episode exited non-zero"; fail=1; }
cmp -s "$tmp/dream.json" "$tmp/dream0.json" ||
  [[ "$(py -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3]); a.pop('seconds',0); b.pop('seconds',0); print(a==b)" "$tmp/dream.json" "$tmp/dream0.json")" == True ]] ||
  { echo "FAIL: wm dream --data without --episode is not episode 0"; fail=1; }
# Issue 36: a negative --episode is refused, not taken for the default (it dreamt episode 0).
expect_exit2 "--episode = -1" wm dream "$tmp/small.safetensors" --data "$tmp/d.h5" --episode -1 --steps 6
expect_exit2 "--sim-seed = -2" wm dream "$tmp/small.safetensors" --sim-seed -2 --steps 4
"$cli" wm dream "$tmp/small.safetensors" --sim-seed 42 --steps 4 --loop open --temperature 1 --seed 5 > "$tmp/o1.json"
"$cli" wm dream "$tmp/small.safetensors" --sim-seed 42 --steps 4 --loop open --temperature 1 --seed 5 > "$tmp/o2.json"
cmp -s "$tmp/o1.json" "$tmp/o2.json" || { echo "FAIL: open-loop dream with one seed differs"; fail=1; }
"$cli" wm eval "$tmp/small.safetensors" --data "$tmp/d.h5" --dreams 1 --steps 4 --long-dreams 1 --val-windows 2 --threads 1 \
  > "$tmp/eval.json" || { echo "FAIL: eval exited non-zero"; fail=1; }
py_check "eval" "set(j['dreams'])=={'closed','open'} and len(j['dreams']['closed']['curves']['const_velocity'])==4 \
  and list(j['dreams']['closed']['curves']['dream'][0])==list(json.load(open('$tmp/dream.json'))['curves']['dream'][0]) \
  and j['beyond_context']['steps']==96 and 'rope_slide' in j['beyond_context'] \
  and 0<=j['teacher_forced']['action_accuracy']['turn']<=1" "$tmp/eval.json"
# --unseen: every episode of --data is held out (more than the checkpoint's 10 % split)
"$cli" wm eval "$tmp/small.safetensors" --data "$tmp/d.h5" --unseen --dreams 1 --steps 4 --long-dreams 1 --val-windows 2 \
  --threads 1 > "$tmp/eval_unseen.json" || { echo "FAIL: eval --unseen exited non-zero"; fail=1; }
py_check "eval --unseen" "j['val_episodes']>json.load(open('$tmp/eval.json'))['val_episodes'] \
  and j['val_split'].startswith('unseen')" "$tmp/eval_unseen.json"
expect_exit2 "--unseen needs --data" wm eval "$tmp/small.safetensors" --unseen

# --- the shipped models: both sizes load as exported (no optimiser state) and dream ---
models="$(dirname "${BASH_SOURCE[0]}")/../../assets/models"
for m in tiny:64:4:32 paper:128:6:96; do
  IFS=: read -r size embed layers context <<< "$m"
  for pos in rope absolute; do
    f="$models/wm_${size}_${pos}.safetensors"
    "$cli" wm info "$f" > "$tmp/info_${size}_${pos}.json" || { echo "FAIL: wm info $f"; fail=1; continue; }
    py_check "shipped $size $pos" "j['config']['embed']==$embed and j['config']['layers']==$layers \
      and j['config']['context']==$context and j['config']['position']=='$pos' and not j['has_optimizer_state']" \
      "$tmp/info_${size}_${pos}.json"
  done
done
"$cli" wm dream "$models/wm_paper_rope.safetensors" --data "$tmp/d.h5" --steps 10 --history 8 > "$tmp/paper_dream.json" ||
  { echo "FAIL: the shipped paper model does not dream"; fail=1; }
py_check "paper dream" "len(j['curves']['dream'])==j['steps'] \
  and j['curves']['dream'][0]['pos_px'] < j['curves']['copy_last'][0]['pos_px']" \
  "$tmp/paper_dream.json"

# --- interruptions leave a loadable checkpoint ---
"$cli" wm train --preset tiny --position absolute --data "$tmp/d.h5" --steps 100000 --seed 1 "${base[@]}" \
  --checkpoint-every 1 -o "$tmp/k.safetensors" > "$tmp/int.json" &
pid=$!
until=$((SECONDS + 300))   # the first checkpoint: polled, a generous ceiling for a loaded machine
while [ "$SECONDS" -lt "$until" ] && [ ! -f "$tmp/k.safetensors" ]; do sleep 0.2; done
kill -INT $pid; wait $pid
py_check "SIGINT stops at a checkpoint" "j['interrupted']==True and j['step']>=1" "$tmp/int.json"
"$cli" wm info "$tmp/k.safetensors" > /dev/null || { echo "FAIL: checkpoint after SIGINT does not load"; fail=1; }
before=$(stat -c %i "$tmp/k.safetensors")
"$cli" wm train --resume --data "$tmp/d.h5" --steps 100000 "${base[@]}" --checkpoint-every 1 -o "$tmp/k.safetensors" > /dev/null &
pid=$!
# Killed once the resumed run has replaced the checkpoint (a new inode: written atomically).
until=$((SECONDS + 300))
while [ "$SECONDS" -lt "$until" ] && [ "$(stat -c %i "$tmp/k.safetensors" 2>/dev/null)" = "$before" ]; do
  sleep 0.1
done
kill -9 $pid; wait $pid 2>/dev/null
"$cli" wm info "$tmp/k.safetensors" > "$tmp/k.json" || { echo "FAIL: checkpoint after kill -9 does not load"; fail=1; }
py_check "absolute variant recorded" "j['config']['position']=='absolute'" "$tmp/k.json"

# --- bad input: one line, exit 2 ---
expect_exit2 "missing.safetensors" wm info "$tmp/missing.safetensors"
head -c 100 "$tmp/small.safetensors" > "$tmp/trunc.safetensors"
expect_exit2 "trunc.safetensors" wm info "$tmp/trunc.safetensors"
expect_exit2 "trunc.safetensors" wm eval "$tmp/trunc.safetensors" --data "$tmp/d.h5"
echo "not hdf5" > "$tmp/bad.h5"
expect_exit2 "bad.h5" wm train --preset tiny --data "$tmp/bad.h5" --steps 2 -o "$tmp/x.safetensors"
expect_exit2 "nothere.h5" wm train --preset tiny --data "$tmp/nothere.h5" --steps 2 -o "$tmp/x.safetensors"
expect_exit2 "huge" wm train --preset huge --data "$tmp/d.h5" --steps 2 -o "$tmp/x.safetensors"
expect_exit2 "alibi" wm train --position alibi --data "$tmp/d.h5" --steps 2 -o "$tmp/x.safetensors"
expect_exit2 "steps" wm train --preset tiny --data "$tmp/d.h5" --steps many -o "$tmp/x.safetensors"
expect_exit2 "exists" wm train --preset tiny --data "$tmp/d.h5" --steps 2 -o "$tmp/a.safetensors"
expect_exit2 "context" wm train --preset tiny --position absolute --long-steps 64 --data "$tmp/d.h5" --steps 2 -o "$tmp/y.safetensors"
expect_exit2 "--window" wm forward "$tmp/a.safetensors" --data "$tmp/d.h5" --window 0:x:3
expect_exit2 "episode out of range" wm forward "$tmp/a.safetensors" --data "$tmp/d.h5" --window 99:0:3
expect_exit2 "sideways" wm dream "$tmp/a.safetensors" --data "$tmp/d.h5" --episode 0 --loop sideways
expect_exit2 "--episode" wm dream "$tmp/a.safetensors" --data "$tmp/d.h5" --episode 50
expect_exit2 "bad.h5" wm forward "$tmp/a.safetensors" --data "$tmp/bad.h5"
cp "$tmp/d.h5" "$tmp/other.safetensors"
expect_exit2 "other.safetensors" wm info "$tmp/other.safetensors"

exit $fail
