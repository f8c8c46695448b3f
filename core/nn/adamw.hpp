// AdamW (Loshchilov & Hutter, "Decoupled Weight Decay Regularization") over one flat float
// buffer of parameters, as the world model keeps them: moments in the same layout, linear
// warm-up then a constant learning rate, global-norm gradient clipping, and optional
// stochastic weight averaging (Izmailov et al. 2018) of the weights seen after a start step.
//   P = number of parameters; params, grads, m, v and swa are all (P,)
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/common/param_range.hpp"

namespace poslab::nn {

struct AdamWParams {
  double lr = 1e-3;            // peak learning rate after warm-up, (0, 1]
  double beta1 = 0.9;          // first-moment decay, [0, 1)
  double beta2 = 0.95;         // second-moment decay, [0, 1)
  double eps = 1e-8;           // added to sqrt(v_hat), (0, 1]
  double weight_decay = 0.01;  // decoupled decay per unit lr (only where decay_mask = 1), [0, 1]
  int64_t warmup_steps = 100;  // lr rises linearly from lr/warmup to lr over these steps, [0, 1e9]
  double clip_norm = 1.0;      // global gradient-norm limit; 0 = no clipping, [0, 1e6]
  int64_t swa_start = -1;      // step from which weights are averaged; -1 = no SWA, [-1, 1e9]
  int64_t swa_every = 10;      // average every this many steps once started, [1, 1e6]

  static constexpr ParamRange lr_range{1e-12, 1};
  static constexpr ParamRange warmup_range{0, 1e9};
  static constexpr ParamRange clip_range{0, 1e6};
};

// Throws InputError naming the first bad field.
void adamw_validate(const AdamWParams& p);

// Everything the optimiser carries between steps (saved in checkpoints for resuming).
struct AdamWState {
  int64_t step = 0;        // steps taken so far (the next step is step + 1)
  std::vector<float> m;    // (P,) first moment
  std::vector<float> v;    // (P,) second moment
  std::vector<float> swa;  // (P,) running average of weights; empty until SWA starts
  int64_t swa_count = 0;   // weight snapshots averaged into swa
};

AdamWState adamw_init(size_t num_params);

// Learning rate of step `step` (1-based): lr * min(1, step / warmup_steps).
double adamw_learning_rate(const AdamWParams& p, int64_t step);

// sqrt(sum g^2), accumulated in double.
double global_norm(std::span<const float> grads);

// What one step did (for logs).
struct AdamWStepInfo {
  double lr = 0;          // learning rate used
  double grad_norm = 0;   // global norm before clipping
  double clip_scale = 1;  // factor the gradients were multiplied by (1 = not clipped)
};

// One AdamW step: clips `grads` in place to clip_norm (scale = clip / (norm + 1e-6), as
// PyTorch's clip_grad_norm_), updates the moments, then per parameter i
//   p_i <- p_i * (1 - lr * wd * decay_mask_i) - lr * m_hat_i / (sqrt(v_hat_i) + eps)
// with bias-corrected m_hat = m / (1 - beta1^t), v_hat = v / (1 - beta2^t). decay_mask may be
// empty (decay everything). Updates the SWA average when due. A non-finite gradient norm
// throws InputError and leaves params and state untouched.
AdamWStepInfo adamw_step(const AdamWParams& p, std::span<float> params, std::span<float> grads,
                         AdamWState& state, std::span<const uint8_t> decay_mask = {});

}  // namespace poslab::nn
