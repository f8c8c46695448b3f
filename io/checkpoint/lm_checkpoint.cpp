// Language-model checkpoints and training text (see lm_checkpoint.hpp).
#include "io/checkpoint/lm_checkpoint.hpp"

#include <sys/stat.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"

namespace poslab::io {

std::string lm_config_to_json(const lm::LmConfig& c) {
  nlohmann::ordered_json j;
  j["embed"] = c.embed;
  j["heads"] = c.heads;
  j["layers"] = c.layers;
  j["context"] = c.context;
  j["position"] = lm::lm_position_name(c.position);
  j["rope_base"] = c.rope_base;
  j["t5_buckets"] = c.t5_buckets;
  j["t5_max_distance"] = c.t5_max_distance;
  return j.dump();
}

namespace {

nlohmann::json lm_json_object(const std::string& text, const char* what) {
  if (json_nesting_depth(text) > kSafetensorsMaxDepth)
    throw InputError(std::string(what) + " is nested too deeply: " + error_excerpt(text));
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError(std::string(what) + " is not a JSON object: " + error_excerpt(text));
  return j;
}

int lm_json_int(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer())
    throw InputError(std::string("config field '") + key + "' is missing or not an integer");
  const auto v = j[key].get<int64_t>();
  if (v < 0 || v > 10000000)
    throw InputError(std::string("config field '") + key + "' = " + std::to_string(v) +
                     " is out of range");
  return static_cast<int>(v);
}

std::string lm_json_name(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string())
    throw InputError(std::string("field '") + key + "' is missing or not a string");
  const std::string v = j[key].get<std::string>();
  return v.size() <= 40 ? v : error_excerpt(v);
}

}  // namespace

lm::LmConfig lm_config_from_json(const std::string& text) {
  const auto j = lm_json_object(text, "config");
  lm::LmConfig c;
  c.embed = lm_json_int(j, "embed");
  c.heads = lm_json_int(j, "heads");
  c.layers = lm_json_int(j, "layers");
  c.context = lm_json_int(j, "context");
  c.t5_buckets = lm_json_int(j, "t5_buckets");
  c.t5_max_distance = lm_json_int(j, "t5_max_distance");
  c.position = lm::lm_position_from_name(lm_json_name(j, "position"));
  if (!j.contains("rope_base") || !j["rope_base"].is_number())
    throw InputError("config field 'rope_base' is missing or not a number");
  c.rope_base = j["rope_base"].get<double>();
  for (const auto& [k, v] : j.items())
    if (k != "embed" && k != "heads" && k != "layers" && k != "context" && k != "position" &&
        k != "rope_base" && k != "t5_buckets" && k != "t5_max_distance")
      throw InputError("config field '" + error_excerpt(k) +
                       "' is unknown (checkpoint of a newer PosLab?)");
  lm::lm_validate(c);
  return c;
}

std::string lm_scaling_to_json(const lm::LmScaling& s) {
  nlohmann::ordered_json j;
  j["scaling"] = rope_scaling_names()[static_cast<size_t>(s.scaling)];
  j["factor"] = s.factor;
  return j.dump();
}

lm::LmScaling lm_scaling_from_json(const std::string& text) {
  const auto j = lm_json_object(text, "scaling");
  lm::LmScaling s;
  s.scaling = rope_scaling_from_name(lm_json_name(j, "scaling"));
  if (!j.contains("factor") || !j["factor"].is_number())
    throw InputError("scaling field 'factor' is missing or not a number");
  s.factor = j["factor"].get<double>();
  require_in_range("factor", s.factor, lm::LmScaling::factor_range);
  return s;
}

TensorLayout lm_tensor_layout(const lm::LmConfig& c) {
  TensorLayout out;
  for (const auto& t : lm::lm_param_layout(c).tensors)
    out.push_back({t.name, std::vector<int64_t>(t.shape.begin(), t.shape.end()), t.offset});
  return out;
}

namespace {

TensorLayout lm_optim_layout(const TensorLayout& model, size_t P) {
  TensorLayout out;
  size_t shift = P;
  for (const char* prefix : {"optim.m.", "optim.v."}) {
    for (auto t : model) {
      t.name = prefix + t.name;
      t.offset += shift;
      out.push_back(t);
    }
    shift += P;
  }
  return out;
}

int64_t lm_meta_int(const SafetensorsFile& f, const std::string& key) {
  const std::string& s = f.meta(key);
  int64_t v = 0;
  const bool digits =
      !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
  const auto [end, ec] = digits ? std::from_chars(s.data(), s.data() + s.size(), v)
                                : std::from_chars_result{s.data(), std::errc::invalid_argument};
  if (ec != std::errc() || end != s.data() + s.size())
    throw FileError(f.path(),
                    "metadata '" + key + "' = '" + error_excerpt(s) + "' is not a whole number");
  return v;
}

void lm_require_sane(const std::string& path, const TensorLayout& layout,
                     std::span<const float> values, const char* prefix, float limit) {
  for (size_t i = 0; i < values.size(); ++i)
    if (!(std::abs(values[i]) <= limit)) {
      std::string name = "?";
      for (const auto& t : layout)
        if (i >= t.offset && i < t.offset + static_cast<size_t>(tensor_numel(t.shape)))
          name = t.name;
      char v[64];
      std::snprintf(v, sizeof v, "%g", static_cast<double>(values[i]));
      throw FileError(path, std::string("tensor '") + prefix + name + "' holds " + v +
                                " (a diverged run or a damaged file; retrain it)");
    }
}

LmCheckpoint lm_checkpoint_from(const SafetensorsFile& f) {
  if (f.meta("format") != kLmCheckpointFormat)
    throw FileError(f.path(), "format is '" + error_excerpt(f.meta("format")) +
                                  "', not a PosLab byte language model");
  if (f.meta("format_version") != std::to_string(kLmCheckpointVersion))
    throw FileError(f.path(), "format_version " + error_excerpt(f.meta("format_version")) +
                                  " (this PosLab reads " + std::to_string(kLmCheckpointVersion) +
                                  "; retrain it)");
  LmCheckpoint ck;
  try {
    ck.config = lm_config_from_json(f.meta("config"));
    ck.scaling = lm_scaling_from_json(f.meta("scaling"));
  } catch (const FileError&) {
    throw;
  } catch (const Error& e) {
    throw FileError(f.path(), std::string("bad metadata: ") + e.what());
  }
  ck.metadata = f.metadata();
  ck.step = lm_meta_int(f, "step");
  const size_t P = lm::lm_param_count(ck.config);
  if (lm_meta_int(f, "param_count") != static_cast<int64_t>(P))
    throw FileError(f.path(), "param_count " + error_excerpt(f.meta("param_count")) +
                                  " does not match its config (" + std::to_string(P) + ")");
  const TensorLayout model = lm_tensor_layout(ck.config);
  const bool has_optim = f.find("optim.m." + model.front().name) != nullptr;
  const TensorLayout optional = has_optim ? lm_optim_layout(model, P) : TensorLayout{};
  f.check(model, optional);
  for (const auto& t : optional)
    if (f.find(t.name) == nullptr)
      throw FileError(f.path(), "checkpoint lacks optimiser tensor '" + t.name + "'");
  if (f.header_only()) return ck;
  std::vector<float> flat(has_optim ? 3 * P : P, 0.0f);
  TensorLayout all = model;
  all.insert(all.end(), optional.begin(), optional.end());
  f.load(all, flat);
  ck.params.assign(flat.begin(), flat.begin() + static_cast<int64_t>(P));
  lm_require_sane(f.path(), model, ck.params, "", kLmMaxWeight);
  if (has_optim) {
    nn::AdamWState s;
    s.step = lm_meta_int(f, "optim_step");
    if (s.step != ck.step)
      throw FileError(f.path(), "optimiser step and model step differ (damaged file?)");
    s.m.assign(flat.begin() + static_cast<int64_t>(P), flat.begin() + static_cast<int64_t>(2 * P));
    s.v.assign(flat.begin() + static_cast<int64_t>(2 * P), flat.end());
    lm_require_sane(f.path(), model, s.m, "optim.m.", std::numeric_limits<float>::max());
    lm_require_sane(f.path(), model, s.v, "optim.v.", std::numeric_limits<float>::max());
    for (float x : s.v)
      if (x < 0) throw FileError(f.path(), "optimiser tensor 'optim.v.*' holds a negative value");
    ck.optim = std::move(s);
  }
  return ck;
}

}  // namespace

void lm_checkpoint_save(const std::string& path, const lm::LmConfig& c,
                        std::span<const float> params, int64_t step, const lm::LmScaling& scaling,
                        const nn::AdamWState* optim, const TensorMetadata& extra) {
  const TensorLayout model = lm_tensor_layout(c);
  const size_t P = lm::lm_param_count(c);
  if (params.size() != P) throw InputError("checkpoint: parameter count does not match the config");
  TensorMetadata meta = extra;
  meta["format"] = kLmCheckpointFormat;
  meta["format_version"] = std::to_string(kLmCheckpointVersion);
  meta["config"] = lm_config_to_json(c);
  meta["step"] = std::to_string(step);
  meta["param_count"] = std::to_string(P);
  meta["scaling"] = lm_scaling_to_json(scaling);
  meta.erase("optim_step");
  if (!optim) {
    safetensors_save(path, model, params, meta);
    return;
  }
  std::vector<float> flat;
  flat.reserve(3 * P);
  flat.insert(flat.end(), params.begin(), params.end());
  flat.insert(flat.end(), optim->m.begin(), optim->m.end());
  flat.insert(flat.end(), optim->v.begin(), optim->v.end());
  TensorLayout all = model;
  const TensorLayout opt = lm_optim_layout(model, P);
  all.insert(all.end(), opt.begin(), opt.end());
  meta["optim_step"] = std::to_string(optim->step);
  safetensors_save(path, all, flat, meta);
}

LmCheckpoint lm_checkpoint_load(const std::string& path) {
  (void)lm_checkpoint_from(SafetensorsFile::open_header(path));  // nothing read before this
  return lm_checkpoint_from(SafetensorsFile::open(path));
}

lm::LmConfig lm_checkpoint_peek_config(const std::string& path) {
  return lm_checkpoint_from(SafetensorsFile::open_header(path)).config;
}

LmCheckpoint lm_checkpoint_parse(std::string bytes, const std::string& path) {
  return lm_checkpoint_from(SafetensorsFile(std::move(bytes), path));
}

// ---- Training text ------------------------------------------------------------------

std::vector<std::string> lm_default_text_paths() {
  // POSLAB_FORTUNES_DIR: the user's (or a test's) copy of the fortune files' folder.
  const char* env = std::getenv("POSLAB_FORTUNES_DIR");
  const std::string d = env && *env ? std::string(env) + "/" : "/usr/share/games/fortunes/";
  std::vector<std::string> out;
  for (const char* f : {"fortunes", "literature", "riddles", "computers", "science", "people",
                        "wisdom", "humorists", "education", "work", "platitudes", "love", "tao",
                        "startrek", "miscellaneous", "tang300", "song100"})
    out.push_back(d + f);
  return out;
}

LmRecordedText lm_recorded_text(const TensorMetadata& meta) {
  LmRecordedText out;
  const auto it = meta.find("data");
  if (it == meta.end()) {
    out.problem = "it records no training text (metadata 'data' is absent)";
    return out;
  }
  const nlohmann::json j = json_nesting_depth(it->second) > kSafetensorsMaxDepth
                               ? nlohmann::json()
                               : nlohmann::json::parse(it->second, nullptr, false);
  if (!j.is_object()) {
    out.problem = "its metadata 'data' is not a readable JSON object";
    return out;
  }
  if (j.contains("valid_every") && j["valid_every"].is_number_integer()) {
    const int v = j["valid_every"].get<int>();
    if (v >= lm::LmCorpusParams::valid_every_range.lo &&
        v <= lm::LmCorpusParams::valid_every_range.hi)
      out.split.valid_every = v;
  }
  if (!j.contains("files") || !j["files"].is_array()) {
    out.problem = "its metadata 'data' lists no files";
    return out;
  }
  for (const auto& f : j["files"])
    if (f.is_object() && f.contains("path") && f["path"].is_string())
      out.files.push_back(f["path"].get<std::string>());
  if (out.files.empty()) out.problem = "its metadata 'data' lists no readable file path";
  return out;
}

bool lm_known_text_path(const std::string& path) {
  const auto known = lm_default_text_paths();
  return std::find(known.begin(), known.end(), path) != known.end();
}

LmRecordedText lm_recorded_text_checked(const TensorMetadata& meta, const std::string& checkpoint,
                                        const std::string& what_to_do) {
  LmRecordedText r = lm_recorded_text(meta);
  for (size_t i = 0; i < r.files.size(); ++i) {
    const std::string& f = r.files[i];
    if (!lm_known_text_path(f))
      throw FileError(checkpoint, "records its training text as '" + error_excerpt(f, 80) +
                                      "', which is not one of PosLab's own data files (the "
                                      "fortune files); PosLab does not read a file a checkpoint "
                                      "names: " +
                                      what_to_do);
    if (std::find(r.files.begin(), r.files.begin() + static_cast<long>(i), f) !=
        r.files.begin() + static_cast<long>(i))
      throw FileError(checkpoint,
                      "records the training text '" + error_excerpt(f, 80) +
                          "' more than once (a damaged or crafted file): " + what_to_do);
  }
  return r;
}

namespace {

// The first line of a command's output ("" on failure). Paths are quoted for the shell.
std::string lm_command_line(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "";
  char buf[512];
  std::string out;
  if (std::fgets(buf, sizeof buf, p)) out = buf;
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string lm_shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

}  // namespace

std::vector<lm::LmTextFile> lm_read_text_files(const std::vector<std::string>& paths,
                                               std::vector<LmTextSource>* sources) {
  std::vector<lm::LmTextFile> out;
  int64_t total = 0;  // every size checked before anything is read
  for (const std::string& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      throw FileError(path,
                      "is not a readable file (the default text comes from the Debian "
                      "packages fortunes, fortunes-min and fortunes-zh: apt-get install "
                      "fortunes fortunes-min fortunes-zh, or give your own text files)");
    total += st.st_size;
    if (total > kLmTextMaxBytes)
      throw FileError(path,
                      "brings the text files to more than 64 MB together; give fewer or "
                      "smaller text files");
  }
  int64_t read = 0;  // a file that lies about its size (/proc, a growing file) stops here too
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
      text.append(chunk, static_cast<size_t>(in.gcount()));
      read += in.gcount();
      if (read > kLmTextMaxBytes) break;
    }
    if (in.bad()) throw FileError(path, "could not be read");
    if (read > kLmTextMaxBytes)
      throw FileError(path,
                      "brings the text files to more than 64 MB together; give fewer or "
                      "smaller text files");
    out.push_back({path, std::move(text)});
    if (sources) {
      LmTextSource s;
      s.path = path;
      const std::string owner =
          lm_command_line("dpkg-query -S " + lm_shell_quote(path) + " 2>/dev/null");
      const auto colon = owner.find(':');
      if (colon != std::string::npos) {
        s.package = owner.substr(0, colon);
        s.version = lm_command_line("dpkg-query -W -f='${Version}' " + lm_shell_quote(s.package) +
                                    " 2>/dev/null");
      }
      sources->push_back(s);
    }
  }
  return out;
}

}  // namespace poslab::io
