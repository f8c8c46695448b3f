// The attention lab: heatmaps of the same tokens' attention under absolute, relative and
// physics-guided encodings, side by side with another encoding or ordering and their
// difference, one-click demos (permutation, shift, extrapolation, RoPE decay, ALiBi slopes,
// T5 buckets) and a patch-grid mode with terrain. All numbers come from core/attention,
// computed on a worker thread; this file lays them out and draws them.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "core/attention/attention_lab.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// One finished computation (core's attention_lab_compute), only read after the worker.
struct AttentionComputed : AttentionLabResult {
  std::string key;     // compute_key() of the settings it belongs to
  double seconds = 0;  // wall time of the computation
};
using ComputedPtr = std::shared_ptr<const AttentionComputed>;

// The GPU side: textures and what was last uploaded into them.
struct AttentionTextures {
  gfx::HeatmapTexture main, second, diff, grid_a, grid_b, terrain, demo;
  std::string uploaded;  // upload key (computed key + view choices)
};

// The panel's UI state: the lab settings (what presets capture), the worker job and the
// last finished result (kept on screen while a new one is computed).
struct AttentionUi {
  AttentionLabSettings lab;
  ComputedPtr shown;
  BackgroundJob<ComputedPtr> job;  // keyed by compute_key()
  std::string failed_key;
  AttentionTextures tex;
  std::string last_error;
};

// Settings that change the numbers (view-only choices excluded), as a preset string.
std::string compute_key(const AttentionLabSettings& s) {
  AttentionLabSettings k = s;
  const AttentionLabSettings d;
  k.show_scores = d.show_scores;
  k.query_row = d.query_row;
  k.query_col = d.query_col;
  k.show_terrain = d.show_terrain;
  if (k.demo != AttentionDemo::rope_decay) k.decay_max = d.decay_max;
  return attention_to_preset(k);
}

ComputedPtr compute(const AttentionLabSettings& s, const std::string& key,
                    const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  auto c = std::make_shared<AttentionComputed>();
  static_cast<AttentionLabResult&>(*c) = attention_lab_compute(s, cancel, {.only_head = s.head});
  c->key = key;
  c->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

bool encoding_combo(const char* label, AttentionEncoding& e) {
  bool changed = false;
  if (ImGui::BeginCombo(label, attention_encoding_label(e))) {
    for (size_t i = 0; i < attention_encoding_names().size(); ++i) {
      const auto option = static_cast<AttentionEncoding>(i);
      if (ImGui::Selectable(attention_encoding_label(option), option == e)) {
        e = option;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// Display copy: -inf (masked) and NaN (undefined) both become NaN, drawn grey.
std::vector<float> display_values(const RowMatrixF& m) {
  std::vector<float> v(m.data(), m.data() + m.size());
  for (float& x : v)
    if (!std::isfinite(x)) x = kNaN;
  return v;
}

// Largest |finite value|, at least a tiny positive number so the colour range is valid.
float abs_max(const std::vector<float>& v) {
  float m = 0;
  for (float x : v)
    if (std::isfinite(x)) m = std::max(m, std::abs(x));
  return std::max(m, 1e-9f);
}

// range > 0 fixes the colour range (a difference is drawn on the scale of the matrices it
// compares, so float rounding noise stays white instead of being stretched to full colour).
void upload(gfx::HeatmapTexture& tex, const RowMatrixF& m, bool signed_values, float range = 0) {
  if (m.size() == 0) return;
  const std::vector<float> v = display_values(m);
  const float a = range > 0 ? std::max(range, abs_max(v)) : abs_max(v);
  if (signed_values)
    tex.update(v.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), -a, a,
               gfx::Colormap::diverging);
  else
    tex.update(v.data(), static_cast<int>(m.rows()), static_cast<int>(m.cols()), 0.0f, a,
               gfx::Colormap::viridis);
}

// One row of a (T, T) matrix reshaped to the (rows, cols) patch grid.
RowMatrixF grid_row(const RowMatrixF& m, int query, int rows, int cols) {
  RowMatrixF g(rows, cols);
  for (int t = 0; t < rows * cols; ++t) g(t / cols, t % cols) = m(query, t);
  return g;
}

std::string short_token(const std::string& t, size_t max_bytes = 12) {
  if (t.size() <= max_bytes) return t;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return t.substr(0, cut) + "..";
}

// A heatmap with token labels on the axes when they fit (else index ticks), and a colour
// bar below. Returns the hovered (query, key) cell or (-1, -1).
struct CellHover {
  int row = -1, col = -1;
};

CellHover draw_matrix(const char* id, gfx::HeatmapTexture& tex,
                      const std::vector<std::string>& tokens, float side, float scale,
                      int mark_at = -1) {
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

class AttentionPanel final : public Panel {
 public:
  const char* id() const override { return kAttentionLabName; }
  const char* title() const override { return "Attention"; }
  std::string preset() const override { return attention_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override { ui_.lab = attention_from_preset(text); }
  void release_gl() override {
    AttentionTextures& t = ui_.tex;
    for (gfx::HeatmapTexture* h :
         {&t.main, &t.second, &t.diff, &t.grid_a, &t.grid_b, &t.terrain, &t.demo})
      h->release();
    t.uploaded.clear();
  }

  std::vector<std::string> check_presets() const override {
    return {"attention?source=count&tokens=1024&heads=8&head_dim=64&dim=512",
            "attention?source=count&tokens=1024&enc=learned&L=1&causal=1",
            "attention?enc=alibi&heads=64&head=63&demo=slopes",
            "attention?enc=t5&t5_bidir=0&buckets=256&max_distance=1000000&demo=buckets&source="
            "count&tokens=300",
            "attention?enc=t5&buckets=4&max_distance=2&demo=buckets",
            "attention?source=grid&rows=32&cols=32&enc=elevation&alpha=100&terrain_max=9000&qrow="
            "31&qcol=31",
            "attention?source=grid&rows=1&cols=1&qrow=0&qcol=0&enc=swin&compare=encodings&enc_b="
            "elevation",
            "attention?source=grid&rows=8&cols=8&enc=sincos2d&dim=1024&head_dim=256&compare="
            "encodings&enc_b=swin",
            "attention?enc=learned&L=1&demo=extrapolation&extrapolate=1024",
            "attention?enc=rope&demo=extrapolation&extrapolate=2&L=4096",
            "attention?compare=orderings&scores=1",
            "attention?text=%E6%88%91%E5%96%9C%E6%AC%A2%E4%BD%A0&compare=orderings&text_b=%E4%BD%"
            "A0%E5%96%9C%E6%AC%A2%E6%88%91",
            "attention?demo=shift&shift=1000000&enc=sin&source=count&tokens=64",
            "attention?demo=shift&enc=rope&rope_base=1000000000000&layout=interleaved",
            "attention?demo=permutation&causal=1&enc=none",
            "attention?demo=decay&decay_max=1000000&rope_base=1.000001&head_dim=256",
            "attention?content=0&position=0&scores=1",
            "attention?enc=sin_concat&sin_base=2&content=0&seed=2147483647",
            "attention?enc=swin&bias_std=0&learned_std=10&heads=1&dim=4&head_dim=2"};
  }

  std::string check_state() const override {
    const ComputedPtr& c = ui_.shown;
    if (!c)
      return "nothing was computed" +
             (ui_.last_error.empty() ? std::string() : ": " + ui_.last_error);
    if (c->key != compute_key(ui_.lab))
      return "shown result is stale (" + c->key + " vs " + compute_key(ui_.lab) + ")";
    const int T = static_cast<int>(c->model.input.tokens.size());
    if (static_cast<int>(c->result.heads.size()) != c->lab.params.heads)
      return "result has the wrong head count";
    const AttentionHeadResult& h = c->result.heads[ui_.lab.head];
    if (h.weights.rows() != T || h.weights.cols() != T) return "weights are not T x T";
    for (int i = 0; i < T; ++i) {
      const float sum = h.weights.row(i).sum();
      if (!std::isnan(sum) && std::abs(sum - 1.0f) > 1e-4f)
        return "weights row " + std::to_string(i) + " sums to " + std::to_string(sum);
      for (int j = i + 1; c->lab.params.causal && j < T; ++j)
        if (h.weights(i, j) != 0.0f)
          return "causal mask leaks at " + std::to_string(i) + "," + std::to_string(j);
    }
    if (ui_.tex.main.rows() != T)
      return "main heatmap has " + std::to_string(ui_.tex.main.rows()) + " rows, want " +
             std::to_string(T);
    if (c->has_pair && ui_.tex.diff.empty()) return "comparison computed but no difference drawn";
    if (c->lab.demo == AttentionDemo::rope_decay && (!c->has_decay || c->decay.ones.empty()))
      return "no decay curve";
    return {};
  }

  void draw(AppContext& ctx) override {
    const float scale = ctx.ui_scale();
    const AttentionLabSettings before = ui_.lab;
    ImGui::BeginChild("##att_controls", ImVec2(370.0f * scale, 0), true);
    draw_controls(ui_.lab, scale);
    ImGui::EndChild();
    ctx.ensure_glyphs(ui_.lab.sentence + ui_.lab.sentence_b);  // Chinese typed or loaded
    if (compute_key(ui_.lab) != compute_key(before) || ui_.lab.query_row != before.query_row ||
        ui_.lab.query_col != before.query_col) {
      try {
        attention_lab_validate(ui_.lab);
      } catch (const Error& e) {
        ctx.report_error(title(), e.what());
        ui_.lab = before;
      }
    }
    schedule(ctx);
    ImGui::SameLine();
    ImGui::BeginChild("##att_view", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    draw_view(ctx, scale);
    ImGui::EndChild();
  }

 private:
  // ---- computation -------------------------------------------------------------------
  void schedule(AppContext& ctx) {
    poll(ctx);
    const std::string key = compute_key(ui_.lab);
    if (ui_.job.running()) {
      if (key != ui_.job.key()) ui_.job.cancel();  // stale: stop it early, start anew after
      return;
    }
    if ((ui_.shown && ui_.shown->key == key) || key == ui_.failed_key) return;
    const AttentionLabSettings s = ui_.lab;
    ui_.job.start(key, [s, key](JobControl& job) { return compute(s, key, job.cancel_flag()); });
    poll(ctx);
  }

  void poll(AppContext& ctx) {
    auto out = ui_.job.poll(ctx);
    if (!out || out->cancelled) return;
    if (out->value) {
      ui_.shown = std::move(*out->value);
      ui_.failed_key.clear();
      ui_.last_error.clear();
    } else {
      ui_.failed_key = out->key;
      ui_.last_error = out->error;
      ctx.report_error(title(), out->error);
    }
  }

  // ---- controls ----------------------------------------------------------------------
  void draw_controls(AttentionLabSettings& s, float scale) {
    AttentionParams& p = s.params;
    ImGui::PushItemWidth(190.0f * scale);
    ImGui::TextUnformatted("Tokens");
    int source = static_cast<int>(s.source);
    ImGui::RadioButton("sentence", &source, 0);
    ImGui::SameLine();
    ImGui::RadioButton("count", &source, 1);
    ImGui::SameLine();
    ImGui::RadioButton("patch grid", &source, 2);
    s.source = static_cast<AttentionSource>(source);
    if (s.source == AttentionSource::sentence) {
      ImGui::InputText("sentence", &s.sentence);
      tooltip(
          "Words split on spaces; Chinese without spaces splits per character.\n"
          "Each token's content vector is seeded by its text, so the same word\n"
          "gets the same vector wherever it stands.");
    } else if (s.source == AttentionSource::count) {
      slider_int("tokens", s.token_count, AttentionLabSettings::token_count_range, true);
      tooltip("Distinct tokens t0, t1, ...: up to 1024 (1024 x 1024 cells per head).");
    } else {
      slider_int("grid rows", s.grid_rows, AttentionLabSettings::grid_side_range);
      slider_int("grid cols", s.grid_cols, AttentionLabSettings::grid_side_range);
      s.grid_rows = std::min(s.grid_rows, kAttentionMaxTokens / std::max(1, s.grid_cols));
      s.query_row = std::min(s.query_row, s.grid_rows - 1);
      s.query_col = std::min(s.query_col, s.grid_cols - 1);
      tooltip(
          "Image patches in raster order (ClimaX / ViT). Click a patch on the right to pick the "
          "query.");
    }

    ImGui::Separator();
    ImGui::TextUnformatted("Encoding");
    encoding_combo("##encoding", p.encoding);
    draw_encoding_params(p);

    ImGui::Separator();
    ImGui::TextUnformatted("Model");
    slider_int("heads", p.heads, AttentionParams::heads_range);
    s.head = std::min(s.head, p.heads - 1);
    if (slider_int("model dim D", p.model_dim, AttentionParams::model_dim_range, true))
      p.model_dim += p.model_dim % 2;
    tooltip("Dims of content vectors and of absolute encodings (added to them).");
    if (slider_int("head dim", p.head_dim, AttentionParams::head_dim_range, true))
      p.head_dim += p.head_dim % 2;
    tooltip(
        "Dims per head after W_q / W_k. Logits are scaled by 1/sqrt(head dim) (T5: not scaled).");
    ImGui::InputInt("seed", &p.seed);
    p.seed = std::clamp(p.seed, 0, 2147483647);
    tooltip("Seeds content vectors, W_q / W_k per head, learned tables and the terrain.");
    ImGui::Checkbox("content", &p.use_content);
    tooltip("Off: every token is the same, only position speaks.");
    ImGui::SameLine();
    ImGui::Checkbox("position", &p.use_position);
    tooltip("Off: no position information, only content speaks.");
    ImGui::SameLine();
    ImGui::Checkbox("causal", &p.causal);
    tooltip("Mask keys after the query (decoder). Masked cells are grey.");

    ImGui::Separator();
    ImGui::TextUnformatted("View");
    slider_int("head", s.head, {0, static_cast<double>(p.heads - 1)});
    int view = s.show_scores ? 1 : 0;
    ImGui::RadioButton("weights (softmax)", &view, 0);
    ImGui::SameLine();
    ImGui::RadioButton("logits", &view, 1);
    s.show_scores = view == 1;

    ImGui::Separator();
    ImGui::TextUnformatted("Side by side");
    int cmp = static_cast<int>(s.compare);
    ImGui::RadioButton("off", &cmp, 0);
    ImGui::SameLine();
    ImGui::RadioButton("two encodings", &cmp, 1);
    ImGui::SameLine();
    ImGui::RadioButton("two orderings", &cmp, 2);
    s.compare = static_cast<AttentionCompare>(cmp);
    if (s.compare == AttentionCompare::encodings) encoding_combo("other", s.compare_encoding);
    if (s.compare == AttentionCompare::orderings) {
      ImGui::InputText("reordered", &s.sentence_b);
      tooltip(
          "The same tokens in another order, e.g. 你 喜欢 我. Rows and columns of the\n"
          "difference are matched by token.");
    }

    ImGui::Separator();
    ImGui::TextUnformatted("Demos (one click)");
    struct DemoButton {
      AttentionDemo demo;
      const char* label;
      const char* help;
    };
    const DemoButton buttons[] = {
        {AttentionDemo::permutation, "Permutation",
         "Reverse the tokens (positions stay). Without an encoding\nthe matrix is only permuted."},
        {AttentionDemo::shift, "Shift",
         "Add k to every position. Relative encodings: no change.\nAbsolute ones: the logits "
         "change."},
        {AttentionDemo::extrapolation, "Extrapolation",
         "More tokens than the trained length L (= learned table rows)."},
        {AttentionDemo::rope_decay, "RoPE decay",
         "RoPE score against distance for q = k = ones and for seeded q, k."},
        {AttentionDemo::alibi_slopes, "ALiBi slopes",
         "One slope per head, including head counts that are not powers of two."},
        {AttentionDemo::t5_buckets, "T5 buckets",
         "Which bucket each (query, key) pair falls into, and each bucket's range."},
    };
    for (size_t i = 0; i < std::size(buttons); ++i) {
      if (i % 3) ImGui::SameLine();
      const bool on = s.demo == buttons[i].demo;
      if (on)
        ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
      if (ImGui::Button(buttons[i].label)) s.demo = on ? AttentionDemo::none : buttons[i].demo;
      if (on) ImGui::PopStyleColor();
      tooltip(buttons[i].help);
    }
    if (s.demo != AttentionDemo::none && ImGui::SmallButton("close demo"))
      s.demo = AttentionDemo::none;
    if (s.demo == AttentionDemo::shift)
      slider_double("shift k", s.shift, AttentionLabSettings::shift_range, "%.6g", true);
    if (s.demo == AttentionDemo::extrapolation) {
      slider_int("tokens shown", s.extrapolate_tokens,
                 AttentionLabSettings::extrapolate_tokens_range, true);
      tooltip("Positions 0 .. N-1; the red lines mark the trained length L (table length).");
    }
    if (s.demo == AttentionDemo::rope_decay)
      slider_int("max distance", s.decay_max, AttentionLabSettings::decay_max_range, true);
    ImGui::PopItemWidth();
  }

  void draw_encoding_params(AttentionParams& p) {
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
        slider_double("rope base", p.rope_base, AttentionParams::rope_base_range, "%.6g", true);
        int layout = static_cast<int>(p.rope_layout);
        ImGui::RadioButton("interleaved", &layout, 0);
        ImGui::SameLine();
        ImGui::RadioButton("half-split", &layout, 1);
        p.rope_layout = static_cast<RopeLayout>(layout);
        tooltip("Which head dims pair up. Position only: q = k = all ones, rotated.");
        break;
      }
      case AttentionEncoding::t5:
        ImGui::Checkbox("bidirectional (encoder)", &p.t5_bidirectional);
        tooltip(
            "Encoder: buckets split by sign. Decoder: keys after the query all share bucket 0.");
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
        slider_double("terrain max (m)", p.terrain_max_m, AttentionParams::terrain_max_range,
                      "%.0f", false);
        break;
      case AttentionEncoding::alibi:
        ImGui::TextDisabled("slopes: 2^(-8h/n), any head count");
        break;
      case AttentionEncoding::none:
        ImGui::TextDisabled("no position information at all");
        break;
    }
  }

  // ---- view --------------------------------------------------------------------------
  const RowMatrixF& shown_matrix(const AttentionHeadResult& h) const {
    return ui_.lab.show_scores ? h.scores : h.weights;
  }

  void upload_if_needed(const AttentionComputed& c) {
    const AttentionLabSettings& s = ui_.lab;
    const std::string key = c.key + "|" + std::to_string(s.show_scores) + "|" +
                            std::to_string(s.query_row) + "," + std::to_string(s.query_col);
    AttentionTextures& t = ui_.tex;
    if (t.uploaded == key) return;
    const int head = c.lab.head;
    const AttentionHeadResult& h = c.result.heads[head];
    upload(t.main, shown_matrix(h), s.show_scores);
    if (c.has_pair) {
      upload(t.second, shown_matrix(c.pair.b.heads[head]), s.show_scores);
      const float range = std::max(abs_max(display_values(shown_matrix(h))),
                                   abs_max(display_values(shown_matrix(c.pair.b.heads[head]))));
      upload(t.diff, s.show_scores ? c.pair.score_diff[head] : c.pair.weight_diff[head], true,
             range);
    }
    if (c.has_extrapolation)
      upload(t.demo, shown_matrix(c.extrapolation.result.heads[head]), s.show_scores);
    if (c.demo_matrix.size())
      upload(t.demo, c.demo_matrix.cast<float>(), c.lab.demo == AttentionDemo::alibi_slopes);
    if (c.lab.source == AttentionSource::grid) {
      const int q = s.query_row * c.lab.grid_cols + s.query_col;
      upload(t.grid_a, grid_row(h.weights, q, c.lab.grid_rows, c.lab.grid_cols), false);
      if (c.has_pair)
        upload(t.grid_b,
               grid_row(c.pair.b.heads[head].weights, c.pair.align[q], c.lab.grid_rows,
                        c.lab.grid_cols),
               false);
      if (c.model.terrain.size()) {
        const RowMatrixF tf = c.model.terrain.cast<float>();
        t.terrain.update(tf.data(), static_cast<int>(tf.rows()), static_cast<int>(tf.cols()), 0.0f,
                         std::max(1.0f, tf.maxCoeff()), gfx::Colormap::terrain);
      } else {
        const RowMatrixF hf =
            terrain_heights(c.lab.grid_rows, c.lab.grid_cols,
                            static_cast<uint64_t>(c.lab.params.seed), c.lab.params.terrain_max_m)
                .cast<float>();
        t.terrain.update(hf.data(), static_cast<int>(hf.rows()), static_cast<int>(hf.cols()), 0.0f,
                         std::max(1.0f, hf.maxCoeff()), gfx::Colormap::terrain);
      }
    }
    t.uploaded = key;
  }

  void draw_view(AppContext& ctx, float scale) {
    const ComputedPtr c = ui_.shown;
    if (ui_.job.running()) {
      const std::string key = ui_.job.key();
      if (job_status(ui_.job, false, 200.0f * scale) == JobAction::cancel) {
        ui_.failed_key = key;  // not restarted until a setting changes
        ui_.last_error = "computation cancelled";
      }
    }
    if (!c) {
      ImGui::TextWrapped("%s",
                         ui_.last_error.empty() ? "nothing to show yet" : ui_.last_error.c_str());
      return;
    }
    upload_if_needed(*c);
    const AttentionLabSettings& s = c->lab;
    const AttentionParams& p = s.params;
    const int T = static_cast<int>(c->model.input.tokens.size());
    ImGui::Text("%s  |  %d tokens, head %d of %d, scale %.4g  |  %.0f ms",
                attention_encoding_label(p.encoding), T, s.head, p.heads, c->result.scale,
                c->seconds * 1e3);
    if (!c->result.note.empty())
      ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.4f, 1.0f), "%s", c->result.note.c_str());
    const float avail = ImGui::GetContentRegionAvail().x;

    if (s.source == AttentionSource::grid && s.demo == AttentionDemo::none) {
      draw_grid_mode(ctx, *c, scale, avail);
      return;
    }
    if (c->has_pair) {
      draw_pair(*c, scale, avail);
      return;
    }
    switch (s.demo) {
      case AttentionDemo::extrapolation:
        draw_extrapolation(*c, scale, avail);
        return;
      case AttentionDemo::rope_decay:
        draw_decay(*c, scale, avail);
        return;
      case AttentionDemo::alibi_slopes:
        draw_slopes(*c, scale, avail);
        return;
      case AttentionDemo::t5_buckets:
        draw_buckets(*c, scale, avail);
        return;
      default:
        break;
    }
    const float side =
        std::clamp(std::min(avail * 0.62f, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                   120.0f * scale, 900.0f * scale);
    const CellHover hv = draw_matrix("main", ui_.tex.main, c->model.input.tokens, side, scale);
    if (hv.row >= 0) cell_tooltip(*c, c->model, c->result, hv.row, hv.col);
  }

  // Hover: the cell's numbers and its term split.
  void cell_tooltip(const AttentionComputed& c, const AttentionModel& m, const AttentionResult& r,
                    int i, int j) {
    const int head = c.lab.head;
    const AttentionHeadResult& h = r.heads[head];
    const auto& in = m.input;
    const ScoreTerms t = attention_score_terms(m, head, i, j);
    ImGui::BeginTooltip();
    ImGui::Text("query %d \"%s\" (position %g)  ->  key %d \"%s\" (position %g)", i,
                in.tokens[i].c_str(), in.positions[i], j, in.tokens[j].c_str(), in.positions[j]);
    ImGui::Text("logit %.5g    weight %.5g", static_cast<double>(h.scores(i, j)),
                static_cast<double>(h.weights(i, j)));
    if (t.masked) ImGui::TextDisabled("masked: the key comes after the query");
    if (t.undefined)
      ImGui::TextColored(ImVec4(1, 0.6f, 0.4f, 1), "undefined: a position with no learned row");
    ImGui::Separator();
    switch (attention_encoding_kind(m.params.encoding)) {
      case EncodingKind::absolute:
        ImGui::Text("content . content    %+.5g", t.content_content);
        ImGui::Text("content . position   %+.5g", t.content_position);
        ImGui::Text("position . content   %+.5g", t.position_content);
        ImGui::Text("position . position  %+.5g", t.position_position);
        break;
      case EncodingKind::rotary:
        ImGui::Text("%s %+.5g", m.params.use_content ? "content (unrotated)" : "ones (unrotated)  ",
                    t.content_content);
        ImGui::Text("rotation changes by %+.5g", t.rotation);
        break;
      case EncodingKind::bias:
        ImGui::Text("content . content  %+.5g", t.content_content);
        ImGui::Text("bias               %+.5g", t.bias);
        break;
      case EncodingKind::none:
        ImGui::Text("content . content  %+.5g", t.content_content);
        break;
    }
    ImGui::Text("sum (logit)          %+.5g", t.total);
    ImGui::EndTooltip();
  }

  void draw_pair(const AttentionComputed& c, float scale, float avail) {
    const AttentionComparison& pc = c.pair;
    ImGui::TextWrapped("%s", pc.note.c_str());
    if (pc.max_abs_score_diff < 1e-4)
      ImGui::TextColored(
          ImVec4(0.5f, 0.9f, 0.5f, 1.0f),
          "The difference is zero up to float32 rounding (the heatmaps are float32).");
    const float side =
        std::clamp((avail - 3 * 110.0f * scale) / 3.0f, 100.0f * scale, 600.0f * scale);
    const int head = c.lab.head;
    ImGui::BeginGroup();
    ImGui::TextUnformatted(c.caption_a.c_str());
    const CellHover ha = draw_matrix("a", ui_.tex.main, pc.model_a.input.tokens, side, scale);
    ImGui::EndGroup();
    if (ha.row >= 0) cell_tooltip(c, pc.model_a, pc.a, ha.row, ha.col);
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(c.caption_b.c_str());
    const CellHover hb = draw_matrix("b", ui_.tex.second, pc.model_b.input.tokens, side, scale);
    ImGui::EndGroup();
    if (hb.row >= 0) cell_tooltip(c, pc.model_b, pc.b, hb.row, hb.col);
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("difference (right - left, matched by token)");
    const CellHover hd = draw_matrix("diff", ui_.tex.diff, pc.model_a.input.tokens, side, scale);
    ImGui::EndGroup();
    if (hd.row >= 0) {
      const RowMatrixF& d = c.lab.show_scores ? pc.score_diff[head] : pc.weight_diff[head];
      const auto& a = shown_matrix(pc.a.heads[head]);
      const auto& b = shown_matrix(pc.b.heads[head]);
      const int bi = pc.align[hd.row], bj = pc.align[hd.col];
      ImGui::BeginTooltip();
      ImGui::Text("\"%s\" -> \"%s\"", pc.model_a.input.tokens[hd.row].c_str(),
                  pc.model_a.input.tokens[hd.col].c_str());
      ImGui::Text("left %.5g   right %.5g   difference %.5g",
                  static_cast<double>(a(hd.row, hd.col)), static_cast<double>(b(bi, bj)),
                  static_cast<double>(d(hd.row, hd.col)));
      if (std::isnan(d(hd.row, hd.col))) ImGui::TextDisabled("masked or undefined on one side");
      ImGui::EndTooltip();
    }
  }

  void draw_grid_mode(AppContext& ctx, const AttentionComputed& c, float scale, float avail) {
    (void)ctx;
    AttentionLabSettings& s = ui_.lab;
    const AttentionParams& p = c.lab.params;
    ImGui::TextWrapped(
        "Patch grid %d x %d. Click a patch to make it the query; the image is that query's "
        "attention "
        "weights over the grid.",
        c.lab.grid_rows, c.lab.grid_cols);
    const bool elevation = p.encoding == AttentionEncoding::elevation,
               swin = p.encoding == AttentionEncoding::swin;
    if (elevation || swin) {
      if (ImGui::Button(elevation ? "Switch to a true relative position bias (Swin)"
                                  : "Switch to the elevation bias (TopoFlow)"))
        s.params.encoding = elevation ? AttentionEncoding::swin : AttentionEncoding::elevation;
      ImGui::SameLine();
      ImGui::TextDisabled(
          elevation ? "elevation: depends on the terrain under the patches, not on their offset"
                    : "Swin: depends only on the (row, column) offset between patches");
    } else if (ImGui::SmallButton("Show the elevation bias")) {
      s.params.encoding = AttentionEncoding::elevation;
    }
    ImGui::Checkbox("show terrain", &s.show_terrain);
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
        ImGui::Text("patch (%d, %d)%s", r, col, pick ? "   click: make it the query" : "");
        if (c.model.terrain.size())
          ImGui::Text("height %.0f m (query %.0f m)", c.model.terrain(r, col),
                      c.model.terrain(s.query_row, s.query_col));
        if (pick) {
          ImGui::Text("weight %.5g",
                      static_cast<double>(c.result.heads[c.lab.head].weights(q, key)));
          const ScoreTerms t = attention_score_terms(c.model, c.lab.head, q, key);
          ImGui::Text("logit %.5g = content %.5g + bias %.5g%s", t.total, t.content_content, t.bias,
                      attention_encoding_kind(p.encoding) == EncodingKind::absolute
                          ? " (+ position terms)"
                          : "");
        }
        ImGui::EndTooltip();
      }
      ImGui::PopID();
      tex.draw_colorbar(ImVec2(side, 8.0f * scale));
      ImGui::EndGroup();
    };
    grid_pane("ga", ui_.tex.grid_a, attention_encoding_label(p.encoding), true);
    if (c.has_pair) {
      ImGui::SameLine();
      grid_pane("gb", ui_.tex.grid_b, c.caption_b.c_str(), false);
    }
    if (s.show_terrain) {
      ImGui::SameLine();
      grid_pane("terrain", ui_.tex.terrain, "terrain height (m)", false);
    }
    ImGui::Spacing();
    if (c.has_pair) ImGui::TextWrapped("%s", c.pair.note.c_str());
    ImGui::TextDisabled("Full matrix (all patches as queries):");
    const float mside =
        std::clamp(std::min(avail * 0.45f, ImGui::GetContentRegionAvail().y - 70.0f * scale),
                   100.0f * scale, 600.0f * scale);
    const CellHover hv = draw_matrix("grid_full", ui_.tex.main, c.model.input.tokens, mside, scale);
    if (hv.row >= 0) cell_tooltip(c, c.model, c.result, hv.row, hv.col);
  }

  void draw_extrapolation(const AttentionComputed& c, float scale, float avail) {
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
        draw_matrix("extra", ui_.tex.demo, d.model.input.tokens, side, scale, d.trained_length);
    ImGui::EndGroup();
    if (hv.row >= 0) cell_tooltip(c, d.model, d.result, hv.row, hv.col);
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

  void draw_decay(const AttentionComputed& c, float scale, float avail) {
    const RopeDecay& d = c.decay;
    ImGui::TextWrapped(
        "RoPE score against the distance n - m, divided by sqrt(head dim), base %g, head dim %d. "
        "q = k = ones is RoFormer's long-range bound; the seeded pair is token 0's query and token "
        "1's key "
        "of head %d. The curve does not depend on m itself.",
        c.lab.params.rope_base, c.lab.params.head_dim, c.lab.head);
    PlotSpec spec;
    spec.id = "decay";
    spec.scale = scale;
    spec.size = ImVec2(std::max(200.0f * scale, avail - 20.0f * scale),
                       std::max(200.0f * scale, ImGui::GetContentRegionAvail().y - 40.0f * scale));
    spec.x.label = "distance n - m (tokens)";
    spec.series.push_back({.label = "q = k = ones",
                           .y = d.ones,
                           .x = d.deltas,
                           .colour = IM_COL32(255, 170, 60, 255)});
    spec.series.push_back({.label = "seeded q, k (head " + std::to_string(c.lab.head) + ")",
                           .y = d.content,
                           .x = d.deltas,
                           .colour = IM_COL32(90, 170, 255, 255)});
    plot(spec);
    ImGui::TextDisabled("poslab-cli attention --preset '%s'", c.key.c_str());
  }

  void draw_slopes(const AttentionComputed& c, float scale, float avail) {
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
    const float side = std::clamp(
        std::min(avail - 300.0f * scale, ImGui::GetContentRegionAvail().y - 90.0f * scale),
        120.0f * scale, 700.0f * scale);
    draw_matrix("slopes_bias", ui_.tex.demo, c.model.input.tokens, side, scale);
    ImGui::EndGroup();
  }

  void draw_buckets(const AttentionComputed& c, float scale, float avail) {
    const AttentionParams& p = c.lab.params;
    ImGui::TextWrapped(
        "T5 buckets of relative position key - query (%s, %d buckets, max distance %d). Small "
        "distances "
        "get their own bucket; larger ones share log-spaced buckets; beyond max distance all share "
        "the last.",
        p.t5_bidirectional ? "bidirectional" : "decoder: future keys -> bucket 0", p.t5_buckets,
        p.t5_max_distance);
    const float side = std::clamp(
        std::min(avail - 350.0f * scale, ImGui::GetContentRegionAvail().y - 90.0f * scale),
        120.0f * scale, 700.0f * scale);
    ImGui::BeginGroup();
    const CellHover hv = draw_matrix("buckets", ui_.tex.demo, c.model.input.tokens, side, scale);
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

  AttentionUi ui_;
};

}  // namespace

std::unique_ptr<Panel> make_attention_panel() {
  return std::make_unique<AttentionPanel>();
}

}  // namespace poslab::app
