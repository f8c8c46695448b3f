// The arena lab's whole state that a preset restores (preset lab name "arena"): the live
// episode's seed and team sizes, who flies the computer ships, playback, the ship being
// inspected or steered, what is drawn, and the dataset file being scrubbed.
#pragma once
#include <string>

#include "core/bnb/bnb_policy.hpp"
#include "core/common/param_range.hpp"
#include "core/common/preset_fields.hpp"

namespace poslab::bnb {

enum class ArenaSource { live, file };  // a live simulation, or episodes from an HDF5 file

struct ArenaLabSettings {
  int seed = 298;      // live episode seed, [0, 2147483647] (298: a 4v4 fight lasting ~10 s)
  int team0_size = 4;  // ships of team 0, 0 = random 1..4 (both teams equal), [0, 4]
  int team1_size = 4;  // ships of team 1, 0 = same as team 0, [0, 4]
  int policy = 0;      // computer ships: 0 expert, 1 noisy expert, 2 random
  // Run the live episode / play the file episode. Paused by default: a newcomer first sees
  // "take the helm: press W" instead of a 20 s match ending before the helm is found (issue 24).
  bool playing = false;
  bool practice = false;  // computer ships never fire (physics unchanged): learn to fly and aim
  double speed = 0.5;     // playback speed, x real time (25 agent steps/s), [0.1, 16]
  int helm = -1;          // slot steered from the keyboard, -1 none, [-1, 7]
  int selected = -1;      // slot shown in the inspector, -1 none, [-1, 7]
  int trail = 12;         // trail length, agent steps, [0, 100]
  bool grid = true;       // draw the 128-px grid
  ArenaSource source = ArenaSource::live;
  std::string file;  // HDF5 dataset path (source = file)
  int episode = 0;   // episode index in the file, [0, 1e9]
  int row = 0;       // row (agent step) on the timeline, [0, 1e6]

  bool operator==(const ArenaLabSettings&) const = default;

  static constexpr ParamRange seed_range{0, 2147483647};
  static constexpr ParamRange team_size_range{0, 4};
  static constexpr ParamRange policy_range{0, 2};
  static constexpr ParamRange speed_range{0.1, 16};
  static constexpr ParamRange slot_range{-1, 7};
  static constexpr ParamRange trail_range{0, 100};
  static constexpr ParamRange episode_range{0, 1e9};
  static constexpr ParamRange row_range{0, 1e6};
};

inline constexpr const char* kArenaLabName = "arena";

// Every preset field of the lab, in the order presets write them.
const PresetTable<ArenaLabSettings>& arena_preset_fields();
std::string arena_to_preset(const ArenaLabSettings& s);
// The policy the computer ships fly: 0 expert, 1 noisy expert, 2 random (ArenaLabSettings).
PolicyKind arena_policy_kind(int policy);
// Starts from `base` and overrides what the preset names; throws InputError.
ArenaLabSettings arena_from_preset(const std::string& text, const ArenaLabSettings& base = {});

}  // namespace poslab::bnb
