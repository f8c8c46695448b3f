// The KV lab's trained source (issue 39): the length lab's shipped byte-level language models
// with their own KV caches (core/lm/lm_cache.hpp), on held-out text, measured by what the
// model then predicts. Three scenarios: stitch (caches of B and A, run apart, concatenated
// [B; A]), rag (slots of B retrieved before A's cache) and stream (a rolling cache past the
// training length L, with or without attention sinks). Preset `kv?weights=trained&...`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/preset_fields.hpp"
#include "core/lm/length_lab.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_cache.hpp"

namespace poslab {

inline constexpr const char* kKvTrainedLabName = "kv";  // the KV lab's presets

enum class KvTrainedScenario { stitch, rag, stream };
const std::vector<std::string>& kv_trained_scenario_names();  // "stitch", "rag", "stream"
const std::vector<std::string>& kv_weights_names();           // "random", "trained"

struct KvTrainedSettings {
  lm::LengthModelId model = lm::LengthModelId::rope;  // the shipped model
  KvTrainedScenario scenario = KvTrainedScenario::stitch;
  int passage_a = 0;        // held-out passage of A (the length lab's, 8L + 1 bytes), [0, 999]
  int passage_b = 1;        // held-out passage of B, [0, 999]
  int a_length = 32;        // stitch/rag: bytes of A in its cache, [1, 1024]
  int b_length = 64;        // stitch/rag: bytes of B in its cache, [0, 1024] (0: A alone)
  int continuation = 32;    // stitch/rag: bytes of A after its cache that are predicted, [1, 1024]
  int retrieved = 16;       // rag: slots of B retrieved, [0, 1024] (0 is refused)
  int retrieve_from = 0;    // rag: B index of the first retrieved slot, [0, 1023]
  int retrieve_stride = 4;  // rag: spacing of the retrieved B indices, [1, 64]
  int span = 8;             // stream: bytes predicted = span x L, [1, 8]
  int window = 128;         // stream: cache slots at most, [1, 8L] (checked with the model)
  int sinks = 4;            // stream: first bytes kept as attention sinks, [0, 64]

  bool operator==(const KvTrainedSettings&) const = default;

  static constexpr ParamRange passage_range{0, 999};
  static constexpr ParamRange length_range{1, 1024};
  static constexpr ParamRange b_range{0, 1024};
  static constexpr ParamRange retrieved_range{0, 1024};
  static constexpr ParamRange retrieve_from_range{0, 1023};
  static constexpr ParamRange retrieve_stride_range{1, 64};
  static constexpr ParamRange span_range{1, 8};
  static constexpr ParamRange window_range{0, 65536};  // read as given; 0 and > 8L refused
  static constexpr ParamRange sinks_range{0, 64};
};

// One method's numbers. bits: loss of each predicted byte (bits); for stitch and rag the
// per-block relative difference ||X - X_ref|| / ||X_ref|| over the stitched slots of keys,
// values and block outputs (empty for the reference and for stream).
struct KvTrainedMethod {
  std::string name;        // recompute, naive, reencode; stream: full, naive, reencode,
                           // naive_sinks, reencode_sinks
  bool reference = false;  // the dashed curve the others are compared with
  std::vector<double> bits;
  double mean_bits = 0;
  std::vector<double> key_diff, value_diff, hidden_diff;  // (N)
};

struct KvTrainedResult {
  KvTrainedSettings lab;
  std::string model;  // the shipped model's name
  int context = 0;    // L
  int layers = 0;     // N
  lm::LmPosition position = lm::LmPosition::rope;
  std::vector<uint8_t> bytes;            // the bytes predicted (continuation, or the stream's text)
  int64_t first_position = 0;            // position of the byte whose prediction is bits[0]
  std::vector<int64_t> first_pos;        // stitch/rag: where the first block's slots were computed
  int64_t stitched = 0;                  // stitch/rag: slots in the stitched cache
  std::vector<KvTrainedMethod> methods;  // the reference first
  std::string note;                      // what re-encoding is for this model's encoding
  const KvTrainedMethod* find(const std::string& name) const;
};

// Throws InputError naming the first bad field (ranges, sinks < window, an empty RAG set).
void kv_trained_validate(const KvTrainedSettings& s);
// B indices retrieved for rag (retrieve_from + k * stride), all of B for stitch.
std::vector<int64_t> kv_trained_retrieved(const KvTrainedSettings& s);
// The price of the scenario on a model of config c.
lm::LmCost kv_trained_cost(const KvTrainedSettings& s, const lm::LmConfig& c);
// "re-encoding rotates ..." / "does not apply ...": one sentence for the encoding (stream:
// what re-assigning positions inside the rolling cache does there).
std::string kv_trained_note(lm::LmPosition p, KvTrainedScenario s);

// The scenario in steps (one method per step) for a caller that must not block. Validates,
// checks the passages, the window against 8L and the budget before anything is computed.
class KvTrainedRun {
 public:
  KvTrainedRun(const KvTrainedSettings& s, const lm::LengthLabModel& m,
               const std::vector<uint8_t>& valid, const lm::LmBudget& budget = {});
  bool done() const { return next_ >= static_cast<int>(plan_.size()); }
  int steps() const { return static_cast<int>(plan_.size()); }
  int steps_done() const { return next_; }
  void step();
  KvTrainedResult take() { return std::move(r_); }

 private:
  void stitch_step(const std::string& method);
  bool stream_step(const std::string& method);  // whether the method is done
  lm::LmModel model_;
  std::vector<uint8_t> a_, b_;  // A (cache, then continuation and its last target); B
  std::vector<std::string> plan_;
  lm::LmKvCache ref_cache_, stitched_;  // the reference's slots; the naive stitch
  lm::LmKvCache stream_;                // stream: the cached method's rolling cache so far
  std::vector<float> stream_nats_;      // and its losses, (T)
  int stream_t_ = 0;                    // bytes it has decoded (a step decodes a chunk)
  KvTrainedResult r_;
  int next_ = 0;
};
KvTrainedResult kv_trained_compute(const KvTrainedSettings& s, const lm::LengthLabModel& m,
                                   const std::vector<uint8_t>& valid,
                                   const lm::LmBudget& budget = {});

// `kv?weights=trained&...`: whether a kv preset names the trained source.
bool kv_preset_is_trained(const std::string& text);
const PresetTable<KvTrainedSettings>& kv_trained_preset_fields();
std::string kv_trained_to_preset(const KvTrainedSettings& s);
KvTrainedSettings kv_trained_from_preset(const std::string& text,
                                         const KvTrainedSettings& base = {});

}  // namespace poslab
