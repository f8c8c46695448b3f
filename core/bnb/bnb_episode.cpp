// Runs episodes into the dataset's row layout (bnb_episode.hpp).
#include "core/bnb/bnb_episode.hpp"

namespace poslab::bnb {
namespace {

void append_actions(std::vector<uint8_t>& out, const JointAction& a) {
  for (const ShipAction& x : a) {
    out.push_back(x.power);
    out.push_back(x.turn);
    out.push_back(x.shoot);
  }
}

}  // namespace

void append_row(EpisodeRecord& rec, const SimState& s, const Decision& d, const StepInfo& info) {
  const size_t at = rec.tokens.size();
  rec.tokens.resize(at + kSlots * kTokenDim);
  write_tokens(s, rec.tokens.data() + at);
  append_actions(rec.actions, d.executed);
  append_actions(rec.expert_actions, d.expert);
  rec.rewards.push_back(static_cast<float>(info.reward[0]));
  rec.rewards.push_back(static_cast<float>(info.reward[1]));
  ++rec.rows;
}

EpisodeRecord run_episode(const EpisodeSpec& spec) {
  EpisodeRecord rec;
  rec.seed = spec.seed;
  SimState s = sim_reset(spec.seed, spec.config);
  Behaviour b = behaviour_init(spec.policy, spec.seed, spec.replay);
  const size_t expect = static_cast<size_t>(s.max_steps) + 1;
  rec.tokens.reserve(expect * kSlots * kTokenDim);
  rec.actions.reserve(expect * kSlots * kActionHeads);
  rec.expert_actions.reserve(expect * kSlots * kActionHeads);
  rec.rewards.reserve(expect * 2);
  for (;;) {
    const Decision d = behaviour_act(b, s);
    const bool sequence_over =
        spec.policy == PolicyKind::replay && s.step >= static_cast<int>(spec.replay.size());
    append_row(rec, s, d, StepInfo{});  // row t holds S_t; its reward is known after the step
    if (s.done || sequence_over) break;
    const StepInfo info = sim_step(s, d.executed);
    rec.rewards[rec.rewards.size() - 2] = static_cast<float>(info.reward[0]);
    rec.rewards[rec.rewards.size() - 1] = static_cast<float>(info.reward[1]);
  }
  return rec;
}

JointAction record_actions(const EpisodeRecord& rec, int row) {
  JointAction a{};
  const uint8_t* p = rec.actions.data() + static_cast<size_t>(row) * kSlots * kActionHeads;
  for (int k = 0; k < kSlots; ++k) a[k] = {p[3 * k], p[3 * k + 1], p[3 * k + 2]};
  return a;
}

std::array<int, 2> record_team_sizes(const EpisodeRecord& rec) {
  std::array<int, 2> n{0, 0};
  if (rec.rows == 0) return n;
  for (int k = 0; k < kSlots; ++k) n[k / kSlotsPerTeam] += rec.tokens[k * kTokenDim] > 0.5f;
  return n;
}

}  // namespace poslab::bnb
