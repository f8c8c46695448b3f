// AdamW with warm-up, global-norm clipping and SWA (see adamw.hpp). The update is one pass
// over the flat buffers; moments stay float like the weights, the norm is summed in double.
#include "core/nn/adamw.hpp"

#include <algorithm>
#include <cmath>

namespace poslab::nn {

void adamw_validate(const AdamWParams& p) {
  require_in_range("lr", p.lr, AdamWParams::lr_range);
  require_in_range("beta1", p.beta1, {0, 0.999999});
  require_in_range("beta2", p.beta2, {0, 0.999999});
  require_in_range("eps", p.eps, {1e-30, 1});
  require_in_range("weight_decay", p.weight_decay, {0, 1});
  require_in_range("warmup_steps", static_cast<double>(p.warmup_steps), AdamWParams::warmup_range);
  require_in_range("clip_norm", p.clip_norm, AdamWParams::clip_range);
  require_in_range("swa_start", static_cast<double>(p.swa_start), {-1, 1e9});
  require_in_range("swa_every", static_cast<double>(p.swa_every), {1, 1e6});
}

AdamWState adamw_init(size_t num_params) {
  AdamWState s;
  s.m.assign(num_params, 0.0f);
  s.v.assign(num_params, 0.0f);
  return s;
}

double adamw_learning_rate(const AdamWParams& p, int64_t step) {
  if (p.warmup_steps <= 0 || step >= p.warmup_steps) return p.lr;
  return p.lr * static_cast<double>(std::max<int64_t>(step, 1)) /
         static_cast<double>(p.warmup_steps);
}

double global_norm(std::span<const float> grads) {
  double s = 0;
  for (float g : grads) s += static_cast<double>(g) * g;
  return std::sqrt(s);
}

AdamWStepInfo adamw_step(const AdamWParams& p, std::span<float> params, std::span<float> grads,
                         AdamWState& state, std::span<const uint8_t> decay_mask) {
  const size_t n = params.size();
  if (grads.size() != n || state.m.size() != n || state.v.size() != n ||
      (!decay_mask.empty() && decay_mask.size() != n))
    throw InputError("adamw_step: parameters, gradients, moments and mask differ in size");
  AdamWStepInfo info;
  info.grad_norm = global_norm(grads);
  if (!std::isfinite(info.grad_norm))
    throw InputError("gradient norm is not finite (training diverged: lower --lr)");
  if (p.clip_norm > 0 && info.grad_norm > p.clip_norm) {
    info.clip_scale = p.clip_norm / (info.grad_norm + 1e-6);
    const float s = static_cast<float>(info.clip_scale);
    for (float& g : grads) g *= s;
  }
  const int64_t t = state.step + 1;
  info.lr = adamw_learning_rate(p, t);
  const double bc1 = 1.0 - std::pow(p.beta1, static_cast<double>(t));
  const double bc2 = 1.0 - std::pow(p.beta2, static_cast<double>(t));
  const float b1 = static_cast<float>(p.beta1), b2 = static_cast<float>(p.beta2);
  const float step_size = static_cast<float>(info.lr / bc1);
  const float inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(bc2));
  const float eps = static_cast<float>(p.eps);
  const float decay = static_cast<float>(info.lr * p.weight_decay);
  float* m = state.m.data();
  float* v = state.v.data();
  for (size_t i = 0; i < n; ++i) {
    const float g = grads[i];
    m[i] = b1 * m[i] + (1.0f - b1) * g;
    v[i] = b2 * v[i] + (1.0f - b2) * g * g;
    if (decay_mask.empty() || decay_mask[i]) params[i] -= decay * params[i];
    params[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bc2 + eps);
  }
  state.step = t;
  if (p.swa_start >= 0 && t >= p.swa_start && (t - p.swa_start) % p.swa_every == 0) {
    if (state.swa.size() != n) {
      state.swa.assign(params.begin(), params.end());
      state.swa_count = 1;
    } else {
      const float w = 1.0f / static_cast<float>(state.swa_count + 1);
      for (size_t i = 0; i < n; ++i) state.swa[i] += (params[i] - state.swa[i]) * w;
      ++state.swa_count;
    }
  }
  return info;
}

}  // namespace poslab::nn
