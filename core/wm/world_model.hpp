// The Boost and Broadside world model (spec section 9; exact math in docs/world-model.md):
// interleaved S/A tokens of 8 ships, alternating temporal (causal, RoPE or learned absolute
// positions) and spatial (alive-masked, relational bias) blocks, action/state/relational
// heads and the masked loss. Forward and backward written by hand over one parameter
// allocation; templated on the scalar so gradient checks run the same code in double.
//
// Legend: B = windows, T = steps, N = 8 slots, E = width, H = heads, D = E/H, L = blocks,
//         C = context steps, P = parameter count. Token (b, t, s, n) with s = 0 (S_t) or
//         1 (A_t) lives at row ((b*T + t)*2 + s)*N + n of every (B*T*2*N, .) activation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/bnb/bnb_features.hpp"
#include "core/common/param_range.hpp"
#include "core/nn/param_table.hpp"

namespace poslab::wm {

inline constexpr int kShips = 8;        // N
using bnb::kRelDim;                     // relational features per ordered pair (section 6)
using bnb::kTokenDim;                   // state values per ship (spec section 5)
inline constexpr int kContinuous = 12;  // continuous state values fed to the Fourier encoder
inline constexpr int kFourierK = 4;     // dyadic frequencies k = 0..3
inline constexpr int kStateFeatures = kContinuous * (1 + 2 * kFourierK);  // F = 108
inline constexpr int kActionLogits = 12;                                  // 3 + 7 + 2
// Action logits per ship: [power 3 | turn 7 | shoot 2]; head h is the logits
// kActionHeadStart[h] .. kActionHeadStart[h] + kActionHeadSize[h] - 1.
inline constexpr int kActionHeadStart[3] = {0, 3, 10};
inline constexpr int kActionHeadSize[3] = {3, 7, 2};
inline constexpr int kRelRank = 8;  // R
inline constexpr int kRelBiasHidden = 64;
// Token indices of the 12 continuous values, in feature order (docs section 3).
inline constexpr int kContinuousIndex[kContinuous] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14};
// Loss weights (spec section 9).
inline constexpr double kActionWeight = 0.05;
inline constexpr double kRelWeight = 0.1;
inline constexpr float kLayerNormEps = 1e-5f;

enum class WmPosition { rope, absolute };

// What the state head's output is added to (docs section 5): the current state S_t ("last",
// the original model) or its constant-velocity extrapolation one agent step ahead ("cv":
// alive ships' sin/cos of x and y advanced by v·dt on the torus, everything else copied).
// Either way the base is data (no gradient) and the loss is MSE on S_{t+1}.
enum class WmStateBase { last, cv };

// How the state loss measures an error (docs section 6): "raw" in token units (the original
// model), "sigma" in units of state_scale, ((ŝ − s)/σ)², so every value's term is about 1
// for a head that predicts no change and the head's gradient does not shrink with σ²
// (without a state_scale σ = 1 and both are the same).
enum class WmStateLoss { raw, sigma };

// Everything that fixes the model's shape. Block l is temporal when l is even.
struct WmConfig {
  int embed = 64;                          // E: token width, multiple of 4*heads, [8, 1024]
  int heads = 4;                           // H: attention heads, E/H even, [1, 64]
  int layers = 4;                          // L: blocks (temporal, spatial, ...), [1, 64]
  int context = 32;                        // C: steps of learned positions / dream cache, [1, 4096]
  WmPosition position = WmPosition::rope;  // temporal position variant
  double rope_base = 10000.0;              // b: RoPE base, (1, 1e9]
  // State head: ŝ_{t+1} = base(S_t) + state_scale ⊙ head(A_t). Empty state_scale means 1
  // for all 15 values (the original model); otherwise 15 finite values in [1e-6, 1e3], the
  // RMS of the one-step residual in the training data (wm_state_scale, core/wm/data.hpp).
  std::vector<float> state_scale;
  WmStateBase state_base = WmStateBase::last;
  WmStateLoss state_loss = WmStateLoss::raw;

  bool operator==(const WmConfig&) const = default;

  static constexpr ParamRange embed_range{8, 1024};
  static constexpr ParamRange heads_range{1, 64};
  static constexpr ParamRange layers_range{1, 64};
  static constexpr ParamRange context_range{1, 4096};
  static constexpr ParamRange rope_base_range{1.000001, 1e9};
  // Budgets a config may not pass, whatever its fields (a file can claim any config, and
  // the model is allocated from it): far above the paper model (about 1.3 M parameters and a
  // 2.4 M-float cache), far below the memory of the machines PosLab runs on.
  static constexpr size_t max_params = 16'000'000;        // P: 64 MB of weights, 4x that
                                                          // with the optimiser state
  static constexpr size_t max_cache_floats = 64'000'000;  // wm_dream_cache_floats: 256 MB
};

// "tiny" (E 64, 4 heads, 4 layers, C 32) or "paper" (E 128, 4 heads, 6 layers, C 96).
WmConfig wm_preset(std::string_view name, WmPosition position = WmPosition::rope);
// Throws InputError naming the first bad field.
void wm_validate(const WmConfig& c);
const char* wm_position_name(WmPosition p);               // "rope" / "absolute"
WmPosition wm_position_from_name(std::string_view s);     // throws InputError
const char* wm_state_base_name(WmStateBase b);            // "last" / "cv"
WmStateBase wm_state_base_from_name(std::string_view s);  // throws InputError
const char* wm_state_loss_name(WmStateLoss l);            // "raw" / "sigma"
WmStateLoss wm_state_loss_from_name(std::string_view s);  // throws InputError
// The residual base of the state head for one step: (N, 15) state -> (N, 15).
void wm_state_base(WmStateBase b, const float* state, float* out);

// ---- Derived sizes (functions, never stored) -----------------------------------------
inline int wm_head_dim(const WmConfig& c) {
  return c.embed / c.heads;
}  // D
inline int wm_action_embed(const WmConfig& c) {
  return c.embed / 4;
}  // Ea
inline bool wm_is_temporal(int layer) {
  return layer % 2 == 0;
}

// ---- Parameter layout: one allocation carved into named tensors ---------------------
// The tensor table is core/nn's (param_table.hpp); the world model's rows are in
// world_model.cpp's param_layout_of, in allocation order (docs section 7).
using nn::ParamLayout;
using nn::TensorInfo;
ParamLayout wm_param_layout(const WmConfig& c);
size_t wm_param_count(const WmConfig& c);
// Rows per ship of a dream's cache in one temporal block, in units of the context C: the
// window's 2C tokens (S and A of each step) and 2C rows of room to slide forward into
// before they are moved back (core/wm/wm_decode).
inline constexpr int kDreamCacheRows = 4;
// Floats of a dream's key/value caches: every temporal block keeps K and V of N ships,
// (N, 4C, E) each (wm_dream_cache_block_floats).
size_t wm_dream_cache_floats(const WmConfig& c);
size_t wm_dream_cache_block_floats(const WmConfig& c);  // K (or V) of one temporal block

// ---- Batch ----------------------------------------------------------------------------
// Windows of T steps. present/alive are derived from the tokens (docs section 2).
struct WmBatch {
  int batch = 0;                 // B, >= 1
  int steps = 0;                 // T, >= 1 (<= C for the absolute variant)
  std::vector<float> tokens;     // (B, T, N, 15)
  std::vector<uint8_t> actions;  // (B, T, N, 3): power 0..2, turn 0..6, shoot 0..1
  std::vector<uint8_t> valid;    // (B, T): 1 real step, 0 padding (padding only at the end)
};
// Throws InputError on wrong sizes, out-of-range actions or a non-prefix valid row.
void wm_check_batch(const WmConfig& c, const WmBatch& b);

// Loss and its parts (docs section 6); counts are the masked element counts.
struct WmLoss {
  double total = 0;          // state + 0.05 (power + turn + shoot) + 0.1 rel
  double state = 0;          // MSE over 15 values
  double power = 0;          // cross-entropy, nats
  double turn = 0;           // cross-entropy, nats
  double shoot = 0;          // cross-entropy, nats
  double rel = 0;            // MSE over 12 features
  int64_t state_count = 0;   // (b, t, n) terms in MSE_state
  int64_t action_count = 0;  // (b, t, n) terms in each CE
  int64_t rel_count = 0;     // (b, t, i, j) terms in MSE_rel
};

// ---- The model ------------------------------------------------------------------------
// Usage (training): zero_grad(); WmLoss l = forward(batch); backward(); step on params/grads.
// forward keeps every activation backward needs; backward ADDS into grads.
// params, grads (P, layout()), tensor(name), zero_grad(): the shared store (nn::ParamStore).
template <class S>
class WorldModelT : public nn::ParamStore<S> {
 public:
  explicit WorldModelT(const WmConfig& c);  // validates; params zero until init()
  ~WorldModelT();
  WorldModelT(WorldModelT&&) noexcept;
  WorldModelT& operator=(WorldModelT&&) noexcept;

  const WmConfig& config() const { return config_; }

  void init(uint64_t seed);  // docs section 8

  // Threads for forward/backward (0 = std::thread::hardware_concurrency()). Results do
  // not depend on it beyond float rounding.
  void set_threads(int n);
  int threads() const;

  WmLoss forward(const WmBatch& batch);
  void backward();  // gradient of the last forward's loss.total, added into grads

  // The same passes in bounded stages (the inputs, each half block, the heads), for a
  // caller that spreads one training step over frames: forward_begin(b) then
  // forward_step() until it returns false computes forward(b) bit for bit (the same code
  // in the same order; loss() then holds its loss), and backward_begin() then
  // backward_step() until false computes backward(). params must not change in between.
  void forward_begin(const WmBatch& batch);  // checks and takes the batch; computes nothing
  bool forward_step();                       // runs the next stage; false after the last
  void backward_begin();                     // throws without a complete forward
  bool backward_step();                      // runs the next stage; false after the last
  const WmLoss& loss() const;                // of the last complete forward
  int pass_stages() const { return 2 * config_.layers + 2; }  // stages of each pass

  // Outputs of the last forward.
  const S* action_logits() const;  // (B, T, N, 12) from S_t
  const S* state_pred() const;     // (B, T, N, 15) prediction of S_{t+1} from A_t
  const S* rel_pred() const;       // (B, T, N, N, 12) prediction of rel_{t+1}(i, j) from A_t

  struct Impl;  // activations and workspaces (core/wm/world_model.cpp)

 private:
  WmConfig config_;
  std::unique_ptr<Impl> impl_;
};
using WorldModel = WorldModelT<float>;

}  // namespace poslab::wm
