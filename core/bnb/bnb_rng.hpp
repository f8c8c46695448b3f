// The random numbers of Boost and Broadside: a seeded std::mt19937_64 (its output sequence
// is fixed by the C++ standard) with our own uniform, Gaussian and Beta code on top, so a
// seed gives the same episode with every standard library. (std::normal_distribution and
// friends are implementation-defined; we do not use them.) Only std::log/cos/sin/sqrt
// remain, which glibc computes identically on every x86-64 machine.
#pragma once
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <utility>

namespace poslab::bnb {

// SplitMix64: turns one seed into well-mixed independent seeds (stream k of seed s is
// splitmix64(s + k * golden)). Used to give the simulator and the behaviour policy their
// own streams from one episode seed.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  return splitmix64(seed + stream * 0x9E3779B97F4A7C15ull);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : gen_(seed) {}

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n), n >= 1 (multiply-shift; bias < 2^-53 · n, irrelevant here).
  int uniform_int(int n) { return static_cast<int>(uniform() * n); }
  // Two independent standard normals (Box-Muller; u1 in (0, 1] so the log is finite).
  std::pair<double, double> normal_pair() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), th = 2.0 * std::numbers::pi * u2;
    return {r * std::cos(th), r * std::sin(th)};
  }
  // Beta(2, 6) as the 2nd smallest of 7 uniforms (the k-th order statistic of n uniforms
  // is Beta(k, n + 1 - k)). Mean 0.25.
  double beta_2_6() {
    double lo1 = 2.0, lo2 = 2.0;  // smallest and second smallest so far
    for (int i = 0; i < 7; ++i) {
      const double u = uniform();
      if (u < lo1) {
        lo2 = lo1;
        lo1 = u;
      } else if (u < lo2) {
        lo2 = u;
      }
    }
    return lo2;
  }

 private:
  std::mt19937_64 gen_;
};

}  // namespace poslab::bnb
