#!/usr/bin/env bash
# Kill test: `poslab-cli collect` and atomic saves killed with SIGKILL at random moments.
#   kill_test.sh CLI ATOMIC_WRITER [KILLS] [SEED]
# KILLS collect runs writing a new file, KILLS collect --force runs over an existing file,
# and KILLS atomic-save runs are each killed after a random delay. After every kill:
#   - the output path is absent or opens (inspect, which reads every row), and a killed
#     --force run left the previous file byte-for-byte intact;
#   - <output>.partial, if present, opens and holds at least every episode collect had
#     reported committed ("committed N episodes" lines), each equal to `sim` with its seed;
#   - the progress file loads, untorn, with at least the last save reported done, and the
#     next save removes the killed writer's temporary file.
# Prints one summary line with the counts; exit 1 on any violation.
set -u
cli="$1"
writer="$2"
kills="${3:-5}"
RANDOM="${4:-20261123}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
unreadable=0 lost=0 prev_damaged=0 finished=0 killed=0 atomic_bad=0 stale=0

# delay in seconds, uniform in [lo, hi) ms
rand_delay() { local ms=$(($1 + RANDOM % ($2 - $1))); printf '%d.%03d' $((ms / 1000)) $((ms % 1000)); }

committed_count() {  # last "committed N episodes" number in a log, 0 if none
  local n
  n=$(grep -o 'committed [0-9]* episodes' "$1" | tail -1 | awk '{print $2}')
  echo "${n:-0}"
}

# check_dataset FILE MIN_EPISODES SEED0: opens, >= MIN episodes, last episode equals sim.
check_dataset() {
  local f="$1" min="$2" seed0="$3" n
  if ! "$cli" inspect "$f" > "$tmp/i.json" 2> "$tmp/i.err"; then
    echo "FAIL: $f does not open: $(cat "$tmp/i.err")"; unreadable=$((unreadable + 1)); fail=1; return
  fi
  n=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['episodes'])" "$tmp/i.json")
  if [ "$n" -lt "$min" ]; then
    echo "FAIL: $f holds $n episodes but $min were reported committed"; lost=$((lost + min - n)); fail=1
  fi
  if [ "$n" -gt 0 ]; then
    local e=$((n - 1))
    "$cli" inspect "$f" --episode "$e" > "$tmp/e.json" 2>/dev/null
    "$cli" sim --seed $((seed0 + e)) --policy noisy --teams 2v2 > "$tmp/s.json"
    python3 - "$tmp/e.json" "$tmp/s.json" <<'PY' || { echo "FAIL: $f episode $e differs from sim"; lost=$((lost + 1)); fail=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if all(a[k] == b[k] for k in ['tokens', 'actions', 'expert_actions', 'rewards']) else 1)
PY
  fi
}

"$cli" collect --episodes 4 --teams 2v2 --seed 777 --quiet -o "$tmp/prev.h5" > /dev/null || { echo "FAIL: cannot make the previous file"; exit 1; }
prev_sum=$(sha256sum < "$tmp/prev.h5")

# Enough episodes that a run outlasts the longest delay (1.5 s): 300 finished in under a
# second on a quiet 2-core machine once collection got faster, and 34 of 40 runs finished
# before their kill. 3,000 take about 2.8 s there (all 40 killed, stop 15).
episodes=3000
for mode in new force; do
  for ((k = 0; k < kills; k++)); do
    out="$tmp/out.h5"
    rm -f "$out" "$out".*
    extra=()
    if [ "$mode" = force ]; then cp "$tmp/prev.h5" "$out"; extra=(--force); fi
    seed0=$((1000 + k * 100))
    "$cli" collect --episodes "$episodes" --threads 2 --teams 2v2 --seed "$seed0" --quiet --commit-log \
      "${extra[@]}" -o "$out" > "$tmp/c.json" 2> "$tmp/log" &
    pid=$!
    sleep "$(rand_delay 20 1500)"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    c=$(committed_count "$tmp/log")
    if grep -q "episodes to $out\$" "$tmp/log"; then finished=$((finished + 1)); else killed=$((killed + 1)); fi
    # Only the final rename puts a new file at $out, so whatever is there is either the
    # untouched previous file or the complete new one.
    if [ -e "$out" ]; then
      if [ "$mode" = force ] && [ "$(sha256sum < "$out")" = "$prev_sum" ]; then
        :
      else
        before="$unreadable/$lost"
        check_dataset "$out" "$episodes" "$seed0"
        if [ "$mode" = force ] && [ "$unreadable/$lost" != "$before" ]; then prev_damaged=$((prev_damaged + 1)); fi
      fi
    fi
    if [ -e "$out.partial" ]; then
      check_dataset "$out.partial" "$c" "$seed0"
    elif [ "$c" -gt 0 ] && ! { [ -e "$out" ] && { [ "$mode" = new ] || [ "$(sha256sum < "$out")" != "$prev_sum" ]; }; }; then
      # committed episodes, no snapshot, and no complete new file at $out either
      echo "FAIL: $c episodes were committed but $out.partial is missing"; lost=$((lost + c)); fail=1
    fi
  done
done

# Atomic saves (progress files): kill, then the file must load whole and not lose a save.
for ((k = 0; k < kills; k++)); do
  p="$tmp/progress.json"
  rm -f "$p" "$p".*
  "$writer" save "$p" 100000 > "$tmp/saves" &
  pid=$!
  sleep "$(rand_delay 20 800)"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  last=$(tail -1 "$tmp/saves" | awk '{print $2}')
  last=${last:-0}
  if [ -e "$p" ]; then
    got=$("$writer" check "$p") || { echo "FAIL: progress file unreadable after a kill"; atomic_bad=$((atomic_bad + 1)); fail=1; continue; }
    [ "$got" -ge "$last" ] || { echo "FAIL: progress holds save $got, but save $last had returned"; atomic_bad=$((atomic_bad + 1)); fail=1; }
  elif [ "$last" -gt 0 ]; then
    echo "FAIL: progress file missing after save $last returned"; atomic_bad=$((atomic_bad + 1)); fail=1
  fi
  "$writer" save "$p" 1 > /dev/null || { echo "FAIL: save after a kill failed"; fail=1; }
  if ls "$p".tmp.* > /dev/null 2>&1; then
    echo "FAIL: the killed writer's temporary file was not cleaned up"; stale=$((stale + 1)); fail=1
  fi
done

echo "kill test: $killed collect runs killed, $finished finished first; unreadable=$unreadable lost_counted_episodes=$lost previous_file_damaged=$prev_damaged; atomic saves killed=$kills bad=$atomic_bad stale_temporaries=$stale"
exit $fail
