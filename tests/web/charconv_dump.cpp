// Prints poslab::chars::to_chars of 3,000 random doubles (every exponent) and whether each
// reads back exactly through poslab::chars::from_chars. tests/web/web_test.mjs builds it
// natively (std::to_chars) and with emscripten (the printf/strtod fallback on the browser's
// libc) and requires the same text: what the browser writes into a preset, native reads.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/common/charconv.hpp"

int main() {
  uint64_t state = 7;
  char buf[400];
  for (int i = 0; i < 3000; ++i) {
    state += 0x9E3779B97F4A7C15ull;  // SplitMix64, written out: this file needs only charconv
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double d = 0;
    std::memcpy(&d, &z, sizeof d);
    if (d != d) continue;  // NaN payloads print alike but compare unequal
    const auto w = poslab::chars::to_chars(buf, buf + sizeof buf, d);
    double back = 0;
    const auto r = poslab::chars::from_chars(buf, w.ptr, back);
    std::printf("%.*s %d\n", static_cast<int>(w.ptr - buf), buf, back == d && r.ptr == w.ptr);
  }
}
