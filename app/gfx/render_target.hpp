// An offscreen framebuffer with a colour texture: draw into it with your own shaders
// (bind(), GL calls, unbind()), then show it with ImGui::Image(texture(), size).
#pragma once
#include <imgui.h>

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

class RenderTarget {
 public:
  RenderTarget() = default;
  RenderTarget(const RenderTarget&) = delete;
  RenderTarget& operator=(const RenderTarget&) = delete;
  ~RenderTarget() { release(); }

  // (Re)allocates when the size changed; binds the framebuffer and sets the viewport.
  void bind(int width, int height);
  // Restores the default framebuffer and the previous viewport.
  void unbind();
  ImTextureID texture() const {
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(color_));
  }
  int width() const { return width_; }
  int height() const { return height_; }
  void release();

 private:
  GLuint fbo_ = 0, color_ = 0;
  int width_ = 0, height_ = 0;
  GLint saved_viewport_[4] = {0, 0, 0, 0};
};

}  // namespace poslab::app::gfx
