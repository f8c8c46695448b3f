// Fills named placeholders in an interface text: tr_args("Wrote {path}: {mb} MB",
// {{"path", p}, {"mb", "1.20"}}). Translations may reorder the values (Chinese often puts
// them in another order than English), which printf's positional %s/%d cannot do safely.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/common/message.hpp"

namespace poslab::app {

// Replaces every `{name}` of `pattern` by its value. A `{...}` whose name is not given stays
// as it is (a typo shows up on screen instead of vanishing); values are not scanned again.
// The substitution is core's message_substitute, the one core/common/message uses too.
inline std::string tr_args(std::string_view pattern,
                           std::initializer_list<std::pair<const char*, std::string>> args) {
  return message_substitute(pattern, [&](std::string_view name) -> std::optional<std::string> {
    for (const auto& [n, v] : args)
      if (name == n) return v;
    return std::nullopt;
  });
}

// A value as text through a literal printf format, for tr_args: num_text("%.1f", x). The
// format is always a literal in the code (scripts/check_format_strings.py), never a text.
__attribute__((format(printf, 1, 2))) inline std::string num_text(const char* format, ...) {
  char buf[128];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

// An interface text as the format of an ImGui slider, which the slider prints literally:
// every '%' doubled, then `literal_suffix` (a literal format such as " %d") appended.
inline std::string as_format_text(std::string_view text, const char* literal_suffix = "") {
  std::string out;
  for (const char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out + literal_suffix;
}

}  // namespace poslab::app
