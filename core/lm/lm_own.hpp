// "Train your own" in the length lab (issue 27): the few choices a user makes (encoding,
// steps, context L, seed) and what they expand to: the shipped base models' recipe of
// scripts/train_length_models.sh, so the defaults reproduce a shipped model. The file a run
// writes is named by its choices (steps apart), so starting the same choices again resumes
// it (the learning rate is constant after warm-up, so more steps continue the same run).
#pragma once
#include <cstdint>
#include <string>

#include "core/common/param_range.hpp"
#include "core/lm/lm.hpp"
#include "core/lm/lm_train.hpp"

namespace poslab::lm {

struct LmOwnSpec {
  LmPosition position = LmPosition::rope;  // the encoding trained
  int64_t steps = 1200;                    // optimiser steps (the shipped 1200), [10, 100000]
  int context = 128;                       // L: training length in bytes,
                                           // [16, lm_own_context_range().hi]
  uint64_t seed = 1;                       // initial weights and batches, [0, 1e9]

  bool operator==(const LmOwnSpec&) const = default;

  static constexpr ParamRange steps_range{10, 100000};
  static constexpr ParamRange seed_range{0, 1e9};
};

// L from 16 to the largest multiple of 16 whose training run, and whose curves and views in
// the length lab at its largest span and windows, fit the lab's budget (lm_budget.hpp) for
// every encoding: the panel never offers an L its own budget refuses.
ParamRange lm_own_context_range();
// Throws InputError naming the first bad field.
void lm_own_validate(const LmOwnSpec& s);
// E 64, H 4, N 2 and the spec's encoding and L (the shipped base models' size).
LmConfig lm_own_config(const LmOwnSpec& s);
// Batch 16, lr 2e-3 with 100 warm-up steps, a curve row every 100 steps with 32 validation
// windows, two threads (the shipped base models' run), and the spec's steps and seed.
LmTrainSettings lm_own_settings(const LmOwnSpec& s);
// "lm_own_rope_L128_seed1": the stem of the run's file in the user's models folder.
std::string lm_own_stem(const LmOwnSpec& s);
// Prefix every own model's file name starts with ("lm_own_").
inline constexpr const char* kLmOwnPrefix = "lm_own_";
// The `poslab-cli lm train` command line that runs the same training into `output`.
std::string lm_own_command(const LmOwnSpec& s, const std::string& output);

}  // namespace poslab::lm
