// UTF-8 decoding and the whitespace / per-CJK-character split (see tokenizer.hpp).
#include "core/attention/tokenizer.hpp"

#include "core/attention/attention_messages.hpp"
#include "core/common/errors.hpp"

namespace poslab {
namespace {

struct CodePoint {
  char32_t value;
  size_t begin, end;  // byte range in the text
};

// Strict UTF-8 (RFC 3629): the shortest form only, no surrogates (U+D800..DFFF), nothing
// past U+10FFFF. Each rule is a range check on the first two bytes:
//   E0 needs A0..BF (else overlong), ED needs 80..9F (else a surrogate),
//   F0 needs 90..BF (else overlong), F4 needs 80..8F (else past U+10FFFF); C0, C1, F5..FF never.
std::vector<CodePoint> decode_utf8(const std::string& text) {
  std::vector<CodePoint> out;
  size_t i = 0;
  const auto bad = [](size_t at, const char* why) {  // why: the catalog id of the reason
    return InputError(attention_message(
        "attention.error.sentence_utf8",
        {message_arg("byte", std::to_string(at)), message_arg("why", attention_message(why))}));
  };
  while (i < text.size()) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    int len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 < 0x80) {
      len = 1;
    } else if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      throw bad(i, b0 == 0xC0 || b0 == 0xC1 ? "attention.error.utf8_overlong"
                   : b0 >= 0xF5             ? "attention.error.utf8_past_max"
                                            : "attention.error.utf8_stray");
    }
    if (len > static_cast<int>(text.size() - i)) throw bad(i, "attention.error.utf8_truncated");
    char32_t cp = len == 1 ? b0 : b0 & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
      if (b < l || b > h) {
        if ((b >> 6) != 0x2) throw bad(i + k, "attention.error.utf8_continuation");
        throw bad(i, b0 == 0xED   ? "attention.error.utf8_surrogate"
                     : b0 == 0xF4 ? "attention.error.utf8_past_max"
                                  : "attention.error.utf8_overlong");
      }
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
      throw InputError(attention_message("attention.error.sentence_too_long",
                                         {message_arg("max", std::to_string(max_tokens))}));
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
  if (tokens.empty()) throw InputError(attention_message("attention.error.sentence_empty"));
  return tokens;
}

}  // namespace poslab
