// The dream lab's core: preset codec, dream-vs-real errors against hand-computed
// references, the baselines, the token strip's indices (2t, 2t+1 and the reset picture),
// and the session: its real side equals plain sim_step, a model that copies reality
// dreams with zero error, restarts replay exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <numbers>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "core/wm/dream_lab_train.hpp"
#include "core/wm/eval.hpp"

using namespace poslab;
using namespace poslab::wm;

namespace {

// A "world model" that is the simulator itself: it replays the prompt's actions from the
// episode's seed and then steps with whatever it is fed. Its dream is reality.
class OracleModel final : public DreamModel {
 public:
  OracleModel(uint64_t seed, bnb::EpisodeConfig e) : seed_(seed), episode_(e) {}
  int context() const override { return 4; }
  WmPosition position() const override { return WmPosition::rope; }
  WmOverflow window() const override { return WmOverflow::slide; }
  void begin(std::span<const float> tokens, std::span<const uint8_t> actions, uint64_t) override {
    s_ = bnb::sim_reset(seed_, episode_);
    const size_t steps = actions.size() / (bnb::kSlots * 3);
    REQUIRE(tokens.size() == (steps + 1) * kFrameValues);
    for (size_t t = 0; t < steps; ++t) {
      bnb::JointAction a;
      for (int k = 0; k < bnb::kSlots; ++k) {
        const uint8_t* p = actions.data() + (t * bnb::kSlots + k) * 3;
        a[k] = {p[0], p[1], p[2]};
      }
      bnb::sim_step(s_, a);
    }
    ++begins;
  }
  // Its "action head" is the expert.
  DreamStep step(const DreamChoice& c) override {
    DreamStep out;
    const bnb::JointAction expert = bnb::expert_actions(s_);
    for (int k = 0; k < 8; ++k) out.actions[k] = c.use_given[k] ? c.given[k] : expert[k];
    bnb::sim_step(s_, out.actions);
    bnb::write_tokens(s_, out.next.data());
    return out;
  }
  std::unique_ptr<DreamModel> clone() const override {
    return std::make_unique<OracleModel>(*this);
  }
  int begins = 0;

 private:
  uint64_t seed_;
  bnb::EpisodeConfig episode_;
  bnb::SimState s_;
};

// A model that dreams every ship frozen in place (predicts its input state).
class FrozenModel final : public DreamModel {
 public:
  int context() const override { return 4; }
  WmPosition position() const override { return WmPosition::absolute; }
  WmOverflow window() const override { return WmOverflow::slide; }  // the naive reuse
  void begin(std::span<const float> tokens, std::span<const uint8_t>, uint64_t) override {
    std::copy(tokens.end() - kFrameValues, tokens.end(), now_.begin());
  }
  DreamStep step(const DreamChoice& c) override { return {c.given, now_}; }
  std::unique_ptr<DreamModel> clone() const override {
    return std::make_unique<FrozenModel>(*this);
  }

 private:
  FrameTokens now_{};
};

DreamSessionConfig small_config(int from = 5, int horizon = 30) {
  DreamSessionConfig c;
  c.seed = 11;
  c.episode.team0_size = 4;
  c.episode.team1_size = 4;
  c.policy = bnb::PolicyKind::noisy_expert;
  c.from = from;
  c.horizon = horizon;
  return c;
}

// One ship's token at position p (px), velocity v (px/s), attitude angle a (rad).
void put_ship(FrameTokens& f, int k, double x, double y, double vx, double vy, double a,
              double health = 50, double power = 50) {
  float* t = f.data() + k * bnb::kTokenDim;
  const double tp = 2 * std::numbers::pi;
  t[0] = 1;
  t[1] = k >= 4;
  t[2] = float(health / 100);
  t[3] = float(power / 100);
  t[4] = float(std::sin(tp * x / 1024));
  t[5] = float(std::cos(tp * x / 1024));
  t[6] = float(std::sin(tp * y / 1024));
  t[7] = float(std::cos(tp * y / 1024));
  t[8] = float(vx / 180);
  t[9] = float(vy / 180);
  t[10] = float(std::cos(a));
  t[11] = float(std::sin(a));
}

}  // namespace

TEST_CASE("dreams preset round trip and defaults", "[dreams]") {
  DreamLabSettings s;
  CHECK(dreams_to_preset(s) == "dreams");
  s.seed = 123;
  s.window = DreamVariant::naive;
  s.loop = DreamLoop::open;
  s.temperature = 0.5;
  s.helm = 3;
  s.follow = false;
  s.view = DreamView::ghost;
  s.cursor = 40;
  s.model = "my models/wm tiny.safetensors";
  s.compare = true;
  const std::string text = dreams_to_preset(s);
  const DreamLabSettings back = dreams_from_preset(text);
  CHECK(dreams_to_preset(back) == text);
  CHECK(back.window == DreamVariant::naive);
  CHECK(back.model == s.model);
  CHECK(back.temperature == 0.5);
  CHECK_THROWS_AS(dreams_from_preset("dreams?variant=alibi"), InputError);
  // The naive reuse's old preset value still loads; the patch round-trips.
  CHECK(dreams_from_preset("dreams?variant=reset&seed=3").window == DreamVariant::naive);
  CHECK(dreams_from_preset("dreams?seed=3&variant=reset").window == DreamVariant::naive);
  CHECK(dreams_from_preset("dreams?variant=patch").window == DreamVariant::patch);
  CHECK(dreams_to_preset(dreams_from_preset("dreams?variant=patch")) == "dreams?variant=patch");
  CHECK_THROWS_AS(dreams_from_preset("dreams?variant=resetx"), InputError);
  // The shipped model's size picks the file; a named checkpoint wins over it.
  const DreamLabSettings paper = dreams_from_preset("dreams?size=paper&variant=patch");
  CHECK(paper.size == DreamModelSize::paper);
  CHECK(dreams_to_preset(paper) == "dreams?variant=patch&size=paper");
  CHECK(dream_model_path("", paper.window, "m", paper.size) ==
        (std::filesystem::path("m") / "wm_paper_absolute.safetensors").string());
  CHECK(dream_model_path("", DreamVariant::rope, "m") ==
        (std::filesystem::path("m") / "wm_tiny_rope.safetensors").string());
  CHECK(dream_model_path("own.safetensors", DreamVariant::rope, "m", DreamModelSize::paper) ==
        "own.safetensors");
  CHECK(dreams_session_of(paper) != dreams_session_of(dreams_from_preset("dreams?variant=patch")));
  CHECK_THROWS_AS(dreams_from_preset("dreams?size=huge"), InputError);
  CHECK_THROWS_AS(dreams_from_preset("dreams?temp=9"), InputError);
  CHECK(dreams_from_preset("dreams?train=2").train == 2);
  CHECK_THROWS_AS(dreams_from_preset("dreams?train=3"), InputError);
  CHECK_THROWS_AS(dreams_from_preset("dreams?helm=8"), InputError);
  CHECK_THROWS_AS(dreams_from_preset("dreams?nonsense=1"), InputError);
  CHECK_THROWS_AS(dreams_from_preset("dreams?start=file"), InputError);
  CHECK_THROWS_AS(dreams_from_preset("arena?seed=1"), InputError);
}

TEST_CASE("dream from here: the arena's episode as a dreams preset", "[dreams]") {
  bnb::ArenaLabSettings a;
  a.seed = 42;
  a.team0_size = 2;
  a.team1_size = 3;
  a.policy = 2;
  const DreamLabSettings s = dreams_from_preset(dreams_preset_from_arena(a, 57));
  CHECK(s.start == DreamSource::seed);
  CHECK(s.seed == 42);
  CHECK(s.team0_size == 2);
  CHECK(s.team1_size == 3);
  CHECK(s.policy == 2);
  CHECK(s.from == 57);
  a.source = bnb::ArenaSource::file;
  a.file = "/data/fights.h5";
  a.episode = 3;
  const DreamLabSettings f = dreams_from_preset(dreams_preset_from_arena(a, 9000));
  CHECK(f.start == DreamSource::file);
  CHECK(f.file == "/data/fights.h5");
  CHECK(f.episode == 3);
  CHECK(f.from == 511);
}

TEST_CASE("step error against hand-computed references", "[dreams]") {
  FrameTokens real{}, pred{};
  // Ship 0 near the right edge, predicted 10 px across the seam (wrap-aware: 10, not 1014).
  put_ship(real, 0, 1020, 500, 100, 0, 0.0, 60, 40);
  put_ship(pred, 0, 6, 500, 100, 30, std::numbers::pi / 2, 50, 70);
  // Ship 5 exact.
  put_ship(real, 5, 300, 300, -50, 20, 1.0);
  put_ship(pred, 5, 300, 300, -50, 20, 1.0);
  const ErrorSummary e = step_error(real, pred);
  CHECK(e.alive_count == 2);
  CHECK(e.present_count == 2);
  CHECK(e.agree_count == 2);
  CHECK(e.alive_agree() == 1);
  CHECK(e.pos_px == Approx(10.0 / 2).margin(1e-3));
  CHECK(e.vel_px_s == Approx(30.0 / 2).margin(1e-3));
  CHECK(e.att_deg == Approx(90.0 / 2).margin(1e-3));
  CHECK(e.health == Approx(10.0 / 2).margin(1e-4));
  CHECK(e.power == Approx(30.0 / 2).margin(1e-4));
  // A ship the prediction killed: counted in agreement, still in the means.
  pred[5 * 15] = 0;
  CHECK(step_error(real, pred).agree_count == 1);
  CHECK(step_error(real, pred).alive_agree() == 0.5);
  CHECK(step_error(real, real).pos_px == 0);
}

TEST_CASE("token strip indices are 2t and 2t+1 and the cache slides", "[dreams]") {
  for (auto [pos, w] : {std::pair{WmPosition::rope, WmOverflow::slide},
                        std::pair{WmPosition::absolute, WmOverflow::recompute},
                        std::pair{WmPosition::absolute, WmOverflow::slide}}) {
    INFO("position " << wm_position_name(pos) << ", window " << wm_overflow_name(w));
    const auto strip = dream_token_strip(pos, w, 4, 3);  // not full yet: no difference
    REQUIRE(strip.size() == 6);
    for (size_t i = 0; i < strip.size(); ++i) {
      CHECK(strip[i].nominal == int(i));
      CHECK(strip[i].step == int(i) / 2);
      CHECK(strip[i].action == (i % 2 == 1));
      CHECK(strip[i].cached);
      CHECK(strip[i].stored == int(i));
      CHECK(strip[i].used == int(i));
    }
  }
  // Full cache of C = 4 steps after 6 steps: steps 2..5 cached.
  const auto rope = dream_token_strip(WmPosition::rope, WmOverflow::slide, 4, 6);
  const auto rec = dream_token_strip(WmPosition::absolute, WmOverflow::recompute, 4, 6);
  for (int i = 0; i < 12; ++i) {
    INFO("token " << i);
    CHECK(rope[i].cached == (i >= 4));
    CHECK(rec[i].cached == (i >= 4));
    if (i >= 4) {
      CHECK(rope[i].stored == i);
      CHECK(rope[i].used == i);
      CHECK(rec[i].stored == i - 4);
      CHECK(rec[i].used == i - 4);
    }
  }
}

TEST_CASE("token strip shows the naive reuse's stored versus used indices", "[dreams]") {
  // C = 4 steps (8 tokens). After 5 steps step 0 has left; steps 1..3 were stored at 2..7
  // and are now used at 0..5; step 4 was appended after the drop at 6, 7.
  const auto s5 = dream_token_strip(WmPosition::absolute, WmOverflow::slide, 4, 5);  // naive
  const std::vector<int> stored5{2, 3, 4, 5, 6, 7, 6, 7};
  for (int i = 0; i < 8; ++i) {
    INFO("cached token " << i);
    CHECK(s5[2 + i].cached);
    CHECK(s5[2 + i].stored == stored5[i]);
    CHECK(s5[2 + i].used == i);
  }
  CHECK_FALSE(s5[0].cached);
  CHECK(s5[0].stored == -1);
  // Much later every step was stored at 6, 7 (the slot it entered at), used where it is now.
  const auto s20 = dream_token_strip(WmPosition::absolute, WmOverflow::slide, 4, 20);
  for (int t = 16; t < 20; ++t) {
    CHECK(s20[2 * t].stored == 6);
    CHECK(s20[2 * t].used == 2 * (t - 16));
    CHECK(s20[2 * t + 1].used == 2 * (t - 16) + 1);
  }
}

TEST_CASE("session real side equals plain sim_step under the same behaviour", "[dreams]") {
  const DreamSessionConfig c = small_config(5, 40);
  DreamEngine engine;
  DreamTimeline tl;
  dream_session_begin(c, nullptr, engine, tl);
  REQUIRE(tl.start == 5);
  dream_session_run(engine, tl, 100);
  // Independent reference: the same episode through sim_step and the behaviour directly.
  bnb::SimState s = bnb::sim_reset(c.seed, c.episode);
  bnb::Behaviour b = bnb::behaviour_init(c.policy, c.seed);
  FrameTokens want;
  for (const DreamFrame& f : tl.frames) {
    INFO("step " << f.step);
    bnb::write_tokens(s, want.data());
    CHECK(f.real_tokens == want);
    CHECK(f.real.tick == s.tick);
    CHECK(f.real.bullets.size() == s.bullets.size());
    if (s.done || f.step == tl.frames.back().step) break;
    const bnb::Decision d = bnb::behaviour_act(b, s);
    bnb::sim_step(s, d.executed);
    CHECK(tl.frames[f.step + 1].real_action == d.executed);
  }
  CHECK(tl.finished);
  CHECK((tl.dream_steps() == 40 || tl.frames.back().real.done));
}

TEST_CASE("a model that copies reality dreams with zero error", "[dreams]") {
  for (DreamLoop loop : {DreamLoop::closed, DreamLoop::open}) {
    INFO("loop " << (loop == DreamLoop::closed ? "closed" : "open"));
    DreamSessionConfig c = small_config(6, 50);
    c.loop = loop;
    DreamEngine engine;
    DreamTimeline tl;
    dream_session_begin(c, std::make_unique<OracleModel>(c.seed, c.episode), engine, tl);
    dream_session_run(engine, tl, 50);
    const DreamCurves curves = dream_curves(tl);
    REQUIRE(!curves.dream.empty());
    for (size_t h = 0; h < curves.dream.size(); ++h) {
      INFO("horizon " << h + 1);
      CHECK(curves.dream[h].pos_px == 0);
      CHECK(curves.dream[h].vel_px_s == 0);
      CHECK(curves.dream[h].health == 0);
      CHECK(curves.dream[h].agree_count == curves.dream[h].present_count);
    }
    // Baselines of a moving fight are not zero: the curves can tell models apart.
    CHECK(curves.copy_last.back().pos_px > 1.0);
    CHECK(curves.const_velocity.back().pos_px > 0.0);
    if (loop == DreamLoop::open) {
      // Reality followed the model's (expert) choices, not the noisy behaviour.
      const DreamFrame& f = tl.frames[tl.start + 1];
      CHECK(f.real_action == bnb::expert_actions(tl.frames[tl.start].real));
    }
  }
}

TEST_CASE("frozen dream errors equal the copy-last baseline", "[dreams]") {
  const DreamSessionConfig c = small_config(3, 25);
  DreamEngine engine;
  DreamTimeline tl;
  dream_session_begin(c, std::make_unique<FrozenModel>(), engine, tl);
  dream_session_run(engine, tl, 25);
  const DreamCurves curves = dream_curves(tl);
  REQUIRE(curves.dream.size() == curves.copy_last.size());
  for (size_t h = 0; h < curves.dream.size(); ++h) {
    CHECK(curves.dream[h].pos_px == Approx(curves.copy_last[h].pos_px));
    CHECK(curves.dream[h].power == Approx(curves.copy_last[h].power));
  }
}

TEST_CASE("restart re-seeds the dream and replays reality exactly", "[dreams]") {
  const DreamSessionConfig c = small_config(4, 60);
  DreamEngine engine;
  DreamTimeline tl;
  auto model = std::make_unique<OracleModel>(c.seed, c.episode);
  dream_session_begin(c, std::move(model), engine, tl);
  dream_session_run(engine, tl, 30);
  const std::vector<DreamFrame> before = tl.frames;
  const int at = 17;
  dream_session_restart(engine, tl, at);
  CHECK(tl.start == at);
  CHECK(int(tl.frames.size()) == at + 1);
  CHECK(static_cast<OracleModel*>(engine.model.get())->begins == 2);
  dream_session_run(engine, tl, int(before.size()) - 1 - at);
  REQUIRE(tl.frames.size() == before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    INFO("step " << i);
    CHECK(tl.frames[i].real_tokens == before[i].real_tokens);
    CHECK(tl.frames[i].real_action == before[i].real_action);
    CHECK(tl.frames[i].dream_tokens == before[i].real_tokens);  // the oracle again
  }
  CHECK_THROWS_AS(dream_session_restart(engine, tl, 10000), InputError);
}

TEST_CASE("the helm flies the dream and optionally reality", "[dreams]") {
  const bnb::ShipAction helm_action{2, 6, 0};  // reverse, sharp air brake (no expert does it)
  for (bool follows : {true, false}) {
    INFO("real follows " << follows);
    const DreamSessionConfig c = small_config(2, 10);
    DreamEngine engine;
    DreamTimeline tl;
    dream_session_begin(c, std::make_unique<OracleModel>(c.seed, c.episode), engine, tl);
    int slot = 0;
    while (!tl.frames.back().real.ships[slot].alive) ++slot;
    dream_session_run(engine, tl, 5, HelmInput{slot, helm_action, follows});
    for (int h = 1; h <= tl.dream_steps(); ++h) {
      const DreamFrame& f = tl.frames[tl.start + h];
      CHECK(f.dream_action[slot] == helm_action);
      if (follows) CHECK(f.real_action == f.dream_action);
      if (follows) CHECK(f.error.pos_px == 0);
    }
    if (!follows) {
      // The oracle dreamt the helm's braking while reality flew its policy.
      CHECK(tl.frames.back().error.pos_px > 0);
    }
  }
}

TEST_CASE("a dataset episode replays as the real side", "[dreams]") {
  bnb::EpisodeSpec spec;
  spec.seed = 99;
  spec.policy = bnb::PolicyKind::noisy_expert;  // team sizes drawn by the seed
  const bnb::EpisodeRecord rec = bnb::run_episode(spec);
  DreamLabSettings s;
  s.from = 3;
  s.horizon = 20;
  const DreamSessionConfig c = dream_session_config(s, rec);
  CHECK(c.policy == bnb::PolicyKind::replay);
  DreamEngine engine;
  DreamTimeline tl;
  dream_session_begin(c, nullptr, engine, tl);
  dream_session_run(engine, tl, 20);
  for (const DreamFrame& f : tl.frames) {
    if (f.step >= rec.rows) break;
    INFO("row " << f.step);
    CHECK(std::equal(f.real_tokens.begin(), f.real_tokens.end(),
                     rec.tokens.begin() + size_t(f.step) * kFrameValues));
  }
  bnb::EpisodeRecord bad = rec;
  bad.tokens[4] += 0.5f;
  CHECK_THROWS_AS(dream_session_config(s, bad), InputError);
}

// ---- The world model behind the DreamModel interface -------------------------------------

namespace {

std::unique_ptr<DreamModel> small_model(WmPosition pos, DreamVariant w, uint64_t seed = 3,
                                        DreamCompute compute = DreamCompute::kv_cache) {
  WmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = 6;
  c.position = pos;
  WorldModel m(c);
  m.init(seed);
  return make_dream_model(c, m.params, w, compute);
}

bool frame_is_clean(const FrameTokens& f, const FrameTokens& start) {
  for (int k = 0; k < 8; ++k) {
    const float* t = f.data() + k * 15;
    const float* s = start.data() + k * 15;
    const bool present = s[4] * s[4] + s[5] * s[5] > 0.5f;
    for (int c = 0; c < 15; ++c) {
      if (!std::isfinite(t[c])) return false;
      if (!present && t[c] != 0.0f) return false;
    }
    if (!present) continue;
    if (std::abs(t[4] * t[4] + t[5] * t[5] - 1.0f) > 1e-4f) return false;
    if (std::abs(t[6] * t[6] + t[7] * t[7] - 1.0f) > 1e-4f) return false;
    if (t[1] != (k >= 4 ? 1.0f : 0.0f)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a world model dreams three contexts long without NaN in every window mode", "[dreams]") {
  const std::pair<WmPosition, DreamVariant> cases[] = {
      {WmPosition::rope, DreamVariant::rope},
      {WmPosition::absolute, DreamVariant::recompute},
      {WmPosition::absolute, DreamVariant::naive},
      {WmPosition::absolute, DreamVariant::patch}};
  for (const auto& [pos, window] : cases) {
    for (DreamLoop loop : {DreamLoop::closed, DreamLoop::open}) {
      INFO("window " << dream_variant_names()[int(window)] << ", loop " << int(loop));
      DreamSessionConfig c = small_config(4, 18);  // context 6: three windows
      c.episode.team0_size = 2;                    // absent slots must stay empty
      c.episode.team1_size = 3;
      c.loop = loop;
      c.temperature = 0.7;
      DreamEngine engine;
      DreamTimeline tl;
      dream_session_begin(c, small_model(pos, window), engine, tl);
      dream_session_run(engine, tl, 18);
      REQUIRE(tl.dream_steps() >= 1);
      for (int h = 1; h <= tl.dream_steps(); ++h) {
        const DreamFrame& f = tl.frames[tl.start + h];
        INFO("horizon " << h);
        CHECK(frame_is_clean(f.dream_tokens, tl.frames[0].real_tokens));
        CHECK(std::isfinite(f.error.pos_px));
        CHECK(f.error.pos_px <= 725.0);  // half the torus diagonal
        CHECK(!f.strip.empty());
        CHECK(int(f.strip.size()) <= 2 * 6);
        CHECK(f.strip.back().nominal == 2 * f.step - 1);  // A of the newest step
      }
    }
  }
}

TEST_CASE("the dream model is deterministic and its clone dreams the same", "[dreams]") {
  const DreamSessionConfig c = small_config(3, 10);
  auto proto = small_model(WmPosition::rope, DreamVariant::rope);
  DreamEngine e1, e2;
  DreamTimeline t1, t2;
  dream_session_begin(c, proto->clone(), e1, t1);
  dream_session_begin(c, proto->clone(), e2, t2);
  dream_session_run(e1, t1, 10);
  dream_session_run(e2, t2, 10);
  REQUIRE(t1.frames.size() == t2.frames.size());
  for (size_t i = 0; i < t1.frames.size(); ++i)
    CHECK(t1.frames[i].dream_tokens == t2.frames[i].dream_tokens);
}

TEST_CASE("dream model rejects a window its position variant cannot use", "[dreams]") {
  CHECK_THROWS_AS(small_model(WmPosition::rope, DreamVariant::naive), InputError);
  CHECK_THROWS_AS(small_model(WmPosition::absolute, DreamVariant::rope), InputError);
  WmConfig c;
  CHECK_THROWS_AS(make_dream_model(c, std::vector<float>(10), DreamVariant::rope), InputError);
}

TEST_CASE("action sampling follows the softmax at the temperature", "[dreams]") {
  std::array<float, 96> logits{};
  float* l = logits.data() + 2 * 12;
  l[1] = 2.0f;      // power: BOOST favoured
  l[3 + 4] = 1.0f;  // turn: SHARP_RIGHT
  const bnb::JointAction greedy = dream_sample_actions(logits, 0.0, 5, 0);
  CHECK(greedy[2] == bnb::ShipAction{1, 4, 0});
  CHECK(greedy[0] == bnb::ShipAction{});  // all logits equal: the first
  const int n = 20000;
  for (double temp : {1.0, 2.0}) {
    INFO("temperature " << temp);
    int boost = 0;
    for (int i = 0; i < n; ++i) boost += dream_sample_actions(logits, temp, 5, i)[2].power == 1;
    // P(boost) = e^(2/T) / (e^(2/T) + 2); 20000 draws: std < 0.004.
    const double p = std::exp(2.0 / temp) / (std::exp(2.0 / temp) + 2.0);
    CHECK(double(boost) / n == Approx(p).margin(0.015));
  }
  CHECK_THROWS_AS(dream_sample_actions(std::span<const float>(logits.data(), 12), 1.0, 5, 0),
                  InputError);
}

TEST_CASE("the KV-cache dream equals the full forward within the context", "[dreams]") {
  // Context 6 steps: prompt 2 + 3 dream steps stay inside it, so caching changes nothing.
  // Open loop too: both pick actions with the one sampler (wm_pick_action), so the same
  // logits at the same step and seed give the same actions.
  for (auto [pos, v] : {std::pair{WmPosition::rope, DreamVariant::rope},
                        std::pair{WmPosition::absolute, DreamVariant::recompute},
                        std::pair{WmPosition::absolute, DreamVariant::naive},
                        std::pair{WmPosition::absolute, DreamVariant::patch}})
    for (DreamLoop loop : {DreamLoop::closed, DreamLoop::open}) {
      INFO("variant " << dream_variant_names()[int(v)] << ", " << dream_loop_name(loop));
      DreamSessionConfig c = small_config(2, 3);
      c.loop = loop;
      c.temperature = 1.0;
      c.sample_seed = 9;
      DreamEngine e1, e2;
      DreamTimeline t1, t2;
      dream_session_begin(c, small_model(pos, v, 3, DreamCompute::kv_cache), e1, t1);
      dream_session_begin(c, small_model(pos, v, 3, DreamCompute::full_forward), e2, t2);
      dream_session_run(e1, t1, 3);
      dream_session_run(e2, t2, 3);
      REQUIRE(t1.dream_steps() == 3);
      REQUIRE(t2.dream_steps() == 3);
      for (int h = 1; h <= 3; ++h) {
        INFO("horizon " << h);
        CHECK(t1.frames[2 + h].dream_action == t2.frames[2 + h].dream_action);
        for (int i = 0; i < kFrameValues; ++i) {
          INFO("value " << i);
          CHECK(t1.frames[2 + h].dream_tokens[i] ==
                Approx(t2.frames[2 + h].dream_tokens[i]).margin(2e-4));
        }
      }
    }
}

TEST_CASE("the decoder's cached indices are the token strip's bookkeeping", "[dreams]") {
  // Past the context (6 steps) for every variant: the decoder's own record of stored and
  // used positions equals dream_token_strip, including the reset's 2..9 -> 0..7 picture.
  for (auto [pos, v] : {std::pair{WmPosition::rope, DreamVariant::rope},
                        std::pair{WmPosition::absolute, DreamVariant::recompute},
                        std::pair{WmPosition::absolute, DreamVariant::naive},
                        std::pair{WmPosition::absolute, DreamVariant::patch}}) {
    INFO("variant " << dream_variant_names()[int(v)]);
    DreamSessionConfig c = small_config(3, 12);
    DreamEngine e;
    DreamTimeline tl;
    dream_session_begin(c, small_model(pos, v), e, tl);
    dream_session_run(e, tl, 12);
    for (int h = 1; h <= tl.dream_steps(); ++h) {
      const DreamFrame& f = tl.frames[tl.start + h];
      std::vector<StripToken> want;
      for (const StripToken& t : dream_token_strip(pos, dream_variant_overflow(v), 6, f.step))
        if (t.cached) want.push_back(t);
      INFO("step " << f.step);
      REQUIRE(f.strip.size() == want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        CHECK(f.strip[i].nominal == want[i].nominal);
        CHECK(f.strip[i].stored == want[i].stored);
        CHECK(f.strip[i].used == want[i].used);
      }
    }
    if (v == DreamVariant::naive) {  // some keys really are used away from their rows
      int off = 0;
      for (const StripToken& t : tl.frames.back().strip) off += t.stored != t.used;
      CHECK(off > 0);
    }
  }
}

TEST_CASE("dream attention rows are distributions", "[dreams]") {
  DreamSessionConfig c = small_config(3, 4);
  c.episode.team0_size = 2;
  DreamEngine e;
  DreamTimeline tl;
  dream_session_begin(c, small_model(WmPosition::rope, DreamVariant::rope), e, tl);
  dream_session_run(e, tl, 4);
  const DreamFrame& f = tl.frames.back();
  REQUIRE(f.attention);
  const DreamAttention& a = *f.attention;
  CHECK(a.layers == 1);
  CHECK(a.heads == 2);
  for (int n = 0; n < 8; ++n) {
    const float* prev = tl.frames[f.step - 1].dream_tokens.data() + n * 15;
    if (prev[0] < 0.5f) continue;  // rows of alive ships only
    for (int h = 0; h < a.heads; ++h) {
      INFO("ship " << n << " head " << h);
      const auto& row = a.temporal[0][h * 8 + n];
      CHECK(int(row.size()) == 2 * std::min(f.step, 6));  // the cache: context 6 steps
      double sum = 0;
      for (float w : row) sum += w;
      CHECK(sum == Approx(1.0).margin(1e-4));
      double srow = 0;
      for (int j = 0; j < 8; ++j) srow += a.spatial[0][h][n * 8 + j];
      CHECK(srow == Approx(1.0).margin(1e-4));
    }
  }
}

TEST_CASE("dream lab training reports curves, checkpoints and stops when asked", "[dreams]") {
  DreamTrainSpec spec;
  spec.episodes = 4;
  spec.steps = 6;
  spec.batch = 1;
  spec.log_every = 1;
  spec.val_every = 2;
  spec.checkpoint_every = 2;
  int progress_calls = 0, checkpoints = 0;
  size_t params = 0;
  DreamTrainHooks hooks;
  hooks.on_progress = [&](const DreamTrainProgress& p) {
    ++progress_calls;
    CHECK(p.step.size() == p.loss.size());
    CHECK(std::isfinite(p.loss.back()));
  };
  hooks.on_checkpoint = [&](const WmConfig& c, const std::vector<float>& w,
                            const nn::AdamWState& opt) {
    ++checkpoints;
    params = w.size();
    CHECK(w.size() == wm_param_count(c));
    // the cv state head with the loss in sigma units (docs/world-model.md section 12)
    CHECK(c.state_base == WmStateBase::cv);
    CHECK(c.state_scale.size() == size_t(kTokenDim));
    CHECK(c.state_loss == WmStateLoss::sigma);
    CHECK(opt.m.size() == w.size());
  };
  hooks.stop_requested = [&] { return progress_calls >= 3; };  // stop after 3 steps
  const DreamTrainProgress p = dream_lab_train(spec, {}, hooks);
  CHECK(p.done >= 3);
  CHECK(p.done < 6);  // stopped before the end
  CHECK(p.total == 6);
  CHECK(p.step.size() == size_t(p.done));  // one point per step, none repeated
  CHECK(p.step.back() == p.done);
  CHECK(p.val_step.size() >= 1);
  CHECK(progress_calls >= 3);
  CHECK(checkpoints >= 1);  // at step 2 and at the stop
  CHECK(params == wm_param_count(wm_preset("tiny")));
  CHECK(p.train_episodes + p.val_episodes == 4);
  spec.preset = "huge";
  CHECK_THROWS_AS(dream_lab_train(spec, {}, {}), InputError);
}
