// The click fuzz (poslab --click-fuzz N --seed S): N random user actions (clicks, double
// and right clicks, drags, wheel turns, key presses, typed text) fed into Dear ImGui's input
// one frame at a time, in front of the window's real draw code. Seeded, so a run that
// aborts is reproduced by the same command. An ImGui assertion is an abort of the whole
// app; CI runs this over every lab (tests/gui/click_fuzz_test.sh) and allows none.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

#include "core/common/random.hpp"

struct ImGuiIO;

namespace poslab::app {

// What one run did: actions by kind and frames drawn.
struct ClickFuzzCounts {
  long clicks = 0;         // left clicks (a double click counts one)
  long double_clicks = 0;  // of which double clicks
  long right_clicks = 0;   // right and middle clicks
  long drags = 0;          // left button held while the pointer moves (some with Ctrl)
  long wheels = 0;         // wheel turns (Shift: sideways)
  long keys = 0;           // key presses and Ctrl chords (never Ctrl+Q)
  long texts = 0;          // runs of typed characters
  long frames = 0;         // frames fed
  long actions() const { return clicks + right_clicks + drags + wheels + keys + texts; }
};

class ClickFuzz {
 public:
  ClickFuzz(uint64_t seed, long actions);
  // Writes this frame's pointer, buttons, wheel, keys and characters into `io`, after the
  // platform backend's NewFrame and before ImGui::NewFrame. Targets fall on the display,
  // more often inside an open popup (so menus, combos and dialogs are explored too).
  void feed(ImGuiIO& io);
  bool done() const { return left_ <= 0 && frames_.empty(); }
  const ClickFuzzCounts& counts() const { return counts_; }

 private:
  struct Frame {           // the input state of one frame
    float x = -1, y = -1;  // pointer (x < 0: off the window)
    bool left = false, right = false, middle = false;
    float wheel = 0, wheel_h = 0;
    int key = -1;  // GLFW key code held this frame, -1 = none
    bool ctrl = false, shift = false;
    std::u32string text;  // characters typed this frame
  };
  void next_action(const ImGuiIO& io);
  void pick_target(const ImGuiIO& io, float& x, float& y);
  int below(int n) { return static_cast<int>(rng_.uniform() * n); }
  bool chance(double p) { return rng_.uniform() < p; }

  SeededStream rng_;
  long left_;
  std::deque<Frame> frames_;
  Frame last_;  // the pointer stays where the last action left it
  int held_key_ = -1;
  ClickFuzzCounts counts_;
};

}  // namespace poslab::app
