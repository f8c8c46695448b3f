// The length lab's byte-level language models (issue 27): a decoder-only transformer over
// UTF-8 bytes (vocabulary 256) whose one config field picks the position encoding. Forward
// and backward are written by hand over one parameter allocation (like core/wm), templated
// on the scalar so the gradient checks run the same code in double. docs/length-lab.md
// states the same architecture for readers; tools/torch mirrors it tensor by tensor.
//
// Legend: B = windows, T = predicted positions per window (the window holds T + 1 bytes),
//         V = 256 bytes, E = width, H = heads, D = E/H, N = blocks, L = training context,
//         F = 4E MLP width, K = T5 buckets, P = parameter count. Position t of window b lives
//         at row b*T + t of every (B*T, .) activation.
//
// ---- The math (fixed: the checkpoints and the PyTorch twin rely on it) -----------------
// A window is T + 1 bytes x_0..x_T; the model reads x_0..x_{T-1} and predicts x_1..x_T.
//   h_t = tok_emb[x_t]                                                      (B*T, E)
//         (sinusoidal_scaled: tok_emb[x_t] * sqrt(E), as Vaswani et al. scale the embedding
//         before adding the sinusoids; the tied output head reads tok_emb unscaled)
//       + sinusoidal(t)        sinusoidal, sinusoidal_scaled: core/attention
//                              sinusoidal_encoding(t, E, 10000, interleaved) = [sin w0 t,
//                              cos w0 t, sin w1 t, ...], w_i = 10000^(-2i/E); fixed, not learned
//       + pos_emb[min(t, L-1)] learned: past its last row the table CLAMPS to row L-1 (never
//                              wraps); lm_learned_row says which row a position reads
//   N pre-LN blocks i = 0..N-1:
//     a   = LN1(h)                                    blocks.i.ln1.{weight,bias} (E)
//     qkv = a · Wqkvᵀ + bqkv                          blocks.i.attn.qkv.weight (3E, E): rows
//                                                     q | k | v, head h at rows h*D.. of each
//     rope: q and k of every head rotated by +angle(t), half-split layout, every dim
//           (pairs (j, j + D/2)), nn::rope_forward with cos/sin tables from core/rope
//           (lm_rope_params + rope_inv_freq; the tables are multiplied by rope_attention_scale,
//           so YaRN's logits scale by its square, as HF does). Dynamic NTK is per prefix: row
//           t's q and k use the base of a sequence of t + 1 bytes (lm_rope_params(c, s, t+1)),
//           as a KV-cached decoder that rescales as the text grows (docs/length-lab.md)
//     score(t, s, h) = q_t·k_s / sqrt(D) + bias(t, s, h), causal (s <= t), softmax over s
//       alibi: bias = -m_h (t - s), m_h = core/attention alibi_slopes(H)[h]
//       t5:    bias = t5_bias.weight[t5_bucket(s - t, unidirectional, K, t5_max_distance), h]
//              ONE (K, H) table shared by all blocks (as T5 does)
//       other: bias = 0
//     h  += attn · Wprojᵀ + bproj                     blocks.i.attn.proj.{weight (E, E), bias}
//     h  += fc2(GELU(fc1(LN2(h))))                    blocks.i.ln2.{weight,bias} (E),
//                                                     blocks.i.mlp.fc.{weight (F, E), bias (F)},
//                                                     blocks.i.mlp.proj.{weight (E, F), bias}
//   logits = LN_f(h) · tok_embᵀ                       ln_f.{weight,bias} (E); weight-tied, no
//                                                     bias; (B*T, V)
//   loss   = mean over the B*T predicted positions of -ln softmax(logits)[x_{t+1}] (nats);
//            bits per byte = nats / ln 2.
// LayerNorm eps 1e-5 (biased variance); GELU tanh form (core/nn). Linear weights are (out,
// in) like torch.nn.Linear.
//
// Tensor order in the allocation (= checkpoint order): tok_emb.weight (V, E); pos_emb.weight
// (L, E) [learned only]; t5_bias.weight (K, H) [t5 only]; per block i: ln1.weight, ln1.bias,
// attn.qkv.weight, attn.qkv.bias, attn.proj.weight, attn.proj.bias, ln2.weight, ln2.bias,
// mlp.fc.weight, mlp.fc.bias, mlp.proj.weight, mlp.proj.bias; ln_f.weight, ln_f.bias.
//
// Init (GPT-2-like, seeded per tensor through core/common/random's SeededStream(seed,
// "lm:" + tensor name, element)): tok_emb, qkv, fc ~ N(0, 0.02²); attn.proj and mlp.proj ~
// N(0, (0.02/sqrt(2N))²); pos_emb ~ N(0, 0.01²); t5_bias, every bias 0; LayerNorm weights 1.
// Weight decay (lm_decay_mask) applies to the 2-D weights of Linear layers and tok_emb only.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/param_range.hpp"
#include "core/nn/param_table.hpp"
#include "core/rope/rope.hpp"

namespace poslab::lm {

inline constexpr int kVocab = 256;  // V: one entry per byte value
inline constexpr float kLayerNormEps = 1e-5f;

// sinusoidal_scaled: the sinusoids added to tok_emb * sqrt(E) (Vaswani et al. 2017, 3.4);
// appended last, so the names of older checkpoints keep their meaning.
enum class LmPosition { none, sinusoidal, learned, rope, alibi, t5, sinusoidal_scaled };

using nn::ParamLayout;
using nn::TensorInfo;

// Everything that fixes the model's shape.
struct LmConfig {
  int embed = 64;                          // E: width, multiple of heads with E/H even, [8, 1024]
  int heads = 4;                           // H: attention heads, [1, 64]
  int layers = 2;                          // N: blocks, [1, 32]
  int context = 128;                       // L: training length in bytes (learned table rows),
                                           // [2, 65536]
  LmPosition position = LmPosition::rope;  // the position encoding
  double rope_base = 10000.0;              // b: RoPE base (rope only), (1, 1e9]
  int t5_buckets = 32;                     // K: T5 buckets, even, [4, 256] (t5 only)
  int t5_max_distance = 128;               // T5 max_distance in bytes, > K/2, [3, 1e6] (t5 only)

  bool operator==(const LmConfig&) const = default;

  static constexpr ParamRange embed_range{8, 1024};
  static constexpr ParamRange heads_range{1, 64};
  static constexpr ParamRange layers_range{1, 32};
  static constexpr ParamRange context_range{2, 65536};
  static constexpr ParamRange rope_base_range{1.000001, 1e9};
  static constexpr ParamRange t5_buckets_range{4, 256};
  static constexpr ParamRange t5_max_distance_range{3, 1e6};
  // A file can claim any config and the model is allocated from it: 16 M parameters is far
  // above the shipped models (about 0.1 M) and far below the machines PosLab runs on.
  static constexpr size_t max_params = 16'000'000;
};

// Throws InputError naming the first bad field.
void lm_validate(const LmConfig& c);
const char* lm_position_name(LmPosition p);            // "none", "sinusoidal", "learned", ...
LmPosition lm_position_from_name(std::string_view s);  // throws InputError
const std::vector<std::string>& lm_position_names();   // in enum order

// ---- Derived sizes (functions, never stored) -----------------------------------------
inline int lm_head_dim(const LmConfig& c) {
  return c.embed / c.heads;
}  // D
inline int lm_mlp_dim(const LmConfig& c) {
  return 4 * c.embed;
}  // F
// The pos_emb row a position reads (learned only): min(t, L-1), the clamp past L.
inline int lm_learned_row(const LmConfig& c, int64_t t) {
  return t < c.context ? static_cast<int>(t) : c.context - 1;
}

ParamLayout lm_param_layout(const LmConfig& c);
size_t lm_param_count(const LmConfig& c);
// (P): 1 where AdamW's weight decay applies (Linear weights and tok_emb), else 0.
std::vector<uint8_t> lm_decay_mask(const LmConfig& c);

// ---- RoPE scaling at inference or fine-tuning (not part of LmConfig) --------------------
// Every formula lives in core/rope; this only says which one and by how much.
struct LmScaling {
  RopeScaling scaling = RopeScaling::none;  // none, linear (PI), ntk, dynamic, yarn, llama3
  double factor = 4.0;                      // s, [1, 1024] (ignored by none)

  bool operator==(const LmScaling&) const = default;
  static constexpr ParamRange factor_range = RopeParams::factor_range;
};
// The RopeParams of the model's tables for a sequence of `window` positions: head_dim D,
// base, half_split, the scaling and factor, original_context L, current_length = window
// (dynamic NTK; the model passes t + 1 for row t, so each position gets its prefix's base).
// Throws InputError for a bad factor.
RopeParams lm_rope_params(const LmConfig& c, const LmScaling& s, int window);
// Row t of the RoPE tables: cs[i] = ms cos(t inv[i]), sn[i] = ms sin(t inv[i]) for the D/2
// frequencies inv (rope_inv_freq) and attention scale ms (rope_attention_scale, or 1). The
// model's tables and the KV cache's rotations (lm_cache) are made of these rows.
template <class S>
void lm_rope_row(const Eigen::VectorXd& inv, double ms, int64_t t, S* cs, S* sn) {
  for (Eigen::Index i = 0; i < inv.size(); ++i) {
    const double a = static_cast<double>(t) * inv[i];
    cs[i] = static_cast<S>(ms * std::cos(a));
    sn[i] = static_cast<S>(ms * std::sin(a));
  }
}
// "none" or e.g. "yarn x4".
std::string lm_scaling_label(const LmScaling& s);

// ---- The model ------------------------------------------------------------------------
// Usage (training): zero_grad(); double nats = forward(bytes, B, T); backward(); step.
// forward keeps every activation backward needs; backward ADDS into grads.
// params, grads (P, layout()), tensor(name), zero_grad(): the shared store (nn::ParamStore).
template <class S>
class LmModelT : public nn::ParamStore<S> {
 public:
  explicit LmModelT(const LmConfig& c);  // validates; params zero until init()
  ~LmModelT();
  LmModelT(LmModelT&&) noexcept;
  LmModelT& operator=(LmModelT&&) noexcept;

  const LmConfig& config() const { return config_; }

  void init(uint64_t seed);  // see "Init" above

  // Threads over the windows of a batch (0 = all cores). Results do not depend on it
  // beyond float rounding.
  void set_threads(int n);
  int threads() const;

  // RoPE scaling used by the following forwards (rope models only; others ignore it).
  void set_scaling(const LmScaling& s);
  const LmScaling& scaling() const;

  // bytes: (B, T + 1), window b at bytes[b*(T+1)..]. Returns the mean loss in nats over the
  // B*T predicted positions. T may exceed L (learned: clamped rows). Throws InputError for
  // B < 1 or T < 1.
  double forward(const uint8_t* bytes, int B, int T);
  void backward();  // gradient of the last forward's mean loss, added into grads

  // Outputs of the last forward.
  int batch() const;                // B
  int steps() const;                // T
  const S* logits() const;          // (B, T, V)
  const S* losses() const;          // (B, T): nats of each predicted byte
  const S* probs(int layer) const;  // (B, H, T, T): attention of block `layer`, row t sums
                                    // to 1 over s <= t, 0 above the diagonal

  struct Impl;  // activations and workspaces (core/lm/lm.cpp)

 private:
  LmConfig config_;
  std::unique_ptr<Impl> impl_;
};
using LmModel = LmModelT<float>;

}  // namespace poslab::lm
