// Comparisons and demos of the attention lab (see demos.hpp).
#include "core/attention/demos.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "core/attention/attention_messages.hpp"
#include "core/common/errors.hpp"

namespace poslab {
namespace {

constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

Message note(std::string_view id, std::vector<MessageArg> args = {}) {
  return message_make(kAttentionMessages, id, std::move(args));
}

// Sets a comparison's note: the demo's prefix message around the comparison ({diff}).
void set_note(AttentionComparison& c, Message m) {
  c.note = m.text;
  c.note_message = std::move(m);
}

}  // namespace

AttentionComparison attention_compare(AttentionModel a, AttentionModel b, std::vector<int> align,
                                      int only_head) {
  const int T = static_cast<int>(a.input.tokens.size());
  if (static_cast<int>(b.input.tokens.size()) != T || a.params.heads != b.params.heads)
    throw InputError(
        attention_message("attention.error.compare_shapes",
                          {message_arg("tokens_a", std::to_string(T)),
                           message_arg("tokens_b", std::to_string(b.input.tokens.size())),
                           message_arg("heads_a", std::to_string(a.params.heads)),
                           message_arg("heads_b", std::to_string(b.params.heads))}));
  if (align.empty())
    for (int t = 0; t < T; ++t) align.push_back(t);
  AttentionComparison c;
  c.a = attention_compute(a, nullptr, only_head);
  c.b = attention_compute(b, nullptr, only_head);
  c.score_diff.resize(c.a.heads.size());
  c.weight_diff.resize(c.a.heads.size());
  for (size_t h = 0; h < c.a.heads.size(); ++h) {
    const auto &ha = c.a.heads[h], &hb = c.b.heads[h];
    if (ha.scores.size() == 0) continue;  // head not computed
    RowMatrixF ds(T, T), dw(T, T);
    for (int i = 0; i < T; ++i) {
      for (int j = 0; j < T; ++j) {
        const float sa = ha.scores(i, j), sb = hb.scores(align[i], align[j]);
        const float wa = ha.weights(i, j), wb = hb.weights(align[i], align[j]);
        if (!std::isfinite(sa) || !std::isfinite(sb) || std::isnan(wa) || std::isnan(wb)) {
          ds(i, j) = dw(i, j) = kNaNf;
          ++c.incomparable_cells;
          continue;
        }
        ds(i, j) = sb - sa;
        dw(i, j) = wb - wa;
        c.max_abs_score_diff =
            std::max(c.max_abs_score_diff, std::abs(static_cast<double>(ds(i, j))));
        c.max_abs_weight_diff =
            std::max(c.max_abs_weight_diff, std::abs(static_cast<double>(dw(i, j))));
      }
    }
    c.score_diff[h] = std::move(ds);
    c.weight_diff[h] = std::move(dw);
  }
  c.model_a = std::move(a);
  c.model_b = std::move(b);
  c.align = std::move(align);
  std::vector<MessageArg> args{message_arg("score", format_number(c.max_abs_score_diff)),
                               message_arg("weight", format_number(c.max_abs_weight_diff))};
  if (c.incomparable_cells)
    args.push_back(message_arg("cells", std::to_string(c.incomparable_cells)));
  set_note(c,
           note(c.incomparable_cells ? "attention.note.compare_skipped" : "attention.note.compare",
                std::move(args)));
  return c;
}

std::vector<int> attention_ordering_alignment(const std::vector<std::string>& a,
                                              const std::vector<std::string>& b) {
  if (a.size() != b.size())
    throw InputError(attention_message(
        "attention.error.orderings_count",
        {message_arg("a", std::to_string(a.size())), message_arg("b", std::to_string(b.size()))}));
  std::map<std::string, std::vector<int>> slots;  // token -> its slots in b, in order
  for (int t = static_cast<int>(b.size()) - 1; t >= 0; --t) slots[b[t]].push_back(t);
  std::vector<int> align;
  for (const auto& tok : a) {
    auto it = slots.find(tok);
    if (it == slots.end() || it->second.empty())
      throw InputError(
          attention_message("attention.error.orderings_missing", {message_arg("token", tok)}));
    align.push_back(it->second.back());
    it->second.pop_back();
  }
  return align;
}

AttentionComparison attention_compare_encodings(const AttentionParams& p, AttentionEncoding other,
                                                const AttentionInput& in, int only_head) {
  AttentionParams q = p;
  q.encoding = other;
  AttentionComparison c =
      attention_compare(attention_build(p, in), attention_build(q, in), {}, only_head);
  set_note(c, note("attention.note.encodings",
                   {message_arg("other", attention_encoding_message(other)),
                    message_arg("encoding", attention_encoding_message(p.encoding)),
                    message_arg("diff", c.note_message)}));
  return c;
}

AttentionComparison attention_compare_orderings(const AttentionParams& p, const AttentionInput& a,
                                                const AttentionInput& b, int only_head) {
  std::vector<int> align = attention_ordering_alignment(a.tokens, b.tokens);
  AttentionComparison c =
      attention_compare(attention_build(p, a), attention_build(p, b), std::move(align), only_head);
  set_note(c, note("attention.note.orderings", {message_arg("diff", c.note_message)}));
  return c;
}

std::vector<int> attention_reversal(int tokens) {
  std::vector<int> order(tokens);
  for (int t = 0; t < tokens; ++t) order[t] = tokens - 1 - t;
  return order;
}

AttentionComparison attention_permutation_demo(const AttentionParams& p, const AttentionInput& in,
                                               const std::vector<int>& order, int only_head) {
  const AttentionInput b = attention_reorder_tokens(in, order);
  std::vector<int> align(order.size());
  for (size_t t = 0; t < order.size(); ++t) align[order[t]] = static_cast<int>(t);
  AttentionComparison c =
      attention_compare(attention_build(p, in), attention_build(p, b), std::move(align), only_head);
  const bool invariant =
      (attention_encoding_kind(p.encoding) == EncodingKind::none || !p.use_position) && !p.causal;
  set_note(c, note(invariant ? "attention.note.permutation_invariant"
                             : "attention.note.permutation_positions",
                   {message_arg("diff", c.note_message)}));
  return c;
}

AttentionComparison attention_shift_demo(const AttentionParams& p, const AttentionInput& in,
                                         double k, int only_head) {
  AttentionComparison c = attention_compare(
      attention_build(p, in), attention_build(p, attention_shift_input(in, k)), {}, only_head);
  const EncodingKind kind = attention_encoding_kind(p.encoding);
  const char* why = "attention.note.shift_absolute";
  if (!p.use_position || kind == EncodingKind::none)
    why = "attention.note.shift_unused";
  else if (kind == EncodingKind::rotary && p.rope_mixed)
    why = "attention.note.shift_mixed";
  else if (attention_encoding_is_relative(p.encoding))
    why = "attention.note.shift_relative";
  else if (p.encoding == AttentionEncoding::elevation)
    why = "attention.note.shift_elevation";
  set_note(c, note("attention.note.shift",
                   {message_arg("k", format_number(k)), message_arg("why", note(why)),
                    message_arg("diff", c.note_message)}));
  return c;
}

std::vector<double> attention_row_entropy(const RowMatrixF& weights) {
  std::vector<double> e(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double s = 0;
    bool defined = false;  // undefined keys (NaN cells) carry no weight; a NaN row has none
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      const double w = weights(i, j);
      if (std::isnan(w)) continue;
      defined = true;
      if (w > 0) s -= w * std::log(w);
    }
    e[i] = defined ? s : std::numeric_limits<double>::quiet_NaN();
  }
  return e;
}

RopeAngleReach rope_slowest_pair_reach(const RopeParams& p, int tokens, int trained_length) {
  RopeAngleReach r;
  std::vector<double> positions(static_cast<size_t>(std::max(tokens, 0)));
  for (size_t m = 0; m < positions.size(); ++m) positions[m] = static_cast<double>(m);
  const RowMatrix angles = rope_angles(p, positions);  // (T, P)
  r.pair = static_cast<int>(angles.cols()) - 1;
  // The trained range from the same function, at the last trained position L - 1.
  const RowMatrix last = rope_angles(p, {static_cast<double>(std::max(trained_length, 1) - 1)});
  r.inv_freq = rope_inv_freq(p)(r.pair);
  r.trained_max = last(0, r.pair);
  r.angle.resize(positions.size());
  for (Eigen::Index m = 0; m < angles.rows(); ++m) r.angle[m] = angles(m, r.pair);
  return r;
}

ExtrapolationDemo attention_extrapolation_demo(const AttentionParams& p, int tokens,
                                               int only_head) {
  ExtrapolationDemo d;
  d.trained_length = p.table_length;
  d.model = attention_build(p, attention_count_input(tokens));
  d.result = attention_compute(d.model, nullptr, only_head);
  for (const auto& h : d.result.heads) {
    if (h.weights.size() == 0) {  // head not computed
      d.row_entropy.emplace_back();
      d.row_max.emplace_back();
      continue;
    }
    d.row_entropy.push_back(attention_row_entropy(h.weights));
    std::vector<double> mx(h.weights.rows());
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
      mx[i] = std::numeric_limits<double>::quiet_NaN();
      for (Eigen::Index j = 0; j < h.weights.cols(); ++j)
        if (!std::isnan(h.weights(i, j)) && !(mx[i] >= h.weights(i, j))) mx[i] = h.weights(i, j);
    }
    d.row_max.push_back(std::move(mx));
  }
  const MessageArg L = message_arg("L", std::to_string(p.table_length));
  switch (p.encoding) {
    case AttentionEncoding::learned:
      d.note_message = note("attention.note.extrapolation_learned",
                            {L, message_arg("missing", d.result.note_message)});
      break;
    case AttentionEncoding::sinusoidal:
    case AttentionEncoding::sinusoidal_concat:
    case AttentionEncoding::sincos_2d:
      d.note_message = note("attention.note.extrapolation_sinusoidal", {L});
      break;
    case AttentionEncoding::rope:
      d.note_message = note("attention.note.extrapolation_rope", {L});
      d.slowest_pair = rope_slowest_pair_reach(attention_rope_params(p), tokens, p.table_length);
      break;
    case AttentionEncoding::alibi:
      d.note_message = note("attention.note.extrapolation_alibi", {L});
      break;
    case AttentionEncoding::t5:
      d.note_message = note("attention.note.extrapolation_t5",
                            {message_arg("max_distance", std::to_string(p.t5_max_distance))});
      break;
    default:
      d.note_message = note("attention.note.extrapolation_other",
                            {message_arg("encoding", attention_encoding_message(p.encoding)), L});
      break;
  }
  d.note = d.note_message.text;
  return d;
}

RopeDecay attention_rope_decay(const AttentionModel& m, int head, int max_distance, int points) {
  if (points < 2 || max_distance < 1)
    throw InputError(attention_message("attention.error.decay_args",
                                       {message_arg("max_distance", std::to_string(max_distance)),
                                        message_arg("points", std::to_string(points))}));
  const AttentionParams& p = m.params;
  const RopeParams rp = attention_rope_params(p);
  RopeDecay d;
  for (int s = 0; s < points; ++s)
    d.deltas.push_back(std::round(static_cast<double>(s) * max_distance / (points - 1)));
  const double scale = 1.0 / std::sqrt(static_cast<double>(p.head_dim));
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(p.head_dim);
  const Eigen::VectorXd q = (m.content.row(0) * m.w_q.at(head)).transpose();
  const Eigen::VectorXd k =
      (m.content.row(std::min<Eigen::Index>(1, m.content.rows() - 1)) * m.w_k.at(head)).transpose();
  const Eigen::VectorXd a = rope_score_vs_distance(rp, ones, ones, d.deltas) * scale;
  const Eigen::VectorXd b = rope_score_vs_distance(rp, q, k, d.deltas) * scale;
  d.ones.assign(a.data(), a.data() + a.size());
  d.content.assign(b.data(), b.data() + b.size());
  // The bound, scaled to start where q = k = ones starts, then averaged over a centred
  // window of +-points/16 samples: with few pairs (head dim 16) the bound itself still swings
  // with the fast pairs' wavelengths; the window's mean shows the trend (RopeDecay::bound).
  const std::vector<double> raw = rope_relative_upper_bound(rp, d.deltas);
  const double start = raw.empty() || raw[0] == 0 ? 1.0 : a(0) / raw[0];
  const int half = std::max(1, points / 16), n = static_cast<int>(raw.size());
  std::vector<double> prefix(raw.size() + 1, 0.0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + raw[i] * start;
  for (int i = 0; i < n; ++i) {
    const int lo = std::max(0, i - half), hi = std::min(n, i + half + 1);
    d.bound.push_back((prefix[hi] - prefix[lo]) / (hi - lo));
  }
  return d;
}

}  // namespace poslab
