// PNG file to texture (see image_texture.hpp).
#include "app/gfx/image_texture.hpp"

#include <stb/stb_image.h>

namespace poslab::app::gfx {

bool ImageTexture::load(const std::string& path) {
  if (path == path_) return tex_ != 0;
  release();
  path_ = path;
  int channels = 0;
  unsigned char* px = stbi_load(path.c_str(), &w_, &h_, &channels, 4);
  if (!px) {
    w_ = h_ = 0;
    return false;
  }
  glGenTextures(1, &tex_);
  glBindTexture(GL_TEXTURE_2D, tex_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w_, h_, 0, GL_RGBA, GL_UNSIGNED_BYTE, px);
  glBindTexture(GL_TEXTURE_2D, 0);
  stbi_image_free(px);
  return true;
}

void ImageTexture::release() {
  if (tex_) glDeleteTextures(1, &tex_);
  tex_ = 0;
  w_ = h_ = 0;
  path_.clear();
}

}  // namespace poslab::app::gfx
