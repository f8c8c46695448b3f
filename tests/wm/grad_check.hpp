// Central finite differences in double precision for the world model's gradient checks,
// and the relative error reported per tensor: |g_analytic - g_numeric| / max(|.|, |.|).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace poslab::wm::test {

// Numerical gradient of loss() with respect to x[0..n): (f(x + h) - f(x - h)) / 2h.
inline std::vector<double> numeric_grad(double* x, int64_t n, const std::function<double()>& loss,
                                        double h = 1e-6) {
  std::vector<double> g(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = loss();
    x[i] = keep - h;
    const double down = loss();
    x[i] = keep;
    g[static_cast<size_t>(i)] = (up - down) / (2 * h);
  }
  return g;
}

// Relative error of two gradient vectors (2-norm of the difference over the larger norm,
// floored at 1e-8 so that a gradient that is zero by construction, such as the bias of a
// softmax logit shared by a whole row, compares as absolute round-off).
inline double grad_rel_error(const double* a, const double* b, int64_t n) {
  double diff = 0, na = 0, nb = 0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const double denom = std::max(std::sqrt(std::max(na, nb)), 1e-8);
  return std::sqrt(diff) / denom;
}

// Deterministic values in [-1, 1) for test inputs (a small LCG; not the model's RNG).
inline std::vector<double> test_values(int64_t n, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
  return v;
}

}  // namespace poslab::wm::test
