// A matrix of numbers shown as an image: values are uploaded as a float texture and a
// colour map in shaders/heatmap.frag turns them into colours in an offscreen texture that
// ImGui::Image draws. NaN cells are drawn grey (masked / no value).
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "app/gfx/gl.hpp"
#include "app/gfx/shader.hpp"

namespace poslab::app::gfx {

enum class Colormap { viridis = 0, diverging = 1, terrain = 2 };

// A labelled tick under the colour bar: where it sits along the bar (0 = left, 1 = right).
struct LegendTick {
  float at = 0;
  std::string label;
};

class HeatmapTexture {
 public:
  HeatmapTexture() = default;
  HeatmapTexture(const HeatmapTexture&) = delete;
  HeatmapTexture& operator=(const HeatmapTexture&) = delete;
  ~HeatmapTexture() { release(); }

  // values: rows x cols, row-major (row r, column c at values[r * cols + c]). Values map
  // linearly from [vmin, vmax] onto the colour map (diverging: vmin blue, 0 white, vmax red).
  // Up to 4096 x 4096. Call from the GL thread (inside a panel's draw).
  void update(const float* values, int rows, int cols, float vmin, float vmax, Colormap map);
  ImTextureID texture() const {
    // ImGui carries a GL texture name in its pointer-sized ImTextureID (its OpenGL backend
    // reads it back): the cast is the API, not an address.
    // NOLINTNEXTLINE(performance-no-int-to-ptr)
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(color_));
  }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  bool empty() const { return color_ == 0; }
  // Draws the image at the cursor, size in pixels; returns the hovered cell or {-1, -1}.
  ImVec2 draw(ImVec2 size) const;  // returns (col, row) of the hovered cell, or (-1, -1)
  // A colour bar for this heatmap's map and range, at the cursor: labelled with the legend
  // ticks when set (labels that would overlap are left out), else with min and max.
  void draw_colorbar(ImVec2 size);
  // Ticks of the colour scale the uploaded values were mapped with (empty: min / max labels).
  void set_legend(std::vector<LegendTick> ticks) { legend_ = std::move(ticks); }
  // The numbers behind the colours of a small map, printed in its cells (values and their
  // colour positions, row-major); cleared by every update().
  void set_cell_values(std::vector<float> values, std::vector<float> positions) {
    cell_values_ = std::move(values);
    cell_positions_ = std::move(positions);
  }
  const std::vector<float>& cell_values() const { return cell_values_; }
  const std::vector<float>& cell_positions() const { return cell_positions_; }
  bool diverging() const { return map_ == Colormap::diverging; }
  void release();

 private:
  void render(GLuint data_tex, GLuint target_tex, GLuint fbo, int w, int h, float vmin, float vmax,
              Colormap map);
  ShaderProgram program_;
  GLuint data_ = 0, color_ = 0, fbo_ = 0, vao_ = 0;
  GLuint bar_data_ = 0, bar_color_ = 0, bar_fbo_ = 0;
  float vmin_ = 0, vmax_ = 1;
  Colormap map_ = Colormap::viridis;
  std::vector<LegendTick> legend_;
  std::vector<float> cell_values_, cell_positions_;
  int rows_ = 0, cols_ = 0;
};

}  // namespace poslab::app::gfx
