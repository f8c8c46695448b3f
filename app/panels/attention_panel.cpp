// The attention lab: heatmaps of the same tokens' attention under absolute, relative and
// physics-guided encodings, side by side with another encoding or ordering and their
// difference, one-click demos (permutation, shift, extrapolation, RoPE decay, ALiBi slopes,
// T5 buckets), a patch-grid mode with terrain, and a trained source (weights=trained: a
// shipped language model's real attention, on which the extrapolation and decay demos are
// measured). All numbers come from core/attention, computed on a worker thread; this file
// lays them out and draws them.
// Sections: AttentionUi and the compute job | AttentionPanel: presets and checks |
// computation (schedule, poll) | controls (weights, tokens, encoding, view, demos) | view
// (uploads, main heatmap). Tooltips, demo views, side by side, grid mode and the drawn-numbers
// record: attention_views.cpp; the trained source: attention_trained_views.cpp.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "app/panels/attention_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/rope_controls.hpp"
#include "app/widgets/theme_colour.hpp"
#include "app/widgets/token_heatmap.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/attention/attention_lab.hpp"
#include "core/common/errors.hpp"
#include "io/labjson/lab_csv.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::app {
namespace {

using ComputedPtr = std::shared_ptr<const AttentionComputed>;

// The GPU side: textures and what was last uploaded into them.
struct AttentionTextures {
  gfx::HeatmapTexture main, second, diff, grid_a, grid_b, terrain, demo;
  std::vector<std::unique_ptr<gfx::HeatmapTexture>> heads;  // ALiBi demo: one map per head
  std::string uploaded;                     // upload key (computed key + view choices)
  double main_spread = 0;                   // std of the main map's colour positions (check)
  double main_range = 0, second_range = 0;  // |value| covered by the left and right scales
};

// The panel's UI state: the lab settings (what presets capture), the worker job and the
// last finished result (kept on screen while a new one is computed).
struct AttentionUi {
  AttentionLabSettings lab;
  ComputedPtr shown;
  BackgroundJob<ComputedPtr> job;              // computes job_inputs
  AttentionLabSettings job_inputs;             // what the running job computes
  std::optional<AttentionLabSettings> failed;  // inputs that failed or were cancelled

  AttentionTextures tex;
  std::string last_error;
};

// Settings that change the numbers (view-only choices reset to defaults).
AttentionLabSettings compute_inputs(const AttentionLabSettings& s) {
  AttentionLabSettings k = s;
  const AttentionLabSettings d;
  k.show_scores = d.show_scores;
  k.query_row = d.query_row;
  k.query_col = d.query_col;
  k.show_terrain = d.show_terrain;
  k.color_scale = d.color_scale;
  k.shared_scale = d.shared_scale;
  if (k.demo != AttentionDemo::rope_decay) k.decay_max = d.decay_max;
  return k;
}

// `data`: the trained model the last result used (loaded here when it is not the one asked).
ComputedPtr compute(const AttentionLabSettings& s, std::shared_ptr<const AttentionTrainedData> data,
                    const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  auto c = std::make_shared<AttentionComputed>();
  c->inputs = compute_inputs(s);
  c->key = attention_to_preset(c->inputs);
  if (s.weights == AttentionWeights::trained && (!data || data->model.id != s.model)) {
    attention_lab_validate(s);  // a bad setting says so before any file is read
    try {
      auto d = std::make_shared<AttentionTrainedData>();
      d->model = io::length_model_load(s.model, &d->valid);
      data = std::move(d);
    } catch (const FileError& e) {  // shown in place: which file, and how to get it
      c->lab = s;
      c->load_error = e.what();
      return c;
    }
  }
  if (s.weights == AttentionWeights::trained) c->trained_data = data;
  static_cast<AttentionLabResult&>(*c) = attention_lab_compute(
      s, cancel,
      {.only_head = s.head,
       .trained = s.weights == AttentionWeights::trained ? data.get() : nullptr});
  c->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

bool encoding_combo(const AppContext& ctx, const char* label, AttentionEncoding& e) {
  bool changed = false;
  if (ImGui::BeginCombo(label, attention_encoding_text(ctx, e))) {
    for (size_t i = 0; i < attention_encoding_names().size(); ++i) {
      const auto option = static_cast<AttentionEncoding>(i);
      if (ImGui::Selectable(attention_encoding_text(ctx, option), option == e)) {
        e = option;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// One row of a (T, T) matrix reshaped to the (rows, cols) patch grid.
RowMatrixF grid_row(const RowMatrixF& m, int query, int rows, int cols) {
  RowMatrixF g(rows, cols);
  for (int t = 0; t < rows * cols; ++t) g(t / cols, t % cols) = m(query, t);
  return g;
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
    for (auto& h : t.heads) h->release();
    t.uploaded.clear();
  }

  std::vector<std::string> check_presets() const override {
    return {
        "attention?source=count&tokens=1024&heads=8&head_dim=64&dim=512",
        "attention?source=count&tokens=1024&enc=learned&L=1&causal=1",
        "attention?source=count&tokens=1024&heads=8&head_dim=64&dim=512&scale=rank",
        "attention?source=count&tokens=1024&enc=alibi&scale=log&scores=1",
        "attention?source=count&tokens=1024&compare=encodings&enc_b=alibi&scale=rank&shared=1",
        "attention?source=grid&rows=32&cols=32&enc=sincos2d&compare=encodings&scale=log&shared=1",
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
        "attention?demo=decay&decay_max=1000000&base=1.000001&head_dim=256",
        "attention?content=0&position=0&scores=1",
        "attention?enc=sin_concat&sin_base=2&content=0&seed=2147483647",
        "attention?enc=swin&bias_std=0&learned_std=10&heads=1&dim=4&head_dim=2",
        // The trained source: shipped models (without them the view says which file is
        // missing), held-out text past L, one head or the mean, both demos, extreme ranges.
        "attention?weights=trained",
        "attention?weights=trained&model=learned&demo=extrapolation&extrapolate=512&mean_heads=1",
        "attention?weights=trained&demo=extrapolation&scaling=yarn&factor=1024&layer=31&head=63",
        "attention?weights=trained&model=rope&demo=decay&decay_max=1000000&passage=999",
        "attention?weights=trained&model=alibi&source=count&tokens=1024&scale=rank",
        "attention?weights=trained&model=rope_ft_yarn&text=%E5%BA%8A%E5%89%8D&scaling=none&head=1",
        "attention?weights=trained&model=t5&source=count&tokens=1&scaling=dynamic"};
  }

  std::string check_state() const override {
    const ComputedPtr& c = ui_.shown;
    if (!c)
      return "nothing was computed" +
             (ui_.last_error.empty() ? std::string() : ": " + ui_.last_error);
    if (!(c->inputs == compute_inputs(ui_.lab)))
      return "shown result is stale (" + c->key + " vs " +
             attention_to_preset(compute_inputs(ui_.lab)) + ")";
    if (c->lab.weights == AttentionWeights::trained)
      return attention_trained_check(*c, ui_.tex.main.rows());
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
    if (ui_.lab.color_scale == ColorScaleKind::rank && T >= 64 && ui_.tex.main_spread < 0.2)
      return "rank colour scale is flat: colour positions spread " +
             std::to_string(ui_.tex.main_spread) + " (want >= 0.2)";
    if (c->has_pair && ui_.lab.shared_scale && ui_.tex.main_range != ui_.tex.second_range)
      return "shared colour scale: left covers " + std::to_string(ui_.tex.main_range) + ", right " +
             std::to_string(ui_.tex.second_range);
    if (c->lab.demo == AttentionDemo::rope_decay && (!c->has_decay || c->decay.ones.empty()))
      return "no decay curve";
    if (drawn_numbers_wanted()) attention_record_numbers(*c);
    return {};
  }

  bool controls_folded_ = false;  // the control column folded to a strip (small windows)

  void draw(AppContext& ctx) override {
    ctx_ = &ctx;
    const float scale = ctx.ui_scale();
    const AttentionLabSettings before = ui_.lab;
    if (begin_control_column(ctx, "##att_controls", 370.0f * scale, controls_folded_))
      draw_controls(ui_.lab, scale);
    end_control_column();
    ctx.ensure_glyphs(ui_.lab.sentence + ui_.lab.sentence_b);  // Chinese typed or loaded
    if (!(ui_.lab == before)) {
      try {
        attention_lab_validate(ui_.lab);
      } catch (const Error& e) {
        ctx.report_error(ctx.tr("title.attention"), tr_error(ctx, e));
        ui_.lab = before;
      }
    }
    schedule(ctx);
    ImGui::SameLine();
    ImGui::BeginChild("##att_view", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    // Text wraps at the visible edge: ImGui 1.86 would wrap it at last frame's content width
    // in a sideways-scrolling window, so one overflowing frame kept the text too wide for good.
    ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x + ImGui::GetScrollX());
    draw_view(ctx, scale);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
    view_rect_ = last_item_rect();
  }

  // The shown head's logits and weights (and demo): `poslab-cli attention --head h`.
  std::vector<std::string> cli_args() const override {
    return {"attention", "--preset", preset(), "--head", std::to_string(ui_.lab.head)};
  }
  LabNumbers numbers() const override {
    const ComputedPtr& c = ui_.shown;
    if (!c || !(c->inputs == compute_inputs(ui_.lab)))
      return LabNumbers::none(share_message("share.why.computing"));
    if (!c->load_error.empty()) return LabNumbers::none(share_message("share.why.no_numbers"));
    const io::Json j = io::attention_lab_json(ui_.lab, *c, ui_.lab.head, false);
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::attention_lab_csv(j));
  }
  ViewRect main_view_rect() const override { return view_rect_; }

 private:
  // ---- computation -------------------------------------------------------------------
  void schedule(AppContext& ctx) {
    poll(ctx);
    // The browser build fetches the shipped language models (and their held-out text) the
    // first time the trained source asks for them; the desktop has them on disk.
    if (ui_.lab.weights == AttentionWeights::trained &&
        !ctx.fetch_files(io::length_lab_files()).done) {
      ctx.request_frames(2);
      return;
    }
    const AttentionLabSettings want = compute_inputs(ui_.lab);
    if (ui_.job.running()) {
      if (!(want == ui_.job_inputs)) ui_.job.cancel();  // stale: stop it early, start anew after
      return;
    }
    if ((ui_.shown && ui_.shown->inputs == want) || (ui_.failed && *ui_.failed == want)) return;
    const AttentionLabSettings s = ui_.lab;
    ui_.job_inputs = want;
    std::shared_ptr<const AttentionTrainedData> data =
        ui_.shown ? ui_.shown->trained_data : nullptr;
    ui_.job.start(attention_to_preset(want),
                  [s, data](JobControl& job) { return compute(s, data, job.cancel_flag()); });
    poll(ctx);
  }

  void poll(AppContext& ctx) {
    auto out = ui_.job.poll(ctx);
    if (!out || out->cancelled) return;
    if (out->value) {
      ui_.shown = std::move(*out->value);
      ui_.failed.reset();
      ui_.last_error.clear();
    } else {
      ui_.failed = ui_.job_inputs;
      ui_.last_error = tr_format(ctx, out->error_message);  // core's message, translated
      ctx.report_error(ctx.tr("title.attention"), ui_.last_error);
    }
  }

  // ---- controls ----------------------------------------------------------------------
  const char* T(const char* key) const { return ctx_->tr(key); }
  std::string L(const char* key) const { return tr_id(*ctx_, key); }
  // A radio_row choice: the translated label and its own tooltip.
  RadioChoice radio(const char* key, const char* tip_key) const { return {L(key), T(tip_key)}; }

  void draw_controls(AttentionLabSettings& s, float scale) {
    AttentionParams& p = s.params;
    ImGui::PushItemWidth(190.0f * scale);
    ImGui::TextUnformatted(T("attention.weights_heading"));
    int weights = static_cast<int>(s.weights);
    radio_row(weights, {radio("attention.weights_random", "attention.weights_random_tip"),
                        radio("attention.weights_trained", "attention.weights_trained_tip")});
    s.weights = static_cast<AttentionWeights>(weights);
    const bool trained = s.weights == AttentionWeights::trained;
    if (trained && s.source == AttentionSource::grid) s.source = AttentionSource::sentence;
    if (trained && s.demo != AttentionDemo::none && s.demo != AttentionDemo::extrapolation &&
        s.demo != AttentionDemo::rope_decay)
      s.demo = AttentionDemo::none;
    ImGui::Separator();
    ImGui::TextUnformatted(T("attention.tokens_heading"));
    int source = static_cast<int>(s.source);
    radio_row(source, {radio("attention.src_sentence", "attention.src_sentence_tip"),
                       radio("attention.src_count", "attention.src_count_tip"),
                       radio("attention.src_grid", "attention.src_grid_tip")});
    s.source = static_cast<AttentionSource>(source);
    if (trained && s.source == AttentionSource::grid) s.source = AttentionSource::count;
    if (s.source == AttentionSource::sentence) {
      ImGui::InputText(L("attention.sentence").c_str(), &s.sentence);
      tooltip(T("attention.sentence_tip"));
    } else if (s.source == AttentionSource::count) {
      slider_int(L("attention.tokens").c_str(), s.token_count,
                 AttentionLabSettings::token_count_range, true, T("attention.tokens_tip"));
    } else {
      slider_int(L("attention.grid_rows").c_str(), s.grid_rows,
                 AttentionLabSettings::grid_side_range, false, T("attention.grid_rows_tip"));
      slider_int(L("attention.grid_cols").c_str(), s.grid_cols,
                 AttentionLabSettings::grid_side_range, false, T("attention.grid_cols_tip"));
      s.grid_rows = std::min(s.grid_rows, kAttentionMaxTokens / std::max(1, s.grid_cols));
      s.query_row = std::min(s.query_row, s.grid_rows - 1);
      s.query_col = std::min(s.query_col, s.grid_cols - 1);
    }

    ImGui::Separator();
    if (trained) {
      ImGui::TextUnformatted(T("attention.trained_heading"));
      const AttentionTrained* shown =
          ui_.shown && ui_.shown->has_trained ? &ui_.shown->trained : nullptr;
      attention_trained_controls(*ctx_, s, shown, scale);
      draw_view_controls(s);
      draw_demo_controls(s);
      ImGui::PopItemWidth();
      return;
    }
    ImGui::TextUnformatted(T("attention.encoding_heading"));
    encoding_combo(*ctx_, "##encoding", p.encoding);
    tooltip(T("attention.encoding_tip"));
    attention_encoding_controls(*ctx_, p, scale);

    ImGui::Separator();
    ImGui::TextUnformatted(T("attention.model_heading"));
    slider_int(L("attention.heads").c_str(), p.heads, AttentionParams::heads_range, false,
               T("attention.heads_tip"));
    s.head = std::min(s.head, p.heads - 1);
    if (slider_int(L("attention.model_dim").c_str(), p.model_dim, AttentionParams::model_dim_range,
                   true, T("attention.model_dim_tip")))
      p.model_dim += p.model_dim % 2;
    if (slider_int(L("attention.head_dim").c_str(), p.head_dim, AttentionParams::head_dim_range,
                   true, T("attention.head_dim_tip")))
      p.head_dim += p.head_dim % 2;
    ImGui::InputInt(L("attention.seed").c_str(), &p.seed);
    p.seed = std::clamp(p.seed, 0, 2147483647);
    tooltip(T("attention.seed_tip"));
    ImGui::Checkbox(L("attention.content").c_str(), &p.use_content);
    tooltip(T("attention.content_tip"));
    ImGui::SameLine();
    ImGui::Checkbox(L("attention.position").c_str(), &p.use_position);
    tooltip(T("attention.position_tip"));
    ImGui::SameLine();
    ImGui::Checkbox(L("attention.causal").c_str(), &p.causal);
    tooltip(T("attention.causal_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("attention.view_heading"));
    slider_int(L("attention.head").c_str(), s.head, {0, static_cast<double>(p.heads - 1)}, false,
               T("attention.head_tip"));
    int view = s.show_scores ? 1 : 0;
    radio_row(view, {radio("attention.weights", "attention.weights_tip"),
                     radio("attention.logits", "attention.logits_tip")});
    s.show_scores = view == 1;
    draw_view_controls(s);
    ImGui::Checkbox(L("attention.shared_scale").c_str(), &s.shared_scale);
    tooltip(T("attention.shared_scale_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("attention.compare_heading"));
    int cmp = static_cast<int>(s.compare);
    radio_row(cmp, {radio("attention.cmp_off", "attention.cmp_off_tip"),
                    radio("attention.cmp_encodings", "attention.cmp_encodings_tip"),
                    radio("attention.cmp_orderings", "attention.cmp_orderings_tip")});
    s.compare = static_cast<AttentionCompare>(cmp);
    if (s.compare == AttentionCompare::encodings) {
      encoding_combo(*ctx_, L("attention.other").c_str(), s.compare_encoding);
      tooltip(T("attention.other_tip"));
    }
    if (s.compare == AttentionCompare::orderings) {
      ImGui::InputText(L("attention.reordered").c_str(), &s.sentence_b);
      tooltip(T("attention.reordered_tip"));
    }
    draw_demo_controls(s);
    ImGui::PopItemWidth();
  }

  // The colour scale of the maps (both sources).
  void draw_view_controls(AttentionLabSettings& s) {
    int cs = static_cast<int>(s.color_scale);
    const char* scale_keys[] = {"attention.scale_linear", "attention.scale_log",
                                "attention.scale_rank"};
    for (int i = 0; i < 3; ++i) {
      ImGui::RadioButton((T(scale_keys[i]) + std::string("###") + color_scale_names()[i]).c_str(),
                         &cs, i);
      tooltip(T("attention.colours_tip"));
      ImGui::SameLine();
    }
    ImGui::TextUnformatted(T("attention.colours"));
    tooltip(T("attention.colours_tip"));
    s.color_scale = static_cast<ColorScaleKind>(cs);
  }

  // The one-click demos. Extrapolation and RoPE decay run on a trained model (what their
  // captions claim is measured there); the others are about the encodings' formulas.
  void draw_demo_controls(AttentionLabSettings& s) {
    ImGui::Separator();
    ImGui::TextUnformatted(T("attention.demos_heading"));
    struct DemoButton {
      AttentionDemo demo;
      const char* label;
      const char* help;
    };
    const DemoButton buttons[] = {
        {AttentionDemo::permutation, "attention.demo_permutation",
         "attention.demo_permutation_tip"},
        {AttentionDemo::shift, "attention.demo_shift", "attention.demo_shift_tip"},
        {AttentionDemo::extrapolation, "attention.demo_extrapolation",
         "attention.demo_extrapolation_tip"},
        {AttentionDemo::rope_decay, "attention.demo_decay", "attention.demo_decay_tip"},
        {AttentionDemo::alibi_slopes, "attention.demo_slopes", "attention.demo_slopes_tip"},
        {AttentionDemo::t5_buckets, "attention.demo_buckets", "attention.demo_buckets_tip"},
    };
    for (size_t i = 0; i < std::size(buttons); ++i) {
      if (i % 3) ImGui::SameLine();
      const bool on = s.demo == buttons[i].demo;
      if (on)
        ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
      if (ImGui::Button(L(buttons[i].label).c_str())) {
        s.demo = on ? AttentionDemo::none : buttons[i].demo;
        const bool measured =
            s.demo == AttentionDemo::extrapolation || s.demo == AttentionDemo::rope_decay;
        if (s.demo != AttentionDemo::none)
          s.weights = measured ? AttentionWeights::trained : AttentionWeights::random;
        // 512 bytes = 4L of the shipped models; log colours: a trained head's weights span
        // orders of magnitude, and in linear colours only its largest cells show.
        if (s.demo == AttentionDemo::extrapolation) {
          s.extrapolate_tokens = std::max(s.extrapolate_tokens, kAttentionTrainedExtrapolateTokens);
          s.color_scale = ColorScaleKind::log;
        }
        // The decay is RoPE's; the slopes are ALiBi's own.
        if (s.demo == AttentionDemo::rope_decay && s.model != lm::LengthModelId::rope_ft_pi &&
            s.model != lm::LengthModelId::rope_ft_yarn)
          s.model = lm::LengthModelId::rope;
        if (s.demo == AttentionDemo::alibi_slopes) s.params.encoding = AttentionEncoding::alibi;
        // T5's buckets are exact up to num_buckets/4 and log-spaced past it: a 7-word
        // sentence shows only the exact ones, 48 tokens reach the log-spaced ones too.
        if (s.demo == AttentionDemo::t5_buckets && s.source != AttentionSource::grid) {
          s.token_count = s.source == AttentionSource::count
                              ? std::max(s.token_count, kAttentionBucketsDemoTokens)
                              : kAttentionBucketsDemoTokens;
          s.source = AttentionSource::count;
        }
      }
      if (on) ImGui::PopStyleColor();
      tooltip(T(buttons[i].help));
    }
    if (s.demo != AttentionDemo::none && ImGui::SmallButton(L("attention.close_demo").c_str()))
      s.demo = AttentionDemo::none;
    if (s.demo == AttentionDemo::shift)
      slider_double(L("attention.shift_k").c_str(), s.shift, AttentionLabSettings::shift_range,
                    "%.6g", true, T("attention.shift_k_tip"));
    if (s.demo == AttentionDemo::extrapolation) {
      slider_int(L("attention.tokens_shown").c_str(), s.extrapolate_tokens,
                 AttentionLabSettings::extrapolate_tokens_range, true,
                 T("attention.tokens_shown_tip"));
      // L is the learned table's length; the other encodings are "trained" on it as well.
      if (s.weights == AttentionWeights::random && s.params.encoding != AttentionEncoding::learned)
        slider_int(L("attention.trained_length").c_str(), s.params.table_length,
                   AttentionParams::table_length_range, true, T("attention.trained_length_tip"));
    }
    if (s.demo == AttentionDemo::rope_decay)
      slider_int(L("attention.max_distance").c_str(), s.decay_max,
                 AttentionLabSettings::decay_max_range, true, T("attention.max_distance_tip"));
  }

  // ---- view --------------------------------------------------------------------------
  const RowMatrixF& shown_matrix(const AttentionHeadResult& h) const {
    return ui_.lab.show_scores ? h.scores : h.weights;
  }

  void upload_if_needed(const AttentionComputed& c) {
    const AttentionLabSettings& s = ui_.lab;
    const std::string key = c.key + "|" + std::to_string(s.show_scores) + "|" +
                            std::to_string(s.query_row) + "," + std::to_string(s.query_col) + "|" +
                            std::to_string(static_cast<int>(s.color_scale)) +
                            (s.shared_scale ? "s" : "");
    AttentionTextures& t = ui_.tex;
    if (t.uploaded == key) return;
    const int head = c.lab.head;
    const AttentionHeadResult& h = c.result.heads[head];
    const ColorScaleKind kind = s.color_scale;
    const ColorScale main = heatmap_upload(t.main, shown_matrix(h), s.show_scores, 0, kind);
    t.main_spread = heatmap_color_spread(main, shown_matrix(h));
    t.main_range = t.second_range = main.max_abs;
    if (c.has_pair) {
      const RowMatrixF& b = shown_matrix(c.pair.b.heads[head]);
      const ColorScale sb = s.shared_scale ? heatmap_upload_shared(t.main, shown_matrix(h),
                                                                   t.second, b, s.show_scores, kind)
                                           : heatmap_upload(t.second, b, s.show_scores, 0, kind);
      if (s.shared_scale) t.main_range = sb.max_abs;
      t.second_range = sb.max_abs;
      const float range =
          std::max(heatmap_abs_max(heatmap_display_values(shown_matrix(h))),
                   heatmap_abs_max(heatmap_display_values(shown_matrix(c.pair.b.heads[head]))));
      heatmap_upload(t.diff, s.show_scores ? c.pair.score_diff[head] : c.pair.weight_diff[head],
                     true, range, kind);
    }
    if (c.has_extrapolation)
      heatmap_upload(t.demo, shown_matrix(c.extrapolation.result.heads[head]), s.show_scores, 0,
                     kind);
    if (c.demo_matrix.size())
      heatmap_upload(t.demo, c.demo_matrix.cast<float>(),
                     c.lab.demo == AttentionDemo::alibi_slopes);
    if (!c.demo_heads.empty()) {
      // Each head on its own scale (its farthest key's bias is in its title): on one shared
      // scale the gentle heads' biases are a few percent of the steep ones' and look blank.
      while (t.heads.size() < c.demo_heads.size())
        t.heads.push_back(std::make_unique<gfx::HeatmapTexture>());
      for (size_t k = 0; k < c.demo_heads.size(); ++k)
        heatmap_upload(*t.heads[k], c.demo_heads[k].cast<float>(), true);
    }
    if (c.lab.source == AttentionSource::grid) {
      const int q = s.query_row * c.lab.grid_cols + s.query_col;
      const RowMatrixF ga = grid_row(h.weights, q, c.lab.grid_rows, c.lab.grid_cols);
      if (c.has_pair) {
        const RowMatrixF gb = grid_row(c.pair.b.heads[head].weights, c.pair.align[q],
                                       c.lab.grid_rows, c.lab.grid_cols);
        if (s.shared_scale)
          heatmap_upload_shared(t.grid_a, ga, t.grid_b, gb, false, kind);
        else
          heatmap_upload(t.grid_b, gb, false, 0, kind);
      }
      if (!c.has_pair || !s.shared_scale) heatmap_upload(t.grid_a, ga, false, 0, kind);
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
      if (job_status(ui_.job, false, 200.0f * scale) == JobAction::cancel) {
        ui_.failed = ui_.job_inputs;  // not restarted until a setting changes
        ui_.last_error = T("attention.cancelled");
      }
    }
    if (!c) {
      text_wrapped("%s",
                   ui_.last_error.empty() ? T("attention.nothing_yet") : ui_.last_error.c_str());
      return;
    }
    const float avail0 =
        ImGui::GetWindowContentRegionMax().x + ImGui::GetScrollX() - ImGui::GetCursorPosX();
    if (c->lab.weights == AttentionWeights::trained) {
      attention_trained_upload(*c, ui_.tex.main, ui_.tex.second, ui_.lab.color_scale,
                               ui_.tex.uploaded);
      attention_draw_trained(ctx, *c, ui_.tex.main, ui_.tex.second, scale, avail0);
      return;
    }
    upload_if_needed(*c);
    const AttentionLabSettings& s = c->lab;
    const AttentionParams& p = s.params;
    // The demo's own token count: the extrapolation and the ALiBi map have their own tokens.
    const int T = s.demo == AttentionDemo::extrapolation ? s.extrapolate_tokens
                  : s.demo == AttentionDemo::alibi_slopes && c->demo_matrix.rows() > 0
                      ? static_cast<int>(c->demo_matrix.rows())
                      : static_cast<int>(c->model.input.tokens.size());
    // The ALiBi and T5 demos are those encodings' whatever the lab's (core computes them so).
    const AttentionEncoding shown_encoding =
        s.demo == AttentionDemo::alibi_slopes ? AttentionEncoding::alibi
        : s.demo == AttentionDemo::t5_buckets ? AttentionEncoding::t5
                                              : p.encoding;
    text_wrapped("%s  |  %d %s, %s %d / %d, %s %.4g  |  %.0f ms",
                 attention_encoding_text(ctx, shown_encoding), T, this->T("attention.n_tokens"),
                 this->T("attention.head"), s.head, p.heads, this->T("attention.scale"),
                 c->result.scale, c->seconds * 1e3);
    if (!c->result.note_message.empty())
      ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.4f, 1.0f), "%s",
                         tr_format(ctx, c->result.note_message).c_str());
    if (p.use_content) {  // the words' vectors are seeded noise: the map is not about meaning
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      text_wrapped("%s", this->T("attention.random_note"));
      ImGui::PopStyleColor();
    }
    if (s.demo == AttentionDemo::extrapolation && p.encoding == AttentionEncoding::rope) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      text_wrapped("%s", this->T("attention.rope_extrapolation_note"));
      ImGui::PopStyleColor();
    }
    // The view's visible width: ImGui 1.86 widens a sideways-scrolling window's work rect to
    // last frame's content, so a layout sized by GetContentRegionAvail keeps any overflow.
    const float avail =
        ImGui::GetWindowContentRegionMax().x + ImGui::GetScrollX() - ImGui::GetCursorPosX();

    if (s.source == AttentionSource::grid && s.demo == AttentionDemo::none) {
      attention_draw_grid_mode(ctx, *c, ui_.lab, ui_.tex.grid_a, ui_.tex.grid_b, ui_.tex.terrain,
                               ui_.tex.main, scale, avail);
      return;
    }
    if (c->has_pair) {
      attention_draw_pair(ctx, *c, ui_.lab.show_scores, ui_.tex.main, ui_.tex.second, ui_.tex.diff,
                          scale, avail);
      return;
    }
    switch (s.demo) {
      case AttentionDemo::extrapolation:
        attention_draw_extrapolation(ctx, *c, ui_.tex.demo, scale, avail);
        return;
      case AttentionDemo::rope_decay:
        attention_draw_decay(ctx, *c, ui_.tex.demo, scale, avail);
        return;
      case AttentionDemo::alibi_slopes:
        if (const int h = attention_draw_slopes(ctx, *c, ui_.tex.heads, scale, avail); h >= 0)
          ui_.lab.head = h;
        return;
      case AttentionDemo::t5_buckets:
        attention_draw_buckets(ctx, *c, ui_.tex.demo, scale, avail);
        return;
      default:
        break;
    }
    const float side =
        std::clamp(std::min(avail * 0.62f, ImGui::GetContentRegionAvail().y - 90.0f * scale),
                   120.0f * scale, 900.0f * scale);
    const CellHover hv = token_heatmap("main", ui_.tex.main, c->model.input.tokens, side, scale,
                                       this->T("attention.rows_cols"));
    if (hv.row >= 0) attention_cell_tooltip(ctx, *c, c->model, c->result, hv.row, hv.col);
  }

  AttentionUi ui_;
  ViewRect view_rect_;
  const AppContext* ctx_ = nullptr;  // set at the start of draw(): the interface language
};

}  // namespace

std::unique_ptr<Panel> make_attention_panel() {
  return std::make_unique<AttentionPanel>();
}

}  // namespace poslab::app
