// World-model checkpoints and training data files (see wm_checkpoint.hpp).
#include "io/checkpoint/wm_checkpoint.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::io {

std::string wm_config_to_json(const wm::WmConfig& c) {
  nlohmann::ordered_json j;
  j["embed"] = c.embed;
  j["heads"] = c.heads;
  j["layers"] = c.layers;
  j["context"] = c.context;
  j["position"] = wm::wm_position_name(c.position);
  j["rope_base"] = c.rope_base;
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

TensorLayout wm_tensor_layout(const wm::WmConfig& c) {
  TensorLayout out;
  for (const auto& t : wm::wm_param_layout(c).tensors)
    out.push_back({t.name, std::vector<int64_t>(t.shape.begin(), t.shape.end()), t.offset});
  return out;
}

namespace {

TensorLayout prefixed(const TensorLayout& l, const std::string& prefix) {
  TensorLayout out = l;
  for (auto& t : out) t.name = prefix + t.name;
  return out;
}

}  // namespace

void wm_checkpoint_save(const std::string& path, const wm::WmConfig& c,
                        std::span<const float> params, int64_t step, const nn::AdamWState* optim,
                        const TensorMetadata& extra) {
  const TensorLayout model = wm_tensor_layout(c);
  const size_t P = wm::wm_param_count(c);
  if (params.size() != P) throw InputError("checkpoint: parameter count does not match the config");
  TensorMetadata meta = extra;
  meta["format"] = kWmCheckpointFormat;
  meta["format_version"] = std::to_string(kWmCheckpointVersion);
  meta["config"] = wm_config_to_json(c);
  meta["step"] = std::to_string(step);
  meta["param_count"] = std::to_string(P);
  if (!optim) {
    meta.erase("optim_step");
    meta.erase("optim_swa_count");
    safetensors_save(path, model, params, meta);
    return;
  }
  // One flat buffer: params, m, v (and swa), so one layout describes the whole file.
  const bool swa = optim->swa.size() == P;
  std::vector<float> flat;
  flat.reserve(P * (swa ? 4 : 3));
  flat.insert(flat.end(), params.begin(), params.end());
  flat.insert(flat.end(), optim->m.begin(), optim->m.end());
  flat.insert(flat.end(), optim->v.begin(), optim->v.end());
  if (swa) flat.insert(flat.end(), optim->swa.begin(), optim->swa.end());
  TensorLayout all = model;
  const auto add = [&](const std::string& prefix, size_t shift) {
    for (auto t : prefixed(model, prefix)) {
      t.offset += shift;
      all.push_back(t);
    }
  };
  add("optim.m.", P);
  add("optim.v.", 2 * P);
  if (swa) add("optim.swa.", 3 * P);
  meta["optim_step"] = std::to_string(optim->step);
  meta["optim_swa_count"] = std::to_string(optim->swa_count);
  safetensors_save(path, all, flat, meta);
}

wm::WmConfig wm_checkpoint_config(const SafetensorsFile& f) {
  if (f.meta("format") != kWmCheckpointFormat)
    throw FileError(
        f.path(), "format is '" + error_excerpt(f.meta("format")) + "', not a PosLab world model");
  if (f.meta("format_version") != std::to_string(kWmCheckpointVersion))
    throw FileError(f.path(), "format_version " + error_excerpt(f.meta("format_version")) +
                                  " (this PosLab reads " + std::to_string(kWmCheckpointVersion) +
                                  "; retrain or convert it)");
  try {
    return wm_config_from_json(f.meta("config"));
  } catch (const FileError&) {
    throw;
  } catch (const Error& e) {
    throw FileError(f.path(), std::string("bad config in metadata: ") + e.what());
  }
}

namespace {

// A metadata integer: decimal digits only (no sign, space or exponent), at most `max`.
int64_t meta_int(const SafetensorsFile& f, const std::string& key,
                 int64_t max = std::numeric_limits<int64_t>::max()) {
  const std::string& s = f.meta(key);
  int64_t v = 0;
  const bool digits =
      !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  const auto [end, ec] = digits ? std::from_chars(s.data(), s.data() + s.size(), v)
                                : std::from_chars_result{s.data(), std::errc::invalid_argument};
  if (ec != std::errc() || end != s.data() + s.size() || v > max)
    throw FileError(f.path(), "metadata '" + key + "' = '" + error_excerpt(s) +
                                  "' is not a whole number in [0, " + std::to_string(max) + "]");
  return v;
}

// Name of the tensor holding flat index i of `layout` (for error messages).
std::string tensor_at(const TensorLayout& layout, size_t i) {
  for (const auto& t : layout)
    if (i >= t.offset && i < t.offset + static_cast<size_t>(tensor_numel(t.shape))) return t.name;
  return "?";
}

void require_sane_values(const std::string& path, const TensorLayout& layout,
                         std::span<const float> values, const char* prefix, float limit) {
  for (size_t i = 0; i < values.size(); ++i)
    if (!(std::abs(values[i]) <= limit)) {
      char v[96];
      if (std::isfinite(values[i]))
        std::snprintf(v, sizeof v, "%g, beyond +-%g", static_cast<double>(values[i]),
                      static_cast<double>(limit));
      else
        std::snprintf(v, sizeof v, "%g", static_cast<double>(values[i]));
      throw FileError(path, std::string("tensor '") + prefix + tensor_at(layout, i) + "' holds " +
                                v + " (a diverged run or a damaged file; retrain it)");
    }
}

// The optimiser tensors' layout: m, v and swa of every model tensor, each P floats apart.
TensorLayout optim_layout(const TensorLayout& model, size_t P) {
  TensorLayout optional;
  size_t shift = 0;
  for (const char* prefix : {"optim.m.", "optim.v.", "optim.swa."}) {
    for (auto t : prefixed(model, prefix)) {
      t.offset += shift;
      optional.push_back(t);
    }
    shift += P;
  }
  return optional;
}

}  // namespace

WmCheckpointPeek wm_checkpoint_inspect(const SafetensorsFile& f) {
  WmCheckpointPeek p;
  p.config = wm_checkpoint_config(f);  // wm_validate: ranges and the parameter budget
  p.metadata = f.metadata();
  p.step = meta_int(f, "step");
  p.param_count = wm::wm_param_count(p.config);
  p.file_bytes = f.file_bytes();
  if (meta_int(f, "param_count") != static_cast<int64_t>(p.param_count))
    throw FileError(f.path(), "param_count " + error_excerpt(f.meta("param_count")) +
                                  " does not match its config (" + std::to_string(p.param_count) +
                                  ")");
  // Every tensor's name and shape against the config; SafetensorsFile has already checked
  // each byte range against the file, so a config the file cannot hold fails here.
  const TensorLayout model = wm_tensor_layout(p.config);
  p.has_optim = f.find("optim.m." + model.front().name) != nullptr;
  p.has_swa = f.find("optim.swa." + model.front().name) != nullptr;
  const TensorLayout optional = p.has_optim ? optim_layout(model, p.param_count) : TensorLayout{};
  f.check(model, optional);
  if (p.has_optim) {
    // Every moment tensor must be there (optional only means "not in every file").
    for (size_t i = 0; i < optional.size(); ++i)
      if (f.find(optional[i].name) == nullptr && (i < 2 * model.size() || p.has_swa))
        throw FileError(f.path(), "checkpoint lacks optimiser tensor '" + optional[i].name + "'");
    if (meta_int(f, "optim_step") != p.step)
      throw FileError(f.path(), "optimiser step and model step differ (damaged file?)");
    if (p.has_swa) (void)meta_int(f, "optim_swa_count");
  }
  return p;
}

WmCheckpointPeek wm_checkpoint_peek(const std::string& path) {
  return wm_checkpoint_inspect(SafetensorsFile::open_header(path));
}

WmCheckpoint wm_checkpoint_load(const std::string& path) {
  // Only the header first: nothing is read or allocated for a file that cannot be a model.
  (void)wm_checkpoint_peek(path);
  const auto f = SafetensorsFile::open(path);
  const WmCheckpointPeek p = wm_checkpoint_inspect(f);  // the file may have changed since
  WmCheckpoint ck;
  ck.config = p.config;
  ck.metadata = p.metadata;
  ck.step = p.step;
  const size_t P = p.param_count;
  const TensorLayout model = wm_tensor_layout(ck.config);
  ck.params.assign(P, 0.0f);
  const TensorLayout optional = p.has_optim ? optim_layout(model, P) : TensorLayout{};
  std::vector<float> opt_flat(p.has_optim ? 3 * P : 0, 0.0f);
  f.load(model, ck.params, optional, opt_flat);
  require_sane_values(path, model, ck.params, "", kWmMaxWeight);
  if (p.has_optim) {
    nn::AdamWState s;
    s.step = meta_int(f, "optim_step");
    s.m.assign(opt_flat.begin(), opt_flat.begin() + static_cast<long>(P));
    s.v.assign(opt_flat.begin() + static_cast<long>(P),
               opt_flat.begin() + static_cast<long>(2 * P));
    require_sane_values(path, model, s.m, "optim.m.", std::numeric_limits<float>::max());
    require_sane_values(path, model, s.v, "optim.v.", std::numeric_limits<float>::max());
    if (p.has_swa) {
      s.swa.assign(opt_flat.begin() + static_cast<long>(2 * P), opt_flat.end());
      s.swa_count = meta_int(f, "optim_swa_count");
      require_sane_values(path, model, s.swa, "optim.swa.", kWmMaxWeight);
    }
    ck.optim = std::move(s);
  }
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
