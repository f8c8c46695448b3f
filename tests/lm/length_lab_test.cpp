// The length lab's computation and preset codec: the result has one curve per shown model
// (RoPE twice when a scaling is chosen), span x L positions each, missing models named, the
// text scored byte by byte, attention rows that sum to 1 under the causal mask, and a scaled
// heads view only for RoPE. Small seeded models stand in for the shipped ones.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/common/errors.hpp"
#include "core/labs.hpp"
#include "core/lm/length_lab.hpp"

using namespace poslab;
using namespace poslab::lm;

namespace {

LengthLabModel tiny_model(LengthModelId id, LmPosition pos, LmScaling tuned = {}) {
  LmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 1;
  c.context = 8;
  c.position = pos;
  LmModel m(c);
  m.init(7);
  return {id, c, tuned, m.params};
}

LengthLabData tiny_data() {
  LengthLabData d;
  d.models.push_back(tiny_model(LengthModelId::alibi, LmPosition::alibi));
  d.models.push_back(tiny_model(LengthModelId::rope, LmPosition::rope));
  d.models.push_back(tiny_model(LengthModelId::learned, LmPosition::learned));
  std::string text;
  for (int i = 0; i < 40; ++i) text += "the cat sat on the mat. ";
  d.valid.assign(text.begin(), text.end());
  return d;
}

}  // namespace

TEST_CASE("length lab: one curve per shown model, span x L positions, missing ones named") {
  const LengthLabData data = tiny_data();
  LengthLabSettings s;
  s.span = 3;
  s.windows = 2;
  s.scaling = RopeScaling::yarn;
  s.factor = 4;
  const LengthLabResult r = length_lab_compute(s, data);
  // alibi, learned, rope plain, rope + yarn (shown in id order: learned, rope, rope, alibi)
  REQUIRE(r.curves.size() == 4);
  CHECK(r.curves[0].id == LengthModelId::learned);
  CHECK(r.curves[1].id == LengthModelId::rope);
  CHECK(r.curves[1].scaling.scaling == RopeScaling::none);
  CHECK(r.curves[2].id == LengthModelId::rope);
  CHECK(r.curves[2].scaling.scaling == RopeScaling::yarn);
  CHECK(r.curves[3].id == LengthModelId::alibi);
  CHECK(r.positions == 24);
  for (const LengthCurve& c : r.curves) {
    INFO(length_model_name(c.id));
    REQUIRE(c.curve.mean_bits.size() == 24);
    for (double b : c.curve.mean_bits) CHECK(b > 0);
  }
  // none, both sinusoidal models, t5 and the two tuned models were not given
  CHECK(r.missing == std::vector<std::string>{"none", "sinusoidal", "sinusoidal_scaled", "t5",
                                              "rope_ft_pi", "rope_ft_yarn"});

  // Text view: a held-out passage of span x L + 1 bytes, each byte after the first scored.
  REQUIRE(r.text.size() == 25);
  REQUIRE(r.scores.bits.size() == 24);
  REQUIRE(r.scores.top.size() == 24);
  CHECK(r.scores.top[0].size() == static_cast<size_t>(s.topk));
  // Heads view: rows sum to 1 over s <= t, nothing above the diagonal; RoPE also scaled.
  REQUIRE(r.has_scaled_heads);
  for (const LmAttention* a : {&r.heads_plain, &r.heads_scaled}) {
    REQUIRE(a->n == 25);
    for (int t = 0; t < a->n; ++t) {
      double sum = 0;
      for (int k = 0; k < a->n; ++k) {
        const float p = a->probs[static_cast<size_t>(t) * a->n + k];
        if (k > t) CHECK(p == 0.0f);
        sum += p;
      }
      CHECK(sum == Approx(1.0).margin(1e-4));
    }
  }
}

TEST_CASE("length lab: a scaling changes only RoPE, other models get no scaled heads") {
  const LengthLabData data = tiny_data();
  LengthLabSettings s;
  s.span = 2;
  s.windows = 1;
  s.model = LengthModelId::alibi;
  s.scaling = RopeScaling::linear;
  const LengthLabResult a = length_lab_compute(s, data);
  CHECK_FALSE(a.has_scaled_heads);
  s.scaling = RopeScaling::ntk;
  s.scaled = true;  // ignored by ALiBi
  const LengthLabResult b = length_lab_compute(s, data);
  CHECK(a.scores.bits == b.scores.bits);
  // The ALiBi curve is the same whatever the RoPE scaling.
  CHECK(a.curves.back().curve.mean_bits == b.curves.back().curve.mean_bits);
}

TEST_CASE("length lab: own text, layer and head clamped, nothing found is an error") {
  const LengthLabData data = tiny_data();
  LengthLabSettings s;
  s.span = 1;
  s.windows = 1;
  s.source = LengthTextSource::own;
  s.text = "\xE5\xBA\x8A\xE5\x89\x8D";  // two Chinese characters, 6 bytes
  s.layer = 31;
  s.head = 63;
  const LengthLabResult r = length_lab_compute(s, data);
  CHECK(r.text.size() == 6);
  CHECK(r.scores.bits.size() == 5);
  CHECK(r.layer == 0);
  CHECK(r.head == 1);

  LengthLabData empty;
  empty.valid = data.valid;
  CHECK_THROWS_AS(length_lab_compute(s, empty), InputError);
}

TEST_CASE("length lab: the user's own models are measured beside the shipped ones") {
  LengthLabData data = tiny_data();
  LengthLabModel own = tiny_model(LengthModelId::rope, LmPosition::rope);
  own.own = "lm_own_rope_L8_seed1";
  own.step = 40;
  own.params[0] += 0.5f;  // not the shipped rope's weights
  data.put_own(own);
  data.put_own(own);  // the same name again replaces it
  LengthLabModel mine_t5 = tiny_model(LengthModelId::t5, LmPosition::t5);
  mine_t5.own = "lm_own_t5_L8_seed2";
  data.put_own(mine_t5);
  REQUIRE(data.models.size() == 5);
  // find() names a shipped model only: the text view never picks an own one by id.
  CHECK(data.find(LengthModelId::rope)->own.empty());
  CHECK(data.find(LengthModelId::t5) == nullptr);

  LengthLabSettings s;
  s.span = 2;
  s.windows = 2;
  s.scaling = RopeScaling::yarn;
  const LengthLabResult r = length_lab_compute(s, data);
  // shipped: learned, rope, rope + yarn, alibi; then own rope, own rope + yarn, own t5
  REQUIRE(r.curves.size() == 7);
  for (size_t i = 0; i < 4; ++i) CHECK(r.curves[i].own.empty());
  CHECK(r.curves[4].own == "lm_own_rope_L8_seed1");
  CHECK(r.curves[4].step == 40);
  CHECK(r.curves[4].scaling.scaling == RopeScaling::none);
  CHECK(r.curves[5].own == "lm_own_rope_L8_seed1");
  CHECK(r.curves[5].scaling.scaling == RopeScaling::yarn);
  CHECK(r.curves[6].own == "lm_own_t5_L8_seed2");
  CHECK(r.curves[6].id == LengthModelId::t5);
  // Different weights, different curve; the shipped t5 is still missing: an own model never
  // stands in for a shipped one.
  CHECK(r.curves[4].curve.mean_bits != r.curves[1].curve.mean_bits);
  CHECK(std::find(r.missing.begin(), r.missing.end(), "t5") != r.missing.end());

  s.show_own = false;
  CHECK(length_lab_compute(s, data).curves.size() == 4);
}

TEST_CASE("length lab: presets round-trip and reach the lab dispatch") {
  LengthLabSettings s;
  s.scaling = RopeScaling::linear;
  s.factor = 8;
  s.span = 4;
  s.model = LengthModelId::rope_ft_yarn;
  s.show_t5 = false;
  s.source = LengthTextSource::own;
  s.text = "a & b = c";
  const std::string p = length_to_preset(s);
  CHECK(length_from_preset(p) == s);
  CHECK(lab_preset_canonical(p) == p);
  CHECK(length_to_preset(LengthLabSettings{}) == "length");
  CHECK_THROWS_AS(length_from_preset("length?span=9"), InputError);
  CHECK_THROWS_AS(length_from_preset("length?model=gpt"), InputError);
}

TEST_CASE("length lab: run step by step (the browser build) equals the whole computation") {
  const LengthLabData data = tiny_data();
  LengthLabSettings s;
  s.span = 3;
  s.windows = 2;
  s.scaling = RopeScaling::yarn;
  s.factor = 4;
  s.scaled = true;
  const LengthLabResult whole = length_lab_compute(s, data);
  LengthLabRun run(s, data);
  // learned, rope, rope + yarn, alibi: a step per window; then the text and the two heads
  CHECK(run.steps() == 4 * 2 + 3);
  int frames = 0;
  while (!run.done()) {
    CHECK(run.steps_done() == frames);
    run.step();
    ++frames;
  }
  CHECK(frames == 4 * 2 + 3);
  const LengthLabResult r = run.take();
  REQUIRE(r.curves.size() == whole.curves.size());
  for (size_t i = 0; i < r.curves.size(); ++i) {
    CHECK(r.curves[i].id == whole.curves[i].id);
    CHECK(r.curves[i].curve.mean_bits == whole.curves[i].curve.mean_bits);
    CHECK(r.curves[i].curve.mean_bpb == whole.curves[i].curve.mean_bpb);
  }
  CHECK(r.positions == whole.positions);
  CHECK(r.scores.bits == whole.scores.bits);
  CHECK(r.heads_plain.probs == whole.heads_plain.probs);
  CHECK(r.heads_scaled.probs == whole.heads_scaled.probs);
  CHECK(r.has_scaled_heads == whole.has_scaled_heads);
  // The settings are checked when the run is made.
  s.windows = 0;
  CHECK_THROWS_AS(LengthLabRun(s, data), InputError);
}
