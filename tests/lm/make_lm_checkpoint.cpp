// make_lm_checkpoint: small language-model checkpoints crafted by the budget and recorded-text
// tests (issue 36), written through io's own saver so only the fields named here differ:
//   make_lm_checkpoint OUT POSITION L [KEY=VALUE ...]
//     POSITION  none | sinusoidal | learned | rope | alibi | t5 (E 64, H 4, N 2 unless set)
//     L         the model's context
//     files=A,B,...   the "data" metadata records these text files (default: none recorded)
//     data=TEXT       the "data" metadata verbatim (a damaged record)
//     weight=V        every weight = V (a saturated model); default: the seeded init
//     embed=E heads=H layers=N   the shape
//     optim=1         with AdamW state (resumable by lm train --resume)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/lm/lm.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"

using namespace poslab;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: make_lm_checkpoint OUT POSITION L [KEY=VALUE ...]\n");
    return 2;
  }
  try {
    lm::LmConfig c;
    c.position = lm::lm_position_from_name(argv[2]);
    c.context = std::atoi(argv[3]);
    io::TensorMetadata meta;
    std::string files, weight;
    bool optim = false;
    for (int i = 4; i < argc; ++i) {
      const std::string a = argv[i];
      const auto eq = a.find('=');
      const std::string k = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
      if (k == "files")
        files = v;
      else if (k == "data")
        meta["data"] = v;
      else if (k == "weight")
        weight = v;
      else if (k == "embed")
        c.embed = std::atoi(v.c_str());
      else if (k == "heads")
        c.heads = std::atoi(v.c_str());
      else if (k == "layers")
        c.layers = std::atoi(v.c_str());
      else if (k == "optim")
        optim = v == "1";
      else
        throw InputError("unknown argument " + a);
    }
    if (!files.empty()) {
      std::string j = "{\"files\": [";
      size_t at = 0;
      for (bool first = true; at <= files.size(); first = false) {
        const size_t comma = std::min(files.find(',', at), files.size());
        j += std::string(first ? "" : ", ") + "{\"path\": \"" + files.substr(at, comma - at) +
             "\", \"package\": \"\", \"version\": \"\"}";
        at = comma + 1;
      }
      meta["data"] = j + "], \"valid_every\": 10}";
    }
    lm::LmModel m(c);
    m.init(1);
    if (!weight.empty())
      for (float& w : m.params) w = std::strtof(weight.c_str(), nullptr);
    nn::AdamWState st;
    if (optim) {
      st.m.assign(m.params.size(), 0.0f);
      st.v.assign(m.params.size(), 0.0f);
      st.step = 1;
    }
    io::lm_checkpoint_save(argv[1], c, m.params, optim ? 1 : 0, {}, optim ? &st : nullptr, meta);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_lm_checkpoint: %s\n", e.what());
    return 2;
  }
  return 0;
}
