// Interface strings from TOML (see ui_strings.hpp).
#include "io/i18n/ui_strings.hpp"

#include <toml++/toml.h>
#include <cstdlib>

#include "core/common/errors.hpp"

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

std::map<std::string, std::string, std::less<>> read_table(const std::string& path) {
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw FileError(path, "line " + std::to_string(e.source().begin.line) + ": " +
                              std::string(e.description()));
  }
  std::map<std::string, std::string, std::less<>> out;
  flatten(t, "", path, out);
  return out;
}

}  // namespace

UiStrings UiStrings::load(const std::string& dir, const std::string& lang) {
  UiStrings s;
  s.map_ = read_table(dir + "/en.toml");
  if (lang != "en")
    for (auto& [k, v] : read_table(dir + "/" + lang + ".toml")) s.map_[k] = std::move(v);
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

std::string default_i18n_dir() {
  if (const char* d = std::getenv("POSLAB_ASSETS_DIR"); d && *d) return std::string(d) + "/i18n";
  return POSLAB_SOURCE_ASSETS_DIR "/i18n";
}

}  // namespace poslab::io
