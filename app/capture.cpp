// Framebuffer to PNG with stb_image_write (Debian's libstb).
#include "app/capture.hpp"

#include <stb/stb_image_write.h>

#include <vector>

#include "app/gfx/gl.hpp"
#include "core/common/errors.hpp"

namespace poslab::app {

void write_screenshot(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // GL's origin is bottom-left; PNG rows go top-down.
  stbi_flip_vertically_on_write(1);
  if (!stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3))
    throw FileError(
        path, "could not write the screenshot (does the directory exist and is it writable?)");
}

}  // namespace poslab::app
