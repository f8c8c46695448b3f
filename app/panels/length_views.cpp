// The length lab's drawing pieces (see length_views.hpp): they read a LengthLabResult that
// core computed and draw it; the only arithmetic is layout and the mean of a character's
// bytes' bits, which decides its shade.
#include "app/panels/length_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/app_context.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/token_heatmap.hpp"
#include "app/widgets/tooltip.hpp"
#include "app/widgets/tr_args.hpp"
#include "core/common/smoothing.hpp"
#include "core/lm/lm_own.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::app {

using lm::LengthModelId;

lm::LengthLabSettings length_compute_inputs(const lm::LengthLabSettings& s) {
  lm::LengthLabSettings k = s;
  const lm::LengthLabSettings d;
  k.log_y = d.log_y;
  k.show_mean = d.show_mean;
  k.show_one = d.show_one;
  k.smooth = d.smooth;
  k.train = d.train;
  if (k.source == lm::LengthTextSource::passage) k.text = d.text;
  return k;
}

namespace {

// A curve's legend name in the interface language: the model's name as the controls say it
// ("正弦" in Chinese), "yours <name> @<step>" for the user's own, then the scaling.
std::string length_legend_label(const AppContext& ctx, const lm::LengthCurve& c) {
  std::string s =
      c.own.empty()
          ? std::string(
                ctx.tr(("length.model_" + std::string(lm::length_model_name(c.id))).c_str()))
          : std::string(ctx.tr("length.yours_legend")) + " " +
                c.own.substr(std::string(lm::kLmOwnPrefix).size()) + " @" + std::to_string(c.step);
  if (c.scaling.scaling != RopeScaling::none) s += " " + lm::lm_scaling_label(c.scaling);
  return s;
}

// One colour per model; the scaled RoPE curve is drawn lighter than the plain one.
ImU32 length_model_colour(LengthModelId id, bool scaled) {
  switch (id) {
    case LengthModelId::none:
      return IM_COL32(170, 170, 170, 255);
    case LengthModelId::sinusoidal:
      return IM_COL32(90, 160, 255, 255);
    case LengthModelId::sinusoidal_scaled:
      return IM_COL32(30, 90, 200, 255);
    case LengthModelId::learned:
      return IM_COL32(180, 120, 255, 255);
    case LengthModelId::rope:
      return scaled ? IM_COL32(255, 200, 120, 255) : IM_COL32(255, 110, 60, 255);
    case LengthModelId::alibi:
      return IM_COL32(80, 210, 120, 255);
    case LengthModelId::t5:
      return IM_COL32(230, 210, 60, 255);
    case LengthModelId::rope_ft_pi:
      return IM_COL32(255, 110, 200, 255);
    case LengthModelId::rope_ft_yarn:
      return IM_COL32(60, 220, 220, 255);
  }
  return IM_COL32_WHITE;
}

// Half way to white (alpha kept): the user's own models beside the shipped ones.
ImU32 length_lighter(ImU32 c) {
  ImU32 out = c & 0xFF000000u;
  for (int shift = 0; shift < 24; shift += 8)
    out |= ((((c >> shift) & 0xFFu) + 0xFFu) / 2u) << shift;
  return out;
}

// Bits per byte at which a character is fully red: 8 bits is a uniform guess over bytes.
constexpr double kSurpriseFull = 8.0;

int length_utf8_bytes(uint8_t lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;  // a stray continuation byte or an invalid lead: one byte on its own
}

}  // namespace

std::string length_byte_text(int byte) {
  if (byte == '\n') return "\\n";
  if (byte >= 32 && byte < 127) return std::string(1, static_cast<char>(byte));
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", byte & 0xFF);
  return buf;
}

void length_draw_curves(const AppContext& ctx, const lm::LengthLabResult& r,
                        const lm::LengthLabSettings& view, float height, float scale) {
  PlotSpec spec;
  spec.id = "length_curves";
  spec.size = ImVec2(0, height);
  spec.scale = scale;
  spec.x.label = ctx.tr("length.axis_position");
  spec.y.label = ctx.tr("length.axis_bits");
  spec.y.log = view.log_y;
  std::vector<std::string> labels;
  labels.reserve(2 * r.curves.size());
  for (const lm::LengthCurve& c : r.curves) labels.push_back(length_legend_label(ctx, c));
  // The drawn (smoothed) values: the series only point at them, so they live until the draw.
  std::vector<std::vector<double>> mean(r.curves.size()), one(r.curves.size());
  for (size_t i = 0; i < r.curves.size(); ++i) {
    mean[i] = smooth_trailing_mean(r.curves[i].curve.mean_bits, view.smooth);
    one[i] = smooth_trailing_mean(r.curves[i].curve.one_bits, view.smooth);
  }
  for (size_t i = 0; i < r.curves.size(); ++i) {
    const lm::LengthCurve& c = r.curves[i];
    const bool scaled = c.id == LengthModelId::rope && c.scaling.scaling != RopeScaling::none;
    // The user's own models: their encoding's colour, lighter, drawn thicker.
    const ImU32 col = c.own.empty() ? length_model_colour(c.id, scaled)
                                    : length_lighter(length_model_colour(c.id, scaled));
    const float width = c.own.empty() ? 2.0f : 3.5f;
    if (view.show_mean) spec.series.push_back({labels[i], mean[i], {}, 0, 1, col, width});
    if (view.show_one)
      spec.series.push_back({labels[i] + " (" + ctx.tr("length.one_window") + ")",
                             one[i],
                             {},
                             0,
                             1,
                             (col & 0x00FFFFFFu) | 0x90000000u,
                             1.0f});
  }
  const int L = r.curves.empty() ? 0 : r.curves.front().context;
  for (int k = 1; L > 0 && k * L < r.positions; k *= 2)
    spec.x_marks.push_back({static_cast<double>(k * L),
                            k == 1 ? IM_COL32(255, 70, 70, 255) : IM_COL32(255, 70, 70, 90),
                            k == 1 ? "L" : std::to_string(k) + "L"});
  plot(spec);
}

int length_draw_text(AppContext& ctx, const lm::LengthLabResult& r, float scale) {
  const std::vector<uint8_t>& t = r.text;
  const std::vector<double>& bits = r.scores.bits;
  if (t.size() < 2 || bits.size() + 1 != t.size()) return 0;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float right = origin.x + std::max(200.0f * scale, ImGui::GetContentRegionAvail().x);
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  float x = origin.x, y = origin.y;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered_first = -1, hovered_last = -1, chars = 0;
  double hovered_bits = 0;
  for (size_t i = 0; i < t.size();) {
    const size_t n = std::min(static_cast<size_t>(length_utf8_bytes(t[i])), t.size() - i);
    const size_t last = i + n - 1;
    // Shade: mean bits of the character's bytes (byte 0 has no prediction, so no shade).
    double sum = 0;
    int counted = 0;
    for (size_t b = std::max<size_t>(i, 1); b <= last; ++b, ++counted) sum += bits[b - 1];
    const double mean = counted ? sum / counted : std::nan("");
    std::string glyph(t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(last + 1));
    const bool newline = t[i] == '\n';
    if (t[i] < 32 || t[i] == 127) glyph = " ";  // a newline: a shaded blank, then a break
    const ImVec2 sz = ImGui::CalcTextSize(glyph.c_str());
    const float w = std::max(sz.x, 4.0f * scale);
    if (x + w > right) {
      x = origin.x;
      y += line_h;
    }
    const ImVec2 a(x, y), b(x + w, y + line_h);
    if (!std::isnan(mean)) {
      const float f = static_cast<float>(std::clamp(mean / kSurpriseFull, 0.0, 1.0));
      dl->AddRectFilled(a, b, IM_COL32(230, 40, 30, static_cast<int>(20 + 215 * f)));
    }
    if (r.context > 0 && static_cast<int>(i) <= r.context && r.context <= static_cast<int>(last))
      dl->AddLine(ImVec2(x, y - 2 * scale), ImVec2(x, y + line_h), IM_COL32(255, 255, 255, 255),
                  2.0f * scale);
    dl->AddText(a, ImGui::GetColorU32(ImGuiCol_Text), glyph.c_str());
    if (mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
      hovered_first = static_cast<int>(i);
      hovered_last = static_cast<int>(last);
      hovered_bits = mean;
    }
    x += w;
    if (newline) {
      x = origin.x;
      y += line_h;
    }
    i += n;
    ++chars;
  }
  ImGui::Dummy(ImVec2(right - origin.x, y + line_h - origin.y));
  if (hovered_first >= 0 && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(
        tr_args(ctx.tr("length.hover_byte"),
                {{"first", std::to_string(hovered_first)}, {"last", std::to_string(hovered_last)}})
            .c_str());
    if (std::isnan(hovered_bits))
      ImGui::TextUnformatted(ctx.tr("length.hover_first"));
    else
      ImGui::TextUnformatted(
          tr_args(ctx.tr("length.hover_bits"),
                  {{"bits", num_text("%.2f", static_cast<double>(hovered_bits))}})
              .c_str());
    if (hovered_last >= 1) {
      // What the model expected at the character's last byte, having read everything before.
      ImGui::TextUnformatted(ctx.tr("length.hover_top"));
      for (const auto& [byte, p] : r.scores.top[static_cast<size_t>(hovered_last - 1)])
        ImGui::Text("  %-6s %5.1f %%%s", length_byte_text(byte).c_str(), 100.0 * p,
                    byte == t[static_cast<size_t>(hovered_last)] ? "  <-" : "");
    }
    ImGui::EndTooltip();
  }
  return chars;
}

namespace {

RowMatrixF length_heads_matrix(const lm::LmAttention& a) {
  RowMatrixF m(a.n, a.n);
  for (int t = 0; t < a.n; ++t)
    for (int s = 0; s < a.n; ++s) {
      const float v = a.probs[static_cast<size_t>(t) * a.n + s];
      m(t, s) = s <= t ? v : std::nanf("");
    }
  return m;
}

}  // namespace

void length_draw_heads(const AppContext& ctx, LengthUi& ui, const lm::LengthLabResult& r,
                       float scale) {
  if (r.heads_plain.n < 1) return;
  if (ui.uploaded != &r) {
    heatmap_upload(ui.heads_plain, length_heads_matrix(r.heads_plain), false);
    if (r.has_scaled_heads)
      heatmap_upload(ui.heads_scaled, length_heads_matrix(r.heads_scaled), false);
    ui.uploaded = &r;
  }
  std::vector<std::string> tokens;
  tokens.reserve(static_cast<size_t>(std::max(r.heads_plain.n, 0)));
  for (int i = 0; i < r.heads_plain.n; ++i) tokens.push_back(length_byte_text(r.text[i]));
  const int panes = r.has_scaled_heads ? 2 : 1;
  // Each map takes its side plus its row labels on the left (token_heatmap: up to 96 px) and
  // the gap between maps (the second map ran 63 px past the view's edge at 1024x700 with 20
  // px for them). Where two would be narrower than 160 px (UI scale 2), the second goes below.
  const float avail_w = ImGui::GetContentRegionAvail().x, margin = 104.0f * scale;
  const bool beside = panes == 1 || (avail_w - margin * panes) / panes >= 160.0f * scale;
  const float side = std::clamp((avail_w - margin * (beside ? panes : 1)) / (beside ? panes : 1),
                                160.0f * scale, 520.0f * scale);
  const int mark = r.context < r.heads_plain.n ? r.context : -1;
  auto pane = [&](const char* id, gfx::HeatmapTexture& tex, const char* caption,
                  const lm::LmAttention& a) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(caption);
    const CellHover h =
        token_heatmap(id, tex, tokens, side, scale, ctx.tr("length.rows_cols"), mark);
    ImGui::EndGroup();
    if (h.row >= 0 && h.col <= h.row) {
      ImGui::BeginTooltip();
      const double w = a.probs[static_cast<size_t>(h.row) * a.n + h.col];
      ImGui::TextUnformatted(
          tr_args(ctx.tr("length.heads_hover"), {{"row", std::to_string(h.row)},
                                                 {"row_byte", length_byte_text(r.text[h.row])},
                                                 {"col", std::to_string(h.col)},
                                                 {"col_byte", length_byte_text(r.text[h.col])},
                                                 {"weight", num_text("%.4f", w)}})
              .c_str());
      ImGui::EndTooltip();
    }
  };
  pane("length_heads_plain", ui.heads_plain, ctx.tr("length.heads_plain"), r.heads_plain);
  if (r.has_scaled_heads) {
    if (beside) ImGui::SameLine();
    pane("length_heads_scaled", ui.heads_scaled, ctx.tr("length.heads_scaled"), r.heads_scaled);
  }
}

void length_record_numbers(const lm::LengthLabResult& r) {
  nlohmann::json n;
  n["positions"] = r.positions;
  for (size_t i = 0; i < r.curves.size(); ++i) {
    const lm::LengthCurve& c = r.curves[i];
    const std::string at = "curves/" + std::to_string(i) + "/";
    n[at + "mean_bpb"] = c.curve.mean_bpb;
    n[at + "mean_bits"] = c.curve.mean_bits;
    n[at + "one_bits"] = c.curve.one_bits;
  }
  if (!r.scores.bits.empty()) {
    n["text/bits"] = r.scores.bits;
    if (r.heads_plain.n > 0) {
      const int last = r.heads_plain.n - 1;
      n["heads/plain/" + std::to_string(last)] = std::vector<float>(
          r.heads_plain.probs.begin() + static_cast<long>(last) * r.heads_plain.n,
          r.heads_plain.probs.end());
    }
  }
  const std::string preset = lm::length_to_preset(r.lab);
  record_drawn_numbers(lm::kLengthLabName, preset, {"length", "--preset", preset}, n);
}

}  // namespace poslab::app
