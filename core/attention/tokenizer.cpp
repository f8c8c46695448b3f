// UTF-8 decoding and the whitespace / per-CJK-character split (see tokenizer.hpp).
#include "core/attention/tokenizer.hpp"

#include "core/common/errors.hpp"

namespace poslab {
namespace {

struct CodePoint {
  char32_t value;
  size_t begin, end;  // byte range in the text
};

std::vector<CodePoint> decode_utf8(const std::string& text) {
  std::vector<CodePoint> out;
  size_t i = 0;
  while (i < text.size()) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    int len = b0 < 0x80           ? 1
              : (b0 >> 5) == 0x6  ? 2
              : (b0 >> 4) == 0xE  ? 3
              : (b0 >> 3) == 0x1E ? 4
                                  : 0;
    if (len == 0 || i + len > text.size())
      throw InputError("sentence: invalid UTF-8 at byte " + std::to_string(i) +
                       " (save or paste the text as UTF-8)");
    char32_t cp = len == 1 ? b0 : b0 & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if ((b >> 6) != 0x2)
        throw InputError("sentence: invalid UTF-8 at byte " + std::to_string(i + k) +
                         " (save or paste the text as UTF-8)");
      cp = (cp << 6) | (b & 0x3F);
    }
    out.push_back({cp, i, i + len});
    i += len;
  }
  return out;
}

bool is_space(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x00A0 ||
         c == 0x3000 || (c >= 0x2000 && c <= 0x200A);
}

}  // namespace

bool is_cjk_code_point(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK unified ideographs
         (c >= 0x3400 && c <= 0x4DBF) ||    // extension A
         (c >= 0x20000 && c <= 0x2FA1F) ||  // extensions B.. and compatibility supplement
         (c >= 0xF900 && c <= 0xFAFF) ||    // compatibility ideographs
         (c >= 0x3040 && c <= 0x30FF) ||    // hiragana, katakana
         (c >= 0xAC00 && c <= 0xD7AF) ||    // hangul syllables
         (c >= 0x3000 && c <= 0x303F && c != 0x3000) ||  // CJK punctuation (not the space)
         (c >= 0xFF00 && c <= 0xFFEF);                   // full-width forms
}

std::vector<std::string> tokenize_sentence(const std::string& text, int max_tokens) {
  const std::vector<CodePoint> cps = decode_utf8(text);
  bool has_space = false, has_cjk = false;
  for (const auto& c : cps) {
    has_space = has_space || is_space(c.value);
    has_cjk = has_cjk || is_cjk_code_point(c.value);
  }
  const bool per_character = has_cjk && !has_space;
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (current.empty()) return;
    tokens.push_back(std::move(current));
    current.clear();
    if (static_cast<int>(tokens.size()) > max_tokens)
      throw InputError("sentence has more than " + std::to_string(max_tokens) +
                       " tokens: shorten it (at most " + std::to_string(max_tokens) + ")");
  };
  for (const auto& c : cps) {
    if (is_space(c.value)) {
      flush();
    } else if (per_character && is_cjk_code_point(c.value)) {
      flush();
      current = text.substr(c.begin, c.end - c.begin);
      flush();
    } else {
      current += text.substr(c.begin, c.end - c.begin);
    }
  }
  flush();
  if (tokens.empty()) throw InputError("sentence is empty: type some words, e.g. \"我 喜欢 你\"");
  return tokens;
}

}  // namespace poslab
