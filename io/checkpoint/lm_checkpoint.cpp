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
#include "io/checkpoint/model_checkpoint.hpp"

namespace poslab::io {

std::string lm_config_to_json(const lm::LmConfig& c) {
  nlohmann::ordered_json j;
  config_json_common(j, c, lm::lm_position_name(c.position));
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

namespace {

const CheckpointFormat kLmFormat{
    kLmCheckpointFormat, kLmCheckpointVersion, "a PosLab byte language model",
    "retrain it",        "bad metadata: ",
    /*swa=*/false,       kLmMaxWeight};

}  // namespace

TensorLayout lm_tensor_layout(const lm::LmConfig& c) {
  return tensor_layout_of(lm::lm_param_layout(c));
}

namespace {

LmCheckpoint lm_checkpoint_from(const SafetensorsFile& f) {
  checkpoint_require_format(f, kLmFormat);
  LmCheckpoint ck;
  checkpoint_parse_meta(f, kLmFormat, [&] {
    ck.config = lm_config_from_json(f.meta("config"));
    ck.scaling = lm_scaling_from_json(f.meta("scaling"));
    return 0;
  });
  const TensorLayout model = lm_tensor_layout(ck.config);
  const CheckpointHeader h = checkpoint_inspect(f, kLmFormat, model, lm::lm_param_count(ck.config));
  ck.metadata = h.metadata;
  ck.step = h.step;
  if (f.header_only()) return ck;
  CheckpointTensors t = checkpoint_read_tensors(f, kLmFormat, model, h);
  ck.params = std::move(t.params);
  ck.optim = std::move(t.optim);
  return ck;
}

}  // namespace

void lm_checkpoint_save(const std::string& path, const lm::LmConfig& c,
                        std::span<const float> params, int64_t step, const lm::LmScaling& scaling,
                        const nn::AdamWState* optim, const TensorMetadata& extra) {
  TensorMetadata meta = extra;
  meta["scaling"] = lm_scaling_to_json(scaling);
  checkpoint_save(path, kLmFormat, lm_tensor_layout(c), lm_config_to_json(c), params, step, optim,
                  std::move(meta));
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
