// Incremental decoding for dreams: a preallocated per-layer temporal KV cache, one dream
// step at a time (append S_t of all 8 ships, choose actions, append A_t, predict S_{t+1}),
// and what the dream lab draws (attention weights, the relational bias, each cached key's
// stored position versus the one it is used with).
//
// Legend: N = 8 ships, E = width, H = heads, C = context steps, Lt = temporal blocks,
//         Ls = spatial blocks, K = cached tokens per ship (2 per step, at most 2C).
// Cache layout per temporal block: keys and values (N, 2C, E), ship n's token k at row
// n*2C + k; RoPE keys are stored rotated at their stored position.
//
// Correctness rule (defect 3): a new token is appended after the K cached ones and sees
// all of them and itself; the causal mask is offset by the cached length, never aligned
// to the oldest key.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/wm/world_model.hpp"

namespace poslab::wm {

// What happens when a step arrives and the cache already holds C steps: the window modes
// past the context, one vocabulary for the decoder, `wm dream|eval --window` and the lab.
//
//   cached steps  t-C .. t-1 stored at     0 1 | 2 3 | ... | 2C-2 2C-1
//   drop t-C, the rest are used at         0 1 | ... | 2C-4 2C-5, new step t at 2C-2 2C-1
//   recompute  re-runs the kept steps at their new indices            (exact)
//   patch      K += W_k·(P[used] - P[stored]), V += W_v·(...) per block (UniZero's correction)
//   slide      keeps K/V as stored                                      (naive reuse)
//
// With RoPE, slide keeps every relative distance right (positions keep counting), so it is
// exact for a model with one temporal block and close with more (deeper cached keys still
// carry context that has left the window); patch is the same as slide there (no position
// rows to patch). With learned absolute positions, slide is the naive reuse of lesson 8, and
// patch is approximate in THIS architecture: the position row is added before block 0's
// pre-LayerNorm, so even the first block's keys are not linear in it (the patch would be
// exact only for a key computed linearly from x + P), and deeper blocks see P through
// attention as well.
enum class WmOverflow {
  slide,      // drop the oldest step, keep every cached key and value as stored
  recompute,  // drop the oldest step, recompute the remaining C-1 steps from their inputs
              // with positions reset to 0 (exact for the window)
  patch,      // drop the oldest step, patch each cached key/value by its block's projection
              // of P[used] - P[stored] (absolute positions; RoPE: as slide)
};
const char* wm_overflow_name(WmOverflow o);  // "slide" / "recompute" / "patch"
// Also reads the older names: "approximate", "naive" and "reset" mean slide.
WmOverflow wm_overflow_from_name(std::string_view s);  // throws InputError

// How a dream step picks each ship's action.
struct WmActionChoice {
  std::array<std::optional<std::array<uint8_t, 3>>, kShips> override_action;  // a human or a
                                                                              // script at the helm
  bool sample = false;       // false: argmax of the policy head; true: sample
  double temperature = 1.0;  // softmax temperature when sampling, (0, 100]
  uint64_t seed = 0;         // sampling stream: (seed, "wm/dream", step), portable
};

// The one action sampler of every dream: the action of head h (its `size` logits) for ship
// n at dream step t. Argmax unless `sample`; sampling is a softmax at `temperature` (in
// (0, 100], else InputError) drawn by inverse CDF with one uniform of the stream
// (seed, "wm/dream", (t * N + n) * 3 + h), so a draw does not depend on any other.
int wm_pick_action(const float* logits, int size, bool sample, double temperature, uint64_t seed,
                   int t, int n, int h);

// Everything one step produced.
struct WmStepResult {
  int step = 0;                      // dream step index t (0 = first step fed)
  std::vector<float> action_logits;  // (N, 12) from S_t
  std::vector<uint8_t> actions;      // (N, 3) the actions used for A_t
  std::vector<float> state_pred;     // (N, 15) raw prediction of S_{t+1}
  std::vector<float> next_state;     // (N, 15) S_{t+1} to feed back: binaries snapped
                                     // to 0/1, absent ships kept all zero
  std::vector<float> rel_pred;       // (N, N, 12) prediction of rel_{t+1}
  // For drawing. Temporal: per temporal block, for the S and the A token of each ship,
  // the weights over that ship's cached tokens (the last one is itself).
  int cached_tokens = 0;              // K after this step (per ship)
  std::vector<float> temporal_probs;  // (Lt, 2, N, H, K); K = cached_tokens
  // Spatial: per spatial block, S and A slot, the weights (dead/absent keys are 0), and the
  // relational bias added to the scores (the same for S and A).
  std::vector<float> spatial_probs;  // (Ls, 2, H, N, N) query i, key j
  std::vector<float> spatial_bias;   // (Ls, N, N, H)
};

// One cached token's indices (the same for every ship and block).
struct WmCachedIndex {
  int step = 0;        // dream step it belongs to
  int slot = 0;        // 0 = S, 1 = A
  int stored_pos = 0;  // position its key/value were computed with
  int used_pos = 0;    // position it stands at now (RoPE: = stored; absolute: its index
                       // in the window, 2*(steps before it in the cache) + slot)
};

class WmDreamer {
 public:
  // The model's parameters are copied (float); the dreamer owns its cache (preallocated).
  WmDreamer(const WorldModel& model, WmOverflow overflow = WmOverflow::slide);
  const WmConfig& config() const { return config_; }
  WmOverflow overflow() const { return overflow_; }

  void reset();                                      // empty cache, step 0
  int steps_cached() const;                          // steps in the cache, <= C
  int next_step() const;                             // index t the next step gets
  std::vector<WmCachedIndex> cache_indices() const;  // oldest first, 2 per step

  // One step from the states S_t (N, 15). Actions: overrides where given, else the policy.
  WmStepResult step(const float* state, const WmActionChoice& choice = {});
  // Teacher forcing: the step with every ship's action given (actions (N, 3)).
  WmStepResult step_with_actions(const float* state, const uint8_t* actions);
  // The cached key / value (E floats) of ship n's k-th cached token in block `layer` (a
  // temporal block; k < 2 * steps_cached()): for tests that check the window modes.
  std::vector<float> cached_key(int layer, int ship, int k) const;
  std::vector<float> cached_value(int layer, int ship, int k) const;

 private:
  static constexpr int kCacheRows = kDreamCacheRows;  // world_model.hpp: one source
  // Keys are stored transposed, so one head's scores over every cached key are sums of
  // whole rows (core/nn's attention_decode); values as rows.
  struct LayerCache {
    std::vector<float> k;  // (N, E, 4C): ship n's k-th key is the column at key_column(n, k)
    std::vector<float> v;  // (N, 4C, E): its value is the row at cache_row(n, k)
  };
  size_t cache_rows() const;                 // 4C: a ship's rows, a transposed key row's length
  size_t key_column(int ship, int k) const;  // offsets in a LayerCache
  size_t cache_row(int ship, int k) const;
  void run_tokens(int first, int slots, const float* state, const uint8_t* actions, int position,
                  WmStepResult* out);
  void drop_oldest_step();
  void recompute_window();
  void patch_window();  // UniZero's correction of every cached K/V after a drop

  WmConfig config_;
  WmOverflow overflow_;
  std::vector<float> params_;
  std::vector<LayerCache> cache_;       // one per block (empty for spatial blocks)
  std::vector<WmCachedIndex> indices_;  // (K) oldest first
  int first_ = 0;                       // the cache row of indices_[0]
  std::vector<float> hist_states_;      // (C, N, 15) inputs of the cached steps
  std::vector<uint8_t> hist_actions_;   // (C, N, 3)
  int next_step_ = 0;
  struct Scratch;
  std::shared_ptr<Scratch> scratch_;
};

// Drives two dreamers through the same teacher-forced sequence (states (S, N, 15), actions
// (S, N, 3)) and returns, per step, the largest absolute difference of their state
// predictions: e.g. slide against recompute once the sequence passes the context.
std::vector<double> wm_dream_difference(WmDreamer& a, WmDreamer& b, const float* states,
                                        const uint8_t* actions, int steps);

}  // namespace poslab::wm
