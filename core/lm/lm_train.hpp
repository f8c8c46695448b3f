// Training the length lab's language models: batches of random windows of the training
// text (a pure function of seed and step, so a resumed run sees the batches an unbroken
// run would), AdamW, and a row of the training curve every few steps with the validation
// bits per byte. Fine-tuning is the same loop from loaded weights with a longer window and
// a RoPE scaling switched on (the PI paper's recipe).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/param_range.hpp"
#include "core/lm/lm.hpp"
#include "core/lm/lm_data.hpp"
#include "core/nn/adamw.hpp"

namespace poslab::lm {

struct LmTrainSettings {
  int batch = 16;        // B: windows per step, [1, 4096]
  int64_t steps = 2000;  // the run ends after this many optimiser steps, [1, 1e9]
  int window = 0;        // T: bytes predicted per window; 0 = the model's context L,
                         // [0, 65536]
  uint64_t seed = 1;     // batches (and the init of a fresh model)
  nn::AdamWParams adam{.lr = 2e-3, .warmup_steps = 100};
  int64_t log_every = 100;  // a curve row (with validation) every this many steps, [1, 1e9]
  int valid_windows = 64;   // validation windows per row, [1, 1e6]
  LmScaling scaling;        // RoPE scaling while training (fine-tuning); none by default
  int threads = 0;          // 0 = all cores

  static constexpr ParamRange batch_range{1, 4096};
  static constexpr ParamRange steps_range{1, 1e9};
  static constexpr ParamRange window_range{0, 65536};
  static constexpr ParamRange log_every_range{1, 1e9};
  static constexpr ParamRange valid_windows_range{1, 1e6};
};
// Throws InputError naming the first bad field.
void lm_train_validate(const LmTrainSettings& s);
// T of a run: settings.window, or the model's context when 0.
inline int lm_train_window(const LmTrainSettings& s, const LmConfig& c) {
  return s.window > 0 ? s.window : c.context;
}

// (B, T + 1) bytes: B windows at offsets drawn from SeededStream(seed, "lm:batch", step),
// uniform over [0, size - T - 1]. Throws InputError if the text is shorter than T + 1.
std::vector<uint8_t> lm_batch(const std::vector<uint8_t>& text, int B, int T, uint64_t seed,
                              int64_t step);
// Offsets of `windows` evenly spaced windows of T + 1 bytes over the text (first at 0, last
// at the end; fewer when the text has fewer distinct offsets).
std::vector<int64_t> lm_window_offsets(int64_t text_size, int T, int windows);
// Mean bits per byte of the model over those windows of the text (evaluated in batches).
double lm_text_bpb(LmModel& m, const std::vector<uint8_t>& text, int T, int windows);

// One row of the training curve.
struct LmTrainRow {
  int64_t step = 0;      // optimiser steps taken
  double train_bpb = 0;  // mean training bits/byte of the steps since the previous row
  double valid_bpb = 0;  // validation bits/byte (valid_windows windows of T)
  double lr = 0;         // learning rate of the last step
  double grad_norm = 0;  // global gradient norm of the last step, before clipping
  double seconds = 0;    // wall seconds since this run (not the resumed one) started
};
// "step,train_bpb,valid_bpb,lr,grad_norm,seconds" and one row in that order.
std::string lm_train_csv_header();
std::string lm_train_csv_row(const LmTrainRow& r);

// lm_train's loop one optimiser step at a time (the app's jobs step it: a worker thread on
// the desktop, the frames in the browser). lm_train_begin validates and prepares the model
// and the optimiser; lm_train_step takes step optim.step + 1 (and its curve row when due)
// and returns whether steps are left. The state carries the row's running sums.
struct LmTrainLoop {
  int T = 0;                                 // the window trained on
  std::vector<uint8_t> mask;                 // AdamW's decay mask
  std::chrono::steady_clock::time_point t0;  // when the run started
  double since = 0;                          // summed loss (nats) since the last row
  int64_t since_n = 0;                       // steps since the last row
};
LmTrainLoop lm_train_begin(LmModel& m, nn::AdamWState& optim, const LmTrainSettings& s);
bool lm_train_step(LmModel& m, nn::AdamWState& optim, const LmTrainSettings& s,
                   const LmCorpus& corpus, LmTrainLoop& loop,
                   const std::function<void(const LmTrainRow&)>& on_row,
                   const std::function<void(int64_t, double)>& on_step = {});

// Trains from optim.step up to settings.steps. on_row is called every log_every steps and
// after the last one; on_step(step, bits/byte of that step's batch) after each step. Returns false
// when `cancel` was set (checked before each step; the weights are those of the last completed
// step).
bool lm_train(LmModel& m, nn::AdamWState& optim, const LmTrainSettings& s, const LmCorpus& corpus,
              const std::atomic<bool>* cancel, const std::function<void(const LmTrainRow&)>& on_row,
              const std::function<void(int64_t, double)>& on_step = {});

}  // namespace poslab::lm
