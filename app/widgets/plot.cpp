// The line-plot widget (see plot.hpp): axis fitting and ticks, per-pixel-column envelopes
// for long series (a decay curve of 100k samples still shows its oscillation), gaps at
// NaN, legend and hover readout.
#include "app/widgets/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gfx/opaque_rect.hpp"
#include "app/widgets/theme_colour.hpp"

namespace poslab::app {
namespace {

// A polyline as dashes of 6 px with gaps of 4 px (before UI scale), along its length.
void plot_dashes(ImDrawList* dl, const std::vector<ImVec2>& pts, ImU32 colour, float thick,
                 float sc) {
  const float on = 6.0f * sc, period = 10.0f * sc;
  float phase = 0;  // distance along the line modulo the period
  for (size_t i = 1; i < pts.size(); ++i) {
    const ImVec2 a = pts[i - 1], b = pts[i];
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    float t = 0;
    while (t < len) {
      const float left = phase < on ? on - phase : period - phase;
      const float step = std::min(left, len - t);
      if (phase < on && len > 0) {
        const float u0 = t / len, u1 = (t + step) / len;
        dl->AddLine(ImVec2(a.x + (b.x - a.x) * u0, a.y + (b.y - a.y) * u0),
                    ImVec2(a.x + (b.x - a.x) * u1, a.y + (b.y - a.y) * u1), colour, thick);
      }
      t += step;
      phase = std::fmod(phase + step, period);
    }
  }
}

bool usable(double v, bool log) {
  return std::isfinite(v) && (!log || v > 0);
}
double to_axis(double v, bool log) {
  return log ? std::log10(v) : v;
}
double from_axis(double a, bool log) {
  return log ? std::pow(10.0, a) : a;
}

double sample_x(const PlotSeries& s, size_t i) {
  return s.x.empty() ? s.x0 + static_cast<double>(i) * s.dx : s.x[i];
}

// Index of the sample whose x is nearest to `x` (series x ascending).
int nearest_index(const PlotSeries& s, double x) {
  const size_t n = s.y.size();
  if (n == 0) return -1;
  if (s.x.empty()) {
    const double f = s.dx != 0 ? (x - s.x0) / s.dx : 0.0;
    return static_cast<int>(std::clamp(std::lround(f), 0L, static_cast<long>(n - 1)));
  }
  const size_t m = std::min(n, s.x.size());
  const auto it = std::lower_bound(s.x.begin(), s.x.begin() + static_cast<long>(m), x);
  size_t i = static_cast<size_t>(it - s.x.begin());
  if (i >= m) return static_cast<int>(m - 1);
  if (i > 0 && x - s.x[i - 1] < s.x[i] - x) --i;
  return static_cast<int>(i);
}

// Axis range in axis units (log10 for log axes), fitted to data unless fixed.
void fit(const PlotAxis& a, double data_lo, double data_hi, bool pad, double& lo, double& hi) {
  lo = std::isfinite(a.lo) && usable(a.lo, a.log) ? to_axis(a.lo, a.log) : data_lo;
  hi = std::isfinite(a.hi) && usable(a.hi, a.log) ? to_axis(a.hi, a.log) : data_hi;
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi <= lo) {
    const double c = lo, w = std::max(1e-12, std::abs(c) * 0.05);
    lo = c - w, hi = c + w;
  } else if (pad && !std::isfinite(a.lo) && !std::isfinite(a.hi)) {
    const double w = (hi - lo) * 0.04;
    lo -= w, hi += w;
  }
}

// Tick positions in axis units: 1-2-5 steps (linear) or whole decades (log).
std::vector<double> ticks(double lo, double hi, bool log, int max_ticks) {
  std::vector<double> t;
  max_ticks = std::max(2, max_ticks);
  double step;
  if (log) {
    step = std::max(1.0, std::ceil((hi - lo) / max_ticks));
  } else {
    const double raw = (hi - lo) / max_ticks;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / mag;
    step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

std::string tick_text(double axis_value, bool log) {
  char buf[32];
  if (log) {
    const int e = static_cast<int>(std::lround(axis_value));
    if (e >= -2 && e <= 4)
      std::snprintf(buf, sizeof buf, "%g", std::pow(10.0, e));
    else
      std::snprintf(buf, sizeof buf, "1e%d", e);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", axis_value);
  }
  return buf;
}

}  // namespace

ImU32 plot_series_colour(size_t i) {
  static constexpr ImU32 kColours[kPlotSeriesColours] = {
      IM_COL32(86, 180, 233, 255),   // sky blue
      IM_COL32(230, 159, 0, 255),    // orange
      IM_COL32(0, 158, 115, 255),    // bluish green
      IM_COL32(204, 121, 167, 255),  // reddish purple
      IM_COL32(240, 228, 66, 255),   // yellow
      IM_COL32(213, 94, 0, 255),     // vermillion
      IM_COL32(0, 114, 178, 255),    // blue
      IM_COL32(170, 170, 170, 255),  // grey
  };
  return kColours[i % kPlotSeriesColours];
}

PlotRange plot_y_range(const std::vector<PlotSeries>& series, bool log) {
  PlotRange r;
  for (const PlotSeries& s : series)
    for (double v : s.y)
      if (usable(v, log)) {
        r.lo = std::isnan(r.lo) ? v : std::min(r.lo, v);
        r.hi = std::isnan(r.hi) ? v : std::max(r.hi, v);
      }
  return r;
}

PlotHover plot(const PlotSpec& spec) {
  PlotHover hover;
  ImGui::PushID(spec.id);
  const float sc = spec.scale, line = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 size(std::max(kPlotMinWidth * sc, spec.size.x > 0 ? spec.size.x : avail.x),
              std::max(kPlotMinHeight * sc, spec.size.y > 0 ? spec.size.y : avail.y));

  // The legend: entries side by side in rows above the data area, so it never covers a
  // curve; drawn in the theme's text colour on the window (readable in either theme).
  struct LegendEntry {
    ImVec2 at;  // offset from the plot's top-left corner
    size_t series;
  };
  std::vector<LegendEntry> legend;
  float legend_h = 0;
  // The y axis' label opens the row above the data ("loss", "position error (px)").
  const float ylabel_w =
      spec.y.label.empty() ? 0.0f : ImGui::CalcTextSize(spec.y.label.c_str()).x + 14.0f * sc;
  if ((spec.legend && !spec.series.empty()) || ylabel_w > 0) {
    float lx = ylabel_w, ly = 0;
    for (size_t si = 0; spec.legend && si < spec.series.size(); ++si) {
      const float ew = 26.0f * sc + ImGui::CalcTextSize(spec.series[si].label.c_str()).x;
      if (lx > 0 && lx + ew > size.x) lx = 0, ly += line;
      legend.push_back({ImVec2(lx, ly), si});
      lx += ew + 14.0f * sc;
    }
    legend_h = ly + line + 4.0f * sc;
    size.y = std::max(size.y, kPlotMinHeight * sc + legend_h);  // the data keeps its minimum
  }

  // Data ranges in axis units.
  double xlo = NAN, xhi = NAN;
  for (const PlotSeries& s : spec.series) {
    if (s.y.empty()) continue;
    const size_t n = s.x.empty() ? s.y.size() : std::min(s.y.size(), s.x.size());
    for (size_t i : {size_t{0}, n - 1}) {
      const double v = sample_x(s, i);
      if (!usable(v, spec.x.log)) continue;
      const double a = to_axis(v, spec.x.log);
      xlo = std::isnan(xlo) ? a : std::min(xlo, a);
      xhi = std::isnan(xhi) ? a : std::max(xhi, a);
    }
  }
  const PlotRange yr = plot_y_range(spec.series, spec.y.log);
  double x0, x1, y0, y1;
  fit(spec.x, xlo, xhi, false, x0, x1);
  fit(spec.y, std::isnan(yr.lo) ? NAN : to_axis(yr.lo, spec.y.log),
      std::isnan(yr.hi) ? NAN : to_axis(yr.hi, spec.y.log), true, y0, y1);

  // Layout: y tick labels on the left, x tick labels and the axis label below.
  const std::vector<double> yt =
      ticks(y0, y1, spec.y.log, static_cast<int>((size.y - legend_h) / (line * 2.2f)));
  float label_w = 0;
  for (double t : yt)
    label_w = std::max(label_w, ImGui::CalcTextSize(tick_text(t, spec.y.log).c_str()).x);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float left = label_w + 6.0f * sc, bottom = line * (spec.x.label.empty() ? 1.2f : 2.2f);
  const ImVec2 a(o.x + left, o.y + legend_h + 2.0f * sc), b(o.x + size.x, o.y + size.y - bottom);
  const float w = std::max(1.0f, b.x - a.x), h = std::max(1.0f, b.y - a.y);
  auto px = [&](double v) { return a.x + static_cast<float>((v - x0) / (x1 - x0)) * w; };
  auto py = [&](double v) { return b.y - static_cast<float>((v - y0) / (y1 - y0)) * h; };

  ImGui::InvisibleButton("##area", size);
  const bool item_hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text),
              dim = ImGui::GetColorU32(ImGuiCol_TextDisabled), grid = IM_COL32(128, 128, 128, 45);
  gfx::add_opaque_rect(dl, a, b, ImGui::GetStyle().Colors[ImGuiCol_FrameBg]);

  for (double t : yt) {
    const float y = py(t);
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), grid);
    const std::string s = tick_text(t, spec.y.log);
    dl->AddText(ImVec2(a.x - ImGui::CalcTextSize(s.c_str()).x - 3.0f * sc, y - line * 0.5f), dim,
                s.c_str());
  }
  if (!spec.y.log && y0 < 0 && y1 > 0)
    dl->AddLine(ImVec2(a.x, py(0)), ImVec2(b.x, py(0)), ImGui::GetColorU32(ImGuiCol_Border));
  const std::vector<double> xt = ticks(x0, x1, spec.x.log, static_cast<int>(w / (line * 5.0f)));
  for (double t : xt) {
    const float x = px(t);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), grid);
    const std::string s = tick_text(t, spec.x.log);
    const float tw = ImGui::CalcTextSize(s.c_str()).x;
    dl->AddText(ImVec2(std::clamp(x - tw * 0.5f, a.x - left, b.x - tw), b.y + 1.0f), dim,
                s.c_str());
  }
  if (!spec.x.label.empty()) {
    const float tw = ImGui::CalcTextSize(spec.x.label.c_str()).x;
    dl->AddText(ImVec2(a.x + (w - tw) * 0.5f, b.y + line + 1.0f), dim, spec.x.label.c_str());
  }

  dl->PushClipRect(a, b, true);
  for (const PlotBand& band : spec.bands) {
    if (!usable(band.lo, spec.y.log) || !usable(band.hi, spec.y.log)) continue;
    const float ya = py(to_axis(band.hi, spec.y.log)), yb = py(to_axis(band.lo, spec.y.log));
    dl->AddRectFilled(ImVec2(a.x, std::max(a.y, ya)), ImVec2(b.x, std::min(b.y, yb)), band.colour);
    if (!band.label.empty())
      dl->AddText(ImVec2(a.x + 4.0f * sc, std::clamp(ya + 2.0f * sc, a.y, b.y - line)),
                  band.label_colour, band.label.c_str());
  }
  for (const PlotMark& m : spec.marks) {
    if (!usable(m.y, spec.y.log)) continue;
    const float y = py(to_axis(m.y, spec.y.log));
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), m.colour, 1.0f);
    if (!m.label.empty()) {
      const float tw = ImGui::CalcTextSize(m.label.c_str()).x;
      dl->AddText(ImVec2(b.x - tw - 4.0f * sc, y - line), m.colour, m.label.c_str());
    }
  }
  for (const PlotXMark& m : spec.x_marks) {
    if (!usable(m.x, spec.x.log)) continue;
    const float x = px(to_axis(m.x, spec.x.log));
    if (x < a.x || x > b.x) continue;
    for (float y = a.y; y < b.y; y += 8.0f * sc)  // dashed: it is a boundary, not a curve
      dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(b.y, y + 5.0f * sc)), m.colour, 1.5f * sc);
    if (!m.label.empty()) {
      const float tw = ImGui::CalcTextSize(m.label.c_str()).x;
      const float tx = x + 4.0f * sc + tw < b.x ? x + 4.0f * sc : x - 4.0f * sc - tw;
      dl->AddText(ImVec2(tx, a.y + 2.0f * sc), m.colour, m.label.c_str());
    }
  }
  // Series: all points when they are few, else one min/max envelope per pixel column.
  std::vector<ImVec2> pts;
  for (size_t si = 0; si < spec.series.size(); ++si) {
    const PlotSeries& s = spec.series[si];
    const size_t n = s.x.empty() ? s.y.size() : std::min(s.y.size(), s.x.size());
    const float thick = s.thickness * sc * (static_cast<int>(si) == spec.highlight ? 1.8f : 1.0f);
    const ImU32 colour = theme_colour(s.colour);  // bright hues darkened on the light theme
    auto flush = [&] {
      if (pts.size() == 1)
        dl->AddCircleFilled(pts[0], std::max(2.0f, thick), colour);
      else if (pts.size() > 1 && !s.dashed)
        dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), colour, 0, thick);
      else if (pts.size() > 1)
        plot_dashes(dl, pts, colour, thick, sc);
      pts.clear();
    };
    const bool envelope = static_cast<double>(n) > 2.0 * w;
    int column = -1;
    float cmin = 0, cmax = 0, cfirst = 0;
    size_t imin = 0, imax = 0;
    auto emit_column = [&] {
      if (column < 0) return;
      const float x = a.x + static_cast<float>(column);
      pts.emplace_back(x, cfirst);
      if (imin < imax) {
        pts.emplace_back(x, cmin);
        pts.emplace_back(x, cmax);
      } else {
        pts.emplace_back(x, cmax);
        pts.emplace_back(x, cmin);
      }
      column = -1;
    };
    for (size_t i = 0; i < n; ++i) {
      const double xv = sample_x(s, i), yv = s.y[i];
      if (!usable(xv, spec.x.log) || !usable(yv, spec.y.log)) {
        emit_column();
        flush();
        continue;
      }
      const ImVec2 p(px(to_axis(xv, spec.x.log)), py(to_axis(yv, spec.y.log)));
      if (!envelope) {
        pts.push_back(p);
        continue;
      }
      const int c = static_cast<int>(p.x - a.x);
      if (c != column) {
        emit_column();
        column = c, cfirst = cmin = cmax = p.y, imin = imax = i;
      } else {
        if (p.y < cmin) cmin = p.y, imin = i;
        if (p.y > cmax) cmax = p.y, imax = i;
      }
    }
    emit_column();
    flush();
  }
  dl->PopClipRect();

  if (ylabel_w > 0) dl->AddText(o, dim, spec.y.label.c_str());
  for (const LegendEntry& e : legend) {
    const PlotSeries& s = spec.series[e.series];
    const ImVec2 p(o.x + e.at.x, o.y + e.at.y);
    const float lw = (static_cast<int>(e.series) == spec.highlight ? 3.5f : 2.5f) * sc;
    if (s.dashed)
      plot_dashes(
          dl,
          {ImVec2(p.x + 2.0f * sc, p.y + line * 0.5f), ImVec2(p.x + 20.0f * sc, p.y + line * 0.5f)},
          theme_colour(s.colour), lw, sc);
    else
      dl->AddLine(ImVec2(p.x + 2.0f * sc, p.y + line * 0.5f),
                  ImVec2(p.x + 20.0f * sc, p.y + line * 0.5f), theme_colour(s.colour), lw);
    dl->AddText(ImVec2(p.x + 24.0f * sc, p.y), text, s.label.c_str());
  }

  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (item_hovered && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) {
    hover.hovered = true;
    hover.x = from_axis(x0 + (mouse.x - a.x) / w * (x1 - x0), spec.x.log);
    if (!spec.series.empty()) hover.index = nearest_index(spec.series[0], hover.x);
    dl->AddLine(ImVec2(mouse.x, a.y), ImVec2(mouse.x, b.y), IM_COL32(255, 255, 255, 120));
    if (spec.tooltip) {
      ImGui::BeginTooltip();
      ImGui::Text(
          "%s = %.6g", spec.x.label.empty() ? "x" : spec.x.label.c_str(),
          spec.series.empty() || hover.index < 0 ? hover.x : sample_x(spec.series[0], hover.index));
      for (const PlotSeries& s : spec.series) {
        const int i = nearest_index(s, hover.x);
        if (i < 0) continue;
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(theme_colour(s.colour)), "%s: %.6g",
                           s.label.c_str(), s.y[static_cast<size_t>(i)]);
      }
      ImGui::EndTooltip();
    }
  }
  ImGui::PopID();
  return hover;
}

}  // namespace poslab::app
