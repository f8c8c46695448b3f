// Interface strings from TOML (see ui_strings.hpp).
#include "io/i18n/ui_strings.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"
#include "io/lessons/toml_depth.hpp"

namespace poslab::io {
namespace {

// Flattens nested tables into dotted keys; every leaf must be a string.
void flatten(const toml::table& t, const std::string& prefix, const std::string& path,
             std::map<std::string, std::string, std::less<>>& out) {
  for (const auto& [k, v] : t) {
    const std::string key =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = v.as_table()) {
      flatten(*sub, key, path, out);
    } else if (const auto* s = v.as_string()) {
      out[key] = s->get();
    } else {
      throw FileError(path, "line " + std::to_string(v.source().begin.line) + ": \"" + key +
                                "\" must be text in quotes");
    }
  }
}

std::map<std::string, std::string, std::less<>> parse_table(const std::string& text,
                                                            const std::string& path) {
  toml_check_depth(text, path);  // before toml++, which recurses per level
  toml::table t;
  try {
    t = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw FileError(path, "line " + std::to_string(e.source().begin.line) + ": " +
                              std::string(e.description()));
  }
  std::map<std::string, std::string, std::less<>> out;
  flatten(t, "", path, out);
  return out;
}

std::map<std::string, std::string, std::less<>> read_table(const std::string& path) {
  // read_file refuses FIFOs, directories and devices without blocking, and huge files.
  return parse_table(read_file(path, size_t{4} << 20), path);
}

// Every <dir>/<lang>/*.toml in name order, merged; a key in two files is an error naming both.
// With `problems`, nothing is thrown: a missing folder, a file that cannot be read and the
// second definition of a key are described there and skipped (their keys fall back).
std::map<std::string, std::string, std::less<>> read_language(const std::string& dir,
                                                              const std::string& lang,
                                                              std::vector<std::string>* problems) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(dir) / lang;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    FileError e(folder.string(), "no such folder of interface texts (assets/i18n/<language>/)");
    if (!problems) throw e;
    problems->push_back(e.what());
    return {};
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::string, std::less<>> out;
  std::map<std::string, std::string> origin;
  for (const auto& f : files) {
    std::map<std::string, std::string, std::less<>> table;
    try {
      table = read_table(f.string());
    } catch (const std::exception& e) {
      if (!problems) throw;
      problems->push_back(e.what());
      continue;
    }
    for (auto& [k, v] : table) {
      if (auto [it, fresh] = origin.emplace(k, f.filename().string()); !fresh) {
        FileError e(f.string(), "\"" + k + "\" is also defined in " + it->second +
                                    ": keep each key in one file");
        if (!problems) throw e;
        problems->push_back(e.what());
        continue;
      }
      out[k] = std::move(v);
    }
  }
  return out;
}

}  // namespace

UiStrings UiStrings::load(const std::string& dir, const std::string& lang) {
  UiStrings s;
  s.map_ = read_language(dir, "en", nullptr);
  if (lang != "en")
    for (auto& [k, v] : read_language(dir, lang, nullptr)) s.map_[k] = std::move(v);
  return s;
}

UiStrings UiStrings::load_lenient(
    const std::string& dir, const std::string& lang, std::vector<std::string>& problems,
    const std::vector<std::pair<std::string_view, std::string_view>>& builtin) {
  UiStrings s;
  for (const auto& [name, text] : builtin) {
    try {
      for (auto& [k, v] : parse_table(std::string(text), "built-in " + std::string(name)))
        s.map_[k] = std::move(v);
    } catch (const std::exception& e) {
      problems.push_back(e.what());
    }
  }
  for (auto& [k, v] : read_language(dir, "en", &problems)) s.map_[k] = std::move(v);
  if (lang != "en")
    for (auto& [k, v] : read_language(dir, lang, &problems)) s.map_[k] = std::move(v);
  return s;
}

const std::string& UiStrings::get(std::string_view key) const {
  if (auto it = map_.find(key); it != map_.end()) return it->second;
  auto it = missing_.find(key);
  if (it == missing_.end()) it = missing_.emplace(std::string(key), std::string(key)).first;
  return it->second;
}

std::vector<std::string> UiStrings::file_keys(const std::string& path) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : read_table(path)) keys.push_back(k);
  return keys;
}

std::string UiStrings::all_text() const {
  std::string out;
  for (const auto& [k, v] : map_) out += v;
  return out;
}

}  // namespace poslab::io
