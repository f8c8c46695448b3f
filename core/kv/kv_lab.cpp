// KV-cache lab settings: names, validation and the preset codec. Only fields that differ
// from the defaults are written, which keeps lesson presets short.
#include "core/kv/kv_lab.hpp"

#include <algorithm>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/preset.hpp"
#include "core/kv/kv_messages.hpp"
#include "core/rope/rope_preset.hpp"

namespace poslab {
namespace {

std::string join(const std::vector<KvMethod>& ms) {
  std::vector<std::string> names;
  names.reserve(ms.size());
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
  preset_validate(kv_preset_fields(), s);  // every range, then the rules across fields
  auto fail = [](std::string_view id, std::vector<MessageArg> args) {
    throw InputError(message_make(kKvMessages, id, std::move(args)));
  };
  auto arg = [](const char* name, long v) { return message_arg(name, std::to_string(v)); };
  if (s.view_layer >= p.layers)
    fail("kv.message.view_layer",
         {arg("layer", s.view_layer), arg("layers", p.layers), arg("last", p.layers - 1)});
  if (s.view_head >= p.heads)
    fail("kv.message.view_head", {arg("head", s.view_head), arg("heads", p.heads)});
  if (s.view_pair >= kv_head_dim(p) / 2)
    fail("kv.message.view_pair", {arg("pair", s.view_pair), arg("pairs", kv_head_dim(p) / 2)});
  if (s.scenario != KvScenario::sliding && p.positions != KvPositions::rope)
    fail("kv.message.scenario_needs_rope", {message_arg("scenario", kv_scenario_name(s.scenario))});
  const auto ok = kv_methods_for(s.scenario, p.positions);
  bool found = false;
  for (auto m : ok) found = found || m == s.method;
  if (!found)
    fail("kv.message.method_not_for_scenario",
         {message_arg("method", kv_method_name(s.method)),
          message_arg("scenario", kv_scenario_name(s.scenario)),
          message_arg("positions", kv_positions_names()[static_cast<int>(p.positions)]),
          message_arg("methods", join(ok))});
  if (s.scenario == KvScenario::sliding && 2 * s.drop_steps >= p.context)
    fail("kv.message.drop_empties_window",
         {arg("drop", s.drop_steps), arg("window", p.context / 2), arg("context", p.context)});
  if (s.scenario == KvScenario::rag) {
    const long last = s.retrieve_from + static_cast<long>(s.retrieved - 1) * s.retrieve_stride;
    if (last >= s.first_length)
      fail("kv.message.rag_outside_b",
           {arg("from", s.retrieve_from), arg("last", last), arg("length", s.first_length)});
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

const PresetTable<KvLabSettings>& kv_preset_fields() {
  using S = KvLabSettings;
  using M = KvModelParams;
  auto model = [](auto& s) -> auto& {
    return s.model;
  };
  static const PresetTable<S> t =
      PresetTable<S>{
          preset_choice<S>(
              "pos", [](auto& s) -> auto& { return s.model.positions; }, kv_positions_names(),
              "position type: learned table or RoPE", "--positions"),
          preset_choice<S>(
              "scenario", [](auto& s) -> auto& { return s.scenario; }, kv_scenario_names(),
              "sliding window, stitching two caches, or RAG", "--scenario"),
          preset_choice<S>(
              "method", [](auto& s) -> auto& { return s.method; }, kv_method_names(),
              "index correction shown in detail"),
      } +
      preset_fields_of<S>(
          PresetTable<M>{
              preset_field<M>(
                  "layers", [](auto& p) -> auto& { return p.layers; }, M::layers_range,
                  "transformer blocks", "--layers"),
              preset_field<M>(
                  "width", [](auto& p) -> auto& { return p.width; }, M::width_range,
                  "model width W", "--width"),
              preset_field<M>(
                  "heads", [](auto& p) -> auto& { return p.heads; }, M::heads_range,
                  "attention heads (W/heads must be even)", "--heads"),
              preset_field<M>(
                  "vocab", [](auto& p) -> auto& { return p.vocab; }, M::vocab_range,
                  "vocabulary size", "--vocab"),
              preset_field<M>(
                  "C", [](auto& p) -> auto& { return p.context; }, M::context_range,
                  "C: window and learned-table length in tokens (even)", "--context"),
              preset_field<M>(
                  "ln", [](auto& p) -> auto& { return p.layer_norm; },
                  "pre-LayerNorm in every block"),
              preset_field<M>(
                  "pos_std", [](auto& p) -> auto& { return p.position_std; }, M::position_std_range,
                  "std of learned position-table entries", "--position-std"),
              preset_field<M>(
                  "gain", [](auto& p) -> auto& { return p.attention_gain; },
                  M::attention_gain_range, "init gain of W_q and W_k (sharper attention)",
                  "--gain"),
          } +
              preset_fields_of<M>(
                  preset_fields_without(rope_preset_fields(), {"dim", "rotary"}),
                  [](auto& p) -> auto& { return p.rope; }) +
              PresetTable<M>{
                  preset_field<M>(
                      "seed", [](auto& p) -> auto& { return p.seed; }, M::seed_range,
                      "weights and token streams", "--seed"),
              },
          model) +
      PresetTable<S>{
          preset_field<S>(
              "steps", [](auto& s) -> auto& { return s.steps; }, S::steps_range,
              "window slides (sliding) or new tokens (stitch, rag)", "--steps"),
          preset_field<S>(
              "drop", [](auto& s) -> auto& { return s.drop_steps; }, S::drop_steps_range,
              "episode steps dropped per slide", "--drop"),
          preset_field<S>(
              "first", [](auto& s) -> auto& { return s.first_length; }, S::length_range,
              "stitch/rag: tokens of document B", "--first"),
          preset_field<S>(
              "second", [](auto& s) -> auto& { return s.second_length; }, S::length_range,
              "stitch/rag: tokens of document A", "--second"),
          preset_field<S>(
              "retrieved", [](auto& s) -> auto& { return s.retrieved; }, S::length_range,
              "rag: slots retrieved from B", "--retrieved"),
          preset_field<S>(
              "from", [](auto& s) -> auto& { return s.retrieve_from; }, S::retrieve_from_range,
              "rag: B index of the first retrieved slot", "--from"),
          preset_field<S>(
              "stride", [](auto& s) -> auto& { return s.retrieve_stride; },
              S::retrieve_stride_range, "rag: spacing of the retrieved B indices", "--stride"),
          preset_field<S>(
              "f32", [](auto& s) -> auto& { return s.cache_float32; },
              "store K/V rounded to float32"),
          preset_field<S>(
              "layer", [](auto& s) -> auto& { return s.view_layer; }, S::view_layer_range,
              "layer whose strip, heatmap and dials are shown"),
          preset_field<S>(
              "head", [](auto& s) -> auto& { return s.view_head; }, S::view_head_range,
              "head whose attention and dials are shown"),
          preset_field<S>(
              "pair", [](auto& s) -> auto& { return s.view_pair; }, S::view_pair_range,
              "RoPE pair drawn on the slot dials"),
      };
  return t;
}

std::string kv_to_preset(const KvLabSettings& s) {
  PresetWriter w(kKvLabName);
  preset_write(w, kv_preset_fields(), s, KvLabSettings{});
  return w.str();
}

KvLabSettings kv_from_preset(const std::string& text, const KvLabSettings& base) {
  KvLabSettings s = base;
  PresetReader in(text, kKvLabName);
  preset_read(in, kv_preset_fields(), s);
  in.finish();
  kv_lab_normalize(s, in.keys());
  kv_lab_validate(s);
  return s;
}

}  // namespace poslab
