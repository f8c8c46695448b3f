// JSON shapes shared by the Boost and Broadside subcommands (sim, collect, inspect): an
// episode's rows, action files for replay, and "4v4"-style team sizes.
#pragma once
#include <string>
#include <vector>

#include "cli/json_util.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "io/labjson/bnb_json.hpp"

namespace poslab::cli {

// An episode's rows and its outcome as JSON (io/labjson/bnb_json.hpp, shared with the GUI).
using io::bnb_episode_json;
using io::bnb_outcome;
// "random" -> {0, 0}; "3v3" -> {3, 3}; "2v4" -> {2, 4}. Throws InputError naming the text.
std::pair<int, int> parse_team_sizes(const std::string& text);
// Reads an action file: a JSON array of steps, each 8 [power, turn, shoot] triples, or an
// object whose "actions" member is such an array (so `sim` output replays directly).
std::vector<bnb::JointAction> read_action_file(const std::string& path);
// The same from text already read; errors are FileError naming `path`.
std::vector<bnb::JointAction> parse_action_json(const std::string& text, const std::string& path);

}  // namespace poslab::cli
