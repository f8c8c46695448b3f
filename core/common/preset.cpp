// Preset string encoding and decoding (see preset.hpp for the format).
#include "core/common/preset.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/common/charconv.hpp"
#include "core/common/names.hpp"
#include "core/common/preset_messages.hpp"

namespace poslab {
namespace {

bool is_plain(unsigned char c) {
  // Readable: letters, digits, a few marks, '/' (paths) and every byte of a multi-byte
  // UTF-8 character (Chinese text stays Chinese). The reader decodes %XX anywhere.
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~' || c == ',' || c == ':' || c == '+' || c == '/' ||
         c >= 0x80;
}

std::string percent_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (is_plain(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

// A control character is named by its escape ("%1B"), never echoed raw.
[[noreturn]] void refuse_control(unsigned char c) {
  static const char* hex = "0123456789ABCDEF";
  const std::string near{'%', hex[c >> 4], hex[c & 15]};
  throw InputError(preset_message("errors.preset.control_escape", {message_arg("near", near)}));
}

// Raw control characters inside a preset (whitespace a paste carries at either end aside).
void refuse_raw_controls(std::string_view text) {
  const auto edge = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!text.empty() && edge(text.front())) text.remove_prefix(1);
  while (!text.empty() && edge(text.back())) text.remove_suffix(1);
  for (char c : text)
    if (is_control(static_cast<unsigned char>(c))) refuse_control(static_cast<unsigned char>(c));
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || hex_value(s[i + 1]) < 0 || hex_value(s[i + 2]) < 0)
      throw InputError(preset_message("errors.preset.bad_escape",
                                      {message_arg("near", std::string(s.substr(i, 3)))}));
    const auto c = static_cast<unsigned char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
    // A control character (ESC, newline, NUL...) would reach a banner, stderr or a file name
    // raw; no preset value needs one (the writer never makes them from plain text).
    if (is_control(c)) refuse_control(c);
    out += static_cast<char>(c);
    i += 2;
  }
  return out;
}

}  // namespace

std::string format_double(double v) {
  char buf[64];
  auto res = chars::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

double parse_double(std::string_view text, const std::string& what) {
  double v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && *first == '+') ++first;
  auto res = chars::from_chars(first, last, v);
  if (text.empty() || res.ec != std::errc() || res.ptr != last || !std::isfinite(v))
    throw InputError(
        preset_message("errors.value.not_finite",
                       {message_arg("name", what), message_arg("value", std::string(text))}));
  return v;
}

std::string format_int(int v) {
  return std::to_string(v);
}

std::string format_double_rounded(double v, ParamRange range) {
  if (!std::isfinite(v) || v == std::trunc(v)) return format_double(v);  // whole: exact
  const double a = std::abs(v);
  const int int_digits = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
  for (int digits = std::max(6, int_digits + 1); digits < 17; ++digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    const double r = std::strtod(buf, nullptr);
    if (range.contains(r) || !range.contains(v)) return format_double(r);
  }
  return format_double(v);
}

PresetWriter& PresetWriter::add(const std::string& key, double value, ParamRange range) {
  fields_.emplace_back(key, format_double_rounded(value, range));
  return *this;
}

PresetWriter& PresetWriter::add_text(const std::string& key, std::string_view value) {
  fields_.emplace_back(key, percent_encode(value));
  return *this;
}

std::string PresetWriter::str() const {
  std::string out = lab_;
  for (size_t i = 0; i < fields_.size(); ++i) {
    out += i == 0 ? '?' : '&';
    out += fields_[i].first + "=" + fields_[i].second;
  }
  return out;
}

std::string preset_lab(std::string_view text) {
  // Before anything is echoed in an error: a link's %1B may already be decoded to ESC.
  refuse_raw_controls(text);
  auto q = text.find('?');
  std::string lab(text.substr(0, q));
  while (!lab.empty() && (lab.back() == ' ' || lab.back() == '\n')) lab.pop_back();
  if (lab.empty())
    throw InputError(
        preset_message("errors.preset.missing_lab", {message_arg("preset", std::string(text))}));
  for (char c : lab)
    if (!((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9')))
      throw InputError(preset_message("errors.preset.lab_chars", {message_arg("lab", lab)}));
  return lab;
}

PresetReader::PresetReader(std::string_view text, std::string_view expected_lab) {
  // Trim whitespace a paste may carry.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  lab_ = preset_lab(text);
  if (lab_ != expected_lab)
    throw InputError(preset_message(
        "errors.preset.wrong_lab",
        {message_arg("lab", lab_), message_arg("expected", std::string(expected_lab))}));
  auto q = text.find('?');
  if (q == std::string_view::npos) return;
  std::string_view rest = text.substr(q + 1);
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view field = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (field.empty()) continue;
    auto eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw InputError(preset_message("errors.preset.not_key_value",
                                      {message_arg("field", std::string(field))}));
    std::string key(field.substr(0, eq));
    if (fields_.count(key))
      throw InputError(preset_message("errors.preset.key_twice", {message_arg("key", key)}));
    fields_[key] = percent_decode(field.substr(eq + 1));
    used_[key] = false;
  }
}

const std::string* PresetReader::find(const std::string& key) {
  auto it = fields_.find(key);
  if (it == fields_.end()) return nullptr;
  used_[key] = true;
  return &it->second;
}

void PresetReader::read(const std::string& key, double& out, ParamRange range) {
  if (const auto* v = find(key)) {
    double d = parse_double(*v, lab_ + "." + key);
    require_in_range((lab_ + "." + key).c_str(), d, range);
    out = d;
  }
}

void PresetReader::read(const std::string& key, int& out, ParamRange range) {
  if (const auto* v = find(key)) {
    double d = parse_double(*v, lab_ + "." + key);
    if (d != std::floor(d))
      throw InputError(
          preset_message("errors.value.not_whole",
                         {message_arg("name", lab_ + "." + key), message_arg("value", *v)}));
    require_in_range((lab_ + "." + key).c_str(), d, range);
    out = static_cast<int>(d);
  }
}

void PresetReader::read(const std::string& key, bool& out) {
  if (const auto* v = find(key)) {
    if (*v == "1" || *v == "true")
      out = true;
    else if (*v == "0" || *v == "false")
      out = false;
    else
      throw InputError(
          preset_message("errors.value.not_bool",
                         {message_arg("name", lab_ + "." + key), message_arg("value", *v)}));
  }
}

void PresetReader::read_text(const std::string& key, std::string& out) {
  if (const auto* v = find(key)) out = *v;
}

void PresetReader::read_choice(
    const std::string& key, int& out, const std::vector<std::string>& names,
    const std::vector<std::pair<std::string, std::string>>& value_aliases) {
  if (const auto* v = find(key)) {
    const std::string* name = v;
    for (const auto& [old_name, current] : value_aliases)
      if (*v == old_name) name = &current;
    out = enum_index_from_name(lab_ + "." + key, *name, names);
  }
}

std::vector<std::string> PresetReader::keys() const {
  std::vector<std::string> k;
  for (const auto& [key, value] : fields_) k.push_back(key);
  return k;
}

void PresetReader::finish() const {
  for (const auto& [key, used] : used_)
    if (!used)
      throw InputError(preset_message("errors.preset.unknown_key",
                                      {message_arg("lab", lab_), message_arg("key", key)}));
}

}  // namespace poslab
