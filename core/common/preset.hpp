// Presets: a lab's whole parameter set as one short text string that restores it exactly,
// shaped like a URL query: "rope?dim=128&base=10000&layout=half". Lessons open labs with
// these strings; the app copies and pastes them; the command line accepts them.
// Numbers are rounded to about 6 significant digits (whole numbers and integer parts stay
// exact; a value a range would reject after rounding keeps more digits), so a dragged
// slider gives "pos=111.144", not 17 digits. Text values keep readable UTF-8 and '/' and
// percent-encode only what the format needs (space, '&', '=', '%', '?', '#', controls).
#pragma once
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/param_range.hpp"

namespace poslab {

// `v` rounded to about 6 significant digits (see the file comment), as text.
std::string format_double_rounded(double v, ParamRange range);
std::string format_int(int v);

// Writes "lab?k=v&k=v" in insertion order.
class PresetWriter {
 public:
  explicit PresetWriter(std::string lab) : lab_(std::move(lab)) {}
  // Rounded as described above; `range` (where the reader checks one) keeps the rounded
  // value inside it (base = 1.000001 must not become 1).
  PresetWriter& add(const std::string& key, double value,
                    ParamRange range = {-std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::infinity()});
  PresetWriter& add(const std::string& key, int value) {
    fields_.emplace_back(key, format_int(value));
    return *this;
  }
  PresetWriter& add(const std::string& key, bool value) { return add_text(key, value ? "1" : "0"); }
  PresetWriter& add_text(const std::string& key, std::string_view value);
  std::string str() const;

 private:
  std::string lab_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

// Parses a preset and hands out typed, range-checked fields. Keys that are absent leave
// the target at its current value (so "rope?base=500000" changes only the base). Every
// key must be read by the end: finish() rejects unknown keys, naming them.
class PresetReader {
 public:
  // Throws InputError when the text is malformed or belongs to another lab.
  PresetReader(std::string_view text, std::string_view expected_lab);

  void read(const std::string& key, double& out, ParamRange range);
  void read(const std::string& key, int& out, ParamRange range);
  void read(const std::string& key, bool& out);
  void read_text(const std::string& key, std::string& out);
  // Reads one of `names` (index into the list) into out.
  // `value_aliases`: older value names that still load, as {old, current} pairs.
  void read_choice(const std::string& key, int& out, const std::vector<std::string>& names,
                   const std::vector<std::pair<std::string, std::string>>& value_aliases = {});
  // Throws InputError naming any key no read() call asked for.
  void finish() const;
  // The keys the preset names (so a lab can tell given values from defaults).
  std::vector<std::string> keys() const;

 private:
  const std::string* find(const std::string& key);
  std::string lab_;
  std::map<std::string, std::string> fields_;
  std::map<std::string, bool> used_;
};

// The lab name of a preset string ("rope" for "rope?dim=64"); throws InputError if none.
std::string preset_lab(std::string_view text);

// Shortest decimal text that parses back to exactly `v`.
std::string format_double(double v);
// Parses a whole string as a finite double; throws InputError naming `what` otherwise.
double parse_double(std::string_view text, const std::string& what);

}  // namespace poslab
