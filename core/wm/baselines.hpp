// What a world model must beat, and how its states are scored. Two baselines predict the
// state k agent steps after a real one without learning anything: copy-last-state, and
// constant velocity (every alive ship glides on the torus at its token velocity; positions
// re-wrapped, everything else copied). The metrics compare a predicted 8-ship state with the
// real one in the game's units: toroidal position error in pixels, velocity error in px/s,
// attitude angle error in degrees, health and power in points, alive/dead agreement.
//   N = 8 slots; a state is (N, 15) floats, slot n at [n * 15] (spec section 5)
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace poslab::wm {

inline constexpr int kHorizonPrint[] = {1, 5, 10, 25, 50};  // horizons reports print

// Baselines: the (N, 15) state k >= 0 steps after `state`.
void baseline_copy_last(const float* state, int k, float* out);
void baseline_constant_velocity(const float* state, int k, float* out);

// Errors of one ship's predicted token against the real one.
struct ShipErrors {
  double pos_px = 0;     // minimum-image distance between the positions, pixels
  double vel_px_s = 0;   // |v_pred - v_real|, pixels/s
  double att_deg = 0;    // angle between the attitude vectors, degrees in [0, 180]
  double health = 0;     // |health_pred - health_real|, points (max health 100)
  double power = 0;      // |power_pred - power_real|, points (max power 100)
  bool alive_agree = 0;  // (pred alive > 0.5) == real alive
};
ShipErrors ship_errors(const float* pred, const float* real);

// The one error record of a dream: means over many (ship, horizon) pairs, or over one
// frame's ships (dream_session.hpp's step_error). Kinematic errors average over ships alive
// in the real state (all 0 when none is); alive agreement counts over present ships (dead
// or alive).
struct ErrorSummary {
  double pos_px = 0;          // px
  double vel_px_s = 0;        // px/s
  double att_deg = 0;         // degrees, [0, 180]
  double health = 0;          // HP
  double power = 0;           // power points
  int64_t alive_count = 0;    // ships alive in reality: the terms of the kinematic means
  int64_t present_count = 0;  // present ships
  int64_t agree_count = 0;    // present ships whose alive flag the prediction got right
  // Fraction of present ships whose alive flag is right, [0, 1] (0 when none is present).
  double alive_agree() const {
    return present_count > 0 ? static_cast<double>(agree_count) / static_cast<double>(present_count)
                             : 0.0;
  }
};
class ErrorAccumulator {
 public:
  explicit ErrorAccumulator(int horizons = 1);  // horizons 1..H (index k - 1)
  // Adds every ship of one (N, 15) prediction against the real state at horizon k.
  void add(int k, const float* pred_state, const float* real_state);
  void merge(const ErrorAccumulator& o);
  int horizons() const { return static_cast<int>(sums_.size()); }
  ErrorSummary at(int k) const;  // means at horizon k (zeros if nothing was added)

 private:
  struct Sums {
    double pos = 0, vel = 0, att = 0, health = 0, power = 0;
    int64_t alive = 0, present = 0, agree = 0;
  };
  std::vector<Sums> sums_;
};

// Helpers on tokens (present: sin^2 + cos^2 of x near 1; absent tokens are zeros).
bool token_present(const float* token);
bool token_alive(const float* token);

}  // namespace poslab::wm
