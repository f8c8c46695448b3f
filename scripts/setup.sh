#!/usr/bin/env bash
# PosLab set-up on Debian 12, in one command:
#   scripts/setup.sh run    install what is missing, build (release), start the app
#   scripts/setup.sh test   install what is missing, build (release), run every test; then
#                           the sanitizer run: a clang-14 ASan + UBSan tree (build/fuzz)
#                           running the suite without the GUI, and every libFuzzer harness
#                           for POSLAB_FUZZ_SECONDS (default 5) each
# Safe to run again: installs only missing packages, rebuilds only what changed.
# POSLAB_SANITIZE_RUN=0 skips the sanitizer run (the release suite alone).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="${1:-}"
if [[ "$mode" != "run" && "$mode" != "test" ]]; then
  echo "usage: scripts/setup.sh run|test" >&2
  exit 2
fi

# 1. Debian packages (list in scripts/debian-packages.txt).
mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/debian-packages.txt)
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "== installing ${#missing[@]} missing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "These Debian packages are missing: ${missing[*]}" >&2
    echo "Install them as root, then run this command again:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

# 2. Release build with CMake presets (Ninja, build/release).
jobs="$(nproc 2>/dev/null || echo 2)"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"

# 3. Start the app, or run the whole test suite (GUI tests use xvfb-run themselves).
if [[ "$mode" == "run" ]]; then
  exec build/release/app/poslab
fi
start=$SECONDS
ctest --preset release -j "$jobs"
echo "== release suite: $((SECONDS - start)) s"

# 4. Sanitizers and fuzzing. One clang tree serves both: ASan + UBSan (undefined behaviour
#    is fatal) with libFuzzer coverage. The GUI is left out here: under ASan, Mesa's
#    software OpenGL makes the GUI tests several times slower, and the GUI's own code is
#    covered by `cmake --preset asan` (gcc, everything) for those who run it.
if [[ "${POSLAB_SANITIZE_RUN:-1}" != 0 ]]; then
  start=$SECONDS
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs"
  ctest --preset fuzz -j "$jobs"
  echo "== sanitizer suite: $((SECONDS - start)) s"
  start=$SECONDS
  for name in $(scripts/fuzz.sh list); do
    scripts/fuzz.sh "$name" "${POSLAB_FUZZ_SECONDS:-5}"
  done
  echo "== fuzzing: $((SECONDS - start)) s"
fi
