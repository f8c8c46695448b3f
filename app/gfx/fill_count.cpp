#include "app/gfx/fill_count.hpp"

#include <imgui.h>

#include <cmath>

namespace poslab::app {
namespace {

// Area of triangle (a, b, c) clipped to the rectangle r (Sutherland-Hodgman, 4 edges).
double clipped_area(ImVec2 a, ImVec2 b, ImVec2 c, const ImVec4& r) {
  ImVec2 buf[2][9];
  int n = 3;
  buf[0][0] = a;
  buf[0][1] = b;
  buf[0][2] = c;
  int cur = 0;
  for (int edge = 0; edge < 4 && n > 0; ++edge) {
    const auto inside = [&](ImVec2 p) {
      switch (edge) {
        case 0:
          return p.x >= r.x;
        case 1:
          return p.x <= r.z;
        case 2:
          return p.y >= r.y;
        default:
          return p.y <= r.w;
      }
    };
    const auto cross = [&](ImVec2 p, ImVec2 q) {
      const float bound = edge == 0 ? r.x : edge == 1 ? r.z : edge == 2 ? r.y : r.w;
      const bool vertical = edge < 2;
      const float pv = vertical ? p.x : p.y, qv = vertical ? q.x : q.y;
      const float t = (bound - pv) / (qv - pv);
      return ImVec2(p.x + t * (q.x - p.x), p.y + t * (q.y - p.y));
    };
    int m = 0;
    for (int i = 0; i < n; ++i) {
      const ImVec2 p = buf[cur][i], q = buf[cur][(i + 1) % n];
      const bool pin = inside(p), qin = inside(q);
      if (pin) buf[1 - cur][m++] = p;
      if (pin != qin) buf[1 - cur][m++] = cross(p, q);
    }
    n = m;
    cur = 1 - cur;
  }
  double twice = 0;
  for (int i = 0; i < n; ++i) {
    const ImVec2 p = buf[cur][i], q = buf[cur][(i + 1) % n];
    twice += static_cast<double>(p.x) * q.y - static_cast<double>(q.x) * p.y;
  }
  return std::abs(twice) / 2;
}

}  // namespace

FillCount count_fill(const ImDrawData& data, bool per_list) {
  FillCount out;
  const ImVec2 off = data.DisplayPos, scale = data.FramebufferScale;
  const auto fb = [&](ImVec2 p) {
    return ImVec2((p.x - off.x) * scale.x, (p.y - off.y) * scale.y);
  };
  for (int l = 0; l < data.CmdListsCount; ++l) {
    const ImDrawList* list = data.CmdLists[l];
    double list_pixels = 0;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) continue;
      const ImVec4 clip((cmd.ClipRect.x - off.x) * scale.x, (cmd.ClipRect.y - off.y) * scale.y,
                        (cmd.ClipRect.z - off.x) * scale.x, (cmd.ClipRect.w - off.y) * scale.y);
      for (unsigned i = 0; i + 2 < cmd.ElemCount; i += 3) {
        const ImDrawIdx* idx = list->IdxBuffer.Data + cmd.IdxOffset + i;
        const ImDrawVert* v = list->VtxBuffer.Data + cmd.VtxOffset;
        list_pixels += clipped_area(fb(v[idx[0]].pos), fb(v[idx[1]].pos), fb(v[idx[2]].pos), clip);
        out.triangles += 1;
      }
    }
    out.pixels += list_pixels;
    if (per_list) out.per_list.emplace_back(list->_OwnerName ? list->_OwnerName : "?", list_pixels);
  }
  return out;
}

}  // namespace poslab::app
