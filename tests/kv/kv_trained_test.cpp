// The KV lab's trained source (issue 39) checked against independent references on small
// seeded language models: the cached forward equals the length lab's evaluation (LmModel's
// forward) of the same bytes; re-encoded block-0 keys equal recomputed ones; with nothing
// stitched every method equals the reference exactly; a rolling cache at least as long as
// the text equals the full window; bad input and budgets are one-line errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "core/common/errors.hpp"
#include "core/kv/kv_trained.hpp"
#include "core/lm/lm_cache.hpp"

using namespace poslab;
using namespace poslab::lm;

namespace {

LengthLabModel seeded(LmPosition pos, LmScaling tuned = {}, int context = 16) {
  LmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = context;
  c.position = pos;
  LmModel m(c);
  m.init(11);
  // Larger weights than the init's, so attention is far from uniform and positions matter.
  for (float& p : m.params) p *= 6.0f;
  LengthModelId id = length_model_of(pos);
  return {id, c, tuned, m.params};
}

std::vector<uint8_t> some_text(size_t n) {
  const std::string s = "The quick brown fox jumps over the lazy dog; pack my box with jugs. ";
  std::vector<uint8_t> t;
  for (size_t i = 0; i < n; ++i) t.push_back(static_cast<uint8_t>(s[(i * 7 + i / 13) % s.size()]));
  return t;
}

LmModel model_of(const LengthLabModel& m) {
  LmModel r(m.config);
  r.params = m.params;
  r.set_scaling(m.tuned);
  return r;
}

const std::vector<std::pair<LmPosition, LmScaling>>& every_encoding() {
  static const std::vector<std::pair<LmPosition, LmScaling>> v{
      {LmPosition::rope, {}},
      {LmPosition::rope, {RopeScaling::yarn, 4.0}},
      {LmPosition::rope, {RopeScaling::dynamic_ntk, 2.0}},
      {LmPosition::alibi, {}},
      {LmPosition::t5, {}},
      {LmPosition::learned, {}},
      {LmPosition::sinusoidal, {}},
      {LmPosition::sinusoidal_scaled, {}},
      {LmPosition::none, {}}};
  return v;
}

}  // namespace

TEST_CASE("kv trained: the cached forward equals the model's forward of the same bytes") {
  for (const auto& [pos, sc] : every_encoding()) {
    INFO("position " << lm_position_name(pos) << ", scaling " << lm_scaling_label(sc));
    const LengthLabModel lm = seeded(pos, sc);
    LmModel m = model_of(lm);
    const int T = 40;  // past L = 16: clamped learned rows, dynamic NTK's growing base
    const std::vector<uint8_t> text = some_text(T + 1);
    m.forward(text.data(), 1, T);
    std::vector<float> want(m.losses(), m.losses() + T);
    // in three appends (a prefix, one byte, the rest): the cache carries the context
    LmKvCache c = lm_cache_empty(lm.config);
    std::vector<float> got(T);
    std::vector<int64_t> p(T);
    for (int t = 0; t < T; ++t) p[t] = t;
    lm_cache_append(m, c, text.data(), p.data(), 17, text.data() + 1, got.data());
    lm_cache_append(m, c, text.data() + 17, p.data() + 17, 1, text.data() + 18, got.data() + 17);
    lm_cache_append(m, c, text.data() + 18, p.data() + 18, T - 18, text.data() + 19,
                    got.data() + 18);
    CHECK(c.size() == T);
    double worst = 0;
    for (int t = 0; t < T; ++t)
      worst = std::max(worst, std::abs(static_cast<double>(got[t] - want[t])));
    CHECK(worst < 2e-4);  // nats; float rounding of a different summation order
  }
}

TEST_CASE("kv trained: re-encoded block-0 keys equal recomputed ones, deeper keys do not") {
  const LengthLabModel lm = seeded(LmPosition::rope);
  LmModel m = model_of(lm);
  const std::vector<uint8_t> text = some_text(30);  // B = text[0..12), A = text[12..30)
  const int nb = 12, na = 18;
  std::vector<int64_t> pos(30);
  for (int t = 0; t < 30; ++t) pos[t] = t;
  LmKvCache ref = lm_cache_empty(lm.config), cb = ref, ca = ref;
  lm_cache_append(m, ref, text.data(), pos.data(), 30, nullptr, nullptr);
  lm_cache_append(m, cb, text.data(), pos.data(), nb, nullptr, nullptr);
  lm_cache_append(m, ca, text.data() + nb, pos.data(), na, nullptr, nullptr);
  LmKvCache st = lm_cache_concat(cb, ca);
  lm_cache_reencode(m, st, std::vector<int64_t>(pos.begin(), pos.end()));
  double k0 = 0, n0 = 0, k1 = 0;
  for (size_t i = 0; i < ref.k[0].size(); ++i) {
    k0 = std::max(k0, static_cast<double>(std::abs(st.k[0][i] - ref.k[0][i])));
    n0 = std::max(n0, static_cast<double>(std::abs(ref.k[0][i])));
    k1 = std::max(k1, static_cast<double>(std::abs(st.k[1][i] - ref.k[1][i])));
  }
  CHECK(k0 < 1e-5 * std::max(1.0, n0));
  CHECK(k1 > 1e-3);  // block 1's keys of A never saw B

  // The same through the lab: per-block key difference of reencode vs naive.
  KvTrainedSettings s;
  s.a_length = 20, s.b_length = 24, s.continuation = 12;
  const KvTrainedResult r = kv_trained_compute(s, lm, some_text(600));
  REQUIRE(r.methods.size() == 3);
  CHECK(r.methods[0].name == "recompute");
  CHECK(r.find("reencode")->key_diff[0] < 1e-6);
  CHECK(r.find("naive")->key_diff[0] > 1e-2);
  CHECK(r.find("reencode")->key_diff[1] > 1e-3);
  CHECK(r.find("reencode")->value_diff[0] < 1e-6);  // block 0's values depend on the byte only
  CHECK(r.find("naive")->value_diff == r.find("reencode")->value_diff);
  CHECK(r.bytes.size() == 12);
}

TEST_CASE("kv trained: with nothing stitched every method equals the reference exactly") {
  for (const auto& [pos, sc] : every_encoding()) {
    INFO("position " << lm_position_name(pos));
    KvTrainedSettings s;
    s.b_length = 0;  // A alone: the stitched cache is A's own
    s.a_length = 20, s.continuation = 10;
    const KvTrainedResult r = kv_trained_compute(s, seeded(pos, sc), some_text(600));
    REQUIRE(r.methods.size() >= 2);
    for (const auto& m : r.methods) {
      INFO("method " << m.name);
      CHECK(m.bits == r.methods[0].bits);
      for (double d : m.key_diff) CHECK(d == 0.0);
      for (double d : m.hidden_diff) CHECK(d == 0.0);
    }
  }
}

TEST_CASE("kv trained: a rolling cache at least as long as the text equals the full window") {
  for (const auto& [pos, sc] : every_encoding()) {
    INFO("position " << lm_position_name(pos) << ", scaling " << lm_scaling_label(sc));
    KvTrainedSettings s;
    s.scenario = KvTrainedScenario::stream;
    s.span = 3;  // 48 bytes predicted
    s.window = 48;
    s.sinks = 2;
    const KvTrainedResult r = kv_trained_compute(s, seeded(pos, sc), some_text(600));
    REQUIRE(r.methods.size() == 5);
    for (const auto& m : r.methods) {
      INFO("method " << m.name);
      REQUIRE(m.bits.size() == 48);
      for (size_t t = 0; t < 48; ++t) CHECK(std::abs(m.bits[t] - r.methods[0].bits[t]) < 3e-4);
    }
    // a short window does change the loss past it (the window evicts)
    s.window = 8;
    const KvTrainedResult w = kv_trained_compute(s, seeded(pos, sc), some_text(600));
    CHECK(w.find("naive")->bits != w.methods[0].bits);
  }
}

TEST_CASE("kv trained: stitch on learned positions measures naive and recompute only") {
  const KvTrainedResult r = kv_trained_compute({}, seeded(LmPosition::learned), some_text(600));
  REQUIRE(r.methods.size() == 2);
  CHECK(r.find("reencode") == nullptr);
  CHECK(r.note.find("does not apply") != std::string::npos);
  // alibi: re-encoding leaves the keys as they are and changes the bias only
  const KvTrainedResult a = kv_trained_compute({}, seeded(LmPosition::alibi), some_text(600));
  CHECK(a.find("reencode")->key_diff == a.find("naive")->key_diff);
  CHECK(a.find("reencode")->bits != a.find("naive")->bits);
}

TEST_CASE("kv trained: bad input and budgets are one-line errors naming the value") {
  const LengthLabModel lm = seeded(LmPosition::rope);
  const std::vector<uint8_t> text = some_text(600);
  auto error_of = [&](const KvTrainedSettings& s, const LmBudget& b = {}) -> std::string {
    try {
      kv_trained_compute(s, lm, text, b);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  KvTrainedSettings s;
  s.scenario = KvTrainedScenario::rag;
  s.retrieved = 0;
  CHECK(error_of(s).find("RAG set is empty") != std::string::npos);
  s.retrieved = 40;  // 0, 4, .., 156 past B's 64 bytes
  CHECK(error_of(s).find("lengthen B") != std::string::npos);
  s = {};
  s.scenario = KvTrainedScenario::stream;
  s.window = 0;
  CHECK(error_of(s).find("window = 0") != std::string::npos);
  s.window = 8 * 16 + 1;
  CHECK(error_of(s).find("past 8L = 128") != std::string::npos);
  s = {};
  s.a_length = 120;  // 120 + 32 + 1 > 8L + 1 = 129
  CHECK(error_of(s).find("passage A") != std::string::npos);
  LmBudget tiny;
  tiny.seconds = 1e-9;
  CHECK(error_of({}, tiny).find("use shorter passages") != std::string::npos);
  for (const std::string& e : {error_of(s), error_of({}, tiny)})
    CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("kv trained: the preset round-trips and names the trained source") {
  KvTrainedSettings s;
  s.model = LengthModelId::alibi;
  s.scenario = KvTrainedScenario::stream;
  s.window = 64;
  const std::string p = kv_trained_to_preset(s);
  CHECK(p.find("weights=trained") != std::string::npos);
  CHECK(kv_preset_is_trained(p));
  CHECK_FALSE(kv_preset_is_trained("kv?pos=rope"));
  CHECK(kv_trained_from_preset(p) == s);
  CHECK_THROWS_AS(kv_trained_from_preset("kv?weights=trained&window=-1"), InputError);
  CHECK_THROWS_AS(kv_trained_from_preset("kv?weights=trained&bogus=1"), InputError);
}
