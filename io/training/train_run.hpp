// The skeleton both models' training runs share (lm_train_run, wm_train_run): the files of a
// run, its checkpoint and its CSV curve, checked before the run spends minutes (not at its
// first checkpoint); the curve of a resumed run continued from its checkpoint's step; the
// provenance a resumed run records; and the two files written together, the curve first,
// atomically each, so that a run killed at any moment resumes as if it never stopped.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/nn/adamw.hpp"
#include "io/checkpoint/safetensors.hpp"

namespace poslab::io {

class TrainFiles {
 public:
  // InputError `missing_output` when output is ""; log "" = output with .csv. Both paths must
  // be writable (require_writable_path, "--output" and "--log").
  TrainFiles(std::string output, std::string log, const std::string& missing_output);
  const std::string& output() const { return output_; }
  const std::string& log() const { return log_; }

  // Starts the curve with `header` (no newline) and, for a resumed run, the rows of the log
  // up to `step` (the rows past it are recomputed). Returns the value in column
  // `seconds_column` of the last row kept (a clock that continues), 0 without one.
  double begin_curve(const std::string& header, bool resume, int64_t step, int seconds_column = -1);
  void add_row(const std::string& row);  // one CSV line, without its newline
  const std::string& csv() const { return csv_; }

  // Writes the curve, then calls write_checkpoint (the model's atomic checkpoint save):
  // killed between the two, the checkpoint is the older one and a resume recomputes the rows
  // past it. The other order lost the row of a checkpoint whose curve was never written.
  void save(int64_t step, const std::function<void()>& write_checkpoint);
  bool saved() const { return saved_step_ >= 0; }  // a checkpoint was written by this run
  int64_t saved_step() const { return saved_step_; }

 private:
  std::string output_, log_, csv_;
  int64_t saved_step_ = -1;
};

// The optimiser's settings as a run's "training" metadata records them (both models' keys).
template <class Json>
void record_adamw(Json& j, const nn::AdamWParams& a) {
  j["lr"] = a.lr;
  j["warmup_steps"] = a.warmup_steps;
  j["weight_decay"] = a.weight_decay;
  j["beta1"] = a.beta1;
  j["beta2"] = a.beta2;
  j["clip_norm"] = a.clip_norm;
}

// The "command" metadata of a run: `command`, after the one a resumed checkpoint records.
std::string train_command(const TensorMetadata& resumed, const std::string& command);

}  // namespace poslab::io
