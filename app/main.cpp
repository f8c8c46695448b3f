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
// Here: the command line, the window and the interactive frame loop. The options are in
// start_options.hpp, the frame driver in frontend.hpp, the headless modes (--record,
// --export-*, --check, --click-fuzz) in headless_modes.hpp.
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
#include "app/export/export_files.hpp"
#include "app/export/link_handoff.hpp"
#include "app/frontend.hpp"
#include "app/gfx/fill_count.hpp"
#include "app/gfx/font_texture.hpp"
#include "app/gfx/gl.hpp"
#include "app/headless_modes.hpp"
#include "app/panels/panels.hpp"
#include "app/quit_signals.hpp"
#include "app/widgets/recorder.hpp"
#include "app/window_icon.hpp"
#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"
#include "io/files/atomic_file.hpp"
#include "io/lessons/lesson_files.hpp"

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
  poslab::app::StartOptions opt;
  using poslab::app::AppState;
  using poslab::app::Frontend;
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
    if (const int refused = poslab::app::refuse_existing_exports(opt); refused) return refused;
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
  glfwSetErrorCallback(poslab::app::glfw_error);
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
    ImGui::GetIO().IniFilename = nullptr;          // layout lives in our settings, never in the CWD
    poslab::app::install_event_callbacks(window);  // before ImGui's, which call them in turn
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
      state.open_lab_from_user(opt.record.empty() ? opt.preset
                                                  : poslab::app::playing_preset(opt.preset));
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
      exit_code = poslab::app::run_click_fuzz(fe, state, opt);
      // As Quit does: a computation that does not look at its cancel flag (a long KV run
      // the fuzz started) does not hold the exit; teardown runs if it is quick.
      // A file being written atomically (a training run's last checkpoint) is finished
      // first, for up to 5 s more, so ending here leaves no half-written temporary.
      std::thread([code = exit_code] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        poslab::finish_atomic_writes_for_exit(5000);
        std::fflush(nullptr);
        std::_Exit(code);
      }).detach();
    } else if (exit_code == 0 && !opt.record.empty()) {
      exit_code = poslab::app::run_recording(fe, state, opt);
    } else if (exit_code == 0 && opt.check) {
      exit_code = poslab::app::run_checks(fe, state, opt.presets_file) == 0 ? 0 : 1;
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
      if (int bad = poslab::app::run_exports(fe, state, opt); bad) exit_code = bad;
      for (const auto& e : state.errors())
        std::fprintf(stderr, "poslab: banner: %s\n", poslab::terminal_text(e).c_str());
      if (auto* p = state.find_panel(state.settings().active_lab))
        std::fprintf(stderr, "poslab: active: %s\n", p->preset().c_str());
      poslab::app::print_main_view(window, state);
      for (const std::string& bad : poslab::app::lab_layout_problems())
        std::fprintf(stderr, "poslab: layout: %s\n", bad.c_str());
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
      // A file being written atomically (a training run's last checkpoint) is finished
      // first, for up to 5 s more, so ending here leaves no half-written temporary.
      std::thread([code = exit_code] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        poslab::finish_atomic_writes_for_exit(5000);
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
