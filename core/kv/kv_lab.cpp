// KV-cache lab settings: names, validation and the preset codec. Only fields that differ
// from the defaults are written, which keeps lesson presets short.
#include "core/kv/kv_lab.hpp"

#include <algorithm>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/preset.hpp"
#include "core/rope/rope_preset.hpp"

namespace poslab {
namespace {

std::string join(const std::vector<KvMethod>& ms) {
  std::vector<std::string> names;
  for (auto m : ms) names.push_back(kv_method_name(m));
  return poslab::join(names);
}

}  // namespace

const std::vector<std::string>& kv_scenario_names() {
  static const std::vector<std::string> n{"sliding", "stitch", "rag"};
  return n;
}

const std::vector<std::string>& kv_method_names() {
  static const std::vector<std::string> n{"naive",    "legacy",          "keep",     "kshift",
                                          "reencode", "reencode_scaled", "recompute"};
  return n;
}

const std::vector<std::string>& kv_positions_names() {
  static const std::vector<std::string> n{"learned", "rope"};
  return n;
}

KvScenario kv_scenario_from_name(const std::string& name) {
  return enum_from_name<KvScenario>("scenario", name, kv_scenario_names());
}
KvMethod kv_method_from_name(const std::string& name) {
  return enum_from_name<KvMethod>("method", name, kv_method_names());
}
const std::string& kv_method_name(KvMethod m) {
  return kv_method_names()[static_cast<int>(m)];
}
const std::string& kv_scenario_name(KvScenario s) {
  return kv_scenario_names()[static_cast<int>(s)];
}

std::vector<KvMethod> kv_methods_for(KvScenario s, KvPositions p) {
  using M = KvMethod;
  if (s != KvScenario::sliding) {
    if (p != KvPositions::rope) return {};
    return {M::naive, M::reencode, M::kshift, M::reencode_scaled, M::recompute};
  }
  if (p == KvPositions::learned) return {M::naive, M::legacy, M::recompute};
  return {M::naive, M::keep, M::kshift, M::recompute};
}

void kv_lab_normalize(KvLabSettings& s, const std::vector<std::string>& given) {
  auto free = [&given](const char* key) {
    return std::find(given.begin(), given.end(), key) == given.end();
  };
  KvModelParams& p = s.model;
  if (s.scenario != KvScenario::sliding && free("pos")) p.positions = KvPositions::rope;
  const auto ms = kv_methods_for(s.scenario, p.positions);
  if (!ms.empty() && std::find(ms.begin(), ms.end(), s.method) == ms.end() && free("method"))
    s.method = ms.front();
  if (free("C")) p.context += p.context % 2;
  if (free("layer")) s.view_layer = std::clamp(s.view_layer, 0, std::max(0, p.layers - 1));
  if (free("head")) s.view_head = std::clamp(s.view_head, 0, std::max(0, p.heads - 1));
  if (free("pair")) s.view_pair = std::clamp(s.view_pair, 0, std::max(0, kv_head_dim(p) / 2 - 1));
  if (s.scenario == KvScenario::sliding && free("drop"))
    s.drop_steps = std::max(1, std::min(s.drop_steps, p.context / 2 - 1));
  if (s.scenario == KvScenario::rag) {
    if (free("from")) s.retrieve_from = std::clamp(s.retrieve_from, 0, s.first_length - 1);
    if (free("retrieved"))
      s.retrieved = std::max(
          1, std::min(s.retrieved,
                      (s.first_length - 1 - s.retrieve_from) / std::max(1, s.retrieve_stride) + 1));
  }
}

void kv_lab_validate(const KvLabSettings& s) {
  const KvModelParams& p = s.model;
  kv_model_validate(p);
  require_in_range("steps", s.steps, KvLabSettings::steps_range);
  require_in_range("drop_steps", s.drop_steps, KvLabSettings::drop_steps_range);
  require_in_range("first_length", s.first_length, KvLabSettings::length_range);
  require_in_range("second_length", s.second_length, KvLabSettings::length_range);
  require_in_range("retrieved", s.retrieved, KvLabSettings::length_range);
  require_in_range("retrieve_from", s.retrieve_from, KvLabSettings::retrieve_from_range);
  require_in_range("retrieve_stride", s.retrieve_stride, KvLabSettings::retrieve_stride_range);
  require_in_range("view_layer", s.view_layer, KvLabSettings::view_layer_range);
  require_in_range("view_head", s.view_head, KvLabSettings::view_head_range);
  require_in_range("view_pair", s.view_pair, KvLabSettings::view_pair_range);
  if (s.view_layer >= p.layers)
    throw InputError("view_layer = " + std::to_string(s.view_layer) + " but the model has " +
                     std::to_string(p.layers) + " layers (0.." + std::to_string(p.layers - 1) +
                     ")");
  if (s.view_head >= p.heads)
    throw InputError("view_head = " + std::to_string(s.view_head) + " but the model has " +
                     std::to_string(p.heads) + " heads");
  if (s.view_pair >= kv_head_dim(p) / 2)
    throw InputError("view_pair = " + std::to_string(s.view_pair) + " but a head has " +
                     std::to_string(kv_head_dim(p) / 2) + " RoPE pairs");
  if (s.scenario != KvScenario::sliding && p.positions != KvPositions::rope)
    throw InputError("scenario " + kv_scenario_name(s.scenario) +
                     " needs positions = rope: stitching re-rotates keys, learned positions have "
                     "no rotation to undo");
  const auto ok = kv_methods_for(s.scenario, p.positions);
  bool found = false;
  for (auto m : ok) found = found || m == s.method;
  if (!found)
    throw InputError("method " + kv_method_name(s.method) + " does not apply to scenario " +
                     kv_scenario_name(s.scenario) + " with " +
                     kv_positions_names()[static_cast<int>(p.positions)] +
                     " positions; choose one of " + join(ok));
  if (s.scenario == KvScenario::sliding && 2 * s.drop_steps >= p.context)
    throw InputError("drop_steps = " + std::to_string(s.drop_steps) +
                     " would empty the window of " + std::to_string(p.context / 2) +
                     " steps (context = " + std::to_string(p.context) +
                     " tokens); drop fewer steps");
  if (s.scenario == KvScenario::rag) {
    const long last = s.retrieve_from + static_cast<long>(s.retrieved - 1) * s.retrieve_stride;
    if (last >= s.first_length)
      throw InputError("rag retrieves B indices " + std::to_string(s.retrieve_from) + ".." +
                       std::to_string(last) + " but B has only " + std::to_string(s.first_length) +
                       " tokens; lower retrieved, retrieve_from or retrieve_stride");
  }
}

std::vector<int> kv_retrieved_indices(const KvLabSettings& s) {
  std::vector<int> idx;
  if (s.scenario == KvScenario::rag) {
    for (int k = 0; k < s.retrieved; ++k) idx.push_back(s.retrieve_from + k * s.retrieve_stride);
  } else {
    for (int k = 0; k < s.first_length; ++k) idx.push_back(k);
  }
  return idx;
}

std::string kv_to_preset(const KvLabSettings& s) {
  const KvLabSettings d;
  const KvModelParams &p = s.model, &dp = d.model;
  PresetWriter w(kKvLabName);
  if (p.positions != dp.positions)
    w.add_text("pos", kv_positions_names()[static_cast<int>(p.positions)]);
  if (s.scenario != d.scenario) w.add_text("scenario", kv_scenario_name(s.scenario));
  if (s.method != d.method) w.add_text("method", kv_method_name(s.method));
  if (p.layers != dp.layers) w.add("layers", p.layers);
  if (p.width != dp.width) w.add("width", p.width);
  if (p.heads != dp.heads) w.add("heads", p.heads);
  if (p.vocab != dp.vocab) w.add("vocab", p.vocab);
  if (p.context != dp.context) w.add("C", p.context);
  if (p.layer_norm != dp.layer_norm) w.add("ln", p.layer_norm);
  if (p.position_std != dp.position_std) w.add("pos_std", p.position_std);
  if (p.attention_gain != dp.attention_gain) w.add("gain", p.attention_gain);
  rope_preset_write(w, p.rope, dp.rope, {.head_dim = false, .rotary_fraction = false});
  if (p.seed != dp.seed) w.add("seed", p.seed);
  if (s.steps != d.steps) w.add("steps", s.steps);
  if (s.drop_steps != d.drop_steps) w.add("drop", s.drop_steps);
  if (s.first_length != d.first_length) w.add("first", s.first_length);
  if (s.second_length != d.second_length) w.add("second", s.second_length);
  if (s.retrieved != d.retrieved) w.add("retrieved", s.retrieved);
  if (s.retrieve_from != d.retrieve_from) w.add("from", s.retrieve_from);
  if (s.retrieve_stride != d.retrieve_stride) w.add("stride", s.retrieve_stride);
  if (s.cache_float32 != d.cache_float32) w.add("f32", s.cache_float32);
  if (s.view_layer != d.view_layer) w.add("layer", s.view_layer);
  if (s.view_head != d.view_head) w.add("head", s.view_head);
  if (s.view_pair != d.view_pair) w.add("pair", s.view_pair);
  return w.str();
}

KvLabSettings kv_from_preset(const std::string& text, const KvLabSettings& base) {
  KvLabSettings s = base;
  KvModelParams& p = s.model;
  PresetReader in(text, kKvLabName);
  int pos = static_cast<int>(p.positions), scenario = static_cast<int>(s.scenario),
      method = static_cast<int>(s.method);
  in.read_choice("pos", pos, kv_positions_names());
  in.read_choice("scenario", scenario, kv_scenario_names());
  in.read_choice("method", method, kv_method_names());
  p.positions = static_cast<KvPositions>(pos);
  s.scenario = static_cast<KvScenario>(scenario);
  s.method = static_cast<KvMethod>(method);
  in.read("layers", p.layers, KvModelParams::layers_range);
  in.read("width", p.width, KvModelParams::width_range);
  in.read("heads", p.heads, KvModelParams::heads_range);
  in.read("vocab", p.vocab, KvModelParams::vocab_range);
  in.read("C", p.context, KvModelParams::context_range);
  in.read("ln", p.layer_norm);
  in.read("pos_std", p.position_std, KvModelParams::position_std_range);
  in.read("gain", p.attention_gain, KvModelParams::attention_gain_range);
  rope_preset_read(in, p.rope, {.head_dim = false, .rotary_fraction = false});
  in.read("seed", p.seed, KvModelParams::seed_range);
  in.read("steps", s.steps, KvLabSettings::steps_range);
  in.read("drop", s.drop_steps, KvLabSettings::drop_steps_range);
  in.read("first", s.first_length, KvLabSettings::length_range);
  in.read("second", s.second_length, KvLabSettings::length_range);
  in.read("retrieved", s.retrieved, KvLabSettings::length_range);
  in.read("from", s.retrieve_from, KvLabSettings::retrieve_from_range);
  in.read("stride", s.retrieve_stride, KvLabSettings::retrieve_stride_range);
  in.read("f32", s.cache_float32);
  in.read("layer", s.view_layer, KvLabSettings::view_layer_range);
  in.read("head", s.view_head, KvLabSettings::view_head_range);
  in.read("pair", s.view_pair, KvLabSettings::view_pair_range);
  in.finish();
  kv_lab_normalize(s, in.keys());
  kv_lab_validate(s);
  return s;
}

}  // namespace poslab
