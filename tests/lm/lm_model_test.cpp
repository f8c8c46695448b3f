// The byte-level language model (core/lm): gradients against finite differences in double
// for every position encoding, a short text memorised, and the invariants the length lab
// relies on (causality, the learned table's clamp, RoPE tables, window loss = mean of its
// per-position losses).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/common/errors.hpp"
#include "core/lm/lm.hpp"
#include "core/nn/adamw.hpp"
#include "tests/wm/grad_check.hpp"

using namespace poslab;
using namespace poslab::lm;
using poslab::wm::test::grad_rel_error;
using poslab::wm::test::numeric_grad;

namespace {

LmConfig small_config(LmPosition p) {
  LmConfig c;
  c.embed = 8;
  c.heads = 2;
  c.layers = 2;
  c.context = 4;
  c.position = p;
  c.t5_buckets = 4;
  c.t5_max_distance = 8;
  return c;
}

std::vector<uint8_t> test_bytes(int n, uint64_t seed) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  uint64_t s = seed;
  for (auto& b : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    b = static_cast<uint8_t>(s >> 56);
  }
  return v;
}

const LmPosition kAll[] = {
    LmPosition::none,  LmPosition::sinusoidal, LmPosition::learned,          LmPosition::rope,
    LmPosition::alibi, LmPosition::t5,         LmPosition::sinusoidal_scaled};

}  // namespace

TEST_CASE("lm gradients equal finite differences for every encoding", "[lm]") {
  for (LmPosition p : kAll) {
    for (RopeScaling sc : {RopeScaling::none, RopeScaling::yarn, RopeScaling::dynamic_ntk}) {
      if (sc != RopeScaling::none && p != LmPosition::rope) continue;
      INFO("position " << lm_position_name(p) << ", scaling " << static_cast<int>(sc));
      const LmConfig c = small_config(p);
      LmModelT<double> m(c);
      m.init(7);
      m.set_threads(1);
      // non-trivial LayerNorm, bias and T5 values so every path carries gradient
      {
        const auto v = wm::test::test_values(static_cast<int64_t>(m.params.size()), 3);
        for (size_t i = 0; i < m.params.size(); ++i) m.params[i] += 0.05 * v[i];
      }
      m.set_scaling({sc, 2.0});
      const int B = 2, T = 6;  // T > L: the learned table's clamp is in the check
      const auto bytes = test_bytes(B * (T + 1), 11);
      m.zero_grad();
      m.forward(bytes.data(), B, T);
      m.backward();
      auto loss = [&] { return m.forward(bytes.data(), B, T); };
      for (const auto& t : m.layout().tensors) {
        INFO("tensor " << t.name);
        const auto num =
            numeric_grad(m.params.data() + t.offset, static_cast<int64_t>(t.size), loss, 1e-6);
        const double err =
            grad_rel_error(m.grads.data() + t.offset, num.data(), static_cast<int64_t>(t.size));
        CHECK(err < 1e-5);  // as the world model's checks
      }
    }
  }
}

TEST_CASE("lm memorises a short text", "[lm]") {
  for (LmPosition p : {LmPosition::rope, LmPosition::learned}) {
    INFO("position " << lm_position_name(p));
    LmConfig c;
    c.embed = 32;
    c.heads = 2;
    c.layers = 1;
    c.context = 32;
    c.position = p;
    LmModel m(c);
    m.init(1);
    m.set_threads(1);
    const std::string text = "the quick brown fox jumps over the lazy dog, then sleeps.";
    const int T = 32, B = 4;
    std::vector<uint8_t> bytes;
    for (int b = 0; b < B; ++b)
      for (int t = 0; t <= T; ++t) bytes.push_back(static_cast<uint8_t>(text[b * 6 + t]));
    nn::AdamWParams ap;
    ap.lr = 1e-2;
    ap.warmup_steps = 10;
    ap.weight_decay = 0;
    auto st = nn::adamw_init(m.params.size());
    double first = 0, last = 0;
    for (int step = 0; step < 300; ++step) {
      m.zero_grad();
      last = m.forward(bytes.data(), B, T);
      if (step == 0) first = last;
      m.backward();
      nn::adamw_step(ap, m.params, m.grads, st);
    }
    CHECK(first > 4.0);  // about ln 256 = 5.5 at init
    CHECK(last < 0.1);
  }
}

TEST_CASE("lm is causal: a byte changes no earlier logit", "[lm]") {
  for (LmPosition p : kAll) {
    INFO("position " << lm_position_name(p));
    LmModel m(small_config(p));
    m.init(5);
    const int T = 10;
    auto bytes = test_bytes(T + 1, 2);
    m.forward(bytes.data(), 1, T);
    const std::vector<float> before(m.logits(), m.logits() + T * kVocab);
    const int changed = 6;
    bytes[changed] ^= 0x5a;
    m.forward(bytes.data(), 1, T);
    for (int i = 0; i < changed * kVocab; ++i) REQUIRE(m.logits()[i] == before[i]);
    bool later_differs = false;
    for (int i = changed * kVocab; i < T * kVocab; ++i) later_differs |= m.logits()[i] != before[i];
    CHECK(later_differs);
  }
}

TEST_CASE("lm window loss is the mean of its per-position losses", "[lm]") {
  LmModel m(small_config(LmPosition::alibi));
  m.init(2);
  const int B = 3, T = 7;
  const auto bytes = test_bytes(B * (T + 1), 9);
  const double mean = m.forward(bytes.data(), B, T);
  double sum = 0;
  for (int i = 0; i < B * T; ++i) sum += m.losses()[i];
  CHECK(std::abs(mean - sum / (B * T)) < 1e-6);
  // each loss is -ln softmax of the logits at the target
  for (int r = 0; r < B * T; ++r) {
    const float* z = m.logits() + r * kVocab;
    double se = 0;
    for (int v = 0; v < kVocab; ++v) se += std::exp(double(z[v]));
    const int b = r / T, t = r % T;
    const double ref = std::log(se) - z[bytes[b * (T + 1) + t + 1]];
    CHECK(std::abs(ref - m.losses()[r]) < 1e-4);
  }
}

TEST_CASE("lm learned table clamps to row L-1 past L", "[lm]") {
  const LmConfig c = small_config(LmPosition::learned);  // L = 4
  CHECK(lm_learned_row(c, 0) == 0);
  CHECK(lm_learned_row(c, 3) == 3);
  CHECK(lm_learned_row(c, 4) == 3);
  CHECK(lm_learned_row(c, 1000) == 3);
  // with no attention contribution changes, a byte at position 3 and at 7 gets the same
  // first-layer input: zero the qkv/proj so each position only sees its own embedding
  LmModel m(c);
  m.init(3);
  const int T = 8;
  std::vector<uint8_t> bytes(T + 1, 'a');
  for (const auto& t : m.layout().tensors)
    if (t.name.find("attn.") != std::string::npos)
      std::fill_n(m.params.begin() + static_cast<int64_t>(t.offset), t.size, 0.0f);
  m.forward(bytes.data(), 1, T);
  for (int v = 0; v < kVocab; ++v) {
    CHECK(m.logits()[3 * kVocab + v] == m.logits()[7 * kVocab + v]);
    CHECK(m.logits()[4 * kVocab + v] == m.logits()[7 * kVocab + v]);
  }
  bool differs = false;
  for (int v = 0; v < kVocab; ++v)
    differs |= m.logits()[2 * kVocab + v] != m.logits()[3 * kVocab + v];
  CHECK(differs);
}

TEST_CASE("lm RoPE tables: scaling none equals the unscaled model, others differ past L", "[lm]") {
  const LmConfig c = small_config(LmPosition::rope);
  const RopeParams p = lm_rope_params(c, {RopeScaling::none, 4.0}, 16);
  CHECK(p.head_dim == 4);
  CHECK(p.layout == RopeLayout::half_split);
  CHECK(p.original_context == 4);
  CHECK(rope_inv_freq(p) == rope_inv_freq_original(p));
  CHECK(rope_attention_scale(p) == 1.0);
  LmModel m(c);
  m.init(4);
  {  // weights of order 1 so that a rotation shows in the loss
    const auto v = wm::test::test_values(static_cast<int64_t>(m.params.size()), 8);
    for (size_t i = 0; i < m.params.size(); ++i) m.params[i] += static_cast<float>(0.5 * v[i]);
  }
  const int T = 12;
  const auto bytes = test_bytes(T + 1, 4);
  const double plain = m.forward(bytes.data(), 1, T);
  m.set_scaling({RopeScaling::linear, 1.0});  // factor 1: the same frequencies
  CHECK(std::abs(m.forward(bytes.data(), 1, T) - plain) < 1e-6);
  m.set_scaling({RopeScaling::linear, 4.0});
  CHECK(std::abs(m.forward(bytes.data(), 1, T) - plain) > 1e-3);
  // scaling is ignored by models without RoPE
  LmModel a(small_config(LmPosition::alibi));
  a.init(4);
  const double pa = a.forward(bytes.data(), 1, T);
  a.set_scaling({RopeScaling::yarn, 4.0});
  CHECK(a.forward(bytes.data(), 1, T) == pa);
}

TEST_CASE(
    "lm dynamic NTK is per prefix: unscaled inside L, and a position's loss needs only its prefix",
    "[lm]") {
  // Issue 41: each position is scored with the base its own prefix length gives, as a
  // decoder that rescales while the text grows (its cached keys keep their rotation). So
  // the L positions whose prefix fits in L equal the unscaled model, and cutting the window
  // shorter changes none of the positions that remain (the whole-window variant fails both).
  const LmConfig c = small_config(LmPosition::rope);  // L = 4
  LmModel m(c);
  m.init(4);
  {
    const auto v = wm::test::test_values(static_cast<int64_t>(m.params.size()), 8);
    for (size_t i = 0; i < m.params.size(); ++i) m.params[i] += static_cast<float>(0.5 * v[i]);
  }
  const int T = 16;
  const auto bytes = test_bytes(T + 1, 5);
  m.forward(bytes.data(), 1, T);
  const std::vector<float> plain(m.losses(), m.losses() + T);
  for (double factor : {2.0, 4.0, 8.0}) {
    INFO("dynamic x" << factor);
    m.set_scaling({RopeScaling::dynamic_ntk, factor});
    m.forward(bytes.data(), 1, T);
    const std::vector<float> dyn(m.losses(), m.losses() + T);
    for (int t = 0; t < c.context; ++t) {
      INFO("position " << t);
      CHECK(dyn[t] == Approx(plain[t]).epsilon(1e-6).margin(1e-6));
    }
    double past = 0;
    for (int t = c.context; t < T; ++t) past += std::abs(dyn[t] - plain[t]);
    CHECK(past > 1e-3);  // past L the scaling does change the loss
    for (int shorter : {c.context + 1, 9, 12}) {
      m.forward(bytes.data(), 1, shorter);
      for (int t = 0; t < shorter; ++t) {
        INFO("window " << shorter << ", position " << t);
        CHECK(m.losses()[t] == Approx(dyn[t]).epsilon(1e-5).margin(1e-6));
      }
    }
  }
}

TEST_CASE("lm sinusoidal_scaled feeds tok_emb times sqrt(E) before adding the sinusoids", "[lm]") {
  // Blocks whose output projections are zero pass the residual stream through, so the
  // logits are LN_f(tok_emb[x]·sqrt(E) + PE(t))·tok_embᵀ, computed here by hand (Vaswani
  // et al. 3.4; the tied head reads tok_emb unscaled).
  const LmConfig c = small_config(LmPosition::sinusoidal_scaled);
  CHECK(lm_param_layout(c).total == lm_param_layout(small_config(LmPosition::sinusoidal)).total);
  LmModelT<double> m(c);
  m.init(3);
  for (const auto& t : m.layout().tensors)
    if (t.name.find(".proj.") != std::string::npos)
      std::fill_n(m.params.begin() + static_cast<int64_t>(t.offset), t.size, 0.0);
  const int T = 6, E = c.embed;
  const auto bytes = test_bytes(T + 1, 2);
  m.forward(bytes.data(), 1, T);
  const double* tok = m.tensor("tok_emb.weight");
  for (int t = 0; t < T; ++t) {
    std::vector<double> h(static_cast<size_t>(E));
    for (int i = 0; i < E / 2; ++i) {
      const double w = std::pow(10000.0, -2.0 * i / E);
      h[2 * i] = tok[bytes[t] * E + 2 * i] * std::sqrt(double(E)) + std::sin(w * t);
      h[2 * i + 1] = tok[bytes[t] * E + 2 * i + 1] * std::sqrt(double(E)) + std::cos(w * t);
    }
    double mean = 0, var = 0;
    for (double v : h) mean += v / E;
    for (double v : h) var += (v - mean) * (v - mean) / E;
    for (double& v : h) v = (v - mean) / std::sqrt(var + kLayerNormEps);
    for (int v = 0; v < kVocab; v += 37) {
      double z = 0;
      for (int e = 0; e < E; ++e) z += h[e] * tok[v * E + e];
      INFO("position " << t << ", byte " << v);
      CHECK(m.logits()[t * kVocab + v] == Approx(z).epsilon(1e-9).margin(1e-9));
    }
  }
  CHECK(std::string(lm_position_name(LmPosition::sinusoidal_scaled)) == "sinusoidal_scaled");
  CHECK(lm_position_from_name("sinusoidal") == LmPosition::sinusoidal);  // old files unchanged
}

TEST_CASE("lm alibi and t5 biases have their shapes", "[lm]") {
  const LmConfig c = small_config(LmPosition::t5);
  const auto L = lm_param_layout(c);
  const auto& t5 = L.find("t5_bias.weight");
  CHECK(t5.shape == std::vector<int>{c.t5_buckets, c.heads});
  CHECK_THROWS_AS(L.find("pos_emb.weight"), InputError);
  const auto La = lm_param_layout(small_config(LmPosition::alibi));
  CHECK_THROWS_AS(La.find("t5_bias.weight"), InputError);
  CHECK(lm_param_layout(small_config(LmPosition::learned)).find("pos_emb.weight").shape ==
        std::vector<int>{4, 8});
  // attention rows sum to 1 over the visible keys and are 0 above the diagonal
  LmModel m(c);
  m.init(1);
  const int T = 9;
  const auto bytes = test_bytes(T + 1, 1);
  m.forward(bytes.data(), 1, T);
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h)
      for (int t = 0; t < T; ++t) {
        double s = 0;
        for (int k = 0; k < T; ++k) {
          const float pr = m.probs(l)[(h * T + t) * T + k];
          if (k > t) CHECK(pr == 0.0f);
          s += pr;
        }
        CHECK(std::abs(s - 1.0) < 1e-5);
      }
}

TEST_CASE("lm config validation names the field", "[lm]") {
  LmConfig c;
  c.embed = 63;
  CHECK_THROWS_AS(lm_validate(c), InputError);
  c = LmConfig{};
  c.heads = 64;  // D = 1, odd
  CHECK_THROWS_AS(lm_validate(c), InputError);
  c = LmConfig{};
  c.position = LmPosition::t5;
  c.t5_buckets = 5;
  CHECK_THROWS_AS(lm_validate(c), InputError);
  c = LmConfig{};
  c.embed = 1024;
  c.layers = 32;
  CHECK_THROWS_AS(lm_validate(c), InputError);  // over the parameter budget
  CHECK(lm_position_from_name("alibi") == LmPosition::alibi);
  CHECK_THROWS_AS(lm_position_from_name("wrap"), InputError);
}
