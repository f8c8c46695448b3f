// Offscreen framebuffer with one RGBA colour texture (see render_target.hpp).
#include "app/gfx/render_target.hpp"

#include <stdexcept>

namespace poslab::app::gfx {

void RenderTarget::bind(int width, int height) {
  width = width < 1 ? 1 : width;
  height = height < 1 ? 1 : height;
  if (width != width_ || height != height_ || !fbo_) {
    release();
    glGenTextures(1, &color_);
    glBindTexture(GL_TEXTURE_2D, color_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    // Shown 1:1 (ImGui::Image of the same size): NEAREST gives the same pixels as LINEAR
    // and costs the software renderer less per pixel.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glGenFramebuffers(1, &fbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw std::runtime_error("offscreen framebuffer incomplete");
    width_ = width;
    height_ = height;
  }
  glGetIntegerv(GL_VIEWPORT, saved_viewport_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
}

void RenderTarget::unbind() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(saved_viewport_[0], saved_viewport_[1], saved_viewport_[2], saved_viewport_[3]);
}

void RenderTarget::release() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (color_) glDeleteTextures(1, &color_);
  fbo_ = color_ = 0;
  width_ = height_ = 0;
}

}  // namespace poslab::app::gfx
