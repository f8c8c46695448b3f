// The dream lab's controls (dreams_panel.hpp): the foldable column (start, model, play,
// helm, what to show), the checkpoint being read or waiting for approval, the dataset file
// with its approval and episode slider, and the timeline bar above the maps.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/panels/arena_help.hpp"
#include "app/panels/dreams_panel.hpp"
#include "app/widgets.hpp"
#include "app/widgets/desktop_only.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/tr_args.hpp"
#include "core/wm/dream_lab_model.hpp"

namespace poslab::app {
namespace {

// The model line in the user's language: "rope, E 64, 4 blocks, 4 heads, context 32 steps".
std::string model_words(AppContext& ctx, const wm::DreamModelInfo& i) {
  std::string s = tr_args(ctx.tr("dreams.model_fields"), {{"position", i.position},
                                                          {"embed", std::to_string(i.embed)},
                                                          {"layers", std::to_string(i.layers)},
                                                          {"heads", std::to_string(i.heads)},
                                                          {"context", std::to_string(i.context)}});
  if (!i.cache.empty()) s += tr_args(ctx.tr("dreams.model_cache"), {{"cache", i.cache}});
  if (i.reset_recomputes) s += ctx.tr("dreams.model_reset_recomputes");
  return s;
}

using wm::DreamLabSettings;
using wm::DreamVariant;

// A combo whose items are translated: keys[i] -> ctx.tr(keys[i]); the ID is
// `id`.
bool combo_tr(AppContext& ctx, const char* key, const char* id, int& value,
              std::initializer_list<const char*> keys) {
  std::vector<const char*> items;
  for (const char* k : keys) items.push_back(ctx.tr(k));
  return ImGui::Combo(dreams_label(ctx, key, id).c_str(), &value, items.data(),
                      static_cast<int>(items.size()));
}

}  // namespace

void DreamsPanel::controls(AppContext& ctx) {
  DreamLabSettings& s = ui_.lab;
  using R = DreamLabSettings;
  const auto L = [&](const char* key, const char* id) { return dreams_label(ctx, key, id); };
  ImGui::PushItemWidth(150 * ctx.ui_scale());
  ImGui::TextDisabled("%s", ctx.tr("dreams.start_heading"));
  int start = static_cast<int>(s.start);
  if (combo_tr(ctx, "dreams.start", "start", start, {"dreams.start_seed", "dreams.start_file"}))
    s.start = static_cast<wm::DreamSource>(start);
  tooltip(ctx.tr("dreams.tip_start"));
  if (s.start == wm::DreamSource::seed) {
    if (ImGui::InputInt(L("dreams.seed", "seed").c_str(), &s.seed))
      s.seed = static_cast<int>(std::clamp<double>(s.seed, R::seed_range.lo, R::seed_range.hi));
    tooltip(ctx.tr("dreams.tip_seed"));
    slider_int(L("dreams.team0", "team 0").c_str(), s.team0_size, R::team_size_range, false,
               ctx.tr("dreams.tip_team0"));
    slider_int(L("dreams.team1", "team 1").c_str(), s.team1_size, R::team_size_range, false,
               ctx.tr("dreams.tip_team1"));
    combo_tr(ctx, "dreams.reality", "reality", s.policy,
             {"dreams.policy_expert", "dreams.policy_noisy", "dreams.policy_random"});
    tooltip(ctx.tr("dreams.tip_reality"));
  } else {
    file_controls(ctx);
  }
  slider_int(L("dreams.prompt_steps", "prompt steps").c_str(), s.from, R::from_range, false,
             ctx.tr("dreams.tip_prompt_steps"));
  slider_int(L("dreams.horizon", "horizon").c_str(), s.horizon, R::horizon_range, true,
             ctx.tr("dreams.tip_horizon"));
  ImGui::TextDisabled("%s", ctx.tr("dreams.model_heading"));
  int window = static_cast<int>(s.window);
  if (combo_tr(ctx, "dreams.positions", "positions", window,
               {"dreams.variant_rope", "dreams.variant_recompute", "dreams.variant_naive",
                "dreams.variant_patch"}))
    s.window = static_cast<DreamVariant>(window);
  tooltip(ctx.tr("dreams.tip_positions"));
  if (s.model.empty()) {
    int size = static_cast<int>(s.size);
    if (combo_tr(ctx, "dreams.size", "size", size, {"dreams.size_tiny", "dreams.size_paper"}))
      s.size = static_cast<wm::DreamModelSize>(size);
    tooltip(ctx.tr("dreams.tip_size"));
  }
  int loop = static_cast<int>(s.loop);
  if (combo_tr(ctx, "dreams.loop", "loop", loop, {"dreams.loop_closed", "dreams.loop_open"}))
    s.loop = static_cast<wm::DreamLoop>(loop);
  tooltip(ctx.tr("dreams.tip_loop"));
  if (s.loop == wm::DreamLoop::open)
    slider_double(L("dreams.temperature", "temperature").c_str(), s.temperature,
                  R::temperature_range, "%.2f", false, ctx.tr("dreams.tip_temperature"));
  if (ui_.model)
    wrapped_text(
        tr_args(ctx.tr("dreams.model_info"), {{"model", model_words(ctx, ui_.model->info())}}));
  else if (!ui_.model_job.running())
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", ctx.tr("dreams.no_model"));
  model_controls(ctx);
  if (ctx.has_file_picker()) {  // the browser: a checkpoint from the user's disk
    if (ImGui::Button(L("dreams.open_checkpoint", "open_checkpoint").c_str()))
      ctx.open_file_picker(".safetensors");
    tooltip(ctx.tr("dreams.tip_open_checkpoint"));
    if (const std::string f = ctx.take_picked_file(); !f.empty()) {
      s.model = f;
      ui_.confirmed_model = FileApproval::of(f);  // the user's own choice
      ui_.model_path.clear();                     // read on the next frame, by the same loader
    }
  }
  if (!ui_.model && !ui_.model_job.running()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", ui_.model_error.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::TextDisabled("%s", ctx.tr("dreams.play_heading"));
  ImGui::Checkbox(L("dreams.play", "play").c_str(), &s.playing);
  slider_double(L("dreams.speed", "speed").c_str(), s.speed, R::speed_range, "%.1fx", true,
                ctx.tr("dreams.tip_speed"));
  int view = static_cast<int>(s.view);
  if (combo_tr(ctx, "dreams.view", "view", view, {"dreams.view_side", "dreams.view_ghost"}))
    s.view = static_cast<wm::DreamView>(view);
  // Two buttons, two ideas: the same dream again from its own start, or a new dream from
  // the cursor (one button that moved the start made a dream impossible to replay).
  if (ImGui::Button(L("dreams.replay", "Replay this dream").c_str()))
    restart_at(ctx, ui_.runner.timeline().start);
  tooltip(ctx.tr("dreams.tip_replay"));
  ImGui::SameLine();
  if (ImGui::Button(L("dreams.restart", "Restart dream here").c_str()))
    restart_at(ctx, dreams_shown_frame(ui_));
  tooltip(ctx.tr("dreams.tip_restart"));
  ImGui::TextDisabled("%s", ctx.tr("dreams.helm_heading"));
  slider_int(L("dreams.helm", "helm").c_str(), s.helm, R::helm_range, false, ctx.tr(kHelmKeysHelp));
  ImGui::Checkbox(L("dreams.follow", "reality follows helm").c_str(), &s.follow);
  tooltip(ctx.tr("dreams.tip_follow"));
  if (s.helm >= 0)
    ImGui::TextDisabled("%s", ctx.tr(ui_.helm_keys ? "dreams.keys_on" : "dreams.keys_off"));
  ImGui::TextDisabled("%s", ctx.tr("dreams.show_heading"));
  slider_int(L("dreams.ship", "ship").c_str(), s.selected, R::slot_range, false,
             ctx.tr("dreams.tip_ship"));
  ImGui::Checkbox(L("dreams.strip", "token strip").c_str(), &s.strip);
  ImGui::Checkbox(L("dreams.attention", "attention").c_str(), &s.attention);
  ImGui::Checkbox(L("dreams.compare", "compare positions").c_str(), &s.compare);
  bool train = s.train > 0;
  if (ImGui::Checkbox(L("dreams.train", "train").c_str(), &train)) {
    s.train = train ? 1 : 0;
    ui_.scroll_to_train = train;  // the panel opens below the views: bring it into sight
  }
  ImGui::PopItemWidth();
}

// The checkpoint being read (with Cancel), or the approval of one a preset named.
void DreamsPanel::model_controls(AppContext& ctx) {
  DreamsUi& u = ui_;
  if (u.model_job.running()) {
    wrapped_text(tr_args(ctx.tr("dreams.model_loading"), {{"path", u.model_path}}));
    JobStatusTexts words;
    words.working = ctx.tr("dreams.model_loading_bar");
    words.cancel = ctx.tr("dreams.model_cancel");
    if (job_status(u.model_job.progress(), false, ImGui::GetContentRegionAvail().x, words) ==
        JobAction::cancel) {
      u.model_job.abandon();  // the read cannot be interrupted: the window goes on at once
      u.model_error = ctx.tr("dreams.model_cancelled");
      u.applied.reset();
    }
    return;
  }
  if (!u.model_waiting) return;
  text_wrapped("%s", ctx.tr("dreams.model_approve_text"));
  text_wrapped("%s", u.lab.model.c_str());
  std::error_code ec;
  const auto size = std::filesystem::file_size(u.lab.model, ec);
  if (!ec)
    ImGui::TextDisabled("%.1f MB", static_cast<double>(size) / 1e6);
  else
    ImGui::TextDisabled("(%s)", ec.message().c_str());
  if (ImGui::Button(dreams_label(ctx, "dreams.model_approve", "Open this checkpoint").c_str())) {
    u.confirmed_model = FileApproval::of(u.lab.model);
    u.model_path.clear();  // read it on the next frame
  }
}

// The dataset start: a path field, Browse... (app/file_picker), Open, the
// approval of a file a preset named, and the episode slider. Reads happen in
// the helper process; a bad file is a banner and the seed's episode keeps
// running.
void DreamsPanel::file_controls(AppContext& ctx) {
  DreamsUi& u = ui_;
  DreamLabSettings& s = u.lab;
  if (desktop_only(ctx, "desktop_only.datasets")) return;
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s", u.path_edit.c_str());
  ImGui::SetNextItemWidth(-1);
  const bool enter = ImGui::InputTextWithHint("##dream_file", "/path/to/data.h5", buf, sizeof buf,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  u.path_edit = buf;
  tooltip(ctx.tr("dreams.tip_file"));
  std::string picked;
  const bool chose =
      file_picker_draw(u.picker, ctx.tr("dreams.choose_dataset"), {".h5", ".hdf5"}, picked, ctx);
  if (chose) u.path_edit = picked;
  if (ImGui::Button(dreams_label(ctx, "dreams.open", "Open").c_str()) || enter || chose) {
    s.file = u.path_edit;
    s.episode = 0;
    u.confirmed_file = FileApproval::of(s.file);  // the user's own choice
    u.info_file.clear();                          // read anew (the file may have been rewritten)
  }
  ImGui::SameLine();
  if (ImGui::Button(dreams_label(ctx, "dreams.browse", "Browse...").c_str()))
    file_picker_open(u.picker, u.path_edit);
  if (s.file.empty()) {
    text_wrapped("%s", ctx.tr("dreams.no_file"));
    return;
  }
  if (awaiting_approval()) {
    text_wrapped("%s", ctx.tr("dreams.approve_text"));
    text_wrapped("%s", s.file.c_str());
    if (ImGui::Button(dreams_label(ctx, "dreams.approve", "Open this file").c_str()))
      u.confirmed_file = FileApproval::of(s.file);
    return;
  }
  ensure_file_info(ctx);
  if (u.file_episodes < 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.4f, 1));
    text_wrapped("%s", ctx.tr("dreams.file_bad"));
    ImGui::PopStyleColor();
    return;
  }
  ImGui::TextUnformatted(
      tr_args(ctx.tr("dreams.file_episodes"), {{"episodes", std::to_string(u.file_episodes)}})
          .c_str());
  slider_int(dreams_label(ctx, "dreams.episode", "episode").c_str(), s.episode,
             ParamRange{0, static_cast<double>(std::max<long long>(u.file_episodes - 1, 0))}, false,
             ctx.tr("dreams.tip_episode"));
}

void DreamsPanel::timeline_bar(AppContext& ctx) {
  DreamsUi& u = ui_;
  const int newest = static_cast<int>(u.runner.timeline().frames.size()) - 1;
  int t = dreams_shown_frame(u);
  if (ImGui::ArrowButton("##back", ImGuiDir_Left)) {
    u.lab.playing = false;
    u.lab.cursor = std::max(0, t - 1);
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##fwd", ImGuiDir_Right)) {
    u.lab.playing = false;
    if (t < newest)
      u.lab.cursor = t + 1;
    else {
      u.lab.cursor = -1;
      if (!u.runner.running() && !u.runner.timeline().finished) start_steps(1);
    }
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  if (ImGui::SliderInt(
          "##t", &t, 0, std::max(newest, 0),
          as_format_text(tr_args(ctx.tr("dreams.step_format"), {{"step", std::to_string(t)}}))
              .c_str())) {
    u.lab.cursor = t >= newest ? -1 : t;
    u.lab.playing = false;
  }
  tooltip(ctx.tr("dreams.tip_timeline"));
  ImGui::SameLine();
  const int h = t - u.runner.timeline().start;
  const char* state = !u.runner.timeline().finished ? ""
                      : u.runner.timeline().frames.back().real.done
                          ? ctx.tr("dreams.episode_over")
                          : ctx.tr("dreams.horizon_reached");
  wrapped_text(tr_args(ctx.tr("dreams.timeline_status"),  // wrapped: never cut off at the edge
                       {{"start", std::to_string(u.runner.timeline().start)},
                        {"horizon", std::to_string(std::max(h, 0))},
                        {"rate", num_text("%.0f", static_cast<double>(u.steps_per_s))},
                        {"note", state}}));
}

}  // namespace poslab::app
