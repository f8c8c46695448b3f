// The Share popup's state (one for the shell; it always shows the active lab). Drawn by
// AppState::draw_share in app/export/share_ui.cpp.
#pragma once
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
  FilePicker picker;
  ShareTarget picking = ShareTarget::none;  // which path the picker fills
};

}  // namespace poslab::app
