// Nearest filtering for ImGui's font texture (font_texture.hpp).
#include "app/gfx/font_texture.hpp"

#include <imgui.h>

#include <cstdint>

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

void use_nearest_font_filter() {
  static ImTextureID done = nullptr;  // the texture already set (a rebuilt atlas gets a new one)
  const ImTextureID tex = ImGui::GetIO().Fonts->TexID;
  if (!tex || tex == done) return;
  GLint bound = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<std::intptr_t>(tex)));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
  done = tex;
}

}  // namespace poslab::app::gfx
