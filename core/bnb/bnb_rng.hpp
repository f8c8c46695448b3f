// The random numbers of Boost and Broadside: a seeded std::mt19937_64 (its output sequence
// is fixed by the C++ standard) with core/common/random.hpp's uniform and Box-Muller on
// top, so a seed gives the same episode with every standard library. The engine stays
// mt19937_64 (not a SeededStream) so every dataset collected so far replays bit for bit.
#pragma once
#include <cstdint>
#include <random>
#include <utility>

#include "core/common/random.hpp"

namespace poslab::bnb {

// Stream k of seed s is splitmix64(s + k * golden): the simulator and the behaviour
// policy get their own streams from one episode seed.
using poslab::splitmix64;
inline uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  return splitmix64(seed + stream * kSplitMix64Gamma);
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : gen_(seed) {}

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return unit_double(gen_()); }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n), n >= 1 (multiply-shift; bias < 2^-53 · n, irrelevant here).
  int uniform_int(int n) { return static_cast<int>(uniform() * n); }
  // Two independent standard normals (Box-Muller; u1 in (0, 1] so the log is finite).
  std::pair<double, double> normal_pair() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return box_muller(u1, u2);
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
