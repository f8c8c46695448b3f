// Walks every lab's preset table (core/common/preset_fields.hpp): each field round-trips
// through the generic writer and reader at its minimum, maximum and a middle value; values
// outside the range are rejected with a message naming lab and key; every field has help;
// every CLI flag a table names is listed by `poslab-cli <command> --help`. With the table
// as the one place a field is written, these checks replace keeping 4-6 places in sync.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/attention/attention_lab.hpp"
#include "core/bnb/arena_lab.hpp"
#include "core/common/preset_fields.hpp"
#include "core/kv/kv_lab.hpp"
#include "core/kv/kv_trained.hpp"
#include "core/lm/length_lab.hpp"
#include "core/quiz/lessons_lab.hpp"
#include "core/rope/rope_preset.hpp"
#include "core/rope/wheels_lab.hpp"
#include "core/wm/dream_lab.hpp"

using namespace poslab;

namespace {

// Writes `s` with the table, reads it back into defaults (no cross-field rules: those are
// the labs' own functions, tested with the labs).
template <class S>
S round_trip(const std::string& lab, const PresetTable<S>& table, const S& s) {
  PresetWriter w(lab);
  preset_write(w, table, s, S{});
  PresetReader in(w.str(), lab);
  S t{};
  preset_read(in, table, t);
  in.finish();
  return t;
}

template <class S>
void read_text(const std::string& lab, const PresetTable<S>& table, const std::string& text) {
  PresetReader in(text, lab);
  S t{};
  preset_read(in, table, t);
  in.finish();
}

template <class S>
void check_table(const std::string& lab, const PresetTable<S>& table) {
  std::set<std::string> keys;
  for (const auto& f : table) {
    INFO(lab << "." << f.key);
    CHECK(keys.insert(f.key).second);  // keys are unique
    for (const auto& a : f.aliases) CHECK(keys.insert(a).second);
    CHECK_FALSE(f.help.empty());
    const std::string prefix = lab + "?" + f.key + "=";
    switch (f.kind) {
      case PresetKind::real:
      case PresetKind::integer: {
        REQUIRE(std::isfinite(f.range.lo));
        REQUIRE(std::isfinite(f.range.hi));
        double mid = 0.5 * (f.range.lo + f.range.hi);
        if (f.kind == PresetKind::integer) mid = std::floor(mid);
        for (double v : {f.range.lo, f.range.hi, mid}) {
          INFO("value " << v);
          S s{};
          f.set(s, v);
          const double back = f.get(round_trip(lab, table, s));
          if (f.kind == PresetKind::integer)
            CHECK(back == v);
          else  // presets keep about 6 significant digits (preset.hpp)
            CHECK(back == Approx(v).epsilon(1e-5));
          CHECK(f.range.contains(back));
        }
        const double step = std::max(1.0, std::abs(f.range.hi));
        for (double bad : {f.range.hi + step, f.range.lo - std::max(1.0, std::abs(f.range.lo))}) {
          INFO("bad value " << bad);
          CHECK_THROWS_WITH(read_text(lab, table, prefix + format_double(bad)),
                            Catch::Contains(lab + "." + f.key + " = "));
          S s{};
          // A value its int cannot hold (seed = 2^32) is refused by set() itself: converting
          // it would be undefined behaviour (see the test below).
          if (f.kind == PresetKind::integer && std::abs(bad) >= 2147483648.0) {
            CHECK_THROWS_WITH(f.set(s, bad), Catch::Contains(f.key + " = "));
            continue;
          }
          f.set(s, bad);
          CHECK_THROWS_WITH(preset_validate(table, s), Catch::Contains(f.key + " = "));
        }
        break;
      }
      case PresetKind::boolean:
        for (double v : {0.0, 1.0}) {
          S s{};
          f.set(s, v);
          CHECK(f.get(round_trip(lab, table, s)) == v);
        }
        CHECK_THROWS_WITH(read_text(lab, table, prefix + "maybe"),
                          Catch::Contains(lab + "." + f.key));
        break;
      case PresetKind::choice:
        REQUIRE(f.choices != nullptr);
        REQUIRE(f.range.hi == static_cast<double>(f.choices->size()) - 1);
        for (size_t i = 0; i < f.choices->size(); ++i) {
          S s{};
          f.set(s, static_cast<double>(i));
          CHECK(f.get(round_trip(lab, table, s)) == static_cast<double>(i));
        }
        CHECK_THROWS_WITH(read_text(lab, table, prefix + "no_such_choice"),
                          Catch::Contains(lab + "." + f.key));
        break;
      case PresetKind::text: {
        S s{};
        const std::string v = "a b&c=d%e/f?g#h 中文";
        f.set_text(s, v);
        CHECK(f.get_text(round_trip(lab, table, s)) == v);
        break;
      }
    }
    for (const auto& alias : f.aliases) {  // an old key loads into the same field
      INFO("alias " << alias);
      S s{};
      if (f.kind == PresetKind::text) {
        f.set_text(s, "x");
      } else {
        f.set(s, f.kind == PresetKind::boolean || f.kind == PresetKind::choice ? 1.0 : f.range.hi);
      }
      PresetWriter w(lab);  // the field's value, written under the old key
      preset_write(w, PresetTable<S>{f}, s, S{});
      std::string text = w.str();
      text.replace(text.find(f.key + "="), f.key.size(), alias);
      PresetReader in(text, lab);
      S t{};
      preset_read(in, table, t);
      in.finish();
      if (f.kind == PresetKind::text)
        CHECK(f.get_text(t) == "x");
      else
        CHECK(f.get(t) == Approx(f.get(s)).epsilon(1e-5));
    }
    for (const auto& [old_name, current] : f.value_aliases) {  // an old value loads as current
      INFO("value alias " << old_name << " -> " << current);
      REQUIRE(f.kind == PresetKind::choice);
      const auto at = std::find(f.choices->begin(), f.choices->end(), current);
      REQUIRE(at != f.choices->end());  // names a current choice
      CHECK(std::find(f.choices->begin(), f.choices->end(), old_name) == f.choices->end());
      PresetReader in(lab + "?" + f.key + "=" + old_name, lab);
      S t{};
      preset_read(in, table, t);
      in.finish();
      CHECK(f.get(t) == double(at - f.choices->begin()));
    }
  }
  CHECK_THROWS_WITH(read_text(lab, table, lab + "?no_such_key=1"),
                    Catch::Contains("unknown key \"no_such_key\""));
  CHECK_NOTHROW(preset_validate(table, S{}));  // the defaults are valid
  PresetWriter w(lab);
  preset_write(w, table, S{}, S{});
  CHECK(w.str() == lab);  // defaults write nothing
}

// Integer and choice fields hold an int: values an int cannot hold (1e300, -1e300, NaN,
// infinity, 2^63, 2^31) are an InputError naming the key and the value, both from preset
// text (the reader) and from set() (the CLI flags, the GUI), never a conversion (undefined
// behaviour, which UBSan in the sanitize preset turns into a failure). The limits of an int
// themselves are accepted by set().
template <class S>
int check_int_guard(const std::string& lab, const PresetTable<S>& table) {
  int checked = 0;
  for (const auto& f : table) {
    if (f.kind != PresetKind::integer && f.kind != PresetKind::choice) continue;
    INFO(lab << "." << f.key);
    const std::string prefix = lab + "?" + f.key + "=";
    for (const char* text : {"1e300", "-1e300", "nan", "NaN", "-nan", "inf", "-inf",
                             "9223372036854775808", "-9223372036854775809", "2147483648"}) {
      INFO("text " << text);
      CHECK_THROWS_WITH(read_text(lab, table, prefix + text), Catch::Contains(lab + "." + f.key));
    }
    const double two63 = std::ldexp(1.0, 63);
    const std::pair<double, std::string> cases[] = {
        {1e300, "1e+300"},
        {-1e300, "-1e+300"},
        {std::nan(""), "nan"},
        {std::numeric_limits<double>::infinity(), "inf"},
        {-std::numeric_limits<double>::infinity(), "-inf"},
        {two63, "9223372036854775808"},
        {-two63, "-9223372036854775808"},
        {2147483648.0, "2147483648"},
        {-2147483649.0, "-2147483649"}};
    for (const auto& [v, shown] : cases) {
      INFO("set " << shown);
      S s{};
      CHECK_THROWS_WITH(f.set(s, v),
                        Catch::Contains(f.key + " = " + shown + ": must be a whole number in") &&
                            Catch::Contains("[-2147483648, 2147483647]"));
      CHECK(f.get(s) == f.get(S{}));  // the field is left as it was
    }
    if (f.kind == PresetKind::integer) {
      for (double v : {2147483647.0, -2147483648.0}) {
        S s{};
        CHECK_NOTHROW(f.set(s, v));
        CHECK(f.get(s) == v);
      }
    }
    ++checked;
  }
  return checked;
}

}  // namespace

TEST_CASE("integer and choice fields refuse values an int cannot hold, naming key and value") {
  int n = 0;
  n += check_int_guard("rope", rope_preset_fields());
  n += check_int_guard(kWheelsLabName, wheels_preset_fields());
  n += check_int_guard(kKvLabName, kv_preset_fields());
  n += check_int_guard(kAttentionLabName, attention_preset_fields());
  n += check_int_guard(bnb::kArenaLabName, bnb::arena_preset_fields());
  n += check_int_guard(kLessonsLabName, lessons_preset_fields());
  n += check_int_guard(wm::kDreamLabName, wm::dreams_preset_fields());
  n += check_int_guard(lm::kLengthLabName, lm::length_preset_fields());
  CHECK(n >= 10);  // the tables hold many int fields (seeds, sizes, steps, choices)
}

TEST_CASE("every lab's preset table round-trips min, max and middle, rejects out-of-range") {
  check_table("rope", rope_preset_fields());
  check_table(kWheelsLabName, wheels_preset_fields());
  check_table(kKvLabName, kv_preset_fields());
  check_table(kKvTrainedLabName, kv_trained_preset_fields());
  check_table(kAttentionLabName, attention_preset_fields());
  check_table(bnb::kArenaLabName, bnb::arena_preset_fields());
  check_table(kLessonsLabName, lessons_preset_fields());
  check_table(wm::kDreamLabName, wm::dreams_preset_fields());
  check_table(lm::kLengthLabName, lm::length_preset_fields());
}

TEST_CASE("the labs' codecs are the table codecs") {
  // A setting that differs from the defaults in every table field writes every key.
  WheelsLabSettings w;
  w.rope.head_dim = 64;
  w.position = 123.5;
  w.decay_vectors = DecayVectors::random;
  CHECK(wheels_to_preset(w) == "rope?dim=64&pos=123.5&qk=random");
  CHECK(wheels_from_preset(wheels_to_preset(w)) == w);
  CHECK(attention_from_preset("attention?rope_base=500000").params.rope.base == 500000);
  CHECK(attention_from_preset("attention?rope_base=500000&base=20000").params.rope.base == 20000);
}

#ifdef POSLAB_CLI_PATH
namespace {
std::string help_text(const std::string& command) {
  const std::string cmd = std::string(POSLAB_CLI_PATH) + " " + command + " --help 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

template <class S>
void check_flags(const std::string& command, const PresetTable<S>& table) {
  const std::string help = help_text(command);
  int flags = 0;
  for (const auto& f : table) {
    if (f.flag.empty()) continue;
    size_t start = 0;
    while (start <= f.flag.size()) {
      const size_t comma = f.flag.find(',', start);
      const std::string name = f.flag.substr(start, comma - start);
      INFO(command << " " << name << " (" << f.key << ")");
      CHECK(name.rfind("--", 0) == 0);
      bool listed = false;  // the name, then a space or a comma (not a longer flag)
      for (size_t at = help.find(name); at != std::string::npos; at = help.find(name, at + 1)) {
        const char next = at + name.size() < help.size() ? help[at + name.size()] : ' ';
        listed = listed || next == ' ' || next == ',';
      }
      CHECK(listed);
      ++flags;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  CHECK(flags > 0);
}
}  // namespace

TEST_CASE("poslab-cli lists every flag the preset tables name") {
  check_flags("rope", wheels_preset_fields());
  check_flags("kv", kv_preset_fields());
  check_flags("attention", attention_preset_fields());
  check_flags("length", lm::length_preset_fields());
}
#endif
