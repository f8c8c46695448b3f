// Declarative preset codecs: a lab lists its fields once, in a table (key, where the value
// lives, valid range, help text, CLI flag), and one generic writer, reader and range check
// read that table. A new field is one line in the lab's table; the preset string, the
// preset reader, the range check, the CLI flag (cli/preset_flags.hpp) and the table test
// (tests/core/preset_table_test.cpp) all follow from it.
//
//   const PresetTable<FooLabSettings>& foo_preset_fields() {
//     static const PresetTable<FooLabSettings> t{
//         preset_field<FooLabSettings>("pos", [](auto& s) -> auto& { return s.position; },
//                                      FooLabSettings::position_range, "position m shown"),
//         preset_choice<FooLabSettings>("layout", [](auto& s) -> auto& { return s.layout; },
//                                       rope_layout_names(), "RoPE layout", "--layout"),
//     };
//     return t;
//   }
//
// Order in the table is the order keys are written. Rules that tie fields together (an
// odd dim, a method that must suit the scenario) stay explicit functions run after the
// table (kv_lab_normalize, rope_validate).
#pragma once
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/common/errors.hpp"
#include "core/common/param_range.hpp"
#include "core/common/preset.hpp"
#include "core/common/preset_messages.hpp"

namespace poslab {

enum class PresetKind { real, integer, boolean, choice, text };

template <class S>
struct PresetField {
  std::string key;                     // preset key ("base")
  PresetKind kind = PresetKind::real;  // how the value is written and checked
  std::string help;                    // one line for CLI --help and the GUI tooltip
  ParamRange range{-std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::infinity()};  // real, integer
  const std::vector<std::string>* choices = nullptr;          // choice: names in enum order
  std::function<double(const S&)> get;  // real, integer, boolean (0/1), choice (index)
  std::function<void(S&, double)> set;
  std::function<std::string(const S&)> get_text;  // text
  std::function<void(S&, const std::string&)> set_text;
  std::vector<std::string> aliases;  // older keys that still load (read before `key`)
  // choice: older value names that still load, {old, current} ("reset" -> "naive")
  std::vector<std::pair<std::string, std::string>> value_aliases;
  std::string flag;  // CLI11 option names ("--base,--rope-base"); "" = none
};

template <class S>
using PresetTable = std::vector<PresetField<S>>;

namespace preset_detail {
// A field with its key, kind and help; the caller fills in the rest by name.
template <class S>
PresetField<S> field_head(std::string key, PresetKind kind, std::string help) {
  PresetField<S> f;
  f.key = std::move(key);
  f.kind = kind;
  f.help = std::move(help);
  return f;
}

// Converting a double that an integer type cannot hold (NaN, infinity, 1e300, 2^63 into an
// int) is undefined behaviour, so an integer or choice field's set() refuses it first:
// InputError "key = value: must be a whole number in [lo, hi]" (lo, hi: the type's limits;
// the field's own, narrower range is checked by the readers and preset_validate).
template <class I>
void require_representable(const std::string& key, double v) {
  static_assert(std::is_signed_v<I>, "-min is the exact bound past max");
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());  // -2^(bits-1)
  if (v >= lo && v < -lo) return;  // false for NaN; truncation toward zero then fits
  throw InputError(
      preset_message("errors.value.not_representable",
                     {message_arg("name", key), message_arg("value", format_double(v)),
                      message_arg("lo", std::to_string(std::numeric_limits<I>::min())),
                      message_arg("hi", std::to_string(std::numeric_limits<I>::max()))}));
}

template <class S, class Ref>
using FieldType = std::remove_cvref_t<decltype(std::declval<Ref&>()(std::declval<S&>()))>;

// get/set through `ref`, a lambda `[](auto& s) -> auto& { return s.member; }`.
template <class S, class Ref>
void bind_number(PresetField<S>& f, Ref ref) {
  using T = FieldType<S, Ref>;
  f.get = [ref](const S& s) {
    if constexpr (std::is_enum_v<T>)
      return static_cast<double>(static_cast<int>(ref(s)));
    else
      return static_cast<double>(ref(s));
  };
  f.set = [ref, key = f.key](S& s, double v) {
    if constexpr (std::is_same_v<T, bool>) {
      ref(s) = v != 0;
    } else {
      using Stored = std::conditional_t<std::is_enum_v<T>, int, T>;
      if constexpr (std::is_integral_v<Stored>) require_representable<Stored>(key, v);
      ref(s) = static_cast<T>(static_cast<Stored>(v));
    }
  };
}
}  // namespace preset_detail

// A number (double or int) with its valid range.
template <class S, class Ref>
PresetField<S> preset_field(std::string key, Ref ref, ParamRange range, std::string help,
                            std::string flag = "") {
  using T = preset_detail::FieldType<S, Ref>;
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, int>, "a number field");
  PresetField<S> f = preset_detail::field_head<S>(
      std::move(key), std::is_same_v<T, int> ? PresetKind::integer : PresetKind::real,
      std::move(help));
  f.range = range;
  f.flag = std::move(flag);
  preset_detail::bind_number<S>(f, ref);
  return f;
}

// A bool (written 0/1) or a free text.
template <class S, class Ref>
PresetField<S> preset_field(std::string key, Ref ref, std::string help, std::string flag = "") {
  using T = preset_detail::FieldType<S, Ref>;
  static_assert(std::is_same_v<T, bool> || std::is_same_v<T, std::string>, "a bool or text");
  PresetField<S> f = preset_detail::field_head<S>(
      std::move(key), std::is_same_v<T, bool> ? PresetKind::boolean : PresetKind::text,
      std::move(help));
  f.flag = std::move(flag);
  if constexpr (std::is_same_v<T, bool>) {
    preset_detail::bind_number<S>(f, ref);
  } else {
    f.get_text = [ref](const S& s) { return ref(s); };
    f.set_text = [ref](S& s, const std::string& v) { ref(s) = v; };
  }
  return f;
}

// One of `names` (an enum listed in enum order, or an int index).
template <class S, class Ref>
PresetField<S> preset_choice(std::string key, Ref ref, const std::vector<std::string>& names,
                             std::string help, std::string flag = "") {
  PresetField<S> f =
      preset_detail::field_head<S>(std::move(key), PresetKind::choice, std::move(help));
  f.range = {0, static_cast<double>(names.size()) - 1};
  f.choices = &names;
  f.flag = std::move(flag);
  preset_detail::bind_number<S>(f, ref);
  return f;
}

// A choice field whose older value names still load: {old, current} pairs, e.g.
// with_value_aliases(preset_choice<S>("variant", ...), {{"reset", "naive"}}). Presets are
// written with the current name.
template <class S>
PresetField<S> with_value_aliases(PresetField<S> f,
                                  std::vector<std::pair<std::string, std::string>> value_aliases) {
  f.value_aliases = std::move(value_aliases);
  return f;
}

// The fields of a sub-struct's table (e.g. RopeParams) seen through `ref` (s.model.rope).
template <class S, class Sub, class Ref>
PresetTable<S> preset_fields_of(const PresetTable<Sub>& sub, Ref ref) {
  PresetTable<S> out;
  for (const PresetField<Sub>& g : sub) {
    PresetField<S> f = preset_detail::field_head<S>(g.key, g.kind, g.help);
    f.range = g.range;
    f.choices = g.choices;
    f.aliases = g.aliases;
    f.value_aliases = g.value_aliases;
    f.flag = g.flag;
    if (g.get) {
      f.get = [get = g.get, ref](const S& s) { return get(ref(s)); };
      f.set = [set = g.set, ref](S& s, double v) { set(ref(s), v); };
    }
    if (g.get_text) {
      f.get_text = [get = g.get_text, ref](const S& s) { return get(ref(s)); };
      f.set_text = [set = g.set_text, ref](S& s, const std::string& v) { set(ref(s), v); };
    }
    out.push_back(std::move(f));
  }
  return out;
}

// The table without the fields whose keys are listed (a lab that derives them).
template <class S>
PresetTable<S> preset_fields_without(PresetTable<S> t,
                                     std::initializer_list<std::string_view> keys) {
  std::erase_if(t, [&](const PresetField<S>& f) {
    for (auto k : keys)
      if (f.key == k) return true;
    return false;
  });
  return t;
}

// Only the listed keys, in the listed order; throws std::logic_error on a key not in `t`.
template <class S>
PresetTable<S> preset_fields_only(const PresetTable<S>& t,
                                  std::initializer_list<std::string_view> keys) {
  PresetTable<S> out;
  for (auto k : keys) {
    bool found = false;
    for (const auto& f : t)
      if (f.key == k) {
        out.push_back(f);
        found = true;
      }
    if (!found) throw std::logic_error("preset table has no key " + std::string(k));
  }
  return out;
}

// Concatenation (a lab's own fields around a shared block).
template <class S>
PresetTable<S> operator+(PresetTable<S> a, const PresetTable<S>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Writes every field of `s` that differs from `defaults`, in table order.
template <class S>
void preset_write(PresetWriter& w, const PresetTable<S>& table, const S& s, const S& defaults) {
  for (const auto& f : table) {
    if (f.kind == PresetKind::text) {
      const std::string v = f.get_text(s);
      if (v != f.get_text(defaults)) w.add_text(f.key, v);
      continue;
    }
    const double v = f.get(s);
    if (v == f.get(defaults)) continue;
    switch (f.kind) {
      case PresetKind::real:
        w.add(f.key, v, f.range);
        break;
      case PresetKind::integer:
        w.add(f.key, static_cast<int>(v));
        break;
      case PresetKind::boolean:
        w.add(f.key, v != 0);
        break;
      case PresetKind::choice:
        w.add_text(f.key, f.choices->at(static_cast<size_t>(v)));
        break;
      case PresetKind::text:
        break;
    }
  }
}

// Reads whichever keys (or aliases) the preset names, range-checked; does not call finish().
template <class S>
void preset_read(PresetReader& in, const PresetTable<S>& table, S& s) {
  for (const auto& f : table) {
    auto read_one = [&](const std::string& key) {
      switch (f.kind) {
        case PresetKind::real: {
          double v = f.get(s);
          in.read(key, v, f.range);
          f.set(s, v);
          break;
        }
        case PresetKind::integer: {
          int v = static_cast<int>(f.get(s));
          in.read(key, v, f.range);
          f.set(s, v);
          break;
        }
        case PresetKind::boolean: {
          bool v = f.get(s) != 0;
          in.read(key, v);
          f.set(s, v);
          break;
        }
        case PresetKind::choice: {
          int v = static_cast<int>(f.get(s));
          in.read_choice(key, v, *f.choices, f.value_aliases);
          f.set(s, v);
          break;
        }
        case PresetKind::text: {
          std::string v = f.get_text(s);
          in.read_text(key, v);
          f.set_text(s, v);
          break;
        }
      }
    };
    for (const auto& alias : f.aliases) read_one(alias);
    read_one(f.key);
  }
}

// Range checks of every number and choice: "key = value: must be a number in [lo, hi]".
template <class S>
void preset_validate(const PresetTable<S>& table, const S& s) {
  for (const auto& f : table) {
    if (f.kind == PresetKind::real || f.kind == PresetKind::integer || f.kind == PresetKind::choice)
      require_in_range(f.key.c_str(), f.get(s), f.range);
  }
}

// The field with this key, or nullptr.
template <class S>
const PresetField<S>* preset_field_find(const PresetTable<S>& table, std::string_view key) {
  for (const auto& f : table)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace poslab
