// Budgets of the language-model computations (issue 36): every forward a link, a file, a
// panel setting or a command line starts is priced here BEFORE anything is allocated, from
// the shapes alone (memory) and the sizes (work, as multiply-adds turned into seconds on the
// 2-core CI machine). The length lab, its "Train your own", `poslab-cli length` and the
// `lm` commands all ask these functions; past the budget one line says what to change.
//
// Legend as in lm.hpp: B windows, T positions, E width, H heads, D = E/H, N blocks,
// F = 4E, V = 256, M = B*T rows, P parameters. Floats are 4 bytes.
#pragma once
#include <cstdint>
#include <string>

#include "core/common/param_range.hpp"
#include "core/lm/lm.hpp"

namespace poslab::lm {

// What a computation may use. The defaults are the lab's; the CLI raises them with
// --memory-budget-mb and --time-budget-s (a user who means it).
struct LmBudget {
  int64_t memory_bytes = int64_t{1024} << 20;  // peak bytes it may allocate, [64 MB, 1e6 MB]
  double seconds = 120;                        // estimated seconds on 2 cores, [1, 1e6]

  static constexpr ParamRange memory_mb_range{64, 1e6};
  static constexpr ParamRange seconds_range{1, 1e6};
};

// Multiply-adds per second of a forward on the busy shared 2-core machine, used to turn work
// into seconds: `poslab-cli lm eval assets/models/lm_rope.safetensors` (64 windows of 8L,
// priced 1.6e10) took 17 s wall (5 CPU-s) at load average 15 on 27 Nov 2026.
inline constexpr double kLmMacsPerSecond = 1.0e9;

// The price of one computation.
struct LmCost {
  int64_t bytes = 0;  // peak bytes allocated
  double macs = 0;    // multiply-adds
  double seconds() const { return macs / kLmMacsPerSecond; }
  bool fits(const LmBudget& b) const { return bytes <= b.memory_bytes && seconds() <= b.seconds; }
};

// A model of config c (params and grads) running one forward of B windows of T positions,
// and with `training` its backward, the AdamW moments and `threads` attention scratch rows.
LmCost lm_forward_cost(const LmConfig& c, int64_t B, int64_t T, bool training = false,
                       int threads = 1);
// lm_eval_positions(T, windows): batches of min(8, windows) windows, `windows` forwards' work.
LmCost lm_eval_positions_cost(const LmConfig& c, int64_t T, int64_t windows);
// lm_eval_text on n bytes (n - 1 positions, one window).
LmCost lm_eval_text_cost(const LmConfig& c, int64_t n);
// lm_attention on n bytes keeping `maps` (layer, head) maps of n x n.
LmCost lm_attention_cost(const LmConfig& c, int64_t n, int64_t maps);
// One training step of lm_train (batch B at window T, validation batches of
// min(16, valid_windows)), the work of one step.
LmCost lm_train_step_cost(const LmConfig& c, int64_t B, int64_t T, int64_t valid_windows,
                          int threads);

// "1234 MB": bytes in whole megabytes, rounded up.
std::string lm_megabytes(int64_t bytes);
// One line: "<what> needs about 3612 MB and 4 s (budget 1024 MB, 60 s); <change>".
std::string lm_budget_message(const std::string& what, const LmCost& cost, const LmBudget& b,
                              const std::string& change);
// Throws InputError(lm_budget_message(...)) unless cost fits b.
void lm_budget_require(const std::string& what, const LmCost& cost, const LmBudget& b,
                       const std::string& change);
// The budget from the CLI's --memory-budget-mb and --time-budget-s (InputError naming the
// flag when out of range).
LmBudget lm_budget_from_flags(double memory_mb, double seconds);

}  // namespace poslab::lm
