// The dream lab: the same Boost and Broadside start state played by the
// simulator and by the world model's dream, side by side or as ghosts over
// reality; error curves with the copy-last and constant-velocity baselines; a
// timeline to pause, step, scrub and re-seed; the selected ship's token strip
// with its KV-cache indices; attention heatmaps; the helm. Every number comes
// from core/wm/dream_lab, and `poslab-cli wm dream --preset` replays the
// session to the same numbers (io/dreams/dream_lab_io.hpp lays out both). The
// panel class is in dreams_panel.hpp, its other members in dreams_session.cpp,
// dreams_controls.cpp and dreams_train.cpp; the drawing pieces in dreams_views.cpp;
// the texts in assets/i18n/<lang>/dreams.toml.
// This file: presets, sharing, checks and the frame.
#include "app/panels/dreams_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/app_context.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "io/dreams/dream_lab_io.hpp"
#include "io/labjson/lab_csv.hpp"

namespace poslab::app {
namespace {

using wm::DreamLabSettings;

constexpr int kMaxStepsPerJob = 8;  // catch-up limit per worker job (a slow frame cannot snowball)

}  // namespace

std::string DreamsPanel::saved_preset() const {
  DreamLabSettings s = ui_.lab;
  if (awaiting_approval()) {
    s.file = ui_.confirmed_file.path;
    if (s.file.empty()) s.start = wm::DreamSource::seed;
  }
  if (!s.model.empty() && ui_.confirmed_model.path != s.model) s.model.clear();
  s.train = std::min(s.train, 1);
  return wm::dreams_to_preset(s);
}

// ---- sharing: `poslab-cli wm dream --preset` prints these numbers ----------------------
std::vector<std::string> DreamsPanel::cli_args() const {
  const DreamsUi& u = ui_;
  if (!u.model || !u.replay_note.empty() || u.runner.timeline().frames.empty() ||
      awaiting_approval())
    return {};
  std::vector<std::string> a{"wm",       "dream",
                             "--preset", preset(),
                             "--steps",  std::to_string(u.runner.timeline().dream_steps())};
  const std::string helm = wm::dream_helm_actions_text(u.runner.timeline(), u.lab.helm);
  if (!helm.empty()) a.insert(a.end(), {"--helm-actions", helm});
  return a;
}
Message DreamsPanel::cli_note() const {
  if (!ui_.model) return share_message("share.why.no_model");
  if (!ui_.replay_note.empty()) return ui_.replay_note;
  if (awaiting_approval()) return share_message("share.why.file_approval");
  return share_message("share.why.no_dream");
}
LabNumbers DreamsPanel::numbers() const {
  if (ui_.runner.timeline().frames.empty())
    return LabNumbers::none(share_message("share.why.no_dream"));
  const io::Json j = session_json();
  return LabNumbers::of(io::dump_json(j, 2) + "\n", io::dreams_lab_csv(j));
}

// ---- checks and the frame -------------------------------------------------------------
std::vector<std::string> DreamsPanel::check_presets() const {
  return {"dreams?view=ghost&helm=0&follow=0&speed=16&ship=7",
          "dreams?variant=naive&horizon=1536&from=0&loop=open&temp=3&speed=16",
          "dreams?variant=patch&horizon=200&from=0",
          "dreams?variant=recompute&team0=1&team1=1&seed=2147483647&policy="
          "random&t=3",
          "dreams?from=511&horizon=1&play=0&attn=0&strip=0&compare=1",
          "dreams?layer=63&head=63&view=ghost&t=100000&variant=reset"};  // old name
}

std::string DreamsPanel::check_state() const {
  const DreamsUi& u = ui_;
  const auto& fr = u.runner.timeline().frames;
  if (fr.empty()) return "no session was started";
  for (size_t i = 0; i < fr.size(); ++i) {
    if (fr[i].step != static_cast<int>(i))
      return "timeline frame " + std::to_string(i) + " has step " + std::to_string(fr[i].step);
    for (float v : fr[i].dream_tokens)
      if (!std::isfinite(v)) return "dream frame " + std::to_string(i) + " holds NaN or inf";
  }
  if (u.runner.timeline().start > static_cast<int>(fr.size()) - 1)
    return "dream starts after the newest frame";
  if (!u.model && u.model_error.empty()) return "no model and no error shown";
  // Headless frames step once each (waited for): a playing dream must have
  // kept up.
  if (u.model && u.lab.playing && !u.runner.timeline().finished &&
      u.runner.timeline().dream_steps() < u.frames_in_session - 2)
    return "dreamt " + std::to_string(u.runner.timeline().dream_steps()) + " steps in " +
           std::to_string(u.frames_in_session) + " frames";
  if (u.model && u.runner.timeline().dream_steps() > 0 && u.lab.playing &&
      fr.back().error.alive_count == 0 && fr.back().error.present_count > 0 && !fr.back().real.done)
    return "a dream step without an error measurement";
  if (u.lab.strip && u.model && u.strip_steps >= 0) {
    const int cursor = dreams_shown_frame(u);
    if (u.strip_steps != fr[cursor].step)
      return "token strip shows " + std::to_string(u.strip_steps) + " steps at step " +
             std::to_string(fr[cursor].step);
  }
  if (drawn_numbers_wanted() && !cli_args().empty()) {
    const io::Json j = session_json();
    nlohmann::json n;
    for (const char* key : {"start", "steps", "finished", "helm_actions", "curves", "real",
                            "dreamt", "checkpoint", "context"})
      n[key] = nlohmann::json::parse(j[key].dump());
    record_drawn_numbers(wm::kDreamLabName, preset(), cli_args(), n);
  }
  return {};
}

void DreamsPanel::draw(AppContext& ctx) {
  DreamsUi& u = ui_;
  const float scale = ctx.ui_scale();
  if (begin_control_column(ctx, "##dreams_controls", 300.0f * scale, u.controls_folded))
    controls(ctx);
  end_control_column();
  ImGui::SameLine();
  ImGui::BeginChild("##dreams_main", ImVec2(0, 0), false);
  poll_runner(ctx, false);
  ensure_model(ctx);
  ensure_session(ctx);
  if (u.pending_restart >= 0 && u.runner.has_engine())
    start_restart(std::exchange(u.pending_restart, -1));
  if (u.runner.timeline().frames.empty()) {  // the worker is still starting the session
    text_wrapped("%s", ctx.tr("dreams.starting"));
    ImGui::EndChild();
    return;
  }
  ++u.frames_in_session;
  u.recorder.poll(ctx);
  if (ctx.capturing()) {
    // An exported picture shows the state whose numbers are exported: no
    // stepping.
  } else if (u.recorder.recording()) {
    record_steps(ctx);
  } else if (u.lab.playing && !u.runner.timeline().finished && !u.runner.running()) {
    const double rate = 25.0 * u.lab.speed;
    u.step_accum =
        std::min(u.step_accum + ImGui::GetIO().DeltaTime * rate, double(kMaxStepsPerJob));
    int n = static_cast<int>(u.step_accum);
    // Headless checks and captures: one step per frame, waited for
    // (deterministic).
    if (ctx.waits_for_jobs()) n = 1;
    if (n > 0) {
      u.step_accum -= n;
      start_steps(n);
    }
  }
  // Frames while the dream plays; once the horizon is reached the lab goes idle.
  if (u.lab.playing && !u.runner.timeline().finished) ctx.request_frames(2);
  timeline_bar(ctx);
  // The maps are the largest thing on screen. The error plot sits beside them when at
  // least 400 px are left for it, else below them at full width (the page scrolls): a
  // narrow window or UI scale 2 never squeezes it to a sliver.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float maps = u.lab.view == wm::DreamView::side ? 2.0f : 1.0f;
  const float gap = ImGui::GetStyle().ItemSpacing.x, plot_min = 400.0f * scale;
  const bool plot_beside = avail.x >= maps * 260.0f * scale + gap * maps + plot_min;
  const float maps_w = plot_beside ? avail.x - std::max(plot_min, avail.x * 0.3f) - gap : avail.x;
  const float below = 4.0f * ImGui::GetTextLineHeightWithSpacing();  // captions, step line
  const float map_side = std::clamp(std::min((maps_w - (maps - 1) * gap) / maps, avail.y - below),
                                    200.0f * scale, 900.0f * scale);
  ImGui::BeginGroup();
  dreams_maps(ctx, u, map_side);
  ImGui::EndGroup();
  view_rect_ = last_item_rect();
  if (!u.runner.running())  // the content has reached the due video frame
    u.recorder.capture(ctx, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
  if (plot_beside) ImGui::SameLine();
  ImGui::BeginGroup();
  dreams_error_plot(ctx, u);
  dreams_section(ctx.tr("dreams.record_heading"));
  u.recorder.draw(ctx);
  ImGui::EndGroup();
  if (u.lab.strip) dreams_strip(ctx, u);
  if (u.lab.attention) dreams_attention(ctx, u);
  if (u.lab.compare) dreams_compare(ctx, u, wm::dreams_session_of(u.lab));
  if (u.lab.train) train_section(ctx);
  ImGui::EndChild();
}

io::Json DreamsPanel::session_json() const {
  return io::dreams_session_json(preset(), ui_.model_path, ui_.model.get(), ui_.runner.timeline(),
                                 ui_.lab.helm);
}

// While recording, each video frame advances the dream by exactly its share
// of steps (25 per second of playback x speed), waited for before the
// capture: the same video on any machine (widgets/recorder.hpp).
void DreamsPanel::record_steps(AppContext& ctx) {
  DreamsUi& u = ui_;
  if (u.runner.running() || u.recorder.frame_due()) return;
  const double dt = u.recorder.pace(ctx, ImGui::GetIO().DeltaTime);
  if (!u.lab.playing || u.runner.timeline().finished) return;
  u.step_accum += dt * 25.0 * u.lab.speed;
  const int n = static_cast<int>(u.step_accum);
  u.step_accum -= n;
  if (n > 0) start_steps(n);
}

std::unique_ptr<Panel> make_dreams_panel() {
  return std::make_unique<DreamsPanel>();
}

}  // namespace poslab::app
