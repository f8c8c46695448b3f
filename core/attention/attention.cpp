// Building the seeded attention model and computing scores, weights and term splits
// (see attention.hpp for shapes and the three ways position enters).
// Sections: encoding table and names (top) | validation and scale | inputs (sequence,
// count, grid, shift, reorder) | attention_build | queries, keys and biases |
// attention_compute (with undefined keys masked per row) | attention_score_terms.
#include "core/attention/attention.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "core/attention/attention_kernel.hpp"
#include "core/attention/attention_messages.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/preset_messages.hpp"
#include "core/common/random.hpp"

namespace poslab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct EncodingInfo {
  AttentionEncoding encoding;
  const char* name;
  const char* label;
  EncodingKind kind;
  bool relative;
};

const EncodingInfo kEncodings[] = {
    {AttentionEncoding::none, "none", "none (no position information)", EncodingKind::none, false},
    {AttentionEncoding::sinusoidal, "sin", "sinusoidal, interleaved [sin cos sin cos ...]",
     EncodingKind::absolute, false},
    {AttentionEncoding::sinusoidal_concat, "sin_concat",
     "sinusoidal, concatenated [sin ... | cos ...]", EncodingKind::absolute, false},
    {AttentionEncoding::learned, "learned", "learned absolute table", EncodingKind::absolute,
     false},
    {AttentionEncoding::rope, "rope", "RoPE (rotary)", EncodingKind::rotary, true},
    {AttentionEncoding::alibi, "alibi", "ALiBi (linear distance bias)", EncodingKind::bias, true},
    {AttentionEncoding::t5, "t5", "T5 relative buckets", EncodingKind::bias, true},
    {AttentionEncoding::swin, "swin", "Swin 2-D relative bias", EncodingKind::bias, true},
    {AttentionEncoding::sincos_2d, "sincos2d", "2-D sin-cos (MAE / ClimaX)", EncodingKind::absolute,
     false},
    {AttentionEncoding::elevation, "elevation", "TopoFlow elevation bias (physics, not position)",
     EncodingKind::bias, false},
};

const EncodingInfo& info(AttentionEncoding e) {
  return kEncodings[static_cast<int>(e)];
}

// W (D, Dh) with entries N(0, 1/D), so q = c W has unit variance per dim for unit c.
RowMatrix seeded_projection(uint64_t seed, const char* purpose, int head, int dim, int head_dim) {
  SeededStream rng(seed, purpose, static_cast<uint64_t>(head));
  RowMatrix w(dim, head_dim);
  const double s = 1.0 / std::sqrt(static_cast<double>(dim));
  for (int r = 0; r < dim; ++r)
    for (int c = 0; c < head_dim; ++c) w(r, c) = s * rng.normal();
  return w;
}

// RoPE as the lab applies it: the correct rotation from the model's table (built once,
// shared by every head's q and k), or the mixed-layout bug (lesson 5).
bool rope_from_table(const AttentionModel& m) {
  return !m.params.rope_mixed && m.rope.rows() == static_cast<int>(m.input.positions.size()) &&
         m.rope.params() == attention_rope_params(m.params) &&
         m.rope.positions() == m.input.positions;
}
RowMatrix lab_rope(const AttentionModel& m, RowMatrix x) {
  const AttentionParams& p = m.params;
  if (p.rope_mixed) return rope_apply_mixed_layouts(attention_rope_params(p), x, m.input.positions);
  if (rope_from_table(m)) {
    m.rope.apply(x);
    return x;
  }
  return rope_apply(attention_rope_params(p), x, m.input.positions);
}
// One token's vector at the position of token t.
Eigen::VectorXd lab_rope(const AttentionModel& m, const Eigen::VectorXd& x, int t) {
  RowMatrix row = x.transpose();
  if (rope_from_table(m)) {
    m.rope.apply(row, t);
    return row.row(0).transpose();
  }
  const AttentionParams& p = m.params;
  const std::vector<double> pos{m.input.positions.at(t)};
  const RopeParams rp = attention_rope_params(p);
  return (p.rope_mixed ? rope_apply_mixed_layouts(rp, row, pos) : rope_apply(rp, row, pos))
      .row(0)
      .transpose();
}

// Shared by queries and keys: the switches and the encoding applied to (T, Dh) projections.
RowMatrix project(const AttentionModel& m, const RowMatrix& w) {
  const AttentionParams& p = m.params;
  const Eigen::Index T = m.content.rows();
  switch (attention_encoding_kind(p.encoding)) {
    case EncodingKind::absolute: {
      RowMatrix x = RowMatrix::Zero(T, p.model_dim);
      if (p.use_content) x += m.content;
      if (p.use_position) x += m.encoding;  // NaN rows stay NaN: no embedding there
      return x * w;
    }
    case EncodingKind::rotary: {
      if (!p.use_content && !p.use_position) return RowMatrix::Zero(T, p.head_dim);
      // Position alone: q = k = all ones before rotation (RoFormer's long-range bound), so
      // the score is the pure rotation pattern sum_i 2 cos((n - m) theta_i).
      const RowMatrix x = p.use_content ? RowMatrix(m.content * w) : RowMatrix::Ones(T, p.head_dim);
      return p.use_position ? lab_rope(m, x) : x;
    }
    case EncodingKind::none:
    case EncodingKind::bias:
      return p.use_content ? RowMatrix(m.content * w) : RowMatrix::Zero(T, p.head_dim);
  }
  return {};
}

int whole(double v, const char* what) {
  if (v != std::round(v))
    throw InputError(
        preset_message("errors.value.not_whole",
                       {message_arg("name", what), message_arg("value", std::to_string(v))}));
  return static_cast<int>(std::lround(v));
}

Message missing_note(const AttentionModel& m) {
  if (m.missing.empty()) return {};
  const auto& pos = m.input.positions;
  double lo = pos[m.missing.front()], hi = lo;
  for (int t : m.missing) lo = std::min(lo, pos[t]), hi = std::max(hi, pos[t]);
  auto text = [](auto v) {
    std::ostringstream s;
    s << v;
    return s.str();
  };
  return message_make(
      kAttentionMessages, "attention.note.missing_rows",
      {message_arg("count", text(m.missing.size())), message_arg("lo", text(lo)),
       message_arg("hi", text(hi)), message_arg("last", text(m.params.table_length - 1))});
}

}  // namespace

const std::vector<std::string>& attention_encoding_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& e : kEncodings) n.emplace_back(e.name);
    return n;
  }();
  return names;
}

AttentionEncoding attention_encoding_from_name(const std::string& name) {
  return enum_from_name<AttentionEncoding>("encoding", name, attention_encoding_names());
}

const char* attention_encoding_name(AttentionEncoding e) {
  return info(e).name;
}
Message attention_encoding_message(AttentionEncoding e) {
  return Message{std::string("attention.enc.") + info(e).name, {}, info(e).label};
}

const char* attention_encoding_label(AttentionEncoding e) {
  return info(e).label;
}
EncodingKind attention_encoding_kind(AttentionEncoding e) {
  return info(e).kind;
}
bool attention_encoding_is_relative(AttentionEncoding e) {
  return info(e).relative;
}

void attention_validate(const AttentionParams& p) {
  require_in_range("heads", p.heads, AttentionParams::heads_range);
  require_in_range("model_dim", p.model_dim, AttentionParams::model_dim_range);
  require_in_range("head_dim", p.head_dim, AttentionParams::head_dim_range);
  require_in_range("seed", p.seed, AttentionParams::seed_range);
  require_in_range("sin_base", p.sin_base, AttentionParams::sin_base_range);
  require_in_range("table_length", p.table_length, AttentionParams::table_length_range);
  require_in_range("learned_std", p.learned_std, AttentionParams::learned_std_range);
  require_in_range("base", p.rope.base, RopeParams::base_range);
  require_in_range("t5_buckets", p.t5_buckets, AttentionParams::t5_buckets_range);
  require_in_range("t5_max_distance", p.t5_max_distance, AttentionParams::t5_max_distance_range);
  require_in_range("bias_std", p.bias_std, AttentionParams::bias_std_range);
  require_in_range("elevation_alpha", p.elevation_alpha, AttentionParams::elevation_alpha_range);
  require_in_range("terrain_max_m", p.terrain_max_m, AttentionParams::terrain_max_range);
  if (p.model_dim % 2)
    throw InputError(attention_message("attention.error.model_dim_even",
                                       {message_arg("dim", std::to_string(p.model_dim))}));
  if (p.encoding == AttentionEncoding::sincos_2d && p.model_dim % 4)
    throw InputError(attention_message("attention.error.model_dim_sincos_2d",
                                       {message_arg("dim", std::to_string(p.model_dim))}));
  if (p.head_dim % 2)
    throw InputError(attention_message("attention.error.head_dim_even",
                                       {message_arg("dim", std::to_string(p.head_dim))}));
  if (p.encoding == AttentionEncoding::t5)
    t5_validate(p.t5_bidirectional, p.t5_buckets, p.t5_max_distance);
}

double attention_scale(const AttentionParams& p) {
  return p.encoding == AttentionEncoding::t5 ? 1.0
                                             : 1.0 / std::sqrt(static_cast<double>(p.head_dim));
}

RopeParams attention_rope_params(const AttentionParams& p) {
  RopeParams r = p.rope;
  r.head_dim = p.head_dim;
  return r;
}

AttentionInput attention_sequence_input(std::vector<std::string> tokens, double shift) {
  AttentionInput in;
  const int T = static_cast<int>(tokens.size());
  in.tokens = std::move(tokens);
  in.grid_rows = 1;
  in.grid_cols = std::max(T, 1);
  for (int t = 0; t < T; ++t) {
    in.positions.push_back(t + shift);
    in.rows.push_back(shift);
    in.cols.push_back(t + shift);
    in.cells.push_back(t);
  }
  return in;
}

AttentionInput attention_count_input(int count, double shift) {
  if (count < 1 || count > kAttentionMaxTokens)
    throw InputError(attention_message("attention.error.tokens_range",
                                       {message_arg("count", std::to_string(count)),
                                        message_arg("max", std::to_string(kAttentionMaxTokens))}));
  std::vector<std::string> tokens;
  tokens.reserve(static_cast<size_t>(count));
  for (int t = 0; t < count; ++t) tokens.push_back(std::string(1, 't').append(std::to_string(t)));
  return attention_sequence_input(std::move(tokens), shift);
}

AttentionInput attention_grid_input(int rows, int cols, double shift) {
  if (rows < 1 || cols < 1 || static_cast<long long>(rows) * cols > kAttentionMaxTokens)
    throw InputError(attention_message(
        "attention.error.grid_range",
        {message_arg("rows", std::to_string(rows)), message_arg("cols", std::to_string(cols)),
         message_arg("max", std::to_string(kAttentionMaxTokens))}));
  AttentionInput in;
  in.grid_rows = rows;
  in.grid_cols = cols;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      in.tokens.push_back(std::to_string(r) + "," + std::to_string(c));
      in.positions.push_back(r * cols + c + shift);
      in.rows.push_back(r + shift);
      in.cols.push_back(c + shift);
      in.cells.push_back(r * cols + c);
    }
  }
  return in;
}

AttentionInput attention_shift_input(const AttentionInput& in, double k) {
  AttentionInput out = in;
  for (auto& v : out.positions) v += k;
  for (auto& v : out.rows) v += k;
  for (auto& v : out.cols) v += k;
  return out;
}

AttentionInput attention_reorder_tokens(const AttentionInput& in, const std::vector<int>& order) {
  if (order.size() != in.tokens.size())
    throw InputError(attention_message("attention.error.reorder_count",
                                       {message_arg("indices", std::to_string(order.size())),
                                        message_arg("tokens", std::to_string(in.tokens.size()))}));
  std::vector<bool> seen(order.size(), false);
  AttentionInput out = in;
  for (size_t t = 0; t < order.size(); ++t) {
    const int o = order[t];
    if (o < 0 || o >= static_cast<int>(order.size()) || seen[o])
      throw InputError(attention_message(
          "attention.error.reorder_not_permutation",
          {message_arg("entry", std::to_string(t)), message_arg("value", std::to_string(o))}));
    seen[o] = true;
    out.tokens[t] = in.tokens[o];
  }
  return out;
}

void attention_input_validate(const AttentionInput& in) {
  const size_t T = in.tokens.size();
  if (T == 0) throw InputError(attention_message("attention.error.no_tokens"));
  if (T > static_cast<size_t>(kAttentionMaxTokens))
    throw InputError(attention_message("attention.error.too_many_tokens",
                                       {message_arg("count", std::to_string(T)),
                                        message_arg("max", std::to_string(kAttentionMaxTokens))}));
  if (in.positions.size() != T || in.rows.size() != T || in.cols.size() != T ||
      in.cells.size() != T)
    throw InputError(attention_message("attention.error.input_shape"));
  for (size_t t = 0; t < T; ++t) {
    if (!std::isfinite(in.positions[t]) || !std::isfinite(in.rows[t]) || !std::isfinite(in.cols[t]))
      throw InputError(attention_message("attention.error.input_not_finite",
                                         {message_arg("token", std::to_string(t))}));
    if (in.cells[t] < 0 || in.cells[t] >= in.grid_rows * in.grid_cols)
      throw InputError(attention_message("attention.error.input_outside_grid",
                                         {message_arg("token", std::to_string(t)),
                                          message_arg("rows", std::to_string(in.grid_rows)),
                                          message_arg("cols", std::to_string(in.grid_cols))}));
  }
}

AttentionModel attention_build(const AttentionParams& p, const AttentionInput& in) {
  attention_validate(p);
  attention_input_validate(in);
  AttentionModel m;
  m.params = p;
  m.input = in;
  const int T = static_cast<int>(in.tokens.size());
  const auto seed = static_cast<uint64_t>(p.seed);
  m.content.resize(T, p.model_dim);
  for (int t = 0; t < T; ++t) {
    SeededStream rng(seed, "content", SeededStream::hash_text(in.tokens[t]));
    for (int c = 0; c < p.model_dim; ++c) m.content(t, c) = rng.normal();
  }
  for (int h = 0; h < p.heads; ++h) {
    m.w_q.push_back(seeded_projection(seed, "w_q", h, p.model_dim, p.head_dim));
    m.w_k.push_back(seeded_projection(seed, "w_k", h, p.model_dim, p.head_dim));
  }
  switch (p.encoding) {
    case AttentionEncoding::sinusoidal:
    case AttentionEncoding::sinusoidal_concat:
      m.encoding = sinusoidal_encoding(in.positions, p.model_dim, p.sin_base,
                                       p.encoding == AttentionEncoding::sinusoidal
                                           ? SinusoidLayout::interleaved
                                           : SinusoidLayout::concatenated);
      break;
    case AttentionEncoding::learned: {
      const RowMatrix table =
          learned_position_table(p.table_length, p.model_dim, seed, p.learned_std);
      m.encoding.resize(T, p.model_dim);
      for (int t = 0; t < T; ++t) {
        if (learned_has_row(in.positions[t], p.table_length)) {
          m.encoding.row(t) = table.row(static_cast<Eigen::Index>(in.positions[t]));
        } else {
          m.encoding.row(t).setConstant(kNaN);
          m.missing.push_back(t);
        }
      }
      break;
    }
    case AttentionEncoding::sincos_2d:
      m.encoding = sincos_2d_encoding(in.rows, in.cols, p.model_dim, p.sin_base);
      break;
    case AttentionEncoding::t5:
    case AttentionEncoding::swin: {
      const int entries = p.encoding == AttentionEncoding::t5
                              ? p.t5_buckets
                              : swin_table_size(in.grid_rows, in.grid_cols);
      m.bias_table.resize(entries, p.heads);
      for (int h = 0; h < p.heads; ++h) {
        SeededStream rng(seed, p.encoding == AttentionEncoding::t5 ? "t5_bias" : "swin_bias", h);
        for (int e = 0; e < entries; ++e) m.bias_table(e, h) = p.bias_std * rng.normal();
      }
      break;
    }
    case AttentionEncoding::elevation:
      m.terrain = terrain_heights(in.grid_rows, in.grid_cols, seed, p.terrain_max_m);
      break;
    default:
      break;
  }
  if (!p.use_position) m.missing.clear();  // positions unused: nothing is undefined
  if (attention_encoding_kind(p.encoding) == EncodingKind::rotary && p.use_position &&
      !p.rope_mixed)
    m.rope = RopeTable(attention_rope_params(p), in.positions);
  return m;
}

RowMatrix attention_queries(const AttentionModel& m, int head) {
  return project(m, m.w_q.at(head));
}
RowMatrix attention_keys(const AttentionModel& m, int head) {
  return project(m, m.w_k.at(head));
}

double attention_bias_cell(const AttentionModel& m, int head, int query, int key) {
  const AttentionParams& p = m.params;
  const AttentionInput& in = m.input;
  if (!p.use_position) return 0.0;
  switch (p.encoding) {
    case AttentionEncoding::alibi:
      return -alibi_slopes(p.heads).at(head) * std::abs(in.positions[query] - in.positions[key]);
    case AttentionEncoding::t5: {
      const int rel = whole(in.positions[key] - in.positions[query], "T5 relative position");
      return m.bias_table(t5_bucket(rel, p.t5_bidirectional, p.t5_buckets, p.t5_max_distance),
                          head);
    }
    case AttentionEncoding::swin: {
      const int dh = whole(in.rows[query] - in.rows[key], "Swin row offset");
      const int dw = whole(in.cols[query] - in.cols[key], "Swin column offset");
      return m.bias_table(swin_relative_index(dh, dw, in.grid_rows, in.grid_cols), head);
    }
    case AttentionEncoding::elevation: {
      const double* h = m.terrain.data();  // row-major: cell index = r * cols + c
      return elevation_bias(h[in.cells[query]], h[in.cells[key]], p.elevation_alpha);
    }
    default:
      return 0.0;
  }
}

RowMatrix attention_bias(const AttentionModel& m, int head) {
  const int T = static_cast<int>(m.input.tokens.size());
  RowMatrix b = RowMatrix::Zero(T, T);
  if (!m.params.use_position || attention_encoding_kind(m.params.encoding) != EncodingKind::bias)
    return b;
  if (m.params.encoding ==
      AttentionEncoding::alibi) {  // the common large case: no per-cell lookups
    const double slope = alibi_slopes(m.params.heads).at(head);
    const auto& pos = m.input.positions;
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) b(i, j) = -slope * std::abs(pos[i] - pos[j]);
    return b;
  }
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) b(i, j) = attention_bias_cell(m, head, i, j);
  return b;
}

Eigen::MatrixXi attention_t5_buckets(const AttentionModel& m) {
  const AttentionParams& p = m.params;
  const auto& pos = m.input.positions;
  const int T = static_cast<int>(pos.size());
  Eigen::MatrixXi out(T, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      out(i, j) = t5_bucket(whole(pos[j] - pos[i], "T5 relative position"), p.t5_bidirectional,
                            p.t5_buckets, p.t5_max_distance);
  return out;
}

// Positions without a learned row are left out of each defined query's softmax, as a
// padding mask would leave them out: their cells stay NaN (undefined, drawn grey), the
// other keys of the row share the weight. A query without a row stays NaN throughout.
static void mask_undefined_keys(AttentionHeadResult& h, const std::vector<int>& missing) {
  const Eigen::Index T = h.scores.rows();
  std::vector<char> undefined(static_cast<size_t>(T), 0);
  for (int t : missing) undefined[static_cast<size_t>(t)] = 1;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Eigen::Index i = 0; i < T; ++i) {
    if (undefined[static_cast<size_t>(i)]) continue;
    float top = -std::numeric_limits<float>::infinity();
    for (Eigen::Index j = 0; j < T; ++j)
      if (!undefined[static_cast<size_t>(j)]) top = std::max(top, h.scores(i, j));
    if (!std::isfinite(top)) continue;  // every defined key masked: nothing to share
    double sum = 0;
    for (Eigen::Index j = 0; j < T; ++j)
      if (!undefined[static_cast<size_t>(j)]) sum += std::exp(double(h.scores(i, j)) - top);
    for (Eigen::Index j = 0; j < T; ++j)
      h.weights(i, j) =
          undefined[static_cast<size_t>(j)]
              ? (h.scores(i, j) == -std::numeric_limits<float>::infinity() ? 0.0f : nan)
              : static_cast<float>(std::exp(double(h.scores(i, j)) - top) / sum);
  }
}

namespace {

// What every head of one computation shares, built once (the slider's step at 1024 tokens
// is dominated by what used to be redone per head and per cell in double):
//   x       (T, D) float: the projections' input (content and / or absolute encoding)
//   dist    (T, T) float: -|pos_i - pos_j| (ALiBi; each head scales it by its slope)
//   index   (T, T) int:   T5 bucket / Swin offset of each cell (each head reads its column)
//   shared  (T, T) float: the elevation bias (the same for every head)
struct SharedInputs {
  RowMatrixF x, dist, shared;
  Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> index;
};

SharedInputs shared_inputs(const AttentionModel& m) {
  const AttentionParams& p = m.params;
  const AttentionInput& in = m.input;
  const int T = static_cast<int>(in.tokens.size());
  SharedInputs s;
  if (attention_encoding_kind(p.encoding) == EncodingKind::absolute) {
    RowMatrix x = RowMatrix::Zero(T, p.model_dim);
    if (p.use_content) x += m.content;
    if (p.use_position) x += m.encoding;  // NaN rows stay NaN: no embedding there
    s.x = x.cast<float>();
  } else if (p.use_content) {
    s.x = m.content.cast<float>();
  }
  if (!p.use_position) return s;
  switch (p.encoding) {
    case AttentionEncoding::alibi:
      s.dist.resize(T, T);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j)
          s.dist(i, j) = static_cast<float>(-std::abs(in.positions[i] - in.positions[j]));
      break;
    case AttentionEncoding::t5:
      s.index = attention_t5_buckets(m);
      break;
    case AttentionEncoding::swin:
      s.index.resize(T, T);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j)
          s.index(i, j) = swin_relative_index(whole(in.rows[i] - in.rows[j], "Swin row offset"),
                                              whole(in.cols[i] - in.cols[j], "Swin column offset"),
                                              in.grid_rows, in.grid_cols);
      break;
    case AttentionEncoding::elevation:
      s.shared.resize(T, T);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j)
          s.shared(i, j) = static_cast<float>(attention_bias_cell(m, 0, i, j));
      break;
    default:
      break;
  }
  return s;
}

// q or k of one head in float (as attention_queries / attention_keys, which stay double
// for the hover's term split).
RowMatrixF project_float(const AttentionModel& m, const SharedInputs& s, const RowMatrix& w) {
  const AttentionParams& p = m.params;
  const auto T = static_cast<Eigen::Index>(m.input.tokens.size());
  const RowMatrixF wf = w.cast<float>();
  RowMatrixF out = RowMatrixF::Zero(T, p.head_dim);
  if (s.x.size())
    attention_project(s.x.data(), wf.data(), static_cast<int>(T), p.model_dim, p.head_dim,
                      out.data());
  if (attention_encoding_kind(p.encoding) != EncodingKind::rotary || !p.use_position) return out;
  // RoPE: rotate (T, Dh) in double (cheap next to the (T, T) work). Position alone:
  // q = k = all ones before rotation (RoFormer's long-range bound).
  const RowMatrix x0 =
      p.use_content ? RowMatrix(out.cast<double>()) : RowMatrix::Ones(T, p.head_dim);
  return lab_rope(m, x0).cast<float>();
}

// The bias of head h from the shared tables, in float.
RowMatrixF head_bias(const AttentionModel& m, const SharedInputs& s, int h) {
  const int T = static_cast<int>(m.input.tokens.size());
  if (!m.params.use_position) return RowMatrixF::Zero(T, T);
  if (s.dist.size()) return static_cast<float>(alibi_slopes(m.params.heads).at(h)) * s.dist;
  if (s.shared.size()) return s.shared;
  RowMatrixF b(T, T);
  const Eigen::VectorXf table = m.bias_table.col(h).cast<float>();
  for (Eigen::Index c = 0; c < b.size(); ++c) b.data()[c] = table[s.index.data()[c]];
  return b;
}

}  // namespace

AttentionResult attention_compute(const AttentionModel& m, const std::atomic<bool>* cancel,
                                  int only_head) {
  const AttentionParams& p = m.params;
  const int T = static_cast<int>(m.input.tokens.size());
  AttentionResult r;
  r.scale = attention_scale(p);
  r.missing = m.missing;
  r.note_message = missing_note(m);
  r.note = r.note_message.text;
  const bool has_bias = attention_encoding_kind(p.encoding) == EncodingKind::bias;
  if (only_head >= p.heads)
    throw InputError(attention_message("attention.error.head_below",
                                       {message_arg("head", std::to_string(only_head)),
                                        message_arg("heads", std::to_string(p.heads))}));
  r.heads.resize(p.heads);
  const SharedInputs shared = shared_inputs(m);
  for (int h = 0; h < p.heads; ++h) {
    if (only_head >= 0 && h != only_head) continue;
    if (cancel && cancel->load()) break;
    const RowMatrixF q = project_float(m, shared, m.w_q.at(h));
    const RowMatrixF k = project_float(m, shared, m.w_k.at(h));
    AttentionHeadResult head;
    if (has_bias) head.bias = head_bias(m, shared, h);
    head.scores.resize(T, T);
    head.weights.resize(T, T);
    attention_scores_softmax(q.data(), k.data(), T, p.head_dim, static_cast<float>(r.scale),
                             has_bias ? head.bias.data() : nullptr, p.causal, head.scores.data(),
                             head.weights.data());
    if (!m.missing.empty()) mask_undefined_keys(head, m.missing);
    r.heads[h] = std::move(head);
  }
  return r;
}

ScoreTerms attention_score_terms(const AttentionModel& m, int head, int query, int key) {
  const AttentionParams& p = m.params;
  const int T = static_cast<int>(m.input.tokens.size());
  if (head < 0 || head >= p.heads || query < 0 || query >= T || key < 0 || key >= T)
    throw InputError(attention_message(
        "attention.error.cell_outside",
        {message_arg("head", std::to_string(head)), message_arg("query", std::to_string(query)),
         message_arg("key", std::to_string(key)), message_arg("heads", std::to_string(p.heads)),
         message_arg("T", std::to_string(T))}));
  const double scale = attention_scale(p);
  const RowMatrix& wq = m.w_q[head];
  const RowMatrix& wk = m.w_k[head];
  ScoreTerms s;
  switch (attention_encoding_kind(p.encoding)) {
    case EncodingKind::absolute: {
      const Eigen::RowVectorXd qc = m.content.row(query) * wq, kc = m.content.row(key) * wk;
      const Eigen::RowVectorXd qp = m.encoding.row(query) * wq, kp = m.encoding.row(key) * wk;
      if (p.use_content) s.content_content = scale * qc.dot(kc);
      if (p.use_content && p.use_position) {
        s.content_position = scale * qc.dot(kp);
        s.position_content = scale * qp.dot(kc);
      }
      if (p.use_position) s.position_position = scale * qp.dot(kp);
      s.undefined = p.use_position && (qp.hasNaN() || kp.hasNaN());
      break;
    }
    case EncodingKind::rotary: {
      if (!p.use_content && !p.use_position) break;
      const Eigen::VectorXd q0 = p.use_content
                                     ? Eigen::VectorXd((m.content.row(query) * wq).transpose())
                                     : Eigen::VectorXd::Ones(p.head_dim);
      const Eigen::VectorXd k0 = p.use_content
                                     ? Eigen::VectorXd((m.content.row(key) * wk).transpose())
                                     : Eigen::VectorXd::Ones(p.head_dim);
      const double unrotated = scale * q0.dot(k0);
      double rotated = unrotated;
      if (p.use_position) {
        rotated = scale * lab_rope(m, q0, query).dot(lab_rope(m, k0, key));
      }
      // Content on: the unrotated content score, and what rotation changed. Position
      // alone: all of the score is the rotation pattern of the all-ones vectors.
      s.content_content = p.use_content ? unrotated : 0.0;
      s.rotation = rotated - s.content_content;
      break;
    }
    case EncodingKind::none:
    case EncodingKind::bias:
      if (p.use_content)
        s.content_content = scale * (m.content.row(query) * wq).dot(m.content.row(key) * wk);
      if (p.use_position && attention_encoding_kind(p.encoding) == EncodingKind::bias)
        s.bias = attention_bias_cell(m, head, query, key);
      break;
  }
  s.masked = p.causal && key > query;
  s.total = s.content_content + s.content_position + s.position_content + s.position_position +
            s.rotation + s.bias;
  if (s.undefined) s.total = kNaN;
  if (s.masked) s.total = -std::numeric_limits<double>::infinity();
  return s;
}

std::vector<NamedTerm> attention_score_term_list(const AttentionModel& m, const ScoreTerms& t) {
  const AttentionParams& p = m.params;
  switch (attention_encoding_kind(p.encoding)) {
    case EncodingKind::absolute:
      return {{"content . content", t.content_content},
              {"content . position", t.content_position},
              {"position . content", t.position_content},
              {"position . position", t.position_position}};
    case EncodingKind::rotary:
      return {{p.use_content ? "content (unrotated)" : "ones (unrotated)", t.content_content},
              {"rotation changes by", t.rotation}};
    case EncodingKind::bias:
      return {{"content . content", t.content_content}, {"bias", t.bias}};
    case EncodingKind::none:
      break;
  }
  return {{"content . content", t.content_content}};
}

}  // namespace poslab
