// One training run of a byte-level language model as `poslab-cli lm train` runs it and the
// length lab's "Train your own" drives it (issue 27): the model (fresh, fine-tuned from a
// file, or resumed from its own checkpoint), the text read and split, the provenance
// metadata, then core/lm's lm_train with the checkpoint and the CSV curve written atomically
// at every curve row and where a cancelled run stopped. The two faces only differ in how
// they report progress and ask to stop.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/lm/lm.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_data.hpp"
#include "core/lm/lm_train.hpp"
#include "core/nn/adamw.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"

namespace poslab::io {

struct LmTrainRequest {
  std::string output;             // checkpoint to write (with optimiser state)
  std::string log;                // CSV curve; "" = output with .csv
  lm::LmConfig config;            // a fresh model's config (ignored with init_from or resume)
  lm::LmTrainSettings settings;   // batches, steps, optimiser, curve rows, threads
  lm::LmScaling scaling;          // RoPE scaling while training (fine-tuning)
  std::string init_from;          // start from this model (fine-tuning); "" = fresh
  int context = 0;                // > 0: a fresh model's L, or with init_from / resume the
                                  // window trained on (the model keeps its L)
  std::vector<std::string> text;  // text files; "" = recorded ones (resume), else the fortunes
  int valid_every = 10;           // entry i is validation when i % n == n - 1
  bool resume = false;            // continue the run in `output` (with its settings' model)
  std::string command;            // recorded in the checkpoint's "command" metadata
  lm::LmBudget budget;            // one step's memory and time (checked before allocating)
  std::string over_budget = "lower --context or --batch, or raise --memory-budget-mb";
};

// A run set up and ready: construction loads and validates everything (InputError or
// FileError naming the file or value), train() trains.
class LmTrainRun {
 public:
  explicit LmTrainRun(LmTrainRequest request);

  // lm_train from the current step to settings().steps. After every curve row the
  // checkpoint and the CSV are written (atomically) and then on_row is called; a cancelled
  // run also writes the checkpoint of the step it stopped at. Returns false when cancelled.
  bool train(const std::atomic<bool>* cancel,
             const std::function<void(const lm::LmTrainRow&)>& on_row = {},
             const std::function<void(int64_t, double)>& on_step = {});

  // train() one step at a time (the app's job steps it): step() takes the next optimiser
  // step, writing the checkpoint and the CSV at each curve row, and returns whether steps are
  // left; stopped() writes the checkpoint of the step a cancelled run stopped at.
  bool step(const std::function<void(const lm::LmTrainRow&)>& on_row = {},
            const std::function<void(int64_t, double)>& on_step = {});
  void stopped();

  const LmTrainRequest& request() const { return request_; }
  const lm::LmConfig& config() const { return model_.config(); }
  const lm::LmTrainSettings& settings() const { return settings_; }
  const lm::LmModel& model() const { return model_; }
  const nn::AdamWState& optimiser() const { return optim_; }
  const lm::LmCorpus& corpus() const { return corpus_; }
  int window() const { return lm::lm_train_window(settings_, model_.config()); }
  int64_t first_step() const { return first_step_; }  // the step the run started from
  const lm::LmTrainRow& last_row() const { return last_; }
  // The curve so far as CSV: a resumed run's earlier rows, then this run's.
  const std::string& csv() const { return csv_; }
  bool saved() const { return saved_step_ >= 0; }  // a checkpoint was written by this run
  // The "data" metadata: files with their packages and versions, the split, the sizes (JSON).
  const std::string& data_json() const { return data_json_; }

 private:
  void save();

  LmTrainRequest request_;
  lm::LmTrainSettings settings_;
  lm::LmModel model_;
  nn::AdamWState optim_;
  lm::LmCorpus corpus_;
  TensorMetadata meta_;
  std::string data_json_;
  std::string csv_;
  lm::LmTrainRow last_;
  int64_t first_step_ = 0;
  int64_t saved_step_ = -1;
  std::optional<lm::LmTrainLoop> loop_;  // set by the first step
};

}  // namespace poslab::io
