// Preset codec for the arena lab (only fields that differ from the defaults are written).
#include "core/bnb/arena_lab.hpp"

#include "core/common/preset.hpp"

namespace poslab::bnb {
namespace {
const std::vector<std::string> kPolicies{"expert", "noisy", "random"};
const std::vector<std::string> kSources{"live", "file"};
}  // namespace

const PresetTable<ArenaLabSettings>& arena_preset_fields() {
  using S = ArenaLabSettings;
  static const PresetTable<S> t{
      preset_field<S>(
          "seed", [](auto& s) -> auto& { return s.seed; }, S::seed_range, "live episode seed"),
      preset_field<S>(
          "team0", [](auto& s) -> auto& { return s.team0_size; }, S::team_size_range,
          "ships of team 0, 0 = random 1..4"),
      preset_field<S>(
          "team1", [](auto& s) -> auto& { return s.team1_size; }, S::team_size_range,
          "ships of team 1, 0 = same as team 0"),
      preset_choice<S>(
          "policy", [](auto& s) -> auto& { return s.policy; }, kPolicies,
          "who flies the computer ships"),
      preset_field<S>(
          "play", [](auto& s) -> auto& { return s.playing; }, "play the episode"),
      preset_field<S>(
          "practice", [](auto& s) -> auto& { return s.practice; }, "computer ships never fire"),
      preset_field<S>(
          "speed", [](auto& s) -> auto& { return s.speed; }, S::speed_range,
          "playback speed, x real time"),
      preset_field<S>(
          "helm", [](auto& s) -> auto& { return s.helm; }, S::slot_range,
          "slot steered from the keyboard, -1 none"),
      preset_field<S>(
          "ship", [](auto& s) -> auto& { return s.selected; }, S::slot_range,
          "slot shown in the inspector, -1 none"),
      preset_field<S>(
          "trail", [](auto& s) -> auto& { return s.trail; }, S::trail_range,
          "trail length in agent steps"),
      preset_field<S>(
          "grid", [](auto& s) -> auto& { return s.grid; }, "draw the 128-px grid"),
      preset_choice<S>(
          "source", [](auto& s) -> auto& { return s.source; }, kSources,
          "a live simulation or episodes from an HDF5 file"),
      preset_field<S>(
          "file", [](auto& s) -> auto& { return s.file; }, "HDF5 dataset path"),
      preset_field<S>(
          "episode", [](auto& s) -> auto& { return s.episode; }, S::episode_range,
          "episode index in the file"),
      preset_field<S>(
          "row", [](auto& s) -> auto& { return s.row; }, S::row_range,
          "row (agent step) on the timeline"),
  };
  return t;
}

PolicyKind arena_policy_kind(int policy) {
  return policy == 0   ? PolicyKind::expert
         : policy == 1 ? PolicyKind::noisy_expert
                       : PolicyKind::random;
}

std::string arena_to_preset(const ArenaLabSettings& s) {
  PresetWriter w(kArenaLabName);
  preset_write(w, arena_preset_fields(), s, ArenaLabSettings{});
  return w.str();
}

ArenaLabSettings arena_from_preset(const std::string& text, const ArenaLabSettings& base) {
  ArenaLabSettings s = base;
  PresetReader in(text, kArenaLabName);
  preset_read(in, arena_preset_fields(), s);
  in.finish();
  return s;
}

}  // namespace poslab::bnb
