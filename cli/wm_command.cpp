// `poslab-cli wm ...`: the Boost and Broadside world model from the command line.
//   train    train a preset on collect datasets (the run is io/training's WmTrainRun):
//            progress on stderr, CSV log, periodic atomic checkpoints (Ctrl-C or kill -9
//            leaves the last one intact), resumable
//   info     a checkpoint's config, parameter count and metadata
//   export   a checkpoint without optimiser state (optionally the SWA weights)
//   eval     teacher-forced scores, K-step dreams (closed and open loop) with baselines,
//            and dreams of 3x the context
//   dream    one dream as JSON: per-step errors, baselines, dreamt and real states
//   forward  loss, its parts and every output on fixed windows (the PyTorch parity check)
// Sections: shared helpers (stop signal, JSON of losses and errors, loading models and data)
// | train | info / export | eval | dream | forward | add_wm_command (the CLI11 options).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/run_control.hpp"
#include "cli/wm_dream_lab.hpp"
#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "core/nn/parallel.hpp"
#include "core/wm/eval.hpp"
#include "core/wm/train.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"
#include "io/dreams/dream_lab_io.hpp"
#include "io/training/wm_train_run.hpp"

namespace poslab::cli {
namespace {

using namespace poslab::wm;

// ---------------------------------------------------------------- shared helpers

Json loss_json(const WmLoss& l) {
  Json j;
  j["total"] = l.total;
  j["state"] = l.state;
  j["power"] = l.power;
  j["turn"] = l.turn;
  j["shoot"] = l.shoot;
  j["rel"] = l.rel;
  j["state_count"] = l.state_count;
  j["action_count"] = l.action_count;
  j["rel_count"] = l.rel_count;
  return j;
}

// Every dream's JSON (error summaries, curves, states) is io/dreams/dream_lab_io's.
using io::dream_error_json;
using io::dream_summary_json;

Json floats_json(const float* x, std::vector<int> shape) {
  if (shape.size() == 1) return Json(std::vector<float>(x, x + shape[0]));
  Json j = Json::array();
  size_t inner = 1;
  for (size_t i = 1; i < shape.size(); ++i) inner *= static_cast<size_t>(shape[i]);
  const std::vector<int> rest(shape.begin() + 1, shape.end());
  for (int i = 0; i < shape[0]; ++i)
    j.push_back(floats_json(x + static_cast<size_t>(i) * inner, rest));
  return j;
}

WorldModel load_model(const io::WmCheckpoint& ck, int threads) {
  WorldModel m(ck.config);
  m.params = ck.params;
  m.set_threads(threads);
  return m;
}

// Dataset paths and the split recorded in a checkpoint (so eval sees the same validation
// episodes as training). Explicit --data replaces the paths.
struct DataSetup {
  std::vector<std::string> paths;
  std::vector<bnb::EpisodeRecord> episodes;
  std::vector<io::EpisodeSource> sources;
  EpisodeSplit split;
  uint64_t seed = 0;
  double val_fraction = 0.1;
};

DataSetup load_data(const std::vector<std::string>& given, const io::TensorMetadata& meta,
                    const std::string& ckpt) {
  DataSetup d;
  d.paths = given;
  const io::WmRecordedData recorded = io::wm_recorded_data(meta, ckpt);
  if (d.paths.empty()) {
    if (recorded.files.empty())
      throw InputError(ckpt + ": records no dataset files; pass --data FILE");
    d.paths = recorded.files;
  }
  d.seed = recorded.seed.value_or(0);
  d.val_fraction = recorded.val_fraction.value_or(0.1);
  for (const auto& p : d.paths)
    if (!std::filesystem::exists(p))
      throw InputError(p + ": dataset file not found (make one with `poslab-cli collect`)");
  d.episodes = io::wm_load_episodes(d.paths, &d.sources);
  wm_check_episodes(d.episodes);
  d.split = wm_split_episodes(static_cast<int>(d.episodes.size()), d.val_fraction, d.seed);
  return d;
}

// ---------------------------------------------------------------- train
// The run itself (set-up, provenance, checkpoints, curve, resume) is io/training's
// WmTrainRun; here only its flags, its progress line and its JSON.
struct TrainArgs {
  io::WmTrainRequest run;
  bool quiet = false, progress = false;
};

void run_train(TrainArgs a) {
  a.run.command = command_line();
  io::WmTrainRun run(std::move(a.run));
  const io::WmTrainRequest& r = run.request();
  const bool show = !a.quiet && (a.progress || isatty(STDERR_FILENO));
  double tokens_sum = 0, time_sum = 0;
  const auto on_row = [&](const WmTrainRow& row) {
    if (row.tokens_per_s > 0) {
      tokens_sum += row.tokens_per_s;
      time_sum += 1;
    }
    if (a.quiet) return;
    char line[256];
    std::snprintf(
        line, sizeof line, "step %lld/%lld  loss %.5f%s  %.1fk tokens/s  %.0f s",
        static_cast<long long>(row.step), static_cast<long long>(r.steps), row.loss,
        row.val_loss >= 0 ? ("  val " + std::to_string(row.val_loss).substr(0, 7)).c_str() : "",
        row.tokens_per_s / 1000.0, row.seconds + run.seconds_offset());
    if (show)
      std::fprintf(stderr, "\r%-78s", line);
    else if (row.val_loss >= 0)
      std::fprintf(stderr, "%s\n", line);
    std::fflush(stderr);
  };
  const auto t0 = std::chrono::steady_clock::now();
  WmTrainRow last;
  {
    const StopOnSignal stop;  // until the run ends: then Ctrl-C ends the process again
    last = run.train([] { return StopOnSignal::flag().load(); }, on_row);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (show) std::fprintf(stderr, "\n");
  const int64_t step = run.optimiser().step;
  const bool interrupted = StopOnSignal::flag().load() && step < r.steps;
  if (interrupted && !a.quiet)
    std::fprintf(stderr, "interrupted at step %lld; %s holds it (resume with --resume)\n",
                 static_cast<long long>(step), r.output.c_str());
  Json out;
  out["output"] = r.output;
  out["log"] = r.log;
  out["config"] = Json::parse(io::wm_config_to_json(run.config()));
  out["param_count"] = run.model().params.size();
  out["first_step"] = run.first_step();
  out["step"] = step;
  out["interrupted"] = interrupted;
  out["seconds"] = seconds;
  out["mean_tokens_per_s"] = time_sum > 0 ? tokens_sum / time_sum : 0.0;
  out["loss"] = last.loss;
  out["val_loss"] = last.val_loss;
  out["train_episodes"] = run.split().train.size();
  out["val_episodes"] = run.split().val.size();
  std::cout << out.dump(2) << "\n";
}

// ---------------------------------------------------------------- info / export
void run_info(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path + ": checkpoint not found");
  const auto ck = io::wm_checkpoint_load(path);  // header first, then every check
  const auto f = io::SafetensorsFile::open_header(path);
  const WmConfig c = ck.config;
  Json out;
  out["file"] = path;
  out["file_bytes"] = std::filesystem::file_size(path);
  out["config"] = Json::parse(io::wm_config_to_json(c));
  out["param_count"] = wm_param_count(c);
  out["step"] = ck.step;
  out["has_optimizer_state"] = ck.optim.has_value();
  out["tensors"] = f.tensors().size();
  Json meta = Json::object();
  for (const auto& [k, v] : f.metadata()) {
    // Nesting bounded before parsing: printing a 100,000-deep value recurses per level.
    const Json parsed = io::json_nesting_depth(v) <= io::kSafetensorsMaxDepth
                            ? Json::parse(v, nullptr, false)
                            : Json(nullptr);
    json_append_distinct(meta, k,
                         (!parsed.is_discarded() && parsed.is_object()) ? parsed : Json(v));
  }
  out["metadata"] = std::move(meta);
  // ASCII only: recorded metadata may hold C1 controls that JSON leaves raw (lm info too).
  std::cout << out.dump(2, ' ', /*ensure_ascii=*/true) << "\n";
}

void run_export(const std::string& in, const std::string& out_path, bool swa) {
  if (!std::filesystem::exists(in)) throw InputError(in + ": checkpoint not found");
  if (out_path.empty()) throw InputError("--output: give the file to write");
  const auto ck = io::wm_checkpoint_load(in);
  io::TensorMetadata meta = ck.metadata;
  std::vector<float> w = ck.params;
  if (swa) {
    if (!ck.optim || ck.optim->swa.size() != w.size())
      throw InputError(in + ": holds no SWA average (train with --swa-start)");
    w = ck.optim->swa;
    meta["weights"] = "swa average of " + std::to_string(ck.optim->swa_count) + " snapshots";
  }
  io::wm_checkpoint_save(out_path, ck.config, w, ck.step, nullptr, meta);
  Json out;
  out["input"] = in;
  out["output"] = out_path;
  out["swa"] = swa;
  out["file_bytes"] = std::filesystem::file_size(out_path);
  std::cout << out.dump(2) << "\n";
}

// ---------------------------------------------------------------- eval
struct EvalArgs {
  std::string checkpoint;
  std::vector<std::string> data;
  int dreams = 24, steps = 50, history = 8, stride = 64, val_windows = 64, threads = 0;
  int long_dreams = 8;
  double temperature = 0;
  uint64_t seed = 0;
  bool unseen = false;  // every episode of --data is held out (a collection nobody trained on)
};

void run_eval(const EvalArgs& a) {
  if (!std::filesystem::exists(a.checkpoint))
    throw InputError(a.checkpoint + ": checkpoint not found");
  nn::threads_validate(a.threads, "--threads");
  const auto count = [](int v, const char* flag, int lo, int hi) {
    if (v < lo || v > hi)
      throw InputError(std::string(flag) + " = " + std::to_string(v) + ": must be in [" +
                       std::to_string(lo) + ", " + std::to_string(hi) + "]");
  };
  count(a.dreams, "--dreams", 0, 100000);
  count(a.stride, "--stride", 1, 1000000);
  count(a.long_dreams, "--long-dreams", 0, 100000);
  count(a.val_windows, "--val-windows", 1, 100000);
  const auto ck = io::wm_checkpoint_load(a.checkpoint);
  WorldModel model = load_model(ck, a.threads);
  if (a.unseen && a.data.empty())
    throw InputError("--unseen needs --data: a dataset the model never trained on");
  DataSetup d = load_data(a.data, ck.metadata, a.checkpoint);
  if (a.unseen) {
    d.split.train.clear();
    d.split.val.resize(d.episodes.size());
    for (size_t i = 0; i < d.episodes.size(); ++i) d.split.val[i] = static_cast<int>(i);
  }
  if (d.split.val.empty())
    throw InputError("no validation episodes (the checkpoint's split holds none)");
  const auto t0 = std::chrono::steady_clock::now();
  Json out;
  out["checkpoint"] = a.checkpoint;
  out["config"] = Json::parse(io::wm_config_to_json(ck.config));
  out["step"] = ck.step;
  out["val_episodes"] = d.split.val.size();
  out["val_split"] = a.unseen ? "unseen: every episode of --data" : "the checkpoint's split";
  // Teacher forced.
  const int T = std::min(ck.config.context, 32);
  const auto windows = wm_val_windows(d.episodes, d.split.val, T, a.val_windows);
  const auto tf = wm_teacher_forced(model, d.episodes, windows, T, 16);
  Json tfj;
  tfj["windows"] = windows.size();
  tfj["window_steps"] = T;
  tfj["loss"] = loss_json(tf.loss);
  tfj["one_step"] = {{"model", dream_error_json(tf.model.at(1))},
                     {"copy_last", dream_error_json(tf.copy_last.at(1))},
                     {"constant_velocity", dream_error_json(tf.const_velocity.at(1))}};
  tfj["action_accuracy"] = {{"power", tf.action_accuracy[0]},
                            {"turn", tf.action_accuracy[1]},
                            {"shoot", tf.action_accuracy[2]}};
  tfj["expert_accuracy"] = {{"power", tf.expert_accuracy[0]},
                            {"turn", tf.expert_accuracy[1]},
                            {"shoot", tf.expert_accuracy[2]}};
  out["teacher_forced"] = tfj;
  // Dreams of K steps.
  DreamParams p;
  p.steps = a.steps;
  p.history = a.history;
  p.temperature = a.temperature;
  p.seed = a.seed;
  // K may pass the context: RoPE slides, absolute recomputes the window (both exact or
  // close; see WmOverflow).
  p.window = ck.config.position == WmPosition::rope ? WmOverflow::slide : WmOverflow::recompute;
  dream_validate(p);
  const auto starts = wm_dream_starts(d.episodes, d.split.val, p, a.stride, a.dreams);
  Json dreams;
  for (DreamLoop loop : {DreamLoop::closed, DreamLoop::open}) {
    p.loop = loop;
    dreams[dream_loop_name(loop)] =
        dream_summary_json(wm_dream_many(model, d.episodes, starts, p), p);
  }
  out["dreams"] = dreams;
  // Past the context: 3C steps, closed loop, each window mode the variant has.
  DreamParams q = p;
  q.loop = DreamLoop::closed;
  q.steps = 3 * ck.config.context;
  const auto long_starts = wm_dream_starts(d.episodes, d.split.val, q, 4 * q.steps, a.long_dreams);
  Json beyond;
  beyond["steps"] = q.steps;
  beyond["context"] = ck.config.context;
  if (ck.config.position == WmPosition::rope) {
    q.window = WmOverflow::slide;  // relative distances stay right
    beyond["rope_slide"] = dream_summary_json(wm_dream_many(model, d.episodes, long_starts, q), q);
  } else {
    // The three modes of a learned table past the context, each against recompute (exact):
    // the per-horizon difference of their mean position errors.
    const std::pair<const char*, WmOverflow> modes[] = {
        {"absolute_recompute", WmOverflow::recompute},
        {"absolute_patch", WmOverflow::patch},
        {"absolute_naive", WmOverflow::slide}};
    for (const auto& [key, w] : modes) {
      q.window = w;
      beyond[key] = dream_summary_json(wm_dream_many(model, d.episodes, long_starts, q), q);
    }
    const Json& exact = beyond["absolute_recompute"]["curves"]["dream"];
    Json diff = Json::object();
    for (const char* mode : {"patch", "naive"}) {
      const Json& e = beyond[std::string("absolute_") + mode]["curves"]["dream"];
      Json at = Json::object();
      for (int part = 1; part <= 6; ++part) {  // k = C/2, C, ..., 3C
        const int k = part * q.steps / 6;
        const size_t i = static_cast<size_t>(k - 1);
        if (k >= 1 && i < e.size() && i < exact.size() && e[i]["pos_px"].is_number() &&
            exact[i]["pos_px"].is_number())
          at[std::to_string(k)] = e[i]["pos_px"].get<double>() - exact[i]["pos_px"].get<double>();
      }
      diff[std::string(mode) + "_minus_recompute"] = at;
    }
    beyond["pos_px_difference"] = diff;
  }
  out["beyond_context"] = beyond;
  out["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << out.dump(1) << "\n";
}

// ---------------------------------------------------------------- dream
struct DreamArgs {
  std::string checkpoint, data, loop = "closed", window = "slide";
  int64_t episode = -1;
  int64_t sim_seed = -1;
  int start = -1, threads = 0;
  DreamParams p;
};

void run_dream(DreamArgs a) {
  if (a.checkpoint.empty()) throw InputError("give a checkpoint file, or --preset 'dreams?...'");
  if (!std::filesystem::exists(a.checkpoint))
    throw InputError(a.checkpoint + ": checkpoint not found");
  nn::threads_validate(a.threads, "--threads");
  const auto ck = io::wm_checkpoint_load(a.checkpoint);
  WorldModel model = load_model(ck, a.threads);
  a.p.loop = dream_loop_from_name(a.loop);
  a.p.window = wm_overflow_from_name(a.window);
  dream_validate(a.p);
  bnb::EpisodeRecord ep;
  std::string source;
  if (a.sim_seed >= 0) {
    if (!a.data.empty() || a.episode >= 0)
      throw InputError("--sim-seed and --data/--episode exclude each other");
    bnb::EpisodeSpec spec;
    spec.seed = static_cast<uint64_t>(a.sim_seed);
    ep = bnb::run_episode(spec);
    source = "simulator seed " + std::to_string(a.sim_seed) + ", noisy expert";
  } else {
    if (a.data.empty()) throw InputError("give --data FILE [--episode E], or --sim-seed S");
    if (a.episode < 0) a.episode = 0;  // --data alone: its first episode
    if (!std::filesystem::exists(a.data)) throw InputError(a.data + ": dataset file not found");
    std::vector<io::EpisodeSource> src;
    const auto eps = io::wm_load_episodes({a.data}, &src);
    if (a.episode < 0 || a.episode >= static_cast<int64_t>(eps.size()))
      throw InputError("--episode = " + std::to_string(a.episode) + ": the file has " +
                       std::to_string(eps.size()) + " episodes (0-based)");
    ep = eps[static_cast<size_t>(a.episode)];
    source = a.data + " episode " + std::to_string(a.episode);
  }
  wm_check_episodes({ep});
  const int start = a.start >= 0 ? a.start : std::min(a.p.history, ep.rows - 2);
  const DreamResult r = wm_dream(model, ep, start, a.p);
  Json head;
  head["checkpoint"] = a.checkpoint;
  head["source"] = source;
  head["episode_rows"] = ep.rows;
  const Json out = io::dream_result_json(std::move(head), r, a.loop, a.window, a.p.temperature);
  std::cout << out.dump() << "\n";
}

// ---------------------------------------------------------------- forward
constexpr size_t kForwardMaxWindows = 64;  // a parity check needs a handful

struct ForwardArgs {
  std::string checkpoint, data;
  std::vector<std::string> windows;  // "E:S:L"
  int64_t episode = 0;
  int start = 0, length = 16, threads = 1;
};

void run_forward(const ForwardArgs& a) {
  if (!std::filesystem::exists(a.checkpoint))
    throw InputError(a.checkpoint + ": checkpoint not found");
  if (a.data.empty() || !std::filesystem::exists(a.data))
    throw InputError((a.data.empty() ? std::string("--data") : a.data) +
                     ": dataset file not found");
  nn::threads_validate(a.threads, "--threads");
  // Outputs grow with windows x steps (B x T x N x N x 12 relational values): a budget on
  // the batch keeps 200 windows from asking for gigabytes of JSON.
  if (a.windows.size() > kForwardMaxWindows)
    throw InputError("--window given " + std::to_string(a.windows.size()) + " times: at most " +
                     std::to_string(kForwardMaxWindows) + " windows per call");
  const auto ck = io::wm_checkpoint_load(a.checkpoint);
  WorldModel model = load_model(ck, a.threads);
  const auto eps = io::wm_load_episodes({a.data});
  wm_check_episodes(eps);
  std::vector<WmWindow> wins;
  std::vector<std::string> specs = a.windows;
  if (specs.empty())
    specs.push_back(std::to_string(a.episode) + ":" + std::to_string(a.start) + ":" +
                    std::to_string(a.length));
  int T = 0;
  for (const auto& s : specs) {
    // EPISODE:START:LENGTH, three plain decimals read with from_chars (sscanf's %lld has no
    // defined result past its range), the text quoted only as a short excerpt.
    const std::string quoted = "--window " + error_excerpt(s);
    long long v[3] = {0, 0, 0};
    const char* p = s.data();
    const char* const stop = s.data() + s.size();
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i) {
      const auto [next, ec] = std::from_chars(p, stop, v[i]);
      ok = ec == std::errc() && next != p && (i < 2 ? next < stop && *next == ':' : next == stop);
      p = next + (i < 2 ? 1 : 0);
    }
    if (!ok) throw InputError(quoted + ": use EPISODE:START:LENGTH, e.g. 0:10:16");
    const long long e = v[0], st = v[1], len = v[2];
    if (e < 0 || e >= static_cast<long long>(eps.size()))
      throw InputError(quoted + ": episode out of range (the file has " +
                       std::to_string(eps.size()) + ")");
    const int rows = eps[static_cast<size_t>(e)].rows;
    if (st < 0 || len < 1 || st > rows || len > rows - st)
      throw InputError(quoted + ": rows out of range (episode has " + std::to_string(rows) +
                       " rows)");
    wins.push_back({static_cast<int>(e), static_cast<int>(st), static_cast<int>(len)});
    T = std::max(T, static_cast<int>(len));
  }
  const WmBatch b = wm_make_batch(eps, wins, T);
  wm_check_batch(ck.config, b);
  const WmLoss l = model.forward(b);
  const int B = b.batch, N = kShips;
  Json out;
  out["checkpoint"] = a.checkpoint;
  out["data"] = a.data;
  out["windows"] = Json::array();
  for (const auto& w : wins)
    out["windows"].push_back({{"episode", w.episode}, {"start", w.start}, {"length", w.length}});
  out["batch"] = B;
  out["steps"] = T;
  out["loss"] = loss_json(l);
  out["valid"] = b.valid;
  out["action_logits"] = floats_json(model.action_logits(), {B, T, N, kActionLogits});
  out["state_pred"] = floats_json(model.state_pred(), {B, T, N, kTokenDim});
  out["rel_pred"] = floats_json(model.rel_pred(), {B, T, N, N, kRelDim});
  std::cout << out.dump() << "\n";
}

}  // namespace

// ---------------------------------------------------------------- add_wm_command

void add_wm_command(CLI::App& app) {
  auto* wm = app.add_subcommand(
      "wm", "Boost and Broadside world model: train, info, export, eval, dream, forward");
  wm->require_subcommand(1);

  auto ta = std::make_shared<TrainArgs>();
  auto* train = wm->add_subcommand("train", "train a world model on `collect` datasets");
  train->add_option("--preset", ta->run.preset,
                    "tiny (E 64, 4 layers, C 32) | paper (E 128, 6 layers, C 96)");
  train->add_option("--position", ta->run.position, "rope | absolute (learned, context-limited)");
  train->add_option("--state-head", ta->run.state_head,
                    "plain (S_t + head) | scaled (S_t + sigma*head) | cv (CV(S_t) + sigma*head)");
  train->add_option(
      "--state-loss", ta->run.state_loss,
      "scaled and cv heads: sigma (((pred - s)/sigma)^2, default) | raw (token units)");
  train->add_option("--data", ta->run.data,
                    "dataset file(s) from `poslab-cli collect` (repeat or list)");
  train->add_option("--steps", ta->run.steps,
                    "optimiser step to stop after (counting resumed steps)");
  train->add_option("--seed", ta->run.seed, "initial weights, episode split and batch draws");
  train->add_option("-o,--output", ta->run.output,
                    "checkpoint to write (safetensors, with optimiser state)");
  train->add_option("--log", ta->run.log, "CSV log (default: the output with .csv)");
  train->add_flag("--resume", ta->run.resume, "continue the run in --output (its settings win)");
  train->add_option("--threads", ta->run.threads, "threads, 0 = all cores");
  train->add_option("--batch", ta->run.data_params.batch, "windows per batch");
  train->add_option("--short-steps", ta->run.data_params.short_steps,
                    "steps of a short window (0 = min(32, long/2))");
  train->add_option("--long-steps", ta->run.data_params.long_steps,
                    "steps of a long window (0 = the context)");
  train->add_option("--long-every", ta->run.data_params.long_every,
                    "one long batch in this many (5 = 4:1)");
  train->add_option("--val-fraction", ta->run.data_params.val_fraction,
                    "share of episodes held out");
  train->add_option("--lr", ta->run.adam.lr, "peak learning rate");
  train->add_option("--warmup", ta->run.adam.warmup_steps, "warm-up steps");
  train->add_option("--weight-decay", ta->run.adam.weight_decay, "AdamW decoupled weight decay");
  train->add_option("--swa-start", ta->run.adam.swa_start,
                    "step from which SWA averages weights (-1 = off)");
  train->add_option("--swa-every", ta->run.adam.swa_every, "SWA snapshot interval");
  train->add_option("--log-every", ta->run.train.log_every, "CSV row interval");
  train->add_option("--val-every", ta->run.train.val_every, "validation interval");
  train->add_option("--checkpoint-every", ta->run.train.checkpoint_every, "checkpoint interval");
  train->add_option("--val-windows", ta->run.train.val_windows, "validation windows");
  train->add_flag("--quiet", ta->quiet, "no progress on stderr");
  train->add_flag("--progress", ta->progress, "progress line even when stderr is not a terminal");
  train->callback([ta] { run_train(*ta); });

  auto info_path = std::make_shared<std::string>();
  auto* info = wm->add_subcommand("info", "a checkpoint's config, parameter count and metadata");
  info->add_option("checkpoint", *info_path, "checkpoint file")->required();
  info->callback([info_path] { run_info(*info_path); });

  auto ex = std::make_shared<std::tuple<std::string, std::string, bool>>();
  auto* exp =
      wm->add_subcommand("export", "a checkpoint without optimiser state (small, for sharing)");
  exp->add_option("checkpoint", std::get<0>(*ex), "training checkpoint")->required();
  exp->add_option("-o,--output", std::get<1>(*ex), "file to write")->required();
  exp->add_flag("--swa", std::get<2>(*ex), "export the SWA average instead of the last weights");
  exp->callback([ex] { run_export(std::get<0>(*ex), std::get<1>(*ex), std::get<2>(*ex)); });

  auto ea = std::make_shared<EvalArgs>();
  auto* ev = wm->add_subcommand(
      "eval", "teacher-forced scores, dreams with baselines, dreams of 3x the context");
  ev->add_option("checkpoint", ea->checkpoint, "checkpoint file")->required();
  ev->add_option("--data", ea->data, "dataset file(s) (default: the ones the checkpoint records)");
  ev->add_option("--dreams", ea->dreams, "K-step dreams per loop mode");
  ev->add_option("--steps", ea->steps, "K: dream length");
  ev->add_option("--history", ea->history, "real steps the model sees before a dream");
  ev->add_option("--stride", ea->stride, "rows between dream starts within an episode");
  ev->add_option("--long-dreams", ea->long_dreams, "dreams of 3x the context");
  ev->add_option("--val-windows", ea->val_windows, "teacher-forced windows");
  ev->add_option("--temperature", ea->temperature,
                 "open loop: action sampling temperature (0 = argmax)");
  ev->add_option("--seed", ea->seed, "open loop: action sampling");
  ev->add_option("--threads", ea->threads, "threads, 0 = all cores");
  ev->add_flag("--unseen", ea->unseen,
               "every episode of --data is held out (a collection with another seed, so models "
               "trained on different data are scored on the same episodes)");
  ev->callback([ea] { run_eval(*ea); });

  auto da = std::make_shared<DreamArgs>();
  auto* dr =
      wm->add_subcommand("dream", "one dream: per-step errors, baselines, dreamt and real states");
  dr->add_option("checkpoint", da->checkpoint, "checkpoint file (not with --preset)");
  dr->add_option("--data", da->data, "dataset file");
  dr->add_option("--episode", da->episode, "episode of --data (0-based; default 0)");
  dr->add_option("--sim-seed", da->sim_seed,
                 "dream on a fresh simulator episode (noisy expert) instead");
  dr->add_option("--start", da->start, "row of the real start state (default: --history)");
  dr->add_option("--steps", da->p.steps, "K: dream length");
  dr->add_option("--history", da->p.history, "real steps the model sees before the start");
  dr->add_option("--loop", da->loop, "closed (recorded actions) | open (the model's action head)");
  dr->add_option("--temperature", da->p.temperature,
                 "open loop: sampling temperature (0 = argmax)");
  dr->add_option("--seed", da->p.seed, "open loop: action sampling");
  dr->add_option("--window", da->window,
                 "past the context: slide (keep the cache; RoPE: exact with one temporal "
                 "block, close with more; learned absolute: the naive reuse) | recompute "
                 "(exact) | patch (UniZero's W_k(P[new]-P[old]) correction; learned absolute "
                 "only, approximate there). Old name: approximate = slide");
  dr->add_option("--threads", da->threads, "threads, 0 = all cores");
  auto dl = std::make_shared<DreamLabArgs>();
  add_dream_lab_options(*dr, *dl);
  dr->callback([da, dl, dr] {
    // -1 stands for "not given" in DreamArgs: a negative value the user typed is refused,
    // never taken for the default (--episode -1 dreamt episode 0).
    if (dr->count("--episode") > 0 && da->episode < 0)
      throw InputError("--episode = " + std::to_string(da->episode) +
                       ": episodes are numbered from 0; give 0 or more");
    if (dr->count("--sim-seed") > 0 && da->sim_seed < 0)
      throw InputError("--sim-seed = " + std::to_string(da->sim_seed) + ": give 0 or more");
    if (dl->preset.empty()) return run_dream(*da);
    run_dream_lab(*dl, *dr, dr->count("--steps") > 0 ? da->p.steps : -1);
  });

  auto fa = std::make_shared<ForwardArgs>();
  auto* fw =
      wm->add_subcommand("forward", "loss, parts and outputs on fixed windows (PyTorch parity)");
  fw->add_option("checkpoint", fa->checkpoint, "checkpoint file")->required();
  fw->add_option("--data", fa->data, "dataset file")->required();
  fw->add_option("--episode", fa->episode, "episode of the single window");
  fw->add_option("--start", fa->start, "first row of the single window");
  fw->add_option("--length", fa->length, "steps of the single window");
  fw->add_option("--window", fa->windows,
                 "EPISODE:START:LENGTH (repeat for a batch; shorter ones are padded)");
  fw->add_option("--threads", fa->threads, "threads (results agree to float rounding)");
  fw->callback([fa] { run_forward(*fa); });
}

}  // namespace poslab::cli
