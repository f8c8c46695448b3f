// Issue 40: the English interface texts are built into the program (app/embedded_texts.hpp),
// so a wrong POSLAB_DATA_DIR shows words, not text keys: with no folder of texts at all, every
// English key has its text, equal to the file's, and the banner's own button is labelled.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "app/embedded_texts.hpp"
#include "io/i18n/ui_strings.hpp"

namespace fs = std::filesystem;

TEST_CASE("built-in English: every key of assets/i18n/en without a data folder",
          "[i18n][builtin]") {
  const fs::path dir = fs::path(POSLAB_TEST_SOURCE_DIR) / "assets" / "i18n";
  const poslab::io::UiStrings disk = poslab::io::UiStrings::load(dir.string(), "en");
  for (const char* lang : {"en", "zh"}) {
    INFO("language " << lang);
    std::vector<std::string> problems;
    const poslab::io::UiStrings s =
        poslab::io::UiStrings::load_lenient("/nonexistent/poslab-data/assets/i18n", lang, problems,
                                            poslab::app::embedded_english_texts());
    CHECK_FALSE(problems.empty());  // the missing folder is still said
    int keys = 0;
    for (const auto& f : fs::directory_iterator(dir / "en")) {
      for (const std::string& key : poslab::io::UiStrings::file_keys(f.path().string())) {
        INFO(key << " of " << f.path().filename().string());
        CHECK(s.has(key));
        CHECK(s.get(key) == disk.get(key));
        ++keys;
      }
    }
    CHECK(keys > 500);
    CHECK(s.get("banner.dismiss") == disk.get("banner.dismiss"));
    CHECK(s.get("banner.dismiss") != "banner.dismiss");
  }
}
