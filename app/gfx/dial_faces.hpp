// Dial faces baked into one texture: a filled disc with a ring over it, one cell per ring
// style, anti-aliased once on the CPU. A dial is then ONE textured quad instead of a
// 64-gon plus a thick anti-aliased ring (about 450 thin triangles, which a software
// rasteriser shades block by block: most of the wheels lab's frame time, issue 14).
// The hands' centre dot (an anti-aliased disc) is a last cell, drawn as a second small quad.
// Rebaked only when the radius, a colour or a ring style changes. Quads are placed on whole
// pixels and sampled NEAREST: texel = pixel, the cheapest path of a software rasteriser.
#pragma once
#include <imgui.h>

#include <vector>

#include "app/gfx/gl.hpp"

namespace poslab::app::gfx {

struct DialRing {
  ImU32 colour = 0;        // straight-alpha RGBA (IM_COL32)
  float thickness = 1.0f;  // pixels, centred on the radius (as ImDrawList::AddCircle)

  bool operator==(const DialRing&) const = default;
};

class DialFaces {
 public:
  DialFaces() = default;
  DialFaces(const DialFaces&) = delete;
  DialFaces& operator=(const DialFaces&) = delete;
  ~DialFaces() { release(); }

  // Makes sure the texture holds a face of `radius` pixels in `face` colour under each ring
  // of `rings` (cell k = rings[k]), composited over the opaque colour `under` (what lies
  // beneath the dials: the window's background), so face cells are opaque and can be drawn
  // without blending (opaque_rect.hpp). The dot stays translucent. Call from the GL thread
  // (inside a panel's draw).
  void prepare(float radius, ImU32 face, const std::vector<DialRing>& rings, float dot_radius,
               ImU32 dot, ImU32 under);
  // One quad: the face and ring `style` centred at `centre` (screen pixels).
  void draw(ImDrawList* dl, ImVec2 centre, int style) const;
  void draw_dot(ImDrawList* dl, ImVec2 centre) const;  // the centre dot, over the hands
  void release();

 private:
  GLuint tex_ = 0;
  float radius_ = 0;
  ImU32 face_ = 0;
  std::vector<DialRing> rings_;
  float dot_radius_ = 0;
  ImU32 dot_ = 0;
  ImU32 under_ = 0;
  int cell_ = 0;      // texels per ring cell side; the disc centre is the cell's centre
  int dot_cell_ = 0;  // texels per side of the dot's cell, after the ring cells
  int width_ = 0;     // texture width: rings x cell_ + dot_cell_
};

}  // namespace poslab::app::gfx
