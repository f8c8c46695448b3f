// "Export and share" (issue 16), the parts that touch files and pixels: a lab's numbers to
// CSV/JSON, the main view's pixels with a caption strip to PNG (all written atomically),
// and `poslab:` preset links. The Share popup (app/share_ui.cpp) and the headless hooks in
// main.cpp (--export-*) call these.
#pragma once
#include <string>
#include <vector>

#include "app/panel.hpp"

struct ImFont;

namespace poslab::app {

// A picture the shell should take after the frame: the main view of the active lab at
// `scale` times the screen resolution (the frame is re-rendered at that UI scale).
struct PictureRequest {
  std::string path;
  int scale = 1;        // 1 or 2
  std::string caption;  // text of the strip under the view (the preset)
};

// Pixels, top row first, 3 bytes per pixel.
struct RgbImage {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

// Writes the panel's numbers (csv_path / json_path; "" = skip). Throws poslab::FileError
// naming the file (unwritable folder, full disk) or poslab::InputError holding the lab's
// why_not message (no numbers now).
void write_lab_numbers(const Panel& p, const std::string& csv_path, const std::string& json_path);

// Reads the rectangle [x0, x1) x [y0, y1) (pixels, y down from the top) of the bound
// framebuffer of height fb_height.
RgbImage read_pixels(int fb_height, int x0, int y0, int x1, int y1);
// Appends a strip under the image with `caption` drawn in `font` (wrapped to the width).
void add_caption(RgbImage& img, const std::string& caption, const ImFont* font, bool dark);
// PNG, written atomically; throws poslab::FileError naming the path.
void write_png(const std::string& path, const RgbImage& img);
// True if the image is not a single colour (tests: "non-blank").
bool image_varies(const RgbImage& img);

// "poslab:<preset>": bytes a URI may not hold raw (non-ASCII, quotes, spaces) are
// %-escaped; the preset's own %-escapes are kept as they are.
std::string preset_uri(const std::string& preset);
bool is_preset_uri(const std::string& text);
// The preset in a `poslab:` URI ("poslab:rope?dim=64", "poslab:/rope?...", "poslab://rope?..."
// all work). Throws InputError if it is not one.
std::string preset_from_uri(const std::string& uri);

// Why a path cannot be written, before trying (empty = looks fine): the folder is missing,
// not a folder, or not writable; or the path is a folder. A share_messages.hpp message.
Message export_path_problem(const std::string& path);

// Test hook (poslab --click-fuzz): from now on every path outside the folder `dir` is
// refused by export_path_problem (as not writable), so random clicks write nowhere else.
void set_file_sandbox(const std::string& dir);

}  // namespace poslab::app
