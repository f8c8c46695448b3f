// The desktop app's headless modes (headless_modes.hpp): --record, --export-*,
// --click-fuzz and --check, each drawn by the real frame code through the Frontend.
#include "app/headless_modes.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "app/app_state.hpp"
#include "app/click_fuzz.hpp"
#include "app/export/export_files.hpp"
#include "app/frontend.hpp"
#include "app/gfx/gl.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets/recorder.hpp"
#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::app {

// --record shows the lab moving: a preset that does not say `play` plays (the arena's
// default match otherwise waits for "take the helm" and the video is one still picture).
// The experts fly every ship unless the preset names a helm. A bad preset is returned as it
// is: opening it puts its error on the banner.
std::string playing_preset(const std::string& preset) {
  try {
    const std::string lab = poslab::preset_lab(preset);
    const auto keys = poslab::PresetReader(preset, lab).keys();
    if (std::find(keys.begin(), keys.end(), "play") != keys.end()) return preset;
    return preset + (preset.find('?') == std::string::npos ? "?" : "&") + "play=1";
  } catch (const poslab::Error&) {
    return preset;
  }
}

// --record: N video frames of the active lab's view into opt.record. Returns the exit code.
int run_recording(Frontend& fe, AppState& state, const StartOptions& opt) {
  std::string lab = state.settings().active_lab;
  try {
    if (!opt.panel.empty())
      lab = opt.panel;
    else if (!opt.preset.empty())
      lab = poslab::preset_lab(opt.preset);
  } catch (const poslab::Error&) {  // a bad preset is on the banner already
  }
  Panel* panel = state.find_panel(lab);
  Recorder* rec = panel ? panel->recorder() : nullptr;
  if (!rec) {
    std::fprintf(stderr,
                 "poslab: --record: the lab '%s' cannot record; open the arena or the dream lab "
                 "(--preset 'arena?seed=7' or --preset dreams)\n",
                 lab.c_str());
    return 2;
  }
  std::error_code ec;
  if (!opt.overwrite && std::filesystem::exists(opt.record, ec)) {
    std::fprintf(stderr, "poslab: --record: %s exists; add --overwrite to replace it\n",
                 opt.record.c_str());
    return 2;
  }
  RecordOptions ro = opt.record_options;
  ro.path = opt.record;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    rec->start(ro);
  } catch (const poslab::Error& e) {
    std::fprintf(stderr, "poslab: --record: %s\n", e.what());
    return 2;
  }
  // A dream frame waits for its worker step: up to two rendered frames per video frame.
  for (int i = 0; i < 4 * opt.frames + 20 && rec->frames() < opt.frames; ++i) {
    fe.frame();
    if (rec->frames() >= opt.frames && !opt.screenshot.empty()) {
      try {  // the lab while it records: counter, Stop, the encoder's progress
        fe.screenshot(opt.screenshot);
      } catch (const poslab::Error& e) {
        std::fprintf(stderr, "poslab: %s\n", e.what());
      }
    }
    fe.present();
  }
  const int got = rec->frames();
  if (got < opt.frames) {
    rec->cancel();
    std::fprintf(stderr, "poslab: --record: only %d of %d frames were captured; nothing written\n",
                 got, opt.frames);
    return 1;
  }
  try {
    const RecordingOutcome r = rec->finish_blocking();
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "{\"file\": \"%s\", \"bytes\": %zu, \"frames\": %d, \"width\": %d, \"height\": %d, "
        "\"distinct_frames\": %d, \"fps\": %d, \"video_s\": %.2f, \"encode_s\": %.2f, "
        "\"total_s\": %.2f}\n",
        r.path.c_str(), r.bytes, r.frames, r.width, r.height, r.distinct_frames, ro.fps,
        r.video_seconds, r.encode_seconds, total);
    if (r.frames > 1 && r.distinct_frames <= 1)
      std::fprintf(stderr,
                   "poslab: --record: all %d frames show the same picture (the lab did not move; "
                   "add play=1 to the preset)\n",
                   r.frames);
  } catch (const poslab::Error& e) {
    std::fprintf(stderr, "poslab: --record: %s\n", e.what());
    return 2;
  }
  for (const auto& e : state.errors())
    std::fprintf(stderr, "poslab: banner: %s\n", poslab::terminal_text(e).c_str());
  return 0;
}

// The headless --export-* outputs follow --record's rule: an existing file is replaced only
// with --overwrite. Checked before any frame runs, so nothing is written when one is refused.
// Returns 0, or 2 with the file named on stderr.
int refuse_existing_exports(const StartOptions& opt) {
  if (opt.overwrite) return 0;
  const std::pair<const char*, const std::string*> outputs[] = {
      {"--export-picture", &opt.export_picture},
      {"--export-numbers", &opt.export_numbers},
      {"--export-json", &opt.export_json},
      {"--export-command", &opt.export_command}};
  for (const auto& [flag, path] : outputs) {
    std::error_code ec;
    if (!path->empty() && std::filesystem::exists(*path, ec)) {
      std::fprintf(stderr, "poslab: %s: %s exists; add --overwrite to replace it\n", flag,
                   path->c_str());
      return 2;
    }
  }
  return 0;
}

// The headless --export-* hooks, on the active lab after the frames. Prints what was
// written and how long it took; returns 0, or 2 if an export failed (the reason on stderr).
int run_exports(Frontend& fe, AppState& state, const StartOptions& opt) {
  using Clock = std::chrono::steady_clock;
  Panel* p = state.find_panel(state.settings().active_lab);
  if (!p) return 0;
  int code = 0;
  const auto ms = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  if (!opt.export_numbers.empty() || !opt.export_json.empty()) {
    const auto t0 = Clock::now();
    try {
      write_lab_numbers(*p, opt.export_numbers, opt.export_json);
      std::fprintf(stderr, "poslab: exported numbers of %s in %.1f ms\n", p->id(), ms(t0));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "poslab: export numbers of %s: %s\n", p->id(), e.what());
      code = 2;
    }
  }
  if (!opt.export_command.empty()) {  // exactly what "Copy the command" puts on the clipboard
    const std::string command = state.active_cli_command();
    try {
      if (command.empty())
        throw poslab::InputError(std::string(p->id()) +
                                 " has no poslab-cli command: " + p->cli_note().text);
      if (const poslab::Message why = export_path_problem(opt.export_command); !why.empty())
        throw poslab::FileError(opt.export_command, why.text);
      poslab::write_file_atomically(opt.export_command, command);
      std::fprintf(stderr, "poslab: exported the command of %s\n", p->id());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "poslab: export command: %s\n", e.what());
      code = 2;
    }
  }
  if (!opt.export_picture.empty()) {
    const auto t0 = Clock::now();
    const std::string error =
        fe.export_picture({opt.export_picture, opt.export_scale, "PosLab  " + p->preset()});
    if (error.empty()) {
      std::fprintf(stderr, "poslab: exported picture of %s at %dx in %.1f ms\n", p->id(),
                   opt.export_scale, ms(t0));
    } else {
      std::fprintf(stderr, "poslab: export picture: %s\n", error.c_str());
      code = 2;
    }
  }
  return code;
}

// --click-fuzz: opt.click_fuzz random actions on the active lab, drawn by the real frame
// code with the user's rules (jobs not waited for, pictures rendered when Save asks). Quit
// is never acted on; a lab closed or left is opened again every 32 actions. Files can only
// be written inside the working folder (export_files.hpp). Prints the counts as JSON; an
// ImGui assertion aborts the process (the verdict of tests/gui/click_fuzz_test.sh).
int run_click_fuzz(Frontend& fe, AppState& state, const StartOptions& opt) {
  const std::string lab = opt.panel.empty() ? state.settings().active_lab : opt.panel;
  ClickFuzz fuzz(opt.fuzz_seed, opt.click_fuzz);
  fe.set_fuzz(&fuzz);
  const auto t0 = std::chrono::steady_clock::now();
  long pictures = 0, quits = 0, returns = 0, last_return = 0;
  while (!fuzz.done()) {
    fe.frame();
    if (fuzz.counts().frames % 16 == 0) fe.present();  // the frames that were rendered
    if (auto req = state.take_picture_request()) {
      fe.export_picture(*req);
      ++pictures;
    }
    quits += state.take_quit_request();
    const long done = fuzz.counts().actions();
    if (done - last_return >= 32) {
      last_return = done;
      if (state.settings().active_lab != lab) {
        state.select_lab(lab);
        ++returns;
      }
    }
  }
  fe.set_fuzz(nullptr);
  state.cancel_jobs();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ClickFuzzCounts& c = fuzz.counts();
  std::printf(
      "{\"lab\": \"%s\", \"seed\": %llu, \"actions\": %ld, \"clicks\": %ld, "
      "\"double_clicks\": %ld, \"right_clicks\": %ld, \"drags\": %ld, \"wheels\": %ld, "
      "\"keys\": %ld, \"texts\": %ld, \"frames\": %ld, \"pictures\": %ld, "
      "\"quits_ignored\": %ld, \"lab_reopened\": %ld, \"aborts\": 0, \"seconds\": %.1f}\n",
      lab.c_str(), static_cast<unsigned long long>(opt.fuzz_seed), c.actions(), c.clicks,
      c.double_clicks, c.right_clicks, c.drags, c.wheels, c.keys, c.texts, c.frames, pictures,
      quits, returns, seconds);
  return 0;
}

// The active lab's main view as it was on screen in the last frame: the part of its
// rectangle inside the window, in window pixels. The layout tests (gui_layout) hold it
// against a floor at each window size and UI scale.
void print_main_view(GLFWwindow* window, const AppState& state) {
  const ViewRect r = state.export_rect();
  int w = 0, h = 0;
  glfwGetWindowSize(window, &w, &h);
  const float vw = std::max(0.0f, std::min(r.x1, static_cast<float>(w)) - std::max(r.x0, 0.0f));
  const float vh = std::max(0.0f, std::min(r.y1, static_cast<float>(h)) - std::max(r.y0, 0.0f));
  std::fprintf(stderr, "poslab: main view: %.0f x %.0f px on screen (at %.0f,%.0f; window %dx%d)\n",
               vw, vh, r.x0, r.y0, w, h);
}

namespace {

// The lab's page: the shell's "##lab" child (app_state_draw.cpp), named "<parent>/##lab_<id>".
bool is_lab_page(const ImGuiWindow* w) {
  const char* slash = std::strrchr(w->Name, '/');
  return slash && std::strncmp(slash, "/##lab_", 7) == 0;
}

// A window's name without its parents' ("##kv_view" for ".../##lab_1234/##kv_view_5678").
std::string short_name(const ImGuiWindow* w) {
  const char* slash = std::strrchr(w->Name, '/');
  std::string n = slash ? slash + 1 : w->Name;
  if (const auto u = n.rfind('_'); u != std::string::npos && n.size() - u == 9) n.resize(u);
  return n;
}

}  // namespace

std::vector<std::string> lab_layout_problems() {
  std::vector<std::string> out;
  for (ImGuiWindow* w : GImGui->Windows) {
    if (!w->Active || w->Hidden || !(w->Flags & ImGuiWindowFlags_ChildWindow)) continue;
    const ImGuiWindow* page = nullptr;  // w itself or its ancestor
    for (const ImGuiWindow* p = w; p && (p->Flags & ImGuiWindowFlags_ChildWindow);
         p = p->ParentWindow)
      if (is_lab_page(p)) page = p;
    if (!page) continue;
    // Two scroll bars for one direction: w scrolls inside a window (up to the page) that
    // scrolls the same way.
    for (const ImGuiWindow* p = w->ParentWindow; w != page && p; p = p->ParentWindow) {
      if ((w->ScrollbarY && p->ScrollbarY) || (w->ScrollbarX && p->ScrollbarX))
        out.push_back(short_name(w) + " scrolls " +
                      (w->ScrollbarY && p->ScrollbarY ? "down" : "across") + " inside " +
                      short_name(p) + ", which scrolls too (two scroll bars)");
      if (p == page) break;
    }
    // Content past the window's edge with no scroll bar to reach it (a title, a map's edge).
    if (w->ScrollMax.y > 1.0f && !w->ScrollbarY)
      out.push_back(short_name(w) + ": " + std::to_string(static_cast<int>(w->ScrollMax.y)) +
                    " px of its content cut off below, no scroll bar");
    if (w->ScrollMax.x > 1.0f && !w->ScrollbarX)
      out.push_back(short_name(w) + ": " + std::to_string(static_cast<int>(w->ScrollMax.x)) +
                    " px of its content cut off at the right, no scroll bar");
  }
  return out;
}

// Runs every panel with its defaults, its check presets and any extra presets for a few
// frames each and checks its state. Prints one line per failure; returns the count.
int run_checks(Frontend& fe, AppState& state, const std::string& presets_file) {
  // The data folder, then a broken installation first: each missing lessons catalog,
  // interface text or shipped model is one FAIL line naming it, and no panel is run (each
  // would only fail for it).
  std::printf("data folder: %s (%s)\n", poslab::io::data_dir().c_str(),
              poslab::io::data_dir_rule().c_str());
  if (const std::vector<std::string> missing = poslab::io::data_problems(); !missing.empty()) {
    for (const std::string& m : missing) std::printf("FAIL data: %s\n", m.c_str());
    return static_cast<int>(missing.size());
  }
  std::vector<std::pair<std::string, std::string>> jobs;  // (panel id, preset)
  // Banners of the start (an interface-text file that cannot be read, say) fail it too.
  int bad_lines = 0;  // lines of the presets file that name no lab, and start banners
  for (const std::string& e : state.errors()) {
    std::printf("FAIL start: %s\n", poslab::terminal_text(e).c_str());
    ++bad_lines;
  }
  for (auto& p : state.panels()) {
    jobs.emplace_back(p->id(), p->id());
    for (const auto& s : p->check_presets()) jobs.emplace_back(p->id(), s);
  }
  if (!presets_file.empty()) {
    std::ifstream in(presets_file);
    if (!in) {
      std::fprintf(stderr, "poslab --check: cannot open presets file %s\n", presets_file.c_str());
      return 1;
    }
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || line[0] == '#') continue;
      try {
        jobs.emplace_back(poslab::preset_lab(line), line);
      } catch (const std::exception& e) {
        std::printf("FAIL %s:%d: %s\n", presets_file.c_str(), number, e.what());
        ++bad_lines;
      }
    }
  }
  int failures = bad_lines;
  for (const auto& job : jobs) {
    const std::string& id = job.first;  // clang 14 cannot capture structured bindings
    const std::string& preset = job.second;
    auto* panel = state.find_panel(id);
    auto fail = [&](const std::string& why) {
      std::printf("FAIL panel=%s preset=%s: %s\n", id.c_str(), preset.c_str(), why.c_str());
      ++failures;
    };
    if (!panel) {
      fail("no panel for this lab");
      continue;
    }
    state.clear_errors();
    try {
      panel->load_preset(preset);
      panel->trust_named_files();  // presets given to --check come from the user
    } catch (const std::exception& e) {
      fail(std::string("load_preset threw: ") + e.what());
      continue;
    }
    state.select_lab(id);
    for (int i = 0; i < 6; ++i) {
      fe.frame();
      fe.present();
    }
    if (!state.errors().empty()) fail("error banner: " + state.errors().front());
    if (const std::string bad = panel->check_state(); !bad.empty()) fail("check_state: " + bad);
    // The preset the panel reports must restore the same state.
    const std::string again = panel->preset();
    try {
      panel->load_preset(again);
      if (panel->preset() != again)
        fail("preset does not round-trip: " + again + " -> " + panel->preset());
    } catch (const std::exception& e) {
      fail("own preset does not load: " + again + ": " + e.what());
    }
    std::printf("ok   panel=%s preset=%s\n", id.c_str(), preset.c_str());
  }
  std::printf("%zu checks, %d failures\n", jobs.size() + static_cast<size_t>(bad_lines), failures);
  return failures;
}

}  // namespace poslab::app
