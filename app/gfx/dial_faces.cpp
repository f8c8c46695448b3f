// Baking dial faces (see dial_faces.hpp). Coverage follows ImDrawList's shapes: the ring is
// stroked on radius - 0.5 with full alpha within (thickness - 1) / 2 and a 1-pixel ramp
// outside that (ImGui's anti-aliased stroke); the face is the disc of `radius`, with a
// half-pixel ramp instead of a polygon's hard edge.
#include "app/gfx/dial_faces.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace poslab::app::gfx {
namespace {

struct Rgba {
  float r, g, b, a;
};

Rgba unpack(ImU32 c) {
  return {static_cast<float>((c >> IM_COL32_R_SHIFT) & 0xFF) / 255.0f,
          static_cast<float>((c >> IM_COL32_G_SHIFT) & 0xFF) / 255.0f,
          static_cast<float>((c >> IM_COL32_B_SHIFT) & 0xFF) / 255.0f,
          static_cast<float>((c >> IM_COL32_A_SHIFT) & 0xFF) / 255.0f};
}

// `top` with alpha a_top over `bottom` with alpha a_bottom, straight alpha (what blending
// the face and then the ring onto the window would give, as one texel).
Rgba over(Rgba top, float a_top, Rgba bottom, float a_bottom) {
  const float a = a_top + a_bottom * (1.0f - a_top);
  if (a <= 0.0f) return {top.r, top.g, top.b, 0.0f};  // keep a colour: linear filtering
  const float wb = a_bottom * (1.0f - a_top);
  return {(top.r * a_top + bottom.r * wb) / a, (top.g * a_top + bottom.g * wb) / a,
          (top.b * a_top + bottom.b * wb) / a, a};
}

uint8_t byte(float v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
}

}  // namespace

void DialFaces::prepare(float radius, ImU32 face, const std::vector<DialRing>& rings,
                        float dot_radius, ImU32 dot, ImU32 under) {
  if (tex_ && radius == radius_ && face == face_ && rings == rings_ && dot_radius == dot_radius_ &&
      dot == dot_ && under == under_)
    return;
  under_ = under;
  radius_ = radius;
  face_ = face;
  rings_ = rings;
  dot_radius_ = dot_radius;
  dot_ = dot;
  float widest = 1.0f;
  for (const DialRing& r : rings) widest = std::max(widest, r.thickness);
  const int half = static_cast<int>(std::ceil(radius + widest * 0.5f + 2.0f));
  cell_ = 2 * half;
  dot_cell_ = 2 * static_cast<int>(std::ceil(dot_radius + 2.0f));
  const int n = static_cast<int>(rings.size());
  const int w = cell_ * n + dot_cell_, h = std::max(cell_, dot_cell_);
  width_ = w;
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4);
  const Rgba fc = unpack(face), uc = unpack(under);
  for (int k = 0; k < static_cast<int>(rings.size()); ++k) {
    const Rgba rc = unpack(rings[k].colour);
    const float t = rings[k].thickness;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < cell_; ++x) {
        // Texel (x, y) is the screen pixel whose centre is (x + 0.5, y + 0.5) from the
        // cell's corner; the dial's centre is the corner (half, half).
        const float dx = static_cast<float>(x) + 0.5f - static_cast<float>(half);
        const float dy = static_cast<float>(y) + 0.5f - static_cast<float>(half);
        const float d = std::sqrt(dx * dx + dy * dy);
        const float face_cov = std::clamp(radius + 0.5f - d, 0.0f, 1.0f);
        const float ring_cov =
            std::clamp(t * 0.5f + 0.5f - std::abs(d - (radius - 0.5f)), 0.0f, 1.0f);
        const Rgba dial = over(rc, ring_cov * rc.a, fc, face_cov * fc.a);
        const Rgba c = over(dial, dial.a, uc, 1.0f);  // opaque: the window shows through
        uint8_t* p = &px[(static_cast<size_t>(y) * w + static_cast<size_t>(k) * cell_ + x) * 4];
        p[0] = byte(c.r);
        p[1] = byte(c.g);
        p[2] = byte(c.b);
        p[3] = byte(c.a);
      }
    }
  }
  // The dot: AddCircleFilled's anti-aliased disc (a 1-pixel ramp centred on the radius).
  const Rgba dc = unpack(dot);
  for (int y = 0; y < dot_cell_; ++y) {
    for (int x = 0; x < dot_cell_; ++x) {
      const float dx = static_cast<float>(x) + 0.5f - static_cast<float>(dot_cell_ / 2);
      const float dy = static_cast<float>(y) + 0.5f - static_cast<float>(dot_cell_ / 2);
      const float cov = std::clamp(dot_radius + 0.5f - std::sqrt(dx * dx + dy * dy), 0.0f, 1.0f);
      uint8_t* p = &px[(static_cast<size_t>(y) * w + static_cast<size_t>(n) * cell_ + x) * 4];
      p[0] = byte(dc.r);
      p[1] = byte(dc.g);
      p[2] = byte(dc.b);
      p[3] = byte(cov * dc.a);
    }
  }
  if (!tex_) glGenTextures(1, &tex_);
  GLint saved = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &saved);
  glBindTexture(GL_TEXTURE_2D, tex_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(saved));
}

namespace {

// A cell of `side` texels whose centre is at `centre`, on whole pixels (the cell's corner
// rounded; at UI scale 1 the dial centres are whole pixels already, so nothing moves).
void draw_cell(ImDrawList* dl, GLuint tex, ImVec2 centre, int x0, int side, int width, int height) {
  const float half = static_cast<float>(side / 2);
  const ImVec2 a(std::round(centre.x - half), std::round(centre.y - half));
  const ImVec2 b(a.x + static_cast<float>(side), a.y + static_cast<float>(side));
  const float w = static_cast<float>(width), h = static_cast<float>(height);
  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex)), a, b,
               ImVec2(static_cast<float>(x0) / w, 0.0f),
               ImVec2(static_cast<float>(x0 + side) / w, static_cast<float>(side) / h));
}

}  // namespace

void DialFaces::draw(ImDrawList* dl, ImVec2 centre, int style) const {
  if (!tex_ || style < 0 || style >= static_cast<int>(rings_.size())) return;
  draw_cell(dl, tex_, centre, style * cell_, cell_, width_, std::max(cell_, dot_cell_));
}

void DialFaces::draw_dot(ImDrawList* dl, ImVec2 centre) const {
  if (!tex_) return;
  draw_cell(dl, tex_, centre, static_cast<int>(rings_.size()) * cell_, dot_cell_, width_,
            std::max(cell_, dot_cell_));
}

void DialFaces::release() {
  if (tex_) glDeleteTextures(1, &tex_);
  tex_ = 0;
  rings_.clear();
}

}  // namespace poslab::app::gfx
