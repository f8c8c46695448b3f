// The C++ side of tests/torch/lm_parity_test.py: one forward and backward of core/lm's model
// on parameters and bytes given as raw files, outputs written as raw files. It takes
// parameters in the layout order rather than a checkpoint so that the parity of the math is
// checked on any weights the test chooses (non-zero biases and T5 table included); the
// checkpoint round trip is checked separately through poslab-cli.
//   usage: lm_parity_dump EMBED HEADS LAYERS CONTEXT POSITION SCALING FACTOR B T
//                         PARAMS.f32 BYTES.u8 OUT_PREFIX
//   PARAMS.f32: P little-endian float32 in lm_param_layout order, or init:SEED for
//   LmModel::init(SEED); BYTES.u8: B*(T+1) bytes. Writes OUT_PREFIX.params.f32 (P, the
//   weights used), OUT_PREFIX.logits.f32 (B, T, V), OUT_PREFIX.losses.f32 (B, T),
//   OUT_PREFIX.grads.f32 (P) and prints the mean loss in nats on stdout.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/lm/lm.hpp"

namespace {

std::vector<char> lm_dump_read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot be read");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void lm_dump_write(const std::string& path, const float* data, size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(float)));
  if (!f) throw std::runtime_error(path + ": cannot be written");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace poslab;
  using namespace poslab::lm;
  if (argc != 13) {
    std::fprintf(stderr,
                 "usage: lm_parity_dump EMBED HEADS LAYERS CONTEXT POSITION SCALING FACTOR B T "
                 "PARAMS.f32 BYTES.u8 OUT_PREFIX\n");
    return 2;
  }
  try {
    LmConfig c;
    c.embed = std::atoi(argv[1]);
    c.heads = std::atoi(argv[2]);
    c.layers = std::atoi(argv[3]);
    c.context = std::atoi(argv[4]);
    c.position = lm_position_from_name(argv[5]);
    LmScaling s;
    s.scaling = rope_scaling_from_name(argv[6]);
    s.factor = std::atof(argv[7]);
    const int B = std::atoi(argv[8]), T = std::atoi(argv[9]);
    const std::string out = argv[12];
    LmModel m(c);
    const std::string params_arg = argv[10];
    if (params_arg.rfind("init:", 0) == 0) {
      m.init(std::strtoull(params_arg.c_str() + 5, nullptr, 10));
    } else {
      const std::vector<char> p = lm_dump_read(params_arg);
      if (p.size() != m.params.size() * sizeof(float))
        throw std::runtime_error(params_arg + ": " + std::to_string(p.size()) +
                                 " bytes, the config needs " +
                                 std::to_string(m.params.size() * sizeof(float)));
      std::copy(p.begin(), p.end(), reinterpret_cast<char*>(m.params.data()));
    }
    lm_dump_write(out + ".params.f32", m.params.data(), m.params.size());
    const std::vector<char> raw = lm_dump_read(argv[11]);
    if (raw.size() != static_cast<size_t>(B) * (T + 1))
      throw std::runtime_error(std::string(argv[11]) + ": expected B*(T+1) bytes");
    std::vector<uint8_t> bytes(raw.begin(), raw.end());
    m.set_threads(2);
    m.set_scaling(s);
    m.zero_grad();
    const double loss = m.forward(bytes.data(), B, T);
    m.backward();
    const size_t BT = static_cast<size_t>(B) * T;
    lm_dump_write(out + ".logits.f32", m.logits(), BT * kVocab);
    lm_dump_write(out + ".losses.f32", m.losses(), BT);
    lm_dump_write(out + ".grads.f32", m.grads.data(), m.grads.size());
    std::printf("%.9g\n", loss);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lm_parity_dump: %s\n", e.what());
    return 2;
  }
}
