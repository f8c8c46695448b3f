// A small file chooser in an ImGui popup, for paths the user would otherwise type: a
// directory listing (folders first, then files with the wanted extensions), a parent
// button and an editable folder path. It only lists (stat, never open), so FIFOs and
// devices in a folder cannot block it.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace poslab::app {

class AppContext;

struct FilePickerEntry {
  std::string name;      // file name in the folder
  bool is_dir = false;   // a folder (or a link to one)
  bool regular = false;  // a regular file (only these can be chosen)
  uintmax_t size = 0;    // bytes, regular files only
};

// The picker's state; one per panel that offers it.
struct FilePicker {
  std::string dir;                       // folder shown
  std::string listed;                    // folder `entries` belong to
  std::vector<FilePickerEntry> entries;  // sorted: folders, then files
  std::string error;                     // why the folder could not be listed
  std::string dir_edit;                  // text of the folder field
  bool all_files = false;                // list files of any extension
  bool open_requested = false;           // open the popup on the next draw
  bool save_mode = false;                // choose where to save: a file-name field, and
                                         // clicking a file only fills that field
  std::string save_name;                 // file name typed or clicked (save mode)
  std::array<float, 4> shown_rect{};     // the popup's x0, y0, x1, y1 in the last frame it
                                         // was drawn; all 0 while closed (GUI test hook)
};

// Opens the picker at the folder of `start_path` (or the working directory).
void file_picker_open(FilePicker& fp, const std::string& start_path);
// Opens it to choose where to save: the folder and file name of `start_path`. The caller
// asks before replacing an existing file (the picker only returns the path).
void file_picker_open_save(FilePicker& fp, const std::string& start_path);
// Draws the popup while it is open; returns true in the frame the user chose a file, with
// its path in `chosen`. `extensions`: e.g. {".h5", ".hdf5"}. Its texts are in the user's
// language (assets/i18n/<lang>/files.toml, through ctx.tr) and sized by ctx.ui_scale().
bool file_picker_draw(FilePicker& fp, const char* title, const std::vector<std::string>& extensions,
                      std::string& chosen, const AppContext& ctx);

}  // namespace poslab::app
