// The dream lab (preset lab name "dreams"): one start state of Boost and Broadside played
// two ways, by the exact simulator and by a world model's dream, fed the same actions.
// This file holds the lab's settings and preset codec, and what turns them into the one
// dream session (core/wm/dream_session.hpp) that the GUI panel, `poslab-cli wm dream` and
// `wm eval` all drive.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/bnb/arena_lab.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/common/param_range.hpp"
#include "core/common/preset_fields.hpp"
#include "core/wm/dream_session.hpp"

namespace poslab::wm {

inline constexpr const char* kDreamLabName = "dreams";

enum class DreamSource { seed, file };  // a fresh episode from a seed, or a dataset episode
enum class DreamView { side, ghost };   // real | dream side by side, or dream ghosts over real

// What defines the lab's session: where it starts, which model dreams and how. A change
// here starts the session over (the panel compares DreamLabSession with ==); the view's
// fields (DreamLabSettings below) do not.
struct DreamLabSessionSettings {
  DreamSource start = DreamSource::seed;  // where the start state comes from
  int seed = 7;                           // episode seed (start = seed), [0, 2147483647]
  int team0_size = 4;                     // ships of team 0, 0 = random (spec), [0, 4]
  int team1_size = 4;                     // ships of team 1, 0 = same as team 0, [0, 4]
  int policy = 1;                         // who flies reality: 0 expert, 1 noisy expert, 2 random
  std::string file;                       // HDF5 dataset (start = file)
  int episode = 0;                        // episode index in the file, [0, 1e9]
  int from = 8;      // real steps played before the dream starts (the prompt), [0, 511]
  int horizon = 96;  // dream steps at most, [1, 1536]
  DreamVariant window = DreamVariant::rope;  // position variant and window mode (model file too)
  std::string model;  // checkpoint path; empty = the shipped one for the variant and size
  DreamModelSize size = DreamModelSize::tiny;  // shipped model's size (model empty)
  DreamLoop loop = DreamLoop::closed;
  double temperature = 1.0;  // open loop sampling temperature, 0 = argmax, [0, 3]

  bool operator==(const DreamLabSessionSettings&) const = default;

  static constexpr ParamRange seed_range{0, 2147483647};
  static constexpr ParamRange team_size_range{0, 4};
  static constexpr ParamRange policy_range{0, 2};
  static constexpr ParamRange episode_range{0, 1e9};
  static constexpr ParamRange from_range{0, 511};
  static constexpr ParamRange horizon_range{1, 1536};
  static constexpr ParamRange temperature_range{0, 3};
};

// The lab's settings: the session's (the base, so `s.seed` reads as before and the session
// key is that part, not a copy of its fields), then the view's.
struct DreamLabSettings : DreamLabSessionSettings {
  int helm = -1;       // slot flown from the keyboard, -1 none, [-1, 7]
  bool follow = true;  // reality follows the helm's inputs too (else its policy flies)
  DreamView view = DreamView::side;
  bool playing = true;    // advance the dream live
  double speed = 1.0;     // x real time (25 agent steps/s), [0.1, 16]
  int cursor = -1;        // timeline step shown, -1 = follow the newest, [-1, 100000]
  int selected = 0;       // slot of the token strip and attention rows, [0, 7]
  int layer = 0;          // attention view: block, [0, 63]
  int head = 0;           // attention view: head, [0, 63]
  bool attention = true;  // show the attention heatmaps
  bool strip = true;      // show the token strip
  bool compare = false;   // show the variants' error curves past the context
  int train = 0;          // training panel: 0 hidden, 1 shown, 2 shown and a run started, [0, 2]

  bool operator==(const DreamLabSettings&) const = default;

  static constexpr ParamRange helm_range{-1, 7};
  static constexpr ParamRange speed_range{0.1, 16};
  static constexpr ParamRange cursor_range{-1, 100000};
  static constexpr ParamRange slot_range{0, 7};
  static constexpr ParamRange layer_range{0, 63};
  static constexpr ParamRange head_range{0, 63};
  static constexpr ParamRange train_range{0, 2};
};

// Every preset field of the lab, in the order presets write them.
const PresetTable<DreamLabSettings>& dreams_preset_fields();
std::string dreams_to_preset(const DreamLabSettings& s);
// "Dream from here" in the arena lab: the dream lab's preset for the arena's episode (seed,
// teams and policy, or file and episode) with the dream starting at agent step `step`.
// A live episode is replayed from its seed, so steps flown by hand at the helm are not.
std::string dreams_preset_from_arena(const bnb::ArenaLabSettings& arena, int step);
// Starts from `base` and overrides what the preset names; throws InputError.
DreamLabSettings dreams_from_preset(const std::string& text, const DreamLabSettings& base = {});

// ---- The lab's session (core/wm/dream_session.hpp) -------------------------------------
// The lab's session key: its session settings (DreamLabSessionSettings, the view's fields
// left out) and whether a start file still waits for approval.
struct DreamLabSession {
  DreamLabSessionSettings settings;  // where the session starts, which model dreams and how
  bool unapproved = false;           // start = file waits for approval: the seed's episode runs

  bool operator==(const DreamLabSession&) const = default;
};
inline DreamLabSession dreams_session_of(const DreamLabSettings& s, bool unapproved = false) {
  return {s, unapproved};
}
DreamSessionConfig dream_session_config(const DreamLabSessionSettings& s);
// A dataset episode as the start: its seed replayed with its recorded actions (the real
// side is then the recorded episode, extended by the simulator under the helm). The team
// sizes are tried as drawn by the seed and as recorded; throws InputError when neither
// reproduces the recorded first state (a file from another simulator version).
DreamSessionConfig dream_session_config(const DreamLabSessionSettings& s,
                                        const bnb::EpisodeRecord& rec);

// The lab's session from its settings: begin, then `steps` dream steps (fewer when it
// finishes), the helm slot (s.helm, s.follow) flown with helm[i] at dream step i + 1 and
// the neutral action past the list's end. What the panel does frame by frame, in one call.
void dream_session_replay(const DreamLabSettings& s, const DreamSessionConfig& config,
                          std::unique_ptr<DreamModel> model, int steps,
                          const std::vector<bnb::ShipAction>& helm, DreamEngine& engine,
                          DreamTimeline& timeline);

}  // namespace poslab::wm
