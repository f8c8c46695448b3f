// Drawing lesson-style Markdown (io/lessons/markdown.hpp) with Dear ImGui: headings, wrapped
// paragraphs with emphasis and inline code, lists, quotes, code blocks, tables, and "lab:"
// links drawn as buttons that open the lab. Used by the lessons panel; any panel that shows
// explanatory text (the dream lab) can reuse it. Latin text wraps at spaces, Chinese
// between characters; lines never run past the reading width or the scrollbar.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "app/app_context.hpp"
#include "app/widgets/wrapped_text.hpp"  // wrapped_text: plain text wrapped the same way
#include "io/lessons/markdown.hpp"

namespace poslab::app {

// Colours of explanatory text and quiz feedback, for the dark or the light theme.
struct TextPalette {
  ImVec4 heading, emphasis, strong, code_bg, link, good, bad, muted, quote_bar, card_bg;
};
TextPalette text_palette(bool dark);

// Comfortable reading width: about 46 em (at most the available width).
float markdown_reading_width();

class MarkdownView {
 public:
  // `id_counter` numbers the link buttons and tables (unique within the window);
  // `max_width` caps the text width in pixels from the current cursor x (0 = no cap). The
  // right edge is fixed here, so create the view inside the child window it draws in.
  MarkdownView(AppContext& ctx, const TextPalette& pal, int& id_counter, float max_width = 0);

  // Draws every block; returns how many blocks were drawn.
  int document(const io::MdDocument& doc);
  // Draws blocks [from, to) of `doc` (a table cut at `to` is drawn up to it).
  int document(const io::MdDocument& doc, size_t from, size_t to);
  // Draws one run of styled spans, wrapped, starting at the cursor.
  void spans(const std::vector<io::MdSpan>& spans);

  // Window-local x of the right edge text wraps at.
  float right_edge() const { return right_; }

 private:
  void block(const io::MdBlock& b);
  void table(const std::vector<io::MdBlock>& rows, size_t from, size_t to);

  AppContext& ctx_;
  const TextPalette& pal_;
  int& id_counter_;
  float right_ = 0;  // window-local x
};

}  // namespace poslab::app
