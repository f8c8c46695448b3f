// count_fill (app/gfx/fill_count.hpp): pixels covered by ImGui draw data, clipped to each
// command's clip rectangle, checked against areas computed by hand.
#include "app/gfx/fill_count.hpp"

#include <imgui.h>
#include <catch2/catch.hpp>

#include <initializer_list>

namespace {

// A draw list built by hand: one command per clip rectangle, triangles given by corners.
struct Shapes {
  ImDrawList list{nullptr};  // filled by hand; no ImGui context needed
  void command(ImVec4 clip) {
    ImDrawCmd cmd;
    cmd.ClipRect = clip;
    cmd.IdxOffset = static_cast<unsigned>(list.IdxBuffer.Size);
    list.CmdBuffer.push_back(cmd);
  }
  void triangle(ImVec2 a, ImVec2 b, ImVec2 c) {
    for (ImVec2 p : {a, b, c}) {
      ImDrawVert v{};
      v.pos = p;
      list.IdxBuffer.push_back(static_cast<ImDrawIdx>(list.VtxBuffer.Size));
      list.VtxBuffer.push_back(v);
    }
    list.CmdBuffer.back().ElemCount += 3;
  }
  void rect(ImVec2 a, ImVec2 b) {
    triangle(a, ImVec2(b.x, a.y), b);
    triangle(a, b, ImVec2(a.x, b.y));
  }
  poslab::app::FillCount count(ImVec2 scale = ImVec2(1, 1), bool per_list = false) {
    ImDrawList* p = &list;
    ImDrawData d;
    d.Valid = true;
    d.CmdLists = &p;
    d.CmdListsCount = 1;
    d.DisplayPos = ImVec2(0, 0);
    d.DisplaySize = ImVec2(100, 100);
    d.FramebufferScale = scale;
    return poslab::app::count_fill(d, per_list);
  }
};

}  // namespace

TEST_CASE("count_fill sums triangle areas inside the clip rectangle", "[app][fill]") {
  Shapes s;
  s.command(ImVec4(0, 0, 100, 100));
  SECTION("a rectangle inside covers its area") {
    s.rect(ImVec2(10, 10), ImVec2(30, 20));
    const auto f = s.count(ImVec2(1, 1), true);
    CHECK(f.pixels == Approx(200.0));
    CHECK(f.triangles == 2);
    REQUIRE(f.per_list.size() == 1);
    CHECK(f.per_list[0].second == Approx(200.0));
  }
  SECTION("parts outside the clip rectangle are not counted") {
    s.command(ImVec4(0, 0, 20, 100));
    s.rect(ImVec2(10, 10), ImVec2(30, 20));  // half inside
    s.triangle(ImVec2(0, 40), ImVec2(40, 40), ImVec2(0, 80));
    // The triangle cut at x = 20: a trapezoid of width 20, heights 40 and 20 -> 600.
    CHECK(s.count().pixels == Approx(100.0 + 600.0));
  }
  SECTION("a triangle wholly outside counts nothing") {
    s.triangle(ImVec2(110, 10), ImVec2(150, 10), ImVec2(110, 50));
    CHECK(s.count().pixels == Approx(0.0));
  }
  SECTION("the framebuffer scale multiplies areas") {
    s.rect(ImVec2(10, 10), ImVec2(30, 20));
    CHECK(s.count(ImVec2(2, 2)).pixels == Approx(800.0));
  }
}
