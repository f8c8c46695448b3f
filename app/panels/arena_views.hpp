// The arena's UI state and its drawing pieces (app/panels/arena_panel.cpp holds the panel:
// the live simulation, the dataset file, the controls and the map). The views draw the ship
// table and the selected ship's inspector from core/bnb's features.
#pragma once
#include <array>
#include <memory>
#include <string>

#include "app/app_context.hpp"
#include "app/file_approval.hpp"
#include "app/file_picker.hpp"
#include "app/gfx/arena_view.hpp"
#include "app/widgets/recorder.hpp"
#include "core/bnb/arena_lab.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_sim.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::app {

// The panel's UI state.
struct ArenaUi {
  bnb::ArenaLabSettings lab;
  // Live simulation and what it was started with.
  bnb::SimState sim;
  bnb::Behaviour behaviour;
  bool live_ready = false;
  int applied_seed = -1, applied_team0 = -1, applied_team1 = -1, applied_policy = -1;
  ArenaTrailHistory trails;
  bnb::JointAction last_actions{};
  std::array<double, 2> returns{0, 0};
  double step_accum = 0;
  // Dataset file.
  std::unique_ptr<io::BnbDatasetReader> reader;
  std::string opened_path;      // path the reader (or the last failed attempt) belongs to
  FileApproval confirmed_file;  // a path the user chose or approved; a preset naming any other
                                // file waits for the user's approval before it is opened
  bnb::EpisodeRecord episode;
  int loaded_episode = -1;
  std::array<char, 1024> path_buf{};
  double row_accum = 0;
  // Drawing.
  ArenaView map;
  ArenaFrame view;
  int inspector_rows = -1;          // relational rows shown for the selected ship (check_state)
  bnb::Token inspector_token{};     // the selected ship's state vector as last drawn
  int helm_lost_step = -1;          // agent step at which the helm ship died (play paused), -1
  bool controls_collapsed = false;  // control column folded to a strip (small windows)
  FilePicker picker;                // "Browse..." for the dataset path
  bool helm_keys_active = false;    // keyboard steers the helm ship (map hovered or window focused)
  Recorder recorder{"arena"};       // the map to an animated WebP
};

// The ship table: slot, status, health, power and the current action; a click selects a ship.
void arena_ship_list(const AppContext& ctx, ArenaUi& u, float scale, bool dark);
// The selected ship's token values and relational features (u.inspector_token and
// u.inspector_rows: what was drawn).
void arena_inspector(const AppContext& ctx, ArenaUi& u, bool dark);

}  // namespace poslab::app
