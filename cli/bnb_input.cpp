// Action files and team sizes of the Boost and Broadside subcommands (bnb_input.hpp).
#include "cli/bnb_input.hpp"

#include <regex>

#include "cli/json_util.hpp"

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::cli {

using namespace bnb;

std::pair<int, int> parse_team_sizes(const std::string& text) {
  if (text == "random") return {0, 0};
  static const std::regex re("([1-4])v([1-4])");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw InputError("--teams \"" + text +
                     "\": must be random or NvM with N, M in 1..4 (e.g. 4v4, 2v3)");
  return {std::stoi(m[1]), std::stoi(m[2])};
}

std::vector<JointAction> read_action_file(const std::string& path) {
  return parse_action_json(read_file(path), path);
}

std::vector<JointAction> parse_action_json(const std::string& text, const std::string& path) {
  Json whole;
  try {
    // sim's own output nests 5 deep (relational features); action files need 4.
    whole = parse_json_input(text, path, 8);
  } catch (const InputError& e) {
    std::string why = e.what();
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    throw FileError(path, why);
  }
  const Json& j = whole.is_object() && whole.contains("actions") ? whole["actions"] : whole;
  if (!j.is_array())
    throw FileError(path,
                    "expected a JSON array of steps (each 8 [power, turn, shoot]) or an object "
                    "with \"actions\"");
  std::vector<JointAction> out;
  for (size_t t = 0; t < j.size(); ++t) {
    const Json& step = j[t];
    if (!step.is_array() || step.size() != kSlots)
      throw FileError(path, "step " + std::to_string(t) +
                                ": expected 8 [power, turn, shoot] triples, one per slot");
    JointAction a{};
    for (int k = 0; k < kSlots; ++k) {
      const Json& x = step[k];
      bool ok = x.is_array() && x.size() == 3;
      // Unsigned and compared as 64-bit: 4294967297 must not wrap to 1.
      for (int h = 0; ok && h < 3; ++h)
        ok = x[h].is_number_unsigned() &&
             x[h].get<uint64_t>() < static_cast<uint64_t>(kActionSizes[h]);
      if (!ok)
        throw FileError(path, "step " + std::to_string(t) + " slot " + std::to_string(k) + ": " +
                                  dump_json(x).substr(0, 80) +
                                  " is not [power 0..2, turn 0..6, shoot 0..1]");
      a[k] = {x[0].get<uint8_t>(), x[1].get<uint8_t>(), x[2].get<uint8_t>()};
    }
    out.push_back(a);
  }
  if (out.empty()) throw FileError(path, "has no steps");
  return out;
}

}  // namespace poslab::cli
