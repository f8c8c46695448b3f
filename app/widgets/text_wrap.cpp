// Line breaking for wrapped text (see text_wrap.hpp). text_wrap_line_end follows the state
// machine of Dear ImGui 1.86's ImFont::CalcWordWrapPositionA step for step, so Latin text breaks
// where ImGui::TextWrapped breaks it; the one addition is a break opportunity between two
// characters when either is wide (CJK), unless line-breaking rules forbid it there.
#include "app/widgets/text_wrap.hpp"

#include <algorithm>

namespace poslab::app {
namespace {

struct Decoded {
  char32_t c;
  size_t length;  // bytes, >= 1
};

// One code point at `at`; a malformed or cut-off sequence is one byte of U+FFFD, so the scan
// always moves on and a valid sequence is never split.
Decoded decode(std::string_view s, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b = byte(at);
  if (b < 0x80) return {b, 1};
  size_t len = 0;
  char32_t c = 0;
  if ((b & 0xE0) == 0xC0) {
    len = 2;
    c = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    len = 3;
    c = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    len = 4;
    c = b & 0x07;
  } else {
    return {0xFFFD, 1};
  }
  if (at + len > s.size()) return {0xFFFD, 1};
  for (size_t i = 1; i < len; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return {0xFFFD, 1};
    c = (c << 6) | (byte(at + i) & 0x3F);
  }
  return {c, len};
}

// ImGui's blanks (ImCharIsBlankW).
bool is_blank(char32_t c) {
  return c == ' ' || c == '\t' || c == 0x3000;
}

// ImGui allows a break after these (and only these) when no blank follows.
bool imgui_breaks_after(char32_t c) {
  return c == '.' || c == ',' || c == ';' || c == '!' || c == '?' || c == '"';
}

bool is_digit(char32_t c) {
  return c >= '0' && c <= '9';
}

// A character inside a number that ImGui would break at: the decimal point or comma of
// "2.38e-07" or "1,5" (a digit on both sides), or the blank grouping thousands in "10 000"
// (a digit before it, exactly three after it). Numbers stay whole on one line.
bool joins_number(std::string_view text, size_t at, char32_t prev) {
  if (!is_digit(prev) || at + 1 >= text.size()) return false;
  const char c = text[at];
  const auto digit_at = [&](size_t i) { return i < text.size() && is_digit(text[i]); };
  if (c == '.' || c == ',') return digit_at(at + 1);
  if (c == ' ')
    return digit_at(at + 1) && digit_at(at + 2) && digit_at(at + 3) && !digit_at(at + 4);
  return false;
}

bool in(char32_t c, std::u32string_view set) {
  return set.find(c) != std::u32string_view::npos;
}

// No line starts with these: closing brackets and quotes, marks that end a clause, small kana.
bool no_break_before(char32_t c) {
  static constexpr std::u32string_view closing =
      U"!),.:;?]}%'"
      U"、。，．：；？！）］｝〉》」』】〕〗〙〛～ー々〻ゝゞヽヾ・’”…‥—％"
      U"ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ";
  return in(c, closing);
}

// No line ends with these: opening brackets and quotes, currency signs.
bool no_break_after(char32_t c) {
  static constexpr std::u32string_view opening = U"([{（［｛〈《「『【〔〖〘〚‘“＄￥";
  return in(c, opening);
}

// A break between `prev` and `c` that ImGui's rules alone do not give.
bool wide_break_between(char32_t prev, char32_t c) {
  return (text_wrap_is_wide(prev) || text_wrap_is_wide(c)) && !no_break_after(prev) &&
         !no_break_before(c);
}

}  // namespace

bool text_wrap_is_wide(char32_t c) {
  return (c >= 0x2E80 && c <= 0x2FFF) ||  // radicals, ideographic description
         (c >= 0x3000 && c <= 0x33FF) ||  // CJK punctuation, kana, bopomofo, enclosed
         (c >= 0x3400 && c <= 0x4DBF) ||  // ideographs, extension A
         (c >= 0x4E00 && c <= 0x9FFF) ||  // ideographs
         (c >= 0xF900 && c <= 0xFAFF) ||  // compatibility ideographs
         (c >= 0xFE30 && c <= 0xFE4F) ||  // compatibility forms
         (c >= 0xFF00 && c <= 0xFFEF) ||  // fullwidth forms
         (c >= 0x20000 && c <= 0x3FFFF);  // ideographs, extensions B and later
}

size_t text_wrap_line_end(std::string_view text, size_t begin, float wrap_width,
                          const TextAdvance& advance) {
  // ImGui's bookkeeping: line_width holds the line up to and including the first character of
  // the current word, word_width the rest of that word, blank_width the blanks before it.
  float line_width = 0, word_width = 0, blank_width = 0;
  size_t word_end = begin;  // end of the current word (before any blanks)
  size_t prev_word_end = 0;
  bool have_prev_word_end = false;
  bool inside_word = true;
  char32_t prev = 0;  // the character before, when it was not a blank
  size_t s = begin;
  while (s < text.size()) {
    const Decoded d = decode(text, s);
    const size_t next = s + d.length;
    if (d.c == '\n') return s;
    if (d.c == '\r') {
      s = next;
      continue;
    }
    const float w = advance(d.c);
    const bool joins = joins_number(text, s, prev);
    if (is_blank(d.c) && !joins) {
      if (inside_word) {
        line_width += blank_width;
        blank_width = 0;
        word_end = s;
      }
      blank_width += w;
      inside_word = false;
      prev = 0;
    } else {
      const bool wide = inside_word && prev != 0 && wide_break_between(prev, d.c);
      word_width += w;
      if (inside_word && !wide) {
        word_end = next;
      } else {
        prev_word_end = wide ? s : word_end;
        have_prev_word_end = true;
        line_width += word_width + blank_width;
        word_width = blank_width = 0;
        if (wide) word_end = next;
      }
      inside_word = !imgui_breaks_after(d.c) || joins;
      prev = d.c;
    }
    // Blanks at the end of a line are not counted: they can be skipped.
    if (line_width + word_width > wrap_width) {
      // A word that cannot fit on a whole line is cut where it overflows.
      if (word_width < wrap_width) s = have_prev_word_end ? prev_word_end : word_end;
      return s;
    }
    s = next;
  }
  return s;
}

std::vector<std::string_view> text_wrap_lines(std::string_view text, float wrap_width,
                                              const TextAdvance& advance) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text_wrap_line_end(text, pos, wrap_width, advance);
    if (end == pos && text[pos] != '\n') end = pos + decode(text, pos).length;
    lines.push_back(text.substr(pos, end - pos));
    pos = end;
    if (pos < text.size() && text[pos] == '\n') {
      ++pos;  // the paragraph ended here
      continue;
    }
    // Wrapped: the blanks at the break, and a newline right after them, are the line break.
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    if (pos < text.size() && text[pos] == '\n') ++pos;
  }
  return lines;
}

}  // namespace poslab::app
