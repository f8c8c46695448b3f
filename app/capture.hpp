// Screenshots of the current back buffer as PNG (for docs, closing notes and people to
// look at; tests never compare pixels).
#pragma once
#include <string>

namespace poslab::app {

// Reads the framebuffer (width x height) before the swap and writes a PNG; throws
// poslab::FileError naming the path if it cannot be written.
void write_screenshot(const std::string& path, int width, int height);

}  // namespace poslab::app
