// The rotary-wheels lab's whole state that a preset restores: the RoPE parameters plus
// where the user is looking (position, animation, selected pair). Plain data; the app's
// panel draws it and the command line reads the same preset strings.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "core/common/preset_fields.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_table.hpp"

namespace poslab {

enum class DecayVectors { ones, random };  // q = k = all ones (RoFormer's bound) or seeded random

struct WheelsLabSettings {
  RopeParams rope;          // frequencies, layout, context extension
  double position = 10.0;   // m: token position shown, [0, 1e7]
  bool log_slider = false;  // position slider on a log scale
  bool playing = false;     // animate the position
  double speed = 8.0;       // animation speed, positions per second, [0.01, 1e6]
  int trail = 12;           // positions drawn behind each hand, [0, 64]
  int selected_pair = 0;    // pair whose numbers are shown, [0, 255]
  double dial_size = 64.0;  // dial diameter in pixels at scale 1, [24, 256]
  DecayVectors decay_vectors = DecayVectors::ones;
  double decay_max_distance = 4096.0;  // x-range of the decay plot, [8, 1e7]

  bool operator==(const WheelsLabSettings&) const = default;

  static constexpr ParamRange position_range{0, 1e7};
  static constexpr ParamRange speed_range{0.01, 1e6};
  static constexpr ParamRange trail_range{0, 64};
  static constexpr ParamRange selected_pair_range{0, 255};
  static constexpr ParamRange dial_size_range{24, 256};
  static constexpr ParamRange decay_max_distance_range{8, 1e7};
};

inline constexpr const char* kWheelsLabName = "rope";

// The decay plot: the score <R(m)q, R(m+d)k> (no 1/sqrt(D)) at kWheelsDecaySamples
// distances d evenly spaced over [0, decay_max_distance], with the settings' context
// extension and without it. q = k = ones, or q and k drawn from the portable normal of
// core/common/random.hpp (seed 1234, the same numbers on every platform).
inline constexpr int kWheelsDecaySamples = 512;
struct WheelsDecay {
  std::vector<double> deltas;    // d, (kWheelsDecaySamples,)
  std::vector<double> scaled;    // score with the settings' scaling
  std::vector<double> original;  // score with scaling = none
  Eigen::VectorXd q, k;          // the query and key used, (D,)
};
WheelsDecay wheels_decay(const WheelsLabSettings& s);
const std::vector<std::string>& decay_vectors_names();  // ones, random

// The dials' hands for one frame: where each pair's hand points at m (with the settings'
// frequencies and with the original ones) and at the trail positions m-1, ..., m-trail.
// Built once per parameter change (validation and frequencies); set_position then
// recomputes only the cos/sin of the trail + 1 positions, each frame.
//   hands(): RopeTable, row k = position m - k (k = 0..trail), (trail + 1, P)
//   plain(): RopeTable at m with scaling = none, (1, P)
class WheelsHands {
 public:
  WheelsHands() = default;
  explicit WheelsHands(const RopeParams& p);  // throws InputError like rope_validate
  void set_position(double m, int trail);
  const RopeTable& hands() const { return hands_; }
  const RopeTable& plain() const { return plain_; }

 private:
  RopeTable hands_, plain_;
  double m_ = std::numeric_limits<double>::quiet_NaN();  // position of the tables
  int trail_ = -1;
};

// Every preset field of the lab (the RoPE fields first), in the order presets write them.
const PresetTable<WheelsLabSettings>& wheels_preset_fields();
std::string wheels_to_preset(const WheelsLabSettings& s);
// Starts from `base` (usually the defaults) and overrides what the preset names.
WheelsLabSettings wheels_from_preset(const std::string& text, const WheelsLabSettings& base = {});

}  // namespace poslab
