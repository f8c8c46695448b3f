// What the length lab measures on a trained language model: the loss at every position of
// long windows (averaged over many held-out windows, and of one window), each byte's loss
// and top predictions on a given text (the "surprise" view), and the attention
// probabilities of a text. Every evaluation takes a RoPE scaling (ignored by other models).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/param_range.hpp"
#include "core/lm/lm.hpp"

namespace poslab::lm {

// Loss against position: bits per byte of the byte after position t, t = 0..T-1.
struct LmPositionCurve {
  int positions = 0;              // T
  std::vector<int64_t> offsets;   // where each window starts in the text
  std::vector<double> mean_bits;  // (T) averaged over the windows
  std::vector<double> one_bits;   // (T) of the first window alone
  double mean_bpb = 0;            // over all windows and positions
};
// Windows of T + 1 bytes at lm_window_offsets(text, T, windows); evaluated in batches of 8
// windows (threads over the windows). Throws InputError if the text is shorter than T + 1.
LmPositionCurve lm_eval_positions(LmModel& m, const std::vector<uint8_t>& text, int T, int windows,
                                  const LmScaling& s);
// lm_eval_positions `batch` windows per step(), for a caller that steps it: the app's jobs
// take one window per step, so a step in the browser's frame stays bounded (one forward of
// T positions). The curve is the same to the last bit for any batch: a window's losses do
// not depend on the windows beside it, every sum runs in window order, and mean_bpb sums
// each group of kLmMeanGroup windows as one batch of that size always did. Holds m and
// text by reference: keep them alive while it runs.
inline constexpr int kLmMeanGroup = 8;
class LmPositionsRun {
 public:
  LmPositionsRun(LmModel& m, const std::vector<uint8_t>& text, int T, int windows,
                 const LmScaling& s, int batch = 1);
  bool done() const { return k0_ >= c_.offsets.size(); }
  int windows_done() const { return static_cast<int>(k0_); }
  int windows() const { return static_cast<int>(c_.offsets.size()); }
  void step();
  LmPositionCurve take();  // once done

 private:
  LmModel& m_;
  const std::vector<uint8_t>& text_;
  int batch_;
  LmPositionCurve c_;
  size_t k0_ = 0;
  double total_ = 0;  // sum over the finished groups of (group's mean nats x its windows)
  double group_ = 0;  // nats of the current group's windows so far, in row order
  std::vector<uint8_t> buf_;
};
// The curve summarised at position p: the mean of positions [p - w, p) with w = max(1, L/8),
// so "at L" is the last eighth of the trained range and "at 2L" the same width past it.
// p is clamped to the curve.
double lm_curve_at(const std::vector<double>& bits, int p, int L);

// Each byte of a text scored: bits[t] is the loss of byte t+1 given bytes 0..t, and top[t]
// the k most likely next bytes after byte t with their probabilities (descending).
struct LmTextScores {
  std::vector<double> bits;                              // (n-1)
  std::vector<std::vector<std::pair<int, double>>> top;  // (n-1, k)
};
LmTextScores lm_eval_text(LmModel& m, const std::vector<uint8_t>& text, const LmScaling& s,
                          int topk);
inline constexpr ParamRange kLmTopkRange{0, 256};

// Attention of a text of n bytes (all n attend; nothing is predicted): probs of the chosen
// layers and heads, (layers, heads, n, n), row t summing to 1 over keys s <= t.
struct LmAttention {
  int n = 0;
  std::vector<int> layers;   // which blocks
  std::vector<int> heads;    // which heads
  std::vector<float> probs;  // (layers.size(), heads.size(), n, n)
};
// layer or head = -1 means all. Throws InputError for an empty text or a bad index.
LmAttention lm_attention(LmModel& m, const std::vector<uint8_t>& text, const LmScaling& s,
                         int layer, int head);

}  // namespace poslab::lm

namespace poslab::lm {

// Largest logit magnitude a usable model produces: a trained byte model's logits are tens at
// most; past this the float softmax is one-hot and its loss a meaningless 0 ("a perfect
// model") or huge.
inline constexpr double kLmMaxLogit = 1e4;
// Why the last forward's logits (and losses) cannot be trusted: a non-finite value or one
// past kLmMaxLogit (saturated weights); "" when they can. The caller names the checkpoint.
std::string lm_logits_problem(const LmModel& m);

}  // namespace poslab::lm
