// The attention lab's tooltip, demo views and drawn-numbers record (see attention_views.hpp).
#include "app/panels/attention_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/widgets.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/rope_controls.hpp"
#include "app/widgets/token_heatmap.hpp"

namespace poslab::app {

// Hover: the cell's numbers and its term split.
void attention_cell_tooltip(const AttentionComputed& c, const AttentionModel& m,
                            const AttentionResult& r, int i, int j) {
  const auto& in = m.input;
  ImGui::BeginTooltip();
  ImGui::Text("query %d \"%s\" (position %g)  ->  key %d \"%s\" (position %g)", i,
              in.tokens[i].c_str(), in.positions[i], j, in.tokens[j].c_str(), in.positions[j]);
  if (m.params.encoding == AttentionEncoding::sincos_2d ||
      m.params.encoding == AttentionEncoding::swin)
    ImGui::Text("(row, col): (%g, %g) -> (%g, %g)", in.rows[i], in.cols[i], in.rows[j], in.cols[j]);
  attention_cell_terms(c, m, r, i, j);
  ImGui::EndTooltip();
}

void attention_cell_terms(const AttentionComputed& c, const AttentionModel& m,
                          const AttentionResult& r, int i, int j) {
  const int head = c.lab.head;
  const AttentionHeadResult& h = r.heads[head];
  const ScoreTerms t = attention_score_terms(m, head, i, j);
  ImGui::Text("logit %.5g    weight %.5g", static_cast<double>(h.scores(i, j)),
              static_cast<double>(h.weights(i, j)));
  if (t.masked) ImGui::TextDisabled("masked: the key comes after the query");
  if (t.undefined)
    ImGui::TextColored(ImVec4(1, 0.6f, 0.4f, 1), "undefined: a position with no learned row");
  ImGui::Separator();
  for (const NamedTerm& n : attention_score_term_list(m, t))
    ImGui::Text("%-20s %+.5g", n.label, n.value);
  ImGui::Text("%-20s %+.5g", "sum (logit)", t.total);
}

// The controls of the chosen encoding's own parameters.
void attention_encoding_controls(AttentionParams& p, float scale) {
  switch (p.encoding) {
    case AttentionEncoding::sinusoidal:
    case AttentionEncoding::sinusoidal_concat:
    case AttentionEncoding::sincos_2d:
      slider_double("base", p.sin_base, AttentionParams::sin_base_range, "%.6g", true);
      tooltip("w_i = base^(-2i/D). Added to the content vectors (absolute).");
      break;
    case AttentionEncoding::learned:
      slider_int("table length L", p.table_length, AttentionParams::table_length_range, true);
      tooltip(
          "Rows of the learned table = trained context. Positions >= L have no embedding:\n"
          "their cells are grey (undefined), not invented.");
      slider_double("row std", p.learned_std, AttentionParams::learned_std_range, "%.3g", true);
      break;
    case AttentionEncoding::rope: {
      rope_controls(
          p.rope,
          {.head_dim = false, .rotary_fraction = false, .layout_diagram = false, .scaling = false},
          scale);
      tooltip("Which head dims pair up. Position only: q = k = all ones, rotated.");
      ImGui::Checkbox("mixed-layout bug", &p.rope_mixed);
      tooltip(
          "Lesson 5's silent bug: an interleaved angle table used with rotate_half. The two\n"
          "numbers of a pair turn by different angles, so this is no rotation: scores stop\n"
          "depending only on n - m (try the shift demo).");
      break;
    }
    case AttentionEncoding::t5:
      ImGui::Checkbox("bidirectional (encoder)", &p.t5_bidirectional);
      tooltip("Encoder: buckets split by sign. Decoder: keys after the query all share bucket 0.");
      if (slider_int("buckets", p.t5_buckets, AttentionParams::t5_buckets_range))
        p.t5_buckets += p.t5_buckets % 2;
      slider_int("max distance", p.t5_max_distance, AttentionParams::t5_max_distance_range, true);
      slider_double("bias std", p.bias_std, AttentionParams::bias_std_range, "%.3g", false);
      tooltip("One seeded scalar per (bucket, head). T5 does not scale q.k by 1/sqrt(d).");
      break;
    case AttentionEncoding::swin:
      slider_double("bias std", p.bias_std, AttentionParams::bias_std_range, "%.3g", false);
      tooltip(
          "One seeded scalar per (row offset, column offset, head); the window is the whole "
          "grid.");
      break;
    case AttentionEncoding::elevation:
      slider_double("alpha", p.elevation_alpha, AttentionParams::elevation_alpha_range, "%.3g",
                    false);
      tooltip(
          "bias(i -> j) = -alpha * max(0, (h_j - h_i) / 1000 m), clamped to [-10, 0].\n"
          "Same for every head. It reads the terrain, not positions.");
      slider_double("terrain max (m)", p.terrain_max_m, AttentionParams::terrain_max_range, "%.0f",
                    false);
      break;
    case AttentionEncoding::alibi:
      ImGui::TextDisabled("slopes: 2^(-8h/n), any head count");
      break;
    case AttentionEncoding::none:
      ImGui::TextDisabled("no position information at all");
      break;
  }
}

void attention_draw_extrapolation(const AttentionComputed& c, gfx::HeatmapTexture& demo,
                                  float scale, float avail) {
  const ExtrapolationDemo& d = c.extrapolation;
  ImGui::TextWrapped("%s", d.note.c_str());
  if (!d.result.note.empty() && d.note.find(d.result.note) == std::string::npos)
    ImGui::TextWrapped("%s", d.result.note.c_str());
  const float side =
      std::clamp(std::min(avail * 0.5f, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                 120.0f * scale, 700.0f * scale);
  ImGui::BeginGroup();
  ImGui::Text("%d tokens; red lines: trained length L = %d",
              static_cast<int>(d.model.input.tokens.size()), d.trained_length);
  const CellHover hv =
      token_heatmap("extra", demo, d.model.input.tokens, side, scale, d.trained_length);
  ImGui::EndGroup();
  if (hv.row >= 0) attention_cell_tooltip(c, d.model, d.result, hv.row, hv.col);
  ImGui::SameLine();
  ImGui::BeginGroup();
  const std::vector<double>& e = d.row_entropy[c.lab.head];
  int undefined = 0;
  for (double v : e) undefined += std::isnan(v) ? 1 : 0;
  ImGui::TextUnformatted("entropy of each query's weights (nats)");
  PlotSpec spec;
  spec.id = "entropy";
  spec.scale = scale;
  spec.size = ImVec2(std::max(200.0f * scale, avail - side - 150.0f * scale), 200.0f * scale);
  spec.x.label = "query position";
  spec.legend = false;
  spec.series.push_back({.label = "entropy", .y = e, .colour = IM_COL32(255, 170, 60, 255)});
  plot(spec);
  if (undefined)
    ImGui::TextColored(ImVec4(1, 0.6f, 0.4f, 1),
                       "%d rows undefined (a gap in the curve): no learned row", undefined);
  ImGui::EndGroup();
}

void attention_draw_decay(const AttentionComputed& c, gfx::HeatmapTexture& /*demo*/, float scale,
                          float avail) {
  const RopeDecay& d = c.decay;
  ImGui::TextWrapped(
      "RoPE score against the distance n - m, divided by sqrt(head dim), base %g, head dim %d. "
      "q = k = ones is RoFormer's long-range bound; the seeded pair is token 0's query and token "
      "1's key "
      "of head %d. The curve does not depend on m itself.",
      c.lab.params.rope.base, c.lab.params.head_dim, c.lab.head);
  PlotSpec spec;
  spec.id = "decay";
  spec.scale = scale;
  spec.size = ImVec2(std::max(200.0f * scale, avail - 20.0f * scale),
                     std::max(200.0f * scale, ImGui::GetContentRegionAvail().y - 40.0f * scale));
  spec.x.label = "distance n - m (tokens)";
  spec.series.push_back(
      {.label = "q = k = ones", .y = d.ones, .x = d.deltas, .colour = IM_COL32(255, 170, 60, 255)});
  spec.series.push_back({.label = "seeded q, k (head " + std::to_string(c.lab.head) + ")",
                         .y = d.content,
                         .x = d.deltas,
                         .colour = IM_COL32(90, 170, 255, 255)});
  plot(spec);
  ImGui::TextDisabled("poslab-cli attention --preset '%s'", c.key.c_str());
}

void attention_draw_slopes(const AttentionComputed& c, gfx::HeatmapTexture& demo, float scale,
                           float avail) {
  ImGui::TextWrapped(
      "ALiBi adds -m_h * |i - j| to the logits of head h. n heads, n a power of two: m_h = "
      "2^(-8h/n). "
      "Otherwise the p = 2^floor(log2 n) slopes, then every second slope of the 2p list.");
  ImGui::BeginGroup();
  if (ImGui::BeginTable(
          "slopes", 3,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
          ImVec2(260.0f * scale,
                 std::max(150.0f * scale, ImGui::GetContentRegionAvail().y - 10.0f)))) {
    ImGui::TableSetupColumn("head");
    ImGui::TableSetupColumn("slope");
    ImGui::TableSetupColumn("log2");
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
  ImGui::Text("bias of head %d (slope %.4g)", c.lab.head, c.slopes[c.lab.head]);
  const float side =
      std::clamp(std::min(avail - 300.0f * scale, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                 120.0f * scale, 700.0f * scale);
  token_heatmap("slopes_bias", demo, c.model.input.tokens, side, scale);
  ImGui::EndGroup();
}

void attention_draw_buckets(const AttentionComputed& c, gfx::HeatmapTexture& demo, float scale,
                            float avail) {
  const AttentionParams& p = c.lab.params;
  ImGui::TextWrapped(
      "T5 buckets of relative position key - query (%s, %d buckets, max distance %d). Small "
      "distances "
      "get their own bucket; larger ones share log-spaced buckets; beyond max distance all share "
      "the last.",
      p.t5_bidirectional ? "bidirectional" : "decoder: future keys -> bucket 0", p.t5_buckets,
      p.t5_max_distance);
  const float side =
      std::clamp(std::min(avail - 350.0f * scale, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                 120.0f * scale, 700.0f * scale);
  ImGui::BeginGroup();
  const CellHover hv = token_heatmap("buckets", demo, c.model.input.tokens, side, scale);
  ImGui::EndGroup();
  if (hv.row >= 0) {
    ImGui::BeginTooltip();
    ImGui::Text("key - query = %g  ->  bucket %.0f",
                c.model.input.positions[hv.col] - c.model.input.positions[hv.row],
                static_cast<double>(c.demo_matrix(hv.row, hv.col)));
    ImGui::EndTooltip();
  }
  ImGui::SameLine();
  if (ImGui::BeginTable(
          "ranges", 3,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV,
          ImVec2(320.0f * scale,
                 std::max(150.0f * scale, ImGui::GetContentRegionAvail().y - 10.0f)))) {
    ImGui::TableSetupColumn("bucket", ImGuiTableColumnFlags_WidthFixed,
                            50.0f * ImGui::GetIO().FontGlobalScale);
    ImGui::TableSetupColumn("key - query", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("count", ImGuiTableColumnFlags_WidthFixed,
                            50.0f * ImGui::GetIO().FontGlobalScale);
    ImGui::TableHeadersRow();
    for (const auto& r : c.bucket_ranges) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.bucket);
      ImGui::TableNextColumn();
      if (!r.count)
        ImGui::TextDisabled("(empty)");
      else if (r.lo == r.hi && !r.open_ended)
        ImGui::Text("%d", r.lo);
      else
        ImGui::Text("%d .. %d%s", r.lo, r.hi, r.open_ended ? " (+ beyond)" : "");
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.count);
    }
    ImGui::EndTable();
  }
}

// What the heatmaps, tooltips and demo views show, with the CLI call printing it. Rows of
// big matrices are sampled (first, middle, last) to keep the record small.
void attention_record_numbers(const AttentionComputed& c) {
  nlohmann::json n;
  auto rows = [&n](const std::string& path, const auto& m) {
    const int R = static_cast<int>(m.rows());
    std::vector<int> pick;
    if (R <= 64)
      for (int r = 0; r < R; ++r) pick.push_back(r);
    else
      pick = {0, R / 2, R - 1};
    for (int r : pick) {
      std::vector<double> v(static_cast<size_t>(m.cols()));
      for (Eigen::Index k = 0; k < m.cols(); ++k) v[k] = static_cast<double>(m(r, k));
      n[path + "/" + std::to_string(r)] = v;
    }
  };
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
  }
  if (c.has_decay) {
    n["demo/deltas"] = c.decay.deltas;
    n["demo/ones"] = c.decay.ones;
    n["demo/content"] = c.decay.content;
  }
  if (!c.slopes.empty()) {
    n["demo/slopes"] = c.slopes;
    rows("demo/bias", c.demo_matrix);
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
