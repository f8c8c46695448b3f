// Whole-model tests of the world model: parameter layout, gradient check per tensor in
// double precision, a small batch driven to near-zero loss, dead/absent-ship masks, RoPE
// scores depending only on the step difference, and thread-count independence.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/common/errors.hpp"
#include "core/nn/layers.hpp"
#include "core/wm/wm_layers.hpp"
#include "core/wm/world_model.hpp"
#include "tests/wm/grad_check.hpp"
#include "tests/wm/wm_test_batch.hpp"

using namespace poslab;
using namespace poslab::wm;

namespace {
WmConfig micro(WmPosition pos) {
  WmConfig c;
  c.embed = 8;
  c.heads = 2;
  c.layers = 2;  // one temporal, one spatial block
  c.context = 4;
  c.position = pos;
  return c;
}

// The scaled state head (docs section 5) with a distinct scale per value.
WmConfig with_state_scale(WmConfig c, WmStateBase base) {
  c.state_base = base;
  c.state_scale.resize(kTokenDim);
  for (int f = 0; f < kTokenDim; ++f) c.state_scale[f] = 0.01f * static_cast<float>(f + 1);
  return c;
}

WmConfig with_sigma_loss(WmConfig c) {
  c.state_loss = WmStateLoss::sigma;
  return c;
}

const char* head_name(const WmConfig& c) {
  if (c.state_scale.empty()) return "plain";
  if (c.state_loss == WmStateLoss::sigma)
    return c.state_base == WmStateBase::cv ? "cv-sig" : "sc-sig";
  return c.state_base == WmStateBase::cv ? "cv" : "scaled";
}

// Kills ship `ship` of window w from step t0 on (alive = 0, health 0, state frozen).
void kill_ship(WmBatch& b, int w, int ship, int t0) {
  for (int t = t0; t < b.steps; ++t) {
    float* tok = &b.tokens[((static_cast<size_t>(w) * b.steps + t) * kShips + ship) * kTokenDim];
    const float* first =
        &b.tokens[((static_cast<size_t>(w) * b.steps + t0) * kShips + ship) * kTokenDim];
    if (t > t0)
      for (int c = 2; c < kTokenDim; ++c) tok[c] = first[c];
    tok[0] = 0.0f;
    tok[2] = 0.0f;
  }
}
}  // namespace

TEST_CASE("parameter layout is contiguous with unique names", "[wm]") {
  for (auto pos : {WmPosition::rope, WmPosition::absolute})
    for (const char* preset : {"tiny", "paper"}) {
      const WmConfig c = wm_preset(preset, pos);
      const ParamLayout L = wm_param_layout(c);
      std::set<std::string> names;
      size_t off = 0;
      for (const auto& t : L.tensors) {
        INFO(t.name);
        CHECK(t.offset == off);
        size_t n = 1;
        for (int d : t.shape) n *= static_cast<size_t>(d);
        CHECK(n == t.size);
        off += t.size;
        names.insert(t.name);
      }
      CHECK(off == L.total);
      CHECK(names.size() == L.tensors.size());
      std::printf("world model %s %s: %zu parameters in %zu tensors\n", preset,
                  wm_position_name(pos), L.total, L.tensors.size());
    }
  CHECK_THROWS_AS(wm_preset("huge"), InputError);
  WmConfig bad;
  bad.heads = 3;
  CHECK_THROWS_AS(wm_validate(bad), InputError);
}

TEST_CASE("whole-model gradients match finite differences per tensor", "[wm][grad]") {
  const WmConfig configs[] = {
      micro(WmPosition::rope), micro(WmPosition::absolute),
      with_state_scale(micro(WmPosition::rope), WmStateBase::last),
      with_state_scale(micro(WmPosition::absolute), WmStateBase::cv),
      with_sigma_loss(with_state_scale(micro(WmPosition::rope), WmStateBase::cv))};
  for (const WmConfig& c : configs) {
    const WmPosition pos = c.position;
    WmBatch batch = test::episode_batch(2, 3, 41, 5, 0, 1);  // window 0: last step padded
    kill_ship(batch, 1, 0, 1);
    WorldModelT<double> m(c);
    m.init(7);
    const auto noise = test::test_values(static_cast<int64_t>(m.params.size()), 99);
    for (size_t i = 0; i < m.params.size(); ++i) m.params[i] += 0.2 * noise[i];
    m.set_threads(1);
    m.zero_grad();
    const WmLoss l = m.forward(batch);
    REQUIRE(l.state_count > 0);
    REQUIRE(l.action_count > 0);
    REQUIRE(l.rel_count > 0);
    m.backward();
    const std::vector<double> ana = m.grads;
    double worst = 0;
    for (const auto& t : m.layout().tensors) {
      const auto num = test::numeric_grad(m.params.data() + t.offset, static_cast<int64_t>(t.size),
                                          [&] { return m.forward(batch).total; });
      const double err =
          test::grad_rel_error(ana.data() + t.offset, num.data(), static_cast<int64_t>(t.size));
      std::printf("wm grad check %-8s %-6s %-28s rel error %.3e\n", wm_position_name(pos),
                  head_name(c), t.name.c_str(), err);
      INFO("position " << wm_position_name(pos) << " head " << head_name(c) << " tensor " << t.name
                       << " rel error " << err);
      if (t.name.find("relbias.fc2.bias") != std::string::npos) {
        // a per-head constant added to every score of a softmax row: zero by construction,
        // so only the absolute sizes can be checked (central differences leave ~1e-11)
        double na = 0, nn = 0;
        for (size_t i = 0; i < t.size; ++i)
          na += std::abs(ana[t.offset + i]), nn += std::abs(num[i]);
        CHECK(na <= 1e-12);
        CHECK(nn <= 1e-9);
        continue;
      }
      CHECK(err <= 1e-5);
      worst = std::max(worst, err);
    }
    std::printf("wm grad check %s %s: worst relative error %.3e\n", wm_position_name(pos),
                head_name(c), worst);
  }
}

TEST_CASE("float model equals the double model to float rounding", "[wm]") {
  const WmConfig c = wm_preset("tiny");
  const WmBatch batch = test::episode_batch(2, 6, 3);
  WorldModelT<float> mf(c);
  WorldModelT<double> md(c);
  mf.init(5);
  md.init(5);
  const WmLoss lf = mf.forward(batch), ld = md.forward(batch);
  INFO("float " << lf.total << " double " << ld.total);
  CHECK(lf.total == Approx(ld.total).epsilon(1e-5));
}

TEST_CASE("one small batch is driven to near-zero loss", "[wm][overfit]") {
  WmConfig c;
  c.embed = 32;
  c.heads = 2;
  c.layers = 2;
  c.context = 8;
  const WmBatch batch = test::episode_batch(2, 8, 11, 10);
  WorldModel m(c);
  m.init(1);
  m.set_threads(2);
  // plain Adam, lr 3e-3 (the real optimiser is core/nn/adamw)
  std::vector<float> mom(m.params.size(), 0.0f), vel(m.params.size(), 0.0f);
  const float lr = 3e-3f, b1 = 0.9f, b2 = 0.999f;
  double first = 0, last = 0;
  WmLoss l;
  for (int step = 1; step <= 400; ++step) {
    m.zero_grad();
    l = m.forward(batch);
    m.backward();
    if (step == 1) first = l.total;
    last = l.total;
    const float c1 = 1.0f - std::pow(b1, float(step)), c2 = 1.0f - std::pow(b2, float(step));
    for (size_t i = 0; i < m.params.size(); ++i) {
      mom[i] = b1 * mom[i] + (1 - b1) * m.grads[i];
      vel[i] = b2 * vel[i] + (1 - b2) * m.grads[i] * m.grads[i];
      m.params[i] -= lr * (mom[i] / c1) / (std::sqrt(vel[i] / c2) + 1e-8f);
    }
  }
  std::printf("overfit: loss %.5f -> %.6f (state %.2e, ce %.2e %.2e %.2e, rel %.2e)\n", first, last,
              l.state, l.power, l.turn, l.shoot, l.rel);
  CHECK(last < 0.01 * first);
  CHECK(last < 2e-3);
}

TEST_CASE("a dead or absent ship changes no other ship's prediction", "[wm][mask]") {
  for (auto pos : {WmPosition::rope, WmPosition::absolute}) {
    const WmConfig c = wm_preset("tiny", pos);
    WmBatch base = test::episode_batch(1, 6, 21, 3, 3);  // 3v3: slots absent too
    const int dead = [&] {
      for (int n = 0; n < kShips; ++n)
        if (base.tokens[n * kTokenDim + 0] > 0.5f) return n;
      return 0;
    }();
    kill_ship(base, 0, dead, 2);
    WorldModel m(c);
    m.init(3);
    m.forward(base);
    const std::vector<float> logits(m.action_logits(), m.action_logits() + 6 * kShips * 12);
    const std::vector<float> spred(m.state_pred(), m.state_pred() + 6 * kShips * kTokenDim);
    const std::vector<float> rpred(m.rel_pred(), m.rel_pred() + 6 * kShips * kShips * kRelDim);
    // perturb the dead ship's state and action at every dead step, and every absent ship's
    WmBatch other = base;
    for (int t = 2; t < 6; ++t) {
      float* tok = &other.tokens[(t * kShips + dead) * kTokenDim];
      tok[4] = 0.6f, tok[5] = -0.8f, tok[8] = 0.9f, tok[3] = 0.1f, tok[10] = 0.0f, tok[11] = 1.0f;
      other.actions[(t * kShips + dead) * 3 + 1] = 4;
    }
    std::vector<int> quiet{dead};
    for (int n = 0; n < kShips; ++n)
      if (base.tokens[n * kTokenDim + 4] == 0.0f && base.tokens[n * kTokenDim + 5] == 0.0f) {
        quiet.push_back(n);
        for (int t = 0; t < 6; ++t) other.actions[(t * kShips + n) * 3] = 1;
      }
    REQUIRE(quiet.size() >= 2);
    m.forward(other);
    auto is_quiet = [&](int n) { return std::find(quiet.begin(), quiet.end(), n) != quiet.end(); };
    double diff = 0, dead_diff = 0;
    for (int t = 2; t < 6; ++t)
      for (int i = 0; i < kShips; ++i) {
        for (int f = 0; f < 12; ++f) {
          const double d = std::abs(m.action_logits()[(t * kShips + i) * 12 + f] -
                                    logits[(t * kShips + i) * 12 + f]);
          (is_quiet(i) ? dead_diff : diff) = std::max(is_quiet(i) ? dead_diff : diff, d);
        }
        if (is_quiet(i)) continue;
        for (int f = 0; f < kTokenDim; ++f)
          diff = std::max(diff, double(std::abs(m.state_pred()[(t * kShips + i) * kTokenDim + f] -
                                                spred[(t * kShips + i) * kTokenDim + f])));
        for (int j = 0; j < kShips; ++j) {
          if (is_quiet(j)) continue;
          for (int f = 0; f < kRelDim; ++f) {
            const size_t k = ((t * kShips + i) * kShips + j) * kRelDim + f;
            diff = std::max(diff, double(std::abs(m.rel_pred()[k] - rpred[k])));
          }
        }
      }
    INFO("position " << wm_position_name(pos) << " dead ship " << dead);
    CHECK(diff == 0.0);
    CHECK(dead_diff > 0.0);  // the perturbation did reach the dead ship's own outputs
  }
}

TEST_CASE("RoPE temporal scores depend only on the step difference", "[wm][rope]") {
  const WmConfig c = wm_preset("tiny");
  const int D = wm_head_dim(c), E = c.embed, H = c.heads;
  std::vector<float> cs, sn;
  wm_rope_tables(cs, sn, c, 400);
  const auto base = test::test_values(2 * 3 * E, 5);
  auto score = [&](int pq, int pk) {
    std::vector<float> row(base.begin(), base.end());
    std::vector<float> q(row.begin(), row.begin() + 3 * E), k(row.begin() + 3 * E, row.end());
    nn::rope_forward(q.data(), 1, 3 * E, 0, H, D, cs.data(), sn.data(), &pq);
    nn::rope_forward(k.data(), 1, 3 * E, E, H, D, cs.data(), sn.data(), &pk);
    double s = 0;
    for (int d = 0; d < D; ++d) s += double(q[d]) * double(k[E + d]);
    return s;
  };
  for (int s_q : {0, 1})
    for (int s_k : {0, 1})
      for (int dt : {0, 1, 5, 30}) {
        const double ref = score(2 * dt + s_q, s_k);  // key at step 0, query dt steps later
        for (int shift : {1, 7, 100, 150}) {
          INFO("query slot " << s_q << " key slot " << s_k << " step difference " << dt << " shift "
                             << shift);
          CHECK(score(2 * (dt + shift) + s_q, 2 * shift + s_k) == Approx(ref).margin(2e-5));
        }
      }
}

TEST_CASE("forward and backward do not depend on the thread count", "[wm][threads]") {
  const WmConfig c = wm_preset("tiny");
  const WmBatch batch = test::episode_batch(3, 10, 77, 4);
  WorldModel one(c), two(c);
  one.init(9);
  two.init(9);
  one.set_threads(1);
  two.set_threads(2);
  const WmLoss l1 = one.forward(batch), l2 = two.forward(batch);
  one.backward();
  two.backward();
  CHECK(l1.total == Approx(l2.total).epsilon(1e-6));
  double num = 0, den = 0;
  for (size_t i = 0; i < one.grads.size(); ++i) {
    num += double(one.grads[i] - two.grads[i]) * double(one.grads[i] - two.grads[i]);
    den += double(one.grads[i]) * double(one.grads[i]);
  }
  const double rel = std::sqrt(num / den);
  INFO("gradient relative difference 1 vs 2 threads " << rel);
  CHECK(rel <= 1e-5);
  // and the same thread count twice gives the same bits
  WorldModel again(c);
  again.init(9);
  again.set_threads(2);
  again.forward(batch);
  again.backward();
  CHECK(again.grads == two.grads);
}

TEST_CASE("state head: base plus scale times head, and the plain head unchanged", "[wm]") {
  WmBatch batch = test::episode_batch(2, 6, 43, 6, 0, 0);
  const int B = batch.batch, T = batch.steps;
  for (auto base : {WmStateBase::last, WmStateBase::cv}) {
    const WmConfig c = with_state_scale(micro(WmPosition::rope), base);
    WorldModel m(c);
    m.init(3);
    WorldModel plain(micro(WmPosition::rope));
    plain.params = m.params;
    m.forward(batch);
    plain.forward(batch);
    // plain: pred = S_t + head, so head = pred_plain - S_t; scaled: base + scale * head
    std::vector<float> b(kShips * kTokenDim);
    double worst = 0;
    for (int st = 0; st < B * T; ++st) {
      const float* tok = &batch.tokens[static_cast<size_t>(st) * kShips * kTokenDim];
      wm_state_base(base, tok, b.data());
      for (int i = 0; i < kShips * kTokenDim; ++i) {
        const size_t k = static_cast<size_t>(st) * kShips * kTokenDim + i;
        const double head = double(plain.state_pred()[k]) - double(tok[i]);
        const double want = double(b[i]) + double(c.state_scale[i % kTokenDim]) * head;
        worst = std::max(worst, std::abs(double(m.state_pred()[k]) - want));
      }
    }
    INFO("base " << wm_state_base_name(base) << " worst " << worst);
    CHECK(worst < 1e-5);
    // zero head weights: the prediction is the base itself (copy-last or constant velocity)
    std::fill_n(m.tensor("head.state.weight"), kTokenDim * c.embed, 0.0f);
    m.forward(batch);
    for (int st = 0; st < B * T; ++st) {
      const float* tok = &batch.tokens[static_cast<size_t>(st) * kShips * kTokenDim];
      wm_state_base(base, tok, b.data());
      for (int i = 0; i < kShips * kTokenDim; ++i)
        CHECK(m.state_pred()[static_cast<size_t>(st) * kShips * kTokenDim + i] == b[i]);
    }
  }
  // the cv base moves alive ships only, and only their sin/cos of x and y
  const float* tok = &batch.tokens[0];
  std::vector<float> b(kShips * kTokenDim);
  wm_state_base(WmStateBase::cv, tok, b.data());
  int moved = 0;
  for (int n = 0; n < kShips; ++n)
    for (int f = 0; f < kTokenDim; ++f) {
      const bool pos = f >= 4 && f <= 7 && tok[n * kTokenDim] > 0.5f;
      if (!pos) CHECK(b[n * kTokenDim + f] == tok[n * kTokenDim + f]);
      moved += b[n * kTokenDim + f] != tok[n * kTokenDim + f];
    }
  CHECK(moved > 0);
  WmConfig bad = micro(WmPosition::rope);
  bad.state_scale.assign(14, 1.0f);
  CHECK_THROWS_AS(wm_validate(bad), InputError);
  bad.state_scale.assign(kTokenDim, 1.0f);
  bad.state_scale[3] = 0.0f;
  CHECK_THROWS_AS(wm_validate(bad), InputError);
  CHECK_THROWS_AS(wm_state_base_from_name("next"), InputError);
  CHECK_THROWS_AS(wm_state_loss_from_name("cubic"), InputError);
}

TEST_CASE("sigma state loss: mean of ((pred - next)/sigma)^2 over the state mask", "[wm]") {
  WmBatch batch = test::episode_batch(2, 5, 47, 3, 0, 1);  // window 0: last step padded
  const int B = batch.batch, T = batch.steps;
  const WmConfig raw = with_state_scale(micro(WmPosition::rope), WmStateBase::cv);
  const WmConfig sig = with_sigma_loss(raw);
  WorldModelT<double> a(raw), m(sig);
  a.init(5);
  m.params = a.params;
  const WmLoss la = a.forward(batch), lm = m.forward(batch);
  // independent reference from the predictions (the same in both: the loss is not the model)
  double sum = 0, sum_raw = 0;
  int64_t count = 0;
  for (int w = 0; w < B; ++w)
    for (int t = 0; t + 1 < T; ++t) {
      if (!batch.valid[static_cast<size_t>(w) * T + t + 1]) continue;
      for (int n = 0; n < kShips; ++n) {
        const size_t k = (static_cast<size_t>(w) * T + t) * kShips + n;
        const float* tok = &batch.tokens[k * kTokenDim];
        if (tok[4] * tok[4] + tok[5] * tok[5] <= 0.5f) continue;
        ++count;
        for (int f = 0; f < kTokenDim; ++f) {
          CHECK(m.state_pred()[k * kTokenDim + f] == a.state_pred()[k * kTokenDim + f]);
          const double e = m.state_pred()[k * kTokenDim + f] - double(tok[kShips * kTokenDim + f]);
          const double sigma = double(sig.state_scale[f]);
          sum += e * e / (sigma * sigma);
          sum_raw += e * e;
        }
      }
    }
  REQUIRE(count == lm.state_count);
  CHECK(lm.state == Approx(sum / (kTokenDim * double(count))).epsilon(1e-12));
  CHECK(la.state == Approx(sum_raw / (kTokenDim * double(count))).epsilon(1e-12));
  CHECK(lm.power == la.power);
  CHECK(lm.rel == la.rel);
  // without a state_scale, sigma is 1: the two losses are the same
  WmConfig plain = micro(WmPosition::rope), plain_sig = with_sigma_loss(plain);
  WorldModelT<double> p(plain), q(plain_sig);
  p.init(5);
  q.params = p.params;
  CHECK(p.forward(batch).total == q.forward(batch).total);
}
