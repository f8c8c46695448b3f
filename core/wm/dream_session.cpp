// The one dream session (dream_session.hpp): errors and baselines per frame, the token
// strip's index bookkeeping, the session (begin, restart, advance, run, helm actions,
// curves) and the variant comparison. Sections in that order.
#include "core/wm/dream_session.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "core/common/errors.hpp"
#include "core/wm/baselines.hpp"

namespace poslab::wm {

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

const std::vector<std::string>& dream_variant_names() {
  static const std::vector<std::string> names{"rope", "recompute", "naive", "patch"};
  return names;
}

const std::vector<std::string>& dream_model_size_names() {
  static const std::vector<std::string> names{"tiny", "paper"};
  return names;
}

WmOverflow dream_variant_overflow(DreamVariant v) {
  return v == DreamVariant::recompute ? WmOverflow::recompute
         : v == DreamVariant::patch   ? WmOverflow::patch
                                      : WmOverflow::slide;
}

// ---- Errors and baselines ---------------------------------------------------------------

ErrorSummary step_error(std::span<const float> real, std::span<const float> pred) {
  if (real.size() != kFrameValues || pred.size() != kFrameValues)
    throw InputError("step_error: frames must hold 8 x 15 values");
  ErrorAccumulator acc(1);
  acc.add(1, pred.data(), real.data());
  return acc.at(1);
}

// ---- Token strip --------------------------------------------------------------------------

std::vector<StripToken> dream_token_strip(WmPosition position, WmOverflow window, int context,
                                          int steps) {
  if (context < 1) throw InputError("token strip: context must be >= 1 step");
  if (steps < 0) throw InputError("token strip: steps must be >= 0");
  std::vector<StripToken> out;
  out.reserve(2 * static_cast<size_t>(steps));
  for (int t = 0; t < steps; ++t)
    for (int a = 0; a < 2; ++a) out.push_back({t, a == 1, 2 * t + a, false, -1, -1});
  const int first = std::max(0, steps - context);  // oldest cached step
  // Learned positions that slide: the naive reuse.
  if (window == WmOverflow::slide && position == WmPosition::absolute) {
    // Replay the appends: the step appended when the cache held n steps (after dropping the
    // oldest if it was full) is stored at 2n, 2n + 1 and keeps that forever.
    std::vector<int> stored(steps, 0);
    int held = 0;
    for (int t = 0; t < steps; ++t) {
      if (held == context) --held;
      stored[t] = 2 * held;
      ++held;
    }
    for (int t = first; t < steps; ++t)
      for (int a = 0; a < 2; ++a) {
        StripToken& tok = out[2 * t + a];
        tok.cached = true;
        tok.stored = stored[t] + a;
        tok.used = 2 * (t - first) + a;
      }
    return out;
  }
  for (int t = first; t < steps; ++t)
    for (int a = 0; a < 2; ++a) {
      StripToken& tok = out[2 * t + a];
      tok.cached = true;
      // RoPE keeps absolute indices (only differences matter); recompute renumbers from 0,
      // and the patch moves every kept key to the row it is used at.
      tok.stored = tok.used = window == WmOverflow::slide ? tok.nominal : 2 * (t - first) + a;
    }
  return out;
}

// ---- Session ------------------------------------------------------------------------------

DreamSessionConfig dream_session_config_of_record(const bnb::EpisodeRecord& rec, int max_steps) {
  DreamSessionConfig c;
  c.seed = rec.seed;
  c.policy = bnb::PolicyKind::replay;
  for (int r = 0; r + 1 < rec.rows; ++r) c.replay.push_back(bnb::record_actions(rec, r));
  const auto sizes = bnb::record_team_sizes(rec);
  for (const bnb::EpisodeConfig& e :
       {bnb::EpisodeConfig{0, 0, max_steps}, bnb::EpisodeConfig{sizes[0], sizes[1], max_steps}}) {
    FrameTokens first;
    bnb::write_tokens(bnb::sim_reset(rec.seed, e), first.data());
    if (rec.tokens.size() >= first.size() &&
        std::equal(first.begin(), first.end(), rec.tokens.begin())) {
      c.episode = e;
      return c;
    }
  }
  throw InputError("episode with seed " + std::to_string(rec.seed) +
                   ": replaying its seed does not reproduce its first state (collected by "
                   "another simulator version?); start from a seed instead");
}

namespace {

DreamFrame frame_of(const bnb::SimState& s) {
  DreamFrame f;
  f.step = s.step;
  f.real = s;
  bnb::write_tokens(s, f.real_tokens.data());
  f.dream_tokens = f.real_tokens;
  return f;
}

// Starts the model from the real prefix frames[first .. start]: all of it, or its newest
// config.history steps.
void model_begin(DreamEngine& engine, const DreamTimeline& tl) {
  if (!engine.model) return;
  const int t = tl.start;
  const int first = tl.config.history < 0 ? 0 : std::max(0, t - tl.config.history);
  const int n = t - first;  // actions in the prompt
  std::vector<float> tokens(static_cast<size_t>(n + 1) * kFrameValues);
  std::vector<uint8_t> actions(static_cast<size_t>(n) * bnb::kSlots * 3);
  for (int i = 0; i <= n; ++i)
    std::copy(tl.frames[first + i].real_tokens.begin(), tl.frames[first + i].real_tokens.end(),
              tokens.begin() + static_cast<size_t>(i) * kFrameValues);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < bnb::kSlots; ++k) {
      // A_j led to frame j + 1
      const bnb::ShipAction& a = tl.frames[first + i + 1].real_action[k];
      uint8_t* o = actions.data() + (static_cast<size_t>(i) * bnb::kSlots + k) * 3;
      o[0] = a.power;
      o[1] = a.turn;
      o[2] = a.shoot;
    }
  engine.model->begin(tokens, actions, tl.config.sample_seed);
}

bool engine_done(const DreamEngine& engine) {
  return engine.real.done || engine.dream_steps >= engine.config.horizon;
}

// The engine's record of where the dream starts (begin, restart).
void engine_start(DreamEngine& engine, const DreamTimeline& tl) {
  engine.config = tl.config;
  engine.start_tokens = tl.frames[tl.start].real_tokens;
  engine.start_step = tl.frames[tl.start].step;
  engine.dream_steps = tl.dream_steps();
}

}  // namespace

void dream_session_begin(const DreamSessionConfig& config, std::unique_ptr<DreamModel> model,
                         DreamEngine& engine, DreamTimeline& timeline) {
  using C = DreamSessionConfig;
  require_in_range("from", config.from, C::from_range);
  require_in_range("history", config.history, C::history_range);
  require_in_range("horizon", config.horizon, C::horizon_range);
  require_in_range("temperature", config.temperature, C::temperature_range);
  bnb::validate(config.episode);
  engine = DreamEngine{};
  engine.model = std::move(model);
  engine.real = bnb::sim_reset(config.seed, config.episode);
  engine.behaviour = bnb::behaviour_init(config.policy, config.seed, config.replay);
  timeline = DreamTimeline{};
  timeline.config = config;
  timeline.frames.push_back(frame_of(engine.real));
  while (timeline.frames.back().step < config.from && !engine.real.done) {
    const bnb::Decision d = bnb::behaviour_act(engine.behaviour, engine.real);
    bnb::sim_step(engine.real, d.executed);
    timeline.frames.push_back(frame_of(engine.real));
    timeline.frames.back().real_action = timeline.frames.back().dream_action = d.executed;
  }
  timeline.start = static_cast<int>(timeline.frames.size()) - 1;
  engine_start(engine, timeline);
  timeline.finished = engine_done(engine);
  model_begin(engine, timeline);
}

void dream_session_restart(DreamEngine& engine, DreamTimeline& timeline, int at) {
  if (at < 0 || at >= static_cast<int>(timeline.frames.size()))
    throw InputError("restart at step " + std::to_string(at) + ": the timeline has steps 0.." +
                     std::to_string(timeline.frames.size() - 1));
  timeline.frames.resize(at + 1);
  // The behaviour policy acted once per real step (also when its choice was overridden),
  // so acting again on the recorded states puts its generator exactly where it was.
  const DreamSessionConfig& c = timeline.config;
  engine.behaviour = bnb::behaviour_init(c.policy, c.seed, c.replay);
  for (int i = 0; i < at; ++i) bnb::behaviour_act(engine.behaviour, timeline.frames[i].real);
  engine.real = timeline.frames[at].real;
  for (DreamFrame& f : timeline.frames) {
    f.dream_tokens = f.real_tokens;
    f.dream_action = f.real_action;
    f.error = f.copy_last = f.const_velocity = ErrorSummary{};
  }
  timeline.start = at;
  engine_start(engine, timeline);
  timeline.finished = engine_done(engine);
  model_begin(engine, timeline);
}

std::vector<DreamFrame> dream_session_advance(DreamEngine& engine, int steps,
                                              const HelmInput& helm) {
  std::vector<DreamFrame> out;
  if (engine.start_step < 0) throw InputError("dream session: begin() was not called");
  const DreamSessionConfig& c = engine.config;
  const FrameTokens& start = engine.start_tokens;
  const int start_step = engine.start_step;
  for (int i = 0; i < steps; ++i) {
    if (engine_done(engine)) break;
    const bnb::Decision d = bnb::behaviour_act(engine.behaviour, engine.real);
    const bool helm_on = helm.slot >= 0 && helm.slot < bnb::kSlots;
    bnb::JointAction real_a = d.executed, dream_a = d.executed;
    DreamStep dreamt;
    if (engine.model) {
      DreamChoice choice;
      choice.temperature = c.temperature;
      if (c.loop == DreamLoop::closed) {
        choice.given = d.executed;
        choice.use_given.fill(true);
      }
      if (helm_on) {
        choice.given[helm.slot] = helm.action;
        choice.use_given[helm.slot] = true;
      }
      dreamt = engine.model->step(choice);
      dream_a = dreamt.actions;
      if (c.loop == DreamLoop::open) real_a = dream_a;  // reality follows the model's choices
    } else if (helm_on) {
      dream_a[helm.slot] = helm.action;
    }
    if (helm_on) real_a[helm.slot] = helm.real_follows ? helm.action : d.executed[helm.slot];
    bnb::sim_step(engine.real, real_a);
    DreamFrame f = frame_of(engine.real);
    f.real_action = real_a;
    f.dream_action = dream_a;
    if (engine.model) {
      f.dream_tokens = dreamt.next;
      f.error = step_error(f.real_tokens, f.dream_tokens);
      if (c.views) {
        DreamAttention att = engine.model->attention();
        if (att.layers > 0) f.attention = std::make_shared<const DreamAttention>(std::move(att));
        for (const StripToken& t : engine.model->strip(f.step))
          if (t.cached) f.strip.push_back(t);
      }
    } else {
      f.dream_tokens = FrameTokens{};
    }
    const int h = f.step - start_step;
    FrameTokens base;
    baseline_copy_last(start.data(), h, base.data());
    f.copy_last = step_error(f.real_tokens, base);
    baseline_constant_velocity(start.data(), h, base.data());
    f.const_velocity = step_error(f.real_tokens, base);
    out.push_back(std::move(f));
    ++engine.dream_steps;
  }
  return out;
}

void dream_session_append(DreamTimeline& timeline, std::vector<DreamFrame> frames) {
  for (DreamFrame& f : frames) {
    if (f.step != timeline.frames.back().step + 1)
      throw InputError("dream session: frames of step " + std::to_string(f.step) +
                       " do not continue step " + std::to_string(timeline.frames.back().step));
    timeline.frames.push_back(std::move(f));
  }
  timeline.finished =
      timeline.frames.back().real.done || timeline.dream_steps() >= timeline.config.horizon;
}

void dream_session_run(DreamEngine& engine, DreamTimeline& timeline, int steps,
                       const HelmInput& helm) {
  dream_session_append(timeline, dream_session_advance(engine, steps, helm));
}

std::string dream_helm_actions_text(const DreamTimeline& timeline, int helm) {
  if (helm < 0 || helm >= bnb::kSlots) return {};
  std::string out;
  auto flush = [&](const bnb::ShipAction& a, int n) {
    if (n == 0) return;
    if (!out.empty()) out += ',';
    out += std::to_string(a.power) + '.' + std::to_string(a.turn) + '.' + std::to_string(a.shoot);
    if (n > 1) out += '*' + std::to_string(n);
  };
  bnb::ShipAction run{};
  int n = 0;
  for (int h = 1; h <= timeline.dream_steps(); ++h) {
    const bnb::ShipAction& a = timeline.frames[timeline.start + h].dream_action[helm];
    if (n > 0 && !(a == run)) {
      flush(run, n);
      n = 0;
    }
    run = a;
    ++n;
  }
  flush(run, n);
  return out;
}

std::vector<bnb::ShipAction> dream_helm_actions_parse(const std::string& text) {
  std::vector<bnb::ShipAction> out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item(text.data() + pos, end - pos);
    pos = end + 1;
    // POWER.TURN.SHOOT[*COUNT], each a plain decimal read with its range checked (sscanf's
    // %d wraps 4294967297 to 1).
    const char* p = item.data();
    const char* const stop = item.data() + item.size();
    const auto number = [&](char sep, int lo, int hi, int& v) {
      if (p < stop && *p == '-') return false;  // from_chars would take "-0"
      const auto [next, ec] = std::from_chars(p, stop, v);
      const bool ok = ec == std::errc() && v >= lo && v <= hi &&
                      (sep == 0 ? next == stop : next < stop && *next == sep);
      p = ok && sep != 0 ? next + 1 : next;
      return ok;
    };
    int power = 0, turn = 0, shoot = 0, n = 1;
    bool ok = number('.', 0, 2, power) && number('.', 0, 6, turn);
    if (ok) {
      const char* star = std::find(p, stop, '*');
      ok = number(star == stop ? 0 : '*', 0, 1, shoot) &&
           (star == stop || number(0, 1, static_cast<int>(kDreamHelmActionsMax), n));
    }
    if (!ok)
      throw InputError("helm actions: '" + std::string(item.substr(0, 40)) +
                       (item.size() > 40 ? "..." : "") +
                       "' is not POWER.TURN.SHOOT[*COUNT] (power 0-2, turn 0-6, shoot 0-1)");
    if (out.size() + static_cast<size_t>(n) > kDreamHelmActionsMax)
      throw InputError("helm actions: more than " + std::to_string(kDreamHelmActionsMax) +
                       " steps in all (a dream is at most " +
                       std::to_string(static_cast<int>(DreamSessionConfig::horizon_range.hi)) +
                       " steps)");
    bnb::ShipAction a;
    a.power = static_cast<uint8_t>(power);
    a.turn = static_cast<uint8_t>(turn);
    a.shoot = static_cast<uint8_t>(shoot);
    out.insert(out.end(), static_cast<size_t>(n), a);
  }
  return out;
}

DreamCurves dream_curves(const DreamTimeline& timeline) {
  DreamCurves c;
  for (int h = 1; h <= timeline.dream_steps(); ++h) {
    const DreamFrame& f = timeline.frames[timeline.start + h];
    c.dream.push_back(f.error);
    c.copy_last.push_back(f.copy_last);
    c.const_velocity.push_back(f.const_velocity);
  }
  return c;
}

// ---- Variant comparison -----------------------------------------------------------------

DreamComparison dream_compare(const DreamSessionConfig& config,
                              const std::vector<std::pair<std::string, const DreamModel*>>& models,
                              int horizon, const std::atomic<bool>* cancel) {
  DreamComparison out;
  out.horizon = horizon;
  DreamSessionConfig c = config;
  c.loop = DreamLoop::closed;
  c.horizon = horizon;
  auto pos = [](const std::vector<ErrorSummary>& v) {
    std::vector<double> y;
    y.reserve(v.size());
    for (const ErrorSummary& e : v) y.push_back(e.alive_count > 0 ? e.pos_px : std::nan(""));
    return y;
  };
  DreamCurves baseline;
  for (const auto& [label, model] : models) {
    if (!model) continue;
    if (out.context == 0) out.context = model->context();
    DreamEngine engine;
    DreamTimeline tl;
    dream_session_begin(c, model->clone(), engine, tl);
    while (!tl.finished) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return out;
      dream_session_run(engine, tl, 16);
    }
    const DreamCurves curves = dream_curves(tl);
    out.series.push_back({label, pos(curves.dream)});
    if (baseline.const_velocity.empty()) baseline = curves;
  }
  if (!baseline.const_velocity.empty())
    out.series.push_back({"constant velocity", pos(baseline.const_velocity)});
  return out;
}

}  // namespace poslab::wm
