#!/usr/bin/env bash
# PosLab set-up on Debian 12, in one command:
#   scripts/setup.sh run    install what is missing, build (release), start the app
#   scripts/setup.sh test   install what is missing, build (release), run every test;
#                           with POSLAB_SANITIZE_RUN=1 also the sanitizer run: the tests
#                           labelled 'sanitize' under ASan + UBSan (build/sanitize) and
#                           every libFuzzer harness for POSLAB_FUZZ_SECONDS (default 5) each;
#                           with POSLAB_WEB_TESTS=1 also the browser build and its tests
#   scripts/setup.sh web    install what is missing (also scripts/debian-packages-web.txt),
#                           build the browser version (build/web), serve it on 127.0.0.1
# Safe to run again: installs only missing packages, rebuilds only what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mode="${1:-}"
if [[ "$mode" != "run" && "$mode" != "test" && "$mode" != "web" ]]; then
  echo "usage: scripts/setup.sh run|test|web" >&2
  exit 2
fi
web_tests="${POSLAB_WEB_TESTS:-0}"

# 1. Debian packages (list in scripts/debian-packages.txt; the browser build's in
#    scripts/debian-packages-web.txt, only for `web` and POSLAB_WEB_TESTS=1).
lists=(scripts/debian-packages.txt)
[[ "$mode" == "web" || "$web_tests" == 1 ]] && lists+=(scripts/debian-packages-web.txt)
mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${lists[@]}")
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" && continue
  # npm: also present when the machine's node is not Debian's (nodesource's bundles npm,
  # and conflicts with Debian's npm package).
  [[ "$pkg" == npm ]] && command -v npm >/dev/null && continue
  missing+=("$pkg")
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

# 2. Release build with CMake presets (Ninja, build/release). In CI (.ci/run sets
#    POSLAB_SANITIZE_RUN=1) PosLab's own targets build with -Werror (POSLAB_WERROR), on GCC
#    here and clang-14 in the sanitizer tree, so the build stays warning-free; a user's own
#    build keeps warnings as warnings (a newer compiler's new warning must not stop it).
jobs="$(nproc 2>/dev/null || echo 2)"
if [[ "$mode" == "web" ]]; then
  exec scripts/web_build.sh serve
fi
werror=OFF
[[ "${POSLAB_SANITIZE_RUN:-0}" == 1 ]] && werror=ON
cmake --preset release -DPOSLAB_WERROR="$werror" >/dev/null
cmake --build --preset release -j "$jobs"

# 3. Start the app, or run the whole test suite (GUI tests use xvfb-run themselves).
if [[ "$mode" == "run" ]]; then
  # poslab: preset links open this build (desktop handler); never fails the set-up.
  apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
  if mkdir -p "$apps" 2>/dev/null &&
    sed "s|^Exec=poslab|Exec=$PWD/build/release/app/poslab|" packaging/poslab.desktop \
      >"$apps/poslab.desktop" 2>/dev/null; then
    command -v xdg-mime >/dev/null && xdg-mime default poslab.desktop x-scheme-handler/poslab || true
  fi
  exec build/release/app/poslab
fi
# Each timed phase prints its wall time and its CPU-seconds (user + sys of everything it
# ran): the CPU-seconds do not depend on what else the machine is doing.
TIMEFORMAT="%0R s (%0U + %0S CPU-s)"
phase() {  # phase NAME COMMAND...: runs COMMAND, then "== NAME: W s (U + S CPU-s)"
  local name="$1" t
  shift
  { t=$({ time "$@" 1>&3 2>&4; } 2>&1); } 3>&1 4>&2
  echo "== $name: $t"
}
# 4. With POSLAB_SANITIZE_RUN=1 (.ci/run sets it) the sanitizer tree starts building now, at
#    nice 19 beside the release suite: it takes only the CPU the suite leaves idle (its GUI
#    tests spend much of their time waiting for frames and windows), so the suite runs as
#    fast as alone and the build is partly done when the suite ends. Its output goes to
#    build/sanitize-build.log, printed if it fails.
san_pid=""
if [[ "${POSLAB_SANITIZE_RUN:-0}" == 1 ]]; then
  cmake --preset sanitize -DPOSLAB_WERROR="$werror" >/dev/null
  set -m  # its own process group (same session, so nice still ranks it below the suite)
  (time nice -n 19 cmake --build --preset sanitize -j "$jobs" --target poslab_sanitize_run) \
    >build/sanitize-build.log 2>&1 &
  san_pid=$!
  set +m
  trap '[[ -n "$san_pid" ]] && kill -- -"$san_pid" 2>/dev/null; true' EXIT
fi
# With the sanitizer run, the script tests it runs (label 'script': poslab-cli and the
# reliability campaigns, tests/CMakeLists.txt) are left to it: once under ASan + UBSan
# rather than twice.
# clang-tidy over every file (label tidy, many CPU-minutes) is run by hand:
#   ctest --preset release -L tidy
phase "release suite" ctest --preset release -j "$jobs" -LE "tidy${san_pid:+|script}"
# In CI, clang-tidy over the files of core/, io/, cli/ and app/ changed since the commit in
# .ci/tidy-base (the last one checked whole or by change; a stop moves it forward).
if [[ -n "$san_pid" && -f .ci/tidy-base ]]; then
  phase "clang-tidy (changed files)" scripts/clang_tidy.sh build/release --since "$(cat .ci/tidy-base)"
fi

# 4b. With POSLAB_WEB_TESTS=1 (CI sets it, .ci/run): the browser build (build/web,
#     emscripten) and its tests in headless Chromium against this tree's poslab-cli
#     (tests/web/run.sh).
if [[ "$web_tests" == 1 ]]; then
  phase "web build" scripts/web_build.sh
  phase "web tests" tests/web/run.sh build/web build/release/cli/poslab-cli
fi

# 5. Sanitizers and fuzzing (POSLAB_SANITIZE_RUN=1). One clang-14 tree (the 'sanitize'
#    preset: ASan + UBSan, coverage for libFuzzer) builds only the tests labelled 'sanitize'
#    (input parsing, files, the core; not the GUI, whose software OpenGL is several times
#    slower under ASan, nor the world model's training tests) and every fuzz harness; what
#    is left of its build finishes alone now, then its suite runs, then each harness runs
#    POSLAB_FUZZ_SECONDS (default 5) from its seed corpus, $jobs at a time (each is one
#    process, bounded by time).
if [[ -n "$san_pid" ]]; then
  t0=$SECONDS
  if ! wait "$san_pid"; then
    san_pid=""
    cat build/sanitize-build.log
    echo "the sanitizer build failed (log above: build/sanitize-build.log)" >&2
    exit 1
  fi
  san_pid=""
  echo "== sanitizer build: $(tail -n 1 build/sanitize-build.log) in all, of which" \
    "$((SECONDS - t0)) s after the release suite"
  phase "sanitizer suite" ctest --preset sanitize -L sanitize -j "$jobs"
  export POSLAB_FUZZ_PRESET=sanitize POSLAB_FUZZ_NO_BUILD=1
  phase "fuzzing" xargs -P "$jobs" -I NAME scripts/fuzz.sh NAME "${POSLAB_FUZZ_SECONDS:-5}" \
    < <(scripts/fuzz.sh list)
fi
