// Boost and Broadside episodes as JSON (bnb_json.hpp), shared by the CLI and the arena lab.
#include "io/labjson/bnb_json.hpp"

#include "core/bnb/bnb_features.hpp"

namespace poslab::io {

using namespace bnb;

Json bnb_episode_json(const EpisodeRecord& rec, bool relational) {
  Json tokens = Json::array(), actions = Json::array(), expert = Json::array(),
       rewards = Json::array(), rel = Json::array();
  std::vector<double> rel_buf(kSlots * kSlots * kRelDim);
  for (int t = 0; t < rec.rows; ++t) {
    Json rt = Json::array(), ra = Json::array(), re = Json::array();
    const float* tok = rec.tokens.data() + static_cast<size_t>(t) * kSlots * kTokenDim;
    for (int k = 0; k < kSlots; ++k) {
      Json v = Json::array();
      for (int c = 0; c < kTokenDim; ++c) v.push_back(tok[k * kTokenDim + c]);
      rt.push_back(std::move(v));
      const size_t a = (static_cast<size_t>(t) * kSlots + k) * kActionHeads;
      ra.push_back({rec.actions[a], rec.actions[a + 1], rec.actions[a + 2]});
      re.push_back({rec.expert_actions[a], rec.expert_actions[a + 1], rec.expert_actions[a + 2]});
    }
    tokens.push_back(std::move(rt));
    actions.push_back(std::move(ra));
    expert.push_back(std::move(re));
    rewards.push_back({rec.rewards[2 * t], rec.rewards[2 * t + 1]});
    if (relational) {
      relational_from_tokens(tok, rel_buf.data());
      Json ri = Json::array();
      for (int i = 0; i < kSlots; ++i) {
        Json rj = Json::array();
        for (int j = 0; j < kSlots; ++j) {
          Json f = Json::array();
          for (int c = 0; c < kRelDim; ++c) f.push_back(rel_buf[(i * kSlots + j) * kRelDim + c]);
          rj.push_back(std::move(f));
        }
        ri.push_back(std::move(rj));
      }
      rel.push_back(std::move(ri));
    }
  }
  const auto sizes = record_team_sizes(rec);
  Json out;
  out["seed"] = rec.seed;
  out["rows"] = rec.rows;
  out["agent_steps"] = rec.rows - 1;
  out["team_sizes"] = {sizes[0], sizes[1]};
  out["tokens"] = std::move(tokens);
  out["actions"] = std::move(actions);
  out["expert_actions"] = std::move(expert);
  out["rewards"] = std::move(rewards);
  if (relational) out["relational"] = std::move(rel);
  return out;
}

std::string bnb_outcome(const EpisodeRecord& rec, int max_steps) {
  if (rec.rows == 0) return "empty";
  int alive[2] = {0, 0};
  const float* tok = rec.tokens.data() + static_cast<size_t>(rec.rows - 1) * kSlots * kTokenDim;
  for (int k = 0; k < kSlots; ++k) alive[k / kSlotsPerTeam] += tok[k * kTokenDim] > 0.5f;
  if (alive[0] > 0 && alive[1] == 0) return "team0_win";
  if (alive[1] > 0 && alive[0] == 0) return "team1_win";
  if (alive[0] == 0 && alive[1] == 0) return "draw";
  return rec.rows - 1 >= max_steps ? "truncated" : "stopped";
}

Json bnb_sim_json(const EpisodeSpec& spec, const EpisodeRecord& rec, int max_steps,
                  bool relational) {
  Json out;
  out["policy"] = policy_names()[static_cast<int>(spec.policy)];
  out["max_steps"] = max_steps;
  out["outcome"] = bnb_outcome(rec, max_steps);
  out["screen"] =
      "x right, y down; angles positive counter-clockwise in maths coordinates (clockwise on "
      "screen)";
  Json ep = bnb_episode_json(rec, relational);
  for (auto& [k, v] : ep.items()) out[k] = std::move(v);
  return out;
}

}  // namespace poslab::io
