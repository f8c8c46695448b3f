// World-model evaluation (see eval.hpp): teacher-forced scores, dreams against the real
// simulator, and the baselines beside them. Dreams are the dream session
// (core/wm/dream_session.hpp) on wm's KV-cache decoder (core/wm/wm_decode.hpp), one step per
// agent step.
#include "core/wm/eval.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/bnb/bnb_features.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "core/wm/train.hpp"

namespace poslab::wm {
namespace {

constexpr int N = kShips, F = kTokenDim;

int argmax(const float* x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best]) best = i;
  return best;
}

void renormalise(float& a, float& b) {
  const double n = std::hypot(static_cast<double>(a), static_cast<double>(b));
  if (n > 1e-6) {
    a = static_cast<float>(a / n);
    b = static_cast<float>(b / n);
  } else {
    a = 0.0f;
    b = 1.0f;
  }
}

}  // namespace

void dream_validate(const DreamParams& p) {
  require_in_range("steps", p.steps, DreamParams::steps_range);
  require_in_range("history", p.history, DreamParams::history_range);
  require_in_range("temperature", p.temperature, DreamParams::temperature_range);
}

void wm_clean_state(const float* pred, const float* prev, float* out) {
  for (int n = 0; n < N; ++n) {
    const float* p = pred + n * F;
    const float* q = prev + n * F;
    float* o = out + n * F;
    if (!token_present(q)) {  // absent slots stay empty
      std::fill_n(o, F, 0.0f);
      continue;
    }
    if (!token_alive(q) || p[0] <= 0.5f) {  // dead ships stay frozen where they were
      std::copy_n(q, F, o);
      o[0] = 0.0f;
      o[2] = 0.0f;
      o[12] = 0.0f;
      continue;
    }
    std::copy_n(p, F, o);
    o[0] = 1.0f;
    o[1] = q[1];
    o[2] = std::clamp(o[2], 0.0f, 1.0f);
    o[3] = std::clamp(o[3], 0.0f, 1.0f);
    renormalise(o[4], o[5]);
    renormalise(o[6], o[7]);
    renormalise(o[10], o[11]);
    o[12] = o[12] > 0.5f ? 1.0f : 0.0f;
    o[13] = std::clamp(o[13], 0.0f, 1.0f);
    o[14] = std::clamp(o[14], -1.0f, 1.0f);
  }
}

bnb::SimState wm_replay_to(const bnb::EpisodeRecord& ep, int row) {
  if (row < 0 || row >= ep.rows)
    throw InputError("row " + std::to_string(row) + " is outside the episode's " +
                     std::to_string(ep.rows) + " rows");
  std::vector<float> tok(N * F);
  const auto matches = [&](const bnb::SimState& s, int r) {
    bnb::write_tokens(s, tok.data());
    return std::equal(tok.begin(), tok.end(), ep.tokens.begin() + static_cast<long>(r) * N * F);
  };
  bnb::EpisodeConfig cfg;
  cfg.max_steps = bnb::EpisodeConfig::max_steps_range.hi;
  bnb::SimState s = bnb::sim_reset(ep.seed, cfg);
  if (!matches(s, 0)) {  // collected with fixed team sizes
    const auto sizes = bnb::record_team_sizes(ep);
    cfg.team0_size = sizes[0];
    cfg.team1_size = sizes[1];
    s = bnb::sim_reset(ep.seed, cfg);
    if (!matches(s, 0))
      throw InputError("episode with seed " + std::to_string(ep.seed) +
                       " does not replay in this simulator (dataset from another PosLab version?)");
  }
  for (int r = 0; r < row; ++r) bnb::sim_step(s, bnb::record_actions(ep, r));
  if (!matches(s, row))
    throw InputError("episode with seed " + std::to_string(ep.seed) +
                     " diverges from its record by row " + std::to_string(row) +
                     " (dataset from another PosLab version?)");
  return s;
}

DreamResult wm_dream(const WorldModel& model, const bnb::EpisodeRecord& ep, int start,
                     const DreamParams& p) {
  dream_validate(p);
  if (start < 0 || start + 1 >= ep.rows)
    throw InputError("dream start row " + std::to_string(start) +
                     " must leave a real step after it (episode has " + std::to_string(ep.rows) +
                     " rows)");
  // The session from the record: reality replayed (untruncated past the record, where an
  // open loop dream may go), the newest `history` real steps as the prompt, a closed loop
  // ending with the record.
  DreamSessionConfig c = dream_session_config_of_record(ep, bnb::EpisodeConfig::max_steps_range.hi);
  c.from = start;
  c.history = p.history;
  c.loop = p.loop;
  c.horizon = p.loop == DreamLoop::closed ? std::min(p.steps, ep.rows - 1 - start) : p.steps;
  c.temperature = p.temperature;
  c.sample_seed = p.seed;
  c.views = false;
  DreamEngine engine;
  DreamTimeline tl;
  dream_session_begin(c, make_dream_model(model, p.window), engine, tl);
  dream_session_run(engine, tl, c.horizon);
  if (tl.start != start)
    throw InputError("episode with seed " + std::to_string(ep.seed) + " ends before row " +
                     std::to_string(start) +
                     " when replayed (dataset from another PosLab "
                     "version?)");
  // Reality as replayed must be the record (a dataset from another simulator is not).
  const int checked =
      p.loop == DreamLoop::closed ? static_cast<int>(tl.frames.size()) : tl.start + 1;
  for (int r = 0; r < checked; ++r)
    if (!std::equal(tl.frames[r].real_tokens.begin(), tl.frames[r].real_tokens.end(),
                    ep.tokens.begin() + static_cast<long>(r) * N * F))
      throw InputError("episode with seed " + std::to_string(ep.seed) +
                       " diverges from its record by row " + std::to_string(r) +
                       " (dataset from another PosLab version?)");
  // The frames copied out, scored per horizon as accumulators (wm_dream_many merges them).
  DreamResult res;
  res.start = start;
  res.steps = tl.dream_steps();
  res.model = res.copy_last = res.const_velocity = ErrorAccumulator(p.steps);
  const float* start_state = tl.frames[start].real_tokens.data();
  res.dreamt.assign(start_state, start_state + N * F);
  res.real.assign(start_state, start_state + N * F);
  std::vector<float> base(N * F);
  for (int h = 1; h <= res.steps; ++h) {
    const DreamFrame& f = tl.frames[static_cast<size_t>(start + h)];
    for (const bnb::ShipAction& a : f.dream_action)
      res.actions.insert(res.actions.end(), {a.power, a.turn, a.shoot});
    res.dreamt.insert(res.dreamt.end(), f.dream_tokens.begin(), f.dream_tokens.end());
    res.real.insert(res.real.end(), f.real_tokens.begin(), f.real_tokens.end());
    res.model.add(h, f.dream_tokens.data(), f.real_tokens.data());
    baseline_copy_last(start_state, h, base.data());
    res.copy_last.add(h, base.data(), f.real_tokens.data());
    baseline_constant_velocity(start_state, h, base.data());
    res.const_velocity.add(h, base.data(), f.real_tokens.data());
  }
  return res;
}

TeacherForcedResult wm_teacher_forced(WorldModel& model,
                                      const std::vector<bnb::EpisodeRecord>& episodes,
                                      const std::vector<WmWindow>& windows, int steps, int batch) {
  TeacherForcedResult out;
  out.loss = WmLoss{};
  std::vector<float> base(N * F);
  int64_t hits[3] = {0, 0, 0}, expert_hits[3] = {0, 0, 0};
  for (size_t w0 = 0; w0 < windows.size(); w0 += static_cast<size_t>(batch)) {
    const size_t w1 = std::min(windows.size(), w0 + static_cast<size_t>(batch));
    const std::vector<WmWindow> part(windows.begin() + static_cast<long>(w0),
                                     windows.begin() + static_cast<long>(w1));
    const WmBatch b = wm_make_batch(episodes, part, steps);
    model.forward(b);
    for (size_t bi = 0; bi < part.size(); ++bi) {
      const auto& ep = episodes[static_cast<size_t>(part[bi].episode)];
      for (int t = 0; t < part[bi].length; ++t) {
        const size_t bt = bi * static_cast<size_t>(steps) + static_cast<size_t>(t);
        const float* tok = b.tokens.data() + bt * N * F;
        if (t + 1 < part[bi].length) {
          const float* next = tok + N * F;
          out.model.add(1, model.state_pred() + bt * N * F, next);
          baseline_copy_last(tok, 1, base.data());
          out.copy_last.add(1, base.data(), next);
          baseline_constant_velocity(tok, 1, base.data());
          out.const_velocity.add(1, base.data(), next);
        }
        const float* logits = model.action_logits() + bt * N * kActionLogits;
        const size_t row = static_cast<size_t>(part[bi].start) + static_cast<size_t>(t);
        for (int n = 0; n < N; ++n) {
          if (!token_alive(tok + n * F)) continue;
          ++out.action_count;
          for (int h = 0; h < 3; ++h) {
            const int choice =
                argmax(logits + n * kActionLogits + kActionHeadStart[h], kActionHeadSize[h]);
            hits[h] += choice ==
                       ep.actions[(row * N + static_cast<size_t>(n)) * 3 + static_cast<size_t>(h)];
            expert_hits[h] +=
                choice ==
                ep.expert_actions[(row * N + static_cast<size_t>(n)) * 3 + static_cast<size_t>(h)];
          }
        }
      }
    }
  }
  out.loss = wm_evaluate_loss(model, episodes, windows, steps, batch);
  for (int h = 0; h < 3; ++h)
    if (out.action_count > 0) {
      out.action_accuracy[h] = static_cast<double>(hits[h]) / static_cast<double>(out.action_count);
      out.expert_accuracy[h] =
          static_cast<double>(expert_hits[h]) / static_cast<double>(out.action_count);
    }
  return out;
}

std::vector<DreamStart> wm_dream_starts(const std::vector<bnb::EpisodeRecord>& episodes,
                                        const std::vector<int>& val, const DreamParams& p,
                                        int stride, int max_dreams) {
  std::vector<DreamStart> all;
  for (int e : val) {
    const int rows = episodes.at(static_cast<size_t>(e)).rows;
    const int s0 = std::min(p.history, rows - 2);
    if (s0 < 0) continue;
    if (s0 + p.steps >= rows) {  // short episode: one dream, scored as far as it goes
      all.push_back({e, s0});
      continue;
    }
    for (int s = s0; s + p.steps < rows; s += std::max(1, stride)) all.push_back({e, s});
  }
  // Prefer dreams that run the full K steps, then spread evenly.
  std::stable_partition(all.begin(), all.end(), [&](const DreamStart& d) {
    return d.start + p.steps < episodes[static_cast<size_t>(d.episode)].rows;
  });
  if (max_dreams > 0 && static_cast<int>(all.size()) > max_dreams) {
    int full = 0;
    for (const auto& d : all)
      full += d.start + p.steps < episodes[static_cast<size_t>(d.episode)].rows;
    const int pool = full >= max_dreams ? full : static_cast<int>(all.size());
    std::vector<DreamStart> out;
    out.reserve(static_cast<size_t>(max_dreams));
    for (int i = 0; i < max_dreams; ++i)
      out.push_back(all[static_cast<size_t>(static_cast<int64_t>(i) * pool / max_dreams)]);
    return out;
  }
  return all;
}

DreamSummary wm_dream_many(const WorldModel& model, const std::vector<bnb::EpisodeRecord>& episodes,
                           const std::vector<DreamStart>& starts, const DreamParams& p) {
  DreamSummary s;
  s.model = s.copy_last = s.const_velocity = ErrorAccumulator(p.steps);
  for (const auto& d : starts) {
    DreamParams q = p;
    q.seed =
        p.seed + static_cast<uint64_t>(d.episode) * 1000003ull + static_cast<uint64_t>(d.start);
    const DreamResult r = wm_dream(model, episodes.at(static_cast<size_t>(d.episode)), d.start, q);
    s.model.merge(r.model);
    s.copy_last.merge(r.copy_last);
    s.const_velocity.merge(r.const_velocity);
    ++s.dreams;
  }
  return s;
}

}  // namespace poslab::wm
