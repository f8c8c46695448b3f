// The dream lab's UI state and its drawing pieces (app/panels/dreams_panel.cpp holds the
// panel: the session, the worker and the controls). The views draw what core/wm/dream_lab
// computed: the maps, the error curves, the token strip, attention, the variants' curves.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/file_approval.hpp"
#include "app/file_picker.hpp"
#include "app/gfx/arena_view.hpp"
#include "app/widgets/attention_maps.hpp"
#include "app/widgets/background_job.hpp"
#include "app/widgets/dream_runner.hpp"
#include "app/widgets/recorder.hpp"
#include "app/widgets/train_view.hpp"
#include "core/common/message.hpp"
#include "core/wm/dream_lab.hpp"

namespace poslab::app {

struct DreamsUi {
  wm::DreamLabSettings lab;
  // Session: the runner holds the timeline and lends the engine to its worker.
  DreamRunner runner;
  std::optional<wm::DreamLabSession> applied;  // what the timeline was started with
  double step_accum = 0;
  int pending_restart = -1;  // "Restart dream here" asked at this frame, waiting for the worker
  // Model: the loaded prototype (cloned into each session) and where it came from. A
  // checkpoint is read on a worker (a big or hostile file never freezes the window) and a
  // file a link or pasted preset names waits for the user's approval first.
  std::unique_ptr<wm::DreamModel> model;
  std::string model_path, model_error;
  BackgroundJob<std::unique_ptr<wm::DreamModel>> model_job;
  FileApproval confirmed_model;  // the checkpoint the user chose, trusted or approved
  bool model_waiting = false;    // lab.model waits for approval (not read)
  bool train_autostart = false;  // the user's own command-line preset asked for a run
  // Dataset start: the path field, the picker, and the file the user chose or approved
  // (a preset naming another file waits for approval before it is opened).
  std::string path_edit;
  FilePicker picker;
  FileApproval confirmed_file;
  std::string info_file;  // file `file_episodes` belongs to
  long long file_episodes = -1;
  // Variants compared past the context (a worker job).
  BackgroundJob<wm::DreamComparison> compare_job;
  wm::DreamComparison comparison;
  std::optional<wm::DreamLabSession> compared;  // the session the comparison was started for
  std::string compare_note;
  // Drawing.
  ArenaView real_view, dream_view;
  AttentionMapTextures attention_tex;
  TrainView train;
  bool controls_folded = false;
  bool scroll_to_train = false;   // "train" was just ticked: scroll its panel into sight
  int metric = 0;                 // error plot: which ErrorSummary field
  std::vector<double> curves[3];  // error plot: dream, copy last, constant velocity
  int ships_drawn = 0, strip_mismatch = 0, strip_steps = -1;
  bool helm_keys = false;
  double steps_per_s = 0;
  int frames_in_session = 0;  // frames drawn since the session started (check_state)
  // Why `poslab-cli wm dream --preset` cannot replay this session ("" = it can): the helm
  // changed during the dream, a restart the preset cannot say, a start file that failed.
  Message replay_note;
  int helm_at_start = -1;  // helm and follow of the session's first dream step
  bool follow_at_start = true;
  Recorder recorder{"dream"};  // the maps to an animated WebP
};

// Timeline step shown (the cursor, or the newest).
int dreams_shown_frame(const DreamsUi& u);
// A rule, then a heading (ImGui 1.86 has no SeparatorText).
void dreams_section(const char* text);
// "label###id": the translated label of `key` with an ID that stays the same in any language.
std::string dreams_label(const AppContext& ctx, const char* key, const char* id);

void dreams_maps(AppContext& ctx, DreamsUi& u, float side);
void dreams_error_plot(AppContext& ctx, DreamsUi& u);
void dreams_strip(AppContext& ctx, DreamsUi& u);
void dreams_attention(AppContext& ctx, DreamsUi& u);
// The comparison of the position variants (starts its worker when the session changed).
void dreams_compare(AppContext& ctx, DreamsUi& u, const wm::DreamLabSession& session);

}  // namespace poslab::app
