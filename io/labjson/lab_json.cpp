// Lab results as poslab-cli's JSON (see lab_json.hpp). Moved here from cli/*_command.cpp so
// the GUI's exports and the CLI share one serialiser; the output is byte-identical.
#include "io/labjson/lab_json.hpp"

#include <cmath>

#include "core/attention/attention_kernel.hpp"
#include "core/attention/demos.hpp"
#include "core/common/names.hpp"

namespace poslab::io {
namespace {

// ---------------------------------------------------------------- rope
Json band_names(const std::vector<PairBand>& bands) {
  Json j = Json::array();
  for (auto b : bands)
    j.push_back(b == PairBand::kept ? "kept" : b == PairBand::blended ? "blended" : "interpolated");
  return j;
}

// ---------------------------------------------------------------- attention
// Cells without a value (masked, or a position with no learned row) are JSON null.
Json cell(double v) {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

template <class M>
Json matrix_json(const M& m) {
  Json j = Json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Json row = Json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(cell(static_cast<double>(m(r, c))));
    j.push_back(std::move(row));
  }
  return j;
}

Json vector_json(const std::vector<double>& v) {
  Json j = Json::array();
  for (double x : v) j.push_back(cell(x));
  return j;
}

Json comparison_json(const AttentionComparison& c, int only_head) {
  Json j;
  j["note"] = c.note;
  j["max_abs_score_diff"] = c.max_abs_score_diff;
  j["max_abs_weight_diff"] = c.max_abs_weight_diff;
  j["incomparable_cells"] = c.incomparable_cells;
  j["align"] = c.align;
  j["tokens_b"] = c.model_b.input.tokens;
  Json heads = Json::array();
  for (size_t h = 0; h < c.score_diff.size(); ++h) {
    if (only_head >= 0 && static_cast<int>(h) != only_head) continue;
    heads.push_back({{"head", h},
                     {"logits_b", matrix_json(c.b.heads[h].scores)},
                     {"score_diff", matrix_json(c.score_diff[h])},
                     {"weight_diff", matrix_json(c.weight_diff[h])}});
  }
  j["heads"] = heads;
  return j;
}

Json attention_demo_json(const AttentionLabSettings& s, const AttentionLabResult& lab,
                         int only_head) {
  Json demo;
  switch (s.demo) {
    case AttentionDemo::none:
      break;
    case AttentionDemo::permutation:
      demo = comparison_json(lab.pair, only_head);
      break;
    case AttentionDemo::shift:
      demo = comparison_json(lab.pair, only_head);
      demo["k"] = s.shift;
      break;
    case AttentionDemo::extrapolation: {
      const ExtrapolationDemo& d = lab.extrapolation;
      demo["note"] = d.note;
      demo["trained_length"] = d.trained_length;
      demo["tokens"] = s.extrapolate_tokens;
      Json hs = Json::array();
      for (size_t h = 0; h < d.row_entropy.size(); ++h)
        if (!d.row_entropy[h].empty())
          hs.push_back({{"head", h},
                        {"row_entropy", vector_json(d.row_entropy[h])},
                        {"row_max", vector_json(d.row_max[h])}});
      demo["heads"] = hs;
      if (d.slowest_pair.pair >= 0)  // RoPE: what changes at L while the weights are random
        demo["slowest_pair"] = {{"pair", d.slowest_pair.pair},
                                {"inv_freq", d.slowest_pair.inv_freq},
                                {"trained_max", d.slowest_pair.trained_max},
                                {"angle", d.slowest_pair.angle}};
      break;
    }
    case AttentionDemo::rope_decay:
      demo = {{"head", only_head >= 0 ? only_head : s.head},
              {"deltas", lab.decay.deltas},
              {"ones", lab.decay.ones},
              {"content", lab.decay.content},
              {"bound", lab.decay.bound}};
      break;
    case AttentionDemo::alibi_slopes:
      demo = {{"slopes", lab.slopes},
              {"head", only_head >= 0 ? only_head : s.head},
              {"bias", matrix_json(lab.demo_matrix)}};
      demo["tokens"] = lab.demo_matrix.rows();
      demo["head_biases"] = Json::array();
      for (const RowMatrix& b : lab.demo_heads) demo["head_biases"].push_back(matrix_json(b));
      break;
    case AttentionDemo::t5_buckets: {
      Json ranges = Json::array();
      for (const auto& b : lab.bucket_ranges)
        ranges.push_back({{"bucket", b.bucket},
                          {"count", b.count},
                          {"lo", b.lo},
                          {"hi", b.hi},
                          {"open_ended", b.open_ended}});
      demo = {{"bidirectional", s.params.t5_bidirectional},
              {"horizon", lab.bucket_horizon},
              {"ranges", ranges},
              {"map", matrix_json(lab.demo_matrix)}};
      break;
    }
  }
  return demo;
}

// The trained source (weights = trained): the model, the bytes and the map(s) drawn.
Json trained_map_json(const AttentionTrainedMap& m) {
  return {{"scaling", rope_scaling_names()[static_cast<size_t>(m.scaling.scaling)]},
          {"factor", m.scaling.factor},
          {"weights", matrix_json(m.weights)},
          {"row_entropy", vector_json(m.row_entropy)},
          {"row_max", vector_json(m.row_max)},
          {"row_distance", vector_json(m.row_distance)},
          {"entropy_before_L", m.entropy_before_L},
          {"entropy_after_L", m.entropy_after_L},
          {"distance_before_L", m.distance_before_L},
          {"distance_after_L", m.distance_after_L}};
}

Json attention_trained_json(const AttentionLabSettings& s, const AttentionTrained& t) {
  Json out;
  out["preset"] = attention_to_preset(s);
  out["weights"] = "trained";
  out["model"] = lm::length_model_name(t.model);
  out["context"] = t.context;
  out["layers"] = t.layers;
  out["heads"] = t.heads;
  out["head_dim"] = t.head_dim;
  out["layer"] = t.layer;
  out["head"] = t.head;  // -1: the mean over the heads
  out["heldout"] = t.heldout;
  out["bytes"] = std::vector<int>(t.bytes.begin(), t.bytes.end());
  out["tokens"] = t.tokens;
  if (!t.has_decay) {
    Json plain = trained_map_json(t.plain);
    plain["head"] = t.head;
    out["per_head"] = Json::array({plain});
    if (t.has_scaled) out["scaled"] = trained_map_json(t.scaled);
  }
  if (s.demo != AttentionDemo::none) {
    Json demo;
    demo["name"] = attention_demo_names()[static_cast<int>(s.demo)];
    if (t.has_decay) {
      const AttentionTrainedDecay& d = t.decay;
      demo["windows"] = d.windows;
      demo["distances"] = d.distances;
      demo["bound"] = d.bound;
      demo["floored"] = d.floored;
      demo["trend"] = d.trend == AttentionTrainedDecay::Trend::rises_past_L ? "rises_past_L"
                      : d.trend == AttentionTrainedDecay::Trend::stays_low_past_L
                          ? "stays_low_past_L"
                          : "mixed";
      Json hs = Json::array();
      for (size_t h = 0; h < d.mean_logit.size(); ++h)
        hs.push_back({{"head", h},
                      {"mean_logit", d.mean_logit[h]},
                      {"mean_weight", d.mean_weight[h]},
                      {"near", cell(d.near[h])},
                      {"inside", cell(d.inside[h])},
                      {"past", cell(d.past[h])}});
      demo["heads"] = hs;
    }
    out["demo"] = demo;
  }
  return out;
}

// ---------------------------------------------------------------- kv
Json cache_json(const KvCache& c) {
  Json labels = Json::array(), computed = Json::array(), encoded = Json::array(),
       used = Json::array(), scale = Json::array();
  for (const auto& s : c.slots) {
    labels.push_back(s.label);
    computed.push_back(s.computed_at);
    encoded.push_back(s.encoded_at);
    used.push_back(s.used_at);
    scale.push_back(s.key_scale);
  }
  return {{"labels", labels},
          {"computed_at", computed},
          {"encoded_at", encoded},
          {"used_at", used},
          {"key_scale", scale}};
}

Json method_json(const KvMethodState& st, int layers) {
  Json steps = Json::array();
  std::vector<double> worst(layers, 0.0);
  for (const auto& e : st.history) {
    steps.push_back({{"step", e.step},
                     {"output_error", Json(e.output_error)},
                     {"key_error", Json(e.key_error)},
                     {"value_error", Json(e.value_error)},
                     {"logits_error", e.logits_error}});
    for (int l = 0; l < layers; ++l) worst[l] = std::max(worst[l], e.output_error[l]);
  }
  Json j{{"method", kv_method_name(st.method)}};
  if (!st.key_position_error.empty()) j["key_position_error"] = Json(st.key_position_error);
  j["max_output_error"] = Json(worst);
  j["final_output_error"] =
      st.history.empty() ? Json::array() : Json(st.history.back().output_error);
  j["final_cache"] = cache_json(st.cache);
  j["steps"] = steps;
  return j;
}

Json kv_notes(const KvLabSettings& s) {
  Json n = Json::array();
  if (s.scenario == KvScenario::sliding) {
    n.push_back(
        "ground truth: the window's raw tokens recomputed at indices 0..n-1 after every slide");
    n.push_back(
        "layer 0 keys depend only on token and index, so layer-0 key_error isolates the index "
        "correction; deeper layers also carry context from dropped tokens, which only recompute "
        "removes");
  } else {
    n.push_back(
        "key_position_error: stitched keys vs the source runs' raw keys rotated to their global "
        "index "
        "0..L-1 (positions only; rounding level when re-encoding is right)");
    n.push_back(
        "output_error: new tokens vs recomputing the stitched text from scratch; non-zero even "
        "with "
        "exact re-encoding, because each block's K/V were computed in another context");
  }
  return n;
}

bool needs_quotes(const std::string& a) {
  if (a.empty()) return true;
  for (char c : a)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("-_./=,:+@%").find(c) != std::string_view::npos))
      return true;
  return false;
}

}  // namespace

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

Json rope_lab_json(const WheelsLabSettings& lab, const std::vector<double>& positions, bool decay) {
  const RopeParams& p = lab.rope;
  Json out;
  out["head_dim"] = p.head_dim;
  out["rotary_dim"] = rope_rotary_dim(p);
  out["base"] = p.base;
  out["layout"] = rope_layout_names()[static_cast<int>(p.layout)];
  out["scaling"] = rope_scaling_names()[static_cast<int>(p.scaling)];
  out["factor"] = p.factor;
  out["original_context"] = p.original_context;
  out["effective_base"] = rope_effective_base(p);
  out["attention_scale"] = rope_attention_scale(p);
  out["logit_scale"] = rope_attention_scale(p) * rope_attention_scale(p);
  const Eigen::VectorXd inv0 = rope_inv_freq_original(p), inv = rope_inv_freq(p);
  out["inv_freq_original"] = to_json(inv0);
  out["inv_freq"] = to_json(inv);
  out["wavelengths_original"] = to_json(rope_wavelengths(inv0));
  out["wavelengths"] = to_json(rope_wavelengths(inv));
  out["turns_in_context"] = to_json(rope_turns_in_context(p));
  out["bands"] = band_names(rope_pair_bands(p));
  if (p.scaling == RopeScaling::yarn) {
    const YarnBounds b = rope_yarn_bounds(p);
    out["yarn"] = {{"low_dim", b.low_dim},
                   {"high_dim", b.high_dim},
                   {"low", b.low},
                   {"high", b.high},
                   {"keep", to_json(rope_yarn_keep(p))}};
  }
  Json angles = Json::array();
  const RowMatrix a_tab = rope_angles(p, positions);
  for (size_t t = 0; t < positions.size(); ++t)
    angles.push_back({{"position", positions[t]},
                      {"angles", to_json(Eigen::VectorXd(a_tab.row(t).transpose()))}});
  out["angles"] = angles;
  if (decay) {
    const WheelsDecay d = wheels_decay(lab);
    out["decay"] = {{"vectors", decay_vectors_names()[static_cast<int>(lab.decay_vectors)]},
                    {"max_distance", lab.decay_max_distance},
                    {"deltas", d.deltas},
                    {"score", d.scaled},
                    {"score_without_scaling", d.original}};
  }
  return out;
}

Json attention_lab_json(const AttentionLabSettings& s, const AttentionLabResult& lab, int only_head,
                        bool terms) {
  if (lab.has_trained) return attention_trained_json(s, lab.trained);
  const AttentionParams& p = s.params;
  const AttentionModel& m = lab.model;
  const AttentionInput& in = m.input;
  const AttentionResult& r = lab.result;
  const int T = static_cast<int>(in.tokens.size());

  Json out;
  out["preset"] = attention_to_preset(s);
  out["encoding"] = attention_encoding_name(p.encoding);
  out["label"] = attention_encoding_label(p.encoding);
  out["tokens"] = in.tokens;
  out["positions"] = in.positions;
  if (s.source == AttentionSource::grid) out["grid"] = {s.grid_rows, s.grid_cols};
  out["heads"] = p.heads;
  out["model_dim"] = p.model_dim;
  out["head_dim"] = p.head_dim;
  out["seed"] = p.seed;
  out["use_content"] = p.use_content;
  out["use_position"] = p.use_position;
  out["causal"] = p.causal;
  out["scale"] = r.scale;
  out["kernel"] = attention_kernel_isa();
  out["note"] = r.note;
  Json missing = Json::array();
  for (int t : r.missing) missing.push_back(in.positions[t]);
  out["positions_without_embedding"] = missing;
  if (attention_encoding_kind(p.encoding) == EncodingKind::absolute)
    out["encoding_matrix"] = matrix_json(m.encoding);
  if (p.encoding == AttentionEncoding::alibi) out["alibi_slopes"] = alibi_slopes(p.heads);
  if (p.encoding == AttentionEncoding::t5) out["t5_buckets"] = matrix_json(attention_t5_buckets(m));
  if (p.encoding == AttentionEncoding::elevation) out["terrain_m"] = matrix_json(m.terrain);
  Json heads = Json::array();
  for (int h = 0; h < p.heads; ++h) {
    if (only_head >= 0 && h != only_head) continue;
    Json jh;
    jh["head"] = h;
    jh["logits"] = matrix_json(r.heads[h].scores);
    jh["weights"] = matrix_json(r.heads[h].weights);
    if (r.heads[h].bias.size()) jh["bias"] = matrix_json(r.heads[h].bias);
    if (terms) {
      Json rows = Json::array();
      for (int i = 0; i < T; ++i) {
        Json row = Json::array();
        for (int j = 0; j < T; ++j) {
          const ScoreTerms t = attention_score_terms(m, h, i, j);
          row.push_back({{"cc", t.content_content},
                         {"cp", t.content_position},
                         {"pc", t.position_content},
                         {"pp", t.position_position},
                         {"rotation", t.rotation},
                         {"bias", t.bias},
                         {"total", cell(t.total)}});
        }
        rows.push_back(std::move(row));
      }
      jh["terms"] = rows;
    }
    heads.push_back(std::move(jh));
  }
  out["per_head"] = heads;

  if (s.demo == AttentionDemo::none && lab.has_pair)
    out["compare"] = comparison_json(lab.pair, only_head);
  if (s.demo != AttentionDemo::none) {
    Json demo = attention_demo_json(s, lab, only_head);
    demo["name"] = attention_demo_names()[static_cast<int>(s.demo)];
    out["demo"] = demo;
  }
  return out;
}

Json kv_lab_json(const KvLabSettings& s, const KvSession& ses, bool all_methods) {
  const KvModelParams& p = s.model;
  Json out;
  out["lab"] = kKvLabName;
  out["preset"] = kv_to_preset(s);
  out["scenario"] = kv_scenario_name(s.scenario);
  out["positions"] = kv_positions_names()[static_cast<int>(p.positions)];
  out["model"] = {
      {"layers", p.layers},         {"width", p.width}, {"heads", p.heads},
      {"head_dim", kv_head_dim(p)}, {"vocab", p.vocab}, {"context", p.context},
      {"layer_norm", p.layer_norm}, {"seed", p.seed},   {"cache_float32", s.cache_float32}};
  if (p.positions == KvPositions::rope)
    out["rope"] = {{"base", p.rope.base},
                   {"layout", rope_layout_names()[static_cast<int>(p.rope.layout)]},
                   {"scaling", rope_scaling_names()[static_cast<int>(p.rope.scaling)]},
                   {"factor", p.rope.factor},
                   {"table_scale", kv_rope_table_scale(p)},
                   {"table_scale_squared", kv_rope_table_scale(p) * kv_rope_table_scale(p)}};
  out["steps"] = s.steps;
  if (s.scenario != KvScenario::sliding) {
    std::vector<double> first;
    for (int i : kv_retrieved_indices(s)) first.push_back(i);
    out["first_original_positions"] = first;
    out["stitched_length"] = static_cast<int>(first.size()) + s.second_length;
  }
  out["notes"] = kv_notes(s);
  Json methods = Json::array();
  for (const auto& st : ses.methods)
    if (all_methods || st.method == s.method) methods.push_back(method_json(st, p.layers));
  out["methods"] = methods;
  return out;
}

std::string dump_json(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string cli_command_line(const std::vector<std::string>& args) {
  std::string out = "poslab-cli";
  for (const std::string& a : args) {
    out += ' ';
    if (!needs_quotes(a)) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace poslab::io
