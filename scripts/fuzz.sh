#!/usr/bin/env bash
# Runs one libFuzzer harness from fuzz/ for a while:
#   scripts/fuzz.sh NAME SECONDS     e.g. scripts/fuzz.sh preset 60   (NAME = fuzz_NAME)
#   scripts/fuzz.sh list             the harness names
# Builds the "fuzz" preset (clang-14, ASan + UBSan + coverage) if needed, starts from the
# committed seed corpus fuzz/corpus/NAME plus the growing one in build/fuzz/corpus/NAME,
# uses fuzz/dict/NAME.dict when present, and prints one summary line:
#   fuzz NAME: EXECS executions in SECONDS s, CRASHES crashes (LIBRARY in libhdf5 only)
# Exit 1 if a crash, leak or sanitizer report involves PosLab's own code. Crashes whose
# top frame is inside libhdf5 (the dataset harness reads mutants in this process, while
# PosLab contains them in a helper process) are counted apart and kept in
# build/fuzz/artifacts/NAME/ for study. Totals over runs accumulate in
# build/fuzz/stats/NAME.txt, one line per finished run: "executions crashes library_crashes
# seconds preset date" (older lines have the first three fields only);
# scripts/fuzz_campaign.sh totals sums them. POSLAB_FUZZ_JOBS=N runs the dataset harness as
# N parallel fork-mode jobs (one per core; default 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
names=(preset tokenizer quiz_answers markdown quiz_toml toml progress settings json_matrix action_file
       dataset checkpoint lm_checkpoint)
if [[ "${1:-}" == "list" ]]; then printf '%s\n' "${names[@]}"; exit 0; fi
if [[ $# -ne 2 || ! " ${names[*]} " == *" $1 "* || ! "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh NAME SECONDS   (NAME: ${names[*]})" >&2
  exit 2
fi
name="$1" seconds="$2"
# POSLAB_FUZZ_PRESET=sanitize uses the CI sanitizer tree (which also builds the suite).
tree="${POSLAB_FUZZ_PRESET:-fuzz}"
bin="build/$tree/fuzz/fuzz_$name"
if [[ "${POSLAB_FUZZ_NO_BUILD:-0}" != 1 ]]; then  # 1: use the binary as built (campaigns)
  if [[ ! -f "build/$tree/build.ninja" ]]; then cmake --preset "$tree" > /dev/null; fi
  cmake --build --preset "$tree" --target "fuzz_$name" > /dev/null
fi

if [[ ! -d "fuzz/corpus/$name" ]]; then
  echo "fuzz $name: no seed corpus fuzz/corpus/$name" >&2
  exit 1
fi
work="build/fuzz/corpus/$name" art="build/fuzz/artifacts/$name" stats="build/fuzz/stats"
mkdir -p "$work" "$art" "$stats"
# Scratch directories of harness processes that crashed or were killed (a normal exit
# removes its own, fuzz/fuzz_common.cpp): only those whose process is gone.
for d in /dev/shm/poslab_fuzz_* /tmp/poslab_fuzz_*; do
  [[ -d "$d" ]] || continue
  pid="${d##*_}"
  if [[ "$pid" =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null; then rm -rf "$d"; fi
done
# The longest input per harness: a little above the largest real input of its kind (and
# above every seed, which libFuzzer would otherwise truncate). Without a cap the inputs of a
# long campaign grow toward 1 MiB and every execution slows down with them; the size limits
# of the readers themselves (1 MiB settings, 4 MiB texts, 100 KB presets) are checked by
# tests/reliability and hostile_inputs_test.sh, not here.
case "$name" in
  quiz_answers) max_len=256 ;;
  preset | tokenizer | json_matrix) max_len=4096 ;;
  progress | settings | action_file | checkpoint) max_len=8192 ;;
  quiz_toml) max_len=20480 ;;  # the largest lessons/*/quiz.toml is 15.6 KB
  toml) max_len=24576 ;;       # the largest interface-text file, and a deep-nesting seed
  lm_checkpoint) max_len=16384 ;;  # the seed model is 14 KB
  markdown) max_len=16384 ;;   # the largest lesson.*.md is 9 KB
  dataset) max_len=65536 ;;    # the seed dataset is 28 KB
esac
# The limits of a run, also those under which a crash is reproduced alone.
limits=(-timeout=20 -rss_limit_mb=4096)
args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$art/" "${limits[@]}"
      -max_len="$max_len")
[[ -f "fuzz/dict/$name.dict" ]] && args+=(-dict="fuzz/dict/$name.dict")
export LSAN_OPTIONS="suppressions=$root/cmake/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}"
if [[ "$name" == dataset ]]; then
  # Keep going past libhdf5's own crashes; each is sorted below.
  args+=(-fork="${POSLAB_FUZZ_JOBS:-1}" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  # A corrupted size makes libhdf5 ask for terabytes. glibc's malloc, which PosLab runs
  # with, returns NULL for that, and the library reports an error; ASan aborts instead
  # unless told to behave the same way (half of the crashes, none of them a finding).
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
  # No leak check after every input: libhdf5's free lists keep blocks, so most inputs end
  # with more mallocs than frees and each would pay for a heap scan (a third of the time).
  # Leaks are still checked when each fork-mode job exits (every 300 s at most): libhdf5's
  # are suppressed (cmake/lsan.supp), so any LeakSanitizer report left is PosLab's (below).
  args+=(-detect_leaks=0)
fi
log="build/fuzz/last_$name.log"
rc=0
started=$SECONDS
"$bin" "${args[@]}" "$work" "fuzz/corpus/$name" > "$log" 2>&1 || rc=$?
# The seconds it ran (less than asked when it was stopped with SIGTERM; libFuzzer still
# prints its final stats then), so executions/s stay true.
ran=$((SECONDS - started))
[[ $rc -eq 72 ]] && rc=0  # libFuzzer's exit code when interrupted: a stopped run, not a finding

# Executions: the final stats line (normal mode) or the last status line (fork mode).
execs=$({ grep -o 'stat::number_of_executed_units: [0-9]*' "$log" || true; } | awk '{s+=$2} END {print s+0}')
if [[ "$execs" -eq 0 ]]; then
  execs=$({ grep -o '^#[0-9]*' "$log" || true; } | tail -1 | tr -d '#')
  execs=${execs:-0}
fi
# sort_crash FILE: reruns one crash input alone and writes the verdict to FILE.sorted (its
# first line: "library..." or "posLab: FRAME", then for PosLab the report's frames).
# NAME.sorted holds the verdict on NAME: it is not an input, and NAME is sorted once.
sort_crash() {
  local f="$1" out top
  # Reproduced under the campaign's own limits, so an out-of-memory shows the allocation.
  # shellcheck disable=SC2086  # the limits are words
  out=$("$bin" -runs=1 $limits_text "$f" 2>&1 || true)
  # The first stack frame of the report that is not the sanitizer's or the C library's
  # own (ASan's memcpy interceptor is frame #0 of an overflow inside libhdf5, and libc's
  # __memcpy_avx512_unaligned_erms that of a SEGV the interceptor passed on; its malloc
  # that of an allocation too big, libFuzzer's malloc hook that of an out-of-memory, and
  # libc's signal trampoline, unnamed, the frame below libFuzzer's alarm in a timeout; and
  # any frame of the harness binary without a source line, which is the sanitizers' or
  # libFuzzer's: ASan's strdup interceptor is frame #0 of an overflow in H5MM_strdup, while
  # PosLab's own code, built with -g, always shows its file and line): inside libhdf5, or
  # in PosLab?
  top=$({ grep -E '^ *#[0-9]+ ' <<<"$out" || true; } |
        { grep -v -E '__interceptor_|__asan_|__asan::|__sanitizer|__ubsan|__libc_| in fuzzer::' || true; } |
        { grep -v -E ' in (malloc|calloc|realloc|free|mem(cpy|move|set)|operator (new|delete))[ (]' || true; } |
        { grep -v -E ' in __(mem|str|wmem)[a-z]*_[a-z0-9_]+ ' || true; } |
        { grep -v -E ' \(/lib/[^ ]*/libc\.so\.6\+' || true; } |
        { grep -v -E ' \([^ ]*/fuzz_[a-z_]+\+0x[0-9a-f]+\)' || true; } |
        head -1)
  if [[ "$name" == dataset && "$top" == *libhdf5* ]]; then
    echo "library" > "$f.sorted"
  elif [[ "$name" == dataset && "$f" == */timeout-* ]] && ! grep -q "$root/io\|$root/core" <<<"$out"; then
    echo "library (hang)" > "$f.sorted"
  elif [[ "$name" == dataset && -z "$top" ]] && ! grep -q -E '^==[0-9]+==|runtime error' <<<"$out"; then
    # Crashed inside a fork-mode job but runs clean alone: PosLab's reader keeps no state
    # between inputs (each opens and closes its file), libhdf5 does (its caches, free lists),
    # so the crash needs libhdf5 state left by earlier inputs of that job. Counted with the
    # library's; the job's first report line is in the log.
    echo "library (not reproducible alone)" > "$f.sorted"
  else
    { echo "posLab: $top"; grep -E '^(==|SUMMARY| *#[0-9])' <<<"$out" | head -20; } > "$f.sorted"
  fi
}
export -f sort_crash
# Arrays do not pass to the sorters' shells: the limits go as words (no spaces inside).
limits_text="${limits[*]}"
export bin name root limits_text
crashes=0 library=0 ours=0
shopt -s nullglob
fresh=()
for f in "$art"/crash-* "$art"/leak-* "$art"/oom-* "$art"/timeout-*; do
  [[ "$f" == *.sorted || -e "$f.sorted" ]] || fresh+=("$f")
done
# One sorter per fork-mode job: a long campaign leaves hundreds of libhdf5 crashes.
if [[ ${#fresh[@]} -gt 0 ]]; then
  printf '%s\0' "${fresh[@]}" | xargs -0 -n 1 -P "${POSLAB_FUZZ_JOBS:-1}" bash -c 'sort_crash "$1"' _
fi
for f in "${fresh[@]}"; do
  crashes=$((crashes + 1))
  if [[ "$(head -1 "$f.sorted")" == library* ]]; then
    library=$((library + 1))
  else
    ours=$((ours + 1))
    echo "fuzz $name: $f involves PosLab's code:"; tail -n +2 "$f.sorted"
  fi
done
# A leak found when a fork-mode job exits has no input of its own (its artifact is empty and
# runs clean alone), so it is read from the log: libhdf5's leaks are suppressed, so a
# report there is PosLab's.
if [[ "$name" == dataset ]] && grep -q 'ERROR: LeakSanitizer' "$log"; then
  ours=$((ours + 1))
  echo "fuzz $name: a LeakSanitizer report outside libhdf5 in $log"
fi
echo "$execs $crashes $library $ran $tree $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$stats/$name.txt"
echo "fuzz $name: $execs executions in $ran s ($((execs / (ran > 0 ? ran : 1))) /s), $crashes new crashes ($library in libhdf5 only); log $log"
if [[ $ours -gt 0 || ( $rc -ne 0 && "$name" != dataset ) ]]; then
  tail -30 "$log"
  exit 1
fi
