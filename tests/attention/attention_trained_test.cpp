// The attention lab's trained source (issue 27) against independent references: its map is
// lm_attention's probabilities of the same bytes, layer and head (the mean over heads is the
// mean of those), causal with rows summing to 1; the learned model past L equals a model whose
// table really holds row L-1 at every later position (the clamp); the decay demo's curves
// are the direct averages over the held-out passages; the preset codec names bad values.
// Small seeded models stand in for the shipped ones.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "core/attention/attention_lab.hpp"
#include "core/common/errors.hpp"
#include "core/lm/lm_eval.hpp"

using namespace poslab;

namespace {

AttentionTrainedData trained_tiny(lm::LengthModelId id, lm::LmPosition pos, int context = 8) {
  lm::LmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = context;
  c.position = pos;
  lm::LmModel m(c);
  m.init(11);
  AttentionTrainedData d;
  d.model = {id, c, {}, m.params};
  std::string text;
  for (int i = 0; i < 40; ++i) text += "the cat sat on the mat. ";
  d.valid.assign(text.begin(), text.end());
  return d;
}

AttentionLabSettings trained_settings(lm::LengthModelId id) {
  AttentionLabSettings s;
  s.weights = AttentionWeights::trained;
  s.model = id;
  s.sentence = "a byte-level model";
  return s;
}

// lm_attention of one layer and head (-1: all heads) as (heads, n, n).
lm::LmAttention trained_reference(const AttentionTrainedData& d, const std::vector<uint8_t>& bytes,
                                  const lm::LmScaling& sc, int layer, int head) {
  lm::LmModel m(d.model.config);
  m.params = d.model.params;
  return lm::lm_attention(m, bytes, sc, layer, head);
}

}  // namespace

TEST_CASE("trained source: lm_attention's weights, causal, rows sum to 1, mean of the heads") {
  for (auto [id, pos] : {std::pair{lm::LengthModelId::rope, lm::LmPosition::rope},
                         std::pair{lm::LengthModelId::alibi, lm::LmPosition::alibi},
                         std::pair{lm::LengthModelId::t5, lm::LmPosition::t5}}) {
    const AttentionTrainedData d = trained_tiny(id, pos);
    for (int layer : {0, 1})
      for (int head : {0, 1, -1}) {
        INFO("model " << lm::length_model_name(id) << " layer " << layer << " head " << head);
        AttentionLabSettings s = trained_settings(id);
        s.layer = layer;
        s.head = head < 0 ? 0 : head;
        s.mean_heads = head < 0;
        const AttentionLabResult r = attention_lab_compute(s, nullptr, {.trained = &d});
        REQUIRE(r.has_trained);
        const AttentionTrained& t = r.trained;
        const int n = static_cast<int>(s.sentence.size());
        REQUIRE(t.bytes.size() == s.sentence.size());
        REQUIRE(t.plain.weights.rows() == n);
        const lm::LmAttention a = trained_reference(d, t.bytes, {}, layer, -1);
        for (int i = 0; i < n; ++i) {
          CHECK(std::abs(t.plain.weights.row(i).sum() - 1.0f) < 1e-5f);
          for (int j = 0; j < n; ++j) {
            double want = 0;
            for (int h = 0; h < 2; ++h)
              if (head < 0 || h == head) want += a.probs[(static_cast<size_t>(h) * n + i) * n + j];
            if (head < 0) want /= 2;
            if (j > i) CHECK(t.plain.weights(i, j) == 0.0f);
            CHECK(std::abs(t.plain.weights(i, j) - want) < 1e-6);
          }
        }
        // RoPE gets the lab's scaling beside it (yarn x4 by default); the others do not.
        CHECK(t.has_scaled == (pos == lm::LmPosition::rope));
      }
  }
}

TEST_CASE("trained source: RoPE with a scaling is lm_attention with that scaling") {
  const AttentionTrainedData d = trained_tiny(lm::LengthModelId::rope, lm::LmPosition::rope);
  for (RopeScaling sc : {RopeScaling::linear, RopeScaling::ntk, RopeScaling::yarn}) {
    INFO("scaling " << rope_scaling_names()[static_cast<size_t>(sc)]);
    AttentionLabSettings s = trained_settings(lm::LengthModelId::rope);
    s.source = AttentionSource::count;
    s.token_count = 30;  // held-out bytes past L = 8
    s.scaling = sc;
    s.factor = 4;
    s.head = 1;
    const AttentionTrained t = attention_lab_compute(s, nullptr, {.trained = &d}).trained;
    REQUIRE(t.has_scaled);
    CHECK(t.heldout);
    REQUIRE(t.bytes == attention_trained_passage(d.valid, 0, 30));
    const lm::LmAttention a = trained_reference(d, t.bytes, {sc, 4.0}, 0, 1);
    for (int i = 0; i < 30; ++i)
      for (int j = 0; j < 30; ++j)
        CHECK(std::abs(t.scaled.weights(i, j) - a.probs[static_cast<size_t>(i) * 30 + j]) < 1e-6);
  }
}

TEST_CASE("trained source: the learned model past L reads row L-1 (the clamp)") {
  const int L = 8, n = 24;
  const AttentionTrainedData d =
      trained_tiny(lm::LengthModelId::learned, lm::LmPosition::learned, L);
  AttentionLabSettings s = trained_settings(lm::LengthModelId::learned);
  s.demo = AttentionDemo::extrapolation;
  s.extrapolate_tokens = n;
  s.mean_heads = true;
  const AttentionTrained t = attention_lab_compute(s, nullptr, {.trained = &d}).trained;
  REQUIRE(t.plain.weights.rows() == n);
  CHECK_FALSE(t.has_scaled);
  // Independent reference: a model trained "at n" whose table holds row L-1 at rows L..n-1.
  AttentionTrainedData wide = d;
  wide.model.config.context = n;
  lm::LmModel small(d.model.config), big(wide.model.config);
  small.params = d.model.params;
  big.params.assign(big.params.size(), 0.0f);
  for (const auto& info : big.layout().tensors) {
    const float* src = small.tensor(info.name);
    float* dst = big.tensor(info.name);
    const int E = d.model.config.embed;
    if (info.name == "pos_emb.weight") {
      for (int row = 0; row < n; ++row)
        std::copy_n(src + static_cast<size_t>(std::min(row, L - 1)) * E, E, dst + row * E);
    } else {
      std::copy_n(src, info.size, dst);
    }
  }
  wide.model.params = big.params;
  const lm::LmAttention a = trained_reference(wide, t.bytes, {}, 0, -1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      const double want = 0.5 * (a.probs[static_cast<size_t>(i) * n + j] +
                                 a.probs[(n + i) * static_cast<size_t>(n) + j]);
      CHECK(std::abs(t.plain.weights(i, j) - want) < 1e-5);
    }
  }
  // The entropy summary splits at L.
  double before = 0;
  for (int i = 0; i < L; ++i) before += t.plain.row_entropy[i];
  CHECK(std::abs(t.plain.entropy_before_L - before / L) < 1e-9);
}

TEST_CASE("trained decay demo: direct averages over the held-out passages, RoFormer's bound") {
  const AttentionTrainedData d = trained_tiny(lm::LengthModelId::rope, lm::LmPosition::rope);
  AttentionLabSettings s = trained_settings(lm::LengthModelId::rope);
  s.demo = AttentionDemo::rope_decay;
  s.decay_max = 15;
  s.layer = 1;
  s.passage = 3;
  const AttentionTrained t = attention_lab_compute(s, nullptr, {.trained = &d}).trained;
  REQUIRE(t.has_decay);
  const AttentionTrainedDecay& k = t.decay;
  const int n = 16;
  REQUIRE(k.windows == kAttentionTrainedDecayWindows);
  REQUIRE(k.distances.size() == static_cast<size_t>(n));
  REQUIRE(k.mean_weight.size() == 2);
  for (int h = 0; h < 2; ++h)
    for (int dist : {0, 1, 7, 15}) {
      INFO("head " << h << " distance " << dist);
      double w = 0, lg = 0, count = 0;
      for (int win = 0; win < k.windows; ++win) {
        const auto bytes = attention_trained_passage(d.valid, 3 + win, n);
        const lm::LmAttention a = trained_reference(d, bytes, {}, 1, h);
        for (int q = dist; q < n; ++q) {
          const float* row = a.probs.data() + static_cast<size_t>(q) * n;
          double mean_log = 0;
          for (int key = 0; key <= q; ++key) mean_log += std::log(static_cast<double>(row[key]));
          mean_log /= q + 1;
          w += row[q - dist];
          lg += std::log(static_cast<double>(row[q - dist])) - mean_log;
          count += 1;
        }
      }
      CHECK(std::abs(k.mean_weight[h][dist] - w / count) < 1e-9);
      CHECK(std::abs(k.mean_logit[h][dist] - lg / count) < 1e-6);
    }
  // q = k = ones: at distance 0 the score is D / sqrt(D) = sqrt(D).
  REQUIRE(k.bound.size() == static_cast<size_t>(n));
  CHECK(std::abs(k.bound[0] - std::sqrt(8.0)) < 1e-9);
}

TEST_CASE("trained source: preset round trip and one-line errors") {
  AttentionLabSettings s = attention_from_preset(
      "attention?weights=trained&model=alibi&scaling=ntk&factor=8&layer=1&mean_heads=1&passage=7");
  CHECK(s.weights == AttentionWeights::trained);
  CHECK(s.model == lm::LengthModelId::alibi);
  CHECK(s.scaling == RopeScaling::ntk);
  CHECK(s.factor == 8);
  CHECK(s.layer == 1);
  CHECK(s.mean_heads);
  CHECK(s.passage == 7);
  CHECK(attention_from_preset(attention_to_preset(s)) == s);
  // The trained head is the model's (up to 64 heads), not the random model's `heads`.
  CHECK(attention_from_preset("attention?weights=trained&heads=2&head=5").head == 5);
  CHECK_THROWS_AS(attention_from_preset("attention?weights=trained&model=gpt2"), InputError);
  CHECK_THROWS_AS(attention_from_preset("attention?weights=trained&source=grid"), InputError);
  CHECK_THROWS_AS(attention_from_preset("attention?weights=trained&demo=slopes"), InputError);
  // No model handed in: a clear error, not a crash.
  CHECK_THROWS_AS(attention_lab_compute(trained_settings(lm::LengthModelId::rope)), InputError);
  // Held-out text shorter than asked for: a clear error.
  AttentionTrainedData d = trained_tiny(lm::LengthModelId::rope, lm::LmPosition::rope);
  d.valid.resize(20);
  AttentionLabSettings c = trained_settings(lm::LengthModelId::rope);
  c.source = AttentionSource::count;
  c.token_count = 64;
  CHECK_THROWS_AS(attention_lab_compute(c, nullptr, {.trained = &d}), InputError);
}
