// Labs' JSON as CSV tables (see lab_csv.hpp).
#include "io/labjson/lab_csv.hpp"

#include <charconv>
#include <vector>

#include "core/bnb/bnb_features.hpp"
#include "core/common/charconv.hpp"

namespace poslab::io {
namespace {

// Collects rows of cells and writes them as CSV text.
class CsvWriter {
 public:
  void table(const std::string& name) {
    if (!text_.empty()) text_ += "\n";  // the empty row ending the previous table
    row({Json("table"), Json(name)});
  }
  void row(const std::vector<Json>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) text_ += ',';
      text_ += csv_cell(cells[i]);
    }
    text_ += '\n';
  }
  void header(const std::vector<std::string>& names) {
    std::vector<Json> cells(names.begin(), names.end());
    row(cells);
  }
  // key,value rows for the named members of j that exist.
  void summary(const Json& j, const std::vector<std::string>& keys) {
    table("summary");
    header({"key", "value"});
    for (const auto& k : keys)
      if (j.contains(k)) row({Json(k), j[k]});
  }
  // A matrix with labelled rows and columns.
  void matrix(const std::string& name, const Json& m, const std::vector<std::string>& row_labels,
              const std::vector<std::string>& col_labels, const std::string& corner) {
    table(name);
    std::vector<std::string> h{corner};
    h.insert(h.end(), col_labels.begin(), col_labels.end());
    header(h);
    for (size_t r = 0; r < m.size(); ++r) {
      std::vector<Json> cells{Json(r < row_labels.size() ? row_labels[r] : std::to_string(r))};
      for (const auto& v : m[r]) cells.push_back(v);
      row(cells);
    }
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

std::vector<std::string> index_labels(size_t n, const std::string& prefix) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

std::string csv_cell(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    char buf[40];
    const auto r = chars::to_chars(buf, buf + sizeof buf, v.get<double>());
    return std::string(buf, r.ptr);
  }
  std::string s = v.is_string() ? v.get<std::string>() : dump_json(v);
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string rope_lab_csv(const Json& j) {
  CsvWriter w;
  w.summary(j, {"head_dim", "rotary_dim", "base", "layout", "scaling", "factor", "original_context",
                "effective_base", "attention_scale", "logit_scale"});
  w.table("pairs");
  std::vector<std::string> h{"pair",       "inv_freq_original", "inv_freq", "wavelength_original",
                             "wavelength", "turns_in_context",  "band"};
  const bool yarn = j.contains("yarn");
  if (yarn) h.push_back("yarn_keep");
  for (const auto& a : j["angles"]) h.push_back("angle_at_m=" + csv_cell(a["position"]));
  w.header(h);
  for (size_t i = 0; i < j["inv_freq"].size(); ++i) {
    std::vector<Json> r{Json(i),
                        j["inv_freq_original"][i],
                        j["inv_freq"][i],
                        j["wavelengths_original"][i],
                        j["wavelengths"][i],
                        j["turns_in_context"][i],
                        j["bands"][i]};
    if (yarn) r.push_back(j["yarn"]["keep"][i]);
    for (const auto& a : j["angles"]) r.push_back(a["angles"][i]);
    w.row(r);
  }
  if (j.contains("decay")) {
    const Json& d = j["decay"];
    w.table("decay (" + d["vectors"].get<std::string>() + ")");
    w.header({"d", "score", "score_without_scaling"});
    for (size_t i = 0; i < d["deltas"].size(); ++i)
      w.row({d["deltas"][i], d["score"][i], d["score_without_scaling"][i]});
  }
  return w.take();
}

std::string attention_lab_csv(const Json& j) {
  CsvWriter w;
  w.summary(j, {"preset", "encoding", "label", "heads", "model_dim", "head_dim", "seed",
                "use_content", "use_position", "causal", "scale", "kernel", "note"});
  w.table("tokens");
  w.header({"index", "token", "position"});
  std::vector<std::string> labels;
  // The trained source has no positions (its bytes sit at 0..n-1) and no logits table.
  const bool positions = j.contains("positions");
  for (size_t t = 0; t < j["tokens"].size(); ++t) {
    w.row({Json(t), j["tokens"][t], positions ? j["positions"][t] : Json(t)});
    labels.push_back(std::to_string(t) + ":" + j["tokens"][t].get<std::string>());
  }
  for (const auto& h : j["per_head"]) {
    const std::string n = " head " + h["head"].dump();
    if (h.contains("logits")) w.matrix("logits" + n, h["logits"], labels, labels, "query\\key");
    w.matrix("weights" + n, h["weights"], labels, labels, "query\\key");
    if (h.contains("bias")) w.matrix("bias" + n, h["bias"], labels, labels, "query\\key");
  }
  if (j.contains("encoding_matrix")) {
    const Json& m = j["encoding_matrix"];
    w.matrix("encoding_matrix", m, labels, index_labels(m.empty() ? 0 : m[0].size(), "dim"),
             "token\\dim");
  }
  return w.take();
}

std::string kv_lab_csv(const Json& j) {
  CsvWriter w;
  Json flat = j;
  flat["layers"] = j["model"]["layers"];
  flat["seed"] = j["model"]["seed"];
  w.summary(flat, {"preset", "scenario", "positions", "steps", "layers", "seed"});
  const int layers = j["model"]["layers"].get<int>();
  for (const auto& m : j["methods"]) {
    const std::string name = m["method"].get<std::string>();
    w.table("errors " + name);
    std::vector<std::string> h{"step"};
    for (const char* what : {"output_error", "key_error", "value_error"})
      for (int l = 0; l < layers; ++l)
        h.push_back(std::string(what) + "_layer" + std::to_string(l));
    h.push_back("logits_error");
    w.header(h);
    for (const auto& s : m["steps"]) {
      std::vector<Json> r{s["step"]};
      for (const char* what : {"output_error", "key_error", "value_error"})
        for (const auto& v : s[what]) r.push_back(v);
      r.push_back(s["logits_error"]);
      w.row(r);
    }
    const Json& c = m["final_cache"];
    w.table("cache " + name);
    w.header({"slot", "label", "computed_at", "encoded_at", "used_at", "key_scale"});
    for (size_t i = 0; i < c["labels"].size(); ++i)
      w.row({Json(i), c["labels"][i], c["computed_at"][i], c["encoded_at"][i], c["used_at"][i],
             c["key_scale"][i]});
    if (m.contains("key_position_error")) {
      w.table("key_position_error " + name);
      w.header({"slot", "key_position_error"});
      for (size_t i = 0; i < m["key_position_error"].size(); ++i)
        w.row({Json(i), m["key_position_error"][i]});
    }
  }
  return w.take();
}

std::string arena_lab_csv(const Json& j, int row) {
  CsvWriter w;
  const Json& tokens = j["tokens"];
  const size_t r = row < 0 ? tokens.size() - 1 : static_cast<size_t>(row);
  Json flat = j;
  flat["row"] = r;
  w.summary(flat, {"source", "file", "episode", "policy", "seed", "max_steps", "outcome", "rows",
                   "agent_steps", "row"});
  w.table("ships at row " + std::to_string(r));
  std::vector<std::string> h{"slot"};
  h.insert(h.end(), bnb::kTokenNames.begin(), bnb::kTokenNames.end());
  w.header(h);
  if (r < tokens.size())
    for (size_t k = 0; k < tokens[r].size(); ++k) {
      std::vector<Json> cells{Json(k)};
      for (const auto& v : tokens[r][k]) cells.push_back(v);
      w.row(cells);
    }
  return w.take();
}

std::string dreams_lab_csv(const Json& j) {
  CsvWriter w;
  w.summary(j, {"preset", "checkpoint", "context", "steps"});
  for (const auto& [name, curve] : j["curves"].items()) {
    w.table("error " + name);
    w.header({"h", "pos_px", "vel_px_s", "att_deg", "health", "power", "ships", "present", "agree",
              "alive_agree"});
    for (size_t i = 0; i < curve.size(); ++i) {
      const Json& e = curve[i];
      w.row({Json(i + 1), e["pos_px"], e["vel_px_s"], e["att_deg"], e["health"], e["power"],
             e["ships"], e["present"], e["agree"], e["alive_agree"]});
    }
  }
  return w.take();
}

std::string length_lab_csv(const Json& j) {
  CsvWriter w;
  w.summary(j, {"preset", "positions"});
  w.table("bits per byte at L/2, L, 2L, 4L, 8L");
  w.header({"curve", "L", "mean_bpb", "L/2", "L", "2L", "4L", "8L"});
  for (const Json& c : j["curves"]) {
    const Json& at = c["at"];
    auto cell = [&at](const char* k) { return at.contains(k) ? at[k] : Json(); };
    w.row({c["label"], c["context"], c["mean_bpb"], cell("L/2"), cell("L"), cell("2L"), cell("4L"),
           cell("8L")});
  }
  w.table("bits per byte against position");
  std::vector<std::string> head{"position"};
  for (const Json& c : j["curves"]) {
    head.push_back(c["label"].get<std::string>() + " mean");
    head.push_back(c["label"].get<std::string>() + " one window");
  }
  w.header(head);
  const size_t n = j["curves"].empty() ? 0 : j["curves"][0]["mean_bits"].size();
  for (size_t t = 0; t < n; ++t) {
    std::vector<Json> row{Json(t)};
    for (const Json& c : j["curves"]) {
      row.push_back(t < c["mean_bits"].size() ? c["mean_bits"][t] : Json());
      row.push_back(t < c["one_bits"].size() ? c["one_bits"][t] : Json());
    }
    w.row(row);
  }
  if (j.contains("text")) {
    w.table("text: bits of each byte given the bytes before it");
    w.header({"byte_index", "byte", "bits"});
    const Json& t = j["text"];
    for (size_t i = 0; i < t["bits"].size(); ++i)
      w.row({Json(i + 1), t["bytes"][i + 1], t["bits"][i]});
  }
  return w.take();
}

}  // namespace poslab::io
