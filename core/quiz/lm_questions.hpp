// Quiz questions whose answers are measured on the shipped language models (issue 27):
// numeric generators named "lm_..." read per-position loss curves that core/lm's
// lm_eval_positions (the function the length lab and `poslab-cli lm eval` call) measured on
// the models io loaded. The curves are measured once (quiz_lm_measure) and handed to
// quiz_generate; without them a question says which model file is missing and what to do.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/lm/length_lab.hpp"

namespace poslab {

// How a quiz measures a model: positions 0..8L, 32 evenly spaced held-out windows, the
// model's own scaling (a fine-tuned one runs with the scaling it was tuned with), as
// assets/models/lm_eval.json and the lessons' tables do.
inline constexpr int kQuizLmSpan = 8;      // positions = kQuizLmSpan x L
inline constexpr int kQuizLmWindows = 32;  // held-out windows averaged

// One model's loss against position.
struct QuizLmCurve {
  lm::LengthModelId id = lm::LengthModelId::rope;
  int context = 0;           // L of the model, bytes
  lm::LmScaling scaling;     // what it ran with (the model's tuned scaling; none for a base model)
  std::vector<double> bits;  // (8L) mean bits/byte of the byte after each position
};

// Why a model has no curve: its file and what to do, one line (written by io).
struct QuizLmMissing {
  lm::LengthModelId id = lm::LengthModelId::rope;
  std::string message;
};

// What the "lm_" generators read. Moves whole between the worker that measures it and the
// quiz that reads it.
struct QuizLmData {
  std::vector<QuizLmCurve> curves;
  std::vector<QuizLmMissing> missing;
  const QuizLmCurve* find(lm::LengthModelId id) const;
};

// The model-backed generators, in a stable order (not in quiz_generator_names(), whose
// generators need nothing but a seed):
//   lm_rope_first_rise   first position p >= L/2 where the unscaled RoPE model's loss (the
//                        mean of the L/8 positions before p) exceeds its loss at L/2 by
//                        `extra` bits/byte
//   lm_yarn_tuned_gain   bits/byte by which RoPE fine-tuned with YaRN (run with its scaling)
//                        lowers the unscaled RoPE model's loss at kL
//   lm_learned_jump      bits/byte the learned-table model loses at kL more than at L
//   lm_sinusoidal_at     bits/byte of the sinusoidal model at kL
// "The loss at p" is lm_curve_at (the mean of the L/8 positions before p), as the length
// lab's table and `poslab-cli lm eval`'s "at" print it.
const std::vector<std::string>& quiz_lm_generator_names();
bool quiz_generator_uses_models(const std::string& generator);
// The models whose curves a generator reads (empty for any other generator).
std::vector<lm::LengthModelId> quiz_lm_models(const std::string& generator);

// quiz_lm_measure one bounded step at a time (the app's jobs step it: a worker thread on
// the desktop, the frames in the browser): a step is a batch of 8 windows of one model's
// curve. Holds `data` by reference: keep it alive while it runs.
class QuizLmRun {
 public:
  QuizLmRun(const lm::LengthLabData& data, std::vector<lm::LengthModelId> ids);
  ~QuizLmRun();
  QuizLmRun(const QuizLmRun&) = delete;
  QuizLmRun& operator=(const QuizLmRun&) = delete;
  bool done() const { return next_ >= ids_.size() && !curve_; }
  void step();
  int models_done() const { return static_cast<int>(out_.curves.size()); }
  QuizLmData take() { return std::move(out_); }

 private:
  const lm::LengthLabData& data_;
  std::vector<lm::LengthModelId> ids_;  // found in data, each once
  size_t next_ = 0;
  QuizLmData out_;
  struct Curve;  // the model being measured and its run
  std::unique_ptr<Curve> curve_;
};

// Measures the curves of `ids` (each once) on the models in `data` with its held-out text;
// ids io did not load are skipped (io lists them in `missing`). Stops early when `cancel`
// is set (the result is then incomplete; the caller drops it).
QuizLmData quiz_lm_measure(const lm::LengthLabData& data, const std::vector<lm::LengthModelId>& ids,
                           const std::atomic<bool>* cancel = nullptr);

}  // namespace poslab
