#!/usr/bin/env bash
# Crash containment: mutants of a valid dataset are read through the helper process
# (mutate_datasets, in-process API) and through `poslab-cli inspect` (a sample of them):
# the calling process never crashes, inspect exits 0 or 2 with one line, never a signal.
#   mutation_test.sh CLI MUTATE_DATASETS COUNT [SEED]
set -u
cli="$1" mutate="$2" count="$3" seed="${4:-1}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$cli" collect --episodes 6 --teams 2v2 --seed 5 --quiet -o "$tmp/valid.h5" > /dev/null || exit 1
# ASan's handler would print a report for every contained library crash in the helper;
# the helper dies either way, and the parent's own crashes still fail the test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:detect_leaks=0"
"$mutate" "$tmp/valid.h5" "$count" "$seed" "$tmp" || { echo "FAIL: the mutation campaign"; fail=1; }
# The command line on a sample: exit 0 or 2 only, one error line. The sample is the same
# every run (RANDOM seeded). In the sanitizer tree, a libhdf5 crash in inspect's helper
# process makes ASan print a report; those go to files (log_path), not to the one-line
# stderr checked here. A crash of inspect itself still shows: ASan exits 1, not 0 or 2.
RANDOM=$seed
export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$tmp/asan"
bad=0
for ((i = 0; i < 40; i++)); do
  cp "$tmp/valid.h5" "$tmp/m.h5"
  size=$(stat -c %s "$tmp/m.h5")
  for ((c = 0; c < 3; c++)); do
    at=$(( (RANDOM * 32768 + RANDOM) % (i % 2 ? size : 4096) ))
    printf "\\x$(printf %02x $((RANDOM % 256)))" | dd of="$tmp/m.h5" bs=1 seek="$at" conv=notrunc status=none
  done
  "$cli" inspect "$tmp/m.h5" > /dev/null 2> "$tmp/err"; rc=$?
  if [ "$rc" -ne 0 ] && { [ "$rc" -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ]; }; then
    echo "FAIL: inspect on a mutant exited $rc: $(head -c 300 "$tmp/err")"; bad=$((bad + 1)); fail=1
  fi
done
echo "inspect on 40 mutants: $bad bad exits, $(ls "$tmp" | grep -c '^asan') sanitizer reports of contained helper crashes"
exit $fail
