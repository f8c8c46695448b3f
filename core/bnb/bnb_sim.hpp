// Boost and Broadside, the exact simulator (spec: shared/spec/boost-and-broadside.md
// sections 1-4). Eight ship slots on a 1024 x 1024 torus, two teams, 25 Hz agent steps of
// two 0.02 s physics substeps. Screen convention: x right, y DOWN; a positive angle turns
// counter-clockwise in maths coordinates, which looks clockwise (right) on screen.
// Deterministic: one seed gives one episode (see bnb_rng.hpp).
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/bnb/bnb_rng.hpp"
#include "core/common/param_range.hpp"

namespace poslab::bnb {

// ---- World and ship constants (spec sections 1-2) ----
inline constexpr double kWorldW = 1024.0;  // map width, pixels
inline constexpr double kWorldH = 1024.0;  // map height, pixels
inline constexpr int kSlots = 8;           // ship slots: 0-3 team 0, 4-7 team 1
inline constexpr int kSlotsPerTeam = 4;
inline constexpr double kDt = 0.02;  // physics substep, seconds
inline constexpr int kSubsteps = 2;  // substeps per agent step (25 Hz)
inline constexpr double kAgentDt = kDt * kSubsteps;
inline constexpr int kMaxEpisodeSteps = 512;  // truncation, agent steps
inline constexpr double kShipRadius = 10.0;   // collision radius, pixels
inline constexpr double kMaxHealth = 100.0;
inline constexpr double kMaxPower = 100.0;
inline constexpr double kBulletSpeed = 500.0;  // pixels/s added along the attitude
inline constexpr double kBulletCost = 3.0;     // power per shot
inline constexpr double kBulletDamage = 10.0;  // health per hit
inline constexpr int kBulletLifeTicks = 50;    // 1.0 s in substeps
inline constexpr int kCooldownTicks = 5;       // 0.1 s in substeps
inline constexpr double kCooldownSeconds = kCooldownTicks * kDt;
inline constexpr double kBulletSpreadStd = 12.0;  // Gaussian noise per velocity component, px/s
inline constexpr int kMaxBulletsPerShip = 16;     // ring: the oldest is dropped when full

// The episode clock and the bullet timers count substeps (integers) so that "0.1 s has
// elapsed" and "life <= 0" are exact; time in seconds is ticks * kDt.

// ---- Actions: MultiDiscrete [power 3, turn 7, shoot 2] (spec section 3) ----
enum class Power : uint8_t { coast = 0, boost = 1, reverse = 2 };
enum class Turn : uint8_t {
  straight = 0,
  left,
  right,
  sharp_left,
  sharp_right,
  air_brake,
  sharp_air_brake
};
inline constexpr int kPowerCount = 3, kTurnCount = 7, kShootCount = 2;
inline constexpr int kActionHeads = 3;
inline constexpr std::array<int, kActionHeads> kActionSizes{kPowerCount, kTurnCount, kShootCount};

struct PowerSpec {
  const char* name;
  double thrust;  // force along the attitude (mass 1), px/s^2
  double rate;    // power change, per second
};
inline constexpr std::array<PowerSpec, kPowerCount> kPowerTable{
    {{"COAST", 8.0, 10.0}, {"BOOST", 80.0, -40.0}, {"REVERSE", -10.0, 20.0}}};

struct TurnSpec {
  const char* name;
  double delta_deg;  // sideslip: nose = velocity direction rotated by delta
  double c_d;        // drag coefficient (force -c_d |v| v)
  double c_l;        // lift coefficient (force c_l |v| (i v))
};
inline constexpr std::array<TurnSpec, kTurnCount> kTurnTable{{
    {"STRAIGHT", 0.0, 8e-4, 0.0},
    {"LEFT", -5.0, 1.2e-3, -0.015},
    {"RIGHT", 5.0, 1.2e-3, 0.015},
    {"SHARP_LEFT", -15.0, 5e-3, -0.027},
    {"SHARP_RIGHT", 15.0, 5e-3, 0.027},
    {"AIR_BRAKE", 0.0, 1.2e-3, 0.0},
    {"SHARP_AIR_BRAKE", 0.0, 5e-3, 0.0},
}};

struct ShipAction {
  uint8_t power = 0;  // Power index, 0..2
  uint8_t turn = 0;   // Turn index, 0..6
  uint8_t shoot = 0;  // 0 or 1
  bool operator==(const ShipAction&) const = default;
};
using JointAction = std::array<ShipAction, kSlots>;  // one action per slot

// ---- State ----
struct Vec2 {
  double x = 0.0, y = 0.0;
  Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
  Vec2 operator-(Vec2 o) const { return {x - o.x, y - o.y}; }
  Vec2 operator*(double s) const { return {x * s, y * s}; }
  double dot(Vec2 o) const { return x * o.x + y * o.y; }
  double cross(Vec2 o) const { return x * o.y - y * o.x; }  // > 0: o is at a positive angle
  double norm() const { return std::hypot(x, y); }
  Vec2 rotated(double angle) const {  // times e^{i angle}
    const double c = std::cos(angle), s = std::sin(angle);
    return {c * x - s * y, s * x + c * y};
  }
  Vec2 perp() const { return {-y, x}; }  // times i
};

struct Ship {
  bool present = false;  // slot used this episode (absent ships are never alive)
  bool alive = false;
  int team = 0;                          // 0 for slots 0-3, 1 for slots 4-7
  Vec2 pos;                              // [0, W) x [0, H), pixels
  Vec2 vel;                              // pixels/s
  Vec2 att;                              // attitude (unit vector, the nose)
  double health = 0.0;                   // [0, 100]
  double power = 0.0;                    // [0, 100]
  int last_fire_tick = -kCooldownTicks;  // substep of the last shot (t_last = -0.1 s at start)
  uint8_t turn = 0;     // turn action of the last agent step (its delta is the sideslip)
  bool fired = false;   // fired during the last agent step
  int death_tick = -1;  // substep clock when it died (its frozen state uses this clock)
};

struct Bullet {
  Vec2 pos, vel;
  int life_ticks = kBulletLifeTicks;  // substeps left
  int owner = 0;                      // slot that fired it
};

// Team sizes 1..4; 0 means "draw it per the spec" (1v1..4v4 with 25 % each, both teams equal).
struct EpisodeConfig {
  int team0_size = 0;  // ships of team 0, 0 = random (spec), [0, 4]
  int team1_size = 0;  // ships of team 1, 0 = same as team 0 (random when both 0), [0, 4]
  int max_steps = kMaxEpisodeSteps;  // truncation, agent steps, [1, 100000]

  bool operator==(const EpisodeConfig&) const = default;

  static constexpr ParamRange team_size_range{0, 4};
  static constexpr ParamRange max_steps_range{1, 100000};
};
void validate(const EpisodeConfig& c);

struct SimState {
  std::array<Ship, kSlots> ships;
  std::vector<Bullet> bullets;  // in spawn order
  int tick = 0;                 // substeps since reset (episode clock t = tick * kDt)
  int step = 0;                 // agent steps since reset
  int max_steps = kMaxEpisodeSteps;
  bool done = false;
  int winner = -1;  // team that won, or -1 (draw, truncation, still running)
  Rng rng{0};       // reset draws and bullet spread
};

// What one agent step did, per team. Rewards (spec section 8): +0.001 per HP of damage
// taken by the other team, -0.001 per HP taken by one's own, +-0.1 per enemy / own death,
// +-1 for a win / loss at the end. Friendly fire counts as own damage.
struct StepInfo {
  std::array<double, 2> reward{0.0, 0.0};
  std::array<double, 2> damage_taken{0.0, 0.0};  // HP lost by each team's ships
  std::array<int, 2> deaths{0, 0};
  int hits = 0;  // bullets that hit a ship
  int shots = 0;
};

// Starts an episode: team sizes, slots, positions, headings, speeds, health and power, all
// from a generator seeded with derive_seed(seed, 0).
SimState sim_reset(uint64_t seed, const EpisodeConfig& config = {});
// One agent step (two substeps) with `actions` for every slot (dead / absent slots ignore
// theirs). Sets done after the step in which at most one team has alive ships, or when
// step reaches max_steps. Calling it on a finished episode is a programmer error.
StepInfo sim_step(SimState& s, const JointAction& actions);

// Alive ships per team.
std::array<int, 2> alive_counts(const SimState& s);
// Present ships per team (the team sizes of the episode).
std::array<int, 2> team_sizes(const SimState& s);

// Minimum-image difference b - a on the torus, each axis in [-W/2, W/2].
inline Vec2 wrap_delta(Vec2 d) {
  return {d.x - kWorldW * std::round(d.x / kWorldW), d.y - kWorldH * std::round(d.y / kWorldH)};
}
// Wraps a position into [0, W) x [0, H).
Vec2 wrap_position(Vec2 p);
// Seconds of cooldown left for a ship at the current clock, in [0, 0.1].
double cooldown_remaining(const Ship& ship, int tick);
inline double delta_radians(int turn) {
  return kTurnTable[turn].delta_deg * std::numbers::pi / 180.0;
}

}  // namespace poslab::bnb
