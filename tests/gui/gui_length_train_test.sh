#!/usr/bin/env bash
# The length lab's "Train your own" end to end: `poslab --preset 'length?train=2'` starts a
# run of the shipped recipe; quitting after some frames cancels it, and the checkpoint the
# panel kept loads (poslab-cli lm info: the step it reached, the optimiser state) and holds
# the weights `poslab-cli lm train` computes for that many steps with the same recipe, bit
# for bit (its metadata's command line, run again). Usage: gui_length_train_test.sh <poslab> <poslab-cli>
set -u
app="$1"; cli="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"   # never touch the user's files
xvfb=(bash "$(dirname "$0")/xvfb.sh")
ls /usr/share/games/fortunes/fortunes > /dev/null 2>&1 || { echo "fortune files missing: skipped"; exit 77; }
"${xvfb[@]}" "$app" --preset 'length?train=2' --frames 400 > "$tmp/app.out" 2>&1 ||
  { echo "app failed: $(cat "$tmp/app.out")"; exit 1; }
ck="$XDG_DATA_HOME/poslab/models/lm_own_rope_L128_seed1.safetensors"
[ -s "$ck" ] || { echo "no checkpoint at $ck after quitting a run"; ls -R "$XDG_DATA_HOME"; exit 1; }
"$cli" lm info "$ck" > "$tmp/info.json" || { echo "the panel's checkpoint does not load"; exit 1; }
read -r step cmd < <(python3 - "$tmp/info.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["has_optimiser_state"], "no optimiser state: cannot resume"
print(j["step"], j["metadata"]["command"])
PY
) || { echo "lm info: $(cat "$tmp/info.json")"; exit 1; }
[ "$step" -ge 1 ] || { echo "the run kept step $step"; exit 1; }
echo "the panel stopped at step $step"
# The command the checkpoint records, for that many steps, into another file.
args=$(python3 - "$step" "$tmp/cli.safetensors" <<PY
import shlex, sys
words = shlex.split("""$cmd""".split("  (the length lab")[0])[1:]
words[words.index("--steps") + 1] = sys.argv[1]
words[words.index("-o") + 1] = sys.argv[2]
print(shlex.join(words))
PY
)
eval "\"$cli\" $args --quiet" > "$tmp/cli.json" || { echo "poslab-cli $args failed"; exit 1; }
python3 - "$ck" "$tmp/cli.safetensors" <<'PY'
import json, struct, sys
def tensors(p):
    b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    return {k: b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]]
            for k, v in h.items() if k != "__metadata__"}
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
assert a.keys() == b.keys(), "different tensors"
diff = [k for k in a if a[k] != b[k]]
assert not diff, "the panel's weights differ from poslab-cli lm train's: " + ", ".join(diff[:5])
print("panel == poslab-cli lm train:", len(a), "tensors (with the optimiser moments) bit for bit")
PY
