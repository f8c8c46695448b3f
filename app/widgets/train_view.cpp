// Draws the dream lab's training view and runs its job (train_view.hpp).
#include "app/widgets/train_view.hpp"

#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/widgets.hpp"
#include "app/widgets/fit_width.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/common/smoothing.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"

namespace poslab::app {

std::string TrainView::draw(AppContext& ctx, bool& rope, bool autostart) {
  const float s = ctx.ui_scale();
  std::string use;
  if (auto report = job_.take_report()) curves_ = std::move(*report);
  if (auto out = job_.poll(ctx, false)) {  // a long job: never waited for, even headless
    if (out->value) {
      curves_ = std::move(*out->value);
      use = path_;  // finished: dream with it at once
      rope = path_rope_;
    } else if (!out->error.empty()) {
      ctx.report_error(ctx.tr("dreams.train_where"), out->error);
    }
  }
  const bool busy = job_.running();
  ImGui::BeginDisabled(busy);
  const char* presets[] = {ctx.tr("dreams.train_preset_tiny"), ctx.tr("dreams.train_preset_paper")};
  ImGui::SetNextItemWidth(combo_fit_width({presets[0], presets[1]}, 90 * s));
  ImGui::Combo(tr_id(ctx, "dreams.train_preset").c_str(), &preset_, presets, 2);
  tooltip(ctx.tr("dreams.train_tip_preset"));
  ImGui::SameLine();
  const char* positions[] = {ctx.tr("dreams.variant_rope"), ctx.tr("dreams.train_absolute")};
  ImGui::SetNextItemWidth(combo_fit_width({positions[0], positions[1]}, 110 * s));
  ImGui::Combo(tr_id(ctx, "dreams.train_positions").c_str(), &position_, positions, 2);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90 * s);
  slider_int(tr_id(ctx, "dreams.train_episodes").c_str(), spec_.episodes, ParamRange{4, 1000}, true,
             ctx.tr("dreams.train_tip_episodes"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110 * s);
  int steps = static_cast<int>(spec_.steps);
  if (slider_int(tr_id(ctx, "dreams.train_steps").c_str(), steps, ParamRange{10, 100000}, true,
                 ctx.tr("dreams.train_tip_steps")))
    spec_.steps = steps;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70 * s);
  slider_int(tr_id(ctx, "dreams.train_batch").c_str(), spec_.batch, ParamRange{1, 32}, false,
             ctx.tr("dreams.train_tip_batch"));
  ImGui::EndDisabled();
  if (!busy) ImGui::SameLine();  // while it runs, its status line (Pause, Stop) has a line
  wm::DreamTrainSpec priced = spec_;
  priced.preset = preset_ == 0 ? "tiny" : "paper";
  // In the page a training stage runs inside a frame: only runs whose stages fit one start.
  const bool fits = !kJobsInline || wm::dream_train_fits_frames(priced);
  ImGui::BeginDisabled(!fits);
  bool start = !busy && ImGui::Button(tr_id(ctx, "dreams.train_start").c_str());
  ImGui::EndDisabled();
  if (!fits) {
    start = false;
    autostart = false;
    wrapped_text(ctx.tr("dreams.train_too_big_for_page"));
  } else {  // what a run of these settings costs here, said before it starts (a page is slower)
    const double secs = wm::dream_train_cost(priced).seconds();
    const std::string time = secs < 90     ? num_text("%.0f s", secs)
                             : secs < 5400 ? num_text("%.0f min", secs / 60)
                                           : num_text("%.1f h", secs / 3600);
    wrapped_text(tr_args(ctx.tr("dreams.train_expected"),
                         {{"steps", std::to_string(spec_.steps)}, {"time", time}}));
  }
  if (start || (autostart && !busy)) {
    spec_.preset = preset_ == 0 ? "tiny" : "paper";
    spec_.position = position_ == 0 ? wm::WmPosition::rope : wm::WmPosition::absolute;
    const std::filesystem::path dir = std::filesystem::path(ctx.data_dir()) / "models";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    // A new name when the file exists: a run never replaces a model without the user's say.
    path_ = train_checkpoint_path(
        dir.string(), "wm_" + spec_.preset + "_" + wm::wm_position_name(spec_.position));
    if (path_.empty()) {
      ctx.report_error(ctx.tr("dreams.train_where"),
                       dir.string() +
                           " holds 1000 checkpoints of this kind already: move or "
                           "delete some, then start again");
      return use;
    }
    path_rope_ = spec_.position == wm::WmPosition::rope;
    curves_ = {};
    const wm::DreamTrainSpec spec = spec_;
    const std::string path = path_;
    // The worker has no AppContext: it takes the status text along ("step {step}, loss {loss}").
    const std::string status_format = ctx.tr("dreams.train_status");
    using Job = decltype(job_);
    // The run lives as long as the job's steps (each step: an episode or an optimiser step).
    auto run = std::make_shared<std::unique_ptr<wm::DreamTrainRun>>();
    job_.start_steps(
        path,
        [spec, path, status_format,
         run](Job::Control& control) -> std::optional<wm::DreamTrainProgress> {
          if (!*run) {
            wm::DreamTrainHooks hooks;
            hooks.on_progress = [&control, status_format](const wm::DreamTrainProgress& p) {
              control.set_progress(p.done, p.total);
              control.set_status(
                  tr_args(status_format,
                          {{"step", std::to_string(p.done)},
                           {"loss", num_text("%.5g", p.loss.empty() ? 0.0 : p.loss.back())}}));
              control.report(p);
            };
            hooks.on_checkpoint = [path, spec](const wm::WmConfig& c, const std::vector<float>& w,
                                               const nn::AdamWState& opt) {
              // The command repeats this run natively (tests/web/train_test.mjs does).
              io::wm_checkpoint_save(path, c, w, opt.step, &opt,
                                     {{"provenance", wm::dream_train_provenance(spec)},
                                      {"command", wm::dream_train_command(spec, path)}});
            };
            // A cancel (Stop, Quit) ends the run after its next step, with a checkpoint.
            hooks.stop_requested = [&control] { return control.cancelled(); };
            *run =
                std::make_unique<wm::DreamTrainRun>(spec, std::vector<bnb::EpisodeRecord>{}, hooks);
            return std::nullopt;
          }
          if ((*run)->step()) return std::nullopt;
          return (*run)->progress();
        });
  }
  JobStatusTexts words;
  words.paused = ctx.tr("dreams.train_job_paused");
  words.working = ctx.tr("dreams.train_job_working");
  words.pause = ctx.tr("dreams.train_job_pause");
  words.resume = ctx.tr("dreams.train_job_resume");
  words.cancel = ctx.tr("dreams.train_job_cancel");
  job_status(job_, true, ImGui::GetContentRegionAvail().x * 0.6f, words);
  std::error_code ec;
  // A run that ended before its last step (Stop, Quit): how far it got.
  if (!job_.running() && curves_.total > 0 && curves_.done < curves_.total)
    wrapped_text(tr_args(
        ctx.tr("dreams.train_stopped_at"),
        {{"step", std::to_string(curves_.done)}, {"steps", std::to_string(curves_.total)}}));
  if (!path_.empty() && std::filesystem::exists(path_, ec)) {
    // Under a quarter of its steps (or a few hundred), a model dreams noise: say so first.
    if (curves_.done < std::min<int64_t>(curves_.total / 4 + 1, 300))
      ImGui::TextColored(
          ImVec4(1.0f, 0.6f, 0.3f, 1.0f), "%s",
          tr_args(ctx.tr("dreams.train_barely"), {{"steps", std::to_string(curves_.done)}})
              .c_str());
    if (ImGui::Button(tr_id(ctx, "dreams.train_use").c_str())) {
      use = path_;
      rope = path_rope_;
    }
    tooltip(ctx.tr("dreams.train_tip_use"));
    ImGui::SameLine();
    if (ctx.can_download()) {  // the page's memory is all the browser build has
      if (ImGui::Button(tr_id(ctx, "dreams.train_download").c_str())) ctx.download(path_);
      tooltip(ctx.tr("dreams.train_tip_download"));
      ImGui::SameLine();
    }
    ImGui::TextDisabled("%s",
                        tr_args(ctx.tr("dreams.train_checkpoint"), {{"path", path_}}).c_str());
  }
  if (!curves_.step.empty()) {
    wrapped_text(tr_args(ctx.tr("dreams.train_progress"),
                         {{"step", std::to_string(curves_.done)},
                          {"steps", std::to_string(curves_.total)},
                          {"rate", num_text("%.0f", static_cast<double>(curves_.tokens_per_s))},
                          {"train", std::to_string(curves_.train_episodes)},
                          {"validation", std::to_string(curves_.val_episodes)}}));
    PlotSpec p;
    p.id = "train_curves";
    p.size = ImVec2(ImGui::GetContentRegionAvail().x, 200 * s);
    p.x.label = ctx.tr("dreams.train_axis_step");
    p.y.label = ctx.tr("dreams.train_axis_loss");
    p.y.log = true;
    p.scale = s;
    // The noisy per-step loss faint, its smoothed trend (EMA, 0.95) over it.
    smoothed_ = smooth_ema(curves_.loss, 0.95);
    p.series.push_back({ctx.tr("dreams.train_series_train"), curves_.loss, curves_.step, 0, 1,
                        IM_COL32(90, 200, 255, 110), 1.0f});
    p.series.push_back({ctx.tr("dreams.train_series_smoothed"), smoothed_, curves_.step, 0, 1,
                        IM_COL32(90, 200, 255, 255), 2.0f});
    if (!curves_.val_loss.empty())
      p.series.push_back({ctx.tr("dreams.train_series_val"), curves_.val_loss, curves_.val_step, 0,
                          1, IM_COL32(255, 170, 60, 255), 2.0f});
    plot(p);
  }
  return use;
}

}  // namespace poslab::app
