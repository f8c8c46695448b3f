// Opaque things drawn cheaply for a software renderer (Mesa's llvmpipe), which otherwise
// shades and blends every pixel ImGui draws (docs/performance.md): a filled rectangle as a
// scissored glClear (no shading at all), and anything else opaque without blending (its
// pixels written without reading them first).
#pragma once
#include <imgui.h>

namespace poslab::app::gfx {

// Fills [a, b] on `dl` with `colour` as ImGui would show it over the window background
// (a translucent style colour such as FrameBg is composited over WindowBg here, so the
// pixels are the same as with blending), by a scissored glClear when ImGui renders the list
// (cut to the list's clip rectangle). For rectangles over the plain window background only:
// anything drawn earlier beneath them is overwritten, not blended.
void add_opaque_rect(ImDrawList* dl, ImVec2 a, ImVec2 b, ImVec4 colour);

// What `dl` draws between these two calls is drawn without blending (for opaque pixels only,
// e.g. an image whose texels all have alpha 1); the second gives ImGui its render state back.
void begin_without_blending(ImDrawList* dl);
void end_without_blending(ImDrawList* dl);

}  // namespace poslab::app::gfx
