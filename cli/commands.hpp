// The subcommands of poslab-cli. Each lives in its own <name>_command.cpp and registers
// itself on the app; main.cpp calls every add_* below. Outputs are JSON on stdout.
#pragma once
#include <CLI/CLI.hpp>

namespace poslab::cli {

void add_rope_command(CLI::App& app);
void add_sim_command(CLI::App& app);      // Boost and Broadside: one episode
void add_collect_command(CLI::App& app);  // Boost and Broadside: HDF5 dataset
void add_inspect_command(CLI::App& app);  // Boost and Broadside: dataset summary
void add_quiz_command(CLI::App& app);
void add_kv_command(CLI::App& app);
void add_attention_command(CLI::App& app);
void add_length_command(CLI::App& app);  // the length lab's numbers
void add_wm_command(CLI::App& app);  // Boost and Broadside world model (train, eval, dream, ...)
// `wm train-lab` (the dream lab's training run) on the `wm` subcommand add_wm_command made.
void add_wm_train_lab_command(CLI::App& wm);
void add_lm_command(CLI::App& app);  // byte-level language models of the length lab

}  // namespace poslab::cli
