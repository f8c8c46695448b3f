// The nesting scan of toml_depth.hpp: one pass, no allocation beyond a stack of open inline
// tables and arrays that stops growing once the depth passes the limit.
#include "io/lessons/toml_depth.hpp"

#include <vector>

#include "core/common/errors.hpp"

namespace poslab::io {

TomlDepth toml_nesting_depth(std::string_view s, int stop_after) {
  enum class Mode { key, header, value };
  struct Frame {
    int base, level;
    char open;
  };
  std::vector<Frame> stack;  // open { and [ of the value being read
  Mode mode = Mode::key;
  int header = 0;    // levels of the current [table] header
  int base = 0;      // level of the table the keys being read go into
  int segments = 1;  // of the key or header being read
  int level = 0;     // level of the value being read
  TomlDepth out;
  int line = 1;
  const auto reach = [&](int d) {
    if (d > out.depth) out = {d, line};
    return out.depth > stop_after;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      if (stack.empty()) mode = Mode::key, base = header, segments = 1;
    } else if (c == '#') {
      while (i + 1 < s.size() && s[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      const std::string_view triple = c == '"' ? "\"\"\"" : "'''";
      const bool multi = s.substr(i, 3) == triple;
      size_t j = i + (multi ? 3 : 1);
      for (; j < s.size(); ++j) {
        if (c == '"' && s[j] == '\\') {
          if (j + 1 < s.size() && s[j + 1] == '\n') ++line;
          ++j;
        } else if (s[j] == '\n') {
          ++line;
          if (!multi) break;  // an unclosed string: toml++ reports it
        } else if (multi ? s.substr(j, 3) == triple : s[j] == c) {
          if (multi) j += 2;
          while (multi && j + 1 < s.size() && s[j + 1] == c) ++j;  // """a"""" ends in a quote
          break;
        }
      }
      i = j;
    } else if (mode == Mode::header) {
      if (c == '.' && reach(++segments)) return out;
      if (c == ']') {
        header = segments;
        mode = Mode::key, base = header, segments = 1;
        while (i + 1 < s.size() && s[i + 1] == ']') ++i;
      }
    } else if (mode == Mode::key) {
      if (c == '[' && stack.empty()) {
        mode = Mode::header, segments = 1;
        if (i + 1 < s.size() && s[i + 1] == '[') ++i, ++segments;  // [[array]]: one more
        if (reach(segments)) return out;
      } else if (c == '.') {
        if (reach(base + ++segments)) return out;
      } else if (c == '=') {
        level = base + segments;
        mode = Mode::value;
        if (reach(level)) return out;
      } else if (c == '}' && !stack.empty()) {
        base = stack.back().base, level = stack.back().level, mode = Mode::value;
        stack.pop_back();
      }
    } else if (c == '[' || c == '{') {
      stack.push_back({base, level, c});
      if (c == '{') base = level, mode = Mode::key, segments = 1;
      if (reach(++level)) return out;
    } else if ((c == ']' || c == '}') && !stack.empty()) {
      base = stack.back().base, level = stack.back().level;
      stack.pop_back();
    } else if (c == ',' && !stack.empty() && stack.back().open == '{') {
      mode = Mode::key, segments = 1;
    }
  }
  return out;
}

std::string toml_depth_problem(std::string_view text) {
  const TomlDepth d = toml_nesting_depth(text);
  if (d.depth <= kTomlMaxDepth) return {};
  return "line " + std::to_string(d.line) + ": nested deeper than " +
         std::to_string(kTomlMaxDepth) +
         " levels (dotted keys, [table] headers, { } and [ ] together), more than PosLab "
         "reads: flatten the keys or remove the file";
}

void toml_check_depth(std::string_view text, const std::string& path) {
  if (std::string why = toml_depth_problem(text); !why.empty()) throw FileError(path, why);
}

}  // namespace poslab::io
