// The RoPE part of a preset string, one vocabulary for every lab with RoPE: dim, rotary,
// base, layout, scaling, factor, L, cur, beta_fast, beta_slow, mscale, low_freq, high_freq.
// The wheels, KV and attention labs take their RoPE fields from this one table (see
// core/common/preset_fields.hpp), so the keys, ranges, help and CLI flags agree.
#pragma once
#include "core/common/preset_fields.hpp"
#include "core/rope/rope.hpp"

namespace poslab {

// Every RopeParams field, in the order presets write them. A lab that derives some of
// them (the KV lab derives D from W / H) drops them with preset_fields_without.
const PresetTable<RopeParams>& rope_preset_fields();

}  // namespace poslab
