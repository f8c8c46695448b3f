// `poslab-cli wm dream --preset '<dreams preset>'`: the dream lab's session replayed from
// its preset (and the helm's actions), printing exactly the numbers the panel shows.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace poslab::cli {

struct DreamLabArgs {
  std::string preset;        // "dreams?..." (the lab's Share > preset)
  std::string helm_actions;  // "P.T.S*N,..." of the helm ship, dream step by step
};
// Registers --preset and --helm-actions on `wm dream`.
void add_dream_lab_options(CLI::App& dream, DreamLabArgs& args);
// Runs the session: the preset's start, model and window, `--steps` dream steps if given
// (else until the preset's horizon or the episode's end). The other `wm dream` options
// (and the positional checkpoint) must not be given: the preset holds them.
void run_dream_lab(const DreamLabArgs& args, const CLI::App& dream, int steps);

}  // namespace poslab::cli
