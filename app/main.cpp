// PosLab's GUI entry point: parse the command line, open the window (or explain why it
// cannot), run the frame loop, and the headless modes used by tests and docs:
//   --panel/--preset  open a lab in a given state
//   --frames N [--screenshot out.png] [--frame-times [--live-jobs]]   render N frames, then
//                                exit (--live-jobs: workers are not waited for, as for a user)
//   --check [--presets-file F]   run every panel with its check presets; exit 1 on failure
//   --record out.webp --frames N [--record-fps F]   record N video frames of the arena or
//                                the dream lab (the lab --preset opened), then exit
//   --settings, --test-fault LAB:KIND   test hooks (settings in headless runs, injected faults)
//   --export-picture/--export-numbers/--export-json/--export-command   the Share popup's
//                                exports and its copied command, headless (--overwrite to replace)
//   --click-fuzz N [--fuzz-seed S]   N random clicks, drags, wheel turns and keys on the
//                                active lab (app/click_fuzz.hpp); an ImGui assertion aborts
//   poslab:LAB?...   a preset link (positional): opens the lab as if the preset were pasted
// Sections: options | GLFW callbacks | Frontend (window, ImGui, frames) | headless modes
// (--record, --export-*, --check, --click-fuzz) | main (command line, window, frame loop).
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "app/app_frame.hpp"
#include "app/app_state.hpp"
#include "app/capture.hpp"
#include "app/click_fuzz.hpp"
#include "app/export/export_files.hpp"
#include "app/export/link_handoff.hpp"
#include "app/gfx/fill_count.hpp"
#include "app/gfx/font_texture.hpp"
#include "app/gfx/gl.hpp"
#include "app/panels/panels.hpp"
#include "app/quit_signals.hpp"
#include "app/widgets/recorder.hpp"
#include "app/window_icon.hpp"
#include "core/common/atomic_file.hpp"
#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"
#include "io/lessons/lesson_files.hpp"

namespace {

using poslab::app::AppState;

// ---- options ----------------------------------------------------------------------------

struct Options {
  std::string panel;
  std::string preset;
  int frames = 0;  // 0 = run until the user quits
  std::string screenshot;
  bool frame_times = false;
  bool check = false;
  std::string presets_file;
  int width = 0, height = 0;
  std::string theme;               // "", "dark" or "light"
  std::string language;            // "", "en" or "zh"
  float scale = 0;                 // 0 = settings / monitor
  bool settings = false;           // headless runs: load and save settings like a normal start
  bool live_input = false;         // headless runs: keep the real mouse (xdotool tests)
  bool live_jobs = false;          // headless runs: background jobs not waited for (frame times)
  std::string test_fault;          // "<lab>:throw" or "<lab>:abort"
  std::string untrusted_preset;    // opened as if pasted: files it names wait for approval
  std::string screenshot_at_quit;  // interactive runs: PNG of the last frame (xdotool tests)
  std::string record;              // animated WebP of the active lab's view (with --frames)
  poslab::app::RecordOptions record_options;
  bool overwrite = false;  // --record and --export-* may replace an existing file
  std::string link;        // a poslab: preset link (desktop handler, chat, slides)
  std::string export_picture, export_numbers, export_json;  // after --frames: Share's exports
  std::string export_command;  // after --frames: the text "Copy the command" copies
  int export_scale = 1;        // picture at 1x or 2x
  long click_fuzz = 0;         // random user actions on the active lab, then exit
  uint64_t fuzz_seed = 1;      // their seed: the same seed, the same run
};

// ---- GLFW callbacks ---------------------------------------------------------------------

void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "poslab: GLFW error %d: %s\n", code, text);
}

// Set by GLFW callbacks (installed before ImGui's, which chain to them): some input or
// window event arrived since the flag was cleared.
bool g_event_seen = false;
void note_event(GLFWwindow*) {
  g_event_seen = true;
}
void install_event_callbacks(GLFWwindow* w) {
  glfwSetCursorPosCallback(w, [](GLFWwindow* x, double, double) { note_event(x); });
  glfwSetMouseButtonCallback(w, [](GLFWwindow* x, int, int, int) { note_event(x); });
  glfwSetScrollCallback(w, [](GLFWwindow* x, double, double) { note_event(x); });
  glfwSetKeyCallback(w, [](GLFWwindow* x, int key, int, int action, int mods) {
    note_event(x);
    // Ctrl+Q quits at once, without waiting for a (possibly slow) frame to see it.
    if (key == GLFW_KEY_Q && action == GLFW_PRESS && (mods & GLFW_MOD_CONTROL))
      glfwSetWindowShouldClose(x, GLFW_TRUE);
  });
  glfwSetCharCallback(w, [](GLFWwindow* x, unsigned) { note_event(x); });
  glfwSetCursorEnterCallback(w, [](GLFWwindow* x, int) { note_event(x); });
  glfwSetWindowFocusCallback(w, [](GLFWwindow* x, int) { note_event(x); });
  glfwSetWindowSizeCallback(w, [](GLFWwindow* x, int, int) { note_event(x); });
  glfwSetFramebufferSizeCallback(w, [](GLFWwindow* x, int, int) { note_event(x); });
  glfwSetWindowRefreshCallback(w, note_event);
  glfwSetWindowCloseCallback(w, note_event);
  glfwSetWindowContentScaleCallback(w, [](GLFWwindow* x, float, float) { note_event(x); });
}

// ---- Frontend (window, ImGui, frames) ---------------------------------------------------

class Frontend {
 public:
  Frontend(GLFWwindow* w, AppState& s, bool headless, bool park_mouse)
      : window_(w), state_(s), headless_(headless), park_mouse_(park_mouse) {}
  // --click-fuzz: its input replaces the pointer and keys in every frame but a capture's.
  void set_fuzz(poslab::app::ClickFuzz* f) { fuzz_ = f; }

  // Interactive mode: sleeps until input arrives or a frame is wanted (animation, a job
  // running, settling after input). Returns false if it woke without reason to draw (the
  // timeout lets autosave run), so an idle app draws nothing at all.
  bool wait_for_work(double timeout_s) {
    if (poslab::app::frame_wanted(state_, false)) {
      g_event_seen = false;
      glfwPollEvents();
      // Input that arrives while requested frames run settles as well: two frames after the
      // one that sees it (tests wait for those on the POSLAB_WIDGET_RECTS hook).
      if (g_event_seen) state_.request_frames(2);
      return true;
    }
    g_event_seen = false;
    glfwWaitEventsTimeout(timeout_s);
    return poslab::app::frame_wanted(state_, g_event_seen);
  }

  // One frame: UI and render (into `target` at `k` times the window's size, for pictures).
  // Returns the frame's CPU time in ms.
  double frame(int k = 1, unsigned target = 0) {
    if (headless_) glfwPollEvents();  // interactive mode polled or waited in wait_for_work
    const auto t0 = std::chrono::steady_clock::now();
    // --click-fuzz: the frame's logic is what can fail; 15 of 16 frames skip the raster work.
    const bool raster = !(fuzz_ && !target && ++fuzz_frames_ % 16 != 0);
    poslab::app::draw_app_frame(state_, window_, content_scale(), k, target, raster,
                                [&](ImGuiIO& io) {
                                  // Captures and checks: no pointer over the window, so no
                                  // hover state or tooltip depends on where the virtual
                                  // display left its cursor.
                                  if (fuzz_ && !target)
                                    fuzz_->feed(io);
                                  else if (park_mouse_ || target)
                                    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
                                });
    if (!raster) return 0.0;
    glFinish();  // so the measured time includes the GPU (software) rendering
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    // Counted after the clock stops: the measurement is not part of the frame it measures.
    if (count_fill_) last_fill_ = poslab::app::count_fill(*ImGui::GetDrawData(), list_fill_);
    if (ImGui::GetIO().WantSaveIniSettings) ImGui::GetIO().WantSaveIniSettings = false;
    return ms;
  }
  // --frame-times: count the pixels each frame's triangles cover (fill_count.hpp); with
  // POSLAB_FILL_LISTS set, per draw list too (printed for the last frame).
  void count_fill(bool on) {
    count_fill_ = on;
    list_fill_ = on && std::getenv("POSLAB_FILL_LISTS");
  }
  const poslab::app::FillCount& last_fill() const { return last_fill_; }
  void present() {
    glfwSwapBuffers(window_);
    // Test hook: with POSLAB_READY_FILE=<path>, that file is created once the first frames
    // are on screen, so GUI tests click when the layout exists instead of after a guess.
    if (++frames_presented_ == 3)
      if (const char* ready = std::getenv("POSLAB_READY_FILE")) std::ofstream(ready) << "ready\n";
  }

  // The active lab's main view at k times the screen resolution, with its caption, as PNG
  // (AppState::export_picture, drawn with this frontend's frames). Returns "" or why not.
  std::string export_picture(const poslab::app::PictureRequest& req) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    return state_.export_picture(req, w, h, [&](int k, unsigned fbo) { frame(k, fbo); });
  }
  void screenshot(const std::string& path) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    poslab::app::write_screenshot(path, w, h);
  }
  float content_scale() const {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window_, &x, &y);
    return x;
  }

 private:
  GLFWwindow* window_;
  AppState& state_;
  bool headless_;
  bool park_mouse_;
  bool count_fill_ = false, list_fill_ = false;
  poslab::app::FillCount last_fill_;
  long frames_presented_ = 0;
  poslab::app::ClickFuzz* fuzz_ = nullptr;
  long fuzz_frames_ = 0;
};

// ---- headless modes (--record, --export-*, --check) -------------------------------------

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
int run_recording(Frontend& fe, AppState& state, const Options& opt) {
  using poslab::app::Recorder;
  std::string lab = state.settings().active_lab;
  try {
    if (!opt.panel.empty())
      lab = opt.panel;
    else if (!opt.preset.empty())
      lab = poslab::preset_lab(opt.preset);
  } catch (const poslab::Error&) {  // a bad preset is on the banner already
  }
  poslab::app::Panel* panel = state.find_panel(lab);
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
  poslab::app::RecordOptions ro = opt.record_options;
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
    const poslab::app::RecordingOutcome r = rec->finish_blocking();
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
int refuse_existing_exports(const Options& opt) {
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
int run_exports(Frontend& fe, AppState& state, const Options& opt) {
  using Clock = std::chrono::steady_clock;
  poslab::app::Panel* p = state.find_panel(state.settings().active_lab);
  if (!p) return 0;
  int code = 0;
  const auto ms = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  if (!opt.export_numbers.empty() || !opt.export_json.empty()) {
    const auto t0 = Clock::now();
    try {
      poslab::app::write_lab_numbers(*p, opt.export_numbers, opt.export_json);
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
      if (const poslab::Message why = poslab::app::export_path_problem(opt.export_command);
          !why.empty())
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
int run_click_fuzz(Frontend& fe, AppState& state, const Options& opt) {
  const std::string lab = opt.panel.empty() ? state.settings().active_lab : opt.panel;
  poslab::app::ClickFuzz fuzz(opt.fuzz_seed, opt.click_fuzz);
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
  const poslab::app::ClickFuzzCounts& c = fuzz.counts();
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
  const poslab::app::ViewRect r = state.export_rect();
  int w = 0, h = 0;
  glfwGetWindowSize(window, &w, &h);
  const float vw = std::max(0.0f, std::min(r.x1, static_cast<float>(w)) - std::max(r.x0, 0.0f));
  const float vh = std::max(0.0f, std::min(r.y1, static_cast<float>(h)) - std::max(r.y0, 0.0f));
  std::fprintf(stderr, "poslab: main view: %.0f x %.0f px on screen (at %.0f,%.0f; window %dx%d)\n",
               vw, vh, r.x0, r.y0, w, h);
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

}  // namespace

// ---- main (command line, window, frame loop) --------------------------------------------

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Keep freed big blocks in the heap instead of returning them to the system: a lab step
  // allocates (T, T) matrices of 4 MB each, and faulting fresh pages in again cost more than
  // the computation itself (attention step at 1024 tokens on a VM: 335 ms, 53 ms with this;
  // docs/performance.md). At most 512 MB of freed memory is kept for reuse.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  Options opt;
  CLI::App cli{"PosLab: see why position encodings in transformers work"};
  cli.set_version_flag("--version", "poslab " POSLAB_VERSION);
  cli.add_option("--panel", opt.panel, "lab to show first (" + poslab::app::panel_id_list() + ")");
  cli.add_option("--preset", opt.preset, "open the lab named by this preset in its state");
  cli.add_option("--frames", opt.frames, "render this many frames, then exit")
      ->check(CLI::Range(1, 1000000));
  cli.add_option("--screenshot", opt.screenshot, "write the last frame as PNG (needs --frames)");
  cli.add_flag("--frame-times", opt.frame_times, "print frame-time statistics (with --frames)");
  cli.add_option("--record", opt.record,
                 "record the arena's or dream lab's view to this animated WebP (--frames video "
                 "frames, default 250), then exit");
  cli.add_option("--record-fps", opt.record_options.fps, "video frames per second of --record")
      ->check(CLI::IsMember({10, 15, 25, 30}));
  cli.add_option("--record-width", opt.record_options.max_width,
                 "largest video width in px (wider views are scaled down)")
      ->check(CLI::Range(16, 4096));
  cli.add_flag("--record-lossless", opt.record_options.lossless, "lossless video (larger)");
  cli.add_flag("--overwrite", opt.overwrite,
               "--record and --export-* may replace an existing file");
  cli.add_flag("--check", opt.check, "headless self-check of every panel; exit 1 on failure");
  cli.add_option("--presets-file", opt.presets_file,
                 "with --check: also run these presets (one per line)");
  cli.add_option("--theme", opt.theme, "colour theme for this run")
      ->check(CLI::IsMember({"dark", "light"}));
  cli.add_option("--language", opt.language, "interface language for this run")
      ->check(CLI::IsMember({"en", "zh"}));
  cli.add_option("--scale", opt.scale, "UI scale for this run (1 = 96 dpi)")
      ->check(CLI::Range(0.5, 3.0));
  cli.add_flag("--settings", opt.settings,
               "headless runs: load and save settings as a normal start does (tests)")
      ->group("Testing");
  cli.add_flag("--live-input", opt.live_input,
               "headless runs: keep the real mouse instead of parking it (tests)")
      ->group("Testing");
  cli.add_flag("--live-jobs", opt.live_jobs,
               "headless runs: background jobs run as for a user, not waited for each frame "
               "(the frames a user sees, for --frame-times)")
      ->group("Testing");
  cli.add_option("--test-fault", opt.test_fault,
                 "LAB:throw or LAB:abort: make LAB fail after drawing (tests)")
      ->group("Testing");
  cli.add_option("--untrusted-preset", opt.untrusted_preset,
                 "open this preset as if pasted: files it names wait for approval (tests)")
      ->group("Testing");
  cli.add_option("--click-fuzz", opt.click_fuzz,
                 "N random clicks, drags, wheel turns and keys on the active lab, then exit; "
                 "files are written only inside the working folder (tests)")
      ->check(CLI::Range(1L, 10000000L))
      ->group("Testing");
  cli.add_option("--fuzz-seed", opt.fuzz_seed, "seed of --click-fuzz (the same seed, the same run)")
      ->group("Testing");
  cli.add_option("--screenshot-at-quit", opt.screenshot_at_quit,
                 "interactive runs: write the window as PNG when quitting (tests)")
      ->group("Testing");
  cli.add_option("link", opt.link,
                 "a preset link, e.g. 'poslab:rope?dim=64': opens that lab in that state "
                 "(files it names wait for your approval)");
  cli.add_option("--export-picture", opt.export_picture,
                 "after --frames: the active lab's main view as PNG, with the preset as caption");
  cli.add_option("--export-scale", opt.export_scale, "--export-picture at 1x or 2x resolution")
      ->check(CLI::Range(1, 2));
  cli.add_option("--export-numbers", opt.export_numbers,
                 "after --frames: the numbers the active lab shows, as CSV tables");
  cli.add_option("--export-json", opt.export_json,
                 "after --frames: the same numbers as the JSON poslab-cli prints");
  cli.add_option("--export-command", opt.export_command,
                 "after --frames: the poslab-cli command the Share popup copies, as a text file");
  cli.add_option("--width", opt.width, "window width in pixels")->check(CLI::Range(320, 16384));
  cli.add_option("--height", opt.height, "window height in pixels")->check(CLI::Range(240, 16384));
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if ((!opt.screenshot.empty() || !opt.export_picture.empty() || !opt.export_numbers.empty() ||
       !opt.export_json.empty() || !opt.export_command.empty()) &&
      opt.frames == 0)
    opt.frames = 5;
  if (!opt.record.empty() && opt.frames == 0) opt.frames = 250;
  if (opt.record.empty() && !opt.check)
    if (const int refused = refuse_existing_exports(opt); refused) return refused;
  const bool headless = opt.frames > 0 || opt.check || opt.click_fuzz > 0;

  // A link while PosLab already runs: the running window opens it (app/export/link_handoff).
  if (!headless && !opt.link.empty()) {
    std::string why;
    const std::string socket = poslab::app::link_socket_path(&why);
    if (!why.empty()) std::fprintf(stderr, "poslab: %s\n", why.c_str());
    const auto h = poslab::app::link_handoff_send(socket, opt.link);
    if (h == poslab::app::Handoff::busy) {
      std::fprintf(stderr,
                   "poslab: the running PosLab window has %zu links waiting; open this one "
                   "again in a moment\n",
                   poslab::app::kLinkQueueMax);
      return 1;
    }
    if (h == poslab::app::Handoff::taken) {
      std::fprintf(stderr, "poslab: the running PosLab window opened the link\n");
      return 0;
    }
    if (h == poslab::app::Handoff::refused) {
      std::fprintf(stderr, "poslab: %s is not a poslab: link (poslab:LAB?key=value)\n",
                   opt.link.c_str());
      return 2;
    }
  }
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    const char* display = std::getenv("DISPLAY");
    std::fprintf(
        stderr,
        "poslab: cannot open a window: %s.\n"
        "  On a desktop, start it from a graphical session. Without a screen, run it under a\n"
        "  virtual display, e.g.:  xvfb-run -a -s \"-screen 0 1600x1000x24\" %s --frames 5 "
        "--screenshot out.png\n"
        "  Every computation is also available without a display: poslab-cli --help\n",
        display && *display ? "the display could not be opened (DISPLAY is set but unusable)"
                            : "no display (DISPLAY is not set)",
        argv[0]);
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);

  int exit_code = 0;
  {
    poslab::app::AppStateOptions aso;
    aso.headless = headless;
    aso.live_jobs = headless && (opt.live_jobs || opt.click_fuzz > 0);
    aso.use_settings = !headless || opt.settings;
    aso.lessons_dir = poslab::io::lessons_dir();
    AppState state(aso);
    const int w = opt.width ? opt.width : headless ? 1600 : state.settings().window_width;
    const int h = opt.height ? opt.height : headless ? 1000 : state.settings().window_height;
    GLFWwindow* window = glfwCreateWindow(w, h, "PosLab", nullptr, nullptr);
    if (!window) {
      std::fprintf(stderr,
                   "poslab: could not create an OpenGL 3.3 core window. Is Mesa installed "
                   "(libgl1-mesa-dri)? Under Xvfb use depth 24: -s \"-screen 0 1600x1000x24\".\n");
      glfwTerminate();
      return 1;
    }
    poslab::app::set_window_icon(window);
    glfwMakeContextCurrent(window);
    if (!gladLoadGL(glfwGetProcAddress)) {
      std::fprintf(stderr, "poslab: could not load OpenGL functions (glad).\n");
      glfwDestroyWindow(window);
      glfwTerminate();
      return 1;
    }
    glfwSwapInterval(1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // layout lives in our settings, never in the CWD
    install_event_callbacks(window);       // before ImGui's, which call them in turn
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    Frontend fe(window, state, headless, headless && !opt.live_input);
    if (!opt.theme.empty()) state.settings().dark_theme = opt.theme == "dark";
    if (opt.scale > 0) state.settings().ui_scale = opt.scale;
    if (!opt.language.empty()) state.set_language(opt.language);
    state.setup_style(fe.content_scale());

    if (!opt.test_fault.empty()) {
      const auto colon = opt.test_fault.find(':');
      const std::string lab = opt.test_fault.substr(0, colon);
      const std::string kind = colon == std::string::npos ? "" : opt.test_fault.substr(colon + 1);
      if (!state.find_panel(lab) || (kind != "throw" && kind != "abort")) {
        std::fprintf(stderr, "poslab: --test-fault %s: expected LAB:throw or LAB:abort\n",
                     opt.test_fault.c_str());
        exit_code = 2;
      }
      state.set_test_fault(lab, kind == "abort" ? poslab::app::TestFault::abort_process
                                                : poslab::app::TestFault::throw_error);
    }
    if (!opt.preset.empty())
      state.open_lab_from_user(opt.record.empty() ? opt.preset : playing_preset(opt.preset));
    if (!opt.untrusted_preset.empty()) state.open_lab(opt.untrusted_preset);
    // A link is untrusted like a pasted preset; a bad one is a banner (and exit 2 headless).
    if (!opt.link.empty() && !state.open_link(opt.link) && headless) {
      for (const auto& e : state.errors()) std::fprintf(stderr, "poslab: %s\n", e.c_str());
      exit_code = 2;
    }
    if (!opt.panel.empty()) {
      if (!state.find_panel(opt.panel)) {
        std::fprintf(stderr, "poslab: --panel %s: no such lab\n", opt.panel.c_str());
        exit_code = 2;
      }
      state.select_lab(opt.panel);
    }

    if (exit_code == 0 && opt.click_fuzz > 0) {
      poslab::app::set_file_sandbox(std::filesystem::current_path().string());
      exit_code = run_click_fuzz(fe, state, opt);
      // As Quit does: a computation that does not look at its cancel flag (a long KV run
      // the fuzz started) does not hold the exit; teardown runs if it is quick.
      std::thread([code = exit_code] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        std::fflush(nullptr);
        std::_Exit(code);
      }).detach();
    } else if (exit_code == 0 && !opt.record.empty()) {
      exit_code = run_recording(fe, state, opt);
    } else if (exit_code == 0 && opt.check) {
      exit_code = run_checks(fe, state, opt.presets_file) == 0 ? 0 : 1;
    } else if (exit_code == 0 && opt.frames > 0) {
      std::vector<double> times, fills;
      fe.count_fill(opt.frame_times);
      for (int i = 0; i < opt.frames; ++i) {
        times.push_back(fe.frame());
        fills.push_back(fe.last_fill().pixels);
        if (i + 1 == opt.frames && !opt.screenshot.empty()) {
          try {
            fe.screenshot(opt.screenshot);
          } catch (const poslab::Error& e) {
            std::fprintf(stderr, "poslab: %s\n", e.what());
            exit_code = 2;
          }
        }
        fe.present();
      }
      if (opt.frame_times && times.size() > 2) {
        std::vector<double> warm(times.begin() + 2, times.end());  // skip start-up frames
        std::sort(warm.begin(), warm.end());
        std::vector<double> fill(fills.begin() + 2, fills.end());
        std::sort(fill.begin(), fill.end());
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(window, &fw, &fh);
        // fill: median pixels the frame's triangles cover; overdraw: that plus the clear,
        // per window pixel (1.0 = every pixel written once); triangles: ImGui's, last frame
        // (a software renderer pays a setup cost per triangle). Independent of the load.
        std::printf(
            "{\"frames\": %zu, \"median_ms\": %.3f, \"p90_ms\": %.3f, \"p95_ms\": %.3f, "
            "\"max_ms\": %.3f, \"fill_px\": %.0f, \"overdraw\": %.2f, \"triangles\": %.0f}\n",
            warm.size(), warm[warm.size() / 2], warm[warm.size() * 9 / 10],
            warm[warm.size() * 95 / 100], warm.back(), fill[fill.size() / 2],
            1.0 + fill[fill.size() / 2] / std::max(1.0, static_cast<double>(fw) * fh),
            fe.last_fill().triangles);
        for (const auto& [name, px] : fe.last_fill().per_list)
          std::fprintf(stderr, "poslab: fill %10.0f px  %s\n", px, name.c_str());
      }
      if (int bad = run_exports(fe, state, opt); bad) exit_code = bad;
      for (const auto& e : state.errors())
        std::fprintf(stderr, "poslab: banner: %s\n", poslab::terminal_text(e).c_str());
      if (auto* p = state.find_panel(state.settings().active_lab))
        std::fprintf(stderr, "poslab: active: %s\n", p->preset().c_str());
      print_main_view(window, state);
      // A failed save (a full disk, settings.json being a folder) is said and is the exit
      // code, as at a window's Quit: a script must not take it for a saved state (issue 36).
      if (opt.settings)
        if (const std::string bad = state.finish(); !bad.empty()) {
          std::fprintf(stderr, "poslab: settings not saved: %s\n",
                       poslab::terminal_text(bad).c_str());
          if (exit_code == 0) exit_code = 2;
        }
    } else if (exit_code == 0) {
      // Links a later `poslab 'poslab:...'` hands over; it wakes the event loop.
      std::string why;  // $XDG_RUNTIME_DIR not safe to listen in: said once, no listener
      const std::string socket = poslab::app::link_socket_path(&why);
      if (!why.empty() && opt.link.empty()) std::fprintf(stderr, "poslab: %s\n", why.c_str());
      poslab::app::LinkListener links(socket, [] { glfwPostEmptyEvent(); });
      poslab::app::install_quit_signals();  // SIGTERM and co. end the loop as Quit does
      while (!glfwWindowShouldClose(window) && !state.quit_requested() &&
             !poslab::app::quit_signal_received()) {
        bool work = fe.wait_for_work(2.0);
        for (const auto& link : links.take()) {
          state.open_link(link);  // like a pasted preset: files wait for approval, bad = banner
          glfwFocusWindow(window);
          state.request_frames(3);
          work = true;
        }
        if (work && !glfwWindowShouldClose(window) && !poslab::app::quit_signal_received()) {
          fe.frame();
          fe.present();
          if (auto req = state.take_picture_request()) fe.export_picture(*req);
          glfwGetWindowSize(window, &state.settings().window_width,
                            &state.settings().window_height);
        }
        state.autosave(glfwGetTime());
      }
      glfwGetWindowSize(window, &state.settings().window_width, &state.settings().window_height);
      if (!opt.screenshot_at_quit.empty()) {
        fe.frame();
        try {
          fe.screenshot(opt.screenshot_at_quit);
        } catch (const poslab::Error& e) {
          std::fprintf(stderr, "poslab: %s\n", e.what());
        }
        if (auto* p = state.find_panel(state.settings().active_lab))
          std::fprintf(stderr, "poslab: active: %s\n", p->preset().c_str());
        for (const auto& e : state.errors())
          std::fprintf(stderr, "poslab: banner: %s\n", poslab::terminal_text(e).c_str());
      }
      state.cancel_jobs();
      // Settings saved, start marker removed: nothing is left to lose. A failed save is not
      // silent: the window is closing, so stderr and the exit code say it.
      if (const std::string bad = state.finish(); !bad.empty()) {
        std::fprintf(stderr,
                     "poslab: settings not saved at quit: %s (this session's labs and window "
                     "size will not be restored)\n",
                     bad.c_str());
        exit_code = 2;
      }
      glfwHideWindow(window);
      // Quit returns within a second even if a computation does not stop when asked: the
      // panels' destructors join their workers, and a worker deep in a long core loop may
      // not look at its cancel flag for minutes.
      std::thread([code = exit_code] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        std::fflush(nullptr);
        std::_Exit(code);
      }).detach();
    }
    state.release_gl();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
  }
  glfwTerminate();
  return exit_code;
}
