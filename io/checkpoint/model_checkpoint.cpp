// The model-generic half of PosLab's checkpoints (see model_checkpoint.hpp).
#include "io/checkpoint/model_checkpoint.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/common/excerpt.hpp"

namespace poslab::io {

TensorLayout tensor_layout_of(const nn::ParamLayout& layout) {
  TensorLayout out;
  for (const auto& t : layout.tensors)
    out.push_back({t.name, std::vector<int64_t>(t.shape.begin(), t.shape.end()), t.offset});
  return out;
}

namespace {

// The optimiser's tensors: m, v (and swa) of every model tensor, P floats apart from `first`.
TensorLayout optim_layout(const TensorLayout& model, size_t P, size_t first, bool swa) {
  TensorLayout out;
  size_t shift = first;
  for (const char* prefix : {"optim.m.", "optim.v.", "optim.swa."}) {
    if (!swa && std::string(prefix) == "optim.swa.") break;
    for (auto t : model) {
      t.name = prefix + t.name;
      t.offset += shift;
      out.push_back(t);
    }
    shift += P;
  }
  return out;
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

}  // namespace

void checkpoint_save(const std::string& path, const CheckpointFormat& fmt,
                     const TensorLayout& model, const std::string& config_json,
                     std::span<const float> params, int64_t step, const nn::AdamWState* optim,
                     TensorMetadata meta) {
  size_t P = 0;
  for (const auto& t : model) P += static_cast<size_t>(tensor_numel(t.shape));
  if (params.size() != P) throw InputError("checkpoint: parameter count does not match the config");
  meta["format"] = fmt.format;
  meta["format_version"] = std::to_string(fmt.version);
  meta["config"] = config_json;
  meta["step"] = std::to_string(step);
  meta["param_count"] = std::to_string(P);
  meta.erase("optim_step");
  if (fmt.swa) meta.erase("optim_swa_count");
  if (!optim) {
    safetensors_save(path, model, params, meta);
    return;
  }
  // One flat buffer: params, m, v (and swa), so one layout describes the whole file.
  const bool swa = fmt.swa && optim->swa.size() == P;
  std::vector<float> flat;
  flat.reserve(P * (swa ? 4 : 3));
  flat.insert(flat.end(), params.begin(), params.end());
  flat.insert(flat.end(), optim->m.begin(), optim->m.end());
  flat.insert(flat.end(), optim->v.begin(), optim->v.end());
  if (swa) flat.insert(flat.end(), optim->swa.begin(), optim->swa.end());
  TensorLayout all = model;
  const TensorLayout opt = optim_layout(model, P, P, swa);
  all.insert(all.end(), opt.begin(), opt.end());
  meta["optim_step"] = std::to_string(optim->step);
  if (fmt.swa) meta["optim_swa_count"] = std::to_string(optim->swa_count);
  safetensors_save(path, all, flat, meta);
}

void checkpoint_require_format(const SafetensorsFile& f, const CheckpointFormat& fmt) {
  if (f.meta("format") != fmt.format)
    throw FileError(f.path(),
                    "format is '" + error_excerpt(f.meta("format")) + "', not " + fmt.model);
  if (f.meta("format_version") != std::to_string(fmt.version))
    throw FileError(f.path(), "format_version " + error_excerpt(f.meta("format_version")) +
                                  " (this PosLab reads " + std::to_string(fmt.version) + "; " +
                                  fmt.old_version + ")");
}

int64_t checkpoint_meta_int(const SafetensorsFile& f, const std::string& key, int64_t max) {
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

CheckpointHeader checkpoint_inspect(const SafetensorsFile& f, const CheckpointFormat& fmt,
                                    const TensorLayout& model, size_t param_count) {
  CheckpointHeader h;
  h.metadata = f.metadata();
  h.step = checkpoint_meta_int(f, "step");
  h.param_count = param_count;
  h.file_bytes = f.file_bytes();
  if (checkpoint_meta_int(f, "param_count") != static_cast<int64_t>(param_count))
    throw FileError(f.path(), "param_count " + error_excerpt(f.meta("param_count")) +
                                  " does not match its config (" + std::to_string(param_count) +
                                  ")");
  // Every tensor's name and shape against the config; SafetensorsFile has already checked
  // each byte range against the file, so a config the file cannot hold fails here.
  h.has_optim = f.find("optim.m." + model.front().name) != nullptr;
  h.has_swa = fmt.swa && f.find("optim.swa." + model.front().name) != nullptr;
  const TensorLayout optional =
      h.has_optim ? optim_layout(model, param_count, 0, fmt.swa) : TensorLayout{};
  f.check(model, optional);
  if (h.has_optim) {
    // Every moment tensor must be there (optional only means "not in every file").
    for (size_t i = 0; i < optional.size(); ++i)
      if (f.find(optional[i].name) == nullptr && (i < 2 * model.size() || h.has_swa))
        throw FileError(f.path(), "checkpoint lacks optimiser tensor '" + optional[i].name + "'");
    if (checkpoint_meta_int(f, "optim_step") != h.step)
      throw FileError(f.path(), "optimiser step and model step differ (damaged file?)");
    if (h.has_swa) (void)checkpoint_meta_int(f, "optim_swa_count");
  }
  return h;
}

CheckpointTensors checkpoint_read_tensors(const SafetensorsFile& f, const CheckpointFormat& fmt,
                                          const TensorLayout& model, const CheckpointHeader& h) {
  const size_t P = h.param_count;
  const auto at = [](size_t i) { return static_cast<std::ptrdiff_t>(i); };
  CheckpointTensors out;
  out.params.assign(P, 0.0f);
  const TensorLayout optional = h.has_optim ? optim_layout(model, P, 0, fmt.swa) : TensorLayout{};
  std::vector<float> opt_flat(optional.size() / model.size() * P, 0.0f);
  f.load(model, out.params, optional, opt_flat);  // an absent SWA average is left zero
  require_sane_values(f.path(), model, out.params, "", fmt.max_weight);
  if (!h.has_optim) return out;
  nn::AdamWState s;
  s.step = h.step;
  s.m.assign(opt_flat.begin(), opt_flat.begin() + at(P));
  s.v.assign(opt_flat.begin() + at(P), opt_flat.begin() + at(2 * P));
  require_sane_values(f.path(), model, s.m, "optim.m.", std::numeric_limits<float>::max());
  require_sane_values(f.path(), model, s.v, "optim.v.", std::numeric_limits<float>::max());
  for (float x : s.v)
    if (x < 0) throw FileError(f.path(), "optimiser tensor 'optim.v.*' holds a negative value");
  if (h.has_swa) {
    s.swa.assign(opt_flat.begin() + at(2 * P), opt_flat.begin() + at(3 * P));
    s.swa_count = checkpoint_meta_int(f, "optim_swa_count");
    require_sane_values(f.path(), model, s.swa, "optim.swa.", fmt.max_weight);
  }
  out.optim = std::move(s);
  return out;
}

}  // namespace poslab::io
