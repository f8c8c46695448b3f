#!/usr/bin/env bash
# poslab-cli sim / collect / inspect: valid calls give JSON an independent reader (python3's
# json) accepts with the expected shapes; a seed replays; collect and sim agree on every
# episode; threads do not change the data; Ctrl-C leaves a valid file; every bad input
# (arguments, action files, damaged datasets) exits 2 with one line naming the problem.
set -u
cli="$1"
make_bad="$2"
fail=0
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT


py_check() {  # py_check <description> <python expression on j> <json file>
  if ! python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$3"; then
    echo "FAIL: $1: $2 does not hold"; fail=1
  fi
}

# --- sim ---
"$cli" sim --seed 5 --teams 4v4 --policy noisy --relational > "$tmp/a.json" || { echo "FAIL: sim exited non-zero"; fail=1; }
py_check "sim shapes" "len(j['tokens'])==j['rows'] and all(len(r)==8 and all(len(t)==15 for t in r) for r in j['tokens']) \
  and all(len(r)==8 and all(len(a)==3 for a in r) for r in j['actions']) and len(j['rewards'])==j['rows'] \
  and len(j['relational'])==j['rows'] and len(j['relational'][0][0][0])==12 and j['team_sizes']==[4,4] \
  and j['outcome'] in ('team0_win','team1_win','draw','truncated')" "$tmp/a.json"
py_check "relational d symmetric" "all(abs(j['relational'][t][i][k][4]-j['relational'][t][k][i][4])<1e-9 for t in range(j['rows']) for i in range(8) for k in range(8))" "$tmp/a.json"
"$cli" sim --seed 5 --teams 4v4 --policy noisy --relational > "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "FAIL: sim with the same seed differs"; fail=1; }
"$cli" sim --seed 5 --teams 4v4 --actions "$tmp/a.json" > "$tmp/replay.json" || { echo "FAIL: replay exited non-zero"; fail=1; }
python3 - "$tmp/a.json" "$tmp/replay.json" <<'PY' || { echo "FAIL: replaying sim's actions did not reproduce the tokens"; fail=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a['tokens'] == b['tokens'] and b['policy'] == 'replay' else 1)
PY
"$cli" sim --seed 9 --steps 7 --policy random > "$tmp/short.json"
py_check "truncation after --steps" "j['rows']<=8 and (j['rows']==8)==(j['outcome']=='truncated')" "$tmp/short.json"

# --- collect + inspect ---
"$cli" collect --episodes 24 --threads 2 --seed 1000 -o "$tmp/d2.h5" > "$tmp/c2.json" 2>/dev/null || { echo "FAIL: collect exited non-zero"; fail=1; }
"$cli" collect --episodes 24 --threads 1 --seed 1000 -o "$tmp/d1.h5" --compression 0 > /dev/null 2>&1
"$cli" inspect "$tmp/d2.h5" > "$tmp/i2.json" || { echo "FAIL: inspect exited non-zero"; fail=1; }
py_check "collect summary" "j['episodes']==24 and j['rows']==j['agent_steps']+24 and j['interrupted']==False and j['file_bytes']>0" "$tmp/c2.json"
py_check "inspect summary" "j['episodes']==24 and sum(j['team_sizes'].values())==24 and sum(j['outcomes'].values())==24 \
  and abs(sum(j['action_frequencies']['turn'].values())-1)<1e-9 and j['expert_action_frequencies']['turn']['AIR_BRAKE']==0" "$tmp/i2.json"
"$cli" inspect "$tmp/d1.h5" > "$tmp/i1.json"
python3 - "$tmp/i1.json" "$tmp/i2.json" <<'PY' || { echo "FAIL: 1 and 2 threads collected different data"; fail=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ['rows', 'team_sizes', 'outcomes', 'action_frequencies', 'expert_action_frequencies']
sys.exit(0 if all(a[k] == b[k] for k in keys) else 1)
PY
"$cli" inspect "$tmp/d2.h5" --episode 7 > "$tmp/e7.json"
"$cli" sim --seed 1007 --policy noisy > "$tmp/s7.json"
python3 - "$tmp/e7.json" "$tmp/s7.json" <<'PY' || { echo "FAIL: episode 7 of collect != sim --seed 1007"; fail=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if all(a[k] == b[k] for k in ['tokens', 'actions', 'expert_actions', 'rewards']) else 1)
PY

# h5py (Debian's python3-h5py) reads the file with the spec's names, shapes and attributes.
if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  /usr/bin/python3 - "$tmp/d2.h5" <<'PY' || { echo "FAIL: h5py does not read the dataset as specified"; fail=1; }
import sys, h5py
f = h5py.File(sys.argv[1], "r")
S, E = f.attrs["total_timesteps"], f.attrs["num_episodes"]
ok = (f["tokens"].shape == (S, 8, 15) and f["tokens"].dtype == "<f4" and f["actions"].shape == (S, 8, 3)
      and f["actions"].dtype == "u1" and f["expert_actions"].shape == (S, 8, 3) and f["rewards"].shape == (S, 2)
      and f["episode_ids"].shape == (S,) and f["episode_ids"].dtype == "<i8" and f["episode_lengths"].shape == (E,)
      and f["episode_lengths"][:].sum() == S and f.attrs["format_version"] == 1 and f.attrs["max_ships"] == 8
      and f.attrs["token_dim"] == 15 and f.attrs["num_actions"] == 3 and list(f.attrs["world_size"]) == [1024, 1024])
sys.exit(0 if ok else 1)
PY
else
  echo "note: /usr/bin/python3 has no h5py (Debian package python3-h5py); h5py check skipped"
fi

# Ctrl-C: stops after the episodes in flight; the file is valid and says so.
# Interrupted once episodes are committed (--commit-log says so), not after a guessed time: a
# loaded machine may have written none by then.
"$cli" collect --episodes 100000 --threads 2 --commit-log -o "$tmp/int.h5" > "$tmp/int.json" 2>"$tmp/int.log" &
pid=$!
until=$((SECONDS + 300))
while [ "$SECONDS" -lt "$until" ] && ! grep -q '^committed [1-9]' "$tmp/int.log" 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || break; sleep 0.1
done
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: interrupted collect exited $rc"; fail=1; }
py_check "interrupted collect" "j['interrupted']==True and 0<j['episodes']<100000" "$tmp/int.json"
"$cli" inspect "$tmp/int.h5" > "$tmp/int_i.json" || { echo "FAIL: the interrupted file does not inspect"; fail=1; }
python3 - "$tmp/int.json" "$tmp/int_i.json" <<'PY' || { echo "FAIL: interrupted file has a different episode count than reported"; fail=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if a['episodes'] == b['episodes'] and a['rows'] == b['rows'] else 1)
PY

# --- bad input: exit 2, one line, naming the problem ---
expect_exit2 "--teams \"5v5\"" sim --teams 5v5
expect_exit2 "policy \"human\"" sim --policy human
expect_exit2 "max_steps = 0" sim --steps 0
expect_exit2 "nope.json: cannot open" sim --actions "$tmp/nope.json"
echo '[[[0,0,0]]]' > "$tmp/short_actions.json"
expect_exit2 "step 0: expected 8" sim --actions "$tmp/short_actions.json"
python3 -c "print([[[0,9,0]]*8])" > "$tmp/bad_turn.json"
expect_exit2 "is not [power 0..2, turn 0..6, shoot 0..1]" sim --actions "$tmp/bad_turn.json"
echo '{not json' > "$tmp/broken.json"
expect_exit2 "malformed JSON" sim --actions "$tmp/broken.json"
expect_exit2 "already exists" collect --episodes 1 -o "$tmp/d1.h5"
expect_exit2 "--episodes = 0" collect --episodes 0 -o "$tmp/zero.h5"
expect_exit2 "cannot create" collect --episodes 1 -o "$tmp/no/such/dir.h5"
expect_exit2 "episode 24 does not exist" inspect "$tmp/d2.h5" --episode 24
expect_exit2 "no such file" inspect "$tmp/missing.h5"
echo "hello" > "$tmp/text.h5"
expect_exit2 "not an HDF5 file" inspect "$tmp/text.h5"
for kind in version magic shape missing truncated corrupt; do
  "$make_bad" "$kind" "$tmp/bad_$kind.h5" || { echo "FAIL: make_bad_dataset $kind"; fail=1; }
done
expect_exit2 "format_version 99" inspect "$tmp/bad_version.h5"
expect_exit2 "not a Boost and Broadside dataset" inspect "$tmp/bad_magic.h5"
expect_exit2 "'tokens' has shape" inspect "$tmp/bad_shape.h5"
expect_exit2 "'expert_actions' is missing" inspect "$tmp/bad_missing.h5"
expect_exit2 "$tmp/bad_truncated.h5" inspect "$tmp/bad_truncated.h5"
expect_exit2 "corrupt" inspect "$tmp/bad_corrupt.h5"
"$make_bad" valid "$tmp/good.h5" && "$cli" inspect "$tmp/good.h5" > /dev/null || { echo "FAIL: a valid tool-made file was rejected"; fail=1; }
exit $fail
