// A language-model training run shared by `poslab-cli lm train` and the length lab's panel
// (see lm_train_run.hpp): set-up, provenance, and the checkpoint and curve writes.
#include "io/training/lm_train_run.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "core/common/errors.hpp"
#include "core/nn/parallel.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::io {

using nlohmann::json;
using namespace poslab::lm;

namespace {

// The CSV rows of an earlier run up to `step` (a resumed run continues its curve).
std::string lm_run_csv_prefix(const std::string& path, int64_t step) {
  std::string out = lm_train_csv_header() + "\n";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return out;
  if (std::filesystem::file_size(path, ec) > (uint64_t{64} << 20))
    throw FileError(path, "the training curve is larger than 64 MB; move it aside to resume");
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    long long s = -1;
    if (std::sscanf(line.c_str(), "%lld", &s) < 1 || s > step) break;
    out += line + "\n";
  }
  return out;
}

}  // namespace

LmTrainRun::LmTrainRun(LmTrainRequest request)
    : request_(std::move(request)), settings_(request_.settings), model_(LmConfig{}) {
  LmTrainRequest& r = request_;
  if (r.output.empty()) throw InputError("lm train: give -o/--output FILE.safetensors");
  if (r.log.empty()) r.log = std::filesystem::path(r.output).replace_extension(".csv").string();
  // Up front, as `wm train` does: not at the first checkpoint, a minute into the run.
  require_writable_path(r.output, "--output");
  require_writable_path(r.log, "--log");
  LmConfig config = r.config;
  std::vector<float> params;
  TensorMetadata prev;
  LmScaling scaling = r.scaling;
  if (r.resume) {
    std::error_code ec;
    if (!std::filesystem::exists(r.output, ec))
      throw InputError("--resume: " + r.output + " does not exist; start without --resume");
    LmCheckpoint ck = lm_checkpoint_load(r.output);
    if (!ck.optim)
      throw InputError("--resume: " + r.output + " has no optimiser state (an export?)");
    config = ck.config;
    params = std::move(ck.params);
    optim_ = std::move(*ck.optim);
    prev = std::move(ck.metadata);
    scaling = ck.scaling;
  } else if (!r.init_from.empty()) {
    LmCheckpoint ck = lm_checkpoint_load(r.init_from);
    config = ck.config;
    params = std::move(ck.params);
    prev = std::move(ck.metadata);
  }
  if (r.context > 0) {
    if (!r.init_from.empty() || r.resume)
      settings_.window = r.context;
    else
      config.context = r.context;
  }
  lm_validate(config);
  lm_train_validate(settings_);
  settings_.scaling = scaling;
  const int T = lm_train_window(settings_, config);
  lm_budget_require("lm train: one step of batch " + std::to_string(settings_.batch) +
                        " at a window of " + std::to_string(T) + " bytes",
                    lm_train_step_cost(config, settings_.batch, T, settings_.valid_windows,
                                       nn::resolve_threads(settings_.threads)),
                    r.budget, r.over_budget);

  // A checkpoint only says what it was trained on: resuming reads its recorded text only when
  // that is PosLab's own (the fortune files); anything else the user gives with --text.
  std::vector<std::string> paths = r.text;
  if (paths.empty() && r.resume) {
    const std::string give = "give the text yourself (poslab-cli lm train --resume --text FILE)";
    const LmRecordedText rec = lm_recorded_text_checked(prev, r.output, give);
    if (rec.files.empty())
      throw FileError(r.output,
                      "cannot resume on the text it was trained on: " + rec.problem + "; " + give);
    paths = rec.files;
  }
  if (paths.empty()) paths = lm_default_text_paths();
  std::vector<LmTextSource> sources;
  const auto files = lm_read_text_files(paths, &sources);
  LmCorpusParams cp;
  cp.valid_every = r.valid_every;
  corpus_ = lm_corpus_build(files, cp, T + 1);

  model_ = LmModel(config);
  if (params.empty())
    model_.init(settings_.seed);
  else
    model_.params = std::move(params);
  first_step_ = optim_.step;

  json data;
  data["files"] = json::array();
  for (const auto& s : sources)
    data["files"].push_back({{"path", s.path}, {"package", s.package}, {"version", s.version}});
  data["split"] = "entries split on lines \"%\"; entry i is validation when i % " +
                  std::to_string(corpus_.params.valid_every) +
                  " == " + std::to_string(corpus_.params.valid_every - 1);
  data["valid_every"] = corpus_.params.valid_every;
  data["train_bytes"] = corpus_.train.size();
  data["valid_bytes"] = corpus_.valid.size();
  data["train_entries"] = corpus_.train_entries;
  data["valid_entries"] = corpus_.valid_entries;
  data["ansi_stripped"] = true;
  data_json_ = data.dump();

  const LmTrainSettings& s = settings_;
  json train;
  train["batch"] = s.batch;
  train["steps"] = s.steps;
  train["window"] = T;
  train["seed"] = s.seed;
  train["lr"] = s.adam.lr;
  train["warmup_steps"] = s.adam.warmup_steps;
  train["weight_decay"] = s.adam.weight_decay;
  train["beta1"] = s.adam.beta1;
  train["beta2"] = s.adam.beta2;
  train["clip_norm"] = s.adam.clip_norm;
  train["log_every"] = s.log_every;
  train["valid_windows"] = s.valid_windows;
  train["scaling"] = json::parse(lm_scaling_to_json(scaling));
  if (!r.init_from.empty()) train["init_from"] = r.init_from;
  meta_["data"] = data_json_;
  meta_["training"] = train.dump();
  if (!r.init_from.empty() && prev.count("training")) meta_["base_training"] = prev["training"];
  meta_["command"] =
      r.resume && prev.count("command") ? prev["command"] + " ; resumed: " + r.command : r.command;
  csv_ = r.resume ? lm_run_csv_prefix(r.log, optim_.step) : lm_train_csv_header() + "\n";
}

void LmTrainRun::save() {
  // The curve first: killed between the two writes, the checkpoint is the older one and a
  // resume recomputes the rows past it (lm_run_csv_prefix drops them). The other order lost
  // the row of a checkpoint whose CSV write never happened, for good.
  write_file_atomically(request_.log, csv_);
  lm_checkpoint_save(request_.output, model_.config(), model_.params, optim_.step,
                     settings_.scaling, &optim_, meta_);
  saved_step_ = optim_.step;
}

bool LmTrainRun::step(const std::function<void(const lm::LmTrainRow&)>& on_row,
                      const std::function<void(int64_t, double)>& on_step) {
  if (!loop_) loop_ = lm::lm_train_begin(model_, optim_, settings_);
  auto row = [&](const lm::LmTrainRow& r) {
    last_ = r;
    csv_ += lm::lm_train_csv_row(r) + "\n";
    save();
    if (on_row) on_row(r);
  };
  return lm::lm_train_step(model_, optim_, settings_, corpus_, *loop_, row, on_step);
}

void LmTrainRun::stopped() {
  // Stopped between rows: keep the step it reached (a resumed run equals an unbroken one).
  if (optim_.step > first_step_ && optim_.step != saved_step_) save();
}

bool LmTrainRun::train(const std::atomic<bool>* cancel,
                       const std::function<void(const lm::LmTrainRow&)>& on_row,
                       const std::function<void(int64_t, double)>& on_step) {
  if (!loop_) loop_ = lm::lm_train_begin(model_, optim_, settings_);
  while (optim_.step < settings_.steps) {
    if (cancel && cancel->load()) {
      stopped();
      return false;
    }
    step(on_row, on_step);
  }
  return true;
}

}  // namespace poslab::io
