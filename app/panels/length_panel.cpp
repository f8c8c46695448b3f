// The length lab (issue 27): the shipped byte-level language models measured past their
// training length L. Loss against position per encoding and RoPE scaling, a text coloured
// by each byte's surprise with the model's predictions on hover, and the real attention of
// one layer and head. Every number comes from core/lm's length_lab_compute on a worker
// thread; the models and held-out text are loaded once by io (length_lab_load).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/app_context.hpp"
#include "app/panels/length_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/tooltip.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "app/widgets/wrapped_text.hpp"
#include "core/common/errors.hpp"
#include "io/labjson/lab_csv.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::app {
namespace {

using lm::LengthLabSettings;
using lm::LengthModelId;

class LengthPanel final : public Panel {
 public:
  const char* id() const override { return lm::kLengthLabName; }
  const char* title() const override { return "Length lab"; }
  std::string preset() const override { return lm::length_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override {
    ui_.lab = lm::length_from_preset(text);
    ui_.train_autostart = false;  // a link shows "Train your own"; a run takes a click
  }
  void start_requested_runs() override { ui_.train_autostart = ui_.lab.train == 2; }
  // The next start never trains by itself.
  std::string saved_preset() const override {
    LengthLabSettings s = ui_.lab;
    s.train = std::min(s.train, 1);
    return lm::length_to_preset(s);
  }
  bool animating() const override { return ui_.train.running(); }
  void release_gl() override {
    ui_.heads_plain.release();
    ui_.heads_scaled.release();
    ui_.uploaded = nullptr;
  }
  void cancel_jobs() override {
    ui_.job.cancel();
    ui_.load_job.cancel();
    ui_.train.cancel();
  }

  std::vector<std::string> check_presets() const override {
    return {
        "length?span=1&windows=1&scaling=none",
        "length?span=8&windows=4&scaling=yarn&factor=1024&model=rope&scaled=1",
        "length?scaling=linear&factor=1&model=learned&layer=31&head=63&heads_bytes=1024",
        "length?scaling=dynamic&model=rope_ft_yarn&source=own&text=%E5%BA%8A%E5%89%8D%E6%98%8E%"
        "E6%9C%88%E5%85%89&topk=16&heads_bytes=8",
        "length?none=0&sin=0&learned=0&rope=0&alibi=0&t5=0&tuned=0&passage=999",
        "length?scaling=llama3&factor=8&log=1&one=1&mean=0&model=t5&span=2&topk=1",
        "length?scaling=ntk&model=none&source=own&text=a",
        "length?train=1&yours=0",
    };
  }

  std::string check_state() const override {
    if (std::string t = ui_.train.check_state(); !t.empty()) return "train your own: " + t;
    if (!ui_.data) return ui_.load_error.empty() ? "models were not loaded" : std::string();
    const LengthResultPtr& c = ui_.shown;
    if (!c)
      return "nothing was computed" +
             (ui_.last_error.empty() ? std::string() : ": " + ui_.last_error);
    if (!(length_compute_inputs(c->lab) == length_compute_inputs(ui_.lab)))
      return "shown result is stale";
    // Issue 40: the state (and so the preset) names the layer and head drawn.
    if (const lm::LengthLabModel* m = shown_model();
        m && (ui_.lab.layer >= m->config.layers || ui_.lab.head >= m->config.heads))
      return "layer " + std::to_string(ui_.lab.layer) + ", head " + std::to_string(ui_.lab.head) +
             " kept past the model's " + std::to_string(m->config.layers) + " layers, " +
             std::to_string(m->config.heads) + " heads";
    for (const lm::LengthCurve& k : c->curves) {
      if (static_cast<int>(k.curve.mean_bits.size()) != c->positions)
        return "a curve has " + std::to_string(k.curve.mean_bits.size()) + " points, want " +
               std::to_string(c->positions);
      for (double b : k.curve.mean_bits)
        if (!(b >= 0)) return "a curve has a negative or NaN loss";
    }
    if (!c->scores.bits.empty() && ui_.text_chars_drawn < 1) return "the text view drew nothing";
    if (c->heads_plain.n > 0) {
      const int n = c->heads_plain.n;
      for (int t = 0; t < n; ++t) {
        float sum = 0;
        for (int s = 0; s < n; ++s) sum += c->heads_plain.probs[static_cast<size_t>(t) * n + s];
        if (std::abs(sum - 1.0f) > 1e-3f)
          return "attention row " + std::to_string(t) + " sums to " + std::to_string(sum);
      }
    }
    if (drawn_numbers_wanted()) length_record_numbers(*c);
    return {};
  }

  bool controls_folded_ = false;

  void draw(AppContext& ctx) override {
    ctx_ = &ctx;
    const float scale = ctx.ui_scale();
    load(ctx);
    const LengthLabSettings before = ui_.lab;
    if (begin_control_column(ctx, "##length_controls", 340.0f * scale, controls_folded_))
      draw_controls(ui_.lab, scale);
    end_control_column();
    if (ui_.lab.source == lm::LengthTextSource::own) ctx.ensure_glyphs(ui_.lab.text);
    if (!(ui_.lab == before)) {
      try {
        lm::length_lab_validate(ui_.lab);
      } catch (const Error& e) {
        ctx.report_error(ctx.tr("title.length"), tr_error(ctx, e));
        ui_.lab = before;
      }
    }
    schedule(ctx);
    ImGui::SameLine();
    ImGui::BeginChild("##length_view", ImVec2(0, 0), false);
    ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x);
    draw_view(ctx, scale);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
    view_rect_ = last_item_rect();
  }

  std::vector<std::string> cli_args() const override { return {"length", "--preset", preset()}; }
  LabNumbers numbers() const override {
    const LengthResultPtr& c = ui_.shown;
    if (!c || !(length_compute_inputs(c->lab) == length_compute_inputs(ui_.lab)))
      return LabNumbers::none(share_message("share.why.computing"));
    const io::Json j =
        io::length_lab_json(*c, ui_.data ? ui_.data->own_skipped : std::vector<std::string>{});
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::length_lab_csv(j));
  }
  ViewRect main_view_rect() const override { return view_rect_; }

 private:
  // ---- loading and computation ---------------------------------------------------------
  void load(AppContext& ctx) {
    if (!ui_.load_started) {
      // The browser build fetches the models and held-out text first (the desktop has them).
      ui_.fetch = ctx.fetch_files(io::length_lab_files());
      if (!ui_.fetch.done) {
        ctx.request_frames(2);
        return;
      }
      if (!ui_.fetch.error.empty()) ctx.report_error(ctx.tr("title.length"), ui_.fetch.error);
      ui_.load_started = true;
      ui_.load_job.start("load", [](JobControl&) {
        return std::make_shared<const lm::LengthLabData>(io::length_lab_load());
      });
    }
    auto out = ui_.load_job.poll(ctx);
    if (!out || out->cancelled) return;
    if (out->value) {
      ui_.data = std::move(*out->value);
    } else {
      // Shown in place of the views (what to install or train), not as a banner: a lesson
      // link into the lab on a machine without the models is not an error of that link.
      ui_.load_error = tr_format(ctx, out->error_message);
    }
  }

  // The shown model (nullptr before the models are loaded, or when it is missing).
  const lm::LengthLabModel* shown_model() const {
    return ui_.data ? ui_.data->find(ui_.lab.model) : nullptr;
  }
  // The heads view's layer and head within the shown model (a 2-layer, 4-head model has no
  // layer 14): the state, and so the preset and the sliders, say what is drawn.
  void clamp_heads_to_model() {
    if (const lm::LengthLabModel* m = shown_model()) {
      ui_.lab.layer = std::clamp(ui_.lab.layer, 0, m->config.layers - 1);
      ui_.lab.head = std::clamp(ui_.lab.head, 0, m->config.heads - 1);
    }
  }

  void schedule(AppContext& ctx) {
    poll(ctx);
    if (!ui_.data) return;
    clamp_heads_to_model();
    const LengthLabSettings want = length_compute_inputs(ui_.lab);
    if (ui_.job.running()) {
      if (!(want == ui_.job_inputs)) ui_.job.cancel();
      return;
    }
    if (!ui_.data_changed && ((ui_.shown && length_compute_inputs(ui_.shown->lab) == want) ||
                              (ui_.failed && *ui_.failed == want)))
      return;
    ui_.data_changed = false;
    ui_.job_inputs = want;
    // lm::LengthLabRun's steps (a batch of 8 windows of one curve each): a worker thread runs
    // them on the desktop, the frames in the browser. The steps keep the data alive.
    auto run = std::make_shared<std::unique_ptr<lm::LengthLabRun>>();
    ui_.job.start_steps(
        lm::length_to_preset(want),
        [want, data = ui_.data, run](JobControl& job) -> std::optional<LengthResultPtr> {
          if (job.cancelled()) return LengthResultPtr{};  // dropped by poll
          if (!*run) {
            *run = std::make_unique<lm::LengthLabRun>(want, *data);
            return std::nullopt;
          }
          lm::LengthLabRun& r = **run;
          r.step();
          job.set_progress(r.steps_done(), r.steps());
          if (!r.done()) return std::nullopt;
          return std::make_shared<const lm::LengthLabResult>(r.take());
        });
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
      ui_.last_error = tr_format(ctx, out->error_message);
      ctx.report_error(ctx.tr("title.length"), ui_.last_error);
    }
  }

  // ---- controls ------------------------------------------------------------------------
  const char* T(const char* key) const { return ctx_->tr(key); }
  std::string L(const char* key) const { return tr_id(*ctx_, key); }

  void model_combo(const char* label, LengthModelId& id) {
    if (ImGui::BeginCombo(label,
                          T(("length.model_" + std::string(lm::length_model_name(id))).c_str()))) {
      for (int k = 0; k < lm::kLengthModelCount; ++k) {
        const auto option = static_cast<LengthModelId>(k);
        const std::string key = "length.model_" + std::string(lm::length_model_name(option));
        if (ImGui::Selectable(T(key.c_str()), option == id)) id = option;
      }
      ImGui::EndCombo();
    }
  }

  void draw_controls(LengthLabSettings& s, float scale) {
    ImGui::PushItemWidth(170.0f * scale);
    ImGui::TextUnformatted(T("length.models_heading"));
    ImGui::Checkbox(L("length.model_none").c_str(), &s.show_none);
    ImGui::SameLine(150.0f * scale);
    ImGui::Checkbox(L("length.model_sinusoidal").c_str(), &s.show_sinusoidal);
    ImGui::Checkbox(L("length.model_sinusoidal_scaled").c_str(), &s.show_sinusoidal_scaled);
    ImGui::SameLine(150.0f * scale);
    ImGui::Checkbox(L("length.model_learned").c_str(), &s.show_learned);
    ImGui::Checkbox(L("length.model_rope").c_str(), &s.show_rope);
    ImGui::SameLine(150.0f * scale);
    ImGui::Checkbox(L("length.model_alibi").c_str(), &s.show_alibi);
    ImGui::Checkbox(L("length.model_t5").c_str(), &s.show_t5);
    ImGui::Checkbox(L("length.tuned").c_str(), &s.show_tuned);
    tooltip(T("length.tuned_tip"));
    ImGui::Checkbox(L("length.yours").c_str(), &s.show_own);
    tooltip(T("length.yours_tip"));
    ImGui::SameLine();
    bool train = s.train > 0;
    if (ImGui::Checkbox(L("length.train").c_str(), &train)) s.train = train ? 1 : 0;
    tooltip(T("length.train_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("length.scaling_heading"));
    const auto& names = rope_scaling_names();
    if (ImGui::BeginCombo(L("length.scaling").c_str(),
                          names[static_cast<size_t>(s.scaling)].c_str())) {
      for (size_t i = 0; i < names.size(); ++i)
        if (ImGui::Selectable(names[i].c_str(), static_cast<size_t>(s.scaling) == i))
          s.scaling = static_cast<RopeScaling>(i);
      ImGui::EndCombo();
    }
    tooltip(T("length.scaling_tip"));
    slider_double(L("length.factor").c_str(), s.factor, lm::LmScaling::factor_range, "%.2f", true,
                  T("length.factor_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("length.curves_heading"));
    slider_int(L("length.span").c_str(), s.span, LengthLabSettings::span_range, false,
               T("length.span_tip"));
    slider_int(L("length.windows").c_str(), s.windows, LengthLabSettings::windows_range, true,
               T("length.windows_tip"));
    slider_int(L("length.smooth").c_str(), s.smooth, LengthLabSettings::smooth_range, true,
               T("length.smooth_tip"));
    ImGui::Checkbox(L("length.mean").c_str(), &s.show_mean);
    ImGui::SameLine();
    ImGui::Checkbox(L("length.one").c_str(), &s.show_one);
    ImGui::SameLine();
    ImGui::Checkbox(L("length.log").c_str(), &s.log_y);

    ImGui::Separator();
    ImGui::TextUnformatted(T("length.text_heading"));
    model_combo(L("length.model").c_str(), s.model);
    tooltip(T("length.model_tip"));
    ImGui::Checkbox(L("length.scaled").c_str(), &s.scaled);
    tooltip(T("length.scaled_tip"));
    int source = static_cast<int>(s.source);
    radio_row(source, {{L("length.src_passage"), T("length.src_passage_tip")},
                       {L("length.src_own"), T("length.src_own_tip")}});
    s.source = static_cast<lm::LengthTextSource>(source);
    if (s.source == lm::LengthTextSource::passage) {
      slider_int(L("length.passage").c_str(), s.passage, LengthLabSettings::passage_range, false,
                 T("length.passage_tip"));
    } else {
      ImGui::InputTextMultiline("##length_text", &s.text, ImVec2(-1, 90.0f * scale));
      tooltip(T("length.text_tip"));
      if (s.text.size() > LengthLabSettings::max_text_bytes)
        s.text.resize(LengthLabSettings::max_text_bytes);
    }
    slider_int(L("length.topk").c_str(), s.topk, LengthLabSettings::topk_range, false,
               T("length.topk_tip"));

    ImGui::Separator();
    ImGui::TextUnformatted(T("length.heads_heading"));
    // The sliders reach the shown model's last layer and head, not the preset's limits.
    ParamRange layers = LengthLabSettings::layer_range, heads = LengthLabSettings::head_range;
    if (const lm::LengthLabModel* m = shown_model()) {
      layers.hi = std::min(layers.hi, static_cast<double>(m->config.layers - 1));
      heads.hi = std::min(heads.hi, static_cast<double>(m->config.heads - 1));
    }
    slider_int(L("length.layer").c_str(), s.layer, layers, false, T("length.layer_tip"));
    slider_int(L("length.head").c_str(), s.head, heads, false, T("length.head_tip"));
    slider_int(L("length.heads_bytes").c_str(), s.heads_bytes, LengthLabSettings::heads_bytes_range,
               true, T("length.heads_bytes_tip"));
    ImGui::PopItemWidth();
  }

  // ---- view ----------------------------------------------------------------------------
  // A model the user's run saved: into the lab's list (or the first load picks it up).
  void add_own(AppContext& ctx, const std::string& path) {
    try {
      lm::LengthLabModel m = io::length_own_model_load(path);
      if (ui_.data) {
        auto d = std::make_shared<lm::LengthLabData>(*ui_.data);
        d->put_own(std::move(m));
        ui_.data = std::move(d);
        ui_.data_changed = true;
      } else if (!ui_.load_job.running()) {
        ui_.load_started = false;
        ui_.load_error.clear();
      }
    } catch (const Error& e) {
      ctx.report_error(ctx.tr("title.length"), tr_error(ctx, e));
    }
  }

  void draw_view(AppContext& ctx, float scale) {
    if (ui_.lab.train > 0 || ui_.train.running()) {
      ImGui::TextUnformatted(T("length.train_title"));
      const std::string saved = ui_.train.draw(ctx, std::exchange(ui_.train_autostart, false));
      if (!saved.empty()) add_own(ctx, saved);
      ImGui::Separator();
    }
    if (!ui_.data) {
      if (!ui_.load_error.empty()) {
        text_wrapped("%s", T("length.no_models"));
        ImGui::TextDisabled("%s", ui_.load_error.c_str());
      } else if (!ui_.fetch.done) {
        ImGui::TextUnformatted(
            tr_args(T("length.fetching"), {{"done", std::to_string(ui_.fetch.fetched)},
                                           {"total", std::to_string(ui_.fetch.files)}})
                .c_str());
      } else {
        ImGui::TextUnformatted(T("length.loading"));
      }
      return;
    }
    JobStatusTexts words;
    words.working = T("length.computing");
    words.cancel = T("length.cancel");
    if (job_status(ui_.job, false, 300.0f * scale, words) == JobAction::cancel)
      ui_.failed = ui_.job_inputs;
    const LengthResultPtr c = ui_.shown;
    if (!c) return;
    if (!c->missing.empty()) {
      std::string names;
      for (const std::string& m : c->missing) names += (names.empty() ? "" : ", ") + m;
      ImGui::TextDisabled("%s", tr_args(T("length.missing"), {{"names", names}}).c_str());
    }
    for (const std::string& why : ui_.data->own_skipped)
      ImGui::TextDisabled("%s", tr_args(T("length.own_skipped"), {{"why", why}}).c_str());
    ImGui::TextUnformatted(T("length.curves_title"));
    ImGui::TextDisabled("%s", T("length.curves_help"));
    for (const std::string& why : c->refused) text_wrapped("%s", why.c_str());  // over budget
    length_draw_curves(ctx, *c, ui_.lab,
                       std::max(220.0f * scale, ImGui::GetContentRegionAvail().y * 0.4f), scale);
    ImGui::Spacing();
    ImGui::TextUnformatted(T("length.text_title"));
    ImGui::TextDisabled(
        "%s",
        tr_args(T("length.text_help"), {{"model", lm::length_model_name(c->lab.model)}}).c_str());
    ui_.text_chars_drawn = length_draw_text(ctx, *c, scale);
    if (c->heads_plain.n > 0) {
      ImGui::Spacing();
      ImGui::TextUnformatted(tr_args(T("length.heads_title"), {{"layer", std::to_string(c->layer)},
                                                               {"head", std::to_string(c->head)}})
                                 .c_str());
      length_draw_heads(ctx, ui_, *c, scale);
    }
  }

  LengthUi ui_;
  ViewRect view_rect_;
  const AppContext* ctx_ = nullptr;
};

}  // namespace

std::unique_ptr<Panel> make_length_panel() {
  return std::make_unique<LengthPanel>();
}

}  // namespace poslab::app
