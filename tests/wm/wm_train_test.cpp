// World-model training pieces: AdamW against hand-computed steps, data windows (split by
// episode, 4:1 short/long, padding masks, determinism), baselines and metrics against
// hand-made cases, and a short end-to-end training whose loss falls.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <set>

#include "core/bnb/bnb_features.hpp"
#include "core/common/errors.hpp"
#include "core/nn/adamw.hpp"
#include "core/wm/baselines.hpp"
#include "core/wm/data.hpp"
#include "core/wm/dream_lab_train.hpp"
#include "core/wm/eval.hpp"
#include "core/wm/train.hpp"

using namespace poslab;

TEST_CASE("AdamW first two steps equal the textbook formula computed by hand", "[adamw]") {
  nn::AdamWParams p;
  p.lr = 0.1;
  p.beta1 = 0.9;
  p.beta2 = 0.95;
  p.eps = 1e-8;
  p.weight_decay = 0.01;
  p.warmup_steps = 0;
  p.clip_norm = 0;
  std::vector<float> w{1.0f, -2.0f, 0.5f};
  const std::vector<uint8_t> mask{1, 1, 0};  // the last one is not decayed
  auto st = nn::adamw_init(3);
  std::vector<float> g{0.5f, -0.25f, 0.125f};
  nn::adamw_step(p, w, g, st, mask);
  // Step 1: m_hat = g, v_hat = g^2, so the update is lr * sign(g) (eps is negligible).
  CHECK(w[0] == Approx(1.0 * (1 - 0.1 * 0.01) - 0.1).epsilon(1e-6));
  CHECK(w[1] == Approx(-2.0 * (1 - 0.1 * 0.01) + 0.1).epsilon(1e-6));
  CHECK(w[2] == Approx(0.5 - 0.1).epsilon(1e-6));
  // Step 2 by hand: m = 0.9 m + 0.1 g, v = 0.95 v + 0.05 g^2, bias corrections 0.19, 0.0975.
  const double g1[3] = {0.5, -0.25, 0.125}, g2[3] = {0.1, 0.3, -0.2};
  const double w1[3] = {w[0], w[1], w[2]};
  std::vector<float> gg{0.1f, 0.3f, -0.2f};
  nn::adamw_step(p, w, gg, st, mask);
  for (int i = 0; i < 3; ++i) {
    const double m = 0.9 * (0.1 * g1[i]) + 0.1 * g2[i];
    const double v = 0.95 * (0.05 * g1[i] * g1[i]) + 0.05 * g2[i] * g2[i];
    const double mh = m / (1 - 0.81), vh = v / (1 - 0.9025);
    const double decay = mask[static_cast<size_t>(i)] ? 0.1 * 0.01 : 0.0;
    const double want = w1[i] * (1 - decay) - 0.1 * mh / (std::sqrt(vh) + 1e-8);
    INFO("parameter " << i);
    CHECK(w[static_cast<size_t>(i)] == Approx(want).epsilon(1e-5));
  }
  CHECK(st.step == 2);
}

TEST_CASE("AdamW clips the global norm to 1 and warms the learning rate up", "[adamw]") {
  nn::AdamWParams p;
  p.lr = 0.01;
  p.warmup_steps = 10;
  p.clip_norm = 1.0;
  p.weight_decay = 0;
  std::vector<float> w{0.0f, 0.0f};
  std::vector<float> g{3.0f, 4.0f};  // norm 5
  auto st = nn::adamw_init(2);
  const auto info = nn::adamw_step(p, w, g, st);
  CHECK(info.grad_norm == Approx(5.0));
  CHECK(info.clip_scale == Approx(1.0 / 5.0).epsilon(1e-6));
  CHECK(nn::global_norm(g) == Approx(1.0).epsilon(1e-6));
  CHECK(info.lr == Approx(0.001));  // step 1 of 10
  CHECK(nn::adamw_learning_rate(p, 5) == Approx(0.005));
  CHECK(nn::adamw_learning_rate(p, 10) == Approx(0.01));
  CHECK(nn::adamw_learning_rate(p, 1000) == Approx(0.01));
  std::vector<float> small{0.3f, 0.4f};  // norm 0.5: untouched
  const auto info2 = nn::adamw_step(p, w, small, st);
  CHECK(info2.clip_scale == 1.0);
  CHECK(small[0] == 0.3f);
  std::vector<float> bad{NAN, 0.0f};
  const auto before = w;
  CHECK_THROWS_AS(nn::adamw_step(p, w, bad, st), InputError);
  CHECK(w == before);
  CHECK(st.step == 2);
}

TEST_CASE("SWA holds the mean of the weight snapshots it took", "[adamw]") {
  nn::AdamWParams p;
  p.lr = 0.05;
  p.warmup_steps = 0;
  p.swa_start = 3;
  p.swa_every = 2;
  std::vector<float> w{1.0f};
  auto st = nn::adamw_init(1);
  std::vector<double> snaps;
  for (int t = 1; t <= 9; ++t) {
    std::vector<float> g{static_cast<float>(t % 3) - 0.7f};
    nn::adamw_step(p, w, g, st);
    if (t >= 3 && (t - 3) % 2 == 0) snaps.push_back(w[0]);
  }
  REQUIRE(st.swa_count == 4);  // steps 3, 5, 7, 9
  double mean = 0;
  for (double s : snaps) mean += s / static_cast<double>(snaps.size());
  CHECK(st.swa[0] == Approx(mean).epsilon(1e-6));
}

// ---- Data ------------------------------------------------------------------------------
namespace {

using namespace poslab::wm;

std::vector<bnb::EpisodeRecord> some_episodes(int n, uint64_t seed0, int max_steps = 512) {
  std::vector<bnb::EpisodeRecord> out;
  for (int i = 0; i < n; ++i) {
    bnb::EpisodeSpec spec;
    spec.seed = seed0 + static_cast<uint64_t>(i);
    spec.config.max_steps = max_steps;
    out.push_back(bnb::run_episode(spec));
  }
  return out;
}

WmConfig micro(WmPosition pos = WmPosition::rope) {
  WmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = 8;
  c.position = pos;
  return c;
}

}  // namespace

TEST_CASE("episodes split into disjoint train and validation sets, reproducibly", "[wm-data]") {
  for (int n : {1, 2, 10, 101}) {
    const auto s = wm_split_episodes(n, 0.1, 5);
    INFO("episodes " << n);
    std::set<int> all(s.train.begin(), s.train.end());
    for (int v : s.val) CHECK(all.insert(v).second);  // disjoint
    CHECK(static_cast<int>(all.size()) == n);
    CHECK(!s.train.empty());
    if (n >= 2) CHECK(!s.val.empty());
    if (n == 101) CHECK(s.val.size() == 10);
    const auto again = wm_split_episodes(n, 0.1, 5);
    CHECK(again.val == s.val);
  }
  CHECK(wm_split_episodes(100, 0.1, 5).val != wm_split_episodes(100, 0.1, 6).val);
  CHECK(wm_split_episodes(10, 0.0, 5).val.empty());
}

TEST_CASE("training windows: 4 short to 1 long, inside their episode, padded at the end",
          "[wm-data]") {
  auto eps = some_episodes(6, 40);
  eps[2] = some_episodes(1, 99, 5)[0];  // a 6-row episode: shorter than every window
  REQUIRE(eps[2].rows == 6);
  const WmConfig c = micro();
  WmDataParams p;
  p.batch = 16;
  p.seed = 3;
  CHECK(wm_long_steps(p, c) == 8);
  CHECK(wm_short_steps(p, c) == 4);
  const std::vector<int> train{0, 1, 2, 3, 4};
  int longs = 0;
  bool saw_short_episode = false;
  for (int64_t k = 0; k < 50; ++k) {
    const int T = wm_train_steps_of_batch(p, c, k);
    longs += T == 8;
    const auto w = wm_train_windows(eps, train, p, c, k);
    REQUIRE(static_cast<int>(w.size()) == 16);
    const auto b = wm_make_batch(eps, w, T);
    wm_check_batch(c, b);
    for (int i = 0; i < 16; ++i) {
      const auto& win = w[static_cast<size_t>(i)];
      CHECK(win.episode != 5);  // not a training episode
      CHECK(win.start >= 0);
      CHECK(win.start + win.length <= eps[static_cast<size_t>(win.episode)].rows);
      CHECK(win.length == std::min(T, eps[static_cast<size_t>(win.episode)].rows));
      for (int t = 0; t < T; ++t)
        CHECK(b.valid[static_cast<size_t>(i * T + t)] == (t < win.length));
      // Row t of the window is row start + t of the episode.
      const int t = win.length - 1;
      const float* got = b.tokens.data() + (static_cast<size_t>(i * T + t)) * kShips * kTokenDim;
      const float* want = eps[static_cast<size_t>(win.episode)].tokens.data() +
                          static_cast<size_t>(win.start + t) * kShips * kTokenDim;
      CHECK(std::equal(got, got + kShips * kTokenDim, want));
      saw_short_episode |= win.episode == 2;
    }
    const auto again = wm_train_windows(eps, train, p, c, k);
    for (size_t i = 0; i < w.size(); ++i)
      CHECK((again[i].start == w[i].start && again[i].episode == w[i].episode));
  }
  CHECK(longs == 10);
  CHECK(saw_short_episode);
  WmDataParams bad = p;
  bad.long_steps = 9;
  CHECK_THROWS_WITH(wm_data_validate(bad, micro(WmPosition::absolute)), Catch::Contains("context"));
  CHECK_NOTHROW(wm_data_validate(bad, micro(WmPosition::rope)));
}

TEST_CASE("state scale: RMS one-step residual per value, floored and capped", "[wm-data]") {
  const auto eps = some_episodes(3, 80, 120);
  const std::vector<int> train{0, 2};
  const auto last = wm_state_scale(eps, train, WmStateBase::last);
  const auto cv = wm_state_scale(eps, train, WmStateBase::cv);
  REQUIRE(last.size() == kTokenDim);
  // by hand for the health value (index 2) with the last-state base
  double sum = 0;
  int64_t count = 0;
  for (int e : train)
    for (int t = 0; t + 1 < eps[e].rows; ++t)
      for (int n = 0; n < kShips; ++n) {
        const float* a = &eps[e].tokens[(static_cast<size_t>(t) * kShips + n) * kTokenDim];
        if (!token_present(a)) continue;
        const double d = double(a[kShips * kTokenDim + 2]) - double(a[2]);
        sum += d * d, ++count;
      }
  CHECK(last[2] == Approx(std::sqrt(sum / double(count))).epsilon(1e-5));
  for (int f = 0; f < kTokenDim; ++f) {
    INFO("value " << f);
    CHECK(last[f] >= kStateScaleFloor);
    CHECK(last[f] <= 1.0f);
    if (f < 4 || f > 7) CHECK(cv[f] == last[f]);  // cv moves positions only
  }
  CHECK(last[1] == kStateScaleFloor);                          // team never changes
  for (int f = 4; f <= 7; ++f) CHECK(cv[f] < 0.5f * last[f]);  // ships glide: cv is closer
}

TEST_CASE("validation windows tile each validation episode from row 0", "[wm-data]") {
  const auto eps = some_episodes(3, 70);
  const auto w = wm_val_windows(eps, {0, 2}, 8, 0);
  int covered0 = 0;
  for (const auto& x : w) {
    CHECK((x.episode == 0 || x.episode == 2));
    if (x.episode == 0) {
      CHECK(x.start == covered0);
      covered0 += x.length;
    }
  }
  CHECK(covered0 >= eps[0].rows - 1);
  CHECK(wm_val_windows(eps, {0, 2}, 8, 5).size() == 5);
}

// ---- Baselines and metrics -------------------------------------------------------------

namespace {

// One present, alive ship in slot 0 at (x, y) with velocity (vx, vy) px/s and heading angle.
std::vector<float> one_ship(double x, double y, double vx, double vy, double heading) {
  std::vector<float> s(kShips * kTokenDim, 0.0f);
  float* t = s.data();
  const double tp = 2 * std::numbers::pi;
  t[0] = 1;
  t[2] = 0.5f;
  t[3] = 0.7f;
  t[4] = static_cast<float>(std::sin(tp * x / 1024));
  t[5] = static_cast<float>(std::cos(tp * x / 1024));
  t[6] = static_cast<float>(std::sin(tp * y / 1024));
  t[7] = static_cast<float>(std::cos(tp * y / 1024));
  t[8] = static_cast<float>(vx / 180);
  t[9] = static_cast<float>(vy / 180);
  t[10] = static_cast<float>(std::cos(heading));
  t[11] = static_cast<float>(std::sin(heading));
  return s;
}

}  // namespace

TEST_CASE("constant velocity wraps around the torus and errors use the minimum image",
          "[wm-eval]") {
  // x = 1020 moving at 180 px/s: 7.2 px per agent step, so it wraps to 3.2.
  const auto s = one_ship(1020, 500, 180, 0, 0);
  std::vector<float> out(s.size());
  baseline_constant_velocity(s.data(), 1, out.data());
  const auto want = one_ship(3.2, 500, 180, 0, 0);
  const auto e = ship_errors(out.data(), want.data());
  CHECK(e.pos_px == Approx(0).margin(2e-3));
  // copy-last is 7.2 px off, across the seam (not 1016.8).
  baseline_copy_last(s.data(), 1, out.data());
  CHECK(ship_errors(out.data(), want.data()).pos_px == Approx(7.2).epsilon(1e-3));
  // Velocity, attitude, health and power in game units.
  const auto other = one_ship(1020, 500, 180, 90, std::numbers::pi / 2);
  const auto e2 = ship_errors(other.data(), s.data());
  CHECK(e2.vel_px_s == Approx(90).epsilon(1e-5));
  CHECK(e2.att_deg == Approx(90).epsilon(1e-4));
  CHECK(e2.health == 0);
  const auto back = one_ship(1020, 500, 180, 0, -std::numbers::pi * 0.9);
  CHECK(ship_errors(back.data(), s.data()).att_deg == Approx(162).epsilon(1e-4));
}

TEST_CASE("the error accumulator scores alive ships only and agreement over present ones",
          "[wm-eval]") {
  auto real = one_ship(100, 100, 0, 0, 0);
  auto pred = one_ship(103, 104, 0, 0, 0);  // 5 px off
  // Slot 1: present but dead in the real state; the prediction says alive (disagree).
  float* r1 = real.data() + kTokenDim;
  std::copy_n(real.data(), kTokenDim, r1);
  r1[0] = 0;
  float* p1 = pred.data() + kTokenDim;
  std::copy_n(real.data(), kTokenDim, p1);
  p1[4] = 1;  // far away: would spoil the position mean if counted
  p1[5] = 0;
  ErrorAccumulator acc(3);
  acc.add(2, pred.data(), real.data());
  const auto s = acc.at(2);
  CHECK(s.alive_count == 1);
  CHECK(s.present_count == 2);
  CHECK(s.pos_px == Approx(5).epsilon(1e-3));
  CHECK(s.agree_count == 1);
  CHECK(s.alive_agree() == Approx(0.5));
  CHECK(acc.at(1).present_count == 0);
}

TEST_CASE("constant velocity beats copy-last one step ahead in the real game", "[wm-eval]") {
  const auto eps = some_episodes(4, 500);
  ErrorAccumulator cv(1), cl(1);
  std::vector<float> out(kShips * kTokenDim);
  for (const auto& ep : eps)
    for (int r = 0; r + 1 < ep.rows; ++r) {
      const float* s = ep.tokens.data() + static_cast<size_t>(r) * kShips * kTokenDim;
      baseline_constant_velocity(s, 1, out.data());
      cv.add(1, out.data(), s + kShips * kTokenDim);
      baseline_copy_last(s, 1, out.data());
      cl.add(1, out.data(), s + kShips * kTokenDim);
    }
  REQUIRE(cv.at(1).alive_count > 100);
  // Ships move several px per step; a glide at the token velocity is off by well under one.
  CHECK(cl.at(1).pos_px > 2.0);
  CHECK(cv.at(1).pos_px < 0.3 * cl.at(1).pos_px);
}

TEST_CASE("cleaning a dreamt state keeps it a valid game state", "[wm-eval]") {
  auto prev = one_ship(10, 20, 30, 40, 0.3);
  std::vector<float> pred = prev;
  pred[4] *= 1.3f;  // off the unit circle
  pred[10] = 2.0f;
  pred[11] = 0.0f;
  pred[2] = 1.4f;
  pred[12] = 0.7f;
  pred[1] = 0.2f;  // team drifts
  std::vector<float> out(pred.size());
  wm_clean_state(pred.data(), prev.data(), out.data());
  CHECK(out[4] * out[4] + out[5] * out[5] == Approx(1).epsilon(1e-6));
  CHECK(out[10] == Approx(1));
  CHECK(out[2] == 1.0f);
  CHECK(out[12] == 1.0f);
  CHECK(out[1] == prev[1]);
  for (int k = kTokenDim; k < kShips * kTokenDim; ++k)
    CHECK(out[static_cast<size_t>(k)] == 0.0f);  // absent stay empty
  pred[0] = 0.2f;                                // predicted dead: frozen at the previous state
  wm_clean_state(pred.data(), prev.data(), out.data());
  CHECK(out[0] == 0.0f);
  CHECK(out[2] == 0.0f);
  CHECK(out[4] == prev[4]);
}

TEST_CASE("replaying an episode's seed and actions reproduces its rows", "[wm-eval]") {
  const auto eps = some_episodes(2, 900);
  for (const auto& ep : eps) {
    const int row = ep.rows / 2;
    const auto s = wm_replay_to(ep, row);
    std::vector<float> tok(kShips * kTokenDim);
    bnb::write_tokens(s, tok.data());
    CHECK(std::equal(tok.begin(), tok.end(),
                     ep.tokens.begin() + static_cast<long>(row) * kShips * kTokenDim));
  }
  auto broken = eps[0];
  broken.seed += 1;
  CHECK_THROWS_AS(wm_replay_to(broken, 3), InputError);
}

TEST_CASE(
    "a closed-loop dream is scored against the recorded rows, open loop against the simulator",
    "[wm-eval]") {
  const auto eps = some_episodes(1, 321);
  REQUIRE(eps[0].rows > 30);
  WorldModel m(micro());
  m.init(2);
  m.set_threads(1);
  DreamParams p;
  p.steps = 12;  // longer than the context of 8: the window slides
  p.history = 4;
  const auto r = wm_dream(m, eps[0], 6, p);
  REQUIRE(r.steps == 12);
  CHECK(std::equal(r.real.begin(), r.real.end(), eps[0].tokens.begin() + 6 * kShips * kTokenDim));
  CHECK(std::equal(r.actions.begin(), r.actions.end(), eps[0].actions.begin() + 6 * kShips * 3));
  std::vector<float> base(kShips * kTokenDim);
  baseline_constant_velocity(eps[0].tokens.data() + 6 * kShips * kTokenDim, 5, base.data());
  ErrorAccumulator direct(5);
  direct.add(5, base.data(), r.real.data() + 5 * kShips * kTokenDim);
  CHECK(r.const_velocity.at(5).pos_px == Approx(direct.at(5).pos_px));
  CHECK(std::isfinite(r.model.at(12).pos_px));
  // The first dreamt state is the full forward pass over the real rows 2..6 (the history
  // and the start), cleaned: the cache was fed exactly that sequence.
  const auto batch = wm_make_batch(eps, {{0, 2, 5}}, 5);
  m.forward(batch);
  std::vector<float> want(kShips * kTokenDim);
  wm_clean_state(m.state_pred() + 4 * kShips * kTokenDim,
                 eps[0].tokens.data() + 6 * kShips * kTokenDim, want.data());
  for (int i = 0; i < kShips * kTokenDim; ++i)
    CHECK(r.dreamt[static_cast<size_t>(kShips * kTokenDim + i)] ==
          Approx(want[static_cast<size_t>(i)]).margin(1e-4));
  p.loop = DreamLoop::open;
  p.temperature = 1.0;
  const auto o = wm_dream(m, eps[0], 6, p);
  REQUIRE(o.steps >= 1);
  // The open-loop reference is the simulator driven by the dream's own actions.
  auto s = wm_replay_to(eps[0], 6);
  std::vector<float> tok(kShips * kTokenDim);
  for (int j = 0; j < o.steps; ++j) {
    bnb::JointAction ja;
    for (int n = 0; n < kShips; ++n) {
      const uint8_t* a =
          o.actions.data() + (static_cast<size_t>(j) * kShips + static_cast<size_t>(n)) * 3;
      ja[static_cast<size_t>(n)] = {a[0], a[1], a[2]};
    }
    bnb::sim_step(s, ja);
  }
  bnb::write_tokens(s, tok.data());
  CHECK(std::equal(tok.begin(), tok.end(), o.real.end() - kShips * kTokenDim));
  const auto o2 = wm_dream(m, eps[0], 6, p);
  CHECK(o2.actions == o.actions);  // same seed, same samples
}

// ---- Training --------------------------------------------------------------------------

TEST_CASE("a short training run lowers the validation loss, and resuming is exact", "[wm-train]") {
  const auto eps = some_episodes(24, 2000, 120);
  const auto split = wm_split_episodes(static_cast<int>(eps.size()), 0.2, 1);
  WorldModel m(micro());
  m.init(5);
  m.set_threads(2);
  WmDataParams dp;
  dp.batch = 4;
  dp.seed = 1;
  nn::AdamWParams ap;
  ap.lr = 3e-3;
  ap.warmup_steps = 20;
  WmTrainParams tp;
  tp.steps = 300;
  tp.val_every = 300;
  tp.log_every = 50;
  tp.val_windows = 24;
  const auto vw = wm_val_windows(eps, split.val, 8, 24);
  const double before = wm_evaluate_loss(m, eps, vw, 8, 8).total;
  auto opt = nn::adamw_init(m.params.size());
  std::vector<double> logged;
  WmTrainHooks hooks;
  hooks.on_row = [&](const WmTrainRow& r) { logged.push_back(r.loss); };
  const auto last = wm_train(m, opt, ap, dp, tp, eps, split, hooks);
  CHECK(opt.step == 300);
  CHECK(logged.size() == 6);
  INFO("validation loss before " << before << ", after " << last.val_loss);
  CHECK(last.val_loss < 0.8 * before);
  CHECK(logged.back() < 0.8 * logged.front());

  // Resuming: 6 + 6 steps equal 12 steps (same batches, same optimiser state).
  WorldModel a(micro()), b(micro());
  a.init(9);
  b.init(9);
  a.set_threads(1);
  b.set_threads(1);
  auto oa = nn::adamw_init(a.params.size()), ob = oa;
  tp.steps = 12;
  wm_train(a, oa, ap, dp, tp, eps, split, {});
  tp.steps = 6;
  wm_train(b, ob, ap, dp, tp, eps, split, {});
  const auto snapshot_p = b.params;
  const auto snapshot_o = ob;
  WorldModel c(micro());
  c.params = snapshot_p;
  c.set_threads(1);
  auto oc = snapshot_o;
  tp.steps = 12;
  wm_train(c, oc, ap, dp, tp, eps, split, {});
  CHECK(c.params == a.params);
  CHECK(oc.m == oa.m);
}

TEST_CASE("weight decay applies to linear weights only", "[wm-train]") {
  const WmConfig c = micro(WmPosition::absolute);
  const auto layout = wm_param_layout(c);
  const auto mask = wm_decay_mask(layout);
  for (const auto& t : layout.tensors) {
    const bool decays = mask[t.offset] != 0;
    INFO(t.name);
    const bool linear = t.name.find("ln") == std::string::npos && t.name.size() > 7 &&
                        t.name.substr(t.name.size() - 7) == ".weight";
    CHECK(decays == linear);
  }
}

// Issue 37: the page trains between frames, so one WmTrainer::step() is one bounded stage
// (the inputs, a half block, the heads; or a validation forward's stage), never a whole
// optimiser step, and the stages give today's full-batch step bit for bit: the reference
// below is the loop as it was (whole forward, whole backward, AdamW).
TEST_CASE("training steps are bounded stages whose weights equal whole passes bit for bit",
          "[wm-train]") {
  const auto eps = some_episodes(12, 3000, 80);
  const auto split = wm_split_episodes(static_cast<int>(eps.size()), 0.2, 3);
  for (const WmPosition pos : {WmPosition::rope, WmPosition::absolute}) {
    INFO("position " << wm_position_name(pos));
    WorldModel a(micro(pos)), ref(micro(pos));
    a.init(4);
    ref.init(4);
    WmDataParams dp;
    dp.batch = 3;
    dp.seed = 2;
    nn::AdamWParams ap;
    ap.lr = 3e-3;
    WmTrainParams tp;
    tp.steps = 7;  // 5 batches short, then long, short (4:1)
    tp.val_every = 3;
    tp.val_windows = 5;
    tp.val_batch = 2;
    auto oa = nn::adamw_init(a.params.size()), oref = oa;
    std::vector<int64_t> calls_per_step;
    int64_t calls = 0, last_step = 0;
    WmTrainer trainer(a, oa, ap, dp, tp, eps, split, {});
    while (trainer.step()) {
      ++calls;
      if (oa.step != last_step) calls_per_step.push_back(calls), calls = 0, last_step = oa.step;
    }
    // Every optimiser step took the 2 (2L + 2) stages of its passes (the forward's last and
    // the backward's first share a call), the steps after a validation (steps 3 and 6: 3
    // batches of 2 windows) its 3 (2L + 2) forward stages too.
    const int L = micro(pos).layers, stages = 2 * (2 * L + 2) - 1;
    REQUIRE(calls_per_step.size() == 7);
    for (const int k : {0, 1, 2, 4, 5}) CHECK(calls_per_step[k] == stages);
    for (const int k : {3, 6}) CHECK(calls_per_step[k] == stages + 3 * (2 * L + 2));
    const auto mask = wm_decay_mask(ref.layout());
    for (int64_t k = 0; k < tp.steps; ++k) {
      const int T = wm_train_steps_of_batch(dp, ref.config(), k);
      const auto windows = wm_train_windows(eps, split.train, dp, ref.config(), k);
      ref.zero_grad();
      ref.forward(wm_make_batch(eps, windows, T));
      ref.backward();
      nn::adamw_step(ap, ref.params, ref.grads, oref, mask);
    }
    CHECK(oa.step == tp.steps);
    CHECK(a.params == ref.params);  // bit for bit
    CHECK(oa.m == oref.m);
    CHECK(oa.v == oref.v);
  }
}

// The page trains only runs whose largest stage fits a frame (issue 37): the defaults do,
// a larger batch grows the stage, and past twice the default's the page says no.
TEST_CASE("a training stage that fits a frame of the page: the defaults, not batch 32",
          "[wm-train]") {
  wm::DreamTrainSpec s;
  CHECK(wm::dream_train_fits_frames(s));
  const double base = wm::dream_train_stage_macs(s);
  s.batch = 8;
  CHECK(wm::dream_train_stage_macs(s) == Approx(2 * base));
  CHECK(wm::dream_train_fits_frames(s));
  s.batch = 32;
  CHECK_FALSE(wm::dream_train_fits_frames(s));
  s.batch = 4;
  s.preset = "paper";
  CHECK(wm::dream_train_stage_macs(s) > base);
  s.batch = 32;
  CHECK_FALSE(wm::dream_train_fits_frames(s));
}
