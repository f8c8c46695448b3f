// What the world model sees of Boost and Broadside (spec sections 5-6): the 15-value state
// vector of each ship (PosLab's one layout) and the 12 relational features of each ordered
// pair of ships, in the observer's frame, wrap-aware.
//   token layout: [alive, team, health, power, sin x, cos x, sin y, cos y, vx, vy,
//                  att x, att y, fired, cooldown, delta]
//   relational layout: [r_x, r_y, rv_x, rv_y, d, inv, s, closing, dir_x, dir_y, ttca, dot]
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "core/bnb/bnb_sim.hpp"

namespace poslab::bnb {

inline constexpr int kTokenDim = 15;
inline constexpr int kRelDim = 12;
using Token = std::array<float, kTokenDim>;
using Relational = std::array<double, kRelDim>;

inline constexpr std::array<const char*, kTokenDim> kTokenNames{
    "alive",       "team",        "health/100",  "power/100",     "sin 2pi x/W",
    "cos 2pi x/W", "sin 2pi y/H", "cos 2pi y/H", "vx/180",        "vy/180",
    "attitude x",  "attitude y",  "fired",       "cooldown/0.1s", "delta/15deg"};
// Index of each value in a token, in the layout above (use instead of raw indices).
enum class TokenField : int {
  alive = 0,  // 1 alive, 0 dead or absent
  team,       // 0 or 1
  health,     // health / 100, [0, 1]
  power,      // power / 100, [0, 1]
  sin_x,      // sin(2 pi x / W)
  cos_x,      // cos(2 pi x / W)
  sin_y,      // sin(2 pi y / H)
  cos_y,      // cos(2 pi y / H)
  vx,         // x velocity / 180 px/s
  vy,         // y velocity / 180 px/s
  att_x,      // attitude (unit nose direction), x
  att_y,      // attitude, y
  fired,      // 1 if the ship fired this step
  cooldown,   // gun cooldown / 0.1 s
  delta,      // last turn angle / 15 deg
};
static_assert(static_cast<int>(TokenField::delta) + 1 == kTokenDim);
// One value of a token (`token` points at its 15 floats).
inline constexpr float token_value(const float* token, TokenField f) {
  return token[static_cast<int>(f)];
}
inline constexpr std::array<const char*, kRelDim> kRelNames{
    "r_x", "r_y", "rv_x", "rv_y", "d", "inv", "s", "closing", "dir_x", "dir_y", "ttca", "dot"};
inline constexpr double kVelocityScale = 180.0;  // vx / 180 in the token and in rv

// Slot k's state vector after the last step. Absent: all zeros. Dead: alive = 0 and the
// values it had when it died (position, velocity, power frozen; health 0).
Token ship_token(const SimState& s, int k);
// All slots: out is (8, 15), row-major (slot k's token at out[k * 15]).
void write_tokens(const SimState& s, float* out);

// Position, velocity and attitude of one ship: what the relational features need.
struct Kinematics {
  Vec2 pos, vel, att;
};
Kinematics ship_kinematics(const Ship& ship);
// The same from a token: x = W * atan2(sin, cos) / 2pi wrapped, v = 180 * (vx, vy),
// attitude renormalised (float rounding would otherwise make d(i, j) != d(j, i)).
Kinematics token_kinematics(const float* token);

// Features of ship j as seen by observer i. Δp = p_j - p_i is wrapped to the minimum image;
// Δv = v_j - v_i is a plain difference, never wrapped (velocities do not live on the torus;
// spec section 6, defect 6). Both are rotated into
// i's frame (r_x = Δx a_x + Δy a_y, r_y = -Δx a_y + Δy a_x) and scaled by 1/W, 1/H, 1/180.
Relational relational(const Kinematics& i, const Kinematics& j);
Relational relational_features(const SimState& s, int i, int j);
// All ordered pairs from tokens: tokens is (8, 15), out is (8, 8, 12) row-major
// (pair (i, j) at out[(i * 8 + j) * 12]); the diagonal is the self-pair (zeros but d, inv, s).
void relational_from_tokens(const float* tokens, double* out);

// Largest magnitude a token value may have: each is a flag, a sine or cosine, or a ratio of
// at most a few (vx/180, cooldown/0.1s, delta/15deg); 1000 leaves room and keeps a model's
// activations finite. A file holding a value beyond it (or NaN) is damaged or made.
inline constexpr float kTokenMaxAbs = 1000.0f;
// The first value of `tokens` (`rows` rows of (8, 15)) that is not finite or beyond
// kTokenMaxAbs, as "row 3, slot 2, vx/180 = 3e+38"; "" when every value is sane.
std::string token_problem(const float* tokens, size_t rows);

}  // namespace poslab::bnb
