// The Boost and Broadside map, reusable by any panel: ships, bullets, trails, the wrap seams
// (everything is drawn as 3 x 3 shifted copies so shapes show across an edge), selection and
// helm rings, slot labels, and the helm's keyboard mapping. A panel turns whatever it shows
// (a live simulation, a dataset's rows, a world model's dreamt rows) into ArenaFrames and
// draws one or more layers; a ghost layer draws translucent outline ships over a solid one.
#pragma once
#include <imgui.h>

#include <array>
#include <deque>
#include <span>
#include <vector>

#include "app/gfx/shader.hpp"
#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_sim.hpp"

namespace poslab::app {

// One ship as drawn (world pixels, y down, as the simulator).
struct ArenaShipView {
  bool present = false;  // slot used in this episode
  bool alive = false;    // dead ships are drawn as grey wrecks
  int team = 0;          // 0 (blue) or 1 (orange)
  bnb::Vec2 pos;         // position, world px, [0, W) x [0, H)
  bnb::Vec2 att;         // nose direction (any length; normalised when drawn)
  double health = 0;     // [0, 100]
  double power = 0;      // [0, 100]
  bool fired = false;    // fired this step (muzzle flash)
};

struct ArenaBulletView {
  bnb::Vec2 pos;  // world px
  int team = 0;   // owner's team
};

// Everything one picture of the map shows.
struct ArenaFrame {
  std::array<ArenaShipView, bnb::kSlots> ships;
  std::vector<ArenaBulletView> bullets;
  std::array<std::vector<bnb::Vec2>, bnb::kSlots> trails;  // oldest first, ending at the ship
};

// Recent positions of each slot of a live simulation, for trails.
struct ArenaTrailHistory {
  static constexpr size_t kMaxLength = 101;  // positions kept per slot (trail slider max + 1)
  std::array<std::deque<bnb::Vec2>, bnb::kSlots> positions;
  void clear();
  void push(const bnb::SimState& s);  // appends every alive ship's position
};

// A live simulation's state, with trails of `trail` agent steps from `history` (may be null).
ArenaFrame arena_frame_from_sim(const bnb::SimState& s, const ArenaTrailHistory* history,
                                int trail);
// Row `row` of a token sequence: `rows` is (R, 8, 15) row-major (a dataset episode's tokens or
// a dreamt sequence), trails from the previous `trail` rows. Bullets are not in tokens. A slot
// is present when its token is not all zero (absent slots are zeros; wrecks keep a position).
ArenaFrame arena_frame_from_tokens(std::span<const float> rows, int row, int trail);

// Whether a token describes a ship in the episode (alive or a wreck) or an empty slot.
bool arena_token_present(const float* token);

enum class ArenaLayerStyle {
  solid,  // filled ships with health/power bars, collision radius, labels and trails
  ghost,  // outline ships and trails only, translucent: a second sequence over the first
};

struct ArenaLayer {
  const ArenaFrame* frame = nullptr;  // what to draw (must outlive the draw call)
  ArenaLayerStyle style = ArenaLayerStyle::solid;
  float opacity = 1.0f;  // multiplies every alpha of this layer, [0, 1]
};

struct ArenaViewOptions {
  bool grid = true;    // 128-px grid lines
  int selected = -1;   // slot ringed (white in dark theme), -1 none, [-1, 7]
  int helm = -1;       // slot ringed in green (the ship the keyboard flies), -1 none, [-1, 7]
  bool labels = true;  // slot numbers next to the first solid layer's ships
  bool dark = true;    // colours for the dark theme, else the light one
  float ui_scale = 1;  // UI scale: glyphs, lines and rings grow with the labels beside them
};

// What the mouse did on the map during the draw.
struct ArenaViewInput {
  bool hovered = false;   // mouse over the map image
  int hovered_slot = -1;  // present ship of the first layer within 30 world px, else -1
  bool clicked = false;   // left button pressed over the map this frame
  bnb::Vec2 mouse_world;  // mouse position, world px (valid when hovered)
};

class ArenaView {
 public:
  ArenaView() = default;
  ArenaView(const ArenaView&) = delete;
  ArenaView& operator=(const ArenaView&) = delete;
  ~ArenaView();

  // Draws the layers in order (first at the bottom) as a square of `side` screen px at the
  // cursor: the geometry is built now and rendered straight into the window's framebuffer
  // when ImGui renders this frame (a draw-list callback), one pass with no offscreen copy.
  // Throws std::runtime_error if the shaders do not build.
  ArenaViewInput draw(std::span<const ArenaLayer> layers, const ArenaViewOptions& opt, float side);
  // Alive ships of solid layers drawn by the last draw (the panels' check_state uses it).
  int ships_drawn() const { return ships_drawn_; }
  // Frees the GL objects; call while the context is alive (Panel::release_gl).
  void release_gl();

  struct Vertex {
    float x, y;        // world px
    float r, g, b, a;  // straight RGBA
  };

 private:
  void build_mesh(std::span<const ArenaLayer> layers, const ArenaViewOptions& opt, float side);
  // Draws mesh_ into the current framebuffer over the map's rectangle (called from the
  // draw list while ImGui renders, so it lands between the window and the labels).
  void render(const ImDrawCmd& cmd);

  gfx::ShaderProgram program_;
  unsigned vao_ = 0, vbo_ = 0;
  std::vector<Vertex> mesh_;
  ImVec2 origin_;     // the map's top-left corner, screen px (set by draw, used by render)
  float side_ = 0;    // the map's side, screen px
  bool grid_ = true;  // options of the last draw, for render
  bool dark_ = true;
  int ships_drawn_ = 0;
};

// Team colour for ImGui text and widgets (matches the map), in the current theme.
ImU32 arena_team_colour(int team, bool dark, float alpha = 1.0f);

// The helm ship's action from the keyboard: W/Up boost, S/Down reverse, A/Left and D/Right
// turn, Shift makes turns sharp, both sideways keys air-brake, Space fires. Coasts while a
// text field has the keyboard.
// The key list for players is the interface text kHelmKeysHelp (app/panels/arena_help.hpp).
bnb::ShipAction arena_helm_action();
// True in the frame W or Up (the helm's boost keys) is pressed, unless a text field has the
// keyboard: the arena's paused start takes the helm and plays on it.
bool arena_helm_start_pressed();

}  // namespace poslab::app
