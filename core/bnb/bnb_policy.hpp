// Who flies the ships (spec section 7): the scripted expert, the "sticky" behaviour noise
// with per-team skills used for data collection, a uniform random policy, and replay of a
// given action sequence. Policies draw from their own generator (derive_seed(seed, 1)), so
// replaying an episode's executed actions with its seed reproduces it exactly.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/bnb/bnb_sim.hpp"

namespace poslab::bnb {

enum class PolicyKind { expert, noisy_expert, random, replay };
const std::vector<std::string>& policy_names();        // "expert", "noisy", "random", "replay"
PolicyKind policy_from_name(const std::string& name);  // throws InputError naming it

// The scripted expert for slot k (zeros for dead or absent ships, and when no enemy is alive).
ShipAction expert_action(const SimState& s, int k);
JointAction expert_actions(const SimState& s);

// Sticky noise: for each ship and action head, a timer; when it runs out a new duration
// max(1, floor(64 Beta(2, 6))) steps is drawn, and with probability = the team's skill the
// head follows the expert for that long, else it holds one uniform random value.
struct StickyNoise {
  std::array<double, 2> skill{1.0, 1.0};  // per team, in [0, 1]
  struct Head {
    int timer = 0;       // agent steps left in the current stretch
    bool follow = true;  // follow the expert during this stretch
    uint8_t value = 0;   // held value when not following
  };
  std::array<std::array<Head, kActionHeads>, kSlots> heads{};
};
// Team skills from {(1,1), (1,X), (X,1), (X,X')}, 25 % each, X, X' ~ U(0, 1).
StickyNoise sticky_noise_init(Rng& rng);
JointAction sticky_noise_apply(StickyNoise& noise, const SimState& s, const JointAction& expert,
                               Rng& rng);
// Uniform random actions for alive ships (zeros for the others).
JointAction random_actions(const SimState& s, Rng& rng);

// One behaviour policy for a whole episode.
struct Behaviour {
  PolicyKind kind = PolicyKind::expert;
  Rng rng{0};
  StickyNoise noise;
  std::vector<JointAction> replay;  // kind == replay: the action of step t at [t]
};
Behaviour behaviour_init(PolicyKind kind, uint64_t seed, std::vector<JointAction> replay = {});
struct Decision {
  JointAction executed;  // what the ships do
  JointAction expert;    // what the expert would have done
};
// Replay beyond the end of its sequence returns zeros (run_episode stops there).
Decision behaviour_act(Behaviour& b, const SimState& s);

}  // namespace poslab::bnb
