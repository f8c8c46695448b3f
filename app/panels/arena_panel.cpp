// The Boost and Broadside arena: a live 4v4 (or 1v1..4v4) fight flown by the scripted
// expert, drawn top-down on the toroidal map with shaders/arena.{vert,frag}; take the helm
// of one ship from the keyboard; click a ship to see its 15-value state vector and its 12
// relational features to every other ship; or open an HDF5 dataset and scrub its episodes
// on a timeline. The simulation, features and file reading live in core/bnb and io/dataset.
// Sections: ArenaPanel: presets, checks and the frame's layout | live simulation | dataset
// file | controls | map. The UI state (ArenaUi), the ship table and the inspector:
// arena_views.cpp.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/file_picker.hpp"
#include "app/gfx/arena_view.hpp"
#include "app/panels/arena_export.hpp"
#include "app/panels/arena_help.hpp"
#include "app/panels/arena_views.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets.hpp"
#include "app/widgets/control_column.hpp"
#include "app/widgets/desktop_only.hpp"
#include "app/widgets/drawn_numbers.hpp"
#include "app/widgets/recorder.hpp"
#include "app/widgets/theme_colour.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/bnb/arena_lab.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/bnb/bnb_features.hpp"
#include "core/common/errors.hpp"
#include "core/wm/dream_lab.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::app {
namespace {

using bnb::kSlots;
using bnb::Vec2;

constexpr int kMaxStepsPerFrame = 40;  // catch-up limit so a slow frame cannot snowball

// ---------------- ArenaPanel: presets, checks and the frame's layout ----------------
class ArenaPanel final : public Panel {
 public:
  ArenaPanel() { restart(); }
  const char* id() const override { return bnb::kArenaLabName; }
  const char* title() const override { return "Boost and Broadside arena"; }
  std::string preset() const override { return bnb::arena_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override {
    ui_.lab = bnb::arena_from_preset(text);
    copy_path_to_buffer();
    ui_.live_ready = false;  // restart with the preset's seed and teams
  }
  bool animating() const override { return ui_.lab.playing; }
  void trust_named_files() override { ui_.confirmed_file = FileApproval::of(ui_.lab.file); }
  // A file still waiting for approval is never saved as the lab's state: the next start
  // would open it unasked. The last approved file (or the live episode) is kept instead.
  std::string saved_preset() const override {
    if (!awaiting_approval()) return preset();
    bnb::ArenaLabSettings s = ui_.lab;
    s.file = ui_.confirmed_file.path;
    if (s.file.empty()) s.source = bnb::ArenaSource::live;
    return bnb::arena_to_preset(s);
  }
  float min_width() const override { return 1000.0f; }
  void release_gl() override { ui_.map.release_gl(); }
  void cancel_jobs() override { ui_.recorder.cancel(); }
  Recorder* recorder() override { return &ui_.recorder; }
  std::vector<std::string> cli_args() const override { return arena_cli_args(ui_.lab, ui_.sim); }
  Message cli_note() const override { return arena_cli_note(ui_.lab); }
  LabNumbers numbers() const override { return arena_numbers(ui_.lab, ui_.sim, ui_.episode); }
  ViewRect main_view_rect() const override { return view_rect_; }

  std::vector<std::string> check_presets() const override {
    return {"arena?team0=1&team1=4&speed=16&trail=100&ship=0&play=1",
            "arena?team0=0&team1=0&seed=2147483647&policy=random&helm=7&ship=7&play=1",
            "arena?play=0&grid=0&trail=0&ship=3&speed=0.1&policy=noisy",
            "arena?team0=4&team1=1&seed=0&helm=0&ship=4&play=1",
            "arena?helm=0&practice=1&team1=1&team0=1",  // the welcome page's start: waits for W
            "arena?source=file&episode=1000000000&row=1000000"};
  }

  std::string check_state() const override {
    const ArenaUi& u = ui_;
    if (u.lab.source == bnb::ArenaSource::live) {
      if (!u.live_ready) return "live simulation was never started";
      const auto sizes = bnb::team_sizes(u.sim);
      if (u.lab.team0_size > 0 && sizes[0] != u.lab.team0_size)
        return "team 0 has " + std::to_string(sizes[0]) + " ships";
      if (u.lab.team1_size > 0 && sizes[1] != u.lab.team1_size)
        return "team 1 has " + std::to_string(sizes[1]) + " ships";
      // Nobody presses W, Play or Step under --check: a paused match waits at step 0.
      if (!u.lab.playing && u.helm_lost_step < 0 && !u.sim.done && u.sim.step != 0)
        return "the match ran to step " + std::to_string(u.sim.step) + " without being started";
      for (int k = 0; k < kSlots; ++k) {
        const bnb::Ship& s = u.sim.ships[k];
        if (s.present &&
            (s.pos.x < 0 || s.pos.x >= bnb::kWorldW || s.pos.y < 0 || s.pos.y >= bnb::kWorldH))
          return "ship " + std::to_string(k) + " is off the map";
        if (s.health < 0 || s.health > 100 || s.power < 0 || s.power > 100)
          return "ship " + std::to_string(k) + " health/power out of bounds";
      }
    }
    int shown = 0, present = 0;
    for (const ArenaShipView& s : u.view.ships) {
      shown += s.alive;
      present += s.present;
    }
    if (u.map.ships_drawn() != shown)
      return "drew " + std::to_string(u.map.ships_drawn()) + " ships, " + std::to_string(shown) +
             " alive";
    const int sel = u.lab.selected;
    if (sel >= 0 && u.view.ships[sel].present && u.inspector_rows != present - 1)
      return "inspector shows " + std::to_string(u.inspector_rows) + " relational rows for " +
             std::to_string(present - 1) + " other ships";
    if (u.lab.source == bnb::ArenaSource::file && u.reader == nullptr && !u.lab.file.empty() &&
        u.opened_path != u.lab.file && u.confirmed_file.approves(u.lab.file))
      return "file was never opened";
    // The selected ship's state vector as the inspector drew it: row sim.step of the
    // episode `poslab-cli sim` replays (live, nobody at the helm, not practising).
    if (drawn_numbers_wanted() && u.lab.source == bnb::ArenaSource::live && sel >= 0 &&
        u.inspector_rows >= 0 && !cli_args().empty()) {
      const std::vector<double> token(u.inspector_token.begin(), u.inspector_token.end());
      record_drawn_numbers(
          bnb::kArenaLabName, preset(), cli_args(),
          {{"tokens/" + std::to_string(u.sim.step) + "/" + std::to_string(sel), token}});
    }
    return {};
  }

  void draw(AppContext& ctx) override {
    ArenaUi& u = ui_;
    const float scale = ctx.ui_scale();
    dark_ = ctx.dark_theme();
    ctx_ = &ctx;
    u.recorder.poll(ctx);
    const double dt =
        ctx.capturing()
            ? 0.0               // a picture's extra frame must not move the ships
            : u.recorder.pace(  // while recording: exactly one video frame's time
                  ctx,
                  ctx.headless() ? 1.0 / 60.0 : std::min(0.1, double(ImGui::GetIO().DeltaTime)));
    if (u.lab.source == bnb::ArenaSource::live) {
      if (!u.live_ready || u.applied_seed != u.lab.seed || u.applied_team0 != u.lab.team0_size ||
          u.applied_team1 != u.lab.team1_size || u.applied_policy != u.lab.policy)
        restart();
      advance_live(dt);
      build_live_view();
    } else {
      open_file_if_needed(ctx);
      advance_file(dt);
      build_file_view();
    }
    if (u.lab.playing) ctx.request_frames(2);

    // Layout: [controls | map | inspector]. The controls fold to a strip; the map keeps at
    // least 360 px (the shell scrolls the lab across below min_width).
    const ImGuiStyle& st = ImGui::GetStyle();
    if (begin_control_column(ctx, "##arena_controls", 300.0f * scale, u.controls_collapsed))
      draw_controls(ctx, scale);
    end_control_column();
    ImGui::SameLine();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float right_w = std::clamp(0.36f * avail.x, 300.0f * scale, 540.0f * scale);
    const float map_w = std::max(360.0f * scale, avail.x - right_w - st.ItemSpacing.x);
    ImGui::BeginChild("##arena_map", ImVec2(map_w, 0), false, ImGuiWindowFlags_NoScrollbar);
    draw_map(ctx, scale);
    ImGui::EndChild();
    view_rect_ = last_item_rect();
    ImGui::SameLine();
    ImGui::BeginChild("##arena_inspector", ImVec2(0, 0), true,
                      ImGuiWindowFlags_HorizontalScrollbar);
    arena_ship_list(ctx, u, scale, dark_);
    arena_inspector(ctx, u, dark_);
    ImGui::EndChild();
  }

 private:
  // ---------------- live simulation ----------------
  void restart() {
    ArenaUi& u = ui_;
    bnb::EpisodeConfig c;
    c.team0_size = u.lab.team0_size;
    c.team1_size = u.lab.team1_size;
    c.max_steps = bnb::kMaxEpisodeSteps;
    u.sim = bnb::sim_reset(static_cast<uint64_t>(u.lab.seed), c);
    u.behaviour = bnb::behaviour_init(bnb::arena_policy_kind(u.lab.policy),
                                      static_cast<uint64_t>(u.lab.seed));
    u.trails.clear();
    u.helm_lost_step = -1;
    u.last_actions = {};
    u.returns = {0, 0};
    u.step_accum = 0;
    u.applied_seed = u.lab.seed;
    u.applied_team0 = u.lab.team0_size;
    u.applied_team1 = u.lab.team1_size;
    u.applied_policy = u.lab.policy;
    u.live_ready = true;
    u.trails.push(u.sim);
  }

  void live_step() {
    ArenaUi& u = ui_;
    if (u.sim.done) return;
    bnb::Decision d = bnb::behaviour_act(u.behaviour, u.sim);
    if (u.lab.helm >= 0 && u.sim.ships[u.lab.helm].alive && ui_.helm_keys_active)
      d.executed[u.lab.helm] = arena_helm_action();
    else if (u.lab.helm >= 0)
      d.executed[u.lab.helm] = {};  // at the helm but keys not captured: coast
    if (u.lab.practice)             // the computer ships hold fire; the physics is the same
      for (int k = 0; k < kSlots; ++k)
        if (k != u.lab.helm) d.executed[k].shoot = 0;
    const bool helm_alive = u.lab.helm >= 0 && u.sim.ships[u.lab.helm].alive;
    const bnb::StepInfo info = bnb::sim_step(u.sim, d.executed);
    u.last_actions = d.executed;
    u.returns[0] += info.reward[0];
    u.returns[1] += info.reward[1];
    u.trails.push(u.sim);
    if (u.sim.done) u.lab.playing = false;
    if (helm_alive && !u.sim.ships[u.lab.helm].alive) {
      u.lab.playing = false;  // pause so the player sees what happened
      u.helm_lost_step = u.sim.step;
    }
  }

  void advance_live(double dt) {
    ArenaUi& u = ui_;
    if (!u.lab.playing || u.sim.done) return;
    u.step_accum += dt * u.lab.speed / bnb::kAgentDt;
    int n = 0;
    while (u.step_accum >= 1.0 && n < kMaxStepsPerFrame && !u.sim.done) {
      live_step();
      u.step_accum -= 1.0;
      ++n;
    }
    if (n == kMaxStepsPerFrame) u.step_accum = 0;
  }

  void build_live_view() { ui_.view = arena_frame_from_sim(ui_.sim, &ui_.trails, ui_.lab.trail); }

  // ---------------- dataset file ----------------
  void copy_path_to_buffer() {
    auto& buf = ui_.path_buf;
    std::snprintf(buf.data(), buf.size(), "%s", ui_.lab.file.c_str());
  }

  // True while the preset names a file the user has not approved (chosen in this panel,
  // given on the command line, or restored from the user's own settings).
  bool awaiting_approval() const {
    return !ui_.lab.file.empty() && !ui_.confirmed_file.approves(ui_.lab.file);
  }

  void open_file_if_needed(AppContext& ctx, bool force = false) {
    ArenaUi& u = ui_;
    if (awaiting_approval()) {
      u.reader.reset();
      u.opened_path.clear();
      u.loaded_episode = -1;
      u.episode = {};
      u.lab.playing = false;
      return;
    }
    if (u.lab.file == u.opened_path && !force) return;
    u.opened_path = u.lab.file;
    u.reader.reset();
    u.loaded_episode = -1;
    u.episode = {};
    if (u.lab.file.empty()) return;
    // Only regular files: opening a FIFO or a device would block or read forever.
    std::error_code ec;
    const auto st = std::filesystem::status(u.lab.file, ec);
    if (ec || st.type() != std::filesystem::file_type::regular) {
      ctx.report_error(ctx.tr("title.arena"),
                       ec ? tr_args(ctx.tr("arena.file_unexaminable"),
                                    {{"file", u.lab.file}, {"reason", ec.message()}})
                          : tr_args(ctx.tr("arena.file_not_regular"), {{"file", u.lab.file}}));
      return;
    }
    try {
      u.reader = std::make_unique<io::BnbDatasetReader>(u.lab.file);
    } catch (const std::exception& e) {
      ctx.report_error(ctx.tr("title.arena"), tr_error(ctx, e));
    }
  }

  // The approval prompt for a file named by a preset.
  void draw_approval() {
    ArenaUi& u = ui_;
    ImGui::PushStyleColor(ImGuiCol_Text,
                          dark_ ? ImVec4(1.0f, 0.8f, 0.3f, 1) : ImVec4(0.6f, 0.35f, 0, 1));
    text_wrapped("%s", T("arena.approve_text"));
    ImGui::PopStyleColor();
    text_wrapped("%s", u.lab.file.c_str());
    std::error_code ec;
    const auto size = std::filesystem::file_size(u.lab.file, ec);
    if (!ec)
      ImGui::TextDisabled("%.1f MB", static_cast<double>(size) / 1e6);
    else
      ImGui::TextDisabled("(%s)", ec.message().c_str());
    if (ImGui::Button(L("arena.open_this").c_str()))
      u.confirmed_file = FileApproval::of(u.lab.file);
    tooltip(T("arena.open_this_tip"));
    ImGui::SameLine();
    if (ImGui::Button(L("arena.dont_open").c_str())) {
      u.lab.file.clear();
      u.confirmed_file = {};
      copy_path_to_buffer();
    }
  }

  void advance_file(double dt) {
    ArenaUi& u = ui_;
    if (!u.reader || u.reader->info().num_episodes == 0) {
      u.lab.playing = false;
      return;
    }
    const int64_t episodes = u.reader->info().num_episodes;
    u.lab.episode = static_cast<int>(std::clamp<int64_t>(u.lab.episode, 0, episodes - 1));
    if (u.loaded_episode != u.lab.episode) {
      try {
        u.episode = u.reader->read_episode(u.lab.episode);
        u.loaded_episode = u.lab.episode;
      } catch (const Error& e) {
        u.episode = {};
        u.loaded_episode = u.lab.episode;
        u.lab.playing = false;
        throw;  // the shell shows it as a banner
      }
    }
    if (u.episode.rows == 0) return;
    if (u.lab.playing) {
      u.row_accum += dt * u.lab.speed / bnb::kAgentDt;
      const int adv = static_cast<int>(u.row_accum);
      u.row_accum -= adv;
      u.lab.row += adv;
      if (u.lab.row >= u.episode.rows - 1) u.lab.playing = false;
    }
    u.lab.row = std::clamp(u.lab.row, 0, u.episode.rows - 1);
  }

  void build_file_view() {
    ArenaUi& u = ui_;
    if (u.episode.rows == 0) {
      u.view = {};
      return;
    }
    u.view = arena_frame_from_tokens(u.episode.tokens, u.lab.row, u.lab.trail);
  }

  // ---------------- controls ----------------
  void draw_controls(AppContext& ctx, float scale) {
    ArenaUi& u = ui_;
    bnb::ArenaLabSettings& s = u.lab;
    const ImVec4 accent = dark_ ? ImVec4(1, 0.85f, 0.3f, 1) : ImVec4(0.6f, 0.35f, 0.0f, 1);
    ImGui::PushItemWidth(140.0f * scale);
    int source = static_cast<int>(s.source);
    ImGui::TextUnformatted(T("arena.source"));
    ImGui::SameLine();
    if (ImGui::RadioButton(L("arena.live").c_str(), &source, 0)) s.playing = true;
    tooltip(T("arena.live_tip"));
    ImGui::SameLine();
    ImGui::RadioButton(L("arena.hdf5").c_str(), &source, 1);
    tooltip(T("arena.hdf5_tip"));
    s.source = static_cast<bnb::ArenaSource>(source);
    ImGui::Separator();

    if (s.source == bnb::ArenaSource::live) {
      ImGui::TextDisabled("%s", T("arena.new_episode"));
      int seed = s.seed;
      if (ImGui::InputInt(L("arena.seed").c_str(), &seed))
        s.seed = std::clamp(seed, 0, static_cast<int>(bnb::ArenaLabSettings::seed_range.hi));
      tooltip(T("arena.seed_tip"));
      // Slider formats: a text only through as_format_text (its '%' shown, never converted).
      const std::string random = as_format_text(T("arena.random_size")),
                        as_team0 = as_format_text(T("arena.as_team0"));
      ImGui::SliderInt(L("arena.team0").c_str(), &s.team0_size, 0, 4,
                       s.team0_size == 0 ? random.c_str() : "%d", ImGuiSliderFlags_AlwaysClamp);
      tooltip(T("arena.team0_tip"));
      ImGui::SliderInt(L("arena.team1").c_str(), &s.team1_size, 0, 4,
                       s.team1_size == 0 ? as_team0.c_str() : "%d", ImGuiSliderFlags_AlwaysClamp);
      tooltip(T("arena.team1_tip"));
      const char* policies[] = {T("arena.policy_expert"), T("arena.policy_noisy"),
                                T("arena.policy_random")};
      ImGui::Combo(L("arena.policy").c_str(), &s.policy, policies, 3);
      tooltip(T("arena.policy_tip"));
      ImGui::Checkbox(L("arena.practice").c_str(), &s.practice);
      tooltip(T("arena.practice_tip"));
      if (ImGui::Button(L("arena.restart").c_str())) restart();
      tooltip(T("arena.restart_tip"));
      ImGui::SameLine();
      if (ImGui::Button(L("arena.next_seed").c_str()))
        s.seed = std::min(s.seed + 1, static_cast<int>(bnb::ArenaLabSettings::seed_range.hi));
      tooltip(T("arena.next_seed_tip"));
      ImGui::Separator();
    } else {
      draw_file_controls(ctx, scale);
    }

    if (ImGui::Button(L("arena.dream").c_str()))  // the dream lab's hook (issue 13)
      ctx.open_lab(
          wm::dreams_preset_from_arena(s, s.source == bnb::ArenaSource::live ? u.sim.step : s.row));
    tooltip(T("arena.dream_tip"));
    if (ImGui::Button(
            (std::string(T(s.playing ? "arena.pause" : "arena.play")) + "###play").c_str())) {
      s.playing = !s.playing;
      u.helm_lost_step = -1;
    }
    tooltip(T("arena.play_tip"));
    ImGui::SameLine();
    if (ImGui::Button(L("arena.step").c_str())) {
      s.playing = false;
      if (s.source == bnb::ArenaSource::live)
        live_step();
      else
        s.row = std::min(s.row + 1, std::max(0, u.episode.rows - 1));
    }
    tooltip(T("arena.step_tip"));
    double speed = s.speed;
    const double lo = bnb::ArenaLabSettings::speed_range.lo,
                 hi = bnb::ArenaLabSettings::speed_range.hi;
    if (ImGui::SliderScalar(L("arena.speed").c_str(), ImGuiDataType_Double, &speed, &lo, &hi,
                            "%.2fx", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
      s.speed = speed;
    tooltip(T("arena.speed_tip"));
    ImGui::SliderInt(L("arena.trail").c_str(), &s.trail, 0,
                     static_cast<int>(bnb::ArenaLabSettings::trail_range.hi), "%d",
                     ImGuiSliderFlags_AlwaysClamp);
    tooltip(T("arena.trail_tip"));
    ImGui::Checkbox(L("arena.grid").c_str(), &s.grid);
    tooltip(T("arena.grid_tip"));
    ImGui::PopItemWidth();

    if (s.source == bnb::ArenaSource::live) {
      ImGui::Separator();
      const auto alive = bnb::alive_counts(u.sim);
      ImGui::Text("%s %d / %d   t = %.2f s", T("arena.step_word"), u.sim.step, u.sim.max_steps,
                  u.sim.tick * bnb::kDt);
      tooltip(T("arena.step_count_tip"));
      // In words: "ships alive: team 0: 3, team 1: 4", "score so far (team 0 / team 1)".
      // Wrapped: at UI scale 2 (and in Chinese) they ran past the column's edge.
      text_wrapped("%s: %s 0: %d, %s 1: %d", T("arena.alive_teams"), T("arena.team"), alive[0],
                   T("arena.team"), alive[1]);
      text_wrapped("%s: %.3f / %.3f", T("arena.returns"), u.returns[0], u.returns[1]);
      tooltip(T("arena.returns_tip"));
      if (u.sim.done) {
        const char* what = T(u.sim.winner == 0          ? "arena.win0"
                             : u.sim.winner == 1        ? "arena.win1"
                             : alive[0] + alive[1] == 0 ? "arena.draw"
                                                        : "arena.truncated");
        ImGui::TextColored(accent, "%s: %s", T("arena.episode_over"), what);
        if (ImGui::Button(L("arena.new_episode_next").c_str())) {
          s.seed = std::min(s.seed + 1, static_cast<int>(bnb::ArenaLabSettings::seed_range.hi));
          s.playing = true;
        }
      }
      ImGui::Separator();
      ImGui::TextDisabled("%s", T("arena.take_helm"));
      int helm = s.helm;
      ImGui::SetNextItemWidth(140.0f * scale);
      const std::string none = as_format_text(T("arena.none")),
                        slot_fmt = as_format_text(T("arena.slot"), " %d");
      if (ImGui::SliderInt(L("arena.helm").c_str(), &helm, -1, kSlots - 1,
                           helm < 0 ? none.c_str() : slot_fmt.c_str(),
                           ImGuiSliderFlags_AlwaysClamp))
        s.helm = helm;
      tooltip(T("arena.helm_tip"));
      if (u.helm_lost_step >= 0 && s.helm >= 0) {
        ImGui::TextColored(accent, "%s %d. %s", T("arena.destroyed_at"), u.helm_lost_step,
                           T("arena.paused"));
        if (ImGui::Button(L("arena.watch_rest").c_str())) {
          s.playing = true;
          u.helm_lost_step = -1;
        }
        ImGui::SameLine();
        if (ImGui::Button(L("arena.try_again").c_str())) {
          restart();
          s.playing = true;
        }
      } else if (s.helm >= 0 && !u.sim.ships[s.helm].alive) {
        // The helm on a wreck or an empty slot: the keys would steer nothing.
        ImGui::TextColored(accent, "%s", T("arena.helm_dead"));
        if (ImGui::Button((std::string(T("arena.try_again")) + "###helm_restart").c_str())) {
          restart();
          s.playing = true;
        }
      }
      text_wrapped("%s %s %s", T("arena.keys_intro"), T(kHelmKeysHelp), T("arena.expert_flies"));
      if (s.helm >= 0) {
        const ImVec4 on = dark_ ? ImVec4(0.5f, 1, 0.5f, 1) : ImVec4(0.0f, 0.45f, 0.1f, 1);
        const ImVec4 off = dark_ ? ImVec4(0.7f, 0.7f, 0.7f, 1) : ImVec4(0.35f, 0.35f, 0.35f, 1);
        ImGui::TextColored(ui_.helm_keys_active ? on : off, "%s",
                           T(ui_.helm_keys_active ? "arena.keys_on" : "arena.keys_off"));
      }
    }
    ImGui::Separator();
    ImGui::TextDisabled("%s", T("arena.record"));
    u.recorder.draw(ctx);
  }

  void draw_file_controls(AppContext& ctx, float scale) {
    ArenaUi& u = ui_;
    bnb::ArenaLabSettings& s = u.lab;
    ImGui::TextDisabled("%s", T("arena.dataset"));
    if (desktop_only(ctx, "desktop_only.datasets")) {
      ImGui::Separator();
      return;
    }
    ImGui::SetNextItemWidth(-1);
    const bool enter =
        ImGui::InputTextWithHint("##path", "/path/to/data.h5", u.path_buf.data(), u.path_buf.size(),
                                 ImGuiInputTextFlags_EnterReturnsTrue);
    tooltip(T("arena.path_tip"));
    std::string picked;
    const bool chose =
        file_picker_draw(u.picker, T("arena.choose_dataset"), {".h5", ".hdf5"}, picked, ctx);
    if (chose) std::snprintf(u.path_buf.data(), u.path_buf.size(), "%s", picked.c_str());
    if (ImGui::Button(L("arena.open").c_str()) || enter || chose) {
      s.file = u.path_buf.data();
      s.episode = 0;
      s.row = 0;
      u.confirmed_file = FileApproval::of(s.file);  // the user's own choice
      open_file_if_needed(ctx, true);  // reopen even the same path (it may have been rewritten)
    }
    tooltip(T("arena.open_tip"));
    ImGui::SameLine();
    if (ImGui::Button(L("arena.browse").c_str())) file_picker_open(u.picker, u.path_buf.data());
    tooltip(T("arena.browse_tip"));
    if (awaiting_approval()) {
      draw_approval();
      ImGui::Separator();
      return;
    }
    if (!u.reader) {
      text_wrapped("%s", T(s.file.empty() ? "arena.no_file" : "arena.file_failed"));
      ImGui::Separator();
      return;
    }
    const io::BnbDatasetInfo& info = u.reader->info();
    ImGui::Text("%lld %s, %lld %s, %s %s", static_cast<long long>(info.num_episodes),
                T("arena.episodes"), static_cast<long long>(info.total_timesteps), T("arena.rows"),
                T("arena.policy_word"), info.policy.c_str());
    if (info.num_episodes > 0) {
      ImGui::SetNextItemWidth(150.0f * scale);
      int ep = s.episode;
      if (ImGui::SliderInt(L("arena.episode").c_str(), &ep, 0,
                           static_cast<int>(std::min<int64_t>(info.num_episodes - 1, 2147483647)),
                           "%d", ImGuiSliderFlags_AlwaysClamp) &&
          ep != s.episode) {
        s.episode = ep;
        s.row = 0;
      }
      tooltip(T("arena.episode_tip"));
      if (u.episode.rows > 0) {
        ImGui::Text("%s %llu, %d %s (%d %s)", T("arena.seed"),
                    static_cast<unsigned long long>(u.episode.seed), u.episode.rows,
                    T("arena.rows"), u.episode.rows - 1, T("arena.steps_word"));
        ImGui::SetNextItemWidth(-1);
        const std::string row_fmt = as_format_text(T("arena.row"), " %d");
        ImGui::SliderInt("##timeline", &s.row, 0, u.episode.rows - 1, row_fmt.c_str(),
                         ImGuiSliderFlags_AlwaysClamp);
        tooltip(T("arena.timeline_tip"));
        ImGui::TextDisabled("%s", T("arena.no_bullets"));
      }
    }
    ImGui::Separator();
  }

  // ---------------- map ----------------
  void draw_map(AppContext& ctx, float scale) {
    ArenaUi& u = ui_;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Room below the map for its two captions as they wrap at this width (at UI scale 2 they
    // take four lines and were cut off by the pane, which has no scroll bar).
    char screen[256], angle[256];
    std::snprintf(screen, sizeof screen, "%s %gx%g", T("arena.screen_convention"), bnb::kWorldW,
                  bnb::kWorldH);
    std::snprintf(angle, sizeof angle, "%s %.2f", T("arena.angle_convention"), scale);
    const float spacing = ImGui::GetStyle().ItemSpacing.y;
    const float text_h = ImGui::CalcTextSize(screen, nullptr, false, avail.x).y +
                         ImGui::CalcTextSize(angle, nullptr, false, avail.x).y + 3 * spacing +
                         0.5f * ImGui::GetTextLineHeight();
    const float side = std::max(64.0f, std::min(avail.x, avail.y - text_h));
    ArenaViewOptions opt;
    opt.grid = u.lab.grid;
    opt.selected = u.lab.selected;
    opt.helm = u.lab.source == bnb::ArenaSource::live ? u.lab.helm : -1;
    opt.dark = ctx.dark_theme();
    opt.ui_scale = scale;
    const ArenaLayer layer{&u.view};
    const ArenaViewInput in = u.map.draw({&layer, 1}, opt, side);
    u.recorder.capture(ctx, ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    ui_.helm_keys_active =
        u.lab.helm >= 0 &&
        (in.hovered || ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows));
    draw_start_prompt(scale);
    if (in.hovered) {
      if (in.hovered_slot >= 0)
        tooltip_showf("%s %d: %s", T("arena.slot"), in.hovered_slot, T("arena.click_inspect"));
      else
        tooltip_showf("x = %.0f, y = %.0f", in.mouse_world.x, in.mouse_world.y);
      if (in.clicked) u.lab.selected = in.hovered_slot;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped_text(screen);
    wrapped_text(angle);
    ImGui::PopStyleColor();
  }

  // The ship the first W flies: the helm slot while its ship is alive, else the first ship
  // alive (team 0's first); the slot as it is when no ship is alive.
  int ship_to_fly() const {
    const bnb::ArenaLabSettings& s = ui_.lab;
    if (s.helm >= 0 && ui_.sim.ships[s.helm].alive) return s.helm;
    for (int k = 0; k < kSlots; ++k)
      if (ui_.sim.ships[k].alive) return k;
    return s.helm;
  }

  // A live episode that has not started waits for the player: "take the helm: press W" over
  // the map. The first W (or Up) takes the helm (team 0's first ship unless one was chosen)
  // and plays; Play in the controls watches instead.
  void draw_start_prompt(float scale) {
    ArenaUi& u = ui_;
    bnb::ArenaLabSettings& s = u.lab;
    if (s.source != bnb::ArenaSource::live || s.playing || u.sim.step != 0 || u.sim.done) return;
    if (arena_helm_start_pressed()) {
      s.helm = ship_to_fly();
      if (s.selected < 0) s.selected = s.helm;
      s.playing = true;
      return;
    }
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    ImFont* font = ImGui::GetFont();
    const float small = ImGui::GetFontSize();
    const char* head = T("arena.start_prompt");
    const char* sub = T("arena.start_prompt_sub");
    // The headline at 1.8 times the text size, smaller on a narrow map (UI scale 2) so the
    // box stays inside the map, but never below the text size.
    const float room = hi.x - lo.x - 48.0f * scale;
    float big = small * 1.8f;
    ImVec2 hs = font->CalcTextSizeA(big, FLT_MAX, 0.0f, head);
    if (hs.x > room && hs.x > 0.0f) {
      big = std::max(small, big * room / hs.x);
      hs = font->CalcTextSizeA(big, FLT_MAX, 0.0f, head);
    }
    const float wrap = std::min(hi.x - lo.x - 40.0f * scale, 520.0f * scale);
    const ImVec2 ss = font->CalcTextSizeA(small, FLT_MAX, wrap, sub);
    const float box_w = std::max(hs.x, ss.x) + 32.0f * scale;
    const float box_h = hs.y + ss.y + 36.0f * scale;
    // In the half of the map away from the ship W will fly (the helm slot, else team 0's
    // first ship alive), so the prompt never hides the player's own ship.
    const int fly = ship_to_fly();
    const bool ship_low =
        fly >= 0 && u.sim.ships[fly].pos.y > bnb::kWorldH * 0.5;  // y grows downwards
    const float cy =
        ship_low ? lo.y + box_h * 0.5f + 24.0f * scale : hi.y - box_h * 0.5f - 24.0f * scale;
    const ImVec2 c((lo.x + hi.x) * 0.5f, cy);
    const ImVec2 b0(c.x - box_w * 0.5f, c.y - box_h * 0.5f),
        b1(c.x + box_w * 0.5f, c.y + box_h * 0.5f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(b0, b1, dark_ ? IM_COL32(10, 14, 24, 225) : IM_COL32(250, 250, 245, 235),
                      8.0f * scale);
    dl->AddRect(b0, b1, dark_ ? IM_COL32(255, 215, 80, 255) : IM_COL32(150, 90, 0, 255),
                8.0f * scale, 0, 2.0f * scale);
    dl->AddText(font, big, ImVec2(c.x - hs.x * 0.5f, b0.y + 12.0f * scale),
                dark_ ? IM_COL32(255, 215, 80, 255) : IM_COL32(150, 90, 0, 255), head);
    dl->AddText(font, small, ImVec2(c.x - ss.x * 0.5f, b0.y + 24.0f * scale + hs.y),
                dark_ ? IM_COL32(230, 230, 230, 255) : IM_COL32(30, 30, 30, 255), sub, nullptr,
                wrap);
  }

  ArenaUi ui_;
  ViewRect view_rect_;               // the map, where it was last drawn
  bool dark_ = true;                 // theme of the current frame (team colours in tables)
  const AppContext* ctx_ = nullptr;  // set at the start of draw(): the interface language
  const char* T(const char* key) const { return ctx_->tr(key); }
  std::string L(const char* key) const { return tr_id(*ctx_, key); }
};

}  // namespace

std::unique_ptr<Panel> make_arena_panel() {
  return std::make_unique<ArenaPanel>();
}

}  // namespace poslab::app
