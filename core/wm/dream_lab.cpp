// The dream lab's core (dream_lab.hpp): preset codec, errors and baselines, the token
// strip's index bookkeeping, and the real-vs-dream session the panel and the CLI step.
// Sections: Preset codec | Errors and baselines | Token strip | Session (config, begin,
// restart, advance, run, helm actions, replay, curves) | Variant comparison.
#include "core/wm/dream_lab.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab::wm {
namespace {

const std::vector<std::string> kPolicies{"expert", "noisy", "random"};
const std::vector<std::string> kStarts{"seed", "file"};
const std::vector<std::string> kLoops{"closed", "open"};
const std::vector<std::string> kViews{"side", "ghost"};

}  // namespace

// ---- Preset codec -----------------------------------------------------------------------

const PresetTable<DreamLabSettings>& dreams_preset_fields() {
  using S = DreamLabSettings;
  static const PresetTable<S> t{
      preset_choice<S>(
          "start", [](auto& s) -> auto& { return s.start; }, kStarts,
          "start state: a fresh episode from a seed, or a dataset episode"),
      preset_field<S>(
          "seed", [](auto& s) -> auto& { return s.seed; }, S::seed_range,
          "episode seed (start = seed)"),
      preset_field<S>(
          "team0", [](auto& s) -> auto& { return s.team0_size; }, S::team_size_range,
          "ships of team 0, 0 = random"),
      preset_field<S>(
          "team1", [](auto& s) -> auto& { return s.team1_size; }, S::team_size_range,
          "ships of team 1, 0 = same as team 0"),
      preset_choice<S>(
          "policy", [](auto& s) -> auto& { return s.policy; }, kPolicies, "who flies reality"),
      preset_field<S>(
          "file", [](auto& s) -> auto& { return s.file; }, "HDF5 dataset (start = file)"),
      preset_field<S>(
          "episode", [](auto& s) -> auto& { return s.episode; }, S::episode_range,
          "episode index in the file"),
      preset_field<S>(
          "from", [](auto& s) -> auto& { return s.from; }, S::from_range,
          "real steps played before the dream starts"),
      preset_field<S>(
          "horizon", [](auto& s) -> auto& { return s.horizon; }, S::horizon_range,
          "dream steps at most"),
      // The naive reuse was called "reset" before the UniZero patch existed: still read it.
      with_value_aliases(preset_choice<S>(
                             "variant", [](auto& s) -> auto& { return s.window; },
                             dream_variant_names(), "position variant and window mode"),
                         {{"reset", "naive"}}),
      preset_field<S>(
          "model", [](auto& s) -> auto& { return s.model; },
          "checkpoint path; empty = the shipped one for the variant and size"),
      preset_choice<S>(
          "size", [](auto& s) -> auto& { return s.size; }, dream_model_size_names(),
          "shipped model: tiny (context 32 steps) or paper (E 128, 6 blocks, context 96)"),
      preset_choice<S>(
          "loop", [](auto& s) -> auto& { return s.loop; }, kLoops,
          "closed loop (argmax fed back) or open loop (sampled)"),
      preset_field<S>(
          "temp", [](auto& s) -> auto& { return s.temperature; }, S::temperature_range,
          "open loop sampling temperature, 0 = argmax"),
      preset_field<S>(
          "helm", [](auto& s) -> auto& { return s.helm; }, S::helm_range,
          "slot flown from the keyboard, -1 none"),
      preset_field<S>(
          "follow", [](auto& s) -> auto& { return s.follow; },
          "reality follows the helm's inputs too"),
      preset_choice<S>(
          "view", [](auto& s) -> auto& { return s.view; }, kViews,
          "real and dream side by side, or dream ghosts over real"),
      preset_field<S>(
          "play", [](auto& s) -> auto& { return s.playing; }, "advance the dream live"),
      preset_field<S>(
          "speed", [](auto& s) -> auto& { return s.speed; }, S::speed_range, "x real time"),
      preset_field<S>(
          "t", [](auto& s) -> auto& { return s.cursor; }, S::cursor_range,
          "timeline step shown, -1 = follow the newest"),
      preset_field<S>(
          "ship", [](auto& s) -> auto& { return s.selected; }, S::slot_range,
          "slot of the token strip and attention rows"),
      preset_field<S>(
          "layer", [](auto& s) -> auto& { return s.layer; }, S::layer_range,
          "attention view: block"),
      preset_field<S>(
          "head", [](auto& s) -> auto& { return s.head; }, S::head_range, "attention view: head"),
      preset_field<S>(
          "attn", [](auto& s) -> auto& { return s.attention; }, "show the attention heatmaps"),
      preset_field<S>(
          "strip", [](auto& s) -> auto& { return s.strip; }, "show the token strip"),
      preset_field<S>(
          "compare", [](auto& s) -> auto& { return s.compare; },
          "show the variants' error curves past the context"),
      preset_field<S>(
          "train", [](auto& s) -> auto& { return s.train; }, S::train_range,
          "training panel: 0 hidden, 1 shown, 2 shown and a run started"),
  };
  return t;
}

std::string dreams_to_preset(const DreamLabSettings& s) {
  PresetWriter w(kDreamLabName);
  preset_write(w, dreams_preset_fields(), s, DreamLabSettings{});
  return w.str();
}

std::string dreams_preset_from_arena(const bnb::ArenaLabSettings& a, int step) {
  DreamLabSettings s;
  if (a.source == bnb::ArenaSource::file) {
    s.start = DreamSource::file;
    s.file = a.file;
    s.episode = a.episode;
  } else {
    s.seed = a.seed;
    s.team0_size = a.team0_size;
    s.team1_size = a.team1_size;
    s.policy = a.policy;
  }
  s.from = std::clamp(step, 0, static_cast<int>(DreamLabSettings::from_range.hi));
  return dreams_to_preset(s);
}

DreamLabSettings dreams_from_preset(const std::string& text, const DreamLabSettings& base) {
  DreamLabSettings s = base;
  PresetReader in(text, kDreamLabName);
  preset_read(in, dreams_preset_fields(), s);
  in.finish();
  if (s.start == DreamSource::file && s.file.empty())
    throw InputError("preset \"" + text + "\": start=file needs file=<path of an HDF5 dataset>");
  return s;
}

// ---- Session ------------------------------------------------------------------------------

DreamSessionConfig dream_session_config(const DreamLabSessionSettings& s) {
  DreamSessionConfig c;
  c.seed = static_cast<uint64_t>(s.seed);
  c.episode.team0_size = s.team0_size;
  c.episode.team1_size = s.team1_size;
  c.policy = s.policy == 0   ? bnb::PolicyKind::expert
             : s.policy == 1 ? bnb::PolicyKind::noisy_expert
                             : bnb::PolicyKind::random;
  c.from = s.from;
  c.horizon = s.horizon;
  c.loop = s.loop;
  c.temperature = s.temperature;
  return c;
}

DreamSessionConfig dream_session_config(const DreamLabSessionSettings& s,
                                        const bnb::EpisodeRecord& rec) {
  DreamSessionConfig c = dream_session_config_of_record(rec);
  const DreamSessionConfig lab = dream_session_config(s);
  c.from = lab.from;
  c.horizon = lab.horizon;
  c.loop = lab.loop;
  c.temperature = lab.temperature;
  return c;
}

void dream_session_replay(const DreamLabSettings& s, const DreamSessionConfig& config,
                          std::unique_ptr<DreamModel> model, int steps,
                          const std::vector<bnb::ShipAction>& helm, DreamEngine& engine,
                          DreamTimeline& timeline) {
  if (steps < 0) throw InputError("dream steps must be >= 0");
  dream_session_begin(config, std::move(model), engine, timeline);
  HelmInput in;
  in.slot = s.helm;
  in.real_follows = s.follow;
  for (int i = 0; i < steps && !timeline.finished; ++i) {
    in.action = static_cast<size_t>(i) < helm.size() ? helm[i] : bnb::ShipAction{};
    dream_session_run(engine, timeline, 1, in);
  }
}

}  // namespace poslab::wm
