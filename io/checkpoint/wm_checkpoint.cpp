// World-model checkpoints and training data files (see wm_checkpoint.hpp).
#include "io/checkpoint/wm_checkpoint.hpp"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
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
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError("config is not a JSON object: " + text.substr(0, 80));
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
  if (!j.contains("position") || !j["position"].is_string())
    throw InputError("config field 'position' is missing or not a string");
  c.position = wm::wm_position_from_name(j["position"].get<std::string>());
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
    c.state_base = wm::wm_state_base_from_name(j["state_base"].get<std::string>());
  }
  if (j.contains("state_loss")) {  // optional: absent means "raw"
    if (!j["state_loss"].is_string()) throw InputError("config field 'state_loss' is not a string");
    c.state_loss = wm::wm_state_loss_from_name(j["state_loss"].get<std::string>());
  }
  for (const auto& [k, v] : j.items())
    if (k != "embed" && k != "heads" && k != "layers" && k != "context" && k != "position" &&
        k != "rope_base" && k != "state_scale" && k != "state_base" && k != "state_loss")
      throw InputError("config field '" + k + "' is unknown (checkpoint of a newer PosLab?)");
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
    throw FileError(f.path(), "format is '" + f.meta("format") + "', not a PosLab world model");
  if (f.meta("format_version") != std::to_string(kWmCheckpointVersion))
    throw FileError(f.path(), "format_version " + f.meta("format_version") +
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

int64_t meta_int(const SafetensorsFile& f, const std::string& key) {
  const std::string& s = f.meta(key);
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || v < 0)
    throw FileError(f.path(), "metadata '" + key + "' = '" + s + "' is not a non-negative integer");
  return v;
}

}  // namespace

WmCheckpoint wm_checkpoint_load(const std::string& path) {
  const auto f = SafetensorsFile::open(path);
  WmCheckpoint ck;
  ck.config = wm_checkpoint_config(f);
  ck.metadata = f.metadata();
  ck.step = meta_int(f, "step");
  const size_t P = wm::wm_param_count(ck.config);
  if (meta_int(f, "param_count") != static_cast<int64_t>(P))
    throw FileError(path, "param_count " + f.meta("param_count") + " does not match its config (" +
                              std::to_string(P) + ")");
  const TensorLayout model = wm_tensor_layout(ck.config);
  ck.params.assign(P, 0.0f);
  const bool has_optim = f.find("optim.m." + model.front().name) != nullptr;
  const bool has_swa = f.find("optim.swa." + model.front().name) != nullptr;
  TensorLayout optional;
  std::vector<float> opt_flat;
  if (has_optim) {
    for (const char* prefix : {"optim.m.", "optim.v.", "optim.swa."}) {
      const size_t shift = optional.size() / model.size() * P;
      for (auto t : prefixed(model, prefix)) {
        t.offset += shift;
        optional.push_back(t);
      }
    }
    opt_flat.assign(3 * P, 0.0f);
  }
  f.load(model, ck.params, optional, opt_flat);
  if (has_optim) {
    // Every moment tensor must be there (optional only means "not in every file").
    for (size_t i = 0; i < optional.size(); ++i)
      if (f.find(optional[i].name) == nullptr && (i < 2 * model.size() || has_swa))
        throw FileError(path, "checkpoint lacks optimiser tensor '" + optional[i].name + "'");
    nn::AdamWState s;
    s.step = meta_int(f, "optim_step");
    s.m.assign(opt_flat.begin(), opt_flat.begin() + static_cast<long>(P));
    s.v.assign(opt_flat.begin() + static_cast<long>(P),
               opt_flat.begin() + static_cast<long>(2 * P));
    if (has_swa) {
      s.swa.assign(opt_flat.begin() + static_cast<long>(2 * P), opt_flat.end());
      s.swa_count = meta_int(f, "optim_swa_count");
    }
    if (s.step != ck.step)
      throw FileError(path, "optimiser step and model step differ (damaged file?)");
    ck.optim = std::move(s);
  }
  for (float x : ck.params)
    if (!std::isfinite(x)) throw FileError(path, "holds non-finite weights (a diverged run?)");
  return ck;
}

std::vector<bnb::EpisodeRecord> wm_load_episodes(const std::vector<std::string>& paths,
                                                 std::vector<EpisodeSource>* sources) {
  std::vector<bnb::EpisodeRecord> out;
  if (paths.empty())
    throw InputError("no dataset files given (make one with `poslab-cli collect`)");
  for (const auto& path : paths) {
    BnbDatasetReader reader(path);
    EpisodeSource src{path, reader.info().num_episodes, static_cast<int64_t>(out.size())};
    for (auto& rec : reader.read_all_episodes()) out.push_back(std::move(rec));
    if (sources) sources->push_back(src);
  }
  return out;
}

}  // namespace poslab::io
