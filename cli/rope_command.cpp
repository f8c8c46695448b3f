// `poslab-cli rope`: frequencies, wavelengths, scaling and angles for a RoPE setting, and
// rotating a vector or matrix read as JSON from stdin (apply, inverse, re-encode).
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/preset_flags.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/wheels_lab.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::cli {
namespace {

struct RopeArgs {
  std::string preset;
  PresetFlags<WheelsLabSettings> flags;  // the wheels table's flags (--base, --qk, ...)
  std::string positions = "0,1,2,3";
  std::string op;  // "", apply, inverse, reencode
  std::string to_positions;
  bool temperature_in_tables = false;
  bool decay = false;  // add the wheels lab's decay plot
};

void run(RopeArgs& a, const CLI::App& cmd) {
  // Start from the preset (or the defaults); flags given explicitly override it.
  WheelsLabSettings lab = a.preset.empty() ? WheelsLabSettings{} : wheels_from_preset(a.preset);
  a.flags.apply(cmd, lab);
  const RopeParams& p = lab.rope;
  rope_validate(p);
  const std::vector<double> positions = parse_number_list(a.positions, "--positions");

  Json out = io::rope_lab_json(lab, positions, a.decay);

  if (!a.op.empty()) {
    std::ostringstream stdin_text;
    stdin_text << std::cin.rdbuf();
    const std::string text = stdin_text.str();
    bool was_vector = false;
    const RowMatrix x = parse_json_matrix(text, "stdin", was_vector);
    std::vector<double> pos = positions;
    if (was_vector && pos.size() != 1) pos.resize(1);  // a single vector uses the first position
    if (static_cast<size_t>(x.rows()) != pos.size())
      throw InputError("stdin has " + std::to_string(x.rows()) + " rows but --positions lists " +
                       std::to_string(pos.size()) + "; give one position per row");
    RowMatrix y;
    if (a.op == "apply") {
      y = rope_apply(p, x, pos, a.temperature_in_tables);
    } else if (a.op == "inverse") {
      y = rope_apply_inverse(p, x, pos, a.temperature_in_tables);
    } else {
      if (a.to_positions.empty()) throw InputError("--reencode needs --to with the new positions");
      std::vector<double> to = parse_number_list(a.to_positions, "--to");
      if (was_vector && to.size() != 1) to.resize(1);
      y = rope_reencode(p, x, pos, to);
    }
    out["operation"] = a.op;
    out["result"] = was_vector ? to_json(Eigen::VectorXd(y.row(0).transpose())) : to_json(y);
  }
  std::cout << dump_json(out, 2) << "\n";
}

}  // namespace

void add_rope_command(CLI::App& app) {
  auto args = std::make_shared<RopeArgs>();
  auto* cmd =
      app.add_subcommand("rope", "RoPE frequencies, scaling, angles; rotate JSON from stdin");
  cmd->add_option("--preset", args->preset,
                  "a wheels-lab preset string, e.g. 'rope?dim=64&base=500000'");
  args->flags.add(cmd, wheels_preset_fields());  // --dim --base --layout --scaling --factor ...
  cmd->add_option("--positions", args->positions, "comma-separated positions (one per input row)");
  auto* g = cmd->add_option_group("operation", "rotate JSON read from stdin");
  g->add_flag_callback(
      "--apply", [args] { args->op = "apply"; }, "rotate by +angle(position)");
  g->add_flag_callback(
      "--inverse", [args] { args->op = "inverse"; }, "rotate by -angle(position)");
  g->add_flag_callback(
      "--reencode", [args] { args->op = "reencode"; }, "move from --positions to --to");
  g->require_option(0, 1);
  cmd->add_option("--to", args->to_positions, "new positions for --reencode");
  cmd->add_flag("--temperature-in-tables", args->temperature_in_tables,
                "multiply cos/sin by the YaRN attention factor (to show the inverse pitfall)");
  cmd->add_flag(
      "--decay", args->decay,
      "add the decay plot: score <R(m)q, R(m+d)k> at 512 distances d in [0, --decay-max]");
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
