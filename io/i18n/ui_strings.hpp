// The interface's words in one language, read from data files (assets/i18n/<lang>/*.toml,
// one file per part of the interface: shell.toml, wheels.toml, ...; toml++): a flat table of dotted
// keys ("menu.file" = "File"). English is complete; another language overrides what it translates,
// and a missing key falls back to English, then to the key itself, so a half-translated file never
// hides a control.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::io {

class UiStrings {
 public:
  UiStrings() = default;
  // Loads every <dir>/en/*.toml and, for another language, <dir>/<lang>/*.toml over it.
  // Throws FileError naming the file (missing folder, TOML syntax error with line, a
  // non-text value, a key defined in two files of one language).
  static UiStrings load(const std::string& dir, const std::string& lang);
  // What the app uses at start: never throws. A missing folder, a file that cannot be read
  // (TOML error, invalid UTF-8, not a regular file, over 4 MiB) or a key's second definition
  // is described in `problems` (naming the file) and skipped; its keys fall back to English,
  // then to the key itself.
  // `builtin` (file name, TOML text): English built into the program, under the files, so a
  // wrong data folder still shows words, not keys (the app passes its embedded copy of
  // assets/i18n/en; a built-in text that does not parse is a problem too).
  static UiStrings load_lenient(
      const std::string& dir, const std::string& lang, std::vector<std::string>& problems,
      const std::vector<std::pair<std::string_view, std::string_view>>& builtin = {});
  // The text for `key`; the key itself if no file has it.
  const std::string& get(std::string_view key) const;
  bool has(std::string_view key) const { return map_.find(key) != map_.end(); }
  // Every key of one file (to compare languages in tests).
  static std::vector<std::string> file_keys(const std::string& path);
  // All texts joined (to load the glyphs they need into the font atlas).
  std::string all_text() const;

 private:
  std::map<std::string, std::string, std::less<>> map_;
  mutable std::map<std::string, std::string, std::less<>> missing_;  // keys echoed back
};

}  // namespace poslab::io
