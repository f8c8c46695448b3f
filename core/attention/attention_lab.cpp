// Preset codec and input builders of the attention lab. Only fields that differ from the
// defaults are written, which keeps lesson presets short.
#include "core/attention/attention_lab.hpp"

#include <type_traits>

#include "core/attention/tokenizer.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"

namespace poslab {

const std::vector<std::string>& attention_source_names() {
  static const std::vector<std::string> n{"sentence", "count", "grid"};
  return n;
}
const std::vector<std::string>& attention_compare_names() {
  static const std::vector<std::string> n{"off", "encodings", "orderings"};
  return n;
}
const std::vector<std::string>& attention_demo_names() {
  static const std::vector<std::string> n{"none",  "permutation", "shift",  "extrapolation",
                                          "decay", "slopes",      "buckets"};
  return n;
}

void attention_lab_validate(const AttentionLabSettings& s) {
  attention_validate(s.params);
  require_in_range("tokens", s.token_count, AttentionLabSettings::token_count_range);
  require_in_range("grid_rows", s.grid_rows, AttentionLabSettings::grid_side_range);
  require_in_range("grid_cols", s.grid_cols, AttentionLabSettings::grid_side_range);
  if (s.grid_rows * s.grid_cols > kAttentionMaxTokens)
    throw InputError("grid " + std::to_string(s.grid_rows) + " x " + std::to_string(s.grid_cols) +
                     " = " + std::to_string(s.grid_rows * s.grid_cols) + " patches: at most " +
                     std::to_string(kAttentionMaxTokens));
  require_in_range("shift", s.shift, AttentionLabSettings::shift_range);
  require_in_range("extrapolate", s.extrapolate_tokens,
                   AttentionLabSettings::extrapolate_tokens_range);
  require_in_range("decay_max", s.decay_max, AttentionLabSettings::decay_max_range);
  if (s.head < 0 || s.head >= s.params.heads)
    throw InputError("head = " + std::to_string(s.head) +
                     ": must be in [0, heads - 1 = " + std::to_string(s.params.heads - 1) + "]");
  if (s.query_row < 0 || s.query_row >= s.grid_rows || s.query_col < 0 ||
      s.query_col >= s.grid_cols)
    throw InputError("query patch (" + std::to_string(s.query_row) + ", " +
                     std::to_string(s.query_col) + ") is outside the " +
                     std::to_string(s.grid_rows) + " x " + std::to_string(s.grid_cols) + " grid");
}

AttentionInput attention_lab_input(const AttentionLabSettings& s) {
  switch (s.source) {
    case AttentionSource::sentence:
      return attention_sequence_input(tokenize_sentence(s.sentence, kAttentionMaxTokens));
    case AttentionSource::count:
      return attention_count_input(s.token_count);
    case AttentionSource::grid:
      return attention_grid_input(s.grid_rows, s.grid_cols);
  }
  return {};
}

AttentionInput attention_lab_input_b(const AttentionLabSettings& s) {
  return attention_sequence_input(tokenize_sentence(s.sentence_b, kAttentionMaxTokens));
}

std::string attention_to_preset(const AttentionLabSettings& s) {
  const AttentionLabSettings d;
  const AttentionParams &p = s.params, &dp = d.params;
  PresetWriter w(kAttentionLabName);
  if (p.encoding != dp.encoding) w.add_text("enc", attention_encoding_name(p.encoding));
  if (p.heads != dp.heads) w.add("heads", p.heads);
  if (p.model_dim != dp.model_dim) w.add("dim", p.model_dim);
  if (p.head_dim != dp.head_dim) w.add("head_dim", p.head_dim);
  if (p.seed != dp.seed) w.add("seed", p.seed);
  if (p.use_content != dp.use_content) w.add("content", p.use_content);
  if (p.use_position != dp.use_position) w.add("position", p.use_position);
  if (p.causal != dp.causal) w.add("causal", p.causal);
  if (p.sin_base != dp.sin_base) w.add("sin_base", p.sin_base);
  if (p.table_length != dp.table_length) w.add("L", p.table_length);
  if (p.learned_std != dp.learned_std) w.add("learned_std", p.learned_std);
  if (p.rope.base != dp.rope.base) w.add("base", p.rope.base, RopeParams::base_range);
  if (p.rope.layout != dp.rope.layout)
    w.add_text("layout", rope_layout_names()[static_cast<int>(p.rope.layout)]);
  if (p.t5_bidirectional != dp.t5_bidirectional) w.add("t5_bidir", p.t5_bidirectional);
  if (p.t5_buckets != dp.t5_buckets) w.add("buckets", p.t5_buckets);
  if (p.t5_max_distance != dp.t5_max_distance) w.add("max_distance", p.t5_max_distance);
  if (p.bias_std != dp.bias_std) w.add("bias_std", p.bias_std);
  if (p.elevation_alpha != dp.elevation_alpha) w.add("alpha", p.elevation_alpha);
  if (p.terrain_max_m != dp.terrain_max_m) w.add("terrain_max", p.terrain_max_m);
  if (s.source != d.source)
    w.add_text("source", attention_source_names()[static_cast<int>(s.source)]);
  if (s.sentence != d.sentence) w.add_text("text", s.sentence);
  if (s.sentence_b != d.sentence_b) w.add_text("text_b", s.sentence_b);
  if (s.token_count != d.token_count) w.add("tokens", s.token_count);
  if (s.grid_rows != d.grid_rows) w.add("rows", s.grid_rows);
  if (s.grid_cols != d.grid_cols) w.add("cols", s.grid_cols);
  if (s.compare != d.compare)
    w.add_text("compare", attention_compare_names()[static_cast<int>(s.compare)]);
  if (s.compare_encoding != d.compare_encoding)
    w.add_text("enc_b", attention_encoding_name(s.compare_encoding));
  if (s.demo != d.demo) w.add_text("demo", attention_demo_names()[static_cast<int>(s.demo)]);
  if (s.shift != d.shift) w.add("shift", s.shift);
  if (s.extrapolate_tokens != d.extrapolate_tokens) w.add("extrapolate", s.extrapolate_tokens);
  if (s.head != d.head) w.add("head", s.head);
  if (s.show_scores != d.show_scores) w.add("scores", s.show_scores);
  if (s.query_row != d.query_row) w.add("qrow", s.query_row);
  if (s.query_col != d.query_col) w.add("qcol", s.query_col);
  if (s.show_terrain != d.show_terrain) w.add("terrain", s.show_terrain);
  if (s.decay_max != d.decay_max) w.add("decay_max", s.decay_max);
  if (s.color_scale != d.color_scale)
    w.add_text("scale", color_scale_names()[static_cast<int>(s.color_scale)]);
  if (s.shared_scale != d.shared_scale) w.add("shared", s.shared_scale);
  return w.str();
}

AttentionLabSettings attention_from_preset(const std::string& text,
                                           const AttentionLabSettings& base) {
  AttentionLabSettings s = base;
  AttentionParams& p = s.params;
  PresetReader in(text, kAttentionLabName);
  auto read_enum = [&in](const std::string& key, auto& field,
                         const std::vector<std::string>& names) {
    int v = static_cast<int>(field);
    in.read_choice(key, v, names);
    field = static_cast<std::remove_reference_t<decltype(field)>>(v);
  };
  read_enum("enc", p.encoding, attention_encoding_names());
  in.read("heads", p.heads, AttentionParams::heads_range);
  in.read("dim", p.model_dim, AttentionParams::model_dim_range);
  in.read("head_dim", p.head_dim, AttentionParams::head_dim_range);
  in.read("seed", p.seed, AttentionParams::seed_range);
  in.read("content", p.use_content);
  in.read("position", p.use_position);
  in.read("causal", p.causal);
  in.read("sin_base", p.sin_base, AttentionParams::sin_base_range);
  in.read("L", p.table_length, AttentionParams::table_length_range);
  in.read("learned_std", p.learned_std, AttentionParams::learned_std_range);
  in.read("rope_base", p.rope.base, RopeParams::base_range);  // before the shared vocabulary
  in.read("base", p.rope.base, RopeParams::base_range);
  read_enum("layout", p.rope.layout, rope_layout_names());
  in.read("t5_bidir", p.t5_bidirectional);
  in.read("buckets", p.t5_buckets, AttentionParams::t5_buckets_range);
  in.read("max_distance", p.t5_max_distance, AttentionParams::t5_max_distance_range);
  in.read("bias_std", p.bias_std, AttentionParams::bias_std_range);
  in.read("alpha", p.elevation_alpha, AttentionParams::elevation_alpha_range);
  in.read("terrain_max", p.terrain_max_m, AttentionParams::terrain_max_range);
  read_enum("source", s.source, attention_source_names());
  in.read_text("text", s.sentence);
  in.read_text("text_b", s.sentence_b);
  in.read("tokens", s.token_count, AttentionLabSettings::token_count_range);
  in.read("rows", s.grid_rows, AttentionLabSettings::grid_side_range);
  in.read("cols", s.grid_cols, AttentionLabSettings::grid_side_range);
  read_enum("compare", s.compare, attention_compare_names());
  read_enum("enc_b", s.compare_encoding, attention_encoding_names());
  read_enum("demo", s.demo, attention_demo_names());
  in.read("shift", s.shift, AttentionLabSettings::shift_range);
  in.read("extrapolate", s.extrapolate_tokens, AttentionLabSettings::extrapolate_tokens_range);
  in.read("head", s.head, AttentionLabSettings::head_range);
  in.read("scores", s.show_scores);
  in.read("qrow", s.query_row, AttentionLabSettings::query_range);
  in.read("qcol", s.query_col, AttentionLabSettings::query_range);
  in.read("terrain", s.show_terrain);
  in.read("decay_max", s.decay_max, AttentionLabSettings::decay_max_range);
  read_enum("scale", s.color_scale, color_scale_names());
  in.read("shared", s.shared_scale);
  in.finish();
  attention_lab_validate(s);
  return s;
}

}  // namespace poslab
