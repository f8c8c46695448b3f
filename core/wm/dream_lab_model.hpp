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

#include "core/wm/dream_lab.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {

// Shipped checkpoint file of a window mode: RoPE dreams with the RoPE model, both absolute
// modes with the learned-position model ("wm_tiny_rope.safetensors", "wm_tiny_absolute...").
std::string dream_model_file(DreamWindow w);
// `model` if not empty, else models_dir / dream_model_file(w).
std::string dream_model_path(const std::string& model, DreamWindow w,
                             const std::string& models_dir);

// What a predicted frame becomes before it is fed back (and drawn): slots absent in `prev`
// stay all zero; a ship dead in `prev` stays dead with its values frozen; the team flag is
// the slot's; the (sin, cos) pairs of x and y and the attitude are scaled back to unit
// length (the model's outputs are not exactly on the circle). `pred` and `prev` are (8, 15).
void dream_clean_prediction(std::span<const float> prev, std::span<float> pred);

// Samples one action per alive ship from action-head logits (8, 12) = [power 3 | turn 7 |
// shoot 2] at `temperature` (0: argmax), drawing uniforms from `rng`. Dead ships: zeros.
bnb::JointAction dream_sample_actions(std::span<const float> logits, std::span<const float> state,
                                      double temperature, bnb::Rng& rng);

// The model as a DreamModel. Throws InputError if `window` does not fit the model's
// position variant (RoPE model: rope; absolute model: recompute or reset).
std::unique_ptr<DreamModel> make_dream_model(const WmConfig& config, std::vector<float> params,
                                             DreamWindow window);

}  // namespace poslab::wm
