// Small helpers shared by the subcommands: Eigen <-> JSON, number lists, one-line errors.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/rope/rope.hpp"

namespace poslab::cli {

using Json = nlohmann::ordered_json;

Json to_json(const Eigen::VectorXd& v);
Json to_json(const RowMatrix& m);

// Parses "0,1,2.5" into numbers; throws InputError naming `what` and the bad item.
std::vector<double> parse_number_list(const std::string& text, const std::string& what);

// Reads a JSON vector [..] or matrix [[..], ..] of numbers from text; throws InputError
// ("stdin: ...") when malformed or ragged. was_vector tells which shape it was.
RowMatrix parse_json_matrix(const std::string& text, const std::string& source, bool& was_vector);

}  // namespace poslab::cli
