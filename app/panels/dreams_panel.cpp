// The dream lab: the same Boost and Broadside start state played by the simulator and by
// the world model's dream, side by side or as ghosts over reality; error curves with the
// copy-last and constant-velocity baselines; a timeline to pause, step, scrub and re-seed;
// the selected ship's token strip with its KV-cache indices; attention heatmaps; the
// helm. Every number comes from core/wm/dream_lab (the same code `poslab-cli wm dream` runs).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/gfx/arena_view.hpp"
#include "app/panels/dreams_session_key.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/attention_maps.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/plot.hpp"
#include "app/widgets/recorder.hpp"
#include "app/widgets/token_strip.hpp"
#include "app/widgets/train_view.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab.hpp"
#include "core/wm/dream_lab_model.hpp"
#include "io/labjson/dream_lab_io.hpp"
#include "io/labjson/lab_csv.hpp"

namespace poslab::app {
namespace {

using wm::DreamLabSettings;
using wm::DreamVariant;

constexpr int kMaxStepsPerJob = 8;  // catch-up limit per worker job (a slow frame cannot snowball)

std::string model_path(const std::string& model, DreamVariant w) {
  return wm::dream_model_path(model, w, io::dreams_models_dir());
}
using io::dreams_load_model;

// ImGui 1.86 has no SeparatorText: a rule, then the heading.
void section(const char* text) {
  ImGui::Separator();
  ImGui::TextUnformatted(text);
}

// What the stepping worker hands back: the engine it borrowed and the frames it made.
struct StepResult {
  std::unique_ptr<wm::DreamEngine> engine;
  std::vector<wm::DreamFrame> frames;
};

ArenaFrame frame_from_tokens(const std::vector<wm::DreamFrame>& frames, int at, bool dream,
                             int trail) {
  const int first = std::max(0, at - trail);
  std::vector<float> rows;
  rows.reserve(static_cast<size_t>(at - first + 1) * wm::kFrameValues);
  for (int i = first; i <= at; ++i) {
    const auto& t = dream ? frames[i].dream_tokens : frames[i].real_tokens;
    rows.insert(rows.end(), t.begin(), t.end());
  }
  return arena_frame_from_tokens(rows, at - first, at - first);
}

struct DreamsUi {
  DreamLabSettings lab;
  // Session: the timeline lives here; the engine is lent to the worker while it steps.
  std::unique_ptr<wm::DreamEngine> engine;
  wm::DreamTimeline timeline;
  std::string applied_key;  // session_key() the timeline was started with
  BackgroundJob<StepResult> stepper;
  double step_accum = 0;
  // Model: the loaded prototype (cloned into each session) and where it came from.
  std::unique_ptr<wm::DreamModel> model;
  std::string model_path, model_error, model_info;
  // Variants compared past the context (a worker job).
  BackgroundJob<wm::DreamComparison> compare_job;
  wm::DreamComparison comparison;
  std::string compare_key, compare_note;
  // Drawing.
  ArenaView real_view, dream_view;
  AttentionMapTextures attention_tex;
  TrainView train;
  int ships_drawn = 0, strip_mismatch = 0, strip_steps = -1;
  bool helm_keys = false;
  double steps_per_s = 0;
  int frames_in_session = 0;  // frames drawn since the session started (check_state)
  std::string last_error;
  // Why `poslab-cli wm dream --preset` cannot replay this session ("" = it can): set when
  // the helm changed during the dream, a restart the preset cannot express, a bad start file.
  std::string replay_note;
  int helm_at_start = -1;  // helm and follow of the session's first dream step
  bool follow_at_start = true;
  Recorder recorder{"dream"};  // the maps to an animated WebP
};

class DreamsPanel final : public Panel {
 public:
  const char* id() const override { return wm::kDreamLabName; }
  const char* title() const override { return "Dream lab (world model)"; }
  std::string preset() const override { return wm::dreams_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override { ui_.lab = wm::dreams_from_preset(text); }
  std::vector<std::string> cli_args() const override {
    const DreamsUi& u = ui_;
    if (!u.model || !u.replay_note.empty() || u.timeline.frames.empty()) return {};
    std::vector<std::string> a{"wm",     "dream",   "--preset",
                               preset(), "--steps", std::to_string(u.timeline.dream_steps())};
    const std::string helm = wm::dream_helm_actions_text(u.timeline, u.lab.helm);
    if (!helm.empty()) a.insert(a.end(), {"--helm-actions", helm});
    return a;
  }
  std::string cli_note() const override {
    if (!ui_.model) return "no model is loaded: only the real simulator and the baselines run";
    if (!ui_.replay_note.empty()) return ui_.replay_note;
    return "no dream has run yet";
  }
  LabNumbers numbers() const override {
    if (ui_.timeline.frames.empty()) return LabNumbers::none("no dream has run yet");
    const io::Json j = session_json();
    return LabNumbers::of(io::dump_json(j, 2) + "\n", io::dreams_lab_csv(j));
  }
  io::Json session_json() const {
    return io::dreams_session_json(preset(), ui_.model_path, ui_.model.get(), ui_.timeline,
                                   ui_.lab.helm);
  }
  bool animating() const override {
    return (ui_.lab.playing && !ui_.timeline.finished) || ui_.train.running();
  }
  void cancel_jobs() override {
    ui_.stepper.cancel();
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

  std::vector<std::string> check_presets() const override {
    return {"dreams?view=ghost&helm=0&follow=0&speed=16&ship=7",
            "dreams?variant=reset&horizon=1536&from=0&loop=open&temp=3&speed=16",
            "dreams?variant=recompute&team0=1&team1=1&seed=2147483647&policy=random&t=3",
            "dreams?from=511&horizon=1&play=0&attn=0&strip=0&compare=1",
            "dreams?layer=63&head=63&view=ghost&t=100000&variant=reset"};
  }

  std::string check_state() const override {
    const DreamsUi& u = ui_;
    const auto& fr = u.timeline.frames;
    if (fr.empty()) return "no session was started";
    for (size_t i = 0; i < fr.size(); ++i) {
      if (fr[i].step != static_cast<int>(i))
        return "timeline frame " + std::to_string(i) + " has step " + std::to_string(fr[i].step);
      for (float v : fr[i].dream_tokens)
        if (!std::isfinite(v)) return "dream frame " + std::to_string(i) + " holds NaN or inf";
    }
    if (u.timeline.start > static_cast<int>(fr.size()) - 1)
      return "dream starts after the newest frame";
    if (!u.model && u.model_error.empty()) return "no model and no error shown";
    // Headless frames step once each (waited for): a playing dream must have kept up.
    if (u.model && u.lab.playing && !u.timeline.finished &&
        u.timeline.dream_steps() < u.frames_in_session - 2)
      return "dreamt " + std::to_string(u.timeline.dream_steps()) + " steps in " +
             std::to_string(u.frames_in_session) + " frames";
    if (u.model && u.timeline.dream_steps() > 0 && u.lab.playing && fr.back().error.ships == 0 &&
        fr.back().error.present > 0 && !fr.back().real.done)
      return "a dream step without an error measurement";
    if (u.lab.strip && u.model && u.strip_steps >= 0) {
      const int cursor = shown_frame();
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
    controls(ctx);
    poll_stepper(ctx, false);
    ensure_model(ctx);
    ensure_session(ctx);
    ++u.frames_in_session;
    u.recorder.poll(ctx);
    if (u.recorder.recording()) {
      record_steps(ctx);
    } else if (u.lab.playing && !u.timeline.finished && !u.stepper.running()) {
      const double rate = 25.0 * u.lab.speed;
      u.step_accum =
          std::min(u.step_accum + ImGui::GetIO().DeltaTime * rate, double(kMaxStepsPerJob));
      int n = static_cast<int>(u.step_accum);
      // Headless checks and captures: one step per frame, waited for (deterministic).
      if (ctx.headless()) n = 1;
      if (n > 0) {
        u.step_accum -= n;
        start_steps(n);
      }
    }
    if (u.lab.playing) ctx.request_frames(2);
    timeline_bar();
    const float scale = ctx.ui_scale();
    const float avail = ImGui::GetContentRegionAvail().x;
    const float map_side =
        std::clamp((avail * 0.55f - 10 * scale) / (u.lab.view == wm::DreamView::side ? 2 : 1),
                   120.0f * scale, 560.0f * scale);
    ImGui::BeginGroup();
    maps(ctx, map_side);
    ImGui::EndGroup();
    if (!u.stepper.running())  // the content has reached the due video frame
      u.recorder.capture(ctx, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ImGui::SameLine();
    ImGui::BeginGroup();
    error_plot(ctx);
    section("Record the maps (animated WebP)");
    u.recorder.draw(ctx);
    ImGui::EndGroup();
    if (u.lab.strip) strip(ctx);
    if (u.lab.attention) attention(ctx);
    if (u.lab.compare) compare(ctx);
    if (u.lab.train) {
      section("Train a world model (on a worker; the lab stays live)");
      bool rope = true;
      const std::string path = u.train.draw(ctx, rope, u.lab.train == 2);
      if (!path.empty()) {
        u.lab.model = path;
        u.lab.window = rope ? DreamVariant::rope : DreamVariant::recompute;
        u.model_path.clear();  // reload even if the path is the same (newer weights)
      }
    }
  }

 private:
  int shown_frame() const {
    const int newest = static_cast<int>(ui_.timeline.frames.size()) - 1;
    return ui_.lab.cursor < 0 ? newest : std::min(ui_.lab.cursor, newest);
  }

  // While recording, each video frame advances the dream by exactly its share of steps
  // (25 per second of playback x speed), waited for before the capture: the same video on
  // any machine (widgets/recorder.hpp).
  void record_steps(AppContext& ctx) {
    DreamsUi& u = ui_;
    if (u.stepper.running() || u.recorder.frame_due()) return;
    const double dt = u.recorder.pace(ctx, ImGui::GetIO().DeltaTime);
    if (!u.lab.playing || u.timeline.finished) return;
    u.step_accum += dt * 25.0 * u.lab.speed;
    const int n = static_cast<int>(u.step_accum);
    u.step_accum -= n;
    if (n > 0) start_steps(n);
  }

  // ---- model and session --------------------------------------------------------------
  void ensure_model(AppContext& ctx) {
    DreamsUi& u = ui_;
    const std::string path = model_path(u.lab.model, u.lab.window);
    if (path == u.model_path) return;
    u.model_path = path;
    u.model.reset();
    u.model_error.clear();
    u.applied_key.clear();  // a new model starts a new session
    std::error_code ec;
    if (u.lab.model.empty() && !std::filesystem::exists(path, ec)) {
      // No shipped weights in this tree (yet): a state, not a fault. Named files that are
      // missing, and any file that does not load, get the banner below.
      u.model_error = "no trained model at " + path +
                      ": train one (poslab-cli wm train) or name a checkpoint in the preset";
      return;
    }
    try {
      u.model = dreams_load_model(path, u.lab.window);
      u.model_info = u.model->describe();
    } catch (const Error& e) {
      u.model_error = e.what();
      ctx.report_error("Dream lab model",
                       std::string(e.what()) + " (the real simulator and the baselines still run)");
    }
  }

  void ensure_session(AppContext& ctx) {
    DreamsUi& u = ui_;
    const std::string key = session_key(u.lab);
    if (key == u.applied_key && (u.engine || u.stepper.running())) return;
    if (u.stepper.running()) {  // let the worker return the engine first
      u.stepper.cancel();
      u.stepper.poll(ctx, true);
      if (u.stepper.running()) return;
    }
    u.applied_key = key;
    u.engine = std::make_unique<wm::DreamEngine>();
    try {
      u.replay_note.clear();
      wm::dream_session_begin(io::dreams_session_config(u.lab),
                              u.model ? u.model->clone() : nullptr, *u.engine, u.timeline);
    } catch (const Error& e) {
      ctx.report_error("Dream lab", e.what());
      u.replay_note = std::string("the start failed (") + e.what() + "); the default episode runs";
      wm::dream_session_begin(wm::dream_session_config(DreamLabSettings{}),
                              u.model ? u.model->clone() : nullptr, *u.engine, u.timeline);
    }
    u.step_accum = 0;
    u.frames_in_session = 0;
  }

  void start_steps(int n) {
    DreamsUi& u = ui_;
    if (!u.engine) return;
    if (u.timeline.dream_steps() == 0) {
      u.helm_at_start = u.lab.helm;
      u.follow_at_start = u.lab.follow;
    } else if (u.replay_note.empty() && (u.lab.helm != u.helm_at_start ||
                                         (u.lab.helm >= 0 && u.lab.follow != u.follow_at_start))) {
      u.replay_note =
          "the helm changed during this dream, which the preset cannot say: restart the dream "
          "(or change a setting) to get a session poslab-cli can replay";
    }
    wm::HelmInput helm;
    if (u.lab.helm >= 0) {
      helm.slot = u.lab.helm;
      helm.action = u.helm_keys ? arena_helm_action() : bnb::ShipAction{};
      helm.real_follows = u.lab.follow;
    }
    auto engine = std::shared_ptr<wm::DreamEngine>(u.engine.release());
    const wm::DreamTimeline* tl = &u.timeline;  // the UI does not change it while this runs
    u.stepper.start(u.applied_key, [engine, tl, n, helm](auto& control) {
      StepResult r;
      r.frames = wm::dream_session_advance(*engine, *tl, n, helm);
      control.set_progress(1, 1);
      r.engine = std::make_unique<wm::DreamEngine>(std::move(*engine));
      return r;
    });
  }

  // Takes the worker's frames when it is done; `block`: wait for it first.
  void poll_stepper(AppContext& ctx, bool block) {
    DreamsUi& u = ui_;
    if (block) u.stepper.wait();
    auto out = u.stepper.poll(ctx, true);  // headless: waits, so each frame is one step
    if (!out) return;
    if (!out->value) {
      u.applied_key.clear();  // the engine is gone: the session starts over
      if (out->cancelled) return;
      if (!out->error.empty()) ctx.report_error("Dream lab", out->error);
      u.lab.playing = false;
      return;
    }
    const double steps = static_cast<double>(out->value->frames.size());
    if (steps > 0 && out->seconds > 0) u.steps_per_s = steps / out->seconds;
    u.engine = std::move(out->value->engine);
    wm::dream_session_append(u.timeline, std::move(out->value->frames));
  }

  // ---- controls -------------------------------------------------------------------------
  void controls(AppContext& ctx) {
    DreamLabSettings& s = ui_.lab;
    using R = DreamLabSettings;
    ImGui::PushItemWidth(110 * ctx.ui_scale());
    int start = static_cast<int>(s.start);
    if (ImGui::Combo("start", &start, "seed\0file\0"))
      s.start = static_cast<wm::DreamSource>(start);
    tooltip(
        "A fresh episode from a seed, or an episode of an HDF5 dataset (replayed from its seed "
        "with its recorded actions).");
    ImGui::SameLine();
    if (s.start == wm::DreamSource::seed) {
      if (ImGui::InputInt("seed", &s.seed))
        s.seed = static_cast<int>(std::clamp<double>(s.seed, R::seed_range.lo, R::seed_range.hi));
      tooltip("Episode seed: positions, headings, the behaviour noise.");
      ImGui::SameLine();
      slider_int("team 0", s.team0_size, R::team_size_range, false,
                 "Ships of team 0 (0 = random per the spec).");
      ImGui::SameLine();
      slider_int("team 1", s.team1_size, R::team_size_range, false,
                 "Ships of team 1 (0 = as team 0).");
      ImGui::SameLine();
      ImGui::Combo("reality", &s.policy, "expert\0noisy expert\0random\0");
      tooltip("Who flies the real ships in closed loop.");
    } else {
      char buf[512];
      std::snprintf(buf, sizeof buf, "%s", s.file.c_str());
      ImGui::PushItemWidth(260 * ctx.ui_scale());
      if (ImGui::InputText("file", buf, sizeof buf, ImGuiInputTextFlags_EnterReturnsTrue))
        s.file = buf;
      ImGui::PopItemWidth();
      ImGui::SameLine();
      slider_int("episode", s.episode, ParamRange{0, 1000}, false, "Episode index in the file.");
    }
    slider_int("prompt steps", s.from, R::from_range, false,
               "Real steps played before the dream starts; the model sees them as its prompt.");
    ImGui::SameLine();
    slider_int("horizon", s.horizon, R::horizon_range, true,
               "Dream steps at most (25 per second). Past the model's context the window slides.");
    ImGui::SameLine();
    int window = static_cast<int>(s.window);
    if (ImGui::Combo("positions", &window,
                     "RoPE\0absolute, recompute\0absolute, approximate reset\0"))
      s.window = static_cast<DreamVariant>(window);
    tooltip(
        "RoPE: S_t at 2t, A_t at 2t+1, rotated; the window slides and only index differences "
        "matter.\n"
        "Absolute, recompute: learned rows 0..2C-1; once full, the window is re-encoded from 0 "
        "every step (exact).\n"
        "Absolute, approximate reset: cached keys keep the rows they were stored with while used "
        "at 0..2C-3 (UniZero's shortcut).");
    ImGui::SameLine();
    int loop = static_cast<int>(s.loop);
    if (ImGui::Combo("loop", &loop, "closed\0open\0")) s.loop = static_cast<wm::DreamLoop>(loop);
    tooltip(
        "Closed: reality's policy acts and the dream is fed the same actions.\nOpen: the model's "
        "action head flies (sampled at the temperature) and reality follows.");
    if (s.loop == wm::DreamLoop::open) {
      ImGui::SameLine();
      slider_double("temperature", s.temperature, R::temperature_range, "%.2f", false,
                    "Sampling temperature of the action head; 0 = the most likely action.");
    }
    ImGui::Checkbox("play", &s.playing);
    ImGui::SameLine();
    slider_double("speed", s.speed, R::speed_range, "%.1fx", true,
                  "x real time: 1 = 25 agent steps per second.");
    ImGui::SameLine();
    int view = static_cast<int>(s.view);
    if (ImGui::Combo("view", &view, "side by side\0ghosts over reality\0"))
      s.view = static_cast<wm::DreamView>(view);
    ImGui::SameLine();
    slider_int("helm", s.helm, R::helm_range, false, arena_helm_keys_help());
    ImGui::SameLine();
    ImGui::Checkbox("reality follows helm", &s.follow);
    tooltip(
        "On: the real ship takes the keyboard's inputs too. Off: its policy flies it in reality.");
    ImGui::SameLine();
    slider_int("ship", s.selected, R::slot_range, false,
               "Ship of the token strip and the attention rows.");
    ImGui::Checkbox("token strip", &s.strip);
    ImGui::SameLine();
    ImGui::Checkbox("attention", &s.attention);
    ImGui::SameLine();
    ImGui::Checkbox("compare positions", &s.compare);
    ImGui::SameLine();
    bool train = s.train > 0;
    if (ImGui::Checkbox("train", &train)) s.train = train ? 1 : 0;
    ImGui::SameLine();
    if (ImGui::Button("Restart dream here")) restart_here(ctx);
    tooltip(
        "Re-seed the dream from the real state at the timeline cursor: the model's prompt is "
        "reality up to there.");
    ImGui::SameLine();
    if (ui_.model)
      ImGui::TextDisabled("model: %s", ui_.model_info.c_str());
    else
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "no model: %s", ui_.model_error.c_str());
    ImGui::PopItemWidth();
  }

  void restart_here(AppContext& ctx) {
    DreamsUi& u = ui_;
    if (u.stepper.running()) poll_stepper(ctx, true);
    if (!u.engine) return;
    const int at = shown_frame();
    try {
      const bool helm_flew = u.timeline.dream_steps() > 0 && u.helm_at_start >= 0;
      wm::dream_session_restart(*u.engine, u.timeline, at);
      u.lab.cursor = -1;
      // Closed loop without the helm: reality up to `at` is what a prompt of `at` steps
      // plays, so the preset says it with from = at and the CLI replays it.
      if (u.lab.loop == wm::DreamLoop::closed && !helm_flew &&
          at <= DreamLabSettings::from_range.hi) {
        u.lab.from = at;
        u.applied_key = session_key(u.lab);
      } else if (u.replay_note.empty()) {
        u.replay_note =
            "the dream was restarted from a reality that the preset cannot say (open "
            "loop, the helm, or past step 511)";
      }
    } catch (const Error& e) {
      ctx.report_error("Dream lab", e.what());
    }
  }

  void timeline_bar() {
    DreamsUi& u = ui_;
    const int newest = static_cast<int>(u.timeline.frames.size()) - 1;
    int t = shown_frame();
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
        if (!u.stepper.running() && !u.timeline.finished) start_steps(1);
      }
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (ImGui::SliderInt("##t", &t, 0, std::max(newest, 0), "step %d")) {
      u.lab.cursor = t >= newest ? -1 : t;
      u.lab.playing = false;
    }
    tooltip("Scrub the timeline. Steps before the dream's start are its prompt (reality).");
    ImGui::SameLine();
    const int h = t - u.timeline.start;
    ImGui::Text("dream start %d, horizon %d, worker %.0f steps/s%s", u.timeline.start,
                std::max(h, 0), u.steps_per_s,
                u.timeline.finished
                    ? (u.timeline.frames.back().real.done ? ", episode over" : ", horizon reached")
                    : "");
  }

  // ---- maps ---------------------------------------------------------------------------------
  void maps(AppContext& ctx, float side) {
    DreamsUi& u = ui_;
    const auto& fr = u.timeline.frames;
    const int t = shown_frame();
    const bool has_dream = u.model != nullptr && t >= u.timeline.start;
    ArenaViewOptions opt;
    opt.selected = u.lab.selected;
    opt.helm = u.lab.helm;
    opt.dark = ctx.dark_theme();
    ArenaTrailHistory none;
    ArenaFrame real = frame_from_tokens(fr, t, false, 12);
    ArenaFrame exact = arena_frame_from_sim(fr[t].real, &none, 0);
    real.bullets = exact.bullets;  // bullets live only in the simulator
    ArenaFrame dream = frame_from_tokens(fr, t, true, 12);
    ArenaViewInput in;
    if (u.lab.view == wm::DreamView::side) {
      ImGui::BeginGroup();
      ImGui::TextUnformatted("reality (simulator)");
      const ArenaLayer rl[] = {{&real, ArenaLayerStyle::solid, 1.0f}};
      in = u.real_view.draw(rl, opt, side);
      ImGui::EndGroup();
      ImGui::SameLine();
      ImGui::BeginGroup();
      ImGui::TextUnformatted(has_dream ? "dream (world model)" : "dream: no model");
      if (has_dream) {
        const ArenaLayer dl[] = {{&dream, ArenaLayerStyle::solid, 1.0f}};
        const ArenaViewInput din = u.dream_view.draw(dl, opt, side);
        in.hovered = in.hovered || din.hovered;
      } else {
        ImGui::Dummy(ImVec2(side, side));
      }
      ImGui::EndGroup();
    } else {
      ImGui::TextUnformatted("reality (solid) with the dream as ghosts");
      std::vector<ArenaLayer> layers{{&real, ArenaLayerStyle::solid, 1.0f}};
      if (has_dream) layers.push_back({&dream, ArenaLayerStyle::ghost, 0.9f});
      in = u.real_view.draw(layers, opt, side);
    }
    u.ships_drawn = u.real_view.ships_drawn();
    if (in.clicked && in.hovered_slot >= 0) u.lab.selected = in.hovered_slot;
    u.helm_keys = u.lab.helm >= 0 &&
                  (in.hovered || ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows));
    const wm::StepError& e = fr[t].error;
    if (has_dream && t > u.timeline.start)
      ImGui::Text(
          "step %d (dream +%d): position %.1f px, velocity %.1f px/s, attitude %.1f deg, alive "
          "%d/%d",
          t, t - u.timeline.start, e.pos_px, e.vel, e.att_deg, e.alive_agree, e.present);
    else
      ImGui::TextDisabled("step %d: %s", t,
                          t < u.timeline.start ? "the prompt (reality)" : "dream start");
  }

  // ---- error curves -------------------------------------------------------------------------
  void error_plot(AppContext& ctx) {
    DreamsUi& u = ui_;
    const wm::DreamCurves c = wm::dream_curves(u.timeline);
    static const char* kMetric[] = {"position error (px)", "velocity error (px/s)",
                                    "attitude error (deg)", "health error (HP)", "power error"};
    ImGui::SetNextItemWidth(200 * ctx.ui_scale());
    ImGui::Combo("metric", &metric_, kMetric, 5);
    auto pick = [&](const std::vector<wm::StepError>& v) {
      std::vector<double> y;
      for (const auto& e : v) {
        const double m[] = {e.pos_px, e.vel, e.att_deg, e.health, e.power};
        y.push_back(e.ships > 0 ? m[metric_] : std::nan(""));
      }
      return y;
    };
    curves_[0] = pick(c.dream);
    curves_[1] = pick(c.copy_last);
    curves_[2] = pick(c.const_velocity);
    PlotSpec spec;
    spec.id = "dream_errors";
    spec.size = ImVec2(ImGui::GetContentRegionAvail().x, 260 * ctx.ui_scale());
    spec.x.label = "horizon (agent steps after the dream start)";
    spec.y.label = kMetric[metric_];
    spec.scale = ctx.ui_scale();
    if (u.model)
      spec.series.push_back({"dream", curves_[0], {}, 1, 1, IM_COL32(90, 200, 255, 255), 2.0f});
    spec.series.push_back({"copy last", curves_[1], {}, 1, 1, IM_COL32(180, 180, 180, 255)});
    spec.series.push_back({"constant velocity", curves_[2], {}, 1, 1, IM_COL32(255, 170, 60, 255)});
    plot(spec);
  }

  // ---- token strip ----------------------------------------------------------------------------
  void strip(AppContext& ctx) {
    DreamsUi& u = ui_;
    const auto& f = u.timeline.frames[shown_frame()];
    section("Token strip (ship's own sequence, S_t at 2t, A_t at 2t+1)");
    if (!u.model) {
      ImGui::TextDisabled("no model: nothing is cached");
      u.strip_steps = -1;
      return;
    }
    // Before the dream's first step the cache holds the prompt as begin() left it.
    const std::vector<wm::StripToken> cached = f.strip.empty()
        ? [&] { std::vector<wm::StripToken> v; for (const auto& t : u.model->strip(f.step)) if (t.cached) v.push_back(t); return v; }()
        : f.strip;
    TokenStripStyle style;
    style.scale = ctx.ui_scale();
    style.dark = ctx.dark_theme();
    style.max_tokens = static_cast<int>(ImGui::GetContentRegionAvail().x / (59 * ctx.ui_scale()));
    u.strip_mismatch = token_strip(cached, f.step, style);
    u.strip_steps = f.step;
  }

  // ---- attention --------------------------------------------------------------------------
  void attention(AppContext& ctx);
  void compare(AppContext& ctx);

  DreamsUi ui_;
  int metric_ = 0;
  std::vector<double> curves_[3];
};

void DreamsPanel::attention(AppContext& ctx) {
  DreamsUi& u = ui_;
  const auto& f = u.timeline.frames[shown_frame()];
  section("Attention of this step");
  if (!f.attention) {
    const bool dreamt = shown_frame() > u.timeline.start;
    ImGui::TextDisabled(!u.model ? "no model"
                        : dreamt ? "this model build does not report attention weights (the KV "
                                   "decoder does)"
                                 : "the prompt: no dream step here (scrub into the dream)");
    return;
  }
  attention_maps(*f.attention, u.lab.layer, u.lab.head, u.lab.selected, u.attention_tex,
                 ctx.ui_scale());
}

void DreamsPanel::compare(AppContext& ctx) {
  DreamsUi& u = ui_;
  section("Position variants past the context (same start, closed loop)");
  const std::string key = session_key(u.lab);
  if (u.compare_key != key && !u.compare_job.running()) {
    u.compare_key = key;
    using Models = std::vector<std::pair<std::string, std::shared_ptr<wm::DreamModel>>>;
    auto models = std::make_shared<Models>();
    const std::string rope = model_path("", DreamVariant::rope);
    const std::string abs = model_path("", DreamVariant::recompute);
    std::error_code ec;
    u.compare_note.clear();
    if (!std::filesystem::exists(rope, ec) || !std::filesystem::exists(abs, ec)) {
      u.compare_note = "needs both shipped models: " + rope + " and " + abs;
      return;
    }
    try {
      models->emplace_back("RoPE", dreams_load_model(rope, DreamVariant::rope));
      models->emplace_back("absolute, recompute", dreams_load_model(abs, DreamVariant::recompute));
      models->emplace_back("absolute, approximate reset",
                           dreams_load_model(abs, DreamVariant::reset));
    } catch (const Error& e) {
      ctx.report_error("Dream lab comparison", e.what());
    }
    wm::DreamSessionConfig config = wm::dream_session_config(u.lab);
    const int horizon = 3 * (models->empty() ? 32 : models->front().second->context());
    u.compare_job.start(key, [models, config, horizon](auto& control) {
      std::vector<std::pair<std::string, const wm::DreamModel*>> list;
      for (const auto& [label, m] : *models) list.emplace_back(label, m.get());
      return wm::dream_compare(config, list, horizon, control.cancel_flag());
    });
  }
  if (!u.compare_note.empty()) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", u.compare_note.c_str());
    return;
  }
  if (auto out = u.compare_job.poll(ctx, true)) {
    if (out->value)
      u.comparison = std::move(*out->value);
    else if (!out->error.empty())
      ctx.report_error("Dream lab comparison", out->error);
  }
  if (u.compare_job.running()) {
    ImGui::TextDisabled("dreaming the three variants...");
    return;
  }
  PlotSpec spec;
  spec.id = "dream_compare";
  spec.size = ImVec2(ImGui::GetContentRegionAvail().x, 220 * ctx.ui_scale());
  spec.x.label = "horizon (agent steps)";
  spec.y.label = "position error (px)";
  spec.scale = ctx.ui_scale();
  const ImU32 colours[] = {IM_COL32(90, 200, 255, 255), IM_COL32(120, 220, 120, 255),
                           IM_COL32(240, 90, 90, 255), IM_COL32(255, 170, 60, 255)};
  for (size_t i = 0; i < u.comparison.series.size(); ++i)
    spec.series.push_back(
        {u.comparison.series[i].label, u.comparison.series[i].pos_px, {}, 1, 1, colours[i % 4]});
  if (u.comparison.context > 0)
    ImGui::Text("context C = %d steps; dreams of %d steps", u.comparison.context,
                u.comparison.horizon);
  if (!spec.series.empty()) plot(spec);
}

}  // namespace

std::unique_ptr<Panel> make_dreams_panel() {
  return std::make_unique<DreamsPanel>();
}

}  // namespace poslab::app
