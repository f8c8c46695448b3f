// Batches for the world-model tests: windows cut from real simulated episodes (the
// expert with behaviour noise), with optional padding at the end of a window.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/bnb/bnb_episode.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm::test {

// B windows of T steps; window w comes from episode seed + w starting at row `start`.
// When an episode is shorter, the rest of the window is padding (valid = 0, zeros).
// team_size 0 draws sizes per the spec (absent slots appear); pad_last pads the last
// `pad_last` steps of window 0.
inline WmBatch episode_batch(int B, int T, uint64_t seed, int start = 0, int team_size = 0,
                             int pad_last = 0) {
  WmBatch b;
  b.batch = B;
  b.steps = T;
  b.tokens.assign(static_cast<size_t>(B) * T * kShips * kTokenDim, 0.0f);
  b.actions.assign(static_cast<size_t>(B) * T * kShips * 3, 0);
  b.valid.assign(static_cast<size_t>(B) * T, 0);
  for (int w = 0; w < B; ++w) {
    bnb::EpisodeSpec spec;
    spec.seed = seed + static_cast<uint64_t>(w);
    spec.config.team0_size = team_size;
    spec.config.team1_size = team_size;
    spec.config.max_steps = start + T + 2;
    const bnb::EpisodeRecord rec = bnb::run_episode(spec);
    int rows = std::min(T, rec.rows - start);
    if (w == 0) rows = std::min(rows, T - pad_last);
    for (int t = 0; t < rows; ++t) {
      const size_t src = static_cast<size_t>(start + t) * kShips;
      const size_t dst = (static_cast<size_t>(w) * T + t) * kShips;
      std::copy_n(&rec.tokens[src * kTokenDim], kShips * kTokenDim, &b.tokens[dst * kTokenDim]);
      std::copy_n(&rec.actions[src * 3], kShips * 3, &b.actions[dst * 3]);
      b.valid[static_cast<size_t>(w) * T + t] = 1;
    }
  }
  return b;
}

}  // namespace poslab::wm::test
