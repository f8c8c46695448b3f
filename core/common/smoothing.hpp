// Smoothing of noisy curves for display (a training loss drawn under its smoothed trend).
// One definition, so the GUI draws what a test checks.
#pragma once
#include <cmath>
#include <span>
#include <vector>

namespace poslab {

// Exponential moving average of y with weight `beta` on the past, in [0, 1): out[i] is
// (sum_k beta^(i-k) (1 - beta) y[k]) / (1 - beta^(n_i)), the bias-corrected average of the
// finite samples up to i (Adam's correction), so the curve starts at y[0] instead of 0.
// Non-finite samples are skipped: out keeps the previous value (NaN before the first).
inline std::vector<double> smooth_ema(std::span<const double> y, double beta) {
  std::vector<double> out(y.size(), std::nan(""));
  double avg = 0, weight = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::isfinite(y[i])) {
      avg = beta * avg + (1 - beta) * y[i];
      weight = beta * weight + (1 - beta);
    }
    if (weight > 0) out[i] = avg / weight;
  }
  return out;
}

// Trailing mean over `w` samples: out[i] is the mean of the finite y[k] with
// max(0, i - w + 1) <= k <= i (NaN when there is none); w <= 1 returns y. A per-position
// loss drawn this way reads like the tables' "mean of the positions before p".
inline std::vector<double> smooth_trailing_mean(std::span<const double> y, int w) {
  if (w <= 1) return {y.begin(), y.end()};
  std::vector<double> out(y.size(), std::nan(""));
  double sum = 0;
  int count = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (std::isfinite(y[i])) sum += y[i], ++count;
    if (i >= static_cast<size_t>(w) && std::isfinite(y[i - w])) sum -= y[i - w], --count;
    if (count > 0) out[i] = sum / count;
  }
  return out;
}

}  // namespace poslab
