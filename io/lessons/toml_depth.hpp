// How deeply a TOML text nests, found by a cheap scan before toml++ parses it: toml++
// recurses once per level (a 50,000-segment dotted key overflows the stack), so every TOML
// PosLab reads (lessons catalog, quizzes, interface texts) is refused past kTomlMaxDepth,
// the rule the JSON readers follow (io/checkpoint/safetensors.hpp's json_nesting_depth).
#pragma once
#include <string>
#include <string_view>

namespace poslab::io {

// The deepest a real file goes is 4 ([[lesson]] + a dotted key + an inline table).
inline constexpr int kTomlMaxDepth = 16;

struct TomlDepth {
  int depth = 0;  // the deepest level seen (stops counting past stop_after)
  int line = 0;   // 1-based line where it was reached
};

// Levels: the segments of a [table] or [[array]] header, then those of a dotted key, plus
// one per inline table { } or array [ ] a value opens (keys inside inline tables count their
// segments too). Strings (all four kinds) and comments are skipped.
TomlDepth toml_nesting_depth(std::string_view text, int stop_after = kTomlMaxDepth);

// "line N: nested deeper than ...: what to do" when `text` nests deeper than kTomlMaxDepth,
// else empty.
std::string toml_depth_problem(std::string_view text);
// Throws FileError naming `path` when `text` nests deeper than kTomlMaxDepth.
void toml_check_depth(std::string_view text, const std::string& path);

}  // namespace poslab::io
