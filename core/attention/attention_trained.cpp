// The attention lab's trained source (see attention_trained.hpp): a shipped language model's
// attention on bytes of text, through core/lm's lm_attention (the function `poslab-cli lm
// attention` prints), with the map statistics and the RoPE decay measured on held-out text.
#include "core/attention/attention_trained.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/attention/attention_lab.hpp"
#include "core/attention/attention_messages.hpp"
#include "core/attention/demos.hpp"
#include "core/common/errors.hpp"
#include "core/lm/lm_eval.hpp"

namespace poslab {

const std::vector<std::string>& attention_weights_names() {
  static const std::vector<std::string> n{"random", "trained"};
  return n;
}

std::vector<std::string> attention_byte_tokens(const std::vector<uint8_t>& bytes) {
  std::vector<std::string> t;
  t.reserve(bytes.size());
  for (uint8_t b : bytes) {
    if (b == ' ')
      t.emplace_back("\xe2\x90\xa0");  // U+2420 SYMBOL FOR SPACE
    else if (b == '\n')
      t.emplace_back("\\n");
    else if (b == '\t')
      t.emplace_back("\\t");
    else if (b > 32 && b < 127)
      t.emplace_back(1, static_cast<char>(b));
    else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "x%02x", static_cast<unsigned>(b));
      t.emplace_back(hex);
    }
  }
  return t;
}

std::vector<uint8_t> attention_trained_passage(const std::vector<uint8_t>& valid, int i, int n) {
  std::vector<uint8_t> p = lm::length_passage(valid, i, std::max(n, 2));
  p.resize(std::min(p.size(), static_cast<size_t>(std::max(n, 0))));
  return p;
}

AttentionTrainedMap attention_trained_map(RowMatrixF weights, const lm::LmScaling& s, int L) {
  AttentionTrainedMap m;
  m.scaling = s;
  m.row_entropy = attention_row_entropy(weights);
  const Eigen::Index n = weights.rows();
  m.row_max.resize(static_cast<size_t>(n));
  m.row_distance.resize(static_cast<size_t>(n));
  double before = 0, after = 0, dist_before = 0, dist_after = 0;
  for (Eigen::Index t = 0; t < n; ++t) {
    m.row_max[t] = weights.row(t).maxCoeff();
    double dist = 0;
    for (Eigen::Index s2 = 0; s2 <= t; ++s2) dist += weights(t, s2) * static_cast<double>(t - s2);
    m.row_distance[t] = dist;
    (t < L ? before : after) += m.row_entropy[t];
    (t < L ? dist_before : dist_after) += dist;
  }
  const Eigen::Index nb = std::min<Eigen::Index>(n, L), na = n - nb;
  m.entropy_before_L = nb ? before / static_cast<double>(nb) : 0.0;
  m.entropy_after_L = na ? after / static_cast<double>(na) : 0.0;
  m.distance_before_L = nb ? dist_before / static_cast<double>(nb) : 0.0;
  m.distance_after_L = na ? dist_after / static_cast<double>(na) : 0.0;
  m.weights = std::move(weights);
  return m;
}

namespace {

bool trained_cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load();
}

// The shown map of lm_attention's result for one layer: one head, or the mean of all.
RowMatrixF trained_head_map(const lm::LmAttention& a, int head) {
  const int n = a.n;
  const size_t nn2 = static_cast<size_t>(n) * n;
  RowMatrixF w = RowMatrixF::Zero(n, n);
  const int H = static_cast<int>(a.heads.size());
  for (int k = 0; k < H; ++k) {
    if (head >= 0 && a.heads[k] != head) continue;
    w += Eigen::Map<const RowMatrixF>(a.probs.data() + k * nn2, n, n);
  }
  if (head < 0) w /= static_cast<float>(H);
  return w;
}

// The RoPE decay measured on `windows` held-out passages of n bytes (see AttentionTrainedDecay).
AttentionTrainedDecay trained_decay(lm::LmModel& model, const AttentionTrainedData& d,
                                    const lm::LmScaling& sc, int layer, int first_passage, int n,
                                    int windows, const std::atomic<bool>* cancel) {
  const lm::LmConfig& c = model.config();
  AttentionTrainedDecay r;
  const int H = c.heads;
  std::vector<std::vector<double>> wsum(H, std::vector<double>(n, 0.0)), lsum = wsum;
  std::vector<double> count(n, 0.0);
  constexpr double kFloor = 1e-30;
  for (int w = 0; w < windows; ++w) {
    if (trained_cancelled(cancel)) return r;
    const std::vector<uint8_t> text = attention_trained_passage(d.valid, first_passage + w, n);
    if (static_cast<int>(text.size()) < n) break;
    const lm::LmAttention a = lm::lm_attention(model, text, sc, layer, -1);
    const size_t nn2 = static_cast<size_t>(n) * n;
    for (int h = 0; h < H; ++h) {
      const float* P = a.probs.data() + h * nn2;
      for (int t = 0; t < n; ++t) {
        const float* row = P + static_cast<size_t>(t) * n;
        double mean_log = 0;
        for (int s = 0; s <= t; ++s) mean_log += std::log(std::max<double>(row[s], kFloor));
        mean_log /= t + 1;
        for (int s = 0; s <= t; ++s) {
          if (row[s] < kFloor) ++r.floored;
          wsum[h][t - s] += row[s];
          lsum[h][t - s] += std::log(std::max<double>(row[s], kFloor)) - mean_log;
        }
      }
    }
    for (int t = 0; t < n; ++t)
      for (int s = 0; s <= t; ++s) count[t - s] += 1.0;
    ++r.windows;
  }
  r.distances.resize(n);
  r.mean_weight.assign(H, std::vector<double>(n, 0.0));
  r.mean_logit = r.mean_weight;
  for (int k = 0; k < n; ++k) {
    r.distances[k] = k;
    for (int h = 0; h < H; ++h) {
      r.mean_weight[h][k] = count[k] > 0 ? wsum[h][k] / count[k] : 0.0;
      r.mean_logit[h][k] = count[k] > 0 ? lsum[h][k] / count[k] : 0.0;
    }
  }
  auto band = [&](const std::vector<double>& v, int lo, int hi) {
    hi = std::min(hi, n);
    if (hi <= lo) return std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (int k = lo; k < hi; ++k) sum += v[k];
    return sum / (hi - lo);
  };
  for (int h = 0; h < H; ++h) {
    r.near.push_back(band(r.mean_logit[h], 1, 9));
    r.inside.push_back(band(r.mean_logit[h], c.context / 4, c.context));
    r.past.push_back(band(r.mean_logit[h], c.context, 2 * c.context));
  }
  int rises = 0, stays = 0;
  for (int h = 0; h < H; ++h) {
    if (!(r.near[h] > r.inside[h])) continue;  // NaN (n <= L) counts as neither
    rises += r.past[h] > r.inside[h] ? 1 : 0;
    stays += r.past[h] <= r.inside[h] ? 1 : 0;
  }
  r.trend = rises == H   ? AttentionTrainedDecay::Trend::rises_past_L
            : stays == H ? AttentionTrainedDecay::Trend::stays_low_past_L
                         : AttentionTrainedDecay::Trend::mixed;
  if (c.position == lm::LmPosition::rope) {
    const RopeParams rp = lm::lm_rope_params(c, sc, n);
    const int D = lm::lm_head_dim(c);
    const Eigen::VectorXd ones = Eigen::VectorXd::Ones(D);
    const Eigen::VectorXd b =
        rope_score_vs_distance(rp, ones, ones, r.distances) / std::sqrt(static_cast<double>(D));
    r.bound.assign(b.data(), b.data() + b.size());
  }
  return r;
}

}  // namespace

AttentionTrained attention_trained_compute(const AttentionLabSettings& s,
                                           const AttentionTrainedData& d,
                                           const std::atomic<bool>* cancel) {
  const lm::LengthLabModel& lm_model = d.model;
  const lm::LmConfig& c = lm_model.config;
  AttentionTrained r;
  r.model = lm_model.id;
  r.context = c.context;
  r.layers = c.layers;
  r.heads = c.heads;
  r.head_dim = lm::lm_head_dim(c);
  r.layer = std::min(s.layer, c.layers - 1);
  r.head = s.mean_heads ? -1 : std::min(s.head, c.heads - 1);
  lm::LmModel model(c);
  model.params = lm_model.params;
  const lm::LmScaling own = lm_model.tuned;
  const lm::LmScaling lab{s.scaling, s.factor};
  if (s.demo == AttentionDemo::rope_decay) {
    const int n = std::min(s.decay_max, kAttentionMaxTokens - 1) + 1;
    r.decay =
        trained_decay(model, d, own, r.layer, s.passage, n, kAttentionTrainedDecayWindows, cancel);
    if (r.decay.windows == 0)
      throw InputError(attention_message("attention.error.trained_text_short",
                                         {message_arg("bytes", std::to_string(d.valid.size())),
                                          message_arg("n", std::to_string(n))}));
    r.has_decay = true;
    r.heldout = true;
    r.bytes = attention_trained_passage(d.valid, s.passage, n);
  } else if (s.demo == AttentionDemo::extrapolation || s.source == AttentionSource::count) {
    const int n = s.demo == AttentionDemo::extrapolation ? s.extrapolate_tokens : s.token_count;
    r.bytes = attention_trained_passage(d.valid, s.passage, n);
    if (static_cast<int>(r.bytes.size()) < n)
      throw InputError(attention_message("attention.error.trained_text_short",
                                         {message_arg("bytes", std::to_string(d.valid.size())),
                                          message_arg("n", std::to_string(n))}));
    r.heldout = true;
  } else {
    r.bytes.assign(s.sentence.begin(), s.sentence.end());
    if (r.bytes.size() > static_cast<size_t>(kAttentionMaxTokens))
      r.bytes.resize(static_cast<size_t>(kAttentionMaxTokens));
  }
  r.tokens = attention_byte_tokens(r.bytes);
  if (r.bytes.empty() || trained_cancelled(cancel)) return r;
  r.plain = attention_trained_map(
      trained_head_map(lm::lm_attention(model, r.bytes, own, r.layer, s.mean_heads ? -1 : r.head),
                       r.head),
      own, c.context);
  if (c.position == lm::LmPosition::rope && s.scaling != RopeScaling::none && !(lab == own) &&
      s.demo != AttentionDemo::rope_decay && !trained_cancelled(cancel)) {
    r.scaled = attention_trained_map(
        trained_head_map(lm::lm_attention(model, r.bytes, lab, r.layer, s.mean_heads ? -1 : r.head),
                         r.head),
        lab, c.context);
    r.has_scaled = true;
  }
  return r;
}

}  // namespace poslab
