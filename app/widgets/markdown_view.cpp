// Markdown drawn with Dear ImGui (see markdown_view.hpp). Layout is done piece by piece:
// each word (Latin) or character (Chinese) is measured and placed on the current line or
// the next one, so styled spans, inline code and link buttons share one wrapped flow.
#include "app/widgets/markdown_view.hpp"

#include <algorithm>
#include <string>

#include "app/widgets/tooltip.hpp"

namespace poslab::app {
namespace {

using io::MdBlock;
using io::MdBlockKind;
using io::MdSpan;

bool is_ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Length of the UTF-8 sequence starting with byte c.
int utf8_length(unsigned char c) {
  return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

// Lays out styled pieces left to right from the cursor and wraps at `right` (window-local
// x). Latin text breaks at spaces; Chinese (any multi-byte character) between characters.
class InlineFlow {
 public:
  explicit InlineFlow(float right) {
    left_ = ImGui::GetCursorPosX();
    const float region_right = left_ + ImGui::GetContentRegionAvail().x;
    right_ = std::max(left_ + 50.0f, std::min(right, region_right));
    x_ = left_;
  }

  void text(const std::string& s, ImFont* font, const ImVec4& colour, bool code_bg,
            const ImVec4& bg) {
    size_t i = 0;
    while (i < s.size()) {
      if (s[i] == '\n') {
        newline();
        ++i;
        continue;
      }
      size_t j = i;
      if (static_cast<unsigned char>(s[i]) >= 0x80) {
        j += static_cast<size_t>(utf8_length(static_cast<unsigned char>(s[i])));
        // Keep closing punctuation with the character before it.
        while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x80 && is_closing(s, j))
          j += static_cast<size_t>(utf8_length(static_cast<unsigned char>(s[j])));
      } else {
        while (j < s.size() && s[j] != ' ' && s[j] != '\n' &&
               static_cast<unsigned char>(s[j]) < 0x80)
          ++j;
        while (j < s.size() && s[j] == ' ') ++j;  // trailing spaces stay with the word
      }
      piece(s.substr(i, std::min(j, s.size()) - i), font, colour, code_bg, bg);
      i = j;
    }
  }

  // An inline button; returns true when clicked.
  bool button(const std::string& label, int id) {
    const ImGuiStyle& st = ImGui::GetStyle();
    const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * st.FramePadding.x;
    place(w);
    ImGui::PushID(id);
    const bool clicked = ImGui::SmallButton(label.c_str());
    ImGui::PopID();
    x_ += w + st.ItemSpacing.x;
    return clicked;
  }

 private:
  static bool is_closing(const std::string& s, size_t at) {
    static const char* closers[] = {"，", "。", "、", "；", "：", "！", "？", "）", "”", "’"};
    for (const char* c : closers)
      if (s.compare(at, std::char_traits<char>::length(c), c) == 0) return true;
    return false;
  }

  void newline() {
    if (at_line_start_) ImGui::NewLine();
    at_line_start_ = true;
    x_ = left_;
  }

  // Moves to the next line when `w` does not fit (a piece wider than the whole line
  // starts a line of its own and is allowed to overflow: nothing else can be done).
  void place(float w) {
    if (!at_line_start_ && x_ + w > right_) at_line_start_ = true;
    if (at_line_start_) {
      ImGui::SetCursorPosX(left_);
      x_ = left_;
    } else {
      ImGui::SameLine(0, 0);
    }
    at_line_start_ = false;
  }

  void piece(std::string s, ImFont* font, const ImVec4& colour, bool code_bg, const ImVec4& bg) {
    ImGui::PushFont(font);
    // A word that lands at the start of a line drops its leading spaces; a trailing space
    // may hang past the edge (it draws nothing).
    std::string trimmed = s;
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.pop_back();
    const bool wraps = !at_line_start_ && x_ + ImGui::CalcTextSize(trimmed.c_str()).x > right_;
    if (at_line_start_ || wraps) {
      const size_t first = s.find_first_not_of(' ');
      if (first == std::string::npos) {
        ImGui::PopFont();
        return;
      }
      s.erase(0, first);
      trimmed.erase(0, std::min(first, trimmed.size()));
    }
    const float w = ImGui::CalcTextSize(s.c_str()).x;
    place(ImGui::CalcTextSize(trimmed.c_str()).x);
    if (code_bg) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(
          ImVec2(p.x - 1, p.y), ImVec2(p.x + w + 1, p.y + ImGui::GetTextLineHeight()),
          ImGui::ColorConvertFloat4ToU32(bg), 3.0f);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextUnformatted(s.c_str());
    ImGui::PopStyleColor();
    ImGui::PopFont();
    x_ += w;
  }

  float left_ = 0, right_ = 0, x_ = 0;
  bool at_line_start_ = true;
};

}  // namespace

TextPalette text_palette(bool dark) {
  if (dark)
    return {ImVec4(0.55f, 0.78f, 1.0f, 1),
            ImVec4(0.95f, 0.85f, 0.55f, 1),
            ImVec4(1, 1, 1, 1),
            ImVec4(0.16f, 0.17f, 0.21f, 1),
            ImVec4(0.45f, 0.75f, 1.0f, 1),
            ImVec4(0.40f, 0.85f, 0.50f, 1),
            ImVec4(1.0f, 0.45f, 0.42f, 1),
            ImVec4(0.62f, 0.62f, 0.66f, 1),
            ImVec4(0.45f, 0.55f, 0.75f, 1),
            ImVec4(0.13f, 0.14f, 0.17f, 1)};
  return {ImVec4(0.10f, 0.30f, 0.62f, 1),
          ImVec4(0.55f, 0.35f, 0.0f, 1),
          ImVec4(0, 0, 0, 1),
          ImVec4(0.92f, 0.93f, 0.95f, 1),
          ImVec4(0.05f, 0.35f, 0.80f, 1),
          ImVec4(0.05f, 0.55f, 0.20f, 1),
          ImVec4(0.80f, 0.12f, 0.10f, 1),
          ImVec4(0.40f, 0.40f, 0.44f, 1),
          ImVec4(0.55f, 0.62f, 0.80f, 1),
          ImVec4(0.96f, 0.96f, 0.98f, 1)};
}

float markdown_reading_width() {
  return ImGui::GetFontSize() * 46.0f;
}

MarkdownView::MarkdownView(AppContext& ctx, const TextPalette& pal, int& id_counter,
                           float max_width)
    : ctx_(ctx), pal_(pal), id_counter_(id_counter) {
  // GetContentRegionAvail excludes a visible scrollbar, so text never runs under it.
  const float avail_right = ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x;
  right_ = max_width > 0 ? std::min(avail_right, ImGui::GetCursorPosX() + max_width) : avail_right;
}

int MarkdownView::document(const io::MdDocument& doc) {
  return document(doc, 0, doc.blocks.size());
}

int MarkdownView::document(const io::MdDocument& doc, size_t from, size_t to) {
  int drawn = 0;
  const auto& blocks = doc.blocks;
  to = std::min(to, blocks.size());
  for (size_t i = from; i < to;) {
    if (blocks[i].kind == MdBlockKind::table_row) {
      size_t j = i;
      while (j < to && blocks[j].kind == MdBlockKind::table_row &&
             blocks[j].columns == blocks[i].columns)
        ++j;
      table(blocks, i, j);
      drawn += static_cast<int>(j - i);
      i = j;
    } else {
      block(blocks[i]);
      // A list ends with the same gap as a paragraph, so the text after it stands apart.
      const bool list_ends = blocks[i].kind == MdBlockKind::list_item &&
                             (i + 1 == to || blocks[i + 1].kind != MdBlockKind::list_item);
      if (list_ends) ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.25f));
      ++drawn;
      ++i;
    }
  }
  return drawn;
}

void MarkdownView::spans(const std::vector<MdSpan>& spans) {
  InlineFlow flow(right_);
  ImFont* body = ImGui::GetFont();
  const ImVec4 normal = ImGui::GetStyleColorVec4(ImGuiCol_Text);
  const std::string prefix = io::kLabLinkPrefix;
  for (size_t k = 0; k < spans.size(); ++k) {
    const MdSpan& s = spans[k];
    if (s.link.rfind(prefix, 0) == 0) {
      // One button per link, even when the link text has several styled spans.
      std::string label = s.text;
      while (k + 1 < spans.size() && spans[k + 1].link == s.link) label += spans[++k].text;
      if (flow.button(label, id_counter_++)) ctx_.open_lab(s.link.substr(prefix.size()));
      tooltip(s.link.c_str() + prefix.size());
      continue;
    }
    ImFont* font = s.code && is_ascii(s.text) ? ctx_.mono_font() : body;
    ImVec4 colour = normal;
    if (s.emphasis) colour = pal_.emphasis;
    if (s.strong) colour = pal_.strong;
    if (!s.link.empty()) colour = pal_.link;
    if (s.strike) colour = pal_.muted;
    flow.text(s.text, font, colour, s.code, pal_.code_bg);
    if (!s.link.empty() && ImGui::IsItemHovered()) tooltip_show(s.link);
  }
}

void MarkdownView::block(const MdBlock& b) {
  const float indent = ImGui::GetFontSize() * 1.4f;
  const float quote_indent = ImGui::GetFontSize() * 0.9f;
  const float total =
      indent * static_cast<float>(b.indent) + quote_indent * static_cast<float>(b.quote);
  if (total > 0) ImGui::Indent(total);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  switch (b.kind) {
    case MdBlockKind::heading: {
      ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * (b.level <= 2 ? 0.6f : 0.3f)));
      ImGui::PushFont(b.level == 1   ? ctx_.title_font()
                      : b.level == 2 ? ctx_.heading_font()
                                     : ImGui::GetFont());
      ImGui::PushStyleColor(ImGuiCol_Text, pal_.heading);
      spans(b.spans);
      ImGui::PopStyleColor();
      ImGui::PopFont();
      if (b.level <= 2) {
        // A rule as wide as the text, not the window.
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float x1 = ImGui::GetWindowPos().x - ImGui::GetScrollX() + right_;
        ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y), ImVec2(x1, p.y),
                                            ImGui::GetColorU32(ImGuiCol_Separator));
        ImGui::Dummy(ImVec2(0, ImGui::GetStyle().ItemSpacing.y * 0.5f));
      }
      break;
    }
    case MdBlockKind::paragraph:
      if (b.continuation) ImGui::Indent(indent * 0.9f);
      spans(b.spans);
      if (b.continuation) ImGui::Unindent(indent * 0.9f);
      ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.25f));
      break;
    case MdBlockKind::list_item: {
      const float marker = indent * 0.9f;
      if (b.ordered) {
        ImGui::Text("%d.", b.number);
      } else {
        ImGui::Bullet();
      }
      ImGui::SameLine();
      ImGui::Indent(marker);  // moves the cursor to the text column, on the marker's line
      ImGui::BeginGroup();
      spans(b.spans);
      ImGui::EndGroup();
      ImGui::Unindent(marker);
      break;
    }
    case MdBlockKind::code: {
      std::string text = b.code;
      while (!text.empty() && text.back() == '\n') text.pop_back();
      ImDrawList* dl = ImGui::GetWindowDrawList();
      dl->ChannelsSplit(2);
      dl->ChannelsSetCurrent(1);
      const ImVec2 p0 = ImGui::GetCursorScreenPos();
      const float pad = ImGui::GetStyle().FramePadding.x;
      ImGui::Dummy(ImVec2(0, pad * 0.5f));
      ImGui::Indent(pad);
      ImGui::PushFont(is_ascii(text) ? ctx_.mono_font() : ImGui::GetFont());
      ImGui::PushTextWrapPos(right_ - pad);
      ImGui::TextUnformatted(text.c_str());
      ImGui::PopTextWrapPos();
      ImGui::PopFont();
      ImGui::Unindent(pad);
      ImGui::Dummy(ImVec2(0, pad * 0.5f));
      const ImVec2 p1(ImGui::GetWindowPos().x - ImGui::GetScrollX() + right_,
                      ImGui::GetCursorScreenPos().y);
      dl->ChannelsSetCurrent(0);
      dl->AddRectFilled(ImVec2(p0.x, p0.y), ImVec2(p1.x, p1.y - ImGui::GetStyle().ItemSpacing.y),
                        ImGui::ColorConvertFloat4ToU32(pal_.code_bg), 4.0f);
      dl->ChannelsMerge();
      ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.2f));
      break;
    }
    case MdBlockKind::rule:
      ImGui::Separator();
      break;
    case MdBlockKind::table_row:
      break;  // drawn by table()
  }
  if (b.quote > 0) {
    const float x = start.x - quote_indent * 0.6f;
    ImGui::GetWindowDrawList()->AddLine(ImVec2(x, start.y),
                                        ImVec2(x, ImGui::GetCursorScreenPos().y - 2),
                                        ImGui::ColorConvertFloat4ToU32(pal_.quote_bar), 3.0f);
  }
  if (total > 0) ImGui::Unindent(total);
}

void MarkdownView::table(const std::vector<MdBlock>& rows, size_t from, size_t to) {
  const int columns = std::max(1, rows[from].columns);
  const std::string id = "##table" + std::to_string(id_counter_++);
  const float width = std::max(50.0f, right_ - ImGui::GetCursorPosX());
  if (!ImGui::BeginTable(
          id.c_str(), columns,
          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp,
          ImVec2(width, 0)))
    return;
  for (size_t r = from; r < to; ++r) {
    ImGui::TableNextRow(rows[r].header ? ImGuiTableRowFlags_Headers : 0);
    for (int c = 0; c < columns; ++c) {
      ImGui::TableSetColumnIndex(c);
      if (c < static_cast<int>(rows[r].cells.size())) {
        if (rows[r].header) ImGui::PushStyleColor(ImGuiCol_Text, pal_.heading);
        // Cells wrap at their own column edge.
        MarkdownView cell(ctx_, pal_, id_counter_);
        cell.spans(rows[r].cells[static_cast<size_t>(c)]);
        if (rows[r].header) ImGui::PopStyleColor();
      }
    }
  }
  ImGui::EndTable();
  ImGui::Dummy(ImVec2(0, ImGui::GetFontSize() * 0.3f));
}

}  // namespace poslab::app
