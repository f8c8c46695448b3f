// What the Boost and Broadside subcommands read from the user (sim, collect): action files
// for replay and "4v4"-style team sizes. An episode's rows as JSON are io/labjson/bnb_json's.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/bnb/bnb_episode.hpp"

namespace poslab::cli {

// "random" -> {0, 0}; "3v3" -> {3, 3}; "2v4" -> {2, 4}. Throws InputError naming the text.
std::pair<int, int> parse_team_sizes(const std::string& text);
// Reads an action file: a JSON array of steps, each 8 [power, turn, shoot] triples, or an
// object whose "actions" member is such an array (so `sim` output replays directly).
std::vector<bnb::JointAction> read_action_file(const std::string& path);
// The same from text already read; errors are FileError naming `path`.
std::vector<bnb::JointAction> parse_action_json(const std::string& text, const std::string& path);

}  // namespace poslab::cli
