// `poslab-cli sim`: one Boost and Broadside episode as JSON: the state vectors, the
// executed and expert actions and the rewards of every agent step. The policy is the
// expert, the noisy expert, uniform random, or a replayed action file.
#include <iostream>

#include "cli/bnb_input.hpp"
#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/bnb/arena_lab.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/common/errors.hpp"
#include "io/labjson/bnb_json.hpp"

namespace poslab::cli {
namespace {

struct SimArgs {
  std::string seed = "1";  // text: parsed strictly (no -1 -> 2^64-1)
  std::string teams = "random";
  int steps = bnb::kMaxEpisodeSteps;
  std::string policy = "expert";
  std::string actions_file;
  bool relational = false;
  std::string preset;  // an arena-lab preset: seed, team sizes and policy of its live episode
};

void run(const SimArgs& a, const CLI::App& cmd) {
  bnb::EpisodeSpec spec;
  spec.seed = parse_u64(a.seed, "--seed");
  const auto [t0, t1] = parse_team_sizes(a.teams);
  spec.config.team0_size = t0;
  spec.config.team1_size = t1;
  spec.policy = bnb::policy_from_name(a.policy);
  if (!a.preset.empty()) {
    // The arena lab's live episode; flags given explicitly override the preset.
    const bnb::ArenaLabSettings lab = bnb::arena_from_preset(a.preset);
    if (!cmd.count("--seed")) spec.seed = static_cast<uint64_t>(lab.seed);
    if (!cmd.count("--teams")) {
      spec.config.team0_size = lab.team0_size;
      spec.config.team1_size = lab.team1_size;
    }
    if (!cmd.count("--policy")) spec.policy = bnb::arena_policy_kind(lab.policy);
  }
  spec.config.max_steps = a.steps;
  bnb::validate(spec.config);
  if (!a.actions_file.empty()) {
    spec.policy = bnb::PolicyKind::replay;
    spec.replay = read_action_file(a.actions_file);
  } else if (spec.policy == bnb::PolicyKind::replay) {
    throw InputError("--policy replay needs --actions FILE");
  }
  const bnb::EpisodeRecord rec = bnb::run_episode(spec);
  std::cout << dump_json(io::bnb_sim_json(spec, rec, a.steps, a.relational)) << "\n";
}

}  // namespace

void add_sim_command(CLI::App& app) {
  auto a = std::make_shared<SimArgs>();
  auto* cmd = app.add_subcommand(
      "sim", "Simulate one Boost and Broadside episode; JSON trajectory on stdout");
  cmd->add_option("--preset", a->preset,
                  "an arena-lab preset (its seed, teams and policy), e.g. 'arena?seed=298'; "
                  "with --steps K the last row is the arena at agent step K");
  cmd->add_option("--seed", a->seed, "episode seed, 0..2^64-1 (same seed, same episode)");
  cmd->add_option("--teams", a->teams, "team sizes: random (1v1..4v4, 25 % each) or NvM, e.g. 4v4");
  cmd->add_option("--steps", a->steps, "maximum agent steps (truncation), 1..100000; default 512");
  cmd->add_option("--policy", a->policy,
                  "expert | noisy | random (noisy = sticky behaviour noise)");
  cmd->add_option(
      "--actions", a->actions_file,
      "replay a JSON action file: [[ [power, turn, shoot] x 8 ] per step], or sim's own output");
  cmd->add_flag("--relational", a->relational,
                "also output the 12 relational features of every pair (R, 8, 8, 12)");
  cmd->callback([a, cmd] { run(*a, *cmd); });
}

}  // namespace poslab::cli
