// `poslab-cli rope`: frequencies, wavelengths, scaling and angles for a RoPE setting, and
// rotating a vector or matrix read as JSON from stdin (apply, inverse, re-encode).
#include <iostream>
#include <iterator>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/wheels_lab.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::cli {
namespace {

struct RopeArgs {
  std::string preset;
  WheelsLabSettings lab;
  std::string layout, scaling;
  std::string positions = "0,1,2,3";
  std::string op;  // "", apply, inverse, reencode
  std::string to_positions;
  bool temperature_in_tables = false;
  bool decay = false;  // add the wheels lab's decay plot
  std::string qk;      // decay vectors: ones | random
};

const std::pair<const char*, double RopeParams::*> kDoubleFlags[] = {
    {"--rotary-fraction", &RopeParams::rotary_fraction},
    {"--base", &RopeParams::base},
    {"--factor", &RopeParams::factor},
    {"--current-length", &RopeParams::current_length},
    {"--beta-fast", &RopeParams::yarn_beta_fast},
    {"--beta-slow", &RopeParams::yarn_beta_slow},
    {"--mscale", &RopeParams::yarn_attention_factor},
    {"--low-freq-factor", &RopeParams::llama3_low_freq_factor},
    {"--high-freq-factor", &RopeParams::llama3_high_freq_factor},
};

void run(RopeArgs& a, const CLI::App& cmd) {
  // Start from the preset (or the defaults); flags given explicitly override it.
  WheelsLabSettings lab = a.preset.empty() ? WheelsLabSettings{} : wheels_from_preset(a.preset);
  RopeParams& p = lab.rope;
  const RopeParams& f = a.lab.rope;
  for (const auto& [flag, field] : kDoubleFlags)
    if (cmd.count(flag)) p.*field = f.*field;
  if (cmd.count("--dim")) p.head_dim = f.head_dim;
  if (cmd.count("--L")) p.original_context = f.original_context;
  if (!a.layout.empty()) p.layout = rope_layout_from_name(a.layout);
  if (!a.scaling.empty()) p.scaling = rope_scaling_from_name(a.scaling);
  rope_validate(p);
  const std::vector<double> positions = parse_number_list(a.positions, "--positions");

  if (a.decay) {
    if (!a.qk.empty())
      lab.decay_vectors =
          static_cast<DecayVectors>(enum_index_from_name("--qk", a.qk, decay_vectors_names()));
    if (cmd.count("--decay-max")) lab.decay_max_distance = a.lab.decay_max_distance;
  }
  Json out = io::rope_lab_json(lab, positions, a.decay);

  if (!a.op.empty()) {
    const std::string text(std::istreambuf_iterator<char>(std::cin), {});
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
  RopeParams& p = args->lab.rope;
  cmd->add_option("--preset", args->preset,
                  "a wheels-lab preset string, e.g. 'rope?dim=64&base=500000'");
  cmd->add_option("--dim", p.head_dim, "head dim D (even, 2..512)");
  cmd->add_option("--rotary-fraction", p.rotary_fraction,
                  "share of D rotated (partial rotary), (0, 1]");
  cmd->add_option("--base", p.base, "rope_theta b (> 1)");
  cmd->add_option("--layout", args->layout, "interleaved | half");
  cmd->add_option("--scaling", args->scaling, "none | linear | ntk | dynamic | yarn | llama3");
  cmd->add_option("--factor", p.factor, "context-extension factor s (>= 1)");
  cmd->add_option("--L", p.original_context, "trained context length L");
  cmd->add_option("--current-length", p.current_length, "dynamic NTK: current sequence length");
  cmd->add_option("--beta-fast", p.yarn_beta_fast, "YaRN beta (turns above which pairs are kept)");
  cmd->add_option("--beta-slow", p.yarn_beta_slow,
                  "YaRN alpha (turns below which pairs are interpolated)");
  cmd->add_option("--mscale", p.yarn_attention_factor, "YaRN attention factor (0 = 0.1 ln s + 1)");
  cmd->add_option("--low-freq-factor", p.llama3_low_freq_factor, "llama3 low_freq_factor");
  cmd->add_option("--high-freq-factor", p.llama3_high_freq_factor, "llama3 high_freq_factor");
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
  cmd->add_option("--decay-max", args->lab.decay_max_distance, "largest distance d, 8..1e7");
  cmd->add_option("--qk", args->qk, "decay vectors: ones | random (seeded normal)");
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
