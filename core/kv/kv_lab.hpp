// The KV-cache lab's whole state that a preset restores: the model, the scenario (sliding
// window, stitching two caches, KV-cache RAG), the correction method shown, how many
// steps to run, and where the user looks (layer, head, RoPE pair). Plain data; the panel
// draws it and `poslab-cli kv` reads the same preset strings.
#pragma once
#include <string>
#include <vector>

#include "core/common/preset_fields.hpp"
#include "core/kv/kv_model.hpp"

namespace poslab {

enum class KvScenario { sliding, stitch, rag };

// Which index correction a cache gets (see kv_cache.hpp for the operations):
//   naive            reuse K/V as they are (stale or duplicate indices)
//   legacy           learned positions: UniZero's projected P[new] - P[old] added to K/V
//   keep             RoPE sliding: keep absolute indices, only drop old slots
//   kshift           RoPE: reset indices and rotate keys once by (new - old)
//   reencode         RoPE: inverse rotation at the old index, forward at the new (seed 001)
//   reencode_scaled  reencode with the YaRN temperature in both tables (off by mscale^2)
//   recompute        rebuild the cache from the raw tokens (the exact fix)
enum class KvMethod { naive, legacy, keep, kshift, reencode, reencode_scaled, recompute };

const std::vector<std::string>& kv_scenario_names();        // "sliding", "stitch", "rag"
const std::vector<std::string>& kv_method_names();          // as in the enum
const std::vector<std::string>& kv_positions_names();       // "learned", "rope"
KvScenario kv_scenario_from_name(const std::string& name);  // throws InputError
KvMethod kv_method_from_name(const std::string& name);      // throws InputError
const std::string& kv_method_name(KvMethod m);
const std::string& kv_scenario_name(KvScenario s);

// Methods that make sense for a scenario and position type, in display order.
std::vector<KvMethod> kv_methods_for(KvScenario s, KvPositions p);

struct KvLabSettings {
  KvModelParams model;  // the transformer (positions, layers, context, seed, RoPE)
  KvScenario scenario = KvScenario::sliding;
  KvMethod method = KvMethod::legacy;  // method shown in detail; must suit scenario and positions
  int steps = 20;           // window slides (sliding) or new tokens (stitch, rag), [1, 500]
  int drop_steps = 1;       // episode steps (state + action) dropped per slide, [1, 255]
  int first_length = 12;    // stitch/rag: tokens of document B, source of the first block, [1, 512]
  int second_length = 8;    // stitch/rag: tokens of document A, the second block, [1, 512]
  int retrieved = 4;        // rag: slots retrieved from B's cache, [1, 512]
  int retrieve_from = 6;    // rag: B index of the first retrieved slot, [0, 511]
  int retrieve_stride = 1;  // rag: spacing of retrieved B indices (1 = contiguous), [1, 64]
  bool cache_float32 = true;  // store K/V rounded to float32 (rounding level ~1e-7, not ~1e-16)
  int view_layer = 0;         // layer whose strip, heatmap and dials are shown, [0, 3]
  int view_head = 0;          // head whose attention and dials are shown, [0, 15]
  int view_pair = 0;          // RoPE pair drawn on the slot dials (0 = fastest), [0, 127]

  bool operator==(const KvLabSettings&) const = default;

  static constexpr ParamRange steps_range{1, 500};
  static constexpr ParamRange drop_steps_range{1, 255};
  static constexpr ParamRange length_range{1, 512};
  static constexpr ParamRange retrieve_from_range{0, 511};
  static constexpr ParamRange retrieve_stride_range{1, 64};
  static constexpr ParamRange view_layer_range{0, 3};
  static constexpr ParamRange view_head_range{0, 15};
  static constexpr ParamRange view_pair_range{0, 127};
};

inline constexpr const char* kKvLabName = "kv";

// Makes the settings consistent where one choice implies another: stitch/rag run on
// RoPE, the method suits scenario and positions (else the first that does), the context
// is even, the views lie inside the model, a slide leaves steps in the window, rag
// retrieves inside B. Fields whose preset key is in `given` (what a preset named
// explicitly) are left alone, so a conflict among given values gets kv_lab_validate's
// message. The panel calls it after every control change, kv_from_preset after reading.
void kv_lab_normalize(KvLabSettings& s, const std::vector<std::string>& given = {});

// Cross-field checks: method fits scenario/positions, stitching needs RoPE, the drop
// leaves something in the window, retrieved indices lie inside B. Throws InputError.
void kv_lab_validate(const KvLabSettings& s);

// B indices retrieved for the rag scenario (retrieve_from + k * stride), all of B for stitch.
std::vector<int> kv_retrieved_indices(const KvLabSettings& s);

// Every preset field of the lab (model, shared RoPE fields, scenario, view), in the order
// presets write them; the range checks of kv_lab_validate and the CLI flags read it too.
const PresetTable<KvLabSettings>& kv_preset_fields();
std::string kv_to_preset(const KvLabSettings& s);
// Starts from `base` (usually the defaults) and overrides what the preset names; validates.
KvLabSettings kv_from_preset(const std::string& text, const KvLabSettings& base = {});

}  // namespace poslab
