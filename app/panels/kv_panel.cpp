// The KV-cache lab: a small real transformer's cache drawn slot by slot (token, index it
// was computed at, index it is used at now), the index corrections of seeds 000 and 001
// (UniZero's sliding window with learned positions, RoPE K-shift, stitching and KV-cache
// RAG with re-encoded keys), and every method's error against full recomputation. All
// numbers come from core/kv (kv_session.hpp); this file lays them out and draws them.
// Sections: KvPanel (its state: kv_panel_state.hpp): presets and checks | computation (launch,
// poll) | controls | view (layout, strip, meters, heatmap). Stateless pieces (colours, dials,
// meters, plot, stitching table, drawn-numbers record): kv_views.cpp.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/heatmap_texture.hpp"
#include "app/panels/kv_panel_state.hpp"
#include "app/panels/kv_trained_view.hpp"
#include "app/panels/kv_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/rope_controls.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/common/errors.hpp"
#include "core/kv/kv_session.hpp"
#include "io/labjson/lab_csv.hpp"

namespace poslab::app {
namespace {

class KvPanel final : public Panel {
 public:
  const char* id() const override { return kKvLabName; }
  const char* title() const override { return "KV cache"; }
  std::string preset() const override {
    return ui_.trained ? kv_trained_to_preset(ui_.tv.lab) : kv_to_preset(ui_.lab);
  }
  void load_preset(const std::string& text) override {
    if ((ui_.trained = kv_preset_is_trained(text))) return kv_trained_load(ui_.tv, text);
    ui_.lab = kv_from_preset(text);
    ui_.failed.reset();
    ui_.session_for.reset();  // recompute even if the experiment is the same
  }
  bool animating() const override { return ui_.job.running() || ui_.tv.job.running(); }

  std::vector<std::string> check_presets() const override {
    std::vector<std::string> p{
        "kv?layers=4&C=512&steps=2&layer=3",
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
    for (const std::string& t : kv_trained_check_presets()) p.push_back(t);
    return p;
  }

  std::string check_state() const override {
    if (ui_.trained) return kv_trained_check_state(ui_.tv);
    if (ui_.job.running()) return "a computation is still running after the check frames";
    if (!ui_.session) return "no session was computed";
    const KvSession& ses = *ui_.session;
    const KvLabSettings& s = ses.settings;
    if (!(kv_experiment(s) == kv_experiment(ui_.lab)))
      return "the session belongs to other settings";
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
    ctx_ = &ctx;
    poll(ctx);
    const float scale = ctx.ui_scale();
    const KvLabSettings before = ui_.lab;
    KvOp op = KvOp::none;
    if (begin_control_column(ctx, "##kv_controls", 370.0f * scale, controls_folded_)) {
      int source = ui_.trained ? 1 : 0;  // random weights | a trained language model
      radio_row(source,
                {{L("kvt.random"), T("kvt.random_tip")}, {L("kvt.trained"), T("kvt.trained_tip")}});
      ui_.trained = source == 1;
      if (ui_.trained)
        kv_trained_draw_controls(ctx, ui_.tv, scale);
      else
        op = draw_controls(ui_.lab, scale);
    }
    end_control_column();
    if (ui_.trained) {  // the trained source: its own job and view
      view_rect_ = kv_trained_draw_view(ctx, ui_.tv, scale);
      return;
    }
    kv_lab_normalize(ui_.lab);  // e.g. stitching needs RoPE, the method must suit the scenario
    if (!(ui_.lab == before)) {
      try {
        kv_lab_validate(ui_.lab);
      } catch (const Error& e) {
        ctx.report_error(ctx.tr("title.kv"), tr_error(ctx, e));
        ui_.lab = before;
      }
    }
    const KvLabSettings want = kv_experiment(ui_.lab);
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
    if (ui_.trained) return {"kv", "--preset", kv_trained_to_preset(ui_.tv.lab)};
    const std::string p = ui_.session ? kv_to_preset(ui_.session->settings) : preset();
    return {"kv", "--preset", p, "--method", "all"};
  }
  LabNumbers numbers() const override {
    if (ui_.trained) return kv_trained_numbers(ui_.tv);
    if (!ui_.session || ui_.job.running() ||
        !(ui_.session_for && *ui_.session_for == kv_experiment(ui_.lab)))
      return LabNumbers::none(share_message("share.why.computing"));
    const io::Json j = io::kv_lab_json(ui_.session->settings, *ui_.session, true);
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::kv_lab_csv(j));
  }
  ViewRect main_view_rect() const override { return view_rect_; }

  void release_gl() override { ui_.heat.release(); }

 private:
  // ---- computation -------------------------------------------------------------------
  // A step per slide or new token (kv_op_run): on a worker thread, or in the page's frames.
  void launch(AppContext& ctx, KvOp op) {
    const KvLabSettings s = ui_.lab;
    const KvSessionPtr base = ui_.session;
    ui_.job_for = kv_experiment(s);
    auto run = std::make_shared<std::unique_ptr<KvSessionRun>>();
    ui_.job.start_steps(kv_to_preset(ui_.job_for), [op, s, base, run](JobControl& job) {
      if (job.cancelled()) return std::optional<KvSessionPtr>(KvSessionPtr{});  // dropped by poll
      if (!*run) *run = kv_op_run(op, s, base);
      KvSessionRun& r = **run;
      r.step();
      job.set_progress(r.steps_done(), r.steps());
      return r.done() ? std::optional<KvSessionPtr>(std::make_shared<const KvSession>(r.take()))
                      : std::nullopt;
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
      ctx.report_error(ctx.tr("title.kv"), tr_format(ctx, out->error_message));
    }
    ui_.heat_key.clear();
  }

  // ---- controls ----------------------------------------------------------------------
  KvOp draw_controls(KvLabSettings& s, float scale) {
    KvModelParams& p = s.model;
    KvOp op = KvOp::none;
    ImGui::PushItemWidth(190.0f * scale);

    ImGui::TextUnformatted(T("kv.scenario"));
    int scenario = static_cast<int>(s.scenario);
    radio_row(scenario, {{L("kv.sliding"), T("kv.sliding_tip")},
                         {L("kv.stitch"), T("kv.stitch_tip")},
                         {"RAG", T("kv.rag_tip")}});
    s.scenario = static_cast<KvScenario>(scenario);

    int pos = static_cast<int>(p.positions);
    radio_row(pos, {{L("kv.learned"), T("kv.learned_tip")}, {"RoPE", T("kv.rope_tip")}});
    p.positions = static_cast<KvPositions>(pos);

    const auto methods = kv_methods_for(
        s.scenario, s.scenario == KvScenario::sliding ? p.positions : KvPositions::rope);
    if (ImGui::BeginCombo(L("kv.method_shown").c_str(), kv_method_name(s.method).c_str())) {
      for (auto m : methods) {
        if (ImGui::Selectable(kv_method_name(m).c_str(), m == s.method)) s.method = m;
        tooltip(method_help(*ctx_, m));
      }
      ImGui::EndCombo();
    }
    tooltip(T("kv.method_shown_tip"));
    text_wrapped("%s", method_help(*ctx_, s.method));

    ImGui::Separator();
    ImGui::TextUnformatted(T("kv.steps_heading"));
    const bool sliding = s.scenario == KvScenario::sliding;
    const bool busy = ui_.job.running();
    if (busy) ImGui::BeginDisabled();
    if (ImGui::Button(L("kv.restart").c_str())) op = KvOp::restart;
    tooltip(T(sliding ? "kv.restart_sliding_tip" : "kv.restart_stitch_tip"));
    ImGui::SameLine();
    // Disabled where core would refuse (learned positions, full window), saying why.
    const std::string refusal =
        ui_.session && !busy ? tr_format(*ctx_, kv_session_append_refusal(*ui_.session)) : "";
    if (!refusal.empty()) ImGui::BeginDisabled();
    if (ImGui::Button(L(sliding ? "kv.append_step" : "kv.append_token").c_str())) op = KvOp::append;
    if (!refusal.empty()) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      tooltip_show(!refusal.empty() ? refusal.c_str()
                                    : T(sliding ? "kv.append_step_tip" : "kv.append_token_tip"));
    if (sliding) {
      ImGui::SameLine();
      if (ImGui::Button(L("kv.slide").c_str())) op = KvOp::slide;
      tooltip(T("kv.slide_tip"));
    } else {
      ImGui::SameLine();
      const bool stitched = ui_.session && ui_.session->stitched;
      if (stitched) ImGui::BeginDisabled();
      if (ImGui::Button(L("kv.stitch_button").c_str())) op = KvOp::stitch;
      if (stitched) ImGui::EndDisabled();
      tooltip(T("kv.stitch_button_tip"));
    }
    if (ImGui::Button(L(sliding ? "kv.run_slides" : "kv.run_tokens").c_str())) op = KvOp::more;
    tooltip(T("kv.run_tip"));
    ImGui::SameLine();
    if (ImGui::Button(L("kv.rerun").c_str())) op = KvOp::run;
    tooltip(T("kv.rerun_tip"));
    if (busy) ImGui::EndDisabled();
    if (!refusal.empty()) {  // why "Append" is disabled, without hovering
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", refusal.c_str());
      ImGui::PopTextWrapPos();
    }
    slider_int(L("kv.steps").c_str(), s.steps, KvLabSettings::steps_range, true, T("kv.steps_tip"));
    if (sliding) {
      slider_int(L("kv.drop_steps").c_str(), s.drop_steps,
                 {1, static_cast<double>(std::max(1, p.context / 2 - 1))}, false,
                 T("kv.drop_steps_tip"));
    } else {
      slider_int(L("kv.b_tokens").c_str(), s.first_length, KvLabSettings::length_range, true,
                 T("kv.b_tokens_tip"));
      slider_int(L("kv.a_tokens").c_str(), s.second_length, KvLabSettings::length_range, true,
                 T("kv.a_tokens_tip"));
      if (s.scenario == KvScenario::rag) {
        slider_int(L("kv.retrieved").c_str(), s.retrieved, {1, static_cast<double>(s.first_length)},
                   false, T("kv.retrieved_tip"));
        slider_int(L("kv.from_b").c_str(), s.retrieve_from,
                   {0, static_cast<double>(s.first_length - 1)}, false, T("kv.from_b_tip"));
        slider_int(L("kv.stride").c_str(), s.retrieve_stride, KvLabSettings::retrieve_stride_range,
                   false, T("kv.stride_tip"));
      }
    }

    ImGui::Separator();
    ImGui::TextUnformatted(T("kv.model_heading"));
    slider_int(L("kv.layers").c_str(), p.layers, KvModelParams::layers_range, false,
               T("kv.layers_tip"));
    int width_choice = p.width;
    const int widths[] = {32, 64, 128, 256};
    if (ImGui::BeginCombo(L("kv.width").c_str(), std::to_string(p.width).c_str())) {
      for (int w : widths)
        if (ImGui::Selectable(std::to_string(w).c_str(), w == p.width)) width_choice = w;
      ImGui::EndCombo();
    }
    tooltip(T("kv.width_tip"));
    p.width = width_choice;
    int heads_choice = p.heads;
    if (ImGui::BeginCombo(L("kv.heads").c_str(), std::to_string(p.heads).c_str())) {
      for (int h : {1, 2, 4, 8, 16})
        if (p.width % h == 0 && (p.width / h) % 2 == 0 &&
            ImGui::Selectable(std::to_string(h).c_str(), h == p.heads))
          heads_choice = h;
      ImGui::EndCombo();
    }
    tooltip(T("kv.heads_tip"));
    p.heads = heads_choice;
    ImGui::Text("%s D = %d", T("kv.head_dim"), kv_head_dim(p));
    slider_int(L("kv.context").c_str(), p.context, KvModelParams::context_range, true,
               T("kv.context_tip"));
    ImGui::Checkbox("pre-LayerNorm", &p.layer_norm);
    tooltip(T("kv.layer_norm_tip"));
    if (p.positions == KvPositions::learned)
      slider_double(L("kv.position_std").c_str(), p.position_std, KvModelParams::position_std_range,
                    "%.3g", false, T("kv.position_std_tip"));
    slider_double(L("kv.attention_gain").c_str(), p.attention_gain,
                  KvModelParams::attention_gain_range, "%.3g", true, T("kv.attention_gain_tip"));
    if (p.positions == KvPositions::rope) {
      rope_controls(*ctx_, p.rope,
                    {.head_dim = false,
                     .rotary_fraction = false,
                     .base_buttons = false,
                     .layout_diagram = false},
                    scale);
      if (p.rope.scaling != RopeScaling::none) {
        const double m = kv_rope_table_scale(p);
        ImGui::Text("cos/sin: %.4f, %s x %.4f", m, T("kv.keys"), m * m);
        tooltip(T("kv.table_scale_tip"));
      }
    }
    ImGui::InputInt(L("kv.seed").c_str(), &p.seed);
    p.seed = std::clamp(p.seed, 0, 2147483647);
    tooltip(T("kv.seed_tip"));
    ImGui::Checkbox(L("kv.float32").c_str(), &s.cache_float32);
    tooltip(T("kv.float32_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("kv.view_heading"));
    slider_int(L("kv.layer").c_str(), s.view_layer, {0, static_cast<double>(p.layers - 1)}, false,
               T("kv.layer_tip"));
    slider_int(L("kv.head").c_str(), s.view_head, {0, static_cast<double>(p.heads - 1)}, false,
               T("kv.head_tip"));
    if (p.positions == KvPositions::rope)
      slider_int(L("kv.rope_pair").c_str(), s.view_pair,
                 {0, static_cast<double>(std::max(0, kv_head_dim(p) / 2 - 1))}, false,
                 T("kv.rope_pair_tip"));
    int metric = static_cast<int>(ui_.plot_metric);
    ImGui::TextUnformatted(T("kv.plot"));
    ImGui::SameLine();
    ImGui::RadioButton(L("kv.output").c_str(), &metric, 0);
    ImGui::SameLine();
    ImGui::RadioButton(L("kv.keys").c_str(), &metric, 1);
    ImGui::SameLine();
    ImGui::RadioButton("logits", &metric, 2);
    tooltip(T("kv.plot_tip"));
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
    if (!ui_.session) {  // the first session: its progress and Cancel, or why there is none
      if (!ui_.job.running())
        ImGui::TextUnformatted(T("kv.no_result"));
      else if (job_status(ui_.job, false, 160.0f * scale) == JobAction::cancel)
        ui_.failed = ui_.job_for;
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
      ImGui::Text("%s %d", T("kv.step"), ses.step);
    ImGui::SameLine();
    // Wrapped: on a projector the header's end must not be cut off at the window's edge.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (view.scenario == KvScenario::sliding)
      text_wrapped("| %s %d..%d | %s", T("kv.window_tokens"), ses.window_begin, ses.window_end - 1,
                   T("kv.truth_sliding"));
    else
      text_wrapped("| %s", T("kv.truth_stitch"));
    ImGui::PopStyleColor();
    if (view.scenario == KvScenario::sliding && view.model.layers > 1 && ses.step > 0)
      text_wrapped("%s", T("kv.why_layer0"));

    draw_strip(ses, view, scale);
    ImGui::Separator();
    if (ses.step == 0) {
      ui_.meter_rows = 0;
      text_wrapped("%s", T(view.scenario == KvScenario::sliding ? "kv.press_slide"
                           : ses.stitched                       ? "kv.press_append"
                                                                : "kv.press_stitch"));
      if (view.scenario != KvScenario::sliding && ses.stitched)
        kv_draw_stitch_numbers(*ctx_, ses, view);
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
      kv_draw_plot(*ctx_, ses, view, ui_.plot_metric, scale);
    } else {
      ImGui::BeginChild("##stitchnums", ImVec2(half, 0), true);
      kv_draw_stitch_numbers(*ctx_, ses, view);
      ImGui::EndChild();
      ImGui::SameLine();
      ImGui::BeginChild("##stitchplot", ImVec2(0, 0), false);
      kv_draw_plot(*ctx_, ses, view, ui_.plot_metric, scale);
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
      text_wrapped("%s 0..%d, %s 0..%d. %s", T("kv.cache_b_at"), kv_cache_size(ses.cache_b) - 1,
                   T("kv.cache_a_at"), kv_cache_size(ses.cache_a) - 1, T("kv.stitch_reads"));
    else
      text_wrapped("%s '%s' (%s %d): %s", T("kv.cache_of"), kv_method_name(view.method).c_str(),
                   T("kv.head"), view.view_head, T("kv.strip_legend"));
    const bool rope = p.positions == KvPositions::rope;
    const float line = ImGui::GetTextLineHeight();
    const float cw = 44.0f * scale, dial = rope ? 30.0f * scale : 0.0f, cell = 12.0f * scale;
    const float head_h = 3 * line + 6.0f * scale;
    const float label_w = 26.0f * scale;
    const float strip_h = head_h + dial + (st ? p.layers * (cell + 2.0f) : 0.0f) + 8.0f * scale;
    // Its height: the strip, the padding above and below it, and the scroll bar across (at UI
    // scale 2 the padding is 16 px: the last layer's row was cut off below).
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::BeginChild("##strip",
                      ImVec2(0, strip_h + style.ScrollbarSize + 2 * style.WindowPadding.y), true,
                      ImGuiWindowFlags_HorizontalScrollbar);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const int n = static_cast<int>(slots.size());
    ImGui::Dummy(ImVec2(label_w + n * (cw + 2.0f), strip_h));
    // ImGui's hover test, not a bare rectangle: nothing shows through a popup, menu or modal.
    const bool strip_hovered = ImGui::IsItemHovered();
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
      if (strip_hovered &&
          ImGui::IsMouseHoveringRect(ImVec2(x, o.y), ImVec2(x + cw, o.y + strip_h))) {
        const std::string nl = "\n";
        std::string tip = s.label + ": " + T("kv.token_id") + " " + std::to_string(s.token) + nl +
                          T("kv.computed_at") + " " + index_text(s.computed_at) + nl +
                          T("kv.encoded_at") + " " + index_text(s.encoded_at);
        if (!unstitched) tip += nl + T("kv.used_at") + " " + index_text(s.used_at);
        if (s.approximate) tip += nl + T("kv.moved_approx");
        if (s.key_scale != 1.0)
          tip += nl + T("kv.keys") + " " + sci(s.key_scale) + " " + T("kv.x_correct_length");
        if (rope) {
          const KvSlotAngles a = kv_slot_angles(p, s, view.view_pair);
          tip += nl + T("kv.pair") + " " + std::to_string(view.view_pair) + ": " +
                 T("kv.stored_angle") + " " + sci(a.stored) + " rad, " + T("kv.should_be") + " " +
                 sci(a.should) + " rad";
        }
        for (int l = 0; st && l < p.layers; ++l)
          if (i < static_cast<int>(cell_err[l].size()))
            tip += nl + T("kv.layer") + " " + std::to_string(l) + " " + T("kv.key_error_vs") +
                   ": " + sci(cell_err[l][i]);
        tooltip_show(tip);
      }
    }
    ImGui::EndChild();
    if (rope)
      ImGui::TextDisabled("%s %d. %s", T("kv.dials_pair"), view.view_pair, T("kv.dials_legend"));
  }

  // Bars on a log scale, one row per method, one column per layer plus the logits.
  void draw_meters(const KvSession& ses, const KvLabSettings& view, float scale) {
    const int L = view.model.layers;
    text_wrapped("%s (%s %d)", T("kv.meters_title"), T("kv.step"), ses.step);
    tooltip(T("kv.meters_tip"));
    ui_.meter_rows = 0;
    if (!kv_begin_meters_table(*ctx_, ses, L, scale)) return;
    for (const auto& st : ses.methods) {
      if (st.history.empty()) continue;
      const KvStepErrors& e = st.history.back();
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, method_colour(st.method));
      if (ImGui::Selectable(kv_method_name(st.method).c_str(), st.method == ui_.lab.method))
        ui_.lab.method = st.method;
      ImGui::PopStyleColor();
      tooltip(method_help(*ctx_, st.method));
      for (int l = 0; l <= L; ++l) {
        ImGui::TableNextColumn();
        kv_meter(l < L ? e.output_error[l] : e.logits_error, scale);
      }
      ++ui_.meter_rows;
    }
    ImGui::EndTable();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped("%s", T("kv.bar_legend"));
    ImGui::PopStyleColor();
  }

  // The last new token's attention over the cache (method above, recomputation below).
  void draw_heatmap(const KvSession& ses, const KvLabSettings& view, float scale) {
    const KvMethodState& st = kv_session_method(ses, view.method);
    const int l = view.view_layer, H = view.model.heads;
    text_wrapped("%s %d: '%s' (%s %d) %s", T("kv.heat_title"), l,
                 kv_method_name(view.method).c_str(), T("kv.top_rows"), H, T("kv.vs_recompute"));
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
        tooltip_showf("%s %s %d -> %s %d (%s, %s %s): %.4f",
                      truth ? "recompute" : kv_method_name(view.method).c_str(), T("kv.head"), hd,
                      T("kv.slot"), c, slots[c].label.c_str(), T("kv.used_at"),
                      index_text(slots[c].used_at).c_str(), p);
      }
    }
    ui_.heat.draw_colorbar(ImVec2(std::min(w, 240.0f * scale), 8.0f * scale));
  }

  KvUi ui_;
  ViewRect view_rect_;
  const AppContext* ctx_ = nullptr;  // set at the start of draw(): the interface language
  const char* T(const char* key) const { return ctx_->tr(key); }
  std::string L(const char* key) const { return tr_id(*ctx_, key); }
};

}  // namespace

std::unique_ptr<Panel> make_kv_panel() {
  return std::make_unique<KvPanel>();
}

}  // namespace poslab::app
