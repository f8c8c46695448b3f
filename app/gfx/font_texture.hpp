// ImGui's font atlas sampled with nearest filtering. A software renderer (Mesa's llvmpipe)
// pays for bilinear filtering in every pixel ImGui draws, solid fills included (they sample
// the atlas's white pixel); nearest costs less (about 2 ms of CPU in the dream lab's
// 14 ms frame, docs/performance.md). It shows the same picture because PosLab draws every
// glyph at the size it was baked (no SetWindowFontScale: a larger heading is its own font)
// at whole-pixel positions, and thin lines are anti-aliased with geometry
// (style.AntiAliasedLinesUseTex off, app_state.cpp), not with the atlas's baked lines.
#pragma once

namespace poslab::app::gfx {

// Sets the current font texture (ImGui::GetIO().Fonts->TexID) to nearest filtering once per
// texture: call after ImGui_ImplOpenGL3_NewFrame(), which creates the texture when the atlas
// was rebuilt.
void use_nearest_font_filter();

}  // namespace poslab::app::gfx
