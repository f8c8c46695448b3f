// The printf/strtod fallback of charconv.hpp (used where the standard library lacks the
// floating-point std::to_chars / std::from_chars).
#include "core/common/charconv.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace poslab::chars {
namespace {

// The shortest decimal digits that read back to v > 0 (finite): digits "d1d2...dn" (no
// trailing zeros but the first) and the decimal exponent of d1 (v = d1.d2...dn * 10^exp).
// %.*e rounds correctly, so the first precision that round-trips gives the nearest of the
// shortest digit strings, as std::to_chars does.
void shortest_digits(double v, std::string& digits, int& exp10) {
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    if (std::strtod(buf, nullptr) == v || p == 17) break;
  }
  const char* e = std::strchr(buf, 'e');
  digits.clear();
  for (const char* c = buf; c < e; ++c)
    if (*c != '.') digits += *c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  exp10 = std::atoi(e + 1);
}

std::string scientific_text(const std::string& d, int exp10) {
  std::string s(1, d[0]);
  if (d.size() > 1) s.append(1, '.').append(d, 1);
  char e[16];
  std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
  return s.append(e);
}

// `v` (> 0) in fixed form from its shortest digits; a whole number is written exactly, as
// %f writes it (std::to_chars too: 999999900000000128, not ...100).
std::string fixed_text(const std::string& d, int exp10, double v) {
  const size_t n = d.size();
  std::string s;
  if (exp10 < 0) return s.append("0.").append(static_cast<size_t>(-exp10 - 1), '0').append(d);
  const size_t whole = static_cast<size_t>(exp10) + 1;  // digits before the point
  if (whole >= n) {
    std::vector<char> buf(whole + 8);
    std::snprintf(buf.data(), buf.size(), "%.0f", v);
    return s.append(buf.data());
  }
  return s.append(d, 0, whole).append(1, '.').append(d, whole);
}

std::to_chars_result put(char* first, char* last, const std::string& s) {
  if (static_cast<size_t>(last - first) < s.size()) return {last, std::errc::value_too_large};
  std::memcpy(first, s.data(), s.size());
  return {first + s.size(), std::errc()};
}

// Text of a non-finite value or zero as std writes it; empty for any other value.
std::string special_text(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  return "";
}

enum class Form { shortest, fixed, scientific, general };

std::to_chars_result convert(char* first, char* last, double v, Form form) {
  std::string special = special_text(v);
  if (!special.empty()) {
    if (v == 0 && form == Form::scientific) special += "e+00";
    return put(first, last, special);
  }
  std::string digits;
  int exp10 = 0;
  shortest_digits(std::fabs(v), digits, exp10);
  const std::string sign = v < 0 ? "-" : "";
  const std::string fixed = fixed_text(digits, exp10, std::fabs(v)),
                    sci = scientific_text(digits, exp10);
  switch (form) {
    case Form::fixed:
      return put(first, last, sign + fixed);
    case Form::scientific:
      return put(first, last, sign + sci);
    case Form::general: {
      // %g's rule with its default precision 6 (what libstdc++ does for the shortest
      // general form): scientific when exp10 < -4 or exp10 >= 6.
      return put(first, last, sign + (exp10 < -4 || exp10 >= 6 ? sci : fixed));
    }
    case Form::shortest:
      break;
  }
  return put(first, last, sign + (sci.size() < fixed.size() ? sci : fixed));
}

}  // namespace

std::to_chars_result to_chars_fallback(char* first, char* last, double v) {
  return convert(first, last, v, Form::shortest);
}

std::to_chars_result to_chars_fallback(char* first, char* last, double v, std::chars_format fmt) {
  switch (fmt) {
    case std::chars_format::fixed:
      return convert(first, last, v, Form::fixed);
    case std::chars_format::scientific:
      return convert(first, last, v, Form::scientific);
    default:
      return convert(first, last, v, Form::general);
  }
}

std::from_chars_result from_chars_fallback(const char* first, const char* last, double& v) {
  // The longest prefix of the form std::from_chars reads: [-] (digits [. digits] | . digits)
  // [(e|E) [+|-] digits], or [-] inf, infinity, nan, nan(chars); strtod reads it.
  const char* p = first;
  if (p < last && *p == '-') ++p;
  const auto is_digit = [&](const char* c) { return c < last && *c >= '0' && *c <= '9'; };
  const auto starts = [&](const char* c, const char* word) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(last - c) < n) return false;
    for (size_t i = 0; i < n; ++i)
      if ((c[i] | 0x20) != word[i]) return false;
    return true;
  };
  const char* end = p;
  if (starts(p, "infinity")) {
    end = p + 8;
  } else if (starts(p, "inf")) {
    end = p + 3;
  } else if (starts(p, "nan")) {
    end = p + 3;
    if (end < last && *end == '(') {
      const char* q = end + 1;
      while (q < last && (std::isalnum(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
      if (q < last && *q == ')') end = q + 1;
    }
  } else {
    const char* q = p;
    bool any = false;
    while (is_digit(q)) ++q, any = true;
    if (q < last && *q == '.') {
      ++q;
      while (is_digit(q)) ++q, any = true;
    }
    if (!any) return {first, std::errc::invalid_argument};
    end = q;
    if (q < last && (*q == 'e' || *q == 'E')) {
      const char* r = q + 1;
      if (r < last && (*r == '+' || *r == '-')) ++r;
      if (is_digit(r)) {
        while (is_digit(r)) ++r;
        end = r;
      }
    }
  }
  const std::string text(first, end);
  errno = 0;
  const double x = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE && (std::isinf(x) || x == 0)) return {end, std::errc::result_out_of_range};
  v = x;
  return {end, std::errc()};
}

}  // namespace poslab::chars
