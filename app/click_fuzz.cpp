// The click fuzz's input generator (app/click_fuzz.hpp). Every action is a short run of
// frames: a click is "pointer there, button down" then "button up" at the same place (an
// ImGui button fires on release over itself), a drag moves in four steps with the button
// held, a key is held for one frame. Keys are GLFW codes, as the GLFW backend of ImGui 1.86
// fills io.KeysDown (io.KeyMap maps ImGui's keys onto them).
#include "app/click_fuzz.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cfloat>
#include <iterator>

namespace poslab::app {
namespace {

// GLFW key codes (GLFW/glfw3.h), without including GLFW here.
constexpr int kKeyA = 65, kKeyC = 67, kKeyV = 86, kKeyX = 88, kKeyY = 89, kKeyZ = 90;
constexpr int kNavKeys[] = {
    256,                 // Escape
    257,                 // Enter
    258,                 // Tab
    259,                 // Backspace
    261,                 // Delete
    262, 263, 264, 265,  // Right, Left, Down, Up
    266, 267, 268, 269,  // Page Up, Page Down, Home, End
    32,                  // Space
    335,                 // keypad Enter
};
// Ctrl chords: select all, copy, paste, cut, undo, redo, and Ctrl+Tab. Never Q (Quit).
constexpr int kCtrlKeys[] = {kKeyA, kKeyC, kKeyV, kKeyX, kKeyZ, kKeyY, 258};
// Typed characters: digits and number syntax, letters, space, punctuation and some Chinese.
constexpr char32_t kChars[] =
    U"0123456789.-+eE,xabcdefghijklmnopqrstuvwyzQ ?&=:_"
    U"\u4f4d\u7f6e\u7684\u6ce8\u610f\u529b";

}  // namespace

ClickFuzz::ClickFuzz(uint64_t seed, long actions) : rng_(seed, "click_fuzz", 0), left_(actions) {}

void ClickFuzz::pick_target(const ImGuiIO& io, float& x, float& y) {
  const ImGuiContext& g = *GImGui;
  // The topmost open popup window that was drawn (menus, combos, the Share popup, dialogs).
  const ImGuiWindow* popup = nullptr;
  for (int i = g.OpenPopupStack.Size - 1; i >= 0 && !popup; --i)
    if (const ImGuiWindow* w = g.OpenPopupStack[i].Window; w && w->WasActive) popup = w;
  if (popup && chance(0.6)) {
    x = popup->Pos.x + static_cast<float>(rng_.uniform()) * popup->Size.x;
    y = popup->Pos.y + static_cast<float>(rng_.uniform()) * popup->Size.y;
  } else if (last_.x >= 0 && chance(0.25)) {  // near the last target: follow-up controls
    x = last_.x + static_cast<float>(rng_.uniform() - 0.5) * 160.0f;
    y = last_.y + static_cast<float>(rng_.uniform() - 0.5) * 80.0f;
  } else {
    x = static_cast<float>(rng_.uniform()) * io.DisplaySize.x;
    y = static_cast<float>(rng_.uniform()) * io.DisplaySize.y;
  }
  x = std::clamp(x, 0.0f, std::max(0.0f, io.DisplaySize.x - 1));
  y = std::clamp(y, 0.0f, std::max(0.0f, io.DisplaySize.y - 1));
}

void ClickFuzz::next_action(const ImGuiIO& io) {
  --left_;
  Frame f;  // pointer where it was, nothing held
  f.x = last_.x;
  f.y = last_.y;
  const int kind = below(100);
  if (kind < 45) {  // left click, sometimes a double click
    pick_target(io, f.x, f.y);
    const bool twice = chance(0.08);
    for (int i = 0; i < (twice ? 2 : 1); ++i) {
      Frame down = f;
      down.left = true;
      frames_.push_back(down);
      frames_.push_back(f);
    }
    ++counts_.clicks;
    counts_.double_clicks += twice;
  } else if (kind < 53) {  // right or middle click
    pick_target(io, f.x, f.y);
    Frame down = f;
    (chance(0.8) ? down.right : down.middle) = true;
    frames_.push_back(down);
    frames_.push_back(f);
    ++counts_.right_clicks;
  } else if (kind < 65) {  // drag, sometimes with Ctrl or Shift held
    pick_target(io, f.x, f.y);
    float tx = 0, ty = 0;
    pick_target(io, tx, ty);
    f.ctrl = chance(0.15);
    f.shift = !f.ctrl && chance(0.1);
    Frame d = f;
    d.left = true;
    frames_.push_back(d);
    for (int i = 1; i <= 4; ++i) {
      d.x = f.x + (tx - f.x) * static_cast<float>(i) / 4.0f;
      d.y = f.y + (ty - f.y) * static_cast<float>(i) / 4.0f;
      frames_.push_back(d);
    }
    d.left = false;
    frames_.push_back(d);
    ++counts_.drags;
  } else if (kind < 75) {  // wheel
    pick_target(io, f.x, f.y);
    const float turn = static_cast<float>(1 + below(3)) * (chance(0.5) ? 1.0f : -1.0f);
    f.shift = chance(0.2);
    (f.shift ? f.wheel_h : f.wheel) = turn;
    frames_.push_back(f);
    ++counts_.wheels;
  } else if (kind < 90) {  // a key, or a Ctrl chord
    if (chance(0.25)) {
      f.ctrl = true;
      f.key = kCtrlKeys[below(static_cast<int>(std::size(kCtrlKeys)))];
    } else {
      f.key = kNavKeys[below(static_cast<int>(std::size(kNavKeys)))];
      f.shift = chance(0.15);
    }
    frames_.push_back(f);
    Frame up = f;
    up.key = -1;
    up.ctrl = up.shift = false;
    frames_.push_back(up);
    ++counts_.keys;
  } else {  // typed text: a few characters, sometimes ended by Enter
    const int n = 1 + below(6);
    for (int i = 0; i < n; ++i) f.text += kChars[below(static_cast<int>(std::size(kChars)) - 1)];
    frames_.push_back(f);
    if (chance(0.3)) {
      Frame enter = f;
      enter.text.clear();
      enter.key = 257;
      frames_.push_back(enter);
      enter.key = -1;
      frames_.push_back(enter);
    }
    ++counts_.texts;
  }
  last_ = frames_.back();
  last_.text.clear();
}

void ClickFuzz::feed(ImGuiIO& io) {
  if (frames_.empty() && left_ > 0) next_action(io);
  Frame f;
  if (!frames_.empty()) {
    f = frames_.front();
    frames_.pop_front();
  } else {
    f.x = last_.x;
    f.y = last_.y;
  }
  ++counts_.frames;
  io.MousePos = f.x < 0 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(f.x, f.y);
  io.MouseDown[0] = f.left;
  io.MouseDown[1] = f.right;
  io.MouseDown[2] = f.middle;
  io.MouseWheel = f.wheel;
  io.MouseWheelH = f.wheel_h;
  if (held_key_ >= 0) io.KeysDown[held_key_] = false;
  held_key_ = f.key;
  if (f.key >= 0) io.KeysDown[f.key] = true;
  io.KeyCtrl = f.ctrl;
  io.KeyShift = f.shift;
  io.KeyAlt = false;
  io.KeySuper = false;
  for (char32_t c : f.text) io.AddInputCharacter(static_cast<unsigned>(c));
}

}  // namespace poslab::app
