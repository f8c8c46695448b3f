// `poslab-cli kv`: run a KV-cache scenario (sliding window, stitching two caches, KV-cache
// RAG) with a small real transformer and print, per method, step and layer, how far cached
// decoding is from full recomputation, as JSON. With `kv?weights=trained&...` the trained
// source instead: a shipped language model's own cache stitched, retrieved or streamed, and
// the bits per byte it then predicts (core/kv/kv_trained.hpp).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/preset_flags.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/kv/kv_session.hpp"
#include "core/kv/kv_trained.hpp"
#include "core/lm/lm_budget.hpp"
#include "io/labjson/kv_trained_json.hpp"
#include "io/labjson/lab_json.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::cli {
namespace {

struct KvArgs {
  std::string preset;
  PresetFlags<KvLabSettings> flags;  // the kv table's flags (--layers, --base, --drop, ...)
  std::string method, layer_norm;
  bool float64 = false;
  double memory_mb = 1024, seconds = 120;  // the trained source's budget
};

// The trained source reads its preset only: the random-weights flags mean other fields.
void run_trained(KvArgs& a, const CLI::App& cmd) {
  const KvTrainedSettings s = kv_trained_from_preset(a.preset);
  if (!a.flags.given(cmd).empty() || !a.method.empty() || !a.layer_norm.empty() || a.float64)
    throw InputError(
        "with weights=trained only --preset (and the budget flags) are read; "
        "put the values in the preset, e.g. 'kv?weights=trained&scenario=rag'");
  const lm::LmBudget budget = lm::lm_budget_from_flags(a.memory_mb, a.seconds);
  std::vector<uint8_t> valid;
  const lm::LengthLabModel m = io::length_model_load(s.model, &valid);
  const KvTrainedResult r = kv_trained_compute(s, m, valid, budget);
  std::cout << dump_json(io::kv_trained_json(r), 2) << "\n";
}

void run(KvArgs& a, const CLI::App& cmd) {
  if (!a.preset.empty() && kv_preset_is_trained(a.preset)) return run_trained(a, cmd);
  KvLabSettings s = a.preset.empty() ? KvLabSettings{} : kv_from_preset(a.preset);
  KvModelParams& p = s.model;
  a.flags.apply(cmd, s);
  if (a.float64) s.cache_float32 = false;
  if (!a.layer_norm.empty()) {
    if (a.layer_norm != "on" && a.layer_norm != "off")
      throw InputError("--layer-norm = \"" + a.layer_norm + "\": expected on or off");
    p.layer_norm = a.layer_norm == "on";
  }
  // "all" (the default without a preset) runs and prints every method of the scenario.
  const std::string method = !a.method.empty()  ? a.method
                             : a.preset.empty() ? "all"
                                                : kv_method_name(s.method);
  const bool all = method == "all";
  if (!all) s.method = kv_method_from_name(method);
  // What follows from the given values (stitching runs on RoPE, "all" shows the first
  // method, views inside the model); values given as flags stay as given.
  std::vector<std::string> given;
  for (const auto& [flag, key] : a.flags.given(cmd)) given.push_back(key);
  if (!all) given.push_back("method");
  kv_lab_normalize(s, given);

  const KvSession ses = kv_run_scenario(s);
  const Json out = io::kv_lab_json(s, ses, all);
  std::cout << dump_json(out, 2) << "\n";
}

}  // namespace

void add_kv_command(CLI::App& app) {
  auto args = std::make_shared<KvArgs>();
  auto* cmd =
      app.add_subcommand("kv", "KV-cache index corrections measured against full recomputation");
  cmd->add_option("--preset", args->preset,
                  "a kv-lab preset string, e.g. 'kv?pos=rope&method=kshift', or the trained source "
                  "'kv?weights=trained&model=rope&scenario=stitch' (rag, stream)");
  cmd->add_option("--method", args->method,
                  "all | naive | legacy | keep | kshift | reencode | reencode_scaled | recompute");
  cmd->add_option("--layer-norm", args->layer_norm, "on | off (pre-LayerNorm in every block)");
  args->flags.add(cmd, kv_preset_fields());  // --positions --layers ... --base ... --stride
  cmd->add_flag("--float64", args->float64,
                "keep the cache in float64 (default: rounded to float32)");
  cmd->add_option("--memory-budget-mb", args->memory_mb,
                  "weights=trained: peak memory the scenario may use (default 1024)");
  cmd->add_option("--time-budget-s", args->seconds,
                  "weights=trained: estimated seconds the scenario may take (default 120)");
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
