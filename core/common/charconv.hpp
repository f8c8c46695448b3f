// Floating-point text conversion for every toolchain PosLab builds with: std::to_chars /
// std::from_chars for double where the standard library has them (GCC, clang with
// libstdc++), and a printf/strtod version where it does not (Debian 12's emscripten 3.1.6:
// its libc++ deletes the floating to_chars). Both give the same text: tests/core/charconv_test.cpp
// holds the fallback against std over many values, so a preset written in the browser reads the
// same natively.
#pragma once
#include <charconv>
#if !defined(__EMSCRIPTEN__)
#define POSLAB_STD_FLOAT_CHARCONV 1
#endif

namespace poslab::chars {

// The fallback, compiled everywhere (the test compares it with std where both exist).
// Shortest text that reads back to `v` (as std::to_chars(first, last, v[, fmt])): fixed or
// scientific, whichever is shorter (fixed on a tie); `fmt` forces fixed or scientific, and
// general is %g's rule (precision 6) on the shortest digits. Errors as std: value_too_large,
// `first` kept.
std::to_chars_result to_chars_fallback(char* first, char* last, double v);
std::to_chars_result to_chars_fallback(char* first, char* last, double v, std::chars_format fmt);
// As std::from_chars(first, last, v) (general format): no leading space or '+', no hex.
std::from_chars_result from_chars_fallback(const char* first, const char* last, double& v);

inline std::to_chars_result to_chars(char* first, char* last, double v) {
#ifdef POSLAB_STD_FLOAT_CHARCONV
  return std::to_chars(first, last, v);
#else
  return to_chars_fallback(first, last, v);
#endif
}
inline std::to_chars_result to_chars(char* first, char* last, double v, std::chars_format fmt) {
#ifdef POSLAB_STD_FLOAT_CHARCONV
  return std::to_chars(first, last, v, fmt);
#else
  return to_chars_fallback(first, last, v, fmt);
#endif
}
inline std::from_chars_result from_chars(const char* first, const char* last, double& v) {
#ifdef POSLAB_STD_FLOAT_CHARCONV
  return std::from_chars(first, last, v);
#else
  return from_chars_fallback(first, last, v);
#endif
}

}  // namespace poslab::chars
