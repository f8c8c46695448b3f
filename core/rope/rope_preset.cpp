// The shared RoPE preset fields (see rope_preset.hpp).
#include "core/rope/rope_preset.hpp"

namespace poslab {

void rope_preset_write(PresetWriter& w, const RopeParams& r, const RopeParams& d,
                       RopePresetFields fields) {
  if (fields.head_dim && r.head_dim != d.head_dim) w.add("dim", r.head_dim);
  if (fields.rotary_fraction && r.rotary_fraction != d.rotary_fraction)
    w.add("rotary", r.rotary_fraction, RopeParams::rotary_fraction_range);
  if (r.base != d.base) w.add("base", r.base, RopeParams::base_range);
  if (r.layout != d.layout) w.add_text("layout", rope_layout_names()[static_cast<int>(r.layout)]);
  if (r.scaling != d.scaling)
    w.add_text("scaling", rope_scaling_names()[static_cast<int>(r.scaling)]);
  if (r.factor != d.factor) w.add("factor", r.factor);
  if (r.original_context != d.original_context) w.add("L", r.original_context);
  if (r.current_length != d.current_length) w.add("cur", r.current_length);
  if (r.yarn_beta_fast != d.yarn_beta_fast) w.add("beta_fast", r.yarn_beta_fast);
  if (r.yarn_beta_slow != d.yarn_beta_slow) w.add("beta_slow", r.yarn_beta_slow);
  if (r.yarn_attention_factor != d.yarn_attention_factor) w.add("mscale", r.yarn_attention_factor);
  if (r.llama3_low_freq_factor != d.llama3_low_freq_factor)
    w.add("low_freq", r.llama3_low_freq_factor);
  if (r.llama3_high_freq_factor != d.llama3_high_freq_factor)
    w.add("high_freq", r.llama3_high_freq_factor);
}

void rope_preset_read(PresetReader& in, RopeParams& r, RopePresetFields fields) {
  if (fields.head_dim) in.read("dim", r.head_dim, RopeParams::head_dim_range);
  if (fields.rotary_fraction)
    in.read("rotary", r.rotary_fraction, RopeParams::rotary_fraction_range);
  in.read("base", r.base, RopeParams::base_range);
  int layout = static_cast<int>(r.layout), scaling = static_cast<int>(r.scaling);
  in.read_choice("layout", layout, rope_layout_names());
  in.read_choice("scaling", scaling, rope_scaling_names());
  r.layout = static_cast<RopeLayout>(layout);
  r.scaling = static_cast<RopeScaling>(scaling);
  in.read("factor", r.factor, RopeParams::factor_range);
  in.read("L", r.original_context, RopeParams::original_context_range);
  in.read("cur", r.current_length, RopeParams::current_length_range);
  in.read("beta_fast", r.yarn_beta_fast, RopeParams::beta_range);
  in.read("beta_slow", r.yarn_beta_slow, RopeParams::beta_range);
  in.read("mscale", r.yarn_attention_factor, RopeParams::attention_factor_range);
  in.read("low_freq", r.llama3_low_freq_factor, RopeParams::llama3_factor_range);
  in.read("high_freq", r.llama3_high_freq_factor, RopeParams::llama3_factor_range);
}

}  // namespace poslab
