// A PNG file shown as an image: decoded once with stb_image (Debian's libstb) and uploaded as
// an RGBA texture that ImGui::Image draws (the welcome page's thumbnails). A file that is
// missing or does not decode leaves the texture empty: the caller draws without it.
#pragma once
#include <imgui.h>

#include <string>

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

class ImageTexture {
 public:
  ImageTexture() = default;
  ImageTexture(const ImageTexture&) = delete;
  ImageTexture& operator=(const ImageTexture&) = delete;
  ~ImageTexture() { release(); }

  // Loads `path` the first time it is asked for (later calls with the same path do nothing).
  // Returns false when the file is missing or is not a PNG stb_image reads. GL thread only.
  bool load(const std::string& path);
  bool empty() const { return tex_ == 0; }
  int width() const { return w_; }
  int height() const { return h_; }
  // A GL texture name in ImGui's pointer-sized ImTextureID: the cast is the API.
  ImTextureID texture() const {
    // NOLINTNEXTLINE(performance-no-int-to-ptr)
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex_));
  }
  void release();

 private:
  std::string path_;  // the file asked for last (loaded or not)
  GLuint tex_ = 0;
  int w_ = 0, h_ = 0;
};

}  // namespace poslab::app::gfx
