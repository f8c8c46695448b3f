// Training the world model: AdamW steps over batches of windows (core/wm/data.hpp), a
// validation loss on held-out episodes, and hooks through which the caller logs, writes
// checkpoints and stops (the core writes no files). A run that stops and resumes from a
// checkpoint of step s continues with batch s, exactly as if it had never stopped.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/param_range.hpp"
#include "core/nn/adamw.hpp"
#include "core/wm/data.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

struct WmTrainParams {
  int64_t steps = 1000;            // optimiser step to stop after (counting resumed ones), [1, 1e9]
  int64_t log_every = 10;          // one log row every this many steps, [1, 1e9]
  int64_t val_every = 200;         // validation loss every this many steps and at the end, [1, 1e9]
  int64_t checkpoint_every = 200;  // on_checkpoint every this many steps and at the end, [1, 1e9]
  int val_windows = 48;            // validation windows (at most; evenly spread), [1, 100000]
  int val_batch = 16;              // windows per validation forward pass, [1, 4096]

  static constexpr ParamRange steps_range{1, 1e9};
  static constexpr ParamRange every_range{1, 1e9};
  static constexpr ParamRange val_windows_range{1, 100000};
};
void wm_train_validate(const WmTrainParams& p);

// One row of the training log (the CSV's columns, in order).
struct WmTrainRow {
  int64_t step = 0;         // optimiser steps done
  double loss = 0;          // mean training loss of the batches since the last row
  WmLoss parts;             // its parts (means; counts of the last batch)
  double lr = 0;            // learning rate used
  double grad_norm = 0;     // before clipping
  int steps_in_window = 0;  // T of this batch
  double tokens_per_s = 0;  // B*T*2*N tokens per second, averaged since the last row
  double seconds = 0;       // wall time since this run started
  double val_loss = -1;     // validation loss at this step, -1 if not computed
  WmLoss val_parts;         // its parts
};

struct WmTrainHooks {
  std::function<void(const WmTrainRow&)> on_row;    // every log_every steps and at the end
  std::function<void(int64_t step)> on_checkpoint;  // every checkpoint_every steps and at the end
  std::function<bool()> stop_requested;             // polled after every step (Ctrl-C)
};

// Decay mask for AdamW: 1 for the weight matrices of linear layers, 0 for biases,
// LayerNorm gains, embeddings and tables (the usual GPT-style choice).
std::vector<uint8_t> wm_decay_mask(const ParamLayout& layout);

// Loss over fixed windows, parts weighted by their element counts (so it equals the loss of
// one big batch holding all windows).
WmLoss wm_evaluate_loss(WorldModel& model, const std::vector<bnb::EpisodeRecord>& episodes,
                        const std::vector<WmWindow>& windows, int steps, int batch);

// wm_train's loop one optimiser step at a time, for a caller that steps it (the app's jobs:
// a worker thread on the desktop, the frames in the browser). Holds references to
// everything it is given; they must outlive it.
class WmTrainer {
 public:
  WmTrainer(WorldModel& model, nn::AdamWState& opt, const nn::AdamWParams& adam,
            const WmDataParams& data, const WmTrainParams& p,
            const std::vector<bnb::EpisodeRecord>& episodes, const EpisodeSplit& split,
            WmTrainHooks hooks);
  ~WmTrainer();
  WmTrainer(const WmTrainer&) = delete;
  WmTrainer& operator=(const WmTrainer&) = delete;
  // One bounded piece of work: a stage of optimiser step opt.step + 1's forward or backward
  // pass (WorldModel::forward_step: the inputs, a half block or the heads; the step's last
  // stage applies AdamW, then its row and checkpoint hooks run), or a forward stage of a
  // row's validation (batches of val_batch windows: the row's hooks run after the last).
  // The numbers are those of whole passes, bit for bit. Returns whether steps are left
  // (false after the last one, or after a stop).
  bool step();
  const WmTrainRow& last_row() const { return row_; }

 private:
  WorldModel& model_;
  nn::AdamWState& opt_;
  const nn::AdamWParams& adam_;
  const WmDataParams& data_;
  const WmTrainParams& p_;
  const std::vector<bnb::EpisodeRecord>& episodes_;
  const EpisodeSplit& split_;
  WmTrainHooks hooks_;
  std::vector<uint8_t> mask_;
  int val_steps_ = 0;
  std::vector<WmWindow> val_windows_;
  std::chrono::steady_clock::time_point t_start_, t_row_;
  int64_t tokens_since_row_ = 0;
  WmLoss loss_sum_;  // parts summed over the steps since the last row (weighted by counts)
  int64_t steps_since_row_ = 0;
  bool stop_ = false;     // the last step saw a stop request
  bool row_due_ = false;  // the last step makes a row
  bool stopped_ = false;
  WmTrainRow row_;
  struct Validation;  // a row's validation under way
  std::unique_ptr<Validation> validation_;
  struct Pass;  // the optimiser step under way
  std::unique_ptr<Pass> pass_;

  void end_row();
};

// Runs optimiser steps opt.step + 1 .. p.steps (or until stop_requested), updating the
// model and opt. Returns the last row.
WmTrainRow wm_train(WorldModel& model, nn::AdamWState& opt, const nn::AdamWParams& adam,
                    const WmDataParams& data, const WmTrainParams& p,
                    const std::vector<bnb::EpisodeRecord>& episodes, const EpisodeSplit& split,
                    const WmTrainHooks& hooks);

}  // namespace poslab::wm
