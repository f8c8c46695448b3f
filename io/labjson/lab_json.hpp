// Each lab's numbers as the JSON `poslab-cli` prints, in one place that both poslab-cli and
// the GUI's "Export numbers" call, so an exported file is literally the CLI's output for
// the same preset (issue 16). The results come from core; this file only lays them out.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/attention/attention_lab.hpp"
#include "core/kv/kv_session.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/wheels_lab.hpp"
#include "core/wm/dream_lab.hpp"

namespace poslab::io {

using Json = nlohmann::ordered_json;

Json to_json(const Eigen::VectorXd& v);
Json to_json(const RowMatrix& m);

// `poslab-cli rope [--decay] --positions P` (without --apply/--inverse/--reencode): the
// frequencies, wavelengths, bands and angles of lab.rope, plus the decay plot when asked.
Json rope_lab_json(const WheelsLabSettings& lab, const std::vector<double>& positions, bool decay);

// `poslab-cli attention`: `s` the settings computed, `lab` their result; only_head >= 0
// prints one head; terms adds the per-cell content/position split.
Json attention_lab_json(const AttentionLabSettings& s, const AttentionLabResult& lab, int only_head,
                        bool terms);

// `poslab-cli kv`: every method of the session (all_methods) or only s.method.
Json kv_lab_json(const KvLabSettings& s, const KvSession& ses, bool all_methods);

// JSON text as poslab-cli writes it: invalid UTF-8 inside strings becomes U+FFFD instead of
// throwing. indent < 0 = one line.
std::string dump_json(const Json& j, int indent = -1);

// "poslab-cli" followed by each argument, quoted for a POSIX shell where needed: the exact
// command a user can paste into a terminal.
std::string cli_command_line(const std::vector<std::string>& args);

}  // namespace poslab::io
