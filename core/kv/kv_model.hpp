// A small decoder-only transformer that really computes, for the KV-cache lab: seeded
// random weights, pre-LayerNorm blocks (multi-head attention + GELU MLP), and either a
// learned absolute position table added to the token embeddings (GPT-2, UniZero) or RoPE
// on Q and K (either layout). Two forward passes: full recomputation (the ground truth)
// and cached decoding of new tokens against a KvCache.
//
// Shapes: T = new tokens, S = cache slots, W = model width, H = heads, D = W/H head dim,
//         V = vocab, C = learned table rows. Activations are (T, W), one row per token;
//         weights multiply from the right: q = h * wq + bq with wq (W, W).
#pragma once
#include <Eigen/Dense>
#include <vector>

#include "core/common/param_range.hpp"
#include "core/rope/rope.hpp"

namespace poslab {

struct KvCache;  // kv_cache.hpp

enum class KvPositions { learned, rope };

struct KvModelParams {
  int layers = 2;  // transformer blocks, [1, 4]
  int width = 64;  // W: model width, [8, 256]; W/heads even
  int heads = 4;   // H: attention heads, [1, 16]; divides W
  int vocab = 32;  // V: token ids 0..V-1, [4, 1024]
  KvPositions positions = KvPositions::learned;
  int context = 10;             // C: learned table rows = window in tokens, [4, 512], even
  bool layer_norm = true;       // pre-LayerNorm in every block (off: K, V linear in P at layer 0)
  double position_std = 0.5;    // std of learned position-table entries (tokens have 1), [0, 10]
  double attention_gain = 1.5;  // multiplies W_q, W_k at init: sharper attention, [0.1, 10]
  RopeParams rope{.head_dim = 16,
                  .factor = 16.0,
                  .original_context = 64};  // RoPE of each
                                            // head: base, layout, scaling, factor s, L (RopeParams
                                            // ranges); head_dim is W / H, set by kv_rope_params
  int seed = 1;                             // weights and token streams, [0, 2^31 - 1]

  bool operator==(const KvModelParams&) const = default;

  static constexpr ParamRange layers_range{1, 4};
  static constexpr ParamRange width_range{8, 256};
  static constexpr ParamRange heads_range{1, 16};
  static constexpr ParamRange vocab_range{4, 1024};
  static constexpr ParamRange context_range{4, 512};
  static constexpr ParamRange position_std_range{0, 10};
  static constexpr ParamRange attention_gain_range{0.1, 10};
  static constexpr ParamRange seed_range{0, 2147483647};
};

// Throws InputError naming the first bad field (width not divisible by heads, odd context...).
void kv_model_validate(const KvModelParams& p);

// ---- Derived values ------------------------------------------------------------------
int kv_head_dim(const KvModelParams& p);            // D = W / H
RopeParams kv_rope_params(const KvModelParams& p);  // the RoPE of one head (head_dim = D)
// Factor cos/sin carry in this model (YaRN's temperature; 1 for every other scaling).
double kv_rope_table_scale(const KvModelParams& p);

struct KvLayerWeights {
  Eigen::RowVectorXd ln1_gain, ln1_bias;  // (W)
  Eigen::MatrixXd wq, wk, wv, wo;         // (W, W)
  Eigen::RowVectorXd bq, bk, bv, bo;      // (W)
  Eigen::RowVectorXd ln2_gain, ln2_bias;  // (W)
  Eigen::MatrixXd w1;                     // (W, 4W)
  Eigen::RowVectorXd b1;                  // (4W)
  Eigen::MatrixXd w2;                     // (4W, W)
  Eigen::RowVectorXd b2;                  // (W)
};

struct KvModel {
  KvModelParams params;
  RowMatrix token_embedding;              // (V, W), entries N(0, 1)
  RowMatrix position_embedding;           // (C, W) for learned positions, (0, W) for RoPE
  std::vector<KvLayerWeights> layers;     // one per block
  Eigen::RowVectorXd lnf_gain, lnf_bias;  // (W) final LayerNorm
  Eigen::MatrixXd unembed;                // (W, V)
};

// Builds the model with weights drawn from a portable seeded generator (same numbers on
// every machine for the same seed). Validates the parameters first.
KvModel kv_model_make(const KvModelParams& p);

// What one forward pass computed for its T tokens, kept for errors and for drawing.
struct KvTrace {
  std::vector<RowMatrix> layer_out;       // per layer: residual stream after the block, (T, W)
  std::vector<RowMatrix> keys_raw;        // per layer: keys before RoPE, (T, W)
  std::vector<RowMatrix> attention_last;  // per layer: the last token's attention, (H, S + T)
  RowMatrix logits;                       // (T, V)
};

// Full recomputation of `tokens` at `positions` with a causal mask, no cache: the ground
// truth. If cache_out is given it receives the K/V this pass computed (slots at positions).
// Learned positions must be whole numbers in [0, C - 1] (a position past the table has no
// embedding): InputError otherwise.
KvTrace kv_forward_full(const KvModel& m, const std::vector<int>& tokens,
                        const std::vector<double>& positions, KvCache* cache_out = nullptr,
                        bool float32_cache = true);

// Cached decoding: the T new tokens attend to every one of the S cache slots (whatever
// indices they hold) and causally to each other; their K/V are appended to the cache as
// slots computed at `positions`.
KvTrace kv_forward_cached(const KvModel& m, KvCache& cache, const std::vector<int>& tokens,
                          const std::vector<double>& positions);

// RoPE on every head of x (T, W) at the positions, cos/sin carrying the model's table
// scale (as the forward pass does). Identity for learned positions.
RowMatrix kv_rotate_heads(const KvModel& m, const RowMatrix& x,
                          const std::vector<double>& positions);

// ||a - b|| / ||b|| (Frobenius); 0 when both are empty, ||a|| when b is zero.
double kv_relative_error(const RowMatrix& a, const RowMatrix& b);

}  // namespace poslab
