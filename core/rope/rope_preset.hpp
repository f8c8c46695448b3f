// The RoPE part of a preset string, one vocabulary for every lab with RoPE: dim, rotary,
// base, layout, scaling, factor, L, cur, beta_fast, beta_slow, mscale, low_freq, high_freq.
// The wheels lab and the KV lab both write and read their RopeParams through these.
#pragma once
#include "core/common/preset.hpp"
#include "core/rope/rope.hpp"

namespace poslab {

// Which RoPE fields a lab's presets carry beyond base, layout and the context extension.
struct RopePresetFields {
  bool head_dim = true;         // "dim" (false when the lab derives D, e.g. W / H)
  bool rotary_fraction = true;  // "rotary"
};

// Writes the fields of `r` that differ from `defaults`.
void rope_preset_write(PresetWriter& w, const RopeParams& r, const RopeParams& defaults,
                       RopePresetFields fields = {});
// Reads whichever of those keys the preset names into `r` (range-checked).
void rope_preset_read(PresetReader& in, RopeParams& r, RopePresetFields fields = {});

}  // namespace poslab
