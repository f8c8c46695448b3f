// Colour scales: every scale is monotone in the value, the rank scale spreads distinct
// values uniformly (ties share a position), the log scale takes zeros and spans decades,
// a shared fit covers both maps, legends label both ends in order, and nice tick steps
// are 1, 2, 5 x 10^k and keep axis labels apart.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "core/common/color_scale.hpp"

using namespace poslab;

namespace {

std::vector<float> sample(bool signed_values, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::exponential_distribution<float> e(1.0f);
  std::vector<float> v(n);
  for (auto& x : v) {
    x = std::pow(e(rng), 6.0f) * 1e-3f;  // heavy tail: a few big values, many tiny ones
    if (signed_values && (rng() & 1)) x = -x;
  }
  v[0] = 0;
  v[1] = v[2];  // a tie
  return v;
}

}  // namespace

TEST_CASE("every colour scale is monotone and stays in range") {
  for (ColorScaleKind kind : {ColorScaleKind::linear, ColorScaleKind::log, ColorScaleKind::rank}) {
    for (bool sgn : {false, true}) {
      const std::vector<float> v = sample(sgn, 500, 3);
      const ColorScale s = color_scale_fit(kind, sgn, {v});
      INFO("scale " << color_scale_names()[static_cast<int>(kind)] << ", signed " << sgn);
      std::vector<float> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      double prev = -2;
      for (float x : sorted) {
        const double p = color_scale_position(s, x);
        INFO("value " << x);
        CHECK(p >= prev);
        CHECK(p >= (sgn ? -1.0 : 0.0));
        CHECK(p <= 1.0);
        prev = p;
      }
      CHECK(color_scale_position(s, 0.0) == 0.0);
      CHECK(std::isnan(color_scale_position(s, std::numeric_limits<double>::quiet_NaN())));
      CHECK(std::isnan(color_scale_position(s, -std::numeric_limits<double>::infinity())));
      // Values between samples and beyond the ends stay monotone too (interpolation, clamp).
      double q = -2;
      for (double x = -0.02; x <= 0.02; x += 1e-5) {
        const double p = color_scale_position(s, x);
        CHECK(p >= q);
        q = p;
      }
    }
  }
}

TEST_CASE("the rank scale is uniform on distinct values and ties share a position") {
  const std::vector<float> v{5, 1e-30f, 0.25f, 7, 0.25f, 1000, 3};  // distinct: 6 values
  const ColorScale s = color_scale_fit(ColorScaleKind::rank, false, {v});
  REQUIRE(s.ranked.size() == 6);
  const std::vector<float> p = color_scale_positions(s, v);
  CHECK(p[1] == Approx(0.0));
  CHECK(p[2] == Approx(0.2));
  CHECK(p[4] == p[2]);
  CHECK(p[6] == Approx(0.4));
  CHECK(p[0] == Approx(0.6));
  CHECK(p[3] == Approx(0.8));
  CHECK(p[5] == Approx(1.0));
  // Signed: negatives spread over [-1, 0), positives over (0, 1], 0 stays white.
  const std::vector<float> w{-4, -1, 0, 2, 3, 9};
  const ColorScale d = color_scale_fit(ColorScaleKind::rank, true, {w});
  const std::vector<float> q = color_scale_positions(d, w);
  CHECK(q[0] == Approx(-1.0));
  CHECK(q[1] == Approx(-0.5));
  CHECK(q[2] == 0.0f);
  CHECK(q[3] == Approx(1.0 / 3));
  CHECK(q[4] == Approx(2.0 / 3));
  CHECK(q[5] == Approx(1.0));
  for (size_t i = 0; i < w.size(); ++i) CHECK(color_scale_position(d, w[i]) == Approx(q[i]));
  // A million softmax-like weights spread over the whole bar (the flat-square fix).
  std::vector<float> big = sample(false, 1 << 20, 5);
  const ColorScale b = color_scale_fit(ColorScaleKind::rank, false, {big});
  const std::vector<float> pb = color_scale_positions(b, big);
  double mean = 0, var = 0;
  for (float x : pb) mean += x;
  mean /= static_cast<double>(pb.size());
  for (float x : pb) var += (x - mean) * (x - mean);
  var /= static_cast<double>(pb.size());
  CHECK(mean == Approx(0.5).margin(0.01));
  CHECK(var == Approx(1.0 / 12).margin(0.01));  // uniform on [0, 1]
}

TEST_CASE("the log scale takes zeros and gives each decade equal room") {
  const std::vector<float> v{0, 1e-6f, 1e-5f, 1e-4f, 1e-3f, 1e-2f, 1e-1f, 1};
  const ColorScale s = color_scale_fit(ColorScaleKind::log, false, {v});
  CHECK(color_scale_position(s, 0) == 0.0);
  CHECK(color_scale_position(s, 1) == Approx(1.0));
  const double d1 = color_scale_position(s, 1e-1) - color_scale_position(s, 1e-2);
  const double d2 = color_scale_position(s, 1e-2) - color_scale_position(s, 1e-3);
  CHECK(d1 == Approx(d2).epsilon(0.01));
  CHECK(d1 == Approx(1.0 / 6).epsilon(0.02));
  // Values far below the floor (1e-30 under a top of 1) sit at the bottom, not off the bar.
  CHECK(color_scale_position(s, 1e-30) == Approx(0.0).margin(1e-6));
  // All zeros: a valid scale, everything at 0.
  const std::vector<float> z(10, 0.0f);
  const ColorScale sz = color_scale_fit(ColorScaleKind::log, false, {z});
  CHECK(color_scale_position(sz, 0) == 0.0);
  const auto ticks = color_scale_ticks(s, 6);
  REQUIRE(ticks.size() >= 3);
  CHECK(ticks.front().value == 0);
  CHECK(ticks.back().value == Approx(1.0));
}

TEST_CASE("a shared scale covers both maps, and legends label both ends in order") {
  const std::vector<float> a{0, 0.1f, 0.2f}, b{0, 0.5f, 0.9f};
  for (ColorScaleKind kind : {ColorScaleKind::linear, ColorScaleKind::log, ColorScaleKind::rank}) {
    INFO("scale " << color_scale_names()[static_cast<int>(kind)]);
    const ColorScale s = color_scale_fit(kind, false, {a, b});
    CHECK(s.max_abs == Approx(0.9));
    CHECK(color_scale_position(s, 0.9) == Approx(1.0));
    CHECK(color_scale_position(s, 0.2) < 1.0);  // a's top is not stretched to full colour
    for (bool sgn : {false, true}) {
      const ColorScale t = color_scale_fit(kind, sgn, {sample(sgn, 300, 9)});
      for (int n : {2, 3, 5, 7}) {
        const auto ticks = color_scale_ticks(t, n);
        INFO("signed " << sgn << ", max ticks " << n);
        REQUIRE(ticks.size() >= 2);
        CHECK(ticks.size() <= static_cast<size_t>(n) + 2);
        CHECK(ticks.front().position == Approx(sgn ? -1.0 : 0.0).margin(1e-9));
        CHECK(ticks.back().position == Approx(1.0));
        for (size_t i = 1; i < ticks.size(); ++i) {
          CHECK(ticks[i].value > ticks[i - 1].value);
          CHECK(ticks[i].position >= ticks[i - 1].position);
        }
      }
    }
  }
  const ColorScale wide = color_scale_fit(ColorScaleKind::linear, true, {a}, 4.0);
  CHECK(wide.max_abs == 4.0);  // a difference drawn on the scale of what it compares
}

TEST_CASE("nice steps are 1, 2, 5 x 10^k and axis ticks never overlap") {
  CHECK(nice_step(1) == 1);
  CHECK(nice_step(1.1) == 2);
  CHECK(nice_step(2.5) == 5);
  CHECK(nice_step(7) == 10);
  CHECK(nice_step(0.03) == Approx(0.05));
  CHECK(nice_step(120) == 200);
  for (int T : {1, 7, 99, 100, 101, 1000, 1024, 4096})
    for (double side : {120.0, 300.0, 600.0, 900.0, 2700.0})
      for (double label : {8.0, 30.0, 45.0, 90.0}) {
        const double cell = side / T;
        const int step = axis_tick_step(T, cell, label);
        INFO("T " << T << ", side " << side << ", label " << label << ", step " << step);
        CHECK(step >= 1);
        if (T > 1) CHECK(step * cell >= label - 1e-9);  // labels one step apart fit
        const double m = static_cast<double>(step) / std::pow(10.0, std::floor(std::log10(step)));
        CHECK((m == 1 || m == 2 || m == 5));
        if (step > 1) CHECK(nice_step(label / cell) == step);  // no coarser than needed
      }
}
