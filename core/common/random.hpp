// PosLab's one random module: reproducible numbers for every lab and model. Every seeded
// quantity (a token's content vector, a head's W_q, one learned position row, one weight
// tensor of the world model) has its own stream keyed by (seed, purpose, index), so changing
// one size never reshuffles the others. The same numbers come out on every platform (no
// std:: distributions, whose output is unspecified by the standard).
#pragma once
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>
#include <utility>

namespace poslab {

// SplitMix64's increment ("golden gamma"): 2^64 / phi rounded to odd. Every stream of the
// project steps by it; this is its only definition.
inline constexpr uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ULL;

// SplitMix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix.
inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// One SplitMix64 step from x: mix(x + golden gamma).
inline uint64_t splitmix64(uint64_t x) {
  return splitmix64_mix(x + kSplitMix64Gamma);
}

// The top 53 bits of x as a double in [0, 1).
inline double unit_double(uint64_t x) {
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

// Box-Muller: two independent standard normals from u1 in (0, 1] (so the log is finite)
// and u2 in [0, 1). Only std::log/sqrt/cos/sin, which glibc computes identically on
// every x86-64 machine; no std:: distribution.
inline std::pair<double, double> box_muller(double u1, double u2) {
  const double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * std::numbers::pi * u2;
  return {r * std::cos(a), r * std::sin(a)};
}

// A bare SplitMix64 counter stream from a raw 64-bit state (the quiz generators and the
// KV model's weights use it with their historical seeding; new code keys a SeededStream).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next_u64() {
    state_ += kSplitMix64Gamma;
    return splitmix64_mix(state_);
  }
  double uniform() { return unit_double(next_u64()); }  // [0, 1)

 private:
  uint64_t state_;
};

// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator with good 64-bit mixing.
class SeededStream {
 public:
  SeededStream(uint64_t seed, std::string_view purpose, uint64_t index)
      : state_(mix(seed ^ mix(hash_text(purpose) ^ mix(index + 0x632be59bd9b4e019ULL)))) {}

  uint64_t next_u64() {
    state_ += kSplitMix64Gamma;
    return mix(state_);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return unit_double(next_u64()); }
  // Standard normal by Box-Muller (one value per call; the partner is discarded).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
    const double u2 = uniform();
    return box_muller(u1, u2).first;
  }

  // FNV-1a over the bytes of a text (token strings, purposes).
  static uint64_t hash_text(std::string_view text) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
    return h;
  }

 private:
  static uint64_t mix(uint64_t z) { return splitmix64_mix(z); }
  uint64_t state_;
};

}  // namespace poslab
