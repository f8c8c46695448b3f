// Each lab's numbers as CSV, made from the lab's poslab-cli JSON (lab_json.hpp) so that
// every number in the CSV is the CLI's number, printed in the shortest form that reads back
// to the same double. One file holds several tables; each starts with a row
// `table,<name>`, then a header row, then the data rows, and ends with an empty row.
// docs/export.md lists the tables and columns of each lab.
#pragma once
#include <string>

#include "io/labjson/lab_json.hpp"

namespace poslab::io {

// `poslab-cli rope --decay --preset P --positions m`: summary, pairs (frequencies,
// wavelengths, bands, angles) and the decay curve.
std::string rope_lab_csv(const Json& rope_json);
// `poslab-cli attention --preset P [--head h]`: summary, tokens, and per head the logits,
// weights and bias matrices labelled by token (plus the absolute encoding matrix).
std::string attention_lab_csv(const Json& attention_json);
// `poslab-cli kv --preset P --method all`: summary, and per method the error curves per
// step and layer and the final cache's slot table.
std::string kv_lab_csv(const Json& kv_json);
// `poslab-cli sim ...` (or one dataset row in the same shape): the ship states (15 values
// per slot) of row `row` of "tokens" (-1 = the last row), with a summary.
std::string arena_lab_csv(const Json& sim_json, int row = -1);
// The dream lab's per-horizon error curves (dream, copy-last, constant velocity).
std::string dreams_lab_csv(const Json& dreams_json);
// The length lab: the summary per curve, loss against position, the text's bits per byte.
std::string length_lab_csv(const Json& length_json);

// One CSV cell: numbers in shortest round-trip form, strings quoted when needed, null empty.
std::string csv_cell(const Json& v);

}  // namespace poslab::io
