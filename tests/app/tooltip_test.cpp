// The tooltip widget (app/widgets/tooltip.hpp) in a real ImGui context without a display: a
// long text wraps into several lines no wider than 40 em (so it stays on screen), a short
// text keeps its own width, Chinese wraps too, and the printf form gives the same tooltip.
#include <imgui.h>
#include <imgui_internal.h>
#include <catch2/catch.hpp>

#include <string>

#include "app/widgets/tooltip.hpp"

using namespace poslab::app;

namespace {

struct TooltipSize {
  float width = 0, height = 0, wrap = 0, line = 0, padding = 0;
};

// Runs a few frames (a tooltip window fits its content one frame later) showing `show()`'s
// tooltip, and measures the tooltip window.
template <class Show>
TooltipSize measure(Show show) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->AddFontDefault();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas
  io.DisplaySize = ImVec2(3000, 2000);
  io.DeltaTime = 1.0f / 60;
  io.IniFilename = nullptr;
  TooltipSize out;
  for (int frame = 0; frame < 4; ++frame) {
    ImGui::NewFrame();
    ImGui::Begin("host");
    show();
    out.wrap = tooltip_wrap_width();
    out.line = ImGui::GetTextLineHeight();
    out.padding = ImGui::GetStyle().WindowPadding.x;
    ImGui::End();
    ImGui::Render();
  }
  if (const ImGuiWindow* tip = ImGui::FindWindowByName("##Tooltip_00")) {
    out.width = tip->Size.x;
    out.height = tip->Size.y;
  }
  ImGui::DestroyContext();
  return out;
}

}  // namespace

TEST_CASE("tooltip: a long text wraps at about 40 em, a short one keeps its width") {
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "the rotation keeps every norm ";
  const TooltipSize big = measure([&] { tooltip_show(long_text); });
  INFO("width " << big.width << ", height " << big.height << ", wrap " << big.wrap);
  REQUIRE(big.width > 0);
  CHECK(big.wrap == Approx(40 * 13.0f));  // the default font is 13 px
  CHECK(big.width <= big.wrap + 2 * big.padding + 1);
  CHECK(big.width >= 0.8f * big.wrap);  // filled, not wrapped early
  CHECK(big.height >= 10 * big.line);   // ~1200 em of text in 40 em lines

  const TooltipSize small = measure([] { tooltip_show("Hide this message"); });
  CHECK(small.width > 0);
  CHECK(small.width < 0.5f * small.wrap);
  CHECK(small.height < 2 * small.line + 2 * small.padding + 1);  // one line

  // Chinese has no spaces: it breaks between characters (the default font draws them as
  // fallback boxes of one fixed advance, which is enough to test the wrapping).
  std::string chinese;
  for (int i = 0; i < 60; ++i) chinese += "旋转保持每个向量的长度，";
  const TooltipSize zh = measure([&] { tooltip_show(chinese); });
  CHECK(zh.width <= zh.wrap + 2 * zh.padding + 1);
  CHECK(zh.height >= 5 * zh.line);

  // The printf form is the same tooltip.
  const TooltipSize f = measure([&] { tooltip_showf("%s", long_text.c_str()); });
  CHECK(f.width == big.width);
  CHECK(f.height == big.height);
}
