// Draws the dream lab's attention heatmaps (attention_maps.hpp).
#include "app/widgets/attention_maps.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/widgets.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_label.hpp"

namespace poslab::app {

namespace {

// A caption in the disabled colour, wrapped: unwrapped it ran past a narrow pane's edge (the
// dream lab at 1024x700 and at UI scale 2).
void disabled_wrapped(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  wrapped_text(text);
  ImGui::PopStyleColor();
}

}  // namespace

void attention_maps(const AppContext& ctx, const wm::DreamAttention& a, int& layer_io, int& head_io,
                    int slot, AttentionMapTextures& tex, float scale) {
  const float s = scale;
  const int layers = static_cast<int>(a.temporal.size());
  const int layer = std::clamp(layer_io, 0, std::max(layers - 1, 0));
  const int head = std::clamp(head_io, 0, std::max(a.heads - 1, 0));
  ImGui::SetNextItemWidth(120 * s);
  slider_int(tr_id(ctx, "dreams.attn_block").c_str(), layer_io,
             ParamRange{0, double(std::max(layers - 1, 0))}, false,
             ctx.tr("dreams.attn_tip_block"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120 * s);
  slider_int(tr_id(ctx, "dreams.attn_head").c_str(), head_io,
             ParamRange{0, double(std::max(a.heads - 1, 0))}, false,
             ctx.tr("dreams.attn_tip_head"));
  if (layers > 0 && a.heads > 0) {
    // Temporal: rows = heads, columns = cached keys of the selected ship (oldest first).
    const auto& rows = a.temporal[layer];
    const int n = slot;
    const int keys = static_cast<int>(rows[n].size());
    std::vector<float> m;
    for (int h = 0; h < a.heads; ++h) {
      const auto& r = rows[h * bnb::kSlots + n];
      for (int k = 0; k < keys; ++k) m.push_back(k < static_cast<int>(r.size()) ? r[k] : NAN);
    }
    if (keys > 0) {
      tex.temporal.update(m.data(), a.heads, keys, 0.0f, 1.0f, gfx::Colormap::viridis);
      wrapped_text(tr_args(ctx.tr("dreams.attn_temporal"),
                           {{"block", std::to_string(2 * layer)}, {"ship", std::to_string(n)}}));
      tex.temporal.draw(
          ImVec2(std::min(ImGui::GetContentRegionAvail().x, keys * 14 * s), a.heads * 16 * s));
      disabled_wrapped(
          tr_args(ctx.tr("dreams.attn_axes_temporal"),
                  {{"last_head", std::to_string(a.heads - 1)}, {"keys", std::to_string(keys)}}));
    }
  }
  if (layer < static_cast<int>(a.spatial.size()) &&
      head < static_cast<int>(a.spatial[layer].size())) {
    tex.spatial.update(a.spatial[layer][head].data(), 8, 8, 0.0f, 1.0f, gfx::Colormap::viridis);
    const auto& b = a.spatial_bias[layer][head];
    float lim = 1e-6f;
    for (float v : b)
      if (std::isfinite(v)) lim = std::max(lim, std::abs(v));
    tex.bias.update(b.data(), 8, 8, -lim, lim, gfx::Colormap::diverging);
    wrapped_text(tr_args(ctx.tr("dreams.attn_spatial"),
                         {{"block", std::to_string(2 * layer + 1)},
                          {"head", std::to_string(head)},
                          {"bias", num_text("%.2f", static_cast<double>(lim))}}));
    tex.spatial.draw(ImVec2(150 * s, 150 * s));
    ImGui::SameLine();
    tex.bias.draw(ImVec2(150 * s, 150 * s));
    disabled_wrapped(ctx.tr("dreams.attn_axes_spatial"));
  }
}

}  // namespace poslab::app
