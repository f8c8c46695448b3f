// RoPE invariants and independent reference values, swept over extreme parameters
// (head dim 2..512, base 2..1e9, positions up to 1e7). Every failure names its parameters.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>

#include "core/common/errors.hpp"
#include "core/rope/rope.hpp"

using namespace poslab;

namespace {

constexpr double kPi = std::numbers::pi;

Eigen::VectorXd random_vector(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = g(rng);
  return v;
}

RowMatrix as_row(const Eigen::VectorXd& v) {
  return v.transpose();
}

std::string describe(const RopeParams& p) {
  return "head_dim=" + std::to_string(p.head_dim) + " base=" + std::to_string(p.base) +
         " layout=" + rope_layout_names()[static_cast<int>(p.layout)] +
         " scaling=" + rope_scaling_names()[static_cast<int>(p.scaling)] +
         " factor=" + std::to_string(p.factor);
}

const int kDims[] = {2, 4, 6, 64, 128, 512};
const double kBases[] = {2.0, 10000.0, 500000.0, 1e9};
const double kPositions[] = {0.0, 1.0, 37.0, 4096.0, 123456.0, 1e7};

}  // namespace

TEST_CASE("rotations keep norms, for both layouts and every scaling") {
  for (int d : kDims)
    for (double b : kBases)
      for (auto layout : {RopeLayout::interleaved, RopeLayout::half_split})
        for (int sc = 0; sc < 6; ++sc) {
          RopeParams p;
          p.head_dim = d;
          p.base = b;
          p.layout = layout;
          p.scaling = static_cast<RopeScaling>(sc);
          const Eigen::VectorXd x = random_vector(d, d + sc);
          for (double m : kPositions) {
            INFO(describe(p) << " position=" << m);
            CHECK(rope_apply(p, x, m).norm() == Approx(x.norm()).epsilon(1e-12));
          }
        }
}

TEST_CASE("scores depend only on n - m, even at positions near 1e7") {
  for (int d : kDims)
    for (double b : kBases)
      for (auto layout : {RopeLayout::interleaved, RopeLayout::half_split}) {
        RopeParams p;
        p.head_dim = d;
        p.base = b;
        p.layout = layout;
        const Eigen::VectorXd q = random_vector(d, 1), k = random_vector(d, 2);
        for (double m : kPositions)
          for (double delta : {0.0, 1.0, 3.0, 1000.0}) {
            INFO(describe(p) << " m=" << m << " delta=" << delta);
            const double shifted = rope_apply(p, q, m).dot(rope_apply(p, k, m + delta));
            const double at_zero = rope_apply(p, q, 0.0).dot(rope_apply(p, k, delta));
            CHECK(shifted == Approx(at_zero).margin(1e-6 * q.norm() * k.norm()));
          }
      }
}

TEST_CASE("the two layouts agree after the dimension permutation") {
  for (int d : kDims)
    for (double b : {10000.0, 1e6}) {
      RopeParams inter, half;
      inter.head_dim = half.head_dim = d;
      inter.base = half.base = b;
      inter.layout = RopeLayout::interleaved;
      half.layout = RopeLayout::half_split;
      const auto perm = rope_interleaved_to_half_permutation(inter);
      auto permute = [&](const Eigen::VectorXd& v) {
        Eigen::VectorXd out(v.size());
        for (int j = 0; j < v.size(); ++j) out[perm[j]] = v[j];
        return out;
      };
      const Eigen::VectorXd q = random_vector(d, 3), k = random_vector(d, 4);
      for (double m : {0.0, 5.0, 777.0}) {
        INFO("head_dim=" << d << " base=" << b << " m=" << m);
        CHECK((rope_apply(half, permute(q), m) - permute(rope_apply(inter, q, m))).norm() <
              1e-12 * q.norm() + 1e-15);
        const double s_inter = rope_apply(inter, q, m).dot(rope_apply(inter, k, m + 9));
        const double s_half =
            rope_apply(half, permute(q), m).dot(rope_apply(half, permute(k), m + 9));
        CHECK(s_inter == Approx(s_half).margin(1e-12));
      }
    }
}

TEST_CASE("mixing the layouts is not a rotation (seed 004, defect 1)") {
  RopeParams p;
  p.head_dim = 64;
  const Eigen::VectorXd q = random_vector(64, 5), k = random_vector(64, 6);
  const RowMatrix mixed = rope_apply_mixed_layouts(p, as_row(q), {10.0});
  CHECK(std::abs(mixed.row(0).norm() - q.norm()) > 1e-3 * q.norm());
  const double s1 = rope_apply_mixed_layouts(p, as_row(q), {10.0})
                        .row(0)
                        .dot(rope_apply_mixed_layouts(p, as_row(k), {13.0}).row(0));
  const double s2 = rope_apply_mixed_layouts(p, as_row(q), {110.0})
                        .row(0)
                        .dot(rope_apply_mixed_layouts(p, as_row(k), {113.0}).row(0));
  CHECK(std::abs(s1 - s2) > 1e-3);
}

TEST_CASE("inverse after forward is the identity - re-encoding is one rotation by the difference") {
  for (int d : kDims)
    for (auto layout : {RopeLayout::interleaved, RopeLayout::half_split})
      for (int sc = 0; sc < 6; ++sc) {
        RopeParams p;
        p.head_dim = d;
        p.layout = layout;
        p.scaling = static_cast<RopeScaling>(sc);
        RowMatrix x(4, d);
        for (int t = 0; t < 4; ++t) x.row(t) = random_vector(d, 10 + t).transpose();
        const std::vector<double> old_pos{180, 181, 0, 1e7}, new_pos{0, 1, 2, 3};
        INFO(describe(p));
        const RowMatrix roundtrip = rope_apply_inverse(p, rope_apply(p, x, old_pos), old_pos);
        CHECK((roundtrip - x).norm() < 1e-9 * x.norm());
        const RowMatrix stored = rope_apply(p, x, old_pos);
        const RowMatrix moved = rope_reencode(p, stored, old_pos, new_pos);
        CHECK((moved - rope_apply(p, x, new_pos)).norm() < 1e-7 * x.norm());
      }
}

TEST_CASE("YaRN pitfall: inverting with temperature-scaled tables multiplies by s^2") {
  RopeParams p;
  p.scaling = RopeScaling::yarn;
  p.factor = 16;
  const double mscale = 0.1 * std::log(16.0) + 1.0;
  REQUIRE(rope_attention_scale(p) == Approx(mscale));
  RowMatrix x = as_row(random_vector(p.head_dim, 7));
  const std::vector<double> pos{42};
  const RowMatrix back = rope_apply_inverse(p, rope_apply(p, x, pos, true), pos, true);
  CHECK((back - mscale * mscale * x).norm() < 1e-9 * x.norm());
  CHECK((back - x).norm() > 0.1 * x.norm());
}

TEST_CASE("wavelengths match the reference example d = 128, b = 1e4") {
  RopeParams p;
  p.head_dim = 128;
  p.base = 1e4;
  const Eigen::VectorXd lambda = rope_wavelengths(rope_inv_freq_original(p));
  CHECK(lambda[0] == Approx(2 * kPi));
  CHECK(lambda[20] == Approx(111.7).epsilon(1e-3));
  CHECK(lambda[63] == Approx(54410).epsilon(1e-3));
  // Pair 0 is the fastest: wavelengths grow with the pair index.
  for (int i = 1; i < lambda.size(); ++i) CHECK(lambda[i] > lambda[i - 1]);
}

TEST_CASE("wavelengths follow 2*pi*b^(2i/d) across the sweep") {
  for (int d : kDims)
    for (double b : kBases) {
      RopeParams p;
      p.head_dim = d;
      p.base = b;
      const Eigen::VectorXd lambda = rope_wavelengths(rope_inv_freq_original(p));
      for (int i = 0; i < d / 2; ++i) {
        INFO("d=" << d << " b=" << b << " i=" << i);
        CHECK(lambda[i] == Approx(2 * kPi * std::exp(2.0 * i / d * std::log(b))).epsilon(1e-12));
      }
    }
}

TEST_CASE("PI divides every frequency by s") {
  RopeParams p;
  p.scaling = RopeScaling::linear;
  p.factor = 4;
  CHECK((rope_inv_freq(p) - rope_inv_freq_original(p) / 4.0).norm() < 1e-15);
}

TEST_CASE("NTK-aware base b*s^(d/(d-2)) - dynamic NTK only past L") {
  for (int d : {4, 64, 128, 512})
    for (double b : kBases)
      for (double s : {1.0, 2.0, 8.0, 64.0}) {
        RopeParams p;
        p.head_dim = d;
        p.base = b;
        p.factor = s;
        p.scaling = RopeScaling::ntk;
        INFO("d=" << d << " b=" << b << " s=" << s);
        const double expected = std::exp(std::log(b) + std::log(s) * d / (d - 2.0));
        CHECK(rope_effective_base(p) == Approx(expected).epsilon(1e-12));
        // The slowest pair ends up exactly s times slower; pair 0 is untouched.
        const Eigen::VectorXd inv = rope_inv_freq(p), inv0 = rope_inv_freq_original(p);
        CHECK(inv[0] == Approx(1.0));
        CHECK(inv[d / 2 - 1] == Approx(inv0[d / 2 - 1] / s).epsilon(1e-9));
      }
  RopeParams p;
  p.scaling = RopeScaling::dynamic_ntk;
  p.factor = 2;
  p.original_context = 4096;
  p.current_length = 2000;
  CHECK(rope_effective_base(p) == p.base);
  p.current_length = 8192;  // s*Lc/L - (s-1) = 3
  CHECK(rope_effective_base(p) == Approx(1e4 * std::pow(3.0, 128.0 / 126.0)));
}

TEST_CASE("YaRN bounds: hand-computed values and the turns rule across a sweep") {
  RopeParams p;
  p.head_dim = 128;
  p.base = 1e4;
  p.original_context = 4096;
  p.scaling = RopeScaling::yarn;
  p.factor = 16;
  // 128 ln(4096/(32*2pi)) / (2 ln 1e4) = 20.94; 128 ln(4096/(2pi)) / (2 ln 1e4) = 45.03.
  const YarnBounds b = rope_yarn_bounds(p);
  CHECK(b.low_dim == Approx(20.94).epsilon(1e-3));
  CHECK(b.high_dim == Approx(45.03).epsilon(1e-3));
  CHECK(b.low == 20);
  CHECK(b.high == 46);

  for (int d : kDims)
    for (double base : kBases)
      for (int L : {16, 2048, 4096, 131072}) {
        RopeParams q;
        q.head_dim = d;
        q.base = base;
        q.original_context = L;
        q.scaling = RopeScaling::yarn;
        q.factor = 8;
        const Eigen::VectorXd turns = rope_turns_in_context(q), keep = rope_yarn_keep(q);
        const Eigen::VectorXd inv = rope_inv_freq(q), inv0 = rope_inv_freq_original(q);
        for (int i = 0; i < d / 2; ++i) {
          INFO("d=" << d << " base=" << base << " L=" << L << " pair=" << i
                    << " turns=" << turns[i]);
          // More than beta_fast turns in the context: kept. Fewer than beta_slow: interpolated.
          if (turns[i] > q.yarn_beta_fast) CHECK(keep[i] == 1.0);
          if (turns[i] < q.yarn_beta_slow) CHECK(keep[i] == 0.0);
          CHECK(inv[i] <= inv0[i] * (1 + 1e-12));
          CHECK(inv[i] >= inv0[i] / 8 * (1 - 1e-12));
        }
      }
}

TEST_CASE("llama3 scaling: short wavelengths kept, long ones divided by s, blend between") {
  RopeParams p;
  p.head_dim = 128;
  p.base = 500000;
  p.scaling = RopeScaling::llama3;
  p.factor = 8;
  p.original_context = 8192;
  const Eigen::VectorXd inv0 = rope_inv_freq_original(p), inv = rope_inv_freq(p);
  int blended = 0;
  for (int i = 0; i < 64; ++i) {
    const double lambda = 2 * kPi / inv0[i];
    INFO("pair " << i << " wavelength " << lambda);
    if (lambda < 2048)
      CHECK(inv[i] == inv0[i]);
    else if (lambda > 8192)
      CHECK(inv[i] == Approx(inv0[i] / 8));
    else {
      const double smooth = (8192 / lambda - 1.0) / 3.0;
      CHECK(inv[i] == Approx(smooth * inv0[i] + (1 - smooth) * inv0[i] / 8));
      ++blended;
    }
  }
  CHECK(blended > 0);
}

TEST_CASE("partial rotary leaves the tail of the head untouched") {
  RopeParams p;
  p.head_dim = 64;
  p.rotary_fraction = 0.25;
  CHECK(rope_rotary_dim(p) == 16);
  const Eigen::VectorXd x = random_vector(64, 8);
  const Eigen::VectorXd y = rope_apply(p, x, 99.0);
  CHECK((y.tail(48) - x.tail(48)).norm() == 0.0);
  CHECK((y.head(16) - x.head(16)).norm() > 1e-3);
}

TEST_CASE("score vs distance with q = k = ones is sum of 2 cos(delta * theta_i)") {
  RopeParams p;
  p.head_dim = 32;
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(32);
  const std::vector<double> deltas{0, 1, 10, 100, 1000};
  const Eigen::VectorXd s = rope_score_vs_distance(p, ones, ones, deltas);
  for (size_t t = 0; t < deltas.size(); ++t) {
    double expected = 0;
    for (int i = 0; i < 16; ++i) expected += 2 * std::cos(deltas[t] * std::pow(1e4, -2.0 * i / 32));
    CHECK(s[t] == Approx(expected).margin(1e-9));
  }
}

TEST_CASE("invalid parameters are rejected with the value named") {
  RopeParams p;
  p.head_dim = 3;
  CHECK_THROWS_WITH(rope_validate(p), Catch::Contains("head_dim = 3"));
  p = {};
  p.base = 1.0;
  CHECK_THROWS_WITH(rope_validate(p), Catch::Contains("base = 1"));
  p = {};
  p.factor = 0;
  CHECK_THROWS_WITH(rope_validate(p), Catch::Contains("factor = 0"));
  p = {};
  p.base = std::nan("");
  CHECK_THROWS_AS(rope_validate(p), InputError);
  CHECK_THROWS_WITH(rope_layout_from_name("diagonal"), Catch::Contains("diagonal"));
}

TEST_CASE("RoFormer's relative upper bound bounds every pair's score and starts at (P+1)/2") {
  // Issue 40: the decay demo on random weights plots this bound, not one noisy pair. The
  // Abel-summation bound: |score(d)| <= max_i |h_(i+1) - h_i| * sum_j |S_j(d)| (h_P = 0),
  // h_i = the complex product of pair i of q and conj(pair i of k) (interleaved layout).
  std::vector<double> deltas;
  for (int d = 0; d <= 600; d += 7) deltas.push_back(d);
  for (const int dim : {2, 16, 64, 128}) {
    for (const double base : {100.0, 10000.0}) {
      RopeParams p;
      p.head_dim = dim;
      p.base = base;
      p.layout = RopeLayout::interleaved;
      const int P = dim / 2;
      INFO("head_dim " << dim << ", base " << base);
      const std::vector<double> bound = rope_relative_upper_bound(p, deltas);
      REQUIRE(bound.size() == deltas.size());
      CHECK(bound[0] == Approx((P + 1) / 2.0));
      if (P == 1)
        for (const double b : bound) CHECK(b == Approx(1.0));  // |S_1| = 1 at every distance
      for (unsigned seed = 1; seed <= 5; ++seed) {
        const Eigen::VectorXd q = random_vector(dim, seed), k = random_vector(dim, 100 + seed);
        double m = 0;
        for (int i = 0; i < P; ++i) {
          const std::complex<double> hi(q(2 * i), q(2 * i + 1));
          const std::complex<double> ki(k(2 * i), k(2 * i + 1));
          std::complex<double> next = 0;
          if (i + 1 < P)
            next = std::complex<double>(q(2 * i + 2), q(2 * i + 3)) *
                   std::conj(std::complex<double>(k(2 * i + 2), k(2 * i + 3)));
          m = std::max(m, std::abs(next - hi * std::conj(ki)));
        }
        const Eigen::VectorXd score = rope_score_vs_distance(p, q, k, deltas);
        for (size_t t = 0; t < deltas.size(); ++t) {
          INFO("seed " << seed << ", delta " << deltas[t]);
          CHECK(std::abs(score(static_cast<Eigen::Index>(t))) <= m * P * bound[t] + 1e-9);
        }
      }
    }
  }
  // It falls: for D = 128 the mean over distances 300..600 is well below its start.
  RopeParams p;
  p.head_dim = 128;
  const std::vector<double> b = rope_relative_upper_bound(p, deltas);
  double tail = 0;
  int n = 0;
  for (size_t t = 0; t < deltas.size(); ++t)
    if (deltas[t] >= 300) tail += b[t], ++n;
  CHECK(tail / n < 0.5 * b[0]);
}
