// The length lab's "Train your own" section (issue 27): pick an encoding, steps, context L
// and seed (the defaults are the shipped models' recipe, so a run reproduces one), start,
// and watch the run that app/widgets/lm_train_job drives on a worker: a progress bar, the
// time left, the training and validation loss live, and Cancel, which stops at a step and
// keeps that step's checkpoint. Starting the same choices again resumes it. The model lands
// in the user's models folder and the panel lists it beside the shipped ones. The browser
// build has no worker threads: there the section says so and offers no Start.
#pragma once
#include <string>
#include <vector>

#include "app/widgets/lm_train_job.hpp"
#include "core/lm/lm_own.hpp"

namespace poslab::app {

class AppContext;

class LengthTrainView {
 public:
  // Draws the section; `autostart` starts a run now (the user's own command-line preset
  // asked for one). Returns the checkpoint a run has just saved for good (it finished or
  // was cancelled) for the panel to add to its models, else "".
  std::string draw(AppContext& ctx, bool autostart);
  void cancel() { job_.cancel(); }  // Quit: the worker stops after its current step
  bool running() const { return job_.running(); }
  // "" or what is wrong with the section's state (for --check).
  std::string check_state() const;

 private:
  void start(AppContext& ctx);
  // Fetches the training text (the fortune files; the browser build keeps them beside the
  // page until a run needs them), then starts the run.
  void fetch_then_start(AppContext& ctx);
  void draw_curves(AppContext& ctx, float scale);

  lm::LmOwnSpec spec_;
  LmTrainJob job_;
  LmTrainCurves curves_;          // of the current or last run
  std::vector<double> smoothed_;  // every step's loss smoothed for the plot (smooth_ema)
  std::string error_;             // why the last run could not start or ended early
  bool cancelled_ = false;        // the last run was cancelled
  bool fetching_ = false;         // a run waits for its text (the browser fetches it first)
};

}  // namespace poslab::app
