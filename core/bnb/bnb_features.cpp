// State vectors and relational features (see bnb_features.hpp for the layouts).
#include "core/bnb/bnb_features.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>

namespace poslab::bnb {

Token ship_token(const SimState& s, int k) {
  Token t{};
  const Ship& sh = s.ships[k];
  if (!sh.present) return t;
  constexpr double two_pi = 2.0 * std::numbers::pi;
  t[0] = sh.alive ? 1.0f : 0.0f;
  t[1] = static_cast<float>(sh.team);
  t[2] = static_cast<float>(sh.health / kMaxHealth);
  t[3] = static_cast<float>(sh.power / kMaxPower);
  t[4] = static_cast<float>(std::sin(two_pi * sh.pos.x / kWorldW));
  t[5] = static_cast<float>(std::cos(two_pi * sh.pos.x / kWorldW));
  t[6] = static_cast<float>(std::sin(two_pi * sh.pos.y / kWorldH));
  t[7] = static_cast<float>(std::cos(two_pi * sh.pos.y / kWorldH));
  t[8] = static_cast<float>(sh.vel.x / kVelocityScale);
  t[9] = static_cast<float>(sh.vel.y / kVelocityScale);
  t[10] = static_cast<float>(sh.att.x);
  t[11] = static_cast<float>(sh.att.y);
  t[12] = sh.fired ? 1.0f : 0.0f;
  t[13] = static_cast<float>(cooldown_remaining(sh, s.tick) / kCooldownSeconds);
  t[14] = static_cast<float>(kTurnTable[sh.turn].delta_deg / 15.0);
  return t;
}

void write_tokens(const SimState& s, float* out) {
  for (int k = 0; k < kSlots; ++k) {
    const Token t = ship_token(s, k);
    for (int c = 0; c < kTokenDim; ++c) out[k * kTokenDim + c] = t[c];
  }
}

Kinematics ship_kinematics(const Ship& ship) {
  return {ship.pos, ship.vel, ship.att};
}

Kinematics token_kinematics(const float* token) {
  constexpr double two_pi = 2.0 * std::numbers::pi;
  Kinematics k;
  k.pos = wrap_position({kWorldW * std::atan2(double(token[4]), double(token[5])) / two_pi,
                         kWorldH * std::atan2(double(token[6]), double(token[7])) / two_pi});
  k.vel = {double(token[8]) * kVelocityScale, double(token[9]) * kVelocityScale};
  k.att = {double(token[10]), double(token[11])};
  const double n = k.att.norm();  // unit up to float rounding; absent ships have (0, 0)
  if (n > 0.0) k.att = k.att * (1.0 / n);
  return k;
}

Relational relational(const Kinematics& i, const Kinematics& j) {
  constexpr double eps = 1e-6;
  const Vec2 dp = wrap_delta(j.pos - i.pos);
  // Δv is NOT wrapped (spec section 6, defect 6): velocities live on a plane, and wrapping
  // |Δv| > 512 px/s (two ships boosting head-on) would turn a closing into a separation.
  const Vec2 dv = j.vel - i.vel;
  const Vec2 a = i.att;
  const double rx = (dp.x * a.x + dp.y * a.y) / kWorldW;
  const double ry = (-dp.x * a.y + dp.y * a.x) / kWorldH;
  const double rvx = (dv.x * a.x + dv.y * a.y) / kVelocityScale;
  const double rvy = (-dv.x * a.y + dv.y * a.x) / kVelocityScale;
  const double d = std::sqrt(rx * rx + ry * ry + eps);
  const double rv2 = rvx * rvx + rvy * rvy;
  const double dot = rvx * rx + rvy * ry;
  return {rx,
          ry,
          rvx,
          rvy,
          d,
          1.0 / (d + 0.1),
          std::sqrt(rv2 + eps),
          dot / (d + eps),
          rx / (d + eps),
          ry / (d + eps),
          std::tanh(-dot / (rv2 + eps)),
          dot};
}

Relational relational_features(const SimState& s, int i, int j) {
  return relational(ship_kinematics(s.ships[i]), ship_kinematics(s.ships[j]));
}

void relational_from_tokens(const float* tokens, double* out) {
  Kinematics k[kSlots];
  for (int i = 0; i < kSlots; ++i) k[i] = token_kinematics(tokens + i * kTokenDim);
  for (int i = 0; i < kSlots; ++i)
    for (int j = 0; j < kSlots; ++j) {
      const Relational r = relational(k[i], k[j]);
      for (int c = 0; c < kRelDim; ++c) out[(i * kSlots + j) * kRelDim + c] = r[c];
    }
}

std::string token_problem(const float* tokens, size_t rows) {
  constexpr size_t per_row = static_cast<size_t>(kSlots) * kTokenDim;
  for (size_t i = 0; i < rows * per_row; ++i)
    if (!(std::abs(tokens[i]) <= kTokenMaxAbs)) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "row %zu, slot %zu, %s = %g", i / per_row,
                    i % per_row / kTokenDim, kTokenNames[i % kTokenDim],
                    static_cast<double>(tokens[i]));
      return buf;
    }
  return "";
}

}  // namespace poslab::bnb
