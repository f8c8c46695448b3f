// `poslab-cli attention`: the attention lab's numbers as JSON. Tokens (a sentence, a token
// count or a patch grid), an encoding, heads, dims, seed and the content/position switches
// give the logits and softmax weights per head plus the encoding or bias matrices; --terms
// adds the content/position split of every cell; --demo and --compare run the lab's demos.
// Cells without a value (masked, or a position with no learned row) are JSON null.
// --weights trained (or weights=trained in the preset) prints a shipped language model's real
// attention on bytes of text instead (assets/models/lm_<model>.safetensors).
#include <cmath>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "cli/preset_flags.hpp"
#include "core/attention/attention_kernel.hpp"
#include "core/attention/attention_lab.hpp"
#include "core/attention/tokenizer.hpp"
#include "core/common/errors.hpp"
#include "core/common/names.hpp"
#include "core/common/preset.hpp"
#include "io/labjson/lab_json.hpp"
#include "io/length/length_lab_io.hpp"

namespace poslab::cli {
namespace {

struct AttentionArgs {
  std::string preset;
  PresetFlags<AttentionLabSettings> flags;  // the table's flags (--heads, --base, --shift, ...)
  std::string sentence, compare, grid, order;
  double tokens = 0;  // read as a number so "1e6" gets our range message
  bool no_content = false, no_position = false, t5_unidirectional = false, terms = false;
  int head = -1;  // -1 = all heads
};

std::vector<int> parse_order(const std::string& text, int tokens) {
  std::vector<int> order;
  for (double v : parse_number_list(text, "--order")) {
    if (v != std::floor(v))
      throw InputError("--order: " + format_double(v) +
                       " is not a token index (use whole numbers 0.." + std::to_string(tokens - 1) +
                       ")");
    order.push_back(static_cast<int>(v));
  }
  return order;
}

void parse_grid(const std::string& text, AttentionLabSettings& s) {
  const auto x = text.find('x');
  if (x == std::string::npos)
    throw InputError("--grid = \"" + text + "\": expected ROWSxCOLS, e.g. 8x8");
  const double r = parse_double(text.substr(0, x), "--grid rows");
  const double c = parse_double(text.substr(x + 1), "--grid cols");
  require_in_range("--grid rows", r, AttentionLabSettings::grid_side_range);
  require_in_range("--grid cols", c, AttentionLabSettings::grid_side_range);
  if (r != std::floor(r) || c != std::floor(c))
    throw InputError("--grid = \"" + text + "\": whole numbers please");
  s.grid_rows = static_cast<int>(r);
  s.grid_cols = static_cast<int>(c);
  s.source = AttentionSource::grid;
  s.query_row = std::min(s.query_row, s.grid_rows - 1);
  s.query_col = std::min(s.query_col, s.grid_cols - 1);
}

void run(AttentionArgs& a, const CLI::App& cmd) {
  // Start from the preset (or the defaults); flags given explicitly override it.
  AttentionLabSettings s =
      a.preset.empty() ? AttentionLabSettings{} : attention_from_preset(a.preset);
  AttentionParams& p = s.params;
  a.flags.apply(cmd, s);
  if (a.no_content) p.use_content = false;
  if (a.no_position) p.use_position = false;
  if (a.t5_unidirectional) p.t5_bidirectional = false;
  if (cmd.count("--sentence")) {
    s.sentence = a.sentence;
    s.source = AttentionSource::sentence;
  }
  if (cmd.count("--tokens")) {
    if (a.tokens != std::floor(a.tokens) || a.tokens < 1 || a.tokens > kAttentionMaxTokens)
      throw InputError("--tokens = " + format_double(a.tokens) +
                       ": must be a whole number in [1, " + std::to_string(kAttentionMaxTokens) +
                       "]");
    s.token_count = static_cast<int>(a.tokens);
    s.source = AttentionSource::count;
  }
  if (!a.grid.empty()) parse_grid(a.grid, s);
  if (a.head >= 0) s.head = a.head;
  if (!a.compare.empty()) {
    if (a.compare == "orderings") {
      s.compare = AttentionCompare::orderings;
    } else {
      s.compare = AttentionCompare::encodings;
      s.compare_encoding = attention_encoding_from_name(a.compare);
    }
  }
  AttentionLabOptions options;
  options.only_head = a.head;
  if (s.demo == AttentionDemo::permutation && !a.order.empty())
    options.order = parse_order(a.order, static_cast<int>(attention_lab_input(s).tokens.size()));
  AttentionTrainedData trained;  // weights = trained: the shipped model and held-out text
  if (s.weights == AttentionWeights::trained) {
    attention_lab_validate(s);  // a bad preset says so before any file is read
    trained.model = io::length_model_load(s.model, &trained.valid);
    options.trained = &trained;
  }
  const AttentionLabResult lab = attention_lab_compute(s, nullptr, options);
  const Json out = io::attention_lab_json(s, lab, a.head, a.terms);
  std::cout << dump_json(out, 2) << "\n";
}

}  // namespace

void add_attention_command(CLI::App& app) {
  auto args = std::make_shared<AttentionArgs>();
  auto* cmd = app.add_subcommand("attention",
                                 "attention logits/weights per head under a position encoding");
  cmd->add_option("--preset", args->preset,
                  "an attention-lab preset, e.g. 'attention?enc=alibi&heads=6'");
  auto* src =
      cmd->add_option_group("tokens", "where tokens come from (default: the preset's sentence)");
  src->add_option("--sentence", args->sentence,
                  "words split on spaces, or Chinese text one character per token");
  src->add_option("--tokens", args->tokens, "N distinct tokens t0..t(N-1), 1..1024");
  src->add_option("--grid", args->grid, "ROWSxCOLS patch grid (for swin, sincos2d, elevation)");
  src->require_option(0, 1);
  // --encoding --heads --dim --head-dim --seed --causal --sin-base --table-length --base
  // --layout --buckets --max-distance --alpha --terrain-max --sentence-b --demo --shift
  // --extrapolate
  args->flags.add(cmd, attention_preset_fields());
  cmd->add_flag("--no-content", args->no_content, "position only: drop token content");
  cmd->add_flag("--no-position", args->no_position, "content only: drop the encoding");
  cmd->add_flag("--t5-unidirectional", args->t5_unidirectional, "T5 decoder buckets (past only)");
  cmd->add_option("--head", args->head, "print only this head (default: all)");
  cmd->add_flag("--terms", args->terms, "add the per-cell split cc/cp/pc/pp/rotation/bias");
  cmd->add_option("--compare", args->compare,
                  "another encoding name (side by side), or 'orderings'");
  cmd->add_option("--order", args->order,
                  "permutation demo: new order as token indices, e.g. 2,1,0");
  cmd->callback([args, cmd] { run(*args, *cmd); });
}

}  // namespace poslab::cli
