// The attention lab's tooltip, demo views and drawn-numbers record (see attention_views.hpp).
// Sections: encoding names and captions | cell tooltip | encoding controls | demo views
// (extrapolation, angle reach, decay, slopes, buckets) | side by side | patch-grid mode |
// drawn-numbers record.
#include "app/panels/attention_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "app/widgets.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/rope_controls.hpp"
#include "app/widgets/theme_colour.hpp"
#include "app/widgets/token_heatmap.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"

namespace poslab::app {

const char* attention_encoding_text(const AppContext& ctx, AttentionEncoding e) {
  switch (e) {
    case AttentionEncoding::none:
      return ctx.tr("attention.enc.none");
    case AttentionEncoding::sinusoidal:
      return ctx.tr("attention.enc.sin");
    case AttentionEncoding::sinusoidal_concat:
      return ctx.tr("attention.enc.sin_concat");
    case AttentionEncoding::learned:
      return ctx.tr("attention.enc.learned");
    case AttentionEncoding::rope:
      return ctx.tr("attention.enc.rope");
    case AttentionEncoding::alibi:
      return ctx.tr("attention.enc.alibi");
    case AttentionEncoding::t5:
      return ctx.tr("attention.enc.t5");
    case AttentionEncoding::swin:
      return ctx.tr("attention.enc.swin");
    case AttentionEncoding::sincos_2d:
      return ctx.tr("attention.enc.sincos2d");
    case AttentionEncoding::elevation:
      return ctx.tr("attention.enc.elevation");
  }
  return attention_encoding_label(e);
}

std::string attention_caption(const AppContext& ctx, const AttentionComputed& c, bool second) {
  const AttentionLabSettings& s = c.lab;
  switch (s.demo) {
    case AttentionDemo::none:
      if (s.compare == AttentionCompare::encodings)
        return attention_encoding_text(ctx, second ? s.compare_encoding : s.params.encoding);
      if (s.compare == AttentionCompare::orderings)
        return ctx.tr(second ? "attention.cap_second_ordering" : "attention.cap_first_ordering");
      break;
    case AttentionDemo::permutation:
      if (!second) return ctx.tr("attention.cap_as_given");
      return ctx.tr(c.caption_b.find("reversed") != std::string::npos ? "attention.cap_reversed"
                                                                      : "attention.cap_reordered");
    case AttentionDemo::shift: {
      if (!second) return std::string(ctx.tr("attention.cap_positions")) + " 0, 1, 2, ...";
      char k[32];
      std::snprintf(k, sizeof k, " + %g", s.shift);
      return ctx.tr("attention.cap_positions") + std::string(k);
    }
    default:
      break;
  }
  return second ? c.caption_b : c.caption_a;
}

// Hover: the cell's numbers and its term split.
void attention_cell_tooltip(const AppContext& ctx, const AttentionComputed& c,
                            const AttentionModel& m, const AttentionResult& r, int i, int j) {
  const auto& in = m.input;
  ImGui::BeginTooltip();
  ImGui::Text("%s %d \"%s\" (%s %g)  ->  %s %d \"%s\" (%s %g)", ctx.tr("attention.query"), i,
              in.tokens[i].c_str(), ctx.tr("attention.position_word"), in.positions[i],
              ctx.tr("attention.key"), j, in.tokens[j].c_str(), ctx.tr("attention.position_word"),
              in.positions[j]);
  if (m.params.encoding == AttentionEncoding::sincos_2d ||
      m.params.encoding == AttentionEncoding::swin)
    ImGui::Text("(%s): (%g, %g) -> (%g, %g)", ctx.tr("attention.row_col"), in.rows[i], in.cols[i],
                in.rows[j], in.cols[j]);
  attention_cell_terms(ctx, c, m, r, i, j);
  ImGui::EndTooltip();
}

void attention_cell_terms(const AppContext& ctx, const AttentionComputed& c,
                          const AttentionModel& m, const AttentionResult& r, int i, int j) {
  const int head = c.lab.head;
  const AttentionHeadResult& h = r.heads[head];
  const ScoreTerms t = attention_score_terms(m, head, i, j);
  ImGui::Text("logit %.5g    %s %.5g", static_cast<double>(h.scores(i, j)),
              ctx.tr("attention.weight"), static_cast<double>(h.weights(i, j)));
  if (t.masked) ImGui::TextDisabled("%s", ctx.tr("attention.cell_masked"));
  if (t.undefined)
    ImGui::TextColored(ImColor(theme_colour(ImVec4(1, 0.6f, 0.4f, 1))), "%s",
                       ctx.tr("attention.cell_undefined"));
  ImGui::Separator();
  for (const NamedTerm& n : attention_score_term_list(m, t))
    ImGui::Text("%-20s %+.5g", n.label, n.value);
  ImGui::Text("%-20s %+.5g", ctx.tr("attention.sum_logit"), t.total);
}

// The controls of the chosen encoding's own parameters.
void attention_encoding_controls(const AppContext& ctx, AttentionParams& p, float scale) {
  auto T = [&](const char* key) { return ctx.tr(key); };
  auto L = [&](const char* key) { return tr_id(ctx, key); };
  switch (p.encoding) {
    case AttentionEncoding::sinusoidal:
    case AttentionEncoding::sinusoidal_concat:
    case AttentionEncoding::sincos_2d:
      slider_double(L("attention.sin_base").c_str(), p.sin_base, AttentionParams::sin_base_range,
                    "%.6g", true, T("attention.sin_base_tip"));
      break;
    case AttentionEncoding::learned:
      slider_int(L("attention.table_length").c_str(), p.table_length,
                 AttentionParams::table_length_range, true, T("attention.table_length_tip"));
      slider_double(L("attention.row_std").c_str(), p.learned_std,
                    AttentionParams::learned_std_range, "%.3g", true, T("attention.row_std_tip"));
      break;
    case AttentionEncoding::rope: {
      rope_controls(
          ctx, p.rope,
          {.head_dim = false, .rotary_fraction = false, .layout_diagram = false, .scaling = false},
          scale);
      tooltip(T("attention.rope_layout_tip"));
      ImGui::Checkbox(L("attention.mixed_bug").c_str(), &p.rope_mixed);
      tooltip(T("attention.mixed_bug_tip"));
      break;
    }
    case AttentionEncoding::t5:
      ImGui::Checkbox(L("attention.t5_bidir").c_str(), &p.t5_bidirectional);
      tooltip(T("attention.t5_bidir_tip"));
      if (slider_int(L("attention.t5_buckets").c_str(), p.t5_buckets,
                     AttentionParams::t5_buckets_range, false, T("attention.t5_buckets_tip")))
        p.t5_buckets += p.t5_buckets % 2;
      slider_int(L("attention.t5_max_distance").c_str(), p.t5_max_distance,
                 AttentionParams::t5_max_distance_range, true, T("attention.t5_max_distance_tip"));
      slider_double(L("attention.bias_std").c_str(), p.bias_std, AttentionParams::bias_std_range,
                    "%.3g", false, T("attention.t5_bias_std_tip"));
      break;
    case AttentionEncoding::swin:
      slider_double(L("attention.bias_std").c_str(), p.bias_std, AttentionParams::bias_std_range,
                    "%.3g", false, T("attention.swin_bias_std_tip"));
      break;
    case AttentionEncoding::elevation:
      slider_double("alpha", p.elevation_alpha, AttentionParams::elevation_alpha_range, "%.3g",
                    false, T("attention.alpha_tip"));
      slider_double(L("attention.terrain_max").c_str(), p.terrain_max_m,
                    AttentionParams::terrain_max_range, "%.0f", false,
                    T("attention.terrain_max_tip"));
      break;
    case AttentionEncoding::alibi:
      ImGui::TextDisabled("%s", T("attention.alibi_note"));
      break;
    case AttentionEncoding::none:
      ImGui::TextDisabled("%s", T("attention.none_note"));
      break;
  }
}

void attention_draw_extrapolation(const AppContext& ctx, const AttentionComputed& c,
                                  gfx::HeatmapTexture& demo, float scale, float avail) {
  const ExtrapolationDemo& d = c.extrapolation;
  text_wrapped("%s", tr_format(ctx, d.note_message).c_str());
  if (!d.result.note.empty() && d.note.find(d.result.note) == std::string::npos)
    text_wrapped("%s", tr_format(ctx, d.result.note_message).c_str());
  const float side =
      std::clamp(std::min(avail * 0.5f, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                 120.0f * scale, 700.0f * scale);
  ImGui::BeginGroup();
  ImGui::Text("%d %s; %s L = %d", static_cast<int>(d.model.input.tokens.size()),
              ctx.tr("attention.n_tokens"), ctx.tr("attention.red_lines"), d.trained_length);
  const CellHover hv = token_heatmap("extra", demo, d.model.input.tokens, side, scale,
                                     ctx.tr("attention.rows_cols"), d.trained_length);
  ImGui::EndGroup();
  if (hv.row >= 0) attention_cell_tooltip(ctx, c, d.model, d.result, hv.row, hv.col);
  // Beside the map and its row labels (~72 px) when the plots keep their minimum width there,
  // else below it (UI scale 2). Titles and notes wrap at the plots' width: the group never
  // grows past the view.
  const float beside_w = avail - side - ImGui::GetStyle().ItemSpacing.x - 72.0f * scale;
  const bool beside = beside_w >= kPlotMinWidth * scale;
  if (beside) ImGui::SameLine();
  ImGui::BeginGroup();
  const std::vector<double>& e = d.row_entropy[c.lab.head];
  int undefined = 0;
  for (double v : e) undefined += std::isnan(v) ? 1 : 0;
  const RopeAngleReach& reach = d.slowest_pair;
  const float plot_w = std::max(kPlotMinWidth * scale, beside ? beside_w : avail - 24.0f * scale);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + plot_w);
  text_wrapped("%s", ctx.tr("attention.entropy_title"));
  PlotSpec spec;
  spec.id = "entropy";
  spec.scale = scale;
  spec.size =
      ImVec2(plot_w, reach.pair >= 0 ? std::max(140.0f * scale, side * 0.32f) : 200.0f * scale);
  spec.x.label = ctx.tr("attention.query_position");
  spec.legend = false;
  spec.series.push_back({.label = ctx.tr("attention.entropy"),
                         .y = e,
                         .colour = theme_colour(IM_COL32(255, 170, 60, 255))});
  plot(spec);
  if (undefined)
    ImGui::TextColored(ImColor(theme_colour(ImVec4(1, 0.6f, 0.4f, 1))), "%d %s", undefined,
                       ctx.tr("attention.rows_undefined"));
  if (reach.pair >= 0) attention_draw_angle_reach(ctx, reach, d.trained_length, scale, plot_w);
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

// RoPE past L: the slowest pair's angle against position, the angles training saw shaded.
void attention_draw_angle_reach(const AppContext& ctx, const RopeAngleReach& r, int trained_length,
                                float scale, float width) {
  ImGui::Spacing();
  text_wrapped("%s", ctx.tr("attention.angle_title"));
  PlotSpec spec;
  spec.id = "slowest_angle";
  spec.scale = scale;
  spec.size =
      ImVec2(width, std::max(160.0f * scale, ImGui::GetContentRegionAvail().y -
                                                 4.5f * ImGui::GetTextLineHeightWithSpacing()));
  spec.x.label = ctx.tr("attention.position_m");
  spec.y.label = ctx.tr("attention.angle_axis");
  spec.y.lo = 0;
  spec.legend = false;
  spec.series.push_back({.label = ctx.tr("attention.angle_series"),
                         .y = r.angle,
                         .colour = theme_colour(IM_COL32(90, 170, 255, 255)),
                         .thickness = 2.0f});
  spec.bands.push_back({.lo = 0,
                        .hi = r.trained_max,
                        .colour = theme_colour(IM_COL32(80, 200, 120, 70)),
                        .label = ctx.tr("attention.seen_in_training"),
                        .label_colour = theme_colour(IM_COL32(120, 230, 150, 255))});
  spec.x_marks.push_back({.x = static_cast<double>(trained_length),
                          .colour = theme_colour(IM_COL32(255, 80, 80, 255)),
                          .label = "L = " + std::to_string(trained_length)});
  plot(spec);
  const double last = r.angle.empty() ? 0.0 : r.angle.back();
  char theta[32], seen[32], reached[32], times[32];
  std::snprintf(theta, sizeof theta, "%.4g", r.inv_freq);
  std::snprintf(seen, sizeof seen, "%.4g", r.trained_max);
  std::snprintf(reached, sizeof reached, "%.4g", last);
  std::snprintf(times, sizeof times, "%.2f", r.trained_max > 0 ? last / r.trained_max : 0.0);
  text_wrapped("%s", tr_args(ctx.tr("attention.angle_reach"),
                             {{"pair", std::to_string(r.pair)},
                              {"theta", theta},
                              {"seen", seen},
                              {"last", std::to_string(static_cast<int>(r.angle.size()) - 1)},
                              {"reached", reached},
                              {"times", times}})
                         .c_str());
}

void attention_draw_decay(const AppContext& ctx, const AttentionComputed& c,
                          gfx::HeatmapTexture& /*demo*/, float scale, float avail) {
  const RopeDecay& d = c.decay;
  text_wrapped("base = %g, head dim = %d, head = %d. %s", c.lab.params.rope.base,
               c.lab.params.head_dim, c.lab.head, ctx.tr("attention.decay_text"));
  PlotSpec spec;
  spec.id = "decay";
  spec.scale = scale;
  spec.size = ImVec2(std::max(200.0f * scale, avail - 20.0f * scale),
                     std::max(200.0f * scale, ImGui::GetContentRegionAvail().y - 40.0f * scale));
  spec.x.label = ctx.tr("attention.distance_axis");
  spec.series.push_back({.label = ctx.tr("attention.qk_ones"),
                         .y = d.ones,
                         .x = d.deltas,
                         .colour = theme_colour(IM_COL32(255, 170, 60, 255))});
  spec.series.push_back({.label = std::string(ctx.tr("attention.qk_seeded")) + " (head " +
                                  std::to_string(c.lab.head) + ")",
                         .y = d.content,
                         .x = d.deltas,
                         .colour = IM_COL32(90, 170, 255, 255)});
  // The smooth envelope: RoFormer's relative upper bound (a formula, not a measurement).
  spec.series.push_back({.label = ctx.tr("attention.decay_bound"),
                         .y = d.bound,
                         .x = d.deltas,
                         .colour = theme_colour(IM_COL32(120, 220, 120, 255)),
                         .thickness = 2.5f});
  plot(spec);
  ImGui::TextDisabled("poslab-cli attention --preset '%s'", c.key.c_str());
}

int attention_draw_slopes(const AppContext& ctx, const AttentionComputed& c,
                          std::vector<std::unique_ptr<gfx::HeatmapTexture>>& heads, float scale,
                          float avail) {
  text_wrapped("%s", ctx.tr("attention.slopes_text"));
  // Wide enough for the longest slope ("0.00390625" for 8 heads) and its log2: never cut.
  const ImGuiStyle& table_st = ImGui::GetStyle();
  const float table_w = ImGui::CalcTextSize("000 *").x + ImGui::CalcTextSize("0.000000000").x +
                        ImGui::CalcTextSize("-00.0").x + 6.0f * table_st.CellPadding.x +
                        table_st.ScrollbarSize + 8.0f * scale;
  ImGui::BeginGroup();
  if (ImGui::BeginTable(
          "slopes", 3,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
          ImVec2(table_w, std::max(150.0f * scale, ImGui::GetContentRegionAvail().y - 10.0f)))) {
    ImGui::TableSetupColumn(
        ctx.tr("attention.head"), ImGuiTableColumnFlags_WidthFixed,
        std::max(ImGui::CalcTextSize("000 *").x, ImGui::CalcTextSize(ctx.tr("attention.head")).x));
    ImGui::TableSetupColumn(ctx.tr("attention.slope"), ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("log2", ImGuiTableColumnFlags_WidthFixed,
                            ImGui::CalcTextSize("-00.0").x);
    ImGui::TableHeadersRow();
    for (size_t h = 0; h < c.slopes.size(); ++h) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%zu%s", h, static_cast<int>(h) == c.lab.head ? " *" : "");
      ImGui::TableNextColumn();
      ImGui::Text("%.6g", c.slopes[h]);
      ImGui::TableNextColumn();
      ImGui::Text("%.3g", std::log2(c.slopes[h]));
    }
    ImGui::EndTable();
  }
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  const int H = static_cast<int>(c.demo_heads.size());
  const int T = static_cast<int>(c.demo_matrix.rows());
  text_wrapped("%s", tr_args(ctx.tr("attention.all_heads_title"),
                             {{"heads", std::to_string(H)}, {"tokens", std::to_string(T)}})
                         .c_str());
  // Small multiples: the column count that gives the largest square maps in the pane.
  const ImGuiStyle& st = ImGui::GetStyle();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float w = std::max(200.0f * scale, avail - table_w - st.ItemSpacing.x - 8.0f * scale);
  const float h = std::max(200.0f * scale, ImGui::GetContentRegionAvail().y - 2.0f * line);
  int cols = 1;
  float cell = 0;
  for (int k = 1; k <= std::max(H, 1); ++k) {
    const int rows = (H + k - 1) / k;
    const float side = std::min((w - (k - 1) * st.ItemSpacing.x) / k,
                                (h - rows * (line + st.ItemSpacing.y)) / std::max(rows, 1));
    if (side > cell) cell = side, cols = k;
  }
  cell = std::clamp(cell, 40.0f * scale, 400.0f * scale);
  int clicked = -1, hovered = -1;
  ImVec2 hover_cell(-1, -1);
  for (int k = 0; k < H && k < static_cast<int>(heads.size()); ++k) {
    if (k % cols) ImGui::SameLine();
    ImGui::BeginGroup();
    // The slope, and the bias it gives the farthest key: steep heads only see nearby keys.
    ImGui::Text("%s %d: %.4g  (%d: %.3g)", ctx.tr("attention.head"), k, c.slopes[k], T - 1,
                -c.slopes[k] * (T - 1));
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 hv = heads[k]->draw(ImVec2(cell, cell));
    if (ImGui::IsItemClicked()) clicked = k;
    if (hv.x >= 0) hovered = k, hover_cell = hv;
    if (k == c.lab.head)
      ImGui::GetWindowDrawList()->AddRect(
          ImVec2(at.x - 2, at.y - 2), ImVec2(at.x + cell + 2, at.y + cell + 2),
          theme_colour(IM_COL32(255, 215, 80, 255)), 0, 0, 2.0f * scale);
    ImGui::EndGroup();
  }
  ImGui::TextDisabled("%s", ctx.tr("attention.slopes_own_scale"));
  if (hovered >= 0) {
    const int i = static_cast<int>(hover_cell.y), j = static_cast<int>(hover_cell.x);
    ImGui::BeginTooltip();
    ImGui::Text("%s %d (%s %d, %s %d): %.4g", ctx.tr("attention.bias_of_head"), hovered,
                ctx.tr("attention.query"), i, ctx.tr("attention.key"), j,
                static_cast<double>(c.demo_heads[hovered](i, j)));
    ImGui::EndTooltip();
  }
  ImGui::EndGroup();
  return clicked;
}

void attention_draw_buckets(const AppContext& ctx, const AttentionComputed& c,
                            gfx::HeatmapTexture& demo, float scale, float avail) {
  const AttentionParams& p = c.lab.params;
  text_wrapped("%s (%s, %d %s, %s %d). %s", ctx.tr("attention.buckets_title"),
               ctx.tr(p.t5_bidirectional ? "attention.bidirectional" : "attention.decoder"),
               p.t5_buckets, ctx.tr("attention.buckets_word"), ctx.tr("attention.t5_max_distance"),
               p.t5_max_distance, ctx.tr("attention.buckets_text"));
  const float side =
      std::clamp(std::min(avail - 350.0f * scale, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                 120.0f * scale, 700.0f * scale);
  ImGui::BeginGroup();
  const CellHover hv = token_heatmap("buckets", demo, c.model.input.tokens, side, scale,
                                     ctx.tr("attention.rows_cols"));
  ImGui::EndGroup();
  if (hv.row >= 0) {
    ImGui::BeginTooltip();
    ImGui::Text("key - query = %g  ->  %s %.0f",
                c.model.input.positions[hv.col] - c.model.input.positions[hv.row],
                ctx.tr("attention.bucket"), static_cast<double>(c.demo_matrix(hv.row, hv.col)));
    ImGui::EndTooltip();
  }
  ImGui::SameLine();
  if (ImGui::BeginTable(
          "ranges", 3,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
          ImVec2(320.0f * scale,
                 std::max(150.0f * scale, ImGui::GetContentRegionAvail().y - 10.0f)))) {
    ImGui::TableSetupColumn(ctx.tr("attention.bucket"), ImGuiTableColumnFlags_WidthFixed,
                            50.0f * ImGui::GetIO().FontGlobalScale);
    ImGui::TableSetupColumn("key - query", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn(ctx.tr("attention.count"), ImGuiTableColumnFlags_WidthFixed,
                            50.0f * ImGui::GetIO().FontGlobalScale);
    ImGui::TableHeadersRow();
    for (const auto& r : c.bucket_ranges) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.bucket);
      ImGui::TableNextColumn();
      if (!r.count)
        ImGui::TextDisabled("(%s)", ctx.tr("attention.empty"));
      else if (r.lo == r.hi && !r.open_ended)
        ImGui::Text("%d", r.lo);
      else
        ImGui::Text("%d .. %d%s", r.lo, r.hi, r.open_ended ? ctx.tr("attention.beyond") : "");
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.count);
    }
    ImGui::EndTable();
  }
}

// Side by side: the two maps and their difference, with the cells' tooltips.
void attention_draw_pair(const AppContext& ctx, const AttentionComputed& c, bool show_scores,
                         gfx::HeatmapTexture& main, gfx::HeatmapTexture& second,
                         gfx::HeatmapTexture& diff, float scale, float avail) {
  auto T = [&](const char* key) { return ctx.tr(key); };
  auto shown_matrix = [&](const AttentionHeadResult& h) -> const RowMatrixF& {
    return show_scores ? h.scores : h.weights;
  };
  const AttentionComparison& pc = c.pair;
  text_wrapped("%s", tr_format(ctx, pc.note_message).c_str());
  if (pc.max_abs_score_diff < 1e-4)
    ImGui::TextColored(ImColor(theme_colour(ImVec4(0.5f, 0.9f, 0.5f, 1.0f))), "%s",
                       T("attention.diff_zero"));
  // Three maps in a row, or (a pane taller than wide enough, UI scale 1.5 or 2) the two
  // sides above and their difference below: whichever gives the larger maps. Beside each map
  // its row labels (the widest token, capped at 90 px as token_heatmap caps it), above it the
  // column labels standing upright, around it its caption, colour bar and legend lines.
  float label_w = 0;
  for (const auto* tokens : {&pc.model_a.input.tokens, &pc.model_b.input.tokens})
    for (const std::string& t : *tokens)
      label_w = std::max(label_w, ImGui::CalcTextSize(t.c_str()).x);
  label_w = std::min(label_w, 90.0f * scale);
  const float margin = label_w + 10.0f * scale + ImGui::GetStyle().ItemSpacing.x;
  const float over_h = label_w + 18.0f * scale + 3.0f * ImGui::GetTextLineHeightWithSpacing();
  const float avail_h = ImGui::GetContentRegionAvail().y;
  const float one_row = (avail - 3 * margin) / 3.0f;
  const float two_rows = std::min((avail - 2 * margin) / 2.0f, (avail_h - 2 * over_h) / 2.0f);
  const bool stacked = two_rows > one_row;
  const float side = std::clamp(stacked ? two_rows : one_row, 100.0f * scale, 600.0f * scale);
  const int head = c.lab.head;
  ImGui::BeginGroup();
  ImGui::TextUnformatted(attention_caption(ctx, c, false).c_str());
  const CellHover ha =
      token_heatmap("a", main, pc.model_a.input.tokens, side, scale, T("attention.rows_cols"));
  ImGui::EndGroup();
  if (ha.row >= 0) attention_cell_tooltip(ctx, c, pc.model_a, pc.a, ha.row, ha.col);
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextUnformatted(attention_caption(ctx, c, true).c_str());
  const CellHover hb =
      token_heatmap("b", second, pc.model_b.input.tokens, side, scale, T("attention.rows_cols"));
  ImGui::EndGroup();
  if (hb.row >= 0) attention_cell_tooltip(ctx, c, pc.model_b, pc.b, hb.row, hb.col);
  if (!stacked) ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextUnformatted(T("attention.difference"));
  const CellHover hd =
      token_heatmap("diff", diff, pc.model_a.input.tokens, side, scale, T("attention.rows_cols"));
  ImGui::EndGroup();
  if (hd.row >= 0) {
    const RowMatrixF& d = c.lab.show_scores ? pc.score_diff[head] : pc.weight_diff[head];
    const auto& a = shown_matrix(pc.a.heads[head]);
    const auto& b = shown_matrix(pc.b.heads[head]);
    const int bi = pc.align[hd.row], bj = pc.align[hd.col];
    ImGui::BeginTooltip();
    ImGui::Text("\"%s\" -> \"%s\"", pc.model_a.input.tokens[hd.row].c_str(),
                pc.model_a.input.tokens[hd.col].c_str());
    ImGui::Text("%s %.5g   %s %.5g   %s %.5g", T("attention.left"),
                static_cast<double>(a(hd.row, hd.col)), T("attention.right"),
                static_cast<double>(b(bi, bj)), T("attention.diff_word"),
                static_cast<double>(d(hd.row, hd.col)));
    if (std::isnan(d(hd.row, hd.col))) ImGui::TextDisabled("%s", T("attention.masked_one_side"));
    ImGui::EndTooltip();
  }
}

// Patch-grid mode: the query's row as a grid (click a patch to pick the query), the other
// side's and the terrain beside it, and the full matrix below.
void attention_draw_grid_mode(const AppContext& ctx, const AttentionComputed& c,
                              AttentionLabSettings& s, gfx::HeatmapTexture& grid_a,
                              gfx::HeatmapTexture& grid_b, gfx::HeatmapTexture& terrain,
                              gfx::HeatmapTexture& main, float scale, float avail) {
  auto T = [&](const char* key) { return ctx.tr(key); };
  auto L = [&](const char* key) { return tr_id(ctx, key); };
  const AttentionParams& p = c.lab.params;
  text_wrapped("%s %d x %d. %s", T("attention.patch_grid"), c.lab.grid_rows, c.lab.grid_cols,
               T("attention.patch_grid_help"));
  const bool elevation = p.encoding == AttentionEncoding::elevation,
             swin = p.encoding == AttentionEncoding::swin;
  if (elevation || swin) {
    if (ImGui::Button(L(elevation ? "attention.to_swin" : "attention.to_elevation").c_str()))
      s.params.encoding = elevation ? AttentionEncoding::swin : AttentionEncoding::elevation;
    ImGui::SameLine();
    ImGui::TextDisabled("%s", T(elevation ? "attention.elevation_note" : "attention.swin_note"));
  } else if (ImGui::SmallButton(L("attention.show_elevation").c_str())) {
    s.params.encoding = AttentionEncoding::elevation;
  }
  ImGui::Checkbox(L("attention.show_terrain").c_str(), &s.show_terrain);
  tooltip(T("attention.show_terrain_tip"));
  const int panes = 1 + (c.has_pair ? 1 : 0) + (s.show_terrain ? 1 : 0);
  const float side =
      std::clamp((avail - panes * 20.0f * scale) / panes, 100.0f * scale, 420.0f * scale);
  auto grid_pane = [&](const char* id, gfx::HeatmapTexture& tex, const char* caption, bool pick) {
    ImGui::BeginGroup();
    ImGui::TextUnformatted(caption);
    ImGui::PushID(id);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImVec2 hit = tex.draw(ImVec2(side * tex.cols() / std::max(tex.cols(), tex.rows()),
                                       side * tex.rows() / std::max(tex.cols(), tex.rows())));
    const float cw = side / std::max(tex.cols(), tex.rows());
    ImGui::GetWindowDrawList()->AddRect(
        ImVec2(o.x + s.query_col * cw, o.y + s.query_row * cw),
        ImVec2(o.x + (s.query_col + 1) * cw, o.y + (s.query_row + 1) * cw),
        IM_COL32(255, 60, 60, 255), 0, 0, 2.0f);
    if (hit.x >= 0) {
      const int r = static_cast<int>(hit.y), col = static_cast<int>(hit.x);
      const int key = r * c.lab.grid_cols + col, q = s.query_row * c.lab.grid_cols + s.query_col;
      if (pick && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        s.query_row = r;
        s.query_col = col;
      }
      ImGui::BeginTooltip();
      ImGui::Text("%s (%d, %d)   %s", T("attention.patch"), r, col,
                  pick ? T("attention.click_query") : "");
      if (c.model.terrain.size())
        ImGui::Text("%s %.0f m (%s %.0f m)", T("attention.height"), c.model.terrain(r, col),
                    T("attention.query"), c.model.terrain(s.query_row, s.query_col));
      if (pick) attention_cell_terms(ctx, c, c.model, c.result, q, key);
      ImGui::EndTooltip();
    }
    ImGui::PopID();
    tex.draw_colorbar(ImVec2(side, 8.0f * scale));
    ImGui::EndGroup();
  };
  grid_pane("ga", grid_a, attention_encoding_text(ctx, p.encoding), true);
  if (c.has_pair) {
    ImGui::SameLine();
    grid_pane("gb", grid_b, attention_caption(ctx, c, true).c_str(), false);
  }
  if (s.show_terrain) {
    ImGui::SameLine();
    grid_pane("terrain", terrain, T("attention.terrain_height"), false);
  }
  ImGui::Spacing();
  if (c.has_pair) text_wrapped("%s", tr_format(ctx, c.pair.note_message).c_str());
  ImGui::TextDisabled("%s", T("attention.full_matrix"));
  const float mside =
      std::clamp(std::min(avail * 0.45f, ImGui::GetContentRegionAvail().y - 70.0f * scale),
                 100.0f * scale, 600.0f * scale);
  const CellHover hv = token_heatmap("grid_full", main, c.model.input.tokens, mside, scale,
                                     T("attention.rows_cols"));
  if (hv.row >= 0) attention_cell_tooltip(ctx, c, c.model, c.result, hv.row, hv.col);
}

// What the heatmaps, tooltips and demo views show, with the CLI call printing it. Rows of
// big matrices are sampled (first, middle, last) to keep the record small.
void attention_record_numbers(const AttentionComputed& c) {
  nlohmann::json n;
  auto rows = [&n](const std::string& path, const auto& m) { attention_record_rows(n, path, m); };
  const int head = c.lab.head;
  const AttentionHeadResult& h = c.result.heads[head];
  n["scale"] = c.result.scale;
  rows("per_head/0/weights", h.weights);
  rows("per_head/0/logits", h.scores);
  if (c.has_pair) {
    const std::string root = c.lab.demo == AttentionDemo::none ? "compare" : "demo";
    n[root + "/max_abs_score_diff"] = c.pair.max_abs_score_diff;
    n[root + "/max_abs_weight_diff"] = c.pair.max_abs_weight_diff;
    rows(root + "/heads/0/logits_b", c.pair.b.heads[head].scores);
    rows(root + "/heads/0/score_diff", c.pair.score_diff[head]);
    rows(root + "/heads/0/weight_diff", c.pair.weight_diff[head]);
  }
  if (c.has_extrapolation) {
    n["demo/trained_length"] = c.extrapolation.trained_length;
    n["demo/heads/0/row_entropy"] = c.extrapolation.row_entropy[head];
    const RopeAngleReach& r = c.extrapolation.slowest_pair;
    if (r.pair >= 0) {
      n["demo/slowest_pair/pair"] = r.pair;
      n["demo/slowest_pair/inv_freq"] = r.inv_freq;
      n["demo/slowest_pair/trained_max"] = r.trained_max;
      n["demo/slowest_pair/angle"] = r.angle;
    }
  }
  if (c.has_decay) {
    n["demo/deltas"] = c.decay.deltas;
    n["demo/ones"] = c.decay.ones;
    n["demo/content"] = c.decay.content;
    n["demo/bound"] = c.decay.bound;
  }
  if (!c.slopes.empty()) {
    n["demo/slopes"] = c.slopes;
    rows("demo/bias", c.demo_matrix);
    n["demo/tokens"] = c.demo_matrix.rows();
    for (size_t k = 0; k < c.demo_heads.size(); ++k)
      rows("demo/head_biases/" + std::to_string(k), c.demo_heads[k]);
  }
  if (!c.bucket_ranges.empty()) {
    nlohmann::json ranges = nlohmann::json::array();
    for (const auto& b : c.bucket_ranges)
      ranges.push_back({{"bucket", b.bucket},
                        {"count", b.count},
                        {"lo", b.lo},
                        {"hi", b.hi},
                        {"open_ended", b.open_ended}});
    n["demo/ranges"] = ranges;
    rows("demo/map", c.demo_matrix);
  }
  const std::string preset = attention_to_preset(c.lab);
  record_drawn_numbers(kAttentionLabName, preset,
                       {"attention", "--preset", preset, "--head", std::to_string(head)}, n);
}

}  // namespace poslab::app
