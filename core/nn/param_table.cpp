// The shared tensor table (core/nn/param_table.hpp): rows, lookup, init by role.
#include "core/nn/param_table.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"
#include "core/nn/layers.hpp"

namespace poslab::nn {

const TensorInfo& ParamLayout::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return t;
  throw InputError(model + " has no tensor '" + std::string(name) + "'");
}

void ParamLayout::add(const std::string& name, std::vector<int> shape, Init init, double std) {
  TensorInfo t;
  t.name = name;
  t.shape = std::move(shape);
  t.size = 1;
  for (int d : t.shape) t.size *= static_cast<size_t>(d);
  t.offset = total;
  t.init = init;
  t.std = std;
  total += t.size;
  tensors.push_back(std::move(t));
}

void ParamLayout::linear(const std::string& name, int out, int in, Init w) {
  add(name + ".weight", {out, in}, w);
  add(name + ".bias", {out}, Init::zeros);
}

void ParamLayout::layernorm(const std::string& weight, const std::string& bias, int C) {
  add(weight, {C}, Init::ones);
  add(bias, {C}, Init::zeros);
}

template <class S>
void param_init(const ParamLayout& layout, S* params, uint64_t seed,
                const std::string& stream_prefix, int layers) {
  const double out_std = 0.02 / std::sqrt(2.0 * layers);
  for (const auto& t : layout.tensors) {
    S* p = params + t.offset;
    if (t.init == Init::zeros) {
      std::fill(p, p + t.size, S(0));
    } else if (t.init == Init::ones) {
      std::fill(p, p + t.size, S(1));
    } else {
      const double sd = t.init == Init::residual_out ? out_std : t.std;
      SeededStream rng(seed, stream_prefix + t.name, 0);
      for (size_t i = 0; i < t.size; ++i) p[i] = static_cast<S>(sd * rng.normal());
    }
  }
}

template <class S>
std::vector<S> params_panels(const ParamLayout& layout, const S* params) {
  std::vector<S> t(params, params + layout.total);
  for (const auto& x : layout.tensors) {
    if (x.shape.size() != 2) continue;
    const size_t O = static_cast<size_t>(x.shape[0]), I = static_cast<size_t>(x.shape[1]);
    const size_t P = kPanel, full = O / P * P, tail = O - full;
    S* dst = t.data() + x.offset;
    const S* w = params + x.offset;  // (O, I)
    for (size_t o = 0; o < full; ++o)
      for (size_t i = 0; i < I; ++i) dst[(o / P) * I * P + i * P + o % P] = w[o * I + i];
    for (size_t o = full; o < O; ++o)
      for (size_t i = 0; i < I; ++i) dst[full * I + i * tail + (o - full)] = w[o * I + i];
  }
  return t;
}

template void param_init<float>(const ParamLayout&, float*, uint64_t, const std::string&, int);
template void param_init<double>(const ParamLayout&, double*, uint64_t, const std::string&, int);
template std::vector<float> params_panels<float>(const ParamLayout&, const float*);
template std::vector<double> params_panels<double>(const ParamLayout&, const double*);

}  // namespace poslab::nn
