// Prices of the language-model computations (see lm_budget.hpp). Each sum follows the
// buffers LmModelT::forward/backward and the evaluation functions allocate, buffer by buffer.
#include "core/lm/lm_budget.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/errors.hpp"

namespace poslab::lm {

LmCost lm_forward_cost(const LmConfig& c, int64_t B, int64_t T, bool training, int threads) {
  const int64_t E = c.embed, H = c.heads, D = lm_head_dim(c), N = c.layers, F = lm_mlp_dim(c);
  const int64_t V = kVocab, M = B * T, P = static_cast<int64_t>(lm_param_count(c));
  const int64_t f = 4;           // bytes per float
  int64_t n = 0;                 // bytes
  n += 2 * P * f + P;            // params, grads, decay mask
  if (training) n += 2 * P * f;  // AdamW m, v
  n += B * (T + 1) + 6 * M;      // the windows' bytes; x, y (M bytes), pos (M ints)
  if (c.position == LmPosition::rope) n += T * D * f;                      // cos, sin (T, D/2)
  if (c.position == LmPosition::sinusoidal) n += T * E * (f + 8) + 8 * T;  // table + doubles
  if (c.position == LmPosition::alibi || c.position == LmPosition::t5) n += T * T * H * f;
  if (c.position == LmPosition::t5) n += T * T * 4;  // buckets (T, T) ints
  n += (N + 1) * M * E * f;                          // xs
  n += N * M * (7 * E + 2 * F + 4 + H * T) * f;      // ln1 qkv att xmid ln2 (7E), fc act (2F),
                                                     // stats, probs
  n += (M * E + 3 * M + 2 * M * V) * f;              // lnf, stats, losses, logits, dlogits
  n += std::max(1, threads) * 4 * T * D * f;         // attention scratch per thread
  if (training) {
    n += M * (7 * E + 2 * F) * f;  // dz dx dln datt (4E), dqkv (3E), dact dfc (2F)
    n += std::max(1, threads) * (8 * T * D + T * T) * f;       // backward scratch
    if (c.position == LmPosition::t5) n += B * T * T * H * f;  // dbias
  }
  // Work: per row and block the four Linear layers (12 E^2) and causal attention (about
  // T/2 keys, scores and values: T E, counted twice: its exp and the T x T maps written and
  // read make it memory-bound: an own model at L 1024 took 130 CPU-s for 3.9e10 of these
  // multiply-adds); the tied head E V.
  const double rows = static_cast<double>(M);
  const double per_block = 12.0 * E * E + 2.0 * static_cast<double>(T) * E;
  double macs = rows * (static_cast<double>(N) * per_block + static_cast<double>(E) * V);
  if (training) macs *= 3;  // backward about twice the forward
  return {n, macs};
}

LmCost lm_eval_positions_cost(const LmConfig& c, int64_t T, int64_t windows) {
  const int64_t W = std::max<int64_t>(1, windows);
  LmCost k = lm_forward_cost(c, std::min<int64_t>(8, W), T);
  k.macs = lm_forward_cost(c, 1, T).macs * static_cast<double>(W);
  k.bytes += W * 8 + 2 * T * 8;  // offsets, mean and one-window curves
  return k;
}

LmCost lm_eval_text_cost(const LmConfig& c, int64_t n) {
  LmCost k = lm_forward_cost(c, 1, std::max<int64_t>(1, n - 1));
  k.bytes += n * (8 + 16 * 16);  // bits and up to 16 top predictions per byte
  k.macs += static_cast<double>(n) * kVocab * 8;
  return k;
}

LmCost lm_attention_cost(const LmConfig& c, int64_t n, int64_t maps) {
  LmCost k = lm_forward_cost(c, 1, n);
  k.bytes += maps * n * n * 4 + n;
  return k;
}

LmCost lm_train_step_cost(const LmConfig& c, int64_t B, int64_t T, int64_t valid_windows,
                          int threads) {
  const int64_t Bv = std::min<int64_t>(16, std::max<int64_t>(1, valid_windows));
  LmCost k = lm_forward_cost(c, std::max(B, Bv), T, true, threads);
  k.macs = lm_forward_cost(c, B, T, true).macs;
  return k;
}

std::string lm_megabytes(int64_t bytes) {
  return std::to_string((bytes + (int64_t{1} << 20) - 1) >> 20) + " MB";
}

std::string lm_budget_message(const std::string& what, const LmCost& cost, const LmBudget& b,
                              const std::string& change) {
  const auto secs = [](double s) {
    return std::to_string(static_cast<int64_t>(std::ceil(s))) + " s";
  };
  return what + " needs about " + lm_megabytes(cost.bytes) + " and " + secs(cost.seconds()) +
         " (budget " + lm_megabytes(b.memory_bytes) + ", " + secs(b.seconds) + "); " + change;
}

void lm_budget_require(const std::string& what, const LmCost& cost, const LmBudget& b,
                       const std::string& change) {
  if (!cost.fits(b)) throw InputError(lm_budget_message(what, cost, b, change));
}

LmBudget lm_budget_from_flags(double memory_mb, double seconds) {
  require_in_range("--memory-budget-mb", memory_mb, LmBudget::memory_mb_range);
  require_in_range("--time-budget-s", seconds, LmBudget::seconds_range);
  LmBudget b;
  b.memory_bytes = static_cast<int64_t>(memory_mb) << 20;
  b.seconds = seconds;
  return b;
}

}  // namespace poslab::lm
