// The arena lab's exports (see arena_export.hpp). The numbers of a live episode come from
// re-running it through core/bnb's run_episode, the function `poslab-cli sim` calls, and are
// checked against the panel's own simulation before they are written.
#include "app/panels/arena_export.hpp"

#include <algorithm>

#include "core/bnb/bnb_features.hpp"
#include "io/labjson/bnb_json.hpp"
#include "io/labjson/lab_csv.hpp"

namespace poslab::app {
namespace {

int cli_steps(const bnb::SimState& sim) {
  return std::max(1, sim.step);  // sim needs at least one step; row `sim.step` is exported
}

io::Json tokens_json(const float* tok) {
  io::Json rows = io::Json::array();
  for (int k = 0; k < bnb::kSlots; ++k) {
    io::Json v = io::Json::array();
    for (int c = 0; c < bnb::kTokenDim; ++c) v.push_back(tok[k * bnb::kTokenDim + c]);
    rows.push_back(std::move(v));
  }
  return rows;
}

LabNumbers states_only(io::Json j, const float* tok) {
  j["rows"] = 1;
  j["tokens"] = io::Json::array({tokens_json(tok)});
  return LabNumbers::of(io::dump_json(j) + "\n", io::arena_lab_csv(j, 0));
}

}  // namespace

Message arena_cli_note(const bnb::ArenaLabSettings& lab) {
  if (lab.source == bnb::ArenaSource::file) return share_message("share.why.arena_file");
  if (lab.helm >= 0) return share_message("share.why.arena_helm");
  if (lab.practice) return share_message("share.why.arena_practice");
  return {};
}

std::vector<std::string> arena_cli_args(const bnb::ArenaLabSettings& lab,
                                        const bnb::SimState& sim) {
  if (!arena_cli_note(lab).empty()) return {};
  return {"sim", "--preset", bnb::arena_to_preset(lab), "--steps", std::to_string(cli_steps(sim))};
}

LabNumbers arena_numbers(const bnb::ArenaLabSettings& lab, const bnb::SimState& sim,
                         const bnb::EpisodeRecord& episode) {
  if (lab.source == bnb::ArenaSource::file) {
    if (episode.rows == 0) return LabNumbers::none(share_message("share.why.no_episode"));
    const int row = std::clamp(lab.row, 0, episode.rows - 1);
    const io::Json j{{"source", "file"}, {"file", lab.file}, {"episode", lab.episode}};
    return states_only(
        j, episode.tokens.data() + static_cast<size_t>(row) * bnb::kSlots * bnb::kTokenDim);
  }
  std::vector<float> now(bnb::kSlots * bnb::kTokenDim);
  bnb::write_tokens(sim, now.data());
  if (arena_cli_note(lab).empty()) {
    bnb::EpisodeSpec spec;
    spec.seed = static_cast<uint64_t>(lab.seed);
    spec.config.team0_size = lab.team0_size;
    spec.config.team1_size = lab.team1_size;
    spec.config.max_steps = cli_steps(sim);
    spec.policy = bnb::arena_policy_kind(lab.policy);
    const bnb::EpisodeRecord rec = bnb::run_episode(spec);
    const size_t off = static_cast<size_t>(sim.step) * bnb::kSlots * bnb::kTokenDim;
    if (rec.rows > sim.step &&
        std::equal(now.begin(), now.end(), rec.tokens.begin() + static_cast<std::ptrdiff_t>(off))) {
      const io::Json j = io::bnb_sim_json(spec, rec, spec.config.max_steps, false);
      return LabNumbers::of(io::dump_json(j) + "\n", io::arena_lab_csv(j, sim.step));
    }
  }
  // Steered, practising, or (never expected) a replay that differs: the states alone.
  const io::Json j{{"source", "live"},
                   {"note", "not reproducible by poslab-cli: " + arena_cli_note(lab).text},
                   {"seed", lab.seed},
                   {"agent_steps", sim.step}};
  return states_only(j, now.data());
}

}  // namespace poslab::app
