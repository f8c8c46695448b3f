// The dream lab's training view: pick a preset and a position variant, start, pause,
// resume or stop a training run on a worker thread (core/wm/dream_lab_train), watch the
// loss and validation curves and tokens/s, and hand the checkpoint it keeps writing to the
// dream lab. Checkpoints are written atomically, so stopping (or Quit) at any moment
// leaves the last one intact.
#pragma once
#include <string>

#include "app/app_context.hpp"
#include "app/widgets/background_job.hpp"
#include "core/wm/dream_lab_train.hpp"

namespace poslab::app {

class TrainView {
 public:
  // Draws the view. Returns the checkpoint to dream with when the user asks for it (or a
  // run finishes), else an empty string; `rope` tells which position variant it has.
  // `autostart`: start a run the first time (a preset asked for one).
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
  bool started_ = false;          // a run was started in this session
};

}  // namespace poslab::app
