// World-model checkpoints and training data files (see wm_checkpoint.hpp).
#include "io/checkpoint/wm_checkpoint.hpp"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "io/checkpoint/model_checkpoint.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::io {

std::string wm_config_to_json(const wm::WmConfig& c) {
  nlohmann::ordered_json j;
  config_json_common(j, c, wm::wm_position_name(c.position));
  // Written only when not the original model's, so older files and their configs stay as
  // they were (and older PosLabs refuse the new fields by name).
  if (!c.state_scale.empty()) j["state_scale"] = c.state_scale;
  if (c.state_base != wm::WmStateBase::last) j["state_base"] = wm::wm_state_base_name(c.state_base);
  if (c.state_loss != wm::WmStateLoss::raw) j["state_loss"] = wm::wm_state_loss_name(c.state_loss);
  return j.dump();
}

wm::WmConfig wm_config_from_json(const std::string& text) {
  if (json_nesting_depth(text) > kSafetensorsMaxDepth)
    throw InputError("config is nested deeper than " + std::to_string(kSafetensorsMaxDepth) +
                     " levels (a config needs 2): " + error_excerpt(text));
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError("config is not a JSON object: " + error_excerpt(text));
  wm::WmConfig c;
  const auto get_int = [&](const char* key, int& out) {
    if (!j.contains(key) || !j[key].is_number_integer())
      throw InputError(std::string("config field '") + key + "' is missing or not an integer");
    const auto v = j[key].get<int64_t>();
    if (v < 0 || v > 1000000)
      throw InputError(std::string("config field '") + key + "' = " + std::to_string(v) +
                       " is out of range");
    out = static_cast<int>(v);
  };
  get_int("embed", c.embed);
  get_int("heads", c.heads);
  get_int("layers", c.layers);
  get_int("context", c.context);
  // A name is quoted in its error: cut to an excerpt first.
  const auto name = [&](const char* key) {
    const std::string v = j[key].get<std::string>();
    return v.size() <= 40 ? v : error_excerpt(v);
  };
  if (!j.contains("position") || !j["position"].is_string())
    throw InputError("config field 'position' is missing or not a string");
  c.position = wm::wm_position_from_name(name("position"));
  if (!j.contains("rope_base") || !j["rope_base"].is_number())
    throw InputError("config field 'rope_base' is missing or not a number");
  c.rope_base = j["rope_base"].get<double>();
  if (j.contains("state_scale")) {  // optional: absent means ones (the original model)
    const auto& a = j["state_scale"];
    if (!a.is_array() || a.size() != wm::kTokenDim)
      throw InputError("config field 'state_scale' is not an array of " +
                       std::to_string(wm::kTokenDim) + " numbers");
    for (const auto& v : a) {
      if (!v.is_number()) throw InputError("config field 'state_scale' holds a non-number");
      // A double beyond float's range has no float value (converting it is undefined): it
      // becomes an infinity of its sign, which wm_validate rejects naming the value.
      const double d = v.get<double>();
      c.state_scale.push_back(std::abs(d) <= std::numeric_limits<float>::max()
                                  ? static_cast<float>(d)
                                  : std::copysign(std::numeric_limits<float>::infinity(), d));
    }
  }
  if (j.contains("state_base")) {  // optional: absent means "last"
    if (!j["state_base"].is_string()) throw InputError("config field 'state_base' is not a string");
    c.state_base = wm::wm_state_base_from_name(name("state_base"));
  }
  if (j.contains("state_loss")) {  // optional: absent means "raw"
    if (!j["state_loss"].is_string()) throw InputError("config field 'state_loss' is not a string");
    c.state_loss = wm::wm_state_loss_from_name(name("state_loss"));
  }
  for (const auto& [k, v] : j.items())
    if (k != "embed" && k != "heads" && k != "layers" && k != "context" && k != "position" &&
        k != "rope_base" && k != "state_scale" && k != "state_base" && k != "state_loss")
      throw InputError("config field '" + error_excerpt(k) +
                       "' is unknown (checkpoint of a newer PosLab?)");
  wm::wm_validate(c);
  return c;
}

namespace {

const CheckpointFormat kWmFormat{kWmCheckpointFormat,
                                 kWmCheckpointVersion,
                                 "a PosLab world model",
                                 "retrain or convert it",
                                 "bad config in metadata: ",
                                 /*swa=*/true,
                                 kWmMaxWeight};

}  // namespace

TensorLayout wm_tensor_layout(const wm::WmConfig& c) {
  return tensor_layout_of(wm::wm_param_layout(c));
}

void wm_checkpoint_save(const std::string& path, const wm::WmConfig& c,
                        std::span<const float> params, int64_t step, const nn::AdamWState* optim,
                        const TensorMetadata& extra) {
  checkpoint_save(path, kWmFormat, wm_tensor_layout(c), wm_config_to_json(c), params, step, optim,
                  extra);
}

wm::WmConfig wm_checkpoint_config(const SafetensorsFile& f) {
  checkpoint_require_format(f, kWmFormat);
  return checkpoint_parse_meta(f, kWmFormat, [&] { return wm_config_from_json(f.meta("config")); });
}

namespace {

WmCheckpointPeek peek_of(const wm::WmConfig& c, const CheckpointHeader& h) {
  WmCheckpointPeek p;
  static_cast<CheckpointHeader&>(p) = h;
  p.config = c;
  return p;
}

}  // namespace

WmCheckpointPeek wm_checkpoint_inspect(const SafetensorsFile& f) {
  const wm::WmConfig c = wm_checkpoint_config(f);  // wm_validate: ranges and the parameter budget
  return peek_of(c, checkpoint_inspect(f, kWmFormat, wm_tensor_layout(c), wm::wm_param_count(c)));
}

WmCheckpointPeek wm_checkpoint_peek(const std::string& path) {
  return wm_checkpoint_inspect(SafetensorsFile::open_header(path));
}

WmCheckpoint wm_checkpoint_load(const std::string& path) {
  // Only the header first: nothing is read or allocated for a file that cannot be a model.
  (void)wm_checkpoint_peek(path);
  const auto f = SafetensorsFile::open(path);  // the file may have changed since
  WmCheckpoint ck;
  ck.config = wm_checkpoint_config(f);
  const TensorLayout model = wm_tensor_layout(ck.config);
  const CheckpointHeader h = checkpoint_inspect(f, kWmFormat, model, wm::wm_param_count(ck.config));
  CheckpointTensors t = checkpoint_read_tensors(f, kWmFormat, model, h);
  ck.step = h.step;
  ck.metadata = h.metadata;
  ck.params = std::move(t.params);
  ck.optim = std::move(t.optim);
  return ck;
}

namespace {

// Recorded JSON metadata: bounded nesting, then parsed; absent means an empty object.
nlohmann::json recorded_json(const TensorMetadata& meta, const std::string& key,
                             const std::string& path) {
  const auto it = meta.find(key);
  if (it == meta.end()) return nlohmann::json::object();
  nlohmann::json j;
  if (json_nesting_depth(it->second) <= kSafetensorsMaxDepth)
    j = nlohmann::json::parse(it->second, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw FileError(path, "metadata '" + key + "' is not a JSON object of at most " +
                              std::to_string(kSafetensorsMaxDepth) +
                              " levels: " + error_excerpt(it->second));
  return j;
}

[[noreturn]] void bad_recorded(const std::string& path, const std::string& key,
                               const nlohmann::json& v, const std::string& want) {
  throw FileError(path, "recorded " + key + " = " + error_excerpt(v.dump()) + " is not " + want +
                            " (a damaged or edited checkpoint)");
}

// A recorded integer checked against [lo, hi] while still JSON (1e10 is not converted).
template <class Int>
void recorded_int(const nlohmann::json& j, const char* key, const std::string& path, Int& out,
                  int64_t lo, int64_t hi) {
  if (!j.contains(key)) return;
  const auto& v = j[key];
  const std::string want =
      "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(hi)) bad_recorded(path, key, v, want);
  } else if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    bad_recorded(path, key, v, want);
  }
  out = static_cast<Int>(v.get<int64_t>());
}

void recorded_real(const nlohmann::json& j, const char* key, const std::string& path, double& out,
                   double lo, double hi) {
  if (!j.contains(key)) return;
  const auto& v = j[key];
  if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
    bad_recorded(path, key, v,
                 "a number in [" + error_excerpt(nlohmann::json(lo).dump()) + ", " +
                     error_excerpt(nlohmann::json(hi).dump()) + "]");
  out = v.get<double>();
}

}  // namespace

WmRecordedData wm_recorded_data(const TensorMetadata& meta, const std::string& path) {
  const auto j = recorded_json(meta, "data", path);
  WmRecordedData d;
  if (j.contains("files")) {
    if (!j["files"].is_array()) bad_recorded(path, "files", j["files"], "a list of files");
    for (const auto& f : j["files"]) {
      if (!f.is_object() || !f.contains("path") || !f["path"].is_string())
        bad_recorded(path, "files", f, "an object with a \"path\"");
      d.files.push_back(f["path"].get<std::string>());
    }
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned())
      bad_recorded(path, "seed", j["seed"], "a whole number in [0, 18446744073709551615]");
    d.seed = j["seed"].get<uint64_t>();
  }
  if (j.contains("val_fraction")) {
    double v = 0;
    recorded_real(j, "val_fraction", path, v, wm::WmDataParams::val_fraction_range.lo,
                  wm::WmDataParams::val_fraction_range.hi);
    d.val_fraction = v;
  }
  return d;
}

void wm_recorded_training(const TensorMetadata& meta, const std::string& path, wm::WmDataParams& dp,
                          nn::AdamWParams& ap) {
  const auto t = recorded_json(meta, "training", path);
  using R = wm::WmDataParams;
  const auto lo = [](const ParamRange& r) { return static_cast<int64_t>(r.lo); };
  const auto hi = [](const ParamRange& r) { return static_cast<int64_t>(r.hi); };
  recorded_int(t, "batch", path, dp.batch, lo(R::batch_range), hi(R::batch_range));
  recorded_int(t, "short_steps", path, dp.short_steps, lo(R::steps_range), hi(R::steps_range));
  recorded_int(t, "long_steps", path, dp.long_steps, lo(R::steps_range), hi(R::steps_range));
  recorded_int(t, "long_every", path, dp.long_every, lo(R::long_every_range),
               hi(R::long_every_range));
  recorded_real(t, "lr", path, ap.lr, nn::AdamWParams::lr_range.lo, nn::AdamWParams::lr_range.hi);
  recorded_int(t, "warmup_steps", path, ap.warmup_steps, lo(nn::AdamWParams::warmup_range),
               hi(nn::AdamWParams::warmup_range));
  recorded_real(t, "weight_decay", path, ap.weight_decay, 0.0, 1.0);
  recorded_int(t, "swa_start", path, ap.swa_start, -1, 1000000000);
  recorded_int(t, "swa_every", path, ap.swa_every, 1, 1000000);
}

std::vector<bnb::EpisodeRecord> wm_load_episodes(const std::vector<std::string>& paths,
                                                 std::vector<EpisodeSource>* sources) {
  std::vector<bnb::EpisodeRecord> out;
  if (paths.empty())
    throw InputError("no dataset files given (make one with `poslab-cli collect`)");
  for (const auto& path : paths) {
    BnbDatasetReader reader(path);
    EpisodeSource src{path, reader.info().num_episodes, static_cast<int64_t>(out.size())};
    int64_t e = 0;
    for (auto& rec : reader.read_all_episodes()) {
      // Named here, with the file: a value of 1e30 would otherwise end training in NaNs.
      if (const std::string bad =
              bnb::token_problem(rec.tokens.data(), static_cast<size_t>(rec.rows));
          rec.tokens.size() == static_cast<size_t>(rec.rows) * wm::kShips * wm::kTokenDim &&
          !bad.empty())
        throw FileError(path, "episode " + std::to_string(e) + ", " + bad +
                                  ": token values must be finite and within +-" +
                                  std::to_string(static_cast<int>(bnb::kTokenMaxAbs)) +
                                  " (a damaged or edited dataset)");
      out.push_back(std::move(rec));
      ++e;
    }
    if (sources) sources->push_back(src);
  }
  return out;
}

}  // namespace poslab::io
