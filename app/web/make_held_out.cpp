// Writes the length lab's held-out file for the browser build (web_app.cmake runs it under
// node at build time): the browser has no fortune files, so the validation text of the
// shipped models' split is written once, by the same io code the desktop reads them with.
//   make_held_out MODEL OUT   (MODEL: a shipped lm_*.safetensors; its "data" names the split)
#include <cstdio>
#include <exception>

#include "io/labjson/length_lab_io.hpp"

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
