// Font atlas construction (see fonts.hpp).
#include "app/fonts.hpp"

#include <imgui.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace poslab::app {
namespace fs = std::filesystem;

namespace {

#ifdef __EMSCRIPTEN__
constexpr bool kBrowser = true;
#else
constexpr bool kBrowser = false;
#endif

const char* first_existing(std::initializer_list<const char*> paths) {
  for (const char* p : paths)
    if (fs::exists(p)) return p;
  return nullptr;
}

// Every character used in lesson files (Markdown, TOML) so Chinese text renders.
void add_lesson_text(ImFontGlyphRangesBuilder& b, const std::string& lessons_dir) {
  std::error_code ec;
  if (!fs::is_directory(lessons_dir, ec)) return;
  for (const auto& entry : fs::recursive_directory_iterator(lessons_dir, ec)) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension().string();
    if (ext != ".md" && ext != ".toml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    b.AddText(s.str().c_str());
  }
}

}  // namespace

Fonts load_fonts(float scale, const std::string& lessons_dir, const std::string& extra_text) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  Fonts f;
  const float size = 16.0f * scale;
  const char* sans = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"});
  const char* bold = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"});
  const char* mono = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"});
  const char* cjk = first_existing({"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
                                    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"});

  // Latin, Greek (theta, lambda, gamma) and maths symbols such as the minus sign.
  ImFontGlyphRangesBuilder latin;
  latin.AddRanges(io.Fonts->GetGlyphRangesDefault());
  latin.AddText("θλγφαβ−×·≈≤≥→←↑↓√πΔ∞′…²");
  // The lessons' and interface texts' characters too: DejaVu draws those it has (superscripts
  // such as 10⁻⁷, subscripts, arrows, maths); the CJK font merged after it fills in the rest
  // (ImGui keeps the first font's glyph and skips code points a font lacks).
  add_lesson_text(latin, lessons_dir);
  latin.AddText(extra_text.c_str());
  ImVector<ImWchar> built;
  latin.BuildRanges(&built);
  f.latin_ranges = std::make_shared<std::vector<ImWchar>>(built.begin(), built.end());

  ImFontGlyphRangesBuilder cjk_builder;
  cjk_builder.AddText("中文英语课程测验进度语言正确错误答案提交重试完成");
  add_lesson_text(cjk_builder, lessons_dir);
  cjk_builder.AddText(extra_text.c_str());
  built.clear();
  cjk_builder.BuildRanges(&built);
  f.cjk_ranges = std::make_shared<std::vector<ImWchar>>(built.begin(), built.end());

  auto add = [&](const char* path, float px, bool merge_cjk) -> ImFont* {
    ImFont* font = path ? io.Fonts->AddFontFromFileTTF(path, px, nullptr, f.latin_ranges->data())
                        : io.Fonts->AddFontDefault();
    if (merge_cjk && cjk) {
      ImFontConfig cfg;
      cfg.MergeMode = true;
      cfg.FontNo = 0;  // wqy-microhei face 0; Noto CJK .ttc would need face 2 (Simplified Chinese)
      if (std::string(cjk).find("Noto") != std::string::npos) cfg.FontNo = 2;
      io.Fonts->AddFontFromFileTTF(cjk, px, &cfg, f.cjk_ranges->data());
    }
    return font;
  };
  f.body = add(sans, size, true);
  f.heading = add(bold ? bold : sans, size * 1.35f, true);
  // Its own size, not the heading scaled: the atlas is sampled with nearest filtering
  // (app/gfx/font_texture.hpp), so every glyph is drawn at the size it was baked.
  f.title = add(bold ? bold : sans, size * 1.35f * 1.2f, true);
  f.mono = add(mono ? mono : sans, size, false);
  f.has_cjk = cjk != nullptr;
  if (!sans)
    f.note = "DejaVu fonts not found (install fonts-dejavu-core); using ImGui's built-in font. ";
  // The browser version fetches its Chinese font when Chinese is chosen (app/web/main.cpp).
  if (!cjk && !kBrowser)
    f.note += "No Chinese font found (install fonts-wqy-microhei); lessons are shown in English.";
  io.Fonts->Build();
  return f;
}

}  // namespace poslab::app
