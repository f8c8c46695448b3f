// Framebuffer to PNG with stb_image_write (Debian's libstb).
#include "app/capture.hpp"

#include <stb/stb_image_write.h>

#include <algorithm>
#include <vector>

#include "app/gfx/gl.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {

void write_screenshot(const std::string& path, int width, int height) {
  // Read as RGBA (what WebGL 2 reads reliably too), written as RGB.
  const std::vector<uint8_t> rgba = read_screen_rgba(0, 0, width, height, height);
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 3);
  for (size_t i = 0, j = 0; j < pixels.size(); i += 4, j += 3) std::copy_n(&rgba[i], 3, &pixels[j]);
  if (!stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3))
    throw FileError(
        path, "could not write the screenshot (does the directory exist and is it writable?)");
}

std::vector<uint8_t> read_screen_rgba(int x, int y, int width, int height, int fb_height) {
  const size_t row = static_cast<size_t>(width) * 4;
  std::vector<uint8_t> up(row * height), down(row * height);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(x, fb_height - y - height, width, height, GL_RGBA, GL_UNSIGNED_BYTE, up.data());
  // GL's rows go bottom-up; images top-down. The window is opaque: alpha 255 everywhere.
  for (int r = 0; r < height; ++r)
    std::copy(up.begin() + (height - 1 - r) * row, up.begin() + (height - r) * row,
              down.begin() + r * row);
  for (size_t i = 3; i < down.size(); i += 4) down[i] = 255;
  return down;
}

}  // namespace poslab::app
