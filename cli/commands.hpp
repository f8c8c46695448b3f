// The subcommands of poslab-cli. Each lives in its own <name>_command.cpp and registers
// itself on the app; main.cpp calls every add_* below. Outputs are JSON on stdout.
#pragma once
#include <CLI/CLI.hpp>

namespace poslab::cli {

void add_rope_command(CLI::App& app);
void add_quiz_command(CLI::App& app);

}  // namespace poslab::cli
