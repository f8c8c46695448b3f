// A model's tensor table and parameter store, shared by every model in PosLab (the world
// model, the language models, and the next one): one row per tensor gives its checkpoint
// name, shape, init role and offset; the layout, the init, the decay mask and the names the
// checkpoint and the PyTorch twins use are all read from it (llm.c keeps one model said once).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::nn {

// How a tensor starts: zeros (biases), ones (LayerNorm gains), N(0, std^2) from the tensor's
// own named stream, or N(0, (0.02/sqrt(2 layers))^2) for projections back into the residual
// stream (GPT-2's scaled init).
enum class Init { zeros, ones, normal, residual_out };

struct TensorInfo {
  std::string name;          // checkpoint tensor name, e.g. "blocks.1.attn.qkv.weight"
  std::vector<int> shape;    // row-major; Linear weights are (out, in)
  size_t offset = 0;         // first element within the allocation
  size_t size = 0;           // product of shape
  Init init = Init::normal;  // init role
  double std = 0.02;         // standard deviation of Init::normal
};

// One allocation carved into named tensors, in the order rows are added.
struct ParamLayout {
  std::vector<TensorInfo> tensors;  // in allocation order
  size_t total = 0;                 // P
  std::string model = "model";      // "world model", "language model": for error text
  const TensorInfo& find(std::string_view name) const;  // throws InputError if unknown
  // The table's rows. linear: "<name>.weight" (out, in) with init `w`, "<name>.bias" (out)
  // zeros; layernorm: "<name>.weight" ones, "<name>.bias" zeros, both (C).
  void add(const std::string& name, std::vector<int> shape, Init init = Init::normal,
           double std = 0.02);
  void linear(const std::string& name, int out, int in, Init w = Init::normal);
  void layernorm(const std::string& weight, const std::string& bias, int C);
};

// Fills params (layout.total) by each row's role; normal rows draw from
// SeededStream(seed, stream_prefix + name, 0), so every tensor has its own stream and adding
// a tensor leaves the others' values as they were.
template <class S>
void param_init(const ParamLayout& layout, S* params, uint64_t seed,
                const std::string& stream_prefix, int layers);

// A copy of params with every 2-D tensor rearranged in panels (layers.hpp's kPanel): a
// Linear's (out, in) weight becomes out / 16 panels (in, 16), then (in, out % 16), at the
// same offset; 1-D tensors as they were. What Weights::Pp points at when decoding
// (linear_forward_p). Embedding tables are 2-D too, so only Linear weights are read from it.
template <class S>
std::vector<S> params_panels(const ParamLayout& layout, const S* params);

// 1 for the elements AdamW decays, 0 elsewhere: the rows whose name `decays` says so.
template <class Pred>
std::vector<uint8_t> param_mask(const ParamLayout& layout, Pred decays) {
  std::vector<uint8_t> mask(layout.total, 0);
  for (const auto& t : layout.tensors)
    if (decays(t))
      for (size_t i = 0; i < t.size; ++i) mask[t.offset + i] = 1;
  return mask;
}

// A model's parameter store: one allocation of params and grads carved by the table, with
// lookup by name. Each model derives from it (LmModelT, WorldModelT), so the store, the
// gradient reset and the named access are written once.
template <class S>
class ParamStore {
 public:
  explicit ParamStore(ParamLayout layout)
      : params(layout.total, S(0)), grads(layout.total, S(0)), layout_(std::move(layout)) {}
  const ParamLayout& layout() const { return layout_; }
  std::vector<S> params;  // (P), layout()
  std::vector<S> grads;   // (P), same layout

  void zero_grad() { std::fill(grads.begin(), grads.end(), S(0)); }
  S* tensor(std::string_view name) { return params.data() + layout_.find(name).offset; }
  const S* tensor(std::string_view name) const { return params.data() + layout_.find(name).offset; }
  // Every tensor by its init role (param_init), streams named stream_prefix + name.
  void init_params(uint64_t seed, const std::string& stream_prefix, int layers) {
    param_init(layout_, params.data(), seed, stream_prefix, layers);
  }

 protected:
  ParamLayout layout_;
};

}  // namespace poslab::nn
