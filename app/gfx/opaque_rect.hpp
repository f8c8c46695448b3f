// A filled rectangle that hides what is under it, drawn without blending: a software
// renderer (Mesa's llvmpipe) then writes its pixels without reading them first, which is
// most of what a large blended rectangle costs it (docs/performance.md).
#pragma once
#include <imgui.h>

namespace poslab::app::gfx {

// Fills [a, b] on `dl` with `colour` as ImGui would show it over the window background
// (a translucent style colour such as FrameBg is composited over WindowBg here, so the
// pixels are the same as with blending), then gives ImGui its render state back. For
// rectangles over the plain window background only: anything drawn earlier beneath them
// is overwritten, not blended.
void add_opaque_rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImVec4 colour);

// What `dl` draws between these two calls is drawn without blending (for opaque pixels only,
// e.g. an image whose texels all have alpha 1); the second gives ImGui its render state back.
void begin_without_blending(ImDrawList* dl);
void end_without_blending(ImDrawList* dl);

}  // namespace poslab::app::gfx
