// Boost and Broadside episodes as the JSON of `poslab-cli sim` (also used by collect and
// inspect), shared with the arena lab's "Export numbers" so both print the same rows.
#pragma once
#include <string>

#include "core/bnb/bnb_episode.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::io {

// {"rows": R, "team_sizes": [a, b], "outcome": ..., "tokens": (R, 8, 15), "actions": (R, 8, 3),
//  "expert_actions": (R, 8, 3), "rewards": (R, 2)} plus relational (R, 8, 8, 12) if asked.
Json bnb_episode_json(const bnb::EpisodeRecord& rec, bool relational);
// "team0_win" / "team1_win" / "draw" / "truncated", read from the terminal row.
std::string bnb_outcome(const bnb::EpisodeRecord& rec, int max_steps);
// The whole `poslab-cli sim` output for an episode run from `spec` with max_steps steps.
Json bnb_sim_json(const bnb::EpisodeSpec& spec, const bnb::EpisodeRecord& rec, int max_steps,
                  bool relational);

}  // namespace poslab::io
