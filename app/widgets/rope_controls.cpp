// The shared RoPE controls (see rope_controls.hpp), with a tooltip on every control
// giving its formula.
#include "app/widgets/rope_controls.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/widgets.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {
namespace {

void layout_diagram(const RopeParams& r, float scale) {
  // One box per dimension, coloured by the pair it belongs to: the first 16 dims, or for
  // half-split beyond 16 dims the first 8 and their partners at R/2.. so the pairing shows.
  const int R = rope_rotary_dim(r), P = R / 2;
  std::vector<int> dims;
  const bool split = r.layout == RopeLayout::half_split && r.head_dim > 16 && P >= 8;
  if (split) {
    for (int j = 0; j < 8; ++j) dims.push_back(j);
    for (int j = 0; j < 8; ++j) dims.push_back(P + j);
  } else {
    for (int j = 0; j < std::min(r.head_dim, 16); ++j) dims.push_back(j);
  }
  const int shown = static_cast<int>(dims.size());
  const float box = 20.0f * scale;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  std::vector<int> pair_of(r.head_dim, -1);
  for (int i = 0; i < P; ++i) {
    const auto [a, b] = rope_pair_dims(r, i);
    pair_of[a] = pair_of[b] = i;
  }
  for (int n = 0; n < shown; ++n) {
    const int j = dims[n];
    const float gap = split && n >= 8 ? 8.0f * scale : 0.0f;
    const ImVec2 p0(o.x + n * (box + 2) + gap, o.y), p1(p0.x + box, p0.y + box);
    const int i = pair_of[j];
    dl->AddRectFilled(p0, p1, i >= 0 ? rope_pair_colour(i, P) : IM_COL32(90, 90, 90, 255), 2.0f);
    char label[8];
    if (i >= 0)
      std::snprintf(label, sizeof label, "%d", i % 100);
    else
      std::snprintf(label, sizeof label, "-");
    const ImVec2 ts = ImGui::CalcTextSize(label);
    dl->AddText(ImVec2(p0.x + (box - ts.x) * 0.5f, p0.y + (box - ts.y) * 0.5f),
                IM_COL32(0, 0, 0, 255), label);
  }
  ImGui::Dummy(ImVec2(shown * (box + 2) + (split ? 8.0f * scale : 0.0f), box));
  if (split)
    ImGui::TextDisabled("dims 0..7 | %d..%d (their partners), number = pair", P, P + 7);
  else
    ImGui::TextDisabled("dims 0..%d, number = pair%s", shown - 1,
                        r.head_dim > shown ? " (first 16 dims shown)" : "");
}

}  // namespace

ImU32 rope_pair_colour(int pair, int pairs, float alpha) {
  const float t = pairs > 1 ? static_cast<float>(pair) / static_cast<float>(pairs - 1) : 0.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(0.78f * t, 0.75f, 0.95f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, alpha));
}

bool rope_controls(RopeParams& r, const RopeControlsParts& parts, float scale) {
  const RopeParams before = r;
  ImGui::PushID("##rope_controls");
  if (parts.head_dim) {
    if (slider_int("head dim D", r.head_dim, RopeParams::head_dim_range, false,
                   "D: dims per head (even). There are R/2 pairs, R = rotated dims."))
      r.head_dim += r.head_dim % 2;
  }
  if (parts.rotary_fraction)
    slider_double("rotary share", r.rotary_fraction, RopeParams::rotary_fraction_range, "%.4g",
                  true,
                  "Partial rotary: only the first R = share * D dims rotate (GPT-NeoX uses "
                  "0.25);\nthe rest carry no position. R is rounded down to an even number.");
  slider_double("base b", r.base, RopeParams::base_range, "%.6g", true,
                "theta_i = b^(-2i/R): angle per token of pair i.\n"
                "lambda_i = 2*pi*b^(2i/R): its wavelength in tokens.\n"
                "10,000 RoFormer/LLaMA 2; 500,000 Llama 3; 1,000,000 MiniMind.");
  if (parts.base_buttons) {
    const std::pair<const char*, double> bases[] = {
        {"10k (LLaMA 2)", 1e4}, {"500k (Llama 3)", 5e5}, {"1M", 1e6}};
    for (const auto& [label, value] : bases) {
      if (value != 1e4) ImGui::SameLine(0, 4.0f * scale);
      if (ImGui::SmallButton(label)) r.base = value;
    }
  }
  int layout = static_cast<int>(r.layout);
  ImGui::RadioButton("interleaved", &layout, 0);
  tooltip("RoFormer, GPT-J, Meta LLaMA, UniZero: pair i = dims (2i, 2i+1).");
  ImGui::SameLine();
  ImGui::RadioButton("half-split", &layout, 1);
  tooltip("GPT-NeoX, HF LLaMA, Qwen2: pair i = dims (i, i + R/2); rotate_half(x) = [-x2, x1].");
  r.layout = static_cast<RopeLayout>(layout);
  if (parts.layout_diagram) layout_diagram(r, scale);

  if (parts.scaling) {
    int scaling = static_cast<int>(r.scaling);
    const char* names[] = {"none", "linear (PI)", "NTK-aware", "dynamic NTK", "YaRN", "llama3"};
    ImGui::Combo("extension", &scaling, names, IM_ARRAYSIZE(names));
    tooltip(
        "PI: theta_i / s.  NTK: base b * s^(R/(R-2)).  Dynamic NTK: NTK with s*Lc/L-(s-1) once "
        "Lc > L.\nYaRN: theta'_i = (1-g)*theta_i/s + g*theta_i with ramp g over r_i = "
        "L/lambda_i, plus temperature.\nllama3: lambda < L/high kept, lambda > L/low divided by "
        "s, blend between.");
    r.scaling = static_cast<RopeScaling>(scaling);
    slider_int("trained L", r.original_context, RopeParams::original_context_range, true,
               "L: the context the model was trained on. r_i = L / lambda_i = turns of pair i "
               "within it.");
    if (r.scaling != RopeScaling::none)
      slider_double("factor s", r.factor, RopeParams::factor_range, "%.4g", true,
                    "s: target context / L.");
    if (r.scaling == RopeScaling::dynamic_ntk)
      slider_double("current length", r.current_length, RopeParams::current_length_range, "%.6g",
                    true, "Lc: tokens in the running sequence; the base only grows once Lc > L.");
    if (r.scaling == RopeScaling::yarn) {
      slider_double("beta (fast)", r.yarn_beta_fast, RopeParams::beta_range, "%.3g", true,
                    "Pairs with more than beta turns inside L are kept as they are.");
      slider_double("alpha (slow)", r.yarn_beta_slow, RopeParams::beta_range, "%.3g", true,
                    "Pairs with fewer than alpha turns inside L are interpolated (theta/s).");
      slider_double("temperature", r.yarn_attention_factor, RopeParams::attention_factor_range,
                    r.yarn_attention_factor == 0 ? "0 = default" : "%.3g", false,
                    "mscale multiplies cos and sin, so logits scale by mscale^2.\n0 = default "
                    "0.1*ln(s)+1; MiniMind sets 1.");
      const double m = rope_attention_scale(r);
      ImGui::Text("mscale = %.4f, logits x %.4f", m, m * m);
    }
    if (r.scaling == RopeScaling::llama3) {
      slider_double("low_freq_factor", r.llama3_low_freq_factor, RopeParams::llama3_factor_range,
                    "%.3g", true, "Wavelengths longer than L / low_freq_factor are divided by s.");
      slider_double("high_freq_factor", r.llama3_high_freq_factor, RopeParams::llama3_factor_range,
                    "%.3g", true, "Wavelengths shorter than L / high_freq_factor are kept.");
    }
    if (r.scaling == RopeScaling::ntk || r.scaling == RopeScaling::dynamic_ntk) {
      try {
        ImGui::Text("effective base b' = %.6g", rope_effective_base(r));
      } catch (const Error&) {
        ImGui::TextDisabled("effective base: parameters out of range");
      }
    }
  }
  ImGui::PopID();
  return !(r == before);
}

}  // namespace poslab::app
