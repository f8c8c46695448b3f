// core/common/charconv's printf/strtod fallback (the web build's float text) against the
// standard library's std::to_chars / std::from_chars: the same text for every value, so
// a preset or a number written in the browser reads and compares the same natively.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/common/charconv.hpp"
#include "core/common/random.hpp"

namespace {

using poslab::chars::from_chars_fallback;
using poslab::chars::to_chars_fallback;

std::string std_text(double v, int fmt) {  // fmt: -1 shortest, else a std::chars_format
  char buf[400];
  const auto r = fmt < 0
                     ? std::to_chars(buf, buf + sizeof buf, v)
                     : std::to_chars(buf, buf + sizeof buf, v, static_cast<std::chars_format>(fmt));
  return std::string(buf, r.ptr);
}
std::string fallback_text(double v, int fmt) {
  char buf[400];
  const auto r =
      fmt < 0 ? to_chars_fallback(buf, buf + sizeof buf, v)
              : to_chars_fallback(buf, buf + sizeof buf, v, static_cast<std::chars_format>(fmt));
  return std::string(buf, r.ptr);
}

// Values a lab writes (round numbers, positions, ranges' ends), the edges of double, and
// random bit patterns over every exponent.
std::vector<double> sample_values() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.1,
                           0.5,
                           1e-4,
                           1e-5,
                           123456.0,
                           1e15,
                           1e16,
                           1e17,
                           1e21,
                           1e22,
                           1e23,
                           0.3,
                           2.5e-7,
                           10000.0,
                           5e5,
                           1e6,
                           0.001,
                           183.105,
                           1234567.0,
                           1e100,
                           1e-300,
                           65536.0,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::epsilon(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  for (int e = -30; e <= 30; ++e)
    for (double m : {1.0, 1.5, 2.0, 3.14159, 9.999999}) v.push_back(m * std::pow(10.0, e));
  for (int i = 0; i <= 2000; ++i) v.push_back(i * 0.01);  // slider steps
  poslab::SplitMix64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng.next_u64();
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) v.push_back(d);
  }
  for (int i = 0; i < 5000; ++i) v.push_back(rng.uniform() * 1000.0 - 500.0);
  return v;
}

}  // namespace

TEST_CASE("charconv fallback writes what std::to_chars writes", "[charconv]") {
  for (double v : sample_values()) {
    INFO("value bits " << std::hexfloat << v);
    REQUIRE(fallback_text(v, -1) == std_text(v, -1));
    REQUIRE(fallback_text(v, static_cast<int>(std::chars_format::scientific)) ==
            std_text(v, static_cast<int>(std::chars_format::scientific)));
    if (std::fabs(v) < 1e15)  // the lab's fixed range (rope_wheels_panel's position_text)
      REQUIRE(fallback_text(v, static_cast<int>(std::chars_format::fixed)) ==
              std_text(v, static_cast<int>(std::chars_format::fixed)));
    REQUIRE(fallback_text(v, static_cast<int>(std::chars_format::general)) ==
            std_text(v, static_cast<int>(std::chars_format::general)));
  }
}

TEST_CASE("charconv fallback reads what std::from_chars reads", "[charconv]") {
  std::vector<std::string> texts = {"0",    "-0",       "1",       "1.5",    ".5",    "5.",
                                    "1e3",  "1e",       "1e+",     "2.5E-7", "abc",   "",
                                    "-",    "+1",       " 1",      "0x10",   "inf",   "-infinity",
                                    "nan",  "nan(x1)",  "1e400",   "1e-400", "12abc", "1.2.3",
                                    "-.e1", "4.9e-324", "183.105", "00012",  "1e0010"};
  for (double v : sample_values()) texts.push_back(std_text(v, -1));
  for (const std::string& t : texts) {
    INFO("text '" << t << "'");
    double a = -7, b = -7;
    const auto ra = std::from_chars(t.data(), t.data() + t.size(), a);
    const auto rb = from_chars_fallback(t.data(), t.data() + t.size(), b);
    REQUIRE(static_cast<int>(ra.ec) == static_cast<int>(rb.ec));
    REQUIRE(ra.ptr == rb.ptr);
    if (ra.ec == std::errc() && !std::isnan(a)) REQUIRE(std::memcmp(&a, &b, sizeof a) == 0);
  }
}
