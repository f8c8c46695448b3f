// The shared RoPE controls (see rope_controls.hpp), with a tooltip on every control
// giving its formula.
#include "app/widgets/rope_controls.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/widgets.hpp"
#include "app/widgets/theme_colour.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {
namespace {

void layout_diagram(const AppContext& ctx, const RopeParams& r, float scale) {
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
    ImGui::TextDisabled("%s 0..7 | %d..%d (%s), %s", ctx.tr("wheels.rc.dims"), P, P + 7,
                        ctx.tr("wheels.rc.partners"), ctx.tr("wheels.rc.number_is_pair"));
  else
    ImGui::TextDisabled("%s 0..%d, %s%s", ctx.tr("wheels.rc.dims"), shown - 1,
                        ctx.tr("wheels.rc.number_is_pair"),
                        r.head_dim > shown ? ctx.tr("wheels.rc.first_16") : "");
}

}  // namespace

ImU32 rope_pair_colour(int pair, int pairs, float alpha) {
  const float t = pairs > 1 ? static_cast<float>(pair) / static_cast<float>(pairs - 1) : 0.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(0.78f * t, 0.75f, 0.95f, r, g, b);
  return theme_colour(ImVec4(r, g, b, alpha));  // yellow and lime darkened on the light theme
}

bool rope_controls(const AppContext& ctx, RopeParams& r, const RopeControlsParts& parts,
                   float scale) {
  const RopeParams before = r;
  auto T = [&](const char* key) { return ctx.tr(key); };
  auto L = [&](const char* key) { return tr_id(ctx, key); };
  ImGui::PushID("##rope_controls");
  if (parts.head_dim) {
    if (slider_int(L("wheels.rc.head_dim").c_str(), r.head_dim, RopeParams::head_dim_range, false,
                   T("wheels.rc.head_dim_tip")))
      r.head_dim += r.head_dim % 2;
  }
  if (parts.rotary_fraction)
    slider_double(L("wheels.rc.rotary").c_str(), r.rotary_fraction,
                  RopeParams::rotary_fraction_range, "%.4g", true, T("wheels.rc.rotary_tip"));
  slider_double(L("wheels.rc.base").c_str(), r.base, RopeParams::base_range, "%.6g", true,
                T("wheels.rc.base_tip"));
  if (parts.base_buttons) {
    const std::pair<const char*, double> bases[] = {
        {"10k (LLaMA 2)", 1e4}, {"500k (Llama 3)", 5e5}, {"1M", 1e6}};
    for (const auto& [label, value] : bases) {
      if (value != 1e4) ImGui::SameLine(0, 4.0f * scale);
      if (ImGui::SmallButton(label)) r.base = value;
    }
  }
  int layout = static_cast<int>(r.layout);
  radio_row(layout, {{L("wheels.rc.interleaved"), T("wheels.rc.interleaved_tip")},
                     {L("wheels.rc.half_split"), T("wheels.rc.half_split_tip")}});
  r.layout = static_cast<RopeLayout>(layout);
  if (parts.layout_diagram) layout_diagram(ctx, r, scale);

  if (parts.scaling) {
    int scaling = static_cast<int>(r.scaling);
    const char* names[] = {T("wheels.rc.scaling_none"),    "linear (PI)", "NTK-aware",
                           T("wheels.rc.scaling_dynamic"), "YaRN",        "llama3"};
    ImGui::Combo(L("wheels.rc.extension").c_str(), &scaling, names, IM_ARRAYSIZE(names));
    tooltip(T("wheels.rc.extension_tip"));
    r.scaling = static_cast<RopeScaling>(scaling);
    slider_int(L("wheels.rc.trained_l").c_str(), r.original_context,
               RopeParams::original_context_range, true, T("wheels.rc.trained_l_tip"));
    if (r.scaling != RopeScaling::none)
      slider_double(L("wheels.rc.factor").c_str(), r.factor, RopeParams::factor_range, "%.4g", true,
                    T("wheels.rc.factor_tip"));
    if (r.scaling == RopeScaling::dynamic_ntk)
      slider_double(L("wheels.rc.current_length").c_str(), r.current_length,
                    RopeParams::current_length_range, "%.6g", true,
                    T("wheels.rc.current_length_tip"));
    if (r.scaling == RopeScaling::yarn) {
      slider_double(L("wheels.rc.beta_fast").c_str(), r.yarn_beta_fast, RopeParams::beta_range,
                    "%.3g", true, T("wheels.rc.beta_fast_tip"));
      slider_double(L("wheels.rc.alpha_slow").c_str(), r.yarn_beta_slow, RopeParams::beta_range,
                    "%.3g", true, T("wheels.rc.alpha_slow_tip"));
      const std::string zero_default = "0 = " + as_format_text(T("wheels.rc.default"));
      slider_double(L("wheels.rc.temperature").c_str(), r.yarn_attention_factor,
                    RopeParams::attention_factor_range,
                    r.yarn_attention_factor == 0 ? zero_default.c_str() : "%.3g", false,
                    T("wheels.rc.temperature_tip"));
      const double m = rope_attention_scale(r);
      ImGui::Text("mscale = %.4f, logits x %.4f", m, m * m);
    }
    if (r.scaling == RopeScaling::llama3) {
      slider_double("low_freq_factor", r.llama3_low_freq_factor, RopeParams::llama3_factor_range,
                    "%.3g", true, T("wheels.rc.low_freq_tip"));
      slider_double("high_freq_factor", r.llama3_high_freq_factor, RopeParams::llama3_factor_range,
                    "%.3g", true, T("wheels.rc.high_freq_tip"));
    }
    if (r.scaling == RopeScaling::ntk || r.scaling == RopeScaling::dynamic_ntk) {
      try {
        ImGui::Text("%s b' = %.6g", T("wheels.rc.effective_base"), rope_effective_base(r));
      } catch (const Error&) {
        ImGui::TextDisabled("%s", T("wheels.rc.effective_base_out"));
      }
    }
  }
  ImGui::PopID();
  return !(r == before);
}

}  // namespace poslab::app
