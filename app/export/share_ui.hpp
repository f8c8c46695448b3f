// The Share popup's state (one for the shell; it always shows the active lab). Drawn by
// AppState::draw_share in app/export/share_ui.cpp.
#pragma once
#include <array>
#include <map>
#include <string>

#include "app/file_picker.hpp"

namespace poslab::app {

enum class ShareTarget { none, picture, csv, json };

struct ShareUi {
  bool open_requested = false;  // open the popup on the next frame
  std::string lab;              // lab whose default file names are filled in
  int picture_scale = 1;        // 1x or 2x the screen resolution
  std::string picture_path, csv_path, json_path;
  ShareTarget confirm = ShareTarget::none;  // an existing file waits for "Replace"
  std::string confirm_path;
  std::string status;  // last result ("Saved ...", or why not)
  bool status_error = false;
  bool reopen = false;  // a picture asked for in the popup: open it again when saved
  FilePicker picker;
  ShareTarget picking = ShareTarget::none;  // which path the picker fills

  // Test hook: with POSLAB_WIDGET_RECTS=<file>, where the Share button and the popup's
  // controls were drawn (x0, y0, x1, y1 in window pixels) and what the popup shows, written
  // as JSON at the end of every frame (AppState::draw_frame), so tests/gui/*_test.sh click as
  // a user does and wait for the app to have seen each move, click and key (x_window.sh).
  void note_item(const char* name);    // the last ImGui item's rectangle, under `name`
  void note_window(const char* name);  // the current window's rectangle
  // At the end of every frame. settled: no further frame requested; banners: messages shown.
  void write_rects(float view_x0, float view_y0, float view_x1, float view_y1,
                   const std::string& active_lab, bool settled, size_t banners);
  std::map<std::string, std::array<float, 4>> rects;  // noted this frame
  std::string rects_written;                          // the file's contents now
  // Input as the hook reports it (counted while the hook is on): frames drawn, the pointer,
  // clicks and key presses, and the frame in which each was last seen.
  long frames = 0, mouse_frame = 0, clicks = 0, click_frame = 0, keys = 0, key_frame = 0;
  std::array<int, 2> mouse = {-1, -1};
  long autosaves = 0;  // settings autosave passes (AppState::autosave), saved or not
};

}  // namespace poslab::app
