// Issue 40: every character of every lesson text (Markdown and TOML, both languages) has a
// glyph in the body font as load_fonts builds it (DejaVu Sans with the CJK font merged), so
// nothing is drawn as "?" ("5·10⁻⁷" in lesson 3 was: its superscripts reached only the CJK
// font, which lacks them). Needs Debian's fonts-dejavu-core and fonts-wqy-microhei.
#include <imgui.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "app/fonts.hpp"

namespace fs = std::filesystem;

namespace {

// Every code point of a UTF-8 text with the first file it appears in.
void fonts_test_code_points(const std::string& text, const std::string& file,
                            std::map<uint32_t, std::string>& out) {
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
    for (int k = 1; k < n && i + k < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    i += n;
    if (cp >= 0x20) out.emplace(cp, file);
  }
}

}  // namespace

TEST_CASE("fonts: every character of the lessons has a glyph in the body font", "[fonts]") {
  const char* dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  const char* wqy = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
  if (!fs::exists(dejavu) || !fs::exists(wqy)) {
    WARN("fonts-dejavu-core or fonts-wqy-microhei not installed: not checked");
    return;
  }
  const std::string lessons = std::string(POSLAB_TEST_SOURCE_DIR) + "/lessons";
  std::map<uint32_t, std::string> used;
  for (const auto& e : fs::recursive_directory_iterator(lessons)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".md" && ext != ".toml")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    fonts_test_code_points(s.str(), e.path().string(), used);
  }
  REQUIRE(used.size() > 500);  // English and Chinese lessons: about 950

  ImGui::CreateContext();
  const poslab::app::Fonts f = poslab::app::load_fonts(1.0f, lessons);
  REQUIRE(f.has_cjk);
  int missing = 0;
  for (const auto& [cp, file] : used) {
    if (cp > 0xFFFF) continue;  // beyond ImGui's 16-bit ImWchar: drawn as "?" by design
    if (f.body->FindGlyphNoFallback(static_cast<ImWchar>(cp))) continue;
    ++missing;
    INFO("U+" << std::hex << std::uppercase << cp << std::dec << " first used in " << file);
    CHECK(false);
  }
  CHECK(missing == 0);
  ImGui::DestroyContext();
}
