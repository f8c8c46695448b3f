// Fills named placeholders in an interface text: tr_args("Wrote {path}: {mb} MB",
// {{"path", p}, {"mb", "1.20"}}). Translations may reorder the values (Chinese often puts
// them in another order than English), which printf's positional %s/%d cannot do safely.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>

namespace poslab::app {

// Replaces every `{name}` of `pattern` by its value. A `{...}` whose name is not given stays
// as it is (a typo shows up on screen instead of vanishing); values are not scanned again.
inline std::string tr_args(std::string pattern,
                           std::initializer_list<std::pair<const char*, std::string>> args) {
  std::string out;
  out.reserve(pattern.size() + 32);
  size_t i = 0;
  while (i < pattern.size()) {
    const size_t open = pattern.find('{', i);
    if (open == std::string::npos) break;
    const size_t close = pattern.find('}', open + 1);
    if (close == std::string::npos) break;
    out.append(pattern, i, open - i);
    const std::string name = pattern.substr(open + 1, close - open - 1);
    const std::string* value = nullptr;
    for (const auto& [n, v] : args)
      if (name == n) value = &v;
    if (value) {
      out += *value;
    } else {
      out.append(pattern, open, close - open + 1);
    }
    i = close + 1;
  }
  out.append(pattern, i, std::string::npos);
  return out;
}

}  // namespace poslab::app
