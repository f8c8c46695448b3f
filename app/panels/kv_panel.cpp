// The KV-cache lab: a small real transformer's cache drawn slot by slot (token, index it
// was computed at, index it is used at now), the index corrections of seeds 000 and 001
// (UniZero's sliding window with learned positions, RoPE K-shift, stitching and KV-cache
// RAG with re-encoded keys), and every method's error against full recomputation. All
// numbers come from core/kv (kv_session.hpp); this file lays them out and draws them.
// Sections: KvUi | KvPanel: presets and checks | computation (launch, poll) | controls |
// view (layout, strip, meters, heatmap). Stateless pieces (colours, dials, meters, plot,
// stitching table, drawn-numbers record): kv_views.cpp.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "app/panels/kv_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/rope_controls.hpp"
#include "core/common/errors.hpp"
#include "core/kv/kv_session.hpp"
#include "io/labjson/lab_csv.hpp"

namespace poslab::app {
namespace {

enum class KvOp { none, run, restart, append, slide, stitch, more };

using SessionPtr = std::shared_ptr<const KvSession>;

// The panel's UI state: the lab settings (what presets capture), the last finished
// session, the background job computing the next one, and what was drawn (for checks).
struct KvUi {
  KvLabSettings lab;
  SessionPtr session;                        // last finished computation (never half-updated)
  std::optional<KvLabSettings> session_for;  // experiment() of the session's settings
  BackgroundJob<SessionPtr> job;             // running computation of job_for
  KvLabSettings job_for;                     // experiment() the running job computes
  std::optional<KvLabSettings> failed;       // experiment that failed (not retried until changed)
  KvPlotMetric plot_metric = KvPlotMetric::output;
  gfx::HeatmapTexture heat;
  std::string heat_key;  // what the heatmap texture currently shows
  int heat_rows = 0, heat_cols = 0;
  int strip_slots = 0;  // slots in the strip last drawn
  int meter_rows = 0;   // method rows in the error meters last drawn
};

// The part of the settings that defines the experiment (not which method or layer is viewed).
KvLabSettings experiment(const KvLabSettings& s) {
  KvLabSettings k = s;
  k.method = KvLabSettings{}.method;
  k.view_layer = k.view_head = k.view_pair = 0;
  return k;
}

class KvPanel final : public Panel {
 public:
  const char* id() const override { return kKvLabName; }
  const char* title() const override { return "KV cache"; }
  std::string preset() const override { return kv_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override {
    ui_.lab = kv_from_preset(text);
    ui_.failed.reset();
    ui_.session_for.reset();  // recompute even if the experiment is the same
  }
  bool animating() const override { return ui_.job.running(); }

  std::vector<std::string> check_presets() const override {
    return {"kv?layers=4&C=512&steps=2&layer=3",
            "kv?C=4&steps=500&layers=1",
            "kv?pos=rope&method=kshift&layers=4&heads=16&width=256&C=64&steps=3&layout=interleaved&"
            "head=15&pair=7",
            "kv?pos=rope&scenario=stitch&method=reencode_scaled&scaling=yarn&factor=1024&first=512&"
            "second=512&steps=2",
            "kv?pos=rope&scenario=rag&method=naive&first=512&retrieved=64&from=0&stride=8&steps=1&"
            "f32=0",
            "kv?ln=0&pos_std=10&gain=10&seed=2147483647&vocab=1024&method=naive",
            "kv?pos=rope&method=naive&base=1000000000000&heads=1&width=8&C=6&drop=2&pair=3",
            "kv?gain=0.1&pos_std=0&layers=2&layer=1&method=recompute&vocab=4"};
  }

  std::string check_state() const override {
    if (ui_.job.running()) return "a computation is still running after the check frames";
    if (!ui_.session) return "no session was computed";
    const KvSession& ses = *ui_.session;
    const KvLabSettings& s = ses.settings;
    if (!(experiment(s) == experiment(ui_.lab))) return "the session belongs to other settings";
    const auto methods = kv_methods_for(s.scenario, s.model.positions);
    if (ses.methods.size() != methods.size())
      return std::to_string(ses.methods.size()) + " method states for " +
             std::to_string(methods.size()) + " methods";
    for (const auto& st : ses.methods) {
      if (static_cast<int>(st.history.size()) != ses.step)
        return kv_method_name(st.method) + " has " + std::to_string(st.history.size()) +
               " steps, session " + std::to_string(ses.step);
      for (const auto& e : st.history) {
        for (double v : e.output_error)
          if (!std::isfinite(v)) return kv_method_name(st.method) + ": non-finite output error";
        if (st.method == KvMethod::recompute && e.output_error.back() > 1e-4)
          return "recompute is not at rounding level: " + sci(e.output_error.back());
      }
      for (const auto& sl : st.cache.slots)
        if (s.model.positions == KvPositions::learned &&
            (sl.used_at < 0 || sl.used_at >= s.model.context))
          return "slot used at " + index_text(sl.used_at) + " outside the learned table";
    }
    const int shown = shown_slots(ses);
    if (ui_.strip_slots != shown)
      return "strip drew " + std::to_string(ui_.strip_slots) + " slots, the cache holds " +
             std::to_string(shown);
    if (ui_.meter_rows != static_cast<int>(methods.size()) && ses.step > 0)
      return "error meters drew " + std::to_string(ui_.meter_rows) + " rows for " +
             std::to_string(methods.size());
    if (ses.step > 0 && ui_.heat_rows != 2 * s.model.heads + 1)
      return "attention heatmap has " + std::to_string(ui_.heat_rows) + " rows, want 2 x heads + 1";
    if (s.view_layer >= s.model.layers || s.view_head >= s.model.heads)
      return "view layer/head out of range";
    if (drawn_numbers_wanted()) kv_record_numbers(ses);
    return {};
  }

  bool controls_folded_ = false;  // the control column folded to a strip (small windows)

  void draw(AppContext& ctx) override {
    poll(ctx);
    const float scale = ctx.ui_scale();
    const KvLabSettings before = ui_.lab;
    KvOp op = KvOp::none;
    if (begin_control_column("##kv_controls", 370.0f * scale, controls_folded_))
      op = draw_controls(ui_.lab, scale);
    end_control_column();
    kv_lab_normalize(ui_.lab);  // e.g. stitching needs RoPE, the method must suit the scenario
    if (!(ui_.lab == before)) {
      try {
        kv_lab_validate(ui_.lab);
      } catch (const Error& e) {
        ctx.report_error(title(), e.what());
        ui_.lab = before;
      }
    }
    const KvLabSettings want = experiment(ui_.lab);
    if (ui_.job.running() && !(ui_.job_for == want)) ui_.job.cancel();  // stale experiment
    if (!ui_.job.running()) {
      if (!(ui_.session_for && *ui_.session_for == want)) {
        if (!(ui_.failed && *ui_.failed == want) || op != KvOp::none) launch(ctx, KvOp::run);
      } else if (op != KvOp::none) {
        launch(ctx, op);
      }
    }
    ImGui::SameLine();
    ImGui::BeginChild("##kv_view", ImVec2(0, 0), false);
    draw_view(ctx, scale);
    ImGui::EndChild();
    view_rect_ = last_item_rect();
  }

  // Every method of the shown session: `poslab-cli kv --method all`.
  std::vector<std::string> cli_args() const override {
    const std::string p = ui_.session ? kv_to_preset(ui_.session->settings) : preset();
    return {"kv", "--preset", p, "--method", "all"};
  }
  LabNumbers numbers() const override {
    if (!ui_.session || ui_.job.running() ||
        !(ui_.session_for && *ui_.session_for == experiment(ui_.lab)))
      return LabNumbers::none("the view is still being computed; export again when it is done");
    const io::Json j = io::kv_lab_json(ui_.session->settings, *ui_.session, true);
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::kv_lab_csv(j));
  }
  ViewRect main_view_rect() const override { return view_rect_; }

  void release_gl() override { ui_.heat.release(); }

 private:
  // ---- computation -------------------------------------------------------------------
  void launch(AppContext& ctx, KvOp op) {
    const KvLabSettings s = ui_.lab;
    const SessionPtr base = ui_.session;
    ui_.job_for = experiment(s);
    ui_.job.start(kv_to_preset(ui_.job_for), [op, s, base](JobControl& job) -> SessionPtr {
      if (op == KvOp::run || !base) return std::make_shared<const KvSession>(kv_run_scenario(s));
      if (op == KvOp::restart) return std::make_shared<const KvSession>(kv_session_start(s));
      KvSession ses = *base;
      ses.settings.method = s.method;
      switch (op) {
        case KvOp::append:
          kv_session_append(ses);
          break;
        case KvOp::slide:
          kv_session_slide(ses);
          break;
        case KvOp::stitch:
          kv_session_stitch(ses);
          break;
        case KvOp::more:
          kv_session_advance(ses, s.steps, job.cancel_flag());
          break;
        default:
          break;
      }
      return std::make_shared<const KvSession>(std::move(ses));
    });
    poll(ctx);  // headless checks and screenshots wait here for the finished state
  }

  void poll(AppContext& ctx) {
    auto out = ui_.job.poll(ctx);
    if (!out) return;
    if (out->value) {
      ui_.session = std::move(*out->value);
      ui_.session_for = ui_.job_for;
      ui_.failed.reset();
    } else if (!out->cancelled) {
      ui_.failed = ui_.job_for;
      ctx.report_error(title(), out->error);
    }
    ui_.heat_key.clear();
  }

  // ---- controls ----------------------------------------------------------------------
  KvOp draw_controls(KvLabSettings& s, float scale) {
    KvModelParams& p = s.model;
    KvOp op = KvOp::none;
    ImGui::PushItemWidth(190.0f * scale);

    ImGui::TextUnformatted("Scenario");
    int scenario = static_cast<int>(s.scenario);
    ImGui::RadioButton("sliding window", &scenario, 0);
    tooltip(
        "Seed 000 (UniZero): the cache holds the last C tokens of an episode s1 a1 s2 a2 ...;\n"
        "a slide drops the oldest step(s) and appends new ones.");
    ImGui::SameLine();
    ImGui::RadioButton("stitch", &scenario, 1);
    tooltip("Seed 001: [cache of B; cache of A], each computed alone from index 0.");
    ImGui::SameLine();
    ImGui::RadioButton("RAG", &scenario, 2);
    tooltip("Seed 001's KV-cache RAG: [slots retrieved from B (their B indices); cache of A].");
    s.scenario = static_cast<KvScenario>(scenario);

    int pos = static_cast<int>(p.positions);
    ImGui::RadioButton("learned absolute", &pos, 0);
    tooltip(
        "A table of C learned rows added to the token embeddings (GPT-2, UniZero's nn.Embedding).\n"
        "Stitching needs RoPE.");
    ImGui::SameLine();
    ImGui::RadioButton("RoPE", &pos, 1);
    tooltip("Rotary embedding on Q and K of every head (never on V).");
    p.positions = static_cast<KvPositions>(pos);

    const auto methods = kv_methods_for(
        s.scenario, s.scenario == KvScenario::sliding ? p.positions : KvPositions::rope);
    if (ImGui::BeginCombo("method shown", kv_method_name(s.method).c_str())) {
      for (auto m : methods) {
        if (ImGui::Selectable(kv_method_name(m).c_str(), m == s.method)) s.method = m;
        tooltip(method_help(m));
      }
      ImGui::EndCombo();
    }
    tooltip("Every method runs on the same tokens; this one is drawn in the strip and heatmap.");
    ImGui::TextWrapped("%s", method_help(s.method));

    ImGui::Separator();
    ImGui::TextUnformatted("Steps");
    const bool sliding = s.scenario == KvScenario::sliding;
    const bool busy = ui_.job.running();
    if (busy) ImGui::BeginDisabled();
    if (ImGui::Button("Restart")) op = KvOp::restart;
    tooltip(sliding ? "A fresh full window of C tokens at indices 0..C-1."
                    : "B and A cached separately, not stitched.");
    ImGui::SameLine();
    // Disabled where core would refuse (learned positions, full window), saying why.
    const std::string refusal =
        ui_.session && !busy ? kv_session_append_refusal(*ui_.session) : std::string();
    if (!refusal.empty()) ImGui::BeginDisabled();
    if (ImGui::Button(sliding ? "Append step" : "Append token")) op = KvOp::append;
    if (!refusal.empty()) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", !refusal.empty() ? refusal.c_str()
                              : sliding
                                  ? "Append one episode step (state + action) without dropping: "
                                    "learned positions\nrefuse once the window is full (no "
                                    "table row past C - 1)."
                                  : "Generate one new token at index L, L+1, ... attending to "
                                    "all L slots.");
    if (sliding) {
      ImGui::SameLine();
      if (ImGui::Button("Slide")) op = KvOp::slide;
      tooltip(
          "Drop the oldest step(s), correct the indices with each method, append as many new "
          "steps.");
    } else {
      ImGui::SameLine();
      const bool stitched = ui_.session && ui_.session->stitched;
      if (stitched) ImGui::BeginDisabled();
      if (ImGui::Button("Stitch")) op = KvOp::stitch;
      if (stitched) ImGui::EndDisabled();
      tooltip("Build [first; A] and apply each method's correction.");
    }
    if (ImGui::Button(sliding ? "Run slides" : "Run tokens")) op = KvOp::more;
    tooltip("Continue with 'steps' more slides or new tokens.");
    ImGui::SameLine();
    if (ImGui::Button("Rerun from start")) op = KvOp::run;
    tooltip("Restart, then run 'steps' slides or new tokens (what the command line prints).");
    if (busy) ImGui::EndDisabled();
    slider_int("steps", s.steps, KvLabSettings::steps_range, true,
               "Slides (sliding) or new tokens (stitch, RAG) per run.");
    if (sliding) {
      slider_int("drop steps", s.drop_steps,
                 {1, static_cast<double>(std::max(1, p.context / 2 - 1))}, false,
                 "Episode steps (state + action = 2 tokens) dropped per slide.");
    } else {
      slider_int("B tokens", s.first_length, KvLabSettings::length_range, true,
                 "Length of document B (source of the first block).");
      slider_int("A tokens", s.second_length, KvLabSettings::length_range, true,
                 "Length of document A (the second block).");
      if (s.scenario == KvScenario::rag) {
        slider_int("retrieved", s.retrieved, {1, static_cast<double>(s.first_length)}, false,
                   "Slots retrieved from B's cache.");
        slider_int("from B index", s.retrieve_from, {0, static_cast<double>(s.first_length - 1)},
                   false, "B index of the first retrieved slot (the seed's example: 180).");
        slider_int("stride", s.retrieve_stride, KvLabSettings::retrieve_stride_range, false,
                   "Spacing of retrieved B indices (1 = one contiguous chunk).");
      }
    }

    ImGui::Separator();
    ImGui::TextUnformatted("Model");
    slider_int("layers", p.layers, KvModelParams::layers_range, false, "Transformer blocks.");
    int width_choice = p.width;
    const int widths[] = {32, 64, 128, 256};
    if (ImGui::BeginCombo("width", std::to_string(p.width).c_str())) {
      for (int w : widths)
        if (ImGui::Selectable(std::to_string(w).c_str(), w == p.width)) width_choice = w;
      ImGui::EndCombo();
    }
    p.width = width_choice;
    int heads_choice = p.heads;
    if (ImGui::BeginCombo("heads", std::to_string(p.heads).c_str())) {
      for (int h : {1, 2, 4, 8, 16})
        if (p.width % h == 0 && (p.width / h) % 2 == 0 &&
            ImGui::Selectable(std::to_string(h).c_str(), h == p.heads))
          heads_choice = h;
      ImGui::EndCombo();
    }
    p.heads = heads_choice;
    ImGui::Text("head dim D = %d", kv_head_dim(p));
    slider_int("context C", p.context, KvModelParams::context_range, true,
               "Window in tokens (even: a step is 2 tokens); learned table rows.");
    ImGui::Checkbox("pre-LayerNorm", &p.layer_norm);
    tooltip(
        "Off: K and V of layer 0 are linear in P, and UniZero's legacy correction is exact there.");
    if (p.positions == KvPositions::learned)
      slider_double("position std", p.position_std, KvModelParams::position_std_range, "%.3g",
                    false,
                    "Std of the learned position rows (token rows have std 1). LayerNorm rescales\n"
                    "E + P, so the legacy correction's size is off by that factor.");
    slider_double("attention gain", p.attention_gain, KvModelParams::attention_gain_range, "%.3g",
                  true, "Scales W_q and W_k at init: higher = sharper attention.");
    if (p.positions == KvPositions::rope) {
      rope_controls(p.rope,
                    {.head_dim = false,
                     .rotary_fraction = false,
                     .base_buttons = false,
                     .layout_diagram = false},
                    scale);
      if (p.rope.scaling != RopeScaling::none) {
        const double m = kv_rope_table_scale(p);
        ImGui::Text("cos/sin tables carry %.4f, keys x %.4f", m, m * m);
        tooltip(
            "Scaled cos/sin tables carry mscale (YaRN: 0.1 ln s + 1, HF-style): the re-encode "
            "with those\ntables for its inverse too multiplies keys by mscale^2 (method "
            "reencode_scaled).");
      }
    }
    ImGui::InputInt("seed", &p.seed);
    p.seed = std::clamp(p.seed, 0, 2147483647);
    ImGui::Checkbox("float32 cache", &s.cache_float32);
    tooltip(
        "Store K/V rounded to float32 as real caches do (rounding level ~1e-7 instead of ~1e-16).");

    ImGui::Separator();
    ImGui::TextUnformatted("View");
    slider_int("layer", s.view_layer, {0, static_cast<double>(p.layers - 1)}, false,
               "Layer of the heatmap, plot and numbers.");
    slider_int("head", s.view_head, {0, static_cast<double>(p.heads - 1)}, false,
               "Head of the heatmap rows and strip cells.");
    if (p.positions == KvPositions::rope)
      slider_int("RoPE pair", s.view_pair,
                 {0, static_cast<double>(std::max(0, kv_head_dim(p) / 2 - 1))}, false,
                 "Pair drawn on the slot dials (0 = fastest).");
    int metric = static_cast<int>(ui_.plot_metric);
    ImGui::TextUnformatted("plot:");
    ImGui::SameLine();
    ImGui::RadioButton("output", &metric, 0);
    ImGui::SameLine();
    ImGui::RadioButton("keys", &metric, 1);
    ImGui::SameLine();
    ImGui::RadioButton("logits", &metric, 2);
    ui_.plot_metric = static_cast<KvPlotMetric>(metric);
    ImGui::PopItemWidth();
    return op;
  }

  // ---- view --------------------------------------------------------------------------
  static int shown_slots(const KvSession& ses) {
    if (ses.settings.scenario != KvScenario::sliding && !ses.stitched)
      return kv_cache_size(ses.cache_b) + kv_cache_size(ses.cache_a);
    return kv_cache_size(kv_session_method(ses, ses.settings.method).cache);
  }

  void draw_view(AppContext& ctx, float scale) {
    if (!ui_.session) {
      ImGui::TextUnformatted(ui_.job.running() ? "computing..." : "no result yet");
      return;
    }
    const KvSession& ses = *ui_.session;
    KvLabSettings view = ses.settings;  // the session's experiment, with the current view choices
    view.method = ui_.lab.method;
    view.view_layer = std::min(ui_.lab.view_layer, view.model.layers - 1);
    view.view_head = std::min(ui_.lab.view_head, view.model.heads - 1);
    view.view_pair = std::min(ui_.lab.view_pair, std::max(0, kv_head_dim(view.model) / 2 - 1));
    const auto ms = kv_methods_for(view.scenario, view.model.positions);
    if (std::find(ms.begin(), ms.end(), view.method) == ms.end()) view.method = ms.front();

    if (ui_.job.running()) {
      if (job_status(ui_.job, false, 160.0f * scale) == JobAction::cancel) ui_.failed = ui_.job_for;
    } else
      ImGui::Text("step %d", ses.step);
    ImGui::SameLine();
    if (view.scenario == KvScenario::sliding)
      ImGui::TextDisabled(
          "| window: stream tokens %d..%d | ground truth: the window's raw tokens recomputed at "
          "0..n-1",
          ses.window_begin, ses.window_end - 1);
    else
      ImGui::TextDisabled(
          "| ground truth: the stitched text [first; A; new tokens] recomputed from scratch");
    if (view.scenario == KvScenario::sliding && view.model.layers > 1 && ses.step > 0)
      ImGui::TextWrapped(
          "Why exact index corrections (kshift, keep) are exact only in layer 0: layer-0 K/V "
          "depend only on token and index, but the cached K/V of layers >= 1 were computed "
          "while the dropped tokens were still in the window, so they carry context the "
          "recomputed window no longer has. Fixing positions cannot remove that; only "
          "recompute does.");

    draw_strip(ses, view, scale);
    ImGui::Separator();
    if (ses.step == 0) {
      ui_.meter_rows = 0;
      ImGui::TextWrapped(
          view.scenario == KvScenario::sliding
              ? "Press Slide (or Append step) to drop old tokens and see each correction's error."
          : ses.stitched ? "Press Append token to continue at index L."
                         : "Press Stitch to build [first; A], then Append token.");
      if (view.scenario != KvScenario::sliding && ses.stitched) kv_draw_stitch_numbers(ses, view);
      return;
    }
    const float half = std::max(200.0f, ImGui::GetContentRegionAvail().x * 0.5f);
    ImGui::BeginChild("##meters", ImVec2(half, 210.0f * scale), true);
    draw_meters(ses, view, scale);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("##heat", ImVec2(0, 210.0f * scale), true);
    draw_heatmap(ses, view, scale);
    ImGui::EndChild();
    if (view.scenario == KvScenario::sliding) {
      kv_draw_plot(ses, view, ui_.plot_metric, scale);
    } else {
      ImGui::BeginChild("##stitchnums", ImVec2(half, 0), true);
      kv_draw_stitch_numbers(ses, view);
      ImGui::EndChild();
      ImGui::SameLine();
      ImGui::BeginChild("##stitchplot", ImVec2(0, 0), false);
      kv_draw_plot(ses, view, ui_.plot_metric, scale);
      ImGui::EndChild();
    }
    (void)ctx;
  }

  // One column per slot: label, index computed at (c), index used at now (u), a RoPE dial
  // (stored angle vs the angle it should have), then one cell per layer coloured by that
  // slot's key error against recomputation.
  void draw_strip(const KvSession& ses, const KvLabSettings& view, float scale) {
    const KvModelParams& p = view.model;
    const bool unstitched = view.scenario != KvScenario::sliding && !ses.stitched;
    const KvMethodState* st = unstitched ? nullptr : &kv_session_method(ses, view.method);
    std::vector<const KvSlot*> slots;
    if (unstitched) {
      for (const auto& s : ses.cache_b.slots) slots.push_back(&s);
      for (const auto& s : ses.cache_a.slots) slots.push_back(&s);
    } else {
      for (const auto& s : st->cache.slots) slots.push_back(&s);
    }
    ui_.strip_slots = static_cast<int>(slots.size());
    std::vector<std::vector<double>> cell_err;
    if (st)
      for (int l = 0; l < p.layers; ++l)
        cell_err.push_back(kv_slot_key_errors(ses, *st, l, view.view_head));

    if (unstitched)
      ImGui::TextWrapped(
          "Cache of B (computed alone at 0..%d) then cache of A (alone at 0..%d). Stitching reads "
          "them "
          "as one sequence 0..L-1.",
          kv_cache_size(ses.cache_b) - 1, kv_cache_size(ses.cache_a) - 1);
    else
      ImGui::TextWrapped(
          "Cache of '%s': c = index computed at, u = index used at now. Red: stored K/V encode "
          "another index; "
          "orange: moved approximately or wrong length. Cells: key error per layer, head %d.",
          kv_method_name(view.method).c_str(), view.view_head);
    const bool rope = p.positions == KvPositions::rope;
    const float line = ImGui::GetTextLineHeight();
    const float cw = 44.0f * scale, dial = rope ? 30.0f * scale : 0.0f, cell = 12.0f * scale;
    const float head_h = 3 * line + 6.0f * scale;
    const float label_w = 26.0f * scale;
    const float strip_h = head_h + dial + (st ? p.layers * (cell + 2.0f) : 0.0f) + 8.0f * scale;
    ImGui::BeginChild("##strip", ImVec2(0, strip_h + ImGui::GetStyle().ScrollbarSize + 4.0f), true,
                      ImGuiWindowFlags_HorizontalScrollbar);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const int n = static_cast<int>(slots.size());
    ImGui::Dummy(ImVec2(label_w + n * (cw + 2.0f), strip_h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text),
                dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (int l = 0; st && l < p.layers; ++l) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "L%d", l);
      dl->AddText(ImVec2(o.x, o.y + head_h + dial + l * (cell + 2.0f)), dim, buf);
    }
    // Draw only the visible columns (a 1000-slot cache would overflow 16-bit draw indices).
    const float left = ImGui::GetScrollX(), visible = ImGui::GetWindowWidth();
    const int first = std::max(0, static_cast<int>((left - label_w) / (cw + 2.0f)) - 1);
    const int last = std::min(n, static_cast<int>((left + visible - label_w) / (cw + 2.0f)) + 2);
    const std::vector<int> retrieved = kv_retrieved_indices(view);
    for (int i = first; i < last; ++i) {
      const KvSlot& s = *slots[i];
      const float x = o.x + label_w + i * (cw + 2.0f);
      const bool stale = !unstitched && s.encoded_at != s.used_at;
      const bool approx = !unstitched && (s.approximate || std::abs(s.key_scale - 1.0) > 1e-12);
      ImU32 box = IM_COL32(60, 150, 90, 90);
      if (unstitched) {
        const bool in_first = i < kv_cache_size(ses.cache_b) &&
                              std::find(retrieved.begin(), retrieved.end(), i) != retrieved.end();
        box = i < kv_cache_size(ses.cache_b)
                  ? (in_first ? IM_COL32(90, 120, 200, 120) : IM_COL32(90, 90, 90, 60))
                  : IM_COL32(150, 110, 200, 110);
      } else if (stale) {
        box = IM_COL32(220, 70, 60, 140);
      } else if (approx) {
        box = IM_COL32(235, 160, 40, 140);
      }
      dl->AddRectFilled(ImVec2(x, o.y), ImVec2(x + cw, o.y + head_h), box, 3.0f);
      dl->AddText(ImVec2(x + 3, o.y + 2), text, s.label.c_str());
      dl->AddText(ImVec2(x + 3, o.y + 2 + line), text, prefixed('c', s.computed_at).c_str());
      if (!unstitched)
        dl->AddText(ImVec2(x + 3, o.y + 2 + 2 * line), text, prefixed('u', s.used_at).c_str());
      if (rope)
        kv_draw_slot_dial(dl, p, s, view.view_pair,
                          ImVec2(x + cw * 0.5f, o.y + head_h + dial * 0.5f), dial * 0.42f,
                          unstitched);
      for (int l = 0; st && l < p.layers; ++l) {
        if (i >= static_cast<int>(cell_err[l].size())) continue;
        const float y = o.y + head_h + dial + l * (cell + 2.0f);
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cw, y + cell), error_colour(cell_err[l][i]));
      }
      if (ImGui::IsMouseHoveringRect(ImVec2(x, o.y), ImVec2(x + cw, o.y + strip_h))) {
        std::string tip = s.label + ": token id " + std::to_string(s.token) +
                          "\ncomputed at index " + index_text(s.computed_at) +
                          "\nstored K encode index " + index_text(s.encoded_at);
        if (!unstitched) tip += "\nused at index " + index_text(s.used_at);
        if (s.approximate) tip += "\nmoved by the approximate legacy correction";
        if (s.key_scale != 1.0) tip += "\nkeys " + sci(s.key_scale) + " x their correct length";
        if (rope) {
          const KvSlotAngles a = kv_slot_angles(p, s, view.view_pair);
          tip += "\npair " + std::to_string(view.view_pair) + ": stored angle " + sci(a.stored) +
                 " rad, should be " + sci(a.should) + " rad";
        }
        for (int l = 0; st && l < p.layers; ++l)
          if (i < static_cast<int>(cell_err[l].size()))
            tip += "\nlayer " + std::to_string(l) +
                   " key error vs recomputation: " + sci(cell_err[l][i]);
        ImGui::SetTooltip("%s", tip.c_str());
      }
    }
    ImGui::EndChild();
    if (rope)
      ImGui::TextDisabled(
          "Dials: pair %d, angles counter-clockwise with y up. Coloured hand: angle the stored key "
          "encodes (longer = too long a key); grey hand: angle it should have where it is used.",
          view.view_pair);
  }

  // Bars on a log scale, one row per method, one column per layer plus the logits.
  void draw_meters(const KvSession& ses, const KvLabSettings& view, float scale) {
    const int L = view.model.layers;
    ImGui::Text("Error of the new tokens' output vs full recomputation (step %d)", ses.step);
    tooltip(
        "Relative error ||method - recompute|| / ||recompute|| of the residual stream after each "
        "layer\n"
        "and of the logits, for the tokens appended in the last step. Green: rounding level.");
    ui_.meter_rows = 0;
    if (!ImGui::BeginTable("##meters_t", L + 2,
                           ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_RowBg))
      return;
    ImGui::TableSetupColumn("method", ImGuiTableColumnFlags_WidthFixed, 110.0f * scale);
    for (int l = 0; l < L; ++l) ImGui::TableSetupColumn(("layer " + std::to_string(l)).c_str());
    ImGui::TableSetupColumn("logits");
    ImGui::TableHeadersRow();
    for (const auto& st : ses.methods) {
      if (st.history.empty()) continue;
      const KvStepErrors& e = st.history.back();
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, method_colour(st.method));
      if (ImGui::Selectable(kv_method_name(st.method).c_str(), st.method == ui_.lab.method))
        ui_.lab.method = st.method;
      ImGui::PopStyleColor();
      tooltip(method_help(st.method));
      for (int l = 0; l <= L; ++l) {
        ImGui::TableNextColumn();
        kv_meter(l < L ? e.output_error[l] : e.logits_error, scale);
      }
      ++ui_.meter_rows;
    }
    ImGui::EndTable();
    ImGui::TextDisabled("bar length: log10 error from 1e-9 (empty) to 1 (full)");
  }

  // The last new token's attention over the cache (method above, recomputation below).
  void draw_heatmap(const KvSession& ses, const KvLabSettings& view, float scale) {
    const KvMethodState& st = kv_session_method(ses, view.method);
    const int l = view.view_layer, H = view.model.heads;
    ImGui::Text("Attention of the newest token, layer %d: '%s' (top %d rows) vs recompute (bottom)",
                l, kv_method_name(view.method).c_str(), H);
    if (st.last.attention_last.empty() || ses.truth.attention_last.empty()) return;
    const RowMatrix& a = st.last.attention_last[l];
    const RowMatrix& b = ses.truth.attention_last[l];
    const int cols = static_cast<int>(std::max(a.cols(), b.cols())), rows = 2 * H + 1;
    char key[160];
    std::snprintf(key, sizeof key, "%p %d %d %d", static_cast<const void*>(&ses),
                  static_cast<int>(view.method), l, ses.step);
    if (ui_.heat_key != key) {
      std::vector<float> v(static_cast<size_t>(rows) * cols,
                           std::numeric_limits<float>::quiet_NaN());
      float vmax = 1e-6f;
      for (int h = 0; h < H; ++h) {
        for (int c = 0; c < a.cols(); ++c)
          v[static_cast<size_t>(h) * cols + c] = static_cast<float>(a(h, c));
        for (int c = 0; c < b.cols(); ++c)
          v[static_cast<size_t>(H + 1 + h) * cols + c] = static_cast<float>(b(h, c));
        vmax = std::max({vmax, static_cast<float>(a.row(h).maxCoeff()),
                         static_cast<float>(b.row(h).maxCoeff())});
      }
      ui_.heat.update(v.data(), rows, cols, 0.0f, vmax, gfx::Colormap::viridis);
      ui_.heat_key = key;
      ui_.heat_rows = rows;
      ui_.heat_cols = cols;
    }
    const float w = std::max(100.0f, ImGui::GetContentRegionAvail().x);
    const float h = std::max(
        60.0f, ImGui::GetContentRegionAvail().y - 2.5f * ImGui::GetTextLineHeightWithSpacing());
    const ImVec2 hov = ui_.heat.draw(ImVec2(w, h));
    if (hov.x >= 0) {
      const int c = static_cast<int>(hov.x), r = static_cast<int>(hov.y);
      const bool truth = r > H;
      const int hd = truth ? r - H - 1 : r;
      const auto& slots = truth ? ses.truth_cache.slots : st.cache.slots;
      if (r != H && c < static_cast<int>(slots.size())) {
        const double p = truth ? b(hd, c) : a(hd, c);
        ImGui::SetTooltip("%s head %d -> slot %d (%s, used at %s): %.4f",
                          truth ? "recompute" : kv_method_name(view.method).c_str(), hd, c,
                          slots[c].label.c_str(), index_text(slots[c].used_at).c_str(), p);
      }
    }
    ui_.heat.draw_colorbar(ImVec2(std::min(w, 240.0f * scale), 8.0f * scale));
  }

  KvUi ui_;
  ViewRect view_rect_;
};

}  // namespace

std::unique_ptr<Panel> make_kv_panel() {
  return std::make_unique<KvPanel>();
}

}  // namespace poslab::app
