// The budgets of the language-model computations (issue 36): prices grow with the shapes as
// the buffers do, the lab prices every curve and view before running one (one over the
// budget is listed with a line saying what to change, the rest are shown), the "Train your
// own" L maximum and the own-text maximum are ones the lab's budget accepts, and a saturated
// model is refused instead of scoring 0 bits/byte. Peak memory is measured by
// tests/cli/cli_lm_budget_test.sh; these check the arithmetic and the refusals.
#include <catch2/catch.hpp>

#include <string>

#include "core/common/errors.hpp"
#include "core/lm/length_lab.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_own.hpp"

using namespace poslab;
using namespace poslab::lm;

namespace {

LmConfig own_shape(LmPosition p, int L) {
  LmOwnSpec spec;
  spec.position = p;
  spec.context = L;
  return lm_own_config(spec);
}

LengthLabModel model_of(LmConfig c, const std::string& own = "", float weight = 0) {
  LmModel m(c);
  m.init(3);
  if (weight != 0)
    for (float& w : m.params) w = weight;
  LengthLabModel out{length_model_of(c.position), c, {}, m.params};
  out.own = own;
  return out;
}

std::vector<uint8_t> some_text(size_t n) {
  std::vector<uint8_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<uint8_t>("the cat sat on the mat. "[i % 24]);
  return t;
}

}  // namespace

TEST_CASE("budget: the price of a forward grows with the attention maps, quadratically in T") {
  const LmConfig c = own_shape(LmPosition::t5, 128);
  const LmCost a = lm_forward_cost(c, 1, 1024), b = lm_forward_cost(c, 1, 2048);
  // (N probs + bias) x H + buckets: 4 x (2 + 1) x 4 + 4 = 52 bytes per (t, s) pair
  CHECK(b.bytes - a.bytes >= 52 * (int64_t{2048} * 2048 - int64_t{1024} * 1024));
  // every window keeps its own maps (N H T^2 floats); the bias and buckets are shared
  CHECK(lm_forward_cost(c, 8, 1024).bytes - a.bytes >=
        7 * int64_t{c.layers} * c.heads * 1024 * 1024 * 4);
  CHECK(lm_forward_cost(c, 4, 256, true).bytes > lm_forward_cost(c, 4, 256).bytes);
  CHECK(b.macs > a.macs);
  const LmBudget small{int64_t{64} << 20, 60};
  CHECK_THROWS_WITH(lm_budget_require("lm eval", b, small, "lower --positions"),
                    Catch::Contains("MB") && Catch::Contains("budget 64 MB") &&
                        Catch::Contains("lower --positions"));
}

TEST_CASE("budget: Train your own offers only an L whose runs and lab views fit the budget") {
  const int hi = static_cast<int>(lm_own_context_range().hi);
  INFO("L max " << hi);
  CHECK(hi >= 128);        // the shipped models' L stays trainable
  CHECK(hi < 1024);        // the former maximum took 8.4 GB in the lab
  LengthLabSettings most;  // the largest span, the default windows
  most.span = 8;
  const LmBudget budget;
  for (const LmPosition p : {LmPosition::none, LmPosition::learned, LmPosition::rope,
                             LmPosition::alibi, LmPosition::t5}) {
    const LmConfig c = own_shape(p, hi);
    CHECK(length_curve_cost(most, c).fits(budget));
    CHECK(length_views_cost(most, c, 8 * int64_t{hi} + 1).fits(budget));
    CHECK(lm_train_step_cost(c, 16, hi, 32, 2).fits(budget));
  }
  // more windows than the default on the longest own model: that curve is over the budget
  // and the lab says so in one line (a test of length_lab holds the line)
  LengthLabSettings many = most;
  many.windows = 256;
  CHECK_FALSE(length_curve_cost(many, own_shape(LmPosition::t5, hi)).fits(budget));
  LmOwnSpec s;
  s.context = hi + 16;
  CHECK_THROWS_AS(lm_own_validate(s), InputError);
}

TEST_CASE("budget: the longest own text the lab accepts fits its budget on every shape") {
  LengthLabSettings s;
  s.source = LengthTextSource::own;
  s.heads_bytes = static_cast<int>(LengthLabSettings::heads_bytes_range.hi);
  for (const LmPosition p :
       {LmPosition::none, LmPosition::learned, LmPosition::rope, LmPosition::alibi, LmPosition::t5})
    CHECK(length_views_cost(s, own_shape(p, 128), LengthLabSettings::max_text_bytes)
              .fits(LmBudget{}));
  s.text.assign(LengthLabSettings::max_text_bytes + 1, 'a');
  CHECK_THROWS_AS(length_lab_validate(s), InputError);
}

TEST_CASE("budget: a curve over the budget is listed with what to change, the rest are shown") {
  LengthLabData data;
  data.models.push_back(model_of(own_shape(LmPosition::rope, 16)));
  data.put_own(model_of(own_shape(LmPosition::alibi, 1024), "lm_own_alibi_L1024_seed1"));
  data.valid = some_text(9000);
  LengthLabSettings s;
  s.span = 8;
  s.windows = 4;
  s.scaling = RopeScaling::none;
  s.source = LengthTextSource::own;
  s.text = "a short text";
  const LengthLabResult r = length_lab_compute(s, data);
  REQUIRE(r.curves.size() == 1);
  CHECK(r.curves[0].context == 16);
  REQUIRE(r.refused.size() == 1);
  CHECK_THAT(r.refused[0], Catch::Contains("lm_own_alibi_L1024_seed1") &&
                               Catch::Contains("budget") && Catch::Contains("lower the span"));
  // Span 1 with one window fits it: the same model is then drawn.
  CHECK(length_model_unusable(data.models[1], 9000).empty());
  // An own model longer than the held-out text is unusable even at span 1, and says why.
  const std::string why = length_model_unusable(
      model_of(own_shape(LmPosition::learned, 65536), "lm_own_learned_L65536_seed1"), 9000);
  CHECK_THAT(
      why, Catch::Contains("lm_own_learned_L65536_seed1") && Catch::Contains("cannot measure it"));
}

TEST_CASE("budget: a view over the budget is refused before it runs, the curves still shown") {
  LengthLabData data;
  LmConfig big = own_shape(LmPosition::t5, 16);
  big.heads = 64;  // 64 heads: the text view's maps are 16 times the shipped shape's
  big.embed = 128;
  data.models.push_back(model_of(big));
  data.valid = some_text(9000);
  LengthLabSettings s;
  s.model = LengthModelId::t5;
  s.span = 1;
  s.windows = 1;
  s.source = LengthTextSource::own;
  s.text.assign(LengthLabSettings::max_text_bytes, 'a');
  const LengthLabResult r = length_lab_compute(s, data);
  CHECK(r.curves.size() == 1);
  CHECK(r.scores.bits.empty());
  REQUIRE(r.refused.size() == 1);
  CHECK_THAT(r.refused[0], Catch::Contains("text view") && Catch::Contains("shorten the text"));
}

TEST_CASE("budget: a saturated model is refused, not a perfect model of 0 bits/byte") {
  LengthLabData data;
  LmConfig tiny;  // a small shape, where weights of 1e6 saturate the softmax (0 bits/byte)
  tiny.embed = 16;
  tiny.heads = 2;
  tiny.layers = 1;
  tiny.context = 16;
  data.models.push_back(model_of(tiny, "", 1e6f));
  data.valid = some_text(2000);
  LengthLabSettings s;
  s.span = 2;
  s.windows = 2;
  s.scaling = RopeScaling::none;
  const LengthLabResult r = length_lab_compute(s, data);
  CHECK(r.curves.empty());
  CHECK(r.scores.bits.empty());
  REQUIRE_FALSE(r.refused.empty());
  CHECK_THAT(r.refused[0], Catch::Contains("rope") && Catch::Contains("saturated"));
}
