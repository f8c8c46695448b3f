// `poslab-cli length`: the length lab's numbers as JSON, from its preset and flags: the loss
// against position of the shipped language models (averaged over held-out windows and of one
// window), the text view's per-byte bits and top predictions, and the heads view's attention.
// The same length_lab_compute and length_lab_json as the panel's "Export numbers".
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/preset_flags.hpp"
#include "core/lm/length_lab.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::cli {
namespace {

struct LengthArgs {
  std::string preset;
  PresetFlags<lm::LengthLabSettings> flags;  // --scaling --factor --span --windows --model ...
};

void run(LengthArgs& a, const CLI::App& cmd) {
  lm::LengthLabSettings s =
      a.preset.empty() ? lm::LengthLabSettings{} : lm::length_from_preset(a.preset);
  a.flags.apply(cmd, s);
  lm::length_lab_validate(s);
  const lm::LengthLabData data = io::length_lab_load();
  const lm::LengthLabResult r = lm::length_lab_compute(s, data);
  std::cout << dump_json(io::length_lab_json(r, data.own_skipped), 2) << "\n";
}

}  // namespace

void add_length_command(CLI::App& app) {
  auto args = std::make_shared<LengthArgs>();
  auto* cmd = app.add_subcommand(
      "length", "the length lab: loss against position of the shipped language models");
  cmd->add_option("--preset", args->preset,
                  "a length-lab preset, e.g. 'length?scaling=yarn&factor=4&span=8'");
  args->flags.add(cmd, lm::length_preset_fields());
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
