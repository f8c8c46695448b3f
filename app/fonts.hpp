// Fonts from Debian's packages: DejaVu Sans for Latin and maths symbols, WenQuanYi Micro
// Hei merged in for Chinese, with only the glyphs that lesson files and UI strings use
// (the full CJK range would cost ~0.5 s and a 4096^2 atlas at start-up).
#pragma once
#include <memory>
#include <string>
#include <vector>

struct ImFont;

namespace poslab::app {

struct Fonts {
  ImFont* body = nullptr;     // default font (DejaVu Sans + CJK glyphs when available)
  ImFont* heading = nullptr;  // larger bold font for headings
  ImFont* title = nullptr;    // larger still, for a lesson's title (level-1 heading)
  ImFont* mono = nullptr;     // monospace for code and numbers
  bool has_cjk = false;       // a CJK font was found and merged
  std::string note;           // what was missing, for the user ("no CJK font: ...")
  // Glyph ranges the atlas points into; they must live as long as the fonts.
  std::shared_ptr<std::vector<unsigned short>> latin_ranges, cjk_ranges;
};

// Builds the atlas at the given scale. Call before the first frame, or between frames
// followed by re-creating the backend's font texture.
// extra_text: more characters to include (text the user typed).
Fonts load_fonts(float scale, const std::string& lessons_dir, const std::string& extra_text = {});

}  // namespace poslab::app
