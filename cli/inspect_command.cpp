// `poslab-cli inspect FILE`: summary of a Boost and Broadside dataset (episodes, rows,
// team sizes, outcomes, action frequencies of alive ships, executed-vs-expert agreement),
// or one episode's rows with --episode. Reads every row, so corruption anywhere is found:
// bad files exit with code 2 and one line naming the file and what to do. All reading runs
// in a helper process (io/dataset/isolated.hpp): a libhdf5 crash on a corrupt file is
// reported as a corrupt file, never a crash of poslab-cli.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/common/errors.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/dataset/isolated.hpp"
#include "io/labjson/bnb_json.hpp"

namespace poslab::cli {
namespace {

using namespace bnb;

struct InspectArgs {
  std::string path;
  int64_t episode = -1;
  bool relational = false;
};

// A token value that is NaN, infinite or huge is an error here as in `wm train` (JSON has
// no NaN: it would print as null with exit 0).
void require_sane_tokens(const std::string& path, int64_t episode, const float* tokens,
                         size_t rows) {
  if (const std::string bad = token_problem(tokens, rows); !bad.empty())
    throw FileError(path, "episode " + std::to_string(episode) + ", " + bad +
                              ": token values must be finite and within +-" +
                              std::to_string(static_cast<int>(kTokenMaxAbs)) +
                              " (a damaged or edited dataset)");
}

Json frequencies(const std::vector<int64_t>& counts, int head) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  Json j = Json::object();
  for (int v = 0; v < kActionSizes[head]; ++v) {
    const std::string name = head == 0   ? kPowerTable[v].name
                             : head == 1 ? kTurnTable[v].name
                                         : (v ? "FIRE" : "HOLD");
    j[name] = total > 0 ? static_cast<double>(counts[v]) / static_cast<double>(total) : 0.0;
  }
  return j;
}

// Runs in the helper process; returns the JSON text.
std::string inspect_json(const InspectArgs& a) {
  const io::BnbDatasetReader reader(a.path, io::BnbReadMode::in_process);
  const io::BnbDatasetInfo& info = reader.info();
  if (a.episode >= 0) {
    const EpisodeRecord rec = reader.read_episode(a.episode);
    require_sane_tokens(a.path, a.episode, rec.tokens.data(), static_cast<size_t>(rec.rows));
    Json out;
    out["file"] = a.path;
    out["episode"] = a.episode;
    Json ep = io::bnb_episode_json(rec, a.relational);
    for (auto& [k, v] : ep.items()) out[k] = std::move(v);
    return dump_json(out);
  }

  // Whole-file statistics, read in blocks of rows.
  std::vector<std::vector<int64_t>> executed(kActionHeads), expert(kActionHeads);
  for (int h = 0; h < kActionHeads; ++h)
    executed[h].assign(kActionSizes[h], 0), expert[h].assign(kActionSizes[h], 0);
  std::array<int64_t, kActionHeads> agree{0, 0, 0};
  int64_t alive_ship_rows = 0;
  std::map<std::string, int64_t> team_sizes, outcomes;
  int64_t min_len = info.num_episodes ? INT64_MAX : 0, max_len = 0;
  std::vector<float> tokens;
  std::vector<uint8_t> acts, exp;
  for (int64_t e = 0; e < info.num_episodes; ++e) {
    const int64_t first = info.episode_offsets[e], len = info.episode_lengths[e];
    min_len = std::min(min_len, len);
    max_len = std::max(max_len, len);
    reader.read_rows(first, len, tokens, acts, exp);
    require_sane_tokens(a.path, e, tokens.data(), static_cast<size_t>(len));
    int alive0[2] = {0, 0}, alive_end[2] = {0, 0};
    for (int k = 0; k < kSlots; ++k) {
      alive0[k / kSlotsPerTeam] += tokens[k * kTokenDim] > 0.5f;
      alive_end[k / kSlotsPerTeam] += tokens[((len - 1) * kSlots + k) * kTokenDim] > 0.5f;
    }
    ++team_sizes[std::to_string(alive0[0]) + "v" + std::to_string(alive0[1])];
    ++outcomes[alive_end[0] && !alive_end[1]    ? "team0_win"
               : alive_end[1] && !alive_end[0]  ? "team1_win"
               : !alive_end[0] && !alive_end[1] ? "draw"
                                                : "not_finished"];
    for (int64_t t = 0; t < len; ++t)
      for (int k = 0; k < kSlots; ++k) {
        const size_t row = static_cast<size_t>(t) * kSlots + k;
        if (tokens[row * kTokenDim] < 0.5f) continue;
        ++alive_ship_rows;
        for (int h = 0; h < kActionHeads; ++h) {
          const uint8_t x = acts[row * kActionHeads + h], y = exp[row * kActionHeads + h];
          ++executed[h][x];
          ++expert[h][y];
          agree[h] += x == y;
        }
      }
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(a.path, ec);
  const char* heads[kActionHeads] = {"power", "turn", "shoot"};
  Json out;
  out["file"] = a.path;
  out["format_version"] = info.format_version;
  out["policy"] = info.policy;
  out["episodes"] = info.num_episodes;
  out["rows"] = info.total_timesteps;
  out["agent_steps"] = info.total_timesteps - info.num_episodes;
  out["file_bytes"] = ec ? 0 : static_cast<int64_t>(bytes);
  out["episode_rows"] = {
      {"min", min_len},
      {"mean",
       info.num_episodes ? static_cast<double>(info.total_timesteps) / info.num_episodes : 0.0},
      {"max", max_len}};
  out["team_sizes"] = team_sizes;
  out["outcomes"] = outcomes;
  out["alive_ship_rows"] = alive_ship_rows;
  Json fa, fe, ag;
  for (int h = 0; h < kActionHeads; ++h) {
    fa[heads[h]] = frequencies(executed[h], h);
    fe[heads[h]] = frequencies(expert[h], h);
    ag[heads[h]] = alive_ship_rows
                       ? static_cast<double>(agree[h]) / static_cast<double>(alive_ship_rows)
                       : 0.0;
  }
  out["action_frequencies"] = fa;
  out["expert_action_frequencies"] = fe;
  out["executed_equals_expert"] = ag;
  return dump_json(out, 2);
}

void run(const InspectArgs& a) {
  // A whole-file pass over a large dataset may take long: no timeout worth the name (the
  // user can press Ctrl-C); a crash of the helper is still reported as a corrupt file.
  io::IsolationOptions options;
  options.timeout_seconds = 1e6;
  std::cout << io::run_isolated(
                   a.path, [&] { return inspect_json(a); }, options)
            << "\n";
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto a = std::make_shared<InspectArgs>();
  auto* cmd = app.add_subcommand(
      "inspect", "Summarise a Boost and Broadside HDF5 dataset (or print one episode)");
  cmd->add_option("file", a->path, "dataset .h5 file")->required();
  cmd->add_option("--episode", a->episode,
                  "print this episode's rows (0-based) instead of the summary");
  cmd->add_flag("--relational", a->relational,
                "with --episode: add relational features (R, 8, 8, 12)");
  cmd->callback([a] { run(*a); });
}

}  // namespace poslab::cli
