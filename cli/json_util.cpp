// Helpers shared by the subcommands (see json_util.hpp).
#include "cli/json_util.hpp"

#include <charconv>
#include <sstream>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab::cli {

Json parse_json_input(const std::string& text, const std::string& source, int max_depth) {
  try {
    // The callback runs inside nlohmann's iterative parser, before any recursive code.
    return Json::parse(text, [&](int depth, Json::parse_event_t event, Json&) {
      if (depth > max_depth &&
          (event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start))
        throw InputError(source + ": JSON nested deeper than " + std::to_string(max_depth) +
                         " levels; PosLab's inputs need far fewer (is this the right file?)");
      return true;
    });
  } catch (const Json::parse_error& e) {
    throw InputError(source + ": malformed JSON at byte " + std::to_string(e.byte) + " (" +
                     std::string(e.what()) + ")");
  } catch (const Json::out_of_range& e) {
    throw InputError(source + ": a number is outside the range of a double (" +
                     std::string(e.what()) + ")");
  } catch (const Json::exception& e) {
    throw InputError(source + ": cannot read the JSON (" + std::string(e.what()) + ")");
  }
}

uint64_t parse_u64(const std::string& text, const std::string& what) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const auto [ptr, ec] = digits ? std::from_chars(text.data(), end, v)
                                : std::from_chars_result{text.data(), std::errc::invalid_argument};
  if (ec == std::errc::result_out_of_range)
    throw InputError(what + " = " + text + ": out of range, must be in [0, 18446744073709551615]");
  if (ec != std::errc() || ptr != end)
    throw InputError(what + " = \"" + text +
                     "\": must be a whole number in [0, 18446744073709551615]");
  return v;
}

std::vector<double> parse_number_list(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    out.push_back(parse_double(item, what));
  }
  if (out.empty()) throw InputError(what + " is empty: give comma-separated numbers, e.g. 0,1,100");
  return out;
}

RowMatrix parse_json_matrix(const std::string& text, const std::string& source, bool& was_vector) {
  const Json j = parse_json_input(text, source, 2);
  if (!j.is_array() || j.empty())
    throw InputError(source + ": expected a non-empty JSON array of numbers or of rows");
  was_vector = !j[0].is_array();
  std::vector<const Json*> rows;
  if (was_vector)
    rows.push_back(&j);
  else
    for (const auto& r : j) rows.push_back(&r);
  if (!rows[0]->is_array() || rows[0]->empty())
    throw InputError(source + ": row 0 is empty; expected [x0, x1, ...] or [[...], [...]]");
  const size_t cols = rows[0]->size();
  RowMatrix m(rows.size(), cols);
  for (size_t r = 0; r < rows.size(); ++r) {
    const Json& row = *rows[r];
    if (!row.is_array() || row.size() != cols)
      throw InputError(source + ": row " + std::to_string(r) + " has " +
                       std::to_string(row.is_array() ? row.size() : 1) + " entries, expected " +
                       std::to_string(cols));
    for (size_t c = 0; c < cols; ++c) {
      if (!row[c].is_number())
        throw InputError(source + ": entry [" + std::to_string(r) + "][" + std::to_string(c) +
                         "] = " + dump_json(row[c]).substr(0, 80) + " is not a number");
      m(r, c) = row[c].get<double>();
    }
  }
  return m;
}

}  // namespace poslab::cli
