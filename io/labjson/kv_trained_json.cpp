// kv_trained_json: lays out core's KvTrainedResult; computes nothing but means and bands.
#include "io/labjson/kv_trained_json.hpp"

#include "core/lm/lm_eval.hpp"

namespace poslab::io {

Json kv_trained_json(const KvTrainedResult& r) {
  Json out;
  out["preset"] = kv_trained_to_preset(r.lab);
  out["weights"] = "trained";
  out["scenario"] = kv_trained_scenario_names()[static_cast<size_t>(r.lab.scenario)];
  out["model"] = r.model;
  out["position"] = lm::lm_position_name(r.position);
  out["context"] = r.context;
  out["layers"] = r.layers;
  out["note"] = r.note;
  out["first_position"] = r.first_position;
  if (r.lab.scenario != KvTrainedScenario::stream) {
    out["stitched"] = r.stitched;
    out["first_block_positions"] = r.first_pos;
  } else {
    out["window"] = r.lab.window;
    out["sinks"] = r.lab.sinks;
  }
  out["bytes"] = std::vector<int>(r.bytes.begin(), r.bytes.end());
  const double ref = r.methods.empty() ? 0.0 : r.methods.front().mean_bits;
  Json ms = Json::array();
  for (const KvTrainedMethod& m : r.methods) {
    Json j = {{"method", m.name},
              {"reference", m.reference},
              {"mean_bits", m.mean_bits},
              {"extra_bits", m.mean_bits - ref}};
    if (r.lab.scenario == KvTrainedScenario::stream) {
      const int L = r.context;
      Json at;
      for (const auto& [name, p] : std::vector<std::pair<std::string, int>>{
               {"L", L}, {"2L", 2 * L}, {"4L", 4 * L}, {"8L", 8 * L}})
        if (p <= static_cast<int>(m.bits.size())) at[name] = lm::lm_curve_at(m.bits, p, L);
      j["at"] = at;
    } else if (!m.reference) {
      j["key_diff"] = m.key_diff;
      j["value_diff"] = m.value_diff;
      j["hidden_diff"] = m.hidden_diff;
    }
    j["bits"] = m.bits;
    ms.push_back(std::move(j));
  }
  out["methods"] = ms;
  return out;
}

}  // namespace poslab::io
