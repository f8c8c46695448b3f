// The scripted expert, sticky behaviour noise, random policy and replay (bnb_policy.hpp).
#include "core/bnb/bnb_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/common/errors.hpp"

namespace poslab::bnb {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

uint8_t head_value(const ShipAction& a, int head) {
  return head == 0 ? a.power : head == 1 ? a.turn : a.shoot;
}
void set_head(ShipAction& a, int head, uint8_t v) {
  (head == 0 ? a.power : head == 1 ? a.turn : a.shoot) = v;
}

}  // namespace

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names{"expert", "noisy", "random", "replay"};
  return names;
}

PolicyKind policy_from_name(const std::string& name) {
  const auto& n = policy_names();
  for (size_t i = 0; i < n.size(); ++i)
    if (n[i] == name) return static_cast<PolicyKind>(i);
  throw InputError("policy \"" + name + "\": must be expert, noisy, random or replay");
}

ShipAction expert_action(const SimState& s, int k) {
  ShipAction act;
  const Ship& me = s.ships[k];
  if (!me.alive) return act;
  // Nearest alive enemy by wrapped distance.
  int target = -1;
  double d = std::numeric_limits<double>::infinity();
  for (int j = 0; j < kSlots; ++j) {
    const Ship& o = s.ships[j];
    if (!o.alive || o.team == me.team) continue;
    const double dj = wrap_delta(o.pos - me.pos).norm();
    if (dj < d) {
      d = dj;
      target = j;
    }
  }
  if (target < 0) return act;
  const Ship& e = s.ships[target];
  // Lead the target by the bullet's flight time, aim at it through the seam if shorter.
  const Vec2 lead = wrap_position(e.pos + e.vel * (d / kBulletSpeed));
  Vec2 u = wrap_delta(lead - me.pos);
  const double un = u.norm();
  u = un > 0.0 ? u * (1.0 / un) : me.att;
  const double cross = me.att.cross(u);
  const double phi = std::atan2(std::abs(cross), me.att.dot(u));  // [0, pi]
  const bool positive = cross > 0.0;  // u lies at a positive angle: RIGHT turns toward it
  if (phi > 15.0 * kDeg) {
    act.turn = static_cast<uint8_t>(positive ? Turn::sharp_right : Turn::sharp_left);
  } else if (phi > 5.0 * kDeg) {
    act.turn = static_cast<uint8_t>(positive ? Turn::right : Turn::left);
  } else {
    act.turn = static_cast<uint8_t>(Turn::straight);
  }
  const double cone = std::clamp(1.5 * 2.0 * std::atan(kShipRadius / d), 1.0 * kDeg, 45.0 * kDeg);
  act.shoot = (phi <= cone && d <= kBulletSpeed * std::sqrt(me.power / kMaxPower)) ? 1 : 0;
  if (d <= 20.0) {
    act.power = static_cast<uint8_t>(Power::reverse);
  } else if (me.power / kMaxPower > 0.9 * (1.0 - d / kBulletSpeed) || me.vel.norm() < 30.0) {
    act.power = static_cast<uint8_t>(Power::boost);
  } else {
    act.power = static_cast<uint8_t>(Power::coast);
  }
  return act;
}

JointAction expert_actions(const SimState& s) {
  JointAction a{};
  for (int k = 0; k < kSlots; ++k) a[k] = expert_action(s, k);
  return a;
}

StickyNoise sticky_noise_init(Rng& rng) {
  StickyNoise n;
  const int pattern = rng.uniform_int(4);
  const double x = rng.uniform(), x2 = rng.uniform();
  switch (pattern) {
    case 0:
      n.skill = {1.0, 1.0};
      break;
    case 1:
      n.skill = {1.0, x};
      break;
    case 2:
      n.skill = {x, 1.0};
      break;
    default:
      n.skill = {x, x2};
      break;
  }
  return n;
}

JointAction sticky_noise_apply(StickyNoise& noise, const SimState& s, const JointAction& expert,
                               Rng& rng) {
  JointAction out{};
  for (int k = 0; k < kSlots; ++k) {
    const Ship& sh = s.ships[k];
    if (!sh.alive) continue;
    for (int h = 0; h < kActionHeads; ++h) {
      StickyNoise::Head& head = noise.heads[k][h];
      if (head.timer <= 0) {
        head.timer = std::max(1, static_cast<int>(std::floor(64.0 * rng.beta_2_6())));
        head.follow = rng.uniform() < noise.skill[sh.team];
        if (!head.follow) head.value = static_cast<uint8_t>(rng.uniform_int(kActionSizes[h]));
      }
      set_head(out[k], h, head.follow ? head_value(expert[k], h) : head.value);
      --head.timer;
    }
  }
  return out;
}

JointAction random_actions(const SimState& s, Rng& rng) {
  JointAction out{};
  for (int k = 0; k < kSlots; ++k) {
    if (!s.ships[k].alive) continue;
    for (int h = 0; h < kActionHeads; ++h)
      set_head(out[k], h, static_cast<uint8_t>(rng.uniform_int(kActionSizes[h])));
  }
  return out;
}

Behaviour behaviour_init(PolicyKind kind, uint64_t seed, std::vector<JointAction> replay) {
  Behaviour b;
  b.kind = kind;
  b.rng = Rng(derive_seed(seed, 1));
  if (kind == PolicyKind::noisy_expert) b.noise = sticky_noise_init(b.rng);
  b.replay = std::move(replay);
  return b;
}

Decision behaviour_act(Behaviour& b, const SimState& s) {
  Decision d;
  d.expert = expert_actions(s);
  switch (b.kind) {
    case PolicyKind::expert:
      d.executed = d.expert;
      break;
    case PolicyKind::noisy_expert:
      d.executed = sticky_noise_apply(b.noise, s, d.expert, b.rng);
      break;
    case PolicyKind::random:
      d.executed = random_actions(s, b.rng);
      break;
    case PolicyKind::replay:
      d.executed = s.step < static_cast<int>(b.replay.size()) ? b.replay[s.step] : JointAction{};
      break;
  }
  return d;
}

}  // namespace poslab::bnb
