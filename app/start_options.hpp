// The desktop app's command line (main.cpp parses it; the headless modes read it): what to
// open, the headless runs' frames, screenshots, recordings, exports and test hooks.
#pragma once

#include <cstdint>
#include <string>

#include "app/widgets/recorder.hpp"

namespace poslab::app {

struct StartOptions {
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
  RecordOptions record_options;
  bool overwrite = false;  // --record and --export-* may replace an existing file
  std::string link;        // a poslab: preset link (desktop handler, chat, slides)
  std::string export_picture, export_numbers, export_json;  // after --frames: Share's exports
  std::string export_command;  // after --frames: the text "Copy the command" copies
  int export_scale = 1;        // picture at 1x or 2x
  long click_fuzz = 0;         // random user actions on the active lab, then exit
  uint64_t fuzz_seed = 1;      // their seed: the same seed, the same run
};

}  // namespace poslab::app
