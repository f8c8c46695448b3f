// The dream lab's training view: pick a preset and a position variant, start, pause,
// resume or stop a training run on a worker thread (core/wm/dream_lab_train), watch the
// loss and validation curves and tokens/s, and hand the checkpoint it keeps writing to the
// dream lab. Checkpoints are written atomically, so stopping (or Quit) at any moment
// leaves the last one intact.
#pragma once
#include <filesystem>
#include <string>

#include "app/app_context.hpp"
#include "app/widgets/background_job.hpp"
#include "core/wm/dream_lab_train.hpp"

namespace poslab::app {

// Where a new run writes its checkpoint: <dir>/<stem>.safetensors, or <stem>-2, -3, ... when
// that file exists, so a run never replaces a model the user already has (issue 29: a link
// once replaced the user's own trained model). "" when 1000 names are taken.
inline std::string train_checkpoint_path(const std::string& dir, const std::string& stem) {
  namespace fs = std::filesystem;
  for (int n = 1; n <= 1000; ++n) {
    const fs::path p =
        fs::path(dir) / (stem + (n == 1 ? "" : "-" + std::to_string(n)) + ".safetensors");
    std::error_code ec;  // set for a missing file too: the type is what tells
    if (fs::symlink_status(p, ec).type() == fs::file_type::not_found) return p.string();
  }
  return {};
}

class TrainView {
 public:
  // Draws the view. Returns the checkpoint to dream with when the user asks for it (or a
  // run finishes), else an empty string; `rope` tells which position variant it has.
  // `autostart`: start a run now (the user's own command-line preset asked for one; a link
  // or a restored setting only shows the view, a run takes a click).
  std::string draw(AppContext& ctx, bool& rope, bool autostart);
  void cancel() { job_.cancel(); }  // Quit: the worker stops after its current step
  bool running() const { return job_.running(); }

 private:
  wm::DreamTrainSpec spec_;
  int preset_ = 0;    // 0 tiny, 1 paper
  int position_ = 0;  // 0 rope, 1 absolute
  BackgroundJob<wm::DreamTrainProgress, wm::DreamTrainProgress> job_;
  wm::DreamTrainProgress curves_;
  std::vector<double> smoothed_;  // the training loss smoothed for the plot (smooth_ema)
  std::string path_;              // checkpoint of the current / last run
  bool path_rope_ = true;         // its position variant
};

}  // namespace poslab::app
