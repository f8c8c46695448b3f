// Whole episodes as arrays, in the dataset's layout (spec section 8): row t holds the state
// S_t, the action taken in it, the expert's action in it and the reward of the step that
// action started. An episode of L agent steps has L + 1 rows: the terminal state is stored,
// with the policy's (not executed) choice in it and reward 0.
//   R = rows, 8 = slots, 15 = token values, 3 = action heads, 2 = teams
#pragma once
#include <cstdint>
#include <vector>

#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_policy.hpp"

namespace poslab::bnb {

struct EpisodeRecord {
  uint64_t seed = 0;
  int rows = 0;                         // R = agent steps + 1
  std::vector<float> tokens;            // (R, 8, 15)
  std::vector<uint8_t> actions;         // (R, 8, 3) executed, [power, turn, shoot] per slot
  std::vector<uint8_t> expert_actions;  // (R, 8, 3)
  std::vector<float> rewards;           // (R, 2) per team, reward of the step from row t
};

struct EpisodeSpec {
  uint64_t seed = 0;
  EpisodeConfig config;
  PolicyKind policy = PolicyKind::noisy_expert;
  std::vector<JointAction> replay;  // policy == replay: actions of steps 0, 1, ...
};

// Runs to the end (win, draw, truncation) or, for replay, to the end of the sequence.
EpisodeRecord run_episode(const EpisodeSpec& spec);

// Appends one row (the current state, the decision in it, the reward of the step).
void append_row(EpisodeRecord& rec, const SimState& s, const Decision& d, const StepInfo& info);

// Reading a record back: the executed actions of row t, and team sizes from row 0.
JointAction record_actions(const EpisodeRecord& rec, int row);
std::array<int, 2> record_team_sizes(const EpisodeRecord& rec);

}  // namespace poslab::bnb
