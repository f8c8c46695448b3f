// The attention lab's trained source (issue 27): its controls, its view (the real attention
// of a shipped byte-level model, unscaled beside the lab's RoPE scaling, L marked; the
// extrapolation demo's row entropy; the RoPE decay demo measured on held-out text) and its
// drawn-numbers record. All numbers come from core's attention_trained_compute.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/panels/attention_views.hpp"
#include "app/widgets.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/theme_colour.hpp"
#include "app/widgets/token_heatmap.hpp"
#include "app/widgets/tooltip.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_label.hpp"

namespace poslab::app {
namespace {

std::string trained_scaling_text(const AppContext& ctx, const lm::LmScaling& s) {
  return s.scaling == RopeScaling::none ? std::string(ctx.tr("attention.trained_unscaled"))
                                        : lm::lm_scaling_label(s);
}

// The series of one head in the decay plot: four distinct colours, then the theme's.
ImU32 trained_head_colour(int h) {
  static constexpr ImU32 k[] = {IM_COL32(255, 170, 60, 255),  IM_COL32(90, 170, 255, 255),
                                IM_COL32(120, 220, 120, 255), IM_COL32(230, 100, 200, 255),
                                IM_COL32(240, 230, 90, 255),  IM_COL32(150, 150, 255, 255)};
  return theme_colour(k[h % 6]);
}

void trained_cell_tooltip(const AppContext& ctx, const AttentionTrained& t,
                          const AttentionTrainedMap& m, int i, int j) {
  ImGui::BeginTooltip();
  ImGui::Text("%s %d \"%s\"  ->  %s %d \"%s\"", ctx.tr("attention.query"), i, t.tokens[i].c_str(),
              ctx.tr("attention.key"), j, t.tokens[j].c_str());
  ImGui::Text("%s %.5g   (%s)", ctx.tr("attention.weight"), static_cast<double>(m.weights(i, j)),
              trained_scaling_text(ctx, m.scaling).c_str());
  if (j > i) ImGui::TextDisabled("%s", ctx.tr("attention.cell_masked"));
  ImGui::EndTooltip();
}

void trained_distance_plot(const AppContext& ctx, const AttentionTrained& t, float scale,
                           float width) {
  PlotSpec spec;
  spec.id = "trained_distance";
  spec.scale = scale;
  spec.size =
      ImVec2(width, std::max(160.0f * scale, ImGui::GetContentRegionAvail().y -
                                                 3.0f * ImGui::GetTextLineHeightWithSpacing()));
  spec.x.label = ctx.tr("attention.query_position");
  spec.y.label = ctx.tr("attention.trained_distance_axis");
  spec.y.lo = 0;
  spec.series.push_back({.label = trained_scaling_text(ctx, t.plain.scaling),
                         .y = t.plain.row_distance,
                         .colour = theme_colour(IM_COL32(255, 170, 60, 255))});
  if (t.has_scaled)
    spec.series.push_back({.label = trained_scaling_text(ctx, t.scaled.scaling),
                           .y = t.scaled.row_distance,
                           .colour = theme_colour(IM_COL32(90, 170, 255, 255))});
  if (static_cast<int>(t.bytes.size()) > t.context)
    spec.x_marks.push_back({.x = static_cast<double>(t.context),
                            .colour = theme_colour(IM_COL32(255, 80, 80, 255)),
                            .label = "L = " + std::to_string(t.context)});
  plot(spec);
}

void trained_decay_view(const AppContext& ctx, const AttentionComputed& c, float scale,
                        float avail) {
  const AttentionTrained& t = c.trained;
  const AttentionTrainedDecay& d = t.decay;
  text_wrapped("%s", tr_args(ctx.tr("attention.trained_decay_text"),
                             {{"windows", std::to_string(d.windows)},
                              {"bytes", std::to_string(d.distances.size())},
                              {"layer", std::to_string(t.layer)}})
                         .c_str());
  const float w = std::max(kPlotMinWidth * scale, avail - 20.0f * scale);
  const float h =
      std::max(kPlotMinHeight * scale, (ImGui::GetContentRegionAvail().y - 80.0f * scale) * 0.5f);
  PlotSpec spec;
  spec.id = "trained_decay";
  spec.scale = scale;
  spec.size = ImVec2(w, h);
  spec.x.label = ctx.tr("attention.distance_axis");
  spec.y.label = ctx.tr("attention.trained_logit_axis");
  for (size_t k = 0; k < d.mean_logit.size(); ++k)
    spec.series.push_back({.label = std::string(ctx.tr("attention.head")) + " " + std::to_string(k),
                           .y = d.mean_logit[k],
                           .x = d.distances,
                           .colour = trained_head_colour(static_cast<int>(k))});
  if (static_cast<int>(d.distances.size()) > t.context)
    spec.x_marks.push_back({.x = static_cast<double>(t.context),
                            .colour = theme_colour(IM_COL32(255, 80, 80, 255)),
                            .label = "L = " + std::to_string(t.context)});
  plot(spec);
  for (size_t k = 0; k < d.near.size(); ++k)
    text_wrapped("%s", tr_args(ctx.tr("attention.trained_decay_head"),
                               {{"head", std::to_string(k)},
                                {"near", num_text("%.2f", static_cast<double>(d.near[k]))},
                                {"lo", std::to_string(t.context / 4)},
                                {"hi", std::to_string(t.context - 1)},
                                {"inside", num_text("%.2f", static_cast<double>(d.inside[k]))},
                                {"L", std::to_string(t.context)},
                                {"L2", std::to_string(2 * t.context - 1)},
                                {"past", num_text("%.2f", static_cast<double>(d.past[k]))}})
                           .c_str());
  const char* trend =
      d.trend == AttentionTrainedDecay::Trend::rises_past_L       ? "attention.trained_decay_rises"
      : d.trend == AttentionTrainedDecay::Trend::stays_low_past_L ? "attention.trained_decay_stays"
                                                                  : "attention.trained_decay_mixed";
  text_wrapped("%s", ctx.tr(trend));
  if (!d.bound.empty()) {
    text_wrapped("%s", tr_args(ctx.tr("attention.trained_bound_title"),
                               {{"dim", std::to_string(t.head_dim)}})
                           .c_str());
    PlotSpec b;
    b.id = "trained_bound";
    b.scale = scale;
    b.size = ImVec2(
        w, std::max(kPlotMinHeight * scale, ImGui::GetContentRegionAvail().y -
                                                2.0f * ImGui::GetTextLineHeightWithSpacing()));
    b.x.label = ctx.tr("attention.distance_axis");
    b.legend = false;
    b.series.push_back({.label = ctx.tr("attention.qk_ones"),
                        .y = d.bound,
                        .x = d.distances,
                        .colour = theme_colour(IM_COL32(200, 200, 200, 255))});
    if (static_cast<int>(d.distances.size()) > t.context) b.x_marks = spec.x_marks;
    plot(b);
  }
}

}  // namespace

void attention_trained_controls(const AppContext& ctx, AttentionLabSettings& s,
                                const AttentionTrained* shown, float scale) {
  auto T = [&](const char* key) { return ctx.tr(key); };
  auto L = [&](const char* key) { return tr_id(ctx, key); };
  (void)scale;
  if (ImGui::BeginCombo(L("attention.trained_model").c_str(), lm::length_model_name(s.model))) {
    for (size_t i = 0; i < lm::length_model_names().size(); ++i) {
      const auto id = static_cast<lm::LengthModelId>(i);
      if (ImGui::Selectable(lm::length_model_names()[i].c_str(), id == s.model)) s.model = id;
    }
    ImGui::EndCombo();
  }
  tooltip(T("attention.trained_model_tip"));
  // The decay demo runs every head of the layer with the model's own scaling.
  const bool decay = s.demo == AttentionDemo::rope_decay;
  if (!decay) {
    int sc = static_cast<int>(s.scaling);
    if (ImGui::BeginCombo(L("attention.trained_scaling").c_str(),
                          rope_scaling_names()[static_cast<size_t>(sc)].c_str())) {
      for (size_t i = 0; i < rope_scaling_names().size(); ++i)
        if (ImGui::Selectable(rope_scaling_names()[i].c_str(), static_cast<int>(i) == sc))
          sc = static_cast<int>(i);
      ImGui::EndCombo();
    }
    s.scaling = static_cast<RopeScaling>(sc);
    tooltip(T("attention.trained_scaling_tip"));
    if (s.scaling != RopeScaling::none)
      slider_double(L("attention.trained_factor").c_str(), s.factor, lm::LmScaling::factor_range,
                    "%.3g", true, T("attention.trained_scaling_tip"));
  }
  const int layers = shown ? shown->layers : AttentionLabSettings::layer_range.hi + 1;
  const int heads = shown ? shown->heads : AttentionLabSettings::head_range.hi + 1;
  s.layer = std::min(s.layer, layers - 1);
  s.head = std::min(s.head, heads - 1);
  slider_int(L("attention.trained_layer").c_str(), s.layer, {0, static_cast<double>(layers - 1)},
             false, T("attention.trained_layer_tip"));
  if (!s.mean_heads && !decay)
    slider_int(L("attention.head").c_str(), s.head, {0, static_cast<double>(heads - 1)}, false,
               T("attention.head_tip"));
  if (!decay) {
    ImGui::Checkbox(L("attention.trained_mean_heads").c_str(), &s.mean_heads);
    tooltip(T("attention.trained_mean_heads_tip"));
  }
  if (s.source == AttentionSource::count || s.demo != AttentionDemo::none)
    slider_int(L("attention.trained_passage").c_str(), s.passage,
               AttentionLabSettings::passage_range, false, T("attention.trained_passage_tip"));
}

bool attention_trained_upload(const AttentionComputed& c, gfx::HeatmapTexture& a,
                              gfx::HeatmapTexture& b, ColorScaleKind kind, std::string& uploaded) {
  const std::string key = "trained|" + c.key + "|" + std::to_string(static_cast<int>(kind));
  if (uploaded == key || !c.has_trained || c.trained.has_decay) return false;
  const AttentionTrained& t = c.trained;
  if (t.has_scaled)  // one colour range: the two maps are compared cell by cell
    heatmap_upload_shared(a, t.plain.weights, b, t.scaled.weights, false, kind);
  else
    heatmap_upload(a, t.plain.weights, false, 0, kind);
  uploaded = key;
  return true;
}

void attention_draw_trained(const AppContext& ctx, const AttentionComputed& c,
                            gfx::HeatmapTexture& a, gfx::HeatmapTexture& b, float scale,
                            float avail) {
  if (!c.load_error.empty()) {
    text_wrapped("%s", c.load_error.c_str());
    return;
  }
  const AttentionTrained& t = c.trained;
  const std::string head =
      t.has_decay  ? std::string(ctx.tr("attention.trained_all_heads"))
      : t.head < 0 ? std::string(ctx.tr("attention.trained_mean"))
                   : std::string(ctx.tr("attention.head")) + " " + std::to_string(t.head);
  text_wrapped("%s", tr_args(ctx.tr("attention.trained_header"),
                             {{"model", lm::length_model_name(t.model)},
                              {"L", std::to_string(t.context)},
                              {"layers", std::to_string(t.layers)},
                              {"heads", std::to_string(t.heads)},
                              {"dim", std::to_string(t.head_dim)},
                              {"layer", std::to_string(t.layer)},
                              {"head", head},
                              {"bytes", std::to_string(t.bytes.size())},
                              {"text", ctx.tr(t.heldout ? "attention.trained_heldout"
                                                        : "attention.trained_own_text")}})
                         .c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped("%s", ctx.tr("attention.trained_bytes_note"));
  ImGui::PopStyleColor();
  if (t.has_decay) {
    trained_decay_view(ctx, c, scale, avail);
    return;
  }
  const bool extrapolation = c.lab.demo == AttentionDemo::extrapolation;
  if (extrapolation || t.has_scaled) {
    std::string line =
        tr_args(ctx.tr("attention.trained_distance_line"),
                {{"scaling", trained_scaling_text(ctx, t.plain.scaling)},
                 {"before", num_text("%.1f", static_cast<double>(t.plain.distance_before_L))},
                 {"after", num_text("%.1f", static_cast<double>(t.plain.distance_after_L))},
                 {"L", std::to_string(t.context)}});
    if (t.has_scaled)
      line +=
          "  " +
          tr_args(ctx.tr("attention.trained_distance_line"),
                  {{"scaling", trained_scaling_text(ctx, t.scaled.scaling)},
                   {"before", num_text("%.1f", static_cast<double>(t.scaled.distance_before_L))},
                   {"after", num_text("%.1f", static_cast<double>(t.scaled.distance_after_L))},
                   {"L", std::to_string(t.context)}});
    if (static_cast<int>(t.bytes.size()) > t.context) text_wrapped("%s", line.c_str());
  }
  if (extrapolation) text_wrapped("%s", ctx.tr("attention.trained_extrapolation_text"));
  const int mark = static_cast<int>(t.bytes.size()) > t.context ? t.context : -1;
  const int panes = t.has_scaled ? 2 : 1;
  const float below = extrapolation ? 0.45f : 0.0f;  // the entropy plot under the maps
  const float side =
      std::clamp(std::min((avail - panes * 90.0f * scale) / panes,
                          (ImGui::GetContentRegionAvail().y - 90.0f * scale) * (1.0f - below)),
                 100.0f * scale, 700.0f * scale);
  ImGui::BeginGroup();
  ImGui::TextUnformatted(trained_scaling_text(ctx, t.plain.scaling).c_str());
  const CellHover ha =
      token_heatmap("trained_a", a, t.tokens, side, scale, ctx.tr("attention.rows_cols"), mark);
  ImGui::EndGroup();
  if (ha.row >= 0) trained_cell_tooltip(ctx, t, t.plain, ha.row, ha.col);
  if (t.has_scaled) {
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(trained_scaling_text(ctx, t.scaled.scaling).c_str());
    const CellHover hb =
        token_heatmap("trained_b", b, t.tokens, side, scale, ctx.tr("attention.rows_cols"), mark);
    ImGui::EndGroup();
    if (hb.row >= 0) trained_cell_tooltip(ctx, t, t.scaled, hb.row, hb.col);
  }
  if (extrapolation)
    trained_distance_plot(ctx, t, scale, std::max(kPlotMinWidth * scale, avail - 20.0f * scale));
}

std::string attention_trained_check(const AttentionComputed& c, int map_rows) {
  if (!c.load_error.empty()) return {};  // shown in place: what to install or train
  if (!c.has_trained) return "the trained source computed nothing";
  const AttentionTrained& t = c.trained;
  if (t.has_decay) {
    if (t.decay.windows < 1 || t.decay.mean_logit.size() != static_cast<size_t>(t.heads))
      return "decay demo: no curves";
  } else {
    const int n = static_cast<int>(t.bytes.size());
    for (const AttentionTrainedMap* m : {&t.plain, &t.scaled}) {
      if (m == &t.scaled && !t.has_scaled) continue;
      if (m->weights.rows() != n || m->weights.cols() != n) return "trained map is not n x n";
      for (int i = 0; i < n; ++i) {
        const float sum = m->weights.row(i).sum();
        if (std::abs(sum - 1.0f) > 1e-3f)
          return "trained row " + std::to_string(i) + " sums to " + std::to_string(sum);
        for (int j = i + 1; j < n; ++j)
          if (m->weights(i, j) != 0.0f)
            return "trained map not causal at " + std::to_string(i) + "," + std::to_string(j);
      }
    }
    if (map_rows != n)
      return "trained heatmap has " + std::to_string(map_rows) + " rows, want " + std::to_string(n);
  }
  if (drawn_numbers_wanted()) attention_record_trained(c);
  return {};
}

void attention_record_trained(const AttentionComputed& c) {
  if (!c.has_trained) return;
  const AttentionTrained& t = c.trained;
  nlohmann::json n;
  auto rows = [&n](const std::string& path, const auto& m) { attention_record_rows(n, path, m); };
  n["context"] = t.context;
  n["layer"] = t.layer;
  n["head"] = t.head;
  n["bytes"] = std::vector<int>(t.bytes.begin(), t.bytes.end());
  if (t.has_decay) {
    n["demo/bound"] = t.decay.bound;
    for (size_t h = 0; h < t.decay.mean_logit.size(); ++h)
      n["demo/heads/" + std::to_string(h) + "/mean_logit"] = t.decay.mean_logit[h];
  } else {
    rows("per_head/0/weights", t.plain.weights);
    n["per_head/0/row_distance"] = t.plain.row_distance;
    if (t.has_scaled) {
      rows("scaled/weights", t.scaled.weights);
      n["scaled/row_distance"] = t.scaled.row_distance;
    }
  }
  const std::string preset = attention_to_preset(c.lab);
  record_drawn_numbers(kAttentionLabName, preset, {"attention", "--preset", preset}, n);
}

}  // namespace poslab::app
