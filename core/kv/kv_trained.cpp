// The KV lab's trained source (kv_trained.hpp): the stitch, rag and stream scenarios on a
// shipped language model's own KV cache, each method one step of KvTrainedRun.
#include "core/kv/kv_trained.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "core/common/errors.hpp"
#include "core/common/names.hpp"

namespace poslab {
namespace {

using lm::LmKvCache;
using lm::LmPosition;

std::string kvt_int(int64_t v) {
  return std::to_string(v);
}

// ||a - b|| / ||b|| over all entries (0 when b is all zero and a equals it).
double kvt_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    num += d * d;
    den += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

std::vector<double> kvt_bits(const std::vector<float>& nats) {
  std::vector<double> b(nats.size());
  for (size_t i = 0; i < nats.size(); ++i) b[i] = static_cast<double>(nats[i]) / std::numbers::ln2;
  return b;
}

double kvt_mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

std::vector<int64_t> kvt_iota(int64_t from, int64_t n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), from);
  return p;
}

// Work of appending one byte that attends to `ctx` slots (multiply-adds).
double kvt_token_macs(const lm::LmConfig& c, double ctx) {
  const double E = c.embed;
  return c.layers * (12.0 * E * E + 2.0 * E * ctx) + lm::kVocab * E;
}

}  // namespace

const std::vector<std::string>& kv_trained_scenario_names() {
  static const std::vector<std::string> n{"stitch", "rag", "stream"};
  return n;
}
const std::vector<std::string>& kv_weights_names() {
  static const std::vector<std::string> n{"random", "trained"};
  return n;
}

const KvTrainedMethod* KvTrainedResult::find(const std::string& name) const {
  for (const auto& m : methods)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<int64_t> kv_trained_retrieved(const KvTrainedSettings& s) {
  if (s.scenario == KvTrainedScenario::stitch) return kvt_iota(0, s.b_length);
  std::vector<int64_t> r;
  r.reserve(static_cast<size_t>(std::max(s.retrieved, 0)));
  for (int k = 0; k < s.retrieved; ++k)
    r.push_back(s.retrieve_from + static_cast<int64_t>(k) * s.retrieve_stride);
  return r;
}

void kv_trained_validate(const KvTrainedSettings& s) {
  preset_validate(kv_trained_preset_fields(), s);
  if (s.scenario == KvTrainedScenario::rag) {
    if (s.retrieved == 0)
      throw InputError("retrieved = 0: the RAG set is empty; retrieve at least one slot of B");
    const int64_t last = s.retrieve_from + int64_t{s.retrieved - 1} * s.retrieve_stride;
    if (last >= s.b_length)
      throw InputError("the RAG set reaches B index " + kvt_int(last) + " but B has " +
                       kvt_int(s.b_length) + " bytes (b = " + kvt_int(s.b_length) +
                       "): lower retrieved, from or stride, or lengthen B");
  }
  if (s.scenario == KvTrainedScenario::stream) {
    if (s.window < 1)
      throw InputError("window = " + kvt_int(s.window) +
                       ": a rolling cache needs at least 1 slot; use a window in [1, 8L]");
    if (s.sinks >= s.window)
      throw InputError("sinks = " + kvt_int(s.sinks) + ", window = " + kvt_int(s.window) +
                       ": the sinks must leave room in the window; use fewer sinks");
  }
}

std::string kv_trained_note(LmPosition p, KvTrainedScenario s) {
  if (s == KvTrainedScenario::stream) {
    if (p == LmPosition::rope)
      return "reencode re-assigns positions 0..n-1 inside the cache (keys rotated, the new byte "
             "at n); naive keeps each key where it was computed and the new byte at its place "
             "in the text; _sinks never evicts the first bytes";
    if (p == LmPosition::alibi || p == LmPosition::t5 || p == LmPosition::none)
      return "keys carry no position: reencode re-assigns the positions the bias reads (0..n-1 "
             "inside the cache, the new byte at n); _sinks never evicts the first bytes";
    return std::string(
               "positions are added at block 0 and mixed into every cached key: "
               "reencode can only give the new byte its place in the cache (n), the "
               "cached keys keep the positions they were computed at") +
           (p == LmPosition::learned ? " (past L every byte reads the table's last row)" : "") +
           "; _sinks never evicts the first bytes";
  }
  switch (p) {
    case LmPosition::rope:
      return "re-encoding rotates each cached key back by its stored position and forward by "
             "its global one (values unchanged)";
    case LmPosition::alibi:
    case LmPosition::t5:
      return "keys carry no position: re-encoding leaves every key as it is and only changes "
             "the position the attention bias reads (a cache that stores no positions and "
             "takes the slot index gets it for free); naive keeps the stored positions";
    case LmPosition::none:
      return "NoPE keys carry no position: re-encoding changes nothing, so it equals naive";
    default:
      return "positions are added to the residual stream at block 0 and mixed into every "
             "key and value: no operation on a cached key moves them, so re-encoding does "
             "not apply; only naive and recomputation are measured";
  }
}

lm::LmCost kv_trained_cost(const KvTrainedSettings& s, const lm::LmConfig& c) {
  lm::LmCost cost;
  const double E = c.embed, N = c.layers;
  const double slot_bytes = N * 3.0 * E * 4.0;  // k, v, h per block
  if (s.scenario == KvTrainedScenario::stream) {
    const double T = static_cast<double>(s.span) * c.context;
    const double W = std::min<double>(s.window, T);
    cost = lm::lm_forward_cost(c, 1, static_cast<int64_t>(T));  // the full window
    cost.macs += 4.0 * T * kvt_token_macs(c, W);
    cost.macs += 2.0 * T * W * N * E * 2.0;  // re-encoding the rolled keys every step
    cost.bytes += static_cast<int64_t>(4.0 * W * slot_bytes);
    return cost;
  }
  const double b = s.scenario == KvTrainedScenario::rag ? s.retrieved : s.b_length;
  const double n = b + s.a_length + s.continuation;
  cost = lm::lm_forward_cost(c, 1, static_cast<int64_t>(n));  // the model's buffers
  cost.macs = (s.b_length + s.a_length + 3.0 * n) * kvt_token_macs(c, n);
  cost.bytes += static_cast<int64_t>(6.0 * (n + s.b_length) * slot_bytes);
  return cost;
}

KvTrainedRun::KvTrainedRun(const KvTrainedSettings& s, const lm::LengthLabModel& m,
                           const std::vector<uint8_t>& valid, const lm::LmBudget& budget)
    : model_(m.config) {
  kv_trained_validate(s);
  const lm::LmConfig& c = m.config;
  const int L = c.context;
  const std::string name = lm::length_model_name(m.id);
  if (s.scenario == KvTrainedScenario::stream && s.window > 8 * L)
    throw InputError("window = " + kvt_int(s.window) + ": past 8L = " + kvt_int(8 * L) +
                     " of the " + name + " model; use a window in [1, " + kvt_int(8 * L) + "]");
  const int passage = 8 * L + 1;  // the length lab's passages at span 8
  auto need = [&](const char* what, int bytes) {
    if (bytes > passage)
      throw InputError(std::string(what) + " needs " + kvt_int(bytes) +
                       " bytes but a held-out passage has " + kvt_int(passage) +
                       " (8L + 1 of the " + name + " model): ask for fewer bytes");
  };
  const int a_bytes =
      s.scenario == KvTrainedScenario::stream ? s.span * L + 1 : s.a_length + s.continuation + 1;
  need(s.scenario == KvTrainedScenario::stream ? "the streamed text (span x L + 1)"
                                               : "passage A (a + continuation + 1)",
       a_bytes);
  need("passage B (b)", s.b_length);
  const std::vector<uint8_t> pa = lm::length_passage(valid, s.passage_a, passage);
  const std::vector<uint8_t> pb = lm::length_passage(valid, s.passage_b, passage);
  if (pa.empty() || pb.empty())
    throw InputError("the held-out text has " + kvt_int(static_cast<int64_t>(valid.size())) +
                     " bytes, shorter than one passage of " + kvt_int(passage) +
                     "; reinstall PosLab's models");
  lm::lm_budget_require(
      "the KV lab's " + kv_trained_scenario_names()[static_cast<size_t>(s.scenario)] +
          " scenario on the " + name + " model",
      kv_trained_cost(s, c), budget,
      s.scenario == KvTrainedScenario::stream ? "use a smaller span or window"
                                              : "use shorter passages (a, b, continuation)");
  a_.assign(pa.begin(), pa.begin() + a_bytes);
  b_.assign(pb.begin(), pb.begin() + s.b_length);
  model_.params = m.params;
  model_.set_scaling(m.tuned);
  r_.lab = s;
  r_.model = name;
  r_.context = L;
  r_.layers = c.layers;
  r_.position = c.position;
  r_.note = kv_trained_note(c.position, s.scenario);
  const bool reencode = lm::lm_cache_reencode_applies(c.position);
  if (s.scenario == KvTrainedScenario::stream) {
    plan_ = {"full", "naive", "reencode"};
    if (s.sinks > 0) plan_.insert(plan_.end(), {"naive_sinks", "reencode_sinks"});
  } else {
    plan_ = {"recompute", "naive"};
    if (reencode) plan_.push_back("reencode");
  }
}

void KvTrainedRun::step() {
  if (done()) return;
  const std::string method = plan_[static_cast<size_t>(next_)];
  if (r_.lab.scenario == KvTrainedScenario::stream) {
    if (!stream_step(method)) return;
  } else {
    stitch_step(method);
  }
  ++next_;
}

// stitch and rag. The first step runs the reference: the stitched bytes [B'; A] (B' = the
// retrieved bytes of B) and the continuation from position 0 in one cache; and A and B alone
// from position 0, B's retrieved slots then A's concatenated (stored positions).
void KvTrainedRun::stitch_step(const std::string& method) {
  const KvTrainedSettings& s = r_.lab;
  const int a = s.a_length, m = s.continuation;
  const std::vector<int64_t> sel = kv_trained_retrieved(s);
  const auto R = static_cast<int64_t>(sel.size());
  const int64_t n = R + a;  // stitched slots
  // continuation input A[a .. a+m) predicting A[a+1 .. a+m]
  const uint8_t* cont = a_.data() + a;
  const uint8_t* targets = a_.data() + a + 1;
  const std::vector<int64_t> cont_pos = kvt_iota(n, m);
  KvTrainedMethod out;
  out.name = method;
  std::vector<float> nats(static_cast<size_t>(m));
  if (method == "recompute") {
    std::vector<uint8_t> text;
    text.reserve(sel.size() + static_cast<size_t>(std::max(a, 0)));
    for (int64_t j : sel) text.push_back(b_[static_cast<size_t>(j)]);
    text.insert(text.end(), a_.begin(), a_.begin() + a);
    ref_cache_ = lm::lm_cache_empty(model_.config());
    const std::vector<int64_t> p = kvt_iota(0, n);
    lm::lm_cache_append(model_, ref_cache_, text.data(), p.data(), static_cast<int>(n), nullptr,
                        nullptr);
    LmKvCache full = ref_cache_;
    lm::lm_cache_append(model_, full, cont, cont_pos.data(), m, targets, nats.data());
    out.reference = true;
    // the caches of B and A, each run alone from position 0
    LmKvCache cb = lm::lm_cache_empty(model_.config()), ca = cb;
    const std::vector<int64_t> pb = kvt_iota(0, s.b_length), pa = kvt_iota(0, a);
    if (s.b_length > 0)
      lm::lm_cache_append(model_, cb, b_.data(), pb.data(), s.b_length, nullptr, nullptr);
    lm::lm_cache_append(model_, ca, a_.data(), pa.data(), a, nullptr, nullptr);
    stitched_ = lm::lm_cache_concat(lm::lm_cache_select(cb, sel), ca);
    r_.bytes.assign(targets, targets + m);
    r_.first_position = n;
    r_.first_pos = sel;
    r_.stitched = n;
  } else {
    LmKvCache c = stitched_;
    if (method == "reencode") lm::lm_cache_reencode(model_, c, kvt_iota(0, n));
    for (size_t l = 0; l < c.k.size(); ++l) {
      out.key_diff.push_back(kvt_rel_diff(c.k[l], ref_cache_.k[l]));
      out.value_diff.push_back(kvt_rel_diff(c.v[l], ref_cache_.v[l]));
      out.hidden_diff.push_back(kvt_rel_diff(c.h[l], ref_cache_.h[l]));
    }
    lm::lm_cache_append(model_, c, cont, cont_pos.data(), m, targets, nats.data());
  }
  out.bits = kvt_bits(nats);
  out.mean_bits = kvt_mean(out.bits);
  r_.methods.push_back(std::move(out));
}

// stream: the full window (the length lab's one-window curve) or a rolling cache of at most
// `window` slots; "reencode" re-assigns positions 0..n-1 inside the cache (keys re-encoded
// where the encoding allows, the new byte at position n), "naive" keeps stored positions;
// "_sinks" never evicts the first `sinks` bytes.
// stream. The full forward is one step; a cached method decodes kKvtStreamChunk bytes a
// step (one byte at a time, as a decoder does), so a step stays bounded for any span.
constexpr int kKvtStreamChunk = 64;

bool KvTrainedRun::stream_step(const std::string& method) {
  const KvTrainedSettings& s = r_.lab;
  const int T = s.span * r_.context;
  KvTrainedMethod out;
  out.name = method;
  if (method == "full") {
    stream_nats_.resize(static_cast<size_t>(T));
    model_.forward(a_.data(), 1, T);
    std::copy_n(model_.losses(), T, stream_nats_.begin());
    out.reference = true;
    r_.bytes.assign(a_.begin() + 1, a_.end());
    r_.first_position = 0;
  } else {
    const bool reencode = method.rfind("reencode", 0) == 0;
    const bool keys = reencode && lm::lm_cache_reencode_applies(r_.position);
    const int sinks =
        method.size() > 6 && method.substr(method.size() - 6) == "_sinks" ? s.sinks : 0;
    if (stream_t_ == 0) {
      stream_ = lm::lm_cache_empty(model_.config());
      stream_nats_.assign(static_cast<size_t>(T), 0.0f);
    }
    const int end = std::min(T, stream_t_ + kKvtStreamChunk);
    for (int t = stream_t_; t < end; ++t) {
      bool evicted = false;
      if (stream_.size() >= s.window) {
        lm::lm_cache_erase(stream_, sinks);
        evicted = true;
      }
      if (evicted && keys) lm::lm_cache_reencode(model_, stream_, kvt_iota(0, stream_.size()));
      const int64_t pos = reencode ? stream_.size() : t;
      lm::lm_cache_append(model_, stream_, a_.data() + t, &pos, 1, a_.data() + t + 1,
                          stream_nats_.data() + t);
    }
    stream_t_ = end;
    if (stream_t_ < T) return false;
    stream_t_ = 0;
    stream_ = {};
  }
  out.bits = kvt_bits(stream_nats_);
  out.mean_bits = kvt_mean(out.bits);
  r_.methods.push_back(std::move(out));
  return true;
}

KvTrainedResult kv_trained_compute(const KvTrainedSettings& s, const lm::LengthLabModel& m,
                                   const std::vector<uint8_t>& valid, const lm::LmBudget& budget) {
  KvTrainedRun run(s, m, valid, budget);
  while (!run.done()) run.step();
  return run.take();
}

// ---- Preset ---------------------------------------------------------------------------

bool kv_preset_is_trained(const std::string& text) {
  try {
    PresetReader in(text, kKvTrainedLabName);
    std::string w;
    in.read_text("weights", w);
    return w == "trained";
  } catch (const InputError&) {
    return false;
  }
}

const PresetTable<KvTrainedSettings>& kv_trained_preset_fields() {
  using S = KvTrainedSettings;
  // No CLI flags: `poslab-cli kv` reads the trained source from its preset only (the
  // random-weights source owns the kv flags).
  static const PresetTable<S> t{
      preset_choice<S>(
          "model", [](auto& s) -> auto& { return s.model; }, lm::length_model_names(),
          "the shipped language model"),
      preset_choice<S>(
          "scenario", [](auto& s) -> auto& { return s.scenario; }, kv_trained_scenario_names(),
          "stitch | rag | stream"),
      preset_field<S>(
          "pa", [](auto& s) -> auto& { return s.passage_a; }, S::passage_range,
          "held-out passage of A (and of the streamed text)"),
      preset_field<S>(
          "pb", [](auto& s) -> auto& { return s.passage_b; }, S::passage_range,
          "held-out passage of B"),
      preset_field<S>(
          "a", [](auto& s) -> auto& { return s.a_length; }, S::length_range,
          "bytes of A in its cache"),
      preset_field<S>(
          "b", [](auto& s) -> auto& { return s.b_length; }, S::b_range,
          "bytes of B in its cache (0: A alone, nothing stitched)"),
      preset_field<S>(
          "cont", [](auto& s) -> auto& { return s.continuation; }, S::length_range,
          "bytes of A after its cache that the model predicts"),
      preset_field<S>(
          "retrieved", [](auto& s) -> auto& { return s.retrieved; }, S::retrieved_range,
          "rag: slots of B retrieved"),
      preset_field<S>(
          "from", [](auto& s) -> auto& { return s.retrieve_from; }, S::retrieve_from_range,
          "rag: B index of the first retrieved slot"),
      preset_field<S>(
          "stride", [](auto& s) -> auto& { return s.retrieve_stride; }, S::retrieve_stride_range,
          "rag: spacing of the retrieved B indices"),
      preset_field<S>(
          "span", [](auto& s) -> auto& { return s.span; }, S::span_range,
          "stream: bytes predicted = span x L"),
      preset_field<S>(
          "window", [](auto& s) -> auto& { return s.window; }, S::window_range,
          "stream: cache slots at most, [1, 8L]"),
      preset_field<S>(
          "sinks", [](auto& s) -> auto& { return s.sinks; }, S::sinks_range,
          "stream: first bytes kept as attention sinks"),
  };
  return t;
}

std::string kv_trained_to_preset(const KvTrainedSettings& s) {
  PresetWriter w(kKvTrainedLabName);
  w.add_text("weights", "trained");
  preset_write(w, kv_trained_preset_fields(), s, KvTrainedSettings{});
  return w.str();
}

KvTrainedSettings kv_trained_from_preset(const std::string& text, const KvTrainedSettings& base) {
  KvTrainedSettings s = base;
  PresetReader in(text, kKvTrainedLabName);
  std::string w;
  in.read_text("weights", w);
  if (w != "trained")
    throw InputError("weights = \"" + w + "\": the trained source needs weights=trained");
  preset_read(in, kv_trained_preset_fields(), s);
  in.finish();
  kv_trained_validate(s);
  return s;
}

}  // namespace poslab
