// Screenshots of the current back buffer as PNG (for docs, closing notes and people to
// look at; tests never compare pixels).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace poslab::app {

// Reads the framebuffer (width x height) before the swap and writes a PNG; throws
// poslab::FileError naming the path if it cannot be written.
void write_screenshot(const std::string& path, int width, int height);

// Reads the back buffer's rectangle at (x, y) (top-left origin, framebuffer pixels) of
// width x height as RGBA, rows top first; `fb_height` is the framebuffer's height.
std::vector<uint8_t> read_screen_rgba(int x, int y, int width, int height, int fb_height);

}  // namespace poslab::app
