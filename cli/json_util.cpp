// Helpers shared by the subcommands (see json_util.hpp).
#include "cli/json_util.hpp"

#include <sstream>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab::cli {

Json to_json(const Eigen::VectorXd& v) {
  Json j = Json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) j.push_back(v[i]);
  return j;
}

Json to_json(const RowMatrix& m) {
  Json j = Json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Json row = Json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    j.push_back(std::move(row));
  }
  return j;
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
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source + ": malformed JSON (" + std::string(e.what()) +
                     "); expected [x0, x1, ...] or [[...], [...]]");
  }
  if (!j.is_array() || j.empty())
    throw InputError(source + ": expected a non-empty JSON array of numbers or of rows");
  was_vector = !j[0].is_array();
  std::vector<Json> rows;
  if (was_vector)
    rows.push_back(j);
  else
    for (const auto& r : j) rows.push_back(r);
  const size_t cols = rows[0].size();
  RowMatrix m(rows.size(), cols);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].is_array() || rows[r].size() != cols)
      throw InputError(source + ": row " + std::to_string(r) + " has " +
                       std::to_string(rows[r].size()) + " entries, expected " +
                       std::to_string(cols));
    for (size_t c = 0; c < cols; ++c) {
      if (!rows[r][c].is_number())
        throw InputError(source + ": entry [" + std::to_string(r) + "][" + std::to_string(c) +
                         "] = " + rows[r][c].dump() + " is not a number");
      m(r, c) = rows[r][c].get<double>();
    }
  }
  return m;
}

}  // namespace poslab::cli
