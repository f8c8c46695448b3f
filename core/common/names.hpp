// Names of enum values as text (presets, CLI flags, JSON) and the two helpers every lab
// needs with them: the value named by a text, with an error listing the choices, and
// joining a list for messages and help text. Enums list their names in enum order.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/preset_messages.hpp"

namespace poslab {

// "a, b, c" (or with another separator).
inline std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// Index of `name` in `names`; throws InputError `what = "name": expected one of a, b, c`.
inline int enum_index_from_name(std::string_view what, std::string_view name,
                                const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw InputError(preset_message(
      "errors.value.not_in_choices",
      {message_arg("name", std::string(what)), message_arg("value", std::string(name)),
       message_arg("choices", join(names))}));
}

// The enum value named `name`, for enums whose names are listed in enum order.
template <class E>
E enum_from_name(std::string_view what, std::string_view name,
                 const std::vector<std::string>& names) {
  return static_cast<E>(enum_index_from_name(what, name, names));
}

}  // namespace poslab
