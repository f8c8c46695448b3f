// Where wrapped text breaks into lines, without ImGui (so it can be tested alone). Latin text
// breaks exactly as Dear ImGui 1.86's TextWrapped does (at blanks and after . , ; ! ? "; a word
// longer than the whole line is cut anywhere), except inside a number: never at the point of
// "2.38e-07" or the blank of "10 000"; Chinese, Japanese and fullwidth characters may
// also break between any two characters, except before closing punctuation (，。）”…) and
// after opening punctuation (（“…). A line never ends inside a UTF-8 sequence.
#pragma once
#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace poslab::app {

// Advance width of one code point (any unit, the same as the wrap width's).
using TextAdvance = std::function<float(char32_t)>;

// Byte offset where the line starting at `begin` ends when lines are `wrap_width` wide: the
// offset of the '\n' ending its paragraph if all of it fits, else the end of the last part that
// fits. Blanks after the end are not counted (they fall into the gap between lines). Returns
// `begin` only when not even one character fits (the caller then places one anyway).
size_t text_wrap_line_end(std::string_view text, size_t begin, float wrap_width,
                          const TextAdvance& advance);

// The lines `text` wraps into, as ImGui draws them: blanks at a wrapped line's start are
// dropped (and one '\n' right after them), an explicit '\n' starts a new line, and a line holds
// at least one whole character. Views into `text`; "" gives no lines.
std::vector<std::string_view> text_wrap_lines(std::string_view text, float wrap_width,
                                              const TextAdvance& advance);

// True for characters that may break on either side: CJK ideographs, kana, CJK punctuation and
// fullwidth forms.
bool text_wrap_is_wide(char32_t c);

}  // namespace poslab::app
