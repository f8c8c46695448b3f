// The dream lab: the same Boost and Broadside start state played by the
// simulator and by the world model's dream, side by side or as ghosts over
// reality; error curves with the copy-last and constant-velocity baselines; a
// timeline to pause, step, scrub and re-seed; the selected ship's token strip
// with its KV-cache indices; attention heatmaps; the helm. Every number comes
// from core/wm/dream_lab, and `poslab-cli wm dream --preset` replays the
// session to the same numbers (io/dreams/dream_lab_io.hpp lays out both). The
// drawing pieces live in dreams_views.cpp; the texts in
// assets/i18n/<lang>/dreams.toml.
// Sections: the model line | DreamsPanel: presets, sharing, checks and the frame |
// model and session | controls (the foldable column, the dataset file, restart here,
// the timeline bar; defined after the class).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/app_context.hpp"
#include "app/panels/arena_help.hpp"
#include "app/panels/dreams_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/desktop_only.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/tr_args.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/dreams/dream_lab_io.hpp"
#include "io/labjson/lab_csv.hpp"

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

constexpr int kMaxStepsPerJob = 8;  // catch-up limit per worker job (a slow frame cannot snowball)

class DreamsPanel final : public Panel {
 public:
  const char* id() const override { return wm::kDreamLabName; }
  const char* title() const override { return "Dream lab (world model)"; }
  std::string preset() const override { return wm::dreams_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override {
    ui_.lab = wm::dreams_from_preset(text);
    ui_.path_edit = ui_.lab.file;
    ui_.train_autostart = false;  // a link shows the training view; a run takes a click
  }
  void trust_named_files() override {
    ui_.confirmed_file = FileApproval::of(ui_.lab.file);
    ui_.confirmed_model = FileApproval::of(ui_.lab.model);
  }
  void start_requested_runs() override { ui_.train_autostart = ui_.lab.train == 2; }
  // What the next start opens unasked: only approved files, and never a run by itself.
  std::string saved_preset() const override {
    DreamLabSettings s = ui_.lab;
    if (awaiting_approval()) {
      s.file = ui_.confirmed_file.path;
      if (s.file.empty()) s.start = wm::DreamSource::seed;
    }
    if (!s.model.empty() && ui_.confirmed_model.path != s.model) s.model.clear();
    s.train = std::min(s.train, 1);
    return wm::dreams_to_preset(s);
  }

  // ---- sharing: `poslab-cli wm dream --preset` prints these numbers
  // ------------------------
  std::vector<std::string> cli_args() const override {
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
  Message cli_note() const override {
    if (!ui_.model) return share_message("share.why.no_model");
    if (!ui_.replay_note.empty()) return ui_.replay_note;
    if (awaiting_approval()) return share_message("share.why.file_approval");
    return share_message("share.why.no_dream");
  }
  LabNumbers numbers() const override {
    if (ui_.runner.timeline().frames.empty())
      return LabNumbers::none(share_message("share.why.no_dream"));
    const io::Json j = session_json();
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::dreams_lab_csv(j));
  }

  bool animating() const override {
    return (ui_.lab.playing && !ui_.runner.timeline().finished) || ui_.train.running();
  }
  void cancel_jobs() override {
    ui_.model_job.abandon();  // a checkpoint being read does not look at a cancel flag
    ui_.runner.cancel();
    ui_.compare_job.cancel();
    ui_.train.cancel();
    ui_.recorder.cancel();
  }
  Recorder* recorder() override { return &ui_.recorder; }
  void release_gl() override {
    ui_.real_view.release_gl();
    ui_.dream_view.release_gl();
    ui_.attention_tex.release();
  }
  ViewRect main_view_rect() const override { return view_rect_; }

  // ---- checks and the frame -------------------------------------------------------------
  std::vector<std::string> check_presets() const override {
    return {"dreams?view=ghost&helm=0&follow=0&speed=16&ship=7",
            "dreams?variant=naive&horizon=1536&from=0&loop=open&temp=3&speed=16",
            "dreams?variant=patch&horizon=200&from=0",
            "dreams?variant=recompute&team0=1&team1=1&seed=2147483647&policy="
            "random&t=3",
            "dreams?from=511&horizon=1&play=0&attn=0&strip=0&compare=1",
            "dreams?layer=63&head=63&view=ghost&t=100000&variant=reset"};  // old name
  }

  std::string check_state() const override {
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
        fr.back().error.ships == 0 && fr.back().error.present > 0 && !fr.back().real.done)
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

  void draw(AppContext& ctx) override {
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
    if (u.lab.train) {
      if (std::exchange(u.scroll_to_train, false)) ImGui::SetScrollHereY(0.0f);
      dreams_section(ctx.tr("dreams.train_heading"));
      bool rope = true;
      const std::string path = u.train.draw(ctx, rope, std::exchange(u.train_autostart, false));
      if (!path.empty()) {
        u.lab.model = path;
        u.confirmed_model = FileApproval::of(path);  // the user's own run
        u.lab.window = rope ? DreamVariant::rope : DreamVariant::recompute;
        u.model_path.clear();  // reload even if the path is the same (newer weights)
      }
    }
    ImGui::EndChild();
  }

 private:
  bool awaiting_approval() const {
    return ui_.lab.start == wm::DreamSource::file && !ui_.confirmed_file.approves(ui_.lab.file);
  }
  io::Json session_json() const {
    return io::dreams_session_json(preset(), ui_.model_path, ui_.model.get(), ui_.runner.timeline(),
                                   ui_.lab.helm);
  }

  // While recording, each video frame advances the dream by exactly its share
  // of steps (25 per second of playback x speed), waited for before the
  // capture: the same video on any machine (widgets/recorder.hpp).
  void record_steps(AppContext& ctx) {
    DreamsUi& u = ui_;
    if (u.runner.running() || u.recorder.frame_due()) return;
    const double dt = u.recorder.pace(ctx, ImGui::GetIO().DeltaTime);
    if (!u.lab.playing || u.runner.timeline().finished) return;
    u.step_accum += dt * 25.0 * u.lab.speed;
    const int n = static_cast<int>(u.step_accum);
    u.step_accum -= n;
    if (n > 0) start_steps(n);
  }

  // ---- model and session
  // --------------------------------------------------------------
  // The checkpoint is read on the model job (a 1.7 KB file once asked for 12.5 GB and held
  // the window for 70 s); the session waits for it. A checkpoint a link or a pasted preset
  // names is not read until the user approves it (model_controls).
  void ensure_model(AppContext& ctx) {
    DreamsUi& u = ui_;
    poll_model(ctx);
    const std::string path = io::dreams_model_path(u.lab);
    if (path == u.model_path) return;
    // The browser build keeps the paper-size models (5.4 MB each) beside the page, not in its
    // first load: fetched when first asked for. The desktop has every shipped model on disk.
    if (u.lab.model.empty() && !ctx.fetch_files({path}).done) {
      u.model.reset();
      u.model_error = ctx.tr("dreams.fetching_model");
      ctx.request_frames(2);
      return;
    }
    u.model_job.abandon();  // an older read still running: its result is not wanted
    u.model_path = path;
    u.model.reset();
    u.model_error.clear();
    u.model_waiting = false;
    u.applied.reset();  // a new model starts a new session
    std::error_code ec;
    if (u.lab.model.empty() && !std::filesystem::exists(path, ec)) {
      // No shipped weights in this tree (yet): a state, not a fault. Named
      // files that are missing, and any file that does not load, get the banner
      // below.
      u.model_error = "no trained model at " + path +
                      ": train one (poslab-cli wm train) or name a checkpoint "
                      "in the preset";
      return;
    }
    if (!u.lab.model.empty() && !u.confirmed_model.approves(u.lab.model)) {
      u.model_waiting = true;
      u.model_error = ctx.tr("dreams.model_waiting");
      return;
    }
    const DreamVariant window = u.lab.window;
    u.model_job.start(path, [path, window](auto&) { return io::dreams_load_model(path, window); });
    if (ctx.waits_for_jobs()) poll_model(ctx);  // checks and captures see the model
  }

  // Takes the model job's outcome: the model, or its error on the banner.
  void poll_model(AppContext& ctx) {
    DreamsUi& u = ui_;
    auto out = u.model_job.poll(ctx, true);
    if (!out || out->key != u.model_path) return;
    u.applied.reset();  // the session starts over with the model
    if (out->value) {
      u.model = std::move(*out->value);
    } else if (out->cancelled) {
      u.model_error = ctx.tr("dreams.model_cancelled");
    } else {
      u.model_error = out->error;
      ctx.report_error(ctx.tr("dreams.where_model"),
                       tr_args(ctx.tr("dreams.model_failed"), {{"error", out->error}}));
    }
  }

  // The dataset's episode count for the episode slider (read in the helper
  // process once per file); errors become the banner.
  void ensure_file_info(AppContext& ctx) {
    DreamsUi& u = ui_;
    if (u.lab.start != wm::DreamSource::file || awaiting_approval() || u.info_file == u.lab.file)
      return;
    u.info_file = u.lab.file;
    u.file_episodes = -1;
    try {
      u.file_episodes = io::BnbDatasetReader(u.lab.file).info().num_episodes;
    } catch (const Error& e) {
      ctx.report_error(ctx.tr("title.dreams"), e.what());
    }
  }

  // A new session when the settings changed: started on the worker (the prompt can be
  // 511 model steps), so the UI keeps drawing; headless runs wait for it.
  void ensure_session(AppContext& ctx) {
    DreamsUi& u = ui_;
    // A file the user has not approved is not opened: the seed's episode runs
    // meanwhile.
    const bool pending = awaiting_approval();
    const wm::DreamLabSession key = wm::dreams_session_of(u.lab, pending);
    if (key == u.applied && (u.runner.has_engine() || u.runner.running())) return;
    if (u.model_job.running()) return;  // "starting the dream" until the model is read
    if (u.runner.running()) {           // let the worker return the engine first
      u.runner.cancel();
      u.runner.poll(ctx, false);
      if (u.runner.running()) return;
    }
    u.applied = key;
    u.replay_note = {};
    u.pending_restart = -1;
    u.step_accum = 0;
    u.frames_in_session = 0;
    DreamLabSettings s = u.lab;
    if (pending) s.start = wm::DreamSource::seed;
    // The worker's own copy of the model: each start (and the default episode's, if the
    // first fails) dreams with a clone of it. "Starting the dream" until the worker is done.
    std::shared_ptr<const wm::DreamModel> model(u.model ? u.model->clone() : nullptr);
    u.runner.start([s] { return io::dreams_session_config(s); }, std::move(model),
                   wm::dream_session_config(DreamLabSettings{}));
    if (ctx.waits_for_jobs()) poll_runner(ctx, true);  // checks and captures see the session
  }

  // "Restart dream here": the engine and a copy of the timeline go to the worker, which
  // replays reality to frame `at` and prompts the model there; the UI shows the old
  // timeline until it is done.
  void start_restart(int at) {
    DreamsUi& u = ui_;
    const bool helm_flew = u.runner.timeline().dream_steps() > 0 && u.helm_at_start >= 0;
    u.runner.restart(at, helm_flew);
  }

  void start_steps(int n) {
    DreamsUi& u = ui_;
    if (!u.runner.has_engine()) return;
    if (u.runner.timeline().dream_steps() == 0) {
      u.helm_at_start = u.lab.helm;
      u.follow_at_start = u.lab.follow;
    } else if (u.replay_note.empty() && (u.lab.helm != u.helm_at_start ||
                                         (u.lab.helm >= 0 && u.lab.follow != u.follow_at_start))) {
      u.replay_note = share_message("share.why.helm_changed");
    }
    wm::HelmInput helm;
    if (u.lab.helm >= 0) {
      helm.slot = u.lab.helm;
      helm.action = u.helm_keys ? arena_helm_action() : bnb::ShipAction{};
      helm.real_follows = u.lab.follow;
    }
    u.runner.advance(n, helm);
  }

  // Takes the worker's result when it is done (new frames, or a started or restarted
  // session); `block`: wait for it first.
  void poll_runner(AppContext& ctx, bool block) {
    DreamsUi& u = ui_;
    const auto ev = u.runner.poll(ctx, block);
    if (!ev) return;
    if (!ev->ok) {
      u.applied.reset();  // the engine is gone: the session starts over
      if (ev->cancelled) return;
      if (!ev->error.empty()) ctx.report_error(ctx.tr("title.dreams"), ev->error);
      u.lab.playing = false;
      return;
    }
    if (ev->new_timeline) {
      if (!ev->start_error.empty()) {
        ctx.report_error(ctx.tr("title.dreams"), ev->start_error);
        u.replay_note =
            share_message("share.why.start_failed", {message_arg("error", ev->start_error)});
      }
      if (ev->restarted_at >= 0) restarted(ev->restarted_at, ev->helm_flew);
      return;
    }
    if (ev->steps > 0 && ev->seconds > 0) u.steps_per_s = ev->steps / ev->seconds;
  }

  // After a restart at frame `at`: closed loop without the helm replays reality up to `at`
  // the way a prompt of `at` steps does, so the preset says it with from = at and the CLI
  // replays it; otherwise the session cannot be replayed from its preset.
  void restarted(int at, bool helm_flew) {
    DreamsUi& u = ui_;
    u.lab.cursor = -1;
    if (u.lab.loop == wm::DreamLoop::closed && !helm_flew &&
        at <= DreamLabSettings::from_range.hi) {
      u.lab.from = at;
      u.applied = wm::dreams_session_of(u.lab, awaiting_approval());
    } else if (u.replay_note.empty()) {
      u.replay_note = share_message("share.why.restarted");
    }
  }

  // ---- controls (the foldable column)
  // --------------------------------------------------------
  void controls(AppContext& ctx);
  void model_controls(AppContext& ctx);
  void file_controls(AppContext& ctx);
  void restart_at(AppContext& ctx, int frame);
  void timeline_bar(AppContext& ctx);

  DreamsUi ui_;
  ViewRect view_rect_;
};

// A combo whose items are translated: keys[i] -> ctx.tr(keys[i]); the ID is
// `id`.
bool combo_tr(AppContext& ctx, const char* key, const char* id, int& value,
              std::initializer_list<const char*> keys) {
  std::vector<const char*> items;
  for (const char* k : keys) items.push_back(ctx.tr(k));
  return ImGui::Combo(dreams_label(ctx, key, id).c_str(), &value, items.data(),
                      static_cast<int>(items.size()));
}

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

// Queued: the worker runs it as soon as it is free (draw() starts it), so the click never
// waits for a running step.
void DreamsPanel::restart_at(AppContext& ctx, int frame) {
  DreamsUi& u = ui_;
  if (u.runner.timeline().frames.empty()) return;  // the session is still starting
  u.pending_restart = std::clamp(frame, 0, static_cast<int>(u.runner.timeline().frames.size()) - 1);
  if (ctx.waits_for_jobs()) {
    if (u.runner.running()) poll_runner(ctx, true);
    if (u.runner.has_engine()) {
      start_restart(std::exchange(u.pending_restart, -1));
      poll_runner(ctx, true);
    }
  }
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

}  // namespace

std::unique_ptr<Panel> make_dreams_panel() {
  return std::make_unique<DreamsPanel>();
}

}  // namespace poslab::app
