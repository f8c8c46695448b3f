#!/usr/bin/env bash
# The libFuzzer harnesses in fuzz/ are built only by the clang "fuzz"/"sanitize" presets, so
# the normal build never sees them rot when an API moves (three had in one stop). This
# syntax-checks each one with clang-14 against the current headers. Exit 77 (skipped)
# without clang-14.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang++-14 >/dev/null || { echo "SKIPPED: clang++-14 not installed"; exit 77; }
# The sanitizer run (scripts/setup.sh with POSLAB_SANITIZE_RUN=1, as in CI) builds and runs
# every harness in the same run: checking them here too would only repeat that work.
if [[ "${POSLAB_SANITIZE_RUN:-0}" == 1 ]]; then
  echo "SKIPPED: this run builds every harness in the sanitize tree"
  exit 77
fi
fails=0
# fuzz_dataset.cpp calls libhdf5 itself (its free-list limits).
hdf5_flags=$(pkg-config --cflags hdf5 2>/dev/null || true)
for f in fuzz/*.cpp; do
  # shellcheck disable=SC2086  # the pkg-config flags are words
  if ! out=$(clang++-14 -std=c++20 -fsyntax-only -I. -isystem /usr/include/eigen3 $hdf5_flags "$f" 2>&1); then
    echo "$f does not compile against the current headers:"
    grep -m5 error <<<"$out"
    fails=$((fails + 1))
  fi
done
echo "fuzz harnesses checked: $(ls fuzz/*.cpp | wc -l), failing: $fails"
((fails == 0))
