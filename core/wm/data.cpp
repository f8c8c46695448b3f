// Episode split and windows for world-model training (see data.hpp). Every draw comes from a
// SeededStream keyed by (seed, purpose, index), so batch k never depends on batch k - 1.
#include "core/wm/data.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"
#include "core/wm/baselines.hpp"

namespace poslab::wm {

int wm_long_steps(const WmDataParams& p, const WmConfig& c) {
  return p.long_steps > 0 ? p.long_steps : c.context;
}

int wm_short_steps(const WmDataParams& p, const WmConfig& c) {
  return p.short_steps > 0 ? p.short_steps : std::max(2, std::min(32, wm_long_steps(p, c) / 2));
}

void wm_data_validate(const WmDataParams& p, const WmConfig& c) {
  require_in_range("batch", p.batch, WmDataParams::batch_range);
  require_in_range("short_steps", p.short_steps, WmDataParams::steps_range);
  require_in_range("long_steps", p.long_steps, WmDataParams::steps_range);
  require_in_range("long_every", p.long_every, WmDataParams::long_every_range);
  require_in_range("val_fraction", p.val_fraction, WmDataParams::val_fraction_range);
  const int lo = wm_long_steps(p, c), sh = wm_short_steps(p, c);
  if (sh < 2 || lo < 2)
    throw InputError("window length " + std::to_string(std::min(sh, lo)) +
                     ": windows need at least 2 steps (a state and its successor)");
  if (c.position == WmPosition::absolute && std::max(lo, sh) > c.context)
    throw InputError("window of " + std::to_string(std::max(lo, sh)) +
                     " steps is longer than the absolute-position context " +
                     std::to_string(c.context) + " (use --long-steps <= context)");
}

EpisodeSplit wm_split_episodes(int num_episodes, double val_fraction, uint64_t seed) {
  EpisodeSplit s;
  if (num_episodes < 1) return s;
  std::vector<int> order(static_cast<size_t>(num_episodes));
  for (int i = 0; i < num_episodes; ++i) order[static_cast<size_t>(i)] = i;
  SeededStream rng(seed, "wm-split", 0);
  for (int i = num_episodes - 1; i > 0; --i) {  // Fisher-Yates
    const int j = static_cast<int>(rng.next_u64() % static_cast<uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  int nval = static_cast<int>(std::lround(val_fraction * num_episodes));
  if (val_fraction > 0 && num_episodes >= 2) nval = std::max(nval, 1);
  nval = std::min(nval, num_episodes - 1);
  s.val.assign(order.begin(), order.begin() + nval);
  s.train.assign(order.begin() + nval, order.end());
  std::sort(s.val.begin(), s.val.end());
  std::sort(s.train.begin(), s.train.end());
  return s;
}

WmBatch wm_make_batch(const std::vector<bnb::EpisodeRecord>& episodes,
                      const std::vector<WmWindow>& windows, int steps) {
  constexpr int N = kShips, F = kTokenDim;
  WmBatch b;
  b.batch = static_cast<int>(windows.size());
  b.steps = steps;
  const size_t BT = windows.size() * static_cast<size_t>(steps);
  b.tokens.assign(BT * N * F, 0.0f);
  b.actions.assign(BT * N * 3, 0);
  b.valid.assign(BT, 0);
  for (size_t w = 0; w < windows.size(); ++w) {
    const auto& win = windows[w];
    const auto& ep = episodes.at(static_cast<size_t>(win.episode));
    if (win.length < 1 || win.length > steps || win.start < 0 || win.start + win.length > ep.rows)
      throw InputError("window [" + std::to_string(win.start) + ", +" + std::to_string(win.length) +
                       ") does not fit episode " + std::to_string(win.episode) + " of " +
                       std::to_string(ep.rows) + " rows");
    const size_t row0 = static_cast<size_t>(win.start);
    const size_t n = static_cast<size_t>(win.length);
    std::copy_n(ep.tokens.begin() + static_cast<long>(row0 * N * F), n * N * F,
                b.tokens.begin() + static_cast<long>(w * static_cast<size_t>(steps) * N * F));
    std::copy_n(ep.actions.begin() + static_cast<long>(row0 * N * 3), n * N * 3,
                b.actions.begin() + static_cast<long>(w * static_cast<size_t>(steps) * N * 3));
    std::fill_n(b.valid.begin() + static_cast<long>(w * static_cast<size_t>(steps)), n, 1);
  }
  return b;
}

// Declared in world_model.hpp: every batch the model is given, checked where batches are made.
void wm_check_batch(const WmConfig& c, const WmBatch& b) {
  std::ostringstream s;
  if (b.batch < 1 || b.steps < 1) {
    s << "world-model batch of " << b.batch << " windows x " << b.steps
      << " steps: both must be at least 1";
    throw InputError(s.str());
  }
  if (c.position == WmPosition::absolute && b.steps > c.context) {
    s << "window of " << b.steps << " steps exceeds the absolute-position context of " << c.context
      << ": crop windows to the context";
    throw InputError(s.str());
  }
  const size_t BTN = static_cast<size_t>(b.batch) * b.steps * kShips;
  if (b.tokens.size() != BTN * kTokenDim || b.actions.size() != BTN * 3 ||
      b.valid.size() != static_cast<size_t>(b.batch) * b.steps) {
    s << "world-model batch sizes: tokens " << b.tokens.size() << " (want " << BTN * kTokenDim
      << "), actions " << b.actions.size() << " (want " << BTN * 3 << "), valid " << b.valid.size()
      << " (want " << b.batch * b.steps << ")";
    throw InputError(s.str());
  }
  for (size_t i = 0; i < b.tokens.size(); ++i)
    if (!std::isfinite(b.tokens[i])) {
      s << "world-model batch: token value " << i << " is not finite";
      throw InputError(s.str());
    }
  for (size_t i = 0; i < BTN; ++i)
    for (int h = 0; h < 3; ++h)
      if (b.actions[i * 3 + h] >= bnb::kActionSizes[h]) {
        s << "world-model batch: action " << int(b.actions[i * 3 + h]) << " of head " << h
          << " at (window, step, ship) " << i / (b.steps * kShips) << ", " << (i / kShips) % b.steps
          << ", " << i % kShips << " is out of range";
        throw InputError(s.str());
      }
  for (int w = 0; w < b.batch; ++w)
    for (int t = 1; t < b.steps; ++t)
      if (b.valid[w * b.steps + t] && !b.valid[w * b.steps + t - 1]) {
        s << "world-model batch: window " << w << " has a real step " << t
          << " after padding; padding must be at the end";
        throw InputError(s.str());
      }
}

int wm_train_steps_of_batch(const WmDataParams& p, const WmConfig& c, int64_t k) {
  return (k % p.long_every == p.long_every - 1) ? wm_long_steps(p, c) : wm_short_steps(p, c);
}

std::vector<WmWindow> wm_train_windows(const std::vector<bnb::EpisodeRecord>& episodes,
                                       const std::vector<int>& train, const WmDataParams& p,
                                       const WmConfig& c, int64_t k) {
  if (train.empty()) throw InputError("no training episodes (collect more episodes)");
  const int T = wm_train_steps_of_batch(p, c, k);
  std::vector<int64_t> cum;  // cumulative rows of the training episodes
  cum.reserve(train.size());
  int64_t total = 0;
  for (int e : train) cum.push_back(total += episodes.at(static_cast<size_t>(e)).rows);
  SeededStream rng(p.seed, "wm-batch", static_cast<uint64_t>(k));
  std::vector<WmWindow> out;
  for (int i = 0; i < p.batch; ++i) {
    const int64_t r = static_cast<int64_t>(rng.next_u64() % static_cast<uint64_t>(total));
    const size_t idx =
        static_cast<size_t>(std::upper_bound(cum.begin(), cum.end(), r) - cum.begin());
    const int e = train[idx];
    const int rows = episodes[static_cast<size_t>(e)].rows;
    WmWindow w;
    w.episode = e;
    w.length = std::min(T, rows);
    const int starts = rows - w.length + 1;
    w.start = static_cast<int>(rng.next_u64() % static_cast<uint64_t>(starts));
    out.push_back(w);
  }
  return out;
}

std::vector<WmWindow> wm_val_windows(const std::vector<bnb::EpisodeRecord>& episodes,
                                     const std::vector<int>& val, int steps, int max_windows) {
  std::vector<WmWindow> all;
  for (int e : val) {
    const int rows = episodes.at(static_cast<size_t>(e)).rows;
    for (int s = 0; s + 1 < rows; s += steps) all.push_back({e, s, std::min(steps, rows - s)});
  }
  if (max_windows <= 0 || static_cast<int>(all.size()) <= max_windows) return all;
  std::vector<WmWindow> out;
  out.reserve(static_cast<size_t>(max_windows));
  for (int i = 0; i < max_windows; ++i)
    out.push_back(all[static_cast<size_t>(static_cast<int64_t>(i) *
                                          static_cast<int64_t>(all.size()) / max_windows)]);
  return out;
}

std::vector<float> wm_state_scale(const std::vector<bnb::EpisodeRecord>& episodes,
                                  const std::vector<int>& train, WmStateBase base) {
  constexpr int N = kShips, F = kTokenDim;
  std::vector<double> sum(F, 0.0);
  int64_t count = 0;
  float b[N * F];
  for (int e : train) {
    const auto& ep = episodes.at(static_cast<size_t>(e));
    for (int t = 0; t + 1 < ep.rows; ++t) {
      const float* now = &ep.tokens[static_cast<size_t>(t) * N * F];
      wm_state_base(base, now, b);
      for (int n = 0; n < N; ++n) {
        if (!token_present(now + n * F)) continue;
        ++count;
        for (int f = 0; f < F; ++f) {
          const double d = double(now[N * F + n * F + f]) - double(b[n * F + f]);
          sum[f] += d * d;
        }
      }
    }
  }
  std::vector<float> out(F, kStateScaleFloor);
  for (int f = 0; f < F && count > 0; ++f)
    out[f] =
        std::clamp(static_cast<float>(std::sqrt(sum[f] / double(count))), kStateScaleFloor, 1.0f);
  return out;
}

void wm_check_episodes(const std::vector<bnb::EpisodeRecord>& episodes) {
  constexpr int N = kShips, F = kTokenDim;
  for (size_t e = 0; e < episodes.size(); ++e) {
    const auto& ep = episodes[e];
    const std::string where = "episode " + std::to_string(e) + ": ";
    if (ep.rows < 2) throw InputError(where + "has fewer than 2 rows (nothing to predict)");
    const size_t R = static_cast<size_t>(ep.rows);
    if (ep.tokens.size() != R * N * F || ep.actions.size() != R * N * 3)
      throw InputError(where +
                       "tokens or actions do not have the (rows, 8, 15) / (rows, 8, 3) layout");
    for (size_t i = 0; i < ep.actions.size(); i += 3)
      if (ep.actions[i] > 2 || ep.actions[i + 1] > 6 || ep.actions[i + 2] > 1)
        throw InputError(where + "action out of range at row " + std::to_string(i / (3 * N)));
    if (const std::string bad = bnb::token_problem(ep.tokens.data(), R); !bad.empty())
      throw InputError(where + bad + ": a token value must be finite and within +-" +
                       std::to_string(static_cast<int>(bnb::kTokenMaxAbs)) +
                       " (a damaged or edited dataset)");
  }
}

}  // namespace poslab::wm
