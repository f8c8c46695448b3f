// How numbers become colour positions, and the ticks that label them: the linear, log and
// rank (quantile) colour scales of the heatmaps, one range over several maps (a shared
// scale for side-by-side views), and "nice" tick steps (1, 2, 5 x 10^k) for axes and
// legends. Pure functions; the app uploads the positions and draws the ticks.
//
// Positions: unsigned scales map onto [0, 1]; signed (diverging) scales onto [-1, 1] with
// the value 0 at position 0 (white), negatives below, positives above. NaN stays NaN.
#pragma once
#include <span>
#include <string>
#include <vector>

namespace poslab {

enum class ColorScaleKind {
  linear,  // position proportional to the value
  log,     // log10(1 + |v| / floor): decades above `floor` get equal room; 0 maps to 0
  rank,    // quantile: distinct values spread uniformly, ties share a position
};
// "linear", "log", "rank", in enum order.
const std::vector<std::string>& color_scale_names();

struct ColorScale {
  ColorScaleKind kind = ColorScaleKind::linear;
  bool signed_values = false;  // diverging around 0, else from 0 (unsigned data, v >= 0)
  double max_abs = 1;          // largest |finite value| covered (> 0)
  double floor = 1;            // log: the |value| below which the scale is linear (> 0)
  std::vector<double> ranked;  // rank: distinct finite |values| (signed: with their sign), sorted
};

// A scale fitted to every finite value of all `maps` (one range over all: the shared scale
// of side-by-side maps). `min_range` > 0 widens the range to at least that (a difference is
// drawn on the scale of what it compares). Unsigned scales clamp negative values to 0.
ColorScale color_scale_fit(ColorScaleKind kind, bool signed_values,
                           const std::vector<std::span<const float>>& maps, double min_range = 0);
// Position of one value (see the header comment); monotone non-decreasing in v.
double color_scale_position(const ColorScale& s, double v);
// Positions of a whole map (NaN and infinities become NaN: drawn grey).
std::vector<float> color_scale_positions(const ColorScale& s, std::span<const float> values);

// A labelled tick of a legend: where it sits and which value it names.
struct ColorTick {
  double position = 0;  // colour position (as color_scale_position)
  double value = 0;
};
// At most `max_ticks` ticks (>= 2) that label the scale: nice round values for linear,
// powers of ten for log, quantiles for rank. Always includes both ends.
std::vector<ColorTick> color_scale_ticks(const ColorScale& s, int max_ticks);

// The smallest step of the form {1, 2, 5} x 10^k that is >= min_step (> 0).
double nice_step(double min_step);
// Integer tick step for an axis of `count` cells each `cell_px` wide whose labels need
// `label_px` plus a gap: a nice step (1, 2, 5, 10, 20, 50, ...) whose ticks never overlap.
int axis_tick_step(int count, double cell_px, double label_px);

}  // namespace poslab
