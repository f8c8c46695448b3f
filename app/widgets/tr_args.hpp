// Fills named placeholders in an interface text: tr_args("Wrote {path}: {mb} MB",
// {{"path", p}, {"mb", "1.20"}}). Translations may reorder the values (Chinese often puts
// them in another order than English), which printf's positional %s/%d cannot do safely.
#pragma once
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

}  // namespace poslab::app
