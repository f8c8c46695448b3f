// Draws the length lab's "Train your own" section and drives its worker (see
// length_train_view.hpp). The run itself is io's LmTrainRun, the one `poslab-cli lm train`
// makes; this file only picks the spec, starts, cancels and draws what the worker reports.
#include "app/panels/length_train_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "app/app_context.hpp"
#include "app/widgets.hpp"
#include "app/widgets/fit_width.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/common/errors.hpp"
#include "core/common/smoothing.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_own.hpp"
#include "core/lm/lm_train.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"

namespace poslab::app {

namespace {

// "3 min 20 s", "45 s": a duration for the time left.
std::string length_train_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  char buf[48];
  if (s >= 60)
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld s", s);
  return buf;
}

// How much longer a run takes in a browser page than the native estimate (one thread, the
// generic kernels, steps between frames): measured by tests/web/train_test.mjs against
// poslab-cli lm train on the same steps (its report's page_seconds / native_seconds).
constexpr double kPageSlowdown = 4.0;  // 13.7 s / 3.6 s for 10 steps, 2026-11-27

}  // namespace

std::string LengthTrainView::check_state() const {
  if (curves_.row_step.size() != curves_.row_train.size() ||
      curves_.row_step.size() != curves_.row_valid.size() ||
      curves_.step.size() != curves_.step_bits.size())
    return "the training curves have columns of different lengths";
  if (curves_.done > curves_.total && curves_.total > 0) return "more steps done than asked";
  return {};
}

void LengthTrainView::start(AppContext& ctx) {
  error_.clear();
  cancelled_ = false;
  curves_ = {};
  smoothed_.clear();
  const std::string dir = (std::filesystem::path(ctx.data_dir()) / "models").string();
  try {
    lm_train_job_start(job_, spec_, dir);
  } catch (const Error& e) {
    error_ = tr_error(ctx, e);
  }
}

void LengthTrainView::fetch_then_start(AppContext& ctx) {
  const FileFetch f = ctx.fetch_files(io::lm_default_text_paths());
  if (!f.done) {
    fetching_ = true;
    ctx.request_frames(2);
    text_wrapped("%s",
                 tr_args(ctx.tr("length.train_fetching"),
                         {{"done", std::to_string(f.fetched)}, {"total", std::to_string(f.files)}})
                     .c_str());
    return;
  }
  fetching_ = false;
  if (!f.error.empty()) {
    error_ = f.error;
    return;
  }
  start(ctx);
}

std::string LengthTrainView::draw(AppContext& ctx, bool autostart) {
  const float s = ctx.ui_scale();
  std::string saved;
  // The last report is taken after the job has ended, so a cancelled run's last step shows.
  const bool ended = job_.finished();
  if (auto r = job_.take_report()) curves_ = std::move(*r);
  if (ended) {
    if (auto out = job_.poll(ctx, false)) {
      std::error_code ec;
      if (out->value) curves_ = std::move(*out->value);
      cancelled_ = out->cancelled;
      if (!out->value && !out->cancelled)
        error_ = tr_format(ctx, out->error_message);
      else if (std::filesystem::exists(out->key, ec))
        saved = out->key;  // the job's key is its checkpoint's path
    }
  } else if (job_.running()) {
    ctx.request_frames(2);
  }

  text_wrapped("%s", ctx.tr("length.train_help"));
  const bool busy = job_.running();
  ImGui::BeginDisabled(busy);
  const auto& names = lm::lm_position_names();
  const std::string shown =
      ctx.tr(("length.model_" + names[static_cast<size_t>(spec_.position)]).c_str());
  ImGui::SetNextItemWidth(130 * s);
  if (ImGui::BeginCombo(tr_id(ctx, "length.train_encoding").c_str(), shown.c_str())) {
    for (size_t i = 0; i < names.size(); ++i)
      if (ImGui::Selectable(ctx.tr(("length.model_" + names[i]).c_str()),
                            static_cast<size_t>(spec_.position) == i))
        spec_.position = static_cast<lm::LmPosition>(i);
    ImGui::EndCombo();
  }
  tooltip(ctx.tr("length.train_encoding_tip"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120 * s);
  int steps = static_cast<int>(spec_.steps);
  if (slider_int(tr_id(ctx, "length.train_steps").c_str(), steps, lm::LmOwnSpec::steps_range, true,
                 ctx.tr("length.train_steps_tip")))
    spec_.steps = steps;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90 * s);
  slider_int(tr_id(ctx, "length.train_context").c_str(), spec_.context, lm::lm_own_context_range(),
             true, ctx.tr("length.train_context_tip"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70 * s);
  int seed = static_cast<int>(spec_.seed);
  if (ImGui::InputInt(tr_id(ctx, "length.train_seed").c_str(), &seed, 0)) {
    const auto& r = lm::LmOwnSpec::seed_range;
    spec_.seed = static_cast<uint64_t>(std::clamp<double>(seed, r.lo, r.hi));
  }
  tooltip(ctx.tr("length.train_seed_tip"));
  ImGui::EndDisabled();
  // Back to the shipped recipe, keeping the encoding.
  const lm::LmOwnSpec shipped{.position = spec_.position};
  if (!busy && !(spec_ == shipped)) {
    ImGui::SameLine();
    if (ImGui::SmallButton(tr_id(ctx, "length.train_shipped").c_str())) spec_ = shipped;
    tooltip(ctx.tr("length.train_shipped_tip"));
  }

  // Start, or continue the checkpoint these choices already have.
  const std::string path =
      lm_own_path((std::filesystem::path(ctx.data_dir()) / "models").string(), spec_);
  std::error_code ec;
  const bool resumes = std::filesystem::exists(path, ec);
  if (!busy && !fetching_) {
    const bool click =
        ImGui::Button(tr_id(ctx, resumes ? "length.train_resume" : "length.train_start").c_str());
    tooltip(ctx.tr(resumes ? "length.train_resume_tip" : "length.train_start_tip"));
    if (click || autostart) {
      error_.clear();
      fetching_ = true;
    }
  }
  if (fetching_) fetch_then_start(ctx);
  if (!busy && !fetching_ && curves_.total == 0) {  // before a run: what it will take
    const lm::LmConfig c = lm::lm_own_config(spec_);
    const lm::LmTrainSettings t = lm::lm_own_settings(spec_);
    const double seconds =
        lm::lm_forward_cost(c, t.batch, lm::lm_train_window(t, c), true).seconds() *
        static_cast<double>(spec_.steps);
    ImGui::TextDisabled("%s", tr_args(ctx.tr("length.train_expected"),
                                      {{"time", length_train_duration(seconds)},
                                       {"steps", std::to_string(spec_.steps)},
                                       {"page", length_train_duration(seconds * kPageSlowdown)}})
                                  .c_str());
  }
  JobStatusTexts words;
  words.working = ctx.tr("length.train_working");
  words.cancel = ctx.tr("length.train_cancel");
  job_status(job_, false, ImGui::GetContentRegionAvail().x * 0.6f, words);
  if (!error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    text_wrapped("%s", error_.c_str());
    ImGui::PopStyleColor();
  }
  if (curves_.total > 0) {
    const LmTrainCurves& c = curves_;
    const double left = c.seconds_left();
    const std::string left_text =
        left < 0 ? std::string("-") : length_train_duration(job_.running() ? left : 0.0);
    // Training: the smoothed trend of the last steps; validation: the last curve row.
    auto bits = [](const std::vector<double>& v) {
      char buf[32] = "-";
      if (!v.empty()) std::snprintf(buf, sizeof buf, "%.3f", v.back());
      return std::string(buf);
    };
    smoothed_ = smooth_ema(c.step_bits, 0.95);  // the plot draws it too
    const std::string train = bits(smoothed_.empty() ? c.row_train : smoothed_);
    wrapped_text(tr_args(ctx.tr("length.train_progress"), {{"step", std::to_string(c.done)},
                                                           {"steps", std::to_string(c.total)},
                                                           {"train", train},
                                                           {"validation", bits(c.row_valid)},
                                                           {"left", left_text}}));
    if (!job_.running() && cancelled_)
      wrapped_text(tr_args(ctx.tr("length.train_stopped_at"),
                           {{"step", std::to_string(c.done)}, {"steps", std::to_string(c.total)}}));
    if (!job_.running() && std::filesystem::exists(c.path, ec)) {
      if (ctx.can_download()) {  // the page's memory is all the browser build has
        if (ImGui::Button(tr_id(ctx, "length.train_download").c_str())) ctx.download(c.path);
        tooltip(ctx.tr("length.train_download_tip"));
        ImGui::SameLine();
      }
      ImGui::TextDisabled("%s", tr_args(ctx.tr("length.train_saved"), {{"path", c.path}}).c_str());
    }
    draw_curves(ctx, s);
  }
  return saved;
}

void LengthTrainView::draw_curves(AppContext& ctx, float scale) {
  const LmTrainCurves& c = curves_;
  if (c.step.empty() && c.row_step.empty()) return;
  PlotSpec p;
  p.id = "length_train_curves";
  p.size = ImVec2(ImGui::GetContentRegionAvail().x, 170 * scale);
  p.x.label = ctx.tr("length.train_axis_step");
  p.y.label = ctx.tr("length.axis_bits");
  p.scale = scale;
  // Every step's batch faint, its trend (EMA 0.95, smoothed_) over it, then the curve rows.
  p.series.push_back({ctx.tr("length.train_series_step"), c.step_bits, c.step, 0, 1,
                      IM_COL32(90, 200, 255, 90), 1.0f});
  p.series.push_back({ctx.tr("length.train_series_smoothed"), smoothed_, c.step, 0, 1,
                      IM_COL32(90, 200, 255, 255), 2.0f});
  if (!c.row_valid.empty())
    p.series.push_back({ctx.tr("length.train_series_valid"), c.row_valid, c.row_step, 0, 1,
                        IM_COL32(255, 170, 60, 255), 2.0f});
  plot(p);
}

}  // namespace poslab::app
