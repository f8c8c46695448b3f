// The length lab's measurements on a trained language model (see lm_eval.hpp).
#include "core/lm/lm_eval.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>
#include <utility>

#include "core/common/errors.hpp"
#include "core/lm/lm_train.hpp"

namespace poslab::lm {

LmPositionsRun::LmPositionsRun(LmModel& m, const std::vector<uint8_t>& text, int T, int windows,
                               const LmScaling& s, int batch)
    : m_(m), text_(text), batch_(std::clamp(batch, 1, kLmMeanGroup)) {
  if (T < 1) throw InputError("positions = " + std::to_string(T) + ": must be >= 1");
  c_.positions = T;
  c_.offsets = lm_window_offsets(static_cast<int64_t>(text.size()), T, windows);
  c_.mean_bits.assign(static_cast<size_t>(T), 0.0);
  m.set_scaling(s);
}

void LmPositionsRun::step() {
  if (done()) return;
  const int T = c_.positions;
  const size_t n = c_.offsets.size();
  // Never across a group's end, so a batch is a whole group or a part of one.
  const size_t group_end = std::min(n, (k0_ / kLmMeanGroup + 1) * kLmMeanGroup);
  const int B = static_cast<int>(std::min<size_t>(static_cast<size_t>(batch_), group_end - k0_));
  buf_.resize(static_cast<size_t>(B) * (T + 1));
  for (int b = 0; b < B; ++b)
    std::copy_n(text_.begin() + c_.offsets[k0_ + b], T + 1, buf_.begin() + int64_t{b} * (T + 1));
  m_.forward(buf_.data(), B, T);
  const float* l = m_.losses();
  for (int64_t r = 0; r < int64_t{B} * T; ++r) group_ += static_cast<double>(l[r]);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      c_.mean_bits[static_cast<size_t>(t)] += static_cast<double>(l[int64_t{b} * T + t]);
  if (k0_ == 0)
    for (int t = 0; t < T; ++t)
      c_.one_bits.push_back(static_cast<double>(l[t]) / std::numbers::ln2);
  k0_ += static_cast<size_t>(B);
  if (k0_ == group_end) {  // the group's mean times its windows, as one batch of it gave
    const size_t group_first = (group_end - 1) / kLmMeanGroup * kLmMeanGroup;  // whole groups
    const double g = static_cast<double>(k0_ - group_first);
    total_ += group_ / (g * T) * g;
    group_ = 0;
  }
}

LmPositionCurve LmPositionsRun::take() {
  const double w = static_cast<double>(c_.offsets.size());
  for (double& v : c_.mean_bits) v /= w * std::numbers::ln2;
  c_.mean_bpb = total_ / w / std::numbers::ln2;
  return std::move(c_);
}

LmPositionCurve lm_eval_positions(LmModel& m, const std::vector<uint8_t>& text, int T, int windows,
                                  const LmScaling& s) {
  LmPositionsRun run(m, text, T, windows, s, kLmMeanGroup);
  while (!run.done()) run.step();
  return run.take();
}

double lm_curve_at(const std::vector<double>& bits, int p, int L) {
  if (bits.empty()) return 0;
  const int n = static_cast<int>(bits.size());
  p = std::clamp(p, 1, n);
  const int w = std::max(1, L / 8);
  const int lo = std::max(0, p - w);
  return std::accumulate(bits.begin() + lo, bits.begin() + p, 0.0) / (p - lo);
}

LmTextScores lm_eval_text(LmModel& m, const std::vector<uint8_t>& text, const LmScaling& s,
                          int topk) {
  require_in_range("topk", topk, kLmTopkRange);
  if (text.size() < 2)
    throw InputError("text of " + std::to_string(text.size()) +
                     " bytes: need at least 2 (one to read, one to predict)");
  m.set_scaling(s);
  const int T = static_cast<int>(text.size()) - 1;
  m.forward(text.data(), 1, T);
  LmTextScores r;
  r.bits.resize(static_cast<size_t>(T));
  r.top.resize(static_cast<size_t>(T));
  std::vector<int> idx(kVocab);
  std::vector<double> p(kVocab);
  for (int t = 0; t < T; ++t) {
    r.bits[static_cast<size_t>(t)] = static_cast<double>(m.losses()[t]) / std::numbers::ln2;
    if (topk == 0) continue;
    const float* z = m.logits() + int64_t{t} * kVocab;
    const double mx = *std::max_element(z, z + kVocab);
    double sum = 0;
    for (int v = 0; v < kVocab; ++v) sum += (p[v] = std::exp(static_cast<double>(z[v]) - mx));
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + topk, idx.end(),
                      [&](int a, int b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
    for (int k = 0; k < topk; ++k)
      r.top[static_cast<size_t>(t)].push_back({idx[k], p[idx[k]] / sum});
  }
  return r;
}

LmAttention lm_attention(LmModel& m, const std::vector<uint8_t>& text, const LmScaling& s,
                         int layer, int head) {
  const LmConfig& c = m.config();
  if (text.empty()) throw InputError("attention of an empty text: give at least one byte");
  if (layer < -1 || layer >= c.layers)
    throw InputError("layer = " + std::to_string(layer) + ": must be -1 (all) or in [0, " +
                     std::to_string(c.layers - 1) + "]");
  if (head < -1 || head >= c.heads)
    throw InputError("head = " + std::to_string(head) + ": must be -1 (all) or in [0, " +
                     std::to_string(c.heads - 1) + "]");
  m.set_scaling(s);
  const int n = static_cast<int>(text.size());
  std::vector<uint8_t> buf(text);
  buf.push_back(0);  // a target for the last byte; its loss is not used
  m.forward(buf.data(), 1, n);
  LmAttention a;
  a.n = n;
  for (int l = 0; l < c.layers; ++l)
    if (layer < 0 || l == layer) a.layers.push_back(l);
  for (int h = 0; h < c.heads; ++h)
    if (head < 0 || h == head) a.heads.push_back(h);
  const size_t nn2 = static_cast<size_t>(n) * n;
  a.probs.reserve(a.layers.size() * a.heads.size() * nn2);
  for (int l : a.layers)
    for (int h : a.heads) {
      const float* p = m.probs(l) + static_cast<size_t>(h) * nn2;
      a.probs.insert(a.probs.end(), p, p + nn2);
    }
  return a;
}

}  // namespace poslab::lm

namespace poslab::lm {

std::string lm_logits_problem(const LmModel& m) {
  const int64_t M = int64_t{m.batch()} * m.steps();
  const float* z = m.logits();
  const float* l = m.losses();
  double worst = 0;
  for (int64_t i = 0; i < M * kVocab; ++i) {
    const double v = std::abs(static_cast<double>(z[i]));
    if (!std::isfinite(v)) return "its logits are not finite (a diverged or damaged model)";
    worst = std::max(worst, v);
  }
  for (int64_t i = 0; i < M; ++i)
    if (!std::isfinite(l[i])) return "its losses are not finite (a diverged or damaged model)";
  if (worst > kLmMaxLogit)
    return "its logits reach " + std::to_string(static_cast<int64_t>(std::min(worst, 9e18))) +
           " (saturated weights: the softmax is one-hot and its bits/byte meaningless); "
           "retrain it";
  return "";
}

}  // namespace poslab::lm
