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

}  // namespace poslab
