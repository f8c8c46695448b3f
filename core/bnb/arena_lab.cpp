// Preset codec for the arena lab (only fields that differ from the defaults are written).
#include "core/bnb/arena_lab.hpp"

#include "core/common/preset.hpp"

namespace poslab::bnb {
namespace {
const std::vector<std::string> kPolicies{"expert", "noisy", "random"};
const std::vector<std::string> kSources{"live", "file"};
}  // namespace

PolicyKind arena_policy_kind(int policy) {
  return policy == 0   ? PolicyKind::expert
         : policy == 1 ? PolicyKind::noisy_expert
                       : PolicyKind::random;
}

std::string arena_to_preset(const ArenaLabSettings& s) {
  const ArenaLabSettings d;
  PresetWriter w(kArenaLabName);
  if (s.seed != d.seed) w.add("seed", s.seed);
  if (s.team0_size != d.team0_size) w.add("team0", s.team0_size);
  if (s.team1_size != d.team1_size) w.add("team1", s.team1_size);
  if (s.policy != d.policy) w.add_text("policy", kPolicies[s.policy]);
  if (s.playing != d.playing) w.add("play", s.playing);
  if (s.practice != d.practice) w.add("practice", s.practice);
  if (s.speed != d.speed) w.add("speed", s.speed);
  if (s.helm != d.helm) w.add("helm", s.helm);
  if (s.selected != d.selected) w.add("ship", s.selected);
  if (s.trail != d.trail) w.add("trail", s.trail);
  if (s.grid != d.grid) w.add("grid", s.grid);
  if (s.source != d.source) w.add_text("source", kSources[static_cast<int>(s.source)]);
  if (s.file != d.file) w.add_text("file", s.file);
  if (s.episode != d.episode) w.add("episode", s.episode);
  if (s.row != d.row) w.add("row", s.row);
  return w.str();
}

ArenaLabSettings arena_from_preset(const std::string& text, const ArenaLabSettings& base) {
  ArenaLabSettings s = base;
  PresetReader in(text, kArenaLabName);
  in.read("seed", s.seed, ArenaLabSettings::seed_range);
  in.read("team0", s.team0_size, ArenaLabSettings::team_size_range);
  in.read("team1", s.team1_size, ArenaLabSettings::team_size_range);
  in.read_choice("policy", s.policy, kPolicies);
  in.read("play", s.playing);
  in.read("practice", s.practice);
  in.read("speed", s.speed, ArenaLabSettings::speed_range);
  in.read("helm", s.helm, ArenaLabSettings::slot_range);
  in.read("ship", s.selected, ArenaLabSettings::slot_range);
  in.read("trail", s.trail, ArenaLabSettings::trail_range);
  in.read("grid", s.grid);
  int source = static_cast<int>(s.source);
  in.read_choice("source", source, kSources);
  s.source = static_cast<ArenaSource>(source);
  in.read_text("file", s.file);
  in.read("episode", s.episode, ArenaLabSettings::episode_range);
  in.read("row", s.row, ArenaLabSettings::row_range);
  in.finish();
  return s;
}

}  // namespace poslab::bnb
