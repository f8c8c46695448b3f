// Draws the Boost and Broadside map (app/gfx/arena_view.hpp): geometry is built in world
// pixels as coloured triangles and rendered with shaders/arena.{vert,frag} as 9 wrapped
// copies straight into the window from a draw-list callback, with slot labels drawn on top.
#include "app/gfx/arena_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "app/gfx/gl.hpp"

namespace poslab::app {
namespace {

using bnb::kSlots;
using bnb::TokenField;
using bnb::Vec2;

struct Colour {
  float r, g, b, a;
};

Colour team_colour(int team, bool dark, float alpha) {
  // The light theme darkens both hues so they keep contrast on a pale sea.
  if (dark)
    return team == 0 ? Colour{0.30f, 0.65f, 1.00f, alpha} : Colour{1.00f, 0.45f, 0.25f, alpha};
  return team == 0 ? Colour{0.05f, 0.35f, 0.80f, alpha} : Colour{0.80f, 0.30f, 0.05f, alpha};
}

Colour with_alpha(Colour c, float a) {
  return {c.r, c.g, c.b, c.a * a};
}

// Triangles in world pixels.
class Mesh {
 public:
  explicit Mesh(std::vector<ArenaView::Vertex>& v) : v_(v) {}
  void tri(Vec2 a, Vec2 b, Vec2 c, Colour k) {
    for (Vec2 p : {a, b, c}) v_.push_back({float(p.x), float(p.y), k.r, k.g, k.b, k.a});
  }
  void quad(Vec2 a, Vec2 b, Vec2 c, Vec2 d, Colour k) {
    tri(a, b, c, k);
    tri(a, c, d, k);
  }
  void rect(Vec2 lo, Vec2 hi, Colour k) { quad(lo, {hi.x, lo.y}, hi, {lo.x, hi.y}, k); }
  void line(Vec2 a, Vec2 b, double width, Colour k) {
    const Vec2 d = b - a;
    const double n = d.norm();
    if (n < 1e-9) return;
    const Vec2 off = d.perp() * (0.5 * width / n);
    quad(a + off, b + off, b - off, a - off, k);
  }
  void ring(Vec2 c, double radius, double width, Colour k) {
    constexpr int seg = 32;
    for (int i = 0; i < seg; ++i) {
      const double a0 = 2 * std::numbers::pi * i / seg, a1 = 2 * std::numbers::pi * (i + 1) / seg;
      line(c + Vec2{std::cos(a0), std::sin(a0)} * radius,
           c + Vec2{std::cos(a1), std::sin(a1)} * radius, width, k);
    }
  }

 private:
  std::vector<ArenaView::Vertex>& v_;
};

}  // namespace

ImU32 arena_team_colour(int team, bool dark, float alpha) {
  const Colour c = team_colour(team, dark, alpha);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c.r, c.g, c.b, c.a));
}

// ---------------- frames ----------------

void ArenaTrailHistory::clear() {
  for (auto& p : positions) p.clear();
}

void ArenaTrailHistory::push(const bnb::SimState& s) {
  for (int k = 0; k < kSlots; ++k) {
    if (!s.ships[k].alive) continue;
    positions[k].push_back(s.ships[k].pos);
    while (positions[k].size() > kMaxLength) positions[k].pop_front();
  }
}

ArenaFrame arena_frame_from_sim(const bnb::SimState& s, const ArenaTrailHistory* history,
                                int trail) {
  ArenaFrame f;
  for (int k = 0; k < kSlots; ++k) {
    const bnb::Ship& sh = s.ships[k];
    f.ships[k] = {sh.present, sh.alive, sh.team, sh.pos, sh.att, sh.health, sh.power, sh.fired};
    if (!history || !sh.alive || trail <= 0) continue;
    const auto& tr = history->positions[k];
    const size_t keep = std::min(tr.size(), static_cast<size_t>(trail) + 1);
    f.trails[k].assign(tr.end() - static_cast<std::ptrdiff_t>(keep), tr.end());
  }
  for (const bnb::Bullet& b : s.bullets) f.bullets.push_back({b.pos, b.owner / bnb::kSlotsPerTeam});
  return f;
}

bool arena_token_present(const float* t) {
  // A present ship's position is on the unit circle (sin^2 + cos^2 = 1), an absent slot's
  // token is all zeros; 0.25 leaves room for a world model's imprecise rows.
  const float sx = token_value(t, TokenField::sin_x), cx = token_value(t, TokenField::cos_x);
  return token_value(t, TokenField::alive) > 0.5f || sx * sx + cx * cx > 0.25f;
}

ArenaFrame arena_frame_from_tokens(std::span<const float> rows, int row, int trail) {
  ArenaFrame f;
  constexpr size_t row_size = static_cast<size_t>(kSlots) * bnb::kTokenDim;
  const int count = static_cast<int>(rows.size() / row_size);
  if (row < 0 || row >= count) return f;
  const auto token = [&](int r, int k) {
    return rows.data() + static_cast<size_t>(r) * row_size +
           static_cast<size_t>(k) * bnb::kTokenDim;
  };
  for (int k = 0; k < kSlots; ++k) {
    const float* t = token(row, k);
    ArenaShipView& s = f.ships[k];
    s.present = arena_token_present(t);
    if (!s.present) continue;
    const bnb::Kinematics kin = bnb::token_kinematics(t);
    s.alive = token_value(t, TokenField::alive) > 0.5f;
    s.team = k / bnb::kSlotsPerTeam;
    s.pos = kin.pos;
    s.att = kin.att;
    s.health = 100.0 * static_cast<double>(token_value(t, TokenField::health));
    s.power = 100.0 * static_cast<double>(token_value(t, TokenField::power));
    s.fired = token_value(t, TokenField::fired) > 0.5f;
    if (!s.alive || trail <= 0) continue;
    for (int r = std::max(0, row - trail); r <= row; ++r)
      if (arena_token_present(token(r, k)))
        f.trails[k].push_back(bnb::token_kinematics(token(r, k)).pos);
  }
  return f;
}

// ---------------- drawing ----------------

ArenaView::~ArenaView() {
  // GL objects must be freed while the context lives (release_gl); ShaderProgram frees its
  // own in its destructor if release_gl was never called.
}

void ArenaView::release_gl() {
  program_ = gfx::ShaderProgram();
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  vbo_ = vao_ = 0;
}

void ArenaView::build_mesh(std::span<const ArenaLayer> layers, const ArenaViewOptions& opt,
                           float side) {
  mesh_.clear();
  Mesh m(mesh_);
  const double W = bnb::kWorldW, H = bnb::kWorldH;
  m.rect({0, 0}, {W, H}, {0, 0, 0, 1});  // background quad, painted by mode 0
  // World pixels per UI pixel (a screen pixel at UI scale 1): line widths and glyphs are
  // given in UI pixels, so at scale 2 the ships grow with the slot labels beside them.
  const double px = W / std::max(1.0f, side) * std::max(0.25f, opt.ui_scale);
  const double g = std::max(1.0, 1.3 * px);  // glyph scale: at least ~18 UI px long
  const bool dark = opt.dark;
  ships_drawn_ = 0;
  bool first_solid = true;
  for (const ArenaLayer& layer : layers) {
    if (!layer.frame) continue;
    const ArenaFrame& fr = *layer.frame;
    const bool ghost = layer.style == ArenaLayerStyle::ghost;
    const float op = std::clamp(layer.opacity, 0.0f, 1.0f);
    // Trails: fading segments, each with the minimum-image step so seams are crossed.
    for (int k = 0; k < kSlots; ++k) {
      const auto& tr = fr.trails[k];
      for (size_t i = 1; i < tr.size(); ++i) {
        const Vec2 a = tr[i - 1], b = a + bnb::wrap_delta(tr[i] - tr[i - 1]);
        const float alpha = 0.6f * static_cast<float>(i) / static_cast<float>(tr.size());
        m.line(a, b, (ghost ? 1.5 : 2.0) * px,
               with_alpha(team_colour(fr.ships[k].team, dark, alpha), op));
      }
    }
    // Bullets: small diamonds in a lighter (dark theme) or deeper (light theme) team colour.
    for (const ArenaBulletView& b : fr.bullets) {
      Colour c = team_colour(b.team, dark, 1.0f);
      c = dark ? Colour{0.5f + 0.5f * c.r, 0.5f + 0.5f * c.g, 0.5f + 0.5f * c.b, op}
               : Colour{0.7f * c.r, 0.7f * c.g, 0.7f * c.b, op};
      const double r = std::max(2.5, 2.0 * px);
      const Vec2 p = b.pos;
      m.quad(p + Vec2{r, 0}, p + Vec2{0, r}, p - Vec2{r, 0}, p - Vec2{0, r}, c);
    }
    // Ships: triangles along the attitude, bars above; dead ships as faint wrecks.
    for (int k = 0; k < kSlots; ++k) {
      const ArenaShipView& s = fr.ships[k];
      if (!s.present) continue;
      const Vec2 a = s.att.norm() > 0 ? s.att * (1.0 / s.att.norm()) : Vec2{1, 0};
      const Vec2 sd = a.perp();
      const double len = 14.0 * g, wid = 9.0 * g;
      const Vec2 nose = s.pos + a * len, l = s.pos - a * (0.6 * len) + sd * wid,
                 r = s.pos - a * (0.6 * len) - sd * wid;
      const Colour wreck =
          dark ? Colour{0.45f, 0.45f, 0.45f, 0.35f * op} : Colour{0.35f, 0.35f, 0.35f, 0.45f * op};
      if (ghost) {
        const Colour c = s.alive ? with_alpha(team_colour(s.team, dark, 0.9f), op) : wreck;
        const double w = 2.0 * px;
        m.line(nose, l, w, c);
        m.line(l, r, w, c);
        m.line(r, nose, w, c);
        continue;
      }
      if (!s.alive) {
        m.tri(nose, l, r, wreck);
        continue;
      }
      if (first_solid) ++ships_drawn_;
      const Colour ring =
          dark ? Colour{1, 1, 1, 0.9f * op} : Colour{0.05f, 0.05f, 0.05f, 0.9f * op};
      if (first_solid && k == opt.selected) m.ring(s.pos, 17.0 * g, 2.0 * px, ring);
      if (first_solid && k == opt.helm)
        m.ring(s.pos, 21.0 * g, 2.0 * px,
               dark ? Colour{0.4f, 1.0f, 0.4f, 0.9f * op} : Colour{0.0f, 0.55f, 0.1f, 0.9f * op});
      m.ring(s.pos, bnb::kShipRadius, 1.0 * px, team_colour(s.team, dark, 0.35f * op));
      m.tri(nose, l, r, team_colour(s.team, dark, op));
      m.tri(nose, s.pos - a * (0.3 * len) + sd * (0.35 * wid),
            s.pos - a * (0.3 * len) - sd * (0.35 * wid), {1, 1, 1, 0.55f * op});
      if (s.fired)
        m.tri(nose + a * (6.0 * g), nose + sd * (3.0 * g), nose - sd * (3.0 * g),
              dark ? Colour{1, 1, 0.6f, 0.9f * op} : Colour{0.85f, 0.55f, 0.0f, 0.95f * op});
      // Bars: health (green), power (amber), 28 px wide above the ship.
      const double bw = 28.0 * g, bh = 3.5 * g;
      const Colour trough =
          dark ? Colour{0.1f, 0.1f, 0.1f, 0.8f * op} : Colour{0.55f, 0.55f, 0.55f, 0.6f * op};
      const Vec2 o = s.pos + Vec2{-bw / 2, -20.0 * g - 2 * bh};
      m.rect(o, o + Vec2{bw, bh}, trough);
      m.rect(o, o + Vec2{bw * std::clamp(s.health / 100.0, 0.0, 1.0), bh},
             dark ? Colour{0.35f, 0.9f, 0.35f, op} : Colour{0.1f, 0.6f, 0.1f, op});
      const Vec2 o2 = o + Vec2{0, bh + 1.0};
      m.rect(o2, o2 + Vec2{bw, bh}, trough);
      m.rect(o2, o2 + Vec2{bw * std::clamp(s.power / 100.0, 0.0, 1.0), bh},
             dark ? Colour{1.0f, 0.85f, 0.25f, op} : Colour{0.8f, 0.5f, 0.0f, op});
    }
    if (!ghost) first_solid = false;
  }
}

void ArenaView::render(const ImDrawCmd& cmd) {
  // Where the map lands in the framebuffer being drawn (the window's, or a 2x picture's).
  const ImDrawData* dd = ImGui::GetDrawData();
  if (!dd || side_ <= 0) return;
  const ImVec2 pos = dd->DisplayPos, fs = dd->FramebufferScale;
  const float fb_h = dd->DisplaySize.y * fs.y;
  const ImVec4 c = cmd.ClipRect;
  const float cx0 = std::max(c.x, origin_.x), cy0 = std::max(c.y, origin_.y);
  const float cx1 = std::min(c.z, origin_.x + side_), cy1 = std::min(c.w, origin_.y + side_);
  if (cx1 <= cx0 || cy1 <= cy0) return;  // scrolled out of sight
  // GL's y goes up from the bottom of the framebuffer; the viewport is the whole map (the
  // shader maps the world onto it), the scissor what of it is visible.
  glViewport(static_cast<GLint>(std::lround((origin_.x - pos.x) * fs.x)),
             static_cast<GLint>(std::lround(fb_h - (origin_.y + side_ - pos.y) * fs.y)),
             static_cast<GLsizei>(std::lround(side_ * fs.x)),
             static_cast<GLsizei>(std::lround(side_ * fs.y)));
  glEnable(GL_SCISSOR_TEST);
  glScissor(static_cast<GLint>((cx0 - pos.x) * fs.x),
            static_cast<GLint>(fb_h - (cy1 - pos.y) * fs.y),
            static_cast<GLsizei>((cx1 - cx0) * fs.x), static_cast<GLsizei>((cy1 - cy0) * fs.y));
  program_.use();
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh_.size() * sizeof(Vertex)),
               mesh_.data(), GL_STREAM_DRAW);
  glUniform2f(program_.uniform("world_size"), float(bnb::kWorldW), float(bnb::kWorldH));
  glUniform1f(program_.uniform("grid_step"), 128.0f);
  glUniform1f(program_.uniform("screen_per_world"),
              static_cast<float>(side_ * fs.x / bnb::kWorldW));
  glUniform1i(program_.uniform("grid_on"), grid_ ? 1 : 0);
  if (dark_) {
    glUniform3f(program_.uniform("background"), 0.055f, 0.07f, 0.11f);
    glUniform3f(program_.uniform("grid_colour"), 0.20f, 0.25f, 0.33f);
  } else {
    glUniform3f(program_.uniform("background"), 0.93f, 0.95f, 0.98f);
    glUniform3f(program_.uniform("grid_colour"), 0.72f, 0.77f, 0.85f);
  }
  // Background (first 6 vertices) once, then everything else as 9 wrapped copies. The
  // background is opaque: drawn without blending, the software renderer need not read the
  // old pixels (docs/performance.md).
  glUniform1i(program_.uniform("mode"), 0);
  glUniform1i(program_.uniform("ghosts"), 0);
  glDisable(GL_BLEND);
  glDrawArrays(GL_TRIANGLES, 0, 6);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUniform1i(program_.uniform("mode"), 1);
  glUniform1i(program_.uniform("ghosts"), 1);
  if (mesh_.size() > 6)
    glDrawArraysInstanced(GL_TRIANGLES, 6, static_cast<GLsizei>(mesh_.size() - 6), 9);
  // The draw list's next command, ImDrawCallback_ResetRenderState, gives ImGui back its
  // program, buffers, viewport, blending and scissor.
}

ArenaViewInput ArenaView::draw(std::span<const ArenaLayer> layers, const ArenaViewOptions& opt,
                               float side) {
  side = std::max(16.0f, std::floor(side));
  if (!program_.id()) program_ = gfx::ShaderProgram("arena.vert", "arena.frag");  // may throw
  if (!vao_) {
    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &vbo_);
    GLint saved_vao = 0, saved_buffer = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &saved_vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &saved_buffer);
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<void*>(0));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Vertex),
                          reinterpret_cast<void*>(2 * sizeof(float)));
    glBindVertexArray(static_cast<GLuint>(saved_vao));
    glBindBuffer(GL_ARRAY_BUFFER, static_cast<GLuint>(saved_buffer));
  }
  build_mesh(layers, opt, side);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  origin_ = o;
  side_ = side;
  grid_ = opt.grid;
  dark_ = opt.dark;
  // The map is drawn when ImGui renders this frame: after the window's own background, before
  // the labels added below. mesh_ and the fields above stay as they are until then.
  ImGui::Dummy(ImVec2(side, side));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddCallback(
      [](const ImDrawList*, const ImDrawCmd* cmd) {
        static_cast<ArenaView*>(cmd->UserCallbackData)->render(*cmd);
      },
      this);
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  ArenaViewInput in;
  in.hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  in.mouse_world = {(mouse.x - o.x) / side * bnb::kWorldW, (mouse.y - o.y) / side * bnb::kWorldH};
  const ArenaFrame* first = nullptr;
  for (const ArenaLayer& l : layers)
    if (l.frame && l.style == ArenaLayerStyle::solid) {
      first = l.frame;
      break;
    }
  if (!first && !layers.empty()) first = layers.front().frame;
  if (first && opt.labels) {
    // Slot numbers next to the ships (and their copies near the edges).
    for (int k = 0; k < kSlots; ++k) {
      const ArenaShipView& s = first->ships[k];
      if (!s.present) continue;
      char label[8];
      std::snprintf(label, sizeof label, "%d", k);
      const ImU32 col =
          opt.dark ? (s.alive ? IM_COL32(230, 230, 230, 220) : IM_COL32(140, 140, 140, 160))
                   : (s.alive ? IM_COL32(20, 20, 20, 230) : IM_COL32(110, 110, 110, 180));
      for (int gx = -1; gx <= 1; ++gx)
        for (int gy = -1; gy <= 1; ++gy) {
          const double wx = s.pos.x + gx * bnb::kWorldW + 16.0,
                       wy = s.pos.y + gy * bnb::kWorldH + 4.0;
          if (wx < 0 || wx > bnb::kWorldW - 8 || wy < 0 || wy > bnb::kWorldH - 8) continue;
          dl->AddText(
              ImVec2(o.x + float(wx / bnb::kWorldW) * side, o.y + float(wy / bnb::kWorldH) * side),
              col, label);
        }
    }
  }
  if (in.hovered) {
    in.clicked = ImGui::IsMouseClicked(0);
    if (first) {
      double best = 30.0;
      for (int k = 0; k < kSlots; ++k) {
        if (!first->ships[k].present) continue;
        const double d = bnb::wrap_delta(first->ships[k].pos - in.mouse_world).norm();
        if (d < best) best = d, in.hovered_slot = k;
      }
    }
  }
  return in;
}

// ---------------- helm keys ----------------

bnb::ShipAction arena_helm_action() {
  bnb::ShipAction a;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return a;
  // GLFW key codes (ImGui 1.86's legacy key API indexes KeysDown by the backend's codes).
  const auto down = [](int k1, int k2) { return ImGui::IsKeyDown(k1) || ImGui::IsKeyDown(k2); };
  const bool up = down(GLFW_KEY_W, GLFW_KEY_UP), back = down(GLFW_KEY_S, GLFW_KEY_DOWN);
  const bool left = down(GLFW_KEY_A, GLFW_KEY_LEFT), right = down(GLFW_KEY_D, GLFW_KEY_RIGHT);
  const bool sharp = io.KeyShift;
  a.power = static_cast<uint8_t>(up     ? bnb::Power::boost
                                 : back ? bnb::Power::reverse
                                        : bnb::Power::coast);
  bnb::Turn t = bnb::Turn::straight;
  if (left && right)
    t = sharp ? bnb::Turn::sharp_air_brake : bnb::Turn::air_brake;
  else if (left)
    t = sharp ? bnb::Turn::sharp_left : bnb::Turn::left;
  else if (right)
    t = sharp ? bnb::Turn::sharp_right : bnb::Turn::right;
  a.turn = static_cast<uint8_t>(t);
  a.shoot = ImGui::IsKeyDown(GLFW_KEY_SPACE) ? 1 : 0;
  return a;
}

bool arena_helm_start_pressed() {
  if (ImGui::GetIO().WantTextInput) return false;
  return ImGui::IsKeyPressed(GLFW_KEY_W, false) || ImGui::IsKeyPressed(GLFW_KEY_UP, false);
}

}  // namespace poslab::app
