// Baselines and error metrics of world-model states (see baselines.hpp). Positions are
// decoded from their sin/cos pair (x = W * atan2(sin, cos) / 2pi), so wrapping is exact.
#include "core/wm/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_sim.hpp"
#include "core/wm/world_model.hpp"

namespace poslab::wm {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

double decode_coord(float s, float c, double size) {
  double a = std::atan2(static_cast<double>(s), static_cast<double>(c));
  if (a < 0) a += kTwoPi;
  return a / kTwoPi * size;
}

}  // namespace

bool token_present(const float* t) {
  return t[4] * t[4] + t[5] * t[5] > 0.5f;
}
bool token_alive(const float* t) {
  return t[0] > 0.5f;
}

void baseline_copy_last(const float* state, int /*k*/, float* out) {
  std::copy_n(state, kShips * kTokenDim, out);
}

void baseline_constant_velocity(const float* state, int k, float* out) {
  std::copy_n(state, kShips * kTokenDim, out);
  const double dt = bnb::kAgentDt * k;
  for (int n = 0; n < kShips; ++n) {
    float* t = out + n * kTokenDim;
    if (!token_alive(t)) continue;  // dead ships are frozen, absent ones are zeros
    const double x = decode_coord(t[4], t[5], bnb::kWorldW) + bnb::kVelocityScale * t[8] * dt;
    const double y = decode_coord(t[6], t[7], bnb::kWorldH) + bnb::kVelocityScale * t[9] * dt;
    const double ax = kTwoPi * x / bnb::kWorldW,
                 ay = kTwoPi * y / bnb::kWorldH;  // wrap via sin/cos
    t[4] = static_cast<float>(std::sin(ax));
    t[5] = static_cast<float>(std::cos(ax));
    t[6] = static_cast<float>(std::sin(ay));
    t[7] = static_cast<float>(std::cos(ay));
  }
}

ShipErrors ship_errors(const float* p, const float* r) {
  ShipErrors e;
  const bnb::Vec2 d = bnb::wrap_delta(
      {decode_coord(p[4], p[5], bnb::kWorldW) - decode_coord(r[4], r[5], bnb::kWorldW),
       decode_coord(p[6], p[7], bnb::kWorldH) - decode_coord(r[6], r[7], bnb::kWorldH)});
  e.pos_px = d.norm();
  e.vel_px_s = bnb::kVelocityScale *
               std::hypot(static_cast<double>(p[8]) - r[8], static_cast<double>(p[9]) - r[9]);
  const double a = std::atan2(static_cast<double>(p[11]), static_cast<double>(p[10])) -
                   std::atan2(static_cast<double>(r[11]), static_cast<double>(r[10]));
  e.att_deg = std::abs(std::remainder(a, kTwoPi)) * 180.0 / std::numbers::pi;
  e.health = 100.0 * std::abs(static_cast<double>(p[2]) - r[2]);
  e.power = 100.0 * std::abs(static_cast<double>(p[3]) - r[3]);
  e.alive_agree = token_alive(p) == token_alive(r);
  return e;
}

ErrorAccumulator::ErrorAccumulator(int horizons)
    : sums_(static_cast<size_t>(std::max(1, horizons))) {}

void ErrorAccumulator::add(int k, const float* pred, const float* real) {
  if (k < 1 || k > horizons()) return;
  Sums& s = sums_[static_cast<size_t>(k - 1)];
  for (int n = 0; n < kShips; ++n) {
    const float* p = pred + n * kTokenDim;
    const float* r = real + n * kTokenDim;
    if (!token_present(r)) continue;
    const ShipErrors e = ship_errors(p, r);
    s.agree += e.alive_agree;
    ++s.present;
    if (!token_alive(r)) continue;
    s.pos += e.pos_px;
    s.vel += e.vel_px_s;
    s.att += e.att_deg;
    s.health += e.health;
    s.power += e.power;
    ++s.alive;
  }
}

void ErrorAccumulator::merge(const ErrorAccumulator& o) {
  if (o.sums_.size() > sums_.size()) sums_.resize(o.sums_.size());
  for (size_t i = 0; i < o.sums_.size(); ++i) {
    auto& a = sums_[i];
    const auto& b = o.sums_[i];
    a.pos += b.pos;
    a.vel += b.vel;
    a.att += b.att;
    a.health += b.health;
    a.power += b.power;
    a.agree += b.agree;
    a.alive += b.alive;
    a.present += b.present;
  }
}

ErrorSummary ErrorAccumulator::at(int k) const {
  ErrorSummary out;
  if (k < 1 || k > horizons()) return out;
  const Sums& s = sums_[static_cast<size_t>(k - 1)];
  out.alive_count = s.alive;
  out.present_count = s.present;
  if (s.alive > 0) {
    const double n = static_cast<double>(s.alive);
    out.pos_px = s.pos / n;
    out.vel_px_s = s.vel / n;
    out.att_deg = s.att / n;
    out.health = s.health / n;
    out.power = s.power / n;
  }
  out.agree_count = s.agree;
  return out;
}

}  // namespace poslab::wm
