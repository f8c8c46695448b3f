#!/usr/bin/env bash
# PosLab in the browser: builds the app as WebAssembly with Debian's emscripten in build/web;
# the site (exactly its files: poslab.html, .js, .wasm, .data, the models fetched on demand,
# README.md on hosting it) is build/web/site, and build/web/poslab-site.tar.gz, from the
# same core/, io/ and app/ sources as the desktop build (POSLAB_WEB, cmake/poslab_web.cmake).
#   scripts/web_build.sh          sources, configure, build
#   scripts/web_build.sh serve    the same, then serve it on http://127.0.0.1:8765/
# Needs the packages of scripts/debian-packages-web.txt (scripts/setup.sh web installs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${POSLAB_WEB_BUILD:-build/web}"  # another folder: measurements, a clean build

# Debian's emscripten runs its JavaScript tools with node and needs Debian's node modules
# (acorn, ...) when the machine's node is another one.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
command -v emcmake >/dev/null || {
  echo "emcmake not found: install the web packages (scripts/setup.sh web)" >&2
  exit 1
}

scripts/web_sources.sh "$build"
launcher=()
# A compiler cache inside the build folder (unless CCACHE_DIR names another): a rebuild of
# a kept build/web, in CI too, compiles only what changed.
export CCACHE_DIR="${CCACHE_DIR:-$PWD/$build/ccache}"
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [[ ! -f "$build/build.ninja" ]]; then
  emcmake cmake -S . -B "$build" -G Ninja -DPOSLAB_WEB=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 \
    "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
ls -l "$build"/site/poslab.{html,js,wasm,data} "$build"/poslab-site.tar.gz |
  awk '{ printf "%10d  %s\n", $5, $9 }'
if [[ "${1:-}" == "serve" ]]; then
  exec python3 scripts/web_serve.py "$build/site"
fi
