// The attention lab's one computation: from settings to everything the panel draws and
// the CLI prints (model, per-head result, the comparison or demo asked for). Both faces
// call this, so they cannot drift apart (they once sampled the decay at different points).
#include <algorithm>
#include <cstdio>

#include "core/attention/attention_lab.hpp"
#include "core/attention/attention_messages.hpp"
#include "core/common/errors.hpp"

namespace poslab {

// The ALiBi slopes demo draws every head's bias over at least this many tokens ("t0".."t31"
// when the lab's own tokens are fewer): on a 3-word sentence the linear penalty has nowhere
// to grow (issue 24). Past kAttentionSlopesMaxTokens it uses t0..t31 too: H maps of 1024^2
// would be hundreds of MB for a picture of one straight line per head.
constexpr int kAttentionSlopesTokens = 32;
constexpr int kAttentionSlopesMaxTokens = 64;

AttentionLabResult attention_lab_compute(const AttentionLabSettings& s,
                                         const std::atomic<bool>* cancel,
                                         const AttentionLabOptions& options) {
  attention_lab_validate(s);
  if (s.weights == AttentionWeights::trained) {
    // The trained model's attention alone: its heads are the model's, not params.heads.
    if (!options.trained)
      throw InputError(attention_message("attention.error.trained_missing", {}));
    AttentionLabResult c;
    c.lab = s;
    c.trained = attention_trained_compute(s, *options.trained, cancel);
    c.has_trained = true;
    return c;
  }
  const int only_head = options.only_head;
  if (only_head >= s.params.heads)
    throw InputError(attention_message("attention.error.head_below",
                                       {message_arg("head", std::to_string(only_head)),
                                        message_arg("heads", std::to_string(s.params.heads))}));
  AttentionLabResult c;
  c.lab = s;
  const AttentionParams& p = s.params;
  const AttentionInput in = attention_lab_input(s);
  const int T = static_cast<int>(in.tokens.size());
  c.model = attention_build(p, in);
  c.result = attention_compute(c.model, cancel, only_head);
  c.caption_a = attention_encoding_label(p.encoding);
  const int head = only_head >= 0 ? only_head : s.head;
  switch (s.demo) {
    case AttentionDemo::none:
      if (s.compare == AttentionCompare::encodings) {
        c.pair = attention_compare_encodings(p, s.compare_encoding, in, only_head);
        c.caption_b = attention_encoding_label(s.compare_encoding);
        c.has_pair = true;
      } else if (s.compare == AttentionCompare::orderings) {
        c.pair = attention_compare_orderings(p, in, attention_lab_input_b(s), only_head);
        c.caption_a = "first ordering";
        c.caption_b = "second ordering (as typed)";
        c.has_pair = true;
      }
      break;
    case AttentionDemo::permutation:
      c.pair = attention_permutation_demo(
          p, in, options.order.empty() ? attention_reversal(T) : options.order, only_head);
      c.caption_a = "tokens as given";
      c.caption_b = options.order.empty() ? "tokens reversed (same positions)"
                                          : "tokens reordered (same positions)";
      c.has_pair = true;
      break;
    case AttentionDemo::shift: {
      c.pair = attention_shift_demo(p, in, s.shift, only_head);
      char buf[64];
      std::snprintf(buf, sizeof buf, "positions + %g", s.shift);
      c.caption_a = "positions 0, 1, 2, ...";
      c.caption_b = buf;
      c.has_pair = true;
      break;
    }
    case AttentionDemo::extrapolation:
      c.extrapolation = attention_extrapolation_demo(p, s.extrapolate_tokens, only_head);
      c.has_extrapolation = true;
      break;
    case AttentionDemo::rope_decay:
      c.decay = attention_rope_decay(c.model, head, s.decay_max, kAttentionDecayPoints);
      c.has_decay = true;
      break;
    case AttentionDemo::alibi_slopes: {
      c.slopes = alibi_slopes(p.heads);
      AttentionParams q = p;
      q.encoding = AttentionEncoding::alibi;
      q.use_position = true;
      // Every head (they differ only in slope), so the lab can show them side by side.
      const bool own = T >= kAttentionSlopesTokens && T <= kAttentionSlopesMaxTokens;
      const AttentionModel m =
          attention_build(q, own ? in : attention_count_input(kAttentionSlopesTokens));
      for (int h = 0; h < p.heads; ++h) c.demo_heads.push_back(attention_bias(m, h));
      c.demo_matrix = c.demo_heads[head];
      break;
    }
    case AttentionDemo::t5_buckets: {
      t5_validate(p.t5_bidirectional, p.t5_buckets, p.t5_max_distance);
      c.demo_matrix = attention_t5_buckets(c.model).cast<double>();
      // Far enough to show the last bucket's open end, and every distance the tokens have.
      c.bucket_horizon = std::min(std::max(T, 2 * p.t5_max_distance), 1 << 20);
      c.bucket_ranges =
          t5_bucket_ranges(p.t5_bidirectional, p.t5_buckets, p.t5_max_distance, c.bucket_horizon);
      break;
    }
  }
  return c;
}

}  // namespace poslab
