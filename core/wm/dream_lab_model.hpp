// A trained world model as the dream lab's DreamModel (dream_lab.hpp): windows of the last
// C steps, predictions cleaned before they are fed back, the action head sampled at a
// temperature, and the shipped checkpoints' file names. Used by the dream lab panel and
// by `poslab-cli wm dream`, so both dream the same way.
//   N = 8 slots, C = context steps, E = width
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/common/random.hpp"
#include "core/wm/dream_lab.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

// Shipped checkpoint file of a window mode: RoPE dreams with the RoPE model, both absolute
// modes with the learned-position model ("wm_tiny_rope.safetensors", "wm_tiny_absolute...").
std::string dream_model_file(DreamVariant w);
// `model` if not empty, else models_dir / dream_model_file(w).
std::string dream_model_path(const std::string& model, DreamVariant w,
                             const std::string& models_dir);

// Samples one action per ship from action-head logits (8, 12) = [power 3 | turn 7 |
// shoot 2] at `temperature` (0: argmax), ship by ship and head by head, one uniform from
// `rng` per draw: the same draws as core/wm/eval's open-loop dreams (`poslab-cli wm dream`).
bnb::JointAction dream_sample_actions(std::span<const float> logits, double temperature,
                                      SeededStream& rng);

// The model as a DreamModel. Throws InputError if `window` does not fit the model's
// position variant (RoPE model: rope; absolute model: recompute or reset).
std::unique_ptr<DreamModel> make_dream_model(const WmConfig& config, std::vector<float> params,
                                             DreamVariant window);

}  // namespace poslab::wm
