// CLI flags from a lab's preset table (core/common/preset_fields.hpp): one CLI11 option
// per field that names a flag, with the field's help, range or choices; the flags given
// are applied over the settings a command starts from (the preset or the defaults).
// Flags whose meaning is not "set this field" (--method all, --no-content, --tokens that
// also picks the source) stay written out in their command.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/common/names.hpp"
#include "core/common/preset.hpp"
#include "core/common/preset_fields.hpp"

namespace poslab::cli {

// "[lo, hi]" for a number field's help.
inline std::string preset_flag_range_text(ParamRange r) {
  return "[" + format_double(r.lo) + ", " + format_double(r.hi) + "]";
}

template <class S>
class PresetFlags {
 public:
  // Registers the table's flags on `cmd`. Call once; `this` must outlive parsing.
  void add(CLI::App* cmd, const PresetTable<S>& table) {
    table_ = &table;
    values_.resize(table.size());  // never resized again: CLI11 keeps pointers into it
    for (size_t i = 0; i < table.size(); ++i) {
      const PresetField<S>& f = table[i];
      if (f.flag.empty()) continue;
      Value& v = values_[i];
      switch (f.kind) {
        case PresetKind::real:
          cmd->add_option(f.flag, v.number, f.help + " " + preset_flag_range_text(f.range));
          break;
        case PresetKind::integer:
          cmd->add_option(f.flag, v.integer,
                          f.help + ", whole number " + preset_flag_range_text(f.range));
          break;
        case PresetKind::boolean:
          cmd->add_flag(f.flag, v.flag, f.help);
          break;
        case PresetKind::choice:
          cmd->add_option(f.flag, v.text, f.help + ": " + join(*f.choices, " | "));
          break;
        case PresetKind::text:
          cmd->add_option(f.flag, v.text, f.help);
          break;
      }
    }
  }

  // The first name of each flag given on the command line, with the preset key it sets.
  std::vector<std::pair<std::string, std::string>> given(const CLI::App& cmd) const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : *table_)
      if (!f.flag.empty() && cmd.count(first_name(f.flag)) > 0)
        out.emplace_back(first_name(f.flag), f.key);
    return out;
  }

  // Sets every field whose flag was given (range checks are left to the lab's validation,
  // which names the field as the preset does).
  void apply(const CLI::App& cmd, S& s) const {
    for (size_t i = 0; i < table_->size(); ++i) {
      const PresetField<S>& f = (*table_)[i];
      if (f.flag.empty() || cmd.count(first_name(f.flag)) == 0) continue;
      const Value& v = values_[i];
      switch (f.kind) {
        case PresetKind::real:
          f.set(s, v.number);
          break;
        case PresetKind::integer:
          f.set(s, v.integer);
          break;
        case PresetKind::boolean:
          f.set(s, v.flag);
          break;
        case PresetKind::choice:
          f.set(s, enum_index_from_name(first_name(f.flag), v.text, *f.choices));
          break;
        case PresetKind::text:
          f.set_text(s, v.text);
          break;
      }
    }
  }

  // "--base" of "--base,--rope-base".
  static std::string first_name(const std::string& flag) { return flag.substr(0, flag.find(',')); }

 private:
  struct Value {
    double number = 0;
    int integer = 0;
    bool flag = false;
    std::string text;
  };
  const PresetTable<S>* table_ = nullptr;
  std::vector<Value> values_;
};

}  // namespace poslab::cli
