// The KV-cache lab's stateless drawing pieces (see kv_views.hpp).
#include "app/panels/kv_views.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/widgets.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/theme_colour.hpp"

namespace poslab::app {

ImU32 method_colour(KvMethod m) {
  switch (m) {
    case KvMethod::naive:
      return theme_colour(IM_COL32(230, 80, 70, 255));
    case KvMethod::legacy:
      return theme_colour(IM_COL32(240, 170, 50, 255));
    case KvMethod::keep:
      return theme_colour(IM_COL32(90, 200, 240, 255));
    case KvMethod::kshift:
      return theme_colour(IM_COL32(80, 200, 120, 255));
    case KvMethod::reencode:
      return theme_colour(IM_COL32(170, 230, 90, 255));
    case KvMethod::reencode_scaled:
      return theme_colour(IM_COL32(220, 110, 220, 255));
    case KvMethod::recompute:
      return theme_colour(IM_COL32(200, 200, 200, 255));
  }
  return IM_COL32_WHITE;
}

const char* method_help(const AppContext& ctx, KvMethod m) {
  switch (m) {
    case KvMethod::naive:
      return ctx.tr("kv.help.naive");
    case KvMethod::legacy:
      return ctx.tr("kv.help.legacy");
    case KvMethod::keep:
      return ctx.tr("kv.help.keep");
    case KvMethod::kshift:
      return ctx.tr("kv.help.kshift");
    case KvMethod::reencode:
      return ctx.tr("kv.help.reencode");
    case KvMethod::reencode_scaled:
      return ctx.tr("kv.help.reencode_scaled");
    case KvMethod::recompute:
      return ctx.tr("kv.help.recompute");
  }
  return "";
}

ImU32 error_colour(double e, float alpha) {
  const double l = std::log10(std::max(e, 1e-12));
  const float t = static_cast<float>(std::clamp((l + 7.0) / 6.0, 0.0, 1.0));
  const float r = std::min(1.0f, 2.0f * t), g = std::min(1.0f, 2.0f * (1.0f - t)) * 0.85f;
  return ImGui::ColorConvertFloat4ToU32(ImVec4(0.15f + 0.8f * r, 0.2f + 0.7f * g, 0.25f, alpha));
}

std::string sci(double v) {
  char buf[32];
  if (v == 0) return "0";
  if (std::abs(v) >= 1e-2 && std::abs(v) < 1e4)
    std::snprintf(buf, sizeof buf, "%.3g", v);
  else
    std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

std::string index_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string prefixed(char c, double index) {
  std::string s(1, c);
  s += index_text(index);
  return s;
}

void kv_draw_slot_dial(ImDrawList* dl, const KvModelParams& p, const KvSlot& s, int pair, ImVec2 c,
                       float r, bool unstitched) {
  const KvSlotAngles a = kv_slot_angles(p, s, pair);
  dl->AddCircleFilled(c, r, ImGui::GetColorU32(ImGuiCol_FrameBg), 20);
  dl->AddCircle(c, r, ImGui::GetColorU32(ImGuiCol_Border), 20);
  const double should = unstitched ? a.stored : a.should;
  dl->AddLine(c,
              ImVec2(c.x + r * static_cast<float>(std::cos(should)),
                     c.y - r * static_cast<float>(std::sin(should))),
              IM_COL32(170, 170, 170, 255), 2.0f);
  const bool ok = unstitched || (a.stored == a.should && s.key_scale == 1.0);
  const float len = r * static_cast<float>(std::clamp(s.key_scale, 0.3, 1.45));
  dl->AddLine(c,
              ImVec2(c.x + len * static_cast<float>(std::cos(a.stored)),
                     c.y - len * static_cast<float>(std::sin(a.stored))),
              ok ? IM_COL32(80, 210, 120, 255) : IM_COL32(240, 80, 70, 255), 1.5f);
}

// The error table's columns sized from the text they hold (at any UI scale a number like
// "-8.8e-08" and a header like "layer 11" fit whole); when they do not fit the pane the
// table scrolls sideways instead of cutting numbers short. Begins the table (and sets up its
// columns and header row) when it returns true; the caller ends it.
bool kv_begin_meters_table(const AppContext& ctx, const KvSession& ses, int L, float scale) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const float pad = 2.0f * st.CellPadding.x + 4.0f * scale;
  float method_w = ImGui::CalcTextSize(ctx.tr("kv.method")).x;
  int rows = 0;
  for (const auto& m : ses.methods) {
    method_w = std::max(method_w, ImGui::CalcTextSize(kv_method_name(m.method).c_str()).x);
    rows += !m.history.empty();
  }
  const float number_w = ImGui::CalcTextSize("-8.8e-08").x;
  std::vector<std::string> headers;
  headers.reserve(static_cast<size_t>(std::max(L, 0)) + 1);
  for (int l = 0; l < L; ++l)
    headers.push_back(std::string(ctx.tr("kv.layer")).append(" ").append(std::to_string(l)));
  headers.emplace_back("logits");
  const float row_h = ImGui::GetTextLineHeight() + 2.0f * st.CellPadding.y;
  // The numbers' columns share what the pane has left, never less than their text.
  const float left = ImGui::GetContentRegionAvail().x - method_w - pad -
                     static_cast<float>(L + 2) * st.CellPadding.x * 2.0f - st.ScrollbarSize;
  const ImVec2 outer(0.0f, static_cast<float>(rows + 1) * row_h + st.ScrollbarSize + 4.0f * scale);
  if (!ImGui::BeginTable("##meters_t", L + 2,
                         ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg |
                             ImGuiTableFlags_ScrollX | ImGuiTableFlags_NoHostExtendY,
                         outer))
    return false;
  ImGui::TableSetupColumn(ctx.tr("kv.method"), ImGuiTableColumnFlags_WidthFixed, method_w + pad);
  for (const std::string& h : headers)
    ImGui::TableSetupColumn(h.c_str(), ImGuiTableColumnFlags_WidthFixed,
                            std::max({number_w + pad, ImGui::CalcTextSize(h.c_str()).x + pad,
                                      left / static_cast<float>(L + 1)}));
  ImGui::TableHeadersRow();
  return true;
}

void kv_meter(double e, float scale) {
  const float w = std::max(30.0f, ImGui::GetContentRegionAvail().x), h = ImGui::GetTextLineHeight();
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float t =
      static_cast<float>(std::clamp((std::log10(std::max(e, 1e-12)) + 9.0) / 9.0, 0.02, 1.0));
  dl->AddRectFilled(o, ImVec2(o.x + w, o.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  dl->AddRectFilled(o, ImVec2(o.x + w * t, o.y + h), error_colour(e));
  const std::string s = sci(e);
  dl->AddText(ImVec2(o.x + 3.0f * scale, o.y), ImGui::GetColorU32(ImGuiCol_Text), s.c_str());
  ImGui::Dummy(ImVec2(w, h));
}

// Error against the step number for every method on a log axis.
void kv_draw_plot(const AppContext& ctx, const KvSession& ses, const KvLabSettings& view,
                  KvPlotMetric metric, float scale) {
  const int l = view.view_layer;
  const char* what = ctx.tr(metric == KvPlotMetric::output ? "kv.output_error"
                            : metric == KvPlotMetric::keys ? "kv.key_error"
                                                           : "kv.logits_error");
  const bool sliding = view.scenario == KvScenario::sliding;
  text_wrapped("%s (%s %d), %s", what, ctx.tr("kv.layer"), l,
               ctx.tr(sliding ? "kv.over_slides" : "kv.over_new_tokens"));
  tooltip(ctx.tr(sliding ? "kv.plot_sliding_tip" : "kv.plot_stitch_tip"));
  // One series per method over steps 1..n (the values are core's KvStepErrors).
  std::vector<std::vector<double>> ys(ses.methods.size());
  PlotSpec spec;
  spec.id = "errors";
  spec.scale = scale;
  // At least 180 px of plot: below that the view scrolls (the legend sits above the data).
  spec.size = ImVec2(0, std::max(180.0f * scale, ImGui::GetContentRegionAvail().y -
                                                     ImGui::GetTextLineHeightWithSpacing()));
  spec.x.label = ctx.tr("kv.step");
  spec.y.log = true;
  spec.y.lo = 1e-10;
  spec.y.hi = 10;
  spec.marks.push_back({5.96e-8, IM_COL32(120, 200, 255, 110), ctx.tr("kv.f32_rounding")});
  spec.tooltip = false;  // our own: every metric of every method at that step
  for (size_t k = 0; k < ses.methods.size(); ++k) {
    const KvMethodState& st = ses.methods[k];
    for (const auto& e : st.history)
      ys[k].push_back(metric == KvPlotMetric::output ? e.output_error[l]
                      : metric == KvPlotMetric::keys ? e.key_error[l]
                                                     : e.logits_error);
    // Exactly zero has no place on a log axis: draw it at the bottom, say so in the tooltip.
    for (double& v : ys[k]) v = std::max(v, 1e-10);
    if (st.method == view.method) spec.highlight = static_cast<int>(k);
    spec.series.push_back({.label = kv_method_name(st.method),
                           .y = ys[k],
                           .x0 = 1,
                           .colour = method_colour(st.method),
                           .thickness = 1.3f});
  }
  const int steps = ses.step;
  const PlotHover hv = plot(spec);
  if (hv.hovered && hv.index >= 0) {
    const size_t i = static_cast<size_t>(hv.index);
    std::string tip = ctx.tr("kv.step") + (" " + std::to_string(i + 1));
    for (const auto& st : ses.methods)
      if (i < st.history.size()) {
        const auto& e = st.history[i];
        tip += "\n" + kv_method_name(st.method) + ": " + ctx.tr("kv.output") + " " +
               sci(e.output_error[l]) + ", " + ctx.tr("kv.keys") + " " + sci(e.key_error[l]) +
               ", logits " + sci(e.logits_error);
      }
    tooltip_show(tip);
  }
  ImGui::TextDisabled("%s 1..%d; %s", ctx.tr("kv.steps"), steps, ctx.tr("kv.blue_line"));
}

// The two stitching numbers, kept apart: positions (key-position error) and content
// (output difference against recomputing the stitched text).
void kv_draw_stitch_numbers(const AppContext& ctx, const KvSession& ses,
                            const KvLabSettings& view) {
  const int l = view.view_layer;
  const double ms = kv_rope_table_scale(view.model);
  ImGui::TextUnformatted(ctx.tr("kv.stitch_title"));
  ImGui::Separator();
  if (!ImGui::BeginTable("##stitch_t", 3,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn(ctx.tr("kv.method"));
  ImGui::TableSetupColumn(ctx.tr("kv.key_position_error"));
  ImGui::TableSetupColumn(ctx.tr("kv.output_vs_scratch"));
  ImGui::TableHeadersRow();
  for (const auto& st : ses.methods) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(method_colour(st.method)), "%s",
                       kv_method_name(st.method).c_str());
    ImGui::TableNextColumn();
    if (l < static_cast<int>(st.key_position_error.size()))
      ImGui::TextUnformatted(sci(st.key_position_error[l]).c_str());
    ImGui::TableNextColumn();
    if (!st.history.empty())
      ImGui::TextUnformatted(sci(st.history.back().output_error[l]).c_str());
    else
      ImGui::TextDisabled("%s", ctx.tr("kv.append_a_token"));
  }
  ImGui::EndTable();
  text_wrapped("%s (%s %d): %s %s", ctx.tr("kv.key_position_error"), ctx.tr("kv.layer"), l,
               ctx.tr("kv.key_position_text"),
               ctx.tr(ms != 1.0 ? "kv.scaled_off" : "kv.scaled_equal"));
  if (ms != 1.0)
    text_wrapped("YaRN: mscale = %.4f, %s %.4f x", ms, ctx.tr("kv.keys_too_long"), ms * ms);
  text_wrapped("%s (%s %d): %s", ctx.tr("kv.output_vs_scratch"), ctx.tr("kv.layer"), l,
               ctx.tr("kv.output_vs_scratch_text"));
}

// What the strip, the meters, the plot and the stitching table show, per method, with
// the CLI call printing it (every method of the scenario).
void kv_record_numbers(const KvSession& ses) {
  nlohmann::json n;
  for (size_t k = 0; k < ses.methods.size(); ++k) {
    const KvMethodState& st = ses.methods[k];
    const std::string m = "methods/" + std::to_string(k);
    n[m + "/method"] = kv_method_name(st.method);
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& e : st.history)
      steps.push_back({{"step", e.step},
                       {"output_error", e.output_error},
                       {"key_error", e.key_error},
                       {"logits_error", e.logits_error}});
    n[m + "/steps"] = steps;
    if (!st.key_position_error.empty()) n[m + "/key_position_error"] = st.key_position_error;
    std::vector<double> used, encoded;
    for (const auto& sl : st.cache.slots) {
      used.push_back(sl.used_at);
      encoded.push_back(sl.encoded_at);
    }
    n[m + "/final_cache/used_at"] = used;
    n[m + "/final_cache/encoded_at"] = encoded;
  }
  const std::string preset = kv_to_preset(ses.settings);
  record_drawn_numbers(kKvLabName, preset, {"kv", "--preset", preset, "--method", "all"}, n);
}

}  // namespace poslab::app
