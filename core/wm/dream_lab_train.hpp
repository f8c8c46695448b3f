// Training a world model from the dream lab: episodes collected in memory with the noisy
// expert (or given, e.g. read from a dataset), split by episode, the model initialised and
// trained with core/wm/train's loop while the caller watches the curves and keeps the
// checkpoints (the core writes no files). What `poslab-cli wm train` does, sized for a
// training run watched live; `poslab-cli wm train-lab` runs exactly this natively.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/param_range.hpp"
#include "core/nn/adamw.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

struct DreamTrainSpec {
  std::string preset = "tiny";             // "tiny" (E 64, 4 blocks) or "paper" (E 128, 6)
  WmPosition position = WmPosition::rope;  // temporal position variant
  int episodes = 64;                       // episodes collected when none are given, [4, 100000]
  uint64_t seed = 7;                       // collection, split, initial weights, batches
  int64_t steps = 2000;                    // optimiser steps, [1, 1e9]
  int batch = 4;                           // windows per batch, [1, 4096]
  double lr = 1.5e-3;                      // peak learning rate, (0, 1]
  int64_t log_every = 5;                   // a curve point every this many steps, [1, 1e9]
  int64_t val_every = 50;                  // validation loss every this many steps, [1, 1e9]
  int64_t checkpoint_every = 50;           // on_checkpoint every this many steps, [1, 1e9]
  int threads = 1;                         // training threads (the UI keeps the rest), [1, 64]

  static constexpr ParamRange episodes_range{4, 100000};
  static constexpr ParamRange steps_range{1, 1e9};
  static constexpr ParamRange batch_range{1, 4096};
  static constexpr ParamRange lr_range{1e-6, 1};
  static constexpr ParamRange every_range{1, 1e9};
  static constexpr ParamRange threads_range{1, 64};
};
void dream_train_validate(const DreamTrainSpec& s);
// Validation windows (of the long window's length) at each validation, and per forward
// pass: 4 keeps a validation stage (half a block) no larger than a training step's (a page
// runs one per frame); the loss is the same (wm_evaluate_loss weights batches by counts).
inline constexpr int kDreamValWindows = 16;
inline constexpr int kDreamValBatch = 4;

// The curves so far.
struct DreamTrainProgress {
  std::vector<double> step, loss;          // training loss (mean since the previous point)
  std::vector<double> val_step, val_loss;  // validation loss
  double tokens_per_s = 0;                 // of the last point
  int64_t done = 0, total = 0;             // optimiser steps
  int train_episodes = 0, val_episodes = 0;
};

struct DreamTrainHooks {
  std::function<void(const DreamTrainProgress&)> on_progress;  // after every curve point
  // Every checkpoint_every steps and at the end (also after a stop): the weights and the
  // optimiser state to save.
  std::function<void(const WmConfig&, const std::vector<float>& params, const nn::AdamWState& opt)>
      on_checkpoint;
  std::function<bool()> stop_requested;  // polled after every step (pause blocks inside it)
};

// dream_lab_train one bounded step at a time (the app's job runs it: a worker thread on the
// desktop, the frames in the browser): first one collected episode per step, then one stage
// of an optimiser step per step (WmTrainer::step: the inputs, half a block, the heads).
// Not copyable (the trainer holds references into it).
class DreamTrainRun {
 public:
  DreamTrainRun(const DreamTrainSpec& spec, std::vector<bnb::EpisodeRecord> episodes,
                DreamTrainHooks hooks);
  ~DreamTrainRun();
  DreamTrainRun(const DreamTrainRun&) = delete;
  DreamTrainRun& operator=(const DreamTrainRun&) = delete;
  // One step; returns whether steps are left (false at the end, after a stop, or when a stop
  // came while collecting: then the progress stays empty).
  bool step();
  const DreamTrainProgress& progress() const { return progress_; }

 private:
  void begin_training();

  DreamTrainSpec spec_;
  std::vector<bnb::EpisodeRecord> episodes_;
  DreamTrainHooks hooks_;
  bool collect_ = false;  // still collecting episodes
  bool over_ = false;
  DreamTrainProgress progress_;
  struct Training;  // the model, optimiser, data split and trainer, once collected
  std::unique_ptr<Training> training_;
};

// What a run costs before it starts (the view says it; a page trains several times slower
// than the desktop): multiply-adds from the shapes (forward and backward of every batch, the
// validations, about 3x a forward for a training step), turned into seconds with this build's
// measured training speed, plus the episodes' collection.
struct DreamTrainCost {
  double macs = 0;         // multiply-adds of the steps and validations
  double collect_s = 0;    // seconds to collect the episodes
  double seconds() const;  // collect_s + macs at kDreamTrainMacsPerSecond
};
DreamTrainCost dream_train_cost(const DreamTrainSpec& s);
// Multiply-adds of the largest stage of an optimiser step (the backward pass of a temporal
// half-block over the long windows): what one frame of the page runs at most.
double dream_train_stage_macs(const DreamTrainSpec& s);
// Whether a stage fits a frame of the page (no frame over 250 ms): a stage at most twice the
// default's (the tiny model at batch 4; so the tiny model up to batch 8). The page trains
// only such runs; larger ones are for the desktop app or `poslab-cli wm train-lab`.
bool dream_train_fits_frames(const DreamTrainSpec& s);
// Wall-time speeds measured on the shared 2-core machine while busy (load average 12-16), one
// thread (docs/web.md, "Training in the page"): the native build (AVX2 kernels, `poslab-cli
// wm train-lab`) and the page (WebAssembly in headless Chromium, training in its frames' job
// slices between drawing). A quiet machine is faster: the estimate errs long.
#if defined(__EMSCRIPTEN__)
inline constexpr double kDreamTrainMacsPerSecond = 0.9e9;  // 20 steps: 21.9 s at load 14
inline constexpr double kDreamEpisodeSeconds = 0.05;
#else
inline constexpr double kDreamTrainMacsPerSecond = 3.2e9;  // 20 steps: 6.0 s (1.3 CPU-s)
inline constexpr double kDreamEpisodeSeconds = 0.005;
#endif

// The `poslab-cli wm train-lab` command line that runs exactly this training (the same
// episodes, split, batches and steps) into `output`: every field that changes the weights,
// numbers in their shortest exact text. Recorded in the checkpoint, so a run of the page
// (or the desktop app) can be repeated natively.
std::string dream_train_command(const DreamTrainSpec& s, const std::string& output);
// The checkpoint's provenance line ("PosLab dream lab training, 64 noisy-expert ...").
std::string dream_train_provenance(const DreamTrainSpec& s);

// Collects spec.episodes episodes (noisy expert, random team sizes) when `episodes` is
// empty, then trains. Returns the final curves. Throws InputError on a bad spec or data.
DreamTrainProgress dream_lab_train(const DreamTrainSpec& spec,
                                   std::vector<bnb::EpisodeRecord> episodes,
                                   const DreamTrainHooks& hooks);

}  // namespace poslab::wm
