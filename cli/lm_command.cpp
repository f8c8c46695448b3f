// poslab-cli lm: the length lab's byte-level language models (issue 27).
//   train      train a model (or fine-tune one with --init-from) on fortune text; progress
//              on stderr, CSV curve, a checkpoint every --log-every steps, --resume,
//              Ctrl-C keeps the last checkpoint
//   export     a checkpoint without optimiser state (what assets/models ships)
//   info       config, parameter count, recorded scaling and provenance
//   eval       loss per position (bits/byte) to any length with any RoPE scaling
//   attention  attention probabilities of one layer/head (or all) on a text
// JSON on stdout; bad input is one line on stderr and exit code 2 (cli/main.cpp).
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/run_control.hpp"
#include "core/common/errors.hpp"
#include "core/lm/length_lab.hpp"
#include "core/lm/lm.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_data.hpp"
#include "core/lm/lm_eval.hpp"
#include "core/lm/lm_train.hpp"
#include "core/nn/parallel.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"
#include "io/data/data_dir.hpp"
#include "io/length/length_lab_io.hpp"
#include "io/training/lm_train_run.hpp"

namespace poslab::cli {
namespace {

using namespace poslab::lm;

std::string lm_read_small_file(const std::string& path, const char* flag) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(std::string(flag) + " " + path + ": not a readable file");
  if (std::filesystem::file_size(path, ec) > (uint64_t{64} << 20))
    throw InputError(std::string(flag) + " " + path + ": larger than 64 MB");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

LmScaling lm_scaling_arg(const std::string& name, double factor) {
  LmScaling s;
  s.scaling = rope_scaling_from_name(name);
  s.factor = factor;
  require_in_range("--factor", factor, LmScaling::factor_range);
  return s;
}

const char* const kLmRaiseBudget = "or raise --memory-budget-mb / --time-budget-s";

// What a run was priced at before it allocated, beside its budget (tests compare the measured
// peak with it).
Json lm_budget_json(const LmCost& cost, const LmBudget& b) {
  return {{"memory_mb", static_cast<double>(cost.bytes) / (1 << 20)},
          {"seconds", cost.seconds()},
          {"memory_budget_mb", b.memory_bytes >> 20},
          {"time_budget_s", b.seconds}};
}

Json lm_config_json(const LmConfig& c) {
  Json j = Json::parse(io::lm_config_to_json(c));
  j["param_count"] = lm_param_count(c);
  j["head_dim"] = lm_head_dim(c);
  if (c.position == LmPosition::learned)
    j["learned_past_L"] =
        "clamped to row L-1 (position t reads row min(t, " + std::to_string(c.context - 1) + "))";
  return j;
}

// ---------------------------------------------------------------- train

struct LmTrainArgs {
  std::string position = "rope", output, log, init_from, scaling = "none";
  std::vector<std::string> text;
  LmConfig config;
  LmTrainSettings settings;
  double factor = 4.0;
  int context = 0;  // with --init-from: the fine-tuning window; else the model's L
  int valid_every = 10;
  bool resume = false, quiet = false, progress = false;
  double memory_mb = 1024, seconds = 120;  // --memory-budget-mb, --time-budget-s
};

void run_lm_train(LmTrainArgs a) {
  a.settings.threads = nn::threads_validate(a.settings.threads, "--threads");
  io::LmTrainRequest r;
  r.output = a.output;
  r.log = a.log;
  r.config = a.config;
  if (!a.resume && a.init_from.empty()) {
    r.config.position = lm_position_from_name(a.position);
    lm_validate(r.config);
  }
  r.settings = a.settings;
  r.scaling = lm_scaling_arg(a.scaling, a.factor);
  r.init_from = a.init_from;
  r.context = a.context;
  r.text = a.text;
  r.valid_every = a.valid_every;
  r.resume = a.resume;
  r.command = command_line();
  r.budget = lm_budget_from_flags(a.memory_mb, a.seconds);
  io::LmTrainRun run(std::move(r));
  const io::LmTrainRequest& req = run.request();

  const bool show = !a.quiet && (a.progress || isatty(STDERR_FILENO));
  auto on_row = [&](const LmTrainRow& row) {
    if (a.quiet) return;
    std::fprintf(stderr, "%sstep %lld/%lld  train %.3f  valid %.3f bits/byte  %.0f s%s",
                 show ? "\r" : "", static_cast<long long>(row.step),
                 static_cast<long long>(run.settings().steps), row.train_bpb, row.valid_bpb,
                 row.seconds, show ? "   " : "\n");
    std::fflush(stderr);
  };
  std::optional<StopOnSignal> stop(std::in_place);
  const auto t0 = std::chrono::steady_clock::now();
  const auto c0 = std::clock();
  const bool done = run.train(&StopOnSignal::flag(), on_row);
  stop.reset();  // Ctrl-C ends the process again
  if (show) std::fprintf(stderr, "\n");
  const int64_t step = run.optimiser().step;
  if (!done && !a.quiet) {
    if (run.saved())
      std::fprintf(stderr,
                   "interrupted at step %lld; %s holds its checkpoint (resume with --resume)\n",
                   static_cast<long long>(step), req.output.c_str());
    else
      std::fprintf(stderr, "interrupted at step %lld, before any step was taken\n",
                   static_cast<long long>(step));
  }
  Json out;
  out["output"] = req.output;
  out["log"] = req.log;
  out["config"] = lm_config_json(run.config());
  out["scaling"] = Json::parse(io::lm_scaling_to_json(run.settings().scaling));
  out["window"] = run.window();
  out["first_step"] = run.first_step();
  out["step"] = step;  // the checkpoint's (a stopped run keeps the step it reached)
  out["interrupted"] = !done;
  out["train_bpb"] = run.last_row().train_bpb;
  out["valid_bpb"] = run.last_row().valid_bpb;
  out["wall_seconds"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out["cpu_seconds"] = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  out["data"] = Json::parse(run.data_json());
  out["budget"] = lm_budget_json(
      lm_train_step_cost(run.config(), run.settings().batch, run.window(),
                         run.settings().valid_windows, nn::resolve_threads(run.settings().threads)),
      req.budget);
  std::printf("%s\n", out.dump(2).c_str());
}

// ---------------------------------------------------------------- info, export

void run_lm_info(const std::string& path) {
  const auto ck = io::lm_checkpoint_load(path);
  Json out;
  out["checkpoint"] = path;
  out["config"] = lm_config_json(ck.config);
  out["step"] = ck.step;
  out["scaling"] = Json::parse(io::lm_scaling_to_json(ck.scaling));
  out["has_optimiser_state"] = ck.optim.has_value();
  Json meta = Json::object();
  for (const auto& [k, v] : ck.metadata) {
    if (k == "data" || k == "training" || k == "base_training") {
      json_append_distinct(meta, k, parse_json_input(v, "metadata '" + k + "'", 8));
    } else if (k != "config" && k != "scaling") {
      json_append_distinct(meta, k, v);  // metadata is a std::map: distinct keys
    }
  }
  out["metadata"] = std::move(meta);
  // ASCII only: metadata a file recorded may hold C1 controls (U+009B, a CSI to some
  // terminals) that JSON leaves raw; \uXXXX reads back the same.
  std::printf("%s\n", out.dump(2, ' ', /*ensure_ascii=*/true).c_str());
}

void run_lm_export(const std::string& in, const std::string& outp) {
  const auto ck = io::lm_checkpoint_load(in);
  io::TensorMetadata meta = ck.metadata;
  meta["exported_from"] = in;
  io::lm_checkpoint_save(outp, ck.config, ck.params, ck.step, ck.scaling, nullptr, meta);
  Json out;
  out["output"] = outp;
  out["step"] = ck.step;
  out["param_count"] = ck.params.size();
  std::printf("%s\n", out.dump(2).c_str());
}

// ---------------------------------------------------------------- eval, attention

struct LmEvalArgs {
  std::string checkpoint, text, scaling;
  double factor = 4.0;
  std::string positions;  // "N" positions, or "kL" (k times the model's L); "" = default
  int windows = 64;
  int threads = 0;
  int top = 5;
  bool per_byte = false;
  int layer = -1, head = -1;
  double memory_mb = 1024, seconds = 120;  // --memory-budget-mb, --time-budget-s
};

// The model's outputs checked after an evaluation: a FileError naming the checkpoint when its
// logits are non-finite or saturated (0 bits/byte would read as a perfect model).
void lm_require_sane_output(const LmModel& m, const std::string& checkpoint,
                            const std::vector<double>& bits) {
  std::string why = lm_logits_problem(m);
  for (double b : bits)
    if (why.empty() && !std::isfinite(b)) why = "its bits/byte are not finite (a damaged model)";
  if (!why.empty()) throw FileError(checkpoint, why);
}

// --positions as given ("1024", or "8L" = 8 times the model's context L), else `fallback`.
int lm_positions_arg(const std::string& text, int L, int fallback) {
  if (text.empty()) return fallback;
  const bool times_L = text.back() == 'L' || text.back() == 'l';
  const std::string digits = times_L ? text.substr(0, text.size() - 1) : text;
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  const int64_t T = times_L ? int64_t{n} * L : n;
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n < 1 ||
      T > LmConfig::context_range.hi)
    throw InputError("--positions " + text +
                     ": give a count of bytes (1 to 65536) or a multiple of the model's L "
                     "such as 8L (L = " +
                     std::to_string(L) + " for this model)");
  return static_cast<int>(T);
}

// The model and the scaling to evaluate it with: --scaling, else the one it was tuned with.
LmModel lm_load_for_eval(const LmEvalArgs& a, io::LmCheckpoint& ck, LmScaling& s) {
  ck = io::lm_checkpoint_load(a.checkpoint);
  LmModel m(ck.config);
  m.params = ck.params;
  m.set_threads(nn::threads_validate(a.threads, "--threads"));
  s = a.scaling.empty() ? ck.scaling : lm_scaling_arg(a.scaling, a.factor);
  m.set_scaling(s);
  return m;
}

Json lm_scaling_json(const LmConfig& c, const LmScaling& s) {
  Json j = Json::parse(io::lm_scaling_to_json(s));
  j["label"] = lm_scaling_label(s);
  j["applies"] = c.position == LmPosition::rope;
  return j;
}

std::vector<uint8_t> lm_text_bytes(const std::string& path) {
  const std::string t = lm_read_small_file(path, "--text");
  return std::vector<uint8_t>(t.begin(), t.end());
}

void run_lm_eval(const LmEvalArgs& a) {
  io::LmCheckpoint ck;
  LmScaling s;
  LmModel m = lm_load_for_eval(a, ck, s);
  const LmConfig& c = ck.config;
  const int T = lm_positions_arg(a.positions, c.context, 8 * c.context);
  require_in_range("--windows", a.windows, LengthLabSettings::windows_range);
  const LmBudget budget = lm_budget_from_flags(a.memory_mb, a.seconds);
  if (!a.per_byte)
    lm_budget_require(
        "lm eval: " + std::to_string(a.windows) + " windows of " + std::to_string(T) + " positions",
        lm_eval_positions_cost(c, T, a.windows), budget,
        std::string("lower --positions or --windows, ") + kLmRaiseBudget);
  Json out;
  out["budget"] = lm_budget_json(lm_eval_positions_cost(c, T, a.windows), budget);
  out["model"] = a.checkpoint;
  out["config"] = lm_config_json(c);
  out["step"] = ck.step;
  out["scaling"] = lm_scaling_json(c, s);
  out["tuned_scaling"] = Json::parse(io::lm_scaling_to_json(ck.scaling));
  std::vector<uint8_t> bytes;
  if (!a.text.empty()) {
    bytes = lm_text_bytes(a.text);
    out["text"] = a.text;
  } else {
    bytes = io::length_held_out_text(ck.metadata, io::lm_held_out_path(), a.checkpoint,
                                     "pass --text FILE to evaluate on a text you choose");
    out["text"] = "validation split of the recorded files";
  }
  if (a.per_byte) {
    if (bytes.size() > static_cast<size_t>(T) + 1) bytes.resize(static_cast<size_t>(T) + 1);
    require_in_range("--top", a.top, kLmTopkRange);
    const LmCost cost = lm_eval_text_cost(c, static_cast<int64_t>(bytes.size()));
    lm_budget_require("lm eval --per-byte: " + std::to_string(bytes.size()) + " bytes", cost,
                      budget, std::string("lower --positions, ") + kLmRaiseBudget);
    out["budget"] = lm_budget_json(cost, budget);
    const LmTextScores sc = lm_eval_text(m, bytes, s, a.top);
    lm_require_sane_output(m, a.checkpoint, sc.bits);
    out["bytes"] = Json(std::vector<int>(bytes.begin(), bytes.end()));
    out["bits"] = sc.bits;
    Json top = Json::array();
    for (const auto& row : sc.top) {
      Json r = Json::array();
      for (const auto& [b, p] : row) r.push_back({b, p});
      top.push_back(r);
    }
    out["top"] = top;
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  if (bytes.size() < static_cast<size_t>(T) + 1)
    throw InputError((a.text.empty() ? "the validation split of " + a.checkpoint + "'s text"
                                     : "--text " + a.text) +
                     ": " + std::to_string(bytes.size()) + " bytes is shorter than a window of " +
                     std::to_string(T + 1) + " bytes; lower --positions or give a longer text");
  const LmPositionCurve cv = lm_eval_positions(m, bytes, T, a.windows, s);
  lm_require_sane_output(m, a.checkpoint, cv.mean_bits);
  out["positions"] = T;
  out["windows"] = cv.offsets.size();
  out["offsets"] = cv.offsets;
  out["mean_bpb"] = cv.mean_bpb;
  const int L = c.context;
  Json at;
  at["band"] = "mean of the " + std::to_string(std::max(1, L / 8)) + " positions before p";
  for (const auto& [name, p] : std::vector<std::pair<std::string, int>>{
           {"L/2", L / 2}, {"L", L}, {"2L", 2 * L}, {"4L", 4 * L}, {"8L", 8 * L}})
    if (p <= T) at[name] = lm_curve_at(cv.mean_bits, p, L);
  out["at"] = at;
  out["bits_per_byte"] = cv.mean_bits;
  out["one_window"] = cv.one_bits;
  std::printf("%s\n", out.dump().c_str());
}

void run_lm_attention(const LmEvalArgs& a) {
  io::LmCheckpoint ck;
  LmScaling s;
  LmModel m = lm_load_for_eval(a, ck, s);
  if (a.text.empty()) throw InputError("lm attention: give --text FILE");
  std::vector<uint8_t> bytes = lm_text_bytes(a.text);
  const int n = lm_positions_arg(a.positions, ck.config.context, 2 * ck.config.context);
  if (bytes.size() > static_cast<size_t>(n)) bytes.resize(static_cast<size_t>(n));
  const int64_t n_maps = (a.layer < 0 ? ck.config.layers : 1) * (a.head < 0 ? ck.config.heads : 1);
  const int64_t nb = static_cast<int64_t>(bytes.size());
  // The JSON printed holds every map's lower triangle: a JSON value (16 bytes) and its text
  // (about 12) per number, with room for the containers.
  LmCost cost = lm_attention_cost(ck.config, nb, n_maps);
  cost.bytes += n_maps * nb * (nb + 1) / 2 * 48;
  const LmBudget budget = lm_budget_from_flags(a.memory_mb, a.seconds);
  lm_budget_require(
      "lm attention: " + std::to_string(n_maps) + " maps of " + std::to_string(nb) + " bytes", cost,
      budget, std::string("lower --positions or choose --layer and --head, ") + kLmRaiseBudget);
  const LmAttention at = lm_attention(m, bytes, s, a.layer, a.head);
  Json out;
  out["budget"] = lm_budget_json(cost, budget);
  out["model"] = a.checkpoint;
  out["config"] = lm_config_json(ck.config);
  out["scaling"] = lm_scaling_json(ck.config, s);
  out["bytes"] = Json(std::vector<int>(bytes.begin(), bytes.end()));
  out["n"] = at.n;
  Json maps = Json::array();
  const size_t nn2 = static_cast<size_t>(at.n) * at.n;
  size_t k = 0;
  for (int l : at.layers)
    for (int h : at.heads) {
      Json rows = Json::array();
      for (int t = 0; t < at.n; ++t) {
        const float* r = at.probs.data() + k * nn2 + static_cast<size_t>(t) * at.n;
        rows.push_back(std::vector<float>(r, r + t + 1));  // keys 0..t (the rest is 0)
      }
      maps.push_back({{"layer", l}, {"head", h}, {"probs", rows}});
      ++k;
    }
  out["attention"] = maps;
  std::printf("%s\n", out.dump().c_str());
}

}  // namespace

void add_lm_command(CLI::App& app) {
  auto* lm = app.add_subcommand(
      "lm", "byte-level language models of the length lab: train, export, info, eval, attention");
  lm->require_subcommand(1);

  auto ta = std::make_shared<LmTrainArgs>();
  auto* train = lm->add_subcommand("train", "train (or fine-tune) a byte-level language model");
  train->add_option("--position", ta->position,
                    "none | sinusoidal | sinusoidal_scaled | learned | rope | alibi | t5");
  train->add_option("--embed", ta->config.embed, "E: width");
  train->add_option("--heads", ta->config.heads, "H: attention heads (E/H even)");
  train->add_option("--layers", ta->config.layers, "N: blocks");
  train->add_option("--context", ta->context,
                    "L: training length in bytes (128); with --init-from: the fine-tuning window "
                    "(the model keeps its L)");
  train->add_option("--rope-base", ta->config.rope_base, "RoPE base");
  train->add_option("--t5-buckets", ta->config.t5_buckets, "T5 buckets");
  train->add_option("--t5-max-distance", ta->config.t5_max_distance, "T5 max_distance in bytes");
  train->add_option("--init-from", ta->init_from, "start from this model (fine-tuning)");
  train->add_option("--scaling", ta->scaling,
                    "RoPE scaling while training: none | linear | ntk | dynamic | yarn | llama3");
  train->add_option("--factor", ta->factor, "RoPE scaling factor s");
  train->add_option("--text", ta->text, "UTF-8 text file(s) (default: the fortune files)");
  train->add_option("--valid-every", ta->valid_every, "entry i is validation when i % n == n-1");
  train->add_option("--batch", ta->settings.batch, "windows per step");
  train->add_option("--steps", ta->settings.steps, "optimiser step to stop after");
  train->add_option("--seed", ta->settings.seed, "initial weights and batch draws");
  train->add_option("--lr", ta->settings.adam.lr, "peak learning rate");
  train->add_option("--warmup", ta->settings.adam.warmup_steps, "warm-up steps");
  train->add_option("--weight-decay", ta->settings.adam.weight_decay, "AdamW weight decay");
  train->add_option("--log-every", ta->settings.log_every, "CSV row and checkpoint interval");
  train->add_option("--valid-windows", ta->settings.valid_windows, "validation windows per row");
  train->add_option("--threads", ta->settings.threads, "threads, 0 = all cores");
  train->add_option("-o,--output", ta->output, "checkpoint to write (with optimiser state)");
  train->add_option("--log", ta->log, "CSV curve (default: the output with .csv)");
  train->add_flag("--resume", ta->resume, "continue the run in --output");
  train->add_flag("--quiet", ta->quiet, "no progress on stderr");
  train->add_flag("--progress", ta->progress, "progress even when stderr is not a terminal");
  train->add_option("--memory-budget-mb", ta->memory_mb, "memory one step may use (1024)");
  train->add_option("--time-budget-s", ta->seconds, "estimated seconds one step may take (120)");
  train->callback([ta] { run_lm_train(*ta); });

  auto info_path = std::make_shared<std::string>();
  auto* info = lm->add_subcommand("info", "a model's config, scaling and provenance");
  info->add_option("checkpoint", *info_path, "checkpoint file")->required();
  info->callback([info_path] { run_lm_info(*info_path); });

  auto ex = std::make_shared<std::pair<std::string, std::string>>();
  auto* exp = lm->add_subcommand("export", "a checkpoint without optimiser state (for shipping)");
  exp->add_option("checkpoint", ex->first, "training checkpoint")->required();
  exp->add_option("-o,--output", ex->second, "file to write")->required();
  exp->callback([ex] { run_lm_export(ex->first, ex->second); });

  auto ea = std::make_shared<LmEvalArgs>();
  auto* ev = lm->add_subcommand(
      "eval", "bits/byte at every position to --positions (8L) with any RoPE scaling");
  ev->add_option("checkpoint", ea->checkpoint, "model file")->required();
  ev->add_option("--text", ea->text, "UTF-8 text file (default: the validation split)");
  ev->add_option("--positions", ea->positions,
                 "T: positions per window, a count or a multiple of L such as 8L (default 8L)");
  ev->add_option("--windows", ea->windows, "windows averaged (evenly spaced over the text)");
  ev->add_option("--scaling", ea->scaling,
                 "none | linear | ntk | dynamic | yarn | llama3 (default: the model's own)");
  ev->add_option("--factor", ea->factor, "RoPE scaling factor s");
  ev->add_option("--threads", ea->threads, "threads, 0 = all cores");
  ev->add_flag("--per-byte", ea->per_byte, "each byte's bits and top predictions of the text");
  ev->add_option("--top", ea->top, "with --per-byte: predictions per byte");
  ev->add_option("--memory-budget-mb", ea->memory_mb, "memory the evaluation may use (1024)");
  ev->add_option("--time-budget-s", ea->seconds, "estimated seconds it may take (120)");
  ev->callback([ea] { run_lm_eval(*ea); });

  auto aa = std::make_shared<LmEvalArgs>();
  auto* att = lm->add_subcommand("attention", "attention probabilities of a text");
  att->add_option("checkpoint", aa->checkpoint, "model file")->required();
  att->add_option("--text", aa->text, "UTF-8 text file")->required();
  att->add_option("--positions", aa->positions,
                  "bytes of the text used, a count or a multiple of L such as 2L (default 2L)");
  att->add_option("--layer", aa->layer, "block, -1 = all");
  att->add_option("--head", aa->head, "head, -1 = all");
  att->add_option("--scaling", aa->scaling, "RoPE scaling (default: the model's own)");
  att->add_option("--factor", aa->factor, "RoPE scaling factor s");
  att->add_option("--threads", aa->threads, "threads, 0 = all cores");
  att->add_option("--memory-budget-mb", aa->memory_mb, "memory the maps may use (1024)");
  att->add_option("--time-budget-s", aa->seconds, "estimated seconds they may take (120)");
  att->callback([aa] { run_lm_attention(*aa); });
}

}  // namespace poslab::cli
