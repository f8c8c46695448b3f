// Small helpers shared by the subcommands: Eigen <-> JSON, number lists, one-line errors.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/rope/rope.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::cli {

using Json = nlohmann::ordered_json;

// Eigen -> JSON and poslab-cli's JSON text (io/labjson/lab_json.hpp, shared with the GUI).
using io::dump_json;
using io::to_json;

// Most nesting any JSON input of PosLab needs (matrices 2, action files 4); deeper input is
// refused while parsing, so no recursive copy or dump ever sees it.
inline constexpr int kMaxJsonDepth = 64;

// Parses JSON text from `source` (a file name or "stdin"). Malformed text, nesting deeper
// than max_depth and numbers outside double range (1e400, 333-digit integers) all become
// InputError("<source>: ..."), never another exception.
Json parse_json_input(const std::string& text, const std::string& source,
                      int max_depth = kMaxJsonDepth);

// Appends key: value to a JSON object without looking the key up: ordered_json's operator[]
// searches its keys one by one, so filling an object of n keys that way is quadratic (a
// checkpoint with 200,000 metadata keys took 28 s in `lm info`). Only for keys known to be
// distinct, such as those of a std::map.
inline void json_append_distinct(Json& object, std::string key, Json value) {
  if (!object.is_object()) object = Json::object();
  auto& map = object.get_ref<Json::object_t&>();
  static_cast<Json::object_t::Container&>(map).emplace_back(std::move(key), std::move(value));
}

// Strict unsigned 64-bit integer: decimal digits only, 0..2^64-1; "-1", "1e3", "0x10",
// "18446744073709551616" and "" are InputError naming `what`.
uint64_t parse_u64(const std::string& text, const std::string& what);

// Parses "0,1,2.5" into numbers; throws InputError naming `what` and the bad item.
std::vector<double> parse_number_list(const std::string& text, const std::string& what);

// Reads a JSON vector [..] or matrix [[..], ..] of numbers from text; throws InputError
// ("stdin: ...") when malformed or ragged. was_vector tells which shape it was.
RowMatrix parse_json_matrix(const std::string& text, const std::string& source, bool& was_vector);

}  // namespace poslab::cli
