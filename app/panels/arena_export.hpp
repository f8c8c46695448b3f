// The arena lab's "Export numbers" and "Copy the command" (issue 16): the ship states at
// the current agent step, as `poslab-cli sim --preset P --steps K` prints them (its last
// row), or, for a steered episode or a dataset row, the states alone.
#pragma once
#include <string>
#include <vector>

#include "app/panel.hpp"
#include "core/bnb/arena_lab.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/bnb/bnb_sim.hpp"

namespace poslab::app {

// Why no poslab-cli command reproduces this state (empty: `arena_cli_args` does).
Message arena_cli_note(const bnb::ArenaLabSettings& lab);
std::vector<std::string> arena_cli_args(const bnb::ArenaLabSettings& lab, const bnb::SimState& sim);
// live: `sim` the panel's simulation; file: `episode` the loaded dataset episode.
LabNumbers arena_numbers(const bnb::ArenaLabSettings& lab, const bnb::SimState& sim,
                         const bnb::EpisodeRecord& episode);

}  // namespace poslab::app
