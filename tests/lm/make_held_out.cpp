// Writes the length lab's held-out file (assets/models/lm_held_out.txt, shipped with the
// models: an installed copy or the browser has no fortune files), the validation text of the
// shipped models' split, by the same io code that reads it (scripts/train_length_models.sh
// held-out runs it; poslab_length_held_out_tests checks the shipped file equals its output).
//   make_held_out MODEL OUT   (MODEL: a shipped lm_*.safetensors; its "data" names the split)
#include <cstdio>
#include <exception>

#include "io/length/length_lab_io.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_held_out MODEL OUT\n");
    return 2;
  }
  try {
    poslab::io::length_held_out_save(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_held_out: %s\n", e.what());
    return 1;
  }
  return 0;
}
