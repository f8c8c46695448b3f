#pragma once
// Pixels a frame asks the rasteriser to fill: the area of every triangle in ImGui's draw
// data, clipped to its command's clip rectangle, in framebuffer pixels. A load-independent
// measure of fill cost (overdraw) for the software renderer (docs/performance.md); used by
// `poslab --frames N --frame-times`.
#include <string>
#include <utility>
#include <vector>

struct ImDrawData;

namespace poslab::app {

struct FillCount {
  double pixels = 0;                                     // sum of clipped triangle areas
  double triangles = 0;                                  // triangles drawn
  std::vector<std::pair<std::string, double>> per_list;  // owner window, pixels (if asked)
};

FillCount count_fill(const ImDrawData& data, bool per_list = false);

}  // namespace poslab::app
