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

}  // namespace poslab
