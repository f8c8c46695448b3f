// Heatmaps: float data texture -> colour map shader -> RGBA texture for ImGui::Image.
#include "app/gfx/heatmap_texture.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/gfx/opaque_rect.hpp"

namespace poslab::app::gfx {

namespace {

void make_texture(GLuint& tex, GLint internal, GLenum format, GLenum type, int w, int h,
                  const void* data) {
  if (!tex) glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, internal, w, h, 0, format, type, data);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

}  // namespace

void HeatmapTexture::render(GLuint data_tex, GLuint target_tex, GLuint fbo, int w, int h,
                            float vmin, float vmax, Colormap map) {
  if (!program_.id()) program_ = ShaderProgram("fullscreen.vert", "heatmap.frag");
  if (!vao_) glGenVertexArrays(1, &vao_);
  GLint saved_fbo = 0, saved_viewport[4], saved_program = 0, saved_vao = 0, saved_tex = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &saved_fbo);
  glGetIntegerv(GL_VIEWPORT, saved_viewport);
  glGetIntegerv(GL_CURRENT_PROGRAM, &saved_program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &saved_vao);
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &saved_tex);
  const GLboolean blend = glIsEnabled(GL_BLEND), scissor = glIsEnabled(GL_SCISSOR_TEST);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);

  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target_tex, 0);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("heatmap framebuffer incomplete");
  glViewport(0, 0, w, h);
  program_.use();
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, data_tex);
  glUniform1i(program_.uniform("values"), 0);
  glUniform1f(program_.uniform("vmin"), vmin);
  glUniform1f(program_.uniform("vmax"), vmax);
  glUniform1i(program_.uniform("colormap"), static_cast<int>(map));
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);

  glBindVertexArray(saved_vao);
  glUseProgram(saved_program);
  glBindTexture(GL_TEXTURE_2D, saved_tex);
  glBindFramebuffer(GL_FRAMEBUFFER, saved_fbo);
  glViewport(saved_viewport[0], saved_viewport[1], saved_viewport[2], saved_viewport[3]);
  if (blend) glEnable(GL_BLEND);
  if (scissor) glEnable(GL_SCISSOR_TEST);
}

void HeatmapTexture::update(const float* values, int rows, int cols, float vmin, float vmax,
                            Colormap map) {
  if (rows < 1 || cols < 1 || rows > 4096 || cols > 4096)
    throw std::runtime_error("heatmap of " + std::to_string(rows) + " x " + std::to_string(cols) +
                             " cells is outside 1..4096 per side");
  cell_values_.clear();
  cell_positions_.clear();
  // The data texture holds row 0 first; the shader flips so row 0 appears at the top.
  const bool resized = rows != rows_ || cols != cols_;
  if (resized || !data_) {
    make_texture(data_, GL_R32F, GL_RED, GL_FLOAT, cols, rows, values);
    make_texture(color_, GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, cols, rows, nullptr);
    if (!fbo_) glGenFramebuffers(1, &fbo_);
  } else {
    glBindTexture(GL_TEXTURE_2D, data_);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols, rows, GL_RED, GL_FLOAT, values);
  }
  rows_ = rows;
  cols_ = cols;
  vmin_ = vmin;
  vmax_ = vmax;
  map_ = map;
  legend_.clear();  // the uploader sets the ticks of its scale after the values
  render(data_, color_, fbo_, cols, rows, vmin, vmax, map);
}

ImVec2 HeatmapTexture::draw(ImVec2 size) const {
  if (empty()) return ImVec2(-1, -1);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // GL texture row 0 is the bottom; the shader already flipped, so draw with v from 1 to 0.
  // Every colour the shader writes is opaque: drawn without blending, a software renderer
  // need not read the pixels under the image (docs/performance.md).
  begin_without_blending(ImGui::GetWindowDrawList());
  ImGui::Image(texture(), size, ImVec2(0, 1), ImVec2(1, 0));
  end_without_blending(ImGui::GetWindowDrawList());
  if (!ImGui::IsItemHovered()) return ImVec2(-1, -1);
  const ImVec2 m = ImGui::GetIO().MousePos;
  const int c = std::clamp(static_cast<int>((m.x - origin.x) / size.x * cols_), 0, cols_ - 1);
  const int r = std::clamp(static_cast<int>((m.y - origin.y) / size.y * rows_), 0, rows_ - 1);
  return ImVec2(static_cast<float>(c), static_cast<float>(r));
}

void HeatmapTexture::draw_colorbar(ImVec2 size) {
  constexpr int kSteps = 256;
  std::vector<float> ramp(kSteps);
  const bool diverging = map_ == Colormap::diverging;
  const float m = std::max(std::abs(vmin_), std::abs(vmax_));
  const float lo = diverging ? -m : vmin_, hi = diverging ? m : vmax_;
  for (int i = 0; i < kSteps; ++i) ramp[i] = lo + (hi - lo) * static_cast<float>(i) / (kSteps - 1);
  make_texture(bar_data_, GL_R32F, GL_RED, GL_FLOAT, kSteps, 1, ramp.data());
  if (!bar_color_)
    make_texture(bar_color_, GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, kSteps, 1, nullptr);
  if (!bar_fbo_) glGenFramebuffers(1, &bar_fbo_);
  render(bar_data_, bar_color_, bar_fbo_, kSteps, 1, lo, hi, map_);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a GL texture name in ImGui's ImTextureID
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(bar_color_)), size);
  if (!legend_.empty()) {
    // Tick marks under the bar; a label is drawn only where it clears the previous one
    // (the last label, the top of the range, wins over its neighbour).
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 lo_corner = ImGui::GetItemRectMin(), hi_corner = ImGui::GetItemRectMax();
    const ImU32 col = ImGui::GetColorU32(ImGuiCol_Text);
    const float gap = ImGui::CalcTextSize(" ").x * 1.5f, y = hi_corner.y + 1.0f;
    const float tick_h = std::max(2.0f, size.y * 0.5f);
    std::vector<float> left(legend_.size()), right(legend_.size());
    std::vector<char> show(legend_.size(), 0);
    for (size_t i = 0; i < legend_.size(); ++i) {
      const float x = lo_corner.x + std::clamp(legend_[i].at, 0.0f, 1.0f) * size.x;
      const float w = ImGui::CalcTextSize(legend_[i].label.c_str()).x;
      left[i] = std::clamp(x - w * 0.5f, lo_corner.x, std::max(lo_corner.x, hi_corner.x - w));
      right[i] = left[i] + w;
      dl->AddLine(ImVec2(x, y), ImVec2(x, y + tick_h), col);
    }
    float last_right = -1e30f;
    const size_t n = legend_.size();
    for (size_t i = 0; i < n; ++i) {
      const bool clears_last = i + 1 == n || right[i] + gap <= left[n - 1];
      if (left[i] >= last_right + gap && clears_last) {
        show[i] = 1;
        last_right = right[i];
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (show[i]) dl->AddText(ImVec2(left[i], y + tick_h), col, legend_[i].label.c_str());
    ImGui::Dummy(ImVec2(size.x, tick_h + ImGui::GetTextLineHeight()));
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", lo);
  ImGui::TextUnformatted(buf);
  std::snprintf(buf, sizeof buf, "%.4g", hi);
  ImGui::SameLine(std::max(0.0f, size.x - ImGui::CalcTextSize(buf).x));
  ImGui::TextUnformatted(buf);
}

void HeatmapTexture::release() {
  for (GLuint* t : {&data_, &color_, &bar_data_, &bar_color_})
    if (*t) glDeleteTextures(1, t), *t = 0;
  for (GLuint* f : {&fbo_, &bar_fbo_})
    if (*f) glDeleteFramebuffers(1, f), *f = 0;
  if (vao_) glDeleteVertexArrays(1, &vao_), vao_ = 0;
  program_ = ShaderProgram();
  legend_.clear();
  rows_ = cols_ = 0;
}

}  // namespace poslab::app::gfx
