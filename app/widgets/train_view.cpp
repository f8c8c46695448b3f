// Draws the dream lab's training view and runs its job (train_view.hpp).
#include "app/widgets/train_view.hpp"

#include <imgui.h>

#include <filesystem>
#include <string>

#include "app/widgets.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/plot.hpp"
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
      ctx.report_error("Dream lab training", out->error);
    }
  }
  const bool busy = job_.running();
  ImGui::BeginDisabled(busy);
  ImGui::SetNextItemWidth(90 * s);
  ImGui::Combo("preset##train", &preset_, "tiny\0paper\0");
  tooltip(
      "tiny: E 64, 4 heads, 4 blocks, context 32 steps. paper: E 128, 4 heads, 6 blocks, "
      "context 96.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110 * s);
  ImGui::Combo("positions##train", &position_, "RoPE\0learned absolute\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90 * s);
  slider_int("episodes", spec_.episodes, ParamRange{4, 1000}, true,
             "Episodes collected in memory with the noisy expert (random team sizes); 10 % "
             "are held out for validation.");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110 * s);
  int steps = static_cast<int>(spec_.steps);
  if (slider_int("steps", steps, ParamRange{10, 100000}, true, "Optimiser steps (AdamW)."))
    spec_.steps = steps;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70 * s);
  slider_int("batch", spec_.batch, ParamRange{1, 32}, false, "Windows per batch.");
  ImGui::EndDisabled();
  ImGui::SameLine();
  const bool start = !busy && ImGui::Button("Start training");
  if (start || (autostart && !started_)) {
    started_ = true;
    spec_.preset = preset_ == 0 ? "tiny" : "paper";
    spec_.position = position_ == 0 ? wm::WmPosition::rope : wm::WmPosition::absolute;
    const std::filesystem::path dir = std::filesystem::path(ctx.data_dir()) / "models";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    path_ =
        (dir / ("wm_" + spec_.preset + "_" + wm::wm_position_name(spec_.position) + ".safetensors"))
            .string();
    path_rope_ = spec_.position == wm::WmPosition::rope;
    curves_ = {};
    const wm::DreamTrainSpec spec = spec_;
    const std::string path = path_;
    job_.start(path, [spec, path](auto& control) {
      wm::DreamTrainHooks hooks;
      hooks.on_progress = [&control](const wm::DreamTrainProgress& p) {
        control.set_progress(p.done, p.total);
        control.set_status("step " + std::to_string(p.done) + ", loss " +
                           std::to_string(p.loss.empty() ? 0.0 : p.loss.back()).substr(0, 7));
        control.report(p);
      };
      hooks.on_checkpoint = [path, &spec](const wm::WmConfig& c, const std::vector<float>& w,
                                          const nn::AdamWState& opt) {
        io::wm_checkpoint_save(
            path, c, w, opt.step, &opt,
            {{"provenance", "PosLab dream lab training panel, " + std::to_string(spec.episodes) +
                                " noisy-expert episodes, seed " + std::to_string(spec.seed)}});
      };
      // Pausing blocks here between steps; a cancel (Stop, Quit) ends the run there.
      hooks.stop_requested = [&control] { return !control.checkpoint(); };
      return wm::dream_lab_train(spec, {}, hooks);
    });
  }
  job_status(job_, true, ImGui::GetContentRegionAvail().x * 0.6f);
  std::error_code ec;
  if (!path_.empty() && std::filesystem::exists(path_, ec)) {
    if (ImGui::Button("Dream with this model")) {
      use = path_;
      rope = path_rope_;
    }
    tooltip("Loads the last checkpoint of this run into the dream lab (it keeps training).");
    ImGui::SameLine();
    ImGui::TextDisabled("checkpoint: %s", path_.c_str());
  }
  if (!curves_.step.empty()) {
    ImGui::Text("step %lld / %lld, %.0f tokens/s, %d train / %d validation episodes",
                static_cast<long long>(curves_.done), static_cast<long long>(curves_.total),
                curves_.tokens_per_s, curves_.train_episodes, curves_.val_episodes);
    PlotSpec p;
    p.id = "train_curves";
    p.size = ImVec2(ImGui::GetContentRegionAvail().x, 200 * s);
    p.x.label = "optimiser step";
    p.y.label = "loss (state MSE + 0.05 CE + 0.1 relational MSE)";
    p.y.log = true;
    p.scale = s;
    p.series.push_back({"training", curves_.loss, curves_.step, 0, 1, IM_COL32(90, 200, 255, 255)});
    if (!curves_.val_loss.empty())
      p.series.push_back({"validation", curves_.val_loss, curves_.val_step, 0, 1,
                          IM_COL32(255, 170, 60, 255), 2.0f});
    plot(p);
  }
  return use;
}

}  // namespace poslab::app
