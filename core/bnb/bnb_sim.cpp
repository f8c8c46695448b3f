// The Boost and Broadside simulator: reset and the agent step, written to follow the
// spec's substep order line by line (section 4), with wrap-aware hit tests (defect 5 of
// the upstream code was hit tests that ignored the wrap seam).
#include "core/bnb/bnb_sim.hpp"

#include <algorithm>
#include <cassert>
#include <numbers>
#include <string>

#include "core/common/errors.hpp"

namespace poslab::bnb {
namespace {

constexpr double kMinSpeed = 1e-6;  // below this the velocity is reset along the attitude

Vec2 unit(Vec2 v) {
  const double n = v.norm();
  return {v.x / n, v.y / n};
}

void check_actions(const JointAction& actions) {
  for (int k = 0; k < kSlots; ++k) {
    const ShipAction& a = actions[k];
    if (a.power >= kPowerCount || a.turn >= kTurnCount || a.shoot >= kShootCount)
      throw InputError("action of slot " + std::to_string(k) + " = [" + std::to_string(a.power) +
                       ", " + std::to_string(a.turn) + ", " + std::to_string(a.shoot) +
                       "]: must be [power 0..2, turn 0..6, shoot 0..1]");
  }
}

// Steps 1-7 of one substep for one alive ship (spec section 4).
void substep_ship(SimState& s, int k, const ShipAction& act, StepInfo& info) {
  Ship& sh = s.ships[k];
  const PowerSpec& pw = kPowerTable[act.power];
  const TurnSpec& tu = kTurnTable[act.turn];
  const double delta = delta_radians(act.turn);

  // 1. Shoot, with the attitude of the previous substep.
  if (act.shoot == 1 && s.tick - sh.last_fire_tick >= kCooldownTicks && sh.power >= kBulletCost) {
    sh.power -= kBulletCost;
    sh.last_fire_tick = s.tick;
    sh.fired = true;
    const auto [nx, ny] = s.rng.normal_pair();
    Bullet b;
    b.pos = sh.pos;
    b.vel = sh.vel + sh.att * kBulletSpeed + Vec2{nx * kBulletSpreadStd, ny * kBulletSpreadStd};
    b.owner = k;
    int live = 0;
    for (const Bullet& o : s.bullets) live += o.owner == k;
    if (live >= kMaxBulletsPerShip) {  // ring: drop this ship's oldest bullet
      const auto oldest = std::find_if(s.bullets.begin(), s.bullets.end(),
                                       [k](const Bullet& o) { return o.owner == k; });
      s.bullets.erase(oldest);
    }
    s.bullets.push_back(b);
    ++info.shots;
  }
  // 2. Attitude from the velocity and this step's sideslip.
  sh.att = unit(sh.vel).rotated(delta);
  // 3. Force: thrust (off at zero power), drag, lift.
  const double speed = sh.vel.norm();
  const double thrust = sh.power > 0.0 ? pw.thrust : 0.0;
  const Vec2 force = sh.att * thrust - sh.vel * (tu.c_d * speed) + sh.vel.perp() * (tu.c_l * speed);
  // 4. Semi-implicit Euler.
  sh.vel = sh.vel + force * kDt;
  sh.pos = sh.pos + sh.vel * kDt;
  if (sh.vel.norm() < kMinSpeed) sh.vel = sh.att * kMinSpeed;
  // 5. Re-align.
  sh.att = unit(sh.vel).rotated(delta);
  // 6. Power.
  sh.power = std::clamp(sh.power + pw.rate * kDt, 0.0, kMaxPower);
  // 7. Wrap.
  sh.pos = wrap_position(sh.pos);
}

void move_bullets(SimState& s) {
  for (Bullet& b : s.bullets) {
    b.pos = wrap_position(b.pos + b.vel * kDt);
    --b.life_ticks;
  }
  std::erase_if(s.bullets, [](const Bullet& b) { return b.life_ticks <= 0; });
}

// Every alive ship against every bullet that is not its own, by minimum-image distance.
// A ship that dies stops absorbing bullets for the rest of the test.
void hit_tests(SimState& s, StepInfo& info) {
  constexpr double r2 = kShipRadius * kShipRadius;
  bool any = false;
  for (int k = 0; k < kSlots; ++k) {
    Ship& sh = s.ships[k];
    for (Bullet& b : s.bullets) {
      if (!sh.alive) break;
      if (b.owner == k || b.life_ticks <= 0) continue;
      const Vec2 d = wrap_delta(b.pos - sh.pos);
      if (d.dot(d) >= r2) continue;
      b.life_ticks = 0;  // removed below
      any = true;
      const double dealt = std::min(kBulletDamage, sh.health);
      sh.health -= dealt;
      info.damage_taken[sh.team] += dealt;
      ++info.hits;
      if (sh.health <= 0.0) {
        sh.health = 0.0;
        sh.alive = false;
        sh.death_tick = s.tick + 1;
        ++info.deaths[sh.team];
      }
    }
  }
  if (any) std::erase_if(s.bullets, [](const Bullet& b) { return b.life_ticks <= 0; });
}

}  // namespace

void validate(const EpisodeConfig& c) {
  require_in_range("team0_size", c.team0_size, EpisodeConfig::team_size_range,
                   "0 = random per the spec");
  require_in_range("team1_size", c.team1_size, EpisodeConfig::team_size_range,
                   "0 = same as team 0");
  require_in_range("max_steps", c.max_steps, EpisodeConfig::max_steps_range);
}

Vec2 wrap_position(Vec2 p) {
  p.x -= kWorldW * std::floor(p.x / kWorldW);
  p.y -= kWorldH * std::floor(p.y / kWorldH);
  if (p.x >= kWorldW) p.x = 0.0;  // -1e-17 + 1024 rounds to 1024
  if (p.y >= kWorldH) p.y = 0.0;
  return p;
}

double cooldown_remaining(const Ship& ship, int tick) {
  const int now = ship.alive ? tick : std::max(ship.death_tick, 0);
  return std::max(0, ship.last_fire_tick + kCooldownTicks - now) * kDt;
}

SimState sim_reset(uint64_t seed, const EpisodeConfig& config) {
  validate(config);
  SimState s;
  s.rng = Rng(derive_seed(seed, 0));
  s.max_steps = config.max_steps;
  int sizes[2] = {config.team0_size, config.team1_size};
  if (sizes[0] == 0 && sizes[1] == 0) {
    sizes[0] = sizes[1] = 1 + s.rng.uniform_int(4);  // 1v1 .. 4v4, 25 % each
  } else if (sizes[0] == 0) {
    sizes[0] = sizes[1];
  } else if (sizes[1] == 0) {
    sizes[1] = sizes[0];
  }
  for (int team = 0; team < 2; ++team) {  // a random subset of k of the team's 4 slots
    int slots[kSlotsPerTeam] = {0, 1, 2, 3};
    for (int i = 0; i < sizes[team]; ++i) {
      std::swap(slots[i], slots[i + s.rng.uniform_int(kSlotsPerTeam - i)]);
      s.ships[team * kSlotsPerTeam + slots[i]].present = true;
    }
  }
  for (int k = 0; k < kSlots; ++k) {
    Ship& sh = s.ships[k];
    sh.team = k / kSlotsPerTeam;
    if (!sh.present) continue;
    sh.alive = true;
    sh.pos = {s.rng.uniform(0.0, kWorldW), s.rng.uniform(0.0, kWorldH)};
    const double heading = s.rng.uniform(0.0, 2.0 * std::numbers::pi);
    const double speed = s.rng.uniform(1.0, 180.0);
    sh.att = {std::cos(heading), std::sin(heading)};
    sh.vel = sh.att * speed;
    sh.health = s.rng.uniform(10.0, kMaxHealth);
    sh.power = s.rng.uniform(0.0, kMaxPower);
  }
  return s;
}

StepInfo sim_step(SimState& s, const JointAction& actions) {
  assert(!s.done && "sim_step called on a finished episode");
  check_actions(actions);
  StepInfo info;
  for (int k = 0; k < kSlots; ++k) {
    Ship& sh = s.ships[k];
    if (!sh.alive) continue;
    sh.fired = false;
    sh.turn = actions[k].turn;
  }
  for (int sub = 0; sub < kSubsteps; ++sub) {
    for (int k = 0; k < kSlots; ++k)
      if (s.ships[k].alive) substep_ship(s, k, actions[k], info);
    move_bullets(s);
    hit_tests(s, info);
    ++s.tick;
  }
  ++s.step;

  for (int team = 0; team < 2; ++team) {
    const int other = 1 - team;
    info.reward[team] = 0.001 * (info.damage_taken[other] - info.damage_taken[team]) +
                        0.1 * (info.deaths[other] - info.deaths[team]);
  }
  const auto alive = alive_counts(s);
  if (alive[0] == 0 || alive[1] == 0) {
    s.done = true;
    s.winner = alive[0] > 0 ? 0 : alive[1] > 0 ? 1 : -1;
    if (s.winner >= 0) {
      info.reward[s.winner] += 1.0;
      info.reward[1 - s.winner] -= 1.0;
    }
  } else if (s.step >= s.max_steps) {
    s.done = true;
  }
  return info;
}

std::array<int, 2> alive_counts(const SimState& s) {
  std::array<int, 2> n{0, 0};
  for (const Ship& sh : s.ships) n[sh.team] += sh.alive;
  return n;
}

std::array<int, 2> team_sizes(const SimState& s) {
  std::array<int, 2> n{0, 0};
  for (const Ship& sh : s.ships) n[sh.team] += sh.present;
  return n;
}

}  // namespace poslab::bnb
