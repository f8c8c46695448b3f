// Interface texts with values in them: tr_args fills {name} placeholders, and every
// translation keeps the values its English text has (the same {name} placeholders, and the
// same %-sequences as text). No text is ever a printf format (issue 36: the house rule
// scripts/check_format_strings.py), so a translation can only show a value, never read one. Also:
// every key the dream lab's widgets, the recorder and the helm help ask for exists in English.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/widgets/tr_args.hpp"
#include "io/i18n/ui_strings.hpp"
#include "tests/app/keys_used.hpp"

namespace fs = std::filesystem;
using poslab::app::tr_args;
using poslab::io::UiStrings;

using poslab::test::kI18nDir;

namespace {

std::vector<std::string> matches(const std::string& text, const std::regex& re) {
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[0]);
  return out;
}

// printf conversions in order ("%d", "%.2f", "%lld", "%%"). No space flag and no %a, so
// "10 % are held out" is plain text.
const std::regex kConversion(R"re(%[-+#0]*[0-9]*(\.[0-9]+)?(hh|h|ll|l|z)?[diouxXeEfgGcsp%])re");
// {name} placeholders (tr_args); "sum_{k<j}" in a formula is not one.
const std::regex kPlaceholder(R"re(\{[a-z_][a-z0-9_]*\})re");
}  // namespace

TEST_CASE("tr_args fills named placeholders in any order") {
  CHECK(tr_args("Wrote {path}: {mb} MB", {{"path", "/tmp/a.webp"}, {"mb", "1.25"}}) ==
        "Wrote /tmp/a.webp: 1.25 MB");
  // A translation may put the values in another order, or use one twice.
  CHECK(tr_args("{mb} MB -> {path} ({mb})", {{"path", "p"}, {"mb", "2"}}) == "2 MB -> p (2)");
  // An unknown name stays visible; a value holding braces is not filled again.
  CHECK(tr_args("{a} {typo}", {{"a", "{a}"}}) == "{a} {typo}");
  CHECK(tr_args("no values", {}) == "no values");
  CHECK(tr_args("open { and {x", {{"x", "1"}}) == "open { and {x");
  CHECK(tr_args("", {{"x", "1"}}).empty());
  CHECK(tr_args("日志 {n} 条", {{"n", "3"}}) == "日志 3 条");  // UTF-8 around a placeholder
}

TEST_CASE("translations keep the printf conversions and the {name} placeholders of English") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  int with_values = 0;
  for (const auto& e : fs::directory_iterator(kI18nDir + "/en")) {
    for (const std::string& key : UiStrings::file_keys(e.path().string())) {
      INFO("file " << e.path().filename() << ", key " << key);
      const std::string a = en.get(key), b = zh.get(key);
      INFO("en: " << a << "\nzh: " << b);
      CHECK(matches(a, kConversion) == matches(b, kConversion));
      auto pa = matches(a, kPlaceholder), pb = matches(b, kPlaceholder);
      with_values += !pa.empty() || !matches(a, kConversion).empty();
      CHECK(std::set<std::string>(pa.begin(), pa.end()) ==
            std::set<std::string>(pb.begin(), pb.end()));
    }
  }
  CHECK(with_values > 20);
}

TEST_CASE("every key the dream lab's widgets, the recorder and the helm help use exists") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const std::regex literal(R"re("((dreams|recorder|arena)\.[a-z_][a-z0-9_.]*)")re");
  const std::set<std::string> used = poslab::test::keys_used(
      {"app/widgets/token_strip.cpp", "app/widgets/attention_maps.cpp",
       "app/widgets/train_view.cpp", "app/widgets/recorder.cpp", "app/panels/arena_help.hpp"},
      {&literal});
  CHECK(used.size() > 60);
  for (const auto& k : used) {
    INFO("key " << k);
    CHECK(en.has(k));
  }
}
