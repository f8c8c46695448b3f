#!/usr/bin/env bash
# poslab-cli wm train-lab (issue 37): the dream lab's training run natively. It writes a
# checkpoint recording the command that repeats it; that command gives the same tensors bit
# for bit (the run is deterministic: episodes, split, batches from the seed); a finished
# run's JSON has its curves; an existing output and bad values exit 2 with one line.
set -u
cli="$1"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small=(--episodes 5 --steps 3 --batch 2 --seed 11 --log-every 1 --val-every 2 --quiet)

"$cli" wm train-lab "${small[@]}" -o "$tmp/a.safetensors" > "$tmp/a.json" ||
  { echo "FAIL: wm train-lab exited non-zero"; fail=1; }
python3 - "$tmp/a.json" <<'PY' || { echo "FAIL: train-lab summary"; fail=1; }
import json, sys
j = json.load(open(sys.argv[1]))
assert j['step'] == 3 and j['steps'] == 3 and not j['interrupted'], j
assert j['train_episodes'] + j['val_episodes'] == 5 and j['val_episodes'] >= 1, j
assert j['loss']['step'] == [1, 2, 3] and all(v > 0 for v in j['loss']['value']), j['loss']
assert j['val_loss']['step'] == [2, 3], j['val_loss']
assert j['command'].startswith('poslab-cli wm train-lab --preset tiny --position rope --episodes 5 --seed 11 --steps 3 --batch 2 --lr 0.0015 --threads 1 -o '), j['command']
PY
"$cli" wm info "$tmp/a.safetensors" > "$tmp/info.json" || { echo "FAIL: wm info"; fail=1; }
python3 - "$tmp/info.json" "$tmp/a.json" <<'PY' || { echo "FAIL: checkpoint metadata"; fail=1; }
import json, sys
i, a = (json.load(open(p)) for p in sys.argv[1:3])
assert i['step'] == 3 and i['has_optimizer_state'] and i['config']['embed'] == 64, i
assert i['metadata']['command'] == a['command'], (i['metadata'], a['command'])
assert i['config']['state_base'] == 'cv' and 'noisy-expert' in i['metadata']['provenance'], i
PY

# The recorded command repeats the run: every tensor equal, bit for bit.
cmd=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['command'])" "$tmp/a.json")
read -r -a args <<<"${cmd% -o *}"
"$cli" "${args[@]:1}" --quiet -o "$tmp/b.safetensors" > /dev/null ||
  { echo "FAIL: the recorded command failed: $cmd"; fail=1; }
python3 - "$tmp/a.safetensors" "$tmp/b.safetensors" <<'PY' || { echo "FAIL: the recorded command gave other weights"; fail=1; }
import json, struct, sys
def tensors(p):
    b = open(p, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    h = json.loads(b[8:8 + n])
    return {k: b[8 + n + t['data_offsets'][0]:8 + n + t['data_offsets'][1]]
            for k, t in h.items() if k != '__metadata__'}
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
assert a.keys() == b.keys() and any(k.startswith('optim.m') for k in a), sorted(a)[:5]
bad = [k for k in a if a[k] != b[k]]
sys.exit(1 if bad else 0)
PY

expect_exit2 "exists" wm train-lab "${small[@]}" -o "$tmp/a.safetensors"
expect_exit2 "huge" wm train-lab --preset huge -o "$tmp/c.safetensors"
expect_exit2 "episodes" wm train-lab --episodes 2 -o "$tmp/c.safetensors"
expect_exit2 "position" wm train-lab --position sideways -o "$tmp/c.safetensors"
expect_exit2 "batch" wm train-lab --batch 0 -o "$tmp/c.safetensors"
expect_exit2 "output" wm train-lab --steps 1 -o "$tmp/no/such/dir/c.safetensors"
[ -e "$tmp/c.safetensors" ] && { echo "FAIL: a refused run wrote a checkpoint"; fail=1; }
exit $fail
