// The KV-cache lab's stateless drawing pieces (see kv_views.hpp).
#include "app/panels/kv_views.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "app/widgets.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"

namespace poslab::app {

ImU32 method_colour(KvMethod m) {
  switch (m) {
    case KvMethod::naive:
      return IM_COL32(230, 80, 70, 255);
    case KvMethod::legacy:
      return IM_COL32(240, 170, 50, 255);
    case KvMethod::keep:
      return IM_COL32(90, 200, 240, 255);
    case KvMethod::kshift:
      return IM_COL32(80, 200, 120, 255);
    case KvMethod::reencode:
      return IM_COL32(170, 230, 90, 255);
    case KvMethod::reencode_scaled:
      return IM_COL32(220, 110, 220, 255);
    case KvMethod::recompute:
      return IM_COL32(200, 200, 200, 255);
  }
  return IM_COL32_WHITE;
}

const char* method_help(KvMethod m) {
  switch (m) {
    case KvMethod::naive:
      return "reuse cached K/V as they are: stale or duplicate indices";
    case KvMethod::legacy:
      return "UniZero: K += (P[new]-P[old]) W_k, V += (P[new]-P[old]) W_v per layer (approximate)";
    case KvMethod::keep:
      return "RoPE: keep absolute (episode-timestep) indices, only drop old slots";
    case KvMethod::kshift:
      return "RoPE: reset indices to 0.. and rotate each key once by (new - old) (llama.cpp "
             "K-shift)";
    case KvMethod::reencode:
      return "RoPE: inverse rotation at the old index, forward at the new (seed 001)";
    case KvMethod::reencode_scaled:
      return "reencode with the YaRN temperature in both cos/sin tables: keys come out mscale^2 "
             "too long";
    case KvMethod::recompute:
      return "rebuild the cache from the raw tokens: the exact fix";
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
void kv_draw_plot(const KvSession& ses, const KvLabSettings& view, KvPlotMetric metric,
                  float scale) {
  const int l = view.view_layer;
  const char* what = metric == KvPlotMetric::output ? "output error"
                     : metric == KvPlotMetric::keys ? "key error"
                                                    : "logits error";
  ImGui::Text("%s (layer %d) over %s", what, l,
              view.scenario == KvScenario::sliding ? "window slides" : "new tokens");
  tooltip(view.scenario == KvScenario::sliding
              ? "Exact corrections stay at rounding level (~1e-7 with a float32 cache). With "
                "more than one layer,\n"
                "reused caches also keep context from dropped tokens in layers >= 1: only "
                "recompute removes it."
              : "Against recomputing the stitched text from scratch: never zero for reused "
                "caches in layers >= 1.");
  // One series per method over steps 1..n (the values are core's KvStepErrors).
  std::vector<std::vector<double>> ys(ses.methods.size());
  PlotSpec spec;
  spec.id = "errors";
  spec.scale = scale;
  spec.size = ImVec2(0, std::max(80.0f * scale, ImGui::GetContentRegionAvail().y -
                                                    ImGui::GetTextLineHeightWithSpacing()));
  spec.x.label = "step";
  spec.y.log = true;
  spec.y.lo = 1e-10;
  spec.y.hi = 10;
  spec.marks.push_back({5.96e-8, IM_COL32(120, 200, 255, 110), "float32 rounding"});
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
    std::string tip = "step " + std::to_string(i + 1);
    for (const auto& st : ses.methods)
      if (i < st.history.size()) {
        const auto& e = st.history[i];
        tip += "\n" + kv_method_name(st.method) + ": output " + sci(e.output_error[l]) + ", keys " +
               sci(e.key_error[l]) + ", logits " + sci(e.logits_error);
      }
    ImGui::SetTooltip("%s", tip.c_str());
  }
  ImGui::TextDisabled("steps 1..%d; the blue line is float32 rounding (6e-8)", steps);
}

// The two stitching numbers, kept apart: positions (key-position error) and content
// (output difference against recomputing the stitched text).
void kv_draw_stitch_numbers(const KvSession& ses, const KvLabSettings& view) {
  const int l = view.view_layer;
  const double ms = kv_rope_table_scale(view.model);
  ImGui::TextUnformatted("Stitching: two numbers, two questions");
  ImGui::Separator();
  if (!ImGui::BeginTable("##stitch_t", 3,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp))
    return;
  ImGui::TableSetupColumn("method");
  ImGui::TableSetupColumn("key-position error");
  ImGui::TableSetupColumn("output vs scratch");
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
      ImGui::TextDisabled("append a token");
  }
  ImGui::EndTable();
  ImGui::TextWrapped(
      "Key-position error (layer %d): stitched keys against the source runs' raw keys rotated to "
      "their global "
      "index 0..L-1. It asks only 'is every key at the right position?': rounding level (~1e-7 "
      "float32) for "
      "reencode and kshift, large for naive%s.",
      l,
      ms != 1.0 ? "; reencode_scaled is off by mscale^2 - 1"
                : "; reencode_scaled equals reencode without YaRN");
  if (ms != 1.0)
    ImGui::TextWrapped("YaRN: mscale = %.4f, so keys come out %.4f x too long.", ms, ms * ms);
  ImGui::TextWrapped(
      "Output vs scratch (layer %d, newest token): against recomputing the stitched text from "
      "scratch. Non-zero even "
      "with exact re-encoding from layer 1 on, because each block's K/V were computed in another "
      "context (B alone, "
      "A alone): re-encoding fixes positions, not content. Layer 0 K/V depend only on token and "
      "index, so layer 0 "
      "agrees.",
      l);
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
