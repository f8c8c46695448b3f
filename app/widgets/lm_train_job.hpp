// The length lab's "Train your own" run on a worker thread (issue 27): io's LmTrainRun (the
// run `poslab-cli lm train` makes) for an LmOwnSpec, writing its checkpoint into the user's
// models folder and resuming it when that file exists. The worker owns everything it
// touches (the spec, the paths, its curves); the panel reads copies of the curves through
// the job's reports and the outcome. No ImGui here, so tests drive it as the panel does.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/widgets/background_job.hpp"
#include "core/lm/lm_own.hpp"

namespace poslab::app {

// A run's curves so far (every report) and at its end (the outcome).
struct LmTrainCurves {
  lm::LmOwnSpec spec;
  std::string path;                                    // the checkpoint it writes
  std::vector<double> row_step, row_train, row_valid;  // curve rows: training and validation
                                                       // bits/byte every 100 steps (a
                                                       // resumed run's earlier rows too)
  std::vector<double> step, step_bits;  // every step of this run: its batch's bits/byte
  int64_t first = 0;                    // the step the run started (or resumed) from
  int64_t done = 0;                     // steps taken (counting the resumed ones)
  int64_t total = 0;                    // the spec's steps
  double seconds = 0;                   // wall time of this run so far
  bool finished = false;                // reached `total`

  // Seconds to the last step at this run's pace so far; -1 before the first step.
  double seconds_left() const {
    if (done <= first) return -1;
    return seconds / static_cast<double>(done - first) * static_cast<double>(total - done);
  }
};

using LmTrainJob = BackgroundJob<LmTrainCurves, LmTrainCurves>;

// <models_dir>/<lm_own_stem(spec)>.safetensors
std::string lm_own_path(const std::string& models_dir, const lm::LmOwnSpec& spec);

// Starts the run: creates models_dir, resumes the checkpoint there when it exists (else a
// fresh model from the spec's seed), trains on `text` (empty: the fortune files). Cancel
// stops at a step and keeps that step's checkpoint. An unwritable folder or a damaged
// checkpoint ends the job with one error line naming the file.
void lm_train_job_start(LmTrainJob& job, const lm::LmOwnSpec& spec, const std::string& models_dir,
                        std::vector<std::string> text = {});

}  // namespace poslab::app
