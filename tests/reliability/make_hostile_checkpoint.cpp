// make_hostile_checkpoint: world-model checkpoints crafted to hurt their reader (issue 29),
// for hostile_inputs_test.sh and by hand:
//   make_hostile_checkpoint deep-shape OUT DEPTH     a tensor shape nested DEPTH arrays deep
//   make_hostile_checkpoint deep-meta OUT DEPTH      a __metadata__ value nested DEPTH deep
//   make_hostile_checkpoint deep-config OUT DEPTH    a valid model whose config text nests
//   make_hostile_checkpoint huge-config OUT [optim]  a 1.7 KB file claiming E 1024, 64 heads,
//                                                    64 layers, context 4096 (param_count to
//                                                    match) holding one 1-value tensor
//   make_hostile_checkpoint valid OUT DATA [KEY=VALUE ...]  a tiny model with optimiser
//                                                    state trained on nothing, recording DATA
//                                                    as its dataset; KEY=VALUE replaces a
//                                                    metadata string ("step= 5")
//   make_hostile_checkpoint weight OUT DATA VALUE    the same with one weight = VALUE
//                                                    (3e38, nan, inf)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/nn/adamw.hpp"
#include "core/wm/world_model.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"

using namespace poslab;

namespace {

std::string nested(int depth) {
  return std::string(static_cast<size_t>(depth), '[') +
         std::string(static_cast<size_t>(depth), ']');
}

// A file from a header text and a data section (the header padded to 8 bytes).
void write_raw(const std::string& path, std::string header, size_t data_bytes) {
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += header + std::string(data_bytes, '\0');
  std::ofstream(path, std::ios::binary) << out;
}

io::TensorMetadata training_meta(const std::string& data) {
  io::TensorMetadata m;
  m["data"] = R"({"files": [{"path": ")" + data + R"(", "episodes": 12}], "seed": 3,
                  "val_fraction": 0.25})";
  m["training"] = R"({"batch": 2, "short_steps": 16, "long_steps": 32, "long_every": 5,
                      "lr": 0.001, "warmup_steps": 2})";
  m["seed"] = "3";
  return m;
}

// A tiny model (random weights, zero optimiser state at step 4) saved with `meta`, then
// with any metadata string replaced as given.
void write_valid(const std::string& path, io::TensorMetadata meta, float weight0, int argc,
                 char** argv, int first_override) {
  const wm::WmConfig c = wm::wm_preset("tiny");
  wm::WorldModel m(c);
  m.init(1);
  m.params[0] = weight0;
  nn::AdamWState opt = nn::adamw_init(m.params.size());
  opt.step = 4;
  io::wm_checkpoint_save(path, c, m.params, 4, &opt, meta);
  if (first_override >= argc) return;
  // Rewrite the metadata strings through the reader's own view of the file.
  auto ck = io::wm_checkpoint_load(path);
  io::TensorMetadata all = ck.metadata;
  for (int i = first_override; i < argc; ++i) {
    const std::string kv = argv[i];
    const auto eq = kv.find('=');
    if (eq == std::string::npos) throw std::runtime_error("KEY=VALUE expected: " + kv);
    all[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  // Save the tensors as they are with the edited metadata, bypassing the writer's own keys.
  io::TensorLayout layout = io::wm_tensor_layout(c);
  const size_t P = m.params.size();
  std::vector<float> flat(m.params.begin(), m.params.end());
  flat.insert(flat.end(), 2 * P, 0.0f);
  const size_t n = layout.size();
  for (const char* prefix : {"optim.m.", "optim.v."})
    for (size_t i = 0; i < n; ++i) {
      auto t = layout[i];
      t.name = prefix + t.name;
      t.offset += (std::string(prefix) == "optim.m." ? 1 : 2) * P;
      layout.push_back(t);
    }
  io::safetensors_save(path, layout, flat, all);
}

// wm_param_count's layout summed by hand, for configs beyond the budget (wm_param_count
// refuses those); checked against wm_param_count on the presets in main().
size_t param_count_unchecked(const wm::WmConfig& c) {
  const size_t E = static_cast<size_t>(c.embed), H = static_cast<size_t>(c.heads), Ea = E / 4;
  const auto lin = [](size_t out, size_t in) { return out * in + out; };
  size_t p = lin(E, wm::kStateFeatures) + 2 * lin(2 * E, E) + lin(E, 2 * E) + 2 * E + 3 * 2 * E +
             12 * Ea + lin(E, 3 * Ea) + wm::kShips * E + 2 * E + 2 * E;
  if (c.position == wm::WmPosition::absolute) p += 2 * static_cast<size_t>(c.context) * E;
  for (int l = 0; l < c.layers; ++l) {
    p += 2 * E + lin(3 * E, E) + lin(E, E) + 2 * E + lin(4 * E, E) + lin(E, 4 * E);
    if (!wm::wm_is_temporal(l))
      p += lin(wm::kRelBiasHidden, wm::kRelDim) + lin(H, wm::kRelBiasHidden);
  }
  return p + 2 * E + lin(wm::kActionLogits, E) + lin(wm::kTokenDim, E) +
         2 * lin(static_cast<size_t>(wm::kRelDim * wm::kRelRank), E);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: see the comment at the top of make_hostile_checkpoint.cpp\n");
    return 2;
  }
  const std::string kind = argv[1], out = argv[2];
  for (const char* preset : {"tiny", "paper"})
    for (auto pos : {wm::WmPosition::rope, wm::WmPosition::absolute})
      if (param_count_unchecked(wm::wm_preset(preset, pos)) !=
          wm::wm_param_count(wm::wm_preset(preset, pos))) {
        std::fprintf(stderr, "param_count_unchecked disagrees with wm_param_count (%s)\n", preset);
        return 1;
      }
  const int depth = argc > 3 ? std::atoi(argv[3]) : 0;
  try {
    if (kind == "deep-shape") {
      write_raw(
          out,
          R"({"t": {"dtype": "F32", "shape": )" + nested(depth) + R"(, "data_offsets": [0, 4]}})",
          4);
    } else if (kind == "deep-meta") {
      write_raw(out,
                R"({"__metadata__": {"format": )" + nested(depth) +
                    R"(}, "t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
                4);
    } else if (kind == "deep-config") {
      std::string kv = R"(config={"embed": )" + nested(depth) + "}";
      char* args[] = {kv.data()};
      write_valid(out, training_meta("none.h5"), 0.0f, 1, args, 0);
    } else if (kind == "huge-config") {
      wm::WmConfig c;
      c.embed = 1024;
      c.heads = 64;
      c.layers = 64;
      c.context = 4096;
      const std::string first = "state_enc.in.weight";  // the layout's first tensor
      const bool optim = argc > 3 && std::string(argv[3]) == "optim";
      std::string header = R"({"__metadata__": {"format": "poslab-world-model",
        "format_version": "1", "config": ")";
      for (char ch : io::wm_config_to_json(c)) {
        if (ch == '"') header += '\\';
        header += ch;
      }
      header += R"(", "step": "0", "optim_step": "0", "param_count": ")" +
                std::to_string(param_count_unchecked(c)) + R"("}, ")" + first +
                R"(": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]})";
      if (optim)
        header += R"(, "optim.m.)" + first +
                  R"(": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]})";
      write_raw(out, header + "}", optim ? 8 : 4);
    } else if (kind == "valid" && argc > 3) {
      write_valid(out, training_meta(argv[3]), 0.0f, argc, argv, 4);
    } else if (kind == "weight" && argc > 4) {
      write_valid(out, training_meta(argv[3]), std::strtof(argv[4], nullptr), 0, nullptr, 0);
    } else {
      std::fprintf(stderr, "unknown kind '%s' or missing arguments\n", kind.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
