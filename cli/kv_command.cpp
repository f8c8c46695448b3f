// `poslab-cli kv`: run a KV-cache scenario (sliding window, stitching two caches, KV-cache
// RAG) with a small real transformer and print, per method, step and layer, how far cached
// decoding is from full recomputation, as JSON.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/kv/kv_session.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::cli {
namespace {

struct KvArgs {
  std::string preset;
  KvLabSettings lab;  // receives the explicitly given numeric flags
  std::string scenario, method, positions, layout, scaling, layer_norm;
  bool float64 = false;
};

void run(KvArgs& a, const CLI::App& cmd) {
  KvLabSettings s = a.preset.empty() ? KvLabSettings{} : kv_from_preset(a.preset);
  const KvLabSettings& f = a.lab;
  KvModelParams& p = s.model;
  if (cmd.count("--layers")) p.layers = f.model.layers;
  if (cmd.count("--width")) p.width = f.model.width;
  if (cmd.count("--heads")) p.heads = f.model.heads;
  if (cmd.count("--vocab")) p.vocab = f.model.vocab;
  if (cmd.count("--context")) p.context = f.model.context;
  if (cmd.count("--position-std")) p.position_std = f.model.position_std;
  if (cmd.count("--gain")) p.attention_gain = f.model.attention_gain;
  if (cmd.count("--base")) p.rope.base = f.model.rope.base;
  if (cmd.count("--factor")) p.rope.factor = f.model.rope.factor;
  if (cmd.count("--L")) p.rope.original_context = f.model.rope.original_context;
  if (cmd.count("--seed")) p.seed = f.model.seed;
  if (cmd.count("--steps")) s.steps = f.steps;
  if (cmd.count("--drop")) s.drop_steps = f.drop_steps;
  if (cmd.count("--first")) s.first_length = f.first_length;
  if (cmd.count("--second")) s.second_length = f.second_length;
  if (cmd.count("--retrieved")) s.retrieved = f.retrieved;
  if (cmd.count("--from")) s.retrieve_from = f.retrieve_from;
  if (cmd.count("--stride")) s.retrieve_stride = f.retrieve_stride;
  if (a.float64) s.cache_float32 = false;
  if (!a.positions.empty())
    p.positions = enum_from_name<KvPositions>("--positions", a.positions, kv_positions_names());
  if (!a.layer_norm.empty()) {
    if (a.layer_norm != "on" && a.layer_norm != "off")
      throw InputError("--layer-norm = \"" + a.layer_norm + "\": expected on or off");
    p.layer_norm = a.layer_norm == "on";
  }
  if (!a.layout.empty()) p.rope.layout = rope_layout_from_name(a.layout);
  if (!a.scaling.empty()) p.rope.scaling = rope_scaling_from_name(a.scaling);
  if (!a.scenario.empty()) s.scenario = kv_scenario_from_name(a.scenario);
  // "all" (the default without a preset) runs and prints every method of the scenario.
  const std::string method = !a.method.empty()  ? a.method
                             : a.preset.empty() ? "all"
                                                : kv_method_name(s.method);
  const bool all = method == "all";
  if (!all) s.method = kv_method_from_name(method);
  // What follows from the given values (stitching runs on RoPE, "all" shows the first
  // method, views inside the model); values given as flags stay as given.
  std::vector<std::string> given;
  for (const auto& [flag, key] : {std::pair{"--positions", "pos"},
                                  {"--context", "C"},
                                  {"--drop", "drop"},
                                  {"--from", "from"},
                                  {"--retrieved", "retrieved"}})
    if (cmd.count(flag)) given.push_back(key);
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
  KvLabSettings& s = args->lab;
  KvModelParams& p = s.model;
  cmd->add_option("--preset", args->preset,
                  "a kv-lab preset string, e.g. 'kv?pos=rope&method=kshift'");
  cmd->add_option("--scenario", args->scenario, "sliding | stitch | rag");
  cmd->add_option("--method", args->method,
                  "all | naive | legacy | keep | kshift | reencode | reencode_scaled | recompute");
  cmd->add_option("--positions", args->positions, "learned | rope");
  cmd->add_option("--layers", p.layers, "transformer blocks, 1..4");
  cmd->add_option("--width", p.width, "model width W (8..256)");
  cmd->add_option("--heads", p.heads, "attention heads (W/heads must be even)");
  cmd->add_option("--vocab", p.vocab, "vocabulary size");
  cmd->add_option("--context", p.context, "C: window and learned-table length in tokens (even)");
  cmd->add_option("--layer-norm", args->layer_norm, "on | off (pre-LayerNorm in every block)");
  cmd->add_option("--position-std", p.position_std, "std of learned position-table entries");
  cmd->add_option("--gain", p.attention_gain, "init gain of W_q and W_k (sharper attention)");
  cmd->add_option("--base", p.rope.base, "RoPE base (rope_theta)");
  cmd->add_option("--layout", args->layout, "interleaved | half");
  cmd->add_option("--scaling", args->scaling, "none | linear | ntk | dynamic | yarn | llama3");
  cmd->add_option("--factor", p.rope.factor,
                  "context-extension factor s (YaRN temperature 0.1 ln s + 1)");
  cmd->add_option("--L", p.rope.original_context, "trained context the scaling refers to");
  cmd->add_option("--steps", s.steps, "window slides (sliding) or new tokens (stitch, rag)");
  cmd->add_option("--drop", s.drop_steps, "episode steps dropped per slide");
  cmd->add_option("--first", s.first_length, "stitch/rag: tokens of document B");
  cmd->add_option("--second", s.second_length, "stitch/rag: tokens of document A");
  cmd->add_option("--retrieved", s.retrieved, "rag: slots retrieved from B");
  cmd->add_option("--from", s.retrieve_from, "rag: B index of the first retrieved slot");
  cmd->add_option("--stride", s.retrieve_stride, "rag: spacing of the retrieved B indices");
  cmd->add_option("--seed", p.seed, "weights and token streams");
  cmd->add_flag("--float64", args->float64,
                "keep the cache in float64 (default: rounded to float32)");
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
