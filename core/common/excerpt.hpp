// Quoting untrusted text in an error message: a name or value read from a file or a link
// is shown as a short, printable excerpt, so a file can never fill an error line (or a
// terminal) with its own contents or control characters.
#pragma once
#include <string>
#include <string_view>

namespace poslab {

// At most `max_bytes` bytes of `text`, control and non-ASCII bytes shown as '?', and "..."
// when it was cut.
inline std::string error_excerpt(std::string_view text, size_t max_bytes = 40) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += c < 0x20 || c >= 0x7f ? '?' : static_cast<char>(c);
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

// All of `text` for a terminal line: control bytes (C0, DEL, and the C1 controls U+0080 to
// U+009F in UTF-8 or as raw bytes) shown as \xNN, so a name read from a file (a path a
// checkpoint records) can neither move the cursor, recolour the terminal nor end the line;
// every other byte, UTF-8 text included, is kept.
inline std::string terminal_text(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto escape = [&](std::string& out, unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    // A UTF-8 sequence's length from its lead byte (1 for ASCII and for a stray byte).
    const size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    bool whole = n > 1 && i + n <= text.size();
    for (size_t k = 1; whole && k < n; ++k)
      whole = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    const bool c1 = n == 2 && whole && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
    if (whole && !c1) {
      out.append(text.substr(i, n));
      i += n;
    } else if (c1) {
      escape(out, c);
      escape(out, static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
        escape(out, c);
      else
        out += static_cast<char>(c);
      ++i;
    }
  }
  return out;
}

}  // namespace poslab
