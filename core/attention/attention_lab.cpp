// Preset codec and input builders of the attention lab. Only fields that differ from the
// defaults are written, which keeps lesson presets short.
#include "core/attention/attention_lab.hpp"

#include "core/attention/attention_messages.hpp"
#include "core/attention/tokenizer.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/rope/rope_preset.hpp"

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
    throw InputError(
        attention_message("attention.error.grid_too_many",
                          {message_arg("rows", std::to_string(s.grid_rows)),
                           message_arg("cols", std::to_string(s.grid_cols)),
                           message_arg("count", std::to_string(s.grid_rows * s.grid_cols)),
                           message_arg("max", std::to_string(kAttentionMaxTokens))}));
  require_in_range("shift", s.shift, AttentionLabSettings::shift_range);
  require_in_range("extrapolate", s.extrapolate_tokens,
                   AttentionLabSettings::extrapolate_tokens_range);
  require_in_range("decay_max", s.decay_max, AttentionLabSettings::decay_max_range);
  require_in_range("factor", s.factor, lm::LmScaling::factor_range);
  require_in_range("layer", s.layer, AttentionLabSettings::layer_range);
  require_in_range("passage", s.passage, AttentionLabSettings::passage_range);
  if (s.weights == AttentionWeights::trained) {
    // The trained source reads bytes of text and runs two demos; its head is clamped to the
    // model's heads (the random model's `heads` does not apply).
    require_in_range("head", s.head, AttentionLabSettings::head_range);
    if (s.source == AttentionSource::grid && s.demo == AttentionDemo::none)
      throw InputError(attention_message("attention.error.trained_grid", {}));
    if (s.demo != AttentionDemo::none && s.demo != AttentionDemo::extrapolation &&
        s.demo != AttentionDemo::rope_decay)
      throw InputError(attention_message(
          "attention.error.trained_demo",
          {message_arg("demo", attention_demo_names()[static_cast<size_t>(s.demo)])}));
  } else if (s.head < 0 || s.head >= s.params.heads)
    throw InputError(attention_message("attention.error.head_range",
                                       {message_arg("head", std::to_string(s.head)),
                                        message_arg("last", std::to_string(s.params.heads - 1))}));
  if (s.query_row < 0 || s.query_row >= s.grid_rows || s.query_col < 0 ||
      s.query_col >= s.grid_cols)
    throw InputError(attention_message("attention.error.query_outside",
                                       {message_arg("row", std::to_string(s.query_row)),
                                        message_arg("col", std::to_string(s.query_col)),
                                        message_arg("rows", std::to_string(s.grid_rows)),
                                        message_arg("cols", std::to_string(s.grid_cols))}));
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

const PresetTable<AttentionLabSettings>& attention_preset_fields() {
  using S = AttentionLabSettings;
  using P = AttentionParams;
  static const PresetTable<S> t = [] {
    PresetTable<S> rope = preset_fields_of<S>(
        preset_fields_only(rope_preset_fields(), {"base", "layout"}),
        [](auto& s) -> auto& { return s.params.rope; });
    rope[0].aliases = {"rope_base"};
    rope[0].flag = "--base,--rope-base";
    return PresetTable<S>{
               preset_choice<S>(
                   "enc", [](auto& s) -> auto& { return s.params.encoding; },
                   attention_encoding_names(), "position encoding", "--encoding"),
               preset_field<S>(
                   "heads", [](auto& s) -> auto& { return s.params.heads; }, P::heads_range,
                   "attention heads", "--heads"),
               preset_field<S>(
                   "dim", [](auto& s) -> auto& { return s.params.model_dim; }, P::model_dim_range,
                   "model dims D of content/absolute encodings (even)", "--dim"),
               preset_field<S>(
                   "head_dim", [](auto& s) -> auto& { return s.params.head_dim; },
                   P::head_dim_range, "dims per head after W_q/W_k (even)", "--head-dim"),
               preset_field<S>(
                   "seed", [](auto& s) -> auto& { return s.params.seed; }, P::seed_range,
                   "seed of content vectors, W_q/W_k, tables, terrain", "--seed"),
               preset_field<S>(
                   "content", [](auto& s) -> auto& { return s.params.use_content; },
                   "token content enters q and k"),
               preset_field<S>(
                   "position", [](auto& s) -> auto& { return s.params.use_position; },
                   "the position encoding enters q and k"),
               preset_field<S>(
                   "causal", [](auto& s) -> auto& { return s.params.causal; },
                   "mask keys after the query", "--causal"),
               preset_field<S>(
                   "sin_base", [](auto& s) -> auto& { return s.params.sin_base; },
                   P::sin_base_range, "sinusoid base", "--sin-base"),
               preset_field<S>(
                   "L", [](auto& s) -> auto& { return s.params.table_length; },
                   P::table_length_range, "learned table rows = trained length", "--table-length"),
               preset_field<S>(
                   "learned_std", [](auto& s) -> auto& { return s.params.learned_std; },
                   P::learned_std_range, "std of the seeded learned rows"),
           } +
           rope +
           PresetTable<S>{
               preset_field<S>(
                   "rope_mixed", [](auto& s) -> auto& { return s.params.rope_mixed; },
                   "the mixed-layout bug: angles laid out interleaved, rotated as halves"),
               preset_field<S>(
                   "t5_bidir", [](auto& s) -> auto& { return s.params.t5_bidirectional; },
                   "T5 encoder buckets (both signs); 0 = decoder (past only)"),
               preset_field<S>(
                   "buckets", [](auto& s) -> auto& { return s.params.t5_buckets; },
                   P::t5_buckets_range, "T5 num_buckets (even)", "--buckets"),
               preset_field<S>(
                   "max_distance", [](auto& s) -> auto& { return s.params.t5_max_distance; },
                   P::t5_max_distance_range, "T5 max_distance", "--max-distance"),
               preset_field<S>(
                   "bias_std", [](auto& s) -> auto& { return s.params.bias_std; },
                   P::bias_std_range, "std of the seeded T5 / Swin bias tables"),
               preset_field<S>(
                   "alpha", [](auto& s) -> auto& { return s.params.elevation_alpha; },
                   P::elevation_alpha_range, "elevation-bias alpha", "--alpha"),
               preset_field<S>(
                   "terrain_max", [](auto& s) -> auto& { return s.params.terrain_max_m; },
                   P::terrain_max_range, "highest terrain point in metres", "--terrain-max"),
               preset_choice<S>(
                   "source", [](auto& s) -> auto& { return s.source; }, attention_source_names(),
                   "where tokens come from: sentence, token count or patch grid"),
               preset_field<S>(
                   "text", [](auto& s) -> auto& { return s.sentence; },
                   "words split on spaces, or Chinese text one character per token"),
               preset_field<S>(
                   "text_b", [](auto& s) -> auto& { return s.sentence_b; },
                   "the second ordering for --compare orderings", "--sentence-b"),
               preset_field<S>(
                   "tokens", [](auto& s) -> auto& { return s.token_count; }, S::token_count_range,
                   "N distinct tokens t0..t(N-1)"),
               preset_field<S>(
                   "rows", [](auto& s) -> auto& { return s.grid_rows; }, S::grid_side_range,
                   "patch grid rows"),
               preset_field<S>(
                   "cols", [](auto& s) -> auto& { return s.grid_cols; }, S::grid_side_range,
                   "patch grid columns"),
               preset_choice<S>(
                   "compare", [](auto& s) -> auto& { return s.compare; }, attention_compare_names(),
                   "side by side: off, another encoding, or two orderings"),
               preset_choice<S>(
                   "enc_b", [](auto& s) -> auto& { return s.compare_encoding; },
                   attention_encoding_names(), "right side when comparing encodings"),
               preset_choice<S>(
                   "demo", [](auto& s) -> auto& { return s.demo; }, attention_demo_names(),
                   "demo shown", "--demo"),
               preset_field<S>(
                   "shift", [](auto& s) -> auto& { return s.shift; }, S::shift_range,
                   "k added to every position (shift demo)", "--shift"),
               preset_field<S>(
                   "extrapolate", [](auto& s) -> auto& { return s.extrapolate_tokens; },
                   S::extrapolate_tokens_range, "extrapolation demo: tokens (past --table-length)",
                   "--extrapolate"),
               preset_field<S>(
                   "head", [](auto& s) -> auto& { return s.head; }, S::head_range, "head shown"),
               preset_field<S>(
                   "scores", [](auto& s) -> auto& { return s.show_scores; },
                   "heatmap of logits instead of softmax weights"),
               preset_field<S>(
                   "qrow", [](auto& s) -> auto& { return s.query_row; }, S::query_range,
                   "query patch row in grid mode"),
               preset_field<S>(
                   "qcol", [](auto& s) -> auto& { return s.query_col; }, S::query_range,
                   "query patch column in grid mode"),
               preset_field<S>(
                   "terrain", [](auto& s) -> auto& { return s.show_terrain; },
                   "draw the terrain next to the grid attention"),
               preset_field<S>(
                   "decay_max", [](auto& s) -> auto& { return s.decay_max; }, S::decay_max_range,
                   "x-range of the RoPE decay plot in tokens"),
               preset_choice<S>(
                   "scale", [](auto& s) -> auto& { return s.color_scale; }, color_scale_names(),
                   "heatmap colours: linear, log or rank (quantile)"),
               preset_field<S>(
                   "shared", [](auto& s) -> auto& { return s.shared_scale; },
                   "side by side: one colour range over both maps"),
               preset_choice<S>(
                   "weights", [](auto& s) -> auto& { return s.weights; }, attention_weights_names(),
                   "seeded random weights, or a trained language model's (tokens are bytes)",
                   "--weights"),
               preset_choice<S>(
                   "model", [](auto& s) -> auto& { return s.model; }, lm::length_model_names(),
                   "trained: the shipped model (assets/models/lm_<model>.safetensors)", "--model"),
               preset_choice<S>(
                   "scaling", [](auto& s) -> auto& { return s.scaling; }, rope_scaling_names(),
                   "trained RoPE: the scaling shown beside the unscaled map", "--scaling"),
               preset_field<S>(
                   "factor", [](auto& s) -> auto& { return s.factor; }, lm::LmScaling::factor_range,
                   "trained RoPE: scaling factor s", "--factor"),
               preset_field<S>(
                   "layer", [](auto& s) -> auto& { return s.layer; }, S::layer_range,
                   "trained: block shown (clamped to the model)", "--layer"),
               preset_field<S>(
                   "mean_heads", [](auto& s) -> auto& { return s.mean_heads; },
                   "trained: the mean over heads instead of one head", "--mean-heads"),
               preset_field<S>(
                   "passage", [](auto& s) -> auto& { return s.passage; }, S::passage_range,
                   "trained: held-out passage (source=count and the demos)", "--passage"),
           };
  }();
  return t;
}

std::string attention_to_preset(const AttentionLabSettings& s) {
  PresetWriter w(kAttentionLabName);
  preset_write(w, attention_preset_fields(), s, AttentionLabSettings{});
  return w.str();
}

AttentionLabSettings attention_from_preset(const std::string& text,
                                           const AttentionLabSettings& base) {
  AttentionLabSettings s = base;
  PresetReader in(text, kAttentionLabName);
  preset_read(in, attention_preset_fields(), s);
  in.finish();
  attention_lab_validate(s);
  return s;
}

}  // namespace poslab
