// The one random module: the streams the quizzes, the KV model and Boost and Broadside
// used before they moved onto core/common/random.hpp still give the same numbers (their
// historical formulas are written out here as the reference), and the normal is normal.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "core/bnb/bnb_rng.hpp"
#include "core/common/random.hpp"

using namespace poslab;

namespace {
// SplitMix64 as the quiz generators and the KV model wrote it before the move.
uint64_t old_next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

TEST_CASE("random: SplitMix64 gives the quiz and KV streams of before the move") {
  for (uint64_t seed : {0ull, 1ull, 12345ull, 0xffffffffffffffffull}) {
    uint64_t old = seed;
    SplitMix64 s(seed);
    for (int i = 0; i < 100; ++i) REQUIRE(s.next_u64() == old_next(old));
  }
  // Published first output of SplitMix64 seeded with 0 (Vigna's reference implementation).
  CHECK(SplitMix64(0).next_u64() == 0xe220a8397b1dcdafull);
}

TEST_CASE("random: Box-Muller keeps the KV model's and the arena's normals") {
  uint64_t old = 7 * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  SplitMix64 s(old);
  for (int i = 0; i < 50; ++i) {
    const double u1 = (static_cast<double>(old_next(old) >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(old_next(old) >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * std::numbers::pi * u2;
    const double v1 = (static_cast<double>(s.next_u64() >> 11) + 1.0) * 0x1.0p-53;
    const auto [x, y] = box_muller(v1, s.uniform());
    REQUIRE(x == r * std::cos(a));
    REQUIRE(y == r * std::sin(a));
  }
  // The arena's engine is mt19937_64 (fixed by the standard): its 10000th output.
  std::mt19937_64 ref;
  ref.discard(9999);
  CHECK(ref() == 9981545732273789042ull);
  bnb::Rng rng(5489);
  std::mt19937_64 gen(5489);
  for (int i = 0; i < 20; ++i) {
    const double u1 = 1.0 - static_cast<double>(gen() >> 11) * 0x1.0p-53;
    const double u2 = static_cast<double>(gen() >> 11) * 0x1.0p-53;
    const auto [x, y] = rng.normal_pair();
    REQUIRE(x == std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
    REQUIRE(y == std::sqrt(-2.0 * std::log(u1)) * std::sin(2.0 * std::numbers::pi * u2));
  }
}

TEST_CASE("random: the portable normal has mean 0 and variance 1") {
  SeededStream s(42, "moments", 0);
  const int n = 200000;
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const double x = s.normal();
    sum += x;
    sq += x * x;
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  CHECK(std::abs(mean) < 5.0 / std::sqrt(n));  // 5 standard errors
  CHECK(var == Approx(1.0).margin(0.02));
}
