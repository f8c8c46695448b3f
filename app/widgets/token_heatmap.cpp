// The token heatmap widget (see token_heatmap.hpp).
#include "app/widgets/token_heatmap.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab::app {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string short_token(const std::string& t, size_t max_bytes = 12) {
  if (t.size() <= max_bytes) return t;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return t.substr(0, cut) + "..";
}

}  // namespace

// Display copy: -inf (masked) and NaN (undefined) both become NaN, drawn grey.
std::vector<float> heatmap_display_values(const RowMatrixF& m) {
  std::vector<float> v(m.data(), m.data() + m.size());
  for (float& x : v)
    if (!std::isfinite(x)) x = kNaN;
  return v;
}

// Largest |finite value|, at least a tiny positive number so the colour range is valid.
float heatmap_abs_max(const std::vector<float>& v) {
  float m = 0;
  for (float x : v)
    if (std::isfinite(x)) m = std::max(m, std::abs(x));
  return std::max(m, 1e-9f);
}

// range > 0 fixes the colour range (a difference is drawn on the scale of the matrices it
// compares, so float rounding noise stays white instead of being stretched to full colour).
void heatmap_upload(gfx::HeatmapTexture& tex, const RowMatrixF& m, bool signed_values,
                    float range) {
  if (m.size() == 0) return;
  const std::vector<float> v = heatmap_display_values(m);
  const float a = range > 0 ? std::max(range, heatmap_abs_max(v)) : heatmap_abs_max(v);
  if (signed_values)
    tex.update(v.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), -a, a,
               gfx::Colormap::diverging);
  else
    tex.update(v.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), 0.0f, a,
               gfx::Colormap::viridis);
}

CellHover token_heatmap(const char* id, gfx::HeatmapTexture& tex,
                        const std::vector<std::string>& tokens, float side, float scale,
                        int mark_at) {
  CellHover hover;
  if (tex.empty()) return hover;
  ImGui::PushID(id);
  const int T = tex.rows();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  // Label room: widest label, capped, only if one label per cell fits vertically.
  const float cell = side / static_cast<float>(std::max(T, 1));
  const bool labels = cell >= line * 0.95f && static_cast<int>(tokens.size()) == T;
  float label_w = 0;
  if (labels)
    for (const auto& t : tokens)
      label_w = std::max(label_w, ImGui::CalcTextSize(short_token(t).c_str()).x);
  const float margin_left =
      labels ? std::min(label_w, 90.0f * scale) + 6.0f * scale : 34.0f * scale;
  const bool col_labels = labels && cell >= label_w + 4.0f * scale;
  const float margin_top = line + 4.0f * scale;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 img(o.x + margin_left, o.y + margin_top);
  // Axis labels: tokens when they fit, else ticks every `step` indices.
  const int step =
      labels ? 1 : std::max(1, static_cast<int>(std::ceil(line * 1.5f / std::max(cell, 1e-3f))));
  for (int t = 0; t < T; t += step) {
    const std::string s = labels ? short_token(tokens[t]) : std::to_string(t);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    const float y = img.y + (static_cast<float>(t) + 0.5f) * cell - ts.y * 0.5f;
    dl->AddText(ImVec2(img.x - ts.x - 4.0f * scale, y), text_col, s.c_str());
    if (col_labels || (!labels && ts.x < step * cell)) {
      const float x = img.x + (static_cast<float>(t) + 0.5f) * cell - ts.x * 0.5f;
      dl->AddText(ImVec2(x, o.y), text_col, s.c_str());
    }
  }
  ImGui::SetCursorScreenPos(img);
  const ImVec2 cell_hit = tex.draw(ImVec2(side, side));
  if (mark_at > 0 && mark_at < T) {  // a line at the trained length (extrapolation demo)
    const float p = static_cast<float>(mark_at) * cell;
    dl->AddLine(ImVec2(img.x + p, img.y), ImVec2(img.x + p, img.y + side),
                IM_COL32(255, 80, 80, 255), 2.0f);
    dl->AddLine(ImVec2(img.x, img.y + p), ImVec2(img.x + side, img.y + p),
                IM_COL32(255, 80, 80, 255), 2.0f);
  }
  if (cell_hit.x >= 0) {
    hover.col = static_cast<int>(cell_hit.x);
    hover.row = static_cast<int>(cell_hit.y);
    const ImVec2 a(img.x + hover.col * cell, img.y + hover.row * cell);
    dl->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(255, 255, 255, 220), 0, 0, 1.5f);
  }
  ImGui::SetCursorScreenPos(ImVec2(img.x, img.y + side + 2.0f * scale));
  tex.draw_colorbar(ImVec2(side, 8.0f * scale));
  ImGui::TextDisabled("rows: queries, columns: keys");
  ImGui::PopID();
  return hover;
}

}  // namespace poslab::app
