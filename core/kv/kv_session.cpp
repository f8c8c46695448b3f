// Driving the KV-cache experiments (see kv_session.hpp): the same tokens go to one cache
// per method; after each step every cache is compared with full recomputation.
#include "core/kv/kv_session.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"
#include "core/kv/kv_messages.hpp"

namespace poslab {
namespace {

// Token id number i of stream `which` (0 = episode, 1 = B, 2 = A, 3 = new tokens), in [lo, hi).
int stream_id(const KvModelParams& p, int which, int i, int lo, int hi) {
  const uint64_t h =
      splitmix64(splitmix64(static_cast<uint64_t>(p.seed) * 4 + which) ^ static_cast<uint64_t>(i));
  return lo + static_cast<int>(h % static_cast<uint64_t>(hi - lo));
}

// "B7", "n0": built by appending (GCC 12 warns falsely on "literal" + std::to_string).
std::string tagged(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

std::vector<double> iota(int n, double from = 0) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = from + i;
  return v;
}

void label_last(KvCache& c, const std::vector<std::string>& labels) {
  const size_t first = c.slots.size() - labels.size();
  for (size_t i = 0; i < labels.size(); ++i) c.slots[first + i].label = labels[i];
}

// Ground-truth keys of one layer (S, W) moved to the index each slot of `c` is used at
// (truth keys sit at 0..S-1; a RoPE method keeping absolute indices uses others).
RowMatrix truth_keys_at_used(const KvSession& ses, const KvCache& c, int layer) {
  const RowMatrix& K = ses.truth_cache.layers[layer].keys;
  if (ses.model.params.positions != KvPositions::rope) return K;
  std::vector<double> from, to;
  for (size_t i = 0; i < c.slots.size(); ++i) {
    from.push_back(ses.truth_cache.slots[i].used_at);
    to.push_back(c.slots[i].used_at);
  }
  if (from == to) return K;
  const RopeParams rp = kv_rope_params(ses.model.params);
  const int d = rp.head_dim;
  RowMatrix out(K.rows(), K.cols());
  for (int h = 0; h < ses.model.params.heads; ++h) {
    const RowMatrix block = K.middleCols(h * d, d);
    out.middleCols(h * d, d) = rope_reencode(rp, block, from, to);
  }
  return out;
}

// Compares a method's last step with the session's ground truth; T new tokens.
KvStepErrors measure(const KvSession& ses, const KvMethodState& st, int T) {
  KvStepErrors e;
  e.step = ses.step;
  const int L = ses.model.params.layers;
  const int n = static_cast<int>(ses.truth.logits.rows());
  for (int l = 0; l < L; ++l) {
    e.output_error.push_back(
        kv_relative_error(st.last.layer_out[l], ses.truth.layer_out[l].bottomRows(T)));
    if (kv_cache_size(st.cache) != n)
      throw std::logic_error("kv measure: the cache of " + kv_method_name(st.method) + " holds " +
                             std::to_string(kv_cache_size(st.cache)) +
                             " slots, the recomputation " + std::to_string(n) +
                             " (a bug in the method's step, not in the input)");
    e.key_error.push_back(
        kv_relative_error(st.cache.layers[l].keys, truth_keys_at_used(ses, st.cache, l)));
    e.value_error.push_back(
        kv_relative_error(st.cache.layers[l].values, ses.truth_cache.layers[l].values));
  }
  e.logits_error = kv_relative_error(st.last.logits, ses.truth.logits.bottomRows(T));
  return e;
}

// The full forwards (tokens at 0..n-1, with their cache) a KvSessionRun computed ahead in
// pieces; a forward not among them is computed when asked for.
using Prepared = std::vector<KvForwardRun>;

KvTrace full_forward(const KvSession& ses, const std::vector<int>& tokens, KvCache& cache,
                     const Prepared& prep) {
  for (const KvForwardRun& f : prep)
    if (f.done() && f.tokens() == tokens) {
      cache = f.cache();
      return f.trace();
    }
  return kv_forward_full(ses.model, tokens, iota(static_cast<int>(tokens.size())), &cache,
                         ses.settings.cache_float32);
}

void compute_truth(KvSession& ses, const std::vector<int>& tokens, const Prepared& prep) {
  ses.truth = full_forward(ses, tokens, ses.truth_cache, prep);
}

std::vector<int> window_tokens(const KvModelParams& p, int begin, int end) {
  std::vector<int> t;
  for (int i = begin; i < end; ++i) t.push_back(kv_stream_token(p, i));
  return t;
}
std::vector<int> window_tokens(const KvSession& ses, int begin, int end) {
  return window_tokens(ses.model.params, begin, end);
}

std::vector<std::string> window_labels(int begin, int end) {
  std::vector<std::string> l;
  for (int i = begin; i < end; ++i) l.push_back(kv_stream_label(i));
  return l;
}

// Sliding: append stream tokens [window_end, window_end + n) to every method's cache at
// the index that method continues with, then measure against recomputing the window.
void sliding_append(KvSession& ses, int n, const Prepared& prep) {
  const int begin = ses.window_end, end = ses.window_end + n;
  const std::vector<int> tokens = window_tokens(ses, begin, end);
  const std::vector<std::string> labels = window_labels(begin, end);
  ++ses.step;
  compute_truth(ses, window_tokens(ses, ses.window_begin, end), prep);
  for (auto& st : ses.methods) {
    st.last =
        kv_forward_cached(ses.model, st.cache, tokens, iota(n, kv_cache_next_index(st.cache)));
    label_last(st.cache, labels);
  }
  ses.window_end = end;
  for (auto& st : ses.methods) st.history.push_back(measure(ses, st, n));
}

KvCache recompute_cache(const KvSession& ses, const std::vector<int>& tokens,
                        const std::vector<std::string>& labels, const Prepared& prep) {
  KvCache c;
  full_forward(ses, tokens, c, prep);
  label_last(c, labels);
  return c;
}

// The documents B and A of stitch/rag (token ids), and the stitched text [first block; A].
std::vector<int> doc_tokens(const KvModelParams& p, int which, int n) {
  std::vector<int> t;
  t.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) t.push_back(stream_id(p, which, i, 0, p.vocab));
  return t;
}
std::vector<int> stitched_text(const KvSession& ses) {
  std::vector<int> t;
  for (int i : kv_retrieved_indices(ses.settings)) t.push_back(ses.doc_b[i]);
  t.insert(t.end(), ses.doc_a.begin(), ses.doc_a.end());
  return t;
}
// stitch/rag: the k-th new token (k = new tokens so far).
int new_token(const KvSession& ses, int k) {
  return stream_id(ses.settings.model, 3, k, 0, ses.settings.model.vocab);
}
int new_tokens_so_far(const KvSession& ses) {
  return static_cast<int>(ses.text.size() - ses.doc_a.size() -
                          kv_retrieved_indices(ses.settings).size());
}

KvSession session_start(const KvLabSettings& s, KvModel model, const Prepared& prep);
void session_slide(KvSession& ses, const Prepared& prep);
void session_stitch(KvSession& ses, const Prepared& prep);
void session_append(KvSession& ses, const Prepared& prep);

}  // namespace

int kv_stream_token(const KvModelParams& p, int i) {
  const int half = p.vocab / 2;
  return i % 2 == 0 ? stream_id(p, 0, i, 0, half) : stream_id(p, 0, i, half, p.vocab);
}

std::string kv_stream_label(int i) {
  return tagged(i % 2 == 0 ? "s" : "a", i / 2 + 1);
}

KvSession kv_session_start(const KvLabSettings& s) {
  kv_lab_validate(s);
  return session_start(s, kv_model_make(s.model), {});
}

namespace {
KvSession session_start(const KvLabSettings& s, KvModel model, const Prepared& prep) {
  KvSession ses;
  ses.settings = s;
  ses.model = std::move(model);
  const KvModelParams& p = s.model;
  for (auto m : kv_methods_for(s.scenario, p.positions))
    ses.methods.push_back(KvMethodState{m, {}, {}, {}, {}});
  if (s.scenario == KvScenario::sliding) {
    ses.window_begin = 0;
    ses.window_end = p.context;
    const std::vector<int> tokens = window_tokens(ses, 0, p.context);
    const KvCache c = recompute_cache(ses, tokens, window_labels(0, p.context), prep);
    for (auto& st : ses.methods) st.cache = c;
    compute_truth(ses, tokens, prep);
    return ses;
  }
  ses.doc_b = doc_tokens(p, 1, s.first_length);
  ses.doc_a = doc_tokens(p, 2, s.second_length);
  ses.trace_b = full_forward(ses, ses.doc_b, ses.cache_b, prep);
  ses.trace_a = full_forward(ses, ses.doc_a, ses.cache_a, prep);
  for (int i = 0; i < s.first_length; ++i) ses.cache_b.slots[i].label = tagged("B", i);
  for (int i = 0; i < s.second_length; ++i) ses.cache_a.slots[i].label = tagged("A", i);
  for (auto& st : ses.methods) st.cache = kv_cache_make(p.layers, p.width, s.cache_float32);
  return ses;
}
}  // namespace

void kv_session_slide(KvSession& ses) {
  session_slide(ses, {});
}

namespace {
// A slide in parts (KvSessionRun steps them): slide_begin checks and moves the window;
// slide_method drops the oldest steps from one method's cache and corrects it (legacy: the
// layers' products only with `legacy_layers`, else the caller adds them a layer at a time);
// then sliding_append appends the new steps and measures.
void slide_begin(KvSession& ses) {
  if (ses.settings.scenario != KvScenario::sliding)
    throw InputError(
        kv_message("kv.message.slide_not_sliding",
                   {message_arg("scenario", kv_scenario_name(ses.settings.scenario))}));
  const int drop = 2 * ses.settings.drop_steps;
  if (ses.window_end - ses.window_begin <= drop)
    throw InputError(
        kv_message("kv.message.slide_too_few",
                   {message_arg("n", std::to_string(ses.window_end - ses.window_begin)),
                    message_arg("drop", std::to_string(drop))}));
  ses.window_begin += drop;
}

void slide_method(KvSession& ses, KvMethodState& st, const Prepared& prep, bool legacy_layers) {
  kv_cache_drop_oldest(st.cache, 2 * ses.settings.drop_steps);
  switch (st.method) {
    case KvMethod::naive:
      kv_cache_reset_indices(st.cache);
      break;
    case KvMethod::legacy:
      kv_cache_reset_indices(st.cache);
      if (legacy_layers) kv_cache_correct_legacy(ses.model, st.cache);
      break;
    case KvMethod::keep:
      break;
    case KvMethod::kshift:
      kv_cache_reset_indices(st.cache);
      kv_cache_rope_shift(ses.model, st.cache);
      break;
    case KvMethod::recompute:
      st.cache = recompute_cache(ses, window_tokens(ses, ses.window_begin, ses.window_end),
                                 window_labels(ses.window_begin, ses.window_end), prep);
      break;
    default:
      throw InputError(kv_message("kv.message.method_not_sliding",
                                  {message_arg("method", kv_method_name(st.method))}));
  }
}

void session_slide(KvSession& ses, const Prepared& prep) {
  slide_begin(ses);
  for (auto& st : ses.methods) slide_method(ses, st, prep, true);
  sliding_append(ses, 2 * ses.settings.drop_steps, prep);
}
}  // namespace

void kv_session_stitch(KvSession& ses) {
  session_stitch(ses, {});
}

namespace {
void session_stitch(KvSession& ses, const Prepared& prep) {
  const KvLabSettings& s = ses.settings;
  if (s.scenario == KvScenario::sliding)
    throw InputError(kv_message("kv.message.stitch_not_sliding"));
  if (ses.stitched) throw InputError(kv_message("kv.message.stitch_done"));
  const std::vector<int> idx = kv_retrieved_indices(s);
  const KvCache first = kv_cache_select(ses.cache_b, idx);
  const KvCache stitched = kv_cache_stitch(first, ses.cache_a);
  ses.text.clear();
  ses.text_labels.clear();
  for (int i : idx) {
    ses.text.push_back(ses.doc_b[i]);
    ses.text_labels.push_back(tagged("B", i));
  }
  for (size_t i = 0; i < ses.doc_a.size(); ++i) {
    ses.text.push_back(ses.doc_a[i]);
    ses.text_labels.push_back(tagged("A", i));
  }
  const int L = static_cast<int>(ses.text.size());
  compute_truth(ses, ses.text, prep);
  label_last(ses.truth_cache, ses.text_labels);
  const KvModelParams& p = ses.model.params;
  for (auto& st : ses.methods) {
    st.cache = stitched;
    switch (st.method) {
      case KvMethod::naive:
        break;
      case KvMethod::reencode:
        kv_cache_rope_reencode(ses.model, st.cache, false);
        break;
      case KvMethod::reencode_scaled:
        kv_cache_rope_reencode(ses.model, st.cache, true);
        break;
      case KvMethod::kshift:
        kv_cache_rope_shift(ses.model, st.cache);
        break;
      case KvMethod::recompute:
        st.cache = recompute_cache(ses, ses.text, ses.text_labels, prep);
        break;
      default:
        throw InputError(kv_message("kv.message.method_not_stitching",
                                    {message_arg("method", kv_method_name(st.method))}));
    }
    // Reference: the source runs' raw keys, rotated to their global index 0..L-1.
    st.key_position_error.clear();
    for (int l = 0; l < p.layers; ++l) {
      RowMatrix raw(L, p.width);
      for (size_t i = 0; i < idx.size(); ++i) raw.row(i) = ses.trace_b.keys_raw[l].row(idx[i]);
      raw.bottomRows(ses.doc_a.size()) = ses.trace_a.keys_raw[l];
      st.key_position_error.push_back(
          kv_relative_error(st.cache.layers[l].keys, kv_rotate_heads(ses.model, raw, iota(L))));
    }
  }
  ses.stitched = true;
}
}  // namespace

Message kv_session_append_refusal(const KvSession& ses) {
  const KvLabSettings& s = ses.settings;
  const int n = ses.window_end - ses.window_begin;
  if (s.scenario == KvScenario::sliding && s.model.positions == KvPositions::learned &&
      n + 2 > s.model.context)
    return message_make(kKvMessages, "kv.message.append_window_full",
                        {message_arg("n", std::to_string(n)),
                         message_arg("context", std::to_string(s.model.context))});
  return {};
}

void kv_session_append(KvSession& ses) {
  session_append(ses, {});
}

namespace {
void session_append(KvSession& ses, const Prepared& prep) {
  const KvLabSettings& s = ses.settings;
  if (s.scenario == KvScenario::sliding) {
    if (Message why = kv_session_append_refusal(ses); !why.empty())
      throw InputError(std::move(why));
    sliding_append(ses, 2, prep);
    return;
  }
  if (!ses.stitched) session_stitch(ses, prep);
  // k = new tokens so far (the text is [first block; A; new tokens]).
  const int k = new_tokens_so_far(ses);
  const int token = new_token(ses, k);
  const std::string label = tagged("n", k);
  ses.text.push_back(token);
  ses.text_labels.push_back(label);
  ++ses.step;
  compute_truth(ses, ses.text, prep);
  label_last(ses.truth_cache, ses.text_labels);
  for (auto& st : ses.methods) {
    st.last = kv_forward_cached(ses.model, st.cache, {token}, {kv_cache_next_index(st.cache)});
    label_last(st.cache, {label});
    st.history.push_back(measure(ses, st, 1));
  }
}
}  // namespace

const KvMethodState& kv_session_method(const KvSession& ses, KvMethod m) {
  for (const auto& st : ses.methods)
    if (st.method == m) return st;
  throw InputError(kv_message("kv.message.method_not_run",
                              {message_arg("method", kv_method_name(m)),
                               message_arg("scenario", kv_scenario_name(ses.settings.scenario))}));
}

std::vector<double> kv_slot_key_errors(const KvSession& ses, const KvMethodState& st, int layer,
                                       int head) {
  const int S = kv_cache_size(st.cache);
  if (S == 0 || S != kv_cache_size(ses.truth_cache) || layer < 0 ||
      layer >= ses.model.params.layers)
    return {};
  const RowMatrix truth = truth_keys_at_used(ses, st.cache, layer);
  const RowMatrix& keys = st.cache.layers[layer].keys;
  const int d = kv_head_dim(ses.model.params);
  const int c0 = head < 0 ? 0 : head * d, w = head < 0 ? ses.model.params.width : d;
  std::vector<double> err(S);
  for (int i = 0; i < S; ++i)
    err[i] =
        kv_relative_error(RowMatrix(keys.block(i, c0, 1, w)), RowMatrix(truth.block(i, c0, 1, w)));
  return err;
}

KvSlotAngles kv_slot_angles(const KvModelParams& p, const KvSlot& slot, int pair) {
  const Eigen::VectorXd inv = rope_inv_freq(kv_rope_params(p));
  if (pair < 0 || pair >= inv.size())
    throw InputError(
        kv_message("kv.message.pair_range", {message_arg("pair", std::to_string(pair)),
                                             message_arg("pairs", std::to_string(inv.size()))}));
  return {slot.encoded_at * inv[pair], slot.used_at * inv[pair]};
}

void kv_session_advance(KvSession& ses, int steps, const std::atomic<bool>* cancel) {
  const bool sliding = ses.settings.scenario == KvScenario::sliding;
  if (!sliding && !ses.stitched) kv_session_stitch(ses);
  for (int i = 0; i < steps && !(cancel && cancel->load(std::memory_order_relaxed)); ++i) {
    if (sliding)
      kv_session_slide(ses);
    else
      kv_session_append(ses);
  }
}

KvSession kv_run_scenario(const KvLabSettings& s, const std::atomic<bool>* cancel) {
  KvSession ses = kv_session_start(s);
  kv_session_advance(ses, s.steps, cancel);
  return ses;
}

KvSessionRun::KvSessionRun(const KvLabSettings& s, bool run)
    : settings_(s), stitched_(!run), steps_(run ? s.steps : 0), left_(steps_) {}

KvSessionRun::KvSessionRun(KvSession base, int steps, bool append)
    : settings_(base.settings),
      ses_(std::move(base)),
      started_(true),
      append_(append && settings_.scenario == KvScenario::sliding),
      steps_(std::max(steps, 0)),
      left_(steps_) {}

// A unit (the start, the stitch, a slide or a new token) takes steps: its full forwards,
// piece by piece (KvForwardRun), then the rest of the unit in one step.
void KvSessionRun::step() {
  if (done()) return;
  for (KvForwardRun& f : ahead_)
    if (!f.done()) {
      f.step();
      return;
    }
  if (!planned_) {
    plan();
    planned_ = true;
    if (!ahead_.empty()) return;
  }
  const bool sliding = settings_.scenario == KvScenario::sliding;
  if (!started_) {
    ses_ = session_start(settings_, std::move(*model_), ahead_);
    model_.reset();
    started_ = true;
  } else if (!stitched_) {
    if (!sliding && !ses_.stitched) session_stitch(ses_, ahead_);
    stitched_ = true;
  } else if (sliding && !append_) {
    if (!slide_part()) return;
    --left_;
  } else {
    session_append(ses_, ahead_);
    --left_;
  }
  ahead_.clear();
  planned_ = false;
}

// One part of a slide (session_slide's): the window moved, each method's cache dropped and
// corrected (legacy: its delta, then a layer per step, then its slots), then the new steps
// appended and measured. Returns whether the slide is done.
bool KvSessionRun::slide_part() {
  if (method_ < 0) {
    slide_begin(ses_);
    method_ = 0;
  }
  if (method_ < static_cast<int>(ses_.methods.size())) {
    KvMethodState& st = ses_.methods[static_cast<size_t>(method_)];
    if (st.method != KvMethod::legacy) {
      slide_method(ses_, st, ahead_, true);
      ++method_;
    } else if (legacy_layer_ < 0) {
      slide_method(ses_, st, ahead_, false);
      delta_ = kv_cache_legacy_delta(ses_.model, st.cache);
      legacy_layer_ = 0;
    } else if (legacy_layer_ < ses_.model.params.layers) {
      kv_cache_correct_legacy_layer(ses_.model, st.cache, delta_, legacy_layer_++);
    } else {
      kv_cache_correct_legacy_slots(st.cache);
      legacy_layer_ = -1;
      ++method_;
    }
    return false;
  }
  sliding_append(ses_, 2 * ses_.settings.drop_steps, ahead_);
  method_ = -1;
  return true;
}

// The full forwards the next unit asks for (each of tokens at 0..n-1, with its cache).
void KvSessionRun::plan() {
  std::vector<std::vector<int>> want;
  const bool sliding = settings_.scenario == KvScenario::sliding;
  const KvModelParams& p = settings_.model;
  if (!started_) {
    kv_lab_validate(settings_);
    model_ = std::make_unique<KvModel>(kv_model_make(p));
    if (sliding) {
      want.push_back(window_tokens(p, 0, p.context));
    } else {
      want.push_back(doc_tokens(p, 1, settings_.first_length));
      want.push_back(doc_tokens(p, 2, settings_.second_length));
    }
  } else if (!stitched_) {
    if (!sliding && !ses_.stitched) want.push_back(stitched_text(ses_));
  } else if (sliding && append_) {
    want.push_back(window_tokens(ses_, ses_.window_begin, ses_.window_end + 2));
  } else if (sliding) {
    const int begin = ses_.window_begin + 2 * ses_.settings.drop_steps;
    want.push_back(window_tokens(ses_, begin, ses_.window_end + 2 * ses_.settings.drop_steps));
    for (const KvMethodState& st : ses_.methods)
      if (st.method == KvMethod::recompute)
        want.push_back(window_tokens(ses_, begin, ses_.window_end));
  } else {
    std::vector<int> text = ses_.stitched ? ses_.text : stitched_text(ses_);
    text.push_back(new_token(ses_, ses_.stitched ? new_tokens_so_far(ses_) : 0));
    want.push_back(std::move(text));
  }
  const KvModel& m = started_ ? ses_.model : *model_;
  for (std::vector<int>& t : want) {
    const int n = static_cast<int>(t.size());
    if (n > 0) ahead_.emplace_back(m, std::move(t), iota(n), true, settings_.cache_float32);
  }
}

}  // namespace poslab
