// Training and validation data for the world model: episodes (as collected by
// `poslab-cli collect`) split into train / validation by whole episode, and cut into
// windows of T steps with a padding mask. Training batches mix short and long windows 4:1;
// batch k is a pure function of (seed, k), so a resumed run sees exactly the batches it
// would have seen without the interruption.
//   B = windows per batch, T = steps per window, N = 8 slots; see core/wm/world_model.hpp
#pragma once
#include <cstdint>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/param_range.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

struct WmDataParams {
  int batch = 8;        // B: windows per training batch, [1, 4096]
  int short_steps = 0;  // T of a short window; 0 = min(32, long / 2), [0, 4096]
  int long_steps = 0;   // T of a long window; 0 = the context C, [0, 4096] (<= C if absolute)
  int long_every = 5;   // batch k is long when k % long_every == long_every - 1 (4:1), [1, 1000]
  double val_fraction = 0.1;  // share of episodes held out for validation, [0, 0.9]
  uint64_t seed = 0;          // split and window draws

  static constexpr ParamRange batch_range{1, 4096};
  static constexpr ParamRange steps_range{0, 4096};
  static constexpr ParamRange long_every_range{1, 1000};
  static constexpr ParamRange val_fraction_range{0, 0.9};
};

// Throws InputError naming the first bad field (a long window longer than the learned
// absolute table, for example).
void wm_data_validate(const WmDataParams& p, const WmConfig& c);
// Derived window lengths.
int wm_long_steps(const WmDataParams& p, const WmConfig& c);
int wm_short_steps(const WmDataParams& p, const WmConfig& c);

// Episode indices (into the caller's episode list) of each side, each sorted. A seeded
// shuffle; round(val_fraction * E) validation episodes, at least one when val_fraction > 0
// and E >= 2, and never all of them.
struct EpisodeSplit {
  std::vector<int> train;
  std::vector<int> val;
};
EpisodeSplit wm_split_episodes(int num_episodes, double val_fraction, uint64_t seed);

// One window: rows [start, start + length) of episode `episode`.
struct WmWindow {
  int episode = 0;
  int start = 0;
  int length = 0;  // real steps, <= T of its batch (the rest is padding)
};

// Copies windows into a batch of T steps: tokens and actions of the real rows, zeros and
// valid = 0 after them.
WmBatch wm_make_batch(const std::vector<bnb::EpisodeRecord>& episodes,
                      const std::vector<WmWindow>& windows, int steps);

// Training batch k: B windows of T = long when k % long_every == long_every - 1, else
// short. Episodes are drawn from `train` with probability proportional to their rows, the
// start uniformly among the starts that fit (an episode shorter than T gives one padded
// window from row 0).
std::vector<WmWindow> wm_train_windows(const std::vector<bnb::EpisodeRecord>& episodes,
                                       const std::vector<int>& train, const WmDataParams& p,
                                       const WmConfig& c, int64_t k);
int wm_train_steps_of_batch(const WmDataParams& p, const WmConfig& c, int64_t k);  // its T

// Fixed validation windows: every episode of `val` cut into consecutive windows of `steps`
// steps from row 0 (the last one padded), at most max_windows in total (evenly spread).
std::vector<WmWindow> wm_val_windows(const std::vector<bnb::EpisodeRecord>& episodes,
                                     const std::vector<int>& val, int steps, int max_windows);

// The state head's per-value scale (WmConfig::state_scale): for each of the 15 values, the
// root mean square of S_{t+1} - base(S_t) over every step t of the `train` episodes and
// every ship present at t (the terms of MSE_state), floored at kStateScaleFloor (values that
// never change, such as team) and capped at 1 (binary values flip by at most 1).
inline constexpr float kStateScaleFloor = 1e-4f;
std::vector<float> wm_state_scale(const std::vector<bnb::EpisodeRecord>& episodes,
                                  const std::vector<int>& train, WmStateBase base);

// Checks that every episode has the dataset layout the model reads (15 token values, 8
// slots, actions in range, at least 2 rows); throws InputError naming episode and problem.
void wm_check_episodes(const std::vector<bnb::EpisodeRecord>& episodes);

}  // namespace poslab::wm
