// Colour scales and nice ticks (see color_scale.hpp).
#include "core/common/color_scale.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poslab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLogDecades = 6;  // log scale: at most this many decades below the top

// Fractional index of v in the sorted distinct list: exact entries give their index,
// values between two entries interpolate, values outside clamp. Monotone in v.
double rank_index(const std::vector<double>& sorted, double v) {
  if (sorted.empty()) return 0;
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), v);
  if (it == sorted.end()) return static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<double>(it - sorted.begin());
  if (*it == v || it == sorted.begin()) return i;
  const double lo = *(it - 1), hi = *it;
  return i - 1 + (v - lo) / (hi - lo);
}

double clamp_unit(double x, bool signed_values) {
  return std::clamp(x, signed_values ? -1.0 : 0.0, 1.0);
}

// The value a rank scale shows at position p (the inverse of the position, up to ties).
double rank_value_at(const ColorScale& s, double p) {
  const std::vector<double>& r = s.ranked;
  if (r.empty()) return 0;
  if (!s.signed_values) {
    const auto n = static_cast<double>(r.size() - 1);
    return r[static_cast<size_t>(std::lround(std::clamp(p, 0.0, 1.0) * n))];
  }
  const auto zero = std::lower_bound(r.begin(), r.end(), 0.0);
  const auto neg = static_cast<double>(zero - r.begin());
  const auto first_pos = std::upper_bound(r.begin(), r.end(), 0.0);
  const auto pos = static_cast<double>(r.end() - first_pos);
  if (p < 0 && neg > 0) {  // negatives n_i sit at -(N - i) / N
    const double i = std::clamp(std::round(neg + p * neg), 0.0, neg - 1);
    return r[static_cast<size_t>(i)];
  }
  if (p > 0 && pos > 0) {  // positives p_i sit at (i + 1) / P
    const double i = std::clamp(std::round(p * pos) - 1, 0.0, pos - 1);
    return *(first_pos + static_cast<long>(i));
  }
  return 0;
}

void add_tick(std::vector<ColorTick>& ticks, const ColorScale& s, double v) {
  for (const ColorTick& t : ticks)
    if (t.value == v) return;
  ticks.push_back({color_scale_position(s, v), v});
}

}  // namespace

const std::vector<std::string>& color_scale_names() {
  static const std::vector<std::string> n{"linear", "log", "rank"};
  return n;
}

ColorScale color_scale_fit(ColorScaleKind kind, bool signed_values,
                           const std::vector<std::span<const float>>& maps, double min_range) {
  ColorScale s;
  s.kind = kind;
  s.signed_values = signed_values;
  double top = 0, smallest = std::numeric_limits<double>::infinity();
  for (const auto& m : maps)
    for (float f : m) {
      if (!std::isfinite(f)) continue;
      const double v = signed_values ? std::abs(double(f)) : std::max(0.0, double(f));
      top = std::max(top, v);
      if (v > 0) smallest = std::min(smallest, v);
      if (kind == ColorScaleKind::rank) s.ranked.push_back(signed_values ? f : v);
    }
  s.max_abs = std::max({top, min_range, 1e-9});
  s.floor =
      std::max(std::isfinite(smallest) ? smallest : 0.0, s.max_abs * std::pow(10.0, -kLogDecades));
  if (kind == ColorScaleKind::rank) {
    std::sort(s.ranked.begin(), s.ranked.end());
    s.ranked.erase(std::unique(s.ranked.begin(), s.ranked.end()), s.ranked.end());
  }
  return s;
}

double color_scale_position(const ColorScale& s, double v) {
  if (!std::isfinite(v)) return kNaN;
  if (!s.signed_values) v = std::max(0.0, v);
  switch (s.kind) {
    case ColorScaleKind::linear:
      return clamp_unit(v / s.max_abs, s.signed_values);
    case ColorScaleKind::log: {
      const double a = std::log1p(std::abs(v) / s.floor) / std::log1p(s.max_abs / s.floor);
      return clamp_unit(v < 0 ? -a : a, s.signed_values);
    }
    case ColorScaleKind::rank: {
      const std::vector<double>& r = s.ranked;
      if (r.empty()) return 0;
      if (!s.signed_values)
        return r.size() == 1 ? (r[0] > 0 ? 1.0 : 0.0)
                             : rank_index(r, v) / static_cast<double>(r.size() - 1);
      if (v == 0) return 0;
      const auto zero = std::lower_bound(r.begin(), r.end(), 0.0);
      const auto first_pos = std::upper_bound(r.begin(), r.end(), 0.0);
      const std::vector<double> neg(r.begin(), zero);  // small: only built per call in ticks
      if (v < 0) {
        if (neg.empty()) return -1;
        // n_i -> -(N - i) / N; between the largest negative and 0: linear to 0.
        const double n = static_cast<double>(neg.size());
        if (v > neg.back()) return -(1.0 / n) * (v / neg.back());
        return -(n - rank_index(neg, v)) / n;
      }
      const std::vector<double> pos(first_pos, r.end());
      if (pos.empty()) return 1;
      const double n = static_cast<double>(pos.size());
      if (v < pos.front()) return (1.0 / n) * (v / pos.front());
      return (rank_index(pos, v) + 1) / n;
    }
  }
  return kNaN;
}

std::vector<float> color_scale_positions(const ColorScale& s, std::span<const float> values) {
  std::vector<float> out(values.size());
  if (s.kind == ColorScaleKind::rank && s.signed_values) {
    // Split once instead of per value (color_scale_position copies the halves).
    const std::vector<double>& r = s.ranked;
    const auto zero = std::lower_bound(r.begin(), r.end(), 0.0);
    const auto first_pos = std::upper_bound(r.begin(), r.end(), 0.0);
    const std::vector<double> neg(r.begin(), zero), pos(first_pos, r.end());
    const double nn = static_cast<double>(neg.size()), np = static_cast<double>(pos.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      double p;
      if (!std::isfinite(v))
        p = kNaN;
      else if (v == 0)
        p = 0;
      else if (v < 0)
        p = neg.empty()      ? -1
            : v > neg.back() ? -(1.0 / nn) * (v / neg.back())
                             : -(nn - rank_index(neg, v)) / nn;
      else
        p = pos.empty()       ? 1
            : v < pos.front() ? (1.0 / np) * (v / pos.front())
                              : (rank_index(pos, v) + 1) / np;
      out[i] = static_cast<float>(p);
    }
    return out;
  }
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = static_cast<float>(color_scale_position(s, values[i]));
  return out;
}

std::vector<ColorTick> color_scale_ticks(const ColorScale& s, int max_ticks) {
  max_ticks = std::max(max_ticks, 2);
  std::vector<ColorTick> ticks;
  const double top = s.max_abs, bottom = s.signed_values ? -top : 0.0;
  switch (s.kind) {
    case ColorScaleKind::linear: {
      const double step = nice_step((top - bottom) / (max_ticks - 1));
      add_tick(ticks, s, bottom);
      for (double k = std::ceil(bottom / step); k * step <= top; k += 1) {
        const double v = k * step;
        // Skip round values crowding an end (the ends are labelled exactly).
        if (v - bottom > 0.4 * step && top - v > 0.4 * step) add_tick(ticks, s, v);
      }
      add_tick(ticks, s, top);
      break;
    }
    case ColorScaleKind::log: {
      const int lo = static_cast<int>(std::ceil(std::log10(s.floor) - 1e-9));
      const int hi = static_cast<int>(std::floor(std::log10(top) + 1e-9));
      const int room = s.signed_values ? (max_ticks - 3) / 2 : max_ticks - 2;  // decades shown
      const int every = std::max(1, (hi - lo + room) / std::max(room, 1));
      std::vector<double> decades;
      for (int e = hi; e >= lo && room > 0; e -= every)
        if (top / std::pow(10.0, e) > 1.5) decades.push_back(std::pow(10.0, e));
      if (s.signed_values) {
        add_tick(ticks, s, -top);
        for (double d : decades) add_tick(ticks, s, -d);
      }
      add_tick(ticks, s, 0.0);
      for (auto it = decades.rbegin(); it != decades.rend(); ++it) add_tick(ticks, s, *it);
      add_tick(ticks, s, top);
      break;
    }
    case ColorScaleKind::rank: {
      const double p0 = s.signed_values ? -1.0 : 0.0;
      for (int i = 0; i < max_ticks; ++i)
        add_tick(ticks, s, rank_value_at(s, p0 + (1.0 - p0) * i / (max_ticks - 1)));
      break;
    }
  }
  std::sort(ticks.begin(), ticks.end(),
            [](const ColorTick& a, const ColorTick& b) { return a.value < b.value; });
  return ticks;
}

double nice_step(double min_step) {
  if (!(min_step > 0) || !std::isfinite(min_step)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(min_step)));
  for (double f : {1.0, 2.0, 5.0, 10.0})
    if (f * p >= min_step * (1 - 1e-12)) return f * p;
  return 10 * p;
}

int axis_tick_step(int count, double cell_px, double label_px) {
  if (count <= 1 || !(cell_px > 0)) return std::max(count, 1);
  const double need = std::max(label_px, 1e-9) / cell_px;
  if (need <= 1) return 1;
  return static_cast<int>(std::ceil(nice_step(need) - 1e-9));
}

}  // namespace poslab
