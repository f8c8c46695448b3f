#!/usr/bin/env bash
# A benchmark (reports, never gates; not run by CI): the language model's training
# throughput and 8L evaluation (tests/web/kernel_bench.cpp) natively on one thread and in
# WebAssembly under node (V8, Chromium's engine), each web build folder given built with the
# flags of its tree (-msimd128 when POSLAB_WEB_SIMD is on), and the web's share of native.
# CPU seconds, not wall time: the 2-core machine is shared. Numbers: docs/web.md.
#   tests/web/kernel_bench.sh [WEB_BUILD_DIR...]   (default build/web; native: build/release)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
native_lib="${POSLAB_NATIVE_CORE:-build/release/core/libposlab_core.a}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
c++ -std=c++20 -O3 -DNDEBUG -I. -isystem /usr/include/eigen3 tests/web/kernel_bench.cpp "$native_lib" \
  -pthread -o "$out/native"
native="$("$out/native")"
echo "native (1 thread): $native"
field() { sed -E "s/.*\"$1\": ([0-9.]+).*/\1/" <<<"$2"; }
for web in "${@:-build/web}"; do
  simd=()
  grep -q '^POSLAB_WEB_SIMD:BOOL=ON' "$web/CMakeCache.txt" && simd=(-msimd128)
  em++ -std=c++20 -O3 -DNDEBUG "${simd[@]}" -I. -isystem "$web/web_include" -fexceptions \
    tests/web/kernel_bench.cpp "$web/core/libposlab_core.a" -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 \
    -o "$out/web.js"
  r="$(node "$out/web.js")"
  echo "$web (${simd[*]:-no SIMD}): $r"
  awk -v a="$(field train_tokens_per_s "$r")" -v b="$(field train_tokens_per_s "$native")" \
      -v c="$(field eval_8L_ms "$native")" -v d="$(field eval_8L_ms "$r")" \
      'BEGIN { printf "  of native: training %.2f, 8L evaluation %.2f\n", a / b, c / d }'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
