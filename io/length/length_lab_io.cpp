// The length lab's models and held-out text from disk, and its numbers as JSON (see
// length_lab_io.hpp). The JSON is built here once; the CLI prints it and the panel exports it.
#include "io/length/length_lab_io.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/common/errors.hpp"
#include "core/lm/lm_budget.hpp"
#include "core/lm/lm_own.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"
#include "io/data/data_dir.hpp"
#include "io/files/atomic_file.hpp"
#include "io/files/user_dirs.hpp"

namespace poslab::io {

using namespace poslab::lm;

std::string length_model_path(LengthModelId id) {
  return (std::filesystem::path(models_dir()) /
          ("lm_" + std::string(length_model_name(id)) + ".safetensors"))
      .string();
}

namespace {

// The text files and split a checkpoint's "data" metadata records; the defaults when it
// records none (a model trained by an older command). A record naming any file that is not
// PosLab's own is refused (lm_recorded_text_checked), naming `model`.
void length_recorded_text(const TensorMetadata& meta, const std::string& model,
                          std::vector<std::string>& paths, LmCorpusParams& split,
                          const std::string& what_to_do = "") {
  LmRecordedText r = lm_recorded_text_checked(
      meta, model,
      what_to_do.empty() ? "the length lab measures on PosLab's own text only; remove the model "
                           "or retrain it on the fortune files"
                         : what_to_do);
  paths = r.files.empty() ? lm_default_text_paths() : std::move(r.files);
  split = r.split;
}

}  // namespace

std::string length_own_models_dir() {
  return (std::filesystem::path(user_dir(UserDir::data)) / "models").string();
}

LengthLabModel length_own_model_load(const std::string& path) {
  LmCheckpoint ck = lm_checkpoint_load(path);
  LengthLabModel m{length_model_of(ck.config.position), ck.config, ck.scaling,
                   std::move(ck.params)};
  m.own = std::filesystem::path(path).stem().string();
  m.step = ck.step;
  return m;
}

LengthLabData length_lab_load() {
  LengthLabData data;
  TensorMetadata first_meta;
  std::string first_path;
  for (int k = 0; k < kLengthModelCount; ++k) {
    const auto id = static_cast<LengthModelId>(k);
    const std::string path = length_model_path(id);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) continue;
    LmCheckpoint ck = lm_checkpoint_load(path);
    if (data.models.empty()) first_meta = ck.metadata, first_path = path;
    data.models.push_back({id, ck.config, ck.scaling, std::move(ck.params)});
  }
  // The user's own models, by name; one that cannot be read is listed, not fatal.
  std::vector<std::string> own;
  try {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(length_own_models_dir(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.starts_with(kLmOwnPrefix) && e.path().extension() == ".safetensors" &&
          e.is_regular_file(ec))
        own.push_back(e.path().string());
    }
  } catch (const std::exception& e) {  // no user folder (user_dir's FileError): no own models
    data.own_skipped.push_back(e.what());
  }
  std::sort(own.begin(), own.end());
  // The own models' weights held together (each file alone is within LmConfig::max_params).
  int64_t held = 0;
  for (const std::string& path : own) {
    try {
      const LmConfig c = lm_checkpoint_peek_config(path);
      const int64_t bytes = static_cast<int64_t>(lm_param_count(c)) * 4;
      if (held + bytes > kLengthOwnMaxBytes)
        throw FileError(path, "not read: your models already read hold " + lm_megabytes(held) +
                                  " of weights (at most " + lm_megabytes(kLengthOwnMaxBytes) +
                                  "); move some out of " + length_own_models_dir());
      held += bytes;
      const TensorMetadata meta = SafetensorsFile::open_header(path).metadata();
      std::vector<std::string> paths;
      LmCorpusParams split;
      length_recorded_text(meta, path, paths, split);  // refuses a record of others' files
      data.put_own(length_own_model_load(path));
      if (data.models.size() == 1) first_meta = meta, first_path = path;
    } catch (const Error& e) {
      data.own_skipped.push_back(e.what());
    }
  }
  if (data.models.empty())
    throw FileError(models_dir(),
                    "no length-lab model (lm_<encoding>.safetensors) here; the models ship "
                    "with PosLab: reinstall it, or set POSLAB_MODELS_DIR to a folder that has "
                    "them");
  data.valid = length_held_out_text(first_meta, length_held_out_path(), first_path);
  // A model the lab cannot measure at all (over the budget even at span 1, or longer than the
  // held-out text) is listed with its reason; the rest are shown.
  std::erase_if(data.models, [&](const LengthLabModel& m) {
    const std::string why = length_model_unusable(m, static_cast<int64_t>(data.valid.size()));
    if (!why.empty()) data.own_skipped.push_back(why);
    return !why.empty();
  });
  if (data.models.empty())
    throw FileError(models_dir(),
                    "no length-lab model here can be measured: " + data.own_skipped.back());
  return data;
}

std::vector<std::string> length_lab_files() {
  std::vector<std::string> out;
  out.reserve(kLengthModelCount + 1);
  for (int k = 0; k < kLengthModelCount; ++k)
    out.push_back(length_model_path(static_cast<LengthModelId>(k)));
  out.push_back(length_held_out_path());
  return out;
}

std::string length_held_out_path() {
  return lm_held_out_path();
}

namespace {

// The header line of a held-out file: what it was made from.
Json length_held_out_header(const std::vector<std::string>& paths, const LmCorpusParams& split,
                            size_t bytes) {
  return {{"files", paths}, {"valid_every", split.valid_every}, {"bytes", bytes}};
}

// The bytes of held-out file `path` made from `paths` and `split`, every field checked.
std::vector<uint8_t> length_held_out_read(const std::string& path,
                                          const std::vector<std::string>& paths,
                                          const LmCorpusParams& split) {
  const std::string rebuild =
      "; it ships beside the models: reinstall PosLab, or set POSLAB_MODELS_DIR to a folder "
      "that has both";
  const std::string text = read_file(path, size_t{64} << 20);
  const std::string magic =
      std::string(kLengthHeldOutMagic) + " " + std::to_string(kLengthHeldOutVersion) + "\n";
  if (text.compare(0, magic.size(), magic) != 0)
    throw FileError(
        path, "is not a held-out text of format " + magic.substr(0, magic.size() - 1) + rebuild);
  const size_t eol = text.find('\n', magic.size());
  if (eol == std::string::npos || eol - magic.size() > (size_t{1} << 20))
    throw FileError(path, "has no header line" + rebuild);
  const std::string line = text.substr(magic.size(), eol - magic.size());
  const Json head = json_nesting_depth(line) <= kSafetensorsMaxDepth
                        ? Json::parse(line, nullptr, /*allow_exceptions=*/false)
                        : Json();
  const size_t n = text.size() - eol - 1;
  if (!head.is_object() || head != length_held_out_header(paths, split, n))
    throw FileError(path,
                    "was made from other text files, another split or is cut short (the models "
                    "record " +
                        length_held_out_header(paths, split, n).dump() + ")" + rebuild);
  return {text.begin() + static_cast<long>(eol) + 1, text.end()};
}

}  // namespace

std::vector<uint8_t> length_held_out_text(const TensorMetadata& model_meta,
                                          const std::string& saved, const std::string& model,
                                          const std::string& what_to_do) {
  std::vector<std::string> paths;
  LmCorpusParams split;
  length_recorded_text(model_meta, model, paths, split, what_to_do);
  std::error_code ec;
  const bool installed = std::all_of(paths.begin(), paths.end(), [&](const std::string& p) {
    return std::filesystem::is_regular_file(p, ec);
  });
  if (!installed && std::filesystem::is_regular_file(saved, ec))
    return length_held_out_read(saved, paths, split);
  if (!installed && paths == lm_default_text_paths())  // the shipped models' text
    throw FileError(saved,
                    "not found: the models' held-out text ships beside them; reinstall PosLab, "
                    "or set POSLAB_MODELS_DIR to a folder that has it (or install Debian's "
                    "fortunes, fortunes-min and fortunes-zh, the text it is made from)");
  return lm_corpus_build(lm_read_text_files(paths, nullptr), split).valid;
}

void length_held_out_save(const std::string& model, const std::string& out) {
  std::vector<std::string> paths;
  LmCorpusParams split;
  length_recorded_text(SafetensorsFile::open_header(model).metadata(), model, paths, split);
  const std::vector<uint8_t> valid =
      lm_corpus_build(lm_read_text_files(paths, nullptr), split).valid;
  std::string text = std::string(kLengthHeldOutMagic) + " " +
                     std::to_string(kLengthHeldOutVersion) + "\n" +
                     length_held_out_header(paths, split, valid.size()).dump() + "\n";
  text.append(valid.begin(), valid.end());
  write_file_atomically(out, text);
}

lm::LengthLabModel length_model_load(LengthModelId id, std::vector<uint8_t>* valid) {
  const std::string path = length_model_path(id);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw FileError(path,
                    "not found; the models ship with PosLab: reinstall it, or set "
                    "POSLAB_MODELS_DIR to a folder that has them");
  LmCheckpoint ck = lm_checkpoint_load(path);
  if (valid) *valid = length_held_out_text(ck.metadata, length_held_out_path(), path);
  return {id, ck.config, ck.scaling, std::move(ck.params)};
}

std::string length_curve_label(const LengthCurve& c) {
  std::string s = c.own.empty() ? length_model_name(c.id)
                                : "yours " + c.own.substr(std::string(kLmOwnPrefix).size()) + " @" +
                                      std::to_string(c.step);
  if (c.scaling.scaling != RopeScaling::none) s += " " + lm_scaling_label(c.scaling);
  return s;
}

Json length_lab_json(const LengthLabResult& r, const std::vector<std::string>& own_skipped) {
  Json out;
  out["preset"] = length_to_preset(r.lab);
  out["positions"] = r.positions;
  Json curves = Json::array();
  for (const LengthCurve& c : r.curves) {
    const int L = c.context;
    Json at;
    for (const auto& [name, p] : std::vector<std::pair<std::string, int>>{
             {"L/2", L / 2}, {"L", L}, {"2L", 2 * L}, {"4L", 4 * L}, {"8L", 8 * L}})
      if (p <= c.curve.positions) at[name] = lm_curve_at(c.curve.mean_bits, p, L);
    Json entry = {{"model", length_model_name(c.id)},
                  {"label", length_curve_label(c)},
                  {"scaling", rope_scaling_names()[static_cast<size_t>(c.scaling.scaling)]},
                  {"factor", c.scaling.factor},
                  {"context", L},
                  {"windows", c.curve.offsets.size()},
                  {"mean_bpb", c.curve.mean_bpb},
                  {"at", at},
                  {"mean_bits", c.curve.mean_bits},
                  {"one_bits", c.curve.one_bits}};
    if (!c.own.empty()) entry["own"] = c.own;  // the user's own model
    curves.push_back(std::move(entry));
  }
  out["curves"] = curves;
  out["missing"] = r.missing;
  out["refused"] = r.refused;  // over the budget or impossible: one line each, what to change
  if (!r.scores.bits.empty()) {
    Json text;
    text["model"] = length_model_name(r.lab.model);
    text["context"] = r.context;
    text["scaling"] = rope_scaling_names()[static_cast<size_t>(r.text_scaling.scaling)];
    text["factor"] = r.text_scaling.factor;
    text["bytes"] = std::vector<int>(r.text.begin(), r.text.end());
    text["bits"] = r.scores.bits;
    Json top = Json::array();
    for (const auto& row : r.scores.top) {
      Json t = Json::array();
      for (const auto& [byte, p] : row) t.push_back({byte, p});
      top.push_back(t);
    }
    text["top"] = top;
    out["text"] = text;
    auto matrix = [](const LmAttention& a) {
      Json rows = Json::array();
      for (int t = 0; t < a.n; ++t)
        rows.push_back(std::vector<float>(a.probs.begin() + static_cast<long>(t) * a.n,
                                          a.probs.begin() + static_cast<long>(t + 1) * a.n));
      return rows;
    };
    Json heads;
    heads["layer"] = r.layer;
    heads["head"] = r.head;
    heads["bytes"] = r.heads_plain.n;
    heads["plain"] = matrix(r.heads_plain);
    if (r.has_scaled_heads) heads["scaled"] = matrix(r.heads_scaled);
    out["heads"] = heads;
  }
  out["own_skipped"] = own_skipped;  // own models not read, each with its reason
  return out;
}

}  // namespace poslab::io
