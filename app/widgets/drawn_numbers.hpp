// The proof behind "every number shown can be reproduced with poslab-cli": in --check
// runs with POSLAB_DRAWN_NUMBERS=<file>, a panel appends one JSON line per check preset
// with the numbers it drew and the poslab-cli arguments that should print them.
// tests/cli/panel_numbers_test.py runs those commands and compares (JSON paths below).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace poslab::app {

// True when the environment asks for the record (then building it is worth the time).
bool drawn_numbers_wanted();
// Appends {"lab", "preset", "cli": args, "numbers": {path: value}} to the file. A path is
// a '/'-separated route into the CLI's JSON ("per_head/0/weights/3"); the value must
// equal what the CLI prints there (objects compare on the keys recorded).
void record_drawn_numbers(const std::string& lab, const std::string& preset,
                          const std::vector<std::string>& cli_args, const nlohmann::json& numbers);

}  // namespace poslab::app
