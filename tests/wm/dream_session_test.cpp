// The one dream session (core/wm/dream_session.hpp) as every caller drives it: a prompt of
// the newest `history` real steps equals the KV-cache decoder fed by hand (the reference is
// the loop `wm_dream` ran before it became a wrapper), in both loops and every window mode
// past the context; the views change no number; the lab's session settings compare typed.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/bnb/bnb_episode.hpp"
#include "core/wm/dream_lab.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "core/wm/eval.hpp"

using namespace poslab;
using namespace poslab::wm;

namespace {

constexpr int NF = kShips * kTokenDim;

bnb::EpisodeRecord episode_3v3() {
  bnb::EpisodeSpec spec;
  spec.seed = 21;
  spec.config.team0_size = 3;
  spec.config.team1_size = 3;
  spec.policy = bnb::PolicyKind::noisy_expert;
  return bnb::run_episode(spec);
}

WmConfig tiny(WmPosition pos) {
  WmConfig mc;
  mc.embed = 16;
  mc.heads = 2;
  mc.layers = 2;
  mc.context = 6;
  mc.position = pos;
  return mc;
}

}  // namespace

TEST_CASE("a session's history prompt equals the decoder fed by hand", "[dreams]") {
  const bnb::EpisodeRecord rec = episode_3v3();
  REQUIRE(rec.rows > 40);
  for (auto [pos, overflow] : {std::pair{WmPosition::rope, WmOverflow::slide},
                               std::pair{WmPosition::absolute, WmOverflow::slide},
                               std::pair{WmPosition::absolute, WmOverflow::recompute},
                               std::pair{WmPosition::absolute, WmOverflow::patch}}) {
    WorldModel model(tiny(pos));
    model.init(4);
    model.set_threads(1);
    for (DreamLoop loop : {DreamLoop::closed, DreamLoop::open})
      for (int history : {0, 3, 20}) {
        const int start = 12, K = 15;  // K + history past the context of 6
        INFO(wm_position_name(pos) << " " << wm_overflow_name(overflow) << " "
                                   << dream_loop_name(loop) << " history " << history);
        // The session, as wm_dream runs it.
        DreamSessionConfig c = dream_session_config_of_record(rec, 100000);
        c.from = start;
        c.history = history;
        c.loop = loop;
        c.horizon = K;
        c.temperature = 0.8;
        c.sample_seed = 77;
        c.views = false;
        DreamEngine engine;
        DreamTimeline tl;
        dream_session_begin(c, make_dream_model(model, overflow), engine, tl);
        dream_session_run(engine, tl, K);
        REQUIRE(tl.dream_steps() == K);
        // The reference: the decoder fed rows start - history .. start - 1, then its own
        // cleaned predictions.
        WmDreamer d(model, overflow);
        d.reset();
        for (int r = std::max(0, start - history); r < start; ++r)
          d.step_with_actions(rec.tokens.data() + size_t(r) * NF,
                              rec.actions.data() + size_t(r) * kShips * 3);
        std::vector<float> state(rec.tokens.begin() + start * NF,
                                 rec.tokens.begin() + (start + 1) * NF),
            clean(NF);
        WmActionChoice choice;
        choice.sample = true;
        choice.temperature = 0.8;
        choice.seed = 77;
        for (int j = 0; j < K; ++j) {
          INFO("dream step " << j + 1);
          const WmStepResult out =
              loop == DreamLoop::closed
                  ? d.step_with_actions(state.data(),
                                        rec.actions.data() + size_t(start + j) * kShips * 3)
                  : d.step(state.data(), choice);
          wm_clean_state(out.state_pred.data(), state.data(), clean.data());
          const DreamFrame& f = tl.frames[size_t(start + j + 1)];
          CHECK(std::equal(clean.begin(), clean.end(), f.dream_tokens.begin()));  // bit-exact
          for (int n = 0; n < kShips; ++n)
            CHECK(f.dream_action[n] == bnb::ShipAction{out.actions[n * 3], out.actions[n * 3 + 1],
                                                       out.actions[n * 3 + 2]});
          state = clean;
        }
      }
  }
}

TEST_CASE("wm_dream is the session: its frames, copied out", "[dreams]") {
  const bnb::EpisodeRecord rec = episode_3v3();
  WorldModel model(tiny(WmPosition::absolute));
  model.init(5);
  DreamParams p;
  p.steps = 200;  // closed loop: ends with the record
  p.history = 4;
  p.window = WmOverflow::patch;
  const DreamResult r = wm_dream(model, rec, 10, p);
  CHECK(r.steps == rec.rows - 1 - 10);
  CHECK(std::equal(r.real.begin(), r.real.end(), rec.tokens.begin() + 10 * NF));
  CHECK(r.model.horizons() == p.steps);
  CHECK(r.model.at(r.steps + 1).alive_count == 0);  // nothing scored past the record
}

TEST_CASE("the views change no number", "[dreams]") {
  const bnb::EpisodeRecord rec = episode_3v3();
  WorldModel model(tiny(WmPosition::rope));
  model.init(6);
  DreamTimeline with, without;
  for (bool views : {true, false}) {
    DreamSessionConfig c = dream_session_config_of_record(rec);
    c.from = 5;
    c.horizon = 12;
    c.loop = DreamLoop::open;
    c.sample_seed = 3;
    c.views = views;
    DreamEngine e;
    dream_session_begin(c, make_dream_model(model, WmOverflow::slide), e, views ? with : without);
    dream_session_run(e, views ? with : without, 12);
  }
  REQUIRE(with.frames.size() == without.frames.size());
  for (size_t i = size_t(with.start) + 1; i < with.frames.size(); ++i) {
    INFO("frame " << i);
    CHECK(with.frames[i].dream_tokens == without.frames[i].dream_tokens);
    CHECK(with.frames[i].dream_action == without.frames[i].dream_action);
    CHECK(with.frames[i].error.pos_px == without.frames[i].error.pos_px);
    CHECK(with.frames[i].attention != nullptr);
    CHECK(!with.frames[i].strip.empty());
    CHECK(without.frames[i].attention == nullptr);
    CHECK(without.frames[i].strip.empty());
  }
}

TEST_CASE("the lab's session settings: the view fields do not start a new session", "[dreams]") {
  const DreamLabSettings base;
  const DreamLabSession k = dreams_session_of(base);
  // View fields: the same session.
  for (const char* preset :
       {"dreams?view=ghost", "dreams?play=0", "dreams?speed=4", "dreams?t=20", "dreams?ship=3",
        "dreams?layer=1", "dreams?head=2", "dreams?attn=0", "dreams?strip=0", "dreams?compare=1",
        "dreams?train=1", "dreams?helm=2", "dreams?follow=0"}) {
    INFO(preset);
    CHECK(dreams_session_of(dreams_from_preset(preset)) == k);
  }
  // Session fields: a new one, each.
  for (const char* preset :
       {"dreams?start=file&file=x.h5", "dreams?seed=8", "dreams?team0=2", "dreams?team1=3",
        "dreams?policy=random", "dreams?file=x.h5", "dreams?episode=2", "dreams?from=9",
        "dreams?horizon=50", "dreams?variant=recompute", "dreams?model=m.safetensors",
        "dreams?size=paper", "dreams?loop=open", "dreams?temp=0.5"}) {
    INFO(preset);
    CHECK(!(dreams_session_of(dreams_from_preset(preset)) == k));
  }
  CHECK(!(dreams_session_of(base, true) == k));  // the unapproved file's stand-in
}
