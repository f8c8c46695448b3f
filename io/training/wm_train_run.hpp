// One training run of the world model as `poslab-cli wm train` runs it: the model (a preset,
// fresh, or resumed from its own checkpoint with the settings it recorded), the datasets read
// and split, the provenance metadata, then core/wm's wm_train with the checkpoint and the CSV
// curve written together (io/training/train_run) at every checkpoint step and where a stopped
// run ends. The CLI only parses flags, shows progress and prints the result.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "core/nn/adamw.hpp"
#include "core/wm/data.hpp"
#include "core/wm/train.hpp"
#include "core/wm/world_model.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"
#include "io/training/train_run.hpp"

namespace poslab::io {

struct WmTrainRequest {
  std::string output;                // checkpoint to write (with optimiser state)
  std::string log;                   // CSV curve; "" = output with .csv
  std::string preset = "tiny";       // a fresh model's size (wm_preset)
  std::string position = "rope";     // and its position encoding
  std::string state_head = "plain";  // plain | scaled | cv (docs/world-model.md section 5)
  std::string state_loss = "sigma";  // raw | sigma, for scaled and cv heads (section 6)
  std::vector<std::string> data;     // dataset files; "" = the ones a resumed run records
  int64_t steps = 1000;              // the run ends after this many optimiser steps
  uint64_t seed = 1;                 // init and batches (a resumed run keeps its own)
  bool resume = false;               // continue the run in `output` when it exists
  int threads = 0;                   // 0 = all cores
  wm::WmDataParams data_params;      // batches and the split (recorded ones win on resume)
  nn::AdamWParams adam;              // optimiser (likewise)
  wm::WmTrainParams train;           // rows, validation, checkpoints
  std::string command;               // recorded in the checkpoint's "command" metadata
};

// A run set up and ready: construction loads and validates everything (InputError or
// FileError naming the file or value), train() trains.
class WmTrainRun {
 public:
  explicit WmTrainRun(WmTrainRequest request);

  // wm_train from the current step to request().steps. Every row is added to the curve,
  // then on_row is called; at every checkpoint step (and where stop_requested stopped it)
  // the CSV and the checkpoint are written. Returns the last row.
  wm::WmTrainRow train(const std::function<bool()>& stop_requested,
                       const std::function<void(const wm::WmTrainRow&)>& on_row = {});

  const WmTrainRequest& request() const { return request_; }
  const wm::WmConfig& config() const { return config_; }
  const wm::WorldModel& model() const { return *model_; }
  const nn::AdamWState& optimiser() const { return optim_; }
  const wm::EpisodeSplit& split() const { return split_; }
  int64_t first_step() const { return first_step_; }  // the step the run started from
  // Seconds of the resumed run's curve (its last kept row): the clock continues from it.
  double seconds_offset() const { return seconds_offset_; }
  const std::string& csv() const { return files_.csv(); }

 private:
  WmTrainRequest request_;
  TrainFiles files_;
  wm::WmConfig config_;
  std::optional<wm::WorldModel> model_;  // set once the config is known
  nn::AdamWState optim_;
  std::vector<bnb::EpisodeRecord> episodes_;
  wm::EpisodeSplit split_;
  TensorMetadata meta_;
  int64_t first_step_ = 0;
  double seconds_offset_ = 0;
};

// The curve's columns and one row (seconds_offset added to the row's clock).
std::string wm_train_csv_header();
std::string wm_train_csv_row(const wm::WmTrainRow& r, double seconds_offset);

}  // namespace poslab::io
