// A small line-plot widget for the labs: several series against a shared x, linear or
// log axes with labelled ticks, a legend, reference lines, a hover cursor whose tooltip
// reads every series at that x, and a y range that several plots can share. Draws what
// it is given (numbers come from core); NaN values leave a gap instead of a made-up point.
#pragma once
#include <imgui.h>

#include <limits>
#include <span>
#include <string>
#include <vector>

namespace poslab::app {

// One curve. x empty: sample i sits at x0 + i * dx (a regular grid). x given: ascending.
struct PlotSeries {
  std::string label;                           // legend text and tooltip name
  std::span<const double> y;                   // values; NaN (or <= 0 on a log axis) leaves a gap
  std::span<const double> x = {};              // positions of the samples, ascending; or empty
  double x0 = 0, dx = 1;                       // the regular grid when x is empty
  ImU32 colour = IM_COL32(255, 170, 60, 255);  // line colour
  float thickness = 1.5f;                      // line width in pixels (before UI scale)
  bool dashed = false;                         // drawn as dashes (a reference curve)
};

// An axis: its label, linear or log10, and its range (NaN: fitted to the data).
struct PlotAxis {
  std::string label;                                     // under the x axis; above the y axis
  bool log = false;                                      // log10 scale; needs positive values
  double lo = std::numeric_limits<double>::quiet_NaN();  // fixed lower end, or NaN
  double hi = std::numeric_limits<double>::quiet_NaN();  // fixed upper end, or NaN
};

// A horizontal reference line (e.g. "float32 rounding").
struct PlotMark {
  double y;           // where, in data units
  ImU32 colour;       // line colour
  std::string label;  // shown at the line's right end
};

// A vertical reference line (e.g. "context ends" at x = the model's context).
struct PlotXMark {
  double x;           // where, in data units
  ImU32 colour;       // line colour
  std::string label;  // shown beside the line's top end
};

// A shaded horizontal band from lo to hi (e.g. "angles seen in training"), under the curves.
struct PlotBand {
  double lo, hi;      // where, in data units
  ImU32 colour;       // fill (give it a low alpha)
  std::string label;  // shown inside the band's top left corner
  ImU32 label_colour = IM_COL32(200, 200, 200, 255);
};

// Smallest plot the widget draws, in unscaled pixels: a caller asking for less (a narrow
// window) gets this much and the window scrolls, so a plot never shrinks to a sliver.
inline constexpr float kPlotMinWidth = 220.0f;
inline constexpr float kPlotMinHeight = 120.0f;

struct PlotSpec {
  const char* id = "plot";         // ImGui id, unique within the window
  ImVec2 size{0, 0};               // pixels; 0 = all available width / height
  PlotAxis x, y;                   // axes
  std::vector<PlotSeries> series;  // curves, drawn in order (last on top)
  std::vector<PlotMark> marks;     // horizontal reference lines
  std::vector<PlotXMark> x_marks;  // vertical reference lines
  std::vector<PlotBand> bands;     // shaded horizontal bands, under everything else
  bool legend = true;              // legend row(s) above the data area (never over it)
  bool tooltip = true;             // hover tooltip with every series' value at the cursor
  float scale = 1.0f;              // UI scale
  int highlight = -1;              // series drawn thicker (e.g. the one selected), or -1
};

// What the mouse is over, for a caller that adds its own tooltip lines.
struct PlotHover {
  bool hovered = false;  // the mouse is over the plot area
  int index = -1;        // nearest sample of series 0 at the cursor's x, or -1
  double x = 0;          // the cursor's x in data units
};

// A y range fitting every series given (for plots drawn side by side on one scale).
struct PlotRange {
  double lo = std::numeric_limits<double>::quiet_NaN();
  double hi = std::numeric_limits<double>::quiet_NaN();
};
PlotRange plot_y_range(const std::vector<PlotSeries>& series, bool log);

// Colours for plots that compare several curves: one palette, eight hues told apart on both
// themes and by most colour-blind readers (Okabe and Ito's set), series i -> colour i % 8.
ImU32 plot_series_colour(size_t i);
inline constexpr size_t kPlotSeriesColours = 8;

PlotHover plot(const PlotSpec& spec);

}  // namespace poslab::app
