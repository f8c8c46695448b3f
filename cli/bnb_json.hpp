// JSON shapes shared by the Boost and Broadside subcommands (sim, collect, inspect): an
// episode's rows, action files for replay, and "4v4"-style team sizes.
#pragma once
#include <string>
#include <vector>

#include "cli/json_util.hpp"
#include "core/bnb/bnb_episode.hpp"

namespace poslab::cli {

// {"rows": R, "team_sizes": [a, b], "outcome": ..., "tokens": (R, 8, 15), "actions": (R, 8, 3),
//  "expert_actions": (R, 8, 3), "rewards": (R, 2)} plus relational (R, 8, 8, 12) if asked.
Json bnb_episode_json(const bnb::EpisodeRecord& rec, bool relational);
// "team0_win" / "team1_win" / "draw" / "truncated", read from the terminal row.
std::string bnb_outcome(const bnb::EpisodeRecord& rec, int max_steps);
// "random" -> {0, 0}; "3v3" -> {3, 3}; "2v4" -> {2, 4}. Throws InputError naming the text.
std::pair<int, int> parse_team_sizes(const std::string& text);
// Reads an action file: a JSON array of steps, each 8 [power, turn, shoot] triples, or an
// object whose "actions" member is such an array (so `sim` output replays directly).
std::vector<bnb::JointAction> read_action_file(const std::string& path);
// The same from text already read; errors are FileError naming `path`.
std::vector<bnb::JointAction> parse_action_json(const std::string& text, const std::string& path);

}  // namespace poslab::cli
