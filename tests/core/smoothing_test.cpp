// smooth_ema (core/common/smoothing.hpp), the trend drawn over a training loss: checked
// against its defining sum, computed here independently, and on its edge cases.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "core/common/smoothing.hpp"

using poslab::smooth_ema;

TEST_CASE("smooth_ema equals the bias-corrected weighted sum of the samples so far") {
  const std::vector<double> y{3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0};
  for (double beta : {0.0, 0.5, 0.9, 0.99}) {
    INFO("beta = " << beta);
    const std::vector<double> out = smooth_ema(y, beta);
    REQUIRE(out.size() == y.size());
    for (size_t i = 0; i < y.size(); ++i) {
      double num = 0, den = 0;
      for (size_t k = 0; k <= i; ++k) {
        const double w = std::pow(beta, static_cast<double>(i - k)) * (1 - beta);
        num += w * y[k];
        den += w;
      }
      INFO("i = " << i);
      CHECK(out[i] == Approx(num / den).epsilon(1e-12));
    }
  }
}

TEST_CASE("smooth_ema starts at the first sample, keeps a constant, and skips NaN") {
  CHECK(smooth_ema(std::vector<double>{7.5}, 0.95)[0] == Approx(7.5));
  for (double v : smooth_ema(std::vector<double>(50, 2.25), 0.95))
    CHECK(v == Approx(2.25).epsilon(1e-12));
  const double nan = std::nan("");
  const std::vector<double> out = smooth_ema(std::vector<double>{nan, 4.0, nan, 4.0}, 0.9);
  CHECK(std::isnan(out[0]));  // nothing seen yet
  CHECK(out[1] == Approx(4.0));
  CHECK(out[2] == Approx(4.0));  // a gap keeps the last value
  CHECK(out[3] == Approx(4.0));
  CHECK(smooth_ema(std::vector<double>{}, 0.9).empty());
}

TEST_CASE("smooth_trailing_mean equals the direct mean of the window before each point") {
  const double nan = std::nan("");
  const std::vector<double> y{1, 5, nan, 2, 8, 3, nan, nan, nan, 4};
  for (int w : {1, 2, 3, 4, 11}) {
    const std::vector<double> out = poslab::smooth_trailing_mean(y, w);
    REQUIRE(out.size() == y.size());
    for (size_t i = 0; i < y.size(); ++i) {
      double sum = 0;
      int n = 0;
      for (size_t k = (i + 1 >= static_cast<size_t>(w) ? i + 1 - w : 0); k <= i; ++k)
        if (!std::isnan(y[k])) sum += y[k], ++n;
      if (w <= 1) {
        CHECK((std::isnan(y[i]) ? std::isnan(out[i]) : out[i] == y[i]));
      } else if (n == 0) {
        CHECK(std::isnan(out[i]));
      } else {
        CHECK(out[i] == Approx(sum / n).epsilon(1e-12));
      }
    }
  }
  CHECK(poslab::smooth_trailing_mean(std::vector<double>{}, 16).empty());
}
