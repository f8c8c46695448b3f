// World-model training pieces: AdamW against hand-computed steps, data windows (split by
// episode, 4:1 short/long, padding masks, determinism), baselines and metrics against
// hand-made cases, and a short end-to-end training whose loss falls.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/common/errors.hpp"
#include "core/nn/adamw.hpp"

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
