// The shared RoPE preset fields (see rope_preset.hpp).
#include "core/rope/rope_preset.hpp"

namespace poslab {

const PresetTable<RopeParams>& rope_preset_fields() {
  using R = RopeParams;
  static const PresetTable<R> t{
      preset_field<R>(
          "dim", [](auto& r) -> auto& { return r.head_dim; }, R::head_dim_range,
          "head dim D (even)", "--dim"),
      preset_field<R>(
          "rotary", [](auto& r) -> auto& { return r.rotary_fraction; }, R::rotary_fraction_range,
          "share of D rotated (partial rotary)", "--rotary-fraction"),
      preset_field<R>(
          "base", [](auto& r) -> auto& { return r.base; }, R::base_range,
          "RoPE base b (rope_theta)", "--base"),
      preset_choice<R>(
          "layout", [](auto& r) -> auto& { return r.layout; }, rope_layout_names(),
          "pairing of dims: interleaved (0,1)(2,3).. or half (0,D/2)..", "--layout"),
      preset_choice<R>(
          "scaling", [](auto& r) -> auto& { return r.scaling; }, rope_scaling_names(),
          "context extension method", "--scaling"),
      preset_field<R>(
          "factor", [](auto& r) -> auto& { return r.factor; }, R::factor_range,
          "context-extension factor s (YaRN temperature 0.1 ln s + 1)", "--factor"),
      preset_field<R>(
          "L", [](auto& r) -> auto& { return r.original_context; }, R::original_context_range,
          "trained context length L the scaling refers to", "--L"),
      preset_field<R>(
          "cur", [](auto& r) -> auto& { return r.current_length; }, R::current_length_range,
          "dynamic NTK: current sequence length", "--current-length"),
      preset_field<R>(
          "beta_fast", [](auto& r) -> auto& { return r.yarn_beta_fast; }, R::beta_range,
          "YaRN beta (turns above which pairs are kept)", "--beta-fast"),
      preset_field<R>(
          "beta_slow", [](auto& r) -> auto& { return r.yarn_beta_slow; }, R::beta_range,
          "YaRN alpha (turns below which pairs are interpolated)", "--beta-slow"),
      preset_field<R>(
          "mscale", [](auto& r) -> auto& { return r.yarn_attention_factor; },
          R::attention_factor_range, "YaRN attention factor (0 = 0.1 ln s + 1)", "--mscale"),
      preset_field<R>(
          "low_freq", [](auto& r) -> auto& { return r.llama3_low_freq_factor; },
          R::llama3_factor_range, "llama3 low_freq_factor", "--low-freq-factor"),
      preset_field<R>(
          "high_freq", [](auto& r) -> auto& { return r.llama3_high_freq_factor; },
          R::llama3_factor_range, "llama3 high_freq_factor", "--high-freq-factor"),
  };
  return t;
}

}  // namespace poslab
