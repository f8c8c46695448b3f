// World-model evaluation (see eval.hpp): teacher-forced scores, dreams against the real
// simulator, and the baselines beside them. Dreams run on wm's KV-cache decoder
// (core/wm/wm_decode.hpp), one step per agent step.
#include "core/wm/eval.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/bnb/bnb_features.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
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

const char* dream_loop_name(DreamLoop l) {
  return l == DreamLoop::closed ? "closed" : "open";
}
// Written out (not enum_from_name): its error says what each choice means.
DreamLoop dream_loop_from_name(const std::string& s) {
  if (s == "closed") return DreamLoop::closed;
  if (s == "open") return DreamLoop::open;
  throw InputError("loop '" + s +
                   "': use closed (recorded actions) or open (the model's action head)");
}

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

DreamResult wm_dream(WorldModel& model, const bnb::EpisodeRecord& ep, int start,
                     const DreamParams& p) {
  WmDreamer dreamer(model, p.window);
  return wm_dream(dreamer, ep, start, p);
}

DreamResult wm_dream(WmDreamer& dreamer, const bnb::EpisodeRecord& ep, int start,
                     const DreamParams& p) {
  dream_validate(p);
  if (start < 0 || start + 1 >= ep.rows)
    throw InputError("dream start row " + std::to_string(start) +
                     " must leave a real step after it (episode has " + std::to_string(ep.rows) +
                     " rows)");
  dreamer.reset();
  const int first = std::max(0, start - p.history);
  const int K = p.steps;
  // The real history, teacher-forced into the cache.
  for (int r = first; r < start; ++r)
    dreamer.step_with_actions(ep.tokens.data() + static_cast<size_t>(r) * N * F,
                              ep.actions.data() + static_cast<size_t>(r) * N * 3);
  DreamResult res;
  res.start = start;
  res.model = res.copy_last = res.const_velocity = ErrorAccumulator(K);
  const float* start_state = ep.tokens.data() + static_cast<size_t>(start) * N * F;
  res.dreamt.assign(start_state, start_state + N * F);
  res.real.assign(start_state, start_state + N * F);
  bnb::SimState sim;
  if (p.loop == DreamLoop::open) sim = wm_replay_to(ep, start);
  WmActionChoice choice;
  choice.sample = p.temperature > 0;
  choice.temperature = p.temperature > 0 ? p.temperature : 1.0;
  choice.seed = p.seed;
  std::vector<float> state(start_state, start_state + N * F), clean(N * F), base(N * F),
      real(N * F);
  for (int j = 0; j < K; ++j) {
    const int r = start + j;
    if (p.loop == DreamLoop::closed && r + 1 >= ep.rows) break;
    if (p.loop == DreamLoop::open && sim.done) break;
    const WmStepResult out =
        p.loop == DreamLoop::closed
            ? dreamer.step_with_actions(state.data(),
                                        ep.actions.data() + static_cast<size_t>(r) * N * 3)
            : dreamer.step(state.data(), choice);
    wm_clean_state(out.state_pred.data(), state.data(), clean.data());
    res.actions.insert(res.actions.end(), out.actions.begin(), out.actions.end());
    if (p.loop == DreamLoop::closed) {
      std::copy_n(ep.tokens.begin() + static_cast<long>(r + 1) * N * F, N * F, real.begin());
    } else {
      bnb::JointAction ja;
      for (int n = 0; n < N; ++n)
        ja[static_cast<size_t>(n)] = {out.actions[static_cast<size_t>(n * 3)],
                                      out.actions[static_cast<size_t>(n * 3 + 1)],
                                      out.actions[static_cast<size_t>(n * 3 + 2)]};
      bnb::sim_step(sim, ja);
      bnb::write_tokens(sim, real.data());
    }
    res.dreamt.insert(res.dreamt.end(), clean.begin(), clean.end());
    res.real.insert(res.real.end(), real.begin(), real.end());
    res.model.add(j + 1, clean.data(), real.data());
    baseline_copy_last(start_state, j + 1, base.data());
    res.copy_last.add(j + 1, base.data(), real.data());
    baseline_constant_velocity(start_state, j + 1, base.data());
    res.const_velocity.add(j + 1, base.data(), real.data());
    res.steps = j + 1;
    state = clean;
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
        const size_t row = static_cast<size_t>(part[bi].start + t);
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
    for (int i = 0; i < max_dreams; ++i)
      out.push_back(all[static_cast<size_t>(static_cast<int64_t>(i) * pool / max_dreams)]);
    return out;
  }
  return all;
}

DreamSummary wm_dream_many(WorldModel& model, const std::vector<bnb::EpisodeRecord>& episodes,
                           const std::vector<DreamStart>& starts, const DreamParams& p) {
  DreamSummary s;
  s.model = s.copy_last = s.const_velocity = ErrorAccumulator(p.steps);
  WmDreamer dreamer(model, p.window);
  for (const auto& d : starts) {
    DreamParams q = p;
    q.seed =
        p.seed + static_cast<uint64_t>(d.episode) * 1000003ull + static_cast<uint64_t>(d.start);
    const DreamResult r =
        wm_dream(dreamer, episodes.at(static_cast<size_t>(d.episode)), d.start, q);
    s.model.merge(r.model);
    s.copy_last.merge(r.copy_last);
    s.const_velocity.merge(r.const_velocity);
    ++s.dreams;
  }
  return s;
}

}  // namespace poslab::wm
