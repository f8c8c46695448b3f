// A trained world model as the dream lab's DreamModel (dream_lab.hpp): through the KV-cache
// decoder (core/wm/wm_decode) or the full forward pass over the window, predictions cleaned
// by core/wm/eval's rule before they are fed back, the action head sampled at a
// temperature, and the shipped checkpoints' file names. Used by the dream lab panel and
// by `poslab-cli wm dream`, so both dream the same way.
//   N = 8 slots, C = context steps, E = width
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/common/random.hpp"
#include "core/wm/dream_session.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

// Shipped checkpoint file of a window mode and size: RoPE dreams with the RoPE model, the
// absolute modes with the learned-position model ("wm_tiny_rope.safetensors",
// "wm_paper_absolute.safetensors", ...).
std::string dream_model_file(DreamVariant w, DreamModelSize size = DreamModelSize::tiny);
// `model` if not empty, else models_dir / dream_model_file(w, size).
std::string dream_model_path(const std::string& model, DreamVariant w,
                             const std::string& models_dir,
                             DreamModelSize size = DreamModelSize::tiny);

// Picks one action per ship from action-head logits (8, 12) = [power 3 | turn 7 | shoot 2]
// at `temperature` (0: argmax) with the decoder's sampler (wm_decode.hpp wm_pick_action) at
// dream step t of the stream `seed`: the draws of the KV-cache decoder, so every dream
// samples the same way.
bnb::JointAction dream_sample_actions(std::span<const float> logits, double temperature,
                                      uint64_t seed, int t);

// How a DreamModel computes a step.
enum class DreamCompute {
  kv_cache,     // core/wm/wm_decode's cached decoder, as core/wm/eval's wm_dream (`poslab-cli
                // wm dream`) runs it: live speed, attention weights, the cache's own
                // stored/used indices; rope and naive slide, recompute re-encodes the
                // window, patch applies UniZero's correction
  full_forward  // the window of the last C steps through the training forward pass each
                // step: the reference the cache is checked against (reset recomputes here)
};

// The model as a DreamModel. Throws InputError if `variant` does not fit the model's
// position variant (RoPE model: rope; absolute model: recompute, naive or patch).
std::unique_ptr<DreamModel> make_dream_model(const WmConfig& config, std::vector<float> params,
                                             DreamVariant variant,
                                             DreamCompute compute = DreamCompute::kv_cache);
// The KV-cache decoder over a model the caller keeps alive while the DreamModel lives (and
// does not change), in any of the decoder's window modes: core/wm/eval's wm_dream.
std::unique_ptr<DreamModel> make_dream_model(const WorldModel& model, WmOverflow overflow);

}  // namespace poslab::wm
