// The token heatmap widget (see token_heatmap.hpp).
#include "app/widgets/token_heatmap.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

namespace {

std::string tick_label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Values of m as colour positions of s, uploaded with the legend of s.
void upload_scaled(gfx::HeatmapTexture& tex, const RowMatrixF& m, const std::vector<float>& v,
                   const ColorScale& s) {
  const std::vector<float> pos = color_scale_positions(s, v);
  tex.update(pos.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()),
             s.signed_values ? -1.0f : 0.0f, 1.0f,
             s.signed_values ? gfx::Colormap::diverging : gfx::Colormap::viridis);
  std::vector<gfx::LegendTick> legend;
  for (const ColorTick& t : color_scale_ticks(s, 7)) {
    const double at = s.signed_values ? (t.position + 1) * 0.5 : t.position;
    legend.push_back({static_cast<float>(at), tick_label(t.value)});
  }
  tex.set_legend(std::move(legend));
  // Maps up to 12 x 12 print their numbers in the cells (token_heatmap).
  if (m.rows() <= kCellNumbersMax && m.cols() <= kCellNumbersMax) tex.set_cell_values(v, pos);
}

// Turns the vertices added to `dl` since index `first` by -90 degrees around `pivot`:
// horizontal text becomes text reading upwards (ImGui 1.86 has no rotated text).
void rotate_upwards(ImDrawList* dl, int first, ImVec2 pivot) {
  for (int i = first; i < dl->VtxBuffer.Size; ++i) {
    ImVec2& p = dl->VtxBuffer[i].pos;
    p = ImVec2(pivot.x + (p.y - pivot.y), pivot.y - (p.x - pivot.x));
  }
}

}  // namespace

ColorScale heatmap_upload(gfx::HeatmapTexture& tex, const RowMatrixF& m, bool signed_values,
                          float range, ColorScaleKind kind) {
  if (m.size() == 0) return {};
  const std::vector<float> v = heatmap_display_values(m);
  ColorScale s = color_scale_fit(kind, signed_values, {v}, std::max(range, 0.0f));
  upload_scaled(tex, m, v, s);
  return s;
}

ColorScale heatmap_upload_shared(gfx::HeatmapTexture& tex_a, const RowMatrixF& a,
                                 gfx::HeatmapTexture& tex_b, const RowMatrixF& b,
                                 bool signed_values, ColorScaleKind kind) {
  if (a.size() == 0 || b.size() == 0) return {};
  const std::vector<float> va = heatmap_display_values(a), vb = heatmap_display_values(b);
  ColorScale s = color_scale_fit(kind, signed_values, {va, vb});
  upload_scaled(tex_a, a, va, s);
  upload_scaled(tex_b, b, vb, s);
  return s;
}

double heatmap_color_spread(const ColorScale& s, const RowMatrixF& m) {
  const std::vector<float> pos = color_scale_positions(s, heatmap_display_values(m));
  double sum = 0, sq = 0, n = 0;
  for (float p : pos)
    if (std::isfinite(p)) sum += p, sq += double(p) * p, n += 1;
  if (n < 1) return 0;
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, sq / n - mean * mean));
}

CellHover token_heatmap(const char* id, gfx::HeatmapTexture& tex,
                        const std::vector<std::string>& tokens, float side, float scale,
                        const char* caption, int mark_at) {
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
  const float pad = 4.0f * scale;
  const float index_w = ImGui::CalcTextSize(std::to_string(std::max(T - 1, 0)).c_str()).x;
  const float margin_left =
      labels ? std::min(label_w, 90.0f * scale) + 6.0f * scale : index_w + 2 * pad;
  const bool col_labels = labels && cell >= label_w + pad;
  // Column labels too wide for their cells stand upright instead of being left out.
  const bool upright = labels && !col_labels;
  const float margin_top = upright ? std::min(label_w, 90.0f * scale) + pad : line + pad;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 img(o.x + margin_left, o.y + margin_top);
  // Axis labels: tokens when they fit, else index ticks every `step` cells, a nice step
  // (1, 2, 5 x 10^k) wide enough that neighbouring labels never touch, at any T and scale.
  const int row_step = labels ? 1 : axis_tick_step(T, cell, line * 1.2);
  const int col_step = labels ? 1 : axis_tick_step(T, cell, index_w + 2 * pad);
  for (int t = 0; t < T; t += row_step) {
    const std::string s = labels ? short_token(tokens[t]) : std::to_string(t);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    const float y = img.y + (static_cast<float>(t) + 0.5f) * cell - ts.y * 0.5f;
    dl->AddText(ImVec2(img.x - ts.x - pad, y), text_col, s.c_str());
  }
  for (int t = 0; upright && t < T; ++t) {
    const std::string s = short_token(tokens[t]);
    const ImVec2 pivot(img.x + (static_cast<float>(t) + 0.5f) * cell - line * 0.5f, img.y - pad);
    const int first = dl->VtxBuffer.Size;
    dl->AddText(pivot, text_col, s.c_str());
    rotate_upwards(dl, first, pivot);
  }
  for (int t = 0; (col_labels || !labels) && t < T; t += col_step) {
    const std::string s = labels ? short_token(tokens[t]) : std::to_string(t);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    const float x = img.x + (static_cast<float>(t) + 0.5f) * cell - ts.x * 0.5f;
    dl->AddText(ImVec2(std::max(x, img.x - pad), o.y), text_col, s.c_str());
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
  // The numbers in the cells of a small map (at most 12 x 12, when "0.00" fits a cell):
  // dark text on the bright colours, light text on the dark ones.
  const std::vector<float>& vals = tex.cell_values();
  const std::vector<float>& posv = tex.cell_positions();
  // A map of whole numbers (T5 bucket ids) prints them as such, "7" and not "7.00".
  const bool whole = std::all_of(vals.begin(), vals.end(), [](float v) {
    return !std::isfinite(v) || (v == std::round(v) && std::abs(v) < 1e6f);
  });
  if (static_cast<int>(vals.size()) == T * tex.cols() && tex.cols() == T &&
      posv.size() == vals.size() && cell >= ImGui::CalcTextSize(whole ? "-00" : "-0.00").x + pad) {
    for (int r = 0; r < T; ++r)
      for (int k = 0; k < T; ++k) {
        const size_t i = static_cast<size_t>(r) * static_cast<size_t>(T) + static_cast<size_t>(k);
        const float v = vals[i];
        if (!std::isfinite(v)) continue;
        char buf[16];
        if (whole)
          std::snprintf(buf, sizeof buf, "%d", static_cast<int>(v));
        else
          std::snprintf(buf, sizeof buf, std::abs(v) < 10 ? "%.2f" : "%.3g",
                        static_cast<double>(v));
        const float at = posv[i];
        const bool bright = tex.diverging() ? std::abs(at) < 0.5f : at > 0.6f;
        const ImVec2 ts = ImGui::CalcTextSize(buf);
        dl->AddText(ImVec2(img.x + (static_cast<float>(k) + 0.5f) * cell - ts.x * 0.5f,
                           img.y + (static_cast<float>(r) + 0.5f) * cell - ts.y * 0.5f),
                    bright ? IM_COL32(0, 0, 0, 230) : IM_COL32(255, 255, 255, 230), buf);
      }
  }
  if (cell_hit.x >= 0) {
    hover.col = static_cast<int>(cell_hit.x);
    hover.row = static_cast<int>(cell_hit.y);
    const ImVec2 a(img.x + hover.col * cell, img.y + hover.row * cell);
    dl->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(255, 255, 255, 220), 0, 0, 1.5f);
  }
  ImGui::SetCursorScreenPos(ImVec2(img.x, img.y + side + 2.0f * scale));
  tex.draw_colorbar(ImVec2(side, 8.0f * scale));
  ImGui::TextDisabled("%s", caption);
  ImGui::PopID();
  return hover;
}

}  // namespace poslab::app
