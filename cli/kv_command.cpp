// `poslab-cli kv`: run a KV-cache scenario (sliding window, stitching two caches, KV-cache
// RAG) with a small real transformer and print, per method, step and layer, how far cached
// decoding is from full recomputation, as JSON.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/preset_flags.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/kv/kv_session.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::cli {
namespace {

struct KvArgs {
  std::string preset;
  PresetFlags<KvLabSettings> flags;  // the kv table's flags (--layers, --base, --drop, ...)
  std::string method, layer_norm;
  bool float64 = false;
};

void run(KvArgs& a, const CLI::App& cmd) {
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
                  "a kv-lab preset string, e.g. 'kv?pos=rope&method=kshift'");
  cmd->add_option("--method", args->method,
                  "all | naive | legacy | keep | kshift | reencode | reencode_scaled | recompute");
  cmd->add_option("--layer-norm", args->layer_norm, "on | off (pre-LayerNorm in every block)");
  args->flags.add(cmd, kv_preset_fields());  // --positions --layers ... --base ... --stride
  cmd->add_flag("--float64", args->float64,
                "keep the cache in float64 (default: rounded to float32)");
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
