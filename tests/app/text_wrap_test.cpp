// Line breaking of wrapped text (app/widgets/text_wrap.hpp): Chinese breaks between any two
// characters (but not before closing or after opening punctuation), a line never ends inside
// a UTF-8 sequence, Latin text breaks at spaces, a word longer than a line is cut, and for
// Latin text every break equals Dear ImGui's own (ImFont::CalcWordWrapPositionA, the default
// font, no display needed).
#include <imgui.h>
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "app/widgets/text_wrap.hpp"

using namespace poslab::app;

namespace {

// A monospace-like measure: ASCII 1 unit, anything else (CJK) 2 units.
float fake_advance(char32_t c) {
  return c < 0x80 ? 1.0f : 2.0f;
}

bool utf8_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Width of a valid UTF-8 line under fake_advance.
float fake_width(std::string_view s) {
  float w = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (!utf8_continuation(s[i])) w += static_cast<unsigned char>(s[i]) < 0x80 ? 1.0f : 2.0f;
  return w;
}

std::string joined(const std::vector<std::string_view>& lines) {
  std::string out;
  for (auto l : lines) out += l;
  return out;
}

std::string without_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

// How ImGui 1.86's RenderText splits one paragraph (no '\n') into lines.
std::vector<std::string> imgui_lines(const ImFont* font, const std::string& text, float width) {
  std::vector<std::string> out;
  const char* s = text.data();
  const char* end = s + text.size();
  while (s < end) {
    const char* eol = font->CalcWordWrapPositionA(1.0f, s, end, width);
    if (eol == s) ++eol;  // ImGui draws at least one byte (ASCII here)
    out.emplace_back(s, eol);
    s = eol;
    while (s < end && (*s == ' ' || *s == '\t')) ++s;
  }
  return out;
}

}  // namespace

TEST_CASE("text_wrap: Chinese breaks between any two characters and fills each line") {
  const std::string text = "位置编码让模型知道每个词在句子中的位置";  // 19 characters, 38 units
  for (float width : {4.0f, 6.0f, 10.0f, 13.0f, 20.0f}) {
    INFO("width " << width);
    const auto lines = text_wrap_lines(text, width, fake_advance);
    CHECK(joined(lines) == text);
    for (size_t i = 0; i < lines.size(); ++i) {
      CHECK(fake_width(lines[i]) <= width);
      // Every line but the last is full: the next character would not have fitted.
      if (i + 1 < lines.size()) CHECK(fake_width(lines[i]) + 2.0f > width);
    }
  }
}

TEST_CASE("text_wrap: a line never ends inside a UTF-8 sequence") {
  const std::string text =
      "RoPE 把位置 m 的向量旋转 m·θ 弧度，所以分数只取决于 m − n。Attention 分数 = q·k / √d";
  for (float width = 1.0f; width <= 40.0f; width += 1.0f) {
    INFO("width " << width);
    const auto lines = text_wrap_lines(text, width, fake_advance);
    CHECK(without_spaces(joined(lines)) == without_spaces(text));
    for (auto l : lines) {
      REQUIRE_FALSE(l.empty());
      CHECK_FALSE(utf8_continuation(l.front()));
      const size_t end = static_cast<size_t>(l.data() - text.data()) + l.size();
      CHECK((end == text.size() || !utf8_continuation(text[end])));
    }
  }
  // Malformed bytes never stop the scan or produce an empty line.
  const std::string bad = std::string("ab\xE4\xBD") + "中\x80\xFF文 cd";
  const auto lines = text_wrap_lines(bad, 2.0f, fake_advance);
  CHECK(without_spaces(joined(lines)) == without_spaces(bad));
}

TEST_CASE("text_wrap: no line starts with closing or ends with opening punctuation") {
  const std::string text = "他说：“位置编码（RoPE）很重要。”然后，我们看看旋转、缩放……结果！";
  for (float width = 8.0f; width <= 30.0f; width += 1.0f) {  // 8: "（RoPE）" fits whole
    INFO("width " << width);
    const auto lines = text_wrap_lines(text, width, fake_advance);
    CHECK(joined(lines) == text);
    for (size_t i = 1; i < lines.size(); ++i) {
      const std::string_view l = lines[i];
      for (std::string_view closer : {"，", "。", "、", "：", "）", "”", "！", "…"})
        CHECK(l.substr(0, closer.size()) != closer);
      const std::string_view prev = lines[i - 1];
      for (std::string_view opener : {"（", "“"})
        CHECK((prev.size() < opener.size() || prev.substr(prev.size() - opener.size()) != opener));
    }
  }
}

TEST_CASE("text_wrap: English breaks at spaces, and an over-long word is cut") {
  const std::string text = "the rotation keeps the norm of every vector";
  const auto lines = text_wrap_lines(text, 12.0f, fake_advance);
  const std::vector<std::string_view> want{"the rotation", "keeps the", "norm of", "every vector"};
  CHECK(lines == want);
  // A word wider than the line is cut where it overflows, never left to run past the edge.
  const std::string word = "supercalifragilisticexpialidocious";
  const std::string sentence = "a " + word + " b";  // the lines are views into it
  const auto cut = text_wrap_lines(sentence, 10.0f, fake_advance);
  for (auto l : cut) CHECK(fake_width(l) <= 10.0f);
  CHECK(without_spaces(joined(cut)) == "a" + word + "b");
  // Explicit newlines start lines; a trailing one adds none.
  const auto paras = text_wrap_lines("one\n\ntwo three\n", 5.0f, fake_advance);
  const std::vector<std::string_view> want_paras{"one", "", "two", "three"};
  CHECK(paras == want_paras);
  CHECK(text_wrap_lines("", 5.0f, fake_advance).empty());
  // Latin next to Chinese may break between them; the Latin word stays whole.
  const auto mixed = text_wrap_lines("使用RoPE时", 7.0f, fake_advance);
  const std::vector<std::string_view> want_mixed{"使用", "RoPE时"};
  CHECK(mixed == want_mixed);
}

TEST_CASE("text_wrap: Latin text (no numbers) breaks exactly where ImGui::TextWrapped breaks it") {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  const ImFont* font = io.Fonts->AddFontDefault();
  REQUIRE(io.Fonts->Build());
  const auto advance = [font](char32_t c) {
    return c <= 0xFFFF ? font->GetCharAdvance(static_cast<ImWchar>(c)) : font->FallbackAdvanceX;
  };
  const std::vector<std::string> texts{
      "The rotation keeps the norm of every vector, so scores depend only on m - n.",
      "aaa bbb, ccc,ddd. eee   fff. ggg!",
      "Press Play to watch the cache; slide the window (W = 512) and see \"what moves.\" Done!",
      "poslab-cli rope --preset 'rope?base=10000&layout=neox&scaling=yarn' --positions 12345",
      "x",
      "   leading blanks and a verylongwordthatcannotpossiblyfitonasinglelineofanyreasonablewidth",
      "end.\"Quoted\" words!!! and?? more,,, punctuation;;; here",
      "tabs\tand  double  spaces   between\twords"};
  for (const auto& text : texts) {
    for (float width = 8.0f; width <= 420.0f; width += 7.0f) {
      INFO("text \"" << text << "\", width " << width);
      const std::vector<std::string> want = imgui_lines(font, text, width);
      const auto got = text_wrap_lines(text, width, advance);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) CHECK(std::string(got[i]) == want[i]);
    }
  }
  ImGui::DestroyContext();
}

TEST_CASE("text_wrap: a number never breaks at its point or its thousands blank") {
  // Issue 40: at UI scale 2 "2.38e-07" wrapped as "2." / "38e-07" and "10 000" as "10" / "000".
  const auto advance = [](char32_t) { return 1.0f; };
  for (const std::string number : {"2.38e-07", "10 000", "1,5", "0.125"}) {
    const std::string text = "value " + number + " here";
    for (float width = 1.0f; width <= 30.0f; width += 1.0f) {
      INFO("text \"" << text << "\", width " << width);
      bool whole = false;
      for (std::string_view line : text_wrap_lines(text, width, advance))
        whole |= line.find(number) != std::string_view::npos;
      // Wide enough for the number: it sits whole on one line.
      if (width >= static_cast<float>(number.size())) CHECK(whole);
    }
  }
  // A sentence's full stop still breaks, and "a 100 b" breaks at its blanks (not 3 digits after).
  CHECK(text_wrap_lines("one. two", 5.0f, advance).size() == 2);
  CHECK(text_wrap_lines("12 3456 x", 4.0f, advance).front() == "12");
}
