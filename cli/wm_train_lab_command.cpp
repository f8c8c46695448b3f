// poslab-cli wm train-lab: exactly the dream lab's "Train a world model" run natively (the
// same core/wm/dream_lab_train: episodes collected in memory with the noisy expert, the same
// seed, split, batches and steps), so a checkpoint trained in the page or the desktop app can
// be repeated here and compared tensor by tensor (its metadata records this command). The
// checkpoint is written atomically at the end and every --checkpoint-every steps; JSON out.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/run_control.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab_train.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::cli {

namespace {

struct TrainLabArgs {
  wm::DreamTrainSpec spec;
  std::string position = "rope";
  std::string output;
  bool quiet = false;
};

void run_train_lab(TrainLabArgs a) {
  if (a.output.empty()) throw InputError("--output: give the checkpoint file to write");
  if (std::filesystem::exists(a.output))
    throw InputError(a.output + ": exists; remove it first (a run never replaces a model)");
  require_writable_path(a.output, "--output");
  a.spec.position = wm::wm_position_from_name(a.position);
  wm::dream_train_validate(a.spec);
  const wm::DreamTrainSpec& s = a.spec;
  io::TensorMetadata meta;
  meta["provenance"] = wm::dream_train_provenance(s);
  meta["command"] = wm::dream_train_command(s, a.output);

  wm::DreamTrainHooks hooks;
  hooks.on_checkpoint = [&](const wm::WmConfig& c, const std::vector<float>& w,
                            const nn::AdamWState& opt) {
    io::wm_checkpoint_save(a.output, c, w, opt.step, &opt, meta);
  };
  hooks.on_progress = [&](const wm::DreamTrainProgress& p) {
    if (a.quiet) return;
    std::fprintf(stderr, "step %lld/%lld  loss %.5f\n", static_cast<long long>(p.done),
                 static_cast<long long>(p.total), p.loss.empty() ? 0.0 : p.loss.back());
  };
  hooks.stop_requested = [] { return StopOnSignal::flag().load(); };
  std::optional<StopOnSignal> stop(std::in_place);
  const auto t0 = std::chrono::steady_clock::now();
  const auto c0 = std::clock();
  wm::DreamTrainRun run(s, {}, hooks);
  // The run's steps: each collects an episode or takes a stage of an optimiser step (the
  // progress has its total once the episodes are in: the training's clocks start there).
  std::optional<std::chrono::steady_clock::time_point> t_train;
  std::optional<std::clock_t> c_train;
  while (run.step())
    if (!t_train && run.progress().total > 0)
      t_train = std::chrono::steady_clock::now(), c_train = std::clock();
  stop.reset();
  const auto t1 = std::chrono::steady_clock::now();
  const auto c1 = std::clock();
  const wm::DreamTrainProgress& p = run.progress();
  Json out;
  out["output"] = a.output;
  out["command"] = meta["command"];
  out["step"] = p.done;
  out["steps"] = p.total;
  out["interrupted"] = p.done < s.steps;
  out["train_episodes"] = p.train_episodes;
  out["val_episodes"] = p.val_episodes;
  out["loss"] = {{"step", p.step}, {"value", p.loss}};
  out["val_loss"] = {{"step", p.val_step}, {"value", p.val_loss}};
  out["tokens_per_s"] = p.tokens_per_s;  // of the last curve point
  const double train_wall = t_train ? std::chrono::duration<double>(t1 - *t_train).count() : 0.0;
  const double train_cpu = c_train ? static_cast<double>(c1 - *c_train) / CLOCKS_PER_SEC : 0.0;
  out["wall_seconds"] = std::chrono::duration<double>(t1 - t0).count();
  out["cpu_seconds"] = static_cast<double>(c1 - c0) / CLOCKS_PER_SEC;
  // The training's own time (after the episodes were collected), validation included.
  out["train_wall_seconds"] = train_wall;
  out["train_cpu_seconds"] = train_cpu;
  out["train_steps_per_cpu_s"] = train_cpu > 0 ? static_cast<double>(p.done) / train_cpu : 0.0;
  std::printf("%s\n", out.dump(2).c_str());
}

}  // namespace

void add_wm_train_lab_command(CLI::App& wm) {
  auto a = std::make_shared<TrainLabArgs>();
  auto* c = wm.add_subcommand(
      "train-lab",
      "the dream lab's training run: noisy-expert episodes collected in memory, trained as "
      "the lab does (repeats a checkpoint's recorded run)");
  c->add_option("--preset", a->spec.preset, "tiny (E 64, 4 blocks) | paper (E 128, 6 blocks)");
  c->add_option("--position", a->position, "rope | absolute");
  c->add_option("--episodes", a->spec.episodes, "episodes to collect (10 % validation)");
  c->add_option("--seed", a->spec.seed, "collection, split, initial weights, batches");
  c->add_option("--steps", a->spec.steps, "optimiser steps");
  c->add_option("--batch", a->spec.batch, "windows per batch");
  c->add_option("--lr", a->spec.lr, "peak learning rate");
  c->add_option("--threads", a->spec.threads,
                "training threads (the lab's runs use 1; others agree to float rounding)");
  c->add_option("--log-every", a->spec.log_every, "a curve point every this many steps");
  c->add_option("--val-every", a->spec.val_every, "validation loss every this many steps");
  c->add_option("--checkpoint-every", a->spec.checkpoint_every,
                "checkpoint every this many steps (and at the end)");
  c->add_option("-o,--output", a->output, "checkpoint to write (safetensors, new file)")
      ->required();
  c->add_flag("--quiet", a->quiet, "no progress on stderr");
  c->callback([a] { run_train_lab(*a); });
}

}  // namespace poslab::cli
